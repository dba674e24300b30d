//! A 3-D joint's PD law tracking a periodic reference `r(t) = r₀ + a sin(ω t + ψ)` (a scene's
//! `[[joint]]` `amplitude`, `frequency`, `phase`, as a planar `[[spring]]` has them): the
//! closed-form response by both methods, and a stop left when the reference pulls hard enough.

use contactlab::hybrid::{EventKind, Termination};
use contactlab::spatial::events::{simulate_events, EventSettings};
use contactlab::spatial::timestep::{simulate, MoreauSettings, Scene3};

/// The scene of `toml` (a `[[joint]]` and more) over the MJCF text `xml`, read from files.
fn scene(tag: &str, xml: &str, toml: &str) -> Scene3 {
    let dir = std::env::temp_dir().join(format!("contactlab-reference-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("m.xml"), xml).unwrap();
    std::fs::write(dir.join("s.toml"), format!("kind = \"multibody\"\nmjcf = \"m.xml\"\n{toml}")).unwrap();
    let m = crate::common::open3(&dir.join("s.toml"), None).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    m.scene(None, 0.0)
}

#[test]
fn a_slider_tracking_a_periodic_reference_has_its_closed_form_response() {
    // A slider along x of mass m, no gravity, on the PD law τ = −k (q − r) − c (q̇ − ṙ):
    // m q̈ + c q̇ + k q = k r₀ + a Im[(k + icω) e^{i(ωt+ψ)}], whose periodic response is
    // q(t) = r₀ + Im[H a e^{i(ωt+ψ)}], H = (k + icω)/(k − mω² + icω) (the planar engine's test
    // of the same law). Started on it, the event driver follows it to 1e-8 of the amplitude;
    // Moreau–Jean (the spring implicit at the step's end, the reference at its midpoint)
    // converges to it at first order in h.
    let (m, k, c, r0, a, w, psi): (f64, f64, f64, f64, f64, f64, f64) = (0.7, 30.0, 1.5, 0.1, 0.2, 4.0, 0.3);
    let xml = format!(
        r#"<mujoco><option gravity="0 0 0"/><worldbody><body name="block">
             <joint name="slider" type="slide" axis="1 0 0"/>
             <inertial pos="0 0 0" mass="{m}" diaginertia="0.01 0.01 0.01"/>
           </body></worldbody></mujoco>"#
    );
    let sc = scene(
        "slider",
        &xml,
        &format!(
            "[[joint]]\nname = \"slider\"\nstiffness = {k}\ndamping = {c}\nreference = {r0}\n\
             amplitude = {a}\nfrequency = {w}\nphase_deg = {}\n",
            psi.to_degrees()
        ),
    );
    assert!(!sc.autonomous());
    assert!((sc.springs[0].reference.phase - psi).abs() < 1e-15, "{:?}", sc.springs);
    let (nr, ni, dr, di) = (k, c * w, k - m * w * w, c * w);
    let den = dr * dr + di * di;
    let (hr, hi) = ((nr * dr + ni * di) / den, (ni * dr - nr * di) / den);
    let exact = |t: f64| {
        let (s, co) = (w * t + psi).sin_cos();
        (r0 + a * (hr * s + hi * co), w * a * (hr * co - hi * s))
    };
    let (x0, v0) = exact(0.0);
    let run = simulate_events(&sc, &[x0], &[v0], &EventSettings { t_max: 3.0, ..Default::default() }).unwrap();
    assert_eq!(run.termination, Termination::TimeLimit);
    assert!(run.t.len() > 50);
    for (i, &t) in run.t.iter().enumerate() {
        let (x, v) = exact(t);
        let (ex, ev) = ((run.q[i][0] - x).abs(), (run.v[i][0] - v).abs());
        assert!(ex <= 1e-8 * a && ev <= 1e-8 * a * w, "event-driven at t = {t}: errors {ex} m, {ev} m/s");
    }
    // The energy reported holds the spring's potential about the moving reference.
    let (x, _) = exact(run.t[5]);
    let (rt, _) = sc.springs[0].reference.at(run.t[5]);
    let want = 0.5 * m * run.v[5][0].powi(2) + 0.5 * k * (x - rt).powi(2);
    assert!((run.energy[5] - want).abs() <= 1e-7 * want, "energy {} against {want}", run.energy[5]);
    let errors: Vec<f64> = [1e-3, 5e-4]
        .iter()
        .map(|&h| {
            let r = simulate(&sc, &[x0], &[v0], 3.0, 1, &MoreauSettings { h, ..Default::default() }).unwrap();
            r.t.iter().zip(&r.q).map(|(&t, q)| (q[0] - exact(t).0).abs()).fold(0.0, f64::max)
        })
        .collect();
    let ratio = errors[0] / errors[1];
    assert!(errors[0] < 0.02 * a && (1.7..2.3).contains(&ratio), "Moreau–Jean's errors {errors:?}");
}

#[test]
fn a_moving_reference_pulls_a_joint_off_its_stop_when_the_closed_form_says() {
    // A hinge about y carrying a point mass m at x = l, pressed by gravity onto its upper stop
    // (range [−1, 0] rad: the weight turns it to +y). Its PD law tracks r(t) = −A sin(ω t) with
    // stiffness k and damping d; at rest on the stop the law's torque is k r + d ṙ, and the
    // stop's reaction m g l − A (k sin ωt + d ω cos ωt) reaches zero at
    //   ω t* + φ = asin(m g l / (A √(k² + d²ω²))),  φ = atan2(d ω, k).
    // The stop lets go there (event-driven, to 1e-7 s; Moreau–Jean within two steps). Without
    // the moving reference the run ends at rest on the stop at once: a joint forced in time is
    // never "at rest". Units of length from 1e-3 m to 1e3 m give the same t*.
    for s in [1e-3, 1.0, 1e3] {
        // (A unit of length s m: lengths and gravity times s, torques per radian times s².)
        let (m, l, g, k, d, amp, w): (f64, f64, f64, f64, f64, f64, f64) =
            (1.0, 0.5 * s, 9.81 * s, 10.0 * s * s, 2.0 * s * s, 0.5, 1.0);
        let xml = format!(
            r#"<mujoco><option gravity="0 0 {}"/><worldbody><body name="arm">
                 <joint name="hinge" type="hinge" axis="0 1 0" range="-1 0" limited="true"/>
                 <inertial pos="{l} 0 0" mass="{m}" diaginertia="{i} {i} {i}"/>
               </body></worldbody></mujoco>"#,
            -g,
            i = 1e-3 * s * s
        );
        let joint = |a: f64| {
            format!("[[joint]]\nname = \"hinge\"\nstiffness = {k}\ndamping = {d}\nreference = 0.0\namplitude = {a}\nfrequency = {w}\n")
        };
        let phi = (d * w).atan2(k);
        let t_star = ((m * g * l / (amp * (k * k + d * d * w * w).sqrt())).asin() - phi) / w;
        assert!(t_star > 0.5 && t_star < 1.5, "{t_star}");

        let held = scene("held", &xml, &joint(0.0));
        let run = simulate_events(&held, &[0.0], &[0.0], &EventSettings { t_max: 3.0, ..Default::default() }).unwrap();
        assert_eq!(run.termination, Termination::Rest, "s = {s}");

        let pulled = scene("pulled", &xml, &joint(-amp));
        let run =
            simulate_events(&pulled, &[0.0], &[0.0], &EventSettings { t_max: 1.5, ..Default::default() }).unwrap();
        assert_eq!(run.termination, Termination::TimeLimit, "s = {s}");
        let off = run.events.iter().find(|e| e.kind == EventKind::LiftOff).expect("the stop never let go");
        assert_eq!(off.contact.as_deref(), Some("hinge/upper"));
        assert!((off.t - t_star).abs() < 1e-7, "s = {s}: lift-off at {} s, closed form {t_star} s", off.t);
        assert!(run.q.last().unwrap()[0] < -1e-3, "s = {s}: it did not leave the stop");

        let h = 1e-3;
        let r = simulate(&pulled, &[0.0], &[0.0], 1.5, 1, &MoreauSettings { h, ..Default::default() }).unwrap();
        let left = r.t.iter().zip(&r.q).find(|(_, q)| q[0] < -1e-9).map(|(&t, _)| t).expect("Moreau–Jean: never left");
        assert!(
            (left - t_star).abs() <= 2.0 * h,
            "s = {s}: Moreau–Jean left the stop at {left} s, closed form {t_star} s"
        );
    }
}

#[test]
fn a_gait_or_a_slip_refuses_a_moving_reference() {
    // A step map (and a slip followed from a state) is a map of the state only when the forces
    // do not change with time.
    let dir = std::env::temp_dir().join(format!("contactlab-reference-gait-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("m.xml"),
        r#"<mujoco><worldbody><geom type="plane" size="5 5 0.1"/><body name="leg" pos="0 0 1">
             <joint name="root" type="free"/><geom type="sphere" size="0.1" mass="1"/>
             <body name="shin"><joint name="knee" type="hinge" axis="0 1 0"/>
               <geom type="capsule" fromto="0 0 0 0 0 -0.5" size="0.05" mass="1"/></body>
           </body></worldbody></mujoco>"#,
    )
    .unwrap();
    let joint = "[[joint]]\nname = \"knee\"\nstiffness = 5.0\namplitude = 0.1\nfrequency = 2.0\n";
    std::fs::write(dir.join("gait.toml"), format!("kind = \"multibody\"\nmjcf = \"m.xml\"\n{joint}[gait]\n")).unwrap();
    std::fs::write(dir.join("slip.toml"), format!("kind = \"multibody\"\nmjcf = \"m.xml\"\n{joint}")).unwrap();
    let gait = crate::common::open3(&dir.join("gait.toml"), None);
    let slip = crate::common::open3(&dir.join("slip.toml"), None).and_then(|m| crate::common::slip3(&m, None, "leg"));
    std::fs::remove_dir_all(&dir).ok();
    let e = gait.unwrap_err().to_string();
    assert!(e.contains("gait.toml") && e.contains("gait") && e.contains("\"knee\""), "{e}");
    let e = slip.unwrap_err().to_string();
    assert!(e.contains("moving reference") && e.contains("\"knee\""), "{e}");
}
