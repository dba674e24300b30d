//! The `contactlab` command: a thin layer over the `contactlab` library.
//!
//! Exit codes: 0 the command ran (whatever the mathematical verdict), 2 bad input or usage,
//! 3 internal numerical failure.

mod eqset;
mod equilibrium;
mod fixture;
mod multibody;
mod staging;
mod stance;
mod walker;
mod zeno;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, Parser, Subcommand};
use contactlab::lcp::{self, classes, LcpSettings, LcpStatus};
use contactlab::reproduce;

/// Stability analysis and simulation of mechanical systems with unilateral, frictional contacts.
#[derive(Parser, Debug)]
#[command(name = "contactlab", version, about, long_about = None)]
struct Cli {
    /// Write every plot as SVG too, beside its PNG (any command that draws).
    #[arg(long, global = true)]
    svg: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Linear complementarity problems: solve, enumerate, classify.
    #[command(subcommand)]
    Lcp(LcpCommand),
    /// Planar body on two frictional contacts (P1): contact modes at the equilibrium.
    #[command(subcommand)]
    Equilibrium(equilibrium::EquilibriumCommand),
    /// Fixture stability (P4): classify, theorem4, cones, mu-sweep.
    #[command(subcommand)]
    Fixture(fixture::FixtureCommand),
    /// Single-contact walkers (P2): gait, painleve, slip.
    #[command(subcommand)]
    Walker(walker::WalkerCommand),
    /// Completed Lagrangian hybrid systems (P3): simulate, orbit, bound, continue.
    #[command(subcommand)]
    Zeno(zeno::ZenoCommand),
    /// Equilibrium sets under set-valued friction (P5): analyze, portrait, simulate.
    #[command(subcommand)]
    Eqset(eqset::EqsetCommand),
    /// Simulate any mechanism (kind = "multibody") with the event-driven hybrid core: contact
    /// modes, impacts, Zeno completion, walking rules. --out writes trajectory.csv, events.csv,
    /// time.png and animation.gif.
    Simulate(multibody::SimulateArgs),
    /// Every gait of a mechanism (kind = "multibody" with a [gait] table), found without a
    /// guess: period, state, Floquet multipliers, mu_stick, impulse ratio. --out writes
    /// gaits.json; on a 3-D scene, gait.json and gait.gif (three steps animated).
    Gait(multibody::GaitArgs),
    /// Pseudo-arclength continuation of a mechanism's gait (kind = "multibody" with a [gait]
    /// table, planar or a 3-D scene) in any parameter of its file: period, multipliers, mu_stick,
    /// impulse ratio, least Painlevé B along the branch; folds, period doublings (the doubled
    /// branches followed), Neimark-Sacker and branch points, sticking lost, slipping strikes,
    /// Painlevé onset, grazing, scuffing and Zeno onset located. --out writes continuation.json,
    /// branch.csv, special.csv, branch.png and multipliers.png.
    Continue(multibody::ContinueArgs),
    /// The basin of attraction of a mechanism's gaits (kind = "multibody" with a [gait] table)
    /// over one or two section coordinates: each cell's outcome after up to --steps strikes
    /// (a gait, a period-p orbit, still walking, fell, slipped, stopped, jammed, Zeno) and the
    /// fraction per outcome. --out writes basin.json, basin.csv, fractions.csv and basin.png.
    Basin(multibody::BasinArgs),
    /// Painlevé's paradox at a contact of any mechanism (kind = "multibody"): A, B and the case
    /// of P2's Table 2.1 at a state, mu_min and the region B < 0 over a slice of one or two
    /// coordinates, the LCP of several slipping contacts. --out writes painleve.json, b.csv and
    /// b.png.
    Painleve(multibody::PainleveArgs),
    /// How a slip of a contact of any mechanism (kind = "multibody") ends from a state: stick,
    /// reversal, separation, dynamic jam, corner, impact. --out writes slip.json.
    Slip(multibody::SlipArgs),
    /// P3's periodic orbit of any mechanism (kind = "multibody") through the constrained phases
    /// of a joint limit or contact, simple (e = 0) or Zeno (e > 0): period, fixed point,
    /// multipliers, gamma. --out writes orbit.json.
    Orbit(multibody::OrbitArgs),
    /// The stance stability of a robot in 3-D resting on its contacts (P4's weak, strong and
    /// frictionless stability, joints locked or on springs): verdicts with certificates and
    /// proofs, the least friction coefficient, the largest tilt of gravity. --out writes
    /// stance.json.
    Stance(stance::StanceArgs),
    /// Inspect a model (kind = "multibody") at a state.
    #[command(subcommand)]
    Model(multibody::ModelCommand),
    /// Join `equilibrium atlas --shard K/N` outputs into the unsharded atlas's outputs (atlas.csv,
    /// the plot, the --json summary).
    Merge(MergeArgs),
    /// Recompute every published number and figure; write REPORT.md, results.json and plots.
    Reproduce(ReproduceArgs),
}

#[derive(Subcommand, Debug)]
enum LcpCommand {
    /// Solve 0 <= z ⟂ Mz + q >= 0 (Lemke, then a feasibility LP and enumeration), or enumerate
    /// all solutions. "proof": "interval" means the verdict is proved in interval arithmetic on
    /// the data as given (a no-solution by a Farkas certificate or, for n <= 12, every
    /// complementary piece shown empty; a solution enclosed on its piece); "none" comes with
    /// "proof_reason". "solved" also means the point passes a componentwise check on the data as
    /// given ("violation"). --out writes solution.csv (pieces.csv with --all).
    Solve(LcpSolveArgs),
    /// Matrix classes of M: P-matrix, column adequate, column quasi-adequate, PSD. --out writes
    /// classes.csv.
    Classes(LcpClassesArgs),
}

#[derive(Args, Debug)]
pub struct Common {
    /// Print exactly one JSON object on stdout.
    #[arg(long)]
    pub json: bool,
    /// Write the command's data files (CSV, JSON) and plots into this directory; each command's
    /// help names them, and the command lists them on stderr.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

#[derive(Args, Debug)]
struct LcpSolveArgs {
    /// LCP file: Siconos `.dat`, or contactlab `.toml`/`.json` with kind = "lcp".
    file: PathBuf,
    /// Enumerate all solutions as polyhedral pieces (n <= 20).
    #[arg(long)]
    all: bool,
    /// Maximum Lemke pivots (default: 1000 (n + 1), at most about 2e10 / (n + 1)^2 and at least
    /// 2 (n + 1): some seconds for any n, e.g. 4995 pivots for n = 2000).
    #[arg(long, value_name = "N")]
    max_pivots: Option<usize>,
    /// Stop Lemke's method after this many seconds with status iteration-limit and the current
    /// point.
    #[arg(long, value_name = "SECONDS")]
    time_limit: Option<f64>,
    #[command(flatten)]
    common: Common,
}

#[derive(Args, Debug)]
struct LcpClassesArgs {
    /// LCP file (only M is used).
    file: PathBuf,
    #[command(flatten)]
    common: Common,
}

#[derive(Args, Debug)]
struct MergeArgs {
    /// Shard directories (or their atlas-shard.json files), one per shard.
    #[arg(required = true)]
    shards: Vec<PathBuf>,
    #[command(flatten)]
    common: Common,
}

#[derive(Args, Debug)]
struct ReproduceArgs {
    /// Output directory for REPORT.md, results.json and figures.
    #[arg(long, value_name = "DIR", default_value = "report")]
    out: PathBuf,
    /// Comma-separated section ids to run (default: all), e.g. `LCP`.
    #[arg(long, value_delimiter = ',', value_name = "IDS")]
    only: Option<Vec<String>>,
    /// Data directory (default: $CONTACTLAB_DATA, else the data/ folder of the repository, else ../shared/data).
    #[arg(long, value_name = "DIR")]
    data: Option<PathBuf>,
    /// Print the totals as one JSON object on stdout.
    #[arg(long)]
    json: bool,
}

/// Failures mapped to exit codes.
pub enum Failure {
    Input(anyhow::Error),
    Numerical(anyhow::Error),
    Internal(anyhow::Error),
    /// The command ran and wrote its output, but did not finish the job asked (a simulation
    /// that ended before `--t-max`): the output is kept, exit 3.
    Incomplete(anyhow::Error),
}

impl From<contactlab::Error> for Failure {
    fn from(e: contactlab::Error) -> Self {
        if let contactlab::Error::Argument { name, message } = &e {
            // The library names options as the Python API does (`t_max`); here they are flags.
            return Failure::Input(anyhow::anyhow!("--{}: {message}", name.replace('_', "-")));
        }
        if e.is_numerical() {
            Failure::Numerical(e.into())
        } else if e.is_input_error() {
            Failure::Input(e.into())
        } else {
            Failure::Internal(e.into())
        }
    }
}

impl From<anyhow::Error> for Failure {
    fn from(e: anyhow::Error) -> Self {
        match e.downcast::<contactlab::Error>() {
            Ok(ce) => ce.into(),
            Err(e) => Failure::Internal(e),
        }
    }
}

impl Command {
    /// The command's output directory, if it writes one.
    fn out_dir(&mut self) -> Option<&mut PathBuf> {
        match self {
            Command::Lcp(LcpCommand::Solve(a)) => a.common.out.as_mut(),
            Command::Lcp(LcpCommand::Classes(a)) => a.common.out.as_mut(),
            Command::Reproduce(a) => Some(&mut a.out),
            Command::Fixture(c) => c.out_dir(),
            Command::Equilibrium(c) => c.out_dir(),
            Command::Zeno(c) => c.out_dir(),
            Command::Walker(c) => c.out_dir(),
            Command::Eqset(c) => c.out_dir(),
            Command::Merge(a) => a.common.out.as_mut(),
            Command::Simulate(a) => a.out_dir(),
            Command::Gait(a) => a.out_dir(),
            Command::Stance(a) => a.out_dir(),
            Command::Continue(a) => a.out_dir(),
            Command::Basin(a) => a.out_dir(),
            Command::Painleve(a) => a.out_dir(),
            Command::Slip(a) => a.out_dir(),
            Command::Orbit(a) => a.out_dir(),
            Command::Model(c) => c.out_dir(),
        }
    }
}

fn main() -> ExitCode {
    // A reader that closes the pipe early (`contactlab ... | head`) ends the process quietly, as
    // for other Unix tools, instead of a panic on the next write to stdout.
    #[cfg(unix)]
    // SAFETY: restoring the default disposition of SIGPIPE before any thread is started.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    // Usage errors in one line (clap's own message spans several), exit 2; --help and --version
    // print as usual.
    let parsed = allow_negative_numbers(<Cli as clap::CommandFactory>::command())
        .try_get_matches()
        .and_then(|m| <Cli as clap::FromArgMatches>::from_arg_matches(&m));
    let mut cli = match parsed {
        Ok(c) => c,
        Err(e) if e.use_stderr() => {
            let text = e.to_string();
            let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("error: bad usage");
            eprintln!("{} (see --help)", first.trim_end());
            return ExitCode::from(2);
        }
        Err(e) => {
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
    };
    contactlab::plot::set_svg_too(cli.svg);
    // No partial output: write into a staging directory, move it into place on success.
    let staged = match cli.command.out_dir() {
        // Refused before any work: the directory could never be written.
        Some(p) if p.exists() && !p.is_dir() => {
            eprintln!("error: --out: {} exists and is not a directory", p.display());
            return ExitCode::from(2);
        }
        Some(p) => match staging::begin(p) {
            Ok(tmp) => {
                let target = std::mem::replace(p, tmp.clone());
                Some((tmp, target))
            }
            Err(e) => {
                eprintln!("error: {}", one_line(&e));
                return ExitCode::from(3);
            }
        },
        None => None,
    };
    // `reproduce` prints its own summary of what it wrote.
    let quiet_listing = matches!(cli.command, Command::Reproduce(_));
    let result = dispatch(cli.command);
    // An incomplete run keeps what it wrote, then fails (its one error line says where).
    let (result, mut incomplete) = match result {
        Err(Failure::Incomplete(e)) => (Ok(()), Some(e)),
        r => (r, None),
    };
    let quiet_listing = quiet_listing || incomplete.is_some();
    if let (Some(e), Some((_, target))) = (&incomplete, &staged) {
        incomplete = Some(anyhow::anyhow!("{}; its output is in {}", one_line(e), target.display()));
    }
    let result = match (result, &staged) {
        (Ok(()), Some((tmp, target))) => match staging::commit(tmp, target) {
            Ok(files) => {
                // What was written and where (on stderr: stdout may be one JSON object).
                if !quiet_listing {
                    let shown: Vec<&str> = files.iter().map(String::as_str).take(12).collect();
                    let more = files.len().saturating_sub(shown.len());
                    eprintln!(
                        "wrote {} file(s) in {}: {}{}",
                        files.len(),
                        target.display(),
                        shown.join(", "),
                        if more > 0 { format!(" and {more} more") } else { String::new() }
                    );
                }
                Ok(())
            }
            Err(e) => {
                staging::abort(tmp);
                Err(Failure::Internal(e))
            }
        },
        (Err(e), Some((tmp, _))) => {
            staging::abort(tmp);
            Err(e)
        }
        (r, None) => r,
    };
    report_exit(match (result, incomplete) {
        (Ok(()), Some(e)) => Err(Failure::Incomplete(e)),
        (r, _) => r,
    })
}

/// Lets every command take negative numbers as option values (`--e -0.1`, `--mu -1` reaching the
/// range check with its own message rather than being read as an unknown flag).
fn allow_negative_numbers(cmd: clap::Command) -> clap::Command {
    let names: Vec<String> = cmd.get_subcommands().map(|s| s.get_name().to_string()).collect();
    names.into_iter().fold(cmd.allow_negative_numbers(true), |c, n| c.mut_subcommand(n, allow_negative_numbers))
}

fn dispatch(command: Command) -> Result<(), Failure> {
    match command {
        Command::Lcp(LcpCommand::Solve(a)) => lcp_solve(a),
        Command::Lcp(LcpCommand::Classes(a)) => lcp_classes(a),
        Command::Reproduce(a) => run_reproduce(a),
        Command::Fixture(c) => fixture::run(c),
        Command::Stance(a) => stance::stance(a),
        Command::Equilibrium(c) => equilibrium::run(c),
        Command::Zeno(c) => zeno::run(c),
        Command::Walker(c) => walker::run(c),
        Command::Eqset(c) => eqset::run(c),
        Command::Merge(a) => equilibrium::merge(&a.shards, a.common.out.as_deref(), a.common.json),
        Command::Simulate(a) => multibody::simulate(a),
        Command::Gait(a) => multibody::gait(a),
        Command::Continue(a) => multibody::continuation(a),
        Command::Basin(a) => multibody::basin(a),
        Command::Painleve(a) => multibody::painleve(a),
        Command::Slip(a) => multibody::slip(a),
        Command::Orbit(a) => multibody::orbit(a),
        Command::Model(c) => multibody::run(c),
    }
}

fn report_exit(result: Result<(), Failure>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Input(e)) => {
            eprintln!("error: {}", one_line(&e));
            ExitCode::from(2)
        }
        Err(Failure::Numerical(e)) => {
            // The library's message already says "numerical failure: ...".
            let msg = one_line(&e);
            if msg.starts_with("numerical failure") {
                eprintln!("error: {msg}");
            } else {
                eprintln!("error: numerical failure: {msg}");
            }
            ExitCode::from(3)
        }
        Err(Failure::Internal(e) | Failure::Incomplete(e)) => {
            eprintln!("error: {}", one_line(&e));
            ExitCode::from(3)
        }
    }
}

fn one_line(e: &anyhow::Error) -> String {
    // The chain joined by ": " (as `{:#}` prints it), leaving out a cause whose text the message
    // already holds (an I/O error names its path and its cause in one line).
    let mut out = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if !out.contains(&text) {
            if !out.is_empty() {
                out.push_str(": ");
            }
            out.push_str(&text);
        }
    }
    out.replace('\n', " ")
}

pub fn print_json(v: &impl serde::Serialize) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}", serde_json::to_string(v).context("serialising JSON")?).context("writing stdout")?;
    Ok(())
}

/// Writes `v` as pretty JSON into `dir/name` (the command's `--json` object as a file).
pub fn write_json(dir: &Path, name: &str, v: &impl serde::Serialize) -> Result<(), Failure> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_string_pretty(v).context("serialising")?)
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

fn lcp_solve(a: LcpSolveArgs) -> Result<(), Failure> {
    let file = lcp::io::read(&a.file)?;
    let problem = &file.lcp;
    let n = problem.n();
    if a.all {
        let e = contactlab::api::lcp_solve_all(problem)?;
        let status = e.status();
        if let Some(dir) = &a.common.out {
            e.write_files(n, dir)?;
        }
        if a.common.json {
            print_json(&e.summary(n))?;
        } else {
            println!(
                "{}: n = {n}, {status}: {} piece(s){}, solution set {}",
                a.file.display(),
                e.pieces.len() - e.failed(),
                if e.failed() > 0 {
                    format!(" and {} that fail the check on the data as given", e.failed())
                } else {
                    String::new()
                },
                if e.bounded { "bounded" } else { "unbounded" }
            );
            for (k, p) in e.pieces.iter().enumerate() {
                println!(
                    "  piece {k}: alpha = {:?}, bounded = {}, point z = {:?}, residual = {:.2e}, violation = {}{}",
                    p.alpha,
                    p.bounded,
                    p.z.iter().map(|v| (v * 1e9).round() / 1e9).collect::<Vec<_>>(),
                    p.residual,
                    p.violation.map_or("-".to_string(), |v| format!("{v:.2e}")),
                    if p.verified == Some(false) { " (FAILS: not a solution of the data as given)" } else { "" }
                );
            }
        }
        if status == "numerical-error" {
            return Err(Failure::Numerical(anyhow::anyhow!(
                "the enumeration ended in numerical trouble: {} piece(s) whose point fails the check on the data as given{}",
                e.failed(),
                if e.missed { ", or a piece the search missed" } else { "" }
            )));
        }
        return Ok(());
    }
    let mut settings = LcpSettings { covering: file.covering.clone(), ..Default::default() };
    if let Some(m) = a.max_pivots {
        settings.max_pivots = m.max(1);
    }
    if let Some(t) = a.time_limit {
        if !(t.is_finite() && t >= 0.0) {
            return Err(Failure::Input(anyhow::anyhow!("--time-limit: must be a finite number >= 0 (got {t})")));
        }
        settings.time_limit = Some(t);
    }
    // Progress on long runs (shown on a terminal, after the first second).
    let bar = indicatif::ProgressBar::hidden();
    let started = std::time::Instant::now();
    {
        let bar = bar.clone();
        settings.progress = Some(lcp::Progress(std::sync::Arc::new(move |k, cap| {
            if started.elapsed().as_secs_f64() > 1.0 {
                if bar.is_hidden() {
                    bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
                }
                bar.set_length(cap as u64);
                bar.set_position(k as u64);
            }
        })));
    }
    let s = contactlab::api::lcp_solve(problem, &settings)?;
    bar.finish_and_clear();
    if let Some(dir) = &a.common.out {
        s.write_files(dir)?;
    }
    if a.common.json {
        print_json(&s)?;
    } else {
        println!("{}: n = {n}", a.file.display());
        println!("  status   {}", s.status.as_str());
        println!("  method   {}", contactlab::output::kebab(&s.method));
        if let Some(r) = s.reason {
            println!(
                "  reason   {} ({})",
                contactlab::output::kebab(&r),
                if s.proof.is_proved() { "proved" } else { "not proved" }
            );
        }
        println!("  pivots   {}", s.pivots);
        println!("  residual {}", s.residual.map_or("-".to_string(), |r| format!("{r:.3e}")));
        println!("  violation {}", s.violation.map_or("-".to_string(), |r| format!("{r:.3e}")));
        match &s.proof.proof_reason {
            None => println!("  proof    interval (the verdict holds for the exact data)"),
            Some(why) => println!("  proof    none ({why})"),
        }
        if s.status == LcpStatus::Solved {
            println!("  z = {:?}", s.z.as_slice());
            println!("  w = {:?}", s.w.as_slice());
        }
    }
    if s.status == LcpStatus::NumericalError {
        return Err(Failure::Numerical(anyhow::anyhow!(
            "LCP solve ended in numerical trouble (residual {}, violation on the data as given {})",
            s.residual.map_or("not finite".to_string(), |r| format!("{r:.3e}")),
            s.violation.map_or("not finite".to_string(), |r| format!("{r:.3e}"))
        )));
    }
    Ok(())
}

fn lcp_classes(a: LcpClassesArgs) -> Result<(), Failure> {
    let file = lcp::io::read(&a.file)?;
    let m = &file.lcp.m;
    let all = contactlab::api::lcp_classes(m)?;
    let (p, ca, cqa, psd) =
        (&all.p_matrix, &all.column_adequate, &all.column_quasi_adequate, all.positive_semidefinite);
    if let Some(dir) = &a.common.out {
        all.write_files(dir)?;
    }
    if a.common.json {
        print_json(&serde_json::to_value(&all).context("serialising the classes")?)?;
    } else {
        let show = |name: &str, t: &classes::ClassTest| {
            println!(
                "  {name:<24} {}{}",
                t.holds,
                t.witness_set.as_ref().map_or(String::new(), |w| format!("  (violated on index set {w:?})"))
            );
        };
        println!("{}: n = {}", a.file.display(), m.nrows());
        show("P-matrix", p);
        show("column adequate", ca);
        show("column quasi-adequate", cqa);
        println!("  {:<24} {psd}", "positive semidefinite");
    }
    Ok(())
}

/// What `reproduce --json` prints.
#[derive(serde::Serialize)]
struct ReproduceSummary {
    out: String,
    r#match: usize,
    mismatch: usize,
    erratum: usize,
    sections: Vec<String>,
}

fn run_reproduce(a: ReproduceArgs) -> Result<(), Failure> {
    if let Some(only) = &a.only {
        reproduce::select(only)?;
    }
    let opts = reproduce::Options {
        out: a.out.clone(),
        only: a.only.clone(),
        data: a.data.clone().unwrap_or_else(reproduce::default_data_dir),
    };
    if !opts.data.is_dir() {
        return Err(Failure::Input(anyhow::anyhow!(
            "data directory {} not found; pass --data DIR or set CONTACTLAB_DATA",
            opts.data.display()
        )));
    }
    let bar = indicatif::ProgressBar::new(1);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{prefix:>5} [{bar:40}] {pos}/{len} {elapsed}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let progress = |id: &str, done: u64, total: u64| {
        bar.set_prefix(id.to_string());
        bar.set_length(total);
        bar.set_position(done);
    };
    let report = reproduce::run(&opts, &progress)?;
    bar.finish_and_clear();
    let (m, mm, e) = report.counts();
    if a.json {
        print_json(&ReproduceSummary {
            out: staging::shown(&opts.out),
            r#match: m,
            mismatch: mm,
            erratum: e,
            sections: report.sections.iter().map(|s| s.id.clone()).collect(),
        })?;
    } else {
        println!(
            "wrote {}/REPORT.md and results.json: {m} match, {mm} mismatch, {e} erratum",
            staging::shown(&opts.out)
        );
    }
    Ok(())
}
