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

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::sync::Arc;

    use super::*;
    use crate::dataset::{Dataset, RenderSummary};
    use crate::model::load::parse_text;

    fn pod(name: &str, app: &str) -> String {
        format!("apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: shop, labels: {{app: {app}}}}}\n---\n")
    }

    fn data(text: &str, render: Option<RenderSummary>) -> Box<Dataset> {
        let objects = parse_text(&Arc::from(Path::new("x.yaml")), text).objects;
        let mut data = Dataset::new(crate::model::Inventory {
            objects,
            ..Default::default()
        });
        data.render = render;
        Box::new(data)
    }

    fn selected_name(app: &App) -> Option<String> {
        let i = app.table.selected_object()?;
        Some(app.data.inventory.objects[i as usize].id.name.to_string())
    }

    const SUMMARY: RenderSummary = RenderSummary {
        kustomizations: 3,
        charts: 1,
        failed: 1,
        cached: 0,
    };

    #[test]
    fn switching_views_keeps_the_filter_and_the_selected_object() {
        let keymap = super::super::Keymap::load(None).unwrap();
        let mut app = App::new(keymap, super::super::Options::default(), 0);
        app.update(Action::Resize(120, 30));
        app.update(Action::RenderProgress { done: 2, total: 4 });
        assert_eq!(
            app.render.describe(&app.data),
            "rendering 2/4 kustomizations"
        );
        let rendered = [pod("a-web", "web"), pod("b-db", "db"), pod("c-web", "web")].concat();
        app.update(Action::Loaded(data(&rendered, Some(SUMMARY))));
        assert_eq!(
            app.render.describe(&app.data),
            "rendered: 3 kustomizations, 1 chart rendered, 1 failed"
        );
        app.update(Action::FocusBar);
        for c in "app=web".chars() {
            app.update(Action::Insert(c));
        }
        app.update(Action::LeaveBar);
        app.update(Action::Down);
        assert_eq!(selected_name(&app).as_deref(), Some("c-web"));
        app.take_effects();

        app.update(Action::ToggleRender);
        assert_eq!(app.take_effects(), [Effect::Render { rendered: false }]);
        assert_eq!(
            app.render.describe(&app.data),
            "switching to the files view…"
        );
        // A second press while switching asks for nothing.
        app.update(Action::ToggleRender);
        assert!(app.take_effects().is_empty());

        // The files hold the same object at another place, among others.
        let files = [
            pod("x-web", "web"),
            pod("y-web", "web"),
            pod("c-web", "web"),
        ]
        .concat();
        app.update(Action::Loaded(data(&files, None)));
        assert_eq!(app.render.describe(&app.data), "files");
        assert_eq!(app.bar.text(), "app=web");
        assert_eq!(selected_name(&app).as_deref(), Some("c-web"));

        app.take_effects();
        app.update(Action::ToggleRender);
        assert_eq!(app.take_effects(), [Effect::Render { rendered: true }]);
    }

    #[test]
    fn no_switch_while_the_first_load_runs_and_no_view_named_without_rendering() {
        let keymap = super::super::Keymap::load(None).unwrap();
        let mut app = App::new(keymap, super::super::Options::default(), 0);
        app.update(Action::Resize(120, 30));
        app.update(Action::Partial(Box::new(
            data(&pod("a", "web"), None).inventory,
        )));
        app.update(Action::ToggleRender);
        assert!(app
            .take_effects()
            .iter()
            .all(|e| !matches!(e, Effect::Render { .. })));
        app.update(Action::Loaded(data(&pod("a", "web"), None)));
        assert_eq!(app.render.describe(&app.data), "");
    }
}
