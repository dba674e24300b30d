//! Every shipped example file runs through every command that applies to it and succeeds (exit 0,
//! one JSON object, the output files written). Sizes are kept small so the suite stays fast.

use std::path::{Path, PathBuf};
use std::process::Command;

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

fn files(kind: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(examples().join(kind)).unwrap().map(|e| e.unwrap().path()).collect();
    v.sort();
    assert!(!v.is_empty());
    v
}

fn check(args: &[&str], file: &Path, out: &Path) {
    let mut all: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    all.insert(2, file.display().to_string());
    run(all, out);
}

/// Runs `contactlab ARGS --json --out OUT` and checks the answer (module docs).
fn run(mut all: Vec<String>, out: &Path) {
    all.extend(["--json".into(), "--out".into(), out.display().to_string()]);
    let o = Command::new(env!("CARGO_BIN_EXE_contactlab")).args(&all).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{all:?}: {err}");
    let text = String::from_utf8(o.stdout).unwrap();
    assert_eq!(text.trim().lines().count(), 1, "{all:?}: not one JSON line");
    serde_json::from_str::<serde_json::Value>(&text).unwrap_or_else(|e| panic!("{all:?}: {e}"));
    assert!(out.is_dir(), "{all:?}: no output directory");
    std::fs::remove_dir_all(out).ok();
}

#[test]
fn every_example_runs_every_command_that_applies() {
    let tmp = std::env::temp_dir().join(format!("contactlab-examples-{}", std::process::id()));
    let mut runs = 0;
    for f in files("lcp") {
        for args in [&["lcp", "solve"][..], &["lcp", "solve", "--all"], &["lcp", "classes"]] {
            check(args, &f, &tmp.join(format!("o{runs}")));
            runs += 1;
        }
    }
    for f in files("two-contact") {
        for args in [
            &["equilibrium", "modes"][..],
            &["equilibrium", "maps", "--samples", "51"],
            &["equilibrium", "classify", "--samples", "51"],
            &["equilibrium", "simulate", "--perturb", "z2=1e-4", "--max-events", "300"],
            &["equilibrium", "atlas", "--vary", "mu1=0.3:0.5:2", "--samples", "21"],
        ] {
            check(args, &f, &tmp.join(format!("o{runs}")));
            runs += 1;
        }
    }
    for f in files("fixture") {
        let text = std::fs::read_to_string(&f).unwrap();
        let planar = text.contains("dim = 2");
        check(&["fixture", "classify"], &f, &tmp.join(format!("o{runs}")));
        runs += 1;
        check(&["fixture", "theorem4"], &f, &tmp.join(format!("o{runs}")));
        check(&["fixture", "mu-sweep", "--steps", "6", "--max-scale", "2"], &f, &tmp.join(format!("p{runs}")));
        if planar {
            check(&["fixture", "cones", "--samples", "60"], &f, &tmp.join(format!("q{runs}")));
        }
        runs += 3;
    }
    for f in files("zeno") {
        let ball = f.to_string_lossy().contains("ball");
        let controlled = std::fs::read_to_string(&f).unwrap().contains("[control]");
        check(&["zeno", "simulate", "--t-max", "15"], &f, &tmp.join(format!("z{runs}")));
        runs += 1;
        if !ball {
            check(&["zeno", "orbit"], &f, &tmp.join(format!("z{runs}")));
            check(&["zeno", "continue", "--e-max", "0.1"], &f, &tmp.join(format!("x{runs}")));
            runs += 2;
        }
        if controlled {
            // Theorem 1 needs the simple orbit, which only the controlled pendulum has.
            let bound = ["zeno", "bound", "--eps1", "0.017", "--eps2", "0.06", "--eps3", "0.005", "--grid", "3"];
            check(&bound, &f, &tmp.join(format!("y{runs}")));
            runs += 1;
        }
    }
    for f in files("walker") {
        let rimless = f.to_string_lossy().contains("rimless");
        let state = if rimless { "-0.3,0.643,0.5" } else { "-0.5461,0.6860,0,0,10" };
        for args in [
            &["walker", "gait"][..],
            &["walker", "painleve"],
            &["walker", "slip", "--state", state],
            &["walker", "slip", "--state", state, "--jam-threshold"],
        ] {
            check(args, &f, &tmp.join(format!("w{runs}")));
            runs += 1;
        }
    }
    for f in files("eqset") {
        for args in [
            &["eqset", "analyze"][..],
            &["eqset", "portrait", "--grid", "6", "--steps", "2000", "--trajectories", "4"],
            &["eqset", "simulate", "--t-max", "2"],
        ] {
            check(args, &f, &tmp.join(format!("e{runs}")));
            runs += 1;
        }
    }
    for f in multibody_files() {
        let text = std::fs::read_to_string(&f).unwrap();
        let name = f.file_stem().unwrap().to_string_lossy().to_string();
        // (command words, options): the file goes between them.
        let mut commands: Vec<(Vec<&str>, Vec<String>)> =
            vec![(vec!["model", "inspect"], vec![]), (vec!["simulate"], argv(&["--t-max", "0.5", "--per-step", "2"]))];
        if let Some(contact) = first_named(&text, "[[contact]]") {
            commands.push((vec!["painleve"], argv(&["--contact", &contact])));
            commands.push((vec!["slip"], argv(&["--contact", &contact])));
        }
        if let Some(limit) = first_named(&text, "[[limit]]").filter(|_| !text.contains("[[contact]]")) {
            commands.push((vec!["orbit"], argv(&["--constraint", &limit])));
        }
        // The gait searches of the kneed walker and the simplest walker take seconds even in a
        // release build; tests/integration/beyond.rs and tests/integration/continuation.rs run them through the same
        // api call. The others run here.
        if text.contains("[gait]") && !name.contains("kneed") && !name.contains("simplest") {
            commands.push((vec!["gait"], vec![]));
        }
        if name == "rimless-wheel" {
            commands.push((vec!["continue"], argv(&["--param", "slope_deg", "--to", "4.5"])));
            commands.push((vec!["basin"], argv(&["--vary", "wheel.theta_dot=-0.8:-0.3:4", "--steps", "3"])));
        }
        if name.starts_with("p1-config") {
            commands.push((vec!["equilibrium", "modes"], vec![]));
            commands.push((vec!["equilibrium", "classify"], argv(&["--samples", "51"])));
        }
        for (words, options) in commands {
            let mut all = argv(&words);
            all.push(f.display().to_string());
            all.extend(options);
            run(all, &tmp.join(format!("m{runs}")));
            runs += 1;
        }
    }
    std::fs::remove_dir_all(&tmp).ok();
    assert!(runs >= 100, "{runs} runs");
}

fn argv(a: &[&str]) -> Vec<String> {
    a.iter().map(|s| s.to_string()).collect()
}

/// `examples/multibody/*.toml` and the URDF scenes in `examples/multibody/urdf/`.
fn multibody_files() -> Vec<PathBuf> {
    let mut v = Vec::new();
    for dir in ["multibody", "multibody/urdf"] {
        v.extend(files(dir).into_iter().filter(|p| p.extension().is_some_and(|e| e == "toml")));
    }
    assert!(v.len() >= 13, "{v:?}");
    v
}

/// The `name` of the first table after `header` in a model file.
fn first_named(text: &str, header: &str) -> Option<String> {
    let rest = &text[text.find(header)? + header.len()..];
    let line = rest.lines().find(|l| l.trim_start().starts_with("name"))?;
    Some(line.split('"').nth(1)?.to_string())
}
