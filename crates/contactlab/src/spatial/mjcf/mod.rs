//! MJCF (MuJoCo's XML) as a [`SpatialTree`], in MuJoCo's coordinates: `qpos` and `qvel` in
//! MuJoCo's order and conventions, so states can be pasted between the two.
//!
//! # What is read
//! * `<compiler>`: `angle` (`degree`, MuJoCo's default, or `radian`), `eulerseq`,
//!   `inertiafromgeom` (`auto`, `true`, `false`), `inertiagrouprange`, `settotalmass`,
//!   `boundmass`, `boundinertia`, `autolimits`; `coordinate="local"`.
//! * `<option gravity>`.
//! * `<include file>` anywhere, as MuJoCo reads it: the included file's `<mujoco>` children in
//!   its place; `file` relative to the main file's folder and inside it, each file at most once,
//!   at most [`MAX_FILES`] files. Errors in an included file name it and its line.
//! * `<default>` classes, nested, for `joint` and `geom`; an element's `class`, else the nearest
//!   `childclass` of its bodies, else `main`.
//! * `<worldbody>` and `<body>` (`pos` and one of `quat`, `axisangle`, `euler`, `xyaxes`,
//!   `zaxis`), `<inertial>` (`pos`, orientation, `mass`, `diaginertia` or `fullinertia`),
//!   `<joint>` (`hinge`, `slide`, `ball`, `free`; `pos`, `axis`, `ref`, `range`, `limited`,
//!   `damping`, `stiffness`, `springref`, `armature`), `<freejoint>`, and `<geom>` (`sphere`,
//!   `capsule`, `cylinder`, `box`, `ellipsoid`, `plane`; `size`, `fromto` for capsules and
//!   cylinders, `pos`, orientation, `mass` or `density`, `group`).
//! * A body without `<inertial>` (or every body, with `inertiafromgeom="true"`) gets its inertia
//!   from its geoms as MuJoCo computes it: each geom's mass from `mass` or `density` (default
//!   1000) times its volume, solid shapes, the capsule as a cylinder and two hemispheres.
//! * Ignored, having no part in the dynamics: `<asset>`, `<visual>`, `<statistic>`, `<size>`,
//!   `<custom>`, `<keyframe>`, `<actuator>` and `<sensor>` (noted), `<site>`, `<camera>`,
//!   `<light>`, `<contact>` (noted), and tendons without stiffness, damping, limits or friction
//!   (which act only through actuators; noted). Refused with the element's name and line:
//!   `<equality>`, other tendons, `<frame>`, `<replicate>`, `<composite>`,
//!   `<flexcomp>`, mocap bodies, and anything a body holds that is not listed here. An
//!   attribute of `<body>`, `<joint>`, `<freejoint>`, `<geom>`, `<inertial>` or `<compiler>`
//!   outside MuJoCo's schema (a misspelling) is refused too.
//!
//! # The tree
//! MuJoCo composes a body's joints in order, each about its own anchor `pos` and axis in the
//! body's frame: `X = X_body J₁ … J_k` with `Jᵢ = T(posᵢ) R(axisᵢ, qᵢ − refᵢ) T(−posᵢ)` for a
//! hinge, `T(axisᵢ (qᵢ − refᵢ))` for a slide. Here each joint is a body of the tree (the first
//! `k − 1` massless, named `BODY/JOINT`), each frame at its joint's anchor; the last carries the
//! body's name, inertia, geoms and children, moved into that frame. A free joint is a
//! [`Joint3::Translation`] (world axes) then a [`Joint3::BallWxyz`] (body axes): MuJoCo's `qpos`
//! `x y z qw qx qy qz` and `qvel` (linear velocity in the world's axes, angular in the body's).
//! `M` includes the armature (MuJoCo's `qM`); the bias is `−qfrc_bias` (passive forces apart:
//! [`MjcfSpatial::passive_force`]).

use std::collections::HashMap;
use std::path::Path;

use roxmltree::{Document, Node};

use super::algebra::{axis_angle, quaternion_matrix, Mat3, SpatialInertia, Transform, Vec3};
use super::geometry::{Collision, Shape};
use super::joint::Joint3;
use super::tree::{Body3, SpatialTree};
use crate::Error;

mod reader;

/// One MuJoCo joint as read.
#[derive(Debug, Clone, PartialEq)]
pub struct MjJoint {
    /// Its name (MuJoCo's, or `BODY#k` when the file gives none).
    pub name: String,
    /// `hinge`, `slide`, `ball` or `free`.
    pub kind: &'static str,
    /// Its first `qpos` and `qvel` index.
    pub qpos: usize,
    /// See `qpos`.
    pub qvel: usize,
    /// `range` (rad or m) when the joint is limited.
    pub range: Option<[f64; 2]>,
    /// Viscous damping (per velocity).
    pub damping: f64,
    /// Stiffness of the joint spring (hinge and slide).
    pub stiffness: f64,
    /// The spring's rest position.
    pub springref: f64,
}

/// An MJCF read as a spatial tree.
#[derive(Debug, Clone)]
pub struct MjcfSpatial {
    /// The tree, gravity from `<option>` and the armature on `M`'s diagonal.
    pub tree: SpatialTree,
    /// The `qpos` names (module docs).
    pub coordinates: Vec<String>,
    /// The `qvel` names.
    pub velocities: Vec<String>,
    /// MuJoCo's reference configuration `qpos0` (each joint's `ref`, a free body's pose).
    pub qpos0: Vec<f64>,
    /// The joints.
    pub joints: Vec<MjJoint>,
    /// The geoms (world geoms with `body: None`; planes among them are the ground).
    pub geoms: Vec<Collision>,
    /// What was read but not used, one line each.
    pub notes: Vec<String>,
    /// The bodies' collision geometry skipped (meshes, height fields).
    pub skipped: Vec<super::geometry::Skipped>,
}

/// Reads the MJCF at `path` (at most [`crate::model::MAX_MODEL_BYTES`]).
pub fn read(path: &Path) -> Result<MjcfSpatial, Error> {
    let name = path.display().to_string();
    let (labels, texts, includes) = load(path)?;
    parse_files(&name, &labels, &texts, &includes)
}

/// The files of one model: labels, texts, and each included `file`'s index.
type Loaded = (Vec<String>, Vec<String>, HashMap<String, usize>);

/// At most this many files make one model (the main file and its `<include>`s).
pub const MAX_FILES: usize = 64;

/// The main file's text and those of its `<include>`s, recursively, as MuJoCo reads them:
/// each `file` relative to the main file's folder and inside it, each file at most once.
/// Returns the files' labels (the main file's path, then each `file` as written), their texts
/// and the index of each included `file`.
fn load(path: &Path) -> Result<Loaded, Error> {
    let name = path.display().to_string();
    let dir = path.parent().unwrap_or(Path::new("")).to_path_buf();
    let canon = dir.canonicalize().unwrap_or_else(|_| dir.clone());
    let (mut labels, mut texts) = (vec![name.clone()], vec![crate::model::read_bounded(path)?]);
    let mut includes: HashMap<String, usize> = HashMap::new();
    let mut k = 0;
    while k < texts.len() {
        // Each file's <include> elements (an unparsable file is reported by the parse after).
        let found: Vec<(String, Option<String>)> = match Document::parse(&texts[k]) {
            Err(_) => vec![],
            Ok(doc) => doc
                .descendants()
                .filter(|n| n.is_element() && n.tag_name().name() == "include")
                .map(|n| (where_in(&labels[k], k, &doc, n), n.attribute("file").map(str::to_string)))
                .collect(),
        };
        for (at, file) in found {
            let err = |m: String| Error::input(&name, at.clone(), m);
            let file = file.ok_or_else(|| err("needs a file".into()))?;
            let p = dir.join(&file);
            if !p.is_file() {
                return Err(err(format!("{} is not a file", p.display())));
            }
            let inside = !Path::new(&file).is_absolute() && p.canonicalize().is_ok_and(|c| c.starts_with(&canon));
            if !inside {
                return Err(err(format!("{file} is outside the model's folder {}", dir.display())));
            }
            if includes.contains_key(&file) {
                return Err(err(format!("{file} is included twice (MuJoCo includes a file once)")));
            }
            if texts.len() >= MAX_FILES {
                return Err(err(format!("more than {MAX_FILES} files")));
            }
            texts.push(crate::model::read_bounded(&p)?);
            includes.insert(file.clone(), labels.len());
            labels.push(file);
        }
        k += 1;
    }
    Ok((labels, texts, includes))
}

/// An element's place for errors: `<geom name="foot"> (line 12)` in the main file,
/// `<geom name="foot"> (robot.xml, line 12)` in an included one.
fn where_in(label: &str, k: usize, doc: &Document, n: Node) -> String {
    let line = doc.text_pos_at(n.range().start).row;
    let tag = match n.attribute("name") {
        Some(name) => format!("<{} name=\"{name}\">", n.tag_name().name()),
        None => format!("<{}>", n.tag_name().name()),
    };
    if k == 0 {
        format!("{tag} (line {line})")
    } else {
        format!("{tag} ({label}, line {line})")
    }
}

type Attrs = HashMap<String, String>;
/// Per class: per element type, the default attributes.
type Classes = HashMap<String, HashMap<String, Attrs>>;

struct Reader<'a> {
    file: &'a str,
    files: &'a Files<'a>,
    degree: bool,
    eulerseq: Vec<u8>,
    inertia_from_geom: &'a str,
    group_range: [i64; 2],
    autolimits: bool,
    classes: Classes,
    bodies: Vec<Body3>,
    armature: Vec<f64>,
    coordinates: Vec<String>,
    velocities: Vec<String>,
    qpos0: Vec<f64>,
    joints: Vec<MjJoint>,
    geoms: Vec<Collision>,
    notes: Vec<String>,
    skipped: Vec<super::geometry::Skipped>,
}

/// The parsed files of one model: the main file first, then its `<include>`s.
struct Files<'a> {
    labels: &'a [String],
    docs: Vec<Document<'a>>,
    includes: &'a HashMap<String, usize>,
}

impl<'a> Files<'a> {
    /// An element's description in errors: `<joint name="knee"> (line 12)`, with the file's
    /// name when it is an included one.
    fn describe(&self, n: Node) -> String {
        let k = self.docs.iter().position(|d| std::ptr::eq(d, n.document())).unwrap_or(0);
        where_in(&self.labels[k], k, &self.docs[k], n)
    }

    /// The element children of `n`, each `<include>` replaced by the included file's.
    fn children(&'a self, file: &str, n: Node<'a, 'a>) -> Result<Vec<Node<'a, 'a>>, Error> {
        let mut out = vec![];
        for c in n.children().filter(|c| c.is_element()) {
            if c.tag_name().name() != "include" {
                out.push(c);
                continue;
            }
            let Some(&k) = c.attribute("file").and_then(|f| self.includes.get(f)) else {
                return Err(Error::input(
                    file,
                    self.describe(c),
                    "an <include> is read from the model's file on disk (spatial::mjcf::read), inside its folder",
                ));
            };
            let root = self.docs[k].root_element();
            if root.tag_name().name() != "mujoco" {
                return Err(Error::input(
                    file,
                    self.describe(root),
                    "an included file's root element must be <mujoco>",
                ));
            }
            out.extend(self.children(file, root)?);
        }
        Ok(out)
    }
}

/// [`read`] on the text of an MJCF; `name` names it in errors. An `<include>` needs the file
/// on disk: [`read`].
pub fn parse(name: &str, text: &str) -> Result<MjcfSpatial, Error> {
    parse_files(name, &[name.to_string()], &[text.to_string()], &HashMap::new())
}

fn parse_files(
    name: &str,
    labels: &[String],
    texts: &[String],
    includes: &HashMap<String, usize>,
) -> Result<MjcfSpatial, Error> {
    let mut docs = Vec::with_capacity(texts.len());
    for (label, text) in labels.iter().zip(texts) {
        docs.push(
            Document::parse(text).map_err(|e| Error::input(name, "mujoco", format!("{label}: not valid XML: {e}")))?,
        );
    }
    let files = Files { labels, docs, includes };
    let doc = &files.docs[0];
    let root = doc.root_element();
    if root.tag_name().name() != "mujoco" {
        return Err(Error::input(
            name,
            "mujoco",
            format!("the root element is <{}>, not <mujoco>", root.tag_name().name()),
        ));
    }
    for d in &files.docs {
        check_attributes(name, &files, d)?;
    }
    let mut compiler = Attrs::new();
    let mut gravity = Vec3::new(0.0, 0.0, -9.81);
    let mut notes = vec![];
    let mut worldbodies = vec![];
    let mut defaults = vec![];
    for n in files.children(name, root)? {
        let err = |m: String| Error::input(name, files.describe(n), m);
        match n.tag_name().name() {
            "compiler" => compiler.extend(n.attributes().map(|a| (a.name().to_string(), a.value().to_string()))),
            "option" => {
                if let Some(g) = n.attribute("gravity") {
                    let g = floats(g).map_err(|m| err(format!("gravity: {m}")))?;
                    if g.len() != 3 {
                        return Err(err("gravity needs 3 numbers".into()));
                    }
                    gravity = Vec3::new(g[0], g[1], g[2]);
                }
            }
            "default" => defaults.push(n),
            "worldbody" => worldbodies.push(n),
            "asset" | "visual" | "statistic" | "size" | "custom" | "keyframe" | "extension" => {}
            "tendon" => {
                // A tendon without stiffness, damping, limits or friction acts only through
                // actuators: the passive mechanism is the same without it.
                let passive = ["stiffness", "damping", "range", "limited", "frictionloss", "armature", "springlength"];
                if let Some(t) = n.children().filter(|t| t.is_element()).find(|t| {
                    passive.iter().any(|a| {
                        t.attribute(*a).is_some_and(|v| v.split_whitespace().any(|x| x != "0" && x != "false"))
                    })
                }) {
                    return Err(Error::input(
                        name,
                        files.describe(t),
                        "a tendon with stiffness, damping, limits or friction is not supported",
                    ));
                }
                notes.push(format!(
                    "{}: not used (tendons without passive forces act only through actuators)",
                    files.describe(n)
                ))
            }
            "actuator" | "sensor" | "contact" => {
                notes.push(format!("{}: not used (contactlab reads the passive mechanism)", files.describe(n)))
            }
            other => {
                return Err(err(format!(
                    "<{other}> is not supported (contactlab reads bodies, joints, inertials and geoms)"
                )))
            }
        }
    }
    let get = |k: &str, d: &'static str| compiler.get(k).map(String::as_str).unwrap_or(d).to_string();
    let angle = get("angle", "degree");
    if angle != "degree" && angle != "radian" {
        return Err(Error::input(name, "<compiler angle>", format!("must be degree or radian (got {angle})")));
    }
    if get("coordinate", "local") != "local" {
        return Err(Error::input(
            name,
            "<compiler coordinate>",
            "only local coordinates are supported (MuJoCo removed global)",
        ));
    }
    let eulerseq = get("eulerseq", "xyz");
    if eulerseq.len() != 3 || !eulerseq.bytes().all(|c| b"xyzXYZ".contains(&c)) {
        return Err(Error::input(
            name,
            "<compiler eulerseq>",
            format!("must be three of x, y, z, X, Y, Z (got {eulerseq})"),
        ));
    }
    let ifg = get("inertiafromgeom", "auto");
    if !["auto", "true", "false"].contains(&ifg.as_str()) {
        return Err(Error::input(
            name,
            "<compiler inertiafromgeom>",
            format!("must be auto, true or false (got {ifg})"),
        ));
    }
    for unsupported in ["balanceinertia", "shellinertia"] {
        if get(unsupported, "false") == "true" {
            return Err(Error::input(name, format!("<compiler {unsupported}>"), "is not supported"));
        }
    }
    let gr =
        floats(&get("inertiagrouprange", "0 5")).map_err(|m| Error::input(name, "<compiler inertiagrouprange>", m))?;
    if gr.len() != 2 {
        return Err(Error::input(name, "<compiler inertiagrouprange>", "needs 2 integers"));
    }
    let mut r = Reader {
        file: name,
        files: &files,
        degree: angle == "degree",
        eulerseq: eulerseq.into_bytes(),
        inertia_from_geom: match ifg.as_str() {
            "auto" => "auto",
            "true" => "true",
            _ => "false",
        },
        group_range: [gr[0] as i64, gr[1] as i64],
        autolimits: get("autolimits", "true") == "true",
        classes: Classes::new(),
        bodies: vec![],
        armature: vec![],
        coordinates: vec![],
        velocities: vec![],
        qpos0: vec![],
        joints: vec![],
        geoms: vec![],
        notes,
        skipped: vec![],
    };
    for d in defaults {
        r.read_defaults(d, "main", &HashMap::new())?;
    }
    for w in worldbodies {
        r.read_children(w, None, &Transform::identity(), "main")?;
    }
    // settotalmass and the bounds act on the compiled bodies' inertias, as MuJoCo's compiler does.
    let bound = |k: &str| -> Result<f64, Error> {
        let x: f64 =
            get(k, "0").parse().map_err(|_| Error::input(name, format!("<compiler {k}>"), "must be a number"))?;
        Ok(x)
    };
    let (bm, bi) = (bound("boundmass")?, bound("boundinertia")?);
    for b in r.bodies.iter_mut().filter(|b| b.inertia.mass > 0.0 || b.joint != Joint3::Fixed) {
        if b.name.contains('/') {
            continue; // the massless joint bodies
        }
        if b.inertia.mass < bm {
            b.inertia.mass = bm;
        }
        if bi > 0.0 {
            b.inertia.inertia = bound_inertia(&b.inertia.inertia, bi);
        }
    }
    let total = bound("settotalmass")?;
    if total > 0.0 {
        let m: f64 = r.bodies.iter().map(|b| b.inertia.mass).sum();
        if m > 0.0 {
            for b in &mut r.bodies {
                b.inertia.mass *= total / m;
                b.inertia.inertia *= total / m;
            }
        }
    }
    let tree = SpatialTree::new(std::mem::take(&mut r.bodies), gravity)
        .and_then(|t| t.with_armature(std::mem::take(&mut r.armature)))
        .map_err(|e| Error::input(name, "body", crate::spatial::urdf::one_line(&e.to_string())))?;
    Ok(MjcfSpatial {
        tree,
        coordinates: r.coordinates,
        velocities: r.velocities,
        qpos0: r.qpos0,
        joints: r.joints,
        geoms: r.geoms,
        notes: r.notes,
        skipped: r.skipped,
    })
}

impl MjcfSpatial {
    /// The joints' passive forces (MuJoCo's `qfrc_passive` from joints): `−damping · qvel` on
    /// every velocity, and `−stiffness (q − springref)` on hinges and slides.
    pub fn passive_force(&self, q: &[f64], v: &[f64]) -> nalgebra::DVector<f64> {
        let (damping, springs) = self.passive_terms();
        super::timestep::passive_force(&damping, &springs, 0.0, q, v)
    }

    /// The limits of the limited hinges and slides (MuJoCo's `range`; a ball joint's range, a
    /// cone about its reference, is not a stop of one coordinate and is left out, with a note
    /// in [`MjcfSpatial::notes`]).
    pub fn limits(&self) -> Vec<super::timestep::JointLimit> {
        self.joints
            .iter()
            .filter(|j| matches!(j.kind, "hinge" | "slide"))
            .filter_map(|j| {
                j.range.map(|[lower, upper]| super::timestep::JointLimit {
                    name: j.name.clone(),
                    qpos: j.qpos,
                    qvel: j.qvel,
                    lower,
                    upper,
                })
            })
            .collect()
    }

    /// The joints' damping per velocity and springs (about `springref`; hinges
    /// and slides with stiffness): the terms of [`MjcfSpatial::passive_force`], as
    /// [`super::timestep::Scene3`] takes them.
    pub fn passive_terms(&self) -> (Vec<f64>, Vec<super::timestep::Spring>) {
        let (mut damping, mut springs) = (vec![0.0; self.tree.nv()], vec![]);
        for j in &self.joints {
            let n = match j.kind {
                "free" => 6,
                "ball" => 3,
                _ => 1,
            };
            damping[j.qvel..j.qvel + n].iter_mut().for_each(|d| *d = j.damping);
            if n == 1 && j.stiffness > 0.0 {
                springs.push(super::timestep::Spring::constant(j.qpos, j.qvel, j.stiffness, j.springref));
            }
        }
        (damping, springs)
    }
}

/// MuJoCo's `boundinertia`: each principal moment at least `b` (the tensor's principal axes
/// kept).
fn bound_inertia(i: &Mat3, b: f64) -> Mat3 {
    let e = i.symmetric_eigen();
    let d = e.eigenvalues.map(|x| x.max(b));
    e.eigenvectors * Mat3::from_diagonal(&d) * e.eigenvectors.transpose()
}

/// MuJoCo's attributes of the elements that carry the dynamics (its XML reference); another
/// attribute on them is a misspelling MuJoCo itself refuses.
const ATTRIBUTES: &[(&str, &[&str])] = &[
    (
        "body",
        &["name", "childclass", "pos", "quat", "axisangle", "xyaxes", "zaxis", "euler", "mocap", "gravcomp", "user"],
    ),
    (
        "joint",
        &[
            "name",
            "class",
            "type",
            "group",
            "pos",
            "axis",
            "springdamper",
            "limited",
            "actuatorfrclimited",
            "solreflimit",
            "solimplimit",
            "solreffriction",
            "solimpfriction",
            "stiffness",
            "range",
            "actuatorfrcrange",
            "actuatorgravcomp",
            "margin",
            "ref",
            "springref",
            "armature",
            "damping",
            "frictionloss",
            "user",
        ],
    ),
    ("freejoint", &["name", "group", "align"]),
    (
        "geom",
        &[
            "name",
            "class",
            "type",
            "contype",
            "conaffinity",
            "condim",
            "group",
            "priority",
            "size",
            "material",
            "rgba",
            "friction",
            "mass",
            "density",
            "shellinertia",
            "solmix",
            "solref",
            "solimp",
            "margin",
            "gap",
            "fromto",
            "pos",
            "quat",
            "axisangle",
            "xyaxes",
            "zaxis",
            "euler",
            "hfield",
            "mesh",
            "fitscale",
            "fluidshape",
            "fluidcoef",
            "user",
        ],
    ),
    ("inertial", &["pos", "quat", "axisangle", "xyaxes", "zaxis", "euler", "mass", "diaginertia", "fullinertia"]),
    (
        "compiler",
        &[
            "autolimits",
            "boundmass",
            "boundinertia",
            "settotalmass",
            "balanceinertia",
            "strippath",
            "coordinate",
            "angle",
            "fitaabb",
            "eulerseq",
            "meshdir",
            "texturedir",
            "assetdir",
            "discardvisual",
            "usethread",
            "fusestatic",
            "inertiafromgeom",
            "inertiagrouprange",
            "exactmeshinertia",
            "alignfree",
            "saveinertial",
        ],
    ),
];

/// Every attribute of the elements in [`ATTRIBUTES`] is MuJoCo's (in a `<default>` a `class`
/// is allowed too); the first that is not is a one-line error naming it and its element.
fn check_attributes(name: &str, files: &Files, doc: &Document) -> Result<(), Error> {
    for n in doc.descendants().filter(|n| n.is_element()) {
        let Some((_, known)) = ATTRIBUTES.iter().find(|(t, _)| *t == n.tag_name().name()) else { continue };
        // (A tendon's <joint> is another element, with `coef`.)
        let parent = n.parent().map_or("", |p| p.tag_name().name());
        if !matches!(parent, "body" | "worldbody" | "default" | "mujoco") {
            continue;
        }
        let in_default = parent == "default";
        if let Some(a) = n.attributes().find(|a| !(known.contains(&a.name()) || (in_default && a.name() == "class"))) {
            return Err(Error::input(
                name,
                files.describe(n),
                format!("'{}' is not an attribute of <{}> in MuJoCo's schema", a.name(), n.tag_name().name()),
            ));
        }
    }
    Ok(())
}

fn floats(s: &str) -> Result<Vec<f64>, String> {
    s.split_whitespace()
        .map(|t| t.parse::<f64>().map_err(|_| format!("'{t}' is not a number")))
        .collect::<Result<Vec<_>, _>>()
        .and_then(|v| if v.iter().all(|x| x.is_finite()) { Ok(v) } else { Err("numbers must be finite".into()) })
}
