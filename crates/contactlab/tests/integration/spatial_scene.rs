//! 3-D scene files (`kind = "multibody"` naming a URDF with its `base`, or an MJCF file): the
//! ground, friction, contacts, joint springs and initial state they add to a robot file, the
//! way a bare path is read, and one-line errors.

use std::path::{Path, PathBuf};

use contactlab::api::SimulateSettings;
use contactlab::multibody::gait::GaitSettings;

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(rel)
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("contactlab-scene-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A 0.4 × 0.3 × 0.2 m box of 2 kg as a URDF link.
const BOX: &str = r#"<robot name="box">
  <link name="box">
    <inertial><mass value="2"/><inertia ixx="0.02166666666666667" iyy="0.03333333333333334" izz="0.04166666666666667" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><box size="0.4 0.3 0.2"/></geometry></collision>
  </link>
</robot>"#;

#[test]
fn a1_on_a_slope_scene_holds_its_feet_springs_ground_and_state() {
    let path = repo("examples/spatial/a1-on-a-slope.toml");
    let m = crate::common::open3(&path, None).unwrap();
    // Only the four feet touch (URDF collisions without a name are named after their link).
    let names: Vec<&str> = m.shapes.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["FL_foot", "FR_foot", "RL_foot", "RR_foot"]);
    assert_eq!(m.springs.len(), 12);
    // Springs about the standing pose (inside the URDF's joint limits): hips 0, thighs 0.7 rad,
    // calves −1.4 rad, each joint's in the file's order of its legs.
    let rest = |name: &str| {
        if name.contains("hip") {
            0.0
        } else if name.contains("thigh") {
            0.7
        } else {
            -1.4
        }
    };
    assert!(m
        .springs
        .iter()
        .all(|s| s.stiffness == 400.0 && s.reference.rest == rest(&m.coordinates[s.qpos]) && s.qpos == s.qvel + 1));
    assert_eq!(m.limits.len(), 12);
    assert!(m.limits.iter().all(|l| l.violation(&m.q0) == 0.0), "the standing pose is inside the joint limits");
    assert!(m.damping[..6].iter().all(|d| *d == 0.0) && m.damping[6..].iter().all(|d| *d == 4.0));
    let a = 10f64.to_radians();
    let n = m.planes[0].plane.normal;
    assert!((n - nalgebra::Vector3::new(-a.sin(), 0.0, a.cos())).norm() < 1e-15);
    assert_eq!((m.q0[2], m.q0[4], m.q0[6]), (0.3513, -(a / 2.0).sin(), (a / 2.0).cos()));
    assert_eq!(m.tree.gravity, nalgebra::Vector3::new(0.0, 0.0, -9.81));
    // Pitched with the slope, the four feet hang the same distance above it (the hips are
    // symmetric front to back), 1 to 3 cm.
    let i = crate::common::inspect3(&m, None, 0.0).unwrap();
    assert_eq!(i.contacts.len(), 4);
    for c in &i.contacts {
        assert!((c.gap - i.contacts[0].gap).abs() < 1e-12 && (0.01..0.03).contains(&c.gap), "{}", c.gap);
    }
}

#[test]
fn a_box_scene_slides_under_tilted_gravity_as_coulomb_says() {
    // Gravity tilted by α in the file (a vector), friction from `mu`: the box slides down +x
    // with a = g (sin α − μ cos α) (event-driven, slipping on its four bottom corners).
    let dir = scratch("slide");
    std::fs::write(dir.join("box.urdf"), BOX).unwrap();
    let (g, alpha, mu) = (9.81f64, 0.3f64, 0.2f64);
    let scene = format!(
        "kind = \"multibody\"\nurdf = \"box.urdf\"\nbase = \"floating\"\nmu = {mu}\n\
         gravity = [{}, 0.0, {}]\n[[ground]]\nname = \"floor\"\n[initial.q]\n\"root_joint.z\" = 0.1\n",
        g * alpha.sin(),
        -g * alpha.cos()
    );
    std::fs::write(dir.join("scene.toml"), scene).unwrap();
    let m = crate::common::open3(&dir.join("scene.toml"), None).unwrap();
    let r = crate::common::simulate3(&m, None, &SimulateSettings { t_max: 0.5, ..Default::default() }).unwrap();
    assert_eq!(r.end, "time-limit");
    let a = g * (alpha.sin() - mu * alpha.cos());
    for (t, q) in r.t.iter().zip(&r.q) {
        assert!((q[0] - 0.5 * a * t * t).abs() < 1e-8, "t = {t}: x = {} vs {}", q[0], 0.5 * a * t * t);
        assert!((q[2] - 0.1).abs() < 1e-9);
    }
    // The same box with `mu` above tan α stays put.
    std::fs::write(
        dir.join("stick.toml"),
        std::fs::read_to_string(dir.join("scene.toml")).unwrap().replace("mu = 0.2", "mu = 0.5"),
    )
    .unwrap();
    let m = crate::common::open3(&dir.join("stick.toml"), None).unwrap();
    let r = crate::common::simulate3(&m, None, &SimulateSettings { t_max: 0.5, ..Default::default() }).unwrap();
    assert!(r.q.last().unwrap()[0].abs() < 1e-12, "{:?}", r.q.last());
}

#[test]
fn a_bare_urdf_is_a_fixed_base_robot_unless_told_otherwise() {
    use contactlab::api::{open, MechanismModel};
    // (A fixed base is the URDF's own coordinates; a floating one adds the root's seven.)
    let nq = |m: &MechanismModel| m.spatial().map(|m| m.tree.nq());
    let ur5 = repo("data/robots/ur5_robot.urdf");
    assert_eq!(nq(&open(&ur5, None).unwrap()), Some(6));
    // (`planar` reads a URDF that moves in a plane as the planar mechanism; the UR5 does not.)
    let e = open(&ur5, Some("planar")).unwrap_err().to_string();
    assert!(e.contains("ur5_robot.urdf") && e.contains("one plane"), "{e}");
    let compass = repo("examples/multibody/drake/CompassGait.urdf");
    assert!(open(&compass, Some("planar")).unwrap().planar().is_some());
    assert!(open(&compass, None).unwrap().spatial().is_some());
    let a1 = repo("data/robots/a1.urdf");
    assert_eq!(nq(&open(&a1, None).unwrap()), Some(12));
    assert_eq!(nq(&open(&a1, Some("fixed")).unwrap()), Some(12));
    assert_eq!(nq(&open(&a1, Some("floating")).unwrap()), Some(19));
    let xml = repo("data/robots/mujoco/hopper.xml");
    assert!(open(&xml, None).unwrap().spatial().is_some());
    for (path, base) in
        [(xml.clone(), "fixed"), (xml, "planar"), (repo("examples/spatial/a1-on-a-slope.toml"), "fixed")]
    {
        let e = open(&path, Some(base)).unwrap_err().to_string();
        assert!(e.contains("base") && !e.contains('\n'), "{e}");
    }
    // A planar model file stays planar.
    assert!(open(&repo("examples/multibody/rocking-block.toml"), None).unwrap().planar().is_some());
    // A planar command on a 3-D scene says what to run instead.
    let e = contactlab::multibody::model::read(&repo("examples/spatial/a1-on-a-slope.toml")).unwrap_err().to_string();
    assert!(e.contains("a1-on-a-slope.toml") && e.contains("model inspect") && !e.contains('\n'), "{e}");
}

#[test]
fn scene_files_with_mistakes_get_one_line_errors_naming_the_key() {
    let dir = scratch("bad");
    std::fs::write(dir.join("box.urdf"), BOX).unwrap();
    let head = "kind = \"multibody\"\nurdf = \"box.urdf\"\nbase = \"floating\"\n";
    let cases: &[(&str, &[&str])] = &[
        // (A `urdf` without a `base` is a planar mechanism, docs/models.md: its reader answers.)
        ("kind = \"multibody\"\nurdf = \"box.urdf\"\nmu = 1\n", &["s0.toml: gravity", "missing"]),
        ("kind = \"multibody\"\nmjcf = \"x.xml\"\nbase = \"fixed\"\n", &["base", "MJCF"]),
        ("kind = \"multibody\"\nurdf = \"box.urdf\"\nmjcf = \"x.xml\"\n", &["not both"]),
        ("kind = \"multibody\"\nbase = \"fixed\"\n", &["urdf", "missing"]),
        ("kind = \"multibody\"\nurdf = \"box.urdf\"\nbase = \"flying\"\n", &["base", "fixed, floating"]),
        (&format!("{head}contacts = [\"wheel\"]\n"), &["contacts[0]", "wheel", "box"]),
        (&format!("{head}[[joint]]\nname = \"knee\"\nstiffness = 1\n"), &["joint[0].name", "knee"]),
        (&format!("{head}[[ground]]\nnormal = [0, 0, 0]\n"), &["ground[0].normal", "zero"]),
        (&format!("{head}[[ground]]\nnormal = [0, 1]\n"), &["ground[0].normal", "3 entries"]),
        (&format!("{head}[[ground]]\nfriction = 1\n"), &["ground[0].friction", "unknown key"]),
        (&format!("{head}mu = -1\n"), &["mu", ">= 0"]),
        (&format!("{head}gravity = [0, 0]\n"), &["gravity", "3 entries"]),
        (&format!("{head}[initial]\nq = [1, 2]\n"), &["initial.q", "7 entries"]),
        (&format!("{head}[initial.q]\nheight = 1\n"), &["initial.q.height", "root_joint.z"]),
        (&format!("{head}[initial]\nw = [1]\n"), &["initial.w", "unknown key"]),
        (&format!("{head}limit = 1\n"), &["limit", "planar"]),
        (&format!("{head}slope_deg = 100\n"), &["slope_deg"]),
        ("kind = \"multibody\"\nurdf = \"missing.urdf\"\nbase = \"fixed\"\n", &["missing.urdf"]),
        (&format!("{head}[gait]\ntranslation = [\"root_joint.qx\"]\n"), &["gait.translation[0]", "translational"]),
        (
            &format!("{head}[gait]\nsymmetry = {{ body = \"wheel\", axis = [0, 1, 0], order = 4 }}\n"),
            &["gait.symmetry.body", "wheel"],
        ),
        (
            &format!("{head}[gait]\nsymmetry = {{ body = \"box\", axis = [0, 1, 0], order = 2.5 }}\n"),
            &["gait.symmetry.order", "whole number"],
        ),
        (&format!("{head}[gait]\nsettle = -1\n"), &["gait.settle", "[0, 100000]"]),
        (&format!("{head}[walking]\nfeet = [\"box\"]\nforward = [1, 0, 0]\n"), &["walking.feet", "at least two"]),
        (&format!("{head}[walking]\nfeet = [\"box\", \"heel\"]\nforward = [1, 0, 0]\n"), &["walking.feet[1]", "heel"]),
        (&format!("{head}[walking]\nfeet = [\"box\", \"box\"]\nforward = [0, 0, 0]\n"), &["walking.forward", "zero"]),
        (
            &format!("{head}[walking]\nfeet = [\"box\", \"box\"]\nforward = [1, 0, 0]\nahead = -1\n"),
            &["walking.ahead", ">= 0"],
        ),
        (&format!("{head}[gait]\nmirror = {{ normal = [0, 1, 0], pairs = [[\"box\"]] }}\n"), &["gait.mirror.pairs[0]", "pair"]),
        (
            &format!("{head}[gait]\nmirror = {{ normal = [0, 1, 0], pairs = [[\"box\", \"lid\"]] }}\n"),
            &["gait.mirror.pairs[0]", "lid"],
        ),
        (
            &format!(
                "{head}[gait]\nsymmetry = {{ body = \"box\", axis = [0, 1, 0], order = 2 }}\nmirror = {{ normal = [0, 1, 0] }}\n"
            ),
            &["gait.mirror", "not both"],
        ),
        (&format!("{head}[gait]\nstrike = 1\n"), &["gait.strike", "unknown key"]),
    ];
    for (k, (text, expect)) in cases.iter().enumerate() {
        let path = dir.join(format!("s{k}.toml"));
        std::fs::write(&path, text).unwrap();
        let e = crate::common::open3(&path, None).map(|_| ()).unwrap_err().to_string();
        assert!(!e.contains('\n') && expect.iter().all(|x| e.contains(x)), "{text}\n-> {e}");
    }
}

#[test]
fn drake_s_compass_gait_urdf_in_3d_has_the_planar_engine_s_dynamics() {
    // The planar joint about y (Drake's frame M: z turned onto y) read in 3-D takes Pinocchio's
    // velocities, the translation in the joint's turning frame: v = T(θ) q̇ with T turning (ẋ, ẏ)
    // by −θ. The planar engine takes Drake's q̇. So M₂ = Tᵀ M₃ T and h₂ = Tᵀ (h₃ − M₃ Ṫ q̇), at
    // random states.
    use nalgebra::{DMatrix, DVector};
    let path = repo("examples/multibody/drake/CompassGait.urdf");
    let planar = contactlab::multibody::model::read(&path).unwrap();
    let m3 = crate::common::open3(&path, Some("fixed")).unwrap();
    assert_eq!(m3.coordinates, ["floating_base.x", "floating_base.y", "floating_base.theta", "hip_pin"]);
    let mut seed = 7u64;
    let mut rnd = || {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    };
    for _ in 0..5 {
        let (q, qd): (Vec<f64>, Vec<f64>) = ((0..4).map(|_| rnd()).collect(), (0..4).map(|_| 2.0 * rnd()).collect());
        let (c, s) = (q[2].cos(), q[2].sin());
        let mut t = DMatrix::identity(4, 4);
        t.fixed_view_mut::<2, 2>(0, 0).copy_from(&nalgebra::Matrix2::new(c, s, -s, c));
        let mut td = DMatrix::zeros(4, 4);
        td.fixed_view_mut::<2, 2>(0, 0).copy_from(&(nalgebra::Matrix2::new(-s, c, -c, -s) * qd[2]));
        let qdv = DVector::from_column_slice(&qd);
        let v3 = &t * &qdv;
        let state: Vec<f64> = q.iter().copied().chain(v3.iter().copied()).collect();
        let i3 = crate::common::inspect3(&m3, Some(&state), 0.0).unwrap();
        let mm3 = DMatrix::from_fn(4, 4, |r, k| i3.mass_matrix[r][k]);
        let h3 = DVector::from_column_slice(&i3.bias);
        let two: Vec<f64> = q.iter().chain(&qd).copied().collect();
        let i2 = crate::common::inspect_planar(&planar, Some(&two), 0.0).unwrap();
        let mm2 = DMatrix::from_fn(4, 4, |r, k| i2.mass_matrix[r][k]);
        let h2 = DVector::from_column_slice(&i2.bias);
        let scale = mm2.amax();
        assert!((t.transpose() * &mm3 * &t - &mm2).amax() < 1e-12 * scale, "{mm2} vs {mm3}");
        let h = t.transpose() * (h3 - &mm3 * (&td * &qdv));
        assert!((&h - &h2).amax() < 1e-11 * h2.amax(), "{h} vs {h2}");
    }
}

#[test]
fn a1_settles_on_its_feet_on_the_slope_by_time_stepping() {
    // examples/spatial/a1-on-a-slope.toml: μ = 0.8 > tan 10°, so the four feet land, stick and
    // the robot settles on its joint springs (stiff, damped: Moreau–Jean takes them implicitly).
    let m = crate::common::open3(&repo("examples/spatial/a1-on-a-slope.toml"), None).unwrap();
    let s = SimulateSettings { t_max: 2.5, method: contactlab::api::SpatialMethod::Moreau, ..Default::default() };
    let r = crate::common::simulate3(&m, None, &s).unwrap();
    assert_eq!((r.end.as_str(), r.unconverged), ("completed", Some(0)));
    assert_eq!(*r.contacts.last().unwrap(), 4);
    let (q, v) = (r.q.last().unwrap(), r.v.last().unwrap());
    // It rocks on its springs for about two seconds (the damping ratio is small).
    assert!(v.iter().all(|x| x.abs() < 1e-3), "{v:?}");
    // Landing moves the trunk by about a centimetre down the slope (its legs flex on their
    // springs); then nothing slides.
    assert!(q[0].abs() < 0.02 && (q[2] - 0.327).abs() < 0.005, "{q:?}");
    let k = r.t.iter().position(|t| *t >= 2.0).unwrap();
    assert!((r.q[k][0] - q[0]).abs() < 3e-5, "{} then {}", r.q[k][0], q[0]);
}

#[test]
fn a_3d_run_is_animated_as_a_gif_in_either_projection() {
    use contactlab::plot::render3d::{Projection, View3};
    let path = repo("examples/spatial/rocking-block.xml");
    let m = crate::common::open3(&path, None).unwrap();
    let r = crate::common::simulate3(&m, None, &SimulateSettings { t_max: 0.4, ..Default::default() }).unwrap();
    let dir = scratch("gif");
    for (name, projection) in [("p.gif", Projection::Perspective), ("o.gif", Projection::Orthographic)] {
        let view = View3 { projection, ..Default::default() };
        contactlab::api::spatial_animation(&m, &r, view, &dir.join(name)).unwrap();
        let bytes = std::fs::read(dir.join(name)).unwrap();
        assert!(bytes.starts_with(b"GIF89a") && bytes.len() > 10_000, "{name}: {} bytes", bytes.len());
    }
    let e = "fisheye".parse::<Projection>().unwrap_err().to_string();
    assert!(e.contains("view") && e.contains("orthographic"), "{e}");
}

#[test]
fn every_spatial_example_loads_and_runs() {
    // Each file of examples/spatial is read as the command line reads it and simulated for
    // 0.3 s, event-driven; none fails. The tipping box ends on its side, where Moreau–Jean
    // puts it.
    let dir = repo("examples/spatial");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    assert!(files.len() >= 7, "{files:?}");
    for f in &files {
        let m = crate::common::open3(f, None).unwrap_or_else(|e| panic!("{f:?}: {e}"));
        let r = crate::common::simulate3(&m, None, &SimulateSettings { t_max: 0.3, ..Default::default() }).unwrap();
        if f.ends_with("painleve-rod.toml") {
            // Its state is in case 4 of P2's Table 2.1 (its point): no contact mode is
            // consistent, and the run says so at once.
            let t = format!("{:?}", r.termination);
            assert!(r.end == "failed" && t.contains("Painleve") && r.t.len() <= 1, "{t}");
            continue;
        }
        assert_ne!(r.end, "failed", "{f:?}: {:?}", r.termination);
    }
    let m = crate::common::open3(&dir.join("box-tipping.xml"), None).unwrap();
    let event = crate::common::simulate3(&m, None, &SimulateSettings { t_max: 1.0, ..Default::default() }).unwrap();
    assert_eq!(event.end, "rest");
    let s =
        SimulateSettings { t_max: 1.0, h: 1e-4, method: contactlab::api::SpatialMethod::Moreau, ..Default::default() };
    let moreau = crate::common::simulate3(&m, None, &s).unwrap();
    let (a, b) = (event.q.last().unwrap(), moreau.q.last().unwrap());
    // On its side: turned a quarter about y (MuJoCo's qw = qy = √½).
    assert!((a[3] - 0.5f64.sqrt()).abs() < 1e-9 && (a[5] - 0.5f64.sqrt()).abs() < 1e-9, "{a:?}");
    assert!(a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-4), "{a:?}\n{b:?}");
}

#[test]
fn a_tipping_box_s_edge_starts_to_slip_when_the_planar_engine_says_and_lands_on_its_side() {
    // examples/spatial/box-tipping.xml against the same box written as a planar mechanism (two
    // bottom corners): the edge's two corners start to slip together at the planar corner's
    // slip onset, for a low and a high friction; then the box lands on its side face and rests.
    // (With mu = 5 the slip starts from rest with the normal force still 0.95 N: its direction
    // is the friction force's, not that of the round-off in the slip velocity, which once
    // turned the two corners apart and lifted one.)
    let (b, h, th) = (0.1f64, 0.2f64, 0.55f64);
    let (cx, cz) = (b - (b * th.cos() - h * th.sin()), b * th.sin() + h * th.cos());
    let m3 = crate::common::open3(&repo("examples/spatial/box-tipping.xml"), None).unwrap();
    for mu in [1.0, 5.0] {
        let planar = format!(
            "kind = \"multibody\"\ngravity = 9.81\n[[body]]\nname = \"box\"\njoint = \"planar\"\nmass = 3.0\n\
             inertia = 0.05\n[[line]]\nname = \"floor\"\nnormal = [0.0, 1.0]\n[[contact]]\nname = \"left\"\n\
             body = \"box\"\npoint = [-0.1, -0.2]\nmu = {mu}\n[[contact]]\nname = \"right\"\nbody = \"box\"\n\
             point = [0.1, -0.2]\nmu = {mu}\n[initial]\nq = [{cx}, {cz}, {}]\nv = [0.0, 0.0, 0.0]\n",
            -th
        );
        let doc = contactlab::model::ModelDoc::parse("box.toml", &planar, false).unwrap();
        let m2 = contactlab::multibody::model::from_model(&doc).unwrap();
        let s2 = contactlab::multibody::simulate::SimulateSettings { t_max: 0.6, ..Default::default() };
        let r2 = contactlab::multibody::simulate::simulate(&m2, &m2.q0, &m2.v0, &s2).unwrap();
        let onset2 = r2.events.iter().find(|e| e.kind == contactlab::hybrid::EventKind::SlipOnset).unwrap().t;
        let s3 = SimulateSettings { t_max: 1.0, mu: Some(mu), ..Default::default() };
        let r3 = crate::common::simulate3(&m3, None, &s3).unwrap();
        let events = r3.events.as_ref().unwrap();
        let kinds: Vec<_> = events.iter().map(|e| e.kind).collect();
        use contactlab::hybrid::EventKind::{Impact, SlipOnset};
        assert_eq!(kinds, [SlipOnset, Impact], "mu {mu}: {events:?}");
        assert_eq!(events[0].modes, "FPFPFFFF", "mu {mu}: both corners of the edge slip");
        assert!((events[0].t - onset2).abs() < 1e-8, "mu {mu}: {} vs {onset2}", events[0].t);
        assert_eq!(r3.end, "rest", "mu {mu}");
        let q = r3.q.last().unwrap();
        assert!((q[3] - 0.5f64.sqrt()).abs() < 1e-9 && (q[2] - 0.1).abs() < 1e-9, "mu {mu}: {q:?}");
    }
}

#[test]
fn an_mjcf_reads_its_includes_inside_its_folder_as_mujoco_does() {
    // A scene that includes its robot and the robot's defaults (MuJoCo Menagerie's layout) is
    // the same model as the robot written in one file; an include outside the folder, one
    // included twice, a missing one and an <include> handed over as text are refused.
    let dir = scratch("include");
    std::fs::create_dir_all(dir.join("parts")).unwrap();
    let one = std::fs::read_to_string(repo("examples/spatial/box-tipping.xml")).unwrap();
    let body_start = one.find("<body").unwrap();
    let body_end = one.find("</body>").unwrap() + "</body>".len();
    std::fs::write(dir.join("parts/box.xml"), format!("<mujoco>\n{}\n</mujoco>\n", &one[body_start..body_end]))
        .unwrap();
    std::fs::write(dir.join("parts/options.xml"), "<mujoco><option gravity=\"0 0 -9.81\"/></mujoco>").unwrap();
    let scene = one
        .replace(&one[body_start..body_end], "<include file=\"parts/box.xml\"/>")
        .replace("<option gravity=\"0 0 -9.81\"/>", "<include file=\"parts/options.xml\"/>");
    std::fs::write(dir.join("scene.xml"), &scene).unwrap();
    let a = contactlab::spatial::mjcf::read(&repo("examples/spatial/box-tipping.xml")).unwrap();
    let b = contactlab::spatial::mjcf::read(&dir.join("scene.xml")).unwrap();
    assert_eq!(a.tree, b.tree);
    assert_eq!((a.qpos0, a.coordinates), (b.qpos0, b.coordinates));
    assert_eq!(a.geoms, b.geoms);
    // An error inside an included file names that file and its line.
    std::fs::write(
        dir.join("parts/bad.xml"),
        "<mujoco>\n<body>\n<geom type=\"box\" sizes=\"1 1 1\"/>\n</body>\n</mujoco>",
    )
    .unwrap();
    let cases: &[(&str, &[&str])] = &[
        ("<include file=\"parts/bad.xml\"/>", &["parts/bad.xml, line 3", "sizes"]),
        ("<include file=\"../outside.xml\"/>", &["<include> (line", "outside.xml"]),
        ("<include file=\"parts/box.xml\"/><include file=\"parts/box.xml\"/>", &["included twice"]),
        ("<include file=\"parts/missing.xml\"/>", &["missing.xml", "not a file"]),
    ];
    std::fs::write(dir.parent().unwrap().join("outside.xml"), "<mujoco/>").unwrap();
    for (k, (inc, expect)) in cases.iter().enumerate() {
        let text = format!("<mujoco>\n<worldbody>\n{inc}\n</worldbody>\n</mujoco>\n");
        let path = dir.join(format!("case{k}.xml"));
        std::fs::write(&path, text).unwrap();
        let e = contactlab::spatial::mjcf::read(&path).map(|_| ()).unwrap_err().to_string();
        assert!(!e.contains('\n') && expect.iter().all(|x| e.contains(x)), "{inc}\n-> {e}");
    }
    let e = contactlab::spatial::mjcf::parse("s.xml", &scene).map(|_| ()).unwrap_err().to_string();
    assert!(e.contains("<include") && e.contains("on disk"), "{e}");
}

#[test]
fn a_box_thrown_with_a_spin_slides_to_rest_where_time_stepping_puts_it() {
    // examples/spatial/spinning-box.toml: corner strikes, then four corners sliding and
    // spinning on the floor, whose slips end together (once a stiff stall: each corner's slip
    // direction turning ever faster as it stopped alone). Event-driven and Moreau–Jean
    // (h = 0.1 ms) agree on when and where it rests.
    let m = crate::common::open3(&repo("examples/spatial/spinning-box.toml"), None).unwrap();
    let event = crate::common::simulate3(&m, None, &SimulateSettings { t_max: 1.0, ..Default::default() }).unwrap();
    assert_eq!(event.end, "rest");
    let t_rest = *event.t.last().unwrap();
    let s =
        SimulateSettings { t_max: 0.6, h: 1e-4, method: contactlab::api::SpatialMethod::Moreau, ..Default::default() };
    let moreau = crate::common::simulate3(&m, None, &s).unwrap();
    let k = moreau.v.iter().position(|v| v.iter().all(|x| x.abs() < 1e-6)).unwrap();
    assert!((moreau.t[k] - t_rest).abs() < 2e-3, "rest at {} vs {t_rest}", moreau.t[k]);
    let (a, b) = (event.q.last().unwrap(), moreau.q.last().unwrap());
    assert!(a.iter().zip(b).all(|(x, y)| (x - y).abs() < 2e-4), "{a:?}\n{b:?}");
    // Flat on four corners, and every impact dissipates.
    assert_eq!(event.contacts.last(), Some(&4));
    let events = event.events.as_ref().unwrap();
    assert!(events.iter().all(|e| e.energy_loss.is_none_or(|l| l >= 0.0)));
}

#[test]
fn the_3d_rimless_wheel_example_has_a_gait_with_the_planar_in_plane_multiplier() {
    // examples/spatial/rimless-wheel.toml's [gait]: ten strikes, then Newton on the manifold.
    // Its spoke tips are 1 mm spheres, so the in-plane multiplier is the planar wheel's
    // β² = 0.70702 to O(r/l) (the point-foot test in spatial_variational.rs holds it to 1e-8);
    // the heading is neutral to first order (a multiplier near 1). A scene without a [gait]
    // table is refused by name.
    let path = repo("examples/spatial/rimless-wheel.toml");
    let m = crate::common::open3(&path, None).unwrap();
    let g = crate::common::gait3(&m, None, &GaitSettings::spatial()).unwrap();
    assert!(g.converged, "{:?}", g.reason);
    assert_eq!(g.derivatives, contactlab::hybrid::section::JacobianRoute::Variational);
    assert_eq!(g.coordinates.len(), 5, "{:?}", g.coordinates);
    let near = |x: f64, tol: f64| g.multipliers_found().iter().any(|z| (z[0] - x).hypot(z[1]) < tol);
    assert!(near(0.70702, 1e-3) && near(1.0, 1e-3), "{:?}", g.multipliers);
    assert!(!g.stable && g.max_modulus.unwrap() > 2.0, "{:?}", g.multipliers);
    // A wheel floating at rest without gravity never strikes: no gait, a result with every
    // number null (not an error).
    let mut still = m.clone();
    still.tree.gravity = contactlab::spatial::algebra::Vec3::zeros();
    let mut x = still.q0.clone();
    x[2] += 0.5;
    x.extend([0.0; 6]);
    let none = crate::common::gait3(&still, Some(&x), &GaitSettings::spatial()).unwrap();
    assert!(!none.converged && none.reason.as_deref().is_some_and(|r| r.contains("never strikes")), "{none:?}");
    assert!(none.multipliers.is_none() && none.period.is_none() && none.q.is_none() && none.y.is_none());
    let json = serde_json::to_value(&none).unwrap();
    assert!(json["period"].is_null() && json["multipliers"].is_null() && json["max_modulus"].is_null());
    let plain = crate::common::open3(&repo("examples/spatial/rimless-wheel.xml"), None).unwrap();
    let e = crate::common::gait3(&plain, None, &GaitSettings::spatial()).unwrap_err().to_string();
    assert!(e.contains("gait") && e.contains("[gait] table"), "{e}");
}

#[test]
fn the_3d_compass_walker_example_has_a_laterally_unstable_gait_modulo_its_mirror_image() {
    // examples/spatial/compass-walker.toml: the walking rule (the swing foot passes through the
    // ground until 0.1 m ahead of the stance foot), the step modulo the mirror image that swaps
    // the legs, Newton's method from the gait's state (settle = 0). Its largest multiplier is
    // lateral and outside the unit circle; the in-plane ones are near the planar walker's
    // (0.606 for a complex pair: the BEYOND rows hold them to 1e-6 with point feet).
    let path = repo("examples/spatial/compass-walker.toml");
    let m = crate::common::open3(&path, None).unwrap();
    let g = crate::common::gait3(&m, None, &GaitSettings::spatial()).unwrap();
    assert!(g.converged && g.iterations <= 2, "{:?} {}", g.reason, g.iterations);
    assert_eq!(g.derivatives, contactlab::hybrid::section::JacobianRoute::Variational);
    let lead = g.multipliers_found()[0];
    assert!(lead[0] < -5.0 && lead[1] == 0.0 && !g.stable, "{:?}", g.multipliers);
    assert!(g.multipliers_found().iter().any(|z| (z[0].hypot(z[1]) - 0.6065).abs() < 2e-3), "{:?}", g.multipliers);
    // A step is mirrored: the left foot strikes one step, the right the next, and the state
    // after two steps is the start's, moved along the slope.
    let (q, v) = (g.q.clone().unwrap(), g.v.clone().unwrap());
    let s = SimulateSettings { t_max: 2.0 * g.period.unwrap() + 0.01, ..Default::default() };
    let mut start = q.clone();
    start.extend(&v);
    let run = crate::common::simulate3(&m, Some(&start), &s).unwrap();
    let events = run.events.unwrap_or_default();
    let strikes: Vec<&str> = events
        .iter()
        .filter(|e| e.kind == contactlab::hybrid::EventKind::Impact)
        .map(|e| e.contact.as_deref().unwrap_or(""))
        .collect();
    assert_eq!(strikes.len(), 2, "{events:?}");
    assert!(strikes[0].starts_with("right_foot") && strikes[1].starts_with("left_foot"), "{strikes:?}");
    // Time-stepping does not follow the walking rule: refused by name.
    let ms = SimulateSettings { method: contactlab::api::SpatialMethod::Moreau, ..s };
    let e = crate::common::simulate3(&m, None, &ms).unwrap_err().to_string();
    assert!(e.contains("walking") && e.contains("event-driven"), "{e}");
}

#[test]
fn a_scene_gives_joints_ranges_and_auto_time_steps_them() {
    // `[[joint]]` `lower`/`upper` replace the URDF's ends (or give a free joint a range); a
    // range that is not increasing is refused naming the file, the key and the file's range.
    let dir = scratch("ranges");
    let urdf = repo("data/robots/a1.urdf").display().to_string();
    let scene = |joint: &str| {
        format!(
            "kind = \"multibody\"\nurdf = \"{urdf}\"\nbase = \"floating\"\n[[ground]]\nname = \"floor\"\n\
             [[joint]]\n{joint}\n[initial.q]\n\"root_joint.z\" = 0.5\n\"FL_calf_joint\" = -1.4\n"
        )
    };
    std::fs::write(dir.join("narrow.toml"), scene("name = \"FL_calf_joint\"\nupper = -1.2")).unwrap();
    let m = crate::common::open3(&dir.join("narrow.toml"), None).unwrap();
    let calf = m.limits.iter().find(|l| l.name == "FL_calf_joint").unwrap();
    assert_eq!((calf.lower, calf.upper), (-2.6965336943312392, -1.2));
    assert_eq!(m.limits.len(), 12);
    std::fs::write(dir.join("bad.toml"), scene("name = \"FL_calf_joint\"\nlower = -0.5")).unwrap();
    let e = crate::common::open3(&dir.join("bad.toml"), None).unwrap_err().to_string();
    assert!(e.contains("bad.toml") && e.contains("lower") && e.contains("-0.916"), "{e}");
    // `auto` counts the contacts between shapes and ground, not the stops: A1's many shapes
    // are time-stepped; the Panda, with no ground and nine limited joints (eighteen stop
    // sides), is event-driven.
    let s = SimulateSettings { t_max: 0.01, method: contactlab::api::SpatialMethod::Auto, ..Default::default() };
    let r = crate::common::simulate3(&m, None, &s).unwrap();
    assert_eq!(r.method, contactlab::api::SpatialMethod::Moreau);
    let panda = crate::common::open3(&repo("data/robots/panda.urdf"), Some("fixed")).unwrap();
    assert_eq!(panda.limits.len(), 9);
    let r = crate::common::simulate3(&panda, None, &s).unwrap();
    assert_eq!(r.method, contactlab::api::SpatialMethod::Event);
}
