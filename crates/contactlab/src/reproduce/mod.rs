//! `contactlab reproduce`: recompute every published number and figure and write the report.
//!
//! Each section is a function from [`Options`] to a [`Section`]; [`run`] calls the selected ones
//! and writes `REPORT.md`, `results.json` and the figures into [`Options::out`]. Progress is
//! reported through a callback so that the library stays free of terminal concerns.

pub mod lcp;
pub mod p1;
pub mod p2;
pub mod p3;
pub mod p4;
pub mod p5;

use std::path::{Path, PathBuf};

use crate::report::{Report, Section};
use crate::Error;

/// The sections, in report order: `(id, title)`.
pub const SECTIONS: &[(&str, &str)] = &[
    ("LCP", lcp::TITLE),
    ("P1", p1::TITLE),
    ("P2", p2::TITLE),
    ("P3", p3::TITLE),
    ("P4", p4::TITLE),
    ("P5", p5::TITLE),
];

/// What to reproduce and where.
#[derive(Debug, Clone)]
pub struct Options {
    /// Output directory (created).
    pub out: PathBuf,
    /// Section ids to run (`None`: all).
    pub only: Option<Vec<String>>,
    /// The data directory (holding `siconos-lcp/`).
    pub data: PathBuf,
}

/// A progress event: `(section id, done, total)`.
pub type ProgressFn<'a> = dyn Fn(&str, u64, u64) + Sync + 'a;

/// Checks `--only` ids against [`SECTIONS`] (case-insensitive) and returns them normalised.
pub fn select(only: &[String]) -> Result<Vec<String>, Error> {
    let mut out = Vec::new();
    for id in only {
        let id = id.trim().to_ascii_uppercase();
        if let Some((sid, _)) = SECTIONS.iter().find(|(s, _)| *s == id) {
            out.push(sid.to_string());
        } else {
            let all: Vec<&str> = SECTIONS.iter().map(|s| s.0).collect();
            return Err(Error::input("--only", &id, format!("unknown section; allowed: {}", all.join(", "))));
        }
    }
    Ok(out)
}

/// Finds the data directory: `$CONTACTLAB_DATA`, else the `data/` folder the repository ships
/// (from the current directory or the source tree), else `../shared/data`.
pub fn default_data_dir() -> PathBuf {
    if let Ok(d) = std::env::var("CONTACTLAB_DATA") {
        return PathBuf::from(d);
    }
    let candidates = [
        PathBuf::from("data"),
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data"),
        PathBuf::from("../shared/data"),
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"),
    ];
    candidates.iter().find(|p| p.is_dir()).cloned().unwrap_or_else(|| candidates[0].clone())
}

/// Runs the selected sections and writes the report. Returns the report.
pub fn run(opts: &Options, progress: &ProgressFn<'_>) -> Result<Report, Error> {
    let ids = match &opts.only {
        Some(v) => select(v)?,
        None => SECTIONS.iter().map(|s| s.0.to_string()).collect(),
    };
    std::fs::create_dir_all(&opts.out).map_err(|e| Error::write(&opts.out, e))?;
    let mut report = Report::default();
    for id in &ids {
        let section: Section = match id.as_str() {
            "LCP" => lcp::section(opts, progress)?,
            "P1" => p1::section(opts, progress)?,
            "P2" => p2::section(opts, progress)?,
            "P3" => p3::section(opts, progress)?,
            "P4" => p4::section(opts, progress)?,
            "P5" => p5::section(opts, progress)?,
            other => return Err(Error::Unsupported(format!("section {other}"))),
        };
        report.sections.push(section);
    }
    report.write(&opts.out)?;
    Ok(report)
}
