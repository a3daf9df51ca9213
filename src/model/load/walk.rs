//! Finding the files to read under the given paths.
//!
//! Directories are walked recursively with `ignore`'s walker: symlinks are followed, and a
//! link back to an ancestor is reported once as a loop instead of being walked forever;
//! hidden entries (`.git`, `.github`, editor backups) are skipped. `.gitignore` rules are
//! NOT applied: kubectl reads ignored files too, and a manifest folder's `.gitignore`
//! usually hides secrets or rendered output the user may well want to inspect.
//! Explicitly named files are read whatever their extension, as `kubectl -f FILE` does.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::super::diagnostic::{LoadError, Severity};

fn problem(path: &Path, message: impl Into<Arc<str>>) -> LoadError {
    let path: Arc<Path> = Arc::from(path);
    LoadError::new(&path, 0, 0, Severity::Error, "walk", message)
}

/// `*.yaml`, `*.yml`, `*.json`, in any case.
pub(super) fn is_manifest_name(path: &Path) -> bool {
    path.extension().and_then(|e| e.to_str()).is_some_and(|e| {
        ["yaml", "yml", "json"]
            .iter()
            .any(|x| e.eq_ignore_ascii_case(x))
    })
}

/// Files to read under `paths`, in a stable order (each root's files sorted by path,
/// roots in the given order, duplicates dropped), plus problems met while walking.
pub(super) fn discover(paths: &[PathBuf]) -> (Vec<PathBuf>, Vec<LoadError>) {
    let mut files = Vec::new();
    let mut problems = Vec::new();
    for root in paths {
        let found = Mutex::new(Vec::new());
        problems.extend(walk_root(root, &|batch| {
            found
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .extend(batch);
        }));
        let mut found = found.into_inner().unwrap_or_else(|e| e.into_inner());
        found.sort();
        files.extend(found);
    }
    let mut seen = HashSet::new();
    files.retain(|f| seen.insert(f.clone()));
    (files, problems)
}

/// Hands the files under `paths` to `found` in batches as the walk finds them (in no
/// particular order; a file reached through two roots comes twice), and returns the
/// problems met, sorted. Lets a loader read while the walk goes on.
pub(super) fn discover_streaming(
    paths: &[PathBuf],
    found: &(dyn Fn(Vec<PathBuf>) + Sync),
) -> Vec<LoadError> {
    paths
        .iter()
        .flat_map(|root| walk_root(root, found))
        .collect()
}

/// One root: a file (or `-`, standard input) is itself, a directory is walked; problems
/// sorted.
fn walk_root(root: &Path, found: &(dyn Fn(Vec<PathBuf>) + Sync)) -> Vec<LoadError> {
    if super::stdin::is_stdin(root) {
        found(vec![root.to_path_buf()]);
        return Vec::new();
    }
    match std::fs::metadata(root) {
        Ok(m) if m.is_file() => {
            found(vec![root.to_path_buf()]);
            Vec::new()
        }
        Ok(m) if m.is_dir() => walk_dir(root, found),
        Ok(_) => vec![problem(
            root,
            "not a regular file or directory: skipped".to_owned(),
        )],
        Err(e) => vec![problem(root, format!("cannot read: {e}"))],
    }
}

/// Files handed over per batch while walking.
const BATCH: usize = 64;

/// Walks `root` on every core (a tree of many small files spends its time in directory
/// reads and `stat`s); returns the problems, sorted (the threads' order is not stable).
fn walk_dir(root: &Path, found: &(dyn Fn(Vec<PathBuf>) + Sync)) -> Vec<LoadError> {
    let walker = ignore::WalkBuilder::new(root)
        .follow_links(true)
        .hidden(true)
        .parents(false)
        .ignore(false)
        .git_ignore(false)
        .git_global(false)
        .git_exclude(false)
        .threads(std::thread::available_parallelism().map_or(2, |n| n.get().min(4)))
        .build_parallel();
    let problems = Mutex::new(Vec::new());
    walker.run(|| {
        let mut mine = Found {
            found,
            problems: &problems,
            files: Vec::new(),
        };
        Box::new(move |entry| {
            match entry {
                Ok(e) => {
                    let is_file = e.file_type().is_some_and(|t| t.is_file());
                    if is_file && e.depth() > 0 && is_manifest_name(e.path()) {
                        mine.files.push(e.into_path());
                        if mine.files.len() >= BATCH {
                            (mine.found)(std::mem::take(&mut mine.files));
                        }
                    }
                }
                Err(err) => mine
                    .problems
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(walk_problem(&err)),
            }
            ignore::WalkState::Continue
        })
    });
    let mut problems = problems.into_inner().unwrap_or_else(|e| e.into_inner());
    problems.sort_by(|a, b| (&a.path, &a.message).cmp(&(&b.path, &b.message)));
    problems
}

/// One walker thread's files not yet handed over; the rest goes when the thread is done.
struct Found<'a> {
    found: &'a (dyn Fn(Vec<PathBuf>) + Sync),
    problems: &'a Mutex<Vec<LoadError>>,
    files: Vec<PathBuf>,
}

impl Drop for Found<'_> {
    fn drop(&mut self) {
        if !self.files.is_empty() {
            (self.found)(std::mem::take(&mut self.files));
        }
    }
}

/// One clear message per walk error, naming the path it concerns.
fn walk_problem(err: &ignore::Error) -> LoadError {
    match err {
        ignore::Error::Loop { ancestor, child } => problem(
            child,
            format!(
                "symlink loop: points to its ancestor {}: not followed",
                ancestor.display()
            ),
        ),
        ignore::Error::WithPath { path, err } => match err.as_ref() {
            ignore::Error::Io(io) if path.is_dir() => {
                problem(path, format!("cannot read directory: {io}"))
            }
            ignore::Error::Io(io) => problem(path, format!("cannot read: {io}")),
            inner => walk_problem_at(path, inner),
        },
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            walk_problem(err)
        }
        ignore::Error::Partial(errs) => match errs.first() {
            Some(e) => walk_problem(e),
            None => problem(Path::new(""), "walk error".to_owned()),
        },
        other => problem(Path::new(""), other.to_string()),
    }
}

fn walk_problem_at(path: &Path, err: &ignore::Error) -> LoadError {
    match walk_problem(err) {
        e if e.path.as_os_str().is_empty() => problem(path, e.message),
        e => e,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tree wider than one batch, a file named twice (as a root and inside a root), a
    /// symlink loop and a missing root.
    #[test]
    fn streaming_finds_what_the_sorted_walk_finds() {
        let dir = tempfile::tempdir().expect("tempdir");
        for d in 0..5 {
            let sub = dir.path().join(format!("d{d}")).join("deeper");
            std::fs::create_dir_all(&sub).expect("mkdir");
            for f in 0..40 {
                std::fs::write(sub.join(format!("f{f}.yaml")), "a: 1\n").expect("write");
            }
            std::fs::write(sub.join("notes.txt"), "x").expect("write");
        }
        #[cfg(unix)]
        std::os::unix::fs::symlink(dir.path(), dir.path().join("d0").join("loop")).expect("ln");
        let named = dir.path().join("d1").join("deeper").join("f3.yaml");
        let roots = vec![
            dir.path().to_path_buf(),
            named.clone(),
            dir.path().join("missing"),
        ];
        let (sorted, problems) = discover(&roots);
        assert_eq!(sorted.len(), 200);

        let got = Mutex::new(Vec::new());
        let streamed_problems = discover_streaming(&roots, &|batch| {
            assert!(!batch.is_empty() && batch.len() <= BATCH);
            got.lock().expect("lock").extend(batch);
        });
        let mut got = got.into_inner().expect("lock");
        assert_eq!(got.len(), 201, "the named file comes twice");
        got.sort();
        got.dedup();
        let mut want = sorted.clone();
        want.sort();
        assert_eq!(got, want);
        assert_eq!(streamed_problems, problems);
        assert!(problems
            .iter()
            .any(|p| p.message.contains("missing") || p.message.contains("cannot read")));
        #[cfg(unix)]
        assert!(
            problems.iter().any(|p| p.message.contains("symlink loop")),
            "{problems:?}"
        );
    }
}
