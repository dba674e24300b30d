//! Build a planar body on two frictional contacts in code, classify its equilibrium by P1's
//! theorems, and scan the centre of mass downhill until the verdict changes.
//!
//! Run with `cargo run --release -p contactlab --example body_on_two_contacts`.

use contactlab::twocontact::classify::{classify, Verdict};
use contactlab::twocontact::TwoContact;

fn main() -> Result<(), contactlab::Error> {
    // A biped-like body on a 25° slope (lengths in metres): contact points 60 mm apart, the
    // centre of mass 134 mm above them; friction 0.315 at the rear foot, 1.0 at the front.
    let body = TwoContact {
        mass: 0.6,
        rho: 0.14,
        h: 0.134,
        l1: 0.03,
        l2: 0.09,
        phi1: 0.0,
        phi2: 0.0,
        mu1: 0.315,
        mu2: 1.0,
        force: 0.6 * 9.81,
        alpha: 25f64.to_radians(),
        torque: 0.0,
        enclosure: None,
    };
    let c = classify(&body, 401)?;
    println!("as built: {} ({}): {}", c.verdict, c.theorem, c.evidence);
    // Move the centre of mass downhill in 2 mm steps (the contacts stay where they are).
    let mut previous = c.verdict;
    for k in 1..=10 {
        let dx = 0.002 * k as f64;
        let moved = TwoContact { l1: body.l1 - dx, l2: body.l2 - dx, ..body };
        let v = classify(&moved, 401)?.verdict;
        if v != previous {
            println!("{dx:.3} m downhill: {previous} -> {v}");
            previous = v;
        }
    }
    assert_ne!(previous, Verdict::Invalid);
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn runs() {
        super::main().unwrap();
    }
}
