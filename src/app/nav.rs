//! User intents, per mode.

use std::collections::BTreeMap;

use super::picker::{Picker, PickerKind, ALL};
use super::table::{Row, Sort};
use super::{Action, App, Column, DetailState, Effect, Mode, TreeState};

impl App {
    pub(super) fn user_action(&mut self, action: Action) {
        if self.loading.is_some() {
            // Before the first batch there is nothing to act on; while later batches
            // arrive everything works but the owner tree, which needs the final graph.
            if self.data.inventory.objects.is_empty()
                && !matches!(action, Action::Help | Action::Back)
            {
                return;
            }
        }
        match self.mode {
            Mode::Bar => self.bar_action(action),
            Mode::Picker => self.picker_action(action),
            Mode::Detail => self.detail_action(action),
            Mode::Problems => self.problems_action(action),
            Mode::Help => self.help_action(action),
            Mode::Tree => self.tree_action(action),
            Mode::Table => self.table_action(action),
        }
    }

    fn page(&self) -> isize {
        self.table.height.max(1) as isize
    }

    fn table_action(&mut self, action: Action) {
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

    fn bar_action(&mut self, action: Action) {
        match action {
            Action::Insert(c) => {
                let mut text = std::mem::take(&mut self.bar.text);
                text.push(c);
                self.set_bar(text);
            }
            Action::Backspace => {
                let mut text = std::mem::take(&mut self.bar.text);
                text.pop();
                self.set_bar(text);
            }
            Action::ClearBar => {
                self.set_bar(String::new());
                self.mode = Mode::Table;
            }
            Action::LeaveBar => {
                if self.bar.remember() {
                    self.push(Effect::SaveHistory(self.bar.history.clone()));
                }
                self.bar.completion = None;
                self.mode = Mode::Table;
            }
            Action::Complete => {
                let data = std::sync::Arc::clone(&self.data);
                self.bar.complete(&data.index);
                self.refilter();
            }
            Action::HistoryPrev | Action::HistoryNext => {
                if self.bar.history_step(matches!(action, Action::HistoryPrev)) {
                    self.bar.completion = None;
                    self.refilter();
                }
            }
            Action::ScrollUp | Action::ScrollDown | Action::Click { .. } => {
                self.mode = Mode::Table;
                self.table_action(action);
            }
            _ => self.dirty = false,
        }
    }

    /// Replaces the bar text, re-parses and re-filters.
    fn set_bar(&mut self, text: String) {
        self.bar.text = text;
        self.bar.completion = None;
        self.bar.history_pos = None;
        self.refilter();
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

    fn resort(&mut self) {
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

    /// The effect that reads `object`'s text for the detail view.
    fn read_source(&self, object: u32) -> Option<Effect> {
        let src = &self.data.inventory.objects.get(object as usize)?.source;
        Some(Effect::ReadSource {
            object,
            path: src.path.clone(),
            start: src.start,
            end: src.end,
        })
    }

    pub(super) fn open_detail_of(&mut self, object: u32) {
        let Some(effect) = self.read_source(object) else {
            return;
        };
        if self.mode != Mode::Detail {
            self.detail_from = self.mode;
        }
        self.detail = Some(DetailState {
            object,
            source: None,
            scroll: 0,
        });
        self.mode = Mode::Detail;
        self.push(effect);
    }

    /// Points an open detail view at `object` again (after a change), re-reading its text
    /// and keeping the scroll position and the mode.
    pub(super) fn open_detail_of_keeping(&mut self, object: u32, scroll: usize, from: Mode) {
        let Some(effect) = self.read_source(object) else {
            return;
        };
        let previous = self.detail.take().and_then(|d| d.source);
        self.detail = Some(DetailState {
            object,
            source: previous,
            scroll,
        });
        self.detail_from = from;
        self.push(effect);
    }

    fn open_detail(&mut self) {
        if let Some(i) = self.table.selected_object() {
            self.open_detail_of(i);
        }
    }

    fn open_help(&mut self) {
        self.under = self.mode;
        self.help_scroll = 0;
        self.mode = Mode::Help;
    }

    fn copy_path(&mut self) {
        if let Some(obj) = self
            .current_object()
            .and_then(|i| self.data.inventory.objects.get(i as usize))
        {
            let text = obj.source.to_string();
            self.status = Some(format!("copied {text}"));
            self.push(Effect::Copy(text));
        }
    }

    fn edit_selected(&mut self) {
        if let Some(obj) = self
            .current_object()
            .and_then(|i| self.data.inventory.objects.get(i as usize))
        {
            let effect = Effect::Edit {
                path: obj.source.path.clone(),
                line: obj.source.line,
            };
            self.push(effect);
        }
    }

    fn detail_action(&mut self, action: Action) {
        let Some(d) = self.detail.as_mut() else {
            self.mode = Mode::Table;
            return;
        };
        let page = self.table.height.max(1);
        match action {
            Action::Up | Action::ScrollUp => d.scroll = d.scroll.saturating_sub(1),
            Action::Down | Action::ScrollDown => d.scroll += 1,
            Action::PageUp => d.scroll = d.scroll.saturating_sub(page),
            Action::PageDown => d.scroll += page,
            Action::Top => d.scroll = 0,
            Action::Bottom => d.scroll = usize::MAX / 2,
            Action::Back => self.mode = self.detail_from,
            Action::CopyPath => self.copy_path(),
            Action::Edit => self.edit_selected(),
            Action::Help => self.open_help(),
            _ => self.dirty = false,
        }
    }

    fn problems_action(&mut self, action: Action) {
        let n = self.problem_rows.len();
        let p = &mut self.problems;
        match action {
            Action::Up | Action::ScrollUp => p.selected = p.selected.saturating_sub(1),
            Action::Down | Action::ScrollDown => {
                p.selected = (p.selected + 1).min(n.saturating_sub(1))
            }
            Action::PageUp => p.selected = p.selected.saturating_sub(self.table.height.max(1)),
            Action::PageDown => {
                p.selected = (p.selected + self.table.height.max(1)).min(n.saturating_sub(1))
            }
            Action::Back => self.mode = Mode::Table,
            Action::Open => self.open_problem_object(),
            Action::Edit => {
                if let Some(pr) = self.problem_rows.get(self.problems.selected) {
                    let effect = Effect::Edit {
                        path: pr.path.clone(),
                        line: pr.line.max(1),
                    };
                    self.push(effect);
                }
            }
            Action::Help => self.open_help(),
            _ => self.dirty = false,
        }
        let h = self.table.height.max(1);
        let p = &mut self.problems;
        if p.selected < p.offset {
            p.offset = p.selected;
        } else if p.selected >= p.offset + h {
            p.offset = p.selected + 1 - h;
        }
    }

    /// The object a problem is about: the last object of its file starting at or before
    /// the problem's line.
    fn open_problem_object(&mut self) {
        let Some(pr) = self.problem_rows.get(self.problems.selected) else {
            return;
        };
        if let Some(i) = pr.object {
            return self.open_detail_of(i);
        }
        let found = (0u32..)
            .zip(&self.data.inventory.objects)
            .filter(|(_, o)| o.source.path == pr.path && o.source.line <= pr.line.max(1))
            .max_by_key(|(_, o)| o.source.line)
            .map(|(i, _)| i);
        match found {
            Some(i) => self.open_detail_of(i),
            None => self.status = Some("no object at this problem; `e` opens the file".into()),
        }
    }

    fn open_tree(&mut self) {
        if self.loading.is_some() {
            // Partial loads carry no graph yet.
            self.status = Some("the owner tree opens when loading has finished".into());
            return;
        }
        // While the graph is still being linked the tree opens around the object alone and
        // fills when the graph arrives (`App::relink_views`).
        if let Some(i) = self.table.selected_object() {
            let selectors = self.tree.as_ref().is_some_and(|t| t.selectors);
            let mut tree = TreeState::open(&self.data.graph, i, selectors);
            tree.move_by(0, self.table.height);
            self.tree = Some(tree);
            self.mode = Mode::Tree;
        }
    }

    fn tree_action(&mut self, action: Action) {
        let height = self.table.height;
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
                }
            }
            Action::ToggleSelectors => {
                let object = t.selected_object().unwrap_or(t.object);
                let mut fresh = TreeState::open(&self.data.graph, object, !t.selectors);
                fresh.move_by(0, height);
                *t = fresh;
            }
            Action::Open | Action::OpenDetail => {
                if let Some(i) = t.selected_object() {
                    self.open_detail_of(i);
                }
            }
            Action::Back | Action::OpenTree => self.mode = Mode::Table,
            Action::CopyPath => self.copy_path(),
            Action::Edit => self.edit_selected(),
            Action::Help => self.open_help(),
            _ => self.dirty = false,
        }
    }

    fn help_action(&mut self, action: Action) {
        match action {
            Action::Back | Action::Help => self.mode = self.under,
            Action::Down | Action::ScrollDown => self.help_scroll += 1,
            Action::Up | Action::ScrollUp => self.help_scroll = self.help_scroll.saturating_sub(1),
            _ => self.dirty = false,
        }
    }

    fn open_picker(&mut self, kind: PickerKind) {
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
        });
        self.under = self.mode;
        self.mode = Mode::Picker;
    }

    fn picker_action(&mut self, action: Action) {
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
