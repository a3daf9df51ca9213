//! The problems view: load problems and graph findings (errors first), filtered by
//! severity and code, one selectable row each.

use super::scroll::follow;
use super::{Action, App, Mode};
use crate::diagnostic::{Diagnostic, Severity};

/// A list position (problems view).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ListState {
    pub selected: usize,
    /// First visible row; always keeps `selected` in view.
    pub offset: usize,
}

impl ListState {
    /// Keeps the selection among `len` rows and visible in `height`.
    pub fn clamp(&mut self, len: usize, height: usize) {
        self.selected = self.selected.min(len.saturating_sub(1));
        self.offset = follow(self.selected, self.offset, len, height);
    }
}

/// Which problems the view shows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProblemFilter {
    /// Only this severity (`None`: every one).
    pub severity: Option<Severity>,
    /// Only this code.
    pub code: Option<&'static str>,
    /// Indices into `App::problem_rows` that pass, in order.
    pub shown: Vec<usize>,
}

impl ProblemFilter {
    fn passes(&self, d: &Diagnostic) -> bool {
        self.severity.is_none_or(|s| d.severity == s) && self.code.is_none_or(|c| d.code == c)
    }

    /// Recomputes `shown` for `rows`.
    pub fn apply(&mut self, rows: &[Diagnostic]) {
        self.shown = (0..rows.len()).filter(|i| self.passes(&rows[*i])).collect();
    }

    /// What the filter keeps, for the view's title (`None`: everything).
    pub fn describe(&self) -> Option<String> {
        let parts: Vec<String> = [
            self.severity.map(|s| format!("{s}s")),
            self.code.map(|c| format!("code {c}")),
        ]
        .into_iter()
        .flatten()
        .collect();
        (!parts.is_empty()).then(|| parts.join(", "))
    }
}

/// The severity shown after `current` when cycling: all, errors, warnings, notes.
fn next_severity(current: Option<Severity>) -> Option<Severity> {
    match current {
        None => Some(Severity::Error),
        Some(Severity::Error) => Some(Severity::Warning),
        Some(Severity::Warning) => Some(Severity::Note),
        Some(Severity::Note) => None,
    }
}

impl App {
    pub(super) fn problems_action(&mut self, action: Action) {
        let page = self.screen.view_height().max(1);
        let p = &mut self.problems;
        match action {
            Action::Up | Action::ScrollUp => p.selected = p.selected.saturating_sub(1),
            Action::Down | Action::ScrollDown => p.selected += 1,
            Action::PageUp => p.selected = p.selected.saturating_sub(page),
            Action::PageDown => p.selected += page,
            Action::Top => p.selected = 0,
            Action::Bottom => p.selected = usize::MAX,
            Action::CycleSeverity => {
                self.problem_filter.severity = next_severity(self.problem_filter.severity);
                self.refilter_problems();
            }
            Action::FilterCode => {
                let code = self.selected_problem().map(|d| d.code);
                let f = &mut self.problem_filter;
                f.code = if f.code.is_some() { None } else { code };
                self.refilter_problems();
            }
            Action::Back => self.mode = Mode::Table,
            Action::Open => self.open_problem_object(),
            Action::Edit => self.edit_problem(),
            Action::Help => self.open_help(),
            _ => self.dirty = false,
        }
        self.problems.clamp(self.problem_filter.shown.len(), page);
    }

    /// The problem rows changed, or the filter did: the view shows what passes, from the top.
    pub(super) fn refilter_problems(&mut self) {
        self.problem_filter.apply(&self.problem_rows);
        self.problems = ListState::default();
    }

    /// The problem under the cursor.
    pub fn selected_problem(&self) -> Option<&Diagnostic> {
        let i = *self.problem_filter.shown.get(self.problems.selected)?;
        self.problem_rows.get(i)
    }

    fn edit_problem(&mut self) {
        if let Some(pr) = self.selected_problem() {
            let (path, line) = (pr.path.clone(), pr.line.max(1));
            self.edit(path, line);
        }
    }

    /// The object a problem is about: the last object of its file starting at or before
    /// the problem's line.
    fn open_problem_object(&mut self) {
        let Some(pr) = self.selected_problem() else {
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
}
