//! Which changed paths matter: the ones the loader would read.
//!
//! The loader reads every `*.yaml`/`*.yml`/`*.json` file (extension case-insensitive) under a
//! directory argument, skipping hidden entries (`.git` included), and reads a file argument
//! whatever its name. The watcher and the live set use the same rule so that an editor's swap
//! file or a `git` object write never triggers a reload.

use std::path::{Component, Path, PathBuf};

/// The input roots split into directories (watched recursively) and named files.
#[derive(Clone, Debug, Default)]
pub struct PathFilter {
    dirs: Vec<PathBuf>,
    files: Vec<PathBuf>,
    /// `dirs` and `files` made absolute and normalized: OS events name absolute paths
    /// (`/cwd/./a.yaml` when watching `.`), the loader keeps the user's spelling.
    dirs_abs: Vec<PathBuf>,
    files_abs: Vec<PathBuf>,
}

impl PathFilter {
    /// Classifies each root by what it is now: a directory, or else a named file.
    pub fn new(roots: &[PathBuf]) -> PathFilter {
        let (dirs, files): (Vec<PathBuf>, Vec<PathBuf>) =
            roots.iter().cloned().partition(|p| p.is_dir());
        PathFilter {
            dirs_abs: dirs.iter().map(|p| absolute(p)).collect(),
            files_abs: files.iter().map(|p| absolute(p)).collect(),
            dirs,
            files,
        }
    }

    /// `path` spelled as the loader spells it: under the root it lies in, as that root was
    /// given (`./shop/a.yaml` for an event on `/cwd/shop/a.yaml` when watching `.`).
    pub fn respell(&self, path: &Path) -> PathBuf {
        if let Some(named) = self.explicit(path) {
            return named.to_path_buf();
        }
        let abs = absolute(path);
        for (root, root_abs) in self.dirs.iter().zip(&self.dirs_abs) {
            if let Ok(rel) = abs.strip_prefix(root_abs) {
                return if rel.as_os_str().is_empty() {
                    root.clone()
                } else {
                    root.join(rel)
                };
            }
        }
        path.to_path_buf()
    }

    /// Directory roots.
    pub fn dirs(&self) -> &[PathBuf] {
        &self.dirs
    }

    /// Named file roots.
    pub fn files(&self) -> &[PathBuf] {
        &self.files
    }

    /// The file root `path` designates, spelled as the user gave it (`./a.yaml` and `a.yaml`
    /// name the same root; notify reports the former when watching `.`).
    pub fn explicit(&self, path: &Path) -> Option<&Path> {
        let wanted = absolute(path);
        self.files_abs
            .iter()
            .position(|f| *f == wanted)
            .map(|i| self.files[i].as_path())
    }

    /// Whether the loader would read `path` as a file.
    pub fn wants_file(&self, path: &Path) -> bool {
        self.explicit(path).is_some() || (self.visible_under_dir(path) && is_manifest_name(path))
    }

    /// Whether `path` lies under a directory root with no hidden component in between
    /// (the root itself counts as visible).
    pub fn visible_under_dir(&self, path: &Path) -> bool {
        let path = absolute(path);
        self.dirs_abs.iter().any(|root| {
            path.strip_prefix(root)
                .is_ok_and(|rel| !rel.components().any(|c| is_hidden(&c)))
        })
    }
}

/// `*.yaml`, `*.yml`, `*.json`, extension case-insensitive.
pub fn is_manifest_name(path: &Path) -> bool {
    path.extension().and_then(|e| e.to_str()).is_some_and(|e| {
        ["yaml", "yml", "json"]
            .iter()
            .any(|x| e.eq_ignore_ascii_case(x))
    })
}

fn is_hidden(c: &Component<'_>) -> bool {
    matches!(c, Component::Normal(name) if name.to_string_lossy().starts_with('.'))
}

/// `path` made absolute against the current directory (without touching the file system
/// beyond that) and normalized.
fn absolute(path: &Path) -> PathBuf {
    normalize(&std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()))
}

/// Drops `.` components so `./a/b.yaml` and `a/b.yaml` compare equal.
pub fn normalize(path: &Path) -> PathBuf {
    path.components()
        .filter(|c| !matches!(c, Component::CurDir))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filter(dir: &Path) -> PathFilter {
        let dirs = vec![dir.to_path_buf()];
        let files = vec![PathBuf::from("./named.txt")];
        PathFilter {
            dirs_abs: dirs.iter().map(|p| absolute(p)).collect(),
            files_abs: files.iter().map(|p| absolute(p)).collect(),
            dirs,
            files,
        }
    }

    #[test]
    fn manifest_extensions_case_insensitive() {
        assert!(is_manifest_name(Path::new("a/b.YAML")));
        assert!(is_manifest_name(Path::new("b.Yml")));
        assert!(is_manifest_name(Path::new("b.json")));
        assert!(!is_manifest_name(Path::new("b.yaml.swp")));
        assert!(!is_manifest_name(Path::new("b.yaml~")));
        assert!(!is_manifest_name(Path::new("yaml")));
    }

    #[test]
    fn hidden_components_below_the_root_are_ignored() {
        let f = filter(Path::new("/r/.config/root"));
        assert!(f.wants_file(Path::new("/r/.config/root/a/b.yaml")));
        assert!(!f.wants_file(Path::new("/r/.config/root/.git/b.yaml")));
        assert!(!f.wants_file(Path::new("/r/.config/root/a/.b.yaml")));
        assert!(!f.wants_file(Path::new("/elsewhere/b.yaml")));
        assert!(f.visible_under_dir(Path::new("/r/.config/root")));
    }

    #[test]
    fn named_files_match_whatever_their_extension_and_spelling() {
        let f = filter(Path::new("/r"));
        assert!(f.wants_file(Path::new("named.txt")));
        assert_eq!(
            f.explicit(Path::new("named.txt")),
            Some(Path::new("./named.txt"))
        );
        assert!(!f.wants_file(Path::new("other.txt")));
    }

    #[test]
    fn relative_dir_root_matches_dot_prefixed_events() {
        let f = filter(Path::new("."));
        assert!(f.wants_file(Path::new("./x/a.yaml")));
        assert!(f.wants_file(Path::new("x/a.yaml")));
    }

    #[test]
    fn absolute_event_paths_are_spelled_as_the_relative_root_was_given() {
        let cwd = std::env::current_dir().unwrap();
        let f = filter(Path::new("."));
        let event = cwd.join("./shop/a.yaml");
        assert!(f.wants_file(&event));
        assert_eq!(f.respell(&event), PathBuf::from("./shop/a.yaml"));
        let f = filter(Path::new("manifests"));
        let event = cwd.join("manifests/x/b.yaml");
        assert!(f.visible_under_dir(&event));
        assert_eq!(f.respell(&event), PathBuf::from("manifests/x/b.yaml"));
        assert_eq!(
            f.respell(&cwd.join("manifests")),
            PathBuf::from("manifests")
        );
        assert!(!f.visible_under_dir(&cwd.join("elsewhere/b.yaml")));
        // The named file root keeps the user's spelling too.
        assert_eq!(
            f.respell(&cwd.join("named.txt")),
            PathBuf::from("./named.txt")
        );
    }
}
