//! `painleve`, `slip` and `orbit`: a mechanism's or a robot's contacts, planar or in 3-D.

use super::*;

#[derive(Args, Debug)]
pub struct PainleveArgs {
    #[arg(help = contactlab::api::registry::model_help("painleve"))]
    model: PathBuf,
    /// The slipping contact (its name in the model).
    #[arg(long)]
    contact: String,
    /// The state: n numbers (q, with q' = 0) or 2n numbers (q then q'), comma-separated
    /// (default: the model's [initial] table).
    #[arg(long, value_delimiter = ',', value_name = "Q,..,V,..", allow_hyphen_values = true)]
    state: Option<Vec<f64>>,
    /// Friction coefficient of the contact (default: the model's).
    #[arg(long)]
    mu: Option<f64>,
    /// Slip direction, 1 or -1 (default: the sign of the contact's slip velocity, 1 if none).
    #[arg(long, allow_negative_numbers = true)]
    sigma: Option<i8>,
    /// A robot in 3-D: the slip direction, a world vector X,Y,Z projected onto the contact's
    /// tangent plane (default: the slip velocity's, or where it does not slip the direction of
    /// least B).
    #[arg(long, value_delimiter = ',', value_name = "X,Y,Z", allow_hyphen_values = true)]
    direction: Option<Vec<f64>>,
    /// A URDF's base: fixed, floating or planar (a robot in 3-D).
    #[arg(long)]
    base: Option<String>,
    /// A coordinate to vary for mu_min and the region B < 0, as NAME=LO:HI (radians or metres);
    /// give it once or twice. The other coordinates stay at the state.
    #[arg(long, value_name = "NAME=LO:HI", allow_hyphen_values = true)]
    slice: Vec<String>,
    /// Grid points per slice coordinate.
    #[arg(long, default_value_t = PainleveSettings::default().points)]
    points: usize,
    /// Other contacts slipping with it, comma-separated, for the LCP check of several contacts
    /// (default: every other closed contact that slips at the state; held constraints join).
    #[arg(long, value_delimiter = ',')]
    slipping: Option<Vec<String>>,
    /// Constraints held closed (a locked knee), comma-separated; an empty value holds none
    /// (default: every joint limit closed and at rest at the state).
    #[arg(long, value_delimiter = ',')]
    held: Option<Vec<String>>,
    #[command(flatten)]
    pub(super) common: Common,
}

/// `NAME=LO:HI`.
fn slice_axis(text: &str) -> Result<contactlab::multibody::painleve::SliceAxis, Failure> {
    let bad = || {
        Failure::from(contactlab::Error::argument(
            "slice",
            format!("'{text}': expected NAME=LO:HI, e.g. stance.theta=-1:1"),
        ))
    };
    let (name, range) = text.split_once('=').ok_or_else(bad)?;
    let (lo, hi) = range.split_once(':').ok_or_else(bad)?;
    let lo: f64 = lo.trim().parse().map_err(|_| bad())?;
    let hi: f64 = hi.trim().parse().map_err(|_| bad())?;
    Ok(contactlab::multibody::painleve::SliceAxis { coordinate: name.trim().to_string(), lo, hi })
}

pub fn painleve(a: PainleveArgs) -> Result<(), Failure> {
    let slice = a.slice.iter().map(|t| slice_axis(t)).collect::<Result<Vec<_>, _>>()?;
    let direction = match a.direction.as_deref() {
        None => None,
        Some(&[x, y, z]) => Some([x, y, z]),
        Some(d) => {
            return Err(contactlab::Error::argument(
                "direction",
                format!("needs three numbers X,Y,Z (got {})", d.len()),
            )
            .into())
        }
    };
    let m = open(&a.model, a.base.as_deref())?;
    let settings = contactlab::api::PainleveSettings {
        contact: a.contact.clone(),
        sigma: a.sigma,
        direction,
        mu: a.mu,
        slice,
        points: a.points,
        slipping: a.slipping.clone(),
        held: a.held.as_ref().map(|h| h.iter().filter(|n| !n.is_empty()).cloned().collect()),
    };
    let (r, m) = match (contactlab::api::painleve(&m, a.state.as_deref(), &settings)?, &m) {
        (Painleve::Planar(r), MechanismModel::Planar(m)) => (r, m),
        (Painleve::Spatial(r), _) => return painleve_spatial(&a, *r),
        _ => return Err(Failure::Internal(anyhow::anyhow!("painleve answered for another kind of model"))),
    };
    if let Some(dir) = &a.common.out {
        r.write_files(m, dir)?;
    }
    if a.common.json {
        return print_json(&r);
    }
    let s = &r.at_state;
    println!("{}: contact '{}', mu = {}, sigma = {:+}", a.model.display(), r.contact, r.mu, r.sigma);
    if !r.held.is_empty() {
        println!("  held closed: {}", r.held.join(", "));
    }
    println!("  at the state: A = {:.6e}, B = {:.6e}: {}", s.a, s.b, contactlab::output::kebab(&s.case));
    let names: Vec<&str> = r.slice.iter().map(|x| x.coordinate.as_str()).collect();
    match &r.mu_min {
        Some(mm) if mm.at.is_empty() => println!("  B < 0 at this configuration for mu > {:.9}", mm.mu_min),
        Some(mm) => println!("  mu_min {:.9} over the slice, at {} = {:?}", mm.mu_min, names.join(", "), mm.at),
        None => println!("  no mu makes B negative here (sigma c <= 0)"),
    }
    if let Some(iv) = &r.b_negative_intervals {
        println!("  B < 0 for {} in {:?}", names[0], iv);
    }
    if let Some(g) = &r.b_negative_grid {
        match g.ranges {
            Some(rg) => println!(
                "  B < 0 at {} of {} grid points: {} in {:?}, {} in {:?}",
                g.cells,
                g.points_per_axis * g.points_per_axis,
                names[0],
                rg[0],
                names[1],
                rg[1]
            ),
            None => println!("  B > 0 at every grid point"),
        }
    }
    if let Some(sv) = &r.several {
        print_lcp(&sv.contacts, sv.verdict, sv.solutions.len(), sv.p_matrix);
    }
    Ok(())
}

/// The line on the LCP of several slipping contacts.
fn print_lcp(contacts: &[String], verdict: &str, solutions: usize, p_matrix: Option<bool>) {
    println!(
        "  the LCP of {} slipping contacts ({}): {verdict} ({solutions} solutions); its matrix is {}a P-matrix",
        contacts.len(),
        contacts.join(", "),
        if p_matrix == Some(true) { "" } else { "not " }
    );
}

/// `painleve`'s output for a robot in 3-D.
fn painleve_spatial(a: &PainleveArgs, r: contactlab::api::Painleve3) -> Result<(), Failure> {
    if let Some(dir) = &a.common.out {
        r.write_files(dir)?;
    }
    if a.common.json {
        return print_json(&r);
    }
    let s = &r.at_state;
    let v3 = |x: &[f64; 3]| format!("({:.4}, {:.4}, {:.4})", x[0], x[1], x[2]);
    println!("{}: contact '{}', mu = {}, gap {:.3e} m", a.model.display(), r.contact, r.mu, r.gap);
    println!(
        "  slip direction {} ({}; psi = {:.6} rad from t1 = {})",
        v3(&r.direction),
        r.direction_from,
        r.direction_angle,
        v3(&r.tangents[0])
    );
    if !r.held.is_empty() {
        println!("  held sticking: {}", r.held.join(", "));
    }
    println!("  at the state: A = {:.6e}, B = {:.6e}: {}", s.a, s.b, contactlab::output::kebab(&s.case));
    let o = &r.over_directions;
    match (o.mu_min, o.least_b_direction) {
        (Some(mm), Some(d)) => println!(
            "  over slip directions: B < 0 for mu > {mm:.9} (least B along {}){}",
            v3(&d),
            o.paradox_arc
                .map_or(String::new(), |arc| format!("; at this mu for psi in [{:.6}, {:.6}] rad", arc[0], arc[1]))
        ),
        _ => println!("  over slip directions: B does not depend on the direction (c = 0); no mu makes it negative"),
    }
    let names: Vec<&str> = r.slice.iter().map(|x| x.coordinate.as_str()).collect();
    if !r.slice.is_empty() {
        let show = |what: &str, mm: &Option<contactlab::multibody::painleve::MuMin>| match mm {
            Some(mm) => println!("  mu_min {:.9} {what}, at {} = {:?}", mm.mu_min, names.join(", "), mm.at),
            None => println!("  no mu makes B negative {what}"),
        };
        show("along the direction over the slice", &r.mu_min);
        show("in some direction over the slice", &r.mu_min_any_direction);
    }
    if let (Some(iv), Some(ia)) = (&r.b_negative_intervals, &r.b_negative_intervals_any_direction) {
        println!("  B < 0 for {} in {:?} along the direction, {:?} in some direction", names[0], iv, ia);
    }
    if let (Some(g), Some(ga)) = (&r.b_negative_grid, &r.b_negative_grid_any_direction) {
        println!(
            "  B < 0 at {} (along the direction) and {} (in some direction) of {} grid points",
            g.cells,
            ga.cells,
            g.points_per_axis * g.points_per_axis
        );
    }
    if let Some(sv) = &r.several {
        print_lcp(&sv.contacts, sv.lcp.verdict, sv.lcp.solutions.len(), sv.lcp.p_matrix);
    }
    Ok(())
}

#[derive(Args, Debug)]
pub struct SlipArgs {
    #[arg(help = contactlab::api::registry::model_help("slip"))]
    model: PathBuf,
    /// The slipping contact (its name in the model).
    #[arg(long)]
    contact: String,
    /// The state: 2n numbers (q then q'), comma-separated (default: the model's [initial]).
    #[arg(long, value_delimiter = ',', value_name = "Q,..,V,..", allow_hyphen_values = true)]
    state: Option<Vec<f64>>,
    /// Instead: the smallest initial slip speed of the contact (m/s) that jams from the state
    /// (its own slip speed replaced), by bisection up to --max-speed; in 3-D along the state's
    /// slip direction.
    #[arg(long)]
    jam_threshold: bool,
    /// With --jam-threshold: the coordinate the slip speed is set on (a translation along the
    /// contact's line, as P2 slides the whole walker); default: the least kinetic-energy
    /// velocity change that slides the contact without changing its normal velocity.
    #[arg(long, value_name = "COORDINATE")]
    along: Option<String>,
    /// Largest initial slip speed tried by --jam-threshold (m/s).
    #[arg(long, default_value_t = contactlab::api::JAM_MAX_SPEED)]
    max_speed: f64,
    /// A URDF's base: fixed, floating or planar (a robot in 3-D).
    #[arg(long)]
    base: Option<String>,
    #[command(flatten)]
    pub(super) common: Common,
}

/// Writes and prints a jam threshold (`slip --jam-threshold`).
fn report_jam_threshold(a: &SlipArgs, r: &contactlab::api::JamThresholdReport) -> Result<(), Failure> {
    if let Some(dir) = &a.common.out {
        write_json(dir, "jam_threshold.json", r)?;
    }
    if a.common.json {
        return print_json(r);
    }
    match r.jam_threshold {
        Some(s) => println!("{}: a slip of '{}' jams from {s:.6e} m/s", a.model.display(), a.contact),
        None => println!("{}: no slip of '{}' up to {} m/s jams", a.model.display(), a.contact, a.max_speed),
    }
    Ok(())
}

pub fn slip(a: SlipArgs) -> Result<(), Failure> {
    let m = open(&a.model, a.base.as_deref())?;
    if a.jam_threshold {
        let r = contactlab::api::jam_threshold(&m, a.state.as_deref(), &a.contact, a.along.as_deref(), a.max_speed)?;
        return report_jam_threshold(&a, &r);
    }
    if a.along.is_some() {
        return Err(contactlab::Error::argument("along", "only with --jam-threshold").into());
    }
    let r = match contactlab::api::slip(&m, a.state.as_deref(), &a.contact)? {
        contactlab::api::Slip::Planar(r) => return slipped_planar(&a, r),
        contactlab::api::Slip::Spatial(r) => r,
    };
    if let Some(dir) = &a.common.out {
        write_json(dir, "slip.json", &r)?;
    }
    if a.common.json {
        return print_json(&r);
    }
    let v3 = |x: &[f64; 3]| format!("({:.4}, {:.4}, {:.4})", x[0], x[1], x[2]);
    println!(
        "{}: the slip of '{}' ends by {} at t = {:.9} s (largest normal force {:.6e}; A = {:.3e}, B = {:.3e})",
        a.model.display(),
        r.contact,
        contactlab::output::kebab(&r.outcome),
        r.t_end,
        r.fn_max,
        r.a,
        r.b
    );
    println!(
        "  slip direction {} at the start, {} at the end: turned {:.6} rad{}",
        v3(&r.direction_start),
        v3(&r.direction_end),
        r.turned,
        r.restart_direction.map_or(String::new(), |d| format!("; restarts along {}", v3(&d)))
    );
    Ok(())
}

/// `slip`'s output for a planar mechanism.
fn slipped_planar(a: &SlipArgs, r: contactlab::api::SlipReport) -> Result<(), Failure> {
    if let Some(dir) = &a.common.out {
        write_json(dir, "slip.json", &r)?;
    }
    if a.common.json {
        return print_json(&r);
    }
    println!(
        "{}: the slip of '{}' ends by {} at t = {:.9} s (largest normal force {:.6e}; A = {:.3e}, B = {:.3e})",
        a.model.display(),
        a.contact,
        contactlab::output::kebab(&r.outcome),
        r.t_end,
        r.fn_max,
        r.a,
        r.b
    );
    Ok(())
}

#[derive(Args, Debug)]
pub struct OrbitArgs {
    #[arg(help = contactlab::api::registry::model_help("orbit"))]
    model: PathBuf,
    /// The joint limit or contact whose constrained phases the orbit passes (its name).
    #[arg(long)]
    constraint: String,
    /// The start: n or 2n numbers, comma-separated (default: the model's [initial]).
    #[arg(long, value_delimiter = ',', value_name = "Q,..,V,..", allow_hyphen_values = true)]
    state: Option<Vec<f64>>,
    /// A URDF's root link: `planar` reads it as a planar mechanism (a bare URDF is otherwise a
    /// robot in 3-D, which `orbit` does not take).
    #[arg(long, value_parser = ["fixed", "floating", "planar"])]
    base: Option<String>,
    #[command(flatten)]
    pub(super) common: Common,
}

pub fn orbit(a: OrbitArgs) -> Result<(), Failure> {
    let m = open(&a.model, a.base.as_deref())?;
    let r = contactlab::api::orbit(&m, a.state.as_deref(), &a.constraint)?;
    if let Some(dir) = &a.common.out {
        write_json(dir, "orbit.json", &r)?;
    }
    if a.common.json {
        return print_json(&r);
    }
    let o = &r.orbit;
    if !o.converged {
        println!(
            "{}: no periodic orbit through '{}' (e = {}): {}",
            a.model.display(),
            r.constraint,
            r.e,
            o.reason.as_ref().map_or_else(|| "not converged".to_string(), |x| x.to_string())
        );
        return Ok(());
    }
    println!(
        "{}: a {} periodic orbit through '{}' (e = {}): period {:.9} s, gamma {:.6} ({})",
        a.model.display(),
        if o.zeno { "Zeno" } else { "simple" },
        r.constraint,
        r.e,
        o.period,
        o.gamma,
        if o.stable { "stable" } else { "unstable" }
    );
    println!(
        "  constrained phase {:.6} s, {} impacts per cycle, x* = {:?}",
        o.constrained_duration, o.impacts_per_cycle, o.fixed_point
    );
    Ok(())
}
