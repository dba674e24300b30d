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

use nalgebra::{SMatrix, SVector};

use super::ContactSystem;

/// Derivatives of one contact's kinematics (module docs). Column `k` of a matrix is the
/// derivative with respect to `q_k`.
#[derive(Debug, Clone, PartialEq)]
pub struct ContactLinearization<const N: usize> {
    /// `∂w_n/∂q`.
    pub dwn_dq: SMatrix<f64, N, N>,
    /// `∂w_t/∂q`.
    pub dwt_dq: SMatrix<f64, N, N>,
    /// `∂(ẇ_nᵀq̇)/∂q`.
    pub dn_dq: SVector<f64, N>,
    /// `∂(ẇ_nᵀq̇)/∂q̇`.
    pub dn_dv: SVector<f64, N>,
    /// `∂(ẇ_tᵀq̇)/∂q`.
    pub dt_dq: SVector<f64, N>,
    /// `∂(ẇ_tᵀq̇)/∂q̇`.
    pub dt_dv: SVector<f64, N>,
}

impl<const N: usize> ContactLinearization<N> {
    /// A contact whose Jacobians are constant (a joint limit).
    pub fn constant() -> Self {
        Self {
            dwn_dq: SMatrix::zeros(),
            dwt_dq: SMatrix::zeros(),
            dn_dq: SVector::zeros(),
            dn_dv: SVector::zeros(),
            dt_dq: SVector::zeros(),
            dt_dv: SVector::zeros(),
        }
    }
}

/// Derivatives of `M`, `h` and the contact kinematics at one state (module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct Linearization<const N: usize> {
    /// `∂M/∂q_k`, `k = 0 … N − 1`.
    pub dm_dq: Vec<SMatrix<f64, N, N>>,
    /// `∂h/∂q` (column `k`: `∂h/∂q_k`).
    pub dh_dq: SMatrix<f64, N, N>,
    /// `∂h/∂q̇`.
    pub dh_dv: SMatrix<f64, N, N>,
    /// Per contact.
    pub contacts: Vec<ContactLinearization<N>>,
}

impl<const N: usize> Linearization<N> {
    /// `(∂M/∂q · δq)`: the derivative of `M` along `δq`.
    pub fn dm_along(&self, dq: &SVector<f64, N>) -> SMatrix<f64, N, N> {
        self.dm_dq.iter().zip(dq.iter()).fold(SMatrix::zeros(), |a, (m, &d)| a + m * d)
    }
}

/// The largest disagreement between `sys.linearization(t, q, v)` and central differences of the
/// system's own `M`, `h`, Jacobians and velocity products (step `step` times each coordinate's
/// scale), each relative to `1 +` the size of the derivative compared; `None` when the system
/// has no linearization.
pub fn check_linearization<S: ContactSystem<N>, const N: usize>(
    sys: &S,
    t: f64,
    q: &SVector<f64, N>,
    v: &SVector<f64, N>,
    step: f64,
) -> Option<f64> {
    let lin = sys.linearization(t, q, v)?;
    let sc = sys.coordinate_scale();
    let ts = sys.time_scale();
    let mut worst = 0.0f64;
    let mut cmp = |got: f64, want: f64| {
        worst = worst.max((got - want).abs() / (1.0 + want.abs()));
    };
    for k in 0..N {
        for vel in [false, true] {
            let h = step * if vel { sc[k] / ts } else { sc[k] };
            let (mut qp, mut qm, mut vp, mut vm) = (*q, *q, *v, *v);
            if vel {
                vp[k] += h;
                vm[k] -= h;
            } else {
                qp[k] += h;
                qm[k] -= h;
            }
            let d = |a: f64, b: f64| (a - b) / (2.0 * h);
            let (hp, hm) = (sys.bias(t, &qp, &vp), sys.bias(t, &qm, &vm));
            for r in 0..N {
                let got = if vel { lin.dh_dv[(r, k)] } else { lin.dh_dq[(r, k)] };
                cmp(got, d(hp[r], hm[r]));
            }
            if !vel {
                let (mp, mm) = (sys.mass_matrix(&qp), sys.mass_matrix(&qm));
                for r in 0..N {
                    for c in 0..N {
                        cmp(lin.dm_dq[k][(r, c)], d(mp[(r, c)], mm[(r, c)]));
                    }
                }
            }
            for (i, cl) in lin.contacts.iter().enumerate() {
                if !vel {
                    let (np, nm) = (sys.normal_jacobian(i, &qp), sys.normal_jacobian(i, &qm));
                    let (tp, tm) = (sys.tangent_jacobian(i, &qp), sys.tangent_jacobian(i, &qm));
                    for r in 0..N {
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
