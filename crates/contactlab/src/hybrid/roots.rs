//! Bracketing root finding for event location on dense output.

/// Locates a zero of `f` on `[a, b]` where `f(a) > 0 ≥ f(b)` by the Illinois variant of regula
/// falsi, until the bracket is shorter than `tol` (or `f` vanishes exactly). Returns the secant
/// estimate of the final bracket (inside it, so within `tol` of the zero; with the superlinear
/// convergence of the method usually far closer). At most 200 evaluations.
pub fn crossing(mut f: impl FnMut(f64) -> f64, mut a: f64, mut fa: f64, mut b: f64, mut fb: f64, tol: f64) -> f64 {
    debug_assert!(fa > 0.0 && fb <= 0.0);
    if fb == 0.0 && b - a <= tol {
        return b;
    }
    let mut side = 0i32;
    for _ in 0..200 {
        if b - a <= tol || fb == 0.0 {
            break;
        }
        // Secant point, kept strictly inside the bracket (and off its ends by a little, so the
        // bracket shrinks even when one end stalls).
        let mut c = (fa * b - fb * a) / (fa - fb);
        let margin = 0.25 * tol;
        if !c.is_finite() || c <= a + margin || c >= b - margin {
            c = 0.5 * (a + b);
        }
        let fc = f(c);
        if fc > 0.0 {
            a = c;
            fa = fc;
            if side == 1 {
                fb *= 0.5;
            }
            side = 1;
        } else {
            b = c;
            fb = fc;
            if side == -1 {
                fa *= 0.5;
            }
            side = -1;
        }
    }
    if fb == 0.0 {
        return b;
    }
    let c = (fa * b - fb * a) / (fa - fb);
    if c.is_finite() {
        c.clamp(a, b)
    } else {
        b
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_crossings_to_tolerance() {
        let f = |t: f64| 1.0 - t * t; // zero at 1
        let r = crossing(f, 0.0, 1.0, 3.0, -8.0, 1e-13);
        assert!((r - 1.0).abs() <= 1e-13, "{r}");
        let g = |t: f64| -(t - 0.3).powi(3); // flat zero
        let r = crossing(g, 0.0, g(0.0), 1.0, g(1.0), 1e-12);
        assert!((r - 0.3).abs() <= 1e-9, "{r}");
        let h = |t: f64| if t < 0.7 { 1.0 } else { -1.0 }; // discontinuous
        let r = crossing(h, 0.0, 1.0, 1.0, -1.0, 1e-12);
        assert!((r - 0.7).abs() <= 1e-12);
    }
}
