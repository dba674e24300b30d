//! Stability atlas: the verdict of [`super::classify`] over a grid of one or two parameters
//! (P1, Figs. 6 and 9).
//!
//! A parameter is any model key (`mass`, `rho`, `h`, `l1`, `l2`, `phi1`, `phi2`, `mu1`, `mu2`,
//! `force`, `angle`, `torque`; angles in radians, or `…_deg`), or a centre-of-mass position with
//! the contact points held fixed (Fig. 6): `com_x` moves the CoM along the support to `com_x`
//! metres downhill of contact point 1 (`l₁ = −com_x`, `l₂ = l₂ − l₁ − com_x`), and `com_z` sets its
//! height above the contact points (`h`). The cells are classified in parallel; the output order
//! is the grid order whatever the number of threads.

use rayon::prelude::*;
use serde::Serialize;

use super::classify::{classify, Verdict};
use super::TwoContact;
use crate::verified::ProofKind;
use crate::Error;

/// One axis of the grid: `n` equally spaced values of `key` from `lo` to `hi`.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct Axis {
    /// Parameter name.
    pub key: String,
    /// First value (SI units; radians unless the key ends in `_deg`).
    pub lo: f64,
    /// Last value.
    pub hi: f64,
    /// Number of values (≥ 1).
    pub n: usize,
}

/// Keys accepted by [`apply`].
pub const KEYS: &[&str] = &[
    "mass",
    "rho",
    "h",
    "l1",
    "l2",
    "phi1",
    "phi2",
    "phi1_deg",
    "phi2_deg",
    "mu1",
    "mu2",
    "force",
    "angle",
    "angle_deg",
    "torque",
    "com_x",
    "com_z",
];

impl Axis {
    /// Parses `KEY=lo:hi:n`.
    pub fn parse(spec: &str) -> Result<Self, Error> {
        let bad = |m: &str| Error::input("--vary", spec, m.to_string());
        let (key, range) = spec.split_once('=').ok_or_else(|| bad("expected KEY=lo:hi:n"))?;
        if !KEYS.contains(&key) {
            return Err(bad(&format!("unknown key; allowed: {}", KEYS.join(", "))));
        }
        let parts: Vec<&str> = range.split(':').collect();
        if parts.len() != 3 {
            return Err(bad("expected KEY=lo:hi:n"));
        }
        let lo: f64 = parts[0].parse().map_err(|_| bad("lo is not a number"))?;
        let hi: f64 = parts[1].parse().map_err(|_| bad("hi is not a number"))?;
        let n: usize = parts[2].parse().map_err(|_| bad("n must be an integer in [1, 100000]"))?;
        if !(lo.is_finite() && hi.is_finite() && (1..=100_000).contains(&n)) {
            return Err(bad("lo and hi must be finite and n in [1, 100000]"));
        }
        Ok(Axis { key: key.to_string(), lo, hi, n })
    }

    /// The `k`-th value.
    pub fn value(&self, k: usize) -> f64 {
        if self.n == 1 {
            self.lo
        } else {
            self.lo + (self.hi - self.lo) * k as f64 / (self.n - 1) as f64
        }
    }
}

/// Largest atlas accepted, in cells (at P1's default 2001 samples per cell about 20 minutes on
/// two cores); larger requests are refused rather than run for hours.
pub const MAX_CELLS: usize = 1_000_000;

/// The model parameters a key sets (two keys conflict when they set a common one).
fn targets(key: &str) -> &'static [&'static str] {
    match key {
        "phi1" | "phi1_deg" => &["phi1"],
        "phi2" | "phi2_deg" => &["phi2"],
        "angle" | "angle_deg" => &["angle"],
        "h" | "com_z" => &["h"],
        "com_x" => &["l1", "l2"],
        "l1" => &["l1"],
        "l2" => &["l2"],
        "mass" => &["mass"],
        "rho" => &["rho"],
        "mu1" => &["mu1"],
        "mu2" => &["mu2"],
        "force" => &["force"],
        "torque" => &["torque"],
        _ => &[],
    }
}

/// Checks a request before any work: one or two axes, no parameter set twice (`phi1` and
/// `phi1_deg`, `com_x` and `l1`, …), both ends of every axis valid for the model, and at most
/// [`MAX_CELLS`] cells.
pub fn check_axes(p: &TwoContact, axes: &[Axis]) -> Result<(), Error> {
    if axes.is_empty() || axes.len() > 2 {
        return Err(Error::input("--vary", "", "give one or two --vary KEY=lo:hi:n"));
    }
    if axes.len() == 2 && targets(&axes[0].key).iter().any(|t| targets(&axes[1].key).contains(t)) {
        return Err(Error::input(
            "--vary",
            &axes[1].key,
            format!("sets the same model parameter as --vary {}; vary each parameter once", axes[0].key),
        ));
    }
    for a in axes {
        for (end, v) in [("lo", a.lo), ("hi", a.hi)] {
            apply(p, &a.key, v).map_err(|e| {
                Error::input("--vary", &a.key, format!("{end} = {v} is outside the model's valid range: {e}"))
            })?;
        }
    }
    let total = axes.iter().fold(1usize, |t, a| t.saturating_mul(a.n));
    if total > MAX_CELLS {
        return Err(Error::input(
            "--vary",
            axes.iter().map(|a| a.key.as_str()).collect::<Vec<_>>().join(","),
            format!("{total} cells exceed the limit of {MAX_CELLS}; use fewer values per axis"),
        ));
    }
    Ok(())
}

/// The model with `key` set to `value` (validated).
pub fn apply(p: &TwoContact, key: &str, value: f64) -> Result<TwoContact, Error> {
    let mut q = *p;
    match key {
        "mass" => q.mass = value,
        "rho" => q.rho = value,
        "h" | "com_z" => q.h = value,
        "l1" => q.l1 = value,
        "l2" => q.l2 = value,
        "phi1" => q.phi1 = value,
        "phi2" => q.phi2 = value,
        "phi1_deg" => q.phi1 = value.to_radians(),
        "phi2_deg" => q.phi2 = value.to_radians(),
        "mu1" => q.mu1 = value,
        "mu2" => q.mu2 = value,
        "force" => q.force = value,
        "angle" => q.alpha = value,
        "angle_deg" => q.alpha = value.to_radians(),
        "torque" => q.torque = value,
        "com_x" => {
            let d = p.l2 - p.l1;
            q.l1 = -value;
            q.l2 = d - value;
        }
        other => return Err(Error::input("--vary", other, format!("unknown key; allowed: {}", KEYS.join(", ")))),
    }
    q.validate()?;
    Ok(q)
}

/// The verdict of one cell.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct Cell {
    /// Parameter values, one per axis.
    pub values: Vec<f64>,
    /// Verdict ([`Verdict::Invalid`] when the parameters are out of range).
    pub verdict: Verdict,
    /// Deciding theorem.
    pub theorem: crate::twocontact::classify::Theorem,
    /// Largest `G*` over the fixed points of `R` (`None` without fixed points).
    pub g_star: Option<f64>,
    /// Whether the verdict is proved in interval arithmetic over all `φ`
    /// ([`crate::twocontact::proof::prove_verdict`]) or sampled only; `None` for invalid cells.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proof: Option<ProofKind>,
}

/// The proved layer of an atlas: each cell proved, sampled only, or not evaluated, as indices
/// into [`proof_legend`].
pub fn proof_indices(cells: &[Cell]) -> Vec<usize> {
    cells
        .iter()
        .map(|c| match c.proof {
            Some(ProofKind::Interval) => 0,
            Some(ProofKind::None) => 1,
            None => 2,
        })
        .collect()
}

/// The legend of the proved layer: proved, sampled only, not evaluated.
pub fn proof_legend() -> Vec<(String, (u8, u8, u8))> {
    vec![
        ("proved (interval arithmetic)".into(), crate::plot::palette(2)),
        ("sampled only".into(), crate::plot::palette(4)),
        ("not evaluated".into(), (255, 255, 255)),
    ]
}

/// How many cells are proved and how many are sampled only.
pub fn proof_counts(cells: &[Cell]) -> (usize, usize) {
    let n = |k: ProofKind| cells.iter().filter(|c| c.proof == Some(k)).count();
    (n(ProofKind::Interval), n(ProofKind::None))
}

/// The legend of a verdict map: each verdict with its colour, in [`Verdict::ALL`] order.
pub fn verdict_legend() -> Vec<(String, (u8, u8, u8))> {
    Verdict::ALL.iter().map(|v| (v.to_string(), v.colour())).collect()
}

/// The cells of a verdict map as indices into [`verdict_legend`].
pub fn verdict_indices(cells: &[Cell]) -> Vec<usize> {
    cells.iter().map(|c| Verdict::ALL.iter().position(|v| *v == c.verdict).unwrap_or(Verdict::ALL.len() - 1)).collect()
}

/// Classifies every cell of the grid spanned by `axes` (one or two), with `samples` values of φ.
/// `progress(done, total)` is called from worker threads.
pub fn atlas(
    p: &TwoContact,
    axes: &[Axis],
    samples: usize,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<Vec<Cell>, Error> {
    check_axes(p, axes)?;
    let total: usize = axes.iter().map(|a| a.n).product();
    let keys: Vec<&str> = axes.iter().map(|a| a.key.as_str()).collect();
    let points: Vec<Vec<f64>> = (0..total).map(|i| grid_point(axes, i)).collect();
    classify_cells(p, &keys, &points, samples, progress)
}

/// The parameter values of cell `idx` of the grid spanned by `axes` (the first axis fastest).
fn grid_point(axes: &[Axis], idx: usize) -> Vec<f64> {
    let ks = [idx % axes[0].n, idx / axes[0].n];
    axes.iter().enumerate().map(|(d, a)| a.value(ks[d])).collect()
}

/// The cells of shard `k` of `n` (1-based) of a grid of `total` cells: every `n`-th cell from
/// `k − 1`, so that the shards share the costly regions of the grid evenly.
pub fn shard_indices(total: usize, k: usize, n: usize) -> Vec<usize> {
    (k.saturating_sub(1)..total).step_by(n.max(1)).collect()
}

/// The cells of shard `k` of `n` of the grid spanned by `axes`, with their indices in the
/// unsharded order.
pub fn atlas_shard(
    p: &TwoContact,
    axes: &[Axis],
    samples: usize,
    k: usize,
    n: usize,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<Vec<(usize, Cell)>, Error> {
    check_axes(p, axes)?;
    if n == 0 || k == 0 || k > n {
        return Err(Error::input("--shard", format!("{k}/{n}"), "expected K/N with 1 <= K <= N"));
    }
    let total: usize = axes.iter().map(|a| a.n).product();
    let keys: Vec<&str> = axes.iter().map(|a| a.key.as_str()).collect();
    let idx = shard_indices(total, k, n);
    let points: Vec<Vec<f64>> = idx.iter().map(|&i| grid_point(axes, i)).collect();
    let cells = classify_cells(p, &keys, &points, samples, progress)?;
    Ok(idx.into_iter().zip(cells).collect())
}

/// The format tag of shard files.
pub const SHARD_FORMAT: &str = "contactlab-atlas-shard-1";

/// The name of a shard's file in its directory.
pub const SHARD_FILE: &str = "atlas-shard.json";

/// One shard of an atlas, as `equilibrium atlas --shard K/N` writes it (`atlas-shard.json`).
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct Shard {
    /// [`SHARD_FORMAT`].
    pub format: String,
    /// The model's name (plot titles).
    pub title: String,
    /// The grid.
    pub axes: Vec<Axis>,
    /// Samples of `φ` per cell.
    pub samples: usize,
    /// Cells of the whole grid.
    pub total: usize,
    /// `[K, N]`: this is shard `K` of `N`.
    pub shard: [usize; 2],
    /// The shard's cells with their indices in the unsharded order.
    pub cells: Vec<IndexedCell>,
}

/// A cell with its index in the unsharded order.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct IndexedCell {
    /// Index in the unsharded grid.
    pub index: usize,
    /// The cell.
    pub cell: Cell,
}

impl Shard {
    /// Writes the shard into `dir` as [`SHARD_FILE`] (creating `dir`).
    pub fn write(&self, dir: &std::path::Path) -> Result<(), Error> {
        let text = serde_json::to_string(self).map_err(|e| Error::input("shard", "", e.to_string()))?;
        crate::output::write_file(dir, SHARD_FILE, &text)
    }

    /// Reads a shard file; an error names the file.
    pub fn read(path: &std::path::Path) -> Result<Self, Error> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        serde_json::from_str(&text)
            .map_err(|e| Error::input(path.display().to_string(), "shard", format!("not an atlas shard file ({e})")))
    }
}

/// Joins the shards of one atlas (any order) into the unsharded grid's cells: every shard of
/// the same atlas (title, axes, samples, total, N), each once, all present, every cell in range
/// and given once. Errors name the shard (`names[i]` for `shards[i]`) and what is wrong.
pub fn merge(shards: &[Shard], names: &[String]) -> Result<Vec<Cell>, Error> {
    let Some(first) = shards.first() else {
        return Err(Error::input("merge", "shards", "give the shard directories (or atlas-shard.json files)"));
    };
    let name = |i: usize| names.get(i).cloned().unwrap_or_else(|| format!("shard {}", i + 1));
    let n = first.shard[1];
    let mut slots: Vec<Option<Cell>> = vec![None; first.total];
    let mut seen: Vec<usize> = Vec::new();
    for (i, s) in shards.iter().enumerate() {
        if s.format != SHARD_FORMAT {
            return Err(Error::input(name(i), "format", format!("expected \"{SHARD_FORMAT}\"")));
        }
        let differs = [
            ("title", s.title != first.title),
            ("axes", s.axes != first.axes),
            ("samples", s.samples != first.samples),
            ("total", s.total != first.total || s.shard[1] != n),
        ];
        if let Some((key, _)) = differs.iter().find(|d| d.1) {
            return Err(Error::input(name(i), *key, "differs from the first shard's (shards of one atlas only)"));
        }
        let k = s.shard[0];
        if seen.contains(&k) {
            return Err(Error::input(name(i), "shard", format!("shard {k} given twice")));
        }
        seen.push(k);
        for c in &s.cells {
            match slots.get_mut(c.index) {
                Some(slot @ None) => *slot = Some(c.cell.clone()),
                _ => return Err(Error::input(name(i), "cells", "a cell is malformed or out of range")),
            }
        }
    }
    let missing: Vec<usize> = (1..=n).filter(|k| !seen.contains(k)).collect();
    if !missing.is_empty() {
        return Err(Error::input("merge", "shards", format!("{missing:?} of {n} are missing")));
    }
    slots.into_iter().collect::<Option<_>>().ok_or_else(|| Error::input("merge", "cells", "some are missing"))
}

/// An atlas axis label with its unit.
pub fn axis_label(key: &str) -> String {
    let unit = if key.ends_with("_deg") {
        "°"
    } else if key.starts_with("mu") {
        "–"
    } else if key.starts_with("phi") || key == "angle" {
        "rad"
    } else if key == "force" {
        "N"
    } else if key == "torque" {
        "N·m"
    } else if key == "mass" {
        "kg"
    } else {
        "m"
    };
    format!("{key} [{unit}]")
}

/// Writes an atlas into `dir`: `atlas.csv` (the varied values, verdict, theorem, G*, proof) and,
/// for two axes, the verdict map `atlas.png` and its proved layer `atlas_proof.png` (each cell
/// proved or sampled only, the counts in the title), for one axis `(G*)²` along it
/// (`atlas_gstar.png`).
pub fn write_files(title: &str, axes: &[Axis], cells: &[Cell], dir: &std::path::Path) -> Result<(), Error> {
    use crate::plot::{CategoryMap, Mark, XyPlot};
    std::fs::create_dir_all(dir).map_err(|e| Error::write(dir, e))?;
    let mut csv = axes.iter().map(|x| x.key.clone()).collect::<Vec<_>>().join(",");
    csv.push_str(",verdict,theorem,G_star,proof\n");
    for c in cells {
        let vals = c.values.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(",");
        csv.push_str(&format!(
            "{vals},{},{},{},{}\n",
            c.verdict,
            c.theorem,
            c.g_star.map_or(String::new(), |g| g.to_string()),
            c.proof.map_or("", |p| if p == ProofKind::Interval { "interval" } else { "none" })
        ));
    }
    crate::output::write_file(dir, "atlas.csv", &csv)?;
    if axes.len() == 2 {
        CategoryMap {
            title: format!("{title}: stability atlas"),
            x_label: axis_label(&axes[0].key),
            y_label: axis_label(&axes[1].key),
            xs: (0..axes[0].n).map(|k| axes[0].value(k)).collect(),
            ys: (0..axes[1].n).map(|k| axes[1].value(k)).collect(),
            cells: verdict_indices(cells),
            legend: verdict_legend(),
            marks: vec![],
            paths: vec![],
        }
        .save(&dir.join("atlas.png"))?;
        let (proved, sampled) = proof_counts(cells);
        CategoryMap {
            title: format!("{title}: verdicts proved for every φ: {proved} cells, sampled only: {sampled}"),
            x_label: axis_label(&axes[0].key),
            y_label: axis_label(&axes[1].key),
            xs: (0..axes[0].n).map(|k| axes[0].value(k)).collect(),
            ys: (0..axes[1].n).map(|k| axes[1].value(k)).collect(),
            cells: proof_indices(cells),
            legend: proof_legend(),
            marks: vec![],
            paths: vec![],
        }
        .save(&dir.join("atlas_proof.png"))
    } else {
        XyPlot::new(format!("{title}: (G*)^2 along {}", axes[0].key), axis_label(&axes[0].key), "(G*)^2 [–]")
            .add(
                "(G*)^2",
                cells.iter().map(|c| (c.values[0], c.g_star.map_or(f64::NAN, |g| g * g))).collect(),
                Mark::LinePoints,
            )
            .add("stability limit", vec![(axes[0].lo, 1.0), (axes[0].hi, 1.0)], Mark::Line)
            .save(&dir.join("atlas_gstar.png"))
    }
}

/// What `equilibrium atlas --json` (and `merge --json`) print.
#[derive(Debug, Clone, Serialize)]
pub struct AtlasSummary {
    /// The grid.
    pub axes: Vec<Axis>,
    /// Cells per verdict, every verdict listed.
    pub counts: Vec<VerdictCount>,
    /// The cells.
    pub cells: Vec<Cell>,
}

/// How many cells have a verdict.
#[derive(Debug, Clone, Serialize)]
pub struct VerdictCount {
    /// The verdict.
    pub verdict: Verdict,
    /// Its cells.
    pub cells: usize,
}

impl AtlasSummary {
    /// The summary of `cells` on `axes`.
    pub fn new(axes: &[Axis], cells: Vec<Cell>) -> Self {
        let counts = Verdict::ALL
            .iter()
            .map(|v| VerdictCount { verdict: *v, cells: cells.iter().filter(|c| c.verdict == *v).count() })
            .collect();
        AtlasSummary { axes: axes.to_vec(), counts, cells }
    }
}

/// Checks the cells of a study before any work: every value, applied alone to `p`, must lie in
/// its key's valid range (the first that does not is named with its value). Cells whose values
/// are valid one by one but not together are [`Verdict::Invalid`] cells of the result instead.
pub fn check_values(p: &TwoContact, keys: &[&str], points: &[Vec<f64>]) -> Result<(), Error> {
    if let Some(bad) = keys.iter().find(|k| !KEYS.contains(k)) {
        return Err(Error::input("vary", *bad, format!("unknown key; allowed: {}", KEYS.join(", "))));
    }
    for row in points {
        if row.len() != keys.len() {
            return Err(Error::input("points", format!("{row:?}"), format!("expected {} values per cell", keys.len())));
        }
        for (key, &v) in keys.iter().zip(row) {
            apply(p, key, v)
                .map_err(|e| Error::input("vary", *key, format!("{v} is outside the model's valid range: {e}")))?;
        }
    }
    Ok(())
}

/// Classifies the cells at the given parameter values (`points[k][d]` is the value of
/// `keys[d]`, keys as for [`Axis`]), in parallel: the unit of work that a grid (or a shard of
/// one, or a chunk sent to a Dask worker) is cut into. A cell whose values leave the model's
/// range is [`Verdict::Invalid`].
pub fn classify_cells(
    p: &TwoContact,
    keys: &[&str],
    points: &[Vec<f64>],
    samples: usize,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<Vec<Cell>, Error> {
    if let Some(bad) = keys.iter().find(|k| !KEYS.contains(k)) {
        return Err(Error::input("--vary", *bad, format!("unknown key; allowed: {}", KEYS.join(", "))));
    }
    if let Some(row) = points.iter().find(|r| r.len() != keys.len()) {
        return Err(Error::input("points", format!("{row:?}"), format!("expected {} values per cell", keys.len())));
    }
    let total = points.len();
    let done = std::sync::atomic::AtomicU64::new(0);
    points
        .par_iter()
        .map(|values| {
            let mut q = Ok(*p);
            for (key, v) in keys.iter().zip(values.iter()) {
                q = q.and_then(|q| apply(&q, key, *v));
            }
            let cell = match q {
                Err(_) => Cell {
                    values: values.clone(),
                    verdict: Verdict::Invalid,
                    theorem: crate::twocontact::classify::Theorem::NotEvaluated,
                    g_star: None,
                    proof: None,
                },
                Ok(q) => {
                    let c = classify(&q, samples)?;
                    let g_star = c
                        .fixed_points
                        .iter()
                        .map(|f| f.g)
                        .fold(None, |m: Option<f64>, g| Some(m.map_or(g, |m| m.max(g))));
                    let proof = Some(crate::twocontact::proof::prove_verdict(&q, &c).proof.proof);
                    Cell { values: values.clone(), verdict: c.verdict, theorem: c.theorem, g_star, proof }
                }
            };
            let d = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
            if d.is_multiple_of(32) || d == total as u64 {
                progress(d, total as u64);
            }
            Ok(cell)
        })
        .collect()
}

#[cfg(test)]
mod request_tests {
    use super::*;
    use crate::paper_configs::p1::config;

    #[test]
    fn bad_requests_are_refused_before_any_work() {
        let p = config("B").unwrap();
        let ax = |s: &str| Axis::parse(s).unwrap();
        let err = |axes: &[Axis]| check_axes(&p, axes).unwrap_err().to_string();
        assert!(err(&[ax("phi1=-0.1:0.1:3"), ax("phi1_deg=-5:5:3")]).contains("same model parameter"));
        assert!(err(&[ax("com_x=-0.05:0.0:3"), ax("l1=-0.1:0.0:3")]).contains("same model parameter"));
        assert!(err(&[ax("phi1=-3:3:3")]).contains("lo = -3 is outside"));
        assert!(err(&[ax("mu1=0:-1:3")]).contains("hi = -1 is outside"));
        assert!(err(&[ax("mu1=0:1:100000"), ax("mu2=0:1:100000")]).contains("10000000000 cells exceed"));
        assert!(check_axes(&p, &[ax("mu1=0.1:1:3"), ax("com_z=0.08:0.2:3")]).is_ok());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::paper_configs::p1::config;

    #[test]
    fn parse_and_apply() {
        let a = Axis::parse("com_x=-0.03:-0.01:5").unwrap();
        assert_eq!(a.n, 5);
        assert!((a.value(4) + 0.01).abs() < 1e-15);
        assert!(Axis::parse("weight=1:2:3").is_err());
        assert!(Axis::parse("mu1=1:2").is_err());
        assert!(Axis::parse("mu1=1:2:0").is_err());
        let b = config("B").unwrap();
        let q = apply(&b, "com_x", -0.0288).unwrap();
        assert!((q.l1 - 0.0288).abs() < 1e-15 && (q.l2 - 0.0888).abs() < 1e-12);
        assert!(apply(&b, "mu1", -1.0).is_err());
    }

    #[test]
    fn output_is_in_grid_order() {
        let b = config("B").unwrap();
        let axes = [Axis::parse("mu1=0.2:0.4:3").unwrap(), Axis::parse("com_z=0.12:0.14:2").unwrap()];
        let cells = atlas(&b, &axes, 101, &|_, _| {}).unwrap();
        assert_eq!(cells.len(), 6);
        for (k, c) in cells.iter().enumerate() {
            assert!((c.values[0] - axes[0].value(k % 3)).abs() < 1e-15);
            assert!((c.values[1] - axes[1].value(k / 3)).abs() < 1e-15);
        }
    }
}
