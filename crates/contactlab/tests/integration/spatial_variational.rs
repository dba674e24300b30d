//! Exact derivatives of 3-D event-driven runs (issue #42, item 1): the variational equations
//! with saltation matrices, carried through the spatial flow, its guards and its impacts by dual
//! numbers, against differences of whole runs.

use std::path::PathBuf;

use contactlab::api::{spatial_model, SpatialSource};
use contactlab::hybrid::variational::Sensitivity;
use contactlab::hybrid::{DriverSettings, EventDriver, EventKind, EventLog, Tolerances, ZenoRule};
use contactlab::spatial::events::EventScene;
use nalgebra::{DMatrix, DVector};

fn example(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/spatial").join(name)
}

fn driver(t_max: f64) -> EventDriver {
    EventDriver {
        settings: DriverSettings {
            tol: Tolerances { rtol: 1e-12, atol: 1e-12 },
            t_max,
            zeno: ZenoRule::Extrapolate { tolerance: 1e-9 },
            ..DriverSettings::default()
        },
    }
}

#[test]
fn a_3d_rimless_wheel_s_run_through_strikes_has_the_derivative_its_differences_give() {
    // The 3-D rimless wheel of examples/spatial dropped from 1 cm while rolling and yawing: it
    // lands on a spoke (a plastic sticking impact), pivots, and strikes with the next spokes
    // (each strike lifts the old spoke). Φ = ∂x(T)/∂x(0) from the variational equations and the
    // saltation matrices against central differences of whole runs, in every direction of the
    // stored state (the quaternion's four components included).
    let m = spatial_model(&example("rimless-wheel.xml"), SpatialSource::Mjcf).unwrap();
    let scene = m.scene(None, 0.0);
    let tree = &scene.tree;
    let mut q0 = DVector::from_vec(m.q0.clone());
    q0[2] += 0.01;
    // A slight yaw and roll, so that the motion leaves the wheel's plane.
    let v0 = DVector::from_vec(vec![1.2, 0.05, 0.0, 0.1, 1.2, 0.05]);
    let x0 = DMatrix::from_iterator(tree.nq() + tree.nv(), 1, q0.iter().chain(v0.iter()).copied());
    let sys = EventScene::new(&scene, q0.as_slice()).unwrap();
    let t_end = 1.3;
    let n = x0.nrows();
    // (The driver normalises the start: Φ(0) is that map's derivative.)
    let mut sens = Sensitivity::new(&sys, sys.normalization_jacobian(&x0));
    let mut log = EventLog::default();
    let run = driver(t_end).run(&sys, 0.0, x0.clone(), &[], &mut (&mut sens, &mut log));
    assert!((run.t - t_end).abs() < 1e-12, "{:?}", run.termination);
    assert!(sens.failure.is_none(), "{:?}", sens.failure);
    let impacts = log.events.iter().filter(|e| e.info.kind == EventKind::Impact).count();
    assert!(impacts >= 3, "{impacts} impacts: {:?}", log.events.iter().map(|e| e.info.kind).collect::<Vec<_>>());
    let end = |x: DMatrix<f64>| {
        let r = driver(t_end).run(&sys, 0.0, x, &[], &mut EventLog::default());
        assert!((r.t - t_end).abs() < 1e-12);
        r.state
    };
    let (sq, sv) = (1.0, 1.0);
    let mut worst = 0.0f64;
    for k in 0..n {
        let h = 1e-6 * if k < tree.nq() { sq } else { sv };
        let (mut xp, mut xm) = (x0.clone(), x0.clone());
        xp[k] += h;
        xm[k] -= h;
        let fd = (end(xp) - end(xm)) / (2.0 * h);
        let gap = (sens.phi.column(k) - fd.column(0)).amax() / (1.0 + fd.amax());
        worst = worst.max(gap);
    }
    assert!(worst < 1e-5, "worst {worst:e}");
}
