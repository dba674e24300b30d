//! What the library writes: JSON serialisation of nalgebra types (non-finite numbers as `null`),
//! the names of enum values in messages, tidy number text, and the files it writes (an error
//! names the file).

use nalgebra::{DMatrix, DVector};
use serde::Serializer;

/// Serialises a vector as a JSON array; non-finite entries become `null`.
pub fn ser_dvector<S: Serializer>(v: &DVector<f64>, s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(v.iter().map(|x| finite_or_none(*x)))
}

/// Serialises an optional vector as a JSON array or `null`.
pub fn ser_opt_dvector<S: Serializer>(v: &Option<DVector<f64>>, s: S) -> Result<S::Ok, S::Error> {
    match v {
        None => s.serialize_none(),
        Some(v) => ser_dvector(v, s),
    }
}

/// Serialises a matrix as an array of rows.
pub fn ser_dmatrix<S: Serializer>(m: &DMatrix<f64>, s: S) -> Result<S::Ok, S::Error> {
    let rows: Vec<Vec<Option<f64>>> = m.row_iter().map(|r| r.iter().map(|x| finite_or_none(*x)).collect()).collect();
    s.collect_seq(rows)
}

/// `Some(x)` for finite `x`, `None` (JSON `null`) otherwise.
pub fn finite_or_none(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

/// Writes `text` into the file `dir/name` (creating `dir`); an error names the file.
pub fn write_file(dir: &std::path::Path, name: &str, text: &str) -> Result<(), crate::Error> {
    std::fs::create_dir_all(dir).map_err(|e| crate::Error::write(dir, e))?;
    let path = dir.join(name);
    std::fs::write(&path, text).map_err(|e| crate::Error::write(&path, e))
}

/// Writes a CSV file `dir/name` (created with `dir`) from a header and rows of cells.
pub fn write_csv(dir: &std::path::Path, name: &str, header: &[&str], rows: &[Vec<String>]) -> Result<(), crate::Error> {
    let mut text = header.join(",");
    text.push('\n');
    for r in rows {
        text.push_str(&r.join(","));
        text.push('\n');
    }
    write_file(dir, name, &text)
}

/// The serde (kebab-case) name of a unit enum variant, for messages: `numerical-error`, not
/// `NumericalError`.
pub fn kebab<T: serde::Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        // Internally tagged enums (`{"reason": "event-limit", ...}`): the tag.
        Ok(serde_json::Value::Object(m)) if m.get("reason").is_some_and(|r| r.is_string()) => {
            m["reason"].as_str().unwrap_or("unknown").to_string()
        }
        Ok(other) => other.to_string(),
        Err(_) => "unknown".into(),
    }
}

/// Replaces every negative zero printed at fixed precision (`-0`, `-0.000`, `-0.0e0`) in `s`
/// by its unsigned form: round-off below the printed precision has no sign worth showing.
pub fn tidy_zeros(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'-' && i + 1 < b.len() && b[i + 1] == b'0' && (i == 0 || !b[i - 1].is_ascii_alphanumeric()) {
            // The number after the sign: digits, one point, digits; negative zero if all zeros.
            let mut j = i + 1;
            while j < b.len() && (b[j] == b'0' || b[j] == b'.') {
                j += 1;
            }
            let ends = j == b.len() || !(b[j].is_ascii_digit());
            let exponent_zero = j < b.len() && b[j] == b'e';
            if ends || exponent_zero {
                i += 1;
                continue;
            }
        }
        let ch = s[i..].chars().next().expect("in bounds");
        out.push(ch);
        i += ch.len_utf8();
    }
    out
}

/// Formats a number compactly for tables.
pub fn fmt_num(x: f64) -> String {
    if !x.is_finite() {
        return format!("{x}");
    }
    if x == 0.0 {
        return "0".into();
    }
    let a = x.abs();
    if (1e-3..1e6).contains(&a) {
        let s = format!("{x:.6}");
        let s = s.trim_end_matches('0').trim_end_matches('.');
        if s == "-0" {
            "0".to_string()
        } else {
            s.to_string()
        }
    } else {
        format!("{x:.3e}")
    }
}

#[cfg(test)]
mod tidy_tests {
    use super::tidy_zeros;

    #[test]
    fn negative_zeros_lose_their_sign_and_nothing_else_changes() {
        assert_eq!(
            tidy_zeros("q = -0.000000, r = -0.0012, s = -0, t = x-0.0"),
            "q = 0.000000, r = -0.0012, s = 0, t = x-0.0"
        );
        assert_eq!(tidy_zeros("(-0.000, 3)"), "(0.000, 3)");
        assert_eq!(tidy_zeros("-0.000e0 and -1e-3 and -0.5"), "0.000e0 and -1e-3 and -0.5");
        assert_eq!(tidy_zeros("θ = -0.0000 — ok"), "θ = 0.0000 — ok");
    }
}
