//! `contactlab equilibrium ...`: the planar body on two frictional contacts (P1).

use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, Subcommand};
use contactlab::twocontact::modes::{all_modes, analyze, solve_mode, PointState};
use contactlab::twocontact::{model, zod::Zod};
use serde_json::json;

use crate::{print_json, Common, Failure};

#[derive(Subcommand, Debug)]
pub enum EquilibriumCommand {
    /// Contact-mode analysis at the equilibrium under the zero-order dynamics: equilibrium,
    /// ambiguity, Painlevé-freeness, persistence, and every mode's forces and accelerations.
    Modes(ModesArgs),
}

#[derive(Args, Debug)]
pub struct ModesArgs {
    /// Model file with kind = "planar-two-contact".
    model: PathBuf,
    #[command(flatten)]
    common: Common,
}

pub fn run(cmd: EquilibriumCommand) -> Result<(), Failure> {
    match cmd {
        EquilibriumCommand::Modes(a) => modes(a),
    }
}

fn modes(a: ModesArgs) -> Result<(), Failure> {
    let p = model::read(&a.model)?;
    let z = Zod::new(&p)?;
    let eq = analyze(&z)?;
    let at_rest: Vec<_> =
        all_modes().into_iter().filter_map(|m| solve_mode(&z, m, [PointState::Rest, PointState::Rest])).collect();
    let v = json!({"analysis": eq, "k": z.k(), "modes": at_rest});
    if let Some(dir) = &a.common.out {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        let mut csv = String::from("mode,consistent,margin,f1z,f2z,f1x,f2x,z1dd,z2dd,x1dd,x2dd\n");
        for s in &at_rest {
            let f = s.forces;
            let ac = s.accel;
            csv.push_str(&format!(
                "{},{},{},{},{},{},{},{},{},{},{}\n",
                s.mode, s.consistent, s.margin, f[0], f[1], f[2], f[3], ac[0], ac[1], ac[2], ac[3]
            ));
        }
        let path = dir.join("modes.csv");
        std::fs::write(&path, csv).with_context(|| format!("writing {}", path.display()))?;
    }
    if a.common.json {
        print_json(&v)?;
    } else {
        println!("{}: k = {:.6} (ẋ1 = k ẋ2 with both contacts held)", a.model.display(), z.k());
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
