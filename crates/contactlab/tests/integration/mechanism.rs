//! The papers' systems written as `kind = "multibody"` model files (`examples/multibody/`) give
//! the built-in models' motions and orbits (issue #21), and bad model files are refused naming
//! the file and the key.

use std::path::{Path, PathBuf};

use contactlab::hybrid::lagrangian::{join, split, Lagrangian};
use contactlab::hybrid::{DriverSettings, EventDriver, EventKind, Tolerances};
use contactlab::mechanics::multibody_system::Kernel;
use contactlab::mechanics::walkers::CompassBiped;
use contactlab::mechanics::{dvec, fixed, ContactSystem};
use contactlab::model::ModelDoc;
use contactlab::multibody::{model, Mechanism};
use nalgebra::{dvector, DVector, Vector4};

use crate::common::hand_written_gait;

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/multibody").join(name)
}

fn read(name: &str) -> Mechanism {
    model::read(&example(name)).unwrap()
}

fn settings(t_max: f64) -> DriverSettings {
    DriverSettings { t_max, tol: Tolerances { rtol: 1e-11, atol: 1e-11 }, ..Default::default() }
}

/// P2's compass-biped state `(θ₁, θ₂, x, y)` (stance foot) in the model file's hip-rooted
/// coordinates `(x_h, y_h, φ₁, φ₂)` (the file's comment): `φ₁ = −θ₁`, `φ₂ = θ₁ + θ₂`.
fn to_hip(b: &CompassBiped, q: &Vector4<f64>, v: &Vector4<f64>) -> (Vector4<f64>, Vector4<f64>) {
    let l2 = 2.0 * b.l;
    let (s, c) = q[0].sin_cos();
    (
        Vector4::new(q[2] + l2 * s, q[3] + l2 * c, -q[0], q[0] + q[1]),
        Vector4::new(v[2] + l2 * c * v[0], v[3] - l2 * s * v[0], -v[0], v[0] + v[1]),
    )
}

#[test]
fn the_compass_biped_file_walks_as_the_built_in_biped() {
    // From P2's sticking gait, four steps: the same heel-strike times (1e-9 of the period) and
    // the same states after every strike (1e-8), through the arming rule, the release of the
    // stance foot and the relabelling the file states.
    let built_in = CompassBiped::paper(0.7);
    let m = read("compass-biped.toml");
    let sys = m.system().unwrap();
    let (q0, v0) = (
        Vector4::new(-0.14783689025242455, -0.14783689025242455, 0.0, 0.0),
        Vector4::new(0.732796791052304, -0.5006678825400154, 0.0, 0.0),
    );
    let (hq, hv) = to_hip(&built_in, &q0, &v0);
    let (ra, ea) =
        EventDriver::new(settings(3.0)).run_logged(&Lagrangian::new(built_in), 0.0, join(&dvec(&q0), &dvec(&v0)), &[]);
    let (rb, eb) =
        EventDriver::new(settings(3.0)).run_logged(&Lagrangian::new(&sys), 0.0, join(&dvec(&hq), &dvec(&hv)), &[]);
    assert_eq!(std::mem::discriminant(&ra.termination), std::mem::discriminant(&rb.termination));
    let strikes = |e: &[contactlab::hybrid::driver::EventRecord<_, _>]| {
        e.iter().filter(|r| r.info.kind == EventKind::Impact).cloned().collect::<Vec<_>>()
    };
    let (sa, sb) = (strikes(&ea), strikes(&eb));
    assert_eq!(sa.len(), 4, "{:?}", ea.iter().map(|r| r.info).collect::<Vec<_>>());
    assert_eq!(sa.len(), sb.len());
    for (a, b) in sa.iter().zip(&sb) {
        assert!((a.t - b.t).abs() <= 1e-9, "strike at {} vs {}", a.t, b.t);
        let (qa, va) = split(&a.after);
        let (qh, vh) = to_hip(&built_in, &fixed(&qa), &fixed(&va));
        let (qb, vb) = split(&b.after);
        let (qb, vb) = (fixed::<4>(&qb), fixed::<4>(&vb));
        let d = (qh - qb).amax().max((vh - vb).amax());
        assert!(d <= 1e-8, "after the strike at {}: differ by {d:e}\n{qh:?} {vh:?}\n{qb:?} {vb:?}", a.t);
    }
    // Scuffing ignored mid-swing: the swing foot passes below the slope without an event.
    assert!(eb.iter().all(|r| r.info.kind == EventKind::Impact), "{:?}", eb.iter().map(|r| r.info).collect::<Vec<_>>());
}

#[test]
fn p3s_pendulum_file_has_the_built_in_zeno_orbit() {
    use contactlab::mechanics::double_pendulum::DoublePendulumStop;
    use contactlab::zeno::{self, ZenoSettings};
    let m = read("p3-double-pendulum-pd-e0.5.toml");
    let sys = m.system().unwrap();
    let s = ZenoSettings::default();
    let (q0, v0) = (DVector::from_column_slice(&m.q0), DVector::from_column_slice(&m.v0));
    assert_eq!(q0, dvector![-0.08, 0.0]);
    let (lb, lm) = (Lagrangian::new(DoublePendulumStop::paper_controlled(0.5)), Lagrangian::new(sys));
    let y = zeno::settle(&lb, &q0, &v0, 400, 1e-10, &s).unwrap();
    let (ob, om) = (zeno::orbit(&lb, &y, &s), zeno::orbit(&lm, &y, &s));
    assert!(ob.converged && om.converged && ob.zeno && om.zeno);
    for (a, b) in ob.section_point.iter().zip(&om.section_point) {
        assert!((a - b).abs() <= 1e-8 * (1.0 + a.abs()), "{:?} vs {:?}", ob.section_point, om.section_point);
    }
    assert!((ob.period - om.period).abs() <= 1e-8 * ob.period, "period {} vs {}", ob.period, om.period);
    // The same from the file through the generic command (`orbit --constraint "knee stop"`):
    // P3's Zeno orbit and its contraction rate gamma.
    let mm = contactlab::api::MechanismModel::Planar(Box::new(m.clone()));
    let r = contactlab::api::orbit(&mm, None, "knee stop").unwrap();
    assert!(r.orbit.converged && r.orbit.zeno && r.e == 0.5);
    assert!((r.orbit.period - ob.period).abs() <= 1e-8 * ob.period, "{} vs {}", r.orbit.period, ob.period);
    assert!(
        (r.orbit.gamma - ob.gamma).abs() <= contactlab::hybrid::section::JACOBIAN_AGREEMENT,
        "{} vs {}",
        r.orbit.gamma,
        ob.gamma
    );
    assert!(contactlab::api::orbit(&mm, None, "elbow").unwrap_err().to_string().contains("knee stop"));
}

#[test]
fn p1s_configuration_files_move_as_the_built_in_body() {
    // A push from rest: slip, lift-off, impacts, a Zeno point and rest follow; the file's
    // floating body and the built-in planar body (P1's configurations) end alike.
    for name in ["A", "B", "D"] {
        let body = contactlab::paper_configs::p1::config(name).unwrap().body();
        let m = read(&format!("p1-config-{name}.toml"));
        let sys = m.system().unwrap();
        let x0 = join(&DVector::zeros(3), &dvector![0.02, 0.05, -0.4]);
        let ra = EventDriver::new(settings(0.6)).run(&Lagrangian::new(body.clone()), 0.0, x0.clone(), &[], &mut ());
        let rb = EventDriver::new(settings(0.6)).run(&Lagrangian::new(sys), 0.0, x0, &[], &mut ());
        assert_eq!(ra.events, rb.events, "config {name}");
        assert!(ra.events > 0, "config {name}: nothing happened");
        assert!((ra.t - rb.t).abs() <= 1e-9 * (1.0 + ra.t), "config {name}: {} vs {}", ra.t, rb.t);
        let d = (ra.state - rb.state).amax();
        assert!(d <= 1e-8 * body.length_scale(), "config {name}: states differ by {d:e}");
    }
}

#[test]
fn p1s_configuration_files_get_p1s_verdicts() {
    // Read as P1's body on two contacts (the frame along the contact line, the load from
    // gravity on the slope), each file gives the built-in configuration's parameters and the
    // same verdict, theorem and max G as the planar-two-contact model.
    use contactlab::twocontact::from_multibody::to_two_contact;
    for name in ["A", "B", "D"] {
        let built = contactlab::paper_configs::p1::config(name).unwrap();
        let p = to_two_contact(&read(&format!("p1-config-{name}.toml"))).unwrap();
        for (a, b) in [
            (p.mass, built.mass),
            (p.rho, built.rho),
            (p.h, built.h),
            (p.l1, built.l1),
            (p.l2, built.l2),
            (p.mu1, built.mu1),
            (p.mu2, built.mu2),
            (p.force, built.force),
            (p.alpha, built.alpha),
        ] {
            assert!((a - b).abs() <= 1e-12 * (1.0 + b.abs()), "config {name}: {p:?} vs {built:?}");
        }
        assert!(p.phi1.abs() < 1e-15 && p.phi2.abs() < 1e-15);
        let (ca, cb) =
            (contactlab::api::p1_classify(&p, 501).unwrap(), contactlab::api::p1_classify(&built, 501).unwrap());
        assert_eq!(ca.verdict, cb.verdict, "config {name}");
        assert_eq!(ca.theorem, cb.theorem, "config {name}");
        let (ga, gb) = (ca.max_g.unwrap(), cb.max_g.unwrap());
        assert!((ga - gb).abs() <= 1e-8 * gb, "config {name}: {ga} vs {gb}");
        // Issue #40: the proof starts from the file's numbers, enclosed: tight, holding the
        // floats, both contacts exactly closed; it proves what the built-in body's proof does.
        let e = p.enclosure.expect("a multibody body carries its enclosure");
        assert!(e.closed_exactly(), "config {name}: {:?}", e.gaps);
        let (s1, c1) = (p.phi1.sin(), p.phi1.cos());
        for (enc, v) in
            [(e.mass, p.mass), (e.h, p.h), (e.l[0], p.l1), (e.l[1], p.l2), (e.sin_phi[0], s1), (e.cos_phi[0], c1)]
        {
            assert!(enc.contains(v) || (enc.lo() - v).abs().max((enc.hi() - v).abs()) <= 1e-15 * (1.0 + v.abs()));
            assert!(enc.width() <= 1e-14 * (1.0 + v.abs()), "config {name}: {enc} for {v}");
        }
        let (pa, pb) = (ca.proof.unwrap(), cb.proof.unwrap());
        assert_eq!(pa.proof.proof, pb.proof.proof, "config {name}: {pa:?} vs {pb:?}");
        assert!(pa.assumes.is_none(), "config {name}");
    }
    // Issue #40: a body 1e-10 m above its supports is read with both contacts closed (within
    // the reader's tolerance), and the proof says it is about that body, naming the gaps.
    let mut lifted = read("p1-config-A.toml");
    lifted.q0[1] += 1e-10;
    let p = to_two_contact(&lifted).unwrap();
    let gaps = p.enclosure.unwrap().gaps;
    assert!(gaps.iter().all(|g| g.contains(1e-10) || (g.mid() - 1e-10).abs() < 1e-25), "{gaps:?}");
    let v = contactlab::api::p1_classify(&p, 501).unwrap().proof.unwrap();
    let a = v.assumes.expect("the proof names the gaps it took as closed");
    assert!(a.contains("taken as closed") && a.contains("e-10"), "{a}");
    // Not one body on two contacts: a clear refusal.
    let e = to_two_contact(&read("compass-biped.toml")).unwrap_err().to_string();
    assert!(e.contains("one rigid body"), "{e}");
    let e = to_two_contact(&read("rocking-block.toml")).unwrap_err().to_string();
    assert!(e.contains("exactly two point contacts") && e.contains("found 1 (right corner)"), "{e}");
}

#[test]
fn a_tilted_line_is_proved_from_the_normal_as_written() {
    // Issue #40: P1's parameters from a multibody file are enclosed from the file's numbers.
    // A body on a 45° line given by its normal [1, 1] (not a unit vector; 1/√2 has no float),
    // gravity straight down: in P1's frame h = 0.25/√2, l = (0, 0.5/√2), φ = 0, α = 45°. The
    // contacts are exactly on the line (x + y = −0.25 in binary fractions), so the gaps are
    // exactly zero, and the proof holds for this body rather than for the floats of 1/√2.
    use contactlab::twocontact::from_multibody::to_two_contact;
    let text = r#"
kind = "multibody"
gravity = 9.81
[[body]]
name = "block"
joint = "planar"
mass = 0.5
inertia = 0.004
[[line]]
name = "incline"
point = [0.0, -0.25]
normal = [1.0, 1.0]
[[contact]]
body = "block"
point = [-0.125, -0.125]
mu = 1.2
[[contact]]
body = "block"
point = [0.125, -0.375]
mu = 1.2
"#;
    let read =
        |t: &str| to_two_contact(&model::from_model(&ModelDoc::parse("tilted.toml", t, false).unwrap()).unwrap());
    let p = read(text).unwrap();
    let e = p.enclosure.unwrap();
    assert!(e.closed_exactly(), "{:?}", e.gaps);
    let r = std::f64::consts::FRAC_1_SQRT_2;
    // Tight: a few ulps of the value.
    let near = |i: contactlab::interval::Interval, v: f64| {
        (i.mid() - v).abs() <= 1e-15 * (1.0 + v.abs()) && i.width() <= 4e-15 * (1.0 + v.abs())
    };
    assert!(near(e.h, 0.25 * r) && near(e.l[0], 0.0) && near(e.l[1], 0.5 * r), "{e:?}");
    assert!(near(e.sin_phi[0], 0.0) && near(e.cos_phi[1], 1.0), "{e:?}");
    assert!(near(e.load[0], 0.5 * 9.81 * r) && near(e.load[1], -0.5 * 9.81 * r), "{e:?}");
    // The verdict is proved, about the file's body, and matches P1's own description of it.
    let c = contactlab::api::p1_classify(&p, 501).unwrap();
    let v = c.proof.clone().unwrap();
    assert!(v.proof.is_proved() && v.assumes.is_none(), "{v:?}");
    let same = contactlab::twocontact::TwoContact {
        h: 0.25 * r,
        l1: 0.0,
        l2: 0.5 * r,
        phi1: 0.0,
        phi2: 0.0,
        alpha: 45f64.to_radians(),
        ..p
    };
    let d = contactlab::api::p1_classify(&same, 501).unwrap();
    assert_eq!((c.verdict, c.theorem), (d.verdict, d.theorem));
    // A changed copy (here `same`, which keeps the file's enclosure but has other floats) is not
    // the file's body: its proofs start from its own numbers, not from the file's enclosure.
    assert_eq!(same.enclosed().h, contactlab::interval::Interval::exact(0.25 * r));
    assert_eq!(p.enclosed(), e);
    // In decimals the second foot, 0.1 + (−0.3) ≠ −0.2 in floats, is off the line x + y = −0.2
    // by about 2e-17 m: the reader closes it (within its tolerance), and the enclosure shows the
    // gap is not zero, so the proof names it.
    let decimal = text
        .replace("[0.0, -0.25]", "[0.0, -0.2]")
        .replace("[-0.125, -0.125]", "[-0.1, -0.1]")
        .replace("[0.125, -0.375]", "[0.1, -0.3]");
    let p = read(&decimal).unwrap();
    let gaps = p.enclosure.unwrap().gaps;
    assert!(gaps[0] == contactlab::interval::Interval::exact(0.0) && gaps[1].lo() > 0.0, "{gaps:?}");
    let v = contactlab::api::p1_classify(&p, 501).unwrap().proof.unwrap();
    assert!(v.assumes.as_ref().is_some_and(|a| a.contains("taken as closed")), "{v:?}");
}

#[test]
fn a_body_read_from_a_urdf_is_proved_about_its_converted_tree() {
    // Issue #40: a URDF's tree is converted in floating point (rpy rotations, projected
    // inertias); a proof about a P1 body read from one says it starts from that tree.
    use contactlab::twocontact::from_multibody::to_two_contact;
    let dir = std::env::temp_dir().join(format!("contactlab-urdf-p1-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("block.urdf"),
        r#"<?xml version="1.0"?>
<robot name="block">
  <link name="world"/>
  <joint name="base" type="planar">
    <parent link="world"/>
    <child link="body"/>
    <axis xyz="0 1 0"/>
  </joint>
  <link name="body">
    <inertial>
      <origin xyz="0 0 0" rpy="0 0 0"/>
      <mass value="0.594"/>
      <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.012146705999999997" iyz="0" izz="0.01"/>
    </inertial>
  </link>
</robot>
"#,
    )
    .unwrap();
    let toml = std::fs::read_to_string(example("p1-config-A.toml")).unwrap();
    let body = &toml[toml.find("[[body]]").unwrap()..toml.find("[[line]]").unwrap()];
    let text = toml.replace(body, "").replace("kind = \"multibody\"", "kind = \"multibody\"\nurdf = \"block.urdf\"");
    let file = dir.join("block.toml");
    std::fs::write(&file, text).unwrap();
    let m = model::read(&file).unwrap();
    assert!(m.tree_from_urdf);
    let p = to_two_contact(&m).unwrap();
    let v = contactlab::api::p1_classify(&p, 501).unwrap().proof.unwrap();
    let a = v.assumes.expect("the proof names the converted tree");
    assert!(a.contains("converted from the URDF"), "{a}");
    // The same body from [[body]] tables needs no such note.
    let v = contactlab::api::p1_classify(&to_two_contact(&read("p1-config-A.toml")).unwrap(), 501).unwrap();
    assert!(v.proof.unwrap().assumes.is_none());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn every_shipped_multibody_file_passes_its_own_check() {
    // `model inspect` at the file's initial state and at a moved state: M symmetric positive
    // definite, and Jacobians, J̇q̇ and the energy balance agree with finite differences.
    for entry in std::fs::read_dir(example("")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "toml") {
            continue;
        }
        let mut m = model::read(&path).unwrap();
        let n = m.dof();
        let moved: Vec<f64> = (0..2 * n).map(|k| 0.3 * ((k as f64) * 1.7).sin()).collect();
        // (On both kernels: the spatial tree's M over the planar velocities, Tᵀ M T, is exactly
        // symmetric too.)
        for kernel in [Kernel::Planar, Kernel::Spatial] {
            m.kernel = kernel;
            for state in [None, Some(moved.as_slice())] {
                let r = crate::common::inspect_planar(&m, state, 0.0).unwrap();
                let at = format!("{} ({kernel:?})", path.display());
                assert!(r.check.is_empty(), "{at}: {:?}", r.check);
                assert!(r.mass_matrix_eigenvalues[0] > 0.0, "{at}");
                assert!(r.mass_matrix_asymmetry == 0.0, "{at}");
            }
        }
    }
}

fn parse_err(text: &str) -> String {
    let doc = ModelDoc::parse("m.toml", text, false).unwrap();
    model::from_model(&doc).unwrap_err().to_string()
}

const PENDULUM: &str = "kind = \"multibody\"\ngravity = 9.81\n\
    [[body]]\nname = \"arm\"\nmass = 1.0\ninertia = 0.1\ncom = [0, -0.5]\n";

#[test]
fn bad_multibody_files_are_refused_naming_the_key() {
    let cases: &[(&str, &str)] = &[
        ("kind = \"multibody\"\ngravity = 9.81\n", "m.toml: body: missing"),
        (&format!("{PENDULUM}[[body]]\nname = \"arm\"\nmass = 1\ninertia = 1\n"), "body[1].name: two bodies"),
        (&format!("{PENDULUM}[[body]]\nname = \"b\"\nparent = \"c\"\nmass = 1\ninertia = 1\n"), "body[1].parent"),
        (&PENDULUM.replace("mass = 1.0", "mass = -1.0"), "body[0].mass: must be a finite number >= 0"),
        (&PENDULUM.replace("mass = 1.0", "mass = nan"), "body[0].mass"),
        (&PENDULUM.replace("inertia = 0.1", "inertia = 0.1\njoint = \"ball\""), "body[0].joint"),
        (&PENDULUM.replace("inertia = 0.1", "inertia = 0.1\naxis = 0.5"), "body[0].axis"),
        (&PENDULUM.replace("inertia = 0.1", "inertia = 0.1\ncolour = 1"), "body[0].colour: unknown key"),
        (
            &PENDULUM.replace("mass = 1.0\ninertia = 0.1\ncom = [0, -0.5]", "mass = 0\ninertia = 0"),
            "moves no mass",
        ),
        (&format!("{PENDULUM}[[contact]]\nbody = \"arm\"\n"), "contact[0].line: missing"),
        (
            &format!("{PENDULUM}[[line]]\nnormal = [0, 1]\n[[contact]]\nbody = \"leg\"\n"),
            "contact[0].body: no body named \"leg\"; bodies: arm",
        ),
        (
            &format!("{PENDULUM}[[line]]\nnormal = [0, 0]\n[[contact]]\nbody = \"arm\"\n"),
            "line[0].normal: must be a nonzero direction",
        ),
        (
            &format!("{PENDULUM}[[line]]\nnormal = [0, 1]\n[[contact]]\nbody = \"arm\"\nmu = -0.1\n"),
            "contact[0].mu",
        ),
        (
            &format!("{PENDULUM}[[line]]\nnormal = [0, 1]\n[[contact]]\nbody = \"arm\"\ne = 2\n"),
            "contact[0].e",
        ),
        (
            &format!("{PENDULUM}[[line]]\nnormal = [0, 1]\n[[contact]]\nbody = \"arm\"\nradius = -1\n"),
            "contact[0].radius",
        ),
        (
            &format!(
                "{PENDULUM}[[line]]\nnormal = [0, 1]\n[[contact]]\nbody = \"arm\"\nreleased_by = [\"other\"]\n"
            ),
            "contact[0].released_by: no contact named \"other\"",
        ),
        (&format!("{PENDULUM}[[limit]]\ncoordinate = \"elbow\"\nlower = 0\n"), "limit[0].coordinate"),
        (&format!("{PENDULUM}[[limit]]\ncoordinate = \"arm\"\nlower = 0\nupper = 1\n"), "limit[0].lower"),
        (&format!("{PENDULUM}[[spring]]\ncoordinate = \"arm\"\nfrequency = -1\n"), "spring[0].frequency"),
        (
            &format!(
                "{PENDULUM}[[limit]]\nname = \"stop\"\ncoordinate = \"arm\"\nlower = 0\n[[spring]]\ncoordinate = \"arm\"\n\
                 stiffness = 1\namplitude = 0.1\nfrequency = 2\n[gait]\nstrike = \"stop\"\n"
            ),
            "gait: a gait needs forces that do not change with time, and the spring on \"arm\" tracks a moving reference",
        ),
        (&format!("{PENDULUM}[initial]\nq = [0, 1]\n"), "initial.q: expected 1 entries"),
        (&format!("{PENDULUM}[relabel]\nafter = \"nothing\"\nmatrix = [[1]]\n"), "relabel.after"),
        (
            &format!("{PENDULUM}[[limit]]\nname = \"stop\"\ncoordinate = \"arm\"\nlower = 0\n[relabel]\nafter = \"stop\"\nmatrix = [[1, 0]]\n"),
            "relabel.matrix",
        ),
        (&PENDULUM.replace("gravity = 9.81", "gravity = -1"), "gravity"),
        (&PENDULUM.replace("kind = \"multibody\"", "kind = \"multibody\"\nslope = 2.0"), "slope"),
    ];
    for (text, want) in cases {
        let e = parse_err(text);
        assert!(e.contains(want), "wanted {want:?} in:\n{e}\nfor\n{text}");
        assert!(e.starts_with("m.toml: "), "{e}");
        assert!(!e.contains('\n'), "{e}");
    }
}

#[test]
fn too_many_degrees_of_freedom_are_refused_before_any_work() {
    // A chain of 30 links: refused with the supported maximum; 10^6 bodies: refused by count.
    let mut text = String::from("kind = \"multibody\"\ngravity = 9.81\n");
    for k in 0..30 {
        let parent = if k == 0 { "world".to_string() } else { format!("l{}", k - 1) };
        text += &format!("[[body]]\nname = \"l{k}\"\nparent = \"{parent}\"\nmass = 1\ninertia = 0.1\ncom = [0, -0.5]\norigin = [0, -1]\n");
    }
    let e = parse_err(&text);
    assert!(e.contains("30 degrees of freedom; at most 24"), "{e}");
    let mut text = String::from("kind = \"multibody\"\ngravity = 9.81\n");
    for k in 0..1000 {
        text += &format!("[[body]]\nname = \"b{k}\"\njoint = \"fixed\"\nmass = 1\ninertia = 1\n");
    }
    let e = parse_err(&text);
    assert!(e.contains("1000 bodies; at most 256"), "{e}");
}

#[test]
fn a_twenty_link_chain_conserves_energy() {
    // 20 degrees of freedom, no contacts: energy is conserved by the flow (a property of the
    // computed M and h, not of a closed form).
    let mut text = String::from("kind = \"multibody\"\ngravity = 9.81\n");
    for k in 0..20 {
        let parent = if k == 0 { "world".to_string() } else { format!("l{}", k - 1) };
        let origin = if k == 0 { "[0, 0]" } else { "[0, -0.1]" };
        text += &format!(
            "[[body]]\nname = \"l{k}\"\nparent = \"{parent}\"\nmass = 0.1\ninertia = 1e-4\ncom = [0, -0.05]\norigin = {origin}\n"
        );
    }
    text += "[initial]\nq = [0.5, -0.2, 0.1, 0, 0.3, 0, 0, -0.1, 0, 0, 0.2, 0, 0, 0, 0.1, 0, 0, 0, 0, 0.4]\n";
    let m = model::from_model(&ModelDoc::parse("chain.toml", &text, false).unwrap()).unwrap();
    assert_eq!(m.dof(), 20);
    let sim = crate::common::simulate_planar(
        &m,
        None,
        &contactlab::multibody::simulate::SimulateSettings { t_max: 0.5, ..Default::default() },
    )
    .unwrap();
    let [e0, e1] = sim.energy.unwrap();
    assert!((e1 - e0).abs() <= 1e-7 * e0.abs().max(1.0), "energy {e0} -> {e1}");
    let _ = m.system().unwrap().contact_count();
}

#[test]
fn the_documented_multibody_example_reads_and_runs() {
    // The ```toml block of docs/models.md's multibody section: a pendulum hitting a stop.
    let docs = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/models.md")).unwrap();
    let section = &docs[docs.find("## `kind = \"multibody\"`").unwrap()..];
    let start = section.find("```toml\n").unwrap() + 8;
    let text = &section[start..start + section[start..].find("```").unwrap()];
    let m = model::from_model(&ModelDoc::parse("docs.toml", text, false).unwrap()).unwrap();
    let sim = crate::common::simulate_planar(
        &m,
        None,
        &contactlab::multibody::simulate::SimulateSettings { t_max: 3.0, ..Default::default() },
    )
    .unwrap();
    assert!(sim.impacts > 0, "the arm should reach its stop");
    // Newton's law with e = 0.8 at a frictionless stop: each impact keeps e² of the kinetic
    // energy (the stop's normal velocity is the arm's whole velocity).
    for ev in sim.events.iter().filter(|e| e.kind == EventKind::Impact) {
        let speed = ev.impact_speed.unwrap();
        let loss = ev.energy_loss.unwrap();
        let inertia = 0.0833 + 0.25; // about the pivot
        let expected = 0.5 * inertia * speed * speed * (1.0 - 0.64);
        assert!((loss - expected).abs() <= 1e-9 * expected, "loss {loss} vs {expected}");
    }
}

#[test]
fn the_compass_biped_file_has_p2s_gait() {
    // Found by the gait search (no guess beyond the file), the same as the built-in model's
    // gait: period, multipliers, mu_stick = 0.175 and impulse ratio 0.145 (P2's numbers).
    use contactlab::multibody::gait::GaitSettings;
    let m = read("compass-biped.toml");
    let search = contactlab::multibody::gait::find_gaits(&m, &GaitSettings::default()).unwrap();
    assert_eq!(search.gaits.len(), 1, "{search:?}");
    let g = &search.gaits[0];
    let guess = [-0.15, 0.7, -0.5];
    let b = hand_written_gait::compass(&CompassBiped::paper(0.7), &guess, 1e-10).expect("converges");
    assert!((g.period - b.period).abs() <= 1e-9 * b.period, "{} vs {}", g.period, b.period);
    // The gait's post-strike state is the hand-written gait's, in the file's hip coordinates
    // (the position along the slope aside: the symmetry moves it).
    let y = &b.section_point;
    let (hq, hv) =
        to_hip(&CompassBiped::paper(0.7), &Vector4::new(y[0], y[0], 0.0, 0.0), &Vector4::new(y[1], y[2], 0.0, 0.0));
    for k in 0..4 {
        assert!(k == 0 || (g.q[k] - hq[k]).abs() <= 1e-8, "q[{k}]: {} vs {}", g.q[k], hq[k]);
        assert!((g.v[k] - hv[k]).abs() <= 1e-8 * hv.amax(), "v[{k}]: {} vs {}", g.v[k], hv[k]);
    }
    let modulus = |z: &[f64; 2]| z[0].hypot(z[1]);
    for (a, c) in g.multipliers.iter().zip(&b.multipliers) {
        assert!((modulus(a) - modulus(c)).abs() <= contactlab::hybrid::section::JACOBIAN_AGREEMENT);
    }
    // At rtol 1e-13 the built-in model's central differences and the file's exact multipliers
    // (variational equations, converged to 1e-10: tests/integration/variational.rs) agree to 2e-6, the
    // differences' truncation error (7e-7 here, from their step rtol^(1/3) ≈ 5e-5).
    let tight = GaitSettings { rtol: 1e-13, ..Default::default() };
    let gt = contactlab::multibody::gait::gait_from(&m, &g.q, &g.v, &tight).unwrap().expect("converges");
    let bt = hand_written_gait::compass(&CompassBiped::paper(0.7), &guess, 1e-13).expect("converges");
    assert_eq!(gt.multipliers.len(), bt.multipliers.len());
    for (a, c) in gt.multipliers.iter().zip(&bt.multipliers) {
        let d = (a[0] - c[0]).hypot(a[1] - c[1]);
        assert!(d <= 2e-6, "{:?} vs {:?}: {d:e}", gt.multipliers, bt.multipliers);
    }
    assert!(
        (g.mu_stick.unwrap() - b.mu_stick).abs() <= 1e-8 * b.mu_stick,
        "mu_stick {} vs {}",
        g.mu_stick.unwrap(),
        b.mu_stick
    );
    assert!((g.impulse_ratio.unwrap() - b.impact_impulse_ratio).abs() <= 1e-6 * b.impact_impulse_ratio);
    // The step length: the hip moves by the distance between the feet, 2 (2l) sin(theta1*).
    let step = 2.0 * 1.6 * (-0.14783689025242455f64).sin().abs();
    assert!((g.step_length[0] - step).abs() <= 1e-8, "{:?} vs {step}", g.step_length);
    // Too little friction: no gait, and the friction the sticking gait would need.
    let mut slippery = m.clone();
    for c in &mut slippery.contacts {
        c.law.mu = 0.1;
    }
    let none = contactlab::multibody::gait::find_gaits(&slippery, &GaitSettings::default()).unwrap();
    assert!(none.gaits.is_empty(), "{none:?}");
    let need = none.needs_mu.expect("the sticking gait's friction");
    assert!((need - b.mu_stick).abs() <= 1e-8 * b.mu_stick, "needs {need}");
    assert!(none.reason.unwrap().contains("needs mu >= 0.1749"));
}

#[test]
fn the_rocking_block_follows_housner() {
    // Beyond the papers: Housner's rocking block. (1) The first impact comes when the inverted
    // pendulum about the corner, released at rest at phi0, reaches phi = 0: the time by
    // quadrature of the energy integral (an independent route). (2) Every impact keeps the
    // factor 1 - (3/2) sin^2(alpha) of the rotation rate (Housner's closed form), so the
    // corners' approach speeds form that geometric sequence. (3) The rocking ends at a Zeno
    // point, at rest on both corners.
    use contactlab::multibody::simulate::SimulateSettings;
    let m = read("rocking-block.toml");
    let housner = contactlab::mechanics::closed_form::RockingBlock { b: 0.1, h: 0.4, gravity: 9.81 };
    let t1 = housner.first_impact_time(-m.q0[2], 4000);
    let sim =
        crate::common::simulate_planar(&m, None, &SimulateSettings { t_max: 10.0, ..Default::default() }).unwrap();
    let impacts: Vec<&contactlab::multibody::simulate::Event> =
        sim.events.iter().filter(|e| e.kind == EventKind::Impact).collect();
    assert!((impacts[0].t - t1).abs() <= 1e-9, "first impact at {} vs {t1}", impacts[0].t);
    let factor = housner.rate_ratio();
    for w in impacts.windows(2).take(20) {
        let ratio = w[1].impact_speed.unwrap() / w[0].impact_speed.unwrap();
        assert!((ratio - factor).abs() <= 1e-8, "ratio {ratio} vs Housner's {factor}");
    }
    assert!(sim.zeno_points >= 1, "{:?}", sim.termination);
    assert!(matches!(sim.termination, contactlab::hybrid::Termination::Rest), "{:?}", sim.termination);
}

/// xorshift64*: deterministic random numbers for the property test below.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    }
    fn range(&mut self, a: f64, b: f64) -> f64 {
        a + (b - a) * self.next()
    }
}

#[test]
fn frictional_impacts_with_restitution_never_gain_energy() {
    // Random mechanisms (a floating body with 0 to 3 links, random masses, inertias, centres of
    // mass and contact points), random laws (e in [0, 1], mu in [0, 1.5]) and random states with
    // contact 0 about to strike the ground: the kinetic energy lost in the impact is never
    // negative (to round-off of the energy).
    use contactlab::multibody::simulate::SimulateSettings;
    let mut rng = Rng(0x5DEE_CE66_D1CE_4E5B);
    let mut impacts = 0;
    for case in 0..600 {
        let links = (rng.next() * 4.0) as usize;
        let mut text = String::from("kind = \"multibody\"\ngravity = 9.81\n");
        text += &format!(
            "[[body]]\nname = \"b0\"\njoint = \"planar\"\nmass = {}\ninertia = {}\ncom = [{}, {}]\n",
            rng.range(0.5, 3.0),
            rng.range(0.01, 0.3),
            rng.range(-0.1, 0.1),
            rng.range(-0.1, 0.1)
        );
        for k in 1..=links {
            text += &format!(
                "[[body]]\nname = \"b{k}\"\nparent = \"b{}\"\norigin = [{}, {}]\nmass = {}\ninertia = {}\ncom = [{}, {}]\n",
                k - 1,
                rng.range(-0.4, 0.4),
                rng.range(-0.4, 0.0),
                rng.range(0.1, 2.0),
                rng.range(0.001, 0.1),
                rng.range(-0.2, 0.2),
                rng.range(-0.3, 0.0)
            );
        }
        text += "[[line]]\nnormal = [0, 1]\n";
        let contacts = 1 + (rng.next() * 2.0) as usize;
        for c in 0..contacts {
            let body = (rng.next() * (links + 1) as f64) as usize;
            text += &format!(
                "[[contact]]\nname = \"c{c}\"\nbody = \"b{body}\"\npoint = [{}, {}]\nmu = {}\ne = {}\n",
                rng.range(-0.3, 0.3),
                rng.range(-0.5, 0.0),
                rng.range(0.0, 1.5),
                rng.range(0.0, 1.0)
            );
        }
        let m = model::from_model(&ModelDoc::parse("random.toml", &text, false).unwrap()).unwrap();
        let n = m.dof();
        // A random configuration lifted so that contact 0 is 1e-6 above the ground and every
        // other contact higher; a random velocity with contact 0 approaching.
        let mut q: Vec<f64> = (0..n).map(|k| if k < 2 { 0.0 } else { rng.range(-1.0, 1.0) }).collect();
        let mut v: Vec<f64> = (0..n).map(|_| rng.range(-2.0, 2.0)).collect();
        let r = crate::common::inspect_planar(&m, Some(&[q.clone(), v.clone()].concat()), 0.0).unwrap();
        let c0 = &r.contacts[0];
        if r.contacts.iter().skip(1).any(|c| c.gap < c0.gap + 1e-3) {
            continue; // another contact would strike first or with it
        }
        // The base's height is q[1] (the planar joint's y), whose gap Jacobian entry is 1.
        q[1] += 1e-6 - c0.gap;
        if c0.normal_velocity > -0.1 {
            v[1] -= c0.normal_velocity + 0.5;
        }
        let settings = SimulateSettings { t_max: 0.01, max_events: 1, ..Default::default() };
        let sim = crate::common::simulate_planar(&m, Some(&[q, v].concat()), &settings).unwrap();
        let Some(ev) = sim.events.first().filter(|e| e.kind == EventKind::Impact) else { continue };
        let before = sim.samples.iter().rev().find(|s| s.t < ev.t).map_or(0.0, |s| s.kinetic);
        let loss = ev.energy_loss.unwrap();
        assert!(loss >= -1e-12 * before.max(1e-12), "case {case}: the impact gains {} J of {before} J\n{text}", -loss);
        impacts += 1;
    }
    assert!(impacts >= 150, "only {impacts} impacts exercised");
}

#[test]
fn random_trees_have_positive_definite_mass_and_conserve_energy() {
    // Random trees of 2 to 8 bodies (each joint revolute, prismatic along a random direction or
    // fixed, a parent drawn among the earlier bodies, a fixed or floating root), random masses,
    // inertias, centres of mass and joint origins, undamped springs on some joints, no contacts:
    // at a random state M is symmetric positive definite, and the flow conserves the energy
    // (kinetic + gravity + springs) over 0.3 s. A property of the computed M(q) and h(q, q̇).
    let mut rng = Rng(0x0123_4567_89AB_CDEF);
    for case in 0..40 {
        let bodies = 2 + (rng.next() * 7.0) as usize;
        let mut text = String::from("kind = \"multibody\"\ngravity = 9.81\n");
        let mut moving = vec![];
        for k in 0..bodies {
            let joint = if k == 0 {
                if rng.next() < 0.5 {
                    "planar"
                } else {
                    "revolute"
                }
            } else {
                ["revolute", "revolute", "prismatic", "fixed"][(rng.next() * 4.0) as usize]
            };
            let parent = if k == 0 { "world".to_string() } else { format!("b{}", (rng.next() * k as f64) as usize) };
            text += &format!(
                "[[body]]\nname = \"b{k}\"\nparent = \"{parent}\"\njoint = \"{joint}\"\nmass = {}\ninertia = {}\n\
                 com = [{}, {}]\norigin = [{}, {}]\n",
                rng.range(0.1, 2.0),
                rng.range(0.001, 0.2),
                rng.range(-0.2, 0.2),
                rng.range(-0.2, 0.2),
                rng.range(-0.5, 0.5),
                rng.range(-0.5, 0.5)
            );
            if joint == "prismatic" {
                let a: f64 = rng.range(0.0, std::f64::consts::TAU);
                text += &format!("axis = [{}, {}]\n", a.cos(), a.sin());
            }
            if joint == "revolute" || joint == "prismatic" {
                moving.push(k);
                if rng.next() < 0.5 {
                    text += &format!(
                        "[[spring]]\ncoordinate = \"b{k}\"\nstiffness = {}\nrest = {}\n",
                        rng.range(1.0, 50.0),
                        rng.range(-0.3, 0.3)
                    );
                }
            }
        }
        let m = model::from_model(&ModelDoc::parse("random.toml", &text, false).unwrap())
            .unwrap_or_else(|e| panic!("case {case}: {e}\n{text}"));
        let n = m.dof();
        let q: Vec<f64> = (0..n).map(|_| rng.range(-0.8, 0.8)).collect();
        let v: Vec<f64> = (0..n).map(|_| rng.range(-1.0, 1.0)).collect();
        let state = [q.clone(), v.clone()].concat();
        let r = crate::common::inspect_planar(&m, Some(&state), 0.0).unwrap();
        let [lo, hi] = r.mass_matrix_eigenvalues;
        assert!(lo > 0.0 && hi.is_finite(), "case {case}: eig(M) in [{lo}, {hi}]\n{text}");
        assert!(r.mass_matrix_asymmetry <= 1e-14, "case {case}: asymmetry {}", r.mass_matrix_asymmetry);
        let settings = contactlab::multibody::simulate::SimulateSettings { t_max: 0.3, ..Default::default() };
        let sim = crate::common::simulate_planar(&m, Some(&state), &settings).unwrap();
        assert_eq!(sim.impacts, 0);
        let [e0, e1] = sim.energy.expect("conservative");
        // The energy's scale: the kinetic energy plus the work of gravity over a metre on the
        // heaviest tree drawn (8 bodies of at most 2 kg).
        let scale = r.energy.kinetic + 9.81 * 16.0;
        assert!((e1 - e0).abs() <= 1e-7 * scale, "case {case}: energy {e0} -> {e1}\n{text}");
    }
}

#[test]
fn a_pd_law_tracking_a_periodic_reference_has_its_closed_form_response() {
    // A slider on a prismatic joint along x (gravity along −y does no work on it) driven by the
    // PD law τ = −k (q − r) − c (q̇ − ṙ), r(t) = q⁰ + a sin(ωt + ψ): m q̈ + c q̇ + k q =
    // k q⁰ + a Im[(k + icω) e^{i(ωt+ψ)}], whose periodic response is
    // q(t) = q⁰ + Im[H a e^{i(ωt+ψ)}], H = (k + icω)/(k − mω² + icω). Started on it, the
    // simulation follows it.
    let (m, k, c, q0, a, w, psi) = (0.7, 30.0, 1.5, 0.1, 0.2, 4.0, 0.3);
    let text = format!(
        "kind = \"multibody\"\ngravity = 9.81\n[[body]]\nname = \"slider\"\njoint = \"prismatic\"\naxis = [1.0, 0.0]\n\
         mass = {m}\ninertia = 0.01\n[[spring]]\ncoordinate = \"slider\"\nstiffness = {k}\ndamping = {c}\nrest = {q0}\n\
         amplitude = {a}\nfrequency = {w}\nphase = {psi}\n"
    );
    let model = model::from_model(&ModelDoc::parse("pd.toml", &text, false).unwrap()).unwrap();
    // H = (k + icω) / (k − mω² + icω), as (re, im).
    let (nr, ni, dr, di) = (k, c * w, k - m * w * w, c * w);
    let den = dr * dr + di * di;
    let (hr, hi) = ((nr * dr + ni * di) / den, (ni * dr - nr * di) / den);
    let exact = |t: f64| {
        let (s, co) = (w * t + psi).sin_cos();
        // Im[H a e^{iθ}] = a (hr sin θ + hi cos θ); its rate ω a (hr cos θ − hi sin θ).
        (q0 + a * (hr * s + hi * co), w * a * (hr * co - hi * s))
    };
    let (x0, v0) = exact(0.0);
    let settings = contactlab::multibody::simulate::SimulateSettings { t_max: 3.0, ..Default::default() };
    let sim = crate::common::simulate_planar(&model, Some(&[x0, v0]), &settings).unwrap();
    assert!(sim.samples.len() > 50);
    for s in &sim.samples {
        let (x, v) = exact(s.t);
        assert!((s.q[0] - x).abs() <= 1e-8 * a && (s.v[0] - v).abs() <= 1e-8 * a * w, "t = {}: {s:?} vs {x}, {v}", s.t);
    }
}

#[test]
fn units_do_not_change_the_gait_search() {
    // The compass-biped file with masses, lengths or the time unit scaled by 10^±6 (inertias as
    // m L², gravity as L/T², the file's initial velocities as L/T and 1/T): the search from the
    // file finds the same gait, period (in the time unit), multipliers, μ_stick and stability.
    use contactlab::multibody::gait::GaitSettings;
    let text = std::fs::read_to_string(example("compass-biped.toml")).unwrap();
    let scaled = |sm: f64, sl: f64, st: f64| -> String {
        let mut doc: toml::Table = text.parse().unwrap();
        let times = |v: &mut toml::Value, k: f64| *v = toml::Value::Float(v.as_float().unwrap() * k);
        times(doc.get_mut("gravity").unwrap(), sl / (st * st));
        for b in doc["body"].as_array_mut().unwrap() {
            let b = b.as_table_mut().unwrap();
            times(b.get_mut("mass").unwrap(), sm);
            times(b.get_mut("inertia").unwrap(), sm * sl * sl);
            for key in ["com", "origin"] {
                for x in b.get_mut(key).and_then(|v| v.as_array_mut()).into_iter().flatten() {
                    times(x, sl);
                }
            }
        }
        for table in ["contact", "line"] {
            for c in doc[table].as_array_mut().unwrap() {
                for x in c.get_mut("point").and_then(|v| v.as_array_mut()).into_iter().flatten() {
                    times(x, sl);
                }
            }
        }
        let init = doc.get_mut("initial").unwrap().as_table_mut().unwrap();
        for (k, x) in init.get_mut("q").unwrap().as_array_mut().unwrap().iter_mut().enumerate() {
            times(x, if k < 2 { sl } else { 1.0 });
        }
        for (k, x) in init.get_mut("v").unwrap().as_array_mut().unwrap().iter_mut().enumerate() {
            times(x, if k < 2 { sl / st } else { 1.0 / st });
        }
        toml::to_string(&doc).unwrap()
    };
    let dir = std::env::temp_dir().join(format!("contactlab-units-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let modulus = |z: &[f64; 2]| z[0].hypot(z[1]);
    let mut found = Vec::new();
    for (sm, sl, st) in [(1.0, 1.0, 1.0), (1e6, 1.0, 1.0), (1e-6, 1.0, 1.0), (1.0, 1e6, 1.0), (1.0, 1e-6, 1.0)]
        .into_iter()
        .chain([(1.0, 1.0, 1e6), (1.0, 1.0, 1e-6)])
    {
        let path = dir.join("compass.toml");
        std::fs::write(&path, scaled(sm, sl, st)).unwrap();
        let m = model::read(&path).unwrap();
        let search = contactlab::multibody::gait::find_gaits(&m, &GaitSettings::default()).unwrap();
        assert_eq!(search.gaits.len(), 1, "mass x {sm}, length x {sl}, time x {st}: {search:?}");
        let g = &search.gaits[0];
        let rho = g.multipliers.iter().map(modulus).collect::<Vec<_>>();
        found.push((g.period / st, rho, g.mu_stick.unwrap(), g.stable));
    }
    let (p0, rho0, mu0, stable0) = &found[0];
    for (p, rho, mu, stable) in &found {
        assert!((p - p0).abs() <= 1e-8 * p0 && (mu - mu0).abs() <= 1e-7 * mu0 && stable == stable0, "{found:?}");
        assert!(rho.iter().zip(rho0).all(|(a, b)| (a - b).abs() <= 1e-6), "{found:?}");
    }
}
