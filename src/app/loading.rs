//! Partial batches without the label index: while loading, a batch appended to a table
//! whose query has no label term is shown without splicing its labels into the index (at
//! a million objects those splices were much of the UI thread's CPU, taken from the parsers,
//! and the final table replaces that index anyway: BENCHMARKS.md `t1m`). The index
//! catches up before anything reads it: a label query, a fallback to the whole table, and
//! every action but those below that never look at it (typing a name filter while a
//! million objects load does not wait for their labels). The default label columns come
//! from [`KeyCounts`] meanwhile.

use rustc_hash::FxHashMap;

use super::{Action, App};
use crate::dataset::LabelIndex;
use crate::model::Object;

/// How many objects carry each label key, over the objects not in the label index yet:
/// with the index's own counts, what [`crate::index::LabelIndex::most_common_keys`] would
/// say had they been spliced in.
#[derive(Debug, Default)]
pub(super) struct KeyCounts {
    /// Key, objects carrying it, the last of them counted (an object counts once).
    keys: Vec<(Box<str>, u64, u32)>,
    by_text: FxHashMap<Box<str>, usize>,
}

impl KeyCounts {
    /// Counts the label keys of `objects`, numbered from `base`.
    fn add(&mut self, base: u32, objects: &[Object]) {
        // A key of the key table is one text at one address: most labels are found by
        // address among the keys first met in this batch (its objects outlive the loop, so
        // an address cannot be reused for another text meanwhile) without hashing.
        const BY_ADDRESS: usize = 16;
        let mut recent: Vec<(*const u8, usize, usize)> = Vec::with_capacity(BY_ADDRESS);
        for (id, o) in (base..).zip(objects) {
            for (k, _) in &o.labels() {
                let found = recent
                    .iter()
                    .find(|(p, len, _)| *p == k.as_ptr() && *len == k.len())
                    .map(|r| r.2);
                let slot = found.unwrap_or_else(|| {
                    let slot = match self.by_text.get(k) {
                        Some(&s) => s,
                        None => {
                            self.keys.push((k.into(), 0, u32::MAX));
                            self.by_text.insert(k.into(), self.keys.len() - 1);
                            self.keys.len() - 1
                        }
                    };
                    if recent.len() < BY_ADDRESS {
                        recent.push((k.as_ptr(), k.len(), slot));
                    }
                    slot
                });
                let (_, n, last) = &mut self.keys[slot];
                if *last != id {
                    *n += 1;
                    *last = id;
                }
            }
        }
    }

    /// These counts and `indexed` (the index's keys and counts) as one: what stands for a
    /// whole table's counts while its index is still being built (the objects of the last
    /// files loaded, not in any partial batch, are not counted).
    fn with<'a>(&'a self, indexed: impl Iterator<Item = (&'a str, u64)>) -> KeyCounts {
        let mut all = KeyCounts::default();
        let own = self.keys.iter().map(|(k, n, _)| (&**k, *n));
        for (k, n) in indexed.chain(own) {
            match all.by_text.get(k) {
                Some(&slot) => all.keys[slot].1 += n,
                None => {
                    all.keys.push((k.into(), n, u32::MAX));
                    all.by_text.insert(k.into(), all.keys.len() - 1);
                }
            }
        }
        all
    }

    /// The `n` keys carried by the most objects, ties broken by key, counting `indexed`
    /// (the index's keys and counts) and these.
    fn most_common<'a>(
        &'a self,
        indexed: impl Iterator<Item = (&'a str, u64)>,
        n: usize,
    ) -> Vec<String> {
        let all = self.with(indexed);
        LabelIndex::most_common_of(all.keys.iter().map(|(k, count, _)| (&**k, *count)), n)
    }
}

impl App {
    /// Whether objects were appended that the label index does not have yet.
    pub(super) fn index_behind(&self) -> bool {
        (self.data.index.len() as usize) < self.data.inventory.objects.len()
    }

    /// Splices the objects the label index does not have yet into it (all of them when the
    /// whole table came before its index, `Dataset::indexing`: the index that follows is
    /// then dropped).
    pub(super) fn catch_up_index(&mut self) {
        if !self.index_behind() {
            return;
        }
        let waited = self.waiting_for_index();
        let data = std::sync::Arc::make_mut(&mut self.data);
        let whole_table = std::mem::replace(&mut data.indexing, false);
        let at = data.index.len();
        let added = data
            .inventory
            .objects
            .get(at as usize..)
            .unwrap_or_default();
        data.index.splice(at, &[], added);
        self.unindexed_keys = KeyCounts::default();
        if whole_table {
            // The counts of the partial batches may have missed the last files.
            self.auto_columns_follow();
        }
        if waited {
            self.apply_query();
        }
    }

    /// The whole table arrived before its label index (`Dataset::indexing`): label keys
    /// are counted from what the partial batches showed (the default columns) until
    /// [`App::indexed`].
    pub(super) fn loaded_unindexed(&mut self) {
        let counts = self.unindexed_keys.with(self.data.index.keys());
        self.unindexed_keys = counts;
    }

    /// The label index of the whole table arrived: used unless the index was caught up
    /// meanwhile (a label query before it came), then the default columns follow it.
    pub(super) fn indexed(&mut self, index: LabelIndex) {
        if !self.data.indexing || index.len() as usize != self.data.inventory.objects.len() {
            tracing::debug!("a label index arrived for other data, or was built meanwhile");
            return;
        }
        let waited = self.waiting_for_index();
        let data = std::sync::Arc::make_mut(&mut self.data);
        data.index = index;
        data.indexing = false;
        self.unindexed_keys = KeyCounts::default();
        self.auto_columns_follow();
        if waited {
            self.apply_query();
        }
        self.clamp_views();
    }

    /// Whether a partial batch appended from `at` on may leave the label index behind:
    /// not the first (the whole table is set up from it), and nothing about to filter by
    /// labels (the query, or a start-up command waiting for its kind).
    pub(super) fn may_defer_index(&self, at: u32) -> bool {
        at != 0 && !self.query.has_labels() && self.pending_command.is_none()
    }

    /// Notes the label keys of objects appended from `at` on without indexing them.
    pub(super) fn count_unindexed(&mut self, at: u32) {
        let objects = self
            .data
            .inventory
            .objects
            .get(at as usize..)
            .unwrap_or_default();
        self.unindexed_keys.add(at, objects);
    }

    /// The `n` label keys carried by the most objects shown, indexed or not yet.
    pub(super) fn most_common_keys(&self, n: usize) -> Vec<String> {
        if self.index_behind() {
            self.unindexed_keys.most_common(self.data.index.keys(), n)
        } else {
            self.data.index.most_common_keys(n)
        }
    }
}

/// Actions that never read the label index, so need not wait for it to catch up: the
/// loader's own, moving in a view, editing a line (a bar query with label terms catches
/// up in `apply_query`, or waits for the whole table's index; completion and the pickers
/// are not here), sorting (by the objects' cells), help, quitting and messages. (The
/// whole table replaces what was loaded, so the index is never caught up just to be
/// dropped; at 1M objects a catch-up on the UI thread is a stall of seconds.)
pub(super) fn leaves_index_behind(action: &Action) -> bool {
    matches!(
        action,
        Action::Partial(_)
            | Action::LoadProgress { .. }
            | Action::Loaded(_)
            | Action::Indexed(_)
            | Action::Tick(_)
            | Action::Resize(..)
            | Action::Up
            | Action::Down
            | Action::PageUp
            | Action::PageDown
            | Action::Top
            | Action::Bottom
            | Action::ScrollUp
            | Action::ScrollDown
            | Action::FocusBar
            | Action::LeaveBar
            | Action::ClearBar
            | Action::Insert(_)
            | Action::Backspace
            | Action::DeleteChar
            | Action::DeleteWord
            | Action::DeleteToStart
            | Action::DeleteToEnd
            | Action::CursorLeft
            | Action::CursorRight
            | Action::WordLeft
            | Action::WordRight
            | Action::LineStart
            | Action::LineEnd
            | Action::HistoryPrev
            | Action::HistoryNext
            | Action::Notice(_)
            | Action::RenderProgress { .. }
            | Action::SortNext
            | Action::SortReverse
            | Action::ScrollLeft
            | Action::ScrollRight
            | Action::Paste(_)
            | Action::Help
            | Action::Quit
            | Action::Suspend
    )
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::sync::Arc;

    use proptest::prelude::*;

    use super::super::{Action, App, Keymap, Options};
    use crate::dataset::Dataset;
    use crate::index::LabelIndex;
    use crate::model::load::parse_text;
    use crate::model::{Inventory, Object};

    /// Objects with labels drawn from a few keys and values (some objects without any).
    fn objects(labels: &[Vec<(u8, u8)>]) -> Vec<Object> {
        let text: Vec<String> = labels
            .iter()
            .enumerate()
            .map(|(i, ls)| {
                let ls: Vec<String> = ls.iter().map(|(k, v)| format!("k{k}: v{v}")).collect();
                format!(
                    "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c{i}, labels: {{{}}}}}\n",
                    ls.join(", ")
                )
            })
            .collect();
        parse_text(&Arc::from(Path::new("x.yaml")), &text.join("---\n")).objects
    }

    fn batch(objects: &[Object]) -> Box<Inventory> {
        Box::new(Inventory {
            objects: objects.to_vec(),
            ..Default::default()
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Batches appended without a label term leave the index behind; the default
        /// label columns are those of a full index all along, and the index caught up (by
        /// the next key, or a label query) equals one built from every object shown.
        #[test]
        fn deferred_batches_equal_an_index_of_everything_shown(
            labels in proptest::collection::vec(
                proptest::collection::btree_map(0u8..6, 0u8..3, 0..4)
                    .prop_map(|m| m.into_iter().collect::<Vec<_>>()),
                1..40,
            ),
            cuts in proptest::collection::vec(1usize..8, 1..8),
            selector in proptest::bool::ANY,
        ) {
            let all = objects(&labels);
            let options = Options {
                selector: selector.then(|| "k1=v0".to_string()),
                ..Options::default()
            };
            let mut app = App::new(Keymap::load(None).expect("keymap"), options, 0);
            app.update(Action::Resize(120, 30));
            let mut at = 0;
            for cut in cuts.iter().cycle() {
                if at >= all.len() {
                    break;
                }
                let to = (at + cut).min(all.len());
                app.update(Action::Partial(batch(&all[at..to])));
                at = to;
                let shown = LabelIndex::build(&all[..to]);
                prop_assert_eq!(app.most_common_keys(2), shown.most_common_keys(2));
                prop_assert_eq!(app.index_behind(), !selector && to > cuts[0].min(all.len()));
                let matched: Vec<u32> = app.table.matched.iter().collect();
                let want: Vec<u32> = (0..to as u32)
                    .filter(|&i| !selector || all[i as usize].labels().get("k1") == Some("v0"))
                    .collect();
                prop_assert_eq!(matched, want);
            }
            let behind = !selector && all.len() > cuts[0];
            prop_assert_eq!(app.index_behind(), behind);
            // A name filter typed meanwhile leaves it behind; a label term catches it up.
            app.update(Action::FocusBar);
            app.update(Action::ClearBar);
            app.update(Action::FocusBar);
            for c in "~c".chars() {
                app.update(Action::Insert(c));
            }
            prop_assert_eq!(app.index_behind(), behind);
            prop_assert_eq!(app.table.matched.len(), all.len() as u64);
            app.update(Action::ClearBar);
            app.update(Action::FocusBar);
            for c in "k1=v0".chars() {
                app.update(Action::Insert(c));
            }
            prop_assert!(!app.index_behind());
            prop_assert_eq!(&app.data.index, &LabelIndex::build(&all));
            let matched: Vec<u32> = app.table.matched.iter().collect();
            let want: Vec<u32> = (0..all.len() as u32)
                .filter(|&i| all[i as usize].labels().get("k1") == Some("v0"))
                .collect();
            prop_assert_eq!(matched, want);
        }

        /// The whole table before its index (`Dataset::indexing`): the default columns come
        /// from what the partial batches showed until the index arrives; a label query
        /// meanwhile waits for it, matching nothing, without building it on the UI thread,
        /// unless an action that reads the index catches it up first (the index that
        /// arrives later is then dropped); either way the app ends as with a table that
        /// came indexed.
        #[test]
        fn a_table_before_its_index_ends_as_an_indexed_one(
            labels in proptest::collection::vec(
                proptest::collection::btree_map(0u8..6, 0u8..3, 0..4)
                    .prop_map(|m| m.into_iter().collect::<Vec<_>>()),
                1..40,
            ),
            shown in 0usize..40,
            query_first in proptest::bool::ANY,
            catch_up in proptest::bool::ANY,
        ) {
            let all = objects(&labels);
            let shown = shown.min(all.len());
            let fresh = || {
                let mut app = App::new(Keymap::load(None).expect("keymap"), Options::default(), 0);
                app.update(Action::Resize(120, 30));
                if shown > 0 {
                    app.update(Action::Partial(batch(&all[..shown])));
                }
                app
            };
            let inventory = Inventory { objects: all.clone(), ..Default::default() };
            let mut want = fresh();
            want.update(Action::Loaded(Box::new(Dataset::unlinked(inventory.clone()))));
            let mut app = fresh();
            app.update(Action::Loaded(Box::new(Dataset::unindexed(inventory))));
            prop_assert!(app.data.indexing && app.index_behind());
            prop_assert_eq!(app.most_common_keys(2), LabelIndex::build(&all[..shown]).most_common_keys(2));
            prop_assert_eq!(app.table.matched.len(), all.len() as u64);
            let query = |app: &mut App| {
                app.update(Action::FocusBar);
                for c in "k1=v0".chars() {
                    app.update(Action::Insert(c));
                }
            };
            if query_first {
                query(&mut app);
                prop_assert!(app.waiting_for_index());
                prop_assert!(app.data.indexing && app.index_behind());
                prop_assert_eq!(app.table.matched.len(), 0);
                prop_assert!(app.table.rows.is_empty());
                if catch_up {
                    // Sorting leaves it behind; the column picker (label keys) does not.
                    app.update(Action::LeaveBar);
                    app.update(Action::SortNext);
                    prop_assert!(app.waiting_for_index() && app.index_behind());
                    app.update(Action::PickColumns);
                    app.update(Action::Back);
                    prop_assert!(!app.waiting_for_index());
                    prop_assert!(!app.data.indexing && !app.index_behind());
                }
            }
            app.update(Action::Indexed(Box::new(LabelIndex::build(&all))));
            if !query_first {
                query(&mut app);
            }
            query(&mut want);
            prop_assert!(!app.waiting_for_index());
            prop_assert!(!app.data.indexing && !app.index_behind());
            prop_assert_eq!(&app.data.index, &want.data.index);
            prop_assert_eq!(&app.table.columns, &want.table.columns);
            let matched: Vec<u32> = app.table.matched.iter().collect();
            let wanted: Vec<u32> = want.table.matched.iter().collect();
            prop_assert_eq!(matched, wanted);
        }
    }
}
