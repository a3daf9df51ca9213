//! The problems view: load problems and graph findings, one selectable row each.

use super::scroll::follow;
use super::{Action, App, Mode};

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

impl App {
    pub(super) fn problems_action(&mut self, action: Action) {
        let n = self.problem_rows.len();
        let page = self.screen.view_height().max(1);
        let p = &mut self.problems;
        match action {
            Action::Up | Action::ScrollUp => p.selected = p.selected.saturating_sub(1),
            Action::Down | Action::ScrollDown => p.selected += 1,
            Action::PageUp => p.selected = p.selected.saturating_sub(page),
            Action::PageDown => p.selected += page,
            Action::Back => self.mode = Mode::Table,
            Action::Open => self.open_problem_object(),
            Action::Edit => self.edit_problem(),
            Action::Help => self.open_help(),
            _ => self.dirty = false,
        }
        self.problems.clamp(n, page);
    }

    fn edit_problem(&mut self) {
        if let Some(pr) = self.problem_rows.get(self.problems.selected) {
            let (path, line) = (pr.path.clone(), pr.line.max(1));
            self.edit(path, line);
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
}
