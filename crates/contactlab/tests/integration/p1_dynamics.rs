//! P1 dynamics invariants: scale invariance of the ZOD (velocities ×λ, positions ×λ², time ×λ:
//! same events and impact angles), impacts never add energy, and simulations of small
//! perturbations never meet an inconsistent or ambiguous mode (the configurations are
//! non-Painlevé).

use contactlab::paper_configs::p1::config;
use contactlab::twocontact::impact::impact;
use contactlab::twocontact::sim::{BodyEventKind, BodyOutcome, SimSettings, SimState, Simulator};
use contactlab::twocontact::zod::Zod;
use contactlab::twocontact::TwoContact;
use nalgebra::{Matrix3, Vector3};
use proptest::prelude::*;

fn sim(p: &TwoContact) -> Simulator {
    Simulator::new(Zod::new(p).unwrap()).unwrap()
}

/// The body of the impact properties: unit mass, gravity 9.81 at 0.3 rad, no torque.
#[allow(clippy::too_many_arguments)]
fn body(rho: f64, h: f64, l1: f64, dl: f64, phi1: f64, phi2: f64, mu1: f64, mu2: f64) -> TwoContact {
    TwoContact {
        mass: 1.0,
        rho,
        h,
        l1,
        l2: l1 + dl,
        phi1,
        phi2,
        mu1,
        mu2,
        force: 9.81,
        alpha: 0.3,
        torque: 0.0,
        enclosure: None,
    }
}

fn cfg() -> impl Strategy<Value = &'static str> {
    prop_oneof![Just("A"), Just("B"), Just("D")]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, .. ProptestConfig::default() })]

    #[test]
    fn zod_is_scale_invariant(name in cfg(), z2 in 0.0f64..1e-3, zd2 in -0.05f64..0.05, xd2 in -0.05f64..0.05, lambda in 0.05f64..20.0) {
        let s = sim(&config(name).unwrap());
        let settings = SimSettings { max_events: 40, t_max: f64::INFINITY, ..Default::default() };
        let a = s.run(SimState { q: [0.0, z2, 0.0], qd: [0.0, zd2, xd2] }, [true, false], &settings).unwrap();
        let l2 = lambda * lambda;
        let b = s.run(SimState { q: [0.0, z2 * l2, 0.0], qd: [0.0, zd2 * lambda, xd2 * lambda] }, [true, false], &settings).unwrap();
        prop_assert_eq!(a.events.len(), b.events.len());
        prop_assert_eq!(a.outcome, b.outcome);
        for (ea, eb) in a.events.iter().zip(b.events.iter()) {
            prop_assert_eq!(ea.kind, eb.kind);
            prop_assert_eq!(ea.mode, eb.mode);
            prop_assert!((eb.t - lambda * ea.t).abs() <= 1e-9 * (1.0 + lambda * ea.t));
            if ea.kind == BodyEventKind::Impact && ea.section {
                let phi = |st: &SimState| (st.qd[2] / st.qd[1].abs()).atan();
                prop_assert!((phi(&ea.before) - phi(&eb.before)).abs() < 1e-9);
            }
        }
    }

    #[test]
    fn impacts_never_add_energy(
        rho in 0.05f64..0.3, h in 0.02f64..0.3, l1 in -0.3f64..0.3, dl in 0.01f64..0.3,
        phi1 in -0.6f64..0.6, phi2 in -0.6f64..0.6, mu1 in 0.0f64..2.0, mu2 in 0.0f64..2.0,
        zd1 in -1.0f64..0.0, zd2 in -1.0f64..-0.01, xd2 in -2.0f64..2.0, both in proptest::bool::ANY,
    ) {
        let p = body(rho, h, l1, dl, phi1, phi2, mu1, mu2);
        prop_assume!(Zod::new(&p).is_ok());
        let z = Zod::new(&p).unwrap();
        let t = Matrix3::from_rows(&[z.j.row(0), z.j.row(1), z.j.row(3)]);
        let v = t.try_inverse().unwrap() * Vector3::new(if both { zd1 } else { 0.0 }, zd2, xd2);
        if let Ok(i) = impact(&z, &v, [true, true]) {
            let ke = 0.5 * v.dot(&(z.mass * v));
            prop_assert!(i.energy_loss >= -1e-10 * (1.0 + ke), "ΔE = {}", i.energy_loss);
            // Post-impact: no point penetrates.
            prop_assert!(i.u_plus[0] >= -1e-9 && i.u_plus[1] >= -1e-9);
        }
    }

    #[test]
    fn perturbations_never_meet_painleve_states(name in cfg(), z2 in 1e-6f64..1e-3, xd2 in -0.02f64..0.02, zd1 in 0.0f64..0.02) {
        let s = sim(&config(name).unwrap());
        let tr = s.run(SimState { q: [0.0, z2, 0.0], qd: [zd1, 0.0, xd2] }, [zd1 == 0.0, false], &SimSettings { max_events: 400, diverge_ratio: 1e3, ..Default::default() }).unwrap();
        prop_assert!(!matches!(tr.outcome, BodyOutcome::Painleve | BodyOutcome::ImpactFailure), "{:?}", tr.outcome);
    }
}

#[test]
fn most_generated_impacts_resolve() {
    // `impacts_never_add_energy` checks only the impacts that resolve: make sure that over its own
    // parameter ranges (the same strategy, 400 deterministic cases) they are the rule, so the
    // property is not passing vacuously. An impact that does not resolve is a Painlevé-type
    // outcome reported as an error, never a guess.
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let strategy = (
        (0.05f64..0.3, 0.02f64..0.3, -0.3f64..0.3, 0.01f64..0.3),
        (-0.6f64..0.6, -0.6f64..0.6, 0.0f64..2.0, 0.0f64..2.0),
        (-1.0f64..0.0, -1.0f64..-0.01, -2.0f64..2.0, proptest::bool::ANY),
    );
    let mut runner = TestRunner::deterministic();
    let (mut valid, mut resolved) = (0, 0);
    for _ in 0..400 {
        let ((rho, h, l1, dl), (phi1, phi2, mu1, mu2), (zd1, zd2, xd2, both)) =
            strategy.new_tree(&mut runner).unwrap().current();
        let p = body(rho, h, l1, dl, phi1, phi2, mu1, mu2);
        let Ok(z) = Zod::new(&p) else { continue };
        valid += 1;
        let t = Matrix3::from_rows(&[z.j.row(0), z.j.row(1), z.j.row(3)]);
        let v = t.try_inverse().unwrap() * Vector3::new(if both { zd1 } else { 0.0 }, zd2, xd2);
        if impact(&z, &v, [true, true]).is_ok() {
            resolved += 1;
        }
    }
    assert!(valid >= 200, "only {valid} of 400 generated configurations are valid");
    assert!(resolved * 10 >= valid * 9, "{resolved} of {valid} impacts resolved");
}
