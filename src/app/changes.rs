//! Applying a watched change: the new snapshot replaces the old one while the selection,
//! scroll position, bar and open views stay on the same objects; changed rows flash.

use std::sync::Arc;
use std::time::{Duration, Instant};

use roaring::RoaringBitmap;
use rustc_hash::{FxHashMap, FxHashSet};

use super::table::Row;
use super::{App, Mode, TreeState};
use crate::dataset::{Change, ChangeData, DeltaKind, Moves};
use crate::model::{Object, ObjectId};

/// What the header says about the last applied change.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LastChange {
    pub at: i64,
    /// Identities that were not there before the batch (a file moved back counts here,
    /// as `get -w` says ADDED).
    pub added: usize,
    pub updated: usize,
    pub deleted: usize,
}

impl LastChange {
    /// The counts of the batch for the header: `1 added, 2 updated, 0 deleted`, the
    /// added part only when something was added.
    pub fn counts(&self) -> String {
        let added = match self.added {
            0 => String::new(),
            n => format!("{n} added, "),
        };
        format!("{added}{} updated, {} deleted", self.updated, self.deleted)
    }
}

/// What the UI's own part of applying the last watched batch cost (for `kubesift bench`),
/// besides the data's patch ([`crate::dataset::PatchReport`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ApplyCost {
    /// Rebuilding the problem rows.
    pub problems: Duration,
    /// Sorting and filtering the table's rows.
    pub table: Duration,
}

/// How long changed rows stay highlighted (seconds; ticks come once a second).
pub const FLASH_SECONDS: i64 = 2;

impl App {
    /// Brings the data up to date with a watched batch, keeping the user's place.
    pub(super) fn apply_change(&mut self, change: Change) {
        // Where the user is, as (position, identity) in the current data.
        let at = |i: u32| -> Option<(u32, ObjectId)> {
            Some((i, self.data.inventory.objects.get(i as usize)?.id.clone()))
        };
        let selected = self.table.selected_object().and_then(at);
        let rows_above = self.table.selected.saturating_sub(self.table.offset);
        let old_selected = self.table.selected;
        let detail = self.detail.as_ref().and_then(|d| at(d.object));
        let tree = self
            .tree
            .as_ref()
            .map(|t| (at(t.object), t.selected_object().and_then(at), t.selectors));

        let changed: Vec<ObjectId> = change.changed().cloned().collect();
        let deleted = change.deleted();
        let moves = match change.data {
            ChangeData::Full(dataset) => {
                self.last_patch = None;
                let old = std::mem::replace(&mut self.data, Arc::new(*dataset));
                self.release(old);
                None
            }
            ChangeData::Patch(patch) => {
                let data = Arc::make_mut(&mut self.data);
                match data.apply_patch(patch) {
                    Some((moves, report)) => {
                        tracing::debug!(?report, "data patched");
                        self.last_patch = Some(report);
                        Some(moves)
                    }
                    None => {
                        // Cannot happen while the watcher and the UI see the same batches;
                        // if it does, say so rather than show a wrong picture silently.
                        self.status =
                            Some("a change did not fit the data shown; restart to reload".into());
                        return;
                    }
                }
            }
        };
        let t = Instant::now();
        self.set_problem_rows();
        let problems = t.elapsed();
        let wanted: Vec<&(u32, ObjectId)> = [&selected, &detail]
            .into_iter()
            .flatten()
            .chain(tree.iter().flat_map(|(r, s, _)| r.iter().chain(s.iter())))
            .collect();
        let found = locate(
            &self.data.inventory.objects,
            moves.as_ref(),
            &wanted,
            &changed,
        );
        let find =
            |p: &Option<(u32, ObjectId)>| p.as_ref().and_then(|(_, id)| found.get(id).copied());
        let flash: RoaringBitmap = changed
            .iter()
            .filter_map(|id| found.get(id).copied())
            .collect();
        let new_selected = find(&selected);
        let new_detail = find(&detail);
        let new_tree = tree.map(|(root, sel, selectors)| (find(&root), find(&sel), selectors));

        // Table: same object selected, at the same height on screen; else the nearest row.
        let t = Instant::now();
        let data = Arc::clone(&self.data);
        let objects = &data.inventory.objects;
        let followed = moves
            .as_ref()
            .is_some_and(|m| self.table.follow_moves(objects, m, self.now));
        if !followed {
            self.table.resort(objects, self.now);
        }
        self.apply_query();
        self.last_apply = ApplyCost {
            problems,
            table: t.elapsed(),
        };
        let row = new_selected.and_then(|i| {
            self.table
                .rows
                .iter()
                .position(|r| matches!(r, Row::Object(j) if *j == i))
        });
        self.table.selected = row.unwrap_or(old_selected);
        self.table.offset = self.table.selected.saturating_sub(rows_above);
        self.table.clamp();

        // Detail: follow the object (its text is re-read); close it if the object vanished.
        match (self.detail.as_mut(), new_detail) {
            (Some(d), Some(i)) => {
                let scroll = d.scroll;
                let under = self.detail_from;
                self.open_detail_of_keeping(i, scroll, under);
            }
            (Some(_), None) => {
                self.detail = None;
                if self.mode == Mode::Detail {
                    self.mode = self.detail_from;
                }
                self.status = Some("the object shown was deleted from its file".into());
            }
            _ => {}
        }
        // Tree: rebuilt around the same object, selection kept when it is still there.
        if let Some((root, sel, selectors)) = new_tree {
            match root {
                Some(r) => self.reopen_tree(r, sel, selectors),
                None => {
                    self.tree = None;
                    if self.mode == Mode::Tree {
                        self.mode = Mode::Table;
                    }
                }
            }
        }

        if change.quiet {
            return;
        }
        self.flash = flash;
        self.flash_until = change.at.max(self.now) + FLASH_SECONDS;
        let added = change
            .deltas
            .iter()
            .filter(|d| d.kind == DeltaKind::Added)
            .count();
        self.last_change = Some(LastChange {
            at: change.at,
            added,
            updated: changed.len().saturating_sub(added),
            deleted,
        });
    }

    /// Rebuilds the tree around `root` from the current graph, keeping `sel` selected when
    /// it is still in the tree.
    fn reopen_tree(&mut self, root: u32, sel: Option<u32>, selectors: bool) {
        let refs = self.tree.as_ref().is_some_and(|t| t.refs);
        let mut t = TreeState::open_with(&self.data.graph, root, selectors, refs);
        if let Some(s) = sel {
            if let Some(pos) = t
                .tree
                .visible()
                .position(|n| t.tree.node(n).is_some_and(|node| node.obj == s as usize))
            {
                t.selected = pos;
            }
        }
        t.move_by(0, self.screen.body_height());
        self.tree = Some(t);
    }

    /// The graph changed under unchanged objects (it arrived after the table): an open tree
    /// or detail view shows the owners and selectors now.
    pub(super) fn relink_views(&mut self) {
        if let Some(t) = &self.tree {
            let (root, sel, selectors) = (t.object, t.selected_object(), t.selectors);
            self.reopen_tree(root, sel, selectors);
        }
        if let Some(d) = &self.detail {
            let (object, scroll, under) = (d.object, d.scroll, self.detail_from);
            self.open_detail_of_keeping(object, scroll, under);
        }
    }

    /// Whether object `i` changed in the last applied batch and still flashes.
    pub fn flashing(&self, i: u32) -> bool {
        self.now < self.flash_until && self.flash.contains(i)
    }

    /// Whether object `i` is kept from an earlier read of a file that now fails to load.
    pub fn is_stale(&self, i: u32) -> bool {
        self.data.stale.contains(i)
    }
}

/// New positions of the identities the user was on (`wanted`, with their old positions) and
/// of the `changed` ones: through `moves` when the data was patched (an object outside the
/// re-read files just shifted, so the very row stays selected; a changed one is among the
/// added runs), else, and for whatever that leaves, one pass over the objects (the first
/// definition of an identity wins).
fn locate(
    objects: &[Object],
    moves: Option<&Moves>,
    wanted: &[&(u32, ObjectId)],
    changed: &[ObjectId],
) -> FxHashMap<ObjectId, u32> {
    let mut found: FxHashMap<ObjectId, u32> = FxHashMap::default();
    let mut missing: FxHashSet<&ObjectId> =
        wanted.iter().map(|(_, id)| id).chain(changed).collect();
    if let Some(moves) = moves {
        for (old, id) in wanted {
            let new = moves
                .new_position(*old)
                .filter(|&n| objects.get(n as usize).is_some_and(|o| o.id == *id));
            if let Some(n) = new {
                found.insert(id.clone(), n);
                missing.remove(id);
            }
        }
        for range in moves.added() {
            for (i, o) in objects[range.clone()].iter().enumerate() {
                if missing.remove(&o.id) {
                    found.insert(o.id.clone(), (range.start + i) as u32);
                }
            }
        }
    }
    if !missing.is_empty() {
        for (i, o) in objects.iter().enumerate() {
            if missing.remove(&o.id) {
                found.insert(o.id.clone(), i as u32);
                if missing.is_empty() {
                    break;
                }
            }
        }
    }
    found
}
