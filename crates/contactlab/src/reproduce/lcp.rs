//! Report section `LCP`: the LCP core on the Siconos test set and on Murty's exponential family.
//!
//! For every dense problem in `siconos-lcp/`:
//! * the combined solver ([`crate::lcp::solve`]) must return a verified solution (residual
//!   `≤ 1e-9`) or a reasoned "no solution", never a wrong "solved";
//! * where `n ≤ 16`, exhaustive enumeration ([`crate::lcp::enumerate`]) is the independent
//!   reference for whether a solution exists;
//! * solution sets stated in a file's comment are checked over all enumerated pieces.
//!
//! Murty's family (`M` upper triangular, 1 on the diagonal and 2 above, `qᵢ = −(2ⁿ⁺¹ − 2ⁱ)`, Murty
//! 1988, ch. 6) takes Lemke's method with covering vector `e` through `2ⁿ − 1` pivots after the
//! initial one; the pivot counts are tabulated and plotted against `2ⁿ`.

use std::path::Path;

use nalgebra::DVector;

use super::{Options, ProgressFn};
use crate::lcp::enumerate::{enumerate, EnumSettings};
use crate::lcp::{io, lemke, solve, LcpSettings, LcpStatus};
use crate::plot::{Mark, XyPlot};
use crate::report::{yes_no, Figure, Row, Section, Table};
use crate::util::kebab;
use crate::Error;

/// Section title.
pub const TITLE: &str = "LCP core: Siconos test set and Murty's exponential examples";

/// This section, for [`super::SECTIONS`].
pub const SECTION: super::SectionDef = super::SectionDef { id: "LCP", title: TITLE, build: section };

/// Acceptance threshold on the verified residual.
pub const RESIDUAL_TOL: f64 = 1e-9;

/// Largest `n` for which enumeration serves as reference in this section.
const ENUM_MAX: usize = 16;

pub use crate::papers::lcp::murty;

/// One problem's outcome, as tabulated.
#[derive(Debug, Clone)]
pub struct SiconosOutcome {
    /// File name.
    pub name: String,
    /// Size.
    pub n: usize,
    /// Lemke's own status and pivot count.
    pub lemke_status: LcpStatus,
    /// Lemke pivots.
    pub pivots: usize,
    /// Final status of the combined solver.
    pub status: LcpStatus,
    /// Method of the final answer.
    pub method: String,
    /// Verified residual (`+∞` if no point).
    pub residual: f64,
    /// Whether a "no solution" is certified, and how.
    pub reason: String,
    /// Enumeration: `Some((pieces, bounded))` when run and complete.
    pub pieces: Option<(usize, bool)>,
    /// The file's comment.
    pub comment: String,
}

/// Solves one Siconos file and builds its rows.
pub fn check_file(path: &Path) -> Result<(SiconosOutcome, Vec<Row>), Error> {
    let name = path.file_name().map(|s| s.to_string_lossy().to_string()).unwrap_or_default();
    let file = io::read(path)?;
    let lcp = &file.lcp;
    let settings = LcpSettings::default();
    let lem = lemke::solve(lcp, &settings)?;
    let sol = solve(lcp, &settings)?;
    let enumeration = if lcp.n() <= ENUM_MAX { Some(enumerate(lcp, &EnumSettings::default())?) } else { None };
    let mut rows = Vec::new();
    let solved = sol.status == LcpStatus::Solved;
    if let Some(e) = enumeration.as_ref().filter(|e| e.complete) {
        rows.push(
            Row::exact(
                format!("{name}: a solution exists"),
                yes_no(!e.pieces.is_empty()),
                yes_no(solved),
                "independent: exhaustive enumeration of complementary pieces",
            )
            .with_note(format!("solver: {} via {}", sol.status.as_str(), kebab(&sol.method))),
        );
    }
    if solved {
        rows.push(Row::at_most(
            format!("{name}: verified residual"),
            RESIDUAL_TOL,
            sol.residual,
            "acceptance criterion: residual of the returned z relative to the data",
        ));
    } else {
        rows.push(
            Row::exact(
                format!("{name}: 'no solution' is certified"),
                "yes",
                yes_no(sol.certified),
                "requirement: never an unproved verdict when n ≤ 12",
            )
            .with_note(format!("reason: {}", sol.reason.map_or("none given".to_string(), |r| kebab(&r)))),
        );
    }
    // Solution sets stated in the data files.
    if name == "lcp_CPS_1.dat" {
        if let Some(e) = &enumeration {
            let c = DVector::from_vec(vec![1.0, 1.0]);
            let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
            for p in &e.pieces {
                lo = lo.min(p.minimize(lcp, &c)?.objective);
                hi = hi.max(-p.minimize(lcp, &(-&c))?.objective);
            }
            rows.push(Row::number(
                "lcp_CPS_1.dat: min of z1 + z2 over all solutions",
                1.0,
                lo,
                1e-9,
                "file comment: CPS 2009, Remark 4.1.14",
            ));
            rows.push(Row::number(
                "lcp_CPS_1.dat: max of z1 + z2 over all solutions",
                1.0,
                hi,
                1e-9,
                "file comment: CPS 2009, Remark 4.1.14",
            ));
        }
    }
    let outcome = SiconosOutcome {
        name,
        n: lcp.n(),
        lemke_status: lem.status,
        pivots: lem.pivots,
        status: sol.status,
        method: kebab(&sol.method),
        residual: sol.residual,
        reason: match (sol.reason, sol.certified) {
            (None, _) => String::new(),
            (Some(r), c) => format!("{}{}", kebab(&r), if c { " (certified)" } else { " (not certified)" }),
        },
        pieces: enumeration.filter(|e| e.complete).map(|e| (e.pieces.len(), e.bounded)),
        comment: file.comment,
    };
    Ok((outcome, rows))
}

/// Lemke pivots on Murty's example of size `n`, with the covering vector of his construction
/// (`e = 1` on the data as given; the solver's scale-free default takes another path).
pub fn murty_pivots(n: usize) -> Result<(usize, LcpStatus), Error> {
    let settings = LcpSettings {
        max_pivots: 1 << 22,
        covering: Some(nalgebra::DVector::from_element(n, 1.0)),
        ..Default::default()
    };
    let s = lemke::solve(&murty(n), &settings)?;
    Ok((s.pivots, s.status))
}

/// Builds the section.
pub fn section(opts: &Options, progress: &ProgressFn<'_>) -> Result<Section, Error> {
    let dir = opts.data.join("siconos-lcp");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .map_err(|e| Error::io(&dir, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "dat"))
        .collect();
    files.sort();
    let mut sec = Section::new(
        "LCP",
        TITLE,
        "Lemke's method (lexicographic, covering vector e) with a certified fallback (feasibility LP, \
         then exhaustive enumeration for n ≤ 12) on the LCP test problems of the Siconos numerics \
         test suite (`data/siconos-lcp`, shipped with the repository). A problem is *solved* only when the point verifies \
         on the original data with the natural-map residual ‖min(z, Mz+q)‖∞ / (1 + ‖q‖∞ + ‖M‖∞‖z‖∞) ≤ 1e-9. \
         For n ≤ 16 the existence of a solution is checked independently by enumerating all \
         complementary pieces.",
    );
    let total = files.len() as u64 + 1;
    let mut table = Table {
        caption: "Per problem: Lemke alone, the combined solver, and the enumeration reference.".into(),
        header: [
            "problem",
            "n",
            "Lemke",
            "pivots",
            "final status",
            "method",
            "residual",
            "no-solution reason",
            "pieces (bounded)",
            "file comment",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
        rows: vec![],
    };
    for (k, path) in files.iter().enumerate() {
        progress("LCP", k as u64, total);
        let name = path.file_name().map(|s| s.to_string_lossy().to_string()).unwrap_or_default();
        match check_file(path) {
            Ok((o, rows)) => {
                sec.rows.extend(rows);
                table.rows.push(vec![
                    o.name,
                    o.n.to_string(),
                    o.lemke_status.as_str().into(),
                    o.pivots.to_string(),
                    o.status.as_str().into(),
                    o.method,
                    if o.residual.is_finite() { format!("{:.2e}", o.residual) } else { "—".into() },
                    o.reason,
                    o.pieces.map_or("not run (n > 16)".into(), |(c, b)| format!("{c} ({})", yes_no(b))),
                    o.comment.chars().take(80).collect(),
                ]);
            }
            Err(e) if name.ends_with("_block.dat") => {
                table.rows.push(vec![
                    name,
                    "—".into(),
                    "not read".into(),
                    "—".into(),
                    "—".into(),
                    "—".into(),
                    "—".into(),
                    "—".into(),
                    "—".into(),
                    format!("sparse-block storage is not supported (optional): {e}"),
                ]);
            }
            Err(e) => return Err(e),
        }
    }
    sec.tables.push(table);

    // Murty's exponential family.
    progress("LCP", total - 1, total);
    let mut murty_rows = Vec::new();
    let mut pts = Vec::new();
    let mut ref_pts = Vec::new();
    for n in 1..=14 {
        let (p, st) = murty_pivots(n)?;
        pts.push((n as f64, p as f64));
        ref_pts.push((n as f64, 2f64.powi(n as i32)));
        murty_rows.push(vec![n.to_string(), p.to_string(), (1u64 << n).to_string(), st.as_str().to_string()]);
    }
    let six = murty_pivots(6)?.0;
    sec.rows.push(Row::exact(
        "Murty's example n = 6 (lcp_exp_murty2.dat): Lemke pivots",
        (1u64 << 6).to_string(),
        six.to_string(),
        "Murty (1988), ch. 6: 2ⁿ pivots with covering vector e",
    ));
    sec.tables.push(Table {
        caption: "Murty's family: Lemke pivots (initial pivot included) against 2ⁿ.".into(),
        header: vec!["n".into(), "pivots".into(), "2ⁿ".into(), "status".into()],
        rows: murty_rows,
    });
    let fig = "lcp_murty_pivots.png";
    XyPlot {
        log_y: true,
        ..XyPlot::new("Lemke on Murty's examples", "n", "pivots").add("contactlab Lemke", pts, Mark::Points).add(
            "2^n",
            ref_pts,
            Mark::Line,
        )
    }
    .save(&opts.out.join(fig))?;
    sec.figures.push(Figure {
        file: fig.into(),
        caption: "Pivots of Lemke's method on Murty's exponential family, log scale, with 2ⁿ.".into(),
    });
    progress("LCP", total, total);
    Ok(sec)
}
