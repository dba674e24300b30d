//! A kinematic tree of rigid bodies in space and its dynamics: the joint-space inertia `M(q)` by
//! the composite-rigid-body algorithm, the bias `h(q, v)` by the recursive Newton–Euler
//! algorithm (Featherstone 2008, Tables 5.1 and 6.2), points' positions, Jacobians and
//! velocity-product accelerations, and the energies by a route of their own (each body's
//! momentum), which the tests use to check `M`.
//!
//! Sign convention (as the planar core's, [`crate::mechanics::ContactSystem`]):
//! `M(q) v̇ = h(q, v) + τ + Jᵀλ`, so `h = −(C(q, v) v + g(q))` is minus what Pinocchio calls the
//! nonlinear effects. Bodies are numbered with every parent before its children; coordinates
//! `q` and velocities `v` are the joints' in body order ([`super::joint`]).

use nalgebra::{DMatrix, DVector, Vector3};

use super::algebra::{real, Real};
use super::space::{Se3, Space};
use crate::Error;

/// One body of a [`SpatialTree`] whose bodies move in the space `A` ([`Space`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Body<A: Space = Se3> {
    /// Its name (unique in the tree).
    pub name: String,
    /// Its parent (`None`: the world).
    pub parent: Option<usize>,
    /// The joint's placement: its frame's pose in the parent's frame (the body's frame at the
    /// neutral configuration).
    pub placement: A::Transform<f64>,
    /// The joint.
    pub joint: A::Joint,
    /// The body's inertia about its frame's origin, in its axes.
    pub inertia: A::Inertia<f64>,
}

/// A body of a tree in space.
pub type Body3 = Body<Se3>;

/// A tree of bodies with gravity (module docs), moving in space (`A = Se3`, the default) or in
/// a plane ([`super::plane::Se2`]): the algorithms are the same ([`Space`]).
#[derive(Debug, Clone, PartialEq)]
pub struct SpatialTree<A: Space = Se3> {
    bodies: Vec<Body<A>>,
    /// Gravity (m/s², in the world's axes).
    pub gravity: A::Vector<f64>,
    q_start: Vec<usize>,
    v_start: Vec<usize>,
    nq: usize,
    nv: usize,
    /// Rotor inertia added to `M`'s diagonal, one per velocity (MuJoCo's `armature`).
    armature: Vec<f64>,
    /// The moving bodies, with the bodies welded to them by fixed joints folded in: the tree
    /// `M` and the bias are computed on (as Pinocchio merges fixed links into frames).
    moving: Vec<Moving<A>>,
}

/// A body with a moving joint, and what is welded to it ([`SpatialTree`]'s `moving`).
#[derive(Debug, Clone, PartialEq)]
struct Moving<A: Space> {
    /// Its index among the bodies.
    body: usize,
    /// Its parent among the moving bodies (`None`: the world, directly or through fixed joints).
    parent: Option<usize>,
    /// Its joint's placement in that parent's frame (through any fixed bodies between).
    placement: A::Transform<f64>,
    /// Its inertia and that of the bodies welded to it, in its frame.
    inertia: A::Inertia<f64>,
    /// Its parent body's pose in that moving parent's frame, when the parent is a fixed body
    /// (`placement` is this then the body's own placement).
    welded: Option<A::Transform<f64>>,
}

/// [`SpatialTree`]'s moving bodies (fixed joints folded into their moving ancestors).
fn fold_fixed<A: Space>(bodies: &[Body<A>]) -> Vec<Moving<A>> {
    let mut moving: Vec<Moving<A>> = vec![];
    // Per body: the moving body it is welded to (`None`: the world) and its pose in that
    // body's frame (the world's).
    let mut owner: Vec<(Option<usize>, A::Transform<f64>)> = Vec::with_capacity(bodies.len());
    let fixed = |b: &Body<A>| A::nv(&b.joint) == 0;
    for b in bodies {
        let (up, offset) = b.parent.map_or((None, A::identity()), |k| owner[k]);
        let at = A::then(&offset, &b.placement);
        if fixed(b) {
            if let Some(r) = up {
                moving[r].inertia = A::combined(&moving[r].inertia, &A::inertia_to_parent(&b.inertia, &at));
            }
            owner.push((up, at));
        } else {
            let welded = b.parent.filter(|&k| fixed(&bodies[k])).map(|_| offset);
            owner.push((Some(moving.len()), A::identity()));
            moving.push(Moving { body: owner.len() - 1, parent: up, placement: at, inertia: b.inertia, welded });
        }
    }
    moving
}

/// What the forward pass of the algorithms keeps per body.
struct Pass<T: Real, A: Space> {
    /// The body's pose in its parent's frame (the world's for a root).
    local: Vec<A::Transform<T>>,
    /// Its velocity, in its own frame.
    vel: Vec<A::Motion<T>>,
}

/// A configuration's forward kinematics (and, given the velocities, each body's velocity and
/// velocity-product acceleration), computed in one pass and read by the point queries
/// ([`SpatialTree::frames`]): a caller that asks about many points at one state pays for the
/// pass once.
#[derive(Debug, Clone)]
pub struct Frames<T: Real = f64, A: Space = Se3> {
    /// Each body's pose in its parent's frame.
    local: Vec<A::Transform<T>>,
    /// Each body's pose in the world.
    world: Vec<A::Transform<T>>,
    /// Each body's velocity in its own frame (empty without velocities).
    vel: Vec<A::Motion<T>>,
    /// Each body's acceleration at `v̇ = 0` without gravity, in its own frame (empty without
    /// velocities).
    acc: Vec<A::Motion<T>>,
    /// The configuration they were computed at.
    q: Vec<T>,
}

impl<T: Real, A: Space> Default for Frames<T, A> {
    fn default() -> Self {
        Self { local: vec![], world: vec![], vel: vec![], acc: vec![], q: vec![] }
    }
}

/// Storage the algorithms reuse from call to call ([`SpatialTree::mass_matrix_into`],
/// [`SpatialTree::bias_into`]): a caller that evaluates a tree many times keeps one and
/// allocates nothing after the first call.
#[derive(Debug, Clone)]
pub struct TreeWork<T: Real = f64, A: Space = Se3> {
    /// The moving bodies' poses in their moving parents' frames (when a joint is fixed).
    local: Vec<A::Transform<T>>,
    /// Their velocities (when a joint is fixed).
    vel: Vec<A::Motion<T>>,
    /// The algorithms' own storage.
    scratch: Scratch<T, A>,
}

impl<T: Real, A: Space> Default for TreeWork<T, A> {
    fn default() -> Self {
        Self { local: vec![], vel: vec![], scratch: Scratch::default() }
    }
}

/// The storage of the composite-rigid-body algorithm and recursive Newton–Euler.
#[derive(Debug, Clone)]
struct Scratch<T: Real, A: Space> {
    /// The composite inertias.
    composite: Vec<A::Inertia<T>>,
    /// Recursive Newton–Euler's accelerations and forces.
    acc: Vec<A::Motion<T>>,
    force: Vec<A::Force<T>>,
}

impl<T: Real, A: Space> Default for Scratch<T, A> {
    fn default() -> Self {
        Self { composite: vec![], acc: vec![], force: vec![] }
    }
}

impl<T: Real, A: Space> Frames<T, A> {
    /// Each body's pose in the world.
    pub fn world(&self) -> &[A::Transform<T>] {
        &self.world
    }

    /// The configuration they were computed at.
    pub fn q(&self) -> &[T] {
        &self.q
    }
}

impl<A: Space> SpatialTree<A> {
    /// A tree of `bodies` (each parent listed before its children) with `gravity`; an
    /// [`Error::Model`] names the first body that is not a valid part of one.
    pub fn new(bodies: Vec<Body<A>>, gravity: A::Vector<f64>) -> Result<Self, Error> {
        if !A::vector_finite(&gravity) {
            return Err(Error::model("gravity", "must be finite"));
        }
        let (mut q_start, mut v_start, mut nq, mut nv) = (vec![], vec![], 0, 0);
        for (i, b) in bodies.iter().enumerate() {
            let key = format!("body[{}]", b.name);
            if bodies[..i].iter().any(|o| o.name == b.name) {
                return Err(Error::model(key, "a body of this name is already defined"));
            }
            if b.parent.is_some_and(|p| p >= i) {
                return Err(Error::model(key, "its parent must come before it"));
            }
            if !A::placement_valid(&b.placement) {
                return Err(Error::model(key, "its placement must be finite with a proper rotation"));
            }
            A::check_joint(&key, &b.joint)?;
            A::check_inertia(&key, &b.inertia)?;
            q_start.push(nq);
            v_start.push(nv);
            nq += A::nq(&b.joint);
            nv += A::nv(&b.joint);
        }
        let moving = fold_fixed(&bodies);
        Ok(Self { bodies, gravity, q_start, v_start, nq, nv, armature: vec![0.0; nv], moving })
    }

    /// The tree with rotor inertias `armature` (one per velocity, each finite and ≥ 0) on the
    /// diagonal of `M`.
    pub fn with_armature(mut self, armature: Vec<f64>) -> Result<Self, Error> {
        if armature.len() != self.nv {
            return Err(Error::model("armature", format!("needs {} values (got {})", self.nv, armature.len())));
        }
        if let Some(x) = armature.iter().find(|x| !(x.is_finite() && **x >= 0.0)) {
            return Err(Error::model("armature", format!("must be finite and >= 0 (got {x})")));
        }
        self.armature = armature;
        Ok(self)
    }

    /// The rotor inertias on `M`'s diagonal.
    pub fn armature(&self) -> &[f64] {
        &self.armature
    }

    /// The bodies.
    pub fn bodies(&self) -> &[Body<A>] {
        &self.bodies
    }
    /// Number of configuration coordinates.
    pub fn nq(&self) -> usize {
        self.nq
    }
    /// Number of velocity coordinates (degrees of freedom).
    pub fn nv(&self) -> usize {
        self.nv
    }
    /// The index of the body named `name`.
    pub fn body_index(&self, name: &str) -> Option<usize> {
        self.bodies.iter().position(|b| b.name == name)
    }
    /// The first configuration and velocity coordinate of body `i`'s joint.
    pub fn joint_start(&self, i: usize) -> (usize, usize) {
        (self.q_start[i], self.v_start[i])
    }

    fn qs<'a, T>(&self, i: usize, q: &'a [T]) -> &'a [T] {
        &q[self.q_start[i]..self.q_start[i] + A::nq(&self.bodies[i].joint)]
    }
    fn vs<'a, T>(&self, i: usize, v: &'a [T]) -> &'a [T] {
        &v[self.v_start[i]..self.v_start[i] + A::nv(&self.bodies[i].joint)]
    }

    /// Each body's pose in the world.
    pub fn poses<T: Real>(&self, q: &[T]) -> Vec<A::Transform<T>> {
        self.frames(q, None).world
    }

    /// The forward kinematics at `q` (and `v`, if given) for the point queries
    /// ([`Frames`]; [`SpatialTree::point_jacobian_in`] and its kin).
    pub fn frames<T: Real>(&self, q: &[T], v: Option<&[T]>) -> Frames<T, A> {
        let mut f = Frames::default();
        self.frames_into(q, &mut f);
        if let Some(v) = v {
            self.add_velocities(&mut f, v);
        }
        f
    }

    /// [`SpatialTree::frames`] at `q` without velocities, into `f` (its storage reused).
    pub fn frames_into<T: Real>(&self, q: &[T], f: &mut Frames<T, A>) {
        f.local.clear();
        f.world.clear();
        f.vel.clear();
        f.acc.clear();
        f.q.clear();
        f.q.extend_from_slice(q);
        f.local.reserve(self.bodies.len());
        f.world.reserve(self.bodies.len());
        for (i, b) in self.bodies.iter().enumerate() {
            let local = A::then(&A::transform_cast(&b.placement), &A::joint_transform(&b.joint, self.qs(i, q)));
            let w = b.parent.map_or(local, |k| A::then(&f.world[k], &local));
            f.local.push(local);
            f.world.push(w);
        }
    }

    /// Adds the velocities `v` to frames computed without them ([`SpatialTree::frames`] at the
    /// same configuration with `v`, without recomputing the poses).
    pub fn add_velocities<T: Real>(&self, f: &mut Frames<T, A>, v: &[T]) {
        f.vel.clear();
        f.vel.reserve(self.bodies.len());
        for (i, b) in self.bodies.iter().enumerate() {
            let vp = b.parent.map_or(A::motion_zero(), |p| f.vel[p]);
            let vel = A::motion_from_parent(&f.local[i], &vp) + A::joint_motion(&b.joint, self.vs(i, v));
            f.vel.push(vel);
        }
        self.accelerations(f, v);
    }

    /// The frames' accelerations at `v̇ = 0` from their velocities.
    fn accelerations<T: Real>(&self, f: &mut Frames<T, A>, v: &[T]) {
        f.acc.clear();
        f.acc.reserve(self.bodies.len());
        for (k, b) in self.bodies.iter().enumerate() {
            let ap = b.parent.map_or(A::motion_zero(), |par| f.acc[par]);
            let vj = A::joint_motion(&b.joint, self.vs(k, v));
            let a = A::motion_from_parent(&f.local[k], &ap) + A::cross(&f.vel[k], &vj);
            f.acc.push(a);
        }
    }

    /// The moving bodies' poses in their moving parents' frames from frames: the frames' own
    /// when no joint is fixed, else each moving body's pose behind its welded parent's offset,
    /// computed into `local`.
    fn moving_poses<'a, T: Real>(
        &self,
        f: &'a Frames<T, A>,
        local: &'a mut Vec<A::Transform<T>>,
    ) -> &'a [A::Transform<T>] {
        if self.moving.len() == self.bodies.len() {
            return &f.local;
        }
        local.clear();
        local.extend(self.moving.iter().map(|m| match &m.welded {
            Some(x) => A::then(&A::transform_cast(x), &f.local[m.body]),
            None => f.local[m.body],
        }));
        local
    }

    /// [`SpatialTree::mass_matrix`] at the frames' configuration, from their poses.
    pub fn mass_matrix_in<T: Real>(&self, f: &Frames<T, A>) -> DMatrix<T> {
        let mut m = DMatrix::zeros(self.nv, self.nv);
        self.mass_matrix_into(f, &mut TreeWork::default(), &mut m);
        m
    }

    /// [`SpatialTree::mass_matrix_in`] into `m` (resized to `nv × nv` if need be), with the
    /// storage of `w`.
    pub fn mass_matrix_into<T: Real>(&self, f: &Frames<T, A>, w: &mut TreeWork<T, A>, m: &mut DMatrix<T>) {
        let local = self.moving_poses(f, &mut w.local);
        self.crba_into(local, &mut w.scratch, m);
    }

    /// [`SpatialTree::bias`] at the frames' configuration and velocities `v`, from their poses
    /// and velocities (frames computed with `v`: [`SpatialTree::add_velocities`]; frames
    /// without velocities give the same answer through a pass of their own).
    pub fn bias_in<T: Real>(&self, f: &Frames<T, A>, v: &[T]) -> DVector<T> {
        let mut h = DVector::zeros(self.nv);
        self.bias_into(f, v, &mut TreeWork::default(), &mut h);
        h
    }

    /// [`SpatialTree::bias_in`] into `h` (resized to `nv` if need be), with the storage of `w`.
    pub fn bias_into<T: Real>(&self, f: &Frames<T, A>, v: &[T], w: &mut TreeWork<T, A>, h: &mut DVector<T>) {
        if f.vel.len() != self.bodies.len() {
            *h = self.bias(&f.q, v);
            return;
        }
        let local = self.moving_poses(f, &mut w.local);
        let vel = if self.moving.len() == self.bodies.len() {
            &f.vel
        } else {
            w.vel.clear();
            w.vel.extend(self.moving.iter().map(|m| f.vel[m.body]));
            &w.vel
        };
        self.rnea_into(local, vel, v, None, &mut w.scratch, h);
        h.neg_mut();
    }

    /// The moving bodies' forward pass: poses in their moving parents' frames and velocities.
    fn moving_pass<T: Real>(&self, q: &[T], v: Option<&[T]>) -> Pass<T, A> {
        let n = self.moving.len();
        let mut local = Vec::with_capacity(n);
        let mut vel: Vec<A::Motion<T>> = Vec::with_capacity(if v.is_some() { n } else { 0 });
        for m in &self.moving {
            let j = &self.bodies[m.body].joint;
            let x = A::then(&A::transform_cast(&m.placement), &A::joint_transform(j, self.qs(m.body, q)));
            if let Some(v) = v {
                let vp = m.parent.map_or(A::motion_zero(), |p| vel[p]);
                vel.push(A::motion_from_parent(&x, &vp) + A::joint_motion(j, self.vs(m.body, v)));
            }
            local.push(x);
        }
        Pass { local, vel }
    }

    /// The joint-space inertia `M(q)` (composite-rigid-body algorithm over the moving bodies).
    pub fn mass_matrix<T: Real>(&self, q: &[T]) -> DMatrix<T> {
        self.crba(&self.moving_pass(q, None).local)
    }

    /// `M(q)` and the bias `h(q, v)` ([`Self::mass_matrix`], [`Self::bias`]) from one forward
    /// pass: what a flow evaluates at every state.
    pub fn mass_and_bias<T: Real>(&self, q: &[T], v: &[T]) -> (DMatrix<T>, DVector<T>) {
        let p = self.moving_pass(q, Some(v));
        (self.crba(&p.local), self.bias_from(&p, v))
    }

    /// The bias `−(C v + g)` over a forward pass with the velocities `v`.
    fn bias_from<T: Real>(&self, p: &Pass<T, A>, v: &[T]) -> DVector<T> {
        let mut h = self.rnea(&p.local, &p.vel, v, None);
        h.neg_mut();
        h
    }

    /// The composite-rigid-body algorithm over a forward pass's poses.
    fn crba<T: Real>(&self, local: &[A::Transform<T>]) -> DMatrix<T> {
        let mut m = DMatrix::zeros(self.nv, self.nv);
        self.crba_into(local, &mut Scratch::default(), &mut m);
        m
    }

    /// [`SpatialTree::crba`] into `m`, with the storage of `w`.
    fn crba_into<T: Real>(&self, local: &[A::Transform<T>], w: &mut Scratch<T, A>, m: &mut DMatrix<T>) {
        let composite = &mut w.composite;
        composite.clear();
        composite.extend(self.moving.iter().map(|m| A::inertia_cast(&m.inertia)));
        for i in (0..self.moving.len()).rev() {
            if let Some(k) = self.moving[i].parent {
                let c = A::inertia_to_parent(&composite[i], &local[i]);
                composite[k] = A::combined(&composite[k], &c);
            }
        }
        if m.shape() != (self.nv, self.nv) {
            *m = DMatrix::zeros(self.nv, self.nv);
        }
        m.fill(T::zero());
        for (r, &a) in self.armature.iter().enumerate() {
            m[(r, r)] = real(a);
        }
        let mut col = [T::zero(); 6];
        for (i, mi) in self.moving.iter().enumerate() {
            let joint = &self.bodies[mi.body].joint;
            for a in 0..A::nv(joint) {
                let r = self.v_start[mi.body] + a;
                let mut f = A::apply(&composite[i], &A::motion_cast(&A::column(joint, a)));
                let mut j = i;
                loop {
                    let mj = &self.moving[j];
                    let jj = &self.bodies[mj.body].joint;
                    A::project(jj, &f, &mut col);
                    for (c, &x) in col[..A::nv(jj)].iter().enumerate() {
                        let k = self.v_start[mj.body] + c;
                        m[(r, k)] = if k == r { x + real(self.armature[r]) } else { x };
                        m[(k, r)] = m[(r, k)];
                    }
                    match mj.parent {
                        Some(k) => {
                            f = A::force_to_parent(&local[j], &f);
                            j = k;
                        }
                        None => break,
                    }
                }
            }
        }
    }

    /// The inverse dynamics `τ = M v̇ + C v + g` (recursive Newton–Euler over the moving
    /// bodies; the armature's `diag(a) v̇` included).
    pub fn inverse_dynamics<T: Real>(&self, q: &[T], v: &[T], vdot: &[T]) -> DVector<T> {
        let p = self.moving_pass(q, Some(v));
        self.rnea(&p.local, &p.vel, v, Some(vdot))
    }

    /// Recursive Newton–Euler over a forward pass with the velocities `v` (`vdot` `None`: zero).
    fn rnea<T: Real>(
        &self,
        local: &[A::Transform<T>],
        vel: &[A::Motion<T>],
        v: &[T],
        vdot: Option<&[T]>,
    ) -> DVector<T> {
        let mut tau = DVector::zeros(self.nv);
        self.rnea_into(local, vel, v, vdot, &mut Scratch::default(), &mut tau);
        tau
    }

    /// [`SpatialTree::rnea`] into `tau` (resized to `nv` if need be), with the storage of `w`.
    fn rnea_into<T: Real>(
        &self,
        local: &[A::Transform<T>],
        vel: &[A::Motion<T>],
        v: &[T],
        vdot: Option<&[T]>,
        w: &mut Scratch<T, A>,
        tau: &mut DVector<T>,
    ) {
        let n = self.moving.len();
        // Gravity as an upward acceleration of the world (Featherstone's trick).
        let a0 = A::lift::<T>(&self.gravity);
        let (acc, force) = (&mut w.acc, &mut w.force);
        acc.clear();
        force.clear();
        for (i, m) in self.moving.iter().enumerate() {
            let inertia = A::inertia_cast::<T>(&m.inertia);
            let joint = &self.bodies[m.body].joint;
            let ap = m.parent.map_or(a0, |k| acc[k]);
            let vj = A::joint_motion(joint, self.vs(m.body, v));
            let mut a = A::motion_from_parent(&local[i], &ap) + A::cross(&vel[i], &vj);
            if let Some(vdot) = vdot {
                a += A::joint_motion(joint, self.vs(m.body, vdot));
            }
            force.push(A::apply(&inertia, &a) + A::cross_force(&vel[i], &A::apply(&inertia, &vel[i])));
            acc.push(a);
        }
        if tau.len() != self.nv {
            *tau = DVector::zeros(self.nv);
        }
        match vdot {
            Some(vdot) => {
                for ((t, &a), &x) in tau.iter_mut().zip(&self.armature).zip(vdot) {
                    *t = real::<T>(a) * x;
                }
            }
            None => tau.fill(T::zero()),
        }
        for i in (0..n).rev() {
            let m = &self.moving[i];
            let joint = &self.bodies[m.body].joint;
            let (s, k) = (self.v_start[m.body], A::nv(joint));
            let mut proj = [T::zero(); 6];
            A::project(joint, &force[i], &mut proj[..k]);
            for (t, &p) in tau.as_mut_slice()[s..s + k].iter_mut().zip(&proj[..k]) {
                *t += p;
            }
            if let Some(par) = m.parent {
                let f = A::force_to_parent(&local[i], &force[i]);
                force[par] += f;
            }
        }
    }

    /// The bias `h(q, v) = −(C(q, v) v + g(q))` (module docs).
    pub fn bias<T: Real>(&self, q: &[T], v: &[T]) -> DVector<T> {
        self.bias_from(&self.moving_pass(q, Some(v)), v)
    }

    /// The kinetic energy `Σ ½ vᵢ · Iᵢ vᵢ` over the bodies (each body's momentum: not through
    /// `M`), plus the rotors' `½ a v²`.
    pub fn kinetic_energy(&self, q: &[f64], v: &[f64]) -> f64 {
        let f = self.frames(q, Some(v));
        let rotors: f64 = self.armature.iter().zip(v).map(|(a, x)| 0.5 * a * x * x).sum();
        rotors
            + self
                .bodies
                .iter()
                .zip(&f.vel)
                .map(|(b, vel)| 0.5 * A::power(vel, &A::apply(&b.inertia, vel)))
                .sum::<f64>()
    }

    /// The gravitational potential energy `−Σ mᵢ g · cᵢ` (zero at the world's origin).
    pub fn potential_energy(&self, q: &[f64]) -> f64 {
        let poses = self.poses(q);
        self.bodies
            .iter()
            .zip(&poses)
            .map(|(b, x)| {
                let (mass, com) = A::mass_and_com(&b.inertia);
                -mass * A::vector_dot(&self.gravity, &A::point(x, &com))
            })
            .sum()
    }

    /// The world position of the point `p` (in body `i`'s frame).
    pub fn point_position<T: Real>(&self, q: &[T], i: usize, p: &A::Vector<T>) -> A::Vector<T> {
        A::point(&self.poses(q)[i], p)
    }

    /// The Jacobian `J` (a row per component of a vector, `nv` columns) of the world velocity
    /// of the point `p` of body `i`: `ṗ = J v`.
    pub fn point_jacobian<T: Real>(&self, q: &[T], i: usize, p: &A::Vector<T>) -> A::Jacobian<T> {
        self.point_jacobian_in(&self.frames(q, None), i, p)
    }

    /// [`SpatialTree::point_jacobian`] from frames computed at the configuration.
    pub fn point_jacobian_in<T: Real>(&self, f: &Frames<T, A>, i: usize, p: &A::Vector<T>) -> A::Jacobian<T> {
        let mut jac = A::jacobian_zeros(self.nv);
        self.point_jacobian_into(f, i, p, &mut jac);
        jac
    }

    /// [`SpatialTree::point_jacobian_in`] into `jac` (its storage kept when it has `nv` columns).
    pub fn point_jacobian_into<T: Real>(&self, f: &Frames<T, A>, i: usize, p: &A::Vector<T>, jac: &mut A::Jacobian<T>) {
        A::jacobian_clear(jac, self.nv);
        // Walk up from the body, carrying the point's frame: column k of joint j is S_jk moved
        // to body i's frame, read at p, in world axes.
        let to_world = &f.world[i];
        let mut x = A::identity(); // body j's pose in body i's frame
        let mut j = i;
        loop {
            let b = &self.bodies[j];
            for k in 0..A::nv(&b.joint) {
                let m = A::motion_to_parent(&x, &A::motion_cast(&A::column(&b.joint, k)));
                let vel = A::point_velocity(&m, p);
                A::set_jacobian_column(jac, self.v_start[j] + k, &A::rotate(to_world, &vel));
            }
            match b.parent {
                Some(par) => {
                    x = A::then(&x, &A::inverse(&f.local[j]));
                    j = par;
                }
                None => break,
            }
        }
    }

    /// The point's acceleration when `v̇ = 0`, without gravity: `J̇ v` (world axes).
    pub fn point_velocity_product<T: Real>(&self, q: &[T], v: &[T], i: usize, p: &A::Vector<T>) -> A::Vector<T> {
        self.point_velocity_product_in(&self.frames(q, Some(v)), i, p)
    }

    /// [`SpatialTree::point_velocity_product`] from frames computed with the velocities.
    pub fn point_velocity_product_in<T: Real>(&self, f: &Frames<T, A>, i: usize, p: &A::Vector<T>) -> A::Vector<T> {
        // The classical acceleration of the point from the spatial one (all in body i's axes).
        A::rotate(&f.world[i], &A::point_acceleration(&f.acc[i], &f.vel[i], p))
    }
}

impl SpatialTree {
    /// `q̇` from `q` and `v`.
    pub fn qdot<T: Real>(&self, q: &[T], v: &[T]) -> DVector<T> {
        let mut out = DVector::zeros(self.nq);
        for (i, b) in self.bodies.iter().enumerate() {
            let s = self.q_start[i];
            b.joint.qdot(self.qs(i, q), self.vs(i, v), &mut out.as_mut_slice()[s..s + b.joint.nq()]);
        }
        out
    }

    /// `q ⊕ v dt`: each joint moved at the constant velocity `v` for `dt` by its exponential
    /// map ([`Joint3::integrate`](super::joint::Joint3::integrate); quaternions stay unit).
    pub fn integrate(&self, q: &[f64], v: &[f64], dt: f64) -> DVector<f64> {
        let mut out = DVector::zeros(self.nq);
        for (i, b) in self.bodies.iter().enumerate() {
            let s = self.q_start[i];
            b.joint.integrate(self.qs(i, q), self.vs(i, v), dt, &mut out.as_mut_slice()[s..s + b.joint.nq()]);
        }
        out
    }

    /// `q1 ⊖ q0`: the velocity that takes `q0` to `q1` in unit time, joint by joint
    /// ([`Joint3::difference`](super::joint::Joint3::difference); the inverse of [`SpatialTree::integrate`] with `dt = 1`).
    pub fn difference(&self, q0: &[f64], q1: &[f64]) -> DVector<f64> {
        let mut out = DVector::zeros(self.nv);
        for (i, b) in self.bodies.iter().enumerate() {
            let s = self.v_start[i];
            b.joint.difference(self.qs(i, q0), self.qs(i, q1), &mut out.as_mut_slice()[s..s + b.joint.nv()]);
        }
        out
    }

    /// The neutral configuration (zero angles and displacements, identity rotations).
    pub fn neutral(&self) -> DVector<f64> {
        let mut q = DVector::zeros(self.nq);
        for (i, b) in self.bodies.iter().enumerate() {
            let s = self.q_start[i];
            b.joint.neutral(&mut q.as_mut_slice()[s..s + b.joint.nq()]);
        }
        q
    }

    /// Scales every quaternion of `q` to unit length; `false` if one is zero or not finite.
    pub fn normalize<T: Real>(&self, q: &mut [T]) -> bool {
        self.bodies.iter().enumerate().all(|(i, b)| {
            let s = self.q_start[i];
            b.joint.normalize(&mut q[s..s + b.joint.nq()])
        })
    }

    /// Body `i`'s angular velocity in the world's axes.
    pub fn angular_velocity<T: Real>(&self, q: &[T], v: &[T], i: usize) -> Vector3<T> {
        self.angular_velocity_in(&self.frames(q, Some(v)), i)
    }

    /// [`SpatialTree::angular_velocity`] from frames computed with the velocities.
    pub fn angular_velocity_in<T: Real>(&self, f: &Frames<T>, i: usize) -> Vector3<T> {
        f.world[i].rot * f.vel[i].ang
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::super::algebra::{rpy, Mat3, SpatialInertia, Transform, Vec3};
    use super::super::joint::Joint3;
    use super::*;

    /// A tree with every joint type: a free base, a ball joint, revolute and prismatic joints
    /// about skew axes, a fixed body and a planar one, with off-diagonal inertias.
    pub(crate) fn sample() -> SpatialTree {
        let inertia = |m: f64, c: [f64; 3], d: [f64; 3], r: [f64; 3]| {
            let rot = rpy(r[0], r[1], r[2]);
            SpatialInertia {
                mass: m,
                com: Vec3::from(c),
                inertia: rot * Mat3::from_diagonal(&Vec3::from(d)) * rot.transpose(),
            }
        };
        let place = |p: [f64; 3], r: [f64; 3]| Transform { rot: rpy(r[0], r[1], r[2]), pos: Vec3::from(p) };
        let body = |name: &str, parent: Option<usize>, placement, joint, inertia| Body3 {
            name: name.into(),
            parent,
            placement,
            joint,
            inertia,
        };
        let bodies = vec![
            body(
                "base",
                None,
                place([0.1, 0.0, 0.5], [0.0, 0.0, 0.0]),
                Joint3::Free,
                inertia(5.0, [0.02, -0.01, 0.03], [0.2, 0.3, 0.4], [0.1, 0.2, 0.3]),
            ),
            body(
                "hip",
                Some(0),
                place([0.2, 0.1, 0.0], [0.3, 0.0, -0.2]),
                Joint3::Revolute { axis: Vec3::new(1.0, 2.0, 2.0) / 3.0 },
                inertia(1.0, [0.0, 0.1, -0.1], [0.01, 0.02, 0.02], [0.5, 0.0, 0.1]),
            ),
            body(
                "knee",
                Some(1),
                place([0.0, 0.0, -0.3], [0.0, 0.4, 0.0]),
                Joint3::Prismatic { axis: Vec3::new(0.0, 0.6, 0.8) },
                inertia(0.7, [0.05, 0.0, -0.15], [0.02, 0.02, 0.005], [0.0, 0.3, 0.0]),
            ),
            body(
                "foot",
                Some(2),
                place([0.0, 0.0, -0.3], [0.1, 0.0, 0.0]),
                Joint3::Fixed,
                inertia(0.2, [0.0, 0.0, -0.02], [0.001, 0.001, 0.001], [0.0, 0.0, 0.0]),
            ),
            body(
                "shoulder",
                Some(0),
                place([-0.2, 0.0, 0.1], [0.0, 0.0, 0.7]),
                Joint3::Ball,
                inertia(1.2, [0.0, 0.0, -0.2], [0.03, 0.03, 0.01], [0.2, -0.1, 0.0]),
            ),
            body(
                "slider",
                Some(4),
                place([0.0, 0.0, -0.4], [0.0, -0.3, 0.0]),
                Joint3::Planar,
                inertia(0.5, [0.1, 0.0, 0.0], [0.004, 0.005, 0.006], [0.0, 0.0, 0.4]),
            ),
        ];
        SpatialTree::new(bodies, Vec3::new(0.0, 0.0, -9.81)).unwrap()
    }

    fn state(t: &SpatialTree) -> (Vec<f64>, Vec<f64>) {
        let mut q: Vec<f64> = (0..t.nq()).map(|k| 0.3 * (1.7 * k as f64 + 0.4).sin()).collect();
        assert!(t.normalize(&mut q));
        let v: Vec<f64> = (0..t.nv()).map(|k| 0.8 * (0.9 * k as f64 + 1.1).cos()).collect();
        (q, v)
    }

    #[test]
    fn the_mass_matrix_is_the_kinetic_energy_s_hessian() {
        // ½ vᵀ M v against Σ ½ vᵢ·Iᵢvᵢ (each body's momentum, not the CRBA), for basis vectors and
        // their sums: M_ij = T(eᵢ + eⱼ) − T(eᵢ) − T(eⱼ).
        let t = sample();
        let (q, _) = state(&t);
        let m = t.mass_matrix(&q);
        let e = |k: usize| (0..t.nv()).map(|r| if r == k { 1.0 } else { 0.0 }).collect::<Vec<_>>();
        let ke = |v: &[f64]| t.kinetic_energy(&q, v);
        for i in 0..t.nv() {
            for j in 0..t.nv() {
                let sum: Vec<f64> = e(i).iter().zip(e(j)).map(|(a, b)| a + b).collect();
                let mij = if i == j { 2.0 * ke(&e(i)) } else { ke(&sum) - ke(&e(i)) - ke(&e(j)) };
                assert!((m[(i, j)] - mij).abs() < 1e-12, "M[{i},{j}] = {} vs {mij}", m[(i, j)]);
            }
        }
        assert!(m.clone().cholesky().is_some());
    }

    #[test]
    fn one_pass_gives_the_mass_matrix_and_bias_of_two_and_the_inverse_dynamics() {
        // mass_and_bias shares the forward pass: the same numbers as mass_matrix and bias, to
        // the bit; and with the armature, M v̇ − h is the inverse dynamics' τ.
        let t = sample();
        let t = t.clone().with_armature((0..t.nv()).map(|k| 0.01 * k as f64).collect()).unwrap();
        let (q, v) = state(&t);
        let (m, h) = t.mass_and_bias(&q, &v);
        assert_eq!(m, t.mass_matrix(&q));
        assert_eq!(h, t.bias(&q, &v));
        let vdot: Vec<f64> = (0..t.nv()).map(|k| (0.3 * k as f64).sin()).collect();
        let tau = t.inverse_dynamics(&q, &v, &vdot);
        let expected = &m * DVector::from_column_slice(&vdot) - &h;
        assert!((&tau - &expected).amax() <= 1e-12 * expected.amax(), "{tau} vs {expected}");
    }

    #[test]
    fn frames_give_the_mass_matrix_and_bias_of_their_state() {
        // From frames computed without the velocities and then given them, M and h equal the
        // algorithms' own (the sample welds a body behind a fixed joint: its moving child's pose
        // is rebuilt through the weld), and so do the frames' point queries.
        let mut bodies = sample().bodies().to_vec();
        let foot = bodies.iter().position(|b| b.name == "foot").unwrap();
        bodies.push(Body3 {
            name: "toe".into(),
            parent: Some(foot),
            placement: Transform { rot: rpy(0.3, 0.0, 0.2), pos: Vec3::new(0.05, 0.0, -0.1) },
            joint: Joint3::Revolute { axis: Vec3::y() },
            inertia: SpatialInertia { mass: 0.1, com: Vec3::new(0.02, 0.0, 0.0), inertia: Mat3::identity() * 1e-4 },
        });
        let t = SpatialTree::new(bodies, Vec3::new(0.0, 0.0, -9.81)).unwrap();
        let (q, v) = state(&t);
        let mut f = t.frames(&q, None);
        let mm = t.mass_matrix(&q);
        assert!((t.mass_matrix_in(&f) - &mm).amax() <= 1e-14 * mm.amax());
        let h = t.bias(&q, &v);
        // (Frames without velocities: the same bias through a pass of its own.)
        assert_eq!(t.bias_in(&f, &v), h);
        t.add_velocities(&mut f, &v);
        let g = t.frames(&q, Some(&v));
        assert!((t.bias_in(&f, &v) - &h).amax() <= 1e-13 * h.amax());
        let p = Vec3::new(0.1, -0.2, 0.3);
        for i in 0..t.bodies().len() {
            let (a, b) = (t.point_velocity_product_in(&f, i, &p), t.point_velocity_product_in(&g, i, &p));
            assert_eq!(a, b, "body {i}");
        }
    }

    #[test]
    fn storage_reused_between_states_gives_the_fresh_answers_bit_for_bit() {
        // One Frames and one TreeWork reused over states of different trees (the sample, with a
        // fixed joint, and a chain without one, of other sizes) give what fresh storage gives.
        let chain = SpatialTree::new(
            (0..3usize)
                .map(|k| Body3 {
                    name: format!("link{k}"),
                    parent: k.checked_sub(1),
                    placement: Transform { rot: rpy(0.1 * k as f64, 0.0, 0.0), pos: Vec3::new(0.0, 0.0, -0.3) },
                    joint: Joint3::Revolute { axis: Vec3::y() },
                    inertia: SpatialInertia {
                        mass: 1.0,
                        com: Vec3::new(0.0, 0.0, -0.15),
                        inertia: Mat3::identity() * 0.01,
                    },
                })
                .collect(),
            Vec3::new(0.0, 0.0, -9.81),
        )
        .unwrap();
        let (mut f, mut w) = (Frames::default(), TreeWork::default());
        let (mut m, mut h) = (DMatrix::zeros(1, 1), DVector::zeros(1));
        for t in [sample(), chain, sample()] {
            let (q, v) = state(&t);
            t.frames_into(&q, &mut f);
            t.mass_matrix_into(&f, &mut w, &mut m);
            assert_eq!(m, t.mass_matrix(&q));
            t.add_velocities(&mut f, &v);
            t.bias_into(&f, &v, &mut w, &mut h);
            assert_eq!(h, t.bias_in(&t.frames(&q, Some(&v)), &v));
        }
    }

    #[test]
    fn free_motion_conserves_energy_and_points_move_with_their_jacobians() {
        // d(T + V)/dt = vᵀ(h − ... ) = 0 along v̇ = M⁻¹h: checks h against M, the energies and q̇.
        let t = sample();
        let (q, v) = state(&t);
        let vdot = t.mass_matrix(&q).cholesky().unwrap().solve(&t.bias(&q, &v));
        let qd = t.qdot(&q, &v);
        let energy = |s: f64| {
            let mut qs: Vec<f64> = q.iter().zip(qd.iter()).map(|(a, b)| a + s * b).collect();
            t.normalize(&mut qs);
            let vs: Vec<f64> = v.iter().zip(vdot.iter()).map(|(a, b)| a + s * b).collect();
            t.kinetic_energy(&qs, &vs) + t.potential_energy(&qs)
        };
        let h = 1e-5;
        let rate = (energy(h) - energy(-h)) / (2.0 * h);
        let scale = t.kinetic_energy(&q, &v) + t.potential_energy(&q).abs();
        assert!(rate.abs() < 1e-7 * scale, "dE/dt = {rate}");
        // Inverse dynamics inverts forward dynamics.
        let tau = t.inverse_dynamics(&q, &v, vdot.as_slice());
        assert!(tau.norm() < 1e-10 * t.bias(&q, &v).norm());
        // A point's velocity and acceleration from its Jacobian and J̇v, by differences.
        let p = Vec3::new(0.05, -0.02, -0.1);
        for body in [2, 3, 5] {
            let jv = t.point_jacobian(&q, body, &p) * DVector::from_column_slice(&v);
            let at = |s: f64| {
                let mut qs: Vec<f64> = q.iter().zip(qd.iter()).map(|(a, b)| a + s * b).collect();
                t.normalize(&mut qs);
                t.point_position(&qs, body, &p)
            };
            let fd = (at(h) - at(-h)) / (2.0 * h);
            assert!((fd - jv).norm() < 1e-8, "body {body}: {fd} vs {jv}");
            // J̇v: the derivative of J v along q̇ with v held.
            let jv_at = |s: f64| {
                let mut qs: Vec<f64> = q.iter().zip(qd.iter()).map(|(a, b)| a + s * b).collect();
                t.normalize(&mut qs);
                t.point_jacobian(&qs, body, &p) * DVector::from_column_slice(&v)
            };
            let fd = (jv_at(h) - jv_at(-h)) / (2.0 * h);
            let jdv = t.point_velocity_product(&q, &v, body, &p);
            assert!((fd - jdv).norm() < 1e-7, "body {body}: {fd} vs {jdv}");
        }
    }

    #[test]
    fn difference_inverts_integrate_on_the_whole_tree() {
        let t = sample();
        let (q, v) = state(&t);
        let q1 = t.integrate(&q, &v, 0.3);
        let back = t.difference(&q, q1.as_slice());
        assert!(back.iter().zip(&v).all(|(a, b)| (a - 0.3 * b).abs() < 1e-12), "{back} vs {v:?}");
    }

    #[test]
    fn one_free_body_follows_newton_and_euler() {
        // A free body with its centre of mass at its origin: h = (−m ω×v + m Rᵀg, −ω×Iω).
        let ic = Mat3::new(0.3, 0.02, -0.01, 0.02, 0.5, 0.03, -0.01, 0.03, 0.7);
        let b = Body3 {
            name: "box".into(),
            parent: None,
            placement: Transform::identity(),
            joint: Joint3::Free,
            inertia: SpatialInertia { mass: 2.0, com: Vec3::zeros(), inertia: ic },
        };
        let g = Vec3::new(0.0, 0.0, -9.81);
        let t = SpatialTree::new(vec![b], g).unwrap();
        let mut q = vec![0.4, -0.2, 1.0, 0.1, 0.3, -0.2, 0.9];
        t.normalize(&mut q);
        let v = [0.5, -0.3, 0.2, 1.1, -0.7, 0.4];
        let (lin, om) = (Vec3::new(v[0], v[1], v[2]), Vec3::new(v[3], v[4], v[5]));
        let r = t.poses(&q)[0].rot;
        let h = t.bias(&q, &v);
        let hl = -om.cross(&lin) * 2.0 + r.transpose() * g * 2.0;
        let ha = -om.cross(&(ic * om));
        assert!((Vec3::new(h[0], h[1], h[2]) - hl).norm() < 1e-12 && (Vec3::new(h[3], h[4], h[5]) - ha).norm() < 1e-12);
    }

    #[test]
    fn malformed_trees_are_refused_by_name() {
        let t = sample();
        let mut bodies = t.bodies().to_vec();
        bodies[2].inertia.mass = -1.0;
        let e = SpatialTree::new(bodies, t.gravity).unwrap_err().to_string();
        assert!(e.contains("body[knee]") && e.contains("mass"), "{e}");
        let mut bodies = t.bodies().to_vec();
        bodies[1].joint = Joint3::Revolute { axis: Vec3::new(1.0, 1.0, 0.0) };
        assert!(SpatialTree::new(bodies, t.gravity).unwrap_err().to_string().contains("unit vector"));
        let mut bodies = t.bodies().to_vec();
        bodies[4].inertia.inertia = Mat3::from_diagonal(&Vec3::new(0.1, 0.1, 0.5));
        assert!(SpatialTree::new(bodies, t.gravity).unwrap_err().to_string().contains("triangle"));
        let mut bodies = t.bodies().to_vec();
        bodies[1].parent = Some(3);
        assert!(SpatialTree::new(bodies, t.gravity).unwrap_err().to_string().contains("before"));
    }
}
