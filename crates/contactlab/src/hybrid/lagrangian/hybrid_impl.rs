//! [`Lagrangian`] as a [`Hybrid`] system: the start, the flow of a mode, the guards and step
//! limits, the transitions at events and the completion after a Zeno point (module docs of
//! [`super`]).

use nalgebra::DVector;

use super::modes::{Class, ContactMode, Modes};
use super::{
    join, split, Lagrangian, State, CONTACT_TOL, JAM_RATE_STEP, MAX_CONTACTS, ZENO_JOIN_SERIES, ZENO_JOIN_VEL,
};
use crate::hybrid::{EventInfo, EventKind, FailureEvidence, FailureKind, Hybrid, ModeFailure, Transition};
use crate::mechanics::ContactSystem;

/// A bound on the relative round-off of a slip speed `w_tᵀ q̇` per term: `n ε` (with margin)
/// times `Σ |w_t,k q̇_k|`.
const SLIP_ROUND_OFF: f64 = 4.0 * f64::EPSILON;

impl<S: ContactSystem> Lagrangian<S> {
    /// Half the time to `B̂ᵢ = 0` of every slipping contact whose `B̂ᵢ` decreases (its rate by a
    /// difference along `q̇` over [`JAM_RATE_STEP`] of the time scale): the steps approach the pole of `λ_n`
    /// geometrically, so the integrator's own points resolve the approach (P2's dynamic
    /// jamming is read from them) and no step jumps across the pole.
    fn jam_step_limit(&self, mode: &Modes, q: &DVector<f64>, v: &DVector<f64>) -> f64 {
        let dt = JAM_RATE_STEP * self.time();
        let mut lim = f64::INFINITY;
        for i in 0..self.nc() {
            let ContactMode::Slip(s) = mode.get(i) else { continue };
            if s == 0 || self.system.law(i).mu == 0.0 {
                continue;
            }
            let b0 = self.slip_b(i, s, q).1;
            let rate = (self.slip_b(i, s, &(q + v * dt)).1 - b0) / dt;
            if b0 > 0.0 && rate < 0.0 {
                lim = lim.min(0.5 * b0 / -rate);
            }
        }
        lim
    }
}

impl<S: ContactSystem> Hybrid for Lagrangian<S> {
    type State = State;
    type Mode = Modes;

    fn time_scale(&self) -> f64 {
        self.time()
    }

    fn state_scale(&self) -> State {
        let c = self.coordinate_scales();
        join(&c, &(&c / self.time()))
    }

    fn initial_mode(&self, t: f64, x: &mut State) -> Result<Modes, ModeFailure> {
        let (mut q, mut v) = split(x);
        let nc = self.nc();
        let gtol = CONTACT_TOL * self.length();
        let vtol = CONTACT_TOL * self.vel_scale();
        for i in 0..nc {
            if self.system.gap(i, &q) < -gtol && self.system.armed(i, &q) {
                return Err(ModeFailure::measured(
                    FailureKind::Singular,
                    FailureEvidence::Penetration { contact: i, gap: self.system.gap(i, &q) },
                ));
            }
        }
        // A contact touching its support and moving into it takes its impact first (the driver
        // asks `initial_transition`, which logs it; this keeps `initial_mode` total).
        if let Some(tr) = self.initial_transition(t, x) {
            return match tr {
                Transition::Jump { state, mode, .. } => {
                    *x = state;
                    Ok(mode)
                }
                Transition::Failed(f) => Err(f),
            };
        }
        let classes = self.classes_from_state(&q, &v, vtol);
        let mode = self.settle(t, &mut q, &mut v, &classes, &vec![None; nc])?;
        *x = join(&q, &v);
        Ok(mode)
    }

    fn initial_transition(&self, t: f64, x: &State) -> Option<Transition<State, Modes>> {
        let (q, v) = split(x);
        let nc = self.nc();
        let gtol = CONTACT_TOL * self.length();
        let vtol = CONTACT_TOL * self.vel_scale();
        let approaching: Vec<usize> = (0..nc)
            .filter(|&i| {
                let g = self.system.gap(i, &q);
                g.abs() <= gtol && self.system.armed(i, &q) && self.system.normal_jacobian(i, &q).dot(&v) < -vtol
            })
            .collect();
        (!approaching.is_empty()).then(|| self.impact(&Modes::free(nc), t, &q, &v, &approaching))
    }

    fn flow(&self, mode: &Modes, t: f64, x: &State) -> State {
        let (q, v) = split(x);
        // Free flight (the common case) needs no forces: the acceleration alone, without building
        // (and copying) a mode solution.
        let acc = if (0..self.nc()).all(|i| !mode.get(i).closed()) {
            self.free_acceleration(t, &q, &v)
        } else {
            self.solve_mode(mode, t, &q, &v).map(|sol| sol.acc)
        };
        acc.map_or_else(|| State::repeat(q.len(), 2, f64::NAN), |a| join(&v, &a))
    }

    fn guard_count(&self, _mode: &Modes) -> usize {
        3 * self.nc()
    }

    fn guards(&self, mode: &Modes, t: f64, x: &State, out: &mut [f64]) {
        let (q, v) = split(x);
        let nc = self.nc();
        let any_closed = (0..nc).any(|i| mode.get(i).closed());
        let sol = if any_closed { self.solve_mode(mode, t, &q, &v) } else { None };
        for i in 0..nc {
            let mu = self.system.law(i).mu;
            let (g0, g1) = match mode.get(i) {
                // An unarmed contact cannot fire: a large finite value (not +∞) keeps the guard
                // usable by the bracketing root finder when it arms within a step.
                ContactMode::Free if !self.system.armed(i, &q) => {
                    (self.system.gap(i, &q).abs() + self.length(), f64::INFINITY)
                }
                ContactMode::Free => (self.system.gap(i, &q), f64::INFINITY),
                cm => {
                    let (ln, lt) = sol.as_ref().map_or((f64::NAN, f64::NAN), |s| (s.lambda_n[i], s.lambda_t[i]));
                    let second = match cm {
                        ContactMode::Stick => mu * ln - lt.abs(),
                        ContactMode::Slip(s) if s != 0 => {
                            // The slip speed less its round-off bound: a slip that starts at
                            // the cone's edge (no slip acceleration) starts at a slip speed
                            // of round-off, whose sign must not arm its stop.
                            let wt = self.system.tangent_jacobian(i, &q);
                            let size: f64 = wt.iter().zip(v.iter()).map(|(w, x)| (w * x).abs()).sum();
                            s as f64 * wt.dot(&v) - SLIP_ROUND_OFF * (wt.len() as f64) * size
                        }
                        _ => f64::INFINITY,
                    };
                    (ln, second)
                }
            };
            out[3 * i] = g0;
            out[3 * i + 1] = g1;
            out[3 * i + 2] = match mode.get(i) {
                ContactMode::Slip(s) if s != 0 => self.slip_b(i, s, &q).1,
                _ => f64::INFINITY,
            };
        }
    }

    fn step_limit(&self, mode: &Modes, t: f64, x: &State) -> f64 {
        let (q, v) = split(x);
        let nc = self.nc();
        let jam = self.jam_step_limit(mode, &q, &v);
        // Only armed free contacts can strike; without one there is no further limit (and no
        // solve).
        if (0..nc).all(|i| mode.get(i).closed() || !self.system.armed(i, &q)) {
            return jam;
        }
        let Some(sol) = self.solve_mode(mode, t, &q, &v) else { return f64::INFINITY };
        let mut lim = f64::INFINITY;
        for i in 0..nc {
            if mode.get(i).closed() || !self.system.armed(i, &q) {
                continue;
            }
            let wn = self.system.normal_jacobian(i, &q);
            let g = self.system.gap(i, &q);
            let gd = wn.dot(&v);
            let gdd = wn.dot(&sol.acc) + self.system.jacobian_dot_v(i, &q, &v).0;
            // Excursion to the next extremum of the quadratic model: a rise to an apex matters
            // while the gap is in the lower half of it (a hop that may end within the step), a
            // dip to a valley while it may reach zero.
            let excursion = 0.5 * gd * gd / gdd.abs();
            if gd > 0.0 && gdd < 0.0 && g < excursion {
                lim = lim.min(1.5 * gd / -gdd);
            } else if gd < 0.0 && gdd > 0.0 && g < 2.0 * excursion {
                lim = lim.min(-gd / gdd);
            }
        }
        lim.min(jam)
    }

    fn transition(&self, mode: &Modes, fired: &[usize], t: f64, x: &State) -> Transition<State, Modes> {
        let (mut q, mut v) = split(x);
        let nc = self.nc();
        let mut impacting = Vec::new();
        let mut forced: Vec<Option<ContactMode>> = vec![None; nc];
        let mut classes: Vec<Class> = (0..nc)
            .map(|i| match mode.get(i) {
                ContactMode::Free => Class::Separated,
                ContactMode::Stick => Class::Rest,
                ContactMode::Slip(s) => Class::Slipping(s),
            })
            .collect();
        let mut info = EventInfo::new(EventKind::Reset, None);
        let sol = self.solve_mode(mode, t, &q, &v);
        // Dynamic jamming ends the run (the normal force has no finite continuation).
        if let Some(&k) = fired.iter().find(|&&k| k % 3 == 2) {
            let i = k / 3;
            let s = match mode.get(i) {
                ContactMode::Slip(s) => s,
                _ => 0,
            };
            let (b, bhat) = self.slip_b(i, s, &q);
            let a = b * sol.as_ref().map_or(f64::NAN, |x| x.lambda_n[i]);
            let normal_force = sol.as_ref().map_or(f64::NAN, |x| x.lambda_n[i]);
            return Transition::Failed(ModeFailure::measured(
                FailureKind::Jam,
                FailureEvidence::Jam { contact: i, a, b, b_hat: bhat, normal_force },
            ));
        }
        for &k in fired {
            let i = k / 3;
            let kind = match (k % 3, mode.get(i)) {
                (0, ContactMode::Free) => {
                    impacting.push(i);
                    EventKind::Impact
                }
                (0, _) => {
                    forced[i] = Some(ContactMode::Free);
                    classes[i] = Class::Separated;
                    EventKind::LiftOff
                }
                (_, ContactMode::Stick) => {
                    let lt = sol.as_ref().map_or(0.0, |s| s.lambda_t[i]);
                    forced[i] = Some(ContactMode::Slip(if lt > 0.0 { -1 } else { 1 }));
                    classes[i] = Class::Rest;
                    EventKind::SlipOnset
                }
                _ => {
                    classes[i] = Class::Rest;
                    EventKind::SlipStop
                }
            };
            if info.kind == EventKind::Reset {
                info = EventInfo::new(kind, Some(i));
            }
        }
        if !impacting.is_empty() {
            return self.impact(mode, t, &q, &v, &impacting);
        }
        match self.settle(t, &mut q, &mut v, &classes, &forced) {
            Ok(m) => Transition::Jump { state: join(&q, &v), mode: m, info },
            Err(f) => Transition::Failed(f),
        }
    }

    fn at_rest(&self, mode: &Modes, _x: &State) -> bool {
        mode.is_rest()
    }

    fn closed(&self, mode: &Modes, contact: usize) -> bool {
        contact < mode.len() && mode.get(contact).closed()
    }

    fn zeno_limit(
        &self,
        mode: &Modes,
        contact: usize,
        t: f64,
        x: &State,
        last: &State,
    ) -> Option<Transition<State, Modes>> {
        let (mut q, mut v) = split(x);
        let (ql, vl) = split(last);
        let nc = self.nc();
        if contact >= nc {
            return None;
        }
        // Scales of the series at its last impact: a contact whose gap and normal velocity have
        // shrunk far below them converges with it (a cascade over several contacts).
        let vref = (0..nc).fold(0.0f64, |a, i| {
            a.max(self.system.normal_jacobian(i, &ql).dot(&vl).abs())
                .max(self.system.tangent_jacobian(i, &ql).dot(&vl).abs())
        });
        let gref = (0..nc).fold(0.0f64, |a, i| a.max(self.system.gap(i, &ql).abs()));
        let gtol = CONTACT_TOL * self.length();
        let vtol = (ZENO_JOIN_VEL * self.vel_scale()).max(ZENO_JOIN_SERIES * vref);
        let mut classes = [Class::Separated; MAX_CONTACTS];
        for i in 0..nc {
            let g = self.system.gap(i, &q);
            let un = self.system.normal_jacobian(i, &q).dot(&v);
            let joins = i == contact
                || mode.get(i).closed()
                || (g.abs() <= gtol.max(ZENO_JOIN_SERIES * gref) && un.abs() <= vtol);
            if !joins {
                continue;
            }
            classes[i] = self.tangential_class(i, &q, &v, vtol);
        }
        let forced = [None; MAX_CONTACTS];
        Some(match self.settle(t, &mut q, &mut v, &classes[..nc], &forced[..nc]) {
            Ok(m) => {
                Transition::Jump { state: join(&q, &v), mode: m, info: EventInfo::new(EventKind::Zeno, Some(contact)) }
            }
            Err(f) => Transition::Failed(f),
        })
    }

    fn energy(&self, _t: f64, x: &State) -> Option<f64> {
        let (q, v) = split(x);
        self.system.potential(&q).map(|p| p + self.system.kinetic_energy(&q, &v))
    }

    fn flow_jacobian(&self, mode: &Modes, t: f64, x: &State) -> Option<nalgebra::DMatrix<f64>> {
        self.flow_jacobian_at(mode, t, x)
    }

    fn guard_gradient(&self, mode: &Modes, guard: usize, t: f64, x: &State) -> Option<nalgebra::DVector<f64>> {
        self.guard_gradient_at(mode, guard, t, x)
    }

    fn zeno_jacobian(
        &self,
        event: &crate::hybrid::driver::EventRecord<State, Modes>,
    ) -> Option<nalgebra::DMatrix<f64>> {
        self.zeno_jacobian_at(event)
    }

    fn jump_jacobian(
        &self,
        event: &crate::hybrid::driver::EventRecord<State, Modes>,
    ) -> Option<nalgebra::DMatrix<f64>> {
        self.jump_jacobian_at(event)
    }
}
