//! The namespace / kind / label-column pickers: a list with counts.

/// What a picker chooses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PickerKind {
    Namespace,
    Kind,
    /// Toggles label keys as table columns.
    Columns,
}

impl PickerKind {
    pub fn title(self) -> &'static str {
        match self {
            PickerKind::Namespace => "Namespace",
            PickerKind::Kind => "Kind",
            PickerKind::Columns => "Label columns",
        }
    }
}

/// An open picker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Picker {
    pub kind: PickerKind,
    /// `(value, object count, checked)`; for namespace/kind the first item is "all".
    pub items: Vec<(String, u64, bool)>,
    pub selected: usize,
}

/// Label shown for "no filter" in the namespace and kind pickers.
pub const ALL: &str = "(all)";
