//! A joint's reference motion, the one formula of planar and 3-D springs and PD joints: the
//! spring pulls its coordinate towards `r(t) = q⁰ + a sin(ω t + ψ)` (constant when `a = 0` or
//! `ω = 0`), and a damper towards the rate `ṙ(t)`.

/// The reference `r(t) = rest + amplitude · sin(frequency · t + phase)` of a joint's spring.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct JointReference {
    /// The constant part `q⁰` (rad, or m for a slider).
    pub rest: f64,
    /// Amplitude `a` of the periodic part (rad or m; `0`: constant).
    pub amplitude: f64,
    /// Angular frequency `ω ≥ 0` (rad/s).
    pub frequency: f64,
    /// Phase `ψ` (rad).
    pub phase: f64,
}

impl JointReference {
    /// A constant reference at `rest`.
    pub fn constant(rest: f64) -> Self {
        Self { rest, ..Default::default() }
    }

    /// Whether the reference moves (`a ≠ 0` and `ω ≠ 0`).
    pub fn periodic(&self) -> bool {
        self.amplitude != 0.0 && self.frequency != 0.0
    }

    /// The reference and its rate `(r(t), ṙ(t))` at time `t` (s): `(q⁰, 0)` when it does not
    /// move.
    pub fn at(&self, t: f64) -> (f64, f64) {
        if self.periodic() {
            let (s, c) = (self.frequency * t + self.phase).sin_cos();
            (self.rest + self.amplitude * s, self.amplitude * self.frequency * c)
        } else {
            (self.rest, 0.0)
        }
    }

    /// The first of its numbers that is not finite (or a negative frequency), by key (`rest`,
    /// `amplitude`, `frequency`, `phase`) with its value.
    pub fn invalid(&self) -> Option<(&'static str, f64)> {
        [("rest", self.rest), ("amplitude", self.amplitude), ("frequency", self.frequency), ("phase", self.phase)]
            .into_iter()
            .find(|&(k, v)| !v.is_finite() || (k == "frequency" && v < 0.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rate_is_the_derivative_of_the_reference() {
        let r = JointReference { rest: 0.3, amplitude: 0.2, frequency: 5.0, phase: 0.7 };
        let (t, h) = (0.41, 1e-6);
        let fd = (r.at(t + h).0 - r.at(t - h).0) / (2.0 * h);
        assert!((fd - r.at(t).1).abs() < 1e-8, "{fd} {:?}", r.at(t));
        assert_eq!(JointReference::constant(0.3).at(t), (0.3, 0.0));
        assert_eq!(JointReference { frequency: 0.0, ..r }.at(t), (0.3, 0.0));
        assert_eq!(JointReference { frequency: -1.0, ..r }.invalid(), Some(("frequency", -1.0)));
        assert_eq!(JointReference { phase: f64::NAN, ..r }.invalid().map(|x| x.0), Some("phase"));
        assert_eq!(r.invalid(), None);
    }
}
