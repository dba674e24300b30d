//! Tiny LPs: our dense simplex against Clarabel on the same problem, to justify keeping the
//! simplex for LPs solved thousands of times (enumeration nodes, matrix-class tests, sweeps);
//! and LCP enumeration on random P-matrix problems.

use contactlab::conic::{Cone, ConicProgram};
use contactlab::lcp::enumerate::{enumerate, EnumSettings};
use contactlab::lcp::Lcp;
use contactlab::lp::{DenseLp, LpSettings};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use nalgebra::{DMatrix, DVector};
use rand::rngs::StdRng;
use rand::SeedableRng;
use rand_distr::{Distribution, StandardNormal};

fn normal(rng: &mut StdRng) -> f64 {
    StandardNormal.sample(rng)
}

/// min cᵀx s.t. A x ≤ b, x ≥ 0 with a random feasible A (m × n), b > 0, c < 0 (bounded by A ≥ 0 rows).
fn random_lp(rng: &mut StdRng, m: usize, n: usize) -> DenseLp {
    let a = DMatrix::from_fn(m, n, |_, _| normal(rng).abs() + 0.1);
    let b = DVector::from_fn(m, |_, _| 1.0 + normal(rng).abs());
    let c = DVector::from_fn(n, |_, _| -(normal(rng).abs() + 0.1));
    DenseLp { c, a_eq: DMatrix::zeros(0, n), b_eq: DVector::zeros(0), a_ub: a, b_ub: b }
}

fn as_conic(lp: &DenseLp) -> ConicProgram {
    let (m, n) = lp.a_ub.shape();
    let mut a = DMatrix::zeros(m + n, n);
    a.view_mut((0, 0), (m, n)).copy_from(&lp.a_ub);
    a.view_mut((m, 0), (n, n)).copy_from(&(-DMatrix::<f64>::identity(n, n)));
    let mut b = DVector::zeros(m + n);
    b.rows_mut(0, m).copy_from(&lp.b_ub);
    ConicProgram { c: lp.c.clone(), a, b, cones: vec![Cone::Nonnegative(m + n)] }
}

fn bench_tiny_lp(c: &mut Criterion) {
    let mut group = c.benchmark_group("tiny_lp");
    for (m, n) in [(4usize, 6usize), (12, 16)] {
        let mut rng = StdRng::seed_from_u64(7);
        let lp = random_lp(&mut rng, m, n);
        let conic = as_conic(&lp);
        let a = lp.solve(&LpSettings::default()).unwrap();
        let b = conic.solve().unwrap();
        assert!((a.objective - b.objective).abs() < 1e-6 * (1.0 + a.objective.abs()));
        group.bench_with_input(BenchmarkId::new("dense_simplex", format!("{m}x{n}")), &lp, |bch, lp| {
            bch.iter(|| lp.solve(&LpSettings::default()).unwrap())
        });
        group.bench_with_input(BenchmarkId::new("clarabel", format!("{m}x{n}")), &conic, |bch, p| {
            bch.iter(|| p.solve().unwrap())
        });
    }
    group.finish();
}

fn bench_enumeration(c: &mut Criterion) {
    let mut group = c.benchmark_group("lcp_enumerate_p_matrix");
    group.sample_size(10);
    for n in [6usize, 10, 14] {
        let mut rng = StdRng::seed_from_u64(11);
        let a = DMatrix::from_fn(n, n, |_, _| normal(&mut rng));
        let m = &a * a.transpose() + DMatrix::identity(n, n);
        let q = DVector::from_fn(n, |_, _| normal(&mut rng));
        let lcp = Lcp { m, q };
        group.bench_with_input(BenchmarkId::from_parameter(n), &lcp, |b, lcp| {
            b.iter(|| enumerate(lcp, &EnumSettings::default()).unwrap())
        });
    }
    group.finish();
}

criterion_group!(benches, bench_tiny_lp, bench_enumeration);
criterion_main!(benches);
