//! Small helpers shared by the modules (serialisation of nalgebra types).

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
