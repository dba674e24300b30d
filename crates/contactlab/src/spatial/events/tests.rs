use nalgebra::{DMatrix, DVector};

use super::*;
use crate::spatial::algebra::{axis_angle, rpy, Mat3, SpatialInertia, Transform};
use crate::spatial::contact::Plane;
use crate::spatial::geometry::Collision;
use crate::spatial::timestep::resting_box;
use crate::spatial::tree::{Body3, SpatialTree};

const G: f64 = 9.81;

/// A uniform ball (mass `m`, radius `r`) on a free joint above the ground `z = 0`.
fn ball(m: f64, r: f64, mu: f64, e: f64) -> Scene3 {
    let b = Body3 {
        name: "ball".into(),
        parent: None,
        placement: Transform::identity(),
        joint: Joint3::Free,
        inertia: SpatialInertia { mass: m, com: Vec3::zeros(), inertia: Mat3::identity() * (0.4 * m * r * r) },
    };
    let tree = SpatialTree::new(vec![b], Vec3::new(0.0, 0.0, -G)).unwrap();
    Scene3 {
        tree,
        shapes: vec![Collision {
            name: "ball".into(),
            body: Some(0),
            pose: Transform::identity(),
            shape: Shape::Sphere { radius: r },
            friction: None,
            bits: (1, 1),
        }],
        planes: vec![Plane::new(Vec3::zeros(), Vec3::z()).unwrap()],
        mu,
        plane_friction: vec![],
        plane_bits: vec![],
        restitution: e,
        damping: vec![],
        springs: vec![],
        walking: None,
        limits: vec![],
    }
}

/// A two-link chain (a ball joint, then a revolute joint) carrying every shape, above a
/// tilted plane.
fn chain_with_shapes() -> (Scene3, Vec<f64>, Vec<f64>) {
    let link = |name: &str, parent, joint, pos: Vec3| Body3 {
        name: name.into(),
        parent,
        placement: Transform { rot: rpy(0.1, -0.2, 0.3), pos },
        joint,
        inertia: SpatialInertia {
            mass: 1.3,
            com: Vec3::new(0.05, -0.02, 0.1),
            inertia: Mat3::from_diagonal(&Vec3::new(0.02, 0.03, 0.025)),
        },
    };
    let bodies = vec![
        link("a", None, Joint3::Free, Vec3::zeros()),
        link("b", Some(0), Joint3::Revolute { axis: Vec3::new(0.0, 0.6, 0.8) }, Vec3::new(0.3, 0.0, 0.1)),
    ];
    let tree = SpatialTree::new(bodies, Vec3::new(0.0, 0.0, -G)).unwrap();
    let shapes = [
        Shape::Box { size: Vec3::new(0.2, 0.1, 0.15) },
        Shape::Sphere { radius: 0.07 },
        Shape::Capsule { radius: 0.04, length: 0.2 },
        Shape::Cylinder { radius: 0.05, length: 0.12 },
        Shape::Ellipsoid { radii: Vec3::new(0.08, 0.05, 0.03) },
    ];
    let shapes = shapes
        .iter()
        .enumerate()
        .map(|(k, s)| Collision {
            name: format!("s{k}"),
            body: Some(k % 2),
            pose: Transform { rot: rpy(0.3 * k as f64, 0.2, -0.1), pos: Vec3::new(0.02 * k as f64, 0.01, -0.03) },
            shape: *s,
            friction: None,
            bits: (1, 1),
        })
        .collect();
    let scene = Scene3 {
        tree,
        shapes,
        planes: vec![Plane::new(Vec3::new(0.0, 0.0, -1.0), Vec3::new(0.2, -0.1, 1.0)).unwrap()],
        mu: 0.5,
        plane_friction: vec![],
        plane_bits: vec![],
        restitution: 0.0,
        damping: vec![],
        springs: vec![],
        walking: None,
        limits: vec![],
    };
    let mut q = vec![0.1, -0.2, 0.3, 0.2, -0.1, 0.3, 0.9, 0.4];
    scene.tree.normalize(&mut q);
    (scene, q, vec![0.3, -0.2, 0.5, 1.7, -1.4, 0.9, 2.1])
}

#[test]
fn the_drift_is_the_second_derivative_of_the_gap_and_the_rate_of_the_slip() {
    // Along q(s) = q ⊕ s v with v fixed, d²g/ds² is the normal drift and d(J_t v)/ds the
    // tangential one, for corners, rolling spheres and capsule ends (exact formulas) and
    // cylinder rims and ellipsoids (a difference), on a chain whose second link turns.
    let (scene, q, v) = chain_with_shapes();
    let sys = EventScene::new(&scene, &q).unwrap();
    let tree = &scene.tree;
    let at = |s: f64| {
        let mut qs = tree.integrate(&q, &v, s);
        tree.normalize(qs.as_mut_slice());
        qs
    };
    let vv = DVector::from_column_slice(&v);
    let all: Vec<usize> = (0..sys.nc()).collect();
    let kin = sys.kinematics(&q, &all).unwrap();
    let h = 1e-4;
    let (qp, qm) = (at(h), at(-h));
    let (kp, km) = (sys.kinematics(qp.as_slice(), &all).unwrap(), sys.kinematics(qm.as_slice(), &all).unwrap());
    for i in 0..sys.nc() {
        let d = sys.drift(&q, &v, i, &kin[i]);
        let gdd = (kp[i].gap - 2.0 * kin[i].gap + km[i].gap) / (h * h);
        let ut = (&kp[i].rows * &vv - &km[i].rows * &vv) / (2.0 * h);
        let scale = 1.0 + d.norm();
        assert!((d[0] - gdd).abs() < 1e-5 * scale, "{}: normal drift {} vs {gdd}", sys.contacts[i].name, d[0]);
        assert!(
            (d[1] - ut[1]).abs() < 1e-5 * scale && (d[2] - ut[2]).abs() < 1e-5 * scale,
            "{}: tangential drift {:?} vs {:?}",
            sys.contacts[i].name,
            (d[1], d[2]),
            (ut[1], ut[2])
        );
    }
}

#[test]
fn a_skidding_ball_rolls_after_the_closed_form_time_with_the_closed_form_velocity() {
    // A uniform ball thrown onto the ground with back- and side-spin: its slip velocity
    // u = v + ω × (−r e_z) keeps its direction and decays at (7/2) μ g, so it stops at
    // t* = 2‖u₀‖/(7 μ g); then it rolls with v = v₀ − (2/7) u₀ for ever.
    let (m, r, mu) = (0.3, 0.05, 0.2);
    let scene = ball(m, r, mu, 0.0);
    let v0 = Vec3::new(2.0, 0.5, 0.0);
    let w0 = Vec3::new(-30.0, 20.0, 7.0);
    let u0 = v0 + w0.cross(&Vec3::new(0.0, 0.0, -r));
    let t_star = 2.0 * u0.norm() / (7.0 * mu * G);
    let q0 = [0.0, 0.0, r, 0.0, 0.0, 0.0, 1.0];
    let v = [v0.x, v0.y, v0.z, w0.x, w0.y, w0.z];
    // (rtol 1e-12: the body-frame velocities turn at 37 rad/s, and the default 1e-10 puts the
    // stop 5e-8 late, the integrator's global error.)
    let s = EventSettings { t_max: 1.0, rtol: 1e-12, ..Default::default() };
    let run = simulate_events(&scene, &q0, &v, &s).unwrap();
    assert_eq!(run.termination, Termination::TimeLimit, "{:?}", run.events);
    let stops: Vec<&Event3> = run.events.iter().filter(|e| e.kind == EventKind::SlipStop).collect();
    assert_eq!(stops.len(), 1, "{:?}", run.events);
    // The stop event comes when the slip speed reaches STOP_TOL of the velocity scale, at
    // t* (1 − δ/‖u₀‖) exactly.
    let sys = EventScene::new(&scene, &q0).unwrap();
    let t_delta = t_star * (1.0 - sys.stop_speed() / u0.norm());
    assert!((stops[0].t - t_delta).abs() < 1e-9 * t_star, "stopped at {} vs {t_delta}", stops[0].t);
    assert_eq!(stops[0].modes, "S");
    // The final velocity: v in the body's axes, turned to the world's.
    let (q, vb) = (run.q.last().unwrap(), run.v.last().unwrap());
    let rot = crate::spatial::algebra::quaternion_matrix(q[3], q[4], q[5], q[6]);
    let vw = rot * Vec3::new(vb[0], vb[1], vb[2]);
    let expect = v0 - u0 * (2.0 / 7.0);
    // (Within the last slip δ, which the projection onto rest removed.)
    assert!((vw - expect).norm() < sys.stop_speed(), "rolls at {vw} vs {expect}");
    assert!((q[2] - r).abs() < 1e-10, "the ball left the ground: z = {}", q[2]);
    // Energy only lost.
    assert!(run.energy.windows(2).all(|e| e[1] <= e[0] + 1e-9 * e[0].abs()));
}

#[test]
fn a_bouncing_ball_reaches_its_zeno_point_and_rests() {
    // Dropped from height h with restitution e: the first impact at t₁ = √(2h/g) with speed
    // g t₁, the Zeno point at t₁ (1 + 2e/(1 − e)).
    let (r, e, h) = (0.05, 0.5, 0.2);
    let scene = ball(0.3, r, 0.4, e);
    let q0 = [0.0, 0.0, r + h, 0.0, 0.0, 0.0, 1.0];
    let run = simulate_events(&scene, &q0, &[0.0; 6], &EventSettings { t_max: 2.0, ..Default::default() }).unwrap();
    let t1 = (2.0 * h / G).sqrt();
    let tz = t1 * (1.0 + 2.0 * e / (1.0 - e));
    let first = run.events.iter().find(|x| x.kind == EventKind::Impact).unwrap();
    assert!((first.t - t1).abs() < 1e-9, "{} vs {t1}", first.t);
    let zeno = run.events.iter().find(|x| x.kind == EventKind::Zeno).expect("a Zeno point");
    assert!((zeno.t - tz).abs() < 1e-6 * tz, "Zeno at {} vs {tz}", zeno.t);
    assert!(run.events.iter().all(|x| x.energy_loss.is_none_or(|l| l >= 0.0)));
    let v = run.v.last().unwrap();
    assert!(v.iter().all(|x| x.abs() < 1e-9), "{v:?}");
}

#[test]
fn a_box_slides_down_a_slope_as_coulomb_says_and_rests_above_the_friction_angle() {
    let alpha = 0.3f64;
    let (scene, q0) = resting_box(2.0, Vec3::new(0.4, 0.3, 0.2), alpha, 0.2, 0.0, 0.0).unwrap();
    let run = simulate_events(&scene, &q0, &[0.0; 6], &EventSettings { t_max: 1.0, ..Default::default() }).unwrap();
    assert_eq!(run.termination, Termination::TimeLimit, "{:?}", run.events);
    let q = run.q.last().unwrap();
    let d = Vec3::new(q[0] - q0[0], q[1] - q0[1], q[2] - q0[2]);
    let down = -(axis_angle(&Vec3::y(), -alpha) * Vec3::x());
    let a = G * (alpha.sin() - 0.2 * alpha.cos());
    assert!((d.dot(&down) - 0.5 * a).abs() < 1e-9 * a, "slid {} vs {}", d.dot(&down), 0.5 * a);
    let (scene, q0) = resting_box(2.0, Vec3::new(0.4, 0.3, 0.2), alpha, 0.5, 0.0, 0.0).unwrap();
    let run = simulate_events(&scene, &q0, &[0.0; 6], &EventSettings { t_max: 1.0, ..Default::default() }).unwrap();
    assert_eq!(run.termination, Termination::Rest, "{:?}", run.events);
}

/// `Df` by central differences of the (`f64`) flow, each component stepped by `1e-6` of its
/// scale.
fn flow_differences(sys: &EventScene, mode: &Modes3, x: &DMatrix<f64>) -> DMatrix<f64> {
    use crate::hybrid::Hybrid;
    let n = x.nrows();
    let sc = sys.state_scale();
    let mut out = DMatrix::zeros(n, n);
    for k in 0..n {
        let h = 1e-6 * sc[k];
        let (mut xp, mut xm) = (x.clone(), x.clone());
        xp[k] += h;
        xm[k] -= h;
        let d = (sys.flow(mode, 0.0, &xp) - sys.flow(mode, 0.0, &xm)) / (2.0 * h);
        out.set_column(k, &d.column(0));
    }
    out
}

/// The largest difference of two Jacobians in the state's scales (`S⁻¹ A S`), relative to the
/// larger of them.
fn scaled_gap(sys: &EventScene, a: &DMatrix<f64>, b: &DMatrix<f64>) -> f64 {
    use crate::hybrid::Hybrid;
    let s = sys.state_scale();
    let scaled = |m: &DMatrix<f64>| DMatrix::from_fn(m.nrows(), m.ncols(), |r, c| m[(r, c)] * s[c] / s[r]);
    let (a, b) = (scaled(a), scaled(b));
    (&a - &b).amax() / a.amax().max(b.amax())
}

#[test]
fn exact_flow_jacobians_match_differences_in_every_kind_of_mode() {
    // Dual numbers through the constrained flow of a ball (rolling: sticking; skidding:
    // slipping), a box on an edge (two sticking corners, whose rows are dependent: one is
    // dropped; two slipping corners), and a chain in flight, against central differences. The
    // dual path's value is the f64 flow's.
    use crate::hybrid::Hybrid;
    // The 0.4 × 0.3 × 0.2 m box turned by β about y, resting on its edge x = +0.2.
    let tilt = |beta: f64| {
        let rot = axis_angle(&Vec3::y(), beta);
        let low = (0..8)
            .map(|k| {
                let c = Vec3::new(
                    if k & 1 == 0 { -0.2 } else { 0.2 },
                    if k & 2 == 0 { -0.15 } else { 0.15 },
                    if k & 4 == 0 { -0.1 } else { 0.1 },
                );
                (rot * c).z
            })
            .fold(f64::INFINITY, f64::min);
        let quat = nalgebra::UnitQuaternion::from_rotation_matrix(&nalgebra::Rotation3::from_matrix_unchecked(rot));
        vec![0.0, 0.0, -low, quat.i, quat.j, quat.k, quat.w]
    };
    let (boxed, _) = resting_box(2.0, Vec3::new(0.4, 0.3, 0.2), 0.0, 0.6, 0.0, 0.0).unwrap();
    let qb = tilt(0.3);
    let rolling = ball(1.5, 0.1, 0.4, 0.0);
    let (chain, qc, vc) = chain_with_shapes();
    let mode = |n: usize, set: &[(usize, Contact3Mode)]| {
        let mut m = Modes3::free(n);
        set.iter().for_each(|&(i, c)| m.set(i, c));
        m
    };
    type Case<'a> = (&'a str, &'a Scene3, Vec<f64>, Vec<f64>, Vec<(usize, Contact3Mode)>);
    let cases: Vec<Case> = vec![
        (
            "rolling ball",
            &rolling,
            vec![0.0, 0.0, 0.1, 0.1, 0.2, -0.1, 0.97],
            vec![0.5, -0.3, 0.0, 3.0, 5.0, 0.7],
            vec![(0, Contact3Mode::Stick)],
        ),
        (
            "skidding ball",
            &rolling,
            vec![0.0, 0.0, 0.1, 0.1, 0.2, -0.1, 0.97],
            vec![0.5, -0.3, 0.0, 1.0, -2.0, 0.7],
            vec![(0, Contact3Mode::Slip([0.6, 0.8]))],
        ),
        (
            "box on an edge, sticking",
            &boxed,
            qb.clone(),
            vec![-0.07, 0.0, -0.14, 0.0, -0.7, 0.0],
            vec![(1, Contact3Mode::Stick), (3, Contact3Mode::Stick)],
        ),
        (
            "box on an edge, slipping",
            &boxed,
            qb.clone(),
            vec![0.4, 0.1, 0.05, 0.1, -0.7, 0.2],
            vec![(1, Contact3Mode::Slip([1.0, 0.0])), (3, Contact3Mode::Slip([1.0, 0.0]))],
        ),
        ("chain in flight", &chain, qc.clone(), vc.clone(), vec![]),
    ];
    for (name, scene, q, v, set) in cases {
        let sys = EventScene::new(scene, &q).unwrap();
        let m = mode(sys.nc(), &set);
        let x = join(&DVector::from_vec(q.clone()), &DVector::from_vec(v.clone()));
        let exact = sys.flow_jacobian(&m, 0.0, &x).unwrap_or_else(|| panic!("{name}: no exact Jacobian"));
        let fd = flow_differences(&sys, &m, &x);
        let gap = scaled_gap(&sys, &exact, &fd);
        assert!(gap < 1e-7, "{name}: exact vs differences {gap:e}");
        // The value of the generic path.
        let pat = sys.mode_pattern(&m, &x).unwrap();
        let f = sys.flow_t::<f64>(&pat, 0.0, x.as_slice()).unwrap();
        let f0 = sys.flow(&m, 0.0, &x);
        assert!((&f - f0.column(0)).amax() < 1e-12 * (1.0 + f0.amax()), "{name}: value {f} vs {f0}");
    }
}

#[test]
fn exact_guard_gradients_match_differences() {
    // A ball rolling down a slope: the gradients of its normal force and of its cone margin
    // (sticking), and of its slip speed (skidding); a box's free corner's gap.
    use crate::hybrid::Hybrid;
    let mut slope = ball(1.5, 0.1, 0.6, 0.0);
    slope.planes = vec![Plane::new(Vec3::zeros(), Vec3::new(0.3, 0.1, 1.0)).unwrap()];
    let q = vec![0.0, 0.0, 0.1, 0.1, 0.2, -0.1, 0.97];
    let sys = EventScene::new(&slope, &q).unwrap();
    let cases = [
        (Contact3Mode::Stick, vec![0.5, -0.3, 0.0, 3.0, 5.0, 0.7], [0, 1]),
        (Contact3Mode::Slip([0.6, 0.8]), vec![0.5, -0.3, 0.0, 1.0, -2.0, 0.7], [0, 1]),
    ];
    let (boxed, _) = resting_box(2.0, Vec3::new(0.4, 0.3, 0.2), 0.0, 0.6, 0.0, 0.05).unwrap();
    let qb = vec![0.01, -0.02, 0.2, 0.1, -0.2, 0.05, 0.97];
    let box_sys = EventScene::new(&boxed, &qb).unwrap();
    let xb = join(&DVector::from_vec(qb.clone()), &DVector::from_vec(vec![0.3, 0.1, -0.5, 1.0, 0.4, -0.2]));
    let mut checks = vec![];
    for (cm, v, guards) in cases {
        let mut m = Modes3::free(1);
        m.set(0, cm);
        let x = join(&DVector::from_vec(q.clone()), &DVector::from_vec(v));
        for g in guards {
            checks.push((&sys, m, x.clone(), g));
        }
    }
    for g in [0, 6, 14] {
        checks.push((&box_sys, Modes3::free(8), xb.clone(), g));
    }
    for (sys, m, x, g) in checks {
        let exact = sys.guard_gradient(&m, g, 0.0, &x).unwrap_or_else(|| panic!("guard {g}: none"));
        let sc = sys.state_scale();
        let mut out = vec![0.0; sys.nc() * 2];
        let mut fd = DVector::zeros(x.nrows());
        for k in 0..x.nrows() {
            let h = 1e-6 * sc[k];
            let (mut xp, mut xm) = (x.clone(), x.clone());
            xp[k] += h;
            xm[k] -= h;
            sys.guards(&m, 0.0, &xp, &mut out);
            let a = out[g];
            sys.guards(&m, 0.0, &xm, &mut out);
            fd[k] = (a - out[g]) / (2.0 * h);
        }
        // (Relative to the guard's own size where its gradient vanishes: a ball's normal force
        // on a plane does not depend on its orientation.)
        sys.guards(&m, 0.0, &x, &mut out);
        let scaled = |d: &DVector<f64>| DVector::from_fn(d.len(), |k, _| d[k] * sc[k]);
        let gap = (scaled(&exact) - scaled(&fd)).amax() / scaled(&fd).amax().max(out[g].abs());
        assert!(gap < 1e-7, "guard {g} of {m:?}: {exact} vs {fd}");
    }
}

#[test]
fn remembered_mode_solutions_equal_fresh_ones_bit_for_bit() {
    // A skidding ball's mode solution asked in an interleaved order (the same point twice, then
    // another point, another mode, back): each equals the one computed afresh, to the bit; and
    // after the friction changes the remembered one is not reused.
    let scene = ball(1.5, 0.1, 0.4, 0.0);
    let q = vec![0.0, 0.0, 0.1, 0.1, 0.2, -0.1, 0.97];
    let mut sys = EventScene::new(&scene, &q).unwrap();
    let (v1, v2) = (vec![0.5, -0.3, 0.0, 1.0, -2.0, 0.7], vec![0.2, 0.1, 0.0, -1.0, 0.5, 0.3]);
    let mut slip = Modes3::free(1);
    slip.set(0, Contact3Mode::Slip([0.6, 0.8]));
    let mut stick = Modes3::free(1);
    stick.set(0, Contact3Mode::Stick);
    let bits = |s: Option<super::modes::ModeSolution>| {
        let s = s.unwrap();
        s.acc.iter().chain(s.force.iter().flat_map(|f| f.iter())).map(|x| x.to_bits()).collect::<Vec<_>>()
    };
    for (m, v) in [(&slip, &v1), (&slip, &v1), (&slip, &v2), (&stick, &v2), (&slip, &v2), (&slip, &v1)] {
        let fresh = bits(sys.solve_mode_fresh(m, 0.0, &q, v));
        assert_eq!(bits(sys.solve_mode(m, 0.0, &q, v)), fresh);
        assert_eq!(bits(sys.solve_mode(m, 0.0, &q, v)), fresh);
    }
    let before = bits(sys.solve_mode(&slip, 0.0, &q, &v1));
    sys.set_mu(0, 0.1);
    let after = bits(sys.solve_mode(&slip, 0.0, &q, &v1));
    assert_ne!(before, after);
    assert_eq!(after, bits(sys.solve_mode_fresh(&slip, 0.0, &q, &v1)));
}

/// A rod on a hinge about `y` at height `10 s`, the rod along `x` (1 kg, its centre `0.5 s`
/// out, a ball of radius `0.05 s` at its tip), its stops `lower` and `upper`, lengths in units
/// of `s`; gravity `−z` turns it towards `upper`.
fn hinged_rod(s: f64, g: f64, lower: f64, upper: f64, e: f64) -> Scene3 {
    let rod = Body3 {
        name: "rod".into(),
        parent: None,
        placement: Transform { rot: Mat3::identity(), pos: Vec3::new(0.0, 0.0, 10.0 * s) },
        joint: Joint3::Revolute { axis: Vec3::y() },
        inertia: SpatialInertia {
            mass: 1.0,
            com: Vec3::new(0.5 * s, 0.0, 0.0),
            inertia: Mat3::from_diagonal(&Vec3::new(1e-3, 0.08, 0.08)) * (s * s),
        },
    };
    let tree = SpatialTree::new(vec![rod], Vec3::new(0.0, 0.0, -g * s)).unwrap();
    let tip = Collision {
        name: "tip".into(),
        body: Some(0),
        pose: Transform { rot: Mat3::identity(), pos: Vec3::new(s, 0.0, 0.0) },
        shape: Shape::Sphere { radius: 0.05 * s },
        friction: None,
        bits: (1, 1),
    };
    let limit = crate::spatial::timestep::JointLimit { name: "hinge".into(), qpos: 0, qvel: 0, lower, upper };
    Scene3 { restitution: e, limits: vec![limit], ..Scene3::on_ground(tree, vec![tip], 0.5) }
}

#[test]
fn a_hinge_bounces_off_its_stop_by_newtons_law_in_any_unit_of_length() {
    // Without gravity, turning at 2 rad/s towards its upper stop 0.3 rad: it strikes the stop
    // at t = 0.15 s and leaves it at −e · 2 rad/s (Newton's law), never past it; lengths in
    // any unit change nothing (the stop's gap is an arc at the length scale).
    for s in [1e-8, 1.0, 1e8] {
        for e in [0.0, 0.5, 1.0] {
            let scene = hinged_rod(s, 0.0, -1.0, 0.3, e);
            let run = simulate_events(
                &scene,
                &[0.0],
                &[2.0],
                &EventSettings { t_max: 0.3, stops: true, ..Default::default() },
            )
            .unwrap();
            let hit = run.events.iter().find(|x| x.kind == EventKind::Impact).expect("the stop is struck");
            assert_eq!(run.contacts[hit_index(&run, hit)].name, "hinge/upper");
            assert!((hit.t - 0.15).abs() < 1e-12, "s {s}, e {e}: struck at {}", hit.t);
            assert!(run.q.iter().all(|q| q[0] <= 0.3 + 1e-12), "s {s}, e {e}: passed the stop");
            let v = run.v.last().unwrap()[0];
            assert!((v + e * 2.0).abs() < 1e-12, "s {s}, e {e}: leaves the stop at {v} rad/s");
        }
    }
}

fn hit_index(run: &EventRun3, ev: &Event3) -> usize {
    run.contacts.iter().position(|c| Some(&c.name) == ev.contact.as_ref()).unwrap()
}

#[test]
fn a_rod_swung_by_gravity_onto_its_stop_strikes_at_the_energy_speed_and_rests_on_it() {
    // From rest at −0.5 rad gravity swings the rod up to its stop at 0.4 rad: it strikes with
    // ω² = 2 m g r (sin 0.4 − sin(−0.5)) / I (I = 0.08 + 0.25 about the hinge), rebounds at
    // −e ω, and with e = 0 rests on the stop, pressed by the torque m g r cos 0.4.
    let (g, r, inertia) = (9.81, 0.5, 0.33);
    let omega = (2.0 * g * r * (0.4f64.sin() + 0.5f64.sin()) / inertia).sqrt();
    for e in [0.0, 0.5] {
        let scene = hinged_rod(1.0, g, -1.2, 0.4, e);
        let run =
            simulate_events(&scene, &[-0.5], &[0.0], &EventSettings { t_max: 3.0, stops: true, ..Default::default() })
                .unwrap();
        let k = run.events.iter().position(|x| x.kind == EventKind::Impact).expect("the stop is struck");
        let hit = &run.events[k];
        let ke = 0.5 * inertia * omega * omega;
        let loss = hit.energy_loss.unwrap();
        assert!((loss - (1.0 - e * e) * ke).abs() < 1e-8 * ke, "e {e}: lost {loss} of {ke}");
        assert!(run.q.iter().all(|q| q[0] <= 0.4 + 1e-12 && q[0] >= -1.2 - 1e-12));
        if e == 0.0 {
            assert_eq!(run.termination, Termination::Rest, "{:?}", run.events);
            let sys = EventScene::with_stops(&scene, &[0.4]).unwrap();
            let i = sys.contacts().iter().position(|c| c.name == "hinge/upper").unwrap();
            assert_eq!(sys.contacts()[i].stop(), Some((0, false)));
            let mode = {
                let mut m = Modes3::free(sys.nc());
                m.set(i, Contact3Mode::Stick);
                m
            };
            let sol = sys.solve_mode(&mode, 0.0, &[0.4], &[0.0]).unwrap();
            // The stop's force is its torque over the arm (the length scale, the tip's reach).
            let torque = g * r * 0.4f64.cos();
            let f = sol.force[i];
            assert!((f[0] * sys.length() - torque).abs() < 1e-12 * torque, "{f} vs {torque}");
            assert_eq!((f[1], f[2]), (0.0, 0.0));
            assert!(sol.acc[0].abs() < 1e-12);
        }
    }
}

#[test]
fn a_closed_stops_flow_jacobian_is_exact() {
    // The chain of every shape with a stop on its hinge, closed, beside a sticking contact:
    // the dual-number Jacobian against central differences.
    use crate::hybrid::Hybrid;
    let (mut chain, q, v) = chain_with_shapes();
    let at = q[7];
    chain.limits =
        vec![crate::spatial::timestep::JointLimit { name: "b".into(), qpos: 7, qvel: 6, lower: at, upper: at + 1.0 }];
    let sys = EventScene::with_stops(&chain, &q).unwrap();
    let i = sys.contacts().iter().position(|c| c.name == "b/lower").unwrap();
    let mut m = Modes3::free(sys.nc());
    m.set(i, Contact3Mode::Stick);
    let x = join(&DVector::from_vec(q.clone()), &DVector::from_vec(v.clone()));
    let exact = sys.flow_jacobian(&m, 0.0, &x).expect("an exact Jacobian");
    let gap = scaled_gap(&sys, &exact, &flow_differences(&sys, &m, &x));
    assert!(gap < 1e-7, "exact vs differences {gap:e}");
    // The stop holds its joint: the hinge's acceleration is zero in the flow.
    let f = sys.flow(&m, 0.0, &x);
    assert!(f[(q.len() + 6, 0)].abs() < 1e-12 * f.amax(), "{}", f[(q.len() + 6, 0)]);
}
