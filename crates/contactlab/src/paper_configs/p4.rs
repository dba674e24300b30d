//! P4 (Pang & Trinkle): Example 1 (the disk on two fixels) and Example 2 (the block on an
//! incline), the numbers printed in the paper, and its closed-form conditions. The model files
//! `examples/fixture/disk-*.toml` hold the same disk (a test checks that they do).

use nalgebra::DVector;

use crate::fixture::{disk_example, Fixture, FrictionLaw, WrenchEnclosure};
use crate::interval::Interval;

const PI: f64 = std::f64::consts::PI;
/// θ₁, θ₂ of Example 1.
pub const THETA: (f64, f64) = (PI / 4.0, 2.5 * PI / 4.0);
/// The load of Proposition 5 printed in Example 1 (final analysis).
pub const PUBLISHED_LOAD: [f64; 3] = [0.4324728, -1.8466864, 0.9242900];
/// The vector b printed in Example 1 (final analysis).
pub const PUBLISHED_B: [f64; 4] = [1.0, 1.871616, 2.918752, 1.0];
/// The solution v printed for σ_t = (1, 1), γ = {1, 2, 3, 4}.
pub const PUBLISHED_V: [f64; 4] = [155.62764, 155.19384, 0.0, 467.6318];

/// Example 1's disk with `μ₁, μ₂` and a load, in this library's (and P4's printed) convention.
pub fn disk(mu1: f64, mu2: f64, load: [f64; 3]) -> Fixture {
    disk_example(1.0, 2f64.sqrt(), THETA.0, THETA.1, [mu1, mu2], load)
}

/// The same disk with the moment sign flipped (`W_t` moment row `+R`), the convention of P4's numbers.
pub fn disk_flipped(mu1: f64, mu2: f64, load: [f64; 3]) -> Fixture {
    let mut f = disk(mu1, mu2, load);
    f.wt.row_mut(2).neg_mut();
    f
}

/// `r = sin(θ₂ − θ₁)`, `s = cos(θ₂ − θ₁)` read off the computed matrix `A` (entries `A_{n2,t1}`, `A_{n1,n2}`).
pub fn r_s() -> (f64, f64) {
    let a = disk(0.0, 0.0, [0.0; 3]).a_matrix();
    (a[(1, 2)], a[(0, 1)])
}

/// Example 2's block on an incline of angle θ, matrices as printed in P4.
pub fn incline(theta: f64, mu1: f64, mu2: f64, load: [f64; 3]) -> Fixture {
    let (s, c) = theta.sin_cos();
    // The same in intervals, θ as Interval::angle (its degree value if it has one).
    let (si, ci, one) = (Interval::angle(theta).sin(), Interval::angle(theta).cos(), Interval::exact(1.0));
    Fixture {
        mass_matrix: nalgebra::DMatrix::identity(3, 3),
        wn: nalgebra::DMatrix::from_row_slice(3, 2, &[-s, -s, c, c, 1.0, -1.0]),
        wt: nalgebra::DMatrix::from_row_slice(3, 2, &[-c, -c, -s, -s, -1.0, -1.0]),
        wo: None,
        mu: DVector::from_vec(vec![mu1, mu2]),
        load: DVector::from_row_slice(&load),
        friction: FrictionLaw::Coulomb,
        enclosure: Some(WrenchEnclosure {
            wn: nalgebra::DMatrix::from_row_slice(3, 2, &[-si, -si, ci, ci, one, -one]),
            wt: nalgebra::DMatrix::from_row_slice(3, 2, &[-ci, -ci, -si, -si, -one, -one]),
            wo: None,
        }),
    }
}

/// Conditions (17)–(20) of Example 2, as printed.
pub fn incline_closed_form(theta: f64, mu1: f64, mu2: f64, g: [f64; 3]) -> bool {
    let (s, c) = theta.sin_cos();
    let [g1, g2, g3] = g;
    let e17 = g1 * (s + c) + g2 * (s - c) - g3;
    let e18 = g1 * (s - c) - g2 * (s + c) + g3;
    let e19 = g1 * ((mu1 + mu2) * s + (mu1 - mu2 - 2.0) * c)
        + g2 * ((mu1 - mu2 - 2.0) * s - (mu1 + mu2) * c)
        + (mu2 - mu1) * g3;
    let e20 = g1 * ((mu1 + mu2) * s + (mu1 - mu2 + 2.0) * c)
        + g2 * ((mu1 - mu2 + 2.0) * s - (mu1 + mu2) * c)
        + (mu2 - mu1) * g3;
    e17 >= 0.0 && e18 >= 0.0 && e19 >= 0.0 && e20 >= 0.0
}

/// Case 2 of Example 1 (δ₁ > 0 > δ₂): weak stability from the bounds on `c_2t` implied by
/// inequalities (12)–(15) as printed (which follow from eq. 11).
pub fn case2_from_12_15(mu1: f64, mu2: f64, g: [f64; 3]) -> bool {
    let (r, s) = r_s();
    let (t1, t2) = THETA;
    let rr = 2f64.sqrt();
    let [g1, g2, g3] = g;
    let x12 = -mu1 * g1 * t2.sin() + mu1 * g2 * t2.cos() + (r - mu1 * s) * g3 / rr;
    let x13 = -mu1 * g1 * t2.sin() + mu1 * g2 * t2.cos() - (r + mu1 * s) * g3 / rr;
    let y = -mu2 * g1 * t1.sin() + mu2 * g2 * t1.cos() - mu2 * g3 / rr;
    let d1 = -r + mu1 * (1.0 - s);
    let lower = (x12 / (r + mu1 * (1.0 - s))).max(x13 / d1).max(-y / (r + mu2 * (1.0 - s)));
    let upper = y / (r - mu2 * (1.0 - s));
    lower <= upper
}

/// Case 2 of Example 1 exactly as printed (the max/min formula).
pub fn case2_printed(mu1: f64, mu2: f64, g: [f64; 3]) -> bool {
    let (r, s) = r_s();
    let (t1, t2) = THETA;
    let rr = 2f64.sqrt();
    let [g1, g2, g3] = g;
    let x = -mu1 * g1 * t2.sin() + mu1 * g2 * t2.cos() + (r - mu1 * s) * g3 / rr;
    let y = mu2 * g1 * t1.sin() - mu2 * g2 * t1.cos() + mu2 * g3 / rr;
    let lhs = (x / (-r + mu1 * (1.0 - s))).max(x / (r + mu1 * (1.0 - s)));
    let rhs = (y / (r - mu2 * (1.0 - s))).min(y / (r + mu2 * (1.0 - s)));
    lhs <= rhs
}

/// Deterministic well-spread unit loads on the sphere (Fibonacci lattice).
pub fn sphere_loads(n: usize) -> Vec<[f64; 3]> {
    let golden = PI * (3.0 - 5f64.sqrt());
    (0..n)
        .map(|i| {
            let z = 1.0 - 2.0 * (i as f64 + 0.5) / n as f64;
            let rad = (1.0 - z * z).sqrt();
            let phi = golden * i as f64;
            [rad * phi.cos(), rad * phi.sin(), z]
        })
        .collect()
}
