//! Field terms: `metadata.name=x` with the API server's per-kind field selectors
//! (`fields.ParseSelector`, [`crate::model::fields`]), and `.any.path=x` on any field, the
//! path in kubectl's JSONPath notation (`.spec.containers[0].image`, `[*]`, `['a.b/c']`).

use super::terms::key_end;
use super::QueryError;
use crate::model::fields::{check_field, field_value};
use crate::model::Object;
use crate::print::jsonpath::{self, Step};
use crate::selector::{parse_fields, FieldOperator, FieldRequirement};
use crate::value::{RawKind, RawRef};

const FIELD_ROOTS: [&str; 4] = ["metadata.", "spec.", "status.", "involvedObject."];

/// Whether a (left-trimmed) term is a field requirement rather than a label one.
///
/// A term is a field term when its key starts with `.` (any JSON path, a kubesift
/// extension) or with one of the API server's field roots (`metadata.`, `spec.`, `status.`,
/// `involvedObject.`); top-level fields such as a Secret's `type` are reached as `.type`.
pub fn is_field_term(term: &str) -> bool {
    let key = &term[..key_end(term)];
    key.starts_with('.') || FIELD_ROOTS.iter().any(|r| key.starts_with(r))
}

/// One field term, parsed with upstream's field-selector grammar (`=`, `==`, `!=`, `\,`
/// escapes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldTerm {
    requirement: FieldRequirement,
    /// `.path`: compare the raw JSON values at that path on every kind.
    path: Option<Vec<Step>>,
}

impl FieldTerm {
    /// Parses one term; `offset` is its position in the bar text, for the caret.
    pub fn parse(term: &str, offset: usize) -> Result<FieldTerm, QueryError> {
        let term = term.trim_end();
        if term.starts_with('.') {
            return parse_path_term(term, offset);
        }
        let selector = parse_fields(term).map_err(|e| QueryError {
            message: e.message,
            offset: offset + e.offset.min(term.len()),
        })?;
        match selector.requirements() {
            [one] => Ok(FieldTerm {
                requirement: one.clone(),
                path: None,
            }),
            _ => Err(QueryError {
                message: format!("invalid selector: '{term}'; can't understand '{term}'"),
                offset,
            }),
        }
    }

    /// Whether `obj` satisfies the term. As with `kubectl get --field-selector`, a field
    /// its kind does not support selects nothing of that kind. A `.path` term compares the
    /// values at that path on any kind (absent = `""`): `=` holds when one of them equals
    /// the value (`[*]` finds several), `!=` when none does.
    pub fn matches(&self, obj: &Object) -> bool {
        if let Some(steps) = &self.path {
            let found = jsonpath::lookup_all(obj.raw.view(), steps);
            let mut values = found.into_iter().map(scalar);
            let equal = |v: String| v == self.requirement.value;
            let any_equal = match values.next() {
                None => equal(String::new()),
                Some(first) => equal(first) || values.any(equal),
            };
            return match self.requirement.operator {
                FieldOperator::Equals => any_equal,
                FieldOperator::NotEquals => !any_equal,
            };
        }
        let field = self.requirement.field.as_str();
        if check_field(&obj.id.group, obj.kind(), field).is_err() {
            return false;
        }
        self.requirement
            .matches(&|f: &str| Some(field_value(obj, f)))
    }
}

/// `.path op value`: the path in kubectl's JSONPath notation, then `=`, `==` or `!=` and a
/// value with field-selector escapes.
fn parse_path_term(term: &str, offset: usize) -> Result<FieldTerm, QueryError> {
    let end = path_end(term);
    let (path, rest) = term.split_at(end);
    let supported = |what: String| QueryError {
        message: format!(
            "{what}: a .path term is a JSONPath ({}) then =, == or != and a value",
            jsonpath::PATH_FORMS
        ),
        offset: offset + end,
    };
    let steps = jsonpath::parse_path(path).map_err(|e| QueryError {
        offset,
        ..supported(format!("invalid .path term '{term}' ({e})"))
    })?;
    if !(rest.starts_with('=') || rest.starts_with("!=")) {
        return Err(supported(format!("invalid .path term '{term}'")));
    }
    // The operator and value as upstream's grammar reads them, after a stand-in key.
    let selector = parse_fields(&format!("x{rest}")).map_err(|e| QueryError {
        message: e.message,
        offset: offset + end + e.offset.saturating_sub(1).min(rest.len()),
    })?;
    match selector.requirements() {
        [one] => Ok(FieldTerm {
            requirement: FieldRequirement {
                field: path.to_owned(),
                ..one.clone()
            },
            path: Some(steps),
        }),
        _ => Err(supported(format!("invalid .path term '{term}'"))),
    }
}

/// Where the path of a `.path` term ends: at an operator, a space or a parenthesis outside
/// `[…]` (a quoted key may hold any of them).
fn path_end(term: &str) -> usize {
    let mut in_bracket = false;
    let mut quote: Option<char> = None;
    for (i, c) in term.char_indices() {
        match (quote, in_bracket, c) {
            (Some(q), _, c) if c == q => quote = None,
            (Some(_), _, _) => {}
            (None, true, '\'' | '"') => quote = Some(c),
            (None, true, ']') => in_bracket = false,
            (None, false, '[') => in_bracket = true,
            (None, false, '=' | '!' | ' ' | '\t' | '(' | '<' | '>') => return i,
            _ => {}
        }
    }
    term.len()
}

fn scalar(v: RawRef<'_>) -> String {
    match v.kind() {
        RawKind::String(s) => s.to_owned(),
        RawKind::Bool(b) => b.to_string(),
        RawKind::Number(n) => n.to_string(),
        _ => String::new(),
    }
}
