//! Planar multibody dynamics (issue #21): `M(q)` and `h(q, q̇)` of a 12-degree-of-freedom planar
//! chain (a floating base and nine revolute links), target ≤ 2 µs, and the same on the spatial
//! tree (`spatial::planar`); one compass-biped step (heel
//! strike to heel strike at rtol 1e-10) as the hand-written model and as the `multibody` model
//! file, target: the file within 2× of the hand-written model; a basin's cells per second. The
//! kneed walker's step and the basin also run on the spatial tree (`Kernel::Spatial`, issue #60:
//! the planar kernel stays only where it is at least 2× faster).

use contactlab::hybrid::lagrangian::{join, Lagrangian};
use contactlab::hybrid::{DriverSettings, EventDriver, Tolerances};
use contactlab::mechanics::multibody::{Body, Joint, Multibody, Scratch};
use contactlab::mechanics::walkers::CompassBiped;
use criterion::{criterion_group, criterion_main, Criterion};
use nalgebra::{dvector, DMatrix, DVector, Vector2};

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
    // The same with storage kept between calls, as the hybrid core's evaluation cache does.
    let (mut frames, mut scratch) = (mb.frames(&q, &v), Scratch::default());
    let (mut m, mut h) = (DMatrix::zeros(12, 12), DVector::zeros(12));
    c.bench_function("multibody_chain12_mass_and_bias_reusing_storage", |b| {
        b.iter(|| {
            mb.frames_into(&q, &v, &mut frames);
            mb.mass_and_bias_into(&frames, &mut m, &mut h, &mut scratch)
        })
    });
    // The same chain on the spatial tree (issue #60: one tree dynamics, a planar kernel kept
    // only where it pays): CRBA and RNEA in space (the tree's own M and bias, over its
    // velocities).
    let pt = contactlab::spatial::planar::PlanarTree::new(&mb).expect("the chain on the spatial tree");
    let qs = pt.to_spatial(&q);
    let vs = pt.velocities(&pt.turns(&qs), &v);
    c.bench_function("multibody_chain12_on_the_spatial_tree_mass_and_bias", |b| {
        b.iter(|| pt.tree.mass_and_bias(&qs, &vs))
    });

    // One step of P2's sticking gait: from just after a heel strike to the next strike.
    let settings = DriverSettings {
        tol: Tolerances { rtol: 1e-10, atol: 1e-10 },
        max_events: 1,
        t_max: 5.0,
        ..Default::default()
    };
    let built_in = CompassBiped::paper(0.7);
    let (q0, v0) = (
        dvector![-0.14783689025242455, -0.14783689025242455, 0.0, 0.0],
        dvector![0.732796791052304, -0.5006678825400154, 0.0, 0.0],
    );
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/multibody/compass-biped.toml");
    let file = contactlab::multibody::model::read(&path).expect("the shipped example");
    let sys = file.system().expect("four coordinates");
    let (hq, hv) = (DVector::from_column_slice(&file.q0), DVector::from_column_slice(&file.v0));
    let (la, lb) = (Lagrangian::new(built_in), Lagrangian::new(&sys));
    let driver = EventDriver::new(settings);
    let (ra, rb) =
        (driver.run(&la, 0.0, join(&q0, &v0), &[], &mut ()), driver.run(&lb, 0.0, join(&hq, &hv), &[], &mut ()));
    assert!((ra.t - rb.t).abs() < 1e-9, "one step: {} vs {}", ra.t, rb.t);
    let mut g = c.benchmark_group("compass_one_step_rtol1e-10");
    g.bench_function("hand_written", |b| b.iter(|| driver.run(&la, 0.0, join(&q0, &v0), &[], &mut ())));
    g.bench_function("multibody_file", |b| b.iter(|| driver.run(&lb, 0.0, join(&hq, &hv), &[], &mut ())));
    g.finish();

    // McGeer's kneed walker: its gait with multipliers by Newton on the strike-to-strike map
    // from a start 1% off the gait in the velocities (each step has a knee strike and a Zeno
    // chatter of the knee stops); the search from nothing is `kneed_walker_gait_search`.
    use contactlab::mechanics::multibody_system::Kernel;
    use contactlab::multibody::gait::{find_gaits, gait_from, GaitSettings};
    let (kneed, gait_q, gait_v) = contactlab_bench::kneed_walker_gait();
    let gs = GaitSettings::default();
    let off: Vec<f64> = gait_v.iter().map(|x| x * 1.01).collect();
    c.bench_function("kneed_walker_gait_with_multipliers", |b| {
        b.iter(|| gait_from(&kneed, &gait_q, &off, &gs).expect("valid").expect("converges"))
    });
    // One strike-to-strike step of its gait, plain and with the exact derivatives (variational
    // equations, saltation matrices, the differentiated Zeno completion of the knee cascade).
    {
        use contactlab::hybrid::section::SectionChart;
        let sys = kneed.system().expect("six coordinates").with_kernel(Kernel::Planar).expect("a tree");
        let lag = Lagrangian::new(&sys);
        let x = join(&DVector::from_column_slice(&gait_q), &DVector::from_column_slice(&gait_v));
        let map = contactlab_bench::kneed_walker_step_map(&kneed, &lag, &sys, &x);
        let y = map.chart.chart(&x);
        assert!(map.apply_exact(&y).expect("a return").1.is_ok(), "exact derivatives");
        let mut g = c.benchmark_group("kneed_walker_step");
        g.bench_function("plain", |b| b.iter(|| map.apply(&y).expect("a return")));
        g.bench_function("with_derivatives", |b| b.iter(|| map.apply_exact(&y).expect("a return")));
        // The same step on the spatial tree (issue #60): values, and derivatives from the tree
        // in dual numbers.
        let sys3 = sys.clone().with_kernel(Kernel::Spatial).expect("a tree");
        let lag3 = Lagrangian::new(&sys3);
        let map3 = contactlab_bench::kneed_walker_step_map(&kneed, &lag3, &sys3, &x);
        g.bench_function("plain_on_the_spatial_tree", |b| b.iter(|| map3.apply(&y).expect("a return")));
        g.bench_function("with_derivatives_on_the_spatial_tree", |b| {
            b.iter(|| map3.apply_exact(&y).expect("a return"))
        });
        g.finish();
    }
    // The compass gait's fixed point with its multipliers, Newton from a start 1% off in the
    // velocities: exact derivatives (variational equations and saltation matrices) against
    // central differences of the return map (issue #22's target: at least 2x faster).
    use contactlab::hybrid::section::Derivatives;
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/multibody/compass-biped.toml");
    let compass = contactlab::multibody::model::read(&path).expect("the shipped example");
    let cg = find_gaits(&compass, &gs).expect("a gait table");
    let cg = cg.gaits.first().expect("the compass gait");
    let v_off: Vec<f64> = cg.v.iter().map(|x| x * 1.01).collect();
    let mut fp = c.benchmark_group("compass_gait_fixed_point_with_multipliers");
    for (name, d) in [("exact", Derivatives::Exact), ("differences", Derivatives::Differences)] {
        let s = GaitSettings { derivatives: d, ..gs };
        fp.bench_function(name, |b| {
            b.iter(|| gait_from(&compass, &cg.q, &v_off, &s).expect("valid").expect("converges"))
        });
    }
    fp.finish();
    // Continuation (issue #22): the compass gait (Goswami's parameters) in the slope from
    // Drake's 0.0525 through its first two period doublings to 0.0875, one doubled branch.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/multibody");
    let doc = contactlab::model::ModelDoc::read(&dir.join("goswami-compass-gait.toml")).expect("the shipped example");
    let req = contactlab::api::ContinueRequest {
        param: "slope".into(),
        from: None,
        to: 0.0875,
        state: None,
        orbit: None,
        settings: contactlab::continuation::Settings { max_doublings: 1, ..Default::default() },
        gait: gs,
    };
    let mut cont = c.benchmark_group("continuation");
    cont.sample_size(10);
    cont.bench_function("compass_gait_slope_two_doublings", |b| {
        b.iter(|| contactlab::api::continuation(&doc, &req, &|_| {}).expect("valid"))
    });
    cont.finish();
    // A basin's cells per second: 400 starts of the simplest walker just before heel strike
    // (Schwab & Wisse's plane), up to 40 strikes each, against a plan computed once (as each
    // Dask chunk does). Throughput = cells / time.
    {
        use contactlab::multibody::basin::basin_cells;
        let (mut walker, p, cells) = contactlab_bench::simplest_walker_basin();
        walker.kernel = Kernel::Planar;
        let mut g = c.benchmark_group("basin");
        g.sample_size(10);
        g.throughput(criterion::Throughput::Elements(cells.len() as u64));
        g.bench_function("simplest_walker_400_cells", |b| {
            b.iter(|| basin_cells(&walker, &p, &cells, &|_, _| {}).expect("cells"))
        });
        // The same basin on the spatial tree (issue #60: the planar kernel stays only if it is
        // at least 2× faster here).
        let mut on_tree = walker.clone();
        on_tree.kernel = Kernel::Spatial;
        g.bench_function("simplest_walker_400_cells_on_the_spatial_tree", |b| {
            b.iter(|| basin_cells(&on_tree, &p, &cells, &|_, _| {}).expect("cells"))
        });
        g.finish();
    }
    let mut slow = c.benchmark_group("kneed_walker_gait_search");
    slow.sample_size(10);
    slow.bench_function("from_nothing", |b| b.iter(|| find_gaits(&kneed, &gs).expect("a gait table")));
    slow.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
