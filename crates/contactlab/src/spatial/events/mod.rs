//! Event-driven simulation of a spatial tree whose collision shapes touch planes, with exact
//! Coulomb cones: the [`Hybrid`](crate::hybrid::Hybrid) system that the one
//! [`EventDriver`] runs, as it runs the planar mechanisms.
//!
//! # Contacts
//! The candidate points of [`super::contact`] (box corners, the lowest points of spheres,
//! capsule ends, cylinder rims and ellipsoids) are numbered once, at the start, per shape and
//! plane; each is a contact with its own mode. A cylinder whose axis turns parallel to a plane's
//! normal changes its number of candidates: the run then ends as an integration failure (a
//! cylinder standing on its face is for time-stepping).
//!
//! # Modes (per contact)
//! * **free**: the gap `g` is a guard (an impact when it reaches zero);
//! * **stick**: the contact point does not move; the force `(λ_n, λ_t)` follows from the
//!   constraints; guards `λ_n` (lift-off) and `μλ_n − ‖λ_t‖` (onset of slip);
//! * **slip**: the force is `λ_n (n − μ ŝ)` against the current slip direction
//!   `ŝ = u_t/‖u_t‖`, which turns during the slip; guards `λ_n` and `‖u_t‖ − δ`, with the stop
//!   speed `δ` = [`modes::STOP_TOL`] of the velocity scale (where the slip stops, the contact
//!   problem decides: stick, or slip on in a new direction); a slip that has turned against
//!   its first direction `d` also stops where `‖u_t + δ d‖` falls to `δ/2`
//!   (`EventScene::slip_stop_guard`). The direction is that of
//!   `u_t + δ d`, `d` the direction the slip started in: a slip that starts from rest starts
//!   along the friction force that reached the cone (its velocity's round-off projected away),
//!   not along round-off, which differs between a symmetric edge's corners.
//!
//! Contacts whose force guards reach zero together (to `1e-7` of the force scale: the two
//! corners of a symmetric edge) lift off or start to slip together. When a slip stops, the
//! other slips slower than 100 `δ` stop with it if the contact problem then keeps them all
//! sticking: a box sliding and spinning to rest on four corners ends its slips together, where
//! stopping them one at a time left a stiff flow whose slip directions turned ever faster. A
//! run is bounded by [`EventSettings::max_steps`] (the run then ends with `step-limit`, and
//! time-stepping is the robust route).
//!
//! The flow of a mode solves `M v̇ = f + Σ Fᵢᵀ λᵢ` with the closed contacts' normal
//! accelerations and the sticking ones' tangential accelerations zero; redundant constraints (a
//! box sticking on four corners) take the least-norm forces, which give the unique motion.
//! The normal and tangential accelerations include the drift `J̇ v` of the *contact*: for a
//! corner that of the material point, for a rolling sphere or capsule end that of the sphere's
//! centre (the contact point moves over the surface), for cylinder rims and ellipsoids a
//! fourth-order central difference of `J v` along the motion.
//!
//! # Joint stops
//! A scene's joint limits ([`super::timestep::JointLimit`]) enter a simulation
//! ([`EventScene::with_stops`]) as contacts after the shapes', two per limited joint
//! (`joint/lower`, `joint/upper`): frictionless (`μ = 0`), with the gap `arm · (q − lower)` or
//! `arm · (upper − q)` and the one row `±arm` on the joint's velocity, no tangent and no drift.
//! The arm is 1 for a slider and the length scale for a hinge, so that a stop's gap is a
//! length and its force a force (the torque over the arm), and the contact tolerances and
//! force guards are the same for stops as for feet in any units. A stop takes part in the
//! mode problem and in impacts as any contact (Newton's law with the scene's restitution;
//! FC3D solves a frictionless contact directly); when closed it holds its normal row alone
//! and lifts off when its force falls to zero. A run's start past a stop is put back on it
//! (as Moreau–Jean does; `start_clamped`). Runs hold the stops unless told not to
//! ([`EventSettings::stops`]).
//!
//! # Choosing the mode
//! At the start and after every event the contacts that touch their planes with zero normal
//! velocity take part in the contact problem at the **acceleration level**, solved as Siconos's
//! FC3D over exact cones ([`crate::fc3d::solve_with_slips`]), not by enumerating `3^k` modes:
//! a contact at tangential rest follows the cone law between its force and its acceleration
//! (it sticks inside the cone, or starts to slip along its tangential acceleration on the
//! cone's surface); a sliding contact has its force opposite its slip. Forces that vanish leave
//! the contact free. Where Gauss–Seidel stops without a solution the run ends: at Painlevé's
//! inconsistency (`painleve`) when a sliding contact still needs a push and its normal
//! response to its own friction `(Wᵢᵢ (1, −μ d))_n` is not positive (no force of its own can
//! give the push; the evidence names it, with that response over `Wᵢᵢ,nn`), else as
//! `unsettled`, a numerical failure that claims nothing about the model.
//! After a contact's state is read off, the state is projected onto the closed contacts'
//! constraints (gaps and normal velocities zero, sticking velocities zero), mass-weighted.
//!
//! # Impacts
//! When a free contact's gap reaches zero every touching contact takes part in the impact
//! problem at the velocity level: FC3D with `W = J M⁻¹ Jᵀ` and Newton's law
//! `u_n⁺ + e u_n⁻ ≥ 0` (restitution `e`, the scene's), friction on the cone, simultaneous
//! impacts (a box landing flat, four feet at once) solved together. A plastic impact
//! (`e = 0`) never gains energy (the impulse is dissipative); with `e > 0` and friction Newton's
//! law can, and then the restitution of that impact is lowered by bisection to the largest
//! fraction of `e` whose outcome does not gain energy, as for the planar mechanisms.
//!
//! # Zeno
//! The driver detects a geometric series of impacts and extrapolates its limit; the contacts
//! that converge with it are closed there by a plastic impact and the mode is chosen as above
//! (the completed execution of P3).
//!
//! # Walking
//! A scene with a walking rule ([`super::timestep::Walking`], a scene's `[walking]` table)
//! treats its feet as passive-walker models do: a free foot's contact whose point is not ahead
//! (along `forward`, by the rule's `ahead`) of another foot's contact on the ground (closed in
//! the mode; touching, at the start of a run) cannot strike: its gap guard is held positive and the foot passes
//! through the ground (scuffing ignored). A strike is an impact problem over every touching
//! contact, as any other: the trailing foot leaves the ground when the problem gives it no
//! impulse (the compass gait's usual case), and is not forced off when it does.
//!
//! # Rest
//! A mode whose closed contacts all stick with constraint rows of rank `nv` is an equilibrium:
//! the run ends at rest.
//!
//! # Integration
//! DOPRI5, handing a stiff stretch to the Rosenbrock method RODAS4 with the flow's exact
//! Jacobian in dual numbers ([`DriverSettings::stiff`]): a contact slipping at speed `s` turns
//! its slip direction at the rate of its friction's acceleration over `s`, which holds an
//! explicit method's step to about `s` over that acceleration. The hand-over is judged by its
//! cost in evaluations and handed back where it does not pay. Gymnasium's humanoid settling on
//! the floor took 74 s to reach 3 s with DOPRI5 alone, under 7 s with the hand-over.
//!
//! Tolerances are relative to the scene's scales: the length `L` (the largest reach of a
//! collision shape from its body's origin, its size plus its offset: a point foot at the end of
//! a leg has the leg's length), the time `√(L/‖g‖)`, and the contact problem's own force and
//! acceleration scales.

use nalgebra::{DMatrix, DVector, Vector2, Vector3};
use serde::Serialize;

use super::algebra::Vec3;
use super::contact::{contact_jacobians_in, contact_points, contact_points_in, ContactPoint3};
use super::geometry::Shape;
use super::joint::Joint3;
use super::timestep::Scene3;
use super::tree::Frames;
use crate::hybrid::{DriverSettings, EventDriver, EventKind, Recorder, Termination, Tolerances, ZenoRule};
use crate::Error;

mod hybrid_impl;
pub mod modes;
pub mod variational;

pub use modes::{Contact3Mode, Modes3};

/// A state's kinematics, shared by what is evaluated there ([`EventScene::at_state`]).
pub(crate) struct StateKin {
    /// The frames, with the velocities.
    pub(crate) frames: Frames,
    /// Every contact's candidate point (`None` if a pair's number of candidates changed).
    pub(crate) points: Option<Vec<ContactPoint3>>,
}

/// The last state's kinematics: the scene's identity, the state's bits, the kinematics.
type LastState = (u64, Vec<u64>, std::rc::Rc<StateKin>);

thread_local! {
    /// The last state's kinematics on this thread ([`EventScene::at_state`]).
    static LAST_STATE: std::cell::RefCell<Option<LastState>> = const { std::cell::RefCell::new(None) };
}

/// A state's bits, the key of the per-thread caches of the last state's evaluations.
pub(crate) fn state_key(q: &[f64], v: &[f64]) -> Vec<u64> {
    q.iter().chain(v).map(|x| x.to_bits()).collect()
}

/// Whether `key` is the state `(q, v)`'s ([`state_key`]).
pub(crate) fn is_state(key: &[u64], q: &[f64], v: &[f64]) -> bool {
    key.len() == q.len() + v.len() && q.iter().chain(v).zip(key).all(|(x, k)| x.to_bits() == *k)
}

/// Largest number of contacts an event-driven scene may have.
pub const MAX_CONTACTS: usize = crate::hybrid::MAX_GUARDS / 2;

/// A gap within `CONTACT_TOL` of the length scale touches; a contact velocity within
/// `CONTACT_TOL` of the velocity scale is at rest.
pub const CONTACT_TOL: f64 = 1e-9;

/// How a contact's drift `J̇ v` is computed (module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Feature {
    /// A material point (a box corner).
    Corner,
    /// The lowest point of a sphere of this radius (a sphere, a capsule's end).
    Round(f64),
    /// A support point that moves over a surface that is not a sphere.
    Support,
    /// A side of a joint's stop: the scene's limit `limit`, its lower side if `lower`; the
    /// gap is `arm · (q − lower)` or `arm · (upper − q)` (module docs, "Joint stops").
    Stop { limit: usize, lower: bool, arm: f64 },
}

/// One contact of the scene: a candidate point of a shape against a plane, or a side of a
/// joint's stop ([`Contact3::stop`]).
#[derive(Debug, Clone, Serialize)]
pub struct Contact3 {
    /// The shape's index in the scene (`usize::MAX` for a joint's stop).
    pub shape: usize,
    /// The plane's index (`usize::MAX` for a joint's stop).
    pub plane: usize,
    /// The candidate's index among the shape's points against that plane.
    pub feature: usize,
    /// The friction coefficient.
    pub mu: f64,
    /// `shape name:feature/plane`, or `joint/lower` and `joint/upper` for a joint's stop.
    pub name: String,
    #[serde(skip)]
    kind: Feature,
}

impl Contact3 {
    /// For a side of a joint's stop, the limit's index in the scene's `limits` and whether it
    /// is the lower side; `None` for a shape's contact.
    pub fn stop(&self) -> Option<(usize, bool)> {
        match self.kind {
            Feature::Stop { limit, lower, .. } => Some((limit, lower)),
            _ => None,
        }
    }

    /// The rows a sticking contact holds: the normal and both tangents, or the normal alone
    /// for a joint's stop (frictionless, no tangent).
    pub(crate) fn stick_rows(&self) -> usize {
        if self.stop().is_some() {
            1
        } else {
            3
        }
    }
}

/// A contact's kinematics at a configuration: its gap, its rows `(n, t₁, t₂)` (3 × nv) and its
/// point.
#[derive(Debug, Clone)]
pub(crate) struct ContactKin {
    pub(crate) gap: f64,
    pub(crate) rows: DMatrix<f64>,
    pub(crate) point: ContactPoint3,
}

/// A [`Scene3`] as a hybrid system (module docs).
#[derive(Debug, Clone)]
pub struct EventScene<'a> {
    scene: &'a Scene3,
    contacts: Vec<Contact3>,
    /// `(shape, plane, first contact, count)` per pair that has candidates.
    groups: Vec<(usize, usize, usize, usize)>,
    length: f64,
    time: f64,
    q_scale: Vec<f64>,
    v_scale: Vec<f64>,
    /// This scene's identity for remembered results ([`EventScene::solve_mode`]): fresh at
    /// construction and at every change.
    id: u64,
}

/// A fresh [`EventScene`] identity.
fn fresh_id() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// The extent of a shape (the radius of a sphere around it).
impl<'a> EventScene<'a> {
    /// The scene's contacts numbered at `q` (module docs), with its scales; the joints' limits
    /// are not among them (the analyses of contacts with planes; [`Self::with_stops`]).
    pub fn new(scene: &'a Scene3, q: &[f64]) -> Result<Self, Error> {
        Self::build(scene, q, false)
    }

    /// [`Self::new`], with each side of every joint limit of the scene a contact after the
    /// shapes' (module docs, "Joint stops").
    pub fn with_stops(scene: &'a Scene3, q: &[f64]) -> Result<Self, Error> {
        Self::build(scene, q, true)
    }

    fn build(scene: &'a Scene3, q: &[f64], stops: bool) -> Result<Self, Error> {
        scene.validate()?;
        let tree = &scene.tree;
        let mut contacts = vec![];
        let mut groups = vec![];
        for (kp, plane) in scene.planes.iter().enumerate() {
            for (ks, c) in scene.shapes.iter().enumerate() {
                if c.body.is_none() || !scene.pair_touches(c, kp) {
                    continue;
                }
                let pts = contact_points(tree, q, c, plane);
                if pts.is_empty() {
                    continue;
                }
                groups.push((ks, kp, contacts.len(), pts.len()));
                let kind = match c.shape {
                    Shape::Box { .. } => Feature::Corner,
                    Shape::Sphere { radius } | Shape::Capsule { radius, .. } => Feature::Round(radius),
                    _ => Feature::Support,
                };
                for f in 0..pts.len() {
                    contacts.push(Contact3 {
                        shape: ks,
                        plane: kp,
                        feature: f,
                        mu: scene.pair_mu(c, kp),
                        name: format!("{}:{f}/{kp}", if c.name.is_empty() { "shape" } else { &c.name }),
                        kind,
                    });
                }
            }
        }
        let length = scene.reach();
        if stops {
            for (limit, lower, arm) in stop_sides(scene, length) {
                contacts.push(Contact3 {
                    shape: usize::MAX,
                    plane: usize::MAX,
                    feature: 0,
                    mu: 0.0,
                    name: stop_name(&scene.limits[limit], lower),
                    kind: Feature::Stop { limit, lower, arm },
                });
            }
        }
        if contacts.len() > MAX_CONTACTS {
            // (The scene's contacts, not an option: named as the model's.)
            return Err(Error::model(
                "contacts",
                format!(
                    "{} candidate contacts (joints' stops included); the event-driven method takes at most {MAX_CONTACTS} (use time-stepping: --method moreau, or name fewer contacts in a scene's `contacts`)",
                    contacts.len()
                ),
            ));
        }
        let g = tree.gravity.norm();
        let time = if g > 0.0 { (length / g).sqrt() } else { 1.0 };
        let (mut q_scale, mut v_scale) = (vec![1.0; tree.nq()], vec![1.0 / time; tree.nv()]);
        for (i, b) in tree.bodies().iter().enumerate() {
            let (iq, _) = tree.joint_start(i);
            linear_coordinates(&b.joint).iter().for_each(|k| q_scale[iq + k] = length);
        }
        for (iv, lin) in linear_velocities(tree).iter().enumerate() {
            if *lin {
                v_scale[iv] = length / time;
            }
        }
        Ok(Self { scene, contacts, groups, length, time, q_scale, v_scale, id: fresh_id() })
    }

    /// The contacts.
    pub fn contacts(&self) -> &[Contact3] {
        &self.contacts
    }

    /// Sets contact `i`'s friction coefficient (Painlevé's analyses at another `μ`).
    pub(crate) fn set_mu(&mut self, i: usize, mu: f64) {
        self.contacts[i].mu = mu;
        self.id = fresh_id();
    }

    /// This scene's identity (fresh at construction and at every change).
    pub(crate) fn id(&self) -> u64 {
        self.id
    }

    /// The scene.
    pub fn scene(&self) -> &Scene3 {
        self.scene
    }

    /// Number of contacts.
    pub fn nc(&self) -> usize {
        self.contacts.len()
    }

    /// The shapes' contacts (the feet), not the joints' stops: what a gait's strike is.
    pub fn shape_contacts(&self) -> Vec<usize> {
        (0..self.nc()).filter(|&i| self.contacts[i].stop().is_none()).collect()
    }

    /// The length scale (m).
    pub fn length(&self) -> f64 {
        self.length
    }

    /// The time scale (s).
    pub fn time(&self) -> f64 {
        self.time
    }

    /// The force scale (N): the total weight, or the force that gives the total mass the
    /// length scale over the time scale squared without gravity.
    pub(crate) fn force_scale(&self) -> f64 {
        let m: f64 = self.scene.tree.bodies().iter().map(|b| b.inertia.mass).sum();
        m * self.length / (self.time * self.time)
    }

    /// The velocity scale (m/s).
    pub(crate) fn vel(&self) -> f64 {
        self.length / self.time
    }

    /// The frames (with the velocities) and every contact's candidate point at `(q, v)`,
    /// computed once per state: the flow, the guards and the step limit at one state share
    /// them (the last state's on this thread is kept, as [`modes`]' last mode solution is).
    pub(crate) fn at_state(&self, q: &[f64], v: &[f64]) -> std::rc::Rc<StateKin> {
        let hit = LAST_STATE.with_borrow(|last| match last {
            Some((id, key, kin)) if *id == self.id() && is_state(key, q, v) => Some(kin.clone()),
            _ => None,
        });
        if let Some(kin) = hit {
            return kin;
        }
        let frames = self.scene.tree.frames(q, Some(v));
        let points = self.points_in(&frames);
        let kin = std::rc::Rc::new(StateKin { frames, points });
        LAST_STATE.set(Some((self.id(), state_key(q, v), kin.clone())));
        kin
    }

    /// Every contact's candidate point at `q`; `None` if a pair's number of candidates changed.
    fn points(&self, q: &[f64]) -> Option<Vec<ContactPoint3>> {
        self.points_in(&self.scene.tree.frames(q, None))
    }

    /// [`EventScene::points`] from the frames at the configuration (a joint's stop: its gap,
    /// at the world's origin).
    fn points_in(&self, frames: &Frames) -> Option<Vec<ContactPoint3>> {
        let poses = frames.world();
        let mut out = Vec::with_capacity(self.nc());
        for &(ks, kp, _, n) in &self.groups {
            let pts = contact_points_in(poses, &self.scene.shapes[ks], &self.scene.planes[kp]);
            if pts.len() != n {
                return None;
            }
            out.extend(pts);
        }
        for c in &self.contacts[out.len()..] {
            let (gap, _) = self.stop_gap_rows(c, frames.q()).expect("the contacts after the shapes' are stops");
            out.push(ContactPoint3 { body: 0, point: Vec3::zeros(), local: Vec3::zeros(), gap });
        }
        Some(out)
    }

    /// A joint's stop's gap `arm · (q − lower)` (or `arm · (upper − q)`) at `q` and its rows
    /// `(n, t₁, t₂)` (3 × nv): `±arm` on the joint's velocity, no tangent; `None` for a
    /// shape's contact.
    pub(crate) fn stop_gap_rows<T: crate::spatial::algebra::Real>(
        &self,
        c: &Contact3,
        q: &[T],
    ) -> Option<(T, DMatrix<T>)> {
        let Feature::Stop { limit, lower, arm } = c.kind else { return None };
        Some(stop_gap_rows(&self.scene.limits[limit], lower, arm, self.scene.tree.nv(), q))
    }

    /// Contact `a` is a foot not ahead of the foot contact `b` of another shape by the walking
    /// rule's distance ([`super::timestep::Walking`]), at the points `pts`.
    fn behind(&self, pts: &[ContactPoint3], a: usize, b: usize) -> bool {
        let Some(w) = &self.scene.walking else { return false };
        let (sa, sb) = (self.contacts[a].shape, self.contacts[b].shape);
        sa != sb
            && w.feet.contains(&sa)
            && w.feet.contains(&sb)
            && (pts[a].point - pts[b].point).dot(&w.forward) < w.ahead
    }

    /// Which contacts cannot strike at `q` under the walking rule: feet behind another foot's
    /// contact `on` the ground (all `false` without a rule).
    pub(crate) fn unarmed(&self, q: &[f64], on: impl Fn(usize) -> bool) -> Vec<bool> {
        let nc = self.nc();
        let pts = match self.scene.walking.as_ref().and_then(|_| self.points(q)) {
            Some(p) => p,
            None => return vec![false; nc],
        };
        (0..nc).map(|i| (0..nc).any(|j| j != i && on(j) && self.behind(&pts, i, j))).collect()
    }

    /// Every contact's gap at `q` (`NaN` if the candidates changed).
    pub fn gaps(&self, q: &[f64]) -> Vec<f64> {
        self.gaps_in(&self.scene.tree.frames(q, None))
    }

    /// [`EventScene::gaps`] from the frames at the configuration.
    pub(crate) fn gaps_in(&self, frames: &Frames) -> Vec<f64> {
        self.points_in(frames).map_or_else(|| vec![f64::NAN; self.nc()], |p| p.iter().map(|p| p.gap).collect())
    }

    /// Every contact's normal velocity `J_n v` at `(q, v)` (m/s; negative approaching its
    /// plane; `None` if the candidates changed).
    pub fn normal_velocities(&self, q: &[f64], v: &[f64]) -> Option<Vec<f64>> {
        let all: Vec<usize> = (0..self.nc()).collect();
        let v = DVector::from_column_slice(v);
        Some(self.kinematics(q, &all)?.iter().map(|k| (k.rows.row(0) * &v)[0]).collect())
    }

    /// The kinematics of the contacts `which` at `q`.
    pub(crate) fn kinematics(&self, q: &[f64], which: &[usize]) -> Option<Vec<ContactKin>> {
        self.kinematics_in(&self.scene.tree.frames(q, None), which)
    }

    /// [`EventScene::kinematics`] from frames computed at the configuration.
    pub(crate) fn kinematics_in(&self, f: &Frames, which: &[usize]) -> Option<Vec<ContactKin>> {
        self.kinematics_of(f, &self.points_in(f)?, which)
    }

    /// [`EventScene::kinematics_in`] with the contacts' points at those frames.
    pub(crate) fn kinematics_of(&self, f: &Frames, pts: &[ContactPoint3], which: &[usize]) -> Option<Vec<ContactKin>> {
        Some(
            which
                .iter()
                .map(|&i| {
                    let p = &pts[i];
                    if let Some((gap, rows)) = self.stop_gap_rows(&self.contacts[i], f.q()) {
                        return ContactKin { gap, rows, point: p.clone() };
                    }
                    let plane = &self.scene.planes[self.contacts[i].plane];
                    let (jn, jt) = contact_jacobians_in(&self.scene.tree, f, p, plane);
                    let rows = DMatrix::from_fn(3, jn.len(), |r, c| if r == 0 { jn[c] } else { jt[(r - 1, c)] });
                    ContactKin { gap: p.gap, rows, point: p.clone() }
                })
                .collect(),
        )
    }

    /// Contact `i`'s drift `d/dt (J v)` at `v̇ = 0`, rows `(n, t₁, t₂)` (module docs).
    pub(crate) fn drift(&self, q: &[f64], v: &[f64], i: usize, kin: &ContactKin) -> Vector3<f64> {
        self.drift_in(&self.scene.tree.frames(q, Some(v)), q, v, i, kin)
    }

    /// [`EventScene::drift`] from frames computed at `(q, v)` with the velocities.
    pub(crate) fn drift_in(&self, f: &Frames, q: &[f64], v: &[f64], i: usize, kin: &ContactKin) -> Vector3<f64> {
        if self.contacts[i].stop().is_some() {
            // (A stop's row is constant.)
            return Vector3::zeros();
        }
        let tree = &self.scene.tree;
        let plane = &self.scene.planes[self.contacts[i].plane];
        let (t1, t2) = plane.tangents();
        let n = plane.normal;
        let project = |a: Vec3| Vector3::new(n.dot(&a), t1.dot(&a), t2.dot(&a));
        match self.contacts[i].kind {
            Feature::Corner => project(tree.point_velocity_product_in(f, kin.point.body, &kin.point.local)),
            Feature::Round(radius) => {
                // The point moves over the sphere: its drift is the material point's less the
                // centripetal term ω × (ω × ρ), ρ = −r n fixed in the world.
                let a = tree.point_velocity_product_in(f, kin.point.body, &kin.point.local);
                let w = tree.angular_velocity_in(f, kin.point.body);
                let rho = -n * radius;
                project(a - w.cross(&w.cross(&rho)))
            }
            Feature::Stop { .. } => unreachable!("a stop's drift is zero"),
            Feature::Support => {
                // A fourth-order central difference of J v along the motion q ⊕ s v (v fixed):
                // its error O(s⁴) is below round-off at s = 1e-5 of the time scale even where
                // the contact point runs round a rim many times faster than the body turns.
                let s = 1e-5 * self.time;
                let vv = DVector::from_column_slice(v);
                let at = |dt: f64| -> Option<Vector3<f64>> {
                    let mut qs = tree.integrate(q, v, dt);
                    tree.normalize(qs.as_mut_slice());
                    let k = self.kinematics(qs.as_slice(), &[i])?;
                    let u = &k[0].rows * &vv;
                    Some(Vector3::new(u[0], u[1], u[2]))
                };
                match (at(s), at(-s), at(2.0 * s), at(-2.0 * s)) {
                    (Some(a), Some(b), Some(c), Some(d)) => ((a - b) * 8.0 - (c - d)) / (12.0 * s),
                    _ => Vector3::repeat(f64::NAN),
                }
            }
        }
    }

    /// The scale of each coordinate and velocity component.
    pub(crate) fn scales(&self) -> (&[f64], &[f64]) {
        (&self.q_scale, &self.v_scale)
    }
}

/// The coordinates of a joint that are lengths (the others are angles or a quaternion's);
/// its velocities that are linear have the same indices.
fn linear_coordinates(j: &Joint3) -> &'static [usize] {
    match j {
        Joint3::Prismatic { .. } => &[0],
        Joint3::Planar => &[0, 1],
        Joint3::Free | Joint3::Translation => &[0, 1, 2],
        _ => &[],
    }
}

/// The sides of a scene's joint limits as contacts (module docs, "Joint stops"): per limit and
/// side `(limit, lower, arm)`, the arm 1 for a slider and `length` for a hinge.
pub(crate) fn stop_sides(scene: &Scene3, length: f64) -> Vec<(usize, bool, f64)> {
    let linear = linear_velocities(&scene.tree);
    let arm = |l: &super::timestep::JointLimit| if linear[l.qvel] { 1.0 } else { length };
    (scene.limits.iter().enumerate()).flat_map(|(k, l)| [(k, true, arm(l)), (k, false, arm(l))]).collect()
}

/// A stop's name: `joint/lower` or `joint/upper`.
pub(crate) fn stop_name(l: &super::timestep::JointLimit, lower: bool) -> String {
    format!("{}/{}", l.name, if lower { "lower" } else { "upper" })
}

/// A stop's gap `arm · (q − lower)` or `arm · (upper − q)` and its rows `(n, t₁, t₂)`
/// (3 × `nv`): `±arm` on the joint's velocity, no tangent.
pub(crate) fn stop_gap_rows<T: crate::spatial::algebra::Real>(
    l: &super::timestep::JointLimit,
    lower: bool,
    arm: f64,
    nv: usize,
    q: &[T],
) -> (T, DMatrix<T>) {
    let r = crate::spatial::algebra::real::<T>;
    let (gap, sign) = if lower { (q[l.qpos] - r(l.lower), 1.0) } else { (r(l.upper) - q[l.qpos], -1.0) };
    let mut rows = DMatrix::from_element(3, nv, r(0.0));
    rows[(0, l.qvel)] = r(sign * arm);
    (gap * r(arm), rows)
}

/// Whether each velocity of the tree is linear (m/s) rather than angular.
fn linear_velocities(tree: &super::tree::SpatialTree) -> Vec<bool> {
    let mut out = vec![false; tree.nv()];
    for (i, b) in tree.bodies().iter().enumerate() {
        let (_, iv) = tree.joint_start(i);
        linear_coordinates(&b.joint).iter().for_each(|k| out[iv + k] = true);
    }
    out
}

/// Splits the state `[q; v]` (one column).
pub(crate) fn split(x: &DMatrix<f64>, nq: usize) -> (DVector<f64>, DVector<f64>) {
    let s = x.as_slice();
    (DVector::from_column_slice(&s[..nq]), DVector::from_column_slice(&s[nq..]))
}

/// Joins `q` and `v` into the state.
pub(crate) fn join(q: &DVector<f64>, v: &DVector<f64>) -> DMatrix<f64> {
    DMatrix::from_iterator(q.len() + v.len(), 1, q.iter().chain(v.iter()).copied())
}

/// Settings of [`simulate_events`].
#[derive(Debug, Clone, Copy)]
pub struct EventSettings {
    /// End time (s).
    pub t_max: f64,
    /// Largest number of events.
    pub max_events: usize,
    /// Relative integration tolerance.
    pub rtol: f64,
    /// Samples inside each integration step (besides its end).
    pub per_step: usize,
    /// Largest number of integration steps (the run then ends with `step-limit`: a slip near
    /// zero speed whose direction spins makes the steps tiny, module docs of [`modes`]).
    pub max_steps: usize,
    /// Whether the scene's joint limits are held as stops (module docs, "Joint stops"; on by
    /// default; off runs the limited joints free).
    pub stops: bool,
}

impl Default for EventSettings {
    fn default() -> Self {
        Self { t_max: 5.0, max_events: 10_000, rtol: 1e-10, per_step: 2, max_steps: 1_000_000, stops: true }
    }
}

/// One event of an event-driven run.
#[derive(Debug, Clone, Serialize)]
pub struct Event3 {
    /// Time (s).
    pub t: f64,
    /// What happened.
    pub kind: EventKind,
    /// The contact's name, if one.
    pub contact: Option<String>,
    /// The modes after it ([`Modes3`]'s notation).
    pub modes: String,
    /// Kinetic energy lost at an impact (J; never negative).
    pub energy_loss: Option<f64>,
}

/// An event-driven run: samples, events and how it ended.
#[derive(Debug, Clone, Serialize)]
pub struct EventRun3 {
    /// The contacts.
    pub contacts: Vec<Contact3>,
    /// Sample times (s).
    pub t: Vec<f64>,
    /// Configurations.
    pub q: Vec<Vec<f64>>,
    /// Velocities.
    pub v: Vec<Vec<f64>>,
    /// Total mechanical energies (J): kinetic, gravitational and the joint springs' ([`Scene3::energy`]).
    pub energy: Vec<f64>,
    /// Contacts touching their planes (gap within the contact tolerance) at each sample.
    pub touching: Vec<usize>,
    /// The events.
    pub events: Vec<Event3>,
    /// How the run ended.
    pub termination: Termination,
    /// The final mode.
    pub final_modes: Option<String>,
    /// Accepted integration steps.
    pub steps: usize,
    /// The joints whose starting position lay past a stop of their range, put on that stop
    /// before the run (module docs, "Joint stops").
    pub start_clamped: Vec<String>,
}

/// Runs the scene from `(q₀, v₀)` by the event driver (module docs).
pub fn simulate_events(scene: &Scene3, q0: &[f64], v0: &[f64], s: &EventSettings) -> Result<EventRun3, Error> {
    simulate_events_with(scene, q0, v0, s, &mut |_| {})
}

/// Reports a run's progress: called with the simulated time at every accepted step.
pub struct Progress<'a>(pub &'a mut dyn FnMut(f64));

impl<S, M> crate::hybrid::Observer<S, M> for Progress<'_> {
    fn on_step(&mut self, _step: &crate::hybrid::ode::Step<S>, t_end: f64, _mode: &M) -> std::ops::ControlFlow<()> {
        (self.0)(t_end);
        std::ops::ControlFlow::Continue(())
    }
}

/// [`simulate_events`], calling `progress` with the simulated time at every accepted step (a
/// progress bar on long runs).
pub fn simulate_events_with(
    scene: &Scene3,
    q0: &[f64],
    v0: &[f64],
    s: &EventSettings,
    progress: &mut dyn FnMut(f64),
) -> Result<EventRun3, Error> {
    use crate::error::{at_least_one, fraction, positive};
    positive("t_max", s.t_max)?;
    at_least_one("max_events", s.max_events)?;
    at_least_one("max_steps", s.max_steps)?;
    fraction("rtol", s.rtol)?;
    let tree = &scene.tree;
    if q0.len() != tree.nq() || v0.len() != tree.nv() || q0.iter().chain(v0).any(|x| !x.is_finite()) {
        return Err(Error::argument("state", format!("needs {} + {} finite values", tree.nq(), tree.nv())));
    }
    let mut q = DVector::from_column_slice(q0);
    if !tree.normalize(q.as_mut_slice()) {
        return Err(Error::argument("state", "a quaternion is zero or not finite"));
    }
    scene.validate()?;
    let (start_clamped, sys) = if s.stops {
        (
            super::timestep::clamp_to_limits(&scene.limits, q.as_mut_slice()),
            EventScene::with_stops(scene, q.as_slice())?,
        )
    } else {
        (vec![], EventScene::new(scene, q.as_slice())?)
    };
    let driver = EventDriver {
        settings: DriverSettings {
            tol: Tolerances { rtol: s.rtol, atol: s.rtol },
            t_max: s.t_max,
            max_events: s.max_events,
            max_steps: s.max_steps,
            zeno: ZenoRule::Extrapolate { tolerance: 1e-9 },
            stiff: true,
            ..DriverSettings::default()
        },
    };
    let mut rec = Recorder::new(s.per_step);
    let mut log = crate::hybrid::EventLog::default();
    let mut observers = ((&mut rec, &mut log), Progress(progress));
    let run = driver.run(&sys, 0.0, join(&q, &DVector::from_column_slice(v0)), &[], &mut observers);
    let nq = tree.nq();
    let mut out = EventRun3 {
        contacts: sys.contacts.clone(),
        t: vec![],
        q: vec![],
        v: vec![],
        energy: vec![],
        touching: vec![],
        events: vec![],
        termination: run.termination.clone(),
        final_modes: run.mode.map(|m| format!("{m:?}")),
        steps: run.steps,
        start_clamped,
    };
    for (t, x) in &rec.samples {
        let (q, v) = split(x, nq);
        out.t.push(*t);
        out.energy.push(scene.energy(*t, q.as_slice(), v.as_slice()));
        let gtol = CONTACT_TOL * sys.length();
        out.touching.push(sys.gaps(q.as_slice()).iter().filter(|g| g.abs() <= gtol).count());
        out.q.push(q.as_slice().to_vec());
        out.v.push(v.as_slice().to_vec());
    }
    for e in &log.events {
        out.events.push(Event3 {
            t: e.t,
            kind: e.info.kind,
            contact: e.info.contact.and_then(|i| sys.contacts.get(i)).map(|c| c.name.clone()),
            modes: format!("{:?}", e.mode_after),
            energy_loss: e.info.energy_loss,
        });
    }
    Ok(out)
}

/// `(d, ‖u_t‖)` of a tangential velocity: its direction, or `fallback` when it is zero.
pub(crate) fn direction(u: Vector2<f64>, fallback: Vector2<f64>) -> Vector2<f64> {
    let n = u.norm();
    if n > 0.0 {
        u / n
    } else {
        fallback
    }
}

#[cfg(test)]
mod tests;
