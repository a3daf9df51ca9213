//! Table state (sort order, the filtered and grouped rows, selection and scroll) and the
//! table's key handling.

use std::collections::{BTreeMap, HashSet};

use roaring::RoaringBitmap;

use super::columns::Column;
use super::picker::PickerKind;
use super::scroll::follow;
use super::{Action, App, Mode};
use crate::model::Object;
use crate::query::{group_key, GroupBy};

/// One table row: a group header or an object (index into `Inventory.objects`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Row {
    Group {
        key: String,
        count: u64,
        collapsed: bool,
    },
    Object(u32),
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
    /// The current (last valid) match set.
    pub matched: RoaringBitmap,
    pub rows: Vec<Row>,
    pub collapsed: HashSet<String>,
    pub selected: usize,
    /// First visible row.
    pub offset: usize,
    /// Visible body rows (from the last resize).
    pub height: usize,
}

impl TableState {
    /// Sorts `order` by the sort column (stable; unsorted = load order).
    pub fn resort(&mut self, objects: &[Object], now: i64) {
        self.order = (0..objects.len() as u32).collect();
        let Some(sort) = &self.sort else { return };
        let Some(col) = self.columns.get(sort.column) else {
            return;
        };
        let key = |i: &u32| sort_key(col, &objects[*i as usize], now);
        let mut keyed: Vec<(SortKey, u32)> = self.order.iter().map(|i| (key(i), *i)).collect();
        keyed.sort_by(|a, b| a.0.cmp(&b.0));
        if sort.descending {
            keyed.reverse();
        }
        self.order = keyed.into_iter().map(|(_, i)| i).collect();
    }

    /// Rebuilds `rows` from `matched` in sort order, grouped when asked.
    pub fn rebuild(&mut self, objects: &[Object], group: Option<&GroupBy>) {
        let members = self
            .order
            .iter()
            .copied()
            .filter(|i| self.matched.contains(*i));
        self.rows = match group {
            None => members.map(Row::Object).collect(),
            Some(g) => {
                let mut groups: BTreeMap<String, Vec<u32>> = BTreeMap::new();
                for i in members {
                    groups
                        .entry(group_key(g, &objects[i as usize]))
                        .or_default()
                        .push(i);
                }
                let mut rows = Vec::new();
                for (key, ids) in groups {
                    let collapsed = self.collapsed.contains(&key);
                    rows.push(Row::Group {
                        key,
                        count: ids.len() as u64,
                        collapsed,
                    });
                    if !collapsed {
                        rows.extend(ids.into_iter().map(Row::Object));
                    }
                }
                rows
            }
        };
        self.clamp();
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
            Action::OpenTree => self.open_tree(),
            Action::ToggleAllGroups => self.toggle_all_groups(),
            Action::Problems => self.mode = Mode::Problems,
            Action::Help => self.open_help(),
            Action::CopyPath => self.copy_path(),
            Action::Edit => self.edit_selected(),
            _ => self.dirty = false,
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

    pub(super) fn resort(&mut self) {
        let data = std::sync::Arc::clone(&self.data);
        self.table.resort(&data.inventory.objects, self.now);
        self.table
            .rebuild(&data.inventory.objects, self.query.group.as_ref());
    }

    fn toggle_labels(&mut self) {
        let cols = &mut self.table.columns;
        match cols.iter().position(|c| *c == Column::Labels) {
            Some(i) => {
                cols.remove(i);
            }
            None => {
                let at = cols.len().saturating_sub(3);
                cols.insert(at, Column::Labels);
            }
        }
        self.table.sort = None;
        self.resort();
    }

    fn open_row(&mut self) {
        match self.table.rows.get(self.table.selected) {
            Some(Row::Group { key, .. }) => {
                let key = key.clone();
                if !self.table.collapsed.remove(&key) {
                    self.table.collapsed.insert(key);
                }
                self.resort();
            }
            Some(Row::Object(_)) => self.open_tree(),
            None => self.dirty = false,
        }
    }

    fn toggle_all_groups(&mut self) {
        let keys: Vec<String> = self
            .table
            .rows
            .iter()
            .filter_map(|r| match r {
                Row::Group { key, .. } => Some(key.clone()),
                Row::Object(_) => None,
            })
            .collect();
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

fn sort_key(col: &Column, obj: &Object, now: i64) -> SortKey {
    match col {
        // Oldest first, like `--sort-by=.metadata.creationTimestamp` reversed by age.
        Column::Age => SortKey::Num(
            obj.creation_timestamp
                .as_deref()
                .and_then(super::columns::unix_seconds)
                .map(|t| -t)
                .unwrap_or(i64::MIN),
        ),
        Column::Source => SortKey::Source(obj.source.path.display().to_string(), obj.source.line),
        c => SortKey::Text(c.cell(obj, now)),
    }
}
