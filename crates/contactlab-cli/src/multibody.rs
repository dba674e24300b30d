//! `contactlab simulate` and `contactlab model inspect`: any mechanism (`kind = "multibody"`).

use std::path::PathBuf;

use clap::{Args, Subcommand};
use contactlab::api::{Gaits, Inspection, MechanismModel, Painleve, SimulateSettings};
use contactlab::continuation::Settings as ContinuationSettings;
use contactlab::multibody::basin::BasinSettings;
use contactlab::multibody::gait::GaitSettings;
use contactlab::multibody::painleve::PainleveSettings;

use crate::{print_json, write_json, Common, Failure};

mod contact;
pub use contact::*;

/// `out_dir()` (the command's output directory, if given) of argument structs with a `common`.
macro_rules! out_dir_from_common {
    ($($args:ty),*) => {$(
        impl $args {
            /// The command's output directory, if given.
            pub fn out_dir(&mut self) -> Option<&mut PathBuf> {
                self.common.out.as_mut()
            }
        }
    )*};
}

out_dir_from_common!(GaitArgs, BasinArgs, ContinueArgs, SimulateArgs, PainleveArgs, SlipArgs, OrbitArgs);

#[derive(Args, Debug)]
pub struct SimulateArgs {
    #[arg(help = contactlab::api::registry::model_help("simulate"))]
    model: PathBuf,
    /// Initial state: n numbers (q, with q' = 0) or 2n numbers (q then q'), comma-separated, in
    /// the order of the model's coordinates (default: the model's [initial] table).
    #[arg(long, value_delimiter = ',', value_name = "Q,..,V,..", allow_hyphen_values = true)]
    state: Option<Vec<f64>>,
    /// End time (s).
    #[arg(long, default_value_t = SimulateSettings::default().t_max)]
    t_max: f64,
    /// Largest number of events.
    #[arg(long, default_value_t = SimulateSettings::default().max_events)]
    max_events: usize,
    /// Relative integration tolerance.
    #[arg(long, default_value_t = SimulateSettings::default().rtol)]
    rtol: f64,
    /// Samples inside each integration step (for the CSV and the plot).
    #[arg(long, default_value_t = SimulateSettings::default().per_step)]
    per_step: usize,
    /// A robot in 3-D (an MJCF file, or a URDF with --base): `auto` (the event driver up to 16
    /// candidate contacts between shapes and ground, Moreau–Jean otherwise), `event` (the event
    /// driver: modes, impacts, Zeno) or `moreau` (Moreau–Jean time-stepping, for many
    /// contacts). Both hold the joints' limits as stops.
    #[arg(long, default_value_t = SimulateSettings::default().method.to_string(), value_parser = ["event", "moreau", "auto"])]
    method: String,
    /// A robot in 3-D with --method moreau: the time step (s).
    #[arg(long, default_value_t = SimulateSettings::default().h)]
    h: f64,
    /// A robot in 3-D, event-driven: the most integration steps, a bound on the work (the run
    /// then ends with `step-limit`, exit 3).
    #[arg(long, default_value_t = SimulateSettings::default().max_steps)]
    max_steps: usize,
    /// A robot in 3-D with --method moreau: the most Gauss–Seidel sweeps of a step's contact
    /// problem (a step still unconverged there ends the run with `iteration-limit`, exit 3).
    #[arg(long, default_value_t = SimulateSettings::default().max_sweeps)]
    max_sweeps: usize,
    /// A robot in 3-D: one friction coefficient for every contact pair (default: the file's,
    /// the larger of a pair's two as MuJoCo takes it; 1 where the file gives none).
    #[arg(long)]
    mu: Option<f64>,
    /// A robot in 3-D with --out: the animation's projection, `perspective` or `orthographic`.
    #[arg(long, default_value = "perspective", value_parser = ["perspective", "orthographic"])]
    view: String,
    /// A robot in 3-D: Newton's restitution coefficient in [0, 1].
    #[arg(long, default_value_t = SimulateSettings::default().restitution)]
    restitution: f64,
    /// A URDF's root link: `fixed` (the default, as the URDF says) or `floating` in 3-D, or
    /// `planar` for the planar mechanism. An MJCF file or a 3-D scene file says it itself.
    #[arg(long, value_parser = ["fixed", "floating", "planar"])]
    base: Option<String>,
    #[command(flatten)]
    common: Common,
}

#[derive(Args, Debug)]
pub struct GaitArgs {
    #[arg(help = contactlab::api::registry::model_help("gait"))]
    model: PathBuf,
    /// Relative integration tolerance (default: 1e-10 for a planar mechanism, 1e-12 for a robot
    /// in 3-D).
    #[arg(long)]
    rtol: Option<f64>,
    /// Start from this state instead of searching (planar: the gait Newton's method reaches from
    /// this post-strike state, 2n numbers, q then q'; in 3-D: q, or q then v, run through the
    /// [gait] table's settling strikes first; default: the scene's [initial]), comma-separated.
    #[arg(long, value_delimiter = ',', value_name = "Q,..,V,..", allow_hyphen_values = true)]
    state: Option<Vec<f64>>,
    /// A URDF's root link: `planar` reads it as a planar mechanism; a bare URDF is otherwise a
    /// robot in 3-D, which walks only from a scene file with a [gait] table.
    #[arg(long, value_parser = ["fixed", "floating", "planar"])]
    base: Option<String>,
    #[command(flatten)]
    common: Common,
}

/// A mechanism, planar or in 3-D, as `contactlab::api::open` reads it.
fn open(path: &std::path::Path, base: Option<&str>) -> Result<MechanismModel, Failure> {
    contactlab::api::open(path, base).map_err(|e| if base == Some("planar") { urdf_hint(path, e) } else { e.into() })
}

/// A planar reader's input error on a URDF, with how a URDF is read.
fn urdf_hint(path: &std::path::Path, e: contactlab::Error) -> Failure {
    if path.extension().is_some_and(|x| x.eq_ignore_ascii_case("urdf")) && e.is_input_error() {
        Failure::Input(anyhow::anyhow!(
            "{e}; `--base planar` reads a URDF as a planar mechanism: a robot in 3-D is read without it, and \
             walks (gait, continue, basin) from a scene file with a [gait] table (docs/robots.md)"
        ))
    } else {
        e.into()
    }
}

pub fn gait(a: GaitArgs) -> Result<(), Failure> {
    // A 3-D scene, or a planar mechanism (a URDF with --base planar among them).
    let m = open(&a.model, a.base.as_deref())?;
    let r = match (contactlab::api::gait(&m, a.state.as_deref(), a.rtol)?, &m) {
        (Gaits::Planar(r), _) => r,
        (Gaits::Spatial(g), MechanismModel::Spatial(m)) => return gait_3d(&a, m, *g),
        _ => return Err(Failure::Internal(anyhow::anyhow!("gait answered for another kind of model"))),
    };
    if let Some(dir) = &a.common.out {
        write_json(dir, "gaits.json", &r)?;
    }
    if a.common.json {
        return print_json(&r);
    }
    println!(
        "{}: {} gait(s) from {} starts ({} settled, {} onto a cycle of steps)",
        a.model.display(),
        r.gaits.len(),
        r.starts,
        r.settled,
        r.cycled
    );
    for (k, g) in r.gaits.iter().enumerate() {
        let mods: Vec<String> = g.multipliers.iter().map(|z| format!("{:.6}", z[0].hypot(z[1]))).collect();
        println!(
            "  gait {k}: period {:.9} s, {}, |multipliers| [{}]",
            g.period,
            if g.stable { "stable" } else { "unstable" },
            mods.join(", ")
        );
        println!("    q  = {:?}", g.q);
        println!("    q' = {:?}", g.v);
        if let Some(mu) = g.mu_stick {
            println!("    mu_stick {mu:.6}");
        }
        if let Some(r) = g.impulse_ratio {
            println!("    impulse ratio |Lt|/Ln at the strike {r:.6}");
        }
    }
    if let Some(reason) = &r.reason {
        println!("  {reason}");
    }
    Ok(())
}

/// `gait` on a 3-D scene file with a `[gait]` table.
fn gait_3d(a: &GaitArgs, m: &contactlab::api::SpatialModel, g: contactlab::api::SpatialGait) -> Result<(), Failure> {
    if let Some(dir) = &a.common.out {
        write_json(dir, "gait.json", &g)?;
        g.write_animation(m, dir, Default::default())?;
    }
    if a.common.json {
        return print_json(&g);
    }
    if !g.converged {
        println!(
            "{}: no gait from the state after {} strikes: {}",
            a.model.display(),
            g.strikes_settled,
            g.reason.as_deref().unwrap_or("Newton's method did not converge")
        );
        return Ok(());
    }
    let mods: Vec<String> = g.multipliers_found().iter().map(|z| format!("{:.9}", z[0].hypot(z[1]))).collect();
    println!(
        "{}: gait after {} strikes and {} Newton steps: period {:.9} s, {}, |multipliers| [{}] ({})",
        a.model.display(),
        g.strikes_settled,
        g.iterations,
        g.period.unwrap_or(f64::NAN),
        match (g.stable, g.stable_but_neutral, g.neutral.len()) {
            (true, _, _) => "stable".to_string(),
            (false, true, k) => format!("stable but for {k} neutral multiplier(s) at 1"),
            _ => "unstable".to_string(),
        },
        mods.join(", "),
        match &g.derivatives {
            contactlab::hybrid::section::JacobianRoute::Variational => "exact".to_string(),
            contactlab::hybrid::section::JacobianRoute::Differences(why) => format!("differences: {why}"),
        }
    );
    for (name, y) in g.coordinates.iter().zip(g.y.as_deref().unwrap_or(&[])) {
        println!("    {name} = {y:.12}");
    }
    println!("    q = {:?}", g.q.as_deref().unwrap_or(&[]));
    println!("    v = {:?}", g.v.as_deref().unwrap_or(&[]));
    Ok(())
}

#[derive(Args, Debug)]
pub struct BasinArgs {
    #[arg(help = contactlab::api::registry::model_help("basin"))]
    model: PathBuf,
    /// A section coordinate to vary, as NAME=LO:HI:N: a coordinate's name (stance.theta) or its
    /// rate (stance.theta_dot); in 3-D a coordinate `gait` reports (d.wheel.wx, wheel.wy); once
    /// or twice. The others keep the base state's values.
    #[arg(long = "vary", value_name = "NAME=lo:hi:n", required = true, allow_hyphen_values = true)]
    vary: Vec<String>,
    /// Strikes per cell.
    #[arg(long, default_value_t = BasinSettings::default().steps)]
    steps: usize,
    /// The base state on the section (just after a strike), 2n numbers (q then q'),
    /// comma-separated (default: the most stable gait found; in 3-D the scene's gait, found from
    /// this state).
    #[arg(long, value_delimiter = ',', value_name = "Q,..,V,..", allow_hyphen_values = true)]
    state: Option<Vec<f64>>,
    /// A strike this near a stable gait (relative to the section's scales) is captured by it.
    #[arg(long, default_value_t = BasinSettings::default().capture_tol)]
    capture_tol: f64,
    /// A fall: the centre of mass below this fraction of its base height over the support line.
    #[arg(long, default_value_t = BasinSettings::default().fall_height)]
    fall_height: f64,
    /// A run with no strike for this long (in the model's time unit sqrt(l/g)) has stopped
    /// walking; near a basin boundary a start can take long to creep over a saddle (a wheel over
    /// the vertical), so a longer bound sharpens the boundary.
    #[arg(long, default_value_t = BasinSettings::default().max_step_time)]
    max_step_time: f64,
    /// Lay the grid on the states just before the strike (the striking contact touching its
    /// line) and start each cell with the strike: only states a strike produces (Schwab and
    /// Wisse's plane for the simplest walker). --state is then a pre-strike state.
    #[arg(long)]
    before_strike: bool,
    /// Relative integration tolerance.
    #[arg(long, default_value_t = BasinSettings::default().rtol)]
    rtol: f64,
    /// A URDF's root link: `planar` reads it as a planar mechanism; a bare URDF is otherwise a
    /// robot in 3-D, which walks only from a scene file with a [gait] table.
    #[arg(long, value_parser = ["fixed", "floating", "planar"])]
    base: Option<String>,
    #[command(flatten)]
    common: Common,
}

pub fn basin(a: BasinArgs) -> Result<(), Failure> {
    use contactlab::multibody::basin::BasinAxis;
    // A 3-D scene, or a planar mechanism (a URDF with --base planar among them).
    let m = open(&a.model, a.base.as_deref())?;
    if a.vary.len() > 2 {
        return Err(Failure::Input(anyhow::anyhow!(
            "--vary: give one or two section coordinates, got {}",
            a.vary.len()
        )));
    }
    let axes: Vec<BasinAxis> = a.vary.iter().map(|v| BasinAxis::parse(v)).collect::<Result<_, _>>()?;
    let settings = BasinSettings {
        steps: a.steps,
        capture_tol: a.capture_tol,
        fall_height: a.fall_height,
        rtol: a.rtol,
        before_strike: a.before_strike,
        max_step_time: a.max_step_time,
        ..Default::default()
    };
    let bar = indicatif::ProgressBar::new(1);
    let progress = |d: u64, t: u64| {
        bar.set_length(t);
        bar.set_position(d);
    };
    let b = contactlab::api::basin(&m, &axes, a.state.as_deref(), &settings, &progress)?;
    let (name, coordinates) = match &m {
        MechanismModel::Planar(m) => {
            (m.name.clone().unwrap_or_else(|| a.model.display().to_string()), m.coordinates.clone())
        }
        MechanismModel::Spatial(_) => (a.model.display().to_string(), vec![]),
    };
    bar.finish_and_clear();
    if let Some(dir) = &a.common.out {
        write_json(dir, "basin.json", &b)?;
        b.write_files(dir, &format!("{name}: basin of attraction ({} strikes)", a.steps), &coordinates)?;
    }
    if a.common.json {
        return print_json(&b);
    }
    println!("{}: {} cells, up to {} strikes each", a.model.display(), b.cells.len(), a.steps);
    for (k, p) in b.plan.periods.iter().enumerate() {
        println!("  gait {k}: stable, period {p:.6} s");
    }
    for (l, f) in &b.fractions {
        println!("  {l:>10}: {:6.2} %", 100.0 * f);
    }
    Ok(())
}

#[derive(Args, Debug)]
pub struct ContinueArgs {
    #[arg(help = contactlab::api::registry::model_help("continue"))]
    model: PathBuf,
    /// The parameter: a key of the model file, e.g. slope_deg, contact[*].mu, body[hip].mass,
    /// limit[knee stop].e; in a 3-D scene slope, mu, link[left_leg].pos[1] (docs/models.md,
    /// "Parameter keys").
    #[arg(long)]
    param: String,
    /// The parameter's start (default: the file's value).
    #[arg(long, allow_hyphen_values = true)]
    from: Option<f64>,
    /// The parameter's end.
    #[arg(long, allow_hyphen_values = true)]
    to: f64,
    /// The gait to follow: its post-strike state, 2n numbers (q then q'), comma-separated
    /// (default: the first gait found from nothing at --from).
    #[arg(long, value_delimiter = ',', value_name = "Q,..,V,..", allow_hyphen_values = true)]
    state: Option<Vec<f64>>,
    /// Follow P3's periodic orbit through the constrained phases of this joint limit or contact
    /// (a multibody model's name) instead of a gait; P3's pendulum (kind =
    /// "double-pendulum-stop") always follows its knee-stop orbit.
    #[arg(long, value_name = "CONSTRAINT")]
    orbit: Option<String>,
    /// First step, as a fraction of the parameter range (arclength in scaled units; at most
    /// --max-step).
    #[arg(long, default_value_t = ContinuationSettings::default().step)]
    step: f64,
    /// Largest step (same units).
    #[arg(long, default_value_t = ContinuationSettings::default().max_step)]
    max_step: f64,
    /// Largest number of points per branch.
    #[arg(long, default_value_t = ContinuationSettings::default().max_points)]
    max_points: usize,
    /// Period doublings to follow (1: the doubled branch; 3: up to period 8).
    #[arg(long, default_value_t = ContinuationSettings::default().max_doublings)]
    max_doublings: usize,
    /// Relative integration tolerance.
    #[arg(long, default_value_t = GaitSettings::default().rtol)]
    rtol: f64,
    /// A URDF's root link: `planar` reads it as a planar mechanism; a bare URDF is otherwise a
    /// robot in 3-D, which walks only from a scene file with a [gait] table.
    #[arg(long, value_parser = ["fixed", "floating", "planar"])]
    base: Option<String>,
    #[command(flatten)]
    common: Common,
}

pub fn continuation(a: ContinueArgs) -> Result<(), Failure> {
    // A 3-D scene or a planar mechanism (a URDF with --base planar among them): the file's
    // document says which.
    let doc = contactlab::api::continuation_doc(&a.model, a.base.as_deref())?;
    let req = contactlab::api::ContinueRequest {
        param: a.param.clone(),
        from: a.from,
        to: a.to,
        state: a.state.clone(),
        orbit: a.orbit.clone(),
        settings: ContinuationSettings {
            step: a.step,
            max_step: a.max_step,
            max_points: a.max_points,
            max_doublings: a.max_doublings,
            ..Default::default()
        },
        gait: GaitSettings { rtol: a.rtol, ..Default::default() },
    };
    let bar = indicatif::ProgressBar::new(1000);
    let lo = a.from.unwrap_or(f64::NAN);
    let c = contactlab::api::continuation(&doc, &req, &|p| {
        if lo.is_finite() {
            bar.set_position((((p - lo) / (a.to - lo)).clamp(0.0, 1.0) * 1000.0) as u64);
        } else {
            bar.tick();
        }
    })?;
    bar.finish_and_clear();
    if let Some(dir) = &a.common.out {
        write_json(dir, "continuation.json", &c)?;
        c.write_files(dir, &format!("{}: continuation in {}", a.model.display(), a.param))?;
    }
    if a.common.json {
        return print_json(&c);
    }
    println!("{}: continuation in {} ({} returns computed)", a.model.display(), c.param, c.evaluations);
    for (i, b) in c.branches.iter().enumerate() {
        let (p0, p1) = (b.points.first().map_or(f64::NAN, |p| p.p), b.points.last().map_or(f64::NAN, |p| p.p));
        println!(
            "  branch {i} (period {}): {} points, {} from {p0:.6} to {p1:.6}; {}",
            b.period_multiple,
            b.points.len(),
            c.param,
            b.end
        );
        for s in &b.special {
            println!(
                "    {} at {} = {:.8} (bracket {:.1e}) {}",
                contactlab::output::kebab(&s.kind),
                c.param,
                s.p,
                s.bracket,
                s.detail
            );
        }
    }
    Ok(())
}

#[derive(Subcommand, Debug)]
pub enum ModelCommand {
    /// A model's dynamics at one state: M(q), h(q, q'), gravity and joint forces, every contact's
    /// gap, Jacobians and J'q', energies, and the finite-difference check of all of them. --out
    /// writes inspect.json.
    Inspect(InspectArgs),
}

impl ModelCommand {
    /// The command's output directory, if given.
    pub fn out_dir(&mut self) -> Option<&mut PathBuf> {
        match self {
            ModelCommand::Inspect(a) => a.common.out.as_mut(),
        }
    }
}

#[derive(Args, Debug)]
pub struct InspectArgs {
    #[arg(help = contactlab::api::registry::model_help("model inspect"))]
    model: PathBuf,
    /// The state: n numbers (q, with q' = 0) or 2n numbers (q then q'), comma-separated
    /// (default: the model's [initial] table).
    #[arg(long, value_delimiter = ',', value_name = "Q,..,V,..", allow_hyphen_values = true)]
    state: Option<Vec<f64>>,
    /// Time (s), for time-periodic references.
    #[arg(long, default_value_t = 0.0)]
    t: f64,
    /// A URDF's root link: `fixed` (the default, as the URDF says) or `floating` (Pinocchio's
    /// FreeFlyer) in 3-D, or `planar` for the planar mechanism. An MJCF file (.xml) or a 3-D
    /// scene file says it itself.
    #[arg(long, value_parser = ["fixed", "floating", "planar"])]
    base: Option<String>,
    #[command(flatten)]
    common: Common,
}

pub fn simulate(a: SimulateArgs) -> Result<(), Failure> {
    let m = open(&a.model, a.base.as_deref())?;
    let s = contactlab::api::SimulateSettings {
        t_max: a.t_max,
        h: a.h,
        mu: a.mu,
        restitution: a.restitution,
        method: a.method.parse()?,
        rtol: a.rtol,
        max_events: a.max_events,
        per_step: a.per_step,
        max_sweeps: a.max_sweeps,
        max_steps: a.max_steps,
        ..Default::default()
    };
    // Progress on long runs (on a terminal, after the first second): simulated time, and
    // what to try when the event driver crawls.
    let bar = indicatif::ProgressBar::hidden();
    let started = std::time::Instant::now();
    let mut last = 0.0f64;
    let mut progress = |t: f64| {
        if t - last < 1e-3 * a.t_max {
            return;
        }
        last = t;
        if started.elapsed().as_secs_f64() > 1.0 {
            if bar.is_hidden() {
                bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
                bar.set_style(
                    indicatif::ProgressStyle::with_template(
                        "{msg} [{bar:30}] {percent}% of --t-max, {elapsed} elapsed",
                    )
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
                );
                bar.set_length(1000);
                if s.method == contactlab::api::SpatialMethod::Event {
                    bar.set_message("simulating (slow? many contacts slipping at once: try --method moreau)");
                } else {
                    bar.set_message("simulating");
                }
            }
            bar.set_position((1000.0 * t / a.t_max) as u64);
        }
    };
    let r = contactlab::api::simulate_with(&m, a.state.as_deref(), &s, &mut progress);
    bar.finish_and_clear();
    let m = match m {
        MechanismModel::Spatial(m) => m,
        MechanismModel::Planar(m) => return simulated_planar(&a, &m, r?.into_planar()?),
    };
    let r = r?.into_spatial()?;
    // At most six names, then how many more (the JSON field has them all).
    let listed = |names: &[String], field: &str| {
        let shown: Vec<&str> = names.iter().map(String::as_str).take(6).collect();
        let more = names.len() - shown.len();
        format!("{}{}", shown.join(", "), if more > 0 { format!(" and {more} more ({field})") } else { String::new() })
    };
    if !r.ignored_collisions.is_empty() {
        let k = r.ignored_collisions.len();
        eprintln!(
            "warning: {} collide{} only through meshes, which contactlab skips, and pass{} through the ground: {}",
            if k == 1 { "1 body".to_string() } else { format!("{k} bodies") },
            if k == 1 { "s" } else { "" },
            if k == 1 { "es" } else { "" },
            listed(&r.ignored_collisions, "ignored_collisions"),
        );
    }
    if !r.start_clamped.is_empty() {
        eprintln!(
            "note: the start lies outside the range of {} joint(s), which start at the nearest stop (start_clamped): {}",
            r.start_clamped.len(),
            listed(&r.start_clamped, "start_clamped")
        );
    }
    if let Some(dir) = &a.common.out {
        r.write_files(dir)?;
        let view = contactlab::plot::render3d::View3 { projection: a.view.parse()?, ..Default::default() };
        contactlab::api::spatial_animation(&m, &r, view, &dir.join("animation.gif"))?;
    }
    if a.common.json {
        print_json(&r)?;
    } else {
        let e = &r.energy;
        let how = match r.method {
            contactlab::api::SpatialMethod::Event => format!("event-driven, rtol = {}", a.rtol),
            _ => format!("Moreau–Jean, h = {} s", a.h),
        };
        println!(
            "{}: {} coordinates, {} velocities ({how})",
            a.model.display(),
            r.coordinates.len(),
            r.velocities.len(),
        );
        if let (Some(first), Some(last)) = (e.first(), e.last()) {
            println!("  energy {first:.6} J at the start, {last:.6} J at the end");
        }
        let touching = r.contacts.last().copied().unwrap_or(0);
        match (&r.events, r.residual_max) {
            (Some(ev), _) => {
                let impacts = ev.iter().filter(|x| x.kind == contactlab::hybrid::EventKind::Impact).count();
                println!("  {} events ({impacts} impacts); {touching} contacts touching at the end", ev.len());
            }
            (None, res) => {
                println!("  {touching} contacts at the end; largest one-step residual {:.1e}", res.unwrap_or(0.0))
            }
        }
        println!("  ended at t = {:.6} s: {}", r.t.last().copied().unwrap_or(0.0), r.end);
    }
    early_end(&r.end, r.t.last().copied().unwrap_or(0.0), r.termination.as_ref(), r.contact_names.as_deref())
}

/// `simulate`'s output for a planar mechanism.
fn simulated_planar(
    a: &SimulateArgs,
    m: &contactlab::multibody::Mechanism,
    sim: contactlab::multibody::simulate::Simulation,
) -> Result<(), Failure> {
    if let Some(dir) = &a.common.out {
        sim.write_files(dir)?;
        sim.write_animation(m, &dir.join("animation.gif"))?;
    }
    if a.common.json {
        print_json(&sim)?;
    } else {
        println!(
            "{}: {} degrees of freedom ({}), {} contacts",
            a.model.display(),
            m.dof(),
            m.coordinates.join(", "),
            m.contact_names.len()
        );
        println!(
            "  {} events: {} impacts, {} Zeno points, {} stick/slip transitions, {} lift-offs",
            sim.events.len(),
            sim.impacts,
            sim.zeno_points,
            sim.slip_events,
            sim.lift_offs
        );
        if let Some([a0, a1]) = sim.energy {
            println!("  energy {a0:.6} J at the start, {a1:.6} J at the end");
        }
        println!("  ended at t = {:.6} s: {}", sim.t_end, contactlab::output::kebab(&sim.termination));
    }
    early_end(&contactlab::output::kebab(&sim.termination), sim.t_end, Some(&sim.termination), Some(&m.contact_names))
}

/// A simulation that ended before `--t-max` for a numerical reason, or at a limit, fails with
/// exit 3 after its output is printed and written, saying what to change (docs/cli.md, "Exit
/// codes", lists every `end`); one that reached `--t-max` or rest is a success, and so is one
/// that ended at the rigid model's own verdict (a Painlevé inconsistency or indeterminacy, a
/// dynamic jam: P2's outcomes), which a note on stderr names.
fn early_end(
    end: &str,
    t: f64,
    termination: Option<&contactlab::hybrid::Termination>,
    names: Option<&[String]>,
) -> Result<(), Failure> {
    use contactlab::hybrid::{FailureKind, Termination};
    let advice = match end {
        "completed" | "time-limit" | "rest" | "no-further-event" => return Ok(()),
        "iteration-limit" => "a step's contact problem did not converge: raise --max-sweeps or lower --h",
        "numerical-trouble" => "a step's contact problem could not be solved: lower --h",
        "event-limit" => "raise --max-events",
        "step-limit" => {
            "the event driver's step budget (--max-steps) ran out: slow slips of many contacts at once, or a rolling contact near a face contact, make its steps tiny, where the rigid event-driven model is no longer the tool: --method moreau (or raise --max-steps)"
        }
        "integration-failure" => "the step size collapsed: loosen --rtol, or try --method moreau",
        "diverged" => "the state grew beyond bounds: check the model, or lower --rtol",
        "failed" => match termination {
            Some(Termination::Failed(f))
                if matches!(f.kind, FailureKind::Painleve | FailureKind::Indeterminate | FailureKind::Jam) =>
            {
                let what = match f.kind {
                    FailureKind::Jam => "a dynamic jam (the normal force grows without bound as B falls to 0)",
                    FailureKind::Indeterminate => "a Painlevé indeterminacy (several consistent contact modes)",
                    _ => "a Painlevé inconsistency (no consistent contact mode)",
                };
                eprintln!("note: the run ended at t = {t:.6} s at the rigid model's verdict: {what}; `painleve` and `slip` analyse it (a robot in 3-D: --method moreau runs on through it, with an impulse)");
                return Ok(());
            }
            Some(Termination::Failed(contactlab::hybrid::ModeFailure {
                evidence: Some(contactlab::hybrid::FailureEvidence::Penetration { contact, gap }),
                ..
            })) if t == 0.0 => {
                return Err(Failure::Input(anyhow::anyhow!(
                    "the initial state puts contact {} {:.3e} m below its plane (give a state above the ground: --state, or the file's initial state)",
                    names.and_then(|n| n.get(*contact)).map_or_else(|| contact.to_string(), |n| n.clone()),
                    -gap
                )));
            }
            Some(Termination::Failed(f)) => {
                let why = serde_json::to_string(f).unwrap_or_default();
                return Err(Failure::Incomplete(anyhow::anyhow!(
                    "the run ended at t = {t:.6} s before --t-max: {why} (a contact that would sink, a singular state, or an impact Gauss–Seidel could not settle): try --method moreau"
                )));
            }
            _ => "",
        },
        _ => "",
    };
    Err(Failure::Incomplete(anyhow::anyhow!("the run ended at t = {t:.6} s before --t-max ({end}): {advice}")))
}

pub fn run(cmd: ModelCommand) -> Result<(), Failure> {
    match cmd {
        ModelCommand::Inspect(a) => inspect(a),
    }
}

fn inspect(a: InspectArgs) -> Result<(), Failure> {
    let m = open(&a.model, a.base.as_deref())?;
    let r = match (contactlab::api::inspect(&m, a.state.as_deref(), a.t)?, &m) {
        (Inspection::Planar(r), MechanismModel::Planar(m)) => (r, m),
        (Inspection::Spatial(r), MechanismModel::Spatial(m)) => return inspected_spatial(&a, m, r),
        _ => return Err(Failure::Internal(anyhow::anyhow!("inspect answered for another kind of model"))),
    };
    let (r, m) = r;
    if let Some(dir) = &a.common.out {
        write_json(dir, "inspect.json", &r)?;
    }
    if a.common.json {
        print_json(&r)?;
        return Ok(());
    }
    let fmt = |v: &[f64]| v.iter().map(|x| format!("{x:.6}")).collect::<Vec<_>>().join(", ");
    println!("{}: {} degrees of freedom", a.model.display(), m.dof());
    println!("  coordinates  {}", m.coordinates.join(", "));
    println!("  q            [{}]", fmt(&r.q));
    println!("  q'           [{}]", fmt(&r.v));
    println!("  M(q)");
    for row in &r.mass_matrix {
        println!("    [{}]", fmt(row));
    }
    println!(
        "  eig(M)       [{:.6e}, {:.6e}], asymmetry {:.1e}",
        r.mass_matrix_eigenvalues[0], r.mass_matrix_eigenvalues[1], r.mass_matrix_asymmetry
    );
    println!("  h(q, q')     [{}]", fmt(&r.bias));
    println!("  gravity      [{}]", fmt(&r.gravity_force));
    println!("  joint forces [{}]", fmt(&r.joint_forces));
    println!("  M^-1 h       [{}]", fmt(&r.free_acceleration));
    for c in &r.contacts {
        println!(
            "  {:<12} gap {:.6e}, g' {:.6e}, slip {:.6e}, mu {}, e {}{}",
            c.name,
            c.gap,
            c.normal_velocity,
            c.slip_velocity,
            c.mu,
            c.e,
            if c.armed { "" } else { " (not armed: scuffing ignored)" }
        );
    }
    println!(
        "  energy       kinetic {:.6}, potential {}",
        r.energy.kinetic,
        r.energy.potential.map_or("- (non-conservative forces)".into(), |p| format!("{p:.6}"))
    );
    if r.check.is_empty() {
        println!("  check        Jacobians, J'q' and the energy balance agree with finite differences");
    } else {
        println!("  check        {} disagreement(s) with finite differences:", r.check.len());
        for c in &r.check {
            println!("    {c}");
        }
    }
    Ok(())
}

/// `model inspect`'s output for a robot in 3-D.
fn inspected_spatial(
    a: &InspectArgs,
    m: &contactlab::api::SpatialModel,
    r: contactlab::api::SpatialInspection,
) -> Result<(), Failure> {
    if let Some(dir) = &a.common.out {
        write_json(dir, "inspect.json", &r)?;
    }
    if a.common.json {
        print_json(&r)?;
        return Ok(());
    }
    let fmt = |v: &[f64]| v.iter().map(|x| format!("{x:.6}")).collect::<Vec<_>>().join(", ");
    println!(
        "{}: {} configuration coordinates, {} velocities, {} bodies, {:.6} kg",
        a.model.display(),
        r.q.len(),
        r.v.len(),
        r.model.bodies,
        r.model.mass
    );
    println!("  q            {}", r.model.coordinates.join(", "));
    println!("  q            [{}]", fmt(&r.q));
    println!("  v            [{}]", fmt(&r.v));
    println!("  h(q, v)      [{}]", fmt(&r.bias));
    let closed = r.contacts.iter().filter(|c| c.gap <= 0.0).count();
    println!(
        "  contacts     {} candidate points against {} planes, {closed} touching",
        r.contacts.len(),
        m.planes.len()
    );
    println!("  energy       kinetic {:.6}, potential {:.6}", r.kinetic, r.potential);
    println!(
        "  check        M {:.1e}, energy rate {:.1e}, contact Jacobians {:.1e} (relative)",
        r.check.mass_matrix, r.check.energy_rate, r.check.contact_jacobians
    );
    for n in &r.notes {
        println!("  note: {n}");
    }
    Ok(())
}
