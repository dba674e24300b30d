use nalgebra::DVector;

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
