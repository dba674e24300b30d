//! Contacts sank through the floor, silently, in the default event-driven `simulate`: after an
//! impact a foot at zero gap was left free with no force, its gap guard (armed only once seen
//! above zero) never armed, and the foot kept penetrating (Gymnasium's humanoid ended 0.375 m
//! below the floor, walker2d 2 cm below, both "time-limit"). Every shipped robot is dropped onto
//! its ground by both methods and every contact's gap is read at every sample.

use std::path::{Path, PathBuf};

use contactlab::hybrid::{FailureEvidence, FailureKind, Termination};
use contactlab::spatial::events::{simulate_events, EventScene, EventSettings, CONTACT_TOL};
use contactlab::spatial::timestep::{simulate, MoreauSettings, Scene3};
use contactlab::spatial::urdf::{read, Base};

fn robots_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/robots")
}

/// Every shipped robot on its ground: `(name, scene, q₀, simulated time)`. The MJCF files carry
/// their own floor; the URDF robots get the plane `z = 0` with a floating base, raised above it.
/// The times cover each robot's first impacts and its fall (the humanoid's feet sank from
/// 1.04 s, walker2d's from 1.56 s, with their joints free).
fn robots() -> Vec<(String, Scene3, Vec<f64>, f64)> {
    let mut out = vec![];
    for (file, t) in [
        ("ant.xml", 1.0),
        ("half_cheetah.xml", 1.0),
        ("hopper.xml", 1.0),
        ("humanoid.xml", 2.0),
        ("walker2d.xml", 2.0),
        ("zoo.xml", 0.6),
    ] {
        let m = crate::common::open3(&robots_dir().join("mujoco").join(file), None).unwrap();
        out.push((file.to_string(), m.scene(None, 0.0), m.q0.clone(), t));
    }
    for (file, z, t) in [("a1.urdf", 0.45, 1.0), ("g1_29dof_rev_1_0.urdf", 0.9, 1.0)] {
        let u = read(&robots_dir().join(file), Base::Floating).unwrap();
        let mut q0 = u.tree.neutral().as_slice().to_vec();
        q0[2] = z;
        out.push((file.to_string(), Scene3::on_ground(u.tree, u.links.collisions, 0.8), q0, t));
    }
    out
}

/// The least gap over the samples `qs` and the contacts, relative to the length scale, with
/// where it was.
fn least_gap(sys: &EventScene, qs: &[Vec<f64>], ts: &[f64]) -> (f64, f64, String) {
    let mut least = (f64::INFINITY, 0.0, String::new());
    for (q, &t) in qs.iter().zip(ts) {
        for (g, c) in sys.gaps(q).iter().zip(sys.contacts()) {
            let g = g / sys.length();
            assert!(!g.is_nan(), "{}: a gap is NaN at t = {t}", c.name);
            if g < least.0 {
                least = (g, t, c.name.clone());
            }
        }
    }
    least
}

#[test]
fn no_contact_of_a_dropped_robot_sinks_below_its_floor_event_driven() {
    for (name, scene, q0, t_max) in robots() {
        let v0 = vec![0.0; scene.tree.nv()];
        let sys = match EventScene::new(&scene, &q0) {
            Ok(s) => s,
            // (G1's boxes have 100 corners: the event driver refuses, naming time-stepping.)
            Err(e) => {
                assert!(e.to_string().contains("use time-stepping"), "{name}: {e}");
                continue;
            }
        };
        let run = simulate_events(&scene, &q0, &v0, &EventSettings { t_max, ..Default::default() }).unwrap();
        // Every robot runs to the end, but G1: its flat soles (four spheres each) make the
        // impact problem so redundant that Gauss–Seidel stalls at 0.71 s, and the run says so
        // (a failure, exit 3 on the command line), with every gap up to there in order. And
        // the humanoid, on its joints' stops: it ends at 1.45 s at the rigid model's verdict,
        // its left foot sliding (μ = 1) with a negative normal response to its own friction.
        let failed = matches!(run.termination, Termination::Failed(_));
        let painleve_foot = match &run.termination {
            Termination::Failed(f) => match (&f.kind, &f.evidence) {
                (
                    FailureKind::Painleve,
                    Some(FailureEvidence::ContactProblem { contact: Some(c), b_hat: Some(b), .. }),
                ) => Some((sys.contacts()[*c].name.clone(), *b)),
                _ => None,
            },
            _ => None,
        };
        if name == "humanoid.xml" {
            let (foot, b_hat) = painleve_foot.expect("the humanoid's fall ends at Painlevé's signature");
            assert_eq!(foot, "left_foot:0/0");
            assert!(b_hat < -0.01 && *run.t.last().unwrap() > 1.4, "B̂ = {b_hat} at t = {:?}", run.t.last());
        } else {
            assert!(
                matches!(run.termination, Termination::TimeLimit | Termination::Rest)
                    || (failed && name.starts_with("g1")),
                "{name}: ended {:?} at t = {:?}",
                run.termination,
                run.t.last()
            );
        }
        let (g, t, c) = least_gap(&sys, &run.q, &run.t);
        // A free contact is caught one contact tolerance below its plane (the penetration
        // net), and the transition lifts it back.
        assert!(g >= -2.0 * CONTACT_TOL, "{name}: {c} is {g} length scales below its plane at t = {t}");
    }
}

#[test]
fn moreau_jean_penetrates_at_most_a_step_of_the_approach() {
    // Moreau–Jean holds the contacts at the velocity level: a contact enters the step's
    // problem once its gap predicted over the step closes, and may then lie up to one step's
    // travel `h u_n` below its plane. The least gap is bounded by the fastest approach of any
    // contact in the run times h.
    for (name, scene, q0, t_max) in robots() {
        let v0 = vec![0.0; scene.tree.nv()];
        let Ok(sys) = EventScene::new(&scene, &q0) else { continue };
        for h in [1e-3, 2.5e-4] {
            let s = MoreauSettings { h, ..Default::default() };
            let run = simulate(&scene, &q0, &v0, t_max.min(1.0), 1, &s).unwrap();
            let approach = run
                .q
                .iter()
                .zip(&run.v)
                .flat_map(|(q, v)| sys.normal_velocities(q, v).unwrap())
                .fold(0.0, |a: f64, u| a.max(-u));
            let (g, t, c) = least_gap(&sys, &run.q, &run.t);
            let bound = h * approach / sys.length();
            assert!(
                g >= -bound,
                "{name}, h = {h}: {c} is {g} length scales below its plane at t = {t} (bound {bound})"
            );
        }
    }
}

#[test]
fn walker2d_on_its_joint_stops_never_sinks_unseen() {
    // With its stops held, walker2d comes down upright with its
    // heels, first-order dependent constraints (both under the joints' axes), at one height: a
    // Zeno completion closed one a little above the floor (it joined contacts up to 1e-6 of the
    // largest gap) and the projection then lowered the other below the contact tolerance,
    // where neither of its guards arms. It sank unseen (3.4 tolerances at 1.41 s); then the
    // transition was refused (1.38 s). Now the completion joins within the tolerance only and
    // the run reaches its end, every sample within the penetration net.
    let m = crate::common::open3(&robots_dir().join("mujoco/walker2d.xml"), None).unwrap();
    let scene = m.scene(None, 0.0);
    let v0 = vec![0.0; scene.tree.nv()];
    let run = simulate_events(&scene, &m.q0, &v0, &EventSettings { t_max: 2.0, ..Default::default() }).unwrap();
    let sys = EventScene::new(&scene, &m.q0).unwrap();
    assert_eq!(run.termination, Termination::TimeLimit, "{:?}", run.events.last());
    let (g, t, c) = least_gap(&sys, &run.q, &run.t);
    assert!(g >= -2.0 * CONTACT_TOL, "{c} is {g} length scales below its plane at t = {t}");
    // The stops held throughout (within the contact tolerance, an arc at the length scale).
    for q in &run.q {
        for l in &scene.limits {
            assert!(l.violation(q) <= 1e-9 * (l.upper - l.lower).max(1.0), "{} past a stop", l.name);
        }
    }
}
