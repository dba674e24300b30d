//! Beyond the papers in the plane: McGeer's kneed walker, the simplest walker, continuation
//! (the compass gait's cascade, P3's orbit in e, sticking lost, grazing and scuffing) and basins.

use super::*;

/// McGeer's kneed walker: its gait from no guess, the energy balance of a step, Painlevé.
pub(super) fn kneed_walker(sec: &mut Section, opts: &Options) -> Result<(), Error> {
    let m = mechanism("kneed-walker.toml", KNEED)?;
    let search = find_gaits(&m, &GaitSettings::default())?;
    let g = search.gaits.first();
    sec.rows.push(
        Row::exact(
            "Kneed walker (knee locks as joint limits): a stable gait found from Hsu Chen's initial conditions, no guess",
            "yes",
            yes_no(g.is_some_and(|g| g.stable)),
            "McGeer (1990): passive walking with knees",
        )
        .with_note(g.map_or_else(
            || search.reason.clone().unwrap_or_default(),
            |g| {
                format!(
                    "period {} s, |multipliers| {}, step {} m",
                    fmt_num(g.period),
                    g.multipliers.iter().map(|z| fmt_num(z[0].hypot(z[1]))).collect::<Vec<_>>().join(", "),
                    fmt_num(g.step_length[0])
                )
            },
        )),
    );
    let Some(g) = g else { return Ok(()) };
    // One step from the gait's state: the impacts take the potential energy of the descent.
    let state = [g.q.clone(), g.v.clone()].concat();
    let settings = SimulateSettings { t_max: g.period * (1.0 + 1e-9), ..Default::default() };
    let step = simulate(&m, &state[..6], &state[6..], &settings)?;
    let lost: f64 = step.events.iter().filter_map(|e| e.energy_loss).sum();
    let mass: f64 = m.tree.bodies().iter().map(|b| b.mass).sum();
    let slope = m.tree.gravity_vector().x.atan2(-m.tree.gravity_vector().y);
    let descent = mass * m.tree.gravity_vector().norm() * slope.sin() * g.step_length[0];
    sec.rows.push(Row::number(
        "Kneed walker: kinetic energy the impacts of one step take (J) = M g sin γ × step length",
        descent,
        lost,
        1e-7 * descent,
        "energy balance of a periodic step",
    ));
    // The animation: two steps of the gait.
    let two = simulate(&m, &g.q, &g.v, &SimulateSettings { t_max: 2.0 * g.period, ..Default::default() })?;
    two.write_animation(&m, &opts.out.join("beyond_kneed_walker.gif"))?;
    sec.figures.push(Figure {
        file: "beyond_kneed_walker.gif".into(),
        caption: "McGeer's kneed walker, two steps of its gait (contactlab simulate --out writes such an animation \
                  for any model): the swing knee locks at the knee strike, then the heel strikes and the legs swap; \
                  closed contacts are marked."
            .into(),
    });
    let knee_first = step.events.iter().find(|e| e.energy_loss.is_some()).and_then(|e| e.contact.clone());
    sec.rows.push(Row::exact(
        "Kneed walker: the swing knee locks (knee strike) before the heel strikes",
        "yes",
        yes_no(knee_first.as_deref() == Some("swing knee")),
        "McGeer (1990)",
    ));
    sec.rows.push(Row::at_most(
        "Kneed walker: friction the sticking stance foot needs, μ_stick ≤ the model's μ",
        0.8,
        g.mu_stick.unwrap_or(f64::NAN),
        "the model's μ = 0.8",
    ));
    // Painlevé at the stance foot with the stance knee held, knees straight.
    let slice = vec![
        SliceAxis { coordinate: "stance.theta".into(), lo: -0.4, hi: 0.4 },
        SliceAxis { coordinate: "swing".into(), lo: -1.0, hi: 1.0 },
    ];
    let mut table = Table {
        caption: "Kneed walker: Painlevé's paradox at the stance foot, the stance knee held (μ = 0.8), at the gait's \
                  post-strike state and over the slice stance.theta ∈ [−0.4, 0.4], swing ∈ [−1, 1] (knees straight)"
            .into(),
        header: ["σ", "A", "B", "case", "μ_min", "B < 0 at grid points"].iter().map(|s| s.to_string()).collect(),
        rows: vec![],
    };
    let mut map = None;
    for sigma in [1i8, -1] {
        let s = PainleveSettings {
            contact: "stance foot".into(),
            sigma: Some(sigma),
            slice: slice.clone(),
            points: 81,
            held: Some(vec!["stance knee".into()]),
            ..Default::default()
        };
        let p = painleve(&m, &g.q, &g.v, &s)?;
        table.rows.push(vec![
            format!("{sigma:+}"),
            fmt_num(p.at_state.a),
            fmt_num(p.at_state.b),
            crate::output::kebab(&p.at_state.case),
            p.mu_min.as_ref().map_or("none".into(), |x| fmt_num(x.mu_min)),
            p.b_negative_grid.as_ref().map_or(0, |x| x.cells).to_string(),
        ]);
        if sigma == 1 {
            map = Some(p);
        }
    }
    sec.tables.push(table);
    if let Some(p) = map.filter(|p| p.b_negative_grid.is_some()) {
        let grid = p.b_negative_grid.as_ref().expect("a two-coordinate slice");
        let n = grid.points_per_axis;
        let at = |a: &SliceAxis, k: usize| a.lo + (a.hi - a.lo) * k as f64 / (n - 1) as f64;
        let gait_path: Vec<(f64, f64)> =
            step.samples.iter().filter(|s| s.t < g.period).map(|s| (s.q[2], s.q[4])).collect();
        CategoryMap {
            title: "Kneed walker: B < 0 at the stance foot (μ = 0.8, σ = +1, stance knee held)".into(),
            x_label: "stance.theta (rad)".into(),
            y_label: "swing (rad)".into(),
            xs: (0..n).map(|k| at(&slice[0], k)).collect(),
            ys: (0..n).map(|k| at(&slice[1], k)).collect(),
            cells: grid.b.iter().flat_map(|row| row.iter().map(|&b| usize::from(b < 0.0))).collect(),
            legend: vec![("B > 0".into(), (230, 230, 230)), ("B < 0 (Painlevé)".into(), (213, 94, 0))],
            marks: vec![],
            paths: vec![MapPath { label: "the gait, one step".into(), points: gait_path }],
        }
        .save(&opts.out.join("beyond_kneed_walker_b.png"))?;
        sec.figures.push(Figure {
            file: "beyond_kneed_walker_b.png".into(),
            caption: format!(
                "McGeer's kneed walker: where a forward slip of the stance foot would meet Painlevé's paradox (B < 0, \
                 the stance knee held; μ_min = {}), and the gait's path over one step. The gait's foot sticks \
                 (μ_stick = {} < μ), so the paradox needs a slip the gait never starts.",
                p.mu_min.as_ref().map_or("none".into(), |x| fmt_num(x.mu_min)),
                fmt_num(g.mu_stick.unwrap_or(f64::NAN))
            ),
        });
    }
    Ok(())
}

/// Feigenbaum's constant: the limit of the ratio of successive period-doubling intervals.
pub const FEIGENBAUM_DELTA: f64 = 4.669_201_609_102_99;

/// The attractor's period at `slope`: distinct step times (to 1e-6 s) among the last 32 of 400
/// simulated steps from the post-strike state `x`, with the step times; 0 if the walker fell.
fn attractor(doc: &ModelDoc, slope: f64, x: &[f64]) -> Result<(usize, Vec<f64>), Error> {
    let key = crate::model::param::ParamKey::parse("slope")?;
    let m = crate::multibody::model::from_model(&doc.with_param(&key, slope)?)?;
    let n = m.dof();
    let s = SimulateSettings { t_max: 300.0, max_events: 100_000, rtol: 1e-10, per_step: 1 };
    let sim = simulate(&m, &x[..n], &x[n..], &s)?;
    let strikes: Vec<f64> =
        sim.events.iter().filter(|e| e.contact.as_deref() == Some("swing foot")).map(|e| e.t).collect();
    if strikes.len() < 100 {
        return Ok((0, vec![]));
    }
    let steps: Vec<f64> = strikes.windows(2).map(|w| w[1] - w[0]).collect();
    let tail = steps[steps.len() - 32..].to_vec();
    let mut distinct: Vec<f64> = vec![];
    for &t in &tail {
        if !distinct.iter().any(|&u| (u - t).abs() < 1e-6) {
            distinct.push(t);
        }
    }
    Ok((distinct.len(), tail))
}

/// The compass gait's period-doubling cascade in the slope (issue #22): `continue` against the
/// attractor of plain simulation and Feigenbaum's constant.
pub(super) fn compass_cascade(sec: &mut Section, opts: &Options) -> Result<(), Error> {
    use crate::continuation::{Settings, SpecialKind};
    let doc = ModelDoc::parse("goswami-compass-gait.toml", GOSWAMI, false)?;
    let req = crate::api::ContinueRequest {
        param: "slope".into(),
        from: None,
        to: 0.0885,
        state: None,
        orbit: None,
        settings: Settings { max_doublings: 4, max_step: 0.01, step: 0.01, ..Default::default() },
        gait: GaitSettings::default(),
    };
    let c = crate::api::continuation(&doc, &req, &|_| {})?;
    let pd: Vec<f64> = c
        .branches
        .iter()
        .flat_map(|b| b.special.iter().filter(|s| s.kind == SpecialKind::PeriodDoubling).map(|s| s.p))
        .collect();
    const SRC: &str = "plain simulation: the attractor's step times";
    let listed = pd.iter().map(|&p| format!("{} ({}°)", fmt_num(p), fmt_num(p.to_degrees()))).collect::<Vec<_>>();
    sec.rows.push(
        Row::exact(
            "Compass gait (Goswami's masses and lengths, Drake's CompassGait.urdf): period doublings located along \
             the slope by `continue`",
            "5",
            pd.len().to_string(),
            "Goswami, Thuilot & Espiau (1998): a period-doubling cascade to chaos",
        )
        .with_note(format!("slopes (rad) {}", listed.join(", "))),
    );
    if pd.len() < 5 {
        return Ok(());
    }
    // The attractor of plain simulation on each side of every doubling: period 1, 2, 4, 8, 16.
    let near = |slope: f64| {
        let pts = &c.branches[0].points;
        pts.iter()
            .min_by(|a, b| (a.p - slope).abs().total_cmp(&(b.p - slope).abs()))
            .map(|p| p.observation.state.clone())
    };
    let probes =
        [pd[0] - 0.003, 0.5 * (pd[0] + pd[1]), 0.5 * (pd[1] + pd[2]), 0.5 * (pd[2] + pd[3]), 0.5 * (pd[3] + pd[4])];
    let mut periods = vec![];
    for &slope in &probes {
        let x = near(slope).ok_or_else(|| Error::model("slope", "an empty branch"))?;
        periods.push(attractor(&doc, slope, &x)?.0);
    }
    sec.rows.push(
        Row::exact(
            "Compass gait: the attractor's period below the first doubling and midway between successive doublings",
            "1, 2, 4, 8, 16",
            periods.iter().map(|p| p.to_string()).collect::<Vec<_>>().join(", "),
            SRC,
        )
        .with_note(format!(
            "400 simulated steps at slopes {} from the period-1 branch; distinct step times among the last 32",
            probes.iter().map(|&p| fmt_num(p)).collect::<Vec<_>>().join(", ")
        )),
    );
    let ratio = (pd[2] - pd[1]) / (pd[3] - pd[2]);
    sec.rows.push(
        Row::number(
            "Compass gait: ratio of successive doubling intervals (p₃ − p₂)/(p₄ − p₃)",
            FEIGENBAUM_DELTA,
            ratio,
            0.02 * FEIGENBAUM_DELTA,
            "Feigenbaum (1978): the ratios tend to δ = 4.6692 (2%: the third ratio of a cascade)",
        )
        .with_note(format!("the first ratio (p₂ − p₁)/(p₃ − p₂) is {}", fmt_num((pd[1] - pd[0]) / (pd[2] - pd[1])))),
    );
    sec.rows.push(Row::number(
        "Compass gait: the next ratio (p₄ − p₃)/(p₅ − p₄), p₅ on the period-16 branch",
        FEIGENBAUM_DELTA,
        (pd[3] - pd[2]) / (pd[4] - pd[3]),
        0.02 * FEIGENBAUM_DELTA,
        "Feigenbaum (1978): the ratios tend to δ = 4.6692 (the same 2%)",
    ));
    compass_basin(sec, opts, &doc, 0.5 * (pd[0] + pd[1]), &near(0.5 * (pd[0] + pd[1])).unwrap_or_default())?;
    // The bifurcation diagram with the orbit diagram of plain simulation.
    use rayon::prelude::*;
    let slopes: Vec<f64> = (0..=28).map(|k| 0.060 + 0.001 * k as f64).collect();
    let dots: Vec<(f64, f64)> = slopes
        .par_iter()
        .map(|&slope| {
            let x = near(slope).unwrap_or_default();
            attractor(&doc, slope, &x).map(|(_, t)| t.into_iter().map(|t| (slope, t)).collect::<Vec<_>>())
        })
        .collect::<Result<Vec<_>, Error>>()?
        .into_iter()
        .flatten()
        .collect();
    let plot = c.plot("Compass gait: step time against slope (continuation; dots: plain simulation)").add_colored(
        "simulation, last 32 steps",
        dots,
        Mark::Points,
        7,
    );
    plot.save(&opts.out.join("beyond_compass_cascade.png"))?;
    sec.figures.push(Figure {
        file: "beyond_compass_cascade.png".into(),
        caption: format!(
            "The compass gait's period-doubling cascade (Goswami's parameters): every return time of the orbits \
             followed by `contactlab continue goswami-compass-gait.toml --param slope --to 0.0885 --max-doublings 4` (solid stable, dashed unstable; squares: located doublings at slopes {}), and the \
             last 32 step times of plain simulation at 29 slopes (dots) landing on the stable branches. Goswami, \
             Thuilot & Espiau (1998) show this cascade (their bifurcation diagram of the step period against the \
             slope); their figure's slopes are not reproduced here, as we could not read them off.",
            listed.join(", ")
        ),
    });
    Ok(())
}

/// P3's continuation in e as an instance of `continue` (issue #22): the orbit at e = 0.5 by
/// pseudo-arclength continuation from the plastic impact (e = 0, P3's simple orbit) against P3's
/// own orbit search at e = 0.5; the Zeno onset located at e = 0.
pub(super) fn p3_as_continuation(sec: &mut Section) -> Result<(), Error> {
    let doc = ModelDoc::parse("double-pendulum-pd.toml", P3_PENDULUM, false)?;
    let req = crate::api::ContinueRequest {
        param: "e".into(),
        from: Some(0.0),
        to: 0.5,
        state: None,
        orbit: None,
        settings: crate::continuation::Settings { max_doublings: 0, ..Default::default() },
        gait: GaitSettings::default(),
    };
    let c = crate::api::continuation(&doc, &req, &|_| {})?;
    let last = c.branches.first().and_then(|b| b.points.last());
    // P3's own search: the return map iterated from the e = 0.5 model's initial state, then Newton.
    let half = crate::zeno::model::from_model(&ModelDoc::parse("double-pendulum-pd-e0.5.toml", P3_HALF, false)?)?;
    let direct = crate::api::zeno_orbit(&half, "double-pendulum-pd-e0.5.toml")?;
    let (period, gamma) = last.map_or((f64::NAN, f64::NAN), |p| (p.period, p.spectral_radius));
    let d = Some(&direct);
    sec.rows.push(
        Row::number(
            "P3's Zeno orbit at e = 0.5 reached by `continue --param e` from e = 0 (plastic): period (s)",
            d.and_then(|o| o.period).unwrap_or(f64::NAN),
            period,
            1e-8,
            "P3's orbit search (`zeno orbit`) at e = 0.5 from the model's initial state",
        )
        .with_note(format!(
            "{} points on the branch; the continuation lands on e = {}",
            c.branches.first().map_or(0, |b| b.points.len()),
            last.map_or("none".into(), |p| fmt_num(p.p))
        )),
    );
    sec.rows.push(Row::number(
        "P3's Zeno orbit at e = 0.5 by `continue`: contraction rate γ (largest multiplier)",
        d.and_then(|o| o.gamma).unwrap_or(f64::NAN),
        gamma,
        1e-6,
        "P3's orbit search at e = 0.5",
    ));
    // The branch starts on P3's simple orbit (one plastic collision) and is Zeno for every e > 0:
    // the located Zeno onset's bracket must reach down to e = 0.
    let first = c.branches.first().and_then(|b| b.points.first());
    sec.rows.push(Row::number(
        "P3's orbit by `continue` at e = 0 (the simple orbit): γ",
        0.9404,
        first.map_or(f64::NAN, |p| p.spectral_radius),
        5e-5,
        "P3, Section 5: γ = 0.9404 for the simple periodic orbit at e = 0",
    ));
    let onset = c
        .branches
        .first()
        .and_then(|b| b.special.iter().find(|s| s.kind == crate::continuation::SpecialKind::ZenoOnset));
    let (lo, hi) = onset.map_or((f64::NAN, f64::NAN), |s| (s.p - s.bracket, s.p));
    sec.rows.push(
        Row::exact(
            "P3's orbit by `continue` from e = 0: the Zeno onset's bracket (within 1e-6 of e = 0)",
            "e = 0",
            if lo.abs() <= 1e-12 && hi < 1e-6 { "e = 0".to_string() } else { format!("[{lo:e}, {hi:e}]") },
            "P3, Section 2: every e > 0 gives an infinite series of impacts before the constraint holds",
        )
        .with_note(format!(
            "located in [{}, {}]: rebounds below 1e-9 of the approach speed count as plastic (the hybrid core's \
             contact tolerance); a series too fast or too low to simulate is completed after its predicted tail",
            fmt_num(lo),
            fmt_num(hi)
        )),
    );
    Ok(())
}

/// P2's compass biped continued in μ (issue #22): while the stance foot sticks the gait does not
/// depend on μ, so sticking must be lost exactly at the friction the sticking gait uses, μ_stick
/// (the largest |λ_t|/λ_n along its step, from `gait`), and Painlevé's paradox must stop being
/// possible on the orbit (B = d − μ|c| ≥ 0 all along it) exactly at the least d/|c| along the
/// gait, here from the hand-written built-in biped's own gait.
pub(super) fn sticking_lost(sec: &mut Section) -> Result<(), Error> {
    use crate::continuation::{Settings, SpecialKind};
    let doc = ModelDoc::parse("compass-biped.toml", P2_BIPED, false)?;
    let m = crate::multibody::model::from_model(&doc)?;
    let g = crate::multibody::gait::find_gaits(&m, &GaitSettings::default())?;
    let mu_stick = g.gaits.first().and_then(|g| g.mu_stick).unwrap_or(f64::NAN);
    let req = crate::api::ContinueRequest {
        param: "contact[*].mu".into(),
        from: None,
        to: 0.15,
        state: None,
        orbit: None,
        settings: Settings { max_doublings: 0, ..Default::default() },
        gait: GaitSettings::default(),
    };
    let c = crate::api::continuation(&doc, &req, &|_| {})?;
    let lost = c.branches.first().and_then(|b| b.special.iter().find(|s| s.kind == SpecialKind::StickingLost));
    sec.rows.push(
        Row::number(
            "P2's compass biped, `continue --param contact[*].mu`: μ where the stance foot's sticking is lost",
            mu_stick,
            lost.map_or(f64::NAN, |s| s.p),
            1e-6,
            "the sticking gait's own friction use μ_stick (`gait`: the largest |λ_t|/λ_n along its step)",
        )
        .with_note(located(lost)),
    );
    let cb = crate::mechanics::walkers::CompassBiped::paper(0.7);
    let ws = crate::walking::WalkerSettings { rtol: 1e-12, ..Default::default() };
    let guess = nalgebra::DVector::from_vec(vec![-0.15, 0.7, -0.5]);
    let tight = GaitSettings { rtol: 1e-12, ..Default::default() };
    let bg = crate::walking::gait(&crate::walking::model::WalkerModel::Compass(cb), Some(&guess), &tight)?;
    let y = nalgebra::DVector::from_vec(bg.section_point.clone());
    let mu_star = crate::walking::painleve::mu_min_along_step(&cb, &y, &ws).unwrap_or(f64::NAN);
    let onset = c.branches.first().and_then(|b| b.special.iter().find(|s| s.kind == SpecialKind::PainleveOnset));
    sec.rows.push(
        Row::number(
            "P2's compass biped, same branch: μ where Painlevé's paradox becomes possible on the gait (B < 0 somewhere on its orbit)",
            mu_star,
            onset.map_or(f64::NAN, |s| s.p),
            1e-6,
            "the least d/|c| of the stance foot along the built-in (hand-written) biped's sticking gait \
             (`walking::painleve::mu_min_along_step`)",
        )
        .with_note(located_on(onset, "the least B along the orbit")),
    );
    Ok(())
}

/// Grazing and scuffing located by `continue` on real models (issue #22): the self-excited
/// impact oscillator's back wall moved in until it touches the limit cycle (its far turning
/// point in closed form), and McGeer's kneed walker with both shanks made heavier until its
/// swing foot, bending its knee less, no longer clears the slope (checked by plain simulation
/// of a step on either side).
pub(super) fn grazing_and_scuffing(sec: &mut Section) -> Result<(), Error> {
    use crate::continuation::{Settings, SpecialKind};
    use crate::mechanics::closed_form::ImpactLimitCycle;
    let request = |param: &str, to: f64| crate::api::ContinueRequest {
        param: param.into(),
        from: None,
        to,
        state: None,
        orbit: None,
        settings: Settings { max_doublings: 0, max_step: 0.02, ..Default::default() },
        gait: GaitSettings::default(),
    };
    let doc = ModelDoc::parse("impact-oscillator.toml", OSCILLATOR, false)?;
    let c = crate::api::continuation(&doc, &request("line[back wall].point[0]", -1.5), &|_| {})?;
    // The closed form with the file's own numbers.
    let num = |key: &str| ParamKey::parse(key).and_then(|k| doc.param(&k));
    let exact = ImpactLimitCycle {
        mass: num("body[mass].mass")?,
        damping: num("spring[0].damping")?,
        stiffness: num("spring[0].stiffness")?,
        restitution: num("contact[stop].e")?,
        wall: num("line[wall].point[0]")?,
    };
    let x_min = exact.limit_cycle().map_or(f64::NAN, |(u, _, _)| exact.least_position(u));
    let graze = c.branches.first().and_then(|b| b.special.iter().find(|s| s.kind == SpecialKind::Grazing));
    sec.rows.push(
        Row::number(
            "Self-excited impact oscillator (`impact-oscillator.toml`), `continue --param \"line[back wall].point[0]\"`: \
             where the back wall is grazed (m)",
            x_min,
            graze.map_or(f64::NAN, |s| s.p),
            1e-6,
            "closed form: the limit cycle's far turning point (linear flow between impacts, `ImpactLimitCycle`)",
        )
        .with_note(located(graze)),
    );
    let doc = ModelDoc::parse("kneed-walker.toml", KNEED, false)?;
    let key = "body[stance shank|swing shank].mass";
    let c = crate::api::continuation(&doc, &request(key, 0.3), &|_| {})?;
    let branch = c.branches.first();
    let scuff = branch.and_then(|b| b.special.iter().find(|s| s.kind == SpecialKind::Scuffing));
    // Plain simulation of one step from the branch's orbits 0.02 kg on either side.
    let mut verdicts = vec![];
    if let (Some(b), Some(s)) = (branch, scuff) {
        for side in [s.p - 0.02, s.p + 0.02] {
            let pt = b.points.iter().min_by(|x, y| (x.p - side).abs().total_cmp(&(y.p - side).abs()));
            let Some(pt) = pt else { continue };
            let m = crate::multibody::model::from_model(&doc.with_param(&ParamKey::parse(key)?, pt.p)?)?;
            let x = &pt.observation.state;
            let low = swing_foot_lowest(&m, &x[..m.dof()], &x[m.dof()..])?;
            verdicts.push(if low > 0.0 { "clears" } else { "scuffs" });
        }
    }
    sec.rows.push(
        Row::exact(
            format!(
                "McGeer's kneed walker, `continue --param \"{key}\"`: the swing foot just below and just above the \
                 located scuffing point"
            ),
            "clears, scuffs",
            verdicts.join(", "),
            "plain simulation of one step (`simulate`): the swing foot's least gap while its rule disarms it, \
             after it first descends",
        )
        .with_note(scuff.map_or("not located".to_string(), |s| {
            format!(
                "scuffing located at {} kg per shank (bracket {}), 0.05 kg in the file; simulated at ±0.02 kg",
                fmt_num(s.p),
                fmt_num(s.bracket)
            )
        })),
    );
    Ok(())
}

/// The kneed walker's swing foot over one step from `(q, q̇)` by plain simulation: its least
/// gap (m) while its rule disarms it (`stance.theta > 0`), after its gap first stops rising.
fn swing_foot_lowest(m: &Mechanism, q: &[f64], v: &[f64]) -> Result<f64, Error> {
    let sim = simulate(m, q, v, &SimulateSettings { t_max: 2.0, max_events: 1000, rtol: 1e-11, per_step: 16 })?;
    let at = |name: &str, list: &[String]| list.iter().position(|c| c == name);
    let (Some(foot), Some(theta)) = (at("swing foot", &m.contact_names), at("stance.theta", &m.coordinates)) else {
        return Err(Error::model("kneed-walker.toml", "no swing foot or stance.theta"));
    };
    let strike = sim.events.iter().find(|e| e.contact.as_deref() == Some("swing foot")).map_or(f64::INFINITY, |e| e.t);
    Ok(sim.least_gap_after_rise(foot, strike, |r| r.q[theta] > 0.0).unwrap_or(f64::NAN))
}

/// Garcia et al.'s simplest walker: the slope where its stable gait period-doubles (issue #22).
pub(super) fn simplest_walker(sec: &mut Section) -> Result<(), Error> {
    use crate::continuation::{Settings, SpecialKind};
    let doc = ModelDoc::parse("simplest-walker.toml", SIMPLEST, false)?;
    let req = crate::api::ContinueRequest {
        param: "slope".into(),
        from: None,
        to: 0.016,
        state: None,
        orbit: None,
        settings: Settings { max_doublings: 0, max_step: 0.01, step: 0.01, ..Default::default() },
        gait: GaitSettings::default(),
    };
    let c = crate::api::continuation(&doc, &req, &|_| {})?;
    let b = c.branches.first();
    let pd = b.and_then(|b| b.special.iter().find(|s| s.kind == SpecialKind::PeriodDoubling));
    let start = b.and_then(|b| b.points.first());
    sec.rows.push(
        Row::number(
            "Simplest walker (m/M = 1e-6): slope (rad) where the stable long-period gait period-doubles",
            0.015,
            pd.map_or(f64::NAN, |s| s.p),
            0.0005,
            "Garcia, Chatterjee, Ruina & Coleman (1998), abstract: stable when 0 < γ < 0.015 (to its two digits)",
        )
        .with_note(start.map_or(String::new(), |p| {
            format!(
                "the gait at γ = 0.009 (found from nothing): step period {} √(l/g), multipliers {}",
                fmt_num(p.period),
                p.multipliers
                    .iter()
                    .filter(|z| z[0].hypot(z[1]) > 1e-6)
                    .map(|z| format!("{} {:+}i", fmt_num(z[0]), fmt_num(z[1])))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })),
    );
    Ok(())
}

/// The compass gait's basin between its first two doublings (issue #22, part 3): every start
/// that keeps walking settles on a period-2 orbit, as continuation and plain simulation say.
fn compass_basin(sec: &mut Section, opts: &Options, doc: &ModelDoc, slope: f64, x: &[f64]) -> Result<(), Error> {
    use crate::multibody::basin::{basin, BasinAxis, BasinSettings, Outcome};
    let m =
        crate::multibody::model::from_model(&doc.with_param(&crate::model::param::ParamKey::parse("slope")?, slope)?)?;
    let n = m.dof();
    if x.len() != 2 * n {
        return Err(Error::model("slope", "no period-1 state near the probe slope"));
    }
    let (th, w) = (x[2], x[n + 2]);
    let axes = [
        BasinAxis { name: "stance.theta".into(), lo: th - 0.1, hi: th + 0.1, n: 21 },
        BasinAxis { name: "stance.theta_dot".into(), lo: w - 0.5, hi: w + 0.5, n: 21 },
    ];
    let settings = BasinSettings { steps: 100, ..Default::default() };
    let b = basin(&m, &axes, Some((&x[..n], &x[n..])), &settings, &|_, _| {})?;
    let mut walking: Vec<String> = b
        .cells
        .iter()
        .filter(|c| matches!(c.outcome, Outcome::Gait(_) | Outcome::Period(_) | Outcome::Walking))
        .map(|c| c.outcome.label())
        .collect();
    walking.sort();
    walking.dedup();
    let share = b.fractions.iter().find(|f| f.0 == "period-2").map_or(0.0, |f| f.1);
    sec.rows.push(
        Row::exact(
            format!(
                "Compass gait at slope {} (between the first two doublings): where the starts of a 21 × 21 basin \
                 grid that keep walking settle",
                fmt_num(slope)
            ),
            "period-2",
            walking.join(", "),
            "continuation (the stable branch there is the doubled one) and plain simulation (row above)",
        )
        .with_note(format!(
            "{} of the cells settle on the period-2 orbit within 100 strikes; the others fall; the grid is centred \
             on the unstable period-1 gait",
            fmt_num(share)
        )),
    );
    b.figure(
        &format!("Compass gait at slope {}: basin of the period-2 gait (100 strikes)", fmt_num(slope)),
        &m.coordinates,
    )
    .save(&opts.out.join("beyond_compass_basin.png"))?;
    sec.figures.push(Figure {
        file: "beyond_compass_basin.png".into(),
        caption: format!(
            "`contactlab basin goswami-compass-gait.toml --state ... --vary stance.theta=... --vary \
             stance.theta_dot=... --steps 100` at slope {}: starts on the post-strike section around the unstable \
             period-1 gait (marked), each run for up to 100 strikes. The walking ones settle on the period-2 orbit.",
            fmt_num(slope)
        ),
    });
    Ok(())
}

/// The rimless wheel's basin over the post-strike spin rate (issue #22, part 3): the boundary
/// against the speed that vaults the stance spoke over the vertical.
pub(super) fn rimless_basin(sec: &mut Section) -> Result<(), Error> {
    use crate::multibody::basin::{basin, BasinAxis, BasinSettings, Outcome};
    let m = mechanism("rimless-wheel.toml", RIMLESS)?;
    // After a strike the stance spoke leans back by π/n − γ; with the pivot's moment of inertia
    // m l² (1 + κ) and g = 1 + κ (the file's units) the wheel passes the vertical iff
    // ½ (1 + κ) ω² > g (1 − cos(π/n − γ)), i.e. |ω| > 2 sin((π/n − γ)/2).
    let lean = std::f64::consts::PI / 10.0 - 10f64.to_radians();
    let critical = 2.0 * (0.5 * lean).sin();
    let a = BasinAxis { name: "wheel.theta_dot".into(), lo: -0.16, hi: -0.12, n: 201 };
    let width = (a.hi - a.lo) / (a.n - 1) as f64;
    // A start just above the vaulting speed creeps over the vertical slowly: a long step bound
    // keeps those starts from counting as stopped.
    let settings = BasinSettings { steps: 40, max_step_time: 40.0, ..Default::default() };
    let b = basin(&m, &[a], None, &settings, &|_, _| {})?;
    let walks = |c: &&crate::multibody::basin::BasinCell| c.outcome == Outcome::Gait(0);
    let first_walk = b.cells.iter().filter(walks).map(|c| -c.values[0]).fold(f64::INFINITY, f64::min);
    let last_fall = b.cells.iter().filter(|c| !walks(c)).map(|c| -c.values[0]).fold(0.0, f64::max);
    let wrong_side = b.cells.iter().filter(|c| walks(c) != (-c.values[0] > critical)).count();
    sec.rows.push(
        Row::number(
            "Rimless wheel (P2's, n = 10, 10° slope): basin boundary in the post-strike spin rate |ω| (√(g/l)), \
             midpoint of the last start that falls and the first that walks",
            critical,
            0.5 * (first_walk + last_fall),
            0.5 * width,
            "closed form: the stance spoke vaults over the vertical iff |ω| > 2 sin((π/n − γ)/2) (energy about the tip)",
        )
        .with_note(format!(
            "201 starts with |ω| from 0.12 to 0.16, 40 strikes each; {wrong_side} on the wrong side of the closed form; \
             above it every start is captured by the gait, below it the wheel rolls back and falls"
        )),
    );
    Ok(())
}

/// Garcia's simplest walker on Schwab and Wisse's plane (issue #22, part 3): the thin basin,
/// each sampled cell checked against plain simulation from its state.
pub(super) fn simplest_basin(sec: &mut Section, opts: &Options) -> Result<(), Error> {
    use crate::multibody::basin::{basin, cell_state, BasinAxis, BasinSettings, Outcome};
    let m = mechanism("simplest-walker.toml", SIMPLEST)?;
    let axes = [
        BasinAxis { name: "stance.theta".into(), lo: -0.3, hi: -0.1, n: 41 },
        BasinAxis { name: "stance.theta_dot".into(), lo: -0.3, hi: -0.15, n: 41 },
    ];
    let settings = BasinSettings { steps: 40, before_strike: true, ..Default::default() };
    let b = basin(&m, &axes, None, &settings, &|_, _| {})?;
    let period = b.plan.periods.first().copied().unwrap_or(f64::NAN);
    // Every captured cell and every 40th other one, simulated plainly for 50 step periods.
    let sample: Vec<&crate::multibody::basin::BasinCell> = b
        .cells
        .iter()
        .enumerate()
        .filter(|(i, c)| c.outcome == Outcome::Gait(0) || i % 40 == 0)
        .map(|(_, c)| c)
        .collect();
    use rayon::prelude::*;
    let agree: Vec<bool> = sample
        .par_iter()
        .map(|c| -> Result<bool, Error> {
            let Some(x) = cell_state(&m, &b.plan, &c.values)? else { return Ok(c.outcome == Outcome::NoState) };
            // The same integration tolerance: a cell on the (fractal) basin boundary may change
            // its fate with the tolerance; this checks the lift and the classification.
            let s = SimulateSettings { t_max: 50.0 * period, max_events: 10_000, rtol: settings.rtol, per_step: 1 };
            let sim = simulate(&m, &x[..4], &x[4..], &s)?;
            let t: Vec<f64> =
                sim.events.iter().filter(|e| e.contact.as_deref() == Some("swing foot")).map(|e| e.t).collect();
            let walks =
                t.len() >= 45 && t.windows(2).last().is_some_and(|w| (w[1] - w[0] - period).abs() < 1e-6 * period);
            Ok(walks == (c.outcome == Outcome::Gait(0)))
        })
        .collect::<Result<_, _>>()?;
    let captured = b.cells.iter().filter(|c| c.outcome == Outcome::Gait(0)).count();
    sec.rows.push(
        Row::exact(
            "Simplest walker (γ = 0.009) on Schwab & Wisse's plane: sampled basin cells whose outcome plain \
             simulation confirms (still walking at the gait's step period after 50 steps, or not)",
            format!("{} of {}", agree.len(), agree.len()),
            format!("{} of {}", agree.iter().filter(|&&a| a).count(), agree.len()),
            "`simulate` from each cell's state",
        )
        .with_note(format!(
            "{captured} of the {} cells (41 × 41, stance angle and rate just before heel strike) walk on; the \
             basin is a thin band, as Schwab & Wisse (2001) found at γ = 0.004. Both routes integrate at rtol = 1e-9; \
             at 1e-10 one sampled cell at the band's edge jams after two strikes instead of walking on (its fate \
             depends on the tolerance there)",
            b.cells.len()
        )),
    );
    b.figure("Simplest walker (γ = 0.009): basin of the gait just before heel strike (40 strikes)", &m.coordinates)
        .save(&opts.out.join("beyond_simplest_basin.png"))?;
    sec.figures.push(Figure {
        file: "beyond_simplest_basin.png".into(),
        caption: format!(
            "`contactlab basin simplest-walker.toml --before-strike --vary stance.theta=-0.3:-0.1:41 --vary \
             stance.theta_dot=-0.3:-0.15:41 --steps 40`: starts just before heel strike (both feet on the slope, \
             the swing leg's rate the gait's), so that after the strike they lie on the plane of states a strike \
             produces, Schwab & Wisse's (2001). {captured} starts walk on (the thin band through the gait, marked); \
             `painleve` marks runs that stopped with no consistent contact mode, here at strikes with the legs \
             together (the swing foot landing on the stance foot: a degenerate double contact of this idealised \
             model, whose feet weigh 1e-6 of the hip); at rtol = 1e-10 most of these starts fall instead. Either \
             way they do not walk."
        ),
    });
    Ok(())
}
