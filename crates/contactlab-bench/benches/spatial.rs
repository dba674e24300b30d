//! Spatial dynamics of real robots (issue #42): `M(q)` (CRBA) and the bias (RNEA) of Unitree A1
//! on a floating base (18 velocities) and the Unitree G1 humanoid (35), read from their URDFs;
//! one FC3D solve of a box's four corners landing with a slip; one Moreau–Jean step of a box
//! resting on a slope.

use std::path::Path;

use contactlab::fc3d::{solve, Fc3dSettings};
use contactlab::spatial::algebra::Vec3;
use contactlab::spatial::timestep::{resting_box, step, MoreauSettings};
use contactlab::spatial::urdf::{read, Base};
use contactlab::spatial::SpatialTree;
use criterion::{criterion_group, criterion_main, Criterion};
use nalgebra::{DMatrix, DVector};

fn robot(name: &str) -> SpatialTree {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/robots").join(name);
    read(&path, Base::Floating).unwrap().tree
}

fn state(t: &SpatialTree) -> (Vec<f64>, Vec<f64>) {
    let mut q: Vec<f64> = (0..t.nq()).map(|k| 0.3 * (1.7 * k as f64 + 0.4).sin()).collect();
    t.normalize(&mut q);
    (q, (0..t.nv()).map(|k| 0.8 * (0.9 * k as f64 + 1.1).cos()).collect())
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("spatial");
    for (label, file) in [("a1_18dof", "a1.urdf"), ("g1_35dof", "g1_29dof_rev_1_0.urdf")] {
        let t = robot(file);
        let (q, v) = state(&t);
        g.bench_function(format!("{label}_mass_matrix"), |b| b.iter(|| t.mass_matrix(&q)));
        g.bench_function(format!("{label}_bias"), |b| b.iter(|| t.bias(&q, &v)));
    }
    let (scene, q) = resting_box(2.0, Vec3::new(0.4, 0.3, 0.2), 0.3, 0.5, 0.0, 0.0).unwrap();
    let q = DVector::from_vec(q);
    let v = DVector::zeros(6);
    let s = MoreauSettings::default();
    g.bench_function("box_on_slope_moreau_step", |b| b.iter(|| step(&scene, &q, &v, &s).unwrap()));
    // An FC3D problem alone: a box's four bottom corners on a plane tilted by 0.3 rad, landing
    // with a sideways slip (12 rows on 6 degrees of freedom).
    let w = {
        let (s, c) = 0.3f64.sin_cos();
        let dirs = [Vec3::new(-s, 0.0, c), Vec3::new(c, 0.0, s), Vec3::y()];
        let mut j = DMatrix::zeros(12, 6);
        for (k, (x, y)) in [(0.2, 0.15), (-0.2, 0.15), (0.2, -0.15), (-0.2, -0.15)].into_iter().enumerate() {
            let p = Vec3::new(x, y, -0.1);
            for (row, d) in dirs.iter().enumerate() {
                let pd = p.cross(d);
                for col in 0..3 {
                    j[(3 * k + row, col)] = d[col];
                    j[(3 * k + row, 3 + col)] = pd[col];
                }
            }
        }
        let minv = DMatrix::from_diagonal(&DVector::from_vec(vec![0.5, 0.5, 0.5, 50.0, 33.3, 25.0]));
        &j * minv * j.transpose()
    };
    let qf = DVector::from_fn(12, |i, _| [-1.0, 0.4, 0.1][i % 3]);
    g.bench_function("fc3d_box_four_corners", |b| b.iter(|| solve(&w, &qf, &[0.5; 4], &Fc3dSettings::default(), None)));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
