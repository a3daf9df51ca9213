//! The detail view of one object: its text as written in its file, then a summary of its
//! metadata and relations, scrolled within the lines the state knows.

use super::scroll::{max_offset, scrolled};
use super::text::{TextLine, Tone};
use super::{Action, App, Effect, Mode};
use crate::dataset::Dataset;
use crate::graph::{explain_finalizer, Edge, EdgeKind};
use crate::model::Labels;

/// Most related objects listed before "… N more".
const MAX_RELATED: usize = 20;

/// The detail view of one object.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DetailState {
    pub object: u32,
    /// The object's text as written in its file (`None` until read).
    pub source: Option<String>,
    /// What follows the text: labels, annotations, finalizers, owners, selector edges.
    pub summary: Vec<TextLine>,
    /// First line shown; always within [`DetailState::line_count`].
    pub scroll: usize,
}

impl DetailState {
    /// Lines of the text (one, "reading…", until it arrives).
    pub fn source_len(&self) -> usize {
        self.source.as_deref().map_or(1, |t| t.lines().count())
    }

    /// Lines in the view: the text, a blank line, the summary.
    pub fn line_count(&self) -> usize {
        self.source_len() + 1 + self.summary.len()
    }

    /// Keeps the scroll within the last page for `height` rows.
    pub fn clamp(&mut self, height: usize) {
        self.scroll = self.scroll.min(max_offset(self.line_count(), height));
    }
}

impl App {
    pub(super) fn detail_action(&mut self, action: Action) {
        let height = self.screen.view_height();
        let Some(d) = self.detail.as_mut() else {
            self.mode = Mode::Table;
            return;
        };
        if let Some(scroll) = scrolled(d.scroll, &action, d.line_count(), height) {
            d.scroll = scroll;
            return;
        }
        match action {
            Action::Back => self.mode = self.detail_from,
            Action::CopyPath => self.copy_path(),
            Action::Edit => self.edit_selected(),
            Action::Help => self.open_help(),
            _ => self.dirty = false,
        }
    }

    pub(super) fn open_detail(&mut self) {
        if let Some(i) = self.table.selected_object() {
            self.open_detail_of(i);
        }
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
            summary: summary(&self.data, object as usize),
            scroll: 0,
        });
        self.mode = Mode::Detail;
        self.push(effect);
    }

    /// Points an open detail view at `object` again (after a change), re-reading its text
    /// and keeping the scroll position (as far as the content still reaches) and the mode.
    pub(super) fn open_detail_of_keeping(&mut self, object: u32, scroll: usize, from: Mode) {
        let Some(effect) = self.read_source(object) else {
            return;
        };
        let previous = self.detail.take().and_then(|d| d.source);
        let mut detail = DetailState {
            object,
            source: previous,
            summary: summary(&self.data, object as usize),
            scroll,
        };
        detail.clamp(self.screen.view_height());
        self.detail = Some(detail);
        self.detail_from = from;
        self.push(effect);
    }

    /// The text of the object shown arrived.
    pub(super) fn detail_source(&mut self, object: u32, text: String) {
        let height = self.screen.view_height();
        if let Some(d) = self.detail.as_mut().filter(|d| d.object == object) {
            d.source = Some(text);
            d.clamp(height);
        }
    }

    /// The data changed under an open detail view: its summary follows.
    pub(super) fn refresh_detail(&mut self) {
        let height = self.screen.view_height();
        if let Some(d) = self.detail.as_mut() {
            d.summary = summary(&self.data, d.object as usize);
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

/// The summary of object `index`: metadata, then what owns, selects and is selected by it.
fn summary(data: &Dataset, index: usize) -> Vec<TextLine> {
    let Some(obj) = data.inventory.objects.get(index) else {
        return Vec::new();
    };
    let mut out = vec![TextLine::one(Tone::Title, "── summary ──")];
    map_section(&mut out, "Labels", &obj.labels);
    map_section(&mut out, "Annotations", &obj.annotations);
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
    if let Some(ts) = &obj.deletion_timestamp {
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
        |e| e.from,
        data,
    );
    related(&mut out, "Selects:", graph.selects(index), |e| e.to, data);
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
    if obj.owner_refs.is_empty() {
        out.push(TextLine::one(Tone::Dim, "  <none>"));
    }
    for o in &obj.owner_refs {
        let controller = if o.controller == Some(true) {
            " (controller)"
        } else {
            ""
        };
        let uid = if o.uid.is_empty() { "<no uid>" } else { &o.uid };
        let resolved = data.graph.owners(index).iter().any(|e| {
            objects
                .get(e.from)
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
    edges: &[Edge],
    other: impl Fn(&Edge) -> usize,
    data: &Dataset,
) {
    out.push(TextLine::one(Tone::Title, title));
    if edges.is_empty() {
        out.push(TextLine::one(Tone::Dim, "  <none>"));
    }
    for e in edges.iter().take(MAX_RELATED) {
        let Some(o) = data.inventory.objects.get(other(e)) else {
            continue;
        };
        let via = match e.kind {
            EdgeKind::Selector { via } => via,
            EdgeKind::Owner { .. } => "ownerReferences",
            EdgeKind::Ref { rel } => rel,
        };
        out.push(TextLine::of([
            (Tone::Plain, format!("  {}", o.id)),
            (Tone::Dim, format!("  via {via}")),
        ]));
    }
    if edges.len() > MAX_RELATED {
        out.push(TextLine::one(
            Tone::Dim,
            format!("  … {} more", edges.len() - MAX_RELATED),
        ));
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
