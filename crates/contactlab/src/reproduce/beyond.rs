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

/// Section title.
pub const TITLE: &str =
    "Beyond the papers: Housner's rocking block, McGeer's kneed walker, the compass gait's period-doubling cascade";

/// This section, for [`super::SECTIONS`].
pub const SECTION: super::SectionDef = super::SectionDef { id: "BEYOND", title: TITLE, build: section };

const BLOCK: &str = include_str!("../../../../examples/multibody/rocking-block.toml");
const BLOCK_3D: &str = include_str!("../../../../examples/spatial/rocking-block.xml");
const WHEEL_3D: &str = include_str!("../../../../examples/spatial/rimless-wheel.xml");
const WALKER_3D: &str = include_str!("../../../../examples/spatial/compass-walker.xml");
const WALKER_PLANAR: &str = include_str!("../../../../examples/multibody/compass-walker-pelvis.toml");
const ROD_3D: &str = include_str!("../../../../examples/spatial/painleve-rod.xml");
const DISK_3D: &str = include_str!("../../../../examples/spatial/eulers-disk.xml");
const ROD_PLANAR: &str = include_str!("../../../../examples/multibody/painleve-rod.toml");
const KNEED: &str = include_str!("../../../../examples/multibody/kneed-walker.toml");
const GOSWAMI: &str = include_str!("../../../../examples/multibody/goswami-compass-gait.toml");
const SIMPLEST: &str = include_str!("../../../../examples/multibody/simplest-walker.toml");
const RIMLESS: &str = include_str!("../../../../examples/multibody/rimless-wheel.toml");
const P3_PENDULUM: &str = include_str!("../../../../examples/zeno/double-pendulum-pd.toml");
const P3_HALF: &str = include_str!("../../../../examples/zeno/double-pendulum-pd-e0.5.toml");
const P2_BIPED: &str = include_str!("../../../../examples/multibody/compass-biped.toml");
const OSCILLATOR: &str = include_str!("../../../../examples/multibody/impact-oscillator.toml");

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

/// The same block in 3-D (`examples/spatial/rocking-block.xml`): a box with a free joint whose
/// edge impacts (two corners at once, solved together by the 3-D contact problem) give
/// Housner's factor, at the planar engine's impact times.
fn rocking_block_3d(sec: &mut Section) -> Result<(), Error> {
    use crate::spatial::events::{simulate_events, EventSettings};
    const SRC: &str = "Housner (1963), closed form";
    let planar = mechanism("rocking-block.toml", BLOCK)?;
    let housner = RockingBlock { b: 0.1, h: 0.4, gravity: 9.81 };
    let flat = simulate(&planar, &planar.q0, &planar.v0, &SimulateSettings { t_max: 10.0, ..Default::default() })?;
    let planar_impacts: Vec<f64> = flat.events.iter().filter(|e| e.kind == EventKind::Impact).map(|e| e.t).collect();

    let m = crate::api::SpatialModel::from_mjcf(
        "examples/spatial/rocking-block.xml".into(),
        &crate::spatial::mjcf::parse("rocking-block.xml", BLOCK_3D)?,
    );
    let run = simulate_events(&m.scene(None, 0.0), &m.q0, &m.v0, &EventSettings { t_max: 10.0, ..Default::default() })?;
    let impacts: Vec<&crate::spatial::events::Event3> =
        run.events.iter().filter(|e| e.kind == EventKind::Impact).collect();
    // The rotation rate about y (the body's axis, MuJoCo's qvel[4]) just before and just after
    // each impact: the two samples the run keeps at the impact's time.
    let rates: Vec<(f64, f64)> = impacts
        .iter()
        .filter_map(|e| {
            let k = run.t.iter().position(|&t| t == e.t)?;
            (run.t.get(k + 1) == Some(&e.t)).then(|| (run.v[k][4], run.v[k + 1][4]))
        })
        .collect();
    let ratio = housner.rate_ratio();
    let worst = rates.iter().take(20).map(|(a, b)| (b / a - ratio).abs()).fold(f64::NAN, f64::max);
    sec.rows.push(
        Row::at_most(
            format!(
                "3-D block (a box with a free joint): rate ratio per edge impact, 1 − (3/2) sin²α = {}: largest \
                 deviation over the first {} impacts",
                fmt_num(ratio),
                rates.len().min(20)
            ),
            1e-8,
            if rates.len() == impacts.len() && !rates.is_empty() { worst } else { f64::NAN },
            SRC,
        )
        .with_note("examples/spatial/rocking-block.xml: the planar block given a depth of 0.3 m"),
    );
    let both = impacts.iter().all(|e| e.modes.chars().filter(|&c| c == 'S').count() == 2);
    sec.rows.push(Row::exact(
        "3-D block: at every impact both corners of the striking edge strike together and stick, the other edge lifts",
        "yes",
        yes_no(both && !impacts.is_empty()),
        "Housner's assumption",
    ));
    let n = impacts.len().min(planar_impacts.len());
    // Relative to the time: both integrations keep a relative error of 1e-10 per step, and the
    // rates after the impacts (each within 1e-9 of Housner's) carry it into the later intervals.
    let dt = impacts.iter().zip(&planar_impacts).map(|(a, b)| (a.t - b).abs() / b).fold(0.0, f64::max);
    sec.rows.push(
        Row::at_most(
            format!("3-D block against the planar engine: largest difference of the first {n} impact times, relative"),
            1e-8,
            if n >= 10 { dt } else { f64::NAN },
            "the planar engine (examples/multibody/rocking-block.toml)",
        )
        .with_note(match (impacts.first().zip(planar_impacts.first()), n.checked_sub(1)) {
            (Some((a, b)), Some(l)) => format!(
                "the first impact at {} s differs by {:.1e} s, impact {n} at {} s by {:.1e} s",
                fmt_num(*b),
                (a.t - b).abs(),
                fmt_num(planar_impacts[l]),
                (impacts[l].t - planar_impacts[l]).abs()
            ),
            _ => "no impacts".into(),
        }),
    );
    let zeno = run.events.iter().any(|e| e.kind == EventKind::Zeno);
    sec.rows.push(Row::exact(
        "3-D block: the rocking ends at a Zeno point, then rest on the four corners",
        "yes",
        yes_no(
            zeno && matches!(run.termination, Termination::Rest)
                && run.final_modes.as_deref().is_some_and(|m| m.chars().filter(|&c| c == 'S').count() == 4),
        ),
        "the planar engine",
    ));
    // The same block stood on a corner (examples/spatial/wobbling-block.toml): it wobbles from
    // corner to corner, turning, to rest flat through a Zeno series; Moreau–Jean time-stepping
    // (no events, no Zeno completion) at 0.2 ms against it.
    let mut wob = m.clone();
    wob.q0 = vec![
        -0.06571976323094932,
        -0.09857964484642397,
        0.422448773631574,
        0.9971888181122075,
        -0.062345284990933725,
        0.04156352332728916,
        0.0,
    ];
    let event =
        crate::api::spatial_simulate(&wob, None, &crate::api::SpatialSimSettings { t_max: 5.0, ..Default::default() })?;
    let moreau = crate::api::SpatialSimSettings {
        t_max: 5.0,
        h: 2e-4,
        method: crate::api::SpatialMethod::Moreau,
        ..Default::default()
    };
    let stepped = crate::api::spatial_simulate(&wob, None, &moreau)?;
    let zeno = event.events.as_deref().unwrap_or_default().iter().any(|e| e.kind == EventKind::Zeno);
    let (a, b) = (event.q.last(), stepped.q.last());
    let yaw = |q: &[f64]| 2.0 * q[6].atan2(q[3]);
    let (dist, dyaw) = match (a, b) {
        (Some(a), Some(b)) if zeno && event.end == "rest" => ((a[0] - b[0]).hypot(a[1] - b[1]), yaw(a) - yaw(b)),
        _ => (f64::NAN, f64::NAN),
    };
    sec.rows.push(
        Row::at_most(
            "3-D block stood on a corner (examples/spatial/wobbling-block.toml): it wobbles from corner to corner \
             and comes to rest flat through a Zeno series; distance (m) of its rest position from Moreau–Jean's \
             at h = 0.2 ms",
            1e-3,
            dist,
            "Moreau–Jean time-stepping (no events, no Zeno completion)",
        )
        .with_note(format!(
            "{} impacts; rest at {} s; heading turned {} rad (time-stepping: {} rad)",
            event.events.as_deref().unwrap_or_default().iter().filter(|e| e.kind == EventKind::Impact).count(),
            fmt_num(event.t.last().copied().unwrap_or(f64::NAN)),
            fmt_num(a.map_or(f64::NAN, |a| yaw(a))),
            fmt_num(a.map_or(f64::NAN, |a| yaw(a)) - dyaw)
        )),
    );
    Ok(())
}

/// The axis (body `z`) of a free body's MuJoCo `qpos` (position, then the quaternion w x y z).
fn body_axis(q: &[f64]) -> [f64; 3] {
    let (w, x, y, z) = (q[3], q[4], q[5], q[6]);
    [2.0 * (x * z + w * y), 2.0 * (y * z - w * x), 1.0 - 2.0 * (x * x + y * y)]
}

/// Euler's disk (`examples/spatial/eulers-disk.xml`): steady precession about its fixed centre
/// at a tilt of 0.3 rad, event-driven, against the closed form (with Moreau–Jean's numerical
/// energy loss beside it); then spun like a coin (`examples/spatial/eulers-disk.toml`): its
/// rolling stretches conserve energy, only its slips dissipate.
fn eulers_disk(sec: &mut Section) -> Result<(), Error> {
    use crate::api::{spatial_simulate, SpatialMethod, SpatialModel, SpatialSimSettings};
    use crate::spatial::geometry::Shape;
    let mut m = SpatialModel::from_mjcf(
        "examples/spatial/eulers-disk.xml".into(),
        &crate::spatial::mjcf::parse("eulers-disk.xml", DISK_3D)?,
    );
    let Some(Shape::Cylinder { radius: r, length: h }) = m.shapes.first().map(|c| c.shape) else {
        return Err(Error::model("eulers-disk.xml", "its first shape is not the disk's cylinder"));
    };
    let mass: f64 = m.tree.bodies().iter().map(|b| b.inertia.mass).sum();
    let g = m.tree.gravity.norm();
    // Steady precession at tilt α (the example's comment derives it).
    let alpha = 0.3f64;
    let (sa, ca) = alpha.sin_cos();
    let (i1, i3) = (mass * (3.0 * r * r + h * h) / 12.0, 0.5 * mass * r * r);
    let omega = (mass * g * (r * ca - 0.5 * h * sa) / (sa * (i1 * ca - i3 * h / (2.0 * r) * sa))).sqrt();
    let wx = omega * sa * (0.5 * h / r * sa - ca);
    let wz = omega * sa * (0.5 * h / r * ca + sa);
    // ω in the body's axes (the disk turned by α about y).
    m.q0 = vec![0.0, 0.0, r * sa + 0.5 * h * ca, (0.5 * alpha).cos(), 0.0, (0.5 * alpha).sin(), 0.0];
    m.v0 = vec![0.0, 0.0, 0.0, ca * wx - sa * wz, 0.0, sa * wx + ca * wz];
    let run = spatial_simulate(&m, None, &SpatialSimSettings { t_max: 1.0, ..Default::default() })?;
    let (mut heading, mut prev, mut tilt_dev, mut drift) = (0.0, None::<f64>, 0.0f64, 0.0f64);
    for q in &run.q {
        let a = body_axis(q);
        let phi = a[1].atan2(a[0]);
        if let Some(p) = prev {
            heading += (phi - p + std::f64::consts::PI).rem_euclid(std::f64::consts::TAU) - std::f64::consts::PI;
        }
        prev = Some(phi);
        tilt_dev = tilt_dev.max((a[2].acos() - alpha).abs());
        drift = drift.max(q[0].hypot(q[1]).hypot(q[2] - m.q0[2]));
    }
    let t_end = run.t.last().copied().unwrap_or(f64::NAN);
    let rate = if run.end == "time-limit" { heading / t_end } else { f64::NAN };
    let e0 = run.energy.first().copied().unwrap_or(f64::NAN);
    let loss = |step: f64| -> Result<f64, Error> {
        let s = SpatialSimSettings { t_max: 1.0, h: step, method: SpatialMethod::Moreau, ..Default::default() };
        Ok(e0 - spatial_simulate(&m, None, &s)?.energy.last().copied().unwrap_or(f64::NAN))
    };
    let (coarse, fine) = (loss(1e-3)?, loss(2.5e-4)?);
    sec.rows.push(
        Row::number(
            "Euler's disk (examples/spatial/eulers-disk-steady.toml: R = 37.5 mm, 10 mm thick) rolling about its \
             fixed centre at a tilt of 0.3 rad, event-driven for 1 s: the rate (rad/s) its axis turns about the \
             vertical",
            omega,
            rate,
            1e-6 * omega,
            "closed form, Ω² = m g (R cos α − (h/2) sin α) / (sin α (I₁ cos α − I₃ (h/2R) sin α))",
        )
        .with_note(format!(
            "tilt held to {} rad, centre to {} m, energy to {} J; Moreau–Jean rolls it down, losing {} J at h = 1 ms \
             and {} J at h = 0.25 ms over the second (numerical, first order in h)",
            fmt_num(tilt_dev),
            fmt_num(drift),
            fmt_num(run.energy.iter().map(|e| (e - e0).abs()).fold(0.0, f64::max)),
            fmt_num(coarse),
            fmt_num(fine)
        )),
    );
    // Spun like a coin: tilted by 0.5 rad, 30 rad/s about the vertical, the centre at rest.
    let (s5, c5) = 0.5f64.sin_cos();
    m.q0 = vec![0.0, 0.0, r * s5 + 0.5 * h * c5, 0.25f64.cos(), 0.0, 0.25f64.sin(), 0.0];
    m.v0 = vec![0.0, 0.0, 0.0, -30.0 * s5, 0.0, 30.0 * c5];
    let spun = spatial_simulate(&m, None, &SpatialSimSettings { t_max: 3.0, ..Default::default() })?;
    let events = spun.events.as_deref().unwrap_or_default();
    let count = |k: EventKind| events.iter().filter(|e| e.kind == k).count();
    let (stops, onsets) = (count(EventKind::SlipStop), count(EventKind::SlipOnset));
    let s0 = spun.energy.first().copied().unwrap_or(f64::NAN);
    let (mut worst, mut stretches) = (0.0f64, 0);
    // A rolling stretch: from an event after which the contacts stick or are free, to the next.
    for (k, e) in events.iter().enumerate() {
        if e.modes.contains('P') || !e.modes.contains('S') {
            continue;
        }
        let end = events.get(k + 1).map_or(f64::INFINITY, |n| n.t);
        let rolling = spun.t.iter().zip(&spun.energy).filter(|(t, _)| **t > e.t && **t < end).map(|(_, x)| *x);
        let (lo, hi) = rolling.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| (a.min(x), b.max(x)));
        if hi >= lo {
            worst = worst.max((hi - lo) / s0);
            stretches += 1;
        }
    }
    if spun.end != "time-limit" || stops == 0 || stretches == 0 {
        worst = f64::NAN;
    }
    let rest = mass * g * 0.5 * h;
    let end_energy = spun.energy.last().copied().unwrap_or(f64::NAN);
    sec.rows.push(
        Row::at_most(
            "Euler's disk spun like a coin (examples/spatial/eulers-disk.toml: tilted 0.5 rad, 30 rad/s about the \
             vertical), event-driven for 3 s: largest energy change over its rolling stretches, relative (the rigid \
             model's rolling conserves energy; only slip dissipates)",
            1e-7,
            worst,
            "energy balance",
        )
        .with_note(format!(
            "{} slip stops and {} onsets; energy above flat rest from {} J to {} J; docs/models.md (\"Euler's disk\") \
             says where the rigid model stops holding",
            stops,
            onsets,
            fmt_num(s0 - rest),
            fmt_num(end_energy - rest)
        )),
    );
    Ok(())
}

/// The 3-D compass walker (`examples/spatial/compass-walker.xml`) with point feet: its gait at
/// zero hip width (the planar walker's, `examples/multibody/compass-walker-pelvis.toml`, walking
/// in the sagittal plane), whose in-plane multipliers must be the planar engine's, then
/// continued in the hip width with its lateral multiplier.
fn compass_walker_3d(sec: &mut Section) -> Result<(), Error> {
    use crate::api::{spatial_gait, SpatialGaitSettings, SpatialModel};
    use crate::hybrid::section::JacobianRoute;
    use crate::multibody::gait::gait_from;
    use crate::spatial::algebra::Vec3;
    use crate::spatial::tree::SpatialTree;
    let base = SpatialModel::from_mjcf(
        "examples/spatial/compass-walker.xml".into(),
        &crate::spatial::mjcf::parse("compass-walker.xml", WALKER_3D)?,
    );
    // compass-walker.toml's walking rule and [gait] table, on the model with point feet.
    let mut m = base;
    let body = |name: &str| m.tree.body_index(name).ok_or_else(|| Error::model(name, "no such body"));
    let (left, right) = (body("left_leg")?, body("right_leg")?);
    m.walking = Some(crate::spatial::timestep::Walking { feet: vec![0, 1], forward: Vec3::x(), ahead: 0.1 });
    m.gait = Some(crate::api::GaitSpec3 {
        translation: vec![0, 1],
        symmetry: None,
        mirror: Some((Vec3::y(), vec![(left, right)])),
        settle: 0,
    });
    for c in m.shapes.iter_mut() {
        c.shape = crate::spatial::geometry::Shape::Sphere { radius: 0.0 };
        c.pose.pos.z = -1.0;
    }
    let planar = mechanism("compass-walker-pelvis.toml", WALKER_PLANAR)?;
    let (pq, pv) = (planar.q0.clone(), planar.v0.clone());
    let pg = gait_from(&planar, &pq, &pv, &Default::default())?;
    // The planar gait as a 3-D state (MuJoCo's qpos: slides from the pelvis's XML position
    // (0, 0, 1), roll, pitch about -y, the hips relative to the pelvis; the planar legs'
    // angles are from the stance leg, the pelvis's relative to it, the swing leg's to the pelvis).
    let Some(pg) = pg else {
        return Err(Error::model("compass-walker-pelvis", "the planar walker's gait was not found"));
    };
    let (q, v) = (&pg.q, &pg.v);
    let x0 = vec![q[0], 0.0, q[1] - 1.0, 0.0, q[2] + q[3], -q[3], q[4], v[0], 0.0, v[1], 0.0, v[2] + v[3], -v[3], v[4]];
    let with_width = |w: f64| -> Result<SpatialModel, Error> {
        let mut bodies = m.tree.bodies().to_vec();
        for b in bodies.iter_mut() {
            match b.name.as_str() {
                "left_leg" => b.placement.pos.y = 0.5 * w,
                "right_leg" => b.placement.pos.y = -0.5 * w,
                _ => {}
            }
        }
        let tree = SpatialTree::new(bodies, m.tree.gravity)?.with_armature(m.tree.armature().to_vec())?;
        Ok(SpatialModel { tree, ..m.clone() })
    };
    let settings = SpatialGaitSettings::default();
    let at0 = spatial_gait(&with_width(0.0)?, Some(&x0), &settings)?;
    let gap = pg
        .multipliers
        .iter()
        .map(|z| at0.multipliers_found().iter().map(|y| (z[0] - y[0]).hypot(z[1] - y[1])).fold(f64::INFINITY, f64::min))
        .fold(0.0f64, f64::max);
    let ok = at0.converged && at0.derivatives == JacobianRoute::Variational;
    let lateral = |g: &crate::api::SpatialGait| g.multipliers_found().first().map_or(f64::NAN, |z| z[0].hypot(z[1]));
    sec.rows.push(
        Row::at_most(
            "3-D compass walker at zero hip width (point feet): its gait walks in the sagittal plane; the largest \
             distance of the planar engine's multipliers to the 3-D gait's",
            1e-6,
            if ok { gap } else { f64::NAN },
            "the planar engine (examples/multibody/compass-walker-pelvis.toml)",
        )
        .with_note(format!(
            "periods {} s (3-D) and {} s (planar); the 3-D gait's largest |multiplier| {} is lateral: it falls over \
             sideways",
            fmt_num(at0.period.unwrap_or(f64::NAN)),
            fmt_num(pg.period),
            fmt_num(lateral(&at0))
        )),
    );
    // Continuation in the hip width: each gait from the last, its state put back on the
    // ground for the new width (both feet touching, the stance foot at rest).
    let mut x = at0.state().unwrap_or_else(|| vec![f64::NAN; 14]);
    let mut path = vec![(0.0, lateral(&at0))];
    for w in [0.05, 0.1, 0.15] {
        let mw = with_width(w)?;
        touch_down(&mw, &mut x)?;
        let g = spatial_gait(&mw, Some(&x), &settings)?;
        path.push((w, if g.converged { lateral(&g) } else { f64::NAN }));
        x = g.state().unwrap_or_else(|| vec![f64::NAN; 14]);
    }
    let unstable = path.iter().all(|p| p.1 > 1.0);
    let listed: Vec<String> = path.iter().map(|(w, l)| format!("{w}: {}", fmt_num(*l))).collect();
    sec.rows.push(
        Row::exact(
            "3-D compass walker: laterally unstable at every hip width 0 … 0.15 m (a multiplier outside the unit \
             circle), each gait continued from the last by Newton's method",
            "yes",
            yes_no(unstable),
            "Kuo (1999): the passive 3-D walker is laterally unstable",
        )
        .with_note(format!("largest |multiplier| by hip width (m): {}", listed.join(", "))),
    );
    Ok(())
}

/// Unitree A1 standing straight-legged on a 10° slope (`examples/spatial/a1-standing.toml`, built
/// here from `data/robots/a1.urdf`): `stance` with the joints locked, the pyramid law. Its four
/// feet share the slope's normal, so the least common friction coefficient of a weakly stable
/// stance is the ratio of the weight's components along and across the slope, tan 10°.
fn a1_stance(sec: &mut Section, opts: &Options) -> Result<(), Error> {
    use crate::api::{spatial_model, stance, GroundPlane, SpatialSource, StanceSettings};
    use crate::fixture::stability::FixtureClass;
    use crate::fixture::FrictionLaw;
    use crate::spatial::algebra::Vec3;
    use crate::spatial::urdf::Base;
    let path = opts.data.join("robots").join("a1.urdf");
    let mut m = spatial_model(&path, SpatialSource::Urdf(Base::Floating))?;
    let feet = ["FL_foot", "FR_foot", "RL_foot", "RR_foot"];
    m.shapes.retain(|c| feet.contains(&c.name.as_str()));
    let slope = 10f64.to_radians();
    let normal = Vec3::new(-slope.sin(), 0.0, slope.cos());
    let plane = crate::spatial::contact::Plane::new(Vec3::zeros(), normal)
        .ok_or_else(|| Error::model("slope", "zero normal"))?;
    m.planes = vec![GroundPlane { name: "slope".into(), plane, friction: None, bits: (1, 1) }];
    m.mu = 0.8;
    // The trunk pitched with the slope (Pinocchio's x y z qx qy qz qw), lowered along the normal
    // until the feet touch (the example's numbers), straight legs.
    let mut q = vec![0.004022297628164726, 0.0, 0.427188416588298, 0.0, -(slope / 2.0).sin(), 0.0, (slope / 2.0).cos()];
    q.extend([0.0; 12]);
    let s = StanceSettings { friction: FrictionLaw::Pyramid, slope_axis: Some(Vec3::y()), ..Default::default() };
    let r = stance(&m, Some(&q), &s)?;
    let c = &r.classification;
    let margin = r.slope_margin.as_ref();
    sec.rows.push(
        Row::number(
            "Unitree A1 standing on a 10° slope, joints locked (`stance`, pyramid law): least common friction \
             coefficient of a weakly stable stance",
            slope.tan(),
            c.critical_mu.unwrap_or(f64::NAN),
            1e-7,
            "closed form: tan 10° (four feet on one plane)",
        )
        .with_note(format!(
            "{} contacts; largest further tilt of gravity about y keeping it weakly stable (mu = 0.8): {} rad one \
             way, {} rad the other",
            r.contacts.len(),
            fmt_num(margin.and_then(|m| m.max_tilt).unwrap_or(f64::NAN)),
            fmt_num(margin.and_then(|m| m.max_tilt_reverse).unwrap_or(f64::NAN))
        )),
    );
    let proved = c.equilibrium_intensity.as_ref().is_some_and(|f| f.proof.is_proved());
    sec.rows.push(Row::exact(
        "Unitree A1 on the slope (mu = 0.8): strongly stable, its equilibrium force distribution proved in interval \
         arithmetic",
        "yes",
        yes_no(c.classification == FixtureClass::StronglyStable && proved),
        "P4's Theorem 2 route, its LCP search (25) and the interval check of the LP witness",
    ));
    Ok(())
}

/// Painlevé's rod in space (`examples/spatial/painleve-rod.xml` with a point end): P2's least
/// `μ` in its plane and out of it against the closed forms, and an in-plane slip ended by the
/// 3-D engine against the planar one.
fn painleve_rod_3d(sec: &mut Section) -> Result<(), Error> {
    use crate::api::{mechanism_slip, spatial_painleve, spatial_slip, Painleve3Settings, SpatialModel};
    use crate::multibody::painleve::SliceAxis;
    let mut m = SpatialModel::from_mjcf(
        "examples/spatial/painleve-rod.xml".into(),
        &crate::spatial::mjcf::parse("painleve-rod.xml", ROD_3D)?,
    );
    for c in m.shapes.iter_mut() {
        c.shape = crate::spatial::geometry::Shape::Sphere { radius: 0.0 };
    }
    // The end on the floor at pitch p: the slides are from the body's XML position (0, 0, 0.001).
    let state = |p: f64| vec![0.0, 0.0, p.sin() - 0.001, 0.0, p, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0];
    let psi = 30f64.to_radians();
    let mu_min = |dir: [f64; 3]| -> Result<f64, Error> {
        let s = Painleve3Settings {
            contact: "end".into(),
            direction: Some(dir),
            slice: vec![SliceAxis { coordinate: "rod_pitch".into(), lo: 0.05, hi: 1.5 }],
            ..Default::default()
        };
        Ok(spatial_painleve(&m, Some(&state(1.0)), &s)?.mu_min.map_or(f64::NAN, |x| x.mu_min))
    };
    sec.rows.push(Row::number(
        "Painlevé's rod in space (`painleve` in 3-D, point end), slip in its plane: least μ with B < 0 over the tilt",
        4.0 / 3.0,
        mu_min([1.0, 0.0, 0.0])?,
        1e-9,
        "closed form: min (1 + 3 cos²θ) / (3 sin θ cos θ) = 4/3 at tan θ = 2 (Génot and Brogliato)",
    ));
    sec.rows.push(Row::number(
        "Painlevé's rod in space, slip 30° out of its plane: least μ with B < 0 over the tilt",
        4.0 / 3.0 / psi.cos(),
        mu_min([psi.cos(), psi.sin(), 0.0])?,
        1e-9,
        "closed form: B = d − μ cᵀŝ with c in the rod's plane, so (4/3) / cos 30°",
    ));
    // examples/multibody/painleve-rod.toml's slip (θ = −0.6, the end sliding right at 6 m/s)
    // in 3-D (pitch = −θ).
    let planar = mechanism("painleve-rod.toml", ROD_PLANAR)?;
    let p = mechanism_slip(&planar, None, "end")?;
    let (q, v) = (&planar.q0, &planar.v0);
    let s3 = [0.0, 0.0, q[1] - 0.001, 0.0, -q[2], 0.0, v[0], 0.0, v[1], 0.0, -v[2], 0.0];
    let r = spatial_slip(&m, Some(&s3), "end")?;
    sec.rows.push(
        Row::number(
            "Painlevé's rod in space, examples/multibody/painleve-rod.toml's slip in its plane (`slip` in 3-D): time \
             of its end (s)",
            p.t_end,
            r.t_end,
            1e-6 * p.t_end,
            "the planar engine's slip (`slip` on the planar file)",
        )
        .with_note(format!(
            "outcomes: planar {}, 3-D {} (largest normal forces {} and {} N)",
            crate::output::kebab(&p.outcome),
            crate::output::kebab(&r.outcome),
            fmt_num(p.fn_max),
            fmt_num(r.fn_max)
        )),
    );
    Ok(())
}

/// The walker's state `x` (MuJoCo's order, `compass-walker.xml`) put on the ground of the model
/// `m`: the pelvis's height and roll so that both feet touch, its velocity so that the front foot
/// is at rest (a post-strike state for a new hip width).
fn touch_down(m: &crate::api::SpatialModel, x: &mut [f64]) -> Result<(), Error> {
    use crate::spatial::events::EventScene;
    let scene = m.scene(None, 0.0);
    let nq = m.tree.nq();
    let sys = EventScene::new(&scene, &x[..nq])?;
    let gaps = |x: &[f64]| -> nalgebra::Vector2<f64> {
        let g = sys.gaps(&x[..nq]);
        nalgebra::Vector2::new(g[0], g[1])
    };
    let bad = || Error::model("compass-walker", "its feet cannot be put on the ground");
    for _ in 0..20 {
        let g0 = gaps(x);
        if g0.amax() < 1e-14 {
            break;
        }
        let mut j = nalgebra::Matrix2::zeros();
        for (c, k) in [2usize, 3].into_iter().enumerate() {
            let mut xp = x.to_vec();
            xp[k] += 1e-7;
            let mut xm = x.to_vec();
            xm[k] -= 1e-7;
            j.set_column(c, &((gaps(&xp) - gaps(&xm)) / 2e-7));
        }
        let d = j.lu().solve(&g0).ok_or_else(bad)?;
        x[2] -= d[0];
        x[3] -= d[1];
    }
    // The front foot: the larger hinge angle (both legs measured the same way).
    let front = if x[5] > x[6] { 0 } else { 1 };
    let rows = sys.contact_rows(&x[..nq], front).ok_or_else(bad)?.1;
    let u = &rows * nalgebra::DVector::from_column_slice(&x[nq..]);
    let dv = rows.columns(0, 3).into_owned().lu().solve(&u).ok_or_else(bad)?;
    for k in 0..3 {
        x[nq + k] -= dv[k];
    }
    Ok(())
}

/// The 3-D rimless wheel (`examples/spatial/rimless-wheel.xml` with point feet): its steady
/// rolling found by Newton's method on the configuration manifold, its in-plane multiplier
/// against the planar wheel's closed form, the heading's neutral multiplier, and the exact
/// Jacobian against differences.
fn rimless_wheel_3d(sec: &mut Section) -> Result<(), Error> {
    use crate::api::{spatial_gait, GaitSpec3, SpatialGaitSettings, SpatialModel};
    use crate::hybrid::section::{Derivatives, JacobianRoute};
    let mut m = SpatialModel::from_mjcf(
        "examples/spatial/rimless-wheel.xml".into(),
        &crate::spatial::mjcf::parse("rimless-wheel.xml", WHEEL_3D)?,
    );
    // Point feet (the planar wheel's); the hub 1 m up on one spoke, rolling at 1.2 rad/s.
    for c in m.shapes.iter_mut() {
        c.shape = crate::spatial::geometry::Shape::Sphere { radius: 0.0 };
    }
    m.q0[2] = 1.0;
    m.v0 = vec![1.2, 0.0, 0.0, 0.0, 1.2, 0.0];
    let wheel = m.tree.body_index("wheel").ok_or_else(|| Error::model("wheel", "no body named wheel"))?;
    m.gait = Some(GaitSpec3 {
        translation: vec![0, 1],
        symmetry: Some((wheel, crate::spatial::algebra::Vec3::y(), 10)),
        mirror: None,
        settle: 10,
    });
    let exact = spatial_gait(&m, None, &SpatialGaitSettings::default())?;
    let diff =
        spatial_gait(&m, None, &SpatialGaitSettings { derivatives: Derivatives::Differences, ..Default::default() })?;
    // κ = I_axle / (m l²) = 2 / (10 · 1²).
    let (n, kappa) = (10.0, 0.2);
    let beta: f64 = (kappa + (2.0 * std::f64::consts::PI / n).cos()) / (1.0 + kappa);
    let nearest =
        |x: f64| exact.multipliers_found().iter().map(|z| (z[0] - x).hypot(z[1])).fold(f64::INFINITY, f64::min);
    let ok = exact.converged && exact.derivatives == JacobianRoute::Variational;
    let mods: Vec<String> = exact.multipliers_found().iter().map(|z| fmt_num(z[0].hypot(z[1]))).collect();
    sec.rows.push(
        Row::at_most(
            format!(
                "3-D rimless wheel (point feet, 10 spokes, κ = 0.2): steady rolling found by Newton on the manifold; \
                 distance of its nearest multiplier to the planar wheel's β² = ((κ + cos 2π/n)/(1 + κ))² = {}",
                fmt_num(beta * beta)
            ),
            1e-8,
            if ok { nearest(beta * beta) } else { f64::NAN },
            "P2 (27): the planar wheel's step map, closed form",
        )
        .with_note(format!(
            "examples/spatial/rimless-wheel.xml with point feet; |multipliers| [{}]: it falls over sideways; period {} s",
            mods.join(", "),
            fmt_num(exact.period.unwrap_or(f64::NAN))
        )),
    );
    sec.rows.push(Row::at_most(
        "3-D rimless wheel: the heading's multiplier is 1 (a turn of the rolling direction changes the slope along it \
         only to second order): distance of the nearest multiplier to 1",
        1e-6,
        if ok { nearest(1.0) } else { f64::NAN },
        "symmetry of the slope to first order",
    ));
    let gap = exact
        .multipliers_found()
        .iter()
        .zip(diff.multipliers_found())
        .fold(0.0f64, |g, (a, b)| g.max((a[0] - b[0]).hypot(a[1] - b[1])));
    sec.rows.push(Row::at_most(
        "3-D rimless wheel: exact multipliers (variational equations, saltation, dual numbers) against central \
         differences of the strike map: largest difference",
        1e-4,
        if ok && diff.converged { gap } else { f64::NAN },
        "central differences of the return map",
    ));
    rimless_wheel_3d_lateral(sec, m, &exact)
}

/// The 3-D wheel's lateral stability: at the slope 0.1 a small lateral perturbation of the
/// steady rolling grows per strike, in plain simulation, by the largest multiplier; steeper
/// (faster) the rolling becomes laterally stable, where the lateral multiplier crosses 1
/// (located by bisection on the slope, each gait from the last by Newton).
fn rimless_wheel_3d_lateral(
    sec: &mut Section,
    mut m: crate::api::SpatialModel,
    at_01: &crate::api::SpatialGait,
) -> Result<(), Error> {
    use crate::api::spatial_gait::{driver, Strikes};
    use crate::api::{spatial_gait, SpatialGaitSettings};
    use crate::hybrid::section::{Derivatives, SectionChart};
    use crate::spatial::algebra::Vec3;
    use crate::spatial::events::EventScene;
    use crate::spatial::section::{BodySymmetry, SpatialChart};
    use nalgebra::{DMatrix, DVector};
    let wheel = m.tree.body_index("wheel").ok_or_else(|| Error::model("wheel", "no body named wheel"))?;
    // Plain simulation from the gait perturbed in its roll rate by 1e-7 rad/s: the ratio of
    // successive distances (in the chart's scales) after ten strikes.
    // (Without the gait at 0.1 the state is NaN: the rows below come out NaN, mismatches.)
    let nx = m.tree.nq() + m.tree.nv();
    let x01 = at_01.state().unwrap_or_else(|| vec![f64::NAN; nx]);
    let scene = m.scene(None, 0.0);
    let sys = EventScene::new(&scene, &m.q0)?;
    let xs = DMatrix::from_column_slice(nx, 1, &x01);
    let chart = SpatialChart::new(&sys, &xs, &[0, 1], Some(BodySymmetry::new(&sys, wheel, Vec3::y(), 10)?.into()));
    let (ys, sc) = (chart.chart(&xs), chart.scale());
    let roll = chart.names(&m.velocities).iter().position(|n| n == "wheel.wx");
    let mut y1 = ys.clone();
    if let Some(k) = roll {
        y1[k] += 1e-7;
    }
    let mut strikes = Strikes { want: 12, after: vec![] };
    driver(1e-12, 20.0).run(&sys, 0.0, chart.lift(&y1), &[], &mut strikes);
    let dist: Vec<f64> = strikes
        .after
        .iter()
        .map(|x| {
            let d = chart.chart(x) - &ys;
            DVector::from_fn(d.len(), |i, _| d[i] / sc[i]).norm()
        })
        .collect();
    let grown = if dist.len() == 12 && roll.is_some() { dist[11] / dist[10] } else { f64::NAN };
    let lead = at_01.multipliers_found().first().map_or(f64::NAN, |z| z[0].hypot(z[1]));
    sec.rows.push(
        Row::number(
            "3-D rimless wheel, slope 0.1: a roll-rate perturbation of 1e-7 rad/s grows per strike, in plain \
             simulation (the 11th strike to the 12th), by the largest multiplier: it falls over sideways",
            lead,
            grown,
            1e-3 * lead,
            "the exact multipliers (row above)",
        )
        .with_note(format!(
            "distances from the gait at strikes 1-12: {:.2e} … {:.2e}",
            dist.first().copied().unwrap_or(f64::NAN),
            dist.last().copied().unwrap_or(f64::NAN)
        )),
    );
    // Continuation in the slope α (gravity turned by α): the largest multiplier but the
    // heading's (the one nearest 1), less 1; each gait from the last, ten strikes then Newton
    // (the rolling in the wheel's plane is an invariant set: from a state in it the lateral
    // modes are not excited, and the heading, whose multiplier is 1, stays straight downhill).
    // The gait's state projected onto the wheel's plane (MuJoCo's x y z qw qx qy qz, then
    // vx vy vz wx wy wz): Newton leaves it off the plane by round-off along the heading
    // (1e-8), which ten strikes of the unstable lateral mode would grow.
    let in_plane = |mut x: Vec<f64>| {
        for k in [1, 4, 6, 8, 10, 12] {
            x[k] = 0.0;
        }
        let n = x[3].hypot(x[5]);
        x[3] /= n;
        x[5] /= n;
        x
    };
    let mut warm: Vec<f64> = in_plane(x01.clone());
    let mut lateral_by = |alpha: f64, derivatives| -> Result<f64, Error> {
        m.tree.gravity = Vec3::new(alpha.sin(), 0.0, -alpha.cos()) * 9.81;
        let g = spatial_gait(&m, Some(&warm), &SpatialGaitSettings { derivatives, ..Default::default() })?;
        if !g.converged {
            return Ok(f64::NAN);
        }
        warm = in_plane(g.state().unwrap_or_default());
        let mut mods: Vec<f64> = g.multipliers_found().iter().map(|z| z[0].hypot(z[1])).collect();
        if let Some(k) = (0..mods.len()).min_by(|&a, &b| (mods[a] - 1.0).abs().total_cmp(&(mods[b] - 1.0).abs())) {
            mods.remove(k);
        }
        Ok(mods.into_iter().fold(f64::NEG_INFINITY, f64::max) - 1.0)
    };
    let mut path = vec![];
    for alpha in [0.12, 0.14, 0.16, 0.18, 0.19] {
        path.push((alpha, lateral_by(alpha, Derivatives::Exact)?));
    }
    let (mut lo, mut hi) = (0.18, 0.19);
    let bracketed = path[3].1 > 0.0 && path[4].1 < 0.0;
    // The same verdicts from differenced Jacobians at both ends.
    let differenced =
        lateral_by(0.18, Derivatives::Differences)? > 0.0 && lateral_by(0.19, Derivatives::Differences)? < 0.0;
    if bracketed {
        let _ = lateral_by(lo, Derivatives::Exact)?;
        for _ in 0..14 {
            let mid = 0.5 * (lo + hi);
            if lateral_by(mid, Derivatives::Exact)? > 0.0 {
                lo = mid;
            } else {
                hi = mid;
            }
        }
    }
    sec.rows.push(
        Row::exact(
            "3-D rimless wheel: steeper (faster) straight rolling becomes laterally stable: the largest lateral \
             multiplier falls through 1 between the slopes 0.18 and 0.19 (continuation in the slope, each gait by \
             Newton, exact multipliers)",
            if differenced { "yes" } else { "no (the differenced route did not bracket it)" },
            yes_no(bracketed),
            "the same verdicts from differenced Jacobians at 0.18 and 0.19",
        )
        .with_note(format!(
            "largest lateral |multiplier| at slopes {}; it crosses 1 at slope {:.5} (bisection to {:.0e})",
            path.iter().map(|(a, f)| format!("{a}: {}", fmt_num(1.0 + f))).collect::<Vec<_>>().join(", "),
            0.5 * (lo + hi),
            hi - lo
        )),
    );
    // The same point by pseudo-arclength continuation in the slope (`continue` on a scene),
    // from the gait at 0.18: a Neimark–Sacker point, where the pair the lateral and heading
    // multipliers became enters the unit circle.
    let x18 = {
        m.tree.gravity = Vec3::new(0.18f64.sin(), 0.0, -0.18f64.cos()) * 9.81;
        let g = spatial_gait(&m, Some(&warm), &SpatialGaitSettings::default())?;
        in_plane(g.state().unwrap_or_else(|| vec![f64::NAN; nx]))
    };
    let build = |alpha: f64| -> Result<crate::api::SpatialModel, String> {
        let mut ma = m.clone();
        ma.tree.gravity = Vec3::new(alpha.sin(), 0.0, -alpha.cos()) * 9.81;
        if let Some(g) = ma.gait.as_mut() {
            g.settle = 0;
        }
        Ok(ma)
    };
    let settings = crate::continuation::Settings { from: 0.18, to: 0.19, ..Default::default() };
    let c = crate::api::continue_spatial_gait_with(
        &build,
        "slope",
        Some(&x18),
        &settings,
        &SpatialGaitSettings::default(),
        &|_| {},
    )?;
    let ns = c
        .branches
        .first()
        .and_then(|b| b.special.iter().find(|s| s.kind == crate::continuation::SpecialKind::NeimarkSacker));
    let tol = (hi - lo) + ns.map_or(0.0, |s| s.bracket);
    sec.rows.push(
        Row::number(
            "3-D rimless wheel: the slope where straight rolling becomes laterally stable, located by \
             pseudo-arclength continuation in the slope (`continue` on a 3-D scene: a Neimark–Sacker point)",
            if bracketed { 0.5 * (lo + hi) } else { f64::NAN },
            ns.map_or(f64::NAN, |s| s.p),
            tol,
            "the bisection of the row above (each gait by Newton), to the two brackets' widths",
        )
        .with_note(format!(
            "{}; {} special point(s) on the branch 0.18 … 0.19",
            located_on(ns, "the least distance of a multiplier to the unit circle"),
            c.branches.first().map_or(0, |b| b.special.len())
        )),
    );
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

/// Feigenbaum's constant: the limit of the ratio of successive period-doubling intervals.
pub const FEIGENBAUM_DELTA: f64 = 4.669_201_609_102_99;

/// The attractor's period at `slope`: distinct step times (to 1e-6 s) among the last 32 of 400
/// simulated steps from the post-strike state `x`, with the step times; 0 if the walker fell.
fn attractor(doc: &ModelDoc, slope: f64, x: &[f64]) -> Result<(usize, Vec<f64>), Error> {
    let key = crate::model::param::ParamKey::parse("slope")?;
    let m = crate::multibody::model::from_model(&doc.with_param(&key, slope)?)?;
    let n = m.dof();
    let s = SimulateSettings { t_max: 300.0, max_events: 100_000, rtol: 1e-10, per_step: 1 };
    let sim = simulate(&m, &x[..n], &x[n..], &s)?;
    let strikes: Vec<f64> =
        sim.events.iter().filter(|e| e.contact.as_deref() == Some("swing foot")).map(|e| e.t).collect();
    if strikes.len() < 100 {
        return Ok((0, vec![]));
    }
    let steps: Vec<f64> = strikes.windows(2).map(|w| w[1] - w[0]).collect();
    let tail = steps[steps.len() - 32..].to_vec();
    let mut distinct: Vec<f64> = vec![];
    for &t in &tail {
        if !distinct.iter().any(|&u| (u - t).abs() < 1e-6) {
            distinct.push(t);
        }
    }
    Ok((distinct.len(), tail))
}

/// The compass gait's period-doubling cascade in the slope (issue #22): `continue` against the
/// attractor of plain simulation and Feigenbaum's constant.
fn compass_cascade(sec: &mut Section, opts: &Options) -> Result<(), Error> {
    use crate::continuation::{Settings, SpecialKind};
    let doc = ModelDoc::parse("goswami-compass-gait.toml", GOSWAMI, false)?;
    let req = crate::api::ContinueRequest {
        param: "slope".into(),
        from: None,
        to: 0.0885,
        state: None,
        orbit: None,
        settings: Settings { max_doublings: 4, max_step: 0.01, step: 0.01, ..Default::default() },
        gait: GaitSettings::default(),
    };
    let c = crate::api::continuation(&doc, &req, &|_| {})?;
    let pd: Vec<f64> = c
        .branches
        .iter()
        .flat_map(|b| b.special.iter().filter(|s| s.kind == SpecialKind::PeriodDoubling).map(|s| s.p))
        .collect();
    const SRC: &str = "plain simulation: the attractor's step times";
    let listed = pd.iter().map(|&p| format!("{} ({}°)", fmt_num(p), fmt_num(p.to_degrees()))).collect::<Vec<_>>();
    sec.rows.push(
        Row::exact(
            "Compass gait (Goswami's masses and lengths, Drake's CompassGait.urdf): period doublings located along \
             the slope by `continue`",
            "5",
            pd.len().to_string(),
            "Goswami, Thuilot & Espiau (1998): a period-doubling cascade to chaos",
        )
        .with_note(format!("slopes (rad) {}", listed.join(", "))),
    );
    if pd.len() < 5 {
        return Ok(());
    }
    // The attractor of plain simulation on each side of every doubling: period 1, 2, 4, 8, 16.
    let near = |slope: f64| {
        let pts = &c.branches[0].points;
        pts.iter()
            .min_by(|a, b| (a.p - slope).abs().total_cmp(&(b.p - slope).abs()))
            .map(|p| p.observation.state.clone())
    };
    let probes =
        [pd[0] - 0.003, 0.5 * (pd[0] + pd[1]), 0.5 * (pd[1] + pd[2]), 0.5 * (pd[2] + pd[3]), 0.5 * (pd[3] + pd[4])];
    let mut periods = vec![];
    for &slope in &probes {
        let x = near(slope).ok_or_else(|| Error::model("slope", "an empty branch"))?;
        periods.push(attractor(&doc, slope, &x)?.0);
    }
    sec.rows.push(
        Row::exact(
            "Compass gait: the attractor's period below the first doubling and midway between successive doublings",
            "1, 2, 4, 8, 16",
            periods.iter().map(|p| p.to_string()).collect::<Vec<_>>().join(", "),
            SRC,
        )
        .with_note(format!(
            "400 simulated steps at slopes {} from the period-1 branch; distinct step times among the last 32",
            probes.iter().map(|&p| fmt_num(p)).collect::<Vec<_>>().join(", ")
        )),
    );
    let ratio = (pd[2] - pd[1]) / (pd[3] - pd[2]);
    sec.rows.push(
        Row::number(
            "Compass gait: ratio of successive doubling intervals (p₃ − p₂)/(p₄ − p₃)",
            FEIGENBAUM_DELTA,
            ratio,
            0.02 * FEIGENBAUM_DELTA,
            "Feigenbaum (1978): the ratios tend to δ = 4.6692 (2%: the third ratio of a cascade)",
        )
        .with_note(format!("the first ratio (p₂ − p₁)/(p₃ − p₂) is {}", fmt_num((pd[1] - pd[0]) / (pd[2] - pd[1])))),
    );
    sec.rows.push(Row::number(
        "Compass gait: the next ratio (p₄ − p₃)/(p₅ − p₄), p₅ on the period-16 branch",
        FEIGENBAUM_DELTA,
        (pd[3] - pd[2]) / (pd[4] - pd[3]),
        0.02 * FEIGENBAUM_DELTA,
        "Feigenbaum (1978): the ratios tend to δ = 4.6692 (the same 2%)",
    ));
    compass_basin(sec, opts, &doc, 0.5 * (pd[0] + pd[1]), &near(0.5 * (pd[0] + pd[1])).unwrap_or_default())?;
    // The bifurcation diagram with the orbit diagram of plain simulation.
    use rayon::prelude::*;
    let slopes: Vec<f64> = (0..=28).map(|k| 0.060 + 0.001 * k as f64).collect();
    let dots: Vec<(f64, f64)> = slopes
        .par_iter()
        .map(|&slope| {
            let x = near(slope).unwrap_or_default();
            attractor(&doc, slope, &x).map(|(_, t)| t.into_iter().map(|t| (slope, t)).collect::<Vec<_>>())
        })
        .collect::<Result<Vec<_>, Error>>()?
        .into_iter()
        .flatten()
        .collect();
    let plot = c.plot("Compass gait: step time against slope (continuation; dots: plain simulation)").add_colored(
        "simulation, last 32 steps",
        dots,
        Mark::Points,
        7,
    );
    plot.save(&opts.out.join("beyond_compass_cascade.png"))?;
    sec.figures.push(Figure {
        file: "beyond_compass_cascade.png".into(),
        caption: format!(
            "The compass gait's period-doubling cascade (Goswami's parameters): every return time of the orbits \
             followed by `contactlab continue goswami-compass-gait.toml --param slope --to 0.0885 --max-doublings 4` (solid stable, dashed unstable; squares: located doublings at slopes {}), and the \
             last 32 step times of plain simulation at 29 slopes (dots) landing on the stable branches. Goswami, \
             Thuilot & Espiau (1998) show this cascade (their bifurcation diagram of the step period against the \
             slope); their figure's slopes are not reproduced here, as we could not read them off.",
            listed.join(", ")
        ),
    });
    Ok(())
}

/// P3's continuation in e as an instance of `continue` (issue #22): the orbit at e = 0.5 by
/// pseudo-arclength continuation from the plastic impact (e = 0, P3's simple orbit) against P3's
/// own orbit search at e = 0.5; the Zeno onset located at e = 0.
fn p3_as_continuation(sec: &mut Section) -> Result<(), Error> {
    let doc = ModelDoc::parse("double-pendulum-pd.toml", P3_PENDULUM, false)?;
    let req = crate::api::ContinueRequest {
        param: "e".into(),
        from: Some(0.0),
        to: 0.5,
        state: None,
        orbit: None,
        settings: crate::continuation::Settings { max_doublings: 0, ..Default::default() },
        gait: GaitSettings::default(),
    };
    let c = crate::api::continuation(&doc, &req, &|_| {})?;
    let last = c.branches.first().and_then(|b| b.points.last());
    // P3's own search: the return map iterated from the e = 0.5 model's initial state, then Newton.
    let half = crate::zeno::model::from_model(&ModelDoc::parse("double-pendulum-pd-e0.5.toml", P3_HALF, false)?)?;
    let direct = crate::api::zeno_orbit(&half, "double-pendulum-pd-e0.5.toml")?;
    let (period, gamma) = last.map_or((f64::NAN, f64::NAN), |p| (p.period, p.spectral_radius));
    let d = Some(&direct);
    sec.rows.push(
        Row::number(
            "P3's Zeno orbit at e = 0.5 reached by `continue --param e` from e = 0 (plastic): period (s)",
            d.and_then(|o| o.period).unwrap_or(f64::NAN),
            period,
            1e-8,
            "P3's orbit search (`zeno orbit`) at e = 0.5 from the model's initial state",
        )
        .with_note(format!(
            "{} points on the branch; the continuation lands on e = {}",
            c.branches.first().map_or(0, |b| b.points.len()),
            last.map_or("none".into(), |p| fmt_num(p.p))
        )),
    );
    sec.rows.push(Row::number(
        "P3's Zeno orbit at e = 0.5 by `continue`: contraction rate γ (largest multiplier)",
        d.and_then(|o| o.gamma).unwrap_or(f64::NAN),
        gamma,
        1e-6,
        "P3's orbit search at e = 0.5",
    ));
    // The branch starts on P3's simple orbit (one plastic collision) and is Zeno for every e > 0:
    // the located Zeno onset's bracket must reach down to e = 0.
    let first = c.branches.first().and_then(|b| b.points.first());
    sec.rows.push(Row::number(
        "P3's orbit by `continue` at e = 0 (the simple orbit): γ",
        0.9404,
        first.map_or(f64::NAN, |p| p.spectral_radius),
        5e-5,
        "P3, Section 5: γ = 0.9404 for the simple periodic orbit at e = 0",
    ));
    let onset = c
        .branches
        .first()
        .and_then(|b| b.special.iter().find(|s| s.kind == crate::continuation::SpecialKind::ZenoOnset));
    let (lo, hi) = onset.map_or((f64::NAN, f64::NAN), |s| (s.p - s.bracket, s.p));
    sec.rows.push(
        Row::exact(
            "P3's orbit by `continue` from e = 0: the Zeno onset's bracket (within 1e-6 of e = 0)",
            "e = 0",
            if lo.abs() <= 1e-12 && hi < 1e-6 { "e = 0".to_string() } else { format!("[{lo:e}, {hi:e}]") },
            "P3, Section 2: every e > 0 gives an infinite series of impacts before the constraint holds",
        )
        .with_note(format!(
            "located in [{}, {}]: rebounds below 1e-9 of the approach speed count as plastic (the hybrid core's \
             contact tolerance); a series too fast or too low to simulate is completed after its predicted tail",
            fmt_num(lo),
            fmt_num(hi)
        )),
    );
    Ok(())
}

/// P2's compass biped continued in μ (issue #22): while the stance foot sticks the gait does not
/// depend on μ, so sticking must be lost exactly at the friction the sticking gait uses, μ_stick
/// (the largest |λ_t|/λ_n along its step, from `gait`), and Painlevé's paradox must stop being
/// possible on the orbit (B = d − μ|c| ≥ 0 all along it) exactly at the least d/|c| along the
/// gait, here from the hand-written built-in biped's own gait.
fn sticking_lost(sec: &mut Section) -> Result<(), Error> {
    use crate::continuation::{Settings, SpecialKind};
    let doc = ModelDoc::parse("compass-biped.toml", P2_BIPED, false)?;
    let m = crate::multibody::model::from_model(&doc)?;
    let g = crate::api::mechanism_gait(&m, &GaitSettings::default())?;
    let mu_stick = g.gaits.first().and_then(|g| g.mu_stick).unwrap_or(f64::NAN);
    let req = crate::api::ContinueRequest {
        param: "contact[*].mu".into(),
        from: None,
        to: 0.15,
        state: None,
        orbit: None,
        settings: Settings { max_doublings: 0, ..Default::default() },
        gait: GaitSettings::default(),
    };
    let c = crate::api::continuation(&doc, &req, &|_| {})?;
    let lost = c.branches.first().and_then(|b| b.special.iter().find(|s| s.kind == SpecialKind::StickingLost));
    sec.rows.push(
        Row::number(
            "P2's compass biped, `continue --param contact[*].mu`: μ where the stance foot's sticking is lost",
            mu_stick,
            lost.map_or(f64::NAN, |s| s.p),
            1e-6,
            "the sticking gait's own friction use μ_stick (`gait`: the largest |λ_t|/λ_n along its step)",
        )
        .with_note(located(lost)),
    );
    let cb = crate::mechanics::walkers::CompassBiped::paper(0.7);
    let ws = crate::walking::WalkerSettings { rtol: 1e-12, ..Default::default() };
    let guess = nalgebra::DVector::from_vec(vec![-0.15, 0.7, -0.5]);
    let tight = GaitSettings { rtol: 1e-12, ..Default::default() };
    let bg = crate::walking::gait(&crate::walking::model::WalkerModel::Compass(cb), Some(&guess), &tight)?;
    let y = nalgebra::DVector::from_vec(bg.section_point.clone());
    let mu_star = crate::walking::painleve::mu_min_along_step(&cb, &y, &ws).unwrap_or(f64::NAN);
    let onset = c.branches.first().and_then(|b| b.special.iter().find(|s| s.kind == SpecialKind::PainleveOnset));
    sec.rows.push(
        Row::number(
            "P2's compass biped, same branch: μ where Painlevé's paradox becomes possible on the gait (B < 0 somewhere on its orbit)",
            mu_star,
            onset.map_or(f64::NAN, |s| s.p),
            1e-6,
            "the least d/|c| of the stance foot along the built-in (hand-written) biped's sticking gait \
             (`walking::painleve::mu_min_along_step`)",
        )
        .with_note(located_on(onset, "the least B along the orbit")),
    );
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

/// Grazing and scuffing located by `continue` on real models (issue #22): the self-excited
/// impact oscillator's back wall moved in until it touches the limit cycle (its far turning
/// point in closed form), and McGeer's kneed walker with both shanks made heavier until its
/// swing foot, bending its knee less, no longer clears the slope (checked by plain simulation
/// of a step on either side).
fn grazing_and_scuffing(sec: &mut Section) -> Result<(), Error> {
    use crate::continuation::{Settings, SpecialKind};
    use crate::mechanics::closed_form::ImpactLimitCycle;
    let request = |param: &str, to: f64| crate::api::ContinueRequest {
        param: param.into(),
        from: None,
        to,
        state: None,
        orbit: None,
        settings: Settings { max_doublings: 0, max_step: 0.02, ..Default::default() },
        gait: GaitSettings::default(),
    };
    let doc = ModelDoc::parse("impact-oscillator.toml", OSCILLATOR, false)?;
    let c = crate::api::continuation(&doc, &request("line[back wall].point[0]", -1.5), &|_| {})?;
    // The closed form with the file's own numbers.
    let num = |key: &str| ParamKey::parse(key).and_then(|k| doc.param(&k));
    let exact = ImpactLimitCycle {
        mass: num("body[mass].mass")?,
        damping: num("spring[0].damping")?,
        stiffness: num("spring[0].stiffness")?,
        restitution: num("contact[stop].e")?,
        wall: num("line[wall].point[0]")?,
    };
    let x_min = exact.limit_cycle().map_or(f64::NAN, |(u, _, _)| exact.least_position(u));
    let graze = c.branches.first().and_then(|b| b.special.iter().find(|s| s.kind == SpecialKind::Grazing));
    sec.rows.push(
        Row::number(
            "Self-excited impact oscillator (`impact-oscillator.toml`), `continue --param \"line[back wall].point[0]\"`: \
             where the back wall is grazed (m)",
            x_min,
            graze.map_or(f64::NAN, |s| s.p),
            1e-6,
            "closed form: the limit cycle's far turning point (linear flow between impacts, `ImpactLimitCycle`)",
        )
        .with_note(located(graze)),
    );
    let doc = ModelDoc::parse("kneed-walker.toml", KNEED, false)?;
    let key = "body[stance shank|swing shank].mass";
    let c = crate::api::continuation(&doc, &request(key, 0.3), &|_| {})?;
    let branch = c.branches.first();
    let scuff = branch.and_then(|b| b.special.iter().find(|s| s.kind == SpecialKind::Scuffing));
    // Plain simulation of one step from the branch's orbits 0.02 kg on either side.
    let mut verdicts = vec![];
    if let (Some(b), Some(s)) = (branch, scuff) {
        for side in [s.p - 0.02, s.p + 0.02] {
            let pt = b.points.iter().min_by(|x, y| (x.p - side).abs().total_cmp(&(y.p - side).abs()));
            let Some(pt) = pt else { continue };
            let m = crate::multibody::model::from_model(&doc.with_param(&ParamKey::parse(key)?, pt.p)?)?;
            let x = &pt.observation.state;
            let low = swing_foot_lowest(&m, &x[..m.dof()], &x[m.dof()..])?;
            verdicts.push(if low > 0.0 { "clears" } else { "scuffs" });
        }
    }
    sec.rows.push(
        Row::exact(
            format!(
                "McGeer's kneed walker, `continue --param \"{key}\"`: the swing foot just below and just above the \
                 located scuffing point"
            ),
            "clears, scuffs",
            verdicts.join(", "),
            "plain simulation of one step (`simulate`): the swing foot's least gap while its rule disarms it, \
             after it first descends",
        )
        .with_note(scuff.map_or("not located".to_string(), |s| {
            format!(
                "scuffing located at {} kg per shank (bracket {}), 0.05 kg in the file; simulated at ±0.02 kg",
                fmt_num(s.p),
                fmt_num(s.bracket)
            )
        })),
    );
    Ok(())
}

/// The kneed walker's swing foot over one step from `(q, q̇)` by plain simulation: its least
/// gap (m) while its rule disarms it (`stance.theta > 0`), after its gap first stops rising.
fn swing_foot_lowest(m: &Mechanism, q: &[f64], v: &[f64]) -> Result<f64, Error> {
    let sim = simulate(m, q, v, &SimulateSettings { t_max: 2.0, max_events: 1000, rtol: 1e-11, per_step: 16 })?;
    let at = |name: &str, list: &[String]| list.iter().position(|c| c == name);
    let (Some(foot), Some(theta)) = (at("swing foot", &m.contact_names), at("stance.theta", &m.coordinates)) else {
        return Err(Error::model("kneed-walker.toml", "no swing foot or stance.theta"));
    };
    let strike = sim.events.iter().find(|e| e.contact.as_deref() == Some("swing foot")).map_or(f64::INFINITY, |e| e.t);
    Ok(sim.least_gap_after_rise(foot, strike, |r| r.q[theta] > 0.0).unwrap_or(f64::NAN))
}

/// Garcia et al.'s simplest walker: the slope where its stable gait period-doubles (issue #22).
fn simplest_walker(sec: &mut Section) -> Result<(), Error> {
    use crate::continuation::{Settings, SpecialKind};
    let doc = ModelDoc::parse("simplest-walker.toml", SIMPLEST, false)?;
    let req = crate::api::ContinueRequest {
        param: "slope".into(),
        from: None,
        to: 0.016,
        state: None,
        orbit: None,
        settings: Settings { max_doublings: 0, max_step: 0.01, step: 0.01, ..Default::default() },
        gait: GaitSettings::default(),
    };
    let c = crate::api::continuation(&doc, &req, &|_| {})?;
    let b = c.branches.first();
    let pd = b.and_then(|b| b.special.iter().find(|s| s.kind == SpecialKind::PeriodDoubling));
    let start = b.and_then(|b| b.points.first());
    sec.rows.push(
        Row::number(
            "Simplest walker (m/M = 1e-6): slope (rad) where the stable long-period gait period-doubles",
            0.015,
            pd.map_or(f64::NAN, |s| s.p),
            0.0005,
            "Garcia, Chatterjee, Ruina & Coleman (1998), abstract: stable when 0 < γ < 0.015 (to its two digits)",
        )
        .with_note(start.map_or(String::new(), |p| {
            format!(
                "the gait at γ = 0.009 (found from nothing): step period {} √(l/g), multipliers {}",
                fmt_num(p.period),
                p.multipliers
                    .iter()
                    .filter(|z| z[0].hypot(z[1]) > 1e-6)
                    .map(|z| format!("{} {:+}i", fmt_num(z[0]), fmt_num(z[1])))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })),
    );
    Ok(())
}

/// The compass gait's basin between its first two doublings (issue #22, part 3): every start
/// that keeps walking settles on a period-2 orbit, as continuation and plain simulation say.
fn compass_basin(sec: &mut Section, opts: &Options, doc: &ModelDoc, slope: f64, x: &[f64]) -> Result<(), Error> {
    use crate::multibody::basin::{basin, BasinAxis, BasinSettings, Outcome};
    let m =
        crate::multibody::model::from_model(&doc.with_param(&crate::model::param::ParamKey::parse("slope")?, slope)?)?;
    let n = m.dof();
    if x.len() != 2 * n {
        return Err(Error::model("slope", "no period-1 state near the probe slope"));
    }
    let (th, w) = (x[2], x[n + 2]);
    let axes = [
        BasinAxis { name: "stance.theta".into(), lo: th - 0.1, hi: th + 0.1, n: 21 },
        BasinAxis { name: "stance.theta_dot".into(), lo: w - 0.5, hi: w + 0.5, n: 21 },
    ];
    let settings = BasinSettings { steps: 100, ..Default::default() };
    let b = basin(&m, &axes, Some((&x[..n], &x[n..])), &settings, &|_, _| {})?;
    let mut walking: Vec<String> = b
        .cells
        .iter()
        .filter(|c| matches!(c.outcome, Outcome::Gait(_) | Outcome::Period(_) | Outcome::Walking))
        .map(|c| c.outcome.label())
        .collect();
    walking.sort();
    walking.dedup();
    let share = b.fractions.iter().find(|f| f.0 == "period-2").map_or(0.0, |f| f.1);
    sec.rows.push(
        Row::exact(
            format!(
                "Compass gait at slope {} (between the first two doublings): where the starts of a 21 × 21 basin \
                 grid that keep walking settle",
                fmt_num(slope)
            ),
            "period-2",
            walking.join(", "),
            "continuation (the stable branch there is the doubled one) and plain simulation (row above)",
        )
        .with_note(format!(
            "{} of the cells settle on the period-2 orbit within 100 strikes; the others fall; the grid is centred \
             on the unstable period-1 gait",
            fmt_num(share)
        )),
    );
    b.figure(
        &format!("Compass gait at slope {}: basin of the period-2 gait (100 strikes)", fmt_num(slope)),
        &m.coordinates,
    )
    .save(&opts.out.join("beyond_compass_basin.png"))?;
    sec.figures.push(Figure {
        file: "beyond_compass_basin.png".into(),
        caption: format!(
            "`contactlab basin goswami-compass-gait.toml --state ... --vary stance.theta=... --vary \
             stance.theta_dot=... --steps 100` at slope {}: starts on the post-strike section around the unstable \
             period-1 gait (marked), each run for up to 100 strikes. The walking ones settle on the period-2 orbit.",
            fmt_num(slope)
        ),
    });
    Ok(())
}

/// The rimless wheel's basin over the post-strike spin rate (issue #22, part 3): the boundary
/// against the speed that vaults the stance spoke over the vertical.
fn rimless_basin(sec: &mut Section) -> Result<(), Error> {
    use crate::multibody::basin::{basin, BasinAxis, BasinSettings, Outcome};
    let m = mechanism("rimless-wheel.toml", RIMLESS)?;
    // After a strike the stance spoke leans back by π/n − γ; with the pivot's moment of inertia
    // m l² (1 + κ) and g = 1 + κ (the file's units) the wheel passes the vertical iff
    // ½ (1 + κ) ω² > g (1 − cos(π/n − γ)), i.e. |ω| > 2 sin((π/n − γ)/2).
    let lean = std::f64::consts::PI / 10.0 - 10f64.to_radians();
    let critical = 2.0 * (0.5 * lean).sin();
    let a = BasinAxis { name: "wheel.theta_dot".into(), lo: -0.16, hi: -0.12, n: 201 };
    let width = (a.hi - a.lo) / (a.n - 1) as f64;
    // A start just above the vaulting speed creeps over the vertical slowly: a long step bound
    // keeps those starts from counting as stopped.
    let settings = BasinSettings { steps: 40, max_step_time: 40.0, ..Default::default() };
    let b = basin(&m, &[a], None, &settings, &|_, _| {})?;
    let walks = |c: &&crate::multibody::basin::BasinCell| c.outcome == Outcome::Gait(0);
    let first_walk = b.cells.iter().filter(walks).map(|c| -c.values[0]).fold(f64::INFINITY, f64::min);
    let last_fall = b.cells.iter().filter(|c| !walks(c)).map(|c| -c.values[0]).fold(0.0, f64::max);
    let wrong_side = b.cells.iter().filter(|c| walks(c) != (-c.values[0] > critical)).count();
    sec.rows.push(
        Row::number(
            "Rimless wheel (P2's, n = 10, 10° slope): basin boundary in the post-strike spin rate |ω| (√(g/l)), \
             midpoint of the last start that falls and the first that walks",
            critical,
            0.5 * (first_walk + last_fall),
            0.5 * width,
            "closed form: the stance spoke vaults over the vertical iff |ω| > 2 sin((π/n − γ)/2) (energy about the tip)",
        )
        .with_note(format!(
            "201 starts with |ω| from 0.12 to 0.16, 40 strikes each; {wrong_side} on the wrong side of the closed form; \
             above it every start is captured by the gait, below it the wheel rolls back and falls"
        )),
    );
    Ok(())
}

/// Garcia's simplest walker on Schwab and Wisse's plane (issue #22, part 3): the thin basin,
/// each sampled cell checked against plain simulation from its state.
fn simplest_basin(sec: &mut Section, opts: &Options) -> Result<(), Error> {
    use crate::multibody::basin::{basin, cell_state, BasinAxis, BasinSettings, Outcome};
    let m = mechanism("simplest-walker.toml", SIMPLEST)?;
    let axes = [
        BasinAxis { name: "stance.theta".into(), lo: -0.3, hi: -0.1, n: 41 },
        BasinAxis { name: "stance.theta_dot".into(), lo: -0.3, hi: -0.15, n: 41 },
    ];
    let settings = BasinSettings { steps: 40, before_strike: true, ..Default::default() };
    let b = basin(&m, &axes, None, &settings, &|_, _| {})?;
    let period = b.plan.periods.first().copied().unwrap_or(f64::NAN);
    // Every captured cell and every 40th other one, simulated plainly for 50 step periods.
    let sample: Vec<&crate::multibody::basin::BasinCell> = b
        .cells
        .iter()
        .enumerate()
        .filter(|(i, c)| c.outcome == Outcome::Gait(0) || i % 40 == 0)
        .map(|(_, c)| c)
        .collect();
    use rayon::prelude::*;
    let agree: Vec<bool> = sample
        .par_iter()
        .map(|c| -> Result<bool, Error> {
            let Some(x) = cell_state(&m, &b.plan, &c.values)? else { return Ok(c.outcome == Outcome::NoState) };
            // The same integration tolerance: a cell on the (fractal) basin boundary may change
            // its fate with the tolerance; this checks the lift and the classification.
            let s = SimulateSettings { t_max: 50.0 * period, max_events: 10_000, rtol: settings.rtol, per_step: 1 };
            let sim = simulate(&m, &x[..4], &x[4..], &s)?;
            let t: Vec<f64> =
                sim.events.iter().filter(|e| e.contact.as_deref() == Some("swing foot")).map(|e| e.t).collect();
            let walks =
                t.len() >= 45 && t.windows(2).last().is_some_and(|w| (w[1] - w[0] - period).abs() < 1e-6 * period);
            Ok(walks == (c.outcome == Outcome::Gait(0)))
        })
        .collect::<Result<_, _>>()?;
    let captured = b.cells.iter().filter(|c| c.outcome == Outcome::Gait(0)).count();
    sec.rows.push(
        Row::exact(
            "Simplest walker (γ = 0.009) on Schwab & Wisse's plane: sampled basin cells whose outcome plain \
             simulation confirms (still walking at the gait's step period after 50 steps, or not)",
            format!("{} of {}", agree.len(), agree.len()),
            format!("{} of {}", agree.iter().filter(|&&a| a).count(), agree.len()),
            "`simulate` from each cell's state",
        )
        .with_note(format!(
            "{captured} of the {} cells (41 × 41, stance angle and rate just before heel strike) walk on; the \
             basin is a thin band, as Schwab & Wisse (2001) found at γ = 0.004. Both routes integrate at rtol = 1e-9; \
             at 1e-10 one sampled cell at the band's edge jams after two strikes instead of walking on (its fate \
             depends on the tolerance there)",
            b.cells.len()
        )),
    );
    b.figure("Simplest walker (γ = 0.009): basin of the gait just before heel strike (40 strikes)", &m.coordinates)
        .save(&opts.out.join("beyond_simplest_basin.png"))?;
    sec.figures.push(Figure {
        file: "beyond_simplest_basin.png".into(),
        caption: format!(
            "`contactlab basin simplest-walker.toml --before-strike --vary stance.theta=-0.3:-0.1:41 --vary \
             stance.theta_dot=-0.3:-0.15:41 --steps 40`: starts just before heel strike (both feet on the slope, \
             the swing leg's rate the gait's), so that after the strike they lie on the plane of states a strike \
             produces, Schwab & Wisse's (2001). {captured} starts walk on (the thin band through the gait, marked); \
             `painleve` marks runs that stopped with no consistent contact mode, here at strikes with the legs \
             together (the swing foot landing on the stance foot: a degenerate double contact of this idealised \
             model, whose feet weigh 1e-6 of the hip); at rtol = 1e-10 most of these starts fall instead. Either \
             way they do not walk."
        ),
    });
    Ok(())
}
