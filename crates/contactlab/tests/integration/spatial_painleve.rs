//! `painleve` on a robot in 3-D: Painlevé's rod in space against its closed form (in its plane
//! and out of it), a two-link finger on an oblique wall against the planar two-link formulas
//! written here, A1's foot, unit scaling and bad input.

use std::path::PathBuf;

use contactlab::api::{PainleveSettings, SpatialModel};
use contactlab::multibody::painleve::SliceAxis;
use contactlab::painleve::slip::SlipOutcome;
use contactlab::painleve::SlipCase;

fn repo(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..").join(rel)
}

fn model(rel: &str) -> SpatialModel {
    let p = repo(rel);
    crate::common::open3(&p, None).unwrap()
}

/// The rod of examples/spatial/painleve-rod.xml with lengths × `l` and mass × `m` (inertias
/// × `m l²`), gravity × `l` (time unchanged), friction `mu`.
fn rod(l: f64, m: f64, mu: f64) -> SpatialModel {
    let text = format!(
        r#"<mujoco><option gravity="0 0 {g}"/><worldbody><geom name="floor" type="plane" size="5 5 0.1" friction="{mu}"/>
        <body name="rod"><joint name="x" type="slide" axis="1 0 0"/><joint name="y" type="slide" axis="0 1 0"/>
        <joint name="z" type="slide" axis="0 0 1"/><joint name="yaw" type="hinge" axis="0 0 1"/>
        <joint name="pitch" type="hinge" axis="0 1 0"/><joint name="roll" type="hinge" axis="1 0 0"/>
        <inertial pos="0 0 0" mass="{m}" diaginertia="{ia} {it} {it}"/>
        <geom name="end" type="sphere" size="{r}" pos="{l} 0 0" friction="{mu}"/></body></worldbody></mujoco>"#,
        g = -9.81 * l,
        ia = 0.001 * m * l * l,
        it = m * l * l / 3.0,
        r = 0.001 * l,
    );
    SpatialModel::from_mjcf("rod.xml".into(), &contactlab::spatial::mjcf::parse("rod.xml", &text).unwrap())
}

/// The rod's state at pitch `p` and heading `yaw`, its end on the floor, at rest.
fn rod_state(l: f64, p: f64, yaw: f64) -> Vec<f64> {
    vec![0.0, 0.0, l * (p.sin() + 0.001), yaw, p, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
}

/// The closed form for the rod (mass 1, length 2, transverse inertia 1/3, end sphere radius
/// r = 0.001) in its plane at pitch `p`: the contact's material point is `ρ = (cos p, −sin p − r)`
/// from the centre, so `d = 1/m + ρₓ²/I` and `c = ρₓ(sin p + r)/I` (slip away from the centre).
fn rod_dc(p: f64) -> (f64, f64) {
    let (i, r) = (1.0 / 3.0, 0.001);
    let rx = p.cos();
    (1.0 + rx * rx / i, rx * (p.sin() + r) / i)
}

#[test]
fn painleve_s_rod_in_space_has_the_planar_closed_form_in_its_plane_and_1_over_cos_out_of_it() {
    let m = rod(1.0, 1.0, 2.0);
    let psi = 30f64.to_radians();
    for p in [0.3, 0.7, 1.1, 1.4] {
        let (d, c) = rod_dc(p);
        for (dir, cos) in [([1.0, 0.0, 0.0], 1.0), ([psi.cos(), psi.sin(), 0.0], psi.cos())] {
            let s = PainleveSettings { contact: "end".into(), direction: Some(dir), ..Default::default() };
            let r = crate::common::painleve3(&m, Some(&rod_state(1.0, p, 0.0)), &s).unwrap();
            let o = &r.over_directions;
            assert!((o.d - d).abs() <= 1e-12 * d, "p = {p}: d {} vs {d}", o.d);
            assert!((o.c[0] - c).abs() <= 1e-12 * d && o.c[1].abs() <= 1e-12 * d && o.c[2].abs() <= 1e-12 * d);
            let b = d - 2.0 * c * cos;
            assert!((r.at_state.b - b).abs() <= 1e-12 * d, "p = {p}: B {} vs {b}", r.at_state.b);
            // At rest gravity presses the end down: A = g (1 + 0 ...) > 0 for the free rod.
            assert!(r.at_state.a > 0.0);
            assert_eq!(r.at_state.case, if b > 0.0 { SlipCase::ConsistentSlip } else { SlipCase::Inconsistent });
            // The worst direction is in the plane, away from the centre.
            assert!((o.mu_min.unwrap() - d / c).abs() <= 1e-12 * d / c);
        }
    }
    // μ_min over the tilt: the closed form's minimum (golden section here), 4/3 in the plane up
    // to the sphere's radius, and that over cos 30° along a direction 30° out of the plane.
    let ratio = |p: f64| {
        let (d, c) = rod_dc(p);
        d / c
    };
    let (mut a, mut b) = (0.5f64, 1.5f64);
    let g = (5f64.sqrt() - 1.0) / 2.0;
    while b - a > 1e-12 {
        let (x1, x2) = (b - g * (b - a), a + g * (b - a));
        if ratio(x1) < ratio(x2) {
            b = x2
        } else {
            a = x1
        }
    }
    let closed = ratio(0.5 * (a + b));
    assert!((closed - 4.0 / 3.0).abs() < 2e-3, "{closed}");
    for (dir, cos) in [([1.0, 0.0, 0.0], 1.0), ([psi.cos(), psi.sin(), 0.0], psi.cos())] {
        let s = PainleveSettings {
            contact: "end".into(),
            direction: Some(dir),
            slice: vec![SliceAxis { coordinate: "pitch".into(), lo: 0.05, hi: 1.5 }],
            ..Default::default()
        };
        let r = crate::common::painleve3(&m, Some(&rod_state(1.0, 1.0, 0.0)), &s).unwrap();
        let j = serde_json::to_value(&r).unwrap();
        assert!(j["proof"] == "none" && j["proof_reason"].as_str().is_some_and(|w| w.contains("floating point")));
        let mm = r.mu_min.unwrap();
        assert!((mm.mu_min - closed / cos).abs() <= 1e-9 * closed, "{} vs {}", mm.mu_min, closed / cos);
        assert!((mm.at[0] - 0.5 * (a + b)).abs() < 1e-4);
        let any = r.mu_min_any_direction.unwrap();
        assert!((any.mu_min - closed).abs() <= 1e-9 * closed);
        // The region B < 0 along the direction: the roots of d − 2c cos ψ, bisected here.
        let iv = r.b_negative_intervals.unwrap();
        assert_eq!(iv.len(), 1);
        let bb = |p: f64| {
            let (d, c) = rod_dc(p);
            d - 2.0 * c * cos
        };
        for (k, (lo, hi)) in [(0, (0.3, 1.1)), (1, (1.1, 1.5))] {
            let (mut lo, mut hi): (f64, f64) = (lo, hi);
            while hi - lo > 1e-13 {
                let mid = 0.5 * (lo + hi);
                if (bb(mid) < 0.0) == (bb(lo) < 0.0) {
                    lo = mid
                } else {
                    hi = mid
                }
            }
            assert!((iv[0][k] - lo).abs() < 1e-9, "edge {k}: {} vs {lo}", iv[0][k]);
        }
    }
}

#[test]
fn the_rod_s_verdicts_turn_with_its_heading_and_do_not_see_units() {
    // Turned by a heading of 0.7 rad the same slip (turned with it) has the same A and B; with
    // lengths × 1e3 and mass × 1e-4 (and × 1e-3, × 1e5; × 1e8, × 1e-8 and back) the cases, μ_min
    // and the direction arc are unchanged and A, B scale as they must.
    let base = crate::common::painleve3(
        &rod(1.0, 1.0, 2.0),
        Some(&rod_state(1.0, 1.0, 0.0)),
        &PainleveSettings { contact: "end".into(), direction: Some([0.6, 0.8, 0.0]), ..Default::default() },
    )
    .unwrap();
    let yaw = 0.7f64;
    let turn = |x: f64, y: f64| [yaw.cos() * x - yaw.sin() * y, yaw.sin() * x + yaw.cos() * y, 0.0];
    let turned = crate::common::painleve3(
        &rod(1.0, 1.0, 2.0),
        Some(&rod_state(1.0, 1.0, yaw)),
        &PainleveSettings { contact: "end".into(), direction: Some(turn(0.6, 0.8)), ..Default::default() },
    )
    .unwrap();
    assert!((turned.at_state.b - base.at_state.b).abs() <= 1e-12 * base.at_state.b_scale);
    assert!((turned.at_state.a - base.at_state.a).abs() <= 1e-12 * base.at_state.a_scale);
    let w = turned.over_directions.least_b_direction.unwrap();
    let e = turn(1.0, 0.0);
    assert!((0..3).all(|k| (w[k] - e[k]).abs() < 1e-12), "{w:?} vs {e:?}");
    for (l, m) in [(1e3, 1e-4), (1e-3, 1e5), (1e8, 1e-8), (1e-8, 1e8)] {
        let r = crate::common::painleve3(
            &rod(l, m, 2.0),
            Some(&rod_state(l, 1.0, 0.0)),
            &PainleveSettings {
                contact: "end".into(),
                direction: Some([0.6, 0.8, 0.0]),
                slice: vec![SliceAxis { coordinate: "pitch".into(), lo: 0.05, hi: 1.5 }],
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(r.at_state.case, base.at_state.case);
        // B is an inverse mass (B m constant), A an acceleration (A / l constant).
        assert!((r.at_state.b * m - base.at_state.b).abs() <= 1e-9 * base.at_state.b_scale);
        assert!((r.at_state.a / l - base.at_state.a).abs() <= 1e-9 * base.at_state.a_scale);
        assert!(
            (r.over_directions.paradox_arc.unwrap()[1] - base.over_directions.paradox_arc.unwrap()[1]).abs() < 1e-9
        );
        let (a, b) = (r.mu_min.unwrap(), base_mu_min());
        assert!((a.mu_min - b).abs() <= 1e-9 * b, "{} vs {b}", a.mu_min);
    }
}

fn base_mu_min() -> f64 {
    crate::common::painleve3(
        &rod(1.0, 1.0, 2.0),
        Some(&rod_state(1.0, 1.0, 0.0)),
        &PainleveSettings {
            contact: "end".into(),
            direction: Some([0.6, 0.8, 0.0]),
            slice: vec![SliceAxis { coordinate: "pitch".into(), lo: 0.05, hi: 1.5 }],
            ..Default::default()
        },
    )
    .unwrap()
    .mu_min
    .unwrap()
    .mu_min
}

#[test]
fn a_finger_on_an_oblique_wall_has_the_planar_two_link_b() {
    // examples/spatial/finger-on-a-wall.toml: arm.urdf (shoulder yaw, pitch θ₁, elbow θ₂ about
    // y; upper arm 0.4 m, 2 kg, centre 0.2, I 0.0277; forearm 0.3 m, 1 kg, centre 0.15, I 0.0078;
    // a 0.1 kg fingertip sphere of radius 0.02 at its end, I 2e-5) pressing a wall with normal
    // n = (−cos 30°, 0, sin 30°). In the arm's vertical plane the yaw decouples (y is a
    // principal axis of every link), so d and the in-plane c follow from the two-link mass
    // matrix and the contact point's Jacobian, written here from the link data.
    let m = model("examples/spatial/finger-on-a-wall.toml");
    let beta = 30f64.to_radians();
    let n = [-beta.cos(), beta.sin()]; // (x, z)
    let t = [-beta.sin(), -beta.cos()]; // the tangent t₂ = n × t₁ (t₁ = y), down the wall
    for (t1, t2) in [(0.3, 0.6), (0.3, 0.3), (0.5, 1.2)] {
        // Positions (x, z) from the shoulder; R_y turns x to (cos a, −sin a).
        let dir = |a: f64| [a.cos(), -a.sin()];
        let e = [0.4 * dir(t1)[0], 0.4 * dir(t1)[1]];
        let tip = [e[0] + 0.3 * dir(t1 + t2)[0], e[1] + 0.3 * dir(t1 + t2)[1]];
        let contact = [tip[0] - 0.02 * n[0], tip[1] - 0.02 * n[1]];
        // ∂p/∂θ of a point turning about y through `j`: y × (x, z) = (z, −x).
        let about = |p: [f64; 2], j: [f64; 2]| [p[1] - j[1], -(p[0] - j[0])];
        // Point Jacobians [[∂x/∂θ₁, ∂x/∂θ₂], [∂z/∂θ₁, ∂z/∂θ₂]].
        let jac_upper = |p: [f64; 2]| {
            let a = about(p, [0.0, 0.0]);
            [[a[0], 0.0], [a[1], 0.0]]
        };
        let jac_fore = |p: [f64; 2]| {
            let (a1, a2) = (about(p, [0.0, 0.0]), about(p, e));
            [[a1[0], a2[0]], [a1[1], a2[1]]]
        };
        // The upper arm (2 kg, centre 0.2, I 0.0277) and the forearm with the fingertip folded in
        // (1.1 kg, centre (0.15 + 0.03)/1.1, I by the parallel-axis theorem).
        let (m1, i1) = (2.0, 0.0277);
        let c1 = [0.2 * dir(t1)[0], 0.2 * dir(t1)[1]];
        let (mf, lf) = (1.1, (0.15 * 1.0 + 0.3 * 0.1) / 1.1);
        let i_f = 0.0078 + 1.0 * (0.15 - lf) * (0.15 - lf) + 2e-5 + 0.1 * (0.3 - lf) * (0.3 - lf);
        let c2 = [e[0] + lf * dir(t1 + t2)[0], e[1] + lf * dir(t1 + t2)[1]];
        let (j1, j2) = (jac_upper(c1), jac_fore(c2));
        let (r1, r2) = ([1.0, 0.0], [1.0, 1.0]);
        let mut mm = [[0.0; 2]; 2];
        for a in 0..2 {
            for b in 0..2 {
                mm[a][b] = m1 * (j1[0][a] * j1[0][b] + j1[1][a] * j1[1][b])
                    + i1 * r1[a] * r1[b]
                    + mf * (j2[0][a] * j2[0][b] + j2[1][a] * j2[1][b])
                    + i_f * r2[a] * r2[b];
            }
        }
        let jc = jac_fore(contact);
        let wn = [n[0] * jc[0][0] + n[1] * jc[1][0], n[0] * jc[0][1] + n[1] * jc[1][1]];
        let wt = [t[0] * jc[0][0] + t[1] * jc[1][0], t[0] * jc[0][1] + t[1] * jc[1][1]];
        let det = mm[0][0] * mm[1][1] - mm[0][1] * mm[1][0];
        let inv = [[mm[1][1] / det, -mm[0][1] / det], [-mm[1][0] / det, mm[0][0] / det]];
        let form = |u: [f64; 2], w: [f64; 2]| {
            (0..2).map(|a| (0..2).map(|b| u[a] * inv[a][b] * w[b]).sum::<f64>()).sum::<f64>()
        };
        let (d, c) = (form(wn, wn), form(wt, wn));
        let state = [0.0, t1, t2];
        let r = crate::common::painleve3(
            &m,
            Some(&state),
            &PainleveSettings { contact: "finger".into(), ..Default::default() },
        )
        .unwrap();
        let o = &r.over_directions;
        assert!((o.d - d).abs() <= 1e-9 * d, "({t1}, {t2}): d {} vs {d}", o.d);
        // c as a world vector: c t (x, z) with the out-of-plane part zero.
        let cw = [c * t[0], 0.0, c * t[1]];
        assert!((0..3).all(|k| (o.c[k] - cw[k]).abs() <= 1e-9 * d), "({t1}, {t2}): c {:?} vs {cw:?}", o.c);
    }
}

#[test]
fn a1_s_foot_slipping_sideways_is_paradoxical_at_a_quarter_of_mu_with_its_other_feet_held() {
    // Unitree A1 standing on the 10° slope (examples/spatial/a1-standing.toml), joints free on
    // their springs: its front-left foot's slip with the other three feet sticking. The foot is
    // light, the leg's coupling strong: B < 0 for a sideways slip once μ exceeds about 0.26
    // (here: what the model says, held to itself by the arc and μ_min's consistency).
    let m = model("examples/spatial/a1-standing.toml");
    let r = crate::common::painleve3(&m, None, &PainleveSettings { contact: "FL_foot".into(), ..Default::default() })
        .unwrap();
    assert_eq!(r.held.len(), 3);
    let o = &r.over_directions;
    let mu_min = o.mu_min.unwrap();
    assert!(mu_min > 0.2 && mu_min < 0.3, "{mu_min}");
    // The arc's half-width is acos(μ_min / μ), centred on the least-B direction.
    let arc = o.paradox_arc.unwrap();
    assert!(((arc[1] - arc[0]) / 2.0 - (mu_min / r.mu).acos()).abs() < 1e-12);
    // Along the least-B direction B = d − μ‖c‖, negative at μ = 0.8, zero at μ_min.
    assert!(o.b_least < 0.0 && r.at_state.case == SlipCase::Inconsistent);
    let at_min = crate::common::painleve3(
        &m,
        None,
        &PainleveSettings { contact: "FL_foot".into(), mu: Some(mu_min), ..Default::default() },
    )
    .unwrap();
    assert!(at_min.over_directions.b_least.abs() <= 1e-12 * at_min.at_state.b_scale);
    // With the other feet not held the light leg alone decides: no less paradoxical.
    let alone = crate::common::painleve3(
        &m,
        None,
        &PainleveSettings { contact: "FL_foot".into(), held: Some(vec![]), ..Default::default() },
    )
    .unwrap();
    assert!(alone.held.is_empty() && alone.over_directions.mu_min.is_some());
    // Naming a foot at rest as slipping with it takes it out of the default held set: the LCP
    // of the two front feet, the hind feet held.
    let two = crate::common::painleve3(
        &m,
        None,
        &PainleveSettings { contact: "FL_foot".into(), slipping: Some(vec!["FR_foot".into()]), ..Default::default() },
    )
    .unwrap();
    let sv = two.several.unwrap();
    assert_eq!((two.held.len(), sv.contacts.len()), (2, 2), "{:?} {:?}", two.held, sv.contacts);
    assert!(sv.contacts[1].starts_with("FR_foot") && sv.lcp.complete);
    // A1 at rest: its foot does not slip, and `slip` says so at once.
    let r = crate::common::slip3(&m, None, "FL_foot").unwrap();
    assert_eq!(r.outcome, SlipOutcome::NotSlipping, "{r:?}");
    assert!(r.t_end < 1e-2, "{r:?}"); // (after the first step, not the 100-time-scale budget)
}

#[test]
fn bad_painleve_input_gets_one_clear_line() {
    let m = model("examples/spatial/painleve-rod.toml");
    let err = |s: PainleveSettings| crate::common::painleve3(&m, None, &s).unwrap_err().to_string();
    let e = err(PainleveSettings { contact: "tip".into(), ..Default::default() });
    assert!(e.contains("no contact 'tip'") && e.contains("end:0/0"), "{e}");
    let e = err(PainleveSettings { contact: "end".into(), direction: Some([0.0, 0.0, 1.0]), ..Default::default() });
    assert!(e.contains("direction") && e.contains("tangent plane"), "{e}");
    let e = err(PainleveSettings {
        contact: "end".into(),
        slice: vec![SliceAxis { coordinate: "rod_tilt".into(), lo: 0.0, hi: 1.0 }],
        ..Default::default()
    });
    assert!(e.contains("no coordinate 'rod_tilt'") && e.contains("rod_pitch"), "{e}");
    let e = err(PainleveSettings { contact: "end".into(), mu: Some(-1.0), ..Default::default() });
    assert!(e.contains("mu") && e.contains(">= 0"), "{e}");
    // A quaternion's component cannot be varied alone.
    let a1 = model("examples/spatial/a1-standing.toml");
    let q = a1.coordinates[3].clone();
    let e = crate::common::painleve3(
        &a1,
        None,
        &PainleveSettings {
            contact: "FL_foot".into(),
            slice: vec![SliceAxis { coordinate: q, lo: 0.0, hi: 0.1 }],
            ..Default::default()
        },
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("quaternion component"), "{e}");
}

/// The rod of [`rod`] with an end sphere of radius `r` (lengths in metres, mass 1, μ = 2).
fn rod_with_end(r: f64) -> SpatialModel {
    let text = format!(
        r#"<mujoco><option gravity="0 0 -9.81"/><worldbody><geom name="floor" type="plane" size="5 5 0.1" friction="2"/>
        <body name="rod"><joint name="x" type="slide" axis="1 0 0"/><joint name="y" type="slide" axis="0 1 0"/>
        <joint name="z" type="slide" axis="0 0 1"/><joint name="yaw" type="hinge" axis="0 0 1"/>
        <joint name="pitch" type="hinge" axis="0 1 0"/><joint name="roll" type="hinge" axis="1 0 0"/>
        <inertial pos="0 0 0" mass="1" diaginertia="0.001 0.3333333333333333 0.3333333333333333"/>
        <geom name="end" type="sphere" size="{r}" pos="1 0 0" friction="2"/></body></worldbody></mujoco>"#
    );
    SpatialModel::from_mjcf("rod.xml".into(), &contactlab::spatial::mjcf::parse("rod.xml", &text).unwrap())
}

#[test]
fn the_rod_s_slip_in_its_plane_ends_as_the_planar_engine_says() {
    // examples/multibody/painleve-rod.toml's state (θ = −0.6, θ̇ = −2, the end sliding right at
    // 6 m/s: a jam) and the same at 2 m/s (a reversal), run by the planar engine and by the
    // 3-D one (pitch = −θ, the end a sphere of 1 μm): the same outcome at the same time.
    let planar = contactlab::multibody::model::read(&repo("examples/multibody/painleve-rod.toml")).unwrap();
    let m3 = rod_with_end(1e-6);
    for speed in [6.0, 2.0] {
        let (th, thd) = (-0.6f64, -2.0f64);
        let (y, yd) = (-th.sin(), -th.cos() * thd);
        let xd = speed + th.sin() * thd;
        let p = crate::common::slip_planar(&planar, Some(&[0.0, y, th, xd, yd, thd]), "end").unwrap();
        let s3 = [0.0, 0.0, y + 1e-6, 0.0, -th, 0.0, xd, 0.0, yd, 0.0, -thd, 0.0];
        let r = crate::common::slip3(&m3, Some(&s3), "end").unwrap();
        assert_eq!(r.outcome, p.outcome, "{speed} m/s: {r:?}");
        assert!((r.t_end - p.t_end).abs() <= 1e-4 * p.t_end, "{speed} m/s: t {} vs {}", r.t_end, p.t_end);
        assert_eq!(p.outcome, if speed > 4.0 { SlipOutcome::Jam } else { SlipOutcome::Reversal }, "{p:?}");
        if p.outcome == SlipOutcome::Jam {
            // The jam's last stretch: the same impulse, and the same velocities after it
            // (pitch = −θ), the end still sliding.
            let impulse = |a: &Option<contactlab::painleve::desingular::Approach>| a.as_ref().and_then(|a| a.impulse);
            let (ip, i3) = (impulse(&p.approach).expect("planar impulse"), impulse(&r.approach).expect("3-D impulse"));
            assert!(ip > 0.0 && (i3 - ip).abs() <= 1e-4 * ip, "impulse 3-D {i3} vs planar {ip}");
            let (pv, rv) = (&p.state[3..], &r.state[6..]);
            for (a, b) in [(rv[0], pv[0]), (rv[2], pv[1]), (-rv[4], pv[2])] {
                assert!((a - b).abs() <= 1e-4 * speed, "{rv:?} vs {pv:?}");
            }
            assert!(r.approach.as_ref().unwrap().slip_speed > 0.1 * speed, "{r:?}");
        }
        // In the plane the direction does not turn.
        assert!(r.turned.abs() < 1e-9 && (r.direction_start[0] - 1.0).abs() < 1e-12, "{r:?}");
    }
}

#[test]
fn a_turning_slip_read_in_desingularised_time_stops_where_the_event_driver_stops_it() {
    // The rod's end sliding at 45° out of its plane at 1.41 m/s: the slip turns toward the plane
    // and B falls below 1% of its terms, where the desingularised run takes over; the slip then
    // stops (stick). The event driver alone, in physical time through the same small B, stops
    // it at the same time and state.
    let m = model("examples/spatial/painleve-rod.toml");
    let s = [0.0, 0.0, 0.5646424733950354, 0.0, 0.6, 0.0, 2.1292849467900705, 1.0, 1.6506712298193567, 0.0, 2.0, 0.0];
    let r = crate::common::slip3(&m, Some(&s), "end").unwrap();
    assert_eq!(r.outcome, SlipOutcome::Stick, "{r:?}");
    let ap = r.approach.as_ref().expect("the desingularised run took over");
    assert!(ap.t_switch < r.t_end && ap.b_rel_switch < 0.01, "{ap:?}");
    // The direction turned from 45° toward the rod's plane, by the angle between them.
    let angle = |d: [f64; 3]| d[1].atan2(d[0]);
    assert!((angle(r.direction_end) - angle(r.direction_start) - r.turned).abs() < 1e-9, "{r:?}");
    assert!(r.turned < -0.5, "{r:?}");
    let scene = m.scene(None, 0.0);
    let run = contactlab::spatial::events::simulate_events(
        &scene,
        &s[..6],
        &s[6..],
        &contactlab::spatial::events::EventSettings { t_max: 0.05, ..Default::default() },
    )
    .unwrap();
    let stop = run.events.iter().find(|e| format!("{:?}", e.kind) == "SlipStop").expect("the slip stops");
    assert!((stop.t - r.t_end).abs() <= 1e-6 * r.t_end, "{} vs {}", stop.t, r.t_end);
}

#[test]
fn the_rod_s_jam_threshold_in_its_plane_is_the_planar_engine_s() {
    // From examples/multibody/painleve-rod.toml's configuration (θ = −0.6, θ̇ = −2), the
    // smallest slip speed of the end that jams, found by bisection by the planar engine (the
    // least kinetic-energy change that slides the end) and by the 3-D one along the state's
    // slip direction (the same change, its out-of-plane row held at zero): the same threshold.
    let planar = contactlab::multibody::model::read(&repo("examples/multibody/painleve-rod.toml")).unwrap();
    let m3 = rod_with_end(1e-6);
    let (th, thd) = (-0.6f64, -2.0f64);
    let (y, yd) = (-th.sin(), -th.cos() * thd);
    let xd = 6.0 + th.sin() * thd;
    let p = crate::common::jam_planar(&planar, Some(&[0.0, y, th, xd, yd, thd]), "end", None, 10.0)
        .unwrap()
        .jam_threshold
        .expect("the planar rod jams below 10 m/s");
    let s3 = [0.0, 0.0, y + 1e-6, 0.0, -th, 0.0, xd, 0.0, yd, 0.0, -thd, 0.0];
    let r = crate::common::jam3(&m3, Some(&s3), "end", 10.0).unwrap();
    let t3 = r.jam_threshold.expect("the rod in space jams below 10 m/s");
    assert!(p > 0.5 && p < 6.0, "{p}");
    assert!((t3 - p).abs() <= 1e-4 * p, "3-D {t3} vs planar {p}");
    // Below the threshold nothing jams; a contact at rest has no slip direction.
    let none = crate::common::jam3(&m3, Some(&s3), "end", 0.5 * p).unwrap();
    assert!(none.jam_threshold.is_none());
    let rest = [0.0, 0.0, y + 1e-6, 0.0, -th, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0];
    let e = crate::common::jam3(&m3, Some(&rest), "end", 10.0).unwrap_err().to_string();
    assert!(e.contains("does not slip"), "{e}");
}

#[test]
fn the_rod_s_slip_in_space_ends_the_same_in_any_units() {
    // The rod's in-plane slip from 6 m/s (a jam) and its slip 45° out of its plane (it turns,
    // hands over to desingularised time and stops), with lengths × l and mass × m (gravity
    // × l: time unchanged, forces × m l): the same outcome at the same time, the same largest
    // force in units of m l, the same turn. (The turn is read where the slip speed falls to
    // 1e-6 of its scale, where the direction turns fast: two runs in benign units, l = 1 and 2,
    // differ there by 3e-7 rad, so 1e-5 rad is its resolution.)
    for (speed, out) in [(6.0f64, 0.0f64), (std::f64::consts::SQRT_2, 1.0)] {
        let (th, thd) = (-0.6f64, -2.0f64);
        let run = |l: f64, m: f64| {
            let (y, yd) = (-th.sin() * l, -th.cos() * thd * l);
            let xd = (speed + th.sin() * thd) * l;
            let s = [0.0, 0.0, y + 0.001 * l, 0.0, -th, 0.0, xd, out * speed * l, yd, 0.0, -thd, 0.0];
            crate::common::slip3(&rod(l, m, 2.0), Some(&s), "end").unwrap()
        };
        let base = run(1.0, 1.0);
        for (l, m) in [(1e8, 1e-8), (1e-8, 1e8), (1e3, 1e5)] {
            let r = run(l, m);
            assert_eq!(r.outcome, base.outcome, "l = {l}, m = {m}: {r:?}");
            assert!((r.t_end - base.t_end).abs() <= 1e-9 * base.t_end, "l = {l}: t {} vs {}", r.t_end, base.t_end);
            assert!((r.fn_max / (m * l) - base.fn_max).abs() <= 1e-5 * base.fn_max, "l = {l}: {}", r.fn_max);
            assert!((r.turned - base.turned).abs() <= 1e-5, "l = {l}: turned {} vs {}", r.turned, base.turned);
        }
    }
}

#[test]
fn the_rod_s_jam_out_of_its_plane_ends_by_an_impulse_that_turns_the_slip_into_it() {
    // The in-plane jam of examples/multibody/painleve-rod.toml's state (the end sliding at
    // 6 m/s) with the slip turned out of the rod's plane by φ. The jam's last stretch (at fixed
    // q, the normal impulse with its friction, the slip direction turning with it) ends at p₁
    // with an impulse that tends to the planar engine's as φ → 0, evenly in φ (the mirror
    // y → −y maps the slip at φ to the slip at −φ: the same impulse, the opposite turn). Out of
    // the plane the friction turns the slip back towards the plane.
    let planar = contactlab::multibody::model::read(&repo("examples/multibody/painleve-rod.toml")).unwrap();
    let m3 = rod_with_end(1e-6);
    let (th, thd) = (-0.6f64, -2.0f64);
    let (y, yd) = (-th.sin(), -th.cos() * thd);
    let xd = 6.0 + th.sin() * thd;
    let p = crate::common::slip_planar(&planar, Some(&[0.0, y, th, xd, yd, thd]), "end").unwrap();
    let ip = p.approach.as_ref().and_then(|a| a.impulse).expect("the planar rod jams");
    let jam = |phi: f64| {
        let s3 = [0.0, 0.0, y + 1e-6, 0.0, -th, 0.0, xd, 6.0 * phi.tan(), yd, 0.0, -thd, 0.0];
        let r = crate::common::slip3(&m3, Some(&s3), "end").unwrap();
        assert_eq!(r.outcome, SlipOutcome::Jam, "φ = {phi}: {r:?}");
        (r.approach.as_ref().and_then(|a| a.impulse).expect("an impulse"), r.turned)
    };
    let (i4, _) = jam(1e-4);
    assert!((i4 - ip).abs() <= 1e-4 * ip, "{i4} vs {ip}");
    let (i3, i2) = (jam(1e-3).0 - ip, jam(1e-2).0 - ip);
    assert!(i3 > 0.0 && i2 / i3 > 70.0 && i2 / i3 < 130.0, "growth {i3} at 1e-3, {i2} at 1e-2: not even in φ");
    let ((a, ta), (b, tb)) = (jam(0.2), jam(-0.2));
    assert!((a - b).abs() <= 1e-6 * a && (ta + tb).abs() <= 1e-6, "{a} {ta} vs {b} {tb}");
    assert!(a > 10.0 * ip && ta < -0.1 && ta > -0.2, "impulse {a}, turned {ta}");
}
