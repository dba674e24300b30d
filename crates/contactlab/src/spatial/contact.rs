//! Contacts of a spatial tree's collision shapes with planes: candidate points, gaps, contact
//! frames and Jacobians (the kinematics under 3-D frictional contact).
//!
//! A plane is a point `p₀` and a unit normal `n` (the solid below, as MuJoCo's `plane` geoms and
//! the ground). A shape touches it at the point of the shape lowest along `n`:
//!
//! * a sphere of radius `r` centred at `c`: `c − r n`, gap `n·(c − p₀) − r`;
//! * a capsule: each end as a sphere (a capsule is closest to a plane at an end);
//! * a box: each of its eight corners;
//! * a cylinder: each end's rim, at its lowest point `e − r w/|w|` with `w = n − (n·u)u` for the
//!   axis `u` (a rim flat on the plane, `w = 0`, touches along its whole circle: four rim points
//!   90° apart stand for it);
//! * an ellipsoid with semi-axes `A` in axes `R`: its support point `c − R A² Rᵀ n / ‖A Rᵀ n‖`.
//!
//! A contact's Jacobians are those of the material point of the body at the contact point: the
//! normal `J_n = nᵀ J` (so `ġ = J_n v`: the point's velocity along `n` is the gap's rate for
//! every shape above, the lowest point being extremal) and the tangential `J_t = [t₁ᵀ J; t₂ᵀ J]`
//! with `(t₁, t₂, n)` a right-handed orthonormal frame fixed by the plane.

use nalgebra::{Matrix2xX, Matrix3, RowDVector, Vector3};

use super::algebra::{real, real3, Real, Transform, Vec3};
use super::geometry::{Collision, Shape};
use super::tree::{Frames, SpatialTree};

/// A plane: a point on it and its unit normal (pointing out of the solid).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Plane {
    /// A point of the plane (world).
    pub point: Vec3,
    /// Its unit normal (world).
    pub normal: Vec3,
}

impl Plane {
    /// The plane through `point` with normal `normal` (normalised); `None` if it is zero or
    /// not finite.
    pub fn new(point: Vec3, normal: Vec3) -> Option<Self> {
        let l = normal.norm();
        (l > 0.0 && l.is_finite() && point.iter().all(|x| x.is_finite())).then(|| Self { point, normal: normal / l })
    }

    /// The tangent directions `(t₁, t₂)`: with `n` a right-handed frame, `t₁` the world axis
    /// least aligned with `n` made orthogonal to it.
    pub fn tangents(&self) -> (Vec3, Vec3) {
        let n = self.normal;
        let a = n.iamin();
        let e = Vec3::from_fn(|r, _| if r == a { 1.0 } else { 0.0 });
        let t1 = (e - n * n.dot(&e)).normalize();
        (t1, n.cross(&t1))
    }
}

/// One contact point between a body and a plane at a configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct ContactPoint3<T: nalgebra::Scalar = f64> {
    /// The body.
    pub body: usize,
    /// The contact point (world).
    pub point: Vector3<T>,
    /// The contact point in the body's frame (the material point whose motion the Jacobians
    /// give).
    pub local: Vector3<T>,
    /// The gap along the plane's normal (negative: penetration).
    pub gap: T,
}

/// The candidate contact points of `shape` (on `body`, at `pose` in its frame) with `plane` at
/// `q` (module docs), in any scalar type (dual numbers give the points' exact derivatives).
pub fn contact_points<T: Real>(tree: &SpatialTree, q: &[T], c: &Collision, plane: &Plane) -> Vec<ContactPoint3<T>> {
    if c.body.is_none() {
        return vec![];
    }
    contact_points_in(&tree.poses(q), c, plane)
}

/// [`contact_points`] from the bodies' world poses at the configuration
/// ([`SpatialTree::frames`]).
pub fn contact_points_in<T: Real>(poses: &[Transform<T>], c: &Collision, plane: &Plane) -> Vec<ContactPoint3<T>> {
    let Some(body) = c.body else { return vec![] };
    let x_b = poses[body];
    let x = x_b.then(&c.pose.cast());
    let (n, p0) = (real3::<T>(&plane.normal), real3::<T>(&plane.point));
    let r = |x: f64| real::<T>(x);
    let mut out = vec![];
    // Each candidate as its offset `d` from the shape's centre in world axes: its point in the
    // body's frame is the centre's (the file's numbers) plus `d` turned into the body's axes,
    // never a difference of world coordinates (a robot far from the origin would lose its lever
    // arms to round-off: 1e-8 m at 1e8 m).
    let centre = c.pose.pos.cast::<T>();
    let mut push = |d: Vector3<T>| {
        let p = x.pos + d;
        let local = centre + x_b.rot.transpose() * d;
        out.push(ContactPoint3 { body, point: p, local, gap: n.dot(&(p - p0)) });
    };
    let z = x.rot.column(2).into_owned();
    match c.shape {
        Shape::Sphere { radius } => push(-n * r(radius)),
        Shape::Capsule { radius, length } => {
            for s in [-0.5, 0.5] {
                push(z * r(s * length) - n * r(radius));
            }
        }
        Shape::Box { size } => {
            for k in 0..8 {
                let corner = Vec3::new(
                    if k & 1 == 0 { -0.5 } else { 0.5 } * size.x,
                    if k & 2 == 0 { -0.5 } else { 0.5 } * size.y,
                    if k & 4 == 0 { -0.5 } else { 0.5 } * size.z,
                );
                // (A corner's point in the body's frame is the file's pose of it, exactly as
                // written up to one rotation.)
                let p = x.point(&real3(&corner));
                let local = c.pose.cast::<T>().point(&real3(&corner));
                out.push(ContactPoint3 { body, point: p, local, gap: n.dot(&(p - p0)) });
            }
        }
        Shape::Cylinder { radius, length } => {
            let w = n - z * n.dot(&z);
            for s in [-0.5, 0.5] {
                let e = z * r(s * length);
                if w.norm() > r(1e-9) {
                    push(e - w.normalize() * r(radius));
                } else {
                    let (t1, t2) = (x.rot.column(0).into_owned(), x.rot.column(1).into_owned());
                    for d in [t1, t2, -t1, -t2] {
                        push(e + d * r(radius));
                    }
                }
            }
        }
        Shape::Ellipsoid { radii } => {
            let a2 = Matrix3::from_diagonal(&real3::<T>(&radii.component_mul(&radii)));
            let m = x.rot * a2 * x.rot.transpose();
            let s = (n.dot(&(m * n))).sqrt();
            if s > T::zero() {
                push(-(m * n) / s);
            }
        }
        Shape::Plane => {}
    }
    out
}

/// The contact's normal Jacobian `J_n` (1 × nv) and tangential Jacobian `J_t` (2 × nv) at `q`.
pub fn contact_jacobians<T: Real>(
    tree: &SpatialTree,
    q: &[T],
    c: &ContactPoint3<T>,
    plane: &Plane,
) -> (RowDVector<T>, Matrix2xX<T>) {
    contact_jacobians_in(tree, &tree.frames(q, None), c, plane)
}

/// [`contact_jacobians`] from frames computed at the configuration ([`SpatialTree::frames`]).
pub fn contact_jacobians_in<T: Real>(
    tree: &SpatialTree,
    f: &Frames<T>,
    c: &ContactPoint3<T>,
    plane: &Plane,
) -> (RowDVector<T>, Matrix2xX<T>) {
    let j = tree.point_jacobian_in(f, c.body, &c.local);
    let (t1, t2) = plane.tangents();
    let (n, t1, t2) = (real3::<T>(&plane.normal), real3::<T>(&t1), real3::<T>(&t2));
    let jn = RowDVector::from_iterator(j.ncols(), (0..j.ncols()).map(|k| n.dot(&j.column(k))));
    let jt = Matrix2xX::from_fn(j.ncols(), |r, k| if r == 0 { t1.dot(&j.column(k)) } else { t2.dot(&j.column(k)) });
    (jn, jt)
}

/// A plane given as a geom of the world (its pose's `xy` plane, normal `+z`).
pub fn plane_of(pose: &Transform) -> Plane {
    Plane { point: pose.pos, normal: pose.rot.column(2).into_owned() }
}

#[cfg(test)]
mod tests {
    use super::super::algebra::{rpy, Mat3, SpatialInertia};
    use super::super::joint::Joint3;
    use super::super::tree::Body3;
    use super::*;

    fn free_body() -> SpatialTree {
        let b = Body3 {
            name: "b".into(),
            parent: None,
            placement: Transform::identity(),
            joint: Joint3::Free,
            inertia: SpatialInertia { mass: 1.0, com: Vec3::zeros(), inertia: Mat3::identity() * 0.1 },
        };
        SpatialTree::new(vec![b], Vec3::new(0.0, 0.0, -9.81)).unwrap()
    }

    fn shapes() -> Vec<Shape> {
        vec![
            Shape::Sphere { radius: 0.1 },
            Shape::Capsule { radius: 0.05, length: 0.3 },
            Shape::Box { size: Vec3::new(0.2, 0.3, 0.1) },
            Shape::Cylinder { radius: 0.07, length: 0.25 },
            Shape::Ellipsoid { radii: Vec3::new(0.1, 0.2, 0.05) },
        ]
    }

    #[test]
    fn the_lowest_candidate_is_the_shapes_distance_to_the_plane() {
        // Against a brute-force sampling of each shape's surface: no surface point lies lower
        // than the lowest candidate.
        let t = free_body();
        let plane = Plane::new(Vec3::new(0.0, 0.0, -0.3), Vec3::new(0.1, -0.2, 1.0)).unwrap();
        let mut q = vec![0.1, -0.2, 0.3, 0.2, -0.1, 0.3, 0.9];
        t.normalize(&mut q);
        let pose = Transform { rot: rpy(0.3, -0.4, 0.5), pos: Vec3::new(0.02, 0.01, -0.03) };
        let x = t.poses(&q)[0].then(&pose);
        for shape in shapes() {
            let c = Collision { name: String::new(), body: Some(0), pose, shape, friction: None, bits: (1, 1) };
            let least = contact_points(&t, &q, &c, &plane).iter().map(|p| p.gap).fold(f64::INFINITY, f64::min);
            let mut lowest = f64::INFINITY;
            let n = 60;
            if let Shape::Box { size } = shape {
                // The box's surface on a grid that includes its edges and corners.
                let s = |k: usize| -1.0 + 2.0 * k as f64 / 20.0;
                for (i, j, k) in (0..=20).flat_map(|i| (0..=20).flat_map(move |j| (0..=20).map(move |k| (i, j, k)))) {
                    let p = Vec3::new(s(i), s(j), s(k));
                    if p.abs().max() == 1.0 {
                        lowest =
                            lowest.min(plane.normal.dot(&(x.point(&p.component_mul(&size).scale(0.5)) - plane.point)));
                    }
                }
            }
            for i in 0..=n {
                for k in 0..n {
                    let (u, w) =
                        (std::f64::consts::PI * i as f64 / n as f64, 2.0 * std::f64::consts::PI * k as f64 / n as f64);
                    let d = Vec3::new(u.sin() * w.cos(), u.sin() * w.sin(), u.cos());
                    let local = match shape {
                        Shape::Sphere { radius } => d * radius,
                        Shape::Capsule { radius, length } => d * radius + Vec3::z() * (0.5 * length * d.z.signum()),
                        Shape::Box { .. } => continue,
                        Shape::Cylinder { radius, length } => {
                            let r = (d.x * d.x + d.y * d.y).sqrt().max(1e-12);
                            Vec3::new(d.x / r * radius, d.y / r * radius, 0.5 * length * d.z.signum())
                        }
                        Shape::Ellipsoid { radii } => d.component_mul(&radii),
                        Shape::Plane => Vec3::zeros(),
                    };
                    lowest = lowest.min(plane.normal.dot(&(x.point(&local) - plane.point)));
                }
            }
            assert!(least <= lowest + 1e-12 && least > lowest - 1e-3, "{shape:?}: {least} vs sampled {lowest}");
        }
    }

    #[test]
    fn the_gap_moves_with_the_normal_jacobian() {
        let t = free_body();
        let plane = Plane::new(Vec3::zeros(), Vec3::new(0.2, 0.1, 1.0)).unwrap();
        let mut q = vec![0.1, -0.2, 0.6, 0.3, -0.1, 0.2, 0.9];
        t.normalize(&mut q);
        let v = [0.3, -0.2, 0.5, 0.7, -0.4, 0.9];
        let qd = t.qdot(&q, &v);
        let pose = Transform { rot: rpy(0.1, 0.7, -0.3), pos: Vec3::new(0.03, 0.0, -0.02) };
        for shape in shapes() {
            let c = Collision { name: String::new(), body: Some(0), pose, shape, friction: None, bits: (1, 1) };
            let at = |s: f64| {
                let mut qs: Vec<f64> = q.iter().zip(qd.iter()).map(|(a, b)| a + s * b).collect();
                t.normalize(&mut qs);
                contact_points(&t, &qs, &c, &plane)
            };
            let h = 1e-6;
            let (a, b) = (at(h), at(-h));
            for (k, p) in contact_points(&t, &q, &c, &plane).iter().enumerate() {
                let (jn, jt) = contact_jacobians(&t, &q, p, &plane);
                let rate = jn.iter().zip(&v).map(|(x, y)| x * y).sum::<f64>();
                let fd = (a[k].gap - b[k].gap) / (2.0 * h);
                assert!((rate - fd).abs() < 1e-7, "{shape:?} point {k}: {rate} vs {fd}");
                // The frame is orthonormal and right-handed, the tangential rows orthogonal to n.
                let (t1, t2) = plane.tangents();
                assert!((t1.cross(&t2) - plane.normal).norm() < 1e-12);
                let vt = &jt * nalgebra::DVector::from_column_slice(&v);
                assert!(vt.iter().all(|x| x.is_finite()));
            }
        }
    }
}
