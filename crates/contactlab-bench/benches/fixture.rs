//! P4 fixture analyses on the planar two-contact disk (Example 1). Targets (issue #3):
//! `classify` of one load including strong stability ≤ 1 ms; the Theorem 4 test ≤ 50 ms;
//! a batch of 1000 loads spread over both cores. And the shipped 3-D box on four pyramid contacts
//! (LCP (25) with n = 20, a million Theorem 4 systems), and its μ sweep warm against cold.

use contactlab::fixture::stability::{classify, strong_stability, strong_stability_by_pieces, weak_stability};
use contactlab::fixture::sweep::mu_sweep_with;
use contactlab::fixture::theorem4::theorem4;
use contactlab::paper_configs::p4::{disk, sphere_loads};
use criterion::{criterion_group, criterion_main, Criterion};
use rayon::prelude::*;

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("fixture_disk");
    let f = disk(1.8, 0.5, [-0.45, 1.0, 0.0]);
    g.bench_function("weak_stability", |b| b.iter(|| weak_stability(&f).unwrap()));
    g.bench_function("strong_stability", |b| b.iter(|| strong_stability(&f).unwrap()));
    g.bench_function("strong_stability_by_pieces", |b| b.iter(|| strong_stability_by_pieces(&f).unwrap()));
    g.bench_function("classify", |b| b.iter(|| classify(&f).unwrap()));
    let f4 = disk(1.5966, 1.5966, [0.0; 3]);
    g.bench_function("theorem4", |b| b.iter(|| theorem4(&f4, &|_, _| {}).unwrap()));
    let loads = sphere_loads(1000);
    g.sample_size(10);
    g.bench_function("classify_1000_loads_parallel", |b| {
        b.iter(|| {
            loads
                .par_iter()
                .map(|l| classify(&f.with_load(nalgebra::DVector::from_row_slice(l))).unwrap().weakly_stable)
                .filter(|w| *w)
                .count()
        })
    });
    g.finish();
    let mut g = c.benchmark_group("fixture_box3d");
    g.sample_size(10);
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/fixture/box-3d-pyramid.toml");
    let b3 = contactlab::fixture::model::read(&path).unwrap();
    g.bench_function("strong_stability", |b| b.iter(|| strong_stability(&b3).unwrap()));
    g.bench_function("classify", |b| b.iter(|| classify(&b3).unwrap()));
    g.bench_function("theorem4", |b| b.iter(|| theorem4(&b3, &|_, _| {}).unwrap()));
    // μ sweeps warm-started along the grid and the bisection (issue #20) against cold searches:
    // 21 scales in [0, 2] and the bisection of the one transition; LPs printed once.
    let scales: Vec<f64> = (0..21).map(|i| 0.1 * i as f64).collect();
    for (name, f) in [("box3d", &b3), ("disk", &f)] {
        let (w, k) = (mu_sweep_with(f, &scales, true).unwrap(), mu_sweep_with(f, &scales, false).unwrap());
        eprintln!("mu_sweep {name}: {} LPs warm, {} cold ({:.2}x fewer)", w.lps, k.lps, k.lps as f64 / w.lps as f64);
    }
    g.bench_function("mu_sweep_21_warm", |b| b.iter(|| mu_sweep_with(&b3, &scales, true).unwrap()));
    g.bench_function("mu_sweep_21_cold", |b| b.iter(|| mu_sweep_with(&b3, &scales, false).unwrap()));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
