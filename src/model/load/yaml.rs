//! One YAML document → `serde_json::Value`, built straight from saphyr-parser's event stream.
//!
//! Building the JSON value ourselves (instead of a YAML tree converted afterwards) gives, in
//! one pass and without recursion: positions of the root and of list items, duplicate-key
//! detection, a bound on alias expansion ("billion laughs") and a bound on nesting depth
//! that is checked before any recursive code (`Drop`, serializers) could see the value.
//! Duplicate keys are detected for free by `Map::insert`; only when one is found is the
//! document parsed a second time, remembering every key's line, to name both lines.

use std::borrow::Cow;
use std::collections::HashMap;

use saphyr_parser::{Event, Marker, Parser, ScalarStyle, ScanError, Tag};
use serde_json::{Map, Value};

use super::scalar;
use crate::gocompat::quote::Quoted;

/// Deeper nesting is refused. Kubernetes objects (CRD schemas included) stay far below.
pub(super) const MAX_DEPTH: usize = 500;

/// Alias expansion budget per document, in nodes plus string bytes / 32.
pub(super) const MAX_ALIAS_WEIGHT: usize = 500_000;

/// Output budget of a document's alias expansions: what copying the aliased values would add
/// to `-o json` (an indented line per node, so a nested value costs its depth squared: a
/// chain of 900 aliases, each nesting the one before, stays under [`MAX_ALIAS_WEIGHT`] but
/// prints 1 GB). Real documents alias a few small blocks and stay far below.
pub(super) const MAX_ALIAS_BYTES: usize = 32 << 20;

/// Bytes of indented output estimated per node and level of nesting.
const BYTES_PER_LEVEL: usize = 8;

/// Indices through `items` arrays (or a top-level array) leading to a list item.
pub(super) type ItemPath = Vec<u32>;

/// A parsed document.
#[derive(Debug)]
pub(super) struct Parsed {
    pub value: Value,
    /// Where the root node starts (relative to the document text).
    pub root: Marker,
    /// Start and end of every list item, in document order.
    pub items: Vec<(ItemPath, Marker, Marker)>,
}

/// A problem in one document, with its absolute 1-based line and column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct YamlError {
    pub line: u32,
    pub column: u32,
    pub code: &'static str,
    pub message: String,
}

/// The first character go-yaml's reader refuses ("control characters are not allowed"),
/// with its byte offset: all but tab, LF, CR, U+0020..U+007E, NEL (U+0085),
/// U+00A0..U+D7FF, U+E000..U+FFFD and U+10000 up. kubectl fails such a document.
pub(super) fn control_character(text: &str) -> Option<(usize, char)> {
    text.char_indices().find(|&(_, c)| {
        !matches!(c,
            '\t' | '\n' | '\r' | '\u{20}'..='\u{7e}' | '\u{85}' | '\u{a0}'..='\u{d7ff}'
            | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
    })
}

/// [`control_character`] as the error kubectl reports, placed at the character.
fn control_character_error(text: &str, first_line: u32) -> Option<YamlError> {
    let (at, c) = control_character(text)?;
    let before = &text[..at];
    let lines = memchr::memchr_iter(b'\n', before.as_bytes()).count();
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    Some(YamlError {
        line: first_line.saturating_add(u32::try_from(lines).unwrap_or(u32::MAX)),
        column: u32::try_from(column).unwrap_or(u32::MAX),
        code: "yaml-syntax",
        message: format!(
            "YAML syntax error: control characters are not allowed (U+{:04X})",
            u32::from(c)
        ),
    })
}

/// Parses one document; `first_line` is the 1-based line of `text` in its file.
/// `Ok(None)` for an empty, null or comment-only document.
pub(super) fn parse(text: &str, first_line: u32) -> Result<Option<Parsed>, Vec<YamlError>> {
    if let Some(e) = control_character_error(text, first_line) {
        return Err(vec![e]);
    }
    match Builder::new(first_line, false).run(text) {
        Err(Stop::DuplicateKey) => match Builder::new(first_line, true).run(text) {
            Err(Stop::Errors(errs)) => Err(errs),
            // Unreachable in practice: the tracking pass reports what the fast pass saw.
            _ => Err(vec![YamlError {
                line: first_line,
                column: 1,
                code: "duplicate-key",
                message: "duplicate mapping key".to_owned(),
            }]),
        },
        Err(Stop::Errors(errs)) => Err(errs),
        Ok(parsed) => Ok(parsed),
    }
}

enum Stop {
    /// Fast pass only: a duplicate key was seen; rerun remembering key lines.
    DuplicateKey,
    Errors(Vec<YamlError>),
}

enum Key {
    Name(String),
    /// `<<`: the value's keys are merged under the explicit ones.
    Merge,
}

enum Kind {
    Seq(Vec<Value>),
    Map {
        map: Map<String, Value>,
        key: Option<(Key, Marker)>,
        merged: Map<String, Value>,
        /// Line of every key, only in the tracking pass.
        seen: Option<HashMap<String, Marker>>,
    },
}

struct Frame {
    kind: Kind,
    anchor: usize,
    start: Marker,
    /// For a sequence: the item path prefix if it is a list's `items` (or the root);
    /// for a mapping: its own item path if it is a list item (or the root).
    path: Option<ItemPath>,
}

/// What copying an anchored value costs (see [`weight`]).
#[derive(Clone, Copy, Default)]
pub(super) struct Weight {
    /// Nodes plus string bytes / 32: the [`MAX_ALIAS_WEIGHT`] measure.
    pub nodes: usize,
    /// Nodes alone.
    count: usize,
    /// Sum of every node's depth inside the value.
    depth_sum: usize,
    /// Bytes of strings, keys included.
    string_bytes: usize,
}

impl Weight {
    /// Estimated output bytes of a copy inserted `depth` collections deep.
    pub(super) fn output_bytes(&self, depth: usize) -> usize {
        let levels = self
            .count
            .saturating_mul(depth.saturating_add(1))
            .saturating_add(self.depth_sum);
        levels
            .saturating_mul(BYTES_PER_LEVEL)
            .saturating_add(self.string_bytes)
    }
}

struct Builder {
    stack: Vec<Frame>,
    anchors: HashMap<usize, (Value, Weight)>,
    alias_weight: usize,
    alias_bytes: usize,
    line_base: u32,
    track_keys: bool,
    items: Vec<(ItemPath, Marker, Marker)>,
    root: Option<(Value, Marker)>,
    errors: Vec<YamlError>,
    /// Tracking pass: keys of the root mapping set again, with the line of their first
    /// setting and the error each would be on its own (see [`glued`]).
    root_repeats: Vec<(String, u32, YamlError)>,
}

impl Builder {
    fn new(first_line: u32, track_keys: bool) -> Builder {
        Builder {
            stack: Vec::new(),
            anchors: HashMap::new(),
            alias_weight: 0,
            alias_bytes: 0,
            line_base: first_line.saturating_sub(1),
            track_keys,
            items: Vec::new(),
            root: None,
            errors: Vec::new(),
            root_repeats: Vec::new(),
        }
    }

    fn run(mut self, text: &str) -> Result<Option<Parsed>, Stop> {
        let mut parser = Parser::new_from_str(text);
        while let Some(next) = parser.next_event() {
            let (event, span) = next.map_err(|e| self.stop_scan(&e))?;
            if self.root.is_some() && self.stack.is_empty() && is_node_start(&event) {
                // A second document in one piece cannot happen with `split`; ignore it.
                break;
            }
            self.event(event, span.start, span.end)?;
        }
        match glued(&self.root_repeats) {
            Some(e) => self.errors.push(e),
            None => self
                .errors
                .extend(self.root_repeats.drain(..).map(|(_, _, e)| e)),
        }
        if !self.errors.is_empty() {
            return Err(Stop::Errors(self.errors));
        }
        Ok(self.root.and_then(|(value, root)| {
            (!value.is_null()).then_some(Parsed {
                value,
                root,
                items: self.items,
            })
        }))
    }

    fn event(&mut self, event: Event<'_>, start: Marker, end: Marker) -> Result<(), Stop> {
        match event {
            Event::Scalar(text, style, anchor, tag) => {
                if self.expects_key() {
                    let key = self.scalar_key(text, style, start)?;
                    self.set_key(key, start);
                    Ok(())
                } else {
                    let v = scalar_value(text, style, tag.as_deref())
                        .map_err(|m| self.stop(start, "yaml-value", m))?;
                    self.complete(v, anchor, start, end)
                }
            }
            Event::SequenceStart(anchor, _) => self.open(Kind::Seq(Vec::new()), anchor, start),
            Event::MappingStart(anchor, _) => {
                let map = Kind::Map {
                    map: Map::new(),
                    key: None,
                    merged: Map::new(),
                    seen: self.track_keys.then(HashMap::new),
                };
                self.open(map, anchor, start)
            }
            Event::SequenceEnd | Event::MappingEnd => self.close(end),
            Event::Alias(id) => self.alias(id, start, end),
            _ => Ok(()),
        }
    }

    fn expects_key(&self) -> bool {
        matches!(
            self.stack.last(),
            Some(Frame {
                kind: Kind::Map { key: None, .. },
                ..
            })
        )
    }

    fn scalar_key(&self, text: Cow<'_, str>, style: ScalarStyle, at: Marker) -> Result<Key, Stop> {
        if style != ScalarStyle::Plain {
            return Ok(Key::Name(text.into_owned()));
        }
        if text == "<<" {
            return Ok(Key::Merge);
        }
        scalar::key_string(&text)
            .map(Key::Name)
            .map_err(|m| self.stop(at, "yaml-key", m))
    }

    fn set_key(&mut self, key: Key, at: Marker) {
        if let Some(Frame {
            kind: Kind::Map { key: slot, .. },
            ..
        }) = self.stack.last_mut()
        {
            *slot = Some((key, at));
        }
    }

    fn open(&mut self, kind: Kind, anchor: usize, start: Marker) -> Result<(), Stop> {
        if self.expects_key() {
            return Err(self.stop(
                start,
                "yaml-key",
                "unsupported map key: a mapping or sequence used as a key".to_owned(),
            ));
        }
        if self.stack.len() >= MAX_DEPTH {
            return Err(self.stop(
                start,
                "too-deep",
                format!("nesting deeper than {MAX_DEPTH} levels: refused"),
            ));
        }
        let is_seq = matches!(kind, Kind::Seq(_));
        let path = match self.stack.last() {
            None => Some(Vec::new()),
            Some(parent) => child_path(parent, is_seq),
        };
        self.stack.push(Frame {
            kind,
            anchor,
            start,
            path,
        });
        Ok(())
    }

    fn close(&mut self, end: Marker) -> Result<(), Stop> {
        let Some(frame) = self.stack.pop() else {
            return Ok(());
        };
        let value = match frame.kind {
            Kind::Seq(items) => Value::Array(items),
            Kind::Map {
                mut map, merged, ..
            } => {
                for (k, v) in merged {
                    map.entry(k).or_insert(v);
                }
                Value::Object(map)
            }
        };
        self.complete(value, frame.anchor, frame.start, end)
    }

    fn alias(&mut self, id: usize, start: Marker, end: Marker) -> Result<(), Stop> {
        let Some((value, weight)) = self.anchors.get(&id) else {
            return Err(self.stop(
                start,
                "yaml-syntax",
                "alias to an unknown anchor".to_owned(),
            ));
        };
        self.alias_weight = self.alias_weight.saturating_add(weight.nodes);
        self.alias_bytes = self
            .alias_bytes
            .saturating_add(weight.output_bytes(self.stack.len()));
        if self.alias_weight > MAX_ALIAS_WEIGHT {
            return Err(self.stop(
                start,
                "alias-bomb",
                format!(
                    "document contains excessive aliasing: expanding its aliases would build more than {MAX_ALIAS_WEIGHT} nodes (YAML \"billion laughs\"?): refused"
                ),
            ));
        }
        if self.alias_bytes > MAX_ALIAS_BYTES {
            return Err(self.stop(
                start,
                "alias-bomb",
                format!(
                    "document contains excessive aliasing: expanding its aliases would write more than {} MiB (nested values copied into each other; YAML \"billion laughs\"?): refused",
                    MAX_ALIAS_BYTES >> 20
                ),
            ));
        }
        let value = value.clone();
        if self.expects_key() {
            let key = match value {
                Value::String(s) => s,
                Value::Bool(_) | Value::Number(_) => value.to_string(),
                _ => {
                    return Err(self.stop(
                        start,
                        "yaml-key",
                        "unsupported map key: an alias to a non-scalar".to_owned(),
                    ))
                }
            };
            self.set_key(Key::Name(key), start);
            return Ok(());
        }
        self.complete(value, 0, start, end)
    }

    /// A node is finished: store it under its anchor and hand it to its parent.
    fn complete(
        &mut self,
        value: Value,
        anchor: usize,
        start: Marker,
        end: Marker,
    ) -> Result<(), Stop> {
        if anchor != 0 {
            self.anchors.insert(anchor, (value.clone(), weight(&value)));
        }
        let line_base = self.line_base;
        let at_root = self.stack.len() == 1;
        let Some(frame) = self.stack.last_mut() else {
            self.root = Some((value, start));
            return Ok(());
        };
        match &mut frame.kind {
            Kind::Seq(items) => {
                if let Some(prefix) = &frame.path {
                    let mut path = prefix.clone();
                    path.push(u32::try_from(items.len()).unwrap_or(u32::MAX));
                    self.items.push((path, start, end));
                }
                items.push(value);
                Ok(())
            }
            Kind::Map {
                map,
                key,
                merged,
                seen,
            } => match key.take() {
                Some((Key::Merge, at)) => {
                    merge_into(merged, value).map_err(|m| stop_at(line_base, at, "yaml-merge", m))
                }
                Some((Key::Name(k), at)) => {
                    if let Some(seen) = seen {
                        match seen.get(&k) {
                            Some(&first) if at_root => {
                                let e = duplicate(line_base, &k, first, at);
                                let (first_line, _) = line_col(line_base, first);
                                self.root_repeats.push((k.clone(), first_line, e));
                            }
                            Some(&first) => self.errors.push(duplicate(line_base, &k, first, at)),
                            None => {
                                seen.insert(k.clone(), at);
                            }
                        }
                        map.insert(k, value);
                        Ok(())
                    } else if map.insert(k, value).is_some() {
                        Err(Stop::DuplicateKey)
                    } else {
                        Ok(())
                    }
                }
                None => Ok(()),
            },
        }
    }

    fn stop(&self, at: Marker, code: &'static str, message: String) -> Stop {
        stop_at(self.line_base, at, code, message)
    }

    fn stop_scan(&self, e: &ScanError) -> Stop {
        self.stop(
            *e.marker(),
            "yaml-syntax",
            format!("YAML syntax error: {}", e.info()),
        )
    }
}

fn line_col(line_base: u32, at: Marker) -> (u32, u32) {
    let line = u32::try_from(at.line()).unwrap_or(u32::MAX);
    let col = u32::try_from(at.col()).unwrap_or(u32::MAX);
    (line_base.saturating_add(line), col.saturating_add(1))
}

fn stop_at(line_base: u32, at: Marker, code: &'static str, message: String) -> Stop {
    let (line, column) = line_col(line_base, at);
    Stop::Errors(vec![YamlError {
        line,
        column,
        code,
        message,
    }])
}

fn duplicate(line_base: u32, key: &str, first: Marker, again: Marker) -> YamlError {
    let (first_line, _) = line_col(line_base, first);
    let (line, column) = line_col(line_base, again);
    YamlError {
        line,
        column,
        code: "duplicate-key",
        message: format!(
            "duplicate mapping key {key}: already set at line {first_line} (the API server's strict decoding rejects this: key {key} already set in map)",
            key = Quoted(key)
        ),
    }
}

/// One error for a root mapping that sets `apiVersion` and `kind` again: that is several
/// objects run together because the `---` lines between them are missing (glued `List`s,
/// say), and one message per repeated key would bury that. `None` otherwise.
fn glued(repeats: &[(String, u32, YamlError)]) -> Option<YamlError> {
    if !repeats.iter().any(|(k, _, _)| k == "kind") {
        return None;
    }
    let again: Vec<&YamlError> = repeats
        .iter()
        .filter(|(k, _, _)| k == "apiVersion")
        .map(|(_, _, e)| e)
        .collect();
    let (_, first_line, _) = repeats.iter().find(|(k, _, _)| k == "apiVersion")?;
    let lines: Vec<String> = again.iter().map(|e| e.line.to_string()).collect();
    let lines = match lines.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("lines {} and {last}", rest.join(", ")),
        _ => format!("line {}", lines.join("")),
    };
    Some(YamlError {
        line: again[0].line,
        column: again[0].column,
        code: "missing-separator",
        message: format!(
            "\"apiVersion\" is set again at {lines} (first at line {first_line}): {} objects run together in one YAML document; the \"---\" separator lines between them are probably missing (the API server's strict decoding rejects this: key \"apiVersion\" already set in map)",
            again.len() + 1
        ),
    })
}

fn is_node_start(e: &Event<'_>) -> bool {
    matches!(
        e,
        Event::Scalar(..) | Event::SequenceStart(..) | Event::MappingStart(..) | Event::Alias(_)
    )
}

/// Item path of a new collection under `parent` (see [`Frame::path`]).
fn child_path(parent: &Frame, is_seq: bool) -> Option<ItemPath> {
    let prefix = parent.path.as_ref()?;
    match (&parent.kind, is_seq) {
        (Kind::Seq(items), false) => {
            let mut p = prefix.clone();
            p.push(u32::try_from(items.len()).unwrap_or(u32::MAX));
            Some(p)
        }
        (
            Kind::Map {
                key: Some((Key::Name(k), _)),
                ..
            },
            true,
        ) if k == "items" => Some(prefix.clone()),
        _ => None,
    }
}

fn is_core(tag: &Tag, suffix: &str) -> bool {
    (tag.is_yaml_core_schema() || tag.handle == "!!") && tag.suffix == suffix
}

fn scalar_value(
    text: Cow<'_, str>,
    style: ScalarStyle,
    tag: Option<&Tag>,
) -> Result<Value, String> {
    let forced_str = tag.is_some_and(|t| is_core(t, "str") || is_core(t, "binary"));
    if style != ScalarStyle::Plain || forced_str {
        return Ok(Value::String(text.into_owned()));
    }
    match scalar::resolve(&text) {
        scalar::Plain::Str => Ok(Value::String(text.into_owned())),
        p => scalar::to_json(p, &text),
    }
}

/// `<<: *base` or `<<: [*a, *b]`: keys not yet merged are taken (earlier sources win;
/// explicit keys win over all, applied when the mapping closes).
pub(super) fn merge_into(merged: &mut Map<String, Value>, value: Value) -> Result<(), String> {
    let sources = match value {
        Value::Object(m) => vec![m],
        Value::Array(items) => items
            .into_iter()
            .map(|v| match v {
                Value::Object(m) => Ok(m),
                _ => Err(()),
            })
            .collect::<Result<_, _>>()
            .map_err(|()| "map merge requires map or sequence of maps as the value".to_owned())?,
        _ => return Err("map merge requires map or sequence of maps as the value".to_owned()),
    };
    for source in sources {
        for (k, v) in source {
            merged.entry(k).or_insert(v);
        }
    }
    Ok(())
}

/// Alias-expansion cost of a value (iterative: values may be nested up to [`MAX_DEPTH`]).
pub(super) fn weight(v: &Value) -> Weight {
    let mut w = Weight::default();
    let mut todo = vec![(v, 0usize)];
    while let Some((v, depth)) = todo.pop() {
        w.count += 1;
        w.depth_sum = w.depth_sum.saturating_add(depth);
        let mut strings = 0;
        match v {
            Value::String(s) => strings = s.len(),
            Value::Array(a) => todo.extend(a.iter().map(|v| (v, depth + 1))),
            Value::Object(m) => {
                for (k, v) in m {
                    strings += k.len();
                    w.nodes = w.nodes.saturating_add(k.len() / 32);
                    todo.push((v, depth + 1));
                }
            }
            _ => {}
        }
        w.nodes = w.nodes.saturating_add(1);
        if let Value::String(s) = v {
            w.nodes = w.nodes.saturating_add(s.len() / 32);
        }
        w.string_bytes = w.string_bytes.saturating_add(strings);
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn value(text: &str) -> Value {
        parse(text, 1).unwrap().unwrap().value
    }

    fn err(text: &str) -> YamlError {
        parse(text, 1).unwrap_err().remove(0)
    }

    #[test]
    fn builds_json() {
        let v = value("a: 1\nb: [x, 'y', \"1.0\"]\nc: {d: ~, e: yes}\nf: |\n  hi\n");
        assert_eq!(
            v,
            json!({"a": 1, "b": ["x", "y", "1.0"], "c": {"d": null, "e": true}, "f": "hi\n"})
        );
    }

    #[test]
    fn empty_documents() {
        assert!(parse("", 1).unwrap().is_none());
        assert!(parse("# only\n", 1).unwrap().is_none());
        assert!(parse("---\n", 1).unwrap().is_none());
        assert!(parse("--- null\n", 1).unwrap().is_none());
    }

    #[test]
    fn objects_run_together_are_one_error_about_the_separators() {
        let list = |name: &str| {
            format!("apiVersion: v1\nkind: List\nitems:\n- {{apiVersion: v1, kind: ConfigMap, metadata: {{name: {name}}}}}\n")
        };
        let text = format!("{}{}{}", list("a"), list("b"), list("c"));
        let errs = parse(&text, 1).unwrap_err();
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert_eq!(
            (errs[0].line, errs[0].column, errs[0].code),
            (5, 1, "missing-separator")
        );
        assert_eq!(
            errs[0].message,
            "\"apiVersion\" is set again at lines 5 and 9 (first at line 1): 3 objects run together in one YAML document; the \"---\" separator lines between them are probably missing (the API server's strict decoding rejects this: key \"apiVersion\" already set in map)"
        );
        // One object that repeats a top-level key is a plain duplicate.
        let errs = parse("apiVersion: v1\nkind: ConfigMap\napiVersion: v2\n", 1).unwrap_err();
        assert_eq!(errs.len(), 1);
        assert_eq!(errs[0].code, "duplicate-key");
        let errs = parse("kind: A\ndata: 1\ndata: 2\nkind: B\n", 1).unwrap_err();
        assert_eq!(
            errs.iter().map(|e| e.code).collect::<Vec<_>>(),
            ["duplicate-key"; 2]
        );
    }

    #[test]
    fn duplicate_key_names_both_lines() {
        let e = err("a: 1\nb:\n  c: 1\n  c: 2\n");
        assert_eq!((e.line, e.column, e.code), (4, 3, "duplicate-key"));
        assert!(
            e.message
                .starts_with("duplicate mapping key \"c\": already set at line 3"),
            "{}",
            e.message
        );
        let e = parse("x: 1\n", 10)
            .map(|_| ())
            .and(parse("a: 1\na: 2\n", 10).map(|_| ()));
        assert_eq!(e.unwrap_err()[0].line, 11);
    }

    #[test]
    fn merge_keys() {
        let v = value("base: &b {a: 1, b: 2}\nx:\n  <<: *b\n  b: 3\n");
        assert_eq!(v["x"], json!({"a": 1, "b": 3}));
    }

    #[test]
    fn tags() {
        assert_eq!(
            value("a: !!str 123\nb: !custom 5\n"),
            json!({"a": "123", "b": 5})
        );
    }

    #[test]
    fn alias_bomb_is_refused() {
        let mut t = String::from("a: &a [x,x,x,x,x,x,x,x,x,x]\n");
        for i in 1..9 {
            t.push_str(&format!(
                "{}: &{} [*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p}]\n",
                (b'a' + i) as char,
                (b'a' + i) as char,
                p = (b'a' + i - 1) as char
            ));
        }
        let e = err(&t);
        assert_eq!(e.code, "alias-bomb");
        assert!(e.message.contains("excessive aliasing"));
    }

    /// Each level nests the one before: few nodes, but the printed expansion grows with
    /// the cube of the chain's length.
    fn alias_chain(levels: usize) -> String {
        let mut t = String::from("l0: &l0 x\n");
        for i in 1..levels {
            t.push_str(&format!("l{i}: &l{i} [*l{}]\n", i - 1));
        }
        t
    }

    #[test]
    fn nested_alias_chain_is_refused_by_its_output() {
        let e = err(&alias_chain(900));
        assert_eq!(e.code, "alias-bomb");
        assert!(
            e.message.contains("would write more than 32 MiB"),
            "{}",
            e.message
        );
        assert!(e.line > 200 && e.line < 900, "{}", e.line);
        // Within the node budget: only the output bound stops it.
        let nodes: usize = (1..900).sum();
        assert!(nodes < MAX_ALIAS_WEIGHT);
        assert!(parse(&alias_chain(100), 1).is_ok());
    }

    #[test]
    fn ordinary_aliases_pass() {
        let mut t =
            String::from("base: &b {cpu: 100m, memory: 128Mi, env: [{name: A, value: '1'}]}\n");
        t.push_str("spec:\n  template:\n    spec:\n      containers:\n");
        for i in 0..200 {
            t.push_str(&format!("      - name: c{i}\n        resources: *b\n"));
        }
        assert!(parse(&t, 1).is_ok());
    }

    #[test]
    fn control_characters_as_go_yaml_reads_them() {
        for ok in [
            '\t',
            '\n',
            '\r',
            ' ',
            '~',
            '\u{85}',
            '\u{a0}',
            '\u{d7ff}',
            '\u{e000}',
            '\u{feff}',
            '\u{fffd}',
            '\u{10000}',
            '\u{10ffff}',
        ] {
            assert_eq!(control_character(&format!("a{ok}")), None, "{ok:?}");
        }
        for bad in [
            '\0', '\x01', '\x0b', '\x0c', '\x1f', '\x7f', '\u{80}', '\u{84}', '\u{86}', '\u{9f}',
            '\u{fffe}', '\u{ffff}',
        ] {
            assert_eq!(
                control_character(&format!("é{bad}")),
                Some((2, bad)),
                "{bad:?}"
            );
        }
        let e = err("a: 1\n# ok\nb: \"x\x1by\"\n");
        assert_eq!((e.line, e.column, e.code), (3, 6, "yaml-syntax"));
        assert_eq!(
            e.message,
            "YAML syntax error: control characters are not allowed (U+001B)"
        );
    }

    #[test]
    fn deep_nesting_is_refused() {
        let t = "- ".repeat(100_000) + "x\n";
        let e = err(&t);
        assert_eq!(e.code, "too-deep");
        let t = "[".repeat(100_000);
        assert!(parse(&t, 1).is_err());
    }

    #[test]
    fn item_positions() {
        let p = parse(
            "kind: List\nitems:\n- a: 1\n- kind: List\n  items:\n  - b: 2\n",
            1,
        )
        .unwrap()
        .unwrap();
        let lines: Vec<_> = p
            .items
            .iter()
            .map(|(path, s, _)| (path.clone(), s.line()))
            .collect();
        assert_eq!(lines, vec![(vec![0], 3), (vec![1, 0], 6), (vec![1], 4)]);
    }

    #[test]
    fn syntax_error_position() {
        let e = err("a: 1\nb: [1, 2\n");
        assert_eq!(e.code, "yaml-syntax");
        assert!(e.line >= 2);
    }
}
