//! Build output kept in the XDG cache dir (`$XDG_CACHE_HOME/kubesift/render`), keyed by
//! what the build reads: every input file (path and bytes), the tool and its arguments.
//! Reopening an unchanged repo reads the output back instead of running the tool. Only
//! successful builds are kept. Nothing is written beside the input.

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

/// The cache folder, if the platform has one.
fn dir() -> Option<PathBuf> {
    let dirs = directories::ProjectDirs::from("", "", "kubesift")?;
    Some(dirs.cache_dir().join("render"))
}

/// The key of a build reading `inputs` with `tool` and `args`: two 64-bit SipHashes (fixed
/// keys, so stable from run to run) over every input's path and bytes. An unreadable input
/// is hashed as such (the build then fails, and is not cached).
pub fn key(inputs: &[PathBuf], tool: &str, args: &[String]) -> String {
    let mut a = std::hash::DefaultHasher::new();
    let mut b = std::hash::DefaultHasher::new();
    b.write(b"kubesift-render-salt");
    for h in [&mut a, &mut b] {
        tool.hash(h);
        args.hash(h);
    }
    for input in inputs {
        let bytes = std::fs::read(input).ok();
        for h in [&mut a, &mut b] {
            input.hash(h);
            bytes.hash(h);
        }
    }
    format!("{:016x}{:016x}", a.finish(), b.finish())
}

/// The output kept under `key`.
pub fn get(key: &str) -> Option<String> {
    std::fs::read_to_string(dir()?.join(key)).ok()
}

/// Keeps `output` under `key` (written aside, then renamed: a reader never sees half of
/// it). Failing to write only costs a build next time.
pub fn put(key: &str, output: &str) {
    let Some(dir) = dir() else { return };
    if std::fs::create_dir_all(&dir).is_err() {
        return;
    }
    let tmp = dir.join(format!("{key}.{}.tmp", std::process::id()));
    if std::fs::write(&tmp, output).is_ok() && std::fs::rename(&tmp, dir.join(key)).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}

/// Whether `path` is inside the cache folder (tests: the cache is not beside the input).
pub fn holds(path: &Path) -> bool {
    dir().is_some_and(|d| path.starts_with(d))
}
