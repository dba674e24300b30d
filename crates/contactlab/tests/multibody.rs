//! The papers' systems written as multibody trees give the built-in models' motions (issue #21).

use contactlab::hybrid::lagrangian::{join, Lagrangian};
use contactlab::hybrid::{DriverSettings, EventDriver, Tolerances};
use contactlab::mechanics::multibody::{Body, Joint, Multibody};
use contactlab::mechanics::multibody_system::{Constraint, Contact, MultibodySystem};
use contactlab::mechanics::ContactSystem;
use nalgebra::{Vector2, Vector3};

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
            .map(|p| Contact {
                constraint: Constraint::PointOnLine { body: 0, point: p.r, line_point: p.r, normal: p.normal() },
                law: p.law,
            })
            .collect();
        let mb = MultibodySystem::<3>::new(tree, contacts, vec![]).unwrap();
        let x0 = join(&Vector3::zeros(), &Vector3::new(0.02, 0.05, -0.4));
        let settings =
            DriverSettings { t_max: 0.6, tol: Tolerances { rtol: 1e-11, atol: 1e-13 }, ..Default::default() };
        let (a, b) = (Lagrangian::new(body.clone()), Lagrangian::new(mb.clone()));
        let ra = EventDriver::new(settings).run(&a, 0.0, x0, &[], &mut ());
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
        let d = (ra.state - rb.state).amax();
        assert!(d <= 1e-8 * (body.length_scale() + ra.state.amax()), "config {name}: states differ by {d:e}");
    }
}
