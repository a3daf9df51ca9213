//! The files / rendered view: which one the data shows (`Dataset::render`), builds in
//! progress while loading, and the switch between the two. A switch is an
//! [`Effect::Render`]: the event loop replaces the loader with one asking for the other
//! view; the table keeps its filters and, where the object still exists, its selection.

use super::{Action, App, Effect, Row};
use crate::model::ObjectId;

/// What the app knows of rendering besides the data.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RenderView {
    /// Builds finished and planned, while the first load renders.
    pub progress: Option<(usize, usize)>,
    /// A switch is under way to this view (`true`: rendered), until its table arrives.
    pub switching: Option<bool>,
    /// The object selected when the switch was asked.
    keep: Option<ObjectId>,
    /// The user switched views at least once (the files view is named from then on).
    toggled: bool,
}

impl RenderView {
    /// The header's words for the view: `rendered: N kustomizations, M charts rendered,
    /// K failed`, or `files` (empty before any switch: an input with nothing to render is
    /// not a view to name); while builds run, `rendering D/T kustomizations`.
    pub fn describe(&self, data: &crate::dataset::Dataset) -> String {
        if let Some(to) = self.switching {
            let to = if to { "rendered" } else { "files" };
            return format!("switching to the {to} view…");
        }
        let mut text = match data.render {
            None if self.toggled => "files".to_owned(),
            None => String::new(),
            Some(s) => {
                let mut t = format!(
                    "rendered: {}, {} rendered",
                    crate::print::count(s.kustomizations, "kustomization"),
                    crate::print::count(s.charts, "chart")
                );
                if s.failed > 0 {
                    t.push_str(&format!(", {} failed", s.failed));
                }
                t
            }
        };
        if let Some((done, total)) = self.progress.filter(|(d, t)| d < t) {
            text = format!("rendering {done}/{total} kustomizations");
        }
        text
    }
}

impl App {
    /// Handles the render actions; `false` when `action` is none of them.
    pub(super) fn render_action(&mut self, action: &Action) -> bool {
        match action {
            Action::RenderProgress { done, total } => {
                self.render.progress = Some((*done, *total));
                true
            }
            Action::ToggleRender if self.mode == super::Mode::Table => {
                self.toggle_render();
                true
            }
            _ => false,
        }
    }

    /// Asks for the other view, unless a load or a switch is still going on.
    fn toggle_render(&mut self) {
        if self.loading.is_some() || self.render.switching.is_some() {
            self.status = Some("still loading: switch views once the table is complete".into());
            return;
        }
        let rendered = self.data.render.is_none();
        self.render.switching = Some(rendered);
        self.render.toggled = true;
        self.render.progress = None;
        self.render.keep = self
            .table
            .selected_object()
            .and_then(|i| self.data.inventory.objects.get(i as usize))
            .map(|o| o.id.clone());
        self.push(Effect::Render { rendered });
    }

    /// The other view's whole table arrived: select the object selected before the switch,
    /// where it still exists.
    pub(super) fn switched(&mut self) {
        self.render.progress = None;
        if self.render.switching.take().is_none() {
            return;
        }
        let Some(id) = self.render.keep.take() else {
            return;
        };
        let objects = &self.data.inventory.objects;
        let row = self.table.rows.iter().position(
            |r| matches!(r, Row::Object(i) if objects.get(*i as usize).is_some_and(|o| o.id == id)),
        );
        if let Some(row) = row {
            self.table.selected = row;
            self.table.clamp();
        }
    }
}
