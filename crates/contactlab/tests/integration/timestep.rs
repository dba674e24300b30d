//! Moreau–Jean time-stepping against the event-driven core and closed forms.

use contactlab::hybrid::lagrangian::{join, Lagrangian};
use contactlab::hybrid::{DriverSettings, EventDriver};
use contactlab::lcp::warm::WarmStart;
use contactlab::mechanics::closed_form::{FrictionOscillator, Oscillator};
use contactlab::mechanics::planar_body::{BodyPoint, PlanarBody};
use contactlab::mechanics::ContactLaw;
use contactlab::timestep::{run, run_warm};
use nalgebra::{dvector, DVector, Vector2};

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
    let ev = EventDriver::new(s).run(&lag, 0.0, join(&dvector![x0, 0.0], &DVector::zeros(2)), &[], &mut ());
    let x_event = ev.state[(0, 0)];
    assert!((x_event - o.position(x0, t_end)).abs() < 1e-8 * d, "{x_event} vs {}", o.position(x0, t_end));
    let mut errs = Vec::new();
    for m in [250, 500, 1000, 2000] {
        let h = o.half_period() / (m as f64 + 0.5);
        let n = (t_end / h) as usize;
        let ts = run(&o, 0.0, &dvector![x0, 0.0], &DVector::zeros(2), h, n, 1).unwrap();
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
    let ts = run(&ball, 0.0, &dvector![hgt], &dvector![0.0], h, (1.1 * tz / h) as usize, 1).unwrap();
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

/// A box (m = 2 kg, ρ = 0.3 m) standing on five points of its base (half-width 0.4 m, 0.25 m below
/// the centre of mass) on a rough floor (μ = 0.4), pushed sideways by a constant force.
fn box_on_five_points(push: f64) -> PlanarBody {
    let law = ContactLaw { mu: 0.4, restitution: 0.0 };
    let points = (0..5).map(|i| BodyPoint { r: Vector2::new(-0.4 + 0.2 * i as f64, -0.25), phi: 0.0, law }).collect();
    PlanarBody { mass: 2.0, rho: 0.3, points, force: Vector2::new(push, -2.0 * 9.81), torque: 0.0 }
}

#[test]
fn warm_started_time_stepping_takes_five_times_fewer_pivots_and_the_same_path() {
    // 10⁴ steps, each with a contact LCP of n = 20 (five contacts, all closed): launched at
    // 1 m/s against a push of 3 N (μ m g = 7.85 N), the box slides for 0.21 s, then sticks.
    let body = box_on_five_points(3.0);
    let (q0, v0) = (DVector::zeros(3), dvector![1.0, 0.0, 0.0]);
    let (h, steps) = (1e-4, 10_000);
    let (mut warm, mut cold) = (WarmStart::new(), WarmStart::cold());
    let tw = run_warm(&body, 0.0, &q0, &v0, h, steps, 100, &mut warm).unwrap();
    let tc = run_warm(&body, 0.0, &q0, &v0, h, steps, 100, &mut cold).unwrap();
    assert_eq!((warm.stats.solves, cold.stats.solves), (steps, steps));
    assert!(cold.stats.pivots >= 5 * warm.stats.pivots.max(1), "warm {:?}, cold {:?}", warm.stats, cold.stats);
    // The same motion: it slid, stopped where the closed form says (v0² / 2a with
    // a = (μ m g − push) / m), and the two runs agree to round-off.
    let a = (0.4 * 2.0 * 9.81 - 3.0) / 2.0;
    let x_end = tw.q.last().unwrap()[0];
    assert!((x_end - 1.0 / (2.0 * a)).abs() < 1e-3, "{x_end} vs {}", 1.0 / (2.0 * a));
    for (qw, qc) in tw.q.iter().zip(&tc.q) {
        let d = qw.iter().zip(qc).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max);
        assert!(d <= 1e-12, "warm and cold runs differ by {d:e}");
    }
}
