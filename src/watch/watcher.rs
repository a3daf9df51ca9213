//! File-system watching: notify events, debounced and de-duplicated by
//! `notify-debouncer-full`, filtered to what the loader reads, sent as batches of paths.
//!
//! Directory roots are watched recursively (notify adds watches for new subdirectories); a
//! file root is watched through its parent directory, because an editor's atomic save
//! (write a temporary file, rename it over) replaces the watched inode. The debouncer emits
//! each event once it is [`DEBOUNCE`] old — a trailing edge per event — and the receiver
//! re-reads the file then, so a second save inside the window is read, never dropped.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc::Sender;
use std::time::Duration;

use notify::event::{AccessKind, AccessMode, EventKind, ModifyKind};
use notify::{ErrorKind, RecommendedWatcher, RecursiveMode};
use notify_debouncer_full::{
    new_debouncer_opt, DebounceEventResult, DebouncedEvent, Debouncer, RecommendedCache,
};

use super::filter::PathFilter;
use super::WatchError;

/// How long events are coalesced before a batch is sent.
pub const DEBOUNCE: Duration = Duration::from_millis(100);

/// What the watcher reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WatchEvent {
    /// Paths that changed (files or directories), de-duplicated, in path order.
    Changed(Vec<PathBuf>),
    /// Events were lost (the OS queue overflowed): walk every root again.
    Rescan,
    /// A watching problem to show the user; watching goes on as far as it can.
    Error(String),
}

/// A running watcher; dropping it stops watching.
pub struct Watcher {
    _inner: Inner,
}

/// Held only to keep watching: dropping a debouncer stops it.
enum Inner {
    Native {
        _debouncer: Debouncer<RecommendedWatcher, RecommendedCache>,
    },
    Poll {
        _poller: super::poll::Poller,
    },
}

impl Watcher {
    /// Starts watching `roots` (directories recursively, files through their parent
    /// directory) and sends batches to `tx` until dropped. `poll` walks the tree every
    /// [`POLL_INTERVAL`](super::poll::POLL_INTERVAL) instead (network file systems, where
    /// inotify sees nothing; see `poll.rs` for why not notify's `PollWatcher`).
    ///
    /// Fails when a root cannot be watched, except for the inotify watch limit, which is
    /// sent as [`WatchEvent::Error`] (watching goes on for what was covered).
    pub fn start(
        roots: &[PathBuf],
        poll: bool,
        tx: Sender<WatchEvent>,
    ) -> Result<Watcher, WatchError> {
        if let Some(missing) = roots.iter().find(|r| !r.exists()) {
            return Err(WatchError::Missing(missing.clone()));
        }
        let inner = if poll {
            Inner::Poll {
                _poller: super::poll::spawn(roots, tx).map_err(WatchError::Poller)?,
            }
        } else {
            Inner::Native {
                _debouncer: native(roots, tx)?,
            }
        };
        Ok(Watcher { _inner: inner })
    }
}

fn native(
    roots: &[PathBuf],
    tx: Sender<WatchEvent>,
) -> Result<Debouncer<RecommendedWatcher, RecommendedCache>, WatchError> {
    let filter = PathFilter::new(roots);
    let targets = targets(&filter);
    let handler = {
        let tx = tx.clone();
        move |result: DebounceEventResult| forward(&filter, result, &tx)
    };
    let config = notify::Config::default();
    let mut d = new_debouncer_opt(DEBOUNCE, None, handler, RecommendedCache::new(), config)
        .map_err(WatchError::Start)?;
    watch_all(&targets, &tx, |p, m| d.watch(p, m))?;
    Ok(d)
}

/// Directories to watch: each directory root recursively, and the parent of each file root
/// not already covered.
fn targets(filter: &PathFilter) -> Vec<(PathBuf, RecursiveMode)> {
    let mut out: Vec<(PathBuf, RecursiveMode)> = filter
        .dirs()
        .iter()
        .map(|d| (d.clone(), RecursiveMode::Recursive))
        .collect();
    let parents: BTreeSet<PathBuf> = filter
        .files()
        .iter()
        .map(|f| match f.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        })
        .filter(|p| !filter.dirs().iter().any(|d| p.starts_with(d)))
        .collect();
    out.extend(
        parents
            .into_iter()
            .map(|p| (p, RecursiveMode::NonRecursive)),
    );
    out
}

fn watch_all(
    targets: &[(PathBuf, RecursiveMode)],
    tx: &Sender<WatchEvent>,
    mut watch: impl FnMut(&Path, RecursiveMode) -> notify::Result<()>,
) -> Result<(), WatchError> {
    for (path, mode) in targets {
        match watch(path, *mode) {
            Ok(()) => {}
            Err(e) if matches!(e.kind, ErrorKind::MaxFilesWatch) => {
                let _ = tx.send(WatchEvent::Error(describe(&e)));
            }
            Err(source) => {
                return Err(WatchError::Watch {
                    path: path.clone(),
                    error: source,
                })
            }
        }
    }
    Ok(())
}

/// Turns one debouncer delivery into watch events. A send error means the receiver is gone
/// (the program is stopping): nothing to do.
fn forward(filter: &PathFilter, result: DebounceEventResult, tx: &Sender<WatchEvent>) {
    match result {
        Ok(events) => {
            if events.iter().any(|e| e.need_rescan()) {
                let _ = tx.send(WatchEvent::Rescan);
            }
            let paths = relevant_paths(filter, &events);
            if !paths.is_empty() {
                let _ = tx.send(WatchEvent::Changed(paths));
            }
        }
        Err(errors) => {
            for e in errors {
                let _ = tx.send(WatchEvent::Error(describe(&e)));
            }
        }
    }
}

/// The paths of `events` the loader cares about, de-duplicated, file roots spelled as given.
pub fn relevant_paths(filter: &PathFilter, events: &[DebouncedEvent]) -> Vec<PathBuf> {
    let mut out = BTreeSet::new();
    for event in events {
        for path in &event.paths {
            if let Some(named) = filter.explicit(path) {
                out.insert(named.to_path_buf());
            } else if relevant(filter, &event.kind, path) {
                out.insert(filter.respell(path));
            }
        }
    }
    out.into_iter().collect()
}

/// Not a read, and: a visible manifest file; a directory created, renamed or removed (its
/// files come and go with it); or a path that no longer exists or was removed or renamed
/// (it may have been a directory). Metadata
/// changes of existing directories are noise.
fn relevant(filter: &PathFilter, kind: &EventKind, path: &Path) -> bool {
    // Reads (ours included: inotify reports the opens of our own re-reads) change nothing;
    // only a writer's close means new content.
    if matches!(kind, EventKind::Access(a) if *a != AccessKind::Close(AccessMode::Write)) {
        return false;
    }
    if !filter.visible_under_dir(path) {
        return false;
    }
    if path.is_dir() {
        return matches!(
            kind,
            EventKind::Create(_) | EventKind::Remove(_) | EventKind::Modify(ModifyKind::Name(_))
        );
    }
    // A removed or renamed path may have been a directory, even if a file of the same
    // name (not a manifest) is there now (`rm -rf sub; echo hi > sub`).
    super::filter::is_manifest_name(path)
        || !path.exists()
        || matches!(
            kind,
            EventKind::Remove(_) | EventKind::Modify(ModifyKind::Name(_))
        )
}

/// A watching error as a sentence; the inotify limit comes with what to do about it.
pub fn describe(e: &notify::Error) -> String {
    match e.kind {
        ErrorKind::MaxFilesWatch => format!(
            "the inotify watch limit is reached{}: changes in new directories are not seen; \
             restart with --poll, or raise fs.inotify.max_user_watches",
            on_paths(e)
        ),
        _ => format!("watch error{}: {e}", on_paths(e)),
    }
}

fn on_paths(e: &notify::Error) -> String {
    match e.paths.first() {
        Some(p) => format!(" at {}", p.display()),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use notify::event::{CreateKind, DataChange, Event};
    use std::time::Instant;

    fn ev(kind: EventKind, paths: &[&Path]) -> DebouncedEvent {
        let mut e = Event::new(kind);
        for p in paths {
            e = e.add_path(p.to_path_buf());
        }
        DebouncedEvent::new(e, Instant::now())
    }

    #[test]
    fn limit_error_advises_poll() {
        let e = notify::Error::new(ErrorKind::MaxFilesWatch).add_path(PathBuf::from("/x"));
        let msg = describe(&e);
        assert!(msg.contains("--poll"), "{msg}");
        assert!(msg.contains("/x"), "{msg}");
    }

    #[test]
    fn filters_and_dedups_paths() -> anyhow::Result<()> {
        let dir = tempfile::tempdir()?;
        let root = dir.path().to_path_buf();
        std::fs::create_dir(root.join("sub"))?;
        std::fs::write(root.join("a.yaml"), "")?;
        std::fs::write(root.join("notes.txt"), "")?;
        let filter = PathFilter::new(std::slice::from_ref(&root));
        let modify = EventKind::Modify(ModifyKind::Data(DataChange::Any));
        let events = [
            ev(modify, &[&root.join("a.yaml")]),
            ev(modify, &[&root.join("a.yaml")]),
            ev(modify, &[&root.join("notes.txt")]),
            ev(
                EventKind::Access(AccessKind::Open(AccessMode::Any)),
                &[&root.join("b.yaml")],
            ),
            ev(
                EventKind::Access(AccessKind::Close(AccessMode::Read)),
                &[&root.join("b.yaml")],
            ),
            ev(
                EventKind::Access(AccessKind::Close(AccessMode::Write)),
                &[&root.join("c.yaml")],
            ),
            ev(modify, &[&root.join(".git/index.yaml")]),
            ev(modify, &[&root.join("sub")]),
            ev(EventKind::Create(CreateKind::Folder), &[&root.join("sub")]),
            ev(
                EventKind::Remove(notify::event::RemoveKind::Any),
                &[&root.join("gone")],
            ),
        ];
        assert_eq!(
            relevant_paths(&filter, &events),
            [
                root.join("a.yaml"),
                root.join("c.yaml"),
                root.join("gone"),
                root.join("sub")
            ]
        );
        Ok(())
    }

    #[test]
    fn file_roots_watch_their_parent_once() {
        let filter = PathFilter::new(&[PathBuf::from("x/a.yaml"), PathBuf::from("x/b.yaml")]);
        let t = targets(&filter);
        assert_eq!(t, [(PathBuf::from("x"), RecursiveMode::NonRecursive)]);
    }
}
