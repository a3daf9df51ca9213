//! Table columns and the text of each cell, derived from an object (no drawing here).

use crate::model::Object;

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

impl Column {
    /// Header text; a label column shows the last `/` part of its key, upper-cased (as `-L`).
    pub fn title(&self) -> String {
        match self {
            Column::Namespace => "NAMESPACE".into(),
            Column::Kind => "KIND".into(),
            Column::Name => "NAME".into(),
            Column::Label(k) => k.rsplit('/').next().unwrap_or(k).to_uppercase(),
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

/// kubectl-style short duration: `45s`, `12m`, `5h`, `3d`, `2y`.
pub fn human_duration(secs: i64) -> String {
    let s = secs.max(0);
    match s {
        0..=119 => format!("{s}s"),
        120..=7199 => format!("{}m", s / 60),
        7200..=172_799 => format!("{}h", s / 3600),
        172_800..=63_071_999 => format!("{}d", s / 86_400),
        _ => format!("{}y", s / 31_536_000),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_like_kubectl() {
        assert_eq!(human_duration(5), "5s");
        assert_eq!(human_duration(600), "10m");
        assert_eq!(human_duration(3 * 3600), "3h");
        assert_eq!(human_duration(5 * 86_400), "5d");
        assert_eq!(human_duration(-3), "0s");
    }

    #[test]
    fn label_column_title_is_last_segment() {
        assert_eq!(
            Column::Label("app.kubernetes.io/name".into()).title(),
            "NAME"
        );
        assert_eq!(Column::Label("tier".into()).title(), "TIER");
    }
}
