//! The model files in `examples/` and the reference configurations in `contactlab::paper_configs` (and
//! the papers' constructors on the system types) are the same numbers: the report, the tests
//! and a user's `contactlab ... examples/...` all run the paper's configuration.

use std::path::{Path, PathBuf};

use contactlab::mechanics::double_pendulum::DoublePendulumStop;
use contactlab::mechanics::sliders::RodTwoSliders;
use contactlab::mechanics::walkers::{CompassBiped, RimlessWheel};
use contactlab::paper_configs;

fn example(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples").join(rel)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * (1.0 + a.abs().max(b.abs()))
}

#[test]
fn p1_configurations() {
    for name in ["A", "B", "D"] {
        let file = contactlab::twocontact::model::read(&example(&format!("two-contact/config-{name}.toml"))).unwrap();
        let reference = paper_configs::p1::config(name).unwrap();
        let pairs = [
            (file.mass, reference.mass),
            (file.rho, reference.rho),
            (file.h, reference.h),
            (file.l1, reference.l1),
            (file.l2, reference.l2),
            (file.phi1, reference.phi1),
            (file.phi2, reference.phi2),
            (file.mu1, reference.mu1),
            (file.mu2, reference.mu2),
            (file.force, reference.force),
            (file.alpha, reference.alpha),
            (file.torque, reference.torque),
        ];
        assert!(pairs.iter().all(|&(a, b)| close(a, b)), "config {name}: {file:?} vs {reference:?}");
    }
}

#[test]
fn p4_disk() {
    for (file, mu) in [("fixture/disk-mu0.2-0.5.toml", (0.2, 0.5)), ("fixture/disk-mu1.8-0.5.toml", (1.8, 0.5))] {
        let f = contactlab::fixture::model::read(&example(file)).unwrap();
        let load = [f.load[0], f.load[1], f.load[2]];
        let r = paper_configs::p4::disk(mu.0, mu.1, load);
        for (a, b) in [(&f.mass_matrix, &r.mass_matrix), (&f.wn, &r.wn), (&f.wt, &r.wt)] {
            assert!((a - b).amax() < 1e-12, "{file}: {a} vs {b}");
        }
        assert!((&f.mu - &r.mu).amax() < 1e-15, "{file}");
    }
}

#[test]
fn p2_p3_p5_systems() {
    use contactlab::walking::model::WalkerModel;
    match contactlab::walking::model::read(&example("walker/rimless-wheel.toml")).unwrap() {
        WalkerModel::Rimless(w) => {
            let r = RimlessWheel::paper(w.mu);
            assert_eq!(w.spokes, r.spokes);
            assert!([
                (w.kappa, r.kappa),
                (w.slope, r.slope),
                (w.mass, r.mass),
                (w.length, r.length),
                (w.gravity, r.gravity)
            ]
            .iter()
            .all(|&(a, b)| close(a, b)));
        }
        other => panic!("{other:?}"),
    }
    match contactlab::walking::model::read(&example("walker/compass-biped.toml")).unwrap() {
        WalkerModel::Compass(w) => {
            let r = CompassBiped::paper(w.mu);
            assert!([
                (w.l, r.l),
                (w.mass, r.mass),
                (w.hip_mass, r.hip_mass),
                (w.inertia, r.inertia),
                (w.slope, r.slope),
                (w.gravity, r.gravity)
            ]
            .iter()
            .all(|&(a, b)| close(a, b)));
        }
        other => panic!("{other:?}"),
    }
    use contactlab::zeno::model::ZenoModel;
    for (file, controlled) in
        [("zeno/double-pendulum-uncontrolled.toml", false), ("zeno/double-pendulum-pd.toml", true)]
    {
        match contactlab::zeno::model::read(&example(file)).unwrap() {
            ZenoModel::DoublePendulum { system, .. } => {
                let r = if controlled {
                    DoublePendulumStop::paper_controlled(system.e)
                } else {
                    DoublePendulumStop::paper(system.e)
                };
                assert_eq!(
                    (system.m1, system.m2, system.l1, system.l2, system.gravity),
                    (r.m1, r.m2, r.l1, r.l2, r.gravity)
                );
                match (system.control, r.control) {
                    (Some(a), Some(b)) => {
                        assert!(close(a.k1, b.k1) && close(a.theta1e, b.theta1e) && close(a.c1, b.c1))
                    }
                    (None, None) => {}
                    other => panic!("{file}: {other:?}"),
                }
            }
            other => panic!("{other:?}"),
        }
    }
    match contactlab::eqset::model::read(&example("eqset/rod-two-sliders.toml")).unwrap() {
        contactlab::eqset::model::EqsetModel::Rod { system, .. } => {
            let r = RodTwoSliders::paper();
            assert!(
                [
                    (system.mass, r.mass),
                    (system.l, r.l),
                    (system.inertia, r.inertia),
                    (system.gravity, r.gravity),
                    (system.mu1, r.mu1),
                    (system.mu2, r.mu2)
                ]
                .iter()
                .all(|&(a, b)| close(a, b)),
                "{system:?}"
            );
        }
        other => panic!("{other:?}"),
    }
}
