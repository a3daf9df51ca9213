//! Patching a graph after some files changed, instead of rebuilding it.
//!
//! A patch recomputes, with the code of a full build, only the results a change can reach,
//! found by key (`keys.rs`: flat per-object hashes, so finding them is one pass over
//! arrays, no string hashed per object):
//!
//! - ownerReferences (edges, findings, counts) of the changed objects and of every object
//!   whose references can name one: in its scope or by uid, or by kind and name anywhere
//!   when a reference did not resolve (its finding names where an owner of that name is).
//!   Owners are looked up among the objects those references can name (by kind and name in
//!   any namespace, or by uid), not among the whole input.
//! - lifecycle findings of the changed objects and of the owners whose dependents changed
//!   (old or new owner edges of the objects above), with the merged owner edges.
//! - ownerReference cycles reachable from those objects or from an object that was in one.
//! - matched selector sets, by key (`setkeys.rs`: equal selectors of one namespace share a
//!   key; a Pod's Node and an HPA's target are identity keys): each set's kept members are
//!   moved, the added objects it matches put in (each added object is tested only against
//!   the keys its labels can match), and an identity whose first object was replaced is
//!   looked for again. Kept selections follow their keys' sets. Selector fields are
//!   recomputed only for the added objects, for workloads whose owned Pods changed (owners
//!   of those owners too: a workload leaves out Pods it owns through a ReplicaSet), and for
//!   Services and Pods whose finding counts what a key matches when that count went to or
//!   from zero (or the Nodes changed in number); a key none of the old ones is matched by
//!   scanning the per-object keys.
//! - the Terminating Namespace finding of a namespace that holds a change, from the
//!   objects of that namespace.
//! - app-label findings of the instances (part-of, name, instance) a change touches, over
//!   their members in every namespace.
//! - object-level validation of the added objects.
//!
//! Cluster-scoped objects (Nodes, Namespaces, ClusterRoles, PVs, CRs …) are handled like any
//! other: by key, not by namespace. Every other result is kept, its positions shifted.
//!
//! When no position moves (every run keeps its length: the usual edit), nothing is shifted
//! or re-indexed: the recomputed objects' owner edge groups are replaced in place, the old
//! findings are scanned once for those that go and the new ones spliced in where they
//! belong (with the reference findings, in `patch_refs`), and the selector edges are kept
//! as they are when every replaced object is a member of the same sets as the one before it
//! and the recomputed selections match what they matched before (else they are patched as
//! above). When positions move but every run keeps an object (objects added to a file or
//! taken out of it), the owner, selector and reference edges first move positions as
//! `resize.rs` says (a gap after each grown run, the last old objects of a shrunk run folded
//! into the last position it keeps; positions above move up or down in one pass) and the
//! findings' objects move alike (their order stays); all are then patched in place the
//! same way, each run's new positions replaced where they stand.
//!
//! It rebuilds only when the input is inconsistent: `replaced` does not describe the new
//! inventory (runs out of order or out of range, counts that do not add up), the graph has
//! no keys for its objects, or there are more than `u32::MAX` objects. The result of a patch
//! equals a full build (property-tested in `tests`).

use std::ops::Range;

use rustc_hash::FxHashMap;

use super::keys::{self, Key, KeyHash, Keys, RefKey};
use super::owners::{self, OwnerStats};
use super::refs::{merge_by, KeySet};
use super::selsets::SelectorEdges;
use super::setkeys::{self, Class};
use super::{
    apps, cycles, groups_for, lifecycle, positions_where, selectors, Adjacency, Edge, Graph, Parts,
    Resize, Shift,
};
use crate::diagnostic::{self, Diagnostic};
use crate::model::{Inventory, Object};

/// One run of objects replaced by a change (typically one file's objects).
#[derive(Clone, Copy, Debug)]
pub struct Replaced<'a> {
    /// Position of the first replaced object in the old inventory.
    pub at: usize,
    /// The objects that stood at `at..at + removed.len()` in the old inventory.
    pub removed: &'a [Object],
    /// How many objects stand in their place in the new inventory.
    pub added: usize,
}

/// What [`Graph::patch`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PatchOutcome {
    /// Recomputed the results of `objects` objects, looking at `looked_at` objects besides
    /// (owners they can name, what their selectors can pick, namespaces' contents).
    Patched { objects: usize, looked_at: usize },
    /// Rebuilt from scratch, and why.
    Rebuilt(&'static str),
}

/// What a patch recomputes about an object (bits of [`Plan::marks`]).
mod marks {
    /// Added by the change: everything.
    pub const ADDED: u8 = 1;
    /// Its ownerReferences are resolved again.
    pub const OWNED: u8 = 2;
    /// Its lifecycle findings.
    pub const LIFE: u8 = 4;
    /// Its selector fields.
    pub const SEL: u8 = 8;
    /// Its Terminating Namespace finding.
    pub const TERM: u8 = 16;
    /// All of the above.
    pub const ALL: u8 = ADDED | OWNED | LIFE | SEL | TERM;
}
use marks::*;

impl Graph {
    /// The graph of `inv`, which is the inventory this graph was built for with the runs
    /// `replaced` (ascending, not overlapping, in old positions) replaced. Equal to
    /// `Graph::build(inv)`, at a cost proportional to the results the change reaches plus
    /// a few linear passes over flat per-object arrays. Rebuilds only for inconsistent
    /// input (see the module documentation).
    pub fn patch(self, inv: &Inventory, replaced: &[Replaced<'_>]) -> (Graph, PatchOutcome) {
        // A run emptied (a file deleted or cleared) has no position left to patch in place:
        // it is widened by the object beside it, replaced by itself.
        let widened = widen_emptied(self.len, inv, replaced);
        let runs: Vec<Replaced<'_>>;
        let replaced = match &widened {
            Some(w) => {
                runs = w
                    .iter()
                    .map(|(at, removed, added)| Replaced {
                        at: *at,
                        removed,
                        added: *added,
                    })
                    .collect();
                &runs[..]
            }
            None => replaced,
        };
        let mut old = self;
        // The keys are spliced in place into the new graph's (a rebuild makes its own).
        let keys = std::mem::take(&mut old.keys);
        match Plan::new(old.len, keys, inv, replaced) {
            Ok(plan) => plan.apply(old, inv, replaced),
            Err(reason) => (Graph::build(inv), PatchOutcome::Rebuilt(reason)),
        }
    }
}

/// What the changed objects (removed and added) are, as keys.
#[derive(Default)]
struct Changed {
    /// Kind and name in their scope, in any namespace; uids.
    here: KeySet,
    anywhere: KeySet,
    uids: KeySet,
    /// Namespaces of the changed namespaced objects.
    namespaces: KeySet,
    /// Whether a cluster-scoped object changed.
    cluster: bool,
    /// App instances of the changed objects.
    instances: KeySet,
}

impl Changed {
    fn add(&mut self, o: &Object) {
        let k = Key::of(o);
        self.here.insert(k.ns_name);
        self.anywhere.insert(k.name);
        if k.uid != 0 {
            self.uids.insert(k.uid);
        }
        self.cluster |= k.ns == 0;
        if k.ns != 0 {
            self.namespaces.insert(k.ns);
        }
        if k.instance != 0 {
            self.instances.insert(k.instance);
        }
    }

    /// Whether ownerReference `r` can name a changed object in some scope (anywhere
    /// included): [`Changed::named_by`] then tells.
    fn may_be_named_by(&self, r: &RefKey) -> bool {
        self.here.contains(r.here)
            || self.here.contains(r.cluster)
            || (r.uid != 0 && self.uids.contains(r.uid))
            || self.anywhere.contains(r.anywhere)
    }

    /// Whether ownerReferences `refs` can name a changed object: in their scope or by uid;
    /// by kind and name anywhere when `anywhere` (a reference that did not resolve names
    /// where an owner of that name is).
    fn named_by(&self, refs: &[RefKey], anywhere: bool) -> bool {
        refs.iter().any(|r| {
            self.here.contains(r.here)
                || self.here.contains(r.cluster)
                || (r.uid != 0 && self.uids.contains(r.uid))
                || (anywhere && self.anywhere.contains(r.anywhere))
        })
    }
}

/// What a patch recomputes.
struct Plan {
    /// Per replaced run, ascending: its old positions and its new ones (the added
    /// objects').
    runs: Vec<(Range<usize>, Range<usize>)>,
    /// Keys of the new inventory.
    keys: Keys,
    changed: Changed,
    /// Per new position: what is recomputed (bits of `marks`).
    marks: Vec<u8>,
    /// New positions marked `OWNED`, ascending.
    owned: Vec<usize>,
    /// New positions marked `TERM` that are Terminating Namespaces, ascending.
    terminating: Vec<usize>,
    /// Where the `owned` objects' owners can be, what the `terminating` Namespaces hold,
    /// the members of the changed app instances.
    found: Found,
    /// Per new position: whether an ownerReference did not resolve before the change (an
    /// added object: no).
    unresolved: Vec<bool>,
}

impl Plan {
    /// `old_len` objects with `keys` (the graph's, taken from it) before the change.
    fn new(
        old_len: usize,
        mut keys: Keys,
        inv: &Inventory,
        replaced: &[Replaced<'_>],
    ) -> Result<Plan, &'static str> {
        let added = added_ranges(old_len, inv.objects.len(), replaced)?;
        if keys.objects.len() != old_len || keys.unresolved.len() != old_len {
            return Err("the graph has no keys for its objects");
        }
        let runs: Vec<(Range<usize>, Range<usize>)> = replaced
            .iter()
            .zip(&added)
            .map(|(r, a)| (r.at..r.at + r.removed.len(), a.clone()))
            .collect();
        let old_unresolved = std::mem::take(&mut keys.unresolved);
        keys.splice(&runs, &inv.objects);
        let mut changed = Changed::default();
        for o in replaced.iter().flat_map(|r| r.removed.iter()) {
            changed.add(o);
        }
        let mut marks = vec![0u8; inv.objects.len()];
        for i in added.iter().flat_map(Range::clone) {
            changed.add(&inv.objects[i]);
            marks[i] = ALL;
        }
        // Whether each object had an unresolved ownerReference before the change: the old
        // flags, each run's old objects' replaced by as many `false` as it has new objects.
        let mut unresolved = old_unresolved;
        for (gone, new) in runs.iter().rev() {
            unresolved.splice(gone.clone(), std::iter::repeat_n(false, new.len()));
        }
        // The added objects are recomputed whole (and a Terminating Namespace among them
        // lists what it holds).
        let mut owned: Vec<usize> = added.iter().flat_map(Range::clone).collect();
        let mut terminating = owned.clone();
        // The objects whose ownerReferences can name a changed object: one pass over the
        // references alone (not over every object's keys), an object's own read only for
        // a reference that may. (On one core: spread over both, while the label index
        // helper holds the second, it took longer.)
        let refs = keys.all_refs();
        let mut last = usize::MAX;
        for (j, r) in refs.iter().enumerate() {
            if !changed.may_be_named_by(r) {
                continue;
            }
            let i = keys.object_of_ref(j);
            if i == last || marks[i] != 0 {
                continue;
            }
            last = i;
            let anywhere = unresolved[i] || keys.objects.ns[i] == 0;
            if changed.named_by(keys.refs(i), anywhere) {
                marks[i] |= OWNED;
                owned.push(i);
            }
        }
        // Terminating Namespaces whose namespace holds a changed object.
        for i in keys.terminating() {
            let ns = keys.objects.terminating_ns[i];
            if marks[i] & ADDED == 0 && changed.namespaces.contains(ns) {
                marks[i] |= TERM;
                terminating.push(i);
            }
        }
        owned.sort_unstable();
        owned.dedup();
        terminating.sort_unstable();
        terminating.dedup();
        // Whatever an ownerReference of the recomputed objects can name.
        let mut context = Names::default();
        for &i in &owned {
            for r in keys.refs(i) {
                context.add(r.anywhere, r.uid);
            }
        }
        // Of those, the Terminating Namespaces: their finding lists what they hold.
        terminating.retain(|&i| {
            let o = &inv.objects[i];
            lifecycle::is_namespace(o) && lifecycle::namespace_terminating(o)
        });
        let mut scope = Scope::default();
        for &i in &terminating {
            scope.inside.insert(keys::ns_key(&inv.objects[i].id.name));
        }
        // One more pass: the owners those references can name, what the Terminating
        // Namespaces hold, and the members of the changed app instances.
        let found = scope.find(&keys, &changed.instances, &context);
        Ok(Plan {
            runs,
            keys,
            changed,
            marks,
            owned,
            terminating,
            found,
            unresolved,
        })
    }

    /// Recomputes what the plan covers and merges it with what `old` keeps.
    fn apply(
        self,
        mut old: Graph,
        inv: &Inventory,
        replaced: &[Replaced<'_>],
    ) -> (Graph, PatchOutcome) {
        let Plan {
            runs,
            keys,
            changed,
            mut marks,
            owned,
            terminating,
            found,
            mut unresolved,
        } = self;
        let n = inv.objects.len();
        let added: Vec<Range<usize>> = runs.iter().map(|(_, new)| new.clone()).collect();
        let shift = |old: usize| Shift(&runs).get(old);
        // The same runs read backwards: the old position of a kept object.
        let back: Vec<(Range<usize>, Range<usize>)> = runs
            .iter()
            .map(|(gone, new)| (new.clone(), gone.clone()))
            .collect();
        let old_at = |new: usize| Shift(&back).get(new);
        let mut ref_change = refs_scope(&old, replaced, &runs, &shift);
        let added_at = || added.iter().flat_map(Range::clone);
        let removed = || replaced.iter().flat_map(|r| r.removed.iter());

        // Owner edges belong to their dependent: kept edges of kept objects (shifted), then
        // the recomputed objects' edges. When no position moves (every run keeps its
        // length: the usual edit), the recomputed objects' groups are replaced in place.
        let (new_edges, mut findings, new_stats) =
            owners::resolve_among(inv, owned.iter().copied(), found.owners.iter().copied());
        let no_move = replaced
            .iter()
            .zip(&added)
            .all(|(r, a)| r.removed.len() == a.len());
        // Old owner edges of the recomputed and the removed objects, by old position.
        let removed_at = || replaced.iter().flat_map(|r| r.at..r.at + r.removed.len());
        let old_owner_edges: FxHashMap<usize, Vec<Edge>> = owned
            .iter()
            .filter_map(|&i| old_at(i))
            .chain(removed_at())
            .map(|o| (o, old.owners_of.get(o).to_vec()))
            .collect();
        // Runs that each keep an object: positions moved first (a gap after a grown run, a
        // shrunk run's last old objects folded into the last position it keeps; positions
        // above move in one pass), then every run's new positions are replaced in place.
        // `None`: a run was emptied.
        let resize = Resize::of(
            replaced
                .iter()
                .zip(&added)
                .map(|(r, a)| (r.at, r.removed.len(), a.len())),
        );
        let (owners_of, dependents_of) = if no_move {
            let mut adjacency = (
                std::mem::take(&mut old.owners_of),
                std::mem::take(&mut old.dependents_of),
            );
            owner_edges_in_place(&mut adjacency, &runs, &owned, new_edges, &marks);
            adjacency
        } else if let Some(resize) = &resize {
            let mut adjacency = (
                std::mem::take(&mut old.owners_of),
                std::mem::take(&mut old.dependents_of),
            );
            adjacency.0.resize(resize);
            adjacency.1.resize(resize);
            // The replaced runs now stand at their new positions.
            let standing: Vec<(Range<usize>, Range<usize>)> =
                added.iter().map(|a| (a.clone(), a.clone())).collect();
            owner_edges_in_place(&mut adjacency, &standing, &owned, new_edges, &marks);
            adjacency
        } else {
            let kept_edges = old.owners_of.all().iter().filter_map(|e| {
                let (from, to) = (shift(e.from_ix())?, shift(e.to_ix())?);
                (marks[to] & OWNED == 0).then_some(Edge::new(from, to, e.kind))
            });
            let edges: Vec<Edge> = kept_edges.chain(new_edges).collect();
            super::owner_adjacency(n, edges)
        };

        // Owners whose dependents changed (old or new edges): their lifecycle findings list
        // them, and a workload's selection leaves out the Pods it owns, directly or through
        // an owner it owns.
        let mut owners: Vec<usize> = owned
            .iter()
            .flat_map(|&i| owners_of.get(i))
            .map(|e| e.from_ix())
            .chain(
                old_owner_edges
                    .values()
                    .flatten()
                    .filter_map(|e| shift(e.from_ix())),
            )
            .collect();
        owners.sort_unstable();
        owners.dedup();
        let mut selecting: Vec<usize> = added_at().collect();
        for &w in &owners {
            marks[w] |= LIFE | SEL;
            selecting.push(w);
            for e in owners_of.get(w) {
                marks[e.from_ix()] |= SEL;
                selecting.push(e.from_ix());
            }
        }

        // Selector sets, each brought up to date with the changed objects. When every
        // replaced object is a member of the same sets as the one before it (same identity
        // and labels at the same position), no set changes: the selections are kept where
        // they are unless one of the recomputed ones differs.
        let same_sets = no_move
            && replaced.iter().zip(&added).all(|(r, a)| {
                r.removed
                    .iter()
                    .zip(a.clone())
                    .all(|(o, i)| setkeys::same_membership(o, &inv.objects[i]))
            });
        let kept = if same_sets {
            selecting.sort_unstable();
            selecting.dedup();
            keep_selections(inv, &old.selectors, &owners_of, &dependents_of, &selecting)
        } else {
            None
        };
        #[cfg(test)]
        PATHS.with(|p| {
            let mut c = p.get();
            c[usize::from(no_move) + usize::from(kept.is_some())] += 1;
            p.set(c);
        });
        let (selectors, sel_findings, scanned) = match kept {
            Some(found) => (std::mem::take(&mut old.selectors), found, 0),
            None => {
                let old_selectors = std::mem::take(&mut old.selectors);
                let removed_objects: Vec<&Object> = removed().collect();
                let added_runs = &added;
                let added: Vec<usize> = added_at().collect();
                let adjacency = (&owners_of, &dependents_of);
                // Runs that each keep an object: positions moved first, every run's new
                // positions are replaced where they stand (no position moves).
                if let Some(resize) = &resize {
                    let mut old_selectors = old_selectors;
                    if !no_move {
                        old_selectors.resize(resize);
                        #[cfg(test)]
                        PATHS.with(|p| {
                            let mut c = p.get();
                            c[3] += 1;
                            if replaced
                                .iter()
                                .zip(added_runs)
                                .any(|(r, a)| r.removed.len() > a.len())
                            {
                                c[5] += 1;
                            }
                            p.set(c);
                        });
                    }
                    let in_place = |p: usize| {
                        let replaced = added_runs.iter().any(|a| a.contains(&p));
                        (!replaced).then_some(p)
                    };
                    patch_selections_in_place(
                        inv,
                        &keys,
                        old_selectors,
                        &in_place,
                        (&added, &removed_objects),
                        (&mut marks, selecting),
                        adjacency,
                    )
                } else {
                    patch_selections(
                        inv,
                        &keys,
                        old_selectors,
                        &shift,
                        &added,
                        &removed_objects,
                        (&mut marks, selecting),
                        adjacency,
                    )
                }
            }
        };
        findings.extend(sel_findings);

        // Old findings: kept unless recomputed.
        let mut old_ref_findings = Vec::new();
        let mut in_cycles = Vec::new();
        // Old position → dangling references, of the objects whose counts are redone.
        let mut dangling: FxHashMap<usize, usize> = FxHashMap::default();
        let in_instance = |i: usize| changed.instances.contains(keys.objects.instance[i]);
        // The new position of an old finding's object if the finding stays.
        let mut stays = |f: &Diagnostic| -> Option<usize> {
            let o = f.object_index()?;
            let new = shift(o);
            if f.code == owners::DANGLING && new.is_none_or(|i| marks[i] & OWNED != 0) {
                *dangling.entry(o).or_default() += 1;
            }
            let i = new?;
            if f.code == cycles::CODE {
                in_cycles.push(i);
                None
            } else if f.code == apps::DISAGREEMENT {
                (!in_instance(i)).then_some(i)
            } else {
                (marks[i] == 0 || !recomputed_by(f.code, marks[i])).then_some(i)
            }
        };
        let mut old_findings = std::mem::take(&mut old.findings);
        let mut kept = Vec::new();
        // Positions in `old_findings` of those that go (when they stay where they are).
        let mut dropped: Vec<usize> = Vec::new();
        if resize.is_some() {
            // When runs change length, every finding that stays keeps its place in the list
            // and its object moves (moving is monotonic: the order stays). The reference
            // findings go through the same test (it keeps those of every kept object: their
            // codes are recomputed by no mark), and `patch_refs` drops those it redoes:
            // their codes are read only there, for the objects it relinks.
            for (k, f) in old_findings.iter_mut().enumerate() {
                match stays(f) {
                    None => dropped.push(k),
                    Some(i) if !no_move => f.object = u32::try_from(i).ok(),
                    Some(_) => {}
                }
            }
        } else {
            kept.reserve(old_findings.len());
            for f in std::mem::take(&mut old_findings) {
                if super::refs::is_ref_finding(f.code) {
                    old_ref_findings.push(f);
                } else if let Some(i) = stays(&f) {
                    kept.push(f.about(i));
                }
            }
        }

        // Reference counts by namespace: the recomputed objects' old counts out, new in.
        let mut stats = std::mem::take(&mut old.stats_by_ns);
        let mut take_away = |o: usize, obj: &Object| {
            if obj.owner_refs().is_empty() {
                return;
            }
            let d = dangling.get(&o).copied().unwrap_or(0);
            let edges = old_owner_edges.get(&o).map_or(&[][..], Vec::as_slice);
            let s = OwnerStats::of_object(edges, d, obj.owner_refs().len());
            if let Some(e) = stats.get_mut(&owners::stats_ns(obj)) {
                *e = e.minus(&s);
            }
        };
        for r in replaced {
            for (k, obj) in r.removed.iter().enumerate() {
                take_away(r.at + k, obj);
            }
        }
        for &i in owned.iter().filter(|&&i| marks[i] & ADDED == 0) {
            if let Some(o) = old_at(i) {
                take_away(o, &inv.objects[i]);
            }
        }
        for (ns, s) in new_stats {
            let e = stats.entry(ns).or_default();
            *e = e.plus(&s);
        }
        stats.retain(|_, s| !s.is_zero());

        // Lifecycle, cycles.
        let mut life: Vec<usize> = added_at().chain(owners.iter().copied()).collect();
        life.sort_unstable();
        life.dedup();
        for &i in &life {
            lifecycle::object_findings(inv, i, &dependents_of, &mut findings);
        }
        let mut starts: Vec<usize> = owned.iter().copied().chain(in_cycles).collect();
        starts.sort_unstable();
        starts.dedup();
        findings.extend(cycles::findings_from(
            inv,
            &dependents_of,
            starts.into_iter(),
        ));

        // What Terminating Namespaces and app instances hold.
        for &i in &terminating {
            let inside = found.inside.iter().copied();
            findings.push(lifecycle::namespace_finding(inv, i, inside));
        }
        if !changed.instances.is_empty() {
            findings.extend(apps::findings_among(inv, found.members.iter().copied()));
        }
        findings.extend(validation(inv, added_at()));

        let outcome = PatchOutcome::Patched {
            objects: marks.iter().filter(|&&m| m != 0).count(),
            looked_at: found.owners.len() + scanned + found.inside.len() + found.members.len(),
        };
        let old_refs = std::mem::take(&mut old.refs);
        let graph = if resize.is_some() {
            // The old findings where they are, the recomputed ones taken out, the new put in.
            diagnostic::sort(&mut findings);
            for &i in &owned {
                unresolved[i] = false;
            }
            for f in &findings {
                if let (Some(i), owners::DANGLING | owners::OTHER_NAMESPACE) =
                    (f.object_index(), f.code)
                {
                    unresolved[i] = true;
                }
            }
            // Spliced in with the reference findings' changes by `patch_refs`.
            ref_change.findings = Some(super::refs::FindingsChange {
                dropped,
                new: findings,
            });
            let mut keys = keys;
            keys.unresolved = unresolved;
            Graph {
                len: n,
                owners_of,
                dependents_of,
                selectors,
                findings: old_findings,
                stats_by_ns: stats,
                keys,
                refs: super::refs::RefGraph::default(),
            }
        } else {
            findings.append(&mut kept);
            let parts = Parts {
                selections: Default::default(),
                findings,
                app_findings: Vec::new(),
                stats_by_ns: stats,
            };
            Graph::assemble_with(n, parts, keys, (owners_of, dependents_of), selectors)
        };
        let graph = graph.patch_refs(inv, old_refs, old_ref_findings, ref_change);
        (graph, outcome)
    }
}

/// Replaces, in place, the owner edges of the `owned` objects (ascending) by `new` (theirs,
/// grouped by dependent, ascending), and drops the edges from the owners the replaced
/// `runs` held (where they stand: each run's old and new positions are the same, and no
/// position moved outside them): what a rebuild of the adjacency from the kept and the new
/// edges gives when no position moves.
fn owner_edges_in_place(
    (owners_of, dependents_of): &mut (Adjacency, Adjacency),
    runs: &[(Range<usize>, Range<usize>)],
    owned: &[usize],
    new: Vec<Edge>,
    marks: &[u8],
) {
    let n = owners_of.offsets.len().saturating_sub(1);
    let is_replaced = |i: usize| i >= n || Shift(runs).get(i).is_none();
    let recomputed = |i: usize| marks[i] & OWNED != 0;
    let kept = |e: &&Edge| !recomputed(e.to_ix()) && !is_replaced(e.from_ix());
    // Dependents whose group changes: the recomputed ones, and those of a replaced owner.
    let mut dependents: Vec<usize> = owned.to_vec();
    for i in runs.iter().flat_map(|(gone, _)| gone.clone()) {
        dependents.extend(dependents_of.get(i).iter().map(|e| e.to_ix()));
    }
    dependents.sort_unstable();
    dependents.dedup();
    // Owners whose group changes: of the old edges of those dependents, and of the new.
    let mut owners: Vec<usize> = dependents
        .iter()
        .flat_map(|&i| owners_of.get(i))
        .map(|e| e.from_ix())
        .chain(new.iter().map(|e| e.from_ix()))
        .collect();
    owners.sort_unstable();
    owners.dedup();
    // Stable: each owner's new edges stay by dependent, in ownerReference order.
    let mut by_owner = new.clone();
    by_owner.sort_by_key(|e| e.from);
    let by_owner = by_owner.into_iter().map(|e| (e.from_ix(), e));
    let groups = groups_for(&owners, by_owner)
        .into_iter()
        .map(|(w, fresh)| {
            let old: Vec<Edge> = dependents_of.get(w).iter().filter(kept).copied().collect();
            (w, merge_by(old, fresh, |e| e.to_ix()))
        })
        .collect();
    dependents_of.replace_groups(groups);
    // The recomputed dependents take their new edges, the others keep what stays.
    let groups = groups_for(&dependents, new.into_iter().map(|e| (e.to_ix(), e)))
        .into_iter()
        .map(|(i, fresh)| {
            let group = if recomputed(i) {
                fresh
            } else {
                owners_of.get(i).iter().filter(kept).copied().collect()
            };
            (i, group)
        })
        .collect();
    owners_of.replace_groups(groups);
}

/// The selector findings of `selecting` (ascending) when their fields, matched again
/// against the keys they matched before, select what they did (no set changed, no
/// position moved): then `old` stays as it is. `None` when one differs.
fn keep_selections(
    inv: &Inventory,
    old: &SelectorEdges,
    owners_of: &Adjacency,
    dependents_of: &Adjacency,
    selecting: &[usize],
) -> Option<Vec<Diagnostic>> {
    let (known, ids) = old.known(selecting);
    let (found, findings) = selectors::resolve_known(
        inv,
        owners_of,
        dependents_of,
        selecting.iter().copied(),
        known,
    )?;
    let mut rest = &found.list[..];
    for &i in selecting {
        let k = rest.partition_point(|s| s.from <= i);
        if !old.same_as(i, &rest[..k], &ids) {
            return None;
        }
        rest = &rest[k..];
    }
    rest.is_empty().then_some(findings)
}

/// Selector sets, each brought up to date with the changed objects. Selections are
/// recomputed for `selecting` (the added objects, and the owners whose dependents changed:
/// a workload leaves out the Pods it owns), and the objects whose findings count what a key
/// matches when that count went to or from zero (or the Nodes changed in number), marked
/// `SEL` here; the others are kept. Also returns the selector findings of the recomputed
/// objects and how many objects the scans for new keys collected.
#[allow(clippy::too_many_arguments)]
fn patch_selections(
    inv: &Inventory,
    keys: &Keys,
    old: SelectorEdges,
    shift: &dyn Fn(usize) -> Option<usize>,
    added: &[usize],
    removed: &[&Object],
    (marks, mut selecting): (&mut [u8], Vec<usize>),
    (owners_of, dependents_of): (&Adjacency, &Adjacency),
) -> (SelectorEdges, Vec<Diagnostic>, usize) {
    let mut sets = old.into_selections();
    let changes = setkeys::patch_sets(inv, keys, &mut sets, (shift, None), added);
    let nodes = nodes_after(inv, sets.nodes, added, removed);
    let recount = nodes != sets.nodes;
    sets.nodes = nodes;
    for s in &sets.list {
        let k = s.key as usize;
        let flipped = changes.flipped(s.key);
        if !flipped && !recount {
            continue;
        }
        let class = sets.keys[k].key.class();
        let Some(i) = shift(s.from).filter(|&i| marks[i] & SEL == 0) else {
            continue;
        };
        if (flipped || (recount && class == Class::Nodes))
            && selectors::counts_matches(&inv.objects[i], class)
        {
            marks[i] |= SEL;
            selecting.push(i);
        }
    }
    selecting.sort_unstable();
    selecting.dedup();
    sets.move_selections(|f| shift(f).filter(|&i| marks[i] & SEL == 0), shift);
    let (merged, findings, scanned) = selectors::resolve_patched(
        inv,
        keys,
        (owners_of, dependents_of),
        selecting.iter().copied(),
        sets,
        None,
    );
    (
        SelectorEdges::build(inv.objects.len(), merged),
        findings,
        scanned,
    )
}

/// [`patch_selections`] when no position moves (the added objects stand where the
/// replaced ones did): the sets that can lose a member are those holding a replaced object,
/// and the selector edges are patched where they are (`selsets/splice.rs`) instead of taken
/// apart and built again. When the Nodes change in number (a Pod's finding counts them),
/// the selections of every Nodes key that count what they match are recomputed too, as the
/// general patch does.
fn patch_selections_in_place(
    inv: &Inventory,
    keys: &Keys,
    mut old: SelectorEdges,
    shift: &dyn Fn(usize) -> Option<usize>,
    (added, removed): (&[usize], &[&Object]),
    (marks, mut selecting): (&mut [u8], Vec<usize>),
    (owners_of, dependents_of): (&Adjacency, &Adjacency),
) -> (SelectorEdges, Vec<Diagnostic>, usize) {
    let (mut sets, dirty) = old.take_keyed(added.iter().copied());
    let old_keys = sets.keys.len();
    let changes = setkeys::patch_sets(inv, keys, &mut sets, (shift, Some(&dirty)), added);
    let nodes = nodes_after(inv, sets.nodes, added, removed);
    let recount = nodes != sets.nodes;
    sets.nodes = nodes;
    #[cfg(test)]
    if recount {
        PATHS.with(|p| {
            let mut c = p.get();
            c[4] += 1;
            p.set(c);
        });
    }
    // The keys whose findings may count otherwise: those whose set went to or from empty
    // and, when the Nodes changed in number, every Nodes key (a key's class is read only
    // then: reading it for every key touched all of them on every edit, BENCHMARKS.md).
    let redo: Vec<u32> = if recount {
        (0..old_keys as u32)
            .filter(|&k| changes.flipped(k) || sets.keys[k as usize].key.class() == Class::Nodes)
            .collect()
    } else {
        changes.flipped.clone()
    };
    for k in redo {
        let Some(keyed) = sets.keys.get(k as usize) else {
            continue;
        };
        let class = keyed.key.class();
        for i in old.users_of(k, changes.set_before(k, keyed.set)) {
            if marks[i] & SEL == 0 && selectors::counts_matches(&inv.objects[i], class) {
                marks[i] |= SEL;
                selecting.push(i);
            }
        }
    }
    selecting.sort_unstable();
    selecting.dedup();
    let known = old.keys_of(&selecting);
    let (merged, findings, scanned) = selectors::resolve_patched(
        inv,
        keys,
        (owners_of, dependents_of),
        selecting.iter().copied(),
        sets,
        Some(&known),
    );
    (
        old.splice(
            merged,
            &selecting,
            (&dirty, &changes.repointed, old_keys),
            added,
        ),
        findings,
        scanned,
    )
}

/// How many Nodes there are once `removed` are replaced by `added` (new positions), from
/// the `nodes` there were.
fn nodes_after(inv: &Inventory, nodes: usize, added: &[usize], removed: &[&Object]) -> usize {
    let is_node = |o: &Object| o.id.group.is_empty() && &*o.id.kind == "Node";
    let gained = added.iter().filter(|&&i| is_node(&inv.objects[i])).count();
    (nodes + gained).saturating_sub(removed.iter().filter(|o| is_node(o)).count())
}

/// Takes the findings at positions `dropped` (ascending) out of the sorted `findings` and
/// puts the sorted `new` in, touching only the stretch between the first and the last
/// place that changes (usually one file's findings): nothing else moves unless the count
/// changes.
pub(super) fn splice_findings(
    findings: &mut Vec<Diagnostic>,
    dropped: &[usize],
    new: Vec<Diagnostic>,
) {
    let (mut lo, mut hi) = match (dropped.first(), dropped.last()) {
        (Some(&a), Some(&b)) => (a, b + 1),
        _ => (usize::MAX, 0),
    };
    if let (Some(first), Some(last)) = (new.first(), new.last()) {
        lo = lo.min(findings.partition_point(|f| f < first));
        hi = hi.max(findings.partition_point(|f| f <= last));
    }
    if lo > hi {
        return;
    }
    let mut gone = dropped.iter().peekable();
    let mut window: Vec<Diagnostic> = Vec::with_capacity(hi - lo + new.len());
    for (k, f) in findings[lo..hi].iter().enumerate() {
        if gone.next_if(|&&d| d == lo + k).is_none() {
            window.push(f.clone());
        }
    }
    window.extend(new);
    diagnostic::sort(&mut window);
    findings.splice(lo..hi, window);
}

/// Whether a finding with `code` about an object with marks `m` is recomputed.
fn recomputed_by(code: &str, m: u8) -> bool {
    (m & OWNED != 0 && owners::CODES.contains(&code))
        || (m & LIFE != 0 && lifecycle::OBJECT_CODES.contains(&code))
        || (m & SEL != 0 && selectors::CODES.contains(&code))
        || (m & TERM != 0 && code == lifecycle::NAMESPACE_TERMINATING)
}

/// Object-level validation findings of the objects at `positions` (they depend on the
/// object alone).
fn validation(inv: &Inventory, positions: impl Iterator<Item = usize>) -> Vec<Diagnostic> {
    let at: Vec<usize> = positions.collect();
    if at.is_empty() {
        return Vec::new();
    }
    let sub = Inventory::of(
        at.iter().map(|&i| inv.objects[i].clone()).collect(),
        inv.kinds.clone(),
    );
    crate::validate::objects::findings(&sub)
        .into_iter()
        .filter_map(|f| {
            let i = *at.get(f.object_index()?)?;
            Some(f.about(i))
        })
        .collect()
}

/// What the reference patch needs: the replaced runs, and the objects that selected a
/// replaced object before the change (a Service's target ports read its selection).
fn refs_scope<'a>(
    old: &Graph,
    replaced: &[Replaced<'a>],
    runs: &[(Range<usize>, Range<usize>)],
    shift: &dyn Fn(usize) -> Option<usize>,
) -> super::refs::RefChange<'a> {
    let removed_at = replaced.iter().flat_map(|r| r.at..r.at + r.removed.len());
    super::refs::RefChange {
        findings: None,
        runs: runs.to_vec(),
        removed: replaced.iter().map(|r| r.removed).collect(),
        selected_removed: removed_at
            .flat_map(|o| old.selected_by(o))
            .filter_map(|e| shift(e.from_ix()))
            .collect(),
    }
}

/// What to look for in one pass over the keys.
#[derive(Default)]
struct Scope {
    /// Namespaces whose contents a Terminating Namespace's finding lists.
    inside: KeySet,
}

/// What [`Scope::find`] found, each ascending.
#[derive(Default)]
struct Found {
    /// Objects an ownerReference of the recomputed objects can name.
    owners: Vec<usize>,
    inside: Vec<usize>,
    /// Members of the changed app instances.
    members: Vec<usize>,
}

impl Scope {
    /// In one pass over the keys: what the Terminating Namespaces hold, the members of
    /// `instances`, and the objects `names` can name.
    fn find(&self, keys: &Keys, instances: &KeySet, names: &Names) -> Found {
        let mut found = Found::default();
        if self.inside.is_empty() && instances.is_empty() && names.is_empty() {
            return found;
        }
        // Each field read only when something is looked for through it, on every core.
        let k = &keys.objects;
        if !names.is_empty() {
            let by_name = positions_where(&k.name, |&name| names.names.contains(name));
            let by_uid = if names.uids.is_empty() {
                Vec::new()
            } else {
                positions_where(&k.uid, |&uid| uid != 0 && names.uids.contains(uid))
            };
            found.owners = merge_positions(by_name, by_uid);
        }
        if !self.inside.is_empty() {
            found.inside = positions_where(&k.ns, |&ns| ns != 0 && self.inside.contains(ns));
        }
        if !instances.is_empty() {
            found.members = positions_where(&k.instance, |&m| m != 0 && instances.contains(m));
        }
        found
    }
}

/// `replaced` (runs of an inventory of `old_len` objects, `inv` after them) with every
/// emptied run widened by a kept object beside it, replaced by itself (the one before it, or
/// at the start the one after it), or joined to the run before it when they touch: as old
/// start, removed objects, added count. `None` when no run was emptied, or one has no
/// object beside it (what is left is small, or empty).
fn widen_emptied(
    old_len: usize,
    inv: &Inventory,
    replaced: &[Replaced<'_>],
) -> Option<Vec<(usize, Vec<Object>, usize)>> {
    let emptied = |r: &Replaced<'_>| r.added == 0 && !r.removed.is_empty();
    if !replaced.iter().any(emptied) {
        return None;
    }
    let mut out: Vec<(usize, Vec<Object>, usize)> = Vec::with_capacity(replaced.len());
    // New minus old position before the run at hand.
    let mut delta = 0isize;
    for (k, r) in replaced.iter().enumerate() {
        let touches = out
            .last()
            .is_some_and(|(at, removed, _)| at + removed.len() == r.at);
        match out.last_mut() {
            Some((_, removed, _)) if emptied(r) && touches => {
                removed.extend_from_slice(r.removed);
            }
            _ if emptied(r) && r.at > 0 => {
                let before = inv.objects.get((r.at - 1).checked_add_signed(delta)?)?;
                let mut removed = vec![before.clone()];
                removed.extend_from_slice(r.removed);
                out.push((r.at - 1, removed, 1));
            }
            _ if emptied(r) => {
                // At the start: the object after it, unless another run starts there.
                let after = r.removed.len();
                if after >= old_len || replaced.get(k + 1).is_some_and(|n| n.at == after) {
                    return None;
                }
                let mut removed = r.removed.to_vec();
                removed.push(inv.objects.first()?.clone());
                out.push((r.at, removed, 1));
            }
            _ => out.push((r.at, r.removed.to_vec(), r.added)),
        }
        delta += r.added as isize - r.removed.len() as isize;
    }
    #[cfg(test)]
    WIDENED.with(|c| c.set(c.get() + 1));
    Some(out)
}

/// The ranges the added objects occupy in the new inventory. Fails when `replaced` does not
/// describe `old_len` → `new_len`.
fn added_ranges(
    old_len: usize,
    new_len: usize,
    replaced: &[Replaced<'_>],
) -> Result<Vec<Range<usize>>, &'static str> {
    if u32::try_from(old_len.max(new_len)).is_err() {
        return Err("too many objects");
    }
    let mut added = Vec::with_capacity(replaced.len());
    // The old position up to which objects are accounted for, and where they now end.
    let (mut old_pos, mut new_pos) = (0usize, 0usize);
    for r in replaced {
        if r.at < old_pos || r.at + r.removed.len() > old_len {
            return Err("replaced runs out of order or out of range");
        }
        new_pos += r.at - old_pos;
        added.push(new_pos..new_pos + r.added);
        new_pos += r.added;
        old_pos = r.at + r.removed.len();
    }
    if new_pos + (old_len - old_pos) != new_len {
        return Err("replaced runs do not add up to the new inventory");
    }
    Ok(added)
}

/// The ascending positions of `a` and of `b`, each once.
fn merge_positions(a: Vec<usize>, b: Vec<usize>) -> Vec<usize> {
    if b.is_empty() {
        return a;
    }
    let mut out = merge_by(a, b, |&i| i);
    out.dedup();
    out
}

/// Name keys and uid keys (see `keys.rs`), to find ownerReferences between objects.
#[derive(Default)]
struct Names {
    names: KeySet,
    uids: KeySet,
}

impl Names {
    fn add(&mut self, name: KeyHash, uid: KeyHash) {
        self.names.insert(name);
        if uid != 0 {
            self.uids.insert(uid);
        }
    }

    fn is_empty(&self) -> bool {
        self.names.is_empty() && self.uids.is_empty()
    }
}

#[cfg(test)]
thread_local! {
    /// Patches by path taken: positions moved; none moved, selections redone; none moved,
    /// selections kept where they were.
    /// Then: patches that moved positions and patched the selections in place after
    /// resizing runs.
    /// Then: patches in place (no position moved, or runs resized) that recounted the Nodes.
    /// Last: resized patches (as the fourth) in which a run shrank.
    static PATHS: std::cell::Cell<[usize; 6]> = const { std::cell::Cell::new([0; 6]) };
    /// Patches whose emptied runs were widened by an object beside them.
    static WIDENED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The runs a change of whole files makes (tests): file `f` of `before` — files of
/// `before_files[f].len()` objects each, in order — replaced by `after_files[f]`, for each
/// `f` in `changed`.
#[cfg(test)]
pub(crate) fn replaced_files<'a, T>(
    before: &'a Inventory,
    before_files: &[Vec<T>],
    after_files: &[Vec<T>],
    changed: &[usize],
) -> Vec<Replaced<'a>> {
    let mut replaced = Vec::new();
    let mut at = 0;
    for (f, docs) in before_files.iter().enumerate() {
        if changed.contains(&f) {
            replaced.push(Replaced {
                at,
                removed: &before.objects[at..at + docs.len()],
                added: after_files[f].len(),
            });
        }
        at += docs.len();
    }
    replaced
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::{json, Value};

    use super::*;

    /// A tiny deterministic generator, so one proptest seed spans a whole scenario.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
        fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
            from[self.below(from.len())]
        }
        fn chance(&mut self, percent: u64) -> bool {
            self.next() % 100 < percent
        }
    }

    const KINDS: &[(&str, &str)] = &[
        ("v1", "Pod"),
        ("v1", "Pod"),
        ("apps/v1", "ReplicaSet"),
        ("apps/v1", "Deployment"),
        ("v1", "Service"),
        ("v1", "Service"),
        ("v1", "ConfigMap"),
        ("policy/v1", "PodDisruptionBudget"),
        ("networking.k8s.io/v1", "NetworkPolicy"),
        ("v1", "Namespace"),
        ("v1", "Node"),
        ("rbac.authorization.k8s.io/v1", "ClusterRole"),
        ("v1", "Secret"),
        ("v1", "ServiceAccount"),
        ("rbac.authorization.k8s.io/v1", "RoleBinding"),
        ("rbac.authorization.k8s.io/v1", "Role"),
        ("networking.k8s.io/v1", "Ingress"),
    ];
    const NAMES: &[&str] = &["web", "db", "x", "a", "b"];
    const NAMESPACES: &[&str] = &["a", "b", "c", "d"];
    const UIDS: &[&str] = &["u1", "u2", "u3", "u4", "u5", "u6"];

    fn labels(rng: &mut Rng) -> Value {
        let mut m = serde_json::Map::new();
        for (key, values) in [
            ("app", &["web", "db"][..]),
            ("tier", &["fe", "be"][..]),
            (apps::NAME, &["web", "db"][..]),
            (apps::INSTANCE, &["i1", "i2"][..]),
            (apps::VERSION, &["1", "2"][..]),
            (apps::MANAGED_BY, &["helm", "kubectl"][..]),
        ] {
            if rng.chance(40) {
                m.insert(key.into(), rng.pick(values).into());
            }
        }
        Value::Object(m)
    }

    /// Kinds of [`KINDS`] that are namespaced.
    const NAMESPACED_KINDS: &[(&str, &str)] = &[
        ("v1", "Pod"),
        ("apps/v1", "ReplicaSet"),
        ("apps/v1", "Deployment"),
        ("v1", "Service"),
        ("v1", "ConfigMap"),
        ("policy/v1", "PodDisruptionBudget"),
        ("networking.k8s.io/v1", "NetworkPolicy"),
    ];

    /// Kinds of the `Selection` scenario: mostly Pods and what selects them.
    const SELECTION_KINDS: &[(&str, &str)] = &[
        ("v1", "Pod"),
        ("v1", "Pod"),
        ("v1", "Pod"),
        ("apps/v1", "ReplicaSet"),
        ("apps/v1", "Deployment"),
        ("v1", "Service"),
        ("policy/v1", "PodDisruptionBudget"),
        ("networking.k8s.io/v1", "NetworkPolicy"),
        ("autoscaling/v2", "HorizontalPodAutoscaler"),
        ("v1", "Node"),
    ];

    /// What a scenario's changed objects may be.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    enum Scenario {
        /// Any kind, scope and ownerReference.
        Any,
        /// A first file, never changed, holds Namespaces `a`–`d`, most of them Terminating;
        /// the other files hold namespaced objects naming namespaced owners only.
        TerminatingNamespaces,
        /// The hard cases: a first file of Namespaces (flipping Terminating) and Nodes that
        /// the change may replace; most objects in namespace `a`; Pods on Nodes (by
        /// `nodeName`, node selector, or owned by their Node like mirror Pods); uids shared
        /// across namespaces.
        Cluster,
        /// Selector sets patched rather than matched again: a first file of Namespaces and
        /// Nodes (names shared, so an identity's first object moves) the change may
        /// replace; most objects Pods and what selects them (HPAs too) in namespace `a`;
        /// changes mostly edit labels, so kept selectors gain and lose members and objects
        /// move between their sets.
        Selection,
    }

    fn object(rng: &mut Rng) -> Value {
        object_of(rng, Scenario::Any)
    }

    fn object_of(rng: &mut Rng, scenario: Scenario) -> Value {
        let kinds = match scenario {
            Scenario::Any | Scenario::Cluster => KINDS,
            Scenario::Selection => SELECTION_KINDS,
            Scenario::TerminatingNamespaces => NAMESPACED_KINDS,
        };
        let (api, kind) = kinds[rng.below(kinds.len())];
        let name = rng.pick(NAMES);
        let mut meta = json!({"name": name, "labels": labels(rng)});
        if matches!(scenario, Scenario::Cluster | Scenario::Selection) && rng.chance(80) {
            meta["namespace"] = "a".into();
        } else if scenario != Scenario::Any || rng.chance(85) {
            meta["namespace"] = rng.pick(NAMESPACES).into();
        }
        if rng.chance(60) {
            meta["uid"] = rng.pick(UIDS).into();
        }
        let refs: Vec<Value> = (0..rng.below(3))
            .map(|_| {
                let (api, kind) = kinds[rng.below(kinds.len())];
                let mut r = json!({"apiVersion": api, "kind": kind, "name": rng.pick(NAMES)});
                if rng.chance(50) {
                    r["uid"] = rng.pick(UIDS).into();
                }
                if rng.chance(50) {
                    r["controller"] = true.into();
                }
                if rng.chance(30) {
                    r["blockOwnerDeletion"] = true.into();
                }
                r
            })
            .collect();
        let mut refs = refs;
        if scenario == Scenario::Cluster && rng.chance(40) {
            // A mirror Pod's owner: its Node (cluster-scoped), often by uid.
            let mut r = json!({"apiVersion": "v1", "kind": "Node", "name": rng.pick(NAMES),
                "controller": true});
            if rng.chance(50) {
                r["uid"] = rng.pick(UIDS).into();
            }
            refs.push(r);
        }
        if !refs.is_empty() {
            meta["ownerReferences"] = refs.into();
        }
        if rng.chance(15) {
            meta["finalizers"] = json!([rng.pick(&["foregroundDeletion", "orphan", "x.io/y"])]);
        }
        if rng.chance(15) {
            meta["deletionTimestamp"] = "2024-01-01T00:00:00Z".into();
        }
        let mut o = json!({"apiVersion": api, "kind": kind, "metadata": meta});
        let spec = spec(rng, kind);
        if !spec.is_null() {
            o["spec"] = spec;
        }
        if kind == "RoleBinding" {
            o["roleRef"] = json!({"kind": "Role", "name": rng.pick(NAMES)});
            o["subjects"] = json!([{"kind": "ServiceAccount", "name": rng.pick(NAMES),
                "namespace": rng.pick(NAMESPACES)}]);
        }
        o
    }

    /// A `metav1.LabelSelector` for `app`, written one of several ways: most pick the same
    /// objects as `{matchLabels: {app: …}}`, so many selectors share one matched set,
    /// equal or not.
    fn label_selector(rng: &mut Rng, app: &str) -> Value {
        let other = if app == "web" { "db" } else { "web" };
        match rng.below(6) {
            0 | 1 => json!({"matchLabels": {"app": app}}),
            2 => json!({"matchExpressions": [{"key": "app", "operator": "In", "values": [app]}]}),
            3 => {
                json!({"matchExpressions": [{"key": "app", "operator": "In", "values": [other, app, app]}]})
            }
            4 => json!({"matchExpressions": [{"key": "app", "operator": "Exists"}]}),
            _ => json!({"matchLabels": {"app": app},
                "matchExpressions": [{"key": "tier", "operator": "NotIn", "values": ["be"]}]}),
        }
    }

    /// A spec with the kind's selector (or reference) fields.
    fn spec(rng: &mut Rng, kind: &str) -> Value {
        let app = rng.pick(&["web", "db"]);
        match kind {
            "Service" => json!({"selector": {"app": app},
                "ports": [{"port": 80, "targetPort": rng.pick(&["http", "m"])}]}),
            "ReplicaSet" | "Deployment" => json!({
                "selector": label_selector(rng, app),
                "template": {"metadata": {"labels": {"app": rng.pick(&["web", "db"])}},
                    "spec": pod_spec(rng)}}),
            "Pod" if rng.chance(35) => json!({"nodeName": rng.pick(&["web", "x"])}),
            "Pod" if rng.chance(50) => json!({"nodeSelector": {"app": app}}),
            "Pod" => pod_spec(rng),
            "Ingress" => json!({"rules": [{"http": {"paths": [{"backend": {"service": {
                "name": rng.pick(NAMES), "port": {"number": if rng.chance(50) { 80 } else { 81 }}}}}]}}]}),
            "NetworkPolicy" => json!({
                "podSelector": label_selector(rng, app),
                "ingress": [{"from": [
                    {"namespaceSelector": label_selector(rng, app)},
                    {"namespaceSelector": {"matchLabels": {"app": app}}}]}]}),
            "PodDisruptionBudget" => json!({"selector": label_selector(rng, app)}),
            "HorizontalPodAutoscaler" => json!({"scaleTargetRef": {"apiVersion": "apps/v1",
                "kind": rng.pick(&["Deployment", "ReplicaSet"]), "name": rng.pick(NAMES)}}),
            _ => Value::Null,
        }
    }

    /// An edit of one field of `o` that links it: its selector, its labels or its namespace.
    fn edit(rng: &mut Rng, o: &mut Value) {
        match rng.below(3) {
            0 => {
                let kind = o["kind"].as_str().unwrap_or("").to_string();
                let spec = spec(rng, &kind);
                if spec.is_null() {
                    o.as_object_mut().map(|m| m.remove("spec"));
                } else {
                    o["spec"] = spec;
                }
            }
            1 => o["metadata"]["labels"] = labels(rng),
            _ => o["metadata"]["namespace"] = rng.pick(NAMESPACES).into(),
        }
    }

    /// A pod spec naming a ConfigMap, a Secret and a ServiceAccount, with a named port.
    fn pod_spec(rng: &mut Rng) -> Value {
        json!({"serviceAccountName": rng.pick(NAMES),
            "volumes": [{"name": "v", "configMap": {"name": rng.pick(NAMES)}}],
            "containers": [{"name": "c", "envFrom": [{"secretRef": {"name": rng.pick(NAMES)}}],
                "ports": [{"name": rng.pick(&["http", "m"])}]}]})
    }

    /// Objects of files `files`, each at its own path and lines (as a loader yields them).
    fn inventory(files: &[Vec<Value>]) -> Inventory {
        let names: Vec<String> = (0..files.len()).map(|f| format!("f{f}.yaml")).collect();
        let files: Vec<(&str, &[Value])> = names
            .iter()
            .zip(files)
            .map(|(n, d)| (n.as_str(), d.as_slice()))
            .collect();
        crate::model::testutil::test_inventory_files(&files)
    }

    /// Namespaces `a`–`d`, each present or not, Terminating or not (by deletion or phase).
    fn namespaces(rng: &mut Rng) -> Vec<Value> {
        let present: Vec<&str> = NAMESPACES
            .iter()
            .copied()
            .filter(|_| rng.chance(80))
            .collect();
        present
            .into_iter()
            .map(|ns| {
                let mut o = json!({"apiVersion": "v1", "kind": "Namespace",
                    "metadata": {"name": ns, "labels": labels(rng)}});
                match rng.below(3) {
                    0 => o["metadata"]["deletionTimestamp"] = "2024-01-01T00:00:00Z".into(),
                    1 => o["status"] = json!({"phase": "Terminating"}),
                    _ => {}
                }
                o
            })
            .collect()
    }

    thread_local! {
        /// Whether the last `Scenario::Cluster` change replaced the Namespaces and Nodes.
        static LAST_CHANGED_CLUSTER: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }

    /// Namespaces (see [`namespaces`]) and Nodes, some with uids and labels.
    fn cluster_objects(rng: &mut Rng) -> Vec<Value> {
        let mut out = namespaces(rng);
        for name in NAMES {
            if !rng.chance(50) {
                continue;
            }
            let mut meta = json!({"name": name, "labels": labels(rng)});
            if rng.chance(50) {
                meta["uid"] = rng.pick(UIDS).into();
            }
            if rng.chance(20) {
                meta["finalizers"] = json!(["foregroundDeletion"]);
                meta["deletionTimestamp"] = "2024-01-01T00:00:00Z".into();
            }
            out.push(json!({"apiVersion": "v1", "kind": "Node", "metadata": meta}));
        }
        out
    }

    /// Half the time, a renamed copy (without uid) of one of `docs`, as edits add a second
    /// Deployment or Service: its selectors are used already.
    fn renamed_copy(rng: &mut Rng, docs: &[Value]) -> Option<Value> {
        if docs.is_empty() || !rng.chance(50) {
            return None;
        }
        let mut c = docs[rng.below(docs.len())].clone();
        let name = c["metadata"]["name"].as_str().unwrap_or("").to_string();
        c["metadata"]["name"] = format!("{name}-copy").into();
        c["metadata"].as_object_mut().map(|m| m.remove("uid"));
        Some(c)
    }

    /// Replaces some files with new contents; returns the outcome and both graphs.
    fn patched_and_built_in(seed: u64, scenario: Scenario) -> (PatchOutcome, Graph, Graph) {
        let (outcome, patched, built, _) = patched_and_built_with(seed, scenario);
        (outcome, patched, built)
    }

    /// [`patched_and_built_in`], also counting the objects of unchanged files whose
    /// selector edges pick other objects after the change (by identity) than before.
    fn patched_and_built_with(
        seed: u64,
        scenario: Scenario,
    ) -> (PatchOutcome, Graph, Graph, usize) {
        let mut rng = Rng(seed | 1);
        let mut extra = Rng(seed.rotate_left(29) | 1);
        let mut files: Vec<Vec<Value>> = (0..2 + rng.below(5))
            .map(|_| {
                (0..rng.below(6))
                    .map(|_| object_of(&mut rng, scenario))
                    .collect()
            })
            .collect();
        // Files the change may replace.
        let mut changeable = 0..files.len();
        if scenario == Scenario::TerminatingNamespaces {
            files.insert(0, namespaces(&mut rng));
            changeable = 1..files.len();
        }
        if matches!(scenario, Scenario::Cluster | Scenario::Selection) {
            files.insert(0, cluster_objects(&mut rng));
            changeable = 0..files.len();
        }
        LAST_CHANGED_CLUSTER.with(|c| c.set(false));
        let before = inventory(&files);
        let mut after_files = files.clone();
        let changed: Vec<usize> = changeable.filter(|_| rng.chance(35)).collect();
        for &f in &changed {
            after_files[f] =
                if matches!(scenario, Scenario::Cluster | Scenario::Selection) && f == 0 {
                    LAST_CHANGED_CLUSTER.with(|c| c.set(true));
                    cluster_objects(&mut rng)
                } else if scenario == Scenario::Selection && rng.chance(70) {
                    // Labels edited: kept selectors' sets gain and lose these objects.
                    let mut docs = files[f].clone();
                    for d in docs.iter_mut() {
                        if rng.chance(60) {
                            d["metadata"]["labels"] = labels(&mut rng);
                        }
                    }
                    docs
                } else if rng.chance(50) {
                    // An edit of some objects, often keeping the count.
                    let mut docs = files[f].clone();
                    for d in docs.iter_mut() {
                        if rng.chance(30) {
                            *d = object_of(&mut rng, scenario);
                        } else if rng.chance(50) {
                            edit(&mut rng, d);
                        }
                    }
                    docs
                } else {
                    let docs: Vec<Value> = (0..rng.below(5))
                        .map(|_| object_of(&mut rng, scenario))
                        .collect();
                    // Or objects added at the end of the file (positions above move up),
                    // drawn apart so the other changes stay what they were for a seed.
                    if extra.chance(40) {
                        let mut grown = files[f].clone();
                        for _ in 0..1 + extra.below(3) {
                            let copy = renamed_copy(&mut extra, &files[f]);
                            grown.push(copy.unwrap_or_else(|| object_of(&mut extra, scenario)));
                        }
                        grown
                    } else {
                        docs
                    }
                };
        }
        let after = inventory(&after_files);
        let replaced = replaced_files(&before, &files, &after_files, &changed);
        let old = Graph::build(&before);
        let moved = moved_selections(&old, &before, &after, &files, &after_files, &changed);
        let (patched, outcome) = old.patch(&after, &replaced);
        (outcome, patched, Graph::build(&after), moved)
    }

    /// How many objects of the files not in `changed` select other objects (by identity)
    /// in `after` than in `before` (whose graph is `old`).
    fn moved_selections(
        old: &Graph,
        before: &Inventory,
        after: &Inventory,
        before_files: &[Vec<Value>],
        after_files: &[Vec<Value>],
        changed: &[usize],
    ) -> usize {
        let new = Graph::build(after);
        let picks = |g: &Graph, inv: &Inventory, i: usize| -> Vec<crate::model::ObjectId> {
            g.selects(i)
                .map(|e| inv.objects[e.to_ix()].id.clone())
                .collect()
        };
        let (mut at_old, mut at_new, mut moved) = (0, 0, 0);
        for (f, docs) in before_files.iter().enumerate() {
            if !changed.contains(&f) {
                for k in 0..docs.len() {
                    if picks(old, before, at_old + k) != picks(&new, after, at_new + k) {
                        moved += 1;
                    }
                }
            }
            at_old += docs.len();
            at_new += after_files[f].len();
        }
        moved
    }

    /// A seed the proptest found during the `esel` work: a RoleBinding subject edge was
    /// missing after the patch (it failed on `main` before the per-referrer reference patch).
    #[test]
    fn a_role_binding_subject_edge_survives_the_patch() {
        let seed = 13_095_621_426_029_100_550_u64;
        let (outcome, patched, built) = patched_and_built_in(seed, scenario_of(seed));
        assert!(patched == built, "{outcome:?}\n{}", diff(&patched, &built));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2048))]
        #[test]
        fn a_patch_equals_a_full_build(seed in any::<u64>()) {
            let (outcome, patched, built) = patched_and_built_in(seed, scenario_of(seed));
            prop_assert!(matches!(outcome, PatchOutcome::Patched { .. }), "{:?}", outcome);
            prop_assert_eq!(&patched, &built, "{:?}", outcome);
        }
    }

    /// Every scenario, by seed.
    fn scenario_of(seed: u64) -> Scenario {
        match seed % 5 {
            0 => Scenario::TerminatingNamespaces,
            1 => Scenario::Cluster,
            2 => Scenario::Selection,
            _ => Scenario::Any,
        }
    }

    /// Kept selectors whose sets gain or lose objects (by label edits, Pods and pod
    /// templates moving between sets, Nodes replaced under Pods, an HPA's target replaced)
    /// are patched, not matched again, and the patch equals a full build.
    #[test]
    fn selector_sets_are_patched() {
        let (mut moved, mut cases, mut fewer) = (0, 0, 0);
        for seed in 1..800u64 {
            let (outcome, patched, built, m) =
                patched_and_built_with(seed * 7919, Scenario::Selection);
            let PatchOutcome::Patched { objects, .. } = outcome else {
                panic!("seed {seed}: {outcome:?}");
            };
            assert!(patched == built, "seed {seed}\n{}", diff(&patched, &built));
            if m > 0 {
                moved += m;
                cases += 1;
                // Selectors whose sets changed were not all recomputed.
                if objects < built.len() {
                    fewer += 1;
                }
            }
        }
        assert!(cases > 150, "only {cases} changes moved a kept selection");
        assert!(moved > 400, "only {moved} kept selections moved");
        assert!(
            fewer > 100,
            "only {fewer} patches recomputed less than everything"
        );
    }

    /// What differs between a patched and a built graph, readably.
    fn diff(p: &Graph, b: &Graph) -> String {
        let mut out = String::new();
        let adj = [
            ("owners_of", &p.owners_of, &b.owners_of),
            ("uses", &p.refs.uses, &b.refs.uses),
        ];
        for (name, x, y) in adj {
            if x != y {
                out += &format!(
                    "{name}:\n  patched {:?}\n  built   {:?}\n",
                    x.all(),
                    y.all()
                );
            }
        }
        if p.selectors != b.selectors {
            let all = |g: &Graph| -> Vec<Edge> { (0..g.len).flat_map(|i| g.selects(i)).collect() };
            out += &format!(
                "selectors:\n  patched {:?}\n  built   {:?}\n",
                all(p),
                all(b)
            );
        }
        for f in p.findings.iter().filter(|f| !b.findings.contains(f)) {
            out += &format!("extra   {f:?}\n");
        }
        for f in b.findings.iter().filter(|f| !p.findings.contains(f)) {
            out += &format!("missing {f:?}\n");
        }
        if p.findings != b.findings {
            out += "findings differ (maybe only in order)\n";
        }
        if p.stats_by_ns != b.stats_by_ns {
            out += &format!("stats {:?} vs {:?}\n", p.stats_by_ns, b.stats_by_ns);
        }
        if p.keys != b.keys {
            out += "keys differ\n";
        }
        out
    }

    /// Edits that move positions and edits that do not (where owner edges, selections and
    /// findings are patched in place, the selections kept when no set changed) are both
    /// patched, and each patch equals a full build.
    #[test]
    fn patches_in_place_and_with_moves_equal_a_build() {
        PATHS.with(|p| p.set([0; 6]));
        WIDENED.with(|c| c.set(0));
        crate::graph::refs::GAPS_IN_PLACE.with(|c| c.set(0));
        crate::graph::selsets::SPLICES.with(|c| c.set([0; 4]));
        for seed in 1..1500u64 {
            let (outcome, patched, built) = patched_and_built_in(seed * 104_729, scenario_of(seed));
            assert!(
                patched == built,
                "seed {seed}: {outcome:?}\n{}",
                diff(&patched, &built)
            );
        }
        let [moved, redone, kept, gaps, nodes, shrunk] = PATHS.with(|p| p.get());
        assert!(moved > 300, "only {moved} patches moved positions");
        assert!(
            nodes > 50,
            "only {nodes} in-place patches recounted the Nodes"
        );
        let refs_gaps = crate::graph::refs::GAPS_IN_PLACE.with(|c| c.get());
        assert!(
            refs_gaps > 100,
            "only {refs_gaps} patches relinked references in place after opening gaps"
        );
        assert!(
            gaps > 100,
            "only {gaps} patches that moved positions resized runs in place"
        );
        assert!(
            shrunk > 100,
            "only {shrunk} patches resized in place a run that shrank"
        );
        let widened = WIDENED.with(|c| c.get());
        assert!(
            widened > 50,
            "only {widened} patches widened an emptied run"
        );
        // Objects added after others with the same selectors (kubectl's and helm's usual
        // edit) rebuild a stretch of selections; keys given new sets move their other
        // selections; keys and sets grown past what a build numbered are numbered again.
        let [stretched, moved_sets, compacted, renumbered] =
            crate::graph::selsets::SPLICES.with(|c| c.get());
        assert!(
            stretched > 20 && moved_sets > 15 && renumbered > 5,
            "only {stretched} splices rebuilt a stretch of selections, {moved_sets} moved \
             selections to their keys' new sets, {renumbered} numbered keys and sets again"
        );
        assert!(
            compacted >= 3,
            "the exceptions were written again only {compacted} times"
        );
        assert!(
            redone > 100,
            "only {redone} in-place patches redid selections"
        );
        assert!(
            kept > 100,
            "only {kept} in-place patches kept the selections"
        );
    }

    /// Takes findings out and puts others in like filtering and sorting all of them.
    #[test]
    fn findings_spliced_in_place_equal_filtered_and_sorted() {
        let d = |path: &str, line: u32| {
            Diagnostic::new(
                &std::sync::Arc::from(std::path::Path::new(path)),
                line,
                1,
                crate::diagnostic::Severity::Warning,
                "x",
                "m",
            )
        };
        let mut rng = Rng(7);
        for _ in 0..500 {
            let mut all: Vec<Diagnostic> = (0..rng.below(12))
                .map(|_| d(rng.pick(&["a", "b", "c"]), rng.below(5) as u32))
                .collect();
            diagnostic::sort(&mut all);
            let dropped: Vec<usize> = (0..all.len()).filter(|_| rng.chance(30)).collect();
            let mut new: Vec<Diagnostic> = (0..rng.below(4))
                .map(|_| d(rng.pick(&["a", "b", "c", "d"]), rng.below(5) as u32))
                .collect();
            diagnostic::sort(&mut new);
            let mut want: Vec<Diagnostic> = all
                .iter()
                .enumerate()
                .filter(|(k, _)| !dropped.contains(k))
                .map(|(_, f)| f.clone())
                .chain(new.iter().cloned())
                .collect();
            diagnostic::sort(&mut want);
            splice_findings(&mut all, &dropped, new);
            assert_eq!(all, want);
        }
    }

    /// Many more scenarios than the proptest: `cargo test --release -- --ignored patch`.
    #[test]
    #[ignore = "long; run in release"]
    fn a_patch_equals_a_full_build_many_times() {
        for seed in 0..100_000u64 {
            let (outcome, patched, built) =
                patched_and_built_in(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15), scenario_of(seed));
            assert!(
                patched == built,
                "seed {seed}: {outcome:?}\n{}",
                diff(&patched, &built)
            );
        }
    }

    /// The hard cases (cluster-scoped owners of namespaced objects, Namespaces flipping
    /// Terminating, Nodes replaced, a namespace holding most objects) are patched, not
    /// rebuilt, and the patch equals a full build.
    #[test]
    fn cluster_scoped_changes_are_patched() {
        let (mut node_owned, mut cluster_changes) = (0, 0);
        for seed in 1..600u64 {
            let (outcome, patched, built) = patched_and_built_in(seed * 7919, Scenario::Cluster);
            assert!(
                matches!(outcome, PatchOutcome::Patched { .. }),
                "seed {seed}: {outcome:?}"
            );
            assert!(patched == built, "seed {seed}\n{}", diff(&patched, &built));
            let is_node = |i: usize| built.keys.objects.flags[i] & keys::flags::NODE != 0;
            if (0..built.len).any(|i| built.dependents(i).iter().any(|_| is_node(i))) {
                node_owned += 1;
            }
            if LAST_CHANGED_CLUSTER.with(|c| c.get()) {
                cluster_changes += 1;
            }
        }
        assert!(
            node_owned > 100,
            "only {node_owned} inputs with Node-owned objects"
        );
        assert!(
            cluster_changes > 100,
            "only {cluster_changes} changes of Namespaces and Nodes"
        );
    }

    /// Changes inside Terminating Namespaces (whose findings list their contents) are
    /// patched, and the patch equals a full build.
    #[test]
    fn changes_in_terminating_namespaces_are_patched() {
        let mut listed = 0;
        for seed in 1..600u64 {
            let (outcome, patched, built) =
                patched_and_built_in(seed * 7919, Scenario::TerminatingNamespaces);
            assert!(
                matches!(outcome, PatchOutcome::Patched { .. }),
                "seed {seed}: {outcome:?}"
            );
            assert!(patched == built, "seed {seed}\n{}", diff(&patched, &built));
            listed += built
                .findings
                .iter()
                .filter(|f| f.code == lifecycle::NAMESPACE_TERMINATING)
                .filter(|f| f.message.contains("still inside"))
                .count();
        }
        assert!(
            listed > 100,
            "only {listed} Terminating Namespaces with contents"
        );
    }

    #[test]
    fn inconsistent_runs_rebuild() {
        let inv = inventory(&[vec![object(&mut Rng(3))]]);
        let g = Graph::build(&inv);
        let bad = [Replaced {
            at: 5,
            removed: &[],
            added: 0,
        }];
        let (rebuilt, outcome) = g.patch(&inv, &bad);
        assert!(matches!(outcome, PatchOutcome::Rebuilt(_)));
        assert_eq!(rebuilt, Graph::build(&inv));
    }
}
