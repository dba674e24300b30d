//! The reproduction report: per paper, each published (or reference) quantity beside the value
//! contactlab computes.
//!
//! A [`Report`] holds [`Section`]s; each section holds [`Row`]s, free-text notes, optional detail
//! tables and figures. [`Report::write`] produces `REPORT.md` and `results.json` (the same rows).
//!
//! A row's status is one of
//! * `match`: computed agrees with the reference within the stated tolerance;
//! * `mismatch`: it does not;
//! * `erratum`: it does not, and the row carries one sentence of evidence that the *published*
//!   value is wrong ([`Row::erratum`] refuses an empty one).
//!
//! Every row also names the `source` of its reference value (a paper equation, a data-file
//! comment, or an independent computation), so a reader can tell published numbers from
//! cross-checks.

use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;

use crate::Error;

/// Status of a report row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RowStatus {
    /// Agreement within tolerance.
    Match,
    /// Disagreement.
    Mismatch,
    /// Disagreement explained by a documented error in the publication.
    Erratum,
}

impl RowStatus {
    /// Lower-case name as printed.
    pub fn as_str(&self) -> &'static str {
        match self {
            RowStatus::Match => "match",
            RowStatus::Mismatch => "mismatch",
            RowStatus::Erratum => "erratum",
        }
    }
}

/// One quantity of the report.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// What is compared.
    pub quantity: String,
    /// The published or reference value, as printed.
    pub published: String,
    /// The computed value, as printed.
    pub computed: String,
    /// The tolerance applied ("exact" for discrete values).
    pub tolerance: String,
    /// The verdict.
    pub status: RowStatus,
    /// Where the reference value comes from.
    pub source: String,
    /// Evidence for an erratum, or a remark.
    pub note: String,
}

pub use crate::output::fmt_num;

/// `"yes"` or `"no"`, the printed form of boolean report values.
pub fn yes_no(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

impl Row {
    /// A row whose comparison came out `ok` (match) or not (mismatch), with no note.
    fn compared(
        quantity: String,
        published: String,
        computed: String,
        tolerance: String,
        ok: bool,
        source: String,
    ) -> Self {
        let status = if ok { RowStatus::Match } else { RowStatus::Mismatch };
        Row { quantity, published, computed, tolerance, status, source, note: String::new() }
    }

    /// Compares two numbers: `match` when `|computed − published| ≤ tol`.
    pub fn number(
        quantity: impl Into<String>,
        published: f64,
        computed: f64,
        tol: f64,
        source: impl Into<String>,
    ) -> Self {
        let ok = (computed - published).abs() <= tol;
        Self::compared(quantity.into(), fmt_num(published), fmt_num(computed), fmt_num(tol), ok, source.into())
    }

    /// Checks an upper bound: `match` when `computed ≤ bound`.
    pub fn at_most(quantity: impl Into<String>, bound: f64, computed: f64, source: impl Into<String>) -> Self {
        let ok = computed <= bound;
        Self::compared(
            quantity.into(),
            format!("≤ {}", fmt_num(bound)),
            fmt_num(computed),
            "bound".into(),
            ok,
            source.into(),
        )
    }

    /// Checks a lower bound: `match` when `computed ≥ bound − tol` (a published value that is
    /// itself a lower bound, such as the largest parameter at which a paper's simulations still
    /// found something; `tol` is half a unit of its last printed digit).
    pub fn at_least(
        quantity: impl Into<String>,
        bound: f64,
        computed: f64,
        tol: f64,
        source: impl Into<String>,
    ) -> Self {
        let ok = computed >= bound - tol;
        Self::compared(
            quantity.into(),
            format!("≥ {}", fmt_num(bound)),
            fmt_num(computed),
            fmt_num(tol),
            ok,
            source.into(),
        )
    }

    /// Compares discrete values (verdicts, counts, labels): `match` when equal.
    pub fn exact(
        quantity: impl Into<String>,
        published: impl Into<String>,
        computed: impl Into<String>,
        source: impl Into<String>,
    ) -> Self {
        let (p, c) = (published.into(), computed.into());
        let ok = p == c;
        Self::compared(quantity.into(), p, c, "exact".into(), ok, source.into())
    }

    /// Turns a row into an erratum; `evidence` must be a nonempty sentence.
    pub fn erratum(mut self, evidence: impl Into<String>) -> Result<Self, Error> {
        let e = evidence.into();
        if e.trim().len() < 10 {
            return Err(Error::argument(
                "evidence",
                format!("an erratum row needs a sentence of evidence (row `{}`)", self.quantity),
            ));
        }
        self.status = RowStatus::Erratum;
        self.note = e;
        Ok(self)
    }

    /// Marks a row an erratum only when the computation shows it: the row compares the value as
    /// printed and mismatches, and `corrected_agrees` (the corrected value, computed beside it,
    /// agrees with the computation). A printed value that matches stays `match` (the claimed
    /// erratum is then wrong, and the note says so); a mismatch the correction does not explain
    /// stays `mismatch`.
    pub fn erratum_if(self, corrected_agrees: bool, evidence: impl Into<String>) -> Result<Self, Error> {
        match (self.status, corrected_agrees) {
            (RowStatus::Mismatch, true) => self.erratum(evidence),
            (RowStatus::Mismatch, false) => {
                Ok(self.with_note("mismatch that the documented correction does not explain either"))
            }
            _ => Ok(self.with_note("the printed value agrees with the computation: no erratum")),
        }
    }

    /// Attaches a remark.
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.note = note.into();
        self
    }
}

/// A free-form table of details (not compared).
#[derive(Debug, Clone, Serialize)]
pub struct Table {
    /// Caption.
    pub caption: String,
    /// Column headers.
    pub header: Vec<String>,
    /// Cells, row by row.
    pub rows: Vec<Vec<String>>,
}

/// A figure written next to the report.
#[derive(Debug, Clone, Serialize)]
pub struct Figure {
    /// File name relative to the report directory.
    pub file: String,
    /// Caption.
    pub caption: String,
}

/// A section of the report (one per paper or core).
#[derive(Debug, Clone, Serialize)]
pub struct Section {
    /// Short identifier (`LCP`, `P1`, ...), as used by `--only`.
    pub id: String,
    /// Title.
    pub title: String,
    /// Introductory text (Markdown).
    pub intro: String,
    /// Compared quantities.
    pub rows: Vec<Row>,
    /// Detail tables.
    pub tables: Vec<Table>,
    /// Figures.
    pub figures: Vec<Figure>,
}

impl Section {
    /// An empty section.
    pub fn new(id: impl Into<String>, title: impl Into<String>, intro: impl Into<String>) -> Self {
        Section {
            id: id.into(),
            title: title.into(),
            intro: intro.into(),
            rows: vec![],
            tables: vec![],
            figures: vec![],
        }
    }

    /// Counts of rows per status `(match, mismatch, erratum)`.
    pub fn counts(&self) -> (usize, usize, usize) {
        let c = |s| self.rows.iter().filter(|r| r.status == s).count();
        (c(RowStatus::Match), c(RowStatus::Mismatch), c(RowStatus::Erratum))
    }
}

/// The whole report.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Report {
    /// The sections in order.
    pub sections: Vec<Section>,
}

fn md_escape(s: &str) -> String {
    crate::output::tidy_zeros(&s.replace('|', "\\|").replace('\n', " "))
}

impl Report {
    /// Counts of rows per status over all sections.
    pub fn counts(&self) -> (usize, usize, usize) {
        self.sections.iter().map(Section::counts).fold((0, 0, 0), |a, b| (a.0 + b.0, a.1 + b.1, a.2 + b.2))
    }

    /// Renders `REPORT.md`.
    pub fn to_markdown(&self) -> String {
        let mut s = String::new();
        let (m, mm, e) = self.counts();
        let _ = writeln!(s, "# contactlab reproduction report\n");
        let _ = writeln!(
            s,
            "Every number below was recomputed by `contactlab reproduce`. Each row gives the published \
             (or reference) value, where it comes from, the computed value, the tolerance and a status: \
             `match`, `mismatch`, or `erratum` (the publication is wrong; the row says why).\n"
        );
        let _ = writeln!(s, "**Totals:** {m} match, {mm} mismatch, {e} erratum.\n");
        let _ = writeln!(s, "| section | match | mismatch | erratum |\n|---|---|---|---|");
        for sec in &self.sections {
            let (a, b, c) = sec.counts();
            let _ = writeln!(s, "| {} — {} | {a} | {b} | {c} |", sec.id, md_escape(&sec.title));
        }
        for sec in &self.sections {
            let _ = writeln!(s, "\n## {} — {}\n\n{}\n", sec.id, sec.title, sec.intro.trim());
            if !sec.rows.is_empty() {
                let _ =
                    writeln!(s, "| quantity | published / reference | computed | tolerance | status | source | note |");
                let _ = writeln!(s, "|---|---|---|---|---|---|---|");
                for r in &sec.rows {
                    let _ = writeln!(
                        s,
                        "| {} | {} | {} | {} | **{}** | {} | {} |",
                        md_escape(&r.quantity),
                        md_escape(&r.published),
                        md_escape(&r.computed),
                        md_escape(&r.tolerance),
                        r.status.as_str(),
                        md_escape(&r.source),
                        md_escape(&r.note)
                    );
                }
            }
            for t in &sec.tables {
                let _ = writeln!(s, "\n{}\n", t.caption);
                let _ = writeln!(s, "| {} |", t.header.iter().map(|h| md_escape(h)).collect::<Vec<_>>().join(" | "));
                let _ = writeln!(s, "|{}", "---|".repeat(t.header.len()));
                for r in &t.rows {
                    let _ = writeln!(s, "| {} |", r.iter().map(|c| md_escape(c)).collect::<Vec<_>>().join(" | "));
                }
            }
            for f in &sec.figures {
                let _ = writeln!(s, "\n![{}]({})\n\n*{}*", md_escape(&f.caption), f.file, f.caption);
            }
        }
        s
    }

    /// Writes `REPORT.md` and `results.json` into `dir` (created if needed).
    pub fn write(&self, dir: &Path) -> Result<(), Error> {
        std::fs::create_dir_all(dir).map_err(|e| Error::write(dir, e))?;
        let md = dir.join("REPORT.md");
        std::fs::write(&md, self.to_markdown()).map_err(|e| Error::write(&md, e))?;
        let js = dir.join("results.json");
        let text = serde_json::to_string_pretty(&self.json()).map_err(|e| Error::Output(e.to_string()))?;
        std::fs::write(&js, text).map_err(|e| Error::write(&js, e))?;
        Ok(())
    }

    /// The JSON form of `results.json`: `{"totals": {...}, "rows": [{"section", "quantity", ...}], "sections": [...]}`.
    pub fn json(&self) -> serde_json::Value {
        serde_json::to_value(self.results()).unwrap_or(serde_json::Value::Null)
    }

    /// `results.json` as a typed value.
    pub fn results(&self) -> Results<'_> {
        let (m, mm, e) = self.counts();
        Results {
            totals: Counts { r#match: m, mismatch: mm, erratum: e },
            rows: self
                .sections
                .iter()
                .flat_map(|sec| sec.rows.iter().map(move |row| SectionRow { section: &sec.id, row }))
                .collect(),
            sections: self
                .sections
                .iter()
                .map(|s| {
                    let (a, b, c) = s.counts();
                    SectionSummary {
                        id: &s.id,
                        title: &s.title,
                        counts: Counts { r#match: a, mismatch: b, erratum: c },
                        figures: &s.figures,
                        tables: &s.tables,
                    }
                })
                .collect(),
        }
    }
}

/// `results.json`.
#[derive(Debug, Clone, Serialize)]
pub struct Results<'a> {
    /// Rows per status over the whole report.
    pub totals: Counts,
    /// Every row, with its section.
    pub rows: Vec<SectionRow<'a>>,
    /// Per section: counts, figures and tables.
    pub sections: Vec<SectionSummary<'a>>,
}

/// Rows per status.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Counts {
    /// `match` rows.
    pub r#match: usize,
    /// `mismatch` rows.
    pub mismatch: usize,
    /// `erratum` rows.
    pub erratum: usize,
}

/// A row with the id of its section.
#[derive(Debug, Clone, Serialize)]
pub struct SectionRow<'a> {
    /// The section's id.
    pub section: &'a str,
    /// The row.
    #[serde(flatten)]
    pub row: &'a Row,
}

/// A section in `results.json`.
#[derive(Debug, Clone, Serialize)]
pub struct SectionSummary<'a> {
    /// Id.
    pub id: &'a str,
    /// Title.
    pub title: &'a str,
    /// Rows per status.
    #[serde(flatten)]
    pub counts: Counts,
    /// Figures.
    pub figures: &'a [Figure],
    /// Tables.
    pub tables: &'a [Table],
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_and_rendering() {
        let mut sec = Section::new("X", "Test", "intro");
        sec.rows.push(Row::number("a", 1.0, 1.0 + 1e-12, 1e-9, "paper"));
        sec.rows.push(Row::number("b", 1.0, 2.0, 1e-9, "paper"));
        sec.rows.push(Row::exact("c", "yes", "no", "paper").erratum("The paper's own equation (3) gives no.").unwrap());
        assert!(Row::exact("d", "1", "2", "p").erratum("").is_err());
        // Erratum status follows the computation.
        let ev = "The printed formula has a sign flipped.";
        assert_eq!(Row::exact("e", "1", "2", "p").erratum_if(true, ev).unwrap().status, RowStatus::Erratum);
        assert_eq!(Row::exact("e", "1", "2", "p").erratum_if(false, ev).unwrap().status, RowStatus::Mismatch);
        assert_eq!(Row::exact("e", "1", "1", "p").erratum_if(true, ev).unwrap().status, RowStatus::Match);
        let rep = Report { sections: vec![sec] };
        assert_eq!(rep.counts(), (1, 1, 1));
        let md = rep.to_markdown();
        assert!(md.contains("| a | 1 | 1 | 1.000e-9 | **match** |"), "{md}");
        let js = rep.json();
        assert_eq!(js["rows"][2]["status"], "erratum");
    }
}
