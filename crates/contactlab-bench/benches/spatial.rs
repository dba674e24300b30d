//! Spatial dynamics of real robots (issue #42): `M(q)` (CRBA) and the bias (RNEA) of Unitree A1
//! on a floating base (18 velocities) and the Unitree G1 humanoid (35), read from their URDFs;
//! one FC3D solve of a box's four corners landing with a slip; one Moreau–Jean step of a box
//! resting on a slope; one simulated second of A1 dropped onto the ground (Moreau–Jean,
//! h = 1 ms), and a box tipping over its edge, event-driven; the 3-D rimless wheel's gait with
//! its exact Floquet multipliers (`gait` on `examples/spatial/rimless-wheel.toml`: ten strikes,
//! then Newton on the manifold); the rod's 3-D slips (a turning one to its stop, a jam with its
//! impulse); a second of Euler's disk spun like a coin, event-driven; Gymnasium's humanoid dropped
//! for 2 s by both methods; Gymnasium's ant dropped for 2 s with its joint limits (Moreau–Jean);
//! reading and inspecting an MJCF chain of 1000 bodies.

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
        g.bench_function(format!("{label}_mass_and_bias_one_pass"), |b| b.iter(|| t.mass_and_bias(&q, &v)));
    }
    let (scene, q) = resting_box(2.0, Vec3::new(0.4, 0.3, 0.2), 0.3, 0.5, 0.0, 0.0).unwrap();
    let q = DVector::from_vec(q);
    let v = DVector::zeros(6);
    let s = MoreauSettings::default();
    g.bench_function("box_on_slope_moreau_step", |b| b.iter(|| step(&scene, 0.0, &q, &v, &s).unwrap()));
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

/// One simulated second of Unitree A1 dropped from 0.45 m onto the ground (its URDF's collision
/// shapes: foot spheres, leg cylinders and boxes, the trunk; its joints on springs), Moreau–Jean
/// with h = 1 ms; and the
/// box of the tipping test pivoting on its edge for 0.6 s, event-driven.
fn simulations(c: &mut Criterion) {
    use contactlab::spatial::events::{simulate_events, EventSettings};
    use contactlab::spatial::timestep::{simulate, Scene3};
    let mut g = c.benchmark_group("spatial_simulation");
    g.sample_size(10);
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/robots/a1.urdf");
    let a1 = read(&path, Base::Floating).unwrap();
    let nv = a1.tree.nv();
    let mut q0 = a1.tree.neutral().as_slice().to_vec();
    q0[2] = 0.45;
    let v0 = vec![0.0; nv];
    // Its twelve joints held by springs (400 N m/rad, 4 N m s/rad) about the neutral pose: it
    // lands on its four feet and stands (the test `unitree_a1_dropped_onto_the_ground_...`).
    let mut scene = Scene3::on_ground(a1.tree, a1.links.collisions, 0.8);
    scene.springs = (6..nv).map(|k| contactlab::spatial::timestep::Spring::constant(k + 1, k, 400.0, 0.0)).collect();
    scene.damping = (0..nv).map(|k| if k < 6 { 0.0 } else { 4.0 }).collect();
    g.bench_function("a1_drop_1s_moreau_h1ms", |b| {
        b.iter(|| simulate(&scene, &q0, &v0, 1.0, 100, &MoreauSettings::default()).unwrap())
    });
    let (m, a, bb, cc) = (2.0, 0.2, 0.3, 0.4);
    let (mut boxed, _) = resting_box(m, Vec3::new(a, bb, cc), 0.0, 5.0, 0.0, 0.0).unwrap();
    boxed.mu = 5.0;
    let beta0 = (a / cc).atan() + 0.05;
    let rot = contactlab::spatial::algebra::axis_angle(&Vec3::y(), beta0);
    let centre = Vec3::new(a / 2.0, 0.0, 0.0) + rot * Vec3::new(-a / 2.0, 0.0, cc / 2.0);
    let uq = nalgebra::UnitQuaternion::from_rotation_matrix(&nalgebra::Rotation3::from_matrix_unchecked(rot));
    let qb = [centre.x, centre.y, centre.z, uq.i, uq.j, uq.k, uq.w];
    let s = EventSettings { t_max: 0.6, ..Default::default() };
    g.bench_function("box_tip_event_driven_0p6s", |b| b.iter(|| simulate_events(&boxed, &qb, &[0.0; 6], &s).unwrap()));
    let wheel = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/spatial/rimless-wheel.toml");
    let wm = contactlab::api::open(&wheel, None).unwrap();
    let spatial = contactlab::multibody::gait::GaitSettings::spatial();
    g.bench_function("rimless_wheel_3d_gait_with_multipliers", |b| {
        b.iter(|| {
            let gait = contactlab::api::gait_with(&wm, None, &spatial).unwrap().into_spatial().unwrap();
            assert!(gait.converged);
            gait
        })
    });
    let walker = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/spatial/compass-walker.toml");
    let km = contactlab::api::open(&walker, None).unwrap();
    g.bench_function("compass_walker_3d_gait_with_multipliers", |b| {
        b.iter(|| {
            let gait = contactlab::api::gait_with(&km, None, &spatial).unwrap().into_spatial().unwrap();
            assert!(gait.converged);
            gait
        })
    });
    let a1 = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/spatial/a1-standing.toml");
    let s = contactlab::api::StanceSettings {
        friction: contactlab::fixture::FrictionLaw::Pyramid,
        slope_axis: Some(contactlab::spatial::algebra::Vec3::y()),
        ..Default::default()
    };
    let a1m = contactlab::api::open(&a1, None).unwrap();
    g.bench_function("a1_stance_pyramid_with_margins", |b| {
        b.iter(|| contactlab::api::stance(&a1m, None, &s, None).unwrap())
    });
    // Painlevé at A1's foot (three feet held) over a slice of its knee: A, B, μ_min both ways.
    let p = contactlab::api::PainleveSettings {
        contact: "FL_foot".into(),
        slice: vec![contactlab::multibody::painleve::SliceAxis {
            coordinate: "FL_calf_joint".into(),
            lo: -2.5,
            hi: -0.5,
        }],
        ..Default::default()
    };
    g.bench_function("a1_foot_painleve_over_a_knee_slice", |b| {
        b.iter(|| contactlab::api::painleve(&a1m, None, &p).unwrap())
    });
    // The rod's slip 45° out of its plane, handed over to desingularised time, to its stop.
    let rod = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/spatial/painleve-rod.toml");
    let rm = contactlab::api::open(&rod, None).unwrap();
    let st = [0.0, 0.0, 0.5646424733950354, 0.0, 0.6, 0.0, 2.1292849467900705, 1.0, 1.6506712298193567, 0.0, 2.0, 0.0];
    g.bench_function("rod_3d_turning_slip_to_its_stop", |b| {
        b.iter(|| contactlab::api::slip(&rm, Some(&st), "end").unwrap())
    });
    // Its in-plane jam from 6 m/s, finished by the last stretch's impulse.
    let jam = [0.0, 0.0, 0.5646424733950354, 0.0, 0.6, 0.0, 7.1292849467900705, 0.0, 1.6506712298193567, 0.0, 2.0, 0.0];
    g.bench_function("rod_3d_jam_with_its_impulse", |b| {
        b.iter(|| contactlab::api::slip(&rm, Some(&jam), "end").unwrap())
    });
    // Euler's disk spun like a coin: one second of wobbling, slipping and rolling in turn.
    let disk = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/spatial/eulers-disk.toml");
    let dm = contactlab::api::open(&disk, None).unwrap();
    let one = contactlab::api::SimulateSettings { t_max: 1.0, ..Default::default() };
    g.bench_function("eulers_disk_spun_1s_event_driven", |b| {
        b.iter(|| contactlab::api::simulate(&dm, None, &one).unwrap())
    });
    g.finish();
    // Gymnasium's humanoid dropped for 2 s (29 candidate contacts): both methods (issue #59:
    // MuJoCo's own loop takes about 0.02 s).
    let mut g = c.benchmark_group("spatial_humanoid_drop");
    g.sample_size(10);
    let hum = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/robots/mujoco/humanoid.xml");
    let hm = contactlab::api::open(&hum, None).unwrap().spatial().expect("a robot in 3-D").clone();
    // (Event-driven with its stops held the fall ends at 1.45 s, a Painlevé inconsistency; with
    // the joints free it runs its 2 s, the figure measured before the stops.)
    let mut free = hm.clone();
    free.limits.clear();
    let (hm, free) = (
        contactlab::api::MechanismModel::Spatial(Box::new(hm)),
        contactlab::api::MechanismModel::Spatial(Box::new(free)),
    );
    for (name, model, method) in [
        ("moreau_h1ms", &hm, contactlab::api::SpatialMethod::Moreau),
        ("event_driven_stops_to_painleve", &hm, contactlab::api::SpatialMethod::Event),
        ("event_driven_joints_free", &free, contactlab::api::SpatialMethod::Event),
    ] {
        let s = contactlab::api::SimulateSettings { t_max: 2.0, method, ..Default::default() };
        g.bench_function(name, |b| b.iter(|| contactlab::api::simulate(model, None, &s).unwrap()));
    }
    g.finish();
    // Gymnasium's ant dropped for 2 s by Moreau–Jean with its joint limits (issue #60): from
    // MuJoCo's qpos0 it stands on its ankles' stops (a redundant step problem: slow sweeps),
    // from ankles at 60° off them.
    let mut g = c.benchmark_group("spatial_ant_drop_limits");
    g.sample_size(10);
    let ant = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/robots/mujoco/ant.xml");
    let am = contactlab::api::open(&ant, None).unwrap().spatial().expect("a robot in 3-D").clone();
    let q0 = am.q0.clone();
    let am = contactlab::api::MechanismModel::Spatial(Box::new(am));
    let s = contactlab::api::SimulateSettings {
        t_max: 2.0,
        method: contactlab::api::SpatialMethod::Moreau,
        ..Default::default()
    };
    let mut off = q0.clone();
    let a = 60f64.to_radians();
    off[7..].copy_from_slice(&[0.0, a, 0.0, -a, 0.0, -a, 0.0, a]);
    for (name, q) in [("on_stops_moreau_h1ms", q0), ("off_stops_moreau_h1ms", off)] {
        g.bench_function(name, |b| b.iter(|| contactlab::api::simulate(&am, Some(&q), &s).unwrap()));
    }
    g.finish();
}

/// An MJCF chain of `n` bodies on hinges below a free root, each a capsule.
fn chain_mjcf(n: usize) -> String {
    let mut s = String::from("<mujoco><worldbody><geom type=\"plane\" size=\"9 9 1\"/>");
    s += "<body name=\"b0\" pos=\"0 0 1\"><freejoint/><geom type=\"capsule\" fromto=\"0 0 0 0.1 0 0\" size=\"0.01\"/>";
    for i in 1..n {
        s += &format!("<body name=\"b{i}\" pos=\"0.1 0 0\"><joint name=\"j{i}\" type=\"hinge\" axis=\"0 1 0\"/>");
        s += "<geom type=\"capsule\" fromto=\"0 0 0 0.1 0 0\" size=\"0.01\"/>";
    }
    s += &"</body>".repeat(n);
    s + "</worldbody></mujoco>"
}

/// Reading and inspecting a chain of 1000 bodies (issue #59: it took 57 s, cubic in the bodies).
fn big_models(c: &mut Criterion) {
    let mut g = c.benchmark_group("spatial_inspect");
    g.sample_size(10);
    let text = chain_mjcf(1000);
    g.bench_function("mjcf_chain_1000_bodies_read_and_inspect", |b| {
        b.iter(|| {
            let m = contactlab::spatial::mjcf::parse("chain.xml", &text).unwrap();
            let model = contactlab::api::SpatialModel::from_mjcf("chain.xml".into(), &m);
            contactlab::api::inspect(&contactlab::api::MechanismModel::Spatial(Box::new(model)), None, 0.0).unwrap()
        })
    });
    g.finish();
}

/// Continuation and basins of a 3-D gait: the rimless wheel's rolling continued in the slope
/// across its Neimark–Sacker point, and a basin's cells per second (the plan made once, as each
/// Dask chunk receives it).
fn gait_families(c: &mut Criterion) {
    use contactlab::api::{basin_cells, basin_plan, continuation, open_doc, ContinueRequest};
    use contactlab::model::param::ParamKey;
    use contactlab::model::ModelDoc;
    use contactlab::multibody::basin::{grid, BasinAxis, BasinSettings};
    let mut g = c.benchmark_group("spatial_gait_families");
    g.sample_size(10);
    let wheel = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/spatial/rimless-wheel.toml");
    let doc = ModelDoc::read(&wheel).unwrap();
    let req = ContinueRequest {
        param: "slope".into(),
        from: Some(0.1),
        to: 0.3,
        state: None,
        orbit: None,
        settings: Default::default(),
        gait: Default::default(),
    };
    g.bench_function("rimless_wheel_3d_continuation_in_slope_0p1_to_0p3", |b| {
        b.iter(|| continuation(&doc, &req, &|_| {}).unwrap())
    });
    let m = open_doc(&doc.with_param(&ParamKey::parse("slope").unwrap(), 0.25).unwrap()).unwrap();
    let settings = BasinSettings { steps: 20, ..Default::default() };
    let plan = basin_plan(&m, &["wheel.wx".into(), "wheel.wy".into()], None, &settings).unwrap();
    let axes = [
        BasinAxis { name: "wheel.wx".into(), lo: -1.0, hi: 1.0, n: 8 },
        BasinAxis { name: "wheel.wy".into(), lo: 1.0, hi: 2.0, n: 8 },
    ];
    let points = grid(&axes);
    g.throughput(criterion::Throughput::Elements(points.len() as u64));
    g.bench_function("rimless_wheel_3d_basin_cells_20_strikes", |b| {
        b.iter(|| basin_cells(&m, &plan, &points, &|_, _| {}).unwrap())
    });
    g.finish();
}

criterion_group!(benches, bench, simulations, gait_families, big_models);
criterion_main!(benches);
