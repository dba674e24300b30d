//! Painlevé's paradox and slip outcomes on user mechanisms (`kind = "multibody"`, issue #21),
//! checked against the built-in walkers of P2 written as multibody files: the same `A`, `B`,
//! cases, `μ_min`, intervals of `B < 0` and slip outcomes, in the files' coordinates.

use std::path::{Path, PathBuf};

use contactlab::mechanics::walkers::{CompassBiped, RimlessWheel};
use contactlab::mechanics::ContactSystem;
use contactlab::multibody::painleve::{painleve, several_contacts, slip, PainleveSettings, SliceAxis};
use contactlab::multibody::{model, Mechanism};
use contactlab::walking::painleve::{b_at, b_negative_intervals, mu_min};
use contactlab::walking::slip::SlipOutcome;
use contactlab::walking::{ab, slip_case, SlipCase, WalkerSettings};
use nalgebra::{dvector, DVector};

use crate::common::desingular;
use crate::common::hand_written_gait;

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/multibody").join(name)
}

fn read(name: &str) -> Mechanism {
    model::read(&example(name)).unwrap()
}

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * a.abs().max(b.abs()).max(1e-300)
}

/// The rimless wheel's state `(x, y, θ)` of the stance tip (P2) in the file's hub coordinates
/// `(x_h, y_h, φ)`, `φ = −θ` (the file's comment).
fn wheel_to_hub(w: &RimlessWheel, q: &DVector<f64>, v: &DVector<f64>) -> (DVector<f64>, DVector<f64>) {
    let (s, c) = q[2].sin_cos();
    let l = w.length;
    (dvector![q[0] + l * s, q[1] + l * c, -q[2]], dvector![v[0] + l * c * v[2], v[1] - l * s * v[2], -v[2]])
}

/// The compass biped's state in the file's hip coordinates (as in `tests/integration/mechanism.rs`).
fn to_hip(b: &CompassBiped, q: &DVector<f64>, v: &DVector<f64>) -> (DVector<f64>, DVector<f64>) {
    let l2 = 2.0 * b.l;
    let (s, c) = q[0].sin_cos();
    (
        dvector![q[2] + l2 * s, q[3] + l2 * c, -q[0], q[0] + q[1]],
        dvector![v[2] + l2 * c * v[0], v[3] - l2 * s * v[0], -v[0], v[0] + v[1]],
    )
}

fn settings(contact: &str, slice: &[(&str, f64, f64)]) -> PainleveSettings {
    PainleveSettings {
        contact: contact.into(),
        slice: slice.iter().map(|&(c, lo, hi)| SliceAxis { coordinate: c.into(), lo, hi }).collect(),
        ..Default::default()
    }
}

#[test]
fn the_rimless_wheel_file_has_p2s_painleve_region() {
    let w = RimlessWheel::paper(0.35);
    let m = read("rimless-wheel.toml");
    let half = w.half_angle();
    // μ_min over all angles (P2 eq. 33: 2√(κ + κ²)) and B < 0 over the stance range (eq. 34).
    let p = painleve(&m, &m.q0, &m.v0, &settings("stance tip", &[("wheel.theta", -1.5, 1.5)])).unwrap();
    let built = mu_min(&w, 1.0, -1.5, 1.5, 301).unwrap();
    let closed = 2.0 * (w.kappa + w.kappa * w.kappa).sqrt();
    let got = p.mu_min.as_ref().unwrap();
    assert!(close(got.mu_min, built.mu_min, 1e-8), "{} vs {}", got.mu_min, built.mu_min);
    assert!(close(got.mu_min, closed, 1e-8), "{} vs closed form {closed}", got.mu_min);
    let p = painleve(&m, &m.q0, &m.v0, &settings("stance tip", &[("wheel.theta", -half, half)])).unwrap();
    let iv = p.b_negative_intervals.unwrap();
    let bi = b_negative_intervals(&w, 0.35, 1.0, -half, half, 401);
    assert_eq!(iv.len(), 1);
    assert_eq!(bi.len(), 1);
    // φ = −θ: the interval reflects.
    assert!(close(iv[0][0], -bi[0][1], 1e-8) && close(iv[0][1], -bi[0][0], 1e-8), "{iv:?} vs {bi:?}");
    // A and B and the case at states, and the slip direction's sign.
    let sys = m.system().unwrap();
    for (th, rate, xd) in [(-0.3, 0.643, 0.5), (0.1, 0.2, -0.3), (-0.15, 1.2, 0.05), (0.25, -0.4, 0.7)] {
        let (q, v) = (dvector![0.0, 0.0, th], dvector![xd, 0.0, rate]);
        let (hq, hv) = wheel_to_hub(&w, &q, &v);
        let sigma = xd.signum();
        let (a, b) = ab(&w, &q, &v, sigma);
        let (a2, b2) = ab(&sys, &hq, &hv, sigma);
        assert!(close(a, a2, 1e-10) && close(b, b2, 1e-10), "({a}, {b}) vs ({a2}, {b2})");
        let p = painleve(&m, hq.as_slice(), hv.as_slice(), &settings("stance tip", &[])).unwrap();
        assert_eq!(p.sigma as f64, sigma, "the slip direction is read from the state");
        assert_eq!(p.at_state.case, slip_case(a, b));
    }
}

#[test]
fn the_compass_biped_file_has_p2s_painleve_region() {
    let c = CompassBiped::paper(0.7);
    let m = read("compass-biped.toml");
    let sys = m.system().unwrap();
    // B at configurations: the file's B at (φ₁, φ₂) = (−θ₁, θ₁ + θ₂) is P2's B(θ₁, θ₂).
    for (t1, t2) in [(-0.25, 0.25), (0.1, -0.3), (-0.4, 0.6), (0.3, 0.9), (-0.05, -0.7)] {
        let bb = b_at(&c, &[t1, t2], 0.7, 1.0);
        let (hq, _) = to_hip(&c, &dvector![t1, t2, 0.0, 0.0], &DVector::zeros(4));
        let (d, cc) = contactlab::walking::painleve::d_and_c(&sys, &hq);
        assert!(close(d - 0.7 * cc, bb, 1e-10), "B({t1}, {t2}): {} vs {bb}", d - 0.7 * cc);
    }
    // μ_min: P2's 0.5533, attained with the legs symmetric about the normal (φ₂ = θ₁ + θ₂ = 0).
    let built = mu_min(&c, 1.0, -1.5, 1.5, 121).unwrap();
    let p = painleve(&m, &m.q0, &m.v0, &settings("stance foot", &[("stance.theta", -1.0, 1.0), ("swing", -2.0, 2.0)]))
        .unwrap();
    let got = p.mu_min.unwrap();
    assert!(close(got.mu_min, built.mu_min, 1e-8), "{} vs {}", got.mu_min, built.mu_min);
    assert!((got.at[0] + built.at[0]).abs() < 1e-4 && (got.at[1] - built.at[0] - built.at[1]).abs() < 1e-4);
    // The grid: every point's sign is P2's at the mapped angles.
    let g = p.b_negative_grid.unwrap();
    assert!(g.cells > 0);
    let n = g.points_per_axis;
    for j in (0..n).step_by(7) {
        for i in (0..n).step_by(5) {
            let (f1, f2) = (-1.0 + 2.0 * i as f64 / (n - 1) as f64, -2.0 + 4.0 * j as f64 / (n - 1) as f64);
            let bb = b_at(&c, &[-f1, f2 + f1], 0.7, 1.0);
            assert!(close(g.b[j][i], bb, 1e-9), "({f1}, {f2}): {} vs {bb}", g.b[j][i]);
        }
    }
}

#[test]
fn one_slipping_contact_lcp_is_table_2_1() {
    // The LCP check of several slipping contacts, given one contact, must reproduce the four
    // cases of P2's Table 2.1: consistent slip and separation one solution, indeterminate two,
    // inconsistent none. Over a grid of compass-biped states with high friction (all cases).
    let m = read("compass-biped.toml");
    let m = m.with_mu(0, 1.5).unwrap();
    let sys = m.system().unwrap();
    let mut seen = std::collections::BTreeSet::new();
    for (k, t1) in [-0.6, -0.35, -0.2, 0.0, 0.2, 0.4].into_iter().enumerate() {
        for (j, rate) in [-2.0, -0.5, 0.5, 2.0, 4.0].into_iter().enumerate() {
            let q = dvector![0.0, 1.5, t1, 0.3 - t1];
            let v = dvector![0.4 * (k as f64 - 2.5), 0.0, rate, 0.3 * (j as f64 - 2.0)];
            let sigma = sys.tangent_jacobian(0, &q).dot(&v).signum();
            let (a, b) = ab(&sys, &q, &v, sigma);
            let r = several_contacts(&sys, &q, &v, &[0], &[sigma], &m.contact_names).unwrap();
            let case = slip_case(a, b);
            seen.insert(format!("{case:?}"));
            let expected = match case {
                SlipCase::ConsistentSlip | SlipCase::Separation => "consistent",
                SlipCase::Indeterminate => "indeterminate",
                SlipCase::Inconsistent => "inconsistent",
            };
            assert_eq!(r.verdict, expected, "A = {a}, B = {b}: {r:?}");
            assert_eq!(r.p_matrix, Some(b > 0.0));
            for f in &r.solutions {
                // complementarity of each solution: f = 0 or a_n = −A + B f = 0
                let an = -a + b * f[0];
                assert!(f[0] >= 0.0 && an >= -1e-9 * a.abs().max(1.0) && (f[0] * an).abs() <= 1e-9 * a.abs().max(1.0));
            }
        }
    }
    assert_eq!(seen.len(), 4, "the grid must meet all four cases: {seen:?}");
}

#[test]
fn two_slipping_corners_have_one_force_pair_when_b_is_a_p_matrix() {
    // The block on two corners sliding sideways: B is a P-matrix for low friction, so the LCP has
    // exactly one solution; with very high friction it can lose the property, and then whatever
    // the enumeration finds must still be complementary.
    let m = read("rocking-block.toml");
    let q = [0.0, 0.4, 0.0];
    let v = [1.0, 0.0, 0.0];
    let mut any_p = false;
    for mu in [0.1, 0.5, 1.0, 3.0, 10.0] {
        let mut mm = m.with_mu(0, mu).unwrap();
        mm = mm.with_mu(1, mu).unwrap();
        let s = PainleveSettings { contact: "left corner".into(), ..Default::default() };
        let p = painleve(&mm, &q, &v, &s).unwrap();
        let sv = p.several.expect("both corners are closed and slipping");
        assert_eq!(sv.contacts, ["left corner", "right corner"]);
        if sv.p_matrix == Some(true) {
            any_p = true;
            assert_eq!(sv.verdict, "consistent", "mu = {mu}: {sv:?}");
        }
        // Flat on the floor, sliding to the right: with both corners loaded the block neither
        // lifts nor turns, so the forces carry the weight m g; friction's moment unloads the
        // trailing (left) corner, N_L = m g (1 − 4μ)/2 (b = 0.1, h = 0.4), which lifts for
        // μ > b/h = 1/4: then the leading corner alone carries the block.
        if sv.verdict == "consistent" {
            let f = &sv.solutions[0];
            if mu < 0.25 {
                assert!(close(f[0] + f[1], 2.0 * 9.81, 1e-9), "mu = {mu}: {f:?}");
                assert!(close(f[0], 2.0 * 9.81 * (1.0 - 4.0 * mu) / 2.0, 1e-9), "mu = {mu}: {f:?}");
            } else {
                assert!(f[0].abs() <= 1e-9 * f[1] && f[1] > 0.0, "mu = {mu}: {f:?}");
            }
        }
    }
    assert!(any_p);
}

#[test]
fn two_slipping_corners_are_inconsistent_on_a_floor_and_indeterminate_under_a_ceiling() {
    // Housner's block (half-width b = 0.1, half-height h = 0.4, m = 2, I = m (b² + h²)/3) flat on
    // both corners, sliding to the right, both corners with friction μ. In closed form
    // (a = −A + B N, B_ij = 1/m + x_i (x_j − h μ)/I with x = ∓b): for b/h < μ only the leading
    // corner can carry the block, with N_R = g / B_RR, B_RR = 1/m + b (b − h μ)/I; past
    // μ* = (b + (b² + h²)/(3b))/h = 5/3, B_RR < 0 and the LCP has no solution: inconsistent.
    // Mirrored under a ceiling (the block pressed up against it, gravity pulling it away: −A),
    // free fall (N = 0) is always a solution, and past μ* so is N_R = −g / B_RR > 0:
    // indeterminate. B is never a P-matrix past μ* (B_RR < 0).
    let floor = read("rocking-block.toml");
    let text = std::fs::read_to_string(example("rocking-block.toml")).unwrap();
    let mirrored = text
        .replace("normal = [0.0, 1.0]", "normal = [0.0, -1.0]")
        .replace("point = [-0.1, -0.4]", "point = [-0.1, 0.4]")
        .replace("point = [0.1, -0.4]", "point = [0.1, 0.4]");
    assert_ne!(mirrored, text);
    let ceiling =
        model::from_model(&contactlab::model::ModelDoc::parse("ceiling.toml", &mirrored, false).unwrap()).unwrap();
    let (b, h, m, g) = (0.1, 0.4, 2.0, 9.81);
    let inertia = m * (b * b + h * h) / 3.0;
    let b_rr = |mu: f64| 1.0 / m + b * (b - h * mu) / inertia;
    let mu_star = (b + (b * b + h * h) / (3.0 * b)) / h;
    assert!((mu_star - 5.0 / 3.0).abs() < 1e-12);
    let s = PainleveSettings { contact: "left corner".into(), ..Default::default() };
    for mu in [0.5, 1.0, 1.6, 1.7, 3.0, 10.0] {
        let both = |mech: &Mechanism| mech.with_mu(0, mu).unwrap().with_mu(1, mu).unwrap();
        let on_floor = painleve(&both(&floor), &[0.0, 0.4, 0.0], &[1.0, 0.0, 0.0], &s).unwrap();
        let under = painleve(&both(&ceiling), &[0.0, -0.4, 0.0], &[1.0, 0.0, 0.0], &s).unwrap();
        let (f, c) = (on_floor.several.unwrap(), under.several.unwrap());
        assert!(f.complete && c.complete);
        if mu < mu_star {
            assert_eq!(f.verdict, "consistent", "floor, mu = {mu}: {f:?}");
            let n = &f.solutions[0];
            assert!(n[0].abs() <= 1e-12 * n[1] && close(n[1], g / b_rr(mu), 1e-9), "mu = {mu}: {n:?}");
            assert_eq!(c.verdict, "consistent", "ceiling, mu = {mu}: {c:?}");
            assert!(c.solutions[0].iter().all(|&x| x == 0.0), "ceiling, mu = {mu}: {c:?}");
        } else {
            assert_eq!(f.verdict, "inconsistent", "floor, mu = {mu}: {f:?}");
            assert!(f.solutions.is_empty());
            assert_eq!(c.verdict, "indeterminate", "ceiling, mu = {mu}: {c:?}");
            assert_eq!(c.solutions.len(), 2, "{c:?}");
            assert!(c.solutions.iter().any(|n| n.iter().all(|&x| x == 0.0)), "free fall: {c:?}");
            let n = c.solutions.iter().find(|n| n[1] > 0.0).expect("the loaded solution");
            assert!(n[0].abs() <= 1e-12 * n[1] && close(n[1], -g / b_rr(mu), 1e-9), "mu = {mu}: {n:?}");
            assert_eq!(f.p_matrix, Some(false));
            assert_eq!(c.p_matrix, Some(false));
        }
    }
}

#[test]
fn the_rimless_wheel_files_painleve_region_is_the_same_on_both_kernels() {
    // The file's start rolls: its stance tip does not slip, so the slip direction is `+1` by
    // definition, whatever the sign of the round-off in its slip speed (which the two kernels
    // round differently: on the spatial tree it was negative, and the region came out mirrored).
    use contactlab::mechanics::multibody_system::Kernel;
    let m = read("rimless-wheel.toml");
    let half = RimlessWheel::paper(0.35).half_angle();
    let region = |kernel| {
        let mut mm = m.clone();
        mm.kernel = kernel;
        let s = settings("stance tip", &[("wheel.theta", -half, half)]);
        painleve(&mm, &mm.q0, &mm.v0, &s).unwrap().b_negative_intervals.unwrap()
    };
    let (planar, spatial) = (region(Kernel::Planar), region(Kernel::Spatial));
    assert_eq!(planar.len(), 1);
    assert_eq!(spatial.len(), 1);
    for k in 0..2 {
        assert!(close(planar[0][k], spatial[0][k], 1e-12), "{planar:?} vs {spatial:?}");
    }
    assert!(planar[0][0] > 0.0, "{planar:?}");
}

#[test]
fn slips_of_the_compass_file_end_as_the_built_in_bipeds() {
    // Slips of the stance foot from a grid of compass-biped states (P2's coordinates, turned into
    // the file's hip coordinates): the file ends each slip as the built-in biped does, by the
    // same outcome at the same time; the grid meets stick, reversal, separation, impact and
    // Painlevé's inconsistent and indeterminate starts. On both kernels: on the spatial tree the
    // slip from θ₁ = 0, rates −4, −5, slip 0.3, which starts at the friction cone's edge with a
    // slip speed of round-off, stopped 3e-10 s after its onset while its stop guard was armed
    // by that round-off's sign.
    use contactlab::mechanics::multibody_system::Kernel;
    let b = CompassBiped::paper(0.7);
    let mut m = read("compass-biped.toml");
    let s = WalkerSettings::default();
    let mut seen = std::collections::BTreeSet::new();
    for (kernel, th1) in
        [Kernel::Planar, Kernel::Spatial].into_iter().flat_map(|k| [-0.6, -0.4, 0.0, 0.4].map(|t| (k, t)))
    {
        m.kernel = kernel;
        for r1 in [-4.0, -1.0, 4.0] {
            for r2 in [-5.0, 5.0] {
                for xd in [-1.0, 0.3] {
                    let (q, v) = (dvector![th1, 0.3, 0.0, 0.0], dvector![r1, r2, xd, 0.0]);
                    let a = contactlab::walking::slip::slip(&b, &q, &v, &s);
                    let (hq, hv) = to_hip(&b, &q, &v);
                    let f = slip(&m, hq.as_slice(), hv.as_slice(), "stance foot", &s).unwrap();
                    let at = format!("{kernel:?}: theta1 {th1}, rates {r1} {r2}, slip {xd}");
                    assert_eq!(a.outcome, f.outcome, "{at}");
                    // Event times agree to 1e-7, except one separation after a 0.64 s slip
                    // where f_n falls to zero at a shallow angle: the two models' coordinates
                    // (foot-rooted and hip-rooted) round differently and its time moves by 5e-4
                    // (the outcome agrees).
                    let tol = if f.outcome == SlipOutcome::Separation { 1e-3 } else { 1e-7 };
                    assert!(
                        (a.t_end - f.t_end).abs() <= tol * a.t_end.max(1e-3),
                        "{at}: {:?} at {} vs {}",
                        a.outcome,
                        a.t_end,
                        f.t_end
                    );
                    seen.insert(format!("{:?}", f.outcome));
                }
            }
        }
    }
    for o in ["Stick", "Reversal", "Separation", "Impact", "Inconsistent", "Indeterminate"] {
        assert!(seen.contains(o), "no {o} among {seen:?}");
    }
}

#[test]
fn slips_of_the_wheel_file_end_as_the_built_in_wheels() {
    // P2 Fig. 3.3: from θ = −0.3, θ' = 0.643 the slip with ẋ = 0.5 jams; slower slips stick.
    let w = RimlessWheel::paper(0.35);
    let m = read("rimless-wheel.toml");
    let s = WalkerSettings::default();
    let mut outcomes = Vec::new();
    for xd in [0.05, 0.5] {
        let (q, v) = (dvector![0.0, 0.0, -0.3], dvector![xd, 0.0, 0.643]);
        let a = contactlab::walking::slip::slip(&w, &q, &v, &s);
        let (hq, hv) = wheel_to_hub(&w, &q, &v);
        let b = slip(&m, hq.as_slice(), hv.as_slice(), "stance tip", &s).unwrap();
        assert_eq!(a.outcome, b.outcome, "x' = {xd}");
        assert!((a.t_end - b.t_end).abs() <= 1e-7 * a.t_end.max(1.0), "{} vs {}", a.t_end, b.t_end);
        outcomes.push(b.outcome);
    }
    assert_eq!(outcomes[1], SlipOutcome::Jam, "{outcomes:?}");
    assert_ne!(outcomes[0], SlipOutcome::Jam);

    // The jam threshold from that state: the built-in wheel slid along x, the file's wheel along
    // its hub's x (the same translation): the same speed, to the bisections' 1e-5.
    let (q, rest) = (dvector![0.0, 0.0, -0.3], dvector![0.0, 0.0, 0.643]);
    let builtin =
        contactlab::walking::slip::jam_threshold(&w, &q, &rest, &dvector![1.0, 0.0, 0.0], 5.0, 1e-5, &s).unwrap();
    let (hq, hv) = wheel_to_hub(&w, &q, &rest);
    let jam = |along: Option<&str>| {
        contactlab::multibody::painleve::jam_threshold(&m, hq.as_slice(), hv.as_slice(), "stance tip", along, 5.0, &s)
    };
    let file = jam(Some("wheel.x")).unwrap().expect("jams below 5 m/s");
    assert!(close(file, builtin, 3e-5), "{file} vs {builtin}");
    assert!(0.05 < file && file < 0.5, "{file}");
    // The least kinetic-energy slide (translation and spin together) is another direction: it
    // need not jam below 5 m/s, but it is a valid request.
    assert!(jam(None).unwrap().is_none_or(|s| s > 0.0 && (s - file).abs() > 1e-3 * file));
    // A coordinate that moves the tip off its line cannot set a slip speed.
    let err = jam(Some("wheel.theta")).unwrap_err().to_string();
    assert!(err.contains("along") && err.contains("wheel.theta"), "{err}");
}

#[test]
fn painleve_inputs_are_checked() {
    let m = read("compass-biped.toml");
    let run = |s: PainleveSettings| painleve(&m, &m.q0, &m.v0, &s).unwrap_err().to_string();
    assert!(run(settings("hand", &[])).contains("stance foot"));
    assert!(run(settings("stance foot", &[("knee", 0.0, 1.0)])).contains("stance.theta"));
    assert!(run(settings("stance foot", &[("swing", 1.0, 0.0)])).contains("lo < hi"));
    assert!(run(settings("stance foot", &[("swing", 0.0, 1.0), ("swing", 0.0, 2.0)])).contains("twice"));
    assert!(run(PainleveSettings { sigma: Some(2), ..settings("stance foot", &[]) }).contains("sigma"));
    assert!(run(PainleveSettings { mu: Some(-1.0), ..settings("stance foot", &[]) }).contains("mu"));
    assert!(run(PainleveSettings { points: 1, ..settings("stance foot", &[]) }).contains("points"));
    assert!(slip(&m, &m.q0, &m.v0, "knee", &WalkerSettings::default()).is_err());
}

#[test]
fn the_rimless_wheel_file_has_p2s_gait() {
    // Found by the gait search: P2's closed-form gait (eq. 27), the built-in wheel's multiplier,
    // mu_stick and impulse ratio, one spoke further down the slope per step.
    use contactlab::multibody::gait::GaitSettings;
    let w = RimlessWheel::paper(0.35);
    let m = read("rimless-wheel.toml");
    let search = contactlab::multibody::gait::find_gaits(&m, &GaitSettings::default()).unwrap();
    assert_eq!(search.gaits.len(), 1, "{search:?}");
    let g = &search.gaits[0];
    let (_, rate) = contactlab::walking::rimless_closed_form(&w);
    let b = hand_written_gait::rimless(&w, rate, 1e-10).expect("converges");
    assert!(close(g.period, b.period, 1e-9), "{} vs {}", g.period, b.period);
    assert!(close(-g.v[2], rate, 1e-8), "post-strike rate {} vs closed form {rate}", -g.v[2]);
    let moduli: Vec<f64> = g.multipliers.iter().map(|z| z[0].hypot(z[1])).collect();
    let largest = moduli.iter().cloned().fold(0.0, f64::max);
    assert!((largest - b.multipliers[0][0].abs()).abs() <= contactlab::hybrid::section::JACOBIAN_AGREEMENT);
    assert!(close(g.mu_stick.unwrap(), b.mu_stick, 1e-8), "mu_stick {} vs {}", g.mu_stick.unwrap(), b.mu_stick);
    assert!(close(g.impulse_ratio.unwrap(), b.impact_impulse_ratio, 1e-6));
    let step = 2.0 * w.length * w.half_angle().sin();
    assert!(close(g.step_length[0], step, 1e-8), "{:?} vs {step}", g.step_length);
}

/// P2's compass biped as a multibody model in units scaled by `length`, `mass` and `time`,
/// starting on P2's gait (`examples/multibody/compass-biped.toml`'s state, scaled).
fn compass_in_units(length: f64, mass: f64, time: f64) -> Mechanism {
    let (l, m, t) = (length, mass, time);
    let c = CompassBiped {
        l: 0.8 * l,
        mass: 4.0 * m,
        hip_mass: 2.0 * m,
        inertia: 0.0,
        slope: 1f64.to_radians(),
        gravity: 9.8 * l / (t * t),
        mu: 0.7,
    };
    let mut mech = contactlab::walking::multibody::compass_biped(&c).unwrap();
    mech.q0 = vec![-0.23567834267374066 * l, 1.5825472248228674 * l, 0.14783689025242455, -0.2956737805048491];
    mech.v0 =
        vec![1.1596855280389262 * l / t, 0.17270433323184242 * l / t, -0.732796791052304 / t, 0.23212890851228862 / t];
    mech
}

#[test]
fn units_do_not_change_the_gait_or_the_paradox() {
    // Lengths, masses and time scaled by 10^±6 (and combinations): the same gait (period in the
    // time unit, stability and multipliers, mu_stick, impulse ratio, step in the length unit),
    // the same mu_min, region B < 0 and case of Table 2.1.
    use contactlab::multibody::gait::GaitSettings;
    let reference = compass_in_units(1.0, 1.0, 1.0);
    let g0 = contactlab::multibody::gait::find_gaits(&reference, &GaitSettings::default()).unwrap().gaits.remove(0);
    let slice = [("stance.theta", -1.0, 1.0), ("swing", -2.0, 2.0)];
    let p0 = painleve(&reference, &reference.q0, &reference.v0, &settings("stance foot", &slice)).unwrap();
    for (l, m, t) in
        [(1e6, 1.0, 1.0), (1e-6, 1.0, 1.0), (1.0, 1e6, 1.0), (1.0, 1.0, 1e-6), (1.0, 1.0, 1e6), (1e6, 1e-6, 1e3)]
    {
        let scaled = compass_in_units(l, m, t);
        let search = contactlab::multibody::gait::find_gaits(&scaled, &GaitSettings::default()).unwrap();
        assert_eq!(search.gaits.len(), 1, "units ({l}, {m}, {t}): {search:?}");
        let g = &search.gaits[0];
        assert!(
            close(g.period / t, g0.period, 1e-8),
            "units ({l}, {m}, {t}): period {} vs {}",
            g.period / t,
            g0.period
        );
        // The multipliers come from the exact derivative of the step map (variational
        // equations and saltation matrices) and are eigenvalues of it in the chart's own
        // scales: unit-free to 1e-7. (With the eigenvalues of the plain-unit Jacobian they
        // moved by 3e-4 when the time unit was 1e-6, by either route.)
        assert_eq!(g.stable, g0.stable);
        assert_eq!(g.derivatives, contactlab::hybrid::section::JacobianRoute::Variational);
        for (a, b) in g.multipliers.iter().zip(&g0.multipliers) {
            let d = (a[0] - b[0]).hypot(a[1] - b[1]);
            assert!(d <= 1e-7, "units ({l}, {m}, {t}): {:?} vs {:?}", g.multipliers, g0.multipliers);
        }
        assert!(close(g.mu_stick.unwrap(), g0.mu_stick.unwrap(), 1e-6));
        assert!(close(g.impulse_ratio.unwrap(), g0.impulse_ratio.unwrap(), 1e-6));
        assert!(close(g.step_length[0] / l, g0.step_length[0], 1e-8));
        let q = scaled.q0.clone();
        let v = scaled.v0.clone();
        let p = painleve(&scaled, &q, &v, &settings("stance foot", &slice)).unwrap();
        assert_eq!(p.at_state.case, p0.at_state.case);
        let (a, b) = (p.mu_min.unwrap(), p0.mu_min.as_ref().unwrap().clone());
        assert!(close(a.mu_min, b.mu_min, 1e-9), "units ({l}, {m}, {t}): mu_min {} vs {}", a.mu_min, b.mu_min);
        assert_eq!(p.b_negative_grid.unwrap().cells, p0.b_negative_grid.as_ref().unwrap().cells);
    }
}

#[test]
fn the_rods_jam_threshold_agrees_with_an_independent_desingularised_slip() {
    // Painlevé's rod (examples/multibody/painleve-rod.toml): mass m, length 2l, μ = 2 > 8/(3√3),
    // inclined by φ = −rod.theta, its end sliding away from the centre of mass's side at speed u.
    // By hand, with the end on the floor (y = l sin φ) and the friction −μ f_n against the slip:
    // A = g − l φ̇² sin φ, B = (1 + 3 cos²φ − 3μ sin φ cos φ)/m, f_n = A/B,
    // φ̈ = −3 f_n (cos φ − μ sin φ)/(m l), u̇ = −μ f_n/m − l sin φ φ̈ − l cos φ φ̇².
    let m = read("painleve-rod.toml");
    let (mass, l, g, mu) = (1.0, 1.0, 9.81, 2.0);
    let ab = |ph: f64, om: f64| {
        let (s, c) = ph.sin_cos();
        let a = g - l * om * om * s;
        let b = (1.0 + 3.0 * c * c - 3.0 * mu * s * c) / mass;
        (a, b, g + l * om * om * s.abs(), (1.0 + 3.0 * c * c + 3.0 * mu * (s * c).abs()) / mass)
    };
    let rates = |ph: f64, om: f64, a: f64, b: f64| {
        let (s, c) = ph.sin_cos();
        let om_s = -3.0 * a * (c - mu * s) / (mass * l);
        (om_s, -mu * a / mass - l * s * om_s - b * l * c * om * om)
    };
    let (ph0, om0) = (-m.q0[2], -m.v0[2]);
    let by_hand = desingular::jam_threshold_by_hand(&ab, &rates, ph0, om0);
    let s = WalkerSettings::default();
    let thr = contactlab::multibody::painleve::jam_threshold(&m, &m.q0, &m.v0, "end", Some("rod.x"), 20.0, &s)
        .unwrap()
        .expect("jams below 20 m/s");
    eprintln!("rod jam threshold: library {thr}, by hand {by_hand}");
    assert!(close(thr, by_hand, 1e-6), "library {thr} vs by hand {by_hand}");
    // Either side of it; the jam is at p₁: φ = atan(3 − √5), A = 0 (φ̇² = g/(l sin φ)).
    let with_speed = |u: f64| {
        let mut v = m.v0.clone();
        v[0] += u - 6.0;
        slip(&m, &m.q0, &v, "end", &s).unwrap()
    };
    assert_ne!(with_speed(by_hand * (1.0 - 1e-4)).outcome, SlipOutcome::Jam);
    let jam = with_speed(by_hand * (1.0 + 1e-4));
    assert_eq!(jam.outcome, SlipOutcome::Jam, "{:?}", jam.approach);
    let ph1 = (3.0 - 5f64.sqrt()).atan();
    assert!((jam.state[2] + ph1).abs() < 1e-6, "{:?}", jam.state);
    assert!((jam.state[5].powi(2) - g / (l * ph1.sin())).abs() < 1e-5, "{:?}", jam.state);
}

#[test]
fn the_kneed_walkers_slip_jams_with_its_knees_held_until_they_give() {
    // The kneed walker (examples/multibody/kneed-walker.toml), its stance foot at the origin and
    // the leg straight (foot = hip + (sin θ, −cos θ)), leaning forward at θ = 0.7 and falling
    // (θ' = −3) into the region B < 0 of its held knees (θ ∈ (0.031, 0.599) at μ = 0.8), the
    // foot sliding forward. The knees start locked (held closed: their limits take part in A and
    // B); as the force grows toward the pole both give, and the run goes on without them.
    use contactlab::walking::slip::Reading;
    let m = read("kneed-walker.toml");
    let (th, om) = (0.7f64, -3.0f64);
    let state = |u: f64| {
        let q = vec![-th.sin(), th.cos(), th, 0.0, -0.5, 0.0];
        let v = vec![u - om * th.cos(), -om * th.sin(), om, 0.0, 0.0, 0.0];
        (q, v)
    };
    let s = WalkerSettings::default();
    let (q, v) = state(3.0);
    let jam = slip(&m, &q, &v, "stance foot", &s).unwrap();
    let a = jam.approach.clone().unwrap();
    assert_eq!((jam.outcome, a.reading), (SlipOutcome::Jam, Reading::ReachedP1), "{a:?}");
    assert!(a.exponent.is_some_and(|e| e.0 < 1.0) && a.slip_speed > 0.0, "{a:?}");
    // The stance knee gave during the approach (it flexes: negative), the foot is still down.
    assert!(jam.state[3] < 0.0 && jam.state[9] < 0.0, "{:?}", jam.state);
    // The threshold: just above it jams, just below it does not.
    let thr = contactlab::multibody::painleve::jam_threshold(&m, &q, &v, "stance foot", Some("stance.x"), 20.0, &s)
        .unwrap()
        .expect("jams below 20 m/s");
    assert!(1.0 < thr && thr < 3.0, "{thr}");
    for (k, jams) in [(1.0 + 1e-5, true), (1.0 - 1e-5, false)] {
        let (q, v) = state(k * thr);
        let e = slip(&m, &q, &v, "stance foot", &s).unwrap();
        assert_eq!(e.outcome == SlipOutcome::Jam, jams, "{k} × {thr}: {:?} {:?}", e.outcome, e.approach);
    }
}
