//! An independent desingularised slip for the tests (issue #41), sharing nothing with the
//! library's slip code: a one-angle system slipping at one contact (the rimless wheel, Painlevé's
//! rod), its `A`, `B` and accelerations written out by hand in each test, integrated in Génot and
//! Brogliato's rescaled time `dt = B ds` by classical fixed-step RK4 until `A` and `B` vanish
//! (the corner `p₁`). The angle and its rate do not depend on the slip speed, so the slip speed is
//! `u₀ + V(s)` and the slip reaches `p₁` still slipping exactly when `u₀ > −min V`: that is the
//! jam threshold.

/// `A`, `B` and the magnitudes of their terms at `(θ, θ̇)`.
pub type Ab<'a> = &'a dyn Fn(f64, f64) -> (f64, f64, f64, f64);

/// `B θ̈` and `B u̇` (`u` the slip speed) at `(θ, θ̇)`, from `A`, `B` there.
pub type Rates<'a> = &'a dyn Fn(f64, f64, f64, f64) -> (f64, f64);

/// The jam threshold from `(θ₀, θ̇₀)`: `−min V` along the rescaled slip to `p₁`. Panics if the
/// slip leaves `A, B > 0` or does not reach `p₁`.
pub fn jam_threshold_by_hand(ab: Ab, rates: Rates, th0: f64, om0: f64) -> f64 {
    let rhs = |y: [f64; 3]| {
        let (a, b, _, _) = ab(y[0], y[1]);
        let (om_s, u_s) = rates(y[0], y[1], a, b);
        [b * y[1], om_s, u_s]
    };
    let add = |y: [f64; 3], k: [f64; 3], h: f64| [y[0] + h * k[0], y[1] + h * k[1], y[2] + h * k[2]];
    let (mut y, h) = ([th0, om0, 0.0], 2e-4);
    let mut v_min = 0.0f64;
    for _ in 0..1_000_000 {
        let k1 = rhs(y);
        let k2 = rhs(add(y, k1, h / 2.0));
        let k3 = rhs(add(y, k2, h / 2.0));
        let k4 = rhs(add(y, k3, h));
        for i in 0..3 {
            y[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
        }
        v_min = v_min.min(y[2]);
        let (a, b, a_s, b_s) = ab(y[0], y[1]);
        assert!(a > 0.0 && b > 0.0, "the hand-made slip left the region A, B > 0 before p₁");
        if (a / a_s).max(b / b_s) < 1e-12 {
            return -v_min;
        }
    }
    panic!("the hand-made slip did not reach p₁");
}
