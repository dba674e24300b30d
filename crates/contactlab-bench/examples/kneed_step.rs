//! One strike-to-strike step of the kneed walker's gait (the bench's `kneed_walker_step/*`) on
//! one kernel, for profiling: `kneed_step planar|spatial plain|exact|lin [repeats]`.
use contactlab::hybrid::lagrangian::{join, Lagrangian};
use contactlab::hybrid::section::SectionChart;
use contactlab::mechanics::multibody_system::Kernel;
use nalgebra::DVector;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (kneed, gait_q, gait_v) = contactlab_bench::kneed_walker_gait();
    let kernel = if args.first().is_some_and(|a| a == "spatial") { Kernel::Spatial } else { Kernel::Planar };
    let sys = kneed.system().expect("six coordinates").with_kernel(kernel).expect("a tree");
    let exact = args.get(1).is_some_and(|a| a == "exact");
    let repeats: usize = args.get(2).map_or(100, |a| a.parse().expect("a number"));
    let lag = Lagrangian::new(&sys);
    let x = join(&DVector::from_column_slice(&gait_q), &DVector::from_column_slice(&gait_v));
    let map = contactlab_bench::kneed_walker_step_map(&kneed, &lag, &sys, &x);
    let y = map.chart.chart(&x);
    if args.get(1).is_some_and(|a| a == "parts") {
        parts(&sys, &gait_q, &gait_v, repeats);
        return;
    }
    if args.get(1).is_some_and(|a| a == "lin") {
        // The exact derivatives alone (one dual pass) at the gait's start.
        use contactlab::mechanics::ContactSystem;
        let (q, v) = (DVector::from_column_slice(&gait_q), DVector::from_column_slice(&gait_v));
        let t = std::time::Instant::now();
        for _ in 0..repeats {
            std::hint::black_box(sys.linearization(0.0, &q, &v).expect("derivatives"));
        }
        println!("{:.2} µs per linearization", 1e6 * t.elapsed().as_secs_f64() / repeats as f64);
        return;
    }
    let t = std::time::Instant::now();
    for _ in 0..repeats {
        if exact {
            assert!(map.apply_exact(&y).expect("a return").1.is_ok(), "exact derivatives");
        } else {
            std::hint::black_box(map.apply(&y).expect("a return"));
        }
    }
    println!("{:.3} ms per step", 1e3 * t.elapsed().as_secs_f64() / repeats as f64);
}

/// The spatial tree's pieces in dual numbers (as the dual pass runs them), timed one by one.
fn parts(sys: &contactlab::mechanics::multibody_system::MultibodySystem, q: &[f64], v: &[f64], repeats: usize) {
    use contactlab::spatial::planar::PlanarTree;
    use nalgebra::Vector2;
    use num_dual::DualSVec64;
    type D = DualSVec64<6>;
    let pt = PlanarTree::new(sys.multibody()).expect("a tree");
    let n = q.len();
    let qd: Vec<D> = (0..n).map(|k| D::from_re(q[k]).derivative(k)).collect();
    let vd: Vec<D> = (0..n).map(|k| D::from_re(v[k])).collect();
    let time = |name: &str, f: &mut dyn FnMut()| {
        let t = std::time::Instant::now();
        for _ in 0..repeats {
            f();
        }
        println!("{name:>24}: {:.3} µs", 1e6 * t.elapsed().as_secs_f64() / repeats as f64);
    };
    let qs = pt.to_spatial(&qd);
    let vs = pt.velocities(&pt.turns(&qs), &vd);
    time("frames (q)", &mut || {
        std::hint::black_box(pt.tree.frames(&qs, None));
    });
    time("frames (q, v)", &mut || {
        std::hint::black_box(pt.tree.frames(&qs, Some(&vs)));
    });
    let f = pt.tree.frames(&qs, Some(&vs));
    time("mass matrix", &mut || {
        std::hint::black_box(pt.tree.mass_matrix_in(&f));
    });
    time("bias", &mut || {
        std::hint::black_box(pt.tree.bias_in(&f, &vs));
    });
    let b = pt.body[pt.body.len() - 1];
    let x = Vector2::new(D::from(0.1), D::from(-0.3));
    time("point jacobian", &mut || {
        std::hint::black_box(pt.tree.point_jacobian_in(&f, b, &x));
    });
    time("velocity product", &mut || {
        std::hint::black_box(pt.tree.point_velocity_product_in(&f, b, &x));
    });
    let qf: Vec<f64> = pt.to_spatial(q);
    let vf = pt.velocities(&pt.turns(&qf), v);
    time("f64 frames (q, v)", &mut || {
        std::hint::black_box(pt.tree.frames(&qf, Some(&vf)));
    });
    let ff = pt.tree.frames(&qf, Some(&vf));
    time("f64 mass matrix", &mut || {
        std::hint::black_box(pt.tree.mass_matrix_in(&ff));
    });
    time("f64 bias", &mut || {
        std::hint::black_box(pt.tree.bias_in(&ff, &vf));
    });
    let mut m = nalgebra::DMatrix::zeros(n, n);
    let mut h = nalgebra::DVector::zeros(n);
    let m3 = pt.tree.mass_matrix_in(&ff);
    let h3 = pt.tree.bias_in(&ff, &vf);
    time("f64 M, h to planar", &mut || {
        pt.mass_to_planar(&pt.turns(&qf), &m3, &mut m);
        pt.bias_to_planar(&pt.turns(&qf), &vf, &m3, h3.as_slice(), &mut h);
    });
    let mb = sys.multibody();
    time("planar engine frames", &mut || {
        std::hint::black_box(mb.frames(q, v));
    });
    let fr = mb.frames(q, v);
    time("planar engine M and h", &mut || {
        std::hint::black_box(mb.mass_and_bias(&fr));
    });
}
