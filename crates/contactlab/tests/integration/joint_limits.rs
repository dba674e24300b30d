//! Joint limits in 3-D (MJCF `range`, URDF `<limit>`) held as hard stops by Moreau–Jean and by
//! the event driver: real files dropped or left to fall, every limited joint read at every
//! sample, and the stance they end in checked against its closed form.

use std::path::{Path, PathBuf};

use contactlab::api::{SimulateSettings, SpatialMethod};
use contactlab::spatial::timestep::JointLimit;

fn robots_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/robots")
}

/// The largest excursion past a stop over the samples, relative to the joint's range.
fn worst_excursion(limits: &[JointLimit], qs: &[Vec<f64>]) -> (f64, String) {
    let mut worst = (0.0, String::new());
    for q in qs {
        for l in limits {
            let x = l.violation(q) / (l.upper - l.lower).max(1.0);
            if x > worst.0 {
                worst = (x, l.name.clone());
            }
        }
    }
    worst
}

/// A run of the ant from qpos0 started its four ankles on their stops, kept every joint within
/// `1e-9` of its range (the event driver's contact tolerance, a step's clamp), and ended
/// with the torso within `tol` of the stance on the 30° stops, `0.08 + 0.4√2 sin 30°`.
fn ant_stands_on_its_stops(limits: &[JointLimit], start_clamped: &[String], qs: &[Vec<f64>], tol: f64) {
    let mut clamped = start_clamped.to_vec();
    clamped.sort();
    assert_eq!(clamped, ["ankle_1", "ankle_2", "ankle_3", "ankle_4"]);
    let (worst, name) = worst_excursion(limits, qs);
    assert!(worst <= 1e-9, "{name} is {worst:e} of its range past a stop");
    let z = qs.last().unwrap()[2];
    let expected = 0.08 + 0.4 * 2f64.sqrt() * 0.5;
    assert!((z - expected).abs() < tol, "torso at {z} m, the stance puts it at {expected} m");
}

fn moreau(t_max: f64) -> SimulateSettings {
    SimulateSettings { t_max, method: SpatialMethod::Moreau, every: 5, ..Default::default() }
}

#[test]
fn gymnasiums_ant_stands_on_its_legs_with_every_joint_in_range() {
    // MuJoCo's qpos0 puts the ankles at 0, outside their ranges (30°..70° and −70°..−30°): the
    // run starts them on the nearest stop (30°), the ant lands on its feet and stands, each
    // foot's capsule (radius 0.08) at the end of its ankle segment (0.4√2 long) turned 30°
    // below the torso's plane by the stop: the torso at 0.08 + 0.4√2 sin 30° = 0.3628 m.
    // (It lay on its belly, torso at 0.25 m, with the ranges ignored.)
    let m = crate::common::open3(&robots_dir().join("mujoco/ant.xml"), None).unwrap();
    assert_eq!(m.limits.len(), 8, "four hips and four ankles are limited");
    let ankle = m.limits.iter().find(|l| l.name == "ankle_1").unwrap();
    assert!((ankle.lower - 30f64.to_radians()).abs() < 1e-15 && (ankle.upper - 70f64.to_radians()).abs() < 1e-15);
    let r = crate::common::simulate3(&m, None, &moreau(1.0)).unwrap();
    assert_eq!(r.end, "completed");
    ant_stands_on_its_stops(&m.limits, &r.start_clamped, &r.q, 2e-3);

    // From ankles at ±60° (inside the ranges) it stands on them as they are, torso at
    // 0.08 + 0.4√2 sin 60° (MuJoCo's soft contacts let the feet creep: 0.583 m at 2 s).
    let mut q = m.q0.clone();
    let a = 60f64.to_radians();
    q[7..].copy_from_slice(&[0.0, a, 0.0, -a, 0.0, -a, 0.0, a]);
    let r = crate::common::simulate3(&m, Some(&q), &moreau(1.0)).unwrap();
    assert!(r.start_clamped.is_empty());
    let z = r.q.last().unwrap()[2];
    let expected = 0.08 + 0.4 * 2f64.sqrt() * a.sin();
    assert!((z - expected).abs() < 2e-3, "torso at {z} m, the stance puts it at {expected} m");
    assert!(worst_excursion(&m.limits, &r.q).0 <= 1e-9);
}

#[test]
fn the_pandas_fingers_stay_in_their_range() {
    // The Panda hanging from its fixed base, no contacts, 2 s: its arm folds under gravity onto
    // its stops and the fingers slide to theirs. The fingers left [0, 0.04] m by 16.8 m.
    let m = panda();
    assert_eq!(m.limits.len(), 9, "seven arm joints and two fingers");
    let finger = m.limits.iter().find(|l| l.name == "panda_finger_joint1").unwrap();
    assert_eq!((finger.lower, finger.upper), (0.0, 0.04));
    let r = crate::common::simulate3(&m, None, &moreau(2.0)).unwrap();
    assert_eq!(r.end, "completed");
    panda_holds_its_stops(&m.limits, &r);
}

fn panda() -> contactlab::api::SpatialModel {
    let path = robots_dir().join("panda.urdf");
    crate::common::open3(&path, Some("fixed")).unwrap()
}

/// A run of the Panda from its neutral configuration started joint 4 on its upper stop (the
/// configuration puts it at 0, above −0.0698), kept every joint within `1e-9` of its range, and
/// brought each finger to a stop on the way (the arm's swing throws them along their axes): the
/// stops are engaged, not merely never reached.
fn panda_holds_its_stops(limits: &[JointLimit], r: &contactlab::api::SpatialSimulation) {
    assert_eq!(r.start_clamped, ["panda_joint4"]);
    let (worst, name) = worst_excursion(limits, &r.q);
    assert!(worst <= 1e-9, "{name} is {worst:e} of its range past a stop");
    for l in limits.iter().filter(|l| l.name.contains("finger")) {
        let met = r.q.iter().any(|q| (q[l.qpos] - l.lower).abs() < 1e-9 || (q[l.qpos] - l.upper).abs() < 1e-9);
        assert!(met, "{} never meets a stop", l.name);
    }
}

#[test]
fn the_event_driver_holds_the_ants_stops() {
    // The event driver (`auto` time-steps the ant: over 16 candidate contacts): from qpos0 the
    // ankles start on their stops, the four feet strike at once and the ant stands at the
    // closed-form height, exactly (no step's drift to project away).
    let m = crate::common::open3(&robots_dir().join("mujoco/ant.xml"), None).unwrap();
    let event = SimulateSettings { t_max: 1.0, method: SpatialMethod::Event, ..Default::default() };
    let r = crate::common::simulate3(&m, None, &event).unwrap();
    assert_eq!(r.end, "time-limit");
    ant_stands_on_its_stops(&m.limits, &r.start_clamped, &r.q, 1e-9);
    let names = r.contact_names.unwrap();
    assert_eq!(names.iter().filter(|n| n.ends_with("/lower") || n.ends_with("/upper")).count(), 16, "{names:?}");

    // With the stops switched off the same drop runs the joints free, past their ranges.
    use contactlab::spatial::events::{simulate_events, EventSettings};
    let scene = m.scene(None, 0.0);
    let free = EventSettings { t_max: 1.0, stops: false, ..Default::default() };
    let r = simulate_events(&scene, &m.q0, &vec![0.0; scene.tree.nv()], &free).unwrap();
    assert!(r.start_clamped.is_empty());
    assert!(worst_excursion(&m.limits, &r.q).0 > 0.1);
}

#[test]
fn the_event_driver_holds_the_pandas_fingers_on_their_stops() {
    // The Panda falling from its neutral configuration, event-driven (`auto`'s choice without
    // contacts): the joints strike their stops and the fingers meet theirs, each held to the
    // contact tolerance.
    let m = panda();
    let r = crate::common::simulate3(&m, None, &SimulateSettings { t_max: 1.0, ..Default::default() }).unwrap();
    assert_eq!(r.method, SpatialMethod::Event);
    assert_eq!(r.end, "time-limit");
    panda_holds_its_stops(&m.limits, &r);
}

/// The 3-D compass walker's scene (examples/spatial) with hip stops `[lower, upper]` and
/// `settle` strikes before Newton's method, written beside a copy of its MJCF file.
fn compass_walker_with_hip_stops(tag: &str, lower: f64, upper: f64, settle: usize) -> contactlab::api::SpatialModel {
    let ex = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/spatial");
    let dir = std::env::temp_dir().join(format!("contactlab-hip-stops-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(ex.join("compass-walker.xml"), dir.join("compass-walker.xml")).unwrap();
    let stops: String = ["left_hip", "right_hip"]
        .iter()
        .map(|j| format!("[[joint]]\nname = \"{j}\"\nlower = {lower}\nupper = {upper}\n\n"))
        .collect();
    let text = std::fs::read_to_string(ex.join("compass-walker.toml")).unwrap();
    // (The file's comments name `settle = 0` too: the key is the one at a line's start.)
    let text = text.replacen("[walking]", &format!("{stops}[walking]"), 1).replacen(
        "\nsettle = 0",
        &format!("\nsettle = {settle}"),
        1,
    );
    let path = dir.join("compass-walker.toml");
    std::fs::write(&path, text).unwrap();
    crate::common::open3(&path, None).unwrap()
}

#[test]
fn three_d_gaits_hold_the_joints_stops_and_strike_with_their_feet_only() {
    use contactlab::multibody::gait::GaitSettings;
    let s = GaitSettings::spatial();
    // Stops the gait never reaches leave it as it is: the stops' contacts take no part in the
    // section, the chart or the strikes.
    let ex = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/spatial/compass-walker.toml");
    let free = crate::common::gait3(&crate::common::open3(&ex, None).unwrap(), None, &s).unwrap();
    let wide = crate::common::gait3(&compass_walker_with_hip_stops("wide", -1.0, 1.0, 0), None, &s).unwrap();
    assert!(free.converged && wide.converged, "{:?} {:?}", free.reason, wide.reason);
    let (a, b) = (free.y.unwrap(), wide.y.unwrap());
    assert!(a.iter().zip(&b).all(|(x, y)| (x - y).abs() <= 1e-9 * (1.0 + x.abs())), "{a:?} vs {b:?}");
    // A stop the swinging leg reaches (0.35 rad forward; the gait's leading leg is at 0.199 at
    // its strike) is held: the hip strikes it at 0.102 s, and the stance foot then slides into
    // Painlevé's inconsistency. The stop's impact is not a step: the settling run ends
    // without a strike of a foot (counting it, Newton started from it and found no return).
    let hit = crate::common::gait3(&compass_walker_with_hip_stops("hit", -1.0, 0.35, 1), None, &s).unwrap();
    assert!(!hit.converged);
    let why = hit.reason.unwrap_or_default();
    assert!(why.starts_with("the motion never strikes") && why.contains("failed"), "{why}");
}

#[test]
fn painleves_parts_in_3d_hold_a_joint_at_its_stop_locked() {
    use contactlab::api::PainleveSettings;
    use contactlab::spatial::events::EventScene;
    use nalgebra::{DMatrix, DVector};
    // The compass walker's post-strike state with its leading hip exactly at an upper stop.
    let plain = compass_walker_with_hip_stops("plain", -1.0, 1.0, 0);
    let q = plain.q0.clone();
    let at_stop = compass_walker_with_hip_stops("at-stop", -1.0, q[5], 0);
    let s = |held: Option<Vec<String>>| PainleveSettings { contact: "right_foot".into(), held, ..Default::default() };
    // By default the stop the joint is at is held, as a touching contact at rest is.
    let default = crate::common::painleve3(&at_stop, None, &s(None)).unwrap();
    assert!(default.held.iter().any(|h| h == "left_hip/upper"), "{:?}", default.held);
    // Held alone, it locks the hip: d = w_nᵀ P w_n equals w_n's quadratic form in the inverse
    // of the mass matrix without the hip's row and column (the walker with its hip welded).
    let locked = crate::common::painleve3(&at_stop, None, &s(Some(vec!["left_hip/upper".into()]))).unwrap();
    let free = crate::common::painleve3(&plain, None, &s(Some(vec![]))).unwrap();
    let scene = at_stop.scene(None, 0.0);
    let sys = EventScene::with_stops(&scene, &q).unwrap();
    let i = sys.contacts().iter().position(|c| c.name.starts_with("right_foot")).unwrap();
    let (_, rows) = sys.contact_rows(&q, i).unwrap();
    let m = at_stop.tree.mass_matrix(&q);
    let k = 5; // left_hip's velocity
    let keep: Vec<usize> = (0..m.nrows()).filter(|&r| r != k).collect();
    let reduced = DMatrix::from_fn(keep.len(), keep.len(), |a, b| m[(keep[a], keep[b])]);
    let w = DVector::from_fn(keep.len(), |a, _| rows[(0, keep[a])]);
    let expected = w.dot(&(reduced.cholesky().unwrap().inverse() * &w));
    let d = locked.over_directions.d;
    assert!((d - expected).abs() <= 1e-10 * expected.abs(), "{d} vs {expected}");
    // (The hip free gives another d: the stop acts.)
    let d_free = free.over_directions.d;
    assert!((d_free - expected).abs() > 1e-3 * expected.abs(), "{d_free} vs {expected}");
    // A stop cannot slip: naming one as the contact is refused, with the key.
    let bad = PainleveSettings { contact: "left_hip/upper".into(), ..Default::default() };
    let e = crate::common::painleve3(&at_stop, None, &bad).unwrap_err().to_string();
    assert!(e.contains("contact") && e.contains("stop"), "{e}");
}
