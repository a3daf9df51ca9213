//! kubectl-compatible printing: table layout, ages, labels, `-o yaml`, and the JSONPath subset
//! `--sort-by` accepts. Pure functions over values; no I/O. The columns of each kind come
//! from the kind table (`crate::kinds`), which uses the ages here.

pub mod age;
pub mod jsonpath;
pub mod table;
pub mod yaml;

pub use age::{human_duration, translate_timestamp_since};
pub use table::Table;

use crate::value::StrMapRef;

/// `1 error`, `2 errors`: a count with its noun in the right number (regular plurals).
pub fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// `labels.FormatLabels`: `k=v,k2=v2` sorted by key, `<none>` when there are no labels
/// (`kubectl get --show-labels`).
pub fn format_labels(labels: StrMapRef<'_>) -> String {
    if labels.is_empty() {
        return "<none>".to_owned();
    }
    labels
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts_agree_in_number() {
        assert_eq!(super::count(1, "load error"), "1 load error");
        assert_eq!(super::count(0, "warning"), "0 warnings");
        assert_eq!(super::count(2, "file"), "2 files");
    }
}
