//! Exact return-map derivatives (issue #22, part 1): variational equations with saltation
//! matrices against closed forms and against differences of the return map.

use std::path::PathBuf;

use contactlab::hybrid::section::{Derivatives, JacobianRoute};
use contactlab::mechanism::gait::{find_gaits, GaitSettings};
use contactlab::mechanism::model;

fn example(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/multibody").join(name)
}

#[test]
fn compass_gait_multipliers_exact_and_differenced_agree() {
    let m = model::read(&example("compass-biped.toml")).unwrap();
    let exact = find_gaits(&m, &GaitSettings::default()).unwrap();
    let diff = find_gaits(&m, &GaitSettings { derivatives: Derivatives::Differences, ..Default::default() }).unwrap();
    let (a, b) = (&exact.gaits[0], &diff.gaits[0]);
    eprintln!("exact {:?} {:?}", a.multipliers, a.derivatives);
    eprintln!("diff  {:?} {:?}", b.multipliers, b.derivatives);
    assert_eq!(a.derivatives, JacobianRoute::Variational);
    for (x, y) in a.multipliers.iter().zip(&b.multipliers) {
        assert!((x[0] - y[0]).abs() < 1e-5 && (x[1] - y[1]).abs() < 1e-5, "{x:?} vs {y:?}");
    }
}

#[test]
fn explore_tolerances() {
    let m = model::read(&example("compass-biped.toml")).unwrap();
    for rtol in [1e-8, 1e-10, 1e-12, 1e-13] {
        for d in [Derivatives::Exact, Derivatives::Differences] {
            let g = find_gaits(&m, &GaitSettings { rtol, derivatives: d, ..Default::default() }).unwrap();
            eprintln!("{rtol:e} {d:?} {:?} {:?}", g.gaits[0].multipliers, g.gaits[0].period);
        }
    }
}
