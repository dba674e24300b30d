//! Painlevé's paradox at a contact of a robot in 3-D (`contactlab painleve` on an MJCF file, a
//! URDF with `--base`, or a scene file): P2's `A`, `B(ŝ)` and Table 2.1's case at a state, the
//! least `μ` over slip directions and over a slice of coordinates, where `B < 0`, and the LCP of
//! several slipping contacts ([`crate::spatial::painleve`] holds the formulas).
//!
//! **Contacts.** A contact is named `shape:k/plane` (as `model inspect` lists them), or by its
//! shape's or link's name when exactly one of that shape's candidates touches the ground (a
//! foot). The contacts touching at the state (gap within `1e-6` of the length scale, as
//! `stance`'s `touch`) and at tangential rest are held, sticking, unless `held` names others (an
//! empty list holds none); the touching contacts that slip join the chosen one in the LCP unless
//! `slipping` names others. A joint at its limit's stop (`joint/lower`, `joint/upper`: the
//! joint's distance to it times the length scale within that tolerance) is such a contact, held
//! by default: the joint locked there, as the planar engine holds its closed joint limits.
//!
//! **Slip direction.** Given as a world vector (projected onto the tangent plane); by default
//! the contact's slip velocity's direction, or, where it does not slip, the direction of least
//! `B` (the most paradoxical). Angles `ψ` are measured in the tangent plane from `t₁` toward
//! `t₂` (`t₁`: the world axis least aligned with the normal, made orthogonal to it; reported).
//!
//! **Slices.** One or two scalar coordinates (a hinge, a slide, a free joint's position), the
//! others held at the state; a quaternion's components cannot be varied one at a time. Over the
//! slice `μ_min` is found (a grid refined by a pattern search) for the given direction and for
//! the worst direction (`d/‖c‖`), and the region `B < 0` as intervals (one coordinate) or a grid
//! (two).

use std::path::Path;

use nalgebra::{DVector, Vector2, Vector3};
use serde::Serialize;

use super::spatial::{spatial_state, SpatialModel};
use crate::multibody::painleve::{AtState, BNegativeGrid, MuMin, PainleveSettings, SliceAxis};
use crate::numeric::{maximize_on_box, negative_intervals};
use crate::painleve::slip_case;
use crate::spatial::events::EventScene;
use crate::spatial::joint::Joint3;
use crate::spatial::painleve::{dc, parts, several, Parts3};
use crate::Error;

/// A contact touches when its gap is within this fraction of the length scale (`stance`'s
/// `touch`).
pub const PAINLEVE_TOUCH: f64 = 1e-6;

/// A contact slips when its slip speed exceeds this fraction of the velocity scale.
const SLIP_TOL: f64 = 1e-9;

/// The slip directions: `B` over them at the state's configuration.
#[derive(Debug, Clone, Serialize)]
pub struct OverDirections {
    /// `d = w_nᵀ P w_n` (`B` with no friction).
    pub d: f64,
    /// `c = W_tᵀ P w_n` as a world vector in the tangent plane (`B(ŝ) = d − μ cᵀŝ`).
    pub c: [f64; 3],
    /// The least `μ` for which some slip direction has `B < 0`: `d/‖c‖` (`None` if `c = 0`).
    pub mu_min: Option<f64>,
    /// The direction of least `B`, `c/‖c‖` (world).
    pub least_b_direction: Option<[f64; 3]>,
    /// `B` along it, `d − μ‖c‖`.
    pub b_least: f64,
    /// The arc of directions with `B < 0` at the contact's `μ`: `[ψ_lo, ψ_hi]` (rad, from `t₁`
    /// toward `t₂`); `None` if none.
    pub paradox_arc: Option<[f64; 2]>,
}

/// The LCP of several slipping contacts at the state.
#[derive(Debug, Clone, Serialize)]
pub struct SeveralContacts3 {
    /// The contacts.
    pub contacts: Vec<String>,
    /// Their slip directions (world, unit).
    pub directions: Vec<[f64; 3]>,
    /// `A` (one per contact).
    #[serde(rename = "A")]
    pub a: Vec<f64>,
    /// `B`, row-major.
    #[serde(rename = "B")]
    pub b: Vec<Vec<f64>>,
    /// The LCP's solutions and verdict (`p_matrix`, `solutions`, `complete`, `verdict`).
    #[serde(flatten)]
    pub lcp: crate::multibody::painleve::LcpVerdict,
}

/// The answer of [`crate::api::painleve`] on a robot in 3-D.
#[derive(Debug, Clone, Serialize)]
pub struct Painleve3 {
    /// The file.
    pub path: String,
    /// The contact (`shape:k/plane`).
    pub contact: String,
    /// Its friction coefficient.
    pub mu: f64,
    /// Its gap at the state (m).
    pub gap: f64,
    /// The plane's normal and tangents `t₁`, `t₂` (world).
    pub normal: [f64; 3],
    /// See `normal`.
    pub tangents: [[f64; 3]; 2],
    /// The contact's slip velocity (world, m/s).
    pub slip_velocity: [f64; 3],
    /// The slip direction used (world, unit).
    pub direction: [f64; 3],
    /// Its angle `ψ` from `t₁` toward `t₂` (rad).
    pub direction_angle: f64,
    /// Where the direction came from: `given`, `velocity` or `least-B`.
    pub direction_from: &'static str,
    /// The state.
    pub q: Vec<f64>,
    /// See `q`.
    pub v: Vec<f64>,
    /// The contacts held sticking.
    pub held: Vec<String>,
    /// `A`, `B` (along the direction) and the case of Table 2.1.
    pub at_state: AtState,
    /// `B` over the slip directions at the state's configuration.
    pub over_directions: OverDirections,
    /// The slice.
    pub slice: Vec<SliceAxis>,
    /// The least `μ` with `B < 0` along the direction in the slice (`None`: none).
    pub mu_min: Option<MuMin>,
    /// The least `μ` with `B < 0` in some direction in the slice.
    pub mu_min_any_direction: Option<MuMin>,
    /// One coordinate: the intervals with `B < 0` along the direction.
    pub b_negative_intervals: Option<Vec<[f64; 2]>>,
    /// One coordinate: the intervals with `B < 0` in some direction.
    pub b_negative_intervals_any_direction: Option<Vec<[f64; 2]>>,
    /// Two coordinates: the grid of `B` along the direction.
    pub b_negative_grid: Option<BNegativeGrid>,
    /// Two coordinates: the grid of the least `B` over directions.
    pub b_negative_grid_any_direction: Option<BNegativeGrid>,
    /// The LCP of the slipping contacts, when there are two or more.
    pub several: Option<SeveralContacts3>,
    /// No proof (`"proof": "none"` with `"proof_reason"`): the numbers are floating point.
    #[serde(flatten)]
    pub proof: crate::verified::Proof,
    /// `(x, B along the direction, least B)` along a one-coordinate slice, or `(ψ, B(ψ), 0)`
    /// over the directions without a slice (for the files).
    #[serde(skip)]
    curve: Vec<(f64, f64, f64)>,
}

/// The scalar coordinate called `name` (not a quaternion component).
fn scalar_coordinate(m: &SpatialModel, name: &str) -> Result<usize, Error> {
    let k = m.coordinates.iter().position(|n| n == name).ok_or_else(|| {
        Error::argument("slice", format!("no coordinate '{name}'; the model has: {}", m.coordinates.join(", ")))
    })?;
    for (i, b) in m.tree.bodies().iter().enumerate() {
        let (iq, _) = m.tree.joint_start(i);
        let quat = match b.joint {
            Joint3::Free => iq + 3..iq + 7,
            Joint3::Ball | Joint3::BallWxyz => iq..iq + 4,
            _ => 0..0,
        };
        if quat.contains(&k) {
            return Err(Error::argument(
                "slice",
                format!("'{name}' is a quaternion component; vary a hinge, a slide or a position"),
            ));
        }
    }
    Ok(k)
}

/// The shape's contact named `name` (module docs), refusing a joint's stop, which cannot
/// slip.
fn slipping_contact_named(
    sys: &EventScene<'_>,
    m: &SpatialModel,
    q: &[f64],
    what: &str,
    name: &str,
) -> Result<usize, Error> {
    let i = contact_named(sys, m, q, what, name)?;
    match sys.contacts()[i].stop() {
        Some(_) => Err(Error::argument(
            what,
            format!("'{name}' is a joint's stop, which cannot slip: name a shape's contact (a stop can be held)"),
        )),
        None => Ok(i),
    }
}

/// The contact named `name` (module docs).
fn contact_named(sys: &EventScene<'_>, m: &SpatialModel, q: &[f64], what: &str, name: &str) -> Result<usize, Error> {
    if let Some(i) = sys.contacts().iter().position(|c| c.name == name) {
        return Ok(i);
    }
    let tol = PAINLEVE_TOUCH * sys.length();
    let gaps = sys.gaps(q);
    let tree = &m.tree;
    let of_shape: Vec<usize> = (0..sys.nc())
        .filter(|&i| {
            let c = &sys.contacts()[i];
            let s = (c.stop().is_none()).then(|| &sys.scene().shapes[c.shape]);
            s.is_some_and(|s| s.name == name || s.body.is_some_and(|b| tree.bodies()[b].name == name))
        })
        .collect();
    let touching: Vec<usize> = of_shape.iter().copied().filter(|&i| gaps[i].abs() <= tol).collect();
    let names = |v: &[usize]| v.iter().map(|&i| sys.contacts()[i].name.clone()).collect::<Vec<_>>().join(", ");
    match (of_shape.len(), touching.len()) {
        (0, _) => Err(Error::argument(
            what,
            format!("no contact '{name}'; the contacts are: {}", names(&(0..sys.nc()).collect::<Vec<_>>())),
        )),
        (1, _) => Ok(of_shape[0]),
        (_, 1) => Ok(touching[0]),
        _ => Err(Error::argument(
            what,
            format!("'{name}' has several candidate contacts ({}); name one", names(&of_shape)),
        )),
    }
}

/// A world vector of tangent-plane coordinates.
fn world(t: &(Vector3<f64>, Vector3<f64>), s: Vector2<f64>) -> [f64; 3] {
    let w = t.0 * s[0] + t.1 * s[1];
    [w.x, w.y, w.z]
}

/// The slice's coordinates `(index in q, lo, hi)`, with `s`'s counts and μ checked.
fn slice_axes(m: &SpatialModel, s: &PainleveSettings) -> Result<Vec<(usize, f64, f64)>, Error> {
    if s.points < 2 || s.points > 2001 {
        return Err(Error::argument("points", format!("must be in [2, 2001] (got {})", s.points)));
    }
    if s.slice.len() > 2 {
        return Err(Error::argument("slice", format!("at most two coordinates (got {})", s.slice.len())));
    }
    let mut axes = vec![];
    for a in &s.slice {
        let k = scalar_coordinate(m, &a.coordinate)?;
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
    if let Some(mu) = s.mu {
        if !(mu.is_finite() && mu >= 0.0) {
            return Err(Error::argument("mu", format!("must be finite and >= 0 (got {mu})")));
        }
    }
    Ok(axes)
}

/// Painlevé's paradox at one contact of the robot `m` at `state` (default its `[initial]`):
/// module docs.
pub(crate) fn spatial_painleve(
    m: &SpatialModel,
    state: Option<&[f64]>,
    s: &PainleveSettings,
) -> Result<Painleve3, Error> {
    if s.sigma.is_some() {
        return Err(Error::argument(
            "sigma",
            "a robot in 3-D takes a slip direction instead (`--direction X,Y,Z`, Python's `direction=(x, y, z)`)",
        ));
    }
    let (mut q, v) = spatial_state(m, state)?;
    if !m.tree.normalize(&mut q) {
        return Err(Error::argument("state", "a quaternion is zero or not finite"));
    }
    let axes = slice_axes(m, s)?;
    let scene = m.scene(None, 0.0);
    // The joints' stops are contacts too: one the joint is at is held by default, as a
    // touching contact at rest is (the planar engine holds its closed joint limits).
    let mut sys = EventScene::with_stops(&scene, &q)?;
    let i = slipping_contact_named(&sys, m, &q, "contact", &s.contact)?;
    if let Some(mu) = s.mu {
        sys.set_mu(i, mu);
    }
    let vel = sys.length() / sys.time();
    let tol = PAINLEVE_TOUCH * sys.length();
    let gaps = sys.gaps(&q);
    let name = |j: usize| sys.contacts()[j].name.clone();
    let slip_of = |j: usize| -> Option<Vector2<f64>> {
        let k = sys.kinematics(&q, &[j])?;
        let u = &k[0].rows * DVector::from_column_slice(&v);
        Some(Vector2::new(u[1], u[2]))
    };
    let touching: Vec<usize> = (0..sys.nc()).filter(|&j| j != i && gaps[j].abs() <= tol).collect();
    let slipping_at_state = |j: usize| slip_of(j).is_some_and(|u| u.norm() > SLIP_TOL * vel);
    let lookup = |what: &str, names: &[String]| -> Result<Vec<usize>, Error> {
        names.iter().map(|n| contact_named(&sys, m, &q, what, n)).collect()
    };
    let named_slipping = match &s.slipping {
        Some(names) => {
            names.iter().map(|n| slipping_contact_named(&sys, m, &q, "slipping", n)).collect::<Result<_, _>>()?
        }
        None => vec![],
    };
    let held: Vec<usize> = match &s.held {
        Some(h) => lookup("held", h)?,
        None => touching.iter().copied().filter(|&j| !slipping_at_state(j) && !named_slipping.contains(&j)).collect(),
    };
    if held.contains(&i) {
        return Err(Error::argument("held", format!("'{}' is the slipping contact; it cannot be held", name(i))));
    }
    let numerical = || Error::Numerical(format!("the parts of {} cannot be computed at the state", name(i)));
    let p0 = parts(&sys, &q, &v, i, &held).ok_or_else(numerical)?;
    let plane = scene.planes[sys.contacts()[i].plane];
    let t = plane.tangents();
    let (dir, from) = match s.direction {
        Some(w) => {
            let w = Vector3::from(w);
            let st = Vector2::new(t.0.dot(&w), t.1.dot(&w));
            if !(w.iter().all(|x| x.is_finite()) && st.norm() > 1e-9 * w.norm()) {
                return Err(Error::argument(
                    "direction",
                    format!(
                        "must be a finite vector with a component in the contact's tangent plane (normal {:?})",
                        plane.normal.as_slice()
                    ),
                ));
            }
            (st.normalize(), "given")
        }
        None if p0.slip.norm() > SLIP_TOL * vel => (p0.slip.normalize(), "velocity"),
        None => (p0.least_b_direction().unwrap_or(Vector2::new(1.0, 0.0)), "least-B"),
    };
    let b0 = p0.b(dir);
    let at_state = AtState { a: p0.a, b: b0, a_scale: p0.a_scale, b_scale: p0.b_scale(), case: slip_case(p0.a, b0) };
    let over_directions = OverDirections {
        d: p0.d,
        c: world(&t, p0.c),
        mu_min: p0.mu_min_any(),
        least_b_direction: p0.least_b_direction().map(|x| world(&t, x)),
        b_least: p0.d - p0.mu * p0.c.norm(),
        paradox_arc: p0.paradox_arc(),
    };

    // The slice.
    let with = |x: &[f64]| {
        let mut qq = q.clone();
        for (&(k, _, _), &val) in axes.iter().zip(x) {
            qq[k] = val;
        }
        qq
    };
    let dc_at = |x: &[f64]| dc(&sys, &with(x), i, &held);
    let mu = p0.mu;
    let along = |x: &[f64]| dc_at(x).map_or(f64::NAN, |(d, c)| d - mu * c.dot(&dir));
    let least = |x: &[f64]| dc_at(x).map_or(f64::NAN, |(d, c)| d - mu * c.norm());
    let ratio = |x: &[f64]| match dc_at(x) {
        Some((d, c)) if c.dot(&dir) > 0.0 => d / c.dot(&dir),
        _ => f64::INFINITY,
    };
    let ratio_any = |x: &[f64]| match dc_at(x) {
        Some((d, c)) if c.norm() > 0.0 => d / c.norm(),
        _ => f64::INFINITY,
    };
    let lo: Vec<f64> = axes.iter().map(|a| a.1).collect();
    let hi: Vec<f64> = axes.iter().map(|a| a.2).collect();
    let least_mu = |f: &dyn Fn(&[f64]) -> f64| -> Option<MuMin> {
        if axes.is_empty() {
            let r = f(&[]);
            return r.is_finite().then(|| MuMin { mu_min: r, at: vec![] });
        }
        let n = if axes.len() == 1 { s.points.max(301) } else { s.points };
        maximize_on_box(&|x| -f(x), &lo, &hi, n, 1)
            .filter(|(val, _)| val.is_finite())
            .map(|(val, at)| MuMin { mu_min: -val, at })
    };
    let mu_min = least_mu(&ratio);
    let mu_min_any_direction = least_mu(&ratio_any);
    let n = s.points;
    let one = axes.len() == 1;
    let b_negative_intervals = one.then(|| negative_intervals(&|x| along(&[x]), lo[0], hi[0], n.max(401)));
    let b_negative_intervals_any_direction =
        one.then(|| negative_intervals(&|x| least(&[x]), lo[0], hi[0], n.max(401)));
    let two = axes.len() == 2;
    let b_negative_grid = two.then(|| BNegativeGrid::of(&along, &lo, &hi, n));
    let b_negative_grid_any_direction = two.then(|| BNegativeGrid::of(&least, &lo, &hi, n));
    let curve = slice_curve(axes.len(), &lo, &hi, &along, &least, &p0);

    // Several slipping contacts.
    let mut slipping: Vec<usize> = match &s.slipping {
        Some(_) => named_slipping,
        None => touching.iter().copied().filter(|&j| slipping_at_state(j) && !held.contains(&j)).collect(),
    };
    slipping.retain(|&j| j != i);
    slipping.insert(0, i);
    if let Some(j) = slipping.iter().find(|j| held.contains(j)) {
        return Err(Error::argument("slipping", format!("'{}' is also held", name(*j))));
    }
    let several = if slipping.len() >= 2 {
        let mut dirs = vec![dir];
        for &j in &slipping[1..] {
            let u = slip_of(j).ok_or_else(numerical)?;
            let dj = if u.norm() > SLIP_TOL * vel {
                u.normalize()
            } else {
                parts(&sys, &q, &v, j, &held).and_then(|p| p.least_b_direction()).unwrap_or(Vector2::new(1.0, 0.0))
            };
            dirs.push(dj);
        }
        let (a, b) = several(&sys, &q, &v, &slipping, &dirs, &held).ok_or_else(numerical)?;
        let lcp = crate::multibody::painleve::lcp_verdict(&a, &b)?;
        let k = slipping.len();
        Some(SeveralContacts3 {
            contacts: slipping.iter().map(|&j| name(j)).collect(),
            directions: slipping
                .iter()
                .zip(&dirs)
                .map(|(&j, d)| world(&scene.planes[sys.contacts()[j].plane].tangents(), *d))
                .collect(),
            a: a.iter().copied().collect(),
            b: (0..k).map(|r| b.row(r).iter().copied().collect()).collect(),
            lcp,
        })
    } else {
        None
    };
    let sv = world(&t, p0.slip);
    Ok(Painleve3 {
        path: m.path.clone(),
        contact: name(i),
        mu,
        gap: gaps[i],
        normal: [plane.normal.x, plane.normal.y, plane.normal.z],
        tangents: [[t.0.x, t.0.y, t.0.z], [t.1.x, t.1.y, t.1.z]],
        slip_velocity: sv,
        direction: world(&t, dir),
        direction_angle: dir[1].atan2(dir[0]),
        direction_from: from,
        q,
        v,
        held: held.iter().map(|&j| name(j)).collect(),
        at_state,
        over_directions,
        slice: s.slice.clone(),
        mu_min,
        mu_min_any_direction,
        b_negative_intervals,
        b_negative_intervals_any_direction,
        b_negative_grid,
        b_negative_grid_any_direction,
        several,
        proof: crate::verified::Proof::none(
            "A, B and μ_min are computed in floating point (the held contacts' constrained inverse, a \
             golden-section search over the slice); no interval enclosure is made for them yet",
        ),
        curve,
    })
}

/// [`Painleve3::curve`]: `B` along the slice's one axis (the direction's and the least over
/// directions) at 401 points, or `B` over the slip directions at the state (no slice); empty
/// for a two-axis slice.
fn slice_curve(
    axes: usize,
    lo: &[f64],
    hi: &[f64],
    along: &dyn Fn(&[f64]) -> f64,
    least: &dyn Fn(&[f64]) -> f64,
    p0: &Parts3,
) -> Vec<(f64, f64, f64)> {
    match axes {
        1 => (0..401)
            .map(|k| {
                let x = lo[0] + (hi[0] - lo[0]) * k as f64 / 400.0;
                (x, along(&[x]), least(&[x]))
            })
            .collect(),
        0 => (0..361)
            .map(|k| {
                let psi = -std::f64::consts::PI + std::f64::consts::TAU * k as f64 / 360.0;
                (psi, p0.b(Vector2::new(psi.cos(), psi.sin())), 0.0)
            })
            .collect(),
        _ => vec![],
    }
}

impl Painleve3 {
    /// Writes `painleve.json` and the figure `b.png` with its data `b.csv`: `B` against the slip
    /// direction's angle (no slice), `B` along the direction and the least `B` against the
    /// coordinate (one), or the region `B < 0` on the two coordinates (some direction, and the
    /// given one).
    pub fn write_files(&self, dir: &Path) -> Result<(), Error> {
        use crate::plot::{CategoryMap, Mark, XyPlot};
        std::fs::create_dir_all(dir).map_err(|e| Error::write(dir, e))?;
        let json = serde_json::to_string_pretty(self).map_err(|e| Error::Output(e.to_string()))?;
        crate::output::write_file(dir, "painleve.json", &json)?;
        let title = format!("{}: B at {} (μ = {})", self.path, self.contact, self.mu);
        match (self.slice.len(), &self.b_negative_grid, &self.b_negative_grid_any_direction) {
            (0, _, _) => {
                let mut csv = "psi,B\n".to_string();
                self.curve.iter().for_each(|(x, b, _)| csv.push_str(&format!("{x},{b}\n")));
                crate::output::write_file(dir, "b.csv", &csv)?;
                let pts: Vec<(f64, f64)> = self.curve.iter().map(|c| (c.0, c.1)).collect();
                let pi = std::f64::consts::PI;
                XyPlot::new(title, "slip direction ψ (rad, from t_1 toward t_2)", "B")
                    .add("B(ψ)", pts, Mark::Line)
                    .add("B = 0", vec![(-pi, 0.0), (pi, 0.0)], Mark::Dashed)
                    .add("the direction", vec![(self.direction_angle, self.at_state.b)], Mark::Points)
                    .save(&dir.join("b.png"))?;
            }
            (1, _, _) => {
                let a = &self.slice[0];
                let mut csv = format!("{},B,B_least\n", a.coordinate);
                self.curve.iter().for_each(|(x, b, l)| csv.push_str(&format!("{x},{b},{l}\n")));
                crate::output::write_file(dir, "b.csv", &csv)?;
                XyPlot::new(title, &a.coordinate, "B")
                    .add("B along the direction", self.curve.iter().map(|c| (c.0, c.1)).collect(), Mark::Line)
                    .add("least B over directions", self.curve.iter().map(|c| (c.0, c.2)).collect(), Mark::Dashed)
                    .add("B = 0", vec![(a.lo, 0.0), (a.hi, 0.0)], Mark::Dashed)
                    .save(&dir.join("b.png"))?;
            }
            (_, Some(g), Some(ga)) => {
                let (ax, ay) = (&self.slice[0], &self.slice[1]);
                let at = |a: &SliceAxis, k: usize| a.lo + (a.hi - a.lo) * k as f64 / (g.points_per_axis - 1) as f64;
                let mut csv = format!("{},{},B,B_least\n", ax.coordinate, ay.coordinate);
                for (j, (row, rowa)) in g.b.iter().zip(&ga.b).enumerate() {
                    for (k, (&bv, &bl)) in row.iter().zip(rowa).enumerate() {
                        csv.push_str(&format!("{},{},{bv},{bl}\n", at(ax, k), at(ay, j)));
                    }
                }
                crate::output::write_file(dir, "b.csv", &csv)?;
                let cells = g
                    .b
                    .iter()
                    .zip(&ga.b)
                    .flat_map(|(r, ra)| r.iter().zip(ra).map(|(&b, &l)| if b < 0.0 { 2 } else { usize::from(l < 0.0) }))
                    .collect();
                CategoryMap {
                    title,
                    x_label: ax.coordinate.clone(),
                    y_label: ay.coordinate.clone(),
                    xs: (0..g.points_per_axis).map(|k| at(ax, k)).collect(),
                    ys: (0..g.points_per_axis).map(|k| at(ay, k)).collect(),
                    cells,
                    legend: vec![
                        ("B > 0 in every direction".into(), (230, 230, 230)),
                        ("B < 0 in some direction".into(), (240, 180, 120)),
                        ("B < 0 along the direction".into(), (213, 94, 0)),
                    ],
                    marks: vec![],
                    paths: vec![],
                }
                .save(&dir.join("b.png"))?;
            }
            _ => {}
        }
        Ok(())
    }
}

/// How a slip of a robot's contact ends ([`crate::api::slip`]; directions as world vectors).
#[derive(Debug, Clone, Serialize)]
pub struct Slip3Report {
    /// The contact.
    pub contact: String,
    /// How the slip ended: `stick`, `reversal` (it stopped and restarts in
    /// `restart_direction`), `separation`, `jam`, `corner`, `impact` (another contact struck),
    /// `inconsistent` or `indeterminate` (Table 2.1's cases 4 and 3 at the start),
    /// `not-slipping`, `unresolved`.
    pub outcome: crate::painleve::slip::SlipOutcome,
    /// When (s).
    pub t_end: f64,
    /// The largest normal force at the contact (N).
    pub fn_max: f64,
    /// The state at the end (q then v).
    pub state: Vec<f64>,
    /// `A` at the end.
    #[serde(rename = "A")]
    pub a: f64,
    /// `B` along the slip direction at the end.
    #[serde(rename = "B")]
    pub b: f64,
    /// The slip direction at the start (world, unit).
    pub direction_start: [f64; 3],
    /// The slip direction at the end.
    pub direction_end: [f64; 3],
    /// The angle the direction turned through (rad, about the plane's normal).
    pub turned: f64,
    /// After a reversal, the direction the slip restarts in.
    pub restart_direction: Option<[f64; 3]>,
    /// The desingularised run's evidence where the slip approached `B = 0`.
    pub approach: Option<crate::painleve::desingular::Approach>,
    /// No proof (`"proof": "none"` with `"proof_reason"`): a simulated run.
    #[serde(flatten)]
    pub proof: crate::verified::Proof,
}

/// How a slip of `contact` of the robot `m` from `state` (q then v; default its `[initial]`)
/// ends ([`crate::spatial::slip`]).
pub(crate) fn spatial_slip(m: &SpatialModel, state: Option<&[f64]>, contact: &str) -> Result<Slip3Report, Error> {
    slip_start(m, state, contact, |sys, q, v, i| {
        let e = crate::spatial::slip::slip3(sys, q, v, i, &crate::painleve::SlipSettings::default());
        let t = sys.scene().planes[sys.contacts()[i].plane].tangents();
        let w = |d: [f64; 2]| world(&t, Vector2::new(d[0], d[1]));
        Ok(Slip3Report {
            contact: sys.contacts()[i].name.clone(),
            outcome: e.outcome,
            t_end: e.t_end,
            fn_max: e.fn_max,
            state: e.q.iter().chain(&e.v).copied().collect(),
            a: e.a_end,
            b: e.b_end,
            direction_start: w(e.direction_start),
            direction_end: w(e.direction_end),
            turned: e.turned,
            restart_direction: e.restart_direction.map(w),
            approach: e.approach,
            proof: crate::verified::Proof::none(
                "a simulated run (the event driver's error-controlled integration), not an enclosure of the motion",
            ),
        })
    })
}

/// The smallest initial slip speed (m/s, up to `max_speed`) of a robot's `contact` from `state`
/// whose slip jams, along the state's slip direction (`slip --jam-threshold` in 3-D;
/// [`crate::spatial::slip::jam_threshold3`] says how the starts are made).
pub(crate) fn spatial_jam_threshold(
    m: &SpatialModel,
    state: Option<&[f64]>,
    contact: &str,
    max_speed: f64,
) -> Result<super::JamThresholdReport, Error> {
    if !(max_speed > 0.0 && max_speed.is_finite()) {
        return Err(Error::argument("max_speed", "must be a positive finite speed (m/s)"));
    }
    slip_start(m, state, contact, |sys, q, v, i| {
        let s = crate::painleve::SlipSettings::default();
        let tol = crate::multibody::painleve::JAM_SPEED_TOL;
        let jam_threshold = crate::spatial::slip::jam_threshold3(sys, q, v, i, max_speed, tol, &s)?;
        Ok(super::JamThresholdReport { jam_threshold })
    })
}

/// Runs `f` on the event scene of `m` at `state` (q then v, the quaternions normalised; default
/// the `[initial]`) with the index of `contact`: the start of [`spatial_slip`] and
/// [`spatial_jam_threshold`].
fn slip_start<T>(
    m: &SpatialModel,
    state: Option<&[f64]>,
    contact: &str,
    f: impl FnOnce(&EventScene<'_>, &[f64], &[f64], usize) -> Result<T, Error>,
) -> Result<T, Error> {
    let (mut q, v) = spatial_state(m, state)?;
    if !m.tree.normalize(&mut q) {
        return Err(Error::argument("state", "a quaternion is zero or not finite"));
    }
    let scene = m.scene(None, 0.0);
    if let Some(s) = scene.springs.iter().find(|s| s.periodic()) {
        return Err(Error::input(
            &m.path,
            "joint",
            format!(
                "a slip is followed under forces that do not change with time, and joint \"{}\" tracks a moving reference",
                m.velocities[s.qvel]
            ),
        ));
    }
    let sys = EventScene::with_stops(&scene, &q)?;
    let i = slipping_contact_named(&sys, m, &q, "contact", contact)?;
    f(&sys, &q, &v, i)
}
