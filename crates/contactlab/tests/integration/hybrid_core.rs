//! The hybrid dynamics core against closed forms and independent computations.

use contactlab::hybrid::driver::{Direction, EventRecord, IntegrationCause, PoincareSection};
use contactlab::hybrid::lagrangian::{join, split, ContactMode, Lagrangian, Modes};
use contactlab::hybrid::section::{Derivatives, FirstCrossing, JacobianRoute, ReturnMap, SectionChart};
use contactlab::hybrid::{
    DriverSettings, EventDriver, EventKind, EventLog, FailureKind, Hybrid, Termination, Tolerances, ZenoRule,
};
use contactlab::mechanics::closed_form::{ImpactLimitCycle, Oscillator, Particle, Pendulum, StopSide};
use contactlab::mechanics::planar_body::{BodyPoint, PlanarBody};
use contactlab::mechanics::{ContactLaw, FixedSystem};
use nalgebra::{dvector, DMatrix, DVector, SMatrix, SVector, Vector1, Vector2};

type Log = EventLog<DMatrix<f64>, Modes>;

fn impacts(log: &Log) -> Vec<&EventRecord<DMatrix<f64>, Modes>> {
    log.events.iter().filter(|e| e.info.kind == EventKind::Impact).collect()
}

#[test]
fn pendulum_period_matches_elliptic_integral() {
    let p = Pendulum { length: 0.8, gravity: 9.81, mass: 1.3 };
    let sys = Lagrangian::new(p);
    for theta0 in [0.1, 1.0, 2.5] {
        let x0 = join(&dvector![theta0], &dvector![0.0]);
        // θ̇ crosses zero downwards once per period (at θ = θ₀).
        let sec = [PoincareSection::Surface {
            sigma: Box::new(|_t, x: &DMatrix<f64>| x[(0, 1)]),
            direction: Direction::Decreasing,
        }];
        let mut first = FirstCrossing::default();
        let run = EventDriver::default().run(&sys, 0.0, x0.clone(), &sec, &mut first);
        assert_eq!(run.termination, Termination::Stopped);
        let (t, after) = first.hit.unwrap();
        let exact = p.period(theta0);
        assert!(((t - exact) / exact).abs() <= 1e-9, "θ₀ = {theta0}: {t} vs {exact}: {:e}", (t - exact) / exact);
        // Energy is conserved within the tolerance over the period.
        let e0 = sys.energy(0.0, &x0).unwrap();
        let e1 = sys.energy(t, &after).unwrap();
        assert!(((e1 - e0) / e0).abs() < 1e-8, "energy drift {}", (e1 - e0) / e0);
    }
}

#[test]
fn bouncing_ball_impacts_energy_and_zeno_time() {
    let (g, h, e) = (9.81, 1.2, 0.6);
    let sys = Lagrangian::new(Oscillator::bouncing_ball(0.5, g, e, h));
    let x0 = join(&dvector![h], &dvector![0.0]);
    let mut log = Log::default();
    let run = EventDriver::default().run(&sys, 0.0, x0.clone(), &[], &mut log);
    assert_eq!(run.termination, Termination::Rest, "{:?}", run.termination);
    let t1 = (2.0 * h / g).sqrt();
    let v1 = g * t1;
    let imp = impacts(&log);
    assert!(imp.len() >= 4);
    let mut t_exact = t1;
    let mut v = v1;
    for ev in &imp {
        assert!((ev.t - t_exact).abs() <= 1e-12 * t1, "impact at {} vs {t_exact}", ev.t);
        assert!((ev.info.impact_speed.unwrap() - v).abs() <= 1e-9 * v1);
        // The normal part of the kinetic energy drops by (1 − e²).
        let ke = 0.5 * 0.5 * v * v;
        assert!((ev.info.energy_loss.unwrap() - (1.0 - e * e) * ke).abs() <= 1e-9 * ke);
        t_exact += 2.0 * e * v / g;
        v *= e;
    }
    // The Zeno point is extrapolated from the series, not reached by a threshold.
    let zeno: Vec<_> = log.events.iter().filter(|e| e.info.kind == EventKind::Zeno).collect();
    assert_eq!(zeno.len(), 1);
    let tz = t1 + 2.0 * v1 * e / (g * (1.0 - e));
    assert!((zeno[0].t - tz).abs() <= 1e-12 * tz, "Zeno at {} vs {tz}", zeno[0].t);
    assert!(imp.len() < 10, "{} impacts before the Zeno point", imp.len());
    let (q, v) = split(&zeno[0].after);
    assert_eq!((q[0], v[0]), (0.0, 0.0));
    assert_eq!(run.mode.unwrap().get(0), ContactMode::Slip(0));

    // P3's truncation reaches the same point with many more impacts.
    let trunc = DriverSettings { zeno: ZenoRule::Truncate { speed: 1e-10 }, ..Default::default() };
    let mut log2 = Log::default();
    let run2 = EventDriver::new(trunc).run(&sys, 0.0, x0, &[], &mut log2);
    assert_eq!(run2.termination, Termination::Rest);
    let z2 = log2.events.iter().find(|e| e.info.kind == EventKind::Zeno).unwrap();
    assert!((z2.t - tz).abs() <= 1e-8 * tz, "truncated Zeno at {} vs {tz}", z2.t);
    assert!(impacts(&log2).len() > 40);
}

#[test]
fn nearly_plastic_bounces_end_at_the_closed_form_zeno_time() {
    // e = 1e-4 .. 1e-8: the series' intervals fall below the event tolerance within three
    // impacts, and its hops below the round-off of the gap. The driver completes it after the tail
    // the rebound predicts, 2u⁺/(g(1 − e)): the Zeno time is the closed form's, and the run comes
    // to rest. (Before, e = 1e-4 went on with impacts at zero speed until the event limit.)
    let (g, h): (f64, f64) = (9.81, 1.2);
    let t1 = (2.0 * h / g).sqrt();
    let v1 = g * t1;
    for e in [1e-4, 1e-6, 1e-8] {
        let sys = Lagrangian::new(Oscillator::bouncing_ball(0.5, g, e, h));
        let x0 = join(&dvector![h], &dvector![0.0]);
        let mut log = Log::default();
        let run = EventDriver::default().run(&sys, 0.0, x0, &[], &mut log);
        assert_eq!(run.termination, Termination::Rest, "e = {e}: {:?}", run.termination);
        assert!(impacts(&log).len() <= 3, "e = {e}: {} impacts", impacts(&log).len());
        let zeno: Vec<_> = log.events.iter().filter(|ev| ev.info.kind == EventKind::Zeno).collect();
        assert_eq!(zeno.len(), 1, "e = {e}");
        let tz = t1 + 2.0 * v1 * e / (g * (1.0 - e));
        // At e = 1e-6 the second hop (apex 1e-12 of the drop) is still simulated, so its impact
        // is timed to the integration tolerance (rtol 1e-10); the others end on the prediction.
        let tol = if e == 1e-6 { 1e-10 } else { 1e-12 };
        assert!((zeno[0].t - tz).abs() <= tol * tz, "e = {e}: Zeno at {} vs {tz}", zeno[0].t);
        // On the floor at rest (the tail's drift along the flow is projected away, to round-off).
        let (q, v) = split(&zeno[0].after);
        assert!(q[0].abs() <= 1e-12 * h && v[0] == 0.0, "e = {e}: {q:?}, {v:?}");
    }
    // Below the contact tolerance (a rebound under 1e-9 of the approach speed) the impact is
    // plastic: one impact, at rest at once.
    let sys = Lagrangian::new(Oscillator::bouncing_ball(0.5, g, 1e-12, h));
    let mut log = Log::default();
    let run = EventDriver::default().run(&sys, 0.0, join(&dvector![h], &dvector![0.0]), &[], &mut log);
    assert_eq!(run.termination, Termination::Rest);
    assert_eq!(impacts(&log).len(), 1);
    assert!((run.t - t1).abs() <= 1e-12 * t1, "{} vs {t1}", run.t);
}

#[test]
fn ballistic_landing_time() {
    let (g, h, u, w) = (9.81, 0.7, 1.5, 2.0);
    let mut p = Particle::block_on_incline(2.0, g, 0.0, 0.5);
    p.walls[0].law.restitution = 0.5;
    let sys = Lagrangian::new(p);
    let x0 = join(&dvector![0.0, h], &dvector![u, w]);
    let s = DriverSettings { max_events: 1, ..Default::default() };
    let (run, log) = EventDriver::new(s).run_logged(&sys, 0.0, x0, &[]);
    assert_eq!(run.termination, Termination::EventLimit);
    let t_land = (w + (w * w + 2.0 * g * h).sqrt()) / g;
    let ev = &log[0];
    assert_eq!(ev.info.kind, EventKind::Impact);
    assert!((ev.t - t_land).abs() <= 1e-12 * t_land, "{} vs {t_land}", ev.t);
    let (q, _) = split(&ev.before);
    assert!((q[0] - u * t_land).abs() <= 1e-10);
}

#[test]
fn sliding_block_stops_in_closed_form_time() {
    let (g, alpha, mu, u) = (9.81, 0.2, 0.5, 1.7);
    let sys = Lagrangian::new(Particle::block_on_incline(3.0, g, alpha, mu));
    let x0 = join(&dvector![0.0, 0.0], &dvector![u, 0.0]);
    let mut log = Log::default();
    let run = EventDriver::default().run(&sys, 0.0, x0, &[], &mut log);
    assert_eq!(run.termination, Termination::Rest);
    let a = g * (mu * alpha.cos() - alpha.sin());
    let ts = u / a;
    let ev = &log.events[0];
    assert_eq!(ev.info.kind, EventKind::SlipStop);
    assert_eq!(ev.mode_before.get(0), ContactMode::Slip(1));
    assert_eq!(ev.mode_after.get(0), ContactMode::Stick);
    assert!((ev.t - ts).abs() <= 1e-12 * ts, "{} vs {ts}", ev.t);
    let (q, v) = split(&ev.after);
    assert!((q[0] - u * u / (2.0 * a)).abs() <= 1e-10);
    assert_eq!(v[0], 0.0);
    // Uphill on a steeper slope than the friction angle: slip stops, then reverses.
    let steep = Lagrangian::new(Particle::block_on_incline(3.0, g, 0.6, 0.5));
    let x0 = join(&dvector![0.0, 0.0], &dvector![-1.0, 0.0]);
    let mut log = Log::default();
    let run = EventDriver::new(DriverSettings { t_max: 1.0, ..Default::default() }).run(&steep, 0.0, x0, &[], &mut log);
    assert_eq!(run.termination, Termination::TimeLimit);
    assert_eq!(log.events[0].mode_after.get(0), ContactMode::Slip(1));
}

/// `Lagrangian` remembers its last constrained mode solution: results must not depend on the
/// order of the calls (bit for bit), nor on what a previous run left behind.
#[test]
fn mode_solutions_do_not_depend_on_call_order() {
    let block = || Lagrangian::new(Particle::block_on_incline(3.0, 9.81, 0.2, 0.5));
    let bits = |s: &Option<contactlab::hybrid::lagrangian::ModeSolution>| {
        let s = s.as_ref().expect("the slipping block has a mode solution");
        let mut b: Vec<u64> = s.acc.iter().map(|x| x.to_bits()).collect();
        b.extend(s.lambda_n.iter().chain(s.lambda_t.iter()).map(|x| x.to_bits()));
        b
    };
    let mut slip = Modes::free(1);
    slip.set(0, ContactMode::Slip(1));
    let mut stick = Modes::free(1);
    stick.set(0, ContactMode::Stick);
    let (qa, va) = (dvector![0.1, 0.0], dvector![1.3, 0.0]);
    let (qb, vb) = (dvector![0.4, 0.0], dvector![0.2, 0.0]);
    let fresh_a = bits(&block().solve_mode(&slip, 0.0, &qa, &va));
    let fresh_b = bits(&block().solve_mode(&stick, 0.5, &qb, &vb));
    let sys = block();
    for _ in 0..2 {
        assert_eq!(bits(&sys.solve_mode(&slip, 0.0, &qa, &va)), fresh_a);
        assert_eq!(bits(&sys.solve_mode(&stick, 0.5, &qb, &vb)), fresh_b);
    }
    // Same state, another mode or time: not the remembered solution.
    assert_ne!(bits(&sys.solve_mode(&stick, 0.0, &qa, &va)), fresh_a);
    // A whole run on a reused system equals the run on a fresh one.
    let x0 = join(&dvector![0.0, 0.0], &dvector![1.7, 0.0]);
    let run = |s: &Lagrangian<Particle>| {
        let mut log = Log::default();
        let r = EventDriver::default().run(s, 0.0, x0.clone(), &[], &mut log);
        (r.t.to_bits(), r.state.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), log.events.len())
    };
    assert_eq!(run(&sys), run(&block()));
}

struct PostImpact {
    d: f64,
}
impl SectionChart<DMatrix<f64>> for PostImpact {
    fn dim(&self) -> usize {
        1
    }
    fn lift(&self, y: &DVector<f64>) -> DMatrix<f64> {
        join(&dvector![self.d], &dvector![y[0]])
    }
    fn chart(&self, x: &DMatrix<f64>) -> DVector<f64> {
        DVector::from_element(1, x[(0, 1)])
    }
    fn lift_jacobian(&self, _y: &DVector<f64>) -> Option<DMatrix<f64>> {
        Some(DMatrix::from_column_slice(2, 1, &[0.0, 1.0]))
    }
    fn chart_jacobian(&self, _x: &DMatrix<f64>) -> Option<DMatrix<f64>> {
        Some(DMatrix::from_row_slice(1, 2, &[0.0, 1.0]))
    }
}

#[test]
fn impact_oscillator_fixed_point_and_multiplier() {
    // The self-excited impact oscillator ẍ + c ẋ + k x = 0 (c < 0) with a wall at x = d: the
    // post-impact velocity map in closed form (linear flow, scalar root for the return time).
    let exact = ImpactLimitCycle { mass: 1.0, damping: -0.1, stiffness: 1.0, restitution: 0.8, wall: 0.5 };
    let (u_star, mult, _) = exact.limit_cycle().unwrap();
    let osc = Oscillator {
        mass: 1.0,
        damping: exact.damping,
        stiffness: exact.stiffness,
        force: 0.0,
        position: exact.wall,
        side: StopSide::Below,
        restitution: exact.restitution,
        length: 1.0,
        time: 1.0,
    };
    let sys = Lagrangian::new(osc);
    let mut found = Vec::new();
    for rtol in [1e-9, 1e-11] {
        for derivatives in [Derivatives::Exact, Derivatives::Differences] {
            let settings =
                DriverSettings { tol: Tolerances { rtol, atol: rtol }, max_events: 10, ..Default::default() };
            let map = ReturnMap {
                system: &sys,
                section: PoincareSection::AfterEvent { kind: EventKind::Impact, contact: Some(0) },
                chart: PostImpact { d: exact.wall },
                driver: EventDriver::new(settings),
                derivatives,
            };
            // One application against the closed form.
            let p = map.apply(&DVector::from_element(1, -1.3)).unwrap();
            let closed = exact.map(-1.3).unwrap().0;
            assert!((p.y[0] - closed).abs() < 1e-7, "{} vs {closed}", p.y[0]);
            let fp = map.fixed_point(&DVector::from_element(1, -1.0), 1e-10, 20);
            assert!(fp.converged, "{fp:?}");
            assert!((fp.y[0] - u_star).abs() < 1e-7, "u* = {} vs {u_star}", fp.y[0]);
            // The closed-form derivative of the map: to the integration's accuracy with the
            // variational equations and the saltation of the impact, to 1e-5 by differences.
            let tol = match derivatives {
                Derivatives::Exact => {
                    assert_eq!(fp.derivatives, JacobianRoute::Variational);
                    10.0 * rtol
                }
                Derivatives::Differences => 1e-5,
            };
            assert!(
                (fp.multipliers[0][0] - mult).abs() < tol,
                "{derivatives:?}: multiplier {} vs {mult}",
                fp.multipliers[0][0]
            );
            found.push(fp.multipliers[0][0]);
        }
    }
    // Multipliers do not move with the tolerance.
    assert!((found[0] - found[2]).abs() < 1e-6, "{found:?}");
}

#[test]
fn bouncing_ball_map_has_derivative_e() {
    // From the floor with upward speed v the ball returns with −v and leaves with e v: the
    // post-impact map is v ↦ e v, DP = e, whatever v (the impact's saltation and the flight's
    // variational equation cancel the time shift exactly).
    let e = 0.7;
    let sys = Lagrangian::new(Oscillator::bouncing_ball(2.0, 9.81, e, 1.0));
    let settings = DriverSettings { tol: Tolerances { rtol: 1e-12, atol: 1e-12 }, max_events: 3, ..Default::default() };
    let map = ReturnMap {
        system: &sys,
        section: PoincareSection::AfterEvent { kind: EventKind::Impact, contact: Some(0) },
        chart: PostImpact { d: 0.0 },
        driver: EventDriver::new(settings),
        derivatives: Derivatives::Exact,
    };
    for v in [0.5, 3.0, 11.0] {
        let (j, route, tau) = map.jacobian_with_route(&DVector::from_element(1, v)).unwrap();
        assert_eq!(route, JacobianRoute::Variational);
        assert!((j[(0, 0)] - e).abs() < 1e-11, "v {v}: DP = {} vs e = {e}", j[(0, 0)]);
        // The return time 2v/g: its derivative 2/g.
        let dt = tau.unwrap()[0];
        assert!((dt - 2.0 / 9.81).abs() < 1e-11, "v {v}: dT/dv = {dt}");
    }
}

#[test]
fn elastic_frictionless_bounces_conserve_energy() {
    // A particle in a frictionless corner (floor and wall), e = 1: energy is conserved through
    // impacts and free flight.
    let mut p = Particle::block_on_incline(1.0, 9.81, 0.0, 0.0);
    p.walls[0].law.restitution = 1.0;
    p.walls.push(contactlab::mechanics::closed_form::HalfPlane {
        normal: Vector2::new(-1.0, 0.0),
        offset: -1.0,
        law: ContactLaw { mu: 0.0, restitution: 1.0 },
    });
    let sys = Lagrangian::new(p);
    let x0 = join(&dvector![0.2, 0.5], &dvector![2.0, 0.3]);
    let mut log = Log::default();
    let s = DriverSettings { max_events: 30, ..Default::default() };
    let run = EventDriver::new(s).run(&sys, 0.0, x0.clone(), &[], &mut log);
    assert_eq!(run.termination, Termination::EventLimit);
    let e0 = sys.energy(0.0, &x0).unwrap();
    for ev in &log.events {
        assert!(ev.info.energy_loss.unwrap().abs() < 1e-9 * e0);
        let e = sys.energy(ev.t, &ev.after).unwrap();
        assert!(((e - e0) / e0).abs() < 1e-8, "drift {}", (e - e0) / e0);
    }
    let walls: std::collections::HashSet<_> = log.events.iter().map(|e| e.info.contact).collect();
    assert_eq!(walls.len(), 2);
}

#[test]
fn oblique_plastic_impact_with_friction_sticks_or_slips_by_the_cone() {
    // Landing at angle: sticking impact when |u/w| ≤ μ, slipping impact (tangential velocity
    // reduced by μ|w|) otherwise.
    for (u, mu) in [(0.5, 0.6), (2.0, 0.3)] {
        let p = Particle::block_on_incline(1.0, 9.81, 0.0, mu);
        let sys = Lagrangian::new(p);
        let w = -1.0;
        let x0 = join(&dvector![0.0, 0.0], &dvector![u, w]);
        let mut log = Log::default();
        let s = DriverSettings { max_events: 1, ..Default::default() };
        EventDriver::new(s).run(&sys, 0.0, x0, &[], &mut log);
        let ev = &log.events[0];
        let (_, v) = split(&ev.after);
        let expect = if u.abs() <= mu * w.abs() { 0.0 } else { u - mu * w.abs() };
        assert!((v[0] - expect).abs() < 1e-12, "u = {u}: {} vs {expect}", v[0]);
        assert_eq!(v[1], 0.0);
        let ke_normal = 0.5 * w * w;
        assert!(ev.info.energy_loss.unwrap() >= ke_normal - 1e-12);
    }
}

/// A particle on a floor lifted by a force growing in time: `m z̈ = m g (t/T − 1) + λ`.
struct Lifted {
    g: f64,
    t_lift: f64,
    e: f64,
}

contactlab::fixed_size_system!(Lifted, 1);

impl FixedSystem<1> for Lifted {
    fn contact_count(&self) -> usize {
        1
    }
    fn law(&self, _i: usize) -> ContactLaw {
        ContactLaw { mu: 0.0, restitution: self.e }
    }
    fn mass_matrix(&self, _q: &SVector<f64, 1>) -> SMatrix<f64, 1, 1> {
        SMatrix::<f64, 1, 1>::new(2.0)
    }
    fn bias(&self, t: f64, _q: &SVector<f64, 1>, _v: &SVector<f64, 1>) -> SVector<f64, 1> {
        SVector::<f64, 1>::new(2.0 * self.g * (t / self.t_lift - 1.0))
    }
    fn gap(&self, _i: usize, q: &SVector<f64, 1>) -> f64 {
        q[0]
    }
    fn normal_jacobian(&self, _i: usize, _q: &SVector<f64, 1>) -> SVector<f64, 1> {
        SVector::<f64, 1>::new(1.0)
    }
    fn jacobian_dot_v(&self, _i: usize, _q: &SVector<f64, 1>, _v: &SVector<f64, 1>) -> (f64, f64) {
        (0.0, 0.0)
    }
    fn autonomous(&self) -> bool {
        false
    }
}

#[test]
fn lift_off_when_the_normal_force_vanishes() {
    let (g, tl) = (9.81, 0.8);
    let sys = Lagrangian::new(Lifted { g, t_lift: tl, e: 0.0 });
    let x0 = join(&dvector![0.0], &dvector![0.0]);
    let mut log = Log::default();
    let run =
        EventDriver::new(DriverSettings { t_max: 2.0 * tl, ..Default::default() }).run(&sys, 0.0, x0, &[], &mut log);
    assert_eq!(run.termination, Termination::TimeLimit);
    let ev = &log.events[0];
    assert_eq!(ev.info.kind, EventKind::LiftOff);
    assert!((ev.t - tl).abs() <= 1e-12 * tl, "{} vs {tl}", ev.t);
    assert_eq!(ev.mode_after.get(0), ContactMode::Free);
    // Then z = g (t − T)³ / (6 T).
    let z = run.state[(0, 0)];
    assert!((z - g * tl.powi(3) / (6.0 * tl)).abs() < 1e-9, "{z}");
}

#[test]
fn completed_execution_leaves_the_constraint_when_the_multiplier_vanishes() {
    // Dropped from 0.1 m with e = 0.5 under m g (t/T − 1), T = 2 s: the bounces accumulate at a
    // Zeno point, the ball then rests on the floor (constrained phase, λ = m g (1 − t/T)) and
    // lifts off exactly when λ reaches zero, at t = T (P3, Definitions 3–4).
    let (g, tl) = (9.81, 2.0);
    let sys = Lagrangian::new(Lifted { g, t_lift: tl, e: 0.5 });
    let x0 = join(&dvector![0.1], &dvector![0.0]);
    let (run, log) =
        EventDriver::new(DriverSettings { t_max: 2.5, ..Default::default() }).run_logged(&sys, 0.0, x0, &[]);
    assert_eq!(run.termination, Termination::TimeLimit);
    let kinds: Vec<EventKind> = log.iter().map(|e| e.info.kind).collect();
    let zeno = kinds.iter().position(|k| *k == EventKind::Zeno).expect("a Zeno point");
    assert!(kinds[..zeno].iter().all(|k| *k == EventKind::Impact) && zeno >= 4, "{kinds:?}");
    assert_eq!(kinds[zeno + 1..], [EventKind::LiftOff], "{kinds:?}");
    assert_eq!(log[zeno].mode_after.get(0), ContactMode::Slip(0));
    let lift = &log[zeno + 1];
    assert!((lift.t - tl).abs() <= 1e-12 * tl, "lift-off at {} vs {tl}", lift.t);
    // The Zeno time: the impact series of a ball under the slowly varying force, checked against
    // the driver's own last impacts (it lies beyond them, within one more flight).
    let last_impact = log[zeno - 1].t;
    assert!(log[zeno].t > last_impact && log[zeno].t - last_impact < 2.0 * (log[zeno - 1].t - log[zeno - 2].t));
}

#[test]
fn painleve_rod_is_reported_not_guessed() {
    // A uniform rod (ρ² = l²/3) at 30° sliding on its lower end: in slip towards −x the normal
    // acceleration decreases with the normal force when μ > (1 + 3cos²θ)/(3 cos θ sin θ) = 2.50.
    let (l, th) = (0.5f64, 30f64.to_radians());
    let rod = |mu: f64| PlanarBody {
        mass: 1.0,
        rho: l / 3f64.sqrt(),
        points: vec![BodyPoint {
            r: Vector2::new(-l * th.cos(), -l * th.sin()),
            phi: 0.0,
            law: ContactLaw { mu, restitution: 0.0 },
        }],
        force: Vector2::new(0.0, -9.81),
        torque: 0.0,
    };
    for (mu, dir, painleve) in [(3.0, -1.0, true), (3.0, 1.0, false), (2.0, -1.0, false)] {
        let sys = Lagrangian::new(rod(mu));
        let mut x = join(&DVector::zeros(3), &dvector![dir, 0.0, 0.0]);
        let m = sys.initial_mode(0.0, &mut x);
        if painleve {
            let f = m.expect_err("Painlevé");
            assert_eq!(f.kind, FailureKind::Painleve);
            assert_eq!(f.candidates.len(), 2, "{f:?}"); // free and slipping, both with negative margins
            assert!(f.candidates.iter().all(|c| c.margin < 0.0));
        } else {
            let m = m.unwrap();
            assert_eq!(m.get(0), ContactMode::Slip(dir as i8), "μ = {mu}, direction {dir}");
        }
    }
}

#[test]
fn a_touching_contact_without_load_is_reported_not_guessed() {
    // Touching a vertical wall with no force into it: free and closed are both marginal.
    let mut p = Particle::block_on_incline(1.0, 9.81, 0.0, 0.0);
    p.walls[0] = contactlab::mechanics::closed_form::HalfPlane {
        normal: Vector2::new(1.0, 0.0),
        offset: 0.0,
        law: ContactLaw { mu: 0.0, restitution: 0.0 },
    };
    let sys = Lagrangian::new(p);
    let mut x0 = join(&dvector![0.0, 0.0], &dvector![0.0, 0.0]);
    let f = sys.initial_mode(0.0, &mut x0).expect_err("marginal");
    assert_eq!(f.kind, FailureKind::Indeterminate);
}

#[test]
fn simultaneous_impacts_are_resolved_together() {
    // A particle reaching the corner of a floor and a wall at the same instant (t = 1): both
    // guards fire together and the two-contact Newton impact (an LCP) reverses both components.
    let g = 9.81;
    for e in [1.0, 0.5] {
        let mut p = Particle::block_on_incline(1.0, g, 0.0, 0.0);
        p.walls[0].law.restitution = e;
        p.walls.push(contactlab::mechanics::closed_form::HalfPlane {
            normal: Vector2::new(-1.0, 0.0),
            offset: -1.0,
            law: ContactLaw { mu: 0.0, restitution: e },
        });
        let sys = Lagrangian::new(p);
        let x0 = join(&dvector![0.0, 0.5 * g], &dvector![1.0, 0.0]);
        let (_, log) =
            EventDriver::new(DriverSettings { max_events: 1, ..Default::default() }).run_logged(&sys, 0.0, x0, &[]);
        let ev = &log[0];
        assert_eq!(ev.info.kind, EventKind::Impact);
        assert!((ev.t - 1.0).abs() < 1e-12);
        let (_, v) = split(&ev.after);
        assert!((v[0] + e).abs() < 1e-9 && (v[1] - e * g).abs() < 1e-9, "e = {e}: {v:?}");
    }
}

/// A ball on an endless staircase: after every landing the relabelling moves it up one step
/// (the state is re-expressed relative to the next step), like a walker's leg swap.
struct Staircase(Oscillator);

contactlab::fixed_size_system!(Staircase, 1);

impl FixedSystem<1> for Staircase {
    fn contact_count(&self) -> usize {
        1
    }
    fn law(&self, i: usize) -> ContactLaw {
        FixedSystem::<1>::law(&self.0, i)
    }
    fn mass_matrix(&self, q: &SVector<f64, 1>) -> SMatrix<f64, 1, 1> {
        FixedSystem::<1>::mass_matrix(&self.0, q)
    }
    fn bias(&self, t: f64, q: &SVector<f64, 1>, v: &SVector<f64, 1>) -> SVector<f64, 1> {
        FixedSystem::<1>::bias(&self.0, t, q, v)
    }
    fn gap(&self, i: usize, q: &SVector<f64, 1>) -> f64 {
        FixedSystem::<1>::gap(&self.0, i, q)
    }
    fn normal_jacobian(&self, i: usize, q: &SVector<f64, 1>) -> SVector<f64, 1> {
        FixedSystem::<1>::normal_jacobian(&self.0, i, q)
    }
    fn jacobian_dot_v(&self, i: usize, q: &SVector<f64, 1>, v: &SVector<f64, 1>) -> (f64, f64) {
        FixedSystem::<1>::jacobian_dot_v(&self.0, i, q, v)
    }
    fn length_scale(&self) -> f64 {
        FixedSystem::<1>::length_scale(&self.0)
    }
    fn time_scale(&self) -> f64 {
        FixedSystem::<1>::time_scale(&self.0)
    }
    fn relabel(
        &self,
        _c: usize,
        q: &SVector<f64, 1>,
        v: &SVector<f64, 1>,
    ) -> Option<(SVector<f64, 1>, SVector<f64, 1>)> {
        Some((q + Vector1::new(0.2), *v))
    }
}

#[test]
fn relabelling_after_an_impact_is_applied() {
    // From 1 m up with e = 0.5: each landing is relabelled 0.2 m above the next step, so the
    // flights never decay to a Zeno point; the relabelled state is the post-impact state.
    let sys = Lagrangian::new(Staircase(Oscillator::bouncing_ball(1.0, 9.81, 0.5, 1.0)));
    let x0 = join(&dvector![1.0], &dvector![0.0]);
    let (run, log) =
        EventDriver::new(DriverSettings { max_events: 12, ..Default::default() }).run_logged(&sys, 0.0, x0, &[]);
    assert_eq!(run.termination, Termination::EventLimit);
    for ev in &log {
        assert_eq!(ev.info.kind, EventKind::Impact);
        let (q, v) = split(&ev.after);
        assert!((q[0] - 0.2).abs() < 1e-12 && v[0] > 0.0, "{:?}", ev.after);
    }
    // The flight settles to the cycle where the 0.2 m drop restores the bounce: v⁺ = e v⁻ with
    // v⁻² = v⁺² + 2 g 0.2.
    let vp = 0.5 * (2.0 * 9.81 * 0.2 / (1.0 - 0.25f64)).sqrt();
    let (_, v) = split(&log.last().unwrap().after);
    assert!((v[0] - vp).abs() < 1e-3 * vp, "{} vs {vp}", v[0]);
}

#[test]
fn invalid_driver_settings_end_the_run_before_it_starts() {
    assert!(DriverSettings::default().validate().is_ok());
    let sys = Lagrangian::new(Oscillator::bouncing_ball(0.5, 9.81, 0.5, 1.0));
    let x0 = join(&dvector![1.0], &dvector![0.0]);
    for (bad, name) in [
        (DriverSettings { max_events: 0, ..Default::default() }, "max_events"),
        (DriverSettings { event_tol: 0.0, ..Default::default() }, "event_tol"),
        (DriverSettings { tol: Tolerances { rtol: 2.0, atol: 1e-9 }, ..Default::default() }, "rtol"),
        (DriverSettings { diverge: Some(0.5), ..Default::default() }, "diverge"),
    ] {
        let e = bad.validate().unwrap_err();
        assert!(matches!(&e, contactlab::Error::Argument { name: n, .. } if n == name), "{e}");
        let run = EventDriver::new(bad).run(&sys, 0.0, x0.clone(), &[], &mut Log::default());
        assert!(
            matches!(&run.termination,
                Termination::IntegrationFailure { cause: IntegrationCause::InvalidSetting { name: n, .. }, .. } if n == name),
            "{:?}",
            run.termination
        );
        assert_eq!((run.steps, run.events), (0, 0));
    }
}
