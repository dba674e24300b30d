//! Systems beyond the papers (issue #21): McGeer's kneed walker, whose knees lock as joint
//! limits, found, checked and analysed with the same tools as the papers' systems.

use std::path::{Path, PathBuf};

use contactlab::multibody::gait::{gait_from, GaitSettings};
use contactlab::multibody::painleve::{painleve, PainleveSettings};
use contactlab::multibody::simulate::SimulateSettings;
use contactlab::multibody::{model, Mechanism};

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/multibody").join(name)
}

fn read(name: &str) -> Mechanism {
    model::read(&example(name)).unwrap()
}

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * a.abs().max(b.abs())
}

#[test]
fn the_kneed_walker_has_a_gait_that_balances_its_energy() {
    let m = read("kneed-walker.toml");
    let search = contactlab::multibody::gait::find_gaits(&m, &GaitSettings::default()).unwrap();
    assert_eq!(search.gaits.len(), 1, "{search:?}");
    let g = &search.gaits[0];
    // The stance foot sticks throughout; the locked knees (closed frictionless limits) do not count
    // as slipping.
    assert!(g.stable && g.sticking && g.residual < 1e-8, "{g:?}");
    // Newton from the gait's own state stays there.
    let again = gait_from(&m, &g.q, &g.v, &GaitSettings::default()).unwrap().expect("converges");
    assert!(close(again.period, g.period, 1e-9), "{} vs {}", again.period, g.period);

    // One step from the gait's state: the swing knee locks (a knee strike), then the heel strikes,
    // and the state after it is the gait's state moved one step down the slope.
    let settings = SimulateSettings { t_max: g.period * (1.0 + 1e-9), ..Default::default() };
    let sim = crate::common::simulate_planar(&m, Some(&[g.q.clone(), g.v.clone()].concat()), &settings).unwrap();
    let impacts: Vec<_> =
        sim.events.iter().filter(|e| e.energy_loss.is_some()).map(|e| e.contact.clone().unwrap()).collect();
    assert_eq!(impacts.first().map(String::as_str), Some("swing knee"), "{impacts:?}");
    assert_eq!(impacts.last().map(String::as_str), Some("swing foot"), "{impacts:?}");
    let strike = sim.events.last().unwrap();
    assert_eq!(strike.contact.as_deref(), Some("swing foot"));
    assert!(close(strike.t, g.period, 1e-9));
    for k in 0..6 {
        let dq = if k == 0 { g.q[0] + g.step_length[0] } else { g.q[k] };
        assert!((strike.q[k] - dq).abs() <= 1e-7, "q[{k}]: {} vs {dq}", strike.q[k]);
        assert!((strike.v[k] - g.v[k]).abs() <= 1e-7, "v[{k}]: {} vs {}", strike.v[k], g.v[k]);
    }
    // The energy the impacts take is the potential energy of one step down the slope:
    // M g sin(slope) times the step length (M = 1.6 kg).
    let lost: f64 = sim.events.iter().filter_map(|e| e.energy_loss).sum();
    let descent = 1.6 * 9.81 * 0.0504f64.sin() * g.step_length[0];
    assert!(close(lost, descent, 1e-7), "impacts take {lost} J, the step descends {descent} J");
    let [e0, e1] = sim.energy.unwrap();
    assert!(close(e0 - e1, lost, 1e-7), "energy {e0} -> {e1}, impacts {lost}");
    // The stance foot sticks: the friction it needs is below the model's.
    assert!(g.mu_stick.unwrap() < 0.8);

    // The multipliers against an independent route: a walk from the gait's state with the swing
    // hip's rate perturbed by 1e-4 returns to the gait, the post-strike deviation shrinking by
    // the spectral radius per step (least-squares slope of its log over steps 4 to 24, past the
    // faster modes). The multipliers come from the linearised step map; this is the nonlinear
    // dynamics over many steps.
    let rho = g.spectral_radius;
    assert!((0.6..0.7).contains(&rho), "{:?}", g.multipliers);
    let mut v = g.v.clone();
    v[4] += 1e-4;
    let settings = SimulateSettings { t_max: 24.5 * g.period, ..Default::default() };
    let walk = crate::common::simulate_planar(&m, Some(&[g.q.clone(), v].concat()), &settings).unwrap();
    let scale: Vec<f64> = g.v.iter().map(|x| x.abs()).collect();
    let deviation: Vec<f64> = walk
        .events
        .iter()
        .filter(|e| e.energy_loss.is_some() && e.contact.as_deref() == Some("swing foot"))
        .map(|e| {
            let dq = (1..6).map(|k| (e.q[k] - g.q[k]).powi(2)).sum::<f64>();
            let dv =
                (0..6).map(|k| ((e.v[k] - g.v[k]) / scale.iter().cloned().fold(0.0, f64::max)).powi(2)).sum::<f64>();
            (dq + dv).sqrt()
        })
        .collect();
    assert!(deviation.len() >= 24, "{} strikes", deviation.len());
    let (ks, ls): (Vec<f64>, Vec<f64>) = (4..24).map(|k| (k as f64, deviation[k].ln())).unzip();
    let (km, lm) = (ks.iter().sum::<f64>() / ks.len() as f64, ls.iter().sum::<f64>() / ls.len() as f64);
    let slope = ks.iter().zip(&ls).map(|(k, l)| (k - km) * (l - lm)).sum::<f64>()
        / ks.iter().map(|k| (k - km).powi(2)).sum::<f64>();
    assert!((slope.exp() - rho).abs() < 0.02, "decay per step {} vs spectral radius {rho}", slope.exp());
}

#[test]
fn a_held_knee_is_the_knee_made_rigid() {
    // P2's A and B of the stance foot with the stance knee held (the constrained inverse) equal
    // those of the same walker whose stance shank is welded to its thigh (a fixed joint: one
    // coordinate fewer), at states with the knee straight.
    let text = std::fs::read_to_string(example("kneed-walker.toml")).unwrap();
    let start = text.find("name = \"stance shank\"").unwrap();
    let mut welded = text.clone();
    welded.replace_range(start..start + text[start..].find("\n\n").unwrap(), &{
        let block = &text[start..start + text[start..].find("\n\n").unwrap()];
        block.replace("joint = \"revolute\"", "joint = \"fixed\"")
    });
    let limit = welded.find("[[limit]]\nname = \"stance knee\"").unwrap();
    welded.replace_range(limit..limit + welded[limit..].find("\n\n").unwrap() + 2, "");
    let cut = welded.find("# q = (stance.x").unwrap();
    welded.truncate(cut);
    welded = welded.replace("released_by = [\"swing foot\"]", "");
    let rigid = model::from_model(&contactlab::model::ModelDoc::parse("welded.toml", &welded, false).unwrap()).unwrap();
    assert_eq!(rigid.dof(), 5);
    let m = read("kneed-walker.toml");
    let s = PainleveSettings { contact: "stance foot".into(), ..Default::default() };
    let mut compared = 0;
    for (th, sw, rates) in [
        (0.2f64, -0.45, [0.3, -0.1, -1.1, 1.2, -0.5]),
        (-0.1, 0.3, [1.0, 0.2, -0.9, 0.4, 0.7]),
        (0.05, -0.2, [0.0, 0.0, 0.5, -2.0, 3.0]),
    ] {
        let hip = [-th.sin(), th.cos()];
        let q6 = [hip[0], hip[1], th, 0.0, sw, -0.1];
        let v6 = [rates[0], rates[1], rates[2], 0.0, rates[3], rates[4]];
        let q5 = [q6[0], q6[1], q6[2], q6[4], q6[5]];
        let v5 = [v6[0], v6[1], v6[2], v6[4], v6[5]];
        let a = painleve(&m, &q6, &v6, &s).unwrap();
        assert_eq!(a.held, ["stance knee"]);
        let b = painleve(&rigid, &q5, &v5, &s).unwrap();
        assert!(b.held.is_empty());
        for (x, y) in [(a.at_state.a, b.at_state.a), (a.at_state.b, b.at_state.b)] {
            assert!(close(x, y, 1e-10), "held {x} vs welded {y}");
        }
        assert_eq!(a.at_state.case, b.at_state.case);
        match (a.mu_min, b.mu_min) {
            (Some(x), Some(y)) => {
                assert!(close(x.mu_min, y.mu_min, 1e-10), "{x:?} vs {y:?}");
                compared += 1;
            }
            (None, None) => {}
            (x, y) => panic!("held {x:?} vs welded {y:?}"),
        }
    }
    assert!(compared >= 1);
}

#[test]
fn the_rocking_block_at_rest_has_housners_decay_as_p1s_growth_factor() {
    // Housner's block at rest on both corners, read as P1's body on two contacts: stable, and
    // the growth factor at the fixed point of P1's Poincaré map is Housner's rate ratio per
    // impact squared, r² with r = 1 − (3/2) sin²α, tan α = b/h (one rocking cycle has two
    // impacts). An independent route: P1's zero-order dynamics and impact law against the
    // classic rocking solution.
    let mut m = read("rocking-block.toml");
    m.q0 = vec![0.0, 0.4, 0.0];
    let p = contactlab::twocontact::from_multibody::to_two_contact(&m).unwrap();
    assert!((p.h - 0.4).abs() < 1e-15 && (p.l1 + 0.1).abs() < 1e-15 && (p.l2 - 0.1).abs() < 1e-15);
    let c = contactlab::api::p1_classify(&p, 2001).unwrap();
    assert_eq!(c.verdict.as_str(), "stable", "{c:?}");
    let r = contactlab::mechanics::closed_form::RockingBlock { b: 0.1, h: 0.4, gravity: 9.81 }.rate_ratio();
    assert!(close(r, 1.0 - 1.5 * 0.0625 / 1.0625, 1e-15));
    let g = c.fixed_points.iter().find(|f| f.attracting).expect("an attracting fixed point").g;
    assert!(close(g, r * r, 1e-9), "G* = {g} vs Housner's r² = {}", r * r);
}
