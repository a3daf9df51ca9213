//! ownerReference cycles (strongly connected components of the owner graph).
//!
//! A cycle never resolves by itself: in foreground deletion each member waits for the others.

use super::findings::list_some;
use super::Adjacency;
use crate::diagnostic::{Diagnostic, Severity};
use crate::model::Inventory;

/// One error per object that is part of an ownerReference cycle.
pub fn findings(inv: &Inventory, dependents: &Adjacency) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for scc in components(inv.objects.len(), dependents) {
        let self_loop = scc.len() == 1 && dependents.get(scc[0]).iter().any(|e| e.to == scc[0]);
        if scc.len() < 2 && !self_loop {
            continue;
        }
        let names: Vec<String> = scc.iter().map(|&i| inv.objects[i].id.to_string()).collect();
        for &i in &scc {
            out.push(inv.objects[i].finding(
                i,
                Severity::Error,
                "owner-cycle",
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

/// Tarjan's algorithm, iterative (deep owner chains must not overflow the stack).
/// Members of each component are returned in load order.
pub fn components(n: usize, adj: &Adjacency) -> Vec<Vec<usize>> {
    const UNSEEN: usize = usize::MAX;
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0usize; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut out = Vec::new();
    let mut counter = 0;
    for start in 0..n {
        if index[start] != UNSEEN || adj.get(start).is_empty() {
            continue;
        }
        // (node, next edge position)
        let mut work = vec![(start, 0usize)];
        while let Some(&(v, pos)) = work.last() {
            if pos == 0 && index[v] == UNSEEN {
                index[v] = counter;
                low[v] = counter;
                counter += 1;
                stack.push(v);
                on_stack[v] = true;
            }
            if let Some(e) = adj.get(v).get(pos) {
                if let Some(top) = work.last_mut() {
                    top.1 += 1;
                }
                let w = e.to;
                if index[w] == UNSEEN {
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut comp = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
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
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{Edge, EdgeKind};

    fn adj(n: usize, pairs: &[(usize, usize)]) -> Adjacency {
        let edges: Vec<Edge> = pairs
            .iter()
            .map(|&(from, to)| Edge {
                from,
                to,
                kind: EdgeKind::Selector { via: "t" },
            })
            .collect();
        Adjacency::build(n, &edges, |e| e.from)
    }

    fn cyclic(n: usize, pairs: &[(usize, usize)]) -> Vec<Vec<usize>> {
        let a = adj(n, pairs);
        components(n, &a)
            .into_iter()
            .filter(|c| c.len() > 1 || a.get(c[0]).iter().any(|e| e.to == c[0]))
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
