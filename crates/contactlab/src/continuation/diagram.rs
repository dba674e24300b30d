//! What a continuation writes: its bifurcation diagram and files.

use super::*;

impl Continuation {
    /// The bifurcation diagram: each return's time against the parameter, stable parts solid
    /// and unstable parts dashed (a period-`k` orbit has `k` curves), special points marked.
    pub fn plot(&self, title: &str) -> crate::plot::XyPlot {
        use crate::plot::{Mark, XyPlot};
        let mut plot = XyPlot::new(title, self.param.clone(), "time of a return (s)");
        for (bi, b) in self.branches.iter().enumerate() {
            let color = b.period_multiple.trailing_zeros() as usize;
            for j in 0..b.period_multiple {
                for (stable, mark) in [(true, Mark::Line), (false, Mark::Dashed)] {
                    // Each part runs on to the first point of the next, so the curve is unbroken.
                    let pts: Vec<(f64, f64)> = b
                        .points
                        .iter()
                        .enumerate()
                        .map(|(i, p)| {
                            let t = p.returns.get(j).copied().unwrap_or(f64::NAN);
                            if p.stable == stable || (i > 0 && b.points[i - 1].stable == stable) {
                                (p.p, t)
                            } else {
                                (f64::NAN, f64::NAN)
                            }
                        })
                        .collect();
                    if pts.iter().any(|q| q.0.is_finite()) {
                        let label = if j == 0 && (bi == 0 || stable) {
                            format!("period {} ({})", b.period_multiple, if stable { "stable" } else { "unstable" })
                        } else {
                            String::new()
                        };
                        plot = plot.add_colored(label, pts, mark, color);
                    }
                }
            }
        }
        let mut kinds: Vec<SpecialKind> = vec![];
        for b in &self.branches {
            for sp in &b.special {
                if !kinds.contains(&sp.kind) {
                    kinds.push(sp.kind);
                }
            }
        }
        for (i, kind) in kinds.iter().enumerate() {
            let pts: Vec<(f64, f64)> = self
                .branches
                .iter()
                .flat_map(|b| b.special.iter().filter(|sp| sp.kind == *kind))
                .flat_map(|sp| sp.point.returns.iter().map(move |&t| (sp.p, t)))
                .collect();
            plot = plot.add_colored(crate::output::kebab(kind), pts, Mark::Squares, 4 + i);
        }
        plot
    }

    /// The multipliers' moduli against the parameter: the `k`-th largest modulus of each branch
    /// as one curve, the unit circle's `|λ| = 1` dashed, special points marked. Stability is
    /// lost where a curve crosses 1.
    pub fn multiplier_plot(&self, title: &str) -> crate::plot::XyPlot {
        use crate::plot::{Mark, XyPlot};
        let mut plot = XyPlot::new(title, self.param.clone(), "|multiplier|");
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for (bi, b) in self.branches.iter().enumerate() {
            let m = b.points.iter().map(|p| p.multipliers.len()).max().unwrap_or(0);
            for k in 0..m {
                let pts: Vec<(f64, f64)> = b
                    .points
                    .iter()
                    .map(|p| (p.p, p.multipliers.get(k).map_or(f64::NAN, |z| z[0].hypot(z[1]))))
                    .collect();
                for &(p, _) in &pts {
                    lo = lo.min(p);
                    hi = hi.max(p);
                }
                let label =
                    if k == 0 { format!("period {} (largest first)", b.period_multiple) } else { String::new() };
                plot = plot.add_colored(label, pts, Mark::Line, bi);
            }
        }
        if lo < hi {
            plot = plot.add_colored("|λ| = 1", vec![(lo, 1.0), (hi, 1.0)], Mark::Dashed, 7);
        }
        let pts: Vec<(f64, f64)> = self
            .branches
            .iter()
            .flat_map(|b| b.special.iter())
            .filter(|sp| {
                matches!(
                    sp.kind,
                    SpecialKind::Fold
                        | SpecialKind::PeriodDoubling
                        | SpecialKind::NeimarkSacker
                        | SpecialKind::BranchPoint
                )
            })
            .map(|sp| (sp.p, 1.0))
            .collect();
        if !pts.is_empty() {
            plot = plot.add_colored("stability changes", pts, Mark::Squares, 4);
        }
        plot
    }

    /// Writes `branch.csv` (every point of every branch: parameter, period, each return's time,
    /// spectral radius, stability, multipliers, the family's quantities, the section state),
    /// `special.csv` (the special points), `branch.png` ([`Continuation::plot`]) and
    /// `multipliers.png` ([`Continuation::multiplier_plot`]).
    pub fn write_files(&self, dir: &std::path::Path, title: &str) -> Result<(), crate::Error> {
        std::fs::create_dir_all(dir).map_err(|e| crate::Error::write(dir, e))?;
        let m = self.branches.iter().flat_map(|b| b.points.first()).map(|p| p.multipliers.len()).max().unwrap_or(0);
        let kmax = self.branches.iter().map(|b| b.period_multiple).max().unwrap_or(1);
        let first = self.branches.iter().flat_map(|b| b.points.first()).next();
        let qnames: Vec<String> =
            first.map(|p| p.observation.quantities.iter().map(|q| q.0.clone()).collect()).unwrap_or_default();
        let ns = first.map_or(0, |p| p.observation.state.len());
        let ny = first.map_or(0, |p| p.y.len());
        let mut csv = format!("branch,period_multiple,{},period", self.param);
        for j in 0..kmax {
            csv.push_str(&format!(",return_{j}"));
        }
        csv.push_str(",spectral_radius,stable");
        for j in 0..m {
            csv.push_str(&format!(",multiplier_{j}_re,multiplier_{j}_im"));
        }
        for q in &qnames {
            csv.push_str(&format!(",{q}"));
        }
        for j in 0..ny {
            csv.push_str(&format!(",y_{j}"));
        }
        for j in 0..ns {
            csv.push_str(&format!(",state_{j}"));
        }
        csv.push_str(",events\n");
        let cell =
            |v: Option<f64>| v.map_or(String::new(), |x| if x.is_finite() { format!("{x}") } else { String::new() });
        for (bi, b) in self.branches.iter().enumerate() {
            for p in &b.points {
                csv.push_str(&format!("{bi},{},{},{}", b.period_multiple, p.p, p.period));
                for j in 0..kmax {
                    csv.push_str(&format!(",{}", cell(p.returns.get(j).copied())));
                }
                csv.push_str(&format!(",{},{}", p.spectral_radius, p.stable));
                for j in 0..m {
                    let z = p.multipliers.get(j);
                    csv.push_str(&format!(",{},{}", cell(z.map(|z| z[0])), cell(z.map(|z| z[1]))));
                }
                for (j, _) in qnames.iter().enumerate() {
                    csv.push_str(&format!(",{}", cell(p.observation.quantities.get(j).map(|q| q.1))));
                }
                for j in 0..ny {
                    csv.push_str(&format!(",{}", cell(p.y.get(j).copied())));
                }
                for j in 0..ns {
                    csv.push_str(&format!(",{}", cell(p.observation.state.get(j).copied())));
                }
                csv.push_str(&format!(",\"{}\"\n", p.observation.events.join("; ")));
            }
        }
        crate::output::write_file(dir, "branch.csv", &csv)?;
        let mut sp = format!("branch,period_multiple,kind,{},bracket,period,spectral_radius,detail\n", self.param);
        for (bi, b) in self.branches.iter().enumerate() {
            for s in &b.special {
                sp.push_str(&format!(
                    "{bi},{},{},{},{},{},{},\"{}\"\n",
                    b.period_multiple,
                    crate::output::kebab(&s.kind),
                    s.p,
                    s.bracket,
                    s.point.period,
                    s.point.spectral_radius,
                    s.detail.replace('"', "'")
                ));
            }
        }
        crate::output::write_file(dir, "special.csv", &sp)?;
        self.plot(title).save(&dir.join("branch.png"))?;
        self.multiplier_plot(title).save(&dir.join("multipliers.png"))
    }
}
