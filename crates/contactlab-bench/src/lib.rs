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
