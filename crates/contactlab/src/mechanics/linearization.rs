//! Exact first derivatives of a [`ContactSystem`]'s building blocks at a state: what the
//! variational equations and the jump matrices of [`crate::hybrid::variational`] are made of.
//!
//! At `(q, q̇)` a [`Linearization`] holds `∂M/∂q_k`, `∂h/∂q`, `∂h/∂q̇` and, per contact,
//! `∂w_n/∂q`, `∂w_t/∂q` and the gradients of the velocity products `ẇ_nᵀq̇`, `ẇ_tᵀq̇`. A system
//! supplies them through [`ContactSystem::linearization`]: [`super::multibody_system::MultibodySystem`]
//! (every user model, URDF, and the papers' systems written as multibody files) computes them by
//! forward-mode automatic differentiation of its recursive algorithm
//! ([`super::multibody_ad`]); a system without them keeps the default (`None`) and its return maps
//! fall back on differences. [`check_linearization`] compares a system's derivatives with central
//! differences of its own functions (tests).

use nalgebra::{DMatrix, DVector};

use super::ContactSystem;

/// Derivatives of one contact's kinematics (module docs). Column `k` of a matrix is the
/// derivative with respect to `q_k`.
#[derive(Debug, Clone, PartialEq)]
pub struct ContactLinearization {
    /// `∂w_n/∂q`.
    pub dwn_dq: DMatrix<f64>,
    /// `∂w_t/∂q`.
    pub dwt_dq: DMatrix<f64>,
    /// `∂(ẇ_nᵀq̇)/∂q`.
    pub dn_dq: DVector<f64>,
    /// `∂(ẇ_nᵀq̇)/∂q̇`.
    pub dn_dv: DVector<f64>,
    /// `∂(ẇ_tᵀq̇)/∂q`.
    pub dt_dq: DVector<f64>,
    /// `∂(ẇ_tᵀq̇)/∂q̇`.
    pub dt_dv: DVector<f64>,
}

impl ContactLinearization {
    /// A contact whose Jacobians are constant (a joint limit).
    pub fn constant(n: usize) -> Self {
        Self {
            dwn_dq: DMatrix::zeros(n, n),
            dwt_dq: DMatrix::zeros(n, n),
            dn_dq: DVector::zeros(n),
            dn_dv: DVector::zeros(n),
            dt_dq: DVector::zeros(n),
            dt_dv: DVector::zeros(n),
        }
    }
}

/// Derivatives of `M`, `h` and the contact kinematics at one state (module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct Linearization {
    /// `∂M/∂q_k`, `k = 0 … n − 1`.
    pub dm_dq: Vec<DMatrix<f64>>,
    /// `∂h/∂q` (column `k`: `∂h/∂q_k`).
    pub dh_dq: DMatrix<f64>,
    /// `∂h/∂q̇`.
    pub dh_dv: DMatrix<f64>,
    /// Per contact.
    pub contacts: Vec<ContactLinearization>,
}

impl Linearization {
    /// `(∂M/∂q · δq)`: the derivative of `M` along `δq`.
    pub fn dm_along(&self, dq: &DVector<f64>) -> DMatrix<f64> {
        self.dm_dq.iter().zip(dq.iter()).fold(DMatrix::zeros(dq.len(), dq.len()), |a, (m, &d)| a + m * d)
    }
}

/// The largest disagreement between `sys.linearization(t, q, v)` and central differences of the
/// system's own `M`, `h`, Jacobians and velocity products (step `step` times each coordinate's
/// scale), each relative to `1 +` the size of the derivative compared; `None` when the system
/// has no linearization.
pub fn check_linearization<S: ContactSystem>(
    sys: &S,
    t: f64,
    q: &DVector<f64>,
    v: &DVector<f64>,
    step: f64,
) -> Option<f64> {
    let lin = sys.linearization(t, q, v)?;
    let sc = sys.coordinate_scale();
    let ts = sys.time_scale();
    let mut worst = 0.0f64;
    let mut cmp = |got: f64, want: f64| {
        worst = worst.max((got - want).abs() / (1.0 + want.abs()));
    };
    let n = q.len();
    for k in 0..n {
        for vel in [false, true] {
            let h = step * if vel { sc[k] / ts } else { sc[k] };
            let (mut qp, mut qm, mut vp, mut vm) = (q.clone(), q.clone(), v.clone(), v.clone());
            if vel {
                vp[k] += h;
                vm[k] -= h;
            } else {
                qp[k] += h;
                qm[k] -= h;
            }
            let d = |a: f64, b: f64| (a - b) / (2.0 * h);
            let (hp, hm) = (sys.bias(t, &qp, &vp), sys.bias(t, &qm, &vm));
            for r in 0..n {
                let got = if vel { lin.dh_dv[(r, k)] } else { lin.dh_dq[(r, k)] };
                cmp(got, d(hp[r], hm[r]));
            }
            if !vel {
                let (mp, mm) = (sys.mass_matrix(&qp), sys.mass_matrix(&qm));
                for r in 0..n {
                    for c in 0..n {
                        cmp(lin.dm_dq[k][(r, c)], d(mp[(r, c)], mm[(r, c)]));
                    }
                }
            }
            for (i, cl) in lin.contacts.iter().enumerate() {
                if !vel {
                    let (np, nm) = (sys.normal_jacobian(i, &qp), sys.normal_jacobian(i, &qm));
                    let (tp, tm) = (sys.tangent_jacobian(i, &qp), sys.tangent_jacobian(i, &qm));
                    for r in 0..n {
                        cmp(cl.dwn_dq[(r, k)], d(np[r], nm[r]));
                        cmp(cl.dwt_dq[(r, k)], d(tp[r], tm[r]));
                    }
                }
                let (dp, dm) = (sys.jacobian_dot_v(i, &qp, &vp), sys.jacobian_dot_v(i, &qm, &vm));
                let (gn, gt) = if vel { (cl.dn_dv[k], cl.dt_dv[k]) } else { (cl.dn_dq[k], cl.dt_dq[k]) };
                cmp(gn, d(dp.0, dm.0));
                cmp(gt, d(dp.1, dm.1));
            }
        }
    }
    Some(worst)
}
