//! End-to-end tests of the `contactlab` binary: JSON output, exit codes, and clear one-line
//! errors on malformed input.

mod common;
use common::{data, example, run, stderr, tmpdir};
use std::path::Path;
use std::process::Command;

#[test]
fn murty_json_is_one_verified_object() {
    let f = data().join("siconos-lcp/lcp_exp_murty.dat");
    let o = run(&["lcp", "solve", f.to_str().unwrap(), "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = String::from_utf8(o.stdout).unwrap();
    assert_eq!(text.trim().lines().count(), 1);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["status"], "solved");
    assert!(v["residual"].as_f64().unwrap() <= 1e-9);
    assert_eq!(v["z"].as_array().unwrap().len(), 6);
    assert!(v["pivots"].as_u64().is_some());
    // Verify complementarity from the printed numbers.
    let z: Vec<f64> = v["z"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
    let w: Vec<f64> = v["w"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
    assert!(z.iter().zip(&w).all(|(a, b)| *a >= 0.0 && *b >= 0.0 && (a * b).abs() < 1e-12));
}

#[test]
fn all_pieces_json() {
    let f = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/lcp/segment.toml");
    let out = tmpdir("all");
    let o = run(&["lcp", "solve", f.to_str().unwrap(), "--all", "--json", "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["status"], "solved");
    assert_eq!(v["count"], 1);
    assert_eq!(v["bounded"], true);
    assert!(out.join("pieces.csv").is_file());
    std::fs::remove_dir_all(out).ok();
}

#[test]
fn infeasible_example_reports_proved_no_solution() {
    let f = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/lcp/infeasible.json");
    let o = run(&["lcp", "solve", f.to_str().unwrap(), "--json"]);
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["status"], "no-solution");
    assert_eq!(v["proof"], "interval");
    // One flag: the older "certified" is gone (issue #40).
    assert!(v.get("certified").is_none(), "{v}");
}

#[test]
fn the_audits_lcps_answer_honestly() {
    // Issue #40: a solvable LCP once "certified" without solution, and one whose only solution is
    // beyond f64 once "solved" with complementarity off by 1.5.
    let dir = tmpdir("audit");
    let solvable = dir.join("solvable.json");
    std::fs::write(
        &solvable,
        r#"{"kind": "lcp", "M": [[9.094947017729282e-13, -1.0], [1024.0, 1.0]], "q": [-1.0, 1.0]}"#,
    )
    .unwrap();
    let o = run(&["lcp", "solve", solvable.to_str().unwrap(), "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!((v["status"].as_str(), v["proof"].as_str()), (Some("solved"), Some("interval")), "{v}");
    assert_eq!(v["z"][0].as_f64(), Some(2f64.powi(40)));
    // --all: whatever the floating-point search finds, never an unqualified "no-solution".
    let o = run(&["lcp", "solve", solvable.to_str().unwrap(), "--all", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v["status"] == "solved" || v["status"] == "numerical-error", "{v}");
    assert_ne!(v["proof"], "interval", "{v}");
    let beyond = dir.join("beyond.json");
    std::fs::write(&beyond, r#"{"kind": "lcp", "M": [[1e-310, 1.0], [1e200, 1.0]], "q": [-1.0, 1.0]}"#).unwrap();
    let o = run(&["lcp", "solve", beyond.to_str().unwrap(), "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["status"], "numerical-error", "{v}");
    assert!(v["violation"].as_f64().unwrap() > 0.1 && v["proof"] == "none", "{v}");
    // Numerical trouble exits 3 with one line naming it (README's exit codes).
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn malformed_inputs_exit_2_with_one_line() {
    let dir = tmpdir("bad");
    let cases: &[(&str, &str, &str)] = &[
        ("nan.toml", "kind = \"lcp\"\nM = [[nan]]\nq = [1]\n", "M[0][0]"),
        ("unknown.toml", "kind = \"lcp\"\nM = [[1]]\nq = [1]\nmass = 2\n", "mass: unknown key"),
        ("missing.toml", "kind = \"lcp\"\nM = [[1]]\n", "q: missing"),
        ("kind.toml", "kind = \"rocket\"\n", "kind"),
        ("type.toml", "kind = \"lcp\"\nM = \"x\"\nq = [1]\n", "M: expected an array"),
        ("shape.toml", "kind = \"lcp\"\nM = [[1, 2]]\nq = [1]\n", "1x1 matrix"),
        ("syntax.toml", "kind = \"lcp\"\nM = [[1]\n", "invalid TOML"),
        ("cover.toml", "kind = \"lcp\"\nM = [[1]]\nq = [1]\ncovering = [-1]\n", "covering[0]"),
        ("trunc.dat", "2\n0\n2\n2\n2 2\n1 2 3\n", "file ended"),
        ("bad.json", "{\"kind\": \"lcp\", ", "invalid JSON"),
        ("empty.toml", "", "kind"),
        ("model.txt", "whatever", "unknown LCP file type"),
    ];
    for (name, text, needle) in cases {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        let o = run(&["lcp", "solve", p.to_str().unwrap(), "--json"]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{name}: {err}");
        assert!(o.stdout.is_empty(), "{name}: printed to stdout");
        assert_eq!(err.trim_end().lines().count(), 1, "{name}: {err}");
        assert!(err.contains(name), "{name}: error does not name the file: {err}");
        assert!(err.contains(needle), "{name}: expected `{needle}` in: {err}");
        assert!(!err.contains("panicked"), "{name}: {err}");
    }
    let o = run(&["lcp", "solve", dir.join("absent.toml").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    // The file and the system's reason, once.
    let err = stderr(&o);
    assert!(err.contains("absent.toml") && err.matches("No such file").count() == 1, "{err}");
    // A file that is not an atlas shard: named, with the key, exit 2.
    let p = dir.join("notashard.json");
    std::fs::write(&p, "{}").unwrap();
    let o = run(&["merge", p.to_str().unwrap()]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("notashard.json: shard: not an atlas shard file"), "{err}");
    let o = run(&["lcp", "frobnicate"]);
    assert_eq!(o.status.code(), Some(2));
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn reproduce_writes_report_json_and_figure() {
    let out = tmpdir("rep");
    let o = run(&[
        "reproduce",
        "--out",
        out.to_str().unwrap(),
        "--only",
        "lcp",
        "--data",
        data().to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["mismatch"], 0);
    let md = std::fs::read_to_string(out.join("REPORT.md")).unwrap();
    assert!(md.contains("## LCP"));
    let res: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    let rows = res["rows"].as_array().unwrap();
    assert!(rows.len() >= 17);
    // The totals count the rows (no row is left out of, or counted twice in, the summary), and
    // every row names the source of its reference value.
    for status in ["match", "mismatch", "erratum"] {
        let n = rows.iter().filter(|r| r["status"] == status).count() as u64;
        assert_eq!(Some(n), v[status].as_u64(), "{status}");
        assert_eq!(Some(n), res["totals"][status].as_u64(), "{status}");
    }
    assert!(rows.iter().all(|r| !r["source"].as_str().unwrap().is_empty()));
    assert!(std::fs::metadata(out.join("lcp_murty_pivots.png")).unwrap().len() > 1000);
    let o = run(&["reproduce", "--out", out.to_str().unwrap(), "--only", "P9"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("allowed: LCP"));
    std::fs::remove_dir_all(out).ok();
}

#[test]
fn classes_command() {
    let dir = tmpdir("cls");
    let p = dir.join("qa.toml");
    std::fs::write(&p, "kind = \"lcp\"\nM = [[-1, 1], [1, -1]]\nq = [0, 0]\n").unwrap();
    let o = run(&["lcp", "classes", p.to_str().unwrap(), "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["column_quasi_adequate"]["holds"], true);
    assert_eq!(v["column_adequate"]["holds"], false);
    assert_eq!(v["p_matrix"]["holds"], false);
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn fixture_classify_json_has_documented_keys() {
    let o = run(&["fixture", "classify", &example("fixture/disk-proposition5.toml"), "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    for key in ["weakly_stable", "strongly_stable", "frictionless_stable", "separation_property", "classification"] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    assert_eq!(v["classification"], "weakly-stable-not-strongly");
    assert!(v["nonzero_acceleration_intensity"]["qddot"].is_array());
    assert!(v["equilibrium_intensity"]["witness"].is_array());
}

#[test]
fn fixture_theorem4_json() {
    let o = run(&["fixture", "theorem4", &example("fixture/disk-proposition5.toml"), "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["systems"], 60);
    assert_eq!(v["per_sigma"][0]["consistent"], 7);
    assert_eq!(v["proposition5"]["classification"], "weakly-stable-not-strongly");
}

#[test]
fn fixture_sweep_and_cones() {
    let o = run(&[
        "fixture",
        "mu-sweep",
        &example("fixture/disk-mu1.8-0.5.toml"),
        "--json",
        "--steps",
        "21",
        "--max-scale",
        "2",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["points"].as_array().unwrap().len(), 21);
    assert!(!v["transitions"].as_array().unwrap().is_empty());
    let out = tmpdir("cones");
    let o = run(&[
        "fixture",
        "cones",
        &example("fixture/disk-mu0.2-0.5.toml"),
        "--samples",
        "200",
        "--out",
        out.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(out.join("cones_sphere.png").is_file() && out.join("sphere.csv").is_file());
    std::fs::remove_dir_all(out).ok();
}

#[test]
fn malformed_fixture_models_exit_2() {
    let dir = tmpdir("badfix");
    let good = std::fs::read_to_string(example("fixture/disk-mu0.2-0.5.toml")).unwrap();
    let cases: Vec<(&str, String, &str)> = vec![
        ("negmu.toml", good.replacen("mu = 0.2", "mu = -0.2", 1), "contact[0].mu: must be a finite number >= 0"),
        ("mass.toml", good.replace("mass = 1.0", "mass = -1.0"), "mass: must be a finite number > 0"),
        ("dim.toml", good.replace("dim = 2", "dim = 5"), "dim"),
        ("key.toml", good.replace("inertia = 1.0", "inertia = 1.0\ncolour = \"red\""), "colour: unknown key"),
        ("fric.toml", good.replace("friction = \"coulomb\"", "friction = \"viscous\""), "friction"),
        ("nocontact.toml", good.split("[[contact]]").next().unwrap().to_string(), "contact: missing"),
        ("nan.toml", good.replace("load = [0.0, 1.0, 0.0]", "load = [nan, 1.0, 0.0]"), "load[0]"),
    ];
    for (name, text, needle) in &cases {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        for cmd in ["classify", "theorem4"] {
            let o = run(&["fixture", cmd, p.to_str().unwrap(), "--json"]);
            let err = stderr(&o);
            assert_eq!(o.status.code(), Some(2), "{name}: {err}");
            assert!(err.contains(name) && err.contains(needle), "{name}: {err}");
            assert_eq!(err.trim_end().lines().count(), 1);
        }
    }
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn equilibrium_classify_json_and_maps() {
    let o = run(&["equilibrium", "classify", &example("two-contact/config-D.toml"), "--json", "--samples", "401"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    for key in [
        "equilibrium",
        "ambiguous",
        "painleve_free",
        "persistent",
        "weakly_persistent",
        "modes_at_rest",
        "fixed_points",
        "G_minus",
        "G_plus",
        "R_monotone",
        "verdict",
        "theorem",
    ] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    assert_eq!(v["verdict"], "reverse-chatter-unstable");
    assert_eq!(v["theorem"], "Theorem 2");
    assert!(v["fixed_points"][0]["G"].as_f64().unwrap() > 1.0);
    // The verdict carries its interval proof: a fixed point enclosed with G > 1 on it.
    assert_eq!(v["proof"]["proof"], "interval", "{}", v["proof"]);
    let fp = &v["proof"]["fixed_point"];
    let phi = v["fixed_points"][0]["phi"].as_f64().unwrap();
    assert!(fp["phi"][0].as_f64().unwrap() <= phi && phi <= fp["phi"][1].as_f64().unwrap(), "{fp}");
    assert!(fp["G"][0].as_f64().unwrap() > 1.0, "{fp}");
    // Configuration B: Theorem 5 proved (R constant: every return ends turning about point 1).
    let o = run(&["equilibrium", "classify", &example("two-contact/config-B.toml"), "--json", "--samples", "401"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!((v["theorem"].as_str(), v["proof"]["proof"].as_str()), (Some("Theorem 5"), Some("interval")));
    // The same body with its centre of mass lower and uphill: Theorem 5 on the samples, R varying,
    // proved through a stable partition (P1's route from Theorem 4a to Theorem 5).
    let dir = tmpdir("thm5");
    let text = std::fs::read_to_string(example("two-contact/config-B.toml")).unwrap();
    let text = text
        .replace("h = 0.1341", "h = 0.08")
        .replace("l1 = 0.0161", "l1 = -0.008")
        .replace("l2 = 0.0761", "l2 = 0.052");
    let model = dir.join("low.toml");
    std::fs::write(&model, text).unwrap();
    let o = run(&["equilibrium", "classify", model.to_str().unwrap(), "--json", "--samples", "401"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!((v["theorem"].as_str(), v["proof"]["proof"].as_str()), (Some("Theorem 5"), Some("interval")));
    assert!(v["proof"]["argument"].as_str().unwrap().contains("stable partition"), "{}", v["proof"]);
    std::fs::remove_dir_all(dir).ok();
    let out = tmpdir("maps");
    let o = run(&[
        "equilibrium",
        "maps",
        &example("two-contact/config-A.toml"),
        "--samples",
        "101",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let csv = std::fs::read_to_string(out.join("maps.csv")).unwrap();
    assert_eq!(csv.lines().count(), 102);
    assert!(out.join("R.png").is_file() && out.join("G.png").is_file());
    std::fs::remove_dir_all(out).ok();
}

#[test]
fn malformed_two_contact_models_exit_2() {
    let dir = tmpdir("bad2c");
    let good = std::fs::read_to_string(example("two-contact/config-A.toml")).unwrap();
    let cases: Vec<(&str, String, &str)> = vec![
        ("mu.toml", good.replace("mu1 = 0.3150", "mu1 = -0.3"), "mu1: must be a finite number >= 0"),
        ("rho.toml", good.replace("rho = 0.143", "rho = 0.0"), "rho: must be a finite number > 0"),
        ("phi.toml", good.replace("phi1 = 0.0", "phi1_deg = 95.0"), "phi1_deg"),
        ("unknown.toml", good.replace("h = 0.1341", "h = 0.1341\nheight = 2"), "height: unknown key"),
        ("singular.toml", good.replace("l2 = 0.1688", "l2 = -0.0512"), "geometry: singular"),
        ("load.toml", good.replace("force = 5.82714", "force = nan"), "load.force"),
    ];
    for (name, text, needle) in &cases {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        for cmd in ["classify", "modes", "maps"] {
            let o = run(&["equilibrium", cmd, p.to_str().unwrap(), "--json"]);
            let err = stderr(&o);
            assert_eq!(o.status.code(), Some(2), "{name} {cmd}: {err}");
            assert!(err.contains(name) && err.contains(needle), "{name}: {err}");
        }
    }
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn equilibrium_atlas_and_simulate() {
    let out = tmpdir("atlas");
    let o = run(&[
        "equilibrium",
        "atlas",
        &example("two-contact/config-B.toml"),
        "--vary",
        "com_x=-0.04:0.0:4",
        "--vary",
        "com_z=0.12:0.15:3",
        "--samples",
        "101",
        "--json",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["cells"].as_array().unwrap().len(), 12);
    assert!(out.join("atlas.csv").is_file() && out.join("atlas.png").is_file());
    let o = run(&["equilibrium", "atlas", &example("two-contact/config-B.toml"), "--vary", "weight=1:2:3"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("unknown key"));
    let o = run(&[
        "equilibrium",
        "simulate",
        &example("two-contact/config-A.toml"),
        "--perturb",
        "z2=1e-4",
        "--json",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["outcome"], "rest");
    assert!(
        out.join("z.png").is_file()
            && out.join("events.csv").is_file()
            && out.join("trajectory_nonlinear.csv").is_file()
    );
    let o = run(&["equilibrium", "simulate", &example("two-contact/config-A.toml"), "--perturb", "z2=-1"]);
    assert_eq!(o.status.code(), Some(2));
    std::fs::remove_dir_all(out).ok();
}

#[test]
fn hostile_requests_are_refused_with_exit_2() {
    let b = example("two-contact/config-B.toml");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["equilibrium", "atlas", &b, "--vary", "phi1=-3:3:3"], "outside the model's valid range"),
        (vec!["equilibrium", "atlas", &b, "--vary", "mu1=0:1:3", "--vary", "mu1=0:2:3"], "same model parameter"),
        (vec!["equilibrium", "atlas", &b, "--vary", "mu1=0:1:100000", "--vary", "mu2=0:1:100000"], "cells exceed"),
        (vec!["equilibrium", "simulate", &b, "--perturb", "z2=1e-4,z2=2e-4"], "given twice"),
    ];
    for (args, msg) in cases {
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(msg), "{args:?}: {}", stderr(&o));
        assert_eq!(stderr(&o).trim().lines().count(), 1, "{args:?}: {}", stderr(&o));
    }
    // Usage errors (clap's) are one line too.
    for args in [&["lcp", "frobnicate"][..], &["lcp", "solve", "x.dat", "--time-limit", "-1"], &["equilibrium"]] {
        let o = run(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert_eq!(stderr(&o).trim().lines().count(), 1, "{args:?}: {}", stderr(&o));
    }
    let murty = data().join("siconos-lcp/lcp_exp_murty.dat");
    let o = run(&["lcp", "solve", murty.to_str().unwrap(), "--time-limit=-1"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--time-limit"));
    let o = run(&["lcp", "solve", murty.to_str().unwrap(), "--time-limit", "10", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // `fixture cones` writes only files: without --out it refuses instead of creating ./cones/.
    let disk = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/fixture/disk-mu0.2-0.5.toml");
    let o = run(&["fixture", "cones", disk.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--out: required"));
    // A 43-byte Siconos file whose header claims n = 100000 fails at once (no 80 GB allocation).
    let dir = tmpdir("hostile");
    let f = dir.join("big.dat");
    std::fs::write(&f, "100000 0 100000 100000 100000 100000 1 2 3\n").unwrap();
    let o = run(&["lcp", "solve", f.to_str().unwrap(), "--json"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("big.dat") && stderr(&o).contains("n = 100000"), "{}", stderr(&o));
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn failed_runs_leave_no_output_behind() {
    let dir = tmpdir("partial");
    let lcp = data().join("siconos-lcp/lcp_exp_murty.dat");
    // The target is a file: nothing can be written there; the run is refused before any work
    // (exit 2, a bad --out) and leaves no staging directory beside it.
    let blocked = dir.join("blocked");
    std::fs::write(&blocked, "not a directory").unwrap();
    let o = run(&["lcp", "solve", lcp.to_str().unwrap(), "--out", blocked.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(left, vec![std::ffi::OsString::from("blocked")], "{left:?}");
    // A model error after the output directory was chosen: exit 2, nothing created.
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, "kind = \"lcp\"\nM = [[1]]\nq = [\"x\"]\n").unwrap();
    let target = dir.join("out");
    let o = run(&["lcp", "solve", bad.to_str().unwrap(), "--out", target.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(!target.exists());
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 2); // blocked, bad.toml
                                                             // Success: the files land in the target, which keeps what the command did not write.
    std::fs::create_dir_all(&target).unwrap();
    std::fs::write(target.join("notes.txt"), "mine").unwrap();
    let o = run(&["lcp", "solve", lcp.to_str().unwrap(), "--out", target.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(target.join("solution.csv").is_file() && target.join("notes.txt").is_file());
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 3, "no staging directory left");
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn the_synopsis_lists_every_flag() {
    // Each command's flags, from its --help, appear on its line of the synopsis (docs/cli.md).
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/cli.md")).unwrap();
    let commands: &[&[&str]] = &[
        &["lcp", "solve"],
        &["lcp", "classes"],
        &["equilibrium", "modes"],
        &["equilibrium", "maps"],
        &["equilibrium", "classify"],
        &["equilibrium", "simulate"],
        &["equilibrium", "atlas"],
        &["fixture", "classify"],
        &["fixture", "theorem4"],
        &["fixture", "cones"],
        &["fixture", "mu-sweep"],
        &["walker", "gait"],
        &["walker", "painleve"],
        &["walker", "slip"],
        &["zeno", "simulate"],
        &["zeno", "orbit"],
        &["zeno", "bound"],
        &["zeno", "continue"],
        &["eqset", "analyze"],
        &["eqset", "portrait"],
        &["eqset", "simulate"],
        &["simulate"],
        &["gait"],
        &["painleve"],
        &["slip"],
        &["orbit"],
        &["model", "inspect"],
        &["stance"],
        &["reproduce"],
    ];
    for cmd in commands {
        let out = Command::new(env!("CARGO_BIN_EXE_contactlab")).args(*cmd).arg("--help").output().unwrap();
        let help = String::from_utf8(out.stdout).unwrap();
        let prefix = format!("contactlab {} ", cmd.join(" "));
        let line = readme
            .lines()
            .find(|l| l.starts_with(&prefix) || l.trim_end() == prefix.trim_end())
            .unwrap_or_else(|| panic!("docs/cli.md has no synopsis line for `{prefix}`"));
        for word in help.split_whitespace() {
            let flag = word.trim_end_matches([',', '.']);
            if !flag.starts_with("--") || flag.len() < 3 || ["--help", "--version", "--svg"].contains(&flag) {
                continue;
            }
            let flag = flag.split(['=', '[', '<']).next().unwrap();
            if !flag[2..].chars().all(|c| c.is_ascii_lowercase() || c == '-') {
                continue;
            }
            assert!(line.contains(flag), "the synopsis of `{}` lacks {flag}: {line}", cmd.join(" "));
        }
    }
}

#[test]
fn an_atlas_from_three_shards_merged_equals_the_unsharded_atlas() {
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/two-contact/config-B.toml");
    let model = model.to_str().unwrap();
    let base = tmpdir("shards");
    let grid = ["--vary", "com_x=-0.05:0.0:5", "--vary", "com_z=0.1:0.16:4", "--samples", "101"];
    let whole = base.join("whole");
    let mut args = vec!["equilibrium", "atlas", model];
    args.extend(grid);
    let w = whole.to_str().unwrap();
    let o = run(&[args.clone(), vec!["--json", "--out", w]].concat());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let unsharded = String::from_utf8(o.stdout).unwrap();
    let mut dirs = Vec::new();
    for k in 1..=3 {
        let d = base.join(format!("s{k}"));
        let spec = format!("{k}/3");
        let o = run(&[args.clone(), vec!["--shard", &spec, "--json", "--out", d.to_str().unwrap()]].concat());
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        dirs.push(d);
    }
    let merged_dir = base.join("merged");
    let mut margs: Vec<&str> = vec!["merge"];
    // Any order of the shards.
    for d in dirs.iter().rev() {
        margs.push(d.to_str().unwrap());
    }
    margs.extend(["--json", "--out", merged_dir.to_str().unwrap()]);
    let o = run(&margs);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(String::from_utf8(o.stdout).unwrap(), unsharded);
    let a = std::fs::read(whole.join("atlas.csv")).unwrap();
    let b = std::fs::read(merged_dir.join("atlas.csv")).unwrap();
    assert_eq!(a, b);
    assert!(merged_dir.join("atlas.png").is_file());
    // A missing shard is an input error naming it.
    let o = run(&["merge", dirs[0].to_str().unwrap(), dirs[1].to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("[3]"), "{}", stderr(&o));
    std::fs::remove_dir_all(&base).ok();
}

#[test]
fn negative_values_and_a_file_as_out_dir_are_refused_clearly() {
    let dp = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/zeno/double-pendulum-pd.toml");
    let dp = dp.to_str().unwrap();
    // A negative number is a value (checked against its range), not an unknown flag.
    let o = run(&["zeno", "orbit", dp, "--e", "-0.1"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--e:") && !stderr(&o).contains("unexpected argument"), "{}", stderr(&o));
    // --out naming a regular file: refused before any work, in one line, nothing on stdout.
    let dir = tmpdir("out-file");
    let f = dir.join("not-a-dir");
    std::fs::write(&f, "keep me").unwrap();
    let o = run(&["zeno", "orbit", dp, "--json", "--out", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(o.stdout.is_empty(), "{}", String::from_utf8_lossy(&o.stdout));
    assert_eq!(stderr(&o).trim().lines().count(), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("not a directory"), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&f).unwrap(), "keep me");
}

#[test]
fn an_oversized_model_file_is_refused_before_it_is_read() {
    // A 1 GiB (sparse) file: one line naming the file, exit 2, without reading it.
    let dir = tmpdir("oversized");
    let f = dir.join("huge.toml");
    std::fs::File::create(&f).unwrap().set_len(1 << 30).unwrap();
    let o = run(&["model", "inspect", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("huge.toml: file: larger than 64 MiB") && e.trim().lines().count() == 1, "{e}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn simulate_writes_an_animation_and_painleve_its_files() {
    // The rocking block, drawn with its `shape`: a GIF with one frame per 40 ms of the run.
    let out = tmpdir("anim");
    let block = example("multibody/rocking-block.toml");
    let o = run(&["simulate", &block, "--t-max", "1", "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let gif = std::fs::read(out.join("animation.gif")).unwrap();
    assert_eq!(&gif[..6], b"GIF89a");
    // One frame per 40 ms of the run, 1 s: 26 frames (counted by walking the GIF's blocks).
    assert_eq!(gif_frames(&gif), Some(26));
    std::fs::remove_dir_all(&out).ok();
    // painleve --out: the JSON, the CSV of B along the slice and its plot.
    let wheel = example("multibody/rimless-wheel.toml");
    let o = run(&[
        "painleve",
        &wheel,
        "--contact",
        "stance tip",
        "--slice=wheel.theta=-0.3:0.3",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    for f in ["painleve.json", "b.csv", "b.png"] {
        assert!(out.join(f).is_file(), "{f}");
    }
    std::fs::remove_dir_all(&out).ok();
    // The same on a robot in 3-D (a two-coordinate slice: the region map), and its refusals.
    let rod = example("spatial/painleve-rod.toml");
    let o = run(&[
        "painleve",
        &rod,
        "--contact",
        "end",
        "--direction",
        "1,0,0",
        "--slice=rod_pitch=0.05:1.5",
        "--slice=rod_roll=-0.5:0.5",
        "--points",
        "21",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let csv = std::fs::read_to_string(out.join("b.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + 21 * 21);
    assert!(out.join("b.png").is_file());
    std::fs::remove_dir_all(&out).ok();
    // stance --out: the JSON and the friction cones' picture.
    let o = run(&["stance", &example("spatial/a1-standing.toml"), "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(out.join("stance.json").is_file() && out.join("stance.png").is_file());
    std::fs::remove_dir_all(&out).ok();
    for (flag, value, says) in [("--sigma", "1", "--direction"), ("--direction", "0,0,2", "tangent plane")] {
        let o = run(&["painleve", &rod, "--contact", "end", flag, value]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains(says) && stderr(&o).trim().lines().count() == 1, "{}", stderr(&o));
    }
    // A bad drawing shape is refused naming the key.
    let bad = out.with_extension("toml");
    std::fs::write(
        &bad,
        std::fs::read_to_string(&block).unwrap().replace("shape = [[-0.1, -0.4],", "shape = [[-0.1],"),
    )
    .unwrap();
    let o = run(&["simulate", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("body[0].shape"), "{}", stderr(&o));
    std::fs::remove_file(&bad).ok();
}

/// The number of images in a GIF, by walking its block structure; `None` if malformed.
fn gif_frames(g: &[u8]) -> Option<usize> {
    let skip_table = |flags: u8| if flags & 0x80 != 0 { 3usize << ((flags & 7) + 1) } else { 0 };
    let sub_blocks = |mut i: usize| -> Option<usize> {
        loop {
            let n = *g.get(i)? as usize;
            i += 1 + n;
            if n == 0 {
                return Some(i);
            }
        }
    };
    let mut i = 13 + skip_table(*g.get(10)?);
    let mut frames = 0;
    loop {
        match *g.get(i)? {
            0x21 => i = sub_blocks(i + 2)?,
            0x2C => {
                frames += 1;
                i += 10 + skip_table(*g.get(i + 9)?);
                i = sub_blocks(i + 1)?;
            }
            0x3B => return Some(frames),
            _ => return None,
        }
    }
}

#[test]
fn rimless_wheel_gait_json_carries_its_interval_proof() {
    // P2's wheel (μ = 0.35): proved; with μ = 0.3 the wheel walks with a slipping gait: the
    // sticking gait's heel strike needs more friction (|F_t/F_n| = 0.318), and the proof says so.
    let wheel = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/walker/rimless-wheel.toml");
    let o = run(&["walker", "gait", wheel.to_str().unwrap(), "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let p = &v["proof"];
    assert_eq!(p["proof"], "interval", "{p}");
    // The floating-point gait (Newton to 1e-8) lies at the enclosed rate.
    let (lo, hi) = (p["rate"][0].as_f64().unwrap(), p["rate"][1].as_f64().unwrap());
    let x = v["post_impact_state"].as_array().unwrap().last().unwrap().as_f64().unwrap();
    assert!(hi - lo < 1e-13 * x && (x - lo).abs() < 1e-8 * x, "{p} vs {x}");
    let m = p["multiplier"][1].as_f64().unwrap();
    assert!(m < 1.0 && p["mu_stick"][1].as_f64().unwrap() < 0.35, "{p}");
    let text = std::fs::read_to_string(&wheel).unwrap();
    let low = tmpdir("rimless-mu").join("wheel.toml");
    std::fs::write(&low, text.replace("mu = 0.35", "mu = 0.3")).unwrap();
    let o = run(&["walker", "gait", low.to_str().unwrap(), "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["proof"]["proof"], "none", "{v}");
    assert!(v["proof"]["proof_reason"].as_str().unwrap().contains("impulse ratio"), "{v}");
}

#[test]
fn the_flags_defaults_are_the_librarys() {
    // Issue #41: one set of defaults. Every setting `contactlab::api::defaults` lists appears in
    // its command's --help with the library's value (the Python test checks the third front end).
    let defaults = contactlab::api::defaults();
    let mut checked = 0;
    for (command, settings) in defaults.as_object().unwrap() {
        let mut args: Vec<&str> = command.split(' ').collect();
        args.push("--help");
        let o = run(&args);
        assert_eq!(o.status.code(), Some(0), "{command}: {}", stderr(&o));
        let help = String::from_utf8(o.stdout).unwrap();
        for (key, want) in settings.as_object().unwrap() {
            let flag = format!("--{} ", key.replace('_', "-"));
            // The option's entry: its line and any wrapped lines up to the next option.
            let lines: Vec<&str> = help.lines().collect();
            let at = lines
                .iter()
                .position(|l| l.trim_start().starts_with(&flag))
                .unwrap_or_else(|| panic!("{command}: no {flag} in\n{help}"));
            let end = (at + 1..lines.len()).find(|&k| lines[k].trim_start().starts_with('-')).unwrap_or(lines.len());
            let entry = lines[at..end].join(" ");
            let shown = entry
                .split("[default: ")
                .nth(1)
                .and_then(|t| t.split(']').next())
                .unwrap_or_else(|| panic!("{command}: {flag} shows no default"));
            match want.as_str() {
                Some(word) => assert_eq!(shown, word, "{command} {flag}"),
                None => {
                    let shown: f64 = shown.parse().unwrap_or_else(|_| panic!("{command}: {flag} default {shown}"));
                    assert_eq!(shown, want.as_f64().unwrap(), "{command} {flag}");
                }
            }
            checked += 1;
        }
    }
    assert!(checked >= 30, "{checked}");
}

#[test]
fn an_underflowing_number_is_refused_and_unverified_pieces_fail() {
    let dir = tmpdir("underflow");
    let f = dir.join("u.toml");
    std::fs::write(&f, "kind = \"lcp\"\nM = [[1e-400]]\nq = [-1.0]\n").unwrap();
    let o = run(&["lcp", "solve", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("M (line 2)") && stderr(&o).contains("1e-400"), "{}", stderr(&o));
    std::fs::write(&f, "kind = \"lcp\"\nM = [[1e-310, 1.0], [1e200, 1.0]]\nq = [-1.0, 1.0]\n").unwrap();
    let o = run(&["lcp", "solve", f.to_str().unwrap(), "--all", "--json"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        (v["status"].as_str(), v["count"].as_u64(), v["failed"].as_u64()),
        (Some("numerical-error"), Some(0), Some(1))
    );
    assert_eq!(v["pieces"][0]["verified"], false);
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn errors_name_the_file_and_key_a_value_came_from_not_a_flag_never_given() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let standing = root.join("examples/spatial/a1-standing.toml");
    for cmd in [vec!["gait"], vec!["basin", "--vary", "x=0:1:3"], vec!["continue", "--param", "mu", "--to", "1"]] {
        let mut args: Vec<&str> = vec![cmd[0], standing.to_str().unwrap()];
        args.extend(&cmd[1..]);
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        let e = stderr(&o);
        assert!(e.contains("a1-standing.toml: gait: no [gait] table") && !e.contains("--gait"), "{args:?}: {e}");
    }
    // The state from the file, not from --state.
    let humanoid = root.join("data/robots/mujoco/humanoid.xml");
    let o = run(&["stance", humanoid.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("humanoid.xml: qpos0") && !stderr(&o).contains("--state"), "{}", stderr(&o));
    // A bare URDF is a robot in 3-D to every command: the walking ones say that it needs a
    // scene with a [gait] table (and that --base planar reads it as a planar mechanism), orbit
    // that it is planar only; with --base planar Drake's compass gait is the planar mechanism,
    // and gait asks for its planar [gait] table instead.
    let a1 = root.join("data/robots/a1.urdf");
    let compass = root.join("examples/multibody/drake/CompassGait.urdf");
    for urdf in [&a1, &compass] {
        for cmd in [
            vec!["gait"],
            vec!["basin", "--vary", "x=0:1:3"],
            vec!["continue", "--param", "mu", "--to", "1"],
            vec!["orbit", "--constraint", "x"],
        ] {
            let mut args: Vec<&str> = vec![cmd[0], urdf.to_str().unwrap()];
            args.extend(&cmd[1..]);
            let o = run(&args);
            assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
            let e = stderr(&o);
            let said =
                if cmd[0] == "orbit" { "takes a planar mechanism" } else { "needs a scene file with a [gait] table" };
            assert!(e.contains(&format!(".urdf: {}: ", cmd[0])) && e.contains(said), "{args:?}: {e}");
            assert!(e.contains("--base planar"), "{args:?}: {e}");
        }
    }
    let o = run(&["gait", compass.to_str().unwrap(), "--base", "planar"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("CompassGait.urdf: gait: missing"), "{}", stderr(&o));
    // A start inside the ground is the input's fault, named by its contact.
    let dir = tmpdir("sunk");
    let scene = dir.join("sunk.toml");
    std::fs::write(
        &scene,
        format!(
            "kind = \"multibody\"\nurdf = \"{}\"\nbase = \"floating\"\ngravity = 9.81\ncontacts = [\"FL_foot\", \"FR_foot\", \"RL_foot\", \"RR_foot\"]\n[[ground]]\npoint = [0.0, 0.0, 0.0]\nnormal = [0.0, 0.0, 1.0]\n",
            a1.display()
        ),
    )
    .unwrap();
    let o = run(&["simulate", scene.to_str().unwrap(), "--t-max", "0.1"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("the initial state puts contact") && stderr(&o).contains("below its plane"),
        "{}",
        stderr(&o)
    );
    std::fs::remove_dir_all(dir).ok();
}
