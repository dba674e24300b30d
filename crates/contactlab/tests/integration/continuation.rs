//! Continuation of gaits in a model parameter (issue #22, part 2), checked against independent
//! routes: iterating the step map by plain simulation (the attractor's period on either side
//! of each located period doubling), the difference Jacobian instead of the variational one,
//! another unit of time, and the gait's own friction use (where sticking is lost).

use std::path::Path;

use contactlab::api::{continuation, ContinueRequest};
use contactlab::continuation::{Continuation, Settings, SpecialKind};
use contactlab::hybrid::section::Derivatives;
use contactlab::mechanics::ContactSystem;
use contactlab::model::param::ParamKey;
use contactlab::model::ModelDoc;
use contactlab::multibody::gait::GaitSettings;
use contactlab::multibody::simulate::{simulate, SimulateSettings};

use crate::common::hand_written_gait;

fn examples() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/multibody")
}

fn doc(name: &str) -> ModelDoc {
    ModelDoc::read(&examples().join(name)).unwrap()
}

fn request(param: &str, to: f64, max_doublings: usize, derivatives: Derivatives) -> ContinueRequest {
    ContinueRequest {
        param: param.into(),
        from: None,
        to,
        state: None,
        orbit: None,
        settings: Settings { max_doublings, max_step: 0.02, ..Default::default() },
        gait: GaitSettings { derivatives, ..Default::default() },
    }
}

fn doublings(c: &Continuation) -> Vec<f64> {
    c.branches
        .iter()
        .flat_map(|b| b.special.iter().filter(|s| s.kind == SpecialKind::PeriodDoubling).map(|s| s.p))
        .collect()
}

/// The number of distinct step times among the last 32 steps of a long simulation with the
/// parameter `key` at `value` from the post-strike state `x` (q then q̇): the attractor's period
/// (0: the walker fell).
fn attractor(d: &ModelDoc, key: &str, value: f64, x: &[f64], strike: &str) -> usize {
    let m = contactlab::multibody::model::from_model(&d.with_param(&ParamKey::parse(key).unwrap(), value).unwrap())
        .unwrap();
    let n = m.dof();
    let s = SimulateSettings { t_max: 300.0, max_events: 100_000, rtol: 1e-10, per_step: 1 };
    let sim = simulate(&m, &x[..n], &x[n..], &s).unwrap();
    let strikes: Vec<f64> = sim.events.iter().filter(|e| e.contact.as_deref() == Some(strike)).map(|e| e.t).collect();
    if strikes.len() < 300 {
        return 0;
    }
    let steps: Vec<f64> = strikes.windows(2).map(|w| w[1] - w[0]).collect();
    let mut distinct: Vec<f64> = vec![];
    for &t in &steps[steps.len() - 32..] {
        if !distinct.iter().any(|&u| (u - t).abs() < 1e-6) {
            distinct.push(t);
        }
    }
    distinct.len()
}

#[test]
fn compass_gait_period_doublings_agree_with_iterating_the_step_map() {
    let d = doc("drake-compass-gait.toml");
    let c = continuation(&d, &request("slope", 0.0875, 1, Derivatives::Exact), &|_| {}).unwrap();
    assert_eq!(c.branches.len(), 2, "the period-1 branch and the doubled one");
    let pd = doublings(&c);
    assert_eq!(pd.len(), 2, "{pd:?}");
    // At each located doubling a multiplier is −1.
    for b in &c.branches {
        for s in b.special.iter().filter(|s| s.kind == SpecialKind::PeriodDoubling) {
            let z =
                s.point.multipliers.iter().min_by(|a, b| (a[0] + 1.0).abs().total_cmp(&(b[0] + 1.0).abs())).unwrap();
            assert!((z[0] + 1.0).abs() < 1e-5 && z[1] == 0.0, "{z:?}");
        }
    }
    // The doubled branch starts at the first doubling with twice the period.
    let b1 = &c.branches[1];
    assert_eq!((b1.period_multiple, b1.parent), (2, Some(0)));
    let at_pd = &b1.points[0];
    assert!((at_pd.p - pd[0]).abs() < 1e-12);
    assert!((at_pd.returns[0] - at_pd.returns[1]).abs() < 1e-6);
    // Plain simulation from the gait: one step time below the first doubling, two between the
    // doublings, four past the second.
    // Each run starts on the period-1 branch at its slope (unstable past the first doubling:
    // the simulation leaves it for the attractor).
    let near = |slope: f64| {
        let pts = &c.branches[0].points;
        &pts.iter().min_by(|a, b| (a.p - slope).abs().total_cmp(&(b.p - slope).abs())).unwrap().observation.state
    };
    for (slope, period) in [(pd[0] - 0.003, 1), (pd[0] + 0.003, 2), (pd[1] + 0.0008, 4)] {
        assert_eq!(attractor(&d, "slope", slope, near(slope), "right foot"), period, "slope {slope}");
    }
    // Past the first doubling the period-1 gait is unstable: the gait search from nothing
    // (runs settle onto the period-2 cycle; Newton from its mean) reports it, with the period
    // and the multiplier below −1 that continuation has at the same slope.
    let past = c.branches[0].points.iter().find(|pt| pt.p > pd[0] + 0.002 && pt.p < pd[1]).expect("a point past");
    let m =
        contactlab::multibody::model::from_model(&d.with_param(&ParamKey::parse("slope").unwrap(), past.p).unwrap())
            .unwrap();
    let search = contactlab::multibody::gait::find_gaits(&m, &GaitSettings::default()).unwrap();
    assert!(search.cycled > 0, "{search:?}");
    let g = search.gaits.iter().find(|g| !g.stable).unwrap_or_else(|| panic!("no unstable gait: {search:?}"));
    assert!((g.period - past.period).abs() < 1e-8 * past.period, "{} vs {}", g.period, past.period);
    let lowest = |mult: &[[f64; 2]]| mult.iter().map(|z| z[0]).fold(f64::INFINITY, f64::min);
    let (a, b) = (lowest(&g.multipliers), lowest(&past.multipliers));
    assert!(a < -1.0 && (a - b).abs() < 1e-6, "search {a} vs continuation {b}");

    // The same doublings with the difference Jacobian (an independent route to DP), and with
    // time in other units (gravity × 10⁴: every period × 10⁻²).
    let cd = continuation(&d, &request("slope", 0.0875, 1, Derivatives::Differences), &|_| {}).unwrap();
    let pdd = doublings(&cd);
    assert_eq!(pdd.len(), 2);
    for (a, b) in pd.iter().zip(&pdd) {
        assert!((a - b).abs() < 1e-6, "{pd:?} {pdd:?}");
    }
    let fast = d.with_param(&ParamKey::parse("gravity").unwrap(), 9.81e4).unwrap();
    let cf = continuation(&fast, &request("slope", 0.0875, 1, Derivatives::Exact), &|_| {}).unwrap();
    let pdf = doublings(&cf);
    assert_eq!(pdf.len(), 2);
    for (a, b) in pd.iter().zip(&pdf) {
        assert!((a - b).abs() < 1e-7, "{pd:?} {pdf:?}");
    }
    let ratio = cf.branches[0].points[0].period / c.branches[0].points[0].period;
    assert!((ratio - 0.01).abs() < 1e-9, "{ratio}");
}

#[test]
fn sticking_lost_and_neimark_sacker_on_p2s_compass_biped() {
    // P2's compass biped as μ falls. While the stance foot sticks the gait does not depend on
    // μ, so the sticking branch must end where μ reaches the gait's μ_stick.
    let d = doc("compass-biped.toml");
    let m = contactlab::multibody::model::from_model(&d).unwrap();
    let g = contactlab::multibody::gait::find_gaits(&m, &GaitSettings::default()).unwrap();
    let mu_stick = g.gaits[0].mu_stick.unwrap();
    let c = continuation(&d, &request("contact[*].mu", 0.1, 0, Derivatives::Exact), &|_| {}).unwrap();
    let b = &c.branches[0];
    assert!(b.end.starts_with("reached"), "{}", b.end);
    let lost = b.special.iter().find(|s| s.kind == SpecialKind::StickingLost).expect("sticking lost");
    // Located to the continuation's tolerance: a slip that starts from rest and stops within one
    // integration step is caught inside the step (it ran on, its friction driving it, before;
    // the point was then only bracketed to 1e-3).
    assert!(lost.bracket < 1e-6, "bracket {}", lost.bracket);
    assert!((lost.p - mu_stick).abs() <= lost.bracket + 1e-9, "{} vs {mu_stick} (bracket {})", lost.p, lost.bracket);
    // Above it the period's only event is the strike (sticking); below, slip appears.
    let above = b.points.iter().filter(|p| p.p > mu_stick + 0.01);
    assert!(above.clone().count() > 3);
    assert!(above.into_iter().all(|p| p.observation.events == ["impact(swing foot, stick)"]));
    assert!(b.points.iter().filter(|p| p.p < mu_stick - 0.01).all(|p| p.observation.events.len() > 1));
    // The slipping gait then loses stability through a complex pair of multipliers: plain
    // simulation settles on the gait above that μ and does not below it.
    let ns = b.special.iter().find(|s| s.kind == SpecialKind::NeimarkSacker).expect("a Neimark-Sacker point");
    let z = ns.point.multipliers[0];
    assert!((z[0].hypot(z[1]) - 1.0).abs() < 1e-6 && z[1].abs() > 0.1, "{z:?}");
    let near = |mu: f64| {
        &b.points.iter().min_by(|a, b| (a.p - mu).abs().total_cmp(&(b.p - mu).abs())).unwrap().observation.state
    };
    let (hi, lo) = (ns.p + 0.015, ns.p - 0.005);
    assert_eq!(attractor(&d, "contact[*].mu", hi, near(hi), "swing foot"), 1);
    assert_ne!(attractor(&d, "contact[*].mu", lo, near(lo), "swing foot"), 1);
}

#[test]
fn bad_requests_are_named() {
    let d = doc("compass-biped.toml");
    let e = continuation(&d, &request("contact[nope].mu", 0.2, 0, Derivatives::Exact), &|_| {}).unwrap_err();
    assert!(e.to_string().contains("stance foot, swing foot"), "{e}");
    let mut r = request("slope_deg", 1.0, 0, Derivatives::Exact);
    r.from = Some(1.0);
    assert!(continuation(&d, &r, &|_| {}).unwrap_err().to_string().contains("differ"));
    let lcp = ModelDoc::parse("x.toml", "kind = \"lcp\"\nM = [[1]]\nq = [1]\n", false).unwrap();
    let e = continuation(&lcp, &request("q[0]", 2.0, 0, Derivatives::Exact), &|_| {}).unwrap_err();
    assert!(e.to_string().contains("multibody"), "{e}");
}

#[test]
fn goswamis_compass_gait_file_is_drakes_urdf() {
    // The report follows the cascade on the [[body]] file; it is Drake's URDF model.
    let gait = |name: &str| {
        let m = contactlab::multibody::model::read(&examples().join(name)).unwrap();
        contactlab::multibody::gait::find_gaits(&m, &GaitSettings::default()).unwrap().gaits[0].clone()
    };
    let (a, b) = (gait("goswami-compass-gait.toml"), gait("drake-compass-gait.toml"));
    assert!((a.period - b.period).abs() < 1e-9 * a.period, "{} {}", a.period, b.period);
    for (x, y) in a.multipliers.iter().zip(&b.multipliers) {
        assert!((x[0].hypot(x[1]) - y[0].hypot(y[1])).abs() < 1e-7);
    }
}

/// The clearance of a foot that ignores scuffing: the compass gait's straight legs carry the
/// swing foot below the slope while it swings past the stance leg (the gait needs the rule, as
/// McGeer and Goswami assume), while McGeer's kneed walker bends its knee and clears the slope.
#[test]
fn the_compass_gait_scuffs_and_the_kneed_walker_clears() {
    let gs = GaitSettings::default();
    let compass = contactlab::multibody::model::from_model(&doc("goswami-compass-gait.toml")).unwrap();
    let g = contactlab::multibody::gait::find_gaits(&compass, &gs).unwrap();
    let c = g.gaits[0].min_clearance.unwrap();
    assert!(c < 0.0, "compass gait clearance {c}");
    let kneed = contactlab::multibody::model::from_model(&doc("kneed-walker.toml")).unwrap();
    let k = contactlab::multibody::gait::find_gaits(&kneed, &gs).unwrap();
    let c = k.gaits[0].min_clearance.unwrap();
    assert!(c > 0.0, "kneed walker clearance {c}");
    // Its value is the swing foot's lowest point in mid-swing: plain simulation of the step,
    // sampled, agrees (the gap over the length scale).
    let ls = kneed.system().unwrap().length_scale();
    let low = swing_clearance(&kneed, &k.gaits[0].q, &k.gaits[0].v) / ls;
    assert!((low - c).abs() < 1e-6, "clearance {c} vs simulated {low}");
}

/// Grazing on a real model: the self-excited impact oscillator's limit cycle (one impact on
/// its wall per period) meets a back wall moved in toward it. The branch starts on the
/// closed-form cycle (`ImpactLimitCycle`: period and multiplier) and the grazing is located
/// where the back wall reaches the cycle's far turning point, in closed form; past it the back
/// wall is struck once per period. In millimetres, grams and milliseconds the same point.
#[test]
fn grazing_located_where_the_back_wall_meets_the_limit_cycle() {
    use contactlab::mechanics::closed_form::ImpactLimitCycle;
    let exact = ImpactLimitCycle { mass: 1.0, damping: -0.1, stiffness: 1.0, restitution: 0.8, wall: 0.5 };
    let (u, slope, tau) = exact.limit_cycle().unwrap();
    let x_min = exact.least_position(u);
    let key = "line[back wall].point[0]";
    let c = continuation(&doc("impact-oscillator.toml"), &request(key, -1.5, 0, Derivatives::Exact), &|_| {}).unwrap();
    let b = &c.branches[0];
    assert_eq!(b.end, "reached -1.5", "{}", b.end);
    let p0 = &b.points[0];
    assert!((p0.period - tau).abs() < 1e-8 * tau, "period {} vs {tau}", p0.period);
    assert!((p0.multipliers[0][0] - slope).abs() < 1e-7, "multiplier {:?} vs {slope}", p0.multipliers);
    assert!(p0.differenced.is_none(), "{:?}", p0.differenced);
    let kinds: Vec<SpecialKind> = b.special.iter().map(|s| s.kind).collect();
    assert_eq!(kinds, [SpecialKind::Grazing], "{:?}", b.special);
    // The orbits are corrected to the corrector's tolerance (1e-9 of the chart's scale, here
    // the length scale 3 m: the back wall's distance), amplified by 1/(1 − λ) near the unit
    // multiplier: so far can the located point sit outside its bracket.
    let orbit = |length: f64| Settings::default().newton_tol * length / (1.0 - slope.abs());
    let g = &b.special[0];
    assert!(
        g.bracket < 1e-6 && (g.p - x_min).abs() <= g.bracket + orbit(3.0),
        "grazing at {} ± {} vs {x_min}",
        g.p,
        g.bracket
    );
    let last = b.points.last().unwrap();
    assert_eq!(last.observation.events, ["impact(back stop)", "impact(stop)"], "{:?}", last.observation.events);
    // The same continuation in mm, g and ms: k = 1 N/m = 1e-3 g/ms², c = -0.1 N s/m = -0.1 g/ms.
    let text = std::fs::read_to_string(examples().join("impact-oscillator.toml")).unwrap();
    let text = text
        .replace("mass = 1.0", "mass = 1000.0")
        .replace("stiffness = 1.0", "stiffness = 1e-3")
        .replace("point = [0.5, 0.0]", "point = [500.0, 0.0]")
        .replace("point = [-3.0, 0.0]", "point = [-3000.0, 0.0]")
        .replace("q = [0.5]", "q = [500.0]");
    let mm = ModelDoc::parse("impact-oscillator-mm.toml", &text, false).unwrap();
    let c = continuation(&mm, &request(key, -1500.0, 0, Derivatives::Exact), &|_| {}).unwrap();
    let b = &c.branches[0];
    let kinds: Vec<SpecialKind> = b.special.iter().map(|s| s.kind).collect();
    assert_eq!(kinds, [SpecialKind::Grazing], "{:?}", b.special);
    let g = &b.special[0];
    assert!(
        (g.p - 1e3 * x_min).abs() <= g.bracket + orbit(3e3),
        "grazing at {} ± {} mm vs {}",
        g.p,
        g.bracket,
        1e3 * x_min
    );
    assert!((b.points[0].period - 1e3 * tau).abs() < 1e-8 * 1e3 * tau);
}

/// Scuffing located on a real model: McGeer's kneed walker with heavier shanks bends its swing
/// knee less, and its swing foot's lowest point in mid-swing (the clearance, after the foot
/// stops rising) reaches the slope. The located point is checked by plain simulation on both
/// sides: the swing foot's least gap, while the rule disarms it and after it first descends,
/// changes sign there.
#[test]
fn scuffing_located_on_the_kneed_walker_as_its_shanks_get_heavier() {
    let d = doc("kneed-walker.toml");
    let key = "body[stance shank|swing shank].mass";
    let c = continuation(&d, &request(key, 0.3, 0, Derivatives::Exact), &|_| {}).unwrap();
    let b = &c.branches[0];
    let s: Vec<_> = b.special.iter().filter(|s| s.kind == SpecialKind::Scuffing).collect();
    assert_eq!(s.len(), 1, "{:?}", b.special.iter().map(|s| (s.kind, s.p)).collect::<Vec<_>>());
    let p = s[0].p;
    assert!(s[0].bracket < 1e-6 && p > 0.05 && p < 0.3, "scuffing at {p} ± {}", s[0].bracket);
    // Plain simulation of one step from the branch's orbits on either side of it.
    let near = |v: f64| b.points.iter().min_by(|x, y| (x.p - v).abs().total_cmp(&(y.p - v).abs())).unwrap().clone();
    for (side, sign) in [(p - 0.02, 1.0), (p + 0.02, -1.0)] {
        let pt = near(side);
        let m = contactlab::multibody::model::from_model(&d.with_param(&ParamKey::parse(key).unwrap(), pt.p).unwrap())
            .unwrap();
        let n = m.dof();
        let x = &pt.observation.state;
        let clearance = swing_clearance(&m, &x[..n], &x[n..]);
        assert!(clearance * sign > 0.0, "at {}: clearance {clearance}", pt.p);
    }
}

/// The least gap of the kneed walker's swing foot over one step, sampled finely, while its
/// rule disarms it (stance.theta > 0) and after the foot's height first stops rising.
fn swing_clearance(m: &contactlab::multibody::Mechanism, q: &[f64], v: &[f64]) -> f64 {
    let s = SimulateSettings { t_max: 2.0, max_events: 1000, rtol: 1e-11, per_step: 16 };
    let sim = simulate(m, q, v, &s).unwrap();
    let strike = sim.events.iter().find(|e| e.contact.as_deref() == Some("swing foot")).unwrap().t;
    let foot = m.contact_names.iter().position(|c| c == "swing foot").unwrap();
    let theta = m.coordinates.iter().position(|c| c == "stance.theta").unwrap();
    sim.least_gap_after_rise(foot, strike, |r| r.q[theta] > 0.0).unwrap()
}

#[test]
fn painleve_onset_located_on_p2s_compass_biped_where_b_first_vanishes_along_its_gait() {
    // P2's compass biped (the multibody file) sticks for μ ≥ μ_stick = 0.175 and, while it
    // sticks, its gait does not depend on μ. B = d − μ|c| of the stance foot (P2 eq. 21, the
    // worse slip direction) depends on the configuration only, so B < 0 somewhere on the orbit
    // exactly when μ > μ* = min d/|c| over the orbit: the onset continuation must locate going
    // down from the file's 0.7 (where B < 0 already late in the step). Independent route: the
    // hand-written built-in biped (its own M and Jacobians, walking::painleve::d_and_c) along its
    // own gait (tests/integration/common/hand_written_gait.rs), d/|c| minimised over its dense output
    // (mu_min_along_step).
    use contactlab::mechanics::walkers::CompassBiped;
    use contactlab::walking::painleve::mu_min_along_step;
    use contactlab::walking::WalkerSettings;
    use nalgebra::DVector;
    let cb = CompassBiped::paper(0.7);
    let s = WalkerSettings { rtol: 1e-12, ..Default::default() };
    let g = hand_written_gait::compass(&cb, &[-0.15, 0.7, -0.5], 1e-12).expect("converges");
    assert!(g.sticking, "{g:?}");
    let mu_star = mu_min_along_step(&cb, &DVector::from_vec(g.section_point.clone()), &s).expect("B's minimum");
    assert!(mu_star > 0.6 && mu_star < 0.7, "{mu_star}");

    let d = doc("compass-biped.toml");
    let c = continuation(&d, &request("contact[*].mu", 0.3, 0, Derivatives::Exact), &|_| {}).unwrap();
    let b = &c.branches[0];
    assert!(b.end.starts_with("reached"), "{}", b.end);
    let onset = b.special.iter().find(|s| s.kind == SpecialKind::PainleveOnset).expect("Painlevé onset");
    assert!(onset.bracket < 1e-6, "bracket {}", onset.bracket);
    // Measured: 1.3e-10 apart, the bracket 3.8e-8.
    assert!((onset.p - mu_star).abs() <= onset.bracket + 1e-8, "{} vs {mu_star} (bracket {})", onset.p, onset.bracket);
    // The test function's sign on the branch: B < 0 on the orbit above μ*, not below (while the
    // foot still sticks, down to μ_stick).
    let min_b = |p: &contactlab::continuation::BranchPoint| {
        p.observation.quantities.iter().find(|(k, _)| k == "min_b").map(|(_, v)| *v).unwrap()
    };
    assert!(b.points.iter().filter(|p| p.p > mu_star + 1e-3).all(|p| min_b(p) < 0.0));
    assert!(b.points.iter().filter(|p| p.p < mu_star - 1e-3 && p.p > 0.2).all(|p| min_b(p) > 0.0));
}
