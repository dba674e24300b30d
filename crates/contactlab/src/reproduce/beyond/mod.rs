//! Beyond the papers: two systems no paper analyses, written as `kind = "multibody"` model files
//! (`examples/multibody/`) and analysed with the papers' methods, and continuation in a model
//! parameter (the compass gait's period-doubling cascade, P3's orbit in e). No paper publishes
//! their numbers, so every row compares with an independent route: a closed form, an energy
//! balance, plain simulation, a universal constant.

use super::{Options, ProgressFn};
use crate::hybrid::{EventKind, Termination};
use crate::mechanics::closed_form::RockingBlock;
use crate::model::param::ParamKey;
use crate::model::ModelDoc;
use crate::multibody::gait::{find_gaits, GaitSettings};
use crate::multibody::painleve::{painleve, PainleveSettings, SliceAxis};
use crate::multibody::simulate::{simulate, SimulateSettings};
use crate::multibody::Mechanism;
use crate::plot::{CategoryMap, MapPath, Mark, XyPlot};
use crate::report::{fmt_num, yes_no, Figure, Row, Section, Table};
use crate::Error;

mod spatial;
mod walkers;

use spatial::{a1_stance, compass_walker_3d, eulers_disk, painleve_rod_3d, rimless_wheel_3d, rocking_block_3d};
use walkers::{
    compass_cascade, grazing_and_scuffing, kneed_walker, p3_as_continuation, rimless_basin, simplest_basin,
    simplest_walker, sticking_lost,
};

/// Section title.
pub const TITLE: &str =
    "Beyond the papers: Housner's rocking block, McGeer's kneed walker, the compass gait's period-doubling cascade";

/// This section, for [`super::SECTIONS`].
pub const SECTION: super::SectionDef = super::SectionDef { id: "BEYOND", title: TITLE, build: section };

const BLOCK: &str = include_str!("../../../../../examples/multibody/rocking-block.toml");
const BLOCK_3D: &str = include_str!("../../../../../examples/spatial/rocking-block.xml");
const WHEEL_3D: &str = include_str!("../../../../../examples/spatial/rimless-wheel.xml");
const WALKER_3D: &str = include_str!("../../../../../examples/spatial/compass-walker.xml");
const WALKER_PLANAR: &str = include_str!("../../../../../examples/multibody/compass-walker-pelvis.toml");
const ROD_3D: &str = include_str!("../../../../../examples/spatial/painleve-rod.xml");
const DISK_3D: &str = include_str!("../../../../../examples/spatial/eulers-disk.xml");
const ROD_PLANAR: &str = include_str!("../../../../../examples/multibody/painleve-rod.toml");
const KNEED: &str = include_str!("../../../../../examples/multibody/kneed-walker.toml");
const GOSWAMI: &str = include_str!("../../../../../examples/multibody/goswami-compass-gait.toml");
const SIMPLEST: &str = include_str!("../../../../../examples/multibody/simplest-walker.toml");
const RIMLESS: &str = include_str!("../../../../../examples/multibody/rimless-wheel.toml");
const P3_PENDULUM: &str = include_str!("../../../../../examples/zeno/double-pendulum-pd.toml");
const P3_HALF: &str = include_str!("../../../../../examples/zeno/double-pendulum-pd-e0.5.toml");
const P2_BIPED: &str = include_str!("../../../../../examples/multibody/compass-biped.toml");
const OSCILLATOR: &str = include_str!("../../../../../examples/multibody/impact-oscillator.toml");

fn mechanism(name: &str, text: &str) -> Result<Mechanism, Error> {
    crate::multibody::model::from_model(&ModelDoc::parse(name, text, false)?)
}

/// Builds the section.
pub fn section(opts: &Options, progress: &ProgressFn<'_>) -> Result<Section, Error> {
    let mut sec = Section::new(
        "BEYOND",
        TITLE,
        "Two mechanisms that none of the five papers treats, each written as a `kind = \"multibody\"` model file \
         (shipped in `examples/multibody/`) and analysed by the same commands as the papers' systems: `simulate` \
         (the event-driven hybrid core), `equilibrium classify` (P1's theorems, on a body resting on two contacts), \
         `gait` (P2's and P3's periodic orbits, found without a guess) and `painleve` (P2's A, B and μ_min at any \
         contact). No paper publishes these numbers: each row's reference is an independent route, a closed form \
         or an energy balance. Housner's block is also run in 3-D (`examples/spatial/rocking-block.xml`, a box \
         with a free joint, event-driven with the 3-D contact problem over exact Coulomb cones): its edge impacts \
         against Housner's factor and the planar engine's impact times. Coleman, Chatterjee and Ruina's 3-D rimless \
         wheel (`examples/spatial/rimless-wheel.xml`, point feet) has its steady rolling found by `gait` (Newton's \
         method on the configuration manifold, exact multipliers): its in-plane multiplier against the planar \
         wheel's closed form, a lateral perturbation's growth in plain simulation against its largest \
         multiplier, and the slope above which straight rolling is laterally stable (continuation in the slope). \
         A 3-D compass walker with hip width (`examples/spatial/compass-walker.xml`, after Kuo 1999) has its gait \
         found the same way, modulo its mirror image: at zero hip width its in-plane multipliers against the \
         planar engine's walker, then its lateral multiplier continued in the hip width. Unitree A1 standing on a \
         10° slope (`examples/spatial/a1-standing.toml`) has its stance decided by `stance` (P4's verdicts on the \
         robot with its joints locked): its least friction coefficient against the closed form. \
         Then `continue` (pseudo-arclength continuation in any parameter of a model file) \
         follows the compass gait through its period-doubling cascade in the slope, checked against plain \
         simulation and Feigenbaum's constant, P3's Zeno orbit in e from the plastic impact, checked against \
         P3's own orbit search, P2's compass biped in μ down through where Painlevé's paradox stops being possible \
         on its orbit to where its stance foot starts to slip, a \
         self-excited impact oscillator to where it grazes a second wall (against the closed form) and McGeer's \
         kneed walker with heavier shanks to where its swing foot scuffs (against plain simulation). \
         Last, `basin` (each start of a grid on the gait's section run for up to K strikes and classified): the \
         rimless wheel's basin boundary against the closed-form vaulting speed, the compass gait's basin past its \
         first doubling against the period-2 attractor continuation found, and the simplest walker's thin basin \
         (Schwab & Wisse, 2001) with its cells checked against plain simulation.",
    );
    progress("BEYOND", 0, 4);
    rocking_block(&mut sec, opts)?;
    rocking_block_3d(&mut sec)?;
    rimless_wheel_3d(&mut sec)?;
    compass_walker_3d(&mut sec)?;
    a1_stance(&mut sec, opts)?;
    painleve_rod_3d(&mut sec)?;
    eulers_disk(&mut sec)?;
    progress("BEYOND", 1, 4);
    kneed_walker(&mut sec, opts)?;
    progress("BEYOND", 2, 4);
    compass_cascade(&mut sec, opts)?;
    simplest_walker(&mut sec)?;
    progress("BEYOND", 3, 4);
    rimless_basin(&mut sec)?;
    simplest_basin(&mut sec, opts)?;
    p3_as_continuation(&mut sec)?;
    sticking_lost(&mut sec)?;
    grazing_and_scuffing(&mut sec)?;
    progress("BEYOND", 4, 4);
    Ok(sec)
}

/// Housner's block: rocking decay against Housner's closed form, its Zeno end, P1's verdict.
fn rocking_block(sec: &mut Section, opts: &Options) -> Result<(), Error> {
    const SRC: &str = "Housner (1963), closed form";
    let m = mechanism("rocking-block.toml", BLOCK)?;
    let housner = RockingBlock { b: 0.1, h: 0.4, gravity: 9.81 };
    let sim = simulate(&m, &m.q0, &m.v0, &SimulateSettings { t_max: 10.0, ..Default::default() })?;
    let impacts: Vec<_> = sim.events.iter().filter(|e| e.kind == EventKind::Impact).collect();
    let t1 = housner.first_impact_time(-m.q0[2], 4000);
    sec.rows.push(
        Row::number(
            "Rocking block released at rest tilted 0.15 rad: time of the first impact (s)",
            t1,
            impacts.first().map_or(f64::NAN, |e| e.t),
            1e-9,
            "energy integral, Simpson quadrature",
        )
        .with_note("the block 0.2 m × 0.8 m, 2 kg, rocking on its corners (μ = 1: no sliding)"),
    );
    let ratio = housner.rate_ratio();
    let worst = impacts
        .windows(2)
        .take(20)
        .map(|w| (w[1].impact_speed.unwrap_or(f64::NAN) / w[0].impact_speed.unwrap_or(f64::NAN) - ratio).abs())
        .fold(0.0, f64::max);
    sec.rows.push(Row::at_most(
        format!("Rate ratio per impact, 1 − (3/2) sin²α = {}: largest deviation over 20 impacts", fmt_num(ratio)),
        1e-8,
        worst,
        SRC,
    ));
    let rest = matches!(sim.termination, Termination::Rest) && sim.zeno_points >= 1;
    sec.rows.push(Row::exact(
        "The rocking ends at a Zeno point (infinitely many impacts in finite time), then rest",
        "yes",
        yes_no(rest),
        "geometric decay of the impact intervals",
    ));
    // P1 on the block at rest on both corners.
    let mut at_rest = m.clone();
    at_rest.q0 = vec![0.0, 0.4, 0.0];
    let p = crate::twocontact::from_multibody::to_two_contact(&at_rest)?;
    let c = crate::twocontact::classify::classify(&p, 2001)?;
    let g = c.fixed_points.iter().find(|f| f.attracting).map_or(f64::NAN, |f| f.g);
    sec.rows.push(Row::exact(
        "The block at rest on both corners, read as P1's body on two contacts: verdict",
        "stable",
        c.verdict.as_str(),
        "Housner: the rocking decays",
    ));
    sec.rows.push(Row::number(
        "P1's growth factor G(φ*) at the attracting fixed point = Housner's ratio squared (two impacts a cycle)",
        ratio * ratio,
        g,
        1e-9,
        SRC,
    ));
    // Figure: the tilt against time.
    let path = opts.out.join("beyond_rocking_block.png");
    let tilt: Vec<(f64, f64)> = sim.samples.iter().map(|s| (s.t, s.q[2])).collect();
    let marks: Vec<(f64, f64)> = impacts.iter().map(|e| (e.t, e.q[2])).collect();
    XyPlot::new("Housner's rocking block (examples/multibody/rocking-block.toml)", "t (s)", "tilt θ (rad)")
        .add("θ(t)", tilt, Mark::Line)
        .add("impacts", marks, Mark::Points)
        .save(&path)?;
    sec.figures.push(Figure {
        file: "beyond_rocking_block.png".into(),
        caption: format!(
            "Housner's rocking block released at rest tilted 0.15 rad: every impact multiplies the rotation rate by \
             Housner's ratio {} (within 1e-8), the impacts accumulate at a Zeno point at t = {} s and the block \
             rests on both corners.",
            fmt_num(ratio),
            fmt_num(sim.t_end)
        ),
    });
    Ok(())
}

/// A row's note on a special point located on the period's events.
fn located(s: Option<&crate::continuation::SpecialPoint>) -> String {
    located_on(s, "the period's events")
}

/// A row's note on a special point located by bisection on `test` (what changes sign there).
fn located_on(s: Option<&crate::continuation::SpecialPoint>, test: &str) -> String {
    s.map_or("not located".to_string(), |s| {
        format!("located by bisection on {test} to a bracket of {}; {}", fmt_num(s.bracket), s.detail)
    })
}
