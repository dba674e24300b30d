//! The slip of contact 0 in desingularised time, where its normal force is unbounded: how a slip
//! that approaches `B = 0` ends (P2, Section 3.3; Génot and Brogliato 1999).
//!
//! # The regularisation
//! While contact 0 slips in direction `σ` (the other closed constraints held, [`Held`]), the
//! accelerations are affine in its normal force, `q̈ = a₀(q, q̇) + a₁(q) f_n`, and the force is
//! `f_n = A/B` with P2's `A(q, q̇)` and `B(q)` ([`slip_parts`]). At `B = 0` the force has a pole.
//! Génot and Brogliato (*New results on Painlevé paradoxes*, Eur. J. Mech. A/Solids 18, 1999)
//! rescale time by `B`: with `dt = (B / B₀) ds` (`B₀` the value of `B` where the rescaling starts,
//! so that `s` is a time),
//!
//! ```text
//!     dq/ds = (B/B₀) q̇,    dq̇/ds = (B a₀ + A a₁) / B₀,    dt/ds = B/B₀,
//! ```
//!
//! a smooth field through `B = 0`, equal to the physical one times `B/B₀ > 0` while `B > 0`: the
//! same orbits, traversed at another speed. `B = 0` is invariant (there `dq/ds = 0`), and P2's
//! corner `p₁` (`A = B = 0`) is a set of equilibria, a node for the rimless wheel. So a slip that
//! approaches `B = 0` ends in one of these ways, each an event of the rescaled run:
//! * the slip speed `σẋ` reaches zero first: stick or reversal (at a finite, possibly huge, force);
//! * `A` reaches zero first with `B > 0`: the force falls to zero, separation;
//! * the run converges to `p₁` still slipping: a dynamic jam (P2's Definition 1, the force
//!   unbounded at the corner). Converging to `p₁` with the slip speed not resolved from zero
//!   ([`SPEED_RESOLVED`]) is P2's corner;
//! * another contact strikes (an impact: the slip episode ends there), or a stuck contact's
//!   force leaves its friction cone (unresolved). A held constraint whose normal force reaches
//!   zero opens, and the run goes on without it (a locked knee unlocks).
//!
//! # The last stretch to `p₁`, at `B = 0`
//! Near `p₁` the approach is slow in `A` and fast in `B` (for the rimless wheel
//! `A ≈ L B + D B^λ` with `λ < 1` where jams happen), and `B`, a difference of terms, reaches its
//! resolution (its round-off, or the integrator's error: [`RESOLVED`]) long before `A` is small:
//! at `B = 10⁻¹⁶` of its terms `A` may still be `10⁻⁵` of its own. So the run stops where `B`
//! falls below its resolution, the floor, and finishes the approach in closed form. There `dq/ds = (B/B₀) q̇` has stopped and what remains is
//! `dq̇/ds = A a₁ / B₀`, up to terms `B/A` smaller: the velocities move along `a₁ = ∂q̈/∂f_n` at
//! fixed `q`, a normal impulse `P` applied at the contact with its friction (the tangential
//! impact of Génot and Brogliato). Along `q̇ + a₁P` the slip speed is affine in `P` and `A` is a
//! function of `P` alone (quadratic for velocity-product forces and linear dampers): the approach
//! ends at the first `P > 0` where `A` reaches zero, at `p₁` (a jam if the slip speed is still
//! positive there), or where the slip speed does (stick or reversal, with the finite impulse).
//!
//! This holds where the force `f_n = A/B` at the floor dominates its scale ([`FORCE_DOMINANT`]).
//! Where it does not, `A` and `B` vanish at comparable rates and the trend of the force decides,
//! read from the run's own steps over the last two decades of `B` ([`TREND_WINDOW`]): with
//! `d ln A / d ln B > 1` the force falls and `A` vanishes first, below the resolution of `B`
//! (separation: below `μ_c` every approach ends so, P2 §3.3); with `< 1` it grows without bound
//! (jam, the slip speed then changing by a negligible impulse); within [`EXPONENT_MARGIN`] of 1
//! it is P2's corner.
//!
//! The event-driven run hands over to this one where `B` falls below [`SWITCH`] of its terms
//! ([`super::slip`]); from there no step crosses the pole.

use nalgebra::{DMatrix, DVector};
use serde::Serialize;

use super::slip::{SlipOutcome, TracePoint};
use super::SlipSettings;
use crate::hybrid::lagrangian::{split, ContactMode, Lagrangian, Modes};
use crate::hybrid::ode::{Dopri5, Step};
use crate::hybrid::{Hybrid, Tolerances};
use crate::mechanics::ContactSystem;
use crate::numeric::{bisect, side_if, Side, Tol};

/// The event-driven run hands the slip over to the desingularised one where `B` falls below this
/// fraction of the magnitude of its terms: `f_n` is then a hundred times its scale, a pole ahead.
pub const SWITCH: f64 = 1e-2;

/// `A` or `B` has reached zero, as far as the run resolves it, where it falls below `RESOLVED`
/// times the relative tolerance of its terms (module docs): the integrator's error in the state
/// is a few tolerances relative to their magnitudes, and near `p₁`, where the rescaled field is
/// stiff, an explicit integrator holds the fast component at about that level instead of
/// letting it decay.
pub const RESOLVED: f64 = 100.0;

/// Where `B` reaches its floor with the force `A/B` at least this many times its scale, the
/// terms the last stretch neglects (relative size `1/f`) are below 1e-6: it decides whatever
/// the trend.
pub const FORCE_DOMINANT: f64 = 1e6;

/// Otherwise the force's trend decides: the exponent `d ln A / d ln B` is fitted over the steps
/// where `B` is within this factor of its floor (two decades).
pub const TREND_WINDOW: f64 = 100.0;

/// The exponent decides when it is this far from 1 (or three standard errors of its fit,
/// whichever is larger).
pub const EXPONENT_MARGIN: f64 = 1e-2;

/// Samples of `A` along the last stretch's impulse, where its first zero is bracketed before a
/// bisection to round-off.
const IMPULSE_SAMPLES: usize = 64;

/// At `p₁` the slip speed is resolved from zero above this fraction of the speed scale (the
/// integrator's error in it is a few tolerances relative to that scale).
pub const SPEED_RESOLVED: f64 = 1e-7;

/// Accepted steps of one desingularised run (it converges geometrically to `p₁`).
pub const MAX_STEPS: usize = 200_000;

/// A constraint held closed while contact 0 slips.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Held {
    /// Contact `j` closed in its normal direction, its force along `w_n − σμ w_t` (slipping in
    /// direction `σ`; `σ = 0` for a frictionless contact or a joint limit).
    Normal(usize, f64),
    /// Contact `j` stuck: closed in both directions.
    Stuck(usize),
}

/// The closed contacts other than 0 in `mode`, as [`Held`] constraints.
pub fn held_in(mode: &Modes) -> Vec<Held> {
    (1..mode.len())
        .filter_map(|j| match mode.get(j) {
            ContactMode::Free => None,
            ContactMode::Stick => Some(Held::Stuck(j)),
            ContactMode::Slip(s) => Some(Held::Normal(j, s as f64)),
        })
        .collect()
}

/// Contact 0 slipping in direction `σ` with the constraints [`Held`] closed: P2's `A` and `B`,
/// the magnitudes of their terms, and the accelerations and held forces affine in `f_n`.
#[derive(Debug, Clone)]
pub struct SlipParts {
    /// `A`: `a_n = −A + B f_n` (eq. 21).
    pub a: f64,
    /// `B`.
    pub b: f64,
    /// `|A(q, 0)| + |A(q, q̇) − A(q, 0)|`: its position-only and velocity parts, which cancel at `A = 0`.
    pub a_scale: f64,
    /// `d + μ|c|` with `B = d − σμc`.
    pub b_scale: f64,
    /// `q̈` with no force at contact 0.
    pub accel_free: DVector<f64>,
    /// `q̈` per unit normal force at contact 0 (with its friction `−σμ f_n`).
    pub accel_per_force: DVector<f64>,
    /// The held constraints' forces (one per row: a stuck contact has two) with no force at 0.
    pub held_free: DVector<f64>,
    /// Their change per unit normal force at contact 0.
    pub held_per_force: DVector<f64>,
}

/// [`SlipParts`] at `(t, q, q̇)` (module docs of [`super`] for the signs); `None` if `M` is not
/// positive definite or the held constraints are dependent.
pub fn slip_parts<S: ContactSystem>(
    sys: &S,
    t: f64,
    q: &DVector<f64>,
    v: &DVector<f64>,
    sigma: f64,
    held: &[Held],
) -> Option<SlipParts> {
    let chol = sys.mass_matrix(q).cholesky()?;
    let (wn, wt, (wn_dot_v, _)) = sys.contact_rows(0, q, v);
    // Held rows J (with J̇q̇) and the force directions F they take.
    let (mut rows, mut forces, mut jdot) = (Vec::new(), Vec::new(), Vec::new());
    for h in held {
        match *h {
            Held::Normal(j, s) => {
                let (n, tj, (dn, _)) = sys.contact_rows(j, q, v);
                forces.push(if s == 0.0 { n.clone() } else { &n - tj * (s * sys.law(j).mu) });
                rows.push(n);
                jdot.push(dn);
            }
            Held::Stuck(j) => {
                let (n, tj, (dn, dt)) = sys.contact_rows(j, q, v);
                forces.extend([n.clone(), tj.clone()]);
                rows.extend([n, tj]);
                jdot.extend([dn, dt]);
            }
        }
    }
    let k = rows.len();
    let minv_f: Vec<DVector<f64>> = forces.iter().map(|f| chol.solve(f)).collect();
    let g = DMatrix::from_fn(k, k, |r, c| rows[r].dot(&minv_f[c]));
    let g_lu = g.lu();
    // Dependent held rows (to round-off of the largest pivot) have no unique forces.
    let pivots = g_lu.u().diagonal().abs();
    if k > 0 && (pivots.min().is_nan() || pivots.min() <= 1e-13 * pivots.max()) {
        return None;
    }
    // q̈ = M⁻¹(f + Fλ) with J q̈ + c = 0: λ = −(J M⁻¹F)⁻¹(J M⁻¹f + c).
    let solve = |f: &DVector<f64>, c: Option<&[f64]>| -> Option<(DVector<f64>, DVector<f64>)> {
        let mf = chol.solve(f);
        if k == 0 {
            return Some((mf, DVector::zeros(0)));
        }
        let rhs = DVector::from_fn(k, |r, _| rows[r].dot(&mf) + c.map_or(0.0, |c| c[r]));
        let lam = -g_lu.solve(&rhs)?;
        let acc = minv_f.iter().zip(lam.iter()).fold(mf.clone(), |a, (x, l)| a + x * *l);
        Some((acc, lam))
    };
    let mu = sys.law(0).mu;
    let h0 = sys.bias(t, q, &DVector::zeros(q.len()));
    let h = sys.bias(t, q, v);
    let (acc0, _) = solve(&h0, None)?;
    let (accel_free, held_free) = solve(&h, Some(&jdot))?;
    let (acc_n, held_n) = solve(&wn, None)?;
    let (acc_t, held_t) = solve(&wt, None)?;
    let a0 = -wn.dot(&acc0);
    let av = -wn.dot(&(&accel_free - acc0)) - wn_dot_v;
    let (d, c) = (wn.dot(&acc_n), mu * wn.dot(&acc_t));
    Some(SlipParts {
        a: a0 + av,
        b: d - sigma * c,
        a_scale: a0.abs() + av.abs(),
        b_scale: d + c.abs(),
        accel_free,
        accel_per_force: acc_n - acc_t * (sigma * mu),
        held_free,
        held_per_force: held_n - held_t * (sigma * mu),
    })
}

/// How the desingularised run ended (module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reading {
    /// The slip speed reached zero (stick or reversal).
    SlipStopped,
    /// `A` reached zero with `B > 0` (separation).
    AReachedZero,
    /// Converged to `p₁` (`A = B = 0`) still slipping (jam), or with the slip speed not resolved
    /// from zero (corner).
    ReachedP1,
    /// `B` reached its floor with the force `A/B` falling (`d ln A / d ln B > 1`): `A` vanishes
    /// first, below the resolution of `B` (separation).
    AVanishesFirst,
    /// `B` reached its floor with `A/B` bounded and neither rising nor falling within the
    /// exponent's margin (corner: a start on the separatrix, or `μ` at `μ_c`).
    Balanced,
    /// `B` reached its floor with `A/B` bounded and too few steps near the floor to read its
    /// trend (unresolved).
    NoTrend,
    /// Another contact struck.
    OtherContact,
    /// A stuck contact's force left its friction cone, a held contact's slip stopped, or the
    /// parts (`M`, the held rows) could not be computed.
    HeldReleased,
    /// [`MAX_STEPS`], the time bound, or the integrator's smallest step.
    Budget,
}

/// The evidence for the end of a slip read in desingularised time (module docs).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Approach {
    /// How the run ended.
    pub reading: Reading,
    /// Time at which the desingularised run took over.
    pub t_switch: f64,
    /// `B` relative to its terms there.
    pub b_rel_switch: f64,
    /// The rescaled time `s` at the end (`dt = (B/B₀) ds`).
    pub s_end: f64,
    /// `A` relative to the magnitude of its terms at the end.
    pub a_rel: f64,
    /// `B` relative to the magnitude of its terms at the end.
    pub b_rel: f64,
    /// The slip speed `σ ẋ` at the end (positive while slipping).
    pub slip_speed: f64,
    /// The slip speed relative to the speed scale (length scale / time scale).
    pub slip_speed_rel: f64,
    /// The largest `f_n = A/B` at the run's accepted steps.
    pub fn_max: f64,
    /// The normal impulse of the last stretch at `B = 0` (module docs), if the run got there.
    pub impulse: Option<f64>,
    /// `f_n` relative to the force scale of `A` and `B`'s terms where `B` reached its floor.
    pub force_rel: f64,
    /// `d ln A / d ln B` and its standard error over the steps within [`TREND_WINDOW`] of the
    /// floor (`< 1`: the force grows without bound as `B → 0`).
    pub exponent: Option<(f64, f64)>,
    /// Accepted steps.
    pub steps: usize,
}

impl Approach {
    /// The evidence of a run that takes over at `t_switch`, before its first step.
    pub fn starting(t_switch: f64) -> Self {
        Approach {
            reading: Reading::HeldReleased,
            t_switch,
            b_rel_switch: f64::NAN,
            s_end: 0.0,
            a_rel: f64::NAN,
            b_rel: f64::NAN,
            slip_speed: f64::NAN,
            slip_speed_rel: f64::NAN,
            fn_max: 0.0,
            impulse: None,
            force_rel: f64::NAN,
            exponent: None,
            steps: 0,
        }
    }
}

/// The end of a desingularised run: outcome, time, state, evidence.
pub(super) struct End {
    pub outcome: SlipOutcome,
    pub t: f64,
    pub x: DMatrix<f64>,
    pub approach: Approach,
}

/// The rescaled state: `q`, `q̇`, and `t` in the first entry of the third column.
type Y = DMatrix<f64>;

fn stack(x: &DMatrix<f64>, t: f64) -> Y {
    let mut y = Y::zeros(x.nrows(), 3);
    y.columns_mut(0, 2).copy_from(x);
    y[(0, 2)] = t;
    y
}

fn unstack(y: &Y) -> (DMatrix<f64>, f64) {
    (y.columns(0, 2).into_owned(), y[(0, 2)])
}

struct Run<'a, S> {
    lag: &'a Lagrangian<S>,
    sigma: f64,
    held: Vec<Held>,
    /// `B₀`: the rescaling's constant.
    b0: f64,
    /// Contacts that are open and could strike.
    open: Vec<usize>,
    /// `A` and `B` relative to their terms are resolved from zero above this.
    floor: f64,
    speed_scale: f64,
}

/// The signed quantities whose zeros end the run, positive while it goes on: the slip speed, `A`
/// and `B` (relative to their terms), the open contacts' gaps, and the held forces' cones.
struct Signs {
    slip: f64,
    a: f64,
    b: f64,
    gaps: Vec<f64>,
    held: Vec<f64>,
    held_slip: Vec<f64>,
}

impl<S: ContactSystem> Run<'_, S> {
    fn sys(&self) -> &S {
        self.lag.system()
    }

    fn parts(&self, y: &Y) -> Option<SlipParts> {
        let (x, t) = unstack(y);
        let (q, v) = split(&x);
        slip_parts(self.sys(), t, &q, &v, self.sigma, &self.held)
    }

    fn field(&self, y: &Y) -> Y {
        let Some(p) = self.parts(y) else { return Y::repeat(y.nrows(), 3, f64::NAN) };
        let (x, _) = unstack(y);
        let (_, v) = split(&x);
        let r = p.b / self.b0;
        let dv = (p.accel_free * p.b + p.accel_per_force * p.a) / self.b0;
        let mut out = Y::zeros(y.nrows(), 3);
        out.column_mut(0).copy_from(&(v * r));
        out.column_mut(1).copy_from(&dv);
        out[(0, 2)] = r;
        out
    }

    fn signs(&self, y: &Y) -> Option<Signs> {
        let p = self.parts(y)?;
        let (x, _) = unstack(y);
        let (q, v) = split(&x);
        let sys = self.sys();
        let length = sys.length_scale();
        let gaps = self.open.iter().map(|&j| if sys.armed(j, &q) { sys.gap(j, &q) / length } else { 1.0 }).collect();
        // B λ_H = B λ_free + A λ_per_force has the sign of λ_H while B > 0.
        let lam = &p.held_free * p.b + &p.held_per_force * p.a;
        let mut held = Vec::new();
        let mut held_slip = Vec::new();
        let mut r = 0;
        for h in &self.held {
            match *h {
                Held::Normal(j, s) => {
                    held.push(lam[r]);
                    if s != 0.0 {
                        // A held contact slipping in direction s: its slip must not stop.
                        held_slip.push(s * sys.tangent_jacobian(j, &q).dot(&v));
                    }
                    r += 1;
                }
                Held::Stuck(j) => {
                    held.push(sys.law(j).mu * lam[r] - lam[r + 1].abs());
                    r += 2;
                }
            }
        }
        Some(Signs {
            slip: self.sigma * sys.tangent_jacobian(0, &q).dot(&v),
            a: p.a / p.a_scale,
            b: p.b / p.b_scale,
            gaps,
            held,
            held_slip,
        })
    }
}

impl<S: ContactSystem> Run<'_, S> {
    /// The held constraint (its index in `held`) whose force at `y` has left its cone, if it is
    /// one held in its normal direction only: it can open.
    fn releasable(&self, y: &Y) -> Option<usize> {
        let signs = self.signs(y)?;
        if signs.held_slip.iter().any(|u| *u <= 0.0) {
            return None;
        }
        let k = signs.held.iter().position(|h| *h < 0.0)?;
        matches!(self.held[k], Held::Normal(..)).then_some(k)
    }
}

/// Which sign ended the run.
#[derive(Clone, Copy, PartialEq)]
enum Ended {
    Slip,
    A,
    B,
    Gap,
    Held,
}

fn first_negative(s: &Signs, floor: f64) -> Option<Ended> {
    if s.slip <= 0.0 {
        Some(Ended::Slip)
    } else if s.a <= floor {
        Some(Ended::A)
    } else if s.b <= floor {
        Some(Ended::B)
    } else if s.gaps.iter().any(|g| *g <= -floor) {
        Some(Ended::Gap)
    } else if s.held.iter().any(|h| *h < 0.0) || s.held_slip.iter().any(|u| *u <= 0.0) {
        Some(Ended::Held)
    } else {
        None
    }
}

/// Runs the slip of contact 0 in desingularised time from `(t₀, x₀)` in `mode` (contact 0
/// slipping in direction `sigma`) until it ends (module docs); `trace` receives the accepted
/// steps as `(t, q, q̇, f_n)`.
pub(super) fn run<S: ContactSystem>(
    lag: &Lagrangian<S>,
    t0: f64,
    x0: &DMatrix<f64>,
    mode: &Modes,
    sigma: f64,
    settings: &SlipSettings,
    mut trace: Option<&mut Vec<TracePoint>>,
) -> End {
    let sys = lag.system();
    let held = held_in(mode);
    let open: Vec<usize> = (1..mode.len()).filter(|&j| !mode.get(j).closed()).collect();
    let time_scale = lag.time_scale();
    let speed_scale = sys.length_scale() / time_scale;
    let floor = RESOLVED * settings.rtol;
    let mut run = Run { lag, sigma, held, b0: 1.0, open, floor, speed_scale };
    let y0 = stack(x0, t0);
    let mut approach = Approach::starting(t0);
    let unresolved = |approach: Approach, outcome| End { outcome, t: t0, x: x0.clone(), approach };
    let Some(p0) = run.parts(&y0) else { return unresolved(approach, SlipOutcome::Unresolved) };
    approach.b_rel_switch = p0.b / p0.b_scale;
    if p0.b.is_nan() || p0.b <= 0.0 {
        return unresolved(approach, SlipOutcome::Unresolved);
    }
    run.b0 = p0.b;
    // The episode's budget runs from its start at t = 0, not from the hand-over.
    let t_max = settings.max_step_time * time_scale;
    // Every component needs a positive scale: the unused entries of the third column too.
    let mut scale = stack(&lag.state_scale(), time_scale);
    scale.column_mut(2).fill(time_scale);
    let tol = Tolerances { rtol: settings.rtol, atol: settings.rtol };
    let mut ode = Dopri5::new(tol, scale, time_scale);
    let (mut s, mut y) = (0.0, y0);
    // (ln B, ln A) relative to their terms at the steps within TREND_WINDOW of the floor.
    let mut tail: Vec<(f64, f64)> = Vec::new();
    let mut end: Option<(Reading, f64, Y)> = None;
    if ode.restart(&mut |_s: f64, y: &Y| run.field(y), s, &y).is_err() {
        end = Some((Reading::Budget, s, y.clone()));
    }
    while end.is_none() {
        if approach.steps >= MAX_STEPS || unstack(&y).1 > t_max {
            end = Some((Reading::Budget, s, y.clone()));
            break;
        }
        let step = match ode.step(&mut |_s: f64, y: &Y| run.field(y), s, &y, f64::INFINITY) {
            Ok(st) => st,
            Err(_) => {
                end = Some((Reading::Budget, s, y.clone()));
                break;
            }
        };
        approach.steps += 1;
        let Some(signs) = run.signs(&step.y1) else {
            end = Some((Reading::HeldReleased, step.t1(), step.y1.clone()));
            break;
        };
        if let Some(which) = first_negative(&signs, run.floor) {
            let (s_e, y_e) = locate(&run, &step);
            // Where the parts cannot be computed the run cannot go on: no event is read there.
            let Some(signs_e) = run.signs(&y_e) else {
                end = Some((Reading::HeldReleased, s_e, y_e));
                break;
            };
            let which = first_negative(&signs_e, run.floor).unwrap_or(which);
            // A held constraint whose normal force reaches zero opens (a knee unlocks, another
            // foot lifts): the run goes on without it.
            if let Some(k) = (which == Ended::Held).then(|| run.releasable(&y_e)).flatten() {
                let (Held::Normal(j, _) | Held::Stuck(j)) = run.held.remove(k);
                run.open.push(j);
                (s, y) = (s_e, y_e);
                // B of the new constraint set need not equal the old one's: the run goes on only
                // while it is resolved positive; the trend restarts with it.
                tail.clear();
                if run.parts(&y).is_none_or(|p| p.b <= run.floor * p.b_scale) {
                    end = Some((Reading::HeldReleased, s, y.clone()));
                } else if ode.restart(&mut |_s: f64, y: &Y| run.field(y), s, &y).is_err() {
                    end = Some((Reading::Budget, s, y.clone()));
                }
                continue;
            }
            end = Some((reading_of(which), s_e, y_e));
            break;
        }
        (s, y) = (step.t1(), step.y1.clone());
        if let Some(p) = run.parts(&y) {
            let (x, t) = unstack(&y);
            approach.fn_max = approach.fn_max.max(p.a / p.b);
            if let Some(tr) = trace.as_deref_mut() {
                let (q, v) = split(&x);
                tr.push((t, q.iter().copied().collect(), v.iter().copied().collect(), p.a / p.b));
            }
            let (a_rel, b_rel) = (p.a / p.a_scale, p.b / p.b_scale);
            if b_rel <= TREND_WINDOW * floor && a_rel > floor {
                tail.push((b_rel.ln(), a_rel.ln()));
            }
        }
    }
    let (mut reading, s_end, mut y_end) = end.expect("the loop ends with an end");
    approach.s_end = s_end;
    if reading == Reading::ReachedP1 {
        // B at its floor: the force's trend, then the last stretch in closed form.
        let f_rel = run.parts(&y_end).map_or(f64::NAN, |p| (p.a / p.a_scale) / (p.b / p.b_scale));
        approach.exponent = slope(&tail);
        approach.force_rel = f_rel;
        let side = match approach.exponent {
            _ if f_rel >= FORCE_DOMINANT => -1,
            None => 2,
            Some((e, se)) if e < 1.0 - EXPONENT_MARGIN.max(3.0 * se) => -1,
            Some((e, se)) if e > 1.0 + EXPONENT_MARGIN.max(3.0 * se) => 1,
            _ => 0,
        };
        match side {
            2 => reading = Reading::NoTrend,
            1 => reading = Reading::AVanishesFirst,
            0 => reading = Reading::Balanced,
            _ => match last_stretch(&run, &y_end) {
                Some((r, p, y)) => {
                    (reading, y_end) = (r, y);
                    approach.impulse = Some(p);
                }
                None => reading = Reading::HeldReleased,
            },
        }
    }
    let (x, t) = unstack(&y_end);
    let (q, v) = split(&x);
    approach.reading = reading;
    let struck = (reading == Reading::OtherContact)
        .then(|| {
            run.open.iter().copied().find(|&j| sys.armed(j, &q) && sys.gap(j, &q) / sys.length_scale() <= -run.floor)
        })
        .flatten();
    if let Some(p) = run.parts(&y_end) {
        approach.a_rel = p.a / p.a_scale;
        approach.b_rel = p.b / p.b_scale;
    }
    approach.slip_speed = sigma * sys.tangent_jacobian(0, &q).dot(&v);
    approach.slip_speed_rel = approach.slip_speed / run.speed_scale;
    let outcome = match reading {
        Reading::SlipStopped => after_stop(lag, t, &x),
        Reading::AReachedZero | Reading::AVanishesFirst => SlipOutcome::Separation,
        Reading::Balanced => SlipOutcome::Corner,
        Reading::ReachedP1 if approach.slip_speed_rel > SPEED_RESOLVED => SlipOutcome::Jam,
        Reading::ReachedP1 => SlipOutcome::Corner,
        // As the event-driven run: a strike of contact 1 (a walker's swing foot) ends the episode
        // as an impact; the rescaled run does not take other impacts (unresolved).
        Reading::OtherContact if struck == Some(1) => SlipOutcome::Impact,
        _ => SlipOutcome::Unresolved,
    };
    End { outcome, t, x, approach }
}

/// The last stretch of an approach at `B = 0` from `y` (module docs): the impulse `P` along
/// `a₁` at fixed `q` to the first zero of `A` (`p₁`) or of the slip speed, whichever comes
/// first; the reading, `P` and the state there. `None` if the parts cannot be computed or `A`
/// has no zero along a slip that does not stop.
fn last_stretch<S: ContactSystem>(run: &Run<'_, S>, y: &Y) -> Option<(Reading, f64, Y)> {
    let p = run.parts(y)?;
    let (x, t) = unstack(y);
    let (q, v) = split(&x);
    let sys = run.sys();
    let wt = sys.tangent_jacobian(0, &q);
    let (u0, du) = (run.sigma * wt.dot(&v), run.sigma * wt.dot(&p.accel_per_force));
    let at = |imp: f64| {
        let mut z = y.clone();
        z.column_mut(1).copy_from(&(&v + &p.accel_per_force * imp));
        z
    };
    let a_of = |imp: f64| {
        let vi = &v + &p.accel_per_force * imp;
        slip_parts(sys, t, &q, &vi, run.sigma, &run.held).map(|pp| pp.a)
    };
    // The impulse that stops the slip, if it decelerates; otherwise one that takes A to zero at
    // its rate at P = 0 (a difference over an impulse changing the velocities by 1e-6 of their
    // scales), doubled until A is no longer positive.
    let v_scale = run.lag.state_scale().column(1).into_owned();
    let reach = p.accel_per_force.component_div(&v_scale).amax();
    if reach.is_nan() || reach <= 0.0 {
        return None;
    }
    let probe = 1e-6 / reach;
    let slope = (a_of(probe)? - p.a) / probe;
    let stop = if du < 0.0 { u0 / -du } else { f64::INFINITY };
    let mut end = if stop.is_finite() {
        stop
    } else if slope < 0.0 {
        p.a / -slope
    } else {
        return None;
    };
    let mut doublings = 0;
    while !stop.is_finite() && a_of(end)? > 0.0 {
        end *= 2.0;
        doublings += 1;
        if doublings > 60 {
            return None;
        }
    }
    // The first zero of A on (0, end], bracketed on a grid and bisected.
    let mut lo = 0.0;
    let mut hi = None;
    for k in 1..=IMPULSE_SAMPLES {
        let imp = end * k as f64 / IMPULSE_SAMPLES as f64;
        if a_of(imp)? <= 0.0 {
            hi = Some(imp);
            break;
        }
        lo = imp;
    }
    let Some(hi) = hi else { return Some((Reading::SlipStopped, stop, at(stop))) };
    let zero = bisect(lo, hi, Tol::ROUNDOFF, |m| a_of(m).map_or(Side::Stop, |a| side_if(a.is_nan() || a <= 0.0)));
    if zero.stopped {
        return None;
    }
    Some((Reading::ReachedP1, zero.lo, at(zero.lo)))
}

fn reading_of(e: Ended) -> Reading {
    match e {
        Ended::Slip => Reading::SlipStopped,
        Ended::A => Reading::AReachedZero,
        Ended::B => Reading::ReachedP1,
        Ended::Gap => Reading::OtherContact,
        Ended::Held => Reading::HeldReleased,
    }
}

/// The first zero of the run's signs in `step` (bisection on the dense output to round-off):
/// the rescaled time and state there.
fn locate<S: ContactSystem>(run: &Run<'_, S>, step: &Step<Y>) -> (f64, Y) {
    let ends = |s: f64| run.signs(&step.eval(s)).is_none_or(|g| first_negative(&g, run.floor).is_some());
    let hi = bisect(step.t0, step.t1(), Tol::ROUNDOFF, |m| side_if(ends(m))).hi;
    (hi, step.eval(hi))
}

/// Stick or reversal where the slip speed reached zero: the mode the core starts in there.
fn after_stop<S: ContactSystem>(lag: &Lagrangian<S>, t: f64, x: &DMatrix<f64>) -> SlipOutcome {
    let mut x = x.clone();
    match lag.initial_mode(t, &mut x) {
        Ok(m) => match m.get(0) {
            ContactMode::Stick => SlipOutcome::Stick,
            ContactMode::Slip(_) => SlipOutcome::Reversal,
            ContactMode::Free => SlipOutcome::Separation,
        },
        Err(_) => SlipOutcome::Unresolved,
    }
}

/// Least-squares slope of `y` on `x` and its standard error; `None` below three points or when
/// the `x` do not vary.
pub(crate) fn slope(pts: &[(f64, f64)]) -> Option<(f64, f64)> {
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
