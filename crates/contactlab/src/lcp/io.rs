//! Reading LCPs: the Siconos test-file format and our own model format.
//!
//! **Siconos format** (`.dat`, as Siconos' numerics test-suite reads it): whitespace-separated
//! `n`, `storage` (0 = dense), `rows cols`, again `rows cols`, then the `rows·cols` entries of `M`
//! in **column-major** order (entry `k` is `M[k mod rows][k div rows]`), then the `n` entries of
//! `q`. Anything after that is a comment (some files state the known solution set there).
//! Sparse-block storage (`storage = 1`, Siconos' `SparseBlockStructuredMatrix`) is read too
//! (see [`MAX_SPARSE_BLOCK_N`] and the layout at `parse_sparse_block`), into the dense matrix.
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

/// Largest `n` a sparse-block file may declare. The LCP core is dense, and an `n × n` matrix of
/// this size takes 200 MB; a dense file carries its `n²` entries, so its length bounds what it
/// can ask for, but a sparse-block file of a few blocks could otherwise ask for any amount.
pub const MAX_SPARSE_BLOCK_N: usize = 5000;

/// The numbers of a Siconos file, read one at a time, with their positions for errors.
struct Tokens<'a> {
    file: &'a str,
    tokens: std::str::SplitWhitespace<'a>,
    consumed: usize,
}

impl<'a> Tokens<'a> {
    /// The next number, or `None` at the end of the file; `what` names it in errors.
    fn next(&mut self, what: &str) -> Result<Option<f64>, Error> {
        let Some(tok) = self.tokens.next() else { return Ok(None) };
        self.consumed += 1;
        tok.parse::<f64>().map(Some).map_err(|_| {
            Error::input(
                self.file,
                format!("token {}", self.consumed),
                format!("expected a number for {what}, got `{tok}`"),
            )
        })
    }

    /// The next number; `what` names it in errors.
    fn number(&mut self, what: &str) -> Result<f64, Error> {
        self.next(what)?.ok_or_else(|| {
            Error::input(self.file, format!("token {}", self.consumed + 1), format!("file ended while reading {what}"))
        })
    }

    /// The next number as an integer in `lo..=hi`.
    fn integer(&mut self, what: &str, lo: usize, hi: usize) -> Result<usize, Error> {
        let x = self.number(what)?;
        if x.fract() == 0.0 && x >= lo as f64 && x <= hi as f64 {
            Ok(x as usize)
        } else {
            Err(Error::input(
                self.file,
                format!("token {} ({what})", self.consumed),
                format!("must be an integer in {lo}..={hi}, got {x}"),
            ))
        }
    }

    /// `count` numbers, read before anything of that size is allocated beyond what the file
    /// holds: a short file claiming a large size fails with the count it had.
    fn numbers(&mut self, count: usize, what: &str) -> Result<Vec<f64>, Error> {
        let mut values = Vec::new();
        while values.len() < count {
            match self.next(what)? {
                Some(v) => values.push(v),
                None => {
                    return Err(Error::input(
                        self.file,
                        "data",
                        format!("file ended after {} values; {what} needs {count}", values.len()),
                    ))
                }
            }
        }
        Ok(values)
    }
}

/// Parses the Siconos `.dat` format; `file` names the source in errors.
pub fn parse_siconos(file: &str, text: &str) -> Result<LcpFile, Error> {
    crate::model::refuse_underflow(file, text)?;
    let mut t = Tokens { file, tokens: text.split_whitespace(), consumed: 0 };
    let n = t.integer("n", 1, 100_000)?;
    let storage = t.number("storage")?;
    let m = if storage == 0.0 {
        let (rows, cols) = (t.integer("rows", 1, 100_000)?, t.integer("cols", 1, 100_000)?);
        let (rows2, cols2) = (t.integer("rows", 1, 100_000)?, t.integer("cols", 1, 100_000)?);
        if rows != n || cols != n || rows2 != n || cols2 != n {
            return Err(Error::input(
                file,
                "header",
                format!("M must be {n}x{n}, header says {rows}x{cols} and {rows2}x{cols2}"),
            ));
        }
        let values = t.numbers(n * n, &format!("M (the header says n = {n})"))?;
        DMatrix::from_column_slice(n, n, &values)
    } else if storage == 1.0 {
        parse_sparse_block(&mut t, n)?
    } else {
        return Err(Error::input(
            file,
            "token 2 (storage)",
            format!("must be 0 (dense) or 1 (sparse block), got {storage}"),
        ));
    };
    let q = DVector::from_vec(t.numbers(n, "q")?);
    let comment: Vec<&str> = t.tokens.collect();
    let lcp = Lcp { m, q };
    lcp.validate().map_err(|e| Error::input(file, "data", e.to_string()))?;
    Ok(LcpFile { lcp, comment: comment.join(" "), covering: None })
}

/// The matrix of a sparse-block Siconos file (storage 1), after `n` and the storage flag:
/// Siconos' `SparseBlockStructuredMatrix` in the layout its `SBM_write_in_file` writes,
///
/// ```text
///   size0 size1                         the matrix size (n n)
///   nbblocks blocknumber0 blocknumber1  blocks stored; block rows; block columns
///   blocksize0[blocknumber0]            cumulative row ends (increasing, the last is n)
///   blocksize1[blocknumber1]            cumulative column ends
///   filled1 filled2                     blocknumber0 + 1; nbblocks
///   index1_data[filled1]                row pointers: block row i holds blocks index1[i]..index1[i+1]
///   index2_data[filled2]                the block column of each block
///   per block, in order: its number, then its entries in column-major order
/// ```
///
/// Every count is checked against the ones before it, and every block against its block row
/// and column; entries not in any block are zero. The dense matrix is allocated after the
/// blocks are read, and `n` is at most [`MAX_SPARSE_BLOCK_N`].
fn parse_sparse_block(t: &mut Tokens<'_>, n: usize) -> Result<DMatrix<f64>, Error> {
    let file = t.file;
    if n > MAX_SPARSE_BLOCK_N {
        return Err(Error::input(
            file,
            "token 1 (n)",
            format!(
                "a sparse-block LCP is expanded to a dense n x n matrix: n must be at most {MAX_SPARSE_BLOCK_N}, got {n}"
            ),
        ));
    }
    let size0 = t.integer("size0", n, n)?;
    let _size1 = t.integer("size1", size0, size0)?;
    let nbblocks = t.integer("nbblocks", 0, n * n)?;
    let rows_b = t.integer("blocknumber0", 1, n)?;
    let cols_b = t.integer("blocknumber1", 1, n)?;
    let mut ends = |count: usize, what: &str| -> Result<Vec<usize>, Error> {
        let mut v = Vec::with_capacity(count);
        for k in 0..count {
            let lo = v.last().map_or(1, |&e: &usize| e + 1);
            let hi = if k + 1 == count { n } else { n - (count - 1 - k) };
            let lo = if k + 1 == count { n } else { lo };
            v.push(t.integer(&format!("{what}[{k}]"), lo, hi)?);
        }
        Ok(v)
    };
    let row_ends = ends(rows_b, "blocksize0")?;
    let col_ends = ends(cols_b, "blocksize1")?;
    t.integer("filled1", rows_b + 1, rows_b + 1)?;
    t.integer("filled2", nbblocks, nbblocks)?;
    let mut row_ptr = Vec::with_capacity(rows_b + 1);
    for k in 0..=rows_b {
        let lo = row_ptr.last().copied().unwrap_or(0);
        let (lo, hi) = match k {
            0 => (0, 0),
            _ if k == rows_b => (nbblocks, nbblocks),
            _ => (lo, nbblocks),
        };
        row_ptr.push(t.integer(&format!("index1_data[{k}]"), lo, hi)?);
    }
    // Block columns, increasing within each block row (so no position is given twice).
    let mut block_col = Vec::with_capacity(nbblocks);
    for bi in 0..rows_b {
        for k in row_ptr[bi]..row_ptr[bi + 1] {
            let lo = if k > row_ptr[bi] { block_col[k - 1] + 1 } else { 0 };
            block_col.push(t.integer(&format!("index2_data[{k}]"), lo, cols_b - 1)?);
        }
    }
    let start = |ends: &[usize], i: usize| if i == 0 { 0 } else { ends[i - 1] };
    let mut blocks = Vec::with_capacity(nbblocks);
    for bi in 0..rows_b {
        for b in row_ptr[bi]..row_ptr[bi + 1] {
            t.integer(&format!("the number of block {b}"), b, b)?;
            let bj = block_col[b];
            let (r0, c0) = (start(&row_ends, bi), start(&col_ends, bj));
            let (h, w) = (row_ends[bi] - r0, col_ends[bj] - c0);
            let values = t.numbers(h * w, &format!("block {b} ({h}x{w})"))?;
            blocks.push((r0, c0, h, values));
        }
    }
    let mut m = DMatrix::zeros(n, n);
    for (r0, c0, h, values) in blocks {
        for (k, v) in values.into_iter().enumerate() {
            m[(r0 + k % h, c0 + k / h)] = v;
        }
    }
    Ok(m)
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
        assert!(parse_siconos("t.dat", "2 2 2 2 2 2")
            .unwrap_err()
            .to_string()
            .contains("0 (dense) or 1 (sparse block)"));
        assert!(parse_siconos("t.dat", "-3 0").is_err());
        assert!(parse_siconos("t.dat", "1 0 1 1 1 1 nan 1").is_err());
        assert!(parse_siconos("t.dat", "").is_err());
    }

    /// `M = [[3, 0, -1], [1, 2, 0], [0, 0, 5]]` in two block rows (sizes 2, 1) and two block
    /// columns (sizes 2, 1): blocks (0,0) 2x2, (0,1) 2x1, (1,1) 1x1; block (1,0) is not stored.
    const SBM: &str = "3 1 3 3  3 2 2  2 3  2 3  3 3  0 2 3  0 1 1  \
                       0  3 1 0 2   1  -1 0   2  5   -1 -2 -3";

    #[test]
    fn sparse_block_storage() {
        let f = parse_siconos("t.dat", SBM).unwrap();
        let m = DMatrix::from_row_slice(3, 3, &[3.0, 0.0, -1.0, 1.0, 2.0, 0.0, 0.0, 0.0, 5.0]);
        assert_eq!(f.lcp.m, m);
        assert_eq!(f.lcp.q.as_slice(), &[-1.0, -2.0, -3.0]);
    }

    #[test]
    fn malformed_sparse_block_files_are_errors_naming_the_token() {
        let err = |text: &str| parse_siconos("t.dat", text).unwrap_err().to_string();
        let tokens: Vec<&str> = SBM.split_whitespace().collect();
        let with = |k: usize, v: &str| {
            let mut t = tokens.clone();
            t[k] = v;
            t.join(" ")
        };
        // size0 != n; a block row end past n; ends not increasing; the last end short of n.
        assert!(err(&with(2, "4")).contains("size0"));
        assert!(err(&with(7, "4")).contains("blocksize0[0]"));
        assert!(err(&with(10, "2")).contains("blocksize1[1]"));
        assert!(err(&with(8, "2")).contains("blocksize0[1]"));
        // filled1/filled2 inconsistent with the block counts; row pointers not ending at nbblocks.
        assert!(err(&with(11, "4")).contains("filled1"));
        assert!(err(&with(12, "2")).contains("filled2"));
        assert!(err(&with(15, "2")).contains("index1_data[2]"));
        // A block column out of range, or given twice in a block row.
        assert!(err(&with(16, "2")).contains("index2_data[0]"));
        assert!(err(&with(17, "0")).contains("index2_data[1]"));
        // A block out of order; a short block; q missing.
        assert!(err(&with(19, "1")).contains("the number of block 0"));
        assert!(err(&tokens[..26].join(" ")).contains("ended after 1 values; block 1 (2x1) needs 2"));
        assert!(err(&tokens[..30].join(" ")).contains("ended after 1 values; q needs 3"));
        // n beyond the dense limit, before anything is read or allocated.
        assert!(err("100000 1 100000 100000 1 1 1").contains("at most 5000"));
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
