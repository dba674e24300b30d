//! P5: bilateral time-stepping of the rod on two sliders (target ≥ 10⁶ steps/s), the phase
//! portrait of Fig. 3 with its 20 × 20 basin (target: 400 runs of 10⁴ steps ≤ 2 s), and the
//! analysis (sets, Theorems 1 and 2).

use contactlab::eqset::{self, EqsetSettings, PortraitSettings};
use contactlab::mechanics::sliders::{RodTwoSliders, SliderSystem};
use contactlab::timestep::bilateral;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use nalgebra::Vector1;
use rayon::prelude::*;

fn bench(c: &mut Criterion) {
    let rod = RodTwoSliders::paper();
    let h = rod.time_scale() / 400.0;
    let mut g = c.benchmark_group("eqset");
    g.sample_size(10);
    // A swinging rod (slip with both signs of θ̇, through θ = 0) then at rest (stick).
    let n = 100_000;
    g.throughput(Throughput::Elements(n as u64));
    g.bench_function("rod_steps_swing_then_rest", |b| {
        b.iter(|| bilateral::run(&rod, &Vector1::new(-2.5), &Vector1::new(1.0), h, n, n).unwrap())
    });
    // Slip only: the rod spun fast enough to keep turning for the whole run.
    g.bench_function("rod_steps_slipping", |b| {
        b.iter(|| bilateral::run(&rod, &Vector1::new(0.0), &Vector1::new(60.0), h, n, n).unwrap())
    });
    // 400 runs of 10⁴ steps each, in parallel, none stopped early.
    g.throughput(Throughput::Elements(400 * 10_000));
    g.bench_function("400_runs_of_1e4_steps", |b| {
        b.iter(|| {
            (0..400usize)
                .into_par_iter()
                .map(|k| {
                    let (q, v) = (-3.0 + 6.0 * (k % 20) as f64 / 19.0, -6.0 + 12.0 * (k / 20) as f64 / 19.0);
                    bilateral::run(&rod, &Vector1::new(q), &Vector1::new(v), h, 10_000, 10_000).unwrap().q[1][0]
                })
                .sum::<f64>()
        })
    });
    let settings = EqsetSettings::for_system(&rod);
    let a = eqset::analyze(&rod, &settings).unwrap();
    let ps = PortraitSettings::for_system(&rod);
    g.throughput(Throughput::Elements(1));
    g.bench_function("portrait_fig3_with_basin", |b| b.iter(|| eqset::portrait(&rod, &a, &settings, &ps).unwrap()));
    g.bench_function("analyze", |b| b.iter(|| eqset::analyze(&rod, &settings).unwrap()));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
