//! Report section `P4`: Pang & Trinkle, stability of fixtured bodies.
//!
//! Example 1 (disk on two fixels at θ₁ = π/4, θ₂ = 2.5π/4, R = √2, m = 1) and Example 2 (block on
//! an incline), recomputed with the fixture analyses of [`crate::fixture`].

use nalgebra::DVector;

use super::{Options, ProgressFn};
use crate::fixture::cones;
use crate::fixture::stability::{classify, critical_mu, weak_stability};
use crate::fixture::theorem4::{decide, m_hat, proposition5_load, theorem4};
use crate::fixture::{Fixture, FrictionLaw};
use crate::report::{fmt_num, Figure, Row, Section, Table};
use crate::Error;

/// Section title.
pub const TITLE: &str = "Pang & Trinkle: weak, strong and frictionless stability of fixtured bodies";

/// A vector as `(a, b, c)` with six decimals.
fn fmt_v(v: &DVector<f64>) -> String {
    format!("({})", v.iter().map(|x| format!("{x:.6}")).collect::<Vec<_>>().join(", "))
}

/// This section, for [`super::SECTIONS`].
pub const SECTION: super::SectionDef = super::SectionDef { id: "P4", title: TITLE, build: section };

pub use crate::paper_configs::p4::*;

const PI: f64 = std::f64::consts::PI;

/// Common friction coefficient from which every load is weakly stable (WS(μ) = ℝ³): the largest
/// critical μ over the loads ±eᵢ (a convex cone containing ±eᵢ is all of ℝ³).
pub fn force_closure_mu() -> Result<f64, Error> {
    let mut worst: f64 = 0.0;
    for i in 0..3 {
        for sgn in [1.0, -1.0] {
            let mut g = [0.0; 3];
            g[i] = sgn;
            let m = critical_mu(&disk(0.0, 0.0, g), 1e3)?.unwrap_or(f64::INFINITY);
            worst = worst.max(m);
        }
    }
    Ok(worst)
}

/// Angular growth of the `g₃ = 0` slice of WS(μ₁, μ₂) beyond the cone of the radii (Fig. 6):
/// `(growth below θ₁, growth above θ₂)` in radians.
pub fn slice_growth(mu1: f64, mu2: f64) -> Result<(f64, f64), Error> {
    let ws = |phi: f64| weak_stability(&disk(mu1, mu2, [phi.cos(), phi.sin(), 0.0])).map(|w| w.holds);
    let edge = |inside: f64, outside: f64| -> Result<f64, Error> {
        // 60 halvings of the bracket.
        let tol = crate::numeric::Tol::abs((outside - inside).abs() * 2f64.powi(-60));
        Ok(crate::numeric::bisect(inside, outside, tol, |m| crate::numeric::side_if(!ws(m).unwrap_or(false))).lo)
    };
    let mid = 0.5 * (THETA.0 + THETA.1);
    let lo = edge(mid, THETA.0 - PI / 2.0)?;
    let hi = edge(mid, THETA.1 + PI / 2.0)?;
    Ok((THETA.0 - lo, hi - THETA.1))
}

fn count_consistent(mu: f64) -> Result<(usize, usize, usize), Error> {
    let f = disk(mu, mu, [0.0; 3]);
    let mut f = f;
    f.friction = FrictionLaw::Pyramid;
    let t = theorem4(&f, &|_, _| {})?;
    let total: usize = t.per_sigma.iter().map(|p| p.2).sum();
    let s11 = t.per_sigma[0].2;
    Ok((total, s11, t.systems))
}

/// Builds the section.
pub fn section(opts: &Options, progress: &ProgressFn<'_>) -> Result<Section, Error> {
    let mut sec = Section::new(
        "P4",
        TITLE,
        "Example 1: uniform disk (m = 1, R = √2, so 𝓜 = I) touching two fixels at θ₁ = π/4, θ₂ = 2.5π/4. \
         Example 2: block on an incline (matrices as printed). Weak stability is system (7) (an LP in the \
         plane), strong stability maximises the body acceleration over the solution set of the pyramid \
         LCP (25) by branch and bound (the tests check it against enumerating every piece), Theorem 4 decides the 2²·15 systems (32)–(35) by a search over γ \
         (an infeasible relaxation settles every system below it). Sign \
         convention: moments counter-clockwise positive, tangent = normal turned +90°, which gives P4's \
         printed W_t (moment row −R). The figures show the cones WS(μ), WS(0) and WU_R(μ) of external loads \
         on the unit sphere and their g₃ = 0 slice, as in P4 Figs. 3–8.",
    );
    let steps: [super::RowGroup; 10] = [
        matrix_a,
        case1,
        case2,
        slice_fig6,
        theorem4_rows,
        printed_solution,
        vector_b_and_load,
        own_proposition5,
        example2,
        figures,
    ];
    for (k, step) in steps.iter().enumerate() {
        progress("P4", k as u64, steps.len() as u64);
        step(&mut sec, opts)?;
    }
    progress("P4", steps.len() as u64, steps.len() as u64);
    Ok(sec)
}

/// r and s read off the computed matrix A.
fn matrix_a(sec: &mut Section, _opts: &Options) -> Result<(), Error> {
    let src1 = "P4 Example 1";
    // r, s, r/(1-s) from the computed A matrix.
    let (r, s) = r_s();
    sec.rows.push(Row::number("Ex. 1: r = sin(θ₂ − θ₁) (entry A_{n2,t1})", 0.9239, r, 5e-5, src1));
    sec.rows.push(Row::number("Ex. 1: s = cos(θ₂ − θ₁) (entry A_{n1,n2})", 0.3827, s, 5e-5, src1));
    sec.rows.push(Row::number("Ex. 1: r / (1 − s)", 1.4966, r / (1.0 - s), 5e-5, src1));
    Ok(())
}

/// Case 1: force closure from a common μ.
fn case1(sec: &mut Section, _opts: &Options) -> Result<(), Error> {
    // Case 1: WS(μ) = ℝ³ iff min μ > r/(1 − s).
    let fc = force_closure_mu()?;
    sec.rows.push(Row::number(
        "Ex. 1 Case 1: smallest common μ with WS(μ) = ℝ³ (critical μ of ±eᵢ by bisection)",
        1.4966,
        fc,
        5e-5,
        "P4 Example 1, Case 1",
    ));
    Ok(())
}

/// Case 2: the printed formula against the LP.
fn case2(sec: &mut Section, _opts: &Options) -> Result<(), Error> {
    // Case 2 formula against the LP.
    let loads = sphere_loads(2000);
    let (mu1, mu2) = (1.8, 0.5);
    let (mut agree_derived, mut agree_printed, mut n_ws) = (0usize, 0usize, 0usize);
    for g in &loads {
        let lp = weak_stability(&disk(mu1, mu2, *g))?.holds;
        n_ws += usize::from(lp);
        agree_derived += usize::from(lp == case2_from_12_15(mu1, mu2, *g));
        agree_printed += usize::from(lp == case2_printed(mu1, mu2, *g));
    }
    sec.rows.push(
        Row::exact(
            "Ex. 1 Case 2 (μ = (1.8, 0.5)): loads where the bounds of (12)–(15) agree with LP (7), of 2000",
            "2000",
            agree_derived.to_string(),
            "P4 inequalities (12)–(15)",
        )
        .with_note(format!("{n_ws} of the 2000 unit loads are weakly stable")),
    );
    let printed_row = Row::exact(
        "Ex. 1 Case 2 (μ = (1.8, 0.5)): loads where the printed max/min formula agrees with LP (7), of 2000",
        "2000",
        agree_printed.to_string(),
        "P4 Example 1, Case 2 formula",
    );
    sec.rows.push(printed_row.erratum_if(
        agree_derived == loads.len(),
        format!(
            "The printed formula disagrees with the LP on {} loads while the bounds on c₂t derived from the paper's own \
             (12)–(15) agree on all: its first max term should use (13)'s numerator −(r + μ₁s)g₃/R, and the right-hand \
             side should read min(Y/(r − μ₂(1−s)), ·) with the lower bound −Y/(r + μ₂(1−s)) moved to the max \
             (Y = −μ₂g₁ sin θ₁ + μ₂g₂ cos θ₁ − μ₂g₃/R).",
            loads.len() - agree_printed
        ),
    )?);
    Ok(())
}

/// Figure 6: how the g₃ = 0 slice grows with μ.
fn slice_fig6(sec: &mut Section, _opts: &Options) -> Result<(), Error> {
    // Figure 6: growth of the g3 = 0 slice.
    let (glo, ghi) = slice_growth(1.8, 0.5)?;
    sec.rows.push(
        Row::number(
            "Fig. 6: growth of the g₃ = 0 slice of WS(1.8, 0.5) beyond the radii cone (rad)",
            0.08,
            glo + ghi,
            0.005,
            "P4 Example 1, text of Fig. 6",
        )
        .with_note(format!("below θ₁: {}, above θ₂: {}", fmt_num(glo), fmt_num(ghi))),
    );
    Ok(())
}

/// Theorem 4: the systems (32)–(35) over μ.
fn theorem4_rows(sec: &mut Section, _opts: &Options) -> Result<(), Error> {
    let (r, s) = r_s();
    // Theorem 4: all 60 systems inconsistent for μ ≤ 1.4966.
    let mut t4 = Table {
        caption: "Theorem 4 on the disk (pyramid law, μ₁ = μ₂ = μ): consistent systems (32)–(35).".into(),
        header: vec!["μ".into(), "consistent, all σ_t".into(), "consistent, σ_t = (1, 1)".into(), "systems".into()],
        rows: vec![],
    };
    let mut all_incons = true;
    for mu in [0.0, 0.2, 0.5, 1.0, 1.4, 1.4966] {
        let (tot, s11, n) = count_consistent(mu)?;
        all_incons &= tot == 0;
        t4.rows.push(vec![fmt_num(mu), tot.to_string(), s11.to_string(), n.to_string()]);
    }
    sec.rows.push(Row::exact(
        "Theorem 4: all 60 systems inconsistent for μ ∈ {0, 0.2, 0.5, 1, 1.4, 1.4966}",
        "yes",
        if all_incons { "yes" } else { "no" },
        "P4 Example 1 (final analysis)",
    ));
    let mu_stated = 0.1 + r / (1.0 - s);
    let mu_used = 0.01 + r / (1.0 - s);
    let (tot_a, s11_a, _) = count_consistent(mu_stated)?;
    let (tot_b, s11_b, _) = count_consistent(mu_used)?;
    t4.rows.push(vec![
        format!("{} (= 0.1 + r/(1−s))", fmt_num(mu_stated)),
        tot_a.to_string(),
        s11_a.to_string(),
        "60".into(),
    ]);
    t4.rows.push(vec![
        format!("{} (= 0.01 + r/(1−s))", fmt_num(mu_used)),
        tot_b.to_string(),
        s11_b.to_string(),
        "60".into(),
    ]);
    sec.rows.push(Row::exact(
        "Theorem 4 at μ = 0.1 + r/(1−s), σ_t = (1, 1): consistent systems of 15",
        "7",
        s11_a.to_string(),
        "P4 Example 1 (final analysis)",
    ));
    sec.tables.push(t4);
    Ok(())
}

/// The printed solution v and the μ it belongs to.
fn printed_solution(sec: &mut Section, _opts: &Options) -> Result<(), Error> {
    let (r, s) = r_s();
    let mu_stated = 0.1 + r / (1.0 - s);
    let mu_used = 0.01 + r / (1.0 - s);
    // The printed solution v and the value of μ it belongs to.
    let pv = DVector::from_row_slice(&PUBLISHED_V);
    let margin = |mu: f64| {
        let mut f = disk(mu, mu, [0.0; 3]);
        f.friction = FrictionLaw::Pyramid;
        let mh = m_hat(&f, &[1.0, 1.0], &[]);
        let w = -(mh * &pv);
        let fric = (0..2).all(|i| 2.0 * mu * pv[i] >= pv[2 + i]);
        (w.min(), fric)
    };
    let (m_stated, _) = margin(mu_stated);
    let (m_used, fric_used) = margin(mu_used);
    let implied_mu = -(-234.46950) / PUBLISHED_V[0];
    sec.rows.push(
        Row::exact(
            "Printed v (γ = {1,2,3,4}, σ_t = (1,1)) solves (32)–(35) at the stated μ = 0.1 + r/(1−s)",
            "yes",
            if m_stated > 0.0 { "yes" } else { "no" },
            "P4 Example 1 (final analysis)",
        )
        .erratum_if(
            m_used > 0.0 && fric_used,
            format!(
                "At μ = {} the smallest entry of −M̂v is {} < 0, so v violates (32); at μ = 0.01 + r/(1−s) = {} it is {} > 0 \
             (friction rows hold: {}), and the printed c_t = v_t − μc_n = (−234.46950, 233.81593) implies μ = {}: the \
             example was computed with μ = r/(1−s) + 0.01.",
            fmt_num(mu_stated),
            fmt_num(m_stated),
            fmt_num(mu_used),
            fmt_num(m_used),
            fric_used,
            fmt_num(implied_mu)
            ),
        )?,
    );
    sec.rows.push(Row::exact(
        "Theorem 4 at μ = 0.01 + r/(1−s), σ_t = (1, 1): consistent systems of 15",
        "7",
        count_consistent(mu_used)?.1.to_string(),
        "P4 Example 1 (final analysis), with the μ the printed numbers imply",
    ));
    Ok(())
}

/// The vector b and the published Proposition 5 load.
fn vector_b_and_load(sec: &mut Section, _opts: &Options) -> Result<(), Error> {
    let (r, s) = r_s();
    let mu_used = 0.01 + r / (1.0 - s);
    // The vector b and the published load.
    let g = PUBLISHED_LOAD;
    let b_ours = disk(mu_used, mu_used, g).b_vector();
    let b_flip = disk_flipped(mu_used, mu_used, g).b_vector();
    let pb = DVector::from_row_slice(&PUBLISHED_B);
    let b_row = Row::exact(
        "b = 𝒥ᵀg_ext for the printed load, with the printed W_t (moment row −R)",
        fmt_v(&pb),
        fmt_v(&b_ours),
        "P4 Example 1 (final analysis)",
    );
    sec.rows.push(b_row.erratum_if(
        (&b_flip - &pb).amax() < 5e-6,
        format!(
            "With W_t's moment row −R as printed (and as 'positive c_it produce clockwise moments' says), b_t = {}; the \
             printed b is reproduced to 6 digits only with +R, i.e. the numbers of the final analysis take moments \
             positive clockwise (equivalently g₃ and the friction moments with the opposite sign).",
            fmt_v(&b_ours.rows(2, 2).into_owned())
        ),
    )?);
    sec.rows.push(Row::number(
        "b with W_t moment row +R: largest deviation from the printed b",
        0.0,
        (&b_flip - &pb).amax(),
        5e-6,
        "P4 Example 1 (final analysis)",
    ));
    let c_pub = classify(&disk_flipped(mu_used, mu_used, g))?;
    sec.rows.push(Row::exact(
        "Printed Proposition 5 load (moment sign of the paper's numbers, μ = 0.01 + r/(1−s)): classification",
        "weakly-stable-not-strongly",
        c_pub.classification.as_str(),
        "P4 Example 1 (final analysis), Proposition 5",
    ));
    Ok(())
}

/// Our own Proposition 5 load at the stated μ.
fn own_proposition5(sec: &mut Section, _opts: &Options) -> Result<(), Error> {
    let (r, s) = r_s();
    let mu_stated = 0.1 + r / (1.0 - s);
    // Our own Proposition 5 load at the stated μ.
    let mut f = disk(mu_stated, mu_stated, [0.0; 3]);
    f.friction = FrictionLaw::Pyramid;
    let sys = decide(&f, &[1.0, 1.0], &[], 0b1111)?;
    let own = if sys.consistent {
        let load = proposition5_load(&f, &sys);
        let c = classify(&f.with_load(load.clone()))?;
        (c.classification.to_string(), fmt_v(&load))
    } else {
        ("system inconsistent".to_string(), "—".to_string())
    };
    sec.rows.push(
        Row::exact(
            "Proposition 5 load built from our solution (γ = {1,2,3,4}, σ_t = (1,1), μ = 0.1 + r/(1−s)): classification",
            "weakly-stable-not-strongly",
            own.0,
            "P4 Proposition 5",
        )
        .with_note(format!("load {}", own.1)),
    );
    Ok(())
}

/// Example 2: the block on an incline.
fn example2(sec: &mut Section, _opts: &Options) -> Result<(), Error> {
    let loads = sphere_loads(2000);
    let theta = 30f64.to_radians();
    let (mut agree2, mut n2) = (0usize, 0usize);
    for &(m1, m2) in &[(0.3, 0.5), (0.0, 0.8), (1.0, 0.2)] {
        for g in &loads {
            let lp = weak_stability(&incline(theta, m1, m2, *g))?.holds;
            agree2 += usize::from(lp == incline_closed_form(theta, m1, m2, *g));
            n2 += 1;
        }
    }
    sec.rows.push(Row::exact(
        "Ex. 2 (θ = 30°): loads where (17)–(20) agree with LP (7), over 3 friction pairs × 2000 loads",
        n2.to_string(),
        agree2.to_string(),
        "P4 Example 2, (17)–(20)",
    ));
    let gravity = [0.0, -1.0, 0.0];
    let mu_common = critical_mu(&incline(theta, 0.0, 0.0, gravity), 1e3)?.unwrap_or(f64::NAN);
    sec.rows.push(Row::number(
        "Ex. 2: critical common μ for g = (0, −1, 0) (the classical tan θ)",
        theta.tan(),
        mu_common,
        1e-7,
        "P4 Example 2 (continued)",
    ));
    // Theorem 2's bound: g = (0, -1, 0) is not weakly stable whenever max(μ1, μ2) < ½ tan θ.
    let bound = 0.5 * theta.tan();
    let mut holds = true;
    for i in 0..=20 {
        for j in 0..=20 {
            let (m1, m2) = (bound * i as f64 / 20.0 * 0.999, bound * j as f64 / 20.0 * 0.999);
            holds &= !weak_stability(&incline(theta, m1, m2, gravity))?.holds;
        }
    }
    // The sharp value along μ2 = 0 and μ1 = μ2, for the note.
    let mu1_alone = {
        let mut f = incline(theta, 0.0, 0.0, gravity);
        let ws = |m1: f64, f: &mut Fixture| {
            f.mu[0] = m1;
            weak_stability(f).map(|w| w.holds).unwrap_or(false)
        };
        if ws(1e3, &mut f) {
            // 80 halvings of [0, 1000].
            let tol = crate::numeric::Tol::abs(1e3 * 2f64.powi(-80));
            fmt_num(crate::numeric::bisect(0.0, 1e3, tol, |m| crate::numeric::side_if(ws(m, &mut f))).hi)
        } else {
            "∞ (never weakly stable)".to_string()
        }
    };
    sec.rows.push(
        Row::exact(
            "Ex. 2 / Theorem 2: g = (0, −1, 0) not weakly stable whenever max(μ₁, μ₂) < ½ tan θ (21 × 21 grid)",
            "yes",
            if holds { "yes" } else { "no" },
            "P4 Example 2 (continued)",
        )
        .with_note(format!(
            "The bound is valid but not sharp here: the smallest max(μ₁, μ₂) that stabilises the load is tan θ = {} \
             (at μ₁ = μ₂); with μ₂ = 0 the critical μ₁ is {}.",
            fmt_num(theta.tan()),
            mu1_alone
        )),
    );
    Ok(())
}

/// Figures 3–6 and 8: the load cones of Example 1.
fn figures(sec: &mut Section, opts: &Options) -> Result<(), Error> {
    // Figures 3-6 and 8: the load cones of Example 1.
    for (mu1, mu2, prefix, figs) in
        [(0.2, 0.5, "p4_mu0.2-0.5_", ("3 and 8", "4")), (1.8, 0.5, "p4_mu1.8-0.5_", ("5", "6"))]
    {
        cones::write(&disk(mu1, mu2, [0.0, 1.0, 0.0]), &opts.out, 3000, prefix)?;
        sec.figures.push(Figure {
            file: format!("{prefix}cones_sphere.png"),
            caption: format!(
                "P4 Fig. {}: WS(μ), WS(0) and WUᵣ(μ) on the unit sphere (equal-area projection), μ = ({mu1}, {mu2}). \
                 The sampled loads with their memberships are in [{prefix}sphere.csv]({prefix}sphere.csv), the \
                 generators of WS(μ) and WS(0) in [{prefix}generators.csv]({prefix}generators.csv).",
                figs.0
            ),
        });
        sec.figures.push(Figure {
            file: format!("{prefix}cones_slice.png"),
            caption: format!(
                "P4 Fig. {}: the g₃ = 0 slice (pure forces through the centre), μ = ({mu1}, {mu2}).",
                figs.1
            ),
        });
    }
    Ok(())
}
