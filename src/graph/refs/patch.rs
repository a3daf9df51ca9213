//! Patching reference edges after a change, with the code of a full link.
//!
//! References are namespace-local except those of a few fields (RoleBinding subjects,
//! webhook and APIService Services, a PV's `claimRef`, Gateway API refs, Events): an object
//! with such a reference is marked `cross` when linked. A patch relinks the objects of the
//! namespaces the graph patch recomputes (every object of the namespaces of the changed
//! objects) plus every `cross` object, against the objects of the namespaces they reach;
//! every other object's edges, dangling references and findings are kept (shifted), since
//! nothing they resolve against changed (a changed cluster-scoped object makes the graph
//! patch rebuild).
//!
//! An unused note depends on the objects of its namespace (duplicates, what mentions the
//! object) and on the references naming it: the notes of the recomputed namespaces, and of
//! the namespaces holding a ConfigMap, Secret or ServiceAccount that a relinked or removed
//! object named before or names now, are recomputed; the others are kept.

use rustc_hash::FxHashSet;

use super::link::{assemble, link_sources, target_ports, Lookup};
use super::{extract, findings, merge, merge_by, Ref, RefGraph};
use crate::diagnostic::Diagnostic;
use crate::graph::Graph;
use crate::model::Inventory;

/// Past this many namespaces, a set tells whether an object's is one of them.
const LINEAR_NAMESPACES: usize = 8;

impl Graph {
    /// Adds reference results to a patched graph: `old` and `old_findings` (the old graph's
    /// reference findings, sorted) are those of the inventory before the change, `shift`
    /// maps an old position to its new one (none for a replaced object), `recomputed` marks
    /// the new positions whose namespace the graph patch recomputed (every object of those
    /// namespaces, which hold every changed object).
    pub(in crate::graph) fn patch_refs(
        mut self,
        inv: &Inventory,
        mut old: RefGraph,
        old_findings: Vec<Diagnostic>,
        shift: &dyn Fn(usize) -> Option<usize>,
        recomputed: &[bool],
    ) -> Graph {
        let n = inv.objects.len();
        let recomputed = |i: usize| recomputed.get(i).copied().unwrap_or(true);
        let mut relinked: Vec<bool> = (0..n).map(recomputed).collect();
        for (o, _) in old.cross.iter().enumerate().filter(|(_, c)| **c) {
            if let Some(i) = shift(o) {
                relinked[i] = true;
            }
        }
        let sources: Vec<usize> = (0..n).filter(|&i| relinked[i]).collect();
        let mut cluster: Vec<usize> = old.cluster.iter().filter_map(|&o| shift(o)).collect();
        cluster.extend(
            sources
                .iter()
                .copied()
                .filter(|&i| inv.objects[i].namespace().is_empty()),
        );
        cluster.sort_unstable();
        cluster.dedup();
        let lookup = Lookup::build(
            inv,
            reached(inv, &sources, &cluster, &recomputed).into_iter(),
        );
        let mut linked = link_sources(inv, &lookup, sources.iter().copied(), None);
        let ports = target_ports(inv, &self, sources.iter().copied(), None);
        linked.findings.extend(ports);

        let mut cross = vec![false; n];
        for (o, _) in old.cross.iter().enumerate().filter(|(_, c)| **c) {
            if let Some(i) = shift(o).filter(|&i| !relinked[i]) {
                cross[i] = true;
            }
        }
        for &i in &linked.cross {
            cross[i] = true;
        }
        // What a relinked or removed object named before, and what a relinked one names now.
        let mut named: Vec<usize> = Vec::new();
        // Kept in place, shifted; the relinked ones spliced in.
        let mut edges = std::mem::take(&mut old.uses.edges);
        edges.retain_mut(|e| match (shift(e.from), shift(e.to)) {
            (Some(from), Some(to)) if !relinked[from] => {
                (e.from, e.to) = (from, to);
                true
            }
            (_, Some(to)) => {
                named.push(to);
                false
            }
            (_, None) => false,
        });
        named.extend(linked.edges.iter().map(|e| e.to));
        let edges = splice_sorted(
            edges,
            linked.edges,
            |a, b| a.from < b.from,
            |a, b| merge_by(a, b, |e| e.from),
        );
        let mut dangling = old.dangling;
        dangling.retain_mut(|d| match shift(d.from).filter(|&f| !relinked[f]) {
            Some(from) => {
                d.from = from;
                true
            }
            None => false,
        });
        let dangling = splice_sorted(
            dangling,
            linked.dangling,
            |a, b| a.from < b.from,
            |a, b| merge_by(a, b, |d| d.from),
        );
        let refs = assemble(n, edges, dangling, cross, cluster);

        // Unused notes: of the recomputed namespaces and of those whose objects a changed
        // reference names.
        let named_ns: FxHashSet<&str> = named
            .iter()
            .filter(|&&t| !recomputed(t))
            .map(|&t| &inv.objects[t])
            .filter(|o| findings::may_be_unused(&o.id))
            .map(|o| o.namespace())
            .collect();
        let renoted = Namespaces::new(named_ns);
        let renoted = |i: usize| {
            recomputed(i) || (!renoted.is_empty() && renoted.contains(inv.objects[i].namespace()))
        };
        let among: Vec<usize> = (0..n).filter(|&i| renoted(i)).collect();
        let mut found = linked.findings;
        found.extend(findings::unused(inv, &among, |i| refs.is_used(i)));
        crate::diagnostic::sort(&mut found);

        // Old findings stay sorted when their positions shift (the order is kept).
        let mut kept = old_findings;
        kept.retain_mut(|f| {
            let Some(i) = f.object_index().and_then(shift) else {
                return false;
            };
            let redone = if f.code == findings::UNUSED {
                renoted(i)
            } else {
                relinked[i]
            };
            f.object = u32::try_from(i).ok();
            !redone
        });
        self.refs = refs;
        let found = splice_sorted(kept, found, |a, b| a < b, merge);
        self.findings = merge(std::mem::take(&mut self.findings), found);
        self
    }
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

/// A few namespaces (usually one or two), compared in a line.
enum Namespaces<'a> {
    Few(Vec<&'a str>),
    Many(FxHashSet<&'a str>),
}

impl<'a> Namespaces<'a> {
    fn new(set: FxHashSet<&'a str>) -> Namespaces<'a> {
        if set.len() > LINEAR_NAMESPACES {
            Namespaces::Many(set)
        } else {
            Namespaces::Few(set.into_iter().collect())
        }
    }

    fn is_empty(&self) -> bool {
        match self {
            Namespaces::Few(v) => v.is_empty(),
            Namespaces::Many(s) => s.is_empty(),
        }
    }

    fn contains(&self, ns: &str) -> bool {
        match self {
            Namespaces::Few(v) => v.contains(&ns),
            Namespaces::Many(s) => s.contains(ns),
        }
    }
}

/// The positions of the objects the references of `sources` (ascending) can resolve to:
/// those of their namespaces and of the namespaces they name, and the cluster-scoped ones
/// (`cluster`). The recomputed namespaces are whole among the sources; any other is looked
/// for over the inventory.
fn reached(
    inv: &Inventory,
    sources: &[usize],
    cluster: &[usize],
    recomputed: &dyn Fn(usize) -> bool,
) -> Vec<usize> {
    let whole: FxHashSet<&str> = sources
        .iter()
        .filter(|&&i| recomputed(i))
        .map(|&i| inv.objects[i].namespace())
        .collect();
    let mut others = reached_namespaces(inv, sources.iter().copied());
    others.retain(|ns| !ns.is_empty() && !whole.contains(ns));
    let mut out: Vec<usize> = sources.iter().chain(cluster).copied().collect();
    if !others.is_empty() {
        let others = Namespaces::new(others);
        out.extend((0..inv.objects.len()).filter(|&i| others.contains(inv.objects[i].namespace())));
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// The namespaces the references of `sources` can resolve in: theirs, those their
/// references name, and cluster scope.
fn reached_namespaces(inv: &Inventory, sources: impl Iterator<Item = usize>) -> FxHashSet<&str> {
    let mut reach: FxHashSet<&str> = FxHashSet::default();
    reach.insert("");
    let mut buf: Vec<Ref<'_>> = Vec::new();
    for o in sources.filter_map(|i| inv.objects.get(i)) {
        reach.insert(o.namespace());
        buf.clear();
        extract(o, &mut buf);
        reach.extend(buf.iter().map(|r| r.target.namespace));
    }
    reach
}
