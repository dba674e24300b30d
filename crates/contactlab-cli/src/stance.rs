//! `contactlab stance`: the stance stability of a robot in 3-D (P4's verdicts on its contacts).

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use contactlab::api::{JointHold, StanceSettings};
use contactlab::fixture::FrictionLaw;
use contactlab::spatial::algebra::Vec3;

use crate::{print_json, Common, Failure};

#[derive(Args, Debug)]
pub struct StanceArgs {
    /// A robot in 3-D: a scene file (kind = "multibody" with `urdf` and `base`, or `mjcf`), an
    /// MJCF file, or a URDF with --base.
    model: PathBuf,
    /// The configuration at rest: nq numbers, comma-separated (default: the file's initial one).
    #[arg(long, value_delimiter = ',', value_name = "Q,..", allow_hyphen_values = true)]
    state: Option<Vec<f64>>,
    /// The links or collision shapes that may touch the ground, comma-separated (default: a
    /// scene's `contacts`, else every collision shape).
    #[arg(long, value_delimiter = ',', value_name = "LINK,..")]
    contacts: Option<Vec<String>>,
    /// A bare URDF's root link: `fixed` (the default, as the URDF says) or `floating`.
    #[arg(long, value_parser = ["fixed", "floating"])]
    base: Option<String>,
    /// How the joints are held: `locked` (the robot one rigid body on its floating base) or
    /// `springs` (free on the model's joint springs; a joint at a stop of its range is held by
    /// it, a frictionless contact).
    #[arg(long, default_value = "locked", value_parser = ["locked", "springs"])]
    joints: String,
    /// The friction law: `coulomb` (circular cones) or `pyramid` (P4's LCP form, under which
    /// strong stability is decided).
    #[arg(long, default_value = "coulomb", value_parser = ["coulomb", "pyramid"])]
    friction: String,
    /// A contact is in the stance when its gap is at most this fraction of the length scale
    /// (or negative: a contact below the ground touches it).
    #[arg(long, default_value_t = StanceSettings::default().touch)]
    touch: f64,
    /// Tilt gravity about this world axis (three numbers, comma-separated) and report the
    /// largest tilt, each way, keeping the stance weakly stable.
    #[arg(long, value_delimiter = ',', value_name = "X,Y,Z", allow_hyphen_values = true)]
    slope_axis: Option<Vec<f64>>,
    #[command(flatten)]
    common: Common,
}

impl StanceArgs {
    pub fn out_dir(&mut self) -> Option<&mut PathBuf> {
        self.common.out.as_mut()
    }
}

pub fn stance(a: StanceArgs) -> Result<(), Failure> {
    let m = contactlab::api::open(&a.model, a.base.as_deref())?;
    let slope_axis = match a.slope_axis.as_deref() {
        None => None,
        Some([x, y, z]) => Some(Vec3::new(*x, *y, *z)),
        Some(other) => {
            return Err(anyhow::anyhow!("--slope-axis: needs three numbers X,Y,Z (got {})", other.len()).into())
        }
    };
    let s = StanceSettings {
        joints: if a.joints == "springs" { JointHold::Springs } else { JointHold::Locked },
        friction: if a.friction == "pyramid" { FrictionLaw::Pyramid } else { FrictionLaw::Coulomb },
        touch: a.touch,
        slope_axis,
    };
    let r = contactlab::api::stance(&m, a.state.as_deref(), &s, a.contacts.as_deref())?;
    if let Some(dir) = &a.common.out {
        r.write_files(dir)?;
    }
    if a.common.json {
        return print_json(&serde_json::to_value(&r).context("serialising")?);
    }
    let c = &r.classification;
    let names: Vec<&str> = r.contacts.iter().map(|c| c.name.as_str()).collect();
    println!(
        "{}: {} contact(s) ({}), joints {}, {} friction",
        a.model.display(),
        r.contacts.len(),
        names.join(", "),
        a.joints,
        a.friction
    );
    if !r.stops.is_empty() {
        let held: Vec<String> = (r.stops.iter())
            .map(|s| match s.force {
                Some(f) => format!("{} (witness {f:.6e})", s.name),
                None => s.name.clone(),
            })
            .collect();
        println!("  joints at their stops {} (N m for a hinge, N for a slider)", held.join(", "));
    }
    println!("  classification        {}", c.classification);
    println!("  weakly stable         {}  (proof: {})", c.weakly_stable, proof_of(c));
    println!(
        "  strongly stable       {}",
        c.strongly_stable.map_or_else(
            || format!("undecided ({})", c.undecided_reason.as_deref().unwrap_or("3-D Coulomb law")),
            |b| b.to_string()
        )
    );
    println!("  frictionless stable   {}", c.frictionless_stable);
    println!("  least common mu       {}", c.critical_mu.map_or("none up to 1000".into(), |m| format!("{m:.6}")));
    if let Some(sm) = &r.slope_margin {
        let f = |t: Option<f64>| {
            t.map_or("not stable untilted".into(), |t| format!("{t:.6} rad ({:.3} deg)", t.to_degrees()))
        };
        println!(
            "  largest tilt about {:?}: {} one way, {} the other",
            sm.axis,
            f(sm.max_tilt),
            f(sm.max_tilt_reverse)
        );
    }
    if r.marginal == Some(true) {
        println!("  marginal              a tilt margin is 0: the least tilt that way topples it, whatever the verdict above");
    }
    println!("  assumes               {}", r.assumes);
    Ok(())
}

fn proof_of(c: &contactlab::fixture::stability::FixtureClassification) -> String {
    let p = c.equilibrium_intensity.as_ref().or(c.instability_certificate.as_ref()).map(|f| &f.proof);
    p.map_or_else(|| "none".to_string(), |p| serde_json::to_value(p).map(|v| v.to_string()).unwrap_or_default())
}
