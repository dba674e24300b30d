//! Stability verdict of a two-contact frictional equilibrium (P1, Theorems 1–5).
//!
//! In order:
//! 1. no consistent `SS`: no equilibrium;
//! 2. another mode consistent at rest: ambiguous, not FTLS (**Theorem 1**);
//! 3. a Painlevé state (no or several consistent modes): outside the theory, undetermined;
//! 4. a fixed point `φ*` of `R` with `G(φ*) > 1`: not FTLS by reverse chatter (**Theorem 2**);
//! 5. persistent and `G < 1` wherever `R` is defined: FTLS (**Theorem 3**);
//! 6. weakly persistent, `R` non-decreasing and `G(φ*) < 1` at every fixed point: FTLS
//!    (**Theorem 5**);
//! 7. weakly persistent with a stable partition (every interval safe or transient,
//!    `G± ≠ 1`): FTLS (**Theorem 4a**; persistent: Theorem 4);
//! 8. otherwise undetermined.
//!
//! Weak persistence (Definition 2) is checked per slip direction: persistent in that direction,
//! or the double-slip mode is not attractive, i.e. (a) `|R(±π/2)| < π/2` or `R'(±π/2) > 1` and
//! (b) no sampled return contains a slipping double impact in that direction.
//!
//! The stable partition is built on the sample grid: each cell between consecutive samples is
//! safe if `G < 1` at both ends, otherwise it must be transient: `R(φ) − φ` of one sign on the cell
//! and the cell on no cycle of the interval graph (edges from a cell to every cell meeting the
//! interval spanned by `R` at its ends; strongly connected components by Tarjan's algorithm).

use std::f64::consts::FRAC_PI_2;

use serde::Serialize;

use super::modes::{analyze, Mode};
use super::poincare::{fixed_points, sample, MapFixedPoint, MapPoint, ReturnStatus};
use super::sim::Simulator;
use super::zod::Zod;
use super::TwoContact;
use crate::output::fmt_num;
use crate::Error;

/// `G = 1` at a fixed point (neither theorem applies) when `|G − 1|` is within this.
pub const UNIT_GAIN_TOL: f64 = 1e-6;
/// `R` counts as non-decreasing on the samples when no step decreases it by more than this
/// (rad): the return angles carry integration errors of that order.
pub const MONOTONE_TOL: f64 = 1e-9;

/// The verdict and its evidence (the JSON of `contactlab equilibrium classify`).
#[derive(Debug, Clone, Serialize)]
pub struct ConfigClassification {
    /// `SS` consistent at rest.
    pub equilibrium: bool,
    /// Another mode is consistent at rest.
    pub ambiguous: bool,
    /// No Painlevé state near the equilibrium.
    pub painleve_free: bool,
    /// Persistent in both slip directions.
    pub persistent: bool,
    /// Weakly persistent (Definition 2).
    pub weakly_persistent: bool,
    /// Consistent modes at rest.
    pub modes_at_rest: Vec<Mode>,
    /// Fixed points of `R`.
    pub fixed_points: Vec<MapFixedPoint>,
    /// `G⁻`: the constant value of `G` near `−π/2` when `R → −π/2` (Lemma 2a, set 1).
    #[serde(rename = "G_minus")]
    pub g_minus: Option<f64>,
    /// `G⁺` likewise near `+π/2`.
    #[serde(rename = "G_plus")]
    pub g_plus: Option<f64>,
    /// `R` non-decreasing over its defined samples.
    #[serde(rename = "R_monotone")]
    pub r_monotone: bool,
    /// The verdict (see [`Verdict`]).
    pub verdict: Verdict,
    /// The theorem that decided it.
    pub theorem: Theorem,
    /// One sentence of evidence.
    pub evidence: String,
    /// Largest `G` over defined samples.
    pub max_g: Option<f64>,
    /// Samples of `φ` used.
    pub samples: usize,
    /// Samples whose return neither crossed the section nor came to rest (diverged, moved away,
    /// Painlevé, event limit): the maps are unknown there, so no stability theorem is applied.
    pub failed_samples: usize,
    /// Sign changes of `R(φ) − φ` that could not be resolved into fixed points.
    pub unresolved_fixed_points: usize,
    /// Some consistency decision was marginal (P1 excludes such systems): verdict undetermined.
    pub marginal: bool,
    /// The verdict proved in interval arithmetic over all `φ`, or why not
    /// ([`super::proof::prove_verdict`]); absent where not asked for (atlas cells).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proof: Option<super::proof::VerdictProof>,
}

/// Behaviour of `R` and `G` at an endpoint `φ → ±π/2` (P1, Lemmas 2 and 2a).
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Endpoint {
    /// `+1` for `φ → +π/2`, `−1` for `φ → −π/2`.
    pub side: i8,
    /// `R` at the outermost defined sample.
    #[serde(rename = "R")]
    pub r: Option<f64>,
    /// `G` there.
    #[serde(rename = "G")]
    pub g: Option<f64>,
    /// Secant slope of `R` there (`→ G±` under Lemma 2).
    pub slope: Option<f64>,
    /// `1`: `R → ±π/2` with constant `G± = G` (Lemma 2 / set 1 of Lemma 2a); `2`: `R → R±` with
    /// `|R±| < π/2` and `G → ∞` (set 2 of Lemma 2a); `0`: undefined there.
    pub set: u8,
}

/// The endpoint behaviour from the sampled maps.
pub fn endpoints(pts: &[MapPoint]) -> [Endpoint; 2] {
    [false, true].map(|plus| {
        let (r, g, slope) = endpoint(pts, plus);
        let target = if plus { FRAC_PI_2 } else { -FRAC_PI_2 };
        let set = match r {
            None => 0,
            Some(r) if (r - target).abs() < 0.05 => 1,
            Some(_) => 2,
        };
        Endpoint { side: if plus { 1 } else { -1 }, r, g, slope, set }
    })
}

fn endpoint(pts: &[MapPoint], plus: bool) -> (Option<f64>, Option<f64>, Option<f64>) {
    // (R at the end, G at the end, R' at the end) from the last two defined samples.
    let it: Vec<&MapPoint> = if plus { pts.iter().rev().take(2).collect() } else { pts.iter().take(2).collect() };
    if it.len() < 2 {
        return (None, None, None);
    }
    match (it[0].r, it[1].r, it[0].g) {
        (Some(r0), Some(r1), Some(g0)) => (Some(r0), Some(g0), Some((r0 - r1) / (it[0].phi - it[1].phi))),
        _ => (None, None, None),
    }
}

/// Whether each node lies on a cycle (a strongly connected component of more than one node;
/// the graphs here have no self-edges).
fn on_cycle(adj: &[Vec<usize>]) -> Vec<bool> {
    let comp = components(adj);
    let mut size = vec![0usize; adj.len()];
    for &c in &comp {
        size[c] += 1;
    }
    comp.iter().map(|&c| size[c] > 1).collect()
}

/// Tarjan's strongly connected components: the component of each node (numbered from 0).
pub(crate) fn components(adj: &[Vec<usize>]) -> Vec<usize> {
    let n = adj.len();
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut comp = vec![usize::MAX; n];
    let mut counter = 0;
    let mut ncomp = 0;
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        // Iterative DFS: (node, next edge index).
        let mut call: Vec<(usize, usize)> = vec![(root, 0)];
        index[root] = counter;
        low[root] = counter;
        counter += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut ei)) = call.last_mut() {
            if *ei < adj[v].len() {
                let w = adj[v][*ei];
                *ei += 1;
                if index[w] == usize::MAX {
                    index[w] = counter;
                    low[w] = counter;
                    counter += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    call.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
            } else {
                call.pop();
                if let Some(&(u, _)) = call.last() {
                    low[u] = low[u].min(low[v]);
                }
                if low[v] == index[v] {
                    while let Some(w) = stack.pop() {
                        on_stack[w] = false;
                        comp[w] = ncomp;
                        if w == v {
                            break;
                        }
                    }
                    ncomp += 1;
                }
            }
        }
    }
    comp
}

/// Whether the sample grid yields a stable partition (see the module docs).
pub fn stable_partition(pts: &[MapPoint]) -> bool {
    let cells: Vec<(usize, usize)> = (0..pts.len().saturating_sub(1)).map(|k| (k, k + 1)).collect();
    let n = cells.len();
    if n == 0 {
        return false;
    }
    let phi_lo = |c: usize| pts[cells[c].0].phi;
    let phi_hi = |c: usize| pts[cells[c].1].phi;
    let find = |x: f64| -> usize {
        // Cell containing x (clamped).
        let pos = pts.partition_point(|p| p.phi <= x);
        pos.saturating_sub(1).min(n - 1)
    };
    let mut adj = vec![Vec::new(); n];
    for c in 0..n {
        let (a, b) = (&pts[cells[c].0], &pts[cells[c].1]);
        let (Some(ra), Some(rb)) = (a.r, b.r) else { continue };
        let (lo, hi) = (find(ra.min(rb)), find(ra.max(rb)));
        for d in lo..=hi {
            if d != c {
                adj[c].push(d);
            }
        }
    }
    let cyc = on_cycle(&adj);
    (0..n).all(|c| {
        let (a, b) = (&pts[cells[c].0], &pts[cells[c].1]);
        match (a.status, b.status) {
            // R undefined at both ends (the motion comes to rest): nothing to iterate.
            (ReturnStatus::Rest, ReturnStatus::Rest) => return true,
            (ReturnStatus::Returned, ReturnStatus::Returned) => {}
            // Partly defined or failed: the cell's behaviour is not known.
            _ => return false,
        }
        let safe = a.g.is_some_and(|g| g < 1.0) && b.g.is_some_and(|g| g < 1.0);
        let (da, db) = (a.r.unwrap_or(0.0) - a.phi, b.r.unwrap_or(0.0) - b.phi);
        let one_signed = da * db > 0.0;
        let _ = (phi_lo(c), phi_hi(c));
        safe || (one_signed && !cyc[c])
    })
}

/// What decided a verdict: one of P1's theorems, or why none applies. Serialised (and shown) as
/// the report and the CLI print it (`Theorem 2`, `none`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
pub enum Theorem {
    /// No contact forces in the friction cones balance the load (no equilibrium).
    #[serde(rename = "SS inconsistent")]
    SsInconsistent,
    /// A mode's consistency depends on terms the zero-order dynamics neglects.
    #[serde(rename = "marginal")]
    Marginal,
    /// Theorem 1: several modes consistent at rest (ambiguous, unstable).
    #[serde(rename = "Theorem 1")]
    Theorem1,
    /// Painlevé states: P1's theorems do not apply.
    #[serde(rename = "Painlevé")]
    Painleve,
    /// Theorem 2: a fixed point with `G* > 1` (reverse chatter, unstable).
    #[serde(rename = "Theorem 2")]
    Theorem2,
    /// Theorem 3: persistent with `G < 1` wherever `R` is defined.
    #[serde(rename = "Theorem 3")]
    Theorem3,
    /// Theorem 4: a stable partition (persistent).
    #[serde(rename = "Theorem 4")]
    Theorem4,
    /// Theorem 4 for a weakly persistent equilibrium.
    #[serde(rename = "Theorem 4a")]
    Theorem4a,
    /// Theorem 5: weakly persistent, `R` non-decreasing, `G* < 1` at every fixed point.
    #[serde(rename = "Theorem 5")]
    Theorem5,
    /// No theorem applies (or the maps are incomplete).
    #[serde(rename = "none")]
    None,
    /// Not evaluated (an atlas cell outside the model's range).
    #[serde(rename = "")]
    NotEvaluated,
}

impl Theorem {
    /// The name as printed.
    pub fn as_str(&self) -> &'static str {
        match self {
            Theorem::SsInconsistent => "SS inconsistent",
            Theorem::Marginal => "marginal",
            Theorem::Theorem1 => "Theorem 1",
            Theorem::Painleve => "Painlevé",
            Theorem::Theorem2 => "Theorem 2",
            Theorem::Theorem3 => "Theorem 3",
            Theorem::Theorem4 => "Theorem 4",
            Theorem::Theorem4a => "Theorem 4a",
            Theorem::Theorem5 => "Theorem 5",
            Theorem::None => "none",
            Theorem::NotEvaluated => "",
        }
    }
}

impl std::fmt::Display for Theorem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// P1's verdict on an equilibrium, serialised as the CLI prints it (`reverse-chatter-unstable`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// No contact forces balance the load (SS inconsistent).
    NoEquilibrium,
    /// Several modes consistent at rest: unstable by Theorem 1.
    AmbiguousUnstable,
    /// A fixed point of R with G* > 1: unstable by Theorem 2.
    ReverseChatterUnstable,
    /// Stable by Theorem 3, 4 or 5.
    Stable,
    /// No theorem decides (marginal modes, Painlevé states, or none applies).
    Undetermined,
    /// Parameters out of range (atlas cells only).
    Invalid,
}

impl Verdict {
    /// Every verdict, in legend order.
    pub const ALL: [Verdict; 6] = [
        Verdict::NoEquilibrium,
        Verdict::AmbiguousUnstable,
        Verdict::ReverseChatterUnstable,
        Verdict::Stable,
        Verdict::Undetermined,
        Verdict::Invalid,
    ];

    /// The kebab-case name.
    pub fn as_str(&self) -> &'static str {
        match self {
            Verdict::NoEquilibrium => "no-equilibrium",
            Verdict::AmbiguousUnstable => "ambiguous-unstable",
            Verdict::ReverseChatterUnstable => "reverse-chatter-unstable",
            Verdict::Stable => "stable",
            Verdict::Undetermined => "undetermined",
            Verdict::Invalid => "invalid",
        }
    }

    /// The verdict's colour in every figure: light grey, then the colour-blind-safe palette's
    /// orange, vermillion, bluish green and reddish purple, and white.
    pub fn colour(&self) -> (u8, u8, u8) {
        use crate::plot::palette;
        match self {
            Verdict::NoEquilibrium => (215, 215, 215),
            Verdict::AmbiguousUnstable => palette(3),
            Verdict::ReverseChatterUnstable => palette(1),
            Verdict::Stable => palette(2),
            Verdict::Undetermined => palette(4),
            Verdict::Invalid => (255, 255, 255),
        }
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Classifies the equilibrium of `p` with `samples` values of `φ`.
///
/// # Example
/// ```
/// use contactlab::paper_configs::p1::config;
/// use contactlab::twocontact::classify::{classify, Verdict};
///
/// // P1's configuration D, then the same body with its centre of mass 12 mm further downhill.
/// let d = config("D").unwrap();
/// assert_eq!(classify(&d, 401)?.verdict, Verdict::ReverseChatterUnstable);
/// let moved = contactlab::twocontact::TwoContact { l1: d.l1 - 0.012, l2: d.l2 - 0.012, ..d };
/// let c = classify(&moved, 401)?;
/// println!("{} by {}: {}", c.verdict, c.theorem, c.evidence);
/// assert_eq!(c.verdict, Verdict::Stable);
/// # Ok::<(), contactlab::Error>(())
/// ```
pub fn classify(p: &TwoContact, samples: usize) -> Result<ConfigClassification, Error> {
    let zod = Zod::new(p)?;
    let eq = analyze(&zod)?;
    let sim = Simulator::new(zod)?;
    let pts = sample(&sim, samples)?;
    let found = fixed_points(&sim, &pts)?;
    let fps = found.points;
    let failed_samples = pts.iter().filter(|q| q.status == ReturnStatus::Failed).count();
    // Stability theorems need the maps known everywhere they matter.
    let maps_complete = failed_samples == 0 && found.unresolved == 0;
    let not_one = |g: Option<f64>| g.is_none_or(|g| (g - 1.0).abs() > UNIT_GAIN_TOL);
    let (r_minus, g_end_minus, dr_minus) = endpoint(&pts, false);
    let (r_plus, g_end_plus, dr_plus) = endpoint(&pts, true);
    let near = |r: Option<f64>, target: f64| r.is_some_and(|r| (r - target).abs() < 0.05);
    let g_minus = if near(r_minus, -FRAC_PI_2) { g_end_minus } else { None };
    let g_plus = if near(r_plus, FRAC_PI_2) { g_end_plus } else { None };
    let defined: Vec<&MapPoint> = pts.iter().filter(|q| q.r.is_some()).collect();
    let r_monotone = defined.windows(2).all(|w| w[1].r.unwrap_or(0.0) >= w[0].r.unwrap_or(0.0) - MONOTONE_TOL);
    let max_g = defined.iter().filter_map(|q| q.g).fold(None, |m: Option<f64>, g| Some(m.map_or(g, |m| m.max(g))));
    let double_slip = pts.iter().fold(0u8, |a, q| a | q.double_slip);
    // Definition 2, per direction (plus: φ → +π/2, ẋ₂ > 0).
    let cond2 = |r_end: Option<f64>, dr: Option<f64>, target: f64, bit: u8| {
        let not_zeno = r_end.is_some_and(|r| (r - target).abs() > 0.05) || dr.is_some_and(|d| d > 1.0);
        not_zeno && double_slip & bit == 0
    };
    let wp_plus = eq.persistent_plus || cond2(r_plus, dr_plus, FRAC_PI_2, 1);
    let wp_minus = eq.persistent_minus || cond2(r_minus, dr_minus, -FRAC_PI_2, 2);
    let weakly_persistent = !eq.ambiguous && eq.equilibrium && wp_plus && wp_minus;
    let unstable_fp = fps.iter().find(|f| f.g > 1.0);
    // No equilibrium is decided by SS alone: a robustly inconsistent SS settles it whatever other
    // modes do (a mode that is marginal only on a line of parameters, such as the CoM on the edge
    // of a friction cone, must not turn a no-equilibrium cell undetermined).
    let ss_robust = eq.ss_margin.abs() > super::modes::MARGIN_TOL;
    let (verdict, theorem, evidence) = if !eq.equilibrium && ss_robust {
        (
            Verdict::NoEquilibrium,
            Theorem::SsInconsistent,
            format!("no contact forces in the friction cones balance the load (SS margin {:.3e})", eq.ss_margin),
        )
    } else if eq.marginal {
        (
            Verdict::Undetermined,
            Theorem::Marginal,
            "a mode's consistency is marginal: it depends on terms the ZOD neglects (P1 excludes such systems)"
                .to_string(),
        )
    } else if !eq.equilibrium {
        (
            Verdict::NoEquilibrium,
            Theorem::SsInconsistent,
            format!("no contact forces in the friction cones balance the load (SS margin {:.3e})", eq.ss_margin),
        )
    } else if eq.ambiguous {
        (
            Verdict::AmbiguousUnstable,
            Theorem::Theorem1,
            format!(
                "modes consistent at rest: {}",
                eq.modes_at_rest.iter().map(|m| m.to_string()).collect::<Vec<_>>().join(", ")
            ),
        )
    } else if !eq.painleve_free {
        (Verdict::Undetermined, Theorem::Painleve, format!("Painlevé states: {:?}", eq.painleve_states))
    } else if let Some(f) = unstable_fp {
        (
            Verdict::ReverseChatterUnstable,
            Theorem::Theorem2,
            format!("fixed point φ* = {} with G* = {} > 1", fmt_num(f.phi), fmt_num(f.g)),
        )
    } else if !maps_complete {
        (
            Verdict::Undetermined,
            Theorem::None,
            format!(
                "R, G unknown at {failed_samples} samples and {} unresolved sign changes of R(φ) − φ",
                found.unresolved
            ),
        )
    } else if eq.persistent && max_g.is_some_and(|g| g < 1.0) {
        (
            Verdict::Stable,
            Theorem::Theorem3,
            format!("persistent and G < 1 wherever R is defined (max G = {:.6})", max_g.unwrap_or(0.0)),
        )
    } else if weakly_persistent && r_monotone && fps.iter().all(|f| f.g < 1.0) && not_one(g_minus) && not_one(g_plus) {
        (
            Verdict::Stable,
            Theorem::Theorem5,
            format!(
                "weakly persistent, R non-decreasing, G(φ*) < 1 at every fixed point ({})",
                fps.iter()
                    .map(|f| format!("φ* = {}: G* = {}", fmt_num(f.phi), fmt_num(f.g)))
                    .collect::<Vec<_>>()
                    .join("; ")
            ),
        )
    } else if weakly_persistent
        && g_minus.is_none_or(|g| g != 1.0)
        && g_plus.is_none_or(|g| g != 1.0)
        && stable_partition(&pts)
    {
        (
            Verdict::Stable,
            if eq.persistent { Theorem::Theorem4 } else { Theorem::Theorem4a },
            "a stable partition exists on the sample grid".to_string(),
        )
    } else {
        (Verdict::Undetermined, Theorem::None, "no theorem of P1 applies".to_string())
    };
    Ok(ConfigClassification {
        equilibrium: eq.equilibrium,
        ambiguous: eq.ambiguous,
        painleve_free: eq.painleve_free,
        persistent: eq.persistent,
        weakly_persistent,
        modes_at_rest: eq.modes_at_rest,
        fixed_points: fps,
        g_minus,
        g_plus,
        r_monotone,
        verdict,
        theorem,
        evidence,
        max_g,
        samples,
        failed_samples,
        unresolved_fixed_points: found.unresolved,
        marginal: eq.marginal,
        proof: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::paper_configs::p1::config;

    #[test]
    fn fig3_verdicts() {
        let a = classify(&config("A").unwrap(), 2001).unwrap();
        assert_eq!((a.verdict, a.theorem.as_str()), (Verdict::Stable, "Theorem 3"), "{}", a.evidence);
        let b = classify(&config("B").unwrap(), 2001).unwrap();
        assert!(!b.persistent && b.weakly_persistent);
        assert_eq!((b.verdict, b.theorem.as_str()), (Verdict::Stable, "Theorem 5"), "{}", b.evidence);
        let d = classify(&config("D").unwrap(), 2001).unwrap();
        assert_eq!((d.verdict, d.theorem.as_str()), (Verdict::ReverseChatterUnstable, "Theorem 2"), "{}", d.evidence);
    }

    #[test]
    fn tarjan_cycles() {
        let adj = vec![vec![1], vec![2], vec![0], vec![0]];
        assert_eq!(on_cycle(&adj), vec![true, true, true, false]);
    }

    #[test]
    fn no_equilibrium_is_not_undetermined_on_a_marginal_line() {
        // Configuration B with the CoM moved so that contact 2's friction-cone edge (μ₂ = 1)
        // passes through it (l₂ = h): another mode is marginal there, but SS is robustly
        // inconsistent, so there is no equilibrium whatever that mode does.
        let mut q = config("B").unwrap();
        let com_x = -0.06;
        q.l2 = q.l2 - q.l1 - com_x;
        q.l1 = -com_x;
        q.h = q.l2;
        let c = classify(&q, 401).unwrap();
        assert!(c.marginal);
        assert_eq!(c.verdict, Verdict::NoEquilibrium, "{}", c.evidence);
    }
}
