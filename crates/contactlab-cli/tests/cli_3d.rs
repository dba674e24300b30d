//! End-to-end tests of the `contactlab` binary on robots in 3-D: inspection against MuJoCo,
//! gaits, both simulation methods, their early ends and the collisions they ignore.

mod common;
use common::{data, run, stderr, tmpdir};
use std::path::Path;

#[test]
fn model_inspect_reads_robots_in_3d_as_mujoco_does() {
    // Gymnasium's ant at MuJoCo's first reference state (tests/data/mujoco/ant.json): the
    // printed M and bias are MuJoCo's, through the front end.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let reference: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("crates/contactlab/tests/data/mujoco/ant.json")).unwrap(),
    )
    .unwrap();
    let s = &reference["states"][0];
    let state: Vec<String> = s["q"]
        .as_array()
        .unwrap()
        .iter()
        .chain(s["v"].as_array().unwrap())
        .map(|x| x.as_f64().unwrap().to_string())
        .collect();
    let xml = root.join("data/robots/mujoco/ant.xml");
    let o = run(&["model", "inspect", xml.to_str().unwrap(), "--state", &state.join(","), "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["model"]["coordinates"][3], "root.qw");
    assert_eq!(v["model"]["velocities"].as_array().unwrap().len(), 14);
    let (m, m_ref) = (v["mass_matrix"].as_array().unwrap(), s["mass_matrix"].as_array().unwrap());
    for (row, row_ref) in m.iter().zip(m_ref) {
        for (x, y) in row.as_array().unwrap().iter().zip(row_ref.as_array().unwrap()) {
            assert!((x.as_f64().unwrap() - y.as_f64().unwrap()).abs() < 1e-9, "{x} vs {y}");
        }
    }
    for (h, b) in v["bias"].as_array().unwrap().iter().zip(s["qfrc_bias"].as_array().unwrap()) {
        assert!((h.as_f64().unwrap() + b.as_f64().unwrap()).abs() < 1e-8);
    }
    assert!(v["check"]["mass_matrix"].as_f64().unwrap() < 1e-12 && v["check"]["energy_rate"].as_f64().unwrap() < 1e-6);
    assert!(v["check"]["contact_jacobians"].as_f64().unwrap() < 1e-6);
    // The floor against every capsule's ends: gaps and Jacobians of each candidate point.
    let contacts = v["contacts"].as_array().unwrap();
    assert!(contacts.iter().all(|c| c["plane"] == "floor" && c["normal_jacobian"].as_array().unwrap().len() == 14));
    // A URDF in 3-D with a floating base; --base is refused for an MJCF file.
    let a1 = root.join("data/robots/a1.urdf");
    let o = run(&["model", "inspect", a1.to_str().unwrap(), "--base", "floating", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["model"]["coordinates"][6], "root_joint.qw");
    let o = run(&["model", "inspect", xml.to_str().unwrap(), "--base", "fixed"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--base") && stderr(&o).lines().count() == 1, "{}", stderr(&o));
}

#[test]
fn gait_finds_the_3d_rimless_wheel_s_steady_rolling_from_its_scene() {
    // The scene's [gait] table: the wheel's tenfold symmetry and the floor's translations. The
    // JSON names the chart's coordinates; the steady rolling falls over sideways. A bare MJCF
    // file has no [gait] table: exit 2 with the key named.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let scene = root.join("examples/spatial/rimless-wheel.toml");
    let o = run(&["gait", scene.to_str().unwrap(), "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["converged"], true, "{v}");
    assert_eq!(v["derivatives"]["route"], "variational");
    assert_eq!(v["coordinates"][0], "d.wheel.wx");
    assert_eq!(v["multipliers"].as_array().unwrap().len(), 5);
    assert_eq!(v["stable"], false);
    let o = run(&["gait", root.join("examples/spatial/rimless-wheel.xml").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("[gait] table"), "{}", stderr(&o));
}

#[test]
fn simulate_runs_robots_in_3d_event_driven_and_by_time_stepping() {
    // Gymnasium's hopper (its root: two slides and a hinge) let go at MuJoCo's reference state:
    // it falls onto the floor and comes to rest, never gaining energy (the floor's and its
    // geoms' friction 0.9 and 1, plastic impacts). Event-driven (the default): the foot's two
    // ends strike together, stick, and the upright hopper stands.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let xml = root.join("data/robots/mujoco/hopper.xml");
    let o = run(&["simulate", xml.to_str().unwrap(), "--t-max", "1.5", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["method"], "event");
    assert_eq!(v["end"], "time-limit");
    assert_eq!(v["termination"]["reason"], "time-limit");
    let events = v["events"].as_array().unwrap();
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0]["kind"], "impact");
    // (The foot's two ends stick; the three joints' six stop sides stay open.)
    assert_eq!(events[0]["modes"], "FFFFFFSSFFFFFF");
    assert_eq!(v["contact_names"][8], "thigh_joint/lower");
    assert!(events[0]["energy_loss"].as_f64().unwrap() > 0.0);
    // Upright on its foot it is an inverted pendulum (its thigh and leg on their upper stops,
    // unloaded): what the impact's solution leaves (3e-11 of a 0.89 m/s landing) grows, at a
    // rate nearing 3.4/s, to 1.2e-9 by 1.5 s; it still stands.
    let last_v = v["v"].as_array().unwrap().last().unwrap().as_array().unwrap().clone();
    assert!(last_v.iter().all(|x| x.as_f64().unwrap().abs() < 1e-8), "not still: {last_v:?}");
    let last_q = v["q"].as_array().unwrap().last().unwrap().as_array().unwrap().clone();
    assert!((last_q[1].as_f64().unwrap() - 1.21).abs() < 1e-9, "not standing: {last_q:?}");
    // Moreau–Jean.
    let out = tmpdir("spatial-sim");
    let o = run(&[
        "simulate",
        xml.to_str().unwrap(),
        "--method",
        "moreau",
        "--t-max",
        "1.5",
        "--json",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["end"], "completed");
    assert_eq!(v["coordinates"][0], "rootx");
    let e: Vec<f64> = v["energy"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
    assert!(e.windows(2).all(|w| w[1] <= w[0] + 1e-6 * w[0].abs()), "energy gained: {e:?}");
    let last_v = v["v"].as_array().unwrap().last().unwrap().as_array().unwrap().clone();
    assert!(last_v.iter().all(|x| x.as_f64().unwrap().abs() < 1e-6), "not at rest: {last_v:?}");
    assert!(v["contacts"].as_array().unwrap().last().unwrap().as_u64().unwrap() >= 1);
    let csv = std::fs::read_to_string(out.join("trajectory.csv")).unwrap();
    assert!(csv.starts_with("t,rootx,rootz,rooty,"));
    std::fs::remove_dir_all(out).ok();
    let o = run(&["simulate", xml.to_str().unwrap(), "--base", "floating"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn a_simulation_that_ends_early_keeps_its_output_and_exits_3_saying_what_to_change() {
    // Moreau–Jean stopped before --t-max once exited 0 (walker2d: `iteration-limit` at 1.938 s
    // of 2). One Gauss–Seidel sweep per step cannot settle the first contact.
    let walker = data().join("robots/mujoco/walker2d.xml");
    let out = tmpdir("early");
    let o = run(&[
        "simulate",
        walker.to_str().unwrap(),
        "--method",
        "moreau",
        "--max-sweeps",
        "1",
        "--t-max",
        "1",
        "--json",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["end"], "iteration-limit");
    assert!(v["t"].as_array().unwrap().last().unwrap().as_f64().unwrap() < 1.0);
    assert!(stderr(&o).contains("--max-sweeps"), "{}", stderr(&o));
    assert!(out.join("trajectory.csv").is_file(), "the output of an incomplete run is kept");
    std::fs::remove_dir_all(&out).ok();
    // The event driver at its event limit.
    let o = run(&["simulate", walker.to_str().unwrap(), "--max-events", "2", "--t-max", "2"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("event-limit") && stderr(&o).contains("--max-events"), "{}", stderr(&o));
    // `auto` runs the event driver on a block's 8 candidate contacts and on walker2d's 14 (its
    // joints' stops not counted), Moreau–Jean on the humanoid's 29.
    let block = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/spatial/rocking-block.xml");
    let o = run(&["simulate", block.to_str().unwrap(), "--method", "auto", "--t-max", "0.2", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(serde_json::from_slice::<serde_json::Value>(&o.stdout).unwrap()["method"], "event");
    let o = run(&["simulate", walker.to_str().unwrap(), "--method", "auto", "--t-max", "0.2", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(serde_json::from_slice::<serde_json::Value>(&o.stdout).unwrap()["method"], "event");
    let humanoid = data().join("robots/mujoco/humanoid.xml");
    let o = run(&["simulate", humanoid.to_str().unwrap(), "--method", "auto", "--t-max", "0.2", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(serde_json::from_slice::<serde_json::Value>(&o.stdout).unwrap()["method"], "moreau");
}

#[test]
fn a_body_that_collides_only_through_a_mesh_is_named_on_stderr_and_in_the_result() {
    // Laikago's chassis collides through a mesh: it fell 4.6 m through the floor without a
    // word. Here a chassis with a mesh (and an <inertial>, as MuJoCo's models give) on a leg
    // with a sphere foot.
    let dir = tmpdir("mesh");
    let xml = dir.join("meshbot.xml");
    std::fs::write(
        &xml,
        r#"<mujoco><asset><mesh name="chassis" file="chassis.stl"/></asset><worldbody>
             <geom name="floor" type="plane" size="5 5 0.1"/>
             <body name="chassis" pos="0 0 0.5"><freejoint/>
               <inertial pos="0 0 0" mass="5" diaginertia="0.1 0.1 0.1"/>
               <geom type="mesh" mesh="chassis"/>
               <body name="leg" pos="0 0 -0.2"><joint name="hip" type="hinge" axis="0 1 0"/>
                 <geom type="sphere" size="0.05" mass="0.5"/></body>
             </body></worldbody></mujoco>"#,
    )
    .unwrap();
    for method in ["event", "moreau"] {
        let o = run(&["simulate", xml.to_str().unwrap(), "--method", method, "--t-max", "0.3", "--json"]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(v["ignored_collisions"], serde_json::json!(["chassis (mesh geom)"]));
        assert!(stderr(&o).contains("warning: 1 body collides only through meshes"), "{}", stderr(&o));
    }
    // A mesh that cannot touch the floor (its collision bits) is not named.
    let quiet = std::fs::read_to_string(&xml)
        .unwrap()
        .replace(r#"mesh="chassis"/>"#, r#"mesh="chassis" contype="0" conaffinity="0"/>"#);
    std::fs::write(&xml, quiet).unwrap();
    let o = run(&["simulate", xml.to_str().unwrap(), "--t-max", "0.3", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["ignored_collisions"], serde_json::json!([]));
    assert!(!stderr(&o).contains("warning"), "{}", stderr(&o));
    std::fs::remove_dir_all(dir).ok();
}
