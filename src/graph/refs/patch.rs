//! Patching reference edges after a change, with the code of a full link.
//!
//! References are namespace-local except those of a few fields (RoleBinding subjects,
//! webhook and APIService Services, a PV's `claimRef`, Gateway API refs, Events): an object
//! with such a reference is marked `cross` when linked. A patch relinks the objects of the
//! namespaces the graph patch recomputes (those of every changed object) plus every `cross`
//! object, against the objects of the namespaces they reach; every other object's edges,
//! dangling references and findings are kept (shifted), since nothing they resolve against
//! changed (a changed cluster-scoped object makes the graph patch rebuild). Unused findings
//! depend on every referrer, so they are recomputed from the merged edges.

use rustc_hash::FxHashSet;

use super::link::{assemble, link_sources, target_ports, Lookup};
use super::{extract, findings, Dangling, Ref, RefGraph};
use crate::diagnostic::Diagnostic;
use crate::graph::{Edge, Graph};
use crate::model::Inventory;

impl Graph {
    /// Adds reference results to a patched graph: `old` and `old_findings` (the old graph's
    /// reference findings) are those of the inventory before the change, `shift` maps an old
    /// position to its new one (none for a replaced object), `recomputed` marks the new
    /// positions whose namespace the graph patch recomputed.
    pub(in crate::graph) fn patch_refs(
        mut self,
        inv: &Inventory,
        old: RefGraph,
        old_findings: Vec<Diagnostic>,
        shift: &dyn Fn(usize) -> Option<usize>,
        recomputed: &[bool],
    ) -> Graph {
        let n = inv.objects.len();
        let mut relinked: Vec<bool> = (0..n)
            .map(|i| recomputed.get(i).copied().unwrap_or(true))
            .collect();
        for (o, _) in old.cross.iter().enumerate().filter(|(_, c)| **c) {
            if let Some(i) = shift(o) {
                relinked[i] = true;
            }
        }
        let sources = || (0..n).filter(|&i| relinked[i]);
        let reach = reached_namespaces(inv, sources());
        let lookup = Lookup::build(inv, |ns| reach.contains(ns));
        let mut linked = link_sources(inv, &lookup, sources());
        let ports = target_ports(inv, &self, sources());
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
        let mut edges: Vec<Edge> = old
            .uses
            .all()
            .iter()
            .filter_map(|e| {
                let (from, to) = (shift(e.from)?, shift(e.to)?);
                (!relinked[from]).then_some(Edge { from, to, ..*e })
            })
            .collect();
        edges.extend(linked.edges);
        edges.sort_by_key(|e| e.from);
        let mut dangling: Vec<Dangling> = old
            .dangling
            .into_iter()
            .filter_map(|d| {
                let from = shift(d.from).filter(|&f| !relinked[f])?;
                Some(Dangling { from, ..d })
            })
            .collect();
        dangling.extend(linked.dangling);
        dangling.sort_by_key(|d| d.from);
        let mut kept: Vec<Diagnostic> = old_findings
            .into_iter()
            .filter(|f| f.code != findings::UNUSED)
            .filter_map(|f| {
                let i = f.object_index().and_then(shift).filter(|&i| !relinked[i])?;
                Some(f.about(i))
            })
            .collect();
        kept.extend(linked.findings);
        let (refs, mut found) = assemble(inv, edges, dangling, cross, kept);
        self.refs = refs;
        self.findings.append(&mut found);
        crate::diagnostic::sort(&mut self.findings);
        self
    }
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
