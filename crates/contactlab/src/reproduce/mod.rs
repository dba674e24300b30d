//! `contactlab reproduce`: recompute every published number and figure and write the report.
//!
//! Each section is a function from [`Options`] to a [`Section`]; [`run`] calls the selected ones
//! and writes `REPORT.md`, `results.json` and the figures into [`Options::out`]. Progress is
//! reported through a callback so that the library stays free of terminal concerns.

pub mod beyond;
pub mod lcp;
pub mod p1;
pub mod p2;
pub mod p3;
pub mod p4;
pub mod p5;

use std::path::{Path, PathBuf};

use crate::report::{Report, Section};
use crate::Error;

/// One group of rows (and figures) of a section, built in turn by the section's builder.
pub type RowGroup = fn(&mut Section, &Options) -> Result<(), Error>;

/// A row group that also reads values its section computes once and several groups share (an
/// analysis, a periodic orbit), passed as a small struct `C`.
pub type RowGroupWith<C> = fn(&mut Section, &Options, &C) -> Result<(), Error>;

/// A report section: its id (as `--only` takes it), title and builder.
#[derive(Clone, Copy)]
pub struct SectionDef {
    /// Short id (`LCP`, `P1`, ...).
    pub id: &'static str,
    /// Title.
    pub title: &'static str,
    /// Builds the section (its figures go into [`Options::out`]).
    pub build: fn(&Options, &ProgressFn<'_>) -> Result<Section, Error>,
}

/// Every section, in report order. A paper's section is one file that defines its `SECTION`,
/// listed here.
pub const SECTIONS: &[SectionDef] =
    &[lcp::SECTION, p1::SECTION, p2::SECTION, p3::SECTION, p4::SECTION, p5::SECTION, beyond::SECTION];

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
        if let Some(sec) = SECTIONS.iter().find(|s| s.id == id) {
            out.push(sec.id.to_string());
        } else {
            let all: Vec<&str> = SECTIONS.iter().map(|s| s.id).collect();
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
        None => SECTIONS.iter().map(|s| s.id.to_string()).collect(),
    };
    std::fs::create_dir_all(&opts.out).map_err(|e| Error::write(&opts.out, e))?;
    let mut report = Report::default();
    for id in &ids {
        let def = SECTIONS
            .iter()
            .find(|s| s.id == id)
            .ok_or_else(|| Error::argument("only", format!("unknown section {id}")))?;
        let section = (def.build)(opts, progress)?;
        report.sections.push(section);
    }
    report.write(&opts.out)?;
    Ok(report)
}
