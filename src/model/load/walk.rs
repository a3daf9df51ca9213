//! Finding the files to read under the given paths.
//!
//! Directories are walked recursively with `ignore`'s parallel walker; hidden entries
//! (`.git`, `.github`, editor backups) are skipped. `.gitignore` rules are NOT applied:
//! kubectl reads ignored files too, and a manifest folder's `.gitignore` usually hides
//! secrets or rendered output the user may well want to inspect. Explicitly named files
//! are read whatever their extension, as `kubectl -f FILE` does.
//!
//! Symlinks are followed, but every real directory (device + inode) is walked once: links
//! that lead to the same directory (a "diamond" of two links per level makes 2^40 paths out
//! of 40 directories) are walked through the first one only, the others reported as notes;
//! a link back to an ancestor is reported as a loop. The walk goes in rounds: first what is
//! reachable without following a link, then the links found, in sorted order, and so on, so
//! which path wins is the same on every run. Pseudo file systems (`/proc`, `/sys`, `/dev`,
//! told by the canonical path) are never walked. FIFOs, devices and sockets named like
//! manifests are reported as notes, never opened.

use std::collections::{HashMap, HashSet};
use std::fs::Metadata;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::read::file_type_name;
use crate::diagnostic::{Diagnostic, Severity};

fn problem(path: &Path, message: impl Into<Arc<str>>) -> Diagnostic {
    let path: Arc<Path> = Arc::from(path);
    Diagnostic::new(&path, 0, 0, Severity::Error, "walk", message)
}

fn note(path: &Path, message: impl Into<Arc<str>>) -> Diagnostic {
    let path: Arc<Path> = Arc::from(path);
    Diagnostic::new(&path, 0, 0, Severity::Note, "walk", message)
}

/// Jsonnet sources: an entry point (`*.jsonnet`) or a library it imports (`*.libsonnet`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Jsonnet {
    Program,
    Library,
}

fn jsonnet_kind(path: &Path) -> Option<Jsonnet> {
    let ext = path.extension()?.to_str()?;
    if ext.eq_ignore_ascii_case("jsonnet") {
        Some(Jsonnet::Program)
    } else if ext.eq_ignore_ascii_case("libsonnet") {
        Some(Jsonnet::Library)
    } else {
        None
    }
}

/// Why Jsonnet is skipped, and what to do instead.
const JSONNET_WHY: &str = "kubesift does not run jsonnet (none was available to build and test that against); render it with `jsonnet -y FILE` and load the output";

/// The note for a `*.jsonnet` file: its objects exist only once it is evaluated.
fn jsonnet_note(path: &Path) -> Diagnostic {
    let mut d = note(path, format!("Jsonnet file: not rendered: {JSONNET_WHY}"));
    d.code = "jsonnet";
    d
}

/// One note for a directory's `*.libsonnet` files (a library folder holds dozens).
fn libsonnet_note(dir: &Path, count: usize) -> Diagnostic {
    let what = if count == 1 {
        "1 Jsonnet library (*.libsonnet)".to_owned()
    } else {
        format!("{count} Jsonnet libraries (*.libsonnet)")
    };
    let mut d = note(dir, format!("{what}: not rendered: {JSONNET_WHY}"));
    d.code = "jsonnet";
    d
}

/// `*.yaml`, `*.yml`, `*.json`, in any case, and kustomize's extensionless
/// `Kustomization` file (read like a `kustomization.yaml`, so `--render` builds it).
pub(super) fn is_manifest_name(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == "Kustomization")
        || path.extension().and_then(|e| e.to_str()).is_some_and(|e| {
            ["yaml", "yml", "json"]
                .iter()
                .any(|x| e.eq_ignore_ascii_case(x))
        })
}

/// Files to read under `paths`, in a stable order (each root's files sorted by path,
/// roots in the given order, duplicates dropped), plus problems met while walking.
pub(super) fn discover(paths: &[PathBuf]) -> (Vec<PathBuf>, Vec<Diagnostic>) {
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
) -> Vec<Diagnostic> {
    paths
        .iter()
        .flat_map(|root| walk_root(root, found))
        .collect()
}

/// One root: a file (or `-`, standard input) is itself, a directory is walked; problems
/// sorted.
fn walk_root(root: &Path, found: &(dyn Fn(Vec<PathBuf>) + Sync)) -> Vec<Diagnostic> {
    if super::stdin::is_stdin(root) {
        found(vec![root.to_path_buf()]);
        return Vec::new();
    }
    match std::fs::metadata(root) {
        Ok(m) if m.is_file() => match jsonnet_kind(root) {
            // Named on purpose: still not YAML, so the note rather than syntax errors.
            Some(Jsonnet::Program) => vec![jsonnet_note(root)],
            Some(Jsonnet::Library) => vec![libsonnet_note(root, 1)],
            None => {
                found(vec![root.to_path_buf()]);
                Vec::new()
            }
        },
        Ok(m) if m.is_dir() => walk_dir(root, &m, found),
        Ok(_) => vec![problem(
            root,
            "not a regular file or directory: skipped".to_owned(),
        )],
        Err(e) => vec![problem(root, format!("cannot read: {e}"))],
    }
}

/// Files handed over per batch while walking.
const BATCH: usize = 64;

/// A real directory: device and inode.
type DirId = (u64, u64);

#[cfg(unix)]
fn dir_id(m: &Metadata) -> Option<DirId> {
    use std::os::unix::fs::MetadataExt;
    Some((m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn dir_id(_: &Metadata) -> Option<DirId> {
    None
}

/// Pseudo file systems, by the prefix of a canonical path: their trees are endless or
/// huge (`/proc/self/root`, `/sys`'s link web), and reading them has effects. Told by path
/// rather than by `statfs` because `/dev` is a tmpfs, like `/tmp`.
const PSEUDO: [&str; 3] = ["/proc", "/sys", "/dev"];

fn pseudo_prefix(canonical: &Path) -> Option<&'static str> {
    PSEUDO.into_iter().find(|p| canonical.starts_with(p))
}

/// The state of one root's walk, shared by the walker threads.
struct Walk<'a> {
    found: &'a (dyn Fn(Vec<PathBuf>) + Sync),
    /// Every real directory walked so far, with the path it was first walked as.
    visited: Mutex<HashMap<DirId, PathBuf>>,
    problems: Mutex<Vec<Diagnostic>>,
    /// Symlinks to directories met in the current round, for the next one.
    links: Mutex<Vec<PathBuf>>,
    /// `*.libsonnet` files per directory, noted once per directory at the end.
    libsonnet: Mutex<HashMap<PathBuf, usize>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Walks `root` in rounds (see the module doc); returns the problems, sorted.
fn walk_dir(
    root: &Path,
    meta: &Metadata,
    found: &(dyn Fn(Vec<PathBuf>) + Sync),
) -> Vec<Diagnostic> {
    let walk = Walk {
        found,
        visited: Mutex::new(HashMap::new()),
        problems: Mutex::new(Vec::new()),
        links: Mutex::new(Vec::new()),
        libsonnet: Mutex::new(HashMap::new()),
    };
    let canonical = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let mut round: Vec<RoundRoot> = walk.enter(root, canonical, meta).into_iter().collect();
    while !round.is_empty() {
        walk.round(&round);
        let mut links = std::mem::take(&mut *lock(&walk.links));
        links.sort();
        round = links
            .into_iter()
            .filter_map(|link| walk.follow(&link))
            .collect();
    }
    let libsonnet = walk
        .libsonnet
        .into_inner()
        .unwrap_or_else(|e| e.into_inner());
    let mut problems = walk
        .problems
        .into_inner()
        .unwrap_or_else(|e| e.into_inner());
    problems.extend(libsonnet.iter().map(|(dir, &n)| libsonnet_note(dir, n)));
    problems.sort_by(|a, b| (&a.path, &a.message).cmp(&(&b.path, &b.message)));
    problems
}

/// A directory walked in one round, with its canonical path (for the pseudo file system
/// check of the directories under it).
struct RoundRoot {
    path: PathBuf,
    canonical: PathBuf,
}

impl Walk<'_> {
    /// A symlink to a directory, found in the last round: the directory to walk through it
    /// next, unless it holds the link (a loop, whether walked yet or not: a link to `/`) or
    /// [`Walk::enter`] says no.
    fn follow(&self, link: &Path) -> Option<RoundRoot> {
        let target = std::fs::metadata(link).and_then(|m| Ok((m, std::fs::canonicalize(link)?)));
        let (meta, canonical) = match target {
            Ok(t) => t,
            Err(e) => {
                lock(&self.problems).push(problem(link, format!("cannot read: {e}")));
                return None;
            }
        };
        let home = link.parent().and_then(|p| std::fs::canonicalize(p).ok());
        if home.is_some_and(|h| h.starts_with(&canonical)) {
            let ancestor = dir_id(&meta)
                .and_then(|id| lock(&self.visited).get(&id).cloned())
                .unwrap_or(canonical);
            lock(&self.problems).push(problem(
                link,
                format!(
                    "symlink loop: points to its ancestor {}: not followed",
                    ancestor.display()
                ),
            ));
            return None;
        }
        self.enter(link, canonical, &meta)
    }

    /// Marks the directory at `path` as walked, unless it is already, or is in a pseudo file
    /// system; says why not in a problem.
    fn enter(&self, path: &Path, canonical: PathBuf, meta: &Metadata) -> Option<RoundRoot> {
        if let Some(prefix) = pseudo_prefix(&canonical) {
            let message = if canonical == Path::new(prefix) {
                format!("leads to {prefix}, a pseudo file system: not walked")
            } else {
                format!(
                    "leads to {}, inside {prefix}, a pseudo file system: not walked",
                    canonical.display()
                )
            };
            lock(&self.problems).push(note(path, message));
            return None;
        }
        self.first_visit(path, meta).then(|| RoundRoot {
            path: path.to_path_buf(),
            canonical,
        })
    }

    /// Records the directory `meta` as walked from `shown`; `false`, with a problem, when it
    /// already was (a link back to an ancestor is a loop, any other repeat a note).
    fn first_visit(&self, shown: &Path, meta: &Metadata) -> bool {
        let Some(id) = dir_id(meta) else {
            return true;
        };
        let mut visited = lock(&self.visited);
        let Some(first) = visited.get(&id) else {
            visited.insert(id, shown.to_path_buf());
            return true;
        };
        let p = if shown.starts_with(first) {
            problem(
                shown,
                format!(
                    "symlink loop: points to its ancestor {}: not followed",
                    first.display()
                ),
            )
        } else {
            note(
                shown,
                format!(
                    "same directory as {}, walked already: not walked again",
                    first.display()
                ),
            )
        };
        drop(visited);
        lock(&self.problems).push(p);
        false
    }

    /// One round: the given directories walked on every core (a tree of many small files
    /// spends its time in directory reads and `stat`s), links not followed but kept for the
    /// next round.
    fn round(&self, dirs: &[RoundRoot]) {
        let Some((first, rest)) = dirs.split_first() else {
            return;
        };
        let mut builder = ignore::WalkBuilder::new(&first.path);
        for d in rest {
            builder.add(&d.path);
        }
        let roots: Vec<(PathBuf, PathBuf)> = dirs
            .iter()
            .map(|d| (d.path.clone(), d.canonical.clone()))
            .collect();
        builder
            .follow_links(false)
            .hidden(true)
            .parents(false)
            .ignore(false)
            .git_ignore(false)
            .git_global(false)
            .git_exclude(false)
            .threads(std::thread::available_parallelism().map_or(2, |n| n.get().min(4)));
        let roots = roots.as_slice();
        builder.build_parallel().run(|| {
            let mut mine = Found {
                walk: self,
                files: Vec::new(),
            };
            Box::new(move |entry| match entry {
                Ok(e) => mine.entry(e, roots),
                Err(err) => {
                    lock(&self.problems).push(walk_problem(&err));
                    ignore::WalkState::Continue
                }
            })
        });
    }
}

/// One walker thread's files not yet handed over; the rest goes when the thread is done.
struct Found<'a, 'w> {
    walk: &'a Walk<'w>,
    files: Vec<PathBuf>,
}

impl Found<'_, '_> {
    fn entry(&mut self, e: ignore::DirEntry, roots: &[(PathBuf, PathBuf)]) -> ignore::WalkState {
        if e.depth() == 0 {
            return ignore::WalkState::Continue;
        }
        let Some(t) = e.file_type() else {
            return ignore::WalkState::Continue;
        };
        if t.is_dir() {
            return self.dir(&e, roots);
        }
        if t.is_file() {
            if is_manifest_name(e.path()) {
                self.push(e.into_path());
            } else {
                self.jsonnet(e.path());
            }
            return ignore::WalkState::Continue;
        }
        if t.is_symlink() {
            self.link(e.into_path());
            return ignore::WalkState::Continue;
        }
        if is_manifest_name(e.path()) {
            lock(&self.walk.problems).push(not_regular(e.path(), file_type_name(&t), false));
        }
        ignore::WalkState::Continue
    }

    /// A directory met inside a round: skipped when walked already or a pseudo file system.
    fn dir(&mut self, e: &ignore::DirEntry, roots: &[(PathBuf, PathBuf)]) -> ignore::WalkState {
        let canonical = roots
            .iter()
            .find_map(|(root, canon)| Some(canon.join(e.path().strip_prefix(root).ok()?)));
        if let Some(prefix) = canonical.as_deref().and_then(pseudo_prefix) {
            lock(&self.walk.problems).push(note(
                e.path(),
                format!("inside {prefix}, a pseudo file system: not walked"),
            ));
            return ignore::WalkState::Skip;
        }
        match e.metadata() {
            Ok(m) if !self.walk.first_visit(e.path(), &m) => ignore::WalkState::Skip,
            _ => ignore::WalkState::Continue,
        }
    }

    /// A symlink: a file behind it is read as itself, a directory is kept for the next
    /// round, anything else named like a manifest is reported.
    fn link(&mut self, path: PathBuf) {
        match std::fs::metadata(&path) {
            Ok(m) if m.is_file() => {
                if is_manifest_name(&path) {
                    self.push(path);
                }
            }
            Ok(m) if m.is_dir() => lock(&self.walk.links).push(path),
            Ok(m) => {
                if is_manifest_name(&path) {
                    let what = file_type_name(&m.file_type());
                    lock(&self.walk.problems).push(not_regular(&path, what, true));
                }
            }
            Err(e) => lock(&self.walk.problems).push(problem(&path, format!("cannot read: {e}"))),
        }
    }

    /// Notes a Jsonnet file (a library by its directory).
    fn jsonnet(&self, path: &Path) {
        match jsonnet_kind(path) {
            Some(Jsonnet::Program) => lock(&self.walk.problems).push(jsonnet_note(path)),
            Some(Jsonnet::Library) => {
                let dir = path.parent().unwrap_or(path).to_path_buf();
                *lock(&self.walk.libsonnet).entry(dir).or_default() += 1;
            }
            None => {}
        }
    }

    fn push(&mut self, path: PathBuf) {
        self.files.push(path);
        if self.files.len() >= BATCH {
            (self.walk.found)(std::mem::take(&mut self.files));
        }
    }
}

impl Drop for Found<'_, '_> {
    fn drop(&mut self) {
        if !self.files.is_empty() {
            (self.walk.found)(std::mem::take(&mut self.files));
        }
    }
}

/// The note for a FIFO, device or socket named like a manifest.
fn not_regular(path: &Path, what: &str, through_link: bool) -> Diagnostic {
    let what = if through_link {
        format!("a symlink to a {what}")
    } else {
        format!("a {what}")
    };
    note(path, format!("not a regular file ({what}): skipped"))
}

/// One clear message per walk error, naming the path it concerns.
fn walk_problem(err: &ignore::Error) -> Diagnostic {
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

fn walk_problem_at(path: &Path, err: &ignore::Error) -> Diagnostic {
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
