//! P4 (Pang & Trinkle): fixtures.

use super::*;

/// Unit loads tested on the sphere by [`fixture_cones`].
pub const CONE_SAMPLES: RangeInclusive<usize> = 10..=200_000;

/// P4's load cones of a fixture, written as CSV and PNG files into `dir` (`fixture cones`):
/// the paths of the files.
pub fn fixture_cones(f: &Fixture, dir: &std::path::Path, samples: usize) -> Result<Vec<std::path::PathBuf>, Error> {
    within("samples", samples, CONE_SAMPLES)?;
    fixture::cones::write(f, dir, samples, "")
}

/// P4's weak, strong and frictionless stability of a fixture (`fixture classify`).
pub fn fixture_classify(f: &Fixture) -> Result<stability::FixtureClassification, Error> {
    stability::classify(f)
}
/// What `fixture theorem4 --json` prints.
#[derive(Debug, Clone, Serialize)]
pub struct Theorem4Summary {
    /// `SS(μ) = WS(μ)`: every system inconsistent (`None` if some LP was undecided).
    pub ss_equals_ws: Option<bool>,
    /// Number of systems (32)–(35).
    pub systems: usize,
    /// LPs solved.
    pub lps: usize,
    /// Per signed-vector pair.
    pub per_sigma: Vec<SigmaCount>,
    /// Systems whose LP ended in numerical trouble.
    pub undecided: Vec<SystemId>,
    /// The Proposition 5 load built from the first consistent system, classified.
    pub proposition5: Option<Proposition5>,
}

/// Consistent systems for one pair `(σ_t, σ_o)`.
#[derive(Debug, Clone, Serialize)]
pub struct SigmaCount {
    /// `σ_t`.
    pub sigma_t: Vec<i8>,
    /// `σ_o`.
    pub sigma_o: Vec<i8>,
    /// Consistent systems.
    pub consistent: usize,
    /// Systems.
    pub systems: usize,
}

/// One system (32)–(35) by its signs and index set.
#[derive(Debug, Clone, Serialize)]
pub struct SystemId {
    /// `σ_t`.
    pub sigma_t: Vec<i8>,
    /// `σ_o`.
    pub sigma_o: Vec<i8>,
    /// `γ`, 1-based.
    pub gamma: Vec<usize>,
}

/// A load built by Proposition 5 and its classification.
#[derive(Debug, Clone, Serialize)]
pub struct Proposition5 {
    /// The system it comes from.
    #[serde(flatten)]
    pub system: SystemId,
    /// The load.
    pub load: Vec<f64>,
    /// Its classification (weakly stable, not strongly, if Proposition 5 holds).
    pub classification: stability::FixtureClass,
}

/// P4's Theorem 4 over all systems (32)–(35), with a Proposition 5 load when one is consistent
/// (`fixture theorem4`); the result and its `--json` object.
pub fn fixture_theorem4(
    f: &Fixture,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<(theorem4::Theorem4, Theorem4Summary), Error> {
    let t = theorem4::theorem4(f, progress)?;
    let id = |s: &theorem4::System| SystemId {
        sigma_t: s.sigma_t.clone(),
        sigma_o: s.sigma_o.clone(),
        gamma: s.gamma.clone(),
    };
    let proposition5 = match t.consistent.first() {
        Some(sys) => {
            let load = theorem4::proposition5_load(f, sys);
            let c = stability::classify(&f.with_load(load.clone()))?;
            Some(Proposition5 {
                system: id(sys),
                load: load.iter().copied().collect(),
                classification: c.classification,
            })
        }
        None => None,
    };
    let summary = Theorem4Summary {
        ss_equals_ws: t.ss_equals_ws,
        systems: t.systems,
        lps: t.lps,
        per_sigma: t
            .per_sigma
            .iter()
            .map(|(st, so, c, n)| SigmaCount { sigma_t: st.clone(), sigma_o: so.clone(), consistent: *c, systems: *n })
            .collect(),
        undecided: t.undecided.iter().map(id).collect(),
        proposition5,
    };
    Ok((t, summary))
}

/// The classification as every friction coefficient is scaled by `steps` factors evenly spaced
/// in `[0, max_scale]` (`fixture mu-sweep`).
pub fn fixture_mu_sweep(f: &Fixture, max_scale: f64, steps: usize) -> Result<fixture::sweep::Sweep, Error> {
    positive("max_scale", max_scale)?;
    within("steps", steps, MU_SWEEP_STEPS)?;
    let scales: Vec<f64> = (0..steps).map(|i| max_scale * i as f64 / (steps - 1) as f64).collect();
    fixture::sweep::mu_sweep(f, &scales)
}
