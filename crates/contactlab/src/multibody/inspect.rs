//! `contactlab model inspect`: a mechanism's dynamics at one state, as a user checks a new model
//! before analysing it. Everything printed is computed by the multibody algorithm (no
//! differences); the finite-difference check of [`check_system`] is reported beside it.

use nalgebra::{DMatrix, DVector};
use serde::Serialize;

use super::{Mechanism, MechanismSummary};
use crate::mechanics::check::check_system;
use crate::mechanics::multibody_system::MultibodySystem;
use crate::mechanics::ContactSystem;
use crate::Error;

/// One contact or joint limit at the state.
#[derive(Debug, Clone, Serialize)]
pub struct ContactAtState {
    /// Its name.
    pub name: String,
    /// Gap `g` (m, or rad for a limit on an angle); negative: penetrating.
    pub gap: f64,
    /// Tangential coordinate `x` (m).
    pub tangential: f64,
    /// `w_n = ∂g/∂q`.
    pub normal_jacobian: Vec<f64>,
    /// `w_t = ∂x/∂q`.
    pub tangent_jacobian: Vec<f64>,
    /// Normal velocity `ġ = w_nᵀ q̇`.
    pub normal_velocity: f64,
    /// Slip velocity `ẋ = w_tᵀ q̇`.
    pub slip_velocity: f64,
    /// `(ẇ_nᵀ q̇, ẇ_tᵀ q̇)`.
    pub jacobian_dot_v: [f64; 2],
    /// Friction coefficient (0 for limits).
    pub mu: f64,
    /// Coefficient of restitution.
    pub e: f64,
    /// Whether the contact can strike at this configuration (scuffing rule).
    pub armed: bool,
}

/// Energies at the state (J).
#[derive(Debug, Clone, Serialize)]
pub struct Energies {
    /// `½ q̇ᵀ M q̇`.
    pub kinetic: f64,
    /// Gravity and springs (`None` when a damper or a moving reference makes forces
    /// non-conservative).
    pub potential: Option<f64>,
    /// Their sum.
    pub total: Option<f64>,
}

/// What `contactlab model inspect --json` prints.
#[derive(Debug, Clone, Serialize)]
pub struct Inspection {
    /// The model's names.
    pub model: MechanismSummary,
    /// Time (s; matters for periodic references only).
    pub t: f64,
    /// `q`.
    pub q: Vec<f64>,
    /// `q̇`.
    pub v: Vec<f64>,
    /// `M(q)`, by rows.
    pub mass_matrix: Vec<Vec<f64>>,
    /// Smallest and largest eigenvalue of `M` (positive definite when the smallest is > 0).
    pub mass_matrix_eigenvalues: [f64; 2],
    /// Largest `|M_ij − M_ji|` (0 to round-off).
    pub mass_matrix_asymmetry: f64,
    /// `h(t, q, q̇)`: every generalised force but the contact forces.
    pub bias: Vec<f64>,
    /// The generalised gravity force.
    pub gravity_force: Vec<f64>,
    /// Springs, dampers and PD laws.
    pub joint_forces: Vec<f64>,
    /// Velocity-product (Coriolis and centrifugal) terms.
    pub velocity_products: Vec<f64>,
    /// Unconstrained accelerations `M⁻¹ h`.
    pub free_acceleration: Vec<f64>,
    /// Contacts and limits.
    pub contacts: Vec<ContactAtState>,
    /// Energies.
    pub energy: Energies,
    /// Disagreements between the computed Jacobians, `J̇q̇` and energy balance and finite
    /// differences of the same functions (empty: all agree).
    pub check: Vec<String>,
}

/// Inspects `m` at `(t, q, q̇)`.
pub fn inspect(m: &Mechanism, t: f64, q: &[f64], v: &[f64]) -> Result<Inspection, Error> {
    m.check_state("q", q)?;
    m.check_state("v", v)?;
    if !t.is_finite() {
        return Err(Error::argument("t", format!("must be finite (got {t})")));
    }
    Ok(At { m, t, q, v }.run(m.system()?))
}

struct At<'a> {
    m: &'a Mechanism,
    t: f64,
    q: &'a [f64],
    v: &'a [f64],
}

impl At<'_> {
    fn run(self, sys: MultibodySystem) -> Inspection {
        let n = sys.dof();
        let (t, m) = (self.t, self.m);
        let q = DVector::<f64>::from_column_slice(self.q);
        let v = DVector::<f64>::from_column_slice(self.v);
        let mass = sys.mass_matrix(&q);
        let tree = sys.multibody();
        let (_, h_tree) = tree.mass_and_bias(&tree.frames(self.q, self.v));
        let (_, h_static) = tree.mass_and_bias(&tree.frames(self.q, &vec![0.0; n]));
        let bias = sys.bias(t, &q, &v);
        let joint = bias.clone() - DVector::<f64>::from_column_slice(h_tree.as_slice());
        let eig = DMatrix::from_fn(n, n, |i, j| 0.5 * (mass[(i, j)] + mass[(j, i)])).symmetric_eigenvalues();
        let asym = (mass.clone() - mass.transpose()).amax();
        let dense = DMatrix::from_fn(n, n, |i, j| mass[(i, j)]);
        let free = dense.lu().solve(&bias).map_or_else(|| vec![f64::NAN; n], |a| a.iter().copied().collect());
        let contacts = (0..sys.contact_count())
            .map(|i| {
                let (wn, wt) = (sys.normal_jacobian(i, &q), sys.tangent_jacobian(i, &q));
                let (dn, dt) = sys.jacobian_dot_v(i, &q, &v);
                let law = sys.law(i);
                ContactAtState {
                    name: m.contact_names[i].clone(),
                    gap: sys.gap(i, &q),
                    tangential: sys.tangential(i, &q),
                    normal_jacobian: wn.iter().copied().collect(),
                    tangent_jacobian: wt.iter().copied().collect(),
                    normal_velocity: wn.dot(&v),
                    slip_velocity: wt.dot(&v),
                    jacobian_dot_v: [dn, dt],
                    mu: law.mu,
                    e: law.restitution,
                    armed: sys.armed(i, &q),
                }
            })
            .collect();
        let kinetic = sys.kinetic_energy(&q, &v);
        let potential = sys.potential(&q);
        let rows = |x: &DVector<f64>| x.iter().copied().collect::<Vec<f64>>();
        let velocity_products = DVector::<f64>::from_column_slice(h_tree.as_slice())
            - DVector::<f64>::from_column_slice(h_static.as_slice());
        Inspection {
            model: m.summary(),
            t,
            q: self.q.to_vec(),
            v: self.v.to_vec(),
            mass_matrix: (0..n).map(|i| (0..n).map(|j| mass[(i, j)]).collect()).collect(),
            mass_matrix_eigenvalues: [eig.min(), eig.max()],
            mass_matrix_asymmetry: asym,
            bias: rows(&bias),
            gravity_force: h_static.iter().copied().collect(),
            joint_forces: rows(&joint),
            velocity_products: rows(&velocity_products),
            free_acceleration: free,
            contacts,
            energy: Energies { kinetic, potential, total: potential.map(|p| p + kinetic) },
            check: check_system(&sys, t, &q, &v),
        }
    }
}
