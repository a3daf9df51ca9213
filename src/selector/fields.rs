//! Field selectors: a port of apimachinery's `fields.ParseSelector`.
//!
//! Grammar: terms split on unescaped `,`, sorted as strings; each term splits at the
//! first `!=`, `==` or `=`; the value is unescaped (`\\`, `\,`, `\=`). A term with an
//! empty field and an empty value (`=`) selects everything and is dropped.

use std::fmt;

use super::error::ParseError;
use crate::gocompat::sort::go_sort;

/// `!=`, or `=` (which `==` normalizes to, as upstream's `hasTerm`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FieldOperator {
    /// `=` / `==`
    Equals,
    /// `!=`
    NotEquals,
}

impl FieldOperator {
    /// The upstream `selection.Operator` text.
    pub fn as_str(self) -> &'static str {
        match self {
            FieldOperator::Equals => "=",
            FieldOperator::NotEquals => "!=",
        }
    }
}

/// One field requirement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldRequirement {
    /// The field path, e.g. `metadata.name`.
    pub field: String,
    /// The operator.
    pub operator: FieldOperator,
    /// The unescaped value.
    pub value: String,
}

impl FieldRequirement {
    /// True when the field (missing = `""`) satisfies the requirement.
    pub fn matches(&self, get: &dyn Fn(&str) -> Option<String>) -> bool {
        let have = get(&self.field).unwrap_or_default();
        (have == self.value) == (self.operator == FieldOperator::Equals)
    }
}

impl fmt::Display for FieldRequirement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{}{}",
            self.field,
            self.operator.as_str(),
            escape_value(&self.value)
        )
    }
}

/// A parsed field selector: requirements ANDed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldSelector {
    reqs: Vec<FieldRequirement>,
}

impl FieldSelector {
    /// True when every requirement matches; a missing field reads as `""` (`fields.Set`).
    pub fn matches(&self, get: &dyn Fn(&str) -> Option<String>) -> bool {
        self.reqs.iter().all(|r| r.matches(get))
    }

    /// The requirements, in upstream order.
    pub fn requirements(&self) -> &[FieldRequirement] {
        &self.reqs
    }

    /// Upstream `Empty()`.
    pub fn is_empty(&self) -> bool {
        self.reqs.is_empty()
    }

    /// A selector from requirements in the given order (`fields.AndSelectors`).
    pub(crate) fn from_requirements(reqs: Vec<FieldRequirement>) -> FieldSelector {
        FieldSelector { reqs }
    }
}

impl fmt::Display for FieldSelector {
    /// Upstream `String()`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        super::write_joined(f, &self.reqs)
    }
}

/// `fields.EscapeValue`.
pub fn escape_value(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '\\' | ',' | '=') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// `fields.UnescapeValue`.
fn unescape_value(s: &str) -> Result<String, String> {
    let mut out = String::with_capacity(s.len());
    let mut in_slash = false;
    for c in s.chars() {
        if in_slash {
            if !matches!(c, '\\' | ',' | '=') {
                return Err(format!(
                    "invalid field selector: invalid escape sequence: \\{c}"
                ));
            }
            out.push(c);
            in_slash = false;
            continue;
        }
        match c {
            '\\' => in_slash = true,
            ',' | '=' => {
                return Err(format!(
                    "invalid field selector: unescaped character in value: {}",
                    c as u32
                ))
            }
            c => out.push(c),
        }
    }
    if in_slash {
        return Err("invalid field selector: invalid escape sequence: \\".to_string());
    }
    Ok(out)
}

/// `splitTerms`: split on commas not preceded by a backslash escape; with start offsets.
fn split_terms(s: &str) -> Vec<(&str, usize)> {
    if s.is_empty() {
        return Vec::new();
    }
    let mut terms = Vec::new();
    let mut start = 0;
    let mut in_slash = false;
    for (i, c) in s.char_indices() {
        if in_slash {
            in_slash = false;
        } else if c == '\\' {
            in_slash = true;
        } else if c == ',' {
            terms.push((&s[start..i], start));
            start = i + 1;
        }
    }
    terms.push((&s[start..], start));
    terms
}

/// `splitTerm`: the first position where `!=`, `==` or `=` starts.
fn split_term(term: &str) -> Option<(&str, &str, &str)> {
    for (i, _) in term.char_indices() {
        let rest = &term[i..];
        for op in ["!=", "==", "="] {
            if let Some(rhs) = rest.strip_prefix(op) {
                return Some((&term[..i], op, rhs));
            }
        }
    }
    None
}

/// Upstream `fields.ParseSelector`.
pub fn parse(input: &str) -> Result<FieldSelector, ParseError> {
    let mut parts = split_terms(input);
    go_sort(&mut parts, |a, b| a.0 < b.0);
    let mut reqs = Vec::new();
    for (part, offset) in parts {
        if part.is_empty() {
            continue;
        }
        let Some((field, op, rhs)) = split_term(part) else {
            return Err(ParseError {
                message: format!("invalid selector: '{input}'; can't understand '{part}'"),
                offset,
            });
        };
        let value = unescape_value(rhs).map_err(|message| ParseError {
            message,
            offset: offset + field.len() + op.len(),
        })?;
        // Transform drops a term whose field and value are both empty (it selects everything).
        if field.is_empty() && value.is_empty() {
            continue;
        }
        let operator = if op == "!=" {
            FieldOperator::NotEquals
        } else {
            FieldOperator::Equals
        };
        reqs.push(FieldRequirement {
            field: field.to_string(),
            operator,
            value,
        });
    }
    Ok(FieldSelector { reqs })
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn s(input: &str) -> String {
        match parse(input) {
            Ok(sel) => sel.to_string(),
            Err(e) => e.message,
        }
    }

    #[test]
    fn grammar() {
        assert_eq!(s("b==x,a!=y"), "a!=y,b=x");
        assert_eq!(s("a=b\\,c"), "a=b\\,c");
        assert_eq!(s("="), "");
        assert_eq!(s("a"), "invalid selector: 'a'; can't understand 'a'");
        assert_eq!(
            s("a=b=c"),
            "invalid field selector: unescaped character in value: 61"
        );
        assert_eq!(
            s("a=b\\x"),
            "invalid field selector: invalid escape sequence: \\x"
        );
        assert_eq!(
            s("a=b\\"),
            "invalid field selector: invalid escape sequence: \\"
        );
        assert_eq!(s("a=,b"), "invalid selector: 'a=,b'; can't understand 'b'");
    }

    #[test]
    fn matching_treats_missing_as_empty() {
        let sel = match parse("a=,b!=x") {
            Ok(sel) => sel,
            Err(e) => panic!("{e}"),
        };
        let fields: BTreeMap<String, String> = BTreeMap::new();
        let get = |k: &str| fields.get(k).cloned();
        assert!(sel.matches(&get));
        assert_eq!(sel.requirements()[0].field, "a");
    }
}
