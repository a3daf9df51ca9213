//! [`RawBuilder`]: writes a [`Raw`] value by value, in document order, so a parser can
//! produce the compact encoding without building a `serde_json::Value` first.
//!
//! The bytes are identical to [`Raw::from_value`] of the value the same calls describe:
//! object entries are sorted by key bytes (as serde_json's `BTreeMap` keeps them) when the
//! object is closed, and a repeated key makes [`RawBuilder::end_object`] fail, as a map
//! insert that replaces a value would tell.
//!
//! Every container reserves [`RESERVE`] bytes for its header (tag, body length, count) when it
//! opens; most containers that matter for speed (body of 128 B to 16 KB, fewer than 128
//! entries) need exactly that many, so closing them writes the header in place and moves
//! nothing. Other containers shift their body once; an object whose keys came unsorted is
//! copied once in sorted order.

use std::sync::Arc;

use serde_json::Value;

use super::super::keys;
use super::{
    measure, put_varint, varint_len, write, write_number, write_shared_id, write_shared_str, Raw,
    ARRAY, FALSE, NULL, OBJECT, TRUE,
};

/// Header bytes reserved when a container opens: tag, 2-byte body length, 1-byte count.
const RESERVE: usize = 4;

/// An open container.
struct Frame {
    /// Offset of its reserved header.
    head: usize,
    /// Items (arrays) or keys (objects) so far.
    count: usize,
    /// For objects: index of its first entry in `RawBuilder::entries`.
    entries_from: usize,
    is_object: bool,
}

/// One key of an open object.
#[derive(Clone, Copy)]
struct Entry {
    /// Where the entry (its key) starts in the buffer.
    start: usize,
    key: EntryKey,
}

/// The text of an entry's key, to sort by.
#[derive(Clone, Copy)]
enum EntryKey {
    /// A key of the key table.
    Shared(&'static str),
    /// An inline key: its bytes' range in the buffer.
    Inline { start: usize, end: usize },
}

impl EntryKey {
    fn bytes(self, buf: &[u8]) -> &[u8] {
        match self {
            EntryKey::Shared(s) => s.as_bytes(),
            EntryKey::Inline { start, end } => buf.get(start..end).unwrap_or_default(),
        }
    }
}

/// Why a value could not be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BuildError {
    /// An object has this key twice.
    DuplicateKey(String),
}

/// Writes one value in the compact encoding; see the module doc. Reusable: [`Self::finish`]
/// and [`Self::clear`] keep the buffers' capacity.
#[derive(Default)]
pub struct RawBuilder {
    buf: Vec<u8>,
    frames: Vec<Frame>,
    entries: Vec<Entry>,
    /// Entries of an object being put in order (with where each ends); its reordered copy.
    order: Vec<(Entry, usize)>,
    sorted: Vec<u8>,
    /// Values written outside any container.
    roots: usize,
}

impl RawBuilder {
    pub fn new() -> RawBuilder {
        RawBuilder::default()
    }

    /// Forgets everything written (after an abandoned value).
    pub fn clear(&mut self) {
        self.buf.clear();
        self.frames.clear();
        self.entries.clear();
        self.roots = 0;
    }

    /// Clears, and gives back buffers grown past `max_bytes` (after one huge document, a
    /// builder kept for reuse should not hold its size forever).
    pub fn clear_and_trim(&mut self, max_bytes: usize) {
        self.clear();
        if self.buf.capacity() > max_bytes || self.sorted.capacity() > max_bytes {
            *self = RawBuilder::new();
        }
    }

    /// Counts a value starting in the current container.
    fn started(&mut self) {
        match self.frames.last_mut() {
            Some(f) if !f.is_object => f.count += 1,
            Some(_) => {}
            None => self.roots += 1,
        }
    }

    pub fn null(&mut self) {
        self.started();
        self.buf.push(NULL);
    }

    pub fn bool(&mut self, b: bool) {
        self.started();
        self.buf.push(if b { TRUE } else { FALSE });
    }

    pub fn str(&mut self, s: &str) {
        self.str_shared(s);
    }

    /// [`Self::str`], telling the id of the table of repeated values it was written with
    /// (`None`: inline).
    pub fn str_shared(&mut self, s: &str) -> Option<u32> {
        self.started();
        write_shared_str(s, &mut self.buf)
    }

    /// The string value with id `id` of the table of repeated values (as
    /// [`Self::str_shared`] gave it for the same text).
    pub fn str_id(&mut self, id: u32) {
        self.started();
        write_shared_id(id, &mut self.buf);
    }

    pub fn number(&mut self, n: &serde_json::Number) {
        self.started();
        write_number(n, &mut self.buf);
    }

    /// A whole value (any kind), encoded as [`Raw::from_value`] would.
    pub fn value(&mut self, v: &Value) {
        match v {
            Value::Null => self.null(),
            Value::Bool(b) => self.bool(*b),
            Value::Number(n) => self.number(n),
            Value::String(s) => self.str(s),
            Value::Array(_) | Value::Object(_) => {
                self.started();
                let mut bodies = Vec::new();
                measure(v, &mut bodies);
                write(v, &mut bodies.iter(), &mut self.buf);
            }
        }
    }

    fn begin(&mut self, is_object: bool) {
        self.started();
        self.frames.push(Frame {
            head: self.buf.len(),
            count: 0,
            entries_from: self.entries.len(),
            is_object,
        });
        self.buf.extend_from_slice(&[0; RESERVE]);
    }

    /// Opens an array: the values written until [`Self::end_array`] are its items.
    pub fn begin_array(&mut self) {
        self.begin(false);
    }

    /// Opens an object: [`Self::key`] then one value, per entry, until [`Self::end_object`].
    pub fn begin_object(&mut self) {
        self.begin(true);
    }

    /// The key of the next entry of the current object (ignored outside an object); the
    /// key table's copy of it and its id when it is written as an id.
    pub fn key(&mut self, k: &str) -> Option<(&'static str, u32)> {
        if !self.frames.last().is_some_and(|f| f.is_object) {
            return None;
        }
        let shared = keys::shared(k);
        match shared {
            Some((text, id)) => self.push_shared_key(text, id),
            None => {
                self.entry_started();
                let start = self.buf.len();
                put_varint(&mut self.buf, (k.len() as u64) << 1);
                let at = self.buf.len();
                self.buf.extend_from_slice(k.as_bytes());
                let key = EntryKey::Inline {
                    start: at,
                    end: self.buf.len(),
                };
                self.entries.push(Entry { start, key });
            }
        }
        shared
    }

    /// [`Self::key`] of a key already looked up: `text` and `id` as [`keys::shared`] gave
    /// them.
    pub fn key_known(&mut self, text: &'static str, id: u32) {
        if self.frames.last().is_some_and(|f| f.is_object) {
            self.push_shared_key(text, id);
        }
    }

    fn push_shared_key(&mut self, text: &'static str, id: u32) {
        self.entry_started();
        let start = self.buf.len();
        let h = (u64::from(id) << 1) | 1;
        // One or two bytes for every id of the key table (at most 2^16 of them).
        if h < 0x80 {
            self.buf.push(h as u8);
        } else if h < 0x4000 {
            self.buf
                .extend_from_slice(&[(h as u8) | 0x80, (h >> 7) as u8]);
        } else {
            put_varint(&mut self.buf, h);
        }
        self.entries.push(Entry {
            start,
            key: EntryKey::Shared(text),
        });
    }

    /// Counts an entry of the current object (an object: checked by the caller).
    fn entry_started(&mut self) {
        if let Some(f) = self.frames.last_mut() {
            f.count += 1;
        }
    }

    /// Closes the current array (nothing happens if the current container is an object).
    pub fn end_array(&mut self) {
        if self.frames.last().is_some_and(|f| !f.is_object) {
            if let Some(f) = self.frames.pop() {
                self.close(ARRAY, f.head, f.count);
            }
        }
    }

    /// Closes the current object, sorting its entries by key; `Err` when a key repeats
    /// (the builder must then be cleared). Nothing happens if the current container is an
    /// array.
    pub fn end_object(&mut self) -> Result<(), BuildError> {
        if !self.frames.last().is_some_and(|f| f.is_object) {
            return Ok(());
        }
        let Some(f) = self.frames.pop() else {
            return Ok(());
        };
        let buf = &self.buf;
        let entries = &self.entries[f.entries_from.min(self.entries.len())..];
        let key = |e: &Entry| e.key.bytes(buf);
        if entries.windows(2).all(|w| before(key(&w[0]), key(&w[1]))) {
            self.entries.truncate(f.entries_from);
            self.close(OBJECT, f.head, f.count);
            return Ok(());
        }
        self.close_sorted(&f)
    }

    /// Closes object `f` whose entries came out of key order: copies them once, sorted,
    /// after their header.
    fn close_sorted(&mut self, f: &Frame) -> Result<(), BuildError> {
        let buf = &self.buf;
        let entries = &self.entries[f.entries_from.min(self.entries.len())..];
        let key = |e: &Entry| e.key.bytes(buf);
        // Entry i spans from its start to the next entry's start (or the buffer's end).
        let ends = entries
            .iter()
            .skip(1)
            .map(|e| e.start)
            .chain(std::iter::once(buf.len()));
        self.order.clear();
        self.order
            .extend(entries.iter().zip(ends).map(|(e, end)| (*e, end)));
        self.entries.truncate(f.entries_from);
        self.order.sort_unstable_by(|a, b| key(&a.0).cmp(key(&b.0)));
        if let Some(w) = self.order.windows(2).find(|w| key(&w[0].0) == key(&w[1].0)) {
            let dup = String::from_utf8_lossy(key(&w[0].0)).into_owned();
            return Err(BuildError::DuplicateKey(dup));
        }
        let items = buf.len() - (f.head + RESERVE);
        let (header, len) = header(OBJECT, f.count, items);
        self.sorted.clear();
        self.sorted.extend_from_slice(&header[..len]);
        for (e, end) in &self.order {
            self.sorted.extend_from_slice(&buf[e.start..*end]);
        }
        self.buf.truncate(f.head);
        self.buf.extend_from_slice(&self.sorted);
        Ok(())
    }

    /// Writes the header of the container whose reserved header is at `head` and whose
    /// items follow it to the end of the buffer, moving the items if the header is not
    /// exactly [`RESERVE`] bytes.
    fn close(&mut self, tag: u8, head: usize, count: usize) {
        let body_start = head + RESERVE;
        let end = self.buf.len();
        // The common cases, as `header` would write them: a 2-byte body length and a
        // 1-byte count (in place), or a 1-byte body length (the body moved one byte back).
        let body = end - body_start + 1;
        if count < 0x80 && (0x80..0x4000).contains(&body) {
            if let Some(h) = self.buf.get_mut(head..body_start) {
                h.copy_from_slice(&[tag, (body as u8) | 0x80, (body >> 7) as u8, count as u8]);
                return;
            }
        }
        if count < 0x80 && body < 0x80 {
            if let Some(h) = self.buf.get_mut(head..head + 3) {
                h.copy_from_slice(&[tag, body as u8, count as u8]);
                self.buf.copy_within(body_start..end, head + 3);
                self.buf.truncate(end - 1);
                return;
            }
        }
        let (header, len) = header(tag, count, end - body_start);
        if len < RESERVE {
            self.buf.copy_within(body_start..end, head + len);
            self.buf.truncate(end - (RESERVE - len));
        } else if len > RESERVE {
            let grow = len - RESERVE;
            self.buf.resize(end + grow, 0);
            self.buf.copy_within(body_start..end, body_start + grow);
        }
        self.buf[head..head + len].copy_from_slice(&header[..len]);
    }

    /// The value written, when exactly one complete value was; the builder is cleared
    /// either way.
    pub fn finish(&mut self) -> Option<Raw> {
        let done = self.frames.is_empty() && self.roots == 1;
        let raw = done.then(|| Raw(Arc::from(&self.buf[..])));
        self.clear();
        raw
    }
}

/// Whether key `a` sorts strictly before key `b` (byte order): most neighbouring keys
/// differ in their first byte, told without a call into `memcmp`.
#[inline]
fn before(a: &[u8], b: &[u8]) -> bool {
    match (a.first(), b.first()) {
        (Some(x), Some(y)) if x != y => x < y,
        _ => a < b,
    }
}

/// Tag, body length and count of a container whose items take `items` bytes: the bytes
/// and how many of them are used.
fn header(tag: u8, count: usize, items: usize) -> ([u8; 21], usize) {
    let body = varint_len(count as u64) + items;
    let mut out = [0u8; 21];
    out[0] = tag;
    let mut len = 1;
    for mut n in [body as u64, count as u64] {
        while n >= 0x80 {
            out[len] = (n as u8) | 0x80;
            n >>= 7;
            len += 1;
        }
        out[len] = n as u8;
        len += 1;
    }
    (out, len)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::RawRef;
    use proptest::prelude::*;
    use serde_json::json;

    /// Feeds `v` to the builder, object entries in reverse order when `reverse`, else
    /// rotated by one (document order differs from sorted order either way).
    fn feed(b: &mut RawBuilder, v: &Value, reverse: bool) -> Result<(), BuildError> {
        match v {
            Value::Array(items) => {
                b.begin_array();
                for i in items {
                    feed(b, i, reverse)?;
                }
                b.end_array();
            }
            Value::Object(map) => {
                b.begin_object();
                let mut entries: Vec<_> = map.iter().collect();
                if reverse {
                    entries.reverse();
                } else if !entries.is_empty() {
                    entries.rotate_left(1);
                }
                for (k, v) in entries {
                    b.key(k);
                    feed(b, v, reverse)?;
                }
                b.end_object()?;
            }
            scalar => b.value(scalar),
        }
        Ok(())
    }

    fn built(v: &Value, reverse: bool) -> Vec<u8> {
        let mut b = RawBuilder::new();
        feed(&mut b, v, reverse).expect("no duplicates");
        // Strings the table shares are compared inline (from_value never shares).
        b.finish().expect("one value").view().inline_encoded()
    }

    fn assert_same(v: &Value) {
        let want = Raw::from_value(v);
        for reverse in [false, true] {
            assert_eq!(
                built(v, reverse),
                want.view().encoded(),
                "{v} reverse={reverse}"
            );
        }
    }

    #[test]
    fn scalars_and_numbers() {
        for v in [
            json!(null),
            json!(true),
            json!(false),
            json!(0),
            json!(127),
            json!(128),
            json!(u64::MAX),
            json!(-1),
            json!(i64::MIN),
            json!(1.5),
            json!(-0.0),
            json!(""),
            json!("ünï ✓"),
            json!("x".repeat(200)),
        ] {
            assert_same(&v);
        }
        let mut b = RawBuilder::new();
        b.begin_array();
        b.number(&serde_json::Number::from(7u64));
        b.number(&serde_json::Number::from(-7i64));
        b.value(&json!(2.5));
        b.end_array();
        let raw = b.finish().unwrap();
        assert_eq!(
            raw.view().inline_encoded(),
            Raw::from_value(&json!([7, -7, 2.5])).view().encoded()
        );
        let items: Vec<_> = raw.view().as_array().unwrap().iter().collect();
        assert!(items[0].is_u64() && items[1].as_i64() == Some(-7) && items[2].is_f64());
    }

    #[test]
    fn entries_are_sorted_by_key_bytes() {
        let mut b = RawBuilder::new();
        b.begin_object();
        for (k, v) in [("b", 1), ("B", 2), ("a", 3), ("é", 4), ("aa", 5), ("", 6)] {
            b.key(k);
            b.value(&json!(v));
        }
        b.end_object().unwrap();
        let raw = b.finish().unwrap();
        let keys: Vec<&str> = raw.view().as_object().unwrap().keys().collect();
        assert_eq!(keys, ["", "B", "a", "aa", "b", "é"]);
        assert_eq!(
            raw.view().inline_encoded(),
            Raw::from_value(&json!({"b": 1, "B": 2, "a": 3, "é": 4, "aa": 5, "": 6}))
                .view()
                .encoded()
        );
    }

    /// Keys too long for the key table stay inline; they sort among shared keys by text.
    #[test]
    fn inline_and_shared_keys_sort_together() {
        let long_b = "b".repeat(keys::MAX_LEN + 1);
        let long_z = "z".repeat(keys::MAX_LEN + 5);
        let mut map = serde_json::Map::new();
        for k in [long_z.as_str(), "c", long_b.as_str(), "a", "bb"] {
            map.insert(k.to_owned(), json!(k.len()));
        }
        let v = Value::Object(map);
        assert_same(&v);
        let raw = Raw::from_value(&v);
        let keys: Vec<&str> = raw.view().as_object().unwrap().keys().collect();
        assert_eq!(keys, ["a", "bb", long_b.as_str(), "c", long_z.as_str()]);
        assert_eq!(raw.view().get(&long_b).and_then(RawRef::as_u64), Some(65));
        assert_eq!(raw.view().get("bb").and_then(RawRef::as_u64), Some(2));
        // Both long keys are inline; the short ones take a byte or three each unless the
        // table was filled by other tests in this process.
        let inline = long_b.len() + long_z.len();
        assert!(raw.encoded_len() > inline);
        if ["a", "bb", "c"].iter().all(|k| keys::id(k).is_some()) {
            assert!(raw.encoded_len() < inline + 30, "{}", raw.encoded_len());
        }
    }

    /// Hostile input: more distinct keys than the key table holds. Those past its end stay
    /// inline, every key still reads back, and both encoders agree (before and after).
    #[test]
    fn more_keys_than_the_table_holds() {
        let map: serde_json::Map<String, Value> = (0..keys::MAX_KEYS + 100)
            .map(|i| (format!("hostile-key-{i}"), json!(i)))
            .collect();
        let v = Value::Object(map);
        assert_same(&v);
        let raw = Raw::from_value(&v);
        assert_eq!(raw.to_value(), v);
        let last = format!("hostile-key-{}", keys::MAX_KEYS + 99);
        assert_eq!(keys::id(&last), None);
        assert_eq!(
            raw.view().get(&last).and_then(RawRef::as_u64),
            Some(keys::MAX_KEYS as u64 + 99)
        );
        assert_same(&v);
    }

    #[test]
    fn nested_and_empty_containers() {
        assert_same(&json!({}));
        assert_same(&json!([]));
        assert_same(&json!([[], {}, [[]], {"a": {}}]));
        assert_same(&json!({
            "spec": {"containers": [{"name": "c", "image": "nginx", "ports": [{"containerPort": 80}]}]},
            "metadata": {"name": "web", "labels": {"z": "1", "a": "2"}},
            "kind": "Deployment",
            "apiVersion": "apps/v1",
        }));
    }

    #[test]
    fn headers_of_every_size() {
        // Bodies and counts on both sides of the one- and two-byte varint limits.
        for n in [0, 1, 126, 127, 128, 129, 300, 20_000] {
            assert_same(&Value::Array((0..n).map(|i| json!(i % 3)).collect()));
            let map: serde_json::Map<String, Value> =
                (0..n).map(|i| (format!("k{i}"), json!(i))).collect();
            assert_same(&Value::Object(map));
        }
        for len in [100, 125, 126, 127, 128, 16_380, 16_384, 70_000] {
            assert_same(&json!([["x".repeat(len)]]));
            assert_same(&json!({"a": {"b": "x".repeat(len)}, "0": ["y".repeat(len)]}));
        }
    }

    #[test]
    fn duplicate_keys_fail() {
        let mut b = RawBuilder::new();
        b.begin_object();
        for k in ["b", "a", "b"] {
            b.key(k);
            b.null();
        }
        assert_eq!(b.end_object(), Err(BuildError::DuplicateKey("b".into())));
        b.clear();
        // In order, a repeat is adjacent.
        b.begin_object();
        b.key("a");
        b.begin_array();
        b.end_array();
        b.key("a");
        b.null();
        assert!(b.end_object().is_err());
        b.clear();
        b.begin_array();
        b.begin_object();
        b.key("x");
        b.null();
        b.key("y");
        b.null();
        b.end_object().unwrap();
        b.end_array();
        assert!(b.finish().is_some());
    }

    #[test]
    fn misuse_does_not_panic() {
        let mut b = RawBuilder::new();
        b.key("outside");
        b.begin_array();
        b.key("in an array");
        b.null();
        b.end_object().unwrap();
        b.end_array();
        assert_eq!(b.finish().unwrap().to_value(), json!([null]));
        b.begin_object();
        b.end_array();
        b.key("a");
        b.begin_array();
        b.key("b");
        b.str("x");
        b.end_array();
        b.end_object().unwrap();
        assert_eq!(b.finish().unwrap().to_value(), json!({"a": ["x"]}));
    }

    #[test]
    fn trimming_gives_back_big_buffers_only() {
        let mut b = RawBuilder::new();
        b.str(&"x".repeat(5000));
        b.clear_and_trim(100_000);
        assert!(b.buf.capacity() >= 5000);
        b.str(&"x".repeat(5000));
        b.clear_and_trim(1000);
        assert_eq!(b.buf.capacity(), 0);
        b.bool(true);
        assert_eq!(b.finish().unwrap().view().as_bool(), Some(true));
    }

    #[test]
    fn incomplete_values_are_not_finished() {
        let mut b = RawBuilder::new();
        assert!(b.finish().is_none());
        b.begin_array();
        assert!(b.finish().is_none());
        b.null();
        b.null();
        assert!(b.finish().is_none());
        b.str("ok");
        assert_eq!(b.finish().unwrap().view().as_str(), Some("ok"));
    }

    fn arb_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            (-1e6f64..1e6).prop_map(Value::from),
            "[a-zé ]{0,12}".prop_map(Value::String),
            "x{100,200}".prop_map(Value::String),
        ];
        leaf.prop_recursive(5, 200, 12, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..12).prop_map(Value::Array),
                prop::collection::btree_map("[a-cA-C_é]{0,3}", inner, 0..12)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn prop_bytes_equal_from_value(v in arb_value()) {
            let want = Raw::from_value(&v);
            for reverse in [false, true] {
                prop_assert_eq!(built(&v, reverse), want.view().encoded().to_vec());
            }
        }
    }
}
