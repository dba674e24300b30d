//! P3 (Or & Ames): completed executions and Zeno periodic orbits against closed forms, published
//! values and independent routes.

use contactlab::hybrid::lagrangian::Lagrangian;
use contactlab::hybrid::EventKind;
use contactlab::mechanics::closed_form::Oscillator;
use contactlab::mechanics::double_pendulum::DoublePendulumStop;
use contactlab::mechanics::ContactSystem;
use contactlab::zeno::{self, ZenoSettings};
use nalgebra::{dvector, DVector, Vector2};

fn start() -> (DVector<f64>, DVector<f64>) {
    (dvector![-0.08, 0.0], DVector::zeros(2))
}

#[test]
fn bouncing_ball_zeno_time_and_energy_loss_in_closed_form() {
    let (g, h, e, m) = (9.81, 1.0, 0.5, 2.0);
    let ball = Oscillator::bouncing_ball(m, g, e, h);
    let sim = zeno::simulate(&ball, &dvector![h], &dvector![0.0], 10.0, 2, &ZenoSettings::default()).unwrap();
    let t1 = (2.0 * h / g).sqrt();
    let tz = t1 * (1.0 + 2.0 * e / (1.0 - e));
    let z = sim.events.iter().find(|ev| ev.kind == EventKind::Zeno).expect("a Zeno point");
    assert!((z.t - tz).abs() <= 1e-10 * tz, "Zeno time {} vs {tz}", z.t);
    for ev in sim.events.iter().filter(|ev| ev.kind == EventKind::Impact) {
        let v = ev.impact_speed.unwrap();
        let loss = (1.0 - e * e) * 0.5 * m * v * v;
        assert!((ev.energy_loss.unwrap() - loss).abs() <= 1e-9 * loss);
    }
}

#[test]
fn pendulum_impacts_lose_one_minus_e_squared_of_the_normal_kinetic_energy() {
    // The normal part of the kinetic energy is ½ ḣ⁻² / (dh M⁻¹ dhᵀ) = ½ ḣ⁻² / [M⁻¹]₂₂.
    let e = 0.5;
    let p = DoublePendulumStop::paper_controlled(e);
    let (q0, v0) = start();
    let sim = zeno::simulate(&p, &q0, &v0, 12.0, 0, &ZenoSettings::default()).unwrap();
    let mut n = 0;
    for ev in sim.events.iter().filter(|ev| ev.kind == EventKind::Impact) {
        let q = dvector![ev.q[0], ev.q[1]];
        let minv22 = p.mass_matrix(&q).try_inverse().unwrap()[(1, 1)];
        let v = ev.impact_speed.unwrap();
        let normal = 0.5 * v * v / minv22;
        // The loss is a difference of kinetic energies (~0.03 here): round-off is relative to those.
        let ke = 0.5 * p.mass_matrix(&q)[(0, 0)] * 0.15f64.powi(2);
        let err = (ev.energy_loss.unwrap() - (1.0 - e * e) * normal).abs();
        assert!(err <= 1e-9 * normal + 1e-12 * ke, "{ev:?}: {err:e}");
        n += 1;
    }
    assert!(n > 10);
}

#[test]
fn multiplier_and_constraint_are_complementary_along_the_execution() {
    // Constrained: θ₂ = θ̇₂ = 0 and λ ≥ 0; free: θ₂ ≥ 0. The multiplier vanishes at lift-off.
    let p = DoublePendulumStop::paper_controlled(0.5);
    let (q0, v0) = start();
    let sim = zeno::simulate(&p, &q0, &v0, 20.0, 6, &ZenoSettings::default()).unwrap();
    let (mut constrained, mut free) = (0, 0);
    for s in &sim.samples {
        if s.constrained {
            constrained += 1;
            assert!(s.q[1].abs() < 1e-9 && s.v[1].abs() < 1e-9, "{s:?}");
            assert!(s.lambda.unwrap() >= -1e-9, "{s:?}");
        } else {
            free += 1;
            assert!(s.q[1] >= -1e-9, "{s:?}");
        }
    }
    assert!(constrained > 100 && free > 100);
    let lag = Lagrangian::new(p);
    let lift: Vec<_> = sim.events.iter().filter(|e| e.kind == EventKind::LiftOff).collect();
    assert!(lift.len() >= 2);
    for ev in lift {
        let s = sim.samples.iter().find(|s| s.t == ev.t).unwrap();
        let lam = zeno::multiplier(&lag, &dvector![s.q[0], s.q[1]], &dvector![s.v[0], s.v[1]]);
        assert!(lam.abs() < 1e-8, "λ = {lam} at lift-off");
    }
}

#[test]
fn completed_flow_is_continuous_in_the_initial_state() {
    // The state at a fixed time through Zeno points and constrained phases moves by O(δ) when the
    // initial state moves by δ.
    let p = DoublePendulumStop::paper_controlled(0.5);
    let (q0, v0) = start();
    let s = ZenoSettings::default();
    let at = |d: f64| {
        let sim = zeno::simulate(&p, &(&q0 + dvector![d, 0.0]), &v0, 14.0, 0, &s).unwrap();
        let last = sim.samples.last().unwrap();
        assert!(sim.zeno_points >= 2);
        Vector2::new(last.q[0], last.v[0])
    };
    let base = at(0.0);
    let diffs: Vec<f64> = [1e-4, 1e-6].iter().map(|&d| (at(d) - base).amax() / d).collect();
    // Bounded difference quotients that agree: a Lipschitz flow.
    assert!(diffs.iter().all(|&q| q < 100.0), "{diffs:?}");
    assert!((diffs[0] - diffs[1]).abs() <= 0.1 * diffs[1], "{diffs:?}");
}

#[test]
fn published_orbits_and_their_stability() {
    let s = ZenoSettings::default();
    let (q0, v0) = start();
    // Uncontrolled, plastic: two collisions per cycle.
    let lag = Lagrangian::new(DoublePendulumStop::paper(0.0));
    let y = zeno::settle(&lag, &q0, &v0, 3, 0.0, &s).unwrap();
    let c = zeno::cycle(&lag, &y, &s).unwrap();
    assert_eq!((c.impacts, c.zeno), (2, false));
    // It decays: no periodic orbit, and Newton must not report the rest point as one.
    let o = zeno::orbit(&lag, &y, &s);
    assert!(
        !o.converged && matches!(o.reason, Some(contactlab::hybrid::section::NewtonStop::RestPoint { .. })),
        "{o:?}"
    );
    // PD, e = 0: the simple orbit, γ = 0.9404 (P3); the iterates contract at the same rate.
    let lag0 = Lagrangian::new(DoublePendulumStop::paper_controlled(0.0));
    let y0 = zeno::settle(&lag0, &q0, &v0, 300, 1e-7, &s).unwrap();
    let o = zeno::orbit(&lag0, &y0, &s);
    assert!(o.converged && !o.zeno && o.impacts_per_cycle == 1, "{o:?}");
    assert!((o.gamma - 0.9404).abs() < 5e-5, "γ = {}", o.gamma);
    assert!((o.gamma - o.gamma_iterates.unwrap()).abs() < 1e-3, "{o:?}");
    // The return map fixes x* to the Newton tolerance and the flow direction has multiplier 0.
    assert!(o.residual < 1e-9);
    assert!(o.multipliers[1][0].hypot(o.multipliers[1][1]) < 1e-3);
    // e = 0.5: a stable Zeno periodic orbit; Newton from the simple orbit and the plain iterates
    // from the paper's initial state find the same point.
    let lag5 = Lagrangian::new(DoublePendulumStop::paper_controlled(0.5));
    let o5 = zeno::orbit(&lag5, &DVector::from_vec(o.section_point.clone()), &s);
    assert!(o5.converged && o5.zeno && o5.stable, "{o5:?}");
    let it = zeno::settle(&lag5, &q0, &v0, 400, 1e-11, &s).unwrap();
    let d = (&it - DVector::from_vec(o5.section_point.clone())).amax();
    assert!(d < 1e-7, "Newton vs iterates: {d}");
    assert!((o5.gamma - o5.gamma_iterates.unwrap()).abs() < 1e-3, "{o5:?}");
}

#[test]
fn nearly_plastic_impacts_complete_their_zeno_series() {
    // For small e the impact series after the strike is too fast for the event driver (e = 1e-4:
    // its third interval is at the event tolerance) or its hops lie below the round-off of the
    // gap (e = 1e-7). The driver completes it from the rebound's prediction of its tail. So the
    // orbit is Zeno for every e > 0, and its constrained phase is shorter than at e = 0 by the
    // series' duration, 2eV/(|g̈|(1 − e)): linear in e, with one slope from e = 1e-7 to 1e-3.
    // (Before, e = 1e-5 found no orbit and e = 1e-7 dropped the tail: its slope was 0.37.)
    let s = ZenoSettings::default();
    let (q0, v0) = start();
    let lag0 = Lagrangian::new(DoublePendulumStop::paper_controlled(0.0));
    let y0 = zeno::settle(&lag0, &q0, &v0, 300, 1e-7, &s).unwrap();
    let o0 = zeno::orbit(&lag0, &y0, &s);
    assert!(o0.converged && !o0.zeno, "{o0:?}");
    let slopes: Vec<f64> = [1e-7, 1e-6, 1e-5, 1e-4, 1e-3]
        .iter()
        .map(|&e| {
            let lag = Lagrangian::new(DoublePendulumStop::paper_controlled(e));
            let o = zeno::orbit(&lag, &DVector::from_vec(o0.section_point.clone()), &s);
            assert!(o.converged && o.zeno, "e = {e}: {o:?}");
            assert!((o.gamma - o0.gamma).abs() < 1e-6, "e = {e}: γ = {} against {}", o.gamma, o0.gamma);
            (o0.constrained_duration - o.constrained_duration) / e
        })
        .collect();
    let last = slopes[slopes.len() - 1];
    assert!(last > 1.0, "{slopes:?}");
    for k in &slopes {
        assert!((k / last - 1.0).abs() < 0.01, "{slopes:?}");
    }
    // Simulated: every cycle's series ends in a Zeno point (before, the second cycle's hop at
    // e = 1e-5 went unseen and the knee sank through its stop).
    let sim = zeno::simulate(lag0.system(), &q0, &v0, 40.0, 1, &s).unwrap();
    let lift_offs0 = sim.events.iter().filter(|e| e.kind == EventKind::LiftOff).count();
    let p = DoublePendulumStop::paper_controlled(1e-5);
    let sim = zeno::simulate(&p, &q0, &v0, 40.0, 1, &s).unwrap();
    let lift_offs = sim.events.iter().filter(|e| e.kind == EventKind::LiftOff).count();
    assert!(lift_offs >= 5 && lift_offs == lift_offs0, "{lift_offs} lift-offs against {lift_offs0} at e = 0");
    assert!(sim.zeno_points >= lift_offs, "{} Zeno points, {lift_offs} lift-offs", sim.zeno_points);
    assert!(matches!(sim.termination, contactlab::hybrid::Termination::TimeLimit), "{:?}", sim.termination);
}

#[test]
fn branch_ends_between_0_9225_and_0_925() {
    // P3: a Zeno periodic orbit at e = 0.9225 with a very short constrained phase; beyond, the
    // constrained phase vanishes (the motion never settles onto the stop again).
    let s = ZenoSettings::default();
    let (q0, v0) = start();
    let lag = Lagrangian::new(DoublePendulumStop::paper_controlled(0.9225));
    let y = zeno::settle(&lag, &q0, &v0, 600, 1e-10, &s).unwrap();
    let c = zeno::cycle(&lag, &y, &s).unwrap();
    assert!(c.zeno && c.constrained_duration > 0.0 && c.constrained_duration < 0.05 * c.period, "{c:?}");
    let beyond = Lagrangian::new(DoublePendulumStop::paper_controlled(0.925));
    assert!(zeno::settle(&beyond, &q0, &v0, 5, 1e-10, &s).is_err());
}

#[test]
fn mass_units_do_not_change_the_orbit() {
    // Masses and the PD gains scaled together by 10^±8: the same Zeno periodic orbit.
    use contactlab::mechanics::double_pendulum::HipControl;
    let s = ZenoSettings::default();
    let (q0, v0) = start();
    let base = DoublePendulumStop::paper_controlled(0.5);
    let c = base.control.unwrap();
    let mut found = Vec::new();
    for k in [1e-8, 1.0, 1e8] {
        let p =
            DoublePendulumStop { m1: k, m2: k, control: Some(HipControl { k1: c.k1 * k, c1: c.c1 * k, ..c }), ..base };
        let lag = Lagrangian::new(p);
        let y = zeno::settle(&lag, &q0, &v0, 300, 1e-7, &s).unwrap();
        let o = zeno::orbit(&lag, &y, &s);
        assert!(o.converged && o.zeno, "k = {k}: {o:?}");
        found.push((o.period, o.gamma));
    }
    for f in &found {
        assert!((f.0 - found[1].0).abs() < 1e-9 && (f.1 - found[1].1).abs() < 1e-6, "{found:?}");
    }
}

#[test]
fn the_branch_in_e_meets_the_orbit_found_at_fixed_e() {
    // `zeno continue` follows the orbit with the general pseudo-arclength engine; at e = 0.5
    // (the branch's landing point) it must be the Zeno periodic orbit Newton's method finds at
    // that e from the simple orbit's fixed point (P3 Figs. 3–4): same period and fixed point.
    let (q0, v0) = start();
    let settings = contactlab::continuation::Settings { to: 0.5, max_doublings: 0, ..Default::default() };
    let family = |e: f64| Ok(DoublePendulumStop::paper_controlled(e));
    let c = zeno::continuation_in_e(family, q0.as_slice(), v0.as_slice(), &settings, &|_| {}).unwrap();
    assert!(c.end.starts_with("reached"), "{}", c.end);
    let last = c.points.last().expect("a branch");
    assert_eq!(last.e, 0.5);
    assert!(last.zeno && last.constrained_duration > 0.0, "{last:?}");
    assert!(c.points.windows(2).all(|w| w[1].e > w[0].e), "e grows along the branch");
    let s = ZenoSettings::default();
    let lag0 = Lagrangian::new(DoublePendulumStop::paper_controlled(0.0));
    let y0 = zeno::settle(&lag0, &q0, &v0, 300, 1e-7, &s).unwrap();
    let o = zeno::orbit(&Lagrangian::new(DoublePendulumStop::paper_controlled(0.5)), &y0, &s);
    assert!(o.converged && o.zeno, "{o:?}");
    assert!((last.period - o.period).abs() <= 1e-7 * o.period, "{} vs {}", last.period, o.period);
    for (a, b) in last.section_point.iter().zip(&o.section_point) {
        assert!((a - b).abs() <= 1e-7, "{:?} vs {:?}", last.section_point, o.section_point);
    }
    assert!((last.gamma - o.gamma).abs() <= 1e-4, "γ {} vs {}", last.gamma, o.gamma);
}
