//! P1 analyses on the Fig. 3 configurations. Targets (issue #4): one evaluation of R and G
//! ≤ 2 µs; `classify` (2001 samples of φ plus refinement of fixed points) ≤ 20 ms; a 200 × 200
//! atlas ≤ 3 min on two cores (timed by `contactlab equilibrium atlas`, not here). The verdicts
//! proved for every φ in interval arithmetic (issue #23 part 3): configuration A's Theorem 3
//! over the whole circle, B's Theorem 5 (R constant), D's Theorem 2 fixed point (target:
//! configuration B ≤ 1 s) and Theorem 5 with R varying, proved through a stable partition (B's
//! body with its centre of mass lower and uphill, a Fig. 6 atlas cell).

use contactlab::paper_configs::p1::config;
use contactlab::twocontact::classify::classify;
use contactlab::twocontact::poincare::return_map;
use contactlab::twocontact::proof::prove_verdict;
use contactlab::twocontact::sim::Simulator;
use contactlab::twocontact::zod::Zod;
use contactlab::twocontact::TwoContact;
use criterion::{criterion_group, criterion_main, Criterion};

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("two_contact");
    for name in ["A", "D"] {
        let sim = Simulator::new(Zod::new(&config(name).unwrap()).unwrap()).unwrap();
        g.bench_function(format!("return_map_{name}"), |b| b.iter(|| return_map(&sim, 0.3).unwrap()));
    }
    g.sample_size(20);
    for name in ["A", "B"] {
        let p = config(name).unwrap();
        g.bench_function(format!("classify_2001_{name}"), |b| b.iter(|| classify(&p, 2001).unwrap()));
    }
    let varying = TwoContact { h: 0.08, l1: -0.008, l2: 0.052, ..config("B").unwrap() };
    for name in ["A", "B", "D", "varying_R"] {
        let p = if name == "varying_R" { varying } else { config(name).unwrap() };
        let c = classify(&p, 2001).unwrap();
        g.bench_function(format!("prove_verdict_{name}"), |b| {
            b.iter(|| assert!(prove_verdict(&p, &c).proof.is_proved()))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
