//! Invariants of the hybrid core: impacts never add energy; units never change a run.

use contactlab::hybrid::lagrangian::{join, Lagrangian, Modes};
use contactlab::hybrid::{DriverSettings, EventDriver, EventKind, EventLog, Hybrid, Transition};
use contactlab::mechanics::closed_form::Particle;
use contactlab::mechanics::planar_body::{BodyPoint, PlanarBody};
use contactlab::mechanics::ContactLaw;
use nalgebra::{dvector, DMatrix, DVector, Vector2};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// A planar body landing on two supports at once: Newton (frictionless, any e) or
    /// frictional plastic impacts never increase the kinetic energy.
    #[test]
    fn impacts_never_add_energy(
        l1 in -0.2f64..-0.02, l2 in 0.02f64..0.2, h in 0.02f64..0.2, rho in 0.03f64..0.2,
        phi1 in -0.4f64..0.4, phi2 in -0.4f64..0.4,
        mu1 in 0.0f64..1.5, mu2 in 0.0f64..1.5, e in 0.0f64..1.0, frictionless in any::<bool>(),
        vx in -1.0f64..1.0, vz in -1.0f64..-0.05, w in -5.0f64..5.0,
    ) {
        let law = |mu: f64| if frictionless { ContactLaw { mu: 0.0, restitution: e } } else { ContactLaw { mu, restitution: 0.0 } };
        let body = PlanarBody {
            mass: 0.8,
            rho,
            points: vec![
                BodyPoint { r: Vector2::new(l1, -h), phi: phi1, law: law(mu1) },
                BodyPoint { r: Vector2::new(l2, -h), phi: phi2, law: law(mu2) },
            ],
            force: Vector2::new(0.0, -9.81 * 0.8),
            torque: 0.0,
        };
        let sys = Lagrangian::new(body);
        let x = join(&DVector::zeros(3), &dvector![vx, vz, w]);
        let (_, v) = contactlab::hybrid::lagrangian::split(&x);
        let ke = 0.5 * 0.8 * (v[0] * v[0] + v[1] * v[1] + rho * rho * v[2] * v[2]);
        if let Some(Transition::Jump { info, .. }) = sys.initial_transition(0.0, &x) {
            prop_assert_eq!(info.kind, EventKind::Impact);
            let loss = info.energy_loss.unwrap();
            prop_assert!(loss >= -1e-12 * ke, "energy gained: {} of {}", -loss, ke);
        }
    }

    /// A particle thrown onto a rough incline (impact, slip, stop): scaling mass, length and time
    /// by powers of ten leaves the sequence of events and modes unchanged and scales the event
    /// times exactly.
    #[test]
    fn runs_do_not_depend_on_units(km in -8i32..=8, kl in -8i32..=8, kt in -8i32..=8) {
        let run = |m: f64, l: f64, t: f64| {
            let g = 9.81 * l / (t * t);
            let mut p = Particle::block_on_incline(2.0 * m, g, 0.25, 0.6);
            p.length = l;
            let sys = Lagrangian::new(p);
            let x0 = join(&dvector![0.0, 0.3 * l], &dvector![1.5 * l / t, 0.4 * l / t]);
            let mut log = EventLog::<DMatrix<f64>, Modes>::default();
            let r = EventDriver::new(DriverSettings::default()).run(&sys, 0.0, x0, &[], &mut log);
            (r.termination, log.events.iter().map(|e| (e.info.kind, e.mode_after.to_string(), e.t / t)).collect::<Vec<_>>())
        };
        let (term0, ev0) = run(1.0, 1.0, 1.0);
        let (term1, ev1) = run(10f64.powi(km), 10f64.powi(kl), 10f64.powi(kt));
        prop_assert_eq!(term0, term1);
        prop_assert_eq!(ev0.len(), ev1.len());
        for (a, b) in ev0.iter().zip(&ev1) {
            prop_assert_eq!(a.0, b.0);
            prop_assert_eq!(&a.1, &b.1);
            prop_assert!((a.2 - b.2).abs() <= 1e-9 * a.2.abs().max(1e-3), "{} vs {}", a.2, b.2);
        }
    }
}

#[test]
fn thrown_particle_sequence_is_impact_slip_stop() {
    // The scenario of the scale test, checked once: land, slip downhill... then stop.
    let mut p = Particle::block_on_incline(2.0, 9.81, 0.25, 0.6);
    p.length = 1.0;
    let sys = Lagrangian::new(p);
    let x0 = join(&dvector![0.0, 0.3], &dvector![1.5, 0.4]);
    let mut log = EventLog::<DMatrix<f64>, Modes>::default();
    let r = EventDriver::new(DriverSettings::default()).run(&sys, 0.0, x0, &[], &mut log);
    let kinds: Vec<_> = log.events.iter().map(|e| e.info.kind).collect();
    assert_eq!(kinds, vec![EventKind::Impact, EventKind::SlipStop], "{:?}", r.termination);
    assert_eq!(r.termination, contactlab::hybrid::Termination::Rest);
}

#[test]
fn landing_bodies_mostly_take_a_consistent_impact() {
    // The energy property above checks only impacts that resolve; make sure they are the rule:
    // over a grid of landings, at least 90 % resolve (the rest are Painlevé-type outcomes
    // reported as failures, never guessed).
    let (mut ok, mut total) = (0, 0);
    for &mu in &[0.0, 0.3, 1.0] {
        for &w in &[-3.0, 0.0, 3.0] {
            for &vx in &[-0.5, 0.5] {
                let law = ContactLaw { mu, restitution: 0.0 };
                let body = PlanarBody {
                    mass: 0.8,
                    rho: 0.1,
                    points: vec![
                        BodyPoint { r: Vector2::new(-0.1, -0.1), phi: 0.1, law },
                        BodyPoint { r: Vector2::new(0.12, -0.1), phi: -0.2, law },
                    ],
                    force: Vector2::new(0.0, -9.81 * 0.8),
                    torque: 0.0,
                };
                let sys = Lagrangian::new(body);
                let x = join(&DVector::zeros(3), &dvector![vx, -0.5, w]);
                total += 1;
                if let Some(Transition::Jump { info, .. }) = sys.initial_transition(0.0, &x) {
                    assert!(info.energy_loss.unwrap() >= 0.0);
                    ok += 1;
                }
            }
        }
    }
    assert!(ok * 10 >= total * 9, "{ok} of {total} landings resolved");
}
