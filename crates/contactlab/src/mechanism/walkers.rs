//! P2's built-in walkers written as mechanisms, so that the mechanisms' gait search (which needs
//! no guess) serves the built-in models too: `walker gait` without a guess falls back on it when
//! the default guess does not converge (Drake's compass-gait parameters, for one).

use nalgebra::DVector;

use super::gait::{find_gaits, GaitSettings};
use super::Mechanism;
use crate::mechanics::walkers::CompassBiped;
use crate::model::ModelDoc;
use crate::Error;

/// The compass biped `c` as a hip-rooted multibody model (the layout of
/// `examples/multibody/compass-biped.toml`: `q = (x_h, y_h, φ₁, φ₂)` with `φ₁ = −θ₁`,
/// `φ₂ = θ₁ + θ₂`), at rest in a symmetric posture.
pub fn compass_biped(c: &CompassBiped) -> Result<Mechanism, Error> {
    let (l, th) = (c.l, 0.15f64);
    let text = format!(
        r#"kind = "multibody"
gravity = {g}
slope = {slope}
[[body]]
name = "stance"
joint = "planar"
mass = {m}
inertia = {i}
com = [0.0, {c1}]
[[body]]
name = "hip"
parent = "stance"
joint = "fixed"
mass = {mh}
inertia = 0.0
[[body]]
name = "swing"
parent = "stance"
joint = "revolute"
mass = {m}
inertia = {i}
com = [0.0, {c1}]
[[line]]
name = "slope"
normal = [0.0, 1.0]
[[contact]]
name = "stance foot"
body = "stance"
point = [0.0, {f}]
mu = {mu}
released_by = ["swing foot"]
[[contact]]
name = "swing foot"
body = "swing"
point = [0.0, {f}]
mu = {mu}
armed_if = {{ coordinate = "stance.theta", below = 0.0 }}
[relabel]
after = "swing foot"
matrix = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 1], [0, 0, 0, -1]]
[initial]
q = [{x}, {y}, {th}, {sw}]
[gait]
strike = "swing foot"
translation = ["stance.x"]
"#,
        g = c.gravity,
        slope = c.slope,
        m = c.mass,
        mh = c.hip_mass,
        i = c.inertia,
        c1 = -l,
        f = -2.0 * l,
        mu = c.mu,
        x = -2.0 * l * th.sin(),
        y = 2.0 * l * th.cos(),
        sw = -2.0 * th,
    );
    super::model::from_model(&ModelDoc::parse("<compass biped>", &text, false)?)
}

/// A guess `(θ₁, θ̇₁, θ̇₂)` of P2's compass-biped gait found without one: the stable gait (else
/// the first) of [`find_gaits`] on [`compass_biped`], in P2's coordinates; `None` if the search
/// finds no gait.
pub fn compass_gait_guess(c: &CompassBiped) -> Result<Option<DVector<f64>>, Error> {
    let m = compass_biped(c)?;
    let search = find_gaits(&m, &GaitSettings::default())?;
    let Some(g) = search.gaits.iter().find(|g| g.stable).or(search.gaits.first()) else { return Ok(None) };
    // φ₁ = −θ₁, φ₂ = θ₁ + θ₂ (and the same for the rates).
    let (theta1, rate1) = (-g.q[2], -g.v[2]);
    let rate2 = g.v[3] - rate1;
    Ok(Some(DVector::from_vec(vec![theta1, rate1, rate2])))
}
