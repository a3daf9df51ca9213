//! Table state (sort order, the filtered and grouped rows, selection and scroll) and the
//! table's key handling.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet, HashSet};

use roaring::RoaringBitmap;

use super::columns::Column;
use super::picker::PickerKind;
use super::scroll::follow;
use super::{Action, App, Effect, Mode};
use crate::dataset::Moves;
use crate::index::for_each_id;
use crate::model::{Object, ObjectId};
use crate::query::{group_members, GroupBy};

/// One table row: a group header (index into `TableState.groups`) or an object (index
/// into `Inventory.objects`). Eight bytes: a keystroke may write a million of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Row {
    Group(u32),
    Object(u32),
}

/// A group header's text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupRow {
    pub key: String,
    pub count: u64,
    pub collapsed: bool,
}

/// Which column sorts the table, and which way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sort {
    pub column: usize,
    pub descending: bool,
}

/// State of the object table.
#[derive(Clone, Debug, Default)]
pub struct TableState {
    pub columns: Vec<Column>,
    pub sort: Option<Sort>,
    /// Every object, in sort order (filtering keeps this order).
    pub order: Vec<u32>,
    /// `order` is load order (`0..n`, no sort), so the rows in order are `matched` itself.
    identity: bool,
    /// The time `order` was sorted at (cells that show the time sort by it).
    sorted_at: i64,
    /// The current (last valid) match set.
    pub matched: RoaringBitmap,
    pub rows: Vec<Row>,
    /// The group headers `Row::Group` points at.
    pub groups: Vec<GroupRow>,
    pub collapsed: HashSet<String>,
    pub selected: usize,
    /// First visible row.
    pub offset: usize,
    /// Visible body rows (from the last resize).
    pub height: usize,
    /// Sideways scroll, after the columns up to NAME (which stay): 0 is the natural view,
    /// where the least useful columns make room when the row does not fit (label columns
    /// before KIND); `k` ≥ 1 starts at the `k`-th scrollable column, which is always drawn,
    /// so `→` reaches a column the natural view left out.
    pub hscroll: usize,
    /// Marked objects (`space`), by identity so marks survive a reload of their file.
    pub marked: BTreeSet<ObjectId>,
}

impl TableState {
    /// Sorts `order` by the sort column, ties broken by namespace then name (unsorted =
    /// load order).
    pub fn resort(&mut self, objects: &[Object], now: i64) {
        self.order.clear();
        self.order.extend(0..objects.len() as u32);
        self.identity = true;
        self.sorted_at = now;
        let Some(sort) = &self.sort else { return };
        let Some(col) = self.columns.get(sort.column) else {
            return;
        };
        self.identity = false;
        let pool = ui_pool().filter(|_| objects.len() >= PARALLEL_SORT_FROM);
        self.order = sorted(objects, col, sort, now, pool);
    }

    /// Brings `order` up to date with a patch of the data (`moves`): the objects kept
    /// move to their new positions and the ones put in are placed by binary search, rather
    /// than sorting every object again for a one-file edit. `false` (nothing done) when
    /// the sort keys may have changed since the last sort (cells that show the time).
    pub fn follow_moves(&mut self, objects: &[Object], moves: &Moves, now: i64) -> bool {
        let (Some(sort), false) = (&self.sort, self.identity) else {
            self.resort(objects, now);
            return true;
        };
        let Some(col) = self.columns.get(sort.column) else {
            return false;
        };
        // STATUS and the kind's columns can show an age (`Terminating 5m`); AGE sorts by
        // the creation time itself.
        let timed = matches!(col, Column::Status | Column::Printer { .. });
        if now != self.sorted_at && timed {
            return false;
        }
        let key = |i: u32| sort_key(col, &objects[i as usize], now);
        let cmp = |a: u32, ka: &SortKey, b: u32| in_order(sort, objects, (ka, a), (&key(b), b));
        let kept = self.order.iter().filter_map(|&i| moves.new_position(i));
        let old: Vec<u32> = kept.collect();
        let mut added: Vec<(SortKey, u32)> = moves
            .added()
            .flatten()
            .filter_map(|i| u32::try_from(i).ok())
            .map(|i| (key(i), i))
            .collect();
        added.sort_by(|a, b| in_order(sort, objects, (&a.0, a.1), (&b.0, b.1)));
        let mut order = Vec::with_capacity(old.len() + added.len());
        let mut rest = old.as_slice();
        for (k, a) in &added {
            let before = rest.partition_point(|&x| cmp(*a, k, x) == Ordering::Greater);
            order.extend_from_slice(&rest[..before]);
            order.push(*a);
            rest = &rest[before..];
        }
        order.extend_from_slice(rest);
        self.order = order;
        true
    }

    /// Replaces the columns, keeping the sort on the same column when it is still shown.
    pub fn set_columns(&mut self, columns: Vec<Column>) {
        let sorted = self
            .sort
            .as_ref()
            .and_then(|s| Some((self.columns.get(s.column)?.clone(), s.descending)));
        self.sort = sorted.and_then(|(col, descending)| {
            let column = columns.iter().position(|c| *c == col)?;
            Some(Sort { column, descending })
        });
        self.columns = columns;
        self.hscroll = self.hscroll.min(self.scrollable());
    }

    /// Columns that stay in view when the table scrolls sideways: up to NAME.
    pub fn frozen(&self) -> usize {
        self.columns
            .iter()
            .position(|c| *c == Column::Name)
            .map_or(0, |i| i + 1)
    }

    /// Columns that scroll sideways.
    pub fn scrollable(&self) -> usize {
        self.columns.len() - self.frozen()
    }

    /// Where a label column (or LABELS) joins: after the last label column, else before
    /// STATUS, else before SOURCE.
    pub fn label_slot(&self) -> usize {
        let cols = &self.columns;
        let after_labels = cols
            .iter()
            .rposition(|c| matches!(c, Column::Label(_) | Column::Labels))
            .map(|i| i + 1);
        after_labels
            .or_else(|| cols.iter().position(|c| *c == Column::Status))
            .or_else(|| cols.iter().position(|c| *c == Column::Source))
            .unwrap_or(cols.len())
    }

    /// Rebuilds `rows` from `matched` in sort order, grouped when asked.
    ///
    /// Linear in the objects at worst, and in the matches in load order: it runs on every
    /// keystroke. The rows' allocation is reused (a fresh one for a million rows costs its
    /// page faults on every keystroke).
    pub fn rebuild(&mut self, objects: &[Object], group: Option<&GroupBy>) {
        let mut rows = std::mem::take(&mut self.rows);
        rows.clear();
        self.groups.clear();
        match group {
            None => self.for_each_member(|i| rows.push(Row::Object(i))),
            Some(g) => {
                let mut members = Vec::with_capacity(self.matched.len() as usize);
                self.for_each_member(|i| members.push(i));
                let groups: BTreeMap<String, Vec<u32>> = group_members(g, objects, members);
                for (key, ids) in groups {
                    let collapsed = self.collapsed.contains(&key);
                    rows.push(Row::Group(self.groups.len() as u32));
                    self.groups.push(GroupRow {
                        key,
                        count: ids.len() as u64,
                        collapsed,
                    });
                    if !collapsed {
                        rows.extend(ids.into_iter().map(Row::Object));
                    }
                }
            }
        }
        self.rows = rows;
        self.clamp();
    }

    /// Calls `f` with each matched object, in sort order.
    fn for_each_member(&self, f: impl FnMut(u32)) {
        if self.identity
            && self.order.len() as u64 >= self.matched.max().map_or(0, |m| m as u64 + 1)
        {
            return for_each_id(&self.matched, f);
        }
        // A plain bit per object: asking the compressed set per object in sort order cost
        // more than the rest of a keystroke at 1M objects.
        let mut bits = vec![0u64; self.order.len().div_ceil(64)];
        for_each_id(&self.matched, |i| {
            if let Some(w) = bits.get_mut(i as usize / 64) {
                *w |= 1 << (i % 64);
            }
        });
        let has = |i: u32| {
            bits.get(i as usize / 64)
                .is_some_and(|w| w & (1 << (i % 64)) != 0)
        };
        self.order.iter().copied().filter(|&i| has(i)).for_each(f);
    }

    /// Objects `from..to` were appended to the data (a partial batch while loading) and
    /// `more` of them match: extends an ungrouped table in load order with them, keeping
    /// the selection. `false` (nothing done) when the table is sorted or its order does not
    /// end at `from`: rebuild it then.
    pub fn append(&mut self, from: u32, to: u32, more: &RoaringBitmap) -> bool {
        if !self.identity || self.order.len() != from as usize {
            return false;
        }
        self.order.extend(from..to);
        for_each_id(more, |i| self.rows.push(Row::Object(i)));
        self.matched |= more;
        self.clamp();
        true
    }

    /// The header of a `Row::Group`.
    pub fn group(&self, row: &Row) -> Option<&GroupRow> {
        match row {
            Row::Group(g) => self.groups.get(*g as usize),
            Row::Object(_) => None,
        }
    }

    /// The selected object, if the selected row is one.
    pub fn selected_object(&self) -> Option<u32> {
        match self.rows.get(self.selected) {
            Some(Row::Object(i)) => Some(*i),
            _ => None,
        }
    }

    /// Moves the selection by `delta` rows and scrolls to keep it visible.
    pub fn move_by(&mut self, delta: isize) {
        let last = self.rows.len().saturating_sub(1);
        self.selected = self.selected.saturating_add_signed(delta).min(last);
        self.clamp();
    }

    /// Keeps the selection in range and visible.
    pub fn clamp(&mut self) {
        self.selected = self.selected.min(self.rows.len().saturating_sub(1));
        self.offset = follow(self.selected, self.offset, self.rows.len(), self.height);
    }

    /// The rows on screen: `(row number, row)` for the visible window only.
    pub fn visible(&self) -> impl Iterator<Item = (usize, &Row)> {
        self.rows
            .iter()
            .enumerate()
            .skip(self.offset)
            .take(self.height.max(1))
    }
}

impl App {
    fn page(&self) -> isize {
        self.table.height.max(1) as isize
    }

    pub(super) fn table_action(&mut self, action: Action) {
        match action {
            Action::Up | Action::ScrollUp => self.table.move_by(-1),
            Action::Down | Action::ScrollDown => self.table.move_by(1),
            Action::PageUp => self.table.move_by(-self.page()),
            Action::PageDown => self.table.move_by(self.page()),
            Action::Top => self.table.move_by(isize::MIN / 2),
            Action::Bottom => self.table.move_by(isize::MAX / 2),
            Action::Click { row, .. } => self.click(row),
            Action::ScrollLeft => self.table.hscroll = self.table.hscroll.saturating_sub(1),
            Action::ScrollRight => {
                self.table.hscroll = (self.table.hscroll + 1).min(self.table.scrollable());
            }
            Action::ToggleMark => self.toggle_mark(),
            Action::ClearMarks => self.table.marked.clear(),
            Action::FocusBar => {
                self.mode = Mode::Bar;
                self.status = None;
            }
            Action::ClearBar => self.set_bar(String::new()),
            Action::SortNext => self.sort_next(),
            Action::SortReverse => self.sort_reverse(),
            Action::PickNamespace => self.open_picker(PickerKind::Namespace),
            Action::PickKind => self.open_picker(PickerKind::Kind),
            Action::PickColumns => self.open_picker(PickerKind::Columns),
            Action::ToggleLabels => self.toggle_labels(),
            Action::Open => self.open_row(),
            Action::OpenDetail => self.open_detail(),
            Action::ShowYaml => {
                if let Some(i) = self.table.selected_object() {
                    self.open_detail_of(i);
                }
            }
            Action::OpenTree => self.open_tree(),
            Action::ToggleAllGroups => self.toggle_all_groups(),
            Action::Problems => self.mode = Mode::Problems,
            Action::Help => self.open_help(),
            Action::CopyPath if !self.table.marked.is_empty() => self.copy_marked(),
            Action::CopyPath => self.copy_path(),
            Action::Edit if !self.table.marked.is_empty() => self.edit_first_marked(),
            Action::Edit => self.edit_selected(),
            _ => self.dirty = false,
        }
    }

    /// Marks or unmarks the selected object and moves to the next row.
    fn toggle_mark(&mut self) {
        let Some(obj) = self
            .table
            .selected_object()
            .and_then(|i| self.data.inventory.objects.get(i as usize))
        else {
            return;
        };
        if !self.table.marked.remove(&obj.id) {
            self.table.marked.insert(obj.id.clone());
        }
        self.table.move_by(1);
    }

    /// The marked objects still in the data, in the table's order.
    fn marked_objects(&self) -> Vec<&Object> {
        let objects = &self.data.inventory.objects;
        self.table
            .order
            .iter()
            .filter_map(|i| objects.get(*i as usize))
            .filter(|o| self.table.marked.contains(&o.id))
            .collect()
    }

    /// Copies `path:line` of every marked object, one a line.
    fn copy_marked(&mut self) {
        let lines: Vec<String> = self
            .marked_objects()
            .iter()
            .map(|o| o.source.to_string())
            .collect();
        if lines.is_empty() {
            return self.copy_path();
        }
        self.status = Some(format!("copied {} paths", lines.len()));
        self.push(Effect::Copy(lines.join("\n")));
    }

    /// Opens `$EDITOR` on the first marked object.
    fn edit_first_marked(&mut self) {
        let first = self
            .marked_objects()
            .first()
            .map(|o| (o.source.path.clone(), o.source.line));
        match first {
            Some((path, line)) => self.edit(path, line),
            None => self.edit_selected(),
        }
    }

    fn click(&mut self, row: u16) {
        let top = self.screen.body_top();
        if row >= top && row < top + self.table.height as u16 {
            self.table.selected = self.table.offset + (row - top) as usize;
            self.table.clamp();
        }
    }

    fn sort_next(&mut self) {
        let n = self.table.columns.len();
        let column = match &self.table.sort {
            None => 0,
            Some(s) if s.column + 1 >= n => {
                self.table.sort = None;
                return self.resort();
            }
            Some(s) => s.column + 1,
        };
        self.table.sort = Some(Sort {
            column,
            descending: false,
        });
        self.resort();
    }

    fn sort_reverse(&mut self) {
        let sort = self.table.sort.get_or_insert(Sort {
            column: 0,
            descending: false,
        });
        sort.descending = !sort.descending;
        self.resort();
    }

    /// Re-sorts and rebuilds the rows; the cursor stays on the object it was on.
    pub(super) fn resort(&mut self) {
        let data = std::sync::Arc::clone(&self.data);
        let selected = self.table.selected_object();
        self.table.resort(&data.inventory.objects, self.now);
        self.table
            .rebuild(&data.inventory.objects, self.query.group.as_ref());
        let row = selected.and_then(|i| self.table.rows.iter().position(|r| *r == Row::Object(i)));
        if let Some(row) = row {
            self.table.selected = row;
            self.table.clamp();
        }
    }

    fn toggle_labels(&mut self) {
        let cols = &mut self.table.columns;
        match cols.iter().position(|c| *c == Column::Labels) {
            Some(i) => {
                cols.remove(i);
            }
            None => {
                let at = self.table.label_slot();
                self.table.columns.insert(at, Column::Labels);
            }
        }
        self.table.sort = None;
        self.resort();
    }

    fn open_row(&mut self) {
        let selected = self.table.rows.get(self.table.selected);
        let group = selected
            .and_then(|r| self.table.group(r))
            .map(|g| g.key.clone());
        match (selected, group) {
            (_, Some(key)) => {
                if !self.table.collapsed.remove(&key) {
                    self.table.collapsed.insert(key);
                }
                self.resort();
            }
            (Some(Row::Object(_)), None) => self.open_tree(),
            _ => self.dirty = false,
        }
    }

    fn toggle_all_groups(&mut self) {
        let keys: Vec<String> = self.table.groups.iter().map(|g| g.key.clone()).collect();
        if self.table.collapsed.is_empty() {
            self.table.collapsed.extend(keys);
        } else {
            self.table.collapsed.clear();
        }
        self.resort();
    }
}

/// Sort key: numbers for AGE (creation time, newest last), text otherwise.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum SortKey {
    Num(i64),
    Text(String),
    Source(String, u32),
}

/// What the table's order compares of one object: its sort key, namespace, name and
/// position (load order).
type Keyed<'a> = (&'a SortKey, &'a str, &'a str, u32);

/// The table's order of two objects: by key, then namespace, then name, then load order.
fn keyed_order(sort: &Sort, a: Keyed<'_>, b: Keyed<'_>) -> Ordering {
    let by_key = a.0.cmp(b.0);
    let by_key = if sort.descending {
        by_key.reverse()
    } else {
        by_key
    };
    by_key
        .then_with(|| a.1.cmp(b.1))
        .then_with(|| a.2.cmp(b.2))
        .then_with(|| a.3.cmp(&b.3))
}

/// [`keyed_order`] of objects `a` and `b` (with their sort keys), read from `objects`.
fn in_order<'a>(
    sort: &Sort,
    objects: &'a [Object],
    a: (&'a SortKey, u32),
    b: (&'a SortKey, u32),
) -> Ordering {
    let keyed = |(key, i): (&'a SortKey, u32)| -> Keyed<'a> {
        let id = &objects[i as usize].id;
        (key, &id.namespace, &id.name, i)
    };
    keyed_order(sort, keyed(a), keyed(b))
}

/// Tables from this many objects are sorted on every core.
const PARALLEL_SORT_FROM: usize = 20_000;

/// The UI's own worker threads (one per core), for sorting a large table: rayon's global
/// pool may be busy with the loader's label index or graph, and a job of the UI's would
/// queue behind them. At 1M objects a sort on the UI thread alone took 0.65–1.14 s
/// (BENCHMARKS.md, "table1m"). `None` if the threads cannot be started.
fn ui_pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: std::sync::OnceLock<Option<rayon::ThreadPool>> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .thread_name(|i| format!("kubesift-ui-{i}"))
            .build()
            .ok()
    })
    .as_ref()
}

/// Every object's position in `objects` in the table's order for `sort` by `col` (ties by
/// namespace, name, then load order: a total order, so the result is the same on one
/// thread or on `pool`'s).
fn sorted(
    objects: &[Object],
    col: &Column,
    sort: &Sort,
    now: i64,
    pool: Option<&rayon::ThreadPool>,
) -> Vec<u32> {
    use rayon::prelude::*;
    // What `in_order` compares, taken out of the objects once: comparing through them read
    // three pointers deep at random over the whole inventory at every comparison.
    type Owned<'a> = (SortKey, &'a str, &'a str, u32);
    let n = u32::try_from(objects.len()).unwrap_or(u32::MAX);
    let key = |i: u32| {
        let o = &objects[i as usize];
        (sort_key(col, o, now), &*o.id.namespace, &*o.id.name, i)
    };
    let order = |a: &Owned<'_>, b: &Owned<'_>| {
        keyed_order(sort, (&a.0, a.1, a.2, a.3), (&b.0, b.1, b.2, b.3))
    };
    match pool {
        Some(pool) => pool.install(|| {
            let mut keyed: Vec<Owned<'_>> = (0..n).into_par_iter().map(key).collect();
            keyed.par_sort_by(order);
            keyed.into_par_iter().map(|k| k.3).collect()
        }),
        None => {
            let mut keyed: Vec<Owned<'_>> = (0..n).map(key).collect();
            keyed.sort_by(order);
            keyed.into_iter().map(|k| k.3).collect()
        }
    }
}

fn sort_key(col: &Column, obj: &Object, now: i64) -> SortKey {
    match col {
        // Oldest first, like `--sort-by=.metadata.creationTimestamp` reversed by age.
        Column::Age => SortKey::Num(
            obj.creation_timestamp()
                .and_then(super::columns::unix_seconds)
                .map(|t| -t)
                .unwrap_or(i64::MIN),
        ),
        Column::Source => SortKey::Source(obj.source.path.display().to_string(), obj.source.line),
        c => SortKey::Text(c.cell(obj, now)),
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::sync::Arc;

    use super::*;
    use crate::model::load::parse_text;

    /// Sorting on the UI's pool gives the order of sorting on one thread, for every kind of
    /// column, both directions, with ties on the key, the namespace and the name.
    #[test]
    fn a_sort_on_every_core_equals_one_on_one_thread() {
        let text: String = (0..400)
            .map(|i| {
                format!(
                    "apiVersion: v1\nkind: {kind}\nmetadata:\n  name: n{name}\n  namespace: ns{ns}\n  \
                     creationTimestamp: \"2026-01-{day:02}T00:00:00Z\"\n  labels:\n    app: a{app}\n---\n",
                    kind = ["Pod", "Service", "ConfigMap"][i % 3],
                    name = i % 37,
                    ns = i % 3,
                    day = 1 + i % 28,
                    app = i % 5,
                )
            })
            .collect();
        let objects = parse_text(&Arc::from(Path::new("x.yaml")), &text).objects;
        assert_eq!(objects.len(), 400);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .expect("a pool");
        let columns = [
            Column::Namespace,
            Column::Kind,
            Column::Name,
            Column::Label("app".into()),
            Column::Labels,
            Column::Status,
            Column::Age,
            Column::Source,
        ];
        for col in &columns {
            for descending in [false, true] {
                let sort = Sort {
                    column: 0,
                    descending,
                };
                let one = sorted(&objects, col, &sort, 1_780_272_000, None);
                let every = sorted(&objects, col, &sort, 1_780_272_000, Some(&pool));
                assert_eq!(one, every, "{col:?} descending={descending}");
                // The order `in_order` defines (which `follow_moves` places objects by).
                let mut by_objects: Vec<(SortKey, u32)> = (0..400u32)
                    .map(|i| (sort_key(col, &objects[i as usize], 1_780_272_000), i))
                    .collect();
                by_objects.sort_by(|a, b| in_order(&sort, &objects, (&a.0, a.1), (&b.0, b.1)));
                let by_objects: Vec<u32> = by_objects.into_iter().map(|k| k.1).collect();
                assert_eq!(one, by_objects, "{col:?} descending={descending}");
                let mut all = one.clone();
                all.sort_unstable();
                assert_eq!(all, (0..400).collect::<Vec<u32>>());
            }
        }
    }
}
