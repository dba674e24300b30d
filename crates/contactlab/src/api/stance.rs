//! The stance stability of a robot in 3-D (P4's weak, strong and frictionless stability of a
//! fixtured body, generalised to an articulated robot resting on its contacts).
//!
//! At a configuration `q` (at rest) the contacts whose gaps are at most `touch` of the length
//! scale (or negative: a contact below its plane touches it) are the stance's. The robot is P4's workpiece with
//! * `𝓜` the mass matrix over the velocities that are free: with the joints **locked** the
//!   floating base's (a free joint; MuJoCo's free joint's translation and ball), the robot then
//!   a rigid body; with the joints on their **springs** every velocity (the springs' torques at
//!   `q` in the load, the joints free to accelerate), and each joint at a stop of its limits
//!   (within `touch` of it: its distance to the limit times the stop's arm, the length scale for
//!   a hinge and 1 for a slider, as the event-driven simulation measures a stop's gap; or past
//!   it) held by that stop: a frictionless contact whose one row is `±arm` on the joint's
//!   velocity (P4's contacts with `μ = 0` and no tangent), after the shapes' contacts;
//! * `W_n`, `W_t`, `W_o` the contacts' normal and tangential Jacobian rows over those velocities
//!   (the plane's normal and its tangents `t₁`, `t₂`);
//! * the load `g_ext` the generalised force at rest: gravity and the joints' springs
//!   (`M v̇ = bias + τ + Jᵀλ`, `bias` at `v = 0`);
//!
//! each velocity scaled by `1/√𝓜ᵢᵢ`, the load to unit norm and the `W`s to a largest entry of 1
//! (a congruence and positive multiples: no verdict changes, and the LPs see numbers without units, so that scaling lengths
//! or masses changes no verdict near a boundary; the contact intensities in the certificates are
//! in those units).
//!
//! [`crate::fixture::stability::classify`] then answers weak stability (an equilibrium force
//! distribution exists), strong stability (every solution of P4's LCP from rest stays at rest;
//! decided for the pyramid law, undecided for the Coulomb cone in 3-D, as P4's theory gives)
//! and frictionless stability, with their certificates and interval proofs, and the least
//! common friction coefficient of weak stability (`critical_mu`). The **slope margin** tilts
//! gravity about a world axis and locates, by bisection (P4 §5's), the largest tilt for which
//! the stance stays weakly stable.

use nalgebra::{DMatrix, DVector};
use serde::Serialize;

use super::spatial::{spatial_state, SpatialModel};
use crate::fixture::boundary::{decide, search, Bracket, Stop};
use crate::fixture::stability::{classify, FixtureClassification};
use crate::fixture::{Fixture, FrictionLaw};
use crate::spatial::algebra::{axis_angle, Vec3};
use crate::spatial::events::{stop_gap_rows, stop_name, stop_sides, EventScene};
use crate::spatial::joint::Joint3;
use crate::Error;

/// How a robot's joints are held in its stance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum JointHold {
    /// Locked: the robot is one rigid body on its floating base.
    Locked,
    /// Free, on the model's joint springs (their torques at the configuration in the load).
    Springs,
}

impl std::str::FromStr for JointHold {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "locked" => Ok(JointHold::Locked),
            "springs" => Ok(JointHold::Springs),
            other => Err(format!("\"{other}\": allowed locked, springs")),
        }
    }
}

/// Settings of [`crate::api::stance()`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StanceSettings {
    /// How the joints are held.
    pub joints: JointHold,
    /// The friction law (P4's Coulomb disk or pyramid).
    pub friction: FrictionLaw,
    /// A contact is in the stance when its gap is at most this fraction of the length scale
    /// (a contact below its plane touches).
    pub touch: f64,
    /// A world axis to tilt gravity about for the slope margin (none: no margin).
    pub slope_axis: Option<Vec3>,
}

impl Default for StanceSettings {
    fn default() -> Self {
        // (A contact within 1e-3 of the length scale above its plane, or below it, touches: the
        // resting states of `simulate` are taken as they are, Moreau–Jean's feet resting a
        // step's travel below the ground or a few micrometres above it.)
        Self { joints: JointHold::Locked, friction: FrictionLaw::Coulomb, touch: 1e-3, slope_axis: None }
    }
}

/// A contact of the stance.
#[derive(Debug, Clone, Serialize)]
pub struct StanceContact {
    /// `shape:candidate/plane`.
    pub name: String,
    /// Its gap (m).
    pub gap: f64,
    /// Its friction coefficient.
    pub mu: f64,
    /// The contact point (world, m).
    pub point: [f64; 3],
    /// The plane's normal and tangents `t₁`, `t₂` (world), the axes of `force`.
    pub axes: [[f64; 3]; 3],
    /// The equilibrium force of the weak-stability witness at this contact (N, along the
    /// normal, `t₁`, `t₂`); `None` when not weakly stable (one distribution of many).
    pub force: Option<[f64; 3]>,
    /// The friction it uses: `‖f_t‖/(μ f_n)` (Coulomb) or `max(|f_t₁|, |f_t₂|)/(μ f_n)` (pyramid);
    /// `None` where the witness leaves the contact unloaded, or it is frictionless.
    pub friction_used: Option<f64>,
}

/// A joint's stop in the stance (joints on their springs: [`JointHold::Springs`]): the joint
/// at its limit, or past it, within the stance's `touch`.
#[derive(Debug, Clone, Serialize)]
pub struct StanceStop {
    /// `joint/lower` or `joint/upper`.
    pub name: String,
    /// The joint.
    pub joint: String,
    /// The joint's distance to its limit (rad for a hinge, m for a slider; negative past it).
    pub gap: f64,
    /// The equilibrium witness's generalised force of the stop on the joint, pushing it back
    /// from its limit (N·m for a hinge, N for a slider); `None` when not weakly stable.
    pub force: Option<f64>,
}

/// The slope margin: the largest tilt of gravity about `axis` keeping the stance weakly stable.
#[derive(Debug, Clone, Serialize)]
pub struct SlopeMargin {
    /// The world axis (unit).
    pub axis: [f64; 3],
    /// The largest tilt (rad) in `[0, π/2]` with a weakly stable stance (`None` when it is not
    /// weakly stable untilted): the largest tilt proved weakly stable when the proofs close
    /// within [`TILT_REPORT_TOL`] of the bisection's end (else that end, unproved).
    pub max_tilt: Option<f64>,
    /// The same tilt the other way about the axis (rad, positive).
    pub max_tilt_reverse: Option<f64>,
    /// `[lo, hi]` holding the boundary: weakly stable at the tilt `lo`, not at `hi`, both proved
    /// in interval arithmetic (`null` when a proof did not close; `[π/2, π/2]` when stable up to
    /// π/2).
    pub max_tilt_enclosure: Option<[f64; 2]>,
    /// The same for `max_tilt_reverse`.
    pub max_tilt_reverse_enclosure: Option<[f64; 2]>,
}

/// A stance's verdicts ([`crate::api::stance()`]).
#[derive(Debug, Clone, Serialize)]
pub struct Stance {
    /// The file.
    pub path: String,
    /// How the joints are held.
    pub joints: JointHold,
    /// The friction law.
    pub friction: FrictionLaw,
    /// The velocities of P4's workpiece (the columns of `𝓜` and the `W`s).
    pub velocities: Vec<String>,
    /// The contacts in the stance.
    pub contacts: Vec<StanceContact>,
    /// The joints' stops in the stance (empty with the joints locked): P4's frictionless
    /// contacts after the shapes' in the classification's witnesses.
    pub stops: Vec<StanceStop>,
    /// The load `g_ext`: the generalised force at rest over `velocities`, each scaled by
    /// `1/√𝓜ᵢᵢ`, then to unit norm (module docs).
    pub load: Vec<f64>,
    /// P4's verdicts with their certificates and proofs.
    pub classification: FixtureClassification,
    /// The slope margin, when an axis was given.
    pub slope_margin: Option<SlopeMargin>,
    /// Whether the stance is at the edge of weak stability: a tilt margin is 0, so the
    /// smallest tilt of gravity that way topples it (`None` without a slope axis). P4's strong
    /// stability is a first-order statement at rest: a marginal stance (a cube balanced on a
    /// corner) can be strongly stable and yet fall at any disturbance (docs/models.md, "What
    /// weak and strong stability promise").
    pub marginal: Option<bool>,
    /// What the proofs take as exact: the proofs hold for the wrench matrices and the load
    /// that the stance computes in floating point from the file (module docs), not for the
    /// file's numbers themselves.
    pub assumes: &'static str,
    /// The model's length scale (m; the figure's force scale for one contact).
    #[serde(skip)]
    pub length_scale: f64,
}

/// [`Stance::assumes`].
pub const ASSUMES: &str =
    "the wrench matrices W_n, W_t, W_o and the load g_ext as computed in floating point from the file \
     (each contact's lever arm and the centre of mass in their bodies' frames, rotations by the joints' angles, \
     relative error about 1e-16, independent of where the robot stands) are taken as exact; the proofs are \
     interval proofs on those numbers";

/// A contact of the stance at the configuration (a shape's, or a joint's stop).
#[derive(Clone)]
struct Touching {
    /// Its index among the scene's contacts.
    index: usize,
    /// Its rows `(n, t₁, t₂)` (3 × nv).
    rows: DMatrix<f64>,
    /// Its gap (m).
    gap: f64,
    /// Its friction coefficient.
    mu: f64,
    /// Its point (world).
    point: Vec3,
}

/// The velocities of the floating base: a free joint's, or a translation joint's and the ball
/// joint of its child (MuJoCo's free joint), at the root.
fn base_velocities(m: &SpatialModel) -> Vec<usize> {
    let tree = &m.tree;
    let mut out = vec![];
    for (i, b) in tree.bodies().iter().enumerate() {
        let root = b.parent.is_none();
        let under_translation = b.parent.is_some_and(|p| {
            matches!(tree.bodies()[p].joint, Joint3::Translation) && tree.bodies()[p].parent.is_none()
        });
        let floating = match b.joint {
            Joint3::Free | Joint3::Translation => root,
            Joint3::Ball | Joint3::BallWxyz => under_translation,
            _ => false,
        };
        if floating {
            let (_, iv) = tree.joint_start(i);
            out.extend(iv..iv + b.joint.nv());
        }
    }
    out
}

/// P4's workpiece of the stance at `q` with gravity `g` (module docs), and the force (N) of a
/// unit contact intensity of its data.
fn workpiece(
    m: &SpatialModel,
    q: &[f64],
    cols: &[usize],
    contacts: &[Touching],
    gravity: Vec3,
    friction: FrictionLaw,
) -> Result<(Fixture, f64), Error> {
    let mut tree = m.tree.clone();
    tree.gravity = gravity;
    let nv = tree.nv();
    let zero = vec![0.0; nv];
    let mut scene = m.scene(None, 0.0);
    scene.tree.gravity = gravity;
    let force = tree.bias(q, &zero) + scene.passive_force(0.0, q, &zero);
    let full = tree.mass_matrix(q);
    let k = cols.len();
    let nc = contacts.len();
    // Velocities scaled by `dᵢ = 1/√𝓜ᵢᵢ` (𝓜 → D𝓜D, W → DW, g_ext → Dg_ext, a congruence that
    // changes no verdict): every row then has one unit, whatever the units of length and mass,
    // and the LPs' tolerances mean the same in every unit system.
    // The load is also divided by its norm (P4's systems are cones: a positive multiple of the
    // load has the same verdicts), so that the contact intensities are of order one too.
    let d: Vec<f64> = cols.iter().map(|&c| 1.0 / full[(c, c)].sqrt()).collect();
    let size = cols.iter().enumerate().map(|(a, &c)| (d[a] * force[c]).powi(2)).sum::<f64>().sqrt();
    let unit = if size > 0.0 && size.is_finite() { 1.0 / size } else { 1.0 };
    // And the W's by their largest entry (the intensities scale inversely).
    let big = (0..3)
        .flat_map(|r| cols.iter().enumerate().flat_map(move |(a, &col)| contacts.iter().map(move |c| (r, a, col, c))))
        .map(|(r, a, col, c)| (d[a] * c.rows[(r, col)]).abs())
        .fold(0.0, f64::max);
    let wscale = if big > 0.0 && big.is_finite() { 1.0 / big } else { 1.0 };
    let w = |r: usize| DMatrix::from_fn(k, nc, |a, c| wscale * d[a] * contacts[c].rows[(r, cols[a])]);
    // An intensity c of these data is the force c · wscale / unit (N): W (c wscale/unit) = D⁻¹ W' c / unit.
    let newtons = wscale / unit;
    Ok((
        Fixture {
            mass_matrix: DMatrix::from_fn(k, k, |a, b| d[a] * full[(cols[a], cols[b])] * d[b]),
            wn: w(0),
            wt: w(1),
            wo: Some(w(2)),
            mu: DVector::from_iterator(nc, contacts.iter().map(|c| c.mu)),
            load: DVector::from_iterator(k, cols.iter().enumerate().map(|(a, &c)| unit * d[a] * force[c])),
            friction,
            enclosure: None,
        },
        newtons,
    ))
}

/// The stance stability of the robot `m` at rest at `state` (default its `[initial]`
/// configuration; velocities, if given, are ignored): module docs.
pub(crate) fn robot_stance(m: &SpatialModel, state: Option<&[f64]>, s: &StanceSettings) -> Result<Stance, Error> {
    if !(s.touch.is_finite() && s.touch >= 0.0) {
        return Err(Error::argument("touch", format!("must be finite and >= 0 (got {})", s.touch)));
    }
    let (mut q, _) = spatial_state(m, state)?;
    if !m.tree.normalize(&mut q) {
        return Err(Error::argument("state", "a quaternion is zero or not finite"));
    }
    let scene = m.scene(None, 0.0);
    let sys = EventScene::new(&scene, &q)?;
    let tol = s.touch * sys.length();
    let mut contacts = vec![];
    let mut nearest: Option<(f64, String)> = None;
    for (i, c) in sys.contacts().iter().enumerate() {
        let Some((gap, rows)) = sys.contact_rows(&q, i) else { continue };
        if gap <= tol {
            let point = sys.kinematics(&q, &[i]).map_or(Vec3::repeat(f64::NAN), |k| k[0].point.point);
            contacts.push(Touching { index: i, rows, gap, mu: c.mu, point });
        } else if nearest.as_ref().is_none_or(|n| gap.abs() < n.0.abs()) {
            nearest = Some((gap, c.name.clone()));
        }
    }
    // On their springs the joints are free: a joint at its stop (or past it) is held there by
    // the stop, a frictionless contact on the joint's velocity (module docs).
    let mut stops = vec![];
    if s.joints == JointHold::Springs {
        let nv = m.tree.nv();
        for (limit, lower, arm) in stop_sides(&scene, sys.length()) {
            let l = &scene.limits[limit];
            let (gap, rows) = stop_gap_rows(l, lower, arm, nv, &q);
            if gap <= tol {
                stops.push((
                    StanceStop { name: stop_name(l, lower), joint: l.name.clone(), gap: gap / arm, force: None },
                    Touching { index: usize::MAX, rows, gap, mu: 0.0, point: Vec3::repeat(f64::NAN) },
                    arm,
                ));
            }
        }
    }
    if contacts.is_empty() && stops.is_empty() {
        let near = nearest
            .map_or_else(|| "the scene has no contacts".to_string(), |(g, n)| format!("nearest: {n} at {g:.3e} m"));
        let why = format!("no contact touches the ground within {tol:.3e} m (touch × the length scale; {near})");
        // (Named as the state came: the flag, or the file's reference configuration.)
        return Err(match state {
            Some(_) => Error::argument("state", why),
            None => {
                let key = if m.path.ends_with(".xml") {
                    "qpos0 (the file's reference configuration)"
                } else if m.path.ends_with(".urdf") {
                    "the neutral configuration"
                } else {
                    "initial"
                };
                Error::input(&m.path, key, why)
            }
        });
    }
    let cols: Vec<usize> = match s.joints {
        JointHold::Locked => base_velocities(m),
        JointHold::Springs => (0..m.tree.nv()).collect(),
    };
    if cols.is_empty() {
        return Err(Error::argument(
            "joints",
            "a fixed-base robot with locked joints cannot move: nothing to decide (hold the joints on their springs)",
        ));
    }
    let shapes = contacts.len();
    contacts.extend(stops.iter().map(|s| s.1.clone()));
    let (f, newtons) = workpiece(m, &q, &cols, &contacts, m.tree.gravity, s.friction)?;
    let classification = classify(&f)?;
    let nc = contacts.len();
    let witness = classification.equilibrium_intensity.as_ref().and_then(|e| e.witness.as_ref());
    let force = |k: usize| witness.map(|c| [c[k] * newtons, c[nc + k] * newtons, c[2 * nc + k] * newtons]);
    let largest_fn = (0..nc).filter_map(|k| force(k).map(|f| f[0])).fold(0.0, f64::max);
    let slope_margin = match s.slope_axis {
        Some(axis) => Some(slope_margin(m, &q, &cols, &contacts, axis, s.friction, classification.weakly_stable)?),
        None => None,
    };
    Ok(Stance {
        path: m.path.clone(),
        joints: s.joints,
        friction: s.friction,
        velocities: cols.iter().map(|&c| m.velocities[c].clone()).collect(),
        stops: (stops.into_iter().enumerate())
            .map(|(k, (mut stop, _, arm))| {
                stop.force = force(shapes + k).map(|f| f[0] * arm);
                stop
            })
            .collect(),
        contacts: contacts[..shapes]
            .iter()
            .enumerate()
            .map(|(k, c)| {
                let plane = &scene.planes[sys.contacts()[c.index].plane];
                let (t1, t2) = plane.tangents();
                let f = force(k);
                // (None for a contact the witness leaves unloaded: no cone to use.)
                let used = f.filter(|f| c.mu > 0.0 && f[0] > 1e-9 * largest_fn).map(|f| {
                    let t = match s.friction {
                        FrictionLaw::Coulomb => f[1].hypot(f[2]),
                        FrictionLaw::Pyramid => f[1].abs().max(f[2].abs()),
                    };
                    t / (c.mu * f[0])
                });
                StanceContact {
                    name: sys.contacts()[c.index].name.clone(),
                    gap: c.gap,
                    mu: c.mu,
                    point: [c.point.x, c.point.y, c.point.z],
                    axes: [plane.normal.into(), t1.into(), t2.into()],
                    force: f,
                    friction_used: used,
                }
            })
            .collect(),
        load: f.load.as_slice().to_vec(),
        classification,
        marginal: slope_margin.as_ref().map(|m| m.max_tilt == Some(0.0) || m.max_tilt_reverse == Some(0.0)),
        slope_margin,
        assumes: ASSUMES,
        length_scale: sys.length(),
    })
}

/// The largest tilts of gravity about `axis` (either way) with a weakly stable stance, by
/// bisection on `[0, π/2]` on verdicts proved in interval arithmetic where the proofs close
/// ([`crate::fixture::boundary::decide`]; the boundary itself, where a foot unloads or the
/// friction is used up, is a verdict, not a failure), to [`TILT_REL_TOL`] of the tilt (or
/// [`TILT_ABS_TOL`] rad near 0).
fn slope_margin(
    m: &SpatialModel,
    q: &[f64],
    cols: &[usize],
    contacts: &[Touching],
    axis: Vec3,
    friction: FrictionLaw,
    stable: bool,
) -> Result<SlopeMargin, Error> {
    if !(axis.iter().all(|x| x.is_finite()) && axis.norm() > 0.0) {
        return Err(Error::argument("slope_axis", "must be a nonzero finite vector"));
    }
    let a = axis.normalize();
    let verdict = |tilt: f64| -> Result<crate::fixture::boundary::Decision, Error> {
        let g = axis_angle(&a, tilt) * m.tree.gravity;
        decide(&workpiece(m, q, cols, contacts, g, friction)?.0)
    };
    let untilted_proved = stable && verdict(0.0)?.proved();
    // (largest tilt, its enclosure when proved)
    let largest = |sign: f64| -> Result<(Option<f64>, Option<[f64; 2]>), Error> {
        if !stable {
            return Ok((None, None));
        }
        let half = std::f64::consts::FRAC_PI_2;
        let top = verdict(sign * half)?;
        if top.holds {
            return Ok((Some(half), top.proved().then_some([half, half])));
        }
        // (Stable untilted: the caller's classification, proved or not.)
        let b = search(
            Bracket { stable: 0.0, stable_proved: untilted_proved, unstable: half, unstable_proved: top.proved() },
            Stop { rel: TILT_REL_TOL, abs: TILT_ABS_TOL, report: TILT_REPORT_TOL, geometric: false },
            |t| verdict(sign * t),
        )?;
        Ok((Some(b.value), b.enclosure))
    };
    let (max_tilt, max_tilt_enclosure) = largest(1.0)?;
    let (max_tilt_reverse, max_tilt_reverse_enclosure) = largest(-1.0)?;
    Ok(SlopeMargin {
        axis: [a.x, a.y, a.z],
        max_tilt,
        max_tilt_reverse,
        max_tilt_enclosure,
        max_tilt_reverse_enclosure,
    })
}

/// The slope margin's bisection stops below this width relative to the tilt ...
pub const TILT_REL_TOL: f64 = 1e-14;
/// ... plus this many radians (a stance balanced at the edge has the largest tilt 0).
pub const TILT_ABS_TOL: f64 = 1e-13;
/// The largest tilt is reported as the largest tilt proved stable when that is within this
/// relative distance of the bisection's stable end (otherwise that end, unproved).
pub const TILT_REPORT_TOL: f64 = 1e-6;

impl Stance {
    /// Writes `stance.json` and `stance.png`: the contacts seen from above the ground, each with
    /// its friction cone cut at the equilibrium witness's normal force (a circle, or the
    /// pyramid's square, in the contact's tangent axes, radius `μ f_n`) and the witness's
    /// friction force in it, drawn to one scale of force; the cones' rims touch where the
    /// friction is used up.
    pub fn write_files(&self, dir: &std::path::Path) -> Result<(), Error> {
        use crate::plot::{Mark, XyPlot};
        std::fs::create_dir_all(dir).map_err(|e| Error::write(dir, e))?;
        let json = serde_json::to_string_pretty(self).map_err(|e| Error::Output(e.to_string()))?;
        crate::output::write_file(dir, "stance.json", &json)?;
        let pts: Vec<(f64, f64)> = self.contacts.iter().map(|c| (c.point[0], c.point[1])).collect();
        // The force scale: the largest cone's radius a third of the contacts' smallest spacing
        // (or of the model's length scale for one contact).
        let mut spacing = f64::INFINITY;
        for (a, p) in pts.iter().enumerate() {
            for q in &pts[a + 1..] {
                let d = (p.0 - q.0).hypot(p.1 - q.1);
                if d > 0.0 {
                    spacing = spacing.min(d);
                }
            }
        }
        if !spacing.is_finite() {
            spacing = self.length_scale;
        }
        let biggest = self.contacts.iter().filter_map(|c| c.force.map(|f| c.mu * f[0])).fold(0.0f64, f64::max);
        let per_newton = if biggest > 0.0 { spacing / (3.0 * biggest) } else { 0.0 };
        let verdict = crate::output::kebab(&self.classification.classification);
        let title = match self.classification.critical_mu {
            Some(mu) => format!("{}: {verdict}, least μ {mu:.4}", self.path),
            None => format!("{}: {verdict}", self.path),
        };
        let mut plot = XyPlot::new(title, "x (m)", "y (m)").add("contact", pts.clone(), Mark::Points);
        for c in &self.contacts {
            let Some(f) = c.force else { continue };
            let (p, t1, t2) = (c.point, c.axes[1], c.axes[2]);
            let at = |u: f64, w: f64| {
                (p[0] + (t1[0] * u + t2[0] * w) * per_newton, p[1] + (t1[1] * u + t2[1] * w) * per_newton)
            };
            let r = c.mu * f[0];
            let rim: Vec<(f64, f64)> = match self.friction {
                FrictionLaw::Coulomb => (0..=72)
                    .map(|k| {
                        let a = std::f64::consts::TAU * k as f64 / 72.0;
                        at(r * a.cos(), r * a.sin())
                    })
                    .collect(),
                FrictionLaw::Pyramid => [(1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0), (1.0, -1.0), (1.0, 1.0)]
                    .iter()
                    .map(|&(u, w)| at(r * u, r * w))
                    .collect(),
            };
            plot = plot.add_colored("friction cone at the witness's normal force", rim, Mark::Line, 0).add_colored(
                "the witness's friction force",
                vec![at(0.0, 0.0), at(f[1], f[2])],
                Mark::Line,
                1,
            );
        }
        // Equal scales on both axes (the cones are circles): the picture's aspect follows the
        // data's.
        let (xs, ys): (Vec<f64>, Vec<f64>) = plot.series.iter().flat_map(|s| s.points.iter().copied()).unzip();
        let span = |v: &[f64]| {
            v.iter().copied().fold(f64::NEG_INFINITY, f64::max) - v.iter().copied().fold(f64::INFINITY, f64::min)
        };
        let (wx, wy) = (span(&xs).max(1e-9), span(&ys).max(1e-9));
        let height = (800.0 * wy / wx).clamp(300.0, 1200.0) as u32;
        plot.size = (900, height + 100);
        plot.save(&dir.join("stance.png"))
    }
}
