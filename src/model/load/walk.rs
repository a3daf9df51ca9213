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

fn problem(path: &Path, message: String) -> LoadError {
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
        match std::fs::metadata(root) {
            Ok(m) if m.is_file() => files.push(root.clone()),
            Ok(m) if m.is_dir() => walk_dir(root, &mut files, &mut problems),
            Ok(_) => problems.push(problem(
                root,
                "not a regular file or directory: skipped".to_owned(),
            )),
            Err(e) => problems.push(problem(root, format!("cannot read: {e}"))),
        }
    }
    let mut seen = HashSet::new();
    files.retain(|f| seen.insert(f.clone()));
    (files, problems)
}

/// Walks `root` on every core (a tree of many small files spends its time in directory
/// reads and `stat`s), then sorts what was found: the order does not depend on the threads.
fn walk_dir(root: &Path, files: &mut Vec<PathBuf>, problems: &mut Vec<LoadError>) {
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
    let found = Mutex::new((Vec::new(), Vec::new()));
    walker.run(|| {
        let mut mine = Found {
            into: &found,
            files: Vec::new(),
            problems: Vec::new(),
        };
        Box::new(move |entry| {
            match entry {
                Ok(e) => {
                    let is_file = e.file_type().is_some_and(|t| t.is_file());
                    if is_file && e.depth() > 0 && is_manifest_name(e.path()) {
                        mine.files.push(e.into_path());
                    }
                }
                Err(err) => mine.problems.push(walk_problem(&err)),
            }
            ignore::WalkState::Continue
        })
    });
    let (mut found, mut errs) = found.into_inner().unwrap_or_else(|e| e.into_inner());
    found.sort();
    errs.sort_by(|a, b| (&a.path, &a.message).cmp(&(&b.path, &b.message)));
    files.extend(found);
    problems.extend(errs);
}

/// One walker thread's findings, handed over when the thread is done with them.
struct Found<'a> {
    into: &'a Mutex<(Vec<PathBuf>, Vec<LoadError>)>,
    files: Vec<PathBuf>,
    problems: Vec<LoadError>,
}

impl Drop for Found<'_> {
    fn drop(&mut self) {
        let mut all = self.into.lock().unwrap_or_else(|e| e.into_inner());
        all.0.append(&mut self.files);
        all.1.append(&mut self.problems);
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
