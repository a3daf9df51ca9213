//! YAML output in the style of `kubectl get -o yaml` (sigs.k8s.io/yaml → go-yaml v2): keys
//! sorted, two-space indentation, sequences not indented under their key, strings plain
//! unless they would read back as another type (then double-quoted) or contain YAML
//! indicators (then single-quoted), multi-line strings as literal blocks.
//!
//! Known difference: go-yaml folds plain scalars longer than 80 columns; kubesift does not.

use crate::value::{RawArray, RawKind, RawObject, RawRef};

/// The whole document, ending with a newline.
pub fn to_string(v: RawRef<'_>) -> String {
    let mut out = String::new();
    match v.kind() {
        RawKind::Object(m) if !m.is_empty() => mapping(&mut out, m, 0),
        RawKind::Array(a) if !a.is_empty() => sequence(&mut out, a, 0),
        _ => {
            out.push_str(&scalar(v, 0));
            out.push('\n');
        }
    }
    out
}

fn pad(out: &mut String, indent: usize) {
    out.extend(std::iter::repeat_n(' ', indent));
}

fn mapping(out: &mut String, m: RawObject<'_>, indent: usize) {
    for (i, (k, v)) in m.iter().enumerate() {
        if i > 0 {
            pad(out, indent);
        }
        out.push_str(&string(k, indent));
        out.push(':');
        value_after_key(out, v, indent);
    }
}

/// A value after `key:` — nested blocks start on the next line.
fn value_after_key(out: &mut String, v: RawRef<'_>, indent: usize) {
    match v.kind() {
        RawKind::Object(m) if !m.is_empty() => {
            out.push('\n');
            pad(out, indent + 2);
            mapping(out, m, indent + 2);
        }
        RawKind::Array(a) if !a.is_empty() => {
            out.push('\n');
            pad(out, indent);
            sequence(out, a, indent);
        }
        _ => {
            out.push(' ');
            out.push_str(&scalar(v, indent));
            out.push('\n');
        }
    }
}

fn sequence(out: &mut String, a: RawArray<'_>, indent: usize) {
    for (i, v) in a.iter().enumerate() {
        if i > 0 {
            pad(out, indent);
        }
        out.push_str("- ");
        match v.kind() {
            RawKind::Object(m) if !m.is_empty() => mapping(out, m, indent + 2),
            RawKind::Array(inner) if !inner.is_empty() => sequence(out, inner, indent + 2),
            _ => {
                out.push_str(&scalar(v, indent + 2));
                out.push('\n');
            }
        }
    }
}

fn scalar(v: RawRef<'_>, indent: usize) -> String {
    match v.kind() {
        RawKind::Null => "null".to_owned(),
        RawKind::Bool(b) => b.to_string(),
        RawKind::Number(n) => n.to_string(),
        RawKind::String(s) => string(s, indent),
        RawKind::Object(_) => "{}".to_owned(),
        RawKind::Array(_) => "[]".to_owned(),
    }
}

/// A string in go-yaml v2's chosen style.
fn string(s: &str, indent: usize) -> String {
    if s.contains('\n') && literal_allowed(s) {
        return literal(s, indent);
    }
    if resolves_to_non_string(s) || needs_double_quotes(s) {
        return double_quoted(s);
    }
    if plain_allowed(s) {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', "''"))
    }
}

/// go-yaml v2's `resolve`: would this plain scalar read back as null, bool, int or float?
fn resolves_to_non_string(s: &str) -> bool {
    const SPECIAL: &[&str] = &[
        "", "~", "null", "Null", "NULL", "y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO",
        "true", "True", "TRUE", "false", "False", "FALSE", "on", "On", "ON", "off", "Off", "OFF",
        ".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf",
        "-.Inf", "-.INF", "<<",
    ];
    if SPECIAL.contains(&s) {
        return true;
    }
    let first = s.as_bytes()[0];
    if !(first.is_ascii_digit() || matches!(first, b'-' | b'+' | b'.')) {
        return false;
    }
    let plain = s.replace('_', "");
    plain.parse::<i64>().is_ok()
        || plain.parse::<u64>().is_ok()
        || is_go_float(&plain)
        || is_prefixed_int(&plain)
        || is_base60(s)
}

fn is_go_float(s: &str) -> bool {
    // strconv.ParseFloat accepts what Rust does, minus inf/nan words (handled above).
    let lower = s.to_ascii_lowercase();
    !lower.contains("inf") && !lower.contains("nan") && s.parse::<f64>().is_ok()
}

fn is_prefixed_int(s: &str) -> bool {
    let body = s.strip_prefix(['-', '+']).unwrap_or(s);
    let (digits, radix) = if let Some(d) = body.strip_prefix("0b") {
        (d, 2)
    } else if let Some(d) = body.strip_prefix("0x") {
        (d, 16)
    } else if body.len() > 1 && body.starts_with('0') {
        (&body[1..], 8)
    } else {
        return false;
    };
    !digits.is_empty() && digits.chars().all(|c| c.is_digit(radix))
}

/// `isBase60Float`: `1:20`, `-190:20:30.15`.
fn is_base60(s: &str) -> bool {
    let body = s.strip_prefix(['-', '+']).unwrap_or(s);
    let mut parts = body.split(':');
    let Some(head) = parts.next() else {
        return false;
    };
    let rest: Vec<&str> = parts.collect();
    if rest.is_empty() || head.is_empty() || !head.bytes().all(|c| c.is_ascii_digit()) {
        return false;
    }
    rest.iter().enumerate().all(|(i, p)| {
        let (int_part, frac) = match p.split_once('.') {
            Some((a, b)) if i + 1 == rest.len() => (a, Some(b)),
            Some(_) => return false,
            None => (*p, None),
        };
        matches!(int_part.len(), 1 | 2)
            && int_part.bytes().all(|c| c.is_ascii_digit())
            && int_part.as_bytes()[0] <= b'5'
            && frac.is_none_or(|f| f.bytes().all(|c| c.is_ascii_digit()))
    })
}

/// Characters libyaml will not write in a single-quoted or plain scalar.
fn needs_double_quotes(s: &str) -> bool {
    s.chars().any(|c| {
        (c.is_control() && c != '\n')
            || c == '\u{feff}'
            || matches!(c, '\u{85}' | '\u{2028}' | '\u{2029}')
    })
}

/// libyaml's `yaml_emitter_analyze_scalar` verdict for block-context plain style.
fn plain_allowed(s: &str) -> bool {
    let b = s.as_bytes();
    if s.starts_with("---") || s.starts_with("...") {
        return false;
    }
    if s.starts_with(' ') || s.ends_with(' ') {
        return false;
    }
    let followed_by_blank = |i: usize| b.get(i + 1).is_none_or(|c| *c == b' ');
    if matches!(
        b[0],
        b'#' | b','
            | b'['
            | b']'
            | b'{'
            | b'}'
            | b'&'
            | b'*'
            | b'!'
            | b'|'
            | b'>'
            | b'\''
            | b'"'
            | b'%'
            | b'@'
            | b'`'
    ) {
        return false;
    }
    if matches!(b[0], b'?' | b':' | b'-') && followed_by_blank(0) {
        return false;
    }
    for (i, &c) in b.iter().enumerate() {
        if c == b':' && followed_by_blank(i) {
            return false;
        }
        if c == b'#' && i > 0 && b[i - 1] == b' ' {
            return false;
        }
    }
    true
}

/// Literal blocks cannot carry trailing spaces on a line or leading whitespace-only breaks.
fn literal_allowed(s: &str) -> bool {
    !needs_double_quotes(s) && !s.lines().any(|l| l.ends_with(' ') || l.ends_with('\t'))
}

fn literal(s: &str, indent: usize) -> String {
    let chomp = if s.ends_with("\n\n") {
        "+"
    } else if s.ends_with('\n') {
        ""
    } else {
        "-"
    };
    let indicator = if s.starts_with(' ') { "2" } else { "" };
    let mut out = format!("|{indicator}{chomp}");
    let body = s.strip_suffix('\n').unwrap_or(s);
    for line in body.split('\n') {
        out.push('\n');
        if !line.is_empty() {
            out.push_str(&" ".repeat(indent + 2));
            out.push_str(line);
        }
    }
    out
}

fn double_quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\0' => out.push_str("\\0"),
            c if c.is_control() || c == '\u{feff}' => {
                out.push_str(&format!("\\u{:04X}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Raw;
    use serde_json::json;

    #[test]
    fn list_document_like_kubectl() {
        let v = json!({
            "apiVersion": "v1",
            "items": [{"kind": "Pod", "metadata": {"name": "web", "labels": {"app": "web", "v": "1.0"}},
                       "spec": {"containers": [{"args": ["a", "--x=y"], "name": "c"}]}}],
            "kind": "List",
            "metadata": {"resourceVersion": ""}
        });
        let want = "\
apiVersion: v1
items:
- kind: Pod
  metadata:
    labels:
      app: web
      v: \"1.0\"
    name: web
  spec:
    containers:
    - args:
      - a
      - --x=y
      name: c
kind: List
metadata:
  resourceVersion: \"\"
";
        assert_eq!(to_string(Raw::from(v).view()), want);
    }

    #[test]
    fn string_styles() {
        assert_eq!(string("yes", 0), "\"yes\"");
        assert_eq!(string("0755", 0), "\"0755\"");
        assert_eq!(string("1:20", 0), "\"1:20\"");
        assert_eq!(string("12h", 0), "12h");
        assert_eq!(string("a: b", 0), "'a: b'");
        assert_eq!(string("*x", 0), "'*x'");
        assert_eq!(string("it's", 0), "it's");
        assert_eq!(string("- x", 0), "'- x'");
        assert_eq!(string("a\nb\n", 2), "|\n    a\n    b");
        assert_eq!(string("a\nb", 0), "|-\n  a\n  b");
        assert_eq!(string("tab\there", 0), "\"tab\\there\"");
        assert_eq!(
            to_string(Raw::from(json!({"e": {}, "l": []})).view()),
            "e: {}\nl: []\n"
        );
    }
}
