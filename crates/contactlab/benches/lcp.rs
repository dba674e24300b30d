//! Lemke's method on M = A Aᵀ + I, q ~ N(0, 1): a fresh problem every iteration from a fixed seed;
//! and equilibration's share of a solve on well- and badly scaled problems.
//! Targets on the 2-core reference machine (issue #2): n = 10 ≤ 8 µs, n = 50 ≤ 60 µs, n = 200 ≤ 2 ms.

use contactlab::lcp::scaling::{Equilibration, Scaled};
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

/// Equilibration's share of a solve (issue #20: at most 10 % at n = 10 on well-scaled data): the
/// equilibration alone and the whole solve, on a well-scaled problem (the random problem already
/// equilibrated, so that one pass decides) and on a badly scaled one (its rows and columns
/// multiplied by 10^k, k in −8..8).
fn bench_equilibration(c: &mut Criterion) {
    let mut group = c.benchmark_group("equilibration");
    let settings = LcpSettings::default();
    for n in [10usize, 50] {
        let mut rng = StdRng::seed_from_u64(7);
        let raw = random_lcp(&mut rng, n);
        let well = Scaled::new(&raw).lcp;
        let k = |i: usize| 10f64.powi((i * 7 % 17) as i32 - 8);
        let bad = Lcp {
            m: DMatrix::from_fn(n, n, |i, j| raw.m[(i, j)] * k(i) * k(j + 3)),
            q: DVector::from_fn(n, |i, _| raw.q[i] * k(i)),
        };
        for (name, lcp) in [("well", &well), ("bad", &bad)] {
            group.bench_function(format!("equilibrate_{name}/{n}"), |b| b.iter(|| Equilibration::of(lcp)));
            group.bench_function(format!("solve_{name}/{n}"), |b| b.iter(|| lemke::solve(lcp, &settings).unwrap()));
        }
    }
    group.finish();
}

criterion_group!(benches, bench_lemke, bench_equilibration);
criterion_main!(benches);
