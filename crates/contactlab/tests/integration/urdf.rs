//! URDF import (issue #21): Drake's CompassGait.urdf walks with Drake's gait period, joint
//! conventions follow Drake's MultibodyPlant, and malformed or non-planar URDFs are refused
//! naming the file and the joint or link.

use std::path::{Path, PathBuf};

use contactlab::hybrid::EventKind;
use contactlab::mechanics::ContactSystem;
use contactlab::model::ModelDoc;
use contactlab::multibody::gait::GaitSettings;
use contactlab::multibody::model;
use contactlab::multibody::simulate::SimulateSettings;
use contactlab::multibody::urdf;
use nalgebra::{dvector, DMatrix};

use crate::common::hand_written_gait;

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/multibody").join(name)
}

#[test]
fn drakes_compass_gait_urdf_finds_drakes_gait_from_a_posture() {
    // Drake's own URDF (an <inertial> without <inertia>, anonymous materials), Drake's slope, and
    // only a posture at rest: the gait search finds Drake's gait (docs/validation.md: period
    // 0.734460621 s), the same as P2's compass biped with Drake's parameters (the built-in
    // model's gait: period, multipliers, mu_stick, impulse ratio), and it walks.
    let m = model::read(&example("drake-compass-gait.toml")).unwrap();
    assert_eq!(m.coordinates, ["floating_base.x", "floating_base.y", "floating_base.theta", "hip_pin"]);
    assert!(m.v0.iter().all(|v| *v == 0.0), "the example gives a posture only");
    let search = contactlab::multibody::gait::find_gaits(&m, &GaitSettings::default()).unwrap();
    assert_eq!(search.gaits.len(), 1, "{search:?}");
    let g = &search.gaits[0];
    let built_in = contactlab::mechanics::walkers::CompassBiped {
        l: 0.5,
        mass: 5.0,
        hip_mass: 10.0,
        inertia: 0.0,
        slope: 0.0525,
        gravity: 9.81,
        mu: 1.0,
    };
    // The built-in model finds the same gait without a guess (P2's default guess does not
    // converge for these parameters; `walker gait` then searches from nothing).
    let walker = contactlab::walking::model::WalkerModel::Compass(built_in);
    let p2_guess = contactlab::walking::multibody::default_guess(&walker);
    let none = contactlab::walking::gait(&walker, Some(&p2_guess), &GaitSettings::default()).unwrap();
    assert!(!none.converged, "P2's guess converges here: the fallback below is untested");
    let report = contactlab::api::walker_gait(&walker, None, None).unwrap();
    assert!(report.converged && (report.period.unwrap() - 0.734460621).abs() < 1e-9, "{report:?}");
    // The hand-written biped (its own equations, P2's chart, differences) from a guess.
    let b = hand_written_gait::compass(&built_in, &[-0.3, 1.3, -0.2], 1e-10).expect("converges");
    assert!((b.period - 0.734460621).abs() < 1e-9, "built-in period {}", b.period);
    assert!((g.period - b.period).abs() < 1e-9, "period {} vs {}", g.period, b.period);
    assert!(g.stable && b.stable);
    compare_gaits(g, &b);
    // From the gait's state: strikes a period apart.
    let state: Vec<f64> = g.q.iter().chain(&g.v).copied().collect();
    let sim = crate::common::simulate_planar(&m, Some(&state), &SimulateSettings { t_max: 3.0, ..Default::default() })
        .unwrap();
    let strikes: Vec<f64> = sim.events.iter().filter(|e| e.kind == EventKind::Impact).map(|e| e.t).collect();
    assert_eq!(strikes.len(), 4, "{:?}", sim.events);
    for (k, t) in strikes.iter().enumerate() {
        assert!((t - b.period * (k + 1) as f64).abs() <= 1e-8, "strike {k} at {t}");
    }
}

/// A gait of a multibody model against the hand-written walker's: the multipliers' moduli (to
/// the agreement of exact and difference Jacobians), mu_stick (sampled maxima) and the impulse
/// ratio.
fn compare_gaits(g: &contactlab::multibody::gait::Gait, b: &hand_written_gait::HandGait) {
    let modulus = |z: &[f64; 2]| z[0].hypot(z[1]);
    let (ours, theirs): (Vec<f64>, Vec<f64>) =
        (g.multipliers.iter().map(modulus).collect(), b.multipliers.iter().map(modulus).collect());
    assert_eq!(ours.len(), theirs.len(), "{ours:?} vs {theirs:?}");
    for (a, c) in ours.iter().zip(&theirs) {
        assert!((a - c).abs() <= contactlab::hybrid::section::JACOBIAN_AGREEMENT, "{ours:?} vs {theirs:?}");
    }
    let (mu, mu_b) = (g.mu_stick.unwrap(), b.mu_stick);
    assert!((mu - mu_b).abs() <= 1e-8 * mu_b, "mu_stick {mu} vs {mu_b}");
    let (r, r_b) = (g.impulse_ratio.unwrap(), b.impact_impulse_ratio);
    assert!((r - r_b).abs() <= 1e-6 * r_b, "impulse ratio {r} vs {r_b}");
}

#[test]
fn a_planar_joint_has_drakes_coordinates() {
    // Drake's URDF parser makes a planar joint's frame M the rotation closest to the identity
    // taking z to the axis: for the axis +y of the plane xz, M's y axis points down (-z) and θ
    // turns about +y (clockwise in the plane); for -y the usual x, y (up) and counter-clockwise.
    for (axis, down, cw) in [("0 1 0", true, true), ("0 -1 0", false, false)] {
        let text = format!(
            "<robot name=\"r\"><link name=\"world\"/><link name=\"b\"><inertial><mass value=\"2\"/>\
             <inertia ixx=\"0\" ixy=\"0\" ixz=\"0\" iyy=\"0.5\" iyz=\"0\" izz=\"0\"/></inertial>\
             <collision><origin xyz=\"0.3 0 0\"/><geometry><sphere radius=\"0.1\"/></geometry></collision></link>\
             <joint name=\"base\" type=\"planar\"><parent link=\"world\"/><child link=\"b\"/><axis xyz=\"{axis}\"/></joint></robot>"
        );
        let t = urdf::parse("r.urdf", &text, "xz").unwrap();
        let mb = contactlab::mechanics::multibody::Multibody::new(t.bodies, 9.81, 0.0).unwrap();
        // Move y by 1 and θ by 0.1: the body's origin and angle in the plane.
        let f = mb.frames(&[0.0, 1.0, 0.1], &[0.0; 3]);
        assert!((f.position[0].y - if down { -1.0 } else { 1.0 }).abs() < 1e-15, "{axis}: {:?}", f.position[0]);
        assert!((f.angle[0] - if cw { -0.1 } else { 0.1 }).abs() < 1e-15, "{axis}: {}", f.angle[0]);
        // M = diag(m, m, I_yy) whatever the signs; gravity pulls "y" down.
        let m = mb.mass_matrix(&[0.0; 3]);
        assert_eq!(m, DMatrix::from_diagonal(&nalgebra::DVector::from_vec(vec![2.0, 2.0, 0.5])));
        let (_, h) = mb.mass_and_bias(&mb.frames(&[0.0; 3], &[0.0; 3]));
        assert!((h[1] - if down { 2.0 * 9.81 } else { -2.0 * 9.81 }).abs() < 1e-12, "{axis}: {h}");
        assert_eq!(t.spheres["b"][0].center.x, 0.3);
    }
}

const TWO_LINKS: &str = "<robot name=\"r\"><link name=\"world\"/>\
    <link name=\"upper\"><inertial><origin xyz=\"0 0 -0.5\"/><mass value=\"1\"/>\
    <inertia ixx=\"0.1\" ixy=\"0\" ixz=\"0\" iyy=\"0.1\" iyz=\"0\" izz=\"0.1\"/></inertial></link>\
    <link name=\"lower\"><inertial><origin xyz=\"0 0 -0.5\"/><mass value=\"2\"/>\
    <inertia ixx=\"0.2\" ixy=\"0\" ixz=\"0\" iyy=\"0.2\" iyz=\"0\" izz=\"0.2\"/></inertial></link>\
    JOINTS</robot>";

const SHOULDER: &str = "<joint name=\"shoulder\" type=\"revolute\"><parent link=\"world\"/><child link=\"upper\"/>\
    <axis xyz=\"0 1 0\"/><limit lower=\"-1\" upper=\"1\" effort=\"1\" velocity=\"1\"/></joint>";
const ELBOW: &str = "<joint name=\"elbow\" type=\"continuous\"><parent link=\"upper\"/><child link=\"lower\"/>\
    <origin xyz=\"0 0 -1\"/><axis xyz=\"0 -1 0\"/></joint>";

fn two_links(joints: &str) -> Result<urdf::UrdfTree, contactlab::Error> {
    urdf::parse("arm.urdf", &TWO_LINKS.replace("JOINTS", joints), "xz")
}

#[test]
fn coordinates_follow_the_file_order_of_the_joints() {
    // The same arm with its joints listed in the two orders: coordinates named and ordered as
    // the file lists them, and M, h the same up to that permutation.
    let build = |joints: &str| {
        let t = two_links(joints).unwrap();
        let names = t.coordinates.clone();
        let mb = contactlab::mechanics::multibody::Multibody::new(t.bodies, 9.81, 0.0)
            .unwrap()
            .with_coordinates(t.first)
            .unwrap();
        (names, mb)
    };
    let (na, a) = build(&format!("{SHOULDER}{ELBOW}"));
    let (nb, b) = build(&format!("{ELBOW}{SHOULDER}"));
    assert_eq!(na, ["shoulder", "elbow"]);
    assert_eq!(nb, ["elbow", "shoulder"]);
    let (qa, va) = ([0.3, -0.7], [1.1, 0.4]);
    let (qb, vb) = ([-0.7, 0.3], [0.4, 1.1]);
    let (ma, ha) = a.mass_and_bias(&a.frames(&qa, &va));
    let (mb_, hb) = b.mass_and_bias(&b.frames(&qb, &vb));
    for i in 0..2 {
        assert!((ha[i] - hb[1 - i]).abs() < 1e-13);
        for j in 0..2 {
            assert!((ma[(i, j)] - mb_[(1 - i, 1 - j)]).abs() < 1e-13);
        }
    }
    // Axis +y is clockwise in the plane xz, -y counter-clockwise: the URDF angle is signed by
    // its axis. With the shoulder at +0.3 (clockwise) the arm swings toward -x.
    let f = a.frames(&[0.3, 0.0], &[0.0, 0.0]);
    assert!((f.angle[0] + 0.3).abs() < 1e-15 && (f.angle[1] + 0.3).abs() < 1e-15);
    let f = a.frames(&[0.0, 0.3], &[0.0, 0.0]);
    assert!((f.angle[1] - 0.3).abs() < 1e-15);
}

#[test]
fn malformed_and_non_planar_urdfs_are_refused_naming_the_joint_or_link() {
    let cases: Vec<(String, &str)> = vec![
        ("<robot name=\"r\"><link name=\"a\"/>".into(), "arm.urdf: robot: not a valid URDF"),
        (TWO_LINKS.replace("JOINTS", SHOULDER), "several root links (world, lower)"),
        (
            TWO_LINKS.replace("JOINTS", &format!("{SHOULDER}{}", ELBOW.replace("continuous", "floating"))),
            "arm.urdf: joint 'elbow': a floating joint moves out of the plane",
        ),
        (
            TWO_LINKS.replace("JOINTS", &format!("{SHOULDER}{}", ELBOW.replace("0 -1 0", "1 0 0"))),
            "joint 'elbow': axis",
        ),
        (
            TWO_LINKS.replace("JOINTS", &format!("{SHOULDER}{}", ELBOW.replace("0 -1 0", "0 0 0"))),
            "joint 'elbow': axis",
        ),
        (
            TWO_LINKS.replace(
                "JOINTS",
                &format!("{SHOULDER}{}", ELBOW.replace("prismatic", "x").replace("continuous", "prismatic")),
            ),
            "joint 'elbow': axis",
        ),
        (
            TWO_LINKS.replace(
                "JOINTS",
                &format!(
                    "{SHOULDER}{}",
                    ELBOW.replace("<origin xyz=\"0 0 -1\"/>", "<origin xyz=\"0 0 -1\" rpy=\"0.3 0 0\"/>")
                ),
            ),
            "joint 'elbow': the origin's rotation",
        ),
        (
            TWO_LINKS.replace("JOINTS", &format!("{SHOULDER}{}", ELBOW.replace("\"upper\"", "\"shin\""))),
            "joint 'elbow': parent link 'shin' does not exist",
        ),
        (
            TWO_LINKS.replace("JOINTS", &format!("{SHOULDER}{ELBOW}{}", ELBOW.replace("elbow", "knee"))),
            "link 'lower' is the child of two joints",
        ),
        (
            TWO_LINKS
                .replace("JOINTS", &format!("{SHOULDER}{ELBOW}"))
                .replace("<link name=\"world\"/>", "")
                .replace("<parent link=\"world\"/>", "<parent link=\"lower\"/>"),
            "cycle",
        ),
        (
            TWO_LINKS.replace("JOINTS", &format!("{SHOULDER}{ELBOW}")).replace("value=\"2\"", "value=\"-2\""),
            "link 'lower': mass",
        ),
        (
            TWO_LINKS.replace("JOINTS", &format!("{SHOULDER}{ELBOW}")).replace("value=\"2\"", "value=\"nan\""),
            "link 'lower': mass",
        ),
        (
            TWO_LINKS.replace("JOINTS", &format!("{SHOULDER}{ELBOW}")).replace("iyy=\"0.2\"", "iyy=\"-0.2\""),
            "link 'lower': the moment of inertia",
        ),
    ];
    for (text, want) in cases {
        let e = urdf::parse("arm.urdf", &text, "xz").unwrap_err().to_string();
        assert!(e.contains(want), "wanted {want:?} in\n{e}\nfor {text}");
        assert!(e.starts_with("arm.urdf: ") && !e.contains('\n'), "{e}");
    }
    // 10^5 links: refused by a count, before the XML parser allocates for them.
    let mut big = String::from("<robot name=\"r\"><link name=\"world\"/>");
    for k in 0..100_000 {
        big += &format!("<link name=\"l{k}\"/>");
    }
    big += "</robot>";
    let e = urdf::parse("big.urdf", &big, "xz").unwrap_err().to_string();
    assert!(e.contains("100001 <link> elements"), "{e}");
}

#[test]
fn scene_errors_name_the_model_file() {
    let base = "kind = \"multibody\"\ngravity = 9.81\nurdf = \"drake/CompassGait.urdf\"\n";
    let parse = |text: &str| {
        let file = example("scene.toml").display().to_string();
        model::from_model(&ModelDoc::parse(&file, text, false).unwrap()).map_err(|e| e.to_string())
    };
    let ok = parse(&format!("{base}[[line]]\nnormal = [0, 1]\n[[contact]]\nbody = \"left_leg\"\n")).unwrap();
    // The contact is the collision sphere: radius 0 at the end of the 1 m leg.
    let sys = ok.system().unwrap();
    let q = dvector![0.0, -1.0, 0.0, 0.0];
    assert!(sys.gap(0, &q).abs() < 1e-15, "the foot touches the slope with the hip 1 m up");
    let e = parse(&format!("{base}plane = \"xw\"\n")).unwrap_err();
    assert!(e.contains("scene.toml: plane") && e.contains("xz, yz, xy"), "{e}");
    let e = parse(&format!("{base}[[line]]\nnormal = [0, 1]\n[[contact]]\nbody = \"hip\"\n")).unwrap_err();
    assert!(e.contains("contact[0].point") && e.contains("no collision sphere"), "{e}");
    let e = parse(&format!("{base}[[line]]\nnormal = [0, 1]\n[[contact]]\nbody = \"foot\"\n")).unwrap_err();
    assert!(e.contains("contact[0].body: no body named \"foot\""), "{e}");
    let e = parse(&format!("{base}[[body]]\nname = \"x\"\nmass = 1\ninertia = 1\n")).unwrap_err();
    assert!(e.contains("scene.toml: body: give either"), "{e}");
    let e = parse("kind = \"multibody\"\ngravity = 9.81\nurdf = \"missing.urdf\"\n").unwrap_err();
    assert!(e.contains("missing.urdf"), "{e}");
    let e = parse(&format!("{base}[[limit]]\ncoordinate = \"knee\"\nlower = 0\n")).unwrap_err();
    assert!(e.contains("coordinates: floating_base.x, floating_base.y, floating_base.theta, hip_pin"), "{e}");
}

#[test]
fn a_bare_urdf_path_is_a_model() {
    let m = model::read(&example("drake/CompassGait.urdf")).unwrap();
    assert_eq!(m.dof(), 4);
    assert!(m.contacts.is_empty());
    let r = crate::common::inspect_planar(&m, Some(&[0.1, -0.9, 0.2, 0.3, 0.5, -0.2, 0.7, 1.1]), 0.0).unwrap();
    assert!(r.check.is_empty(), "{:?}", r.check);
    // Total mass 20 kg on the hip's translations.
    assert!((r.mass_matrix[0][0] - 20.0).abs() < 1e-12 && (r.mass_matrix[1][1] - 20.0).abs() < 1e-12);
}

#[test]
fn the_shipped_urdf_models_pass_their_own_check() {
    // The URDFs of examples/multibody/urdf (checked against Drake by scripts/drake_multibody.py):
    // M symmetric positive definite, Jacobians and the energy balance against differences.
    let dir = example("urdf");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        // A URDF with a scene beside it is read through the scene.
        if ext == "urdf" && path.with_extension("toml").exists() || !matches!(ext, "urdf" | "toml") {
            continue;
        }
        let m = model::read(&path).unwrap();
        let n = m.dof();
        for k in 0..5 {
            let state: Vec<f64> = (0..2 * n).map(|j| 0.7 * ((j * 7 + k * 3) as f64 * 0.9).sin()).collect();
            let r = crate::common::inspect_planar(&m, Some(&state), 0.0).unwrap();
            assert!(r.check.is_empty(), "{}: {:?}", path.display(), r.check);
            assert!(r.mass_matrix_eigenvalues[0] > 0.0 && r.mass_matrix_asymmetry == 0.0, "{}", path.display());
        }
        seen += 1;
    }
    assert_eq!(seen, 4);
}
