//! Rigid bodies in space: spatial algebra ([`algebra`]), joints ([`joint`]) and the dynamics of a
//! kinematic tree ([`tree`]: `M(q)` by the composite-rigid-body algorithm, the bias by recursive
//! Newton–Euler, points' Jacobians), after Featherstone, *Rigid Body Dynamics Algorithms* (2008),
//! in Pinocchio's conventions: spatial vectors are (linear, angular), quaternions `(x, y, z, w)`,
//! a free joint's velocity is its body's, in the body's axes. The tree's algorithms are written
//! once over the group of rigid motions ([`space::Space`]): in space ([`space::Se3`]) or in a
//! plane ([`plane::Se2`], planar vectors), where planar mechanisms run ([`planar`]).

pub mod algebra;
pub mod contact;
pub mod derivatives;
pub mod events;
pub mod geometry;
pub mod joint;
pub mod mjcf;
pub mod painleve;
pub mod planar;
pub mod plane;
pub mod section;
pub mod slip;
pub mod space;
pub mod timestep;
pub mod tree;
pub mod urdf;

pub use algebra::{Force, Motion, SpatialInertia, Transform};
pub use joint::Joint3;
pub use space::{Se3, Space};
pub use tree::{Body, Body3, SpatialTree};
