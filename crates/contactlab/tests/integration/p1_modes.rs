//! P1 (Or & Várkonyi) contact-mode reference values and cross-checks: the example model files
//! match Fig. 3's parameters, configuration A is persistent and B, D are not, SS consistency
//! agrees with P4's weak stability of the same body, and exactly ten modes are admissible.

use contactlab::fixture::{stability::weak_stability, Fixture, FrictionLaw};
use contactlab::paper_configs::p1::config;
use contactlab::twocontact::modes::{admissible, all_modes, analyze, ss_solution, MARGIN_TOL};
use contactlab::twocontact::{model, zod::Zod, TwoContact};
use nalgebra::{DMatrix, DVector};
use proptest::prelude::*;
use std::path::Path;

#[test]
fn example_files_are_fig3_configurations() {
    for name in ["A", "B", "D"] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../examples/two-contact/config-{name}.toml"));
        let from_file = model::read(&path).unwrap();
        let reference = config(name).unwrap();
        assert!((from_file.force - reference.force).abs() < 1e-4);
        assert_eq!(TwoContact { force: reference.force, ..from_file }, reference);
    }
}

#[test]
fn fig3_mode_structure() {
    for (name, persistent) in [("A", true), ("B", false), ("D", false)] {
        let eq = analyze(&Zod::new(&config(name).unwrap()).unwrap()).unwrap();
        assert!(eq.equilibrium && !eq.ambiguous && eq.painleve_free, "{name}");
        assert_eq!(eq.persistent, persistent, "{name}");
        assert!(!eq.marginal);
    }
}

fn as_fixture(p: &TwoContact) -> Fixture {
    let z = Zod::new(p).unwrap();
    let body = p.body();
    let m = body.mass_matrix();
    Fixture {
        mass_matrix: DMatrix::from_fn(3, 3, |i, j| m[(i, j)]),
        wn: DMatrix::from_fn(3, 2, |r, c| z.j[(c, r)]),
        wt: DMatrix::from_fn(3, 2, |r, c| z.j[(2 + c, r)]),
        wo: None,
        mu: DVector::from_vec(vec![p.mu1, p.mu2]),
        load: DVector::from_iterator(3, body.applied().iter().copied()),
        friction: FrictionLaw::Coulomb,
        enclosure: None,
    }
}

fn body() -> impl Strategy<Value = TwoContact> {
    (
        0.05f64..0.3,
        0.02f64..0.3,
        -0.3f64..0.3,
        0.01f64..0.3,
        -0.6f64..0.6,
        -0.6f64..0.6,
        0.0f64..1.5,
        0.0f64..1.5,
        -0.8f64..0.8,
        -0.2f64..0.2,
    )
        .prop_map(|(rho, h, l1, dl, phi1, phi2, mu1, mu2, alpha, torque)| TwoContact {
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
            alpha,
            torque,
            enclosure: None,
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, .. ProptestConfig::default() })]

    #[test]
    fn ss_consistency_equals_p4_weak_stability(p in body()) {
        prop_assume!(Zod::new(&p).is_ok());
        let z = Zod::new(&p).unwrap();
        let ss = ss_solution(&z).unwrap();
        prop_assume!(ss.margin.abs() > 1e-6); // skip loads on the boundary of the friction cone
        prop_assert_eq!(ss.margin > MARGIN_TOL, weak_stability(&as_fixture(&p)).unwrap().holds);
    }

    #[test]
    fn ten_admissible_modes(p in body()) {
        prop_assume!(Zod::new(&p).is_ok());
        let z = Zod::new(&p).unwrap();
        prop_assert_eq!(all_modes().into_iter().filter(|m| admissible(&z, *m)).count(), 10);
    }
}
