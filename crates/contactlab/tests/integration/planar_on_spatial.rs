//! The planar models on the spatial tree (issue #60, step 3): every shipped planar mechanism,
//! rebuilt as a spatial tree by `spatial::planar::PlanarTree`, has the planar engine's `M`,
//! bias, energies and contact points' kinematics at random states, with the same coordinates
//! and velocities. Two independent codes: the planar engine's Kane equations in the plane, the
//! spatial tree's CRBA and RNEA in space.

use std::path::{Path, PathBuf};

use contactlab::mechanics::multibody_system::Constraint;
use contactlab::spatial::planar::PlanarTree;
use nalgebra::{DMatrix, Vector3};

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

#[test]
fn every_planar_example_has_the_planar_engines_dynamics_on_the_spatial_tree() {
    let mut seed = 11u64;
    let mut rnd = || {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    };
    let files = examples();
    assert!(files.len() >= 15, "{files:?}");
    let (mut planar_joints, mut points) = (0, 0);
    for path in files {
        let name = path.display().to_string();
        let m = contactlab::multibody::model::read(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mb = &m.tree;
        let pt = PlanarTree::new(mb).unwrap_or_else(|e| panic!("{name}: {e}"));
        let n = mb.dof();
        assert_eq!((pt.tree.nq(), pt.tree.nv()), (n, n), "{name}");
        planar_joints += pt.tree.bodies().len() - mb.bodies().len();
        for _ in 0..4 {
            let q: Vec<f64> = (0..n).map(|_| 1.5 * rnd()).collect();
            let v: Vec<f64> = (0..n).map(|_| 2.0 * rnd()).collect();
            let f = mb.frames(&q, &v);
            let (m2, h2) = mb.mass_and_bias(&f);
            let (qs, vs) = (pt.to_spatial(&q), pt.to_spatial(&v));
            let m3 = pt.tree.mass_matrix(&qs);
            let h3 = pt.tree.bias(&qs, &vs);
            // Spatial coordinate k is planar coordinate order[k].
            let m3p = DMatrix::from_fn(n, n, |r, c| {
                let (i, j) =
                    (pt.order.iter().position(|&k| k == r).unwrap(), pt.order.iter().position(|&k| k == c).unwrap());
                m3[(i, j)]
            });
            let h3p = pt.to_planar(h3.as_slice());
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
                let x = Vector3::new(point.x, point.y, 0.0);
                let p3 = pt.tree.point_position(&qs, pt.body[body], &x);
                let l = 1.0 + p2.position.norm();
                assert!((p3.xy() - p2.position).norm() <= 1e-13 * l && p3.z == 0.0, "{name}: {p3} vs {}", p2.position);
                let j3 = pt.tree.point_jacobian(&qs, pt.body[body], &x);
                for k in 0..n {
                    let col = pt.order.iter().position(|&o| o == k).unwrap();
                    let d = (j3[(0, col)] - p2.jacobian[(0, k)]).abs() + (j3[(1, col)] - p2.jacobian[(1, k)]).abs();
                    assert!(d <= 1e-13 * l && j3[(2, col)] == 0.0, "{name}: Jacobian column {k}");
                }
                let a3 = pt.tree.point_velocity_product(&qs, &vs, pt.body[body], &x);
                let a = p2.accel_bias.norm().max(1.0);
                assert!((a3.xy() - p2.accel_bias).norm() <= 1e-12 * a, "{name}: J̇q̇ {a3} vs {}", p2.accel_bias);
            }
        }
    }
    // (The floating bases, planar joints, are among them; and the contact points of every
    // walker, wheel, block and rod.)
    assert!(planar_joints >= 10 && points >= 100, "{planar_joints} {points}");
}
