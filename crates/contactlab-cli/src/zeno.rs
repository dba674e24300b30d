//! `contactlab zeno ...`: completed Lagrangian hybrid systems and Zeno periodic orbits (P3).

use std::path::PathBuf;

use clap::{Args, Subcommand};
use contactlab::zeno::bound::Epsilons;
use contactlab::zeno::model;
use contactlab::zeno::plots;

use crate::{print_json, write_json, Common, Failure};

#[derive(Subcommand, Debug)]
pub enum ZenoCommand {
    /// Simulate the completed execution from the model's [initial] state: time plot with
    /// constrained phases solid, free phases dashed, impacts marked (P3 Figs. 2b, 4, 5).
    /// --out writes trajectory.csv, events.csv and time.png.
    Simulate(SimulateArgs),
    /// The simple (e = 0) or Zeno (e > 0) periodic orbit as a fixed point of the return map on
    /// the constraint surface S, with its multipliers ("converged": false when none is found).
    /// --out writes the phase portraits of one period (phase_theta1.png, phase_theta2.png) and
    /// orbit.csv.
    Orbit(OrbitArgs),
    /// Theorem 1: the quantities (10) over the neighbourhood Omega, conditions (11)-(15) and the
    /// largest e they guarantee, from the simple orbit of the model with e = 0.
    Bound(BoundArgs),
    /// Continuation of the Zeno periodic orbit in e from 0 until its constrained phase vanishes.
    /// --out writes branch.csv and branch_{duration,period,gamma}.png.
    Continue(ContinueArgs),
}

impl ZenoCommand {
    /// The command's output directory, if given.
    pub fn out_dir(&mut self) -> Option<&mut PathBuf> {
        match self {
            ZenoCommand::Simulate(a) => a.common.out.as_mut(),
            ZenoCommand::Orbit(a) => a.common.out.as_mut(),
            ZenoCommand::Bound(a) => a.common.out.as_mut(),
            ZenoCommand::Continue(a) => a.common.out.as_mut(),
        }
    }
}

#[derive(Args, Debug)]
pub struct SimulateArgs {
    #[arg(help = contactlab::api::registry::model_help("zeno simulate"))]
    model: PathBuf,
    /// End time (s).
    #[arg(long, default_value_t = contactlab::api::ZENO_T_MAX)]
    t_max: f64,
    /// Override the model's coefficient of restitution.
    #[arg(long)]
    e: Option<f64>,
    /// Largest number of events.
    #[arg(long, default_value_t = contactlab::api::ZENO_MAX_EVENTS)]
    max_events: usize,
    #[command(flatten)]
    common: Common,
}

#[derive(Args, Debug)]
pub struct OrbitArgs {
    #[arg(help = contactlab::api::registry::model_help("zeno orbit"))]
    model: PathBuf,
    /// Override the model's coefficient of restitution.
    #[arg(long)]
    e: Option<f64>,
    #[command(flatten)]
    common: Common,
}

#[derive(Args, Debug)]
pub struct BoundArgs {
    #[arg(help = contactlab::api::registry::model_help("zeno bound"))]
    model: PathBuf,
    /// ε₁: bound on |z − z*| (rad).
    #[arg(long)]
    eps1: f64,
    /// ε₂: bound on |ż − ż*| (rad/s).
    #[arg(long)]
    eps2: f64,
    /// ε₃: bound on h (rad).
    #[arg(long)]
    eps3: f64,
    /// Starts per axis of Ω₂ sampled for Assumption 1 (κ and γ).
    #[arg(long, default_value_t = contactlab::api::ZENO_BOUND_GRID as u32, value_parser = clap::value_parser!(u32).range(contactlab::api::flag_range(contactlab::api::BOUND_GRID)))]
    grid: u32,
    #[command(flatten)]
    common: Common,
}

#[derive(Args, Debug)]
pub struct ContinueArgs {
    #[arg(help = contactlab::api::registry::model_help("zeno continue"))]
    model: PathBuf,
    /// Largest e.
    #[arg(long, default_value_t = contactlab::api::ZENO_E_MAX)]
    e_max: f64,
    /// First step, as a fraction of the range of e (arclength in scaled units; at most --max-step).
    #[arg(long, default_value_t = contactlab::continuation::Settings::default().step)]
    step: f64,
    /// Largest step (same units).
    #[arg(long, default_value_t = contactlab::continuation::Settings::default().max_step)]
    max_step: f64,
    /// Largest number of orbits on the branch.
    #[arg(long, default_value_t = contactlab::continuation::Settings::default().max_points)]
    max_points: usize,
    #[command(flatten)]
    common: Common,
}

pub fn run(cmd: ZenoCommand) -> Result<(), Failure> {
    match cmd {
        ZenoCommand::Simulate(a) => simulate(a),
        ZenoCommand::Orbit(a) => orbit(a),
        ZenoCommand::Bound(a) => bound(a),
        ZenoCommand::Continue(a) => continuation(a),
    }
}

fn simulate(a: SimulateArgs) -> Result<(), Failure> {
    let m = model::read(&a.model)?;
    let m = match a.e {
        Some(e) => m.with_e(e)?,
        None => m,
    };
    let e = m.e();
    let (sim, summary) = contactlab::api::zeno_simulate(&m, a.t_max, a.max_events)?;
    let names = contactlab::api::zeno_coordinates(&m);
    if let Some(dir) = &a.common.out {
        plots::write_simulation(&sim, names, dir, &format!("Completed execution, e = {e}"))?;
    }
    let first_zeno = summary.first_zeno_time;
    if a.common.json {
        print_json(&summary)?;
    } else {
        println!("{}: e = {e}, {} impacts, {} Zeno points", a.model.display(), sim.impacts, sim.zeno_points);
        if let Some(t) = first_zeno {
            println!("  first Zeno point at t = {t}");
        }
        println!("  constrained for {:.6} s of {:.6} s", sim.constrained_time, sim.samples.last().map_or(0.0, |s| s.t));
        println!("  ended: {}", contactlab::output::kebab(&sim.termination));
    }
    Ok(())
}

fn orbit(a: OrbitArgs) -> Result<(), Failure> {
    let m = model::read(&a.model)?;
    let m = match a.e {
        Some(e) => m.with_e(e)?,
        None => m,
    };
    let o = contactlab::api::zeno_orbit(&m, &a.model.display().to_string())?;
    let sys = o.system;
    if let Some(dir) = &a.common.out {
        o.write_files(dir)?;
    }
    if a.common.json {
        print_json(&o)?;
    } else {
        println!("{}: e = {}", a.model.display(), sys.e);
        let f = |v: Option<f64>| v.unwrap_or(f64::NAN);
        if o.converged {
            let kind = if o.zeno == Some(true) { "Zeno" } else { "simple" };
            println!("  {kind} periodic orbit, period {:.6} s, x* = {:?}", f(o.period), o.fixed_point.as_deref());
            println!(
                "  constrained phase {:.6} s, {} impacts per cycle",
                f(o.constrained_duration),
                o.impacts_per_cycle.unwrap_or(0)
            );
            let check = o.gamma_iterates.map_or(String::new(), |g| format!(" (iterates contract at {g:.6})"));
            println!(
                "  gamma = {:.6}{check}: {}",
                f(o.gamma),
                if o.stable == Some(true) { "stable" } else { "unstable" }
            );
        } else {
            println!(
                "  no periodic orbit found: {}",
                o.reason.as_ref().map_or("Newton did not converge".to_string(), |r| r.to_string())
            );
        }
    }
    Ok(())
}

fn bound(a: BoundArgs) -> Result<(), Failure> {
    let m = model::read(&a.model)?;
    let eps = Epsilons { eps1: a.eps1, eps2: a.eps2, eps3: a.eps3 };
    let b = contactlab::api::zeno_bound(&m, &a.model.display().to_string(), eps, a.grid as usize)?;
    if let Some(dir) = &a.common.out {
        write_json(dir, "bound.json", &b)?;
    }
    if a.common.json {
        print_json(&b)?;
    } else {
        println!("{}: Theorem 1 with eps = ({}, {}, {})", a.model.display(), a.eps1, a.eps2, a.eps3);
        println!("  x* = {:?}, v* = {:.6}", b.x_star, b.v_star);
        println!("  a_min = {:.6}, a_max = {:.6}, delta = {:.6}", b.a_min, b.a_max, b.delta);
        println!("  z'_max = {:.6}, z''_max = {:.6}, eta_max = {:.6}", b.z_dot_max, b.z_ddot_max, b.eta_max);
        println!("  kappa = {:.6} ({} starts on Omega_2); condition (11): {}", b.kappa, b.samples, b.condition11);
        for (name, l) in [("multiplier", &b.with_multiplier), ("Assumption 1 on the box", &b.with_assumption)] {
            println!("  gamma = {:.6} ({name}): limits (12)-(15) = {:?}, e_max = {}", l.gamma, l.e_limits, l.e_max);
        }
    }
    Ok(())
}

fn continuation(a: ContinueArgs) -> Result<(), Failure> {
    let m = model::read(&a.model)?;
    let bar = indicatif::ProgressBar::new(1000);
    let settings = contactlab::continuation::Settings {
        to: a.e_max,
        step: a.step.min(a.max_step),
        max_step: a.max_step,
        max_points: a.max_points,
        ..Default::default()
    };
    let c = contactlab::api::zeno_continuation(&m, &a.model.display().to_string(), &settings, &|e| {
        bar.set_position((e / a.e_max * 1000.0) as u64)
    })?;
    bar.finish_and_clear();
    if let Some(dir) = &a.common.out {
        plots::write_branch(&c, dir)?;
    }
    let out = contactlab::api::ContinuationSummary::from(&c);
    if a.common.json {
        print_json(&out)?;
    } else {
        println!("{}: {} orbits on the branch", a.model.display(), c.points.len());
        match c.e_critical {
            Some(e) => println!("  largest e with a Zeno periodic orbit: {e:.6}; the branch ended: {}", c.end),
            None => println!("  no periodic orbit at e = 0: {}", c.end),
        }
    }
    Ok(())
}
