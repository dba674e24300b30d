//! Basins of attraction of a mechanism's gaits (`contactlab basin`): from a grid of states on
//! the gait's section, run `K` strikes and say where each start goes.
//!
//! # The grid
//! The section is [`super::gait`]'s: states right after a strike of the `[gait]`'s contact.
//! The grid varies one or two of its coordinates (`stance.theta`, `stance.theta_dot`, ...: a
//! position by its coordinate's name, a velocity by the name with `_dot`), every other
//! coordinate of the section chart at the base state's value (by default the most stable gait
//! [`find_gaits`] finds; or a state the user gives). The contacts closed at the base state stay
//! closed, and the velocity constraints holding there (the stance foot at rest) hold at every
//! cell: the dependent coordinates follow ([`StrikeChart::keeping`] makes the varied ones free).
//! A cell where the constraints cannot be met, or where an armed contact would start inside
//! its support, is `no-state`.
//!
//! # Outcomes
//! Each cell runs the event-driven core (the walking rules, impacts, Zeno completion) until one
//! of these, in this order of precedence:
//! - `gait k`: a post-strike state comes within `capture_tol` (relative to the chart's scales)
//!   of the stable gait `k`'s fixed point: inside its linearisation's domain, the multipliers
//!   (all of modulus < 1) carry it in;
//! - `fell`: the centre of mass comes nearer to the strike contact's support line than
//!   `fall_height` times its height at the base state (a walker on its face or its back);
//! - `slipped`: no strike for the model's longest step time while a contact slips (the stance
//!   foot slides away);
//! - `stopped`: the run reached rest, or no strike for the longest step time with less than
//!   `10⁻⁶` of the base state's kinetic energy left;
//! - `fell` again: no strike for the longest step time otherwise (falling backwards, rocking);
//! - `painleve`: no consistent contact mode, or several (Painlevé's inconsistency or
//!   indeterminacy; for an idealised walker also a degenerate double contact, such as a strike
//!   with the legs together, whose verdict can depend on the integration tolerance); `jammed`:
//!   a dynamic jam ([`crate::hybrid::FailureKind`]);
//! - `zeno`: the event limit (50 per strike) reached without the strikes: an accumulation the
//!   Zeno completion could not close;
//! - `failed`: the integrator or the impact law failed (the run's termination says why);
//! - after `K` strikes: `period-p` when the last post-strike states repeat with period `p ≤ 8`
//!   to `settle_tol` (period 1 at a known gait is that gait), else `walking` (still walking,
//!   not settled: slow convergence or a chaotic attractor).
//!
//! Cells run in parallel (rayon); [`basin_cells`] evaluates any list of cells against a
//! [`BasinPlan`] (the base state and the gaits), which is how the Python package spreads a
//! large basin over a Dask cluster: the plan is computed once, the chunks anywhere.

use std::ops::ControlFlow;
use std::sync::atomic::{AtomicU64, Ordering};

use nalgebra::{DVector, Vector2};
use serde::{Deserialize, Serialize};

use super::gait::{driver_for, find_gaits, gait_from, Gait, GaitSettings, GaitSpec, StrikeChart, MAX_STEPS_PER_STRIKE};
use super::Mechanism;
use crate::hybrid::driver::EventRecord;
use crate::hybrid::lagrangian::{join, split, ContactMode, Lagrangian, Modes};
use crate::hybrid::section::SectionChart;
use crate::hybrid::{EventKind, FailureKind, Observer, Step, Termination};
use crate::mechanics::multibody_system::{Constraint, MultibodySystem};
use crate::mechanics::ContactSystem;
use crate::Error;

/// Most cells of one basin.
pub const MAX_CELLS: usize = 10_000_000;
/// Most strikes per cell.
pub const MAX_STRIKES: usize = 100_000;
/// Longest period recognised at the end of a run.
pub const MAX_PERIOD: usize = 8;
/// Events allowed per strike before a run counts as Zeno.
pub const EVENTS_PER_STRIKE: usize = 50;

/// One varied coordinate: `n` values from `lo` to `hi`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BasinAxis {
    /// A section coordinate: a coordinate's name (`stance.theta`), or with `_dot` its rate.
    pub name: String,
    /// First value (rad or m; per s for a rate).
    pub lo: f64,
    /// Last value.
    pub hi: f64,
    /// Number of values (≥ 1; one value is `lo`).
    pub n: usize,
}

impl BasinAxis {
    /// `NAME=LO:HI:N`.
    pub fn parse(s: &str) -> Result<Self, Error> {
        let bad =
            || Error::argument("vary", format!("expected NAME=LO:HI:N (e.g. stance.theta=0.1:0.3:101), got '{s}'"));
        let (name, rest) = s.split_once('=').ok_or_else(bad)?;
        let parts: Vec<&str> = rest.split(':').collect();
        if parts.len() != 3 || name.trim().is_empty() {
            return Err(bad());
        }
        let lo: f64 = parts[0].trim().parse().map_err(|_| bad())?;
        let hi: f64 = parts[1].trim().parse().map_err(|_| bad())?;
        let n: usize = parts[2].trim().parse().map_err(|_| bad())?;
        let axis = BasinAxis { name: name.trim().to_string(), lo, hi, n };
        axis.validate()?;
        Ok(axis)
    }

    /// Checks the range (finite, `lo < hi` unless `n = 1`, `n ≥ 1`).
    pub fn validate(&self) -> Result<(), Error> {
        let what = format!("vary {}", self.name);
        if !(self.lo.is_finite() && self.hi.is_finite()) {
            return Err(Error::argument(what, "the range must be finite"));
        }
        if self.n == 0 || self.n > MAX_CELLS {
            return Err(Error::argument(
                what,
                format!("the number of values must be in 1..={MAX_CELLS} (got {})", self.n),
            ));
        }
        if self.n > 1 && self.lo >= self.hi {
            return Err(Error::argument(what, format!("needs lo < hi (got {} and {})", self.lo, self.hi)));
        }
        Ok(())
    }

    /// The values, `lo` to `hi` evenly.
    pub fn values(&self) -> Vec<f64> {
        if self.n == 1 {
            return vec![self.lo];
        }
        (0..self.n).map(|k| self.lo + (self.hi - self.lo) * k as f64 / (self.n - 1) as f64).collect()
    }
}

/// Settings of a basin.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct BasinSettings {
    /// Strikes per cell (`K`).
    pub steps: usize,
    /// A post-strike state this near a stable gait (relative to the chart's scales) is captured.
    pub capture_tol: f64,
    /// Successive periods agree to this (relative) for a `period-p` verdict.
    pub settle_tol: f64,
    /// A fall: the centre of mass below this fraction of its height at the base state.
    pub fall_height: f64,
    /// Relative integration tolerance.
    pub rtol: f64,
    /// Longest step, in units of the model's time scale (a run with no strike for this long
    /// has stopped walking).
    pub max_step_time: f64,
    /// The grid lies on the section just before the strike (the strike contact touching and
    /// approaching its line), each cell's run starting with the strike: the grid then spans
    /// only states a strike produces (module docs).
    pub before_strike: bool,
}

impl Default for BasinSettings {
    fn default() -> Self {
        Self {
            steps: 60,
            capture_tol: 1e-4,
            settle_tol: 1e-6,
            fall_height: 0.5,
            rtol: 1e-9,
            max_step_time: 10.0,
            before_strike: false,
        }
    }
}

impl BasinSettings {
    /// Checks every setting (an error names the first out of range).
    pub fn validate(&self) -> Result<(), Error> {
        use crate::error::{fraction, positive};
        if self.steps == 0 || self.steps > MAX_STRIKES {
            return Err(Error::argument("steps", format!("must be in 1..={MAX_STRIKES} (got {})", self.steps)));
        }
        fraction("capture_tol", self.capture_tol)?;
        fraction("settle_tol", self.settle_tol)?;
        fraction("fall_height", self.fall_height)?;
        fraction("rtol", self.rtol)?;
        positive("max_step_time", self.max_step_time)?;
        Ok(())
    }

    fn gait(&self) -> GaitSettings {
        GaitSettings { rtol: self.rtol, max_step_time: self.max_step_time, ..Default::default() }
    }
}

/// What a basin's cells are measured against: the base state on the section and the gaits
/// that name outcomes (computed once by [`plan`], shared by every chunk of cells).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BasinPlan {
    /// The varied section coordinates, in grid order (the first varies fastest).
    pub vary: Vec<String>,
    /// The base state `q` (a post-strike state, or a pre-strike one with
    /// [`BasinSettings::before_strike`]): the unvaried coordinates keep its values.
    pub q: Vec<f64>,
    /// Its `q̇`.
    pub v: Vec<f64>,
    /// A post-strike state `[q | q̇]` (the base, or its strike's image): the chart in which
    /// strikes are compared with the gaits and with each other is made there.
    pub post: Vec<f64>,
    /// The stable gaits, as post-strike states `[q | q̇]`: outcome `gait k` is the `k`-th.
    pub gaits: Vec<Vec<f64>>,
    /// Their periods (s).
    pub periods: Vec<f64>,
    /// The settings.
    pub settings: BasinSettings,
}

/// Where a cell went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "outcome", content = "index")]
pub enum Outcome {
    /// Captured by the plan's stable gait `k`.
    Gait(usize),
    /// Settled onto a period-`p` orbit (`p ≥ 2`, or a period-1 orbit that is not a known gait).
    Period(usize),
    /// Still walking after `K` strikes, not settled.
    Walking,
    /// Fell (module docs).
    Fell,
    /// A contact slid away.
    Slipped,
    /// Came to rest.
    Stopped,
    /// No consistent contact mode, or several (Painlevé's inconsistency or indeterminacy).
    Painleve,
    /// A dynamic jam (a slipping contact reached `B = 0`).
    Jammed,
    /// An accumulation of events the Zeno completion could not close.
    Zeno,
    /// The integrator or the impact law failed.
    Failed,
    /// The cell is not a state on the section.
    NoState,
}

impl Outcome {
    /// Its label (`gait 0`, `period-2`, `fell`, ...).
    pub fn label(&self) -> String {
        match self {
            Outcome::Gait(k) => format!("gait {k}"),
            Outcome::Period(p) => format!("period-{p}"),
            Outcome::Walking => "walking".into(),
            Outcome::Fell => "fell".into(),
            Outcome::Slipped => "slipped".into(),
            Outcome::Stopped => "stopped".into(),
            Outcome::Painleve => "painleve".into(),
            Outcome::Jammed => "jammed".into(),
            Outcome::Zeno => "zeno".into(),
            Outcome::Failed => "failed".into(),
            Outcome::NoState => "no-state".into(),
        }
    }
}

/// One cell.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BasinCell {
    /// The varied coordinates' values.
    pub values: Vec<f64>,
    /// Where it went.
    pub outcome: Outcome,
    /// Strikes taken.
    pub strikes: usize,
    /// Time simulated (s): the capturing strike's time, or when the run ended (a fall is seen at
    /// the end of an integration step).
    pub t: f64,
}

/// A basin: the grid, its cells and the fraction of cells per outcome.
#[derive(Debug, Clone, Serialize)]
pub struct Basin {
    /// The grid's axes.
    pub axes: Vec<BasinAxis>,
    /// The base state and gaits.
    pub plan: BasinPlan,
    /// The gaits found (when the search ran): the stable ones are the plan's.
    pub gaits: Vec<Gait>,
    /// `(label, fraction of cells)`, largest first.
    pub fractions: Vec<(String, f64)>,
    /// The cells, the first axis varying fastest.
    pub cells: Vec<BasinCell>,
}

/// The plan of a basin over `vary`: the base state (`state = (q, q̇)`, a post-strike state,
/// or the most stable gait found) and the stable gaits (found from nothing, plus the one given).
pub fn plan(
    m: &Mechanism,
    vary: &[String],
    state: Option<(&[f64], &[f64])>,
    settings: &BasinSettings,
) -> Result<(BasinPlan, Vec<Gait>), Error> {
    settings.validate()?;
    let spec = gait_spec(m)?;
    if vary.is_empty() || vary.len() > 2 {
        return Err(Error::argument("vary", format!("give one or two section coordinates, got {}", vary.len())));
    }
    let gs = settings.gait();
    let search = find_gaits(m, &gs)?;
    let mut gaits: Vec<Gait> = search.gaits.clone();
    let base = match state {
        Some((q, v)) => {
            m.check_state("state", q)?;
            m.check_state("state", v)?;
            // A gait through the given (post-strike) state joins the list.
            if !settings.before_strike {
                if let Some(g) = gait_from(m, q, v, &gs)? {
                    if g.stable && !gaits.iter().any(|h| same_state(m, &spec, h, &g)) {
                        gaits.push(g);
                    }
                }
            }
            [q, v].concat()
        }
        None => {
            let g = search.gaits.first().ok_or_else(|| {
                Error::Numerical(format!(
                    "{}: {}; give the base state (--state)",
                    m.source,
                    search.reason.clone().unwrap_or_else(|| "no gait found".into())
                ))
            })?;
            let post = [g.q.as_slice(), g.v.as_slice()].concat();
            if settings.before_strike {
                strike_from(m, &post, settings)?.0
            } else {
                post
            }
        }
    };
    let post = if settings.before_strike { strike_from(m, &base, settings)?.1 } else { base.clone() };
    let n = m.dof();
    let stable: Vec<&Gait> = gaits.iter().filter(|g| g.stable).collect();
    let plan = BasinPlan {
        vary: vary.to_vec(),
        q: base[..n].to_vec(),
        v: base[n..].to_vec(),
        post,
        gaits: stable.iter().map(|g| g.q.iter().chain(&g.v).copied().collect()).collect(),
        periods: stable.iter().map(|g| g.period).collect(),
        settings: *settings,
    };
    // Refuse names and charts before any cell runs.
    check_plan(m, &plan)?;
    Ok((plan, gaits))
}

/// The states just before and just after the first strike of the run from `x = [q | q̇]`.
fn strike_from(m: &Mechanism, x: &[f64], settings: &BasinSettings) -> Result<(Vec<f64>, Vec<f64>), Error> {
    struct First<'a>(&'a [f64], GaitSettings, usize);
    impl First<'_> {
        fn run(self, sys: MultibodySystem) -> Option<(Vec<f64>, Vec<f64>)> {
            let n = sys.dof();
            struct Catch(usize, Option<(State, State)>);
            impl Observer<State, Modes> for Catch {
                fn on_event(&mut self, ev: &EventRecord<State, Modes>) -> ControlFlow<()> {
                    if ev.info.kind == EventKind::Impact && ev.info.contact == Some(self.0) {
                        self.1 = Some((ev.before.clone(), ev.after.clone()));
                        return ControlFlow::Break(());
                    }
                    ControlFlow::Continue(())
                }
            }
            let lag = Lagrangian::new(&sys);
            let x = join(
                &DVector::<f64>::from_column_slice(&self.0[..n]),
                &DVector::<f64>::from_column_slice(&self.0[n..]),
            );
            let mut c = Catch(self.2, None);
            let t = self.1.max_step_time * sys.time_scale();
            driver_for(&self.1, t, EVENTS_PER_STRIKE, MAX_STEPS_PER_STRIKE).run(&lag, 0.0, x, &[], &mut c);
            let flat = |x: &State| -> Vec<f64> { x.column(0).iter().chain(x.column(1).iter()).copied().collect() };
            c.1.map(|(b, a)| (flat(&b), flat(&a)))
        }
    }
    let spec = gait_spec(m)?;
    First(x, settings.gait(), spec.strike).run(m.system()?).ok_or_else(|| {
        Error::Numerical(format!(
            "{}: no strike of '{}' within {} time units of the base state",
            m.source, m.contact_names[spec.strike], settings.max_step_time
        ))
    })
}

fn same_state(m: &Mechanism, spec: &GaitSpec, a: &Gait, b: &Gait) -> bool {
    let n = m.dof();
    (0..n).filter(|k| !spec.translation.contains(k)).all(|k| (a.q[k] - b.q[k]).abs() <= 1e-6 * (1.0 + a.q[k].abs()))
        && (0..n).all(|k| (a.v[k] - b.v[k]).abs() <= 1e-6 * (1.0 + a.v[k].abs()))
}

fn gait_spec(m: &Mechanism) -> Result<GaitSpec, Error> {
    m.gait.clone().ok_or_else(|| {
        Error::input(
            &m.source,
            "gait",
            "missing; a basin needs a [gait] table naming the striking contact (strike = \"...\")",
        )
    })
}

/// The names of `[q | q̇]`: each coordinate's, then each with `_dot`.
fn state_names(m: &Mechanism) -> Vec<String> {
    m.coordinates.iter().cloned().chain(m.coordinates.iter().map(|c| format!("{c}_dot"))).collect()
}

/// Indices into `[q | q̇]` of the plan's varied coordinates.
fn varied(m: &Mechanism, vary: &[String]) -> Result<Vec<usize>, Error> {
    let names = state_names(m);
    let mut out = vec![];
    for name in vary {
        let k = names.iter().position(|c| c == name).ok_or_else(|| {
            Error::argument("vary", format!("no section coordinate '{name}'; the model has: {}", names.join(", ")))
        })?;
        if out.contains(&k) {
            return Err(Error::argument("vary", format!("'{name}' is given twice")));
        }
        out.push(k);
    }
    Ok(out)
}

/// Checks a plan against its mechanism: the states' sizes, the names, and that the section
/// constraints leave the varied coordinates free.
pub fn check_plan(m: &Mechanism, plan: &BasinPlan) -> Result<(), Error> {
    plan.settings.validate()?;
    m.check_state("plan.q", &plan.q)?;
    m.check_state("plan.v", &plan.v)?;
    if plan.post.len() != 2 * m.dof() || plan.post.iter().any(|x| !x.is_finite()) {
        return Err(Error::argument("plan.post", format!("needs {} finite numbers", 2 * m.dof())));
    }
    for g in &plan.gaits {
        if g.len() != 2 * m.dof() || g.iter().any(|x| !x.is_finite()) {
            return Err(Error::argument("plan.gaits", format!("each gait needs {} finite numbers", 2 * m.dof())));
        }
    }
    Cells { m, plan, points: &[], progress: &|_, _| {} }.run(m.system()?).map(|_| ())
}

/// Evaluates the cells at `points` (each one value per varied coordinate) against `plan`, in
/// parallel; `progress(done, total)` from worker threads.
pub fn basin_cells(
    m: &Mechanism,
    plan: &BasinPlan,
    points: &[Vec<f64>],
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<Vec<BasinCell>, Error> {
    check_cells(plan, points)?;
    Cells { m, plan, points, progress }.run(m.system()?)
}

/// The grid spanned by `axes`, the first varying fastest.
pub fn grid(axes: &[BasinAxis]) -> Vec<Vec<f64>> {
    match axes {
        [a] => a.values().into_iter().map(|x| vec![x]).collect(),
        [a, b] => {
            let (xs, ys) = (a.values(), b.values());
            ys.iter().flat_map(|&y| xs.iter().map(move |&x| vec![x, y])).collect()
        }
        _ => vec![],
    }
}

/// The basin of `m` over the grid `axes` (module docs).
pub fn basin(
    m: &Mechanism,
    axes: &[BasinAxis],
    state: Option<(&[f64], &[f64])>,
    settings: &BasinSettings,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<Basin, Error> {
    let names = check_axes(axes)?;
    let (plan, gaits) = plan(m, &names, state, settings)?;
    let cells = basin_cells(m, &plan, &grid(axes), progress)?;
    Ok(Basin { axes: axes.to_vec(), fractions: fractions(&cells), plan, gaits, cells })
}

/// Checks a grid's axes (each valid, at most [`MAX_CELLS`] cells in all) and returns their
/// names.
pub(crate) fn check_axes(axes: &[BasinAxis]) -> Result<Vec<String>, Error> {
    for a in axes {
        a.validate()?;
    }
    let cells_n: usize = axes.iter().map(|a| a.n).product();
    if cells_n > MAX_CELLS {
        return Err(Error::argument("vary", format!("{cells_n} cells; at most {MAX_CELLS}")));
    }
    Ok(axes.iter().map(|a| a.name.clone()).collect())
}

/// The fraction of cells per outcome label, largest first.
pub fn fractions(cells: &[BasinCell]) -> Vec<(String, f64)> {
    let mut counts: Vec<(String, usize)> = vec![];
    for c in cells {
        let l = c.outcome.label();
        match counts.iter_mut().find(|(k, _)| *k == l) {
            Some(e) => e.1 += 1,
            None => counts.push((l, 1)),
        }
    }
    counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let n = cells.len().max(1) as f64;
    counts.into_iter().map(|(l, c)| (l, c as f64 / n)).collect()
}

struct Cells<'a> {
    m: &'a Mechanism,
    plan: &'a BasinPlan,
    points: &'a [Vec<f64>],
    progress: &'a (dyn Fn(u64, u64) + Sync),
}

type State = nalgebra::DMatrix<f64>;

/// Why a cell's run was stopped by its observer.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Stop {
    /// A strike landed near the stable gait `k`.
    Captured(usize),
    /// The centre of mass fell below the fall height.
    Fell,
    /// No strike for `max_step_time`.
    NoStrike,
    /// `steps` strikes taken.
    Done,
}

/// How a cell's run ended, as its observer saw it.
struct Ended {
    /// Why the observer stopped it (`None`: the run ended by itself).
    stop: Option<Stop>,
    /// A contact was slipping at the last step.
    slipping: bool,
    /// The kinetic energy at the end is below 1e-6 of the base state's.
    at_rest: bool,
}

impl Ended {
    /// The cell's outcome (module docs): `points` are the post-strike chart points of the run,
    /// `gaits` the stable gaits' in the same chart with its `scale`.
    fn outcome(
        &self,
        termination: &Termination,
        points: &[DVector<f64>],
        scale: &DVector<f64>,
        gaits: &[DVector<f64>],
        s: &BasinSettings,
    ) -> Outcome {
        match (self.stop, termination) {
            (Some(Stop::Captured(k)), _) => Outcome::Gait(k),
            (Some(Stop::Fell), _) => Outcome::Fell,
            (Some(Stop::NoStrike), _) if self.slipping => Outcome::Slipped,
            (Some(Stop::NoStrike), _) if self.at_rest => Outcome::Stopped,
            (Some(Stop::NoStrike), _) => Outcome::Fell,
            (Some(Stop::Done), _) => match period(points, scale, s.settle_tol) {
                Some(1) => {
                    let last = &points[points.len() - 1];
                    let near =
                        |g: &DVector<f64>| (last - g).component_div(scale).amax() <= s.settle_tol.max(s.capture_tol);
                    match gaits.iter().position(near) {
                        Some(k) => Outcome::Gait(k),
                        None => Outcome::Period(1),
                    }
                }
                Some(p) => Outcome::Period(p),
                None => Outcome::Walking,
            },
            (None, Termination::Rest) => Outcome::Stopped,
            (None, Termination::Failed(f)) => match f.kind {
                FailureKind::Painleve | FailureKind::Indeterminate => Outcome::Painleve,
                FailureKind::Jam => Outcome::Jammed,
                FailureKind::Impact | FailureKind::Singular | FailureKind::Unsettled => Outcome::Failed,
            },
            (None, Termination::EventLimit) => Outcome::Zeno,
            (None, _) => Outcome::Failed,
        }
    }
}

/// A cell's run as the basin watches it, on either engine (module docs, "Outcomes"): the
/// chart points after each strike, capture by a stable gait, the fall, and the patience for the
/// next strike. The engine says what a strike is, where a state falls on the chart, whether a
/// mode slips and whether a state has fallen.
pub(crate) struct CellWatch<'a, M> {
    /// Whether an event is a strike.
    pub(crate) strike: &'a (dyn Fn(&EventRecord<State, M>) -> bool + Sync),
    /// The chart point of a state after a strike.
    pub(crate) chart: &'a (dyn Fn(&State) -> DVector<f64> + Sync),
    /// Whether a contact slips in a mode.
    pub(crate) slips: &'a (dyn Fn(&M) -> bool + Sync),
    /// Whether a state has fallen.
    pub(crate) fallen: &'a (dyn Fn(&State) -> bool + Sync),
    /// The chart's scales.
    pub(crate) scale: &'a DVector<f64>,
    /// The stable gaits' chart points.
    pub(crate) gaits: &'a [DVector<f64>],
    /// `capture_tol` and `steps`.
    pub(crate) settings: &'a BasinSettings,
    /// The longest time between strikes (s).
    pub(crate) patience: f64,
    last_strike: f64,
    points: Vec<DVector<f64>>,
    stop: Option<Stop>,
    slipping: bool,
}

impl<'a, M> CellWatch<'a, M> {
    /// A watch over a run starting at time zero.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        strike: &'a (dyn Fn(&EventRecord<State, M>) -> bool + Sync),
        chart: &'a (dyn Fn(&State) -> DVector<f64> + Sync),
        slips: &'a (dyn Fn(&M) -> bool + Sync),
        fallen: &'a (dyn Fn(&State) -> bool + Sync),
        scale: &'a DVector<f64>,
        gaits: &'a [DVector<f64>],
        settings: &'a BasinSettings,
        patience: f64,
    ) -> Self {
        Self {
            strike,
            chart,
            slips,
            fallen,
            scale,
            gaits,
            settings,
            patience,
            last_strike: 0.0,
            points: vec![],
            stop: None,
            slipping: false,
        }
    }

    /// The cell after its run ended with `termination` at time `t`, `at_rest` if its kinetic
    /// energy there is below `10⁻⁶` of the base state's.
    pub(crate) fn cell(self, values: &[f64], termination: &Termination, t: f64, at_rest: bool) -> BasinCell {
        let ended = Ended { stop: self.stop, slipping: self.slipping, at_rest };
        let outcome = ended.outcome(termination, &self.points, self.scale, self.gaits, self.settings);
        BasinCell { values: values.to_vec(), outcome, strikes: self.points.len(), t }
    }
}

impl<M> Observer<State, M> for CellWatch<'_, M> {
    fn on_step(&mut self, step: &Step<State>, t_end: f64, mode: &M) -> ControlFlow<()> {
        self.slipping = (self.slips)(mode);
        if (self.fallen)(&step.eval(t_end)) {
            self.stop = Some(Stop::Fell);
            return ControlFlow::Break(());
        }
        if t_end - self.last_strike > self.patience {
            self.stop = Some(Stop::NoStrike);
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    }

    fn on_event(&mut self, ev: &EventRecord<State, M>) -> ControlFlow<()> {
        if ev.info.kind != EventKind::Impact || !(self.strike)(ev) {
            return ControlFlow::Continue(());
        }
        self.last_strike = ev.t;
        let y = (self.chart)(&ev.after);
        let near = |g: &DVector<f64>| (&y - g).component_div(self.scale).amax() <= self.settings.capture_tol;
        let captured = self.gaits.iter().position(near);
        self.points.push(y);
        if let Some(k) = captured {
            self.stop = Some(Stop::Captured(k));
            return ControlFlow::Break(());
        }
        if self.points.len() >= self.settings.steps {
            self.stop = Some(Stop::Done);
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    }
}

/// Refuses more than [`MAX_CELLS`] cells, or a cell without one finite value per varied
/// coordinate of `plan`.
pub(crate) fn check_cells(plan: &BasinPlan, points: &[Vec<f64>]) -> Result<(), Error> {
    if points.len() > MAX_CELLS {
        return Err(Error::argument("cells", format!("at most {MAX_CELLS} (got {})", points.len())));
    }
    if let Some((i, p)) =
        points.iter().enumerate().find(|(_, p)| p.len() != plan.vary.len() || p.iter().any(|x| !x.is_finite()))
    {
        return Err(Error::argument(
            "cells",
            format!("cell {i} needs {} finite values ({}), got {p:?}", plan.vary.len(), plan.vary.join(", ")),
        ));
    }
    Ok(())
}

/// The centre of mass of the tree at `q`.
fn centre_of_mass(sys: &MultibodySystem, q: &DVector<f64>) -> Vector2<f64> {
    let n = sys.dof();
    let tree = sys.multibody();
    let f = tree.frames(q.as_slice(), &vec![0.0; n]);
    let (mut c, mut mass) = (Vector2::zeros(), 0.0);
    for (b, body) in tree.bodies().iter().enumerate() {
        c += body.mass * f.point(b, &body.com).position;
        mass += body.mass;
    }
    if mass > 0.0 {
        c / mass
    } else {
        c
    }
}

/// The smallest period `p ≤ MAX_PERIOD` with which the last `2p` points repeat to `tol`.
pub(crate) fn period(points: &[DVector<f64>], scale: &DVector<f64>, tol: f64) -> Option<usize> {
    let n = points.len();
    (1..=MAX_PERIOD).find(|&p| {
        n >= 2 * p && (0..p).all(|j| (&points[n - 1 - j] - &points[n - 1 - j - p]).component_div(scale).amax() <= tol)
    })
}

impl Cells<'_> {
    fn run(self, sys: MultibodySystem) -> Result<Vec<BasinCell>, Error> {
        let n = sys.dof();
        let (m, plan) = (self.m, self.plan);
        let spec = gait_spec(m)?;
        let grid = GridChart::new(&sys, m, plan)?;
        let x0 = grid.x0.clone();
        let post = join(
            &DVector::<f64>::from_column_slice(&plan.post[..n]),
            &DVector::<f64>::from_column_slice(&plan.post[n..]),
        );
        let strikes = StrikeChart::new(&sys, &post, &spec.translation);
        let scale = strikes.scale();
        let gaits: Vec<DVector<f64>> = plan
            .gaits
            .iter()
            .map(|g| {
                let x = join(&DVector::<f64>::from_column_slice(&g[..n]), &DVector::<f64>::from_column_slice(&g[n..]));
                strikes.chart(&x)
            })
            .collect();
        let s = &plan.settings;
        let gs = s.gait();
        let ts = sys.time_scale();
        let floor = match sys.contacts()[spec.strike].constraint {
            Constraint::PointOnLine { line_point, normal, .. } => {
                let n = normal.normalize();
                let h0 = (centre_of_mass(&sys, &split(&x0).0) - line_point).dot(&n);
                (h0 > 0.0).then_some((line_point, n, s.fall_height * h0))
            }
            Constraint::JointLimit { .. } => None,
        };
        let kinetic = |x: &State| {
            let (q, v) = split(x);
            0.5 * v.dot(&(sys.mass_matrix(&q) * &v))
        };
        let ke0 = kinetic(&x0);
        let total = self.points.len() as u64;
        let done = AtomicU64::new(0);
        use rayon::prelude::*;
        let strike_contact = spec.strike;
        let strike = |ev: &EventRecord<State, Modes>| ev.info.contact == Some(strike_contact);
        let chart = |x: &State| strikes.chart(x);
        let slips = |mode: &Modes| (0..mode.len()).any(|i| matches!(mode.get(i), ContactMode::Slip(s) if s != 0));
        let fallen = |x: &State| floor.is_some_and(|(p, n, h)| (centre_of_mass(&sys, &split(x).0) - p).dot(&n) < h);
        let cells = self
            .points
            .par_iter()
            .map(|values| {
                let lag = Lagrangian::new(&sys);
                let mut cell = BasinCell { values: values.clone(), outcome: Outcome::NoState, strikes: 0, t: 0.0 };
                if let Some(x) = grid.lift(values) {
                    let mut w =
                        CellWatch::new(&strike, &chart, &slips, &fallen, &scale, &gaits, s, s.max_step_time * ts);
                    let driver = driver_for(
                        &gs,
                        s.max_step_time * ts * (s.steps + 1) as f64,
                        EVENTS_PER_STRIKE * s.steps,
                        MAX_STEPS_PER_STRIKE * s.steps,
                    );
                    let run = driver.run(&lag, 0.0, x, &[], &mut w);
                    cell = w.cell(values, &run.termination, run.t, kinetic(&run.state) <= 1e-6 * ke0);
                }
                let d = done.fetch_add(1, Ordering::Relaxed) + 1;
                (self.progress)(d, total);
                cell
            })
            .collect();
        Ok(cells)
    }
}

/// The grid's chart at the base state, with the varied coordinates free.
struct GridChart<'a> {
    sys: &'a MultibodySystem,
    chart: StrikeChart<'a>,
    x0: State,
    y0: DVector<f64>,
    /// Where each varied coordinate sits in the chart.
    slots: Vec<usize>,
}

impl<'a> GridChart<'a> {
    fn new(sys: &'a MultibodySystem, m: &Mechanism, plan: &BasinPlan) -> Result<Self, Error> {
        let n = sys.dof();
        let spec = gait_spec(m)?;
        let keep = varied(m, &plan.vary)?;
        let x0 = join(&DVector::<f64>::from_column_slice(&plan.q), &DVector::<f64>::from_column_slice(&plan.v));
        let names = state_names(m);
        let chart = StrikeChart::keeping(sys, &x0, &spec.translation, &keep).map_err(|k| {
            Error::argument(
                "vary",
                format!(
                    "'{}' cannot vary on the section at the base state: {}",
                    names[k],
                    if k < n && spec.translation.contains(&k) {
                        "it is a translation coordinate of the [gait]".to_string()
                    } else {
                        format!(
                            "its contacts' constraints fix it (free coordinates: {})",
                            chart_names(sys, &x0, &spec, m)
                        )
                    }
                ),
            )
        })?;
        let coordinate_names = chart.names(&m.coordinates);
        let slots = plan
            .vary
            .iter()
            .map(|n| {
                coordinate_names.iter().position(|c| c == n).ok_or_else(|| {
                    Error::argument(
                        "vary",
                        format!("'{n}' is not free on the section ({})", coordinate_names.join(", ")),
                    )
                })
            })
            .collect::<Result<Vec<usize>, Error>>()?;
        let y0 = chart.chart(&x0);
        Ok(GridChart { sys, chart, x0, y0, slots })
    }

    /// The state of the cell `values`, `None` when it is not a state on the section (the
    /// constraints cannot be met, a non-finite value, or an armed contact inside its support).
    fn lift(&self, values: &[f64]) -> Option<State> {
        let mut y = self.y0.clone();
        for (j, &slot) in self.slots.iter().enumerate() {
            y[slot] = values[j];
        }
        let x = self.chart.lift(&y);
        let (q, _) = split(&x);
        let ls = self.sys.length_scale();
        let ok = x.iter().all(|v| v.is_finite())
            && (0..self.sys.contact_count()).all(|i| !self.sys.armed(i, &q) || self.sys.gap(i, &q) >= -1e-9 * ls)
            && x0_gaps_hold(self.sys, &self.x0, &q, ls);
        ok.then_some(x)
    }
}

/// The state `[q | q̇]` of the cell `values` of `plan`'s grid (where its run starts), or `None`
/// when the cell is not a state on the section (outcome `no-state`).
pub fn cell_state(m: &Mechanism, plan: &BasinPlan, values: &[f64]) -> Result<Option<Vec<f64>>, Error> {
    if values.len() != plan.vary.len() {
        return Err(Error::argument("cell", format!("needs {} values ({})", plan.vary.len(), plan.vary.join(", "))));
    }
    struct One<'a>(&'a Mechanism, &'a BasinPlan, &'a [f64]);
    impl One<'_> {
        fn run(self, sys: MultibodySystem) -> Result<Option<Vec<f64>>, Error> {
            let g = GridChart::new(&sys, self.0, self.1)?;
            Ok(g.lift(self.2).map(|x| x.column(0).iter().chain(x.column(1).iter()).copied().collect()))
        }
    }
    One(m, plan, values).run(m.system()?)
}

/// The base state's closed contacts are closed at `q` too (the lift's Newton converged).
fn x0_gaps_hold(sys: &MultibodySystem, x0: &State, q: &DVector<f64>, ls: f64) -> bool {
    let (q0, _) = split(x0);
    (0..sys.contact_count())
        .filter(|&i| sys.gap(i, &q0).abs() <= super::gait::SECTION_TOL * ls)
        .all(|i| sys.gap(i, q).abs() <= 1e-9 * ls)
}

/// The chart's free coordinates at `x0` (for errors).
fn chart_names(sys: &MultibodySystem, x0: &State, spec: &GaitSpec, m: &Mechanism) -> String {
    StrikeChart::new(sys, x0, &spec.translation).names(&m.coordinates).join(", ")
}

/// Colours of the outcomes: gaits green, periodic orbits blue, still walking purple, the
/// failures warm and grey.
fn colour(o: &Outcome) -> (u8, u8, u8) {
    const GAITS: [(u8, u8, u8); 4] = [(0, 158, 115), (86, 180, 100), (0, 110, 80), (150, 200, 90)];
    const PERIODS: [(u8, u8, u8); 4] = [(0, 114, 178), (86, 180, 233), (40, 70, 160), (120, 150, 220)];
    match o {
        Outcome::Gait(k) => GAITS[k % GAITS.len()],
        Outcome::Period(p) => PERIODS[p.trailing_zeros() as usize % PERIODS.len()],
        Outcome::Walking => (150, 90, 170),
        Outcome::Fell => (225, 225, 225),
        Outcome::Slipped => (230, 159, 0),
        Outcome::Stopped => (190, 170, 130),
        Outcome::Painleve => (213, 94, 0),
        Outcome::Jammed => (170, 30, 30),
        Outcome::Zeno => (204, 121, 167),
        Outcome::Failed => (60, 60, 60),
        Outcome::NoState => (255, 255, 255),
    }
}

/// `stance.theta_dot` as `stance.theta'` (the plots' text would read `_d` as a subscript).
fn axis_label(name: &str) -> String {
    name.strip_suffix("_dot").map_or_else(|| name.to_string(), |c| format!("{c}'"))
}

impl Basin {
    /// The basin as a category map (one row for a one-coordinate basin), the stable gaits
    /// marked where they fall inside the grid.
    pub fn figure(&self, title: &str, names: &[String]) -> crate::plot::CategoryMap {
        let mut outcomes: Vec<Outcome> = vec![];
        for c in &self.cells {
            if !outcomes.contains(&c.outcome) {
                outcomes.push(c.outcome);
            }
        }
        outcomes.sort_by_key(|o| serde_json::to_string(o).unwrap_or_default());
        let legend = outcomes.iter().map(|o| (o.label(), colour(o))).collect();
        let cells = self.cells.iter().map(|c| outcomes.iter().position(|o| *o == c.outcome).unwrap_or(0)).collect();
        let xs = self.axes[0].values();
        let ys = self.axes.get(1).map_or(vec![0.0], |a| a.values());
        // The gaits' coordinates on the axes (positions by name, rates by `_dot`).
        let n = self.plan.q.len();
        let coordinate = |g: &[f64], name: &str| -> Option<f64> {
            let k = names.iter().position(|c| c == name).map(|k| g[k]);
            k.or_else(|| names.iter().position(|c| format!("{c}_dot") == name).map(|k| g[n + k]))
        };
        let inside = |v: f64, a: &BasinAxis| a.n > 1 && v >= a.lo && v <= a.hi;
        // The base state, and the stable gaits when the grid is on their section (after the
        // strike).
        let base: Vec<f64> = self.plan.q.iter().chain(&self.plan.v).copied().collect();
        let mut points: Vec<(String, &[f64])> = vec![("base state".into(), &base)];
        if !self.plan.settings.before_strike {
            points.extend(self.plan.gaits.iter().enumerate().map(|(k, g)| (format!("gait {k}"), g.as_slice())));
        }
        let mut marks: Vec<(String, f64, f64)> = vec![];
        for (label, g) in points {
            let Some(x) = coordinate(g, &self.axes[0].name).filter(|&x| inside(x, &self.axes[0])) else { continue };
            let y = match self.axes.get(1) {
                Some(a) => match coordinate(g, &a.name).filter(|&y| inside(y, a)) {
                    Some(y) => y,
                    None => continue,
                },
                None => 0.0,
            };
            // A gait at the base state is named once.
            if let Some(m) = marks
                .iter_mut()
                .find(|m| (m.1 - x).abs() <= 1e-12 * (1.0 + x.abs()) && (m.2 - y).abs() <= 1e-12 * (1.0 + y.abs()))
            {
                m.0 = label;
                continue;
            }
            marks.push((label, x, y));
        }
        crate::plot::CategoryMap {
            title: title.to_string(),
            x_label: axis_label(&self.axes[0].name),
            y_label: self.axes.get(1).map_or(String::new(), |a| axis_label(&a.name)),
            xs,
            ys,
            cells,
            legend,
            marks,
            paths: vec![],
        }
    }

    /// Writes `basin.csv` (one row per cell: the varied values, outcome, strikes, time),
    /// `fractions.csv` and `basin.png` into `dir`.
    pub fn write_files(&self, dir: &std::path::Path, title: &str, names: &[String]) -> Result<(), Error> {
        std::fs::create_dir_all(dir).map_err(|e| Error::write(dir, e))?;
        let mut csv: String = self.axes.iter().map(|a| format!("{},", a.name)).collect();
        csv.push_str("outcome,strikes,t\n");
        for c in &self.cells {
            for v in &c.values {
                csv.push_str(&format!("{v},"));
            }
            csv.push_str(&format!("{},{},{}\n", c.outcome.label(), c.strikes, c.t));
        }
        crate::output::write_file(dir, "basin.csv", &csv)?;
        let mut f = String::from("outcome,fraction\n");
        for (l, x) in &self.fractions {
            f.push_str(&format!("{l},{x}\n"));
        }
        crate::output::write_file(dir, "fractions.csv", &f)?;
        self.figure(title, names).save(&dir.join("basin.png"))
    }
}
