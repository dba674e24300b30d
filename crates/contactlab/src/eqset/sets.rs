//! The equilibrium set (5) of P5, `{(q, q̇) : q̇ = 0, h(q, 0) + Σᵢ W_Ti(q) C_Ti ∋ 0}`: the exact
//! membership test, the connected sets of a one-degree-of-freedom system as intervals with their
//! ends bisected to round-off, and the set of a system with more degrees of freedom sampled on a
//! grid.

use nalgebra::SVector;
use rayon::prelude::*;
use serde::Serialize;

use super::v1;
use crate::lp::{LpSettings, LpStatus};
use crate::mechanics::sliders::{in_image, sign_pattern, SliderSystem};
use crate::Error;

/// Whether `(q, 0)` is an equilibrium: `h(q, 0) + Σ W_Ti C_Ti ∋ 0` (P5 (5)) with the normal
/// forces of the statics. One degree of freedom: `−h` in the image of the admissible set; more:
/// one feasibility LP per sign pattern of the normal forces.
pub fn is_equilibrium<S: SliderSystem<N, M>, const N: usize, const M: usize>(
    sys: &S,
    q: &SVector<f64, N>,
) -> Result<bool, Error> {
    let map = sys.static_map(q);
    let h = sys.forces(q, &SVector::zeros());
    let w = sys.slip_jacobian(q);
    let fs = sys.force_scale();
    if N == 1 {
        let wr: SVector<f64, M> = w.row(0).transpose();
        return Ok(in_image(&map.image(&wr)?, -h[0], super::RELATIVE_ZERO * fs));
    }
    let scale = map.scale().max(fs);
    for bits in 0..1usize << M {
        let mut lp = map.pattern_lp(&sign_pattern::<M>(bits), scale);
        for r in 0..N {
            let row = (0..M).flat_map(|j| [(j, w[(r, j)]), (M + j, -w[(r, j)])]).collect();
            lp.eq(row, -h[r] / scale);
        }
        let sol = lp.build().solve(&LpSettings::default())?;
        match sol.status {
            LpStatus::Optimal => return Ok(true),
            LpStatus::Infeasible => {}
            other => {
                return Err(Error::Numerical(format!(
                    "equilibrium LP at q = {:?} ended with status {}",
                    q.as_slice(),
                    crate::output::kebab(&other)
                )))
            }
        }
    }
    Ok(false)
}

/// A connected equilibrium set of a one-degree-of-freedom system, `{(q, 0) : lo ≤ q ≤ hi}`.
/// For a periodic coordinate a set across the seam of the scanned period has `hi` beyond it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SetInterval {
    /// Lower end.
    pub lo: f64,
    /// Upper end.
    pub hi: f64,
    /// The set is the whole scanned domain (for a periodic coordinate, the whole circle).
    pub whole: bool,
}

impl SetInterval {
    /// Midpoint, brought into `(−P/2, P/2]` for a period `P`.
    pub fn center(&self, period: Option<f64>) -> f64 {
        let c = 0.5 * (self.lo + self.hi);
        match period {
            Some(p) => {
                let x = c.rem_euclid(p);
                if x > 0.5 * p {
                    x - p
                } else {
                    x
                }
            }
            None => c,
        }
    }
    /// Half width.
    pub fn half_width(&self) -> f64 {
        0.5 * (self.hi - self.lo)
    }
    /// Whether `q` (any periodic image) lies in the set, up to `tol`.
    pub fn contains(&self, q: f64, period: Option<f64>, tol: f64) -> bool {
        if self.whole {
            return true;
        }
        let c = 0.5 * (self.lo + self.hi);
        let d = match period {
            Some(p) => {
                let x = q - c;
                x - p * (x / p).round()
            }
            None => q - c,
        };
        d.abs() <= self.half_width() + tol
    }
}

/// Bisection between a point `outside` and a point `inside` of a set given by `test`: the
/// last inside point once the bracket is at round-off.
fn boundary(test: &dyn Fn(f64) -> Result<bool, Error>, outside: f64, inside: f64) -> Result<f64, Error> {
    let br = crate::numeric::try_bisect(inside, outside, crate::numeric::Tol::ROUNDOFF, |m| {
        test(m).map(|t| crate::numeric::side_if(!t))
    })?;
    Ok(br.lo)
}

/// The equilibrium set (5) of a one-degree-of-freedom system on `[a, b]` (for a periodic
/// coordinate `b` is ignored and one period from `a` is scanned): `grid` points, then each
/// end by bisection to round-off. Sets narrower than the grid spacing can be missed.
pub fn equilibrium_sets<S: SliderSystem<1, M>, const M: usize>(
    sys: &S,
    a: f64,
    b: f64,
    grid: usize,
) -> Result<Vec<SetInterval>, Error> {
    let period = sys.period(0);
    let b = period.map_or(b, |p| a + p);
    if !(a.is_finite() && b.is_finite() && b > a) {
        return Err(Error::argument("domain", format!("the domain [{a}, {b}] is empty")));
    }
    let grid = grid.max(8);
    let test = |q: f64| is_equilibrium(sys, &v1(q));
    let n = if period.is_some() { grid } else { grid + 1 };
    let q_at = |k: usize| a + (b - a) * k as f64 / grid as f64;
    let flags: Vec<bool> = (0..n).map(|k| test(q_at(k))).collect::<Result<_, _>>()?;
    if flags.iter().all(|&f| f) {
        return Ok(vec![SetInterval { lo: a, hi: b, whole: true }]);
    }
    let mut sets = Vec::new();
    let mut k = 0;
    while k < n {
        if !flags[k] {
            k += 1;
            continue;
        }
        let start = k;
        while k < n && flags[k] {
            k += 1;
        }
        let lo = if start == 0 { a } else { boundary(&test, q_at(start - 1), q_at(start))? };
        let hi = if k == n {
            if period.is_some() {
                boundary(&test, q_at(n), q_at(n - 1))?
            } else {
                b
            }
        } else {
            boundary(&test, q_at(k), q_at(k - 1))?
        };
        sets.push(SetInterval { lo, hi, whole: false });
    }
    if period.is_some() && flags[0] {
        if flags[n - 1] {
            // One set through the seam: its part at the start continues the one at the end.
            let first = sets.remove(0);
            let last = sets.last_mut().expect("a run ends at the seam");
            last.hi = first.hi + (b - a);
        } else {
            sets[0].lo = boundary(&test, a - (b - a) / grid as f64, a)?;
        }
    }
    Ok(sets)
}

/// A sampled equilibrium set of an `N`-degree-of-freedom system: the grid points that are
/// equilibria and the points of its boundary found by bisection along each grid edge that
/// crosses it.
#[derive(Debug, Clone, Serialize)]
pub struct SampledSet {
    /// Grid points in the set.
    pub inside: Vec<Vec<f64>>,
    /// Boundary points (each to round-off along its grid edge).
    pub boundary: Vec<Vec<f64>>,
    /// Grid points tested.
    pub tested: usize,
}

/// Samples the equilibrium set on a grid of `n` points per coordinate over the box `[lo, hi]`.
pub fn sample_equilibrium_set<S: SliderSystem<N, M>, const N: usize, const M: usize>(
    sys: &S,
    lo: &SVector<f64, N>,
    hi: &SVector<f64, N>,
    n: usize,
) -> Result<SampledSet, Error> {
    let n = n.max(2);
    let total = n.pow(N as u32);
    let point = |mut k: usize| -> SVector<f64, N> {
        SVector::from_fn(|i, _| {
            let j = k % n;
            k /= n;
            lo[i] + (hi[i] - lo[i]) * j as f64 / (n - 1) as f64
        })
    };
    let flags: Vec<bool> =
        (0..total).into_par_iter().map(|k| is_equilibrium(sys, &point(k))).collect::<Result<_, _>>()?;
    let mut out = SampledSet { inside: Vec::new(), boundary: Vec::new(), tested: total };
    for k in 0..total {
        let p = point(k);
        if flags[k] {
            out.inside.push(p.iter().copied().collect());
        }
        let mut stride = 1;
        for i in 0..N {
            let j = (k / stride) % n;
            if j + 1 < n && flags[k] != flags[k + stride] {
                let (pin, pout) = if flags[k] { (p, point(k + stride)) } else { (point(k + stride), p) };
                let test = |t: f64| is_equilibrium(sys, &(pout + (pin - pout) * t));
                let t = boundary(&test, 0.0, 1.0)?;
                out.boundary.push((pout + (pin - pout) * t).iter().copied().collect());
            }
            stride *= n;
            let _ = i;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eqset::EqsetSettings;
    use crate::mechanics::sliders::{RodTwoSliders, SlidingBlock};

    #[test]
    fn the_rods_sets_are_p5_eq22() {
        let rod = RodTwoSliders::paper();
        let s = EqsetSettings::for_system(&rod);
        let sets = equilibrium_sets(&rod, s.q_min, s.q_max, 1000).unwrap();
        let th = rod.theta_hat().unwrap();
        assert_eq!(sets.len(), 2, "{sets:?}");
        assert!((sets[0].lo + th).abs() < 1e-12 && (sets[0].hi - th).abs() < 1e-12, "{sets:?} vs {th}");
        let p = std::f64::consts::PI;
        assert!((sets[1].center(Some(2.0 * p)).abs() - p).abs() < 1e-12, "{sets:?}");
        assert!((sets[1].half_width() - th).abs() < 1e-12);
    }

    #[test]
    fn the_sliding_blocks_set_is_its_band() {
        let b = SlidingBlock { mass: 3.0, stiffness: 20.0, gravity: 9.81, mu: 0.4 };
        let s = EqsetSettings::for_system(&b);
        let sets = equilibrium_sets(&b, s.q_min, s.q_max, 1000).unwrap();
        assert_eq!(sets.len(), 1);
        // The membership test accepts forces within 1e-12 m g of the friction bound, which is
        // 1e-12 m g / k = (1e-12 / μ) δ in x.
        let tol = 1e-12 / b.mu * b.band() * 1.01;
        assert!((sets[0].hi - b.band()).abs() < tol && (sets[0].lo + b.band()).abs() < tol, "{sets:?} vs {}", b.band());
    }

    #[test]
    fn sampling_the_one_dof_set_finds_the_same_ends() {
        let rod = RodTwoSliders::paper();
        let th = rod.theta_hat().unwrap();
        let s = sample_equilibrium_set(&rod, &v1(-1.0), &v1(1.0), 41).unwrap();
        assert_eq!(s.boundary.len(), 2);
        for p in &s.boundary {
            assert!((p[0].abs() - th).abs() < 1e-12, "{p:?}");
        }
    }
}
