//! Lemke's method through a fixed set of problems M = A Aᵀ + I, q ~ N(0, 1), solved in turn
//! (the harness of scripts/drake_lcp.py, in process): `lemke_set N PASSES`.
use contactlab::lcp::{lemke, Lcp, LcpSettings, LcpStatus};
use nalgebra::{DMatrix, DVector};
use rand::rngs::StdRng;
use rand::SeedableRng;
use rand_distr::{Distribution, StandardNormal};

fn main() {
    let args: Vec<usize> = std::env::args().skip(1).map(|a| a.parse().expect("a number")).collect();
    let (n, passes) = (args.first().copied().unwrap_or(10), args.get(1).copied().unwrap_or(1000));
    let mut rng = StdRng::seed_from_u64(2026);
    let set: Vec<Lcp> = (0..200)
        .map(|_| {
            let a = DMatrix::from_fn(n, n, |_, _| -> f64 { StandardNormal.sample(&mut rng) });
            let m = &a * a.transpose() + DMatrix::identity(n, n);
            let q = DVector::from_fn(n, |_, _| -> f64 { StandardNormal.sample(&mut rng) });
            Lcp { m, q }
        })
        .collect();
    let settings = LcpSettings::default();
    let t = std::time::Instant::now();
    let mut pivots = 0;
    for _ in 0..passes {
        for lcp in &set {
            let s = lemke::solve(lcp, &settings).expect("valid problem");
            assert_eq!(s.status, LcpStatus::Solved);
            pivots += s.pivots;
        }
    }
    let per = t.elapsed().as_secs_f64() / (passes * set.len()) as f64;
    println!(
        "n = {n}: {:.3} µs per solve, {:.2} pivots per solve",
        per * 1e6,
        pivots as f64 / (passes * set.len()) as f64
    );
}
