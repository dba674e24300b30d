//! All solutions of a small LCP, as polyhedral pieces.
//!
//! The solution set of LCP(q, M) is the union, over index sets `α ⊆ {1..n}`, of the polyhedra
//!
//! ```text
//!     P_α = { z : z_ᾱ = 0, z_α ≥ 0, (q + M z)_α = 0, (q + M z)_ᾱ ≥ 0 },
//! ```
//!
//! one per complementary cone `C_α` (P4, Appendix A) that contains `−q`... stated in `z`. The search
//! assigns indices one at a time (`i ∈ α`: `wᵢ = 0`; `i ∉ α`: `zᵢ = 0`) and solves one small
//! feasibility LP per node of the binary tree, pruning a subtree as soon as its partial system is
//! infeasible. Each nonempty `P_α` is then described canonically by the sets of indices on which
//! `z` and `w` vanish identically (found by a few LPs), duplicates and pieces contained in another
//! piece are dropped, and boundedness is decided from the recession cone
//! `{d ≥ 0 : d_ᾱ = 0, (M d)_α = 0, (M d)_ᾱ ≥ 0}`.
//!
//! A caller asks "does some solution have property X" with one LP per piece through
//! [`Piece::minimize`].

use nalgebra::{DMatrix, DVector};
use serde::Serialize;

use super::Lcp;
use crate::lp::{DenseLp, LpSettings, LpSolution, LpStatus};
use crate::Error;

/// Largest problem size accepted by [`enumerate`].
pub const MAX_N: usize = 20;

/// Settings of [`enumerate`].
#[derive(Debug, Clone, Copy)]
pub struct EnumSettings {
    /// Maximum number of search-tree nodes (LPs) before giving up with `complete = false`.
    pub max_nodes: usize,
    /// Threshold above which a component counts as positive.
    pub positive_tol: f64,
}

impl Default for EnumSettings {
    fn default() -> Self {
        Self { max_nodes: 1 << 20, positive_tol: 1e-9 }
    }
}

/// One polyhedral piece of the solution set.
#[derive(Debug, Clone, Serialize)]
pub struct Piece {
    /// The defining pattern `α` (0-based): indices where `w = 0` is imposed and `z ≥ 0` is free.
    pub alpha: Vec<usize>,
    /// Indices where `z` vanishes on the whole piece (includes every index outside `α`).
    pub zero_z: Vec<usize>,
    /// Indices where `w` vanishes on the whole piece (includes every index in `α`).
    pub zero_w: Vec<usize>,
    /// A point in the relative interior of the piece.
    #[serde(serialize_with = "crate::output::ser_dvector")]
    pub z: DVector<f64>,
    /// `w = M z + q` at that point.
    #[serde(serialize_with = "crate::output::ser_dvector")]
    pub w: DVector<f64>,
    /// Natural-map residual of the point.
    pub residual: f64,
    /// Whether the piece is bounded.
    pub bounded: bool,
    /// The point's componentwise error on the data as given, after refinement on the piece
    /// ([`Enumeration::verify`]; `None` until checked).
    pub violation: Option<f64>,
    /// Whether the point passed that check, as `lcp::solve` accepts a point (`None` until
    /// checked).
    pub verified: Option<bool>,
}

impl Piece {
    /// The LP "minimise `cᵀz` over this piece" in the form of [`DenseLp`].
    pub fn lp(&self, lcp: &Lcp, c: &DVector<f64>) -> DenseLp {
        let n = lcp.n();
        let mut eq_rows: Vec<(Vec<f64>, f64)> = Vec::new();
        let mut ub_rows: Vec<(Vec<f64>, f64)> = Vec::new();
        // P_α from its defining pattern: z_ᾱ = 0, w_α = 0 (z_α ≥ 0 and w_ᾱ ≥ 0 as inequalities).
        // The canonical vanishing sets are implied on P_α; adding them as equalities would only
        // make nearly degenerate pieces numerically infeasible.
        for i in (0..n).filter(|i| !self.alpha.contains(i)) {
            let mut r = vec![0.0; n];
            r[i] = 1.0;
            eq_rows.push((r, 0.0));
        }
        for i in 0..n {
            let row: Vec<f64> = lcp.m.row(i).iter().copied().collect();
            if self.alpha.contains(&i) {
                eq_rows.push((row, -lcp.q[i]));
            } else {
                ub_rows.push((row.iter().map(|v| -v).collect(), lcp.q[i]));
            }
        }
        let build = |rows: &[(Vec<f64>, f64)]| {
            (
                DMatrix::from_fn(rows.len(), n, |i, j| rows[i].0[j]),
                DVector::from_iterator(rows.len(), rows.iter().map(|r| r.1)),
            )
        };
        let (a_eq, b_eq) = build(&eq_rows);
        let (a_ub, b_ub) = build(&ub_rows);
        DenseLp { c: c.clone(), a_eq, b_eq, a_ub, b_ub }
    }

    /// Minimises `cᵀz` over the piece (an unbounded status means some solution has `cᵀz → −∞`).
    ///
    /// The LP is solved on the equilibrated problem ([`super::scaling`], an exact change of
    /// variables `z = τ E z''`) by the robust path (dense simplex, Clarabel on numerical
    /// trouble); the point, ray and objective are mapped back to `z`.
    pub fn minimize(&self, lcp: &Lcp, c: &DVector<f64>) -> Result<LpSolution, Error> {
        let s = super::scaling::Scaled::new(lcp);
        // cᵀz = cᵀ(τ E z''): the objective in z'' is τ E c, normalised (argmin unchanged).
        let mut cs = c.component_mul(&s.eq.e) * s.eq.tau;
        let cn = cs.amax();
        if cn > 0.0 && cn.is_finite() {
            cs /= cn;
        }
        let mut sol = self.lp(&s.lcp, &cs).solve_robust(&LpSettings::default())?;
        sol.x = s.eq.z_original(&sol.x);
        if let Some(r) = sol.ray.as_mut() {
            *r = r.component_mul(&s.eq.e);
        }
        sol.objective = c.dot(&sol.x);
        Ok(sol)
    }
}

/// All solutions of an LCP.
#[derive(Debug, Clone, Serialize)]
pub struct Enumeration {
    /// The pieces, none contained in another by the canonical description.
    pub pieces: Vec<Piece>,
    /// Whether the search finished (false: the node limit was hit, pieces may be missing).
    pub complete: bool,
    /// Whether every piece is bounded (the solution set is bounded).
    pub bounded: bool,
    /// Search-tree nodes visited (one LP each).
    pub nodes: usize,
    /// Whether "no solution" is proved ([`Enumeration::prove_empty`]; "not checked" until then).
    #[serde(skip)]
    pub proof: crate::verified::Proof,
    /// Whether the search found no piece but [`super::proof::no_piece`] found a point in one.
    #[serde(skip)]
    pub missed: bool,
}

fn not_checked() -> crate::verified::Proof {
    crate::verified::Proof::none("not checked")
}

impl Enumeration {
    /// Proves an empty result piece by piece on the data as given ([`super::proof::no_piece`]);
    /// a piece the proof finds a point in makes the result `numerical-error` (the search, on
    /// floating-point LPs, missed it). A non-empty result is not proved here: its pieces come
    /// from floating-point LPs (`lcp::solve` and [`super::proof`] prove one solution).
    pub fn prove_empty(&mut self, lcp: &Lcp) {
        use crate::verified::Proof;
        self.proof = if !self.complete {
            Proof::none("the search stopped at its node bound")
        } else if !self.pieces.is_empty() {
            Proof::none("the pieces come from floating-point LPs (lcp solve proves one solution)")
        } else {
            match super::proof::no_piece(lcp) {
                super::proof::NoPiece::Proved(_) => Proof::interval(),
                super::proof::NoPiece::Point { why, .. } => {
                    self.missed = true;
                    Proof::none(format!("{why}: the floating-point search missed it"))
                }
                super::proof::NoPiece::Unproved(why) => Proof::none(why),
            }
        };
    }

    /// Checks every piece's point on the data as given as `lcp::solve` accepts its point
    /// ([`super::verify::componentwise_error`] within `tolerance`, after Newton refinement on
    /// the piece where it fails): the pieces come from floating-point LPs on the equilibrated
    /// problem, and a point can satisfy those and not the data (`M = [[1e-310, 1], [1e200, 1]]`,
    /// `q = (−1, 1)`, whose only solution `z = (1e310, 0)` is no float).
    pub fn verify(&mut self, lcp: &Lcp, tolerance: f64) {
        let n = lcp.n();
        for p in &mut self.pieces {
            let mut v = super::verify::componentwise_error(lcp, &p.z);
            if v > tolerance {
                let alpha: Vec<bool> = (0..n).map(|i| p.alpha.contains(&i)).collect();
                if let Some(z) = super::verify::refine_on_piece(lcp, &alpha, &p.z) {
                    let vz = super::verify::componentwise_error(lcp, &z);
                    if vz < v {
                        p.w = lcp.w(&z);
                        p.residual = lcp.residual(&z);
                        p.z = z;
                        v = vz;
                    }
                }
            }
            p.violation = Some(v);
            p.verified = Some(v <= tolerance && p.residual <= tolerance);
        }
    }

    /// Pieces whose point failed [`Enumeration::verify`].
    pub fn failed(&self) -> usize {
        self.pieces.iter().filter(|p| p.verified == Some(false)).count()
    }

    /// `solved`, `no-solution`, `iteration-limit` when the search stopped at its node limit, or
    /// `numerical-error` when the search found nothing but a piece holds a point, or a piece's
    /// point fails the check on the data as given ([`Enumeration::verify`]).
    pub fn status(&self) -> &'static str {
        if self.missed || self.failed() > 0 {
            "numerical-error"
        } else if !self.complete {
            "iteration-limit"
        } else if self.pieces.is_empty() {
            "no-solution"
        } else {
            "solved"
        }
    }

    /// Writes `pieces.csv` into `dir`: one row per piece and index (`piece, i, z, w, in_alpha,
    /// bounded`), the point of each piece, for an LCP of size `n`.
    pub fn write_files(&self, n: usize, dir: &std::path::Path) -> Result<(), Error> {
        let rows: Vec<Vec<String>> = self
            .pieces
            .iter()
            .enumerate()
            .flat_map(|(k, p)| {
                (0..n).map(move |i| {
                    vec![
                        k.to_string(),
                        i.to_string(),
                        p.z[i].to_string(),
                        p.w[i].to_string(),
                        p.alpha.contains(&i).to_string(),
                        p.bounded.to_string(),
                    ]
                })
            })
            .collect();
        crate::output::write_csv(dir, "pieces.csv", &["piece", "i", "z", "w", "in_alpha", "bounded"], &rows)
    }

    /// The result as `lcp solve --all --json` prints it, for an LCP of size `n`.
    pub fn summary(&self, n: usize) -> EnumerationSummary<'_> {
        EnumerationSummary {
            status: self.status(),
            n,
            count: self.pieces.len() - self.failed(),
            failed: self.failed(),
            bounded: self.bounded,
            complete: self.complete,
            nodes: self.nodes,
            pieces: &self.pieces,
            proof: self.proof.clone(),
        }
    }
}

/// What `lcp solve --all --json` prints.
#[derive(Debug, Clone, Serialize)]
pub struct EnumerationSummary<'a> {
    /// `solved` (pieces found), `no-solution` (none found; `proof` says whether that is
    /// proved), `iteration-limit` or `numerical-error`.
    pub status: &'static str,
    /// The size of the problem.
    pub n: usize,
    /// Pieces found whose point passed the check on the data as given.
    pub count: usize,
    /// Pieces found whose point failed it (listed in `pieces` with `"verified": false`).
    pub failed: usize,
    /// Whether the solution set is bounded.
    pub bounded: bool,
    /// Whether the search finished within its node bound.
    pub complete: bool,
    /// Nodes visited.
    pub nodes: usize,
    /// The pieces.
    pub pieces: &'a [Piece],
    /// Whether an empty result is proved (`"proof"`, `"proof_reason"`).
    #[serde(flatten)]
    pub proof: crate::verified::Proof,
}

struct Search<'a> {
    lcp: &'a Lcp,
    settings: EnumSettings,
    nodes: usize,
    leaves: Vec<(Vec<bool>, DVector<f64>)>,
    aborted: bool,
}

/// Feasibility system of a partial assignment: `assign[i] = Some(true)` means `i ∈ α` (`wᵢ = 0`),
/// `Some(false)` means `zᵢ = 0`, `None` means undecided (`zᵢ ≥ 0`, `wᵢ ≥ 0`).
pub(super) fn node_lp(lcp: &Lcp, assign: &[Option<bool>]) -> (DenseLp, Vec<usize>) {
    let n = lcp.n();
    let free: Vec<usize> = (0..n).filter(|&i| assign[i] != Some(false)).collect();
    let k = free.len();
    let n_eq = assign.iter().filter(|a| **a == Some(true)).count();
    let mut a_eq = DMatrix::zeros(n_eq, k);
    let mut b_eq = DVector::zeros(n_eq);
    let mut a_ub = DMatrix::zeros(n - n_eq, k);
    let mut b_ub = DVector::zeros(n - n_eq);
    let (mut e, mut u) = (0, 0);
    for i in 0..n {
        if assign[i] == Some(true) {
            for (c, &j) in free.iter().enumerate() {
                a_eq[(e, c)] = lcp.m[(i, j)];
            }
            b_eq[e] = -lcp.q[i];
            e += 1;
        } else {
            for (c, &j) in free.iter().enumerate() {
                a_ub[(u, c)] = -lcp.m[(i, j)];
            }
            b_ub[u] = lcp.q[i];
            u += 1;
        }
    }
    (DenseLp::feasibility(k, a_eq, b_eq, a_ub, b_ub), free)
}

impl Search<'_> {
    fn visit(&mut self, assign: &mut Vec<Option<bool>>, depth: usize) {
        if self.aborted {
            return;
        }
        if self.nodes >= self.settings.max_nodes {
            self.aborted = true;
            return;
        }
        self.nodes += 1;
        let (lp, free) = node_lp(self.lcp, assign);
        let sol = match lp.solve(&LpSettings::default()) {
            Ok(s) => s,
            Err(_) => {
                self.aborted = true;
                return;
            }
        };
        match sol.status {
            LpStatus::Optimal => {}
            LpStatus::Infeasible => return,
            _ => {
                self.aborted = true;
                return;
            }
        }
        let n = self.lcp.n();
        if depth == n {
            let mut z = DVector::zeros(n);
            for (c, &j) in free.iter().enumerate() {
                z[j] = sol.x[c];
            }
            self.leaves.push((assign.iter().map(|a| *a == Some(true)).collect(), z));
            return;
        }
        for choice in [true, false] {
            assign[depth] = Some(choice);
            self.visit(assign, depth + 1);
            assign[depth] = None;
        }
    }
}

/// Finds which of `z_α` and `w_ᾱ` can be positive on `P_α`; returns the sets of indices where
/// `z`, resp. `w`, vanish identically and a relative-interior point.
fn canonical(
    lcp: &Lcp,
    alpha: &[bool],
    start: &DVector<f64>,
    tol: f64,
) -> Option<(Vec<usize>, Vec<usize>, DVector<f64>)> {
    let n = lcp.n();
    // Candidates: (index, is_z). z_i for i in α, w_i for i not in α.
    let mut open: Vec<usize> = (0..n).collect();
    let mut points = vec![start.clone()];
    let value = |z: &DVector<f64>, i: usize| if alpha[i] { z[i] } else { lcp.q[i] + lcp.m.row(i).dot(&z.transpose()) };
    open.retain(|&i| value(start, i) <= tol);
    while !open.is_empty() {
        // Variables (z, s_open); maximise Σ s with s_k ≤ value_k(z), 0 ≤ s_k ≤ 1.
        let k = open.len();
        let nv = n + k;
        // One equality per index: w_i = 0 for i in α, z_i = 0 otherwise.
        let mut a_eq = DMatrix::zeros(n, nv);
        let mut b_eq = DVector::zeros(n);
        for i in 0..n {
            if alpha[i] {
                for j in 0..n {
                    a_eq[(i, j)] = lcp.m[(i, j)];
                }
                b_eq[i] = -lcp.q[i];
            } else {
                a_eq[(i, i)] = 1.0;
            }
        }
        let n_ub = (0..n).filter(|&i| !alpha[i]).count() + 2 * k;
        let mut a_ub = DMatrix::zeros(n_ub, nv);
        let mut b_ub = DVector::zeros(n_ub);
        let mut r = 0;
        for i in (0..n).filter(|&i| !alpha[i]) {
            for j in 0..n {
                a_ub[(r, j)] = -lcp.m[(i, j)];
            }
            b_ub[r] = lcp.q[i];
            r += 1;
        }
        for (c, &i) in open.iter().enumerate() {
            a_ub[(r, n + c)] = 1.0;
            if alpha[i] {
                a_ub[(r, i)] = -1.0;
            } else {
                for j in 0..n {
                    a_ub[(r, j)] = -lcp.m[(i, j)];
                }
                b_ub[r] = lcp.q[i];
            }
            r += 1;
            a_ub[(r, n + c)] = 1.0;
            b_ub[r] = 1.0;
            r += 1;
        }
        let mut c = DVector::zeros(nv);
        for j in n..nv {
            c[j] = -1.0;
        }
        let sol = DenseLp { c, a_eq, b_eq, a_ub, b_ub }.solve(&LpSettings::default()).ok()?;
        if sol.status != LpStatus::Optimal {
            return None;
        }
        let z = DVector::from_iterator(n, sol.x.iter().take(n).copied());
        let before = open.len();
        open.retain(|&i| value(&z, i) <= tol);
        points.push(z);
        if open.len() == before {
            break;
        }
    }
    let mut interior = DVector::zeros(n);
    for p in &points {
        interior += p;
    }
    interior /= points.len() as f64;
    let zero_z = (0..n).filter(|&i| !alpha[i] || open.contains(&i)).collect();
    let zero_w = (0..n).filter(|&i| alpha[i] || open.contains(&i)).collect();
    Some((zero_z, zero_w, interior))
}

/// Whether `P_α` has a nonzero recession direction.
fn unbounded(lcp: &Lcp, alpha: &[bool]) -> Option<bool> {
    let idx: Vec<usize> = (0..lcp.n()).filter(|&i| alpha[i]).collect();
    if idx.is_empty() {
        return Some(false);
    }
    let k = idx.len();
    let n = lcp.n();
    // Variables d_α ≥ 0 with Σ d = 1, (M d)_α = 0, (M d)_ᾱ ≥ 0.
    let mut a_eq = DMatrix::zeros(k + 1, k);
    let mut b_eq = DVector::zeros(k + 1);
    for (r, &i) in idx.iter().enumerate() {
        for (c, &j) in idx.iter().enumerate() {
            a_eq[(r, c)] = lcp.m[(i, j)];
        }
    }
    for c in 0..k {
        a_eq[(k, c)] = 1.0;
    }
    b_eq[k] = 1.0;
    let rest: Vec<usize> = (0..n).filter(|&i| !alpha[i]).collect();
    let a_ub = DMatrix::from_fn(rest.len(), k, |r, c| -lcp.m[(rest[r], idx[c])]);
    let sol =
        DenseLp::feasibility(k, a_eq, b_eq, a_ub, DVector::zeros(rest.len())).solve(&LpSettings::default()).ok()?;
    match sol.status {
        LpStatus::Optimal => Some(true),
        LpStatus::Infeasible => Some(false),
        _ => None,
    }
}

fn subset(a: &[usize], b: &[usize]) -> bool {
    a.iter().all(|x| b.contains(x))
}

/// Enumerates all solutions of `lcp` (`n ≤` [`MAX_N`]).
///
/// The solution set of LCP(λq, M) is λ times that of LCP(q, M), so the search runs on `q/‖q‖∞`
/// (tolerances are then relative) and the pieces' points are scaled back.
pub fn enumerate(lcp: &Lcp, settings: &EnumSettings) -> Result<Enumeration, Error> {
    lcp.validate()?;
    let n = lcp.n();
    if n > MAX_N {
        return Err(Error::model("M", format!("LCP enumeration is limited to n <= {MAX_N} (got n = {n})")));
    }
    // On the equilibrated problem (scaling.rs): pieces map back exactly. Independent blocks of
    // M (connected components of its sparsity graph) are enumerated separately.
    let s = super::scaling::Scaled::new(lcp);
    let comps = components(&s.lcp.m);
    let mut e =
        if comps.len() == 1 { enumerate_unit(&s.lcp, settings)? } else { enumerate_blocks(&s.lcp, &comps, settings)? };
    for p in &mut e.pieces {
        p.z = s.eq.z_original(&p.z);
        p.w = s.eq.w_original(&p.w);
    }
    Ok(e)
}

/// Largest number of pieces a product of independent blocks is expanded into.
pub const MAX_PIECES: usize = 100_000;

/// The connected components of the graph with an edge `i–j` where `Mᵢⱼ ≠ 0` or `Mⱼᵢ ≠ 0`, each
/// sorted, in the order of their smallest index.
fn components(m: &DMatrix<f64>) -> Vec<Vec<usize>> {
    let n = m.nrows();
    let mut parent: Vec<usize> = (0..n).collect();
    fn root(p: &mut [usize], mut i: usize) -> usize {
        while p[i] != i {
            p[i] = p[p[i]];
            i = p[i];
        }
        i
    }
    for i in 0..n {
        for j in i + 1..n {
            if m[(i, j)] != 0.0 || m[(j, i)] != 0.0 {
                let (a, b) = (root(&mut parent, i), root(&mut parent, j));
                parent[a.max(b)] = a.min(b);
            }
        }
    }
    let mut comps: Vec<Vec<usize>> = Vec::new();
    let mut index_of = vec![usize::MAX; n];
    for i in 0..n {
        let r = root(&mut parent, i);
        if index_of[r] == usize::MAX {
            index_of[r] = comps.len();
            comps.push(Vec::new());
        }
        comps[index_of[r]].push(i);
    }
    comps
}

/// An LCP whose `M` is block diagonal (up to a permutation) is a product of independent LCPs: its
/// pieces are the products of the blocks' pieces. With `M = 0` or `M = I` and `n = 20` this is
/// twenty one-dimensional searches instead of a tree of `2²⁰` leaves.
fn enumerate_blocks(lcp: &Lcp, comps: &[Vec<usize>], settings: &EnumSettings) -> Result<Enumeration, Error> {
    let n = lcp.n();
    let mut nodes = 0;
    let mut complete = true;
    let mut parts: Vec<(&Vec<usize>, Vec<Piece>)> = Vec::new();
    for c in comps {
        let k = c.len();
        let sub =
            Lcp { m: DMatrix::from_fn(k, k, |a, b| lcp.m[(c[a], c[b])]), q: DVector::from_fn(k, |a, _| lcp.q[c[a]]) };
        let st = EnumSettings { max_nodes: settings.max_nodes.saturating_sub(nodes).max(1), ..*settings };
        let e = enumerate_unit(&sub, &st)?;
        nodes += e.nodes;
        complete &= e.complete;
        if e.pieces.is_empty() {
            // A block without solutions: the whole problem has none (proved when complete).
            return Ok(Enumeration {
                pieces: vec![],
                complete,
                bounded: true,
                nodes,
                proof: not_checked(),
                missed: false,
            });
        }
        parts.push((c, e.pieces));
    }
    let total = parts.iter().fold(1usize, |t, p| t.saturating_mul(p.1.len()));
    if total > MAX_PIECES {
        complete = false;
    }
    let mut pieces = Vec::with_capacity(total.min(MAX_PIECES));
    let mut idx = vec![0usize; parts.len()];
    for _ in 0..total.min(MAX_PIECES) {
        let mut z = DVector::zeros(n);
        let (mut alpha, mut zero_z, mut zero_w) = (Vec::new(), Vec::new(), Vec::new());
        let mut bounded = true;
        for (b, (c, ps)) in parts.iter().enumerate() {
            let p = &ps[idx[b]];
            for (a, &i) in c.iter().enumerate() {
                z[i] = p.z[a];
            }
            alpha.extend(p.alpha.iter().map(|&a| c[a]));
            zero_z.extend(p.zero_z.iter().map(|&a| c[a]));
            zero_w.extend(p.zero_w.iter().map(|&a| c[a]));
            bounded &= p.bounded;
        }
        alpha.sort_unstable();
        zero_z.sort_unstable();
        zero_w.sort_unstable();
        let w = lcp.w(&z);
        let residual = lcp.residual(&z);
        pieces.push(Piece { alpha, zero_z, zero_w, z, w, residual, bounded, violation: None, verified: None });
        // Next combination (mixed radix).
        for b in 0..idx.len() {
            idx[b] += 1;
            if idx[b] < parts[b].1.len() {
                break;
            }
            idx[b] = 0;
        }
    }
    let bounded = pieces.iter().all(|p| p.bounded);
    Ok(Enumeration { pieces, complete, bounded, nodes, proof: not_checked(), missed: false })
}

fn enumerate_unit(lcp: &Lcp, settings: &EnumSettings) -> Result<Enumeration, Error> {
    let n = lcp.n();
    let mut search = Search { lcp, settings: *settings, nodes: 0, leaves: Vec::new(), aborted: false };
    search.visit(&mut vec![None; n], 0);
    let mut complete = !search.aborted;
    let mut pieces: Vec<Piece> = Vec::new();
    for (alpha, z) in &search.leaves {
        let Some((zero_z, zero_w, z)) = canonical(lcp, alpha, z, settings.positive_tol) else {
            complete = false;
            continue;
        };
        if pieces.iter().any(|p| p.zero_z == zero_z && p.zero_w == zero_w) {
            continue;
        }
        let Some(unb) = unbounded(lcp, alpha) else {
            complete = false;
            continue;
        };
        let w = lcp.w(&z);
        let residual = lcp.residual(&z);
        pieces.push(Piece {
            alpha: (0..n).filter(|&i| alpha[i]).collect(),
            zero_z,
            zero_w,
            z,
            w,
            residual,
            bounded: !unb,
            violation: None,
            verified: None,
        });
    }
    // Drop pieces contained in another: more vanishing sets means a smaller face.
    let contained: Vec<bool> = (0..pieces.len())
        .map(|a| {
            (0..pieces.len()).any(|b| {
                a != b
                    && subset(&pieces[b].zero_z, &pieces[a].zero_z)
                    && subset(&pieces[b].zero_w, &pieces[a].zero_w)
                    && (pieces[a].zero_z.len() + pieces[a].zero_w.len()
                        > pieces[b].zero_z.len() + pieces[b].zero_w.len())
            })
        })
        .collect();
    let pieces: Vec<Piece> = pieces.into_iter().zip(contained).filter(|(_, c)| !c).map(|(p, _)| p).collect();
    let bounded = pieces.iter().all(|p| p.bounded);
    Ok(Enumeration { pieces, complete, bounded, nodes: search.nodes, proof: not_checked(), missed: false })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lcp(m: &[f64], q: &[f64]) -> Lcp {
        let n = q.len();
        Lcp::new(DMatrix::from_row_slice(n, n, m), DVector::from_column_slice(q)).unwrap()
    }

    #[test]
    fn independent_blocks_are_enumerated_separately() {
        // M = 0, q = 0, n = 20: every z ≥ 0 solves it, one unbounded piece; M = I, q = 0: z = 0.
        let n = 20;
        let zero = Lcp::new(DMatrix::zeros(n, n), DVector::zeros(n)).unwrap();
        let e = enumerate(&zero, &EnumSettings::default()).unwrap();
        assert!(e.complete && e.pieces.len() == 1 && !e.bounded, "{} pieces", e.pieces.len());
        assert_eq!(e.pieces[0].zero_w.len(), n);
        assert!(e.nodes <= 4 * n, "{} nodes", e.nodes);
        let id = Lcp::new(DMatrix::identity(n, n), DVector::zeros(n)).unwrap();
        let e = enumerate(&id, &EnumSettings::default()).unwrap();
        assert!(e.complete && e.pieces.len() == 1 && e.bounded);
        assert_eq!(e.pieces[0].z, DVector::zeros(n));
        // Two independent 1-D problems with two solutions each: four pieces, all solutions.
        let two = lcp(&[-1.0, 0.0, 0.0, -1.0], &[1.0, 1.0]);
        let e = enumerate(&two, &EnumSettings::default()).unwrap();
        assert!(e.complete);
        assert_eq!(e.pieces.len(), 4);
        assert!(e.pieces.iter().all(|p| p.residual < 1e-12));
        // A block without solutions: none at all.
        let none = lcp(&[0.0, 0.0, 0.0, 1.0], &[-1.0, -1.0]);
        let e = enumerate(&none, &EnumSettings::default()).unwrap();
        assert!(e.complete && e.pieces.is_empty());
    }

    #[test]
    fn unique_solution_of_pd_problem() {
        let e = enumerate(&lcp(&[2.0, 1.0, 1.0, 2.0], &[-5.0, -6.0]), &EnumSettings::default()).unwrap();
        assert!(e.complete);
        assert_eq!(e.pieces.len(), 1);
        assert!(e.pieces[0].residual < 1e-12);
        assert!(e.bounded);
    }

    #[test]
    fn zero_problem_has_one_point_piece() {
        let e = enumerate(&lcp(&[1.0, 0.0, 0.0, 1.0], &[0.0, 0.0]), &EnumSettings::default()).unwrap();
        assert_eq!(e.pieces.len(), 1, "{:?}", e.pieces);
        assert!(e.pieces[0].z.amax() < 1e-12);
    }

    #[test]
    fn continuum_segment_is_one_bounded_piece() {
        // CPS Remark 4.1.14: M = ones, q = -1: solutions z1 + z2 = 1.
        let e = enumerate(&lcp(&[1.0, 1.0, 1.0, 1.0], &[-1.0, -1.0]), &EnumSettings::default()).unwrap();
        assert_eq!(e.pieces.len(), 1, "{:?}", e.pieces);
        let p = &e.pieces[0];
        assert!((p.z[0] + p.z[1] - 1.0).abs() < 1e-12);
        assert!(p.z[0] > 1e-3 && p.z[1] > 1e-3, "point should be relative-interior");
        assert!(p.bounded);
        // Over the piece, z1 ranges over [0, 1].
        let lo = p.minimize(&lcp(&[1.0, 1.0, 1.0, 1.0], &[-1.0, -1.0]), &DVector::from_vec(vec![1.0, 0.0])).unwrap();
        assert!(lo.objective.abs() < 1e-12);
    }

    #[test]
    fn unbounded_ray_of_solutions() {
        // M = [[1, -1], [-1, 1]], q = [1, -1]: z = (t, t + 1), t >= 0.
        let e = enumerate(&lcp(&[1.0, -1.0, -1.0, 1.0], &[1.0, -1.0]), &EnumSettings::default()).unwrap();
        assert!(!e.bounded);
        assert!(e.pieces.iter().all(|p| p.residual < 1e-12));
    }

    #[test]
    fn tiny_q_is_handled_like_unit_q() {
        // Review finding: absolute tolerances misjudged q = (-5e-10, -6e-10).
        let e = enumerate(&lcp(&[2.0, 1.0, 1.0, 2.0], &[-5e-10, -6e-10]), &EnumSettings::default()).unwrap();
        assert_eq!(e.pieces.len(), 1);
        let p = &e.pieces[0];
        assert!((p.z[0] - 4e-10 / 3.0).abs() < 1e-20 && (p.z[1] - 7e-10 / 3.0).abs() < 1e-20);
        assert!(p.zero_z.is_empty());
    }

    #[test]
    fn infeasible_has_no_pieces() {
        let e = enumerate(&lcp(&[-1.0], &[-1.0]), &EnumSettings::default()).unwrap();
        assert!(e.complete);
        assert!(e.pieces.is_empty());
    }
}
