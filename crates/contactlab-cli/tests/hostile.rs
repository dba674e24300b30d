//! The command line under hostile input: truncated, non-finite, oversized, badly scaled and
//! malformed variants of every shipped input kind, generated deterministically. Every run must
//! end within 10 s with exit code 0, 2 or 3 (never a panic, an abort or a signal), and a failed
//! run must leave no output behind.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// xorshift64*: a small deterministic generator (the cases are the same on every run).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Byte ranges of the numbers in a text.
fn number_spans(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let starts = b[i].is_ascii_digit() || (b[i] == b'-' && i + 1 < b.len() && b[i + 1].is_ascii_digit());
        let in_word = i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        if starts && !in_word {
            let s = i;
            i += 1;
            while i < b.len() && (b[i].is_ascii_digit() || matches!(b[i], b'.' | b'e' | b'E' | b'-' | b'+')) {
                i += 1;
            }
            out.push((s, i));
        } else {
            i += 1;
        }
    }
    out
}

const POISON: &[&str] =
    &["nan", "inf", "-inf", "1e308", "-1e308", "1e-308", "0", "-1", "1e999", "abc", "\"x\"", "-0.0", "1e-320"];

fn mutate(text: &str, rng: &mut Rng, siconos: bool) -> String {
    let nums = number_spans(text);
    match rng.below(7) {
        // Truncated.
        0 => text[..text.char_indices().map(|(i, _)| i).nth(rng.below(text.chars().count())).unwrap_or(0)].to_string(),
        // One number poisoned.
        1 | 2 if !nums.is_empty() => {
            let (s, e) = nums[rng.below(nums.len())];
            format!("{}{}{}", &text[..s], POISON[rng.below(POISON.len())], &text[e..])
        }
        // Every number scaled by 10^k: badly scaled data.
        3 if !nums.is_empty() => {
            let k = rng.below(33) as i32 - 16;
            let mut out = String::new();
            let mut last = 0;
            for &(s, e) in &nums {
                out.push_str(&text[last..s]);
                let v: f64 = text[s..e].parse().unwrap_or(0.0);
                out.push_str(&format!("{:e}", v * 10f64.powi(k)));
                last = e;
            }
            out.push_str(&text[last..]);
            out
        }
        // Oversized header (Siconos) or a duplicated line (TOML: a repeated key).
        4 => {
            if siconos {
                let (s, e) = nums[0];
                format!("{}{}{}", &text[..s], ["100000", "46340", "99999999999", "3"][rng.below(4)], &text[e..])
            } else {
                let lines: Vec<&str> = text.lines().collect();
                let k = rng.below(lines.len());
                let mut v: Vec<&str> = lines.clone();
                v.insert(k, lines[k]);
                v.join("\n")
            }
        }
        // An unknown key, or garbage appended.
        5 => format!("{text}\nfrobnicate = 3\n"),
        _ => format!("{text}\n\u{0}\u{7f}[[[\n"),
    }
}

/// Runs the binary with a 30 s watchdog (a hang guard, not a speed test: `walker painleve --out` on
/// a degenerate scaled biped takes about 10 s in the test profile on a loaded two-core machine);
/// returns the exit code (`None`: killed or signalled).
fn run_bounded(args: &[String]) -> (Option<i32>, String, Duration) {
    let start = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_contactlab"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let mut err = String::new();
            use std::io::Read;
            child.stderr.take().unwrap().read_to_string(&mut err).ok();
            return (status.code(), err, start.elapsed());
        }
        if start.elapsed() > Duration::from_secs(30) {
            child.kill().ok();
            child.wait().ok();
            return (None, "timed out".into(), start.elapsed());
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn hostile_inputs_end_cleanly() {
    let r = root();
    let bases: Vec<(PathBuf, Vec<Vec<&str>>)> = vec![
        (
            r.join("examples/lcp/pd2.toml"),
            vec![vec!["lcp", "solve"], vec!["lcp", "classes"], vec!["lcp", "solve", "--all"]],
        ),
        (r.join("examples/lcp/segment.toml"), vec![vec!["lcp", "solve", "--all"]]),
        (r.join("examples/lcp/infeasible.json"), vec![vec!["lcp", "solve"]]),
        (r.join("data/siconos-lcp/lcp_CPS_1.dat"), vec![vec!["lcp", "solve"], vec!["lcp", "solve", "--all"]]),
        (r.join("data/siconos-lcp/lcp_exp_murty.dat"), vec![vec!["lcp", "solve"], vec!["lcp", "classes"]]),
        (
            r.join("examples/two-contact/config-A.toml"),
            vec![vec!["equilibrium", "modes"], vec!["equilibrium", "classify", "--samples", "51"]],
        ),
        (r.join("examples/fixture/disk-mu0.2-0.5.toml"), vec![vec!["fixture", "classify"]]),
        (r.join("examples/zeno/bouncing-ball.toml"), vec![vec!["zeno", "simulate", "--t-max", "5"]]),
        (
            r.join("examples/zeno/double-pendulum-pd-e0.5.toml"),
            vec![vec!["zeno", "simulate", "--t-max", "10"], vec!["zeno", "orbit"]],
        ),
        (
            r.join("examples/walker/rimless-wheel.toml"),
            vec![vec!["walker", "gait"], vec!["walker", "slip", "--state", "-0.3,0.643,0.5"]],
        ),
        (r.join("examples/walker/compass-biped.toml"), vec![vec!["walker", "painleve"]]),
        (
            r.join("examples/eqset/rod-two-sliders.toml"),
            vec![
                vec!["eqset", "analyze"],
                vec!["eqset", "portrait", "--grid", "4", "--steps", "500", "--trajectories", "2"],
            ],
        ),
        (r.join("examples/eqset/friction-oscillator.toml"), vec![vec!["eqset", "simulate", "--t-max", "1"]]),
        (
            r.join("examples/multibody/compass-biped.toml"),
            vec![vec!["simulate", "--t-max", "1"], vec!["model", "inspect"]],
        ),
        (r.join("examples/multibody/p3-double-pendulum-pd-e0.5.toml"), vec![vec!["simulate", "--t-max", "5"]]),
        (
            r.join("examples/multibody/rimless-wheel.toml"),
            vec![
                vec!["painleve", "--contact", "stance tip", "--slice=wheel.theta=-0.3:0.3", "--points", "41"],
                vec!["slip", "--contact", "stance tip"],
            ],
        ),
        (
            r.join("examples/multibody/drake/CompassGait.urdf"),
            vec![vec!["model", "inspect"], vec!["simulate", "--t-max", "0.5"]],
        ),
    ];
    let dir = std::env::temp_dir().join(format!("contactlab-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut cases = 0;
    let mut codes = [0usize; 4];
    for round in 0..20 {
        for (bi, (base, commands)) in bases.iter().enumerate() {
            let text = std::fs::read_to_string(base).unwrap();
            let ext = base.extension().unwrap().to_str().unwrap();
            let file = dir.join(format!("case-{round}-{bi}.{ext}"));
            let mutated = mutate(&text, &mut rng, ext == "dat");
            std::fs::write(&file, &mutated).unwrap();
            for cmd in commands {
                let out = dir.join(format!("out-{round}-{bi}"));
                let mut args: Vec<String> = cmd.iter().map(|s| s.to_string()).collect();
                args.push(file.display().to_string());
                args.extend(["--json".to_string(), "--out".to_string(), out.display().to_string()]);
                let (code, err, took) = run_bounded(&args);
                cases += 1;
                let shown = || format!("{args:?} on\n{mutated}\n-> {code:?} after {took:?}: {err}");
                assert!(matches!(code, Some(0 | 2 | 3)), "bad exit: {}", shown());
                assert!(!err.contains("panicked") && !err.contains("RUST_BACKTRACE"), "panic: {}", shown());
                assert!(err.trim().lines().count() <= 1, "more than one line: {}", shown());
                // (A simulation that ended before --t-max keeps its output, and says where.)
                if code != Some(0) && !err.contains("its output is in") {
                    assert!(!out.exists(), "output left behind: {}", shown());
                }
                let _ = std::fs::remove_dir_all(&out);
                codes[code.unwrap() as usize] += 1;
            }
        }
    }
    // Nothing left beside the outputs (no staging directories).
    let stray = std::fs::read_dir(&dir)
        .unwrap()
        .filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().starts_with('.'))
        .count();
    assert_eq!(stray, 0);
    std::fs::remove_dir_all(&dir).ok();
    assert!(cases >= 200, "{cases} cases");
    // The generator must exercise both success and refusal.
    assert!(codes[0] > 10 && codes[2] > 50, "exit codes 0/2/3: {} / {} / {}", codes[0], codes[2], codes[3]);
}

/// A small valid multibody model: a floating block and a hanging link, one contact.
const BLOCK: &str = r#"kind = "multibody"
name = "hostile"
gravity = 9.81

[[body]]
name = "block"
joint = "planar"
mass = 2.0
inertia = 0.1

[[body]]
name = "link"
parent = "block"
mass = 1.0
inertia = 0.05
origin = [0.0, -0.5]

[[line]]
name = "ground"
normal = [0.0, 1.0]

[[contact]]
name = "tip"
body = "link"
point = [0.0, -0.5]
mu = 0.5
"#;

/// A URDF pendulum in the plane xz (axes along y).
const PENDULUM: &str = r#"<?xml version="1.0"?>
<robot name="pendulum">
  <link name="world"/>
  <link name="arm">
    <inertial><origin xyz="0 0 -0.5"/><mass value="1"/>
      <inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial>
    <collision><origin xyz="0 0 -1"/><geometry><sphere radius="0.05"/></geometry></collision>
  </link>
  <joint name="hinge" type="revolute">
    <parent link="world"/><child link="arm"/><axis xyz="0 1 0"/>
    <limit lower="-3" upper="3" effort="1" velocity="1"/>
  </joint>
</robot>
"#;

const SCENE: &str = "kind = \"multibody\"\nname = \"p\"\nurdf = \"p.urdf\"\ngravity = 9.81\nplane = \"xz\"\n";

/// The cases the issue names, each a model file refused with exit 2 and one line naming what is
/// wrong (the fuzzing above may also accept a poisoned file; these must be refused).
#[test]
fn named_hostile_models_are_refused_with_one_line() {
    let dir = std::env::temp_dir().join(format!("contactlab-named-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let swap = |from: &str, to: &str| {
        assert!(BLOCK.contains(from), "{from}");
        BLOCK.replacen(from, to, 1)
    };
    let urdf_swap = |from: &str, to: &str| {
        assert!(PENDULUM.contains(from), "{from}");
        PENDULUM.replacen(from, to, 1)
    };
    // (file name, text, what the one line must mention); a URDF case writes p.urdf beside p.toml.
    let mut cases: Vec<(&str, String, &str)> = vec![
        ("cycle.toml", swap("name = \"block\"\njoint", "name = \"block\"\nparent = \"link\"\njoint"), "parent"),
        ("self.toml", swap("parent = \"block\"", "parent = \"link\""), "parent"),
        ("zero-mass.toml", swap("mass = 2.0", "mass = 0.0").replacen("mass = 1.0", "mass = 0.0", 1), "mass"),
        ("negative-mass.toml", swap("mass = 1.0", "mass = -1.0"), "mass"),
        ("nan-mass.toml", swap("mass = 1.0", "mass = nan"), "mass"),
        ("negative-inertia.toml", swap("inertia = 0.05", "inertia = -0.05"), "inertia"),
        ("missing-body.toml", swap("body = \"link\"", "body = \"nope\""), "nope"),
        ("axis.toml", swap("parent = \"block\"", "parent = \"block\"\naxis = 0.5"), "axis"),
        ("nan-point.toml", swap("point = [0.0, -0.5]", "point = [nan, -0.5]"), "point"),
        ("negative-mu.toml", swap("mu = 0.5", "mu = -0.5"), "mu"),
        ("unknown-key.toml", swap("mu = 0.5", "mu = 0.5\nfrobnicate = 1"), "frobnicate"),
    ];
    // 10⁶ bodies (JSON, compact: about 24 MB, under the size limit): refused by count.
    let mut many = String::from("{\"kind\": \"multibody\", \"name\": \"many\", \"gravity\": 9.81, \"body\": [");
    for i in 0..1_000_000 {
        many.push_str(if i == 0 { "{\"name\":\"b0\",\"mass\":1}" } else { ",{\"name\":\"b\",\"mass\":1}" });
    }
    many.push_str("]}");
    cases.push(("many.json", many, "bodies"));
    let urdf_cases: Vec<(&str, String, String, &str)> = vec![
        ("non-planar", urdf_swap("<axis xyz=\"0 1 0\"/>", "<axis xyz=\"0 1 1\"/>"), SCENE.into(), "hinge"),
        (
            "urdf-cycle",
            urdf_swap("<parent link=\"world\"/><child link=\"arm\"/>", "<parent link=\"arm\"/><child link=\"arm\"/>"),
            SCENE.into(),
            "arm",
        ),
        ("urdf-negative-mass", urdf_swap("<mass value=\"1\"/>", "<mass value=\"-1\"/>"), SCENE.into(), "arm"),
        ("urdf-nan-inertia", urdf_swap("iyy=\"0.1\"", "iyy=\"nan\""), SCENE.into(), "arm"),
        (
            "urdf-missing-link",
            PENDULUM.to_string(),
            format!("{SCENE}\n[[line]]\nname = \"g\"\nnormal = [0.0, 1.0]\n\n[[contact]]\nbody = \"nope\"\n"),
            "nope",
        ),
    ];
    let mut runs = Vec::new();
    for (name, text, mention) in &cases {
        let file = dir.join(name);
        std::fs::write(&file, text).unwrap();
        runs.push((file, name.to_string(), *mention));
    }
    for (name, urdf, scene, mention) in &urdf_cases {
        let sub = dir.join(name);
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(sub.join("p.urdf"), urdf).unwrap();
        std::fs::write(sub.join("p.toml"), scene).unwrap();
        runs.push((sub.join("p.toml"), name.to_string(), *mention));
    }
    for (file, name, mention) in runs {
        let args = vec!["model".to_string(), "inspect".into(), file.display().to_string(), "--json".into()];
        let (code, err, took) = run_bounded(&args);
        assert_eq!(code, Some(2), "{name}: exit {code:?} after {took:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{name}: {err}");
        assert!(!err.contains("panicked"), "{name}: {err}");
        assert!(err.contains(mention), "{name}: the line does not mention {mention:?}: {err}");
    }
    std::fs::remove_dir_all(&dir).ok();
}
