//! Impacts (module docs of [`super`], "Impacts"): Newton's law for frictionless contacts, in
//! closed form for one contact and as an LCP for several, and the frictional impact law by
//! enumeration of the impulse-level modes.

use nalgebra::{DMatrix, DVector};

use super::constraints::{solve_parts, Part};
use super::modes::{ContactMode, ModeSolution, Modes};
use super::{join, Lagrangian, State, CONTACT_TOL, MAX_CONTACTS};
use crate::hybrid::{Candidate, EventInfo, EventKind, FailureEvidence, FailureKind, ModeFailure, Rebound, Transition};
use crate::lcp::{self, Lcp, LcpSettings, LcpStatus};
use crate::mechanics::ContactSystem;

/// How the active contacts of an impact take their impulses: `(index into the touching
/// contacts, Stick | Slip(s))`, `Slip(0)` for a frictionless one.
pub(super) type Pattern = Vec<(usize, ContactMode)>;

/// The velocity jump of an impact before the relabelling ([`Lagrangian::impact_outcome`]).
#[derive(Debug, Clone)]
pub(super) struct ImpactOutcome {
    /// The configuration, touching contacts put exactly on their supports.
    pub(super) q: DVector<f64>,
    /// `q̇⁺`.
    pub(super) vplus: DVector<f64>,
    /// The contacts that took part (touching their supports).
    pub(super) touching: Vec<usize>,
    /// How each active one (an index into `touching`) took its impulse: `Stick`, `Slip(s)`
    /// (`Slip(0)`: frictionless); `None` when the outcome is not a smooth function of the
    /// state (a restitution lowered against an energy gain, the LCP route).
    pub(super) pattern: Option<Pattern>,
    /// Velocity scale of the impact.
    pub(super) vref: f64,
    /// Approach speed.
    pub(super) speed: f64,
    /// Kinetic energy lost.
    pub(super) energy_loss: f64,
    /// The first impacting contact.
    pub(super) contact: Option<usize>,
}

/// An impact gains energy when the kinetic energy after it exceeds that before by more than this
/// fraction (round-off of the energies).
pub const IMPACT_ENERGY_TOL: f64 = 1e-12;

impl<S: ContactSystem> Lagrangian<S> {
    /// The impact of the contacts in `impacting` at `(t, q, q̇⁻)` (module docs).
    pub(super) fn impact(
        &self,
        mode: &Modes,
        t: f64,
        q: &DVector<f64>,
        v: &DVector<f64>,
        impacting: &[usize],
    ) -> Transition<State, Modes> {
        let o = match self.impact_outcome(mode, q, v, impacting) {
            Ok(o) => o,
            Err(f) => return Transition::Failed(f),
        };
        let nc = self.nc();
        let (mut q2, mut v2) = (o.q, o.vplus);
        let mut relabelled = false;
        if let Some((qr, vr)) = o.contact.and_then(|c| self.system.relabel(c, &q2, &v2)) {
            q2 = qr;
            v2 = vr;
            relabelled = true;
        }
        let classes = self.classes_from_state(&q2, &v2, CONTACT_TOL * o.vref);
        let forced = [None; MAX_CONTACTS];
        match self.settle(t, &mut q2, &mut v2, &classes, &forced[..nc]) {
            Ok(mode) => Transition::Jump {
                info: EventInfo {
                    kind: EventKind::Impact,
                    contact: o.contact,
                    impact_speed: Some(o.speed),
                    energy_loss: Some(o.energy_loss),
                    rebound: o
                        .contact
                        .filter(|_| !relabelled)
                        .and_then(|c| self.rebound(&mode, c, t, &q2, &v2, o.speed)),
                },
                state: join(&q2, &v2),
                mode,
            },
            Err(f) => Transition::Failed(f),
        }
    }

    /// After an impact of contact `c` at approach speed `speed` that leaves it flying off (mode
    /// `mode` at `(t, q, q̇⁺)`): the duration of the rest of its impact series if it went on
    /// geometrically, `2 u⁺/(−g̈) / (1 − u⁺/speed)` (`u⁺` the rebound speed, `g̈ < 0` the gap's
    /// acceleration in flight), and the hop's apex `u⁺²/(2|g̈|)` over the gap's scale
    /// `Σ |w_n,i| s_i` (`s` the coordinates' scales); `None` when it does not come back under the
    /// quadratic model or does not slow down.
    fn rebound(
        &self,
        mode: &Modes,
        c: usize,
        t: f64,
        q: &DVector<f64>,
        v: &DVector<f64>,
        speed: f64,
    ) -> Option<Rebound> {
        if mode.get(c).closed() || !self.system.armed(c, q) {
            return None;
        }
        let wn = self.system.normal_jacobian(c, q);
        let up = wn.dot(v);
        let acc = self.solve_mode(mode, t, q, v)?.acc;
        let gdd = wn.dot(&acc) + self.system.jacobian_dot_v(c, q, v).0;
        let ratio = up / speed;
        if !(up > 0.0 && gdd < 0.0 && ratio < 1.0) {
            return None;
        }
        // The gap's own scale: its change when every coordinate moves by its scale (metres for a
        // contact point, radians for a joint limit).
        let cs = self.coordinate_scales();
        let gap_scale = wn.iter().zip(cs.iter()).map(|(w, c)| (w * c).abs()).sum::<f64>();
        Some(Rebound { tail: 2.0 * up / -gdd / (1.0 - ratio), apex: 0.5 * up * up / -gdd / gap_scale })
    }

    /// The velocity jump of the impact of the contacts in `impacting` at `(q, q̇⁻)` (before the
    /// relabelling and the choice of the next mode), with the impulse-level pattern behind it.
    pub(super) fn impact_outcome(
        &self,
        mode: &Modes,
        q: &DVector<f64>,
        v: &DVector<f64>,
        impacting: &[usize],
    ) -> Result<ImpactOutcome, ModeFailure> {
        let nc = self.nc();
        let ls = self.length();
        let gtol = CONTACT_TOL * ls;
        let fail = |f: ModeFailure| Err(f);
        let mut q = q.clone();
        // Contacts on their supports that are not separating take part (a resting contact can
        // take an impulse); "not separating" is judged against the impacting speed.
        let vin = impacting.iter().fold(0.0f64, |a, &i| a.max(-self.system.normal_jacobian(i, &q).dot(v)));
        let mut touching = [0usize; MAX_CONTACTS];
        let mut k = 0;
        for i in 0..nc {
            if self.system.released_by(i, impacting) && !impacting.contains(&i) {
                continue;
            }
            if mode.get(i).closed()
                || impacting.contains(&i)
                || (self.system.armed(i, &q)
                    && self.system.gap(i, &q) <= gtol
                    && self.system.normal_jacobian(i, &q).dot(v) <= CONTACT_TOL * vin)
            {
                touching[k] = i;
                k += 1;
            }
        }
        let touching = &touching[..k];
        // Put the touching contacts exactly on their supports.
        let mut vv = v.clone();
        self.project(&mut q, &mut vv, touching, &[]);
        let m = self.system.mass_matrix(&q);
        let Some(chol) = m.clone().cholesky() else { return fail(ModeFailure::bare(FailureKind::Singular)) };
        let z = vec![DVector::<f64>::zeros(q.len()); k];
        let (mut wn, mut wt, mut bn, mut bt) = (z.clone(), z.clone(), z.clone(), z);
        let (mut un, mut ut) = ([0.0; MAX_CONTACTS], [0.0; MAX_CONTACTS]);
        let (mut mu, mut target) = ([0.0; MAX_CONTACTS], [0.0; MAX_CONTACTS]);
        let mut speed = 0.0f64;
        for (j, &i) in touching.iter().enumerate() {
            wn[j] = self.system.normal_jacobian(i, &q);
            wt[j] = self.system.tangent_jacobian(i, &q);
            bn[j] = chol.solve(&wn[j]);
            bt[j] = chol.solve(&wt[j]);
            un[j] = wn[j].dot(v);
            ut[j] = wt[j].dot(v);
            let law = self.system.law(i);
            mu[j] = law.mu;
            target[j] = -law.restitution * un[j].min(0.0);
            if impacting.contains(&i) {
                speed = speed.max(-un[j]);
            }
        }
        let vref = un[..k].iter().chain(&ut[..k]).fold(speed, |a, u| a.max(u.abs())).max(crate::numeric::SCALE_FLOOR);
        let mut vplus = v.clone();
        // The impulse-level pattern (touching contact j and how it takes part), while the law
        // is a smooth function of the state there: not after a lowered restitution.
        let mut pattern: Option<Pattern>;
        if mu[..k].iter().all(|&m| m == 0.0) {
            // Newton: 0 ≤ Λ ⟂ A Λ + ġ⁻ − target ≥ 0.
            if k == 1 {
                let a = wn[0].dot(&bn[0]);
                let lam = if a > 0.0 { (-(un[0] - target[0]) / a).max(0.0) } else { f64::NAN };
                vplus.axpy(lam, &bn[0], 1.0);
                pattern = Some(if lam > 0.0 { vec![(0, ContactMode::Slip(0))] } else { vec![] });
            } else {
                let a = DMatrix::from_fn(k, k, |r, c| wn[r].dot(&bn[c]));
                let qv = DVector::from_fn(k, |r, _| un[r] - target[r]);
                let lcp = match Lcp::new(a, qv) {
                    Ok(l) => l,
                    Err(_) => return fail(ModeFailure::bare(FailureKind::Singular)),
                };
                match lcp::lemke::solve(&lcp, &LcpSettings::default()) {
                    Ok(s) if s.status == LcpStatus::Solved => {
                        for j in 0..k {
                            vplus.axpy(s.z[j], &bn[j], 1.0);
                        }
                        pattern = Some((0..k).filter(|&j| s.z[j] > 0.0).map(|j| (j, ContactMode::Slip(0))).collect());
                    }
                    Ok(s) => {
                        return fail(ModeFailure::measured(
                            FailureKind::Impact,
                            FailureEvidence::ImpactLcp { status: s.status },
                        ))
                    }
                    Err(_) => return fail(ModeFailure::bare(FailureKind::Singular)),
                }
            }
        } else {
            let law = |scale: f64| {
                let scaled: Vec<f64> = target[..k].iter().map(|x| x * scale).collect();
                self.frictional_impact(&wn[..k], &wt[..k], &bn[..k], &bt[..k], &scaled, &mu[..k], vref, v)
            };
            match law(1.0) {
                Ok((vp, pat)) => {
                    vplus = vp;
                    pattern = pat;
                }
                Err(c) => return fail(ModeFailure::among(FailureKind::Impact, c)),
            }
            // Newton's law with friction can gain energy (a slip that reverses during the
            // impact, eccentric contacts): then the restitution of this impact is lowered to the
            // largest fraction of e (bisection) whose outcome does not gain energy; the plastic
            // outcome (e = 0) never does.
            let kinetic = 0.5 * v.dot(&(&m * v));
            let gains = |vp: &DVector<f64>| 0.5 * vp.dot(&(&m * vp)) - kinetic > IMPACT_ENERGY_TOL * kinetic;
            if gains(&vplus) && target[..k].iter().any(|&x| x > 0.0) {
                match law(0.0) {
                    Ok((plastic, _)) if !gains(&plastic) => {
                        pattern = None;
                        // The largest restitution in [0, 1] that gains no energy.
                        let mut best = plastic;
                        crate::numeric::bisect(0.0, 1.0, crate::numeric::Tol::abs(1e-18), |e| match law(e) {
                            Ok((vp, _)) if !gains(&vp) => {
                                best = vp;
                                crate::numeric::Side::Lo
                            }
                            _ => crate::numeric::Side::Hi,
                        });
                        vplus = best;
                    }
                    _ => return fail(ModeFailure::bare(FailureKind::Impact)),
                }
            }
        }
        if !vplus.iter().all(|x| x.is_finite()) {
            return fail(ModeFailure::bare(FailureKind::Singular));
        }
        let energy_loss = 0.5 * v.dot(&(&m * v)) - 0.5 * vplus.dot(&(&m * &vplus));
        Ok(ImpactOutcome {
            q,
            vplus,
            touching: touching.to_vec(),
            pattern,
            vref,
            speed,
            energy_loss,
            contact: impacting.first().copied(),
        })
    }

    /// The frictional impact law by enumeration of the impulse-level modes with P1's order of
    /// preference; `Err` with every candidate's margin when none is consistent.
    #[allow(clippy::too_many_arguments)]
    fn frictional_impact(
        &self,
        wn: &[DVector<f64>],
        wt: &[DVector<f64>],
        bn: &[DVector<f64>],
        bt: &[DVector<f64>],
        target: &[f64],
        mu: &[f64],
        vref: f64,
        v: &DVector<f64>,
    ) -> Result<(DVector<f64>, Option<Pattern>), Vec<Candidate>> {
        // Impulse-level mode per contact: 0 passive, 1 stick, 2 slip +, 3 slip −.
        let k = wn.len();
        let imp_scale =
            vref / bn.iter().zip(wn).fold(0.0f64, |a, (b, w)| a.max(w.dot(b))).max(crate::numeric::SCALE_FLOOR);
        let tol = self.margin_tol;
        let total = 4usize.checked_pow(k as u32).unwrap_or(usize::MAX);
        if total > self.enumeration_limit {
            return self.impact_lcp(wn, wt, bn, bt, target, mu, v).map(|vp| (vp, None));
        }
        // (rank: active and sticking contacts, margin, q̇⁺, pattern) of the best outcome so far.
        type Best = ((usize, usize), f64, DVector<f64>, Pattern);
        let mut best: Option<Best> = None;
        let mut tested = Vec::new();
        for code in 0..total {
            let modes: Vec<usize> = (0..k).map(|j| (code / 4usize.pow(j as u32)) % 4).collect();
            // Frictionless contacts: active = code 1 with no tangential row.
            if (0..k).any(|j| mu[j] == 0.0 && modes[j] > 1) {
                continue;
            }
            // Active contacts as parts of the shared constrained solve (velocity level).
            let mut parts = Vec::with_capacity(k);
            let mut pat = Vec::with_capacity(k);
            for j in 0..k {
                let mode = match modes[j] {
                    0 => continue,
                    1 if mu[j] > 0.0 => ContactMode::Stick,
                    1 => ContactMode::Slip(0),
                    2 => ContactMode::Slip(1),
                    _ => ContactMode::Slip(-1),
                };
                let coef = match mode {
                    ContactMode::Slip(s) => -(s as f64) * mu[j],
                    _ => 0.0,
                };
                pat.push((j, mode));
                parts.push(Part {
                    slot: j,
                    mode,
                    coef,
                    wn: wn[j].clone(),
                    wt: wt[j].clone(),
                    col_n: if coef != 0.0 { &bn[j] + &bt[j] * coef } else { bn[j].clone() },
                    col_t: bt[j].clone(),
                    goal_n: target[j],
                    goal_t: 0.0,
                });
            }
            let mut solved = ModeSolution {
                acc: v.clone(),
                lambda_n: [0.0; MAX_CONTACTS],
                lambda_t: [0.0; MAX_CONTACTS],
                redundant: false,
            };
            let count = parts.len();
            if solve_parts(parts, count, v, &mut solved).is_none() || solved.redundant {
                tested.push(Candidate { mode: format!("{modes:?}"), margin: f64::NEG_INFINITY });
                continue;
            }
            let (vp, lam_n, lam_t) = (solved.acc, solved.lambda_n, solved.lambda_t);
            let mut margin = f64::INFINITY;
            for j in 0..k {
                let unp = wn[j].dot(&vp);
                let utp = wt[j].dot(&vp);
                match modes[j] {
                    0 => margin = margin.min((unp - target[j]) / vref),
                    1 => {
                        margin = margin.min(lam_n[j] / imp_scale);
                        if mu[j] > 0.0 {
                            margin = margin.min((mu[j] * lam_n[j] - lam_t[j].abs()) / imp_scale);
                        }
                    }
                    c => {
                        let s = if c == 2 { 1.0 } else { -1.0 };
                        margin = margin.min(lam_n[j] / imp_scale).min(s * utp / vref);
                    }
                }
            }
            tested.push(Candidate { mode: format!("{modes:?}"), margin });
            if margin < -tol {
                continue;
            }
            let active = modes.iter().filter(|&&m| m != 0).count();
            let sticking = (0..k).filter(|&j| modes[j] == 1 && mu[j] > 0.0).count();
            let rank = (active, sticking);
            let better = match &best {
                None => true,
                Some((r, m, ..)) => rank > *r || (rank == *r && margin > *m),
            };
            if better {
                best = Some((rank, margin, vp, pat));
            }
        }
        best.map(|b| (b.2, Some(b.3))).ok_or(tested)
    }

    /// The frictional impact from the velocity-level LCP of the contacts (module docs, "Many
    /// contacts"): `Λ_n ⊥ ġ⁺ − target ≥ 0`, and with friction `Λ_t = B⁺ − B⁻`,
    /// `ẋ⁺ + S ⊥ B⁺`, `−ẋ⁺ + S ⊥ B⁻`, `μΛ_n − B⁺ − B⁻ ⊥ S`.
    #[allow(clippy::too_many_arguments)]
    fn impact_lcp(
        &self,
        wn: &[DVector<f64>],
        wt: &[DVector<f64>],
        bn: &[DVector<f64>],
        bt: &[DVector<f64>],
        target: &[f64],
        mu: &[f64],
        v: &DVector<f64>,
    ) -> Result<DVector<f64>, Vec<Candidate>> {
        use nalgebra::{DMatrix, DVector};
        let k = wn.len();
        let fr: Vec<usize> = (0..k).filter(|&j| mu[j] > 0.0).collect();
        let size = k + 3 * fr.len();
        // Generalized-velocity change per unit of each variable, and each row's velocity map.
        let mut cols: Vec<DVector<f64>> = bn.to_vec();
        let mut rows: Vec<(DVector<f64>, f64)> = (0..k).map(|j| (wn[j].clone(), -target[j])).collect();
        let mut m = DMatrix::zeros(size, size);
        for (a, &j) in fr.iter().enumerate() {
            let b = k + 3 * a;
            let n = bt[j].len();
            cols.extend([bt[j].clone(), -&bt[j], DVector::zeros(n)]);
            rows.extend([(wt[j].clone(), 0.0), (-&wt[j], 0.0), (DVector::zeros(n), 0.0)]);
            m[(b, b + 2)] = 1.0;
            m[(b + 1, b + 2)] = 1.0;
            m[(b + 2, j)] = mu[j];
            m[(b + 2, b)] = -1.0;
            m[(b + 2, b + 1)] = -1.0;
        }
        let mut qv = DVector::zeros(size);
        for (r, (w, c)) in rows.iter().enumerate() {
            qv[r] = w.dot(v) + c;
            for (c2, col) in cols.iter().enumerate() {
                m[(r, c2)] += w.dot(col);
            }
        }
        let fail = |what: String| vec![Candidate { mode: what, margin: f64::NEG_INFINITY }];
        let lcp = crate::lcp::Lcp::new(m, qv).map_err(|e| fail(format!("impact LCP: {e}")))?;
        let sol = crate::lcp::solve(&lcp, &crate::lcp::LcpSettings::default())
            .map_err(|e| fail(format!("impact LCP: {e}")))?;
        if sol.status != crate::lcp::LcpStatus::Solved {
            return Err(fail(format!("impact LCP of {k} contacts: {}", sol.status.as_str())));
        }
        let mut vp = v.clone();
        for (c, col) in cols.iter().enumerate() {
            vp.axpy(sol.z[c], col, 1.0);
        }
        Ok(vp)
    }
}
