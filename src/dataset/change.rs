//! One applied batch of file changes ([`Change`]) and how a consumer's copy of the dataset
//! follows it: rebuilt ([`ChangeData::Full`]) or patched in place ([`Patch`]: the
//! inventory's objects spliced, the label index and the graph patched — see
//! `LabelIndex::splice` and `Graph::patch` — nothing rebuilt from scratch).

use std::ops::Range;
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use roaring::RoaringBitmap;

use super::delta::{Delta, DeltaKind};
use super::live::LiveSet;
use super::{Dataset, FilePatch};
use crate::diagnostic::Diagnostic;
use crate::graph::{PatchOutcome, Replaced};
use crate::index::{self, Shift};
use crate::model::{Inventory, Object, ObjectId};

/// One applied batch of file changes.
#[derive(Clone, Debug, Default)]
pub struct Change {
    /// How a copy of the dataset before the batch becomes the dataset after it.
    pub data: ChangeData,
    /// Per-identity deltas of the batch, sorted by identity.
    pub deltas: Vec<Delta>,
    /// When the batch was applied (Unix seconds).
    pub at: i64,
    /// Nothing visible changed (no delta, same problem count): the data is brought up to
    /// date without flashing rows or touching the header.
    pub quiet: bool,
}

impl Change {
    /// Identities the batch added or modified.
    pub fn changed(&self) -> impl Iterator<Item = &ObjectId> {
        self.deltas
            .iter()
            .filter(|d| d.kind != DeltaKind::Deleted)
            .map(|d| &d.id)
    }

    /// How many identities the batch deleted.
    pub fn deleted(&self) -> usize {
        self.deltas
            .iter()
            .filter(|d| d.kind == DeltaKind::Deleted)
            .count()
    }

    /// The change `live` made when it produced `deltas`: a patch of the previous snapshot
    /// when the live set patched it, else a whole new dataset. `None` when nothing a
    /// consumer could see changed (no delta, no splice, same problems and stale files).
    /// `before` is [`Change::signature`] of `live` before the batch.
    pub fn of(
        live: &mut LiveSet,
        deltas: Vec<Delta>,
        before: (usize, usize),
        at: i64,
    ) -> Option<Change> {
        let quiet = deltas.is_empty() && Change::signature(live) == before;
        let stale: RoaringBitmap = (0..live.inventory().objects.len())
            .filter(|&i| live.is_stale(i))
            .filter_map(|i| u32::try_from(i).ok())
            .collect();
        // A consumer's copy follows every batch (even a quiet one: positions and lines may
        // have moved), patched in place when the live set was, else replaced.
        let data = match live.take_patch() {
            Some(splices) if quiet && splices.is_empty() => return None,
            Some(splices) => ChangeData::Patch(Patch::new(splices, live.inventory(), stale)),
            None => {
                let mut dataset = Dataset::new(live.inventory().clone());
                dataset.stale = stale;
                ChangeData::Full(Box::new(dataset))
            }
        };
        Some(Change {
            data,
            deltas,
            at,
            quiet,
        })
    }

    /// What tells a quiet batch from a visible one besides its deltas: the number of
    /// problems and of files showing stale objects.
    pub fn signature(live: &LiveSet) -> (usize, usize) {
        (live.inventory().problems.len(), live.stale_files().len())
    }
}

/// How a change brings the data up to date.
#[derive(Clone, Debug)]
pub enum ChangeData {
    /// A whole new dataset, indexed and linked (the live set rebuilt its snapshot).
    Full(Box<Dataset>),
    /// Splices of the current snapshot: applied in place, index and graph patched.
    Patch(Patch),
}

impl Default for ChangeData {
    fn default() -> Self {
        ChangeData::Full(Box::default())
    }
}

/// A watched batch as splices of the previous snapshot's objects.
#[derive(Clone, Debug, Default)]
pub struct Patch {
    /// In order; each in positions after the previous ones (`LiveSet::take_patch`).
    pub splices: Vec<FilePatch>,
    /// Everything else of the new snapshot, which is small.
    pub problems: Vec<Diagnostic>,
    pub stale: RoaringBitmap,
    pub files: usize,
    pub bytes: u64,
}

impl Patch {
    /// The patch bringing a copy of the previous snapshot to `inv`, given the splices the
    /// live set made (`LiveSet::take_patch`) and the stale objects of `inv`.
    pub fn new(splices: Vec<FilePatch>, inv: &Inventory, stale: RoaringBitmap) -> Patch {
        Patch {
            splices,
            problems: inv.problems.clone(),
            stale,
            files: inv.files,
            bytes: inv.bytes,
        }
    }
}

/// What applying a patch cost (for `kubesift bench` and the log).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PatchReport {
    /// Splicing the inventory's objects.
    pub splice: Duration,
    /// `LabelIndex::splice`, run beside `Graph::patch` when positions move (the two overlap).
    /// For one run, whose shift a helper of low priority shares with the patching thread:
    /// the labels taken out and put in plus the helper's time until no chunk was left
    /// (the wall time of the shift beside the graph, not its CPU time).
    pub index: Duration,
    /// `Graph::patch`, and what it did.
    pub graph: Duration,
    pub outcome: PatchOutcome,
}

/// One replaced run, in positions of the previous and of the new inventory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Run {
    old_at: usize,
    removed: usize,
    new_at: usize,
    added: usize,
}

impl Run {
    /// The run's new position (as a label index id) and the objects it put there.
    fn added_in(self, inventory: &Inventory) -> (u32, &[Object]) {
        let at = u32::try_from(self.new_at).unwrap_or(u32::MAX);
        (
            at,
            &inventory.objects[self.new_at..self.new_at + self.added],
        )
    }
}

/// Where the previous snapshot's objects went.
#[derive(Clone, Debug, Default)]
pub struct Moves {
    runs: Vec<Run>,
}

impl Moves {
    /// New position of the object at `old` in the previous inventory; `None` when it was
    /// replaced (its file was re-read or removed).
    pub fn new_position(&self, old: u32) -> Option<u32> {
        let old = old as usize;
        let mut shift: isize = 0;
        for r in &self.runs {
            if old < r.old_at {
                break;
            }
            if old < r.old_at + r.removed {
                return None;
            }
            shift += r.added as isize - r.removed as isize;
        }
        u32::try_from(old as isize + shift).ok()
    }

    /// Positions of the objects the batch put in, in the new inventory.
    pub fn added(&self) -> impl Iterator<Item = Range<usize>> + '_ {
        self.runs.iter().map(|r| r.new_at..r.new_at + r.added)
    }
}

impl Dataset {
    /// Applies `patch` to this data, which must be the snapshot the splices were made
    /// against. Returns where the objects went and what each step cost; `None`
    /// (data unchanged) when the splices do not fit, e.g. out of order or out of range.
    pub fn apply_patch(&mut self, patch: Patch) -> Option<(Moves, PatchReport)> {
        let runs = runs(self.inventory.objects.len(), &patch.splices)?;
        let mut removed: Vec<Vec<Object>> = Vec::with_capacity(runs.len());
        let t = Instant::now();
        for s in patch.splices {
            let end = s.at + s.removed;
            let gone: Vec<Object> = self
                .inventory
                .objects
                .splice(s.at..end, s.objects)
                .collect();
            removed.push(gone);
        }
        let splice = t.elapsed();
        let replaced: Vec<Replaced<'_>> = runs
            .iter()
            .zip(&removed)
            .map(|(r, gone)| Replaced {
                at: r.old_at,
                removed: gone,
                added: r.added,
            })
            .collect();
        // The label index and the graph are independent. When no position moves the
        // splice is short and stays on this thread. When positions move (every bitmap
        // above an edit shifts), the shift is done beside the graph patch, by a helper of
        // low priority and then this thread (the graph patch has the cores first; this
        // thread takes what the helper left once the graph is patched). Each run's objects
        // stand at its new position in the spliced inventory (runs ascend).
        let (inventory, label_index) = (&self.inventory, &mut self.index);
        let old_graph = std::mem::take(&mut self.graph);
        let index: Duration;
        let patch_graph = || {
            let t = Instant::now();
            let patched = old_graph.patch(inventory, &replaced);
            (patched, t.elapsed())
        };
        let ((graph, outcome), graph_time) = if runs.iter().all(|r| r.removed == r.added) {
            let t = Instant::now();
            for (run, gone) in runs.iter().zip(&removed) {
                let (at, added) = run.added_in(inventory);
                label_index.splice(at, gone, added);
            }
            index = t.elapsed();
            patch_graph()
        } else {
            let spliced: Vec<index::Run<'_>> = runs
                .iter()
                .zip(&removed)
                .map(|(run, gone)| index::Run {
                    at: u32::try_from(run.old_at).unwrap_or(u32::MAX),
                    removed: gone,
                    added: run.added_in(inventory).1,
                })
                .collect();
            // The helper takes the removed labels out and starts the shift, which this
            // thread joins once the graph is patched (starting it itself if the helper has
            // not begun yet: a loaded machine cannot starve it); the added labels go in at
            // the end.
            let index_once = Mutex::new(Some(label_index));
            let started: OnceLock<Option<Shift<'_>>> = OnceLock::new();
            let begin = || {
                started.get_or_init(|| {
                    let index = index_once
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .take();
                    index.and_then(|index| index.begin_runs(&spliced))
                })
            };
            let mut helper = Duration::ZERO;
            let t = Instant::now();
            let patched = std::thread::scope(|s| {
                s.spawn(|| {
                    let t = Instant::now();
                    lower_priority();
                    if let Some(shift) = begin() {
                        shift.work();
                    }
                    helper = t.elapsed();
                });
                let patched = patch_graph();
                if let Some(shift) = begin() {
                    shift.work();
                }
                patched
            });
            let during = t.elapsed();
            let moved = started.into_inner().is_some_and(|s| s.is_some());
            let t = Instant::now();
            if moved {
                self.index.finish_runs(&spliced);
            }
            // The labels put in, and the helper's share of the splice.
            index = t.elapsed() + helper;
            (patched.0, during)
        };
        self.graph = graph;
        let graph = graph_time;
        self.inventory.problems = patch.problems;
        self.inventory.files = patch.files;
        self.inventory.bytes = patch.bytes;
        self.stale = patch.stale;
        let report = PatchReport {
            splice,
            index,
            graph,
            outcome,
        };
        Some((Moves { runs }, report))
    }
}

/// Lowers the calling thread's priority, so that it takes what the cores leave. Linux
/// only: there a thread has a nice value of its own (elsewhere the call would renice the
/// whole process, so nothing is done).
fn lower_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: `gettid` has no preconditions; `setpriority` only reads its arguments and
    // with `PRIO_PROCESS` and a thread id sets that thread's nice value (failure is harmless).
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t, 19);
    }
}

/// The splices as runs in old and new positions; `None` unless they apply, in order, to
/// `len` objects and replace ascending, disjoint runs of the original.
fn runs(len: usize, splices: &[FilePatch]) -> Option<Vec<Run>> {
    let mut out: Vec<Run> = Vec::with_capacity(splices.len());
    let mut current = len;
    let mut shift: isize = 0;
    for s in splices {
        if s.at.checked_add(s.removed)? > current {
            return None;
        }
        if let Some(prev) = out.last() {
            if s.at < prev.new_at + prev.added {
                return None;
            }
        }
        let old_at = usize::try_from(s.at as isize - shift).ok()?;
        out.push(Run {
            old_at,
            removed: s.removed,
            new_at: s.at,
            added: s.objects.len(),
        });
        shift += s.objects.len() as isize - s.removed as isize;
        current = current - s.removed + s.objects.len();
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn splice(at: usize, removed: usize, added: usize) -> FilePatch {
        FilePatch {
            at,
            removed,
            objects: vec![
                crate::model::load::parse_text(
                    &std::sync::Arc::from(std::path::Path::new("x.yaml")),
                    "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n",
                )
                .objects[0]
                    .clone();
                added
            ],
        }
    }

    #[test]
    fn runs_map_positions_across_splices() {
        // 10 objects: 2..4 replaced by 3, then (new positions) 8..9 removed.
        let s = [splice(2, 2, 3), splice(8, 1, 0)];
        let runs = runs(10, &s).expect("fits");
        let moves = Moves { runs };
        let got: Vec<Option<u32>> = (0..10).map(|i| moves.new_position(i)).collect();
        let want = [
            Some(0),
            Some(1),
            None,
            None,
            Some(5),
            Some(6),
            Some(7),
            None,
            Some(8),
            Some(9),
        ];
        assert_eq!(got, want);
        assert_eq!(moves.added().collect::<Vec<_>>(), vec![2..5, 8..8]);
        // Out of order, or past the end: refused.
        assert!(super::runs(10, &[splice(5, 1, 1), splice(2, 1, 1)]).is_none());
        assert!(super::runs(3, &[splice(2, 2, 0)]).is_none());
    }

    /// Pods and Services of one namespace, with `app` labels and selectors from `apps`
    /// (0..3), named apart by `tag`.
    fn objects(tag: usize, apps: &[(bool, u8)]) -> Vec<Object> {
        let text: String = apps
            .iter()
            .enumerate()
            .map(|(i, &(service, app))| {
                let kind = if service { "Service" } else { "Pod" };
                let body = if service {
                    format!("spec: {{selector: {{app: a{app}}}}}")
                } else {
                    format!("spec: {{nodeName: n{app}}}")
                };
                format!(
                    "apiVersion: v1\nkind: {kind}\nmetadata: {{name: o{tag}-{i}, namespace: ns, \
                     labels: {{app: a{app}, n: x{i}}}}}\n{body}\n---\n"
                )
            })
            .collect();
        crate::model::load::parse_text(&std::sync::Arc::from(std::path::Path::new("x.yaml")), &text)
            .objects
    }

    proptest::proptest! {
        /// Several files changed in one batch — each keeping, growing, shrinking or
        /// emptying its run — patch the data (objects, label index shared beside the graph,
        /// graph) into what a build of the new objects gives.
        #[test]
        fn several_runs_patch_the_data_into_a_build(
            files in proptest::collection::vec(
                proptest::collection::vec((proptest::bool::weighted(0.2), 0u8..3), 0..6), 1..8),
            changed in proptest::collection::vec(
                (proptest::bool::ANY, proptest::collection::vec(
                    (proptest::bool::weighted(0.2), 0u8..3), 0..6)), 1..8),
        ) {
            let before: Vec<Vec<Object>> =
                files.iter().enumerate().map(|(f, apps)| objects(f, apps)).collect();
            let mut data = Dataset::new(Inventory {
                objects: before.concat(),
                ..Default::default()
            });
            let mut after = before.clone();
            let mut splices = Vec::new();
            let mut at = 0;
            for (f, old) in before.iter().enumerate() {
                match changed.get(f) {
                    Some((true, apps)) => {
                        let new = objects(100 + f, apps);
                        splices.push(FilePatch { at, removed: old.len(), objects: new.clone() });
                        at += new.len();
                        after[f] = new;
                    }
                    _ => at += old.len(),
                }
            }
            let patch = Patch { splices, ..Patch::default() };
            proptest::prop_assert!(data.apply_patch(patch).is_some());
            let built = Dataset::new(Inventory {
                objects: after.concat(),
                ..Default::default()
            });
            proptest::prop_assert_eq!(&data.index, &built.index);
            proptest::prop_assert!(data.graph == built.graph);
        }
    }
}
