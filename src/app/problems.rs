//! The problems view: load problems and graph findings (errors first), filtered by
//! severity and code, one selectable row each.

use rustc_hash::FxHashMap;

use super::scroll::follow;
use super::{Action, App, Mode};
use crate::dataset::Dataset;
use crate::diagnostic::{Diagnostic, Severity};
use crate::model::ObjectsAt;

/// One problem row: a load problem or a graph finding of the data shown, by position. Rows
/// point into the data instead of copying it: after each watched batch the rows are
/// rebuilt, and copying (and naming) every finding took longer than the batch itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ProblemRef {
    /// Index into `Inventory::problems`.
    Load(u32),
    /// Index into `Graph::findings`.
    Finding(u32),
}

/// The problems view's rows: load problems and graph findings, errors first, then warnings,
/// then notes, each in the diagnostics' one order (what `check` prints), and the names of
/// the objects of the rows shown so far.
#[derive(Clone, Debug, Default)]
pub struct ProblemRows {
    rows: Vec<ProblemRef>,
    /// `Kind/namespace/name` of the object a row is about (`None`: no object), by row, for
    /// the rows that were on screen: naming every row cost as much as sorting them.
    names: FxHashMap<usize, Option<String>>,
}

impl ProblemRows {
    /// The rows of `data`: one merge of the load problems and the findings (kept in the
    /// diagnostics' order), severity by severity.
    pub fn of(data: &Dataset) -> ProblemRows {
        let problems = &data.inventory.problems;
        let findings = data.graph.findings();
        let mut load: Vec<u32> = (0..problems.len() as u32).collect();
        let at = |p: &u32| &problems[*p as usize];
        if !load.is_sorted_by(|a, b| at(a) <= at(b)) {
            load.sort_by(|a, b| at(a).cmp(at(b)));
        }
        let mut rows = Vec::with_capacity(problems.len() + findings.len());
        for severity in [Severity::Error, Severity::Warning, Severity::Note] {
            let mut load = load.iter().copied().filter(|p| at(p).severity == severity);
            let mut found = (0u32..)
                .zip(findings)
                .filter(|(_, d)| d.severity == severity)
                .peekable();
            for p in load.by_ref() {
                // A load problem goes before equal findings (it came first when both were
                // sorted as one list).
                while let Some((f, _)) = found.next_if(|(_, d)| *d < at(&p)) {
                    rows.push(ProblemRef::Finding(f));
                }
                rows.push(ProblemRef::Load(p));
            }
            rows.extend(found.map(|(f, _)| ProblemRef::Finding(f)));
        }
        ProblemRows {
            rows,
            names: FxHashMap::default(),
        }
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether there is no problem.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Row `i` of `data` (the data the rows were built from).
    pub fn get<'a>(&self, data: &'a Dataset, i: usize) -> Option<&'a Diagnostic> {
        match *self.rows.get(i)? {
            ProblemRef::Load(p) => data.inventory.problems.get(p as usize),
            ProblemRef::Finding(f) => data.graph.findings().get(f as usize),
        }
    }

    /// Every row of `data`, in order.
    pub fn iter<'a>(&'a self, data: &'a Dataset) -> impl Iterator<Item = &'a Diagnostic> + 'a {
        (0..self.rows.len()).filter_map(move |i| self.get(data, i))
    }

    /// The object row `i` is about, as named when it was on screen (`None`: no object, or
    /// not named yet).
    pub fn name(&self, i: usize) -> Option<&str> {
        self.names.get(&i)?.as_deref()
    }

    /// Names the objects of `rows` not named yet, as `check` names them.
    fn name_rows(&mut self, data: &Dataset, rows: impl Iterator<Item = usize>) {
        let wanted: Vec<(usize, &Diagnostic)> = rows
            .filter(|i| !self.names.contains_key(i))
            .filter_map(|i| Some((i, self.get(data, i)?)))
            .collect();
        if wanted.is_empty() {
            return;
        }
        let diagnostics: Vec<Diagnostic> = wanted.iter().map(|(_, d)| (*d).clone()).collect();
        let at = ObjectsAt::new(&data.inventory, &diagnostics);
        for ((i, _), d) in wanted.iter().zip(&diagnostics) {
            self.names.insert(*i, at.name(d));
        }
    }
}

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

    /// Recomputes `shown` for `rows` of `data`.
    pub fn apply(&mut self, rows: &ProblemRows, data: &Dataset) {
        self.shown = (0..rows.len())
            .filter(|i| rows.get(data, *i).is_some_and(|d| self.passes(d)))
            .collect();
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
        self.problem_filter.apply(&self.problem_rows, &self.data);
        self.problems = ListState::default();
    }

    /// The data changed (a load, the graph, a watched batch): the problem rows follow now
    /// if the problems view is shown, else when it is opened. Merging 350k findings (1M
    /// objects) took longer than a keystroke may wait, on every batch, for a view not shown.
    pub(super) fn set_problem_rows(&mut self) {
        self.problem_rows = ProblemRows::default();
        self.problem_filter.shown.clear();
        self.problems_stale = true;
        self.follow_problems();
    }

    /// Whether the problems view is drawn (alone or under an overlay).
    fn problems_shown(&self) -> bool {
        let overlay = matches!(self.mode, Mode::Help | Mode::Picker | Mode::Command);
        self.mode == Mode::Problems || (overlay && self.under == Mode::Problems)
    }

    /// Brings the problem rows up to date and names the rows on screen, while the problems
    /// view is shown.
    pub(super) fn follow_problems(&mut self) {
        if self.problems_shown() {
            self.refresh_problems();
            self.problems
                .clamp(self.problem_filter.shown.len(), self.screen.view_height());
            self.name_shown_problems();
        }
    }

    /// Builds the problem rows if the data changed since they were built.
    pub fn refresh_problems(&mut self) {
        if self.problems_stale {
            self.problem_rows = ProblemRows::of(&self.data);
            // Here, not on every clamp: a keystroke re-filtered every problem.
            self.problem_filter.apply(&self.problem_rows, &self.data);
            self.problems_stale = false;
        }
    }

    /// Names the objects of the problem rows on screen (drawing only reads names).
    fn name_shown_problems(&mut self) {
        let shown = &self.problem_filter.shown;
        let end = (self.problems.offset + self.screen.view_height()).min(shown.len());
        let rows = shown
            .get(self.problems.offset.min(end)..end)
            .unwrap_or_default();
        self.problem_rows
            .name_rows(&self.data, rows.iter().copied());
    }

    /// Problem row `i` (an index of `problem_filter.shown`).
    pub fn problem(&self, i: usize) -> Option<&Diagnostic> {
        self.problem_rows.get(&self.data, i)
    }

    /// Every problem row, in the view's order (see [`App::refresh_problems`]).
    pub fn all_problems(&self) -> impl Iterator<Item = &Diagnostic> {
        self.problem_rows.iter(&self.data)
    }

    /// The problem under the cursor.
    pub fn selected_problem(&self) -> Option<&Diagnostic> {
        let i = *self.problem_filter.shown.get(self.problems.selected)?;
        self.problem(i)
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
