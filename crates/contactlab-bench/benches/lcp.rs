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

/// Warm starts (issue #20): Moreau–Jean time-stepping of a box on five floor points (contact LCP
/// n = 20 at every step), 10⁴ steps of 0.1 ms (it slides 0.21 s, then sticks), each step's LCP
/// warm-started from the one before, against the same run solved cold. The pivot counts of
/// both runs are printed once (the goal: at least 5× fewer warm).
fn bench_warm_start(c: &mut Criterion) {
    use contactlab::lcp::warm::WarmStart;
    use contactlab::mechanics::planar_body::{BodyPoint, PlanarBody};
    use contactlab::mechanics::ContactLaw;
    use contactlab::timestep::run_warm;
    use nalgebra::{dvector, Vector2};

    let law = ContactLaw { mu: 0.4, restitution: 0.0 };
    let points = (0..5).map(|i| BodyPoint { r: Vector2::new(-0.4 + 0.2 * i as f64, -0.25), phi: 0.0, law }).collect();
    let body = PlanarBody { mass: 2.0, rho: 0.3, points, force: Vector2::new(3.0, -2.0 * 9.81), torque: 0.0 };
    let (q0, v0) = (DVector::zeros(3), dvector![1.0, 0.0, 0.0]);
    let run = |warm: &mut WarmStart| run_warm(&body, 0.0, &q0, &v0, 1e-4, 10_000, 10_000, warm).expect("runs");
    let (mut w, mut k) = (WarmStart::new(), WarmStart::cold());
    run(&mut w);
    run(&mut k);
    eprintln!(
        "warm_start: 10^4 LCPs (n = 20): warm {} pivots ({} reused, {} cold), cold {} pivots: {:.0}x fewer",
        w.stats.pivots,
        w.stats.reused,
        w.stats.cold,
        k.stats.pivots,
        k.stats.pivots as f64 / w.stats.pivots.max(1) as f64
    );
    let mut group = c.benchmark_group("warm_start");
    group.sample_size(10);
    group.bench_function("timestep_box_1e4_steps_warm", |b| b.iter(|| run(&mut WarmStart::new())));
    group.bench_function("timestep_box_1e4_steps_cold", |b| b.iter(|| run(&mut WarmStart::cold())));
    group.finish();
}

/// The proof of "no solution" by enumeration at its largest size (issue #23 part 2): n = 12, all
/// 2¹² complementary pieces proved empty, each by an LP whose Farkas certificate is checked in
/// interval arithmetic (M = −I, q = −1: every piece is empty).
fn bench_no_piece_proof(c: &mut Criterion) {
    use contactlab::lcp::proof::{prove_no_piece, PIECE_PROOF_MAX};
    let n = PIECE_PROOF_MAX;
    let lcp = Lcp::new(-DMatrix::identity(n, n), DVector::from_element(n, -1.0)).expect("valid");
    let mut group = c.benchmark_group("lcp_proof");
    group.sample_size(10);
    group.bench_function("prove_no_piece_n12", |b| b.iter(|| assert_eq!(prove_no_piece(&lcp), Ok(1 << n))));
    group.finish();
}

criterion_group!(benches, bench_lemke, bench_equilibration, bench_warm_start, bench_no_piece_proof);
criterion_main!(benches);
