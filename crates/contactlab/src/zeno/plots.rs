//! The figures of P3: time plots of a completed execution (Figs. 2b, 4, 5), phase portraits of
//! periodic orbits (Fig. 3) and the branch of Zeno periodic orbits in `e`.

use std::path::Path;

use super::{EBranch, EPoint, ZenoSimulation};
use crate::plot::{Mark, XyPlot};
use crate::Error;

type Curve = Vec<(f64, f64)>;

/// Splits samples into constrained and unconstrained runs (gaps where the other kind is).
fn split_phases(sim: &ZenoSimulation, y: impl Fn(&super::ZenoSample) -> f64) -> (Curve, Curve) {
    let mut solid = Vec::new();
    let mut dashed = Vec::new();
    let gap = (f64::NAN, f64::NAN);
    let mut prev: Option<bool> = None;
    for s in &sim.samples {
        let p = (s.t, y(s));
        if prev.is_some_and(|c| c != s.constrained) {
            // Join the two kinds at the switch so the curve has no hole.
            if s.constrained {
                dashed.push(p);
            } else {
                solid.push(p);
            }
            solid.push(gap);
            dashed.push(gap);
        }
        if s.constrained {
            solid.push(p);
        } else {
            dashed.push(p);
        }
        prev = Some(s.constrained);
    }
    (solid, dashed)
}

/// Time plot of every coordinate: constrained phases solid, unconstrained dashed, impacts marked
/// with squares on the first coordinate (P3, Figs. 2b, 4, 5). `names` labels the coordinates.
pub fn time_plot(sim: &ZenoSimulation, title: &str, names: &[&str], path: &Path) -> Result<(), Error> {
    let mut p = XyPlot::new(title, "time t (s)", "angle (rad)");
    let n = sim.samples.first().map_or(0, |s| s.q.len());
    for k in 0..n {
        let name = names.get(k).copied().unwrap_or("q");
        let (solid, dashed) = split_phases(sim, |s| s.q[k]);
        p = p.add_colored(format!("{name}, constrained"), solid, Mark::Line, k);
        p = p.add_colored(format!("{name}, free"), dashed, Mark::Dashed, k);
    }
    let impacts: Vec<(f64, f64)> =
        sim.events.iter().filter(|e| e.kind == crate::hybrid::EventKind::Impact).map(|e| (e.t, e.q[0])).collect();
    if !impacts.is_empty() {
        p = p.add("impacts", impacts, Mark::Squares);
    }
    p.save(path)
}

/// Phase portrait of coordinate `k` (`(q_k, q̇_k)`) for one or more executions, each drawn with
/// its constrained part solid and free part dashed (P3, Fig. 3).
pub fn phase_portrait(runs: &[(&str, &ZenoSimulation)], k: usize, name: &str, path: &Path) -> Result<(), Error> {
    let mut p =
        XyPlot::new(format!("Phase portrait ({name}, {name}')"), format!("{name} (rad)"), format!("{name}' (rad/s)"));
    for (c, (label, sim)) in runs.iter().enumerate() {
        let mut solid = Vec::new();
        let mut dashed = Vec::new();
        for s in &sim.samples {
            let pt = (s.q[k], s.v[k]);
            if s.constrained {
                solid.push(pt);
                dashed.push((f64::NAN, f64::NAN));
            } else {
                dashed.push(pt);
                solid.push((f64::NAN, f64::NAN));
            }
        }
        p = p.add_colored(format!("{label}, constrained"), solid, Mark::Line, c);
        p = p.add_colored(format!("{label}, free"), dashed, Mark::Dashed, c);
    }
    p.save(path)
}

/// The branch of Zeno periodic orbits against `e`: constrained duration, period and `γ`, one
/// file each (`{stem}_duration.png`, `{stem}_period.png`, `{stem}_gamma.png`); returns the paths.
pub fn branch_plots(c: &EBranch, dir: &Path, stem: &str) -> Result<Vec<std::path::PathBuf>, Error> {
    let pts = |f: &dyn Fn(&EPoint) -> f64| c.points.iter().map(|p| (p.e, f(p))).collect::<Vec<_>>();
    let plots = [
        ("duration", "Constrained phase of the Zeno periodic orbit", "duration (s)", pts(&|p| p.constrained_duration)),
        ("period", "Period of the Zeno periodic orbit", "period T (s)", pts(&|p| p.period)),
        ("gamma", "Largest multiplier of the return map", "gamma", pts(&|p| p.gamma)),
    ];
    let mut out = Vec::new();
    for (suffix, title, label, data) in plots {
        let path = dir.join(format!("{stem}_{suffix}.png"));
        XyPlot::new(title, "coefficient of restitution e", label).add("", data, Mark::LinePoints).save(&path)?;
        out.push(path);
    }
    Ok(out)
}

fn num(x: f64) -> String {
    if x.is_finite() {
        format!("{x}")
    } else {
        String::new()
    }
}

/// Writes a completed execution into `dir`: `trajectory.csv` (t, the coordinates `names`, their
/// rates, whether constrained, λ), `events.csv` and `time.png` titled `title`.
pub fn write_simulation(sim: &super::ZenoSimulation, names: &[&str], dir: &Path, title: &str) -> Result<(), Error> {
    std::fs::create_dir_all(dir).map_err(|e| Error::write(dir, e))?;
    let n = names.len();
    let mut csv = String::from("t");
    for k in names {
        csv.push_str(&format!(",{k}"));
    }
    for k in names {
        csv.push_str(&format!(",{k}_dot"));
    }
    csv.push_str(",constrained,lambda\n");
    for s in &sim.samples {
        csv.push_str(&num(s.t));
        for k in 0..n {
            csv.push_str(&format!(",{}", num(s.q[k])));
        }
        for k in 0..n {
            csv.push_str(&format!(",{}", num(s.v[k])));
        }
        csv.push_str(&format!(",{},{}\n", s.constrained, s.lambda.map_or(String::new(), num)));
    }
    crate::output::write_file(dir, "trajectory.csv", &csv)?;
    let mut csv = String::from("t,kind,impact_speed,constrained_after\n");
    for e in &sim.events {
        csv.push_str(&format!(
            "{},{},{},{}\n",
            num(e.t),
            crate::output::kebab(&e.kind),
            e.impact_speed.map_or(String::new(), num),
            e.constrained_after
        ));
    }
    crate::output::write_file(dir, "events.csv", &csv)?;
    time_plot(sim, title, names, &dir.join("time.png"))
}

/// Writes a branch of periodic orbits into `dir`: `branch.csv` (e, period, constrained duration,
/// γ, impacts per cycle, Zeno, the section point) and the branch plots (`branch_*.png`).
pub fn write_branch(c: &EBranch, dir: &Path) -> Result<(), Error> {
    std::fs::create_dir_all(dir).map_err(|e| Error::write(dir, e))?;
    let mut csv = String::from("e,period,constrained_duration,gamma,impacts_per_cycle,zeno,theta1,theta1_dot\n");
    for p in &c.points {
        csv.push_str(&format!(
            "{},{},{},{},{},{},{},{}\n",
            p.e,
            num(p.period),
            num(p.constrained_duration),
            num(p.gamma),
            p.impacts_per_cycle,
            p.zeno,
            num(p.section_point[0]),
            num(p.section_point[1])
        ));
    }
    crate::output::write_file(dir, "branch.csv", &csv)?;
    branch_plots(c, dir, "branch")?;
    Ok(())
}
