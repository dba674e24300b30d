//! P5's rod on two frictional sliders from Rust: its equilibrium sets, what Theorems 1 and 2
//! say about each, and one time-stepping run that comes to rest in E1.
//!
//! Run with `cargo run --release -p contactlab --example rod_equilibrium_sets`.

use contactlab::eqset::{analyze, EqsetSettings};
use contactlab::mechanics::sliders::{RodTwoSliders, SliderSystem};
use contactlab::timestep::bilateral;
use nalgebra::Vector1;

fn main() -> Result<(), contactlab::Error> {
    let rod = RodTwoSliders { mu1: 0.2, mu2: 0.4, ..RodTwoSliders::paper() };
    let a = analyze(&rod, &EqsetSettings::for_system(&rod))?;
    for (k, s) in a.sets.iter().enumerate() {
        println!("E{}: θ ∈ [{:.4}, {:.4}] rad — {}", k + 1, s.lo, s.hi, s.theorem);
    }
    println!("c* = {:?} (closed form θ̂ = {:?})", a.c_star, rod.theta_hat());
    // Released from 100° at rest, the rod swings down and sticks inside E1.
    let h = rod.time_scale() / 400.0;
    let end = bilateral::settle(&rod, &Vector1::new(100f64.to_radians()), &Vector1::new(0.0), h, 100_000)?;
    println!("comes to rest at θ = {:.4} rad after {:.3} s", end.q[0], end.steps as f64 * h);
    assert!(end.at_rest && a.sets[0].lo <= end.q[0] && end.q[0] <= a.sets[0].hi);
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn runs() {
        super::main().unwrap();
    }
}
