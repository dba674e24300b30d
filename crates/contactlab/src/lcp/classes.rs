//! Matrix classes of LCP theory (P4, Appendix A).
//!
//! * **P-matrix**: every principal minor is positive; then LCP(q, M) has exactly one solution
//!   for every `q`.
//! * **Column adequate** (Ingleton 1966; Cottle, Pang & Stone 1992, §3.1): `M` is a P₀-matrix (all
//!   principal minors `≥ 0`) and for every `α`, `det M_αα = 0 ⇒ M_·α` has linearly dependent
//!   columns; equivalently `z ∘ Mz ≤ 0 ⇒ Mz = 0`. P4's Appendix A states only the determinant
//!   condition; without P₀ its own example `[[-1, 1], [1, -1]]` would pass it, while `z = (1, 0)`
//!   violates the equivalent form, so the P₀ requirement is needed and is tested here. All solutions of LCP(q, M) then share `w = q + Mz`
//!   (P4, Proposition 6). Symmetric positive semidefinite matrices are column adequate.
//! * **Column quasi-adequate** (P4, Appendix A): `z ∘ Mz ≤ 0, Mz ≥ 0 ⇒ Mz = 0`. By P4, Theorem 5(c),
//!   this holds iff for every nonempty `α` the system
//!   `M_α· z > 0, M_ᾱ· z = 0, z_α ≤ 0` (eq. 36) is inconsistent; being homogeneous, `> 0` may be
//!   replaced by `≥ 1`, which makes each test one LP.
//!
//! All three tests visit the `2ⁿ − 1` nonempty index sets and are limited to `n ≤` [`MAX_N`];
//! a failing test returns the index set (and vector, where there is one) that violates the
//! definition. The P and column-adequacy tests decide every minor's sign and every rank
//! exactly on the data as given ([`crate::exact`]: interval elimination, big integers where it
//! cannot tell), never against a tolerance: `[[2⁻⁴⁰, −1], [1024, 1]]` is a P-matrix. (A matrix
//! rounded from a singular positive semidefinite one, `A Aᵀ` formed in floats, may then have a
//! tiny negative minor and not be P₀: that is the truth of the numbers given.) Quasi-adequacy
//! solves one floating-point LP per set and says `undecided` when one ends otherwise;
//! positive semidefiniteness is read up to [`PSD_TOL`].

use nalgebra::{DMatrix, DVector};
use serde::Serialize;

use crate::exact::{det_sign, rank, Sign};
use crate::lp::{DenseLp, LpSettings, LpStatus};
use crate::Error;

/// `M` is positive semidefinite when the smallest eigenvalue of `(M + Mᵀ)/2` is at least
/// `−PSD_TOL` times its scale.
pub const PSD_TOL: f64 = 1e-12;

/// Largest `n` accepted by the subset-enumerating tests.
pub const MAX_N: usize = 16;

/// Outcome of a matrix-class test.
#[derive(Debug, Clone, Serialize)]
pub struct ClassTest {
    /// Whether the matrix belongs to the class.
    pub holds: bool,
    /// A violating index set (0-based), when it does not.
    pub witness_set: Option<Vec<usize>>,
    /// A violating vector, for tests that produce one (quasi-adequacy: `z` solving eq. 36).
    #[serde(serialize_with = "crate::output::ser_opt_dvector")]
    pub witness_vector: Option<DVector<f64>>,
    /// Whether some sub-test could not be decided numerically (then `holds` is not proved).
    pub undecided: bool,
}

/// `m` divided by the power of two nearest its largest entry: every class tested here is
/// invariant under a positive scalar factor, and the determinants and singular values of the
/// tests then neither underflow nor overflow (`1e-308·I` is a P-matrix).
fn normalised(m: &DMatrix<f64>) -> DMatrix<f64> {
    m / super::scaling::pow2(m.amax())
}

fn check(m: &DMatrix<f64>) -> Result<usize, Error> {
    let n = m.nrows();
    if m.ncols() != n || n == 0 {
        return Err(Error::Dimension(format!(
            "matrix class tests need a nonempty square matrix, got {}x{}",
            m.nrows(),
            m.ncols()
        )));
    }
    if n > MAX_N {
        return Err(Error::model("M", format!("matrix class tests are limited to n <= {MAX_N} (got {n})")));
    }
    if !m.iter().all(|v| v.is_finite()) {
        return Err(Error::NonFinite("matrix".into()));
    }
    Ok(n)
}

fn subset(mask: usize, n: usize) -> Vec<usize> {
    (0..n).filter(|&i| mask & (1 << i) != 0).collect()
}

fn principal(m: &DMatrix<f64>, a: &[usize]) -> DMatrix<f64> {
    DMatrix::from_fn(a.len(), a.len(), |i, j| m[(a[i], a[j])])
}

/// P-matrix test: every principal minor positive, each sign decided exactly on the data as
/// given ([`crate::exact::det_sign`]: a minor of `2⁻⁴⁰` is positive, whatever `‖M‖`).
pub fn is_p_matrix(m: &DMatrix<f64>) -> Result<ClassTest, Error> {
    let n = check(m)?;
    for mask in 1..(1usize << n) {
        let a = subset(mask, n);
        if det_sign(&principal(m, &a)) != Sign::Positive {
            return Ok(ClassTest { holds: false, witness_set: Some(a), witness_vector: None, undecided: false });
        }
    }
    Ok(ClassTest { holds: true, witness_set: None, witness_vector: None, undecided: false })
}

/// Column-adequacy test: P₀, and `M_αα` singular implies `M_·α` column-rank deficient; the
/// signs and ranks exact on the data as given ([`crate::exact`]).
pub fn is_column_adequate(m: &DMatrix<f64>) -> Result<ClassTest, Error> {
    let n = check(m)?;
    for mask in 1..(1usize << n) {
        let a = subset(mask, n);
        let fails = match det_sign(&principal(m, &a)) {
            Sign::Positive => false,
            Sign::Negative => true,
            Sign::Zero => rank(&DMatrix::from_fn(n, a.len(), |i, j| m[(i, a[j])])) == a.len(),
        };
        if fails {
            return Ok(ClassTest { holds: false, witness_set: Some(a), witness_vector: None, undecided: false });
        }
    }
    Ok(ClassTest { holds: true, witness_set: None, witness_vector: None, undecided: false })
}

/// Column quasi-adequacy test by P4, Theorem 5(c): one LP (system 36) per nonempty `α`.
pub fn is_column_quasi_adequate(m: &DMatrix<f64>) -> Result<ClassTest, Error> {
    let n = check(m)?;
    let m = &normalised(m);
    let mut undecided = false;
    for mask in 1..(1usize << n) {
        let a = subset(mask, n);
        let b: Vec<usize> = (0..n).filter(|&i| mask & (1 << i) == 0).collect();
        // Variables: u_α ≥ 0 (z_α = −u_α), p_ᾱ, r_ᾱ ≥ 0 (z_ᾱ = p − r).
        let nv = a.len() + 2 * b.len();
        let coef = |row: usize| -> Vec<f64> {
            let mut c = vec![0.0; nv];
            for (k, &j) in a.iter().enumerate() {
                c[k] = -m[(row, j)];
            }
            for (k, &j) in b.iter().enumerate() {
                c[a.len() + k] = m[(row, j)];
                c[a.len() + b.len() + k] = -m[(row, j)];
            }
            c
        };
        let a_eq = DMatrix::from_fn(b.len(), nv, |r, c| coef(b[r])[c]);
        // M_α z ≥ 1  ⇔  −M_α z ≤ −1.
        let a_ub = DMatrix::from_fn(a.len(), nv, |r, c| -coef(a[r])[c]);
        let lp = DenseLp::feasibility(nv, a_eq, DVector::zeros(b.len()), a_ub, DVector::from_element(a.len(), -1.0));
        let sol = lp.solve(&LpSettings::default())?;
        match sol.status {
            LpStatus::Infeasible => {}
            LpStatus::Optimal => {
                let mut z = DVector::zeros(n);
                for (k, &j) in a.iter().enumerate() {
                    z[j] = -sol.x[k];
                }
                for (k, &j) in b.iter().enumerate() {
                    z[j] = sol.x[a.len() + k] - sol.x[a.len() + b.len() + k];
                }
                return Ok(ClassTest { holds: false, witness_set: Some(a), witness_vector: Some(z), undecided: false });
            }
            _ => undecided = true,
        }
    }
    Ok(ClassTest { holds: !undecided, witness_set: None, witness_vector: None, undecided })
}

/// Whether `xᵀ M x ≥ 0` for all `x` (the symmetric part has no eigenvalue below `−tol·‖M‖`).
pub fn is_positive_semidefinite(m: &DMatrix<f64>, tol: f64) -> bool {
    let m = &normalised(m);
    let s = (m + m.transpose()) * 0.5;
    let scale = m.amax().max(crate::numeric::SCALE_FLOOR);
    s.symmetric_eigenvalues().iter().all(|&l| l >= -tol * scale)
}

/// Every class test of `M`, serialised as `lcp classes --json` prints it.
#[derive(Debug, Clone, Serialize)]
pub struct Classes {
    /// P-matrix.
    pub p_matrix: ClassTest,
    /// Column adequate.
    pub column_adequate: ClassTest,
    /// Column quasi-adequate.
    pub column_quasi_adequate: ClassTest,
    /// Positive semidefinite (up to `1e-12` of the data's scale).
    pub positive_semidefinite: bool,
}

impl Classes {
    /// Writes `classes.csv` into `dir`: each class, whether `M` is in it, and the index set that
    /// violates it (empty when it holds).
    pub fn write_files(&self, dir: &std::path::Path) -> Result<(), Error> {
        let set = |t: &ClassTest| {
            t.witness_set
                .as_ref()
                .map_or(String::new(), |w| w.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(" "))
        };
        let rows = vec![
            vec!["p_matrix".to_string(), self.p_matrix.holds.to_string(), set(&self.p_matrix)],
            vec!["column_adequate".to_string(), self.column_adequate.holds.to_string(), set(&self.column_adequate)],
            vec![
                "column_quasi_adequate".to_string(),
                self.column_quasi_adequate.holds.to_string(),
                set(&self.column_quasi_adequate),
            ],
            vec!["positive_semidefinite".to_string(), self.positive_semidefinite.to_string(), String::new()],
        ];
        crate::output::write_csv(dir, "classes.csv", &["class", "holds", "witness_index_set"], &rows)
    }
}

/// Runs every class test on `M` (n ≤ 16 for the index-set tests).
pub fn all(m: &DMatrix<f64>) -> Result<Classes, Error> {
    Ok(Classes {
        p_matrix: is_p_matrix(m)?,
        column_adequate: is_column_adequate(m)?,
        column_quasi_adequate: is_column_quasi_adequate(m)?,
        positive_semidefinite: is_positive_semidefinite(m, PSD_TOL),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mat(n: usize, v: &[f64]) -> DMatrix<f64> {
        DMatrix::from_row_slice(n, n, v)
    }

    #[test]
    fn p_matrix_examples() {
        assert!(is_p_matrix(&mat(2, &[2.0, 1.0, 1.0, 2.0])).unwrap().holds);
        // Nonsymmetric P-matrix.
        assert!(is_p_matrix(&mat(2, &[1.0, -3.0, 0.0, 1.0])).unwrap().holds);
        let t = is_p_matrix(&mat(2, &[1.0, 2.0, 2.0, 1.0])).unwrap();
        assert!(!t.holds);
        assert_eq!(t.witness_set, Some(vec![0, 1]));
    }

    #[test]
    fn paper_example_is_quasi_adequate_but_not_adequate() {
        // P4, Appendix A.
        let m = mat(2, &[-1.0, 1.0, 1.0, -1.0]);
        assert!(is_column_quasi_adequate(&m).unwrap().holds);
        let ca = is_column_adequate(&m).unwrap();
        assert!(!ca.holds);
        // The determinant condition alone holds here; the principal minor −1 < 0 (not P₀) fails.
        assert_eq!(ca.witness_set, Some(vec![0]));
    }

    #[test]
    fn not_quasi_adequate_witness_satisfies_definition() {
        // M = [[0, 1], [0, 0]]: z = (1, -1)? Mz = (-1, 0): need Mz >= 0, nonzero, z∘Mz <= 0.
        // z = (-1, 1): Mz = (1, 0) >= 0, z∘Mz = (-1, 0) <= 0, Mz != 0.
        let m = mat(2, &[0.0, 1.0, 0.0, 0.0]);
        let t = is_column_quasi_adequate(&m).unwrap();
        assert!(!t.holds);
        let z = t.witness_vector.unwrap();
        let mz = &m * &z;
        assert!(mz.iter().all(|&v| v >= -1e-9));
        assert!(mz.amax() > 1e-9);
        assert!(z.iter().zip(mz.iter()).all(|(a, b)| a * b <= 1e-9));
    }

    #[test]
    fn psd_is_column_adequate() {
        let a = mat(3, &[1.0, 2.0, 0.0, 0.0, 1.0, 1.0, 1.0, 3.0, 1.0]);
        let m = &a * a.transpose();
        // rank-deficient PSD
        let b = DMatrix::from_row_slice(3, 1, &[1.0, -1.0, 2.0]);
        let m2 = &b * b.transpose();
        for m in [m, m2] {
            assert!(is_positive_semidefinite(&m, 1e-12));
            assert!(is_column_adequate(&m).unwrap().holds);
            assert!(is_column_quasi_adequate(&m).unwrap().holds);
        }
    }

    #[test]
    fn size_limit() {
        assert!(is_p_matrix(&DMatrix::identity(MAX_N + 1, MAX_N + 1)).is_err());
    }
}
