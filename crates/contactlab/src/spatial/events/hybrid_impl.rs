//! [`EventScene`] as a [`Hybrid`] system: the start, the flow, the guards and step limits, the
//! transitions and the completion after a Zeno point (module docs of [`super`]).

use nalgebra::{DMatrix, DVector, Vector2};

use super::modes::{Class, Contact3Mode, Modes3};
use super::{join, split, EventScene, CONTACT_TOL};
use crate::hybrid::driver::EventRecord;
use crate::hybrid::{EventInfo, EventKind, FailureEvidence, FailureKind, Hybrid, ModeFailure, Transition};

/// Force guards within this fraction of the force scale of zero when another fires change
/// with it.
const SIMULTANEOUS: f64 = 1e-7;

/// Zeno completion joins contacts within the contact tolerance of their planes whose normal
/// velocity is below this fraction of the velocity scale, or of the series' own speed at its
/// last impact (as the planar core does).
const ZENO_JOIN_VEL: f64 = 1e-7;
const ZENO_JOIN_SERIES: f64 = 1e-6;

/// When a slip stops, the other slips slower than this many stop speeds stop with it if the
/// contact problem then keeps every one of them sticking: a body sliding and spinning to rest
/// on several contacts ends its slips together (in the limit, at one instant), and stopping
/// them one at a time leaves the rest to a stiff flow whose slip directions turn ever faster.
const GROUP_STOP: f64 = 100.0;

type State = DMatrix<f64>;

impl EventScene<'_> {
    fn state(&self, x: &State) -> (DVector<f64>, DVector<f64>) {
        let (mut q, v) = split(x, self.scene.tree.nq());
        self.scene.tree.normalize(q.as_mut_slice());
        (q, v)
    }

    fn gtol(&self) -> f64 {
        CONTACT_TOL * self.length()
    }

    /// The impact of the fired contacts (and every other touching one but the feet in
    /// `passing`, which pass through the ground under the walking rule) at `(q, v)`.
    fn impact(
        &self,
        t: f64,
        fired: &[usize],
        passing: &[bool],
        q: &DVector<f64>,
        v: &DVector<f64>,
    ) -> Transition<State, Modes3> {
        let gaps = self.gaps(q.as_slice());
        let mut set: Vec<usize> = (0..self.nc()).filter(|&i| gaps[i].abs() <= self.gtol() && !passing[i]).collect();
        for &i in fired {
            if !set.contains(&i) {
                set.push(i);
            }
        }
        let Some(kin) = self.kinematics(q.as_slice(), fired) else {
            return Transition::Failed(ModeFailure::bare(FailureKind::Singular));
        };
        let speed = kin.iter().map(|k| -(k.rows.row(0) * v)[0]).fold(0.0, f64::max);
        let (v1, classes, _) = match self.impulse(q, v, &set, self.scene.restitution, speed) {
            Ok(x) => x,
            Err(f) => return Transition::Failed(f),
        };
        let (mut q1, mut v1) = (q.clone(), v1);
        match self.settle(t, &mut q1, &mut v1, &classes) {
            Ok(mode) => {
                let tree = &self.scene.tree;
                let loss =
                    tree.kinetic_energy(q.as_slice(), v.as_slice()) - tree.kinetic_energy(q1.as_slice(), v1.as_slice());
                let info = EventInfo {
                    kind: EventKind::Impact,
                    contact: fired.first().copied(),
                    impact_speed: Some(speed),
                    energy_loss: Some(loss),
                    rebound: None,
                };
                Transition::Jump { state: join(&q1, &v1), mode, info }
            }
            Err(f) => Transition::Failed(f),
        }
    }
}

impl Hybrid for EventScene<'_> {
    type State = State;
    type Mode = Modes3;

    fn time_scale(&self) -> f64 {
        self.time()
    }

    fn state_scale(&self) -> State {
        let (q, v) = self.scales();
        join(&DVector::from_column_slice(q), &DVector::from_column_slice(v))
    }

    fn initial_mode(&self, t: f64, x: &mut State) -> Result<Modes3, ModeFailure> {
        let (mut q, mut v) = self.state(x);
        let gaps = self.gaps(q.as_slice());
        let touching = |j: usize| gaps[j].abs() <= self.gtol();
        let unarmed = self.unarmed(q.as_slice(), touching);
        if let Some(i) = (0..self.nc()).find(|&i| (gaps[i] < -self.gtol() && !unarmed[i]) || gaps[i].is_nan()) {
            return Err(ModeFailure::measured(
                FailureKind::Singular,
                FailureEvidence::Penetration { contact: i, gap: gaps[i] },
            ));
        }
        if let Some(tr) = self.initial_transition(t, x) {
            return match tr {
                Transition::Jump { state, mode, .. } => {
                    *x = state;
                    Ok(mode)
                }
                Transition::Failed(f) => Err(f),
            };
        }
        let mut classes = self
            .classes_from_state(&q, &v, self.gtol(), CONTACT_TOL * self.vel())
            .ok_or_else(|| ModeFailure::bare(FailureKind::Singular))?;
        // A foot behind another on the ground takes no part (walking rule).
        for (c, u) in classes.iter_mut().zip(&unarmed) {
            if *u {
                *c = Class::Separated;
            }
        }
        let mode = self.settle(t, &mut q, &mut v, &classes)?;
        *x = join(&q, &v);
        Ok(mode)
    }

    fn initial_transition(&self, t: f64, x: &State) -> Option<Transition<State, Modes3>> {
        let (q, v) = self.state(x);
        let all: Vec<usize> = (0..self.nc()).collect();
        let kin = self.kinematics(q.as_slice(), &all)?;
        let vtol = CONTACT_TOL * self.vel();
        let unarmed = self.unarmed(q.as_slice(), |j| kin[j].gap.abs() <= self.gtol());
        let approaching: Vec<usize> = (0..self.nc())
            .filter(|&i| kin[i].gap.abs() <= self.gtol() && (kin[i].rows.row(0) * &v)[0] < -vtol && !unarmed[i])
            .collect();
        (!approaching.is_empty()).then(|| self.checked(self.impact(t, &approaching, &unarmed, &q, &v)))
    }

    fn flow(&self, mode: &Modes3, t: f64, x: &State) -> State {
        let (q, v) = self.state(x);
        let tree = &self.scene.tree;
        let acc = self.solve_mode(mode, t, q.as_slice(), v.as_slice()).map(|s| s.acc);
        match acc {
            Some(a) => join(&tree.qdot(q.as_slice(), v.as_slice()), &a),
            None => State::repeat(x.nrows(), 1, f64::NAN),
        }
    }

    fn guard_count(&self, _mode: &Modes3) -> usize {
        2 * self.nc()
    }

    fn guards(&self, mode: &Modes3, t: f64, x: &State, out: &mut [f64]) {
        let (q, v) = self.state(x);
        let nc = self.nc();
        let any_closed = (0..nc).any(|i| mode.get(i).closed());
        let sol = if any_closed { self.solve_mode(mode, t, q.as_slice(), v.as_slice()) } else { None };
        // (The kinematics once, for the gaps and the slipping contacts' rows.)
        let at = self.at_state(q.as_slice(), v.as_slice());
        let gaps: Vec<f64> =
            at.points.as_ref().map_or_else(|| vec![f64::NAN; nc], |p| p.iter().map(|p| p.gap).collect());
        let unarmed = self.unarmed(q.as_slice(), |j| mode.get(j).closed());
        let closed: Vec<usize> = (0..nc).filter(|&i| matches!(mode.get(i), Contact3Mode::Slip(_))).collect();
        let kin = match &at.points {
            _ if closed.is_empty() => Some(vec![]),
            Some(p) => self.kinematics_of(&at.frames, p, &closed),
            None => None,
        };
        for i in 0..nc {
            let (g0, g1) = match mode.get(i) {
                // An unarmed foot cannot strike: a large finite value (not +∞) keeps the guard
                // usable by the bracketing root finder when it arms within a step.
                Contact3Mode::Free if unarmed[i] => (gaps[i].abs() + self.length(), gaps[i].abs() + self.length()),
                // The second guard is the penetration net: it is armed wherever the contact
                // starts the mode within the contact tolerance, also at a gap of zero or just
                // below, where the first is not, so a touching contact left free (no force,
                // no normal velocity) that starts to sink is caught `gtol` down.
                Contact3Mode::Free => (gaps[i], gaps[i] + self.gtol()),
                cm => {
                    let f = sol.as_ref().map_or(nalgebra::Vector3::repeat(f64::NAN), |s| s.force[i]);
                    let second = match cm {
                        // (A stop cannot slip: its second guard never fires.)
                        _ if self.contacts[i].stop().is_some() => self.stop_slip_guard(),
                        Contact3Mode::Stick => self.contacts[i].mu * f[0] - Vector2::new(f[1], f[2]).norm(),
                        Contact3Mode::Slip(d) => {
                            let k = closed.iter().position(|&c| c == i).unwrap_or(0);
                            kin.as_ref().map_or(f64::NAN, |kin| {
                                let u = &kin[k].rows * &v;
                                self.slip_stop_guard(Vector2::new(u[1], u[2]), d)
                            })
                        }
                        Contact3Mode::Free => f64::INFINITY,
                    };
                    (f[0], second)
                }
            };
            out[2 * i] = g0;
            out[2 * i + 1] = g1;
        }
    }

    fn step_limit(&self, mode: &Modes3, t: f64, x: &State) -> f64 {
        let (q, v) = self.state(x);
        let unarmed = self.unarmed(q.as_slice(), |j| mode.get(j).closed());
        let free: Vec<usize> = (0..self.nc()).filter(|&i| !mode.get(i).closed() && !unarmed[i]).collect();
        if free.is_empty() {
            return f64::INFINITY;
        }
        let acc = self.solve_mode(mode, t, q.as_slice(), v.as_slice()).map(|s| s.acc);
        let at = self.at_state(q.as_slice(), v.as_slice());
        let frames = &at.frames;
        let kin = at.points.as_deref().and_then(|p| self.kinematics_of(frames, p, &free));
        let (Some(acc), Some(kin)) = (acc, kin) else { return f64::INFINITY };
        let mut lim = f64::INFINITY;
        for (k, &i) in free.iter().enumerate() {
            let g = kin[k].gap;
            let gd = (kin[k].rows.row(0) * &v)[0];
            let gdd = (kin[k].rows.row(0) * &acc)[0] + self.drift_in(frames, q.as_slice(), v.as_slice(), i, &kin[k])[0];
            // The next extremum of the gap's quadratic model (as the planar core): an apex while
            // the gap is in the lower half of the rise, a valley that may reach zero.
            let excursion = 0.5 * gd * gd / gdd.abs();
            if gd > 0.0 && gdd < 0.0 && g < excursion {
                lim = lim.min(1.5 * gd / -gdd);
            } else if gd < 0.0 && gdd > 0.0 && g < 2.0 * excursion {
                lim = lim.min(-gd / gdd);
            }
        }
        lim
    }

    fn transition(&self, mode: &Modes3, fired: &[usize], t: f64, x: &State) -> Transition<State, Modes3> {
        self.checked(self.next_mode(mode, fired, t, x))
    }

    fn at_rest(&self, mode: &Modes3, _x: &State) -> bool {
        mode.is_rest() && self.scene.autonomous()
    }

    fn closed(&self, mode: &Modes3, contact: usize) -> bool {
        contact < mode.len() && mode.get(contact).closed()
    }

    fn zeno_limit(
        &self,
        mode: &Modes3,
        contact: usize,
        t: f64,
        x: &State,
        last: &State,
    ) -> Option<Transition<State, Modes3>> {
        self.completion(mode, contact, t, x, last).map(|tr| self.checked(tr))
    }

    fn energy(&self, t: f64, x: &State) -> Option<f64> {
        let (q, v) = self.state(x);
        Some(self.scene.energy(t, q.as_slice(), v.as_slice()))
    }

    fn flow_jacobian(&self, mode: &Modes3, t: f64, x: &State) -> Option<DMatrix<f64>> {
        self.flow_jacobian_at(mode, t, x)
    }

    fn guard_gradient(&self, mode: &Modes3, guard: usize, t: f64, x: &State) -> Option<DVector<f64>> {
        self.guard_gradient_at(mode, guard, t, x)
    }

    fn jump_jacobian(&self, event: &EventRecord<State, Modes3>) -> Option<DMatrix<f64>> {
        self.jump_jacobian_at(event)
    }
}

impl EventScene<'_> {
    /// A transition's outcome, refused if it leaves a free contact that can strike at or below
    /// the contact tolerance under its plane (module docs of [`super`]): neither its gap guard
    /// nor its penetration net `gap + gtol` would arm there, and it would sink unseen.
    fn checked(&self, tr: Transition<State, Modes3>) -> Transition<State, Modes3> {
        let Transition::Jump { state, mode, .. } = &tr else { return tr };
        let (q, _) = self.state(state);
        let gaps = self.gaps(q.as_slice());
        let unarmed = self.unarmed(q.as_slice(), |j| mode.get(j).closed());
        let sunk = (0..self.nc())
            .find(|&i| !mode.get(i).closed() && !unarmed[i] && (gaps[i] <= -self.gtol() || gaps[i].is_nan()));
        match sunk {
            Some(i) => Transition::Failed(ModeFailure::measured(
                FailureKind::Singular,
                FailureEvidence::Penetration { contact: i, gap: gaps[i] },
            )),
            None => tr,
        }
    }

    /// The transition of `mode` when the guards `fired` reached zero at `x` (unchecked).
    fn next_mode(&self, mode: &Modes3, fired: &[usize], t: f64, x: &State) -> Transition<State, Modes3> {
        let (mut q, mut v) = self.state(x);
        let nc = self.nc();
        // A free contact's gap (or its penetration net) reached zero: an impact.
        let mut impacting: Vec<usize> =
            fired.iter().filter(|&&k| mode.get(k / 2) == Contact3Mode::Free).map(|&k| k / 2).collect();
        impacting.dedup();
        if !impacting.is_empty() {
            // Closed contacts take part; a touching foot that cannot strike passes.
            let unarmed = self.unarmed(q.as_slice(), |j| mode.get(j).closed());
            let passing: Vec<bool> = (0..nc).map(|i| unarmed[i] && !mode.get(i).closed()).collect();
            return self.impact(t, &impacting, &passing, &q, &v);
        }
        let all: Vec<usize> = (0..nc).collect();
        let Some(kin) = self.kinematics(q.as_slice(), &all) else {
            return Transition::Failed(ModeFailure::bare(FailureKind::Singular));
        };
        let sol = self.solve_mode(mode, t, q.as_slice(), v.as_slice());
        let ut = |i: usize| {
            let u = &kin[i].rows * &v;
            Vector2::new(u[1], u[2])
        };
        // Closed contacts keep their state; the fired ones change it.
        let mut classes: Vec<Class> = (0..nc)
            .map(|i| match mode.get(i) {
                Contact3Mode::Free => Class::Separated,
                Contact3Mode::Stick => Class::Rest,
                Contact3Mode::Slip(d) => {
                    let u = ut(i);
                    if u.norm() > self.stop_speed() {
                        Class::Sliding(u / u.norm())
                    } else {
                        // (A slip from rest still below the stop speed keeps its direction.)
                        Class::Sliding(Vector2::new(d[0], d[1]))
                    }
                }
            })
            .collect();
        let mut info = EventInfo::new(EventKind::Reset, None);
        for &k in fired {
            let i = k / 2;
            let kind = match (k % 2, mode.get(i)) {
                (0, _) => {
                    classes[i] = Class::Separated;
                    EventKind::LiftOff
                }
                (_, Contact3Mode::Stick) => {
                    // The slip starts against the friction force that reached the cone.
                    let f = sol.as_ref().map_or(nalgebra::Vector3::zeros(), |s| s.force[i]);
                    let ft = Vector2::new(f[1], f[2]);
                    let d = if ft.norm() > 0.0 { -ft / ft.norm() } else { Vector2::new(1.0, 0.0) };
                    classes[i] = Class::Sliding(d);
                    EventKind::SlipOnset
                }
                _ => {
                    // The slip speed fell to the stop threshold: the contact problem decides
                    // (stick, or slip on in a new direction).
                    classes[i] = Class::Rest;
                    EventKind::SlipStop
                }
            };
            if info.kind == EventKind::Reset {
                info = EventInfo::new(kind, Some(i));
            }
        }
        // Contacts whose guards are at zero with the fired one (to round-off: a symmetric
        // edge's two corners) change with it: they lift off, or start to slip against their
        // friction forces.
        if let Some(sol) = sol.as_ref() {
            let tiny = SIMULTANEOUS * self.force_scale();
            for i in 0..nc {
                let f = sol.force[i];
                let ft = Vector2::new(f[1], f[2]);
                let margin = self.contacts[i].mu * f[0] - ft.norm();
                if info.kind == EventKind::LiftOff && mode.get(i).closed() && f[0] <= tiny {
                    classes[i] = Class::Separated;
                } else if info.kind == EventKind::SlipOnset
                    && mode.get(i) == Contact3Mode::Stick
                    && ft.norm() > 0.0
                    && margin <= tiny
                {
                    classes[i] = Class::Sliding(-ft / ft.norm());
                }
            }
        }
        if info.kind == EventKind::SlipStop {
            let slow: Vec<usize> = (0..nc)
                .filter(|&i| {
                    matches!(mode.get(i), Contact3Mode::Slip(_))
                        && classes[i] != Class::Rest
                        && ut(i).norm() < GROUP_STOP * self.stop_speed()
                })
                .collect();
            if !slow.is_empty() {
                let mut all = classes.clone();
                slow.iter().for_each(|&i| all[i] = Class::Rest);
                let (mut q2, mut v2) = (q.clone(), v.clone());
                if let Ok(m) = self.settle(t, &mut q2, &mut v2, &all) {
                    if (0..nc).filter(|&i| all[i] == Class::Rest).all(|i| m.get(i) == Contact3Mode::Stick) {
                        return Transition::Jump { state: join(&q2, &v2), mode: m, info };
                    }
                }
            }
        }
        match self.settle(t, &mut q, &mut v, &classes) {
            Ok(m) => Transition::Jump { state: join(&q, &v), mode: m, info },
            Err(f) => Transition::Failed(f),
        }
    }

    /// The completion after a Zeno point (unchecked).
    fn completion(
        &self,
        mode: &Modes3,
        contact: usize,
        t: f64,
        x: &State,
        last: &State,
    ) -> Option<Transition<State, Modes3>> {
        let nc = self.nc();
        if contact >= nc {
            return None;
        }
        let (mut q, v) = self.state(x);
        let (ql, vl) = self.state(last);
        let all: Vec<usize> = (0..nc).collect();
        let kl = self.kinematics(ql.as_slice(), &all)?;
        let vref = kl.iter().map(|k| (&k.rows * &vl).amax()).fold(0.0, f64::max);
        // (Gaps within the contact tolerance only: a contact joined above it is put on its
        // plane by the projection, which lowers any contact whose gap row is first-order
        // dependent on its own below the tolerance, where its guards do not arm; walker2d's
        // heels, upright on its joints' stops. It strikes on its own instead.)
        let gtol = self.gtol();
        let vtol = (ZENO_JOIN_VEL * self.vel()).max(ZENO_JOIN_SERIES * vref);
        let kin = self.kinematics(q.as_slice(), &all)?;
        let unarmed = self.unarmed(q.as_slice(), |j| mode.get(j).closed() || j == contact);
        let join_set: Vec<usize> = (0..nc)
            .filter(|&i| {
                i == contact
                    || mode.get(i).closed()
                    || (kin[i].gap.abs() <= gtol && (kin[i].rows.row(0) * &v)[0].abs() <= vtol && !unarmed[i])
            })
            .collect();
        // Close the converging contacts by a plastic impact, then choose the mode on them.
        let speed = vref;
        let tr = match self.impulse(&q, &v, &join_set, 0.0, speed) {
            Ok((mut v1, mut classes, _)) => {
                for &i in &join_set {
                    if classes[i] == Class::Separated {
                        let u = &kin[i].rows * &v1;
                        classes[i] = self.tangential_class(Vector2::new(u[1], u[2]), 0.0);
                    }
                }
                match self.settle(t, &mut q, &mut v1, &classes) {
                    Ok(m) => Transition::Jump {
                        state: join(&q, &v1),
                        mode: m,
                        info: EventInfo::new(EventKind::Zeno, Some(contact)),
                    },
                    Err(f) => Transition::Failed(f),
                }
            }
            Err(f) => Transition::Failed(f),
        };
        Some(tr)
    }
}
