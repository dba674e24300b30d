//! The MJCF reader's walk over bodies, joints, geoms and their defaults (module docs of
//! [`super`]).

use super::*;

impl<'a> Reader<'a> {
    fn err(&self, n: Node, m: impl Into<String>) -> Error {
        Error::input(self.file, self.files.describe(n), m)
    }

    pub(super) fn read_defaults(
        &mut self,
        n: Node,
        parent: &str,
        inherited: &HashMap<String, Attrs>,
    ) -> Result<(), Error> {
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
    pub(super) fn read_children(
        &mut self,
        n: Node,
        body: Option<usize>,
        frame: &Transform,
        class: &str,
    ) -> Result<(), Error> {
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
                        self.skipped.push(crate::spatial::geometry::Skipped { body: b, what, bits });
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
