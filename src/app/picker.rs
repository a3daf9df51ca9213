//! The namespace / kind / label-column pickers: a list with counts, and its key handling.

use std::collections::BTreeMap;

use super::scroll::follow;
use super::{Action, App, Column, Mode};

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
    pub selected: usize,
    /// First visible item; always keeps `selected` in view.
    pub offset: usize,
}

impl Picker {
    /// Keeps the selection visible in `height` rows.
    pub fn clamp(&mut self, height: usize) {
        self.offset = follow(self.selected, self.offset, self.items.len(), height);
    }
}

/// Label shown for "no filter" in the namespace and kind pickers.
pub const ALL: &str = "(all)";

impl App {
    pub(super) fn open_picker(&mut self, kind: PickerKind) {
        let objects = &self.data.inventory.objects;
        let items = match kind {
            PickerKind::Namespace => with_all(
                count_by(objects.iter().map(|o| &*o.id.namespace)),
                self.namespace.as_deref(),
            ),
            PickerKind::Kind => with_all(
                count_by(objects.iter().map(|o| &*o.id.kind)),
                self.kind.as_deref(),
            ),
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
        let selected = items.iter().position(|i| i.2).unwrap_or(0);
        self.picker = Some(Picker {
            kind,
            items,
            selected,
            offset: 0,
        });
        self.clamp_picker();
        self.under = self.mode;
        self.mode = Mode::Picker;
    }

    pub(super) fn picker_action(&mut self, action: Action) {
        let Some(p) = self.picker.as_mut() else {
            self.mode = Mode::Table;
            return;
        };
        let last = p.items.len().saturating_sub(1);
        match action {
            Action::Up | Action::ScrollUp => p.selected = p.selected.saturating_sub(1),
            Action::Down | Action::ScrollDown => p.selected = (p.selected + 1).min(last),
            Action::Back => {
                self.picker = None;
                self.mode = self.under;
            }
            Action::Open => self.pick(),
            _ => self.dirty = false,
        }
        self.clamp_picker();
    }

    fn pick(&mut self) {
        let Some(p) = self.picker.as_mut() else {
            return;
        };
        let Some(item) = p.items.get_mut(p.selected) else {
            return;
        };
        let value = (item.0 != ALL).then(|| item.0.clone());
        match p.kind {
            PickerKind::Namespace => self.namespace = value,
            PickerKind::Kind => self.kind = value,
            PickerKind::Columns => {
                item.2 = !item.2;
                let col = Column::Label(item.0.clone());
                let cols = &mut self.table.columns;
                match cols.iter().position(|c| *c == col) {
                    Some(i) => {
                        cols.remove(i);
                    }
                    None => {
                        let at = cols.len().saturating_sub(3);
                        cols.insert(at, col);
                    }
                }
                self.table.sort = None;
                return self.resort();
            }
        }
        self.picker = None;
        self.mode = self.under;
        self.apply_query();
        self.table.selected = 0;
        self.table.offset = 0;
    }

    fn clamp_picker(&mut self) {
        let height = self.screen.view_height();
        if let Some(p) = self.picker.as_mut() {
            p.clamp(height);
        }
    }
}

/// Distinct values with their counts, sorted by value.
fn count_by<'a>(values: impl Iterator<Item = &'a str>) -> BTreeMap<&'a str, u64> {
    let mut counts = BTreeMap::new();
    for v in values {
        *counts.entry(v).or_insert(0) += 1;
    }
    counts
}

/// Picker items: "(all)" with the total, then each value; the active one is checked.
fn with_all(counts: BTreeMap<&str, u64>, active: Option<&str>) -> Vec<(String, u64, bool)> {
    let total = counts.values().sum();
    let mut items = vec![(ALL.to_string(), total, active.is_none())];
    items.extend(
        counts
            .into_iter()
            .map(|(v, n)| (v.to_string(), n, Some(v) == active)),
    );
    items
}
