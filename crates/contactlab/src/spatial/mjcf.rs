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
        .map_err(|e| Error::input(name, "body", crate::multibody::urdf::one_line(&e.to_string())))?;
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
        super::timestep::passive_force(&damping, &springs, q, v)
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

    /// The joints' damping per velocity and springs `(qpos, qvel, stiffness, springref)` (hinges
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
                springs.push((j.qpos, j.qvel, j.stiffness, j.springref));
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

impl<'a> Reader<'a> {
    fn err(&self, n: Node, m: impl Into<String>) -> Error {
        Error::input(self.file, self.files.describe(n), m)
    }

    fn read_defaults(&mut self, n: Node, parent: &str, inherited: &HashMap<String, Attrs>) -> Result<(), Error> {
        let class = match n.attribute("class") {
            Some(c) => c.to_string(),
            None if parent == "main" && !self.classes.contains_key("main") => "main".to_string(),
            None => return Err(self.err(n, "a nested <default> needs a class")),
        };
        let mut mine = inherited.clone();
        let kids = self.files.children(self.file, n)?;
        for c in kids.iter().copied().filter(|c| c.tag_name().name() != "default") {
            let e = mine.entry(c.tag_name().name().to_string()).or_default();
            e.extend(c.attributes().map(|a| (a.name().to_string(), a.value().to_string())));
        }
        self.classes.insert(class.clone(), mine.clone());
        for c in kids.iter().copied().filter(|c| c.tag_name().name() == "default") {
            self.read_defaults(c, &class, &mine)?;
        }
        Ok(())
    }

    /// Attribute `a` of `n` (its own, else its class's default for its element type).
    fn attr(&self, n: Node, class: &str, a: &str) -> Option<String> {
        if let Some(v) = n.attribute(a) {
            return Some(v.to_string());
        }
        let class = n.attribute("class").unwrap_or(class);
        self.classes.get(class).and_then(|c| c.get(n.tag_name().name())).and_then(|m| m.get(a)).cloned()
    }

    fn numbers(&self, n: Node, class: &str, a: &str, len: Option<usize>) -> Result<Option<Vec<f64>>, Error> {
        let Some(s) = self.attr(n, class, a) else { return Ok(None) };
        let v = floats(&s).map_err(|m| self.err(n, format!("{a}: {m}")))?;
        if let Some(l) = len {
            if v.len() != l {
                return Err(self.err(n, format!("{a} needs {l} numbers (got {})", v.len())));
            }
        }
        Ok(Some(v))
    }

    fn number(&self, n: Node, class: &str, a: &str, default: f64) -> Result<f64, Error> {
        Ok(self.numbers(n, class, a, Some(1))?.map_or(default, |v| v[0]))
    }

    fn angle(&self, x: f64) -> f64 {
        if self.degree {
            x.to_radians()
        } else {
            x
        }
    }

    /// The orientation of `n` from whichever of `quat`, `axisangle`, `euler`, `xyaxes`, `zaxis`
    /// it has (identity if none; an error if several).
    fn orientation(&self, n: Node, class: &str) -> Result<Mat3, Error> {
        let keys = ["quat", "axisangle", "euler", "xyaxes", "zaxis"];
        let given: Vec<&str> = keys.iter().copied().filter(|k| self.attr(n, class, k).is_some()).collect();
        if given.len() > 1 {
            return Err(self.err(n, format!("give one orientation, not {}", given.join(" and "))));
        }
        let unit = |v: Vec3, what: &str| {
            let l = v.norm();
            if l > 0.0 {
                Ok(v / l)
            } else {
                Err(self.err(n, format!("{what} must not be zero")))
            }
        };
        Ok(match given.first().copied() {
            None => Mat3::identity(),
            Some("quat") => {
                let q = self.numbers(n, class, "quat", Some(4))?.unwrap_or_default();
                if q.iter().all(|x| *x == 0.0) {
                    return Err(self.err(n, "quat must not be zero"));
                }
                quaternion_matrix(q[1], q[2], q[3], q[0])
            }
            Some("axisangle") => {
                let a = self.numbers(n, class, "axisangle", Some(4))?.unwrap_or_default();
                axis_angle(&unit(Vec3::new(a[0], a[1], a[2]), "axisangle's axis")?, self.angle(a[3]))
            }
            Some("euler") => {
                let e = self.numbers(n, class, "euler", Some(3))?.unwrap_or_default();
                let mut r = Mat3::identity();
                for (k, &c) in self.eulerseq.iter().enumerate() {
                    let axis = match c.to_ascii_lowercase() {
                        b'x' => Vec3::x(),
                        b'y' => Vec3::y(),
                        _ => Vec3::z(),
                    };
                    let rk = axis_angle(&axis, self.angle(e[k]));
                    // Lowercase: rotating axes (intrinsic); uppercase: fixed axes.
                    r = if c.is_ascii_lowercase() { r * rk } else { rk * r };
                }
                r
            }
            Some("xyaxes") => {
                let a = self.numbers(n, class, "xyaxes", Some(6))?.unwrap_or_default();
                let x = unit(Vec3::new(a[0], a[1], a[2]), "xyaxes' x")?;
                let y = unit(Vec3::new(a[3], a[4], a[5]) - x * x.dot(&Vec3::new(a[3], a[4], a[5])), "xyaxes' y")?;
                Mat3::from_columns(&[x, y, x.cross(&y)])
            }
            Some(_) => {
                let z = self.numbers(n, class, "zaxis", Some(3))?.unwrap_or_default();
                z_to(&unit(Vec3::new(z[0], z[1], z[2]), "zaxis")?)
            }
        })
    }

    fn pose(&self, n: Node, class: &str) -> Result<Transform, Error> {
        let pos = self.numbers(n, class, "pos", Some(3))?.map_or(Vec3::zeros(), |p| Vec3::new(p[0], p[1], p[2]));
        Ok(Transform { rot: self.orientation(n, class)?, pos })
    }

    /// The children of a body element (or of `<worldbody>`, `body = None`): `frame` is the
    /// transform from this body's MuJoCo frame to its frame in the tree.
    fn read_children(&mut self, n: Node, body: Option<usize>, frame: &Transform, class: &str) -> Result<(), Error> {
        for c in self.files.children(self.file, n)? {
            match c.tag_name().name() {
                "body" => self.read_body(c, body, frame, class)?,
                "geom" => {
                    let read = self.read_geom(c, class)?;
                    let bit = |a: &str| -> Result<u32, Error> {
                        match self.attr(c, class, a) {
                            None => Ok(1),
                            Some(t) => t
                                .trim()
                                .parse::<u32>()
                                .map_err(|_| self.err(c, format!("{a} must be a non-negative integer (got {t})"))),
                        }
                    };
                    let bits = (bit("contype")?, bit("conaffinity")?);
                    if let (None, Some(b)) = (&read, body) {
                        let kind = self.attr(c, class, "type").unwrap_or_default();
                        let what = match c.attribute("name") {
                            Some(n) => format!("{kind} geom '{n}'"),
                            None => format!("{kind} geom"),
                        };
                        self.skipped.push(super::geometry::Skipped { body: b, what, bits });
                    }
                    if let Some(g) = read {
                        let pose = frame.then(&g.1);
                        // MuJoCo's sliding friction: the first number of `friction` (default 1).
                        let friction =
                            self.numbers(c, class, "friction", None)?.and_then(|f| f.first().copied()).unwrap_or(1.0);
                        if friction < 0.0 {
                            return Err(self.err(c, format!("friction must be >= 0 (got {friction})")));
                        }
                        self.geoms.push(Collision {
                            name: c.attribute("name").unwrap_or("").into(),
                            body,
                            pose,
                            shape: g.0,
                            friction: Some(friction),
                            bits,
                        });
                    }
                }
                "joint" | "freejoint" | "inertial" if body.is_none() => {
                    return Err(self.err(c, "the world body cannot hold this"));
                }
                "joint" | "freejoint" | "inertial" => {} // read with their body
                "site" | "camera" | "light" => {}
                other => return Err(self.err(c, format!("<{other}> is not supported inside a body"))),
            }
        }
        Ok(())
    }

    fn read_body(
        &mut self,
        n: Node,
        parent: Option<usize>,
        parent_frame: &Transform,
        class: &str,
    ) -> Result<(), Error> {
        let class = n.attribute("childclass").unwrap_or(class).to_string();
        if n.attribute("mocap") == Some("true") {
            return Err(self.err(n, "mocap bodies are not supported"));
        }
        let name = n.attribute("name").map_or_else(|| format!("body{}", self.bodies.len()), str::to_string);
        // The body's pose in its parent's frame in the tree.
        let x_pb = parent_frame.then(&self.pose(n, &class)?);
        let joints: Vec<Node> = self
            .files
            .children(self.file, n)?
            .into_iter()
            .filter(|c| matches!(c.tag_name().name(), "joint" | "freejoint"))
            .collect();
        let mut placement = x_pb;
        let mut parent_idx = parent;
        let mut anchor = Vec3::zeros(); // the last joint's anchor in the body's frame
        for (k, j) in joints.iter().enumerate() {
            let jclass = j.attribute("class").unwrap_or(&class).to_string();
            let kind = if j.tag_name().name() == "freejoint" {
                "free".to_string()
            } else {
                self.attr(*j, &jclass, "type").unwrap_or_else(|| "hinge".into())
            };
            let jname = j.attribute("name").map_or_else(|| format!("{name}#{k}"), str::to_string);
            let pos = self.numbers(*j, &jclass, "pos", Some(3))?.map_or(Vec3::zeros(), |p| Vec3::new(p[0], p[1], p[2]));
            let axis = self.numbers(*j, &jclass, "axis", Some(3))?.map_or(Vec3::z(), |p| Vec3::new(p[0], p[1], p[2]));
            let (qpos, qvel) = (self.coordinates.len(), self.velocities.len());
            let hinge_like = kind == "hinge" || kind == "ball";
            let scalar = |s: &Self, a: &str| s.number(*j, &jclass, a, 0.0);
            let (damping, stiffness, armature) =
                (scalar(self, "damping")?, scalar(self, "stiffness")?, scalar(self, "armature")?);
            for (what, x) in [("damping", damping), ("stiffness", stiffness), ("armature", armature)] {
                if x < 0.0 {
                    return Err(self.err(*j, format!("{what} must be >= 0 (got {x})")));
                }
            }
            let mut reference = scalar(self, "ref")?;
            let mut springref = scalar(self, "springref")?;
            if kind == "hinge" {
                reference = self.angle(reference);
                springref = self.angle(springref);
            }
            let range = self.numbers(*j, &jclass, "range", Some(2))?;
            let limited = match self.attr(*j, &jclass, "limited").as_deref() {
                Some("true") => true,
                Some("false") => false,
                _ => self.autolimits && range.is_some(),
            };
            let range = if limited {
                let r = range.ok_or_else(|| self.err(*j, "a limited joint needs a range"))?;
                let r = if hinge_like { [self.angle(r[0]), self.angle(r[1])] } else { [r[0], r[1]] };
                if r[0] > r[1] {
                    return Err(self.err(*j, format!("range must be increasing (got {} {})", r[0], r[1])));
                }
                if kind == "ball" {
                    self.notes.push(format!("joint '{jname}': a ball joint's range (a cone) is not held as a limit"));
                }
                Some(r)
            } else {
                None
            };
            let unit_axis = || {
                let l = axis.norm();
                if l > 0.0 {
                    Ok(axis / l)
                } else {
                    Err(self.err(*j, "axis must not be zero"))
                }
            };
            // (bodies: name, placement relative to parent_idx's frame, joint)
            let mut add: Vec<(String, Transform, Joint3)> = vec![];
            let step = Transform::translation(pos - anchor);
            match kind.as_str() {
                "hinge" => {
                    let a = unit_axis()?;
                    add.push((
                        jname.clone(),
                        placement.then(&step).then(&Transform::rotation(axis_angle(&a, -reference))),
                        Joint3::Revolute { axis: a },
                    ));
                    self.qpos0.push(reference);
                }
                "slide" => {
                    let a = unit_axis()?;
                    add.push((
                        jname.clone(),
                        placement.then(&step).then(&Transform::translation(-a * reference)),
                        Joint3::Prismatic { axis: a },
                    ));
                    self.qpos0.push(reference);
                }
                "ball" => {
                    add.push((jname.clone(), placement.then(&step), Joint3::BallWxyz));
                    self.qpos0.extend([1.0, 0.0, 0.0, 0.0]);
                }
                "free" => {
                    if parent.is_some() || joints.len() > 1 {
                        return Err(self.err(*j, "a free joint must be its body's only joint, in a body of the world"));
                    }
                    // MuJoCo: qpos is the body's pose in the world; the XML pose is its qpos0.
                    add.push((format!("{name}/{jname}"), Transform::identity(), Joint3::Translation));
                    add.push((jname.clone(), Transform::identity(), Joint3::BallWxyz));
                    let r = nalgebra::Rotation3::from_matrix_unchecked(x_pb.rot);
                    let uq = nalgebra::UnitQuaternion::from_rotation_matrix(&r);
                    self.qpos0.extend([x_pb.pos.x, x_pb.pos.y, x_pb.pos.z, uq.w, uq.i, uq.j, uq.k]);
                }
                other => {
                    return Err(self.err(*j, format!("joint type '{other}' is not one of hinge, slide, ball, free")))
                }
            }
            let (qn, vn) = match kind.as_str() {
                "free" => {
                    let (mut q, mut v) = Joint3::Translation.coordinate_names(&jname);
                    let (q2, v2) = Joint3::BallWxyz.coordinate_names(&jname);
                    q.extend(q2);
                    v.extend(v2);
                    (q, v)
                }
                _ => add[0].2.coordinate_names(&jname),
            };
            self.coordinates.extend(qn);
            self.velocities.extend(vn.iter().cloned());
            self.armature.extend(std::iter::repeat_n(armature, vn.len()));
            self.joints.push(MjJoint {
                name: jname.clone(),
                kind: leak_kind(&kind),
                qpos,
                qvel,
                range,
                damping,
                stiffness,
                springref,
            });
            for (bname, pl, joint) in add {
                self.bodies.push(Body3 {
                    name: format!("{name}/{bname}"),
                    parent: parent_idx,
                    placement: pl,
                    joint,
                    inertia: SpatialInertia::zero(),
                });
                parent_idx = Some(self.bodies.len() - 1);
                placement = Transform::identity();
            }
            anchor = if kind == "free" { Vec3::zeros() } else { pos };
        }
        // The body's own frame in the tree: the last joint's, or the XML pose if none.
        let offset = Transform::translation(-anchor); // tree frame -> MuJoCo body frame
        let inertia = self.body_inertia(n, &class)?.to_parent(&offset);
        let idx = if joints.is_empty() {
            self.bodies.push(Body3 { name: name.clone(), parent, placement: x_pb, joint: Joint3::Fixed, inertia });
            self.bodies.len() - 1
        } else {
            let last = self.bodies.len() - 1;
            self.bodies[last].name = name.clone();
            self.bodies[last].inertia = inertia;
            last
        };
        self.read_children(n, Some(idx), &offset, &class)
    }

    /// The body's inertia in its MuJoCo frame: its `<inertial>`, or its geoms' (module docs).
    fn body_inertia(&mut self, n: Node, class: &str) -> Result<SpatialInertia, Error> {
        let kids = self.files.children(self.file, n)?;
        let inertial = kids.iter().copied().find(|c| c.tag_name().name() == "inertial");
        let from_geoms = self.inertia_from_geom == "true" || (self.inertia_from_geom == "auto" && inertial.is_none());
        if !from_geoms {
            let Some(i) = inertial else { return Ok(SpatialInertia::zero()) };
            let pose = self.pose(i, class)?;
            let mass = self.number(i, class, "mass", f64::NAN)?;
            if !(mass.is_finite() && mass >= 0.0) {
                return Err(self.err(i, "needs a mass >= 0"));
            }
            let tensor = match (
                self.numbers(i, class, "diaginertia", Some(3))?,
                self.numbers(i, class, "fullinertia", Some(6))?,
            ) {
                (Some(d), None) => Mat3::from_diagonal(&Vec3::new(d[0], d[1], d[2])),
                (None, Some(f)) => Mat3::new(f[0], f[3], f[4], f[3], f[1], f[5], f[4], f[5], f[2]),
                _ => return Err(self.err(i, "give one of diaginertia and fullinertia")),
            };
            return Ok(SpatialInertia { mass, com: pose.pos, inertia: pose.rot * tensor * pose.rot.transpose() });
        }
        let mut total = SpatialInertia::zero();
        for g in kids.iter().copied().filter(|c| c.tag_name().name() == "geom") {
            let group = self.number(g, class, "group", 0.0)? as i64;
            if group < self.group_range[0] || group > self.group_range[1] {
                continue;
            }
            let Some((shape, pose)) = self.read_geom(g, class)? else {
                // (With an <inertial> and `inertiafromgeom="auto"`, MuJoCo's default, the body's
                // geoms do not count: a mesh is then only skipped for contacts.)
                let kind = self.attr(g, class, "type").unwrap_or_default();
                return Err(
                    self.err(g, format!("the inertia of a {kind} geom is not supported: give the body an <inertial>"))
                );
            };
            let Some((volume, unit)) = volume_and_unit_inertia(&shape) else {
                if !matches!(shape, Shape::Plane) {
                    return Err(self.err(g, "no inertia for this geom"));
                }
                continue;
            };
            let mass = match self.numbers(g, class, "mass", Some(1))? {
                Some(m) => m[0],
                None => self.number(g, class, "density", 1000.0)? * volume,
            };
            if !(mass.is_finite() && mass >= 0.0) {
                return Err(self.err(g, "mass and density must be >= 0"));
            }
            let i = SpatialInertia { mass, com: Vec3::zeros(), inertia: unit * mass };
            total = total.combined(&i.to_parent(&pose));
        }
        Ok(total)
    }

    /// A geom's shape and pose in its body's MuJoCo frame; `None` for meshes and other shapes
    /// without contacts here (noted).
    fn read_geom(&mut self, g: Node, class: &str) -> Result<Option<(Shape, Transform)>, Error> {
        let kind = self.attr(g, class, "type").unwrap_or_else(|| "sphere".into());
        let size = self.numbers(g, class, "size", None)?.unwrap_or_default();
        let need = |k: usize| -> Result<(), Error> {
            if size.len() < k || size[..k].iter().any(|x| *x < 0.0) {
                Err(self.err(g, format!("a {kind} needs {k} sizes >= 0 (got {size:?})")))
            } else {
                Ok(())
            }
        };
        let fromto = self.numbers(g, class, "fromto", Some(6))?;
        if let Some(f) = fromto {
            if kind != "capsule" && kind != "cylinder" {
                return Err(self.err(g, format!("fromto is supported for capsules and cylinders, not a {kind}")));
            }
            need(1)?;
            let (a, b) = (Vec3::new(f[0], f[1], f[2]), Vec3::new(f[3], f[4], f[5]));
            let d = b - a;
            if d.norm() == 0.0 {
                return Err(self.err(g, "fromto's ends coincide"));
            }
            let pose = Transform { rot: z_to(&(d / d.norm())), pos: (a + b) / 2.0 };
            let (radius, length) = (size[0], d.norm());
            let shape =
                if kind == "capsule" { Shape::Capsule { radius, length } } else { Shape::Cylinder { radius, length } };
            return Ok(Some((shape, pose)));
        }
        let pose = self.pose(g, class)?;
        let shape = match kind.as_str() {
            "sphere" => {
                need(1)?;
                Shape::Sphere { radius: size[0] }
            }
            "capsule" => {
                need(2)?;
                Shape::Capsule { radius: size[0], length: 2.0 * size[1] }
            }
            "cylinder" => {
                need(2)?;
                Shape::Cylinder { radius: size[0], length: 2.0 * size[1] }
            }
            "box" => {
                need(3)?;
                Shape::Box { size: Vec3::new(size[0], size[1], size[2]) * 2.0 }
            }
            "ellipsoid" => {
                need(3)?;
                Shape::Ellipsoid { radii: Vec3::new(size[0], size[1], size[2]) }
            }
            "plane" => Shape::Plane,
            other => {
                self.notes.push(format!(
                    "{}: a {other} geom is skipped (no inertia or contacts from it)",
                    self.files.describe(g)
                ));
                return Ok(None);
            }
        };
        Ok(Some((shape, pose)))
    }
}

/// A joint kind's name as a `'static` string.
fn leak_kind(kind: &str) -> &'static str {
    match kind {
        "hinge" => "hinge",
        "slide" => "slide",
        "ball" => "ball",
        _ => "free",
    }
}

/// The rotation closest to the identity that takes `z` to the unit vector `d`.
fn z_to(d: &Vec3) -> Mat3 {
    let axis = Vec3::z().cross(d);
    let s = axis.norm();
    if s < 1e-12 {
        return if d.z > 0.0 { Mat3::identity() } else { axis_angle(&Vec3::x(), std::f64::consts::PI) };
    }
    axis_angle(&(axis / s), s.atan2(d.z))
}

/// A solid shape's volume and its inertia per unit mass about its centre, in its axes (MuJoCo's
/// formulas); `None` for a plane.
fn volume_and_unit_inertia(shape: &Shape) -> Option<(f64, Mat3)> {
    use std::f64::consts::PI;
    let diag = |a: f64, b: f64, c: f64| Mat3::from_diagonal(&Vec3::new(a, b, c));
    Some(match *shape {
        Shape::Sphere { radius: r } => (4.0 / 3.0 * PI * r.powi(3), diag(0.4 * r * r, 0.4 * r * r, 0.4 * r * r)),
        Shape::Cylinder { radius: r, length: h } => {
            let side = (3.0 * r * r + h * h) / 12.0;
            (PI * r * r * h, diag(side, side, r * r / 2.0))
        }
        Shape::Capsule { radius: r, length: h } => {
            // A cylinder of height h and a sphere split into two hemispheres at its ends.
            let (vc, vs) = (PI * r * r * h, 4.0 / 3.0 * PI * r.powi(3));
            let v = vc + vs;
            let (mc, ms) = (vc / v, vs / v);
            let side = mc * (3.0 * r * r + h * h) / 12.0 + ms * (0.4 * r * r + h * h / 4.0 + 3.0 * r * h / 8.0);
            (v, diag(side, side, mc * r * r / 2.0 + ms * 0.4 * r * r))
        }
        Shape::Box { size } => {
            let (a, b, c) = (size.x, size.y, size.z);
            (a * b * c, diag((b * b + c * c) / 12.0, (a * a + c * c) / 12.0, (a * a + b * b) / 12.0))
        }
        Shape::Ellipsoid { radii } => {
            let (a, b, c) = (radii.x, radii.y, radii.z);
            (4.0 / 3.0 * PI * a * b * c, diag((b * b + c * c) / 5.0, (a * a + c * c) / 5.0, (a * a + b * b) / 5.0))
        }
        Shape::Plane => return None,
    })
}
