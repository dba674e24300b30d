//! The simplest walker's 400-cell basin (the bench's `basin/simplest_walker_400_cells*`) on one
//! kernel, for profiling: `basin_kernels planar|spatial [repeats]`.
use contactlab::mechanics::multibody_system::Kernel;
use contactlab::multibody::basin::basin_cells;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (mut walker, p, cells) = contactlab_bench::simplest_walker_basin();
    walker.kernel = if args.first().is_some_and(|a| a == "spatial") { Kernel::Spatial } else { Kernel::Planar };
    let repeats: usize = args.get(1).map_or(1, |a| a.parse().expect("a number"));
    let t = std::time::Instant::now();
    for _ in 0..repeats {
        basin_cells(&walker, &p, &cells, &|_, _| {}).expect("cells");
    }
    println!("{:.3} s per basin", t.elapsed().as_secs_f64() / repeats as f64);
}
