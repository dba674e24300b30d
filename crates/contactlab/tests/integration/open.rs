//! `api::open`: what a file is, decided once, and the commands over it (`inspect`, `simulate`)
//! that take a planar mechanism and a robot in 3-D alike.

use std::path::{Path, PathBuf};

use contactlab::api::{self, Inspection, MechanismModel, SimulateSettings, SpatialMethod};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn kind(m: &MechanismModel) -> &'static str {
    match m {
        MechanismModel::Planar(_) => "planar",
        MechanismModel::Spatial(_) => "3-D",
    }
}

#[test]
fn every_kind_of_file_opens_as_one_type() {
    let r = root();
    for (path, base, want) in [
        ("examples/multibody/kneed-walker.toml", None, "planar"),
        ("examples/multibody/urdf/five-link-biped.urdf", Some("planar"), "planar"),
        ("examples/multibody/urdf/yz-hopper.urdf", None, "3-D"),
        ("data/robots/ur5_robot.urdf", Some("floating"), "3-D"),
        ("data/robots/mujoco/hopper.xml", None, "3-D"),
        ("examples/spatial/eulers-disk.toml", None, "3-D"),
    ] {
        let m = api::open(&r.join(path), base).unwrap_or_else(|e| panic!("{path}: {e}"));
        assert_eq!(kind(&m), want, "{path} with base {base:?}");
        // The one entry per command answers for either kind, with its own kind of result.
        let i = api::inspect(&m, None, 0.0).unwrap_or_else(|e| panic!("{path}: {e}"));
        assert_eq!(matches!(i, Inspection::Planar(_)), want == "planar", "{path}");
    }
    // A URDF's base on a file that says it itself, or a base that is not one, is refused.
    for (path, base) in [
        ("data/robots/mujoco/hopper.xml", Some("fixed")),
        ("examples/multibody/kneed-walker.toml", Some("floating")),
        ("data/robots/ur5_robot.urdf", Some("sideways")),
    ] {
        let e = api::open(&r.join(path), base).unwrap_err();
        assert!(e.to_string().contains("base"), "{path}: {e}");
    }
    // Not a mechanism at all: the planar reader names the kind.
    let e = api::open(&r.join("examples/fixture/disk-mu0.2-0.5.toml"), None).unwrap_err();
    assert!(e.to_string().contains("kind") && e.to_string().contains("multibody"), "{e}");
}

#[test]
fn a_document_opens_as_its_file_does() {
    let r = root();
    for path in ["examples/multibody/kneed-walker.toml", "examples/spatial/eulers-disk.toml"] {
        let file = r.join(path);
        let doc = contactlab::model::ModelDoc::read(&file).unwrap();
        let (a, b) = (api::open(&file, None).unwrap(), api::open_doc(&doc).unwrap());
        assert_eq!(kind(&a), kind(&b), "{path}");
        let (ia, ib) = (api::inspect(&a, None, 0.0).unwrap(), api::inspect(&b, None, 0.0).unwrap());
        assert_eq!(serde_json::to_string(&ia).unwrap(), serde_json::to_string(&ib).unwrap(), "{path}");
    }
}

#[test]
fn simulate_runs_either_kind_and_refuses_what_a_planar_model_does_not_take() {
    let r = root();
    let planar = api::open(&r.join("examples/multibody/compass-biped.toml"), None).unwrap();
    let s = SimulateSettings { t_max: 0.2, ..Default::default() };
    let run = api::simulate(&planar, None, &s).unwrap().into_planar().unwrap();
    assert!(run.t_end > 0.0);
    // The planar run is the planar engine's own, bit for bit.
    let m = planar.planar().unwrap();
    let own = contactlab::multibody::simulate::simulate(
        m,
        &m.q0,
        &m.v0,
        &contactlab::multibody::simulate::SimulateSettings { t_max: 0.2, ..Default::default() },
    )
    .unwrap();
    assert_eq!(serde_json::to_string(&run).unwrap(), serde_json::to_string(&own).unwrap());
    for (bad, key) in [
        (SimulateSettings { method: SpatialMethod::Moreau, ..s }, "method"),
        (SimulateSettings { mu: Some(0.5), ..s }, "mu"),
    ] {
        let e = api::simulate(&planar, None, &bad).unwrap_err();
        assert!(matches!(&e, contactlab::Error::Argument { name, .. } if name == key), "{e}");
    }
    let robot = api::open(&r.join("examples/spatial/eulers-disk.toml"), None).unwrap();
    let run = api::simulate(&robot, None, &s).unwrap();
    assert!(run.clone().into_planar().is_err());
    assert!(run.into_spatial().unwrap().t.last().is_some_and(|&t| t > 0.0));
}

#[test]
fn stance_takes_robots_in_3d_and_orbit_planar_mechanisms_each_saying_so() {
    let r = root();
    let planar = api::open(&r.join("examples/multibody/p3-double-pendulum-pd-e0.5.toml"), None).unwrap();
    let robot = api::open(&r.join("examples/spatial/a1-standing.toml"), None).unwrap();
    let s = api::StanceSettings::default();
    let e = api::stance(&planar, None, &s, None).unwrap_err().to_string();
    assert!(e.contains("stance") && e.contains("planar mechanism"), "{e}");
    let e = api::orbit(&robot, None, "knee").unwrap_err().to_string();
    assert!(e.contains("orbit") && e.contains("planar mechanism"), "{e}");
    assert!(api::orbit(&planar, None, "knee stop").unwrap().orbit.converged);
    // The stance on the feet named: all four, or an unknown name refused by its entry.
    let all = api::stance(&robot, None, &s, None).unwrap();
    let feet: Vec<String> = ["FL_foot", "FR_foot", "RL_foot", "RR_foot"].map(String::from).to_vec();
    let named = api::stance(&robot, None, &s, Some(&feet)).unwrap();
    assert_eq!(all.contacts.len(), named.contacts.len());
    assert_eq!(all.classification.weakly_stable, named.classification.weakly_stable);
    let bad = vec!["FL_foot".to_string(), "tail".to_string()];
    let e = api::stance(&robot, None, &s, Some(&bad)).unwrap_err();
    assert!(
        matches!(&e, contactlab::Error::Argument { name, message } if name == "contacts" && message.contains("tail (entry 2)")),
        "{e}"
    );
}

#[test]
fn gait_and_basin_need_a_gait_table_in_3d_and_say_so() {
    use contactlab::multibody::basin::{BasinAxis, BasinSettings};
    let r = root();
    let bare = api::open(&r.join("data/robots/a1.urdf"), Some("floating")).unwrap();
    let e = api::gait(&bare, None, None).unwrap_err().to_string();
    assert!(e.contains("a1.urdf: gait: ") && e.contains("[gait] table") && e.contains("--base planar"), "{e}");
    let axes = [BasinAxis { name: "trunk.wx".into(), lo: 0.0, hi: 1.0, n: 2 }];
    let s = BasinSettings::default();
    let e = api::basin(&bare, &axes, None, &s, &|_, _| {}).unwrap_err().to_string();
    assert!(e.contains("a1.urdf: basin: ") && e.contains("[gait] table"), "{e}");
    let e = api::basin_plan(&bare, &["trunk.wx".into()], None, &s).unwrap_err().to_string();
    assert!(e.contains("a1.urdf: basin: "), "{e}");
    let scene = api::open(&r.join("examples/spatial/a1-standing.toml"), None).unwrap();
    let e = api::gait(&scene, None, None).unwrap_err().to_string();
    assert!(e.contains("no [gait] table"), "{e}");
    let e = api::basin(&scene, &axes, None, &s, &|_, _| {}).unwrap_err().to_string();
    assert!(e.contains("no [gait] table"), "{e}");
}

#[test]
fn a_planar_gait_from_a_state_is_the_gait_the_search_found() {
    // P2's rimless wheel: the gait the search finds from nothing is found again by Newton's
    // method alone from its own post-strike state, and from a state off it; a state of the wrong
    // length is refused by name.
    let m = api::open(&root().join("examples/multibody/rimless-wheel.toml"), None).unwrap();
    let found = api::gait(&m, None, None).unwrap().into_planar().unwrap();
    let g = &found.gaits[0];
    let x: Vec<f64> = g.q.iter().chain(&g.v).copied().collect();
    let again = api::gait(&m, Some(&x), None).unwrap().into_planar().unwrap();
    assert_eq!((again.starts, again.gaits.len()), (1, 1), "{:?}", again.reason);
    assert!((again.gaits[0].period - g.period).abs() <= 1e-9 * g.period, "{} {}", again.gaits[0].period, g.period);
    let mut off = x.clone();
    let last = off.len() - 1;
    off[last] *= 1.01;
    let near = api::gait(&m, Some(&off), None).unwrap().into_planar().unwrap();
    assert!((near.gaits[0].period - g.period).abs() <= 1e-9 * g.period, "{:?}", near.reason);
    let e = api::gait(&m, Some(&x[..1]), None).unwrap_err().to_string();
    assert!(e.contains("state"), "{e}");
}
