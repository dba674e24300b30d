//! Exact derivatives of the flow, the guards and the impacts of a [`Lagrangian`] system, for the
//! variational equations and saltation matrices of [`crate::hybrid::variational`].
//!
//! Everything here is the derivative of a constrained solve with its pattern fixed (the mode, or
//! the impulse-level outcome of an impact). Both have the form
//!
//! ```text
//!   M y = b + Σ_j c_j λ_j,      r_jᵀ y = γ_j,
//! ```
//!
//! with `y = q̈`, `b = h`, `γ_j = −ẇ_jᵀq̇` for a mode (columns `c_j`: `w_n`, `w_t` when sticking,
//! `w_n − sμ w_t` when slipping; rows `w_n`, and `w_t` when sticking), and `y = q̇⁺`, `b = M q̇⁻`,
//! `γ_j = −e w_nᵀq̇⁻` (or `0` for a sticking row) for an impact. Along a direction `δ` of the
//! state (`δq`, `δq̇`), with `δM`, `δb`, `δc_j`, `δr_j`, `δγ_j` from the system's
//! [`Linearization`](crate::mechanics::linearization::Linearization):
//!
//! ```text
//!   δy₀ = M⁻¹ (δb − δM y + Σ_j δc_j λ_j),
//!   (R M⁻¹ C) δλ = δγ − δR y − R δy₀,         δy = δy₀ + M⁻¹ C δλ,
//! ```
//!
//! the same small matrix `R M⁻¹ C` as the solve itself. The flow's Jacobian is then
//! `Df = [[0, I], [∂q̈/∂q, ∂q̈/∂q̇]]`, the gradients of the force guards are `δλ`, and the impact's
//! jump matrix `DΔ = [[I, 0], [∂q̇⁺/∂q, ∂q̇⁺/∂q̇⁻]]`, followed by the relabelling's `diag(P, P)`.
//! Redundant constraints (a singular `R M⁻¹ C`), non-autonomous systems (the guards would need
//! `∂/∂t` terms), impacts whose outcome is not smooth in the state (a restitution lowered against
//! an energy gain, the LCP route above the enumeration limit) and Zeno points give `None`: the
//! return map then uses differences.

use nalgebra::{DMatrix, DVector};

use super::modes::ContactMode;
use super::{split, Lagrangian, State};
use crate::hybrid::driver::EventRecord;
use crate::hybrid::EventKind;
use crate::mechanics::linearization::Linearization;
use crate::mechanics::ContactSystem;

use super::modes::Modes;

/// One unknown multiplier of a constrained solve: its column and row, as which contact
/// quantity (`tangential` row), and the slip coefficient of its column (`c = w_n + coef·w_t`).
#[derive(Debug, Clone, Copy)]
struct Unknown {
    contact: usize,
    tangential: bool,
    coef: f64,
}

/// The unknowns of the closed contacts of `pattern` (`(contact, mode)`).
fn unknowns(pattern: impl IntoIterator<Item = (usize, ContactMode)>, mu: impl Fn(usize) -> f64) -> Vec<Unknown> {
    let mut out = vec![];
    for (i, cm) in pattern {
        match cm {
            ContactMode::Free => {}
            ContactMode::Stick => {
                out.push(Unknown { contact: i, tangential: false, coef: 0.0 });
                out.push(Unknown { contact: i, tangential: true, coef: 0.0 });
            }
            ContactMode::Slip(s) => out.push(Unknown { contact: i, tangential: false, coef: -(s as f64) * mu(i) }),
        }
    }
    out
}

/// The derivatives of a constrained solve along the `2N` directions `(δq_k, δq̇_k)`.
pub(crate) struct SolveTangent {
    /// `∂y/∂(q, q̇)`, `N × 2N`.
    pub(crate) dy: DMatrix<f64>,
    /// `∂λ_j/∂(q, q̇)`, one row per unknown.
    pub(crate) dlambda: DMatrix<f64>,
}

/// What the direction `d` (`< N`: `q_d`, else `q̇_{d−N}`) changes in a solve's data: returns
/// `δb − δM y` and writes `δγ_j` into the slice (one entry per unknown).
type DirectionData<'a> = &'a dyn Fn(usize, &mut [f64]) -> DVector<f64>;

impl<S: ContactSystem> Lagrangian<S> {
    /// The linearized constrained solve (module docs) with unknowns `unk` at `q`, solution `y`
    /// and multipliers `lambda`; `data(d, δγ)` gives `δb − δM y` along direction `d` and fills `δγ`.
    fn solve_tangent(
        &self,
        q: &DVector<f64>,
        lin: &Linearization,
        unk: &[Unknown],
        y: &DVector<f64>,
        lambda: &[f64],
        data: DirectionData<'_>,
    ) -> Option<SolveTangent> {
        let n = self.system.dof();
        let chol = self.system.mass_matrix(q).cholesky()?;
        let k = unk.len();
        let col = |u: &Unknown| {
            let wn = self.system.normal_jacobian(u.contact, q);
            if u.tangential {
                self.system.tangent_jacobian(u.contact, q)
            } else if u.coef != 0.0 {
                wn + self.system.tangent_jacobian(u.contact, q) * u.coef
            } else {
                wn
            }
        };
        let row = |u: &Unknown| {
            if u.tangential {
                self.system.tangent_jacobian(u.contact, q)
            } else {
                self.system.normal_jacobian(u.contact, q)
            }
        };
        // Derivatives of a column and a row along coordinate d.
        let dcol = |u: &Unknown, d: usize| -> DVector<f64> {
            let c = &lin.contacts[u.contact];
            if u.tangential {
                c.dwt_dq.column(d).into_owned()
            } else if u.coef != 0.0 {
                c.dwn_dq.column(d) + c.dwt_dq.column(d) * u.coef
            } else {
                c.dwn_dq.column(d).into_owned()
            }
        };
        let drow = |u: &Unknown, d: usize| -> DVector<f64> {
            let c = &lin.contacts[u.contact];
            if u.tangential {
                c.dwt_dq.column(d).into_owned()
            } else {
                c.dwn_dq.column(d).into_owned()
            }
        };
        let minv_c: Vec<DVector<f64>> = unk.iter().map(|u| chol.solve(&col(u))).collect();
        let rows: Vec<DVector<f64>> = unk.iter().map(row).collect();
        let kmat = DMatrix::from_fn(k, k, |r, c| rows[r].dot(&minv_c[c]));
        let lu = kmat.lu();
        if k > 0 && !lu.is_invertible() {
            return None;
        }
        // All 2N directions at once: the unconstrained part M⁻¹(δb − δM y + Σ δc_j λ_j) per
        // column, then one solve for the multipliers' changes (no allocation per direction).
        let mut dy = DMatrix::zeros(n, 2 * n);
        let mut rhs = DMatrix::zeros(k, 2 * n);
        for d in 0..2 * n {
            let mut r0 = data(d, rhs.column_mut(d).as_mut_slice());
            if d < n {
                for (u, &l) in unk.iter().zip(lambda) {
                    r0 += dcol(u, d) * l;
                }
            }
            let dy0 = chol.solve(&r0);
            for j in 0..k {
                let drow_y = if d < n { drow(&unk[j], d).dot(y) } else { 0.0 };
                rhs[(j, d)] -= drow_y + rows[j].dot(&dy0);
            }
            dy.set_column(d, &dy0);
        }
        let dl = if k > 0 { lu.solve(&rhs)? } else { rhs };
        for (j, mc) in minv_c.iter().enumerate() {
            for d in 0..2 * n {
                let l = dl[(j, d)];
                let mut col = dy.column_mut(d);
                col += mc * l;
            }
        }
        (dy.iter().chain(dl.iter()).all(|x| x.is_finite())).then_some(SolveTangent { dy, dlambda: dl })
    }

    /// The derivatives of `mode`'s accelerations and forces at `(t, q, q̇)`, with the unknowns
    /// (module docs).
    fn mode_tangent(&self, mode: &Modes, t: f64, q: &DVector<f64>, v: &DVector<f64>) -> Option<ModeTangent> {
        let n = self.system.dof();
        if !self.system.autonomous() {
            return None;
        }
        let lin = self.system.linearization(t, q, v)?;
        let sol = self.solve_mode(mode, t, q, v)?;
        if sol.redundant {
            return None;
        }
        let unk = unknowns((0..self.nc()).map(|i| (i, mode.get(i))), |i| self.system.law(i).mu);
        let lambda: Vec<f64> =
            unk.iter().map(|u| if u.tangential { sol.lambda_t[u.contact] } else { sol.lambda_n[u.contact] }).collect();
        let a = sol.acc;
        let data = |d: usize, dgamma: &mut [f64]| {
            // γ_j = −ẇ_jᵀq̇: its derivative along q_d or q̇_{d−N}.
            for (g, u) in dgamma.iter_mut().zip(&unk) {
                let c = &lin.contacts[u.contact];
                let (dq, dv) = if u.tangential { (&c.dt_dq, &c.dt_dv) } else { (&c.dn_dq, &c.dn_dv) };
                *g = -if d < n { dq[d] } else { dv[d - n] };
            }
            if d < n {
                lin.dh_dq.column(d) - &lin.dm_dq[d] * &a
            } else {
                lin.dh_dv.column(d - n).into_owned()
            }
        };
        let tan = self.solve_tangent(q, &lin, &unk, &a, &lambda, &data)?;
        Some(ModeTangent { tan, unk, lambda })
    }

    /// `Df` of `mode` at `x` (`2N × 2N`, state order `(q, q̇)`).
    pub(crate) fn flow_jacobian_at(&self, mode: &Modes, t: f64, x: &State) -> Option<DMatrix<f64>> {
        let n = self.system.dof();
        let (q, v) = split(x);
        let da = if (0..self.nc()).all(|i| !mode.get(i).closed()) {
            // Free flight: M q̈ = h.
            if !self.system.autonomous() {
                return None;
            }
            let lin = self.system.linearization(t, &q, &v)?;
            let a = self.free_acceleration(t, &q, &v)?;
            let data = |d: usize, _: &mut [f64]| {
                if d < n {
                    lin.dh_dq.column(d) - &lin.dm_dq[d] * &a
                } else {
                    lin.dh_dv.column(d - n).into_owned()
                }
            };
            self.solve_tangent(&q, &lin, &[], &a, &[], &data)?.dy
        } else {
            self.mode_tangent(mode, t, &q, &v)?.tan.dy
        };
        let mut df = DMatrix::zeros(2 * n, 2 * n);
        for k in 0..n {
            df[(k, n + k)] = 1.0;
        }
        df.view_mut((n, 0), (n, 2 * n)).copy_from(&da);
        Some(df)
    }

    /// The gradient of guard `guard` of `mode` at `x` (guard layout in the module docs of
    /// [`super`]); `None` for the jam guard and where the derivatives are not available.
    pub(crate) fn guard_gradient_at(&self, mode: &Modes, guard: usize, t: f64, x: &State) -> Option<DVector<f64>> {
        let n = self.system.dof();
        let (q, v) = split(x);
        let (i, kind) = (guard / 3, guard % 3);
        if i >= self.nc() || kind == 2 || !self.system.autonomous() {
            return None;
        }
        let mut g = DVector::zeros(2 * n);
        match (mode.get(i), kind) {
            (ContactMode::Free, 0) => {
                if !self.system.armed(i, &q) {
                    return None;
                }
                g.rows_mut(0, n).copy_from(&self.system.normal_jacobian(i, &q));
            }
            (ContactMode::Slip(s), 1) if s != 0 => {
                let lin = self.system.linearization(t, &q, &v)?;
                let sf = s as f64;
                g.rows_mut(0, n).copy_from(&(lin.contacts[i].dwt_dq.transpose() * v * sf));
                g.rows_mut(n, n).copy_from(&(self.system.tangent_jacobian(i, &q) * sf));
            }
            (cm, _) if cm.closed() => {
                let mt = self.mode_tangent(mode, t, &q, &v)?;
                let row = |tangential: bool| {
                    mt.unk
                        .iter()
                        .position(|u| u.contact == i && u.tangential == tangential)
                        .map(|j| (mt.tan.dlambda.row(j).transpose(), mt.lambda[j]))
                };
                let (dn, _) = row(false)?;
                if kind == 0 {
                    g.copy_from(&dn);
                } else {
                    // Sticking: μλ_n − |λ_t|.
                    let (dt, lt) = row(true)?;
                    let mu = self.system.law(i).mu;
                    g.copy_from(&(dn * mu - dt * lt.signum()));
                }
            }
            _ => return None,
        }
        Some(g)
    }

    /// The jump matrix `DΔ` of an event (module docs): the identity for lift-off and the starts
    /// and ends of slip (the state does not jump), the linearized impact law followed by the
    /// relabelling for an impact; `None` for other events.
    pub(crate) fn jump_jacobian_at(&self, ev: &EventRecord<State, Modes>) -> Option<DMatrix<f64>> {
        let n = self.system.dof();
        match ev.info.kind {
            EventKind::LiftOff | EventKind::SlipOnset | EventKind::SlipStop => Some(DMatrix::identity(2 * n, 2 * n)),
            EventKind::Impact => self.impact_jacobian(ev),
            _ => None,
        }
    }

    fn impact_jacobian(&self, ev: &EventRecord<State, Modes>) -> Option<DMatrix<f64>> {
        let n = self.system.dof();
        if !self.system.autonomous() {
            return None;
        }
        let (q, v) = split(&ev.before);
        let guard = ev.guard?;
        let impacting = [guard / 3];
        let o = self.impact_outcome(&ev.mode_before, &q, &v, &impacting).ok()?;
        let pattern = o.pattern.as_ref()?;
        let lin = self.system.linearization(ev.t, &o.q, &v)?;
        let touching = &o.touching;
        let unk = unknowns(pattern.iter().map(|&(j, cm)| (touching[j], cm)), |i| self.system.law(i).mu);
        // Multipliers from the outcome: solve R M⁻¹ C Λ = γ − R q̇⁻ again (the same data).
        let m = self.system.mass_matrix(&o.q);
        let chol = m.clone().cholesky()?;
        let wn = |i: usize| self.system.normal_jacobian(i, &o.q);
        let wt = |i: usize| self.system.tangent_jacobian(i, &o.q);
        let un = |i: usize| wn(i).dot(&v);
        let gamma = |u: &Unknown| {
            if u.tangential {
                0.0
            } else {
                -self.system.law(u.contact).restitution * un(u.contact).min(0.0)
            }
        };
        let cols: Vec<DVector<f64>> = unk
            .iter()
            .map(|u| if u.tangential { wt(u.contact) } else { wn(u.contact) + wt(u.contact) * u.coef })
            .collect();
        let rows: Vec<DVector<f64>> =
            unk.iter().map(|u| if u.tangential { wt(u.contact) } else { wn(u.contact) }).collect();
        let k = unk.len();
        let kmat = DMatrix::from_fn(k, k, |r, c| rows[r].dot(&chol.solve(&cols[c])));
        let rhs = DVector::from_fn(k, |j, _| gamma(&unk[j]) - rows[j].dot(&v));
        let lambda: Vec<f64> = if k > 0 { kmat.lu().solve(&rhs)?.iter().copied().collect() } else { vec![] };
        let vplus = o.vplus;
        let data = |d: usize, dg: &mut [f64]| {
            for (g, u) in dg.iter_mut().zip(&unk) {
                let e = self.system.law(u.contact).restitution;
                *g = if u.tangential || un(u.contact) >= 0.0 || e == 0.0 {
                    0.0
                } else if d < n {
                    // γ = −e w_nᵀq̇⁻.
                    -e * lin.contacts[u.contact].dwn_dq.column(d).dot(&v)
                } else {
                    -e * wn(u.contact)[d - n]
                };
            }
            // b = M q̇⁻: δb − δM q̇⁺ = δM (q̇⁻ − q̇⁺) + M δq̇⁻.
            if d < n {
                &lin.dm_dq[d] * (&v - &vplus)
            } else {
                m.column(d - n).into_owned()
            }
        };
        let tan = self.solve_tangent(&o.q, &lin, &unk, &vplus, &lambda, &data)?;
        let mut jump = DMatrix::zeros(2 * n, 2 * n);
        for k in 0..n {
            jump[(k, k)] = 1.0;
        }
        jump.view_mut((n, 0), (n, 2 * n)).copy_from(&tan.dy);
        if let Some(c) = o.contact {
            if self.system.relabel(c, &o.q, &vplus).is_some() {
                let p = self.system.relabel_matrix(c)?;
                let mut pp = DMatrix::zeros(2 * n, 2 * n);
                pp.view_mut((0, 0), (n, n)).copy_from(&p);
                pp.view_mut((n, n), (n, n)).copy_from(&p);
                jump = pp * jump;
            }
        }
        Some(jump)
    }
}

impl<S: ContactSystem> Lagrangian<S> {
    /// The linearized Zeno completion (module docs of [`crate::hybrid::variational`]): at the
    /// extrapolated Zeno state `x` (`ev.before`), the Jacobian `DΠ` of the mass-weighted
    /// projection onto the constraints that close. Positions are projected onto the gaps of the
    /// contacts closed after (rows `W_n`), velocities onto those contacts' normals and the
    /// tangents of those that stick (rows `W`, at the projected configuration):
    ///
    /// `DΠ = [[P_n, 0], [−B D P_n, P]]`, `B = M⁻¹W (WᵀM⁻¹W)⁻¹`, `P = I − B Wᵀ`,
    /// `D = ∂(Wᵀq̇)/∂q`, and `P_n` the same projection with the rows `W_n` (a sticking contact's
    /// tangential position is free: a perturbation may shift where it sticks).
    pub(crate) fn zeno_jacobian_at(&self, ev: &EventRecord<State, Modes>) -> Option<DMatrix<f64>> {
        let n = self.system.dof();
        if !self.system.autonomous() || ev.guard.is_some() {
            return None;
        }
        let (q, v) = split(&ev.before);
        let lin = self.system.linearization(ev.t, &q, &v)?;
        // (row, ∂(row·q̇)/∂q, is a normal)
        let mut rows: Vec<(DVector<f64>, DVector<f64>, bool)> = vec![];
        for i in 0..self.nc() {
            let cm = ev.mode_after.get(i);
            if !cm.closed() {
                continue;
            }
            let cl = &lin.contacts[i];
            rows.push((self.system.normal_jacobian(i, &q), cl.dwn_dq.transpose() * &v, true));
            if cm == ContactMode::Stick && self.system.law(i).mu > 0.0 {
                rows.push((self.system.tangent_jacobian(i, &q), cl.dwt_dq.transpose() * &v, false));
            }
        }
        let chol = self.system.mass_matrix(&q).cholesky()?;
        // B and P of the mass-weighted projection onto the rows `sel`.
        let projection = |sel: &[&(DVector<f64>, DVector<f64>, bool)]| -> Option<(DMatrix<f64>, DMatrix<f64>)> {
            let k = sel.len();
            let minv_w: Vec<DVector<f64>> = sel.iter().map(|r| chol.solve(&r.0)).collect();
            let ginv = DMatrix::from_fn(k, k, |a, b| sel[a].0.dot(&minv_w[b])).try_inverse()?;
            let b = DMatrix::from_fn(n, k, |r, j| (0..k).map(|l| minv_w[l][r] * ginv[(l, j)]).sum());
            let wt = DMatrix::from_fn(k, n, |a, col| sel[a].0[col]);
            let p = DMatrix::<f64>::identity(n, n) - &b * &wt;
            Some((b, p))
        };
        let all: Vec<_> = rows.iter().collect();
        let normals: Vec<_> = rows.iter().filter(|r| r.2).collect();
        let (b, p) = projection(&all)?;
        let (_, pn) = projection(&normals)?;
        let d = DMatrix::from_fn(all.len(), n, |a, col| all[a].1[col]);
        let mut dpi = DMatrix::zeros(2 * n, 2 * n);
        dpi.view_mut((0, 0), (n, n)).copy_from(&pn);
        dpi.view_mut((n, n), (n, n)).copy_from(&p);
        // The velocity meets the constraints at the projected configuration: Wᵀ δq̇ = −D P_n δq.
        dpi.view_mut((n, 0), (n, n)).copy_from(&(-(&b * &d * &pn)));
        Some(dpi)
    }
}

/// A mode's linearized solve with its unknowns and their values.
struct ModeTangent {
    tan: SolveTangent,
    unk: Vec<Unknown>,
    lambda: Vec<f64>,
}
