//! Property tests of the LCP core: on random P-matrix problems (unique solution) Lemke and
//! enumeration agree; solutions are invariant under scaling; principal pivoting preserves the
//! P-matrix class and maps solutions to solutions.

use contactlab::lcp::classes::is_p_matrix;
use contactlab::lcp::enumerate::{enumerate, EnumSettings};
use contactlab::lcp::pivot::principal_pivot;
use contactlab::lcp::{lemke, solve, Lcp, LcpSettings, LcpStatus};
use nalgebra::{DMatrix, DVector};
use proptest::prelude::*;

/// A random P-matrix: positive definite symmetric part plus a skew-symmetric part
/// (xᵀMx = xᵀSx > 0, so every principal submatrix is nonsingular with positive determinant).
fn p_matrix_lcp() -> impl Strategy<Value = Lcp> {
    (1usize..=6).prop_flat_map(|n| {
        (
            proptest::collection::vec(-2.0f64..2.0, n * n),
            proptest::collection::vec(-2.0f64..2.0, n * n),
            proptest::collection::vec(-3.0f64..3.0, n),
            0.05f64..1.0,
        )
            .prop_map(move |(a, k, q, eps)| {
                let a = DMatrix::from_row_slice(n, n, &a);
                let k = DMatrix::from_row_slice(n, n, &k);
                let skew = &k - k.transpose();
                let m = &a * a.transpose() + DMatrix::identity(n, n) * eps + skew;
                Lcp::new(m, DVector::from_vec(q)).unwrap()
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, .. ProptestConfig::default() })]

    #[test]
    fn lemke_and_enumeration_agree_on_p_matrices(lcp in p_matrix_lcp()) {
        prop_assert!(is_p_matrix(&lcp.m).unwrap().holds);
        let s = lemke::solve(&lcp, &LcpSettings::default()).unwrap();
        prop_assert_eq!(s.status, LcpStatus::Solved);
        prop_assert!(s.residual <= 1e-9);
        let e = enumerate(&lcp, &EnumSettings::default()).unwrap();
        prop_assert!(e.complete);
        prop_assert_eq!(e.pieces.len(), 1);
        prop_assert!(e.bounded);
        let diff = (&e.pieces[0].z - &s.z).amax();
        prop_assert!(diff <= 1e-7 * (1.0 + s.z.amax()), "diff {}", diff);
    }

    #[test]
    fn solution_scales_with_data(lcp in p_matrix_lcp(), lambda in 0.01f64..100.0) {
        // (λM, λq) has the same solution; (M, λq) has the solution scaled by λ.
        let s = solve(&lcp, &LcpSettings::default()).unwrap();
        let scaled = Lcp::new(&lcp.m * lambda, &lcp.q * lambda).unwrap();
        let s2 = solve(&scaled, &LcpSettings::default()).unwrap();
        prop_assert!((&s2.z - &s.z).amax() <= 1e-7 * (1.0 + s.z.amax()));
        let s3 = solve(&Lcp::new(lcp.m.clone(), &lcp.q * lambda).unwrap(), &LcpSettings::default()).unwrap();
        prop_assert!((&s3.z - &s.z * lambda).amax() <= 1e-7 * (1.0 + lambda * s.z.amax()));
    }

    #[test]
    fn principal_pivot_keeps_p_class_and_maps_solution(lcp in p_matrix_lcp(), mask in 0usize..64) {
        let n = lcp.n();
        let alpha: Vec<usize> = (0..n).filter(|&i| mask & (1 << i) != 0).collect();
        let p = principal_pivot(&lcp, &alpha).unwrap();
        prop_assert!(is_p_matrix(&p.m).unwrap().holds);
        let s = solve(&lcp, &LcpSettings::default()).unwrap();
        let mut zh = s.z.clone();
        for &i in &alpha { zh[i] = s.w[i]; }
        prop_assert!(p.residual(&zh) <= 1e-8);
    }

    #[test]
    fn returned_points_are_complementary(m in proptest::collection::vec(-3.0f64..3.0, 16), q in proptest::collection::vec(-3.0f64..3.0, 4)) {
        // Arbitrary (not P) matrices: whatever the status, a "solved" point is a true solution,
        // and "no-solution" for n = 4 is always proved.
        let lcp = Lcp::new(DMatrix::from_row_slice(4, 4, &m), DVector::from_vec(q)).unwrap();
        let s = solve(&lcp, &LcpSettings::default()).unwrap();
        match s.status {
            LcpStatus::Solved => prop_assert!(lcp.residual(&s.z) <= 1e-9),
            LcpStatus::NoSolution => {
                prop_assert!(s.proof.is_proved(), "{:?}", s.proof);
                let e = enumerate(&lcp, &EnumSettings::default()).unwrap();
                prop_assert!(e.pieces.is_empty());
            }
            other => prop_assert!(false, "status {:?}", other),
        }
    }
}
