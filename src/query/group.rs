//! The `| by …` clause: how matching objects are grouped.

use super::QueryError;
use crate::model::Object;

/// What to group rows by.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GroupBy {
    Namespace,
    Kind,
    /// The first owner reference (`Kind/name`).
    Owner,
    /// The kustomization (chart) folder a rendered object was built from.
    Target,
    /// The objects of a kind it references by name (`| by serviceaccount`, see `refs.rs`).
    Uses {
        group: &'static str,
        kind: &'static str,
    },
    /// A label key's value.
    Label(String),
}

/// Splits off a `| by KEY` clause: returns where the filter part ends and the grouping.
pub fn split_group(text: &str) -> Result<(usize, Option<GroupBy>), QueryError> {
    let Some(bar) = text.find('|') else {
        return Ok((text.len(), None));
    };
    let clause = &text[bar + 1..];
    let trimmed = clause.trim_start();
    let at = bar + 1 + clause.len() - trimmed.len();
    let Some(rest) = trimmed.strip_prefix("by") else {
        return Err(QueryError {
            message: "expected `by KEY` after `|`".into(),
            offset: at,
        });
    };
    let key = rest.trim();
    if key.is_empty() || !rest.starts_with(char::is_whitespace) {
        return Err(QueryError {
            message: "expected a label key, `namespace`, `kind`, `owner` or `target` after `by`"
                .into(),
            offset: at + 2 + (rest.len() - rest.trim_start().len()),
        });
    }
    let group = match key {
        "namespace" => GroupBy::Namespace,
        "kind" => GroupBy::Kind,
        "owner" => GroupBy::Owner,
        "target" => GroupBy::Target,
        k => match super::refs::groupable(k) {
            Some((group, kind)) => GroupBy::Uses { group, kind },
            None => GroupBy::Label(k.to_string()),
        },
    };
    Ok((bar, Some(group)))
}

/// The group an object falls in.
pub fn group_key(group: &GroupBy, obj: &Object) -> String {
    match group {
        GroupBy::Namespace if obj.id.namespace.is_empty() => "(cluster)".into(),
        GroupBy::Namespace => obj.id.namespace.to_string(),
        GroupBy::Kind => obj.id.kind.to_string(),
        GroupBy::Owner => obj
            .owner_refs
            .first()
            .map(|o| format!("{}/{}", o.kind, o.name))
            .unwrap_or_else(|| "(no owner)".into()),
        GroupBy::Target => obj
            .source
            .target
            .as_ref()
            .map_or_else(|| "(not rendered)".into(), |t| t.display().to_string()),
        GroupBy::Uses { group, kind } => super::refs::group_key(group, kind, obj),
        GroupBy::Label(k) => obj
            .labels
            .get(k.as_str())
            .map(|v| format!("{k}={v}"))
            .unwrap_or_else(|| format!("({k} not set)")),
    }
}
