//! `kind = "double-pendulum-stop"` and `kind = "bouncing-ball"` model files (schema in
//! `docs/models.md`).

use std::path::Path;

use nalgebra::{dvector, DVector};

use crate::mechanics::closed_form::Oscillator;
use crate::mechanics::double_pendulum::{DoublePendulumStop, HipControl};
use crate::model::{ModelDoc, Range};
use crate::Error;

/// A hybrid Lagrangian of P3 with its initial state.
#[derive(Debug, Clone)]
pub enum ZenoModel {
    /// P3's double pendulum with a knee stop; `q₀ = (θ₁, θ₂)`, `q̇₀`.
    DoublePendulum {
        /// The system.
        system: DoublePendulumStop,
        /// Initial configuration.
        q0: DVector<f64>,
        /// Initial velocity.
        v0: DVector<f64>,
    },
    /// A ball dropped on a floor: Zeno time in closed form.
    BouncingBall {
        /// The system (height `x ≥ 0`).
        system: Oscillator,
        /// Initial height.
        q0: DVector<f64>,
        /// Initial velocity (upward positive).
        v0: DVector<f64>,
    },
}

impl ZenoModel {
    /// The coefficient of restitution.
    pub fn e(&self) -> f64 {
        match self {
            ZenoModel::DoublePendulum { system, .. } => system.e,
            ZenoModel::BouncingBall { system, .. } => system.restitution,
        }
    }

    /// The same model with the coefficient of restitution `e` (P3's name, and the model files'
    /// key) in `[0, 1]`: the one setter of `e` for the front ends (an [`Error::Argument`] names
    /// it when out of range).
    pub fn with_e(&self, e: f64) -> Result<Self, Error> {
        if !(0.0..=1.0).contains(&e) {
            return Err(Error::argument("e", format!("must be a number in [0, 1] (got {e})")));
        }
        let mut m = self.clone();
        match &mut m {
            ZenoModel::DoublePendulum { system, .. } => system.e = e,
            ZenoModel::BouncingBall { system, .. } => system.restitution = e,
        }
        Ok(m)
    }
}

/// Reads a model from a parsed document.
pub fn from_model(doc: &ModelDoc) -> Result<ZenoModel, Error> {
    let kind = doc.kind()?;
    let f = doc.fields();
    let _ = f.str_opt("name")?;
    let _ = f.str_opt("description")?;
    let model = match kind {
        "double-pendulum-stop" => {
            let control = if f.has("control") {
                let c = f.table("control")?;
                let law = HipControl {
                    k1: c.f64("k1", Range::Any)?,
                    theta1e: c.angle("theta1e", Range::Any)?,
                    c1: c.f64("c1", Range::Any)?,
                };
                c.finish()?;
                Some(law)
            } else {
                None
            };
            let system = DoublePendulumStop {
                m1: f.f64("m1", Range::Positive)?,
                m2: f.f64("m2", Range::Positive)?,
                l1: f.f64("L1", Range::Positive)?,
                l2: f.f64("L2", Range::Positive)?,
                gravity: f.f64("gravity", Range::Positive)?,
                e: f.f64("e", Range::Closed(0.0, 1.0))?,
                control,
            };
            let (q0, v0) = if f.has("initial") {
                let i = f.table("initial")?;
                let theta2 =
                    if i.has("theta2") || i.has("theta2_deg") { i.angle("theta2", Range::NonNegative)? } else { 0.0 };
                let q0 = dvector!(i.angle("theta1", Range::Any)?, theta2);
                let v0 = dvector!(i.f64_or("theta1_dot", 0.0, Range::Any)?, i.f64_or("theta2_dot", 0.0, Range::Any)?);
                i.finish()?;
                (q0, v0)
            } else {
                (DVector::zeros(2), DVector::zeros(2))
            };
            ZenoModel::DoublePendulum { system, q0, v0 }
        }
        "bouncing-ball" => {
            let mass = f.f64_or("mass", 1.0, Range::Positive)?;
            let gravity = f.f64("gravity", Range::Positive)?;
            let e = f.f64("e", Range::Closed(0.0, 1.0))?;
            let height = f.f64("height", Range::Positive)?;
            let velocity = f.f64_or("velocity", 0.0, Range::Any)?;
            let system = Oscillator::bouncing_ball(mass, gravity, e, height);
            ZenoModel::BouncingBall { system, q0: dvector![height], v0: dvector![velocity] }
        }
        other => {
            return Err(Error::input(
                &doc.file,
                "kind",
                format!("expected \"double-pendulum-stop\" or \"bouncing-ball\", got \"{other}\""),
            ))
        }
    };
    f.finish()?;
    Ok(model)
}

/// Reads a model file.
pub fn read(path: &Path) -> Result<ZenoModel, Error> {
    from_model(&ModelDoc::read(path)?)
}

/// P3's double pendulum as a multibody [`Mechanism`](crate::multibody::Mechanism), built from its
/// parameters in the layout of `examples/multibody/p3-double-pendulum-pd-e0.5.toml`: bodies
/// `thigh` (`θ₁`, from the downward vertical) and `shank` (`θ₂`, relative to the thigh), uniform
/// links, the knee stop `θ₂ ≥ 0` as the joint limit `knee stop`, and the hip's PD law as a
/// spring on `thigh`. Coordinates and signs are the hand-written model's, so states carry over
/// unchanged; the general engine gives it exact derivatives (the hand-written model has none).
pub fn pendulum_mechanism(p: &DoublePendulumStop) -> Result<crate::multibody::Mechanism, Error> {
    use crate::mechanics::multibody::Joint;
    use crate::multibody::builder::{Inertial, JointReference, LimitBound, MechanismBuilder, Spring};
    use nalgebra::Vector2;
    let link = |m: f64, l: f64| Inertial { mass: m, inertia: m * l * l / 12.0, com: Vector2::new(0.0, -0.5 * l) };
    let mut b = MechanismBuilder::new("<double pendulum with a stop>", p.gravity, 0.0)
        .name("double-pendulum-stop")
        .body("thigh", None, Joint::Revolute { axis: 1.0 }, link(p.m1, p.l1))
        .body("shank", Some("thigh"), Joint::Revolute { axis: 1.0 }, link(p.m2, p.l2))
        .joint_origin(Vector2::new(0.0, -p.l1), 0.0)
        .limit("knee stop", "shank", LimitBound::Lower(0.0), p.e);
    if let Some(c) = p.control {
        b = b
            .spring("thigh", Spring { stiffness: c.k1, damping: c.c1, reference: JointReference::constant(c.theta1e) });
    }
    b.build()
}

/// The system of [`pendulum_mechanism`]: what the orbit search and the continuation run on.
pub fn pendulum_system(p: &DoublePendulumStop) -> Result<crate::mechanics::multibody_system::MultibodySystem, Error> {
    pendulum_mechanism(p)?.system()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<ZenoModel, Error> {
        from_model(&ModelDoc::parse("m.toml", s, false).unwrap())
    }

    #[test]
    fn reads_the_pendulum_with_control_and_initial_state() {
        let m = parse(
            "kind = \"double-pendulum-stop\"\nm1 = 1\nm2 = 1\nL1 = 1\nL2 = 1\ngravity = 1\ne = 0.5\n\
             [control]\nk1 = 0.5\ntheta1e_deg = 20\nc1 = -0.01\n[initial]\ntheta1 = -0.08\n",
        )
        .unwrap();
        let ZenoModel::DoublePendulum { system, q0, .. } = m else { panic!() };
        assert_eq!(system, DoublePendulumStop::paper_controlled(0.5));
        assert_eq!(q0, dvector!(-0.08, 0.0));
    }

    #[test]
    fn rejects_bad_values_naming_the_key() {
        let base = "kind = \"double-pendulum-stop\"\nm1 = 1\nm2 = 1\nL1 = 1\nL2 = 1\ngravity = 1\n";
        let e = parse(&format!("{base}e = 1.5\n")).unwrap_err().to_string();
        assert!(e.contains("m.toml") && e.contains("e") && e.contains("[0, 1]"), "{e}");
        let e = parse(&format!("{base}e = 0\n[initial]\ntheta1 = 0.1\ntheta2 = -0.1\n")).unwrap_err().to_string();
        assert!(e.contains("initial.theta2"), "{e}");
        let e = parse(&format!("{base}e = 0\nk1 = 0.5\n")).unwrap_err().to_string();
        assert!(e.contains("unknown key"), "{e}");
        let e = parse("kind = \"bouncing-ball\"\ngravity = 9.81\ne = 0.5\nheight = -1\n").unwrap_err().to_string();
        assert!(e.contains("height"), "{e}");
    }

    /// The multibody pendulum is the hand-written one: the same M, h (gravity, Coriolis, the PD
    /// law), gap and Jacobian at assorted states, for P3's parameters and for others.
    #[test]
    fn the_multibody_pendulum_is_the_hand_written_one() {
        use crate::mechanics::ContactSystem;
        let other = DoublePendulumStop {
            m1: 2.0,
            m2: 0.7,
            l1: 0.9,
            l2: 0.6,
            gravity: 9.81,
            e: 0.3,
            control: Some(HipControl { k1: 3.0, theta1e: -0.2, c1: 0.4 }),
        };
        for p in [DoublePendulumStop::paper(0.5), DoublePendulumStop::paper_controlled(0.0), other] {
            let mb = super::pendulum_system(&p).unwrap();
            assert_eq!((mb.dof(), mb.contact_count()), (2, 1));
            assert_eq!(mb.law(0).restitution, p.e);
            for (q, v) in [([0.3, 0.0], [0.0, 0.0]), ([-1.1, 0.7], [2.0, -3.0]), ([2.5, 1.9], [-0.4, 5.0])] {
                let (q, v) = (dvector![q[0], q[1]], dvector![v[0], v[1]]);
                let (m0, m1) = (p.mass_matrix(&q), mb.mass_matrix(&q));
                let (h0, h1) = (p.bias(0.0, &q, &v), mb.bias(0.0, &q, &v));
                assert!((&m0 - &m1).amax() <= 1e-13 * m0.amax(), "{p:?} {q} M: {m0} {m1}");
                assert!((&h0 - &h1).amax() <= 1e-12 * h0.amax().max(1.0), "{p:?} {q} {v} h: {h0} {h1}");
                assert!((p.gap(0, &q) - mb.gap(0, &q)).abs() <= 1e-15);
                assert_eq!(p.normal_jacobian(0, &q), mb.normal_jacobian(0, &q));
            }
        }
    }
}
