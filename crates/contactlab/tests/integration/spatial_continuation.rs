//! Continuation of 3-D gaits in a parameter of their scene files: each point of a branch is a
//! gait that Newton's method alone finds again at its parameter, the stability change is where
//! independent gait solves on either side say, and the scene keys a continuation varies
//! (`slope`, `[[link]]`, carried to a mirror partner) mean what they say.

use std::path::{Path, PathBuf};

use contactlab::api::{continuation, ContinueRequest, SpatialModel};
use contactlab::continuation::{Settings, SpecialKind};
use contactlab::model::param::ParamKey;
use contactlab::model::ModelDoc;
use contactlab::multibody::gait::GaitSettings;

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(rel)
}

/// The scene `doc` with `key = p`, its gait searched from the state given (no settling).
fn at(doc: &ModelDoc, key: &str, p: f64) -> SpatialModel {
    let mut m = crate::common::open_doc3(&doc.with_param(&ParamKey::parse(key).unwrap(), p).unwrap()).unwrap();
    m.gait.as_mut().unwrap().settle = 0;
    m
}

fn request(key: &str, from: f64, to: f64) -> ContinueRequest {
    ContinueRequest {
        param: key.into(),
        from: Some(from),
        to,
        state: None,
        orbit: None,
        settings: Settings::default(),
        gait: Default::default(),
    }
}

#[test]
fn the_3d_rimless_wheel_becomes_laterally_stable_at_a_neimark_sacker_point_as_the_slope_steepens() {
    // examples/spatial/rimless-wheel.toml continued in `slope` from 0.16 to 0.2 rad: its steady
    // rolling falls over sideways (a real multiplier > 1) on the gentler slopes; the lateral
    // and heading multipliers meet, and the pair they become enters the unit circle. Two real
    // multipliers meeting outside the circle is no special point; the pair's crossing is one.
    let path = repo("examples/spatial/rimless-wheel.toml");
    let doc = ModelDoc::read(&path).unwrap();
    let c = continuation(&doc, &request("slope", 0.16, 0.2), &|_| {}).unwrap();
    let b = &c.branches[0];
    assert!(b.end.contains("reached"), "{}", b.end);
    let ns: Vec<_> = b.special.iter().filter(|s| s.kind == SpecialKind::NeimarkSacker).collect();
    assert_eq!(ns.len(), 1, "{:?}", b.special.iter().map(|s| (s.kind, s.p)).collect::<Vec<_>>());
    let ns = ns[0];
    assert!(ns.p > 0.18 && ns.p < 0.195, "{}", ns.p);
    let on_circle = ns.point.multipliers.iter().map(|z| (z[0].hypot(z[1]) - 1.0).abs()).fold(f64::INFINITY, f64::min);
    assert!(on_circle < 1e-6, "{:?}", ns.point.multipliers);
    assert!(ns.point.multipliers.iter().any(|z| (z[0].hypot(z[1]) - 1.0).abs() < 1e-6 && z[1].abs() > 1e-3));
    // Independent Newton solves either side of it, each from the branch's nearest state.
    let nearest = |p: f64| {
        b.points.iter().min_by(|x, y| (x.p - p).abs().total_cmp(&(y.p - p).abs())).unwrap().observation.state.clone()
    };
    let settings = GaitSettings::spatial();
    for (dp, stable) in [(-0.004, false), (0.004, true)] {
        let p = ns.p + dp;
        let g = crate::common::gait3(&at(&doc, "slope", p), Some(&nearest(p)), &settings).unwrap();
        assert!(g.converged, "{:?}", g.reason);
        assert_eq!(g.max_modulus.unwrap() < 1.0, stable, "slope {p}: {:?}", g.multipliers);
    }
    // Every point is a gait Newton's method finds again at its slope, with the same multipliers;
    // and the in-plane multiplier is the planar wheel's at every slope ((κ + cos 2π/n)/(1 + κ))²
    // = 0.70702, to O(r/l) with the file's 1 mm spheres), until a slip enters the step.
    for pt in b.points.iter().step_by(4) {
        let g = crate::common::gait3(&at(&doc, "slope", pt.p), Some(&pt.observation.state), &settings).unwrap();
        assert!(g.converged && g.iterations <= 1, "slope {}: {:?} {}", pt.p, g.reason, g.iterations);
        for (a, z) in pt.multipliers.iter().zip(g.multipliers_found()) {
            assert!(
                (a[0] - z[0]).hypot(a[1] - z[1]) < 1e-6,
                "slope {}: {:?} {:?}",
                pt.p,
                pt.multipliers,
                g.multipliers
            );
        }
        assert!(pt.multipliers.iter().any(|z| (z[0] - 0.70702).hypot(z[1]) < 1e-3), "{:?}", pt.multipliers);
        let step = pt.observation.quantities.iter().find(|q| q.0 == "step_length[wheel.x]").unwrap().1;
        // A step rolls the hub forward by about the chord between spoke tips, 2 l sin(π/n).
        assert!((step - 2.0 * (std::f64::consts::PI / 10.0).sin()).abs() < 0.05, "{step}");
    }
}

#[test]
fn the_3d_compass_walker_continues_in_its_hip_width_its_right_hip_following_as_the_mirror_image() {
    let path = repo("examples/spatial/compass-walker.toml");
    let doc = ModelDoc::read(&path).unwrap();
    let key = "link[left_leg].pos[1]";
    // The scene's [[link]] moves the left hip; the right one follows as its mirror image.
    let m = at(&doc, key, 0.08);
    let y = |name: &str| m.tree.bodies()[m.tree.body_index(name).unwrap()].placement.pos.y;
    assert_eq!((y("left_leg"), y("right_leg")), (0.08, -0.08));
    let req = ContinueRequest { settings: Settings { max_points: 3, ..Default::default() }, ..request(key, 0.05, 0.1) };
    let c = continuation(&doc, &req, &|_| {}).unwrap();
    let b = &c.branches[0];
    assert_eq!(b.points.len(), 3, "{}", b.end);
    let last = b.points.last().unwrap();
    assert!(last.p > 0.05 && !last.stable && last.multipliers[0][0] < -5.0, "{} {:?}", last.p, last.multipliers);
    let g =
        crate::common::gait3(&at(&doc, key, last.p), Some(&last.observation.state), &GaitSettings::spatial()).unwrap();
    assert!(g.converged && g.iterations <= 1, "{:?}", g.reason);
    assert!((g.multipliers_found()[0][0] - last.multipliers[0][0]).abs() < 1e-6 * last.multipliers[0][0].abs());
    // The lateral instability eases as the hips part (the report's BEYOND row lists it).
    assert!(last.spectral_radius < b.points[0].spectral_radius);
}

#[test]
fn scene_keys_a_continuation_varies_mean_what_they_say_and_bad_ones_get_one_line() {
    // `slope` turns the file's gravity about y (the MJCF file writes the same 0.1 rad itself).
    let path = repo("examples/spatial/rimless-wheel.toml");
    let m = crate::common::open3(&path, None).unwrap();
    let plain = crate::common::open3(&repo("examples/spatial/rimless-wheel.xml"), None).unwrap();
    assert!((m.tree.gravity - plain.tree.gravity).norm() < 1e-12 * plain.tree.gravity.norm());
    let doc = ModelDoc::read(&path).unwrap();
    let with = |text: &str| {
        let mut d = doc.clone();
        if text.contains("slope") {
            d.table.remove("slope");
        }
        let extra: toml::Table = text.parse().unwrap();
        d.table.extend(extra);
        crate::common::open_doc3(&d)
    };
    let g = with("slope_deg = 30").unwrap().tree.gravity;
    assert!((g.x / -g.z - 30f64.to_radians().tan()).abs() < 1e-12 && (g.norm() - 9.81).abs() < 1e-9);
    // A link's mass scales its rotational inertia with it.
    let heavy = with("[[link]]\nname = \"wheel\"\nmass = 20.0").unwrap();
    let wheel = plain.tree.body_index("wheel").unwrap();
    let i0 = plain.tree.bodies()[wheel].inertia;
    let i1 = heavy.tree.bodies()[wheel].inertia;
    assert!(i1.mass == 20.0 && (i1.inertia - i0.inertia * 2.0).norm() < 1e-12, "{i0:?} {i1:?}");
    let err = |text: &str| with(text).unwrap_err().to_string();
    let e = err("gravity = [0.0, 0.0, -9.81]\nslope = 0.1");
    assert!(e.contains("slope") && e.contains("gravity"), "{e}");
    let e = err("slope = 2.0");
    assert!(e.contains("slope") && e.contains("-1.6"), "{e}");
    let e = err("[[link]]\nname = \"hub\"\nmass = 1.0");
    assert!(e.contains("link") && e.contains("\"hub\"") && e.contains("wheel"), "{e}");
    let e = err("[[link]]\nname = \"wheel\"\nmass = -1.0");
    assert!(e.contains("mass") && e.contains("> 0"), "{e}");
    let e = err("[[link]]\nname = \"wheel\"\ninertia = 1.0");
    assert!(e.contains("inertia"), "{e}");
    // A continuation's key must be in the file; P3's orbits are planar.
    let e = continuation(&doc, &request("link[wheel].mass", 10.0, 11.0), &|_| {}).unwrap_err().to_string();
    assert!(e.contains("link"), "{e}");
    let req = ContinueRequest { orbit: Some("s0".into()), ..request("slope", 0.1, 0.2) };
    let e = continuation(&doc, &req, &|_| {}).unwrap_err().to_string();
    assert!(e.contains("orbit") && e.contains("planar"), "{e}");
}

#[test]
fn a_3d_basin_captures_the_gait_s_own_cell_and_loses_a_wheel_rolled_hard_sideways() {
    use contactlab::api::{basin, basin_cells, basin_plan, open_doc};
    use contactlab::multibody::basin::{BasinAxis, BasinSettings, Outcome};
    // examples/spatial/rimless-wheel.toml at slope 0.25, where its rolling is stable: a grid
    // over the roll rate (the gait's own value in the middle) for up to 30 strikes.
    let path = repo("examples/spatial/rimless-wheel.toml");
    let doc = ModelDoc::read(&path).unwrap();
    let m = open_doc(&doc.with_param(&ParamKey::parse("slope").unwrap(), 0.25).unwrap()).unwrap();
    let settings = BasinSettings { steps: 30, ..Default::default() };
    let plan = basin_plan(&m, &["wheel.wx".into()], None, &settings).unwrap();
    assert_eq!(plan.gaits.len(), 1, "the rolling at 0.25 is stable");
    let g = crate::common::gait3(m.spatial().unwrap(), None, &GaitSettings::spatial()).unwrap();
    let k = g.coordinates.iter().position(|c| c == "wheel.wx").unwrap();
    let wx = g.y.as_ref().unwrap()[k];
    // A 3-D gait says it carries no proof, and why.
    let j = serde_json::to_value(&g).unwrap();
    assert!(j["proof"] == "none" && j["proof_reason"].as_str().unwrap().contains("floating point"), "{j}");
    let cells = basin_cells(&m, &plan, &[vec![wx], vec![wx + 3.0]], &|_, _| {}).unwrap();
    assert_eq!((cells[0].outcome, cells[0].strikes), (Outcome::Gait(0), 1), "{:?}", cells[0]);
    assert_eq!(cells[1].outcome, Outcome::Fell, "{:?}", cells[1]);
    // The grid's cells are the same evaluated in one call or one by one.
    let axes = [BasinAxis { name: "wheel.wx".into(), lo: wx - 0.2, hi: wx + 0.2, n: 3 }];
    let b = basin(&m, &axes, None, &settings, &|_, _| {}).unwrap();
    for c in &b.cells {
        let one = basin_cells(&m, &plan, std::slice::from_ref(&c.values), &|_, _| {}).unwrap();
        assert_eq!((one[0].outcome, one[0].strikes), (c.outcome, c.strikes));
    }
    assert!((b.fractions.iter().map(|f| f.1).sum::<f64>() - 1.0).abs() < 1e-12);
    // Bad inputs: a name the chart does not have (the names listed), a grid before the strike.
    let e = basin_plan(&m, &["wheel.x".into()], None, &settings).unwrap_err().to_string();
    assert!(e.contains("wheel.x") && e.contains("d.wheel.wx"), "{e}");
    let s = BasinSettings { before_strike: true, ..settings };
    let e = basin_plan(&m, &["wheel.wx".into()], None, &s).unwrap_err().to_string();
    assert!(e.contains("before_strike") && e.contains("planar"), "{e}");
}
