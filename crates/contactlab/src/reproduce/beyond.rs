//! Beyond the papers: two systems no paper analyses, written as `kind = "multibody"` model files
//! (`examples/multibody/`) and analysed with the papers' methods. No paper publishes their
//! numbers, so every row compares with an independent route: a closed form, an energy balance.

use super::{Options, ProgressFn};
use crate::hybrid::{EventKind, Termination};
use crate::mechanics::closed_form::RockingBlock;
use crate::mechanism::gait::{find_gaits, GaitSettings};
use crate::mechanism::painleve::{painleve, PainleveSettings, SliceAxis};
use crate::mechanism::simulate::{simulate, SimulateSettings};
use crate::mechanism::Mechanism;
use crate::model::ModelDoc;
use crate::plot::{CategoryMap, MapPath, Mark, XyPlot};
use crate::report::{fmt_num, yes_no, Figure, Row, Section, Table};
use crate::Error;

/// Section title.
pub const TITLE: &str = "Beyond the papers: Housner's rocking block and McGeer's kneed walker from model files";

/// This section, for [`super::SECTIONS`].
pub const SECTION: super::SectionDef = super::SectionDef { id: "BEYOND", title: TITLE, build: section };

const BLOCK: &str = include_str!("../../../../examples/multibody/rocking-block.toml");
const KNEED: &str = include_str!("../../../../examples/multibody/kneed-walker.toml");

fn mechanism(name: &str, text: &str) -> Result<Mechanism, Error> {
    crate::mechanism::model::from_model(&ModelDoc::parse(name, text, false)?)
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
         or an energy balance.",
    );
    progress("BEYOND", 0, 2);
    rocking_block(&mut sec, opts)?;
    progress("BEYOND", 1, 2);
    kneed_walker(&mut sec, opts)?;
    progress("BEYOND", 2, 2);
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
    let p = crate::mechanism::two_contact::to_two_contact(&at_rest)?;
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

/// McGeer's kneed walker: its gait from no guess, the energy balance of a step, Painlevé.
fn kneed_walker(sec: &mut Section, opts: &Options) -> Result<(), Error> {
    let m = mechanism("kneed-walker.toml", KNEED)?;
    let search = find_gaits(&m, &GaitSettings::default())?;
    let g = search.gaits.first();
    sec.rows.push(
        Row::exact(
            "Kneed walker (knee locks as joint limits): a stable gait found from Hsu Chen's initial conditions, no guess",
            "yes",
            yes_no(g.is_some_and(|g| g.stable)),
            "McGeer (1990): passive walking with knees",
        )
        .with_note(g.map_or_else(
            || search.reason.clone().unwrap_or_default(),
            |g| {
                format!(
                    "period {} s, |multipliers| {}, step {} m",
                    fmt_num(g.period),
                    g.multipliers.iter().map(|z| fmt_num(z[0].hypot(z[1]))).collect::<Vec<_>>().join(", "),
                    fmt_num(g.step_length[0])
                )
            },
        )),
    );
    let Some(g) = g else { return Ok(()) };
    // One step from the gait's state: the impacts take the potential energy of the descent.
    let state = [g.q.clone(), g.v.clone()].concat();
    let settings = SimulateSettings { t_max: g.period * (1.0 + 1e-9), ..Default::default() };
    let step = simulate(&m, &state[..6], &state[6..], &settings)?;
    let lost: f64 = step.events.iter().filter_map(|e| e.energy_loss).sum();
    let mass: f64 = m.tree.bodies().iter().map(|b| b.mass).sum();
    let slope = m.tree.gravity_vector().x.atan2(-m.tree.gravity_vector().y);
    let descent = mass * m.tree.gravity_vector().norm() * slope.sin() * g.step_length[0];
    sec.rows.push(Row::number(
        "Kneed walker: kinetic energy the impacts of one step take (J) = M g sin γ × step length",
        descent,
        lost,
        1e-7 * descent,
        "energy balance of a periodic step",
    ));
    // The animation: two steps of the gait.
    let two = simulate(&m, &g.q, &g.v, &SimulateSettings { t_max: 2.0 * g.period, ..Default::default() })?;
    two.write_animation(&m, &opts.out.join("beyond_kneed_walker.gif"))?;
    sec.figures.push(Figure {
        file: "beyond_kneed_walker.gif".into(),
        caption: "McGeer's kneed walker, two steps of its gait (contactlab simulate --out writes such an animation \
                  for any model): the swing knee locks at the knee strike, then the heel strikes and the legs swap; \
                  closed contacts are marked."
            .into(),
    });
    let knee_first = step.events.iter().find(|e| e.energy_loss.is_some()).and_then(|e| e.contact.clone());
    sec.rows.push(Row::exact(
        "Kneed walker: the swing knee locks (knee strike) before the heel strikes",
        "yes",
        yes_no(knee_first.as_deref() == Some("swing knee")),
        "McGeer (1990)",
    ));
    sec.rows.push(Row::at_most(
        "Kneed walker: friction the sticking stance foot needs, μ_stick ≤ the model's μ",
        0.8,
        g.mu_stick.unwrap_or(f64::NAN),
        "the model's μ = 0.8",
    ));
    // Painlevé at the stance foot with the stance knee held, knees straight.
    let slice = vec![
        SliceAxis { coordinate: "stance.theta".into(), lo: -0.4, hi: 0.4 },
        SliceAxis { coordinate: "swing".into(), lo: -1.0, hi: 1.0 },
    ];
    let mut table = Table {
        caption: "Kneed walker: Painlevé's paradox at the stance foot, the stance knee held (μ = 0.8), at the gait's \
                  post-strike state and over the slice stance.theta ∈ [−0.4, 0.4], swing ∈ [−1, 1] (knees straight)"
            .into(),
        header: ["σ", "A", "B", "case", "μ_min", "B < 0 at grid points"].iter().map(|s| s.to_string()).collect(),
        rows: vec![],
    };
    let mut map = None;
    for sigma in [1i8, -1] {
        let s = PainleveSettings {
            contact: "stance foot".into(),
            sigma: Some(sigma),
            slice: slice.clone(),
            points: 81,
            held: Some(vec!["stance knee".into()]),
            ..Default::default()
        };
        let p = painleve(&m, &g.q, &g.v, &s)?;
        table.rows.push(vec![
            format!("{sigma:+}"),
            fmt_num(p.at_state.a),
            fmt_num(p.at_state.b),
            crate::output::kebab(&p.at_state.case),
            p.mu_min.as_ref().map_or("none".into(), |x| fmt_num(x.mu_min)),
            p.b_negative_grid.as_ref().map_or(0, |x| x.cells).to_string(),
        ]);
        if sigma == 1 {
            map = Some(p);
        }
    }
    sec.tables.push(table);
    if let Some(p) = map.filter(|p| p.b_negative_grid.is_some()) {
        let grid = p.b_negative_grid.as_ref().expect("a two-coordinate slice");
        let n = grid.points_per_axis;
        let at = |a: &SliceAxis, k: usize| a.lo + (a.hi - a.lo) * k as f64 / (n - 1) as f64;
        let gait_path: Vec<(f64, f64)> =
            step.samples.iter().filter(|s| s.t < g.period).map(|s| (s.q[2], s.q[4])).collect();
        CategoryMap {
            title: "Kneed walker: B < 0 at the stance foot (μ = 0.8, σ = +1, stance knee held)".into(),
            x_label: "stance.theta (rad)".into(),
            y_label: "swing (rad)".into(),
            xs: (0..n).map(|k| at(&slice[0], k)).collect(),
            ys: (0..n).map(|k| at(&slice[1], k)).collect(),
            cells: grid.b.iter().flat_map(|row| row.iter().map(|&b| usize::from(b < 0.0))).collect(),
            legend: vec![("B > 0".into(), (230, 230, 230)), ("B < 0 (Painlevé)".into(), (213, 94, 0))],
            marks: vec![],
            paths: vec![MapPath { label: "the gait, one step".into(), points: gait_path }],
        }
        .save(&opts.out.join("beyond_kneed_walker_b.png"))?;
        sec.figures.push(Figure {
            file: "beyond_kneed_walker_b.png".into(),
            caption: format!(
                "McGeer's kneed walker: where a forward slip of the stance foot would meet Painlevé's paradox (B < 0, \
                 the stance knee held; μ_min = {}), and the gait's path over one step. The gait's foot sticks \
                 (μ_stick = {} < μ), so the paradox needs a slip the gait never starts.",
                p.mu_min.as_ref().map_or("none".into(), |x| fmt_num(x.mu_min)),
                fmt_num(g.mu_stick.unwrap_or(f64::NAN))
            ),
        });
    }
    Ok(())
}
