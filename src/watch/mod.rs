//! Live watching: file-system events → debounced, filtered path batches ([`Watcher`]) →
//! per-file re-reads and per-identity deltas ([`LiveSet`]).
//!
//! [`follow`] ties both together for `kubesift get -w`; the UI drives a [`Watcher`] and a
//! [`LiveSet`] from its event loop with [`Pending`].

pub mod delta;
pub mod filter;
pub mod live;
pub mod poll;
mod snapshot;
pub mod watcher;

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

pub use delta::{Delta, DeltaKind};
pub use live::{FilePatch, LiveSet};
pub use watcher::{WatchEvent, Watcher};

use crate::model::load::LoadOptions;
use crate::model::Inventory;

/// How often [`follow`] checks its stop flag while no change arrives.
const STOP_CHECK: Duration = Duration::from_millis(100);

/// Watch events collapsed into one unit of work: every queued event is drained into one
/// `Pending` and applied once (a rescan supersedes the path list).
#[derive(Debug, Default)]
pub struct Pending {
    paths: BTreeSet<PathBuf>,
    rescan: bool,
    /// Watching problems met, in arrival order, for the caller to show.
    pub errors: Vec<String>,
}

impl Pending {
    /// Adds one event.
    pub fn add(&mut self, event: WatchEvent) {
        match event {
            WatchEvent::Changed(paths) => self.paths.extend(paths),
            WatchEvent::Rescan => self.rescan = true,
            WatchEvent::Error(e) => self.errors.push(e),
        }
    }

    /// Whether there is anything to re-read.
    pub fn has_work(&self) -> bool {
        self.rescan || !self.paths.is_empty()
    }

    /// Applies the collected work to `live` and returns the deltas.
    pub fn apply(self, live: &mut LiveSet) -> Vec<Delta> {
        if self.rescan {
            live.rescan()
        } else {
            live.apply(&self.paths.into_iter().collect::<Vec<_>>())
        }
    }
}

/// Watches `paths` until `stop` is set, calling `on_batch` with the deltas of each applied
/// batch and the snapshot after it. The first call carries the initial state, every object
/// as `Added` (as `kubectl get -w --output-watch-events` prints the initial list).
///
/// Watching problems (the inotify limit, I/O errors) are printed to stderr as warnings and
/// watching goes on; the result is an error only when watching cannot start or stops.
pub fn follow(
    paths: &[PathBuf],
    opts: &LoadOptions,
    poll: bool,
    stop: &AtomicBool,
    on_batch: &mut dyn FnMut(&[Delta], &Inventory),
) -> anyhow::Result<()> {
    let (tx, rx) = mpsc::channel();
    // Watch before loading: a change during the initial load is then re-read, not missed.
    let _watcher = Watcher::start(paths, poll, tx)?;
    let mut live = LiveSet::load(paths, opts);
    on_batch(
        &delta::all_added(&live.inventory().objects),
        live.inventory(),
    );
    while !stop.load(Ordering::SeqCst) {
        let first = match rx.recv_timeout(STOP_CHECK) {
            Ok(event) => event,
            Err(RecvTimeoutError::Timeout) => continue,
            Err(RecvTimeoutError::Disconnected) => anyhow::bail!("the file watcher stopped"),
        };
        let mut pending = Pending::default();
        pending.add(first);
        pending.extend(rx.try_iter());
        for e in std::mem::take(&mut pending.errors) {
            eprintln!("warning: {e}");
        }
        if pending.has_work() {
            let deltas = pending.apply(&mut live);
            on_batch(&deltas, live.inventory());
        }
    }
    Ok(())
}

impl Extend<WatchEvent> for Pending {
    fn extend<I: IntoIterator<Item = WatchEvent>>(&mut self, iter: I) {
        for e in iter {
            self.add(e);
        }
    }
}
