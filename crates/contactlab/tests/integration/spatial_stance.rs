//! `stance`: P4's verdicts on a robot in 3-D resting on its contacts, against the fixture code
//! on the same rigid box, closed forms, and unit scaling.

use std::path::PathBuf;

use contactlab::api::{JointHold, SpatialModel, StanceSettings};
use contactlab::fixture::stability::classify;
use contactlab::fixture::FrictionLaw;
use contactlab::model::ModelDoc;
use contactlab::spatial::algebra::Vec3;

fn repo(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..").join(rel)
}

/// A box of `mass` (edges 0.4, 0.4, 0.2 times `l`) resting on its four bottom corners on the
/// floor z = 0, gravity 9.81 turned by `tilt` about y, friction `mu`.
fn box_on_floor(mass: f64, l: f64, tilt: f64, mu: f64) -> SpatialModel {
    let (a, b, c) = (0.2 * l, 0.2 * l, 0.1 * l);
    let g = Vec3::new(tilt.sin(), 0.0, -tilt.cos()) * 9.81;
    let text = format!(
        r#"<mujoco><option gravity="{} {} {}"/><worldbody><geom type="plane" size="9 9 1" friction="{mu}"/>
        <body name="box" pos="0 0 {c}"><freejoint/><geom type="box" size="{a} {b} {c}" mass="{mass}" friction="{mu}"/>
        </body></worldbody></mujoco>"#,
        g.x, g.y, g.z
    );
    SpatialModel::from_mjcf("box.xml".into(), &contactlab::spatial::mjcf::parse("box.xml", &text).unwrap())
}

/// The same box as a P4 fixture file (geometry form), loaded by the fixture code.
fn box_fixture(mass: f64, tilt: f64, mu: f64, law: &str) -> contactlab::fixture::Fixture {
    let (a, b, c) = (0.2f64, 0.2f64, 0.1f64);
    let i = |p: f64, q: f64| mass * (4.0 * p * p + 4.0 * q * q) / 12.0;
    let g = [9.81 * tilt.sin() * mass, 0.0, -9.81 * tilt.cos() * mass];
    let mut t = format!(
        "kind = \"fixture\"\ndim = 3\nfriction = \"{law}\"\nmass = {mass}\n\
         inertia = [[{}, 0, 0], [0, {}, 0], [0, 0, {}]]\nload = [{}, {}, {}, 0, 0, 0]\n",
        i(b, c),
        i(a, c),
        i(a, b),
        g[0],
        g[1],
        g[2]
    );
    for (x, y) in [(a, b), (-a, b), (-a, -b), (a, -b)] {
        t += &format!("[[contact]]\npoint = [{x}, {y}, {}]\nnormal = [0, 0, 1]\nmu = {mu}\n", -c);
    }
    contactlab::fixture::model::from_model(&ModelDoc::parse("box.toml", &t, false).unwrap()).unwrap()
}

#[test]
fn a_box_on_four_corners_gets_the_fixture_code_s_verdicts() {
    // The stance of a box (a free joint: MuJoCo's coordinates) against the fixture code on the
    // same box (P4's geometric form: the centre of mass's coordinates): the verdicts and the
    // least friction coefficient do not depend on the coordinates; the latter is tan(tilt).
    for (tilt, mu) in [(0.3, 0.5), (0.3, 0.25), (0.0, 0.1)] {
        for (law, name) in [(FrictionLaw::Pyramid, "pyramid"), (FrictionLaw::Coulomb, "coulomb")] {
            let s = StanceSettings { friction: law, ..Default::default() };
            let r = crate::common::stance3(&box_on_floor(2.0, 1.0, tilt, mu), None, &s).unwrap();
            let f = classify(&box_fixture(2.0, tilt, mu, name)).unwrap();
            let c = &r.classification;
            assert_eq!(r.contacts.len(), 4, "{:?}", r.contacts);
            assert_eq!(r.velocities.len(), 6);
            assert_eq!(c.classification, f.classification, "tilt {tilt}, mu {mu}, {name}");
            assert_eq!((c.weakly_stable, c.strongly_stable), (f.weakly_stable, f.strongly_stable));
            assert_eq!(c.frictionless_stable, f.frictionless_stable);
            assert_eq!(c.weakly_stable, mu >= f64::tan(tilt), "tilt {tilt}, mu {mu}");
            let (a, b) = (c.critical_mu.unwrap(), f.critical_mu.unwrap());
            assert!((a - b).abs() < 1e-7 && (a - f64::tan(tilt)).abs() < 1e-7, "{a} {b}");
        }
    }
}

#[test]
fn a_box_s_slope_margin_is_the_friction_angle_and_units_do_not_change_it() {
    // On the floor with mu = 0.5 the box slides before it tips (its half-width is twice its
    // centre's height): the largest tilt either way is atan(mu). Lengths ×1e3 and the mass
    // ×1e-4 change no verdict and no number that has no unit.
    let s = StanceSettings { friction: FrictionLaw::Pyramid, slope_axis: Some(Vec3::y()), ..Default::default() };
    let base = crate::common::stance3(&box_on_floor(2.0, 1.0, 0.0, 0.5), None, &s).unwrap();
    let m = base.slope_margin.as_ref().unwrap();
    for t in [m.max_tilt.unwrap(), m.max_tilt_reverse.unwrap()] {
        assert!((t - 0.5f64.atan()).abs() < 1e-8, "{t}");
    }
    let scaled = crate::common::stance3(&box_on_floor(2e-4, 1e3, 0.0, 0.5), None, &s).unwrap();
    assert_eq!(scaled.classification.classification, base.classification.classification);
    let (a, b) = (scaled.slope_margin.unwrap(), base.slope_margin.unwrap());
    assert!((a.max_tilt.unwrap() - b.max_tilt.unwrap()).abs() < 1e-8, "{a:?} {b:?}");
    assert!((scaled.classification.critical_mu.unwrap() - base.classification.critical_mu.unwrap()).abs() < 1e-9);
}

#[test]
fn a1_standing_on_a_slope_needs_tan_10_degrees_and_cannot_stand_on_limp_joints() {
    // examples/spatial/a1-standing.toml: Unitree A1 straight-legged on a 10° slope, its four feet
    // touching. Locked, it is one rigid body on four contacts with the slope's normal: the least
    // friction coefficient is tan 10° (the ground's tangential over normal force), strongly
    // stable under the pyramid law with an interval-proved equilibrium; on its springs at their
    // rest angles nothing holds the joints (18 equations, 12 contact forces): not weakly stable.
    let m = crate::common::open3(&repo("examples/spatial/a1-standing.toml"), None).unwrap();
    let s = StanceSettings { friction: FrictionLaw::Pyramid, ..Default::default() };
    let r = crate::common::stance3(&m, None, &s).unwrap();
    let c = &r.classification;
    assert_eq!(r.contacts.len(), 4);
    assert_eq!(c.classification, contactlab::fixture::stability::FixtureClass::StronglyStable);
    assert!((c.critical_mu.unwrap() - 10f64.to_radians().tan()).abs() < 1e-6, "{:?}", c.critical_mu);
    let proof = serde_json::to_value(&c.equilibrium_intensity.as_ref().unwrap().proof).unwrap();
    assert_eq!(proof["proof"], "interval", "{proof}");
    // The witness's forces, in newtons, hold the robot's weight: Σ f = −m g, each within its
    // cone; under both laws.
    let weight: f64 = m.tree.bodies().iter().map(|b| b.inertia.mass).sum::<f64>() * 9.81;
    for law in [FrictionLaw::Pyramid, FrictionLaw::Coulomb] {
        let r = crate::common::stance3(&m, None, &StanceSettings { friction: law, ..s }).unwrap();
        let mut total = [0.0; 3];
        for c in &r.contacts {
            let f = c.force.unwrap();
            for (k, t) in total.iter_mut().enumerate() {
                *t += (0..3).map(|a| f[a] * c.axes[a][k]).sum::<f64>();
            }
            assert!(c.friction_used.is_none_or(|u| u <= 1.0 + 1e-6) && f[0] >= -1e-9 * weight, "{law:?}: {c:?}");
        }
        assert!(total[0].abs() < 1e-6 * weight && total[1].abs() < 1e-6 * weight, "{law:?}: {total:?}");
        assert!((total[2] - weight).abs() < 1e-6 * weight, "{law:?}: {total:?} vs {weight}");
    }
    let limp = crate::common::stance3(&m, None, &StanceSettings { joints: JointHold::Springs, ..s }).unwrap();
    assert!(!limp.classification.weakly_stable && limp.velocities.len() == 18);
    // On three feet (`--contacts`) the stance has three contacts; a name with no shape is
    // refused with the names that have one.
    let mut three = m.clone();
    three.retain_contacts(&["FL_foot", "FR_foot", "RR_foot"]).unwrap();
    assert_eq!(crate::common::stance3(&three, None, &s).unwrap().contacts.len(), 3);
    let (i, why) = m.clone().retain_contacts(&["FL_foot", "tail"]).unwrap_err();
    assert!(i == 1 && why.contains("tail") && why.contains("RR_foot"), "{why}");
    // Let go 2 cm above the slope it has no stance: one line naming the nearest contact.
    let above = crate::common::open3(&repo("examples/spatial/a1-on-a-slope.toml"), None).unwrap();
    let e = crate::common::stance3(&above, None, &s).unwrap_err().to_string();
    assert!(e.contains("no contact touches") && e.contains("foot"), "{e}");
    // A fixed-base robot with locked joints: nothing to decide, said so.
    let arm = crate::common::open3(&repo("examples/spatial/arm.urdf"), Some("fixed"));
    if let Ok(arm) = arm {
        let e = crate::common::stance3(&arm, None, &StanceSettings { touch: 1e9, ..s })
            .map(|_| ())
            .unwrap_err()
            .to_string();
        assert!(e.contains("fixed-base") || e.contains("no contact"), "{e}");
    }
}

#[test]
fn a1_s_least_friction_agrees_with_an_lp_written_here() {
    // An independent route to A1's friction margin: the trunk's six equilibrium equations from
    // `model inspect`'s contact Jacobians and bias (not the fixture code), the pyramid law, and
    // Clarabel called directly on each feasibility LP of a bisection in μ.
    use clarabel::algebra::CscMatrix;
    use clarabel::solver::{DefaultSettings, DefaultSolver, IPSolver, SolverStatus, SupportedConeT};
    let m = crate::common::open3(&repo("examples/spatial/a1-standing.toml"), None).unwrap();
    let inspect = crate::common::inspect3(&m, None, 0.0).unwrap();
    let feet: Vec<_> = inspect.contacts.iter().filter(|c| c.gap.abs() < 1e-9).collect();
    assert_eq!(feet.len(), 4);
    let n = 3 * feet.len();
    let feasible = |mu: f64| -> bool {
        // Rows: the six base equations (zero cone), then fn >= 0 and |ft| <= mu fn (nonnegative).
        let mut rows: Vec<(Vec<f64>, f64)> = vec![];
        for b in 0..6 {
            let mut r = vec![0.0; n];
            for (i, c) in feet.iter().enumerate() {
                r[3 * i] = c.normal_jacobian[b];
                r[3 * i + 1] = c.tangent_jacobian[0][b];
                r[3 * i + 2] = c.tangent_jacobian[1][b];
            }
            rows.push((r, -(inspect.bias[b] + inspect.passive_force[b])));
        }
        for i in 0..feet.len() {
            let mut r = vec![0.0; n];
            r[3 * i] = -1.0;
            rows.push((r, 0.0));
            for t in 1..3 {
                for sign in [1.0, -1.0] {
                    let mut r = vec![0.0; n];
                    r[3 * i + t] = sign;
                    r[3 * i] = -mu;
                    rows.push((r, 0.0));
                }
            }
        }
        let dense: Vec<Vec<f64>> = rows.iter().map(|r| r.0.clone()).collect();
        let a = CscMatrix::from(&dense);
        let b: Vec<f64> = rows.iter().map(|r| r.1).collect();
        let cones = [SupportedConeT::ZeroConeT(6), SupportedConeT::NonnegativeConeT(rows.len() - 6)];
        let settings = DefaultSettings { verbose: false, ..DefaultSettings::default() };
        let mut solver =
            DefaultSolver::new(&CscMatrix::zeros((n, n)), &vec![0.0; n], &a, &b, &cones, settings).unwrap();
        solver.solve();
        matches!(solver.solution.status, SolverStatus::Solved)
    };
    let (mut lo, mut hi) = (0.0, 1.0);
    assert!(feasible(hi) && !feasible(lo));
    for _ in 0..40 {
        let mid = 0.5 * (lo + hi);
        if feasible(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    let s = StanceSettings { friction: FrictionLaw::Pyramid, ..Default::default() };
    let r = crate::common::stance3(&m, None, &s).unwrap();
    let ours = r.classification.critical_mu.unwrap();
    assert!((ours - hi).abs() < 1e-6, "stance {ours}, the LP here {hi}");
}

/// A tripod: a box (its frame turned by `yaw` about z) standing on three spheres whose lowest
/// points are (0.125, ±0.1) and (−0.25, 0) in its frame, its centre of mass 0.125 above the
/// ground; the whole scene (floor included) moved by `shift` along x and y. Gravity is tilted
/// toward the body's +x by the angle whose tangent is `slope` (the tipping threshold over the
/// +x edge is slope = 0.125 / 0.125 = 1), friction 2 (it tips before it slides).
fn tripod(yaw: f64, shift: f64, slope: f64) -> SpatialModel {
    let (c, s) = (yaw.cos(), yaw.sin());
    let g = Vec3::new(slope * c, slope * s, -1.0).normalize() * 9.81;
    let text = format!(
        r#"<mujoco><compiler angle="radian"/><option gravity="{} {} {}"/><worldbody>
        <geom type="plane" pos="{shift} {shift} 0" size="9 9 1" friction="2"/>
        <body name="tripod" pos="{shift} {shift} 0.125" euler="0 0 {yaw}"><freejoint/>
          <geom type="box" size="0.2 0.15 0.02" mass="3"/>
          <geom type="sphere" pos="0.125 0.1 -0.0625" size="0.0625" mass="0"/>
          <geom type="sphere" pos="0.125 -0.1 -0.0625" size="0.0625" mass="0"/>
          <geom type="sphere" pos="-0.25 0 -0.0625" size="0.0625" mass="0"/>
        </body></worldbody></mujoco>"#,
        g.x, g.y, g.z
    );
    SpatialModel::from_mjcf("tripod.xml".into(), &contactlab::spatial::mjcf::parse("tripod.xml", &text).unwrap())
}

#[test]
fn moving_a_stance_away_from_the_origin_never_flips_a_proved_verdict() {
    // A tripod 1e8 m from the origin with gravity 1e-9 past its tipping threshold was "weakly
    // stable, proof: interval" (at the origin it tips, as an exact rational LP on the file's
    // numbers confirms): the wrench matrices were computed from world coordinates, whose
    // round-off at 1e8 m (1e-8 m) moved the lever arms by more than the margin. The lever arms
    // are now taken in each body's frame. (The centre of mass is at the body's origin: the
    // feet are massless.)
    // Every verdict, and its proof status, is the one at the origin, and right, the body square
    // to the axes or turned by 0.3 rad about the vertical.
    let s = StanceSettings { friction: FrictionLaw::Pyramid, ..Default::default() };
    let (mut proved, mut cases) = (0, 0);
    for (yaw, margin) in [(0.0, 1e-9), (0.3, 1e-9)] {
        for (slope, stable) in [(1.0 - margin, true), (1.0 + margin, false), (0.9, true), (1.1, false)] {
            let verdict = |shift: f64| {
                let r = crate::common::stance3(&tripod(yaw, shift, slope), None, &s).unwrap();
                assert_eq!(r.contacts.len(), 3, "yaw {yaw}, shift {shift}: {:?}", r.contacts);
                assert!(r.assumes.contains("taken as exact"));
                let c = r.classification;
                let evidence = c.equilibrium_intensity.as_ref().or(c.instability_certificate.as_ref()).unwrap();
                (c.weakly_stable, c.strongly_stable, evidence.proof.proof)
            };
            let at_origin = verdict(0.0);
            assert_eq!(at_origin.0, stable, "yaw {yaw}, slope {slope}");
            for shift in [1e3, 1e6, 1e8] {
                assert_eq!(verdict(shift), at_origin, "yaw {yaw}, slope {slope}, shift {shift}");
            }
            cases += 1;
            proved += (at_origin.2 == contactlab::verified::ProofKind::Interval) as usize;
        }
    }
    assert!(proved >= cases / 2, "{proved} of {cases} verdicts proved");
}

#[test]
fn a_cube_on_one_corner_is_strongly_stable_and_marginal() {
    // P4's strong stability is a statement at rest under the load as given: a cube balanced on
    // a corner (its diagonal vertical) has its weight through the corner and is strongly
    // stable, and any tilt of gravity topples it: both margins 0, `marginal`.
    let h = 0.1 * 3f64.sqrt();
    let text = format!(
        r#"<mujoco><worldbody><geom type="plane" size="9 9 1"/>
        <body name="cube" pos="0 0 {}"><freejoint/>
          <geom type="box" size="0.1 0.1 0.1" mass="1" quat="{} {} {} 0"/>
        </body></worldbody></mujoco>"#,
        h,
        // The rotation taking (1, 1, 1)/√3 to −z: about the axis (1, −1, 0)/√2 by π − acos(1/√3).
        ((std::f64::consts::PI - (1.0 / 3f64.sqrt()).acos()) / 2.0).cos(),
        ((std::f64::consts::PI - (1.0 / 3f64.sqrt()).acos()) / 2.0).sin() / 2f64.sqrt(),
        -((std::f64::consts::PI - (1.0 / 3f64.sqrt()).acos()) / 2.0).sin() / 2f64.sqrt(),
    );
    let m = SpatialModel::from_mjcf("cube.xml".into(), &contactlab::spatial::mjcf::parse("cube.xml", &text).unwrap());
    let s = StanceSettings {
        friction: FrictionLaw::Pyramid,
        slope_axis: Some(Vec3::x()),
        touch: 1e-6,
        ..Default::default()
    };
    let r = crate::common::stance3(&m, None, &s).unwrap();
    assert_eq!(r.contacts.len(), 1, "{:?}", r.contacts);
    assert_eq!(r.classification.strongly_stable, Some(true));
    let sm = r.slope_margin.as_ref().unwrap();
    assert_eq!((sm.max_tilt, sm.max_tilt_reverse), (Some(0.0), Some(0.0)));
    assert_eq!(r.marginal, Some(true));
    // A box on its face is not marginal.
    let r = crate::common::stance3(&box_on_floor(2.0, 1.0, 0.0, 0.5), None, &s).unwrap();
    assert_eq!(r.marginal, Some(false));
}

#[test]
fn the_default_stance_takes_the_final_state_of_a_simulation() {
    // `stance` refused the final state of a `simulate` run (A1's feet a few micrometres above
    // the floor) unless given --touch. Both methods' resting states are taken as they are.
    use contactlab::api::{SimulateSettings, SpatialMethod};
    let m = crate::common::open3(&repo("examples/spatial/a1-on-a-slope.toml"), None).unwrap();
    for method in [SpatialMethod::Moreau, SpatialMethod::Event] {
        let run =
            crate::common::simulate3(&m, None, &SimulateSettings { t_max: 1.0, method, ..Default::default() }).unwrap();
        let state: Vec<f64> = run.q.last().unwrap().clone();
        let r = crate::common::stance3(&m, Some(&state), &StanceSettings::default()).unwrap();
        assert_eq!(r.contacts.len(), 4, "{method:?}: {:?}", r.contacts.iter().map(|c| c.gap).collect::<Vec<_>>());
        assert!(r.classification.weakly_stable, "{method:?}");
    }
}

/// A box (2 kg, half-edges 0.2 × 0.2 × 0.1 times `l`) on the floor with a flap hinged about `y`
/// at its `+x` top edge: a 0.5 kg ball `0.3 l` out along `x`, the hinge's range `range`
/// (rad), the flap horizontal at the hinge's zero.
fn box_with_flap(l: f64, range: (f64, f64)) -> SpatialModel {
    let text = format!(
        r#"<mujoco><compiler angle="radian"/><worldbody><geom type="plane" size="9 9 1" friction="1"/>
        <body name="box" pos="0 0 {c}"><freejoint/><geom type="box" size="{a} {a} {c}" mass="2"/>
          <body name="flap" pos="{a} 0 {c}">
            <joint name="hinge" type="hinge" axis="0 1 0" limited="true" range="{} {}"/>
            <geom type="sphere" size="{r}" pos="{x} 0 0" mass="0.5"/>
          </body>
        </body></worldbody></mujoco>"#,
        range.0,
        range.1,
        a = 0.2 * l,
        c = 0.1 * l,
        r = 0.02 * l,
        x = 0.3 * l
    );
    SpatialModel::from_mjcf("flap.xml".into(), &contactlab::spatial::mjcf::parse("flap.xml", &text).unwrap())
}

#[test]
fn on_their_springs_joints_at_their_stops_are_held_by_them() {
    // The flap's weight turns the hinge towards positive angles (the ball at +x, the axis +y:
    // gravity's torque about y is +m g x). With the range [-1, 0] it rests on its upper stop,
    // which holds it with the torque m g x (the flap's own equation: no ground contact acts on
    // the hinge), the box's four corners carry the weight of both, and P4's LCP from rest
    // keeps it at rest under the pyramid law (weak stability proved in interval arithmetic).
    // With the range [0, 1] it rests on its lower stop, which cannot pull: not weakly stable. Locked, the stops take no part. In any unit of
    // length (1e-8 m to 1e8 m) the verdicts are the same and the torque scales with the length.
    let weight = 2.5 * 9.81;
    for l in [1e-8, 1.0, 1e8] {
        let s = StanceSettings { joints: JointHold::Springs, friction: FrictionLaw::Pyramid, ..Default::default() };
        let r = crate::common::stance3(&box_with_flap(l, (-1.0, 0.0)), None, &s).unwrap();
        let c = &r.classification;
        assert!(c.weakly_stable && c.strongly_stable == Some(true), "l = {l}: {c:?}");
        // (Proved in interval arithmetic: the largest-margin witness keeps no friction margin
        // at the frictionless stop, where it held every margin at zero and left no proof.)
        let proof = serde_json::to_value(&c.equilibrium_intensity.as_ref().unwrap().proof).unwrap();
        assert_eq!(proof["proof"], "interval", "l = {l}: {proof}");
        assert_eq!(r.contacts.len(), 4, "l = {l}");
        assert_eq!(r.stops.len(), 1, "l = {l}: {:?}", r.stops);
        assert_eq!((r.stops[0].name.as_str(), r.stops[0].gap), ("hinge/upper", 0.0));
        let torque = r.stops[0].force.unwrap();
        let exact = 0.5 * 9.81 * 0.3 * l;
        assert!((torque - exact).abs() < 1e-9 * exact, "l = {l}: {torque} vs {exact}");
        let up: f64 = r.contacts.iter().map(|c| c.force.unwrap()[0]).sum();
        assert!((up - weight).abs() < 1e-9 * weight, "l = {l}: {up} vs {weight}");
        let pulled = crate::common::stance3(&box_with_flap(l, (0.0, 1.0)), None, &s).unwrap();
        assert!(!pulled.classification.weakly_stable, "l = {l}");
        assert_eq!(pulled.stops[0].name, "hinge/lower");
        assert!(pulled.stops[0].force.is_none());
        // Off its stops the flap is free on its (zero) spring: not weakly stable.
        let off = crate::common::stance3(&box_with_flap(l, (-1.0, 0.5)), None, &s).unwrap();
        assert!(off.stops.is_empty() && !off.classification.weakly_stable, "l = {l}: {:?}", off.stops);
        let locked = crate::common::stance3(
            &box_with_flap(l, (0.0, 1.0)),
            None,
            &StanceSettings { joints: JointHold::Locked, ..s },
        )
        .unwrap();
        assert!(locked.stops.is_empty() && locked.classification.weakly_stable, "l = {l}");
    }
    // A fixed-base pendulum resting on its stop has no ground contact and a stance all the same.
    let text = r#"<mujoco><compiler angle="radian"/><worldbody><body name="rod" pos="0 0 1">
        <joint name="hinge" type="hinge" axis="0 1 0" limited="true" range="-1 0"/>
        <geom type="sphere" size="0.05" pos="0.4 0 0" mass="3"/></body></worldbody></mujoco>"#;
    let m = SpatialModel::from_mjcf("pendulum.xml".into(), &contactlab::spatial::mjcf::parse("p.xml", text).unwrap());
    let r =
        crate::common::stance3(&m, None, &StanceSettings { joints: JointHold::Springs, ..Default::default() }).unwrap();
    assert!(r.contacts.is_empty() && r.classification.weakly_stable);
    let exact = 3.0 * 9.81 * 0.4;
    assert!((r.stops[0].force.unwrap() - exact).abs() < 1e-9 * exact, "{:?}", r.stops);
}
