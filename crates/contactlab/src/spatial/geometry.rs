//! Collision geometry of a spatial tree's bodies (read from URDF and MJCF files).

use super::algebra::{Transform, Vec3};

/// A collision shape of a link, centred at its pose's origin.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Shape {
    /// A sphere.
    Sphere {
        /// Radius (m).
        radius: f64,
    },
    /// A box with these edge lengths along its axes (m).
    Box {
        /// Edge lengths.
        size: Vec3,
    },
    /// A cylinder along its z axis.
    Cylinder {
        /// Radius (m).
        radius: f64,
        /// Length (m).
        length: f64,
    },
    /// A capsule: a cylinder along z with hemispherical ends.
    Capsule {
        /// Radius (m).
        radius: f64,
        /// Length of the cylindrical part (m).
        length: f64,
    },
    /// An ellipsoid with these semi-axes (m).
    Ellipsoid {
        /// Semi-axes along x, y, z.
        radii: Vec3,
    },
    /// A plane: the shape's xy plane, its normal `+z` (a half-space below it is solid).
    Plane,
}

/// One collision shape: the body it belongs to, its pose in the body's frame, and its shape.
#[derive(Debug, Clone, PartialEq)]
pub struct Collision {
    /// Its name (empty if the file gives none).
    pub name: String,
    /// The body (index in the tree; `None`: the world).
    pub body: Option<usize>,
    /// The shape's pose in the body's frame.
    pub pose: Transform,
    /// The shape.
    pub shape: Shape,
    /// Its Coulomb friction coefficient, when the file gives one (MJCF's `friction`, first
    /// number; a contact pair takes the larger of its two, as MuJoCo does).
    pub friction: Option<f64>,
}
