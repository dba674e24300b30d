//! The one list of model kinds: for each value of the `kind` key, its reader, one line of
//! documentation, the paper it comes from, the command-line analyses that accept it and, for
//! parameter studies, the columns a cell gets.
//!
//! Everything that depends on the kinds reads this list: [`KINDS`] (the allowed values of
//! `kind`), the command line's "model file with kind = …" help ([`model_help`]), the Python
//! package's dispatch ([`read`], [`sweep_columns`]). Adding a kind is one entry here and its
//! reader.

use crate::model::ModelDoc;
use crate::Error;

/// A model read from a document, by kind.
#[derive(Debug, Clone)]
pub enum Model {
    /// `lcp` (the LCP core).
    Lcp(crate::lcp::io::LcpFile),
    /// `fixture` (P4).
    Fixture(crate::fixture::Fixture),
    /// `planar-two-contact` (P1).
    TwoContact(crate::twocontact::TwoContact),
    /// `rimless-wheel`, `compass-biped` (P2).
    Walker(crate::walking::model::WalkerModel),
    /// `double-pendulum-stop`, `bouncing-ball` (P3).
    Zeno(crate::zeno::model::ZenoModel),
    /// `rod-two-sliders`, `friction-oscillator` (P5).
    Eqset(crate::eqset::model::EqsetModel),
    /// `multibody` (a user's mechanism).
    Mechanism(Box<crate::multibody::Mechanism>),
}

/// One model kind.
#[derive(Debug, Clone, Copy)]
pub struct KindDef {
    /// The value of the `kind` key.
    pub kind: &'static str,
    /// The paper whose system it is (`P1` … `P5`, or `LCP`).
    pub paper: &'static str,
    /// One line of documentation.
    pub summary: &'static str,
    /// The command-line analyses that accept it (`"walker gait"`, …).
    pub analyses: &'static [&'static str],
    /// The columns of a parameter-study cell (`None`: no parameter studies for this kind).
    pub sweep: Option<&'static [&'static str]>,
    /// The reader.
    pub read: fn(&ModelDoc) -> Result<Model, Error>,
}

const WALKER: &[&str] = &["walker gait", "walker painleve", "walker slip"];
const EQSET: &[&str] = &["eqset analyze", "eqset portrait", "eqset simulate"];

/// Every kind, in the order help and errors list them.
pub const REGISTRY: &[KindDef] = &[
    KindDef {
        kind: "lcp",
        paper: "LCP",
        summary: "a linear complementarity problem 0 <= z ⟂ Mz + q >= 0 (M, q, optional covering vector)",
        analyses: &["lcp solve", "lcp classes"],
        sweep: None,
        read: |d| crate::lcp::io::from_model(d).map(Model::Lcp),
    },
    KindDef {
        kind: "fixture",
        paper: "P4",
        summary: "a fixtured body: contacts with normals, friction, the external load",
        analyses: &["fixture classify", "fixture theorem4", "fixture cones", "fixture mu-sweep"],
        sweep: Some(&["classification", "weakly_stable", "strongly_stable", "critical_mu"]),
        read: |d| crate::fixture::model::from_model(d).map(Model::Fixture),
    },
    KindDef {
        kind: "planar-two-contact",
        paper: "P1",
        summary: "a planar rigid body resting on two frictional point contacts",
        analyses: &[
            "equilibrium modes",
            "equilibrium maps",
            "equilibrium classify",
            "equilibrium simulate",
            "equilibrium atlas",
        ],
        sweep: Some(&["verdict", "theorem", "g_star", "proof"]),
        read: |d| crate::twocontact::model::from_model(d).map(Model::TwoContact),
    },
    KindDef {
        kind: "double-pendulum-stop",
        paper: "P3",
        summary: "P3's double pendulum with a stop on the knee (optionally PD-controlled)",
        analyses: &["zeno simulate", "zeno orbit", "zeno bound", "zeno continue", "continue"],
        sweep: None,
        read: |d| crate::zeno::model::from_model(d).map(Model::Zeno),
    },
    KindDef {
        kind: "bouncing-ball",
        paper: "P3",
        summary: "a ball bouncing on the ground (the classic Zeno execution)",
        analyses: &["zeno simulate"],
        sweep: None,
        read: |d| crate::zeno::model::from_model(d).map(Model::Zeno),
    },
    KindDef {
        kind: "rimless-wheel",
        paper: "P2",
        summary: "P2's rimless wheel on a slope (stick, slip, heel strike)",
        analyses: WALKER,
        sweep: None,
        read: |d| crate::walking::model::from_model(d).map(Model::Walker),
    },
    KindDef {
        kind: "compass-biped",
        paper: "P2",
        summary: "P2's compass biped on a slope (stick, slip, heel strike)",
        analyses: WALKER,
        sweep: None,
        read: |d| crate::walking::model::from_model(d).map(Model::Walker),
    },
    KindDef {
        kind: "rod-two-sliders",
        paper: "P5",
        summary: "P5's rod on two bilateral frictional sliders",
        analyses: EQSET,
        sweep: None,
        read: |d| crate::eqset::model::from_model(d).map(Model::Eqset),
    },
    KindDef {
        kind: "friction-oscillator",
        paper: "P5",
        summary: "a mass on a spring sliding with Coulomb friction (P5's one-DOF check model)",
        analyses: EQSET,
        sweep: None,
        read: |d| crate::eqset::model::from_model(d).map(Model::Eqset),
    },
    KindDef {
        kind: "multibody",
        paper: "any",
        summary: "your own planar mechanism: a tree of bodies with joints, contacts on lines, joint limits, springs and PD laws",
        analyses: &[
            "simulate",
            "gait",
            "continue",
            "basin",
            "painleve",
            "slip",
            "orbit",
            "model inspect",
            "equilibrium modes",
            "equilibrium maps",
            "equilibrium classify",
            "equilibrium simulate",
            "equilibrium atlas",
        ],
        sweep: None,
        read: |d| crate::multibody::model::from_model(d).map(|m| Model::Mechanism(Box::new(m))),
    },
];

/// The model kinds contactlab understands (the value of the `kind` key), in the order of
/// [`REGISTRY`].
pub const KINDS: [&str; REGISTRY.len()] = {
    let mut out = [""; REGISTRY.len()];
    let mut i = 0;
    while i < out.len() {
        out[i] = REGISTRY[i].kind;
        i += 1;
    }
    out
};

/// The kind named `kind`.
pub fn find(kind: &str) -> Option<&'static KindDef> {
    REGISTRY.iter().find(|k| k.kind == kind)
}

/// Reads a document by its `kind`.
pub fn read(doc: &ModelDoc) -> Result<Model, Error> {
    let kind = doc.kind_in(&KINDS)?;
    let def = find(kind).ok_or_else(|| Error::input(&doc.file, "kind", format!("no reader for {kind:?}")))?;
    (def.read)(doc)
}

/// The kinds an analysis (`"walker gait"`) accepts.
pub fn kinds_for(analysis: &str) -> Vec<&'static str> {
    REGISTRY.iter().filter(|k| k.analyses.contains(&analysis)).map(|k| k.kind).collect()
}

/// The command line's help for an analysis's model argument: `Model file with kind =
/// "rimless-wheel" or "compass-biped".`
pub fn model_help(analysis: &str) -> String {
    let kinds: Vec<String> = kinds_for(analysis).iter().map(|k| format!("\"{k}\"")).collect();
    let list = match kinds.len() {
        0 => "(none)".to_string(),
        1 => kinds[0].clone(),
        n => format!("{} or {}", kinds[..n - 1].join(", "), kinds[n - 1]),
    };
    format!("Model file (TOML or JSON) with kind = {list}; see docs/models.md.")
}

/// The columns of a parameter-study cell for `kind`, if it has parameter studies.
pub fn sweep_columns(kind: &str) -> Option<&'static [&'static str]> {
    find(kind).and_then(|k| k.sweep)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_is_listed_once_and_reads_its_example() {
        for (i, k) in REGISTRY.iter().enumerate() {
            assert!(REGISTRY[..i].iter().all(|o| o.kind != k.kind), "{} twice", k.kind);
            assert_eq!(KINDS[i], k.kind);
            assert!(!k.analyses.is_empty(), "{}", k.kind);
        }
        // Each kind's reader is the one for that kind: a minimal document of another kind fails.
        let doc = ModelDoc::parse("x.toml", "kind = \"lcp\"\nM = [[2, 1], [1, 2]]\nq = [-5, -6]\n", false).unwrap();
        assert!(matches!(read(&doc), Ok(Model::Lcp(_))));
        assert_eq!(kinds_for("walker gait"), vec!["rimless-wheel", "compass-biped"]);
        assert_eq!(
            model_help("eqset analyze"),
            "Model file (TOML or JSON) with kind = \"rod-two-sliders\" or \"friction-oscillator\"; see docs/models.md."
        );
        assert_eq!(sweep_columns("fixture").map(|c| c.len()), Some(4));
        assert!(sweep_columns("lcp").is_none());
    }
}
