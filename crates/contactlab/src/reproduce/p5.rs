//! P5 (van de Wouw & Leine): the rod on two frictional sliders, its equilibrium sets, Theorem 1
//! for E1 with a numerical `c*`, Theorem 2 for E2, the phase portrait (Fig. 3); and the
//! time-stepping core against the event-driven one.

use super::{Options, ProgressFn};
use crate::eqset::{self, plots, Analysis, EqsetSettings, PortraitSettings, SetReport, Theorem1};
use crate::mechanics::sliders::{RodTwoSliders, SlidingBlock};
use crate::report::{fmt_num, yes_no, Figure, Row, Section, Table};
use crate::timestep::{bilateral, observed_order};
use crate::Error;

/// Section title.
pub const TITLE: &str =
    "van de Wouw & Leine: attractivity and instability of equilibrium sets under set-valued friction";

/// This section, for [`super::SECTIONS`].
pub const SECTION: super::SectionDef = super::SectionDef { id: "P5", title: TITLE, build: section };

const SRC: &str = "P5 Section IV";

/// The rod of P5 Fig. 1 and its analysis (sets and theorems), computed once for the row groups.
struct Rod {
    rod: RodTwoSliders,
    settings: EqsetSettings,
    analysis: Analysis,
    /// `θ̂` of P5 (22), the published half width of each set.
    th: f64,
}

impl Rod {
    fn analyze() -> Result<Self, Error> {
        let rod = RodTwoSliders::paper();
        let settings = EqsetSettings::for_system(&rod);
        let analysis = eqset::analyze(&rod, &settings)?;
        let th = rod.theta_hat().ok_or_else(|| Error::Numerical("P5: θ̂ undefined for μ₁μ₂ ≥ 1".into()))?;
        Ok(Rod { rod, settings, analysis, th })
    }
    /// E1, around `θ = 0` (there are two sets when the row groups run).
    fn e1(&self) -> &SetReport {
        &self.analysis.sets[0]
    }
    /// E2, around `θ = π`.
    fn e2(&self) -> &SetReport {
        &self.analysis.sets[1]
    }
    /// Theorem 1 for E1.
    fn t1(&self) -> Result<&Theorem1, Error> {
        self.e1().theorem1.as_ref().ok_or_else(|| Error::Numerical("P5: Theorem 1 not applied to E1".into()))
    }
}

/// Builds the section.
pub fn section(opts: &Options, progress: &ProgressFn<'_>) -> Result<Section, Error> {
    let mut sec = Section::new(
        "P5",
        TITLE,
        "The rod of P5 Fig. 1 (m = 1, J_S = 1/3, l = 1, μ₁ = μ₂ = 0.3, g = 10) with the normal forces of its \
         sliders from Newton's law for the centre of mass, so that they depend on the motion and on the friction \
         forces themselves (eq. (19) at rest), and Coulomb's law with |λ_N| (eq. (3)). The equilibrium set (5) is \
         found by scanning θ over one period with an exact membership test (the generalized force in the image of \
         the admissible friction forces, one convex piece per sign pattern of λ_N) and bisecting each end to \
         round-off; it is not taken from eq. (22). Theorem 1's five conditions are checked on samples; c* is the \
         largest level of V = T + U whose sublevel set around E1 stays in Q and reaches no other equilibrium set, \
         found from the potential along θ (not from eq. (23)). Theorem 2 is checked with P5's V of eq. (24). The \
         phase portrait and the basin come from the Moreau–Jean time-stepping of the same model (stick phases \
         exact, so runs come to rest exactly).",
    );
    let steps: [super::RowGroupWith<Rod>; 6] =
        [sets, theorem1_e1, theorem2_e2, fig3_and_basin, order_against_event_driven, order_against_closed_form];
    let total = steps.len() as u64 + 1;
    progress("P5", 0, total);
    let rod = Rod::analyze()?;
    sec.rows.push(Row::exact("Number of equilibrium sets for μ₁μ₂ < 1", "2", rod.analysis.sets.len().to_string(), SRC));
    // Without the two sets the section stops here, the time-stepping rows included.
    if rod.analysis.sets.len() == 2 {
        for (k, step) in steps.iter().enumerate() {
            progress("P5", k as u64 + 1, total);
            step(&mut sec, opts, &rod)?;
        }
    }
    progress("P5", total, total);
    Ok(sec)
}

/// E1 and E2 against eq. (22), and their merging when μ₁μ₂ ≥ 1.
fn sets(sec: &mut Section, _opts: &Options, r: &Rod) -> Result<(), Error> {
    let (e1, e2, th) = (r.e1(), r.e2(), r.th);
    let pi = std::f64::consts::PI;
    sec.rows.push(
        Row::number("Half width θ̂ of E1 (rad)", th, e1.half_width, 1e-9, "P5 eq. (22)")
            .with_note("published: θ̂ = arctan(2μ₂/(1 − μ₁μ₂)) evaluated; computed: the ends found by bisection"),
    );
    sec.rows.push(Row::number("Half width θ̂ of E2 (rad)", th, e2.half_width, 1e-9, "P5 eq. (22)"));
    sec.rows.push(Row::number("Centre of E1 (rad)", 0.0, e1.center, 1e-9, "P5 eq. (22)"));
    sec.rows.push(Row::number("Centre of E2, |θ| (rad)", pi, e2.center.abs(), 1e-9, "P5 eq. (22)"));
    // Merging.
    let merged = |p: f64| -> Result<bool, Error> {
        let r = RodTwoSliders { mu1: p / 0.8, mu2: 0.8, ..r.rod };
        let s = EqsetSettings { grid: 400, ..EqsetSettings::for_system(&r) };
        let sets = eqset::equilibrium_sets(&r, s.q_min, s.q_max, s.grid)?;
        Ok(sets.len() == 1 && sets[0].whole)
    };
    let merge_ok = merged(1.0)? && merged(1.5)? && merged(4.0)? && !merged(0.99)?;
    sec.rows.push(
        Row::exact("The sets merge into one (every θ) when μ₁μ₂ ≥ 1", "yes", yes_no(merge_ok), SRC).with_note(
            "μ₂ = 0.8 and μ₁μ₂ = 1, 1.5, 4: one set covering the circle; μ₁μ₂ = 0.99: two sets. The admissible \
             friction forces are bounded exactly when the spectral radius √(μ₁μ₂) of diag(μ)|K| is below one",
        ),
    );
    Ok(())
}

/// Theorem 1 for E1: its conditions and c* against eq. (23).
fn theorem1_e1(sec: &mut Section, _opts: &Options, r: &Rod) -> Result<(), Error> {
    let (rod, th) = (&r.rod, r.th);
    let mgl = rod.mass * rod.gravity * rod.l;
    let e1 = r.e1();
    let t1 = r.t1()?;
    sec.rows.push(Row::exact("E1 is attractive (Theorem 1)", "yes", yes_no(e1.attractive == Some(true)), SRC));
    for (k, c) in &t1.conditions {
        sec.rows.push(
            Row::exact(
                format!("Theorem 1, condition {k}, for E1"),
                "holds",
                if c.holds { "holds" } else { "fails" },
                SRC,
            )
            .with_note(c.detail.clone()),
        );
    }
    let eq23 = rod.c_star_eq23();
    let corrected = mgl * (1.0 + th.cos());
    let corrected_agrees = (t1.c_star - corrected).abs() <= 1e-9 * mgl;
    let printed = Row::number("c* of E1 (eq. (23) as printed)", eq23, t1.c_star, 1e-6 * mgl, "P5 eq. (23)");
    sec.rows.push(printed.erratum_if(
        corrected_agrees,
        format!(
            "eq. (23) gives m g l (1 − cos θ̂) = {}, which is U(θ̂), the largest value of V on E1 itself: with it the \
             open set V < c* would not contain E1 (condition 5 fails) and would lie far from E2, whereas the text \
             says c* is chosen so that the closure of the level set touches E2 and calls V < c* a fairly good \
             estimate of E1's basin (Fig. 3). The level set touches E2 at its tips π ∓ θ̂, where \
             V = U(π − θ̂) = m g l (1 + cos θ̂) = {}: eq. (23) with the sign of its fraction flipped. The numerical \
             c* (the mountain pass of U from E1 to E2, below the edge of 𝒰 at U(π) = {}) is {}",
            fmt_num(eq23),
            fmt_num(corrected),
            fmt_num(2.0 * mgl),
            fmt_num(t1.c_star)
        ),
    )?);
    sec.rows.push(
        Row::number(
            "c* of E1 = m g l (1 + cos θ̂) (eq. (23) with the sign corrected)",
            corrected,
            t1.c_star,
            1e-9 * mgl,
            "P5 eq. (23), corrected",
        )
        .with_note(format!("c* limited by {}", t1.c_star_limited_by)),
    );
    Ok(())
}

/// Theorem 2 for E2, with V of eq. (24).
fn theorem2_e2(sec: &mut Section, _opts: &Options, r: &Rod) -> Result<(), Error> {
    let e2 = r.e2();
    sec.rows.push(Row::exact(
        "E2 is unstable, by statement 3 of Theorem 2 with V of (24)",
        "Theorem 2, statement 3",
        e2.theorem.clone(),
        SRC,
    ));
    if let Some(t2) = &e2.theorem2 {
        sec.tables.push(Table {
            caption: "Theorem 2 for E2 with V = −½(J_S + m l²)θ̇² + m g l (1 + cos θ) (eq. (24)).".into(),
            header: vec!["hypothesis or statement".into(), "holds".into(), "what was checked".into()],
            rows: t2
                .hypotheses
                .iter()
                .map(|(k, c)| vec![k.clone(), yes_no(c.holds).into(), c.detail.clone()])
                .chain(
                    t2.statements
                        .iter()
                        .map(|(k, c)| vec![format!("statement {k}"), yes_no(c.holds).into(), c.detail.clone()]),
                )
                .collect(),
        });
    }
    Ok(())
}

/// Fig. 3 and the basin found by time-stepping, against the estimate V < c*.
fn fig3_and_basin(sec: &mut Section, opts: &Options, r: &Rod) -> Result<(), Error> {
    let rod = &r.rod;
    let t1 = r.t1()?;
    let ps = PortraitSettings::for_system(rod);
    let p = eqset::portrait(rod, &r.analysis, &r.settings, &ps)?;
    plots::portrait(
        rod,
        &r.analysis.sets,
        Some(t1),
        &p.trajectories,
        p.window_q,
        ("θ", "rad"),
        "P5 Fig. 3: phase plane of the rod, the sets and V = c*",
    )
    .save(&opts.out.join("p5_fig3.png"))?;
    sec.figures.push(Figure {
        file: "p5_fig3.png".into(),
        caption: format!(
            "P5 Fig. 3: time-stepping trajectories (h = {} s) of the rod, E1 (blue) and E2 (red) as thick segments on \
             θ̇ = 0 and the level set V = c* = {} (dashed), whose closure touches E2's tips.",
            fmt_num(ps.h),
            fmt_num(t1.c_star)
        ),
    });
    if let Some((_, b)) = &p.basin {
        plots::basin_map(rod, b, t1, ("θ", "rad"), "P5: where each initial state comes to rest")
            .save(&opts.out.join("p5_basin.png"))?;
        sec.figures.push(Figure {
            file: "p5_basin.png".into(),
            caption: format!(
                "The basin found by time-stepping a {g} × {g} grid of initial states for up to {} steps: blue runs \
                 come to rest in E1, red ones in E2 (the thick stable manifold of E2), with V = c* (dashed).",
                ps.steps,
                g = ps.grid
            ),
        });
        sec.rows.push(
            Row::exact(
                "V < c* is a conservative estimate of E1's basin (Fig. 3)",
                "yes",
                yes_no(b.estimate_elsewhere == 0 && b.estimate_converges == 1.0),
                SRC,
            )
            .with_note(format!(
                "{} of the {}-state grid lies in V < c* and all of it comes to rest in E1; the estimate covers {} of \
                 the basin found ({} of the grid)",
                fmt_num(b.share_in_estimate),
                b.starts.len(),
                fmt_num(b.estimate_of_basin),
                fmt_num(b.share_per_set[0])
            )),
        );
        sec.rows.push(
            Row::exact(
                "E2 attracts a bundle of solutions with non-empty interior (thick stable manifold, Fig. 3)",
                "yes",
                yes_no(b.share_per_set.get(1).is_some_and(|&s| s > 0.0)),
                SRC,
            )
            .with_note(format!(
                "{} of the grid comes to rest in E2",
                fmt_num(b.share_per_set.get(1).copied().unwrap_or(0.0))
            )),
        );
        sec.tables.push(Table {
            caption: "Where the grid of initial states comes to rest (time-stepping).".into(),
            header: vec!["set".into(), "share of the grid".into()],
            rows: b
                .share_per_set
                .iter()
                .enumerate()
                .map(|(k, s)| vec![format!("E{}", k + 1), fmt_num(*s)])
                .chain([vec!["still moving".into(), fmt_num(b.share_moving)]])
                .collect(),
        });
    }
    Ok(())
}

/// The time-stepping core against the event-driven one on P1's configurations A and D, with
/// the table of errors.
fn order_against_event_driven(sec: &mut Section, _opts: &Options, _r: &Rod) -> Result<(), Error> {
    let mut order_rows = Vec::new();
    let steps: Vec<usize> = (0..9).map(|k| 100 << k).collect();
    for (config, windows, what) in
        [("A", 6.0, "chatter decaying to rest (Zeno point)"), ("D", 12.0, "reverse chatter growing")]
    {
        let p1 = super::p1::config(config)
            .ok_or_else(|| Error::argument("config", format!("P1 configuration {config} is not listed")))?;
        let (h, e) = crate::twocontact::nonlinear::time_stepping_errors(&p1, 1e-4, windows, &steps)?;
        let order = observed_order(&h, &e);
        sec.rows.push(
            Row::number(
                format!("Time-stepping → event-driven, P1 configuration {config} ({what}): observed order"),
                1.0,
                order,
                0.15,
                "Moreau–Jean scheme (P5 ref. [3])",
            )
            .with_note(format!(
                "point 2 lifted by 10⁻⁴ m, over {windows} fall times; mean distance of (z₁, z₂, x₁, x₂)/δ from {} \
                 (h = {} s) to {} (h = {} s), slope fitted over the 9 steps",
                fmt_num(e[0]),
                fmt_num(h[0]),
                fmt_num(e[e.len() - 1]),
                fmt_num(h[h.len() - 1])
            )),
        );
        order_rows.push(
            [format!("P1 config {config}"), format!("{windows} fall times")]
                .into_iter()
                .chain(e.iter().map(|x| fmt_num(*x)))
                .chain([fmt_num(order)])
                .collect(),
        );
    }
    sec.tables.push(Table {
        caption: "Time-stepping against the event-driven core: mean distance of the contact coordinates over the \
                  window (in units of the lift δ), for 100·2ᵏ steps, k = 0..8, and the fitted order."
            .into(),
        header: ["system", "window"]
            .into_iter()
            .map(String::from)
            .chain(steps.iter().map(|m| format!("{m} steps")))
            .chain(["order".to_string()])
            .collect(),
        rows: order_rows,
    });
    Ok(())
}

/// The friction oscillator against its closed form, a slip reversal at the middle of a step.
fn order_against_closed_form(sec: &mut Section, _opts: &Options, _r: &Rod) -> Result<(), Error> {
    let block = SlidingBlock { mass: 1.5, stiffness: 20.0, gravity: 9.81, mu: 0.25 };
    let osc = block.on_floor();
    let (d, t_half) = (block.band(), osc.half_period());
    let x0 = 4.4 * d;
    let mut hs = Vec::new();
    let mut es = Vec::new();
    for m in [250usize, 500, 1000, 2000] {
        let h = t_half / (m as f64 + 0.5);
        let n = (2.7 * t_half / h) as usize;
        let tr = bilateral::run(&block, &nalgebra::Vector1::new(x0), &nalgebra::Vector1::zeros(), h, n, 1)?;
        let err = tr.t.iter().zip(&tr.q).map(|(t, q)| (q[0] - osc.position(x0, *t)).abs()).fold(0.0, f64::max);
        hs.push(h);
        es.push(err / d);
    }
    let order = observed_order(&hs, &es);
    sec.rows.push(
        Row::number(
            "Bilateral time-stepping → closed form, friction oscillator through stick–slip: observed order",
            1.0,
            order,
            0.15,
            "Moreau–Jean scheme (P5 ref. [3])",
        )
        .with_note("largest error over 2.7 half periods (4.4 bands to rest at 0.4 bands), slip reversal mid-step"),
    );
    Ok(())
}
