//! P2 targets: the compass gait's fixed point with its multipliers (`walker gait`: the
//! multibody model, exact derivatives; ≤ 20 ms), the rimless wheel's jam threshold (≤ 20 ms);
//! the proof of the rimless wheel's gait (issue #23). One compass step, hand-written against
//! multibody: `benches/multibody.rs`.

use contactlab::mechanics::walkers::{CompassBiped, RimlessWheel};
use contactlab::multibody::gait::GaitSettings;
use contactlab::walking::model::WalkerModel;
use contactlab::walking::slip::jam_threshold;
use contactlab::walking::{gait, WalkerSettings};
use criterion::{criterion_group, criterion_main, Criterion};
use nalgebra::{dvector, DVector};

fn bench(c: &mut Criterion) {
    let s = WalkerSettings::default();
    let cb = WalkerModel::Compass(CompassBiped::paper(0.7));
    let mut g = c.benchmark_group("walker");
    g.sample_size(20);
    let guess = DVector::from_vec(vec![-0.15, 0.7, -0.5]);
    let gs = GaitSettings::default();
    g.bench_function("compass_gait_fixed_point", |b| b.iter(|| gait(&cb, Some(&guess), &gs).unwrap()));
    let w = RimlessWheel::paper(0.35);
    let q = dvector![0.0, 0.0, -0.3];
    let v = dvector![0.0, 0.0, 0.643];
    let ex = dvector![1.0, 0.0, 0.0];
    g.bench_function("rimless_jam_threshold", |b| b.iter(|| jam_threshold(&w, &q, &v, &ex, 5.0, 1e-5, &s)));
    // The rimless wheel's sticking gait proved in interval arithmetic (issue #23 part 4):
    // interval Newton, the multiplier, and sticking with μ_stick enclosed to 1e-6 by bisection.
    let (_, rate) = contactlab::walking::rimless_closed_form(&w);
    g.bench_function("rimless_gait_proof", |b| b.iter(|| contactlab::walking::proof::prove_rimless_gait(&w, rate)));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
