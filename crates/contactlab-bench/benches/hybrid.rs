//! The hybrid dynamics core: the bouncing ball to its Zeno point, the impact oscillator's return
//! map, and P1's nonlinear return map (configuration D, φ = 0.9).

use contactlab::hybrid::driver::PoincareSection;
use contactlab::hybrid::lagrangian::{join, Lagrangian};
use contactlab::hybrid::section::FirstCrossing;
use contactlab::hybrid::{EventDriver, EventKind};
use contactlab::mechanics::closed_form::{Oscillator, StopSide};
use contactlab::paper_configs::p1::config;
use contactlab::twocontact::nonlinear;
use criterion::{criterion_group, criterion_main, Criterion};
use nalgebra::dvector;
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    let ball = Lagrangian::new(Oscillator::bouncing_ball(0.5, 9.81, 0.6, 1.2));
    let x0 = join(&dvector![1.2], &dvector![0.0]);
    let driver = EventDriver::default();
    c.bench_function("bouncing ball to its Zeno point", |b| {
        b.iter(|| driver.run(&ball, 0.0, black_box(x0.clone()), &[], &mut ()))
    });
    let osc = Lagrangian::new(Oscillator {
        mass: 1.0,
        damping: -0.1,
        stiffness: 1.0,
        force: 0.0,
        position: 0.5,
        side: StopSide::Below,
        restitution: 0.8,
        length: 1.0,
        time: 1.0,
    });
    let sec = [PoincareSection::AfterEvent { kind: EventKind::Impact, contact: Some(0) }];
    let y0 = join(&dvector![0.5], &dvector![-1.5]);
    c.bench_function("impact oscillator, one return", |b| {
        b.iter(|| {
            let mut first = FirstCrossing::default();
            driver.run(&osc, 0.0, black_box(y0.clone()), &sec, &mut first)
        })
    });
    let d = config("D").unwrap();
    c.bench_function("P1 nonlinear return map, D, phi = 0.9, delta = 1e-3", |b| {
        b.iter(|| nonlinear::return_map(&d, black_box(0.9), 1e-3).unwrap())
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).measurement_time(std::time::Duration::from_secs(3));
    targets = bench
}
criterion_main!(benches);
