//! Every user intent and every message the event loop feeds to [`super::App::update`].

use serde::Deserialize;

use crate::dataset::{Change, Dataset, Event, Graph, LabelIndex};
use crate::model::Inventory;

/// One thing that can change the app's state.
///
/// Unit variants are user intents bound in `assets/keymap.toml` (snake_case names); the
/// others carry data from the event loop and cannot be bound.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    Quit,
    /// Stop the process as a shell's job (Ctrl-Z), the terminal restored; `fg` resumes.
    Suspend,
    Up,
    Down,
    PageUp,
    PageDown,
    Top,
    Bottom,
    /// Focus the selector bar.
    FocusBar,
    /// Clear the selector bar and leave it.
    ClearBar,
    /// Return focus from the bar to the table (keeps the filter).
    LeaveBar,
    Backspace,
    /// Tab: complete a label key, then its values.
    Complete,
    /// Shift-Tab: the previous candidate.
    CompletePrev,
    /// Line editing in the bar and the command line.
    CursorLeft,
    CursorRight,
    WordLeft,
    WordRight,
    LineStart,
    LineEnd,
    /// Delete the character under the cursor.
    DeleteChar,
    /// Delete the word before the cursor (Ctrl-W).
    DeleteWord,
    /// Delete from the start of the line to the cursor (Ctrl-U).
    DeleteToStart,
    /// Delete from the cursor to the end of the line (Ctrl-K).
    DeleteToEnd,
    /// `:` — the command line (`:po`, `:deploy shop`, `:q`).
    Command,
    /// Run the command line.
    RunCommand,
    HistoryPrev,
    HistoryNext,
    SortNext,
    SortReverse,
    PickNamespace,
    PickKind,
    PickColumns,
    /// Show or hide the LABELS column.
    ToggleLabels,
    /// Switch between the rendered view (kustomize builds, Helm charts) and the files.
    ToggleRender,
    /// Enter: open the row (a group header collapses/expands, an object opens its owner tree).
    Open,
    OpenDetail,
    /// Owner tree of the selected object.
    OpenTree,
    /// Collapse or expand the selected tree node.
    ToggleNode,
    /// Show or hide selector edges in the tree.
    ToggleSelectors,
    /// Show or hide reference edges (what uses which ConfigMap, Secret …) in the tree.
    ToggleRefs,
    /// Collapse or expand every group.
    ToggleAllGroups,
    Problems,
    Help,
    /// Close the current view or overlay.
    Back,
    /// Copy `path:line` of the selected object (OSC 52).
    CopyPath,
    /// Open `$EDITOR +line path` on the selected object or problem.
    Edit,
    /// Scroll the table one column left / right (columns up to NAME stay).
    ScrollLeft,
    ScrollRight,
    /// Mark or unmark the selected row (`Y` then copies every mark, `e` opens the first).
    ToggleMark,
    ClearMarks,
    /// Detail view: the object's text as written.
    ShowYaml,
    /// Detail view: the describe-like summary.
    ShowDescribe,
    /// Detail view: start typing a search.
    Search,
    SearchNext,
    SearchPrev,
    /// Detail view: wrap long lines or cut them.
    ToggleWrap,
    /// Detail view: show a Secret's `data` values decoded from base64 (escaped).
    ToggleDecode,
    /// Pickers: start typing a filter.
    FilterPicker,
    /// Problems view: cycle the severity shown (all, errors, warnings, notes).
    CycleSeverity,
    /// Problems view: show only the selected problem's code, or every code again.
    FilterCode,
    #[serde(skip)]
    Insert(char),
    /// Text pasted into the terminal (bracketed paste).
    #[serde(skip)]
    Paste(String),
    #[serde(skip)]
    Resize(u16, u16),
    #[serde(skip)]
    ScrollUp,
    #[serde(skip)]
    ScrollDown,
    #[serde(skip)]
    Click {
        column: u16,
        row: u16,
    },
    /// Unix seconds, for AGE and "Terminating since".
    #[serde(skip)]
    Tick(i64),
    /// The data layer's events ([`Event`], one variant each; see `From<Event>`).
    #[serde(skip)]
    LoadProgress {
        files_done: usize,
        files_total: usize,
    },
    #[serde(skip)]
    Loaded(Box<Dataset>),
    /// The label index of an `indexing` [`Dataset`] (same objects, same order).
    #[serde(skip)]
    Indexed(Box<LabelIndex>),
    /// The graph of an unlinked [`Dataset`] (same objects, same order).
    #[serde(skip)]
    Linked(Box<Graph>),
    /// More of the input while loading goes on, appended to what the table shows (the
    /// table fills progressively, nothing is copied twice); the final `Loaded` replaces it
    /// all.
    #[serde(skip)]
    Partial(Box<Inventory>),
    /// A watched batch of file changes, applied in place.
    #[serde(skip)]
    Changed(Box<Change>),
    /// Text of the object shown in the detail view.
    #[serde(skip)]
    DetailSource {
        object: u32,
        text: String,
    },
    /// A status-line message from the event loop (editor failed, history not saved…).
    #[serde(skip)]
    Notice(String),
    /// Builds finished and planned while loading.
    #[serde(skip)]
    RenderProgress {
        done: usize,
        total: usize,
    },
}

impl From<Event> for Action {
    fn from(event: Event) -> Action {
        match event {
            Event::Progress {
                files_done,
                files_total,
            } => Action::LoadProgress {
                files_done,
                files_total,
            },
            Event::Partial(more) => Action::Partial(more),
            Event::Loaded(dataset) => Action::Loaded(dataset),
            Event::Indexed(index) => Action::Indexed(index),
            Event::Linked(graph) => Action::Linked(graph),
            Event::Changed(change) => Action::Changed(change),
            Event::Notice(msg) => Action::Notice(msg),
            Event::Rendering { done, total } => Action::RenderProgress { done, total },
        }
    }
}

/// The actions of one burst (everything queued when the UI gets to them) worth applying,
/// in order: partial batches that a whole table later in the same burst replaces are left
/// out. Nothing was drawn between them and `Loaded`, which replaces what they appended, so
/// applying them (label index, table rows) only delayed the full table.
pub fn superseded_left_out(burst: Vec<Action>) -> impl Iterator<Item = Action> {
    let last_loaded = burst.iter().rposition(|a| matches!(a, Action::Loaded(_)));
    burst
        .into_iter()
        .enumerate()
        .filter(move |(i, a)| {
            !(matches!(a, Action::Partial(_)) && last_loaded.is_some_and(|l| *i < l))
        })
        .map(|(_, a)| a)
}

impl Action {
    /// One-line description for the help overlay.
    pub fn describe(&self) -> &'static str {
        use Action::*;
        match self {
            Quit => "quit",
            Suspend => "suspend (shell job control; fg resumes)",
            Up => "previous row",
            Down => "next row",
            PageUp => "page up",
            PageDown => "page down",
            Top => "first row",
            Bottom => "last row",
            FocusBar => "focus the selector bar",
            ClearBar => "clear the selector bar",
            LeaveBar => "back to the table, keep the filter",
            Backspace => "delete a character",
            Complete => "complete (again: next candidate)",
            CompletePrev => "previous candidate",
            CursorLeft => "cursor left",
            CursorRight => "cursor right",
            WordLeft => "word left",
            WordRight => "word right",
            LineStart => "start of line",
            LineEnd => "end of line",
            DeleteChar => "delete the character under the cursor",
            DeleteWord => "delete the word before the cursor",
            DeleteToStart => "delete to the start of the line",
            DeleteToEnd => "delete to the end of the line",
            Command => "command: :po :deploy shop :ns :crd :all :q",
            RunCommand => "run the command",
            HistoryPrev => "previous selector from history",
            HistoryNext => "next selector from history",
            SortNext => "sort by the next column",
            SortReverse => "reverse the sort order",
            PickNamespace => "pick a namespace",
            PickKind => "pick a kind",
            PickColumns => "pick label columns",
            ToggleLabels => "show/hide the LABELS column",
            ToggleRender => "rendered view (kustomize, Helm) / files view",
            Open => "open: group toggles, object shows its tree / detail",
            OpenDetail => "describe: labels, finalizers, owners, selectors",
            OpenTree => "owner tree of the object",
            ToggleNode => "collapse/expand the node",
            ToggleSelectors => "show/hide selector edges",
            ToggleRefs => "show/hide reference edges (ConfigMaps, Secrets, SA …)",
            ToggleAllGroups => "collapse/expand all groups",
            Problems => "load problems",
            Help => "this help",
            Back => "close view",
            CopyPath => "copy path:line (OSC 52; every marked object's, if any)",
            Edit => "open $EDITOR at the line (the first marked, if any)",
            ScrollLeft => "scroll the table one column left",
            ScrollRight => "scroll the table one column right",
            ToggleMark => "mark/unmark the row",
            ClearMarks => "clear every mark",
            ShowYaml => "the object as written (JSON re-indented)",
            ShowDescribe => "describe: labels, finalizers, owners, selectors",
            Search => "search the text (/), then n / N",
            SearchNext => "next match",
            SearchPrev => "previous match",
            ToggleWrap => "wrap long lines",
            ToggleDecode => "decode a Secret's data (escaped)",
            FilterPicker => "type to filter the list",
            CycleSeverity => "show all / errors / warnings / notes",
            FilterCode => "only the selected problem's code (again: all)",
            _ => "",
        }
    }
}
