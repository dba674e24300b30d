//! Basins of attraction (issue #22, part 3), checked against closed forms and independent
//! routes: the rimless wheel's basin boundary is the speed that vaults the stance spoke over the
//! vertical (energy conservation about the stance tip), a change of time unit leaves every cell's
//! outcome unchanged, and a cell's outcome agrees with plain simulation of its state.

use std::path::Path;

use contactlab::api::basin;
use contactlab::model::param::ParamKey;
use contactlab::model::ModelDoc;
use contactlab::multibody::basin::{BasinAxis, BasinSettings, Outcome};

fn examples() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/multibody")
}

fn doc(name: &str) -> ModelDoc {
    ModelDoc::read(&examples().join(name)).unwrap()
}

fn mechanism(d: &ModelDoc) -> contactlab::api::MechanismModel {
    contactlab::api::open_doc(d).unwrap()
}

fn axis(name: &str, lo: f64, hi: f64, n: usize) -> BasinAxis {
    BasinAxis { name: name.into(), lo, hi, n }
}

/// P2's rimless wheel (n = 10 spokes, slope 10°, κ = 0.02, g = 1 + κ so that the pivot's
/// moment of inertia m l²(1 + κ) equals g): after a strike the stance spoke leans back by
/// π/n − γ = 8°, and the wheel vaults over the vertical iff ½(1 + κ) ω² > g (1 − cos 8°), i.e.
/// |ω| > 2 sin 4°. Above that speed the step map (a contraction) carries every start to the
/// gait; below it the wheel rolls back and falls.
#[test]
fn rimless_wheel_basin_boundary_is_the_vaulting_speed() {
    let m = mechanism(&doc("rimless-wheel.toml"));
    let critical = 2.0 * 4f64.to_radians().sin();
    let a = axis("wheel.theta_dot", -0.2, -0.1, 41);
    let width = (a.hi - a.lo) / (a.n - 1) as f64;
    let settings = BasinSettings { steps: 30, ..Default::default() };
    let b = basin(&m, &[a], None, &settings, &|_, _| {}).unwrap();
    assert_eq!(b.cells.len(), 41);
    for c in &b.cells {
        let w = -c.values[0];
        if w > critical + width {
            assert_eq!(c.outcome, Outcome::Gait(0), "ω = {w} vaults over (critical {critical})");
        }
        if w < critical {
            assert!(
                matches!(c.outcome, Outcome::Fell | Outcome::Stopped | Outcome::Slipped),
                "ω = {w}: {:?}",
                c.outcome
            );
        }
    }
    // The boundary between adjacent cells brackets the closed form.
    let last_fall = b.cells.iter().filter(|c| c.outcome != Outcome::Gait(0)).map(|c| -c.values[0]).fold(0.0, f64::max);
    let first_walk = b.cells.iter().filter(|c| c.outcome == Outcome::Gait(0)).map(|c| -c.values[0]).fold(1.0, f64::min);
    assert!(last_fall < critical && critical < first_walk + 1e-12 && first_walk - last_fall <= width * 1.000001);
    let gait: f64 = b.fractions.iter().find(|f| f.0 == "gait 0").unwrap().1;
    assert!((gait - b.cells.iter().filter(|c| c.outcome == Outcome::Gait(0)).count() as f64 / 41.0).abs() < 1e-15);
}

/// Gravity × 10⁴ makes time 100 × shorter: the grid in ω scaled by 100 gives every cell the
/// same outcome and the same number of strikes, and a captured cell the same time in the
/// new unit.
#[test]
fn a_change_of_time_unit_leaves_the_basin_unchanged() {
    let d = doc("rimless-wheel.toml");
    let fast = d.with_param(&ParamKey::parse("gravity").unwrap(), 1.02e4).unwrap();
    let settings = BasinSettings { steps: 40, ..Default::default() };
    let slow = basin(&mechanism(&d), &[axis("wheel.theta_dot", -0.3, -0.05, 11)], None, &settings, &|_, _| {}).unwrap();
    let quick =
        basin(&mechanism(&fast), &[axis("wheel.theta_dot", -30.0, -5.0, 11)], None, &settings, &|_, _| {}).unwrap();
    let outcomes = |b: &contactlab::multibody::basin::Basin| -> Vec<(Outcome, usize)> {
        b.cells.iter().map(|c| (c.outcome, c.strikes)).collect()
    };
    assert_eq!(outcomes(&slow), outcomes(&quick));
    let has = |o: Outcome| slow.cells.iter().any(|c| c.outcome == o);
    assert!(has(Outcome::Gait(0)) && has(Outcome::Fell), "{:?}", outcomes(&slow));
    // Captures happen at strikes (located events); falls are seen at the end of an integration
    // step, so only the captured cells' times are compared.
    for (a, b) in slow.cells.iter().zip(&quick.cells).filter(|(a, _)| a.outcome == Outcome::Gait(0)) {
        assert!((a.t - 100.0 * b.t).abs() <= 1e-6 * a.t.max(1.0), "{} vs {}", a.t, b.t);
    }
}

/// Garcia's simplest walker on Schwab and Wisse's plane (the states a strike produces): the
/// gait's own pre-strike state is captured at its first strike, and a cell's outcome agrees
/// with a plain simulation of its state (walking on at the gait's step period, or not).
#[test]
fn simplest_walker_cells_agree_with_simulation() {
    let m = mechanism(&doc("simplest-walker.toml"));
    let settings = BasinSettings { steps: 40, before_strike: true, ..Default::default() };
    let plan =
        contactlab::api::basin_plan(&m, &["stance.theta".into(), "stance.theta_dot".into()], None, &settings).unwrap();
    let (th, w) = (plan.q[2], plan.v[2]);
    let axes = [axis("stance.theta", th - 0.02, th + 0.02, 5), axis("stance.theta_dot", w - 0.02, w + 0.02, 5)];
    let b = basin(&m, &axes, None, &settings, &|_, _| {}).unwrap();
    let centre = &b.cells[12];
    assert_eq!(centre.outcome, Outcome::Gait(0));
    assert_eq!(centre.strikes, 1, "the gait's own state is captured at its first strike");
    assert!(b.cells.iter().any(|c| c.outcome == Outcome::Fell), "the basin is thin: some of the 25 cells fall");
    // Each cell against a plain simulation from its state: a walker that is captured keeps
    // stepping at the gait's period; one that fell does not reach 40 strikes. At the band's edge
    // a run may graze the floor (a mid-stance scuff of the swing foot at 1e-4 of the walking
    // speed), and its fate then changes with the round-off and the tolerance: a cell whose
    // simulation walks at the basin's tolerance and not at a tenth of it (or the reverse) is a
    // knife edge and is not compared; at most one of the nine is.
    let period = plan.periods[0];
    let walks = |x: &[f64], rtol: f64| {
        let sim = contactlab::multibody::simulate::simulate(
            m.planar().unwrap(),
            &x[..4],
            &x[4..],
            &contactlab::multibody::simulate::SimulateSettings { t_max: 200.0, max_events: 10_000, rtol, per_step: 1 },
        )
        .unwrap();
        let strikes: Vec<f64> =
            sim.events.iter().filter(|e| e.contact.as_deref() == Some("swing foot")).map(|e| e.t).collect();
        let walks =
            strikes.len() >= 45 && strikes.windows(2).last().is_some_and(|s| (s[1] - s[0] - period).abs() < 1e-5);
        (walks, strikes.len())
    };
    let (mut compared, mut knife_edges) = (0, 0);
    for c in b.cells.iter().step_by(3) {
        let x = lifted(&plan, &c.values);
        let ((walk, strikes), (walk_tight, _)) = (walks(&x, settings.rtol), walks(&x, settings.rtol / 10.0));
        if walk != walk_tight {
            knife_edges += 1;
            continue;
        }
        compared += 1;
        assert_eq!(walk, c.outcome == Outcome::Gait(0), "cell {:?}: {:?}, {strikes} strikes", c.values, c.outcome);
    }
    assert!(knife_edges <= 1 && compared >= 8, "{knife_edges} knife edges");
}

/// The pre-strike state of the cell `values` on `plan`'s grid: the base state with the stance
/// angle and rate set, the swing angle closing the swing foot's gap (`swing = −2 θ`), the hip
/// placing the stance foot where the base has it and moving so that it rests.
fn lifted(plan: &contactlab::multibody::basin::BasinPlan, values: &[f64]) -> Vec<f64> {
    let (th, w) = (values[0], values[1]);
    let foot = [plan.q[0] + plan.q[2].sin(), plan.q[1] - plan.q[2].cos()];
    let q = [foot[0] - th.sin(), foot[1] + th.cos(), th, -2.0 * th];
    let v = [-th.cos() * w, -th.sin() * w, w, plan.v[3]];
    q.iter().chain(&v).copied().collect()
}

#[test]
fn bad_requests_are_refused_with_the_names() {
    let m = mechanism(&doc("rimless-wheel.toml"));
    let s = BasinSettings { steps: 5, ..Default::default() };
    let err = |axes: &[BasinAxis], s: &BasinSettings| basin(&m, axes, None, s, &|_, _| {}).unwrap_err().to_string();
    assert!(err(&[axis("wheel.phi", 0.0, 1.0, 3)], &s).contains("no section coordinate 'wheel.phi'"));
    assert!(err(&[axis("wheel.x", 0.0, 1.0, 3)], &s).contains("translation"));
    let e = err(&[axis("wheel.y", 0.9, 1.0, 3), axis("wheel.theta", 0.2, 0.3, 3)], &s);
    assert!(e.contains("cannot vary") && e.contains("constraints"), "{e}");
    assert!(err(&[axis("wheel.theta", 0.3, 0.2, 3)], &s).contains("lo < hi"));
    assert!(err(&[axis("wheel.theta", 0.2, 0.3, 0)], &s).contains("number of values"));
    assert!(err(&[axis("wheel.theta_dot", -1.0, 0.0, 3)], &BasinSettings { steps: 0, ..s }).contains("steps"));
    assert!(
        err(&[axis("wheel.theta_dot", -1.0, 0.0, 3)], &BasinSettings { fall_height: 1.5, ..s }).contains("fall_height")
    );
    assert!(BasinAxis::parse("wheel.theta=0.1:0.2").unwrap_err().to_string().contains("NAME=LO:HI:N"));
    assert_eq!(BasinAxis::parse("wheel.theta_dot=-1:0:5").unwrap(), axis("wheel.theta_dot", -1.0, 0.0, 5));
    let no_gait = mechanism(&doc("p1-config-A.toml"));
    let e = basin(&no_gait, &[axis("body.theta", 0.0, 0.1, 2)], None, &s, &|_, _| {}).unwrap_err().to_string();
    assert!(e.contains("[gait]"), "{e}");
}
