//! `contactlab walker ...`: single-contact walkers (P2): gaits, Painlevé's paradox, slip.

use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, Subcommand};
use contactlab::walking::model;

use crate::{print_json, write_json, Common, Failure};

#[derive(Subcommand, Debug)]
pub enum WalkerCommand {
    /// The periodic gait under sticking contact (fixed point of the step-to-step map), with its
    /// multipliers, mu_stick and the impulse ratio at heel strike.
    Gait(GaitArgs),
    /// Where Painlevé's paradox can occur: mu_min and the region B < 0 (intervals of theta for the
    /// rimless wheel, a (theta1, theta2) grid for the compass biped). --out writes cases.csv and
    /// regions.png (rimless wheel: the regions of Table 2.1 with the gait), or b_negative.csv,
    /// b_negative.png, b_negative_mu.png, b_negative_rho.png and mu_min_rho.png (compass biped).
    Painleve(PainleveArgs),
    /// How a slip episode from a state ends (stick, reversal, separation, jam, impact, or corner
    /// when the slip reaches A = B = 0 and which of them vanishes first is below the integrator's
    /// resolution; the "approach" object holds the evidence), or with --jam-threshold the
    /// smallest initial slip speed that jams.
    Slip(SlipArgs),
}

impl WalkerCommand {
    /// The command's output directory, if given.
    pub fn out_dir(&mut self) -> Option<&mut PathBuf> {
        match self {
            WalkerCommand::Gait(a) => a.common.out.as_mut(),
            WalkerCommand::Painleve(a) => a.common.out.as_mut(),
            WalkerCommand::Slip(a) => a.common.out.as_mut(),
        }
    }
}

#[derive(Args, Debug)]
pub struct GaitArgs {
    #[arg(help = contactlab::api::registry::model_help("walker gait"))]
    model: PathBuf,
    /// Initial guess of the post-impact section coordinates (rimless wheel: theta_dot;
    /// compass biped: theta1,theta1_dot,theta2_dot); default: the closed form (27), or P2's gait.
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
    guess: Option<Vec<f64>>,
    /// Relative integration tolerance (default: the library's gait default, 1e-10); the
    /// multipliers come from the exact variational equations, as accurate as the integration.
    #[arg(long)]
    rtol: Option<f64>,
    #[command(flatten)]
    common: Common,
}

#[derive(Args, Debug)]
pub struct PainleveArgs {
    #[arg(help = contactlab::api::registry::model_help("walker painleve"))]
    model: PathBuf,
    /// Friction coefficient (default: the model's).
    #[arg(long)]
    mu: Option<f64>,
    /// Slip direction sigma = sgn(x_dot).
    #[arg(long, default_value_t = contactlab::api::WALKER_SIGMA, allow_hyphen_values = true, value_parser = parse_sigma)]
    sigma: i8,
    #[command(flatten)]
    common: Common,
}

#[derive(Args, Debug)]
pub struct SlipArgs {
    #[arg(help = contactlab::api::registry::model_help("walker slip"))]
    model: PathBuf,
    /// The state: rimless wheel theta,theta_dot,x_dot (rates in units of 1/tau_c and l/tau_c as in
    /// P2); compass biped theta1,theta2,theta1_dot,theta2_dot,x_dot (SI). The stance foot is at
    /// the origin on the ground, y_dot = 0.
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
    state: Vec<f64>,
    /// Instead: the smallest initial slip speed x_dot (same units) that jams from the state
    /// (its x_dot is ignored), by bisection up to --max-speed.
    #[arg(long)]
    jam_threshold: bool,
    /// Largest initial slip speed tried by --jam-threshold.
    #[arg(long, default_value_t = contactlab::api::JAM_MAX_SPEED)]
    max_speed: f64,
    #[command(flatten)]
    common: Common,
}

fn parse_sigma(s: &str) -> Result<i8, String> {
    match s {
        "1" | "+1" => Ok(1),
        "-1" => Ok(-1),
        _ => Err(format!("must be 1 or -1 (got {s})")),
    }
}

pub fn run(cmd: WalkerCommand) -> Result<(), Failure> {
    match cmd {
        WalkerCommand::Gait(a) => run_gait(a),
        WalkerCommand::Painleve(a) => run_painleve(a),
        WalkerCommand::Slip(a) => run_slip(a),
    }
}

fn run_gait(a: GaitArgs) -> Result<(), Failure> {
    let m = model::read(&a.model)?;
    let g = contactlab::api::walker_gait(&m, a.guess.as_deref(), a.rtol)?;
    let v = &g;
    if let Some(dir) = &a.common.out {
        write_json(dir, "gait.json", v)?;
    }
    if a.common.json {
        print_json(&v)?;
    } else {
        println!("{}:", a.model.display());
        match (g.period, &g.post_impact_state, &g.multipliers, g.stable) {
            (Some(period), Some(x), Some(mult), Some(stable)) => {
                println!("  gait period {period:.6} s, post-impact state {x:?}");
                println!("  multipliers {mult:?}: {}", if stable { "stable" } else { "unstable" });
                let ratio = g.impact_impulse_ratio.unwrap_or(f64::NAN);
                match g.mu_stick {
                    Some(mu) => println!("  mu_stick = {mu:.6}, |F_t/F_n| at heel strike = {ratio:.6}"),
                    None => println!(
                        "  the stance foot does not stick throughout (no mu_stick); |F_t/F_n| at heel strike = {ratio:.6}"
                    ),
                }
                if let Some(p) = &g.proof {
                    match (&p.proof.proof_reason, p.rate, p.multiplier, p.mu_stick) {
                        (None, Some(r), Some(m), Some(s)) => println!(
                            "  proved (interval arithmetic): the sticking gait exists, unique among post-impact rates, \
                             rate in [{:.15}, {:.15}] rad/s, multiplier in [{:.12}, {:.12}], mu_stick in [{:.8}, {:.8}]",
                            r[0], r[1], m[0], m[1], s[0], s[1]
                        ),
                        (why, ..) => println!("  not proved: {}", why.as_deref().unwrap_or("incomplete")),
                    }
                }
            }
            _ => println!(
                "  no gait found: {}",
                g.reason.as_ref().map_or("Newton did not converge".to_string(), |r| r.to_string())
            ),
        }
    }
    Ok(())
}

fn run_painleve(a: PainleveArgs) -> Result<(), Failure> {
    let m = model::read(&a.model)?;
    let r = contactlab::api::walker_painleve(&m, a.mu, a.sigma)?;
    if let Some(dir) = &a.common.out {
        r.write_files(&m, dir)?;
    }
    let out = r.summary;
    if a.common.json {
        print_json(&out)?;
    } else {
        println!("{}: {}", a.model.display(), serde_json::to_string_pretty(&out).context("formatting")?);
    }
    Ok(())
}

fn run_slip(a: SlipArgs) -> Result<(), Failure> {
    let m = model::read(&a.model)?;
    contactlab::error::positive("max_speed", a.max_speed)?;
    if a.jam_threshold {
        let r = contactlab::api::walker_jam_threshold(&m, &a.state, a.max_speed)?;
        finish_slip(&a, &r)
    } else {
        let r = contactlab::api::walker_slip(&m, &a.state)?;
        finish_slip(&a, &r)
    }
}

fn finish_slip(a: &SlipArgs, r: &impl serde::Serialize) -> Result<(), Failure> {
    if let Some(dir) = &a.common.out {
        write_json(dir, "slip.json", r)?;
    }
    if a.common.json {
        print_json(r)?;
    } else {
        println!("{}: {}", a.model.display(), serde_json::to_string_pretty(r).context("formatting")?);
    }
    Ok(())
}
