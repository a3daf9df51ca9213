//! JSON files: a stream of values (as kubectl's YAMLOrJSONDecoder reads), duplicate keys
//! reported as the API server's strict decoding does, and list item offsets from a small
//! structural scan (serde_json gives values no positions).
//!
//! Values go straight from serde_json's tokens into the compact [`Raw`] encoding (a
//! [`RawBuilder`] per thread, no `serde_json::Value` in between). When a stream has any
//! error, it is read again through `serde_json::Value` with a visitor that refuses a
//! repeated key the moment it is read, so every message and position is the one that
//! path gives (the builder only finds a repeated key when its object closes).

use std::cell::RefCell;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

use super::swar;
use super::yaml::ItemPath;
use crate::gocompat::quote::Quoted;
use crate::value::{Raw, RawBuilder};

/// Builder buffers grown past this are given back after a document.
const KEEP_BUILDER_BYTES: usize = 1 << 20;

/// One top-level JSON value with its byte range and list item byte ranges.
#[derive(Debug)]
pub(super) struct JsonDoc {
    pub value: Raw,
    pub start: usize,
    pub end: usize,
    pub items: Vec<(ItemPath, usize, usize)>,
}

/// A JSON problem: 1-based line and column, message without serde_json's location suffix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct JsonError {
    pub line: u32,
    pub column: u32,
    /// `json-syntax`, or `too-many-documents`.
    pub code: &'static str,
    pub message: String,
}

/// Values read from one JSON stream at most (as YAML documents, `parse::MAX_DOCUMENTS`):
/// `{}` is two bytes, so a 64 MB file could hold 32 million of them.
pub(super) const MAX_VALUES: usize = 1_000_000;

/// Parses every value of a JSON stream; stops at the first error (JSON cannot resync),
/// returning the values read before it.
pub(super) fn parse_stream(text: &str) -> (Vec<JsonDoc>, Option<JsonError>) {
    match parse_stream_direct(text) {
        (docs, None) => (docs, None),
        // Errors are rare: the `Value` path words them and places them.
        (_, Some(_)) => parse_stream_through_values(text),
    }
}

/// The direct path alone: right when there is no error; with one, the values read before
/// it are right but the error may be worded and placed differently (a repeated key is only
/// found when its object closes). For a caller that does not show the error.
pub(super) fn parse_stream_direct(text: &str) -> (Vec<JsonDoc>, Option<JsonError>) {
    if let Some(docs) = super::json_fast::parse(text) {
        return (docs, None);
    }
    parse_stream_serde(text)
}

/// [`parse_stream_direct`] through serde_json's tokens alone (the reference of
/// [`super::json_fast`]).
fn parse_stream_serde(text: &str) -> (Vec<JsonDoc>, Option<JsonError>) {
    stream::<RawDoc>(text, |RawDoc(raw)| raw)
}

/// [`parse_stream`] through `serde_json::Value` (then encoded): the path every error
/// comes from, and the reference the direct path is tested against.
pub(super) fn parse_stream_through_values(text: &str) -> (Vec<JsonDoc>, Option<JsonError>) {
    stream::<StrictValue>(text, |StrictValue(value)| Raw::from_value(&value))
}

/// Reads the values of `text` as `T`, each turned into a [`Raw`] by `raw`.
fn stream<'de, T: de::Deserialize<'de>>(
    text: &'de str,
    raw: impl Fn(T) -> Raw,
) -> (Vec<JsonDoc>, Option<JsonError>) {
    let mut docs = Vec::new();
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<T>();
    loop {
        let from = stream.byte_offset();
        match stream.next() {
            None => return (docs, None),
            Some(Ok(_)) if docs.len() == MAX_VALUES => {
                return (docs, Some(too_many_values(text, from)));
            }
            Some(Ok(value)) => {
                let start = skip_ws(text.as_bytes(), from);
                let end = stream.byte_offset();
                let value = raw(value);
                // Only a list (an array, or an object with an `items` array) has items.
                let view = value.view();
                let listed = view.is_array()
                    || view
                        .as_object()
                        .and_then(|o| o.get("items"))
                        .is_some_and(|i| i.is_array());
                let items = if listed {
                    item_offsets(text.as_bytes(), start)
                } else {
                    Vec::new()
                };
                docs.push(JsonDoc {
                    value,
                    start,
                    end,
                    items,
                });
            }
            Some(Err(e)) => return (docs, Some(json_error(&e, text))),
        }
    }
}

/// One JSON value written straight into the compact encoding, through a builder kept per
/// thread (its buffers keep their capacity from one value to the next).
struct RawDoc(Raw);

impl<'de> de::Deserialize<'de> for RawDoc {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        thread_local! {
            static BUILDER: RefCell<RawBuilder> = RefCell::new(RawBuilder::new());
        }
        let mut b = BUILDER.with(RefCell::take);
        let built = ToRaw(&mut b).deserialize(d).map(|()| b.finish());
        b.clear_and_trim(KEEP_BUILDER_BYTES);
        BUILDER.with(|cell| cell.replace(b));
        match built? {
            Some(raw) => Ok(RawDoc(raw)),
            None => Err(de::Error::custom("incomplete value")),
        }
    }
}

/// Writes the value it is given into the builder.
struct ToRaw<'b>(&'b mut RawBuilder);

impl<'de> DeserializeSeed<'de> for ToRaw<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ToRaw<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<(), E> {
        self.0.bool(v);
        Ok(())
    }
    fn visit_i64<E>(self, v: i64) -> Result<(), E> {
        self.0.number(&Number::from(v));
        Ok(())
    }
    fn visit_u64<E>(self, v: u64) -> Result<(), E> {
        self.0.number(&Number::from(v));
        Ok(())
    }
    fn visit_f64<E>(self, v: f64) -> Result<(), E> {
        match Number::from_f64(v) {
            Some(n) => self.0.number(&n),
            None => self.0.null(),
        }
        Ok(())
    }
    fn visit_str<E>(self, v: &str) -> Result<(), E> {
        self.0.str(v);
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        self.0.null();
        Ok(())
    }
    fn visit_none<E>(self) -> Result<(), E> {
        self.0.null();
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.0.begin_array();
        while seq.next_element_seed(ToRaw(&mut *self.0))?.is_some() {}
        self.0.end_array();
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        self.0.begin_object();
        while map.next_key_seed(KeyToRaw(&mut *self.0))?.is_some() {
            map.next_value_seed(ToRaw(&mut *self.0))?;
        }
        // A repeated key: the caller reads the stream again for the exact error.
        self.0
            .end_object()
            .map_err(|_| de::Error::custom("duplicate field"))
    }
}

/// Writes an object key into the builder.
struct KeyToRaw<'b>(&'b mut RawBuilder);

impl<'de> DeserializeSeed<'de> for KeyToRaw<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeyToRaw<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string key")
    }
    fn visit_str<E>(self, v: &str) -> Result<(), E> {
        self.0.key(v);
        Ok(())
    }
}

/// The error placed at the first value past [`MAX_VALUES`], which starts after `from`.
fn too_many_values(text: &str, from: usize) -> JsonError {
    let start = skip_ws(text.as_bytes(), from);
    let before = &text[..start];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let line = memchr::memchr_iter(b'\n', before.as_bytes()).count() + 1;
    JsonError {
        line: u32::try_from(line).unwrap_or(u32::MAX),
        column: u32::try_from(before[line_start..].chars().count() + 1).unwrap_or(u32::MAX),
        code: "too-many-documents",
        message: format!(
            "more than {MAX_VALUES} JSON values in one file: this one and the rest are not loaded (split the file)"
        ),
    }
}

fn json_error(e: &serde_json::Error, text: &str) -> JsonError {
    let full = e.to_string();
    let message = match full.rfind(" at line ") {
        Some(i) => full[..i].to_owned(),
        None => full,
    };
    let (line, column) = (
        u32::try_from(e.line()).unwrap_or(u32::MAX),
        u32::try_from(e.column()).unwrap_or(u32::MAX),
    );
    let surrogate_error = matches!(
        message.as_str(),
        "unexpected end of hex escape" | "lone leading surrogate in hex escape"
    );
    if surrogate_error {
        if let Some(e) = lone_surrogate(text, e.line(), e.column()) {
            return e;
        }
    }
    JsonError {
        line,
        column,
        code: "json-syntax",
        message: format!("JSON syntax error: {message}"),
    }
}

/// serde_json words a lone UTF-16 surrogate escape (`"\ud800"`) as the end of the escape
/// or a "leading surrogate" even when it trails: name the escape and place the error on it.
/// `line`/`column`: serde_json's 1-based position, just past where it stopped reading.
fn lone_surrogate(text: &str, line: usize, column: usize) -> Option<JsonError> {
    let line_start = if line <= 1 {
        0
    } else {
        memchr::memchr_iter(b'\n', text.as_bytes())
            .nth(line - 2)
            .map(|i| i + 1)?
    };
    let end = (line_start + column).min(text.len());
    // The escape is at most two `\uXXXX` (12 bytes) and a byte before the error.
    let from = end.saturating_sub(14);
    let window = &text.as_bytes()[from..end];
    let escapes: Vec<(usize, u16)> = (0..window.len())
        .filter_map(|i| {
            let hex = window.get(i + 2..i + 6)?;
            if window[i] != b'\\' || window[i + 1] != b'u' {
                return None;
            }
            let code = u16::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?;
            Some((from + i, code))
        })
        .collect();
    let high = |c: u16| (0xD800..0xDC00).contains(&c);
    // serde_json stops after the escape that breaks the pair: a high surrogate right
    // before it is the lone one.
    let (at, code) = match escapes.as_slice() {
        [.., (p, pc), (e, _)] if p + 6 == *e && high(*pc) => (*p, *pc),
        [.., (e, ec)] if (0xD800..=0xDFFF).contains(ec) => (*e, *ec),
        _ => return None,
    };
    let rule = if code < 0xDC00 {
        "a high surrogate \\uD800-\\uDBFF must be followed by a low surrogate \\uDC00-\\uDFFF"
    } else {
        "a low surrogate \\uDC00-\\uDFFF must follow a high surrogate \\uD800-\\uDBFF"
    };
    let col = text[line_start..at].chars().count() + 1;
    Some(JsonError {
        line: u32::try_from(line).unwrap_or(u32::MAX),
        column: u32::try_from(col).unwrap_or(u32::MAX),
        code: "json-syntax",
        message: format!(
            "JSON syntax error: lone UTF-16 surrogate \\u{code:04x} in a string: {rule} (U+{code:04X} is not a character)"
        ),
    })
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
                return Err(de::Error::custom(format!("duplicate field {}", Quoted(&k))));
            }
        }
        Ok(Value::Object(out))
    }
}

/// The first quote or bracket (`"`, `{`, `}`, `[`, `]`) at or after `i`, or the end: eight
/// bytes at a time (pretty-printed JSON is mostly indentation and strings).
fn structural(b: &[u8], i: usize) -> usize {
    swar::first(
        b,
        i,
        |w| {
            let folded = swar::fold_brackets(w);
            swar::eq(w, b'"') | swar::eq(folded, b'{') | swar::eq(folded, b'}')
        },
        |c| matches!(c, b'"' | b'{' | b'}' | b'[' | b']'),
    )
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
            // Nothing inside can be an item: only its end is wanted.
            Some(b'{' | b'[') if as_item.is_none() && as_items.is_none() => self.skip(),
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

    /// Past the object or array at the cursor: brackets counted, strings stepped over.
    fn skip(&mut self) {
        let mut depth = 0usize;
        loop {
            self.i = structural(self.b, self.i);
            match self.b.get(self.i) {
                None => return,
                Some(b'"') => self.string(),
                Some(b'{' | b'[') => {
                    depth += 1;
                    self.i += 1;
                }
                Some(_) => {
                    depth = depth.saturating_sub(1);
                    self.i += 1;
                }
            }
            if depth == 0 {
                return;
            }
        }
    }

    fn string(&mut self) {
        self.i += 1;
        // Most of a JSON text is inside strings: jump from one quote or backslash to the
        // next (SIMD) rather than look at every byte.
        while let Some(k) = self
            .b
            .get(self.i..)
            .and_then(|rest| memchr::memchr2(b'"', b'\\', rest))
        {
            let c = self.b[self.i + k];
            self.i += k + if c == b'\\' { 2 } else { 1 };
            if c == b'"' {
                return;
            }
        }
        self.i = self.i.max(self.b.len());
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
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn stream_of_values() {
        let (docs, err) = parse_stream("{\"a\": 1}\n{\"b\": [1, 2]}\n");
        assert!(err.is_none());
        assert_eq!(docs.len(), 2);
        assert_eq!(docs[1].value.to_value(), json!({"b": [1, 2]}));
        assert_eq!(docs[1].start, 9);
    }

    #[test]
    fn lone_surrogates_are_named() {
        let err = |t: &str| parse_stream(t).1.unwrap();
        for (text, col, code) in [
            ("{\"a\": \"x\\ud800\"}", 9, "d800"),
            ("{\"a\": \"x\\udc00y\"}", 9, "dc00"),
            ("[1,\n \"\\uDBFF\\u0041\"]", 3, "dbff"),
            ("\"\\ud83d\\ud83d\\ude00\"", 2, "d83d"),
        ] {
            let e = err(text);
            assert_eq!(e.column, col, "{text}: {e:?}");
            assert!(
                e.message.starts_with(&format!(
                    "JSON syntax error: lone UTF-16 surrogate \\u{code} in a string: "
                )),
                "{text}: {}",
                e.message
            );
        }
        assert_eq!(err("[1,\n \"\\uDBFF\\u0041\"]").line, 2);
        // A pair is a character; a short escape keeps serde_json's wording.
        assert!(parse_stream("\"\\ud83d\\ude00\"").1.is_none());
        assert!(!err("\"\\u12\"").message.contains("surrogate"));
    }

    #[test]
    fn duplicate_field() {
        let (docs, err) = parse_stream("{\"a\": 1,\n \"a\": 2}");
        assert!(docs.is_empty());
        let e = err.unwrap();
        assert_eq!(e.message, "JSON syntax error: duplicate field \"a\"");
        assert_eq!(e.line, 2);
    }

    /// The repeated key is placed where it was read, not where its object closes (the
    /// direct path finds it only there; the error comes from the `Value` path).
    #[test]
    fn duplicate_field_is_placed_at_the_repeated_key() {
        let text = "{\"ok\": 1}\n{\"a\": 1,\n \"a\": 2,\n \"b\": 3,\n \"c\": 4\n}";
        let (docs, err) = parse_stream(text);
        assert_eq!(docs.len(), 1);
        assert_eq!(docs[0].value.to_value(), json!({"ok": 1}));
        let e = err.expect("an error");
        assert_eq!(e.message, "JSON syntax error: duplicate field \"a\"");
        assert_eq!((e.line, e.column), (3, 7));
    }

    #[test]
    fn numbers_strings_and_nesting_as_the_value_path() {
        let text = r#"{"z": -3, "a": 18446744073709551615, "f": 1.5e300, "e": -0.0,
            "s": "tab\tq\"\u00e9\ud83d\ude00", "n": null, "t": true, "l": [[], {}, [1, {"k": false}]]}
            [1, 2] "x" 7"#;
        let (direct, e1) = parse_stream(text);
        let (reference, e2) = parse_stream_through_values(text);
        assert_eq!((e1, e2), (None, None));
        assert_eq!(direct.len(), 4);
        assert_eq!(summary(&direct), summary(&reference));
    }

    /// A document as the two paths are compared: encoded bytes, range, item ranges.
    type Summary = (Vec<u8>, usize, usize, Vec<(ItemPath, usize, usize)>);

    fn summary(docs: &[JsonDoc]) -> Vec<Summary> {
        docs.iter()
            .map(|d| {
                let bytes = d.value.view().inline_encoded();
                (bytes, d.start, d.end, d.items.clone())
            })
            .collect()
    }

    /// A random JSON text: objects with keys drawn from a small set (so keys repeat now and
    /// then), arrays, every scalar kind, random whitespace; sometimes several values, and
    /// sometimes a cut or a stray byte.
    fn json_text() -> impl Strategy<Value = String> {
        let key = prop::sample::select(vec!["a", "b", "items", "kind", "é", "a\\u0062", "z"]);
        let scalar = prop_oneof![
            Just("null".to_owned()),
            Just("true".to_owned()),
            Just("false".to_owned()),
            any::<i64>().prop_map(|n| n.to_string()),
            any::<u64>().prop_map(|n| n.to_string()),
            (-1e6f64..1e6).prop_map(|f| format!("{f:e}")),
            (
                "[a-zé ]{0,4}",
                prop::sample::select(vec!["", "\\n", "\\\"", "\\u00e9", "\\\\", "\\ud83d\\ude00"])
            )
                .prop_map(|(s, esc)| format!("\"{s}{esc}\"")),
        ];
        let ws = prop::sample::select(vec!["", " ", "\n", "\t ", "\r\n"]);
        let value = scalar.prop_recursive(4, 48, 6, move |inner| {
            let ws = ws.clone();
            prop_oneof![
                prop::collection::vec((inner.clone(), ws.clone()), 0..6).prop_map(|v| {
                    let items: Vec<String> =
                        v.into_iter().map(|(x, w)| format!("{w}{x}")).collect();
                    format!("[{}]", items.join(","))
                }),
                prop::collection::vec((key.clone(), inner, ws), 0..6).prop_map(|v| {
                    let entries: Vec<String> = v
                        .into_iter()
                        .map(|(k, x, w)| format!("{w}\"{k}\":{w}{x}"))
                        .collect();
                    format!("{{{}}}", entries.join(","))
                }),
            ]
        });
        (
            prop::collection::vec(value, 1..4),
            prop::option::of((
                any::<prop::sample::Index>(),
                prop::sample::select(vec!["", "}", "]", ",", "x", "\u{0}"]),
            )),
        )
            .prop_map(|(values, edit)| edited(values.join("\n"), edit))
    }

    /// `text` with `with` inserted at the char boundary at or before `at` (of every place
    /// in it), when there is an edit.
    fn edited(mut text: String, edit: Option<(prop::sample::Index, &str)>) -> String {
        if let Some((at, with)) = edit {
            let mut cut = at.index(text.len() + 1);
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            text.insert_str(cut, with);
        }
        text
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// The direct path gives what the `Value` path gives: the same values (byte for
        /// byte), ranges, item ranges and error.
        #[test]
        fn direct_path_equals_the_value_path(text in json_text()) {
            let (direct, e1) = parse_stream(&text);
            let (reference, e2) = parse_stream_through_values(&text);
            prop_assert_eq!(e1, e2);
            prop_assert_eq!(summary(&direct), summary(&reference));
        }
    }

    /// Objects and arrays over every scalar kind, strings with escapes, control characters
    /// and surrogates, integers at the edges of 64 bits, nested `items` lists, pretty or
    /// compact, sometimes with a stray byte: what [`super::super::json_fast`] gives, when
    /// it does not give up, is serde_json's path's.
    fn fast_text() -> impl Strategy<Value = String> {
        let key = prop::sample::select(vec![
            "a",
            "b",
            "items",
            "kind",
            "é",
            "a\\u0062",
            "it\\u0065ms",
            "z",
            "a\\\\b",
        ]);
        let scalar = prop_oneof![
            4 => Just(json!(null)),
            4 => any::<bool>().prop_map(|b| json!(b)),
            4 => any::<i64>().prop_map(|n| json!(n)),
            4 => any::<u64>().prop_map(|n| json!(n)),
            4 => prop::sample::select(vec![0i64, -1, i64::MIN, i64::MAX, 1]).prop_map(|n| json!(n)),
            // Rare: a float makes the fast path give up on the whole text.
            1 => (-1e6f64..1e6).prop_map(|f| json!(f)),
            8 => "[a-zé\\\\\"/\u{0}-\u{1f}\u{7f}\u{2028}😀 ]{0,6}".prop_map(|s| json!(s)),
        ];
        let value = scalar.prop_recursive(5, 64, 6, move |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
                prop::collection::vec(("[a-z]{1,3}|items|kind", inner), 0..5)
                    .prop_map(|v| Value::Object(v.into_iter().collect())),
            ]
        });
        let top = prop_oneof![
            prop::collection::vec(value.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec(("[a-z]{1,3}|items|kind", value), 0..5)
                .prop_map(|v| Value::Object(v.into_iter().collect())),
        ];
        (
            prop::collection::vec((top, any::<bool>(), key), 1..4),
            prop::sample::select(vec!["", " ", "\n", "\r\n\t", "\u{c}"]),
            prop::option::of((
                any::<prop::sample::Index>(),
                prop::sample::select(vec![
                    "",
                    "}",
                    "]",
                    ",",
                    "x",
                    "\u{0}",
                    "-0",
                    "1.5",
                    "01",
                    "\"",
                    "\\u",
                    "\\ud800",
                    "1e3",
                    " ",
                    "\"items\":[1],",
                    "[",
                    "{}",
                    "\\q",
                ]),
            )),
        )
            .prop_map(|(values, sep, edit)| {
                let texts: Vec<String> = values
                    .into_iter()
                    .map(|(v, pretty, key)| {
                        // An escaped key now and then, as written.
                        let t = if pretty {
                            serde_json::to_string_pretty(&v).unwrap_or_default()
                        } else {
                            serde_json::to_string(&v).unwrap_or_default()
                        };
                        t.replacen("\"kind\"", &format!("\"{key}\""), 1)
                    })
                    .collect();
                edited(texts.join(sep), edit)
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        #[test]
        fn fast_path_equals_serde_path(text in fast_text()) {
            if let Some(fast) = super::super::json_fast::parse(&text) {
                let (reference, err) = parse_stream_serde(&text);
                prop_assert_eq!(err, None);
                prop_assert_eq!(summary(&fast), summary(&reference));
            }
        }

        /// The same over the texts of `direct_path_equals_the_value_path`.
        #[test]
        fn fast_path_equals_serde_path_on_edited_streams(text in json_text()) {
            if let Some(fast) = super::super::json_fast::parse(&text) {
                let (reference, err) = parse_stream_serde(&text);
                prop_assert_eq!(err, None);
                prop_assert_eq!(summary(&fast), summary(&reference));
            }
        }
    }

    /// The fast path takes pretty and compact lists, escapes and integers (the proptests
    /// above would pass vacuously if it gave up on everything).
    #[test]
    fn fast_path_takes_the_common_stream() {
        let text = "{\"kind\": \"List\", \"items\": [{\"a\": \"x\\n\\u00e9\", \"n\": -5},\n {\"b\": [1, true, null, 18446744073709551615]}]}\n[{}, []]";
        let fast = super::super::json_fast::parse(text).expect("taken");
        let (reference, err) = parse_stream_serde(text);
        assert_eq!(err, None);
        assert_eq!(summary(&fast), summary(&reference));
        assert_eq!(fast[0].items.len(), 2);
        for declined in [
            "{\"a\": 1.5}",
            "{\"a\": -0}",
            "{\"a\": \"\\ud83d\\ude00\"}",
            "7",
            "{\"a\": 1, \"a\": 2}",
        ] {
            assert!(
                super::super::json_fast::parse(declined).is_none(),
                "{declined}"
            );
        }
    }

    /// Where a string starting at `i` (its opening quote) ends, a byte at a time: what
    /// [`Scan::string`] computes with its jumps.
    fn string_end_bytewise(b: &[u8], mut i: usize) -> usize {
        i += 1;
        while let Some(&c) = b.get(i) {
            i += if c == b'\\' { 2 } else { 1 };
            if c == b'"' {
                return i;
            }
        }
        i
    }

    proptest! {
        /// Jumping between quotes and backslashes ends a string where reading every byte
        /// does, escapes, unterminated strings and a backslash at the very end included.
        #[test]
        fn string_scan_equals_the_bytewise_scan(
            body in proptest::collection::vec(
                prop_oneof![Just(b'"'), Just(b'\\'), Just(b'a'), Just(b' '), any::<u8>()],
                0..64,
            ),
        ) {
            let mut text = vec![b'"'];
            text.extend(body);
            let mut scan = Scan { b: &text, i: 0, out: Vec::new() };
            scan.string();
            prop_assert_eq!(scan.i, string_end_bytewise(&text, 0));
        }
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
