//! Reading LCPs: the Siconos test-file format and our own model format.
//!
//! **Siconos format** (`.dat`, as Siconos' numerics test-suite reads it): whitespace-separated
//! `n`, `storage` (0 = dense), `rows cols`, again `rows cols`, then the `rows·cols` entries of `M`
//! in **column-major** order (entry `k` is `M[k mod rows][k div rows]`), then the `n` entries of
//! `q`. Anything after that is a comment (some files state the known solution set there).
//! Sparse-block storage (`storage = 1`) is not supported and reported as such.
//!
//! **contactlab format** (`.toml` or `.json`, `kind = "lcp"`):
//!
//! ```toml
//! kind = "lcp"
//! M = [[2.0, 1.0],
//!      [1.0, 2.0]]      # rows
//! q = [-5.0, -6.0]
//! # optional: covering = [1.0, 1.0]  (Lemke covering vector, entries > 0)
//! ```

use std::path::Path;

use nalgebra::{DMatrix, DVector};

use super::Lcp;
use crate::model::{Fields, ModelDoc, Range};
use crate::Error;

/// An LCP read from a file, with what else the file said.
#[derive(Debug, Clone)]
pub struct LcpFile {
    /// The problem.
    pub lcp: Lcp,
    /// Trailing comment text of a Siconos file (empty otherwise).
    pub comment: String,
    /// Covering vector requested by a model file.
    pub covering: Option<DVector<f64>>,
}

/// Reads an LCP from `path`: `.dat` as Siconos, `.toml`/`.json` as a `kind = "lcp"` model.
pub fn read(path: &Path) -> Result<LcpFile, Error> {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
    match ext.as_str() {
        "dat" => {
            let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
            parse_siconos(&path.display().to_string(), &text)
        }
        "toml" | "json" => {
            let doc = ModelDoc::read(path)?;
            from_model(&doc)
        }
        _ => Err(Error::input(
            path.display().to_string(),
            "file name",
            "unknown LCP file type; expected .dat (Siconos), .toml or .json",
        )),
    }
}

/// Builds an LCP from a `kind = "lcp"` model document.
pub fn from_model(doc: &ModelDoc) -> Result<LcpFile, Error> {
    let kind = doc.kind()?;
    if kind != "lcp" {
        return Err(Error::input(&doc.file, "kind", format!("expected \"lcp\", got \"{kind}\"")));
    }
    let f: Fields<'_> = doc.fields();
    let _ = f.str_opt("name")?;
    let _ = f.str_opt("description")?;
    let q = f.vector("q", None, Range::Any)?;
    let n = q.len();
    if n == 0 {
        return Err(Error::input(&doc.file, "q", "must have at least one entry"));
    }
    let m = f.matrix("M", Some((n, n)))?;
    let covering = if f.has("covering") { Some(f.vector("covering", Some(n), Range::Positive)?) } else { None };
    f.finish()?;
    Ok(LcpFile { lcp: Lcp { m, q }, comment: String::new(), covering })
}

/// Parses the Siconos `.dat` format; `file` names the source in errors.
pub fn parse_siconos(file: &str, text: &str) -> Result<LcpFile, Error> {
    let mut tokens = text.split_whitespace().peekable();
    let mut consumed = 0usize;
    let mut next_num = |what: &str| -> Result<f64, Error> {
        let tok = tokens.next().ok_or_else(|| {
            Error::input(file, format!("token {}", consumed + 1), format!("file ended while reading {what}"))
        })?;
        consumed += 1;
        tok.parse::<f64>().map_err(|_| {
            Error::input(file, format!("token {consumed}"), format!("expected a number for {what}, got `{tok}`"))
        })
    };
    let as_size = |x: f64, what: &str, pos: usize| -> Result<usize, Error> {
        if x.fract() == 0.0 && (1.0..=100_000.0).contains(&x) {
            Ok(x as usize)
        } else {
            Err(Error::input(file, format!("token {pos}"), format!("{what} must be a positive integer, got {x}")))
        }
    };
    let n = as_size(next_num("n")?, "n", 1)?;
    let storage = next_num("storage")?;
    if storage != 0.0 {
        return Err(Error::input(
            file,
            "token 2 (storage)",
            format!("only dense storage (0) is supported, got {storage}"),
        ));
    }
    let rows = as_size(next_num("rows")?, "rows", 3)?;
    let cols = as_size(next_num("cols")?, "cols", 4)?;
    let rows2 = as_size(next_num("rows")?, "rows", 5)?;
    let cols2 = as_size(next_num("cols")?, "cols", 6)?;
    if rows != n || cols != n || rows2 != n || cols2 != n {
        return Err(Error::input(
            file,
            "header",
            format!("M must be {n}x{n}, header says {rows}x{cols} and {rows2}x{cols2}"),
        ));
    }
    // Read the values before allocating anything of the header's size: memory follows the data
    // actually in the file, so a short file claiming a huge n fails fast with a clear message.
    let needed = n * n + n;
    let mut values = Vec::new();
    while values.len() < needed {
        let what = if values.len() < n * n { "an entry of M" } else { "an entry of q" };
        match next_num(what) {
            Ok(v) => values.push(v),
            Err(e) if e.to_string().contains("file ended") => {
                return Err(Error::input(
                    file,
                    "data",
                    format!(
                        "file ended after {} values: the header says n = {n} ({needed} values of M and q)",
                        values.len()
                    ),
                ))
            }
            Err(e) => return Err(e),
        }
    }
    let m = DMatrix::from_column_slice(n, n, &values[..n * n]);
    let q = DVector::from_column_slice(&values[n * n..]);
    let comment: Vec<&str> = tokens.collect();
    let lcp = Lcp { m, q };
    lcp.validate().map_err(|e| Error::input(file, "data", e.to_string()))?;
    Ok(LcpFile { lcp, comment: comment.join(" "), covering: None })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn column_major_order() {
        let f = parse_siconos("t.dat", "2\n0\n2\n2\n2\t2\n1 2\n3 4\n-1 -1\n# comment here\n").unwrap();
        assert_eq!(f.lcp.m[(0, 0)], 1.0);
        assert_eq!(f.lcp.m[(1, 0)], 2.0);
        assert_eq!(f.lcp.m[(0, 1)], 3.0);
        assert_eq!(f.comment, "# comment here");
    }

    #[test]
    fn truncated_and_garbage_files_are_errors() {
        assert!(parse_siconos("t.dat", "2\n0\n2\n2\n2 2\n1 2 3")
            .unwrap_err()
            .to_string()
            .contains("ended after 3 values"));
        // A 43-byte file claiming n = 100000 (80 GB of M) fails at once, allocating nothing large.
        let e = parse_siconos("big.dat", "100000 0 100000 100000 100000 100000 1 2 3").unwrap_err();
        assert!(e.to_string().contains("n = 100000") && e.to_string().contains("after 3 values"), "{e}");
        assert!(parse_siconos("t.dat", "x").unwrap_err().to_string().contains("expected a number"));
        assert!(parse_siconos("t.dat", "2 1 2 2 2 2").unwrap_err().to_string().contains("dense storage"));
        assert!(parse_siconos("t.dat", "-3 0").is_err());
        assert!(parse_siconos("t.dat", "1 0 1 1 1 1 nan 1").is_err());
        assert!(parse_siconos("t.dat", "").is_err());
    }

    #[test]
    fn model_format() {
        let doc = ModelDoc::parse("x.toml", "kind = \"lcp\"\nM = [[2, 1], [1, 2]]\nq = [-5, -6]\n", false).unwrap();
        let f = from_model(&doc).unwrap();
        assert_eq!(f.lcp.m[(0, 1)], 1.0);
        let doc = ModelDoc::parse("x.toml", "kind = \"lcp\"\nM = [[2, 1]]\nq = [-5, -6]\n", false).unwrap();
        assert!(from_model(&doc).unwrap_err().to_string().contains("x.toml: M: expected a 2x2 matrix"));
        let doc = ModelDoc::parse("x.json", r#"{"kind": "lcp", "M": [[1]], "q": [1], "covering": [0]}"#, true).unwrap();
        assert!(from_model(&doc).unwrap_err().to_string().contains("covering[0]"));
    }
}
