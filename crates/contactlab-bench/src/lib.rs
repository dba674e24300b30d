//! Criterion benchmarks of contactlab: the suites are in `benches/`, run them with
//! `cargo bench -p contactlab-bench` (README, "Benchmarks"). This library holds the set-ups that
//! a benchmark and a profiling example (`examples/`) share.

use contactlab::multibody::basin::{grid, plan, BasinAxis, BasinPlan, BasinSettings};
use contactlab::multibody::Mechanism;

/// The simplest walker's basin of the decision benchmark (issue #60): 400 starts just before
/// heel strike (Schwab & Wisse's plane), up to 40 strikes each, against a plan computed once
/// (as each Dask chunk does). Returns the walker, the plan and the cells.
pub fn simplest_walker_basin() -> (Mechanism, BasinPlan, Vec<Vec<f64>>) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/multibody/simplest-walker.toml");
    let walker = contactlab::multibody::model::read(&path).expect("model");
    let s = BasinSettings { steps: 40, before_strike: true, ..Default::default() };
    let axes = [
        BasinAxis { name: "stance.theta".into(), lo: -0.3, hi: -0.1, n: 20 },
        BasinAxis { name: "stance.theta_dot".into(), lo: -0.3, hi: -0.15, n: 20 },
    ];
    let names: Vec<String> = axes.iter().map(|a| a.name.clone()).collect();
    let (p, _) = plan(&walker, &names, None, &s).expect("a gait");
    (walker, p, grid(&axes))
}

/// McGeer's kneed walker (the shipped example) and its gait's post-strike state `(q, q̇)`, found
/// from nothing: what the step benchmarks and `examples/kneed_step.rs` start from.
pub fn kneed_walker_gait() -> (Mechanism, Vec<f64>, Vec<f64>) {
    use contactlab::multibody::gait::{find_gaits, GaitSettings};
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/multibody/kneed-walker.toml");
    let kneed = contactlab::multibody::model::read(&path).expect("the shipped example");
    let found = find_gaits(&kneed, &GaitSettings::default()).expect("a gait table");
    let gait = found.gaits.first().expect("the kneed walker's gait");
    let (q, v) = (gait.q.clone(), gait.v.clone());
    (kneed, q, v)
}

/// One strike-to-strike step of the kneed walker's system `lag` (of `sys`) from the state `x`,
/// with exact derivatives (variational equations, saltation matrices, the differentiated Zeno
/// completion of the knee cascade), at the gait search's tolerance: the return map of the step
/// benchmarks.
pub fn kneed_walker_step_map<'a>(
    kneed: &Mechanism,
    lag: &'a contactlab::hybrid::lagrangian::Lagrangian<&'a contactlab::mechanics::multibody_system::MultibodySystem>,
    sys: &'a contactlab::mechanics::multibody_system::MultibodySystem,
    x: &contactlab::hybrid::lagrangian::State,
) -> contactlab::hybrid::section::ReturnMap<
    'a,
    contactlab::hybrid::lagrangian::Lagrangian<&'a contactlab::mechanics::multibody_system::MultibodySystem>,
    contactlab::multibody::gait::StrikeChart<'a>,
> {
    use contactlab::hybrid::driver::PoincareSection;
    use contactlab::hybrid::section::{Derivatives, ReturnMap};
    use contactlab::hybrid::{DriverSettings, EventDriver, EventKind, Tolerances, ZenoRule};
    let rtol = contactlab::multibody::gait::GaitSettings::default().rtol;
    let spec = kneed.gait.as_ref().expect("a gait table");
    ReturnMap {
        system: lag,
        section: PoincareSection::AfterEvent { kind: EventKind::Impact, contact: Some(spec.strike) },
        chart: contactlab::multibody::gait::StrikeChart::new(sys, x, &spec.translation),
        driver: EventDriver::new(DriverSettings {
            tol: Tolerances { rtol, atol: rtol },
            t_max: 50.0,
            zeno: ZenoRule::Extrapolate { tolerance: 1e-9 },
            ..Default::default()
        }),
        derivatives: Derivatives::Exact,
    }
}
