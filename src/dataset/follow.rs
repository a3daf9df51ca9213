//! Following the files after the first load: watcher batches → re-reads in the
//! [`LiveSet`] → one [`Event::Changed`] per applied batch. The one loop every front end
//! uses (the UI's loader thread, `get -w`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use super::change::Change;
use super::delta::Delta;
use super::live::LiveSet;
use super::load::{first_load, Pacing};
use super::Event;
use crate::model::load::{is_stdin, load_file, LoadOptions};
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
        }
    }
}

/// Loads and follows on a thread of its own, sending every [`Event`] to `send` until it
/// answers `false` (the consumer went away). A watcher that cannot start is a
/// [`Event::Notice`]; the loaded data stays.
pub fn spawn(config: Follow, send: impl Fn(Event) -> bool + Send + Sync + 'static) {
    std::thread::spawn(move || {
        let never = AtomicBool::new(false);
        if let Err(e) = follow(&config, &send, &never) {
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
    let load = |f: &Path| load_file(f, opts);
    let Some((mut live, _)) =
        first_load(&config.paths, opts, config.pacing, config.link, &load, send)
    else {
        return Ok(());
    };
    if !config.watch {
        return Ok(());
    }
    // Standard input was read once; only the other roots can change.
    let (stdin, watched): (Vec<&PathBuf>, Vec<&PathBuf>) =
        config.paths.iter().partition(|p| is_stdin(p));
    if !stdin.is_empty() && !send(Event::Notice(STDIN_NOTICE.to_owned())) {
        return Ok(());
    }
    if watched.is_empty() {
        return Ok(());
    }
    let watched: Vec<PathBuf> = watched.into_iter().cloned().collect();
    let (tx, rx) = mpsc::channel();
    let _watcher = Watcher::start(&watched, config.poll, tx.clone())?;
    // What changed between reading a file and watching it.
    let _ = tx.send(WatchEvent::Rescan);
    drop(tx);
    follow_live(&mut live, &rx, send, stop)
}

/// Applies watched batches to `live`, sending each result, until `stop` is set or `send`
/// answers `false` (`Ok`), or the watcher goes away (an error).
fn follow_live(
    live: &mut LiveSet,
    events: &Receiver<WatchEvent>,
    send: &(dyn Fn(Event) -> bool + Sync),
    stop: &AtomicBool,
) -> Result<(), WatchError> {
    while !stop.load(Ordering::SeqCst) {
        let first = match events.recv_timeout(STOP_CHECK) {
            Ok(event) => event,
            Err(RecvTimeoutError::Timeout) => continue,
            Err(RecvTimeoutError::Disconnected) => return Err(WatchError::Stopped),
        };
        let mut pending = Pending::default();
        pending.add(first);
        pending.extend(events.try_iter());
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
        let deltas = pending.apply(live);
        let count = deltas.len();
        let at = chrono::Utc::now().timestamp();
        let Some(change) = Change::of(live, deltas, before, at) else {
            continue;
        };
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

    /// Applies the collected work to `live` and returns the deltas.
    fn apply(self, live: &mut LiveSet) -> Vec<Delta> {
        if self.rescan {
            live.rescan()
        } else {
            live.apply(&self.paths.into_iter().collect::<Vec<_>>())
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
