//! One run of the [`super::EventDriver`]: integration steps, event location, impacts, Zeno
//! completion and hops ([`super`]'s module docs).

use super::*;

/// Where an event leads: the time, the state and mode after it, and what happened.
pub(super) struct Next<S, M> {
    pub(super) t: f64,
    pub(super) state: S,
    pub(super) mode: M,
    pub(super) info: EventInfo,
}

/// One run in progress: where it is, the integrator, what the guards and sections last showed,
/// the Zeno watch and the counters.
pub(super) struct Runner<'r, 's, H: Hybrid> {
    pub(super) settings: &'r DriverSettings,
    pub(super) sys: &'r H,
    pub(super) sections: &'r [PoincareSection<'s, H::State>],
    pub(super) t: f64,
    pub(super) x: H::State,
    pub(super) mode: H::Mode,
    /// The system's time scale and the event tolerance `event_tol · time_scale`.
    pub(super) ts: f64,
    pub(super) ttol: f64,
    /// The system's state scale (for the divergence bound).
    pub(super) scale: H::State,
    pub(super) ode: Dopri5<H::State>,
    /// The Rosenbrock integrator, and whether it has taken over the flow since the last restart
    /// ([`DriverSettings::stiff`]).
    pub(super) rodas: Rodas4<H::State>,
    pub(super) in_rodas: bool,
    /// The stiff stretch on trial: the Rosenbrock steps taken since the hand-over and the
    /// evaluations DOPRI5 would have spent on them; and the trials handed back since the last
    /// restart (each doubles the stiff steps DOPRI5 must take before the next).
    pub(super) trial: (usize, f64),
    pub(super) backoff: u32,
    /// Whether the integrator must restart before its next step (at the start, after an event).
    pub(super) restart: bool,
    /// Accepted steps (closed-form segments included) and events.
    pub(super) steps: usize,
    pub(super) events: usize,
    /// Number of guards of the mode.
    pub(super) ng: usize,
    /// Guard values at `(t, x)` and at the end of the current step.
    pub(super) gprev: [f64; MAX_GUARDS],
    pub(super) g1: [f64; MAX_GUARDS],
    /// Guards seen positive in the mode: only these can fire.
    pub(super) armed: [bool; MAX_GUARDS],
    /// For a guard seen positive only inside the current step (`Runner::catch_hops`): the
    /// bracket of its zero, `(t, g)` at both ends.
    pub(super) hop: [Option<(Sample, Sample)>; MAX_GUARDS],
    /// Steps accepted since the integrator's last restart (hops are looked for in the first
    /// [`HOP_STEPS`] only).
    pub(super) since_restart: usize,
    /// Surface sections' values at `(t, x)`.
    pub(super) sec_prev: Vec<f64>,
    /// The guards that fire at the event being handled.
    pub(super) fired: Vec<usize>,
    /// The last impacts of every contact ([`ZenoRule::Extrapolate`]).
    pub(super) history: Vec<VecDeque<ImpactMark<H::State>>>,
    /// The fastest impact of the run ([`ZenoRule::Truncate`]).
    pub(super) fastest_impact: f64,
}

impl<'r, 's, H: Hybrid> Runner<'r, 's, H> {
    #[inline(always)]
    pub(super) fn new(
        settings: &'r DriverSettings,
        sys: &'r H,
        sections: &'r [PoincareSection<'s, H::State>],
        t: f64,
        x: H::State,
        mode: H::Mode,
    ) -> Self {
        let ts = sys.time_scale();
        let scale = sys.state_scale();
        Self {
            settings,
            sys,
            sections,
            t,
            x,
            mode,
            ts,
            ttol: settings.event_tol * ts,
            scale: scale.clone(),
            ode: Dopri5::new(settings.tol, scale.clone(), ts),
            rodas: Rodas4::new(settings.tol, scale, ts),
            in_rodas: false,
            trial: (0, 0.0),
            backoff: 0,
            restart: true,
            steps: 0,
            events: 0,
            ng: 0,
            gprev: [0.0; MAX_GUARDS],
            g1: [0.0; MAX_GUARDS],
            armed: [false; MAX_GUARDS],
            hop: [None; MAX_GUARDS],
            since_restart: 0,
            sec_prev: vec![0.0; sections.len()],
            fired: Vec::with_capacity(4),
            history: Vec::new(),
            fastest_impact: 0.0,
        }
    }

    /// The end of the run, where it is now.
    pub(super) fn finish(self, termination: Termination) -> Run<H::State, H::Mode> {
        Run {
            t: self.t,
            state: self.x,
            mode: Some(self.mode),
            termination,
            steps: self.steps,
            events: self.events,
            evaluations: self.ode.evaluations + self.rodas.evaluations,
        }
    }

    /// One pass of the loop: the termination checks, one segment of flow, and the event that ends
    /// it if a guard fired.
    pub(super) fn pass<O: Observer<H::State, H::Mode>>(&mut self, obs: &mut O) -> Phase<()> {
        self.check_limits()?;
        self.count_guards()?;
        self.fired.clear();
        let event = match self.sys.next_event(&self.mode, self.t, &self.x) {
            Some(ev) => Some(self.exact_segment(ev, obs)?),
            None => self.integrate(obs)?,
        };
        match event {
            Some((te, xe)) => self.jump(te, xe, obs),
            None => Ok(()),
        }
    }

    /// Rest, the time, event and step limits, and divergence (the system's test and the bound of
    /// [`DriverSettings::diverge`]).
    #[inline(always)]
    pub(super) fn check_limits(&self) -> Phase<()> {
        let (sys, st) = (self.sys, self.settings);
        if sys.at_rest(&self.mode, &self.x) {
            return Err(Termination::Rest);
        }
        if self.t >= st.t_max {
            return Err(Termination::TimeLimit);
        }
        if self.events >= st.max_events {
            return Err(Termination::EventLimit);
        }
        if self.steps >= st.max_steps {
            return Err(Termination::StepLimit);
        }
        if sys.diverged(self.t, &self.x) {
            return Err(Termination::Diverged);
        }
        if let Some(d) = st.diverge {
            let xs = self.x.as_slice();
            let ss = self.scale.as_slice();
            if xs.iter().zip(ss).any(|(v, s)| v.is_nan() || v.abs() > d * s) {
                return Err(Termination::Diverged);
            }
        }
        Ok(())
    }

    /// The mode's number of guards (at most [`MAX_GUARDS`]).
    #[inline(always)]
    pub(super) fn count_guards(&mut self) -> Phase<()> {
        let ng = self.sys.guard_count(&self.mode);
        if ng > MAX_GUARDS {
            return Err(Termination::IntegrationFailure {
                cause: IntegrationCause::TooManyGuards { guards: ng },
                t: self.t,
            });
        }
        self.ng = ng;
        Ok(())
    }

    /// A segment in closed form ([`Hybrid::next_event`]) up to its event: the event's time and
    /// state (its guard in `fired`).
    pub(super) fn exact_segment<O: Observer<H::State, H::Mode>>(
        &mut self,
        ev: ExactEvent<H::State>,
        obs: &mut O,
    ) -> Phase<(f64, H::State)> {
        self.steps += 1;
        if !ev.dt.is_finite() {
            return Err(Termination::NoFurtherEvent);
        }
        if self.t + ev.dt > self.settings.t_max {
            return Err(Termination::TimeLimit);
        }
        let (te, xe) = (self.t + ev.dt, ev.state);
        if let Some(seg) = &ev.segment {
            self.report_sections(seg, te, true, obs)?;
            self.step_to_event(seg, te, xe.clone(), obs)?;
        }
        self.fired.push(ev.guard);
        Ok((te, xe))
    }

    /// One integration step: `Some` with the event's time and state when an armed guard crossed
    /// zero within it (located on its dense output; the guards in `fired`) or the step size
    /// collapsed onto a guard's zero; `None` when the step was accepted whole.
    pub(super) fn integrate<O: Observer<H::State, H::Mode>>(&mut self, obs: &mut O) -> Phase<Option<(f64, H::State)>> {
        let (sys, mode, ng) = (self.sys, self.mode, self.ng);
        let mut f = |tt: f64, y: &H::State| sys.flow(&mode, tt, y);
        if self.restart {
            self.restart_integrator(&mut f)?;
        }
        let Some(step) = self.step(&mut f)? else {
            // The step size collapsed onto an imminent guard: it fires here.
            return Ok(Some((self.t, self.x.clone())));
        };
        self.steps += 1;
        sys.guards(&mode, step.t1(), &step.y1, &mut self.g1[..ng]);
        self.catch_hops(&step);
        if !fired_set(&self.g1[..ng], &self.armed[..ng]) {
            self.accept(&step, obs)?;
            return Ok(None);
        }
        let te = self.locate(&step);
        let xe = step.eval(te);
        self.report_sections(&step, te, false, obs)?;
        self.step_to_event(&step, te, xe.clone(), obs)?;
        Ok(Some((te, xe)))
    }

    /// A guard not yet armed that is `≤ 0` at the step's end may have risen above zero and come
    /// back inside the step (a hop shorter than the step: a slip that starts from rest and stops
    /// again, a tiny rebound). Such guards are sampled at [`HOP_SAMPLES`] points of the dense
    /// output; one seen positive is armed, with its zero bracketed after that sample, so that it
    /// fires as if its rise had been seen. (Without this a slip shorter than a step runs on past
    /// its stop, its friction now driving it.) A hop starts from a guard at zero where a mode
    /// starts (the slip from rest, the rebound), so only the first [`HOP_STEPS`] steps after a
    /// restart are looked at: a guard that stays below zero for long (a swing foot below its
    /// line while its rule disarms it) then costs nothing.
    pub(super) fn catch_hops(&mut self, step: &Step<H::State>) {
        let ng = self.ng;
        self.hop[..ng].fill(None);
        self.since_restart += 1;
        if self.since_restart > HOP_STEPS || !(0..ng).any(|k| !self.armed[k] && self.g1[k] <= 0.0) {
            return;
        }
        let (t0, t1) = (step.t0, step.t1());
        let mut up: [Option<Sample>; MAX_GUARDS] = [None; MAX_GUARDS];
        let mut gk = [0.0; MAX_GUARDS];
        // In time order: halvings towards the step's start (a hop from a guard that started at
        // zero there is short), then evenly spaced points.
        let near_start = (HOP_SAMPLES.trailing_zeros()..HOP_HALVINGS).rev().map(|k| 0.5f64.powi(k as i32));
        let even = (1..HOP_SAMPLES).map(|j| j as f64 / HOP_SAMPLES as f64);
        for f in near_start.chain(even) {
            let t = t0 + (t1 - t0) * f;
            self.sys.guards(&self.mode, t, &step.eval(t), &mut gk[..ng]);
            for k in 0..ng {
                if self.armed[k] || self.g1[k] > 0.0 || self.hop[k].is_some() {
                    continue;
                }
                match up[k] {
                    None if gk[k] > 0.0 => up[k] = Some((t, gk[k])),
                    Some(a) if gk[k] <= 0.0 => self.hop[k] = Some((a, (t, gk[k]))),
                    _ => {}
                }
            }
        }
        for k in 0..ng {
            if let (None, Some(a)) = (self.hop[k], up[k]) {
                self.hop[k] = Some((a, (t1, self.g1[k])));
            }
            if self.hop[k].is_some() {
                self.armed[k] = true;
            }
        }
    }

    /// Restarts the integrator at `(t, x)` and takes the guards' and surface sections' values
    /// there; the guards positive there are armed.
    pub(super) fn restart_integrator(&mut self, f: &mut impl FnMut(f64, &H::State) -> H::State) -> Phase<()> {
        let (t, ng) = (self.t, self.ng);
        if let Err(e) = self.ode.restart(f, t, &self.x) {
            return Err(Termination::IntegrationFailure { cause: e.into(), t });
        }
        self.restart = false;
        self.in_rodas = false;
        self.backoff = 0;
        self.since_restart = 0;
        self.sys.guards(&self.mode, t, &self.x, &mut self.gprev[..ng]);
        for k in 0..ng {
            self.armed[k] = self.gprev[k] > 0.0;
        }
        for (k, s) in self.sections.iter().enumerate() {
            if let PoincareSection::Surface { sigma, .. } = s {
                self.sec_prev[k] = sigma(t, &self.x);
            }
        }
        Ok(())
    }

    /// One accepted step from `(t, x)`, within the system's step limit and `t_max`; `None` when
    /// the step size collapsed with an armed guard's zero just ahead (that guard in `fired`).
    pub(super) fn step(&mut self, f: &mut impl FnMut(f64, &H::State) -> H::State) -> Phase<Option<Step<H::State>>> {
        let (sys, t, ng) = (self.sys, self.t, self.ng);
        // A step limit below round-off of t would stall the run: floor it.
        let floor = step_floor(t, self.ts);
        let hmax = (self.settings.t_max - t).min(sys.step_limit(&self.mode, t, &self.x).max(floor)).max(0.0);
        if self.settings.stiff && !self.in_rodas && self.ode.stiff_steps() >= STIFF_STEPS << self.backoff.min(16) {
            self.trial = (0, 0.0);
            // DOPRI5's step is held by stability: the Rosenbrock method starts ten times larger.
            self.rodas.resume(self.ode.derivative().clone(), 10.0 * self.ode.proposed());
            self.in_rodas = true;
        }
        let taken = if self.in_rodas { self.stiff_step(f, hmax) } else { self.ode.step(f, t, &self.x, hmax) };
        match taken {
            Ok(s) => Ok(Some(s)),
            Err(StepFailure::StepTooSmall) => {
                // The step size collapsed. If a guard's zero lies just ahead along the flow, the
                // collapse is that event's approach (a pole of the vector field on the guard, as
                // at dynamic jamming): it fires here, as the driver cannot place it any better.
                imminent_guards(
                    sys,
                    &self.mode,
                    t,
                    &self.x,
                    self.ttol,
                    STALL_HORIZON * self.ts,
                    &self.gprev[..ng],
                    &self.armed[..ng],
                    &mut self.fired,
                );
                if self.fired.is_empty() {
                    return Err(Termination::IntegrationFailure { cause: IntegrationCause::StepTooSmall, t });
                }
                Ok(None)
            }
            Err(e) => Err(Termination::IntegrationFailure { cause: e.into(), t }),
        }
    }

    /// One step of the Rosenbrock method ([`DriverSettings::stiff`]), handing the flow back to
    /// DOPRI5 when it is no longer stiff ([`Rodas4::calm`]) or when the method does not pay:
    /// every [`STIFF_TRIAL`] steps, the evaluations its steps cost since the hand-over (a
    /// Jacobian of `n` dual-number columns, charged `5n` evaluations as first measured on A1
    /// and the humanoid, and seven evaluations) must not exceed what DOPRI5 would have spent on the
    /// same span: six evaluations a step, its step the smaller of the Rosenbrock step and its
    /// stability bound `3.3/ρ(J)`. Each hand-back doubles the stiff steps DOPRI5 takes before
    /// the next trial, so a flow where the method does not pay costs a bounded share of
    /// Jacobians. The rule counts evaluations, not seconds: a run is the same on every machine.
    /// (Remeasured on the humanoid since the flow's kinematics are shared per state, a Jacobian
    /// costs 1.6 to 2.0 `n` evaluations; charging `2n` took its 2 s drop through fewer steps,
    /// 4,175 against 5,554, and more events, 387 against 353, in the same time within the
    /// machine's noise, so the charge stays.)
    fn stiff_step(
        &mut self,
        f: &mut impl FnMut(f64, &H::State) -> H::State,
        hmax: f64,
    ) -> Result<Step<H::State>, StepFailure> {
        let (sys, mode) = (self.sys, &self.mode);
        let mut jac = |tt: f64, y: &H::State| sys.flow_jacobian(mode, tt, y);
        let taken = self.rodas.step(f, &mut jac, self.t, &self.x, hmax)?;
        let explicit = 6.0 * (taken.h * self.rodas.spectral_radius() / EXPLICIT_HRHO).max(1.0);
        self.trial = (self.trial.0 + 1, self.trial.1 + explicit);
        let (k, saved) = self.trial;
        let spent = (k * (5 * self.x.dim() + 7)) as f64;
        let unpaid = k == STIFF_TRIAL && spent > saved;
        if k == STIFF_TRIAL {
            self.trial = (0, 0.0);
        }
        if let (true, Some(f1)) = (self.rodas.calm() || unpaid, self.rodas.derivative()) {
            let h_explicit = EXPLICIT_HRHO / self.rodas.spectral_radius();
            self.ode.resume(f1.clone(), self.rodas.proposed().min(h_explicit));
            self.in_rodas = false;
            self.backoff += 1;
        }
        Ok(taken)
    }

    /// Accepts a step in which no guard fired: the sections crossed in it, the observer, then the
    /// step's end as the new `(t, x)` with its guard values (those positive become armed).
    pub(super) fn accept<O: Observer<H::State, H::Mode>>(&mut self, step: &Step<H::State>, obs: &mut O) -> Phase<()> {
        self.report_sections(step, step.t1(), false, obs)?;
        let flow = obs.on_step(step, step.t1(), &self.mode);
        self.t = step.t1();
        self.x = step.y1.clone();
        let ng = self.ng;
        for k in 0..ng {
            self.armed[k] |= self.g1[k] > 0.0;
        }
        self.gprev[..ng].copy_from_slice(&self.g1[..ng]);
        if flow.is_break() {
            return Err(Termination::Stopped);
        }
        Ok(())
    }

    /// The earliest zero among the armed guards that crossed zero within `step` (module docs);
    /// every guard whose zero lies within the event tolerance of it goes into `fired`.
    pub(super) fn locate(&mut self, step: &Step<H::State>) -> f64 {
        let (sys, mode, ng, ttol) = (self.sys, self.mode, self.ng, self.ttol);
        let mut roots: [(f64, usize); MAX_GUARDS] = [(f64::INFINITY, 0); MAX_GUARDS];
        let mut nr = 0;
        let mut gk = [0.0; MAX_GUARDS];
        for k in 0..ng {
            if self.armed[k] && self.g1[k] <= 0.0 {
                let g0 = self.gprev[k];
                // The bracket: the step, or the part of it where a hop was caught.
                let ((ta, ga), (tb, gb)) = self.hop[k].unwrap_or(((step.t0, g0), (step.t1(), self.g1[k])));
                let r = if ga > 0.0 {
                    crossing(
                        |tt| {
                            let y = step.eval(tt);
                            sys.guards(&mode, tt, &y, &mut gk[..ng]);
                            gk[k]
                        },
                        ta,
                        ga,
                        tb,
                        gb,
                        ttol,
                    )
                } else {
                    step.t0
                };
                roots[nr] = (r, k);
                nr += 1;
            }
        }
        let tmin = roots[..nr].iter().fold(f64::INFINITY, |a, r| a.min(r.0));
        for &(r, k) in &roots[..nr] {
            if r <= tmin + ttol {
                self.fired.push(k);
            }
        }
        tmin
    }

    /// Shows the observer a step up to the event at `(te, xe)`; if it stops, the run ends there.
    pub(super) fn step_to_event<O: Observer<H::State, H::Mode>>(
        &mut self,
        step: &Step<H::State>,
        te: f64,
        xe: H::State,
        obs: &mut O,
    ) -> Phase<()> {
        if obs.on_step(step, te, &self.mode).is_break() {
            self.t = te;
            self.x = xe;
            return Err(Termination::Stopped);
        }
        Ok(())
    }

    /// The event at `(te, xe)`: the system's transition for the guards in `fired`, the Zeno watch,
    /// the records for the observer, and the state and mode that follow.
    pub(super) fn jump<O: Observer<H::State, H::Mode>>(&mut self, te: f64, xe: H::State, obs: &mut O) -> Phase<()> {
        let mut next = match self.sys.transition(&self.mode, &self.fired, te, &xe) {
            Transition::Jump { state, mode, info } => Next { t: te, state, mode, info },
            Transition::Failed(f) => {
                self.t = te;
                self.x = xe;
                return Err(Termination::Failed(f));
            }
        };
        let completion = self.watch_zeno(te, &xe, &mut next)?;
        self.events += 1;
        let rec = EventRecord {
            t: next.t,
            info: next.info,
            guard: self.fired.first().copied(),
            mode_before: self.mode,
            mode_after: next.mode,
            before: xe,
            after: next.state,
        };
        let mut stop = self.report_event(&rec, obs);
        let mode_before = self.mode;
        self.t = next.t;
        self.x = rec.after;
        self.mode = next.mode;
        if let Some(z) = completion {
            self.events += 1;
            let rec = EventRecord {
                t: z.t,
                info: z.info,
                guard: None,
                mode_before,
                mode_after: z.mode,
                before: std::mem::replace(&mut self.x, z.state),
                after: self.x.clone(),
            };
            stop |= self.report_event(&rec, obs);
            self.t = z.t;
            self.mode = z.mode;
        }
        self.restart = true;
        if stop {
            return Err(Termination::Stopped);
        }
        if !self.x.as_slice().iter().all(|v| v.is_finite()) {
            return Err(Termination::Failed(ModeFailure::bare(FailureKind::Singular)));
        }
        Ok(())
    }

    /// Zeno handling after the event at `(te, xe)` that leads to `next` (module docs). An impact
    /// slower than [`ZenoRule::Truncate`]'s threshold is replaced in `next` by the completion; under
    /// [`ZenoRule::Extrapolate`] an impact joins its contact's history and, when the history
    /// decays geometrically, the completion from the Zeno point is returned as a second event.
    /// Any other event of a contact clears its history.
    #[inline(always)]
    pub(super) fn watch_zeno(
        &mut self,
        te: f64,
        xe: &H::State,
        next: &mut Next<H::State, H::Mode>,
    ) -> Phase<Option<Next<H::State, H::Mode>>> {
        if next.info.kind != EventKind::Impact {
            if let Some(h) = next.info.contact.and_then(|c| self.history.get_mut(c)) {
                h.clear();
            }
            return Ok(None);
        }
        let c = next.info.contact.unwrap_or(0);
        let speed = next.info.impact_speed.unwrap_or(0.0);
        self.fastest_impact = self.fastest_impact.max(speed);
        match self.settings.zeno {
            ZenoRule::Truncate { speed: rel } if speed < rel * self.fastest_impact => {
                if let Some(Transition::Jump { state, mode, info }) = self.sys.zeno_limit(&self.mode, c, te, xe, xe) {
                    next.state = state;
                    next.mode = mode;
                    next.info = EventInfo { kind: EventKind::Zeno, ..info };
                    next.info.impact_speed = Some(speed);
                }
                Ok(None)
            }
            ZenoRule::Extrapolate { tolerance } => {
                if self.history.len() <= c {
                    self.history.resize_with(c + 1, VecDeque::new);
                }
                let h = &mut self.history[c];
                h.push_back(ImpactMark { t: te, speed, after: next.state.clone() });
                if h.len() > 4 {
                    h.pop_front();
                }
                // The resolution: the event tolerance, or the step floor where it is coarser.
                let res = self.ttol.max(step_floor(te, self.ts));
                let found = zeno_point(h, tolerance * self.ts).or_else(|| {
                    let (t, x) = unresolved(h, next.info.rebound, res)?;
                    // The completion comes after the predicted tail, along the flow.
                    Some((t, x.clone() + self.sys.flow(&next.mode, te, &x) * (t - te)))
                });
                let Some((tz, xz)) = found else { return Ok(None) };
                h.clear();
                match self.sys.zeno_limit(&next.mode, c, tz, &xz, &next.state) {
                    Some(Transition::Jump { state, mode, info }) => {
                        Ok(Some(Next { t: tz, state, mode, info: EventInfo { kind: EventKind::Zeno, ..info } }))
                    }
                    Some(Transition::Failed(f)) => {
                        self.t = tz;
                        self.x = xz;
                        Err(Termination::Failed(f))
                    }
                    None => Ok(None),
                }
            }
            _ => Ok(None),
        }
    }

    /// Reports an event to the observer and the after-event sections it hits; whether either
    /// asked to stop.
    #[inline(always)]
    pub(super) fn report_event<O: Observer<H::State, H::Mode>>(
        &self,
        rec: &EventRecord<H::State, H::Mode>,
        obs: &mut O,
    ) -> bool {
        let stop = obs.on_event(rec).is_break();
        stop | self.after_event_sections(rec, obs)
    }

    /// Reports surface-section crossings inside `step` up to `t_end`, in time order; `fresh`
    /// takes the sections' values at the step's start from the step instead of `sec_prev`.
    pub(super) fn report_sections<O: Observer<H::State, H::Mode>>(
        &mut self,
        step: &Step<H::State>,
        t_end: f64,
        fresh: bool,
        obs: &mut O,
    ) -> Phase<()> {
        if self.sections.is_empty() {
            return Ok(());
        }
        let mut hits: Vec<(f64, usize)> = Vec::new();
        for (k, s) in self.sections.iter().enumerate() {
            let PoincareSection::Surface { sigma, direction } = s else { continue };
            let s0 = if fresh { sigma(step.t0, &step.y0) } else { self.sec_prev[k] };
            let y_end = step.eval(t_end);
            let s1 = sigma(t_end, &y_end);
            self.sec_prev[k] = s1;
            let up = s0 < 0.0 && s1 >= 0.0;
            let down = s0 > 0.0 && s1 <= 0.0;
            let want = match direction {
                Direction::Increasing => up,
                Direction::Decreasing => down,
                Direction::Both => up || down,
            };
            if !want {
                continue;
            }
            let sign = if up { -1.0 } else { 1.0 };
            let r = crossing(|tt| sign * sigma(tt, &step.eval(tt)), step.t0, sign * s0, t_end, sign * s1, self.ttol);
            hits.push((r, k));
        }
        hits.sort_by(|a, b| a.0.total_cmp(&b.0));
        for (r, k) in hits {
            let y = step.eval(r);
            let rec = EventRecord {
                t: r,
                info: EventInfo::new(EventKind::Section, None),
                guard: Some(k),
                mode_before: self.mode,
                mode_after: self.mode,
                before: y.clone(),
                after: y,
            };
            if obs.on_event(&rec).is_break() {
                return Err(Termination::Stopped);
            }
        }
        Ok(())
    }

    /// Reports the after-event sections ([`PoincareSection::AfterEvent`],
    /// [`PoincareSection::AfterEventOf`], [`PoincareSection::Closing`]) that the event `rec`
    /// hits; whether the observer asked to stop.
    pub(super) fn after_event_sections<O: Observer<H::State, H::Mode>>(
        &self,
        rec: &EventRecord<H::State, H::Mode>,
        obs: &mut O,
    ) -> bool {
        let mut stop = false;
        for (k, s) in self.sections.iter().enumerate() {
            let (hit, contact) = match s {
                PoincareSection::AfterEvent { kind, contact } => {
                    (rec.info.kind == *kind && (contact.is_none() || *contact == rec.info.contact), rec.info.contact)
                }
                PoincareSection::AfterEventOf { kind, contacts } => (
                    rec.info.kind == *kind && rec.info.contact.is_some_and(|c| contacts.contains(&c)),
                    rec.info.contact,
                ),
                PoincareSection::Closing { contact } => {
                    let c = *contact;
                    (!self.sys.closed(&rec.mode_before, c) && self.sys.closed(&rec.mode_after, c), Some(c))
                }
                PoincareSection::Surface { .. } => (false, None),
            };
            if hit {
                let r = EventRecord {
                    t: rec.t,
                    info: EventInfo::new(EventKind::Section, contact),
                    guard: Some(k),
                    mode_before: rec.mode_after,
                    mode_after: rec.mode_after,
                    before: rec.after.clone(),
                    after: rec.after.clone(),
                };
                stop |= obs.on_event(&r).is_break();
            }
        }
        stop
    }
}

/// A rebound hop whose apex is below this fraction of its gap's scale is below the round-off of
/// a gap just put on its support: it could never be seen ([`Rebound::apex`]).
pub const HOP_FLOOR: f64 = 64.0 * f64::EPSILON;

/// The smallest step at time `t` (time scale `ts`): below it the step is lost in the
/// round-off of `t`.
pub(super) fn step_floor(t: f64, ts: f64) -> f64 {
    64.0 * f64::EPSILON * t.abs().max(ts)
}

/// A guard's value at a time, `(t, g)`.
pub(super) type Sample = (f64, f64);

/// Steps after a restart in which guards not yet armed are looked at inside the step
/// (`Runner::catch_hops`): the integrator's first steps grow from a small trial step, so a hop
/// from the mode's start lies within them or is seen positive at a step's end.
pub const HOP_STEPS: usize = 4;

/// Points inside a step where guards not yet armed are looked at (`Runner::catch_hops`):
/// `HOP_SAMPLES − 1` evenly spaced, and fractions `2⁻ᵏ` of the step down to `2^−HOP_HALVINGS`.
pub(super) const HOP_SAMPLES: usize = 8;
pub(super) const HOP_HALVINGS: u32 = 24;

/// Largest interval and speed ratio accepted as a Zeno decay.
pub(super) const MAX_RATIO: f64 = 0.999;

/// The Zeno point of the last four impacts of one contact, when their intervals decay
/// geometrically (module docs).
///
/// A series that decays so fast that its fourth impact would come within the time resolution
/// (a nearly plastic impact, `e ≤ 1e-4`: intervals `d, e d, e² d`) is extrapolated from its last
/// three impacts as soon as the tail `d₃ r/(1 − r)` that they predict is itself below `tol`:
/// then no fourth impact is needed to confirm it, and the Aitken formula is the same.
pub(super) fn zeno_point<S: OdeState>(h: &VecDeque<ImpactMark<S>>, tol: f64) -> Option<(f64, S)> {
    let n = h.len();
    if n < 3 {
        return None;
    }
    let (a, b, c) = (&h[n - 3], &h[n - 2], &h[n - 1]);
    let d2 = b.t - a.t;
    let d3 = c.t - b.t;
    if !(d2 > 0.0 && d3 > 0.0) {
        return None;
    }
    let r2 = d3 / d2;
    let p2 = c.speed / b.speed;
    // A clear geometric decay (ratios at most 0.999: slower decays are simulated impact by
    // impact), with approach speeds shrinking like the intervals (Δ ∝ speed near a grazing
    // contact).
    if !(r2 <= MAX_RATIO && p2 <= MAX_RATIO && p2 > 0.0) || (p2 / r2 - 1.0).abs() > 0.1 {
        return None;
    }
    let tail2 = d3 * r2 / (1.0 - r2);
    if tail2 > tol {
        // Confirmed by a fourth impact: the tails of the last two ratios agree.
        if n < 4 {
            return None;
        }
        let d1 = h[1].t - h[0].t;
        let r1 = d2 / d1;
        let p1 = b.speed / h[0].speed;
        if !(d1 > 0.0 && r1 <= MAX_RATIO && p1 <= MAX_RATIO && p1 > 0.0) {
            return None;
        }
        let tail1 = d3 * r1 / (1.0 - r1);
        if (tail2 - tail1).abs() > tol {
            return None;
        }
    }
    let g = r2 / (1.0 - r2);
    let x = c.after.clone() + (c.after.clone() - b.after.clone()) * g;
    Some((c.t + tail2, x))
}

/// A series the driver cannot go on simulating, with time resolution `res`, and when it
/// ends: the system predicts ([`Rebound`]) that the rest of it lasts less than `res`, or that
/// its hop rises less than [`HOP_FLOOR`] of the gap's scale (below the round-off of a gap just
/// put on its support: a nearly plastic impact); then it ends after the predicted tail (the
/// caller moves the state along the flow; the rest of the series takes the normal velocity to
/// zero as the completion's projection does). Or the last impact of the contact came within
/// `res` of the one before, no faster; then it ends there. Without this a rebound shorter than
/// the smallest step, or lower than the gap's round-off, is never seen and the contact sinks,
/// or an impact at zero approach speed repeats at the same time until the event limit. (Hops
/// above the round-off are simulated, so that a slower series still reaches the Aitken
/// extrapolation, whose derivative the variational equations carry.)
pub(super) fn unresolved<S: OdeState>(
    h: &VecDeque<ImpactMark<S>>,
    rebound: Option<Rebound>,
    res: f64,
) -> Option<(f64, S)> {
    let c = h.back()?;
    if let Some(r) = rebound.filter(|r| r.apex <= HOP_FLOOR || r.tail <= res) {
        return Some((c.t + r.tail, c.after.clone()));
    }
    let stuck = h.len() >= 2 && {
        let b = &h[h.len() - 2];
        c.t - b.t <= res && c.speed <= b.speed
    };
    stuck.then(|| (c.t, c.after.clone()))
}
