//! P2 (Or): Painlevé's paradox and dynamic jamming in the rimless wheel and the compass biped.

use nalgebra::DVector;

use super::{Options, ProgressFn};
use crate::mechanics::walkers::{CompassBiped, RimlessWheel};
use crate::multibody::gait::GaitSettings;
use crate::plot::{Mark, XyPlot};
use crate::report::{fmt_num, yes_no, Figure, Row, Section, Table};
use crate::walking::model::WalkerModel;
use crate::walking::painleve::{b_at, b_negative_intervals, compass_rho_max, mu_min};
use crate::walking::plots;
use crate::walking::slip::{jam_threshold, jams_on_grid, slip, SlipEnd};
use crate::walking::{
    gait, rimless_closed_form, slip_in_walker_coordinates, MultibodyWalker, WalkerChart, WalkerGait, WalkerSettings,
};
use crate::Error;

/// Section title.
pub const TITLE: &str = "Or: Painlevé's paradox and dynamic jamming in passive walkers";

/// This section, for [`super::SECTIONS`].
pub const SECTION: super::SectionDef = super::SectionDef { id: "P2", title: TITLE, build: section };

/// What several row groups of the section use, computed once.
struct Shared {
    s: WalkerSettings,
    /// The rimless wheel (P2 eq. 23), and its multibody model (on which the analyses run).
    w: RimlessWheel,
    wm: MultibodyWalker,
    /// The ends of its `B < 0` interval of `θ` (σ = +1).
    lo: f64,
    hi: f64,
    /// The closed-form gait rate (27) and the gait.
    rate: f64,
    g: WalkerGait,
    /// The jamming slip of Fig. 3.2 (in P2's coordinates, as the slips below).
    jam: SlipEnd,
    /// The compass biped (P2 eq. 35), its multibody model and its gait.
    cb: CompassBiped,
    cbm: MultibodyWalker,
    gc: WalkerGait,
    /// Its μ_min and the ρ where B < 0 vanishes at μ = 0.8.
    mmc: f64,
    ra: f64,
    /// Whether the gait starts inside B < 0.
    in_b_neg: bool,
    /// The slips S1 and S2 of Fig. 4.2.
    s1: SlipEnd,
    s2: SlipEnd,
}

impl Shared {
    fn find() -> Result<Self, Error> {
        let s = WalkerSettings::default();
        let w = RimlessWheel::paper(0.35);
        let wm = MultibodyWalker::new(&WalkerModel::Rimless(w))?;
        let iv = b_negative_intervals(&wm, 0.35, 1.0, -w.half_angle(), w.half_angle(), 401);
        let (lo, hi) = iv.first().map_or((f64::NAN, f64::NAN), |v| (v[0], v[1]));
        let (_, rate) = rimless_closed_form(&w);
        let gs = GaitSettings::default();
        let g = gait(&WalkerModel::Rimless(w), Some(&DVector::from_element(1, rate)), &gs)?;
        let slip = |w: &MultibodyWalker, q: &[f64], v: &[f64]| {
            let (q, v) = w.system_state(q, v);
            slip_in_walker_coordinates(w, slip(w, &q, &v, &s))
        };
        let jam = slip(&wm, &[0.0, 0.0, -0.3], &[0.5, 0.0, 0.643]);
        let cb = CompassBiped::paper(0.7);
        let cbm = MultibodyWalker::new(&WalkerModel::Compass(cb))?;
        let gc = gait(&WalkerModel::Compass(cb), Some(&DVector::from_vec(vec![-0.15, 0.7, -0.5])), &gs)?;
        let mmc = mu_min(&cbm, 1.0, -1.5, 1.5, 121).map_or(f64::NAN, |m| m.mu_min);
        // ρ = √(I_c/m) at which B < 0 vanishes for μ = 0.8: bisection on μ_min(ρ) = 0.8.
        let ra = compass_rho_max(&cb, 0.8, 1.0)?.unwrap_or(f64::NAN);
        let y = &gc.section_point;
        let in_b_neg = b_at(&cbm, &[y[0], y[0]], 0.7, 1.0) < 0.0;
        let s1 = slip(&cbm, &[-0.2953, -0.5247, 0.0, 0.0], &[0.0, 0.0, 10.0, 0.0]);
        let s2 = slip(&cbm, &[-0.5461, 0.6860, 0.0, 0.0], &[0.0, 0.0, 10.0, 0.0]);
        Ok(Shared { s, w, wm, lo, hi, rate, g, jam, cb, cbm, gc, mmc, ra, in_b_neg, s1, s2 })
    }
}

const SRC3: &str = "P2 Section 3";
const SRC4: &str = "P2 Section 4";

/// Builds the section.
pub fn section(opts: &Options, progress: &ProgressFn<'_>) -> Result<Section, Error> {
    let mut sec = Section::new(
        "P2",
        TITLE,
        "The rimless wheel (P2 eq. 23: κ = 0.02, α = 10°, n = 10, μ = 0.35, time in units of τ_c) and the compass \
         biped (eq. 35: l = 0.8, m = 4, m_h = 2, α = 1°, I_c = 0, g = 9.8) written as contact systems on the hybrid \
         core: stick, slip, separation and heel strike with P2's plastic impact law at the swing foot, then the \
         legs relabelled. Gaits are fixed points of the step-to-step map (Newton); μ_stick is the largest |f_t/f_n| \
         of the sticking forces (5) along the gait, the impulse ratio that of (13) at heel strike. A and B are \
         evaluated from (21) for any walker, and B < 0 regions, μ_min and ρ are found numerically (grid and \
         refinement). A slip episode is integrated until the slip stops, the foot separates, the swing foot lands, \
         or B reaches 0 with A > 0. Near B = 0 the slip is integrated in time rescaled by B (Génot and Brogliato's \
         regularisation dt = (B/B₀) ds), in which the pole of f_n = A/B is a regular point and P2's corner p₁ \
         (A = B = 0) a set of equilibria: a jam is a slip that reaches p₁ still slipping (f_n unbounded, Definition \
         1), one that stops slipping first sticks or reverses, and where A and B vanish at comparable rates the \
         trend of the force decides (d ln A / d ln B above 1: A vanishes first, a separation). Note: the rimless wheel's B printed in (31)–(32) \
         is κ times the B of (21) (the Schur complement of the hub block is m l² κ); the factor is positive, so \
         Table 2.1, (33) and (34) stand, but f_n = A/B needs the B of (21), which is what is used here.",
    );
    let steps: [super::RowGroupWith<Shared>; 7] = [
        rimless_rows,
        rimless_mu_c,
        rimless_figures,
        compass_rows,
        compass_gait_figures,
        compass_slip_figures,
        compass_regions,
    ];
    let total = steps.len() as u64 + 1;
    progress("P2", 0, total);
    let shared = Shared::find()?;
    for (k, step) in steps.iter().enumerate() {
        progress("P2", k as u64 + 1, total);
        step(&mut sec, opts, &shared)?;
    }
    progress("P2", total, total);
    Ok(sec)
}

/// The rimless wheel's μ_min, B < 0 interval, gait, jamming slip and its threshold.
fn rimless_rows(sec: &mut Section, _opts: &Options, sh: &Shared) -> Result<(), Error> {
    let (w, s, lo, hi, g, rate, jam) = (sh.w, sh.s, sh.lo, sh.hi, &sh.g, sh.rate, &sh.jam);
    let mm = mu_min(&sh.wm, 1.0, -1.5, 1.5, 301).map_or(f64::NAN, |m| m.mu_min);
    sec.rows.push(
        Row::number("Rimless wheel: μ_min for Painlevé's paradox (eq. 33)", 0.286, mm, 5e-4, SRC3)
            .with_note("minimum of d/(σc) over θ; the closed form 2√(κ + κ²) = 0.285657"),
    );
    sec.rows.push(Row::number("Rimless wheel: B < 0 for θ from (σ = +1, eq. 34)", -0.2644, lo, 5e-5, SRC3));
    sec.rows.push(Row::number("Rimless wheel: B < 0 for θ up to", -0.0723, hi, 5e-5, SRC3));
    sec.rows.push(
        Row::number("Rimless wheel: μ_stick along the gait (eq. 29)", 0.32, g.mu_stick, 5e-3, SRC3).with_note(format!(
            "gait θ̇* = {} /τ_c (closed form (27): {}), multiplier {}",
            fmt_num(g.section_point[0]),
            fmt_num(rate),
            fmt_num(g.multipliers.first().map_or(f64::NAN, |z| z[0].hypot(z[1])))
        )),
    );
    // The same gait proved in interval arithmetic (issue #23): existence, uniqueness, the
    // multiplier inside the unit circle and μ_stick enclosed; an unproved gait prints NaN.
    let p = crate::walking::proof::prove_rimless_gait(&w, g.section_point[0]);
    let (beta, _) = rimless_closed_form(&w);
    let proved_mu = p.mu_stick.filter(|_| p.proof.is_proved()).map_or(f64::NAN, |m| m[1]);
    let b = |x: Option<[f64; 2]>| x.unwrap_or([f64::NAN; 2]);
    let ([r0, r1], [m0, m1], [s0, s1], [_, i1]) = (b(p.rate), b(p.multiplier), b(p.mu_stick), b(p.impulse_ratio));
    sec.rows.push(
        Row::number("Rimless wheel: μ_stick along the gait, proved upper bound (interval arithmetic)", 0.32, proved_mu, 5e-3, SRC3)
            .with_note(match &p.proof.proof_reason {
                None => format!(
                    "proved: the sticking gait exists and is the only one among post-impact rates; θ̇* in [{:.15}, {:.15}] /τ_c, \
                     multiplier in [{:.13}, {:.13}] (β² = {}), μ_stick in [{:.8}, {:.8}] ({} θ-intervals), heel-strike |F_t/F_n| ≤ {:.8}",
                    r0,
                    r1,
                    m0,
                    m1,
                    fmt_num(beta * beta),
                    s0,
                    s1,
                    p.pieces,
                    i1
                ),
                Some(why) => format!("not proved: {why}"),
            }),
    );
    sec.rows.push(
        Row::exact(
            "Rimless wheel from θ = −0.3, θ̇ = 0.643, ẋ = 0.5: dynamic jamming at p₁ (A = B = 0)",
            "jam",
            crate::output::kebab(&jam.outcome),
            SRC3,
        )
        .with_note(format!(
            "ends at θ = {} (θ₁ = {}); in time rescaled by B (Génot–Brogliato) the slip converges to p₁ still \
             slipping (ẋ = {}), the force unbounded: A ∝ B^s with s = {} over the last two decades of B (the \
             node's eigenvalue ratio λ = 2κ / (tan θ₁ (sin 2θ₁ + μ cos 2θ₁)) = {})",
            fmt_num(jam.state[2]),
            fmt_num(lo),
            fmt_num(jam.approach.as_ref().map_or(f64::NAN, |a| a.slip_speed)),
            fmt_num(jam.approach.as_ref().and_then(|a| a.exponent).map_or(f64::NAN, |e| e.0)),
            fmt_num(2.0 * w.kappa / (lo.tan() * ((2.0 * lo).sin() + w.mu * (2.0 * lo).cos())))
        )),
    );
    let (q, v) = sh.wm.system_state(&[0.0, 0.0, -0.3], &[0.0, 0.0, 0.643]);
    let thr = jam_threshold(&sh.wm, &q, &v, &sh.wm.slip_direction(), 5.0, 1e-5, &s).unwrap_or(f64::NAN);
    sec.rows.push(Row::number("Rimless wheel: smallest ẋ(0) that jams", 0.405, thr, 5e-4, SRC3));
    Ok(())
}

/// μ_c = (2/√3) μ_min, the smallest μ at which slips jam.
fn rimless_mu_c(sec: &mut Section, _opts: &Options, sh: &Shared) -> Result<(), Error> {
    let (w, s) = (sh.w, sh.s);
    // μ_c = (2/√3) μ_min: the smallest μ at which any slip from a 12 × 12 grid of starts left of
    // θ₁ (ẋ(0) = 5) jams, by bisection.
    let any_jam = |mu: f64| {
        let Ok(wm) = MultibodyWalker::new(&WalkerModel::Rimless(RimlessWheel::paper(mu))) else { return false };
        let t1 = b_negative_intervals(&wm, mu, 1.0, -1.2, 1.2, 2001).first().map_or(f64::NAN, |v| v[0]);
        let start = |th: f64, rate: f64| wm.system_state(&[0.0, 0.0, th], &[5.0, 0.0, rate]);
        jams_on_grid(&wm, start, t1, 0.3, 1.2, 12, &s) > 0
    };
    let mu_c = 2.0 / 3f64.sqrt() * 2.0 * (w.kappa + w.kappa * w.kappa).sqrt();
    let (mlo, mhi) = (0.9 * mu_c, 1.1 * mu_c);
    let mhi = if !any_jam(mlo) && any_jam(mhi) {
        // 14 halvings of the bracket.
        let tol = crate::numeric::Tol::abs((mhi - mlo) * 2f64.powi(-14));
        crate::numeric::bisect(mlo, mhi, tol, |m| crate::numeric::side_if(any_jam(m))).hi
    } else {
        f64::NAN
    };
    sec.rows.push(
        Row::number("Rimless wheel: smallest μ at which slips jam, μ_c = (2/√3) μ_min", mu_c, mhi, 1e-3, SRC3)
            .with_note(
                "P2's formula evaluated at κ = 0.02; computed: bisection on μ for any jam among 144 slipping starts \
             (θ₀ up to 0.3 left of θ₁, θ̇₀ in (0, 1.2), ẋ₀ = 5); a jam is an arrival at p₁, in time rescaled by B, \
             still slipping, with f_n = A/B growing (d ln A / d ln B < 1)",
            ),
    );
    Ok(())
}

/// Figs. 3.1(b), 3.2(a), 3.2(b).
fn rimless_figures(sec: &mut Section, opts: &Options, sh: &Shared) -> Result<(), Error> {
    let (w, s, g, jam) = (sh.w, sh.s, &sh.g, &sh.jam);
    // Fig. 3.1(b) and Fig. 3.2(a).
    plots::gait_phase(
        &sh.wm,
        &g.section_point,
        &[(2, "θ")],
        &s,
        "P2 Fig. 3.1(b): rimless wheel gait (sticking)",
        &opts.out.join("p2_fig3_1b.png"),
    )?;
    sec.figures.push(Figure {
        file: "p2_fig3_1b.png".into(),
        caption: "P2 Fig. 3.1(b) (for κ = 0.02, α = 10°, n = 10): one step of the sticking gait in (θ, θ̇), from \
                  θ = −π/n to the heel strike at θ = π/n."
            .into(),
    });
    let jam_path: Vec<(f64, f64)> = jam.trace.iter().map(|p| (p.1[2], p.2[2])).collect();
    plots::rimless_regions(
        &w,
        1.0,
        Some(g.section_point[0]),
        &[("jamming trajectory", jam_path)],
        &s,
        &opts.out.join("p2_fig3_2a.png"),
    )?;
    sec.figures.push(Figure {
        file: "p2_fig3_2a.png".into(),
        caption:
            "P2 Fig. 3.2(a): the boundaries A = 0 and B = 0 of the regions R₁–R₄ in (θ, θ̇); B < 0 between the two \
                  vertical lines (R₃ above A = 0, R₄ below), the sticking gait, and the jamming trajectory from \
                  θ = −0.3, θ̇ = 0.643, ẋ = 0.5 running into p₁."
                .into(),
    });
    XyPlot::new("P2 Fig. 3.2(b): normal force along the jamming trajectory", "θ (rad)", "f_n (m l/τ_c²)")
        .add("f_n", jam.trace.iter().map(|p| (p.1[2], p.3)).collect(), Mark::Line)
        .save(&opts.out.join("p2_fig3_2b.png"))?;
    sec.figures.push(Figure {
        file: "p2_fig3_2b.png".into(),
        caption: format!(
            "P2 Fig. 3.2(b): the normal force f_n = A/B along the slip from θ = −0.3 as θ → θ₁ = {}: it reaches {} and \
             the slip ends in {} (P2: f_n grows without bound, dynamic jamming).",
            fmt_num(sh.lo),
            fmt_num(jam.fn_max),
            crate::output::kebab(&jam.outcome)
        ),
    });
    Ok(())
}

/// The compass biped's gait, μ_stick, impulse ratio, μ_min, ρ, and the slips S1 and S2.
fn compass_rows(sec: &mut Section, _opts: &Options, sh: &Shared) -> Result<(), Error> {
    let (gc, mmc, ra, in_b_neg, s1, s2) = (&sh.gc, sh.mmc, sh.ra, sh.in_b_neg, &sh.s1, &sh.s2);
    let y = &gc.section_point;
    for (name, p, c) in [("θ₁*", -0.148, y[0]), ("θ̇₁*", 0.733, y[1]), ("θ̇₂*", -0.501, y[2])] {
        sec.rows.push(Row::number(format!("Compass biped gait: {name}"), p, c, 5e-4, SRC4));
    }
    sec.rows.push(Row::number("Compass biped: μ_stick along the gait", 0.175, gc.mu_stick, 5e-4, SRC4));
    sec.rows.push(Row::number("Compass biped: |R̄| at heel strike", 0.145, gc.impact_impulse_ratio, 5e-4, SRC4));
    sec.rows.push(Row::number(
        "Compass biped: μ_min (numerical; P2 calls a closed form open)",
        0.5533,
        mmc,
        5e-5,
        SRC4,
    ));
    sec.rows.push(Row::number("Compass biped: ρ where B < 0 vanishes at μ = 0.8", 0.4617, ra, 5e-5, SRC4));
    sec.rows.push(Row::exact("Compass biped, μ = 0.7: the gait starts inside B < 0", "yes", yes_no(in_b_neg), SRC4));
    sec.rows.push(Row::exact("Compass biped S1 ends in", "separation", crate::output::kebab(&s1.outcome), SRC4));
    sec.rows.push(Row::exact("Compass biped S2 ends in", "jam", crate::output::kebab(&s2.outcome), SRC4));
    Ok(())
}

/// Figs. 4.1(b), (c), (d): the compass biped's gait and its force ratio.
fn compass_gait_figures(sec: &mut Section, opts: &Options, sh: &Shared) -> Result<(), Error> {
    let (gc, s) = (&sh.gc, sh.s);
    let y = &gc.section_point;
    // Fig. 4.1(b) and Fig. 4.2(a).
    plots::gait_phase(
        &sh.cbm,
        y,
        &[(0, "θ₁"), (1, "θ₂")],
        &s,
        "P2 Fig. 4.1(b): compass biped gait (sticking)",
        &opts.out.join("p2_fig4_1b.png"),
    )?;
    sec.figures.push(Figure {
        file: "p2_fig4_1b.png".into(),
        caption:
            "P2 Fig. 4.1(b): one step of the compass biped's sticking gait in the (θᵢ, θ̇ᵢ) planes; the relabelling \
                  at heel strike closes the cycle."
                .into(),
    });
    // Fig. 4.1(c): the gait in (θ₁, θ₂) with the scuffing region |θ₂| < |θ₁|; (d): R = f_t/f_n.
    let cstep = crate::walking::step_trajectory(&sh.cbm, &DVector::from_vec(y.clone()), &s);
    let edge = y[0].abs() * 1.6;
    XyPlot::new("P2 Fig. 4.1(c): compass biped gait in (θ₁, θ₂)", "θ₁ (rad)", "θ₂ (rad)")
        .add("gait", cstep.iter().map(|p| (p.1[0], p.1[1])).collect(), Mark::Line)
        .add("θ₂ = θ₁ (heel strike)", vec![(-edge, -edge), (edge, edge)], Mark::Dashed)
        .add(
            "θ₂ = −θ₁ (|θ₂| < |θ₁| between: swing foot below the slope)",
            vec![(-edge, edge), (edge, -edge)],
            Mark::Dashed,
        )
        .save(&opts.out.join("p2_fig4_1c.png"))?;
    let ratio = crate::walking::stick_force_ratio(&sh.cbm, &cstep);
    let (ft, fn_) = {
        let pre = &gc.pre_impact_state;
        let (q, v) = sh.cbm.system_state(&pre[..4], &pre[4..]);
        crate::walking::sticking_impulse(&sh.cbm, &q, &v)
    };
    XyPlot::new("P2 Fig. 4.1(d): force ratio along the gait", "time t (s)", "R = f_t / f_n")
        .add("R(t) (sticking forces, eq. 5)", ratio, Mark::Line)
        .add("impulse ratio at heel strike (eq. 13)", vec![(gc.period, ft / fn_)], Mark::Squares)
        .save(&opts.out.join("p2_fig4_1d.png"))?;
    sec.figures.push(Figure {
        file: "p2_fig4_1c.png".into(),
        caption:
            "P2 Fig. 4.1(c): the gait in the (θ₁, θ₂) plane; between the dashed lines the swing foot is below the \
                  slope (scuffing, ignored as in P2)."
                .into(),
    });
    sec.figures.push(Figure {
        file: "p2_fig4_1d.png".into(),
        caption:
            "P2 Fig. 4.1(d): the ratio of tangential to normal stance force along the gait (μ_stick = max |R|) and \
                  the impulse ratio at heel strike (square)."
                .into(),
    });
    Ok(())
}

/// Figs. 4.2(a), (b), (c): the region B < 0 with the gait, the slips S1 and S2 and their forces.
fn compass_slip_figures(sec: &mut Section, opts: &Options, sh: &Shared) -> Result<(), Error> {
    let (cb, gc, s, in_b_neg, s1, s2) = (sh.cb, &sh.gc, sh.s, sh.in_b_neg, &sh.s1, &sh.s2);
    let y = &gc.section_point;
    // Fig. 4.2(a): the region B < 0 with the gait and the starts of S1 and S2.
    let (s1_start, s2_start) = ((-0.2953, -0.5247), (-0.5461, 0.6860));
    plots::compass_b_map_with(
        &cb,
        1.0,
        vec![plots::gait_path(&cb, y, &s)?],
        vec![("S1 start".into(), s1_start.0, s1_start.1), ("S2 start".into(), s2_start.0, s2_start.1)],
        "P2 Fig. 4.2(a): B < 0 at μ = 0.7 (σ = +1)",
        &opts.out.join("p2_fig4_2a.png"),
    )?;
    sec.figures.push(Figure {
        file: "p2_fig4_2a.png".into(),
        caption: format!(
            "P2 Fig. 4.2(a): the region B < 0 in (θ₁, θ₂) for μ = 0.7 and forward slip, with one step of the sticking \
             gait ({}) and the starts of the slip trajectories S1 and S2.",
            if in_b_neg { "it starts inside the region" } else { "it starts outside the region" }
        ),
    });
    // Fig. 4.2(b): the slip trajectories S1 and S2 towards the region B < 0.
    let outcome = |e: &crate::walking::slip::SlipEnd| crate::output::kebab(&e.outcome);
    let slip_path = |e: &crate::walking::slip::SlipEnd, name: &str| crate::plot::MapPath {
        label: format!("{name}: {}", outcome(e)),
        points: e.trace.iter().map(|p| (p.1[0], p.1[1])).collect(),
    };
    plots::compass_b_map_with(
        &cb,
        1.0,
        vec![slip_path(s1, "S1"), slip_path(s2, "S2")],
        vec![],
        "P2 Fig. 4.2(b): slip trajectories S1 and S2 (μ = 0.7, σ = +1)",
        &opts.out.join("p2_fig4_2b.png"),
    )?;
    sec.figures.push(Figure {
        file: "p2_fig4_2b.png".into(),
        caption: format!(
            "P2 Fig. 4.2(b): the forward-slip trajectories S1 (θ(0) = ({}, {})) and S2 (({}, {})), ẋ(0) = 10, over \
             the region B < 0: S1 ends in {} (A = {}, B = {} at its end), S2 in {} (A = {}, B = {}); P2: S1 \
             separates, S2 jams.",
            fmt_num(s1_start.0),
            fmt_num(s1_start.1),
            fmt_num(s2_start.0),
            fmt_num(s2_start.1),
            outcome(s1),
            fmt_num(s1.a_end),
            fmt_num(s1.b_end),
            outcome(s2),
            fmt_num(s2.a_end),
            fmt_num(s2.b_end),
        ),
    });
    let fn_t = |e: &crate::walking::slip::SlipEnd| e.trace.iter().map(|p| (p.0, p.3)).collect::<Vec<_>>();
    let mut fig = XyPlot::new("P2 Fig. 4.2(c): normal force along S1 and S2", "time t (s)", "f_n (N)");
    fig.log_y = true;
    fig.add(format!("S1 ({})", outcome(s1)), fn_t(s1), Mark::Line)
        .add(format!("S2 ({})", outcome(s2)), fn_t(s2), Mark::Line)
        .save(&opts.out.join("p2_fig4_2c.png"))?;
    sec.figures.push(Figure {
        file: "p2_fig4_2c.png".into(),
        caption: format!(
            "P2 Fig. 4.2(c): f_n(t) along S1 (largest {}, ends in {}) and S2 (largest {}, ends in {}), log scale; P2: \
             the force drops to zero along S1 and grows without bound along S2.",
            fmt_num(s1.fn_max),
            outcome(s1),
            fmt_num(s2.fn_max),
            outcome(s2)
        ),
    });
    Ok(())
}

/// Figs. 4.2(e), (f): the region B < 0 for several μ and ρ, and μ_min against ρ.
fn compass_regions(sec: &mut Section, opts: &Options, sh: &Shared) -> Result<(), Error> {
    let (cb, mmc, ra) = (sh.cb, sh.mmc, sh.ra);
    // Fig. 4.2(e, f): the region B < 0 for several μ, and for several ρ at μ = 0.8.
    plots::compass_nested(
        &cb,
        1.0,
        &[0.6, 0.7, 0.8, 0.9, 1.0],
        &[],
        "P2 Fig. 4.2(e): B < 0 for several μ (σ = +1, I_c = 0)",
        &opts.out.join("p2_fig4_2e.png"),
    )?;
    plots::compass_nested(
        &CompassBiped { mu: 0.8, ..cb },
        1.0,
        &[],
        &[0.0, 0.1, 0.2, 0.3, 0.4],
        "P2 Fig. 4.2(f): B < 0 for several ρ = √(I_c/m) (σ = +1, μ = 0.8)",
        &opts.out.join("p2_fig4_2f.png"),
    )?;
    sec.figures.push(Figure {
        file: "p2_fig4_2e.png".into(),
        caption: format!(
            "P2 Fig. 4.2(e): the region B < 0 shrinks as μ decreases and vanishes at the computed μ_min = {} \
             (P2: 0.5533).",
            fmt_num(mmc)
        ),
    });
    sec.figures.push(Figure {
        file: "p2_fig4_2f.png".into(),
        caption: format!(
            "P2 Fig. 4.2(f): at μ = 0.8 the region shrinks as the legs' radius of gyration ρ grows and vanishes at \
             the computed ρ = {} (P2: 0.4617).",
            fmt_num(ra)
        ),
    });
    // μ_min against ρ (the B < 0 region exists for μ above the curve).
    let curve = plots::compass_mu_min_curve(&cb, 1.0, 1.0, &opts.out.join("p2_fig4_2ef.png"))?;
    sec.figures.push(Figure {
        file: "p2_fig4_2ef.png".into(),
        caption: "Figs. 4.2(e, f) in one curve: the smallest μ at which B < 0 appears, against the legs' radius of \
                  gyration ρ; the regions above vanish on this curve."
            .into(),
    });
    sec.tables.push(Table {
        caption: "Compass biped: μ_min against ρ = √(I_c/m).".into(),
        header: vec!["ρ (m)".into(), "μ_min".into()],
        rows: curve.iter().map(|(r, m)| vec![fmt_num(*r), fmt_num(*m)]).collect(),
    });
    Ok(())
}
