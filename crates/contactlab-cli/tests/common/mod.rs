//! What the command-line tests share: the binary, the repository's data and examples, and
//! scratch folders.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_contactlab"))
}

pub fn data() -> PathBuf {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data");
    assert!(d.is_dir(), "the repository's data not found at {}", d.display());
    d
}

pub fn tmpdir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("contactlab-cli-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

pub fn run(args: &[&str]) -> Output {
    bin().args(args).output().unwrap()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

pub fn example(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples").join(rel).to_str().unwrap().to_string()
}
