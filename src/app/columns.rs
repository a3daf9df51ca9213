//! Table columns and the text of each cell, derived from an object (no drawing here).

use crate::model::Object;
use crate::print::{format_labels, human_duration};

pub use crate::print::age::unix_seconds;

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
    /// Column `index` of the kind's UI columns (after NAME; see
    /// [`kind_headers`]), titled as kubectl titles it.
    Printer {
        index: usize,
        title: String,
    },
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
            Column::Printer { title, .. } => title.clone(),
        }
    }

    /// The whole label key, upper-cased: the title of a label column whose short title is
    /// taken (by a fixed column or another label column).
    fn long_title(&self) -> Option<String> {
        match self {
            Column::Label(k) => Some(k.to_uppercase()),
            _ => None,
        }
    }

    /// The cell text for `obj` at time `now` (Unix seconds).
    pub fn cell(&self, obj: &Object, now: i64) -> String {
        match self {
            Column::Namespace => obj.id.namespace.to_string(),
            Column::Kind => obj.id.kind.to_string(),
            Column::Name => obj.id.name.to_string(),
            Column::Label(k) => obj
                .labels()
                .get(k.as_str())
                .map(|v| v.to_string())
                .unwrap_or_default(),
            Column::Labels => format_labels(obj.labels()),
            Column::Status => status_text(obj, now),
            Column::Age => obj
                .creation_timestamp()
                .and_then(unix_seconds)
                .map(|t| human_duration(now - t))
                .unwrap_or_else(|| "<unknown>".into()),
            Column::Source => obj.source.to_string(),
            Column::Printer { index, .. } => kind_cells(obj, now)
                .into_iter()
                .nth(*index)
                .unwrap_or_default(),
        }
    }
}

/// The titles of `columns` as the table shows them: a label column whose short title
/// another column also has (`app.kubernetes.io/instance` and `argocd.argoproj.io/instance`,
/// or a label key `status` beside STATUS) shows its whole key, and `LABEL:` before it when
/// even that is taken (a label key `name` beside NAME).
pub fn titles(columns: &[Column]) -> Vec<String> {
    let short: Vec<String> = columns.iter().map(Column::title).collect();
    let taken = |t: &str, at: usize| (0..short.len()).any(|j| j != at && short[j] == t);
    let fixed: Vec<&String> = columns
        .iter()
        .zip(&short)
        .filter(|(c, _)| c.long_title().is_none())
        .map(|(_, t)| t)
        .collect();
    columns
        .iter()
        .zip(&short)
        .enumerate()
        .map(|(i, (c, t))| match c.long_title() {
            Some(long) if fixed.contains(&&long) => format!("LABEL:{long}"),
            Some(long) if taken(t, i) => long,
            _ => t.clone(),
        })
        .collect()
}

/// The kind's `kubectl get` column titles after NAME, plus a Pod's IP and NODE from the
/// `-o wide` ones (as k9s shows pods; NOMINATED NODE and READINESS GATES are `<none>` in
/// almost every manifest): the one entry point the UI takes per-kind columns from (the
/// same code `get` prints with).
pub fn kind_headers(group: &str, kind: &str) -> Vec<&'static str> {
    let normal = crate::kinds::headers(group, kind, false).len();
    let mut headers = crate::kinds::headers(group, kind, true);
    headers.truncate(normal + wide_kept(group, kind));
    headers
}

/// The cells of [`kind_headers`] for one object.
pub fn kind_cells(obj: &Object, now: i64) -> Vec<String> {
    let now = chrono::DateTime::from_timestamp(now, 0).unwrap_or_default();
    let kept = wide_kept(&obj.id.group, &obj.id.kind);
    let mut cells = crate::kinds::cells(obj.as_view(), kept > 0, now);
    cells.truncate(crate::kinds::headers(&obj.id.group, &obj.id.kind, false).len() + kept);
    cells
}

/// How many of the kind's `-o wide` columns the UI shows: IP and NODE for a Pod.
fn wide_kept(group: &str, kind: &str) -> usize {
    if group.is_empty() && kind == "Pod" {
        2
    } else {
        0
    }
}

/// The kind table's status text (as `get` and `tree` print it), then how long the object
/// has been Terminating and its finalizers: `0/1 · Terminating 3h · 2 finalizers`. When the
/// status already reads `Terminating` (a Pod), the age joins it: `Terminating 3h`.
pub fn status_text(obj: &Object, now: i64) -> String {
    let status = crate::kinds::status(obj.as_view());
    let mut parts = Vec::new();
    let terminating = obj.deletion_timestamp().map(|ts| match unix_seconds(ts) {
        Some(t) => format!("Terminating {}", human_duration(now - t)),
        None => "Terminating".to_string(),
    });
    match terminating {
        Some(t) if status == "Terminating" => parts.push(t),
        t => parts.extend([status].into_iter().filter(|s| !s.is_empty()).chain(t)),
    }
    match obj.finalizers.len() {
        0 => {}
        1 => parts.push("1 finalizer".into()),
        n => parts.push(format!("{n} finalizers")),
    }
    parts.join(" · ")
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

    /// `get`'s columns, a Pod's IP and NODE from the wide ones, and cells to match.
    #[test]
    fn kind_columns_are_the_normal_ones_plus_ip_and_node_for_pods() {
        assert_eq!(
            kind_headers("", "Pod"),
            ["READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE"]
        );
        assert_eq!(
            kind_headers("apps", "Deployment"),
            crate::kinds::headers("apps", "Deployment", false)
        );
        let text = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n\
                    spec: {nodeName: n1}\nstatus: {podIP: 10.0.0.1}\n";
        let path = std::sync::Arc::from(std::path::Path::new("p.yaml"));
        let pod = &crate::model::load::parse_text(&path, text).objects[0];
        let cells = kind_cells(pod, 0);
        assert_eq!(cells.len(), 6, "{cells:?}");
        assert_eq!(cells[4..], ["10.0.0.1", "n1"]);
    }

    #[test]
    fn label_columns_with_the_same_short_title_show_their_whole_keys() {
        let cols = [
            Column::Name,
            Column::Label("app.kubernetes.io/instance".into()),
            Column::Label("argocd.argoproj.io/instance".into()),
            Column::Label("app.kubernetes.io/part-of".into()),
        ];
        assert_eq!(
            titles(&cols),
            [
                "NAME",
                "APP.KUBERNETES.IO/INSTANCE",
                "ARGOCD.ARGOPROJ.IO/INSTANCE",
                "PART-OF"
            ]
        );
        let cols = [
            Column::Name,
            Column::Label("name".into()),
            Column::Label("status".into()),
            Column::Status,
        ];
        assert_eq!(
            titles(&cols),
            ["NAME", "LABEL:NAME", "LABEL:STATUS", "STATUS"]
        );
    }
}
