//! Units never change a verdict: P1's stability verdict under mass and force scaled by 10^±8,
//! and P4's classification of a fixture under its load scaled by 10^±8.

use std::path::Path;

use contactlab::fixture::stability::classify as classify_fixture;
use contactlab::paper_configs::p1::config;
use contactlab::twocontact::classify::classify;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn p1_verdict_does_not_depend_on_mass_or_force_units(which in 0usize..3, km in -8i32..=8, kf in -8i32..=8) {
        let name = ["A", "B", "D"][which];
        let p = config(name).unwrap();
        let base = classify(&p, 401).unwrap();
        let mut q = p;
        q.mass *= 10f64.powi(km);
        q.force *= 10f64.powi(kf);
        let c = classify(&q, 401).unwrap();
        prop_assert_eq!(&c.verdict, &base.verdict, "{} with mass x 1e{}, force x 1e{}: {}", name, km, kf, c.evidence);
        prop_assert_eq!(&c.theorem, &base.theorem);
        prop_assert_eq!(c.fixed_points.len(), base.fixed_points.len());
        for (a, b) in c.fixed_points.iter().zip(&base.fixed_points) {
            prop_assert!((a.phi - b.phi).abs() < 1e-6 && (a.g - b.g).abs() < 1e-6 * b.g.max(1.0));
        }
    }

    #[test]
    fn p4_classification_does_not_depend_on_load_units(file in 0usize..4, k in -8i32..=8) {
        let name = ["disk-mu0.2-0.5.toml", "disk-mu1.8-0.5.toml", "disk-proposition5.toml", "incline-example2.toml"][file];
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/fixture").join(name);
        let f = contactlab::fixture::model::read(&path).unwrap();
        let base = classify_fixture(&f).unwrap();
        let scaled = f.with_load(&f.load * 10f64.powi(k));
        let c = classify_fixture(&scaled).unwrap();
        prop_assert_eq!(&c.classification, &base.classification, "{} with load x 1e{}", name, k);
        prop_assert_eq!(c.weakly_stable, base.weakly_stable);
        prop_assert_eq!(c.strongly_stable, base.strongly_stable);
    }
}
