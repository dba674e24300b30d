//! The LCP core's reference problems: Murty's exponential family (Lemke needs `2ⁿ` pivots).

use nalgebra::{DMatrix, DVector};

use crate::lcp::Lcp;

/// Murty's exponential example of size `n` (Murty 1988, ch. 6; `lcp_exp_murty2.dat` for `n = 6`).
pub fn murty(n: usize) -> Lcp {
    let m = DMatrix::from_fn(n, n, |i, j| match i.cmp(&j) {
        std::cmp::Ordering::Equal => 1.0,
        std::cmp::Ordering::Less => 2.0,
        std::cmp::Ordering::Greater => 0.0,
    });
    let q = DVector::from_fn(n, |i, _| -(2f64.powi(n as i32 + 1) - 2f64.powi(i as i32 + 1)));
    Lcp { m, q }
}
