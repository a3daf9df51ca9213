//! The JSON request/response protocol of `kubesift selector --jsonl`: the eight ops of
//! the shared conformance vectors (see shared/conformance/README.md).
//!
//! One request object in, one response object out. A request that cannot be read
//! (bad JSON, unknown op, wrong field types) gets `{"ok":false,"error":…}`.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use super::error::{aggregate, FieldPath};
use super::labels::{new_requirement, Selector};
use super::structured::{label_selector_from_value, NodeSelector};
use super::{fields, labels};
use crate::names;
use crate::value::Raw;

/// Answers one request line (a JSON object) with one response object.
pub fn respond_line(line: &str) -> Value {
    let line = replace_lone_surrogates(line);
    match serde_json::from_str::<Value>(&line) {
        Ok(Value::Object(req)) => respond(&req).unwrap_or_else(failure),
        Ok(other) => failure(format!("request must be a JSON object, got {other}")),
        Err(e) => failure(format!("invalid JSON: {e}")),
    }
}

/// Answers one decoded request; `Err` is a malformed request (not an upstream error).
pub fn respond(req: &Map<String, Value>) -> Result<Value, String> {
    let op = match req.get("op") {
        Some(Value::String(op)) => op.as_str(),
        _ => return Err("missing string field \"op\"".to_string()),
    };
    match op {
        "parse" => Ok(op_parse(str_field(req, "selector")?, None)),
        "match" => Ok(op_parse(
            str_field(req, "selector")?,
            Some(labels_field(req)?.unwrap_or_default()),
        )),
        "field_parse" => Ok(op_field(str_field(req, "selector")?, None)),
        "field_match" => Ok(op_field(
            str_field(req, "selector")?,
            Some(labels_field_named(req, "fields")?.unwrap_or_default()),
        )),
        "requirement" => op_requirement(req),
        "labelselector" => op_labelselector(req),
        "nodeselector" => op_nodeselector(req),
        "validate" => op_validate(req),
        other => Err(format!("unknown op {other:?}")),
    }
}

/// Answers one request line given as raw bytes. Bytes that are not UTF-8 read as U+FFFD,
/// one per byte, as Go's `encoding/json` decodes them inside strings.
pub fn respond_bytes(line: &[u8]) -> Value {
    respond_line(&go_lossy_utf8(line))
}

/// `String::from_utf8_lossy`, but with one U+FFFD per invalid byte (Go's
/// `utf8.DecodeRune` steps one byte at a time over bad input).
fn go_lossy_utf8(mut bytes: &[u8]) -> Cow<'_, str> {
    if let Ok(s) = std::str::from_utf8(bytes) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(bytes.len() + 8);
    loop {
        match std::str::from_utf8(bytes) {
            Ok(s) => {
                out.push_str(s);
                return Cow::Owned(out);
            }
            Err(e) => {
                let (good, rest) = bytes.split_at(e.valid_up_to());
                out.push_str(std::str::from_utf8(good).unwrap_or_default());
                let bad = e.error_len().unwrap_or(rest.len());
                out.extend(std::iter::repeat_n('\u{FFFD}', bad));
                bytes = &rest[bad..];
            }
        }
    }
}

/// The value of a `\uXXXX` escape starting at `at` (which holds the backslash).
fn escape_at(text: &[u8], at: usize) -> Option<u32> {
    let hex = text.get(at + 2..at + 6)?;
    if text.get(at + 1) != Some(&b'u') {
        return None;
    }
    u32::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()
}

/// Go's `encoding/json` turns a `\uD800`–`\uDFFF` escape that is not half of a valid
/// pair into U+FFFD, where serde_json rejects the whole line: rewrite those escapes to
/// `\uFFFD` first (a pair is kept; a backslash escaping a backslash is skipped).
fn replace_lone_surrogates(line: &str) -> Cow<'_, str> {
    if !line.contains("\\u") {
        return Cow::Borrowed(line);
    }
    let b = line.as_bytes();
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        let Some(unit) = escape_at(b, i) else {
            i += 2; // `\\`, `\"`, … or a bad escape serde_json will report
            continue;
        };
        if !(0xD800..=0xDFFF).contains(&unit) {
            i += 6;
            continue;
        }
        let low = escape_at(b, i + 6).filter(|u| (0xDC00..=0xDFFF).contains(u));
        if unit < 0xDC00 && low.is_some() {
            i += 12;
            continue;
        }
        let o = out.get_or_insert_with(|| String::with_capacity(line.len()));
        o.push_str(&line[copied..i]);
        o.push_str("\\ufffd");
        i += 6;
        copied = i;
    }
    match out {
        Some(mut o) => {
            o.push_str(&line[copied..]);
            Cow::Owned(o)
        }
        None => Cow::Borrowed(line),
    }
}

fn failure(error: String) -> Value {
    json!({"ok": false, "error": error})
}

/// A string field; absent or `null` is `""`, as Go's `encoding/json` leaves a string.
fn str_field<'a>(req: &'a Map<String, Value>, name: &str) -> Result<&'a str, String> {
    match req.get(name) {
        Some(Value::String(s)) => Ok(s),
        None | Some(Value::Null) => Ok(""),
        Some(other) => Err(format!("field {name:?} must be a string, got {other}")),
    }
}

type Labels = BTreeMap<String, String>;

fn labels_field(req: &Map<String, Value>) -> Result<Option<Labels>, String> {
    labels_field_named(req, "labels")
}

/// A string→string object; `None` when absent or null.
fn labels_field_named(req: &Map<String, Value>, name: &str) -> Result<Option<Labels>, String> {
    let obj = match req.get(name) {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Object(o)) => o,
        Some(other) => return Err(format!("field {name:?} must be an object, got {other}")),
    };
    obj.iter()
        .map(|(k, v)| match v {
            Value::String(s) => Ok((k.clone(), s.clone())),
            Value::Null => Ok((k.clone(), String::new())),
            other => Err(format!("{name}.{k} must be a string, got {other}")),
        })
        .collect::<Result<Labels, String>>()
        .map(Some)
}

fn requirements_json(sel: &Selector) -> Value {
    let reqs: Vec<Value> = sel
        .requirements()
        .iter()
        .map(|r| json!({"key": r.key, "operator": r.operator.as_str(), "values": r.value_set()}))
        .collect();
    Value::Array(reqs)
}

/// `parse` (labels `None`) and `match`.
fn op_parse(selector: &str, labels: Option<Labels>) -> Value {
    let sel = match labels::parse(selector) {
        Ok(sel) => sel,
        Err(e) => return failure(e.message),
    };
    let mut out = json!({"ok": true, "string": sel.to_string(), "empty": sel.is_empty()});
    match labels {
        Some(l) => out["matches"] = Value::Bool(sel.matches(&l)),
        None => out["requirements"] = requirements_json(&sel),
    }
    out
}

/// `field_parse` (fields `None`) and `field_match`.
fn op_field(selector: &str, fields: Option<Labels>) -> Value {
    let sel = match fields::parse(selector) {
        Ok(sel) => sel,
        Err(e) => return failure(e.message),
    };
    let mut out = json!({"ok": true, "string": sel.to_string(), "empty": sel.is_empty()});
    match fields {
        Some(f) => out["matches"] = Value::Bool(sel.matches(&|k: &str| f.get(k).cloned())),
        None => {
            let reqs: Vec<Value> = sel
                .requirements()
                .iter()
                .map(|r| json!({"field": r.field, "operator": r.operator.as_str(), "value": r.value}))
                .collect();
            out["requirements"] = Value::Array(reqs);
        }
    }
    out
}

/// A `[]string` request field: `None` (Go nil) when absent or null.
fn string_list(req: &Map<String, Value>, name: &str) -> Result<Option<Vec<String>>, String> {
    match req.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| match v {
                Value::String(s) => Ok(s.clone()),
                // Go decodes `null` into a string as the zero value.
                Value::Null => Ok(String::new()),
                _ => Err(format!("{name} must hold strings")),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
        Some(other) => Err(format!("field {name:?} must be an array, got {other}")),
    }
}

fn op_requirement(req: &Map<String, Value>) -> Result<Value, String> {
    let key = str_field(req, "key")?;
    let op = str_field(req, "operator")?;
    let values = string_list(req, "values")?;
    let labels = labels_field(req)?;
    let r = match new_requirement(key, op, values.as_deref(), &FieldPath::nil()) {
        Ok(r) => r,
        Err(errs) => return Ok(failure(aggregate(&errs))),
    };
    let mut out = json!({"ok": true, "string": r.to_string()});
    if let Some(l) = labels {
        out["matches"] = Value::Bool(r.matches(&l));
    }
    Ok(out)
}

fn op_labelselector(req: &Map<String, Value>) -> Result<Value, String> {
    let labels = labels_field(req)?;
    let nil = matches!(req.get("nil"), Some(Value::Bool(true)));
    let body = (!nil).then(|| {
        let mut m = Map::new();
        for k in ["matchLabels", "matchExpressions"] {
            if let Some(v) = req.get(k) {
                m.insert(k.to_string(), v.clone());
            }
        }
        Value::Object(m)
    });
    let body = body.as_ref().map(Raw::from_value);
    let sel = match label_selector_from_value(body.as_ref().map(Raw::view)) {
        Ok(sel) => sel,
        Err(e) => return Ok(failure(e)),
    };
    let mut out = match &sel {
        // labels.Nothing(): not empty, not selectable, no requirements, matches nothing.
        None => {
            json!({"ok": true, "string": "", "empty": false, "selectable": false, "requirements": []})
        }
        Some(s) => json!({
            "ok": true, "string": s.to_string(), "empty": s.is_empty(),
            "selectable": true, "requirements": requirements_json(s)
        }),
    };
    if let Some(l) = labels {
        out["matches"] = Value::Bool(sel.is_some_and(|s| s.matches(&l)));
    }
    Ok(out)
}

fn op_nodeselector(req: &Map<String, Value>) -> Result<Value, String> {
    let terms = match req.get("terms") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(a)) => a.clone(),
        Some(other) => return Err(format!("field \"terms\" must be an array, got {other}")),
    };
    let node_name = match req.get("nodeName") {
        None | Some(Value::Null) => "",
        Some(_) => str_field(req, "nodeName")?,
    };
    let labels = labels_field(req)?.unwrap_or_default();
    let terms = Raw::from_value(&Value::Array(terms));
    let terms = terms.view().as_array().unwrap_or_default();
    Ok(match NodeSelector::from_terms(terms) {
        Ok(ns) => json!({"ok": true, "matches": ns.matches(node_name, &labels)}),
        Err(e) => failure(e),
    })
}

fn op_validate(req: &Map<String, Value>) -> Result<Value, String> {
    let value = str_field(req, "value")?;
    let errors = match str_field(req, "kind")? {
        "qualified_name" => names::is_qualified_name(value),
        "label_value" => names::is_valid_label_value(value),
        "dns1123_subdomain" => names::is_dns1123_subdomain(value),
        "dns1123_label" => names::is_dns1123_label(value),
        "dns1035_label" => names::is_dns1035_label(value),
        "path_segment_name" => names::is_valid_path_segment_name(value),
        other => return Err(format!("unknown validate kind {other:?}")),
    };
    Ok(json!({ "errors": errors }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_lines_answer_ok_false() {
        assert_eq!(
            respond_line("{"),
            json!({"ok": false, "error": "invalid JSON: EOF while parsing an object at line 1 column 1"})
        );
        assert_eq!(respond_line(r#"{"op":"nope"}"#)["ok"], json!(false));
        assert_eq!(respond_line("[]")["ok"], json!(false));
    }

    #[test]
    fn lone_surrogates_and_bad_bytes_read_as_replacement_characters() {
        let err = |v: Value| v["error"].as_str().unwrap_or_default().to_string();
        let lone = err(respond_line(r#"{"op":"parse","selector":"a\ud800"}"#));
        assert!(lone.contains("Invalid value: \"a\u{fffd}\""), "{lone}");
        let low = err(respond_line(
            r#"{"op":"parse","selector":"\udc00\ud83d\ude00"}"#,
        ));
        assert!(low.contains("Invalid value: \"\u{fffd}😀\""), "{low}");
        let twice = err(respond_line(
            r#"{"op":"parse","selector":"\ud800\ud800\udc00"}"#,
        ));
        assert!(twice.contains("Invalid value: \"\u{fffd}𐀀\""), "{twice}");
        // An escaped backslash followed by `ud800` is text, not an escape.
        let text = respond_line(r#"{"op":"field_parse","selector":"a=\\\\ud800"}"#);
        assert_eq!(text["string"], r"a=\\ud800");
        let bytes = err(respond_bytes(
            b"{\"op\":\"parse\",\"selector\":\"a\xe2\x82\"}",
        ));
        assert!(
            bytes.contains("Invalid value: \"a\u{fffd}\u{fffd}\""),
            "{bytes}"
        );
    }

    #[test]
    fn parse_and_match() {
        let r = respond_line(r#"{"op":"parse","selector":"b in (y,x),a"}"#);
        assert_eq!(
            r,
            json!({"ok": true, "empty": false, "string": "a,b in (x,y)", "requirements": [
                {"key": "a", "operator": "exists", "values": []},
                {"key": "b", "operator": "in", "values": ["x", "y"]}
            ]})
        );
        let m = respond_line(r#"{"op":"match","selector":"a!=1","labels":{}}"#);
        assert_eq!(
            m,
            json!({"ok": true, "empty": false, "string": "a!=1", "matches": true})
        );
    }

    #[test]
    fn nil_label_selector_selects_nothing() {
        let r = respond_line(r#"{"op":"labelselector","nil":true,"labels":{}}"#);
        assert_eq!(
            r,
            json!({"ok": true, "empty": false, "string": "", "selectable": false, "requirements": [], "matches": false})
        );
    }
}
