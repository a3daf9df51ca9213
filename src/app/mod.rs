//! App state and [`App::update`], the only place it changes. No drawing, no I/O: work that
//! needs the outside world (clipboard, editor, files) is queued as an [`Effect`] for the
//! event loop.

mod action;
mod bar;
mod changes;
pub mod columns;
mod command;
mod detail;
mod help;
mod input;
mod keymap;
mod layout;
mod line;
mod loading;
mod picker;
mod problems;
mod render;
mod scroll;
mod table;
mod text;
mod tree;
mod uses;

use std::path::Path;
use std::sync::Arc;

use roaring::RoaringBitmap;

pub use action::{superseded_left_out, Action};
pub use bar::{text_width, BarState, Completion, ErrorRow, PROMPT_WIDTH};
pub use changes::{ApplyCost, LastChange, FLASH_SECONDS};
pub use columns::{titles, Column};
pub use command::CommandState;
pub use detail::{DetailState, DetailTab};
pub use help::HelpState;
pub use keymap::{Input, Key, KeyCode, Keymap, Mods, DEFAULT_KEYMAP};
pub use layout::Screen;
pub use line::LineInput;
pub use picker::{namespace_label, Picker, PickerKind, ALL, CLUSTER};
pub use problems::{ListState, ProblemFilter, ProblemRows};
pub use render::RenderView;
pub use table::{GroupRow, Row, Sort, TableState};
pub use text::{TextLine, Tone};
pub use tree::TreeState;

use crate::dataset::{Dataset, Graph, PatchReport};
use crate::model::Inventory;
use crate::query::{GroupBy, Query};

/// Which view has the keyboard.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Table,
    Bar,
    Detail,
    Problems,
    Picker,
    Help,
    Tree,
    /// The `:` command line.
    Command,
}

impl Mode {
    /// Section name in the keymap.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Table => "table",
            Mode::Bar => "bar",
            Mode::Detail => "detail",
            Mode::Problems => "problems",
            Mode::Picker => "picker",
            Mode::Help => "help",
            Mode::Tree => "tree",
            Mode::Command => "command",
        }
    }
}

/// Side effects `update` asks the event loop to perform.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Effect {
    /// Copy text to the clipboard (OSC 52).
    Copy(String),
    /// Run `$EDITOR +line path`, then restore the UI.
    Edit { path: Arc<Path>, line: u32 },
    /// Read `path` bytes `start..end` for the detail view (whole object as YAML if empty).
    ReadSource {
        object: u32,
        path: Arc<Path>,
        start: usize,
        end: usize,
    },
    /// Persist the selector history.
    SaveHistory(Vec<String>),
    /// Free replaced data off the UI thread.
    Release(Released),
    /// Stop the process (SIGTSTP) with the terminal restored; redraw when continued.
    Suspend,
    /// Load the input again as the rendered view (`true`) or the files view.
    Render { rendered: bool },
}

/// Data the app no longer shows, to be dropped where it does not hold up a frame.
#[derive(Clone, Debug)]
pub struct Released(pub Arc<Dataset>);

impl PartialEq for Released {
    fn eq(&self, other: &Released) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for Released {}

/// Loading progress, shown as a gauge until the inventory arrives.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    pub files_done: usize,
    pub files_total: usize,
}

/// Options from the command line.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// `-L` keys (empty: the most common keys).
    pub label_columns: Vec<String>,
    pub show_labels: bool,
    pub no_color: bool,
    pub history: Vec<String>,
    /// Objects came from standard input, read once: the header says it is not watched.
    pub stdin_once: bool,
    /// The paths given on the command line: SOURCE is shown relative to them.
    pub roots: Vec<std::path::PathBuf>,
    /// `-n`: the namespace filter to start with.
    pub namespace: Option<String>,
    /// `-l`: the selector to start with in the bar.
    pub selector: Option<String>,
    /// `--kind` / `-c`: a command line run once the kinds are known (`po`, `deploy shop`).
    pub command: Option<String>,
}

/// The whole UI state.
#[derive(Debug)]
pub struct App {
    pub data: Arc<Dataset>,
    /// `None` once loading is done.
    pub loading: Option<Progress>,
    /// The files / rendered view and its builds.
    pub render: RenderView,
    /// The columns last chosen automatically (kept when the user has not changed them).
    auto_columns: Option<Vec<Column>>,
    /// Objects changed by the last watched batch, highlighted until `flash_until`.
    pub flash: RoaringBitmap,
    pub flash_until: i64,
    /// The last watched batch applied.
    pub last_change: Option<LastChange>,
    /// What patching the data for the last watched batch cost (`None` after a rebuild).
    pub last_patch: Option<PatchReport>,
    /// What the UI's part of the last watched batch cost.
    pub last_apply: ApplyCost,
    pub mode: Mode,
    /// Mode to return to when an overlay (help, picker) closes.
    pub under: Mode,
    pub screen: Screen,
    pub table: TableState,
    pub bar: BarState,
    /// The last query that parsed (drives `table.matched`).
    pub query: Query,
    pub namespace: Option<String>,
    pub kind: Option<String>,
    pub picker: Option<Picker>,
    pub detail: Option<DetailState>,
    /// Where the detail view returns to.
    pub detail_from: Mode,
    pub tree: Option<TreeState>,
    /// Load problems and graph findings, errors first (see [`ProblemRows`]); built while
    /// the problems view is shown (empty while `problems_stale`).
    pub problem_rows: ProblemRows,
    /// The data changed since the problem rows were built.
    problems_stale: bool,
    pub problems: ListState,
    /// Which problems the problems view shows.
    pub problem_filter: ProblemFilter,
    /// The help overlay, while open.
    pub help: Option<HelpState>,
    /// The `:` command line, while open (returns to `under` when closed).
    pub command: Option<CommandState>,
    /// The start-up command (`--kind`), until the data it names has loaded.
    pending_command: Option<String>,
    /// Label keys of the objects appended while loading that the label index does not
    /// have yet, or of the partial batches while a whole table waits for its index (see
    /// `loading`).
    unindexed_keys: loading::KeyCounts,
    pub keymap: Keymap,
    pub options: Options,
    /// Unix seconds.
    pub now: i64,
    pub status: Option<String>,
    pub should_quit: bool,
    /// Something changed since the last frame.
    pub dirty: bool,
    effects: Vec<Effect>,
}

impl App {
    /// An empty app, waiting for the loader.
    pub fn new(keymap: Keymap, options: Options, now: i64) -> App {
        let mut bar = BarState::default();
        bar.history = options.history.clone();
        if let Some(selector) = &options.selector {
            bar.line.set(selector);
        }
        let namespace = options.namespace.clone();
        let pending_command = options.command.clone();
        App {
            data: Arc::new(Dataset::default()),
            loading: Some(Progress::default()),
            render: RenderView::default(),
            auto_columns: None,
            flash: RoaringBitmap::new(),
            flash_until: 0,
            last_change: None,
            last_patch: None,
            last_apply: ApplyCost::default(),
            mode: Mode::Table,
            under: Mode::Table,
            screen: Screen::default(),
            table: TableState::default(),
            bar,
            query: Query::default(),
            namespace,
            kind: None,
            picker: None,
            detail: None,
            detail_from: Mode::Table,
            tree: None,
            problem_rows: ProblemRows::default(),
            problems_stale: false,
            problems: ListState::default(),
            problem_filter: ProblemFilter::default(),
            help: None,
            command: None,
            pending_command,
            unindexed_keys: loading::KeyCounts::default(),
            keymap,
            options,
            now,
            status: None,
            should_quit: false,
            dirty: true,
            effects: Vec::new(),
        }
    }

    /// Takes the side effects queued by `update`.
    pub fn take_effects(&mut self) -> Vec<Effect> {
        std::mem::take(&mut self.effects)
    }

    /// Applies one action.
    pub fn update(&mut self, action: Action) {
        self.dirty = true;
        if !loading::leaves_index_behind(&action) {
            self.catch_up_index();
        }
        match action {
            Action::Tick(now) => self.tick(now),
            Action::Resize(w, h) => self.resize(w, h),
            Action::LoadProgress {
                files_done,
                files_total,
            } => {
                // Redraw every 5 % (and at the ends), not once per file: on 2 cores every
                // frame (and the terminal drawing it) takes time from the parsers.
                let percent = |done: usize| done * 20 / files_total.max(1);
                self.dirty = match self.loading {
                    Some(p) => {
                        percent(p.files_done) != percent(files_done)
                            || files_done == files_total
                            || p.files_total != files_total
                    }
                    None => false,
                };
                if self.loading.is_some() {
                    self.loading = Some(Progress {
                        files_done,
                        files_total,
                    });
                }
            }
            Action::Loaded(loaded) => {
                self.loading = None;
                if loaded.indexing {
                    self.loaded_unindexed();
                } else {
                    self.unindexed_keys = loading::KeyCounts::default();
                }
                self.loaded(*loaded);
                self.switched();
            }
            Action::Indexed(index) => self.indexed(*index),
            Action::Linked(graph) => self.linked(*graph),
            Action::Changed(change) => {
                self.apply_change(*change);
                self.clamp_views();
            }
            Action::Partial(more) => {
                if self.loading.is_some() {
                    self.append_partial(*more);
                }
            }
            Action::DetailSource { object, text } => self.detail_source(object, text),
            Action::Notice(msg) => self.status = Some(msg),
            Action::Quit => self.should_quit = true,
            Action::Suspend => self.effects.push(Effect::Suspend),
            other if self.render_action(&other) => {}
            other => self.user_action(other),
        }
        self.follow_problems();
    }

    fn tick(&mut self, now: i64) {
        // Ages change at most once a second; only redraw when the second changed.
        self.dirty = now != self.now;
        self.now = now;
    }

    fn resize(&mut self, w: u16, h: u16) {
        self.screen = Screen::new(ratatui::layout::Rect::new(0, 0, w, h));
        self.relayout();
    }

    /// Rows the selector bar takes (the text and its error's rows) at `width` columns.
    pub fn bar_rows(&self, width: u16) -> usize {
        self.bar.rows(width as usize)
    }

    /// Lays the screen out again for the bar's current rows, scrolls the edited line to
    /// keep its cursor visible, and keeps every view's scroll valid.
    fn relayout(&mut self) {
        let area = self.screen.area();
        let width = text_width(area.width as usize);
        self.bar.line.follow(width);
        if let Some(c) = self.command.as_mut() {
            c.line.follow(width);
        }
        self.screen = Screen::with_bar(area, self.bar_rows(area.width));
        self.table.height = self.screen.body_height();
        self.table.clamp();
        self.clamp_views();
    }

    /// Keeps every view's scroll valid for the screen and the content (after a resize or
    /// a change of the data).
    fn clamp_views(&mut self) {
        let height = self.screen.view_height();
        let width = self.detail_width();
        if let Some(d) = self.detail.as_mut() {
            d.width = width;
            d.clamp(height);
        }
        if let Some(h) = self.help.as_mut() {
            h.clamp(height);
        }
        if let Some(p) = self.picker.as_mut() {
            p.clamp(height);
        }
        if let Some(t) = self.tree.as_mut() {
            t.move_by(0, height);
        }
        if !self.problems_stale {
            self.problems.clamp(self.problem_filter.shown.len(), height);
        }
    }

    fn loaded(&mut self, loaded: Dataset) {
        let old = std::mem::replace(&mut self.data, Arc::new(loaded));
        self.release(old);
        self.show_data();
    }

    /// Hands replaced data to the event loop to free: dropping 100k objects (or what partial
    /// batches built) takes longer than a frame, so it happens off the UI thread.
    pub(super) fn release(&mut self, old: Arc<Dataset>) {
        if Arc::strong_count(&old) == 1 && !old.inventory.objects.is_empty() {
            self.effects.push(Effect::Release(Released(old)));
        }
    }

    /// The graph of the data shown arrived: findings join the problems, an open tree or
    /// detail view is rebuilt with the owners and selectors.
    fn linked(&mut self, graph: Graph) {
        let data = Arc::make_mut(&mut self.data);
        if !data.linking || graph.len() != data.inventory.objects.len() {
            tracing::warn!("a graph arrived for other data; ignored");
            return;
        }
        data.graph = graph;
        data.linking = false;
        self.set_problem_rows();
        self.relink_views();
        self.clamp_views();
    }

    /// Appends what loading read since the previous partial load: objects spliced in at the
    /// end, their labels into the index (no graph until the final load).
    fn append_partial(&mut self, more: Inventory) {
        let data = Arc::make_mut(&mut self.data);
        let inv = &mut data.inventory;
        if inv.objects.is_empty() {
            inv.kinds = more.kinds;
        }
        let at = u32::try_from(inv.objects.len()).unwrap_or(u32::MAX);
        inv.objects.extend(more.objects);
        let problems = !more.problems.is_empty();
        inv.problems.extend(more.problems);
        inv.files += more.files;
        inv.bytes += more.bytes;
        if self.may_defer_index(at) {
            self.count_unindexed(at);
        } else {
            self.catch_up_index();
        }
        if at == 0 || !self.show_appended(at, problems) {
            self.catch_up_index();
            self.show_data();
        }
    }

    /// [`App::show_data`] for objects appended from `from` on, without redoing the whole
    /// table: only the new objects are filtered, and their rows appended (a batch every
    /// 400 ms re-filtering everything made loading a million objects quadratic, and took
    /// the cores from the parsers). The selection stays where it is. `false` (nothing
    /// done) when the rows cannot simply grow: a sorted or grouped table, or a reference
    /// term (it looks at other objects).
    fn show_appended(&mut self, from: u32, problems: bool) -> bool {
        if self.query.group.is_some() || self.query.has_refs() {
            return false;
        }
        let data = Arc::clone(&self.data);
        let to = u32::try_from(data.inventory.objects.len()).unwrap_or(u32::MAX);
        // With a parse error in the bar the rows stay those of the last valid query (as
        // `refilter` leaves them).
        let more = if self.bar.error.is_none() {
            let universe = self.universe_in(from..to);
            self.query
                .filter_linked(&data.inventory, &data.index, &universe, &data.graph)
        } else {
            RoaringBitmap::new()
        };
        if !self.table.append(from, to, &more) {
            return false;
        }
        self.auto_columns_follow();
        if problems {
            self.set_problem_rows();
        }
        self.run_pending_command();
        self.refresh_detail();
        self.clamp_views();
        true
    }

    /// Columns chosen from the data follow it, unless the user changed them.
    pub(super) fn auto_columns_follow(&mut self) {
        if self.auto_columns.is_none() || self.auto_columns.as_ref() == Some(&self.table.columns) {
            let columns = self.default_columns(&self.data);
            self.table.set_columns(columns);
            self.auto_columns = Some(self.table.columns.clone());
        }
    }

    /// Refreshes what is derived from the data: columns (chosen from the data unless the
    /// user changed them since a partial load), problem rows, sort order, rows.
    fn show_data(&mut self) {
        self.auto_columns_follow();
        self.set_problem_rows();
        self.table.resort(&self.data.inventory.objects, self.now);
        self.run_pending_command();
        self.refilter();
        self.refresh_detail();
        self.clamp_views();
    }

    /// The columns for the data and the kind filter, with the `-L` keys (else the two most
    /// common label keys) and LABELS with `--show-labels` (see [`App::columns_for`]).
    fn default_columns(&self, loaded: &Dataset) -> Vec<Column> {
        let keys = if self.options.label_columns.is_empty() {
            self.most_common_keys(2)
        } else {
            self.options.label_columns.clone()
        };
        let mut labels: Vec<Column> = keys.into_iter().map(Column::Label).collect();
        if self.options.show_labels {
            labels.push(Column::Labels);
        }
        self.columns_for(loaded, labels)
    }

    /// NAMESPACE, KIND, NAME, the `labels` columns, STATUS, AGE, SOURCE; with one kind
    /// shown, that kind's UI columns instead ([`columns::kind_headers`]; NAMESPACE only for a
    /// namespaced kind): NAMESPACE, NAME, READY, STATUS, …, the `labels` columns, SOURCE.
    fn columns_for(&self, loaded: &Dataset, labels: Vec<Column>) -> Vec<Column> {
        let Some(kind) = self.kind.as_deref() else {
            let mut columns = vec![Column::Namespace, Column::Kind, Column::Name];
            columns.extend(labels);
            columns.extend([Column::Status, Column::Age, Column::Source]);
            return columns;
        };
        let objects = &loaded.inventory.objects;
        let of_kind = || objects.iter().filter(|o| *o.id.kind == *kind);
        let group = of_kind().next().map(|o| o.id.group.to_string());
        let headers = columns::kind_headers(group.as_deref().unwrap_or(""), kind);
        let mut columns = Vec::new();
        if of_kind().any(|o| !o.id.namespace.is_empty()) {
            columns.push(Column::Namespace);
        }
        columns.push(Column::Name);
        if headers == ["AGE"] {
            // No printer of its own: the generic status says more than AGE alone.
            columns.push(Column::Status);
        }
        columns.extend(headers.iter().enumerate().map(|(index, h)| match *h {
            "AGE" => Column::Age,
            title => Column::Printer {
                index,
                title: title.to_string(),
            },
        }));
        columns.extend(labels);
        columns.push(Column::Source);
        columns
    }

    /// The kind or namespace filter changed: the columns follow the kind (keeping the
    /// label columns chosen), then rows and counts.
    pub(super) fn filters_changed(&mut self) {
        let labels: Vec<Column> = self
            .table
            .columns
            .iter()
            .filter(|c| matches!(c, Column::Label(_) | Column::Labels))
            .cloned()
            .collect();
        let auto = self.auto_columns.as_ref() == Some(&self.table.columns);
        let columns = self.columns_for(&self.data, labels);
        self.table.set_columns(columns);
        if auto {
            self.auto_columns = Some(self.table.columns.clone());
        }
        self.table.hscroll = 0;
        let data = Arc::clone(&self.data);
        self.table.resort(&data.inventory.objects, self.now);
        self.apply_query();
        self.table.selected = 0;
        self.table.offset = 0;
    }

    /// SOURCE as shown: the path relative to the one path given on the command line (with
    /// several, as found: `a/x.yaml` and `b/x.yaml` stay apart).
    pub fn source_text(&self, obj: &crate::model::Object) -> String {
        format!(
            "{}:{}",
            self.relative_path(&obj.source.path),
            obj.source.line
        )
    }

    /// A file's path relative to the one path given on the command line, escaped.
    pub fn relative_path(&self, path: &Path) -> String {
        let relative = match self.options.roots.as_slice() {
            [root] => path
                .strip_prefix(root)
                .ok()
                .filter(|rest| !rest.as_os_str().is_empty()),
            _ => None,
        };
        let shown = relative.unwrap_or(path).display().to_string();
        crate::gocompat::escape::escape_line(&shown).into_owned()
    }

    /// The objects the namespace and kind filters let through.
    fn universe(&self) -> RoaringBitmap {
        // (Not the label index's: it may be behind while loading, see `loading`.)
        let len = u32::try_from(self.data.inventory.objects.len()).unwrap_or(u32::MAX);
        self.universe_in(0..len)
    }

    /// The objects of `range` the namespace and kind filters let through.
    fn universe_in(&self, range: std::ops::Range<u32>) -> RoaringBitmap {
        if self.namespace.is_none() && self.kind.is_none() {
            let mut all = RoaringBitmap::new();
            all.insert_range(range);
            return all;
        }
        let keep = |o: &crate::model::Object| {
            self.namespace
                .as_deref()
                .is_none_or(|n| *o.id.namespace == *n)
                && self.kind.as_deref().is_none_or(|k| *o.id.kind == *k)
        };
        let objects = &self.data.inventory.objects;
        let slice = objects
            .get(range.start as usize..range.end as usize)
            .unwrap_or_default();
        (range.start..)
            .zip(slice)
            .filter(|(_, o)| keep(o))
            .map(|(i, _)| i)
            .collect()
    }

    /// Re-parses the bar; on success re-filters and resets the scroll, on error keeps the
    /// last valid result and records the error for the caret.
    pub fn refilter(&mut self) {
        match Query::parse(self.bar.text()) {
            Ok(q) => {
                self.bar.error = None;
                self.query = q;
            }
            Err(e) => {
                self.bar.error = Some(e);
                return self.relayout();
            }
        }
        self.apply_query();
        self.table.selected = 0;
        self.table.offset = 0;
        self.relayout();
    }

    /// Recomputes matches and rows for the current query and filters.
    ///
    /// A label query typed while the loader builds the whole table's label index (on every
    /// core, ≈ 0.6 s at 1M objects) waits for it, matching nothing meanwhile: building the
    /// index here as well froze the UI for over 2 s at 1M (BENCHMARKS.md, "table1m").
    fn apply_query(&mut self) {
        if self.waiting_for_index() {
            self.table.matched = RoaringBitmap::new();
        } else {
            if self.query.has_labels() {
                self.catch_up_index();
            }
            let universe = self.universe();
            let data = Arc::clone(&self.data);
            self.table.matched =
                self.query
                    .filter_linked(&data.inventory, &data.index, &universe, &data.graph);
        }
        let data = Arc::clone(&self.data);
        self.table
            .rebuild(&data.inventory.objects, self.query.group.as_ref());
    }

    /// Whether the rows wait for the label index the loader is building (a label query
    /// typed before it came): no rows match until it comes.
    pub fn waiting_for_index(&self) -> bool {
        self.query.has_labels() && self.data.indexing && self.index_behind()
    }

    /// The grouping in effect.
    pub fn group(&self) -> Option<&GroupBy> {
        self.query.group.as_ref()
    }

    /// Objects matching, and in total.
    pub fn counts(&self) -> (u64, usize) {
        (self.table.matched.len(), self.data.inventory.objects.len())
    }

    /// The object the table or detail view points at.
    pub fn current_object(&self) -> Option<u32> {
        match self.mode {
            Mode::Detail => self.detail.as_ref().map(|d| d.object),
            Mode::Tree => self.tree.as_ref().and_then(TreeState::selected_object),
            _ => self.table.selected_object(),
        }
    }

    /// The keymap section keys are looked up in: the bar's while a picker filter or a
    /// detail search is typed (characters are text there), else the mode's.
    pub fn key_mode(&self) -> Mode {
        let typing = match self.mode {
            Mode::Picker => self.picker.as_ref().is_some_and(|p| p.typing),
            Mode::Detail => self.detail.as_ref().is_some_and(|d| d.searching),
            _ => false,
        };
        if typing {
            Mode::Bar
        } else {
            self.mode
        }
    }

    /// Hands a user intent to the view that has the keyboard.
    fn user_action(&mut self, action: Action) {
        if self.loading.is_some() {
            // Before the first batch there is nothing to act on; while later batches
            // arrive everything works but the owner tree, which needs the final graph.
            if self.data.inventory.objects.is_empty()
                && !matches!(action, Action::Help | Action::Back)
            {
                return;
            }
        }
        if matches!(action, Action::Command)
            && matches!(
                self.mode,
                Mode::Table | Mode::Tree | Mode::Detail | Mode::Problems
            )
        {
            return self.open_command();
        }
        match self.mode {
            Mode::Bar => self.bar_action(action),
            Mode::Picker => self.picker_action(action),
            Mode::Detail => self.detail_action(action),
            Mode::Problems => self.problems_action(action),
            Mode::Help => self.help_action(action),
            Mode::Tree => self.tree_action(action),
            Mode::Table => self.table_action(action),
            Mode::Command => self.command_action(action),
        }
    }

    /// Copies `path:line` of the object in view.
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

    /// Opens the object in view in `$EDITOR`.
    fn edit_selected(&mut self) {
        if let Some(obj) = self
            .current_object()
            .and_then(|i| self.data.inventory.objects.get(i as usize))
        {
            let (path, line) = (obj.source.path.clone(), obj.source.line);
            self.edit(path, line);
        }
    }

    /// Asks for `$EDITOR` at `path:line`, unless the text came from standard input, which
    /// has no file to edit.
    pub(super) fn edit(&mut self, path: Arc<Path>, line: u32) {
        if crate::model::load::is_stdin(&path) {
            self.status = Some("objects read from standard input have no file to edit".into());
        } else {
            self.push(Effect::Edit { path, line });
        }
    }

    fn push(&mut self, effect: Effect) {
        self.effects.push(effect);
    }
}

#[cfg(test)]
mod edit_tests;
#[cfg(test)]
mod tests;
