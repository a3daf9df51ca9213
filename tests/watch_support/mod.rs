//! Shared helpers for the watch tests: manifests, snapshots, a watcher harness.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use kubesift::model::load::{load_paths, LoadOptions};
use kubesift::model::Inventory;
use kubesift::model::ObjectId;
use kubesift::value::Raw;
use kubesift::watch::{Delta, DeltaKind, LiveSet, Pending, WatchEvent, Watcher};

/// A ConfigMap document.
pub fn cm(name: &str, value: &str) -> String {
    format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: ns\ndata:\n  k: \"{value}\"\n"
    )
}

/// Documents joined with `---`.
pub fn docs(parts: &[String]) -> String {
    parts.join("---\n")
}

pub fn write(path: &Path, text: &str) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("create parent");
    }
    std::fs::write(path, text).expect("write");
}

/// Effective definition (the first) of each identity.
pub fn state(inv: &Inventory) -> BTreeMap<ObjectId, Raw> {
    let mut out = BTreeMap::new();
    for o in &inv.objects {
        out.entry(o.id.clone()).or_insert_with(|| o.raw.clone());
    }
    out
}

/// What a fresh load of `root` shows.
pub fn fresh(root: &Path) -> BTreeMap<ObjectId, Raw> {
    state(&load_paths(&[root.to_path_buf()], &LoadOptions::default()))
}

/// `(kind, name)` of each delta, in order.
pub fn summary(deltas: &[Delta]) -> Vec<(DeltaKind, String)> {
    deltas
        .iter()
        .map(|d| (d.kind, d.id.name.to_string()))
        .collect()
}

/// Applies deltas to a state, asserting each is consistent with it (an ADDED identity was
/// absent, a MODIFIED or DELETED one present).
pub fn replay(state: &mut BTreeMap<ObjectId, Raw>, deltas: &[Delta]) {
    for d in deltas {
        let present = state.contains_key(&d.id);
        match (d.kind, &d.object) {
            (DeltaKind::Added, Some(o)) => {
                assert!(!present, "ADDED but present: {}", d.id);
                state.insert(d.id.clone(), o.raw.clone());
            }
            (DeltaKind::Modified, Some(o)) => {
                assert!(present, "MODIFIED but absent: {}", d.id);
                state.insert(d.id.clone(), o.raw.clone());
            }
            (DeltaKind::Deleted, None) => {
                assert!(present, "DELETED but absent: {}", d.id);
                state.remove(&d.id);
            }
            (kind, object) => panic!(
                "inconsistent delta {kind:?} with object {}",
                object.is_some()
            ),
        }
    }
}

/// A watcher feeding a live set, driven by the test thread.
pub struct Harness {
    pub root: PathBuf,
    pub live: LiveSet,
    /// Every delta applied since the start.
    pub log: Vec<Delta>,
    pub errors: Vec<String>,
    rx: Receiver<WatchEvent>,
    _watcher: Watcher,
}

impl Harness {
    pub fn start(root: &Path, poll: bool) -> Harness {
        let (tx, rx) = mpsc::channel();
        let roots = [root.to_path_buf()];
        let watcher = Watcher::start(&roots, poll, tx).expect("watcher starts");
        let live = LiveSet::load(&roots, &LoadOptions::default());
        Harness {
            root: root.to_path_buf(),
            live,
            log: Vec::new(),
            errors: Vec::new(),
            rx,
            _watcher: watcher,
        }
    }

    /// Applies batches until `done` holds or `limit` passes; returns whether it held.
    pub fn pump_until(&mut self, limit: Duration, done: impl Fn(&Harness) -> bool) -> bool {
        let deadline = Instant::now() + limit;
        while !done(self) {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            self.pump_once(left.min(Duration::from_millis(50)));
        }
        true
    }

    /// Applies batches for `quiet` (to see that nothing more arrives).
    pub fn settle(&mut self, quiet: Duration) {
        let deadline = Instant::now() + quiet;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return;
            }
            self.pump_once(left);
        }
    }

    fn pump_once(&mut self, wait: Duration) {
        let Ok(first) = self.rx.recv_timeout(wait) else {
            return;
        };
        let mut pending = Pending::default();
        pending.add(first);
        pending.extend(self.rx.try_iter());
        self.errors.append(&mut pending.errors);
        let deltas = pending.apply(&mut self.live);
        self.log.extend(deltas);
    }

    /// Whether the live snapshot equals a fresh load of the root.
    pub fn matches_fresh(&self) -> bool {
        state(self.live.inventory()) == fresh(&self.root)
    }

    pub fn has_name(&self, name: &str) -> bool {
        self.live
            .inventory()
            .objects
            .iter()
            .any(|o| &*o.id.name == name)
    }
}
