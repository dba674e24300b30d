//! Criterion benchmarks of contactlab: the suites are in `benches/`, run them with
//! `cargo bench -p contactlab-bench` (README, "Benchmarks"). This library is empty.
