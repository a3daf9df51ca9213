//! Selector-bar state (the text, its parse error, history and Tab completion) and the
//! bar's key handling.

use super::{Action, App, Effect, Mode};
use crate::index::LabelIndex;
use crate::query::QueryError;

/// Most entries kept in the history file.
pub const HISTORY_LIMIT: usize = 500;

/// Candidates offered by Tab.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Completion {
    /// `(candidate, object count)`.
    pub items: Vec<(String, u64)>,
    /// The candidate currently in the text (cycled by repeated Tab).
    pub selected: Option<usize>,
    /// Byte offset where the completed word starts.
    pub start: usize,
}

/// State of the selector bar.
#[derive(Clone, Debug, Default)]
pub struct BarState {
    pub text: String,
    /// Parse error of `text` (the table keeps the last valid result meanwhile).
    pub error: Option<QueryError>,
    /// Oldest first.
    pub history: Vec<String>,
    /// Position while browsing history (`None`: editing `draft`).
    pub history_pos: Option<usize>,
    draft: String,
    pub completion: Option<Completion>,
}

impl BarState {
    /// Moves through history; returns whether the text changed.
    pub fn history_step(&mut self, back: bool) -> bool {
        let len = self.history.len();
        if len == 0 {
            return false;
        }
        let pos = match (self.history_pos, back) {
            (None, true) => {
                self.draft = self.text.clone();
                Some(len - 1)
            }
            (None, false) => return false,
            (Some(p), true) => Some(p.saturating_sub(1)),
            (Some(p), false) if p + 1 < len => Some(p + 1),
            (Some(_), false) => None,
        };
        self.history_pos = pos;
        self.text = match pos {
            Some(p) => self.history[p].clone(),
            None => std::mem::take(&mut self.draft),
        };
        true
    }

    /// Remembers the current text (most recent last, no duplicates).
    pub fn remember(&mut self) -> bool {
        let text = self.text.trim().to_string();
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

    /// Tab: completes the word at the end of the text from the index. A repeated Tab cycles
    /// through the candidates.
    pub fn complete(&mut self, index: &LabelIndex) {
        if let Some(c) = self.completion.as_mut().filter(|c| c.items.len() > 1) {
            let next = c.selected.map_or(0, |s| (s + 1) % c.items.len());
            c.selected = Some(next);
            self.text.truncate(c.start);
            self.text.push_str(&c.items[next].0);
            return;
        }
        let (start, items) = candidates(&self.text, index);
        self.text.truncate(start);
        match items.as_slice() {
            [] => {
                self.completion = None;
                return;
            }
            [(only, _)] => self.text.push_str(only),
            _ => self.text.push_str(&common_prefix(&items)),
        }
        self.completion = Some(Completion {
            items,
            selected: None,
            start,
        });
    }
}

/// Where the word being completed starts, and what it may become.
fn candidates(text: &str, index: &LabelIndex) -> (usize, Vec<(String, u64)>) {
    let word_start = text
        .rfind([',', '(', '|', ' ', '!', '~'])
        .map_or(0, |i| i + 1);
    let word = &text[word_start..];
    if let Some(key) = value_key(text, word_start) {
        let items = index
            .values(&key)
            .into_iter()
            .filter(|(v, _)| v.starts_with(word))
            .map(|(v, n)| (v.to_string(), n))
            .collect();
        return (word_start, items);
    }
    if let Some(eq) = word.rfind('=') {
        let key = word[..eq].trim_end_matches(['!', '=']);
        let prefix = &word[eq + 1..];
        let items = index
            .values(key)
            .into_iter()
            .filter(|(v, _)| v.starts_with(prefix))
            .map(|(v, n)| (v.to_string(), n))
            .collect();
        return (word_start + eq + 1, items);
    }
    let items = index
        .keys()
        .filter(|(k, _)| k.starts_with(word))
        .map(|(k, n)| (k.to_string(), n))
        .collect();
    (word_start, items)
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
    pub(super) fn set_bar(&mut self, text: String) {
        self.bar.text = text;
        self.bar.completion = None;
        self.bar.history_pos = None;
        self.refilter();
    }
}
