//! `contactlab equilibrium ...`: the planar body on two frictional contacts (P1).

use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, Subcommand};
use contactlab::twocontact::atlas::{self, Axis};
use contactlab::twocontact::model;

use crate::{print_json, write_json, Common, Failure};

#[derive(Subcommand, Debug)]
pub enum EquilibriumCommand {
    /// Contact-mode analysis at the equilibrium under the zero-order dynamics: equilibrium,
    /// ambiguity, Painlevé-freeness, persistence, and every mode's forces and accelerations.
    /// --out writes modes.csv.
    Modes(ModesArgs),
    /// The reduced Poincaré map R(φ) and growth map G(φ) on (−π/2, π/2), with fixed points.
    Maps(MapsArgs),
    /// Stability verdict by P1's Theorems 1-5, naming the theorem and its evidence. --out writes
    /// classification.json (the --json object).
    Classify(MapsArgs),
    /// Verdict over a grid of one or two parameters (CoM position, friction, ...), as CSV and a
    /// colour map (two parameters) or (G*)^2 along the parameter (one), in parallel.
    Atlas(AtlasArgs),
    /// Event-driven simulation of the zero-order dynamics after a perturbation: time plots of
    /// z_i(t), x_i(t) with impacts and Zeno points marked, event log as CSV.
    Simulate(SimulateArgs),
}

impl EquilibriumCommand {
    /// The command's output directory, if given.
    pub fn out_dir(&mut self) -> Option<&mut PathBuf> {
        match self {
            EquilibriumCommand::Modes(a) => a.common.out.as_mut(),
            EquilibriumCommand::Maps(a) | EquilibriumCommand::Classify(a) => a.common.out.as_mut(),
            EquilibriumCommand::Atlas(a) => a.common.out.as_mut(),
            EquilibriumCommand::Simulate(a) => a.common.out.as_mut(),
        }
    }
}

#[derive(Args, Debug)]
pub struct SimulateArgs {
    #[arg(help = contactlab::api::registry::model_help("equilibrium simulate"))]
    model: PathBuf,
    /// Initial perturbation, comma-separated KEY=VALUE with keys z1, z2, x2 (m) and zd1, zd2,
    /// xd2 (m/s); unspecified values are 0. A point with z = zd = 0 starts in sustained contact.
    #[arg(long, default_value = "z2=1e-4", value_name = "KEY=VALUE,...")]
    perturb: String,
    /// Maximum number of events.
    #[arg(long, default_value_t = contactlab::api::P1_MAX_EVENTS)]
    max_events: usize,
    /// Stop at this time (s).
    #[arg(long, default_value_t = contactlab::api::P1_T_MAX)]
    t_max: f64,
    #[command(flatten)]
    common: Common,
}

#[derive(Args, Debug)]
pub struct AtlasArgs {
    #[arg(help = contactlab::api::registry::model_help("equilibrium atlas"))]
    model: PathBuf,
    /// KEY=lo:hi:n, once or twice. Keys: model keys, or com_x / com_z (CoM position with the
    /// contacts fixed).
    #[arg(long = "vary", value_name = "KEY=lo:hi:n", required = true)]
    vary: Vec<String>,
    /// Samples of φ per cell.
    #[arg(long, default_value_t = contactlab::twocontact::poincare::DEFAULT_SAMPLES as u32, value_parser = clap::value_parser!(u32).range(contactlab::api::flag_range(contactlab::api::ATLAS_SAMPLES)))]
    samples: u32,
    /// Evaluate only shard K of N (every N-th cell from the K-th) and write atlas-shard.json into
    /// --out; `contactlab merge` joins the shards into the unsharded outputs.
    #[arg(long, value_name = "K/N")]
    shard: Option<String>,
    #[command(flatten)]
    common: Common,
}

#[derive(Args, Debug)]
pub struct MapsArgs {
    #[arg(help = contactlab::api::registry::model_help("equilibrium maps"))]
    model: PathBuf,
    /// Number of samples of φ.
    #[arg(long, default_value_t = contactlab::twocontact::poincare::DEFAULT_SAMPLES as u32, value_parser = clap::value_parser!(u32).range(contactlab::api::flag_range(contactlab::api::MAP_SAMPLES)))]
    samples: u32,
    #[command(flatten)]
    common: Common,
}

#[derive(Args, Debug)]
pub struct ModesArgs {
    #[arg(help = contactlab::api::registry::model_help("equilibrium modes"))]
    model: PathBuf,
    #[command(flatten)]
    common: Common,
}

pub fn run(cmd: EquilibriumCommand) -> Result<(), Failure> {
    match cmd {
        EquilibriumCommand::Modes(a) => modes(a),
        EquilibriumCommand::Maps(a) => maps(a),
        EquilibriumCommand::Classify(a) => classify(a),
        EquilibriumCommand::Atlas(a) => run_atlas(a),
        EquilibriumCommand::Simulate(a) => simulate(a),
    }
}

fn modes(a: ModesArgs) -> Result<(), Failure> {
    let p = model::read(&a.model)?;
    let r = contactlab::api::p1_modes(&p)?;
    let eq = &r.analysis;
    let v = serde_json::to_value(&r).context("serialising")?;
    if let Some(dir) = &a.common.out {
        r.write_files(dir)?;
    }
    if a.common.json {
        print_json(&v)?;
    } else {
        println!("{}: k = {:.6} (ẋ1 = k ẋ2 with both contacts held)", a.model.display(), r.k);
        println!("  equilibrium (SS consistent)  {}  (margin {:.3e})", eq.equilibrium, eq.ss_margin);
        println!("  ambiguous                    {}", eq.ambiguous);
        println!(
            "  consistent modes at rest     {}",
            eq.modes_at_rest.iter().map(|m| m.to_string()).collect::<Vec<_>>().join(" ")
        );
        println!("  Painlevé-free                {}", eq.painleve_free);
        for (st, ms) in &eq.painleve_states {
            println!("    {st}: consistent {:?}", ms.iter().map(|m| m.to_string()).collect::<Vec<_>>());
        }
        println!("  persistent (ẋ2 > 0, ẋ2 < 0)  {}, {}", eq.persistent_plus, eq.persistent_minus);
        if eq.marginal {
            println!("  note: a consistency decision was marginal (depends on terms the ZOD neglects)");
        }
    }
    Ok(())
}

fn maps(a: MapsArgs) -> Result<(), Failure> {
    let p = model::read(&a.model)?;
    let m = contactlab::api::p1_maps(&p, a.samples as usize)?;
    if let Some(dir) = &a.common.out {
        let title = a.model.file_stem().map(|s| s.to_string_lossy().to_string()).unwrap_or_default();
        m.write_files(dir, &title)?;
    }
    if a.common.json {
        print_json(&m)?;
    } else {
        println!("{}: R, G defined at {} of {} samples", a.model.display(), m.defined, m.samples);
        for f in &m.fixed_points {
            println!(
                "  fixed point φ* = {:+.6}  G* = {:.6}  R' = {:+.4}  {}",
                f.phi,
                f.g,
                f.slope,
                if f.attracting { "attracting" } else { "repelling" }
            );
        }
        for e in &m.endpoints {
            let show = |v: Option<f64>| v.map_or("undefined".to_string(), |x| format!("{x:.6}"));
            let what = match e.set {
                1 => "R → ±π/2, G constant (Lemma 2)",
                2 => "R → constant inside (−π/2, π/2), G → ∞ (Lemma 2a, set 2)",
                _ => "maps undefined",
            };
            println!("  φ → {}π/2: R = {}, G = {}: {what}", if e.side > 0 { "+" } else { "−" }, show(e.r), show(e.g));
        }
        let gmax = m.maps.iter().filter_map(|q| q.g).fold(f64::NEG_INFINITY, f64::max);
        println!("  max G over defined samples: {gmax:.6}");
    }
    Ok(())
}

fn classify(a: MapsArgs) -> Result<(), Failure> {
    let p = model::read(&a.model)?;
    let c = contactlab::api::p1_classify(&p, a.samples as usize)?;
    if let Some(dir) = &a.common.out {
        write_json(dir, "classification.json", &c)?;
    }
    if a.common.json {
        print_json(&serde_json::to_value(&c).context("serialising")?)?;
    } else {
        println!("{}: {} ({})", a.model.display(), c.verdict, c.theorem);
        println!("  evidence: {}", c.evidence);
        println!(
            "  equilibrium {}, ambiguous {}, Painlevé-free {}, persistent {}, weakly persistent {}",
            c.equilibrium, c.ambiguous, c.painleve_free, c.persistent, c.weakly_persistent
        );
        for f in &c.fixed_points {
            println!(
                "  fixed point φ* = {:+.6}  G* = {:.6}  {}",
                f.phi,
                f.g,
                if f.attracting { "attracting" } else { "repelling" }
            );
        }
        let show = |g: Option<f64>| g.map_or("undefined".to_string(), |g| format!("{g:.6}"));
        println!("  G- = {}, G+ = {}, R monotone: {}", show(c.g_minus), show(c.g_plus), c.r_monotone);
        if let Some(p) = &c.proof {
            match &p.proof.proof_reason {
                None => println!("  proof: proved in interval arithmetic: {}", p.shows().join("; ")),
                Some(why) => println!("  proof: none ({why})"),
            }
            if let Some(a) = &p.assumes {
                println!("  assumes: {a}");
            }
        }
    }
    Ok(())
}

fn run_atlas(a: AtlasArgs) -> Result<(), Failure> {
    if a.vary.len() > 2 {
        return Err(Failure::Input(anyhow::anyhow!("--vary: give one or two parameters, got {}", a.vary.len())));
    }
    let axes: Vec<Axis> = a.vary.iter().map(|v| Axis::parse(v)).collect::<Result<_, _>>()?;
    let p = model::read(&a.model)?;
    atlas::check_axes(&p, &axes)?;
    let total: usize = axes.iter().map(|x| x.n).product();
    // On this project's reference machine (release build): about 0.6 µs per sample of the maps,
    // and 3.5 ms per cell for the rest, mostly the interval proof (a 200 × 200 atlas of B's body
    // with 2001 samples: 197 s of CPU).
    let per_cell = a.samples as f64 * 0.6e-6 + 3.5e-3;
    let est = total as f64 * per_cell / std::thread::available_parallelism().map_or(1, usize::from) as f64;
    if est > 10.0 {
        eprintln!("atlas: {total} cells x {} samples, estimated {est:.0} s", a.samples);
    }
    let bar = indicatif::ProgressBar::new(1);
    let progress = |d: u64, t: u64| {
        bar.set_length(t);
        bar.set_position(d);
    };
    let title = a.model.file_stem().map(|s| s.to_string_lossy().to_string()).unwrap_or_default();
    if let Some(spec) = &a.shard {
        let (k, n) = parse_shard(spec)?;
        let Some(dir) = &a.common.out else {
            return Err(Failure::Input(anyhow::anyhow!("--shard: needs --out DIR (the shard is written there)")));
        };
        let shard = contactlab::api::p1_atlas_shard(&p, &title, &axes, a.samples as usize, [k, n], &progress)?;
        bar.finish_and_clear();
        shard.write(dir)?;
        if a.common.json {
            print_json(&ShardSummary { shard: [k, n], cells: shard.cells.len(), total })?;
        } else {
            println!("{}: shard {k}/{n}: {} of {total} cells", a.model.display(), shard.cells.len());
        }
        return Ok(());
    }
    let cells = contactlab::api::p1_atlas(&p, &axes, a.samples as usize, &progress)?;
    bar.finish_and_clear();
    finish_atlas(&a.model.display().to_string(), &title, &axes, &cells, a.common.out.as_deref(), a.common.json)
}

/// What `atlas --shard K/N --json` prints.
#[derive(serde::Serialize)]
struct ShardSummary {
    shard: [usize; 2],
    cells: usize,
    total: usize,
}

fn parse_shard(spec: &str) -> Result<(usize, usize), Failure> {
    let bad = || Failure::Input(anyhow::anyhow!("--shard: expected K/N with 1 <= K <= N, got `{spec}`"));
    let (k, n) = spec.split_once('/').ok_or_else(bad)?;
    let (k, n): (usize, usize) = (k.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
    if k == 0 || n == 0 || k > n {
        return Err(bad());
    }
    Ok((k, n))
}

/// The outputs of an atlas (unsharded, or merged from shards): atlas.csv and the plot in `out`,
/// and the summary on stdout.
fn finish_atlas(
    name: &str,
    title: &str,
    axes: &[Axis],
    cells: &[atlas::Cell],
    out: Option<&std::path::Path>,
    as_json: bool,
) -> Result<(), Failure> {
    if let Some(dir) = out {
        atlas::write_files(title, axes, cells, dir)?;
    }
    let summary = atlas::AtlasSummary::new(axes, cells.to_vec());
    if as_json {
        print_json(&summary)?;
    } else {
        println!("{name}: {} cells", cells.len());
        for c in summary.counts.iter().filter(|c| c.cells > 0) {
            println!("  {:<26} {}", c.verdict.as_str(), c.cells);
        }
    }
    Ok(())
}

/// `contactlab merge`: joins `atlas --shard` outputs into the unsharded atlas's outputs.
pub fn merge(inputs: &[PathBuf], out: Option<&std::path::Path>, as_json: bool) -> Result<(), Failure> {
    if inputs.is_empty() {
        return Err(Failure::Input(anyhow::anyhow!("merge: give the shard directories (or atlas-shard.json files)")));
    }
    let (first, cells) = contactlab::api::p1_atlas_merge(inputs)?;
    let (title, n) = (&first.title, first.shard[1]);
    finish_atlas(&format!("{title} (merged from {n} shards)"), title, &first.axes, &cells, out, as_json)
}

fn simulate(a: SimulateArgs) -> Result<(), Failure> {
    let start = contactlab::api::p1_perturbation(&a.perturb)?;
    let p = model::read(&a.model)?;
    let run = contactlab::api::p1_simulate(&p, start, a.t_max, a.max_events)?;
    let (tr, nl) = (&run.zod, &run.nonlinear);
    if let Some(dir) = &a.common.out {
        let title = a.model.file_stem().map(|s| s.to_string_lossy().to_string()).unwrap_or_default();
        run.write_files(dir, &title)?;
    }
    let summary = run.summary();
    if a.common.json {
        print_json(&summary)?;
    } else {
        println!(
            "{}: zero-order dynamics: {} at t = {} s after {} events ({} impacts)",
            a.model.display(),
            contactlab::output::kebab(&tr.outcome),
            tr.t_end,
            tr.events.len(),
            summary.impacts
        );
        for t in tr.zeno_times() {
            println!("  Zeno point at t = {t} s");
        }
        let n = &summary.nonlinear;
        println!(
            "  nonlinear model: {} at t = {} s after {} events ({} impacts{})",
            contactlab::output::kebab(&nl.outcome),
            run.nonlinear_t_end(),
            nl.events.len(),
            n.impacts,
            if n.zeno_times.is_empty() { String::new() } else { format!(", Zeno points at {:?} s", n.zeno_times) }
        );
    }
    Ok(())
}
