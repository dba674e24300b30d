//! A return's enclosure over an interval of impact angles: the state in scaled variables, the
//! events and impacts decided for the whole interval, and the cover of the circle by pieces
//! ([`super`]'s module docs).

use super::*;

/// The state of a return in scaled variables (module docs).
#[derive(Debug, Clone, Copy)]
pub(super) struct St {
    /// The scale of the normal variables: `c = cos φ` (`≥ 0`; `> 0` for every `φ` of the open
    /// circle), or exactly 1 once the state is unscaled (see [`St::unscale`]).
    pub(super) c: I,
    /// `cos φ` itself.
    pub(super) cos: I,
    /// Normal velocities divided by `c`.
    pub(super) zh: [I; 2],
    /// Normal gaps divided by `c²` (flying points; exactly 0 when sustained).
    pub(super) zg: [I; 2],
    /// Tangential velocities `(ẋ₁, ẋ₂)`.
    pub(super) xd: [I; 2],
    pub(super) sustained: [bool; 2],
    /// The slip direction an impact branch's mode requires of an active slipping point
    /// (`0`: none): the branch stands for the angles where that mode is strictly consistent,
    /// so the slip has that sign even where its enclosure holds 0 (at the angle where the
    /// impact turns from slipping to sticking, the sticking branch holds the limit).
    pub(super) hint: [i8; 2],
}

impl St {
    /// The same state in unscaled variables (normal velocities `ż = c ẑ`, gaps `z = c² ẑ_g`,
    /// times unscaled): where a slip must stop while `c` may be 0, its stop takes the scaled time
    /// `|ẋ|/(c|ẍ|)`, unbounded, but the unscaled time `|ẋ|/|ẍ|`, regular; `G` is then `|ż₂|/c`.
    pub(super) fn unscale(&mut self) {
        for i in 0..2 {
            self.zh[i] = self.c * self.zh[i];
            self.zg[i] = self.c * self.c * self.zg[i];
        }
        self.c = ex(1.0);
    }

    pub(super) fn is_unscaled(&self) -> bool {
        self.c.lo() == 1.0 && self.c.hi() == 1.0
    }

    /// A state of the form `λ·u` with `u` a unit state: both gaps exactly 0 and every
    /// independent velocity `(ẑ₁, ẑ₂, ẋ₂)` exactly 0 but one, which has one sign. The normal
    /// velocity of a flying point at gap 0 is clamped to `≥ 0`: after an impact it has just
    /// separated; where its gap was snapped to 0 at a tie between a slip stop and its own landing,
    /// the landing branch covers the tie and this branch's outcomes are only extra (extra
    /// outcomes add constraints to a proof, never remove one). Then `(u, λ)`, `λ = |that component|`, `ẋ₁ = e·(ż₁, ż₂, ẋ₂)` in
    /// `u`: the motion from `λ·u` is that from `u` scaled by `λ` (positions by `λ²`), so its
    /// events and `R` are `u`'s and `G` is `λ` times `u`'s. Such states arise where an impact
    /// outcome turns into another (a point lifting off with a speed that vanishes at the
    /// interval's boundary angle); followed as they are, their events come ever sooner and never
    /// end.
    pub(super) fn homogeneous(&self, e: &[I; 3]) -> Option<(St, I)> {
        let is_zero = |x: &I| x.lo() == 0.0 && x.hi() == 0.0;
        if !self.zg.iter().all(is_zero) {
            return None;
        }
        let mut v = [self.zh[0], self.zh[1], self.xd[1]];
        for i in 0..2 {
            if !self.sustained[i] && !is_zero(&v[i]) {
                v[i] = I::new(v[i].lo().max(0.0), v[i].hi().max(0.0))?;
            }
        }
        let mut nonzero = (0..3).filter(|&k| !is_zero(&v[k]));
        let (k, None) = (nonzero.next()?, nonzero.next()) else { return None };
        let x = v[k];
        if x.lo() == x.hi() && x.lo().abs() == 1.0 {
            return None; // already a unit state
        }
        // One-signed, also away from 0 (the reduction is exact and `u` carries no error). λ's
        // enclosure may reach 0: there the true motion is the competing impact outcome's (rest),
        // which `impact` lists as its own branch; the returned outcome here is then extra.
        let sign = if x.lo() >= 0.0 {
            1.0
        } else if x.hi() <= 0.0 {
            -1.0
        } else {
            return None;
        };
        let mut w = [zero(); 3];
        w[k] = ex(sign);
        let mut unit = *self;
        unit.zh = [w[0], w[1]];
        unit.xd = [e[0] * self.c * w[0] + e[1] * self.c * w[1] + e[2] * w[2], w[2]];
        Some((unit, x.abs()))
    }
}

/// `x / c` for `c ≥ 0` (`c > 0` on the open circle), also when `c`'s lower bound is 0 and `x`
/// has one sign: then unbounded.
pub(super) fn over_c(x: I, c: I) -> Option<I> {
    if c.lo() > 0.0 {
        return x.div(&c);
    }
    let chi = I::exact(c.hi());
    if x.lo() >= 0.0 {
        let lo = x.div(&chi).map(|q| q.lo()).unwrap_or(0.0);
        I::new(lo.max(0.0), f64::INFINITY)
    } else if x.hi() <= 0.0 {
        let hi = x.div(&chi).map(|q| q.hi()).unwrap_or(0.0);
        I::new(f64::NEG_INFINITY, hi.min(0.0))
    } else {
        None
    }
}

/// How a return ends, enclosed for every `φ` of its interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "end", rename_all = "kebab-case")]
pub enum ReturnEnclosure {
    /// Back at the section with `R ∈ r`, `G ∈ g`.
    Returned {
        /// `R(φ)` (rad).
        #[serde(rename = "R", serialize_with = "ser_interval")]
        r: I,
        /// `G(φ)`.
        #[serde(rename = "G", serialize_with = "ser_interval")]
        g: I,
        /// Slipping double impacts met (bits as [`crate::twocontact::poincare::MapPoint::double_slip`]).
        double_slip: u8,
        /// The return ends while point 1 is at rest, so point 2 lands as the body turns about
        /// point 1 and `R = R₁ = atan(e₁/e₂)` exactly, the same constant for every `φ` of the
        /// interval ([`IZod::r_pivot`]).
        pivot: bool,
    },
    /// At rest before returning: `R`, `G` undefined.
    Rest {
        /// Slipping double impacts met.
        double_slip: u8,
    },
}

pub(super) fn ser_interval<S: serde::Serializer>(x: &I, s: S) -> Result<S::Ok, S::Error> {
    [x.lo(), x.hi()].serialize(s)
}

pub(super) enum Next {
    Land(usize, I),
    Stop(usize),
}

impl IZod {
    /// The possible outcomes of one impact with `touching` points under P1's order of
    /// preference: one when every consistency decision is proved, several where a margin
    /// cannot be signed on the whole interval (each candidate that may be the selected one).
    /// `None` in an outcome means the body stops (double stick).
    pub(super) fn impact(&self, st: &St, touching: [bool; 2]) -> Result<Vec<Option<(St, u8)>>, String> {
        let allowed = |i: usize, pm: PointMode| touching[i] || pm == PointMode::F;
        let u = [st.c * st.zh[0], st.c * st.zh[1], st.xd[0], st.xd[1]];
        let rank = |m: Mode| {
            let pms = [m.0, m.1];
            (pms.iter().filter(|p| **p != PointMode::F).count(), pms.iter().filter(|p| **p == PointMode::S).count())
        };
        let slipping = |p: PointMode| matches!(p, PointMode::P | PointMode::N);
        let mut out = Vec::new();
        for tier in [(2, 2), (2, 0), (1, 1), (1, 0)] {
            let mut proved = false;
            for m in all_modes().into_iter().filter(|&m| rank(m) == tier) {
                if !allowed(0, m.0) || !allowed(1, m.1) {
                    continue;
                }
                match self.admissible(m) {
                    Tri::No => continue,
                    Tri::Unknown => return Err(format!("admissibility of impact mode {m} undecided")),
                    Tri::Yes => {}
                }
                let (t, next) = if m == Mode(PointMode::S, PointMode::S) {
                    (self.stick_family(&u), None)
                } else {
                    let (t, next) = self.impact_mode(m, st, touching)?;
                    let bits = if slipping(m.0) && slipping(m.1) {
                        if m.1 == PointMode::P {
                            1
                        } else {
                            2
                        }
                    } else {
                        0
                    };
                    (t, Some((next, bits)))
                };
                if t != Tri::No {
                    out.push(next);
                    proved |= t == Tri::Yes;
                }
            }
            // A proved consistent outcome in this tier: later tiers are never selected.
            if proved {
                return Ok(out);
            }
        }
        if out.is_empty() {
            return Err("no consistent impact outcome".into());
        }
        Ok(out)
    }

    /// The impulse-level mode `m` (not `SS`): its consistency and the state after it.
    pub(super) fn impact_mode(&self, m: Mode, st: &St, touching: [bool; 2]) -> Result<(Tri, St), String> {
        let k = self.gains[mode_index(m)].as_ref().ok_or_else(|| format!("impact mode {m}: gain not verified"))?;
        let sticks = m.0 == PointMode::S || m.1 == PointMode::S;
        // λ = c λn + λt: λn from the scaled normal velocities, λt from the tangential ones
        // (exactly zero without a sticking point: K's tangential columns are zero).
        let mut ln = [zero(); 4];
        let mut lt = [zero(); 4];
        for r in 0..4 {
            ln[r] = k[r][0] * st.zh[0] + k[r][1] * st.zh[1];
            if sticks {
                lt[r] = k[r][2] * st.xd[0] + k[r][3] * st.xd[1];
            }
        }
        let lam: [I; 4] = std::array::from_fn(|r| st.c * ln[r] + lt[r]);
        let an: [I; 4] = std::array::from_fn(|r| (0..4).fold(zero(), |acc, c| acc + self.a[r][c] * ln[c]));
        let at: [I; 4] = std::array::from_fn(|r| (0..4).fold(zero(), |acc, c| acc + self.a[r][c] * lt[c]));
        let mut next = *st;
        for i in 0..2 {
            let dz = if sticks { over_c(at[Z[i]], st.c) } else { Some(zero()) };
            next.zh[i] = match dz {
                Some(dz) => st.zh[i] + an[Z[i]] + dz,
                None => I::ENTIRE,
            };
            next.xd[i] = st.xd[i] + st.c * an[X[i]] + at[X[i]];
        }
        let mut t = Tri::Yes;
        for (i, pm) in [m.0, m.1].into_iter().enumerate() {
            let (zi, xi) = (Z[i], X[i]);
            // Normal impulse: its sign is λn's when nothing sticks (c > 0).
            let lz = if sticks { lam[zi] } else { ln[zi] };
            match pm {
                PointMode::F => {
                    if touching[i] {
                        t = t.and(Tri::positive(next.zh[i]));
                    }
                }
                PointMode::S => {
                    t = t.and(Tri::positive(lz)).and(Tri::positive(self.mu[i] * lam[zi] - lam[xi].abs()));
                }
                PointMode::P | PointMode::N => {
                    t = t.and(Tri::positive(lz)).and(Tri::positive(ex(slip_sign(pm)) * next.xd[i]));
                }
            }
        }
        for (i, pm) in [m.0, m.1].into_iter().enumerate() {
            if pm == PointMode::F {
                if touching[i] {
                    // Lifts off from the support.
                    next.sustained[i] = false;
                    next.zg[i] = zero();
                }
            } else {
                next.sustained[i] = true;
                next.zh[i] = zero();
                next.zg[i] = zero();
                if pm == PointMode::S {
                    next.xd[i] = zero();
                }
                next.hint[i] = slip_sign(pm) as i8;
            }
        }
        Ok((t, next))
    }

    /// The class of the state and its proved mode; a sustained point whose mode is `F` lifts off.
    pub(super) fn settle(&self, st: &mut St) -> Result<(Mode, [I; 4]), String> {
        let mut ps = [ContactPointState::Separated; 2];
        for i in 0..2 {
            if st.sustained[i] {
                let v = st.xd[i];
                ps[i] = if v.lo() == 0.0 && v.hi() == 0.0 {
                    ContactPointState::Rest
                } else if v.is_positive() {
                    ContactPointState::Slip(1)
                } else if v.is_negative() {
                    ContactPointState::Slip(-1)
                } else if st.hint[i] != 0 {
                    ContactPointState::Slip(st.hint[i])
                } else {
                    return Err(format!("slip direction of point {} undecided", i + 1));
                };
            }
        }
        st.hint = [0; 2];
        let (mode, acc) = self.mode_of(ps)?;
        for (i, pm) in [mode.0, mode.1].into_iter().enumerate() {
            if st.sustained[i] && pm == PointMode::F {
                st.sustained[i] = false;
            }
        }
        Ok((mode, acc))
    }

    /// The return from the section for every `φ ∈ [lo, hi]`: every outcome the proved
    /// decisions leave possible (one, unless a decision splits the interval), or why not.
    pub fn enclose_return(&self, lo: f64, hi: f64) -> Result<Vec<ReturnEnclosure>, String> {
        let phi = I::new(lo, hi).ok_or("empty interval")?;
        let c = phi.cos();
        let c = I::new(c.lo().max(0.0), c.hi().max(0.0)).ok_or("cos φ")?;
        let s = phi.sin();
        let st = St {
            c,
            cos: c,
            zh: [zero(), ex(-1.0)],
            zg: [zero(); 2],
            xd: [-(c * self.e[1]) + self.e[2] * s, s],
            sustained: [true, false],
            hint: [0; 2],
        };
        let mut out = Vec::new();
        let mut budget = MAX_BRANCHES;
        for next in self.impact(&st, [true, true])? {
            match next {
                None => out.push(ReturnEnclosure::Rest { double_slip: 0 }),
                Some((st, bits)) => self.flow(st, bits, MAX_EVENTS, &mut budget, &mut out)?,
            }
        }
        Ok(out)
    }

    /// From a state after an event to the end of the return, each branch pushed on `out`.
    pub(super) fn flow(
        &self,
        mut st: St,
        double_slip: u8,
        events: usize,
        budget: &mut usize,
        out: &mut Vec<ReturnEnclosure>,
    ) -> Result<(), String> {
        if events == 0 {
            return Err(format!("more than {MAX_EVENTS} events before the return (a Zeno series)"));
        }
        if *budget == 0 {
            return Err(format!("more than {MAX_BRANCHES} branches"));
        }
        *budget -= 1;
        if let Some((unit, lambda)) = st.homogeneous(&self.e) {
            // The motion from λ·u is the motion from u scaled by λ (the ZOD is homogeneous):
            // the same events and R, G multiplied by λ. λ > 0 on the angles this branch stands
            // for (λ = 0, where λ's enclosure reaches it, is the competing outcome's limit).
            let mut sub = Vec::new();
            self.flow(unit, double_slip, events - 1, budget, &mut sub)?;
            out.extend(sub.into_iter().map(|o| match o {
                ReturnEnclosure::Returned { r, g, double_slip, pivot } => {
                    ReturnEnclosure::Returned { r, g: g * lambda, double_slip, pivot }
                }
                rest => rest,
            }));
            return Ok(());
        }
        let (mode, acc) = self.settle(&mut st)?;
        if mode == Mode(PointMode::S, PointMode::S) {
            out.push(ReturnEnclosure::Rest { double_slip });
            return Ok(());
        }
        let pms = [mode.0, mode.1];
        let mut cands = candidates(&st, pms, &acc)?;
        if cands.is_empty() {
            return Err(format!("mode {mode}: no further event (the motion moves away)"));
        }
        // A slip stop that may come first but, with c possibly 0, at an unbounded scaled time:
        // continue in unscaled variables, where its time is regular.
        let unbounded_stop = cands.iter().enumerate().any(|(a, (n, t))| {
            matches!(n, Next::Stop(_))
                && t.hi() == f64::INFINITY
                && cands.iter().enumerate().all(|(b, (_, u))| b == a || t.lo() <= u.hi())
        });
        if unbounded_stop && !st.is_unscaled() {
            st.unscale();
            cands = candidates(&st, pms, &acc)?;
        }
        // Every event that may come first on some φ of the interval is a branch.
        let earliest_hi = |skip: usize| {
            (0..cands.len()).filter(|&b| b != skip).map(|b| cands[b].1.hi()).fold(f64::INFINITY, f64::min)
        };
        let firsts: Vec<usize> = (0..cands.len()).filter(|&a| cands[a].1.lo() <= earliest_hi(a)).collect();
        for a in firsts {
            let (next, tau) = (&cands[a].0, cands[a].1);
            let mut st = st;
            let half = ex(0.5);
            for i in 0..2 {
                let (az, ax) = (acc[Z[i]], acc[X[i]]);
                if !st.sustained[i] {
                    let zg = st.zg[i] + st.zh[i] * tau + half * az * tau.sqr();
                    // Still in flight until its own landing: the gap is ≥ 0.
                    st.zg[i] = I::new(zg.lo().max(0.0), zg.hi().max(0.0)).unwrap_or(zg);
                    st.zh[i] = st.zh[i] + az * tau;
                }
                st.xd[i] = st.xd[i] + st.c * ax * tau;
            }
            match *next {
                Next::Stop(i) => {
                    st.xd[i] = zero();
                    if st.sustained[1 - i] {
                        st.xd[1 - i] = zero();
                    }
                    self.flow(st, double_slip, events - 1, budget, out)?;
                }
                Next::Land(i, v) => {
                    st.zg[i] = zero();
                    st.zh[i] = v;
                    if i == 1 && st.sustained[0] {
                        let speed = st.zh[1].abs();
                        let g = if st.is_unscaled() {
                            over_c(speed, st.cos).ok_or("G: the return's speed")?
                        } else {
                            speed
                        };
                        let at_rest = st.xd[0].lo() == 0.0 && st.xd[0].hi() == 0.0;
                        let r = if at_rest {
                            // ẋ₁ = e₁ż₂ + e₂ẋ₂ = 0 with ż₂ < 0: tan R = ẋ₂/|ż₂| = e₁/e₂.
                            self.r_pivot().ok_or("R about point 1: e₂ not proved nonzero")?
                        } else {
                            over_c(st.xd[1], st.c * speed).ok_or("R: the return's slip direction")?.atan()
                        };
                        out.push(ReturnEnclosure::Returned { r, g, double_slip, pivot: at_rest });
                        continue;
                    }
                    let touching = [st.sustained[0] || i == 0, st.sustained[1] || i == 1];
                    for outcome in self.impact(&st, touching)? {
                        match outcome {
                            None => out.push(ReturnEnclosure::Rest { double_slip }),
                            Some((st, bits)) => self.flow(st, double_slip | bits, events - 1, budget, out)?,
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

/// The events that may end the phase of mode `pms` with accelerations `acc` from `st`, with
/// their (scaled) times.
pub(super) fn candidates(st: &St, pms: [PointMode; 2], acc: &[I; 4]) -> Result<Vec<(Next, I)>, String> {
    let mut cands: Vec<(Next, I)> = Vec::new();
    for i in 0..2 {
        let (az, ax) = (acc[Z[i]], acc[X[i]]);
        if !st.sustained[i] {
            let (zh, zg) = (st.zh[i], st.zg[i]);
            if az.is_negative() {
                let disc = zh.sqr() - ex(2.0) * az * zg;
                let sq = disc.sqrt().ok_or("landing: negative discriminant")?;
                let t = if zh.hi() <= 0.0 { (ex(2.0) * zg).div(&(sq - zh)) } else { (zh + sq).div(&(-az)) }
                    .ok_or("landing time")?;
                cands.push((Next::Land(i, -sq), t));
            } else if !(az.lo() >= 0.0 && zh.lo() >= 0.0) {
                return Err(format!("landing of point {} undecided", i + 1));
            }
        } else if matches!(pms[i], PointMode::P | PointMode::N) && !(i == 0 && st.sustained[1]) {
            // A double slip stops on point 2's clock (ẋ₁ = k ẋ₂).
            let dec = ex(slip_sign(pms[i])) * ax;
            if dec.is_negative() {
                let t = over_c(st.xd[i].div(&(-ax)).ok_or("slip stop time")?, st.c).ok_or("slip stop time")?;
                cands.push((Next::Stop(i), t));
            } else if !dec.is_positive() {
                return Err(format!("slip of point {} undecided: stops or not", i + 1));
            }
        }
    }
    Ok(cands)
}

/// One piece of the circle and what is proved on it.
#[derive(Debug, Clone, Serialize)]
pub struct ReturnPiece {
    /// `φ` from (rad).
    pub lo: f64,
    /// `φ` to (rad).
    pub hi: f64,
    /// Halvings below the initial piece.
    #[serde(skip)]
    pub depth: usize,
    /// Every outcome the return may have on the piece (several where a decision splits it);
    /// empty when the piece is undecided.
    pub outcomes: Vec<ReturnEnclosure>,
    /// Why the piece is undecided (at the bisection depth limit).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The circle `[−π/2, π/2]` (its ends the floats just outside) cut into pieces on which the
/// return is enclosed and `accept` holds, bisecting each piece where the enclosure fails or
/// `accept` does not hold, down to [`MAX_DEPTH`] halvings. Pieces that stay undecided carry the
/// last reason.
pub fn prove_over_circle(z: &IZod, accept: &(dyn Fn(&ReturnEnclosure) -> bool + Sync)) -> Vec<ReturnPiece> {
    cover_circle(z, &|_, _, e| e.iter().all(accept), &AtomicUsize::new(0))
}

/// What a piece `[lo, hi]` must satisfy, given every outcome of its return.
pub(super) type Accept<'a> = dyn Fn(f64, f64, &[ReturnEnclosure]) -> bool + Sync + 'a;

/// [`prove_over_circle`] with a condition on the whole piece.
pub(super) fn cover_circle(z: &IZod, accept: &Accept, spent: &AtomicUsize) -> Vec<ReturnPiece> {
    let end = FRAC_PI_2.next_up();
    let n = INITIAL_PIECES;
    let cut = |k: usize| {
        if k == 0 {
            -end
        } else if k == n {
            end
        } else {
            -end + 2.0 * end * k as f64 / n as f64
        }
    };
    (0..n).into_par_iter().flat_map_iter(|k| prove_piece(z, (cut(k), cut(k + 1), 0), accept, spent)).collect()
}

/// The bisection of [`prove_over_circle`] on one piece `(lo, hi, depth)`: its decided and
/// undecided sub-pieces in order. `spent` counts enclosures against [`MAX_EVALUATIONS`].
pub(super) fn prove_piece(
    z: &IZod,
    piece: (f64, f64, usize),
    accept: &Accept,
    spent: &AtomicUsize,
) -> Vec<ReturnPiece> {
    let mut out = Vec::new();
    let mut stack = vec![piece];
    while let Some((lo, hi, depth)) = stack.pop() {
        if spent.fetch_add(1, Ordering::Relaxed) >= MAX_EVALUATIONS {
            let reason = format!("work bound: {MAX_EVALUATIONS} enclosures");
            out.push(ReturnPiece { lo, hi, depth, outcomes: vec![], reason: Some(reason) });
            continue;
        }
        let res = z.enclose_return(lo, hi).and_then(|e| {
            if accept(lo, hi, &e) {
                Ok(e)
            } else {
                Err("the enclosure does not satisfy the inequality".to_string())
            }
        });
        match res {
            Ok(e) => out.push(ReturnPiece { lo, hi, depth, outcomes: e, reason: None }),
            Err(reason) => {
                let mid = 0.5 * (lo + hi);
                if depth >= MAX_DEPTH || !(lo < mid && mid < hi) {
                    out.push(ReturnPiece { lo, hi, depth, outcomes: vec![], reason: Some(reason) });
                } else {
                    stack.push((mid, hi, depth + 1));
                    stack.push((lo, mid, depth + 1));
                }
            }
        }
    }
    out.sort_by(|a, b| a.lo.total_cmp(&b.lo));
    out
}
