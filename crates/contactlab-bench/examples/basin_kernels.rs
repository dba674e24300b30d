//! The simplest walker's 400-cell basin (the bench's `basin/simplest_walker_400_cells*`) on one
//! kernel, for profiling: `basin_kernels planar|spatial [repeats]`.
use contactlab::mechanics::multibody_system::Kernel;
use contactlab::multibody::basin::{basin_cells, grid, plan, BasinAxis, BasinSettings};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/multibody/simplest-walker.toml");
    let mut walker = contactlab::multibody::model::read(&path).expect("model");
    if args.first().is_some_and(|a| a == "spatial") {
        walker.kernel = Kernel::Spatial;
    }
    let repeats: usize = args.get(1).map_or(1, |a| a.parse().expect("a number"));
    let s = BasinSettings { steps: 40, before_strike: true, ..Default::default() };
    let axes = [
        BasinAxis { name: "stance.theta".into(), lo: -0.3, hi: -0.1, n: 20 },
        BasinAxis { name: "stance.theta_dot".into(), lo: -0.3, hi: -0.15, n: 20 },
    ];
    let names: Vec<String> = axes.iter().map(|a| a.name.clone()).collect();
    let (p, _) = plan(&walker, &names, None, &s).expect("a gait");
    let cells = grid(&axes);
    let t = std::time::Instant::now();
    for _ in 0..repeats {
        basin_cells(&walker, &p, &cells, &|_, _| {}).expect("cells");
    }
    println!("{:.3} s per basin", t.elapsed().as_secs_f64() / repeats as f64);
}
