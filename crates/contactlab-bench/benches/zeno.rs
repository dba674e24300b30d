//! P3: the Zeno periodic orbit of the PD-controlled double pendulum at e = 0.5 (target ≤ 50 ms)
//! and the continuation of the branch in e up to its end (target ≤ 5 s).

use contactlab::hybrid::lagrangian::Lagrangian;
use contactlab::mechanics::double_pendulum::DoublePendulumStop;
use contactlab::zeno::{continuation_in_e, orbit, settle, ZenoSettings};
use criterion::{criterion_group, criterion_main, Criterion};
use nalgebra::{dvector, DVector};

fn bench(c: &mut Criterion) {
    let s = ZenoSettings::default();
    let (q0, v0) = (dvector![-0.08, 0.0], DVector::zeros(2));
    let lag0 = Lagrangian::new(DoublePendulumStop::paper_controlled(0.0));
    let y0 = settle(&lag0, &q0, &v0, 300, 1e-7, &s).unwrap();
    let lag5 = Lagrangian::new(DoublePendulumStop::paper_controlled(0.5));
    let mut g = c.benchmark_group("zeno");
    g.sample_size(10);
    // Newton from the simple orbit's fixed point, with the multipliers (no iterate check).
    let quick = ZenoSettings { check_rate: false, ..s };
    g.bench_function("orbit_e0.5", |b| b.iter(|| orbit(&lag5, &y0, &quick)));
    g.bench_function("orbit_e0.5_with_rate_check", |b| b.iter(|| orbit(&lag5, &y0, &s)));
    // The general continuation engine in e to the branch's numerical end (the report's
    // settings).
    let cs = contactlab::continuation::Settings {
        to: 1.0,
        max_points: contactlab::reproduce::p3::BRANCH_MAX_POINTS,
        max_doublings: 0,
        ..Default::default()
    };
    let family = |e: f64| Ok(DoublePendulumStop::paper_controlled(e));
    g.bench_function("continuation_to_end", |b| {
        b.iter(|| continuation_in_e(family, q0.as_slice(), v0.as_slice(), &cs, &|_| {}).unwrap())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
