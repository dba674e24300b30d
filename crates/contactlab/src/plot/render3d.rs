//! Animated GIFs of 3-D scenes: each link drawn as its collision shapes, tessellated into
//! triangles, flat-shaded by a light over the viewer's shoulder (so that faces turned away from
//! it darken and depth reads), hidden surfaces removed by a depth buffer, the ground planes as
//! checkered patches. Orthographic or perspective projection from a camera at a given azimuth
//! and elevation about the scene's "up" (against gravity). No GPU: a software rasteriser writes
//! each frame's pixels, plotters encodes the GIF.

use std::path::Path;

use plotters::prelude::*;

use crate::spatial::algebra::{Transform, Vec3};
use crate::spatial::contact::Plane;
use crate::spatial::geometry::Shape;
use crate::Error;

/// How the scene is projected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Projection {
    /// Parallel rays: sizes do not change with depth.
    Orthographic,
    /// A pinhole camera (a 35° field of view).
    Perspective,
}

impl std::str::FromStr for Projection {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        match s {
            "orthographic" => Ok(Self::Orthographic),
            "perspective" => Ok(Self::Perspective),
            _ => Err(Error::argument("view", format!("must be perspective or orthographic (got {s})"))),
        }
    }
}

/// The camera: a projection, and the direction it looks from.
#[derive(Debug, Clone, Copy)]
pub struct View3 {
    /// The projection.
    pub projection: Projection,
    /// The camera's azimuth about `up`, from the world's `x` axis toward `y` (rad).
    pub azimuth: f64,
    /// The camera's elevation above the plane normal to `up` (rad).
    pub elevation: f64,
    /// The scene's up direction (against gravity).
    pub up: Vec3,
}

impl Default for View3 {
    fn default() -> Self {
        Self { projection: Projection::Perspective, azimuth: -1.1, elevation: 0.45, up: Vec3::z() }
    }
}

/// A set of triangles of one colour (world coordinates, m).
#[derive(Debug, Clone)]
pub struct Mesh {
    /// The triangles.
    pub triangles: Vec<[Vec3; 3]>,
    /// Its colour.
    pub color: (u8, u8, u8),
}

/// One frame: a caption and the meshes.
#[derive(Debug, Clone, Default)]
pub struct Frame3 {
    /// Caption (the time).
    pub title: String,
    /// The meshes.
    pub meshes: Vec<Mesh>,
}

/// Link colours, one per body in turn (Okabe–Ito, colour-blind safe).
pub const PALETTE: [(u8, u8, u8); 6] =
    [(0, 114, 178), (230, 159, 0), (0, 158, 115), (204, 121, 167), (86, 180, 233), (213, 94, 0)];

/// The triangles of `shape` at `pose` (world).
pub fn shape_triangles(shape: &Shape, pose: &Transform) -> Vec<[Vec3; 3]> {
    const N: usize = 16;
    let mut tris = vec![];
    let ring = |k: usize| {
        let a = std::f64::consts::TAU * k as f64 / N as f64;
        (a.cos(), a.sin())
    };
    match *shape {
        Shape::Box { size } => {
            let h = size / 2.0;
            let corner = |i: usize| Vec3::new(h.x * sgn(i & 1), h.y * sgn(i & 2), h.z * sgn(i & 4));
            // Each face as two triangles: corners by bit patterns along the face's two axes.
            for (axis, side) in (0..3).flat_map(|a| [(a, 0), (a, 1)]) {
                let bit = 1 << axis;
                let (u, w) = (1 << ((axis + 1) % 3), 1 << ((axis + 2) % 3));
                let base = if side == 1 { bit } else { 0 };
                let q = [base, base | u, base | u | w, base | w].map(corner);
                tris.push([q[0], q[1], q[2]]);
                tris.push([q[0], q[2], q[3]]);
            }
        }
        Shape::Sphere { radius } => sphere(&mut tris, Vec3::zeros(), Vec3::repeat(radius.max(1e-3))),
        Shape::Ellipsoid { radii } => sphere(&mut tris, Vec3::zeros(), radii),
        Shape::Cylinder { radius, length } | Shape::Capsule { radius, length } => {
            let h = length / 2.0;
            for k in 0..N {
                let ((c0, s0), (c1, s1)) = (ring(k), ring(k + 1));
                let (a0, a1) = (Vec3::new(radius * c0, radius * s0, 0.0), Vec3::new(radius * c1, radius * s1, 0.0));
                let (lo, hi) = (Vec3::new(0.0, 0.0, -h), Vec3::new(0.0, 0.0, h));
                tris.push([a0 + lo, a1 + lo, a1 + hi]);
                tris.push([a0 + lo, a1 + hi, a0 + hi]);
                if matches!(shape, Shape::Cylinder { .. }) {
                    tris.push([lo, a1 + lo, a0 + lo]);
                    tris.push([hi, a0 + hi, a1 + hi]);
                }
            }
            if matches!(shape, Shape::Capsule { .. }) {
                sphere(&mut tris, Vec3::new(0.0, 0.0, -h), Vec3::repeat(radius));
                sphere(&mut tris, Vec3::new(0.0, 0.0, h), Vec3::repeat(radius));
            }
        }
        Shape::Plane => {}
    }
    tris.into_iter().map(|t| t.map(|p| pose.point(&p))).collect()
}

fn sgn(bit: usize) -> f64 {
    if bit == 0 {
        -1.0
    } else {
        1.0
    }
}

/// An ellipsoid's triangles (12 bands of 16).
fn sphere(tris: &mut Vec<[Vec3; 3]>, centre: Vec3, radii: Vec3) {
    const LAT: usize = 12;
    const LON: usize = 16;
    let at = |i: usize, j: usize| {
        let th = std::f64::consts::PI * i as f64 / LAT as f64;
        let ph = std::f64::consts::TAU * j as f64 / LON as f64;
        centre + Vec3::new(radii.x * th.sin() * ph.cos(), radii.y * th.sin() * ph.sin(), radii.z * th.cos())
    };
    for i in 0..LAT {
        for j in 0..LON {
            let (a, b, c, d) = (at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1));
            if i > 0 {
                tris.push([a, b, d]);
            }
            if i + 1 < LAT {
                tris.push([b, c, d]);
            }
        }
    }
}

/// The camera's frame: right, up and forward (the viewing direction), unit and orthogonal.
fn camera(view: &View3) -> (Vec3, Vec3, Vec3) {
    let up = if view.up.norm() > 0.0 { view.up.normalize() } else { Vec3::z() };
    // Any horizontal axis, then the azimuth about `up`.
    let x = if up.cross(&Vec3::x()).norm() > 1e-6 { (Vec3::x() - up * up.x).normalize() } else { Vec3::y() };
    let y = up.cross(&x);
    let (ca, sa, ce, se) = (view.azimuth.cos(), view.azimuth.sin(), view.elevation.cos(), view.elevation.sin());
    let to_camera = (x * ca + y * sa) * ce + up * se;
    let forward = -to_camera;
    let right = forward.cross(&up).try_normalize(1e-12).unwrap_or(x);
    let cam_up = right.cross(&forward);
    (right, cam_up, forward)
}

/// Writes `frames` as an animated GIF at `path`, `delay_ms` per frame, `size` pixels, with the
/// ground `planes` drawn as checkered patches under the scene. The view is fixed: it frames
/// every vertex of every frame.
pub fn save_gif_3d(
    frames: &[Frame3],
    planes: &[Plane],
    view: &View3,
    path: &Path,
    size: (u32, u32),
    delay_ms: u32,
) -> Result<(), Error> {
    super::ensure_font();
    let fail = |e: String| Error::Output(format!("{}: {e}", path.display()));
    let (right, up, forward) = camera(view);
    // The scene's extent: every vertex of every frame.
    let (mut lo, mut hi) = (Vec3::repeat(f64::INFINITY), Vec3::repeat(f64::NEG_INFINITY));
    for p in frames.iter().flat_map(|f| &f.meshes).flat_map(|m| &m.triangles).flatten() {
        if p.iter().all(|x| x.is_finite()) {
            lo = lo.inf(p);
            hi = hi.sup(p);
        }
    }
    if !lo.x.is_finite() {
        return Err(fail("nothing finite to draw".into()));
    }
    let centre = (lo + hi) / 2.0;
    let radius = ((hi - lo).norm() / 2.0).max(1e-9);
    // The ground: a patch of each plane around the scene's footprint on it.
    let ground: Vec<Mesh> = planes.iter().flat_map(|p| checkerboard(p, &centre, 1.6 * radius)).collect();
    // Camera position (perspective): far enough for the scene's sphere to fit a 35° view.
    let fov = 35f64.to_radians();
    let distance = 1.15 * radius / (fov / 2.0).sin();
    let eye = centre - forward * distance;
    let project = |p: &Vec3| -> (f64, f64, f64) {
        match view.projection {
            Projection::Orthographic => {
                let d = p - centre;
                (d.dot(&right), d.dot(&up), d.dot(&forward))
            }
            Projection::Perspective => {
                let d = p - eye;
                let z = d.dot(&forward).max(1e-9 * distance);
                (d.dot(&right) / z, d.dot(&up) / z, z)
            }
        }
    };
    // The picture's window: the scene's projected vertices, padded, at the image's aspect.
    let (mut x0, mut x1, mut y0, mut y1) = (f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY, f64::NEG_INFINITY);
    for p in frames.iter().flat_map(|f| &f.meshes).flat_map(|m| &m.triangles).flatten() {
        let (x, y, _) = project(p);
        if x.is_finite() && y.is_finite() {
            (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(y), y1.max(y));
        }
    }
    let caption = 30u32;
    let (w, h) = (size.0 as usize, (size.1.saturating_sub(caption)).max(1) as usize);
    let span = (x1 - x0).max(y1 - y0).max(1e-12);
    let (cx, cy, mut half) = ((x0 + x1) / 2.0, (y0 + y1) / 2.0, 0.6 * span);
    half = half.max(0.6 * (x1 - x0) * h as f64 / w as f64);
    let scale = h as f64 / (2.0 * half);
    let to_pixel = |x: f64, y: f64| (w as f64 / 2.0 + (x - cx) * scale, h as f64 / 2.0 - (y - cy) * scale);
    // Light over the viewer's left shoulder.
    let light = (-forward + up * 0.6 - right * 0.4).normalize();

    let root = BitMapBackend::gif(path, size, delay_ms).map_err(|e| fail(e.to_string()))?.into_drawing_area();
    let mut pixels = vec![(255u8, 255u8, 255u8); w * h];
    let mut depth = vec![f64::INFINITY; w * h];
    for f in frames {
        pixels.fill((255, 255, 255));
        depth.fill(f64::INFINITY);
        for m in ground.iter().chain(&f.meshes) {
            for t in &m.triangles {
                let n = (t[1] - t[0]).cross(&(t[2] - t[0]));
                let Some(n) = n.try_normalize(1e-300) else { continue };
                // Two-sided Lambert shading with an ambient floor.
                let shade = 0.35 + 0.65 * n.dot(&light).abs();
                let c = (
                    (f64::from(m.color.0) * shade).min(255.0) as u8,
                    (f64::from(m.color.1) * shade).min(255.0) as u8,
                    (f64::from(m.color.2) * shade).min(255.0) as u8,
                );
                let v = t.map(|p| {
                    let (x, y, z) = project(&p);
                    let (px, py) = to_pixel(x, y);
                    (px, py, z)
                });
                raster(&v, c, w, h, &mut pixels, &mut depth);
            }
        }
        root.fill(&WHITE).map_err(|e| fail(e.to_string()))?;
        for (k, &(r, g, b)) in pixels.iter().enumerate() {
            if (r, g, b) != (255, 255, 255) {
                let (x, y) = ((k % w) as i32, (k / w) as i32 + caption as i32);
                root.draw_pixel((x, y), &RGBColor(r, g, b)).map_err(|e| fail(e.to_string()))?;
            }
        }
        root.draw_text(&f.title, &("sans-serif", 18).into_text_style(&root), (10, 6))
            .map_err(|e| fail(e.to_string()))?;
        root.present().map_err(|e| fail(e.to_string()))?;
    }
    Ok(())
}

/// A plane's patch of half-width `half` around the foot of `centre`, as two checkered meshes.
fn checkerboard(p: &Plane, centre: &Vec3, half: f64) -> Vec<Mesh> {
    let n = p.normal;
    let a = if n.cross(&Vec3::x()).norm() > 0.5 {
        n.cross(&Vec3::x()).normalize()
    } else {
        n.cross(&Vec3::y()).normalize()
    };
    let b = n.cross(&a);
    let foot = centre - n * (centre - p.point).dot(&n);
    const K: i32 = 8;
    let cell = 2.0 * half / f64::from(K);
    let mut meshes =
        [Mesh { triangles: vec![], color: (225, 225, 225) }, Mesh { triangles: vec![], color: (190, 190, 190) }];
    for i in 0..K {
        for j in 0..K {
            let at = |u: i32, v: i32| foot + a * (f64::from(u) * cell - half) + b * (f64::from(v) * cell - half);
            let q = [at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1)];
            let m = &mut meshes[((i + j) % 2) as usize];
            m.triangles.push([q[0], q[1], q[2]]);
            m.triangles.push([q[0], q[2], q[3]]);
        }
    }
    meshes.to_vec()
}

/// Fills a triangle (pixel coordinates and depth) into the buffers where it is nearest.
fn raster(
    v: &[(f64, f64, f64); 3],
    c: (u8, u8, u8),
    w: usize,
    h: usize,
    pixels: &mut [(u8, u8, u8)],
    depth: &mut [f64],
) {
    if v.iter().any(|p| !(p.0.is_finite() && p.1.is_finite() && p.2.is_finite())) {
        return;
    }
    let area = (v[1].0 - v[0].0) * (v[2].1 - v[0].1) - (v[2].0 - v[0].0) * (v[1].1 - v[0].1);
    if area.abs() < 1e-12 {
        return;
    }
    let xmin = v.iter().map(|p| p.0).fold(f64::INFINITY, f64::min).floor().max(0.0) as usize;
    let xmax = v.iter().map(|p| p.0).fold(f64::NEG_INFINITY, f64::max).ceil().min(w as f64 - 1.0);
    let ymin = v.iter().map(|p| p.1).fold(f64::INFINITY, f64::min).floor().max(0.0) as usize;
    let ymax = v.iter().map(|p| p.1).fold(f64::NEG_INFINITY, f64::max).ceil().min(h as f64 - 1.0);
    if xmax < 0.0 || ymax < 0.0 {
        return;
    }
    for y in ymin..=ymax as usize {
        for x in xmin..=xmax as usize {
            let (px, py) = (x as f64 + 0.5, y as f64 + 0.5);
            let w0 = ((v[1].0 - px) * (v[2].1 - py) - (v[2].0 - px) * (v[1].1 - py)) / area;
            let w1 = ((v[2].0 - px) * (v[0].1 - py) - (v[0].0 - px) * (v[2].1 - py)) / area;
            let w2 = 1.0 - w0 - w1;
            if w0 < -1e-9 || w1 < -1e-9 || w2 < -1e-9 {
                continue;
            }
            let z = w0 * v[0].2 + w1 * v[1].2 + w2 * v[2].2;
            let k = y * w + x;
            if z < depth[k] {
                depth[k] = z;
                pixels[k] = c;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_box_has_twelve_outward_triangles_covering_its_surface() {
        let t = shape_triangles(&Shape::Box { size: Vec3::new(2.0, 4.0, 6.0) }, &Transform::identity());
        assert_eq!(t.len(), 12);
        // Total area 2 (ab + bc + ca) = 88; every vertex a corner.
        let area: f64 = t.iter().map(|t| (t[1] - t[0]).cross(&(t[2] - t[0])).norm() / 2.0).sum();
        assert!((area - 88.0).abs() < 1e-12, "{area}");
        assert!(t.iter().flatten().all(|p| p.x.abs() == 1.0 && p.y.abs() == 2.0 && p.z.abs() == 3.0));
    }

    #[test]
    fn the_camera_frame_is_right_handed_and_looks_down_at_its_elevation() {
        let v = View3 { elevation: 0.4, ..Default::default() };
        let (r, u, f) = camera(&v);
        assert!((r.cross(&u) + f).norm() < 1e-12, "forward = −(right × up)");
        assert!((f.dot(&Vec3::z()) + 0.4f64.sin()).abs() < 1e-12);
    }

    #[test]
    fn a_frame_is_drawn_with_the_nearer_face_in_front() {
        // Two unit squares facing the camera (orthographic, looking along −x from +x): the
        // nearer one (x = 1, red) hides the farther one (x = −1, blue) where they overlap.
        let v = View3 { projection: Projection::Orthographic, azimuth: 0.0, elevation: 0.0, up: Vec3::z() };
        let (r, u, f) = camera(&v);
        assert!((f + Vec3::x()).norm() < 1e-12 && (u - Vec3::z()).norm() < 1e-12, "{r} {u} {f}");
        let mut pixels = vec![(255, 255, 255); 100];
        let mut depth = vec![f64::INFINITY; 100];
        let square =
            |z: f64| [[(2.0, 2.0, z), (8.0, 2.0, z), (8.0, 8.0, z)], [(2.0, 2.0, z), (8.0, 8.0, z), (2.0, 8.0, z)]];
        for t in square(-1.0) {
            raster(&t, (255, 0, 0), 10, 10, &mut pixels, &mut depth);
        }
        for t in square(1.0) {
            raster(&t, (0, 0, 255), 10, 10, &mut pixels, &mut depth);
        }
        assert_eq!(pixels[5 * 10 + 5], (255, 0, 0));
        assert_eq!(pixels[0], (255, 255, 255));
    }
}
