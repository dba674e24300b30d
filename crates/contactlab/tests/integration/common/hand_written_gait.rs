//! The gaits of P2's hand-written walkers (`contactlab::mechanics::walkers`: their own
//! coordinates, mass matrices and Jacobians, derived by hand), by Newton's method on the hybrid
//! core's return map in P2's section coordinates with difference Jacobians: an independent route
//! to the gaits the library finds on the walkers' multibody models (`walking::gait`: another
//! model, another chart, exact derivatives).

#![allow(dead_code)] // each test binary uses part of it

use std::ops::ControlFlow;

use contactlab::hybrid::driver::{EventRecord, PoincareSection};
use contactlab::hybrid::lagrangian::{split, ContactMode, Lagrangian, Modes};
use contactlab::hybrid::section::{Derivatives, ReturnMap, SectionChart};
use contactlab::hybrid::{DriverSettings, EventDriver, EventKind, Observer, Step, Tolerances};
use contactlab::mechanics::walkers::{CompassBiped, RimlessWheel};
use contactlab::mechanics::ContactSystem;
use contactlab::walking::{sticking_impulse, WalkerChart};
use nalgebra::{DMatrix, DVector};

/// A hand-written walker's gait.
#[derive(Debug, Clone)]
pub struct HandGait {
    pub period: f64,
    pub section_point: Vec<f64>,
    pub multipliers: Vec<[f64; 2]>,
    pub stable: bool,
    /// The stance foot sticks along the whole step and heel strike is the only event.
    pub sticking: bool,
    pub mu_stick: f64,
    /// `|F_t/F_n|` of the sticking impulse (13) at heel strike.
    pub impact_impulse_ratio: f64,
}

struct Chart<'a, W> {
    walker: &'a W,
    chart: fn(&W, &[f64], &[f64]) -> Vec<f64>,
    scale: Vec<f64>,
}

impl<W: WalkerChart> SectionChart<DMatrix<f64>> for Chart<'_, W> {
    fn dim(&self) -> usize {
        self.scale.len()
    }
    fn lift(&self, y: &DVector<f64>) -> DMatrix<f64> {
        self.walker.lift(y)
    }
    fn chart(&self, x: &DMatrix<f64>) -> DVector<f64> {
        DVector::from_vec((self.chart)(self.walker, x.column(0).as_slice(), x.column(1).as_slice()))
    }
    fn scale(&self) -> DVector<f64> {
        DVector::from_column_slice(&self.scale)
    }
}

/// The largest sticking force ratio along the step, whether the stance foot ever left stick,
/// and the state before heel strike.
struct StepObserver<'a, W> {
    lag: &'a Lagrangian<&'a W>,
    ratio_max: f64,
    always_stick: bool,
    other_events: bool,
    pre_impact: Option<DMatrix<f64>>,
}

impl<W: ContactSystem> StepObserver<'_, W> {
    fn ratio(lag: &Lagrangian<&W>, t: f64, x: &DMatrix<f64>, mode: &Modes) -> f64 {
        let (q, v) = split(x);
        match lag.solve_mode(mode, t, &q, &v) {
            Some(s) if s.lambda_n[0] > 0.0 => (s.lambda_t[0] / s.lambda_n[0]).abs(),
            _ => f64::NEG_INFINITY,
        }
    }
}

impl<W: ContactSystem> Observer<DMatrix<f64>, Modes> for StepObserver<'_, W> {
    fn on_start(&mut self, t: f64, x: &DMatrix<f64>, mode: &Modes) {
        if mode.get(0) == ContactMode::Stick {
            self.ratio_max = self.ratio_max.max(Self::ratio(self.lag, t, x, mode));
        } else {
            self.always_stick = false;
        }
    }
    fn on_step(&mut self, step: &Step<DMatrix<f64>>, t_end: f64, mode: &Modes) -> ControlFlow<()> {
        if mode.get(0) == ContactMode::Stick {
            let lag = self.lag;
            self.ratio_max = step.max_of(t_end, 4, self.ratio_max, |t, x| Self::ratio(lag, t, x, mode));
        } else {
            self.always_stick = false;
        }
        ControlFlow::Continue(())
    }
    fn on_event(&mut self, ev: &EventRecord<DMatrix<f64>, Modes>) -> ControlFlow<()> {
        if ev.info.kind == EventKind::Section {
            return ControlFlow::Continue(());
        }
        if ev.info.kind == EventKind::Impact && ev.info.contact == Some(1) {
            self.pre_impact = Some(ev.before.clone());
            return ControlFlow::Break(());
        }
        self.other_events = true;
        ControlFlow::Continue(())
    }
}

fn gait<W: WalkerChart>(chart: Chart<'_, W>, guess: &DVector<f64>, rtol: f64) -> Option<HandGait> {
    let w = chart.walker;
    let lag = Lagrangian::new(w);
    let driver = || {
        EventDriver::new(DriverSettings {
            tol: Tolerances { rtol, atol: rtol },
            t_max: 100.0 * w.time_scale(),
            max_events: 50,
            ..Default::default()
        })
    };
    let map = ReturnMap {
        system: &lag,
        section: PoincareSection::AfterEvent { kind: EventKind::Impact, contact: Some(1) },
        chart,
        driver: driver(),
        derivatives: Derivatives::Differences,
    };
    let fp = map.fixed_point(guess, 1e-10, 30);
    if !fp.converged {
        return None;
    }
    let x0 = w.lift(&DVector::from_vec(fp.y.clone()));
    let mut obs = StepObserver { lag: &lag, ratio_max: 0.0, always_stick: true, other_events: false, pre_impact: None };
    driver().run(&lag, 0.0, x0, &[], &mut obs);
    let (q, v) = split(&obs.pre_impact?);
    let (ft, fn_) = sticking_impulse(w, &q, &v);
    Some(HandGait {
        period: fp.period,
        section_point: fp.y,
        stable: fp.spectral_radius < 1.0,
        multipliers: fp.multipliers,
        sticking: obs.always_stick && !obs.other_events,
        mu_stick: obs.ratio_max,
        impact_impulse_ratio: (ft / fn_).abs(),
    })
}

/// The rimless wheel's gait near the post-impact rate `rate` (SI), chart `θ̇`.
pub fn rimless(w: &RimlessWheel, rate: f64, rtol: f64) -> Option<HandGait> {
    let chart = Chart { walker: w, chart: |_, _, v| vec![v[2]], scale: vec![1.0 / w.tau_c()] };
    gait(chart, &DVector::from_element(1, rate), rtol)
}

/// The compass biped's gait near `(θ₁, θ̇₁, θ̇₂)` (SI).
pub fn compass(c: &CompassBiped, guess: &[f64], rtol: f64) -> Option<HandGait> {
    let w = 1.0 / c.time_scale();
    let chart = Chart { walker: c, chart: |_, q, v| vec![q[0], v[0], v[1]], scale: vec![1.0, w, w] };
    gait(chart, &DVector::from_column_slice(guess), rtol)
}
