//! The event-driven 3-D core against Moreau–Jean time-stepping and closed forms: a box tipping
//! over an edge, a box dropped onto a corner with a spin, and the energy of every impact.

use contactlab::hybrid::{EventKind, Termination};
use contactlab::spatial::algebra::{axis_angle, Vec3};
use contactlab::spatial::events::{simulate_events, EventRun3, EventSettings};
use contactlab::spatial::timestep::{resting_box, simulate, MoreauSettings, Run3, Spring};

/// The box's rotation as a unit quaternion `(x, y, z, w)` and its centre.
fn pose(q: &[f64]) -> (nalgebra::UnitQuaternion<f64>, Vec3) {
    let r = nalgebra::UnitQuaternion::from_quaternion(nalgebra::Quaternion::new(q[6], q[3], q[4], q[5]));
    (r, Vec3::new(q[0], q[1], q[2]))
}

fn quaternion(rot: &nalgebra::Matrix3<f64>) -> nalgebra::UnitQuaternion<f64> {
    nalgebra::UnitQuaternion::from_rotation_matrix(&nalgebra::Rotation3::from_matrix_unchecked(*rot))
}

/// `f` of the time-stepping run's state at time `t`, interpolated linearly between samples.
fn at(run: &Run3, t: f64, f: impl Fn(&[f64]) -> f64) -> f64 {
    let k = run.t.iter().position(|x| *x >= t).unwrap_or(run.t.len() - 1).max(1);
    let s = (t - run.t[k - 1]) / (run.t[k] - run.t[k - 1]);
    f(&run.q[k - 1]) * (1.0 - s) + f(&run.q[k]) * s
}

fn no_impact_gains_energy(run: &EventRun3) {
    let e0 = run.energy.iter().fold(0.0f64, |a, e| a.max(e.abs()));
    for e in &run.events {
        if let Some(l) = e.energy_loss {
            assert!(l >= -1e-12 * e0, "an impact at t = {} gained {} J", e.t, -l);
        }
    }
}

#[test]
fn a_box_tipping_over_its_edge_agrees_with_the_pivot_equation_and_with_time_stepping() {
    // The box of the time-stepping pivot test (edges a, b, c, turned about its bottom edge
    // x = a/2 past balance, μ = 5): the event-driven run sticks on the edge's two corners and
    // follows I_p β̈ = m g (−a/2 cos β + c/2 sin β) to the integrator's tolerance; Moreau–Jean
    // (h = 1e-4) follows it to first order in h. Near β = 1.38 the edge's normal force falls
    // to zero: both runs end their comparison there.
    let (m, a, b, c) = (2.0, 0.2, 0.3, 0.4);
    let (mut scene, _) = resting_box(m, Vec3::new(a, b, c), 0.0, 5.0, 0.0, 0.0).unwrap();
    scene.mu = 5.0;
    let beta0 = (a / c).atan() + 0.05;
    let rot = axis_angle(&Vec3::y(), beta0);
    let pivot = Vec3::new(a / 2.0, 0.0, 0.0);
    let centre = pivot + rot * Vec3::new(-a / 2.0, 0.0, c / 2.0);
    let uq = quaternion(&rot);
    let q0 = [centre.x, centre.y, centre.z, uq.i, uq.j, uq.k, uq.w];
    let t_end = 0.6;
    let ed = simulate_events(&scene, &q0, &[0.0; 6], &EventSettings { t_max: t_end, ..Default::default() }).unwrap();
    assert_eq!(ed.termination, Termination::TimeLimit, "{:?}", ed.events);
    assert_eq!(ed.final_modes.as_deref(), Some("FSFSFFFF"), "it pivots on the edge's two corners");
    let ts = simulate(&scene, &q0, &[0.0; 6], t_end, 1, &MoreauSettings { h: 1e-4, ..Default::default() }).unwrap();
    assert_eq!(ts.end, "completed");
    let g = 9.81;
    let ip = m * (a * a + c * c) / 3.0;
    let f = |beta: f64, w: f64| (w, m * g * (-a / 2.0 * beta.cos() + c / 2.0 * beta.sin()) / ip);
    let (mut beta, mut w, mut t) = (beta0, 0.0, 0.0);
    let dt: f64 = 1e-5;
    let angle = |q: &[f64]| {
        let (r, _) = pose(q);
        let (axis, angle) = r.axis_angle().map_or((Vec3::y(), 0.0), |(ax, an)| (ax.into_inner(), an));
        angle * axis.y.signum()
    };
    let mut checked = 0;
    for (k, &tk) in ed.t.iter().enumerate() {
        while t < tk - 1e-15 {
            // RK4 steps of at most 1e-5, the last one ending on the sample.
            let dt = dt.min(tk - t);
            let (k1, l1) = f(beta, w);
            let (k2, l2) = f(beta + 0.5 * dt * k1, w + 0.5 * dt * l1);
            let (k3, l3) = f(beta + 0.5 * dt * k2, w + 0.5 * dt * l2);
            let (k4, l4) = f(beta + dt * k3, w + dt * l3);
            beta += dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4);
            w += dt / 6.0 * (l1 + 2.0 * l2 + 2.0 * l3 + l4);
            t += dt;
        }
        let got = angle(&ed.q[k]);
        assert!((got - beta).abs() < 1e-8, "t = {tk}: β = {got} against the pivot equation's {beta}");
        // (First order in h = 1e-4: 1.3e-5 rad measured.)
        let moreau = at(&ts, tk, angle);
        assert!((moreau - got).abs() < 1e-4, "t = {tk}: Moreau–Jean's β = {moreau}, event-driven {got}");
        checked += 1;
    }
    assert!(checked > 100, "only {checked} samples compared");
    // Moreau–Jean holds the edge at the velocity level: it drifts by about 1e-6 over the fall.
    for q in &ts.q {
        let (r, x) = pose(q);
        let moved = (x + r * Vec3::new(a / 2.0, 0.0, -c / 2.0) - pivot).norm();
        assert!(moved < 1e-5, "Moreau–Jean's edge moved by {moved}");
    }
    // The event-driven pivot edge has not moved, and energy is conserved while it sticks.
    let (r, x) = pose(ed.q.last().unwrap());
    let drift = (x + r * Vec3::new(a / 2.0, 0.0, -c / 2.0) - pivot).norm();
    // (Held at the acceleration level, the edge drifts with the integrator's tolerance:
    // 2e-11 m measured, against a bound of 1e-9 of the box's size.)
    assert!(drift < 1e-9 * 0.27, "the edge moved by {drift}");
    let e0 = ed.energy[0];
    assert!(ed.energy.iter().all(|e| (e - e0).abs() < 1e-8 * e0.abs()), "energy drifted");
}

#[test]
fn a_box_dropped_flat_or_onto_an_edge_lands_and_rests_as_time_stepping_says() {
    // Dropped 5 cm flat (four corners strike at once), and turned 0.2 rad about y (an edge
    // strikes, the box rotates onto its face): plastic impacts, μ = 0.8. The event-driven run
    // ends at rest; Moreau–Jean (h = 1e-4) rests at the same pose to first order in h; no
    // impact gains energy.
    for tilt in [0.0, 0.2] {
        let (mut scene, mut q0) = resting_box(2.0, Vec3::new(0.2, 0.3, 0.4), 0.0, 0.8, 0.0, 0.05).unwrap();
        scene.mu = 0.8;
        let uq = quaternion(&axis_angle(&Vec3::y(), tilt));
        q0[2] += 0.2 * tilt;
        q0[3..7].copy_from_slice(&[uq.i, uq.j, uq.k, uq.w]);
        let ed = simulate_events(&scene, &q0, &[0.0; 6], &EventSettings { t_max: 2.0, ..Default::default() }).unwrap();
        assert_eq!(ed.termination, Termination::Rest, "tilt {tilt}: {:?}", ed.events);
        no_impact_gains_energy(&ed);
        let ts = simulate(&scene, &q0, &[0.0; 6], 2.0, 100, &MoreauSettings { h: 1e-4, ..Default::default() }).unwrap();
        assert_eq!(ts.end, "completed");
        let (re, xe) = pose(ed.q.last().unwrap());
        let (rt, xt) = pose(ts.q.last().unwrap());
        assert!((xe - xt).norm() < 1e-3, "tilt {tilt}: rests at {xe} vs Moreau–Jean's {xt}");
        assert!(re.angle_to(&rt) < 1e-3, "tilt {tilt}: turned {} from Moreau–Jean's", re.angle_to(&rt));
        // It rests on its face, all four bottom corners closed.
        assert!((xe.z - 0.2).abs() < 1e-12, "tilt {tilt}: centre at {}", xe.z);
        assert_eq!(ed.final_modes.as_deref().map(|m| m.matches('S').count()), Some(4));
        let first = ed.events.iter().find(|e| e.kind == EventKind::Impact).unwrap();
        if tilt == 0.0 {
            assert!((first.t - (2.0 * 0.05 / 9.81f64).sqrt()).abs() < 1e-9, "landed at {}", first.t);
        }
    }
}

#[test]
fn no_impact_of_a_tumbling_box_gains_energy() {
    // Boxes dropped with random tilts, spins and restitutions: Newton's law with friction can
    // gain energy when e > 0 (the event-driven core then lowers that impact's e); no impact of
    // these runs may gain any. (Bounded runs: whatever their end, every impact is checked.)
    let mut s = 7u64;
    let mut rand = || {
        s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (s >> 11) as f64 / (1u64 << 53) as f64
    };
    let mut impacts = 0;
    for _ in 0..6 {
        let e = rand();
        let (mut scene, mut q0) = resting_box(1.0, Vec3::new(0.2, 0.3, 0.1), 0.0, 0.5, e, 0.1).unwrap();
        scene.mu = 0.2 + rand();
        let r = contactlab::spatial::algebra::rpy(rand() - 0.5, rand() - 0.5, rand());
        let uq = quaternion(&r);
        q0[3..7].copy_from_slice(&[uq.i, uq.j, uq.k, uq.w]);
        q0[2] += 0.2;
        let v0: Vec<f64> = (0..6).map(|k| (rand() - 0.5) * if k < 3 { 1.0 } else { 8.0 }).collect();
        let set = EventSettings { t_max: 0.6, max_steps: 20_000, ..Default::default() };
        let run = simulate_events(&scene, &q0, &v0, &set).unwrap();
        no_impact_gains_energy(&run);
        impacts += run.events.iter().filter(|e| e.kind == EventKind::Impact).count();
    }
    assert!(impacts >= 6, "only {impacts} impacts");
}

#[test]
fn unitree_a1_dropped_onto_the_ground_lands_on_its_feet_by_time_stepping() {
    // The benchmark's run: A1 (its URDF's collision shapes) dropped from 0.45 m with its twelve
    // joints held by springs (400 N m/rad about the neutral pose, damping 4 N m s/rad: a PD
    // stance), Moreau–Jean with h = 1 ms for one second. It never gains energy and stands on
    // its feet (the four 2 cm spheres), the trunk well above the ground.
    let (scene, q0) = a1_on_springs();
    let run = simulate(&scene, &q0, &vec![0.0; scene.tree.nv()], 1.0, 10, &MoreauSettings::default()).unwrap();
    assert_eq!(run.end, "completed", "residual {}", run.residual_max);
    // The energy holds the springs' ½ k (q − rest)².
    let total = &run.energy;
    let worst = total.windows(2).map(|e| e[1] - e[0]).fold(f64::NEG_INFINITY, f64::max);
    assert!(worst <= 1e-9 * total[0].abs(), "energy gained: {worst} J");
    let q = run.q.last().unwrap();
    assert!(q[2] > 0.2, "the trunk sank to z = {}", q[2]);
    assert!(run.v.last().unwrap().iter().all(|x| x.abs() < 1e-3), "still moving");
    assert_eq!(*run.contacts.last().unwrap(), 4, "not on its four feet");
}

/// Unitree A1 above the ground `z = 0`, its joints held by springs about the neutral pose.
fn a1_on_springs() -> (contactlab::spatial::timestep::Scene3, Vec<f64>) {
    use contactlab::spatial::timestep::Scene3;
    use contactlab::spatial::urdf::{read, Base};
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/robots/a1.urdf");
    let a1 = read(&path, Base::Floating).unwrap();
    let nv = a1.tree.nv();
    let mut q0 = a1.tree.neutral().as_slice().to_vec();
    q0[2] = 0.45;
    let mut scene = Scene3::on_ground(a1.tree, a1.links.collisions, 0.8);
    scene.springs = (6..nv).map(|k| Spring::constant(k + 1, k, 400.0, 0.0)).collect();
    scene.damping = (0..nv).map(|k| if k < 6 { 0.0 } else { 4.0 }).collect();
    (scene, q0)
}

#[test]
fn units_do_not_change_the_event_driven_verdicts() {
    // The box dropped onto an edge, with its lengths times s and its mass times s³ (gravity
    // kept): the same events in the same modes, at times √s as long, and rest at the end.
    let run = |s: f64| {
        let (mut scene, mut q0) =
            resting_box(2.0 * s * s * s, Vec3::new(0.2, 0.3, 0.4) * s, 0.0, 0.8, 0.0, 0.05 * s).unwrap();
        scene.mu = 0.8;
        let uq = quaternion(&axis_angle(&Vec3::y(), 0.2));
        q0[2] += 0.04 * s;
        q0[3..7].copy_from_slice(&[uq.i, uq.j, uq.k, uq.w]);
        simulate_events(&scene, &q0, &[0.0; 6], &EventSettings { t_max: 2.0 * s.sqrt(), ..Default::default() }).unwrap()
    };
    let base = run(1.0);
    assert_eq!(base.termination, Termination::Rest);
    for s in [1e-8, 1e8] {
        let r = run(s);
        assert_eq!(r.termination, base.termination, "scale {s}");
        assert_eq!(r.final_modes, base.final_modes, "scale {s}");
        // The impacts before the Zeno point, in order (how many are resolved before the series
        // is extrapolated is round-off's choice: the series alternates between two edges with
        // ratio 0.7, its tails are compared to 1e-9 of the time scale, and the runs' times part
        // by 2e-9; 25, 26 and 27 impacts have been seen), and the Zeno point.
        let impacts =
            |x: &EventRun3| x.events.iter().filter(|e| e.kind == EventKind::Impact).cloned().collect::<Vec<_>>();
        let (ri, bi) = (impacts(&r), impacts(&base));
        assert!(ri.len().abs_diff(bi.len()) <= 2, "scale {s}: {} impacts vs {}", ri.len(), bi.len());
        for (a, b) in ri.iter().zip(&bi) {
            assert_eq!(a.modes, b.modes, "scale {s}");
            // (The runs round differently: their times part by about 2e-9 over 26 events.)
            assert!((a.t / s.sqrt() - b.t).abs() < 1e-7 * b.t, "scale {s}: {} vs {}", a.t / s.sqrt(), b.t);
        }
        let zeno = |x: &EventRun3| x.events.iter().find(|e| e.kind == EventKind::Zeno).map(|e| (e.t, e.modes.clone()));
        let ((zr, mr), (zb, mb)) = (zeno(&r).unwrap(), zeno(&base).unwrap());
        assert_eq!(mr, mb, "scale {s}");
        assert!((zr / s.sqrt() - zb).abs() < 1e-7 * zb, "scale {s}: Zeno at {} vs {zb}", zr / s.sqrt());
    }
}

#[test]
fn a_block_wobbling_on_its_corners_comes_to_rest_flat_through_a_zeno_series_where_time_stepping_puts_it() {
    // examples/spatial/wobbling-block.toml: the block stood on one corner and released rocks
    // from corner to corner, turning (its base is 0.2 × 0.3 m), and the event driver ends it
    // at rest flat on its base through a Zeno series it completes. Moreau–Jean time-stepping
    // (h = 0.2 ms, an independent route: no events, no Zeno completion) leaves it flat at the
    // same place and heading.
    use contactlab::api::{SimulateSettings, SpatialMethod};
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/spatial/wobbling-block.toml");
    let m = crate::common::open3(&path, None).unwrap();
    let event = crate::common::simulate3(&m, None, &SimulateSettings { t_max: 5.0, ..Default::default() }).unwrap();
    assert_eq!(event.end, "rest", "{:?}", event.termination);
    let events = event.events.clone().unwrap_or_default();
    let impacts: Vec<_> = events.iter().filter(|e| e.kind == EventKind::Impact).collect();
    // Every corner strikes, and the series ends in a Zeno point (its impacts closer and closer).
    let corners: std::collections::BTreeSet<&str> = impacts.iter().filter_map(|e| e.contact.as_deref()).collect();
    assert_eq!(corners.len(), 4, "{corners:?}");
    assert!(events.last().is_some_and(|e| e.kind == EventKind::Zeno), "{:?}", events.last());
    // Its last ten intervals shrink geometrically.
    let n = impacts.len();
    assert!(n > 50, "{n} impacts");
    let gaps: Vec<f64> = impacts[n - 11..].windows(2).map(|w| w[1].t - w[0].t).collect();
    assert!(gaps.windows(2).all(|g| g[1] < 0.95 * g[0] && g[1] > 0.5 * g[0]), "{gaps:?}");
    let moreau = SimulateSettings { t_max: 5.0, h: 2e-4, method: SpatialMethod::Moreau, ..Default::default() };
    let ts = crate::common::simulate3(&m, None, &moreau).unwrap();
    let (a, b) = (event.q.last().unwrap(), ts.q.last().unwrap());
    // Flat on its base (the centre 0.4 m up, no roll or pitch), at rest, the same pose.
    for q in [a, b] {
        assert!((q[2] - 0.4).abs() < 1e-6 && q[4].abs() < 1e-6 && q[5].abs() < 1e-6, "{q:?}");
    }
    let yaw = |q: &[f64]| 2.0 * q[6].atan2(q[3]);
    assert!(yaw(a) > 0.01, "it turned as it wobbled: {}", yaw(a));
    assert!((a[0] - b[0]).hypot(a[1] - b[1]) < 1e-3, "{a:?} vs {b:?}");
    assert!((yaw(a) - yaw(b)).abs() < 2e-3, "yaw {} vs {}", yaw(a), yaw(b));
    assert!(ts.v.last().unwrap().iter().all(|x| x.abs() < 1e-6));
}

/// Euler's disk of examples/spatial/eulers-disk.xml: radius, thickness (m), mass (kg), gravity.
const DISK: (f64, f64, f64, f64) = (0.0375, 0.01, 0.35, 9.81);

/// The disk's axis (its body `z`) in the world, from MuJoCo's free-joint `q`.
fn disk_axis(q: &[f64]) -> Vec3 {
    let r = nalgebra::UnitQuaternion::from_quaternion(nalgebra::Quaternion::new(q[3], q[4], q[5], q[6]));
    r * Vec3::z()
}

/// The gap of the disk's lower rim: its centre's height less its reach down at that tilt.
fn disk_gap(q: &[f64]) -> f64 {
    let (r, h, ..) = DISK;
    let a = disk_axis(q);
    q[2] - 0.5 * h * a.z.abs() - r * (1.0 - a.z * a.z).max(0.0).sqrt()
}

#[test]
fn eulers_disk_precesses_at_the_closed_form_rate_event_driven_and_time_stepping_rolls_it_down_at_first_order_in_h() {
    // examples/spatial/eulers-disk-steady.toml: the disk tilted by α about its fixed centre,
    // rolling on its lower rim. Its axis turns about the vertical at Ω (the file's comment
    // derives it: the torque of m g about the centre turns the angular momentum), with
    // ω = −(Ω sin α / R) d along the line d from the centre to the contact, so that both rest.
    use contactlab::api::{SimulateSettings, SpatialMethod};
    let (r, h, m, g) = DISK;
    let alpha = 0.3f64;
    let (i1, i3) = (m * (3.0 * r * r + h * h) / 12.0, 0.5 * m * r * r);
    let (s, c) = alpha.sin_cos();
    let omega = (m * g * (r * c - 0.5 * h * s) / (s * (i1 * c - i3 * h / (2.0 * r) * s))).sqrt();
    // The file's state is this closed form.
    let n = Vec3::new(s, 0.0, c);
    let e = Vec3::new(c, 0.0, -s);
    let w = (n * (0.5 * h / r) - e) * (omega * s);
    let w_body = nalgebra::Rotation3::from_axis_angle(&Vec3::y_axis(), alpha).inverse() * w;
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/spatial/eulers-disk-steady.toml");
    let model = crate::common::open3(&path, None).unwrap();
    let sim = |s: SimulateSettings| crate::common::simulate3(&model, None, &s).unwrap();
    let ev = sim(SimulateSettings { t_max: 1.0, ..Default::default() });
    let (q0, v0) = (&ev.q[0], &ev.v[0]);
    let expect_q = [0.0, 0.0, r * s + 0.5 * h * c, (0.5 * alpha).cos(), 0.0, (0.5 * alpha).sin(), 0.0];
    assert!(q0.iter().zip(expect_q).all(|(a, b)| (a - b).abs() < 1e-12), "{q0:?}");
    assert!(v0[..3].iter().all(|x| x.abs() < 1e-12) && (Vec3::new(v0[3], v0[4], v0[5]) - w_body).norm() < 1e-9 * omega);
    // Event-driven: the tilt, the centre and the energy stay; the axis turns at Ω.
    assert_eq!(ev.end, "time-limit");
    let mut heading = 0.0;
    let mut prev = 0.0f64;
    for (k, q) in ev.q.iter().enumerate() {
        let a = disk_axis(q);
        assert!((a.z.acos() - alpha).abs() < 1e-7, "t = {}: tilt {}", ev.t[k], a.z.acos());
        assert!(q[0].hypot(q[1]) < 1e-7 && (q[2] - expect_q[2]).abs() < 1e-7, "t = {}: centre {q:?}", ev.t[k]);
        let phi = a.y.atan2(a.x);
        if k > 0 {
            heading += (phi - prev + std::f64::consts::PI).rem_euclid(std::f64::consts::TAU) - std::f64::consts::PI;
        }
        prev = phi;
    }
    let t_end = *ev.t.last().unwrap();
    assert!((heading / t_end - omega).abs() < 1e-6 * omega, "precession {} vs Ω = {omega}", heading / t_end);
    let e0 = ev.energy[0];
    assert!(ev.energy.iter().all(|x| (x - e0).abs() < 1e-6 * e0));
    // Moreau–Jean rolls it down: its energy loss over 0.5 s is numerical, first order in h
    // (a quarter of it at a quarter of the step), and its rim never sinks into the floor
    // (penetration projected out).
    let loss = |step: f64| {
        let run = sim(SimulateSettings { t_max: 0.5, h: step, method: SpatialMethod::Moreau, ..Default::default() });
        assert!(run.q.iter().all(|q| disk_gap(q) > -1e-9 * r), "h = {step}: the rim sank");
        e0 - run.energy.last().unwrap()
    };
    let (coarse, fine) = (loss(1e-3), loss(2.5e-4));
    assert!(fine > 0.0 && coarse / fine > 3.0 && coarse / fine < 5.5, "losses {coarse} J and {fine} J");
}

#[test]
fn a_spun_disk_slips_and_rolls_in_turn_down_towards_the_floor_slip_alone_dissipating() {
    // examples/spatial/eulers-disk.toml: tilted by 0.5 rad, spun at 30 rad/s about the
    // vertical. Its slips stop and restart (a slip that turned against its first direction
    // stops: its regularised direction once held its speed at the stop speed, and the run
    // crawled there, at 0.844 s, to its step limit). Rolling conserves energy; slipping
    // dissipates it; Moreau–Jean's energy converges to the event-driven one at first order.
    use contactlab::api::{SimulateSettings, SpatialMethod};
    let (r, h, m, g) = DISK;
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/spatial/eulers-disk.toml");
    let model = crate::common::open3(&path, None).unwrap();
    let ev = crate::common::simulate3(&model, None, &SimulateSettings { t_max: 1.2, ..Default::default() }).unwrap();
    assert_eq!(ev.end, "time-limit", "{:?}", ev.termination);
    let events = ev.events.clone().unwrap_or_default();
    let stops: Vec<f64> = events.iter().filter(|e| e.kind == EventKind::SlipStop).map(|e| e.t).collect();
    let onsets: Vec<f64> = events.iter().filter(|e| e.kind == EventKind::SlipOnset).map(|e| e.t).collect();
    assert!(stops.len() >= 5 && onsets.len() >= 5, "{} stops, {} onsets", stops.len(), onsets.len());
    assert!(stops.iter().any(|t| *t > 0.85), "{stops:?}");
    let e0 = ev.energy[0];
    let energy_at = |t: f64| ev.energy[ev.t.iter().position(|x| *x >= t).unwrap()];
    // Each rolling stretch (from an event after which the disk sticks, to the next event) keeps
    // its energy; the run loses energy.
    let mut stretches = 0;
    for (k, e) in events.iter().enumerate() {
        if e.modes.contains('P') || !e.modes.contains('S') {
            continue;
        }
        let end = events.get(k + 1).map_or(f64::INFINITY, |n| n.t);
        let rolling: Vec<f64> =
            ev.t.iter().zip(&ev.energy).filter(|(t, _)| **t > e.t && **t < end).map(|(_, x)| *x).collect();
        let (lo, hi) = rolling.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| (a.min(*x), b.max(*x)));
        assert!(rolling.len() > 2 && hi - lo < 1e-7 * e0, "rolling from t = {}: energy {lo} to {hi}", e.t);
        stretches += 1;
    }
    assert!(stretches >= 5, "{stretches} rolling stretches");
    let rest = m * g * 0.5 * h;
    let end = *ev.energy.last().unwrap();
    assert!(end - rest < 0.6 * (e0 - rest) && ev.q.iter().all(|q| disk_gap(q) > -1e-9 * r), "{end}");
    let moreau = |step: f64| {
        let s = SimulateSettings { t_max: 0.5, h: step, method: SpatialMethod::Moreau, ..Default::default() };
        let run = crate::common::simulate3(&model, None, &s).unwrap();
        *run.energy.last().unwrap()
    };
    let target = energy_at(0.5);
    let (coarse, fine) = (moreau(2e-4) - target, moreau(5e-5) - target);
    assert!(coarse < 0.0 && fine < 0.0 && coarse / fine > 2.5 && coarse / fine < 6.0, "{coarse} vs {fine}");
}
