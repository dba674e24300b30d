//! The rimless wheel's gait, proved (issue #23, part 4).
//!
//! With the stance foot sticking and the heel strike plastic and sticking (the old foot leaving
//! the ground), P2's rimless wheel (eq. 23) has an explicit step map on the post-impact rate
//! `ω` (rad/s): energy carries it over the stance spoke from `θ = −π/n` to `π/n`, and the impact
//! keeps the angular momentum about the new foot,
//!
//! ```text
//!   P(ω) = β √(ω² + c),   β = (cos(2π/n) + κ)/(1 + κ),   c = 4 k sin γ sin(π/n),   k = g/((1 + κ) l)
//! ```
//!
//! (`γ` the slope). [`prove_rimless_gait`] proves in interval arithmetic ([`crate::interval`]),
//! on the model's exact data:
//!
//! * **existence** of a fixed point in a box `X` around a floating-point guess, by the interval
//!   Newton test `N(X) = m − F(m)/F'(X) ⊂ int X` for `F(ω) = P(ω) − ω`; the box is then
//!   narrowed to `N(X) ∩ X` while that shrinks it;
//! * **uniqueness among all rates** `ω > 0`: `F'(ω) = β ω/√(ω² + c) − 1 < β − 1 < 0` once
//!   `β < 1` is proved, so `F` is strictly decreasing;
//! * the **multiplier** `P'(ω*) ∈ β X/√(X² + c)`, inside the unit circle;
//! * that the assumptions behind `P` hold on the whole box: the wheel passes over its stance
//!   spoke (`ω(θ)² > 0` on the stance, from the energy), the stance foot is pressed (`f_n > 0`)
//!   and sticks (`|f_t| ≤ μ f_n`) at every `θ`, by bisection of the stance into `θ`-intervals
//!   (at most [`MAX_PIECES`]), and the heel strike sticks (`|F_t/F_n| ≤ μ`) with the old foot
//!   leaving (`β > 0`). Branch and bound on the same pieces encloses the gait's
//!   `μ_stick = max |f_t/f_n|` to [`MU_STICK_REL`].
//!
//! Every comparison is relative to the data's own scales (the box's half-width is
//! [`BOX_REL`] of the guess), so the verdict does not depend on units. A check that does not
//! close gives `proof: none` with the reason; nothing is claimed then.

use serde::Serialize;

use crate::interval::Interval;
use crate::mechanics::walkers::RimlessWheel;
use crate::verified::Proof;

/// Half-width of the starting box, relative to the guess.
pub const BOX_REL: f64 = 1e-9;

/// Most `θ`-intervals the stance is cut into to prove sticking and enclose `μ_stick`.
pub const MAX_PIECES: usize = 1 << 14;

/// Relative width to which `μ_stick` is enclosed.
pub const MU_STICK_REL: f64 = 1e-6;

/// The proved gait of a rimless wheel (module docs).
#[derive(Debug, Clone, Serialize)]
pub struct RimlessGaitProof {
    /// Proved, or why not.
    #[serde(flatten)]
    pub proof: Proof,
    /// Enclosure of the post-impact rate `ω*` (rad/s), once the Newton test passed.
    pub rate: Option<[f64; 2]>,
    /// Enclosure of the multiplier `P'(ω*)`.
    pub multiplier: Option<[f64; 2]>,
    /// Enclosure of the gait's `μ_stick = max |f_t/f_n|` along the stance, once sticking is
    /// proved.
    pub mu_stick: Option<[f64; 2]>,
    /// Enclosure of the heel strike's impulse ratio `|F_t/F_n|`.
    pub impulse_ratio: Option<[f64; 2]>,
    /// `θ`-intervals the stance was cut into.
    pub pieces: usize,
}

fn pair(x: Interval) -> Option<[f64; 2]> {
    Some([x.lo(), x.hi()])
}

/// The model's data in intervals.
struct Data {
    beta: Interval,
    c: Interval,
    k: Interval,
    half: Interval,
    slope: Interval,
    l: Interval,
    g: Interval,
}

impl Data {
    fn new(w: &RimlessWheel) -> Option<Data> {
        let e = Interval::exact;
        let one = e(1.0);
        let half = Interval::pi().div(&e(w.spokes as f64))?;
        let beta = ((e(2.0) * half).cos() + e(w.kappa)).div(&(one + e(w.kappa)))?;
        let k = e(w.gravity).div(&((one + e(w.kappa)) * e(w.length)))?;
        // The slope as the file may have given it, in radians or degrees (Interval::angle).
        let slope = Interval::angle(w.slope);
        let c = e(4.0) * k * slope.sin() * half.sin();
        Some(Data { beta, c, k, half, slope, l: e(w.length), g: e(w.gravity) })
    }

    /// `P(ω)` and `P'(ω)` over `x`.
    fn map(&self, x: Interval) -> Option<(Interval, Interval)> {
        let root = (x.sqr() + self.c).sqrt()?;
        Some((self.beta * root, (self.beta * x).div(&root)?))
    }

    /// `ω(θ)²` over `θ ∈ t` from the energy, with post-impact rates `x` at `θ = −π/n`.
    fn rate_squared(&self, x: Interval, t: Interval) -> Interval {
        x.sqr() + Interval::exact(2.0) * self.k * ((self.slope - self.half).cos() - (t + self.slope).cos())
    }

    /// The stance's ground force over `θ ∈ t` with post-impact rates `x`, per unit mass:
    /// `(f_t, f_n)`, `f = a_hub − g` (module docs).
    fn force(&self, x: Interval, t: Interval) -> (Interval, Interval) {
        let w2 = self.rate_squared(x, t);
        let wdot = self.k * (t + self.slope).sin();
        let (s, c) = (t.sin(), t.cos());
        let ft = self.l * (wdot * c - w2 * s) - self.g * self.slope.sin();
        let fn_ = self.g * self.slope.cos() - self.l * (wdot * s + w2 * c);
        (ft, fn_)
    }
}

/// Proves the rimless wheel's sticking gait near the rate `guess` (rad/s; e.g. from
/// [`crate::walking::rimless_closed_form`] or a computed gait), module docs.
pub fn prove_rimless_gait(w: &RimlessWheel, guess: f64) -> RimlessGaitProof {
    let mut out = RimlessGaitProof {
        proof: Proof::none("not attempted"),
        rate: None,
        multiplier: None,
        mu_stick: None,
        impulse_ratio: None,
        pieces: 0,
    };
    out.proof = Proof::from_check(prove_into(w, guess, &mut out));
    out
}

fn prove_into(w: &RimlessWheel, guess: f64, out: &mut RimlessGaitProof) -> Result<(), String> {
    let finite = [w.kappa, w.slope, w.mu, w.length, w.gravity, guess].iter().all(|v| v.is_finite());
    if !(finite && guess > 0.0 && w.spokes >= 3) {
        return Err("the data and the guess must be finite, the guess > 0, spokes >= 3".into());
    }
    let d = Data::new(w).ok_or("the model's data do not evaluate (a zero mass, length or 1 + κ)")?;
    if d.beta.hi() >= 1.0 {
        return Err(format!("β = {} is not proved < 1", d.beta));
    }
    if !d.beta.is_positive() {
        return Err(format!("β = {} is not proved > 0: the old foot may not leave at heel strike", d.beta));
    }
    let mut x = Interval::new(guess * (1.0 - BOX_REL), guess * (1.0 + BOX_REL)).ok_or("a bad guess")?;
    let newton = |x: Interval| -> Option<Interval> {
        let m = Interval::exact(x.mid());
        let (pm, _) = d.map(m)?;
        let (_, dp) = d.map(x)?;
        let fm = pm - m;
        Some(m - fm.div(&(dp - Interval::exact(1.0)))?)
    };
    let n = newton(x).ok_or("the interval Newton step does not evaluate on the box")?;
    if !n.inside(&x) {
        return Err(format!("interval Newton: N(X) = {n} is not inside X = {x} (the guess is not near a fixed point)"));
    }
    x = n;
    for _ in 0..8 {
        match newton(x).and_then(|n| n.intersect(&x)) {
            Some(n) if n.width() < x.width() => x = n,
            _ => break,
        }
    }
    out.rate = pair(x);
    let (_, dp) = d.map(x).ok_or("P' does not evaluate on the box")?;
    out.multiplier = pair(dp);
    if dp.abs().hi() >= 1.0 {
        return Err(format!("the multiplier {dp} is not proved inside the unit circle"));
    }
    // Heel strike: F ∝ ((β − 1) cos(π/n), (β + 1) sin(π/n)) per unit m l ω⁻.
    let one = Interval::exact(1.0);
    let ratio = ((one - d.beta) * d.half.cos()).div(&((one + d.beta) * d.half.sin())).ok_or("sin(π/n) = 0")?;
    out.impulse_ratio = pair(ratio);
    let mu = Interval::exact(w.mu);
    if ratio.hi() > mu.lo() {
        return Err(format!("the heel strike's impulse ratio {ratio} is not proved <= μ = {}", w.mu));
    }
    // The stance: the wheel passes over the spoke and the foot sticks, θ-interval by θ-interval.
    let stance = Interval::new(-d.half.hi(), d.half.hi()).ok_or("π/n")?;
    if !d.rate_squared(x, stance).is_positive() {
        return Err("ω(θ)² > 0 on the stance is not proved (the wheel may not pass over its spoke)".into());
    }
    // Branch and bound on max |f_t/f_n|: a piece is split while sticking is not proved on it,
    // or while its ratio's upper bound exceeds the best lower bound (the ratio at a point) by
    // more than MU_STICK_REL.
    let force_ratio = |ft: Interval, fnn: Interval| ft.abs().div(&fnn);
    let mut stack = vec![stance];
    let (mut worst, mut best) = (0.0f64, 0.0f64);
    let mut pieces = 0;
    while let Some(t) = stack.pop() {
        let (ft, fnn) = d.force(x, t);
        let sticks = fnn.is_positive() && (mu * fnn - ft.abs()).is_positive();
        if let Some(r) = if sticks { force_ratio(ft, fnn) } else { None } {
            let (ftm, fnm) = d.force(x, Interval::exact(t.mid()));
            if let Some(rm) = force_ratio(ftm, fnm) {
                best = best.max(rm.lo());
            }
            if r.hi() <= best * (1.0 + MU_STICK_REL) || t.width() <= f64::EPSILON * d.half.hi() {
                pieces += 1;
                worst = worst.max(r.hi());
                continue;
            }
        }
        if pieces + stack.len() + 2 > MAX_PIECES {
            out.pieces = pieces;
            return Err(if sticks {
                format!("μ_stick's bound did not close within {MAX_PIECES} θ-intervals")
            } else {
                format!(
                    "sticking on the stance not proved within {MAX_PIECES} θ-intervals (near θ = {t}: f_t = {ft}, f_n = {fnn})"
                )
            });
        }
        let m = t.mid();
        stack.push(Interval::new(t.lo(), m).ok_or("θ")?);
        stack.push(Interval::new(m, t.hi()).ok_or("θ")?);
    }
    out.pieces = pieces;
    out.mu_stick = Some([best, worst]);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::walking::rimless_closed_form;

    #[test]
    fn papers_wheel_gait_is_proved_and_encloses_the_computed_one() {
        let w = RimlessWheel::paper(0.35);
        let (beta, rate) = rimless_closed_form(&w);
        let p = prove_rimless_gait(&w, rate * (1.0 + 3e-10));
        assert!(p.proof.is_proved(), "{p:?}");
        let ([r0, r1], [m0, m1]) = (p.rate.unwrap(), p.multiplier.unwrap());
        assert!(r0 <= rate && rate <= r1, "{p:?} vs {rate}");
        assert!(r1 - r0 < 1e-13 * rate, "{p:?}");
        assert!(m0 <= beta * beta && beta * beta <= m1, "{p:?}");
        // P2 eq. 29: μ_stick ≈ 0.32 along the gait (the report's row), enclosed to 1e-6, and it
        // contains the floating-point gait's value.
        let [lo, hi] = p.mu_stick.unwrap();
        assert!(lo > 0.3 && hi < 0.35 && hi - lo <= 1e-6 * hi, "{p:?}");
        let walker = crate::walking::model::WalkerModel::Rimless(w);
        let g = crate::walking::gait(&walker, Some(&nalgebra::DVector::from_element(1, rate)), &Default::default())
            .unwrap();
        assert!((g.mu_stick - lo).abs() < 1e-6, "{} vs {p:?}", g.mu_stick);
    }

    #[test]
    fn a_guess_off_the_fixed_point_or_too_little_friction_is_not_proved() {
        let w = RimlessWheel::paper(0.35);
        let (_, rate) = rimless_closed_form(&w);
        let far = prove_rimless_gait(&w, rate * 1.001);
        assert!(!far.proof.is_proved() && far.proof.proof_reason.as_deref().unwrap().contains("Newton"), "{far:?}");
        // μ below what the heel strike needs, then between that and what the stance needs.
        let p = prove_rimless_gait(&w, rate);
        let slippery = prove_rimless_gait(&RimlessWheel::paper(0.3), rate);
        let why = slippery.proof.proof_reason.clone().unwrap_or_default();
        assert!(!slippery.proof.is_proved() && why.contains("impulse ratio"), "{slippery:?}");
        let (ratio, mu_stick) = (p.impulse_ratio.unwrap()[1], p.mu_stick.unwrap()[0]);
        assert!(ratio < mu_stick, "{p:?}");
        let between = prove_rimless_gait(&RimlessWheel::paper(0.5 * (ratio + mu_stick)), rate);
        let why = between.proof.proof_reason.clone().unwrap_or_default();
        assert!(!between.proof.is_proved() && why.contains("sticking"), "{between:?}");
    }

    #[test]
    fn units_do_not_change_the_proof() {
        for (sm, sl, st) in [(1e8, 1.0, 1.0), (1.0, 1e-8, 1.0), (1.0, 1e6, 1e-6), (1e-8, 1e8, 1e4)] {
            let mut w = RimlessWheel::paper(0.35);
            w.mass *= sm;
            w.length *= sl;
            w.gravity *= sl / (st * st);
            let (_, rate) = rimless_closed_form(&w);
            let p = prove_rimless_gait(&w, rate);
            assert!(p.proof.is_proved(), "{sm} {sl} {st}: {p:?}");
            let [r0, r1] = p.rate.unwrap();
            assert!(r0 <= rate && rate <= r1, "{p:?}");
        }
    }
}
