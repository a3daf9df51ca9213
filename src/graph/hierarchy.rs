//! A UI-free tree over the graph: roots, children, collapse/expand and windowed iteration
//! (the shape of gitui's `filetreelist`). `kubesift tree` prints it; the TUI draws it.
//!
//! The tree is flattened in pre-order; each node knows where its subtree ends, so skipping a
//! collapsed subtree is O(1) and a window of visible rows costs only the rows before it.

use std::collections::HashSet;

use super::{Edge, EdgeKind, Graph};

/// Which way to walk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Owner → dependents (and selecting → selected with selector edges).
    Down,
    /// Dependent → owners (and selected → selecting).
    Up,
}

/// How to build a tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TreeOptions {
    pub direction: Direction,
    /// Include selector edges.
    pub selectors: bool,
    /// Include ownerReference edges (the default; `tree --refs` alone leaves them out).
    pub owners: bool,
    /// Include reference edges (`refs`: what an object uses, or with `Up` what uses it).
    pub refs: bool,
    /// Stop adding nodes past this many (a guard against pathological fan-out).
    pub max_nodes: usize,
}

impl Default for TreeOptions {
    fn default() -> Self {
        TreeOptions {
            direction: Direction::Down,
            selectors: false,
            owners: true,
            refs: false,
            max_nodes: 2_000_000,
        }
    }
}

/// One row of the tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TreeNode {
    /// Object index in the inventory.
    pub obj: usize,
    pub depth: usize,
    /// Parent node (index into the tree), `None` for a root.
    pub parent: Option<usize>,
    /// The edge that led here from the parent.
    pub edge: Option<EdgeKind>,
    /// Last child of its parent (for box drawing).
    pub last: bool,
    /// The object is already an ancestor on this path: shown, not expanded again.
    pub cycle: bool,
    /// One past the last node of this node's subtree.
    pub end: usize,
}

impl TreeNode {
    /// Whether the node has children in the tree.
    pub fn has_children(&self, index: usize) -> bool {
        self.end > index + 1
    }
}

/// A flattened, collapsible forest.
#[derive(Clone, Debug, Default)]
pub struct Tree {
    nodes: Vec<TreeNode>,
    collapsed: Vec<bool>,
}

/// Children of `obj`: owner edges, then (when `selectors`) selector edges whose target is
/// not already reachable through the owner edges of another child (a Service selecting a
/// Deployment, its ReplicaSet and its Pods lists only the Deployment).
fn children(graph: &Graph, obj: usize, opts: &TreeOptions, selectors: bool) -> Vec<(usize, Edge)> {
    let owner_edges = match opts.direction {
        Direction::Down => graph.dependents(obj),
        Direction::Up => graph.owners(obj),
    };
    let other = |e: &Edge| match opts.direction {
        Direction::Down => e.to_ix(),
        Direction::Up => e.from_ix(),
    };
    let mut out: Vec<(usize, Edge)> = if opts.owners {
        owner_edges.iter().map(|e| (other(e), *e)).collect()
    } else {
        Vec::new()
    };
    if opts.refs {
        add_refs(graph, obj, opts.direction, &mut out);
    }
    let sel_edges: Vec<Edge> = match (selectors, opts.direction) {
        (false, _) => Vec::new(),
        (true, Direction::Down) => graph.selects(obj).collect(),
        (true, Direction::Up) => graph.selected_by(obj).collect(),
    };
    if !sel_edges.is_empty() {
        let mut shown: HashSet<usize> = HashSet::new();
        for &(c, _) in &out {
            shown.insert(c);
            owner_reach(graph, c, opts.direction, &mut shown);
        }
        let mut below: HashSet<usize> = HashSet::new();
        for e in &sel_edges {
            let mut reach = HashSet::new();
            owner_reach(graph, other(e), opts.direction, &mut reach);
            reach.remove(&other(e));
            below.extend(reach);
        }
        let mut seen = HashSet::new();
        out.extend(
            sel_edges
                .iter()
                .map(|e| (other(e), *e))
                .filter(|(c, _)| !shown.contains(c) && !below.contains(c) && seen.insert(*c)),
        );
    }
    out
}

/// Reference edges of `obj`, one per other object (its first relationship: the others are
/// named by `Graph::relationships`), skipping objects already children.
fn add_refs(graph: &Graph, obj: usize, direction: Direction, out: &mut Vec<(usize, Edge)>) {
    let (edges, other): (&[Edge], fn(&Edge) -> usize) = match direction {
        Direction::Down => (graph.uses(obj), |e| e.to_ix()),
        Direction::Up => (graph.used_by(obj), |e| e.from_ix()),
    };
    let mut seen: HashSet<usize> = out.iter().map(|(c, _)| *c).collect();
    out.extend(
        edges
            .iter()
            .map(|e| (other(e), *e))
            .filter(|(c, _)| seen.insert(*c)),
    );
}

/// Objects reachable from `start` through owner edges in `direction` (a few levels deep).
fn owner_reach(graph: &Graph, start: usize, direction: Direction, out: &mut HashSet<usize>) {
    let mut frontier = vec![start];
    for _ in 0..4 {
        let mut next = Vec::new();
        for o in frontier {
            let edges = match direction {
                Direction::Down => graph.dependents(o),
                Direction::Up => graph.owners(o),
            };
            for e in edges {
                let n = match direction {
                    Direction::Down => e.to_ix(),
                    Direction::Up => e.from_ix(),
                };
                if out.insert(n) {
                    next.push(n);
                }
            }
        }
        if next.is_empty() {
            break;
        }
        frontier = next;
    }
}

impl Tree {
    /// Builds the forest under `roots`.
    pub fn build(graph: &Graph, roots: &[usize], opts: &TreeOptions) -> Tree {
        Tree::collect(Walk::new(graph, roots, opts))
    }

    /// The forest under every root, plus objects no root reaches (members of ownerReference
    /// cycles), so that every object appears at least once.
    pub fn build_all(graph: &Graph, roots: &[usize], opts: &TreeOptions) -> Tree {
        Tree::collect(Walk::all(graph, roots, opts))
    }

    /// The nodes a walk enters, each `end` set when the walk leaves it.
    fn collect(walk: Walk<'_>) -> Tree {
        let mut nodes: Vec<TreeNode> = Vec::new();
        let mut open: Vec<usize> = Vec::new();
        for step in walk {
            match step {
                WalkStep::Enter(n) => {
                    let idx = nodes.len();
                    nodes.push(TreeNode {
                        obj: n.obj,
                        depth: n.depth,
                        parent: open.last().copied(),
                        edge: n.edge,
                        last: n.last,
                        cycle: n.cycle,
                        end: idx + 1,
                    });
                    open.push(idx);
                }
                WalkStep::Leave => {
                    if let Some(i) = open.pop() {
                        nodes[i].end = nodes.len();
                    }
                }
            }
        }
        let collapsed = vec![false; nodes.len()];
        Tree { nodes, collapsed }
    }

    /// Every node in pre-order.
    pub fn nodes(&self) -> &[TreeNode] {
        &self.nodes
    }

    /// Number of nodes (collapsed ones included).
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the tree has no node.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Node `i`.
    pub fn node(&self, i: usize) -> Option<&TreeNode> {
        self.nodes.get(i)
    }

    /// Collapses node `i` (hides its subtree).
    pub fn collapse(&mut self, i: usize) {
        if let Some(c) = self.collapsed.get_mut(i) {
            *c = true;
        }
    }

    /// Expands node `i`.
    pub fn expand(&mut self, i: usize) {
        if let Some(c) = self.collapsed.get_mut(i) {
            *c = false;
        }
    }

    /// Flips node `i`.
    pub fn toggle(&mut self, i: usize) {
        if let Some(c) = self.collapsed.get_mut(i) {
            *c = !*c;
        }
    }

    /// Whether node `i` is collapsed.
    pub fn is_collapsed(&self, i: usize) -> bool {
        self.collapsed.get(i).copied().unwrap_or(false)
    }

    /// Collapses every node that has children.
    pub fn collapse_all(&mut self) {
        for (i, n) in self.nodes.iter().enumerate() {
            self.collapsed[i] = n.has_children(i);
        }
    }

    /// Expands every node.
    pub fn expand_all(&mut self) {
        self.collapsed.iter_mut().for_each(|c| *c = false);
    }

    /// Indices of the visible nodes, in order.
    pub fn visible(&self) -> impl Iterator<Item = usize> + '_ {
        let mut i = 0;
        std::iter::from_fn(move || {
            let node = self.nodes.get(i)?;
            let here = i;
            i = if self.collapsed[here] {
                node.end
            } else {
                here + 1
            };
            Some(here)
        })
    }

    /// At most `max` visible nodes, skipping the first `start` visible ones.
    pub fn window(&self, start: usize, max: usize) -> Vec<usize> {
        self.visible().skip(start).take(max).collect()
    }

    /// Box-drawing guides before node `i`'s label: `│  ` per open ancestor level, then
    /// `├─ `/`└─ ` for an owner edge, `├╌ `/`└╌ ` for a selector edge or `├┄ `/`└┄ ` for a
    /// reference edge; roots get none.
    pub fn guides(&self, i: usize) -> String {
        let Some(node) = self.nodes.get(i) else {
            return String::new();
        };
        if node.parent.is_none() {
            return String::new();
        }
        let mut levels = Vec::new();
        let mut p = node.parent;
        while let Some(pi) = p {
            let pn = &self.nodes[pi];
            if pn.parent.is_some() {
                levels.push(if pn.last { "   " } else { "│  " });
            }
            p = pn.parent;
        }
        levels.reverse();
        let mut s = levels.concat();
        s.push_str(branch(node.edge, node.last));
        s
    }
}

/// The branch drawn before a node reached through `edge`.
pub fn branch(edge: Option<EdgeKind>, last: bool) -> &'static str {
    match (edge, last) {
        (Some(EdgeKind::Selector { .. }), false) => "├╌ ",
        (Some(EdgeKind::Selector { .. }), true) => "└╌ ",
        (Some(EdgeKind::Ref { .. }), false) => "├┄ ",
        (Some(EdgeKind::Ref { .. }), true) => "└┄ ",
        (_, false) => "├─ ",
        (_, true) => "└─ ",
    }
}

/// One node of a [`Walk`], met in pre-order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WalkNode {
    /// Object index in the inventory.
    pub obj: usize,
    pub depth: usize,
    /// The parent's object, `None` for a root.
    pub parent: Option<usize>,
    /// The edge that led here from the parent.
    pub edge: Option<EdgeKind>,
    /// Last child of its parent (for box drawing).
    pub last: bool,
    /// The object is already an ancestor on this path: shown, not expanded again.
    pub cycle: bool,
    /// Whether the walk enters children of this node before leaving it.
    pub has_children: bool,
}

/// What a [`Walk`] does next: enter a node, or leave the innermost node entered and not yet
/// left (after its subtree).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WalkStep {
    Enter(WalkNode),
    Leave,
}

/// A node being walked: its children, computed when it was entered, and the next one.
struct Frame {
    obj: usize,
    depth: usize,
    cycle: bool,
    /// A selector edge is on the path (selector edges are followed one hop only, so trees
    /// do not repeat).
    below_selector: bool,
    kids: Vec<(usize, Edge)>,
    next: usize,
}

/// The pre-order walk of the forest [`Tree::build`] holds, one step at a time: memory is
/// the open path and its children lists, not the rows, so printing a tree of millions of
/// rows (a Service selecting 5,000 Pods, 5,000 times) costs what the graph costs.
pub struct Walk<'a> {
    graph: &'a Graph,
    opts: TreeOptions,
    roots: &'a [usize],
    next_root: usize,
    /// Objects entered so far, when objects no root reaches are walked too (else empty).
    covered: Vec<bool>,
    /// The next object to check against `covered`.
    next_uncovered: usize,
    on_path: Vec<bool>,
    stack: Vec<Frame>,
    entered: usize,
}

impl<'a> Walk<'a> {
    /// The walk of the forest under `roots`.
    pub fn new(graph: &'a Graph, roots: &'a [usize], opts: &TreeOptions) -> Walk<'a> {
        Walk {
            graph,
            opts: *opts,
            roots,
            next_root: 0,
            covered: Vec::new(),
            next_uncovered: 0,
            on_path: vec![false; graph.len()],
            stack: Vec::new(),
            entered: 0,
        }
    }

    /// The walk of [`Tree::build_all`]: the forest under `roots`, then each object not yet
    /// met as a root of its own.
    pub fn all(graph: &'a Graph, roots: &'a [usize], opts: &TreeOptions) -> Walk<'a> {
        let mut walk = Walk::new(graph, roots, opts);
        walk.covered = vec![false; graph.len()];
        walk
    }

    /// Enters `obj`, computing its children unless it closes a cycle.
    fn enter(
        &mut self,
        obj: usize,
        edge: Option<EdgeKind>,
        last: bool,
        below_selector: bool,
    ) -> WalkStep {
        let parent = self.stack.last().map(|f| f.obj);
        let depth = self.stack.last().map_or(0, |f| f.depth + 1);
        self.entered += 1;
        if let Some(c) = self.covered.get_mut(obj) {
            *c = true;
        }
        let cycle = self.on_path.get(obj).copied().unwrap_or(true);
        let kids = if cycle {
            Vec::new()
        } else {
            self.on_path[obj] = true;
            let selectors = self.opts.selectors && !below_selector;
            children(self.graph, obj, &self.opts, selectors)
        };
        let has_children = !kids.is_empty() && self.entered < self.opts.max_nodes;
        self.stack.push(Frame {
            obj,
            depth,
            cycle,
            below_selector,
            kids,
            next: 0,
        });
        WalkStep::Enter(WalkNode {
            obj,
            depth,
            parent,
            edge,
            last,
            cycle,
            has_children,
        })
    }

    /// The next root to enter: a start, then (for [`Walk::all`]) an object not yet met.
    fn next_root(&mut self) -> Option<(usize, bool)> {
        if let Some(&root) = self.roots.get(self.next_root) {
            self.next_root += 1;
            return Some((root, self.next_root == self.roots.len()));
        }
        while self.next_uncovered < self.covered.len() {
            let obj = self.next_uncovered;
            self.next_uncovered += 1;
            if !self.covered[obj] {
                return Some((obj, true));
            }
        }
        None
    }
}

impl Iterator for Walk<'_> {
    type Item = WalkStep;

    fn next(&mut self) -> Option<WalkStep> {
        let full = self.entered >= self.opts.max_nodes;
        let Some(top) = self.stack.last_mut() else {
            if full {
                return None;
            }
            let (root, last) = self.next_root()?;
            return Some(self.enter(root, None, last, false));
        };
        if !full && top.next < top.kids.len() {
            let (child, e) = top.kids[top.next];
            top.next += 1;
            let last = top.next == top.kids.len();
            let below = top.below_selector || matches!(e.kind, EdgeKind::Selector { .. });
            return Some(self.enter(child, Some(e.kind), last, below));
        }
        let frame = self.stack.pop()?;
        if !frame.cycle {
            self.on_path[frame.obj] = false;
        }
        Some(WalkStep::Leave)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::test_inventory;
    use serde_json::json;

    fn owned(kind: &str, name: &str, owner_kind: &str, owner: &str) -> serde_json::Value {
        json!({"apiVersion": "v1", "kind": kind, "metadata": {"name": name, "namespace": "a",
            "ownerReferences": [{"apiVersion": "v1", "kind": owner_kind, "name": owner, "uid": "u"}]}})
    }

    fn sample() -> (crate::model::Inventory, Graph) {
        let inv = test_inventory(&[
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "root", "namespace": "a"}}),
            owned("Secret", "s1", "ConfigMap", "root"),
            owned("Secret", "s2", "ConfigMap", "root"),
            owned("Pod", "p1", "Secret", "s1"),
            owned("Pod", "p2", "Secret", "s2"),
        ]);
        let g = Graph::build(&inv);
        (inv, g)
    }

    #[test]
    fn builds_preorder_with_guides() {
        let (_, g) = sample();
        assert_eq!(g.roots(), vec![0]);
        let t = Tree::build(&g, &g.roots(), &TreeOptions::default());
        let objs: Vec<usize> = t.nodes().iter().map(|n| n.obj).collect();
        assert_eq!(objs, vec![0, 1, 3, 2, 4]);
        let guides: Vec<String> = (0..t.len()).map(|i| t.guides(i)).collect();
        assert_eq!(guides, vec!["", "├─ ", "│  └─ ", "└─ ", "   └─ "]);
        assert_eq!(t.node(0).map(|n| n.end), Some(5));
    }

    #[test]
    fn collapse_and_window() {
        let (_, g) = sample();
        let mut t = Tree::build(&g, &[0], &TreeOptions::default());
        t.collapse(1);
        assert_eq!(t.visible().collect::<Vec<_>>(), vec![0, 1, 3, 4]);
        assert_eq!(t.window(1, 2), vec![1, 3]);
        t.toggle(1);
        assert_eq!(t.visible().count(), 5);
        t.collapse_all();
        assert_eq!(t.visible().collect::<Vec<_>>(), vec![0]);
        t.expand_all();
        assert_eq!(t.window(3, 10), vec![3, 4]);
    }

    #[test]
    fn upward_and_cycles() {
        let (_, g) = sample();
        let t = Tree::build(
            &g,
            &[4],
            &TreeOptions {
                direction: Direction::Up,
                ..TreeOptions::default()
            },
        );
        let objs: Vec<usize> = t.nodes().iter().map(|n| n.obj).collect();
        assert_eq!(objs, vec![4, 2, 0]);

        let inv = test_inventory(&[
            owned("ConfigMap", "x", "ConfigMap", "y"),
            owned("ConfigMap", "y", "ConfigMap", "x"),
        ]);
        let g = Graph::build(&inv);
        assert!(g.roots().is_empty());
        let t = Tree::build(&g, &[0], &TreeOptions::default());
        let rows: Vec<(usize, bool)> = t.nodes().iter().map(|n| (n.obj, n.cycle)).collect();
        assert_eq!(rows, vec![(0, false), (1, false), (0, true)]);
        assert_eq!(
            g.findings()
                .iter()
                .filter(|f| f.code == "owner-cycle")
                .count(),
            2
        );
    }
}
