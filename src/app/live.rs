//! Applying a watched change: the new snapshot replaces the old one while the selection,
//! scroll position, bar and open views stay on the same objects; changed rows flash.

use std::sync::Arc;

use roaring::RoaringBitmap;
use rustc_hash::FxHashMap;

use super::table::Row;
use super::{App, Loaded, Mode, TreeState};
use crate::model::ObjectId;

/// One applied batch of file changes, as the watcher thread hands it over.
#[derive(Clone, Debug, Default)]
pub struct Change {
    /// The snapshot after the batch (index and graph rebuilt for it).
    pub loaded: Loaded,
    /// Identities added or modified by the batch.
    pub changed: Vec<ObjectId>,
    /// How many identities the batch deleted.
    pub deleted: usize,
    /// When the batch was applied (Unix seconds).
    pub at: i64,
}

/// What the header says about the last applied change.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LastChange {
    pub at: i64,
    pub changed: usize,
    pub deleted: usize,
}

/// How long changed rows stay highlighted (seconds; ticks come once a second).
pub const FLASH_SECONDS: i64 = 2;

impl App {
    /// Replaces the data with a changed snapshot, keeping the user's place.
    pub(super) fn apply_change(&mut self, change: Change) {
        let old = Arc::clone(&self.data);
        let id_of = |i: u32| old.inventory.objects.get(i as usize).map(|o| o.id.clone());
        let selected = self.table.selected_object().and_then(id_of);
        let rows_above = self.table.selected.saturating_sub(self.table.offset);
        let old_selected = self.table.selected;
        let detail = self.detail.as_ref().and_then(|d| id_of(d.object));
        let tree = self.tree.as_ref().map(|t| {
            (
                id_of(t.object),
                t.selected_object().and_then(id_of),
                t.selectors,
            )
        });

        self.problem_rows = super::problem_rows(&change.loaded);
        self.data = Arc::new(change.loaded);
        let positions: FxHashMap<&ObjectId, u32> = self
            .data
            .inventory
            .objects
            .iter()
            .enumerate()
            .rev()
            .filter_map(|(i, o)| Some((&o.id, u32::try_from(i).ok()?)))
            .collect();
        let find = |id: &Option<ObjectId>| id.as_ref().and_then(|id| positions.get(id).copied());
        let flash: RoaringBitmap = change
            .changed
            .iter()
            .filter_map(|id| positions.get(id).copied())
            .collect();
        let new_selected = find(&selected);
        let new_detail = find(&detail);
        let new_tree = tree.map(|(root, sel, selectors)| (find(&root), find(&sel), selectors));
        drop(positions);

        // Table: same object selected, at the same height on screen; else the nearest row.
        let data = Arc::clone(&self.data);
        self.table.resort(&data.inventory.objects, self.now);
        self.apply_query();
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
                Some(r) => {
                    let mut t = TreeState::open(&self.data.graph, r, selectors);
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
                None => {
                    self.tree = None;
                    if self.mode == Mode::Tree {
                        self.mode = Mode::Table;
                    }
                }
            }
        }

        // Freeing the previous snapshot (every object's value tree) takes longer than all of
        // the above at 100k objects: do it off the UI thread.
        if Arc::strong_count(&old) == 1 {
            std::thread::spawn(move || drop(old));
        }
        self.flash = flash;
        self.flash_until = change.at.max(self.now) + FLASH_SECONDS;
        self.last_change = Some(LastChange {
            at: change.at,
            changed: change.changed.len(),
            deleted: change.deleted,
        });
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
