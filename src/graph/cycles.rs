//! ownerReference cycles (strongly connected components of the owner graph).
//!
//! A cycle never resolves by itself: in foreground deletion each member waits for the others.

use rustc_hash::FxHashMap;

use super::findings::list_some;
use super::Adjacency;
use crate::diagnostic::{Diagnostic, Severity};
use crate::model::Inventory;

/// Code of the findings this module makes.
pub(super) const CODE: &str = "owner-cycle";

/// One error per object that is part of an ownerReference cycle.
pub fn findings(inv: &Inventory, dependents: &Adjacency) -> Vec<Diagnostic> {
    cycle_findings(inv, dependents, components(inv.objects.len(), dependents))
}

/// The findings of every cycle reachable from `starts` along owner → dependent edges: all
/// cycles that hold an object reached (a cycle is reached whole or not at all).
pub(super) fn findings_from(
    inv: &Inventory,
    dependents: &Adjacency,
    starts: impl Iterator<Item = usize>,
) -> Vec<Diagnostic> {
    let mut state = Sparse::default();
    let mut out = Vec::new();
    for start in starts {
        tarjan_from(start, dependents, &mut state, &mut out);
    }
    cycle_findings(inv, dependents, out)
}

fn cycle_findings(
    inv: &Inventory,
    dependents: &Adjacency,
    components: Vec<Vec<usize>>,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for scc in components {
        let self_loop =
            scc.len() == 1 && dependents.get(scc[0]).iter().any(|e| e.to_ix() == scc[0]);
        if scc.len() < 2 && !self_loop {
            continue;
        }
        let names: Vec<String> = scc.iter().map(|&i| inv.objects[i].id.to_string()).collect();
        for &i in &scc {
            out.push(inv.objects[i].finding(
                i,
                Severity::Error,
                CODE,
                format!(
                    "ownerReference cycle among {} object(s): {}",
                    scc.len(),
                    list_some(&names, 10)
                ),
            ));
        }
    }
    out
}

/// Tarjan's bookkeeping per node: visit order, lowest reachable order, on the stack.
trait State {
    /// `None` for a node not visited yet.
    fn index(&self, v: usize) -> Option<usize>;
    fn low(&self, v: usize) -> usize;
    fn on_stack(&self, v: usize) -> bool;
    fn visit(&mut self, v: usize, order: usize);
    fn set_low(&mut self, v: usize, low: usize);
    fn pop(&mut self, v: usize);
    /// How many nodes were visited.
    fn counter(&self) -> usize;
}

const UNSEEN: usize = usize::MAX;

/// State in arrays over every node (a whole graph).
struct Dense {
    index: Vec<usize>,
    low: Vec<usize>,
    on_stack: Vec<bool>,
    counter: usize,
}

impl State for Dense {
    fn index(&self, v: usize) -> Option<usize> {
        Some(self.index[v]).filter(|&i| i != UNSEEN)
    }
    fn low(&self, v: usize) -> usize {
        self.low[v]
    }
    fn on_stack(&self, v: usize) -> bool {
        self.on_stack[v]
    }
    fn visit(&mut self, v: usize, order: usize) {
        self.index[v] = order;
        self.low[v] = order;
        self.on_stack[v] = true;
        self.counter += 1;
    }
    fn set_low(&mut self, v: usize, low: usize) {
        self.low[v] = low;
    }
    fn pop(&mut self, v: usize) {
        self.on_stack[v] = false;
    }
    fn counter(&self) -> usize {
        self.counter
    }
}

/// State in a map over the nodes visited (a patch reaches few of them).
#[derive(Default)]
struct Sparse {
    /// Node → (index, low, on stack).
    nodes: FxHashMap<usize, (usize, usize, bool)>,
}

impl State for Sparse {
    fn index(&self, v: usize) -> Option<usize> {
        self.nodes.get(&v).map(|n| n.0)
    }
    fn low(&self, v: usize) -> usize {
        self.nodes.get(&v).map_or(0, |n| n.1)
    }
    fn on_stack(&self, v: usize) -> bool {
        self.nodes.get(&v).is_some_and(|n| n.2)
    }
    fn visit(&mut self, v: usize, order: usize) {
        self.nodes.insert(v, (order, order, true));
    }
    fn set_low(&mut self, v: usize, low: usize) {
        if let Some(n) = self.nodes.get_mut(&v) {
            n.1 = low;
        }
    }
    fn pop(&mut self, v: usize) {
        if let Some(n) = self.nodes.get_mut(&v) {
            n.2 = false;
        }
    }
    fn counter(&self) -> usize {
        self.nodes.len()
    }
}

/// Tarjan's algorithm, iterative (deep owner chains must not overflow the stack).
/// Members of each component are returned in load order.
pub fn components(n: usize, adj: &Adjacency) -> Vec<Vec<usize>> {
    let mut state = Dense {
        index: vec![UNSEEN; n],
        low: vec![0usize; n],
        on_stack: vec![false; n],
        counter: 0,
    };
    let mut out = Vec::new();
    for start in 0..n {
        tarjan_from(start, adj, &mut state, &mut out);
    }
    out
}

/// The components found from `start` (nothing when it is visited or has no edge).
fn tarjan_from(start: usize, adj: &Adjacency, state: &mut impl State, out: &mut Vec<Vec<usize>>) {
    if state.index(start).is_some() || adj.get(start).is_empty() {
        return;
    }
    let mut stack = Vec::new();
    // (node, next edge position)
    let mut work = vec![(start, 0usize)];
    while let Some(&(v, pos)) = work.last() {
        if pos == 0 && state.index(v).is_none() {
            let order = state.counter();
            state.visit(v, order);
            stack.push(v);
        }
        if let Some(e) = adj.get(v).get(pos) {
            if let Some(top) = work.last_mut() {
                top.1 += 1;
            }
            let w = e.to_ix();
            match state.index(w) {
                None => work.push((w, 0)),
                Some(iw) if state.on_stack(w) => state.set_low(v, state.low(v).min(iw)),
                Some(_) => {}
            }
            continue;
        }
        work.pop();
        if let Some(&(parent, _)) = work.last() {
            let low = state.low(parent).min(state.low(v));
            state.set_low(parent, low);
        }
        if Some(state.low(v)) == state.index(v) {
            let mut comp = Vec::new();
            while let Some(w) = stack.pop() {
                state.pop(w);
                comp.push(w);
                if w == v {
                    break;
                }
            }
            comp.sort_unstable();
            out.push(comp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{Edge, EdgeKind};

    fn adj(n: usize, pairs: &[(usize, usize)]) -> Adjacency {
        let edges: Vec<Edge> = pairs
            .iter()
            .map(|&(from, to)| {
                let via = crate::graph::EdgeName::of("t");
                Edge::new(from, to, EdgeKind::Selector { via })
            })
            .collect();
        Adjacency::build(n, &edges, Edge::from_ix)
    }

    fn cyclic(n: usize, pairs: &[(usize, usize)]) -> Vec<Vec<usize>> {
        let a = adj(n, pairs);
        components(n, &a)
            .into_iter()
            .filter(|c| c.len() > 1 || a.get(c[0]).iter().any(|e| e.to_ix() == c[0]))
            .collect()
    }

    #[test]
    fn finds_cycles_only() {
        assert!(cyclic(3, &[(0, 1), (1, 2)]).is_empty());
        assert_eq!(cyclic(3, &[(0, 1), (1, 2), (2, 0)]), vec![vec![0, 1, 2]]);
        assert_eq!(cyclic(2, &[(1, 1)]), vec![vec![1]]);
        let mut two = cyclic(5, &[(0, 1), (1, 0), (2, 3), (3, 4), (4, 3)]);
        two.sort();
        assert_eq!(two, vec![vec![0, 1], vec![3, 4]]);
    }

    #[test]
    fn deep_chain_does_not_overflow() {
        let n = 200_000;
        let pairs: Vec<(usize, usize)> = (0..n - 1).map(|i| (i, i + 1)).collect();
        assert!(cyclic(n, &pairs).is_empty());
    }
}
