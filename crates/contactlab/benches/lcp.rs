//! Lemke's method on M = A Aᵀ + I, q ~ N(0, 1): a fresh problem every iteration from a fixed seed.
//! Targets on the 2-core reference machine (issue #2): n = 10 ≤ 8 µs, n = 50 ≤ 60 µs, n = 200 ≤ 2 ms.

use contactlab::lcp::{lemke, Lcp, LcpSettings, LcpStatus};
use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion};
use nalgebra::{DMatrix, DVector};
use rand::rngs::StdRng;
use rand::SeedableRng;
use rand_distr::{Distribution, StandardNormal};

fn random_lcp(rng: &mut StdRng, n: usize) -> Lcp {
    let a = DMatrix::from_fn(n, n, |_, _| -> f64 { StandardNormal.sample(rng) });
    let m = &a * a.transpose() + DMatrix::identity(n, n);
    let q = DVector::from_fn(n, |_, _| -> f64 { StandardNormal.sample(rng) });
    Lcp { m, q }
}

fn bench_lemke(c: &mut Criterion) {
    let mut group = c.benchmark_group("lemke_pd");
    let settings = LcpSettings::default();
    for n in [10usize, 50, 200] {
        let mut rng = StdRng::seed_from_u64(2026);
        group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, &n| {
            b.iter_batched(
                || random_lcp(&mut rng, n),
                |lcp| {
                    let s = lemke::solve(&lcp, &settings).expect("valid problem");
                    assert_eq!(s.status, LcpStatus::Solved);
                    s
                },
                BatchSize::SmallInput,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, bench_lemke);
criterion_main!(benches);
