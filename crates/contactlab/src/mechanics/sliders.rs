//! Lagrangian systems with bilateral frictional constraints (P5, eqs. (2)–(4)): the description
//! that P5's equilibrium-set analysis ([`crate::eqset`]) and the bilateral time-stepping
//! ([`crate::timestep::bilateral`]) share.
//!
//! A system has `N` independent coordinates `q` (the bilateral constraints are eliminated) and
//! `M` frictional sliders:
//!
//! ```text
//!     M(q) q̈ − h(q, q̇) = W_T(q) λ_T,        γ_T = W_Tᵀ(q) q̇,
//!     λ_Ti ∈ −μᵢ |λ_Ni| Sign(γ_Ti)          (Coulomb, P5 (3)),
//! ```
//!
//! where the normal forces `λ_N` are not unknowns of their own: they follow from the motion and
//! from the friction forces themselves (the rod's (19)), affinely in the accelerations and in
//! `λ_T`. [`SliderSystem::normal_forces`] gives that map; at a state `(q, q̇)` with the
//! accelerations eliminated through the equation of motion it becomes
//! `λ_N = n₀ + K λ_T` ([`FrictionMap`]), and Coulomb's law with `|λ_N|` becomes the admissible
//! set `R = {λ : |λᵢ| ≤ μᵢ |(n₀ + Kλ)ᵢ|}`, a union of convex polytopes (one per sign pattern of
//! `λ_N`). `R` is bounded when the spectral radius of `diag(μ)|K|` is below one (then
//! `|λ| ≤ diag(μ)|K| |λ| + …` forces every recession direction to zero); for the rod's statics
//! `ρ = √(μ₁μ₂)`, and `μ₁μ₂ ≥ 1` is exactly where P5's two equilibrium sets merge.
//!
//! # Sign conventions
//! `γ_Ti > 0` is slip in the positive direction of slider `i`; the friction force `λ_Ti` acts in
//! that same direction (so in slip it is `−μᵢ|λ_Ni|` times the sign of `γ_Ti`); the sign of
//! `λ_Ni` is a convention of each system and only `|λ_Ni|` enters the law.

use nalgebra::{SMatrix, SVector};

use crate::lp::{LpBuilder, LpSettings, LpStatus};
use crate::Error;

/// Forces within `FRICTION_ZERO` of the friction map's scale are zero (round-off).
pub const FRICTION_ZERO: f64 = 1e-12;

/// An `N`-degree-of-freedom Lagrangian system with `M` bilateral frictional sliders (module docs).
pub trait SliderSystem<const N: usize, const M: usize>: Send + Sync {
    /// Friction coefficients `μᵢ ≥ 0`.
    fn mu(&self) -> SVector<f64, M>;
    /// The mass matrix `M(q)` (symmetric positive definite).
    fn inertia(&self, q: &SVector<f64, N>) -> SMatrix<f64, N, N>;
    /// `h(q, q̇)`: every smooth generalized force (gravity, springs, dampers, velocity products).
    fn forces(&self, q: &SVector<f64, N>, v: &SVector<f64, N>) -> SVector<f64, N>;
    /// The smooth non-conservative part `f_nc(q, q̇)` of `h` (P5 (1), (7)); zero by default.
    fn nonconservative(&self, _q: &SVector<f64, N>, _v: &SVector<f64, N>) -> SVector<f64, N> {
        SVector::zeros()
    }
    /// `W_T(q)`: column `i` maps slider `i`'s friction force to generalized forces, and
    /// `γ_T = W_Tᵀ q̇` (P5 (4)).
    fn slip_jacobian(&self, q: &SVector<f64, N>) -> SMatrix<f64, N, M>;
    /// The normal forces `λ_N` at state `(q, q̇)` with accelerations `q̈ = a` and friction forces
    /// `λ_T`; must be affine in `(a, λ_T)`.
    fn normal_forces(
        &self,
        q: &SVector<f64, N>,
        v: &SVector<f64, N>,
        a: &SVector<f64, N>,
        lambda_t: &SVector<f64, M>,
    ) -> SVector<f64, M>;
    /// The potential energy `U(q)` of the conservative part of `h`.
    fn potential_energy(&self, q: &SVector<f64, N>) -> f64;
    /// The period of coordinate `j` if it is an angle on a circle (`2π`), else `None`.
    fn period(&self, _j: usize) -> Option<f64> {
        None
    }
    /// Characteristic magnitude of the coordinates (rad or m).
    fn coordinate_scale(&self) -> f64;
    /// Characteristic time of the motion (s).
    fn time_scale(&self) -> f64;
    /// Characteristic magnitude of the generalized forces (N·m for an angle, N for a length).
    fn force_scale(&self) -> f64;

    /// Kinetic energy `T = ½ q̇ᵀ M q̇`.
    fn kinetic_energy(&self, q: &SVector<f64, N>, v: &SVector<f64, N>) -> f64 {
        0.5 * v.dot(&(self.inertia(q) * v))
    }
    /// `V = T + U` (P5 (10)).
    fn energy(&self, q: &SVector<f64, N>, v: &SVector<f64, N>) -> f64 {
        self.kinetic_energy(q, v) + self.potential_energy(q)
    }
    /// The normal forces as an affine map of the friction forces at `(q, q̇)` with `q̈` from the
    /// equation of motion, `q̈ = M⁻¹(h + W_T λ_T)`; `None` if `M(q)` is not positive definite.
    fn friction_map(&self, q: &SVector<f64, N>, v: &SVector<f64, N>) -> Option<FrictionMap<M>> {
        let chol = self.inertia(q).cholesky()?;
        let h = self.forces(q, v);
        let w = self.slip_jacobian(q);
        let a0 = chol.solve(&h);
        let n0 = self.normal_forces(q, v, &a0, &SVector::zeros());
        let mut k = SMatrix::<f64, M, M>::zeros();
        for j in 0..M {
            let e = SVector::<f64, M>::from_fn(|i, _| if i == j { 1.0 } else { 0.0 });
            let a = a0 + chol.solve(&w.column(j).into_owned());
            k.set_column(j, &(self.normal_forces(q, v, &a, &e) - n0));
        }
        Some(FrictionMap { n0, k, mu: self.mu() })
    }
    /// The normal forces at rest (`q̇ = q̈ = 0`) as an affine map of the friction forces: the
    /// statics behind the equilibrium set (5).
    fn static_map(&self, q: &SVector<f64, N>) -> FrictionMap<M> {
        let z = SVector::<f64, N>::zeros();
        let n0 = self.normal_forces(q, &z, &z, &SVector::zeros());
        let mut k = SMatrix::<f64, M, M>::zeros();
        for j in 0..M {
            let e = SVector::<f64, M>::from_fn(|i, _| if i == j { 1.0 } else { 0.0 });
            k.set_column(j, &(self.normal_forces(q, &z, &z, &e) - n0));
        }
        FrictionMap { n0, k, mu: self.mu() }
    }
}

/// Coulomb's law with normal forces affine in the friction forces, `λ_N = n₀ + K λ_T` (module
/// docs): the admissible set `R = {λ : |λᵢ| ≤ μᵢ |(n₀ + Kλ)ᵢ|}`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FrictionMap<const M: usize> {
    /// Normal forces at zero friction.
    pub n0: SVector<f64, M>,
    /// `∂λ_N/∂λ_T`.
    pub k: SMatrix<f64, M, M>,
    /// Friction coefficients.
    pub mu: SVector<f64, M>,
}

/// Sign patterns of `λ_N` examined before giving up (`2^M`).
pub(crate) fn sign_pattern<const M: usize>(bits: usize) -> SVector<f64, M> {
    SVector::from_fn(|i, _| if bits >> i & 1 == 0 { 1.0 } else { -1.0 })
}

impl<const M: usize> FrictionMap<M> {
    /// `λ_N(λ_T) = n₀ + K λ_T`.
    pub fn normal(&self, lambda: &SVector<f64, M>) -> SVector<f64, M> {
        self.n0 + self.k * lambda
    }

    /// The sign patterns of `λ_N` (`±1` each), the one of `n₀` first: the order in which the slip
    /// and time-stepping solvers try them.
    pub fn patterns(&self) -> impl Iterator<Item = SVector<f64, M>> {
        let first = (0..M).fold(0usize, |acc, i| acc | (usize::from(self.n0[i] < 0.0) << i));
        (0..1usize << M).map(move |t| sign_pattern::<M>(t ^ first))
    }

    /// The force scale of the data, `max(|n₀|∞, SCALE_FLOOR)`, for relative tolerances.
    pub fn scale(&self) -> f64 {
        self.n0.amax().max(crate::numeric::SCALE_FLOOR)
    }

    /// Whether `λ ∈ R` up to `tol` (absolute, in force units).
    pub fn admissible(&self, lambda: &SVector<f64, M>, tol: f64) -> bool {
        let n = self.normal(lambda);
        (0..M).all(|i| lambda[i].abs() <= self.mu[i] * n[i].abs() + tol)
    }

    /// A certificate that `R` is bounded: `‖(diag(μ)|K|)^(2^j)‖∞ < 1` for some `j ≤ 6`, which
    /// implies a spectral radius below one.
    pub fn certified_bounded(&self) -> bool {
        let mut a = SMatrix::<f64, M, M>::from_fn(|i, j| self.mu[i] * self.k[(i, j)].abs());
        for _ in 0..7 {
            let norm = (0..M).map(|i| a.row(i).sum()).fold(0.0, f64::max);
            if norm < 1.0 {
                return true;
            }
            if !norm.is_finite() || norm > 1e150 {
                return false;
            }
            a = a * a;
        }
        false
    }

    /// The vertices of `R` (each pattern's polytope `|λᵢ| ≤ μᵢ sᵢ nᵢ(λ)`): points where `M` of the
    /// `2M` planes `λᵢ = ±μᵢ nᵢ(λ)` meet and that lie in `R`. When `R` is bounded every
    /// pattern's polytope is the hull of those of its vertices (`nᵢ` of the right signs).
    pub fn vertices(&self, tol: f64) -> Vec<SVector<f64, M>> {
        let mut out = Vec::new();
        for mask in 0usize..(1 << (2 * M)) {
            if mask.count_ones() as usize != M {
                continue;
            }
            // Row r: λ_i − c μ_i n_i(λ) = 0, c = ±1 from plane index p = 2i + (0: +, 1: −).
            let mut a = SMatrix::<f64, M, M>::zeros();
            let mut b = SVector::<f64, M>::zeros();
            let mut r = 0;
            for p in 0..2 * M {
                if mask >> p & 1 == 0 {
                    continue;
                }
                let (i, c) = (p / 2, if p % 2 == 0 { 1.0 } else { -1.0 });
                for j in 0..M {
                    a[(r, j)] = -c * self.mu[i] * self.k[(i, j)];
                }
                a[(r, i)] += 1.0;
                b[r] = c * self.mu[i] * self.n0[i];
                r += 1;
            }
            if let Some(x) = crate::numeric::solve_small(&a, &b) {
                if x.iter().all(|v| v.is_finite()) && self.admissible(&x, tol) {
                    out.push(x);
                }
            }
        }
        out
    }

    /// The image `{wᵀλ : λ ∈ R}` as a sorted union of disjoint closed intervals (ends may be
    /// infinite): from the vertices when [`certified_bounded`](Self::certified_bounded), else by
    /// two LPs per sign pattern of `λ_N` (the pattern's polytope is convex).
    pub fn image(&self, w: &SVector<f64, M>) -> Result<Vec<(f64, f64)>, Error> {
        let tol = FRICTION_ZERO * self.scale();
        let mut pieces: Vec<(f64, f64)> = Vec::new();
        if self.certified_bounded() {
            let mut per = vec![(f64::INFINITY, f64::NEG_INFINITY); 1 << M];
            for x in self.vertices(tol) {
                let n = self.normal(&x);
                let f = w.dot(&x);
                for (bits, iv) in per.iter_mut().enumerate() {
                    let s = sign_pattern::<M>(bits);
                    if (0..M).all(|i| s[i] * n[i] >= -tol) {
                        iv.0 = iv.0.min(f);
                        iv.1 = iv.1.max(f);
                    }
                }
            }
            pieces.extend(per.into_iter().filter(|iv| iv.0 <= iv.1));
        } else {
            for bits in 0..1usize << M {
                if let Some(iv) = self.pattern_range_lp(w, &sign_pattern::<M>(bits))? {
                    pieces.push(iv);
                }
            }
        }
        Ok(merge_intervals(pieces, tol * (1.0 + w.amax())))
    }

    /// The constraints `|λᵢ| ≤ μᵢ sᵢ (n₀ + Kλ)ᵢ` of sign pattern `s` as an LP over
    /// `λ = (x⁺ − x⁻) · scale` (variables `0..M` are `x⁺`, `M..2M` are `x⁻`).
    pub(crate) fn pattern_lp(&self, s: &SVector<f64, M>, scale: f64) -> LpBuilder {
        let mut lp = LpBuilder::new(2 * M);
        for i in 0..M {
            for c in [1.0, -1.0] {
                // c λ_i − μ_i s_i (n0_i + K_i λ) ≤ 0
                let mut row = Vec::with_capacity(2 * M);
                for j in 0..M {
                    let mut coef = -self.mu[i] * s[i] * self.k[(i, j)];
                    if j == i {
                        coef += c;
                    }
                    row.push((j, coef));
                    row.push((M + j, -coef));
                }
                lp.le(row, self.mu[i] * s[i] * self.n0[i] / scale);
            }
        }
        lp
    }

    /// `min/max wᵀλ` over the polytope of sign pattern `s` by the LP core; `None` if empty.
    fn pattern_range_lp(&self, w: &SVector<f64, M>, s: &SVector<f64, M>) -> Result<Option<(f64, f64)>, Error> {
        let scale = self.scale();
        let mut ends = [0.0; 2];
        for (e, dir) in [1.0, -1.0].into_iter().enumerate() {
            let mut lp = self.pattern_lp(s, scale);
            lp.minimize((0..M).flat_map(|j| [(j, dir * w[j]), (M + j, -dir * w[j])]).collect());
            let sol = lp.build().solve(&LpSettings::default())?;
            match sol.status {
                LpStatus::Optimal => ends[e] = dir * sol.objective * scale,
                LpStatus::Infeasible => return Ok(None),
                LpStatus::Unbounded => ends[e] = -dir * f64::INFINITY,
                other => {
                    return Err(Error::Numerical(format!(
                        "friction range LP ended with status {}",
                        crate::output::kebab(&other)
                    )))
                }
            }
        }
        Ok(Some((ends[0], ends[1])))
    }

    /// The friction forces in slip: `λᵢ = −dᵢ μᵢ |nᵢ(λ)|` for slip directions `dᵢ ∈ {−1, 0, 1}`
    /// (`0`: the slider does not move and takes no friction), found by enumerating the sign
    /// patterns of `λ_N` (the expected one, that of `n₀`, first). `None` when no pattern is
    /// consistent.
    pub fn slip(&self, d: &SVector<f64, M>) -> Option<SVector<f64, M>> {
        let tol = FRICTION_ZERO * self.scale();
        for s in self.patterns() {
            // λ_i + d_i μ_i s_i (n0 + Kλ)_i = 0
            let mut a = SMatrix::<f64, M, M>::identity();
            let mut b = SVector::<f64, M>::zeros();
            for i in 0..M {
                let c = d[i] * self.mu[i] * s[i];
                for j in 0..M {
                    a[(i, j)] += c * self.k[(i, j)];
                }
                b[i] = -c * self.n0[i];
            }
            if let Some(x) = crate::numeric::solve_small(&a, &b) {
                let n = self.normal(&x);
                if x.iter().all(|v| v.is_finite()) && (0..M).all(|i| d[i] == 0.0 || s[i] * n[i] >= -tol) {
                    return Some(x);
                }
            }
        }
        None
    }
}

/// Sorts and merges intervals that overlap or touch within `tol`.
fn merge_intervals(mut v: Vec<(f64, f64)>, tol: f64) -> Vec<(f64, f64)> {
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut out: Vec<(f64, f64)> = Vec::new();
    for iv in v {
        match out.last_mut() {
            Some(last) if iv.0 <= last.1 + tol => last.1 = last.1.max(iv.1),
            _ => out.push(iv),
        }
    }
    out
}

/// Whether `x` lies in one of the intervals, widened by `tol`.
pub fn in_image(image: &[(f64, f64)], x: f64, tol: f64) -> bool {
    image.iter().any(|&(a, b)| x >= a - tol && x <= b + tol)
}

/// P5's example (Section IV, Fig. 1): a rod of mass `m`, length `2l` and central inertia `J_S`
/// whose end 1 slides in a vertical groove and end 2 in a horizontal one, with friction `μ₁`,
/// `μ₂`. Coordinate `θ` (rad), `θ = 0` hanging below the horizontal groove:
/// end 1 at `(0, −2l cos θ)`, end 2 at `(2l sin θ, 0)`, centre `S` at `(l sin θ, −l cos θ)`.
///
/// `γ_T1 = 2l sin θ θ̇` is end 1's upward velocity and `γ_T2 = −2l cos θ θ̇` minus end 2's
/// velocity along `x` (P5 (18)); the normal forces follow from Newton's law for `S`:
///
/// ```text
///   λ_N1 = −λ_T2 − m ẍ_S,        ẍ_S = l (cos θ θ̈ − sin θ θ̇²),
///   λ_N2 = m g − λ_T1 + m ÿ_S,   ÿ_S = l (sin θ θ̈ + cos θ θ̇²),
/// ```
///
/// which at rest are P5's (19); the moment balance about `S` then gives (17).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RodTwoSliders {
    /// Mass `m` (kg).
    pub mass: f64,
    /// Half length `l` (m).
    pub l: f64,
    /// Central moment of inertia `J_S` (kg m²).
    pub inertia: f64,
    /// Gravity `g` (m/s²).
    pub gravity: f64,
    /// Friction coefficient of the vertical slider (end 1).
    pub mu1: f64,
    /// Friction coefficient of the horizontal slider (end 2).
    pub mu2: f64,
}

impl RodTwoSliders {
    /// P5's parameters (Fig. 3): `m = 1`, `J_S = 1/3`, `l = 1`, `μ₁ = μ₂ = 0.3`, `g = 10`.
    pub fn paper() -> Self {
        Self { mass: 1.0, l: 1.0, inertia: 1.0 / 3.0, gravity: 10.0, mu1: 0.3, mu2: 0.3 }
    }

    /// The half width of each equilibrium set, `θ̂ = arctan(2μ₂ / (1 − μ₁μ₂))` (P5 (22)), for
    /// `μ₁μ₂ < 1`; `None` when the sets merge.
    pub fn theta_hat(&self) -> Option<f64> {
        let p = self.mu1 * self.mu2;
        (p < 1.0).then(|| (2.0 * self.mu2).atan2(1.0 - p))
    }

    /// P5's eq. (23) for `c*`, as printed.
    pub fn c_star_eq23(&self) -> f64 {
        let p = self.mu1 * self.mu2;
        self.mass * self.gravity * self.l * (1.0 - (1.0 - p) / (4.0 * self.mu2 * self.mu2 + (1.0 - p).powi(2)).sqrt())
    }

    /// `(m l² + J_S)`.
    pub fn moment(&self) -> f64 {
        self.mass * self.l * self.l + self.inertia
    }
}

impl SliderSystem<1, 2> for RodTwoSliders {
    fn mu(&self) -> SVector<f64, 2> {
        SVector::<f64, 2>::new(self.mu1, self.mu2)
    }
    fn inertia(&self, _q: &SVector<f64, 1>) -> SMatrix<f64, 1, 1> {
        SMatrix::<f64, 1, 1>::new(self.moment())
    }
    fn forces(&self, q: &SVector<f64, 1>, _v: &SVector<f64, 1>) -> SVector<f64, 1> {
        SVector::<f64, 1>::new(-self.mass * self.gravity * self.l * q[0].sin())
    }
    fn slip_jacobian(&self, q: &SVector<f64, 1>) -> SMatrix<f64, 1, 2> {
        let (s, c) = q[0].sin_cos();
        SMatrix::<f64, 1, 2>::new(2.0 * self.l * s, -2.0 * self.l * c)
    }
    fn normal_forces(
        &self,
        q: &SVector<f64, 1>,
        v: &SVector<f64, 1>,
        a: &SVector<f64, 1>,
        lambda_t: &SVector<f64, 2>,
    ) -> SVector<f64, 2> {
        let (s, c) = q[0].sin_cos();
        let (w, al) = (v[0], a[0]);
        let xdd = self.l * (c * al - s * w * w);
        let ydd = self.l * (s * al + c * w * w);
        SVector::<f64, 2>::new(-lambda_t[1] - self.mass * xdd, self.mass * self.gravity - lambda_t[0] + self.mass * ydd)
    }
    fn potential_energy(&self, q: &SVector<f64, 1>) -> f64 {
        self.mass * self.gravity * self.l * (1.0 - q[0].cos())
    }
    fn period(&self, _j: usize) -> Option<f64> {
        Some(std::f64::consts::TAU)
    }
    fn coordinate_scale(&self) -> f64 {
        1.0
    }
    fn time_scale(&self) -> f64 {
        (self.moment() / (self.mass * self.gravity * self.l)).sqrt()
    }
    fn force_scale(&self) -> f64 {
        self.mass * self.gravity * self.l
    }
}

/// A block on a spring with Coulomb friction on a bilateral guide: `m ẍ + k x = λ_T`,
/// `|λ_T| ≤ μ m g` (the normal force `m g` does not depend on the motion). The
/// one-degree-of-freedom check of P5's machinery: its equilibrium set is the stick band
/// `|x| ≤ μ m g / k` and each half cycle of slip shrinks the amplitude by twice the band
/// (closed form in [`crate::mechanics::closed_form::FrictionOscillator`], the same block on a
/// unilateral floor).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SlidingBlock {
    /// Mass `m` (kg).
    pub mass: f64,
    /// Spring stiffness `k` (N/m).
    pub stiffness: f64,
    /// Gravity `g` (m/s²).
    pub gravity: f64,
    /// Friction coefficient `μ`.
    pub mu: f64,
}

impl SlidingBlock {
    /// Half-width of the stick band `δ = μ m g / k`.
    pub fn band(&self) -> f64 {
        self.mu * self.mass * self.gravity / self.stiffness
    }
    /// The same block on a unilateral floor (its closed forms).
    pub fn on_floor(&self) -> crate::mechanics::closed_form::FrictionOscillator {
        crate::mechanics::closed_form::FrictionOscillator {
            mass: self.mass,
            stiffness: self.stiffness,
            gravity: self.gravity,
            mu: self.mu,
        }
    }
}

impl SliderSystem<1, 1> for SlidingBlock {
    fn mu(&self) -> SVector<f64, 1> {
        SVector::<f64, 1>::new(self.mu)
    }
    fn inertia(&self, _q: &SVector<f64, 1>) -> SMatrix<f64, 1, 1> {
        SMatrix::<f64, 1, 1>::new(self.mass)
    }
    fn forces(&self, q: &SVector<f64, 1>, _v: &SVector<f64, 1>) -> SVector<f64, 1> {
        SVector::<f64, 1>::new(-self.stiffness * q[0])
    }
    fn slip_jacobian(&self, _q: &SVector<f64, 1>) -> SMatrix<f64, 1, 1> {
        SMatrix::<f64, 1, 1>::new(1.0)
    }
    fn normal_forces(
        &self,
        _q: &SVector<f64, 1>,
        _v: &SVector<f64, 1>,
        _a: &SVector<f64, 1>,
        _lambda_t: &SVector<f64, 1>,
    ) -> SVector<f64, 1> {
        SVector::<f64, 1>::new(self.mass * self.gravity)
    }
    fn potential_energy(&self, q: &SVector<f64, 1>) -> f64 {
        0.5 * self.stiffness * q[0] * q[0]
    }
    fn coordinate_scale(&self) -> f64 {
        self.mass * self.gravity / self.stiffness
    }
    fn time_scale(&self) -> f64 {
        (self.mass / self.stiffness).sqrt()
    }
    fn force_scale(&self) -> f64 {
        self.mass * self.gravity
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{Vector1, Vector2};

    #[test]
    fn rod_normal_forces_satisfy_the_moment_balance_about_s() {
        // An independent route to (17): with the normal forces from Newton's law for S, the
        // moment balance J_S θ̈ = l cos θ λ_N1 + l sin θ λ_T1 − l sin θ λ_N2 − l cos θ λ_T2 (the
        // third row of (19) with inertia) must hold for θ̈ from (17).
        let rod = RodTwoSliders { mass: 1.7, l: 0.6, inertia: 0.2, gravity: 9.81, mu1: 0.2, mu2: 0.4 };
        for (th, w, lt1, lt2) in [(0.3, 1.1, 0.5, -2.0), (2.9, -3.0, -1.0, 0.7), (-1.2, 0.0, 3.0, 3.0)] {
            let q = Vector1::new(th);
            let v = Vector1::new(w);
            let lt = Vector2::new(lt1, lt2);
            let a = (rod.forces(&q, &v) + rod.slip_jacobian(&q) * lt) / rod.moment();
            let n = rod.normal_forces(&q, &v, &a, &lt);
            let (s, c) = f64::sin_cos(th);
            let l = rod.l;
            let moment = l * c * n[0] + l * s * lt1 - l * s * n[1] - l * c * lt2;
            assert!((rod.inertia * a[0] - moment).abs() < 1e-12, "{} vs {moment}", rod.inertia * a[0]);
        }
    }

    #[test]
    fn rod_statics_are_p5_eq19_and_its_range_is_bounded_iff_mu1mu2_below_one() {
        let rod = RodTwoSliders::paper();
        let map = rod.static_map(&Vector1::new(0.4));
        // λ_N1 + λ_T2 = 0 and λ_N2 + λ_T1 − m g = 0.
        assert_eq!(map.n0, Vector2::new(0.0, 10.0));
        assert_eq!(map.k, SMatrix::<f64, 2, 2>::new(0.0, -1.0, -1.0, 0.0));
        assert!(map.certified_bounded());
        let merged = RodTwoSliders { mu1: 2.0, mu2: 0.6, ..rod };
        assert!(!merged.static_map(&Vector1::new(0.4)).certified_bounded());
    }

    #[test]
    fn vertex_and_lp_images_agree() {
        // The two routes to the friction range: vertex enumeration (when certified bounded) and
        // one LP per sign pattern.
        let mut seed = 12345u64;
        let mut rnd = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((seed >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        };
        let mut checked = 0;
        for _ in 0..200 {
            let map = FrictionMap::<2> {
                n0: Vector2::new(rnd() * 3.0, rnd() * 3.0),
                k: SMatrix::<f64, 2, 2>::from_fn(|_, _| rnd()),
                mu: Vector2::new(rnd().abs(), rnd().abs()),
            };
            if !map.certified_bounded() {
                continue;
            }
            let w = Vector2::new(rnd(), rnd());
            let by_vertices = map.image(&w).unwrap();
            let mut by_lp = Vec::new();
            for bits in 0..4 {
                if let Some(iv) = map.pattern_range_lp(&w, &sign_pattern::<2>(bits)).unwrap() {
                    by_lp.push(iv);
                }
            }
            let by_lp = merge_intervals(by_lp, 1e-9);
            assert_eq!(by_vertices.len(), by_lp.len(), "{map:?} {w:?}: {by_vertices:?} vs {by_lp:?}");
            for (a, b) in by_vertices.iter().zip(&by_lp) {
                assert!((a.0 - b.0).abs() < 1e-7 && (a.1 - b.1).abs() < 1e-7, "{by_vertices:?} vs {by_lp:?}");
            }
            checked += 1;
        }
        assert!(checked > 50, "{checked}");
    }

    #[test]
    fn slip_forces_oppose_the_motion_with_the_normal_force_they_create() {
        let rod = RodTwoSliders::paper();
        let (q, v) = (Vector1::new(0.7), Vector1::new(1.5));
        let map = rod.friction_map(&q, &v).unwrap();
        let w = rod.slip_jacobian(&q);
        let d = Vector2::new((w[0] * v[0]).signum(), (w[1] * v[0]).signum());
        let lt = map.slip(&d).unwrap();
        let n = map.normal(&lt);
        for i in 0..2 {
            assert!((lt[i] + d[i] * map.mu[i] * n[i].abs()).abs() < 1e-12);
        }
        // The friction's power is negative.
        assert!((w * lt)[0] * v[0] < 0.0);
    }
}
