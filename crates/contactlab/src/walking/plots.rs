//! The figures of P2: the regions of Table 2.1 for the rimless wheel (Fig. 3.2a), the region
//! `B < 0` for the compass biped (Fig. 4.2a), `μ_min` against the radius of gyration
//! (Fig. 4.2e, f), and gait trajectories (Figs. 3.1b, 4.1).

use std::path::Path;

use nalgebra::DVector;

use super::model::WalkerModel;
use super::painleve::{b_negative_grid, b_negative_intervals, compass_mu_min};
use super::{step_trajectory, MultibodyWalker, WalkerChart, WalkerSettings};
use crate::mechanics::walkers::{CompassBiped, RimlessWheel};
use crate::plot::{CategoryMap, MapPath, Mark, XyPlot};
use crate::Error;

/// Fig. 3.2(a): the lines `A = 0` and `B = 0` bounding the regions R₁–R₄ in `(θ, θ̇)` (θ̇ in
/// units of `1/τ_c`), the sticking gait from section point `gait_y` and optional trajectories.
pub fn rimless_regions(
    w: &RimlessWheel,
    sigma: f64,
    gait_y: Option<f64>,
    extra: &[(&str, Vec<(f64, f64)>)],
    settings: &WalkerSettings,
    path: &Path,
) -> Result<(), Error> {
    let (tc, n) = (w.tau_c(), w.half_angle());
    let sys = MultibodyWalker::new(&WalkerModel::Rimless(*w))?;
    let a_zero: Vec<(f64, f64)> = (0..=200)
        .map(|k| {
            let th = -n + 2.0 * n * k as f64 / 200.0;
            (th, (w.gravity * w.slope.cos() / (w.length * th.cos())).sqrt() * tc)
        })
        .collect();
    let top = a_zero.iter().map(|p| p.1).fold(0.0, f64::max) * 1.05;
    let mut p = XyPlot::new(
        format!("Rimless wheel: regions of Table 2.1 (σ = {sigma:+}, μ = {})", w.mu),
        "θ (rad)",
        "θ̇ (1/τ_c)",
    );
    if let Some(y) = gait_y {
        let step = step_trajectory(&sys, &DVector::from_element(1, y), settings);
        p = p.add("gait (sticking)", step.iter().map(|s| (s.1[2], s.2[2] * tc)).collect(), Mark::Line);
    }
    for (label, pts) in extra {
        p = p.add(*label, pts.clone(), Mark::Dashed);
    }
    p = p.add("A = 0 (R₂, R₃ above)", a_zero, Mark::Line);
    for (k, iv) in b_negative_intervals(&sys, w.mu, sigma, -n, n, 401).iter().enumerate() {
        for (j, &x) in iv.iter().enumerate() {
            let label = if k == 0 && j == 0 { "B = 0 (B < 0 between)" } else { "" };
            p = p.add_colored(label, vec![(x, 0.0), (x, top)], Mark::Line, 3);
        }
    }
    p.save(path)
}

/// Fig. 4.2(a): the sign of `B` on a grid of `(θ₁, θ₂)` with the gait's configurations.
pub fn compass_b_map(
    c: &CompassBiped,
    sigma: f64,
    gait_y: Option<&[f64]>,
    settings: &WalkerSettings,
    path: &Path,
) -> Result<(), Error> {
    let paths = match gait_y {
        Some(y) => vec![gait_path(c, y, settings)?],
        None => vec![],
    };
    let title = format!("Compass biped: B < 0 at μ = {} (σ = {sigma:+})", c.mu);
    compass_b_map_with(c, sigma, paths, vec![], &title, path)
}

/// One step of the compass biped's gait from section coordinates `y`, as a path in `(θ₁, θ₂)`.
pub fn gait_path(c: &CompassBiped, y: &[f64], settings: &WalkerSettings) -> Result<MapPath, Error> {
    let sys = MultibodyWalker::new(&WalkerModel::Compass(*c))?;
    let step = step_trajectory(&sys, &DVector::from_vec(y.to_vec()), settings);
    Ok(MapPath { label: "sticking gait, one step".into(), points: step.iter().map(|p| (p.1[0], p.1[1])).collect() })
}

/// The sign of `B` on a grid of `(θ₁, θ₂)` with paths (trajectories) and labelled points drawn
/// on top (Fig. 4.2a, b).
pub fn compass_b_map_with(
    c: &CompassBiped,
    sigma: f64,
    paths: Vec<MapPath>,
    marks: Vec<(String, f64, f64)>,
    title: &str,
    path: &Path,
) -> Result<(), Error> {
    let (ng, lo, hi) = (121, -0.8, 0.8);
    let grid = b_negative_grid(&MultibodyWalker::new(&WalkerModel::Compass(*c))?, c.mu, sigma, lo, hi, ng);
    let axis: Vec<f64> = (0..ng).map(|k| lo + (hi - lo) * k as f64 / (ng - 1) as f64).collect();
    CategoryMap {
        title: title.into(),
        x_label: "θ₁ (rad)".into(),
        y_label: "θ₂ (rad)".into(),
        xs: axis.clone(),
        ys: axis,
        cells: grid.iter().flat_map(|row| row.iter().map(|&b| usize::from(b))).collect(),
        legend: vec![("B > 0".into(), (230, 230, 230)), ("B < 0 (Painlevé)".into(), (213, 94, 0))],
        marks,
        paths,
    }
    .save(path)
}

/// `μ_min` of the compass biped against the legs' radius of gyration `ρ = √(I_c/m)` on `[0, ρ_max]`
/// (Fig. 4.2e, f: the region `B < 0` exists for `μ` above the curve); returns the points.
pub fn compass_mu_min_curve(c: &CompassBiped, sigma: f64, rho_max: f64, path: &Path) -> Result<Vec<(f64, f64)>, Error> {
    let curve = (0..=20)
        .map(|k| {
            let rho = rho_max * k as f64 / 20.0;
            Ok((rho, compass_mu_min(c, rho, sigma)?.unwrap_or(f64::NAN)))
        })
        .collect::<Result<Vec<(f64, f64)>, Error>>()?;
    XyPlot::new("Compass biped: where Painlevé's paradox can occur", "ρ = √(I_c/m) (m)", "μ_min [–]")
        .add("μ_min(ρ): B < 0 somewhere for μ above", curve.clone(), Mark::LinePoints)
        .save(path)?;
    Ok(curve)
}

/// Figs. 3.1(b), 4.1(b): one step of the gait in the `(angle, rate)` planes.
pub fn gait_phase<W: WalkerChart>(
    w: &W,
    y: &[f64],
    angles: &[(usize, &str)],
    settings: &WalkerSettings,
    title: &str,
    path: &Path,
) -> Result<(), Error> {
    let step = step_trajectory(w, &DVector::from_vec(y.to_vec()), settings);
    let mut p = XyPlot::new(title, "angle (rad)", "rate (rad/s)");
    for &(k, name) in angles {
        p = p.add(format!("({name}, {name}')"), step.iter().map(|s| (s.1[k], s.2[k])).collect(), Mark::Line);
    }
    p.save(path)
}

/// Fig. 4.2(e) and (f): the region `B < 0` in `(θ₁, θ₂)` for several friction coefficients `mus`
/// (at the model's inertia), or for several radii of gyration `rhos` (at the model's `μ`), drawn
/// as nested regions: a cell's shade counts how many of the values make `B` negative there.
pub fn compass_nested(
    c: &CompassBiped,
    sigma: f64,
    mus: &[f64],
    rhos: &[f64],
    title: &str,
    path: &Path,
) -> Result<(), Error> {
    let (ng, lo, hi) = (101, -0.8, 0.8);
    let axis: Vec<f64> = (0..ng).map(|k| lo + (hi - lo) * k as f64 / (ng - 1) as f64).collect();
    // Either μ varies (inertia fixed) or ρ varies (μ fixed).
    let variants: Vec<(CompassBiped, String)> = if !mus.is_empty() {
        mus.iter().map(|&mu| (CompassBiped { mu, ..*c }, format!("μ = {mu}"))).collect()
    } else {
        rhos.iter().map(|&r| (CompassBiped { inertia: c.mass * r * r, ..*c }, format!("ρ = {r}"))).collect()
    };
    let mut cells = vec![0usize; ng * ng];
    for (v, _) in &variants {
        let grid = b_negative_grid(&MultibodyWalker::new(&WalkerModel::Compass(*v))?, v.mu, sigma, lo, hi, ng);
        for (j, row) in grid.iter().enumerate() {
            for (i, &neg) in row.iter().enumerate() {
                if neg {
                    cells[j * ng + i] += 1;
                }
            }
        }
    }
    // Sequential shades: light for "no value", darker as more values make B < 0. With μ rising
    // the region grows (the largest μ covers most); with ρ rising it shrinks (ρ = first covers
    // most), so the legend names the value at which a shade appears.
    let shades = [(235, 235, 235), (253, 208, 162), (253, 174, 107), (241, 105, 19), (217, 72, 1), (127, 39, 4)];
    let k = variants.len().min(shades.len() - 1);
    let mut legend = vec![("B > 0 for all".to_string(), shades[0])];
    for n in 1..=k {
        let name = if !mus.is_empty() {
            format!("B < 0 from {}", variants[k - n].1)
        } else {
            format!("B < 0 up to {}", variants[n - 1].1)
        };
        legend.push((name, shades[n]));
    }
    CategoryMap {
        title: title.into(),
        x_label: "θ₁ (rad)".into(),
        y_label: "θ₂ (rad)".into(),
        xs: axis.clone(),
        ys: axis,
        cells: cells.into_iter().map(|n| n.min(k)).collect(),
        legend,
        marks: vec![],
        paths: vec![],
    }
    .save(path)
}
