//! How a slip episode of the stance foot ends (P2, Sections 3.3 and 4.2): it sticks, reverses,
//! separates, is cut short by the next heel strike, or jams (Definition 1: `B → 0` with `A > 0`,
//! the normal force unbounded); and the smallest initial slip speed that jams.
//!
//! # Reading the corner p₁ (P2 §3.3, after Génot and Brogliato)
//! A forward slip can reach `B = 0` only at a point where `A` vanishes too (P2's `p₁`), and
//! which of the two vanishes first decides the outcome: `B` first makes `f_n = A/B` unbounded
//! (jam), `A` first makes it fall to zero (separation). Near `p₁`, with time rescaled by `B`,
//! the slip is a stable node whose eigenvalue ratio `λ` sets `A ≈ L B + D B^λ`: for the rimless
//! wheel `λ = 2κ / (tan θ₁ (sin 2θ₁ + μ cos 2θ₁))`, which is `1` exactly at
//! `μ_c = (2/√3) μ_min`. Below `μ_c` (`λ > 1`, `L < 0`) every approach has `A` vanish first;
//! above it (`λ < 1`) the side of the separatrix (`D > 0` or `< 0`) decides. So along the
//! approach the exponent `s = d ln A / d ln B` tends to a value below 1 at a jam (`s → λ`) and
//! grows above 1 before a separation.
//!
//! The integrator resolves `A` and `B` only down to [`RESOLVED`] times its relative tolerance
//! of the magnitude of their terms ([`crate::walking::ab_terms`]); every threshold below is such
//! a ratio, or an exponent, so units do not enter. The core approaches `B = 0` in geometric
//! steps and stops there (its jam guard, or the collapse of the step size at the pole of `f_n`:
//! [`crate::hybrid::driver`]); at `f_n = 0` it stops at the lift-off. The end is read:
//! * directly when one quantity is clearly not vanishing: a lift-off where `B` is still
//!   resolved is a separation (`A` changed sign first); `B` below resolution at the last
//!   integrator point while `A` is beyond [`APPROACH`] of its terms is a jam;
//! * otherwise from the exponent: `s` is fitted on the integrator's points of the approach
//!   with both `A` and `B` resolved and `B` within [`APPROACH`] of zero, over at least
//!   [`MIN_DECADES`] decades of `B`, and the last half of that window decides: `s` below
//!   `1 − margin` jam, above `1 + margin` separation ([`EXPONENT_MARGIN`]);
//! * a window too short, `s` within the margin of 1, or halves on opposite sides of 1 make the
//!   outcome [`SlipOutcome::Corner`], with the evidence ([`Approach`]): the slip reached `p₁`
//!   with `A` and `B` vanishing at the same rate as far as the integrator resolves (a start on
//!   the separatrix `D = 0` to that resolution, or `μ` at `μ_c`).
//!
//! A still resolved `A` at the last point before `B = 0` is no evidence by itself: there
//! `A ≈ f_n B`, and the force may be finite and falling (`μ` just below `μ_c`, where `A` vanishes
//! first only far below the resolution); its trend is the evidence.

use std::ops::ControlFlow;

use nalgebra::SVector;
use serde::Serialize;

use super::{ab_terms, State, WalkerSettings};
use crate::hybrid::driver::EventRecord;
use crate::hybrid::lagrangian::{join, split, ContactMode, Lagrangian, Modes};
use crate::hybrid::{EventKind, FailureKind, Observer, Step, Termination};
use crate::mechanics::ContactSystem;

/// How a slip episode ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SlipOutcome {
    /// The slip velocity reached zero and the foot sticks.
    Stick,
    /// The slip velocity reached zero and the slip reverses.
    Reversal,
    /// The normal force reached zero: the foot leaves the ground.
    Separation,
    /// Dynamic jamming: `B → 0` with the normal force growing without bound.
    Jam,
    /// The slip reached P2's corner `p₁` (`A` and `B` vanishing together) and the integrator
    /// cannot resolve which vanishes first: [`SlipEnd::approach`] holds the evidence.
    Corner,
    /// The swing foot struck the ground while the stance foot still slipped.
    Impact,
    /// The initial state is in case 4 of Table 2.1 (no finite-force continuation).
    Inconsistent,
    /// The initial state is in case 3 of Table 2.1 (slip or separation).
    Indeterminate,
    /// The stance foot does not slip at the initial state.
    NotSlipping,
    /// None of the above within the time or event bounds.
    Unresolved,
}

/// The end of a slip episode.
#[derive(Debug, Clone, Serialize)]
pub struct SlipEnd {
    /// How it ended.
    pub outcome: SlipOutcome,
    /// When.
    pub t_end: f64,
    /// The largest normal force at the stance foot during the slip.
    pub fn_max: f64,
    /// The state `(q, q̇)` at the end.
    pub state: Vec<f64>,
    /// `A` and `B` (eq. 21) at the end.
    pub a_end: f64,
    /// See `a_end`.
    pub b_end: f64,
    /// How the end was read when the slip ended at `B = 0` or at `f_n = 0` (module docs).
    pub approach: Option<Approach>,
    /// Samples `(t, q, q̇, f_n)` along the slip (for plots; empty from [`slip_outcome`]).
    #[serde(skip)]
    pub trace: Vec<TracePoint>,
}

/// One sample of a slip: `(t, q, q̇, f_n)`.
pub type TracePoint = (f64, Vec<f64>, Vec<f64>, f64);

/// `A` or `B` is resolved from zero when it exceeds `RESOLVED` times the integrator's relative
/// tolerance of the magnitude of its terms: the state, and so `A` and `B`, carry errors of a
/// few tolerances relative to those magnitudes; at `RESOLVED` such errors are about 1 %.
pub const RESOLVED: f64 = 100.0;

/// The approach window starts where `B` is within this fraction of its terms' magnitude from
/// zero: close enough to `p₁` for the node's linearisation (relative corrections of that order).
pub const APPROACH: f64 = 1e-4;

/// The least span of `B` (decades) over the approach window for an exponent to be read: each
/// half then spans at least one decade.
pub const MIN_DECADES: f64 = 2.0;

/// How far from 1 the exponent must be to decide. Over the window the node's nonlinear terms
/// change `s` by the order of `B ≤ APPROACH`; the integrator's error moves the computed states
/// across the family of approaches (it changes `D` in `A ≈ L B + D B^λ`), which changes `s − 1`
/// by about `(s − 1)/RESOLVED` at the window's floor and cannot take `s` across 1. This is ten
/// times `APPROACH`. (Measured: the late exponent of one start moves by `5e-5` between
/// tolerances `1e-8` and `1e-12`.)
pub const EXPONENT_MARGIN: f64 = 10.0 * APPROACH;

/// How the end of a slip at `B = 0` or `f_n = 0` was read (module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reading {
    /// `B` fell below resolution while `A` stayed beyond [`APPROACH`] of its terms: `f_n = A/B`
    /// unbounded (jam).
    BVanishedFirst,
    /// `A` changed sign (lift-off) while `B` was still resolved: `f_n → 0` (separation).
    AVanishedFirst,
    /// `A` and `B` vanish together; the approach exponent `s = d ln A / d ln B` decided
    /// (`s < 1`: jam, `s > 1`: separation).
    Exponent,
    /// `A` and `B` vanish together, and the approach window spans fewer than [`MIN_DECADES`]
    /// decades of `B`: no exponent can be read (corner).
    ShortApproach,
    /// `A` and `B` vanish together, and `s` is within its margin of 1: at the same rate as far as
    /// the integrator resolves (corner).
    Balanced,
    /// `A` and `B` vanish together, and the exponent lies on opposite sides of 1 in the two
    /// halves of the window: the approach has not settled into the node's asymptotics (corner).
    Unsettled,
}

/// The evidence for the end of a slip at `B = 0` or `f_n = 0`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Approach {
    /// How the end was read.
    pub reading: Reading,
    /// `A` relative to the magnitude of its terms at the end as the integrator resolved it: the
    /// lift-off, or the last integrator point before `B = 0`.
    pub a_rel: f64,
    /// `B` relative to the magnitude of its terms, at the same point.
    pub b_rel: f64,
    /// The level below which `a_rel` and `b_rel` are not resolved from zero
    /// ([`RESOLVED`] × the relative tolerance).
    pub resolution: f64,
    /// Integrator points (accepted step ends) in the approach window.
    pub samples: usize,
    /// Decades of `B` spanned by the window.
    pub decades: f64,
    /// `s = d ln A / d ln B` fitted over the window (`< 1`: `f_n` grows as `B → 0`).
    pub exponent: Option<f64>,
    /// `s` over the first (larger `B`) half of the window.
    pub exponent_early: Option<f64>,
    /// `s` over the last half of the window: the verdict's exponent.
    pub exponent_late: Option<f64>,
    /// How far from 1 the late exponent must be to decide: [`EXPONENT_MARGIN`] or three
    /// standard errors of its fit, whichever is larger.
    pub margin: Option<f64>,
    /// `f_n = A/B` at the first and the last point of the window.
    pub fn_window: Option<[f64; 2]>,
}

struct SlipWatch<'a, S, const N: usize> {
    lag: &'a Lagrangian<S, N>,
    /// `(t, f_n)` of every sample.
    forces: Vec<(f64, f64)>,
    /// The samples with their states, when the caller keeps them (see [`slip`]).
    trace: Option<Vec<TracePoint>>,
    fn_max: f64,
    end: Option<(SlipOutcome, f64, State<N>)>,
    started: bool,
    sigma: f64,
    lift_off: bool,
    /// The integrator's accepted step ends while slipping: its own points, not the dense output
    /// between them (which is poorer near a pole of `f_n`).
    nodes: Vec<State<N>>,
}

impl<S: ContactSystem<N>, const N: usize> SlipWatch<'_, S, N> {
    fn sample(&mut self, t: f64, x: &State<N>, mode: &Modes) {
        if let ContactMode::Slip(s) = mode.get(0) {
            if s != 0 {
                let (q, v) = split(x);
                if let Some(sol) = self.lag.solve_mode(mode, t, &q, &v) {
                    self.fn_max = self.fn_max.max(sol.lambda_n[0]);
                    self.forces.push((t, sol.lambda_n[0]));
                    if let Some(trace) = &mut self.trace {
                        trace.push((t, q.iter().copied().collect(), v.iter().copied().collect(), sol.lambda_n[0]));
                    }
                }
            }
        }
    }
}

impl<S: ContactSystem<N>, const N: usize> Observer<State<N>, Modes> for SlipWatch<'_, S, N> {
    fn on_start(&mut self, t: f64, x: &State<N>, mode: &Modes) {
        self.started = matches!(mode.get(0), ContactMode::Slip(s) if s != 0);
        if let ContactMode::Slip(s) = mode.get(0) {
            self.sigma = s as f64;
        }
        self.sample(t, x, mode);
    }
    fn on_step(&mut self, step: &Step<State<N>>, t_end: f64, mode: &Modes) -> ControlFlow<()> {
        for (t, x) in step.samples(t_end, 4) {
            self.sample(t, &x, mode);
        }
        if t_end == step.t1() && matches!(mode.get(0), ContactMode::Slip(s) if s != 0) {
            self.nodes.push(step.y1);
        }
        ControlFlow::Continue(())
    }
    fn on_event(&mut self, ev: &EventRecord<State<N>, Modes>) -> ControlFlow<()> {
        let outcome = match (ev.info.kind, ev.info.contact) {
            (EventKind::Impact, Some(1)) => Some(SlipOutcome::Impact),
            (EventKind::LiftOff, Some(0)) => {
                self.lift_off = true;
                Some(SlipOutcome::Separation)
            }
            (EventKind::SlipStop, Some(0)) => Some(match ev.mode_after.get(0) {
                ContactMode::Stick => SlipOutcome::Stick,
                ContactMode::Slip(_) => SlipOutcome::Reversal,
                ContactMode::Free => SlipOutcome::Separation,
            }),
            _ => None,
        };
        match outcome {
            Some(o) => {
                self.end = Some((o, ev.t, ev.before));
                ControlFlow::Break(())
            }
            None => ControlFlow::Continue(()),
        }
    }
}

/// Runs the walker from `(q, q̇)` (the stance foot slipping) until the slip episode ends.
pub fn slip<S: ContactSystem<N>, const N: usize>(
    sys: &S,
    q: &SVector<f64, N>,
    v: &SVector<f64, N>,
    settings: &WalkerSettings,
) -> SlipEnd {
    run_slip(sys, q, v, settings, true)
}

/// [`slip`] without the sampled states ([`SlipEnd::trace`] empty): for the searches that need
/// only the outcome (thresholds, grids), which would otherwise allocate two vectors per sample.
pub fn slip_outcome<S: ContactSystem<N>, const N: usize>(
    sys: &S,
    q: &SVector<f64, N>,
    v: &SVector<f64, N>,
    settings: &WalkerSettings,
) -> SlipEnd {
    run_slip(sys, q, v, settings, false)
}

fn run_slip<S: ContactSystem<N>, const N: usize>(
    sys: &S,
    q: &SVector<f64, N>,
    v: &SVector<f64, N>,
    settings: &WalkerSettings,
    keep_trace: bool,
) -> SlipEnd {
    let lag = Lagrangian::new(sys);
    let mut watch = SlipWatch {
        lag: &lag,
        forces: Vec::new(),
        trace: keep_trace.then(Vec::new),
        fn_max: 0.0,
        end: None,
        started: false,
        sigma: 1.0,
        lift_off: false,
        nodes: Vec::new(),
    };
    let driver = settings.driver(settings.max_step_time * sys.time_scale());
    let run = driver.run(&lag, 0.0, join(q, v), &[], &mut watch);
    let mut trace = watch.trace.unwrap_or_default();
    let mut fn_max = watch.fn_max;
    let resolution = RESOLVED * settings.rtol;
    let mut approach = None;
    let (outcome, t, x) = match (&watch.end, &run.termination) {
        (Some((SlipOutcome::Separation, t, x)), _) if watch.lift_off => {
            // f_n reached zero: A vanished. Did B vanish with it?
            let a = read_approach(sys, &watch.nodes, x, watch.sigma, resolution, Vanished::A);
            let o = a.outcome();
            approach = Some(a);
            (o, *t, *x)
        }
        (Some((o, t, x)), _) => (*o, *t, *x),
        (None, Termination::Failed(f)) if f.kind == FailureKind::Jam => {
            // The core stops where B reaches 0 with A ≥ 0. The sample at the event itself is
            // dropped (f_n = A/B is meaningless there); the approach decides.
            trace.retain(|p| p.0 < run.t);
            fn_max = watch.forces.iter().filter(|p| p.0 < run.t).map(|p| p.1).fold(0.0, f64::max);
            let a = read_approach(sys, &watch.nodes, &run.state, watch.sigma, resolution, Vanished::B);
            let o = a.outcome();
            approach = Some(a);
            (o, run.t, run.state)
        }
        (None, Termination::Failed(f)) => {
            let o = match f.kind {
                FailureKind::Painleve => SlipOutcome::Inconsistent,
                FailureKind::Indeterminate => SlipOutcome::Indeterminate,
                _ => SlipOutcome::Unresolved,
            };
            (o, run.t, run.state)
        }
        (None, _) if !watch.started => (SlipOutcome::NotSlipping, run.t, run.state),
        (None, _) => (SlipOutcome::Unresolved, run.t, run.state),
    };
    let (qe, ve) = split(&x);
    let sigma = sys.tangent_jacobian(0, &qe).dot(&ve).signum();
    let (a, b) = super::ab(sys, &qe, &ve, if sigma == 0.0 { 1.0 } else { sigma });
    SlipEnd {
        outcome,
        t_end: t,
        fn_max,
        state: x.column(0).iter().chain(x.column(1).iter()).copied().collect(),
        a_end: a,
        b_end: b,
        approach,
        trace,
    }
}

/// Which of `A` and `B` the integrator saw vanish at the end.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Vanished {
    A,
    B,
}

impl Approach {
    /// The outcome this reading gives.
    fn outcome(&self) -> SlipOutcome {
        let late = self.exponent_late.unwrap_or(1.0);
        match self.reading {
            Reading::BVanishedFirst => SlipOutcome::Jam,
            Reading::AVanishedFirst => SlipOutcome::Separation,
            Reading::Exponent if late < 1.0 => SlipOutcome::Jam,
            Reading::Exponent => SlipOutcome::Separation,
            Reading::ShortApproach | Reading::Balanced | Reading::Unsettled => SlipOutcome::Corner,
        }
    }
}

/// Reads the end `x` of a slip at `B = 0` (`seen = B`) or `f_n = 0` (`seen = A`) from the
/// integrator's nodes along the approach (module docs).
fn read_approach<S: ContactSystem<N>, const N: usize>(
    sys: &S,
    nodes: &[State<N>],
    x: &State<N>,
    sigma: f64,
    resolution: f64,
    seen: Vanished,
) -> Approach {
    // A and B relative to their terms, and f_n = A/B.
    let relative = |x: &State<N>| {
        let (q, v) = split(x);
        let ab = ab_terms(sys, &q, &v, sigma);
        (ab.a / ab.a_scale, ab.b / ab.b_scale, ab.a / ab.b)
    };
    // The end as the integrator resolved it: at a lift-off the event (located on the dense
    // output, where B needs only q); at B = 0 the last node, since A needs q̇, whose dense
    // output is poor across a pole of f_n.
    let (a_rel, b_rel, _) = match seen {
        Vanished::A => relative(x),
        Vanished::B => relative(nodes.last().unwrap_or(x)),
    };
    let mut out = Approach {
        reading: Reading::ShortApproach,
        a_rel,
        b_rel,
        resolution,
        samples: 0,
        decades: 0.0,
        exponent: None,
        exponent_early: None,
        exponent_late: None,
        margin: None,
        fn_window: None,
    };
    // Read directly: A changed sign (f_n = 0) where B is resolved positive; B reached zero
    // where A is not near zero (outside the approach window's range). Otherwise A and B vanish
    // together and the exponent decides: A still resolved at the last node before B = 0 is no
    // evidence by itself (A ≈ f_n B there), the trend of A/B is.
    let direct = match seen {
        Vanished::B if a_rel > APPROACH && b_rel <= resolution => Some(Reading::BVanishedFirst),
        Vanished::A if b_rel > resolution => Some(Reading::AVanishedFirst),
        _ => None,
    };
    if let Some(r) = direct {
        out.reading = r;
    }
    // The window: the nodes of the final stretch along which B decreases, from where it is
    // within APPROACH of zero, with both A and B resolved; in time order.
    let mut window: Vec<(f64, f64, f64)> = Vec::new();
    let mut b_later = f64::NEG_INFINITY;
    for n in nodes.iter().rev() {
        let (a, b, f) = relative(n);
        if !(a.is_finite() && b.is_finite()) || b > APPROACH || b < b_later {
            break;
        }
        b_later = b;
        if a > resolution && b > resolution {
            window.push((a, b, f));
        }
    }
    window.reverse();
    out.samples = window.len();
    let (Some(first), Some(last)) = (window.first(), window.last()) else { return out };
    out.decades = (first.1 / last.1).log10();
    out.fn_window = Some([first.2, last.2]);
    let pts: Vec<(f64, f64)> = window.iter().map(|w| (w.1.ln(), w.0.ln())).collect();
    out.exponent = slope(&pts).map(|s| s.0);
    if out.decades < MIN_DECADES {
        return out;
    }
    let mid = 0.5 * (pts[0].0 + pts[pts.len() - 1].0);
    // ln B decreases along the window: the early half is the part above the midpoint.
    let (early, late) = pts.split_at(pts.iter().position(|p| p.0 < mid).unwrap_or(pts.len()));
    let (Some(e), Some((s_late, se_late))) = (slope(early), slope(late)) else { return out };
    out.exponent_early = Some(e.0);
    out.exponent_late = Some(s_late);
    let margin = EXPONENT_MARGIN.max(3.0 * se_late);
    out.margin = Some(margin);
    if direct.is_some() {
        return out;
    }
    let side = |s: f64| {
        if s < 1.0 - margin {
            -1
        } else if s > 1.0 + margin {
            1
        } else {
            0
        }
    };
    out.reading = match (side(e.0), side(s_late)) {
        (_, 0) => Reading::Balanced,
        (x, y) if x == -y => Reading::Unsettled,
        _ => Reading::Exponent,
    };
    out
}

/// Least-squares slope of `y` on `x` and its standard error; `None` below three points or when
/// the `x` do not vary.
fn slope(pts: &[(f64, f64)]) -> Option<(f64, f64)> {
    let n = pts.len() as f64;
    if pts.len() < 3 {
        return None;
    }
    let (mx, my) = pts.iter().fold((0.0, 0.0), |a, p| (a.0 + p.0 / n, a.1 + p.1 / n));
    let (sxx, sxy) = pts.iter().fold((0.0, 0.0), |a, p| (a.0 + (p.0 - mx).powi(2), a.1 + (p.0 - mx) * (p.1 - my)));
    if sxx <= 0.0 {
        return None;
    }
    let s = sxy / sxx;
    let rss: f64 = pts.iter().map(|p| (p.1 - my - s * (p.0 - mx)).powi(2)).sum();
    Some((s, (rss / ((n - 2.0) * sxx)).sqrt()))
}

/// The smallest initial slip speed that jams from `(q, q̇)`, the slip speed being set along the
/// stance foot's tangential direction `e_x` (a unit vector in the velocities): bisection on
/// `(0, v_max]` to relative tolerance `tol`. `None` if `v_max` does not jam.
pub fn jam_threshold<S: ContactSystem<N>, const N: usize>(
    sys: &S,
    q: &SVector<f64, N>,
    v: &SVector<f64, N>,
    e_x: &SVector<f64, N>,
    v_max: f64,
    tol: f64,
    settings: &WalkerSettings,
) -> Option<f64> {
    let jams = |s: f64| slip_outcome(sys, q, &(v + e_x * s), settings).outcome == SlipOutcome::Jam;
    if !jams(v_max) {
        return None;
    }
    let (mut lo, mut hi) = (0.0, v_max);
    while hi - lo > tol * hi {
        let m = 0.5 * (lo + hi);
        if jams(m) {
            hi = m;
        } else {
            lo = m;
        }
    }
    Some(hi)
}

/// How many slips jam from a grid of `n × n` starts on the approach side of the region `B < 0`
/// of a one-angle walker (the rimless wheel): `θ₀` in `(θ₁ − width, θ₁)`, `θ̇₀` in
/// `(0, rate_max)`, the slip speed `ẋ₀` along `e_x`. P2 (after Génot and Brogliato, and \[38\])
/// states that jamming needs `μ ≥ μ_c = (2/√3) μ_min`: below it the slip reaches `A = 0` first.
#[allow(clippy::too_many_arguments)]
pub fn jams_on_grid<S: ContactSystem<N>, const N: usize>(
    sys: &S,
    start: impl Fn(f64, f64) -> (SVector<f64, N>, SVector<f64, N>),
    theta1: f64,
    width: f64,
    rate_max: f64,
    n: usize,
    settings: &WalkerSettings,
) -> usize {
    let mut count = 0;
    for i in 0..n {
        for j in 0..n {
            let th0 = theta1 - width * (i as f64 + 0.5) / n as f64;
            let rate = rate_max * (j as f64 + 0.5) / n as f64;
            let (q, v) = start(th0, rate);
            if slip_outcome(sys, &q, &v, settings).outcome == SlipOutcome::Jam {
                count += 1;
            }
        }
    }
    count
}
