//! Findings: problems kubesift sees in the loaded objects (not in the files' syntax).

use std::path::Path;
use std::sync::Arc;

use crate::model::{cmp_paths, Object, Severity};

/// One problem found in the objects, located at the object's source line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// Index of the object in `Inventory.objects`, if the finding is about one object.
    pub object: Option<usize>,
    pub path: Arc<Path>,
    /// 1-based line of the object's document.
    pub line: usize,
    pub severity: Severity,
    /// Stable machine-readable code (`owner-dangling`, `name-invalid`, …).
    pub code: &'static str,
    pub message: Arc<str>,
}

impl Finding {
    /// A finding about object `index` (`obj` is `inv.objects[index]`).
    pub fn about(
        index: usize,
        obj: &Object,
        severity: Severity,
        code: &'static str,
        message: impl Into<Arc<str>>,
    ) -> Finding {
        Finding {
            object: Some(index),
            path: Arc::clone(&obj.source.path),
            line: obj.source.line as usize,
            severity,
            code,
            message: message.into(),
        }
    }
}

/// Sorts findings by path, line and object, keeping discovery order otherwise.
pub fn sort(findings: &mut [Finding]) {
    findings.sort_by(|a, b| {
        cmp_paths(&a.path, &b.path).then((a.line, a.object).cmp(&(b.line, b.object)))
    });
}

/// Renders a list as Go's `%#v` does for `[]string` (`[]string{"a", "b"}`), which upstream
/// validation messages embed.
pub fn go_string_slice<S: AsRef<str>>(items: &[S]) -> String {
    let inner: Vec<String> = items.iter().map(|s| format!("{:?}", s.as_ref())).collect();
    format!("[]string{{{}}}", inner.join(", "))
}

/// Joins up to `max` items and says how many more there are.
pub fn list_some(items: &[String], max: usize) -> String {
    let mut out = items
        .iter()
        .take(max)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > max {
        out.push_str(&format!(" and {} more", items.len() - max));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_slice_format() {
        assert_eq!(
            go_string_slice(&["orphan", "foregroundDeletion"]),
            r#"[]string{"orphan", "foregroundDeletion"}"#
        );
        assert_eq!(go_string_slice::<&str>(&[]), "[]string{}");
    }

    #[test]
    fn list_truncates() {
        let items: Vec<String> = (0..5).map(|i| i.to_string()).collect();
        assert_eq!(list_some(&items, 3), "0, 1, 2 and 2 more");
        assert_eq!(list_some(&items[..2], 3), "0, 1");
    }
}
