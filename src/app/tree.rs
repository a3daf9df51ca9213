//! Owner tree view state: the tree around one object, selection and scroll.

use crate::graph::hierarchy::{Direction, Tree, TreeOptions};
use crate::graph::Graph;

/// The owner → dependents tree shown for one object.
#[derive(Clone, Debug, Default)]
pub struct TreeState {
    /// The object the tree was opened on.
    pub object: u32,
    pub tree: Tree,
    /// Include selector edges (Service → Deployment …).
    pub selectors: bool,
    /// Position among the visible nodes.
    pub selected: usize,
    pub offset: usize,
}

impl TreeState {
    /// The tree from `object`'s topmost owner down, with `object` selected.
    pub fn open(graph: &Graph, object: u32, selectors: bool) -> TreeState {
        let root = top_owner(graph, object as usize);
        let opts = TreeOptions {
            direction: Direction::Down,
            selectors,
            ..TreeOptions::default()
        };
        let tree = Tree::build(graph, &roots(graph, root, selectors), &opts);
        let selected = tree
            .visible()
            .position(|i| tree.node(i).is_some_and(|n| n.obj == object as usize))
            .unwrap_or(0);
        TreeState {
            object,
            tree,
            selectors,
            selected,
            offset: 0,
        }
    }

    /// Tree node index of the selected row.
    pub fn selected_node(&self) -> Option<usize> {
        self.tree.visible().nth(self.selected)
    }

    /// The selected object.
    pub fn selected_object(&self) -> Option<u32> {
        let node = self.tree.node(self.selected_node()?)?;
        u32::try_from(node.obj).ok()
    }

    /// Moves the selection and keeps it within `height` rows.
    pub fn move_by(&mut self, delta: isize, height: usize) {
        let last = self.tree.visible().count().saturating_sub(1);
        self.selected = self.selected.saturating_add_signed(delta).min(last);
        let h = height.max(1);
        if self.selected < self.offset {
            self.offset = self.selected;
        } else if self.selected >= self.offset + h {
            self.offset = self.selected + 1 - h;
        }
    }
}

/// With selector edges, the objects selecting the top owner (a Service selecting a
/// Deployment) head the tree, so the owner chain shows under them.
fn roots(graph: &Graph, top: usize, selectors: bool) -> Vec<usize> {
    let mut roots: Vec<usize> = if selectors {
        graph.selected_by(top).iter().map(|e| e.from).collect()
    } else {
        Vec::new()
    };
    roots.dedup();
    if roots.is_empty() {
        roots.push(top);
    }
    roots
}

/// Follows the first owner edge upwards (stopping at a cycle) to the topmost owner.
fn top_owner(graph: &Graph, mut obj: usize) -> usize {
    let mut seen = vec![obj];
    while let Some(edge) = graph.owners(obj).first() {
        if seen.contains(&edge.from) {
            break;
        }
        obj = edge.from;
        seen.push(obj);
    }
    obj
}
