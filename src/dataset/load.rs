//! The first load, shared by every front end (so `kubesift bench` measures the path a user
//! waits on, not a cousin of it).
//!
//! Files are read while the walk still lists them, one pool task per file; as results come
//! back, what has loaded since the last batch is handed over as an [`Event::Partial`] when
//! the [`Pacing`] says one is due, so the table appears and fills while the rest loads.
//! Then the live set is built (kinds with CRDs, scopes, duplicates), the label index beside
//! it, and the whole table is handed over ([`Event::Loaded`], unlinked); with pacing (a UI)
//! as soon as the live set is ready, the index following ([`Event::Indexed`]); the graph
//! follows ([`Event::Linked`]). Objects are shared handles: partial batches, the live set
//! and the consumer's copy hold the same objects.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use rayon::prelude::*;
use rustc_hash::FxHashSet;

use super::{Dataset, Event, LiveSet};
use crate::graph::Graph;
use crate::index::LabelIndex;
use crate::kinds::KindRegistry;
use crate::model::load::{discover_streaming, FileLoad, LoadOptions};
use crate::model::{resolve_scope, Inventory, Object};

/// When partial batches are handed over while loading.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pacing {
    /// The first one when a file is read this long after the start.
    pub first_after: Duration,
    /// Later ones at most this often.
    pub every: Duration,
}

impl Default for Pacing {
    fn default() -> Pacing {
        Pacing {
            // The first file read shows at once.
            first_after: Duration::ZERO,
            every: Duration::from_millis(400),
        }
    }
}

/// When each step of the first load finished, measured from its start.
#[derive(Clone, Debug, Default)]
pub struct Timeline {
    /// The walk listed every file (reading started long before).
    pub discovered: Duration,
    /// The first file parsed (what the first partial batch shows).
    pub first_file: Duration,
    pub parsed: Duration,
    /// The live set (kinds with CRDs, scopes, duplicates) and the label index built.
    pub live: Duration,
    /// How long the label index took (beside the live set).
    pub index: Duration,
    /// The whole table handed over.
    pub loaded: Duration,
    /// The label index handed over (with the table, or after it with `pacing`).
    pub indexed: Duration,
    /// The graph built and handed over.
    pub linked: Duration,
    pub partial_batches: usize,
}

/// Loads `paths`, handing each step to `send` (which answers `false` when nobody listens
/// any more: the load stops). `pacing: None` sends no progress and no partial batches (a
/// consumer that only wants the whole table); `link: false` skips the graph. `load` reads
/// and parses one file the walk has just listed (`load_listed_file`, or the bench's timed
/// use of it). Returns the live set to follow the files with, unless the listener went
/// away.
pub fn first_load(
    paths: &[PathBuf],
    opts: &LoadOptions,
    pacing: Option<Pacing>,
    link: bool,
    load: &(dyn Fn(&Path) -> FileLoad + Sync),
    send: &(dyn Fn(Event) -> bool + Sync),
) -> Option<(LiveSet, Timeline)> {
    let started = Instant::now();
    let mut times = Timeline::default();
    let builtin = KindRegistry::builtin();
    let (found_tx, found_rx) = std::sync::mpsc::channel::<Vec<PathBuf>>();
    let (loaded_tx, loaded_rx) = std::sync::mpsc::channel::<FileLoad>();
    let found_total = AtomicUsize::new(0);
    let walked = std::thread::scope(|s| {
        // The walk hands files over as it finds them: reading starts at once, not after
        // the whole tree was listed (listing a big tree takes a while: BENCHMARKS.md).
        let walker = s.spawn(move || {
            let found = |batch: Vec<PathBuf>| {
                let _ = found_tx.send(batch);
            };
            let problems = discover_streaming(paths, opts, &found);
            (problems, started.elapsed())
        });
        // One pool task per file, queued as the walk finds it; every result comes back on
        // its own (no chunk waits for its slowest file, so a 10 MB file cannot hold back
        // the first rows or leave a core idle).
        let (builtin, found_total) = (&builtin, &found_total);
        s.spawn(move || {
            let loaded_tx = &loaded_tx;
            let mut seen: FxHashSet<PathBuf> = FxHashSet::default();
            rayon::in_place_scope(|pool| {
                for batch in found_rx {
                    for path in batch.into_iter().filter(|p| seen.insert(p.clone())) {
                        found_total.fetch_add(1, Ordering::Relaxed);
                        pool.spawn(move |_| {
                            let mut loaded = load(&path);
                            // Scopes of built-in kinds now, while each object has one owner
                            // (the live set resolves against the CRDs too, and would copy
                            // every shared object it changes).
                            for o in &mut loaded.objects {
                                let _ = resolve_scope(builtin, o);
                            }
                            let _ = loaded_tx.send(loaded);
                        });
                    }
                }
            });
        });
        let mut loads: Vec<FileLoad> = Vec::new();
        let mut next_batch = pacing.map(|p| started + p.first_after);
        let mut next_progress = started;
        // Loads already handed over.
        let mut sent = 0usize;
        // Whether the loads not yet handed over hold any object: a batch of files without
        // objects (kustomizations, values files) is not worth a frame, and must not push
        // the first rows back by a whole `pacing.every`.
        let mut pending_objects = false;
        let mut listening = true;
        for loaded in gathered(&loaded_rx) {
            pending_objects |= !loaded.objects.is_empty();
            loads.push(loaded);
            if !listening {
                continue;
            }
            let now = Instant::now();
            if times.first_file.is_zero() {
                times.first_file = started.elapsed();
            }
            if pacing.is_some() && now >= next_progress {
                // At most every 25 ms: a message per file kept waking the UI.
                listening = send(Event::Progress {
                    files_done: loads.len(),
                    files_total: found_total.load(Ordering::Relaxed),
                });
                next_progress = now + Duration::from_millis(25);
            }
            let Some((due, pacing)) = next_batch.zip(pacing) else {
                continue;
            };
            if now >= due && pending_objects {
                let more = partial_since(&loads[sent..], builtin);
                sent = loads.len();
                pending_objects = false;
                tracing::info!(
                    objects = more.objects.len(),
                    files = loads.len(),
                    elapsed_ms = started.elapsed().as_millis() as u64,
                    "partial batch"
                );
                listening = listening && send(Event::Partial(Box::new(more)));
                times.partial_batches += 1;
                next_batch = Some(Instant::now() + pacing.every);
            }
        }
        let (problems, walk_time) = walker.join().unwrap_or_default();
        listening.then_some((loads, problems, walk_time))
    });
    let (mut loads, walk_problems, walk_time) = walked?;
    times.discovered = walk_time;
    // Path order, as the live set shows them (and the index below is built in).
    loads.par_sort_unstable_by(|a, b| a.path.cmp(&b.path));
    times.parsed = started.elapsed();
    tracing::info!(
        files = loads.len(),
        elapsed_ms = times.parsed.as_millis() as u64,
        "parsed"
    );
    if tracing::enabled!(tracing::Level::DEBUG) {
        let mut yaml = crate::model::load::YamlStats::default();
        loads.iter().for_each(|l| yaml.add(&l.yaml));
        tracing::debug!("{}", yaml.summary());
    }
    // A UI (`pacing`) gets the whole table as soon as the live set is built, and the label
    // index after it (`Event::Indexed`), built then on every core: the table does not wait
    // for the index, as it does not wait for the graph, and the live set does not share
    // the cores with the index's workers (BENCHMARKS.md, "lead5", "table1m").
    // Otherwise (`get`, `tree`) both are needed first: the index of the objects in path
    // order is built beside the live set, which orders files by path too and only changes
    // scopes, not labels, so it is kept when the labels line up (always, unless two roots
    // name overlapping trees), else rebuilt.
    let live = if pacing.is_some() {
        let live = LiveSet::from_loads(paths, opts, loads, walk_problems);
        times.live = started.elapsed();
        let loaded = Dataset::unindexed(live.inventory().clone());
        times.loaded = started.elapsed();
        log_loaded(&live, &times);
        if !send(Event::Loaded(Box::new(loaded))) {
            return None;
        }
        let t = Instant::now();
        let index = LabelIndex::build(&live.inventory().objects);
        times.index = t.elapsed();
        if !send(Event::Indexed(Box::new(index))) {
            return None;
        }
        times.indexed = started.elapsed();
        live
    } else {
        let in_load_order: Vec<Object> = loads.iter().flat_map(|l| l.objects.clone()).collect();
        let (live, index) = std::thread::scope(|s| {
            let indexer = s.spawn(|| {
                let t = Instant::now();
                (LabelIndex::build(&in_load_order), t.elapsed())
            });
            let live = LiveSet::from_loads(paths, opts, loads, walk_problems);
            times.live = started.elapsed();
            let (index, index_time) = match indexer.join() {
                Ok(built) => built,
                Err(_) => (LabelIndex::build(&in_load_order), Duration::ZERO),
            };
            times.index = index_time;
            (live, index)
        });
        let objects = &live.inventory().objects;
        let same_labels = objects.len() == in_load_order.len()
            && objects
                .iter()
                .zip(&in_load_order)
                .all(|(a, b)| Object::ptr_eq(a, b) || a.labels() == b.labels());
        drop(in_load_order);
        let index = if same_labels {
            index
        } else {
            LabelIndex::build(objects)
        };
        let loaded = Dataset::unlinked_with(index, live.inventory().clone());
        times.loaded = started.elapsed();
        times.indexed = times.loaded;
        log_loaded(&live, &times);
        if !send(Event::Loaded(Box::new(loaded))) {
            return None;
        }
        live
    };
    if !link {
        return Some((live, times));
    }
    crate::alloc::purge_while_linking();
    let graph = Graph::build(live.inventory());
    crate::alloc::keep_freed_memory();
    times.linked = started.elapsed();
    tracing::info!(elapsed_ms = times.linked.as_millis() as u64, "linked");
    if !send(Event::Linked(Box::new(graph))) {
        return None;
    }
    Some((live, times))
}

fn log_loaded(live: &LiveSet, times: &Timeline) {
    tracing::info!(
        objects = live.inventory().objects.len(),
        files = live.inventory().files,
        live_ms = times.live.as_millis() as u64,
        elapsed_ms = times.loaded.as_millis() as u64,
        "loaded"
    );
}

/// How long the loop over parsed files waits, once woken, before it takes what came
/// meanwhile: a receiver blocked on the channel is woken by every send, and a wake per file
/// (a futex call on the parsing thread, a context switch that preempts it) was ≈ 3 % of the
/// load's CPU at 20,000 files (BENCHMARKS.md, "lead5"); in this pause sends wake nobody.
const GATHER_PAUSE: Duration = Duration::from_millis(2);

/// Every load sent on `rx` until every sender is gone, received in gulps: after each wake,
/// the loop sleeps [`GATHER_PAUSE`] and drains what arrived (at most that much later than
/// one by one).
fn gathered(rx: &std::sync::mpsc::Receiver<FileLoad>) -> impl Iterator<Item = FileLoad> + '_ {
    let mut ready: std::collections::VecDeque<FileLoad> = std::collections::VecDeque::new();
    std::iter::from_fn(move || {
        if let Some(load) = ready.pop_front() {
            return Some(load);
        }
        let first = rx.recv().ok()?;
        std::thread::sleep(GATHER_PAUSE);
        ready.extend(rx.try_iter());
        Some(first)
    })
}

/// What `loads` add to the table while loading goes on: their objects (scopes resolved
/// against the built-in kinds; the final load resolves them against the CRDs too),
/// problems, files and bytes. Objects are shared, not copied. (Walk problems come with the
/// whole table: the walk is still going on.)
fn partial_since(loads: &[FileLoad], kinds: &KindRegistry) -> Inventory {
    let mut more = Inventory::of(Vec::new(), kinds.clone());
    for load in loads {
        more.files += 1;
        more.bytes += load.bytes;
        more.problems.extend(load.problems.iter().cloned());
        more.objects.extend(load.objects.iter().cloned());
    }
    more
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;
    use crate::index::LabelIndex;
    use crate::model::load::load_file;
    use crate::model::ObjectId;

    /// 70 files: Pods owned by a ReplicaSet, a Service selecting them, a CRD whose namespaced custom
    /// resource has no namespace (its scope is only known once the CRD is), a broken file.
    fn write_folder(dir: &Path) {
        for i in 0..66 {
            let text = format!(
                "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata:\n  name: rs{i}\n  namespace: ns{n}\n  uid: u{i}\n  labels:\n    app: a{i}\n---\n\
                 apiVersion: v1\nkind: Pod\nmetadata:\n  name: p{i}\n  namespace: ns{n}\n  labels:\n    app: a{i}\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: ReplicaSet\n    name: rs{i}\n    uid: u{i}\n---\n\
                 apiVersion: v1\nkind: Service\nmetadata:\n  name: s{i}\n  namespace: ns{n}\nspec:\n  selector:\n    app: a{i}\n",
                n = i % 3
            );
            std::fs::write(dir.join(format!("f{i:03}.yaml")), text).expect("write");
        }
        std::fs::write(
            dir.join("g-crd.yaml"),
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\nspec:\n  group: example.com\n  scope: Namespaced\n  names:\n    kind: Widget\n    plural: widgets\n  versions:\n  - name: v1\n",
        )
        .expect("write");
        std::fs::write(
            dir.join("g-widget.yaml"),
            "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n",
        )
        .expect("write");
        std::fs::write(dir.join("h-broken.yaml"), "kind: [\n").expect("write");
        std::fs::write(dir.join("h-orphan.yaml"), "apiVersion: v1\nkind: Pod\nmetadata:\n  name: lost\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: ReplicaSet\n    name: gone\n    uid: nope\n").expect("write");
    }

    /// The partial batches among `sent`, in order.
    fn partials_of(sent: &[Event]) -> Vec<&Inventory> {
        sent.iter()
            .filter_map(|a| match a {
                Event::Partial(p) => Some(&**p),
                _ => None,
            })
            .collect()
    }

    /// Runs [`first_load`] on `paths` with `pacing`, keeping every action it sends.
    fn load_collecting(paths: &[PathBuf], pacing: Pacing) -> (Vec<Event>, LiveSet, Timeline) {
        let opts = LoadOptions::default();
        let sent = Mutex::new(Vec::new());
        let send = |a: Event| {
            sent.lock().expect("lock").push(a);
            true
        };
        let (live, times) = first_load(
            paths,
            &opts,
            Some(pacing),
            true,
            &|f| load_file(f, &opts),
            &send,
        )
        .expect("nobody hung up");
        (sent.into_inner().expect("lock"), live, times)
    }

    #[test]
    fn hands_over_partial_batches_then_the_table_then_its_graph() {
        let dir = tempfile::tempdir().expect("tempdir");
        write_folder(dir.path());
        let paths = vec![dir.path().to_path_buf()];
        let opts = LoadOptions::default();
        let at_once = Pacing {
            first_after: Duration::ZERO,
            every: Duration::ZERO,
        };
        let (sent, live, times) = load_collecting(&paths, at_once);
        // Batches due at once: one after every file read.
        assert!(times.partial_batches >= 1, "{times:?}");
        assert!(times.discovered <= times.parsed && times.parsed <= times.live);
        assert!(times.live <= times.loaded && times.loaded <= times.linked);

        // What a fresh load of the same folder gives: the reference.
        let fresh = Dataset::new(LiveSet::load(&paths, &opts).inventory().clone());
        let ids = |inv: &Inventory| inv.objects.iter().map(|o| o.id.clone()).collect::<Vec<_>>();

        let partials = partials_of(&sent);
        assert_eq!(partials.len(), times.partial_batches);
        let files: usize = partials.iter().map(|p| p.files).sum();
        assert!(0 < files && files <= 70, "{files}");
        // Every object of the files shown so far, each once, in the order the files were
        // read (the walk's order); the whole table comes in path order. (Namespaces left
        // out: partial batches know the built-in kinds only, not the CRD's Widget.)
        let names = |ids: Vec<ObjectId>| -> Vec<(String, String)> {
            ids.into_iter()
                .map(|id| (id.kind.to_string(), id.name.to_string()))
                .collect()
        };
        let shown = names(partials.iter().flat_map(|p| ids(p)).collect());
        let unique: std::collections::HashSet<&(String, String)> = shown.iter().collect();
        assert_eq!(unique.len(), shown.len());
        let all: std::collections::HashSet<(String, String)> =
            names(ids(&fresh.inventory)).into_iter().collect();
        assert!(shown.iter().all(|id| all.contains(id)), "{shown:?}");

        // The table, then its label index (a UI does not wait for it), then the graph.
        let n = sent.len();
        let Event::Loaded(table) = &sent[n - 3] else {
            panic!("the table comes third to last: {:?}", sent[n - 3]);
        };
        assert!(table.linking && table.graph.is_empty());
        assert!(table.indexing && table.index.is_empty());
        assert_eq!(ids(&table.inventory), ids(&fresh.inventory));
        assert_eq!(table.inventory.problems, fresh.inventory.problems);
        let Event::Indexed(index) = &sent[n - 2] else {
            panic!("the index comes second to last: {:?}", sent[n - 2]);
        };
        assert_eq!(**index, LabelIndex::build(&fresh.inventory.objects));
        assert!(times.loaded <= times.indexed && times.indexed <= times.linked);
        let widget = table
            .inventory
            .objects
            .iter()
            .find(|o| o.kind() == "Widget");
        assert_eq!(
            widget.map(|o| (o.namespaced, o.namespace())),
            Some((true, "default"))
        );
        let Event::Linked(graph) = &sent[n - 1] else {
            panic!("the graph comes last: {:?}", sent[n - 1]);
        };
        assert_eq!(**graph, fresh.graph);
        assert!(
            !graph.findings().is_empty(),
            "the dangling owner is a finding"
        );
        assert_eq!(ids(live.inventory()), ids(&fresh.inventory));
    }

    /// Without pacing (`get -w`: no UI showing the table while its index is built) the
    /// table comes indexed, and no `Indexed` follows.
    #[test]
    fn without_pacing_the_table_comes_indexed() {
        let dir = tempfile::tempdir().expect("tempdir");
        write_folder(dir.path());
        let paths = vec![dir.path().to_path_buf()];
        let opts = LoadOptions::default();
        let sent = Mutex::new(Vec::new());
        let send = |a: Event| {
            sent.lock().expect("lock").push(a);
            true
        };
        first_load(&paths, &opts, None, false, &|f| load_file(f, &opts), &send)
            .expect("nobody hung up");
        let sent = sent.into_inner().expect("lock");
        assert_eq!(sent.len(), 1, "{sent:?}");
        let Event::Loaded(table) = &sent[0] else {
            panic!("only the table: {:?}", sent[0]);
        };
        assert!(!table.indexing);
        assert_eq!(table.index, LabelIndex::build(&table.inventory.objects));
    }

    /// Files without objects (kustomizations) read first do not use up the first batch:
    /// the first rows come with the first file that has objects, not a `pacing.every` later.
    #[test]
    fn the_first_batch_waits_for_objects() {
        let dir = tempfile::tempdir().expect("tempdir");
        for i in 0..12 {
            let text = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [x.yaml]\n";
            std::fs::write(dir.path().join(format!("a{i:02}-kustomization.yaml")), text)
                .expect("write");
        }
        std::fs::write(
            dir.path().join("b.yaml"),
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n",
        )
        .expect("write");
        let paths = vec![dir.path().to_path_buf()];
        let once = Pacing {
            first_after: Duration::ZERO,
            every: Duration::from_secs(3600),
        };
        let (sent, _, times) = load_collecting(&paths, once);
        let partials = partials_of(&sent);
        assert_eq!(partials.len(), 1, "{times:?}");
        assert_eq!(times.partial_batches, 1);
        let names: Vec<&str> = partials[0].objects.iter().map(|o| o.name()).collect();
        assert_eq!(names, ["cm"]);
    }

    /// Roots named out of path order are loaded in the order given but shown in path order:
    /// the index built beside the live set does not line up and is rebuilt.
    #[test]
    fn roots_out_of_path_order_get_an_index_of_the_shown_order() {
        let dir = tempfile::tempdir().expect("tempdir");
        for (sub, app) in [("a", "first"), ("b", "second")] {
            std::fs::create_dir(dir.path().join(sub)).expect("mkdir");
            let text = format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {sub}\n  labels:\n    app: {app}\n");
            std::fs::write(dir.path().join(sub).join("cm.yaml"), text).expect("write");
        }
        let paths = vec![dir.path().join("b"), dir.path().join("a")];
        let (sent, _, _) = load_collecting(&paths, Pacing::default());
        let table = sent.iter().find_map(|a| match a {
            Event::Loaded(t) => Some(t),
            _ => None,
        });
        let table = table.expect("the table was handed over");
        let names: Vec<&str> = table.inventory.objects.iter().map(|o| o.name()).collect();
        assert_eq!(names, ["a", "b"]);
        let index = sent.iter().find_map(|a| match a {
            Event::Indexed(i) => Some(i),
            _ => None,
        });
        let index = index.expect("the index followed the table");
        assert_eq!(**index, LabelIndex::build(&table.inventory.objects));
    }
}
