//! P4 (Pang & Trinkle) reference values and cross-checks between independent routes:
//! Theorem 4 against LCP enumeration, the LP of system (7) against a second-order-cone solve,
//! Theorem 1 against the strong-stability test, monotonicity of WS(μ).

use contactlab::conic::{find_in_cone, Cone, ConicStatus};
use contactlab::fixture::stability::{
    classify, frictionless_stability, strong_stability, strong_stability_by_pieces, weak_stability,
};
use contactlab::fixture::theorem4::{proposition5_load, theorem4};
use contactlab::fixture::{Fixture, FrictionLaw};
use contactlab::paper_configs::p4::{disk, disk_flipped, incline, r_s, PUBLISHED_B, PUBLISHED_LOAD};
use nalgebra::{DMatrix, DVector};
use proptest::prelude::*;

fn consistent_counts(mu: f64) -> Vec<usize> {
    theorem4(&disk(mu, mu, [0.0; 3]), &|_, _| {}).unwrap().per_sigma.iter().map(|p| p.2).collect()
}

#[test]
fn example1_constants() {
    let (r, s) = r_s();
    assert!((r - 0.9239).abs() < 5e-5 && (s - 0.3827).abs() < 5e-5);
    assert!((r / (1.0 - s) - 1.4966).abs() < 5e-5);
}

#[test]
fn theorem4_counts() {
    // P4: all 60 systems inconsistent for μ ≤ 1.4966; 7 of 15 consistent for σ_t = (1, 1) at 0.1 + r/(1−s).
    for mu in [0.0, 0.5, 1.4966] {
        assert_eq!(consistent_counts(mu).iter().sum::<usize>(), 0, "μ = {mu}");
    }
    let (r, s) = r_s();
    assert_eq!(consistent_counts(0.1 + r / (1.0 - s))[0], 7);
}

#[test]
fn published_b_needs_the_opposite_moment_sign() {
    let pb = DVector::from_row_slice(&PUBLISHED_B);
    let flipped = disk_flipped(1.5, 1.5, PUBLISHED_LOAD).b_vector();
    assert!((flipped - &pb).amax() < 5e-6);
    let printed = disk(1.5, 1.5, PUBLISHED_LOAD).b_vector();
    assert!((printed - &pb).amax() > 1.0);
}

#[test]
fn published_proposition5_load_is_weakly_not_strongly_stable() {
    let (r, s) = r_s();
    let mu = 0.01 + r / (1.0 - s);
    let c = classify(&disk_flipped(mu, mu, PUBLISHED_LOAD)).unwrap();
    assert_eq!(c.classification.as_str(), "weakly-stable-not-strongly");
    // P4: the zero intensity is a dynamic intensity with a = b ≠ 0.
    let w = c.nonzero_acceleration_intensity.unwrap();
    assert!(w.qddot.norm() > 0.5);
}

#[test]
fn every_consistent_system_yields_a_weakly_not_strongly_stable_load() {
    // Proposition 5, checked by the independent LCP-enumeration test for every consistent system.
    let (r, s) = r_s();
    let f = disk(0.1 + r / (1.0 - s), 0.1 + r / (1.0 - s), [0.0; 3]);
    let t = theorem4(&f, &|_, _| {}).unwrap();
    let mut n = 0;
    for sys in &t.consistent {
        let g = proposition5_load(&f, sys);
        let c = classify(&f.with_load(g)).unwrap();
        assert_eq!(
            c.classification.as_str(),
            "weakly-stable-not-strongly",
            "γ = {:?}, σ = {:?}",
            sys.gamma,
            sys.sigma_t
        );
        n += 1;
    }
    assert!(n > 0);
}

#[test]
fn example2_critical_mu_is_tan_theta() {
    let th = 30f64.to_radians();
    let c = classify(&incline(th, 0.0, 0.0, [0.0, -1.0, 0.0])).unwrap();
    let mu = c.critical_mu.unwrap();
    assert!((mu - th.tan()).abs() < 1e-9 * th.tan(), "{mu}");
    // The value is proved weakly stable, inside an enclosure proved both ways.
    let [lo, hi] = c.critical_mu_enclosure.unwrap();
    assert!(c.critical_mu_proof.is_proved() && lo < mu && mu <= hi);
}

#[test]
fn example1_force_closure_mu_is_r_over_1_minus_s() {
    // Case 1: WS(μ) = ℝ³ from the largest critical μ over ±eᵢ, which is r/(1 − s). Each
    // critical μ is the smallest μ proved stable, so never below it. Toward it the balancing
    // forces grow as 1/(μ − μ̄) (two contacts wedge the disk): the proofs closed only within
    // 4e-7 of it (1e7 times the load at 1e-7 above) until the wedge's witness, a squeeze along
    // the pair's self-stress, now 3e-14.
    let (r, s) = r_s();
    let exact = r / (1.0 - s);
    let fc = contactlab::reproduce::p4::force_closure_mu().unwrap();
    println!("force closure {fc:.17} vs {exact:.17}: {:.1e}", (fc - exact) / exact);
    assert!(fc >= exact * (1.0 - 1e-12) && fc - exact < 1e-12 * exact, "{fc} vs {exact}");
}

/// System (7) for a planar fixture as a second-order-cone problem: (μᵢ c_in, c_it) ∈ SOC(2).
fn weak_by_socp(f: &Fixture) -> bool {
    let nc = f.nc();
    // x = [c_n (nc, ≥ 0); per contact (y_i, c_it) ∈ SOC(2)], y_i = μ_i c_in.
    let nx = 3 * nc;
    let mut a = DMatrix::zeros(3 + nc, nx);
    let mut b = DVector::zeros(3 + nc);
    for r in 0..3 {
        for i in 0..nc {
            a[(r, i)] = f.wn[(r, i)];
            a[(r, nc + 2 * i + 1)] = f.wt[(r, i)];
        }
        b[r] = -f.load[r];
    }
    for i in 0..nc {
        a[(3 + i, nc + 2 * i)] = 1.0;
        a[(3 + i, i)] = -f.mu[i];
    }
    let mut cones = vec![Cone::Nonnegative(nc)];
    cones.extend(std::iter::repeat_n(Cone::SecondOrder(2), nc));
    let s = find_in_cone(&a, &b, &cones).unwrap();
    assert!(matches!(s.status, ConicStatus::Solved | ConicStatus::Infeasible), "{:?}", s.status);
    s.status == ConicStatus::Solved
}

fn load() -> impl Strategy<Value = [f64; 3]> {
    (-1.0f64..1.0, -1.0f64..1.0, -1.0f64..1.0).prop_map(|(a, b, c)| [a, b, c])
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, .. ProptestConfig::default() })]

    #[test]
    fn lp_and_cone_agree_in_the_plane(g in load(), mu1 in 0.0f64..2.5, mu2 in 0.0f64..2.5) {
        let f = disk(mu1, mu2, g);
        let lp = weak_stability(&f).unwrap().holds;
        // Skip loads numerically on the boundary of WS(μ), where either answer is right.
        let inside = weak_stability(&disk(mu1 * 0.999, mu2 * 0.999, g)).unwrap().holds;
        let outside = !weak_stability(&disk(mu1 * 1.001 + 1e-6, mu2 * 1.001 + 1e-6, g)).unwrap().holds;
        if inside || outside {
            prop_assert_eq!(lp, weak_by_socp(&f));
        }
    }

    #[test]
    fn frictionless_stable_implies_strongly_stable(c in (0.0f64..2.0, 0.0f64..2.0), mu1 in 0.0f64..3.0, mu2 in 0.0f64..3.0) {
        // Theorem 1: a load in WS(0) = −pos(W_n) is strongly stable for every μ.
        let base = disk(mu1, mu2, [0.0; 3]);
        let g = -(&base.wn * DVector::from_vec(vec![c.0, c.1]));
        let f = base.with_load(g);
        prop_assert!(frictionless_stability(&f).unwrap().holds);
        let c = classify(&f).unwrap();
        prop_assert_eq!(c.strongly_stable, Some(true));
    }

    #[test]
    fn ws_grows_with_mu(g in load(), mu1 in 0.0f64..2.0, mu2 in 0.0f64..2.0, k in 1.0f64..3.0) {
        if weak_stability(&disk(mu1, mu2, g)).unwrap().holds {
            prop_assert!(weak_stability(&disk(mu1 * k, mu2 * k, g)).unwrap().holds);
        }
    }

    #[test]
    fn theorem4_inconsistent_means_weak_equals_strong(g in load(), mu in 0.0f64..1.49) {
        // For μ ≤ 1.4966 all Theorem 4 systems are inconsistent, so every weakly stable load must
        // pass the (independent) LCP-enumeration strong-stability test.
        let f = disk(mu, mu, g);
        if weak_stability(&f).unwrap().holds {
            let s = strong_stability(&f).unwrap();
            prop_assert!(s.all_zero_acceleration && s.intensity_exists);
        }
    }

    #[test]
    fn search_and_piece_enumeration_agree_on_strong_stability(g in load(), mu1 in 0.0f64..2.5, mu2 in 0.0f64..2.5) {
        // Branch and bound over LCP (25) against optimising over every enumerated piece.
        let mut f = disk(mu1, mu2, g);
        f.friction = FrictionLaw::Pyramid;
        let a = strong_stability(&f).unwrap();
        let b = strong_stability_by_pieces(&f).unwrap();
        prop_assert_eq!(a.intensity_exists, b.intensity_exists);
        prop_assert_eq!(a.all_zero_acceleration, b.all_zero_acceleration);
        let (va, vb) = (a.max_virtual_work, b.max_virtual_work);
        prop_assert!(va == vb || (va - vb).abs() <= 1e-7 * (1.0 + vb.abs()), "{} vs {}", va, vb);
    }

    #[test]
    fn proposition1_virtual_work_agrees(g in load(), mu in 0.0f64..2.5) {
        let c = classify(&disk(mu, mu, g)).unwrap();
        prop_assert_eq!(c.proposition1_agrees, Some(true));
    }
}

#[test]
fn box_on_four_pyramid_contacts() {
    // The shipped 3-D example: 3 N sideways on a 2 kg box, so sliding starts below μ = 3/(2·9.81).
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/fixture/box-3d-pyramid.toml");
    let f = contactlab::fixture::model::read(&path).unwrap();
    let c = classify(&f).unwrap();
    assert_eq!(c.classification.as_str(), "strongly-stable");
    assert!((c.critical_mu.unwrap() - 3.0 / 19.62).abs() < 1e-9 * 3.0 / 19.62, "{:?}", c.critical_mu);
    // Just below the critical μ: no equilibrium, and the load is strongly unstable.
    let below = f.with_mu(DVector::from_element(4, 0.99 * 3.0 / 19.62));
    assert_eq!(classify(&below).unwrap().classification.as_str(), "strongly-unstable");
    // Statically indeterminate (four contacts, one body) but every dynamic intensity is at rest,
    // also when the load is scaled by 10^±8.
    for k in [-8, 8] {
        let s = strong_stability(&f.with_load(&f.load * 10f64.powi(k))).unwrap();
        assert!(s.all_zero_acceleration && s.intensity_exists, "10^{k}");
    }
    // Theorem 4: all 2^8 · 4095 systems inconsistent, so SS(μ) = WS(μ).
    let t = theorem4(&f, &|_, _| {}).unwrap();
    assert_eq!((t.systems, t.consistent.len(), t.ss_equals_ws), (256 * 4095, 0, Some(true)));
}

#[test]
fn warm_started_mu_sweeps_give_the_cold_verdicts_with_fewer_lps() {
    use contactlab::fixture::sweep::mu_sweep_with;
    let scales: Vec<f64> = (0..21).map(|i| 0.1 * i as f64).collect();
    for name in ["disk-mu1.8-0.5.toml", "incline-example2.toml"] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/fixture").join(name);
        let f = contactlab::fixture::model::read(&path).unwrap();
        let (warm, cold) = (mu_sweep_with(&f, &scales, true).unwrap(), mu_sweep_with(&f, &scales, false).unwrap());
        for (a, b) in warm.points.iter().zip(&cold.points) {
            assert_eq!(
                (a.classification, a.weakly_stable, a.strongly_stable),
                (b.classification, b.weakly_stable, b.strongly_stable),
                "{name} at scale {}",
                a.scale
            );
        }
        assert_eq!(warm.transitions.len(), 1, "{name}");
        for (a, b) in warm.transitions.iter().zip(&cold.transitions) {
            assert_eq!((a.from, a.to, a.scale), (b.from, b.to, b.scale), "{name}");
        }
        assert!(warm.lps < cold.lps, "{name}: {} LPs warm, {} cold", warm.lps, cold.lps);
    }
}
