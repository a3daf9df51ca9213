//! Selector-bar state (the line being edited, its parse error, history and Tab completion),
//! the bar's key handling, and the layout of its rows (the error wraps below the text).

use std::collections::BTreeMap;

use unicode_width::UnicodeWidthStr;

use super::line::LineInput;
use super::{Action, App, Effect, Mode};
use crate::dataset::Dataset;
use crate::model::fields::{check_field, field_value};
use crate::query::QueryError;

/// Most entries kept in the history file.
pub const HISTORY_LIMIT: usize = 500;

/// Columns the prompt (`/ `, `: `) takes before the text.
pub const PROMPT_WIDTH: usize = 2;

/// Columns of text a bar `width` columns wide shows: after the prompt, one column kept at
/// the right for `›` (more text) or the cursor.
pub fn text_width(width: usize) -> usize {
    width.saturating_sub(PROMPT_WIDTH + 1).max(1)
}

/// Most rows a wrapped error message may take (the table keeps the rest).
const MAX_ERROR_ROWS: usize = 6;

/// Field keys offered by Tab next to label keys (each counted over the kinds that support
/// it; `kubesift selector` documents them all).
const FIELD_KEYS: &[&str] = &[
    "metadata.name",
    "metadata.namespace",
    "spec.nodeName",
    "spec.serviceAccountName",
    "spec.type",
    "status.phase",
];

/// Candidates offered by Tab.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Completion {
    /// `(candidate, object count)`.
    pub items: Vec<(String, u64)>,
    /// The candidate currently in the text (cycled by Tab and Shift-Tab).
    pub selected: Option<usize>,
    /// Byte offset where the completed word starts.
    pub start: usize,
    /// Byte offset where the inserted text ends (the cursor).
    pub end: usize,
}

impl Completion {
    /// Tab with a fresh list of `items` for the word `start..cursor` of `line`: inserts the
    /// only candidate or the candidates' common prefix. Never removes text: with no
    /// candidate the line is left as typed (and `None` is returned).
    pub fn start(line: &mut LineInput, start: usize, items: Vec<(String, u64)>) -> Option<Self> {
        let cursor = line.cursor();
        let typed = line.text().get(start..cursor)?;
        let insert = match items.as_slice() {
            [] => return None,
            [(only, _)] => only.clone(),
            _ => common_prefix(&items),
        };
        // Candidates all start with what was typed; keep the text if one does not.
        let insert = if insert.starts_with(typed) {
            insert
        } else {
            typed.to_string()
        };
        line.replace(start..cursor, &insert);
        Some(Completion {
            items,
            selected: None,
            start,
            end: line.cursor(),
        })
    }

    /// A repeated Tab (`forward`) or Shift-Tab: the next or previous candidate replaces the
    /// one inserted before. Returns false when there is nothing to cycle.
    pub fn cycle(&mut self, line: &mut LineInput, forward: bool) -> bool {
        let n = self.items.len();
        if n < 2 || line.cursor() != self.end {
            return false;
        }
        let next = match (self.selected, forward) {
            (None, true) => 0,
            (None, false) => n - 1,
            (Some(s), true) => (s + 1) % n,
            (Some(s), false) => (s + n - 1) % n,
        };
        self.selected = Some(next);
        line.replace(self.start..self.end, &self.items[next].0);
        self.end = line.cursor();
        true
    }

    /// The candidates shown in `width` columns: a page of whole items holding the selected
    /// one (the first page before any is selected); items render as `name(count)  `.
    pub fn window(&self, width: usize) -> std::ops::Range<usize> {
        let cell = |i: usize| {
            let (name, n) = &self.items[i];
            name.width() + n.to_string().len() + 4
        };
        let want = self.selected.unwrap_or(0);
        let mut start = 0;
        loop {
            let mut used = 0;
            let mut end = start;
            while end < self.items.len() && (end == start || used + cell(end) <= width) {
                used += cell(end);
                end += 1;
            }
            if want < end || end >= self.items.len() {
                return start..end;
            }
            start = end;
        }
    }
}

/// State of the selector bar.
#[derive(Clone, Debug, Default)]
pub struct BarState {
    pub line: LineInput,
    /// Parse error of the text (the table keeps the last valid result meanwhile).
    pub error: Option<QueryError>,
    /// Oldest first.
    pub history: Vec<String>,
    /// Position while browsing history (`None`: editing `draft`).
    pub history_pos: Option<usize>,
    draft: String,
    pub completion: Option<Completion>,
}

/// One row under the bar's text: what to draw from which column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ErrorRow {
    pub column: usize,
    /// The caret (`^`, or `◂`/`▸` when the error is left or right of the visible text)
    /// starting the first row.
    pub caret: Option<&'static str>,
    pub text: String,
}

impl BarState {
    /// The selector text.
    pub fn text(&self) -> &str {
        self.line.text()
    }

    /// Moves through history; returns whether the text changed.
    pub fn history_step(&mut self, back: bool) -> bool {
        let len = self.history.len();
        if len == 0 {
            return false;
        }
        let pos = match (self.history_pos, back) {
            (None, true) => {
                self.draft = self.text().to_string();
                Some(len - 1)
            }
            (None, false) => return false,
            (Some(p), true) => Some(p.saturating_sub(1)),
            (Some(p), false) if p + 1 < len => Some(p + 1),
            (Some(_), false) => None,
        };
        self.history_pos = pos;
        let text = match pos {
            Some(p) => self.history[p].clone(),
            None => std::mem::take(&mut self.draft),
        };
        self.line.set(&text);
        true
    }

    /// Remembers the current text (most recent last, no duplicates).
    pub fn remember(&mut self) -> bool {
        let text = self.text().trim().to_string();
        if text.is_empty() || self.error.is_some() {
            return false;
        }
        self.history.retain(|h| *h != text);
        self.history.push(text);
        let excess = self.history.len().saturating_sub(HISTORY_LIMIT);
        self.history.drain(..excess);
        self.history_pos = None;
        true
    }

    /// Tab (`forward`) or Shift-Tab: cycles the open candidate list, else completes the
    /// word before the cursor from the data. Never removes typed text.
    pub fn complete(&mut self, data: &Dataset, forward: bool) {
        if let Some(c) = self.completion.as_mut() {
            if c.cycle(&mut self.line, forward) {
                return;
            }
        }
        let before = &self.text()[..self.line.cursor()];
        let (start, items) = candidates(before, data);
        self.completion = Completion::start(&mut self.line, start, items);
    }

    /// The rows under the text for an error, laid out for a bar `width` columns wide: the
    /// caret under the offending character of the visible text, the message after it,
    /// wrapped at spaces (never cut) onto rows aligned with the text.
    pub fn error_rows(&self, width: usize) -> Vec<ErrorRow> {
        let Some(err) = &self.error else {
            return Vec::new();
        };
        let window = text_width(width);
        let (column, caret) = match self.line.column_of(err.offset, window) {
            Some(col) => (PROMPT_WIDTH + col, "^"),
            None if self.line.text()[..err.offset.min(self.text().len())].width()
                < self.line.scroll() =>
            {
                (0, "◂")
            }
            None => (0, "▸"),
        };
        let first_room = width.saturating_sub(column + 2);
        let rest_room = width.saturating_sub(PROMPT_WIDTH).max(8);
        let mut rows = Vec::new();
        let mut words = wrap(&err.message, first_room, rest_room).into_iter();
        rows.push(ErrorRow {
            column,
            caret: Some(caret),
            text: words.next().unwrap_or_default(),
        });
        rows.extend(words.map(|text| ErrorRow {
            column: PROMPT_WIDTH,
            caret: None,
            text,
        }));
        if rows.len() > MAX_ERROR_ROWS {
            rows.truncate(MAX_ERROR_ROWS);
            if let Some(last) = rows.last_mut() {
                last.text.push('…');
            }
        }
        rows
    }

    /// Rows the bar takes at `width` columns: the text, then one row (Tab candidates, shown
    /// over an error while they are open, or hints) or the error's rows.
    pub fn rows(&self, width: usize) -> usize {
        if self.completion.is_some() {
            return 2;
        }
        1 + self.error_rows(width).len().max(1)
    }
}

/// Words of `text` in rows: the first `first` columns wide (empty when not even one word
/// fits, so the message starts on the next row), the others `rest` wide; a word longer
/// than a row is split.
fn wrap(text: &str, first: usize, rest: usize) -> Vec<String> {
    let mut rows = vec![String::new()];
    for word in text.split(' ') {
        let room = if rows.len() == 1 { first } else { rest };
        let current = rows.last().map_or(0, |r| r.width());
        let need = if current == 0 {
            word.width()
        } else {
            current + 1 + word.width()
        };
        if need <= room {
            if let Some(last) = rows.last_mut() {
                if current > 0 {
                    last.push(' ');
                }
                last.push_str(word);
            }
            continue;
        }
        if current > 0 || rows.len() == 1 {
            rows.push(String::new());
        }
        for c in word.chars() {
            let full = rows
                .last()
                .is_some_and(|r| !r.is_empty() && r.width() + c.to_string().width() > rest);
            if full {
                rows.push(String::new());
            }
            if let Some(last) = rows.last_mut() {
                last.push(c);
            }
        }
    }
    rows
}

/// Where the word before the cursor starts, and what it may become. `before` is the text
/// up to the cursor.
fn candidates(before: &str, data: &Dataset) -> (usize, Vec<(String, u64)>) {
    let mut word_start = before.rfind([',', '(', '|', ' ', '~']).map_or(0, |i| i + 1);
    if before[..word_start].ends_with('~') {
        return (word_start, Vec::new());
    }
    if before[word_start..].starts_with('!') {
        // `!key`: the key does not exist.
        word_start += 1;
    }
    let word = &before[word_start..];
    let index = &data.index;
    let values = |key: &str, prefix: &str| -> Vec<(String, u64)> {
        if is_field_key(key) {
            return field_values(data, key, prefix);
        }
        index
            .values(key)
            .into_iter()
            .filter(|(v, _)| v.starts_with(prefix))
            .map(|(v, n)| (v.to_string(), n))
            .collect()
    };
    if let Some(key) = value_key(before, word_start) {
        return (word_start, values(&key, word));
    }
    if is_group_clause(&before[..word_start]) {
        let mut items: Vec<(String, u64)> = ["namespace", "kind", "owner"]
            .iter()
            .map(|g| (g.to_string(), data.inventory.objects.len() as u64))
            .chain(index.keys().map(|(k, n)| (k.to_string(), n)))
            .filter(|(k, _)| k.starts_with(word))
            .collect();
        items.dedup_by(|a, b| a.0 == b.0);
        return (word_start, items);
    }
    if let Some(eq) = word.find('=') {
        let key = word[..eq].trim_end_matches('!');
        let skip = if word[eq + 1..].starts_with('=') {
            2
        } else {
            1
        };
        let prefix = &word[eq + skip..];
        return (word_start + eq + skip, values(key, prefix));
    }
    if word.contains(['<', '>']) {
        return (word_start, Vec::new());
    }
    let mut items: Vec<(String, u64)> = index
        .keys()
        .filter(|(k, _)| k.starts_with(word))
        .map(|(k, n)| (k.to_string(), n))
        .collect();
    items.extend(field_keys(data, word));
    items.sort();
    (word_start, items)
}

/// Field keys starting with `prefix`, with the number of objects whose kind supports each.
fn field_keys(data: &Dataset, prefix: &str) -> Vec<(String, u64)> {
    FIELD_KEYS
        .iter()
        .filter(|k| k.starts_with(prefix) && !prefix.is_empty())
        .map(|k| {
            let n = data
                .inventory
                .objects
                .iter()
                .filter(|o| check_field(&o.id.group, o.kind(), k).is_ok())
                .count();
            (k.to_string(), n as u64)
        })
        .filter(|(_, n)| *n > 0)
        .collect()
}

/// Values of a field term starting with `prefix`, from the objects whose kind supports the
/// field, with their counts.
fn field_values(data: &Dataset, field: &str, prefix: &str) -> Vec<(String, u64)> {
    let mut counts: BTreeMap<String, u64> = BTreeMap::new();
    for o in &data.inventory.objects {
        if check_field(&o.id.group, o.kind(), field).is_err() {
            continue;
        }
        let v = field_value(o, field);
        if !v.is_empty() && v.starts_with(prefix) {
            *counts.entry(v).or_insert(0) += 1;
        }
    }
    counts.into_iter().collect()
}

/// Whether a key names an API field (`metadata.name`), not a label.
fn is_field_key(key: &str) -> bool {
    ["metadata.", "spec.", "status.", "involvedObject."]
        .iter()
        .any(|root| key.starts_with(root))
}

/// Whether the text before a word ends with `| by` (the word is a grouping).
fn is_group_clause(head: &str) -> bool {
    head.rfind('|')
        .is_some_and(|bar| head[bar + 1..].trim() == "by")
}

/// For a word inside `key in (` / `key notin (`, the key.
fn value_key(text: &str, word_start: usize) -> Option<String> {
    let open = text[..word_start].rfind('(')?;
    if text[open..].contains(')') {
        return None;
    }
    let head = text[..open].trim_end();
    let head = head
        .strip_suffix("notin")
        .or_else(|| head.strip_suffix("in"))?;
    let key_start = head.trim_end().rfind([',', '|']).map_or(0, |i| i + 1);
    Some(head[key_start..].trim().to_string())
}

fn common_prefix(items: &[(String, u64)]) -> String {
    let first = &items[0].0;
    let mut len = first.len();
    for (s, _) in &items[1..] {
        len = first
            .char_indices()
            .zip(s.chars())
            .take_while(|((_, a), b)| a == b)
            .map(|((i, a), _)| i + a.len_utf8())
            .last()
            .unwrap_or(0)
            .min(len);
    }
    first[..len].to_string()
}

impl App {
    pub(super) fn bar_action(&mut self, action: Action) {
        if let Some(changed) = self.bar.line.edit(&action) {
            if changed {
                self.bar_edited();
            } else {
                self.bar.completion = None;
            }
            return self.relayout();
        }
        match action {
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
            Action::Complete | Action::CompletePrev => {
                let data = std::sync::Arc::clone(&self.data);
                self.bar.complete(&data, matches!(action, Action::Complete));
                self.refilter();
            }
            Action::HistoryPrev | Action::HistoryNext => {
                if self.bar.history_step(matches!(action, Action::HistoryPrev)) {
                    self.bar.completion = None;
                    self.refilter();
                }
            }
            Action::ScrollUp | Action::ScrollDown | Action::Click { .. } => {
                self.bar.completion = None;
                self.mode = Mode::Table;
                self.table_action(action);
            }
            _ => self.dirty = false,
        }
        self.relayout();
    }

    /// The text changed by an edit: the candidates are stale, history browsing ends.
    fn bar_edited(&mut self) {
        self.bar.completion = None;
        self.bar.history_pos = None;
        self.refilter();
    }

    /// Replaces the bar text, re-parses and re-filters.
    pub(super) fn set_bar(&mut self, text: String) {
        self.bar.line.set(&text);
        self.bar_edited();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_never_cuts_words() {
        let msg = "unable to parse requirement: found '', expected: 'in', 'notin', '=', '==', '!=', 'gt', 'lt'";
        let rows = wrap(msg, 20, 30);
        assert!(
            rows[0].width() <= 20 && rows[1..].iter().all(|r| r.width() <= 30),
            "{rows:?}"
        );
        assert_eq!(rows.join(" "), msg);
        assert_eq!(
            wrap("abc def", 2, 10),
            ["", "abc def"],
            "first row too narrow"
        );
        assert_eq!(wrap("abcdefghijkl", 0, 5), ["", "abcde", "fghij", "kl"]);
    }

    #[test]
    fn candidate_window_pages_to_the_selection() {
        let items: Vec<(String, u64)> = (0..10).map(|i| (format!("value{i}"), 1)).collect();
        let mut c = Completion {
            items,
            ..Completion::default()
        };
        // Each cell is `valueN(1)  `: 11 columns.
        assert_eq!(c.window(40), 0..3);
        c.selected = Some(4);
        assert_eq!(c.window(40), 3..6);
        c.selected = Some(9);
        assert_eq!(c.window(40), 9..10);
        assert_eq!(c.window(5), 9..10, "one item even when it does not fit");
    }
}
