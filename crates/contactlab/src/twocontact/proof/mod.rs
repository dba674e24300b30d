//! P1's maps and theorems proved over all impact angles (issue #23, part 3).
//!
//! Under the zero-order dynamics every quantity of a return is a closed form: constant
//! accelerations per contact mode, landing times as roots of quadratics, slip stops as roots of
//! linear functions, impacts as linear maps per impulse-level mode. This module evaluates a
//! whole return in [`crate::interval::Interval`] arithmetic for every `φ` of an interval `Φ` at once, and proves
//! each discrete decision on the way (which mode is consistent, which impact outcome P1's order
//! of preference selects, which event comes first) for all of `Φ`. Where a decision cannot be
//! proved, the enclosure fails with the reason; [`prove_over_circle`] then bisects `Φ`.
//!
//! **Scaled variables.** By the scale invariance of the ZOD, a return starts with `ż₂ = −c`,
//! `ẋ₂ = s`, `(c, s) = (cos φ, sin φ)`, the same direction as P1's `(−1, tan φ)`. Normal
//! velocities are carried divided by `c` (`ẑ = ż/c`), normal gaps by `c²` and times by `c`;
//! tangential velocities are not scaled. Then `G = |ẑ₂|` at the return and every landing and
//! impact of a slipping point is regular as `φ → ±π/2` (`c → 0`): the intervals at the ends of
//! the circle can be proved too, where P1's Lemma 2 describes the limits. A slip that must stop
//! takes the scaled time `|ẋ|/(c|ẍ|)`, unbounded there: where such a stop may come first the
//! state is unscaled (times and velocities as they are, regular in that regime) and `G = |ż₂|/c`
//! is enclosed as unbounded, as P1's Lemma 2a (set 2) has it.
//!
//! **Split decisions.** Where an impact's outcome or the order of two events cannot be decided
//! on the whole interval, every possibility is followed (each branch's formulas enclose the
//! return for the angles where its choice is the right one, the boundary angles included, where
//! the competing outcomes coincide); the enclosure is then a list of outcomes. An impact always
//! has a (non-strictly) consistent outcome (the frictional impact problem with a positive
//! definite Delassus matrix is solvable), so the branches cover every angle.
//!
//! **What is proved.** For the exact real parameters (each `f64` of the model taken as exact),
//! for every `φ ∈ Φ ∩ (−π/2, π/2)`: the return follows the proved sequence of events and ends
//! either at the section with `R(φ) ∈ [R]`, `G(φ) ∈ [G]`, or at rest (`R`, `G` undefined). The
//! mode table (one consistent mode per state class, equilibrium, ambiguity, persistence) is
//! proved once per configuration by [`ModeFacts`]. A Zeno series before the return is not
//! enclosed (the interval is undecided): P1's configurations A, B and D have none.
//!
//! [`prove_verdict`] turns this into proofs of P1's verdicts: Theorem 3 (`G < 1` on every piece
//! of a cover of the circle), Theorem 2 (a fixed point by the intermediate value theorem on one
//! proved path, `G > 1` on it), Theorem 5 where every return ends as the body turns about point
//! 1 at rest (`R ≡ atan(e₁/e₂)`), Theorems 4, 4a and Theorem 5 with a varying `R` by a proved
//! stable partition ([`prove_stable_partition`]: P1 proves Theorem 5 by building one), Theorem 1
//! and no equilibrium from the mode facts. Not proved: weak persistence through
//! `R′(±π/2) > 1` (it needs an enclosure of `R′`).

use std::f64::consts::FRAC_PI_2;
use std::sync::atomic::{AtomicUsize, Ordering};

use nalgebra::DMatrix;
use rayon::prelude::*;
use serde::Serialize;

use super::classify::{ConfigClassification, Theorem};
use super::impact::{mode_index, slip_sign};
use super::modes::{all_modes, ContactPointState, Mode, PointMode};
use super::sim::{class_index, CLASSES};
use super::TwoContact;
use crate::interval::Interval as I;
use crate::verified::{solve, Proof};

mod returns;
mod verdict;

pub use returns::*;
pub use verdict::*;

/// Events of one return before the enclosure gives up (a Zeno series never ends).
pub const MAX_EVENTS: usize = 40;

/// Depth of bisection of a `φ`-interval below the initial pieces.
pub const MAX_DEPTH: usize = 30;

/// Branches (states after an event) one enclosure may explore where decisions split its
/// interval.
pub const MAX_BRANCHES: usize = 256;

/// Enclosures one cover of the circle ([`prove_over_circle`], or a stable partition with its
/// refinements) may evaluate in all; beyond, the pieces left are undecided
/// ("work bound"). Whether the bound is hit does not depend on the threads: each piece's
/// bisection is deterministic, so the total work is.
pub const MAX_EVALUATIONS: usize = 8192;

/// Initial pieces of the circle in [`prove_over_circle`].
pub const INITIAL_PIECES: usize = 64;

fn ex(v: f64) -> I {
    I::exact(v)
}

fn zero() -> I {
    ex(0.0)
}

/// Three-valued outcome of a proof attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Tri {
    /// Proved true.
    Yes,
    /// Proved false.
    No,
    /// Not decided by the interval computation.
    Unknown,
}

impl Tri {
    fn positive(x: I) -> Tri {
        if x.is_positive() {
            Tri::Yes
        } else if x.hi() < 0.0 {
            Tri::No
        } else {
            Tri::Unknown
        }
    }

    fn and(self, o: Tri) -> Tri {
        match (self, o) {
            (Tri::No, _) | (_, Tri::No) => Tri::No,
            (Tri::Yes, Tri::Yes) => Tri::Yes,
            _ => Tri::Unknown,
        }
    }
}

const Z: [usize; 2] = [0, 1];
const X: [usize; 2] = [2, 3];
/// `(z₁, z₂, x₂)`: the independent contact coordinates.
const SUB: [usize; 3] = [0, 1, 3];

/// The ZOD of [`super::zod`] in intervals, computed from the parameters.
#[derive(Debug, Clone)]
pub struct IZod {
    /// Delassus matrix `A` (contact order `z₁, z₂, x₁, x₂`).
    a: [[I; 4]; 4],
    /// Force-free accelerations `a₀`.
    a0: [I; 4],
    mu: [I; 2],
    /// `ẋ₁ = e·(ż₁, ż₂, ẋ₂)`.
    e: [I; 3],
    /// `A` restricted to `(z₁, z₂, x₂)`, inverted.
    a_sub_inv: [[I; 3]; 3],
    /// Gains `K` of the 16 modes' equalities (`x = K base`), `None` where not verified.
    gains: Vec<Option<[[I; 4]; 4]>>,
    /// The proved mode of each of the 16 state classes, with its accelerations.
    table: Vec<Result<(Mode, [I; 4]), String>>,
}

fn solve_vec(a: &DMatrix<I>, b: &[I]) -> Option<Vec<I>> {
    solve(a, b)
}

impl IZod {
    /// The interval ZOD of `p` (already validated); `Err` when a matrix cannot be verified
    /// nonsingular.
    pub fn new(p: &TwoContact) -> Result<IZod, String> {
        // From the enclosures of P1's parameters: the file's own (angles as Interval::angle, in
        // radians or degrees), or those computed from a multibody model's geometry.
        let e = p.enclosed();
        let mut j = [[zero(); 3]; 4];
        for i in 0..2 {
            let (s, c, l) = (e.sin_phi[i], e.cos_phi[i], e.l[i]);
            // Normal (−sin φ, cos φ), tangent (cos φ, sin φ), lever ∂r/∂θ = (h, l) at θ = 0.
            j[Z[i]] = [-s, c, c * l - s * e.h];
            j[X[i]] = [c, s, c * e.h + s * l];
        }
        let inv = |v: I| v.recip().ok_or_else(|| "the mass matrix is not invertible".to_string());
        let minv = [inv(e.mass)?, inv(e.mass)?, inv(e.inertia)?];
        let load = e.load;
        let mut a = [[zero(); 4]; 4];
        let mut a0 = [zero(); 4];
        for r in 0..4 {
            for c in 0..4 {
                a[r][c] = (0..3).fold(zero(), |acc, k| acc + j[r][k] * j[c][k] * minv[k]);
            }
            a0[r] = (0..3).fold(zero(), |acc, k| acc + j[r][k] * minv[k] * load[k]);
        }
        // wt₁ = e₀ wn₁ + e₁ wn₂ + e₂ wt₂.
        let t = DMatrix::from_fn(3, 3, |k, col| j[SUB[col]][k]);
        let e3 = solve_vec(&t, &j[X[0]]).ok_or("singular geometry: (z1, z2, x2) are not verified independent")?;
        let e3 = [e3[0], e3[1], e3[2]];
        let asub = DMatrix::from_fn(3, 3, |r, c| a[SUB[r]][SUB[c]]);
        let mut a_sub_inv = [[zero(); 3]; 3];
        for col in 0..3 {
            let unit: Vec<I> = (0..3).map(|r| ex(if r == col { 1.0 } else { 0.0 })).collect();
            let x = solve_vec(&asub, &unit).ok_or("the Delassus matrix is not verified positive definite")?;
            for r in 0..3 {
                a_sub_inv[r][col] = x[r];
            }
        }
        let mut z = IZod { a, a0, mu: e.mu, e: e3, a_sub_inv, gains: vec![None; 16], table: vec![] };
        for m in all_modes() {
            z.gains[mode_index(m)] = z.gain(m);
        }
        z.table = (0..16).map(|k| z.prove_class([CLASSES[k / 4], CLASSES[k % 4]])).collect();
        Ok(z)
    }

    /// `R₁ = atan(e₁/e₂)`: the return angle of point 2 landing while the body turns about point
    /// 1 at rest (`ẋ₁ = ż₁ = 0`); `None` when `e₂` is not proved nonzero.
    pub fn r_pivot(&self) -> Option<I> {
        self.e[1].div(&self.e[2]).map(|t| t.atan())
    }

    /// `k` in `ẋ₁ = k ẋ₂` with both contacts sustained.
    pub fn k(&self) -> I {
        self.e[2]
    }

    /// Kinematic admissibility (as [`super::modes::admissible`]); `Unknown` when the sign of `k`
    /// is not proved.
    fn admissible(&self, mode: Mode) -> Tri {
        use PointMode::*;
        match (mode.0, mode.1) {
            (F, _) | (_, F) | (S, S) => Tri::Yes,
            (S, _) | (_, S) => Tri::No,
            (a, b) => {
                let k = self.k();
                let sk = if k.is_positive() {
                    1.0
                } else if k.is_negative() {
                    -1.0
                } else {
                    return Tri::Unknown;
                };
                if slip_sign(a) == sk * slip_sign(b) {
                    Tri::Yes
                } else {
                    Tri::No
                }
            }
        }
    }

    /// `K` with `x = K base` solving the mode's four equalities (as
    /// [`super::modes::mode_gain`]): columns where the selector is zero are exactly zero.
    fn gain(&self, mode: Mode) -> Option<[[I; 4]; 4]> {
        let mut sys = DMatrix::from_element(4, 4, zero());
        let mut sel = [[0.0f64; 4]; 4];
        for (i, pm) in [mode.0, mode.1].into_iter().enumerate() {
            let (zi, xi) = (Z[i], X[i]);
            let (r1, r2) = (2 * i, 2 * i + 1);
            match pm {
                PointMode::F => {
                    sys[(r1, zi)] = ex(1.0);
                    sys[(r2, xi)] = ex(1.0);
                }
                PointMode::S => {
                    for c in 0..4 {
                        sys[(r1, c)] = self.a[zi][c];
                        sys[(r2, c)] = self.a[xi][c];
                    }
                    sel[r1][zi] = -1.0;
                    sel[r2][xi] = -1.0;
                }
                PointMode::P | PointMode::N => {
                    for c in 0..4 {
                        sys[(r1, c)] = self.a[zi][c];
                    }
                    sel[r1][zi] = -1.0;
                    sys[(r2, xi)] = ex(1.0);
                    sys[(r2, zi)] = ex(slip_sign(pm)) * self.mu[i];
                }
            }
        }
        let mut k = [[zero(); 4]; 4];
        for col in 0..4 {
            if (0..4).all(|r| sel[r][col] == 0.0) {
                continue;
            }
            let rhs: Vec<I> = (0..4).map(|r| ex(sel[r][col])).collect();
            let x = solve_vec(&sys, &rhs)?;
            for r in 0..4 {
                k[r][col] = x[r];
            }
        }
        Some(k)
    }

    /// `x = K base` and `y = base + A x` with the mode's equalities made exact (the enclosures
    /// contain the exact solution, which meets them exactly).
    fn solve_mode(&self, mode: Mode, base: &[I; 4]) -> Option<([I; 4], [I; 4])> {
        let k = self.gains[mode_index(mode)].as_ref()?;
        let mut x = [zero(); 4];
        for (r, xr) in x.iter_mut().enumerate() {
            *xr = (0..4).fold(zero(), |acc, c| acc + k[r][c] * base[c]);
        }
        let mut y = [zero(); 4];
        for (r, yr) in y.iter_mut().enumerate() {
            *yr = (0..4).fold(base[r], |acc, c| acc + self.a[r][c] * x[c]);
        }
        snap(mode, &mut x, &mut y, &self.mu)?;
        Some((x, y))
    }

    /// Whether the double-stick family `A x = −u` has a member strictly inside both friction
    /// cones (`SS` consistent at rest with `u = a₀`, or as an impact with `u` the velocities).
    fn stick_family(&self, u: &[I; 4]) -> Tri {
        // x₀ with x₁ˣ = 0, and the null direction n of A: (e₀, e₁, −1, e₂).
        let mut x0 = [zero(); 4];
        for (r, &row) in SUB.iter().enumerate() {
            x0[row] = -(0..3).fold(zero(), |acc, c| acc + self.a_sub_inv[r][c] * u[SUB[c]]);
        }
        let n = [self.e[0], self.e[1], ex(-1.0), self.e[2]];
        // Constraints c + d s > 0 on the family x₀ + s n.
        let mut cons = Vec::with_capacity(6);
        for i in 0..2 {
            let (zi, xi) = (Z[i], X[i]);
            let mu = self.mu[i];
            cons.push((x0[zi], n[zi]));
            cons.push((mu * x0[zi] - x0[xi], mu * n[zi] - n[xi]));
            cons.push((mu * x0[zi] + x0[xi], mu * n[zi] + n[xi]));
        }
        // The range of s the constraints with a proved sign of d allow: s > max lower, s < min upper.
        let (mut lower, mut upper) = (I::exact(f64::NEG_INFINITY), I::exact(f64::INFINITY));
        for &(c, d) in &cons {
            if d.is_positive() || d.is_negative() {
                let b = (-c).div(&d).unwrap_or(I::ENTIRE);
                if d.is_positive() {
                    lower = I::new(lower.lo().max(b.lo()), lower.hi().max(b.hi())).unwrap_or(I::ENTIRE);
                } else {
                    upper = I::new(upper.lo().min(b.lo()), upper.hi().min(b.hi())).unwrap_or(I::ENTIRE);
                }
            }
        }
        // Infeasible: the range is empty, or a constraint fails on all of it.
        if lower.lo() > upper.hi() {
            return Tri::No;
        }
        if let Some(range) = I::new(lower.lo(), upper.hi()) {
            if cons.iter().any(|&(c, d)| (c + d * range).hi() < 0.0) {
                return Tri::No;
            }
        }
        // Feasible: one s strictly inside the range meets every constraint.
        if lower.hi() >= upper.lo() {
            return Tri::Unknown;
        }
        let s = match (lower.hi().is_finite(), upper.lo().is_finite()) {
            (true, true) => 0.5 * lower.hi() + 0.5 * upper.lo(),
            (true, false) => lower.hi() + lower.hi().abs().max(1.0),
            (false, true) => upper.lo() - upper.lo().abs().max(1.0),
            (false, false) => 0.0,
        };
        let s = ex(s);
        if cons.iter().all(|&(c, d)| (c + d * s).is_positive()) {
            Tri::Yes
        } else {
            Tri::Unknown
        }
    }

    /// Consistency of `mode` in the state class `state` under the ZOD (as
    /// [`super::modes::solve_mode`]), with its accelerations; `None` if not a candidate.
    fn class_mode(&self, mode: Mode, state: [ContactPointState; 2]) -> Option<(Tri, [I; 4])> {
        if !state[0].candidates().contains(&mode.0) || !state[1].candidates().contains(&mode.1) {
            return None;
        }
        match self.admissible(mode) {
            Tri::No => return None,
            Tri::Unknown => return Some((Tri::Unknown, [zero(); 4])),
            Tri::Yes => {}
        }
        if mode == Mode(PointMode::S, PointMode::S) {
            return Some((self.stick_family(&self.a0), [zero(); 4]));
        }
        let Some((f, a)) = self.solve_mode(mode, &self.a0) else { return Some((Tri::Unknown, [zero(); 4])) };
        let mut t = Tri::Yes;
        for (i, pm) in [mode.0, mode.1].into_iter().enumerate() {
            let (zi, xi) = (Z[i], X[i]);
            match pm {
                PointMode::F => {
                    if state[i] != ContactPointState::Separated {
                        t = t.and(Tri::positive(a[zi]));
                    }
                }
                PointMode::S => {
                    t = t.and(Tri::positive(f[zi])).and(Tri::positive(self.mu[i] * f[zi] - f[xi].abs()));
                }
                PointMode::P | PointMode::N => {
                    t = t.and(Tri::positive(f[zi]));
                    if state[i] == ContactPointState::Rest {
                        t = t.and(Tri::positive(ex(slip_sign(pm)) * a[xi]));
                    }
                }
            }
        }
        Some((t, a))
    }

    /// The unique consistent mode of a class, proved: every other candidate proved inconsistent.
    fn prove_class(&self, state: [ContactPointState; 2]) -> Result<(Mode, [I; 4]), String> {
        let mut found = None;
        for m in all_modes() {
            match self.class_mode(m, state) {
                None | Some((Tri::No, _)) => {}
                Some((Tri::Unknown, _)) => return Err(format!("the consistency of mode {m} is not decided")),
                Some((Tri::Yes, a)) => {
                    if found.is_some() {
                        return Err(format!("several modes consistent (Painlevé), {m} among them"));
                    }
                    found = Some((m, a));
                }
            }
        }
        found.ok_or_else(|| "no consistent mode (Painlevé)".to_string())
    }

    fn mode_of(&self, state: [ContactPointState; 2]) -> Result<(Mode, [I; 4]), String> {
        self.table[4 * class_index(state[0]) + class_index(state[1])].clone()
    }
}

/// Makes the mode's equalities exact in `(x, y)`; `None` if an enclosure excludes them (cannot
/// happen for a verified solve, kept as a check).
fn snap(mode: Mode, x: &mut [I; 4], y: &mut [I; 4], mu: &[I; 2]) -> Option<()> {
    for (i, pm) in [mode.0, mode.1].into_iter().enumerate() {
        let (zi, xi) = (Z[i], X[i]);
        let exact_zero = |v: &mut I| {
            if v.contains(0.0) {
                *v = zero();
                Some(())
            } else {
                None
            }
        };
        match pm {
            PointMode::F => {
                exact_zero(&mut x[zi])?;
                exact_zero(&mut x[xi])?;
            }
            PointMode::S => {
                exact_zero(&mut y[zi])?;
                exact_zero(&mut y[xi])?;
            }
            PointMode::P | PointMode::N => {
                exact_zero(&mut y[zi])?;
                x[xi] = -(ex(slip_sign(pm)) * mu[i] * x[zi]);
            }
        }
    }
    Some(())
}

/// The ZOD facts P1's theorems rest on, each proved or not (see [`super::modes::analyze`]).
#[derive(Debug, Clone, Serialize)]
pub struct ModeFacts {
    /// `SS` consistent at rest (a frictional equilibrium).
    pub equilibrium: Tri,
    /// No other mode consistent at rest (`No` = ambiguous, Theorem 1).
    pub unambiguous: Tri,
    /// Every non-static state class has exactly one consistent mode.
    pub painleve_free: Tri,
    /// Two-contact slip keeps both contacts: `[ẋ₂ > 0, ẋ₂ < 0]`.
    pub persistent: [Tri; 2],
    /// Why a fact is undecided, if one is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl ModeFacts {
    /// Proves the facts from the interval ZOD.
    pub fn prove(z: &IZod) -> ModeFacts {
        use ContactPointState::*;
        let mut reason = None;
        let ss = z.stick_family(&z.a0);
        let mut unambiguous = Tri::Yes;
        for m in all_modes() {
            if m == Mode(PointMode::S, PointMode::S) {
                continue;
            }
            if let Some((t, _)) = z.class_mode(m, [Rest, Rest]) {
                unambiguous = match (unambiguous, t) {
                    (_, Tri::Yes) | (Tri::No, _) => Tri::No,
                    (_, Tri::Unknown) | (Tri::Unknown, _) => Tri::Unknown,
                    _ => Tri::Yes,
                };
            }
        }
        let sk: i8 = if z.k().is_positive() { 1 } else { -1 };
        let classes = [
            [Rest, Separated],
            [Separated, Rest],
            [Slip(1), Separated],
            [Slip(-1), Separated],
            [Separated, Slip(1)],
            [Separated, Slip(-1)],
            [Slip(sk), Slip(1)],
            [Slip(-sk), Slip(-1)],
        ];
        let mut painleve_free = if z.k().contains(0.0) { Tri::Unknown } else { Tri::Yes };
        let mut persistent = [Tri::Unknown; 2];
        for (n, st) in classes.iter().enumerate() {
            match z.mode_of(*st) {
                Ok((m, _)) => {
                    if n >= 6 {
                        persistent[n - 6] = if m.0 != PointMode::F && m.1 != PointMode::F { Tri::Yes } else { Tri::No };
                    }
                }
                Err(e) => {
                    painleve_free = if e.contains("Painlevé") { Tri::No } else { Tri::Unknown };
                    reason.get_or_insert(format!("{st:?}: {e}"));
                    if n >= 6 && e.contains("Painlevé") {
                        persistent[n - 6] = Tri::No;
                    }
                }
            }
        }
        ModeFacts { equilibrium: ss, unambiguous, painleve_free, persistent, reason }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::paper_configs::p1::config;
    use crate::twocontact::poincare::{return_map, ReturnStatus};
    use crate::twocontact::sim::Simulator;
    use crate::twocontact::zod::Zod;

    #[test]
    fn enclosures_contain_the_float_maps() {
        for name in ["A", "B", "D"] {
            let p = config(name).unwrap();
            let z = IZod::new(&p).unwrap();
            let sim = Simulator::new(Zod::new(&p).unwrap()).unwrap();
            let mut proved = 0;
            for k in 0..41 {
                let phi = -1.5 + 3.0 * k as f64 / 40.0;
                let f = return_map(&sim, phi).unwrap();
                match z.enclose_return(phi, phi).map(|v| v[..].to_vec()) {
                    Ok(v) if v.len() != 1 => panic!("{name} φ = {phi}: {} outcomes on a point", v.len()),
                    Ok(v) => match v[0] {
                        ReturnEnclosure::Returned { r, g, .. } => {
                            proved += 1;
                            assert_eq!(f.status, ReturnStatus::Returned, "{name} φ = {phi}");
                            let (fr, fg) = (f.r.unwrap(), f.g.unwrap());
                            let near = |x: I, v: f64| {
                                x.lo() - 1e-9 * (1.0 + v.abs()) <= v && v <= x.hi() + 1e-9 * (1.0 + v.abs())
                            };
                            assert!(near(r, fr) && near(g, fg), "{name} φ = {phi}: R {fr} in {r}, G {fg} in {g}");
                        }
                        ReturnEnclosure::Rest { .. } => {
                            proved += 1;
                            assert_eq!(f.status, ReturnStatus::Rest, "{name} φ = {phi}");
                        }
                    },
                    Err(e) => eprintln!("{name} φ = {phi}: {e}"),
                }
            }
            eprintln!("{name}: {proved} of 41 proved");
        }
    }
}

#[cfg(test)]
mod theorem_tests {
    use super::*;
    use crate::paper_configs::p1::config;
    use crate::twocontact::classify::{classify, Verdict};

    const SAMPLES: usize = 401;

    #[test]
    fn config_a_theorem_3_is_proved_over_the_whole_circle() {
        let p = config("A").unwrap();
        let c = classify(&p, SAMPLES).unwrap();
        assert_eq!(c.theorem, Theorem::Theorem3);
        let v = prove_verdict(&p, &c);
        assert!(v.proof.is_proved(), "{v:?}");
        let f = v.facts.as_ref().unwrap();
        assert_eq!([f.equilibrium, f.unambiguous, f.painleve_free], [Tri::Yes; 3]);
        assert_eq!(f.persistent, [Tri::Yes; 2]);
        // The bound holds and covers every sampled G.
        let g_max = v.g_max.unwrap();
        assert!(g_max < 1.0 && g_max >= c.max_g.unwrap(), "{g_max} vs sampled {:?}", c.max_g);
        assert_eq!(v.undecided_count, 0);
    }

    #[test]
    fn a_false_inequality_is_never_proved() {
        // G < (the largest sampled G) is false at that sample: no piece may prove it.
        let p = config("A").unwrap();
        let c = classify(&p, SAMPLES).unwrap();
        let bound = c.max_g.unwrap();
        let z = IZod::new(&p).unwrap();
        let pieces = prove_over_circle(&z, &|e| match e {
            ReturnEnclosure::Rest { .. } => true,
            ReturnEnclosure::Returned { g, .. } => g.hi() < bound,
        });
        assert!(pieces.iter().any(|q| q.outcomes.is_empty()), "a false bound was proved");
    }

    #[test]
    fn config_d_theorem_2_fixed_point_is_proved() {
        let p = config("D").unwrap();
        let c = classify(&p, SAMPLES).unwrap();
        assert_eq!(c.verdict, Verdict::ReverseChatterUnstable);
        let v = prove_verdict(&p, &c);
        assert!(v.proof.is_proved(), "{v:?}");
        let fp = v.fixed_point.unwrap();
        let sampled = c.fixed_points.iter().find(|q| q.g > 1.0).unwrap();
        assert!(fp.phi[0] <= sampled.phi && sampled.phi <= fp.phi[1], "{fp:?} vs {sampled:?}");
        assert!(fp.g[0] > 1.0 && fp.g[0] - 1e-6 <= sampled.g && sampled.g <= fp.g[1] + 1e-6, "{fp:?} vs {sampled:?}");
    }

    #[test]
    fn config_b_theorem_5_is_proved_with_r_constant() {
        // Every return of B ends as the body turns about point 1 at rest: R ≡ R₁ = atan(e₁/e₂)
        // (0 for B's flat supports), so R is non-decreasing and its fixed point is R₁.
        let p = config("B").unwrap();
        let c = classify(&p, SAMPLES).unwrap();
        assert_eq!(c.theorem, Theorem::Theorem5);
        let v = prove_verdict(&p, &c);
        assert!(v.proof.is_proved(), "{v:?}");
        let f = v.facts.as_ref().unwrap();
        assert_eq!([f.equilibrium, f.unambiguous, f.painleve_free], [Tri::Yes; 3]);
        assert_eq!(f.persistent, [Tri::No; 2]);
        let fp = v.fixed_point.unwrap();
        let sampled = &c.fixed_points[0];
        assert!(fp.phi[0] <= sampled.phi && sampled.phi <= fp.phi[1], "{fp:?} vs {sampled:?}");
        assert!(fp.g[1] < 1.0 && fp.g[0] - 1e-6 <= sampled.g && sampled.g <= fp.g[1] + 1e-6, "{fp:?}");
        // Near the ends G grows without bound (P1 Lemma 2a, set 2): the bound says so.
        assert_eq!(v.g_max, Some(f64::INFINITY));
        // The ends are covered: the return near φ = ±π/2 is enclosed as well.
        let z = IZod::new(&p).unwrap();
        for end in [-FRAC_PI_2.next_up(), FRAC_PI_2.next_up()] {
            let near = end - end.signum() * 1e-12;
            let outs = z.enclose_return(near.min(end), near.max(end)).unwrap();
            assert!(outs.iter().all(|o| matches!(o, ReturnEnclosure::Returned { pivot: true, .. })), "{outs:?}");
        }
    }

    /// B's body with its centre of mass lower and further uphill (a cell of the Fig. 6 atlas):
    /// Theorem 5 on the samples, but the returns do not end turning about point 1, so `R` varies.
    fn varying_r() -> TwoContact {
        TwoContact { h: 0.08, l1: -0.008, l2: 0.052, ..config("B").unwrap() }
    }

    #[test]
    fn a_varying_r_under_theorem_5_is_proved_through_a_stable_partition() {
        use crate::twocontact::poincare::{return_map, ReturnStatus};
        use crate::twocontact::sim::Simulator;
        use crate::twocontact::zod::Zod;
        let p = varying_r();
        let c = classify(&p, SAMPLES).unwrap();
        assert_eq!(c.theorem, Theorem::Theorem5);
        let v = prove_verdict(&p, &c);
        assert!(v.proof.is_proved(), "{v:?}");
        assert!(v.argument.as_deref().unwrap().contains("stable partition"), "{v:?}");
        // R does vary: the constant-R route cannot be what proved it.
        let z = IZod::new(&p).unwrap();
        let f = ModeFacts::prove(&z);
        let (pieces, _) = partition(&z, &f).map_err(|e| format!("{e:?}")).unwrap();
        let varying = pieces
            .iter()
            .flat_map(|q| &q.outcomes)
            .any(|o| matches!(o, ReturnEnclosure::Returned { pivot: false, .. }));
        assert!(varying);
        // Independent route: the floating-point return map on a fine grid agrees with every
        // piece's label (safe: G < 1; drifting: R(φ) − φ of the proved sign).
        let sim = Simulator::new(Zod::new(&p).unwrap()).unwrap();
        let (mut checked, mut unsafe_seen) = (0, 0);
        for k in 1..4000 {
            let phi = -FRAC_PI_2 + std::f64::consts::PI * k as f64 / 4000.0;
            let q = &pieces[pieces.partition_point(|q| q.hi < phi).min(pieces.len() - 1)];
            assert!(q.lo <= phi && phi <= q.hi);
            let m = return_map(&sim, phi).unwrap();
            if m.status != ReturnStatus::Returned {
                continue;
            }
            let (r, g) = (m.r.unwrap(), m.g.unwrap());
            checked += 1;
            if safe(&q.outcomes) {
                assert!(g < 1.0, "φ = {phi}: G = {g} on a safe piece {q:?}");
            } else {
                unsafe_seen += 1;
                let d = drift(q.lo, q.hi, &q.outcomes);
                assert!(d != 0 && (r - phi).signum() == d as f64, "φ = {phi}: R − φ = {} on {q:?}", r - phi);
            }
        }
        assert!(checked > 3000 && unsafe_seen > 0, "{checked} {unsafe_seen}");
    }

    #[test]
    fn a_lift_off_with_vanishing_speed_is_enclosed_by_homogeneity() {
        // A's body on inclined supports: at φ ≈ 0.1241030034 the first impact turns from both
        // points sticking (rest) to point 1 lifting off, with a speed that vanishes at that
        // angle. Followed as it is, the lift-off's landings come ever sooner and never end; the
        // motion from λ·u is u's scaled by λ, which closes it.
        use crate::twocontact::poincare::{return_map, ReturnStatus};
        use crate::twocontact::sim::Simulator;
        use crate::twocontact::zod::Zod;
        let p = TwoContact { phi1: 0.4, phi2: -0.6, ..config("A").unwrap() };
        let z = IZod::new(&p).unwrap();
        let (lo, hi) = (0.12410300335394178, 0.12410300339965796);
        let outs = z.enclose_return(lo, hi).unwrap();
        let sim = Simulator::new(Zod::new(&p).unwrap()).unwrap();
        for phi in [lo, 0.5 * (lo + hi), hi, 0.12411] {
            let m = return_map(&sim, phi).unwrap();
            let outs = if phi <= hi { outs.clone() } else { z.enclose_return(phi, phi).unwrap() };
            match m.status {
                ReturnStatus::Rest => assert!(outs.iter().any(|o| matches!(o, ReturnEnclosure::Rest { .. }))),
                ReturnStatus::Returned => assert!(outs.iter().any(|o| matches!(o,
                    ReturnEnclosure::Returned { r, g, .. } if r.contains(m.r.unwrap()) && g.contains(m.g.unwrap())))),
                ReturnStatus::Failed => panic!("φ = {phi}: the float map failed"),
            }
        }
        let c = classify(&p, SAMPLES).unwrap();
        assert_eq!(c.theorem, Theorem::Theorem5);
        let v = prove_verdict(&p, &c);
        assert!(v.proof.is_proved(), "{v:?}");
    }

    #[test]
    fn a_sampled_theorem_3_verdict_missing_a_narrow_peak_of_g_is_refuted() {
        // D's body with contact 2 inclined by 0.2 rad: 401 samples of φ see G < 1 everywhere,
        // but G rises above 1 in a narrow band near −π/2 (≈ 1.048 at φ ≈ −1.56286, between
        // samples). Theorem 3's proof does not close, and names a proved counterexample.
        use crate::twocontact::poincare::return_map;
        use crate::twocontact::sim::Simulator;
        use crate::twocontact::zod::Zod;
        let p = TwoContact { phi1: 0.0, phi2: 0.2, ..config("D").unwrap() };
        let c = classify(&p, SAMPLES).unwrap();
        assert_eq!(c.theorem, Theorem::Theorem3);
        let v = prove_verdict(&p, &c);
        let ce = v.counterexample.expect("a counterexample");
        assert!(ce.g[0] > 1.0, "{v:?}");
        // The verdict (stable) still holds: proved through a stable partition, which says that
        // Theorem 3 itself is refuted.
        assert!(v.proof.is_proved(), "{v:?}");
        assert!(v.argument.as_deref().unwrap().contains("Theorem 3's premise refuted"), "{v:?}");
        // Independent route: the floating-point map there.
        let sim = Simulator::new(Zod::new(&p).unwrap()).unwrap();
        let g = return_map(&sim, ce.phi).unwrap().g.unwrap();
        assert!(g > 1.0 && ce.g[0] - 1e-9 <= g && g <= ce.g[1] + 1e-9, "{g} vs {ce:?}");
    }

    #[test]
    fn a_fixed_point_with_g_above_one_has_no_stable_partition() {
        // D is unstable by Theorem 2 (G* ≈ 1.34): its fixed point's piece is neither safe nor
        // drifting, whatever the refinement, so no stable partition may be proved.
        let z = IZod::new(&config("D").unwrap()).unwrap();
        let v = prove_stable_partition(&z, ModeFacts::prove(&z));
        assert!(!v.proof.is_proved(), "{v:?}");
        assert!(v.undecided_count > 0);
    }

    #[test]
    fn an_equilibrium_on_the_edge_of_the_friction_cone_is_undecided_never_proved() {
        // Flat supports, no torque, μ = tan α: SS sits exactly on the cone's edge.
        let b = config("B").unwrap();
        let p = TwoContact { phi1: 0.0, phi2: 0.0, torque: 0.0, mu1: b.alpha.tan(), mu2: b.alpha.tan(), ..b };
        let z = IZod::new(&p).unwrap();
        assert_eq!(ModeFacts::prove(&z).equilibrium, Tri::Unknown);
        // Moved off the edge either way, it is decided.
        for (mu, want) in [(1.001, Tri::Yes), (0.999, Tri::No)] {
            let q = TwoContact { mu1: p.mu1 * mu, mu2: p.mu2 * mu, ..p };
            assert_eq!(ModeFacts::prove(&IZod::new(&q).unwrap()).equilibrium, want, "μ × {mu}");
        }
    }

    #[test]
    fn units_do_not_change_the_proofs() {
        for name in ["A", "D", "varying R"] {
            let p = if name == "varying R" { varying_r() } else { config(name).unwrap() };
            let c = classify(&p, SAMPLES).unwrap();
            let v = prove_verdict(&p, &c);
            for k in [-8, 8] {
                let s = 10f64.powi(k);
                // Masses and forces × s, lengths (and the torque) × 1/s.
                let q = TwoContact {
                    mass: p.mass * s,
                    force: p.force * s,
                    rho: p.rho / s,
                    h: p.h / s,
                    l1: p.l1 / s,
                    l2: p.l2 / s,
                    torque: p.torque,
                    ..p
                };
                let w = prove_verdict(&q, &classify(&q, SAMPLES).unwrap());
                assert_eq!(w.proof.is_proved(), v.proof.is_proved(), "{name} × 1e{k}: {w:?}");
                let close = |a: f64, b: f64| a == b || (a - b).abs() <= 1e-6 * a.abs().max(b.abs());
                if let (Some(a), Some(b)) = (v.g_max, w.g_max) {
                    assert!(close(a, b), "{name} × 1e{k}: G_max {a} vs {b}");
                }
                if let (Some(a), Some(b)) = (v.fixed_point, w.fixed_point) {
                    assert!(close(a.g[0], b.g[0]), "{name} × 1e{k}: {a:?} vs {b:?}");
                }
            }
        }
    }
}
