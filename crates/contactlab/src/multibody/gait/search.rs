//! The search for gaits from nothing: starting states, strikes followed until they settle or
//! cycle, Newton on the step map, and the swing foot's clearance ([`super`]'s module docs).

use super::*;
use nalgebra::{DMatrix, DVector};

pub(super) struct Search<'a> {
    pub(super) m: &'a Mechanism,
    pub(super) spec: &'a GaitSpec,
    pub(super) settings: &'a GaitSettings,
}

/// Records the post-strike states of a run.
pub(super) struct Strikes {
    pub(super) contact: usize,
    pub(super) states: Vec<(f64, State)>,
    pub(super) limit: usize,
    /// A run ends when no strike comes for this long (s): the mechanism fell or stopped.
    pub(super) patience: f64,
}

impl Observer<State, Modes> for Strikes {
    fn on_step(&mut self, _step: &Step<State>, t_end: f64, _mode: &Modes) -> ControlFlow<()> {
        let last = self.states.last().map_or(0.0, |s| s.0);
        if t_end - last > self.patience {
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    }
    fn on_event(&mut self, ev: &EventRecord<State, Modes>) -> ControlFlow<()> {
        if ev.info.kind == EventKind::Impact && ev.info.contact == Some(self.contact) {
            self.states.push((ev.t, ev.after.clone()));
            if self.states.len() >= self.limit {
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    }
}

impl Search<'_> {
    pub(super) fn run(self, sys: MultibodySystem) -> GaitSearch {
        let n = sys.dof();
        let (m, spec, s) = (self.m, self.spec, self.settings);
        let lag = Lagrangian::new(&sys);
        let ts = sys.time_scale();
        let driver = |t_max: f64, events: usize, steps: usize| driver_for(s, t_max, events, steps);
        let starts = starting_states(&sys, m, &spec.translation);
        let scale = sys.coordinate_scale();
        let distance = |a: &State, b: &State| {
            (0..n)
                .filter(|k| !spec.translation.contains(k))
                .map(|k| ((a[(k, 0)] - b[(k, 0)]) / scale[k]).abs())
                .chain((0..n).map(|k| ((a[(k, 1)] - b[(k, 1)]) * ts / scale[k]).abs()))
                .fold(0.0, f64::max)
        };
        // Each start's strikes (in parallel: the system is shared, each thread has its own
        // Lagrangian and evaluation cache).
        use rayon::prelude::*;
        let runs: Vec<Vec<State>> = starts
            .par_iter()
            .map(|x0| {
                let lag = Lagrangian::new(&sys);
                let patience = s.max_step_time * ts;
                let mut rec = Strikes { contact: spec.strike, states: vec![], limit: SETTLE_STRIKES, patience };
                let t_max = s.max_step_time * ts * SETTLE_STRIKES as f64;
                driver(t_max, 50 * SETTLE_STRIKES, MAX_STEPS_PER_STRIKE * SETTLE_STRIKES).run(
                    &lag,
                    0.0,
                    x0.clone(),
                    &[],
                    &mut rec,
                );
                rec.states.into_iter().map(|(_, x)| x).collect()
            })
            .collect();
        // Newton starts: where a run settled (a stable gait), the mean of a cycle of steps a run
        // settled onto (past a period doubling the unstable period-1 gait lies amid the cycle),
        // and where two successive strikes came closest (an unstable gait is passed near, not
        // approached).
        let mut settled_at: Vec<State> = vec![];
        let mut cycle_means: Vec<State> = vec![];
        let mut passed_near: Vec<(f64, State)> = vec![];
        for st in &runs {
            let last = st.len().saturating_sub(1);
            if st.len() >= 3 && distance(&st[last], &st[last - 1]) <= SETTLE_TOL {
                settled_at.push(st[last].clone());
                continue;
            }
            let cycle = (2..=MAX_CYCLE).find(|&p| {
                st.len() > 2 * p && (1..=p).all(|j| distance(&st[last + 1 - j], &st[last + 1 - j - p]) <= SETTLE_TOL)
            });
            if let Some(p) = cycle {
                // The mean in the section's chart (modulo the translation), lifted back onto it.
                let chart = StrikeChart::new(&sys, &st[last], &spec.translation);
                let mean = st[last - p + 1..]
                    .iter()
                    .map(|x| chart.chart(x))
                    .fold(None, |a: Option<DVector<f64>>, y| Some(a.map_or(y.clone(), |a| a + y)));
                if let Some(sum) = mean {
                    cycle_means.push(chart.lift(&(sum / p as f64)));
                }
                continue;
            }
            let closest = st.windows(2).map(|w| (distance(&w[0], &w[1]), &w[1])).min_by(|a, b| a.0.total_cmp(&b.0));
            if let Some((d, x)) = closest {
                if d <= NEAR_RETURN {
                    passed_near.push((d, x.clone()));
                }
            }
        }
        let (settled, cycled) = (settled_at.len(), cycle_means.len());
        passed_near.sort_by(|a, b| a.0.total_cmp(&b.0));
        let candidates: Vec<State> =
            settled_at.into_iter().chain(cycle_means).chain(passed_near.into_iter().map(|p| p.1)).collect();
        let mut gaits: Vec<Gait> = vec![];
        let mut seen: Vec<State> = vec![];
        for x in candidates {
            if seen.iter().any(|y| distance(&x, y) <= 1e-3) {
                continue;
            }
            seen.push(x.clone());
            let Ok(g) = newton_gait(&sys, &lag, m, spec, s, &x) else { continue };
            if gaits.iter().any(|h| {
                let hx = join(&DVector::from_column_slice(&h.q), &DVector::from_column_slice(&h.v));
                let gx = join(&DVector::from_column_slice(&g.q), &DVector::from_column_slice(&g.v));
                distance(&hx, &gx) <= SAME_GAIT_TOL
            }) {
                continue;
            }
            gaits.push(g);
        }
        gaits.sort_by(|a, b| b.stable.cmp(&a.stable).then(a.spectral_radius.total_cmp(&b.spectral_radius)));
        let reason = gaits.is_empty().then(|| {
            format!(
                "no gait found from {} starts ({settled} settled onto a repeating step, {cycled} onto a cycle of steps)",
                starts.len()
            )
        });
        GaitSearch { gaits, starts: starts.len(), settled, cycled, reason, needs_mu: None }
    }
}

pub(crate) fn driver_for(s: &GaitSettings, t_max: f64, events: usize, steps: usize) -> EventDriver {
    EventDriver::new(DriverSettings {
        tol: Tolerances { rtol: s.rtol, atol: s.rtol },
        t_max,
        max_events: events,
        max_steps: steps,
        zeno: ZenoRule::Extrapolate { tolerance: 1e-9 },
        ..Default::default()
    })
}

/// Newton's method on the strike-to-strike map from the post-strike state `x`, and the gait's
/// details, or why Newton stopped. The translation coordinates of the reported
/// state are the model's initial ones (a gait is defined modulo the translation).
pub(super) fn newton_gait(
    sys: &MultibodySystem,
    lag: &Lagrangian<&MultibodySystem>,
    m: &Mechanism,
    spec: &GaitSpec,
    s: &GaitSettings,
    x: &State,
) -> Result<Gait, NewtonStop> {
    let ts = sys.time_scale();
    let chart = StrikeChart::new(sys, x, &spec.translation);
    let map = ReturnMap {
        system: lag,
        section: PoincareSection::AfterEvent { kind: EventKind::Impact, contact: Some(spec.strike) },
        chart,
        driver: driver_for(s, s.max_step_time * ts, 500, MAX_STEPS_PER_STRIKE),
        derivatives: s.derivatives,
    };
    let y0 = map.chart.chart(x);
    let mut fp = map.fixed_point(&y0, s.newton_tol, s.max_newton);
    fp.require_step(ts);
    if !fp.converged {
        return Err(fp.reason.unwrap_or(NewtonStop::NotConverged));
    }
    let y = DVector::from_vec(fp.y.clone());
    let mut xs = map.chart.lift(&y);
    for &k in &spec.translation {
        xs[(k, 0)] = m.q0[k];
    }
    let details = orbit_details(
        lag,
        sys,
        &xs,
        spec,
        &m.contact_names,
        driver_for(s, s.max_step_time * ts, 500, MAX_STEPS_PER_STRIKE),
    );
    let (q, v) = split(&xs);
    let (pre_q, pre_v) = details.pre_strike.map_or((vec![], vec![]), |x| {
        let (q, v) = split(&x);
        (q.iter().copied().collect(), v.iter().copied().collect())
    });
    Ok(Gait {
        period: fp.period,
        q: q.iter().copied().collect(),
        v: v.iter().copied().collect(),
        pre_strike_q: pre_q,
        pre_strike_v: pre_v,
        section_coordinates: map.chart.names(&m.coordinates),
        section_point: fp.y.clone(),
        stable: fp.spectral_radius < 1.0,
        spectral_radius: fp.spectral_radius,
        multipliers: fp.multipliers.clone(),
        derivatives: fp.derivatives.clone(),
        mu_stick: details.mu_stick,
        sticking: !details.slipped,
        impulse_ratio: details.impulse_ratio,
        step_length: details.step_length,
        residual: fp.residual,
        events_per_step: details.events,
        min_clearance: details.min_clearance,
    })
}

/// The model's initial state, and its posture in rigid rotation about the lowest closed
/// contact (module docs).
pub(super) fn starting_states(sys: &MultibodySystem, m: &Mechanism, translation: &[usize]) -> Vec<State> {
    let n = sys.dof();
    let q0 = DVector::<f64>::from_column_slice(&m.q0);
    let v0 = DVector::<f64>::from_column_slice(&m.v0);
    let mut out = vec![join(&q0, &v0)];
    let ls = sys.length_scale();
    let pivot =
        (0..sys.contact_count()).filter(|&i| sys.gap(i, &q0).abs() <= 1e-6 * ls && sys.armed(i, &q0)).find_map(|i| {
            match sys.contacts()[i].constraint {
                crate::mechanics::multibody_system::Constraint::PointOnLine { body, point, .. } => {
                    let f = sys.multibody().frames(q0.as_slice(), &vec![0.0; n]);
                    Some(f.position[body] + f.offset(body, &point))
                }
                _ => None,
            }
        });
    let Some(c) = pivot else { return out };
    // Rigid rotation at unit rate about c: each body's origin moves with perp(p − c), turns at 1.
    let tree = sys.multibody();
    let f = tree.frames(q0.as_slice(), &vec![0.0; n]);
    let nb = tree.bodies().len();
    let mut a = DMatrix::zeros(3 * nb, n);
    let mut b = DVector::zeros(3 * nb);
    for k in 0..nb {
        let d = f.position[k] - c;
        for (r, target) in [(0, -d.y), (1, d.x), (2, 1.0)] {
            let row = f.jacobian_row(k, r);
            for j in 0..n {
                a[(3 * k + r, j)] = row[j] * if r == 2 { ls } else { 1.0 };
            }
            b[3 * k + r] = target * if r == 2 { ls } else { 1.0 };
        }
    }
    let Ok(unit) = a.svd(true, true).solve(&b, 1e-12) else { return out };
    let rate = 1.0 / sys.time_scale();
    for w in [0.25, 0.5, 0.75, 1.0, 1.5] {
        for sign in [-1.0, 1.0] {
            let v = DVector::<f64>::from_iterator(n, unit.iter().map(|u| u * w * sign * rate));
            out.push(join(&q0, &v));
        }
    }
    // A grid over the velocities the stance contact leaves free (it sticks: its normal and
    // tangential velocities vanish), for up to three such velocities.
    let ls = sys.length_scale();
    let gaps: Vec<usize> = (0..sys.contact_count()).filter(|&i| sys.gap(i, &q0).abs() <= 1e-6 * ls).collect();
    let Some(&stance) = gaps.iter().find(|&&i| sys.armed(i, &q0)) else { return out };
    let mut rests = vec![(stance, false)];
    if sys.law(stance).mu > 0.0 {
        rests.push((stance, true));
    }
    let x0 = join(&q0, &DVector::zeros(q0.len()));
    let chart = StrikeChart::with_constraints(sys, &x0, translation, gaps, rests);
    let (nq, nv) = (chart.q_free.len(), chart.v_free.len());
    let per_axis: usize = match nv {
        1 => 17,
        2 => 9,
        3 => 5,
        _ => 0,
    };
    if per_axis == 0 {
        return out;
    }
    let y0 = chart.chart(&x0);
    let sc = chart.scale();
    let mut idx = vec![0usize; nv];
    'grid: loop {
        let mut y = y0.clone();
        for (a, &i) in idx.iter().enumerate() {
            let frac = -1.0 + 2.0 * i as f64 / (per_axis - 1) as f64;
            y[nq + a] = frac * sc[nq + a];
        }
        if (0..nv).any(|a| y[nq + a] != 0.0) {
            out.push(chart.lift(&y));
        }
        for a in 0..nv {
            idx[a] += 1;
            if idx[a] < per_axis {
                continue 'grid;
            }
            idx[a] = 0;
        }
        break;
    }
    out
}

pub(crate) struct Details {
    pub(crate) mu_stick: Option<f64>,
    /// Whether some contact slipped along the step.
    pub(crate) slipped: bool,
    /// The state just before the strike (before its impulse and the relabelling).
    pub(crate) pre_strike: Option<State>,
    pub(crate) impulse_ratio: Option<f64>,
    pub(crate) step_length: Vec<f64>,
    pub(crate) events: usize,
    /// The events of the step: `kind(contact)`, an impact of a frictional contact with its
    /// outcome (`stick` or `slip`, from its impulse ratio).
    pub(crate) labels: Vec<String>,
    /// The least `(d − μ|c|)/(d + μ|c|)` along the step over the closed frictional contacts
    /// (P2's `B` for the worse slip direction, the other closed contacts held, normalised):
    /// negative where Painlevé's paradox is possible.
    pub(crate) min_b: Option<f64>,
    /// The clearance of the contacts whose arming rule keeps them from striking (a swing foot
    /// that ignores scuffing), over the length scale: [`Clearance::value`].
    pub(crate) min_clearance: Option<f64>,
}

/// The clearance of a contact while its arming rule keeps it from striking, along a step.
///
/// A swing foot leaves its line at the step's start (the old stance foot, released by the
/// strike) and first rises: its least gap over the whole step is that of the first instants
/// and says nothing of the swing. The clearance is therefore the least gap **after the gap
/// first stops rising** (`ġ ≤ 0`, `ġ = w_nᵀq̇`): the foot's lowest point in mid-swing, where
/// a real foot would scuff; the least value between samples is found by [`Step::max_of`].
/// A foot that rises until it is armed has as clearance its gap when last disarmed (where the
/// rule hands over: continuous with a dip that starts just before it). Negative: the gait
/// relies on the rule (the foot passes below its line); positive: it clears the line.
#[derive(Debug, Clone, Default)]
pub(super) struct Clearance {
    /// Per contact: the gap has stopped rising while disarmed.
    pub(super) descended: Vec<bool>,
    /// Per contact: the least gap after that.
    pub(super) lowest: Vec<Option<f64>>,
    /// Per contact: the gap at the last disarmed sample while still rising.
    pub(super) rising: Vec<Option<f64>>,
}

impl Clearance {
    pub(super) fn new(contacts: usize) -> Self {
        Clearance { descended: vec![false; contacts], lowest: vec![None; contacts], rising: vec![None; contacts] }
    }
    /// Looks at one step of the flow (`t_end` its end) with `n` samples.
    pub(super) fn look(&mut self, sys: &MultibodySystem, step: &Step<State>, t_end: f64, n: usize) {
        let ls = sys.length_scale();
        let disarmed = |i: usize, x: &State| !sys.armed(i, &x.column(0).into_owned());
        for i in (0..self.descended.len()).filter(|&i| step.samples(t_end, n).any(|(_, x)| disarmed(i, &x))) {
            // Where the rise ends within this step (the first disarmed sample with ġ ≤ 0).
            let mut from = if self.descended[i] { Some(step.t0) } else { None };
            for (t, x) in step.samples(t_end, n) {
                if !disarmed(i, &x) || from.is_some() {
                    continue;
                }
                let (q, v) = split(&x);
                if sys.normal_jacobian(i, &q).dot(&v) <= 0.0 {
                    from = Some(t - (t_end - step.t0) / n as f64);
                } else {
                    self.rising[i] = Some(sys.gap(i, &q) / ls);
                }
            }
            let Some(from) = from else { continue };
            self.descended[i] = true;
            let floor = self.lowest[i].map_or(f64::NEG_INFINITY, |m| -m);
            let low = -step.max_of(t_end, n, floor, |t, x| {
                let (q, v) = split(x);
                let past = t >= from && (t > from || sys.normal_jacobian(i, &q).dot(&v) <= 0.0);
                if past && disarmed(i, x) {
                    -sys.gap(i, &q) / ls
                } else {
                    f64::NEG_INFINITY
                }
            });
            if low.is_finite() {
                self.lowest[i] = Some(low);
            }
        }
    }
    /// The least clearance over the contacts (`None`: no contact was disarmed).
    pub(super) fn value(&self) -> Option<f64> {
        (0..self.descended.len()).filter_map(|i| self.lowest[i].or(self.rising[i])).reduce(f64::min)
    }
}

/// Friction use along one step from the post-strike state `x`, the strike's impulse ratio and
/// the translation over the step.
pub(crate) fn orbit_details(
    lag: &Lagrangian<&MultibodySystem>,
    sys: &MultibodySystem,
    x: &State,
    spec: &GaitSpec,
    names: &[String],
    driver: EventDriver,
) -> Details {
    let n = sys.dof();
    struct Friction<'a> {
        lag: &'a Lagrangian<&'a MultibodySystem>,
        sys: &'a MultibodySystem,
        strike: usize,
        /// The largest `|λ_t|/λ_n` of the sticking contacts (μ_stick).
        ratio: Peak<State, Modes>,
        strike_event: Option<(State, State)>,
        events: usize,
        labels: Vec<(EventKind, Option<usize>)>,
        /// The largest `−B` (normalised) of the closed frictional contacts.
        neg_b: Peak<State, Modes>,
        /// `(ratio, −B)` at the run's start.
        at_start: (f64, f64),
        clearance: Clearance,
        /// Whether some frictional contact slipped.
        slipped: bool,
    }
    /// Whether some frictional contact of `mode` slips (`Slip(0)` is a closed frictionless
    /// contact or joint limit, which has nothing to stick with).
    fn slips(mode: &Modes) -> bool {
        (0..mode.len()).any(|i| matches!(mode.get(i), ContactMode::Slip(s) if s != 0))
    }
    /// The largest friction use `|λ_t|/λ_n` of `mode`'s sticking contacts at `(t, x)`.
    pub(super) fn friction_use(lag: &Lagrangian<&MultibodySystem>, mode: &Modes, t: f64, x: &State) -> f64 {
        if !(0..mode.len()).any(|i| mode.get(i) == ContactMode::Stick) {
            return f64::NEG_INFINITY;
        }
        let (q, v) = split(x);
        let Some(sol) = lag.solve_mode(mode, t, &q, &v) else { return f64::NEG_INFINITY };
        (0..mode.len())
            .filter(|&i| mode.get(i) == ContactMode::Stick && sol.lambda_n[i] > 0.0)
            .map(|i| sol.lambda_t[i].abs() / sol.lambda_n[i])
            .fold(f64::NEG_INFINITY, f64::max)
    }
    /// The largest `−(d − μ|c|)/(d + μ|c|)` over `mode`'s closed frictional contacts at `x`
    /// (the others closed held): minus the least normalised Painlevé `B`.
    pub(super) fn painleve_neg_b(sys: &MultibodySystem, mode: &Modes, x: &State) -> f64 {
        let closed: Vec<usize> =
            (0..mode.len()).filter(|&i| matches!(mode.get(i), ContactMode::Stick | ContactMode::Slip(_))).collect();
        if closed.is_empty() {
            return f64::NEG_INFINITY;
        }
        let q = x.column(0).into_owned();
        let mut worst = f64::NEG_INFINITY;
        for &i in &closed {
            let mu = sys.law(i).mu;
            if mu > 0.0 {
                let held: Vec<usize> = closed.iter().copied().filter(|&j| j != i).collect();
                let (d, c) = crate::multibody::painleve::contact_dc(sys, &q, i, &held);
                let b = (d - mu * c.abs()) / (d + mu * c.abs());
                if b.is_finite() {
                    worst = worst.max(-b);
                }
            }
        }
        worst
    }
    impl Observer<State, Modes> for Friction<'_> {
        fn on_start(&mut self, t: f64, x: &State, mode: &Modes) {
            self.at_start = (friction_use(self.lag, mode, t, x), painleve_neg_b(self.sys, mode, x));
            self.slipped |= slips(mode);
        }
        fn on_step(&mut self, step: &Step<State>, t_end: f64, mode: &Modes) -> ControlFlow<()> {
            // Both extremes between samples too: the best step refined at the end (Peak).
            let (lag, sys) = (self.lag, self.sys);
            self.slipped |= slips(mode);
            self.ratio.offer(step, t_end, mode, |m, t, x| friction_use(lag, m, t, x));
            self.neg_b.offer(step, t_end, mode, |m, _, x| painleve_neg_b(sys, m, x));
            self.clearance.look(self.sys, step, t_end, 8);
            ControlFlow::Continue(())
        }
        fn on_event(&mut self, ev: &EventRecord<State, Modes>) -> ControlFlow<()> {
            self.events += 1;
            self.labels.push((ev.info.kind, ev.info.contact));
            if ev.info.kind == EventKind::Impact && ev.info.contact == Some(self.strike) {
                self.strike_event = Some((ev.before.clone(), ev.after.clone()));
                return ControlFlow::Break(());
            }
            ControlFlow::Continue(())
        }
    }
    let mut obs = Friction {
        lag,
        sys,
        strike: spec.strike,
        ratio: Peak::new(8),
        strike_event: None,
        events: 0,
        labels: vec![],
        neg_b: Peak::new(8),
        at_start: (f64::NEG_INFINITY, f64::NEG_INFINITY),
        clearance: Clearance::new(sys.contact_count()),
        slipped: false,
    };
    driver.run(lag, 0.0, x.clone(), &[], &mut obs);
    let finite = |v: f64| (v > f64::NEG_INFINITY).then_some(v);
    let mu_stick = obs
        .ratio
        .value(|m, t, x| friction_use(lag, m, t, x))
        .into_iter()
        .chain(finite(obs.at_start.0))
        .reduce(f64::max);
    let min_b = obs
        .neg_b
        .value(|m, _, x| painleve_neg_b(sys, m, x))
        .into_iter()
        .chain(finite(obs.at_start.1))
        .reduce(f64::max)
        .map(|v| -v);
    let mut impulse_ratio = None;
    let mut step_length = vec![];
    if let Some((before, after)) = &obs.strike_event {
        let (q, vm) = split(before);
        // The post-impact velocity before the relabelling: v⁺ = P⁻¹ v' (the relabelling is linear
        // in the velocities).
        let (_, va) = split(after);
        let vp = relabel_inverse(sys, spec.strike, &q, &va);
        if let Some(vp) = vp {
            let p = sys.mass_matrix(&q) * (vp - vm);
            let (wn, wt) = (sys.normal_jacobian(spec.strike, &q), sys.tangent_jacobian(spec.strike, &q));
            let a = DMatrix::from_fn(n, 2, |r, c| if c == 0 { wn[r] } else { wt[r] });
            let pd = DVector::from_column_slice(p.as_slice());
            if let Ok(lam) = a.clone().svd(true, true).solve(&pd, 1e-12) {
                if lam[0] > 0.0 && sys.law(spec.strike).mu > 0.0 {
                    impulse_ratio = Some(lam[1].abs() / lam[0]);
                }
            }
        }
        let (qa, _) = split(after);
        let (q0, _) = split(x);
        step_length = spec.translation.iter().map(|&k| qa[k] - q0[k]).collect();
    }
    // The strike sticks when its impulse is inside the cone (to round-off), else it slips.
    let labels = obs
        .labels
        .iter()
        .map(|&(kind, contact)| {
            let name = contact.map_or(String::new(), |i| names.get(i).cloned().unwrap_or_else(|| i.to_string()));
            let outcome = match (kind, contact, impulse_ratio) {
                (EventKind::Impact, Some(i), Some(r)) if i == spec.strike => {
                    if r < sys.law(i).mu * (1.0 - 1e-9) {
                        ", stick"
                    } else {
                        ", slip"
                    }
                }
                _ => "",
            };
            format!("{}({name}{outcome})", crate::output::kebab(&kind))
        })
        .collect();
    Details {
        mu_stick,
        slipped: obs.slipped,
        pre_strike: obs.strike_event.map(|(before, _)| before),
        impulse_ratio,
        step_length,
        events: obs.events,
        labels,
        min_b,
        min_clearance: obs.clearance.value(),
    }
}

/// `P⁻¹ v'` for the relabelling after `contact` (the identity without one).
pub(super) fn relabel_inverse(
    sys: &MultibodySystem,
    contact: usize,
    q: &DVector<f64>,
    v_after: &DVector<f64>,
) -> Option<DVector<f64>> {
    let n = sys.dof();
    // The relabelling's velocity part is linear: its matrix column by column.
    let mut p = DMatrix::zeros(n, n);
    for j in 0..n {
        let mut e = DVector::<f64>::zeros(n);
        e[j] = 1.0;
        match sys.relabel(contact, q, &e) {
            Some((_, col)) => p.set_column(j, &DVector::from_column_slice(col.as_slice())),
            None => return Some(v_after.clone()),
        }
    }
    p.lu().solve(v_after)
}
