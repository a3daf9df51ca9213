//! Field terms (`metadata.name=x`, `.spec.nodeName!=n`) and the values they compare.

use serde_json::Value;

use super::terms::key_end;
use super::QueryError;
use crate::model::Object;

const FIELD_ROOTS: [&str; 4] = ["metadata.", "spec.", "status.", "involvedObject."];

/// Whether a (left-trimmed) term is a field requirement rather than a label one.
pub fn is_field_term(term: &str) -> bool {
    let key = &term[..key_end(term)];
    key.starts_with('.') || FIELD_ROOTS.iter().any(|r| key.starts_with(r))
}

/// One field requirement: `field op value`, with fields.Selector's operators.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldTerm {
    field: String,
    negate: bool,
    value: String,
}

impl FieldTerm {
    /// Parses `field=value`, `field==value` or `field!=value`; `offset` is the term's
    /// position in the bar text, for the caret.
    pub fn parse(term: &str, offset: usize) -> Result<FieldTerm, QueryError> {
        let term = term.trim_end();
        let stripped = term.strip_prefix('.').unwrap_or(term);
        let skip = term.len() - stripped.len();
        let (field, negate, value) = if let Some((f, v)) = stripped.split_once("!=") {
            (f, true, v)
        } else if let Some((f, v)) = stripped
            .split_once("==")
            .or_else(|| stripped.split_once('='))
        {
            (f, false, v)
        } else {
            return Err(QueryError {
                message: format!("invalid selector: '{term}'; can't understand '{term}'"),
                offset: offset + skip + stripped.len(),
            });
        };
        Ok(FieldTerm {
            field: field.trim().to_string(),
            negate,
            value: value.trim().to_string(),
        })
    }

    /// Missing fields compare as `""`, as in fields.Set.
    pub fn matches(&self, obj: &Object) -> bool {
        (field_value(obj, &self.field) == self.value) != self.negate
    }
}

/// The value a field selector sees for `field` on `obj` (`""` when absent).
pub fn field_value(obj: &Object, field: &str) -> String {
    match field {
        "metadata.name" => obj.id.name.to_string(),
        "metadata.namespace" => obj.id.namespace.to_string(),
        "spec.host" => field_value(obj, "spec.nodeName"),
        // The API server reports hostNetwork as "false" when securityContext is unset.
        "spec.hostNetwork" if obj.kind() == "Pod" => obj
            .get_path("spec.hostNetwork")
            .and_then(Value::as_bool)
            .unwrap_or(false)
            .to_string(),
        "status.podIP" if obj.kind() == "Pod" => obj
            .get_path("status.podIPs")
            .and_then(|ips| ips.get(0))
            .and_then(|ip| ip.get("ip"))
            .and_then(Value::as_str)
            .or_else(|| obj.get_str("status.podIP"))
            .unwrap_or("")
            .to_string(),
        "status.successful" if obj.kind() == "Job" => scalar(obj.get_path("status.succeeded")),
        _ => scalar(obj.get_path(field)),
    }
}

fn scalar(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Bool(b)) => b.to_string(),
        Some(Value::Number(n)) => n.to_string(),
        _ => String::new(),
    }
}
