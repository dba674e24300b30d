//! Units never change an LCP verdict: the same problem multiplied by powers of ten (as a whole,
//! or only `M`, or row by row) gets the same status and the correspondingly scaled solution, and
//! Lemke agrees with exhaustive enumeration on every instance.

use contactlab::lcp::classes::is_p_matrix;
use contactlab::lcp::enumerate::{enumerate, EnumSettings};
use contactlab::lcp::verify::componentwise_error;
use contactlab::lcp::{solve, Lcp, LcpSettings, LcpStatus};
use nalgebra::{DMatrix, DVector};
use proptest::prelude::*;

fn lcp(m: DMatrix<f64>, q: DVector<f64>) -> Lcp {
    Lcp::new(m, q).unwrap()
}

#[test]
fn the_reported_cases() {
    // M = 1e-12·I, q = (−1, −1): a P-matrix LCP, z = (1e12, 1e12).
    let m = DMatrix::identity(2, 2) * 1e-12;
    let s = solve(&lcp(m.clone(), DVector::from_vec(vec![-1.0, -1.0])), &LcpSettings::default()).unwrap();
    assert_eq!(s.status, LcpStatus::Solved, "{s:?}");
    assert!((s.z[0] - 1e12).abs() < 1e-3 && (s.z[1] - 1e12).abs() < 1e-3);
    assert!(is_p_matrix(&m).unwrap().holds);
    assert!(is_p_matrix(&(DMatrix::identity(3, 3) * 1e-308)).unwrap().holds);
    // Entries near the top of the f64 range: no overflow in the residual.
    let big = lcp(DMatrix::from_row_slice(2, 2, &[1e308, 0.0, 0.0, 1e308]), DVector::from_vec(vec![-1e308, -1e307]));
    let s = solve(&big, &LcpSettings::default()).unwrap();
    assert_eq!(s.status, LcpStatus::Solved);
    assert!(s.residual.is_finite() && s.residual < 1e-12, "{}", s.residual);
    assert!((s.z[0] - 1.0).abs() < 1e-12 && (s.z[1] - 0.1).abs() < 1e-12, "{:?}", s.z);
}

fn instance() -> impl Strategy<Value = (DMatrix<f64>, DVector<f64>, bool)> {
    (2usize..6).prop_flat_map(|n| {
        (prop::collection::vec(-1.0f64..1.0, n * n), prop::collection::vec(-1.0f64..1.0, n), any::<bool>()).prop_map(
            move |(a, q, pd)| {
                let a = DMatrix::from_row_slice(n, n, &a);
                // Half positive definite (a unique solution), half general (none, one or several).
                let m = if pd { &a * a.transpose() + DMatrix::identity(n, n) * 0.1 } else { a };
                (m, DVector::from_vec(q), pd)
            },
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 150, ..ProptestConfig::default() })]

    #[test]
    fn verdicts_do_not_depend_on_units((m, q, unique) in instance(), k in -12i32..=12, km in -12i32..=12, row in 0usize..5, kr in -8i32..=8) {
        let n = q.len();
        let base = solve(&lcp(m.clone(), q.clone()), &LcpSettings::default()).unwrap();
        // (M, q) → 10^k (M, q): same z.
        let c = 10f64.powi(k);
        let s1 = solve(&lcp(&m * c, &q * c), &LcpSettings::default()).unwrap();
        prop_assert_eq!(s1.status, base.status);
        // M → 10^km M: z → 10^-km z.
        let cm = 10f64.powi(km);
        let s2 = solve(&lcp(&m * cm, q.clone()), &LcpSettings::default()).unwrap();
        prop_assert_eq!(s2.status, base.status);
        // Row `row` of (M, q) → 10^kr: same z.
        let mut m3 = m.clone();
        let mut q3 = q.clone();
        let r = row % n;
        let cr = 10f64.powi(kr);
        for j in 0..n { m3[(r, j)] *= cr; }
        q3[r] *= cr;
        let s3 = solve(&lcp(m3, q3), &LcpSettings::default()).unwrap();
        prop_assert_eq!(s3.status, base.status);
        if base.status == LcpStatus::Solved {
            prop_assert!(s1.residual <= 1e-9 && s2.residual <= 1e-9 && s3.residual <= 1e-9);
            // The independent componentwise check on the raw data agrees.
            let e = componentwise_error(&lcp(m.clone(), q.clone()), &base.z);
            prop_assert!(e <= 1e-9, "componentwise error {e:e}");
            if unique {
                // Positive definite M: the solution is unique, so the scaled runs find it.
                let scale = base.z.amax().max(1e-300);
                prop_assert!((&s1.z - &base.z).amax() <= 1e-8 * scale, "{} vs {}", s1.z, base.z);
                prop_assert!((&s2.z * cm - &base.z).amax() <= 1e-8 * scale, "{} vs {}", s2.z * cm, base.z);
                prop_assert!((&s3.z - &base.z).amax() <= 1e-8 * scale, "{} vs {}", s3.z, base.z);
            }
        }
        // Lemke agrees with enumeration on the scaled instance: a solution exists or not.
        let e = enumerate(&lcp(&m * cm, q.clone()), &EnumSettings::default()).unwrap();
        if e.complete {
            // A conclusion, not a failure: solved exactly when pieces exist, else a no-solution.
            prop_assert!(matches!(s2.status, LcpStatus::Solved | LcpStatus::NoSolution), "{:?}", s2.status);
            prop_assert_eq!(!e.pieces.is_empty(), s2.status == LcpStatus::Solved);
        }
    }
}
