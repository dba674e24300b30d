//! P1's verdicts proved from the enclosures: fixed points, Theorems 1–5, stable partitions and
//! counterexamples ([`super`]'s module docs).

use super::*;

/// A fixed point of `R` proved to exist in `phi`, with `G` enclosed on all of `phi`.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct FixedPointProof {
    /// `φ*` lies in `[phi[0], phi[1]]` (rad).
    pub phi: [f64; 2],
    /// `G(φ) ∈ [G[0], G[1]]` for every `φ` there.
    #[serde(rename = "G")]
    pub g: [f64; 2],
}

/// The proof behind a verdict of [`crate::twocontact::classify::classify`].
#[derive(Debug, Clone, Serialize)]
pub struct VerdictProof {
    /// `"interval"` or `"none"` with the reason.
    #[serde(flatten)]
    pub proof: Proof,
    /// What the verdict is about beyond the parameters, when that is not the file as written:
    /// the gaps of contacts P1 took as closed ([`TwoContact::enclosure`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub assumes: Option<String>,
    /// The mode facts, each proved, disproved or undecided.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub facts: Option<ModeFacts>,
    /// Pieces of the circle on which the return was enclosed (Theorem 3).
    pub pieces: usize,
    /// Upper bound of `G` over every piece where `R` is defined (Theorems 3 and 5); null when a
    /// piece is undecided.
    #[serde(rename = "G_max")]
    pub g_max: Option<f64>,
    /// The fixed point with `G > 1` (Theorem 2).
    pub fixed_point: Option<FixedPointProof>,
    /// The argument of a proof that is not the verdict's own theorem (a Theorem 5 verdict proved
    /// through the stable partition of Theorem 4a, as P1's proof of Theorem 5 does).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub argument: Option<String>,
    /// Where the verdict's theorem is refuted: `G > 1` proved at an angle (Theorem 3).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub counterexample: Option<Counterexample>,
    /// Pieces `[φ_lo, φ_hi]` left undecided (at most [`LISTED_UNDECIDED`] listed) and their count.
    pub undecided: Vec<[f64; 2]>,
    /// Number of undecided pieces.
    pub undecided_count: usize,
}

/// An angle where `G > 1` is proved: Theorem 3's premise fails there, whatever the samples say.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Counterexample {
    /// `φ` (rad).
    pub phi: f64,
    /// `G(φ) ∈ [G[0], G[1]]`, `G[0] > 1`.
    #[serde(rename = "G")]
    pub g: [f64; 2],
}

/// Pieces' midpoints tried by [`counterexample`].
pub(super) const COUNTEREXAMPLE_TRIES: usize = 64;

/// A proved `G(φ) > 1` at the midpoint of an undecided piece (the return a single proved path
/// there), if one of the first [`COUNTEREXAMPLE_TRIES`] has it.
pub(super) fn counterexample(z: &IZod, pieces: &[ReturnPiece]) -> Option<Counterexample> {
    pieces.iter().filter(|p| p.outcomes.is_empty()).take(COUNTEREXAMPLE_TRIES).find_map(|p| {
        let phi = 0.5 * (p.lo + p.hi);
        match z.enclose_return(phi, phi).ok()?.as_slice() {
            [ReturnEnclosure::Returned { g, .. }] if g.lo() > 1.0 => Some(Counterexample { phi, g: [g.lo(), g.hi()] }),
            _ => None,
        }
    })
}

impl VerdictProof {
    /// What a closed proof shows, clause by clause (empty when it did not close).
    pub fn shows(&self) -> Vec<String> {
        if !self.proof.is_proved() {
            return vec![];
        }
        let mut parts = Vec::new();
        if let Some(f) = &self.facts {
            parts.push(format!(
                "SS consistent at rest, no other mode, one mode per state class{}",
                if f.persistent == [Tri::Yes; 2] { ", persistent" } else { "" }
            ));
        }
        if self.pieces > 0 {
            parts.push(format!("the return enclosed on {} pieces covering [−π/2, π/2]", self.pieces));
        }
        if let Some(a) = &self.argument {
            parts.push(a.clone());
        }
        match self.g_max {
            Some(g) if g.is_finite() => parts.push(format!("G ≤ {g:.6} wherever R is defined")),
            Some(_) => parts.push("G's enclosure unbounded near ±π/2 (as P1 Lemma 2a, set 2, has G)".into()),
            None => {}
        }
        if let Some(f) = &self.fixed_point {
            parts.push(format!(
                "a fixed point φ* in [{:.12}, {:.12}] with G* in [{:.9}, {:.9}]",
                f.phi[0], f.phi[1], f.g[0], f.g[1]
            ));
        }
        parts
    }
}

/// Undecided pieces listed in a [`VerdictProof`].
pub const LISTED_UNDECIDED: usize = 8;

impl VerdictProof {
    pub(super) fn none(reason: impl Into<String>, facts: Option<ModeFacts>) -> Self {
        VerdictProof {
            proof: Proof::none(reason),
            assumes: None,
            facts,
            pieces: 0,
            g_max: None,
            fixed_point: None,
            argument: None,
            counterexample: None,
            undecided: vec![],
            undecided_count: 0,
        }
    }
}

/// Half-widths (rad) of the interval around a sampled fixed point tried by [`prove_fixed_point`].
pub(super) const FIXED_POINT_BOXES: [f64; 4] = [1e-9, 1e-7, 1e-5, 1e-3];

/// A fixed point of `R` near `phi` with `G > 1` on its interval: `R(φ) − φ` has proved opposite
/// signs at the interval's ends and the return follows one proved sequence of events on all of
/// it (so `R` is continuous there, and the intermediate value theorem gives `φ*`).
pub fn prove_fixed_point(z: &IZod, phi: f64) -> Result<FixedPointProof, String> {
    let diff = |x: f64| -> Option<I> {
        match z.enclose_return(x, x).ok()?.as_slice() {
            [ReturnEnclosure::Returned { r, .. }] => Some(*r - ex(x)),
            _ => None,
        }
    };
    let mut last = "R is not enclosed near the fixed point".to_string();
    for h in FIXED_POINT_BOXES {
        let (a, b) = (phi - h, phi + h);
        let (Some(da), Some(db)) = (diff(a), diff(b)) else { continue };
        let opposite = (da.is_positive() && db.is_negative()) || (da.is_negative() && db.is_positive());
        if !opposite {
            last = format!("R(φ) − φ not of proved opposite signs at φ* ± {h:e}");
            continue;
        }
        match z.enclose_return(a, b) {
            Ok(v) => match v.as_slice() {
                [ReturnEnclosure::Returned { g, .. }] => {
                    return Ok(FixedPointProof { phi: [a, b], g: [g.lo(), g.hi()] });
                }
                _ => last = format!("the return splits or rests on φ* ± {h:e}"),
            },
            Err(e) => last = e,
        }
    }
    Err(last)
}

/// The premises of Theorems 2–5: an equilibrium, unambiguous and free of Painlevé states.
pub(super) fn premises(f: &ModeFacts) -> Result<(), String> {
    need(f.equilibrium, "SS consistent at rest (equilibrium)")?;
    need(f.unambiguous, "no other mode consistent at rest")?;
    need(f.painleve_free, "one consistent mode in every state class (Painlevé-free)")
}

/// Whether `t` is proved, with the fact's name for the reason when not.
pub(super) fn need(t: Tri, what: &str) -> Result<(), String> {
    match t {
        Tri::Yes => Ok(()),
        Tri::No => Err(format!("{what} is disproved in interval arithmetic")),
        Tri::Unknown => Err(format!("{what} is not decided in interval arithmetic")),
    }
}

/// Proves the verdict `c` of `p`: P1's Theorems 1–3, no equilibrium, Theorem 5 (`R` constant, or
/// else through a stable partition) and Theorems 4, 4a (a stable partition); `"none"` with the
/// reason where a proof does not close.
pub fn prove_verdict(p: &TwoContact, c: &ConfigClassification) -> VerdictProof {
    let mut v = prove_verdict_of_closed(p, c);
    let e = p.enclosed();
    let mut assumes = vec![];
    if !e.closed_exactly() {
        assumes.push(format!(
            "the contacts' gaps {} m and {} m were taken as closed (P1's body rests on both): the verdict \
             and its proof are about the body with both contacts closed",
            e.gaps[0], e.gaps[1]
        ));
    }
    if e.tree_converted {
        assumes.push(
            "the body is the planar tree converted from the URDF in floating point (joint angles from rpy \
             rotations, inertias projected on the plane's normal): the proof starts from that tree's numbers"
                .to_string(),
        );
    }
    if !assumes.is_empty() {
        v.assumes = Some(assumes.join("; "));
    }
    v
}

/// [`prove_verdict`] for P1's body with both contacts closed.
pub(super) fn prove_verdict_of_closed(p: &TwoContact, c: &ConfigClassification) -> VerdictProof {
    let z = match IZod::new(p) {
        Ok(z) => z,
        Err(e) => return VerdictProof::none(e, None),
    };
    let f = ModeFacts::prove(&z);
    match c.theorem {
        Theorem::SsInconsistent => match f.equilibrium {
            Tri::No => VerdictProof { proof: Proof::interval(), ..VerdictProof::none("", Some(f)) },
            t => VerdictProof::none(need(t, "SS inconsistent").err().unwrap_or_default(), Some(f)),
        },
        Theorem::Theorem1 => match (f.equilibrium, f.unambiguous) {
            (Tri::Yes, Tri::No) => VerdictProof { proof: Proof::interval(), ..VerdictProof::none("", Some(f)) },
            _ => VerdictProof::none("SS and a second mode consistent at rest are not both proved", Some(f)),
        },
        Theorem::Theorem2 => {
            if let Err(e) = premises(&f) {
                return VerdictProof::none(e, Some(f));
            }
            let Some(fp) = c.fixed_points.iter().find(|q| q.g > 1.0) else {
                return VerdictProof::none("no sampled fixed point with G > 1", Some(f));
            };
            match prove_fixed_point(&z, fp.phi) {
                Ok(q) if q.g[0] > 1.0 => {
                    VerdictProof { proof: Proof::interval(), fixed_point: Some(q), ..VerdictProof::none("", Some(f)) }
                }
                Ok(q) => VerdictProof {
                    fixed_point: Some(q),
                    ..VerdictProof::none("G > 1 not proved on the fixed point's interval", Some(f))
                },
                Err(e) => VerdictProof::none(format!("fixed point: {e}"), Some(f)),
            }
        }
        Theorem::Theorem3 => {
            if let Err(e) = premises(&f)
                .and_then(|_| need(f.persistent[0], "persistence (ẋ₂ > 0)"))
                .and_then(|_| need(f.persistent[1], "persistence (ẋ₂ < 0)"))
            {
                return VerdictProof::none(e, Some(f));
            }
            let pieces = prove_over_circle(&z, &|e| safe(std::slice::from_ref(e)));
            let mut v = circle_proof(&pieces, f.clone(), "G < 1 wherever R is defined");
            if v.proof.is_proved() {
                return v;
            }
            // Theorem 3 does not close (or is refuted): the same verdict through a stable
            // partition (Theorem 4, the equilibrium being persistent).
            let ce = counterexample(&z, &pieces);
            let refuted = ce.map(|c| {
                format!(
                    "Theorem 3's premise refuted: G(φ) ∈ [{:.9}, {:.9}] > 1 at φ = {:.12} (proved; the samples missed it)",
                    c.g[0], c.g[1], c.phi
                )
            });
            let mut w = prove_stable_partition(&z, f);
            w.counterexample = ce;
            if w.proof.is_proved() {
                if let (Some(a), Some(r)) = (w.argument.as_mut(), refuted) {
                    *a = format!("{a} ({r})");
                }
                return w;
            }
            v.counterexample = ce;
            if let Some(r) = v.proof.proof_reason.as_mut() {
                let alt = w.proof.proof_reason.unwrap_or_default();
                *r = match refuted {
                    Some(x) => format!("{x}; {r}; through a stable partition (Theorem 4): {alt}"),
                    None => format!("{r}; through a stable partition (Theorem 4): {alt}"),
                };
            }
            v
        }
        Theorem::Theorem5 => {
            if let Err(e) = premises(&f) {
                return VerdictProof::none(e, Some(f));
            }
            prove_theorem5(&z, f)
        }
        Theorem::Theorem4 | Theorem::Theorem4a => {
            if let Err(e) = premises(&f) {
                return VerdictProof::none(e, Some(f));
            }
            prove_stable_partition(&z, f)
        }
        _ => VerdictProof::none("no theorem decided the verdict", Some(f)),
    }
}

/// Theorem 5 where every return ends as the body turns about point 1 at rest, so that `R` is
/// the constant `R₁` wherever it is defined: then `R` is non-decreasing, its only fixed point
/// is `φ* = R₁` (checked: `G < 1` there), `|R(±π/2)| = |R₁| < π/2`, and weak persistence
/// needs only the slipping double impacts of every return (none in a direction that is not
/// persistent). A return that ends otherwise leaves `R` varying: then the proof goes through a
/// stable partition ([`prove_stable_partition`]), which is how P1 derives Theorem 5 from
/// Theorem 4a (`R`'s monotonicity itself would need an enclosure of `R′`).
pub(super) fn prove_theorem5(z: &IZod, f: ModeFacts) -> VerdictProof {
    // Whether a return ends turning about point 1 is a discrete property no bisection changes:
    // where a point of the circle shows it does not, go to the partition at once.
    let varying =
        (1..INITIAL_PIECES).map(|k| -FRAC_PI_2 + std::f64::consts::PI * k as f64 / INITIAL_PIECES as f64).find(|&x| {
            z.enclose_return(x, x)
                .is_ok_and(|v| v.iter().any(|o| matches!(o, ReturnEnclosure::Returned { pivot: false, .. })))
        });
    if let Some(x) = varying {
        let mut w = prove_stable_partition(z, f);
        if let Some(r) = w.proof.proof_reason.take() {
            w.proof = Proof::none(format!(
                "R varies (the return from φ = {x:.6} does not end turning about point 1); through a stable partition \
                 (Theorem 4a): {r}"
            ));
        }
        return w;
    }
    let pieces = prove_over_circle(z, &|e| match e {
        ReturnEnclosure::Rest { .. } => true,
        ReturnEnclosure::Returned { pivot, .. } => *pivot,
    });
    let mut v = circle_proof(&pieces, f.clone(), "R constant (the body turning about point 1) wherever it is defined");
    if !v.proof.is_proved() {
        // R varies: P1 proves Theorem 5 by building a stable partition and applying Theorem 4a;
        // prove such a partition directly (R's monotonicity itself would need R′).
        let why = v.proof.proof_reason.take().unwrap_or_default();
        let mut w = prove_stable_partition(z, f);
        if let Some(r) = w.proof.proof_reason.take() {
            w.proof = Proof::none(format!("{why}; through a stable partition (Theorem 4a): {r}"));
        }
        return w;
    }
    let Some(r1) = z.r_pivot() else {
        return VerdictProof::none("R₁ = atan(e₁/e₂): e₂ not proved nonzero", Some(f));
    };
    // Weak persistence: in each direction that is not persistent, no slipping double impact in
    // any return.
    let bits = double_slip_bits(&pieces);
    for (d, name) in [(0usize, "ẋ₂ > 0"), (1, "ẋ₂ < 0")] {
        if f.persistent[d] != Tri::Yes && bits & (1 << d) != 0 {
            return VerdictProof::none(
                format!("weak persistence ({name}): a return may contain a slipping double impact"),
                Some(f),
            );
        }
    }
    // The fixed point φ* = R₁: G < 1 there (every outcome the interval R₁ allows).
    match z.enclose_return(r1.lo(), r1.hi()) {
        Ok(outs) => {
            let g_fixed = outs.iter().find_map(|o| match o {
                ReturnEnclosure::Returned { g, .. } => Some(*g),
                ReturnEnclosure::Rest { .. } => None,
            });
            if outs.iter().any(|o| matches!(o, ReturnEnclosure::Returned { g, .. } if g.hi() >= 1.0)) {
                return VerdictProof::none("G < 1 not proved at the fixed point φ* = R₁", Some(f));
            }
            if let Some(g) = g_fixed {
                v.fixed_point = Some(FixedPointProof { phi: [r1.lo(), r1.hi()], g: [g.lo(), g.hi()] });
            }
            v.argument = Some("R = R₁ = atan(e₁/e₂) (the body turning about point 1) wherever defined".into());
            v
        }
        Err(e) => VerdictProof::none(format!("the return at the fixed point φ* = R₁: {e}"), Some(f)),
    }
}

/// Rounds of refinement [`prove_stable_partition`] spends on pieces that lie on a cycle of the
/// interval graph without being safe.
pub const PARTITION_ROUNDS: usize = 24;

/// Halvings of the end piece tried to separate `G±` from 1 and `R(±π/2)` from `±π/2`.
pub(super) const END_HALVINGS: usize = 40;

/// `+1` if `R(φ) > φ` on all of `[lo, hi]` for every outcome that returns, `−1` if `R(φ) < φ`,
/// `0` if neither is proved (or nothing returns).
pub(super) fn drift(lo: f64, hi: f64, outs: &[ReturnEnclosure]) -> i8 {
    let rs: Vec<I> = outs.iter().filter_map(returned_r).collect();
    if rs.is_empty() {
        0
    } else if rs.iter().all(|r| r.lo() > hi) {
        1
    } else if rs.iter().all(|r| r.hi() < lo) {
        -1
    } else {
        0
    }
}

pub(super) fn returned_r(o: &ReturnEnclosure) -> Option<I> {
    match o {
        ReturnEnclosure::Returned { r, .. } => Some(*r),
        ReturnEnclosure::Rest { .. } => None,
    }
}

/// The slipping double impacts met in any return of `pieces` (bits as
/// [`super::poincare::MapPoint::double_slip`]).
pub(super) fn double_slip_bits(pieces: &[ReturnPiece]) -> u8 {
    pieces.iter().flat_map(|p| p.outcomes.iter()).fold(0u8, |b, o| match o {
        ReturnEnclosure::Returned { double_slip, .. } | ReturnEnclosure::Rest { double_slip } => b | double_slip,
    })
}

/// P1's Definition 6: `G < 1` wherever `R` is defined on the piece.
pub(super) fn safe(outs: &[ReturnEnclosure]) -> bool {
    outs.iter().all(|o| match o {
        ReturnEnclosure::Rest { .. } => true,
        ReturnEnclosure::Returned { g, .. } => g.hi() < 1.0,
    })
}

/// The interval graph of P1's Definition 4 over the ordered pieces, over-approximated: an edge
/// `j → k` (`k ≠ j`) wherever the enclosure of `R` on piece `j` meets piece `k`. Extra edges
/// only add cycles, so a piece off every cycle of this graph is off every cycle of the exact one.
pub(super) fn interval_graph(pieces: &[ReturnPiece]) -> Vec<Vec<usize>> {
    pieces
        .iter()
        .enumerate()
        .map(|(j, p)| {
            let mut out: Vec<usize> = Vec::new();
            for r in p.outcomes.iter().filter_map(returned_r) {
                let first = pieces.partition_point(|q| q.hi < r.lo());
                let last = pieces.partition_point(|q| q.lo <= r.hi());
                out.extend((first..last).filter(|&k| k != j));
            }
            out.sort_unstable();
            out.dedup();
            out
        })
        .collect()
}

/// Proves a stable partition (P1's Definitions 3–8a) for the weakly persistent equilibrium of
/// `z`, and with it FTLS by Theorem 4a (Theorem 4 when persistent).
///
/// The pieces of the circle are the partition. Each piece is proved **safe** (`G < 1` on every
/// outcome) or proved to **drift** (`R(φ) − φ` of one sign on all of it); then every piece that
/// is not safe must lie on no cycle of the over-approximated `interval_graph` (so it is
/// **transient**). Pieces that are not safe and lie on a cycle are bisected, with every piece of
/// their strongly connected component (the over-approximation of `R` shrinks with the pieces),
/// for at most [`PARTITION_ROUNDS`] rounds within the work bound. Then Definition 8a's `G± ≠ 1`
/// where `G±` exists, and weak persistence (Definition 2): in each direction that is not
/// persistent, `|R(±π/2)| < π/2` (the branch (11), `R′(±π/2) > 1`, needs `R′`: not proved) and no
/// slipping double impact in any return.
pub fn prove_stable_partition(z: &IZod, f: ModeFacts) -> VerdictProof {
    // Weak persistence includes unambiguity, and the theory needs an equilibrium free of
    // Painlevé states.
    if let Err(e) = premises(&f) {
        return VerdictProof::none(e, Some(f));
    }
    let (pieces, rounds) = match partition(z, &f) {
        Ok(x) => x,
        Err(v) => return *v,
    };
    // Definition 8a at both ends, and weak persistence (Definition 2) in each direction.
    let bits = double_slip_bits(&pieces);
    for (d, name) in [(0usize, "ẋ₂ > 0, φ → π/2"), (1, "ẋ₂ < 0, φ → −π/2")] {
        let end = if d == 0 { pieces.last() } else { pieces.first() };
        let Some(end) = end else { break };
        if let Err(e) = prove_end(z, end, d == 0, f.persistent[d] != Tri::Yes) {
            return VerdictProof::none(format!("{name}: {e}"), Some(f));
        }
        if f.persistent[d] != Tri::Yes && bits & (1 << d) != 0 {
            return VerdictProof::none(
                format!("weak persistence ({name}): a return may contain a slipping double impact"),
                Some(f),
            );
        }
    }
    let mut v = circle_proof(&pieces, f, WHAT);
    let safe_count = pieces.iter().filter(|p| safe(&p.outcomes)).count();
    v.argument = Some(format!(
        "a stable partition (P1 Theorem 4a): {} pieces, {safe_count} safe, {} transient, after {rounds} refinements",
        pieces.len(),
        pieces.len() - safe_count
    ));
    v
}

/// What every piece of a stable partition satisfies before the graph is checked.
pub(super) const WHAT: &str = "every piece safe (G < 1) or drifting (R(φ) − φ of one sign)";

/// The pieces of a proved stable partition and the refinement rounds it took (see
/// [`prove_stable_partition`]), or the failed proof.
pub(crate) fn partition(z: &IZod, f: &ModeFacts) -> Result<(Vec<ReturnPiece>, usize), Box<VerdictProof>> {
    let accept = |lo: f64, hi: f64, outs: &[ReturnEnclosure]| safe(outs) || drift(lo, hi, outs) != 0;
    let spent = AtomicUsize::new(0);
    let mut pieces = cover_circle(z, &accept, &spent);
    let mut rounds = 0;
    loop {
        let v = circle_proof(&pieces, f.clone(), WHAT);
        if !v.proof.is_proved() {
            return Err(Box::new(v));
        }
        let adj = interval_graph(&pieces);
        let comp = crate::twocontact::classify::components(&adj);
        let mut size = vec![0usize; pieces.len()];
        for &c in &comp {
            size[c] += 1;
        }
        let bad: Vec<usize> = (0..pieces.len()).filter(|&j| size[comp[j]] > 1 && !safe(&pieces[j].outcomes)).collect();
        let Some(&first) = bad.first() else { break };
        let mut bad_comp = vec![false; pieces.len()];
        for &j in &bad {
            bad_comp[comp[j]] = true;
        }
        let refine: Vec<bool> =
            pieces.iter().zip(&comp).map(|(p, &c)| bad_comp[c] && p.depth < MAX_DEPTH && p.lo < p.hi).collect();
        if rounds == PARTITION_ROUNDS || !refine.iter().any(|&r| r) || spent.load(Ordering::Relaxed) >= MAX_EVALUATIONS
        {
            let p = &pieces[first];
            return Err(Box::new(VerdictProof {
                proof: Proof::none(format!(
                    "{} of {} pieces are neither safe nor off every cycle of the interval graph after {rounds} \
                     refinements, the first [{:.12}, {:.12}]",
                    bad.len(),
                    pieces.len(),
                    p.lo,
                    p.hi
                )),
                undecided: bad.iter().take(LISTED_UNDECIDED).map(|&j| [pieces[j].lo, pieces[j].hi]).collect(),
                undecided_count: bad.len(),
                ..v
            }));
        }
        rounds += 1;
        let old = std::mem::take(&mut pieces);
        pieces = old
            .into_par_iter()
            .zip(refine.into_par_iter())
            .flat_map_iter(|(p, r)| {
                if r {
                    let mid = 0.5 * (p.lo + p.hi);
                    let mut v = prove_piece(z, (p.lo, mid, p.depth + 1), &accept, &spent);
                    v.extend(prove_piece(z, (mid, p.hi, p.depth + 1), &accept, &spent));
                    v
                } else {
                    vec![p]
                }
            })
            .collect();
        pieces.sort_by(|a, b| a.lo.total_cmp(&b.lo));
    }
    Ok((pieces, rounds))
}

/// At the end `φ → ±π/2` (`plus` for `+`) with the end piece `p`: `G± ≠ 1` where `G±` exists
/// (Definition 8a) and, when `weak` (the direction is not persistent), `|R(±π/2)| < π/2`
/// (Definition 2, condition (10)). Shrinks the end piece towards `±π/2` until the enclosures
/// decide: every limit lies in the enclosures of every piece reaching the end.
pub(super) fn prove_end(z: &IZod, p: &ReturnPiece, plus: bool, weak: bool) -> Result<(), String> {
    let decided = |outs: &[ReturnEnclosure]| {
        outs.iter().all(|o| match o {
            ReturnEnclosure::Rest { .. } => true,
            ReturnEnclosure::Returned { r, g, .. } => {
                (g.hi() < 1.0 || g.lo() > 1.0) && (!weak || (r.hi() < FRAC_PI_2 && r.lo() > -FRAC_PI_2))
            }
        })
    };
    if decided(&p.outcomes) {
        return Ok(());
    }
    let (lo, hi) = (p.lo, p.hi);
    let mut last = "the end's enclosure does not decide".to_string();
    for k in 1..=END_HALVINGS {
        let w = (hi - lo) * 0.5f64.powi(k as i32);
        let (a, b) = if plus { (hi - w, hi) } else { (lo, lo + w) };
        match z.enclose_return(a, b) {
            Ok(outs) if decided(&outs) => return Ok(()),
            Ok(_) => {
                last = if weak {
                    "G± ≠ 1 or |R(±π/2)| < π/2 not proved (R(±π/2) = ±π/2 with R′(±π/2) > 1, the other branch of \
                     weak persistence, needs an enclosure of R′: not implemented)"
                        .to_string()
                } else {
                    "G± ≠ 1 not proved".to_string()
                }
            }
            Err(e) => last = e,
        }
    }
    Err(last)
}

pub(super) fn circle_proof(pieces: &[ReturnPiece], facts: ModeFacts, what: &str) -> VerdictProof {
    let undecided: Vec<&ReturnPiece> = pieces.iter().filter(|p| p.outcomes.is_empty()).collect();
    // A bound over the decided pieces only is no bound: null unless every piece is decided.
    let g_max = pieces
        .iter()
        .filter(|_| undecided.is_empty())
        .flat_map(|p| p.outcomes.iter())
        .filter_map(|o| match o {
            ReturnEnclosure::Returned { g, .. } => Some(g.hi()),
            ReturnEnclosure::Rest { .. } => None,
        })
        .fold(None, |m: Option<f64>, g| Some(m.map_or(g, |m| m.max(g))));
    let proof = match undecided.first() {
        None => Proof::interval(),
        Some(p) => Proof::none(format!(
            "{what}: {} of {} pieces undecided, the first [{:.12}, {:.12}]: {}",
            undecided.len(),
            pieces.len(),
            p.lo,
            p.hi,
            p.reason.as_deref().unwrap_or("")
        )),
    };
    VerdictProof {
        proof,
        assumes: None,
        facts: Some(facts),
        pieces: pieces.len(),
        g_max,
        fixed_point: None,
        argument: None,
        counterexample: None,
        undecided: undecided.iter().take(LISTED_UNDECIDED).map(|p| [p.lo, p.hi]).collect(),
        undecided_count: undecided.len(),
    }
}
