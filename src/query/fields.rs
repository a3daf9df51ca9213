//! Field terms: `metadata.name=x` with the API server's per-kind field selectors
//! (`fields.ParseSelector`, [`crate::model::fields`]), and `.any.path=x` on any field.

use super::terms::key_end;
use super::QueryError;
use crate::model::fields::{check_field, field_value};
use crate::model::Object;
use crate::selector::{parse_fields, FieldRequirement};

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
    /// `.path`: compare the raw JSON value at that path on every kind.
    any_path: bool,
}

impl FieldTerm {
    /// Parses one term; `offset` is its position in the bar text, for the caret.
    pub fn parse(term: &str, offset: usize) -> Result<FieldTerm, QueryError> {
        let term = term.trim_end();
        let stripped = term.strip_prefix('.').unwrap_or(term);
        let skip = term.len() - stripped.len();
        let selector = parse_fields(stripped).map_err(|e| QueryError {
            message: e.message,
            offset: offset + skip + e.offset.min(stripped.len()),
        })?;
        match selector.requirements() {
            [one] => Ok(FieldTerm {
                requirement: one.clone(),
                any_path: skip > 0,
            }),
            _ => Err(QueryError {
                message: format!("invalid selector: '{stripped}'; can't understand '{stripped}'"),
                offset: offset + skip,
            }),
        }
    }

    /// Whether `obj` satisfies the term. As with `kubectl get --field-selector`, a field
    /// its kind does not support selects nothing of that kind; `.path` terms compare the
    /// value at that path on any kind (absent = `""`).
    pub fn matches(&self, obj: &Object) -> bool {
        let field = self.requirement.field.as_str();
        if self.any_path {
            let have = scalar_at(obj, field);
            return self.requirement.matches(&|_| Some(have.clone()));
        }
        if check_field(&obj.id.group, obj.kind(), field).is_err() {
            return false;
        }
        self.requirement
            .matches(&|f: &str| Some(field_value(obj, f)))
    }
}

fn scalar_at(obj: &Object, path: &str) -> String {
    use crate::value::RawKind;
    match obj.get_path(path).map(crate::value::RawRef::kind) {
        Some(RawKind::String(s)) => s.to_owned(),
        Some(RawKind::Bool(b)) => b.to_string(),
        Some(RawKind::Number(n)) => n.to_string(),
        _ => String::new(),
    }
}
