//! P4 fixture analyses on the planar two-contact disk (Example 1). Targets (issue #3):
//! `classify` of one load including strong stability ≤ 1 ms; the Theorem 4 test ≤ 50 ms;
//! a batch of 1000 loads spread over both cores. And the shipped 3-D box on four pyramid contacts
//! (LCP (25) with n = 20, a million Theorem 4 systems).

use contactlab::fixture::stability::{classify, strong_stability, strong_stability_by_pieces, weak_stability};
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
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
