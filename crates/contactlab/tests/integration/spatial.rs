//! The spatial dynamics of real robots' URDFs (data/robots) against Pinocchio's
//! (tests/data/pinocchio, written by scripts/pinocchio_reference.py): the coordinates' order, the
//! joint-space inertia, the bias (−Pinocchio's nonlinear effects), and a point's position and
//! Jacobian, at three states each.

use std::path::{Path, PathBuf};

use contactlab::spatial::urdf::{read, Base};
use nalgebra::{DMatrix, Vector3};
use serde_json::Value;

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(rel)
}

fn numbers(v: &Value) -> Vec<f64> {
    v.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect()
}

fn matrix(v: &Value) -> DMatrix<f64> {
    let rows: Vec<Vec<f64>> = v.as_array().unwrap().iter().map(numbers).collect();
    DMatrix::from_fn(rows.len(), rows[0].len(), |r, c| rows[r][c])
}

fn check(robot: &str) {
    let doc: Value = serde_json::from_str(
        &std::fs::read_to_string(repo(&format!("crates/contactlab/tests/data/pinocchio/{robot}.json"))).unwrap(),
    )
    .unwrap();
    let base = if doc["base"] == "floating" { Base::Floating } else { Base::Fixed };
    let u = read(&repo(doc["urdf"].as_str().unwrap()), base).unwrap();
    let t = &u.tree;
    assert_eq!(t.nv(), doc["nv"].as_u64().unwrap() as usize, "{robot}");
    // The moving joints in Pinocchio's order.
    let joints: Vec<&str> = doc["joints"].as_array().unwrap().iter().map(|j| j.as_str().unwrap()).collect();
    let mut ours: Vec<String> = vec![];
    for name in &u.links.velocities {
        let joint = name.split('.').next().unwrap().to_string();
        if ours.last() != Some(&joint) {
            ours.push(joint);
        }
    }
    assert_eq!(ours, joints, "{robot}: joint order");
    let link = t.body_index(doc["link"].as_str().unwrap()).unwrap();
    let p = Vector3::from_column_slice(&numbers(&doc["point"]));
    for (k, s) in doc["states"].as_array().unwrap().iter().enumerate() {
        let (q, v) = (numbers(&s["q"]), numbers(&s["v"]));
        assert_eq!(q.len(), t.nq(), "{robot}");
        let m_ref = matrix(&s["mass_matrix"]);
        let scale = m_ref.abs().max();
        let m = t.mass_matrix(&q);
        assert!(
            (&m - &m_ref).abs().max() <= 1e-10 * scale,
            "{robot} state {k}: M differs by {}",
            (&m - &m_ref).abs().max()
        );
        let nle = nalgebra::DVector::from_vec(numbers(&s["nle"]));
        let h = t.bias(&q, &v);
        let hs = nle.abs().max().max(scale);
        assert!(
            (&h + &nle).abs().max() <= 1e-10 * hs,
            "{robot} state {k}: bias differs by {}",
            (&h + &nle).abs().max()
        );
        let x = t.point_position(&q, link, &p);
        assert!(
            (x - Vector3::from_column_slice(&numbers(&s["point_world"]))).norm() < 1e-12,
            "{robot} state {k}: point"
        );
        let j = t.point_jacobian(&q, link, &p);
        let j_ref = matrix(&s["point_jacobian"]);
        assert!(
            (DMatrix::from_column_slice(3, t.nv(), j.as_slice()) - j_ref).abs().max() < 1e-12,
            "{robot} state {k}: Jacobian"
        );
    }
}

#[test]
fn a_test_mechanism_with_every_joint_type_matches_pinocchio() {
    check("zoo");
}

#[test]
fn unitree_a1_on_a_floating_base_matches_pinocchio() {
    check("a1");
}

#[test]
fn ur5_and_panda_arms_match_pinocchio() {
    check("ur5_robot");
    check("panda");
}

#[test]
fn unitree_g1_humanoid_with_35_velocities_matches_pinocchio() {
    check("g1_29dof_rev_1_0");
}

#[test]
fn urdf_collision_shapes_and_notes() {
    let u = read(&repo("data/robots/zoo.urdf"), Base::Fixed).unwrap();
    assert_eq!(u.links.collisions.len(), 3);
    assert_eq!(u.tree.nv(), 6);
    assert_eq!(u.links.coordinates, ["a_wheel", "m_shoulder", "elbow", "z_planar.x", "z_planar.y", "z_planar.theta"]);
    // A1's collision geometry: boxes, cylinders and spheres, no meshes.
    let a1 = read(&repo("data/robots/a1.urdf"), Base::Floating).unwrap();
    assert!(a1.links.collisions.iter().any(|c| matches!(c.shape, contactlab::spatial::urdf::Shape::Sphere { .. })));
    assert_eq!(
        &a1.links.coordinates[..7],
        [
            "root_joint.x",
            "root_joint.y",
            "root_joint.z",
            "root_joint.qx",
            "root_joint.qy",
            "root_joint.qz",
            "root_joint.qw"
        ]
    );
}

#[test]
fn bad_urdfs_get_one_line_errors_naming_the_joint_or_link() {
    use contactlab::spatial::urdf::parse;
    let robot = |joint: &str, mass: &str| {
        format!(
            r#"<robot name="r"><link name="a"><inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>
            <link name="b"><inertial><mass value="{mass}"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>
            <joint name="j" type="{joint}"><parent link="a"/><child link="b"/><axis xyz="0 0 0"/><limit effort="1" velocity="1" lower="0" upper="1"/></joint></robot>"#
        )
    };
    let e = parse("r.urdf", &robot("revolute", "1"), Base::Fixed).unwrap_err().to_string();
    assert!(e.contains("r.urdf") && e.contains("joint 'j'") && e.contains("not a direction"), "{e}");
    let e = parse("r.urdf", &robot("planar", "1"), Base::Fixed).unwrap_err().to_string();
    assert!(e.contains("joint 'j'") && e.contains("not a direction"), "{e}");
    // A planar joint about another axis is read as Drake reads it: a massless frame body turned
    // onto the axis, the link hanging from it unturned (tests/integration/spatial_scene.rs).
    let u = parse("r.urdf", &robot("planar", "1").replace("0 0 0", "1 0 0"), Base::Fixed).unwrap();
    assert_eq!(u.tree.bodies().len(), 3);
    assert_eq!(u.links.coordinates, ["j.x", "j.y", "j.theta"]);
    let e = parse("r.urdf", &robot("fixed", "-2"), Base::Fixed).unwrap_err().to_string();
    assert!(e.contains("link 'b'") && e.contains("mass"), "{e}");
    assert!(!e.contains('\n'));
}

/// An MJCF against MuJoCo's values (tests/data/mujoco, from scripts/mujoco_reference.py):
/// qpos0, the joints' order, M with the armature, the bias (−qfrc_bias), the joints' passive
/// forces, and a geom's centre and Jacobian.
fn check_mjcf(model: &str) {
    let doc: Value = serde_json::from_str(
        &std::fs::read_to_string(repo(&format!("crates/contactlab/tests/data/mujoco/{model}.json"))).unwrap(),
    )
    .unwrap();
    let u = contactlab::spatial::mjcf::read(&repo(doc["mjcf"].as_str().unwrap())).unwrap();
    let t = &u.tree;
    assert_eq!(
        (t.nq(), t.nv()),
        (doc["nq"].as_u64().unwrap() as usize, doc["nv"].as_u64().unwrap() as usize),
        "{model}"
    );
    let names: Vec<&str> = u.joints.iter().map(|j| j.name.as_str()).collect();
    let expected: Vec<&str> = doc["joints"].as_array().unwrap().iter().map(|j| j.as_str().unwrap()).collect();
    assert_eq!(names, expected, "{model}: joints");
    let q0 = numbers(&doc["qpos0"]);
    assert!(u.qpos0.iter().zip(&q0).all(|(a, b)| (a - b).abs() < 1e-9), "{model}: qpos0 {:?} vs {q0:?}", u.qpos0);
    let geom = u.geoms.iter().find(|g| g.name == doc["geom"].as_str().unwrap()).unwrap();
    let body = geom.body.unwrap();
    for (k, s) in doc["states"].as_array().unwrap().iter().enumerate() {
        let (q, v) = (numbers(&s["q"]), numbers(&s["v"]));
        let m_ref = matrix(&s["mass_matrix"]);
        let scale = m_ref.abs().max();
        let m = t.mass_matrix(&q);
        assert!(
            (&m - &m_ref).abs().max() <= 1e-9 * scale,
            "{model} state {k}: M differs by {}\n{m:.5}\n{m_ref:.5}",
            (&m - &m_ref).abs().max()
        );
        let bias = nalgebra::DVector::from_vec(numbers(&s["qfrc_bias"]));
        let h = t.bias(&q, &v);
        let hs = bias.abs().max().max(scale);
        assert!(
            (&h + &bias).abs().max() <= 1e-9 * hs,
            "{model} state {k}: bias differs by {}",
            (&h + &bias).abs().max()
        );
        let passive = nalgebra::DVector::from_vec(numbers(&s["qfrc_passive"]));
        assert!((u.passive_force(&q, &v) - passive).abs().max() <= 1e-9 * hs, "{model} state {k}: passive forces");
        let x = t.poses(&q)[body].point(&geom.pose.pos);
        assert!(
            (x - Vector3::from_column_slice(&numbers(&s["geom_world"]))).norm() < 1e-9,
            "{model} state {k}: geom at {x}"
        );
        let j = t.point_jacobian(&q, body, &geom.pose.pos);
        let j_ref = matrix(&s["geom_jacobian"]);
        assert!(
            (DMatrix::from_column_slice(3, t.nv(), j.as_slice()) - j_ref).abs().max() < 1e-9,
            "{model} state {k}: Jacobian"
        );
    }
}

#[test]
fn an_mjcf_with_every_supported_form_matches_mujoco() {
    check_mjcf("zoo");
}

#[test]
fn gymnasium_s_ant_humanoid_hopper_and_cheetah_match_mujoco() {
    for m in ["ant", "humanoid", "hopper", "half_cheetah"] {
        check_mjcf(m);
    }
}

#[test]
fn bad_mjcf_gets_one_line_errors_naming_the_element_and_line() {
    use contactlab::spatial::mjcf::parse;
    let wrap = |body: &str| format!("<mujoco>\n<worldbody>\n{body}\n</worldbody>\n</mujoco>");
    let e =
        parse("m.xml", &wrap("<body><geom size=\"0.1\"/><composite type=\"grid\"/></body>")).unwrap_err().to_string();
    assert!(e.contains("m.xml") && e.contains("<composite> (line 3)") && e.contains("not supported"), "{e}");
    let e =
        parse("m.xml", &wrap("<body><body><freejoint/><geom size=\"0.1\"/></body></body>")).unwrap_err().to_string();
    assert!(e.contains("<freejoint>") && e.contains("free joint"), "{e}");
    let e = parse("m.xml", &wrap("<body><joint type=\"screw\"/><geom size=\"0.1\"/></body>")).unwrap_err().to_string();
    assert!(e.contains("screw") && e.contains("hinge, slide, ball, free"), "{e}");
    let e = parse("m.xml", &wrap("<body><joint/><geom type=\"mesh\" mesh=\"m\"/></body>")).unwrap_err().to_string();
    assert!(e.contains("<geom>") && e.contains("mesh") && e.contains("<inertial>"), "{e}");
    let e = parse("m.xml", &wrap("<body euler=\"0 0 1\" quat=\"1 0 0 0\"><geom size=\"0.1\"/></body>"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("one orientation"), "{e}");
    let e = parse("m.xml", "<mujoco><equality/></mujoco>").unwrap_err().to_string();
    assert!(e.contains("<equality> (line 1)"), "{e}");
    assert!(parse("m.xml", "<robot/>").unwrap_err().to_string().contains("not <mujoco>"));
}

#[test]
fn mjcf_collision_bits_filter_contacts_as_mujoco_does() {
    // Two spheres above a floor: one visual only (contype = conaffinity = 0), one that collides;
    // a third that collides only through the floor's conaffinity bit 2.
    let dir = std::env::temp_dir().join(format!("contactlab-bits-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bits.xml");
    std::fs::write(
        &path,
        r#"<mujoco><worldbody><geom name="floor" type="plane" size="1 1 0.1" conaffinity="3"/>
        <body pos="0 0 0.5"><freejoint/><geom name="shown" size="0.1" contype="0" conaffinity="0"/>
        <geom name="solid" size="0.1" pos="0.3 0 0"/><geom name="two" size="0.1" pos="-0.3 0 0" contype="2" conaffinity="0"/></body>
        </worldbody></mujoco>"#,
    )
    .unwrap();
    let m = crate::common::open3(&path, None).unwrap();
    let r = crate::common::inspect3(&m, None, 0.0).unwrap();
    let shapes: Vec<&str> = r.contacts.iter().map(|c| c.shape.as_str()).collect();
    assert_eq!(shapes, ["solid", "two"]);
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn hostile_robot_files_get_one_line_errors_or_bounded_runs() {
    // The issue's list: URDF with a cycle, two roots, a joint naming a missing link, inertia
    // tensors that are not positive definite or break the triangle inequality, NaN, a chain
    // of 2000 links (refused, naming the bound); MJCF with an <include> outside its folder, a bad quaternion, an unknown
    // attribute. Each error is one line naming the file and what to fix.
    use contactlab::spatial::urdf::parse;
    let link = |name: &str, i: &str| {
        format!(r#"<link name="{name}"><inertial><mass value="1"/><inertia {i}/></inertial></link>"#)
    };
    let unit = r#"ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1""#;
    let joint = |name: &str, p: &str, c: &str| {
        format!(
            r#"<joint name="{name}" type="continuous"><parent link="{p}"/><child link="{c}"/><axis xyz="0 0 1"/></joint>"#
        )
    };
    let robot = |body: String| format!(r#"<robot name="r">{body}</robot>"#);
    let cases = [
        (robot(link("a", unit) + &link("b", unit) + &joint("j1", "a", "b") + &joint("j2", "b", "a")), "root"),
        (robot(link("a", unit) + &link("b", unit)), "root"),
        (robot(link("a", unit) + &joint("j", "a", "ghost")), "ghost"),
        (
            robot(
                link("a", unit)
                    + &link("b", r#"ixx="-1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1""#)
                    + &joint("j", "a", "b"),
            ),
            "body[b]: its inertia",
        ),
        (
            robot(
                link("a", unit)
                    + &link("b", r#"ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="3""#)
                    + &joint("j", "a", "b"),
            ),
            "triangle inequality",
        ),
        (
            robot(
                link("a", unit)
                    + &link("b", r#"ixx="nan" ixy="0" ixz="0" iyy="1" iyz="0" izz="1""#)
                    + &joint("j", "a", "b"),
            ),
            "body[b]: its centre of mass and inertia must be finite",
        ),
    ];
    for (text, names) in &cases {
        let e = parse("h.urdf", text, Base::Floating).map(|_| ()).unwrap_err().to_string();
        assert!(e.contains("h.urdf") && e.contains(names) && !e.contains('\n'), "{text}\n-> {e}");
    }
    // A chain of 2000 links is refused at once, naming the bound.
    let mut body = link("l0", unit);
    for k in 1..2000 {
        body += &link(&format!("l{k}"), unit);
        body += &joint(&format!("j{k}"), &format!("l{}", k - 1), &format!("l{k}"));
    }
    let e = parse("chain.urdf", &robot(body), Base::Fixed).map(|_| ()).unwrap_err().to_string();
    assert!(e.contains("chain.urdf") && e.contains("2000 <link> elements; at most 256"), "{e}");
    use contactlab::spatial::mjcf::parse as mjcf;
    let wrap = |body: &str| format!("<mujoco>\n<worldbody>\n{body}\n</worldbody>\n</mujoco>");
    for (text, names) in [
        ("<mujoco>\n<include file=\"../../etc/passwd\"/>\n</mujoco>".to_string(), "<include> (line 2)"),
        (wrap("<body quat=\"0 0 0 0\"><joint/><geom size=\"0.1\"/></body>"), "quat"),
        (wrap("<body><joint/><geom size=\"0.1\" colour=\"red\"/></body>"), "colour"),
    ] {
        let e = mjcf("h.xml", &text).map(|_| ()).unwrap_err().to_string();
        assert!(e.contains("h.xml") && e.contains(names) && !e.contains('\n'), "{text}\n-> {e}");
    }
}

#[test]
fn a_long_mjcf_chain_is_read_and_inspected_with_its_checks() {
    // `model inspect` on an MJCF chain of 1000 bodies took 57 s (its check of M visited every
    // pair of unit vectors, each a pass over the tree: cubic); URDF caps its links at 256 and
    // MJCF has no cap. The check is now a polarisation on six direction pairs (the benchmark
    // `spatial_inspect` times 1000 bodies); here 300, whose M passes its checks.
    let n = 300;
    let mut s = String::from(r#"<mujoco><worldbody><geom type="plane" size="9 9 1"/>"#);
    s += r#"<body name="b0" pos="0 0 1"><freejoint/><geom type="capsule" fromto="0 0 0 0.1 0 0" size="0.01"/>"#;
    for i in 1..n {
        s += &format!(r#"<body name="b{i}" pos="0.1 0 0"><joint name="j{i}" type="hinge" axis="0 1 0"/>"#);
        s += r#"<geom type="capsule" fromto="0 0 0 0.1 0 0" size="0.01"/>"#;
    }
    s += &"</body>".repeat(n);
    s += "</worldbody></mujoco>";
    let m = contactlab::spatial::mjcf::parse("chain.xml", &s).unwrap();
    let model = contactlab::api::SpatialModel::from_mjcf("chain.xml".into(), &m);
    let state: Vec<f64> = (0..model.tree.nq() + model.tree.nv())
        .map(|k| if (3..7).contains(&k) { [0.1, 0.2, 0.0, 0.97][k - 3] } else { 0.01 * ((k * 7 % 13) as f64 - 6.0) })
        .collect();
    let r = crate::common::inspect3(&model, Some(&state), 0.0).unwrap();
    assert!(r.model.bodies >= n, "{} bodies", r.model.bodies);
    assert!(r.check.mass_matrix < 1e-12, "M check {}", r.check.mass_matrix);
    assert!(r.check.energy_rate < 1e-6, "energy rate {}", r.check.energy_rate);
}
