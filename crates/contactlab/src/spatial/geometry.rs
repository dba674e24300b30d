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
    /// MuJoCo's collision bits `(contype, conaffinity)`: two geoms touch when
    /// `contype₁ & conaffinity₂` or `contype₂ & conaffinity₁` is nonzero (`(1, 1)`, MuJoCo's
    /// default, for every URDF shape; [`bits_touch`]).
    pub bits: (u32, u32),
}

/// A body's collision geometry that contactlab read but cannot collide (a mesh, a height
/// field): the body passes through whatever it would have touched.
#[derive(Debug, Clone, PartialEq)]
pub struct Skipped {
    /// The body (index in the tree).
    pub body: usize,
    /// What was skipped (`collision mesh 'chassis.stl'`).
    pub what: String,
    /// Its collision bits `(contype, conaffinity)`.
    pub bits: (u32, u32),
}

/// Whether two shapes with collision bits `a` and `b` (`(contype, conaffinity)`) may touch:
/// `contype_a & conaffinity_b` or `contype_b & conaffinity_a` nonzero, as MuJoCo filters pairs.
pub fn bits_touch(a: (u32, u32), b: (u32, u32)) -> bool {
    (a.0 & b.1) != 0 || (b.0 & a.1) != 0
}
