//! Lagrangian systems with unilateral frictional contacts: the shared description of the
//! mechanics that every analysis builds on.
//!
//! A system has generalized coordinates `s ∈ ℝⁿ`, a mass matrix `𝓜(s)`, generalized applied
//! forces `Q(s, ṡ)` (including velocity-product terms), and contacts `i`, each with a normal gap
//! `gᵢ(s) ≥ 0` and a tangential displacement `xᵢ(s)`. Their Jacobians `w_{n,i} = ∂gᵢ/∂s`,
//! `w_{t,i} = ∂xᵢ/∂s` map contact forces `(fᵢᶻ, fᵢˣ)` into generalized forces, and the
//! acceleration-level gap is `g̈ᵢ = w_{n,i}ᵀ s̈ + ẇ_{n,i}ᵀ ṡ`:
//!
//! ```text
//!     𝓜(s) s̈ = Q(s, ṡ) + Σᵢ (w_{n,i} fᵢᶻ + w_{t,i} fᵢˣ).
//! ```
//!
//! The *zero-order dynamics* (ZOD) of P1 freeze `𝓜, w, Q` at an equilibrium `s = ṡ = 0`, so that
//! contact-space accelerations are affine in the contact forces with constant coefficients (the
//! Delassus matrix `A = J𝓜⁻¹Jᵀ`, as in P4's `A`).
//!
//! Dimensions are run-time values: a [`ContactSystem`] takes and returns `DVector`/`DMatrix`
//! (its [`ContactSystem::dof`] coordinates), so the hybrid core and every analysis are compiled
//! once for all systems. The hand-written models keep their formulas on fixed-size vectors
//! ([`FixedSystem`]); [`fixed_size_system!`](crate::fixed_size_system) converts at the boundary.
//! (Until 2026-11 the dimension was a const generic: every multibody analysis was compiled for
//! each N = 1..24, which took most of a 7-minute release build.)
//!
//! [`contact_space::contact_space`] is the one computation of `A` and `b` that P1's zero-order
//! dynamics and P4's fixtures share. [`ContactSystem`] is the description as a trait, for any number of degrees of freedom and
//! contacts; [`crate::hybrid::lagrangian::Lagrangian`] turns any implementation into a hybrid
//! system (modes, constraint forces, impacts, Zeno completion) for the event driver, and
//! [`check::check_system`] checks an implementation against finite differences.
//! [`planar_body::PlanarBody`] is the planar rigid body of P1 (Fig. 1); [`closed_form`] holds the
//! pendulum, the particle on half-planes and the one-degree-of-freedom oscillator with a stop
//! whose motions are known in closed form; [`double_pendulum::DoublePendulumStop`] is P3's
//! pendulum with a knee stop; the walkers of P2 implement the same trait.
//! [`multibody::Multibody`] computes `M(q)`, `h(q, q̇)`, point Jacobians and their `J̇q̇` for any
//! planar tree of rigid bodies (revolute, prismatic, fixed and floating joints), the core of
//! user-defined mechanisms; [`multibody_system::MultibodySystem`] adds points on lines, joint
//! limits and joint springs and dampers, and is a [`ContactSystem`] like the others.
//!
//! # Sign conventions (once for all systems)
//! `M(q) q̈ = h(t, q, q̇) + Σᵢ (w_{n,i} λ_{n,i} + w_{t,i} λ_{t,i})`: `h` collects everything but the
//! contact forces (gravity, springs, velocity-product terms, applied and control forces). The gap
//! `gᵢ ≥ 0` is positive when the contact is open; the normal force `λ_{n,i} ≥ 0` pushes the gap
//! open; the friction force `λ_{t,i}` acts along the direction in which the tangential coordinate
//! `xᵢ` grows, and in slip it opposes the slip velocity `ẋᵢ` (Coulomb, `|λ_t| ≤ μ λ_n`).

pub mod check;
pub mod closed_form;
pub mod contact_space;
pub mod double_pendulum;
pub mod linearization;
pub mod multibody;
pub mod multibody_ad;
pub mod multibody_system;
pub mod planar_body;
pub mod reference;
pub mod sliders;
pub mod walkers;

use nalgebra::{DMatrix, DVector, SMatrix, SVector};
use serde::Serialize;

/// The contact law of one contact.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ContactLaw {
    /// Coulomb friction coefficient `μ ≥ 0` (`0`: frictionless).
    pub mu: f64,
    /// Newton coefficient of restitution `e ∈ [0, 1]` of the normal velocity (`0`: plastic).
    pub restitution: f64,
}

/// A Lagrangian system with unilateral, frictional point contacts and [`ContactSystem::dof`]
/// degrees of freedom (module docs for the equation and the signs). Coordinates `q`, velocities
/// `v = q̇`, both of length `dof`.
pub trait ContactSystem: Send + Sync {
    /// Number of degrees of freedom `n` (the length of `q` and `q̇`).
    fn dof(&self) -> usize;
    /// Number of contacts.
    fn contact_count(&self) -> usize;
    /// The law of contact `i`.
    fn law(&self, i: usize) -> ContactLaw;
    /// The mass matrix `M(q)` (symmetric positive definite).
    fn mass_matrix(&self, q: &DVector<f64>) -> DMatrix<f64>;
    /// The bias `h(t, q, q̇)`: all generalized forces but the contact forces.
    fn bias(&self, t: f64, q: &DVector<f64>, v: &DVector<f64>) -> DVector<f64>;
    /// The gap `gᵢ(q)` (length).
    fn gap(&self, i: usize, q: &DVector<f64>) -> f64;
    /// The tangential coordinate `xᵢ(q)` (length); unused for frictionless contacts.
    fn tangential(&self, _i: usize, _q: &DVector<f64>) -> f64 {
        0.0
    }
    /// `w_{n,i} = ∂gᵢ/∂q`.
    fn normal_jacobian(&self, i: usize, q: &DVector<f64>) -> DVector<f64>;
    /// `w_{t,i} = ∂xᵢ/∂q`.
    fn tangent_jacobian(&self, _i: usize, q: &DVector<f64>) -> DVector<f64> {
        DVector::zeros(q.len())
    }
    /// The velocity-product terms `(ẇ_{n,i}ᵀ q̇, ẇ_{t,i}ᵀ q̇)`: `g̈ᵢ = w_{n,i}ᵀ q̈ + ẇ_{n,i}ᵀ q̇`.
    fn jacobian_dot_v(&self, i: usize, q: &DVector<f64>, v: &DVector<f64>) -> (f64, f64);
    /// `(w_{n,i}, w_{t,i}, (ẇ_{n,i}ᵀ q̇, ẇ_{t,i}ᵀ q̇))` in one call, what a closed frictional
    /// contact's mode solve needs; a model that computes them together overrides it.
    fn contact_rows(&self, i: usize, q: &DVector<f64>, v: &DVector<f64>) -> (DVector<f64>, DVector<f64>, (f64, f64)) {
        (self.normal_jacobian(i, q), self.tangent_jacobian(i, q), self.jacobian_dot_v(i, q, v))
    }
    /// The potential energy, for a conservative system (`h = −∂V/∂q` plus velocity-product
    /// terms); `None` otherwise.
    fn potential(&self, _q: &DVector<f64>) -> Option<f64> {
        None
    }
    /// Characteristic magnitude of each coordinate (for absolute tolerances).
    fn coordinate_scale(&self) -> DVector<f64> {
        DVector::repeat(self.dof(), 1.0)
    }
    /// Characteristic length of the gaps and tangential coordinates.
    fn length_scale(&self) -> f64 {
        1.0
    }
    /// Characteristic time of the motion.
    fn time_scale(&self) -> f64 {
        1.0
    }
    /// A user reset applied after an impact of `contact` has been resolved, e.g. the
    /// relabelling of stance and swing legs after a step; `None` keeps the state.
    fn relabel(&self, _contact: usize, _q: &DVector<f64>, _v: &DVector<f64>) -> Option<(DVector<f64>, DVector<f64>)> {
        None
    }
    /// Whether a zero of contact `i`'s gap at `q` counts as touching. A walker's swing foot passes
    /// through the ground mid-swing ("scuffing", which P2 ignores after McGeer) and only its
    /// heel strike is an impact: an unarmed contact is treated as separated (its gap may be
    /// negative, it fires no impact, takes no impulse). The gap must be positive where the
    /// contact becomes armed. Default: always armed.
    fn armed(&self, _i: usize, _q: &DVector<f64>) -> bool {
        true
    }
    /// Whether contact `i` is released (takes no impulse and opens) when the contacts in
    /// `colliding` hit their supports: a walker's stance foot at heel strike (P2, Section 2.2,
    /// where the impulse acts at the colliding foot only). Default: no contact is released.
    fn released_by(&self, _i: usize, _colliding: &[usize]) -> bool {
        false
    }
    /// Whether the bias does not depend on time (then a state at rest in a fully constrained
    /// mode stays at rest for ever, and a run can end there).
    fn autonomous(&self) -> bool {
        true
    }
    /// Kinetic energy `½ q̇ᵀ M q̇`.
    fn kinetic_energy(&self, q: &DVector<f64>, v: &DVector<f64>) -> f64 {
        0.5 * v.dot(&(self.mass_matrix(q) * v))
    }
    /// The acceleration with no contact force, `M⁻¹h` (Cholesky); `None` if `M` is not positive
    /// definite. A system may compute it faster; the result must be the same.
    fn free_acceleration(&self, t: f64, q: &DVector<f64>, v: &DVector<f64>) -> Option<DVector<f64>> {
        let mut a = self.bias(t, q, v);
        self.mass_matrix(q).cholesky()?.solve_mut(&mut a);
        Some(a)
    }
    /// Exact first derivatives of `M`, `h` and the contact kinematics at `(t, q, q̇)`
    /// ([`linearization`]); `None` (the default) when the system does not provide them, and
    /// return maps then use differences.
    fn linearization(&self, _t: f64, _q: &DVector<f64>, _v: &DVector<f64>) -> Option<linearization::Linearization> {
        None
    }
    /// The Jacobian `P` of the [`ContactSystem::relabel`] after a strike of `contact`, for a
    /// relabelling of the form `q⁺ = P q + c`, `q̇⁺ = P q̇` (the leg swap); `None` when the
    /// contact has no relabelling or the system does not provide it.
    fn relabel_matrix(&self, _contact: usize) -> Option<DMatrix<f64>> {
        None
    }
}

/// The methods of a [`ContactSystem`] that hands every call to another one:
/// `forward_contact_system!(self => expr)` inside an `impl ContactSystem for …` block, `expr` the
/// system that answers (a reference, or a field of `self`).
#[macro_export]
macro_rules! forward_contact_system {
    ($s:ident => $inner:expr) => {
        fn dof(&$s) -> usize {
            $inner.dof()
        }
        fn contact_count(&$s) -> usize {
            $inner.contact_count()
        }
        fn law(&$s, i: usize) -> $crate::mechanics::ContactLaw {
            $inner.law(i)
        }
        fn mass_matrix(&$s, q: &nalgebra::DVector<f64>) -> nalgebra::DMatrix<f64> {
            $inner.mass_matrix(q)
        }
        fn bias(&$s, t: f64, q: &nalgebra::DVector<f64>, v: &nalgebra::DVector<f64>) -> nalgebra::DVector<f64> {
            $inner.bias(t, q, v)
        }
        fn gap(&$s, i: usize, q: &nalgebra::DVector<f64>) -> f64 {
            $inner.gap(i, q)
        }
        fn tangential(&$s, i: usize, q: &nalgebra::DVector<f64>) -> f64 {
            $inner.tangential(i, q)
        }
        fn normal_jacobian(&$s, i: usize, q: &nalgebra::DVector<f64>) -> nalgebra::DVector<f64> {
            $inner.normal_jacobian(i, q)
        }
        fn tangent_jacobian(&$s, i: usize, q: &nalgebra::DVector<f64>) -> nalgebra::DVector<f64> {
            $inner.tangent_jacobian(i, q)
        }
        fn jacobian_dot_v(&$s, i: usize, q: &nalgebra::DVector<f64>, v: &nalgebra::DVector<f64>) -> (f64, f64) {
            $inner.jacobian_dot_v(i, q, v)
        }
        fn contact_rows(&$s, i: usize, q: &nalgebra::DVector<f64>, v: &nalgebra::DVector<f64>) -> (nalgebra::DVector<f64>, nalgebra::DVector<f64>, (f64, f64)) {
            $inner.contact_rows(i, q, v)
        }
        fn potential(&$s, q: &nalgebra::DVector<f64>) -> Option<f64> {
            $inner.potential(q)
        }
        fn coordinate_scale(&$s) -> nalgebra::DVector<f64> {
            $inner.coordinate_scale()
        }
        fn length_scale(&$s) -> f64 {
            $inner.length_scale()
        }
        fn time_scale(&$s) -> f64 {
            $inner.time_scale()
        }
        fn relabel(&$s, contact: usize, q: &nalgebra::DVector<f64>, v: &nalgebra::DVector<f64>) -> Option<(nalgebra::DVector<f64>, nalgebra::DVector<f64>)> {
            $inner.relabel(contact, q, v)
        }
        fn autonomous(&$s) -> bool {
            $inner.autonomous()
        }
        fn armed(&$s, i: usize, q: &nalgebra::DVector<f64>) -> bool {
            $inner.armed(i, q)
        }
        fn released_by(&$s, i: usize, colliding: &[usize]) -> bool {
            $inner.released_by(i, colliding)
        }
        fn kinetic_energy(&$s, q: &nalgebra::DVector<f64>, v: &nalgebra::DVector<f64>) -> f64 {
            $inner.kinetic_energy(q, v)
        }
        fn free_acceleration(&$s, t: f64, q: &nalgebra::DVector<f64>, v: &nalgebra::DVector<f64>) -> Option<nalgebra::DVector<f64>> {
            $inner.free_acceleration(t, q, v)
        }
        fn linearization(&$s, t: f64, q: &nalgebra::DVector<f64>, v: &nalgebra::DVector<f64>) -> Option<$crate::mechanics::linearization::Linearization> {
            $inner.linearization(t, q, v)
        }
        fn relabel_matrix(&$s, contact: usize) -> Option<nalgebra::DMatrix<f64>> {
            $inner.relabel_matrix(contact)
        }
    };
}

impl<T: ContactSystem> ContactSystem for &T {
    forward_contact_system!(self => (**self));
}

/// `x` as a fixed-size vector (`x` has `N` entries).
pub fn fixed<const N: usize>(x: &DVector<f64>) -> SVector<f64, N> {
    SVector::from_column_slice(x.as_slice())
}

/// A fixed-size vector or matrix as a dynamically sized one.
pub fn dynamic<const R: usize, const C: usize>(x: &SMatrix<f64, R, C>) -> DMatrix<f64> {
    DMatrix::from_column_slice(R, C, x.as_slice())
}

/// A fixed-size vector as a dynamically sized one.
pub fn dvec<const N: usize>(x: &SVector<f64, N>) -> DVector<f64> {
    DVector::from_column_slice(x.as_slice())
}

/// Makes a [`FixedSystem`] type a [`ContactSystem`] (its vectors converted at the boundary).
#[macro_export]
macro_rules! fixed_size_system {
    ($t:ty, $n:literal) => {
        impl $crate::mechanics::ContactSystem for $t {
            fn dof(&self) -> usize {
                $n
            }
            fn contact_count(&self) -> usize {
                <$t as $crate::mechanics::FixedSystem<$n>>::contact_count(self)
            }
            fn law(&self, i: usize) -> $crate::mechanics::ContactLaw {
                <$t as $crate::mechanics::FixedSystem<$n>>::law(self, i)
            }
            fn mass_matrix(&self, q: &nalgebra::DVector<f64>) -> nalgebra::DMatrix<f64> {
                let q = $crate::mechanics::fixed::<$n>(q);
                $crate::mechanics::dynamic(&<$t as $crate::mechanics::FixedSystem<$n>>::mass_matrix(self, &q))
            }
            fn bias(&self, t: f64, q: &nalgebra::DVector<f64>, v: &nalgebra::DVector<f64>) -> nalgebra::DVector<f64> {
                let (q, v) = ($crate::mechanics::fixed::<$n>(q), $crate::mechanics::fixed::<$n>(v));
                $crate::mechanics::dvec(&<$t as $crate::mechanics::FixedSystem<$n>>::bias(self, t, &q, &v))
            }
            fn gap(&self, i: usize, q: &nalgebra::DVector<f64>) -> f64 {
                <$t as $crate::mechanics::FixedSystem<$n>>::gap(self, i, &$crate::mechanics::fixed::<$n>(q))
            }
            fn tangential(&self, i: usize, q: &nalgebra::DVector<f64>) -> f64 {
                <$t as $crate::mechanics::FixedSystem<$n>>::tangential(self, i, &$crate::mechanics::fixed::<$n>(q))
            }
            fn normal_jacobian(&self, i: usize, q: &nalgebra::DVector<f64>) -> nalgebra::DVector<f64> {
                let q = $crate::mechanics::fixed::<$n>(q);
                $crate::mechanics::dvec(&<$t as $crate::mechanics::FixedSystem<$n>>::normal_jacobian(self, i, &q))
            }
            fn tangent_jacobian(&self, i: usize, q: &nalgebra::DVector<f64>) -> nalgebra::DVector<f64> {
                let q = $crate::mechanics::fixed::<$n>(q);
                $crate::mechanics::dvec(&<$t as $crate::mechanics::FixedSystem<$n>>::tangent_jacobian(self, i, &q))
            }
            fn jacobian_dot_v(&self, i: usize, q: &nalgebra::DVector<f64>, v: &nalgebra::DVector<f64>) -> (f64, f64) {
                let (q, v) = ($crate::mechanics::fixed::<$n>(q), $crate::mechanics::fixed::<$n>(v));
                <$t as $crate::mechanics::FixedSystem<$n>>::jacobian_dot_v(self, i, &q, &v)
            }
            fn contact_rows(
                &self,
                i: usize,
                q: &nalgebra::DVector<f64>,
                v: &nalgebra::DVector<f64>,
            ) -> (nalgebra::DVector<f64>, nalgebra::DVector<f64>, (f64, f64)) {
                let (q, v) = ($crate::mechanics::fixed::<$n>(q), $crate::mechanics::fixed::<$n>(v));
                let (wn, wt, d) = <$t as $crate::mechanics::FixedSystem<$n>>::contact_rows(self, i, &q, &v);
                ($crate::mechanics::dvec(&wn), $crate::mechanics::dvec(&wt), d)
            }
            fn potential(&self, q: &nalgebra::DVector<f64>) -> Option<f64> {
                <$t as $crate::mechanics::FixedSystem<$n>>::potential(self, &$crate::mechanics::fixed::<$n>(q))
            }
            fn coordinate_scale(&self) -> nalgebra::DVector<f64> {
                $crate::mechanics::dvec(&<$t as $crate::mechanics::FixedSystem<$n>>::coordinate_scale(self))
            }
            fn length_scale(&self) -> f64 {
                <$t as $crate::mechanics::FixedSystem<$n>>::length_scale(self)
            }
            fn time_scale(&self) -> f64 {
                <$t as $crate::mechanics::FixedSystem<$n>>::time_scale(self)
            }
            fn relabel(
                &self,
                contact: usize,
                q: &nalgebra::DVector<f64>,
                v: &nalgebra::DVector<f64>,
            ) -> Option<(nalgebra::DVector<f64>, nalgebra::DVector<f64>)> {
                let (q, v) = ($crate::mechanics::fixed::<$n>(q), $crate::mechanics::fixed::<$n>(v));
                <$t as $crate::mechanics::FixedSystem<$n>>::relabel(self, contact, &q, &v)
                    .map(|(q, v)| ($crate::mechanics::dvec(&q), $crate::mechanics::dvec(&v)))
            }
            fn armed(&self, i: usize, q: &nalgebra::DVector<f64>) -> bool {
                <$t as $crate::mechanics::FixedSystem<$n>>::armed(self, i, &$crate::mechanics::fixed::<$n>(q))
            }
            fn released_by(&self, i: usize, colliding: &[usize]) -> bool {
                <$t as $crate::mechanics::FixedSystem<$n>>::released_by(self, i, colliding)
            }
            fn autonomous(&self) -> bool {
                <$t as $crate::mechanics::FixedSystem<$n>>::autonomous(self)
            }
            fn kinetic_energy(&self, q: &nalgebra::DVector<f64>, v: &nalgebra::DVector<f64>) -> f64 {
                let (q, v) = ($crate::mechanics::fixed::<$n>(q), $crate::mechanics::fixed::<$n>(v));
                <$t as $crate::mechanics::FixedSystem<$n>>::kinetic_energy(self, &q, &v)
            }
            // On the stack: nalgebra's Cholesky is the same algorithm for every size, so the
            // result is the default's to the bit, without its heap matrices.
            fn free_acceleration(
                &self,
                t: f64,
                q: &nalgebra::DVector<f64>,
                v: &nalgebra::DVector<f64>,
            ) -> Option<nalgebra::DVector<f64>> {
                let (q, v) = ($crate::mechanics::fixed::<$n>(q), $crate::mechanics::fixed::<$n>(v));
                let mut a = <$t as $crate::mechanics::FixedSystem<$n>>::bias(self, t, &q, &v);
                <$t as $crate::mechanics::FixedSystem<$n>>::mass_matrix(self, &q).cholesky()?.solve_mut(&mut a);
                Some($crate::mechanics::dvec(&a))
            }
            fn linearization(
                &self,
                t: f64,
                q: &nalgebra::DVector<f64>,
                v: &nalgebra::DVector<f64>,
            ) -> Option<$crate::mechanics::linearization::Linearization> {
                let (q, v) = ($crate::mechanics::fixed::<$n>(q), $crate::mechanics::fixed::<$n>(v));
                <$t as $crate::mechanics::FixedSystem<$n>>::linearization(self, t, &q, &v)
            }
        }
    };
}

/// [`ContactSystem`] in fixed-size form, for the hand-written models (their formulas on
/// stack vectors): [`fixed_size_system!`](crate::fixed_size_system) makes a `FixedSystem<N>` a
/// [`ContactSystem`].
pub trait FixedSystem<const N: usize>: Send + Sync {
    /// Number of contacts.
    fn contact_count(&self) -> usize;
    /// The law of contact `i`.
    fn law(&self, i: usize) -> ContactLaw;
    /// The mass matrix `M(q)` (symmetric positive definite).
    fn mass_matrix(&self, q: &SVector<f64, N>) -> SMatrix<f64, N, N>;
    /// The bias `h(t, q, q̇)`: all generalized forces but the contact forces.
    fn bias(&self, t: f64, q: &SVector<f64, N>, v: &SVector<f64, N>) -> SVector<f64, N>;
    /// The gap `gᵢ(q)` (length).
    fn gap(&self, i: usize, q: &SVector<f64, N>) -> f64;
    /// The tangential coordinate `xᵢ(q)` (length); unused for frictionless contacts.
    fn tangential(&self, _i: usize, _q: &SVector<f64, N>) -> f64 {
        0.0
    }
    /// `w_{n,i} = ∂gᵢ/∂q`.
    fn normal_jacobian(&self, i: usize, q: &SVector<f64, N>) -> SVector<f64, N>;
    /// `w_{t,i} = ∂xᵢ/∂q`.
    fn tangent_jacobian(&self, _i: usize, _q: &SVector<f64, N>) -> SVector<f64, N> {
        SVector::zeros()
    }
    /// The velocity-product terms `(ẇ_{n,i}ᵀ q̇, ẇ_{t,i}ᵀ q̇)`: `g̈ᵢ = w_{n,i}ᵀ q̈ + ẇ_{n,i}ᵀ q̇`.
    fn jacobian_dot_v(&self, i: usize, q: &SVector<f64, N>, v: &SVector<f64, N>) -> (f64, f64);
    /// `(w_{n,i}, w_{t,i}, (ẇ_{n,i}ᵀ q̇, ẇ_{t,i}ᵀ q̇))` in one call, what a closed frictional
    /// contact's mode solve needs; a model that computes them together overrides it.
    fn contact_rows(
        &self,
        i: usize,
        q: &SVector<f64, N>,
        v: &SVector<f64, N>,
    ) -> (SVector<f64, N>, SVector<f64, N>, (f64, f64)) {
        (self.normal_jacobian(i, q), self.tangent_jacobian(i, q), self.jacobian_dot_v(i, q, v))
    }
    /// The potential energy, for a conservative system (`h = −∂V/∂q` plus velocity-product
    /// terms); `None` otherwise.
    fn potential(&self, _q: &SVector<f64, N>) -> Option<f64> {
        None
    }
    /// Characteristic magnitude of each coordinate (for absolute tolerances).
    fn coordinate_scale(&self) -> SVector<f64, N> {
        SVector::repeat(1.0)
    }
    /// Characteristic length of the gaps and tangential coordinates.
    fn length_scale(&self) -> f64 {
        1.0
    }
    /// Characteristic time of the motion.
    fn time_scale(&self) -> f64 {
        1.0
    }
    /// A user reset applied after an impact of `contact` has been resolved, e.g. the
    /// relabelling of stance and swing legs after a step; `None` keeps the state.
    fn relabel(
        &self,
        _contact: usize,
        _q: &SVector<f64, N>,
        _v: &SVector<f64, N>,
    ) -> Option<(SVector<f64, N>, SVector<f64, N>)> {
        None
    }
    /// Whether a zero of contact `i`'s gap at `q` counts as touching. A walker's swing foot passes
    /// through the ground mid-swing ("scuffing", which P2 ignores after McGeer) and only its
    /// heel strike is an impact: an unarmed contact is treated as separated (its gap may be
    /// negative, it fires no impact, takes no impulse). The gap must be positive where the
    /// contact becomes armed. Default: always armed.
    fn armed(&self, _i: usize, _q: &SVector<f64, N>) -> bool {
        true
    }
    /// Whether contact `i` is released (takes no impulse and opens) when the contacts in
    /// `colliding` hit their supports: a walker's stance foot at heel strike (P2, Section 2.2,
    /// where the impulse acts at the colliding foot only). Default: no contact is released.
    fn released_by(&self, _i: usize, _colliding: &[usize]) -> bool {
        false
    }
    /// Whether the bias does not depend on time (then a state at rest in a fully constrained
    /// mode stays at rest for ever, and a run can end there).
    fn autonomous(&self) -> bool {
        true
    }
    /// Kinetic energy `½ q̇ᵀ M q̇`.
    fn kinetic_energy(&self, q: &SVector<f64, N>, v: &SVector<f64, N>) -> f64 {
        0.5 * v.dot(&(self.mass_matrix(q) * v))
    }
    /// Exact first derivatives of `M`, `h` and the contact kinematics at `(t, q, q̇)`
    /// ([`linearization`]); `None` (the default) when the system does not provide them, and
    /// return maps then use differences.
    fn linearization(
        &self,
        _t: f64,
        _q: &SVector<f64, N>,
        _v: &SVector<f64, N>,
    ) -> Option<linearization::Linearization> {
        None
    }
}
