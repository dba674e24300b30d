//! P1's maps and theorems proved over all impact angles (issue #23, part 3).
//!
//! Under the zero-order dynamics every quantity of a return is a closed form: constant
//! accelerations per contact mode, landing times as roots of quadratics, slip stops as roots of
//! linear functions, impacts as linear maps per impulse-level mode. This module evaluates a
//! whole return in [`Interval`] arithmetic for every `φ` of an interval `Φ` at once, and proves
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

use super::classify::{Classification, Theorem};
use super::impact::{mode_index, slip_sign};
use super::modes::{all_modes, Mode, PointMode, PointState};
use super::sim::{class_index, CLASSES};
use super::TwoContact;
use crate::interval::Interval as I;
use crate::verified::{solve, Proof};

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
    fn class_mode(&self, mode: Mode, state: [PointState; 2]) -> Option<(Tri, [I; 4])> {
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
                    if state[i] != PointState::Separated {
                        t = t.and(Tri::positive(a[zi]));
                    }
                }
                PointMode::S => {
                    t = t.and(Tri::positive(f[zi])).and(Tri::positive(self.mu[i] * f[zi] - f[xi].abs()));
                }
                PointMode::P | PointMode::N => {
                    t = t.and(Tri::positive(f[zi]));
                    if state[i] == PointState::Rest {
                        t = t.and(Tri::positive(ex(slip_sign(pm)) * a[xi]));
                    }
                }
            }
        }
        Some((t, a))
    }

    /// The unique consistent mode of a class, proved: every other candidate proved inconsistent.
    fn prove_class(&self, state: [PointState; 2]) -> Result<(Mode, [I; 4]), String> {
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

    fn mode_of(&self, state: [PointState; 2]) -> Result<(Mode, [I; 4]), String> {
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
        use PointState::*;
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

/// The state of a return in scaled variables (module docs).
#[derive(Debug, Clone, Copy)]
struct St {
    /// The scale of the normal variables: `c = cos φ` (`≥ 0`; `> 0` for every `φ` of the open
    /// circle), or exactly 1 once the state is unscaled (see [`St::unscale`]).
    c: I,
    /// `cos φ` itself.
    cos: I,
    /// Normal velocities divided by `c`.
    zh: [I; 2],
    /// Normal gaps divided by `c²` (flying points; exactly 0 when sustained).
    zg: [I; 2],
    /// Tangential velocities `(ẋ₁, ẋ₂)`.
    xd: [I; 2],
    sustained: [bool; 2],
    /// The slip direction an impact branch's mode requires of an active slipping point
    /// (`0`: none): the branch stands for the angles where that mode is strictly consistent,
    /// so the slip has that sign even where its enclosure holds 0 (at the angle where the
    /// impact turns from slipping to sticking, the sticking branch holds the limit).
    hint: [i8; 2],
}

impl St {
    /// The same state in unscaled variables (normal velocities `ż = c ẑ`, gaps `z = c² ẑ_g`,
    /// times unscaled): where a slip must stop while `c` may be 0, its stop takes the scaled time
    /// `|ẋ|/(c|ẍ|)`, unbounded, but the unscaled time `|ẋ|/|ẍ|`, regular; `G` is then `|ż₂|/c`.
    fn unscale(&mut self) {
        for i in 0..2 {
            self.zh[i] = self.c * self.zh[i];
            self.zg[i] = self.c * self.c * self.zg[i];
        }
        self.c = ex(1.0);
    }

    fn is_unscaled(&self) -> bool {
        self.c.lo() == 1.0 && self.c.hi() == 1.0
    }

    /// A state of the form `λ·u` with `u` a unit state: both gaps exactly 0 and every
    /// independent velocity `(ẑ₁, ẑ₂, ẋ₂)` exactly 0 but one, which has one sign. The normal
    /// velocity of a flying point at gap 0 is clamped to `≥ 0`: after an impact it has just
    /// separated; where its gap was snapped to 0 at a tie between a slip stop and its own landing,
    /// the landing branch covers the tie and this branch's outcomes are only extra (extra
    /// outcomes add constraints to a proof, never remove one). Then `(u, λ)`, `λ = |that component|`, `ẋ₁ = e·(ż₁, ż₂, ẋ₂)` in
    /// `u`: the motion from `λ·u` is that from `u` scaled by `λ` (positions by `λ²`), so its
    /// events and `R` are `u`'s and `G` is `λ` times `u`'s. Such states arise where an impact
    /// outcome turns into another (a point lifting off with a speed that vanishes at the
    /// interval's boundary angle); followed as they are, their events come ever sooner and never
    /// end.
    fn homogeneous(&self, e: &[I; 3]) -> Option<(St, I)> {
        let is_zero = |x: &I| x.lo() == 0.0 && x.hi() == 0.0;
        if !self.zg.iter().all(is_zero) {
            return None;
        }
        let mut v = [self.zh[0], self.zh[1], self.xd[1]];
        for i in 0..2 {
            if !self.sustained[i] && !is_zero(&v[i]) {
                v[i] = I::new(v[i].lo().max(0.0), v[i].hi().max(0.0))?;
            }
        }
        let mut nonzero = (0..3).filter(|&k| !is_zero(&v[k]));
        let (k, None) = (nonzero.next()?, nonzero.next()) else { return None };
        let x = v[k];
        if x.lo() == x.hi() && x.lo().abs() == 1.0 {
            return None; // already a unit state
        }
        // One-signed, also away from 0 (the reduction is exact and `u` carries no error). λ's
        // enclosure may reach 0: there the true motion is the competing impact outcome's (rest),
        // which `impact` lists as its own branch; the returned outcome here is then extra.
        let sign = if x.lo() >= 0.0 {
            1.0
        } else if x.hi() <= 0.0 {
            -1.0
        } else {
            return None;
        };
        let mut w = [zero(); 3];
        w[k] = ex(sign);
        let mut unit = *self;
        unit.zh = [w[0], w[1]];
        unit.xd = [e[0] * self.c * w[0] + e[1] * self.c * w[1] + e[2] * w[2], w[2]];
        Some((unit, x.abs()))
    }
}

/// `x / c` for `c ≥ 0` (`c > 0` on the open circle), also when `c`'s lower bound is 0 and `x`
/// has one sign: then unbounded.
fn over_c(x: I, c: I) -> Option<I> {
    if c.lo() > 0.0 {
        return x.div(&c);
    }
    let chi = I::exact(c.hi());
    if x.lo() >= 0.0 {
        let lo = x.div(&chi).map(|q| q.lo()).unwrap_or(0.0);
        I::new(lo.max(0.0), f64::INFINITY)
    } else if x.hi() <= 0.0 {
        let hi = x.div(&chi).map(|q| q.hi()).unwrap_or(0.0);
        I::new(f64::NEG_INFINITY, hi.min(0.0))
    } else {
        None
    }
}

/// How a return ends, enclosed for every `φ` of its interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "end", rename_all = "kebab-case")]
pub enum ReturnEnclosure {
    /// Back at the section with `R ∈ r`, `G ∈ g`.
    Returned {
        /// `R(φ)` (rad).
        #[serde(rename = "R", serialize_with = "ser_interval")]
        r: I,
        /// `G(φ)`.
        #[serde(rename = "G", serialize_with = "ser_interval")]
        g: I,
        /// Slipping double impacts met (bits as [`super::poincare::MapPoint::double_slip`]).
        double_slip: u8,
        /// The return ends while point 1 is at rest, so point 2 lands as the body turns about
        /// point 1 and `R = R₁ = atan(e₁/e₂)` exactly, the same constant for every `φ` of the
        /// interval ([`IZod::r_pivot`]).
        pivot: bool,
    },
    /// At rest before returning: `R`, `G` undefined.
    Rest {
        /// Slipping double impacts met.
        double_slip: u8,
    },
}

fn ser_interval<S: serde::Serializer>(x: &I, s: S) -> Result<S::Ok, S::Error> {
    [x.lo(), x.hi()].serialize(s)
}

enum Next {
    Land(usize, I),
    Stop(usize),
}

impl IZod {
    /// The possible outcomes of one impact with `touching` points under P1's order of
    /// preference: one when every consistency decision is proved, several where a margin
    /// cannot be signed on the whole interval (each candidate that may be the selected one).
    /// `None` in an outcome means the body stops (double stick).
    fn impact(&self, st: &St, touching: [bool; 2]) -> Result<Vec<Option<(St, u8)>>, String> {
        let allowed = |i: usize, pm: PointMode| touching[i] || pm == PointMode::F;
        let u = [st.c * st.zh[0], st.c * st.zh[1], st.xd[0], st.xd[1]];
        let rank = |m: Mode| {
            let pms = [m.0, m.1];
            (pms.iter().filter(|p| **p != PointMode::F).count(), pms.iter().filter(|p| **p == PointMode::S).count())
        };
        let slipping = |p: PointMode| matches!(p, PointMode::P | PointMode::N);
        let mut out = Vec::new();
        for tier in [(2, 2), (2, 0), (1, 1), (1, 0)] {
            let mut proved = false;
            for m in all_modes().into_iter().filter(|&m| rank(m) == tier) {
                if !allowed(0, m.0) || !allowed(1, m.1) {
                    continue;
                }
                match self.admissible(m) {
                    Tri::No => continue,
                    Tri::Unknown => return Err(format!("admissibility of impact mode {m} undecided")),
                    Tri::Yes => {}
                }
                let (t, next) = if m == Mode(PointMode::S, PointMode::S) {
                    (self.stick_family(&u), None)
                } else {
                    let (t, next) = self.impact_mode(m, st, touching)?;
                    let bits = if slipping(m.0) && slipping(m.1) {
                        if m.1 == PointMode::P {
                            1
                        } else {
                            2
                        }
                    } else {
                        0
                    };
                    (t, Some((next, bits)))
                };
                if t != Tri::No {
                    out.push(next);
                    proved |= t == Tri::Yes;
                }
            }
            // A proved consistent outcome in this tier: later tiers are never selected.
            if proved {
                return Ok(out);
            }
        }
        if out.is_empty() {
            return Err("no consistent impact outcome".into());
        }
        Ok(out)
    }

    /// The impulse-level mode `m` (not `SS`): its consistency and the state after it.
    fn impact_mode(&self, m: Mode, st: &St, touching: [bool; 2]) -> Result<(Tri, St), String> {
        let k = self.gains[mode_index(m)].as_ref().ok_or_else(|| format!("impact mode {m}: gain not verified"))?;
        let sticks = m.0 == PointMode::S || m.1 == PointMode::S;
        // λ = c λn + λt: λn from the scaled normal velocities, λt from the tangential ones
        // (exactly zero without a sticking point: K's tangential columns are zero).
        let mut ln = [zero(); 4];
        let mut lt = [zero(); 4];
        for r in 0..4 {
            ln[r] = k[r][0] * st.zh[0] + k[r][1] * st.zh[1];
            if sticks {
                lt[r] = k[r][2] * st.xd[0] + k[r][3] * st.xd[1];
            }
        }
        let lam: [I; 4] = std::array::from_fn(|r| st.c * ln[r] + lt[r]);
        let an: [I; 4] = std::array::from_fn(|r| (0..4).fold(zero(), |acc, c| acc + self.a[r][c] * ln[c]));
        let at: [I; 4] = std::array::from_fn(|r| (0..4).fold(zero(), |acc, c| acc + self.a[r][c] * lt[c]));
        let mut next = *st;
        for i in 0..2 {
            let dz = if sticks { over_c(at[Z[i]], st.c) } else { Some(zero()) };
            next.zh[i] = match dz {
                Some(dz) => st.zh[i] + an[Z[i]] + dz,
                None => I::ENTIRE,
            };
            next.xd[i] = st.xd[i] + st.c * an[X[i]] + at[X[i]];
        }
        let mut t = Tri::Yes;
        for (i, pm) in [m.0, m.1].into_iter().enumerate() {
            let (zi, xi) = (Z[i], X[i]);
            // Normal impulse: its sign is λn's when nothing sticks (c > 0).
            let lz = if sticks { lam[zi] } else { ln[zi] };
            match pm {
                PointMode::F => {
                    if touching[i] {
                        t = t.and(Tri::positive(next.zh[i]));
                    }
                }
                PointMode::S => {
                    t = t.and(Tri::positive(lz)).and(Tri::positive(self.mu[i] * lam[zi] - lam[xi].abs()));
                }
                PointMode::P | PointMode::N => {
                    t = t.and(Tri::positive(lz)).and(Tri::positive(ex(slip_sign(pm)) * next.xd[i]));
                }
            }
        }
        for (i, pm) in [m.0, m.1].into_iter().enumerate() {
            if pm == PointMode::F {
                if touching[i] {
                    // Lifts off from the support.
                    next.sustained[i] = false;
                    next.zg[i] = zero();
                }
            } else {
                next.sustained[i] = true;
                next.zh[i] = zero();
                next.zg[i] = zero();
                if pm == PointMode::S {
                    next.xd[i] = zero();
                }
                next.hint[i] = slip_sign(pm) as i8;
            }
        }
        Ok((t, next))
    }

    /// The class of the state and its proved mode; a sustained point whose mode is `F` lifts off.
    fn settle(&self, st: &mut St) -> Result<(Mode, [I; 4]), String> {
        let mut ps = [PointState::Separated; 2];
        for i in 0..2 {
            if st.sustained[i] {
                let v = st.xd[i];
                ps[i] = if v.lo() == 0.0 && v.hi() == 0.0 {
                    PointState::Rest
                } else if v.is_positive() {
                    PointState::Slip(1)
                } else if v.is_negative() {
                    PointState::Slip(-1)
                } else if st.hint[i] != 0 {
                    PointState::Slip(st.hint[i])
                } else {
                    return Err(format!("slip direction of point {} undecided", i + 1));
                };
            }
        }
        st.hint = [0; 2];
        let (mode, acc) = self.mode_of(ps)?;
        for (i, pm) in [mode.0, mode.1].into_iter().enumerate() {
            if st.sustained[i] && pm == PointMode::F {
                st.sustained[i] = false;
            }
        }
        Ok((mode, acc))
    }

    /// The return from the section for every `φ ∈ [lo, hi]`: every outcome the proved
    /// decisions leave possible (one, unless a decision splits the interval), or why not.
    pub fn enclose_return(&self, lo: f64, hi: f64) -> Result<Vec<ReturnEnclosure>, String> {
        let phi = I::new(lo, hi).ok_or("empty interval")?;
        let c = phi.cos();
        let c = I::new(c.lo().max(0.0), c.hi().max(0.0)).ok_or("cos φ")?;
        let s = phi.sin();
        let st = St {
            c,
            cos: c,
            zh: [zero(), ex(-1.0)],
            zg: [zero(); 2],
            xd: [-(c * self.e[1]) + self.e[2] * s, s],
            sustained: [true, false],
            hint: [0; 2],
        };
        let mut out = Vec::new();
        let mut budget = MAX_BRANCHES;
        for next in self.impact(&st, [true, true])? {
            match next {
                None => out.push(ReturnEnclosure::Rest { double_slip: 0 }),
                Some((st, bits)) => self.flow(st, bits, MAX_EVENTS, &mut budget, &mut out)?,
            }
        }
        Ok(out)
    }

    /// From a state after an event to the end of the return, each branch pushed on `out`.
    fn flow(
        &self,
        mut st: St,
        double_slip: u8,
        events: usize,
        budget: &mut usize,
        out: &mut Vec<ReturnEnclosure>,
    ) -> Result<(), String> {
        if events == 0 {
            return Err(format!("more than {MAX_EVENTS} events before the return (a Zeno series)"));
        }
        if *budget == 0 {
            return Err(format!("more than {MAX_BRANCHES} branches"));
        }
        *budget -= 1;
        if let Some((unit, lambda)) = st.homogeneous(&self.e) {
            // The motion from λ·u is the motion from u scaled by λ (the ZOD is homogeneous):
            // the same events and R, G multiplied by λ. λ > 0 on the angles this branch stands
            // for (λ = 0, where λ's enclosure reaches it, is the competing outcome's limit).
            let mut sub = Vec::new();
            self.flow(unit, double_slip, events - 1, budget, &mut sub)?;
            out.extend(sub.into_iter().map(|o| match o {
                ReturnEnclosure::Returned { r, g, double_slip, pivot } => {
                    ReturnEnclosure::Returned { r, g: g * lambda, double_slip, pivot }
                }
                rest => rest,
            }));
            return Ok(());
        }
        let (mode, acc) = self.settle(&mut st)?;
        if mode == Mode(PointMode::S, PointMode::S) {
            out.push(ReturnEnclosure::Rest { double_slip });
            return Ok(());
        }
        let pms = [mode.0, mode.1];
        let mut cands = candidates(&st, pms, &acc)?;
        if cands.is_empty() {
            return Err(format!("mode {mode}: no further event (the motion moves away)"));
        }
        // A slip stop that may come first but, with c possibly 0, at an unbounded scaled time:
        // continue in unscaled variables, where its time is regular.
        let unbounded_stop = cands.iter().enumerate().any(|(a, (n, t))| {
            matches!(n, Next::Stop(_))
                && t.hi() == f64::INFINITY
                && cands.iter().enumerate().all(|(b, (_, u))| b == a || t.lo() <= u.hi())
        });
        if unbounded_stop && !st.is_unscaled() {
            st.unscale();
            cands = candidates(&st, pms, &acc)?;
        }
        // Every event that may come first on some φ of the interval is a branch.
        let earliest_hi = |skip: usize| {
            (0..cands.len()).filter(|&b| b != skip).map(|b| cands[b].1.hi()).fold(f64::INFINITY, f64::min)
        };
        let firsts: Vec<usize> = (0..cands.len()).filter(|&a| cands[a].1.lo() <= earliest_hi(a)).collect();
        for a in firsts {
            let (next, tau) = (&cands[a].0, cands[a].1);
            let mut st = st;
            let half = ex(0.5);
            for i in 0..2 {
                let (az, ax) = (acc[Z[i]], acc[X[i]]);
                if !st.sustained[i] {
                    let zg = st.zg[i] + st.zh[i] * tau + half * az * tau.sqr();
                    // Still in flight until its own landing: the gap is ≥ 0.
                    st.zg[i] = I::new(zg.lo().max(0.0), zg.hi().max(0.0)).unwrap_or(zg);
                    st.zh[i] = st.zh[i] + az * tau;
                }
                st.xd[i] = st.xd[i] + st.c * ax * tau;
            }
            match *next {
                Next::Stop(i) => {
                    st.xd[i] = zero();
                    if st.sustained[1 - i] {
                        st.xd[1 - i] = zero();
                    }
                    self.flow(st, double_slip, events - 1, budget, out)?;
                }
                Next::Land(i, v) => {
                    st.zg[i] = zero();
                    st.zh[i] = v;
                    if i == 1 && st.sustained[0] {
                        let speed = st.zh[1].abs();
                        let g = if st.is_unscaled() {
                            over_c(speed, st.cos).ok_or("G: the return's speed")?
                        } else {
                            speed
                        };
                        let at_rest = st.xd[0].lo() == 0.0 && st.xd[0].hi() == 0.0;
                        let r = if at_rest {
                            // ẋ₁ = e₁ż₂ + e₂ẋ₂ = 0 with ż₂ < 0: tan R = ẋ₂/|ż₂| = e₁/e₂.
                            self.r_pivot().ok_or("R about point 1: e₂ not proved nonzero")?
                        } else {
                            over_c(st.xd[1], st.c * speed).ok_or("R: the return's slip direction")?.atan()
                        };
                        out.push(ReturnEnclosure::Returned { r, g, double_slip, pivot: at_rest });
                        continue;
                    }
                    let touching = [st.sustained[0] || i == 0, st.sustained[1] || i == 1];
                    for outcome in self.impact(&st, touching)? {
                        match outcome {
                            None => out.push(ReturnEnclosure::Rest { double_slip }),
                            Some((st, bits)) => self.flow(st, double_slip | bits, events - 1, budget, out)?,
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

/// The events that may end the phase of mode `pms` with accelerations `acc` from `st`, with
/// their (scaled) times.
fn candidates(st: &St, pms: [PointMode; 2], acc: &[I; 4]) -> Result<Vec<(Next, I)>, String> {
    let mut cands: Vec<(Next, I)> = Vec::new();
    for i in 0..2 {
        let (az, ax) = (acc[Z[i]], acc[X[i]]);
        if !st.sustained[i] {
            let (zh, zg) = (st.zh[i], st.zg[i]);
            if az.is_negative() {
                let disc = zh.sqr() - ex(2.0) * az * zg;
                let sq = disc.sqrt().ok_or("landing: negative discriminant")?;
                let t = if zh.hi() <= 0.0 { (ex(2.0) * zg).div(&(sq - zh)) } else { (zh + sq).div(&(-az)) }
                    .ok_or("landing time")?;
                cands.push((Next::Land(i, -sq), t));
            } else if !(az.lo() >= 0.0 && zh.lo() >= 0.0) {
                return Err(format!("landing of point {} undecided", i + 1));
            }
        } else if matches!(pms[i], PointMode::P | PointMode::N) && !(i == 0 && st.sustained[1]) {
            // A double slip stops on point 2's clock (ẋ₁ = k ẋ₂).
            let dec = ex(slip_sign(pms[i])) * ax;
            if dec.is_negative() {
                let t = over_c(st.xd[i].div(&(-ax)).ok_or("slip stop time")?, st.c).ok_or("slip stop time")?;
                cands.push((Next::Stop(i), t));
            } else if !dec.is_positive() {
                return Err(format!("slip of point {} undecided: stops or not", i + 1));
            }
        }
    }
    Ok(cands)
}

/// One piece of the circle and what is proved on it.
#[derive(Debug, Clone, Serialize)]
pub struct Piece {
    /// `φ` from (rad).
    pub lo: f64,
    /// `φ` to (rad).
    pub hi: f64,
    /// Halvings below the initial piece.
    #[serde(skip)]
    pub depth: usize,
    /// Every outcome the return may have on the piece (several where a decision splits it);
    /// empty when the piece is undecided.
    pub outcomes: Vec<ReturnEnclosure>,
    /// Why the piece is undecided (at the bisection depth limit).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The circle `[−π/2, π/2]` (its ends the floats just outside) cut into pieces on which the
/// return is enclosed and `accept` holds, bisecting each piece where the enclosure fails or
/// `accept` does not hold, down to [`MAX_DEPTH`] halvings. Pieces that stay undecided carry the
/// last reason.
pub fn prove_over_circle(z: &IZod, accept: &(dyn Fn(&ReturnEnclosure) -> bool + Sync)) -> Vec<Piece> {
    cover_circle(z, &|_, _, e| e.iter().all(accept), &AtomicUsize::new(0))
}

/// What a piece `[lo, hi]` must satisfy, given every outcome of its return.
type Accept<'a> = dyn Fn(f64, f64, &[ReturnEnclosure]) -> bool + Sync + 'a;

/// [`prove_over_circle`] with a condition on the whole piece.
fn cover_circle(z: &IZod, accept: &Accept, spent: &AtomicUsize) -> Vec<Piece> {
    let end = FRAC_PI_2.next_up();
    let n = INITIAL_PIECES;
    let cut = |k: usize| {
        if k == 0 {
            -end
        } else if k == n {
            end
        } else {
            -end + 2.0 * end * k as f64 / n as f64
        }
    };
    (0..n).into_par_iter().flat_map_iter(|k| prove_piece(z, (cut(k), cut(k + 1), 0), accept, spent)).collect()
}

/// The bisection of [`prove_over_circle`] on one piece `(lo, hi, depth)`: its decided and
/// undecided sub-pieces in order. `spent` counts enclosures against [`MAX_EVALUATIONS`].
fn prove_piece(z: &IZod, piece: (f64, f64, usize), accept: &Accept, spent: &AtomicUsize) -> Vec<Piece> {
    let mut out = Vec::new();
    let mut stack = vec![piece];
    while let Some((lo, hi, depth)) = stack.pop() {
        if spent.fetch_add(1, Ordering::Relaxed) >= MAX_EVALUATIONS {
            let reason = format!("work bound: {MAX_EVALUATIONS} enclosures");
            out.push(Piece { lo, hi, depth, outcomes: vec![], reason: Some(reason) });
            continue;
        }
        let res = z.enclose_return(lo, hi).and_then(|e| {
            if accept(lo, hi, &e) {
                Ok(e)
            } else {
                Err("the enclosure does not satisfy the inequality".to_string())
            }
        });
        match res {
            Ok(e) => out.push(Piece { lo, hi, depth, outcomes: e, reason: None }),
            Err(reason) => {
                let mid = 0.5 * (lo + hi);
                if depth >= MAX_DEPTH || !(lo < mid && mid < hi) {
                    out.push(Piece { lo, hi, depth, outcomes: vec![], reason: Some(reason) });
                } else {
                    stack.push((mid, hi, depth + 1));
                    stack.push((lo, mid, depth + 1));
                }
            }
        }
    }
    out.sort_by(|a, b| a.lo.total_cmp(&b.lo));
    out
}

/// A fixed point of `R` proved to exist in `phi`, with `G` enclosed on all of `phi`.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct FixedPointProof {
    /// `φ*` lies in `[phi[0], phi[1]]` (rad).
    pub phi: [f64; 2],
    /// `G(φ) ∈ [G[0], G[1]]` for every `φ` there.
    #[serde(rename = "G")]
    pub g: [f64; 2],
}

/// The proof behind a verdict of [`super::classify::classify`].
#[derive(Debug, Clone, Serialize)]
pub struct VerdictProof {
    /// `"interval"` or `"none"` with the reason.
    #[serde(flatten)]
    pub proof: Proof,
    /// What the verdict is about beyond the parameters, when that is not the file as written:
    /// the gaps of contacts P1 took as closed ([`TwoContact::enclosure`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub assumes: Option<String>,
    /// The mode facts, each proved, disproved or undecided.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub facts: Option<ModeFacts>,
    /// Pieces of the circle on which the return was enclosed (Theorem 3).
    pub pieces: usize,
    /// Upper bound of `G` over every piece where `R` is defined (Theorems 3 and 5); null when a
    /// piece is undecided.
    #[serde(rename = "G_max")]
    pub g_max: Option<f64>,
    /// The fixed point with `G > 1` (Theorem 2).
    pub fixed_point: Option<FixedPointProof>,
    /// The argument of a proof that is not the verdict's own theorem (a Theorem 5 verdict proved
    /// through the stable partition of Theorem 4a, as P1's proof of Theorem 5 does).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub argument: Option<String>,
    /// Where the verdict's theorem is refuted: `G > 1` proved at an angle (Theorem 3).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub counterexample: Option<Counterexample>,
    /// Pieces `[φ_lo, φ_hi]` left undecided (at most [`LISTED_UNDECIDED`] listed) and their count.
    pub undecided: Vec<[f64; 2]>,
    /// Number of undecided pieces.
    pub undecided_count: usize,
}

/// An angle where `G > 1` is proved: Theorem 3's premise fails there, whatever the samples say.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Counterexample {
    /// `φ` (rad).
    pub phi: f64,
    /// `G(φ) ∈ [G[0], G[1]]`, `G[0] > 1`.
    #[serde(rename = "G")]
    pub g: [f64; 2],
}

/// Pieces' midpoints tried by [`counterexample`].
const COUNTEREXAMPLE_TRIES: usize = 64;

/// A proved `G(φ) > 1` at the midpoint of an undecided piece (the return a single proved path
/// there), if one of the first [`COUNTEREXAMPLE_TRIES`] has it.
fn counterexample(z: &IZod, pieces: &[Piece]) -> Option<Counterexample> {
    pieces.iter().filter(|p| p.outcomes.is_empty()).take(COUNTEREXAMPLE_TRIES).find_map(|p| {
        let phi = 0.5 * (p.lo + p.hi);
        match z.enclose_return(phi, phi).ok()?.as_slice() {
            [ReturnEnclosure::Returned { g, .. }] if g.lo() > 1.0 => Some(Counterexample { phi, g: [g.lo(), g.hi()] }),
            _ => None,
        }
    })
}

impl VerdictProof {
    /// What a closed proof shows, clause by clause (empty when it did not close).
    pub fn shows(&self) -> Vec<String> {
        if !self.proof.is_proved() {
            return vec![];
        }
        let mut parts = Vec::new();
        if let Some(f) = &self.facts {
            parts.push(format!(
                "SS consistent at rest, no other mode, one mode per state class{}",
                if f.persistent == [Tri::Yes; 2] { ", persistent" } else { "" }
            ));
        }
        if self.pieces > 0 {
            parts.push(format!("the return enclosed on {} pieces covering [−π/2, π/2]", self.pieces));
        }
        if let Some(a) = &self.argument {
            parts.push(a.clone());
        }
        match self.g_max {
            Some(g) if g.is_finite() => parts.push(format!("G ≤ {g:.6} wherever R is defined")),
            Some(_) => parts.push("G's enclosure unbounded near ±π/2 (as P1 Lemma 2a, set 2, has G)".into()),
            None => {}
        }
        if let Some(f) = &self.fixed_point {
            parts.push(format!(
                "a fixed point φ* in [{:.12}, {:.12}] with G* in [{:.9}, {:.9}]",
                f.phi[0], f.phi[1], f.g[0], f.g[1]
            ));
        }
        parts
    }
}

/// Undecided pieces listed in a [`VerdictProof`].
pub const LISTED_UNDECIDED: usize = 8;

impl VerdictProof {
    fn none(reason: impl Into<String>, facts: Option<ModeFacts>) -> Self {
        VerdictProof {
            proof: Proof::none(reason),
            assumes: None,
            facts,
            pieces: 0,
            g_max: None,
            fixed_point: None,
            argument: None,
            counterexample: None,
            undecided: vec![],
            undecided_count: 0,
        }
    }
}

/// Half-widths (rad) of the interval around a sampled fixed point tried by [`prove_fixed_point`].
const FIXED_POINT_BOXES: [f64; 4] = [1e-9, 1e-7, 1e-5, 1e-3];

/// A fixed point of `R` near `phi` with `G > 1` on its interval: `R(φ) − φ` has proved opposite
/// signs at the interval's ends and the return follows one proved sequence of events on all of
/// it (so `R` is continuous there, and the intermediate value theorem gives `φ*`).
pub fn prove_fixed_point(z: &IZod, phi: f64) -> Result<FixedPointProof, String> {
    let diff = |x: f64| -> Option<I> {
        match z.enclose_return(x, x).ok()?.as_slice() {
            [ReturnEnclosure::Returned { r, .. }] => Some(*r - ex(x)),
            _ => None,
        }
    };
    let mut last = "R is not enclosed near the fixed point".to_string();
    for h in FIXED_POINT_BOXES {
        let (a, b) = (phi - h, phi + h);
        let (Some(da), Some(db)) = (diff(a), diff(b)) else { continue };
        let opposite = (da.is_positive() && db.is_negative()) || (da.is_negative() && db.is_positive());
        if !opposite {
            last = format!("R(φ) − φ not of proved opposite signs at φ* ± {h:e}");
            continue;
        }
        match z.enclose_return(a, b) {
            Ok(v) => match v.as_slice() {
                [ReturnEnclosure::Returned { g, .. }] => {
                    return Ok(FixedPointProof { phi: [a, b], g: [g.lo(), g.hi()] });
                }
                _ => last = format!("the return splits or rests on φ* ± {h:e}"),
            },
            Err(e) => last = e,
        }
    }
    Err(last)
}

/// The premises of Theorems 2–5: an equilibrium, unambiguous and free of Painlevé states.
fn premises(f: &ModeFacts) -> Result<(), String> {
    need(f.equilibrium, "SS consistent at rest (equilibrium)")?;
    need(f.unambiguous, "no other mode consistent at rest")?;
    need(f.painleve_free, "one consistent mode in every state class (Painlevé-free)")
}

/// Whether `t` is proved, with the fact's name for the reason when not.
fn need(t: Tri, what: &str) -> Result<(), String> {
    match t {
        Tri::Yes => Ok(()),
        Tri::No => Err(format!("{what} is disproved in interval arithmetic")),
        Tri::Unknown => Err(format!("{what} is not decided in interval arithmetic")),
    }
}

/// Proves the verdict `c` of `p`: P1's Theorems 1–3, no equilibrium, Theorem 5 (`R` constant, or
/// else through a stable partition) and Theorems 4, 4a (a stable partition); `"none"` with the
/// reason where a proof does not close.
pub fn prove_verdict(p: &TwoContact, c: &Classification) -> VerdictProof {
    let mut v = prove_verdict_of_closed(p, c);
    let e = p.enclosed();
    let mut assumes = vec![];
    if !e.closed_exactly() {
        assumes.push(format!(
            "the contacts' gaps {} m and {} m were taken as closed (P1's body rests on both): the verdict \
             and its proof are about the body with both contacts closed",
            e.gaps[0], e.gaps[1]
        ));
    }
    if e.tree_converted {
        assumes.push(
            "the body is the planar tree converted from the URDF in floating point (joint angles from rpy \
             rotations, inertias projected on the plane's normal): the proof starts from that tree's numbers"
                .to_string(),
        );
    }
    if !assumes.is_empty() {
        v.assumes = Some(assumes.join("; "));
    }
    v
}

/// [`prove_verdict`] for P1's body with both contacts closed.
fn prove_verdict_of_closed(p: &TwoContact, c: &Classification) -> VerdictProof {
    let z = match IZod::new(p) {
        Ok(z) => z,
        Err(e) => return VerdictProof::none(e, None),
    };
    let f = ModeFacts::prove(&z);
    match c.theorem {
        Theorem::SsInconsistent => match f.equilibrium {
            Tri::No => VerdictProof { proof: Proof::interval(), ..VerdictProof::none("", Some(f)) },
            t => VerdictProof::none(need(t, "SS inconsistent").err().unwrap_or_default(), Some(f)),
        },
        Theorem::Theorem1 => match (f.equilibrium, f.unambiguous) {
            (Tri::Yes, Tri::No) => VerdictProof { proof: Proof::interval(), ..VerdictProof::none("", Some(f)) },
            _ => VerdictProof::none("SS and a second mode consistent at rest are not both proved", Some(f)),
        },
        Theorem::Theorem2 => {
            if let Err(e) = premises(&f) {
                return VerdictProof::none(e, Some(f));
            }
            let Some(fp) = c.fixed_points.iter().find(|q| q.g > 1.0) else {
                return VerdictProof::none("no sampled fixed point with G > 1", Some(f));
            };
            match prove_fixed_point(&z, fp.phi) {
                Ok(q) if q.g[0] > 1.0 => {
                    VerdictProof { proof: Proof::interval(), fixed_point: Some(q), ..VerdictProof::none("", Some(f)) }
                }
                Ok(q) => VerdictProof {
                    fixed_point: Some(q),
                    ..VerdictProof::none("G > 1 not proved on the fixed point's interval", Some(f))
                },
                Err(e) => VerdictProof::none(format!("fixed point: {e}"), Some(f)),
            }
        }
        Theorem::Theorem3 => {
            if let Err(e) = premises(&f)
                .and_then(|_| need(f.persistent[0], "persistence (ẋ₂ > 0)"))
                .and_then(|_| need(f.persistent[1], "persistence (ẋ₂ < 0)"))
            {
                return VerdictProof::none(e, Some(f));
            }
            let pieces = prove_over_circle(&z, &|e| safe(std::slice::from_ref(e)));
            let mut v = circle_proof(&pieces, f.clone(), "G < 1 wherever R is defined");
            if v.proof.is_proved() {
                return v;
            }
            // Theorem 3 does not close (or is refuted): the same verdict through a stable
            // partition (Theorem 4, the equilibrium being persistent).
            let ce = counterexample(&z, &pieces);
            let refuted = ce.map(|c| {
                format!(
                    "Theorem 3's premise refuted: G(φ) ∈ [{:.9}, {:.9}] > 1 at φ = {:.12} (proved; the samples missed it)",
                    c.g[0], c.g[1], c.phi
                )
            });
            let mut w = prove_stable_partition(&z, f);
            w.counterexample = ce;
            if w.proof.is_proved() {
                if let (Some(a), Some(r)) = (w.argument.as_mut(), refuted) {
                    *a = format!("{a} ({r})");
                }
                return w;
            }
            v.counterexample = ce;
            if let Some(r) = v.proof.proof_reason.as_mut() {
                let alt = w.proof.proof_reason.unwrap_or_default();
                *r = match refuted {
                    Some(x) => format!("{x}; {r}; through a stable partition (Theorem 4): {alt}"),
                    None => format!("{r}; through a stable partition (Theorem 4): {alt}"),
                };
            }
            v
        }
        Theorem::Theorem5 => {
            if let Err(e) = premises(&f) {
                return VerdictProof::none(e, Some(f));
            }
            prove_theorem5(&z, f)
        }
        Theorem::Theorem4 | Theorem::Theorem4a => {
            if let Err(e) = premises(&f) {
                return VerdictProof::none(e, Some(f));
            }
            prove_stable_partition(&z, f)
        }
        _ => VerdictProof::none("no theorem decided the verdict", Some(f)),
    }
}

/// Theorem 5 where every return ends as the body turns about point 1 at rest, so that `R` is
/// the constant `R₁` wherever it is defined: then `R` is non-decreasing, its only fixed point
/// is `φ* = R₁` (checked: `G < 1` there), `|R(±π/2)| = |R₁| < π/2`, and weak persistence
/// needs only the slipping double impacts of every return (none in a direction that is not
/// persistent). A return that ends otherwise leaves `R` varying: then the proof goes through a
/// stable partition ([`prove_stable_partition`]), which is how P1 derives Theorem 5 from
/// Theorem 4a (`R`'s monotonicity itself would need an enclosure of `R′`).
fn prove_theorem5(z: &IZod, f: ModeFacts) -> VerdictProof {
    // Whether a return ends turning about point 1 is a discrete property no bisection changes:
    // where a point of the circle shows it does not, go to the partition at once.
    let varying =
        (1..INITIAL_PIECES).map(|k| -FRAC_PI_2 + std::f64::consts::PI * k as f64 / INITIAL_PIECES as f64).find(|&x| {
            z.enclose_return(x, x)
                .is_ok_and(|v| v.iter().any(|o| matches!(o, ReturnEnclosure::Returned { pivot: false, .. })))
        });
    if let Some(x) = varying {
        let mut w = prove_stable_partition(z, f);
        if let Some(r) = w.proof.proof_reason.take() {
            w.proof = Proof::none(format!(
                "R varies (the return from φ = {x:.6} does not end turning about point 1); through a stable partition \
                 (Theorem 4a): {r}"
            ));
        }
        return w;
    }
    let pieces = prove_over_circle(z, &|e| match e {
        ReturnEnclosure::Rest { .. } => true,
        ReturnEnclosure::Returned { pivot, .. } => *pivot,
    });
    let mut v = circle_proof(&pieces, f.clone(), "R constant (the body turning about point 1) wherever it is defined");
    if !v.proof.is_proved() {
        // R varies: P1 proves Theorem 5 by building a stable partition and applying Theorem 4a;
        // prove such a partition directly (R's monotonicity itself would need R′).
        let why = v.proof.proof_reason.take().unwrap_or_default();
        let mut w = prove_stable_partition(z, f);
        if let Some(r) = w.proof.proof_reason.take() {
            w.proof = Proof::none(format!("{why}; through a stable partition (Theorem 4a): {r}"));
        }
        return w;
    }
    let Some(r1) = z.r_pivot() else {
        return VerdictProof::none("R₁ = atan(e₁/e₂): e₂ not proved nonzero", Some(f));
    };
    // Weak persistence: in each direction that is not persistent, no slipping double impact in
    // any return.
    let bits = double_slip_bits(&pieces);
    for (d, name) in [(0usize, "ẋ₂ > 0"), (1, "ẋ₂ < 0")] {
        if f.persistent[d] != Tri::Yes && bits & (1 << d) != 0 {
            return VerdictProof::none(
                format!("weak persistence ({name}): a return may contain a slipping double impact"),
                Some(f),
            );
        }
    }
    // The fixed point φ* = R₁: G < 1 there (every outcome the interval R₁ allows).
    match z.enclose_return(r1.lo(), r1.hi()) {
        Ok(outs) => {
            let g_fixed = outs.iter().find_map(|o| match o {
                ReturnEnclosure::Returned { g, .. } => Some(*g),
                ReturnEnclosure::Rest { .. } => None,
            });
            if outs.iter().any(|o| matches!(o, ReturnEnclosure::Returned { g, .. } if g.hi() >= 1.0)) {
                return VerdictProof::none("G < 1 not proved at the fixed point φ* = R₁", Some(f));
            }
            if let Some(g) = g_fixed {
                v.fixed_point = Some(FixedPointProof { phi: [r1.lo(), r1.hi()], g: [g.lo(), g.hi()] });
            }
            v.argument = Some("R = R₁ = atan(e₁/e₂) (the body turning about point 1) wherever defined".into());
            v
        }
        Err(e) => VerdictProof::none(format!("the return at the fixed point φ* = R₁: {e}"), Some(f)),
    }
}

/// Rounds of refinement [`prove_stable_partition`] spends on pieces that lie on a cycle of the
/// interval graph without being safe.
pub const PARTITION_ROUNDS: usize = 24;

/// Halvings of the end piece tried to separate `G±` from 1 and `R(±π/2)` from `±π/2`.
const END_HALVINGS: usize = 40;

/// `+1` if `R(φ) > φ` on all of `[lo, hi]` for every outcome that returns, `−1` if `R(φ) < φ`,
/// `0` if neither is proved (or nothing returns).
fn drift(lo: f64, hi: f64, outs: &[ReturnEnclosure]) -> i8 {
    let rs: Vec<I> = outs.iter().filter_map(returned_r).collect();
    if rs.is_empty() {
        0
    } else if rs.iter().all(|r| r.lo() > hi) {
        1
    } else if rs.iter().all(|r| r.hi() < lo) {
        -1
    } else {
        0
    }
}

fn returned_r(o: &ReturnEnclosure) -> Option<I> {
    match o {
        ReturnEnclosure::Returned { r, .. } => Some(*r),
        ReturnEnclosure::Rest { .. } => None,
    }
}

/// The slipping double impacts met in any return of `pieces` (bits as
/// [`super::poincare::MapPoint::double_slip`]).
fn double_slip_bits(pieces: &[Piece]) -> u8 {
    pieces.iter().flat_map(|p| p.outcomes.iter()).fold(0u8, |b, o| match o {
        ReturnEnclosure::Returned { double_slip, .. } | ReturnEnclosure::Rest { double_slip } => b | double_slip,
    })
}

/// P1's Definition 6: `G < 1` wherever `R` is defined on the piece.
fn safe(outs: &[ReturnEnclosure]) -> bool {
    outs.iter().all(|o| match o {
        ReturnEnclosure::Rest { .. } => true,
        ReturnEnclosure::Returned { g, .. } => g.hi() < 1.0,
    })
}

/// The interval graph of P1's Definition 4 over the ordered pieces, over-approximated: an edge
/// `j → k` (`k ≠ j`) wherever the enclosure of `R` on piece `j` meets piece `k`. Extra edges
/// only add cycles, so a piece off every cycle of this graph is off every cycle of the exact one.
fn interval_graph(pieces: &[Piece]) -> Vec<Vec<usize>> {
    pieces
        .iter()
        .enumerate()
        .map(|(j, p)| {
            let mut out: Vec<usize> = Vec::new();
            for r in p.outcomes.iter().filter_map(returned_r) {
                let first = pieces.partition_point(|q| q.hi < r.lo());
                let last = pieces.partition_point(|q| q.lo <= r.hi());
                out.extend((first..last).filter(|&k| k != j));
            }
            out.sort_unstable();
            out.dedup();
            out
        })
        .collect()
}

/// Proves a stable partition (P1's Definitions 3–8a) for the weakly persistent equilibrium of
/// `z`, and with it FTLS by Theorem 4a (Theorem 4 when persistent).
///
/// The pieces of the circle are the partition. Each piece is proved **safe** (`G < 1` on every
/// outcome) or proved to **drift** (`R(φ) − φ` of one sign on all of it); then every piece that
/// is not safe must lie on no cycle of the over-approximated [`interval_graph`] (so it is
/// **transient**). Pieces that are not safe and lie on a cycle are bisected, with every piece of
/// their strongly connected component (the over-approximation of `R` shrinks with the pieces),
/// for at most [`PARTITION_ROUNDS`] rounds within the work bound. Then Definition 8a's `G± ≠ 1`
/// where `G±` exists, and weak persistence (Definition 2): in each direction that is not
/// persistent, `|R(±π/2)| < π/2` (the branch (11), `R′(±π/2) > 1`, needs `R′`: not proved) and no
/// slipping double impact in any return.
pub fn prove_stable_partition(z: &IZod, f: ModeFacts) -> VerdictProof {
    // Weak persistence includes unambiguity, and the theory needs an equilibrium free of
    // Painlevé states.
    if let Err(e) = premises(&f) {
        return VerdictProof::none(e, Some(f));
    }
    let (pieces, rounds) = match partition(z, &f) {
        Ok(x) => x,
        Err(v) => return *v,
    };
    // Definition 8a at both ends, and weak persistence (Definition 2) in each direction.
    let bits = double_slip_bits(&pieces);
    for (d, name) in [(0usize, "ẋ₂ > 0, φ → π/2"), (1, "ẋ₂ < 0, φ → −π/2")] {
        let end = if d == 0 { pieces.last() } else { pieces.first() };
        let Some(end) = end else { break };
        if let Err(e) = prove_end(z, end, d == 0, f.persistent[d] != Tri::Yes) {
            return VerdictProof::none(format!("{name}: {e}"), Some(f));
        }
        if f.persistent[d] != Tri::Yes && bits & (1 << d) != 0 {
            return VerdictProof::none(
                format!("weak persistence ({name}): a return may contain a slipping double impact"),
                Some(f),
            );
        }
    }
    let mut v = circle_proof(&pieces, f, WHAT);
    let safe_count = pieces.iter().filter(|p| safe(&p.outcomes)).count();
    v.argument = Some(format!(
        "a stable partition (P1 Theorem 4a): {} pieces, {safe_count} safe, {} transient, after {rounds} refinements",
        pieces.len(),
        pieces.len() - safe_count
    ));
    v
}

/// What every piece of a stable partition satisfies before the graph is checked.
const WHAT: &str = "every piece safe (G < 1) or drifting (R(φ) − φ of one sign)";

/// The pieces of a proved stable partition and the refinement rounds it took (see
/// [`prove_stable_partition`]), or the failed proof.
pub(crate) fn partition(z: &IZod, f: &ModeFacts) -> Result<(Vec<Piece>, usize), Box<VerdictProof>> {
    let accept = |lo: f64, hi: f64, outs: &[ReturnEnclosure]| safe(outs) || drift(lo, hi, outs) != 0;
    let spent = AtomicUsize::new(0);
    let mut pieces = cover_circle(z, &accept, &spent);
    let mut rounds = 0;
    loop {
        let v = circle_proof(&pieces, f.clone(), WHAT);
        if !v.proof.is_proved() {
            return Err(Box::new(v));
        }
        let adj = interval_graph(&pieces);
        let comp = super::classify::components(&adj);
        let mut size = vec![0usize; pieces.len()];
        for &c in &comp {
            size[c] += 1;
        }
        let bad: Vec<usize> = (0..pieces.len()).filter(|&j| size[comp[j]] > 1 && !safe(&pieces[j].outcomes)).collect();
        let Some(&first) = bad.first() else { break };
        let mut bad_comp = vec![false; pieces.len()];
        for &j in &bad {
            bad_comp[comp[j]] = true;
        }
        let refine: Vec<bool> =
            pieces.iter().zip(&comp).map(|(p, &c)| bad_comp[c] && p.depth < MAX_DEPTH && p.lo < p.hi).collect();
        if rounds == PARTITION_ROUNDS || !refine.iter().any(|&r| r) || spent.load(Ordering::Relaxed) >= MAX_EVALUATIONS
        {
            let p = &pieces[first];
            return Err(Box::new(VerdictProof {
                proof: Proof::none(format!(
                    "{} of {} pieces are neither safe nor off every cycle of the interval graph after {rounds} \
                     refinements, the first [{:.12}, {:.12}]",
                    bad.len(),
                    pieces.len(),
                    p.lo,
                    p.hi
                )),
                undecided: bad.iter().take(LISTED_UNDECIDED).map(|&j| [pieces[j].lo, pieces[j].hi]).collect(),
                undecided_count: bad.len(),
                ..v
            }));
        }
        rounds += 1;
        let old = std::mem::take(&mut pieces);
        pieces = old
            .into_par_iter()
            .zip(refine.into_par_iter())
            .flat_map_iter(|(p, r)| {
                if r {
                    let mid = 0.5 * (p.lo + p.hi);
                    let mut v = prove_piece(z, (p.lo, mid, p.depth + 1), &accept, &spent);
                    v.extend(prove_piece(z, (mid, p.hi, p.depth + 1), &accept, &spent));
                    v
                } else {
                    vec![p]
                }
            })
            .collect();
        pieces.sort_by(|a, b| a.lo.total_cmp(&b.lo));
    }
    Ok((pieces, rounds))
}

/// At the end `φ → ±π/2` (`plus` for `+`) with the end piece `p`: `G± ≠ 1` where `G±` exists
/// (Definition 8a) and, when `weak` (the direction is not persistent), `|R(±π/2)| < π/2`
/// (Definition 2, condition (10)). Shrinks the end piece towards `±π/2` until the enclosures
/// decide: every limit lies in the enclosures of every piece reaching the end.
fn prove_end(z: &IZod, p: &Piece, plus: bool, weak: bool) -> Result<(), String> {
    let decided = |outs: &[ReturnEnclosure]| {
        outs.iter().all(|o| match o {
            ReturnEnclosure::Rest { .. } => true,
            ReturnEnclosure::Returned { r, g, .. } => {
                (g.hi() < 1.0 || g.lo() > 1.0) && (!weak || (r.hi() < FRAC_PI_2 && r.lo() > -FRAC_PI_2))
            }
        })
    };
    if decided(&p.outcomes) {
        return Ok(());
    }
    let (lo, hi) = (p.lo, p.hi);
    let mut last = "the end's enclosure does not decide".to_string();
    for k in 1..=END_HALVINGS {
        let w = (hi - lo) * 0.5f64.powi(k as i32);
        let (a, b) = if plus { (hi - w, hi) } else { (lo, lo + w) };
        match z.enclose_return(a, b) {
            Ok(outs) if decided(&outs) => return Ok(()),
            Ok(_) => {
                last = if weak {
                    "G± ≠ 1 or |R(±π/2)| < π/2 not proved (R(±π/2) = ±π/2 with R′(±π/2) > 1, the other branch of \
                     weak persistence, needs an enclosure of R′: not implemented)"
                        .to_string()
                } else {
                    "G± ≠ 1 not proved".to_string()
                }
            }
            Err(e) => last = e,
        }
    }
    Err(last)
}

fn circle_proof(pieces: &[Piece], facts: ModeFacts, what: &str) -> VerdictProof {
    let undecided: Vec<&Piece> = pieces.iter().filter(|p| p.outcomes.is_empty()).collect();
    // A bound over the decided pieces only is no bound: null unless every piece is decided.
    let g_max = pieces
        .iter()
        .filter(|_| undecided.is_empty())
        .flat_map(|p| p.outcomes.iter())
        .filter_map(|o| match o {
            ReturnEnclosure::Returned { g, .. } => Some(g.hi()),
            ReturnEnclosure::Rest { .. } => None,
        })
        .fold(None, |m: Option<f64>, g| Some(m.map_or(g, |m| m.max(g))));
    let proof = match undecided.first() {
        None => Proof::interval(),
        Some(p) => Proof::none(format!(
            "{what}: {} of {} pieces undecided, the first [{:.12}, {:.12}]: {}",
            undecided.len(),
            pieces.len(),
            p.lo,
            p.hi,
            p.reason.as_deref().unwrap_or("")
        )),
    };
    VerdictProof {
        proof,
        assumes: None,
        facts: Some(facts),
        pieces: pieces.len(),
        g_max,
        fixed_point: None,
        argument: None,
        counterexample: None,
        undecided: undecided.iter().take(LISTED_UNDECIDED).map(|p| [p.lo, p.hi]).collect(),
        undecided_count: undecided.len(),
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
