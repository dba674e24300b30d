//! The papers' systems written as multibody trees give the built-in models' motions (issue #21).

use contactlab::hybrid::lagrangian::{join, Lagrangian};
use contactlab::hybrid::{DriverSettings, EventDriver, Tolerances};
use contactlab::mechanics::multibody::{Body, Joint, Multibody};
use contactlab::mechanics::multibody_system::{Constraint, Contact, MultibodySystem};
use contactlab::mechanics::ContactSystem;
use nalgebra::{dvector, DVector, Vector2};

#[test]
fn p1s_body_as_a_floating_tree_moves_as_the_built_in_model() {
    // P1's configurations perturbed from rest (slip, separation, impacts and sticking follow):
    // the event-driven runs of the built-in planar body and of the same body as a floating tree
    // with two points on lines end at the same time, state and event count.
    for name in ["A", "B", "D"] {
        let body = contactlab::paper_configs::p1::config(name).unwrap().body();
        let tree = Multibody::new(
            vec![Body {
                name: "body".into(),
                parent: None,
                joint: Joint::Planar,
                origin: Vector2::zeros(),
                origin_angle: 0.0,
                mass: body.mass,
                inertia: body.mass * body.rho * body.rho,
                com: Vector2::zeros(),
            }],
            body.force.norm() / body.mass,
            body.force.x.atan2(-body.force.y),
        )
        .unwrap();
        let contacts = body
            .points
            .iter()
            .map(|p| {
                Contact::new(
                    Constraint::PointOnLine { body: 0, point: p.r, line_point: p.r, normal: p.normal(), radius: 0.0 },
                    p.law,
                )
            })
            .collect();
        let mb = MultibodySystem::new(tree, contacts, vec![]).unwrap();
        let x0 = join(&DVector::zeros(3), &dvector![0.02, 0.05, -0.4]);
        let settings =
            DriverSettings { t_max: 0.6, tol: Tolerances { rtol: 1e-11, atol: 1e-13 }, ..Default::default() };
        let (a, b) = (Lagrangian::new(body.clone()), Lagrangian::new(mb.clone()));
        let ra = EventDriver::new(settings).run(&a, 0.0, x0.clone(), &[], &mut ());
        let rb = EventDriver::new(settings).run(&b, 0.0, x0, &[], &mut ());
        assert_eq!(
            std::mem::discriminant(&ra.termination),
            std::mem::discriminant(&rb.termination),
            "{name}: {:?} vs {:?}",
            ra.termination,
            rb.termination
        );
        assert_eq!(ra.events, rb.events, "config {name}: event counts");
        assert!(ra.events > 0, "config {name}: nothing happened");
        assert!((ra.t - rb.t).abs() <= 1e-9 * (1.0 + ra.t), "config {name}: {} vs {}", ra.t, rb.t);
        let d = (&ra.state - &rb.state).amax();
        assert!(d <= 1e-8 * (body.length_scale() + ra.state.amax()), "config {name}: states differ by {d:e}");
    }
}

#[test]
fn units_do_not_change_the_orbit_of_a_multibody_model() {
    // P3's pendulum as a tree, with masses (and the PD gains) scaled by 10^±6, lengths and
    // gravity scaled together by 10^±6 (the same motion in angles and time; the gains scale as
    // m L²), or the time unit by 10^±6 (gravity and stiffness / T², damping / T): the same Zeno
    // periodic orbit, period (in the time unit) and multiplier.
    use contactlab::mechanics::double_pendulum::{DoublePendulumStop, HipControl};
    use contactlab::zeno::{self, ZenoSettings};
    let s = ZenoSettings::default();
    let (q0, v0) = (dvector![-0.08, 0.0], DVector::zeros(2));
    let base = DoublePendulumStop::paper_controlled(0.5);
    let c = base.control.unwrap();
    let mut found = Vec::new();
    let units = [(1.0, 1.0, 1.0), (1e-6, 1.0, 1.0), (1e6, 1.0, 1.0), (1.0, 1e-6, 1.0), (1.0, 1e6, 1.0)];
    for (mass, length, time) in units.into_iter().chain([(1.0, 1.0, 1e-6), (1.0, 1.0, 1e6)]) {
        let gain = mass * length * length;
        let p = DoublePendulumStop {
            m1: mass,
            m2: mass,
            l1: length,
            l2: length,
            gravity: base.gravity * length / (time * time),
            control: Some(HipControl { k1: c.k1 * gain / (time * time), c1: c.c1 * gain / time, ..c }),
            ..base
        };
        let lag = Lagrangian::new(p.as_multibody().unwrap());
        let y = zeno::settle(&lag, &q0, &v0, 300, 1e-7, &s).unwrap();
        let o = zeno::orbit(&lag, &y, &s);
        assert!(o.converged && o.zeno, "mass x {mass}, length x {length}, time x {time}: {o:?}");
        found.push((o.period / time, o.gamma));
    }
    for f in &found {
        assert!((f.0 - found[0].0).abs() < 1e-9 && (f.1 - found[0].1).abs() < 1e-6, "{found:?}");
    }
}
