//! The continuation engine: predictor–corrector steps along a branch and the location of its
//! special points ([`super`]'s module docs).

use super::*;

/// A corrected point with everything the tests need.
#[derive(Clone)]
pub(super) struct Corrected {
    pub(super) z: DVector<f64>,
    pub(super) eval: Evaluation,
    pub(super) tangent: DVector<f64>,
    pub(super) residual: f64,
    pub(super) iterations: usize,
}

pub(super) struct Engine<'a, F: MapFamily + ?Sized> {
    pub(super) f: &'a F,
    pub(super) s: &'a Settings,
    pub(super) sc: DVector<f64>,
    pub(super) ps: f64,
    pub(super) count: std::cell::Cell<usize>,
}

impl<F: MapFamily + ?Sized> Engine<'_, F> {
    pub(super) fn m(&self) -> usize {
        self.sc.len()
    }
    pub(super) fn y_of(&self, z: &DVector<f64>) -> DVector<f64> {
        DVector::from_fn(self.m(), |i, _| z[i] * self.sc[i])
    }
    pub(super) fn p_of(&self, z: &DVector<f64>) -> f64 {
        z[self.m()] * self.ps
    }
    pub(super) fn z_of(&self, y: &DVector<f64>, p: f64) -> DVector<f64> {
        let m = self.m();
        DVector::from_fn(m + 1, |i, _| if i < m { y[i] / self.sc[i] } else { p / self.ps })
    }
    pub(super) fn evaluate(&self, p: f64, y: &DVector<f64>) -> Result<Evaluation, String> {
        self.count.set(self.count.get() + 1);
        self.f.evaluate(p, y)
    }
    /// `[DP − I, ∂P/∂p]` in scaled form, and the scaled residual `G`.
    pub(super) fn jacobian(&self, z: &DVector<f64>, e: &Evaluation, b: &DVector<f64>) -> (DMatrix<f64>, DVector<f64>) {
        let m = self.m();
        let y = self.y_of(z);
        let mut a = DMatrix::zeros(m, m + 1);
        for r in 0..m {
            for c in 0..m {
                a[(r, c)] = e.jacobian[(r, c)] * self.sc[c] / self.sc[r] - if r == c { 1.0 } else { 0.0 };
            }
            a[(r, m)] = b[r];
        }
        let g = DVector::from_fn(m, |r, _| (e.image[r] - y[r]) / self.sc[r]);
        (a, g)
    }
    /// Scaled `∂P/∂p` by central differences.
    pub(super) fn param_derivative(&self, z: &DVector<f64>) -> Result<DVector<f64>, String> {
        let (y, p) = (self.y_of(z), self.p_of(z));
        let h = PARAM_STEP * self.ps;
        self.count.set(self.count.get() + 2);
        // Central; one-sided at the end of the parameter's range (e = 0: no e < 0).
        let (a, b, width) = match (self.f.image(p + h, &y), self.f.image(p - h, &y)) {
            (Ok(a), Ok(b)) => (a, b, 2.0 * h),
            (Ok(a), Err(_)) => (a, self.f.image(p, &y)?, h),
            (Err(_), Ok(b)) => (self.f.image(p, &y)?, b, h),
            (Err(why), Err(_)) => return Err(why),
        };
        Ok(DVector::from_fn(self.m(), |r, _| (a[r] - b[r]) / width * self.ps / self.sc[r]))
    }
    /// The unit tangent at `z` oriented along `prev`.
    pub(super) fn tangent(&self, a: &DMatrix<f64>, prev: &DVector<f64>) -> Option<DVector<f64>> {
        let m = self.m();
        let mut k = DMatrix::zeros(m + 1, m + 1);
        k.view_mut((0, 0), (m, m + 1)).copy_from(a);
        for c in 0..=m {
            k[(m, c)] = prev[c];
        }
        let mut rhs = DVector::zeros(m + 1);
        rhs[m] = 1.0;
        let t = k.lu().solve(&rhs)?;
        let n = t.norm();
        (n.is_finite() && n > 0.0).then(|| t / n)
    }
    /// Newton on `G = 0` and `t·(z − z_pred) = 0` from `z_pred`.
    pub(super) fn correct(&self, z_pred: &DVector<f64>, t: &DVector<f64>) -> Result<Corrected, String> {
        let m = self.m();
        let mut z = z_pred.clone();
        let b = self.param_derivative(&z)?;
        for it in 1..=MAX_CORRECTOR {
            let e = self.evaluate(self.p_of(&z), &self.y_of(&z))?;
            let (a, g) = self.jacobian(&z, &e, &b);
            let res = g.amax();
            let arc = t.dot(&(&z - z_pred));
            if res <= self.s.newton_tol && it > 1 {
                let tangent = self.tangent(&a, t).ok_or("singular tangent")?;
                return Ok(Corrected { z, eval: e, tangent, residual: res, iterations: it });
            }
            let mut k = DMatrix::zeros(m + 1, m + 1);
            k.view_mut((0, 0), (m, m + 1)).copy_from(&a);
            for c in 0..=m {
                k[(m, c)] = t[c];
            }
            let mut rhs = DVector::zeros(m + 1);
            rhs.rows_mut(0, m).copy_from(&(-&g));
            rhs[m] = -arc;
            let dz = k.lu().solve(&rhs).ok_or("singular corrector")?;
            z += &dz;
            if !z.iter().all(|v| v.is_finite()) {
                return Err("the corrector diverged".into());
            }
        }
        Err(format!("no convergence in {MAX_CORRECTOR} corrector iterations"))
    }
    /// The fixed point at `p` (Newton in `y` alone, steps halved until the residual
    /// decreases), as a corrected point with its tangent.
    pub(super) fn start(&self, p: f64, y0: &DVector<f64>, dir: f64) -> Result<Corrected, String> {
        let m = self.m();
        let mut z = self.z_of(y0, p);
        let mut e = self.evaluate(p, &self.y_of(&z))?;
        let (mut a, mut g) = self.jacobian(&z, &e, &DVector::zeros(m));
        for it in 1..=4 * MAX_CORRECTOR {
            if g.amax() <= self.s.newton_tol {
                let b = self.param_derivative(&z)?;
                let (a, _) = self.jacobian(&z, &e, &b);
                let mut guess = DVector::zeros(m + 1);
                guess[m] = dir;
                let tangent = self.tangent(&a, &guess).ok_or("singular tangent at the start")?;
                return Ok(Corrected { z, eval: e, tangent, residual: g.amax(), iterations: it });
            }
            let dy = a.columns(0, m).into_owned().lu().solve(&(-&g)).ok_or("singular Newton step at the start")?;
            let mut lam = 1.0;
            let mut accepted = false;
            for _ in 0..12 {
                let mut zn = z.clone();
                for i in 0..m {
                    zn[i] += lam * dy[i];
                }
                if let Ok(en) = self.evaluate(p, &self.y_of(&zn)) {
                    let (an, gn) = self.jacobian(&zn, &en, &DVector::zeros(m));
                    if gn.amax() < g.amax() {
                        (z, e, a, g) = (zn, en, an, gn);
                        accepted = true;
                        break;
                    }
                }
                lam *= 0.5;
            }
            if !accepted {
                return Err("Newton found no descent at the start".into());
            }
        }
        Err("Newton did not converge at the start".into())
    }
    pub(super) fn point(&self, c: &Corrected, p_mult: &Observation) -> BranchPoint {
        let m = self.m();
        let scaled = DMatrix::from_fn(m, m, |r, k| c.eval.jacobian[(r, k)] * self.sc[k] / self.sc[r]);
        let mult = multipliers(&scaled);
        let rho = mult.first().map_or(f64::NAN, |z| z[0].hypot(z[1]));
        BranchPoint {
            p: self.p_of(&c.z),
            y: self.y_of(&c.z).iter().copied().collect(),
            period: c.eval.period,
            returns: c.eval.returns.clone(),
            stable: rho < 1.0,
            spectral_radius: rho,
            multipliers: mult,
            residual: c.residual,
            differenced: c.eval.differenced.clone(),
            observation: p_mult.clone(),
        }
    }
    pub(super) fn observe(&self, c: &Corrected) -> Observation {
        self.f.observe(self.p_of(&c.z), &self.y_of(&c.z))
    }
}

/// The smooth test functions at a point: `t_p`, `det(DP + I)` (scaled), the number of
/// multipliers outside the unit circle and the least distance `||λ| − 1|` of a multiplier to it.
pub(super) fn smooth_tests(pt: &BranchPoint, c: &Corrected, sc: &DVector<f64>) -> (f64, f64, usize, f64) {
    let m = sc.len();
    let tp = c.tangent[m];
    let scaled = DMatrix::from_fn(m, m, |r, k| c.eval.jacobian[(r, k)] * sc[k] / sc[r]);
    let pd = (scaled + DMatrix::identity(m, m)).determinant();
    let outside = pt.multipliers.iter().filter(|z| z[0].hypot(z[1]) > 1.0).count();
    let nearest = pt.multipliers.iter().map(|z| (z[0].hypot(z[1]) - 1.0).abs()).fold(f64::INFINITY, f64::min);
    (tp, pd, outside, nearest)
}

/// The events of a period as the special points see them: the impacts of a series that
/// accumulates at a Zeno point are folded into it, since how many of them are simulated before
/// the series is completed (to the Zeno tolerance) changes with the parameter while the motion
/// does not. The folded run is the impacts just before `zeno(X)`, less leading impacts of a
/// contact other than `X` that does not recur in it (a strike that starts the series stays).
pub(super) fn essential_events(events: &[String]) -> Vec<&str> {
    let mut out: Vec<&str> = vec![];
    for ev in events {
        if let Some(x) = ev.strip_prefix("zeno(") {
            let start = out.iter().rposition(|e| !e.starts_with("impact(")).map_or(0, |k| k + 1);
            let mut from = start;
            let contact = |e: &str| e.trim_start_matches("impact(").trim_end_matches(')').to_string();
            while from < out.len() {
                let c = contact(out[from]);
                let recurs = out[from + 1..].iter().any(|e| contact(e) == c);
                if recurs || format!("{c})") == x {
                    break;
                }
                from += 1;
            }
            out.truncate(from);
        }
        out.push(ev);
    }
    out
}

/// Names what changed between two event sequences.
pub(super) fn classify_events(before: &[String], after: &[String]) -> SpecialKind {
    let count = |v: &[String], pre: &str| v.iter().filter(|e| e.starts_with(pre)).count();
    let changed = |pre: &str| count(before, pre) != count(after, pre);
    let more = |pre: &str| count(after, pre) > count(before, pre);
    if changed("zeno") {
        return if more("zeno") { SpecialKind::ZenoOnset } else { SpecialKind::ZenoEnd };
    }
    if changed("impact") {
        return SpecialKind::Grazing;
    }
    // Slip appears somewhere in a period that had none (or more slip onsets), or vanishes.
    let slips = |v: &[String]| v.iter().filter(|e| e.starts_with("slip-")).count();
    if slips(before) == 0 && slips(after) > 0 || more("slip-onset") {
        return SpecialKind::StickingLost;
    }
    if slips(before) > 0 && slips(after) == 0 || changed("slip-onset") || changed("slip-stop") {
        return SpecialKind::SlipStopped;
    }
    if changed("lift-off") {
        return SpecialKind::LiftOff;
    }
    // The same events with another stick/slip outcome of an impact.
    let slipping = |v: &[String]| v.iter().filter(|e| e.starts_with("impact") && e.ends_with(", slip)")).count();
    if slipping(before) != slipping(after) {
        return SpecialKind::StrikeSlip;
    }
    SpecialKind::EventsChanged
}

/// The branch from the corrected start `c0`.
pub(super) fn run<F: MapFamily + ?Sized>(
    e: &Engine<'_, F>,
    c0: Corrected,
    k: usize,
    parent: Option<usize>,
    genuine: &dyn Fn(&Corrected) -> bool,
    progress: &dyn Fn(f64),
) -> Branch {
    let s = e.s;
    let m = e.m();
    let dir = (s.to - s.from).signum();
    let mut cur = c0;
    let obs0 = e.observe(&cur);
    let mut points = vec![e.point(&cur, &obs0)];
    progress(points[0].p);
    let mut special = vec![];
    let mut h = s.step;
    let end;
    loop {
        if points.len() >= s.max_points {
            end = format!("{} points (max_points)", s.max_points);
            break;
        }
        let pred = &cur.z + &cur.tangent * h;
        let next = match e.correct(&pred, &cur.tangent) {
            Ok(n) if n.tangent.dot(&cur.tangent) < MAX_TURN.cos() => Err("the tangent turned too far".to_string()),
            Ok(n) if (&n.z - &pred).norm() > MAX_CORRECTION * h => Err("the corrector moved too far".to_string()),
            Ok(n) if !genuine(&n) => Err(format!("the orbit collapsed to period {}", k / 2)),
            Ok(n) => Ok(n),
            Err(why) => Err(why),
        };
        let next = match next {
            Ok(n) => n,
            Err(why) => {
                h *= 0.5;
                if h < s.min_step {
                    end = format!("step below min_step at p = {}: {why}", points.last().map_or(f64::NAN, |q| q.p));
                    break;
                }
                continue;
            }
        };
        let last = points.last().expect("a branch has its start").clone();
        let obs = e.observe(&next);
        let pt = e.point(&next, &obs);
        // Special points between `cur` and `next` (found in order along the step).
        let (tp0, pd0, out0, near0) = smooth_tests(&last, &cur, &e.sc);
        let (tp1, pd1, out1, near1) = smooth_tests(&pt, &next, &e.sc);
        let mut found: Vec<(SpecialKind, TestFn)> = vec![];
        if tp0 * tp1 < 0.0 {
            found.push((SpecialKind::Fold, Box::new(move |_, c: &Corrected| c.tangent[m])));
        }
        if pd0 * pd1 < 0.0 {
            let sc = e.sc.clone();
            found.push((SpecialKind::PeriodDoubling, Box::new(move |p, c: &Corrected| smooth_tests(p, c, &sc).1)));
        }
        // Stability changes otherwise (the number of multipliers outside the unit circle changes
        // where the branch neither turns nor doubles): a complex pair through the circle, or a
        // real multiplier through +1 (a branch point, told apart once located). Two real
        // multipliers meeting outside the circle change nothing. The test is the least distance
        // of a multiplier to the circle, signed by whether the count is still the step's first.
        if out0 != out1 && tp0 * tp1 >= 0.0 && pd0 * pd1 >= 0.0 {
            let _ = (near0, near1);
            let sc = e.sc.clone();
            found.push((
                SpecialKind::NeimarkSacker,
                Box::new(move |p, c: &Corrected| {
                    let (_, _, n, d) = smooth_tests(p, c, &sc);
                    if n == out0 {
                        d
                    } else {
                        -d
                    }
                }),
            ));
        }
        // (A failed observation, empty state, compares with nothing.)
        let observed = !obs.state.is_empty() && !last.observation.state.is_empty();
        for (i, (kind, v1)) in obs.tests.iter().enumerate().filter(|_| observed) {
            let v0 = last.observation.tests.get(i).map_or(f64::NAN, |t| t.1);
            if v0 * v1 < 0.0 {
                // A Zeno test is positive with the Zeno orbit: its sign gives onset or end.
                let kind = match kind {
                    SpecialKind::ZenoEnd if v0 < 0.0 => SpecialKind::ZenoOnset,
                    k => *k,
                };
                found.push((kind, Box::new(move |p, _| p.observation.tests.get(i).map_or(f64::NAN, |t| t.1))));
            }
        }
        let mut here = vec![];
        for (kind, f) in found {
            here.push(locate(e, &cur, &last, &next, &pt, h, kind, &*f));
        }
        if observed && essential_events(&obs.events) != essential_events(&last.observation.events) {
            here.push(locate_events(e, &cur, &last, &next, &pt, h));
        }
        here.sort_by(|a, b| ((a.p - last.p) * (pt.p - last.p)).total_cmp(&((b.p - last.p) * (pt.p - last.p))));
        special.extend(here);
        let p_new = pt.p;
        let passed = (p_new - s.to) * dir >= 0.0;
        if passed {
            special.retain(|sp| (sp.p - s.to) * dir <= 0.0);
            // Land on `to`: the fixed point there, from the chord between the last two points.
            let w = (s.to - last.p) / (p_new - last.p);
            let z = &cur.z + (&next.z - &cur.z) * w;
            let landed = e.start(s.to, &e.y_of(&z), dir).map(|c| {
                let o = e.observe(&c);
                e.point(&c, &o)
            });
            points.push(pt);
            if let Ok(at_to) = landed {
                if (at_to.p - s.to).abs() <= f64::EPSILON * e.ps.max(s.to.abs()) {
                    points.pop();
                    points.push(at_to);
                }
            }
            progress(s.to);
            end = format!("reached {}", s.to);
            break;
        }
        let iterations = next.iterations;
        cur = next;
        points.push(pt);
        progress(p_new);
        // Back past the start (after a fold, or a doubled branch growing away from `to`).
        if (p_new - s.from) * dir < -1e-9 * e.ps {
            end = format!("turned back past the start ({} = {}) at p = {p_new}", "from", s.from);
            break;
        }
        if iterations <= 3 {
            h = (h * 1.5).min(s.max_step);
        }
    }
    Branch { period_multiple: k, parent, points, special, end }
}

/// Locates a sign change of `f` between `cur` (at step 0) and `next` (at step `h`) by the
/// Illinois method on the step length.
#[allow(clippy::too_many_arguments)]
pub(super) fn locate<F: MapFamily + ?Sized>(
    e: &Engine<'_, F>,
    cur: &Corrected,
    p0: &BranchPoint,
    next: &Corrected,
    p1: &BranchPoint,
    h: f64,
    kind: SpecialKind,
    f: &dyn Fn(&BranchPoint, &Corrected) -> f64,
) -> SpecialPoint {
    let (mut a, mut fa) = (0.0, f(p0, cur));
    let (mut b, mut fb) = (h, f(p1, next));
    // The parameter at the bracket's ends (not linear in the step near a fold).
    let (mut pa, mut pb) = (p0.p, p1.p);
    let mut best = (p1.clone(), next.clone());
    let mut side = 0i8;
    let tol = e.s.locate_tol;
    for trial in 0..MAX_LOCATE {
        // (A fold inside the step can leave both ends at nearly the same parameter: try.)
        if (pb - pa).abs() <= tol * e.ps && (kind != SpecialKind::Fold || trial >= 3) {
            break;
        }
        let mut x = (a * fb - b * fa) / (fb - fa);
        if !x.is_finite() || x <= a || x >= b {
            x = 0.5 * (a + b);
        }
        // (A trial exactly at a branch point, where the corrector is singular, is moved a
        // little toward the bracket's middle.)
        let trial_at = |x: f64| e.correct(&(&cur.z + &cur.tangent * x), &cur.tangent);
        let c = match trial_at(x) {
            Ok(c) => c,
            Err(_) => {
                x += 0.01 * (0.5 * (a + b) - x) + 1e-3 * (b - a) * (0.5 * (a + b) - x).signum();
                let Ok(c) = trial_at(x) else { break };
                c
            }
        };
        let pt = e.point(&c, &e.observe(&c));
        let fx = f(&pt, &c);
        if !fx.is_finite() {
            break;
        }
        if fx * fa > 0.0 {
            (a, fa, pa) = (x, fx, pt.p);
            if side == -1 {
                fb *= 0.5;
            }
            side = -1;
        } else {
            (b, fb, pb) = (x, fx, pt.p);
            if side == 1 {
                fa *= 0.5;
            }
            side = 1;
        }
        best = (pt, c);
        if fx == 0.0 {
            break;
        }
    }
    let bracket = (pb - pa).abs();
    let _ = (a, b);
    // A change of stability located as a pair's crossing is a branch point when the multiplier
    // on the circle there is real.
    let on_circle = best
        .0
        .multipliers
        .iter()
        .min_by(|x, y| (x[0].hypot(x[1]) - 1.0).abs().total_cmp(&(y[0].hypot(y[1]) - 1.0).abs()));
    let kind = match (kind, on_circle) {
        (SpecialKind::NeimarkSacker, Some(z)) if z[1] == 0.0 && z[0] > 0.0 => SpecialKind::BranchPoint,
        (k, _) => k,
    };
    let detail = match kind {
        SpecialKind::PeriodDoubling | SpecialKind::NeimarkSacker | SpecialKind::Fold | SpecialKind::BranchPoint => {
            let z = best.0.multipliers.iter().min_by(|x, y| {
                let target = if kind == SpecialKind::PeriodDoubling { -1.0 } else { 1.0 };
                let d = |z: &[f64; 2]| {
                    if kind == SpecialKind::NeimarkSacker {
                        (z[0].hypot(z[1]) - 1.0).abs() + if z[1] == 0.0 { 1.0 } else { 0.0 }
                    } else {
                        (z[0] - target).hypot(z[1])
                    }
                };
                d(x).total_cmp(&d(y))
            });
            z.map_or(String::new(), |z| format!("multiplier {:.6} {:+.6}i", z[0], z[1]))
        }
        SpecialKind::PainleveOnset => {
            // B < 0 on the earlier point's side when the test was negative there.
            let earlier_smaller = p0.p < best.0.p;
            let side = if (fa < 0.0) == earlier_smaller { "smaller" } else { "larger" };
            format!("B < 0 somewhere on the orbit for {side} values of the parameter")
        }
        SpecialKind::Scuffing => {
            let earlier_smaller = p0.p < best.0.p;
            let side = if (fa < 0.0) == earlier_smaller { "smaller" } else { "larger" };
            format!("a contact that ignores scuffing passes below its line for {side} values of the parameter")
        }
        _ => String::new(),
    };
    SpecialPoint { kind, p: best.0.p, bracket, point: best.0, detail }
}

/// Locates where the period's events change between `cur` and `next` by bisection.
pub(super) fn locate_events<F: MapFamily + ?Sized>(
    e: &Engine<'_, F>,
    cur: &Corrected,
    p0: &BranchPoint,
    next: &Corrected,
    p1: &BranchPoint,
    h: f64,
) -> SpecialPoint {
    let (mut a, mut b) = (0.0, h);
    let (mut pa, mut pb) = (p0.p, p1.p);
    let ev_a = p0.observation.events.clone();
    let mut ev_b = p1.observation.events.clone();
    let mut best = p1.clone();
    let _ = next;
    for _ in 0..MAX_LOCATE {
        if (pb - pa).abs() <= e.s.locate_tol * e.ps {
            break;
        }
        // The midpoint, or (where no orbit is corrected there) a point nearer either end.
        let tried = [0.5, 0.25, 0.75, 0.125, 0.875].iter().find_map(|&f| {
            let x = a + f * (b - a);
            e.correct(&(&cur.z + &cur.tangent * x), &cur.tangent).ok().map(|c| (x, c))
        });
        let Some((x, c)) = tried else { break };
        let pt = e.point(&c, &e.observe(&c));
        if essential_events(&pt.observation.events) == essential_events(&ev_a) {
            (a, pa) = (x, pt.p);
        } else {
            (b, pb) = (x, pt.p);
            ev_b = pt.observation.events.clone();
            best = pt;
        }
    }
    let own = |v: &[String]| essential_events(v).into_iter().map(str::to_string).collect::<Vec<_>>();
    let kind = classify_events(&own(&ev_a), &own(&ev_b));
    let detail = format!("events [{}] -> [{}]", p0.observation.events.join(", "), ev_b.join(", "));
    let bracket = (pb - pa).abs();
    SpecialPoint { kind, p: best.p, bracket, point: best, detail }
}
