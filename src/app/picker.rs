//! The namespace / kind / label-column pickers: a list with counts (under the other active
//! filters), filtered by typing, and its key handling.

use std::collections::BTreeMap;

use roaring::RoaringBitmap;

use super::scroll::follow;
use super::{Action, App, Column, Mode};
use crate::model::Object;

/// What a picker chooses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PickerKind {
    Namespace,
    Kind,
    /// Toggles label keys as table columns.
    Columns,
}

impl PickerKind {
    pub fn title(self) -> &'static str {
        match self {
            PickerKind::Namespace => "Namespace",
            PickerKind::Kind => "Kind",
            PickerKind::Columns => "Label columns",
        }
    }
}

/// An open picker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Picker {
    pub kind: PickerKind,
    /// `(value, object count, checked)`; for namespace/kind the first item is "all".
    pub items: Vec<(String, u64, bool)>,
    /// What was typed to filter the items (case-insensitive substring).
    pub filter: String,
    /// Keys go into `filter` (after `/`).
    pub typing: bool,
    /// Indices into `items` that pass `filter`, in order.
    pub shown: Vec<usize>,
    /// Position in `shown`.
    pub selected: usize,
    /// First visible row of `shown`; always keeps `selected` in view.
    pub offset: usize,
}

impl Picker {
    fn new(kind: PickerKind, items: Vec<(String, u64, bool)>) -> Picker {
        let selected = items.iter().position(|i| i.2).unwrap_or(0);
        Picker {
            kind,
            shown: (0..items.len()).collect(),
            items,
            filter: String::new(),
            typing: false,
            selected,
            offset: 0,
        }
    }

    /// Keeps the selection visible in `height` rows.
    pub fn clamp(&mut self, height: usize) {
        self.selected = self.selected.min(self.shown.len().saturating_sub(1));
        self.offset = follow(self.selected, self.offset, self.shown.len(), height);
    }

    /// The items passing the filter, with their index in `shown`.
    pub fn visible(&self) -> impl Iterator<Item = (usize, &(String, u64, bool))> {
        self.shown
            .iter()
            .enumerate()
            .filter_map(|(row, i)| Some((row, self.items.get(*i)?)))
    }

    fn refilter(&mut self) {
        let needle = self.filter.to_lowercase();
        self.shown = (0..self.items.len())
            .filter(|i| self.items[*i].0.to_lowercase().contains(&needle))
            .collect();
        self.selected = 0;
        self.offset = 0;
    }

    fn move_by(&mut self, delta: isize) {
        let last = self.shown.len().saturating_sub(1);
        self.selected = self.selected.saturating_add_signed(delta).min(last);
    }
}

/// Label shown for "no filter" in the namespace and kind pickers.
pub const ALL: &str = "(all)";

/// How the namespace picker and the header name cluster-scoped objects (no namespace).
pub const CLUSTER: &str = "(cluster)";

impl App {
    pub(super) fn open_picker(&mut self, kind: PickerKind) {
        let items = match kind {
            PickerKind::Namespace => {
                let counted = self.counted(|app, o| app.kind_passes(o));
                let names = |o: &Object| namespace_label(&o.id.namespace).to_string();
                with_all(self.count_by(&counted, names), self.namespace.as_deref())
            }
            PickerKind::Kind => {
                let counted = self.counted(|app, o| app.namespace_passes(o));
                let kinds = |o: &Object| o.id.kind.to_string();
                with_all(self.count_by(&counted, kinds), self.kind.as_deref())
            }
            PickerKind::Columns => self
                .data
                .index
                .keys()
                .map(|(k, n)| {
                    let on = self.table.columns.contains(&Column::Label(k.to_string()));
                    (k.to_string(), n, on)
                })
                .collect(),
        };
        self.picker = Some(Picker::new(kind, items));
        self.clamp_picker();
        self.under = self.mode;
        self.mode = Mode::Picker;
    }

    /// Objects the selector and the other picker's filter let through: what a picker counts.
    fn counted(&self, other: impl Fn(&App, &Object) -> bool) -> RoaringBitmap {
        let objects = &self.data.inventory.objects;
        let universe: RoaringBitmap = (0u32..)
            .zip(objects)
            .filter(|(_, o)| other(self, o))
            .map(|(i, _)| i)
            .collect();
        self.query.filter(objects, &self.data.index, &universe)
    }

    /// Every value of the data (so a filter can move anywhere), each with how many of
    /// `counted` have it.
    fn count_by(
        &self,
        counted: &RoaringBitmap,
        value: impl Fn(&Object) -> String,
    ) -> BTreeMap<String, u64> {
        let mut counts = BTreeMap::new();
        for (i, o) in (0u32..).zip(&self.data.inventory.objects) {
            *counts.entry(value(o)).or_insert(0) += u64::from(counted.contains(i));
        }
        counts
    }

    pub(super) fn kind_passes(&self, o: &Object) -> bool {
        self.kind.as_deref().is_none_or(|k| *o.id.kind == *k)
    }

    pub(super) fn namespace_passes(&self, o: &Object) -> bool {
        self.namespace
            .as_deref()
            .is_none_or(|n| *o.id.namespace == *n)
    }

    pub(super) fn picker_action(&mut self, action: Action) {
        let page = self.screen.view_height().saturating_sub(2).max(1) as isize;
        let Some(p) = self.picker.as_mut() else {
            self.mode = Mode::Table;
            return;
        };
        if p.typing {
            return self.picker_typing(action);
        }
        match action {
            Action::Up | Action::ScrollUp => p.move_by(-1),
            Action::Down | Action::ScrollDown => p.move_by(1),
            Action::PageUp => p.move_by(-page),
            Action::PageDown => p.move_by(page),
            Action::Top => p.move_by(isize::MIN / 2),
            Action::Bottom => p.move_by(isize::MAX / 2),
            Action::FilterPicker => p.typing = true,
            Action::Back => {
                self.picker = None;
                self.mode = self.under;
            }
            Action::Open => self.pick(),
            _ => self.dirty = false,
        }
        self.clamp_picker();
    }

    /// Keys while the filter is typed (the bar's bindings): characters filter, Enter picks,
    /// Esc clears the filter, the arrows move.
    fn picker_typing(&mut self, action: Action) {
        let Some(p) = self.picker.as_mut() else {
            return;
        };
        match action {
            Action::Insert(c) => {
                p.filter.push(c);
                p.refilter();
            }
            Action::Backspace => {
                p.filter.pop();
                p.refilter();
            }
            Action::ClearBar => {
                p.filter.clear();
                p.typing = false;
                p.refilter();
            }
            Action::HistoryPrev | Action::Up => p.move_by(-1),
            Action::HistoryNext | Action::Down => p.move_by(1),
            Action::LeaveBar | Action::Open => {
                p.typing = false;
                self.pick();
            }
            _ => self.dirty = false,
        }
        self.clamp_picker();
    }

    fn pick(&mut self) {
        let Some(p) = self.picker.as_mut() else {
            return;
        };
        let Some(item) = p.shown.get(p.selected).and_then(|i| p.items.get_mut(*i)) else {
            return;
        };
        let value = match item.0.as_str() {
            ALL => None,
            CLUSTER if p.kind == PickerKind::Namespace => Some(String::new()),
            v => Some(v.to_string()),
        };
        match p.kind {
            PickerKind::Namespace => self.namespace = value,
            PickerKind::Kind => self.kind = value,
            PickerKind::Columns => {
                item.2 = !item.2;
                let col = Column::Label(item.0.clone());
                match self.table.columns.iter().position(|c| *c == col) {
                    Some(i) => {
                        self.table.columns.remove(i);
                    }
                    None => {
                        let at = self.table.label_slot();
                        self.table.columns.insert(at, col);
                    }
                }
                self.table.sort = None;
                return self.resort();
            }
        }
        self.picker = None;
        self.mode = self.under;
        self.filters_changed();
    }

    fn clamp_picker(&mut self) {
        let height = self.screen.view_height();
        if let Some(p) = self.picker.as_mut() {
            p.clamp(height);
        }
    }
}

/// A namespace as the pickers and the header show it: cluster-scoped objects have none.
pub fn namespace_label(namespace: &str) -> &str {
    if namespace.is_empty() {
        CLUSTER
    } else {
        namespace
    }
}

/// Picker items: "(all)" with the total, then each value; the active one is checked.
fn with_all(counts: BTreeMap<String, u64>, active: Option<&str>) -> Vec<(String, u64, bool)> {
    let total = counts.values().sum();
    let active = active.map(namespace_label);
    let mut items = vec![(ALL.to_string(), total, active.is_none())];
    items.extend(counts.into_iter().map(|(v, n)| {
        let on = Some(v.as_str()) == active;
        (v, n, on)
    }));
    items
}
