//! P3 (Or & Ames): the double pendulum with a mechanical stop, its simple and Zeno periodic
//! orbits, Theorem 1 and the Zeno-to-non-Zeno bifurcation in `e`.

use nalgebra::{dvector, DVector};

use super::{Options, ProgressFn};
use crate::hybrid::lagrangian::Lagrangian;
use crate::hybrid::EventKind;
use crate::mechanics::double_pendulum::DoublePendulumStop;
use crate::report::{fmt_num, yes_no, Figure, Row, Section, Table};
use crate::zeno::bound::{theorem1, Epsilons};
use crate::zeno::{self, plots, EBranch, EPoint, ZenoSettings};
use crate::Error;

/// Section title.
pub const TITLE: &str = "Or & Ames: Zeno periodic orbits in completed Lagrangian hybrid systems";

/// This section, for [`super::SECTIONS`].
pub const SECTION: super::SectionDef = super::SectionDef { id: "P3", title: TITLE, build: section };

const SRC: &str = "P3 Section 5";

/// `q(0) = (−0.08, 0)`, `q̇(0) = 0` (P3, Section 5).
fn start() -> (DVector<f64>, DVector<f64>) {
    (dvector![-0.08, 0.0], DVector::zeros(2))
}

/// What the row groups share, computed once: the simple periodic orbit with PD control at
/// `e = 0` and the state it was found from, where the later orbit searches and the continuation
/// start.
struct Shared {
    /// Settings of every simulation and orbit search.
    s: ZenoSettings,
    /// The pendulum with PD control at `e = 0`.
    lag0: Lagrangian<DoublePendulumStop>,
    /// The point of the constraint surface reached by settling from [`start`].
    y0: DVector<f64>,
    /// The simple periodic orbit.
    simple: zeno::Orbit,
}

impl Shared {
    fn find() -> Result<Self, Error> {
        let s = ZenoSettings::default();
        let (q0, v0) = start();
        let lag0 = Lagrangian::new(DoublePendulumStop::paper_controlled(0.0));
        let y0 = zeno::settle(&lag0, &q0, &v0, 300, 1e-7, &s)?;
        let simple = zeno::orbit(&lag0, &y0, &s);
        if !simple.converged {
            return Err(Error::Numerical(format!("P3: the simple periodic orbit was not found: {:?}", simple.reason)));
        }
        Ok(Shared { s, lag0, y0, simple })
    }
}

/// Builds the section.
pub fn section(opts: &Options, progress: &ProgressFn<'_>) -> Result<Section, Error> {
    let mut sec = Section::new(
        "P3",
        TITLE,
        "The double pendulum with a stop on the knee (P3 Fig. 2a, m₁ = m₂ = L₁ = L₂ = g = 1, stop θ₂ ≥ 0) \
         run as a completed hybrid system: free motion with Newton impacts, Zeno points located from the \
         geometric decay of the impacts and extrapolated (not truncated at a speed threshold as in P3), then \
         constrained motion on θ₂ = 0 until the multiplier λ of eq. (5) crosses zero. Periodic orbits are fixed \
         points of the return map on the constraint surface S (from one entry into a constrained phase to \
         the next), found by Newton's method; γ is the largest multiplier of that map (finite differences on the \
         hand-written model; exact derivatives of the multibody model along the continuation) \
         and is checked against the contraction rate of the map's iterates. Theorem 1's quantities (10) are \
         maximised over the box Ω; its κ is measured on a grid of Ω₂. The branch of Zeno periodic orbits \
         is followed in e by continuation, on the pendulum built as a multibody model, until no orbit with a \
         constrained phase is found. In the time plots constrained \
         phases are solid, free phases dashed and impacts squares, as in P3's figures.",
    );
    let steps: [super::RowGroupWith<Shared>; 5] =
        [uncontrolled_fig2b, simple_orbit, theorem1_bound, zeno_orbit_figs3_4, continuation];
    let total = steps.len() as u64 + 1;
    progress("P3", 0, total);
    let shared = Shared::find()?;
    for (k, step) in steps.iter().enumerate() {
        progress("P3", k as u64 + 1, total);
        step(&mut sec, opts, &shared)?;
    }
    progress("P3", total, total);
    Ok(sec)
}

/// Uncontrolled, plastic: two plastic collisions per cycle, slowly decaying (Fig. 2b).
fn uncontrolled_fig2b(sec: &mut Section, opts: &Options, sh: &Shared) -> Result<(), Error> {
    let (q0, v0) = start();
    let free = DoublePendulumStop::paper(0.0);
    let sim = zeno::simulate(&free, &q0, &v0, 60.0, 4, &sh.s)?;
    // Impacts between successive entries into a constrained phase.
    let entries: Vec<f64> = sim
        .events
        .iter()
        .filter(|e| e.constrained_after && matches!(e.kind, EventKind::Impact | EventKind::Zeno))
        .map(|e| e.t)
        .collect();
    let per_cycle: Vec<usize> = entries
        .windows(2)
        .map(|w| sim.events.iter().filter(|e| e.kind == EventKind::Impact && e.t > w[0] && e.t <= w[1]).count())
        .collect();
    let all_two = !per_cycle.is_empty() && per_cycle.iter().all(|&c| c == 2);
    sec.rows.push(Row::exact(
        "Uncontrolled, e = 0, q(0) = (−0.08, 0): plastic collisions per cycle",
        "2",
        if all_two { "2".to_string() } else { per_cycle.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(", ") },
        SRC,
    ));
    // Decay: the largest θ₁ of each cycle.
    let peaks: Vec<f64> = entries
        .windows(2)
        .map(|w| sim.samples.iter().filter(|p| p.t > w[0] && p.t <= w[1]).map(|p| p.q[0]).fold(f64::MIN, f64::max))
        .collect();
    let decaying = peaks.len() >= 3 && peaks.windows(2).all(|w| w[1] < w[0]);
    let rate = if peaks.len() >= 2 { peaks[peaks.len() - 1] / peaks[0] } else { f64::NAN };
    sec.rows.push(
        Row::exact("Uncontrolled: the motion decays slowly", "yes", yes_no(decaying && rate > 0.9), SRC).with_note(
            format!(
                "largest θ₁ per cycle falls from {} to {} over {} cycles",
                fmt_num(peaks.first().copied().unwrap_or(f64::NAN)),
                fmt_num(peaks.last().copied().unwrap_or(f64::NAN)),
                peaks.len()
            ),
        ),
    );
    plots::time_plot(&sim, "P3 Fig. 2(b): uncontrolled, e = 0", &["θ₁", "θ₂"], &opts.out.join("p3_fig2b.png"))?;
    sec.figures.push(Figure {
        file: "p3_fig2b.png".into(),
        caption:
            "P3 Fig. 2(b): θ₁(t), θ₂(t) of the uncontrolled pendulum with plastic collisions from q(0) = (−0.08, 0): \
                  solid while θ₂ = 0 is held, dashed in free motion, squares at the collisions (two per cycle)."
                .into(),
    });
    Ok(())
}

/// PD control, e = 0: the simple periodic orbit and γ.
fn simple_orbit(sec: &mut Section, _opts: &Options, sh: &Shared) -> Result<(), Error> {
    let simple = &sh.simple;
    sec.rows.push(Row::exact(
        "PD control, e = 0: a simple periodic orbit (one plastic collision per cycle)",
        "1",
        simple.impacts_per_cycle.to_string(),
        SRC,
    ));
    sec.rows.push(Row::number("γ of the simple periodic orbit", 0.9404, simple.gamma, 5e-5, SRC).with_note(format!(
        "largest multiplier of DΦ by differences; the contraction of the map's iterates gives {}; \
             the other multiplier is {} (zero in theory: the flow direction inside S)",
        simple.gamma_iterates.map_or("—".into(), fmt_num),
        fmt_num(simple.multipliers.get(1).map_or(f64::NAN, |z| z[0].hypot(z[1])))
    )));
    Ok(())
}

/// Theorem 1's bound on e around the simple orbit, and the Zeno orbit at the e it guarantees.
fn theorem1_bound(sec: &mut Section, _opts: &Options, sh: &Shared) -> Result<(), Error> {
    let eps = Epsilons { eps1: 0.017, eps2: 0.06, eps3: 0.005 };
    let b = theorem1(&sh.lag0, &DVector::from_vec(sh.simple.section_point.clone()), sh.simple.gamma, eps, 11, &sh.s)?;
    let kappa_needed = b.kappa * b.with_multiplier.e_max / 0.0015;
    sec.rows.push(
        Row::number(
            "Theorem 1 (ε₁ = 0.017, ε₂ = 0.06, ε₃ = 0.005, γ = the multiplier): largest guaranteed e",
            0.0015,
            b.with_multiplier.e_max,
            5e-5,
            SRC,
        )
        .with_note(format!(
            "the binding condition is (13), whose bound is ∝ 1/κ; P3 does not state κ. Measured on an \
             11 × 11 grid of Ω₂, κ = {}, which gives {}; P3's 0.0015 corresponds to κ ≈ {}. Assumption 1(a) \
             itself fails on the max-norm box: one return maps Ω₂ to {} times its size (γ_Ω), because DΦ \
             shears strongly; P3 uses the multiplier instead.",
            fmt_num(b.kappa),
            fmt_num(b.with_multiplier.e_max),
            fmt_num(kappa_needed),
            fmt_num(b.gamma_assumption)
        )),
    );
    sec.tables.push(Table {
        caption: "Theorem 1: the quantities (10) over Ω and the limits of conditions (12)–(15) on e (γ = multiplier)."
            .into(),
        header: vec!["quantity".into(), "value".into()],
        rows: [
            ("v*", b.v_star),
            ("κ (measured)", b.kappa),
            ("a_min", b.a_min),
            ("a_max", b.a_max),
            ("δ", b.delta),
            ("ż_max", b.z_dot_max),
            ("z̈_max", b.z_ddot_max),
            ("η_max", b.eta_max),
            ("γ (multiplier)", b.gamma_multiplier),
            ("γ_Ω (Assumption 1(a) on the box)", b.gamma_assumption),
            ("ê (12)", b.with_multiplier.e_limits[0]),
            ("ê (13)", b.with_multiplier.e_limits[1]),
            ("ê (14)", b.with_multiplier.e_limits[2]),
            ("ê (15)", b.with_multiplier.e_limits[3]),
        ]
        .iter()
        .map(|(k, v)| vec![k.to_string(), fmt_num(*v)])
        .collect(),
    });
    // The orbit the bound guarantees, at its published e.
    let lag_small = Lagrangian::new(DoublePendulumStop::paper_controlled(0.0015));
    let small = zeno::orbit(&lag_small, &sh.y0, &sh.s);
    sec.rows.push(Row::exact(
        "e = 0.0015: a Zeno periodic orbit exists",
        "yes",
        yes_no(small.converged && small.zeno),
        SRC,
    ));
    Ok(())
}

/// e = 0.5: a stable Zeno periodic orbit (Figs. 3 and 4).
fn zeno_orbit_figs3_4(sec: &mut Section, opts: &Options, sh: &Shared) -> Result<(), Error> {
    let s = &sh.s;
    let (q0, v0) = start();
    let lag5 = Lagrangian::new(DoublePendulumStop::paper_controlled(0.5));
    let half = zeno::orbit(&lag5, &zeno::settle(&lag5, &q0, &v0, 300, 1e-7, s)?, s);
    sec.rows.push(Row::exact(
        "e = 0.5: a Zeno periodic orbit, locally stable",
        "yes",
        yes_no(half.converged && half.zeno && half.stable),
        SRC,
    ));
    let sim5 = zeno::simulate(&DoublePendulumStop::paper_controlled(0.5), &q0, &v0, 30.0, 4, s)?;
    plots::time_plot(&sim5, "P3 Fig. 4: PD control, e = 0.5", &["θ₁", "θ₂"], &opts.out.join("p3_fig4.png"))?;
    let one = |o: &zeno::Orbit, e: f64| {
        let x = &o.fixed_point;
        zeno::simulate(
            &DoublePendulumStop::paper_controlled(e),
            &dvector![x[0], x[1]],
            &dvector![x[2], x[3]],
            o.period,
            8,
            s,
        )
    };
    let (c0, c5) = (one(&sh.simple, 0.0)?, one(&half, 0.5)?);
    plots::phase_portrait(&[("e = 0", &c0), ("e = 0.5", &c5)], 0, "θ₁", &opts.out.join("p3_fig3a.png"))?;
    plots::phase_portrait(&[("e = 0", &c0), ("e = 0.5", &c5)], 1, "θ₂", &opts.out.join("p3_fig3b.png"))?;
    sec.figures.push(Figure {
        file: "p3_fig3a.png".into(),
        caption:
            "P3 Fig. 3(a): the simple (e = 0) and Zeno (e = 0.5) periodic orbits in the (θ₁, θ̇₁) plane, one period \
                  each from the fixed point; solid while constrained."
                .into(),
    });
    sec.figures.push(Figure {
        file: "p3_fig3b.png".into(),
        caption: "P3 Fig. 3(b): the same orbits in the (θ₂, θ̇₂) plane; the constrained motion collapses to the origin."
            .into(),
    });
    sec.figures.push(Figure {
        file: "p3_fig4.png".into(),
        caption:
            "P3 Fig. 4: θ₁(t), θ₂(t) with PD control and e = 0.5 from q(0) = (−0.08, 0): each cycle ends in a Zeno \
                  sequence of impacts (squares) followed by a constrained phase."
                .into(),
    });
    Ok(())
}

/// The continuation in `e` of the report: the general engine's defaults, with room for the
/// points the branch needs to reach its numerical end (the Zeno cascades grow as the
/// constrained phase shrinks, until the event limit stops the return map).
pub const BRANCH_MAX_POINTS: usize = 1000;

/// Continuation in e: the Zeno-to-non-Zeno bifurcation. The branch, computed once, gives the
/// end row, Fig. 5 near its end and the branch's figures and table.
fn continuation(sec: &mut Section, opts: &Options, sh: &Shared) -> Result<(), Error> {
    let (q0, v0) = start();
    let settings = crate::continuation::Settings {
        from: 0.0,
        to: 1.0,
        max_points: BRANCH_MAX_POINTS,
        max_doublings: 0,
        ..Default::default()
    };
    // The pendulum as a multibody model: the continuation's Jacobians are then exact.
    let family =
        |e: f64| zeno::model::pendulum_system(&DoublePendulumStop::paper_controlled(e)).map_err(|err| err.to_string());
    let c = zeno::continuation_in_e(family, q0.as_slice(), v0.as_slice(), &settings, &|_| {})?;
    branch_end(sec, &c);
    fig5(sec, opts, sh, &c)?;
    branch_figures(sec, opts, &c)
}

/// Why the branch ended, for notes and captions.
fn end_of(c: &EBranch) -> String {
    match (c.zeno_end, c.zeno_end_bracket) {
        (Some(e), Some(b)) => {
            format!("its constrained phase vanishes at e = {} (located to {})", fmt_num(e), fmt_num(b))
        }
        _ => format!("the branch ended: {}", c.end),
    }
}

/// The largest e with a Zeno periodic orbit, and what ended the branch (in the introduction).
fn branch_end(sec: &mut Section, c: &EBranch) {
    let e_crit = c.e_critical.unwrap_or(f64::NAN);
    // P3 gives the largest e at which its simulations found the orbit: a lower bound of the
    // branch's end, checked one-sided with half a unit of its last digit.
    sec.rows.push(
        Row::at_least("Largest e with a Zeno periodic orbit (P3: found up to e = 0.9225)", 0.9225, e_crit, 5e-5, SRC)
            .with_note(format!(
                "continuation in e (pseudo-arclength, {} orbits): the last Zeno periodic orbit is at e = {}; {}",
                c.points.len(),
                fmt_num(e_crit),
                end_of(c)
            )),
    );
    // What ended the branch, in the section's introduction.
    if let Some(last) = c.points.last() {
        sec.intro.push_str(&format!(
            " The continuation's last orbit, at e = {}, is constrained for {} s of its {} s period; {}.",
            fmt_num(last.e),
            fmt_num(last.constrained_duration),
            fmt_num(last.period),
            end_of(c)
        ));
    }
}

/// e = 0.9225 (Fig. 5): the orbit found from the branch point below it, with its very short
/// constrained phase.
fn fig5(sec: &mut Section, opts: &Options, sh: &Shared, c: &EBranch) -> Result<(), Error> {
    let lag9 = Lagrangian::new(DoublePendulumStop::paper_controlled(0.9225));
    let near = c.points.iter().rev().find(|p| p.e <= 0.9225).map(|p| DVector::from_vec(p.section_point.clone()));
    let o9 = near.map(|y| zeno::orbit(&lag9, &y, &sh.s));
    let short = o9.as_ref().is_some_and(|o| o.converged && o.zeno && o.constrained_duration < 0.05 * o.period);
    sec.rows.push(
        Row::exact("e = 0.9225: a Zeno periodic orbit with a very short constrained phase", "yes", yes_no(short), SRC)
            .with_note(format!(
                "constrained for {} s of a {} s period",
                fmt_num(o9.as_ref().map_or(f64::NAN, |o| o.constrained_duration)),
                fmt_num(o9.as_ref().map_or(f64::NAN, |o| o.period))
            )),
    );
    let x9 = o9.as_ref().map(|o| o.fixed_point.clone()).unwrap_or_else(|| vec![-0.08, 0.0, 0.0, 0.0]);
    let sim9 = zeno::simulate(
        &DoublePendulumStop::paper_controlled(0.9225),
        &dvector![x9[0], x9[1]],
        &dvector![x9[2], x9[3]],
        20.0,
        4,
        &sh.s,
    )?;
    plots::time_plot(&sim9, "P3 Fig. 5: PD control, e = 0.9225", &["θ₁", "θ₂"], &opts.out.join("p3_fig5.png"))?;
    sec.figures.push(Figure {
        file: "p3_fig5.png".into(),
        caption: format!(
            "P3 Fig. 5: θ₁(t), θ₂(t) on the Zeno periodic orbit at e = 0.9225, started on the orbit: the constrained \
             phase (solid) lasts {} s of the {} s period.",
            fmt_num(o9.as_ref().map_or(f64::NAN, |o| o.constrained_duration)),
            fmt_num(o9.as_ref().map_or(f64::NAN, |o| o.period))
        ),
    });
    Ok(())
}

/// The branch's constrained duration, period and γ against e, and its table.
fn branch_figures(sec: &mut Section, opts: &Options, c: &EBranch) -> Result<(), Error> {
    plots::branch_plots(c, &opts.out, "p3_branch")?;
    let at = |k: usize| c.points.get(k);
    let n = c.points.len();
    let (first, last, before_last) = (at(0), n.checked_sub(1).and_then(at), n.checked_sub(2).and_then(at));
    let describe = |f: &dyn Fn(&EPoint) -> f64| match (first, last) {
        (Some(a), Some(b)) => {
            format!("from {} at e = {} to {} at e = {}", fmt_num(f(a)), fmt_num(a.e), fmt_num(f(b)), fmt_num(b.e))
        }
        _ => "no branch point".to_string(),
    };
    let end = end_of(c);
    sec.figures.push(Figure {
        file: "p3_branch_duration.png".into(),
        caption: format!(
            "The Zeno periodic orbit continued in e: its constrained phase shrinks {} s (P3: it vanishes at the \
             Zeno-to-non-Zeno bifurcation); {end}, with {} s of constrained phase left.",
            describe(&|p| p.constrained_duration),
            fmt_num(last.map_or(f64::NAN, |p| p.constrained_duration)),
        ),
    });
    sec.figures.push(Figure {
        file: "p3_branch_period.png".into(),
        caption: format!("The period along the branch, {} s.", describe(&|p| p.period)),
    });
    sec.figures.push(Figure {
        file: "p3_branch_gamma.png".into(),
        caption: format!(
            "γ, the largest multiplier of the return map (exact derivatives of the pendulum's multibody model), along the branch, {}: {}. Its last \
             segment goes from {} at e = {} to {} at e = {}, over which the constrained phase shrinks from {} s to \
             {} s; {end}.",
            describe(&|p| p.gamma),
            if c.points.iter().all(|p| p.gamma < 1.0) {
                "below 1 throughout, the orbit stays stable"
            } else {
                "it reaches 1 on the branch, where the orbit loses stability"
            },
            fmt_num(before_last.map_or(f64::NAN, |p| p.gamma)),
            fmt_num(before_last.map_or(f64::NAN, |p| p.e)),
            fmt_num(last.map_or(f64::NAN, |p| p.gamma)),
            fmt_num(last.map_or(f64::NAN, |p| p.e)),
            fmt_num(before_last.map_or(f64::NAN, |p| p.constrained_duration)),
            fmt_num(last.map_or(f64::NAN, |p| p.constrained_duration)),
        ),
    });
    // The table: every tenth of the branch's orbits by e (the branch's own points crowd where
    // the constrained phase shrinks fast), and the last.
    let mut rows = vec![];
    let mut next_e = f64::NEG_INFINITY;
    for (k, p) in c.points.iter().enumerate() {
        if p.e >= next_e || k + 1 == n {
            rows.push(vec![
                fmt_num(p.e),
                fmt_num(p.period),
                fmt_num(p.constrained_duration),
                fmt_num(p.gamma),
                p.impacts_per_cycle.to_string(),
            ]);
            next_e = p.e + 0.05;
        }
    }
    sec.tables.push(Table {
        caption: format!(
            "The branch of periodic orbits in e (period, constrained duration, γ, impacts simulated per cycle): its \
             orbits at least 0.05 apart in e, and its last ({} orbits in all).",
            n
        ),
        header: vec!["e".into(), "T".into(), "constrained".into(), "γ".into(), "impacts".into()],
        rows,
    });
    Ok(())
}
