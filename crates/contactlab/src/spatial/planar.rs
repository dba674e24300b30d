//! A planar mechanism ([`crate::mechanics::multibody::Multibody`]) as a spatial tree (issue #60,
//! step 3: the planar models on the one tree).
//!
//! The plane is the world's `xy` plane, `z` towards the viewer, so that the planar engine's
//! counter-clockwise angles are turns about `+z`, and gravity `g (sin α, −cos α)` is the vector
//! `(g sin α, −g cos α, 0)`. Every planar joint becomes spatial joints whose velocities are the
//! rates of its coordinates, so the configuration and the velocity are the planar ones, in the
//! planar model's order ([`PlanarTree::order`]):
//!
//! | planar joint | spatial joints |
//! |---|---|
//! | revolute, axis `s = ±1` | revolute about `(0, 0, s)` |
//! | prismatic along `a` | prismatic along `(a_x, a_y, 0)` |
//! | fixed | fixed |
//! | planar (`x, y, θ`) | prismatic along `x`, prismatic along `y`, revolute about `z`, on two massless bodies (`body/x`, `body/y`) |
//! | planar along `u`, sign `s` | prismatic along `u`, prismatic along `s u^⊥`, revolute about `(0, 0, s)` |
//!
//! (The spatial tree's own planar joint takes the translation's rates in the body's turning
//! axes, Pinocchio's convention: the same motion with other velocities.) The joint frame sits at
//! the body's `origin`, turned by `origin_angle` about `z`. Each body is a lamina in the plane:
//! its central inertia `I` about `z`, and `I/2` about `x` and `y` (a plate's; they never act,
//! since no body turns out of the plane).

use nalgebra::{Matrix3, Vector3};

use super::algebra::{axis_angle, Real, SpatialInertia, Transform, Vec3};
use super::joint::Joint3;
use super::tree::{Body3, SpatialTree};
use crate::mechanics::multibody::{Joint, Multibody};
use crate::Error;

/// A planar tree on the spatial tree ([module docs](self)).
#[derive(Debug, Clone)]
pub struct PlanarTree {
    /// The spatial tree: `nq = nv =` the planar tree's number of coordinates.
    pub tree: SpatialTree,
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
}

impl PlanarTree {
    /// The planar tree `mb` on the spatial tree.
    pub fn new(mb: &Multibody) -> Result<Self, Error> {
        let g = mb.gravity_vector();
        let mut bodies: Vec<Body3> = Vec::with_capacity(mb.bodies().len());
        let (mut order, mut body) = (Vec::with_capacity(mb.dof()), Vec::with_capacity(mb.bodies().len()));
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
            let placement = Transform {
                rot: axis_angle(&Vec3::z(), pb.origin_angle),
                pos: Vector3::new(pb.origin.x, pb.origin.y, 0.0),
            };
            let lamina = SpatialInertia {
                mass: pb.mass,
                com: Vector3::new(pb.com.x, pb.com.y, 0.0),
                inertia: Matrix3::from_diagonal(&Vector3::new(0.5 * pb.inertia, 0.5 * pb.inertia, pb.inertia)),
            };
            let massless = SpatialInertia { mass: 0.0, com: Vector3::zeros(), inertia: Matrix3::zeros() };
            let parent = pb.parent.map(|p| body[p]);
            let chain: Vec<(String, Joint3)> = match pb.joint {
                Joint::Revolute { axis } => vec![(pb.name.clone(), Joint3::Revolute { axis: Vec3::z() * axis })],
                Joint::Prismatic { axis } => {
                    vec![(pb.name.clone(), Joint3::Prismatic { axis: Vec3::new(axis.x, axis.y, 0.0) })]
                }
                Joint::Fixed => vec![(pb.name.clone(), Joint3::Fixed)],
                Joint::Planar | Joint::PlanarAxes { .. } => {
                    let (u, s) = match pb.joint {
                        Joint::PlanarAxes { x_axis, sign } => (x_axis, sign),
                        _ => (nalgebra::Vector2::x(), 1.0),
                    };
                    vec![
                        (format!("{}/x", pb.name), Joint3::Prismatic { axis: Vec3::new(u.x, u.y, 0.0) }),
                        (format!("{}/y", pb.name), Joint3::Prismatic { axis: Vec3::new(-u.y, u.x, 0.0) * s }),
                        (pb.name.clone(), Joint3::Revolute { axis: Vec3::z() * s }),
                    ]
                }
            };
            // (Each joint of the chain has one coordinate, the chain's `k`-th, or none.)
            let last = chain.len() - 1;
            for (k, (name, joint)) in chain.into_iter().enumerate() {
                bodies.push(Body3 {
                    name,
                    parent: if k == 0 { parent } else { Some(bodies.len() - 1) },
                    placement: if k == 0 { placement } else { Transform::identity() },
                    joint,
                    inertia: if k == last { lamina } else { massless },
                });
                if joint.nq() == 1 {
                    order.push(first + k);
                }
            }
            body.push(bodies.len() - 1);
        }
        let tree = SpatialTree::new(bodies, Vec3::new(g.x, g.y, 0.0))?;
        let mut index = vec![0; order.len()];
        for (k, &p) in order.iter().enumerate() {
            index[p] = k;
        }
        Ok(Self { tree, order, body, index, angle })
    }

    /// Planar body `b`'s angle at the planar model's `q` (the planar engine's `angle`).
    pub fn body_angle<T: Real>(&self, b: usize, q: &[T]) -> T {
        let (phi, turns) = &self.angle[b];
        turns.iter().fold(super::algebra::real::<T>(*phi), |a, &(k, s)| a + q[k] * super::algebra::real::<T>(s))
    }

    /// The spatial tree's coordinates (or velocities) from the planar model's `x`.
    pub fn to_spatial<T: Copy>(&self, x: &[T]) -> Vec<T> {
        self.order.iter().map(|&k| x[k]).collect()
    }

    /// [`PlanarTree::to_spatial`] into `out`.
    pub fn to_spatial_into(&self, x: &[f64], out: &mut Vec<f64>) {
        out.clear();
        out.extend(self.order.iter().map(|&k| x[k]));
    }

    /// A matrix over the planar model's coordinates from one over the spatial tree's (`M`).
    pub fn matrix_to_planar<T: nalgebra::Scalar>(&self, m: &nalgebra::DMatrix<T>) -> nalgebra::DMatrix<T> {
        nalgebra::DMatrix::from_fn(m.nrows(), m.ncols(), |r, c| m[(self.index[r], self.index[c])].clone())
    }

    /// [`PlanarTree::matrix_to_planar`] into `out` (resized if need be).
    pub fn matrix_to_planar_into(&self, m: &nalgebra::DMatrix<f64>, out: &mut nalgebra::DMatrix<f64>) {
        if out.shape() != m.shape() {
            *out = nalgebra::DMatrix::zeros(m.nrows(), m.ncols());
        }
        for c in 0..m.ncols() {
            for r in 0..m.nrows() {
                out[(r, c)] = m[(self.index[r], self.index[c])];
            }
        }
    }

    /// [`PlanarTree::to_planar`] into `out` (resized if need be).
    pub fn to_planar_into(&self, y: &[f64], out: &mut nalgebra::DVector<f64>) {
        if out.len() != y.len() {
            *out = nalgebra::DVector::zeros(y.len());
        }
        for (k, &p) in self.order.iter().enumerate() {
            out[p] = y[k];
        }
    }

    /// The planar model's coordinates (or velocities) from the spatial tree's `y`.
    pub fn to_planar<T: Copy>(&self, y: &[T]) -> Vec<T> {
        let mut x = y.to_vec();
        for (k, &p) in self.order.iter().enumerate() {
            x[p] = y[k];
        }
        x
    }
}
