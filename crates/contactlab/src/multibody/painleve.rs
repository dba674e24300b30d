//! Painlevé's paradox at any contact of any mechanism (P2, Section 2, for the user's system).
//!
//! For a slipping contact with slip direction `σ = sign ẋ`, P2's `A(q, q̇)` and `B(q, μ)`
//! (eqs. 20–21, [`crate::painleve::ab`]) give the normal acceleration `a_n = −A + B f_n`, and the
//! signs of `A` and `B` select one of the four cases of Table 2.1 ([`SlipCase`]). `B` is affine
//! in `μ`, `B = d(q) − σμ c(q)` with `d = w_nᵀM⁻¹w_n > 0` and `c = w_nᵀM⁻¹w_t`, so `B < 0`
//! somewhere in a set of configurations exactly when `μ > μ_min = min d/(σc)` over the set
//! (`σc > 0`). P2 gives `μ_min` in closed form for the rimless wheel and calls the general
//! expression an open problem; here it is computed: a grid over a slice of one or two
//! coordinates (the others held at the given state), refined by a pattern search
//! ([`crate::numeric::maximize_on_box`]). With no slice it is `d/(σc)` at the state's own
//! configuration.
//!
//! **Held constraints.** A locked knee is a joint limit closed with a positive force: the
//! paradox concerns the mechanism with it held. `A`, `B`, `μ_min` and the region `B < 0` are
//! computed with the held constraints bilateral (by default every joint limit closed at the
//! state), `M⁻¹` replaced by the constrained inverse
//! `P = M⁻¹ − M⁻¹J_Hᵀ(J_H M⁻¹J_Hᵀ)⁻¹J_H M⁻¹` and the free acceleration by the one that keeps
//! them closed (a limit is held by default when it is closed and at rest at the state). In the
//! LCP below they are unilateral, frictionless unknowns (a knee can unlock).
//!
//! **Several slipping contacts.** With contacts `1..k` slipping in directions `σⱼ` (the chosen
//! contact, any other closed contact slipping at the state, and the held constraints with
//! `μ = 0`), the normal
//! accelerations are `a = −A + B f` with `Bᵢⱼ = w_{n,i}ᵀM⁻¹(w_{n,j} − σⱼμⱼ w_{t,j})`, and the
//! normal forces solve the LCP `f ≥ 0, a ≥ 0, fᵀa = 0`. Its solutions at the state are
//! enumerated ([`crate::lcp::enumerate`]): none is P2's inconsistency (case 4), several its
//! indeterminacy (case 3), one a consistent motion. Whether that holds for every `A` is the
//! matrix class of `B` ([`crate::lcp::classes`]): a P-matrix gives exactly one solution for
//! every `A` (no paradox at this configuration, whatever the velocities); otherwise some `A`
//! has none or several. For one contact this is Table 2.1 itself (`B > 0` is the P-matrix
//! case), which a test checks.
//!
//! **Slip outcomes** ([`slip`]): how a slip episode of the contact ends from a state (stick,
//! reversal, separation, dynamic jam, P2's corner, an impact elsewhere), by the same reading
//! of the event-driven run as the walkers' ([`crate::painleve::slip`]).

use nalgebra::{DMatrix, DVector};
use serde::Serialize;

use super::Mechanism;
use crate::lcp::classes::is_p_matrix;
use crate::lcp::enumerate::{enumerate, EnumSettings};
use crate::lcp::Lcp;
use crate::mechanics::multibody_system::{Constraint, MultibodySystem};
use crate::mechanics::ContactSystem;
use crate::numeric::maximize_on_box;
use crate::numeric::negative_intervals;
use crate::painleve::desingular::{slip_parts, Held};
use crate::painleve::slip::SlipEnd;
use crate::painleve::{slip_case, AbTerms, SlipCase, SlipSettings};
use crate::Error;

/// One axis of a slice of configurations: a coordinate and its range.
#[derive(Debug, Clone, Serialize)]
pub struct SliceAxis {
    /// The coordinate's name.
    pub coordinate: String,
    /// Smallest value.
    pub lo: f64,
    /// Largest value.
    pub hi: f64,
}

/// What to compute.
#[derive(Debug, Clone)]
pub struct PainleveSettings {
    /// The contact (its name; in 3-D `shape:k/plane`, or a shape's or link's name).
    pub contact: String,
    /// A planar contact's slip direction `σ = ±1` (default: the sign of the contact's slip
    /// velocity at the state, `+1` if it does not slip); an argument error in 3-D.
    pub sigma: Option<i8>,
    /// A contact's slip direction in 3-D, a world vector projected onto its tangent plane
    /// (default: `crate::api` docs of the 3-D Painlevé analysis); an argument error for a planar
    /// contact.
    pub direction: Option<[f64; 3]>,
    /// Friction coefficient of the contact (default: the model's).
    pub mu: Option<f64>,
    /// Zero, one or two coordinates to vary (the others held at the state).
    pub slice: Vec<SliceAxis>,
    /// Grid points per slice axis (2 to 2001).
    pub points: usize,
    /// Contacts slipping with the chosen one, for the LCP check (default: every other armed
    /// contact closed at the state and slipping; in 3-D the touching contacts that slip); the
    /// held constraints join them.
    pub slipping: Option<Vec<String>>,
    /// Constraints held closed (default: every joint limit closed and at rest at the state; in
    /// 3-D the touching contacts at tangential rest, held sticking).
    pub held: Option<Vec<String>>,
}

impl Default for PainleveSettings {
    fn default() -> Self {
        Self {
            contact: String::new(),
            sigma: None,
            direction: None,
            mu: None,
            slice: vec![],
            points: 121,
            slipping: None,
            held: None,
        }
    }
}

/// `A`, `B` and the case of Table 2.1 at the state.
#[derive(Debug, Clone, Serialize)]
pub struct AtState {
    /// `A(q, q̇)` (P2 eq. 21; `a_n = −A + B f_n`).
    #[serde(rename = "A")]
    pub a: f64,
    /// `B(q, μ)`.
    #[serde(rename = "B")]
    pub b: f64,
    /// Magnitude of the terms `A` sums (its resolution is relative to this).
    pub a_scale: f64,
    /// Magnitude of the terms `B` sums.
    pub b_scale: f64,
    /// The case of Table 2.1.
    pub case: SlipCase,
}

/// The smallest `μ` with `B < 0` over the slice.
#[derive(Debug, Clone, Serialize)]
pub struct MuMin {
    /// `μ_min`.
    pub mu_min: f64,
    /// The values of the slice's coordinates where it is attained (empty: the state's
    /// configuration).
    pub at: Vec<f64>,
}

/// Where `B < 0` on a two-coordinate slice.
#[derive(Debug, Clone, Serialize)]
pub struct BNegativeGrid {
    /// Grid points per axis.
    pub points_per_axis: usize,
    /// Points with `B < 0`.
    pub cells: usize,
    /// The range of each slice coordinate over those points (`None` if there are none).
    pub ranges: Option<[[f64; 2]; 2]>,
    /// `B` at the grid points, rows along the second coordinate (for the CSV and the plot).
    #[serde(skip)]
    pub b: Vec<Vec<f64>>,
}

impl BNegativeGrid {
    /// `f` on an `n × n` grid of the box `[lo, hi]` (rows along the second coordinate) and
    /// where it is negative.
    pub(crate) fn of(f: &dyn Fn(&[f64]) -> f64, lo: &[f64], hi: &[f64], n: usize) -> Self {
        let at = |a: usize, k: usize| lo[a] + (hi[a] - lo[a]) * k as f64 / (n - 1) as f64;
        let b: Vec<Vec<f64>> = (0..n).map(|j| (0..n).map(|k| f(&[at(0, k), at(1, j)])).collect()).collect();
        let mut r = [[f64::INFINITY, f64::NEG_INFINITY]; 2];
        let mut cells = 0;
        for (j, row) in b.iter().enumerate() {
            for (k, &bv) in row.iter().enumerate() {
                if bv < 0.0 {
                    cells += 1;
                    for (a, x) in [(0, at(0, k)), (1, at(1, j))] {
                        r[a] = [r[a][0].min(x), r[a][1].max(x)];
                    }
                }
            }
        }
        BNegativeGrid { points_per_axis: n, cells, ranges: (cells > 0).then_some(r), b }
    }
}

/// The LCP of several slipping contacts at the state (module docs).
#[derive(Debug, Clone, Serialize)]
pub struct SeveralContacts {
    /// The contacts.
    pub contacts: Vec<String>,
    /// Their slip directions.
    pub sigma: Vec<i8>,
    /// `A` (one per contact).
    #[serde(rename = "A")]
    pub a: Vec<f64>,
    /// `B`, row-major.
    #[serde(rename = "B")]
    pub b: Vec<Vec<f64>>,
    /// Whether `B` is a P-matrix (one solution for every `A`); `None` if undecided numerically.
    pub p_matrix: Option<bool>,
    /// The normal forces of each solution of the LCP at the state (a point of each piece).
    pub solutions: Vec<Vec<f64>>,
    /// Whether the enumeration finished within its bound.
    pub complete: bool,
    /// `consistent` (one solution), `indeterminate` (several), `inconsistent` (none), or
    /// `unresolved` (the enumeration hit its bound).
    pub verdict: &'static str,
}

/// The answer of [`painleve`].
#[derive(Debug, Clone, Serialize)]
pub struct Painleve {
    /// The contact.
    pub contact: String,
    /// Its friction coefficient.
    pub mu: f64,
    /// The slip direction used.
    pub sigma: i8,
    /// The state's configuration and velocity.
    pub q: Vec<f64>,
    /// See `q`.
    pub v: Vec<f64>,
    /// `A`, `B` and the case at the state.
    pub at_state: AtState,
    /// The constraints held closed (module docs).
    pub held: Vec<String>,
    /// The slice varied for `μ_min` and the region `B < 0`.
    pub slice: Vec<SliceAxis>,
    /// The smallest `μ` with `B < 0` in the slice (`None`: `σc ≤ 0` throughout, no `μ` makes
    /// `B` negative).
    pub mu_min: Option<MuMin>,
    /// One-coordinate slice: the intervals where `B < 0`.
    pub b_negative_intervals: Option<Vec<[f64; 2]>>,
    /// Two-coordinate slice: the grid of `B < 0`.
    pub b_negative_grid: Option<BNegativeGrid>,
    /// The LCP of the slipping contacts and the held constraints, when there are two or more.
    pub several: Option<SeveralContacts>,
}

/// Painlevé's paradox at one contact of `m` at the state `(q, q̇)` (module docs).
pub fn painleve(m: &Mechanism, q: &[f64], v: &[f64], s: &PainleveSettings) -> Result<Painleve, Error> {
    m.check_state("state", q)?;
    m.check_state("state", v)?;
    let i = m.contact_index("contact", &s.contact)?;
    if s.points < 2 || s.points > 2001 {
        return Err(Error::argument("points", format!("must be in [2, 2001] (got {})", s.points)));
    }
    if s.slice.len() > 2 {
        return Err(Error::argument("slice", format!("at most two coordinates (got {})", s.slice.len())));
    }
    let mut axes = Vec::new();
    for a in &s.slice {
        let k = m.coordinate_index("slice", &a.coordinate)?;
        if !(a.lo.is_finite() && a.hi.is_finite() && a.lo < a.hi) {
            return Err(Error::argument(
                "slice",
                format!("{}: needs finite bounds lo < hi (got {}..{})", a.coordinate, a.lo, a.hi),
            ));
        }
        if axes.iter().any(|&(j, _, _)| j == k) {
            return Err(Error::argument("slice", format!("{} is given twice", a.coordinate)));
        }
        axes.push((k, a.lo, a.hi));
    }
    if s.direction.is_some() {
        return Err(Error::argument(
            "direction",
            "only for a robot in 3-D (a planar contact takes `--sigma 1|-1`, Python's `sigma=`)",
        ));
    }
    if let Some(sg) = s.sigma {
        if sg != 1 && sg != -1 {
            return Err(Error::argument("sigma", format!("must be 1 or -1 (got {sg})")));
        }
    }
    let several = match &s.slipping {
        Some(names) => Some(names.iter().map(|n| m.contact_index("slipping", n)).collect::<Result<Vec<_>, _>>()?),
        None => None,
    };
    let held = match &s.held {
        Some(names) => Some(names.iter().map(|n| m.contact_index("held", n)).collect::<Result<Vec<_>, _>>()?),
        None => None,
    };
    if held.as_ref().is_some_and(|h| h.contains(&i)) {
        return Err(Error::argument("held", format!("'{}' is the slipping contact; it cannot be held", s.contact)));
    }
    let first = m.with_contact_first(i);
    let first = match s.mu {
        Some(mu) => first.with_mu(0, mu)?,
        None => first,
    };
    // indices in `first` of the contacts named in `slipping`
    let renumber = |j: usize| {
        if j == i {
            0
        } else if j < i {
            j + 1
        } else {
            j
        }
    };
    let several = several.map(|v| v.into_iter().map(renumber).collect());
    let held = held.map(|v| v.into_iter().map(renumber).collect());
    Run { m: &first, q, v, s, axes: &axes, several, held }.run(first.system()?)
}

struct Run<'a> {
    m: &'a Mechanism,
    q: &'a [f64],
    v: &'a [f64],
    s: &'a PainleveSettings,
    axes: &'a [(usize, f64, f64)],
    several: Option<Vec<usize>>,
    held: Option<Vec<usize>>,
}

/// A contact slips when its slip speed exceeds this fraction of the state's speed scale
/// (`length / time` of the system).
const SLIP_TOL: f64 = 1e-9;

/// A contact is closed when its gap is within this fraction of the system's length scale.
const CLOSED_TOL: f64 = 1e-9;

impl Run<'_> {
    fn run(self, sys: MultibodySystem) -> Result<Painleve, Error> {
        let q = DVector::<f64>::from_column_slice(self.q);
        let v = DVector::<f64>::from_column_slice(self.v);
        let speed = sys.length_scale() / sys.time_scale();
        let slip_of = |j: usize| sys.tangent_jacobian(j, &q).dot(&v);
        // (A contact that does not slip, its slip speed within round-off of zero, slips by `+1`:
        // the sign of round-off must not choose the direction.)
        let sigma_of = |j: usize| if slip_of(j) < -SLIP_TOL * speed { -1.0 } else { 1.0 };
        let sigma = self.s.sigma.map_or_else(|| sigma_of(0), f64::from);
        let closed = |j: usize| sys.gap(j, &q).abs() <= CLOSED_TOL * sys.length_scale();
        let held: Vec<usize> = match &self.held {
            Some(h) => h.clone(),
            None => (1..sys.contact_count())
                .filter(|&j| {
                    matches!(sys.contacts()[j].constraint, Constraint::JointLimit { .. })
                        && closed(j)
                        && sys.normal_jacobian(j, &q).dot(&v).abs() <= SLIP_TOL * speed
                })
                .collect(),
        };
        let t = held_ab(&sys, &q, &v, sigma, &held);
        let at_state = AtState { a: t.a, b: t.b, a_scale: t.a_scale, b_scale: t.b_scale, case: slip_case(t.a, t.b) };

        let with = |x: &[f64]| {
            let mut qq = q.clone();
            for (&(k, _, _), &val) in self.axes.iter().zip(x) {
                qq[k] = val;
            }
            qq
        };
        let ratio = |x: &[f64]| {
            let (d, c) = held_dc(&sys, &with(x), &held);
            if sigma * c > 0.0 {
                d / (sigma * c)
            } else {
                f64::INFINITY
            }
        };
        let mu = sys.law(0).mu;
        let b = |x: &[f64]| {
            let (d, c) = held_dc(&sys, &with(x), &held);
            d - sigma * mu * c
        };
        let lo: Vec<f64> = self.axes.iter().map(|a| a.1).collect();
        let hi: Vec<f64> = self.axes.iter().map(|a| a.2).collect();
        let mu_min = if self.axes.is_empty() {
            let r = ratio(&[]);
            r.is_finite().then(|| MuMin { mu_min: r, at: vec![] })
        } else {
            let n = if self.axes.len() == 1 { self.s.points.max(301) } else { self.s.points };
            maximize_on_box(&|x| -ratio(x), &lo, &hi, n, 1)
                .filter(|(val, _)| val.is_finite())
                .map(|(val, at)| MuMin { mu_min: -val, at })
        };
        let n = self.s.points;
        let b_negative_intervals =
            (self.axes.len() == 1).then(|| negative_intervals(&|x| b(&[x]), lo[0], hi[0], n.max(401)));
        let b_negative_grid = (self.axes.len() == 2).then(|| BNegativeGrid::of(&b, &lo, &hi, n));

        let mut slipping: Vec<usize> = match &self.several {
            Some(v) => v.clone(),
            None => (1..sys.contact_count())
                .filter(|&j| sys.armed(j, &q) && closed(j) && slip_of(j).abs() > SLIP_TOL * speed)
                .collect(),
        };
        if !slipping.contains(&0) {
            slipping.insert(0, 0);
        }
        for &j in &held {
            if !slipping.contains(&j) {
                slipping.push(j);
            }
        }
        let several = if slipping.len() >= 2 || self.several.is_some() {
            let sigmas: Vec<f64> = slipping.iter().map(|&j| if j == 0 { sigma } else { sigma_of(j) }).collect();
            Some(several_contacts(&sys, &q, &v, &slipping, &sigmas, &self.m.contact_names)?)
        } else {
            None
        };
        Ok(Painleve {
            contact: self.s.contact.clone(),
            mu,
            sigma: sigma as i8,
            held: held.iter().map(|&j| self.m.contact_names[j].clone()).collect(),
            q: self.q.to_vec(),
            v: self.v.to_vec(),
            at_state,
            slice: self.s.slice.clone(),
            mu_min,
            b_negative_intervals,
            b_negative_grid,
            several,
        })
    }
}

/// With the constraints `held` bilateral, the constrained inverse
/// `P = M⁻¹ − M⁻¹J_Hᵀ(J_H M⁻¹J_Hᵀ)⁻¹J_H M⁻¹` and `K = (J_H M⁻¹J_Hᵀ)⁻¹J_H M⁻¹` (the forces that
/// hold them); `None` if `M` is not positive definite or the held constraints are dependent.
fn held_inverse<S: ContactSystem>(sys: &S, q: &DVector<f64>, held: &[usize]) -> Option<(DMatrix<f64>, DMatrix<f64>)> {
    let n = sys.dof();
    let m = DMatrix::from_column_slice(n, n, sys.mass_matrix(q).as_slice());
    let minv = m.cholesky()?.inverse();
    let jh = DMatrix::from_fn(held.len(), n, |r, c| sys.normal_jacobian(held[r], q)[c]);
    let g = &jh * &minv * jh.transpose();
    let k = g.lu().solve(&(&jh * &minv))?; // (J M⁻¹ Jᵀ)⁻¹ J M⁻¹
    let p = &minv - &minv * jh.transpose() * &k;
    Some((p, k))
}

/// `d = w_nᵀ P w_n` and `c = w_nᵀ P w_t` of contact 0 with the constraints `held` bilateral
/// (`P = M⁻¹` when none is held).
pub fn held_dc<S: ContactSystem>(sys: &S, q: &DVector<f64>, held: &[usize]) -> (f64, f64) {
    contact_dc(sys, q, 0, held)
}

/// [`held_dc`] of contact `i`.
pub fn contact_dc<S: ContactSystem>(sys: &S, q: &DVector<f64>, i: usize, held: &[usize]) -> (f64, f64) {
    if held.is_empty() {
        let Some(chol) = sys.mass_matrix(q).cholesky() else { return (f64::NAN, f64::NAN) };
        let mwn = chol.solve(&sys.normal_jacobian(i, q));
        return (mwn.dot(&sys.normal_jacobian(i, q)), mwn.dot(&sys.tangent_jacobian(i, q)));
    }
    let dv = |x: DVector<f64>| DVector::from_column_slice(x.as_slice());
    let (wn, wt) = (dv(sys.normal_jacobian(i, q)), dv(sys.tangent_jacobian(i, q)));
    let Some((p, _)) = held_inverse(sys, q, held) else { return (f64::NAN, f64::NAN) };
    let pwn = &p * &wn;
    (pwn.dot(&wn), pwn.dot(&wt))
}

/// P2's `A` and `B` of contact 0 for slip direction `sigma` with the constraints `held`
/// bilateral (module docs), with the magnitudes of their terms.
pub fn held_ab<S: ContactSystem>(sys: &S, q: &DVector<f64>, v: &DVector<f64>, sigma: f64, held: &[usize]) -> AbTerms {
    let held: Vec<Held> = held.iter().map(|&j| Held::Normal(j, 0.0)).collect();
    slip_parts(sys, 0.0, q, v, sigma, &held).map_or(
        AbTerms { a: f64::NAN, b: f64::NAN, a_scale: f64::NAN, b_scale: f64::NAN },
        |p| AbTerms { a: p.a, b: p.b, a_scale: p.a_scale, b_scale: p.b_scale },
    )
}

/// `A` and `B` of the contacts `js` slipping in directions `sigmas` (module docs), and the
/// solutions of their LCP.
pub fn several_contacts<S: ContactSystem>(
    sys: &S,
    q: &DVector<f64>,
    v: &DVector<f64>,
    js: &[usize],
    sigmas: &[f64],
    names: &[String],
) -> Result<SeveralContacts, Error> {
    let k = js.len();
    let chol = sys
        .mass_matrix(q)
        .cholesky()
        .ok_or_else(|| Error::Numerical("the mass matrix is not positive definite at the state".into()))?;
    let h = sys.bias(0.0, q, v);
    let mut a = DVector::zeros(k);
    let mut b = DMatrix::zeros(k, k);
    for (r, &i) in js.iter().enumerate() {
        let minv_wn = chol.solve(&sys.normal_jacobian(i, q));
        a[r] = -minv_wn.dot(&h) - sys.jacobian_dot_v(i, q, v).0;
        for (c, &j) in js.iter().enumerate() {
            let dir = sys.normal_jacobian(j, q) - sys.tangent_jacobian(j, q) * (sigmas[c] * sys.law(j).mu);
            b[(r, c)] = minv_wn.dot(&dir);
        }
    }
    let LcpVerdict { p_matrix, solutions, complete, verdict } = lcp_verdict(&a, &b)?;
    Ok(SeveralContacts {
        contacts: js.iter().map(|&j| names[j].clone()).collect(),
        sigma: sigmas.iter().map(|&s| s as i8).collect(),
        a: a.iter().copied().collect(),
        b: (0..k).map(|r| b.row(r).iter().copied().collect()).collect(),
        p_matrix,
        solutions,
        complete,
        verdict,
    })
}

/// The LCP `f ≥ 0, B f − A ≥ 0, fᵀ(B f − A) = 0` of several slipping contacts: whether `B` is
/// a P-matrix (`None`: undecided), the normal forces of its solutions, whether their enumeration
/// finished, and the verdict (`consistent`, `indeterminate`, `inconsistent`, `unresolved`).
pub(crate) fn lcp_verdict(a: &DVector<f64>, b: &DMatrix<f64>) -> Result<LcpVerdict, Error> {
    // Data scaled to unit size (the solutions' count does not depend on the units; the forces
    // are scaled back).
    let (sb, sa) = (pow2(b.amax()), pow2(a.amax()));
    let lcp = Lcp::new(b / sb, -a / sa)?;
    let e = enumerate(&lcp, &EnumSettings::default())?;
    let solutions: Vec<Vec<f64>> = e.pieces.iter().map(|p| p.z.iter().map(|z| z * sa / sb).collect()).collect();
    let p = is_p_matrix(b)?;
    let verdict = match (e.complete, e.pieces.len()) {
        (false, _) => "unresolved",
        (true, 0) => "inconsistent",
        (true, 1) => "consistent",
        _ => "indeterminate",
    };
    Ok(LcpVerdict { p_matrix: (!p.undecided).then_some(p.holds), solutions, complete: e.complete, verdict })
}

/// What `lcp_verdict` finds.
#[derive(Debug, Clone, Serialize)]
pub struct LcpVerdict {
    /// Whether `B` is a P-matrix (one solution for every `A`; `None`: undecided).
    pub p_matrix: Option<bool>,
    /// The normal forces of each solution.
    pub solutions: Vec<Vec<f64>>,
    /// Whether the enumeration finished within its bound.
    pub complete: bool,
    /// `consistent` (one solution), `indeterminate` (several), `inconsistent` (none) or
    /// `unresolved` (the enumeration hit its bound).
    pub verdict: &'static str,
}

/// The power of two nearest `x` (1 for zero or non-finite `x`): scaling by it is exact.
fn pow2(x: f64) -> f64 {
    if x.is_finite() && x > 0.0 {
        2f64.powi(x.log2().round() as i32)
    } else {
        1.0
    }
}

impl Painleve {
    /// Writes `painleve.json` and, for a slice, `b.csv` (`B` along the slice) and `b.png` (`B`
    /// against the coordinate, or the region `B < 0` on the two coordinates) into `dir`.
    pub fn write_files(&self, m: &Mechanism, dir: &std::path::Path) -> Result<(), Error> {
        use crate::plot::{CategoryMap, Mark, XyPlot};
        std::fs::create_dir_all(dir).map_err(|e| Error::write(dir, e))?;
        let json = serde_json::to_string_pretty(self).map_err(|e| Error::Output(e.to_string()))?;
        crate::output::write_file(dir, "painleve.json", &json)?;
        let name = m.name.clone().unwrap_or_else(|| m.source.clone());
        if let Some(g) = &self.b_negative_grid {
            let (ax, ay) = (&self.slice[0], &self.slice[1]);
            let at = |a: &SliceAxis, k: usize| a.lo + (a.hi - a.lo) * k as f64 / (g.points_per_axis - 1) as f64;
            let mut csv = format!("{},{},B,b_negative\n", ax.coordinate, ay.coordinate);
            for (j, row) in g.b.iter().enumerate() {
                for (i, &bv) in row.iter().enumerate() {
                    csv.push_str(&format!("{},{},{bv},{}\n", at(ax, i), at(ay, j), bv < 0.0));
                }
            }
            crate::output::write_file(dir, "b.csv", &csv)?;
            let marks =
                self.mu_min.iter().filter(|mm| mm.at.len() == 2).map(|mm| ("μ_min".to_string(), mm.at[0], mm.at[1]));
            CategoryMap {
                title: format!("{name}: B < 0 at {} (μ = {}, σ = {:+})", self.contact, self.mu, self.sigma),
                x_label: ax.coordinate.clone(),
                y_label: ay.coordinate.clone(),
                xs: (0..g.points_per_axis).map(|k| at(ax, k)).collect(),
                ys: (0..g.points_per_axis).map(|k| at(ay, k)).collect(),
                cells: g.b.iter().flat_map(|row| row.iter().map(|&b| usize::from(b < 0.0))).collect(),
                legend: vec![("B > 0".into(), (230, 230, 230)), ("B < 0 (Painlevé)".into(), (213, 94, 0))],
                marks: marks.collect(),
                paths: vec![],
            }
            .save(&dir.join("b.png"))?;
        } else if self.slice.len() == 1 {
            let a = &self.slice[0];
            let pts = b_curve(m, self, 401)?;
            let mut csv = format!("{},B\n", a.coordinate);
            for (x, b) in &pts {
                csv.push_str(&format!("{x},{b}\n"));
            }
            crate::output::write_file(dir, "b.csv", &csv)?;
            XyPlot::new(
                format!("{name}: B at {} (μ = {}, σ = {:+})", self.contact, self.mu, self.sigma),
                &a.coordinate,
                "B",
            )
            .add("B", pts, Mark::Line)
            .add("B = 0", vec![(a.lo, 0.0), (a.hi, 0.0)], Mark::Dashed)
            .save(&dir.join("b.png"))?;
        }
        Ok(())
    }
}

/// `B` along a one-coordinate slice at `n` points (for the files).
fn b_curve(m: &Mechanism, p: &Painleve, n: usize) -> Result<Vec<(f64, f64)>, Error> {
    struct Curve<'a>(&'a Painleve, usize, usize, Vec<usize>);
    impl Curve<'_> {
        fn run(self, sys: MultibodySystem) -> Vec<(f64, f64)> {
            let (p, k, n) = (self.0, self.1, self.2);
            let a = &p.slice[0];
            let mut q = DVector::<f64>::from_column_slice(&p.q);
            (0..n)
                .map(|i| {
                    let x = a.lo + (a.hi - a.lo) * i as f64 / (n - 1) as f64;
                    q[k] = x;
                    let (d, c) = held_dc(&sys, &q, &self.3);
                    (x, d - f64::from(p.sigma) * p.mu * c)
                })
                .collect()
        }
    }
    let i = m.contact_index("contact", &p.contact)?;
    let k = m.coordinate_index("slice", &p.slice[0].coordinate)?;
    let first = m.with_contact_first(i).with_mu(0, p.mu)?;
    let held = p.held.iter().map(|h| first.contact_index("held", h)).collect::<Result<Vec<_>, _>>()?;
    Ok(Curve(p, k, n, held).run(first.system()?))
}

/// The smallest initial slip speed of `contact` (m/s, along its line's tangent `t`) up to
/// `max_speed` that jams from `(q, q̇)` (`contactlab slip --jam-threshold`): P2's jam threshold
/// for any mechanism. The slip speed is set along a direction `e` of the velocities that slides
/// the contact at unit speed without changing its normal velocity (`w_tᵀe = 1`, `w_nᵀe = 0`):
/// the coordinate `along` (its normal Jacobian entry must vanish: a translation along the line,
/// as P2 slides the whole walker), or by default the least kinetic-energy such direction
/// `e = M⁻¹Jᵀ(JM⁻¹Jᵀ)⁻¹(1, 0)` with `J = [w_tᵀ; w_nᵀ]`. The state's own slip speed is removed
/// first (`q̇ − e w_tᵀq̇`), then the speed is bisected on `(0, max_speed]` to relative
/// [`JAM_SPEED_TOL`]. `None` when `max_speed` does not jam.
pub fn jam_threshold(
    m: &Mechanism,
    q: &[f64],
    v: &[f64],
    contact: &str,
    along: Option<&str>,
    max_speed: f64,
    settings: impl Into<SlipSettings>,
) -> Result<Option<f64>, Error> {
    m.check_state("state", q)?;
    m.check_state("state", v)?;
    let settings: SlipSettings = settings.into();
    settings.validate()?;
    if !(max_speed > 0.0 && max_speed.is_finite()) {
        return Err(Error::argument("max_speed", "must be a positive finite speed (m/s)"));
    }
    let i = m.contact_index("contact", contact)?;
    let k = along.map(|name| m.coordinate_index("along", name)).transpose()?;
    struct Jam<'a> {
        q: &'a [f64],
        v: &'a [f64],
        along: Option<(usize, &'a str)>,
        max_speed: f64,
        settings: &'a SlipSettings,
    }
    impl Jam<'_> {
        fn run(self, sys: MultibodySystem) -> Result<Option<f64>, Error> {
            let q = DVector::<f64>::from_column_slice(self.q);
            let v = DVector::<f64>::from_column_slice(self.v);
            let (wn, wt) = (sys.normal_jacobian(0, &q), sys.tangent_jacobian(0, &q));
            let e: DVector<f64> = match self.along {
                Some((k, name)) => {
                    let scale = wn.abs().max().max(wt.abs().max());
                    if wt[k].abs() <= 1e-12 * scale || wn[k].abs() > 1e-12 * scale {
                        return Err(Error::argument(
                            "along",
                            format!(
                                "'{name}' must slide the contact along its line (w_t = {:e}, w_n = {:e})",
                                wt[k], wn[k]
                            ),
                        ));
                    }
                    DVector::<f64>::from_fn(wt.len(), |r, _| if r == k { 1.0 / wt[k] } else { 0.0 })
                }
                None => {
                    let minv = sys
                        .mass_matrix(&q)
                        .cholesky()
                        .ok_or_else(|| Error::Numerical("the mass matrix is not positive definite".into()))?
                        .inverse();
                    let j = nalgebra::DMatrix::<f64>::from_rows(&[wt.transpose(), wn.transpose()]);
                    let a = &j * &minv * j.transpose();
                    let y = a.try_inverse().ok_or_else(|| {
                        Error::argument("contact", "its normal and tangent rows are dependent: it cannot slide")
                    })? * nalgebra::Vector2::new(1.0, 0.0);
                    minv * j.transpose() * y
                }
            };
            let rest = &v - &e * wt.dot(&v);
            Ok(crate::painleve::slip::jam_threshold(&sys, &q, &rest, &e, self.max_speed, JAM_SPEED_TOL, self.settings))
        }
    }
    let along = k.map(|k| (k, along.unwrap_or_default()));
    Jam { q, v, along, max_speed, settings: &settings }.run(m.with_contact_first(i).system()?)
}

/// Relative width of the bracket [`jam_threshold`] bisects down to.
pub const JAM_SPEED_TOL: f64 = 1e-7;

/// How a slip of contact `contact` (its name) that starts at `(q, q̇)` ends
/// ([`crate::painleve::slip::slip`] on the mechanism with that contact first).
pub fn slip(
    m: &Mechanism,
    q: &[f64],
    v: &[f64],
    contact: &str,
    settings: impl Into<SlipSettings>,
) -> Result<SlipEnd, Error> {
    m.check_state("state", q)?;
    m.check_state("state", v)?;
    let settings: SlipSettings = settings.into();
    settings.validate()?;
    struct Slip<'a>(&'a [f64], &'a [f64], &'a SlipSettings);
    impl Slip<'_> {
        fn run(self, sys: MultibodySystem) -> SlipEnd {
            let q = DVector::<f64>::from_column_slice(self.0);
            let v = DVector::<f64>::from_column_slice(self.1);
            crate::painleve::slip::slip(&sys, &q, &v, self.2)
        }
    }
    let i = m.contact_index("contact", contact)?;
    Ok(Slip(q, v, &settings).run(m.with_contact_first(i).system()?))
}
