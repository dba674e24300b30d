//! `contactlab fixture ...`: P4 fixture stability.

use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, Subcommand};
use contactlab::fixture::model;

use crate::{print_json, write_json, Common, Failure};

#[derive(Subcommand, Debug)]
pub enum FixtureCommand {
    /// Weak, strong and frictionless stability of the model's load, with witnesses. --out writes
    /// classification.json (the --json object).
    Classify(FixtureArgs),
    /// Theorem 4: decide every system (32)-(35); a consistent one yields a Proposition 5 load.
    /// --out writes theorem4.csv (consistent and undecided systems) and theorem4_per_sigma.csv.
    Theorem4(FixtureArgs),
    /// Load cones WS(mu), WS(0), WU_R(mu) as CSV and PNG plots (planar models).
    Cones(ConesArgs),
    /// Classification as all friction coefficients are scaled by a factor, with critical values.
    /// --out writes mu_sweep.csv.
    MuSweep(SweepArgs),
}

impl FixtureCommand {
    /// The command's output directory, if given.
    pub fn out_dir(&mut self) -> Option<&mut PathBuf> {
        match self {
            FixtureCommand::Classify(a) | FixtureCommand::Theorem4(a) => a.common.out.as_mut(),
            FixtureCommand::Cones(a) => a.common.out.as_mut(),
            FixtureCommand::MuSweep(a) => a.common.out.as_mut(),
        }
    }
}

#[derive(Args, Debug)]
pub struct FixtureArgs {
    #[arg(help = contactlab::api::registry::model_help("fixture classify"))]
    model: PathBuf,
    #[command(flatten)]
    common: Common,
}

#[derive(Args, Debug)]
pub struct ConesArgs {
    #[arg(help = contactlab::api::registry::model_help("fixture cones"))]
    model: PathBuf,
    /// Unit loads tested on the sphere.
    #[arg(long, default_value_t = 4000, value_parser = clap::value_parser!(u32).range(contactlab::api::flag_range(contactlab::api::CONE_SAMPLES)))]
    samples: u32,
    #[command(flatten)]
    common: Common,
}

#[derive(Args, Debug)]
pub struct SweepArgs {
    #[arg(help = contactlab::api::registry::model_help("fixture mu-sweep"))]
    model: PathBuf,
    /// Largest scale factor of the friction coefficients.
    #[arg(long, default_value_t = contactlab::api::MU_SWEEP_MAX_SCALE)]
    max_scale: f64,
    /// Number of grid points in [0, max-scale].
    #[arg(long, default_value_t = contactlab::api::MU_SWEEP_POINTS as u32, value_parser = clap::value_parser!(u32).range(contactlab::api::flag_range(contactlab::api::MU_SWEEP_STEPS)))]
    steps: u32,
    #[command(flatten)]
    common: Common,
}

pub fn run(cmd: FixtureCommand) -> Result<(), Failure> {
    match cmd {
        FixtureCommand::Classify(a) => classify(a),
        FixtureCommand::Theorem4(a) => run_theorem4(a),
        FixtureCommand::Cones(a) => run_cones(a),
        FixtureCommand::MuSweep(a) => run_sweep(a),
    }
}

fn classify(a: FixtureArgs) -> Result<(), Failure> {
    let f = model::read(&a.model)?;
    let c = contactlab::api::fixture_classify(&f)?;
    if let Some(dir) = &a.common.out {
        write_json(dir, "classification.json", &c)?;
    }
    if a.common.json {
        print_json(&serde_json::to_value(&c).context("serialising")?)?;
    } else {
        println!("{}: {} contact(s), mu = {:?}", a.model.display(), f.nc(), f.mu.as_slice());
        println!("  classification        {}", c.classification);
        println!("  weakly stable         {}", c.weakly_stable);
        println!(
            "  strongly stable       {}",
            c.strongly_stable.map_or("undecided (3-D Coulomb law)".into(), |b| b.to_string())
        );
        println!("  frictionless stable   {}  (Theorem 1)", c.frictionless_stable);
        println!("  separation property   {}  (Theorem 2)", c.separation_property);
        println!("  critical common mu    {}", c.critical_mu.map_or("none up to 1000".into(), |m| format!("{m:.6}")));
        if let Some(w) = c.in_wu_r {
            println!("  in WU_R(mu)           {w}  (Theorem 3)");
        }
        if let Some(d) = &c.nonzero_acceleration_intensity {
            println!(
                "  dynamic intensity with nonzero acceleration: c = {:?}, qddot = {:?}",
                d.c.as_slice(),
                d.qddot.as_slice()
            );
        }
    }
    Ok(())
}

fn run_theorem4(a: FixtureArgs) -> Result<(), Failure> {
    let f = model::read(&a.model)?;
    let bar = indicatif::ProgressBar::new(1);
    let progress = |d: u64, t: u64| {
        bar.set_length(t);
        bar.set_position(d);
    };
    let (t, v) = contactlab::api::fixture_theorem4(&f, &progress)?;
    bar.finish_and_clear();
    if let Some(dir) = &a.common.out {
        contactlab::fixture::theorem4::write_files(&t, dir)?;
    }
    if a.common.json {
        print_json(&v)?;
    } else {
        println!("{}: {} systems (32)-(35), decided with {} LPs", a.model.display(), t.systems, t.lps);
        for (st, so, c, n) in &t.per_sigma {
            println!(
                "  sigma_t = {st:?}{}: {c} of {n} consistent",
                if so.is_empty() { String::new() } else { format!(", sigma_o = {so:?}") }
            );
        }
        if !t.undecided.is_empty() {
            println!("  {} systems undecided (their LPs ended in numerical trouble)", t.undecided.len());
        }
        let verdict = match t.ss_equals_ws {
            Some(true) => "yes",
            Some(false) => "no",
            None => "undecided",
        };
        println!("  SS(mu) = WS(mu): {verdict}");
        if let Some(e) = &v.proposition5 {
            println!("  Proposition 5 load {:?} -> {}", e.load, e.classification.as_str());
        }
    }
    Ok(())
}

fn run_cones(a: ConesArgs) -> Result<(), Failure> {
    // The command's whole output is files: it writes nothing unless told where.
    let Some(dir) = a.common.out.clone() else {
        return Err(Failure::Input(anyhow::anyhow!(
            "--out: required (fixture cones writes CSV and PNG files into DIR)"
        )));
    };
    let f = model::read(&a.model)?;
    let files = contactlab::api::fixture_cones(&f, &dir, a.samples as usize)?;
    let names: Vec<String> = files.iter().map(|p| crate::staging::shown(p)).collect();
    // (Text mode: the list of files written is printed for every command.)
    if a.common.json {
        #[derive(serde::Serialize)]
        struct Files {
            files: Vec<String>,
        }
        print_json(&Files { files: names })?;
    }
    Ok(())
}

fn run_sweep(a: SweepArgs) -> Result<(), Failure> {
    let f = model::read(&a.model)?;
    let s = contactlab::api::fixture_mu_sweep(&f, a.max_scale, a.steps as usize)?;
    if let Some(dir) = &a.common.out {
        s.write_files(dir)?;
    }
    if a.common.json {
        print_json(&s)?;
    } else {
        println!("{}: mu = scale x {:?}, scale in [0, {}]", a.model.display(), f.mu.as_slice(), a.max_scale);
        if s.transitions.is_empty() {
            println!("  classification {} throughout", s.points[0].classification);
        }
        for t in &s.transitions {
            println!("  scale {:.9}: {} -> {} (mu = {:?})", t.scale, t.from, t.to, t.mu);
        }
    }
    Ok(())
}
