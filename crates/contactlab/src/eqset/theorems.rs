//! Theorems 1 and 2 of P5 for one set of a one-degree-of-freedom system, each hypothesis checked
//! on samples and reported with what was checked.
//!
//! Theorem 1 (attractivity) takes `V = T + U − U(q_e)` (P5 (10)) around a minimum `q_e` of `U`,
//! with 𝒰 of (9) and `Q = 𝒰 × ℝ`; its `c*` is the lowest mountain pass of `U` from `q_e` to the
//! neighbouring sets and to the edges of 𝒰, so that `{V < c*}` lies in `Q` and holds no other
//! equilibrium set (P5 Section IV; not the closed form (23)). Theorem 2 (instability) takes
//! P5's (24), `V = U(q_e) − U − T`, around a maximum of `U`.

use std::collections::BTreeMap;

use serde::Serialize;

use super::onedof::OneDof;
use super::{v1, EqsetSettings, SetInterval};
use crate::mechanics::sliders::SliderSystem;
use crate::Error;

/// The smallest normalised dissipation `(D_nc + D_λT)/(F|q̇|)` over the samples is strictly
/// positive when it exceeds `STRICT_DISSIPATION`.
pub const STRICT_DISSIPATION: f64 = 1e-9;
/// Theorem 2's points "arbitrarily close" to the set are taken `OUTSIDE_STEP` of the coordinate
/// scale outside its end.
pub const OUTSIDE_STEP: f64 = 1e-6;

/// One checked hypothesis: whether it holds and what was checked.
#[derive(Debug, Clone, Serialize)]
pub struct Condition {
    /// Whether it holds (on the samples described).
    pub holds: bool,
    /// What was checked, with the numbers.
    pub detail: String,
}

fn cond(holds: bool, detail: impl Into<String>) -> Condition {
    Condition { holds, detail: crate::output::tidy_zeros(&detail.into()) }
}

/// Theorem 1 for one set.
#[derive(Debug, Clone, Serialize)]
pub struct Theorem1 {
    /// The equilibrium `q_e` of the frictionless system in the set (a minimum of `U`).
    pub q_e: f64,
    /// `𝒰`: the largest interval around `q_e` where `U > U(q_e)` and `U' ≠ 0` (P5 (9)).
    pub region_u: (f64, f64),
    /// Conditions `"1"` to `"5"`.
    pub conditions: BTreeMap<String, Condition>,
    /// `c*` (of `V = T + U − U(q_e)`).
    pub c_star: f64,
    /// What bounds `c*`.
    pub c_star_limited_by: String,
    /// The sublevel set `{V < c*}` around the set spans `q ∈ (q_lo, q_hi)`.
    pub level_set_span: (f64, f64),
    /// All five conditions hold: the set is locally attractive with `{V < c*}` in its basin.
    pub attractive: bool,
}

/// Theorem 2 for one set, with `V = U(q_e) − U − T` (P5 (24)).
#[derive(Debug, Clone, Serialize)]
pub struct Theorem2 {
    /// The equilibrium `q_e` of the frictionless system in the set (a maximum of `U`).
    pub q_e: f64,
    /// `V_E = max over the set of V`.
    pub v_e: f64,
    /// The radius `r` of the environment `D_r` (half the distance to the nearest other set).
    pub r: f64,
    /// Hypotheses shared by the statements.
    pub hypotheses: BTreeMap<String, Condition>,
    /// Statements `"1"`, `"2"`, `"3"`: whether their conditions hold.
    pub statements: BTreeMap<String, Condition>,
    /// Statement 1 or 3 applies.
    pub unstable: bool,
    /// Statement 2 applies.
    pub not_attractive: bool,
}

fn samples(a: f64, b: f64, n: usize) -> Vec<f64> {
    (1..n).map(|k| a + (b - a) * k as f64 / n as f64).collect()
}

/// Theorem 1 for set `i` of `sets` (from [`equilibrium_sets`](super::equilibrium_sets)); `None`
/// when the set holds no minimum of the potential (the theorem does not apply).
pub fn theorem1<S: SliderSystem<1, M>, const M: usize>(
    sys: &S,
    sets: &[SetInterval],
    i: usize,
    settings: &EqsetSettings,
) -> Result<Option<Theorem1>, Error> {
    let set = sets[i];
    let one = OneDof::<S, M> { sys, period: sys.period(0) };
    let Some(&(q_e, _)) = one.critical_points(set.lo, set.hi).iter().find(|c| c.1 == 1) else {
        return Ok(None);
    };
    let reach = one.period.map_or(settings.q_max - settings.q_min, |p| p);
    let ((ua, ub), (open_a, open_b)) = one.region_u(q_e, reach);
    let ue = one.u(q_e);
    let es = sys.force_scale() * sys.coordinate_scale();
    let qs = samples(ua, ub, 64);
    let mut c = BTreeMap::new();
    // 1: M > 0.
    let m_min = qs.iter().map(|&q| sys.inertia(&v1(q))[(0, 0)]).fold(f64::INFINITY, f64::min);
    c.insert(
        "1".to_string(),
        cond(m_min > 0.0, format!("M(q) = M(q)ᵀ > 0 on {} samples of 𝒰 (smallest {m_min:.6})", qs.len())),
    );
    // 2: U positive definite around q_e with U' ≠ 0 on 𝒰, and the set inside 𝒰.
    let inside_u = set.lo > ua && set.hi < ub;
    let others: Vec<String> = sets
        .iter()
        .enumerate()
        .filter(|&(j, s)| {
            j != i && {
                let p = one.period.unwrap_or(0.0);
                [-p, 0.0, p].iter().any(|&sh| s.hi + sh > ua && s.lo + sh < ub)
            }
        })
        .map(|(_, s)| format!("[{:.6}, {:.6}]", s.lo, s.hi))
        .collect();
    let mut detail = format!(
        "U − U(q_e) > 0 and U' ≠ 0 on 𝒰 = ({ua:.6}, {ub:.6}) \\ {{q_e = {q_e:.6}}}{}; the set [{:.6}, {:.6}] {} 𝒰",
        if open_a || open_b { " (𝒰 reaches the scanned range)" } else { "" },
        set.lo,
        set.hi,
        if inside_u { "lies in" } else { "is not inside" }
    );
    if !others.is_empty() {
        detail += &format!(
            "; Q also meets the equilibrium set(s) {} (so, as in P5 Section IV, the estimate is restricted to the level set V < c* of condition 5)",
            others.join(", ")
        );
    }
    c.insert("2".to_string(), cond(inside_u, detail));
    // 3 and 4: dissipation.
    let (nc_ok, worst, wq, wv) = one.dissipation(&qs)?;
    c.insert(
        "3".to_string(),
        cond(nc_ok, format!("D_nc = −q̇ f_nc ≥ 0 and f_nc(q, 0) = 0 on {} samples of 𝒰 × {} velocities", qs.len(), 8)),
    );
    c.insert(
        "4".to_string(),
        cond(
            worst > STRICT_DISSIPATION,
            format!(
                "D_nc + D_λT > 0 for q̇ ≠ 0 on the same samples: smallest (D_nc + D_λT)/(F |q̇|) = {worst:.6} at q = {wq:.4}, q̇ = {wv:.4}"
            ),
        ),
    );
    // c*: the level set must stay in Q and reach no other set.
    let (left, right) = one.neighbours(sets, i);
    let mut limits: Vec<(f64, String)> = Vec::new();
    if !open_a {
        limits.push((one.mountain(ua, q_e) - ue, format!("the edge of 𝒰 at q = {ua:.6}")));
    }
    if !open_b {
        limits.push((one.mountain(q_e, ub) - ue, format!("the edge of 𝒰 at q = {ub:.6}")));
    }
    if let Some(l) = left {
        limits.push((one.mountain(l, set.lo) - ue, format!("the equilibrium set ending at q = {l:.6}")));
    }
    if let Some(r) = right {
        limits.push((one.mountain(set.hi, r) - ue, format!("the equilibrium set starting at q = {r:.6}")));
    }
    let (c_star, by) = limits
        .into_iter()
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .unwrap_or((f64::INFINITY, "nothing in the scanned range".to_string()));
    let (span_lo, span_hi) = if c_star.is_finite() {
        one.sublevel_span(q_e, c_star, ua.min(left.unwrap_or(ua)), ub.max(right.unwrap_or(ub)))
    } else {
        (ua, ub)
    };
    let v_set = one.u(set.lo).max(one.u(set.hi)) - ue;
    c.insert(
        "5".to_string(),
        cond(
            v_set < c_star - super::RELATIVE_ZERO * es,
            format!("max of V on the set = {v_set:.6} < c* = {c_star:.6} (c* limited by {by})"),
        ),
    );
    let attractive = c.values().all(|x| x.holds);
    Ok(Some(Theorem1 {
        q_e,
        region_u: (ua, ub),
        conditions: c,
        c_star,
        c_star_limited_by: by,
        level_set_span: (span_lo, span_hi),
        attractive,
    }))
}

/// Theorem 2 for set `i` with P5's `V = U(q_e) − U − T`; `None` when the set holds no maximum of
/// the potential.
pub fn theorem2<S: SliderSystem<1, M>, const M: usize>(
    sys: &S,
    sets: &[SetInterval],
    i: usize,
) -> Result<Option<Theorem2>, Error> {
    let set = sets[i];
    let one = OneDof::<S, M> { sys, period: sys.period(0) };
    let Some(&(q_e, _)) = one.critical_points(set.lo, set.hi).iter().find(|c| c.1 == -1) else {
        return Ok(None);
    };
    let ue = one.u(q_e);
    let es = sys.force_scale() * sys.coordinate_scale();
    let vq = |q: f64| ue - one.u(q);
    // V_E over the set (at rest).
    let on_set = samples(set.lo, set.hi, 400).into_iter().chain([set.lo, set.hi]);
    let (v_e, q_max) = on_set.map(|q| (vq(q), q)).fold((f64::NEG_INFINITY, 0.0), |a, b| if b.0 > a.0 { b } else { a });
    let (left, right) = one.neighbours(sets, i);
    let gap = [left.map(|l| set.lo - l), right.map(|r| r - set.hi)].into_iter().flatten().fold(f64::INFINITY, f64::min);
    let r = if gap.is_finite() { 0.5 * gap } else { sys.coordinate_scale() };
    let mut hyp = BTreeMap::new();
    hyp.insert(
        "V_E > 0".to_string(),
        cond(v_e > super::RELATIVE_ZERO * es, format!("V_E = {v_e:.6} at q = {q_max:.6}")),
    );
    // Points arbitrarily close to the set with V > V_E: just outside the end where V = V_E.
    let eps = OUTSIDE_STEP * sys.coordinate_scale();
    let outward = if (q_max - set.lo).abs() <= (q_max - set.hi).abs() { set.lo - eps } else { set.hi + eps };
    hyp.insert(
        "V(x0) > V_E arbitrarily close".to_string(),
        cond(vq(outward) > v_e, format!("V = {:.9} at q = {outward:.9}, q̇ = 0, vs V_E = {v_e:.9}", vq(outward))),
    );
    let qs: Vec<f64> = samples(set.lo - r, set.hi + r, 64);
    let (nc_ok, worst, wq, wv) = one.dissipation(&qs)?;
    let vdot_ok = nc_ok && worst >= -super::RELATIVE_ZERO;
    hyp.insert(
        "V̇ ≥ 0 in W \\ E".to_string(),
        cond(
            vdot_ok,
            format!(
                "V̇ = D_nc + D_λT ≥ 0 on {} samples of D_r × 8 velocities (smallest (D_nc + D_λT)/(F|q̇|) = {worst:.6} at q = {wq:.4}, q̇ = {wv:.4})",
                qs.len()
            ),
        ),
    );
    let s_is_rest = worst > STRICT_DISSIPATION;
    // Points of W \ E at rest: q in D_r \ E with V(q, 0) ≥ 0.
    let outside: Vec<f64> =
        samples(set.lo - r, set.lo, 50).into_iter().chain(samples(set.hi, set.hi + r, 50)).collect();
    let rest_in_w = outside.iter().find(|&&q| vq(q) >= 0.0);
    let mut st = BTreeMap::new();
    st.insert(
        "1".to_string(),
        cond(
            vdot_ok && rest_in_w.is_none(),
            match rest_in_w {
                Some(q) => format!("V̇ = 0 at rest points of W \\ E such as q = {q:.6}, so V̇ > 0 fails"),
                None => "V̇ > 0 in W \\ E".to_string(),
            },
        ),
    );
    let v_min_on_set = samples(set.lo, set.hi, 400).into_iter().map(vq).fold(f64::INFINITY, f64::min).min(vq(q_e));
    st.insert(
        "2".to_string(),
        cond(
            vdot_ok && v_min_on_set > super::RELATIVE_ZERO * es,
            format!("E ⊂ int(W) needs V > 0 on E; its smallest value there is {v_min_on_set:.3e} (at q_e, V = 0)"),
        ),
    );
    st.insert(
        "3".to_string(),
        cond(
            vdot_ok && s_is_rest,
            format!(
                "S = {{V̇ = 0}} = {{q̇ = 0}} (dissipation > 0 off rest), and D_r (r = {r:.6}) holds no equilibrium but E, so no solution stays in S \\ E"
            ),
        ),
    );
    let pre = hyp.values().all(|c| c.holds);
    let unstable = pre && (st["1"].holds || st["3"].holds);
    let not_attractive = pre && st["2"].holds;
    Ok(Some(Theorem2 { q_e, v_e, r, hypotheses: hyp, statements: st, unstable, not_attractive }))
}
