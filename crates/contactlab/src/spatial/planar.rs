//! A planar mechanism ([`crate::mechanics::multibody::Multibody`]) as a spatial tree (issue #60,
//! step 3: the planar models on the one tree).
//!
//! The tree is the spatial tree's algorithms in the plane's algebra ([`SpatialTree<Se2>`],
//! [`super::plane`]: planar vectors, three numbers each, where a lamina in space would carry six):
//! the plane is the world's `xy` plane, `z` towards the viewer, so that the planar engine's
//! counter-clockwise angles are turns about `+z`, and gravity `g (sin α, −cos α)` is the vector
//! `(g sin α, −g cos α)`. Every planar joint becomes tree joints ([`Joint2`]) with the same
//! coordinates, in the planar model's order ([`PlanarTree::order`]):
//!
//! | planar joint | tree joints |
//! |---|---|
//! | revolute, axis `s = ±1` | revolute of sign `s` (a turn about `(0, 0, s)`) |
//! | prismatic along `a` | prismatic along `a` |
//! | fixed | fixed |
//! | planar (`x, y, θ`) | the planar joint |
//! | planar along `u`, sign `s` | prismatic along `u`, prismatic along `s u^⊥`, revolute of sign `s`, on two massless bodies (`body/x`, `body/y`) |
//!
//! The velocities are the rates of the coordinates but at a planar joint, whose spatial
//! velocity takes the translation's rates in the body's turning axes (Pinocchio's convention):
//! `v = T q̇` with the block `R(θ)ᵀ` on its `(ẋ, ẏ)`. So `M` over the planar velocities is
//! `Tᵀ M T`, the bias `Tᵀ (h − M Ṫ q̇)`, a point's Jacobian `J T` and its velocity product
//! `J̇ v + J Ṫ q̇`, where `Ṫ q̇` is `θ̇ (v_y, −v_x)` on the block ([`PlanarTree::mass_to_planar`]
//! and its kin). One body carries the planar joint where three (two of them massless) did, and
//! the tree's algorithms do about half the work on a walker. The joint frame sits at the body's
//! `origin`, turned by `origin_angle` about `z`. Each body is a lamina in the plane, its central
//! inertia `I` about `z` ([`Inertia2`]).

use nalgebra::{DMatrix, DVector, Matrix2xX, Vector2};

use super::algebra::Real;
use super::plane::{Inertia2, Joint2, Se2, Transform2};
use super::tree::{Body, SpatialTree};
use crate::mechanics::multibody::{Joint, Multibody};
use crate::Error;

/// A planar tree on the spatial tree ([module docs](self)).
#[derive(Debug, Clone)]
pub struct PlanarTree {
    /// The tree, in the plane's algebra: `nq = nv =` the planar tree's number of coordinates.
    pub tree: SpatialTree<Se2>,
    /// The planar coordinate of each spatial coordinate (`order[k]` for coordinate `k` of the
    /// spatial tree; the identity unless the planar model orders its coordinates otherwise, as
    /// a URDF's file order may).
    pub order: Vec<usize>,
    /// The spatial body of each planar body (its last, massive one).
    pub body: Vec<usize>,
    /// The spatial coordinate of each planar coordinate (the inverse of `order`).
    pub index: Vec<usize>,
    /// Each planar body's angle about `z`, affine in the coordinates: a constant (the joints'
    /// `origin_angle`s down the chain) and `(planar coordinate, sign)` terms (its revolute and
    /// planar joints' turns), the planar engine's `angle`, unwrapped past `±π`.
    pub angle: Vec<(f64, Vec<(usize, f64)>)>,
    /// The spatial index of each planar joint's first velocity `v_x` (`v_y` and `ω`, and the
    /// coordinates `y` and `θ`, follow it): the blocks of `T` (module docs).
    pub planar: Vec<usize>,
}

impl PlanarTree {
    /// The planar tree `mb` on the spatial tree.
    pub fn new(mb: &Multibody) -> Result<Self, Error> {
        let g = mb.gravity_vector();
        let mut bodies: Vec<Body<Se2>> = Vec::with_capacity(mb.bodies().len());
        let (mut order, mut body) = (Vec::with_capacity(mb.dof()), Vec::with_capacity(mb.bodies().len()));
        let mut planar = vec![];
        let mut angle: Vec<(f64, Vec<(usize, f64)>)> = Vec::with_capacity(mb.bodies().len());
        for (b, pb) in mb.bodies().iter().enumerate() {
            let first = mb.first_coordinate(b);
            let (mut phi, mut turns) = pb.parent.map_or((0.0, vec![]), |p| angle[p].clone());
            phi += pb.origin_angle;
            match pb.joint {
                Joint::Revolute { axis } => turns.push((first, axis)),
                Joint::Planar => turns.push((first + 2, 1.0)),
                Joint::PlanarAxes { sign, .. } => turns.push((first + 2, sign)),
                Joint::Prismatic { .. } | Joint::Fixed => {}
            }
            angle.push((phi, turns));
            let placement = Transform2 { cos: pb.origin_angle.cos(), sin: pb.origin_angle.sin(), pos: pb.origin };
            let lamina = Inertia2 { mass: pb.mass, com: pb.com, inertia: pb.inertia };
            let massless = Inertia2 { mass: 0.0, com: Vector2::zeros(), inertia: 0.0 };
            let parent = pb.parent.map(|p| body[p]);
            let chain: Vec<(String, Joint2)> = match pb.joint {
                Joint::Revolute { axis } => vec![(pb.name.clone(), Joint2::Revolute { sign: axis })],
                Joint::Prismatic { axis } => vec![(pb.name.clone(), Joint2::Prismatic { axis })],
                Joint::Fixed => vec![(pb.name.clone(), Joint2::Fixed)],
                Joint::Planar => vec![(pb.name.clone(), Joint2::Planar)],
                Joint::PlanarAxes { x_axis: u, sign: s } => {
                    vec![
                        (format!("{}/x", pb.name), Joint2::Prismatic { axis: u }),
                        (format!("{}/y", pb.name), Joint2::Prismatic { axis: Vector2::new(-u.y, u.x) * s }),
                        (pb.name.clone(), Joint2::Revolute { sign: s }),
                    ]
                }
            };
            // (Each joint of a chain has one coordinate, the chain's `k`-th, or none; the planar
            // joint has the body's three.)
            let last = chain.len() - 1;
            for (k, (name, joint)) in chain.into_iter().enumerate() {
                bodies.push(Body {
                    name,
                    parent: if k == 0 { parent } else { Some(bodies.len() - 1) },
                    placement: if k == 0 { placement } else { <Se2 as super::space::Space>::identity() },
                    joint,
                    inertia: if k == last { lamina } else { massless },
                });
                if joint == Joint2::Planar {
                    planar.push(order.len());
                }
                order.extend((0..<Se2 as super::space::Space>::nq(&joint)).map(|j| first + k + j));
            }
            body.push(bodies.len() - 1);
        }
        let tree = SpatialTree::new(bodies, g)?;
        let mut index = vec![0; order.len()];
        for (k, &p) in order.iter().enumerate() {
            index[p] = k;
        }
        Ok(Self { tree, order, body, index, angle, planar })
    }

    /// Planar body `b`'s angle at the planar model's `q` (the planar engine's `angle`).
    pub fn body_angle<T: Real>(&self, b: usize, q: &[T]) -> T {
        let (phi, turns) = &self.angle[b];
        turns.iter().fold(super::algebra::real::<T>(*phi), |a, &(k, s)| a + q[k] * super::algebra::real::<T>(s))
    }

    /// The spatial tree's coordinates from the planar model's `x` (its velocities:
    /// [`PlanarTree::velocities`]).
    pub fn to_spatial<T: Copy>(&self, x: &[T]) -> Vec<T> {
        let mut out = Vec::with_capacity(x.len());
        self.to_spatial_into(x, &mut out);
        out
    }

    /// [`PlanarTree::to_spatial`] into `out`.
    pub fn to_spatial_into<T: Copy>(&self, x: &[T], out: &mut Vec<T>) {
        out.clear();
        out.extend(self.order.iter().map(|&k| x[k]));
    }

    /// The planar model's numbers, in its order, from the spatial tree's `y` (over its
    /// coordinates), into `out` (resized if need be).
    pub fn to_planar_into<T: Real>(&self, y: &[T], out: &mut DVector<T>) {
        if out.len() != y.len() {
            *out = DVector::zeros(y.len());
        }
        for (k, &p) in self.order.iter().enumerate() {
            out[p] = y[k];
        }
    }

    /// `(cos θ, sin θ)` of each planar joint ([`PlanarTree::planar`]'s order) at the spatial
    /// coordinates `q`: what the conversions below take, computed once per state.
    pub fn turns<T: Real>(&self, q: &[T]) -> Vec<(T, T)> {
        let mut out = Vec::with_capacity(self.planar.len());
        self.turns_into(q, &mut out);
        out
    }

    /// [`PlanarTree::turns`] into `out`.
    pub fn turns_into<T: Real>(&self, q: &[T], out: &mut Vec<(T, T)>) {
        out.clear();
        out.extend(self.planar.iter().map(|&k| {
            let (s, c) = q[k + 2].sin_cos();
            (c, s)
        }));
    }

    /// The pair `(a, b)` of a block's two entries turned by `T`'s block `Rᵀ = [[c, s], [−s, c]]`
    /// from the right (`(a, b) Rᵀ`: a row of `M T` or `J T`; the same as `R (a, b)`, a column
    /// of `Tᵀ M` or `Tᵀ h`); with `−s`, by `Rᵀ` from the left (`v = Rᵀ q̇`).
    fn turned<T: Real>(c: T, s: T, a: T, b: T) -> (T, T) {
        (c * a - s * b, s * a + c * b)
    }

    /// The spatial tree's velocities `v = T q̇` (module docs) from the planar model's `q̇`, with
    /// the planar joints' `turns` ([`PlanarTree::turns`]), into `out`.
    pub fn velocities_into<T: Real>(&self, turns: &[(T, T)], qdot: &[T], out: &mut Vec<T>) {
        self.to_spatial_into(qdot, out);
        for (&k, &(c, s)) in self.planar.iter().zip(turns) {
            (out[k], out[k + 1]) = Self::turned(c, -s, out[k], out[k + 1]);
        }
    }

    /// [`PlanarTree::velocities_into`], allocated.
    pub fn velocities<T: Real>(&self, turns: &[(T, T)], qdot: &[T]) -> Vec<T> {
        let mut out = Vec::with_capacity(qdot.len());
        self.velocities_into(turns, qdot, &mut out);
        out
    }

    /// `M` over the planar model's velocities in its order, `Tᵀ M T`, from the spatial tree's
    /// `m` with the planar joints' `turns`, into `out` (resized if need be).
    pub fn mass_to_planar<T: Real>(&self, turns: &[(T, T)], m: &DMatrix<T>, out: &mut DMatrix<T>) {
        let n = m.nrows();
        if out.shape() != (n, n) {
            *out = DMatrix::zeros(n, n);
        }
        for c in 0..n {
            for r in 0..n {
                out[(self.order[r], self.order[c])] = m[(r, c)];
            }
        }
        for (&k, &(c, s)) in self.planar.iter().zip(turns) {
            let (x, y) = (self.order[k], self.order[k + 1]);
            // Columns, then rows: M T, then Tᵀ (M T), with T's block Rᵀ = [[c, s], [−s, c]].
            for r in 0..n {
                (out[(r, x)], out[(r, y)]) = Self::turned(c, s, out[(r, x)], out[(r, y)]);
            }
            for j in 0..n {
                (out[(x, j)], out[(y, j)]) = Self::turned(c, s, out[(x, j)], out[(y, j)]);
            }
            // (The block's two off-diagonal entries are turned in different orders: one of
            // them, so that `M` stays exactly symmetric.)
            out[(y, x)] = out[(x, y)];
        }
    }

    /// `M` and the bias over the planar model's velocities at its `(q, q̇)`, in its order (the
    /// planar engine's [`Multibody::mass_and_bias`]), computed afresh.
    pub fn mass_and_bias(&self, q: &[f64], qdot: &[f64]) -> (DMatrix<f64>, DVector<f64>) {
        let qs = self.to_spatial(q);
        let turns = self.turns(&qs);
        let v = self.velocities(&turns, qdot);
        let f = self.tree.frames(&qs, Some(&v));
        let m3 = self.tree.mass_matrix_in(&f);
        let (mut m, mut h) = (DMatrix::zeros(q.len(), q.len()), DVector::zeros(q.len()));
        self.mass_to_planar(&turns, &m3, &mut m);
        self.bias_to_planar(&turns, &v, &m3, self.tree.bias_in(&f, &v).as_slice(), &mut h);
        (m, h)
    }

    /// `Ṫ q̇` on the planar joint whose block starts at `k`, from the spatial tree's velocities
    /// `v` (module docs): `θ̇ (v_y, −v_x)` (zero off the planar joints' blocks).
    fn tdot_qdot<T: Real>(v: &[T], k: usize) -> (T, T) {
        let w = v[k + 2];
        (w * v[k + 1], -(w * v[k]))
    }

    /// The bias over the planar model's velocities in its order, `Tᵀ (h − M Ṫ q̇)`, from the
    /// spatial tree's `m` and `h` at its velocities `v`, with the planar joints' `turns`, into
    /// `out` (resized if need be).
    pub fn bias_to_planar<T: Real>(&self, turns: &[(T, T)], v: &[T], m: &DMatrix<T>, h: &[T], out: &mut DVector<T>) {
        self.to_planar_into(h, out);
        for &k in &self.planar {
            let (tx, ty) = Self::tdot_qdot(v, k);
            for (r, &p) in self.order.iter().enumerate() {
                out[p] -= m[(r, k)] * tx + m[(r, k + 1)] * ty;
            }
        }
        for (&k, &(c, s)) in self.planar.iter().zip(turns) {
            let (x, y) = (self.order[k], self.order[k + 1]);
            (out[x], out[y]) = Self::turned(c, s, out[x], out[y]);
        }
    }

    /// A point's Jacobian over the planar model's velocities (`J T`; column `k` for the planar
    /// coordinate `k`) from the spatial tree's `j`, with the planar joints' `turns`.
    pub fn jacobian_to_planar<T: Real>(&self, turns: &[(T, T)], j: &Matrix2xX<T>) -> Matrix2xX<T> {
        let mut out = Matrix2xX::zeros(j.ncols());
        self.jacobian_to_planar_into(turns, j, &mut out);
        out
    }

    /// [`PlanarTree::jacobian_to_planar`] into `out` (resized if need be).
    pub fn jacobian_to_planar_into<T: Real>(&self, turns: &[(T, T)], j: &Matrix2xX<T>, out: &mut Matrix2xX<T>) {
        if out.ncols() != j.ncols() {
            *out = Matrix2xX::zeros(j.ncols());
        }
        for k in 0..j.ncols() {
            out.set_column(self.order[k], &j.column(k));
        }
        for (&k, &(c, s)) in self.planar.iter().zip(turns) {
            let (x, y) = (self.order[k], self.order[k + 1]);
            for r in 0..2 {
                (out[(r, x)], out[(r, y)]) = Self::turned(c, s, out[(r, x)], out[(r, y)]);
            }
        }
    }

    /// A point's velocity product over the planar model's velocities, `J̇ v + J Ṫ q̇`, from the
    /// spatial tree's `a = J̇ v` and Jacobian `j` at the spatial `(q, v)`.
    pub fn velocity_product_to_planar<T: Real>(&self, v: &[T], j: &Matrix2xX<T>, a: Vector2<T>) -> Vector2<T> {
        self.planar.iter().fold(a, |acc, &k| {
            let (tx, ty) = Self::tdot_qdot(v, k);
            acc + j.column(k) * tx + j.column(k + 1) * ty
        })
    }
}
