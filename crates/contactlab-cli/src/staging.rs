//! No partial output: a command with an output directory writes into a hidden sibling
//! directory (`.NAME.partial-PID`), which is moved into place only when the command succeeds and
//! removed when it fails. Files of the target directory that the command does not write are kept;
//! files it writes are replaced.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use anyhow::Context;

/// The staging directory and the target it stands for, once set.
static STAGED: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();

/// The staging directory for `target`, beside it (so the final moves are renames).
pub fn begin(target: &Path) -> anyhow::Result<PathBuf> {
    let name = target.file_name().map_or_else(|| "out".into(), |n| n.to_string_lossy().to_string());
    let parent = target.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let tmp = parent.join(format!(".{name}.partial-{}", std::process::id()));
    let _ = STAGED.set((tmp.clone(), target.to_path_buf()));
    Ok(tmp)
}

/// A path as the user should see it: inside the target, not the staging directory.
pub fn shown(p: &Path) -> String {
    match STAGED.get() {
        Some((tmp, target)) => match p.strip_prefix(tmp) {
            Ok(rest) if rest.as_os_str().is_empty() => target.display().to_string(),
            Ok(rest) => target.join(rest).display().to_string(),
            Err(_) => p.display().to_string(),
        },
        None => p.display().to_string(),
    }
}

/// Moves everything staged into `target` and removes the staging directory.
pub fn commit(tmp: &Path, target: &Path) -> anyhow::Result<Vec<String>> {
    let written = if tmp.is_dir() { listing(tmp, Path::new(""))? } else { vec![] };
    std::fs::create_dir_all(target).with_context(|| format!("creating {}", target.display()))?;
    // Check that the target takes files before moving any, so a refusal leaves nothing half-moved.
    let probe = target.join(format!(".contactlab-probe-{}", std::process::id()));
    std::fs::write(&probe, b"").with_context(|| format!("writing into {}", target.display()))?;
    std::fs::remove_file(&probe).ok();
    if tmp.is_dir() {
        merge(tmp, target)?;
        std::fs::remove_dir_all(tmp).ok();
    }
    Ok(written)
}

/// The files below `dir`, as paths relative to it, sorted.
fn listing(dir: &Path, prefix: &Path) -> anyhow::Result<Vec<String>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let entry = entry?;
        let rel = prefix.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            out.extend(listing(&entry.path(), &rel)?);
        } else {
            out.push(rel.display().to_string());
        }
    }
    out.sort();
    Ok(out)
}

fn merge(from: &Path, to: &Path) -> anyhow::Result<()> {
    for entry in std::fs::read_dir(from).with_context(|| format!("reading {}", from.display()))? {
        let entry = entry?;
        let dest = to.join(entry.file_name());
        if entry.file_type()?.is_dir() && dest.is_dir() {
            merge(&entry.path(), &dest)?;
        } else {
            if dest.is_dir() {
                std::fs::remove_dir_all(&dest).with_context(|| format!("replacing {}", dest.display()))?;
            }
            std::fs::rename(entry.path(), &dest).with_context(|| format!("moving into {}", dest.display()))?;
        }
    }
    Ok(())
}

/// Removes the staging directory after a failure.
pub fn abort(tmp: &Path) {
    std::fs::remove_dir_all(tmp).ok();
}
