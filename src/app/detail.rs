//! The detail view of one object, in two tabs: its text as written in its file (`y`; a
//! JSON list item re-indented, a Secret's data decoded on request) and a describe-like
//! summary of its metadata and relations (`d`); searched with `/`, `n`, `N`, wrapped with
//! `w`, and scrolled within the rows the state knows.

use super::scroll::{max_offset, scrolled};
use super::text::{rows_of, TextLine, Tone};
use super::{Action, App, Effect, Mode};
use crate::dataset::Dataset;
use crate::graph::{explain_finalizer, Edge, EdgeKind};
use crate::model::{Labels, Object};

/// Most related objects listed before "… N more".
const MAX_RELATED: usize = 20;

/// What the detail view shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DetailTab {
    /// The object's text as written.
    #[default]
    Yaml,
    /// Labels, annotations, finalizers explained, owners, selector edges.
    Describe,
}

/// The detail view of one object.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DetailState {
    pub object: u32,
    /// The object's text as written in its file (`None` until read).
    pub source: Option<String>,
    /// The summary: labels, annotations, finalizers, owners, selector edges.
    pub summary: Vec<TextLine>,
    pub tab: DetailTab,
    /// The YAML tab's lines: the source re-indented, after the decoded Secret data when
    /// `decode` is on.
    pub text: Vec<String>,
    /// Long lines wrap at `width` instead of being cut.
    pub wrap: bool,
    /// A Secret's `data` values are shown decoded (escaped) above the text.
    pub decode: bool,
    /// Text columns inside the view's border (for wrapping).
    pub width: usize,
    /// The search text (case-insensitive), typed after `/`.
    pub search: String,
    /// Keys go into `search`.
    pub searching: bool,
    /// Lines of the tab containing `search`.
    pub matches: Vec<usize>,
    /// The match last jumped to (index into `matches`).
    pub current: Option<usize>,
    /// First row shown; always within [`DetailState::line_count`].
    pub scroll: usize,
}

impl DetailState {
    fn new(object: u32, summary: Vec<TextLine>, tab: DetailTab) -> DetailState {
        DetailState {
            object,
            summary,
            tab,
            text: vec!["reading…".into()],
            ..DetailState::default()
        }
    }

    /// Plain text of every line of the tab shown.
    pub fn lines(&self) -> Vec<String> {
        match self.tab {
            DetailTab::Yaml => self.text.clone(),
            DetailTab::Describe => self.summary.iter().map(TextLine::plain).collect(),
        }
    }

    /// Lines of the tab shown (before wrapping).
    pub fn line_len(&self) -> usize {
        match self.tab {
            DetailTab::Yaml => self.text.len(),
            DetailTab::Describe => self.summary.len(),
        }
    }

    /// Screen rows of a line `chars` characters long at the view's width.
    fn rows(&self, chars: usize) -> usize {
        if self.wrap {
            rows_of(chars, self.width)
        } else {
            1
        }
    }

    /// Rows in the view: one per line, more for long lines when wrapping.
    pub fn line_count(&self) -> usize {
        if !self.wrap {
            return self.line_len();
        }
        self.lines()
            .iter()
            .map(|l| self.rows(l.chars().count()))
            .sum()
    }

    /// The first row of line `line`.
    fn row_of(&self, line: usize) -> usize {
        if !self.wrap {
            return line;
        }
        self.lines()
            .iter()
            .take(line)
            .map(|l| self.rows(l.chars().count()))
            .sum()
    }

    /// Keeps the scroll within the last page for `height` rows.
    pub fn clamp(&mut self, height: usize) {
        self.scroll = self.scroll.min(max_offset(self.line_count(), height));
    }

    /// Finds `search` again in the tab shown.
    fn find(&mut self) {
        let needle = self.search.to_lowercase();
        self.matches = if needle.is_empty() {
            Vec::new()
        } else {
            (0..)
                .zip(self.lines())
                .filter(|(_, l)| l.to_lowercase().contains(&needle))
                .map(|(i, _)| i)
                .collect()
        };
        self.current = None;
    }

    /// Scrolls to the next (or previous) match after the top row, wrapping around.
    fn jump(&mut self, forward: bool, height: usize) {
        if self.matches.is_empty() {
            return;
        }
        let n = self.matches.len();
        let next = match self.current {
            Some(c) if forward => (c + 1) % n,
            Some(c) => (c + n - 1) % n,
            None if forward => self
                .matches
                .iter()
                .position(|m| self.row_of(*m) >= self.scroll)
                .unwrap_or(0),
            None => self
                .matches
                .iter()
                .rposition(|m| self.row_of(*m) < self.scroll)
                .unwrap_or(n - 1),
        };
        self.current = Some(next);
        self.scroll = self.row_of(self.matches[next]);
        self.clamp(height);
    }

    /// The text changed (it arrived, or decoding was toggled): lines and matches follow.
    fn set_text(&mut self, obj: Option<&Object>) {
        let Some(source) = self.source.as_deref() else {
            return;
        };
        let mut text = Vec::new();
        if self.decode {
            text.extend(obj.map(decoded_data).unwrap_or_default());
        }
        text.extend(
            reindent(source)
                .into_iter()
                .map(|l| crate::gocompat::escape::escape_terminal(&l).into_owned()),
        );
        self.text = text;
        self.find();
    }
}

impl App {
    pub(super) fn detail_action(&mut self, action: Action) {
        let height = self.screen.view_height();
        let Some(d) = self.detail.as_mut() else {
            self.mode = Mode::Table;
            return;
        };
        if d.searching {
            return self.detail_search_key(action);
        }
        if let Some(scroll) = scrolled(d.scroll, &action, d.line_count(), height) {
            d.scroll = scroll;
            return;
        }
        let objects = &self.data.inventory.objects;
        match action {
            Action::ShowYaml | Action::ShowDescribe | Action::OpenDetail => {
                d.tab = match action {
                    Action::ShowYaml => DetailTab::Yaml,
                    _ => DetailTab::Describe,
                };
                d.scroll = 0;
                d.find();
            }
            Action::ToggleWrap => {
                d.wrap = !d.wrap;
                d.clamp(height);
            }
            Action::ToggleDecode => {
                let obj = objects.get(d.object as usize);
                if obj.is_some_and(|o| &*o.id.kind == "Secret" && o.id.group.is_empty()) {
                    d.decode = !d.decode;
                    d.set_text(obj);
                    d.tab = DetailTab::Yaml;
                    d.clamp(height);
                } else {
                    self.status = Some("only a Secret's data can be decoded".into());
                }
            }
            Action::Search => {
                d.searching = true;
                d.search.clear();
                d.find();
            }
            Action::SearchNext => d.jump(true, height),
            Action::SearchPrev => d.jump(false, height),
            Action::Back => self.mode = self.detail_from,
            Action::CopyPath => self.copy_path(),
            Action::Edit => self.edit_selected(),
            Action::Help => self.open_help(),
            _ => self.dirty = false,
        }
    }

    /// Keys while a search is typed (the bar's bindings): each character searches again and
    /// shows the first match; Enter keeps the search for `n`/`N`, Esc drops it.
    fn detail_search_key(&mut self, action: Action) {
        let height = self.screen.view_height();
        let Some(d) = self.detail.as_mut() else {
            return;
        };
        match action {
            Action::Insert(c) => d.search.push(c),
            Action::Backspace => {
                d.search.pop();
            }
            Action::ClearBar => {
                d.search.clear();
                d.searching = false;
            }
            Action::LeaveBar | Action::Open => {
                d.searching = false;
                return;
            }
            _ => {
                self.dirty = false;
                return;
            }
        }
        d.find();
        d.jump(true, height);
    }

    pub(super) fn open_detail(&mut self) {
        if let Some(i) = self.table.selected_object() {
            self.open_detail_tab(i, DetailTab::Describe);
        }
    }

    /// The detail view of `object` on its text (from the problems view).
    pub(super) fn open_detail_of(&mut self, object: u32) {
        self.open_detail_tab(object, DetailTab::Yaml);
    }

    pub(super) fn open_detail_tab(&mut self, object: u32, tab: DetailTab) {
        let Some(effect) = self.read_source(object) else {
            return;
        };
        if self.mode != Mode::Detail {
            self.detail_from = self.mode;
        }
        let mut detail =
            DetailState::new(object, summary(&self.data, object as usize, self.now), tab);
        detail.width = self.detail_width();
        self.detail = Some(detail);
        self.mode = Mode::Detail;
        self.push(effect);
    }

    /// Text columns inside the detail view's border.
    pub(super) fn detail_width(&self) -> usize {
        self.screen.main().width.saturating_sub(2) as usize
    }

    /// Points an open detail view at `object` again (after a change), re-reading its text
    /// and keeping the scroll position (as far as the content still reaches), the tab and
    /// the mode.
    pub(super) fn open_detail_of_keeping(&mut self, object: u32, scroll: usize, from: Mode) {
        let Some(effect) = self.read_source(object) else {
            return;
        };
        let previous = self.detail.take().unwrap_or_default();
        let mut detail = DetailState {
            object,
            summary: summary(&self.data, object as usize, self.now),
            scroll,
            ..previous
        };
        detail.set_text(self.data.inventory.objects.get(object as usize));
        detail.clamp(self.screen.view_height());
        self.detail = Some(detail);
        self.detail_from = from;
        self.push(effect);
    }

    /// The text of the object shown arrived.
    pub(super) fn detail_source(&mut self, object: u32, text: String) {
        let height = self.screen.view_height();
        let obj = self.data.inventory.objects.get(object as usize);
        if let Some(d) = self.detail.as_mut().filter(|d| d.object == object) {
            d.source = Some(text);
            d.set_text(obj);
            d.clamp(height);
        }
    }

    /// The data changed under an open detail view: its summary follows.
    pub(super) fn refresh_detail(&mut self) {
        let now = self.now;
        let height = self.screen.view_height();
        if let Some(d) = self.detail.as_mut() {
            d.summary = summary(&self.data, d.object as usize, now);
            d.find();
            d.clamp(height);
        }
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
}

/// The text of one object cut from its file, as if written at the left margin: a list
/// item's first line starts at its value while the rest keep the file's indent, so every
/// line after the first loses the indent they share (`{` … `}` of a JSON array item, or
/// the lines of a YAML `items:` entry).
pub fn reindent(source: &str) -> Vec<String> {
    let mut lines = source.lines();
    let first = lines.next().unwrap_or_default();
    let rest: Vec<&str> = lines.collect();
    let indent = rest
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start_matches(' ').len())
        .min()
        .unwrap_or(0);
    let first_indent = first.len() - first.trim_start_matches(' ').len();
    let cut = indent.saturating_sub(first_indent);
    std::iter::once(first.to_string())
        .chain(rest.iter().map(|l| {
            let spaces = l.len() - l.trim_start_matches(' ').len();
            l[spaces.min(cut)..].to_string()
        }))
        .collect()
}

/// A Secret's `data` decoded from base64, each value quoted as Go's `%q` would (no control
/// byte reaches the terminal); values that are not base64 say so.
fn decoded_data(obj: &Object) -> Vec<String> {
    use base64::Engine;
    let mut out = vec!["# data, decoded (x hides it):".to_string()];
    let data = obj.raw.view().get("data").and_then(|d| d.as_object());
    let Some(data) = data.filter(|d| !d.is_empty()) else {
        out.push("#   <no data>".into());
        return out;
    };
    for (key, value) in data.iter() {
        let text = value.as_str().unwrap_or_default();
        let shown = match base64::engine::general_purpose::STANDARD.decode(text.trim()) {
            Ok(bytes) => crate::gocompat::quote::quote(&String::from_utf8_lossy(&bytes)),
            Err(_) => "<not base64>".into(),
        };
        out.push(format!(
            "#   {}: {shown}",
            crate::gocompat::quote::quote(key)
        ));
    }
    out
}

/// The summary of object `index`: metadata, then what owns, selects and is selected by it.
fn summary(data: &Dataset, index: usize, now: i64) -> Vec<TextLine> {
    let Some(obj) = data.inventory.objects.get(index) else {
        return Vec::new();
    };
    let mut out = vec![TextLine::one(Tone::Title, "── describe ──")];
    let field = |name: &str, value: String| {
        TextLine::of([(Tone::Title, format!("{name:<11}")), (Tone::Plain, value)])
    };
    out.push(field("Name:", obj.id.name.to_string()));
    out.push(field(
        "Namespace:",
        super::picker::namespace_label(&obj.id.namespace).to_string(),
    ));
    let kind = match &*obj.id.group {
        "" => obj.id.kind.to_string(),
        g => format!("{}.{g}", obj.id.kind),
    };
    out.push(field("Kind:", kind));
    out.push(field("Status:", super::columns::status_text(obj, now)));
    map_section(&mut out, "Labels", &obj.labels());
    map_section(&mut out, "Annotations", &obj.annotations());
    out.push(TextLine::one(Tone::Title, "Finalizers:"));
    if obj.finalizers.is_empty() {
        out.push(TextLine::one(Tone::Dim, "  <none>"));
    }
    for f in &obj.finalizers {
        out.push(TextLine::one(Tone::Plain, format!("  {f}")));
        if let Some(why) = explain_finalizer(f) {
            out.push(TextLine::one(Tone::Dim, format!("    {why}")));
        }
    }
    if let Some(ts) = &obj.deletion_timestamp() {
        out.push(TextLine::one(
            Tone::Warning,
            format!("Terminating since {ts}"),
        ));
    }
    owner_section(&mut out, data, index);
    let graph = &data.graph;
    related(
        &mut out,
        "Selected by:",
        graph.selected_by(index),
        |e| e.from_ix(),
        data,
    );
    related(
        &mut out,
        "Selects:",
        graph.selects(index),
        |e| e.to_ix(),
        data,
    );
    super::uses::sections(&mut out, data, index);
    out.push(TextLine::of([
        (Tone::Title, "Source: ".into()),
        (Tone::Plain, obj.source.to_string()),
    ]));
    out
}

/// Each owner reference, marked resolved or not found in the input.
fn owner_section(out: &mut Vec<TextLine>, data: &Dataset, index: usize) {
    let objects = &data.inventory.objects;
    let Some(obj) = objects.get(index) else {
        return;
    };
    out.push(TextLine::one(Tone::Title, "Owner references:"));
    if obj.owner_refs().is_empty() {
        out.push(TextLine::one(Tone::Dim, "  <none>"));
    }
    for o in obj.owner_refs() {
        let controller = if o.controller == Some(true) {
            " (controller)"
        } else {
            ""
        };
        let uid = if o.uid.is_empty() { "<no uid>" } else { o.uid };
        let resolved = data.graph.owners(index).iter().any(|e| {
            objects
                .get(e.from_ix())
                .is_some_and(|owner| *owner.id.kind == *o.kind && *owner.id.name == *o.name)
        });
        let mark = if resolved {
            (Tone::Dim, "resolved".to_string())
        } else {
            (Tone::Error, "not found in the input".to_string())
        };
        out.push(TextLine::of([
            (
                Tone::Plain,
                format!("  {}/{} {}{controller} ", o.kind, o.name, uid),
            ),
            mark,
        ]));
    }
}

/// Objects on the other end of selector edges, with the field that links them.
fn related(
    out: &mut Vec<TextLine>,
    title: &str,
    edges: impl Iterator<Item = Edge>,
    other: impl Fn(&Edge) -> usize,
    data: &Dataset,
) {
    out.push(TextLine::one(Tone::Title, title));
    let mut edges = edges.peekable();
    if edges.peek().is_none() {
        out.push(TextLine::one(Tone::Dim, "  <none>"));
    }
    for e in edges.by_ref().take(MAX_RELATED) {
        let Some(o) = data.inventory.objects.get(other(&e)) else {
            continue;
        };
        let via = match e.kind {
            EdgeKind::Selector { via } => via.as_str(),
            EdgeKind::Owner { .. } => "ownerReferences",
            EdgeKind::Ref { rel } => rel.as_str(),
        };
        out.push(TextLine::of([
            (Tone::Plain, format!("  {}", o.id)),
            (Tone::Dim, format!("  via {via}")),
        ]));
    }
    let more = edges.count();
    if more > 0 {
        out.push(TextLine::one(Tone::Dim, format!("  … {more} more")));
    }
}

fn map_section(out: &mut Vec<TextLine>, title: &str, map: &Labels) {
    out.push(TextLine::one(Tone::Title, format!("{title}:")));
    if map.is_empty() {
        out.push(TextLine::one(Tone::Dim, "  <none>"));
    }
    for (k, v) in map {
        out.push(TextLine::of([
            (Tone::Key, format!("  {k}")),
            (Tone::Plain, format!("={v}")),
        ]));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_json_list_item_is_re_indented_to_the_margin() {
        let cut = "{\n            \"kind\": \"Pod\",\n            \"a\": [\n              1\n            ]\n          }";
        assert_eq!(
            reindent(cut),
            [
                "{",
                "  \"kind\": \"Pod\",",
                "  \"a\": [",
                "    1",
                "  ]",
                "}"
            ]
        );
    }

    #[test]
    fn a_yaml_document_keeps_its_indent() {
        let doc = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n";
        assert_eq!(
            reindent(doc),
            ["apiVersion: v1", "kind: Pod", "metadata:", "  name: x"]
        );
        let item = "apiVersion: v1\n  kind: Pod\n  metadata:\n    name: x";
        assert_eq!(
            reindent(item),
            ["apiVersion: v1", "kind: Pod", "metadata:", "  name: x"]
        );
    }
}
