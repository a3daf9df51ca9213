//! A live picture of the input: per-file loads kept by path, re-read file by file as changes
//! arrive, with per-identity deltas for each applied batch.
//!
//! Stale objects: when a re-read file has an error-level problem (a syntax error, an
//! unreadable file), every object it defined before and no longer yields is kept, marked
//! stale, after the objects it still yields. The file's new problems are reported as usual,
//! plus a `stale` warning. The mark goes when the file loads without errors again (or is
//! deleted). Keeping them produces no event: a half-typed edit does not flash DELETED.
//!
//! Snapshot: a batch of up to [`PATCH_LIMIT`] files whose objects are all of built-in kinds
//! is patched into the [`Inventory`] file by file (see `snapshot.rs`); anything else (CRDs,
//! guessed kinds, large batches, rescans) rebuilds it from the per-file map. The cost at
//! 100k objects is measured by `benches/delta.rs` and `kubesift bench`.
//!
//! Standard input (`-`) is loaded like a file and kept, but never re-read: it is no root to
//! rescan, and a change reported for `-` is ignored.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use rayon::prelude::*;

use super::delta::Delta;
use super::render::{RenderRequest, Rendering};
pub use super::snapshot::FilePatch;
use super::snapshot::{FileData, Snapshot};
use crate::diagnostic::{Diagnostic, Severity};
use crate::model::load::{discover, is_stdin, load_file, FileLoad, LoadOptions};
use crate::model::{Inventory, Object, ObjectId};
use crate::watch::filter::PathFilter;

/// Batches touching more files than this rebuild the snapshot instead of patching it.
pub const PATCH_LIMIT: usize = 64;

/// Size and modification time seen just before a file was read; a directory rescan re-reads
/// only files whose stamp moved.
type Stamp = Option<(SystemTime, u64)>;

/// One file's contribution.
#[derive(Clone, Debug)]
struct FileEntry {
    /// The latest load, its objects followed by the stale ones kept from before.
    load: FileLoad,
    /// How many of `load.objects` come from the latest read (the rest are stale).
    fresh: usize,
    stamp: Stamp,
}

impl FileEntry {
    fn stale(&self) -> &[Object] {
        &self.load.objects[self.fresh..]
    }

    fn data(&self) -> FileData<'_> {
        FileData {
            objects: &self.load.objects,
            fresh: self.fresh,
            problems: &self.load.problems,
            bytes: self.load.bytes,
        }
    }
}

/// Per-file loads of the input, the snapshot built from them, and the deltas between
/// snapshots.
#[derive(Debug)]
pub struct LiveSet {
    roots: Vec<PathBuf>,
    filter: PathFilter,
    opts: LoadOptions,
    files: BTreeMap<PathBuf, FileEntry>,
    walk_problems: Vec<Diagnostic>,
    snap: Snapshot,
    /// How the last batch changed the snapshot's objects, when it was patched in place.
    last_patch: Option<Vec<FilePatch>>,
    /// Kustomizations and charts rendered in place of the files they read.
    render: Option<Arc<Rendering>>,
}

impl LiveSet {
    /// Loads everything under `paths`, as `load_paths` does.
    pub fn load(paths: &[PathBuf], opts: &LoadOptions) -> LiveSet {
        let (found, walk_problems) = discover(paths, opts);
        let mut live = LiveSet::empty(paths, opts, walk_problems);
        // Collected, not inserted one by one: the walk's order is path order, which
        // `BTreeMap`'s bulk build checks in one comparison per file.
        live.files = live.read_files(found).into_iter().collect();
        live.snap = live.build();
        live
    }

    /// Loads everything under `paths` with rendering as `req` asks (`-k`: only the builds
    /// of those folders; `--render`: top-level kustomizations and charts instead of the
    /// files they read). An error is a `-k` folder without a kustomization, or no kustomize.
    pub fn load_rendered(
        paths: &[PathBuf],
        opts: &LoadOptions,
        req: &RenderRequest,
    ) -> Result<LiveSet, String> {
        if !req.is_on() {
            return Ok(LiveSet::load(paths, opts));
        }
        let roots = req.roots(paths);
        let (found, walk_problems, rendering) = if req.kustomize.is_empty() {
            let (found, walk_problems) = discover(&roots, opts);
            let rendering = Rendering::plan(&roots, &found, req);
            (found, walk_problems, rendering)
        } else {
            let rendering = Rendering::explicit(req)?;
            let found = rendering
                .plan
                .units
                .iter()
                .map(|u| u.manifest.clone())
                .collect();
            (found, Vec::new(), rendering)
        };
        let mut live = LiveSet::empty(&roots, opts, walk_problems);
        live.render = Some(Arc::new(rendering));
        Ok(live.filled(found))
    }

    /// How the builds went, when rendering.
    pub fn render_summary(&self) -> Option<super::RenderSummary> {
        let r = self.render.as_deref()?;
        Some(super::render::summarize(
            &r.plan,
            self.files.values().map(|e| &e.load),
        ))
    }

    /// Reads `found` into the files and builds the snapshot.
    fn filled(mut self, mut found: Vec<PathBuf>) -> LiveSet {
        found.sort();
        found.dedup();
        self.files = self.read_files(found).into_iter().collect();
        self.snap = self.build();
        self
    }

    /// Follows the input with `rendering` (the UI's first load built the loads through it).
    pub fn with_rendering(mut self, rendering: Option<Arc<Rendering>>) -> LiveSet {
        self.render = rendering;
        self
    }

    /// The rendering plan, when rendering.
    pub fn rendering(&self) -> Option<&Rendering> {
        self.render.as_deref()
    }

    /// Builds the live set from loads already made (the UI's progressive first load:
    /// `discover` then `load_file` per file). Each file is stamped now; a change made
    /// while loading reaches the caller as a watch event (watch before loading) and is
    /// re-read then.
    pub fn from_loads(
        paths: &[PathBuf],
        opts: &LoadOptions,
        loads: Vec<FileLoad>,
        walk_problems: Vec<Diagnostic>,
    ) -> LiveSet {
        let mut live = LiveSet::empty(paths, opts, walk_problems);
        live.files = loads
            .into_iter()
            .map(|load| {
                let path = load.path.to_path_buf();
                let stamp = load.stamp.or_else(|| stamp(&path));
                let entry = merge(&path, None, load, stamp);
                (path, entry)
            })
            .collect();
        live.snap = live.build();
        live
    }

    fn empty(paths: &[PathBuf], opts: &LoadOptions, walk_problems: Vec<Diagnostic>) -> LiveSet {
        // Standard input was read once and is gone: rescans walk the other roots only.
        let roots: Vec<PathBuf> = paths.iter().filter(|p| !is_stdin(p)).cloned().collect();
        LiveSet {
            filter: PathFilter::new(&roots),
            roots,
            opts: opts.clone(),
            files: BTreeMap::new(),
            walk_problems,
            snap: Snapshot::default(),
            last_patch: None,
            render: None,
        }
    }

    /// The current snapshot.
    pub fn inventory(&self) -> &Inventory {
        &self.snap.inventory
    }

    /// Whether `inventory().objects[index]` is a stale object kept from an earlier read.
    pub fn is_stale(&self, index: usize) -> bool {
        self.snap.stale.get(index).copied().unwrap_or(false)
    }

    /// Files that currently fail to load and show stale objects, in path order.
    pub fn stale_files(&self) -> Vec<&Path> {
        self.files
            .iter()
            .filter(|(_, e)| !e.stale().is_empty())
            .map(|(p, _)| p.as_path())
            .collect()
    }

    /// Index in `inventory().objects` of the effective (first) definition of `id`; how a
    /// consumer maps a [`Delta`] onto the current snapshot.
    pub fn index_of(&self, id: &ObjectId) -> Option<usize> {
        self.snap.index_of(id)
    }

    /// The splices the last batch made to `inventory().objects`, in order, when it was
    /// patched in place (`None` when the snapshot was rebuilt, or already taken): a copy of
    /// the previous inventory becomes the current one by applying them.
    pub fn take_patch(&mut self) -> Option<Vec<FilePatch>> {
        self.last_patch.take()
    }

    /// Number of files loaded.
    pub fn file_count(&self) -> usize {
        self.files.len()
    }

    /// Re-reads the changed paths and returns the deltas. A path that no longer exists
    /// removes its file (or everything under it, for a removed directory); a directory is
    /// rescanned (new files read, vanished ones removed, files whose size or time moved
    /// re-read); a file is always re-read. Paths the loader would not read are ignored, and
    /// so is `-` (standard input is read once).
    pub fn apply(&mut self, changed: &[PathBuf]) -> Vec<Delta> {
        self.apply_deferring(changed, &mut |_| false)
    }

    /// [`LiveSet::apply`], except that a file a directory walk finds new or changed is left
    /// as it was when `defer` says so (it looks half-written: the caller reads it again
    /// later, as a changed path of its own).
    pub fn apply_deferring(
        &mut self,
        changed: &[PathBuf],
        defer: &mut dyn FnMut(&Path) -> bool,
    ) -> Vec<Delta> {
        let changed: BTreeSet<&PathBuf> = changed.iter().filter(|p| !is_stdin(p)).collect();
        let mut removed = BTreeSet::new();
        let mut reread = Vec::new();
        for path in changed {
            if path.is_dir() {
                if self.filter.visible_under_dir(path) {
                    let (gone, found) = self.sync_dir(std::slice::from_ref(path), defer);
                    removed.extend(gone);
                    reread.extend(found);
                }
            } else if path.exists() {
                // A directory replaced by a file: what was stored under it is gone.
                removed.extend(self.stored_under(path).into_iter().filter(|k| k != path));
                reread.extend(self.file_key(path));
            } else {
                removed.extend(self.stored_under(path));
            }
        }
        self.commit(removed, reread)
    }

    /// Applies one file's contents obtained elsewhere (an editor buffer, `kubesift bench`)
    /// as if `path` had just been re-read with this result: same merge (stale objects),
    /// same snapshot patching, same deltas as [`LiveSet::apply`].
    pub fn apply_load(&mut self, path: &Path, load: FileLoad) -> Vec<Delta> {
        self.apply_loads(vec![(path, load)])
    }

    /// [`LiveSet::apply_load`] for several files at once: one batch (one patch, as the
    /// watcher applies files changed together).
    pub fn apply_loads(&mut self, loads: Vec<(&Path, FileLoad)>) -> Vec<Delta> {
        let entries = loads
            .into_iter()
            .map(|(path, load)| {
                let key = path.to_path_buf();
                let entry = merge(path, self.files.get(&key), load, stamp(path));
                (key, entry)
            })
            .collect();
        self.commit_entries(BTreeSet::new(), entries)
    }

    /// Walks every root again (after an event-queue overflow): new files are read, vanished
    /// ones removed, and files whose size or modification time moved re-read.
    pub fn rescan(&mut self) -> Vec<Delta> {
        self.rescan_deferring(&mut |_| false)
    }

    /// [`LiveSet::rescan`], leaving the files `defer` names as they were (see
    /// [`LiveSet::apply_deferring`]).
    pub fn rescan_deferring(&mut self, defer: &mut dyn FnMut(&Path) -> bool) -> Vec<Delta> {
        let roots = self.roots.clone();
        let (gone, found) = self.sync_dir(&roots, defer);
        self.commit(gone.into_iter().collect(), found)
    }

    /// The key under which `path` is (or would be) stored, if the loader reads it.
    fn file_key(&self, path: &Path) -> Option<PathBuf> {
        if let Some(named) = self.filter.explicit(path) {
            return Some(named.to_path_buf());
        }
        (self.files.contains_key(path) || self.filter.wants_file(path)).then(|| path.to_path_buf())
    }

    /// Walks `dirs` as the loader does: returns the stored files under them the walk no
    /// longer finds, and the found files that are new or whose stamp moved but for those
    /// `defer` keeps as they were.
    fn sync_dir(
        &mut self,
        dirs: &[PathBuf],
        defer: &mut dyn FnMut(&Path) -> bool,
    ) -> (Vec<PathBuf>, Vec<PathBuf>) {
        let (found, problems) = discover(dirs, &self.opts);
        if dirs == self.roots.as_slice() {
            self.walk_problems = problems;
        }
        let found_set: HashSet<&PathBuf> = found.iter().collect();
        let gone = self
            .files
            .keys()
            .filter(|k| dirs.iter().any(|d| k.starts_with(d)) && !found_set.contains(k))
            .cloned()
            .collect();
        let changed = found
            .iter()
            .filter(|f| self.files.get(*f).is_none_or(|e| e.stamp != stamp(f)) && !defer(f))
            .cloned()
            .collect();
        (gone, changed)
    }

    /// `path` itself if stored (or a named root), and every stored file under it.
    fn stored_under(&self, path: &Path) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = self
            .filter
            .explicit(path)
            .map(Path::to_path_buf)
            .into_iter()
            .collect();
        out.extend(
            self.files
                .range::<PathBuf, _>(path.to_path_buf()..)
                .take_while(|(k, _)| k.starts_with(path))
                .map(|(k, _)| k.clone()),
        );
        out
    }

    /// Reads `paths` in parallel; each result is merged with what the file showed before.
    fn read_files(&self, paths: Vec<PathBuf>) -> Vec<(PathBuf, FileEntry)> {
        let opts = &self.opts;
        let render = self.render.as_deref();
        let loads: Vec<(PathBuf, FileLoad)> = paths
            .into_par_iter()
            .map(|p| {
                let load = match render {
                    Some(r) => r.load(&p, opts),
                    None => load_file(&p, opts),
                };
                (p, load)
            })
            .collect();
        loads
            .into_iter()
            .map(|(path, load)| {
                // Stamped when opened, before the read: a change during the read is seen.
                let stamp = load.stamp;
                let entry = merge(&path, self.files.get(&path), load, stamp);
                (path, entry)
            })
            .collect()
    }

    /// Stores the batch's results and brings the snapshot up to date.
    fn commit(&mut self, removed: BTreeSet<PathBuf>, reread: Vec<PathBuf>) -> Vec<Delta> {
        let reread = self.with_builds(&removed, reread);
        let entries = self.read_files(reread);
        self.commit_entries(removed, entries)
    }

    /// With rendering, what else a batch re-reads: the plan is made again when a
    /// kustomization or chart changed or files came or went (files whose role changed are
    /// re-read), and every build reading a changed or removed file runs again (its manifest
    /// is re-read). Only those builds: the others keep their objects.
    fn with_builds(
        &mut self,
        removed: &BTreeSet<PathBuf>,
        mut reread: Vec<PathBuf>,
    ) -> Vec<PathBuf> {
        let Some(mut render) = self.render.clone() else {
            return reread;
        };
        let touched: Vec<PathBuf> = removed.iter().chain(&reread).cloned().collect();
        let structural = touched.iter().any(|p| {
            crate::render::is_kustomization(p)
                || p.file_name().is_some_and(|n| n == "Chart.yaml")
                || removed.contains(p)
                || !self.files.contains_key(p)
        });
        if structural {
            let mut files: Vec<PathBuf> = self
                .files
                .keys()
                .filter(|k| !removed.contains(*k))
                .cloned()
                .collect();
            files.extend(
                reread
                    .iter()
                    .filter(|p| !self.files.contains_key(*p))
                    .cloned(),
            );
            files.sort();
            files.dedup();
            let next = Arc::new(render.replan(&files));
            reread.extend(
                files
                    .iter()
                    .filter(|f| render.role_changed(&next, f))
                    .cloned(),
            );
            render = next;
            self.render = Some(Arc::clone(&render));
        }
        for p in &touched {
            reread.extend(
                render
                    .plan
                    .units_reading(p)
                    .into_iter()
                    .map(|u| u.manifest.clone())
                    .filter(|m| !removed.contains(m)),
            );
        }
        let mut seen = HashSet::new();
        reread.retain(|p| seen.insert(p.clone()));
        reread
    }

    fn commit_entries(
        &mut self,
        removed: BTreeSet<PathBuf>,
        entries: Vec<(PathBuf, FileEntry)>,
    ) -> Vec<Delta> {
        let mut updates: BTreeMap<PathBuf, Option<FileEntry>> =
            removed.into_iter().map(|p| (p, None)).collect();
        for (path, entry) in entries {
            updates.insert(path, Some(entry));
        }
        self.last_patch = None;
        if self.patchable(&updates) {
            return self.patch(updates);
        }
        for (path, entry) in updates {
            match entry {
                Some(e) => self.files.insert(path, e),
                None => self.files.remove(&path),
            };
        }
        let new = self.build();
        let old = std::mem::replace(&mut self.snap, new);
        self.snap.diff_all(&old)
    }

    fn patchable(&self, updates: &BTreeMap<PathBuf, Option<FileEntry>>) -> bool {
        updates.len() <= PATCH_LIMIT
            && updates.iter().all(|(path, new)| {
                let old = self
                    .files
                    .get(path)
                    .map_or(&[][..], |e| &e.load.objects[..]);
                let new = new.as_ref().map_or(&[][..], |e| &e.load.objects[..]);
                self.snap.can_patch(old, new)
            })
    }

    fn patch(&mut self, updates: BTreeMap<PathBuf, Option<FileEntry>>) -> Vec<Delta> {
        let mut before = HashMap::new();
        let mut splices = Vec::with_capacity(updates.len());
        for (path, entry) in updates {
            splices.push(
                self.snap
                    .patch(&path, entry.as_ref().map(FileEntry::data), &mut before),
            );
            match entry {
                Some(e) => self.files.insert(path, e),
                None => self.files.remove(&path),
            };
        }
        self.last_patch = Some(splices);
        self.snap.finish_patch(before)
    }

    fn build(&self) -> Snapshot {
        Snapshot::build(
            self.files.iter().map(|(p, e)| (p.as_path(), e.data())),
            &self.walk_problems,
        )
    }
}

/// The entry for a fresh `load` of `path`, keeping as stale the objects `prev` showed that
/// the load no longer yields when the load has errors.
fn merge(path: &Path, prev: Option<&FileEntry>, mut load: FileLoad, stamp: Stamp) -> FileEntry {
    let fresh = load.objects.len();
    let broken = load.problems.iter().any(|p| p.severity == Severity::Error);
    if let (true, Some(prev)) = (broken, prev) {
        let now: HashSet<&ObjectId> = load.objects.iter().map(|o| &o.id).collect();
        let kept: Vec<_> = prev
            .load
            .objects
            .iter()
            .filter(|o| !now.contains(&o.id))
            .cloned()
            .collect();
        if !kept.is_empty() {
            load.problems.push(stale_warning(path, kept.len()));
            load.objects.extend(kept);
        }
    }
    FileEntry { load, fresh, stamp }
}

fn stale_warning(path: &Path, n: usize) -> Diagnostic {
    Diagnostic::new(
        &Arc::from(path),
        0,
        0,
        Severity::Warning,
        "stale",
        format!("file has errors: showing {n} object(s) from its last good read until it is fixed"),
    )
}

fn stamp(path: &Path) -> Stamp {
    if is_stdin(path) {
        return None;
    }
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.modified().ok()?, meta.len()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::load::parse_text;

    /// The inventory's object names, in order.
    fn names(live: &LiveSet) -> Vec<String> {
        live.inventory()
            .objects
            .iter()
            .map(|o| o.id.name.to_string())
            .collect()
    }

    /// A file read again splices only what changed between the objects it kept
    /// unchanged at its start and at its end (same span, same bytes), never emptying the
    /// splice while both versions hold an object: an object appended, one edited in place
    /// keeping its length, one inserted first (every span after it moves: the whole file),
    /// the file emptied.
    #[test]
    fn a_reread_file_splices_only_what_changed() {
        let dir = tempfile::tempdir().expect("tempdir");
        let cm = |name: &str, v: &str| {
            format!(
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\ndata: {{v: {v}}}\n"
            )
        };
        let (first, file) = (dir.path().join("a.yaml"), dir.path().join("b.yaml"));
        std::fs::write(&first, cm("before", "0")).expect("write");
        let write = |docs: &[String]| std::fs::write(&file, docs.join("---\n")).expect("write");
        write(&[cm("a", "1"), cm("b", "1"), cm("c", "1")]);
        let mut live = LiveSet::load(&[dir.path().to_path_buf()], &LoadOptions::default());
        let mut splice = |docs: &[String]| {
            write(docs);
            live.apply(std::slice::from_ref(&file));
            let patch = live.take_patch().expect("patched in place");
            let [p] = &patch[..] else {
                panic!("one splice: {patch:?}")
            };
            let names: Vec<String> = p.objects.iter().map(|o| o.id.name.to_string()).collect();
            (p.at, p.removed, names)
        };
        let appended = splice(&[cm("a", "1"), cm("b", "1"), cm("c", "1"), cm("d", "1")]);
        assert_eq!(appended, (3, 1, vec!["c".to_string(), "d".to_string()]));
        let edited = splice(&[cm("a", "1"), cm("b", "2"), cm("c", "1"), cm("d", "1")]);
        assert_eq!(edited, (2, 1, vec!["b".to_string()]));
        let inserted = splice(&[
            cm("z", "1"),
            cm("a", "1"),
            cm("b", "2"),
            cm("c", "1"),
            cm("d", "1"),
        ]);
        assert_eq!(inserted.0, 1);
        assert_eq!(inserted.1, 4);
        assert_eq!(inserted.2.len(), 5);
        let emptied = splice(&[]);
        assert_eq!(emptied, (1, 5, Vec::new()));
        assert_eq!(names(&live), ["before"]);
    }

    /// Standard input beside a folder: a rescan and a change reported for `-` leave its
    /// objects alone (re-reading it would find the stream gone), the folder follows.
    #[test]
    fn stdin_is_kept_and_never_reread() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("a.yaml");
        std::fs::write(
            &file,
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n",
        )
        .expect("write");
        let stdin: Arc<Path> = Arc::from(Path::new("-"));
        let piped = parse_text(
            &stdin,
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: piped\n",
        );
        let roots = vec![PathBuf::from("-"), dir.path().to_path_buf()];
        let opts = LoadOptions::default();
        let mut live = LiveSet::from_loads(
            &roots,
            &opts,
            vec![piped, load_file(&file, &opts)],
            Vec::new(),
        );
        // Files in path order (components: the absolute folder's first).
        assert_eq!(names(&live), ["a", "piped"]);
        assert!(live.apply(&[PathBuf::from("-")]).is_empty());
        assert!(live.rescan().is_empty());
        assert_eq!(names(&live), ["a", "piped"]);
        std::fs::write(
            dir.path().join("b.yaml"),
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n",
        )
        .expect("write");
        assert_eq!(live.rescan().len(), 1);
        assert_eq!(names(&live), ["a", "b", "piped"]);
    }

    /// A file a walk finds changed but the caller defers (caught half-written) keeps what it
    /// showed, in a rescan and in a directory's walk; named on its own later, it is read.
    #[test]
    fn deferred_files_keep_their_objects_until_named() {
        let dir = tempfile::tempdir().expect("tempdir");
        let cm =
            |name: &str| format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n");
        let (a, b) = (dir.path().join("a.yaml"), dir.path().join("sub/b.yaml"));
        std::fs::create_dir(dir.path().join("sub")).expect("mkdir");
        std::fs::write(&a, cm("a")).expect("write");
        std::fs::write(&b, cm("b")).expect("write");
        let mut live = LiveSet::load(&[dir.path().to_path_buf()], &LoadOptions::default());
        // Truncated for a save: a rescan and a walk of its directory both leave it.
        std::fs::write(&b, "").expect("truncate");
        let mut deferred = Vec::new();
        let mut defer = |p: &Path| {
            deferred.push(p.to_path_buf());
            true
        };
        assert!(live.rescan_deferring(&mut defer).is_empty());
        assert!(live
            .apply_deferring(&[dir.path().join("sub")], &mut defer)
            .is_empty());
        assert_eq!(deferred, [b.clone(), b.clone()]);
        assert_eq!(names(&live), ["a", "b"]);
        // The write lands and the file is named: read.
        std::fs::write(&b, cm("b2")).expect("write");
        assert_eq!(live.apply(std::slice::from_ref(&b)).len(), 2);
        assert_eq!(names(&live), ["a", "b2"]);
    }
}
