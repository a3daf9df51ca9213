//! The [`Inventory`] a live set shows, kept up to date file by file.
//!
//! A full build does what `Inventory::build` does (kind registry from the objects, scope
//! resolution, duplicate warnings), through the same public functions (`registry_for`,
//! `resolve_scope`, `duplicates`), but keeps each part apart so one file can later be patched
//! in place: its objects are spliced into `objects`, its scope warnings and the duplicate
//! warnings of the identities it touches are recomputed, and only those identities are
//! compared for deltas. Patching is only valid when the kind registry cannot change, i.e. the
//! file's objects (before and after) are all of built-in or CRD-declared kinds and none is a
//! CRD; otherwise, and for large batches, the caller rebuilds.

use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, HashMap};

use std::hash::{Hash, Hasher};

use rayon::prelude::*;

use rustc_hash::{FxHashMap, FxHasher};
use std::path::{Path, PathBuf};

use super::delta::{self, Delta};
use crate::diagnostic::{cmp_paths, Diagnostic};
use crate::kinds::{KindOrigin, KindRegistry};
use crate::model::{duplicates, registry_for, resolve_scope, Inventory, Object, ObjectId};

/// One splice of a snapshot's objects: `removed` objects at `at` replaced by `objects`
/// (scope resolved). Positions are those after the previous splices of the same batch, so
/// a copy of the inventory follows by applying the splices in order.
#[derive(Clone, Debug)]
pub struct FilePatch {
    pub at: usize,
    pub removed: usize,
    pub objects: Vec<Object>,
}

/// One file's input to the snapshot: its objects as loaded (scope not yet resolved), of which
/// the first `fresh` come from the latest read and the rest are stale.
pub(crate) struct FileData<'a> {
    pub objects: &'a [Object],
    pub fresh: usize,
    pub problems: &'a [Diagnostic],
    pub bytes: u64,
}

/// What the snapshot remembers of one file.
#[derive(Debug, Default)]
struct Slot {
    len: usize,
    bytes: u64,
    /// The file's load problems and the scope warnings of its objects.
    problems: Vec<Diagnostic>,
}

/// The inventory plus what patching it needs.
#[derive(Debug, Default)]
pub(crate) struct Snapshot {
    pub inventory: Inventory,
    /// Per inventory object: a stale one.
    pub stale: Vec<bool>,
    /// Positions of the definitions of the identities with one hash ([`id_key`]), ascending
    /// (of one identity, the first is the effective one). Keyed by hash, not by identity: an
    /// entry costs 32 bytes instead of 104, and identities sharing a hash are told apart by
    /// the objects at the positions.
    defs: DefMap,
    slots: BTreeMap<PathBuf, Slot>,
    walk_problems: Vec<Diagnostic>,
    registry_problems: Vec<Diagnostic>,
    duplicate_problems: HashMap<ObjectId, Vec<Diagnostic>>,
}

impl Snapshot {
    /// A full build from every file, in path order.
    pub fn build<'a>(
        files: impl Iterator<Item = (&'a Path, FileData<'a>)>,
        walk_problems: &[Diagnostic],
    ) -> Snapshot {
        let files: Vec<_> = files.collect();
        let all: Vec<Object> = files
            .iter()
            .flat_map(|(_, f)| f.objects.iter().cloned())
            .collect();
        let mut snap = Snapshot {
            walk_problems: walk_problems.to_vec(),
            ..Snapshot::default()
        };
        snap.inventory.kinds = registry_for(&all, &mut snap.registry_problems);
        snap.inventory.objects = all;
        // Scopes file by file on every core (each file's objects a run of their own), and
        // the identities' hashes: at 1M objects these two were 60 % of the build on one core.
        let mut runs: Vec<&mut [Object]> = Vec::with_capacity(files.len());
        let mut rest = snap.inventory.objects.as_mut_slice();
        for (_, f) in &files {
            let Some((run, more)) = std::mem::take(&mut rest).split_at_mut_checked(f.objects.len())
            else {
                break;
            };
            runs.push(run);
            rest = more;
        }
        let kinds = &snap.inventory.kinds;
        let scopes: Vec<Vec<Diagnostic>> = runs
            .into_par_iter()
            .map(|run| resolve_all(kinds, run))
            .collect();
        let mut slots = Vec::with_capacity(files.len());
        for ((path, f), scope) in files.iter().zip(scopes) {
            slots.push((path.to_path_buf(), slot(f, scope)));
            snap.stale
                .extend((0..f.objects.len()).map(|i| i >= f.fresh));
        }
        // Files come in path order: the bulk build compares each path once.
        snap.slots = slots.into_iter().collect();
        let keys: Vec<u32> = snap
            .inventory
            .objects
            .par_iter()
            .map(|o| id_key(&o.id))
            .collect();
        snap.defs.reserve(keys.len());
        for (i, key) in keys.into_iter().enumerate() {
            snap.defs.push(key, i);
        }
        let objects = &snap.inventory.objects;
        let mut ids: Vec<ObjectId> = Vec::new();
        for p in snap.defs.many.values() {
            identities(objects, p, |i, n| {
                if n > 1 {
                    ids.push(objects[i].id.clone());
                }
            });
        }
        snap.refresh_duplicates(&ids);
        snap.finish();
        snap
    }

    /// Deltas from `old` to `self`, comparing every identity.
    pub fn diff_all(&self, old: &Snapshot) -> Vec<Delta> {
        let first = |s: &Snapshot| -> delta::IdIndex {
            let objects = &s.inventory.objects;
            let mut index = delta::IdIndex::with_capacity(s.defs.len());
            s.defs.for_each(|p| {
                identities(objects, p, |i, _| {
                    index.insert(objects[i].id.clone(), i);
                });
            });
            index
        };
        delta::diff(
            &old.inventory.objects,
            &first(old),
            &self.inventory.objects,
            &first(self),
        )
    }

    /// Whether replacing a file's `old` objects with `new` ones leaves the kind registry as
    /// it is (so the file can be patched in): no CRD among them, and every kind built in or
    /// declared by a CRD (only CRDs change those; a guessed kind's scope depends on its
    /// objects).
    pub fn can_patch(&self, old: &[Object], new: &[Object]) -> bool {
        old.iter().chain(new).all(|o| {
            !is_crd(o)
                && self
                    .inventory
                    .kinds
                    .get(&o.id.group, &o.id.kind)
                    .is_some_and(|k| k.origin != KindOrigin::Guessed)
        })
    }

    /// Index of the effective definition of `id`.
    pub fn index_of(&self, id: &ObjectId) -> Option<usize> {
        self.positions(id).next()
    }

    /// Positions of the definitions of `id`, ascending.
    fn positions<'s>(&'s self, id: &'s ObjectId) -> impl Iterator<Item = usize> + 's {
        let objects = &self.inventory.objects;
        self.defs
            .get(id_key(id))
            .filter(move |&i| objects[i].id == *id)
    }

    /// Replaces (or removes, with `None`) one file's contribution, records the touched
    /// identities with their effective definition before the change in `before` (first
    /// touch wins, so several patches can share one map), and returns the splice made to
    /// `inventory.objects`.
    pub fn patch(
        &mut self,
        path: &Path,
        file: Option<FileData<'_>>,
        before: &mut HashMap<ObjectId, Option<Object>>,
    ) -> FilePatch {
        let at: usize = self
            .slots
            .range::<PathBuf, _>(..path.to_path_buf())
            .map(|(_, s)| s.len)
            .sum();
        let old_len = self.slots.get(path).map_or(0, |s| s.len);
        let mut new_objs: Vec<Object> = file.as_ref().map_or(Vec::new(), |f| f.objects.to_vec());
        let scope = resolve_all(&self.inventory.kinds, &mut new_objs);
        let touched: Vec<ObjectId> = self.inventory.objects[at..at + old_len]
            .iter()
            .chain(&new_objs)
            .map(|o| o.id.clone())
            .collect();
        for id in &touched {
            if !before.contains_key(id) {
                let now = self.index_of(id).map(|i| self.inventory.objects[i].clone());
                before.insert(id.clone(), now);
            }
        }
        self.splice_defs(at, old_len, &new_objs);
        let stale = file.as_ref().map_or(Vec::new(), |f| {
            (0..f.objects.len()).map(|i| i >= f.fresh).collect()
        });
        self.stale.splice(at..at + old_len, stale);
        // Objects read again unchanged at either end of the file stay out of the splice:
        // an object added after them (or an edit of one object in place) then changes
        // one small run, not every object of the file.
        let (same_start, same_end) =
            unchanged_ends(&self.inventory.objects[at..at + old_len], &new_objs);
        let splice = FilePatch {
            at: at + same_start,
            removed: old_len - same_start - same_end,
            objects: new_objs[same_start..new_objs.len() - same_end].to_vec(),
        };
        self.inventory.objects.splice(at..at + old_len, new_objs);
        match file {
            Some(f) => {
                self.slots.insert(path.to_path_buf(), slot(&f, scope));
            }
            None => {
                self.slots.remove(path);
            }
        }
        self.refresh_duplicates(&touched);
        splice
    }

    /// Deltas for the identities in `before`, after patching; then re-assembles the totals.
    pub fn finish_patch(&mut self, before: HashMap<ObjectId, Option<Object>>) -> Vec<Delta> {
        self.finish();
        let mut out: Vec<Delta> = before
            .into_iter()
            .filter_map(|(id, old)| {
                let now = self.index_of(&id).map(|i| &self.inventory.objects[i]);
                delta::compare(id, old.as_ref(), now)
            })
            .collect();
        out.sort_by(|a, b| a.id.cmp(&b.id));
        out
    }

    /// Moves definition positions for replacing `old_len` objects at `at` with `new`.
    fn splice_defs(&mut self, at: usize, old_len: usize, new: &[Object]) {
        // Every object of the range goes, whatever its identity: no need to tell them apart.
        // Emptied entries are removed by `edit`.
        for o in &self.inventory.objects[at..at + old_len] {
            self.defs.edit(id_key(&o.id), |p| {
                p.retain(|&i| i < at || i >= at + old_len);
            });
        }
        if new.len() != old_len {
            self.defs
                .shift(|i| i >= at + old_len, |i| i + new.len() - old_len);
        }
        for (k, o) in new.iter().enumerate() {
            self.defs.edit(id_key(&o.id), |p| {
                let pos = p.partition_point(|&i| i < at + k);
                p.insert(pos, at + k);
            });
        }
    }

    /// Recomputes the duplicate warnings of `ids` from their current definitions.
    fn refresh_duplicates(&mut self, ids: &[ObjectId]) {
        for id in ids {
            let defs: Vec<Object> = self
                .positions(id)
                .map(|i| self.inventory.objects[i].clone())
                .collect();
            let warnings = if defs.len() > 1 {
                duplicates(&defs)
            } else {
                Vec::new()
            };
            if warnings.is_empty() {
                self.duplicate_problems.remove(id);
            } else {
                self.duplicate_problems.insert(id.clone(), warnings);
            }
        }
    }

    /// Re-assembles problems, file count and bytes, ordered as `Inventory::build` orders them.
    ///
    /// The sort into the diagnostics' order (`crate::diagnostic`) ranks paths by integers (a
    /// path comparison walks components, and a patch re-sorts every problem: 11k notes on a
    /// GitOps tree of kustomizations): a path is ranked by its place among the slots'
    /// paths (the map keeps them in path order), a path of no slot (a walk problem) between
    /// its neighbours by one binary search (and by the path itself against other such paths
    /// between the same neighbours).
    fn finish(&mut self) {
        let paths: Vec<&Path> = self.slots.keys().map(PathBuf::as_path).collect();
        let rank = |p: &Path| match paths.binary_search(&p) {
            Ok(i) => 2 * i + 1,
            Err(i) => 2 * i,
        };
        let mut ranked: Vec<(usize, &Diagnostic)> = Vec::new();
        ranked.extend(self.walk_problems.iter().map(|p| (rank(&p.path), p)));
        for (i, (path, slot)) in self.slots.iter().enumerate() {
            for p in &slot.problems {
                let r = if *p.path == **path {
                    2 * i + 1
                } else {
                    rank(&p.path)
                };
                ranked.push((r, p));
            }
        }
        ranked.extend(self.registry_problems.iter().map(|p| (rank(&p.path), p)));
        ranked.extend(
            self.duplicate_problems
                .values()
                .flatten()
                .map(|p| (rank(&p.path), p)),
        );
        // Paths of no slot that fall between the same two slots (even ranks) are compared
        // themselves; those are rare (walk problems).
        ranked.sort_by(|(ra, a), (rb, b)| {
            let path = match ra.cmp(rb) {
                std::cmp::Ordering::Equal if ra % 2 == 0 => cmp_paths(&a.path, &b.path),
                by_rank => by_rank,
            };
            path.then_with(|| a.cmp_within_path(b))
        });
        let problems = ranked.into_iter().map(|(_, p)| p.clone()).collect();
        self.inventory.problems = problems;
        self.inventory.files = self.slots.len();
        self.inventory.bytes = self.slots.values().map(|s| s.bytes).sum();
    }
}

/// Positions of the definitions of each identity, ascending, by the identity's 32-bit hash
/// (identities sharing a hash are told apart by the objects at the positions).
///
/// Nearly every identity has one definition: those are a slot each (`one`: 8 bytes an
/// entry), whose position is in a flat array (`at`), so that moving every position above an
/// edit is one pass over that array instead of over the hash table; a map of `u64` hashes
/// to a `Vec`-or-position enum took 32 bytes an entry (BENCHMARKS.md, "mem4"). A hash is in
/// one map or the other.
#[derive(Clone, Debug, Default)]
struct DefMap {
    /// Hashes with exactly one position: its slot in `at`.
    one: FxHashMap<u32, u32>,
    /// Per slot: the position, or [`FREE`] (a slot given back, in `free`).
    at: Vec<usize>,
    free: Vec<u32>,
    /// Hashes with several positions (duplicates, identities sharing a hash), or one that
    /// has no slot (more than `u32::MAX` slots).
    many: FxHashMap<u32, Vec<usize>>,
}

/// A slot of [`DefMap::at`] that holds no position.
const FREE: usize = usize::MAX;

impl DefMap {
    fn reserve(&mut self, n: usize) {
        self.one.reserve(n);
        self.at.reserve(n);
    }

    /// Hashes held.
    fn len(&self) -> usize {
        self.one.len() + self.many.len()
    }

    /// The positions of `key`, ascending.
    fn get(&self, key: u32) -> impl Iterator<Item = usize> + '_ {
        let one = self.one.get(&key).map(|&s| self.at[s as usize]);
        let many = self.many.get(&key).map_or(&[][..], Vec::as_slice);
        one.into_iter().chain(many.iter().copied())
    }

    /// Calls `f` with the positions of each hash.
    fn for_each(&self, mut f: impl FnMut(&[usize])) {
        self.one.values().for_each(|&s| f(&[self.at[s as usize]]));
        self.many.values().for_each(|p| f(p));
    }

    /// A slot of `at` holding position `i`, one of `free` if any (none once there are
    /// `u32::MAX` slots).
    fn slot(at: &mut Vec<usize>, free: &mut Vec<u32>, i: usize) -> Option<u32> {
        if let Some(s) = free.pop() {
            at[s as usize] = i;
            return Some(s);
        }
        let s = u32::try_from(at.len()).ok()?;
        at.push(i);
        Some(s)
    }

    /// Gives slot `s` back; its position.
    fn release(&mut self, s: u32) -> usize {
        let i = std::mem::replace(&mut self.at[s as usize], FREE);
        self.free.push(s);
        i
    }

    /// Adds a position after the others of `key` (the build: positions ascending).
    fn push(&mut self, key: u32, i: usize) {
        if let Some(p) = self.many.get_mut(&key) {
            p.push(i);
            return;
        }
        // One lookup for the usual first definition (the build pushes every object).
        match self.one.entry(key) {
            Entry::Occupied(e) => {
                let s = e.remove();
                let first = self.release(s);
                self.many.insert(key, vec![first, i]);
            }
            Entry::Vacant(e) => match DefMap::slot(&mut self.at, &mut self.free, i) {
                Some(s) => {
                    e.insert(s);
                }
                None => {
                    self.many.insert(key, vec![i]);
                }
            },
        }
    }

    /// Changes the positions of `key` as a `Vec` (patches only).
    fn edit(&mut self, key: u32, f: impl FnOnce(&mut Vec<usize>)) {
        let mut p = match (self.one.remove(&key), self.many.remove(&key)) {
            (Some(s), _) => vec![self.release(s)],
            (None, Some(p)) => p,
            (None, None) => Vec::new(),
        };
        f(&mut p);
        self.put(key, p);
    }

    /// Moves every position for which `moved` holds to `to(position)` (order kept).
    fn shift(&mut self, moved: impl Fn(usize) -> bool, to: impl Fn(usize) -> usize) {
        for p in self.many.values_mut() {
            p.iter_mut()
                .filter(|i| moved(**i))
                .for_each(|i| *i = to(*i));
        }
        for i in &mut self.at {
            if *i != FREE && moved(*i) {
                *i = to(*i);
            }
        }
    }

    /// Stores `positions` for `key` (absent while empty).
    fn put(&mut self, key: u32, positions: Vec<usize>) {
        match positions.as_slice() {
            [] => {}
            [i] => match DefMap::slot(&mut self.at, &mut self.free, *i) {
                Some(s) => {
                    self.one.insert(key, s);
                }
                None => {
                    self.many.insert(key, positions);
                }
            },
            _ => {
                self.many.insert(key, positions);
            }
        }
    }
}

/// The hash [`Snapshot`] keys an identity's definitions by (32 bits: the positions tell
/// identities sharing one apart).
fn id_key(id: &ObjectId) -> u32 {
    let mut h = FxHasher::default();
    id.hash(&mut h);
    let h = h.finish();
    (h ^ (h >> 32)) as u32
}

/// Calls `f` with each identity defined at `positions` (ascending, one hash): the position
/// of its first definition and how many it has. Nearly always one identity; identities
/// sharing a hash are told apart pairwise (rare, and few).
fn identities(objects: &[Object], positions: &[usize], mut f: impl FnMut(usize, usize)) {
    let same = |a: usize, b: usize| objects[a].id == objects[b].id;
    match positions {
        [] => {}
        [first, rest @ ..] if rest.iter().all(|&j| same(*first, j)) => f(*first, positions.len()),
        _ => {
            let mut found: Vec<(usize, usize)> = Vec::new();
            for &i in positions {
                match found.iter_mut().find(|(first, _)| same(*first, i)) {
                    Some((_, n)) => *n += 1,
                    None => found.push((i, 1)),
                }
            }
            found.into_iter().for_each(|(i, n)| f(i, n));
        }
    }
}

fn slot(f: &FileData<'_>, scope: Vec<Diagnostic>) -> Slot {
    let mut problems = f.problems.to_vec();
    problems.extend(scope);
    Slot {
        len: f.objects.len(),
        bytes: f.bytes,
        problems,
    }
}

/// Resolves each object's scope, returning the warnings.
fn resolve_all(kinds: &KindRegistry, objects: &mut [Object]) -> Vec<Diagnostic> {
    objects
        .iter_mut()
        .filter_map(|o| resolve_scope(kinds, o))
        .collect()
}

fn is_crd(o: &Object) -> bool {
    &*o.id.kind == "CustomResourceDefinition" && &*o.id.group == "apiextensions.k8s.io"
}

/// How many objects at the start and at the end of a file's objects are read again
/// unchanged ([`crate::model::ObjectData::identical`]) from `old` to `new`, leaving at
/// least one object on each side of the splice when both have one (a run that removes or
/// adds nothing would take the graph patch's slower paths: an emptied run is widened by
/// the object beside it again).
fn unchanged_ends(old: &[Object], new: &[Object]) -> (usize, usize) {
    let keep = old.len().min(new.len()).saturating_sub(1);
    let same = |(a, b): &(&Object, &Object)| Object::ptr_eq(a, b) || a.identical(b);
    let start = old.iter().zip(new).take(keep).take_while(same).count();
    let end = old[start..]
        .iter()
        .rev()
        .zip(new[start..].iter().rev())
        .take(keep - start)
        .take_while(same)
        .count();
    (start, end)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::diagnostic::Severity;

    fn problem(path: &str, line: u32, column: u32, message: &str) -> Diagnostic {
        let path: Arc<Path> = Arc::from(Path::new(path));
        Diagnostic::new(&path, line, column, Severity::Error, "test", message)
    }

    /// Positions stay ascending and the first one is the effective definition, whether
    /// held alone or in a list, through pushes, removals, inserts and shifts.
    #[test]
    fn definitions_keep_their_positions_alone_or_not() {
        let mut d = DefMap::default();
        let at = |d: &DefMap, k| d.get(k).collect::<Vec<usize>>();
        assert!(at(&d, 1).is_empty());
        d.push(1, 3);
        assert_eq!((at(&d, 1), d.one.len(), d.len()), (vec![3], 1, 1));
        d.push(1, 7);
        d.push(1, 9);
        d.push(2, 5);
        assert_eq!((at(&d, 1), at(&d, 2), d.len()), (vec![3, 7, 9], vec![5], 2));
        d.edit(1, |p| p.retain(|&i| i != 3));
        assert_eq!(at(&d, 1), [7, 9]);
        d.shift(|i| i > 4, |i| i + 1);
        assert_eq!((at(&d, 1), at(&d, 2)), (vec![8, 10], vec![6]));
        d.edit(1, |p| p.retain(|&i| i == 10));
        assert_eq!(
            (at(&d, 1), d.one.len(), d.many.get(&1)),
            (vec![10], 2, None)
        );
        d.edit(1, |p| {
            let at = p.partition_point(|&i| i < 4);
            p.insert(at, 4);
        });
        assert_eq!(at(&d, 1), [4, 10]);
        d.edit(1, Vec::clear);
        assert_eq!((at(&d, 1), d.len()), (vec![], 1));
        let mut seen = Vec::new();
        d.for_each(|p| seen.push(p.to_vec()));
        assert_eq!(seen, [vec![6]]);
        // A position over u32::MAX is kept too.
        if let Ok(big) = usize::try_from(u64::from(u32::MAX) + 1) {
            d.shift(|_| true, |i| i + big);
            assert_eq!(at(&d, 2), vec![6 + big]);
        }
        // Slots given back are used again: the array does not grow with edits.
        let slots = d.at.len();
        for k in 10..20 {
            d.push(k, k as usize);
            d.edit(k, Vec::clear);
        }
        assert_eq!(d.at.len(), slots);
    }

    /// Definitions are kept by identity hash: identities sharing one are told apart by the
    /// objects, each with its first position and count.
    #[test]
    fn identities_sharing_a_hash_are_told_apart() {
        let cm = |name: &str| {
            serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": name, "namespace": "a"}})
        };
        let inv = crate::model::test_inventory(&[cm("x"), cm("y"), cm("x"), cm("y"), cm("z")]);
        let found = |positions: &[usize]| {
            let mut out = Vec::new();
            identities(&inv.objects, positions, |i, n| out.push((i, n)));
            out
        };
        assert_eq!(found(&[0, 1, 2, 3, 4]), vec![(0, 2), (1, 2), (4, 1)]);
        assert_eq!(found(&[0, 2]), vec![(0, 2)]);
        assert_eq!(found(&[3]), vec![(3, 1)]);
        assert!(found(&[]).is_empty());
    }

    /// Problems come out in the diagnostics' order (what sorting their concatenation gives),
    /// also for walk problems at paths of no file, between files, before the first and after
    /// the last, and for problems of a file that name another path.
    #[test]
    fn problems_are_ordered_as_a_sort_by_path() {
        let files = ["/r/b.yaml", "/r/d.yaml", "/r/d/e.yaml", "/r/f-g.yaml"];
        let per_file: Vec<Vec<Diagnostic>> = files
            .iter()
            .map(|f| {
                vec![
                    problem(f, 9, 1, "late"),
                    problem(f, 2, 5, "early"),
                    problem(f, 2, 5, "same place, second"),
                    problem("/r/c", 1, 1, "names another path"),
                ]
            })
            .collect();
        let walk = vec![
            problem("/r/a", 0, 0, "before the first"),
            problem("/r/c/x", 0, 0, "between"),
            problem("/r/c", 0, 0, "between, shorter"),
            problem("/r/d.yaml", 0, 0, "on a file"),
            problem("/r/f", 0, 0, "between (component order)"),
            problem("/r/z", 0, 0, "after the last"),
        ];
        let data: Vec<(&Path, FileData<'_>)> = files
            .iter()
            .zip(&per_file)
            .map(|(f, problems)| {
                let data = FileData {
                    objects: &[],
                    fresh: 0,
                    problems,
                    bytes: 1,
                };
                (Path::new(*f), data)
            })
            .collect();
        let snap = Snapshot::build(data.into_iter(), &walk);
        let mut expected: Vec<Diagnostic> = walk.clone();
        expected.extend(per_file.iter().flatten().cloned());
        expected.sort();
        let shown = |ps: &[Diagnostic]| -> Vec<String> {
            ps.iter()
                .map(|p| format!("{}:{}:{} {}", p.path.display(), p.line, p.column, p.message))
                .collect()
        };
        assert_eq!(shown(&snap.inventory.problems), shown(&expected));
    }
}
