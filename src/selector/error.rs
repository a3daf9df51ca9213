//! Errors, and the Go formatting they must reproduce byte for byte.
//!
//! Upstream builds its messages with `fmt` verbs (`%q`, `%#v`: see `crate::gocompat`) and
//! with `field.Error` / `errors.Aggregate`; the helpers here reproduce exactly the subset
//! the selector code paths produce.

use std::fmt;

use crate::gocompat::quote::quote as go_quote;

/// A selector that failed to parse: the upstream message and where it failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// The message upstream's parser returns, verbatim.
    pub message: String,
    /// Byte offset into the input of the token that failed (for a caret).
    pub offset: usize,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ParseError {}

/// A `field.Path` rendered as text; `None` is Go's nil path, printed `<nil>`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct FieldPath(Option<String>);

impl FieldPath {
    /// The nil path (what `field.ToPath()` returns without options).
    pub(crate) fn nil() -> Self {
        FieldPath(None)
    }

    /// A root path of one name.
    pub(crate) fn root(name: &str) -> Self {
        FieldPath(Some(name.to_string()))
    }

    /// `path.Child(name)`: a nil parent gives a root.
    pub(crate) fn child(&self, name: &str) -> Self {
        match &self.0 {
            None => FieldPath::root(name),
            Some(p) => FieldPath(Some(format!("{p}.{name}"))),
        }
    }

    /// `path.Index(i)`.
    pub(crate) fn index(&self, i: usize) -> Self {
        FieldPath(Some(format!("{}[{i}]", self.0.as_deref().unwrap_or(""))))
    }

    /// `path.Key(k)`.
    pub(crate) fn key(&self, k: &str) -> Self {
        FieldPath(Some(format!("{}[{k}]", self.0.as_deref().unwrap_or(""))))
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.as_deref().unwrap_or("<nil>"))
    }
}

/// `field.Invalid(path, value, detail).Error()` where `value` is already Go-formatted.
pub(crate) fn field_invalid(path: &FieldPath, value: &str, detail: &str) -> String {
    let mut s = format!("{path}: Invalid value: {value}");
    if !detail.is_empty() {
        s.push_str(": ");
        s.push_str(detail);
    }
    s
}

/// `field.NotSupported(path, value, valid).Error()`; `value` is Go-formatted.
pub(crate) fn field_not_supported(path: &FieldPath, value: &str, valid: &[&str]) -> String {
    let mut s = format!("{path}: Unsupported value: {value}");
    if !valid.is_empty() {
        let quoted: Vec<String> = valid.iter().map(|v| go_quote(v)).collect();
        s.push_str(": supported values: ");
        s.push_str(&quoted.join(", "));
    }
    s
}

/// `errors.Aggregate.Error()` over already-flattened messages: duplicates dropped,
/// one message printed bare, several as `[a, b]`.
pub(crate) fn aggregate(messages: &[String]) -> String {
    let mut seen: Vec<&str> = Vec::new();
    for m in messages {
        if !seen.contains(&m.as_str()) {
            seen.push(m);
        }
    }
    match seen.as_slice() {
        [one] => (*one).to_string(),
        many => format!("[{}]", many.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_render_like_field_path() {
        assert_eq!(FieldPath::nil().to_string(), "<nil>");
        let p = FieldPath::nil().child("values").index(0).key("x");
        assert_eq!(p.to_string(), "values[0][x]");
        let t = FieldPath::root("nodeSelectorTerms")
            .index(1)
            .child("matchFields");
        assert_eq!(t.to_string(), "nodeSelectorTerms[1].matchFields");
    }

    #[test]
    fn aggregate_dedups_and_brackets() {
        let one = vec!["a".to_string(), "a".to_string()];
        assert_eq!(aggregate(&one), "a");
        let two = vec!["a".to_string(), "b".to_string(), "a".to_string()];
        assert_eq!(aggregate(&two), "[a, b]");
    }
}
