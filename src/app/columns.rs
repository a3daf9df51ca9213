//! Table columns and the text of each cell, derived from an object (no drawing here).

use crate::model::Object;
use crate::print::human_duration;

/// A table column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Column {
    Namespace,
    Kind,
    Name,
    /// A label key's value (`-L key`).
    Label(String),
    /// Every label, `k=v,k=v` (`--show-labels`).
    Labels,
    Status,
    Age,
    Source,
}

/// Titles of the columns that are not labels.
const FIXED_TITLES: [&str; 7] = [
    "NAMESPACE",
    "KIND",
    "NAME",
    "LABELS",
    "STATUS",
    "AGE",
    "SOURCE",
];

impl Column {
    /// Header text; a label column shows the last `/` part of its key, upper-cased (as `-L`),
    /// or the whole key when that part would read like a fixed column (`app.kubernetes.io/name`
    /// is `APP.KUBERNETES.IO/NAME`, not a second `NAME`).
    pub fn title(&self) -> String {
        match self {
            Column::Namespace => "NAMESPACE".into(),
            Column::Kind => "KIND".into(),
            Column::Name => "NAME".into(),
            Column::Label(k) => {
                let short = k.rsplit('/').next().unwrap_or(k).to_uppercase();
                if FIXED_TITLES.contains(&short.as_str()) {
                    k.to_uppercase()
                } else {
                    short
                }
            }
            Column::Labels => "LABELS".into(),
            Column::Status => "STATUS".into(),
            Column::Age => "AGE".into(),
            Column::Source => "SOURCE".into(),
        }
    }

    /// The cell text for `obj` at time `now` (Unix seconds).
    pub fn cell(&self, obj: &Object, now: i64) -> String {
        match self {
            Column::Namespace => obj.id.namespace.to_string(),
            Column::Kind => obj.id.kind.to_string(),
            Column::Name => obj.id.name.to_string(),
            Column::Label(k) => obj
                .labels
                .get(k.as_str())
                .map(|v| v.to_string())
                .unwrap_or_default(),
            Column::Labels => labels_text(obj),
            Column::Status => status_text(obj, now),
            Column::Age => obj
                .creation_timestamp
                .as_deref()
                .and_then(unix_seconds)
                .map(|t| human_duration(now - t))
                .unwrap_or_else(|| "<unknown>".into()),
            Column::Source => obj.source.to_string(),
        }
    }
}

/// `k=v,k=v` as `kubectl get --show-labels` prints it (`<none>` when empty).
pub fn labels_text(obj: &Object) -> String {
    if obj.labels.is_empty() {
        return "<none>".into();
    }
    let parts: Vec<String> = obj.labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
    parts.join(",")
}

/// `Terminating 3h · 2 finalizers`, else the phase (`status.phase`) or readiness where known.
pub fn status_text(obj: &Object, now: i64) -> String {
    let mut parts = Vec::new();
    if let Some(ts) = obj.deletion_timestamp.as_deref() {
        match unix_seconds(ts) {
            Some(t) => parts.push(format!("Terminating {}", human_duration(now - t))),
            None => parts.push("Terminating".to_string()),
        }
    } else if let Some(phase) = obj.get_str("status.phase") {
        parts.push(phase.to_string());
    } else if let Some(ready) = ready_text(obj) {
        parts.push(ready);
    }
    match obj.finalizers.len() {
        0 => {}
        1 => parts.push("1 finalizer".into()),
        n => parts.push(format!("{n} finalizers")),
    }
    parts.join(" · ")
}

/// `ready/desired` for workloads that report it.
fn ready_text(obj: &Object) -> Option<String> {
    let desired = obj.get_path("spec.replicas")?.as_u64()?;
    let ready = obj
        .get_path("status.readyReplicas")
        .and_then(|v| v.as_u64())
        .unwrap_or(0);
    obj.get_path("status")?;
    Some(format!("{ready}/{desired} ready"))
}

/// Unix seconds of an RFC 3339 timestamp.
pub fn unix_seconds(ts: &str) -> Option<i64> {
    chrono::DateTime::parse_from_rfc3339(ts)
        .ok()
        .map(|t| t.timestamp())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_column_title_is_last_segment_unless_it_reads_like_a_fixed_column() {
        assert_eq!(
            Column::Label("app.kubernetes.io/part-of".into()).title(),
            "PART-OF"
        );
        assert_eq!(
            Column::Label("app.kubernetes.io/name".into()).title(),
            "APP.KUBERNETES.IO/NAME"
        );
        assert_eq!(Column::Label("tier".into()).title(), "TIER");
    }
}
