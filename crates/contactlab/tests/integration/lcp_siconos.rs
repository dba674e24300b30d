//! Data-driven tests on the Siconos LCP test problems (`data/siconos-lcp`, shipped): every
//! problem is solved with a verified residual or reported unsolved with a proved reason, and the
//! verdict agrees with exhaustive enumeration wherever that is feasible.

use std::path::PathBuf;

use contactlab::lcp::enumerate::{enumerate, EnumSettings};
use contactlab::lcp::{io, lemke, solve, LcpSettings, LcpStatus};
use contactlab::paper_configs::lcp::murty;

fn data_dir() -> PathBuf {
    let d = contactlab::reproduce::default_data_dir().join("siconos-lcp");
    assert!(d.is_dir(), "data not found at {} (set CONTACTLAB_DATA)", d.display());
    d
}

/// All 20 problems: 17 in dense storage, 3 in sparse-block storage.
fn all_files() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(data_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "dat"))
        .collect();
    v.sort();
    assert_eq!(v.len(), 20, "expected the 20 Siconos problems");
    v
}

#[test]
fn sparse_block_files_read_as_their_dense_twins() {
    let blocks: Vec<PathBuf> =
        all_files().into_iter().filter(|p| p.to_string_lossy().ends_with("_block.dat")).collect();
    assert_eq!(blocks.len(), 3);
    for path in blocks {
        let name = path.file_name().unwrap().to_string_lossy().replace("_block.dat", ".dat");
        let (a, b) = (io::read(&path).unwrap(), io::read(&path.with_file_name(&name)).unwrap());
        assert_eq!(a.lcp, b.lcp, "{path:?} against {name}");
        // Not all-zero by accident: the twin has nonzero entries off the diagonal blocks too
        // (ortiz) or a full diagonal (trivial, deudeu).
        assert!(a.lcp.m.iter().filter(|&&x| x != 0.0).count() >= a.lcp.n());
    }
}

#[test]
fn every_problem_is_solved_or_refuted_with_proof() {
    for path in all_files() {
        let f = io::read(&path).unwrap();
        let s = solve(&f.lcp, &LcpSettings::default()).unwrap();
        match s.status {
            LcpStatus::Solved => {
                // Independent re-verification from the raw data.
                let w = &f.lcp.m * &s.z + &f.lcp.q;
                assert!(s.z.iter().all(|&v| v >= 0.0), "{path:?}: z has negative entries");
                let scale = 1.0 + f.lcp.q.amax() + f.lcp.m.amax() * f.lcp.n() as f64 * s.z.amax();
                let comp = s.z.iter().zip(w.iter()).map(|(a, b)| a.min(*b).abs()).fold(0.0, f64::max);
                assert!(comp / scale <= 1e-9, "{path:?}: residual {}", comp / scale);
                assert!(s.residual <= 1e-9);
            }
            LcpStatus::NoSolution => {
                assert!(s.proof.is_proved(), "{path:?}: no-solution without proof ({:?}, {:?})", s.reason, s.proof);
                assert!(s.reason.is_some());
            }
            other => panic!("{path:?}: unexpected status {other:?}"),
        }
    }
}

#[test]
fn existence_agrees_with_enumeration() {
    for path in all_files() {
        let f = io::read(&path).unwrap();
        if f.lcp.n() > 12 {
            continue;
        }
        let e = enumerate(&f.lcp, &EnumSettings::default()).unwrap();
        assert!(e.complete, "{path:?}");
        let s = solve(&f.lcp, &LcpSettings::default()).unwrap();
        assert_eq!(!e.pieces.is_empty(), s.status == LcpStatus::Solved, "{path:?}");
        for p in &e.pieces {
            assert!(p.residual <= 1e-9, "{path:?}: piece point residual {}", p.residual);
        }
    }
}

#[test]
fn perturbed_isolated_solution_has_no_solution() {
    // lcp_Pang_isolated_sol.dat has a solution; its perturbation has none (proved).
    let d = data_dir();
    let a = io::read(&d.join("lcp_Pang_isolated_sol.dat")).unwrap();
    assert_eq!(solve(&a.lcp, &LcpSettings::default()).unwrap().status, LcpStatus::Solved);
    let b = io::read(&d.join("lcp_Pang_isolated_sol_perturbed.dat")).unwrap();
    let s = solve(&b.lcp, &LcpSettings::default()).unwrap();
    assert_eq!(s.status, LcpStatus::NoSolution);
    assert!(s.proof.is_proved(), "{:?}", s.proof);
}

#[test]
fn cps_remark_4_1_14_solution_set() {
    // The file states: the set of solutions is z1 + z2 = 1.
    let f = io::read(&data_dir().join("lcp_CPS_1.dat")).unwrap();
    let e = enumerate(&f.lcp, &EnumSettings::default()).unwrap();
    assert!(e.bounded);
    let c = nalgebra::DVector::from_vec(vec![1.0, 1.0]);
    for p in &e.pieces {
        assert!((p.minimize(&f.lcp, &c).unwrap().objective - 1.0).abs() < 1e-12);
        assert!((p.minimize(&f.lcp, &(-&c)).unwrap().objective + 1.0).abs() < 1e-12);
        // z1 ranges over all of [0, 1].
        let e1 = nalgebra::DVector::from_vec(vec![1.0, 0.0]);
        assert!(p.minimize(&f.lcp, &e1).unwrap().objective.abs() < 1e-12);
        assert!((p.minimize(&f.lcp, &(-&e1)).unwrap().objective + 1.0).abs() < 1e-12);
    }
}

#[test]
fn murty_file_matches_generator_and_takes_exponential_pivots() {
    let f = io::read(&data_dir().join("lcp_exp_murty2.dat")).unwrap();
    assert_eq!(f.lcp, murty(6));
    for n in 1..=10 {
        // Murty's construction is for the covering vector e = 1 on the data as given.
        let covering = Some(nalgebra::DVector::from_element(n, 1.0));
        let s = lemke::solve(&murty(n), &LcpSettings { covering, ..Default::default() }).unwrap();
        assert_eq!(s.status, LcpStatus::Solved);
        assert_eq!(s.pivots, 1 << n, "n = {n}");
    }
}
