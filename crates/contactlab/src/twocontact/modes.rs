//! Contact modes of the two-contact body (P1, §III-A).
//!
//! Each point is free (`F`), sticking (`S`) or slipping in the positive or negative `xᵢ`
//! direction (`P`, `N`): 16 two-letter modes. Each mode imposes 4 equalities on the contact forces
//! `f` and accelerations `a = a₀ + A f`:
//!
//! | point mode | equalities | inequalities (consistency) |
//! |---|---|---|
//! | `F` | `fᶻ = fˣ = 0` | `z̈ > 0` if the contact was sustained |
//! | `S` | `z̈ = ẍ = 0` | `fᶻ ≥ 0`, `|fˣ| ≤ μ fᶻ` |
//! | `P` | `z̈ = 0`, `fˣ = −μ fᶻ` | `fᶻ ≥ 0`; `ẍ > 0` when starting from rest |
//! | `N` | `z̈ = 0`, `fˣ = +μ fᶻ` | `fᶻ ≥ 0`; `ẍ < 0` when starting from rest |
//!
//! Rigid kinematics ties the slips of two sustained contacts, `ẋ₁ = k ẋ₂`
//! ([`super::zod::Zod::k`]): with both points in contact one cannot stick while the other slips,
//! and the slip directions must agree with the sign of `k`. For `cos φᵢ ≠ 0` this leaves exactly
//! ten admissible modes. `SS` is statically indeterminate (rank-3 `A`, four unknowns): its
//! consistency is decided over the whole family of forces by an LP (the friction-cone
//! feasibility of P4's system (7) for the same body), with a margin that detects marginal cases.

use std::fmt;

use nalgebra::{Matrix4, Vector4};
use serde::Serialize;

use super::zod::{Zod, X1, Z1};
use crate::lp::{LpBuilder, LpSettings, LpStatus};
use crate::Error;

/// A mode's constraint system is singular when its determinant is below `SINGULAR_MODE` times
/// the product of its rows' largest entries (row-normalised: independent of the units of mass).
pub const SINGULAR_MODE: f64 = 1e-14;

/// The mode of one contact point.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum PointMode {
    /// Free (separated).
    F,
    /// Sticking.
    S,
    /// Slipping in `+x`.
    P,
    /// Slipping in `−x`.
    N,
}

/// A two-contact mode, e.g. `FS` (point 1 free, point 2 sticking).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Mode(pub PointMode, pub PointMode);

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}{:?}", self.0, self.1)
    }
}

impl Serialize for Mode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

/// All 16 modes.
pub fn all_modes() -> Vec<Mode> {
    use PointMode::*;
    let pm = [F, S, P, N];
    pm.iter().flat_map(|&a| pm.iter().map(move |&b| Mode(a, b))).collect()
}

/// The kinematic state of one point.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum ContactPointState {
    /// Not in contact (`z > 0`, or `z = 0` with `ż > 0`).
    Separated,
    /// Sustained contact (`z = ż = 0`) at rest tangentially (`ẋ = 0`).
    Rest,
    /// Sustained contact slipping in the direction of the sign (`+1` or `−1`).
    Slip(i8),
}

impl ContactPointState {
    /// The point modes that can follow this state.
    pub fn candidates(&self) -> &'static [PointMode] {
        use PointMode::*;
        match self {
            ContactPointState::Separated => &[F],
            ContactPointState::Rest => &[F, S, P, N],
            ContactPointState::Slip(d) if *d > 0 => &[F, P],
            ContactPointState::Slip(_) => &[F, N],
        }
    }
}

fn slip_sign(m: PointMode) -> i8 {
    match m {
        PointMode::P => 1,
        PointMode::N => -1,
        _ => 0,
    }
}

/// Kinematic admissibility under `ẋ₁ = k ẋ₂` for two sustained contacts.
pub fn admissible(zod: &Zod, mode: Mode) -> bool {
    use PointMode::*;
    match (mode.0, mode.1) {
        (F, _) | (_, F) | (S, S) => true,
        (S, _) | (_, S) => false,
        (a, b) => {
            let k = zod.k();
            k != 0.0 && slip_sign(a) as f64 == k.signum() * slip_sign(b) as f64
        }
    }
}

/// Forces, accelerations and consistency of one mode in one state.
#[derive(Debug, Clone, Serialize)]
pub struct BodyModeSolution {
    /// The mode.
    pub mode: Mode,
    /// Contact forces `(f₁ᶻ, f₂ᶻ, f₁ˣ, f₂ˣ)` (for `SS`: one member of the family).
    pub forces: [f64; 4],
    /// Contact accelerations `(z̈₁, z̈₂, ẍ₁, ẍ₂)`.
    pub accel: [f64; 4],
    /// Smallest normalised slack of the consistency inequalities (`> 0`: consistent).
    pub margin: f64,
    /// Whether the inequalities hold strictly (margin above the genericity tolerance).
    pub consistent: bool,
    /// Whether `|margin|` is within the tolerance: consistency then depends on neglected terms.
    pub marginal: bool,
}

/// Tolerance on normalised margins below which a case is reported marginal.
pub const MARGIN_TOL: f64 = 1e-9;

fn scales(zod: &Zod) -> (f64, f64) {
    // Acceleration scale: force-free accelerations; force scale: that acceleration times the
    // effective mass of the contacts.
    let acc = zod.a0.amax().max(crate::numeric::SCALE_FLOOR);
    let inv_mass = zod.a.diagonal().amax().max(crate::numeric::SCALE_FLOOR);
    (acc, acc / inv_mass)
}

fn margins(zod: &Zod, mode: Mode, state: [ContactPointState; 2], f: &Vector4<f64>, a: &Vector4<f64>) -> f64 {
    let (acc, frc) = scales(zod);
    let mut m = f64::INFINITY;
    for (i, pm) in [mode.0, mode.1].into_iter().enumerate() {
        let (zi, xi) = (Z1 + i, X1 + i);
        let mu = zod.mu[i];
        match pm {
            PointMode::F => {
                if state[i] != ContactPointState::Separated {
                    m = m.min(a[zi] / acc);
                }
            }
            PointMode::S => {
                m = m.min(f[zi] / frc).min((mu * f[zi] - f[xi].abs()) / frc);
            }
            PointMode::P | PointMode::N => {
                m = m.min(f[zi] / frc);
                if state[i] == ContactPointState::Rest {
                    m = m.min(slip_sign(pm) as f64 * a[xi] / acc);
                }
            }
        }
    }
    m
}

/// Solves the four equalities of `mode` for `x` (forces or impulses) with `y = base + A x`
/// (accelerations or post-impact velocities). `None` if the system is singular.
pub(crate) fn solve_equalities(zod: &Zod, mode: Mode, base: &Vector4<f64>) -> Option<(Vector4<f64>, Vector4<f64>)> {
    let k = mode_gain(zod, mode)?;
    let x = k * base;
    if !x.iter().all(|v| v.is_finite()) {
        return None;
    }
    Some((x, base + zod.a * x))
}

/// The mode's equalities are linear in `base` with a constant matrix: `x = K base`, where
/// `K = S⁻¹R` (`S` the equality rows, `R` selects `−base` for the acceleration or velocity
/// rows). `None` if `S` is singular. Precomputing `K` per mode makes impacts cheap.
pub(crate) fn mode_gain(zod: &Zod, mode: Mode) -> Option<Matrix4<f64>> {
    let mut sys = Matrix4::zeros();
    let mut sel = Matrix4::zeros();
    for (i, pm) in [mode.0, mode.1].into_iter().enumerate() {
        let (zi, xi) = (Z1 + i, X1 + i);
        let (r1, r2) = (2 * i, 2 * i + 1);
        match pm {
            PointMode::F => {
                sys[(r1, zi)] = 1.0;
                sys[(r2, xi)] = 1.0;
            }
            PointMode::S => {
                sys.set_row(r1, &zod.a.row(zi));
                sel[(r1, zi)] = -1.0;
                sys.set_row(r2, &zod.a.row(xi));
                sel[(r2, xi)] = -1.0;
            }
            PointMode::P | PointMode::N => {
                sys.set_row(r1, &zod.a.row(zi));
                sel[(r1, zi)] = -1.0;
                sys[(r2, xi)] = 1.0;
                sys[(r2, zi)] = slip_sign(pm) as f64 * zod.mu[i];
            }
        }
    }
    // Rows mix Delassus entries (1/kg) with dimensionless ones: judge singularity on the
    // row-normalised matrix, so that the verdict does not depend on the units of mass.
    let row_scale: f64 = (0..4).map(|r| sys.row(r).amax().max(crate::numeric::SCALE_FLOOR)).product();
    let lu = sys.lu();
    if lu.determinant().abs() <= SINGULAR_MODE * row_scale {
        return None;
    }
    lu.try_inverse().map(|inv| inv * sel)
}

/// Solves mode `mode` in `state` (non-`SS` modes: a 4×4 linear system). `None` when the mode is
/// kinematically inadmissible, not a candidate of the state, or its system is singular.
pub fn solve_mode(zod: &Zod, mode: Mode, state: [ContactPointState; 2]) -> Option<BodyModeSolution> {
    if !admissible(zod, mode) || !state[0].candidates().contains(&mode.0) || !state[1].candidates().contains(&mode.1) {
        return None;
    }
    if mode == Mode(PointMode::S, PointMode::S) {
        return ss_solution(zod).ok();
    }
    let (f, a) = solve_equalities(zod, mode, &zod.a0)?;
    let margin = margins(zod, mode, state, &f, &a);
    Some(BodyModeSolution {
        mode,
        forces: f.into(),
        accel: a.into(),
        margin,
        consistent: margin > MARGIN_TOL,
        marginal: margin.abs() <= MARGIN_TOL,
    })
}

/// The statically indeterminate double-stick family: all `x` (forces or impulses) with
/// `Jᵀx = −g` (so that `y = 0`), maximising the normalised margin `t` of
/// `xᵢᶻ ≥ t·scale`, `μᵢxᵢᶻ − |xᵢˣ| ≥ t·scale` (capped at `t ≤ 1`). Returns `(x, t)`.
pub(crate) fn stick_family(zod: &Zod, g: &nalgebra::Vector3<f64>, scale: f64) -> Result<(Vector4<f64>, f64), Error> {
    // Solved in units of `scale` (forces of order one for the simplex, whatever the units of
    // the data), and mapped back.
    let (x, t) = stick_family_unit(zod, &(g / scale))?;
    Ok((x * scale, t))
}

/// [`stick_family`] with `scale = 1` and each equilibrium equation divided by its largest
/// coefficient.
fn stick_family_unit(zod: &Zod, g: &nalgebra::Vector3<f64>) -> Result<(Vector4<f64>, f64), Error> {
    let scale = 1.0;
    // Free variables as differences of nonnegative ones: xᵢᶻ = v[2i] − v[2i+1],
    // xᵢˣ = v[4+2i] − v[5+2i], t = v[8] − v[9].
    let mut lp = LpBuilder::new(10);
    let xz = |i: usize| (2 * i, 2 * i + 1);
    let xx = |i: usize| (4 + 2 * i, 5 + 2 * i);
    // J𝓜⁻¹(g + Jᵀx) = 0  ⇔  Jᵀx = −g (three independent rows; A itself has rank 3).
    for r in 0..3 {
        let mut row = Vec::new();
        for i in 0..2 {
            let (zp, zn) = xz(i);
            let (xp, xn) = xx(i);
            row.extend([
                (zp, zod.j[(Z1 + i, r)]),
                (zn, -zod.j[(Z1 + i, r)]),
                (xp, zod.j[(X1 + i, r)]),
                (xn, -zod.j[(X1 + i, r)]),
            ]);
        }
        // Each equation divided by its largest coefficient (the moment row is in N·m).
        let rs = row.iter().fold(0.0f64, |a, (_, c)| a.max(c.abs()));
        let rs = if rs > 0.0 { rs } else { 1.0 };
        lp.eq(row.into_iter().map(|(k, c)| (k, c / rs)).collect(), -g[r] / rs);
    }
    for i in 0..2 {
        let (zp, zn) = xz(i);
        let (xp, xn) = xx(i);
        lp.ge(vec![(zp, 1.0), (zn, -1.0), (8, -scale), (9, scale)], 0.0);
        // μ xᶻ − |xˣ| ≥ t, written as μ xᶻ ∓ xˣ ≥ t.
        lp.ge(vec![(zp, zod.mu[i]), (zn, -zod.mu[i]), (xp, -1.0), (xn, 1.0), (8, -scale), (9, scale)], 0.0);
        lp.ge(vec![(zp, zod.mu[i]), (zn, -zod.mu[i]), (xp, 1.0), (xn, -1.0), (8, -scale), (9, scale)], 0.0);
    }
    // t ≤ 1 keeps the LP bounded; any t below is allowed (how far from consistent it is).
    lp.le(vec![(8, 1.0)], 1.0);
    lp.minimize(vec![(8, -1.0), (9, 1.0)]);
    let s = lp.build().solve_robust(&LpSettings::default())?;
    match s.status {
        LpStatus::Optimal => {
            let x = &s.x;
            Ok((Vector4::new(x[0] - x[1], x[2] - x[3], x[4] - x[5], x[6] - x[7]), x[8] - x[9]))
        }
        // With t free below, the equalities always have solutions (J has full rank): any other
        // status is numerical trouble, reported rather than guessed.
        other => Err(Error::Numerical(format!("double-stick LP ended with status {}", crate::output::kebab(&other)))),
    }
}

/// [`stick_family`] in closed form: the family is `x(s) = x₀ + s n` with `x₀` the minimum-norm
/// solution of `Jᵀx = −g` and `n` spanning the null space of `Jᵀ`; every constraint is affine in
/// `s`, so the best margin is attained where two of them cross (or is capped at 1 when they
/// all rise in the same direction). Used on the fast path of impacts; agrees with the LP.
#[inline]
pub(crate) fn stick_family_exact(zod: &Zod, g: &nalgebra::Vector3<f64>, scale: f64) -> (Vector4<f64>, f64) {
    let x0 = zod.jt_pinv * (-g);
    let n = zod.null;
    // Constraints c + d s ≥ t·scale, as (c, d).
    let mut cons: [(f64, f64); 6] = [(0.0, 0.0); 6];
    for i in 0..2 {
        let (zi, xi) = (Z1 + i, X1 + i);
        let mu = zod.mu[i];
        cons[3 * i] = (x0[zi], n[zi]);
        cons[3 * i + 1] = (mu * x0[zi] - x0[xi], mu * n[zi] - n[xi]);
        cons[3 * i + 2] = (mu * x0[zi] + x0[xi], mu * n[zi] + n[xi]);
    }
    let value = |s: f64| cons.iter().map(|(c, d)| (c + d * s) / scale).fold(f64::INFINITY, f64::min).min(1.0);
    let mut best = (value(0.0), 0.0);
    let mut try_s = |s: f64| {
        if s.is_finite() {
            let v = value(s);
            if v > best.0 {
                best = (v, s);
            }
        }
    };
    for a in 0..6 {
        for b in a + 1..6 {
            let (ca, da) = cons[a];
            let (cb, db) = cons[b];
            if da != db {
                try_s((cb - ca) / (da - db));
            }
        }
        // Where a single constraint reaches the cap t = 1.
        let (c, d) = cons[a];
        if d != 0.0 {
            try_s((scale - c) / d);
        }
    }
    (x0 + n * best.1, best.0)
}

/// `SS` at rest: the double-stick family with `g = F` (`a = 0`), margin normalised by the force scale.
pub fn ss_solution(zod: &Zod) -> Result<BodyModeSolution, Error> {
    let (_, frc) = scales(zod);
    let (f, margin) = stick_family(zod, &zod.applied, frc)?;
    let a = zod.accel(&f);
    Ok(BodyModeSolution {
        mode: Mode(PointMode::S, PointMode::S),
        forces: f.into(),
        accel: a.into(),
        margin,
        consistent: margin > MARGIN_TOL,
        marginal: margin.abs() <= MARGIN_TOL,
    })
}

/// The mode structure of an equilibrium under the ZOD.
#[derive(Debug, Clone, Serialize)]
pub struct EquilibriumModes {
    /// `SS` is consistent at rest: a frictional equilibrium.
    pub equilibrium: bool,
    /// Margin of `SS` (normalised).
    pub ss_margin: f64,
    /// Consistent modes at rest (including `SS`).
    pub modes_at_rest: Vec<Mode>,
    /// Another mode besides `SS` is consistent at rest (P1: implies instability, Theorem 1).
    pub ambiguous: bool,
    /// Every non-static state class has exactly one consistent mode.
    pub painleve_free: bool,
    /// Non-static state classes with no or several consistent modes.
    pub painleve_states: Vec<(String, Vec<Mode>)>,
    /// Two-contact slip with `ẋ₂ > 0`: the unique consistent mode keeps both contacts.
    pub persistent_plus: bool,
    /// The same for `ẋ₂ < 0`.
    pub persistent_minus: bool,
    /// Both directions persistent.
    pub persistent: bool,
    /// Any marginal consistency decision met (results then depend on neglected terms).
    pub marginal: bool,
}

/// Consistent modes among the candidates of a state.
pub fn consistent_modes(zod: &Zod, state: [ContactPointState; 2]) -> (Vec<BodyModeSolution>, bool) {
    let mut out = Vec::new();
    let mut marginal = false;
    for &a in state[0].candidates() {
        for &b in state[1].candidates() {
            if let Some(s) = solve_mode(zod, Mode(a, b), state) {
                marginal |= s.marginal;
                if s.consistent {
                    out.push(s);
                }
            }
        }
    }
    (out, marginal)
}

/// Equilibrium, ambiguity, Painlevé-freeness and persistence (P1, §III-A).
pub fn analyze(zod: &Zod) -> Result<EquilibriumModes, Error> {
    use ContactPointState::*;
    let ss = ss_solution(zod)?;
    let (rest, mut marginal) = consistent_modes(zod, [Rest, Rest]);
    marginal |= ss.marginal;
    let modes_at_rest: Vec<Mode> = rest.iter().map(|s| s.mode).collect();
    let ambiguous = ss.consistent && modes_at_rest.iter().any(|m| *m != Mode(PointMode::S, PointMode::S));
    let k = zod.k().signum() as i8;
    let classes: Vec<(String, [ContactPointState; 2])> = vec![
        ("point 1 at rest, point 2 free".into(), [Rest, Separated]),
        ("point 1 free, point 2 at rest".into(), [Separated, Rest]),
        ("point 1 slipping +, point 2 free".into(), [Slip(1), Separated]),
        ("point 1 slipping −, point 2 free".into(), [Slip(-1), Separated]),
        ("point 1 free, point 2 slipping +".into(), [Separated, Slip(1)]),
        ("point 1 free, point 2 slipping −".into(), [Separated, Slip(-1)]),
        ("both sustained, ẋ₂ > 0".into(), [Slip(k), Slip(1)]),
        ("both sustained, ẋ₂ < 0".into(), [Slip(-k), Slip(-1)]),
    ];
    let mut painleve_states = Vec::new();
    let mut persistent = [false, false];
    for (name, st) in &classes {
        let (sols, m) = consistent_modes(zod, *st);
        marginal |= m;
        if sols.len() != 1 {
            painleve_states.push((name.clone(), sols.iter().map(|s| s.mode).collect()));
        }
        if st[0] != Separated && st[1] != Separated {
            let dir = usize::from(matches!(st[1], Slip(d) if d < 0));
            persistent[dir] = sols.len() == 1 && sols[0].mode.0 != PointMode::F && sols[0].mode.1 != PointMode::F;
        }
    }
    Ok(EquilibriumModes {
        equilibrium: ss.consistent,
        ss_margin: ss.margin,
        modes_at_rest,
        ambiguous,
        painleve_free: painleve_states.is_empty(),
        painleve_states,
        persistent_plus: persistent[0],
        persistent_minus: persistent[1],
        persistent: persistent[0] && persistent[1],
        marginal,
    })
}

#[cfg(test)]
mod tests {
    use super::super::TwoContact;
    use super::*;

    /// P1's biped on the 25° slope (configuration B's parameters) with other contact offsets.
    fn slope(l1: f64, l2: f64, rho: f64) -> TwoContact {
        TwoContact { mass: 1.0, force: 9.81, l1, l2, rho, ..crate::paper_configs::p1::config("B").expect("B") }
    }

    #[test]
    fn exactly_ten_admissible_modes() {
        for (phi1, phi2) in [(0.0, 0.0), (0.3, -0.2), (-1.0, 0.5), (1.2, 1.1)] {
            let p = TwoContact { phi1, phi2, ..slope(-0.05, 0.17, 0.14) };
            let z = Zod::new(&p).unwrap();
            let n = all_modes().into_iter().filter(|m| admissible(&z, *m)).count();
            assert_eq!(n, 10, "φ = ({phi1}, {phi2}), k = {}", z.k());
            assert!(admissible(&z, Mode(PointMode::S, PointMode::S)));
            assert!(!admissible(&z, Mode(PointMode::P, PointMode::S)));
        }
    }

    #[test]
    fn mode_equalities_hold() {
        let z = Zod::new(&slope(-0.05, 0.17, 0.14)).unwrap();
        for m in all_modes() {
            if let Some(s) = solve_mode(&z, m, [ContactPointState::Rest, ContactPointState::Rest]) {
                for (i, pm) in [m.0, m.1].into_iter().enumerate() {
                    let (f, a) = (s.forces, s.accel);
                    match pm {
                        PointMode::F => assert!(f[i].abs() < 1e-12 && f[2 + i].abs() < 1e-12),
                        PointMode::S => assert!(a[i].abs() < 1e-9 && a[2 + i].abs() < 1e-9, "{m}: {a:?}"),
                        PointMode::P => assert!(a[i].abs() < 1e-9 && (f[2 + i] + z.mu[i] * f[i]).abs() < 1e-12),
                        PointMode::N => assert!(a[i].abs() < 1e-9 && (f[2 + i] - z.mu[i] * f[i]).abs() < 1e-12),
                    }
                }
            }
        }
    }

    #[test]
    fn steep_slope_has_no_equilibrium_and_gentle_has_one() {
        let gentle = TwoContact { alpha: 5f64.to_radians(), ..slope(-0.05, 0.17, 0.14) };
        assert!(analyze(&Zod::new(&gentle).unwrap()).unwrap().equilibrium);
        // tan α > max μ: sliding is unavoidable.
        let steep = TwoContact { alpha: 50f64.to_radians(), ..slope(-0.05, 0.17, 0.14) };
        assert!(!analyze(&Zod::new(&steep).unwrap()).unwrap().equilibrium);
    }

    #[test]
    fn closed_form_stick_family_matches_lp() {
        let z = Zod::new(&slope(-0.05, 0.17, 0.14)).unwrap();
        for g in [[0.3, -9.0, 0.1], [1.0, -1.0, 0.0], [-2.0, -5.0, 0.4], [4.0, -1.0, -0.3], [0.0, 3.0, 0.0]] {
            let g = nalgebra::Vector3::from_row_slice(&g);
            let (_, t_lp) = stick_family(&z, &g, 1.0).unwrap();
            let (x, t_cf) = stick_family_exact(&z, &g, 1.0);
            assert!((t_lp - t_cf).abs() < 1e-7 * (1.0 + t_lp.abs()), "g = {g:?}: LP {t_lp}, closed form {t_cf}");
            assert!((z.j.transpose() * x + g).amax() < 1e-9);
        }
    }

    #[test]
    fn ss_agrees_with_p4_weak_stability() {
        use crate::fixture::{stability::weak_stability, Fixture, FrictionLaw};
        use nalgebra::{DMatrix, DVector};
        for (l1, l2, alpha) in
            [(-0.05, 0.17, 25.0f64), (0.016, 0.076, 25.0), (0.03, 0.09, 17.0), (0.1, 0.2, 25.0), (-0.2, -0.1, 10.0)]
        {
            let p = TwoContact { alpha: alpha.to_radians(), ..slope(l1, l2, 0.14) };
            let z = Zod::new(&p).unwrap();
            let body = p.body();
            let m = body.mass_matrix();
            let f = Fixture {
                mass_matrix: DMatrix::from_fn(3, 3, |i, j| m[(i, j)]),
                wn: DMatrix::from_fn(3, 2, |r, c| z.j[(Z1 + c, r)]),
                wt: DMatrix::from_fn(3, 2, |r, c| z.j[(X1 + c, r)]),
                wo: None,
                mu: DVector::from_vec(vec![p.mu1, p.mu2]),
                load: DVector::from_iterator(3, body.applied().iter().copied()),
                friction: FrictionLaw::Coulomb,
                enclosure: None,
            };
            let ss = ss_solution(&z).unwrap_or_else(|e| panic!("{e} {l1} {l2} {alpha}"));
            assert_eq!(ss.margin >= -MARGIN_TOL, weak_stability(&f).unwrap().holds, "l = ({l1}, {l2}), α = {alpha}");
        }
    }
}
