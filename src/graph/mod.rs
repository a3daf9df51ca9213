//! The relationship graph: ownerReference edges, selector edges, lifecycle and findings.
//!
//! Objects are referred to by their index in `Inventory.objects`. Owner edges are stored
//! twice in compressed adjacency arrays (by source and by target), so every owner query is
//! a slice. Selector edges are stored as shared matched sets (`selsets.rs`), so equal
//! selectors cost one set however many objects carry them; building is linear in objects +
//! owner edges + distinct sets.

pub mod apps;
mod cycles;
mod edge_name;
pub mod findings;
mod firsts;
pub mod hierarchy;
mod keys;
pub mod lifecycle;
pub mod owners;
mod patch;
pub mod refs;
mod resize;
pub mod selectors;
mod selsets;
mod setkeys;

pub use edge_name::EdgeName;
pub use lifecycle::{explain_finalizer, lifecycle, DeletionPolicy, FinalizerInfo, Lifecycle};
pub use owners::OwnerStats;
pub use patch::{PatchOutcome, Replaced};

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use crate::diagnostic::{self, Diagnostic};
use crate::model::Inventory;
use resize::{Resize, Shift};

use crate::value::Str;

/// One relationship between two objects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge {
    /// The owner (owner edges) or the selecting object (selector edges): a position in
    /// `Inventory.objects` (u32, as every position the graph keeps; [`Edge::from`] reads it
    /// as an index).
    pub from: u32,
    /// The dependent (owner edges) or the selected object (selector edges).
    pub to: u32,
    pub kind: EdgeKind,
}

impl Edge {
    /// An edge between positions `from` and `to` (below `u32::MAX`, as every position of a
    /// graph: a build or patch of more objects is refused).
    pub fn new(from: usize, to: usize, kind: EdgeKind) -> Edge {
        Edge {
            from: from as u32,
            to: to as u32,
            kind,
        }
    }

    /// [`Edge::from`] as an index.
    pub fn from_ix(&self) -> usize {
        self.from as usize
    }

    /// [`Edge::to`] as an index.
    pub fn to_ix(&self) -> usize {
        self.to as usize
    }
}

/// What an edge stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EdgeKind {
    /// `metadata.ownerReferences` of `to` names `from`.
    Owner {
        /// Resolved by uid (else by group, kind, namespace and name).
        by_uid: bool,
        controller: bool,
        block_owner_deletion: bool,
    },
    /// A selector or reference field of `from` picks `to` (`spec.selector`, …).
    Selector { via: EdgeName },
    /// A field of `from` names `to` (`refs`): `rel` is the relationship as kube-lineage
    /// names it (`volume`, `envFrom`, `serviceAccount`, `roleRef`, `backend` …).
    Ref { rel: EdgeName },
}

/// Items grouped by object: `items[offsets[i]..offsets[i + 1]]` belong to object `i`
/// (offsets are u32: an input holds far fewer than 4 billion items). When positions move,
/// only the offsets move ([`Groups::resize_offsets`]); items that hold positions
/// themselves (edges) move them too ([`Adjacency::resize`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Groups<T> {
    offsets: Vec<u32>,
    items: Vec<T>,
}

/// Edges grouped by one endpoint.
pub type Adjacency = Groups<Edge>;

impl<T> Default for Groups<T> {
    fn default() -> Groups<T> {
        Groups {
            offsets: Vec::new(),
            items: Vec::new(),
        }
    }
}

impl Adjacency {
    /// Groups `edges` by `key` (a counting sort: linear, keeps input order per object).
    pub fn build(n: usize, edges: &[Edge], key: impl Fn(&Edge) -> usize) -> Adjacency {
        let offsets = offsets_of(n, edges.iter().map(&key));
        let mut next = offsets[..n].to_vec();
        // Every slot is written once below: the copy only gives the vector its length.
        let mut placed = Vec::with_capacity(edges.len() + room(edges.len()));
        placed.extend_from_slice(edges);
        for e in edges {
            let k = key(e);
            placed[next[k] as usize] = *e;
            next[k] += 1;
        }
        Groups {
            offsets,
            items: placed,
        }
    }

    /// Like [`Adjacency::build`] for edges already grouped by `key` in ascending order:
    /// takes them as they are.
    fn from_grouped(n: usize, edges: Vec<Edge>, key: impl Fn(&Edge) -> usize) -> Adjacency {
        debug_assert!(edges.windows(2).all(|w| key(&w[0]) <= key(&w[1])));
        let offsets = offsets_of(n, edges.iter().map(key));
        Groups {
            offsets,
            items: edges,
        }
    }

    /// Positions moved by `resize` (runs that change length, each patched where it
    /// stands): every endpoint moves, a gap's positions have no edge, and the edges of
    /// folded positions belong to the position they fold into. One pass, in place, on every
    /// core (the edges are independent).
    fn resize(&mut self, resize: &Resize) {
        let moved = resize.moves();
        self.items
            .par_iter_mut()
            .with_min_len(GAP_CHUNK)
            .for_each(|e| {
                e.from = moved(e.from_ix()) as u32;
                e.to = moved(e.to_ix()) as u32;
            });
        self.resize_offsets(resize);
    }
}

impl<T> Groups<T> {
    /// Items with their objects' positions (ascending) as groups of `n` objects, with
    /// [`room`] after the items. The items are collected where the pairs were (the standard
    /// library reuses the larger block, which usually leaves the room already).
    fn from_keyed(n: usize, keyed: Vec<(usize, T)>) -> Groups<T> {
        debug_assert!(keyed.windows(2).all(|w| w[0].0 <= w[1].0));
        let offsets = offsets_of(n, keyed.iter().map(|(i, _)| *i));
        let mut items: Vec<T> = keyed.into_iter().map(|(_, item)| item).collect();
        items.reserve_exact(room(items.len()));
        Groups { offsets, items }
    }

    /// The items with their objects' positions, ascending (what [`Groups::from_keyed`]
    /// takes).
    fn into_keyed(self) -> impl Iterator<Item = (usize, T)> {
        let Groups { offsets, items } = self;
        let mut object = 0;
        items.into_iter().enumerate().map(move |(j, item)| {
            while offsets
                .get(object + 1)
                .is_some_and(|&end| end as usize <= j)
            {
                object += 1;
            }
            (object, item)
        })
    }

    /// Positions moved by `resize`: a gap's positions have no item, and the items of
    /// folded positions belong to the position they fold into. Only the offsets move.
    fn resize_offsets(&mut self, resize: &Resize) {
        resize.offsets(&mut self.offsets);
    }

    /// Items of object `i` (empty for an index out of range).
    pub fn get(&self, i: usize) -> &[T] {
        match (self.offsets.get(i), self.offsets.get(i + 1)) {
            (Some(&a), Some(&b)) => &self.items[a as usize..b as usize],
            _ => &[],
        }
    }

    /// Every item, grouped by object.
    pub fn all(&self) -> &[T] {
        &self.items
    }

    /// Replaces the items of each object of `groups` (ascending) in place. Groups of
    /// consecutive objects (or with only objects without items between them) are taken
    /// together as one stretch: a stretch of the same length is overwritten, a few resized
    /// ones are spliced, more are rebuilt in one pass (each splice moves every later item).
    /// Items are moved, never cloned. Offsets after a resized group shift.
    fn replace_groups(&mut self, groups: Vec<(usize, Vec<T>)>) {
        let deltas: Vec<(usize, isize)> = groups
            .iter()
            .map(|(i, new)| (*i, new.len() as isize - self.get(*i).len() as isize))
            .filter(|&(_, d)| d != 0)
            .collect();
        // Stretches of consecutive objects (or with only objects without items between
        // them): first object, one past the last, their items.
        let mut stretches: Vec<(usize, usize, Vec<T>)> = Vec::new();
        for (i, new) in groups {
            match stretches.last_mut() {
                Some((_, end, items)) if self.offsets[*end] == self.offsets[i] => {
                    *end = i + 1;
                    items.extend(new);
                }
                _ => stretches.push((i, i + 1, new)),
            }
        }
        let span = |(a, b): (usize, usize)| self.offsets[a] as usize..self.offsets[b] as usize;
        let resized = stretches
            .iter()
            .filter(|(a, b, new)| span((*a, *b)).len() != new.len())
            .count();
        if resized > SPLICES_MAX {
            let len = self
                .items
                .len()
                .wrapping_add_signed(deltas.iter().map(|d| d.1).sum());
            let mut items = Vec::with_capacity(len);
            let mut old = std::mem::take(&mut self.items).into_iter();
            let mut at = 0;
            for (a, b, new) in stretches {
                let (start, end) = (self.offsets[a] as usize, self.offsets[b] as usize);
                items.extend(old.by_ref().take(start - at));
                // The replaced items, dropped.
                old.by_ref().take(end - start).for_each(drop);
                items.extend(new);
                at = end;
            }
            items.extend(old);
            self.items = items;
        } else {
            for (a, b, new) in stretches.into_iter().rev() {
                let range = span((a, b));
                if range.len() == new.len() {
                    for (slot, item) in self.items[range].iter_mut().zip(new) {
                        *slot = item;
                    }
                } else {
                    self.items.splice(range, new);
                }
            }
        }
        let mut shift = 0isize;
        for (k, &(i, d)) in deltas.iter().enumerate() {
            shift += d;
            let end = deltas
                .get(k + 1)
                .map_or(self.offsets.len() - 1, |next| next.0);
            if shift != 0 {
                for o in &mut self.offsets[i + 1..=end] {
                    *o = (i64::from(*o) + shift as i64) as u32;
                }
            }
        }
    }
}

/// Items moved per job when positions move on every core.
const GAP_CHUNK: usize = 1 << 15;

/// Room kept at the end of a large per-object vector a build makes, so that an edit adding
/// objects grows it where it is. Reserved and never written, it costs address space, not
/// memory (large blocks are mapped lazily); without it the first edit after a load copied
/// each such vector into a larger block and faulted the new block's pages in.
fn room(len: usize) -> usize {
    len / 64
}

/// Items with their objects' positions (ascending, each one of `objects`) as one group per
/// object of `objects` (ascending; empty where it has none): what
/// [`Groups::replace_groups`] takes.
fn groups_for<T>(
    objects: &[usize],
    keyed: impl IntoIterator<Item = (usize, T)>,
) -> Vec<(usize, Vec<T>)> {
    let mut keyed = keyed.into_iter().peekable();
    let groups = objects
        .iter()
        .map(|&i| {
            let mut group = Vec::new();
            while let Some((_, item)) = keyed.next_if(|(at, _)| *at == i) {
                group.push(item);
            }
            (i, group)
        })
        .collect();
    debug_assert!(keyed.next().is_none(), "an item of no object of the list");
    groups
}

/// Offsets (with [`room`]) of `n` objects' groups, from each item's object (ascending).
fn offsets_of(n: usize, objects: impl Iterator<Item = usize>) -> Vec<u32> {
    let mut offsets = zeros_with_room(n + 1);
    for i in objects {
        offsets[i + 1] += 1;
    }
    for i in 0..n {
        offsets[i + 1] += offsets[i];
    }
    offsets
}

/// `len` zeros, with [`room`] after them (per-object offsets, which an added object lengthens).
fn zeros_with_room(len: usize) -> Vec<u32> {
    let mut v = Vec::with_capacity(len + room(len));
    v.resize(len, 0);
    v
}

/// More resized groups than this are rebuilt in one pass rather than spliced one by one.
const SPLICES_MAX: usize = 4;

/// Of per-object runs of a flat array (`offsets`: one more than there are objects), the
/// object whose run holds position `j`.
fn run_holding(offsets: &[u32], j: usize) -> usize {
    offsets
        .partition_point(|&o| o as usize <= j)
        .saturating_sub(1)
}

/// How many items a task of [`positions_where`] scans.
const SCAN_CHUNK: usize = 1 << 16;

/// The positions of `items` where `hit` holds, ascending: a pass over a per-object (or
/// per-reference) array on every patch, in chunks on every core.
fn positions_where<T: Sync>(items: &[T], hit: impl Fn(&T) -> bool + Sync) -> Vec<usize> {
    items
        .par_chunks(SCAN_CHUNK)
        .enumerate()
        .flat_map_iter(|(c, chunk)| {
            let hit = &hit;
            chunk
                .iter()
                .enumerate()
                .filter(move |(_, item)| hit(item))
                .map(move |(i, _)| c * SCAN_CHUNK + i)
        })
        .collect()
}

/// Owner and selector relationships of one inventory, with every finding.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Graph {
    len: usize,
    owners_of: Adjacency,
    dependents_of: Adjacency,
    selectors: selsets::SelectorEdges,
    findings: Vec<Diagnostic>,
    /// How ownerReferences resolved, by the dependent's namespace (`""`: cluster-scoped).
    stats_by_ns: FxHashMap<Str, OwnerStats>,
    /// What a patch needs to find the objects a change reaches.
    keys: keys::Keys,
    /// Reference edges (`refs`), added after the rest is assembled.
    refs: refs::RefGraph,
}

/// What computing a graph yields before it is assembled (see [`Graph::assemble_with`]),
/// but the owner edges.
#[derive(Default)]
struct Parts {
    /// Selector fields and what they matched, grouped by selecting object.
    selections: selsets::Selections,
    /// Every finding except the app-label ones, unsorted.
    findings: Vec<Diagnostic>,
    /// App-label findings (`apps`), which group objects across namespaces.
    app_findings: Vec<Diagnostic>,
    stats_by_ns: FxHashMap<Str, OwnerStats>,
}

impl Graph {
    /// Builds the graph and all findings (owners, selectors, lifecycle, recommended labels,
    /// name/label/annotation/ownerReference validation from `validate`), in the
    /// diagnostics' order.
    pub fn build(inv: &Inventory) -> Graph {
        // The keys are made after `compute` has freed its lookup tables, not beside them:
        // the build's peak memory is reached while selectors are resolved.
        let (((parts, owners_of, dependents_of), keys), refs) = rayon::join(
            || (compute(inv), keys::Keys::build_with_room(&inv.objects)),
            || refs::build(inv),
        );
        let n = inv.objects.len();
        let mut parts = parts;
        let selectors = selsets::SelectorEdges::build(n, std::mem::take(&mut parts.selections));
        Graph::assemble_with(n, parts, keys, (owners_of, dependents_of), selectors)
            .with_refs(inv, refs)
    }

    /// Sorts the parts into the finding order, with the owner edges already in adjacency
    /// arrays and the selections indexed (`parts` has neither). A full build and a patch (see `patch.rs`) both end here,
    /// so both order edges and findings alike: edges of one object in the order they were
    /// found (see [`owner_adjacency`]), findings in the diagnostics' order.
    fn assemble_with(
        n: usize,
        mut parts: Parts,
        mut keys: keys::Keys,
        (owners_of, dependents_of): (Adjacency, Adjacency),
        selectors: selsets::SelectorEdges,
    ) -> Graph {
        let mut findings = parts.findings;
        findings.append(&mut parts.app_findings);
        diagnostic::sort(&mut findings);
        keys.unresolved = vec![false; n];
        for f in &findings {
            if let (Some(i), owners::DANGLING | owners::OTHER_NAMESPACE) =
                (f.object_index(), f.code)
            {
                if let Some(u) = keys.unresolved.get_mut(i) {
                    *u = true;
                }
            }
        }
        Graph {
            len: n,
            owners_of,
            dependents_of,
            selectors,
            findings,
            stats_by_ns: parts.stats_by_ns,
            keys,
            refs: refs::RefGraph::default(),
        }
    }

    /// Number of objects the graph spans.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the graph spans no object.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Owner edges of `obj` (edges where `to == obj`).
    pub fn owners(&self, obj: usize) -> &[Edge] {
        self.owners_of.get(obj)
    }

    /// Owner edges from `obj` to its dependents (edges where `from == obj`).
    pub fn dependents(&self, obj: usize) -> &[Edge] {
        self.dependents_of.get(obj)
    }

    /// Selector edges from `obj` to what it selects, grouped by selector field in the order
    /// the fields were found, each field's targets in load order. Made on demand from the
    /// shared sets (nothing per edge is stored).
    pub fn selects(&self, obj: usize) -> impl Iterator<Item = Edge> + '_ {
        self.selectors.selects(obj)
    }

    /// Selector edges from the objects that select `obj`, in their load order (an object
    /// selecting it through two fields: in the order of [`Graph::selects`]).
    pub fn selected_by(&self, obj: usize) -> impl Iterator<Item = Edge> + '_ {
        self.selectors.selected_by(obj)
    }

    /// Objects with no resolved owner, in load order.
    pub fn roots(&self) -> Vec<usize> {
        (0..self.len)
            .filter(|&i| self.owners(i).is_empty())
            .collect()
    }

    /// Objects that own nothing, in load order (the starting points for `tree --owners`).
    pub fn leaves(&self) -> Vec<usize> {
        (0..self.len)
            .filter(|&i| self.dependents(i).is_empty())
            .collect()
    }

    /// Every finding, in the diagnostics' order (`crate::diagnostic`).
    pub fn findings(&self) -> &[Diagnostic] {
        &self.findings
    }

    /// How the ownerReferences resolved.
    pub fn owner_stats(&self) -> OwnerStats {
        self.stats_by_ns
            .values()
            .fold(OwnerStats::default(), |a, b| a.plus(b))
    }
}

/// Owner edges by dependent (in ownerReference order within one) and by owner.
fn owner_adjacency(n: usize, mut edges: Vec<Edge>) -> (Adjacency, Adjacency) {
    edges.sort_by_key(|e| e.to);
    let dependents_of = Adjacency::build(n, &edges, Edge::from_ix);
    (
        Adjacency::from_grouped(n, edges, Edge::to_ix),
        dependents_of,
    )
}

/// Every edge and finding of `inv`, unsorted, and the owner edges by dependent and by owner.
fn compute(inv: &Inventory) -> (Parts, Adjacency, Adjacency) {
    let n = inv.objects.len();
    let (owner_edges, mut findings, stats_by_ns) = owners::resolve(inv);
    // `resolve` finds them by dependent, ascending: as `owner_adjacency` orders them.
    let dependents_of = Adjacency::build(n, &owner_edges, Edge::from_ix);
    let owners_of = Adjacency::from_grouped(n, owner_edges, Edge::to_ix);
    // Everything below depends only on the owner edges: run it on all cores.
    let ((cyc, life), ((selections, sel_findings), (app, valid))) = rayon::join(
        || {
            rayon::join(
                || cycles::findings(inv, &dependents_of),
                || lifecycle::findings(inv, &dependents_of),
            )
        },
        || {
            rayon::join(
                || selectors::resolve(inv, &owners_of, &dependents_of),
                || {
                    rayon::join(
                        || apps::findings(inv),
                        || crate::validate::objects::findings(inv),
                    )
                },
            )
        },
    );
    findings.extend(cyc);
    findings.extend(life);
    findings.extend(sel_findings);
    findings.extend(valid);
    let parts = Parts {
        selections,
        findings,
        app_findings: app,
        stats_by_ns,
    };
    (parts, owners_of, dependents_of)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(from: usize, to: usize) -> Edge {
        Edge::new(
            from,
            to,
            EdgeKind::Selector {
                via: EdgeName::of("x"),
            },
        )
    }

    /// A patch that moves positions moves every edge: they stay small.
    #[test]
    fn an_edge_is_twelve_bytes() {
        assert_eq!(std::mem::size_of::<EdgeKind>(), 4);
        assert_eq!(std::mem::size_of::<Edge>(), 12);
    }

    #[test]
    fn adjacency_groups_and_keeps_order() {
        let edges = [e(2, 0), e(0, 1), e(2, 1), e(0, 2)];
        let by_from = Adjacency::build(3, &edges, Edge::from_ix);
        assert_eq!(by_from.get(0), &[e(0, 1), e(0, 2)]);
        assert!(by_from.get(1).is_empty());
        assert_eq!(by_from.get(2), &[e(2, 0), e(2, 1)]);
        assert!(by_from.get(7).is_empty());
        let by_to = Adjacency::build(3, &edges, Edge::to_ix);
        assert_eq!(by_to.get(1), &[e(0, 1), e(2, 1)]);
        assert_eq!(by_to.all().len(), 4);
    }

    proptest::proptest! {
        /// Replacing groups in place (spliced or rebuilt, stretch by stretch) equals
        /// building the groups anew from the replaced lists.
        #[test]
        fn replacing_groups_equals_building_them(
            sizes in proptest::collection::vec(0usize..4, 1..24),
            picks in proptest::collection::vec((proptest::bool::ANY, 0usize..4), 24),
        ) {
            let n = sizes.len();
            let mut lists: Vec<Vec<String>> = (0..n)
                .map(|i| (0..sizes[i]).map(|k| format!("{i}.{k}")).collect())
                .collect();
            let keyed = |lists: &[Vec<String>]| -> Vec<(usize, String)> {
                lists
                    .iter()
                    .enumerate()
                    .flat_map(|(i, l)| l.iter().map(move |x| (i, x.clone())))
                    .collect()
            };
            let mut groups = Groups::from_keyed(n, keyed(&lists));
            let replaced: Vec<(usize, Vec<String>)> = (0..n)
                .filter(|&i| picks[i].0)
                .map(|i| (i, (0..picks[i].1).map(|k| format!("new {i}.{k}")).collect()))
                .collect();
            for (i, new) in &replaced {
                lists[*i] = new.clone();
            }
            groups.replace_groups(replaced);
            proptest::prop_assert_eq!(groups, Groups::from_keyed(n, keyed(&lists)));
        }
    }

    #[test]
    fn groups_from_keyed_items_move_with_their_offsets() {
        let keyed = vec![(0, "a"), (0, "b"), (2, "c"), (4, "d")];
        let mut groups = Groups::from_keyed(5, keyed.clone());
        assert_eq!(groups.get(0), &["a", "b"]);
        assert!(groups.get(1).is_empty() && groups.get(3).is_empty());
        assert_eq!(groups.get(4), &["d"]);
        assert_eq!(groups.clone().into_keyed().collect::<Vec<_>>(), keyed);
        // Position 1 grows by two (a gap at 2 and 3), then 3 of the old ones (old 3, 4)
        // shrink into one: "d" is folded into old 3's new position.
        let grow = Resize::of([(1, 1, 3)]).expect("keeps an object");
        groups.resize_offsets(&grow);
        assert_eq!(
            groups.clone().into_keyed().collect::<Vec<_>>(),
            [(0, "a"), (0, "b"), (4, "c"), (6, "d")]
        );
        let shrink = Resize::of([(5, 2, 1)]).expect("keeps an object");
        groups.resize_offsets(&shrink);
        assert_eq!(groups.get(5), &["d"]);
        groups.replace_groups(vec![(0, vec!["e"]), (4, Vec::new()), (5, vec!["f", "g"])]);
        assert_eq!(
            groups.into_keyed().collect::<Vec<_>>(),
            [(0, "e"), (5, "f"), (5, "g")]
        );
    }
}
