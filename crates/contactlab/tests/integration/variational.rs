//! Exact return-map derivatives (issue #22, part 1): variational equations with saltation
//! matrices against closed forms and against differences of the return map.

use std::path::PathBuf;

use contactlab::hybrid::driver::{EventLog, PoincareSection};
use contactlab::hybrid::lagrangian::{join, Lagrangian};
use contactlab::hybrid::section::{Derivatives, FirstCrossing, JacobianRoute, ReturnMap, SectionChart};
use contactlab::hybrid::{DriverSettings, EventDriver, EventKind, Tolerances, ZenoRule};
use contactlab::multibody::gait::StrikeChart;
use contactlab::multibody::gait::{find_gaits, GaitSettings};
use contactlab::multibody::model;
use nalgebra::DVector;

fn example(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/multibody").join(name)
}

#[test]
fn compass_gait_multipliers_converge_and_match_differences() {
    // The exact multipliers converge to 10 digits as the tolerance goes to 1e-13; the
    // difference Jacobian (5-7 digits at 1e-10) agrees with them to its accuracy; both routes
    // find the same fixed point.
    let m = model::read(&example("compass-biped.toml")).unwrap();
    let run = |rtol: f64, derivatives| {
        let g = find_gaits(&m, &GaitSettings { rtol, derivatives, ..Default::default() }).unwrap();
        g.gaits.into_iter().next().expect("P2's compass gait")
    };
    let (e10, e12, e13) =
        (run(1e-10, Derivatives::Exact), run(1e-12, Derivatives::Exact), run(1e-13, Derivatives::Exact));
    let d10 = run(1e-10, Derivatives::Differences);
    assert_eq!(e10.derivatives, JacobianRoute::Variational);
    assert_eq!(d10.derivatives, JacobianRoute::Differences("asked for".into()));
    let gap = |a: &[[f64; 2]], b: &[[f64; 2]]| {
        a.iter().zip(b).fold(0.0f64, |m, (x, y)| m.max((x[0] - y[0]).hypot(x[1] - y[1])))
    };
    assert!(gap(&e12.multipliers, &e13.multipliers) < 1e-10, "{:?} vs {:?}", e12.multipliers, e13.multipliers);
    assert!(gap(&e10.multipliers, &e13.multipliers) < 1e-8, "{:?} vs {:?}", e10.multipliers, e13.multipliers);
    assert!(gap(&d10.multipliers, &e13.multipliers) < 1e-4, "{:?} vs {:?}", d10.multipliers, e13.multipliers);
    for (a, b) in e10.section_point.iter().zip(&d10.section_point) {
        assert!((a - b).abs() < 1e-8, "{a} vs {b}");
    }
}

#[test]
fn rimless_wheel_multiplier_is_beta_squared() {
    // P2's step map of the sticking rimless wheel is explicit: ω'² = β² (ω² + K), so the
    // multiplier of the gait is β² = ((cos 2π/n + κ)/(1 + κ))². The multibody wheel's exact
    // derivative (a sticking stance, a sticking frictional strike, the relabelling) gives it to
    // 1e-12; the other multiplier is 0 (the post-strike angle is fixed by the strike).
    let m = model::read(&example("rimless-wheel.toml")).unwrap();
    let (n, kappa) = (10.0, 0.02);
    let beta: f64 = ((2.0 * std::f64::consts::PI / n).cos() + kappa) / (1.0 + kappa);
    for rtol in [1e-10, 1e-12] {
        let g = find_gaits(&m, &GaitSettings { rtol, ..Default::default() }).unwrap();
        let g = &g.gaits[0];
        assert_eq!(g.derivatives, JacobianRoute::Variational);
        let lead = g.multipliers[0];
        eprintln!("rtol {rtol:e}: {:?}, β² = {}", g.multipliers, beta * beta);
        let tol = if rtol < 1e-11 { 1e-12 } else { 1e-9 };
        assert!((lead[0] - beta * beta).abs() < tol && lead[1] == 0.0, "{lead:?} vs {}", beta * beta);
        assert!(g.multipliers[1][0].hypot(g.multipliers[1][1]) < tol, "{:?}", g.multipliers[1]);
    }
}

/// `DP` at `y` of the strike-to-strike map of `m` (section at the gait state `x`), exact and
/// by differences, with the kinds of the events of the step.
fn both_jacobians(
    m: &contactlab::multibody::Mechanism,
    q: &[f64],
    v: &[f64],
    rtol: f64,
) -> (nalgebra::DMatrix<f64>, JacobianRoute, nalgebra::DMatrix<f64>, Vec<EventKind>) {
    let sys = m.system().unwrap();
    let lag = Lagrangian::new(&sys);
    let spec = m.gait.clone().unwrap();
    let x = join(&DVector::from_column_slice(q), &DVector::from_column_slice(v));
    let driver = EventDriver::new(DriverSettings {
        tol: Tolerances { rtol, atol: rtol },
        t_max: 50.0,
        zeno: ZenoRule::Extrapolate { tolerance: 1e-9 },
        ..Default::default()
    });
    let mut map = ReturnMap {
        system: &lag,
        section: PoincareSection::AfterEvent { kind: EventKind::Impact, contact: Some(spec.strike) },
        chart: StrikeChart::new(&sys, &x, &spec.translation),
        driver,
        derivatives: Derivatives::Exact,
    };
    let y = map.chart.chart(&x);
    let (exact, route, _) = map.jacobian_with_route(&y).unwrap();
    map.derivatives = Derivatives::Differences;
    let diff = map.jacobian(&y).unwrap();
    let mut log = EventLog::default();
    let mut first = FirstCrossing::default();
    driver.run(&lag, 0.0, map.chart.lift(&y), std::slice::from_ref(&map.section), &mut (&mut log, &mut first));
    (exact, route, diff, log.events.iter().map(|e| e.info.kind).collect())
}

#[test]
fn saltation_through_stick_slip_and_slipping_strikes_matches_differences() {
    // The compass biped with less friction than its gait needs (μ_stick ≈ 0.175): from the
    // gait's post-strike state the stance foot slips, sticks and slips again before the strike
    // (μ = 0.15), and with μ = 0.13 the strike itself slips (its impulse ratio is 0.145). The
    // exact DP changes by < 1e-8 from rtol 1e-10 to 1e-13; central differences converge to it
    // (5-7 digits).
    let m = model::read(&example("compass-biped.toml")).unwrap();
    let g = find_gaits(&m, &GaitSettings::default()).unwrap();
    let g = &g.gaits[0];
    for (mu, want) in [(0.15, &[EventKind::SlipStop, EventKind::SlipOnset][..]), (0.13, &[][..])] {
        let ms = m.with_mu(0, mu).unwrap().with_mu(1, mu).unwrap();
        let (e10, route, _, kinds) = both_jacobians(&ms, &g.q, &g.v, 1e-10);
        let (e13, _, d13, _) = both_jacobians(&ms, &g.q, &g.v, 1e-13);
        eprintln!("mu {mu}: {kinds:?}\n{e13}{d13}");
        assert_eq!(route, JacobianRoute::Variational, "mu {mu}");
        assert!(want.iter().all(|k| kinds.contains(k)), "mu {mu}: {kinds:?}");
        let scale = e13.amax();
        assert!((&e10 - &e13).amax() < 1e-8 * scale, "mu {mu}: exact moves with rtol\n{e10}{e13}");
        assert!((&d13 - &e13).amax() < 1e-5 * scale, "mu {mu}: differences\n{d13}{e13}");
    }
}

#[test]
fn p3_zeno_orbit_multiplier_through_the_zeno_completion() {
    // P3's controlled double pendulum with its knee stop (e = 0.5) as a multibody file: the
    // Zeno orbit's multipliers through the linearized Zeno completion. γ converges as rtol goes
    // to 1e-13 and agrees with the difference Jacobian to that one's accuracy (1e-4).
    use contactlab::zeno::{self, ZenoSettings};
    let m = model::read(&example("p3-double-pendulum-pd-e0.5.toml")).unwrap();
    let lag = Lagrangian::new(m.system().unwrap());
    let (q0, v0) = (DVector::from_column_slice(&m.q0), DVector::from_column_slice(&m.v0));
    let y = zeno::settle(&lag, &q0, &v0, 400, 1e-10, &ZenoSettings::default()).unwrap();
    let orbit = |rtol: f64, derivatives| {
        let o = zeno::orbit(&lag, &y, &ZenoSettings { rtol, derivatives, check_rate: false, ..Default::default() });
        assert!(o.converged && o.zeno, "{o:?}");
        o
    };
    let (e10, e12, e13) =
        (orbit(1e-10, Derivatives::Exact), orbit(1e-12, Derivatives::Exact), orbit(1e-13, Derivatives::Exact));
    let d10 = orbit(1e-10, Derivatives::Differences);
    eprintln!("γ: {} {} {} (differences {})", e10.gamma, e12.gamma, e13.gamma, d10.gamma);
    assert_eq!(e10.derivatives, JacobianRoute::Variational);
    assert!((e12.gamma - e13.gamma).abs() < 1e-10, "{} vs {}", e12.gamma, e13.gamma);
    assert!((e10.gamma - e13.gamma).abs() < 1e-8, "{} vs {}", e10.gamma, e13.gamma);
    assert!((d10.gamma - e13.gamma).abs() < contactlab::hybrid::section::JACOBIAN_AGREEMENT);
}

#[test]
fn a_zeno_cascade_is_linearized_and_matches_differences() {
    // McGeer's kneed walker ends its knee strike with a cascade: plastic impacts of the two
    // knee stops taking turns, extrapolated by the driver from one stop's impacts. The variational
    // route differentiates that extrapolation and the projection onto the closed constraints.
    // Earlier versions gave |λ| 1.04 against the differences' 0.64: their DΠ also projected the
    // positions onto the sticking stance foot's tangent row, which only binds velocities (a
    // perturbation of the step length moves where the foot sticks). The exact DP converges with
    // rtol and agrees with the difference Jacobian to the latter's accuracy.
    let m = model::read(&example("kneed-walker.toml")).unwrap();
    let g = find_gaits(&m, &GaitSettings::default()).unwrap().gaits.remove(0);
    let (e10, route, d10, kinds) = both_jacobians(&m, &g.q, &g.v, 1e-10);
    let (e12, _, d12, _) = both_jacobians(&m, &g.q, &g.v, 1e-12);
    eprintln!(
        "{kinds:?}\nexact moves {:e}, differences {:e} (rtol 1e-10) {:e} (1e-12)\n{:?}",
        (&e10 - &e12).amax(),
        (&d10 - &e12).amax(),
        (&d12 - &e12).amax(),
        g.multipliers
    );
    assert!(kinds.contains(&EventKind::Zeno), "{kinds:?}");
    assert_eq!(route, JacobianRoute::Variational);
    let scale = e12.amax();
    assert!((&e10 - &e12).amax() < 1e-8 * scale, "exact moves with rtol\n{e10}{e12}");
    assert!((&d12 - &e12).amax() < 1e-5 * scale, "differences\n{d12}{e12}");
    assert_eq!(g.derivatives, JacobianRoute::Variational);
    assert!(g.stable && (g.spectral_radius - 0.642).abs() < 1e-3, "{:?}", g.multipliers);
}

#[test]
fn the_strike_chart_s_coordinates_do_not_depend_on_the_unit_of_length() {
    // Goswami's compass gait with every length (and gravity, keeping the time unit) multiplied
    // by s = 1e-6 and 1e6: the same gait (multipliers, period) and the same chart coordinates
    // (chosen with each column in its own unit; in raw units the angle's column, a length,
    // outgrew the position's with s).
    let text = std::fs::read_to_string(example("goswami-compass-gait.toml")).unwrap();
    let at = |s: f64| {
        let t = text
            .replace("com = [0.0, -0.5]", &format!("com = [0.0, {:e}]", -0.5 * s))
            .replace("point = [0.0, -1.0]", &format!("point = [0.0, {:e}]", -s))
            .replace("gravity = 9.81", &format!("gravity = {:e}", 9.81 * s))
            .replace(
                "q = [-0.24740395925452294, 0.9689124217106447, 0.25, -0.5]",
                &format!("q = [{:e}, {:e}, 0.25, -0.5]", -0.24740395925452294 * s, 0.9689124217106447 * s),
            );
        let m = contactlab::multibody::model::from_model(
            &contactlab::model::ModelDoc::parse("scaled.toml", &t, false).unwrap(),
        )
        .unwrap();
        let g = find_gaits(&m, &GaitSettings::default())
            .unwrap()
            .gaits
            .into_iter()
            .next()
            .unwrap_or_else(|| panic!("s = {s}: no gait"));
        let sys = m.system().unwrap();
        let x = join(&DVector::from_column_slice(&g.q), &DVector::from_column_slice(&g.v));
        let names = StrikeChart::new(&sys, &x, &m.gait.clone().unwrap().translation).names(&m.coordinates);
        (g, names)
    };
    let (one, names) = at(1.0);
    for s in [1e-6, 1e6] {
        let (g, n) = at(s);
        assert_eq!(n, names, "s = {s}");
        assert!((g.period - one.period).abs() < 1e-8 * one.period, "s = {s}: {} vs {}", g.period, one.period);
        for (a, b) in g.multipliers.iter().zip(&one.multipliers) {
            assert!((a[0] - b[0]).hypot(a[1] - b[1]) < 1e-6, "s = {s}: {:?} vs {:?}", g.multipliers, one.multipliers);
        }
    }
}
