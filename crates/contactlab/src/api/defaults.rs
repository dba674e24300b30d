//! One set of defaults (issue #41): the default of every setting the front ends expose, in one
//! place. The settings with a struct take it from its `Default` impl; the commands with loose
//! arguments from the constants here. The CLI's `default_value_t` and the Python functions'
//! defaults are these expressions (Python through [`defaults`]), and a test per front end
//! compares its defaults with [`defaults`].

use crate::continuation::Settings as ContinuationSettings;
use crate::multibody::simulate::SimulateSettings;
use crate::multibody::{basin::BasinSettings, gait::GaitSettings, painleve::PainleveSettings};
use crate::twocontact::poincare::DEFAULT_SAMPLES;

/// `max_speed` of the jam-threshold search (`walker slip` and `slip --jam-threshold`: the
/// walker's units of speed, or m/s).
pub const JAM_MAX_SPEED: f64 = 5.0;
/// `walker painleve`: the slip direction `σ`.
pub const WALKER_SIGMA: i8 = 1;
/// `equilibrium simulate` (P1's ZOD): end time (s) and largest number of events.
pub const P1_T_MAX: f64 = 60.0;
/// See [`P1_T_MAX`].
pub const P1_MAX_EVENTS: usize = 2000;
/// `zeno simulate` (P3): end time (s) and largest number of events.
pub const ZENO_T_MAX: f64 = 60.0;
/// See [`ZENO_T_MAX`].
pub const ZENO_MAX_EVENTS: usize = 100_000;
/// `zeno bound` (P3's Theorem 1): starts per axis of Ω₂.
pub const ZENO_BOUND_GRID: usize = 11;
/// `zeno continue` (P3, continuation in `e`): the largest `e` (its steps are
/// [`crate::continuation::Settings::default`]'s).
pub const ZENO_E_MAX: f64 = 1.0;
/// `eqset analyze` (P5): grid points of the scan for the sets.
pub const EQSET_ANALYZE_GRID: usize = 4000;
/// `eqset simulate` (P5): end time (s).
pub const EQSET_T_MAX: f64 = 10.0;
/// `fixture mu-sweep` (P4): the largest scale factor of the friction coefficients and the grid
/// points in `[0, max_scale]`.
pub const MU_SWEEP_MAX_SCALE: f64 = 4.0;
/// See [`MU_SWEEP_MAX_SCALE`].
pub const MU_SWEEP_POINTS: usize = 81;

/// The library's default of every setting the front ends expose, by command (keys are the CLI
/// flags in snake case, which are also the Python arguments' names).
pub fn defaults() -> serde_json::Value {
    let (sim, gait, basin) = (SimulateSettings::default(), GaitSettings::default(), BasinSettings::default());
    let cont = ContinuationSettings::default();
    let spatial = super::SimulateSettings::default();
    serde_json::json!({
        "simulate": {
            "t_max": sim.t_max,
            "max_events": sim.max_events,
            "rtol": sim.rtol,
            "per_step": sim.per_step,
            "h": spatial.h,
            "restitution": spatial.restitution,
            "method": spatial.method.to_string(),
            "max_sweeps": spatial.max_sweeps,
            "max_steps": spatial.max_steps,
        },
        // (`gait --rtol` is the engine's: 1e-10 planar, 1e-12 in 3-D, `api::gait_settings`.)
        "gait": {},
        "stance": {"joints": "locked", "friction": "coulomb", "touch": super::StanceSettings::default().touch},
        "basin": {
            "steps": basin.steps,
            "capture_tol": basin.capture_tol,
            "fall_height": basin.fall_height,
            "max_step_time": basin.max_step_time,
            "rtol": basin.rtol,
        },
        "continue": {
            "step": cont.step,
            "max_step": cont.max_step,
            "max_points": cont.max_points,
            "max_doublings": cont.max_doublings,
            "rtol": gait.rtol,
        },
        "painleve": {"points": PainleveSettings::default().points},
        "slip": {"max_speed": JAM_MAX_SPEED},
        "walker slip": {"max_speed": JAM_MAX_SPEED},
        "walker painleve": {"sigma": WALKER_SIGMA},
        "equilibrium maps": {"samples": DEFAULT_SAMPLES},
        "equilibrium classify": {"samples": DEFAULT_SAMPLES},
        "equilibrium atlas": {"samples": DEFAULT_SAMPLES},
        "equilibrium simulate": {"t_max": P1_T_MAX, "max_events": P1_MAX_EVENTS},
        "zeno simulate": {"t_max": ZENO_T_MAX, "max_events": ZENO_MAX_EVENTS},
        "zeno bound": {"grid": ZENO_BOUND_GRID},
        "zeno continue": {"e_max": ZENO_E_MAX, "step": cont.step, "max_step": cont.max_step, "max_points": cont.max_points},
        "eqset analyze": {"grid": EQSET_ANALYZE_GRID},
        "eqset simulate": {"t_max": EQSET_T_MAX},
        "fixture mu-sweep": {"max_scale": MU_SWEEP_MAX_SCALE, "steps": MU_SWEEP_POINTS},
    })
}
