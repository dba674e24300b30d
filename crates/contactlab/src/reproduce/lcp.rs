//! Report section `LCP`: the LCP core on the Siconos test set and on Murty's exponential family.
//!
//! For every problem in `siconos-lcp/` (dense or sparse-block storage):
//! * the combined solver ([`crate::lcp::solve`]) must return a solution or a reasoned "no
//!   solution", never a wrong "solved": each returned point is checked by
//!   [`crate::lcp::verify`] (componentwise, on the raw data, compensated sums), which shares no
//!   code with the solver's own acceptance test;
//! * where `n ≤ 16`, exhaustive enumeration ([`crate::lcp::enumerate`]) is the independent
//!   reference for whether a solution exists, compared with an answer from another route (where
//!   the solver itself fell back to enumeration: Lemke with other covering vectors, or the
//!   feasibility LP; when neither concludes the section says so and counts no row);
//! * solution sets stated in a file's comment are checked over all enumerated pieces;
//! * a sparse-block file with a dense twin (`lcp_X_block.dat`, `lcp_X.dat`) must read as the
//!   same `M` and `q`, entry for entry.
//!
//! Murty's family (`M` upper triangular, 1 on the diagonal and 2 above, `qᵢ = −(2ⁿ⁺¹ − 2ⁱ)`, Murty
//! 1988, ch. 6) takes Lemke's method with covering vector `e` through `2ⁿ − 1` pivots after the
//! initial one; the pivot counts are tabulated and plotted against `2ⁿ`.

use std::path::Path;

use nalgebra::DVector;

use super::{Options, ProgressFn};
use crate::lcp::enumerate::{enumerate, EnumSettings};
use crate::lcp::{io, lemke, solve, verify, Lcp, LcpMethod, LcpSettings, LcpStatus, NoSolutionReason};
use crate::output::kebab;
use crate::plot::{Mark, XyPlot};
use crate::report::{yes_no, Figure, Row, Section, Table};
use crate::Error;

/// Section title.
pub const TITLE: &str = "LCP core: Siconos test set and Murty's exponential examples";

/// This section, for [`super::SECTIONS`].
pub const SECTION: super::SectionDef = super::SectionDef { id: "LCP", title: TITLE, build: section };

/// Acceptance threshold of the independent componentwise check ([`verify`]), stated in each row.
pub const VERIFY_TOL: f64 = 1e-9;

/// Largest `n` for which enumeration serves as reference in this section.
const ENUM_MAX: usize = 16;

pub use crate::paper_configs::lcp::murty;

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
    /// Why there is no solution, and whether that is proved.
    pub reason: String,
    /// Enumeration: `Some((pieces, bounded))` when run and complete.
    pub pieces: Option<(usize, bool)>,
    /// The file's comment.
    pub comment: String,
}

/// For a sparse-block file `lcp_X_block.dat` with a dense twin `lcp_X.dat` in the same
/// directory: whether the two readers give the same `M` and `q`, entry for entry (an
/// independent check of the sparse-block reader: the dense file was written separately).
fn block_twin_row(path: &Path, name: &str) -> Result<Option<Row>, Error> {
    let Some(stem) = name.strip_suffix("_block.dat") else { return Ok(None) };
    let twin = path.with_file_name(format!("{stem}.dat"));
    if !twin.is_file() {
        return Ok(None);
    }
    let (a, b) = (io::read(path)?.lcp, io::read(&twin)?.lcp);
    let same = a.m.shape() == b.m.shape() && a.m == b.m && a.q == b.q;
    let differing = if a.m.shape() == b.m.shape() {
        a.m.iter().zip(b.m.iter()).chain(a.q.iter().zip(b.q.iter())).filter(|(x, y)| x != y).count()
    } else {
        a.m.len().max(b.m.len())
    };
    Ok(Some(
        Row::exact(
            format!("{name}: M and q as read from sparse-block storage"),
            "equal to the dense file's",
            if same { "equal to the dense file's".to_string() } else { format!("{differing} entries differ") },
            format!("independent: {stem}.dat, the same problem stored dense, read by the dense reader"),
        )
        .with_note(format!("n = {}", a.n())),
    ))
}

/// Solves one Siconos file and builds its rows.
/// The rows go into `Vec<Row>`; remarks that are not compared quantities into `notes`.
pub fn check_file(path: &Path, notes: &mut Vec<String>) -> Result<(SiconosOutcome, Vec<Row>), Error> {
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
        // The enumeration is the reference; the compared answer must come from another route.
        let independent = match (sol.method, sol.reason) {
            (LcpMethod::Enumeration, _) | (_, Some(NoSolutionReason::Enumeration)) => other_route(lcp)?,
            _ => Some((solved, format!("{} via {}", sol.status.as_str(), kebab(&sol.method)))),
        };
        match independent {
            Some((exists, how)) => rows.push(
                Row::exact(
                    format!("{name}: a solution exists"),
                    yes_no(!e.pieces.is_empty()),
                    yes_no(exists),
                    "independent: exhaustive enumeration of complementary pieces",
                )
                .with_note(format!("compared answer: {how}")),
            ),
            None => notes.push(format!(
                "{name}: whether a solution exists is settled by the enumeration alone ({}); no route that \
                 shares no code with it concluded, so no row compares it",
                if e.pieces.is_empty() { "none" } else { "one exists" }
            )),
        }
    }
    if solved {
        rows.push(
            Row::at_most(
                format!("{name}: componentwise error of the returned z"),
                VERIFY_TOL,
                verify::componentwise_error(lcp, &sol.z),
                "independent check: lcp::verify on the raw data, compensated sums",
            )
            .with_note(format!("the solver's own scaled residual: {:.2e}", sol.residual)),
        );
    } else {
        rows.push(
            Row::exact(
                format!("{name}: 'no solution' is proved"),
                "yes",
                yes_no(sol.proof.is_proved()),
                "requirement: never an unproved verdict when n ≤ 12 (interval proof on the data as given)",
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
        reason: match (sol.reason, sol.proof.is_proved()) {
            (None, _) => String::new(),
            (Some(r), c) => format!("{}{}", kebab(&r), if c { " (proved)" } else { " (not proved)" }),
        },
        pieces: enumeration.filter(|e| e.complete).map(|e| (e.pieces.len(), e.bounded)),
        comment: file.comment,
    };
    Ok((outcome, rows))
}

/// Whether a solution exists, by a route that shares no code with the enumeration: Lemke's
/// method with other covering vectors (`d = 1 + k·u`, `u` a fixed pseudo-random vector in
/// `(0, 1)ⁿ`, `k = 1, 2, 4, 8`), each point accepted only by [`verify::componentwise_error`].
/// `Some((true, how))` when one of them finds a verified solution, `Some((false, how))` when the
/// feasibility LP proves there is none, `None` when neither concludes.
fn other_route(lcp: &Lcp) -> Result<Option<(bool, String)>, Error> {
    let n = lcp.n();
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let u: Vec<f64> = (0..n)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64
        })
        .collect();
    for k in [1.0, 2.0, 4.0, 8.0] {
        let d = DVector::from_iterator(n, u.iter().map(|&x| 1.0 + k * x));
        let settings = LcpSettings { covering: Some(d), ..Default::default() };
        let s = lemke::solve(lcp, &settings)?;
        if s.status == LcpStatus::Solved && verify::componentwise_error(lcp, &s.z) <= VERIFY_TOL {
            return Ok(Some((true, format!("Lemke with covering vector 1 + {k}·u ({} pivots), verified", s.pivots))));
        }
    }
    Ok(match lcp.is_feasible() {
        Some(false) => Some((false, "the feasibility LP is infeasible (Farkas certificate)".to_string())),
        _ => None,
    })
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
        "Lemke's method (lexicographic, covering vector e) with fallbacks (feasibility LP and Farkas \
         certificate, then exhaustive enumeration for n ≤ 12), every no-solution verdict proved in \
         interval arithmetic or marked unproved, on the LCP test problems of the Siconos numerics \
         test suite (`data/siconos-lcp`, shipped with the repository). A problem is *solved* only when the point verifies \
         with the natural-map residual ‖min(z, Mz+q)‖∞ / (1 + ‖q‖∞ + ‖M‖∞‖z‖∞) ≤ 1e-9 of the \
         equilibrated problem and the componentwise relative error on the data as given ≤ 1e-9. \
         The report checks each returned point again by that componentwise error \
         (`lcp::verify`: the raw data, compensated sums, ≤ 1e-9). \
         For n ≤ 16 the existence of a solution is checked independently by enumerating all \
         complementary pieces, against an answer that did not come from the enumeration itself \
         (where the solver fell back to it, Lemke's method with other covering vectors or the \
         feasibility LP answers instead).",
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
    let mut notes = Vec::new();
    for (k, path) in files.iter().enumerate() {
        progress("LCP", k as u64, total);
        let name = path.file_name().map(|s| s.to_string_lossy().to_string()).unwrap_or_default();
        match check_file(path, &mut notes) {
            Ok((o, rows)) => {
                sec.rows.extend(rows);
                if let Some(row) = block_twin_row(path, &name)? {
                    sec.rows.push(row);
                }
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
            Err(e) => return Err(e),
        }
    }
    sec.tables.push(table);
    for note in notes {
        sec.intro.push_str(&format!("\n\n{note}."));
    }

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
        // The reference line first, so the data marks are drawn over it.
        ..XyPlot::new("Lemke on Murty's examples", "n", "pivots").add("2ⁿ", ref_pts, Mark::Dashed).add(
            "contactlab Lemke",
            pts,
            Mark::Points,
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
