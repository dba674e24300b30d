//! The largest value of a linear function over the solution set of an LCP.
//!
//! "Does some solution of LCP(q, M) have `cᵀz > t`, and how large can `cᵀz` get?" is an LP with
//! complementarity constraints. [`maximize`] answers it by branch and bound over the
//! complementarity pairs: a node fixes some pairs (`wᵢ = 0` or `zᵢ = 0`) and relaxes the others
//! (`zᵢ, wᵢ ≥ 0`), and its LP bounds `cᵀz` over every solution below it. A node is pruned when its
//! relaxation is infeasible or its bound does not beat the best value so far (initially the
//! caller's `floor`); a node whose LP optimum happens to be complementary is solved without
//! branching; otherwise the search branches on the pair whose product `min(zᵢ, wᵢ)` is largest.
//! An unbounded relaxation whose point and ray are jointly complementary proves `cᵀz` unbounded
//! over the solutions.
//!
//! Compared with enumerating every piece ([`super::enumerate`]) and optimising over each, the
//! search skips every part of the solution set that cannot beat the incumbent, which matters for
//! degenerate problems (statically indeterminate contact forces) with thousands of pieces.
//!
//! Runs on the equilibrated problem ([`super::scaling`], an exact change of variables), with the
//! objective normalised, so that tolerances do not depend on units.

use nalgebra::DVector;
use serde::Serialize;

use super::enumerate::{node_lp, EnumSettings};
use super::Lcp;
use crate::lp::{LpSettings, LpStatus};
use crate::Error;

/// A branch is pruned when its bound does not beat the best value by more than `BOUND_TOL` of
/// `1 + |bound|`.
const BOUND_TOL: f64 = 1e-9;

/// How [`maximize`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum MaxStatus {
    /// The maximum over the solutions is attained at `z` (and exceeds the floor).
    Optimal,
    /// Some solutions have `cᵀz` as large as one likes (`z` plus multiples of `ray`).
    Unbounded,
    /// No solution has `cᵀz` above the floor (with floor `−∞`: the LCP has no solution).
    NoneAbove,
    /// The node bound was reached; `value` and `z` are the best found so far (if any).
    NodeLimit,
    /// Some node LP ended in numerical trouble, so part of the tree is unexplored.
    NumericalTrouble,
}

/// Result of [`maximize`].
#[derive(Debug, Clone, Serialize)]
pub struct Maximum {
    /// How the search ended.
    pub status: MaxStatus,
    /// The best `cᵀz` found (`+∞` when unbounded, `−∞` when none above the floor was found).
    pub value: f64,
    /// A solution attaining `value`, when one was found.
    #[serde(serialize_with = "crate::output::ser_opt_dvector")]
    pub z: Option<DVector<f64>>,
    /// A direction `d` with `z + s d` a solution for every `s ≥ 0` and `cᵀd > 0` (unbounded).
    #[serde(serialize_with = "crate::output::ser_opt_dvector")]
    pub ray: Option<DVector<f64>>,
    /// Search nodes (one LP each).
    pub nodes: usize,
}

impl Maximum {
    /// The active set `z_i > 0` of the maximiser, to warm-start the same search on a nearby
    /// problem ([`maximize_from`]).
    pub fn active_set(&self) -> Option<Vec<bool>> {
        self.z.as_ref().map(|z| z.iter().map(|&v| v > 0.0).collect())
    }
}

struct Search<'a> {
    lcp: &'a Lcp,
    c: DVector<f64>,
    settings: EnumSettings,
    best: f64,
    best_z: Option<DVector<f64>>,
    ray: Option<DVector<f64>>,
    unbounded: bool,
    nodes: usize,
    limit: bool,
    trouble: bool,
}

impl Search<'_> {
    fn visit(&mut self, assign: &mut Vec<Option<bool>>) {
        if self.unbounded || self.limit {
            return;
        }
        if self.nodes >= self.settings.max_nodes {
            self.limit = true;
            return;
        }
        self.nodes += 1;
        let n = self.lcp.n();
        let (mut lp, free) = node_lp(self.lcp, assign);
        // Maximise cᵀz  ⇔  minimise −cᵀz over the free variables.
        lp.c = DVector::from_iterator(free.len(), free.iter().map(|&j| -self.c[j]));
        let sol = match lp.solve_robust(&LpSettings::default()) {
            Ok(s) => s,
            Err(_) => return self.stuck(assign),
        };
        let expand = |x: &DVector<f64>| {
            let mut z = DVector::zeros(n);
            for (k, &j) in free.iter().enumerate() {
                z[j] = x[k];
            }
            z
        };
        let z = expand(&sol.x);
        let w = self.lcp.w(&z);
        let tol = self.settings.positive_tol * (1.0 + z.amax());
        match sol.status {
            LpStatus::Infeasible => {}
            LpStatus::Optimal => {
                let bound = self.c.dot(&z);
                // Prune what cannot beat the incumbent (or the floor) by a relative margin.
                if bound <= self.best || (self.best_z.is_some() && bound <= self.best + BOUND_TOL * (1.0 + bound.abs()))
                {
                    return;
                }
                let worst = (0..n).filter(|&i| assign[i].is_none()).map(|i| (i, z[i].min(w[i]))).fold(
                    None,
                    |acc: Option<(usize, f64)>, (i, v)| match acc {
                        Some((_, a)) if a >= v => acc,
                        _ => Some((i, v)),
                    },
                );
                match worst {
                    Some((i, v)) if v > tol => self.branch(assign, i),
                    _ => {
                        self.best = bound;
                        self.best_z = Some(z);
                    }
                }
            }
            LpStatus::Unbounded => {
                let d = expand(&sol.ray.unwrap_or_else(|| DVector::zeros(free.len())));
                let md = &self.lcp.m * &d;
                let dtol = self.settings.positive_tol * (1.0 + d.amax());
                // Jointly complementary: on every open pair, z or w vanishes at the point and along
                // the ray. Otherwise branch on the pair where both sides are largest (relative).
                let (zs, ds, ws, mds) = (1.0 + z.amax(), 1.0 + d.amax(), 1.0 + w.amax(), 1.0 + md.amax());
                let worst = (0..n)
                    .filter(|&i| assign[i].is_none())
                    .filter(|&i| (z[i] > tol || d[i] > dtol) && (w[i] > tol || md[i] > dtol))
                    .map(|i| (i, (z[i] / zs + d[i] / ds).min(w[i] / ws + md[i] / mds)))
                    .fold(None, |acc: Option<(usize, f64)>, (i, v)| match acc {
                        Some((_, a)) if a >= v => acc,
                        _ => Some((i, v)),
                    });
                match worst {
                    Some((i, _)) => self.branch(assign, i),
                    _ if d.amax() > 0.0 => {
                        self.unbounded = true;
                        self.best = f64::INFINITY;
                        self.best_z = Some(z);
                        self.ray = Some(d);
                    }
                    _ => self.stuck(assign),
                }
            }
            _ => self.stuck(assign),
        }
    }

    fn branch(&mut self, assign: &mut Vec<Option<bool>>, i: usize) {
        for choice in [true, false] {
            assign[i] = Some(choice);
            self.visit(assign);
        }
        assign[i] = None;
    }

    /// A node LP failed: branch on an open pair if there is one (the children may be easier),
    /// otherwise leave this piece unexplored and say so.
    fn stuck(&mut self, assign: &mut Vec<Option<bool>>) {
        match assign.iter().position(|a| a.is_none()) {
            Some(i) => self.branch(assign, i),
            None => self.trouble = true,
        }
    }
}

/// Maximises `cᵀz` over the solutions of `lcp` with `cᵀz > floor` (module docs); `floor = −∞`
/// asks for the plain maximum. `settings.max_nodes` bounds the work.
pub fn maximize(lcp: &Lcp, c: &DVector<f64>, floor: f64, settings: &EnumSettings) -> Result<Maximum, Error> {
    maximize_from(lcp, c, floor, settings, None)
}

/// [`maximize`] warm-started by an active set `start` (e.g. the maximiser's of a nearby problem,
/// [`Maximum::active_set`]): when that set gives a solution of `lcp`
/// ([`crate::lcp::warm::solve_on_active_set`], the usual residual check) above the floor, the
/// search starts with it as its incumbent, so that every node whose bound does not beat it is
/// pruned from the start. The answer is the one the cold search gives (a maximum, to the same
/// relative margin); only the work differs.
pub fn maximize_from(
    lcp: &Lcp,
    c: &DVector<f64>,
    floor: f64,
    settings: &EnumSettings,
    start: Option<&[bool]>,
) -> Result<Maximum, Error> {
    lcp.validate()?;
    let n = lcp.n();
    if c.len() != n || c.iter().any(|v| !v.is_finite()) || floor.is_nan() {
        return Err(Error::argument("objective", format!("must be {n} finite numbers and the floor not NaN")));
    }
    let s = super::scaling::Scaled::new(lcp);
    // cᵀz = cᵀ(τ E z'') = κ ĉᵀz'' with ĉ = τ E c / κ, κ = ‖τ E c‖∞ (a power of two).
    let raw = c.component_mul(&s.eq.e) * s.eq.tau;
    let kappa = super::scaling::pow2(raw.amax());
    let chat = raw / kappa;
    let mut search = Search {
        lcp: &s.lcp,
        c: chat,
        settings: *settings,
        best: floor / kappa,
        best_z: None,
        ray: None,
        unbounded: false,
        nodes: 0,
        limit: false,
        trouble: false,
    };
    if let Some(sol) = start
        .filter(|a| a.len() == n)
        .and_then(|a| crate::lcp::warm::solve_on_active_set(lcp, a, &crate::lcp::LcpSettings::default()))
    {
        let z = s.eq.z_scaled(&sol.z);
        let value = search.c.dot(&z);
        if value > search.best {
            search.best = value;
            search.best_z = Some(z);
        }
    }
    search.visit(&mut vec![None; n]);
    let z = search.best_z.as_ref().map(|z| s.eq.z_original(z));
    let value = if search.unbounded { f64::INFINITY } else { z.as_ref().map_or(f64::NEG_INFINITY, |z| c.dot(z)) };
    let status = if search.unbounded {
        MaxStatus::Unbounded
    } else if search.limit {
        MaxStatus::NodeLimit
    } else if search.trouble {
        MaxStatus::NumericalTrouble
    } else if z.is_some() {
        MaxStatus::Optimal
    } else {
        MaxStatus::NoneAbove
    };
    Ok(Maximum { status, value, z, ray: search.ray.map(|d| d.component_mul(&s.eq.e)), nodes: search.nodes })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lcp::enumerate::enumerate;
    use nalgebra::DMatrix;

    fn lcp(m: &[f64], q: &[f64]) -> Lcp {
        let n = q.len();
        Lcp { m: DMatrix::from_row_slice(n, n, m), q: DVector::from_row_slice(q) }
    }

    /// The maximum over all pieces of the enumeration, one LP each.
    fn by_pieces(l: &Lcp, c: &DVector<f64>) -> Option<f64> {
        let e = enumerate(l, &EnumSettings::default()).unwrap();
        assert!(e.complete);
        e.pieces
            .iter()
            .map(|p| {
                let s = p.minimize(l, &(-c)).unwrap();
                match s.status {
                    LpStatus::Optimal => -s.objective,
                    LpStatus::Unbounded => f64::INFINITY,
                    other => panic!("{other:?}"),
                }
            })
            .fold(None, |a: Option<f64>, v| Some(a.map_or(v, |a| a.max(v))))
    }

    #[test]
    fn agrees_with_enumeration_on_small_problems() {
        // A deterministic family of small, often degenerate problems (entries in {−1, 0, 1, 2}).
        let mut seed = 12345u64;
        let mut next = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((seed >> 33) % 4) as f64 - 1.0
        };
        let (mut solvable, mut unbounded, mut none) = (0, 0, 0);
        for _ in 0..300 {
            let n = 2 + (next() + 1.0) as usize % 3;
            let m: Vec<f64> = (0..n * n).map(|_| next()).collect();
            let q: Vec<f64> = (0..n).map(|_| next()).collect();
            let c = DVector::from_fn(n, |_, _| next());
            let l = lcp(&m, &q);
            let reference = by_pieces(&l, &c);
            let got = maximize(&l, &c, f64::NEG_INFINITY, &EnumSettings::default()).unwrap();
            match reference {
                None => {
                    none += 1;
                    assert_eq!(got.status, MaxStatus::NoneAbove, "{l:?} {c}")
                }
                Some(v) if v.is_infinite() => {
                    unbounded += 1;
                    assert_eq!(got.status, MaxStatus::Unbounded, "{l:?} {c}");
                    // The point plus the ray is a solution with a larger objective.
                    let (z, d) = (got.z.unwrap(), got.ray.unwrap());
                    assert!(c.dot(&d) > 0.0 && l.residual(&(&z + &d * 10.0)) < 1e-9);
                }
                Some(v) => {
                    solvable += 1;
                    assert_eq!(got.status, MaxStatus::Optimal, "{l:?} {c}");
                    assert!((got.value - v).abs() <= 1e-9 * (1.0 + v.abs()), "{} vs {v}: {l:?} {c}", got.value);
                    let z = got.z.unwrap();
                    assert!(l.residual(&z) < 1e-9);
                }
            }
        }
        assert!(solvable > 50 && unbounded > 10 && none > 10, "{solvable} {unbounded} {none}");
    }

    #[test]
    fn floor_prunes_and_says_none_above() {
        // M = I, q = (−1, −2): the unique solution z = (1, 2), cᵀz = 3.
        let l = lcp(&[1.0, 0.0, 0.0, 1.0], &[-1.0, -2.0]);
        let c = DVector::from_vec(vec![1.0, 1.0]);
        let m = maximize(&l, &c, f64::NEG_INFINITY, &EnumSettings::default()).unwrap();
        assert_eq!(m.status, MaxStatus::Optimal);
        assert!((m.value - 3.0).abs() < 1e-12);
        let m = maximize(&l, &c, 3.5, &EnumSettings::default()).unwrap();
        assert_eq!(m.status, MaxStatus::NoneAbove);
    }

    #[test]
    fn scale_does_not_change_the_answer() {
        let l = lcp(&[0.0, 1.0, -1.0, 0.0], &[-1.0, 1.0]);
        let c = DVector::from_vec(vec![1.0, -0.5]);
        let base = maximize(&l, &c, f64::NEG_INFINITY, &EnumSettings::default()).unwrap();
        for k in [-12, -6, 6, 12] {
            let s = 10f64.powi(k);
            let scaled = Lcp { m: &l.m * s, q: &l.q * s };
            let m = maximize(&scaled, &c, f64::NEG_INFINITY, &EnumSettings::default()).unwrap();
            assert_eq!(m.status, base.status);
            assert!((m.value - base.value).abs() <= 1e-9 * (1.0 + base.value.abs()));
        }
    }
}
