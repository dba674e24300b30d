//! P5 (van de Wouw & Leine): equilibrium sets of the rod on two frictional sliders and of the
//! friction oscillator against closed forms, the bilateral time-stepping against an independent
//! integration, and invariants (energy, units).

use contactlab::eqset::{self, EqsetBasinSettings, EqsetSettings};
use contactlab::mechanics::sliders::{RodTwoSliders, SliderSystem, SlidingBlock};
use contactlab::timestep::bilateral;
use nalgebra::Vector1;
use proptest::prelude::*;

fn v1(x: f64) -> Vector1<f64> {
    Vector1::new(x)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn the_set_width_is_the_closed_form(mu1 in 0.0f64..2.0, mu2 in 0.01f64..1.0) {
        prop_assume!(mu1 * mu2 < 0.98);
        let rod = RodTwoSliders { mu1, mu2, ..RodTwoSliders::paper() };
        let s = EqsetSettings { grid: 1000, ..EqsetSettings::for_system(&rod) };
        let sets = eqset::equilibrium_sets(&rod, s.q_min, s.q_max, s.grid).unwrap();
        let th = (2.0 * mu2 / (1.0 - mu1 * mu2)).atan();
        prop_assert_eq!(sets.len(), 2);
        for set in &sets {
            prop_assert!((set.half_width() - th).abs() < 1e-11, "{:?} vs {}", set, th);
        }
        prop_assert!(sets[0].center(Some(std::f64::consts::TAU)).abs() < 1e-11);
    }

    #[test]
    fn the_sets_merge_when_mu1_mu2_reaches_one(mu1 in 0.5f64..3.0, excess in 1.0f64..3.0) {
        let rod = RodTwoSliders { mu1, mu2: excess / mu1, ..RodTwoSliders::paper() };
        let s = EqsetSettings { grid: 200, ..EqsetSettings::for_system(&rod) };
        let sets = eqset::equilibrium_sets(&rod, s.q_min, s.q_max, s.grid).unwrap();
        prop_assert_eq!(sets.len(), 1);
        prop_assert!(sets[0].whole);
    }
}

#[test]
fn units_never_change_the_verdicts() {
    // Mass, length and gravity scaled by 10^±8: the same sets (θ̂ is dimensionless), the same
    // verdicts, and c* / (m g l) unchanged.
    let base = eqset::analyze(&RodTwoSliders::paper(), &EqsetSettings::for_system(&RodTwoSliders::paper())).unwrap();
    let c0 = base.c_star.unwrap() / 10.0;
    for f in [1e-8, 1e8] {
        for rod in [
            RodTwoSliders { mass: f, inertia: f / 3.0, ..RodTwoSliders::paper() },
            RodTwoSliders { l: f, inertia: f * f / 3.0, ..RodTwoSliders::paper() },
            RodTwoSliders { gravity: 10.0 * f, ..RodTwoSliders::paper() },
        ] {
            let a = eqset::analyze(&rod, &EqsetSettings::for_system(&rod)).unwrap();
            assert_eq!(a.sets.len(), 2);
            for (s, b) in a.sets.iter().zip(&base.sets) {
                assert_eq!((s.attractive, s.unstable, &s.theorem), (b.attractive, b.unstable, &b.theorem), "{rod:?}");
                assert!((s.half_width - b.half_width).abs() < 1e-11);
            }
            let mgl = rod.mass * rod.gravity * rod.l;
            assert!((a.c_star.unwrap() / mgl - c0).abs() < 1e-9 * c0, "{rod:?}");
        }
    }
    // The block's band scales with m g / k.
    for f in [1e-8, 1.0, 1e8] {
        let b = SlidingBlock { mass: 2.0 * f, stiffness: 50.0, gravity: 9.81, mu: 0.3 };
        let a = eqset::analyze(&b, &EqsetSettings::for_system(&b)).unwrap();
        assert_eq!(a.sets.len(), 1);
        assert!((a.sets[0].half_width / b.band() - 1.0).abs() < 1e-10, "{f}");
        assert_eq!(a.sets[0].attractive, Some(true));
    }
}

/// The rod's slip dynamics as a smooth ODE (valid while `θ̇` keeps its sign), integrated by
/// classical RK4: `θ̈ = (h + W_T λ_T)/M` with the slip friction of the current state.
fn rk4_slip(rod: &RodTwoSliders, th0: f64, w0: f64, t_end: f64, n: usize) -> (f64, f64) {
    let acc = |th: f64, w: f64| {
        let (q, v) = (v1(th), v1(w));
        let map = rod.friction_map(&q, &v).unwrap();
        let wt = rod.slip_jacobian(&q);
        let d = nalgebra::Vector2::new((wt[0] * w).signum(), (wt[1] * w).signum());
        let lam = map.slip(&d).unwrap();
        (rod.forces(&q, &v)[0] + (wt * lam)[0]) / rod.moment()
    };
    let h = t_end / n as f64;
    let (mut th, mut w) = (th0, w0);
    for _ in 0..n {
        let (k1t, k1w) = (w, acc(th, w));
        let (k2t, k2w) = (w + 0.5 * h * k1w, acc(th + 0.5 * h * k1t, w + 0.5 * h * k1w));
        let (k3t, k3w) = (w + 0.5 * h * k2w, acc(th + 0.5 * h * k2t, w + 0.5 * h * k2w));
        let (k4t, k4w) = (w + h * k3w, acc(th + h * k3t, w + h * k3w));
        th += h / 6.0 * (k1t + 2.0 * k2t + 2.0 * k3t + k4t);
        w += h / 6.0 * (k1w + 2.0 * k2w + 2.0 * k3w + k4w);
    }
    (th, w)
}

#[test]
fn time_stepping_converges_to_the_slip_ode_at_first_order() {
    // From θ = −1.2 with θ̇ = 4 the rod swings through θ = 0 (where slider 1's slip velocity
    // changes sign) and up to θ ≈ 1.1 before it stops; at t = 0.5 s it still moves.
    let rod = RodTwoSliders::paper();
    let (th0, w0, t_end) = (-1.2, 4.0, 0.5);
    let reference = rk4_slip(&rod, th0, w0, t_end, 20_000);
    assert!(reference.1 > 0.1, "still moving: {reference:?}");
    let mut errs = Vec::new();
    for n in [100usize, 200, 400, 800] {
        let h = t_end / n as f64;
        let tr = bilateral::run(&rod, &v1(th0), &v1(w0), h, n, n).unwrap();
        let last = tr.q.len() - 1;
        errs.push((tr.q[last][0] - reference.0).abs() + rod.time_scale() * (tr.v[last][0] - reference.1).abs());
    }
    // First order (the normal forces and the slip direction are taken at the start of a step),
    // each halving at least 0.8 and 0.9 on average over the range.
    for w in errs.windows(2) {
        let order = (w[0] / w[1]).log2();
        assert!(order > 0.8, "errors {errs:?}");
    }
    assert!((errs[0] / errs[3]).log2() / 3.0 > 0.9, "errors {errs:?}");
    assert!(errs[3] < 1e-3, "{errs:?}");
}

#[test]
fn the_oscillator_through_stick_slip_at_first_order() {
    // The bilateral block against its closed form across a slip reversal and into the band, the
    // reversal kept at the middle of a step (h = T/2 / (m + 1/2)).
    let b = SlidingBlock { mass: 1.5, stiffness: 20.0, gravity: 9.81, mu: 0.25 };
    let osc = b.on_floor();
    let (d, t_half) = (b.band(), osc.half_period());
    let x0 = 4.4 * d;
    let t_end = 2.7 * t_half;
    let mut errs = Vec::new();
    for m in [250, 500, 1000, 2000] {
        let h = t_half / (m as f64 + 0.5);
        let n = (t_end / h) as usize;
        let tr = bilateral::run(&b, &v1(x0), &v1(0.0), h, n, 1).unwrap();
        let max = tr.t.iter().zip(&tr.q).map(|(t, q)| (q[0] - osc.position(x0, *t)).abs()).fold(0.0, f64::max);
        errs.push(max / d);
    }
    for w in errs.windows(2) {
        let order = (w[0] / w[1]).log2();
        assert!((0.8..1.3).contains(&order), "not first order: {errs:?}");
    }
    // 4.4δ → −2.4δ → 0.4δ: at rest inside the band after two half cycles, exactly still.
    let h = t_half / 1000.5;
    let end = bilateral::settle(&b, &v1(x0), &v1(0.0), h, 10_000).unwrap();
    assert!(end.at_rest && (end.q[0] - 0.4 * d).abs() < 0.01 * d, "{end:?}");
}

#[test]
fn energy_does_not_grow_along_time_stepping_beyond_o_h() {
    // V = T + U is non-increasing along solutions (P5 (11)); the midpoint scheme keeps that up to
    // O(h): the largest rise of V between any two steps shrinks with h.
    let rod = RodTwoSliders::paper();
    let mgl = 10.0;
    let rise = |h: f64| {
        let mut worst = 0.0f64;
        for (th, w) in [(-3.0, 0.0), (2.0, 3.0), (0.5, -6.0), (-1.0, 5.5)] {
            let n = (6.0 / h) as usize;
            let tr = bilateral::run(&rod, &v1(th), &v1(w), h, n, 1).unwrap();
            let mut low = f64::INFINITY;
            for (q, v) in tr.q.iter().zip(&tr.v) {
                let e = rod.energy(&v1(q[0]), &v1(v[0]));
                low = low.min(e);
                worst = worst.max(e - low);
            }
        }
        worst / mgl
    };
    let (r1, r2) = (rise(2e-3), rise(1e-3));
    assert!(r1 < 5e-3 && r2 < 0.6 * r1 + 1e-12, "{r1:e} {r2:e}");
}

#[test]
fn the_estimate_is_conservative_and_e2_has_a_thick_stable_manifold() {
    // P5 Section IV: {V < c*} lies in E1's basin (Theorem 1), and a bundle of solutions with a
    // non-empty interior is attracted to the unstable set E2.
    let rod = RodTwoSliders::paper();
    let settings = EqsetSettings::for_system(&rod);
    let a = eqset::analyze(&rod, &settings).unwrap();
    let t1 = a.sets[0].theorem1.as_ref().unwrap();
    let vmax = 1.25 * (2.0 * t1.c_star / rod.moment()).sqrt();
    let b = EqsetBasinSettings {
        grid: 16,
        q_range: (-std::f64::consts::PI, std::f64::consts::PI),
        v_range: (-vmax, vmax),
        h: rod.time_scale() / 200.0,
        max_steps: 20_000,
    };
    let basin = eqset::basin(&rod, &a.sets, 0, t1, &b).unwrap();
    assert_eq!(basin.share_moving, 0.0);
    assert!(basin.share_in_estimate > 0.3);
    assert_eq!(basin.estimate_elsewhere, 0);
    assert_eq!(basin.estimate_converges, 1.0);
    assert!(basin.share_per_set[1] > 0.02, "{:?}", basin.share_per_set);
    // Those runs rest in E2 itself: the set attracts them although it is unstable.
    assert!(basin.share_per_set[0] + basin.share_per_set[1] == 1.0);
}

/// Two blocks on a guide joined by springs (wall–k₁–block 1–k₂–block 2), each with Coulomb
/// friction under its weight: a two-degree-of-freedom system whose equilibrium set is the
/// parallelogram |k₁x₁ − k₂(x₂ − x₁)| ≤ μ₁m₁g, |k₂(x₂ − x₁)| ≤ μ₂m₂g.
struct Chain {
    m: [f64; 2],
    k: [f64; 2],
    mu: [f64; 2],
    g: f64,
}

impl Chain {
    fn margins(&self, x: &nalgebra::Vector2<f64>) -> [f64; 2] {
        let f1 = self.k[0] * x[0] - self.k[1] * (x[1] - x[0]);
        let f2 = self.k[1] * (x[1] - x[0]);
        [self.mu[0] * self.m[0] * self.g - f1.abs(), self.mu[1] * self.m[1] * self.g - f2.abs()]
    }
}

impl SliderSystem<2, 2> for Chain {
    fn mu(&self) -> nalgebra::Vector2<f64> {
        nalgebra::Vector2::new(self.mu[0], self.mu[1])
    }
    fn inertia(&self, _q: &nalgebra::Vector2<f64>) -> nalgebra::Matrix2<f64> {
        nalgebra::Matrix2::new(self.m[0], 0.0, 0.0, self.m[1])
    }
    fn forces(&self, q: &nalgebra::Vector2<f64>, _v: &nalgebra::Vector2<f64>) -> nalgebra::Vector2<f64> {
        let s2 = self.k[1] * (q[1] - q[0]);
        nalgebra::Vector2::new(-self.k[0] * q[0] + s2, -s2)
    }
    fn slip_jacobian(&self, _q: &nalgebra::Vector2<f64>) -> nalgebra::Matrix2<f64> {
        nalgebra::Matrix2::identity()
    }
    fn normal_forces(
        &self,
        _q: &nalgebra::Vector2<f64>,
        _v: &nalgebra::Vector2<f64>,
        _a: &nalgebra::Vector2<f64>,
        _l: &nalgebra::Vector2<f64>,
    ) -> nalgebra::Vector2<f64> {
        nalgebra::Vector2::new(self.m[0] * self.g, self.m[1] * self.g)
    }
    fn potential_energy(&self, q: &nalgebra::Vector2<f64>) -> f64 {
        0.5 * self.k[0] * q[0] * q[0] + 0.5 * self.k[1] * (q[1] - q[0]).powi(2)
    }
    fn coordinate_scale(&self) -> f64 {
        self.m[0] * self.g / self.k[0]
    }
    fn time_scale(&self) -> f64 {
        (self.m[0] / self.k[0]).sqrt()
    }
    fn force_scale(&self) -> f64 {
        self.m[0] * self.g
    }
}

#[test]
fn two_degrees_of_freedom_sampled_set_and_lcp_time_stepping() {
    let c = Chain { m: [1.0, 2.0], k: [30.0, 20.0], mu: [0.3, 0.2], g: 9.81 };
    let b = 0.5;
    let lo = nalgebra::Vector2::new(-b, -b);
    let hi = nalgebra::Vector2::new(b, b);
    let s = eqset::sample_equilibrium_set(&c, &lo, &hi, 21).unwrap();
    assert!(!s.inside.is_empty() && s.boundary.len() >= 8, "{} inside, {} boundary", s.inside.len(), s.boundary.len());
    // The grid points in the set are the ones with both margins ≥ 0, and the boundary points lie
    // on the parallelogram's edges.
    let scale = c.m[0] * c.g;
    for k in 0..21 * 21 {
        let p = nalgebra::Vector2::new(-b + 2.0 * b * (k % 21) as f64 / 20.0, -b + 2.0 * b * (k / 21) as f64 / 20.0);
        let m = c.margins(&p);
        let listed = s.inside.iter().any(|q| (q[0] - p[0]).abs() < 1e-12 && (q[1] - p[1]).abs() < 1e-12);
        if m[0].min(m[1]) > 1e-9 * scale {
            assert!(listed, "{p:?} should be in the set");
        } else if m[0].min(m[1]) < -1e-9 * scale {
            assert!(!listed, "{p:?} should not be in the set");
        }
    }
    // (To the feasibility tolerance of the LP per point, 1e-9 of the force data plus one.)
    for q in &s.boundary {
        let m = c.margins(&nalgebra::Vector2::new(q[0], q[1]));
        assert!(m[0].min(m[1]).abs() < 5e-9 * scale, "{q:?}: margins {m:?}");
    }
    // Time-stepping (the LCP route, N = 2): the energy never rises by more than O(h) and the
    // chain comes to rest inside the set.
    let h = c.time_scale() / 200.0;
    let end = bilateral::settle(&c, &nalgebra::Vector2::new(0.4, -0.3), &nalgebra::Vector2::new(1.0, 0.0), h, 100_000)
        .unwrap();
    assert!(end.at_rest, "{end:?}");
    let m = c.margins(&end.q);
    assert!(m[0].min(m[1]) >= -1e-9 * scale, "rest outside the set: {end:?} {m:?}");
    let tr = bilateral::run(&c, &nalgebra::Vector2::new(0.4, -0.3), &nalgebra::Vector2::new(1.0, 0.0), h, end.steps, 1)
        .unwrap();
    let mut low = f64::INFINITY;
    let mut rise = 0.0f64;
    for (q, v) in tr.q.iter().zip(&tr.v) {
        let e = c.energy(&nalgebra::Vector2::new(q[0], q[1]), &nalgebra::Vector2::new(v[0], v[1]));
        low = low.min(e);
        rise = rise.max(e - low);
    }
    assert!(rise < 1e-2 * scale * c.coordinate_scale(), "{rise}");
}
