//! Every user intent and every message the event loop feeds to [`super::App::update`].

use serde::Deserialize;

use crate::dataset::{Change, Dataset, Event, Graph};
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
    HistoryPrev,
    HistoryNext,
    SortNext,
    SortReverse,
    PickNamespace,
    PickKind,
    PickColumns,
    /// Show or hide the LABELS column.
    ToggleLabels,
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
    #[serde(skip)]
    Insert(char),
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
            Event::Linked(graph) => Action::Linked(graph),
            Event::Changed(change) => Action::Changed(change),
            Event::Notice(msg) => Action::Notice(msg),
        }
    }
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
            Complete => "complete label key / value",
            HistoryPrev => "previous selector from history",
            HistoryNext => "next selector from history",
            SortNext => "sort by the next column",
            SortReverse => "reverse the sort order",
            PickNamespace => "pick a namespace",
            PickKind => "pick a kind",
            PickColumns => "pick label columns",
            ToggleLabels => "show/hide the LABELS column",
            Open => "open: group toggles, object shows its tree / detail",
            OpenDetail => "object detail (YAML + summary)",
            OpenTree => "owner tree of the object",
            ToggleNode => "collapse/expand the node",
            ToggleSelectors => "show/hide selector edges",
            ToggleRefs => "show/hide reference edges (ConfigMaps, Secrets, SA …)",
            ToggleAllGroups => "collapse/expand all groups",
            Problems => "load problems",
            Help => "this help",
            Back => "close view",
            CopyPath => "copy path:line (OSC 52)",
            Edit => "open $EDITOR at the line",
            _ => "",
        }
    }
}
