//! Basins of attraction of 3-D gaits: a grid over one or two coordinates of the gait's section
//! chart ([`crate::spatial::section`]: tangent displacements `d.NAME` and velocities `NAME`,
//! as `gait` reports them), each cell lifted onto the section (the struck contacts closed, the
//! stance contacts at rest), run for up to `steps` strikes by the event driver and classified
//! as the planar basin's cells are ([`crate::multibody::basin`], whose plan, cells, figure and
//! files it shares):
//!
//! - `gait 0`: a strike lands within `capture_tol` (in the chart's scales) of the gait, which
//!   counts only when it is stable (or stable but for a neutral multiplier, a wheel's heading);
//! - `period-p`: the strikes settle onto another orbit of period `p ≤ 8`;
//! - `walking`: still striking after `steps` strikes, not settled;
//! - `fell`: the centre of mass below `fall_height` of its base height over the first ground
//!   plane, or no strike for `max_step_time` time scales while moving;
//! - `stopped`, `slipped`, `painleve`, `zeno`, `failed`, `no-state` as in the plane.
//!
//! The base state is the gait's (found from the scene's `[initial]`, or from `state`): the
//! unvaried coordinates keep its values. A grid on the states just before a strike is planar
//! only (`before_strike`).

use std::sync::atomic::{AtomicU64, Ordering};

use nalgebra::{DMatrix, DVector};

use super::spatial::SpatialModel;
use super::spatial_gait::{spatial_gait, symmetry_of};
use crate::hybrid::driver::EventRecord;
use crate::hybrid::section::SectionChart;
use crate::hybrid::{DriverSettings, EventDriver, Tolerances, ZenoRule};
use crate::multibody::basin::{
    check_axes, check_cells, fractions, grid, Basin, BasinAxis, BasinCell, BasinPlan, BasinSettings, CellWatch,
    Outcome, EVENTS_PER_STRIKE,
};
use crate::multibody::gait::GaitSettings;
use crate::spatial::events::{Contact3Mode, EventScene, Modes3};
use crate::spatial::section::SpatialChart;
use crate::Error;

type State = DMatrix<f64>;

/// The plan of a 3-D basin over the chart coordinates `vary`: the gait (from `state`, a state
/// `q` then `v` run through the `[gait]` table's settling, or the scene's `[initial]`) is the
/// base state, and the stable gait names outcome `gait 0`.
pub(crate) fn spatial_basin_plan(
    m: &SpatialModel,
    vary: &[String],
    state: Option<&[f64]>,
    settings: &BasinSettings,
) -> Result<BasinPlan, Error> {
    settings.validate()?;
    if settings.before_strike {
        return Err(Error::argument(
            "before_strike",
            "a grid before the strike is laid on planar mechanisms; a 3-D basin lies just after the strike",
        ));
    }
    if vary.is_empty() || vary.len() > 2 {
        return Err(Error::argument("vary", format!("give one or two section coordinates, got {}", vary.len())));
    }
    let g = spatial_gait(m, state, &GaitSettings::spatial())?;
    let Some(x) = g.state() else {
        return Err(Error::model(
            "gait",
            format!(
                "{}: no gait to lay a basin around: {}",
                m.path,
                g.reason.as_deref().unwrap_or("Newton's method did not converge")
            ),
        ));
    };
    let nq = m.tree.nq();
    let stable = g.stable || g.stable_but_neutral;
    let plan = BasinPlan {
        vary: vary.to_vec(),
        q: x[..nq].to_vec(),
        v: x[nq..].to_vec(),
        post: x.clone(),
        gaits: if stable { vec![x.clone()] } else { vec![] },
        periods: if stable { vec![g.period.unwrap_or(f64::NAN)] } else { vec![] },
        settings: *settings,
    };
    // The names must be the chart's.
    spatial_basin_cells(m, &plan, &[], &|_, _| {})?;
    Ok(plan)
}

/// The cells at `points` of a 3-D basin planned by [`spatial_basin_plan`], in parallel;
/// `progress(done, total)` from worker threads.
pub(crate) fn spatial_basin_cells(
    m: &SpatialModel,
    plan: &BasinPlan,
    points: &[Vec<f64>],
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<Vec<BasinCell>, Error> {
    plan.settings.validate()?;
    let (nq, nv) = (m.tree.nq(), m.tree.nv());
    let finite = |x: &[f64], n: usize| x.len() == n && x.iter().all(|v| v.is_finite());
    if !finite(&plan.post, nq + nv) || !plan.gaits.iter().all(|g| finite(g, nq + nv)) {
        return Err(Error::argument("plan", format!("its states need {} finite numbers (q then v)", nq + nv)));
    }
    check_cells(plan, points)?;
    let spec = m.gait.as_ref().ok_or_else(|| {
        Error::input(
            &m.path,
            "gait",
            "no [gait] table: a basin is laid on a gait's section (docs/models.md, \"Gaits in 3-D\")",
        )
    })?;
    let scene = m.scene(None, 0.0);
    let post = State::from_column_slice(nq + nv, 1, &plan.post);
    let sys = EventScene::with_stops(&scene, &plan.post[..nq])?;
    let feet = sys.shape_contacts();
    let chart = SpatialChart::new(&sys, &post, &spec.translation, symmetry_of(spec, &sys)?);
    let names = chart.names(&m.velocities);
    let slots = plan
        .vary
        .iter()
        .map(|n| {
            names.iter().position(|c| c == n).ok_or_else(|| {
                Error::argument("vary", format!("'{n}' is not a coordinate of the section ({})", names.join(", ")))
            })
        })
        .collect::<Result<Vec<usize>, Error>>()?;
    let y0 = chart.chart(&post);
    let scale = chart.scale();
    let gaits: Vec<DVector<f64>> =
        plan.gaits.iter().map(|g| chart.chart(&State::from_column_slice(nq + nv, 1, g))).collect();
    let s = &plan.settings;
    let ts = sys.time();
    // The fall: the centre of mass's height over the first ground plane.
    let floor = m.planes.first().map(|p| p.plane);
    let height = |q: &[f64]| floor.as_ref().map(|p| (centre_of_mass(m, q) - p.point).dot(&p.normal));
    let h0 = height(&plan.post[..nq]).filter(|h| *h > 0.0);
    let ke0 = m.tree.kinetic_energy(&plan.post[..nq], &plan.post[nq..]);
    let driver = EventDriver {
        settings: DriverSettings {
            tol: Tolerances { rtol: s.rtol, atol: s.rtol },
            t_max: s.max_step_time * ts * (s.steps + 1) as f64,
            max_events: EVENTS_PER_STRIKE * s.steps,
            zeno: ZenoRule::Extrapolate { tolerance: 1e-9 },
            ..DriverSettings::default()
        },
    };
    let total = points.len() as u64;
    let done = AtomicU64::new(0);
    // A strike is an impact of any foot (a 3-D gait's section), not of a joint's stop.
    let strike = |ev: &EventRecord<State, Modes3>| ev.info.contact.is_some_and(|c| feet.contains(&c));
    let on_chart = |x: &State| chart.chart(x);
    let slips = |mode: &Modes3| (0..mode.len()).any(|i| matches!(mode.get(i), Contact3Mode::Slip(_)));
    let fall = h0.map(|h| s.fall_height * h);
    let fallen = |x: &State| fall.is_some_and(|f| height(&x.as_slice()[..nq]).is_some_and(|h| h < f));
    use rayon::prelude::*;
    let cells = points
        .par_iter()
        .map(|values| {
            let mut cell = BasinCell { values: values.clone(), outcome: Outcome::NoState, strikes: 0, t: 0.0 };
            let mut y = y0.clone();
            for (j, &slot) in slots.iter().enumerate() {
                y[slot] = values[j];
            }
            let x = chart.lift(&y);
            if x.iter().all(|v| v.is_finite()) {
                let mut w =
                    CellWatch::new(&strike, &on_chart, &slips, &fallen, &scale, &gaits, s, s.max_step_time * ts);
                let run = driver.run(&sys, 0.0, x, &[], &mut w);
                let (q, v) = run.state.as_slice().split_at(nq);
                cell = w.cell(values, &run.termination, run.t, m.tree.kinetic_energy(q, v) <= 1e-6 * ke0);
            }
            let d = done.fetch_add(1, Ordering::Relaxed) + 1;
            progress(d, total);
            cell
        })
        .collect();
    Ok(cells)
}

/// The basin of the 3-D scene `m`'s gait over the grid `axes` (module docs).
pub(crate) fn spatial_basin(
    m: &SpatialModel,
    axes: &[BasinAxis],
    state: Option<&[f64]>,
    settings: &BasinSettings,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<Basin, Error> {
    let names = check_axes(axes)?;
    let plan = spatial_basin_plan(m, &names, state, settings)?;
    let cells = spatial_basin_cells(m, &plan, &grid(axes), progress)?;
    Ok(Basin { axes: axes.to_vec(), fractions: fractions(&cells), plan, gaits: vec![], cells })
}

/// The centre of mass of the tree at `q` (world).
fn centre_of_mass(m: &SpatialModel, q: &[f64]) -> nalgebra::Vector3<f64> {
    let (mut c, mut mass) = (nalgebra::Vector3::zeros(), 0.0);
    for (b, body) in m.tree.bodies().iter().enumerate() {
        c += body.inertia.mass * m.tree.point_position(q, b, &body.inertia.com);
        mass += body.inertia.mass;
    }
    if mass > 0.0 {
        c / mass
    } else {
        c
    }
}
