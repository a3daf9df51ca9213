//! JSON files: a stream of values (as kubectl's YAMLOrJSONDecoder reads), duplicate keys
//! reported as the API server's strict decoding does, and list item offsets from a small
//! structural scan (serde_json gives values no positions).

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

use super::yaml::ItemPath;

/// One top-level JSON value with its byte range and list item byte ranges.
#[derive(Debug)]
pub(super) struct JsonDoc {
    pub value: Value,
    pub start: usize,
    pub end: usize,
    pub items: Vec<(ItemPath, usize, usize)>,
}

/// A JSON problem: 1-based line and column, message without serde_json's location suffix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct JsonError {
    pub line: u32,
    pub column: u32,
    pub message: String,
}

/// Parses every value of a JSON stream; stops at the first error (JSON cannot resync),
/// returning the values read before it.
pub(super) fn parse_stream(text: &str) -> (Vec<JsonDoc>, Option<JsonError>) {
    let mut docs = Vec::new();
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<StrictValue>();
    loop {
        let from = stream.byte_offset();
        match stream.next() {
            None => return (docs, None),
            Some(Ok(StrictValue(value))) => {
                let start = skip_ws(text.as_bytes(), from);
                let end = stream.byte_offset();
                let items = item_offsets(text.as_bytes(), start);
                docs.push(JsonDoc {
                    value,
                    start,
                    end,
                    items,
                });
            }
            Some(Err(e)) => return (docs, Some(json_error(&e))),
        }
    }
}

fn json_error(e: &serde_json::Error) -> JsonError {
    let full = e.to_string();
    let message = match full.rfind(" at line ") {
        Some(i) => full[..i].to_owned(),
        None => full,
    };
    JsonError {
        line: u32::try_from(e.line()).unwrap_or(u32::MAX),
        column: u32::try_from(e.column()).unwrap_or(u32::MAX),
        message: format!("JSON syntax error: {message}"),
    }
}

/// A `serde_json::Value` that refuses duplicate object keys.
struct StrictValue(Value);

impl<'de> de::Deserialize<'de> for StrictValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Strict.deserialize(d).map(StrictValue)
    }
}

struct Strict;

impl<'de> DeserializeSeed<'de> for Strict {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Strict {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(v) = seq.next_element_seed(Strict)? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(k) = map.next_key::<String>()? {
            let v = map.next_value_seed(Strict)?;
            if let Some(k) = out.insert(k.clone(), v).map(|_| k) {
                // apimachinery's strict JSON decoding words it this way.
                return Err(de::Error::custom(format!("duplicate field {k:?}")));
            }
        }
        Ok(Value::Object(out))
    }
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while b.get(i).is_some_and(|c| c.is_ascii_whitespace()) {
        i += 1;
    }
    i
}

/// Byte ranges of list items (elements of a top-level array, of `items` arrays, and of
/// nested lists' `items`), keyed by [`ItemPath`]. The text is known-valid JSON whose depth
/// serde_json has bounded (128), so plain recursion is safe here.
fn item_offsets(b: &[u8], start: usize) -> Vec<(ItemPath, usize, usize)> {
    let mut scan = Scan {
        b,
        i: start,
        out: Vec::new(),
    };
    scan.node(Some(Vec::new()), Some(Vec::new()));
    scan.out
}

struct Scan<'a> {
    b: &'a [u8],
    i: usize,
    out: Vec<(ItemPath, usize, usize)>,
}

impl Scan<'_> {
    fn peek(&mut self) -> Option<u8> {
        self.i = skip_ws(self.b, self.i);
        self.b.get(self.i).copied()
    }

    /// `as_item`: this node's path if it may be a list; `as_items`: the prefix of its
    /// elements if it is an `items` array (or the root).
    fn node(&mut self, as_item: Option<ItemPath>, as_items: Option<ItemPath>) {
        match self.peek() {
            Some(b'{') => self.object(as_item),
            Some(b'[') => self.array(as_items),
            Some(b'"') => self.string(),
            Some(_) => {
                while self
                    .b
                    .get(self.i)
                    .is_some_and(|c| !matches!(c, b',' | b']' | b'}') && !c.is_ascii_whitespace())
                {
                    self.i += 1;
                }
            }
            None => {}
        }
    }

    fn string(&mut self) {
        self.i += 1;
        while let Some(&c) = self.b.get(self.i) {
            self.i += if c == b'\\' { 2 } else { 1 };
            if c == b'"' {
                return;
            }
        }
    }

    fn object(&mut self, path: Option<ItemPath>) {
        self.i += 1;
        while let Some(c) = self.peek() {
            match c {
                b'}' => {
                    self.i += 1;
                    return;
                }
                b'"' => {
                    let key_start = self.i;
                    self.string();
                    let is_items = &self.b[key_start..self.i] == b"\"items\"";
                    if self.peek() == Some(b':') {
                        self.i += 1;
                    }
                    let prefix = if is_items { path.clone() } else { None };
                    self.node(None, prefix);
                }
                _ => self.i += 1, // ',' between members
            }
        }
    }

    fn array(&mut self, prefix: Option<ItemPath>) {
        self.i += 1;
        let mut index: u32 = 0;
        while let Some(c) = self.peek() {
            match c {
                b']' => {
                    self.i += 1;
                    return;
                }
                b',' => self.i += 1,
                _ => {
                    let start = self.i;
                    let path = prefix.as_ref().map(|p| {
                        let mut p = p.clone();
                        p.push(index);
                        p
                    });
                    self.node(path.clone(), None);
                    if let Some(path) = path {
                        self.out.push((path, start, self.i));
                    }
                    index = index.saturating_add(1);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn stream_of_values() {
        let (docs, err) = parse_stream("{\"a\": 1}\n{\"b\": [1, 2]}\n");
        assert!(err.is_none());
        assert_eq!(docs.len(), 2);
        assert_eq!(docs[1].value, json!({"b": [1, 2]}));
        assert_eq!(docs[1].start, 9);
    }

    #[test]
    fn duplicate_field() {
        let (docs, err) = parse_stream("{\"a\": 1,\n \"a\": 2}");
        assert!(docs.is_empty());
        let e = err.unwrap();
        assert_eq!(e.message, "JSON syntax error: duplicate field \"a\"");
        assert_eq!(e.line, 2);
    }

    #[test]
    fn list_item_offsets() {
        let t = r#"{"kind": "List", "x": {"items": [9]}, "items": [{"a": "]"}, {"kind": "L", "items": [ {} ]}]}"#;
        let (docs, _) = parse_stream(t);
        let items: Vec<_> = docs[0]
            .items
            .iter()
            .map(|(p, s, e)| (p.clone(), &t[*s..*e]))
            .collect();
        assert_eq!(
            items,
            vec![
                (vec![0], r#"{"a": "]"}"#),
                (vec![1, 0], "{}"),
                (vec![1], r#"{"kind": "L", "items": [ {} ]}"#)
            ]
        );
        let (docs, _) = parse_stream("[1, {\"a\": 2}]");
        assert_eq!(docs[0].items.len(), 2);
    }
}
