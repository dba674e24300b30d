//! Report section `P1`: Or & Várkonyi, planar body on two frictional contacts.
//!
//! The contact-mode structure of configurations A, B and D (Fig. 3) under the zero-order
//! dynamics, the Poincaré maps R and G with the stability theorems, the simulations of Fig. 4,
//! the atlas of Fig. 6 and G* of Fig. 9.

use super::{Options, ProgressFn};
use std::f64::consts::FRAC_PI_2;

use crate::plot::{CategoryMap, Mark, XyPlot};
use crate::report::{fmt_num, yes_no, Figure, Row, Section};
use crate::twocontact::atlas::{atlas, verdict_indices, Axis};
use crate::twocontact::classify::classify;
use crate::twocontact::classify::{Theorem, Verdict};
use crate::twocontact::modes::analyze;
use crate::twocontact::modes::{Mode, PointMode};
use crate::twocontact::nonlinear;
use crate::twocontact::plots::{displacement_plot, Displacement};
use crate::twocontact::poincare::sample;
use crate::twocontact::poincare::DEFAULT_SAMPLES;
use crate::twocontact::sim::{BodyEventKind, BodyOutcome, BodyTrajectory, SimSettings, SimState, Simulator};
use crate::twocontact::zod::Zod;
use crate::verified::ProofKind;
use crate::Error;

/// Section title.
pub const TITLE: &str = "Or & Várkonyi: planar body on two frictional contacts";

/// This section, for [`super::SECTIONS`].
pub const SECTION: super::SectionDef = super::SectionDef { id: "P1", title: TITLE, build: section };

pub use crate::paper_configs::p1::{config, CONFIGS};

/// Whether, along one line of the atlas, every stable cell lies beyond every reverse-chatter cell.
fn stable_beyond_unstable(line: impl Iterator<Item = Verdict>) -> bool {
    let (mut last_rc, mut first_st) = (None, None);
    for (k, v) in line.enumerate() {
        if v == Verdict::ReverseChatterUnstable {
            last_rc = Some(k);
        } else if v == Verdict::Stable && first_st.is_none() {
            first_st = Some(k);
        }
    }
    match (last_rc, first_st) {
        (Some(r), Some(s)) => r < s,
        _ => true,
    }
}

/// Builds the section.
pub fn section(opts: &Options, progress: &ProgressFn<'_>) -> Result<Section, Error> {
    let mut sec = Section::new(
        "P1",
        TITLE,
        "Configurations A, B, D of Fig. 3 (α = 25°, φ₁ = φ₂ = 0, μ = (0.315, 1)). Contact modes and their \
         consistency under the zero-order dynamics (eq. 16); SS consistency is decided over the whole \
         one-parameter family of forces by an LP. R(φ) and G(φ) from the exact event-driven ZOD on 2001 \
         samples, fixed points refined by bisection, verdicts by Theorems 1–5. The full nonlinear model (exact kinematics, same contact and impact laws) is drawn beside the ZOD in the Fig. 4 plots and compared at the fixed point of D.",
    );
    let steps: [super::RowGroup; 6] =
        [modes, maps_and_verdicts, atlas_fig6, sweep_fig9, zod_against_nonlinear, simulations_fig4];
    for (k, step) in steps.iter().enumerate() {
        progress("P1", k as u64, steps.len() as u64);
        step(&mut sec, opts)?;
    }
    progress("P1", steps.len() as u64, steps.len() as u64);
    Ok(sec)
}

/// The contact-mode structure of A, B, D at rest.
fn modes(sec: &mut Section, _opts: &Options) -> Result<(), Error> {
    let src = "P1 §III-E and Fig. 3";
    for (name, _, _, _) in CONFIGS.iter() {
        let p = config(name).expect("listed configuration");
        let eq = analyze(&Zod::new(&p)?)?;
        sec.rows.push(Row::exact(
            format!("config {name}: unambiguous frictional equilibrium"),
            "yes",
            yes_no(eq.equilibrium && !eq.ambiguous),
            src,
        ));
        sec.rows.push(Row::exact(
            format!("config {name}: Painlevé-free (non-Painlevé)"),
            "yes",
            yes_no(eq.painleve_free),
            "P1 §II: the analysis assumes it",
        ));
        let published = if *name == "A" { "yes" } else { "no" };
        sec.rows.push(Row::exact(
            format!("config {name}: persistent equilibrium"),
            published,
            yes_no(eq.persistent),
            src,
        ));
    }
    Ok(())
}

/// What a verdict's proof shows, for a report note.
fn proof_note(p: &crate::twocontact::proof::VerdictProof) -> String {
    if let Some(why) = &p.proof.proof_reason {
        return format!("not proved: {why}");
    }
    format!("proved: {}", p.shows().join("; "))
}

/// The Poincaré maps R and G of A, B, D, the verdicts by Theorems 1–5 and Fig. 3.
fn maps_and_verdicts(sec: &mut Section, opts: &Options) -> Result<(), Error> {
    let src = "P1 §III-E and Fig. 3";
    // Poincaré maps and verdicts.
    let mut maps = Vec::new();
    for (name, _, _, _) in CONFIGS.iter() {
        let p = config(name).expect("listed configuration");
        let c = classify(&p, DEFAULT_SAMPLES)?;
        let sim = Simulator::new(Zod::new(&p)?)?;
        let pts = sample(&sim, DEFAULT_SAMPLES)?;
        let (verdict, theorem) = match *name {
            "A" => (Verdict::Stable, "Theorem 3"),
            "B" => (Verdict::Stable, "Theorem 5"),
            _ => (Verdict::ReverseChatterUnstable, "Theorem 2"),
        };
        sec.rows.push(
            Row::exact(
                format!("config {name}: verdict and deciding theorem"),
                format!("{verdict} ({theorem})"),
                format!("{} ({})", c.verdict, c.theorem),
                src,
            )
            .with_note(c.evidence.clone()),
        );
        // The same verdict proved over every φ in interval arithmetic (issue #23): Theorems 2
        // and 3 are; Theorem 5 (B) rests on R's monotonicity between samples and is not.
        let proof = crate::twocontact::proof::prove_verdict(&p, &c);
        sec.rows.push(
            Row::exact(
                format!("config {name}: verdict proved in interval arithmetic ({theorem})"),
                "proved",
                if proof.proof.is_proved() { "proved" } else { "not proved" },
                src,
            )
            .with_note(proof_note(&proof)),
        );
        if *name != "A" {
            sec.rows.push(Row::exact(
                format!("config {name}: weakly persistent"),
                "yes",
                yes_no(c.weakly_persistent),
                "P1 §III-E, §IV",
            ));
            // R constant except near −π/2: where does R differ from R(0) by more than 1e-6?
            let r0 =
                pts.iter().min_by(|a, b| a.phi.abs().total_cmp(&b.phi.abs())).and_then(|q| q.r).unwrap_or(f64::NAN);
            let off: Vec<f64> =
                pts.iter().filter(|q| q.r.is_none_or(|r| (r - r0).abs() > 1e-6)).map(|q| q.phi).collect();
            let fraction = off.len() as f64 / pts.len() as f64;
            let all_low = off.iter().all(|&phi| phi < 0.0);
            sec.rows.push(
                Row::at_most(
                    format!("config {name}: fraction of (−π/2, π/2) where R differs from R(0) by > 1e-6 (R constant except near −π/2)"),
                    0.05,
                    if all_low { fraction } else { f64::INFINITY },
                    "P1 §III-E (qualitative; the 5 % bound for 'small' is ours)",
                )
                .with_note(if off.is_empty() {
                    format!("R(0) = {}; constant on every sample", fmt_num(r0))
                } else {
                    format!("R(0) = {}; non-constant for φ < {}", fmt_num(r0), fmt_num(off.iter().cloned().fold(f64::NEG_INFINITY, f64::max)))
                }),
            );
            sec.rows.push(Row::exact(
                format!("config {name}: fixed points of R (one, globally attracting)"),
                "1 attracting",
                format!(
                    "{} {}",
                    c.fixed_points.len(),
                    if c.fixed_points.iter().all(|f| f.attracting) { "attracting" } else { "not all attracting" }
                ),
                src,
            ));
        } else {
            let f = &c.fixed_points;
            let pattern = f.len() == 3
                && f[0].phi < 0.0
                && f[1].phi.abs() < 1e-6
                && f[2].phi > 0.0
                && !f[0].attracting
                && f[1].attracting
                && !f[2].attracting;
            sec.rows.push(
                Row::exact(
                    "config A: fixed points φ₁* < φ₂* = 0 < φ₃*, φ₁*, φ₃* repulsive, φ₂* attractive",
                    "yes",
                    yes_no(pattern),
                    src,
                )
                .with_note(
                    f.iter()
                        .map(|x| format!("φ* = {} (G* = {})", fmt_num(x.phi), fmt_num(x.g)))
                        .collect::<Vec<_>>()
                        .join(", "),
                ),
            );
            let ends = c.g_minus.is_some_and(|g| g < 1.0) && c.g_plus.is_some_and(|g| g < 1.0);
            sec.rows.push(Row::exact(
                "config A: endpoints ±π/2 attractive (R → ±π/2 with R' = G± < 1)",
                "yes",
                yes_no(ends),
                src,
            ));
            sec.rows.push(Row::at_most(
                "config A: max G(φ) (G < 1 everywhere)",
                1.0,
                c.max_g.unwrap_or(f64::INFINITY),
                src,
            ));
        }
        maps.push((name.to_string(), pts));
    }
    // B and D have nearly identical G maps (away from the singular endpoints).
    let (gb, gd) = (&maps[1].1, &maps[2].1);
    let rel = gb
        .iter()
        .zip(gd.iter())
        .filter(|(a, _)| a.phi.abs() <= 1.2)
        .filter_map(|(a, b)| Some((a.g? - b.g?).abs() / a.g?))
        .fold(0.0f64, f64::max);
    sec.rows.push(Row::at_most(
        "configs B, D: largest relative difference of G over |φ| ≤ 1.2 (nearly identical G maps)",
        0.05,
        rel,
        "P1 Fig. 3 caption (qualitative; the 5 % bound is ours; both G diverge at ±π/2)",
    ));
    let nan = |v: Option<f64>| v.unwrap_or(f64::NAN);
    let mut rp = XyPlot::new("P1 Fig. 3 (bottom): R(φ) for configurations A, B, D", "φ [rad]", "R(φ) [rad]");
    let mut gp = XyPlot::new("P1 Fig. 3 (bottom): G(φ) for configurations A, B, D", "φ [rad]", "G(φ) [–]");
    gp.log_y = true;
    for (name, pts) in &maps {
        rp = rp.add(format!("config {name}"), pts.iter().map(|q| (q.phi, nan(q.r))).collect(), Mark::Line);
        gp = gp.add(format!("config {name}"), pts.iter().map(|q| (q.phi, nan(q.g))).collect(), Mark::Line);
    }
    rp = rp.add("identity", vec![(-FRAC_PI_2, -FRAC_PI_2), (FRAC_PI_2, FRAC_PI_2)], Mark::Line);
    gp = gp.add("G = 1", vec![(-FRAC_PI_2, 1.0), (FRAC_PI_2, 1.0)], Mark::Line);
    rp.save(&opts.out.join("p1_fig3_R.png"))?;
    gp.save(&opts.out.join("p1_fig3_G.png"))?;
    sec.figures.push(Figure {
        file: "p1_fig3_R.png".into(),
        caption: "P1 Fig. 3 (bottom): reduced Poincaré maps R(φ) of configurations A, B, D.".into(),
    });
    sec.figures.push(Figure {
        file: "p1_fig3_G.png".into(),
        caption: "P1 Fig. 3 (bottom): growth maps G(φ) (log scale); B and D nearly coincide.".into(),
    });
    Ok(())
}

/// The Fig. 6-style atlas over the centre-of-mass position.
fn atlas_fig6(sec: &mut Section, opts: &Options) -> Result<(), Error> {
    // Fig. 6-style atlas over the CoM position (contacts fixed, ρ, μ, α of configuration B).
    let b = config("B").expect("B");
    let axes = [Axis::parse("com_x=-0.06:0.02:41")?, Axis::parse("com_z=0.08:0.2:31")?];
    let cells = atlas(&b, &axes, DEFAULT_SAMPLES, &|_, _| {})?;
    let (nx, ny) = (axes[0].n, axes[1].n);
    let verdict = |ix: usize, iy: usize| cells[iy * nx + ix].verdict;
    // Trend 1: along +x (each row), every stable cell lies downhill of every reverse-chatter cell.
    let x_trend = (0..ny).all(|iy| stable_beyond_unstable((0..nx).map(|ix| verdict(ix, iy))));
    // Trend 2: along +z (each column), every stable cell lies above every reverse-chatter cell.
    let z_trend = (0..nx).all(|ix| stable_beyond_unstable((0..ny).map(|iy| verdict(ix, iy))));
    let src6 = "P1 §V, Fig. 6: moving the CoM downhill (+x) or up (+z) increases stability";
    sec.rows.push(Row::exact(
        "Fig. 6 atlas: stable region downhill (+x) of the reverse-chatter region in every row",
        "yes",
        yes_no(x_trend),
        src6,
    ));
    sec.rows.push(Row::exact(
        "Fig. 6 atlas: stable region above (+z) the reverse-chatter region in every column",
        "yes",
        yes_no(z_trend),
        src6,
    ));
    let count = |v: Verdict| cells.iter().filter(|c| c.verdict == v).count();
    let bands = [Verdict::NoEquilibrium, Verdict::AmbiguousUnstable, Verdict::ReverseChatterUnstable, Verdict::Stable]
        .into_iter()
        .all(|v| count(v) > 0);
    sec.rows.push(
        Row::exact(
            "Fig. 6 atlas: all four regions {no equilibrium, ambiguous, reverse chatter, stable} present",
            "yes",
            yes_no(bands),
            "P1 Fig. 6",
        )
        .with_note(format!(
            "cells: {} no-equilibrium, {} ambiguous, {} reverse-chatter, {} stable, {} undetermined",
            count(Verdict::NoEquilibrium),
            count(Verdict::AmbiguousUnstable),
            count(Verdict::ReverseChatterUnstable),
            count(Verdict::Stable),
            count(Verdict::Undetermined)
        )),
    );
    CategoryMap {
        title: "P1 Fig. 6-style atlas: verdict over the CoM position (ρ, μ, α of configuration B)".into(),
        x_label: "CoM position downhill of contact 1, com_x [m]".into(),
        y_label: "CoM height above the contacts, com_z [m]".into(),
        xs: (0..nx).map(|k| axes[0].value(k)).collect(),
        ys: (0..ny).map(|k| axes[1].value(k)).collect(),
        cells: verdict_indices(&cells),
        legend: crate::twocontact::atlas::verdict_legend(),
        marks: vec![("B".into(), -b.l1, b.h), ("D".into(), -config("D").expect("D").l1, b.h)],
        paths: vec![],
    }
    .save(&opts.out.join("p1_fig6_atlas.png"))?;
    sec.figures.push(Figure {
        file: "p1_fig6_atlas.png".into(),
        caption: format!(
            "P1 Fig. 6 (theory part): verdict over the CoM position with the contacts fixed, {DEFAULT_SAMPLES} samples of \
             φ per cell; ρ, μ and α of configuration B (the experiments' ρ also changed with the weights). \
             Undetermined: {} cell(s) on the line l₂ = h, where the edge of contact 2's friction cone (μ₂ = 1, at \
             45°) passes through the centre of mass, so a mode's consistency is marginal (it depends on terms the \
             zero-order dynamics neglect; the grid's steps put cells exactly on that line), and {} cell(s) where no \
             theorem of P1 decides (neither weakly persistent nor with a fixed point of G above 1).",
            cells.iter().filter(|c| c.theorem == Theorem::Marginal).count(),
            cells.iter().filter(|c| c.verdict == Verdict::Undetermined && c.theorem != Theorem::Marginal).count()
        ),
    });
    // The proved layer (issue #23): which verdicts are proved for every φ in interval arithmetic.
    let (proved, sampled) = crate::twocontact::atlas::proof_counts(&cells);
    let proved_by =
        |t: Theorem| cells.iter().filter(|c| c.theorem == t && c.proof == Some(ProofKind::Interval)).count();
    CategoryMap {
        title: format!(
            "P1 Fig. 6-style atlas: verdicts proved in interval arithmetic ({proved} of {} cells)",
            cells.len()
        ),
        x_label: "CoM position downhill of contact 1, com_x [m]".into(),
        y_label: "CoM height above the contacts, com_z [m]".into(),
        xs: (0..nx).map(|k| axes[0].value(k)).collect(),
        ys: (0..ny).map(|k| axes[1].value(k)).collect(),
        cells: crate::twocontact::atlas::proof_indices(&cells),
        legend: crate::twocontact::atlas::proof_legend(),
        marks: vec![("B".into(), -b.l1, b.h), ("D".into(), -config("D").expect("D").l1, b.h)],
        paths: vec![],
    }
    .save(&opts.out.join("p1_fig6_atlas_proof.png"))?;
    sec.figures.push(Figure {
        file: "p1_fig6_atlas_proof.png".into(),
        caption: format!(
            "The Fig. 6-style atlas's proved layer: {proved} of {} cells have their verdict proved for every φ in interval \
             arithmetic ({} no equilibrium, {} by Theorem 1, {} by Theorem 2, {} by Theorem 3, {} by Theorem 4 or 4a, \
             {} by Theorem 5, where R is constant or else through a proved stable partition, as P1's proof of \
             Theorem 5 builds one); {sampled} are sampled only ({DEFAULT_SAMPLES} values of φ): the undetermined \
             cells, which have no theorem to prove, and any verdict whose proof could not close.",
            cells.len(),
            proved_by(Theorem::SsInconsistent),
            proved_by(Theorem::Theorem1),
            proved_by(Theorem::Theorem2),
            proved_by(Theorem::Theorem3),
            proved_by(Theorem::Theorem4) + proved_by(Theorem::Theorem4a),
            proved_by(Theorem::Theorem5),
        ),
    });
    Ok(())
}

/// The Fig. 9-style sweep of (G*)² along the centre-of-mass position.
fn sweep_fig9(sec: &mut Section, opts: &Options) -> Result<(), Error> {
    let b = config("B").expect("B");
    // Fig. 9-style sweep: (G*)² along com_x at B's height.
    let sweep = [Axis::parse("com_x=-0.04:0.0:81")?];
    let line = atlas(&b, &sweep, DEFAULT_SAMPLES, &|_, _| {})?;
    let crossing = line.windows(2).find_map(|w| match (w[0].g_star, w[1].g_star) {
        (Some(g0), Some(g1)) if (g0 - 1.0) * (g1 - 1.0) <= 0.0 => {
            Some(w[0].values[0] + (1.0 - g0) / (g1 - g0) * (w[1].values[0] - w[0].values[0]))
        }
        _ => None,
    });
    let (xd, xb) = (-config("D").expect("D").l1, -b.l1);
    sec.rows.push(
        Row::exact(
            "Fig. 9-style sweep: the stability limit (G*)² = 1 lies between the CoM positions of D (unstable) and B (stable)",
            "yes",
            yes_no(crossing.is_some_and(|c| c > xd && c < xb)),
            "P1 §III-E, Fig. 9: B stable, D unstable; they differ by the CoM position",
        )
        .with_note(format!("crossing at com_x = {} m; D at {xd} m, B at {xb} m (ρ of B)", crossing.map_or("none".into(), |c| format!("{c:.5}")))),
    );
    XyPlot {
        log_y: true,
        ..XyPlot::new(
            "P1 Fig. 9-style: (G*)² along the CoM position (configuration B's height and ρ)",
            "com_x [m]",
            "(G*)² [–]",
        )
        .add(
            "(G*)² (ZOD)",
            line.iter().map(|c| (c.values[0], c.g_star.map_or(f64::NAN, |g| g * g))).collect(),
            Mark::LinePoints,
        )
        .add("stability limit", vec![(-0.04, 1.0), (0.0, 1.0)], Mark::Line)
    }
    .save(&opts.out.join("p1_fig9_gstar.png"))?;
    sec.figures.push(Figure {
        file: "p1_fig9_gstar.png".into(),
        caption: "P1 Fig. 9 (theory curve): squared growth ratio (G*)² against the CoM position.".into(),
    });
    Ok(())
}

/// The zero-order dynamics against the full nonlinear model at the fixed point of D.
fn zod_against_nonlinear(sec: &mut Section, _opts: &Options) -> Result<(), Error> {
    // ZOD against the full nonlinear model (P1 §III-A: the ZOD suffices for local analysis).
    let pd = config("D").expect("D");
    let sd0 = Simulator::new(Zod::new(&pd)?)?;
    let quantity = "config D at φ*: the full nonlinear model's R, G approach the ZOD's as the perturbation δ shrinks";
    let source = "P1 §II/§III-A: the ZOD approximation suffices near the equilibrium";
    let Some(fp) = classify(&pd, DEFAULT_SAMPLES)?.fixed_points.first().map(|f| f.phi) else {
        sec.rows.push(
            Row::exact(quantity, "yes", "no fixed point", source)
                .with_note("the ZOD's map R has no fixed point for configuration D, so there is no φ* to compare at"),
        );
        return Ok(());
    };
    let z0 = crate::twocontact::poincare::return_map(&sd0, fp)?;
    let mut errs = Vec::new();
    for delta in [1e-2, 1e-3] {
        if let (Some(r0), Some(g0), Some((r, g))) =
            (z0.r, z0.g, crate::twocontact::nonlinear::return_map(&pd, fp, delta)?)
        {
            errs.push((delta, (r - r0).abs().max((g - g0).abs() / g0)));
        }
    }
    let shrinks = errs.len() == 2 && errs[1].1 < 0.2 * errs[0].1;
    sec.rows.push(
        Row::exact(quantity, "yes", yes_no(shrinks), source).with_note(
            std::iter::once(format!("φ* = {}", crate::report::fmt_num(fp)))
                .chain(errs.iter().map(|(d, e)| format!("δ = {d} m/s: max(|ΔR|, |ΔG|/G) = {e:.3e}")))
                .collect::<Vec<_>>()
                .join("; "),
        ),
    );
    Ok(())
}

/// The simulations of Fig. 4.
fn simulations_fig4(sec: &mut Section, opts: &Options) -> Result<(), Error> {
    // Fig. 4: time histories under the ZOD.
    let on_section = |phi: f64| SimState { q: [0.0; 3], qd: [0.0, -0.01, 0.01 * phi.tan()] };
    let sa = Simulator::new(Zod::new(&config("A").expect("A"))?)?;
    let unbounded = SimSettings { t_max: f64::INFINITY, ..Default::default() };
    let runs = [
        ("A", 0.5, sa.run(on_section(0.5), [true, false], &unbounded)?),
        ("A", 1.35, sa.run(on_section(1.35), [true, false], &unbounded)?),
    ];
    // After the impacts have died out (Zeno point, or the last impact), is there two-contact slip?
    let slip_after_zeno = |tr: &BodyTrajectory| {
        let last_impact = tr.events.iter().filter(|e| e.kind == BodyEventKind::Impact).map(|e| e.t).fold(0.0, f64::max);
        let tz = tr.zeno_times().first().copied().unwrap_or(last_impact);
        tr.phases.iter().any(|ph| {
            ph.t0 >= tz
                && ph.mode.0 != PointMode::F
                && ph.mode.1 != PointMode::F
                && ph.mode != Mode(PointMode::S, PointMode::S)
        })
    };
    // The impacts decay geometrically: Zeno point, or normal speeds down by 1e-6 at the last section crossing.
    let decays = |tr: &BodyTrajectory| {
        let sec_speeds: Vec<f64> = tr.events.iter().filter(|e| e.section).map(|e| e.before.qd[1].abs()).collect();
        !tr.zeno_times().is_empty() || sec_speeds.last().zip(sec_speeds.first()).is_some_and(|(l, f)| *l < 1e-6 * f)
    };
    let src4 = "P1 §III-E, Fig. 4";
    let (_, _, tr_a) = &runs[0];
    sec.rows.push(Row::exact(
        "config A from the section at φ = 0.5 (→ φ₂* = 0): decaying impacts (Zeno), then rest directly (Fig. 4a,d)",
        "decay, rest, no slip",
        format!(
            "{}, {}, {}",
            if decays(tr_a) { "decay" } else { "no decay" },
            if tr_a.outcome == BodyOutcome::Rest { "rest" } else { "no rest" },
            if slip_after_zeno(tr_a) { "slip" } else { "no slip" }
        ),
        src4,
    ));
    let (_, _, tr_b) = &runs[1];
    sec.rows.push(Row::exact(
        "config A from the section at φ = 1.35 (> φ₃*, → π/2): decaying impacts with finite slip, then two-contact slip to rest (Fig. 4b,e)",
        "decay, rest, slip",
        format!("{}, {}, {}", if decays(tr_b) { "decay" } else { "no decay" }, if tr_b.outcome == BodyOutcome::Rest { "rest" } else { "no rest" }, if slip_after_zeno(tr_b) { "slip" } else { "no slip" }),
        src4,
    ));
    let sd = Simulator::new(Zod::new(&config("D").expect("D"))?)?;
    let tr_d = sd.run(
        SimState { q: [0.0, 1e-4, 0.0], qd: [0.0; 3] },
        [true, false],
        &SimSettings { t_max: f64::INFINITY, diverge_ratio: 1e3, ..Default::default() },
    )?;
    let pts: Vec<usize> =
        tr_d.events.iter().filter(|e| e.kind == BodyEventKind::Impact).filter_map(|e| e.point).collect();
    let alternating = pts.windows(2).filter(|w| w[0] != w[1]).count() as f64 / (pts.len().max(2) - 1) as f64;
    sec.rows.push(
        Row::exact(
            "config D after lifting point 2 by 0.1 mm: diverges by reverse chatter (Fig. 4c,f)",
            "diverged",
            crate::output::kebab(&tr_d.outcome),
            src4,
        )
        .with_note(format!(
            "{} impacts, {:.0} % of consecutive impacts alternate between the feet",
            pts.len(),
            100.0 * alternating
        )),
    );
    let pa = config("A").expect("A");
    for (k, (name, phi, tr)) in runs.iter().enumerate() {
        let file = format!("p1_fig4_{}_{}.png", name, ["a", "b"][k]);
        // The full nonlinear model from the same state (its step budget ends the decaying tail).
        let st = on_section(*phi);
        let nl = nonlinear::simulate(
            &pa,
            sa.body_velocity(&st.q),
            sa.body_velocity(&st.qd),
            [true, false],
            usize::MAX,
            &nonlinear::NonlinearSettings::default(),
        )?;
        let title = format!("P1 Fig. 4: config {name}, start on the section at φ = {phi}");
        displacement_plot(&title, tr, Some(&nl), Displacement::Normal, 0.2 * tr.t_end.max(1e-3))
            .save(&opts.out.join(&file))?;
        sec.figures.push(Figure { file, caption: format!("P1 Fig. 4: normal displacements of configuration {name} from the section at φ = {phi}: the full nonlinear model (thick, z₁ blue, z₂ vermillion) and the zero-order dynamics (dashed black) on top of it; dots mark the impacts of the zero-order dynamics and the black square its Zeno point.") });
    }
    // The growth of the impact sequence (P1 Fig. 4c): each impact's pre-impact normal speed over
    // the first one's, on a log scale.
    let impacts: Vec<&crate::twocontact::sim::BodyEvent> =
        tr_d.events.iter().filter(|e| e.kind == BodyEventKind::Impact && e.point.is_some()).collect();
    let speed = |e: &crate::twocontact::sim::BodyEvent| e.before.qd[e.point.unwrap_or(0)].abs();
    let v0 = impacts.first().map_or(1.0, |e| speed(e)).max(crate::numeric::SCALE_FLOOR);
    let mut growth = XyPlot::new(
        "P1 Fig. 4c: config D after lifting point 2 by 0.1 mm (reverse chatter)",
        "impact number",
        "pre-impact normal speed / first impact's [–]",
    );
    growth.log_y = true;
    for foot in 0..2 {
        let pts = impacts
            .iter()
            .enumerate()
            .filter(|(_, e)| e.point == Some(foot))
            .map(|(k, e)| ((k + 1) as f64, speed(e) / v0))
            .collect();
        growth = growth.add_colored(format!("impact at point {}", foot + 1), pts, Mark::Points, foot);
    }
    growth.save(&opts.out.join("p1_fig4_D.png"))?;
    let ratio = impacts.last().map_or(1.0, |e| speed(e)) / v0;
    sec.figures.push(Figure {
        file: "p1_fig4_D.png".into(),
        caption: format!(
            "P1 Fig. 4c: reverse chatter of configuration D (zero-order dynamics) after lifting point 2 by 0.1 mm: \
             the pre-impact normal speed of each of the {} impacts relative to the first, on a log scale. The \
             impacts alternate between the feet and grow geometrically (by G* per return to the section) until \
             the run stops at {} times the first speed, where the perturbation is no longer small.",
            impacts.len(),
            fmt_num(ratio)
        ),
    });
    Ok(())
}
