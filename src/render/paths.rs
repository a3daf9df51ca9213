//! Paths as the user sees them: lexical normalisation, relative paths between absolute
//! ones, and the form a rendered object's origin file is shown in.

use std::path::{Component, Path, PathBuf};

/// `path` with `.` removed and `dir/..` collapsed, without touching the file system (a
/// leading `..` stays). Two spellings of one input file (`./a/../b.yaml`, `b.yaml`) compare
/// equal once normalised.
pub fn normalize(path: &Path) -> PathBuf {
    let mut out: Vec<Component<'_>> = Vec::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => match out.last() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => out.push(c),
            },
            _ => out.push(c),
        }
    }
    if out.is_empty() {
        return PathBuf::from(".");
    }
    out.iter().collect()
}

/// The path from the directory `from` to `to`, both absolute and normalised
/// (`/tmp/w`, `/work/a/b` → `../../work/a/b`).
pub fn relative(from: &Path, to: &Path) -> PathBuf {
    let from: Vec<Component<'_>> = from.components().collect();
    let to: Vec<Component<'_>> = to.components().collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut out = PathBuf::new();
    for _ in common..from.len() {
        out.push("..");
    }
    for c in &to[common..] {
        out.push(c.as_os_str());
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

/// Turns absolute file paths into the form the input's paths have: under a root, the
/// root as given joined with the rest (`/work/repo/base/x.yaml` shows as `./base/x.yaml`
/// when the root is `.`, as the walk names it); elsewhere relative to the working directory when under it, else
/// absolute.
#[derive(Clone, Debug, Default)]
pub struct Shown {
    /// (root as given, its canonical form), longest canonical form first.
    anchors: Vec<(PathBuf, PathBuf)>,
    cwd: Option<PathBuf>,
}

impl Shown {
    /// Anchored at `roots` (paths as the user gave them).
    pub fn new(roots: &[PathBuf]) -> Shown {
        let mut anchors: Vec<(PathBuf, PathBuf)> = roots
            .iter()
            .filter_map(|r| {
                let dir = if r.is_file() {
                    r.parent()?
                } else {
                    r.as_path()
                };
                let canon = std::fs::canonicalize(dir).ok()?;
                Some((dir.to_path_buf(), canon))
            })
            .collect();
        anchors.sort_by_key(|(_, c)| std::cmp::Reverse(c.components().count()));
        Shown {
            anchors,
            cwd: std::env::current_dir()
                .ok()
                .and_then(|d| std::fs::canonicalize(d).ok()),
        }
    }

    /// How the absolute `path` is shown.
    pub fn show(&self, path: &Path) -> PathBuf {
        for (given, canon) in &self.anchors {
            if let Ok(rest) = path.strip_prefix(canon) {
                return given.join(rest);
            }
        }
        match self.cwd.as_deref().map(|c| path.strip_prefix(c)) {
            Some(Ok(rest)) if !rest.as_os_str().is_empty() => rest.to_path_buf(),
            _ => path.to_path_buf(),
        }
    }

    /// The canonical (absolute) form of `path` given in the user's form, `None` when it
    /// does not exist.
    pub fn absolute(path: &Path) -> Option<PathBuf> {
        std::fs::canonicalize(path).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_lexically() {
        let n = |s: &str| normalize(Path::new(s)).display().to_string();
        assert_eq!(n("./a/../b.yaml"), "b.yaml");
        assert_eq!(n("overlays/prod/../../base/x"), "base/x");
        assert_eq!(n("../x/./y"), "../x/y");
        assert_eq!(n("/a/../../b"), "/b");
        assert_eq!(n("a/.."), ".");
    }

    #[test]
    fn relative_paths() {
        let r = |a: &str, b: &str| relative(Path::new(a), Path::new(b)).display().to_string();
        assert_eq!(r("/tmp/w", "/work/a/b"), "../../work/a/b");
        assert_eq!(r("/work", "/work/a"), "a");
        assert_eq!(r("/work/a", "/work/a"), ".");
    }
}
