//! kubectl-compatible printing: table layout, ages, labels, `-o yaml`, and the JSONPath subset
//! `--sort-by` accepts. Pure functions over values; no I/O. The columns of each kind come
//! from the kind table (`crate::kinds`), which uses the ages here.

pub mod age;
pub mod jsonpath;
pub mod table;
pub mod yaml;

pub use age::{human_duration, translate_timestamp_since};
pub use table::Table;

use crate::value::StrMap;

/// `labels.FormatLabels`: `k=v,k2=v2` sorted by key, `<none>` when there are no labels
/// (`kubectl get --show-labels`).
pub fn format_labels(labels: &StrMap) -> String {
    if labels.is_empty() {
        return "<none>".to_owned();
    }
    labels
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(",")
}
