//! Planar multibody dynamics (issue #21): `M(q)` and `h(q, q̇)` of a 12-degree-of-freedom planar
//! chain (a floating base and nine revolute links). Target: ≤ 2 µs.

use contactlab::mechanics::multibody::{Body, Joint, Multibody};
use criterion::{criterion_group, criterion_main, Criterion};
use nalgebra::Vector2;

fn chain() -> Multibody {
    let mut bodies = vec![Body {
        name: "base".into(),
        parent: None,
        joint: Joint::Planar,
        origin: Vector2::zeros(),
        origin_angle: 0.0,
        mass: 5.0,
        inertia: 0.2,
        com: Vector2::zeros(),
    }];
    for i in 1..10 {
        bodies.push(Body {
            name: format!("link{i}"),
            parent: Some(i - 1),
            joint: Joint::Revolute { axis: 1.0 },
            origin: Vector2::new(0.0, if i == 1 { 0.0 } else { -0.3 }),
            origin_angle: 0.0,
            mass: 1.0,
            inertia: 0.0075,
            com: Vector2::new(0.0, -0.15),
        });
    }
    Multibody::new(bodies, 9.81, 0.0).expect("a valid chain")
}

fn bench(c: &mut Criterion) {
    let mb = chain();
    assert_eq!(mb.dof(), 12);
    let q: Vec<f64> = (0..12).map(|k| 0.2 * (k as f64).sin()).collect();
    let v: Vec<f64> = (0..12).map(|k| (k as f64 * 0.7).cos()).collect();
    c.bench_function("multibody_chain12_mass_and_bias", |b| b.iter(|| mb.mass_and_bias(&mb.frames(&q, &v))));
}

criterion_group!(benches, bench);
criterion_main!(benches);
