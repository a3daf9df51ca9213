//! The `| by …` clause: how matching objects are grouped.

use std::collections::BTreeMap;
use std::path::Path;

use rustc_hash::FxHashMap;

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
            .owner_refs()
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
            .labels()
            .get(k.as_str())
            .map(|v| format!("{k}={v}"))
            .unwrap_or_else(|| format!("({k} not set)")),
    }
}

/// What decides an object's group, borrowed from it: equal tokens give equal keys.
#[derive(PartialEq, Eq, Hash)]
enum Token<'a> {
    Text(&'a str),
    Missing,
    Path(Option<&'a Path>),
    /// Keys made from several fields (owner, references): the key itself.
    Key(String),
}

fn token<'a>(group: &GroupBy, obj: &'a Object) -> Token<'a> {
    match group {
        GroupBy::Namespace => Token::Text(&obj.id.namespace),
        GroupBy::Kind => Token::Text(&obj.id.kind),
        GroupBy::Label(k) => obj
            .labels()
            .get(k.as_str())
            .map_or(Token::Missing, Token::Text),
        GroupBy::Target => Token::Path(obj.source.target.as_deref()),
        GroupBy::Owner | GroupBy::Uses { .. } => Token::Key(group_key(group, obj)),
    }
}

/// `members` (object indices, in the order the rows show them) by [`group_key`], each
/// group in that order. A key is made once per distinct namespace, kind, label value or
/// target rather than once per object: grouping runs on every keystroke.
pub fn group_members(
    group: &GroupBy,
    objects: &[Object],
    members: Vec<u32>,
) -> BTreeMap<String, Vec<u32>> {
    let mut slots: Vec<(String, Vec<u32>)> = Vec::new();
    let mut by_token: FxHashMap<Token<'_>, usize> = FxHashMap::default();
    let mut by_key: FxHashMap<String, usize> = FxHashMap::default();
    for i in members {
        let Some(obj) = objects.get(i as usize) else {
            continue;
        };
        let token = token(group, obj);
        let slot = match by_token.get(&token) {
            Some(&slot) => slot,
            None => {
                let key = match &token {
                    Token::Key(key) => key.clone(),
                    _ => group_key(group, obj),
                };
                // Two tokens may still make one key (they share its group).
                let slot = *by_key.entry(key.clone()).or_insert_with(|| {
                    slots.push((key, Vec::new()));
                    slots.len() - 1
                });
                by_token.insert(token, slot);
                slot
            }
        };
        slots[slot].1.push(i);
    }
    slots.into_iter().collect()
}
