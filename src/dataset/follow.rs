//! Following the files after the first load: watcher batches → re-reads in the
//! [`LiveSet`] → one [`Event::Changed`] per applied batch. The one loop every front end
//! uses (the UI's loader thread, `get -w`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::change::Change;
use super::delta::Delta;
use super::live::LiveSet;
use super::load::{first_load, Pacing};
use super::render::{RenderRequest, Rendering};
use super::settle::{Settle, RECHECK};
use super::Event;
use crate::model::load::{discover, is_stdin, load_listed_file, LoadOptions};
use crate::watch::{WatchError, WatchEvent, Watcher};

/// What following says when standard input is among the roots.
const STDIN_NOTICE: &str = "standard input (-) was read once: not watched";

/// How often the loop checks its stop flag while no change arrives.
const STOP_CHECK: Duration = Duration::from_millis(100);

/// What a consumer wants from [`spawn`]/[`follow`].
#[derive(Clone, Debug)]
pub struct Follow {
    pub paths: Vec<PathBuf>,
    pub opts: LoadOptions,
    /// Poll the file system instead of OS events.
    pub poll: bool,
    /// Progress and partial batches while loading (`None`: only the whole table).
    pub pacing: Option<Pacing>,
    /// Build the graph after the table (`Event::Linked`).
    pub link: bool,
    /// Keep following the files after the first load.
    pub watch: bool,
    /// Kustomizations and charts to render (`-k`, `--render`).
    pub render: RenderRequest,
}

impl Follow {
    /// What the terminal UI wants: everything, as soon as it can be shown.
    pub fn ui(paths: Vec<PathBuf>, opts: LoadOptions, poll: bool) -> Follow {
        Follow {
            paths,
            opts,
            poll,
            pacing: Some(Pacing::default()),
            link: true,
            watch: true,
            render: RenderRequest::default(),
        }
    }

    /// The same, rendering as `render` asks.
    pub fn rendering(mut self, render: RenderRequest) -> Follow {
        self.render = render;
        self
    }
}

/// Loads and follows on a thread of its own, sending every [`Event`] to `send` until it
/// answers `false` (the consumer went away). A watcher that cannot start is a
/// [`Event::Notice`]; the loaded data stays.
pub fn spawn(config: Follow, send: impl Fn(Event) -> bool + Send + Sync + 'static) {
    spawn_until(config, send, Arc::new(AtomicBool::new(false)));
}

/// [`spawn`], stopping once `stop` is set (a consumer replacing this loader with another:
/// nothing more is sent, the watch ends at its next check).
pub fn spawn_until(
    config: Follow,
    send: impl Fn(Event) -> bool + Send + Sync + 'static,
    stop: Arc<AtomicBool>,
) {
    std::thread::spawn(move || {
        let send = |e: Event| !stop.load(Ordering::SeqCst) && send(e);
        if let Err(e) = follow(&config, &send, &stop) {
            let _ = send(Event::Notice(format!("not watching the files: {e}")));
        }
    });
}

/// Loads `config.paths` ([`first_load`]), then, when `config.watch`, follows the files until
/// `stop` is set or `send` answers `false`: one [`Event::Changed`] per applied batch of
/// file-system events, watching problems as [`Event::Notice`]s.
///
/// Watching starts once the first load is handed over, then every root is rescanned once
/// (files whose size or modification time moved since they were read are re-read), so a
/// file saved while loading is not missed. Starting the watcher first made the first rows
/// wait for it: a recursive watch of a big tree takes a while to set up (BENCHMARKS.md).
/// Standard input (`-`) is not watched, and a notice says so.
pub fn follow(
    config: &Follow,
    send: &(dyn Fn(Event) -> bool + Sync),
    stop: &AtomicBool,
) -> Result<(), WatchError> {
    let opts = &config.opts;
    let rendering = match prepare(config) {
        Ok(r) => r,
        Err(e) => {
            let _ = send(Event::Notice(e));
            return Ok(());
        }
    };
    let total = rendering.as_ref().map_or(0, |r| r.plan.units.len());
    let built = AtomicUsize::new(0);
    let load = |f: &Path| match &rendering {
        Some(r) => {
            let load = r.load(f, opts);
            if r.unit_of(f).is_some() && config.pacing.is_some() {
                let done = built.fetch_add(1, Ordering::Relaxed) + 1;
                let _ = send(Event::Rendering { done, total });
            }
            load
        }
        None => load_listed_file(f, opts, &mut || {}),
    };
    // The whole table says which view it is (and how the builds went).
    let send_view = |event: Event| match (event, &rendering) {
        (Event::Loaded(mut data), Some(r)) => {
            data.render = Some(r.summary_of(&data.inventory));
            send(Event::Loaded(data))
        }
        (event, _) => send(event),
    };
    let paths = config.render.roots(&config.paths);
    // A root that vanishes while loading is waited for, not an error.
    let existed: Vec<PathBuf> = paths.iter().filter(|p| p.is_dir()).cloned().collect();
    let Some((live, _)) = first_load(&paths, opts, config.pacing, config.link, &load, &send_view)
    else {
        return Ok(());
    };
    let mut live = live.with_rendering(rendering);
    if !config.watch {
        return Ok(());
    }
    // Standard input was read once; only the other roots can change.
    let (stdin, watched): (Vec<&PathBuf>, Vec<&PathBuf>) = paths.iter().partition(|p| is_stdin(p));
    if !stdin.is_empty() && !send(Event::Notice(STDIN_NOTICE.to_owned())) {
        return Ok(());
    }
    if watched.is_empty() {
        return Ok(());
    }
    let watched: Vec<PathBuf> = watched.into_iter().cloned().collect();
    let (tx, rx) = mpsc::channel();
    let mut roots = Roots::start(&watched, &existed, config.poll, tx.clone())?;
    // What changed between reading a file and watching it.
    let _ = tx.send(WatchEvent::Rescan);
    follow_live(&mut live, &rx, &mut roots, send, stop)
}

/// The rendering plan `config` asks for: `-k` folders (an error names one without a
/// kustomization), or the plan of the walked input for `--render`.
fn prepare(config: &Follow) -> Result<Option<Arc<Rendering>>, String> {
    let req = &config.render;
    if !req.is_on() {
        return Ok(None);
    }
    if !req.kustomize.is_empty() {
        return Rendering::explicit(req).map(|r| Some(Arc::new(r)));
    }
    let (files, _) = discover(&config.paths, &config.opts);
    let rendering = Rendering::plan(&config.paths, &files, req);
    // The UI's default renders only what a tool can build; otherwise it is the files view.
    if req.auto && !req.render && !rendering.builds_anything() {
        return Ok(None);
    }
    Ok(Some(Arc::new(rendering)))
}

/// How long the watcher must be quiet before the directories of the last batches are walked
/// again (see [`Verify`]).
const VERIFY_AFTER: Duration = Duration::from_millis(150);

/// Applies watched batches to `live`, sending each result, until `stop` is set or `send`
/// answers `false` (`Ok`), or the watcher goes away (an error).
///
/// Between batches it keeps the watch true to the roots ([`Roots::check`]: a root deleted
/// and recreated, or swapped by a rename, is watched again and rescanned) and, once the
/// watcher is quiet, walks again the directories the last batches touched ([`Verify`]).
fn follow_live(
    live: &mut LiveSet,
    events: &Receiver<WatchEvent>,
    roots: &mut Roots,
    send: &(dyn Fn(Event) -> bool + Sync),
    stop: &AtomicBool,
) -> Result<(), WatchError> {
    let mut verify = Verify::default();
    let mut settle = Settle::default();
    let mut last_event = Instant::now();
    while !stop.load(Ordering::SeqCst) {
        let mut pending = Pending::default();
        let mut rewalk = BTreeSet::new();
        if let Some(notice) = roots.check() {
            if !send(Event::Notice(notice)) {
                return Ok(());
            }
            pending.rescan = true;
        }
        let wait = if settle.waiting() {
            RECHECK
        } else if verify.dirs.is_empty() {
            STOP_CHECK
        } else {
            VERIFY_AFTER
        };
        match events.recv_timeout(wait) {
            Ok(event) => {
                pending.add(event);
                pending.extend(events.try_iter());
                last_event = Instant::now();
            }
            // Quiet long enough (the short rechecks of held files do not count as quiet).
            Err(RecvTimeoutError::Timeout) if last_event.elapsed() >= VERIFY_AFTER => {
                rewalk = verify.take();
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return Err(WatchError::Stopped),
        }
        // Directories of new events are walked again later; the re-walk itself is not (it
        // was walked again every 150 ms for as long as the watch ran).
        verify.note(&pending, &roots.paths);
        pending.paths.extend(rewalk);
        // Held files are looked at again on every turn; a rescan reads everything anyway.
        pending.paths.extend(settle.recheck());
        if !pending.rescan {
            settle.hold(&mut pending.paths);
        }
        for e in std::mem::take(&mut pending.errors) {
            tracing::warn!("watch: {e}");
            if !send(Event::Notice(e)) {
                return Ok(());
            }
        }
        if !pending.has_work() {
            continue;
        }
        let started = Instant::now();
        let before = Change::signature(live);
        let deltas = pending.apply(live, &mut settle);
        let count = deltas.len();
        let at = chrono::Utc::now().timestamp();
        let Some(mut change) = Change::of(live, deltas, before, at) else {
            continue;
        };
        // A rebuilt dataset stays the rendered view (a patched one keeps its summary).
        if let (super::ChangeData::Full(data), Some(r)) = (&mut change.data, live.rendering()) {
            data.render = Some(r.summary_of(&data.inventory));
        }
        tracing::info!(
            deltas = count,
            patched = matches!(change.data, super::ChangeData::Patch(_)),
            elapsed_ms = started.elapsed().as_millis() as u64,
            "applied a watched batch"
        );
        if !send(Event::Changed(Box::new(change))) {
            return Ok(());
        }
    }
    Ok(())
}

/// Directories that changed in recent batches, to walk once more when the watcher is
/// quiet. A directory is read when its own event arrives, which can be while files are
/// still being created and deleted in it; the debouncer then drops a file's create and
/// delete that fall in one window, so a file read with the directory and deleted right
/// after would stay shown. Walking the directory again after the burst removes it.
#[derive(Debug, Default)]
struct Verify {
    dirs: BTreeSet<PathBuf>,
}

impl Verify {
    /// Remembers the directories among a batch's paths (every root after a rescan: the
    /// walk may have met files of a burst still going on), and the directory holding a
    /// path that is gone (inside a root): the debouncer folds a rename and a removal of
    /// one path in a window into fewer events (`mv d e; rm -r e` can leave only `d`'s
    /// event), so what stood beside it is walked again too.
    fn note(&mut self, pending: &Pending, roots: &[PathBuf]) {
        if pending.rescan {
            self.dirs
                .extend(roots.iter().filter(|p| p.is_dir()).cloned());
        }
        for p in &pending.paths {
            if p.is_dir() {
                self.dirs.insert(p.clone());
            } else if !p.exists() {
                let parent = p
                    .parent()
                    .filter(|d| d.is_dir() && roots.iter().any(|r| d.starts_with(r)));
                self.dirs.extend(parent.map(Path::to_path_buf));
            }
        }
    }

    /// The directories to walk again, forgotten.
    fn take(&mut self) -> BTreeSet<PathBuf> {
        std::mem::take(&mut self.dirs)
    }
}

/// The watched directory roots and the real directory each was when watching started: a
/// root deleted and recreated, or replaced by a rename, is a new directory that the old
/// watch does not see (inotify watches inodes, not paths).
struct Roots {
    paths: Vec<PathBuf>,
    poll: bool,
    tx: Sender<WatchEvent>,
    watcher: Option<Watcher>,
    /// Each directory root, held open as it was before watching started; only directory
    /// roots are checked (a file root is watched through its parent, which survives atomic
    /// saves).
    pins: Vec<(PathBuf, Pin)>,
    /// A root is gone and the watch waits for it.
    waiting: bool,
    /// Watching failed because the tree changed while the watches were added: the next
    /// check starts it again, whether or not a root moved.
    retry: bool,
}

/// Whether `error` comes from a tree that changed while its watches were added: a root
/// that was there when loading started (in `existed`) missing for a moment, or a directory
/// the recursive walk found gone before its watch. A root that never existed is not.
fn changed_under(error: &WatchError, existed: &[PathBuf]) -> bool {
    match error {
        WatchError::Missing(path) => existed.contains(path),
        other => other.gone_path().is_some(),
    }
}

/// A directory's device and inode number.
type DirId = (u64, u64);

fn dir_id(path: &Path) -> Option<DirId> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(path).ok().filter(|m| m.is_dir())?;
    Some((meta.dev(), meta.ino()))
}

/// A directory root held open. While the handle lives its inode is not freed, so a
/// directory made at the same path later always has another inode number: ext4 hands a
/// freed number out again at once (`rm -rf D; mkdir D`), and not every file system keeps a
/// birth time to tell the two apart. The inotify watch itself does not hold the inode: the
/// kernel drops it when the directory is deleted.
struct Pin {
    id: Option<DirId>,
    _handle: Option<std::fs::File>,
}

impl Pin {
    /// Holds `path` open (a root that cannot be opened is compared by its stat alone; one
    /// that is not there has no identity).
    fn take(path: &Path) -> Pin {
        use std::os::unix::fs::MetadataExt;
        let handle = std::fs::File::open(path).ok();
        let id = handle
            .as_ref()
            .and_then(|f| f.metadata().ok())
            .filter(|m| m.is_dir())
            .map(|m| (m.dev(), m.ino()));
        match id {
            Some(id) => Pin {
                id: Some(id),
                _handle: handle,
            },
            None => Pin {
                id: dir_id(path),
                _handle: None,
            },
        }
    }
}

impl Roots {
    /// Starts watching `paths`; `existed` are the directory roots there before loading: one
    /// of them gone by now is waited for (watching starts when it is back).
    fn start(
        paths: &[PathBuf],
        existed: &[PathBuf],
        poll: bool,
        tx: Sender<WatchEvent>,
    ) -> Result<Roots, WatchError> {
        // Held before watching: a root swapped while the watch is being added is then a
        // different directory from the one held, and the next check sees it.
        let pins = paths
            .iter()
            .filter(|p| p.is_dir() || existed.contains(p))
            .map(|p| (p.clone(), Pin::take(p)))
            .collect();
        let (watcher, waiting, retry) = match Watcher::start(paths, poll, tx.clone()) {
            Ok(w) => (Some(w), false, false),
            // Removed before or while the watches were added.
            Err(_) if existed.iter().any(|p| !p.exists()) => (None, true, false),
            // The tree changed while its watches were added (a root swapped and back, a
            // directory removed in the middle of the recursive walk): the first check
            // watches it again. Ending here stopped following for good.
            Err(e) if changed_under(&e, existed) => (None, false, true),
            Err(e) => return Err(e),
        };
        Ok(Roots {
            paths: paths.to_vec(),
            poll,
            tx,
            watcher,
            pins,
            waiting,
            retry,
        })
    }

    /// The directory roots held again, as they are now.
    fn pin_again(&self) -> Vec<(PathBuf, Pin)> {
        self.pins
            .iter()
            .map(|(p, _)| (p.clone(), Pin::take(p)))
            .collect()
    }

    /// Whether every directory root is still the directory being watched; if not, the
    /// watch is started again on what the paths are now (once they all exist), and the
    /// answer is what to tell the user. The caller rescans.
    fn check(&mut self) -> Option<String> {
        let moved: Vec<&PathBuf> = self
            .pins
            .iter()
            .filter(|(p, pin)| dir_id(p) != pin.id)
            .map(|(p, _)| p)
            .collect();
        if moved.is_empty() && !self.retry {
            return None;
        }
        let said = if moved.is_empty() {
            self.paths.iter().collect()
        } else {
            moved
        };
        let names = said
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ");
        self.watcher = None;
        let pins = self.pin_again();
        if self.paths.iter().any(|p| !p.exists()) {
            self.pins = pins;
            let first = !self.waiting;
            self.waiting = true;
            return first.then(|| format!("{names} removed: watching again once it is back"));
        }
        match Watcher::start(&self.paths, self.poll, self.tx.clone()) {
            Ok(w) => {
                self.watcher = Some(w);
                self.pins = pins;
                self.waiting = false;
                self.retry = false;
                Some(format!("{names} replaced: watching it again (rescanned)"))
            }
            // Changing still: retried at the next check, quietly (a notice every 100 ms of
            // a storm said nothing new).
            Err(e) if e.gone_path().is_some() => {
                self.retry = true;
                None
            }
            // Retried at the next check if the roots still differ from the ones held.
            Err(e) => {
                self.retry = false;
                Some(format!("cannot watch {names} again: {e}"))
            }
        }
    }
}

/// Watch events collapsed into one unit of work: every queued event is drained into one
/// `Pending` and applied once (a rescan supersedes the path list).
#[derive(Debug, Default)]
struct Pending {
    paths: BTreeSet<PathBuf>,
    rescan: bool,
    /// Watching problems met, in arrival order, for the consumer to show.
    errors: Vec<String>,
}

impl Pending {
    fn add(&mut self, event: WatchEvent) {
        match event {
            WatchEvent::Changed(paths) => self.paths.extend(paths),
            WatchEvent::Rescan => self.rescan = true,
            WatchEvent::Error(e) => self.errors.push(e),
        }
    }

    /// Whether there is anything to re-read.
    fn has_work(&self) -> bool {
        self.rescan || !self.paths.is_empty()
    }

    /// Applies the collected work to `live` and returns the deltas. Files a walk finds
    /// half-written are held in `settle` like named ones (a rescan right after the watch
    /// starts can meet a save between its truncate and its write).
    fn apply(self, live: &mut LiveSet, settle: &mut Settle) -> Vec<Delta> {
        let mut defer = |p: &Path| settle.defer(p);
        if self.rescan {
            live.rescan_deferring(&mut defer)
        } else {
            live.apply_deferring(&self.paths.into_iter().collect::<Vec<_>>(), &mut defer)
        }
    }
}

impl Extend<WatchEvent> for Pending {
    fn extend<I: IntoIterator<Item = WatchEvent>>(&mut self, iter: I) {
        for e in iter {
            self.add(e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ino(path: &Path) -> Option<u64> {
        dir_id(path).map(|(_, ino)| ino)
    }

    /// A gone path has the directory that held it walked again once quiet (inside a root
    /// only); an existing directory is walked again itself; an existing file adds nothing.
    #[test]
    fn verify_walks_again_the_directory_of_a_gone_path() -> anyhow::Result<()> {
        let dir = tempfile::tempdir()?;
        let root = dir.path().join("root");
        std::fs::create_dir_all(root.join("e1"))?;
        std::fs::write(root.join("e1/g0.yaml"), "kind: ConfigMap")?;
        let mut pending = Pending::default();
        pending.add(WatchEvent::Changed(vec![
            root.join("d2"),
            root.join("e1"),
            root.join("e1/g0.yaml"),
            root.join("e1/gone/deeper.yaml"),
            dir.path().join("elsewhere.yaml"),
        ]));
        let mut verify = Verify::default();
        verify.note(&pending, std::slice::from_ref(&root));
        let want: BTreeSet<PathBuf> = [root.clone(), root.join("e1")].into_iter().collect();
        assert_eq!(verify.take(), want);
        Ok(())
    }

    /// `rm -rf D; mkdir D` hands the freed inode number out again on ext4; a held root is
    /// not freed, so the directory made after it is always told apart, birth time or not.
    #[test]
    fn a_held_root_recreated_never_has_its_inode_number() -> anyhow::Result<()> {
        let dir = tempfile::tempdir()?;
        let root = dir.path().join("D");
        std::fs::create_dir(&root)?;
        let pin = Pin::take(&root);
        let held = pin.id.map(|(_, i)| i);
        assert_eq!(held, ino(&root));
        for _ in 0..20 {
            std::fs::remove_dir_all(&root)?;
            std::fs::create_dir(&root)?;
            assert_ne!(ino(&root), held);
            assert_ne!(dir_id(&root), pin.id);
        }
        Ok(())
    }

    /// Watching that failed because the tree changed under it is started again by the next
    /// check even though no root moved, and says so once; a root that never existed is
    /// not waited for.
    #[test]
    fn a_watch_that_failed_on_a_changing_tree_is_started_again() -> anyhow::Result<()> {
        let dir = tempfile::tempdir()?;
        let root = dir.path().join("D");
        std::fs::create_dir(&root)?;
        let gone = WatchError::Missing(root.clone());
        assert!(changed_under(&gone, std::slice::from_ref(&root)));
        assert!(!changed_under(&gone, &[]));
        assert!(!changed_under(
            &WatchError::Stopped,
            std::slice::from_ref(&root)
        ));
        let (tx, _rx) = mpsc::channel();
        let mut roots = Roots::start(std::slice::from_ref(&root), &[], false, tx)?;
        roots.watcher = None;
        roots.retry = true;
        let said = roots.check().unwrap_or_default();
        assert!(said.contains("watching it again"), "{said}");
        assert!(roots.watcher.is_some() && !roots.retry);
        assert_eq!(roots.check(), None);
        Ok(())
    }

    /// A root replaced under a running watch is seen by the next check, which watches the
    /// new directory, holds it, and says so once.
    #[test]
    fn check_watches_a_replaced_root_again() -> anyhow::Result<()> {
        let dir = tempfile::tempdir()?;
        let root = dir.path().join("D");
        std::fs::create_dir(&root)?;
        let (tx, _rx) = mpsc::channel();
        let mut roots = Roots::start(std::slice::from_ref(&root), &[], false, tx)?;
        assert_eq!(roots.check(), None);
        std::fs::remove_dir_all(&root)?;
        std::fs::create_dir(&root)?;
        let said = roots.check().unwrap_or_default();
        assert!(said.contains("replaced"), "{said}");
        assert_eq!(roots.check(), None);
        assert_eq!(roots.pins[0].1.id, dir_id(&root));
        Ok(())
    }
}
