//! Model files: TOML (or JSON) documents with a `kind` key, read with strict validation.
//!
//! Every analysis reads its model through [`Fields`], which records the keys it consumed so that
//! [`Fields::finish`] can reject unknown keys, and which turns every problem (missing key, wrong
//! type, non-finite number, value out of its physical range) into a one-line
//! [`Error::Input`] naming the file, the key and the allowed range.
//!
//! Angles are in radians; a key `name_deg` gives the same quantity in degrees
//! ([`Fields::angle`]). The schema of each kind is documented in `docs/models.md`.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::fmt;
use std::path::Path;

use nalgebra::{DMatrix, DVector};

use crate::Error;

pub mod param;

/// Largest model file read (bytes): a larger file is refused before it is read.
pub const MAX_MODEL_BYTES: u64 = 64 << 20;

/// The text of a file of at most [`MAX_MODEL_BYTES`], refused (naming the file) beyond that.
pub fn read_bounded(path: &Path) -> Result<String, Error> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let too_big = || {
        Error::input(
            path.display().to_string(),
            "file",
            format!("larger than {} MiB; model files are small text files", MAX_MODEL_BYTES >> 20),
        )
    };
    if file.metadata().is_ok_and(|m| m.len() > MAX_MODEL_BYTES) {
        return Err(too_big());
    }
    let mut text = String::new();
    // Read one byte more than allowed: a file that grows meanwhile is caught too.
    let n = file.take(MAX_MODEL_BYTES + 1).read_to_string(&mut text).map_err(|e| Error::io(path, e))?;
    if n as u64 > MAX_MODEL_BYTES {
        return Err(too_big());
    }
    Ok(text)
}

/// Allowed range of a number.
#[derive(Debug, Clone, Copy)]
pub enum Range {
    /// Any finite number.
    Any,
    /// `> 0`.
    Positive,
    /// `≥ 0`.
    NonNegative,
    /// `[lo, hi]`.
    Closed(f64, f64),
    /// `(lo, hi)`.
    Open(f64, f64),
}

impl Range {
    /// Whether `v` (finite) lies in the range.
    pub fn contains(&self, v: f64) -> bool {
        match *self {
            Range::Any => true,
            Range::Positive => v > 0.0,
            Range::NonNegative => v >= 0.0,
            Range::Closed(a, b) => (a..=b).contains(&v),
            Range::Open(a, b) => v > a && v < b,
        }
    }
}

impl fmt::Display for Range {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Range::Any => write!(f, "a finite number"),
            Range::Positive => write!(f, "a finite number > 0"),
            Range::NonNegative => write!(f, "a finite number >= 0"),
            Range::Closed(a, b) => write!(f, "a number in [{a}, {b}]"),
            Range::Open(a, b) => write!(f, "a number in ({a}, {b})"),
        }
    }
}

/// A parsed model document.
#[derive(Debug, Clone)]
pub struct ModelDoc {
    /// The file name used in error messages.
    pub file: String,
    /// The top-level table.
    pub table: toml::Table,
}

impl ModelDoc {
    /// Reads a `.toml` or `.json` file (at most [`MAX_MODEL_BYTES`]).
    pub fn read(path: &Path) -> Result<Self, Error> {
        let text = read_bounded(path)?;
        let is_json = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("json"));
        Self::parse(&path.display().to_string(), &text, is_json)
    }

    /// Parses TOML (or JSON when `json` is set) text; `file` names it in errors. A number
    /// written nonzero that rounds to zero (`1e-400`) is refused, as one that overflows is
    /// ([`refuse_underflow`]).
    pub fn parse(file: &str, text: &str, json: bool) -> Result<Self, Error> {
        refuse_underflow(file, text)?;
        let table = if json {
            serde_json::from_str::<toml::Table>(text).map_err(|e| {
                Error::input(file, format!("line {}", e.line()), format!("invalid JSON: {}", one_line(&e.to_string())))
            })?
        } else {
            text.parse::<toml::Table>().map_err(|e| {
                let pos = e.span().map(|s| format!("line {}", 1 + text[..s.start].matches('\n').count()));
                Error::input(
                    file,
                    pos.unwrap_or_else(|| "document".into()),
                    format!("invalid TOML: {}", one_line(e.message())),
                )
            })?
        };
        Ok(Self { file: file.to_string(), table })
    }

    /// The `kind` key (each reader checks that it is its own; the registry of kinds,
    /// [`crate::api::registry`], checks it against every kind with [`ModelDoc::kind_in`]).
    pub fn kind(&self) -> Result<&str, Error> {
        match self.table.get("kind") {
            None => Err(Error::input(&self.file, "kind", "missing")),
            Some(toml::Value::String(k)) => Ok(k),
            Some(v) => Err(Error::input(&self.file, "kind", format!("got {v}; expected a string"))),
        }
    }

    /// Whether the document is a scene of a robot in 3-D: `kind = "multibody"` with a `base` or
    /// an `mjcf` key (docs/models.md, "Robots in 3-D"); without them a `multibody` document is a
    /// planar mechanism.
    pub fn is_spatial_scene(&self) -> bool {
        self.kind().is_ok_and(|k| k == "multibody")
            && (self.table.contains_key("base") || self.table.contains_key("mjcf"))
    }

    /// The `kind` key, checked against `allowed`.
    pub fn kind_in(&self, allowed: &[&str]) -> Result<&str, Error> {
        match self.table.get("kind") {
            None => Err(Error::input(&self.file, "kind", format!("missing; one of {}", allowed.join(", ")))),
            Some(toml::Value::String(k)) if allowed.contains(&k.as_str()) => Ok(k),
            Some(v) => Err(Error::input(&self.file, "kind", format!("got {v}; allowed: {}", allowed.join(", ")))),
        }
    }

    /// A field reader over the top-level table (the `kind` key counts as used).
    pub fn fields(&self) -> Fields<'_> {
        let f = Fields::new(&self.file, String::new(), &self.table);
        f.used.borrow_mut().insert("kind".into());
        f
    }
}

/// Refuses a number literal of `text` (TOML, JSON or a whitespace-separated data file) that
/// is written nonzero but reads as zero: it is below the least positive float (about
/// `4.9e-324`), and reading it as `0` would change the problem silently (`M = [[1e-400]]`,
/// solvable as written, would have no solution). The error names the key the literal belongs to
/// (the last `key =` or `"key":` before it) and its line. Strings and comments are skipped.
pub fn refuse_underflow(file: &str, text: &str) -> Result<(), Error> {
    let bytes = text.as_bytes();
    let (mut i, mut line, mut key) = (0, 1, String::new());
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'\n' => line += 1,
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'"' | b'\'' => {
                // A string (its escapes skipped); a JSON object key is followed by `:`.
                let start = i + 1;
                i += 1;
                while i < bytes.len() && bytes[i] != c {
                    if bytes[i] == b'\\' && c == b'"' {
                        i += 1;
                    }
                    if i < bytes.len() && bytes[i] == b'\n' {
                        line += 1;
                    }
                    i += 1;
                }
                let s = &text[start..i.min(text.len())];
                let rest = text[(i + 1).min(text.len())..].trim_start();
                if rest.starts_with(':') || rest.starts_with('=') {
                    key = s.to_string();
                }
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let start = i;
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || b"_-.".contains(&bytes[i])) {
                    i += 1;
                }
                if text[i..].trim_start().starts_with('=') {
                    key = text[start..i].to_string();
                }
                continue;
            }
            c if c.is_ascii_digit() || ((c == b'.' || c == b'-' || c == b'+') && i + 1 < bytes.len()) => {
                let start = i;
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || b"_.+-".contains(&bytes[i])) {
                    i += 1;
                }
                let lit: String = text[start..i].chars().filter(|&ch| ch != '_').collect();
                let mantissa = lit.split(['e', 'E']).next().unwrap_or("");
                let nonzero = mantissa.bytes().any(|d| (b'1'..=b'9').contains(&d));
                if nonzero && lit.parse::<f64>() == Ok(0.0) {
                    return Err(Error::input(
                        file,
                        if key.is_empty() { format!("line {line}") } else { format!("{key} (line {line})") },
                        format!(
                            "{lit} is below the least positive number (about 4.9e-324) and would read as 0: write 0, or rescale the data"
                        ),
                    ));
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    Ok(())
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Reads keys of one table, validating each; see the module docs.
pub struct Fields<'a> {
    file: &'a str,
    prefix: String,
    table: &'a toml::Table,
    used: RefCell<BTreeSet<String>>,
}

impl<'a> Fields<'a> {
    /// A reader over `table`; `prefix` (e.g. `contact[1].`) is prepended to key names in errors.
    pub fn new(file: &'a str, prefix: String, table: &'a toml::Table) -> Self {
        Self { file, prefix, table, used: RefCell::new(BTreeSet::new()) }
    }

    fn key(&self, key: &str) -> String {
        format!("{}{}", self.prefix, key)
    }

    fn err(&self, key: &str, msg: impl Into<String>) -> Error {
        Error::input(self.file, self.key(key), msg)
    }

    fn get(&self, key: &str) -> Option<&'a toml::Value> {
        self.used.borrow_mut().insert(key.to_string());
        self.table.get(key)
    }

    /// Whether the key is present (marks it used).
    pub fn has(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    fn number(&self, key: &str, v: &toml::Value, range: Range) -> Result<f64, Error> {
        let x = match v {
            toml::Value::Float(x) => *x,
            toml::Value::Integer(i) => *i as f64,
            other => return Err(self.err(key, format!("expected {range}, got {} `{other}`", other.type_str()))),
        };
        if !x.is_finite() {
            return Err(self.err(key, format!("expected {range}, got {x}")));
        }
        if !range.contains(x) {
            return Err(self.err(key, format!("must be {range} (got {x})")));
        }
        Ok(x)
    }

    /// A required number in `range`.
    pub fn f64(&self, key: &str, range: Range) -> Result<f64, Error> {
        let v = self.get(key).ok_or_else(|| self.err(key, format!("missing; expected {range}")))?;
        self.number(key, v, range)
    }

    /// An optional number in `range`, `default` when absent.
    pub fn f64_or(&self, key: &str, default: f64, range: Range) -> Result<f64, Error> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => self.number(key, v, range),
        }
    }

    /// [`Self::angle`] if `key` or `key_deg` is given, else `default`.
    pub fn angle_or(&self, key: &str, default: f64, range: Range) -> Result<f64, Error> {
        // Both spellings are looked up (and so marked as read) before either is used.
        let (a, b) = (self.has(key), self.has(&format!("{key}_deg")));
        if a || b {
            self.angle(key, range)
        } else {
            Ok(default)
        }
    }

    /// An angle in radians from `key`, or in degrees from `key_deg` (exactly one must be given);
    /// `range` is in radians.
    pub fn angle(&self, key: &str, range: Range) -> Result<f64, Error> {
        let deg_key = format!("{key}_deg");
        match (self.get(key), self.get(&deg_key)) {
            (Some(_), Some(_)) => {
                Err(self.err(key, format!("give either `{key}` (radians) or `{deg_key}` (degrees), not both")))
            }
            (Some(v), None) => self.number(key, v, range),
            (None, Some(v)) => {
                let deg = self.number(&deg_key, v, Range::Any)?.to_radians();
                if range.contains(deg) {
                    Ok(deg)
                } else {
                    Err(self.err(&deg_key, format!("must be {range} in radians (got {deg} rad)")))
                }
            }
            (None, None) => Err(self.err(key, format!("missing; give `{key}` in radians or `{deg_key}` in degrees"))),
        }
    }

    /// An optional string.
    pub fn str_opt(&self, key: &str) -> Result<Option<&'a str>, Error> {
        match self.get(key) {
            None => Ok(None),
            Some(toml::Value::String(s)) => Ok(Some(s)),
            Some(v) => Err(self.err(key, format!("expected a string, got {}", v.type_str()))),
        }
    }

    /// An optional array of pairs of strings, `[["a", "b"], ...]` (empty when absent).
    pub fn string_pairs(&self, key: &str) -> Result<Vec<(&'a str, &'a str)>, Error> {
        let Some(v) = self.get(key) else { return Ok(vec![]) };
        let toml::Value::Array(a) = v else {
            return Err(self.err(key, format!("expected an array of [\"a\", \"b\"] pairs, got {}", v.type_str())));
        };
        a.iter()
            .enumerate()
            .map(|(i, p)| match p.as_array().map(|x| x.as_slice()) {
                Some([toml::Value::String(x), toml::Value::String(y)]) => Ok((x.as_str(), y.as_str())),
                _ => Err(self.err(&format!("{key}[{i}]"), "expected a pair of strings, [\"a\", \"b\"]")),
            })
            .collect()
    }

    /// An optional array of strings (empty when absent).
    pub fn strings(&self, key: &str) -> Result<Vec<&'a str>, Error> {
        match self.get(key) {
            None => Ok(vec![]),
            Some(toml::Value::Array(a)) => a
                .iter()
                .enumerate()
                .map(|(i, v)| match v {
                    toml::Value::String(s) => Ok(s.as_str()),
                    other => {
                        Err(self.err(&format!("{key}[{i}]"), format!("expected a string, got {}", other.type_str())))
                    }
                })
                .collect(),
            Some(v) => Err(self.err(key, format!("expected an array of strings, got {}", v.type_str()))),
        }
    }

    /// A required array of numbers, of length `len` when given.
    pub fn vector(&self, key: &str, len: Option<usize>, range: Range) -> Result<DVector<f64>, Error> {
        let v = self.get(key).ok_or_else(|| self.err(key, "missing; expected an array of numbers"))?;
        self.vector_value(key, v, len, range)
    }

    fn vector_value(
        &self,
        key: &str,
        v: &toml::Value,
        len: Option<usize>,
        range: Range,
    ) -> Result<DVector<f64>, Error> {
        let toml::Value::Array(a) = v else {
            return Err(self.err(key, format!("expected an array of numbers, got {}", v.type_str())));
        };
        if let Some(n) = len {
            if a.len() != n {
                return Err(self.err(key, format!("expected {n} entries, got {}", a.len())));
            }
        }
        let mut out = DVector::zeros(a.len());
        for (i, x) in a.iter().enumerate() {
            out[i] = self.number(&format!("{key}[{i}]"), x, range)?;
        }
        Ok(out)
    }

    /// A required matrix given as an array of rows, optionally of fixed shape.
    pub fn matrix(&self, key: &str, shape: Option<(usize, usize)>) -> Result<DMatrix<f64>, Error> {
        let v = self.get(key).ok_or_else(|| self.err(key, "missing; expected an array of rows"))?;
        let toml::Value::Array(rows) = v else {
            return Err(self.err(key, format!("expected an array of rows, got {}", v.type_str())));
        };
        let ncols = match rows.first() {
            Some(toml::Value::Array(r)) => r.len(),
            Some(other) => {
                return Err(self.err(&format!("{key}[0]"), format!("expected a row (array), got {}", other.type_str())))
            }
            None => 0,
        };
        if let Some((r, c)) = shape {
            if rows.len() != r || ncols != c {
                return Err(self.err(key, format!("expected a {r}x{c} matrix, got {} rows of {ncols}", rows.len())));
            }
        }
        let mut m = DMatrix::zeros(rows.len(), ncols);
        for (i, row) in rows.iter().enumerate() {
            let r = self.vector_value(&format!("{key}[{i}]"), row, Some(ncols), Range::Any)?;
            m.set_row(i, &r.transpose());
        }
        Ok(m)
    }

    /// An optional string restricted to `allowed`, `default` when absent.
    pub fn choice(&self, key: &str, allowed: &[&'static str], default: &'static str) -> Result<&'static str, Error> {
        match self.str_opt(key)? {
            None => Ok(default),
            Some(v) => allowed
                .iter()
                .find(|a| **a == v)
                .copied()
                .ok_or_else(|| self.err(key, format!("got \"{v}\"; allowed: {}", allowed.join(", ")))),
        }
    }

    /// A required integer in `[lo, hi]`.
    pub fn integer(&self, key: &str, lo: i64, hi: i64) -> Result<i64, Error> {
        match self.get(key) {
            None => Err(self.err(key, format!("missing; expected an integer in [{lo}, {hi}]"))),
            Some(toml::Value::Integer(i)) if (lo..=hi).contains(i) => Ok(*i),
            Some(v) => Err(self.err(key, format!("expected an integer in [{lo}, {hi}], got `{v}`"))),
        }
    }

    /// A required array of tables (`[[key]]`), each read by its own [`Fields`] with prefix `key[i].`.
    pub fn tables(&self, key: &str) -> Result<Vec<Fields<'a>>, Error> {
        let v =
            self.get(key).ok_or_else(|| self.err(key, format!("missing; expected one or more [[{key}]] tables")))?;
        let toml::Value::Array(items) = v else {
            return Err(self.err(key, format!("expected an array of tables ([[{key}]]), got {}", v.type_str())));
        };
        if items.is_empty() {
            return Err(self.err(key, "expected at least one entry"));
        }
        items
            .iter()
            .enumerate()
            .map(|(i, it)| match it {
                toml::Value::Table(t) => Ok(Fields::new(self.file, format!("{}{key}[{i}].", self.prefix), t)),
                other => Err(self.err(&format!("{key}[{i}]"), format!("expected a table, got {}", other.type_str()))),
            })
            .collect()
    }

    /// A required sub-table (`[key]`), read by its own [`Fields`] with prefix `key.`.
    pub fn table(&self, key: &str) -> Result<Fields<'a>, Error> {
        match self.get(key) {
            Some(toml::Value::Table(t)) => Ok(Fields::new(self.file, format!("{}{key}.", self.prefix), t)),
            Some(v) => Err(self.err(key, format!("expected a table ([{key}]), got {}", v.type_str()))),
            None => Err(self.err(key, format!("missing; expected a [{key}] table"))),
        }
    }

    /// The file name used in errors.
    pub fn file(&self) -> &'a str {
        self.file
    }

    /// An error about `key` of this table.
    pub fn error(&self, key: &str, msg: impl Into<String>) -> Error {
        self.err(key, msg)
    }

    /// Rejects keys that were never read (typos, keys of another kind).
    pub fn finish(self) -> Result<(), Error> {
        self.finish_ref()
    }

    /// [`Fields::finish`] without consuming the reader.
    pub fn finish_ref(&self) -> Result<(), Error> {
        let used = self.used.borrow();
        if let Some(k) = self.table.keys().find(|k| !used.contains(*k)) {
            let known: Vec<&str> = used.iter().map(String::as_str).collect();
            return Err(self.err(k, format!("unknown key; known keys here: {}", known.join(", "))));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(s: &str) -> ModelDoc {
        ModelDoc::parse("m.toml", s, false).unwrap()
    }

    #[test]
    fn a_number_that_would_read_as_zero_is_refused_naming_its_key() {
        // 1e400 was refused (not finite) while 1e-400 became 0 without a word: M = [[1e-400]],
        // q = [-1] then had "no solution", although z = 1e400 solves it as written.
        let e = ModelDoc::parse("m.toml", "kind = \"lcp\"\nM = [[1e-400]]\nq = [-1]\n", false).unwrap_err();
        let text = e.to_string();
        assert!(text.contains("m.toml") && text.contains("M (line 2)") && text.contains("1e-400"), "{text}");
        let e = ModelDoc::parse("m.json", "{\"kind\": \"lcp\",\n \"q\": [-1],\n \"M\": [[2, -3.5E-999]]}", true);
        assert!(e.unwrap_err().to_string().contains("M (line 3)"));
        let e = refuse_underflow("t.dat", "1\n0\n1\n1\n-0.7e-1000\n-1\n").unwrap_err();
        assert!(e.to_string().contains("-0.7e-1000"), "{e}");
        // A table's key, an array of tables, negative and underscored literals.
        let e = refuse_underflow("m.toml", "[[contact]]\nmu = 0.3\n[body]\nmass = 1_0e-4_00").unwrap_err();
        assert!(e.to_string().contains("mass (line 4)"), "{e}");
        // Not refused: zeros, subnormals (they read as written, to their precision), strings,
        // comments, dates, hexadecimal.
        for ok in [
            "x = 0.0e-999",
            "x = -0e-500",
            "x = 1e-320",
            "name = \"1e-400\" # 1e-400",
            "when = 1979-05-27T07:32:00Z",
            "bits = 0x1F",
            "x = 'a 1e-500 b'",
        ] {
            assert!(refuse_underflow("m.toml", ok).is_ok(), "{ok}");
        }
    }

    #[test]
    fn range_errors_name_file_key_and_range() {
        let d = doc("kind = \"lcp\"\nmass = -1\n");
        let e = d.fields().f64("mass", Range::Positive).unwrap_err().to_string();
        assert_eq!(e, "m.toml: mass: must be a finite number > 0 (got -1)");
    }

    #[test]
    fn nan_and_wrong_type_rejected() {
        let d = doc("a = nan\nb = \"x\"\n");
        let f = d.fields();
        assert!(f.f64("a", Range::Any).unwrap_err().to_string().contains("got NaN"));
        assert!(f.f64("b", Range::Any).unwrap_err().to_string().contains("string"));
    }

    #[test]
    fn degrees_and_radians() {
        let d = doc("slope_deg = 30\nother = 0.5\n");
        let f = d.fields();
        assert!((f.angle("slope", Range::Any).unwrap() - 30f64.to_radians()).abs() < 1e-15);
        assert_eq!(f.angle("other", Range::Any).unwrap(), 0.5);
        let d = doc("a = 1\na_deg = 2\n");
        assert!(d.fields().angle("a", Range::Any).is_err());
    }

    #[test]
    fn unknown_keys_rejected() {
        let d = doc("kind = \"lcp\"\nq = [1]\nqq = 2\n");
        let f = d.fields();
        f.vector("q", None, Range::Any).unwrap();
        let e = f.finish().unwrap_err().to_string();
        assert!(e.starts_with("m.toml: qq: unknown key"), "{e}");
    }

    #[test]
    fn kind_is_checked_and_syntax_errors_have_lines() {
        let d = doc("kind = \"walker\"");
        assert!(d.kind_in(&["lcp", "fixture"]).unwrap_err().to_string().contains("allowed: lcp, fixture"));
        assert_eq!(d.kind().unwrap(), "walker");
        assert!(doc("kind = 3").kind().unwrap_err().to_string().contains("expected a string"));
        let e = ModelDoc::parse("m.toml", "a = 1\nb = [1,\n", false).unwrap_err().to_string();
        assert!(e.starts_with("m.toml: line"), "{e}");
        assert!(!e.contains('\n'));
    }

    #[test]
    fn ragged_matrix_rejected() {
        let d = doc("M = [[1, 2], [3]]");
        assert!(d.fields().matrix("M", None).unwrap_err().to_string().contains("M[1]"));
    }
}
