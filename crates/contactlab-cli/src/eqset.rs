//! `contactlab eqset ...`: equilibrium sets under set-valued friction (P5).

use std::path::PathBuf;

use clap::{Args, Subcommand};
use contactlab::eqset::model::{self, EqsetModel};
use contactlab::eqset::Analysis;

use crate::{print_json, write_json, Common, Failure};

#[derive(Subcommand, Debug)]
pub enum EqsetCommand {
    /// The equilibrium sets (5) as intervals, then for each set around a minimum of U the five
    /// conditions of Theorem 1 with c* computed numerically, and for each set around a maximum
    /// the statements of Theorem 2 with P5's V of (24). --out writes analysis.json (the --json
    /// object).
    Analyze(AnalyzeArgs),
    /// Phase portrait like P5 Fig. 3 (time-stepping trajectories, the sets, V = c*) and the basin
    /// found by time-stepping a grid of initial states, against the estimate {V < c*}.
    /// --out writes portrait.png, basin.png, basin.csv and summary.json.
    Portrait(PortraitArgs),
    /// Time-stepping from the model's [initial] state. --out writes trajectory.csv (t, q, q', V)
    /// and time.png.
    Simulate(SimulateArgs),
}

impl EqsetCommand {
    /// The command's output directory, if given.
    pub fn out_dir(&mut self) -> Option<&mut PathBuf> {
        match self {
            EqsetCommand::Analyze(a) => a.common.out.as_mut(),
            EqsetCommand::Portrait(a) => a.common.out.as_mut(),
            EqsetCommand::Simulate(a) => a.common.out.as_mut(),
        }
    }
}

#[derive(Args, Debug)]
pub struct AnalyzeArgs {
    #[arg(help = contactlab::api::registry::model_help("eqset analyze"))]
    model: PathBuf,
    /// Grid points of the scan for the sets (their ends are then bisected to round-off).
    #[arg(long, default_value_t = contactlab::api::EQSET_ANALYZE_GRID as u32, value_parser = clap::value_parser!(u32).range(contactlab::api::flag_range(contactlab::api::EQSET_GRID)))]
    grid: u32,
    #[command(flatten)]
    common: Common,
}

#[derive(Args, Debug)]
pub struct PortraitArgs {
    #[arg(help = contactlab::api::registry::model_help("eqset portrait"))]
    model: PathBuf,
    /// Initial states per axis of the basin grid.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(2..=1000))]
    grid: u32,
    /// Trajectories drawn.
    #[arg(long, default_value_t = 24, value_parser = clap::value_parser!(u32).range(2..=1000))]
    trajectories: u32,
    /// Time steps per run.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u32).range(1..=100_000_000))]
    steps: u32,
    /// Step size in s (default: 1/400 of the model's time scale).
    #[arg(long)]
    h: Option<f64>,
    #[command(flatten)]
    common: Common,
}

#[derive(Args, Debug)]
pub struct SimulateArgs {
    #[arg(help = contactlab::api::registry::model_help("eqset simulate"))]
    model: PathBuf,
    /// End time in s.
    #[arg(long, default_value_t = contactlab::api::EQSET_T_MAX)]
    t_max: f64,
    /// Step size in s (default: 1/400 of the model's time scale).
    #[arg(long)]
    h: Option<f64>,
    #[command(flatten)]
    common: Common,
}

pub fn run(cmd: EqsetCommand) -> Result<(), Failure> {
    match cmd {
        EqsetCommand::Analyze(a) => analyze(a),
        EqsetCommand::Portrait(a) => portrait(a),
        EqsetCommand::Simulate(a) => simulate(a),
    }
}

fn print_analysis(name: &str, m: &EqsetModel, a: &Analysis) {
    let (q, unit) = m.coordinate();
    println!("{name}: {} equilibrium set(s)", a.sets.len());
    for (k, s) in a.sets.iter().enumerate() {
        let verdict = match (s.attractive, s.unstable) {
            (Some(true), _) => "attractive",
            (_, Some(true)) => "unstable",
            _ => "undecided",
        };
        println!(
            "  E{}: {q} in [{:.6}, {:.6}] {unit} (centre {:.6}, half width {:.6}): {verdict} ({})",
            k + 1,
            s.lo,
            s.hi,
            s.center,
            s.half_width,
            s.theorem
        );
        if let Some(t1) = &s.theorem1 {
            for (c, v) in &t1.conditions {
                println!("    condition {c}: {} - {}", if v.holds { "holds" } else { "FAILS" }, v.detail);
            }
            println!("    c* = {:.6} (limited by {})", t1.c_star, t1.c_star_limited_by);
        }
        if let Some(t2) = &s.theorem2 {
            for (c, v) in &t2.hypotheses {
                println!("    {c}: {} - {}", if v.holds { "holds" } else { "FAILS" }, v.detail);
            }
            for (c, v) in &t2.statements {
                println!("    statement {c}: {} - {}", if v.holds { "applies" } else { "does not apply" }, v.detail);
            }
        }
    }
}

/// Closed forms of the rod, for comparison beside the numerical analysis.
fn analyze(a: AnalyzeArgs) -> Result<(), Failure> {
    let m = model::read(&a.model)?;
    let v = contactlab::api::eqset_analyze(&m, a.grid as usize)?;
    let an = &v.analysis;
    if let Some(dir) = &a.common.out {
        write_json(dir, "analysis.json", &v)?;
    }
    if a.common.json {
        print_json(&v)
    } else {
        print_analysis(&a.model.display().to_string(), &m, an);
        Ok(())
    }
}

fn portrait(a: PortraitArgs) -> Result<(), Failure> {
    let m = model::read(&a.model)?;
    let opts = contactlab::api::PortraitOptions {
        grid: a.grid as usize,
        trajectories: a.trajectories as usize,
        h: a.h,
        steps: a.steps as usize,
    };
    let summary = contactlab::api::eqset_portrait(&m, &opts, a.common.out.as_deref())?;
    if a.common.json {
        return print_json(&summary);
    }
    let show = |v: Option<f64>| v.map_or("-".to_string(), |x| x.to_string());
    println!("{}: c* = {}", a.model.display(), show(summary.c_star));
    if let Some(b) = &summary.basin {
        println!(
            "  basin of set {} on a {}-run grid: shares per set {:?}, still moving {}",
            b.target_set, summary.runs, b.share_per_set, b.share_still_moving
        );
        println!(
            "  estimate V < c*: {} of the grid, of which {} come to rest in the set and {} elsewhere; it covers {} of the basin found",
            b.share_in_estimate, b.estimate_converges, b.estimate_elsewhere, b.estimate_share_of_basin
        );
    }
    Ok(())
}

fn simulate_of(m: &EqsetModel, a: &SimulateArgs) -> Result<contactlab::api::EqsetRunSummary, Failure> {
    let run = contactlab::api::eqset_simulate(m, a.t_max, a.h)?;
    if let Some(dir) = &a.common.out {
        run.write_files(m.coordinate(), dir)?;
    }
    Ok(run.summary())
}

fn simulate(a: SimulateArgs) -> Result<(), Failure> {
    let m = model::read(&a.model)?;
    let summary = simulate_of(&m, &a)?;
    if a.common.json {
        print_json(&summary)
    } else {
        let show = |v: Option<f64>| v.map_or("-".to_string(), |x| x.to_string());
        println!(
            "{}: after {} steps of {} s, q = {}, q' = {} (at rest: {}); V from {} to {}",
            a.model.display(),
            summary.steps,
            summary.h,
            show(summary.q_end),
            show(summary.q_dot_end),
            summary.at_rest,
            show(summary.energy_start),
            show(summary.energy_end)
        );
        Ok(())
    }
}
