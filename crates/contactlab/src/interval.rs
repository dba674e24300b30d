//! Interval arithmetic with outward rounding (issue #23, part 1): the ground a proof stands on.
//!
//! An [`Interval`] `[lo, hi]` encloses a real number. Every operation computes its bounds in
//! the default rounding mode (to nearest, which IEEE 754 guarantees for `+ − × ÷ √` to within
//! half an ulp) and then moves the lower bound one float down and the upper bound one float up
//! ([`f64::next_down`], [`f64::next_up`]): the exact result of the operation on any members of
//! the operands lies inside. No rounding-mode switch, no target-specific instruction: the same
//! code is correct on x86-64 and aarch64 with the default build (and in the Python wheel). The
//! price is one ulp of width per operation where a directed-rounding library gets zero.
//!
//! A sum, difference or product whose rounded bound is exact is not widened: the rounding error
//! of `a + b` is computed exactly by Knuth's TwoSum and that of `a · b` by a fused multiply-add
//! (exact when the product is far from the underflow range), and only an inexact bound moves.
//! So `q + 0 · z` is exactly `q` and a proof that `w ≥ 0` can close when `w` is exactly zero.
//! Quotients, square roots and elementary functions are always widened. Overflow widens to
//! `±∞`. An operation whose result is not a real number (a quotient by an interval containing
//! 0, a square root of a negative interval) returns `None` rather than an enclosure that would
//! claim something. The tests compare every operation against exact rational arithmetic on
//! random expressions, and show that the same expressions without the outward step escape
//! their enclosure.
//!
//! Elementary functions ([`Interval::exp`], [`Interval::ln`], [`Interval::atan`],
//! [`Interval::sin`], [`Interval::cos`]) rest on one stated assumption: the platform's `exp`,
//! `ln`, `atan`, `sin` and `cos` (Rust calls the system libm: glibc, musl, Apple's) are within
//! [`LIBM_ULPS`] − 1 ulp of the true value at every float; their enclosures widen each bound by
//! [`LIBM_ULPS`] ulps and use monotonicity, and for `sin`/`cos` the extrema inside the interval
//! (located against an enclosure of π). These five are the only functions that rely on it;
//! everything else is `+ − × ÷ √` (IEEE 754) and exact float operations. `sin` and `cos` of an
//! interval with a bound beyond [`TRIG_EXACT_LIMIT`] are `[−1, 1]` without evaluation (the
//! candidate extrema could no longer be counted in floats).
//!
//! Infinite bounds: a sum `(−∞) + (+∞)` or a quotient `∞/∞` has no value; the bound it would
//! give is the infinite one on its side (a lower bound `−∞`, an upper bound `+∞`), so no
//! operation yields NaN.

use std::fmt;
use std::ops::{Add, Mul, Neg, Sub};

/// A closed interval `[lo, hi]` of reals, `lo ≤ hi`, bounds finite or infinite, never NaN.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    lo: f64,
    hi: f64,
}

impl fmt::Display for Interval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{:e}, {:e}]", self.lo, self.hi)
    }
}

/// `x` one float down (toward `−∞`); `−∞` stays.
fn down(x: f64) -> f64 {
    x.next_down()
}

/// `x` one float up (toward `+∞`); `+∞` stays.
fn up(x: f64) -> f64 {
    x.next_up()
}

impl Interval {
    /// `[lo, hi]`; `None` if a bound is NaN or `lo > hi`.
    pub fn new(lo: f64, hi: f64) -> Option<Self> {
        (lo <= hi).then_some(Interval { lo, hi })
    }

    /// The point `[x, x]` (a float is exactly a real); `None` for NaN.
    pub fn point(x: f64) -> Option<Self> {
        Self::new(x, x)
    }

    /// The whole real line.
    pub const ENTIRE: Interval = Interval { lo: f64::NEG_INFINITY, hi: f64::INFINITY };

    /// The point `[x, x]`, or the whole line for NaN (a valid, useless enclosure): for data
    /// already checked finite.
    pub fn exact(x: f64) -> Self {
        Self::point(x).unwrap_or(Self::ENTIRE)
    }

    /// Whether `self` lies in the interior of `outer` (both bounds strictly inside).
    pub fn inside(&self, outer: &Interval) -> bool {
        outer.lo < self.lo && self.hi < outer.hi
    }

    /// The float nearest to a real `x` was rounded from, enclosed: `[x⁻, x⁺]` (for a constant
    /// written in decimal, such as `0.1`, whose float is not the real).
    pub fn around(x: f64) -> Option<Self> {
        Self::new(down(x), up(x))
    }

    /// Lower bound.
    pub fn lo(&self) -> f64 {
        self.lo
    }

    /// Upper bound.
    pub fn hi(&self) -> f64 {
        self.hi
    }

    /// Whether `x` lies inside.
    pub fn contains(&self, x: f64) -> bool {
        self.lo <= x && x <= self.hi
    }

    /// Width `hi − lo`, rounded up (`0` for `[∞, ∞]`).
    pub fn width(&self) -> f64 {
        let w = up(self.hi - self.lo);
        if w.is_nan() {
            0.0
        } else {
            w
        }
    }

    /// The midpoint (a float inside the interval; `0` for the whole line).
    pub fn mid(&self) -> f64 {
        let m = 0.5 * self.lo + 0.5 * self.hi;
        if m.is_nan() {
            0.0f64.clamp(self.lo, self.hi)
        } else {
            m.clamp(self.lo, self.hi)
        }
    }

    /// Whether every member is `> 0`.
    pub fn is_positive(&self) -> bool {
        self.lo > 0.0
    }

    /// Whether every member is `< 0`.
    pub fn is_negative(&self) -> bool {
        self.hi < 0.0
    }

    /// The smallest interval holding both.
    pub fn hull(&self, other: &Interval) -> Interval {
        Interval { lo: self.lo.min(other.lo), hi: self.hi.max(other.hi) }
    }

    /// The common part, `None` when they are disjoint.
    pub fn intersect(&self, other: &Interval) -> Option<Interval> {
        Self::new(self.lo.max(other.lo), self.hi.min(other.hi))
    }

    /// Outward-rounded bounds from to-nearest ones (module docs).
    fn outward(lo: f64, hi: f64) -> Interval {
        Interval { lo: down(lo), hi: up(hi) }
    }

    /// `1/x`, `None` when `x` contains 0.
    pub fn recip(&self) -> Option<Interval> {
        Interval::exact(1.0).div(self)
    }

    /// `x / y`, `None` when `y` contains 0.
    pub fn div(&self, y: &Interval) -> Option<Interval> {
        if y.lo <= 0.0 && y.hi >= 0.0 {
            return None;
        }
        // (∞/∞ is NaN: min4 and max4 read it as the infinite bound on their side.)
        let q = [
            quotient_exact(self.lo, y.lo),
            quotient_exact(self.lo, y.hi),
            quotient_exact(self.hi, y.lo),
            quotient_exact(self.hi, y.hi),
        ];
        Some(Interval { lo: min4(q.map(lower)), hi: max4(q.map(upper)) })
    }

    /// `x²` (tighter than `x · x` when `x` contains 0).
    pub fn sqr(&self) -> Interval {
        let (a, b) = (self.lo.abs(), self.hi.abs());
        let (small, large) = if a < b { (a, b) } else { (b, a) };
        if self.lo <= 0.0 && self.hi >= 0.0 {
            Interval { lo: 0.0, hi: up(large * large) }
        } else {
            Self::outward(small * small, large * large).clamp_below(0.0)
        }
    }

    /// `√x`, `None` when `x` has negative members.
    pub fn sqrt(&self) -> Option<Interval> {
        if self.lo < 0.0 {
            return None;
        }
        Some(Interval { lo: lower(root_exact(self.lo)), hi: upper(root_exact(self.hi)) }.clamp_below(0.0))
    }

    /// `|x|`.
    pub fn abs(&self) -> Interval {
        if self.lo >= 0.0 {
            *self
        } else if self.hi <= 0.0 {
            -*self
        } else {
            Interval { lo: 0.0, hi: self.hi.max(-self.lo) }
        }
    }

    /// The same interval with its lower bound raised to `floor` where the real result is known
    /// to be `≥ floor` (a square, a square root).
    fn clamp_below(self, floor: f64) -> Interval {
        Interval { lo: self.lo.max(floor), hi: self.hi }
    }
}

/// Ulps by which an elementary function's bounds are widened (module docs): the libm's error
/// bound (1 ulp for glibc's `exp`, `log`, `sin`, `cos`) plus one for the rounding of the bound.
pub const LIBM_ULPS: u32 = 2;

/// `x` moved `n` floats down.
fn down_n(mut x: f64, n: u32) -> f64 {
    for _ in 0..n {
        x = down(x);
    }
    x
}

/// `x` moved `n` floats up.
fn up_n(mut x: f64, n: u32) -> f64 {
    for _ in 0..n {
        x = up(x);
    }
    x
}

/// π enclosed: the float below and the float above (`f64::consts::PI` is the nearest).
const PI_LO: f64 = std::f64::consts::PI;
fn pi_hi() -> f64 {
    up(std::f64::consts::PI)
}

impl Interval {
    /// π, enclosed.
    pub fn pi() -> Interval {
        Interval { lo: PI_LO, hi: pi_hi() }
    }

    /// An angle `x` (rad) as a model file may have given it: `x` itself, hulled with `d·π/180`
    /// for every float `d` whose `to_radians()` is `x` (a `_deg` key, converted in floating
    /// point by the reader). A proof over this enclosure holds for the file's number whichever
    /// unit it was written in, without the reader having to say which; `0` stays exactly `0`
    /// (only `d = 0` converts to it). The width is a few ulps of `x` (π's enclosure and the rounding).
    pub fn angle(x: f64) -> Interval {
        let mut out = Interval::exact(x);
        if x == 0.0 || !x.is_finite() {
            return out;
        }
        // `to_radians` multiplies by about 2^-5.8, so each float `d` converts to its own `x`
        // and the candidates lie within an ulp or two of `x.to_degrees()`.
        let mut d = x.to_degrees();
        for _ in 0..4 {
            d = d.next_down();
        }
        for _ in 0..9 {
            if d.to_radians() == x {
                if let Some(v) = (Interval::exact(d) * Interval::pi()).div(&Interval::exact(180.0)) {
                    out = out.hull(&v);
                }
            }
            d = d.next_up();
        }
        out
    }

    /// `eˣ`.
    pub fn exp(&self) -> Interval {
        Interval { lo: down_n(self.lo.exp(), LIBM_ULPS).max(0.0), hi: up_n(self.hi.exp(), LIBM_ULPS) }
    }

    /// `ln x`, `None` when `x` has members `≤ 0`.
    pub fn ln(&self) -> Option<Interval> {
        if self.lo <= 0.0 {
            return None;
        }
        Some(Interval { lo: down_n(self.lo.ln(), LIBM_ULPS), hi: up_n(self.hi.ln(), LIBM_ULPS) })
    }

    /// `atan x` (increasing; `atan(±∞) = ±π/2`), within `(−π/2, π/2)` enclosed.
    pub fn atan(&self) -> Interval {
        let half_pi = up(std::f64::consts::FRAC_PI_2);
        Interval {
            lo: down_n(self.lo.atan(), LIBM_ULPS).max(-half_pi),
            hi: up_n(self.hi.atan(), LIBM_ULPS).min(half_pi),
        }
    }

    /// `cos x`.
    pub fn cos(&self) -> Interval {
        self.trig(0.0, f64::cos)
    }

    /// `sin x`.
    pub fn sin(&self) -> Interval {
        self.trig(0.5, f64::sin)
    }

    /// `sin` (`shift = ½`) or `cos` (`shift = 0`): the end values widened, and `±1` where a
    /// critical point `(k + shift) π` may lie inside (`k` even: a maximum, odd: a minimum).
    fn trig(&self, shift: f64, f: fn(f64) -> f64) -> Interval {
        let whole = Interval { lo: -1.0, hi: 1.0 };
        if !(self.lo.is_finite() && self.hi.is_finite())
            || self.hi - self.lo >= 7.0
            || self.lo.abs().max(self.hi.abs()) > TRIG_EXACT_LIMIT
        {
            return whole;
        }
        let (fa, fb) = (f(self.lo), f(self.hi));
        let mut lo = down_n(fa.min(fb), LIBM_ULPS);
        let mut hi = up_n(fa.max(fb), LIBM_ULPS);
        // Candidates k with (k + shift) π possibly in [lo, hi]: a generous float range, each
        // then tested against π's enclosure (a possible critical point counts).
        let k0 = (self.lo / PI_LO - shift).floor() - 1.0;
        let k1 = (self.hi / PI_LO - shift).ceil() + 1.0;
        let mut k = k0;
        while k <= k1 {
            let c = Interval::point(k + shift).map(|x| x * Interval { lo: PI_LO, hi: pi_hi() });
            if let Some(c) = c {
                if c.hi >= self.lo && c.lo <= self.hi {
                    if (k as i64).rem_euclid(2) == 0 {
                        hi = 1.0;
                    } else {
                        lo = -1.0;
                    }
                }
            }
            k += 1.0;
        }
        Interval { lo: lo.max(-1.0), hi: hi.min(1.0) }
    }
}

/// Above this magnitude `sin` and `cos` return `[−1, 1]` (module docs): `2⁴⁰`, far below
/// `2⁵³`, where the critical points `(k + ½)π` stop being distinct after rounding `k + ½`.
pub const TRIG_EXACT_LIMIT: f64 = (1u64 << 40) as f64;

/// The least of four candidate lower bounds; a NaN candidate (`∞/∞`) is `−∞`.
fn min4(v: [f64; 4]) -> f64 {
    v.into_iter().map(|x| if x.is_nan() { f64::NEG_INFINITY } else { x }).fold(f64::INFINITY, f64::min)
}

/// The largest of four candidate upper bounds; a NaN candidate (`∞/∞`) is `+∞`.
fn max4(v: [f64; 4]) -> f64 {
    v.into_iter().map(|x| if x.is_nan() { f64::INFINITY } else { x }).fold(f64::NEG_INFINITY, f64::max)
}

impl Neg for Interval {
    type Output = Interval;
    fn neg(self) -> Interval {
        Interval { lo: -self.hi, hi: -self.lo }
    }
}

/// `a + b` rounded to nearest, and whether that is exact (TwoSum's error term is zero; an
/// infinite or NaN sum is never exact).
fn sum_exact(a: f64, b: f64) -> (f64, bool) {
    let s = a + b;
    if !s.is_finite() {
        return (s, false);
    }
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb) == 0.0)
}

/// Below this magnitude a product's error term may itself underflow, so a zero error term does
/// not prove the product exact (`2⁻⁹⁰⁰`, far above the `2⁻⁹⁶⁹` where that starts).
const EXACT_PRODUCT_FLOOR: f64 = f64::from_bits((1023 - 900) << 52);

/// `a · b` rounded to nearest (`0 × ∞ = 0`, as a bound of a product of intervals), and whether
/// that is exact (a zero factor, or a zero error term `fma(a, b, −p)` away from underflow).
fn product_exact(a: f64, b: f64) -> (f64, bool) {
    if a == 0.0 || b == 0.0 {
        return (0.0, true);
    }
    let p = a * b;
    (p, p.is_finite() && p.abs() >= EXACT_PRODUCT_FLOOR && a.mul_add(b, -p) == 0.0)
}

/// `a / b` rounded to nearest, and whether that is exact (a zero dividend over a nonzero finite
/// divisor, or a zero remainder `fma(−q, b, a)` away from underflow: with `|q|, |b| ≥ 2⁻⁴⁰⁰`
/// the exact remainder, if nonzero, is far above the underflow threshold).
fn quotient_exact(a: f64, b: f64) -> (f64, bool) {
    let q = a / b;
    if a == 0.0 && b != 0.0 && b.is_finite() {
        return (q, true);
    }
    let floor = f64::from_bits((1023 - 400) << 52);
    (q, q.is_finite() && b.is_finite() && q.abs() >= floor && b.abs() >= floor && (-q).mul_add(b, a) == 0.0)
}

/// `√a` rounded to nearest, and whether that is exact (`a = 0`, or `fma(s, s, −a) = 0` with
/// `a ≥ 2⁻⁸⁰⁰`, away from underflow as in [`quotient_exact`]).
fn root_exact(a: f64) -> (f64, bool) {
    let s = a.sqrt();
    if a == 0.0 {
        return (s, true);
    }
    (s, s.is_finite() && a >= f64::from_bits((1023 - 800) << 52) && s.mul_add(s, -a) == 0.0)
}

/// A lower bound from a rounded value: itself if exact, else one float down.
fn lower((v, exact): (f64, bool)) -> f64 {
    if exact {
        v
    } else {
        down(v)
    }
}

/// An upper bound from a rounded value: itself if exact, else one float up.
fn upper((v, exact): (f64, bool)) -> f64 {
    if exact {
        v
    } else {
        up(v)
    }
}

impl Add for Interval {
    type Output = Interval;
    fn add(self, y: Interval) -> Interval {
        // (−∞) + (+∞) has no value: the bound is the infinite one on its side (module docs).
        let lo = lower(sum_exact(self.lo, y.lo));
        let hi = upper(sum_exact(self.hi, y.hi));
        Interval {
            lo: if lo.is_nan() { f64::NEG_INFINITY } else { lo },
            hi: if hi.is_nan() { f64::INFINITY } else { hi },
        }
    }
}

impl Sub for Interval {
    type Output = Interval;
    fn sub(self, y: Interval) -> Interval {
        self + (-y)
    }
}

impl Mul for Interval {
    type Output = Interval;
    fn mul(self, y: Interval) -> Interval {
        let p = [
            product_exact(self.lo, y.lo),
            product_exact(self.lo, y.hi),
            product_exact(self.hi, y.lo),
            product_exact(self.hi, y.hi),
        ];
        Interval {
            lo: p.iter().map(|&v| lower(v)).fold(f64::INFINITY, f64::min),
            hi: p.iter().map(|&v| upper(v)).fold(f64::NEG_INFINITY, f64::max),
        }
    }
}

/// Vectors of intervals: the small geometry that turns a file's numbers into enclosures of
/// derived ones (unit normals, moments, frames).
pub mod vector {
    use super::Interval;

    /// Each float as the exact real it is.
    pub fn exact(v: &[f64]) -> Vec<Interval> {
        v.iter().map(|&x| Interval::exact(x)).collect()
    }

    /// `Σ aᵢ bᵢ`.
    pub fn dot(a: &[Interval], b: &[Interval]) -> Interval {
        a.iter().zip(b).fold(Interval::exact(0.0), |s, (x, y)| s + *x * *y)
    }

    /// `|v|` (`None` only if [`Interval::sqrt`] refuses `|v|²`).
    pub fn norm(v: &[Interval]) -> Option<Interval> {
        dot(v, v).sqrt()
    }

    /// `v / |v|`; every entry the whole line when `|v|` is not proved positive (a valid,
    /// useless enclosure: a proof that needs it fails).
    pub fn unit(v: &[Interval]) -> Vec<Interval> {
        let n = norm(v).filter(|n| n.is_positive());
        v.iter().map(|x| n.and_then(|n| x.div(&n)).unwrap_or(Interval::ENTIRE)).collect()
    }

    /// `a / s` entrywise, as [`unit()`] when `s` is not proved nonzero.
    pub fn scaled_down(a: &[Interval], s: &Interval) -> Vec<Interval> {
        a.iter().map(|x| x.div(s).unwrap_or(Interval::ENTIRE)).collect()
    }

    /// `a × b` of 3-vectors.
    pub fn cross(a: &[Interval], b: &[Interval]) -> Vec<Interval> {
        vec![a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
    }

    /// `a_x b_y − a_y b_x` of 2-vectors.
    pub fn cross2(a: &[Interval], b: &[Interval]) -> Interval {
        a[0] * b[1] - a[1] * b[0]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bounds that stress the edge cases: infinities, the extremes, signed zeros, subnormals.
    const SPECIAL: [f64; 11] = [
        f64::NEG_INFINITY,
        -f64::MAX,
        -1.0,
        -f64::MIN_POSITIVE,
        -0.0,
        0.0,
        5e-324,
        1.0,
        1e300,
        f64::MAX,
        f64::INFINITY,
    ];

    #[test]
    fn no_operation_yields_a_nan_bound() {
        let all: Vec<Interval> =
            SPECIAL.iter().flat_map(|&a| SPECIAL.iter().filter_map(move |&b| Interval::new(a, b))).collect();
        let ok = |v: Interval, what: &str| {
            assert!(!v.lo().is_nan() && !v.hi().is_nan() && v.lo() <= v.hi(), "{what}: {v:?}");
            assert!(!v.mid().is_nan() && v.contains(v.mid()) || v.lo() == v.hi(), "{what}: mid of {v:?}");
            assert!(!v.width().is_nan(), "{what}: width of {v:?}");
        };
        for &x in &all {
            ok(x.exp(), "exp");
            ok(x.atan(), "atan");
            ok(x.sin(), "sin");
            ok(x.cos(), "cos");
            ok(x.sqr(), "sqr");
            ok(x.abs(), "abs");
            x.sqrt().into_iter().for_each(|v| ok(v, "sqrt"));
            x.ln().into_iter().for_each(|v| ok(v, "ln"));
            x.recip().into_iter().for_each(|v| ok(v, "recip"));
            for &y in &all {
                ok(x + y, "add");
                ok(x - y, "sub");
                ok(x * y, "mul");
                x.div(&y).into_iter().for_each(|v| ok(v, "div"));
            }
        }
        // The case: [−∞, 0] + [∞, ∞] is [−∞, ∞], and ∞/∞ reads as unbounded (a valid,
        // loose enclosure of [1, ∞]/[1, ∞] = [0, ∞]).
        let s = Interval::new(f64::NEG_INFINITY, 0.0).unwrap() + Interval::new(f64::INFINITY, f64::INFINITY).unwrap();
        assert_eq!(s, Interval::ENTIRE);
        let inf = Interval::new(1.0, f64::INFINITY).unwrap();
        let q = inf.div(&inf).unwrap();
        assert!(q.lo() <= 0.0 && q.hi() == f64::INFINITY, "{q:?}");
    }

    #[test]
    fn an_angle_encloses_its_value_in_degrees() {
        // π = PI + PI_TAIL to about 1e-32: d·π/180 in double-double, far tighter than an ulp.
        const PI_TAIL: f64 = 1.2246467991473532e-16;
        for d in [1.0, 10.0, 25.0, 30.0, 45.0, 89.5, -12.25, 1e-3, 0.1, 179.0, 1e6] {
            let x = f64::to_radians(d);
            let e = Interval::angle(x);
            let (p, err) = (d * std::f64::consts::PI, d.mul_add(std::f64::consts::PI, -(d * std::f64::consts::PI)));
            let hi_part = p / 180.0;
            let rest = ((-hi_part).mul_add(180.0, p) + err + d * PI_TAIL) / 180.0;
            // The true d·π/180 lies in [hi_part + rest ± 1e-30 relative]; both ends inside.
            let t = hi_part.abs() * 1e-30;
            assert!(e.contains(x), "{d}: {e:?} misses x = {x:e}");
            assert!(e.lo() <= hi_part + (rest - t) && hi_part + (rest + t) <= e.hi(), "{d}: {e:?} misses d·π/180");
            assert!(e.width() <= 8.0 * f64::EPSILON * x.abs(), "{d}: {e:?} too wide");
        }
        // Zero stays exactly zero (flat supports keep their exact symmetry).
        assert_eq!(Interval::angle(0.0), Interval::exact(0.0));
    }

    #[test]
    fn trigonometry_of_huge_arguments_is_bounded_and_whole() {
        // Beyond 2^53·π the candidate count k += 1 no longer moves; such arguments (and anything
        // beyond TRIG_EXACT_LIMIT) give [−1, 1] at once.
        let whole = Interval::new(-1.0, 1.0).unwrap();
        for x in [2f64.powi(53) * std::f64::consts::PI, 1e300, f64::MAX, -1e17, TRIG_EXACT_LIMIT * 2.0] {
            let i = Interval::new(x, x).unwrap();
            assert_eq!(i.sin(), whole, "{x}");
            assert_eq!(i.cos(), whole, "{x}");
        }
        // Below the limit the enclosure is tight and holds the libm value.
        let x = TRIG_EXACT_LIMIT / 2.0 + 0.25;
        let s = Interval::new(x, x).unwrap().sin();
        assert!(s.contains(x.sin()) && s.width() < 1e-15, "{s:?}");
    }

    /// An exact rational `n / d` (`d > 0`) in `i128`, every operation checked: `None` on
    /// overflow (such a case is skipped and counted).
    #[derive(Clone, Copy, Debug)]
    struct Q(i128, i128);

    fn gcd(mut a: i128, mut b: i128) -> i128 {
        a = a.abs();
        b = b.abs();
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a.max(1)
    }

    impl Q {
        fn new(n: i128, d: i128) -> Option<Q> {
            if d == 0 {
                return None;
            }
            let g = gcd(n, d);
            let s = if d < 0 { -1 } else { 1 };
            Some(Q(s * n / g, s * d / g))
        }
        fn add(self, o: Q) -> Option<Q> {
            Q::new(self.0.checked_mul(o.1)?.checked_add(o.0.checked_mul(self.1)?)?, self.1.checked_mul(o.1)?)
        }
        fn neg(self) -> Q {
            Q(-self.0, self.1)
        }
        fn mul(self, o: Q) -> Option<Q> {
            Q::new(self.0.checked_mul(o.0)?, self.1.checked_mul(o.1)?)
        }
        fn div(self, o: Q) -> Option<Q> {
            Q::new(self.0.checked_mul(o.1)?, self.1.checked_mul(o.0)?)
        }
        /// A finite float as an exact rational (if it fits).
        fn of(x: f64) -> Option<Q> {
            if x == 0.0 {
                return Some(Q(0, 1));
            }
            let bits = x.to_bits();
            let sign = if bits >> 63 == 1 { -1 } else { 1 };
            let exp = ((bits >> 52) & 0x7ff) as i32;
            let frac = (bits & ((1 << 52) - 1)) as i128;
            let (m, e) = if exp == 0 { (frac, -1074) } else { (frac | (1 << 52), exp - 1075) };
            if e >= 0 {
                Q::new(sign * m.checked_mul(1i128.checked_shl(e as u32)?)?, 1)
            } else if -e < 120 {
                Q::new(sign * m, 1i128 << (-e))
            } else {
                None
            }
        }
        /// `self ≤ x` for a float `x` (exactly; `None` if it does not fit).
        fn le(self, x: f64) -> Option<bool> {
            if x == f64::INFINITY {
                return Some(true);
            }
            if x == f64::NEG_INFINITY {
                return Some(false);
            }
            let r = Q::of(x)?;
            Some(self.0.checked_mul(r.1)? <= r.0.checked_mul(self.1)?)
        }
        fn ge(self, x: f64) -> Option<bool> {
            self.neg().le(-x)
        }
    }

    /// A small deterministic generator (xorshift).
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        /// A float `n / 2^k` with `|n| < 2^20`, `k ≤ 12`: exact as a rational.
        fn leaf(&mut self) -> f64 {
            let n = (self.next() % (1 << 20)) as f64 - (1 << 19) as f64;
            let k = (self.next() % 13) as i32;
            n / 2f64.powi(k)
        }
    }

    /// A random expression evaluated three ways: exactly, in intervals, and (with `outward =
    /// false`) in intervals whose bounds are rounded to nearest only.
    fn expression(r: &mut Rng, depth: u32, outward: bool) -> Option<(Q, Interval)> {
        if depth == 0 {
            let x = r.leaf();
            return Some((Q::of(x)?, Interval::point(x)?));
        }
        let op = r.next() % 5;
        let (qa, a) = expression(r, depth - 1, outward)?;
        if op == 4 {
            // a² (or a⁻¹ when a excludes 0: the square is exercised often enough)
            return Some((qa.mul(qa)?, if outward { a.sqr() } else { nearest(a, a, |x, y| x * y) }));
        }
        let (qb, b) = expression(r, depth - 1, outward)?;
        Some(match op {
            0 => (qa.add(qb)?, if outward { a + b } else { nearest(a, b, |x, y| x + y) }),
            1 => (qa.add(qb.neg())?, if outward { a - b } else { nearest(a, -b, |x, y| x + y) }),
            2 => (qa.mul(qb)?, if outward { a * b } else { nearest(a, b, |x, y| x * y) }),
            _ => {
                let q = qa.div(qb)?;
                (q, if outward { a.div(&b)? } else { nearest_div(a, b)? })
            }
        })
    }

    /// The deliberately wrong rounding: the corner values rounded to nearest, not outward.
    fn nearest(a: Interval, b: Interval, f: impl Fn(f64, f64) -> f64) -> Interval {
        let p = [f(a.lo, b.lo), f(a.lo, b.hi), f(a.hi, b.lo), f(a.hi, b.hi)];
        Interval { lo: min4(p), hi: max4(p) }
    }

    fn nearest_div(a: Interval, b: Interval) -> Option<Interval> {
        if b.lo <= 0.0 && b.hi >= 0.0 {
            return None;
        }
        Some(nearest(a, b, |x, y| x / y))
    }

    fn encloses(q: Q, i: &Interval) -> Option<bool> {
        Some(q.ge(i.lo)? && q.le(i.hi)?)
    }

    #[test]
    fn every_random_expression_is_enclosed_and_nearest_rounding_is_caught() {
        let mut r = Rng(0x2545_f491_4f6c_dd1d);
        let (mut checked, mut escaped_nearest) = (0, 0);
        for _ in 0..20_000 {
            let seed = r.next() | 1;
            let Some((q, i)) = expression(&mut Rng(seed), 3, true) else { continue };
            let Some(inside) = encloses(q, &i) else { continue };
            assert!(inside, "seed {seed}: exact {q:?} outside {i}");
            checked += 1;
            // The same expression with bounds rounded to nearest only.
            if let Some((q2, j)) = expression(&mut Rng(seed), 3, false) {
                if encloses(q2, &j) == Some(false) {
                    escaped_nearest += 1;
                }
            }
        }
        assert!(checked > 15_000, "only {checked} expressions fit the exact check");
        // Without the outward step, rounding errors escape: the test would catch it.
        assert!(escaped_nearest > 5_000, "nearest rounding escaped only {escaped_nearest} times");
    }

    /// Elementary functions: random intervals, every float sampled inside lands inside the
    /// enclosure; extrema inside are found; known values are enclosed.
    #[test]
    fn elementary_functions_enclose_their_values() {
        let mut r = Rng(0x9e37_79b9_7f4a_7c15);
        let unit = |r: &mut Rng| (r.next() >> 11) as f64 / (1u64 << 53) as f64;
        for _ in 0..5_000 {
            let a = (unit(&mut r) - 0.5) * 40.0;
            let w = unit(&mut r) * unit(&mut r) * 4.0;
            let x = Interval::new(a, a + w).unwrap();
            let (s, c, e, at) = (x.sin(), x.cos(), x.exp(), x.atan());
            for j in 0..=16 {
                let t = (a + w * j as f64 / 16.0).min(x.hi());
                assert!(s.contains(t.sin()) && c.contains(t.cos()) && e.contains(t.exp()), "{x} at {t}");
                assert!(at.contains(t.atan()), "atan {x} at {t}");
                if t > 0.0 {
                    assert!(x.ln().is_none() || x.ln().unwrap().contains(t.ln()));
                }
            }
        }
        let i = |a, b| Interval::new(a, b).unwrap();
        assert_eq!(i(1.5, 1.7).sin().hi(), 1.0);
        assert_eq!(i(3.0, 3.3).cos().lo(), -1.0);
        assert_eq!(i(-0.1, 0.1).cos().hi(), 1.0);
        assert!(i(0.1, 0.2).sin().hi() < 0.2 && i(0.1, 0.2).cos().lo() > 0.98);
        let sixth = Interval::around(std::f64::consts::FRAC_PI_6).unwrap().sin();
        assert!(sixth.contains(0.5) && sixth.width() < 1e-15);
        assert!(i(0.0, 1.0).ln().is_none() && i(1.0, 1.0).ln().unwrap().contains(0.0));
        assert_eq!(i(0.0, 100.0).sin(), i(-1.0, 1.0));
        // atan: π/4 at 1, and ±π/2 enclosed at ±∞.
        let quarter = i(1.0, 1.0).atan();
        assert!(quarter.contains(std::f64::consts::FRAC_PI_4) && quarter.width() < 1e-15);
        let whole = i(f64::NEG_INFINITY, f64::INFINITY).atan();
        assert!(whole.lo() < -std::f64::consts::FRAC_PI_2 && whole.hi() > std::f64::consts::FRAC_PI_2);
        assert!(whole.hi() - whole.lo() < std::f64::consts::PI + 1e-14);
    }

    #[test]
    fn exact_results_stay_points_and_inexact_ones_widen() {
        let p = Interval::exact;
        assert_eq!(p(1.0) + p(2.0), p(3.0));
        assert_eq!(p(0.5) * p(-6.0), p(-3.0));
        assert_eq!(p(7.0) + p(0.0) * p(1e300), p(7.0));
        assert_eq!(p(3.0) - p(3.0), p(0.0));
        // 0.1 + 0.2 is not exact: the enclosure has width.
        let s = p(0.1) + p(0.2);
        assert!(s.lo() < s.hi() && s.contains(0.1 + 0.2));
        // 1 + 2⁻⁶⁰ rounds to 1: inexact, so both bounds move (the real sum is above 1).
        let t = p(1.0) + p(2f64.powi(-60));
        assert!(t.lo() < 1.0 && t.hi() > 1.0);
        let u = p(1.0 + f64::EPSILON) * p(1.0 + f64::EPSILON);
        assert!(u.lo() < u.hi());
        // Near underflow a zero error term proves nothing: widened.
        let tiny = p(1e-200) * p(1e-120);
        assert!(tiny.lo() < tiny.hi() && tiny.lo() >= 0.0);
        assert!(p(f64::NAN) == Interval::ENTIRE && p(1.0).inside(&Interval::new(0.0, 2.0).unwrap()));
    }

    #[test]
    fn elementary_cases() {
        let i = |a, b| Interval::new(a, b).unwrap();
        let third = Interval::point(1.0).unwrap().div(&Interval::point(3.0).unwrap()).unwrap();
        assert!(third.lo() < 1.0 / 3.0 && 1.0 / 3.0 < third.hi() && third.width() < 1e-15);
        assert_eq!(i(-2.0, 3.0).sqr().lo(), 0.0);
        assert!(i(-2.0, 3.0).sqr().contains(9.0));
        assert!(i(-1.0, 1.0).recip().is_none() && i(1.0, 2.0).div(&i(-1.0, 0.0)).is_none());
        assert!(i(-1.0, 4.0).sqrt().is_none());
        let s = i(2.0, 2.0).sqrt().unwrap();
        assert!(s.lo() < std::f64::consts::SQRT_2 && std::f64::consts::SQRT_2 < s.hi());
        assert_eq!(i(-3.0, 2.0).abs(), i(0.0, 3.0));
        assert!((i(0.0, f64::INFINITY) * i(0.0, 1.0)).contains(0.0));
        assert!(Interval::new(f64::NAN, 1.0).is_none() && Interval::new(2.0, 1.0).is_none());
        let big = i(f64::MAX, f64::MAX) + i(f64::MAX, f64::MAX);
        assert_eq!(big.hi(), f64::INFINITY);
        assert!(Interval::around(0.1).unwrap().contains(0.1) && i(1.0, 2.0).intersect(&i(3.0, 4.0)).is_none());
    }
}
