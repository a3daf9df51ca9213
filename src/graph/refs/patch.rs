//! Patching reference edges after a change, with the code of a full link.
//!
//! Linking an object looks targets up by identity (kind, name, namespace) and, for the
//! selection-like links, by EndpointSlice label or among every ClusterRole; each object
//! keeps the hashes of every lookup its linking can make, and of what it answers
//! (`deps.rs`). A patch relinks the added objects and the kept objects with a lookup that
//! a replaced object answers (before or after the change), against the objects that answer
//! their lookups; every other object's edges, dangling references and findings are kept
//! (shifted; when runs only grow, a gap opened after each run, then patched where they
//! stand), since nothing they resolve against changed. A changed
//! CustomResourceDefinition (a kind's scope) relinks everything.
//!
//! A Service's target-port findings read its selection (a function of the Service and the
//! Pods and pod templates of its namespace) and what it selects: they are redone for the
//! added Services and those selecting a replaced object, before or after the change.
//!
//! An unused note depends on the references naming the object, on its duplicates and on
//! what mentions it in its namespace: the notes are redone for the added objects, the
//! targets of the old and new edges of the relinked and removed objects, the objects the
//! changed objects mention, and every duplicate of those; the objects of a namespace are
//! read only to look for mentions of a candidate that nothing uses.

use std::ops::Range;

use super::deps::{self, KeySet};
use super::link::{self, assemble, is_service, link_sources, target_ports, Lookup};
use super::{findings, merge, merge_by, Dangling, RefGraph};
use crate::diagnostic::Diagnostic;
use crate::graph::{groups_for, positions_where, Adjacency, Edge, Graph, Groups, Resize, Shift};
use crate::model::{Inventory, Object};

/// What changed, as the reference patch needs it (made by the graph patch).
pub(in crate::graph) struct RefChange<'a> {
    /// Per replaced run, ascending: its old and its new positions.
    pub runs: Vec<(Range<usize>, Range<usize>)>,
    /// The objects the runs removed.
    pub removed: Vec<&'a [Object]>,
    /// New positions of the kept objects that selected a removed object.
    pub selected_removed: Vec<usize>,
    /// When no position moved, or every run kept an object: how the graph patch changes the
    /// findings, which are still the old ones (those that stay about their objects' new
    /// positions), the reference findings among them (not in `old_findings`); the reference
    /// findings' changes are added and all are spliced in at once.
    pub findings: Option<FindingsChange>,
}

/// Changes to the old findings, in place (see [`RefChange::findings`]).
pub(in crate::graph) struct FindingsChange {
    /// Positions of the findings that go, ascending.
    pub dropped: Vec<usize>,
    /// The findings that come, sorted.
    pub new: Vec<Diagnostic>,
}

#[cfg(test)]
thread_local! {
    /// Reference patches relinked in place after resizing runs (runs that changed length).
    pub(in crate::graph) static GAPS_IN_PLACE: std::cell::Cell<usize> =
        const { std::cell::Cell::new(0) };
}

/// Which findings a patch redoes at a position (bits): the unused note, the target-port
/// findings, the rest of the reference findings (relinked).
const NOTED: u8 = 1;
const PORTS: u8 = 2;
const RELINKED: u8 = 4;

/// The kinds the unused notes are about.
const NOTED_KINDS: [&str; 3] = ["ConfigMap", "Secret", "ServiceAccount"];

impl Graph {
    /// Adds reference results to a patched graph: `old` and `old_findings` (the old graph's
    /// reference findings, sorted) are those of the inventory before `change`.
    pub(in crate::graph) fn patch_refs(
        self,
        inv: &Inventory,
        old: RefGraph,
        old_findings: Vec<Diagnostic>,
        mut change: RefChange<'_>,
    ) -> Graph {
        let in_place_findings = change.findings.take();
        let runs = Shift(&change.runs);
        let shift = |old: usize| runs.get(old);
        let n = inv.objects.len();
        let added: Vec<usize> = change.runs.iter().flat_map(|r| r.1.clone()).collect();
        let removed = || change.removed.iter().flat_map(|r| r.iter());
        let added_objects = || added.iter().map(|&i| &inv.objects[i]);
        if removed().chain(added_objects()).any(is_crd) {
            // A kind's scope may have changed: any reference may resolve elsewhere.
            let built = link::build(inv);
            return self.with_refs(inv, built);
        }

        // What the replaced and the added objects answer.
        let mut changed = KeySet::default();
        for o in removed().chain(added_objects()) {
            deps::provides(o)
                .into_iter()
                .for_each(|k| changed.insert(k));
        }
        let nothing = Lookup::build(inv, std::iter::empty());
        let added_deps = link_sources(inv, &nothing, added.iter().copied(), None).deps;
        let mut sources: Vec<usize> = old
            .deps
            .having(&changed)
            .into_iter()
            .filter_map(shift)
            .collect();
        sources.extend_from_slice(&added);
        sources.sort_unstable();
        sources.dedup();
        // Per position, which findings are redone there (bits; the unused notes' and the
        // target ports' are known further on). Most findings are of objects where none is,
        // and are passed over without reading their code.
        let mut redo = vec![0u8; n];
        for &i in &sources {
            redo[i] = RELINKED;
        }
        let relinked = |i: usize| redo[i] & RELINKED != 0;

        let RefGraph {
            mut uses,
            mut used_by,
            deps: mut dep_keys,
            provided: mut answers,
            dangling: old_dangling,
            ..
        } = old;
        let mut dangling = old_dangling;
        // Runs that change length and each keep an object: positions moved first (a gap
        // after a grown run, a shrunk run's last old objects folded into the last position it
        // keeps; positions above move in one pass, the dangling references' offsets alone),
        // then every run's new positions are relinked where they stand, as when no position
        // moves. `now` maps a position of the edges, the dangling references and the
        // in-place findings to its new one (none for a replaced object).
        let resize = Resize::of(
            change
                .runs
                .iter()
                .map(|(gone, new)| (gone.start, gone.len(), new.len())),
        )
        .filter(|r| !r.is_empty());
        let edge_runs: Vec<(Range<usize>, Range<usize>)> = if let Some(resize) = &resize {
            uses.resize(resize);
            used_by.resize(resize);
            dangling.resize_offsets(resize);
            change
                .runs
                .iter()
                .map(|(_, new)| (new.clone(), new.clone()))
                .collect()
        } else {
            change.runs.clone()
        };
        let edge_shift = Shift(&edge_runs);
        let now = |p: usize| edge_shift.get(p);
        dep_keys.splice(&change.runs, &added_deps);
        splice_provided(&mut answers, &change.runs, inv);
        let mut wanted = KeySet::default();
        for &i in &sources {
            dep_keys.get(i).iter().for_each(|&k| wanted.insert(k));
        }
        let lookup = Lookup::build(inv, deps::providing(&answers, &wanted).into_iter());
        let mut linked = link_sources(inv, &lookup, sources.iter().copied(), None);

        // The Services whose selection or selected objects can differ.
        let mut ports: Vec<usize> = change
            .selected_removed
            .iter()
            .copied()
            .chain(added.iter().copied())
            .chain(
                added
                    .iter()
                    .flat_map(|&a| self.selected_by(a).map(|e| e.from_ix())),
            )
            .filter(|&i| inv.objects.get(i).is_some_and(is_service))
            .collect();
        ports.sort_unstable();
        ports.dedup();
        linked
            .findings
            .extend(target_ports(inv, &self, ports.iter().copied(), None));

        let in_place = in_place(&edge_runs, &used_by, relinked);
        #[cfg(test)]
        if resize.is_some() && in_place {
            GAPS_IN_PLACE.with(|c| c.set(c.get() + 1));
        }
        // What a relinked or removed object named before, and what a relinked one names now.
        let mut named: Vec<usize> = Vec::new();
        if in_place {
            // No position moved: only the relinked objects' groups and their targets' change.
            let fresh = std::mem::take(&mut linked.dangling);
            replace_sources(&mut dangling, &sources, fresh);
            relink_in_place(&mut uses, &mut used_by, &sources, &linked.edges, &mut named);
            named.retain(|&t| now(t).is_some());
            named.extend(linked.edges.iter().map(|e| e.to_ix()));
        }
        let edges = if in_place {
            Vec::new()
        } else {
            let mut edges = std::mem::take(&mut uses.items);
            edges.retain_mut(|e| match (now(e.from_ix()), now(e.to_ix())) {
                (Some(from), Some(to)) if !relinked(from) => {
                    (e.from, e.to) = (from as u32, to as u32);
                    true
                }
                (_, Some(to)) => {
                    named.push(to);
                    false
                }
                (_, None) => false,
            });
            named.extend(linked.edges.iter().map(|e| e.to_ix()));
            splice_sorted(
                edges,
                linked.edges,
                |a, b| a.from < b.from,
                |a, b| merge_by(a, b, |e| e.from_ix()),
            )
        };
        let refs = if in_place {
            RefGraph {
                uses,
                used_by,
                dangling,
                deps: dep_keys,
                provided: answers,
            }
        } else {
            let kept = dangling
                .into_keyed()
                .filter_map(|(from, d)| Some((now(from).filter(|&f| !relinked(f))?, d)))
                .collect();
            let dangling = splice_sorted(
                kept,
                linked.dangling,
                |a, b| a.0 < b.0,
                |a, b| merge_by(a, b, |d| d.0),
            );
            assemble(n, edges, dangling, dep_keys, answers)
        };

        let noted = noted(inv, &refs, &added, &named, removed().chain(added_objects()));
        let mut found = linked.findings;
        found.extend(findings::unused(
            inv,
            &noted,
            |i| refs.is_used(i),
            |namespaces| {
                (0..n)
                    .filter(|&i| namespaces.contains(inv.objects[i].namespace()))
                    .collect::<Vec<usize>>()
            },
        ));
        crate::diagnostic::sort(&mut found);

        for (at, bit) in [(&noted, NOTED), (&ports, PORTS)] {
            at.iter().for_each(|&i| redo[i] |= bit);
        }
        // Whether the finding `code` at new position `i` is redone: its code is read only
        // where some finding is (and none is past the last position).
        let redone = |code: &str, i: usize| match redo.get(i).copied().unwrap_or(0) {
            0 => false,
            m => match code {
                findings::UNUSED => m & NOTED != 0,
                findings::TARGET_PORT => m & PORTS != 0,
                _ => m & RELINKED != 0,
            },
        };
        let mut graph = self;
        graph.refs = refs;
        if let Some(FindingsChange {
            mut dropped,
            mut new,
        }) = in_place_findings
        {
            // The reference findings redone. One the graph patch dropped already is still
            // about its old position: it may come twice, or past the new last position.
            dropped.extend(positions_where(&graph.findings, |f| {
                f.object_index()
                    .and_then(now)
                    .is_some_and(|i| redone(f.code, i) && findings::is_ref_finding(f.code))
            }));
            dropped.sort_unstable();
            dropped.dedup();
            new.extend(found);
            crate::diagnostic::sort(&mut new);
            crate::graph::patch::splice_findings(&mut graph.findings, &dropped, new);
            return graph;
        }
        // Old findings stay sorted when their positions shift (the order is kept).
        let mut kept = old_findings;
        kept.retain_mut(|f| {
            let Some(i) = f.object_index().and_then(shift) else {
                return false;
            };
            let redo = redone(f.code, i);
            f.object = u32::try_from(i).ok();
            !redo
        });
        let found = splice_sorted(kept, found, |a, b| a < b, merge);
        graph.findings = splice_sorted(
            std::mem::take(&mut graph.findings),
            found,
            |a, b| a < b,
            merge,
        );
        graph
    }
}

/// The objects whose unused note a change can alter, ascending: the added ones, those
/// `named` by old or new edges of the relinked and removed objects, those the `changed`
/// objects (removed and added) mention in their namespace, and every duplicate of these
/// and of the changed objects.
fn noted<'a>(
    inv: &Inventory,
    refs: &RefGraph,
    added: &[usize],
    named: &[usize],
    changed: impl Iterator<Item = &'a Object>,
) -> Vec<usize> {
    let mut keys = KeySet::default();
    for &i in added.iter().chain(named) {
        if findings::may_be_unused(&inv.objects[i].id) {
            keys.insert(refs.provided[i][0]);
        }
    }
    for o in changed {
        // A removed copy that was used made its duplicates used.
        if findings::may_be_unused(&o.id) {
            keys.insert(deps::provides(o)[0]);
        }
        let ns = o.namespace();
        findings::mentions(o, &mut |word| {
            for kind in NOTED_KINDS {
                keys.insert(deps::target_key(kind, word, ns));
            }
        });
    }
    deps::providing(&refs.provided, &keys)
        .into_iter()
        .filter(|&i| findings::may_be_unused(&inv.objects[i].id))
        .collect()
}

fn is_crd(o: &Object) -> bool {
    &*o.id.group == "apiextensions.k8s.io" && &*o.id.kind == "CustomResourceDefinition"
}

/// What the objects answer, with the runs `(old, new)` replaced by the new objects'.
fn splice_provided(
    answers: &mut Vec<[deps::DepKey; 2]>,
    runs: &[(Range<usize>, Range<usize>)],
    inv: &Inventory,
) {
    for (gone, new) in runs.iter().rev() {
        let fresh = new.clone().map(|i| deps::provides(&inv.objects[i]));
        answers.splice(gone.clone(), fresh);
    }
}

/// `dangling` with the references of the relinked `sources` (ascending) replaced by `new`
/// (theirs, with their sources, ascending).
fn replace_sources(
    dangling: &mut Groups<Dangling>,
    sources: &[usize],
    new: Vec<(usize, Dangling)>,
) {
    let mut groups = groups_for(sources, new);
    // A source that had none and has none leaves its group as it is.
    groups.retain(|(i, group)| !group.is_empty() || !dangling.get(*i).is_empty());
    dangling.replace_groups(groups);
}

/// Whether the edges can be patched where they are: every run keeps its length (no
/// position moves) and only relinked objects used a replaced one.
fn in_place(
    runs: &[(Range<usize>, Range<usize>)],
    used_by: &Adjacency,
    relinked: impl Fn(usize) -> bool,
) -> bool {
    runs.iter().all(|(gone, new)| gone == new)
        && runs
            .iter()
            .flat_map(|(gone, _)| gone.clone())
            .all(|t| used_by.get(t).iter().all(|e| relinked(e.from_ix())))
}

/// Replaces the edges of the relinked `sources` (ascending) by `linked` (theirs, grouped
/// by source), in `uses` and in `used_by` for every target of their old or new edges;
/// pushes those old targets to `named`. Positions must not have moved.
fn relink_in_place(
    uses: &mut Adjacency,
    used_by: &mut Adjacency,
    sources: &[usize],
    linked: &[Edge],
    named: &mut Vec<usize>,
) {
    let mut targets: Vec<usize> = sources
        .iter()
        .flat_map(|&i| uses.get(i))
        .map(|e| e.to_ix())
        .collect();
    named.extend_from_slice(&targets);
    uses.replace_groups(groups_for(
        sources,
        linked.iter().map(|e| (e.from_ix(), *e)),
    ));

    targets.extend(linked.iter().map(|e| e.to_ix()));
    targets.sort_unstable();
    targets.dedup();
    let mut incoming: Vec<Edge> = linked.to_vec();
    // Stable: each target's new edges stay in source order.
    incoming.sort_by_key(|e| e.to);
    let incoming = incoming.into_iter().map(|e| (e.to_ix(), e));
    let groups = groups_for(&targets, incoming)
        .into_iter()
        .map(|(t, new)| {
            let kept = used_by
                .get(t)
                .iter()
                .filter(|e| sources.binary_search(&e.from_ix()).is_err())
                .copied()
                .collect();
            (t, merge_by(kept, new, |e| e.from_ix()))
        })
        .collect();
    used_by.replace_groups(groups);
}

/// `new` (sorted by `less`) put into the sorted `old`: spliced in one place when it fits
/// between two items of `old` (the usual patch: one namespace's objects, in one folder),
/// else with `merge`.
fn splice_sorted<T>(
    mut old: Vec<T>,
    new: Vec<T>,
    less: impl Fn(&T, &T) -> bool,
    merge: impl FnOnce(Vec<T>, Vec<T>) -> Vec<T>,
) -> Vec<T> {
    let (Some(first), Some(last)) = (new.first(), new.last()) else {
        return old;
    };
    let at = old.partition_point(|x| less(x, first));
    if old.get(at).is_some_and(|x| less(x, last)) {
        return merge(old, new);
    }
    old.splice(at..at, new);
    old
}
