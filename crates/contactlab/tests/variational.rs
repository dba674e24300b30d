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
fn compass_gait_multipliers_converge_and_match_differences() {
    // The exact multipliers converge to 10 digits as the tolerance goes to 1e-13; the
    // difference Jacobian (5-7 digits at 1e-10) agrees with them to its accuracy; both routes
    // find the same fixed point.
    let m = model::read(&example("compass-biped.toml")).unwrap();
    let run = |rtol: f64, derivatives| {
        let g = find_gaits(&m, &GaitSettings { rtol, derivatives, ..Default::default() }).unwrap();
        g.gaits.into_iter().next().expect("P2's compass gait")
    };
    let (e10, e12, e13) = (run(1e-10, Derivatives::Exact), run(1e-12, Derivatives::Exact), run(1e-13, Derivatives::Exact));
    let d10 = run(1e-10, Derivatives::Differences);
    assert_eq!(e10.derivatives, JacobianRoute::Variational);
    assert_eq!(d10.derivatives, JacobianRoute::Differences("asked for".into()));
    let gap = |a: &[[f64; 2]], b: &[[f64; 2]]| a.iter().zip(b).fold(0.0f64, |m, (x, y)| m.max((x[0] - y[0]).hypot(x[1] - y[1])));
    assert!(gap(&e12.multipliers, &e13.multipliers) < 1e-10, "{:?} vs {:?}", e12.multipliers, e13.multipliers);
    assert!(gap(&e10.multipliers, &e13.multipliers) < 1e-8, "{:?} vs {:?}", e10.multipliers, e13.multipliers);
    assert!(gap(&d10.multipliers, &e13.multipliers) < 1e-4, "{:?} vs {:?}", d10.multipliers, e13.multipliers);
    for (a, b) in e10.section_point.iter().zip(&d10.section_point) {
        assert!((a - b).abs() < 1e-8, "{a} vs {b}");
    }
}

#[test]
fn rimless_wheel_multiplier_is_beta_squared() {
    // P2's step map of the sticking rimless wheel is explicit: ω'² = β² (ω² + K), so the
    // multiplier of the gait is β² = ((cos 2π/n + κ)/(1 + κ))². The multibody wheel's exact
    // derivative (a sticking stance, a sticking frictional strike, the relabelling) gives it to
    // 1e-12; the other multiplier is 0 (the post-strike angle is fixed by the strike).
    let m = model::read(&example("rimless-wheel.toml")).unwrap();
    let (n, kappa) = (10.0, 0.02);
    let beta: f64 = ((2.0 * std::f64::consts::PI / n).cos() + kappa) / (1.0 + kappa);
    for rtol in [1e-10, 1e-12] {
        let g = find_gaits(&m, &GaitSettings { rtol, ..Default::default() }).unwrap();
        let g = &g.gaits[0];
        assert_eq!(g.derivatives, JacobianRoute::Variational);
        let lead = g.multipliers[0];
        eprintln!("rtol {rtol:e}: {:?}, β² = {}", g.multipliers, beta * beta);
        let tol = if rtol < 1e-11 { 1e-12 } else { 1e-9 };
        assert!((lead[0] - beta * beta).abs() < tol && lead[1] == 0.0, "{lead:?} vs {}", beta * beta);
        assert!(g.multipliers[1][0].hypot(g.multipliers[1][1]) < tol, "{:?}", g.multipliers[1]);
    }
}
