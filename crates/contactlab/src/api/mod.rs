//! The analyses as the command-line tool runs them.
//!
//! Each function takes a parsed model and the command's options, checks the options (an
//! [`Error::Argument`] names the option and its allowed range), runs the analysis and returns
//! the object that `contactlab … --json` prints, together with the data the command writes to
//! files (time histories, grids). The command-line tool and the Python package both call these
//! functions, so the two cannot report different things for the same model.
//!
//! Option names are those of the Python API (`t_max`); the command line shows them as flags
//! (`--t-max`).
//!
//! One file per domain: the LCP core and parameter studies here, then files for each paper (`p1_body`, `p2_walkers`, `p3_zeno`, `p4_fixtures`, `p5_eqsets`), `multibody`
//! for a user's mechanism, and `defaults` (every front end's defaults); all re-exported here.

mod defaults;
pub mod registry;
pub use defaults::*;

use std::ops::RangeInclusive;

use nalgebra::DVector;
use serde::Serialize;

use crate::api::registry::Model;
use crate::fixture::{self, stability, theorem4, Fixture};
use crate::hybrid::lagrangian::Lagrangian;
use crate::mechanics::double_pendulum::DoublePendulumStop;
use crate::multibody::gait::GaitSettings;
use crate::twocontact::modes::{self, all_modes, solve_mode, BodyModeSolution, ContactPointState, EquilibriumModes};
use crate::twocontact::nonlinear::{self, NonlinearRun, NonlinearSettings};
pub use crate::twocontact::poincare::P1Maps;
use crate::twocontact::poincare::{self, MapPoint};
use crate::twocontact::sim::{BodyEventKind, BodyTrajectory, SimSettings, SimState, Simulator};
use crate::twocontact::{atlas, zod::Zod, TwoContact};
use crate::walking::model::WalkerModel;
use crate::walking::painleve::{b_negative_grid, b_negative_intervals, compass_rho_max, mu_min};
use crate::walking::slip::slip_outcome;
use crate::walking::{MultibodyWalker, WalkerChart, WalkerGait, WalkerSettings};
use crate::zeno::bound::{theorem1, Bound, Epsilons};
use crate::zeno::model::ZenoModel;
use crate::zeno::{self as p3, EBranch, Orbit, ZenoSettings, ZenoSimulation};
use crate::Error;

fn arg(name: &str, message: impl Into<String>) -> Error {
    Error::Argument { name: name.into(), message: message.into() }
}

/// Samples of `φ` allowed for the maps and the verdict (`equilibrium maps | classify`).
pub const MAP_SAMPLES: RangeInclusive<usize> = 3..=1_000_000;
/// Samples of `φ` per cell allowed for the atlas.
pub const ATLAS_SAMPLES: RangeInclusive<usize> = 11..=100_000;
/// Grid points allowed for the scan of the equilibrium sets (`eqset analyze`).
pub const EQSET_GRID: RangeInclusive<usize> = 8..=1_000_000;
/// Grid points allowed for the μ sweep (`fixture mu-sweep`).
pub const MU_SWEEP_STEPS: RangeInclusive<usize> = 2..=100_000;
/// Starts per axis of Ω₂ allowed for P3's Theorem 1 (`zeno bound`).
pub const BOUND_GRID: RangeInclusive<usize> = 2..=101;

/// `v` as a count within `range`, or an [`Error::Argument`] naming `name` and the range.
pub fn count(name: &str, v: i64, range: RangeInclusive<usize>) -> Result<usize, Error> {
    match usize::try_from(v) {
        Ok(u) if range.contains(&u) => Ok(u),
        _ if *range.end() == usize::MAX => Err(arg(name, format!("must be an integer >= {} (got {v})", range.start()))),
        _ => Err(arg(name, format!("must be an integer in {}..={} (got {v})", range.start(), range.end()))),
    }
}

fn within(name: &str, v: usize, range: RangeInclusive<usize>) -> Result<usize, Error> {
    count(name, i64::try_from(v).unwrap_or(i64::MAX), range)
}

/// A range of counts as the command line's parsers take it.
pub fn flag_range(range: RangeInclusive<usize>) -> RangeInclusive<i64> {
    *range.start() as i64..=*range.end() as i64
}

use crate::error::positive;

// ---------------------------------------------------------------------------------------------
// The LCP core

/// What `lcp solve --json` prints (and the fields of Python's `LcpSolution`).
#[derive(Debug, Clone, Serialize)]
pub struct LcpReport {
    /// What the solver concluded.
    pub status: crate::lcp::LcpStatus,
    /// The point `z` (non-finite entries as `null`).
    #[serde(serialize_with = "crate::output::ser_dvector")]
    pub z: DVector<f64>,
    /// `w = M z + q`.
    #[serde(serialize_with = "crate::output::ser_dvector")]
    pub w: DVector<f64>,
    /// The scale-free residual (`None` when there is no point).
    pub residual: Option<f64>,
    /// Lemke pivots.
    pub pivots: usize,
    /// The method of the final answer.
    pub method: crate::lcp::LcpMethod,
    /// Why there is no solution, if there is none.
    pub reason: Option<crate::lcp::NoSolutionReason>,
    /// The componentwise relative error of `z` on the data as given
    /// ([`crate::lcp::LcpSolution::violation`]; `None` when there is no point).
    pub violation: Option<f64>,
    /// The size of the problem.
    pub n: usize,
    /// Whether the verdict is proved in interval arithmetic (`"proof": "interval" | "none"`,
    /// `"proof_reason"` when none; [`crate::lcp::proof`]).
    #[serde(flatten)]
    pub proof: crate::verified::Proof,
}

/// Solves an LCP (`lcp solve`): Lemke's method with proved fallbacks ([`crate::lcp::solve`]),
/// its verdict proved in interval arithmetic where that closes ([`crate::lcp::proof`]).
pub fn lcp_solve(problem: &crate::lcp::Lcp, settings: &crate::lcp::LcpSettings) -> Result<LcpReport, Error> {
    let sol = crate::lcp::solve(problem, settings)?;
    let proof = crate::lcp::proof::prove(problem, &sol);
    Ok(LcpReport { proof, ..LcpReport::from(sol) })
}

/// Every solution of an LCP as polyhedral pieces (`lcp solve --all`).
pub fn lcp_solve_all(problem: &crate::lcp::Lcp) -> Result<crate::lcp::enumerate::Enumeration, Error> {
    let mut e = crate::lcp::enumerate::enumerate(problem, &crate::lcp::enumerate::EnumSettings::default())?;
    e.prove_empty(problem);
    e.verify(problem, crate::lcp::LcpSettings::default().tolerance);
    Ok(e)
}

/// The matrix classes of `M` (`lcp classes`).
pub fn lcp_classes(m: &nalgebra::DMatrix<f64>) -> Result<crate::lcp::classes::Classes, Error> {
    crate::lcp::classes::all(m)
}

impl LcpReport {
    /// Writes `solution.csv` (`i, z, w`) into `dir`.
    pub fn write_files(&self, dir: &std::path::Path) -> Result<(), Error> {
        let rows: Vec<Vec<String>> =
            (0..self.n).map(|i| vec![i.to_string(), self.z[i].to_string(), self.w[i].to_string()]).collect();
        crate::output::write_csv(dir, "solution.csv", &["i", "z", "w"], &rows)
    }
}

impl From<crate::lcp::LcpSolution> for LcpReport {
    fn from(s: crate::lcp::LcpSolution) -> Self {
        LcpReport {
            status: s.status,
            n: s.z.len(),
            z: s.z,
            w: s.w,
            residual: crate::output::finite_or_none(s.residual),
            pivots: s.pivots,
            method: s.method,
            reason: s.reason,
            violation: crate::output::finite_or_none(s.violation),
            proof: s.proof,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Parameter studies over any kind that has them (`api::registry::KindDef::sweep`)

/// The cells of a parameter study, by kind; each cell holds its `values` and the kind's columns
/// ([`crate::api::registry::sweep_columns`]).
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum SweepCells {
    /// P1's verdicts ([`crate::twocontact::atlas::classify_cells`]).
    TwoContact(Vec<crate::twocontact::atlas::Cell>),
    /// P4's classifications ([`crate::fixture::sweep::classify_cells`]).
    Fixture(Vec<crate::fixture::sweep::FixtureCell>),
}

fn no_studies(m: &Model) -> Error {
    let kinds: Vec<&str> =
        crate::api::registry::REGISTRY.iter().filter(|k| k.sweep.is_some()).map(|k| k.kind).collect();
    Error::model("kind", format!("parameter studies are for {} models, not {m:?}", kinds.join(", ")))
}

/// Checks the cells of a study before any work: every value, applied alone to the model, lies in
/// its key's range (an error names the first key and value that do not).
pub fn check_cells(m: &Model, keys: &[&str], points: &[Vec<f64>]) -> Result<(), Error> {
    match m {
        Model::TwoContact(p) => crate::twocontact::atlas::check_values(p, keys, points),
        Model::Fixture(f) => crate::fixture::sweep::check_values(f, keys, points),
        other => Err(no_studies(other)),
    }
}

/// The cells of a study (`samples` values of `φ` per cell for P1), in parallel.
pub fn sweep_cells(m: &Model, keys: &[&str], points: &[Vec<f64>], samples: usize) -> Result<SweepCells, Error> {
    Ok(match m {
        Model::TwoContact(p) => {
            within("samples", samples, ATLAS_SAMPLES)?;
            SweepCells::TwoContact(crate::twocontact::atlas::classify_cells(p, keys, points, samples, &|_, _| {})?)
        }
        Model::Fixture(f) => SweepCells::Fixture(crate::fixture::sweep::classify_cells(f, keys, points)?),
        other => return Err(no_studies(other)),
    })
}

// The analyses by domain (declared after the macros above, which they use).
mod multibody;
mod open;
mod p1_body;
mod p2_walkers;
mod p3_zeno;
mod p4_fixtures;
mod p5_eqsets;
mod scene3;
pub(crate) mod spatial;
mod spatial_basin;
pub(crate) mod spatial_continuation;
pub(crate) mod spatial_gait;
pub(crate) mod spatial_painleve;
pub(crate) mod stance;
pub use multibody::*;
pub use open::*;
pub use p1_body::*;
pub use p2_walkers::*;
pub use p3_zeno::*;
pub use p4_fixtures::*;
pub use p5_eqsets::*;
pub use spatial::*;
pub use spatial_gait::*;
pub use spatial_painleve::*;
pub use stance::*;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perturbations_parse_and_bad_ones_name_the_option() {
        let s = p1_perturbation("z2=1e-4, xd2=-0.5").unwrap();
        assert_eq!(s.q, [0.0, 1e-4, 0.0]);
        assert_eq!(s.qd, [0.0, 0.0, -0.5]);
        for (spec, msg) in [
            ("z2=1,z2=2", "given twice"),
            ("z1=-1", "gaps must be >= 0"),
            ("w=1", "unknown key"),
            ("z2", "expected KEY=VALUE"),
            ("z2=nan", "not a finite number"),
        ] {
            let e = p1_perturbation(spec).unwrap_err();
            assert!(e.is_input_error() && e.to_string().starts_with("perturb: ") && e.to_string().contains(msg), "{e}");
        }
    }

    #[test]
    fn settings_validate_names_the_setting() {
        assert!(WalkerSettings::default().validate().is_ok());
        let e = WalkerSettings { max_step_time: 0.0, ..Default::default() }.validate().unwrap_err();
        assert!(matches!(&e, Error::Argument { name, .. } if name == "max_step_time"), "{e}");
        let e = WalkerSettings { rtol: f64::NAN, ..Default::default() }.validate().unwrap_err();
        assert!(matches!(&e, Error::Argument { name, .. } if name == "rtol"), "{e}");
        // The gait search stops before any work, with the setting named.
        let w = WalkerModel::Rimless(crate::mechanics::walkers::RimlessWheel::paper(0.6));
        let bad = GaitSettings { newton_tol: 2.0, ..Default::default() };
        let e = crate::walking::gait(&w, Some(&DVector::from_vec(vec![0.3])), &bad).unwrap_err();
        assert!(matches!(&e, Error::Argument { name, .. } if name == "newton_tol"), "{e}");
    }

    #[test]
    fn bad_options_are_argument_errors() {
        assert!(matches!(positive("t_max", f64::NAN), Err(Error::Argument { .. })));
        assert!(matches!(positive("t_max", 0.0), Err(Error::Argument { .. })));
        assert_eq!(positive("t_max", 2.0).unwrap(), 2.0);
    }
}
