//! Beyond the papers in 3-D: Housner's block, Euler's disk, the rimless wheel and a compass walker
//! run by the spatial engine, A1's stance and the Painlevé rod.

use super::*;

/// The same block in 3-D (`examples/spatial/rocking-block.xml`): a box with a free joint whose
/// edge impacts (two corners at once, solved together by the 3-D contact problem) give
/// Housner's factor, at the planar engine's impact times.
pub(super) fn rocking_block_3d(sec: &mut Section) -> Result<(), Error> {
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
    let event = crate::api::spatial::spatial_simulate_with(
        &wob,
        None,
        &crate::api::SimulateSettings { t_max: 5.0, ..Default::default() },
        &mut |_| {},
    )?;
    let moreau = crate::api::SimulateSettings {
        t_max: 5.0,
        h: 2e-4,
        method: crate::api::SpatialMethod::Moreau,
        ..Default::default()
    };
    let stepped = crate::api::spatial::spatial_simulate_with(&wob, None, &moreau, &mut |_| {})?;
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
pub(super) fn eulers_disk(sec: &mut Section) -> Result<(), Error> {
    use crate::api::{SimulateSettings, SpatialMethod, SpatialModel};
    let spatial_simulate = |m: &SpatialModel, state: Option<&[f64]>, s: &SimulateSettings| {
        crate::api::spatial::spatial_simulate_with(m, state, s, &mut |_| {})
    };
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
    let run = spatial_simulate(&m, None, &SimulateSettings { t_max: 1.0, ..Default::default() })?;
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
        let s = SimulateSettings { t_max: 1.0, h: step, method: SpatialMethod::Moreau, ..Default::default() };
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
    let spun = spatial_simulate(&m, None, &SimulateSettings { t_max: 3.0, ..Default::default() })?;
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
pub(super) fn compass_walker_3d(sec: &mut Section) -> Result<(), Error> {
    use crate::api::spatial_gait::spatial_gait;
    use crate::api::SpatialModel;
    use crate::hybrid::section::JacobianRoute;
    use crate::multibody::gait::gait_from;
    use crate::multibody::gait::GaitSettings;
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
    let settings = GaitSettings::spatial();
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
pub(super) fn a1_stance(sec: &mut Section, opts: &Options) -> Result<(), Error> {
    use crate::api::{spatial_model, GroundPlane, SpatialSource, StanceSettings};
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
    let r = crate::api::stance::robot_stance(&m, Some(&q), &s)?;
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
pub(super) fn painleve_rod_3d(sec: &mut Section) -> Result<(), Error> {
    use crate::api::spatial_painleve::{spatial_painleve, spatial_slip};
    use crate::api::{PainleveSettings, SpatialModel};
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
        let s = PainleveSettings {
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
    let p = crate::multibody::painleve::slip(
        &planar,
        &planar.q0,
        &planar.v0,
        "end",
        &crate::walking::WalkerSettings::default(),
    )?;
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
pub(super) fn rimless_wheel_3d(sec: &mut Section) -> Result<(), Error> {
    use crate::api::spatial_gait::spatial_gait;
    use crate::api::{GaitSpec3, SpatialModel};
    use crate::hybrid::section::{Derivatives, JacobianRoute};
    use crate::multibody::gait::GaitSettings;
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
    let exact = spatial_gait(&m, None, &GaitSettings::spatial())?;
    let diff =
        spatial_gait(&m, None, &GaitSettings { derivatives: Derivatives::Differences, ..GaitSettings::spatial() })?;
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
    use crate::api::spatial_gait::spatial_gait;
    use crate::api::spatial_gait::{driver, Strikes};
    use crate::hybrid::section::{Derivatives, SectionChart};
    use crate::multibody::gait::GaitSettings;
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
    let feet = sys.shape_contacts();
    let mut strikes = Strikes { want: 12, feet: &feet, after: vec![] };
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
        let g = spatial_gait(&m, Some(&warm), &GaitSettings { derivatives, ..GaitSettings::spatial() })?;
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
        let g = spatial_gait(&m, Some(&warm), &GaitSettings::spatial())?;
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
    let c = crate::api::spatial_continuation::continue_spatial_gait_with(
        &build,
        "slope",
        Some(&x18),
        &settings,
        &GaitSettings::spatial(),
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
