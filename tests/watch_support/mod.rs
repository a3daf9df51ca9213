//! Shared helpers for the watch tests: manifests, snapshots, a watcher harness.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use kubesift::dataset::{follow, ChangeData, Dataset, Delta, DeltaKind, Event, Follow};
use kubesift::model::load::{load_paths, LoadOptions};
use kubesift::model::Inventory;
use kubesift::model::ObjectId;
use kubesift::value::Raw;

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

/// The data layer following a root (file or directory) on its own thread, as every front
/// end runs it; the test thread keeps a consumer's copy of the dataset, brought up to date
/// by each change exactly as the UI does (replaced, or patched in place).
pub struct Harness {
    pub root: PathBuf,
    pub data: Dataset,
    /// Every delta applied since the first load.
    pub log: Vec<Delta>,
    /// Notices (watching problems).
    pub errors: Vec<String>,
    rx: Receiver<Event>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Harness {
    /// Starts following `root` and waits for the first load (table and graph).
    pub fn start(root: &Path, poll: bool) -> Harness {
        let (tx, rx) = mpsc::channel();
        let stop = Arc::new(AtomicBool::new(false));
        let config = Follow {
            paths: vec![root.to_path_buf()],
            opts: LoadOptions::default(),
            poll,
            pacing: None,
            link: true,
            watch: true,
            render: Default::default(),
        };
        let thread = {
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                let tx = Mutex::new(tx);
                let send = |e: Event| tx.lock().map(|tx| tx.send(e).is_ok()).unwrap_or(false);
                if let Err(e) = follow(&config, &send, &stop) {
                    send(Event::Notice(format!("follow failed: {e}")));
                }
            })
        };
        let mut h = Harness {
            root: root.to_path_buf(),
            data: Dataset::default(),
            log: Vec::new(),
            errors: Vec::new(),
            rx,
            stop,
            thread: Some(thread),
        };
        let deadline = Instant::now() + Duration::from_secs(30);
        let mut linked = false;
        while !linked {
            let left = deadline.saturating_duration_since(Instant::now());
            match h.rx.recv_timeout(left).expect("the first load arrives") {
                Event::Loaded(d) => h.data = *d,
                Event::Linked(g) => {
                    h.data.graph = *g;
                    h.data.linking = false;
                    linked = true;
                }
                other => h.apply(other),
            }
        }
        h
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
        self.apply(first);
        while let Ok(more) = self.rx.try_recv() {
            self.apply(more);
        }
    }

    /// What a consumer does with an event after the first load.
    fn apply(&mut self, event: Event) {
        match event {
            Event::Changed(change) => {
                match change.data {
                    ChangeData::Full(d) => self.data = *d,
                    ChangeData::Patch(p) => {
                        self.data.apply_patch(p).expect("the patch fits the copy");
                    }
                }
                self.log.extend(change.deltas);
            }
            Event::Notice(msg) => self.errors.push(msg),
            other => panic!("unexpected event after the first load: {other:?}"),
        }
    }

    /// Whether the followed state equals a fresh load of the root.
    pub fn matches_fresh(&self) -> bool {
        state(&self.data.inventory) == fresh(&self.root)
    }

    /// Whether some file fails to load and shows stale objects.
    pub fn has_stale(&self) -> bool {
        !self.data.stale.is_empty()
    }

    pub fn has_name(&self, name: &str) -> bool {
        self.data
            .inventory
            .objects
            .iter()
            .any(|o| &*o.id.name == name)
    }
}

impl Drop for Harness {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
