//! Moreau–Jean time-stepping against the event-driven core and closed forms.

use contactlab::hybrid::lagrangian::{join, Lagrangian};
use contactlab::hybrid::{DriverSettings, EventDriver};
use contactlab::mechanics::closed_form::{FrictionOscillator, Oscillator};
use contactlab::timestep::run;
use nalgebra::{Vector1, Vector2};

#[test]
fn time_stepping_converges_to_the_event_driven_motion() {
    // A block on a rough floor held by a spring: the event-driven core (stick and slip modes)
    // agrees with the closed form, and time-stepping approaches both at first order.
    let o = FrictionOscillator { mass: 1.5, stiffness: 20.0, gravity: 9.81, mu: 0.25 };
    let d = o.band();
    let x0 = 4.4 * d;
    // Through a slip reversal (at the half period). The error a step straddling the reversal
    // leaves depends on where the reversal falls in the step, so the steps keep it at the middle
    // of a step (h = T/2 / (m + 1/2)); then the largest error halves with h: first order.
    let t_end = 1.7 * o.half_period();
    let lag = Lagrangian::new(o);
    let s = DriverSettings { t_max: t_end, ..Default::default() };
    let ev = EventDriver::new(s).run(&lag, 0.0, join(&Vector2::new(x0, 0.0), &Vector2::zeros()), &[], &mut ());
    let x_event = ev.state[(0, 0)];
    assert!((x_event - o.position(x0, t_end)).abs() < 1e-8 * d, "{x_event} vs {}", o.position(x0, t_end));
    let mut errs = Vec::new();
    for m in [250, 500, 1000, 2000] {
        let h = o.half_period() / (m as f64 + 0.5);
        let n = (t_end / h) as usize;
        let ts = run(&o, 0.0, &Vector2::new(x0, 0.0), &Vector2::zeros(), h, n, 1).unwrap();
        let max = ts.t.iter().zip(&ts.q).map(|(t, q)| (q[0] - o.position(x0, *t)).abs()).fold(0.0, f64::max);
        errs.push(max);
    }
    for w in errs.windows(2) {
        let order = (w[0] / w[1]).log2();
        assert!((0.8..1.2).contains(&order), "not first order: {errs:?}");
    }
}

#[test]
fn bouncing_ball_comes_to_rest_at_the_zeno_time() {
    // Time-stepping needs no Zeno completion: the ball is at rest shortly after t∞.
    let (g, hgt, e) = (9.81, 1.0, 0.5);
    let ball = Oscillator::bouncing_ball(1.0, g, e, hgt);
    let tz = (2.0 * hgt / g).sqrt() * (1.0 + 2.0 * e / (1.0 - e));
    let h = 1e-4;
    let ts = run(&ball, 0.0, &Vector1::new(hgt), &Vector1::new(0.0), h, (1.1 * tz / h) as usize, 1).unwrap();
    let last = ts.q.len() - 1;
    assert!(ts.q[last][0].abs() < 1e-6 && ts.v[last][0].abs() < 1e-9, "{:?} {:?}", ts.q[last], ts.v[last]);
    // At rest from about t∞ on: the last time the ball moved is within a few steps of... O(h)
    // of the Zeno time (its bounces shrink below a step).
    let moving = ts.v.iter().rposition(|v| v[0].abs() > 1e-9).unwrap();
    let t_rest = ts.t[moving + 1];
    assert!((t_rest - tz).abs() < 0.02 * tz, "rest at {t_rest} vs t∞ = {tz}");
}

#[test]
fn p1_configurations_a_and_d_time_stepping_converges_to_the_event_driven_motion() {
    // Through impacts, chatter, Zeno points and rest, at first order: the error at one time jumps
    // with where events fall in the step grid, so the order is fitted over a factor 256 in h.
    for (config, windows) in [("A", 6.0), ("D", 12.0)] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(format!("../../examples/two-contact/config-{config}.toml"));
        let p = contactlab::twocontact::model::read(&path).unwrap();
        let steps: Vec<usize> = (0..9).map(|k| 100 << k).collect();
        let (h, e) = contactlab::twocontact::nonlinear::time_stepping_errors(&p, 1e-4, windows, &steps).unwrap();
        let order = contactlab::timestep::observed_order(&h, &e);
        assert!(order > 0.85, "config {config}: order {order}, errors {e:?}");
        assert!(e[e.len() - 1] < 1e-3, "config {config}: {e:?}");
    }
}
