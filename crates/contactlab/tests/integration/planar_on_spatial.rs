//! The planar models on the spatial tree (issue #60, step 3): every shipped planar mechanism,
//! rebuilt as a tree by `spatial::planar::PlanarTree`, has the planar engine's `M`, bias,
//! energies and contact points' kinematics at random states, with the same coordinates and
//! velocities. Two independent codes: the planar engine's Kane equations in the plane, the
//! tree's CRBA and RNEA (in the plane's algebra, `Se2`). The same tree of laminas in space
//! (`Se3`, six-vectors) has the same `M`, bias and points' kinematics: the two algebras under
//! the one set of algorithms agree.

use std::path::{Path, PathBuf};

use contactlab::mechanics::multibody_system::Constraint;
use contactlab::spatial::planar::PlanarTree;
use contactlab::spatial::plane::{Joint2, Se2};
use contactlab::spatial::{Body3, Joint3, SpatialInertia, SpatialTree, Transform};
use nalgebra::{Matrix3, Vector3};

/// The planar tree's bodies as laminas in space: turns about `z`, plates of inertia `I/2` about
/// `x` and `y` (they never act).
fn laminas_in_space(tree: &SpatialTree<Se2>) -> SpatialTree {
    let bodies = tree
        .bodies()
        .iter()
        .map(|b| {
            let x = &b.placement;
            let i = &b.inertia;
            Body3 {
                name: b.name.clone(),
                parent: b.parent,
                placement: Transform {
                    rot: Matrix3::new(x.cos, -x.sin, 0.0, x.sin, x.cos, 0.0, 0.0, 0.0, 1.0),
                    pos: Vector3::new(x.pos.x, x.pos.y, 0.0),
                },
                joint: match b.joint {
                    Joint2::Fixed => Joint3::Fixed,
                    Joint2::Revolute { sign } => Joint3::Revolute { axis: Vector3::z() * sign },
                    Joint2::Prismatic { axis } => Joint3::Prismatic { axis: Vector3::new(axis.x, axis.y, 0.0) },
                    Joint2::Planar => Joint3::Planar,
                },
                inertia: SpatialInertia {
                    mass: i.mass,
                    com: Vector3::new(i.com.x, i.com.y, 0.0),
                    inertia: Matrix3::from_diagonal(&Vector3::new(0.5 * i.inertia, 0.5 * i.inertia, i.inertia)),
                },
            }
        })
        .collect();
    SpatialTree::new(bodies, Vector3::new(tree.gravity.x, tree.gravity.y, 0.0)).expect("laminas")
}

fn examples() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/multibody");
    let mut out = vec![];
    for dir in [root.clone(), root.join("urdf"), root.join("drake")] {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            // (A URDF beside a scene of its name is read through the scene, which gives its
            // plane.)
            let scene = p.with_extension("toml");
            if p.extension().is_some_and(|x| x == "toml")
                || (p.extension().is_some_and(|x| x == "urdf") && !scene.exists())
            {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Numbers uniform in [−1, 1) from `seed` (a linear congruential generator: the same states on
/// every machine).
fn uniform(mut seed: u64) -> impl FnMut() -> f64 {
    move || {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    }
}

#[test]
fn every_planar_example_has_the_planar_engines_dynamics_on_the_spatial_tree() {
    let mut rnd = uniform(11);
    let files = examples();
    assert!(files.len() >= 15, "{files:?}");
    let (mut planar_joints, mut points) = (0, 0);
    for path in files {
        let name = path.display().to_string();
        let m = contactlab::multibody::model::read(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mb = &m.tree;
        let pt = PlanarTree::new(mb).unwrap_or_else(|e| panic!("{name}: {e}"));
        let space = laminas_in_space(&pt.tree);
        let n = mb.dof();
        assert_eq!((pt.tree.nq(), pt.tree.nv()), (n, n), "{name}");
        planar_joints += pt.planar.len();
        for _ in 0..4 {
            let q: Vec<f64> = (0..n).map(|_| 1.5 * rnd()).collect();
            let v: Vec<f64> = (0..n).map(|_| 2.0 * rnd()).collect();
            let f = mb.frames(&q, &v);
            let (m2, h2) = mb.mass_and_bias(&f);
            // (Spatial coordinate k is planar coordinate order[k]; a planar joint's velocities
            // are turned into its body's axes, `v = T q̇`.)
            let qs = pt.to_spatial(&q);
            let vs = pt.velocities(&pt.turns(&qs), &v);
            let m3 = pt.tree.mass_matrix(&qs);
            let h3 = pt.tree.bias(&qs, &vs);
            // The two algebras: the plane's, and laminas in space.
            let (ms, hs3) = (space.mass_matrix(&qs), space.bias(&qs, &vs));
            assert!((&ms - &m3).amax() <= 1e-12 * m3.amax(), "{name}: M in the plane\n{m3}\nin space\n{ms}");
            assert!((&hs3 - &h3).amax() <= 1e-12 * h3.amax().max(1e-300), "{name}: h in the plane {h3} in space {hs3}");
            let (m3p, h3p) = pt.mass_and_bias(&q, &v);
            let scale = m2.amax();
            assert!((&m3p - &m2).amax() <= 1e-12 * scale, "{name}: M\n{m2}\nspatial\n{m3p}");
            let hs = h2.amax();
            for k in 0..n {
                assert!((h3p[k] - h2[k]).abs() <= 1e-11 * hs, "{name}: h[{k}] {} vs {}", h3p[k], h2[k]);
            }
            let (t2, t3) = (mb.kinetic_energy(&f), pt.tree.kinetic_energy(&qs, &vs));
            assert!((t2 - t3).abs() <= 1e-12 * t2, "{name}: kinetic {t2} vs {t3}");
            let (u2, u3) = (mb.potential_energy(&f), pt.tree.potential_energy(&qs));
            assert!((u2 - u3).abs() <= 1e-12 * (t2 + u2.abs()), "{name}: potential {u2} vs {u3}");
            // Every contact point: position, Jacobian (no out-of-plane motion) and `J̇ q̇`.
            for c in &m.contacts {
                let Constraint::PointOnLine { body, point, .. } = c.constraint else { continue };
                points += 1;
                let p2 = f.point(body, &point);
                let x3 = Vector3::new(point.x, point.y, 0.0);
                let p3 = pt.tree.point_position(&qs, pt.body[body], &point);
                let l = 1.0 + p2.position.norm();
                assert!((p3 - p2.position).norm() <= 1e-13 * l, "{name}: {p3} vs {}", p2.position);
                let ps = space.point_position(&qs, pt.body[body], &x3);
                assert!((ps.xy() - p3).norm() <= 1e-13 * l && ps.z == 0.0, "{name}: {p3} in space {ps}");
                let j = pt.tree.point_jacobian(&qs, pt.body[body], &point);
                let js = space.point_jacobian(&qs, pt.body[body], &x3);
                let j3 = pt.jacobian_to_planar(&pt.turns(&qs), &j);
                for k in 0..n {
                    let d = (j3[(0, k)] - p2.jacobian[(0, k)]).abs() + (j3[(1, k)] - p2.jacobian[(1, k)]).abs();
                    assert!(d <= 1e-13 * l, "{name}: Jacobian column {k}");
                    let e = (j[(0, k)] - js[(0, k)]).abs() + (j[(1, k)] - js[(1, k)]).abs();
                    assert!(e <= 1e-13 * l && js[(2, k)] == 0.0, "{name}: Jacobian column {k} in space");
                }
                let a = pt.tree.point_velocity_product(&qs, &vs, pt.body[body], &point);
                let aspace = space.point_velocity_product(&qs, &vs, pt.body[body], &x3);
                let a3 = pt.velocity_product_to_planar(&vs, &j, a);
                let s = p2.accel_bias.norm().max(1.0);
                assert!((a3 - p2.accel_bias).norm() <= 1e-12 * s, "{name}: J̇q̇ {a3} vs {}", p2.accel_bias);
                assert!((aspace.xy() - a).norm() <= 1e-12 * s && aspace.z.abs() <= 1e-12 * s, "{name}: J̇v in space");
            }
        }
    }
    // (The floating bases, planar joints, are among them; and the contact points of every
    // walker, wheel, block and rod.)
    assert!(planar_joints >= 10 && points >= 100, "{planar_joints} {points}");
}

/// The planar systems on the spatial tree ([`Kernel::Spatial`]): every shipped planar example's
/// system, evaluated by the spatial tree, answers the hybrid core as the planar kernel does:
/// `M`, the bias with its springs and dampers, every constraint's gap, tangential coordinate,
/// rows and velocity products, and the exact derivatives of all of them.
#[test]
fn every_planar_system_answers_alike_on_both_kernels() {
    use contactlab::mechanics::multibody_system::Kernel;
    use contactlab::mechanics::ContactSystem;
    use nalgebra::DVector;
    let mut rnd = uniform(5);
    let (mut rows, mut derivatives) = (0, 0);
    for path in examples() {
        let name = path.display().to_string();
        let mut m = contactlab::multibody::model::read(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        // The files' lines are mostly floors (a slope tilts gravity): tilt each line, so that
        // both tangent components count.
        for c in &mut m.contacts {
            if let Constraint::PointOnLine { normal, line_point, .. } = &mut c.constraint {
                let turn = nalgebra::Rotation2::new(0.4 * rnd());
                (*normal, *line_point) = (turn * *normal, *line_point + nalgebra::Vector2::new(0.1, -0.2) * rnd());
            }
        }
        m.kernel = Kernel::Planar;
        let planar = m.system().unwrap();
        m.kernel = Kernel::Spatial;
        let spatial = m.system().unwrap();
        assert_eq!((planar.kernel(), spatial.kernel()), (Kernel::Planar, Kernel::Spatial));
        let n = m.dof();
        let close = |a: f64, b: f64, scale: f64, what: &str| {
            assert!((a - b).abs() <= 1e-11 * scale, "{name}: {what}: planar {a} vs spatial {b}");
        };
        for _ in 0..3 {
            let q = DVector::from_fn(n, |_, _| 1.5 * rnd());
            let v = DVector::from_fn(n, |_, _| 2.0 * rnd());
            let (mp, ms) = (planar.mass_matrix(&q), spatial.mass_matrix(&q));
            let (hp, hs) = (planar.bias(0.3, &q, &v), spatial.bias(0.3, &q, &v));
            let (sm, sh) = (mp.amax(), hp.amax().max(1e-300));
            mp.iter().zip(ms.iter()).for_each(|(a, b)| close(*a, *b, sm, "M"));
            hp.iter().zip(hs.iter()).for_each(|(a, b)| close(*a, *b, sh, "h"));
            let l = planar.length_scale();
            for i in 0..planar.contact_count() {
                rows += 1;
                close(planar.gap(i, &q), spatial.gap(i, &q), l, "gap");
                close(planar.tangential(i, &q), spatial.tangential(i, &q), l * (1.0 + q.amax()), "tangential");
                let (wn, wt, d) = planar.contact_rows(i, &q, &v);
                let (wn3, wt3, d3) = spatial.contact_rows(i, &q, &v);
                wn.iter().chain(wt.iter()).zip(wn3.iter().chain(wt3.iter())).for_each(|(a, b)| close(*a, *b, l, "row"));
                let a = l * v.norm_squared().max(1.0);
                close(d.0, d3.0, a, "normal velocity product");
                close(d.1, d3.1, a, "tangent velocity product");
            }
            let (lp, ls) = (planar.linearization(0.3, &q, &v).unwrap(), spatial.linearization(0.3, &q, &v).unwrap());
            derivatives += 1;
            let flat = |x: &contactlab::mechanics::linearization::Linearization| -> Vec<f64> {
                let mut out: Vec<f64> = x.dm_dq.iter().flat_map(|d| d.iter().copied()).collect();
                out.extend(x.dh_dq.iter().chain(x.dh_dv.iter()));
                for c in &x.contacts {
                    out.extend(c.dwn_dq.iter().chain(c.dwt_dq.iter()));
                    out.extend(c.dn_dq.iter().chain(&c.dn_dv).chain(&c.dt_dq).chain(&c.dt_dv));
                }
                out
            };
            let (fp, fs) = (flat(&lp), flat(&ls));
            assert_eq!(fp.len(), fs.len(), "{name}");
            let scale = fp.iter().fold(0.0f64, |a, x| a.max(x.abs()));
            fp.iter().zip(&fs).for_each(|(a, b)| close(*a, *b, scale, "derivative"));
        }
    }
    assert!(rows >= 80 && derivatives >= 54, "{rows} {derivatives}");
}

/// Event-driven runs on both kernels: the kneed walker's first steps (knee locks as joint
/// limits, strikes, relabelling) and Painlevé's rod (slip, a jam) take the same events at the
/// same times, to the integration's tolerance.
#[test]
fn event_driven_runs_take_the_same_events_on_both_kernels() {
    use contactlab::mechanics::multibody_system::Kernel;
    use contactlab::multibody::simulate::{simulate, SimulateSettings};
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/multibody");
    let mut events = 0;
    for (file, t_max) in [("kneed-walker.toml", 1.2), ("painleve-rod.toml", 0.05), ("rocking-block.toml", 1.0)] {
        let mut m = contactlab::multibody::model::read(&root.join(file)).unwrap();
        let s = SimulateSettings { t_max, ..Default::default() };
        m.kernel = Kernel::Planar;
        let planar = simulate(&m, &m.q0, &m.v0, &s).unwrap();
        m.kernel = Kernel::Spatial;
        let spatial = simulate(&m, &m.q0, &m.v0, &s).unwrap();
        // (How the run ended; a jam's evidence holds forces that diverge at it, so its numbers
        // are compared through its time.)
        let ending = |t: &contactlab::hybrid::driver::Termination| match t {
            contactlab::hybrid::driver::Termination::Failed(f) => format!("{:?}", f.kind),
            other => format!("{other:?}"),
        };
        assert_eq!(ending(&planar.termination), ending(&spatial.termination), "{file}");
        assert!((planar.t_end - spatial.t_end).abs() <= 1e-7 * t_max, "{file}: {} vs {}", planar.t_end, spatial.t_end);
        events += planar.events.len();
        assert_eq!(planar.events.len(), spatial.events.len(), "{file}");
        for (a, b) in planar.events.iter().zip(&spatial.events) {
            assert_eq!((&a.kind, &a.contact, &a.modes_after), (&b.kind, &b.contact, &b.modes_after), "{file}");
            assert!((a.t - b.t).abs() <= 1e-7 * t_max, "{file}: event at {} vs {}", a.t, b.t);
            let d = a.q.iter().zip(&b.q).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max);
            assert!(d <= 1e-6, "{file}: q after the event differs by {d}");
        }
    }
    assert!(events >= 6, "{events} events");
}
