//! The energy a 3-D run reports: kinetic, gravitational and the joint springs' (it once left
//! the springs out), kept without damping or contacts by the event driver to its tolerance, and
//! by Moreau–Jean to the scheme's first order in `h`.

use contactlab::spatial::events::{simulate_events, EventSettings};
use contactlab::spatial::timestep::{simulate, MoreauSettings, Scene3};

/// A hinge on a spring: a rod that swings about `y` under gravity with a spring of
/// `stiffness` N m/rad about its hanging angle, no damping, no contacts, started 1 rad out.
fn sprung_hinge(damping: f64) -> (Scene3, Vec<f64>) {
    let xml = format!(
        r#"<mujoco><worldbody><body name="rod" pos="0 0 2">
             <joint name="hinge" type="hinge" axis="0 1 0" stiffness="4" damping="{damping}"/>
             <geom type="capsule" fromto="0 0 0 0 0 -0.5" size="0.02" mass="1"/>
           </body></worldbody></mujoco>"#
    );
    let m = contactlab::api::SpatialModel::from_mjcf(
        "sprung.xml".into(),
        &contactlab::spatial::mjcf::parse("sprung.xml", &xml).unwrap(),
    );
    (m.scene(None, 0.0), vec![1.0])
}

#[test]
fn the_energy_holds_the_springs_potential_and_is_kept_without_damping() {
    // It once left the springs out: this hinge "gained" 1.0 J from 0 (½ k θ² = 2 J at 1 rad
    // turned into motion). Event-driven, the total is kept to the integration's tolerance; by
    // Moreau–Jean to the scheme's O(h) drift over a few swings.
    let (scene, q0) = sprung_hinge(0.0);
    assert!((scene.spring_energy(0.0, &q0) - 2.0).abs() < 1e-12);
    let run = simulate_events(&scene, &q0, &[0.0], &EventSettings { t_max: 3.0, ..Default::default() }).unwrap();
    let e0 = run.energy[0];
    let drift = run.energy.iter().map(|e| (e - e0).abs()).fold(0.0, f64::max);
    assert!(drift < 1e-7 * e0.abs().max(2.0), "event-driven: the energy moved by {drift} J");
    let swing = run.q.iter().map(|q| q[0]).fold(f64::INFINITY, f64::min);
    assert!(swing < -0.5, "it never swung back ({swing} rad)");
    // Moreau–Jean takes the spring at the step's end (implicitly, stable however stiff): it
    // never gains energy, and loses it at first order in h.
    let loss: Vec<f64> = [2e-4, 1e-4]
        .iter()
        .map(|&h| {
            let m = simulate(&scene, &q0, &[0.0], 3.0, 1, &MoreauSettings { h, ..Default::default() }).unwrap();
            assert!(m.energy.windows(2).all(|e| e[1] <= e[0] + 1e-12), "Moreau–Jean gained energy at h = {h}");
            m.energy[0] - m.energy.last().unwrap()
        })
        .collect();
    let ratio = loss[0] / loss[1];
    assert!(loss[1] > 0.0 && (1.8..2.2).contains(&ratio), "Moreau–Jean's losses {loss:?}: not first order");
    // With damping it only falls.
    let (damped, q0) = sprung_hinge(0.5);
    let run = simulate_events(&damped, &q0, &[0.0], &EventSettings { t_max: 3.0, ..Default::default() }).unwrap();
    assert!(run.energy.windows(2).all(|e| e[1] <= e[0] + 1e-9), "a damped hinge gained energy");
    assert!(run.energy.last().unwrap() < &(run.energy[0] - 0.5), "the damping took too little");
}

#[test]
fn moreau_jean_without_contacts_drifts_in_energy_at_first_order_in_h() {
    // A passive arm (UR5, fixed base, no contacts) falling under gravity for 1 s. The
    // scheme takes the bias h(q, v) at the step's midpoint configuration but its starting
    // velocity, so its velocity-dependent (Coriolis and centrifugal) part is first order: the
    // energy drifts (upwards here) by O(h), halving with h (measured 0.47, 0.23, 0.12 J over
    // 2 s at h = 1, 0.5, 0.25 ms), while the event driver keeps it to 1e-7 J.
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/robots/ur5_robot.urdf");
    let u = contactlab::spatial::urdf::read(&path, contactlab::spatial::urdf::Base::Fixed).unwrap();
    let scene = Scene3 { planes: vec![], ..Scene3::on_ground(u.tree, vec![], 1.0) };
    let q0 = vec![0.3, -0.5, 0.8, -0.4, 0.6, 0.2];
    let v0 = vec![0.0; 6];
    let drift: Vec<f64> = [1e-3, 5e-4, 2.5e-4]
        .iter()
        .map(|&h| {
            let run = simulate(&scene, &q0, &v0, 1.0, 10, &MoreauSettings { h, ..Default::default() }).unwrap();
            run.energy.last().unwrap() - run.energy[0]
        })
        .collect();
    for k in 0..2 {
        let ratio = drift[k] / drift[k + 1];
        assert!((1.8..2.2).contains(&ratio), "drifts {drift:?}: ratio {ratio} is not first order");
    }
    assert!(drift[0] > 0.0 && drift[0] < 1.0, "drift {} J at h = 1 ms", drift[0]);
    let run = simulate_events(&scene, &q0, &v0, &EventSettings { t_max: 1.0, ..Default::default() }).unwrap();
    let e = run.energy.iter().map(|e| (e - run.energy[0]).abs()).fold(0.0, f64::max);
    assert!(e < 1e-6, "event-driven energy moved by {e} J");
}

#[test]
fn negative_damping_injects_energy_as_the_closed_form_says() {
    // A PD law's negative damping (P3's hip) in 3-D: a hinge of inertia I = 0.1 kg m² on a
    // spring k = 1 N m/rad with damping d = −0.05 N m s/rad, no gravity, no contacts:
    // I θ'' + d θ' + k θ = 0, θ = e^{σt}(A cos ω t + B sin ω t) with σ = −d/2I = 0.25/s and
    // ω = √(k/I − σ²), growing by e^{σt}. A scene file may give it (`[[joint]] damping`, once
    // refused below 0). Event-driven the run follows the closed form to 1e-7 of the amplitude;
    // Moreau–Jean (negative damping explicit, the rest implicit) to first order in h.
    let dir = std::env::temp_dir().join(format!("contactlab-negative-damping-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("hinge.xml"),
        r#"<mujoco><option gravity="0 0 0"/><worldbody><body name="rod" pos="0 0 1">
             <joint name="hinge" type="hinge" axis="0 1 0"/>
             <inertial pos="0 0 0" mass="1" diaginertia="0.1 0.1 0.1"/>
           </body></worldbody></mujoco>"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("pumped.toml"),
        "kind = \"multibody\"\nmjcf = \"hinge.xml\"\n[[joint]]\nname = \"hinge\"\nstiffness = 1.0\n\
         damping = -0.05\nreference = 0.0\n[initial.q]\nhinge = 0.1\n",
    )
    .unwrap();
    let m = crate::common::open3(&dir.join("pumped.toml"), None).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    let scene = m.scene(None, 0.0);
    assert_eq!(scene.damping, vec![-0.05]);
    let (sigma, a) = (0.25, 0.1);
    let omega = (10.0f64 - sigma * sigma).sqrt();
    let exact = |t: f64| (sigma * t).exp() * (a * (omega * t).cos() - sigma * a / omega * (omega * t).sin());
    let run = simulate_events(&scene, &[a], &[0.0], &EventSettings { t_max: 4.0, ..Default::default() }).unwrap();
    let err = run.t.iter().zip(&run.q).map(|(&t, q)| (q[0] - exact(t)).abs()).fold(0.0, f64::max);
    assert!(err < 1e-7 * a, "event-driven: {err} rad from the closed form");
    assert!(run.energy.last().unwrap() > &(2.0 * run.energy[0]), "{:?}", (run.energy[0], run.energy.last()));
    let errors: Vec<f64> = [1e-3, 5e-4]
        .iter()
        .map(|&h| {
            let r = simulate(&scene, &[a], &[0.0], 4.0, 1, &MoreauSettings { h, ..Default::default() }).unwrap();
            r.t.iter().zip(&r.q).map(|(&t, q)| (q[0] - exact(t)).abs()).fold(0.0, f64::max)
        })
        .collect();
    let ratio = errors[0] / errors[1];
    assert!(errors[0] < 0.05 * a && (1.7..2.3).contains(&ratio), "Moreau–Jean's errors {errors:?}");
}
