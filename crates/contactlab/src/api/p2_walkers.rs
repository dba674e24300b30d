//! P2 (Or): walkers, Painlevé's paradox and slips.

use super::*;
use nalgebra::DVector;

/// A gait as `walker gait --json` prints it. A gait that did not converge carries no numbers
/// (every field but `converged` and `reason` is `None`), and `mu_stick` is `None` unless the foot
/// sticks along the whole step (a slipping step has no sticking-friction requirement: its force
/// ratio is capped at the model's μ).
#[derive(Debug, Clone, Serialize)]
pub struct GaitReport {
    /// Whether Newton's method converged.
    pub converged: bool,
    /// Step period.
    pub period: Option<f64>,
    /// The state `(q, q̇)` after heel strike.
    pub post_impact_state: Option<Vec<f64>>,
    /// The state just before heel strike.
    pub pre_impact_state: Option<Vec<f64>>,
    /// Floquet multipliers `(re, im)`, largest modulus first.
    pub multipliers: Option<Vec<[f64; 2]>>,
    /// Whether every multiplier lies inside the unit circle.
    pub stable: Option<bool>,
    /// Whether the stance foot sticks along the whole step.
    pub sticking: Option<bool>,
    /// `μ_stick = max |f_t/f_n|` along a sticking step (P2 eq. 29).
    pub mu_stick: Option<f64>,
    /// `|F_t/F_n|` of the sticking impulse at heel strike (P2 eq. 13).
    pub impact_impulse_ratio: Option<f64>,
    /// `‖P(y) − y‖` in the chart's scales.
    pub residual: Option<f64>,
    /// Why Newton stopped, when it did not converge.
    pub reason: Option<crate::hybrid::section::NewtonStop>,
    /// The rimless wheel's gait proved in interval arithmetic
    /// ([`crate::walking::proof`]): the rate, multiplier and `μ_stick` enclosed, or why no
    /// proof. `None` for the compass biped (no explicit step map).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proof: Option<crate::walking::proof::RimlessGaitProof>,
}

impl From<&WalkerGait> for GaitReport {
    fn from(g: &WalkerGait) -> Self {
        let c = |v: f64| g.converged.then_some(v);
        GaitReport {
            converged: g.converged,
            period: c(g.period),
            post_impact_state: g.converged.then(|| g.post_impact_state.clone()),
            pre_impact_state: g.converged.then(|| g.pre_impact_state.clone()),
            multipliers: g.converged.then(|| g.multipliers.clone()),
            stable: g.converged.then_some(g.stable),
            sticking: g.converged.then_some(g.sticking),
            mu_stick: (g.converged && g.sticking).then_some(g.mu_stick),
            impact_impulse_ratio: c(g.impact_impulse_ratio),
            residual: c(g.residual),
            reason: g.reason.clone(),
            proof: None,
        }
    }
}

/// P2's periodic gait from `guess` (rimless wheel: `θ̇` after impact in units of `1/τ_c`;
/// compass biped: `θ₁, θ̇₁, θ̇₂`: the walker's [`WalkerChart::section_names`]); by default the
/// closed form (27) or P2's gait, and the search from nothing if that does not converge
/// ([`crate::walking::gait`]). `rtol`: the integration tolerance (default
/// [`GaitSettings::default`]'s).
pub fn walker_gait(m: &WalkerModel, guess: Option<&[f64]>, rtol: Option<f64>) -> Result<GaitReport, Error> {
    let mut s = GaitSettings::default();
    if let Some(r) = rtol {
        crate::error::fraction("rtol", r)?;
        s.rtol = r;
    }
    if guess.is_some_and(|g| g.iter().any(|x| !x.is_finite())) {
        return Err(arg("guess", "every value must be a finite number"));
    }
    let y = match guess {
        Some(g) => {
            let w = MultibodyWalker::new(m)?;
            values_for(w.kind_name(), "guess", w.section_names(), g)?;
            Some(w.section_from_user(g))
        }
        None => None,
    };
    let found = crate::walking::gait(m, y.as_ref(), &s)?;
    // The rimless wheel's sticking gait, proved from the closed form (27) whatever the
    // floating-point search did (also when it did not converge, e.g. with μ within round-off of
    // μ_stick, and when the gait found slips: the proof then says which sticking condition
    // fails).
    let proof = match m {
        WalkerModel::Rimless(r) => {
            let (_, rate) = crate::walking::rimless_closed_form(r);
            Some(crate::walking::proof::prove_rimless_gait(r, rate))
        }
        _ => None,
    };
    Ok(GaitReport { proof, ..GaitReport::from(&found) })
}

/// `values` has one entry per name (an [`Error::Argument`] for `option` lists them otherwise).
fn values_for(kind: &str, option: &str, names: &[&str], values: &[f64]) -> Result<(), Error> {
    if values.len() == names.len() {
        return Ok(());
    }
    let n = names.len();
    Err(arg(
        option,
        format!(
            "the {kind} takes {n} value{} ({}), got {}",
            if n == 1 { "" } else { "s" },
            names.join(","),
            values.len()
        ),
    ))
}

/// The compass biped's grid of `(θ₁, θ₂)` on which the sign of `B` is evaluated.
#[derive(Debug, Clone)]
pub struct AngleGrid {
    /// Smallest angle (rad).
    pub lo: f64,
    /// Largest angle (rad).
    pub hi: f64,
    /// Points per axis.
    pub n: usize,
    /// `negative[j][i]`: `B < 0` at `θ₁ = at(i)`, `θ₂ = at(j)`.
    pub negative: Vec<Vec<bool>>,
}

impl AngleGrid {
    /// The `k`-th grid angle.
    pub fn at(&self, k: usize) -> f64 {
        self.lo + (self.hi - self.lo) * k as f64 / (self.n - 1) as f64
    }
}

/// Painlevé's paradox of a walker (`walker painleve`).
#[derive(Debug, Clone)]
pub struct WalkerPainleve {
    /// The friction coefficient used.
    pub mu: f64,
    /// The slip direction `σ = ±1`.
    pub sigma: i8,
    /// The `--json` object: `μ_min`, where `B < 0`, and (compass biped) `ρ_max`.
    pub summary: PainleveSummary,
    /// The compass biped's `B < 0` grid.
    pub grid: Option<AngleGrid>,
}

/// What `walker painleve --json` prints.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum PainleveSummary {
    /// A one-angle walker (the rimless wheel).
    Rimless {
        /// The friction coefficient used.
        mu: f64,
        /// Slip direction `σ = ±1`.
        sigma: i8,
        /// The smallest `μ` with `B < 0` somewhere (P2 eq. 33).
        mu_min: Option<f64>,
        /// The intervals of `θ` (rad) where `B < 0`.
        b_negative: Vec<[f64; 2]>,
    },
    /// A two-angle walker (the compass biped).
    Compass {
        /// The friction coefficient used.
        mu: f64,
        /// Slip direction `σ = ±1`.
        sigma: i8,
        /// The smallest `μ` with `B < 0` somewhere (numerical).
        mu_min: Option<f64>,
        /// The angles `(θ₁, θ₂)` where it is attained.
        mu_min_at: Option<Vec<f64>>,
        /// Where `B < 0` on the grid.
        b_negative: WalkerBNegativeGrid,
        /// The legs' radius of gyration at which the region vanishes for this `μ`.
        rho_max: Option<f64>,
    },
}

/// The compass biped's `B < 0` region on a grid of `(θ₁, θ₂)`.
#[derive(Debug, Clone, Serialize)]
pub struct WalkerBNegativeGrid {
    /// Cells with `B < 0`.
    pub grid_cells: usize,
    /// The grid.
    pub grid: GridSpec,
    /// The range of `θ₁` over those cells (`None` if there are none).
    pub theta1_range: Option<[f64; 2]>,
    /// The range of `θ₂`.
    pub theta2_range: Option<[f64; 2]>,
}

/// A square grid of angles.
#[derive(Debug, Clone, Serialize)]
pub struct GridSpec {
    /// Smallest angle (rad).
    pub theta_min: f64,
    /// Largest angle (rad).
    pub theta_max: f64,
    /// Points per axis.
    pub points_per_axis: usize,
}

impl WalkerPainleve {
    /// Writes the command's files into `dir`: for the rimless wheel the cases of P2's Table 2.1
    /// on a grid of `(θ, θ̇)` (`cases.csv`) and `regions.png` with the sticking gait (Fig. 3.2a);
    /// for the compass biped the `B < 0` grid (`b_negative.csv`, `b_negative.png` with the gait,
    /// Fig. 4.2a), the region for several μ and ρ (`b_negative_mu.png`, `b_negative_rho.png`,
    /// Fig. 4.2e, f) and `μ_min` against ρ (`mu_min_rho.png`).
    pub fn write_files(&self, m: &WalkerModel, dir: &std::path::Path) -> Result<(), Error> {
        use crate::walking::plots;
        std::fs::create_dir_all(dir).map_err(|e| Error::write(dir, e))?;
        let (mu, sigma, s) = (self.mu, self.sigma as f64, WalkerSettings::default());
        let write = |name: &str, text: String| crate::output::write_file(dir, name, &text);
        match (m.with_mu(mu)?, &self.grid) {
            (WalkerModel::Rimless(w), _) => {
                write("cases.csv", crate::walking::painleve::rimless_cases_csv(&w, sigma, 161)?)?;
                let g = crate::walking::gait(&WalkerModel::Rimless(w), None, &GaitSettings::default())?;
                let gy = (g.converged && g.sticking).then(|| g.section_point[0]);
                plots::rimless_regions(&w, sigma, gy, &[], &s, &dir.join("regions.png"))?;
            }
            (WalkerModel::Compass(c), grid) => {
                if let Some(grid) = grid {
                    let mut csv = String::from("theta1,theta2,b_negative\n");
                    for (j, row) in grid.negative.iter().enumerate() {
                        for (i, &neg) in row.iter().enumerate() {
                            csv.push_str(&format!("{},{},{}\n", grid.at(i), grid.at(j), neg));
                        }
                    }
                    write("b_negative.csv", csv)?;
                }
                let g = crate::walking::gait(&WalkerModel::Compass(c), None, &GaitSettings::default())?;
                let gy = g.converged.then_some(g.section_point.as_slice());
                plots::compass_b_map(&c, sigma, gy, &s, &dir.join("b_negative.png"))?;
                plots::compass_mu_min_curve(&c, sigma, 1.25 * c.l, &dir.join("mu_min_rho.png"))?;
                // Fig. 4.2(e, f): the region for μ around the given one, and for ρ up to the leg's.
                let mus: Vec<f64> = [0.75, 0.875, 1.0, 1.125, 1.25].iter().map(|f| f * mu).collect();
                let title = "Compass biped: B < 0 for several mu";
                plots::compass_nested(&c, sigma, &mus, &[], title, &dir.join("b_negative_mu.png"))?;
                let rhos: Vec<f64> = (0..5).map(|k| 0.125 * c.l * k as f64).collect();
                let title = "Compass biped: B < 0 for several rho";
                plots::compass_nested(&c, sigma, &[], &rhos, title, &dir.join("b_negative_rho.png"))?;
            }
        }
        Ok(())
    }
}

/// Where `B < 0` (Painlevé's paradox) for slip direction `sigma = ±1`, with `mu` (default the
/// model's); the smallest `μ` with a paradox.
pub fn walker_painleve(m: &WalkerModel, mu: Option<f64>, sigma: i8) -> Result<WalkerPainleve, Error> {
    if sigma != 1 && sigma != -1 {
        return Err(arg("sigma", format!("must be 1 or -1 (got {sigma})")));
    }
    let mu = m.with_mu(mu.unwrap_or(m.mu()))?.mu();
    let sg = sigma as f64;
    let sys = MultibodyWalker::new(m)?;
    Ok(match m {
        WalkerModel::Rimless(w) => {
            let mm = mu_min(&sys, sg, -1.5, 1.5, 301);
            let iv = b_negative_intervals(&sys, mu, sg, -w.half_angle(), w.half_angle(), 401);
            let summary = PainleveSummary::Rimless { mu, sigma, mu_min: mm.map(|m| m.mu_min), b_negative: iv };
            WalkerPainleve { mu, sigma, summary, grid: None }
        }
        WalkerModel::Compass(c) => {
            let mm = mu_min(&sys, sg, -1.5, 1.5, 121);
            let (n, lo, hi) = (121, -1.0, 1.0);
            let grid = AngleGrid { lo, hi, n, negative: b_negative_grid(&sys, mu, sg, lo, hi, n) };
            let mut cells = Vec::new();
            for (j, row) in grid.negative.iter().enumerate() {
                for (i, &neg) in row.iter().enumerate() {
                    if neg {
                        cells.push((grid.at(i), grid.at(j)));
                    }
                }
            }
            let bbox = |f: fn(&(f64, f64)) -> f64| {
                cells.iter().map(f).fold([f64::INFINITY, f64::NEG_INFINITY], |b, x| [b[0].min(x), b[1].max(x)])
            };
            let summary = PainleveSummary::Compass {
                mu,
                sigma,
                mu_min: mm.as_ref().map(|m| m.mu_min),
                mu_min_at: mm.map(|m| m.at),
                b_negative: WalkerBNegativeGrid {
                    grid_cells: cells.len(),
                    grid: GridSpec { theta_min: lo, theta_max: hi, points_per_axis: n },
                    theta1_range: (!cells.is_empty()).then(|| bbox(|p| p.0)),
                    theta2_range: (!cells.is_empty()).then(|| bbox(|p| p.1)),
                },
                rho_max: compass_rho_max(c, mu, sg)?,
            };
            WalkerPainleve { mu, sigma, summary, grid: Some(grid) }
        }
    })
}

/// What `walker slip --json` prints: how the slip ended (rimless wheel: times in units of
/// `τ_c`).
#[derive(Debug, Clone, Serialize)]
pub struct SlipReport {
    /// How the slip episode ended.
    pub outcome: crate::walking::slip::SlipOutcome,
    /// When.
    pub t_end: f64,
    /// The largest normal force at the stance foot during the slip.
    pub fn_max: f64,
    /// The state `(q, q̇)` at the end.
    pub state: Vec<f64>,
    /// `A` (P2 eq. 21) at the end.
    #[serde(rename = "A")]
    pub a: f64,
    /// `B` at the end.
    #[serde(rename = "B")]
    pub b: f64,
    /// How an end at P2's corner p₁ was read (the evidence of jam, separation or corner).
    pub approach: Option<crate::walking::slip::Approach>,
}

/// What `walker slip --jam-threshold --json` prints.
#[derive(Debug, Clone, Serialize)]
pub struct JamThresholdReport {
    /// The smallest initial slip speed that jams (`None`: even `max_speed` does not).
    pub jam_threshold: Option<f64>,
}

/// A walker's slip start `(q, q̇)` (SI) from `state` in the front ends' units.
fn slip_start<W: WalkerChart>(w: &W, state: &[f64]) -> Result<(DVector<f64>, DVector<f64>), Error> {
    if state.iter().any(|x| !x.is_finite()) {
        return Err(arg("state", "every value must be a finite number"));
    }
    values_for(w.kind_name(), "state", w.slip_state_names(), state)?;
    Ok(w.slip_state_from_user(state))
}

/// A slip of the stance foot from `state` (rimless wheel `θ, θ̇, ẋ` with rates in units of
/// `1/τ_c` and `l/τ_c`; compass biped `θ₁, θ₂, θ̇₁, θ̇₂, ẋ` in SI: the walker's
/// [`WalkerChart::slip_state_names`]) until it ends (`walker slip`).
pub fn walker_slip(m: &WalkerModel, state: &[f64]) -> Result<SlipReport, Error> {
    let s = WalkerSettings::default();
    let w = MultibodyWalker::new(m)?;
    let (q, v) = slip_start(&w, state)?;
    let e = crate::walking::slip_in_walker_coordinates(&w, slip_outcome(&w, &q, &v, &s));
    Ok(SlipReport {
        outcome: e.outcome,
        t_end: e.t_end / w.time_unit(),
        fn_max: e.fn_max,
        state: e.state,
        a: e.a_end,
        b: e.b_end,
        approach: e.approach,
    })
}

/// The smallest initial slip speed up to `max_speed` (in the walker's units of speed) that jams
/// from `state` (`walker slip --jam-threshold`): the state's own slip speed `ẋ` (its last
/// value) replaced, every other value of it kept, as `walker slip` reads it.
pub fn walker_jam_threshold(m: &WalkerModel, state: &[f64], max_speed: f64) -> Result<JamThresholdReport, Error> {
    let s = WalkerSettings::default();
    positive("max_speed", max_speed)?;
    let w = MultibodyWalker::new(m)?;
    slip_start(&w, state)?;
    let with_speed = |x: f64| {
        let mut st = state.to_vec();
        if let Some(last) = st.last_mut() {
            *last = x;
        }
        w.slip_state_from_user(&st)
    };
    let jam_threshold = crate::painleve::slip::jam_threshold_from(
        &w,
        with_speed,
        max_speed,
        crate::multibody::painleve::JAM_SPEED_TOL,
        &s,
    );
    Ok(JamThresholdReport { jam_threshold })
}
