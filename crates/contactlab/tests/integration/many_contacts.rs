//! Mode choice and impacts with many simultaneous contacts (issue #21): above
//! `ENUMERATION_LIMIT` candidates the hybrid core takes the mode from the contacts' LCP instead
//! of testing `4^k` combinations. Checked two ways: the LCP route forced on systems the
//! enumeration handles gives the same runs, and a comb on eight feet moves as the same comb on
//! its two end feet (the middle feet are redundant when it lies flat).

use contactlab::hybrid::driver::Run;
use contactlab::hybrid::lagrangian::{join, Lagrangian, Modes};
use contactlab::hybrid::{DriverSettings, EventDriver, Termination, Tolerances};
use contactlab::mechanics::multibody_system::Kernel;
use contactlab::mechanics::ContactSystem;
use contactlab::model::ModelDoc;
use contactlab::multibody::{model, Mechanism};
use nalgebra::{dvector, DMatrix, DVector};

fn comb(feet: usize, mu: f64) -> Mechanism {
    let mut text = String::from(
        "kind = \"multibody\"\ngravity = 9.81\n[[body]]\nname = \"comb\"\njoint = \"planar\"\nmass = 1.0\ninertia = 0.06\n\
         [[line]]\nname = \"floor\"\nnormal = [0.0, 1.0]\n",
    );
    for k in 0..feet {
        let x = -0.4 + 0.8 * k as f64 / (feet - 1) as f64;
        text.push_str(&format!("[[contact]]\nname = \"foot{k}\"\nbody = \"comb\"\npoint = [{x}, -0.1]\nmu = {mu}\n"));
    }
    model::from_model(&ModelDoc::parse("comb.toml", &text, false).unwrap()).unwrap()
}

fn settings(t_max: f64) -> DriverSettings {
    DriverSettings { t_max, tol: Tolerances { rtol: 1e-11, atol: 1e-11 }, ..Default::default() }
}

type State = DMatrix<f64>;

fn run(m: &Mechanism, limit: usize, x0: State, t_max: f64) -> (Run<State, Modes>, usize) {
    let sys = m.system().unwrap();
    let mut lag = Lagrangian::new(sys);
    lag.enumeration_limit = limit;
    let r = EventDriver::new(settings(t_max)).run(&lag, 0.0, x0.clone(), &[], &mut ());
    let events = r.events;
    (r, events)
}

#[test]
fn a_comb_on_eight_feet_moves_as_on_its_two_end_feet() {
    // Dropped tilted and sliding: one end lands, the comb slaps flat (all feet at once), slides
    // and stops. With eight feet the slap has 4^8 impact outcomes and the slide 4^8 modes: the
    // LCP route. The slap's outcome is the two-foot comb's (enumerated) to round-off, the comb
    // slides, stops and rests flat where and when the two-foot comb does (the slide's redundant
    // slipping mode has the same acceleration: this caught nalgebra's SVD solving the eight-foot
    // slip matrix wrongly, see hybrid::lagrangian::constraints::min_norm_solve). On both
    // kernels: on the spatial tree's round-off, the slap's LCP ended with a friction bound of a
    // middle foot at 1e-17 where it is zero (see lcp::accept's snap).
    for (mu, kernel) in [0.3, 1.0].into_iter().flat_map(|mu| [Kernel::Planar, Kernel::Spatial].map(|k| (mu, k))) {
        let x0 = join(&dvector![0.0, 0.14, 0.03], &dvector![0.6, -0.8, 0.0]);
        let log = |feet: usize| {
            let mut m = comb(feet, mu);
            m.kernel = kernel;
            let lag = Lagrangian::new(m.system().unwrap());
            EventDriver::new(settings(3.0)).run_logged(&lag, 0.0, x0.clone(), &[])
        };
        let ((two, e2), (eight, e8)) = (log(2), log(8));
        assert!(matches!(two.termination, Termination::Rest), "two feet: {:?}", two.termination);
        assert!(matches!(eight.termination, Termination::Rest), "eight feet: {:?}", eight.termination);
        let slap = |e: &[contactlab::hybrid::driver::EventRecord<State, Modes>]| {
            e.iter().filter(|r| r.info.kind == contactlab::hybrid::EventKind::Impact).nth(1).map(|r| r.after.clone())
        };
        let (a, b) = (slap(&e2).expect("the slap"), slap(&e8).expect("the slap"));
        assert!((a.column(1) - b.column(1)).amax() <= 1e-8, "mu = {mu}, {kernel:?}: after the slap\n{a}\n{b}");
        assert!((two.t - eight.t).abs() <= 1e-8, "mu = {mu}, {kernel:?}: rest at {} vs {}", two.t, eight.t);
        assert!((&two.state - &eight.state).amax() <= 1e-8, "{}\n{}", two.state, eight.state);
        // It lies flat on the floor.
        assert!(eight.state[(2, 0)].abs() < 1e-9 && (eight.state[(1, 0)] - 0.1).abs() < 1e-9, "{}", eight.state);
    }
}

#[test]
fn the_lcp_route_gives_the_enumerations_runs() {
    // The LCP route forced (limit 0) on runs the enumeration decides: the same events and end.
    let x0 = join(&dvector![0.0, 0.14, 0.03], &dvector![0.6, -0.8, 0.0]);
    for mu in [0.0, 0.3, 1.0] {
        let m = comb(2, mu);
        let (a, ea) = run(&m, usize::MAX, x0.clone(), 3.0);
        let (b, eb) = run(&m, 0, x0.clone(), 3.0);
        assert_eq!(ea, eb, "mu = {mu}: events");
        assert_eq!(std::mem::discriminant(&a.termination), std::mem::discriminant(&b.termination));
        assert!((&a.state - &b.state).amax() <= 1e-8, "mu = {mu}:\n{}\n{}", a.state, b.state);
    }
    // P1's configurations pushed from rest: slip, lift-off, impacts, Zeno and rest.
    let path = |n: &str| std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/multibody").join(n);
    for name in ["p1-config-A.toml", "p1-config-B.toml", "p1-config-D.toml"] {
        let m = model::read(&path(name)).unwrap();
        let x0 = join(&DVector::zeros(3), &dvector![0.02, 0.05, -0.4]);
        let (a, ea) = run(&m, usize::MAX, x0.clone(), 0.6);
        let (b, eb) = run(&m, 0, x0.clone(), 0.6);
        assert_eq!(ea, eb, "{name}: events");
        assert!(ea > 0);
        assert!((&a.state - &b.state).amax() <= 1e-8, "{name}:\n{}\n{}", a.state, b.state);
    }
}

/// A hexapod: a floating torso (mass 2) with six legs on sprung, damped hips, splayed by ±0.2 rad
/// (the three left legs lean left, the three right legs right: not parallel, so with the feet
/// held the legs brace the torso), each foot a frictional point contact with the floor: nine
/// coordinates, six contacts.
fn hexapod(mu: f64) -> Mechanism {
    let mut text = String::from(
        "kind = \"multibody\"\ngravity = 9.81\n[[body]]\nname = \"torso\"\njoint = \"planar\"\nmass = 2.0\n\
         inertia = 0.2\n[[line]]\nname = \"floor\"\nnormal = [0.0, 1.0]\n",
    );
    for k in 0..6 {
        let x = -0.5 + 0.2 * k as f64;
        text.push_str(&format!(
            "[[body]]\nname = \"leg{k}\"\nparent = \"torso\"\norigin = [{x}, 0.0]\nmass = 0.1\ninertia = 0.001\n\
             com = [0.0, -0.1]\n[[spring]]\ncoordinate = \"leg{k}\"\nstiffness = 40.0\ndamping = 0.5\nrest = {}\n\
             [[contact]]\nname = \"foot{k}\"\nbody = \"leg{k}\"\npoint = [0.0, -0.2]\nmu = {mu}\n",
            splay(k)
        ));
    }
    model::from_model(&ModelDoc::parse("hexapod.toml", &text, false).unwrap()).unwrap()
}

/// Leg `k`'s angle: the left legs lean left (feet outward), the right ones right.
fn splay(k: usize) -> f64 {
    if k < 3 {
        -0.2
    } else {
        0.2
    }
}

#[test]
fn a_hexapod_lands_on_six_feet_and_stands() {
    // Dropped from 2 cm on its splayed legs: the six feet land at once (a six-contact frictional
    // impact: 4⁶ outcomes, the LCP route) after √(2h/g); the plastic impact sticks every foot
    // (the braced legs need |Λ_t|/Λ_n = tan 0.2, below μ = 1), which stops the hexapod dead, and
    // it stands where it landed: at rest with every foot on the floor. The enumeration of all 4⁶
    // outcomes and modes (limit raised) gives the same run. (Landing while moving sideways, its
    // feet slide after the impact and the six redundant sliding contacts admit several modes
    // with the same rank: the enumeration reports that indeterminacy.)
    type State9 = DMatrix<f64>;
    let (h, g) = (0.02, 9.81);
    let mut q = DVector::zeros(9);
    q[1] = 0.2 * 0.2f64.cos() + h;
    for k in 0..6 {
        q[3 + k] = splay(k);
    }
    let x0: State9 = join(&q, &DVector::zeros(9));
    let m = hexapod(1.0);
    let sys = m.system().unwrap();
    let runs: Vec<_> = [Lagrangian::new(&sys).enumeration_limit, usize::MAX]
        .into_iter()
        .map(|limit| {
            let mut lag = Lagrangian::new(&sys);
            lag.enumeration_limit = limit;
            EventDriver::new(settings(1.0)).run(&lag, 0.0, x0.clone(), &[], &mut ())
        })
        .collect();
    let landing = (2.0 * h / g).sqrt();
    for r in &runs {
        assert!(matches!(r.termination, Termination::Rest), "{:?}", r.termination);
        assert!((r.t - landing).abs() <= 1e-9, "rest at {} vs landing at {landing}", r.t);
        assert!(r.state[(0, 0)].abs() <= 1e-9 && r.state.column(1).amax() <= 1e-9, "{}", r.state);
        let pos = r.state.column(0).into_owned();
        for k in 0..6 {
            assert!(sys.gap(k, &pos).abs() <= 1e-9, "foot {k}: gap {}", sys.gap(k, &pos));
        }
    }
    assert_eq!(runs[0].events, runs[1].events);
    assert!((&runs[0].state - &runs[1].state).amax() <= 1e-10);
}
