//! Owner tree view: its state (the tree around one object, selection and scroll) and its
//! key handling.

use std::collections::{HashMap, HashSet};

use super::scroll::follow;
use super::{Action, App, Mode};
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
    /// Include reference edges (Deployment → ConfigMap …).
    pub refs: bool,
    /// Position among the visible nodes.
    pub selected: usize,
    pub offset: usize,
    /// Owner-reference finding codes of the tree's objects (`owner-…`), joined by `, `:
    /// worked out once when the tree opens, so a frame does not scan every finding per row.
    pub owner_problems: HashMap<usize, String>,
}

impl TreeState {
    /// The tree from `object`'s topmost owner down, with `object` selected.
    pub fn open(graph: &Graph, object: u32, selectors: bool) -> TreeState {
        TreeState::open_with(graph, object, selectors, false)
    }

    /// [`TreeState::open`], with reference edges when `refs`.
    pub fn open_with(graph: &Graph, object: u32, selectors: bool, refs: bool) -> TreeState {
        let root = top_owner(graph, object as usize);
        let opts = TreeOptions {
            direction: Direction::Down,
            selectors,
            refs,
            ..TreeOptions::default()
        };
        let tree = Tree::build(graph, &roots(graph, root, selectors), &opts);
        let selected = tree
            .visible()
            .position(|i| tree.node(i).is_some_and(|n| n.obj == object as usize))
            .unwrap_or(0);
        let owner_problems = owner_problems(graph, &tree);
        TreeState {
            object,
            tree,
            selectors,
            refs,
            selected,
            offset: 0,
            owner_problems,
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
        let len = self.tree.visible().count();
        self.selected = self
            .selected
            .saturating_add_signed(delta)
            .min(len.saturating_sub(1));
        self.offset = follow(self.selected, self.offset, len, height);
    }
}

/// The owner finding codes (in the findings' order) of each object shown in `tree`.
fn owner_problems(graph: &Graph, tree: &Tree) -> HashMap<usize, String> {
    let shown: HashSet<usize> = tree.nodes().iter().map(|n| n.obj).collect();
    let mut out: HashMap<usize, String> = HashMap::new();
    for f in graph.findings() {
        let Some(obj) = f.object.map(|o| o as usize) else {
            continue;
        };
        if !f.code.starts_with("owner") || !shown.contains(&obj) {
            continue;
        }
        let codes = out.entry(obj).or_default();
        if !codes.is_empty() {
            codes.push_str(", ");
        }
        codes.push_str(f.code);
    }
    out
}

impl App {
    pub(super) fn open_tree(&mut self) {
        if self.loading.is_some() {
            // Partial loads carry no graph yet.
            self.status = Some("the owner tree opens when loading has finished".into());
            return;
        }
        // While the graph is still being linked the tree opens around the object alone and
        // fills when the graph arrives (`App::relink_views`).
        if let Some(i) = self.table.selected_object() {
            let selectors = self.tree.as_ref().is_some_and(|t| t.selectors);
            let refs = self.tree.as_ref().is_some_and(|t| t.refs);
            let mut tree = TreeState::open_with(&self.data.graph, i, selectors, refs);
            tree.move_by(0, self.screen.view_height());
            self.tree = Some(tree);
            self.mode = Mode::Tree;
        }
    }

    pub(super) fn tree_action(&mut self, action: Action) {
        let height = self.screen.view_height();
        let Some(t) = self.tree.as_mut() else {
            self.mode = Mode::Table;
            return;
        };
        let page = height.max(1) as isize;
        match action {
            Action::Up | Action::ScrollUp => t.move_by(-1, height),
            Action::Down | Action::ScrollDown => t.move_by(1, height),
            Action::PageUp => t.move_by(-page, height),
            Action::PageDown => t.move_by(page, height),
            Action::Top => t.move_by(isize::MIN / 2, height),
            Action::Bottom => t.move_by(isize::MAX / 2, height),
            Action::ToggleNode => {
                if let Some(n) = t.selected_node() {
                    t.tree.toggle(n);
                    t.move_by(0, height);
                }
            }
            Action::ToggleSelectors => {
                let object = t.selected_object().unwrap_or(t.object);
                let mut fresh =
                    TreeState::open_with(&self.data.graph, object, !t.selectors, t.refs);
                fresh.move_by(0, height);
                *t = fresh;
            }
            Action::ToggleRefs => {
                let object = t.selected_object().unwrap_or(t.object);
                let mut fresh =
                    TreeState::open_with(&self.data.graph, object, t.selectors, !t.refs);
                fresh.move_by(0, height);
                *t = fresh;
            }
            Action::Open | Action::ShowYaml => {
                if let Some(i) = t.selected_object() {
                    self.open_detail_of(i);
                }
            }
            Action::OpenDetail => {
                if let Some(i) = t.selected_object() {
                    self.open_detail_tab(i, super::DetailTab::Describe);
                }
            }
            Action::Back | Action::OpenTree => self.mode = Mode::Table,
            Action::CopyPath => self.copy_path(),
            Action::Edit => self.edit_selected(),
            Action::Help => self.open_help(),
            _ => self.dirty = false,
        }
    }
}

/// With selector edges, the objects selecting the top owner (a Service selecting a
/// Deployment) head the tree, so the owner chain shows under them.
fn roots(graph: &Graph, top: usize, selectors: bool) -> Vec<usize> {
    let mut roots: Vec<usize> = if selectors {
        graph.selected_by(top).map(|e| e.from_ix()).collect()
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
        if seen.contains(&edge.from_ix()) {
            break;
        }
        obj = edge.from_ix();
        seen.push(obj);
    }
    obj
}
