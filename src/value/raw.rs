//! A compact, immutable encoding of a whole JSON value ([`Raw`]) and a borrowed view into it
//! ([`RawRef`]).
//!
//! `serde_json::Value` spends ~20 KB of heap on a 2 KB manifest (every map is a B-tree leaf
//! sized for 11 entries, every key and string is its own allocation). A loaded object is only
//! ever read, so it is kept as one contiguous byte buffer instead, and read in place.
//!
//! Encoding (one value = tag byte, then payload; lengths and counts are LEB128 varints):
//!
//! | tag | value            | payload                                                   |
//! |-----|------------------|-----------------------------------------------------------|
//! | 0   | null             | —                                                         |
//! | 1   | false            | —                                                         |
//! | 2   | true             | —                                                         |
//! | 3   | non-negative int | varint `u64`                                              |
//! | 4   | negative int     | varint `!i as u64`                                        |
//! | 5   | float            | 8 bytes, `f64::to_le_bytes`                               |
//! | 6   | string           | varint byte length, UTF-8 bytes                           |
//! | 7   | array            | varint body length, varint count, items                   |
//! | 8   | object           | varint body length, varint count, (key, value)…           |
//! | 9   | shared string    | varint id in the [`strings`](super::strings) table        |
//!
//! A key is a varint `h`: when `h` is odd, `h >> 1` is the key's id in the process-wide
//! [`keys`](super::keys) table (most keys: they repeat across every object); when even, the
//! key's `h >> 1` UTF-8 bytes follow (long keys, and new keys once the table is full).
//!
//! A string value repeated often gets an id (tag 9) once a loader thread has met it a few
//! times ([`strings`](super::strings)): one value may be inline in one object and shared in
//! another, so equal values need not have equal bytes (equality compares values).
//!
//! Containers carry their body length so lookups skip whole subtrees. Object entries keep the
//! order of the source map (serde_json's map is sorted by key, which is the order kubectl
//! prints unstructured objects in). Integers keep serde_json's distinction between
//! non-negative, negative and float numbers, so printing is unchanged.
//!
//! The buffer is only ever produced by [`Raw::from_value`], by [`RawBuilder`] (which the fast
//! YAML path writes into, with the same bytes as `from_value` of the same value) and by the
//! constructors below that copy encoded values; the readers still never panic on a malformed
//! buffer (they answer as for a missing value).

use std::fmt;
use std::sync::Arc;

use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};
use serde_json::{Map, Number, Value};

use super::{keys, strings};

mod build;
pub use build::{BuildError, RawBuilder};

const NULL: u8 = 0;
const FALSE: u8 = 1;
const TRUE: u8 = 2;
const POS_INT: u8 = 3;
const NEG_INT: u8 = 4;
const FLOAT: u8 = 5;
const STRING: u8 = 6;
const ARRAY: u8 = 7;
const OBJECT: u8 = 8;
const SHARED: u8 = 9;

/// A whole JSON value in the compact encoding; cloning shares the buffer.
#[derive(Clone)]
pub struct Raw(Arc<[u8]>);

/// A borrowed view of one encoded value (the slice holds exactly that value).
#[derive(Clone, Copy)]
pub struct RawRef<'a> {
    bytes: &'a [u8],
}

/// What a value is, for `match`.
#[derive(Clone, Debug, PartialEq)]
pub enum RawKind<'a> {
    Null,
    Bool(bool),
    Number(Number),
    String(&'a str),
    Array(RawArray<'a>),
    Object(RawObject<'a>),
}

/// A borrowed array (`Default`: the empty array).
#[derive(Clone, Copy, Default)]
pub struct RawArray<'a> {
    len: usize,
    /// The items, back to back.
    body: &'a [u8],
}

/// A borrowed object (map with string keys; `Default`: the empty object).
#[derive(Clone, Copy, Default)]
pub struct RawObject<'a> {
    len: usize,
    /// The entries, back to back.
    body: &'a [u8],
}

// ---------------------------------------------------------------------------------------
// Encoding

fn put_varint(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

fn varint_len(mut n: u64) -> usize {
    let mut len = 1;
    while n >= 0x80 {
        n >>= 7;
        len += 1;
    }
    len
}

/// Encoded size of `v`; pushes the body length of every container in pre-order so the
/// writing pass can put lengths before bodies without moving bytes.
fn measure(v: &Value, bodies: &mut Vec<usize>) -> usize {
    match v {
        Value::Null | Value::Bool(_) => 1,
        Value::Number(n) => 1 + number_payload_len(n),
        Value::String(s) => 1 + varint_len(s.len() as u64) + s.len(),
        Value::Array(items) => {
            let at = bodies.len();
            bodies.push(0);
            let body = varint_len(items.len() as u64)
                + items.iter().map(|i| measure(i, bodies)).sum::<usize>();
            bodies[at] = body;
            1 + varint_len(body as u64) + body
        }
        Value::Object(map) => {
            let at = bodies.len();
            bodies.push(0);
            let body = varint_len(map.len() as u64)
                + map
                    .iter()
                    .map(|(k, v)| key_len(k) + measure(v, bodies))
                    .sum::<usize>();
            bodies[at] = body;
            1 + varint_len(body as u64) + body
        }
    }
}

fn number_payload_len(n: &Number) -> usize {
    if let Some(u) = n.as_u64() {
        varint_len(u)
    } else if let Some(i) = n.as_i64() {
        varint_len(!i as u64)
    } else {
        8
    }
}

fn write(v: &Value, bodies: &mut std::slice::Iter<'_, usize>, out: &mut Vec<u8>) {
    match v {
        Value::Null => out.push(NULL),
        Value::Bool(false) => out.push(FALSE),
        Value::Bool(true) => out.push(TRUE),
        Value::Number(n) => write_number(n, out),
        Value::String(s) => write_str(STRING, s, out),
        Value::Array(items) => {
            out.push(ARRAY);
            put_varint(out, bodies.next().copied().unwrap_or(0) as u64);
            put_varint(out, items.len() as u64);
            items.iter().for_each(|i| write(i, bodies, out));
        }
        Value::Object(map) => {
            out.push(OBJECT);
            put_varint(out, bodies.next().copied().unwrap_or(0) as u64);
            put_varint(out, map.len() as u64);
            for (k, v) in map {
                put_key(out, k);
                write(v, bodies, out);
            }
        }
    }
}

fn write_number(n: &Number, out: &mut Vec<u8>) {
    if let Some(u) = n.as_u64() {
        out.push(POS_INT);
        put_varint(out, u);
    } else if let Some(i) = n.as_i64() {
        out.push(NEG_INT);
        put_varint(out, !i as u64);
    } else {
        out.push(FLOAT);
        out.extend_from_slice(&n.as_f64().unwrap_or(0.0).to_le_bytes());
    }
}

/// Encodes an object key (see the module doc).
fn put_key(out: &mut Vec<u8>, k: &str) {
    match keys::id(k) {
        Some(id) => put_varint(out, (u64::from(id) << 1) | 1),
        None => {
            put_varint(out, (k.len() as u64) << 1);
            out.extend_from_slice(k.as_bytes());
        }
    }
}

/// Encoded size of an object key.
fn key_len(k: &str) -> usize {
    match keys::id(k) {
        Some(id) => varint_len((u64::from(id) << 1) | 1),
        None => varint_len((k.len() as u64) << 1) + k.len(),
    }
}

fn write_str(tag: u8, s: &str, out: &mut Vec<u8>) {
    out.push(tag);
    put_varint(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

/// Writes a string value as an id when the table gives it one (see the module doc), else
/// inline. Only [`RawBuilder`] shares: `from_value` measures before it writes, and an id
/// given in between would change the size.
fn write_shared_str(s: &str, out: &mut Vec<u8>) -> Option<u32> {
    let id = strings::id(s);
    match id {
        Some(id) => write_shared_id(id, out),
        None => write_str(STRING, s, out),
    }
    id
}

/// Writes the string value with id `id` of the table of repeated values.
fn write_shared_id(id: u32, out: &mut Vec<u8>) {
    out.push(SHARED);
    put_varint(out, u64::from(id));
}

// ---------------------------------------------------------------------------------------
// Decoding

/// Reads a varint at the start of `b`: (value, bytes used).
#[inline]
fn get_varint(b: &[u8]) -> Option<(u64, usize)> {
    // Most varints (lengths, counts, ids) take one or two bytes.
    match b {
        [b0, ..] if *b0 < 0x80 => return Some((u64::from(*b0), 1)),
        [b0, b1, ..] if *b1 < 0x80 => {
            return Some((u64::from(b0 & 0x7f) | (u64::from(*b1) << 7), 2));
        }
        _ => {}
    }
    let mut n = 0u64;
    for (i, &byte) in b.iter().enumerate().take(10) {
        n |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            return Some((n, i + 1));
        }
    }
    None
}

/// Reads a varint length at the start of `b` and splits off that many following bytes:
/// (the bytes, everything after them).
fn take_prefixed(b: &[u8]) -> Option<(&[u8], &[u8])> {
    let (len, used) = get_varint(b)?;
    let rest = b.get(used..)?;
    let len = usize::try_from(len).ok()?;
    (len <= rest.len()).then(|| rest.split_at(len))
}

/// An object key as read from the buffer.
#[derive(Clone, Copy)]
enum Key<'a> {
    /// From the key table (valid UTF-8).
    Shared(&'static str),
    /// Inline bytes, not yet checked as UTF-8.
    Inline(&'a [u8]),
}

impl<'a> Key<'a> {
    fn bytes(self) -> &'a [u8] {
        match self {
            Key::Shared(s) => s.as_bytes(),
            Key::Inline(b) => b,
        }
    }

    fn as_str(self) -> Option<&'a str> {
        match self {
            Key::Shared(s) => Some(s),
            Key::Inline(b) => std::str::from_utf8(b).ok(),
        }
    }
}

/// Splits the key of an object entry off `b`: (the key, the rest: its value onwards).
#[inline]
fn split_key(b: &[u8]) -> Option<(Key<'_>, &[u8])> {
    let (h, used) = get_varint(b)?;
    let rest = b.get(used..)?;
    if h & 1 == 1 {
        return Some((Key::Shared(keys::get(h >> 1)?), rest));
    }
    let len = usize::try_from(h >> 1).ok()?;
    (len <= rest.len()).then(|| {
        let (key, rest) = rest.split_at(len);
        (Key::Inline(key), rest)
    })
}

/// The rest of `b` after the key of an object entry ([`split_key`] without decoding the
/// key).
#[inline]
fn skip_key(b: &[u8]) -> Option<&[u8]> {
    let (h, used) = get_varint(b)?;
    let rest = b.get(used..)?;
    if h & 1 == 1 {
        return Some(rest);
    }
    rest.get(usize::try_from(h >> 1).ok()?..)
}

/// Splits the first encoded value off `b`: (that value, the rest).
fn split_value(b: &[u8]) -> Option<(&[u8], &[u8])> {
    let tag = *b.first()?;
    let payload = &b[1..];
    let len = match tag {
        NULL | FALSE | TRUE => 0,
        POS_INT | NEG_INT | SHARED => get_varint(payload)?.1,
        FLOAT => 8,
        STRING | ARRAY | OBJECT => {
            let (len, used) = get_varint(payload)?;
            used.checked_add(usize::try_from(len).ok()?)?
        }
        _ => return None,
    };
    let end = len.checked_add(1)?;
    (end <= b.len()).then(|| b.split_at(end))
}

/// Body of a container value: (count, items).
fn container(b: &[u8]) -> Option<(usize, &[u8])> {
    let (body, _) = take_prefixed(b.get(1..)?)?;
    let (count, used) = get_varint(body)?;
    Some((usize::try_from(count).ok()?, body.get(used..)?))
}

impl Raw {
    /// Encodes `v`.
    pub fn from_value(v: &Value) -> Raw {
        let mut bodies = Vec::new();
        let size = measure(v, &mut bodies);
        let mut out = Vec::with_capacity(size);
        write(v, &mut bodies.iter(), &mut out);
        debug_assert_eq!(out.len(), size);
        Raw(Arc::from(out))
    }

    /// The whole value.
    pub fn view(&self) -> RawRef<'_> {
        RawRef { bytes: &self.0 }
    }

    /// Value at `key` of the top-level object.
    pub fn get(&self, key: &str) -> Option<RawRef<'_>> {
        self.view().get(key)
    }

    /// Value at a JSON pointer (`/spec/containers/0`), as `serde_json::Value::pointer`.
    pub fn pointer(&self, pointer: &str) -> Option<RawRef<'_>> {
        self.view().pointer(pointer)
    }

    /// The whole value as a `serde_json::Value` (allocates the full tree).
    pub fn to_value(&self) -> Value {
        self.view().to_value()
    }

    /// Bytes of the encoding (heap held by this value, besides the `Arc` header).
    pub fn encoded_len(&self) -> usize {
        self.0.len()
    }

    /// Both share one buffer (a cheap "certainly equal").
    pub fn ptr_eq(a: &Raw, b: &Raw) -> bool {
        Arc::ptr_eq(&a.0, &b.0)
    }

    /// Where `value` starts in this buffer, for [`Raw::value_at`]; `None` when `value` is
    /// not a view into this buffer (or the buffer is over 4 GiB).
    pub fn offset_of(&self, value: RawRef<'_>) -> Option<u32> {
        let base = self.0.as_ptr() as usize;
        let at = (value.bytes.as_ptr() as usize).checked_sub(base)?;
        let end = at.checked_add(value.bytes.len())?;
        (end <= self.0.len()).then_some(())?;
        u32::try_from(at).ok()
    }

    /// The value starting at byte `offset` (as [`Raw::offset_of`] gave it): a stored
    /// position instead of a copy of a part of the value that is read often.
    pub fn value_at(&self, offset: u32) -> Option<RawRef<'_>> {
        let rest = self.0.get(usize::try_from(offset).ok()?..)?;
        let (bytes, _) = split_value(rest)?;
        Some(RawRef { bytes })
    }
}

/// Encodes a container from its items' encoded bytes.
fn container_bytes(tag: u8, count: usize, items: &[u8]) -> Vec<u8> {
    let mut head = Vec::with_capacity(20);
    put_varint(&mut head, count as u64);
    let body = head.len() + items.len();
    let mut out = Vec::with_capacity(1 + varint_len(body as u64) + body);
    out.push(tag);
    put_varint(&mut out, body as u64);
    out.extend_from_slice(&head);
    out.extend_from_slice(items);
    out
}

fn object_bytes<'k>(entries: impl IntoIterator<Item = (&'k str, RawRef<'k>)>) -> Vec<u8> {
    let mut items = Vec::new();
    let mut count = 0;
    for (k, v) in entries {
        put_key(&mut items, k);
        items.extend_from_slice(v.bytes);
        count += 1;
    }
    container_bytes(OBJECT, count, &items)
}

impl Raw {
    /// An object of these entries in the order given (pass keys sorted, as serde_json's
    /// map keeps them), copying the values' encodings.
    pub fn object<'k>(entries: impl IntoIterator<Item = (&'k str, RawRef<'k>)>) -> Raw {
        Raw(Arc::from(object_bytes(entries)))
    }

    /// An array of these items, copying their encodings.
    pub fn array<'k>(items: impl IntoIterator<Item = RawRef<'k>>) -> Raw {
        let mut body = Vec::new();
        let mut count = 0;
        for item in items {
            body.extend_from_slice(item.bytes);
            count += 1;
        }
        Raw(Arc::from(container_bytes(ARRAY, count, &body)))
    }

    /// A string value.
    pub fn string(s: &str) -> Raw {
        let mut out = Vec::with_capacity(1 + varint_len(s.len() as u64) + s.len());
        write_str(STRING, s, &mut out);
        Raw(Arc::from(out))
    }

    /// This object with `self[object][key] = value` (the key replaced, or inserted in sorted
    /// position); `self` unchanged (shared) when it is not an object or `self[object]` is
    /// not an object.
    pub fn with_member(&self, object: &str, key: &str, value: RawRef<'_>) -> Raw {
        let Some(top) = self.view().as_object() else {
            return self.clone();
        };
        let Some(inner) = top.get(object).and_then(RawRef::as_object) else {
            return self.clone();
        };
        let mut entries: Vec<(&str, RawRef<'_>)> =
            inner.iter().filter(|(k, _)| *k != key).collect();
        let at = entries.partition_point(|(k, _)| *k < key);
        entries.insert(at, (key, value));
        let inner = object_bytes(entries);
        let inner = RawRef { bytes: &inner };
        Raw::object(
            top.iter()
                .map(|(k, v)| (k, if k == object { inner } else { v })),
        )
    }
}

impl From<&Value> for Raw {
    fn from(v: &Value) -> Raw {
        Raw::from_value(v)
    }
}

impl From<Value> for Raw {
    fn from(v: Value) -> Raw {
        Raw::from_value(&v)
    }
}

impl<'a> RawRef<'a> {
    const NULL_BYTES: &'static [u8] = &[NULL];

    fn tag(self) -> u8 {
        self.bytes.first().copied().unwrap_or(NULL)
    }

    /// What the value is.
    pub fn kind(self) -> RawKind<'a> {
        match self.tag() {
            FALSE => RawKind::Bool(false),
            TRUE => RawKind::Bool(true),
            POS_INT | NEG_INT | FLOAT => self.as_number().map_or(RawKind::Null, RawKind::Number),
            STRING | SHARED => self.as_str().map_or(RawKind::Null, RawKind::String),
            ARRAY => self.as_array().map_or(RawKind::Null, RawKind::Array),
            OBJECT => self.as_object().map_or(RawKind::Null, RawKind::Object),
            _ => RawKind::Null,
        }
    }

    /// A view of `null` (what a missing value prints as).
    pub fn null() -> RawRef<'a> {
        RawRef {
            bytes: Self::NULL_BYTES,
        }
    }

    /// Member `key` of an object (`None` for other values or a missing key).
    pub fn get(self, key: &str) -> Option<RawRef<'a>> {
        self.as_object()?.get(key)
    }

    /// Item `index` of an array.
    pub fn at(self, index: usize) -> Option<RawRef<'a>> {
        self.as_array()?.get(index)
    }

    /// Value at a JSON pointer, with `serde_json::Value::pointer`'s rules (RFC 6901).
    pub fn pointer(self, pointer: &str) -> Option<RawRef<'a>> {
        if pointer.is_empty() {
            return Some(self);
        }
        let tokens = pointer.strip_prefix('/')?;
        tokens.split('/').try_fold(self, |target, token| {
            let token = token.replace("~1", "/").replace("~0", "~");
            match target.tag() {
                OBJECT => target.get(&token),
                ARRAY => parse_index(&token).and_then(|i| target.at(i)),
                _ => None,
            }
        })
    }

    pub fn is_null(self) -> bool {
        self.tag() == NULL
    }

    pub fn is_boolean(self) -> bool {
        matches!(self.tag(), FALSE | TRUE)
    }

    pub fn is_number(self) -> bool {
        matches!(self.tag(), POS_INT | NEG_INT | FLOAT)
    }

    pub fn is_string(self) -> bool {
        matches!(self.tag(), STRING | SHARED)
    }

    pub fn is_array(self) -> bool {
        self.tag() == ARRAY
    }

    pub fn is_object(self) -> bool {
        self.tag() == OBJECT
    }

    pub fn as_bool(self) -> Option<bool> {
        match self.tag() {
            FALSE => Some(false),
            TRUE => Some(true),
            _ => None,
        }
    }

    pub fn as_str(self) -> Option<&'a str> {
        match self.tag() {
            STRING => {
                let (s, _) = take_prefixed(self.bytes.get(1..)?)?;
                std::str::from_utf8(s).ok()
            }
            SHARED => strings::get(get_varint(self.bytes.get(1..)?)?.0),
            _ => None,
        }
    }

    /// The number, as serde_json holds it.
    pub fn as_number(self) -> Option<Number> {
        let payload = self.bytes.get(1..)?;
        match self.tag() {
            POS_INT => Some(Number::from(get_varint(payload)?.0)),
            NEG_INT => Some(Number::from(!(get_varint(payload)?.0 as i64))),
            FLOAT => Number::from_f64(f64::from_le_bytes(payload.get(..8)?.try_into().ok()?)),
            _ => None,
        }
    }

    pub fn as_i64(self) -> Option<i64> {
        match self.tag() {
            POS_INT | NEG_INT => self.as_number()?.as_i64(),
            _ => None,
        }
    }

    pub fn as_u64(self) -> Option<u64> {
        match self.tag() {
            POS_INT => self.as_number()?.as_u64(),
            _ => None,
        }
    }

    pub fn as_f64(self) -> Option<f64> {
        self.as_number()?.as_f64()
    }

    pub fn is_i64(self) -> bool {
        self.as_i64().is_some()
    }

    pub fn is_u64(self) -> bool {
        self.tag() == POS_INT
    }

    pub fn is_f64(self) -> bool {
        self.tag() == FLOAT
    }

    pub fn as_array(self) -> Option<RawArray<'a>> {
        if self.tag() != ARRAY {
            return None;
        }
        let (len, body) = container(self.bytes)?;
        Some(RawArray { len, body })
    }

    pub fn as_object(self) -> Option<RawObject<'a>> {
        if self.tag() != OBJECT {
            return None;
        }
        let (len, body) = container(self.bytes)?;
        Some(RawObject { len, body })
    }

    /// The value as a `serde_json::Value` (allocates the subtree).
    pub fn to_value(self) -> Value {
        match self.kind() {
            RawKind::Null => Value::Null,
            RawKind::Bool(b) => Value::Bool(b),
            RawKind::Number(n) => Value::Number(n),
            RawKind::String(s) => Value::String(s.to_owned()),
            RawKind::Array(a) => Value::Array(a.iter().map(RawRef::to_value).collect()),
            RawKind::Object(o) => Value::Object(
                o.iter()
                    .map(|(k, v)| (k.to_owned(), v.to_value()))
                    .collect::<Map<String, Value>>(),
            ),
        }
    }

    /// Encoded bytes of this value (equal bytes mean equal values; equal values may differ
    /// in bytes, by shared strings: compare [`RawRef::inline_encoded`] for that).
    pub fn encoded(self) -> &'a [u8] {
        self.bytes
    }

    /// The encoding of this value with every string inline (as `Raw::from_value` writes it):
    /// the same bytes for equal values, for tests comparing two ways of encoding.
    pub fn inline_encoded(self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.bytes.len());
        inline_into(self, &mut out);
        out
    }

    /// This value on its own (copies its encoding).
    pub fn to_raw(self) -> Raw {
        Raw(Arc::from(self.bytes))
    }

    /// This object with `entries` set at its top level (each key replaced, or inserted in
    /// sorted position, as a map insert does); a copy of `self` when it is not an object.
    pub fn with_entries(self, entries: &[(&str, RawRef<'_>)]) -> Raw {
        let Some(object) = self.as_object() else {
            return self.to_raw();
        };
        let mut all: Vec<(&str, RawRef<'_>)> = object
            .iter()
            .filter(|(k, _)| !entries.iter().any(|(e, _)| e == k))
            .collect();
        for &(k, v) in entries {
            let at = all.partition_point(|(x, _)| *x < k);
            all.insert(at, (k, v));
        }
        Raw::object(all)
    }
}

/// Writes `v` with its shared strings inline; keys and entry order as they are.
fn inline_into(v: RawRef<'_>, out: &mut Vec<u8>) {
    match v.tag() {
        SHARED => write_str(STRING, v.as_str().unwrap_or_default(), out),
        tag @ (ARRAY | OBJECT) => {
            let Some((count, mut rest)) = container(v.bytes) else {
                out.extend_from_slice(v.bytes);
                return;
            };
            let mut items = Vec::with_capacity(rest.len());
            for _ in 0..count {
                if tag == OBJECT {
                    let Some((_, after)) = split_key(rest) else {
                        break;
                    };
                    items.extend_from_slice(&rest[..rest.len() - after.len()]);
                    rest = after;
                }
                let Some((value, after)) = split_value(rest) else {
                    break;
                };
                inline_into(RawRef { bytes: value }, &mut items);
                rest = after;
            }
            out.extend_from_slice(&container_bytes(tag, count, &items));
        }
        _ => out.extend_from_slice(v.bytes),
    }
}

/// Array index token of a JSON pointer, as serde_json parses it.
fn parse_index(s: &str) -> Option<usize> {
    if s.starts_with('+') || (s.starts_with('0') && s.len() != 1) {
        return None;
    }
    s.parse().ok()
}

impl<'a> RawArray<'a> {
    pub fn len(self) -> usize {
        self.len
    }

    pub fn is_empty(self) -> bool {
        self.len == 0
    }

    pub fn iter(self) -> ArrayIter<'a> {
        ArrayIter {
            rest: self.body,
            left: self.len,
        }
    }

    pub fn get(self, index: usize) -> Option<RawRef<'a>> {
        self.iter().nth(index)
    }

    pub fn first(self) -> Option<RawRef<'a>> {
        self.iter().next()
    }
}

impl<'a> IntoIterator for RawArray<'a> {
    type Item = RawRef<'a>;
    type IntoIter = ArrayIter<'a>;
    fn into_iter(self) -> ArrayIter<'a> {
        self.iter()
    }
}

/// Items of a [`RawArray`].
#[derive(Clone)]
pub struct ArrayIter<'a> {
    rest: &'a [u8],
    left: usize,
}

impl<'a> Iterator for ArrayIter<'a> {
    type Item = RawRef<'a>;

    fn next(&mut self) -> Option<RawRef<'a>> {
        if self.left == 0 {
            return None;
        }
        let Some((value, rest)) = split_value(self.rest) else {
            self.left = 0;
            return None;
        };
        self.rest = rest;
        self.left -= 1;
        Some(RawRef { bytes: value })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.left))
    }
}

impl<'a> RawObject<'a> {
    pub fn len(self) -> usize {
        self.len
    }

    pub fn is_empty(self) -> bool {
        self.len == 0
    }

    /// Entries in stored (sorted) key order.
    pub fn iter(self) -> ObjectIter<'a> {
        ObjectIter {
            rest: self.body,
            left: self.len,
        }
    }

    pub fn get(self, key: &str) -> Option<RawRef<'a>> {
        let mut rest = self.body;
        for _ in 0..self.len {
            let (k, after_key) = split_key(rest)?;
            let (value, after) = split_value(after_key)?;
            if k.bytes() == key.as_bytes() {
                return Some(RawRef { bytes: value });
            }
            rest = after;
        }
        None
    }

    pub fn contains_key(self, key: &str) -> bool {
        self.get(key).is_some()
    }

    pub fn keys(self) -> impl Iterator<Item = &'a str> {
        self.iter().map(|(k, _)| k)
    }

    /// Whether every value is a string or null (told by their tags, keys stepped over): what
    /// a `map[string]string` field takes.
    pub fn values_are_strings(self) -> bool {
        let mut rest = self.body;
        for _ in 0..self.len {
            let Some((value, after)) = skip_key(rest).and_then(split_value) else {
                return false;
            };
            if !matches!(value.first(), Some(&(STRING | SHARED | NULL))) {
                return false;
            }
            rest = after;
        }
        true
    }

    /// Values in stored key order; the keys are stepped over, not decoded.
    pub fn values(self) -> impl Iterator<Item = RawRef<'a>> {
        let mut rest = self.body;
        let mut left = self.len;
        std::iter::from_fn(move || {
            if left == 0 {
                return None;
            }
            let Some((value, after)) = skip_key(rest).and_then(split_value) else {
                left = 0;
                return None;
            };
            rest = after;
            left -= 1;
            Some(RawRef { bytes: value })
        })
    }
}

impl<'a> IntoIterator for RawObject<'a> {
    type Item = (&'a str, RawRef<'a>);
    type IntoIter = ObjectIter<'a>;
    fn into_iter(self) -> ObjectIter<'a> {
        self.iter()
    }
}

/// Entries of a [`RawObject`].
#[derive(Clone)]
pub struct ObjectIter<'a> {
    rest: &'a [u8],
    left: usize,
}

impl<'a> Iterator for ObjectIter<'a> {
    type Item = (&'a str, RawRef<'a>);

    fn next(&mut self) -> Option<(&'a str, RawRef<'a>)> {
        if self.left == 0 {
            return None;
        }
        let entry = split_key(self.rest).and_then(|(k, after_key)| {
            let key = k.as_str()?;
            let (value, rest) = split_value(after_key)?;
            Some((key, value, rest))
        });
        let Some((key, value, rest)) = entry else {
            self.left = 0;
            return None;
        };
        self.rest = rest;
        self.left -= 1;
        Some((key, RawRef { bytes: value }))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.left))
    }
}

// ---------------------------------------------------------------------------------------
// Equality, printing

impl PartialEq for RawRef<'_> {
    /// Equal as `serde_json::Value`s are (so `0.0 == -0.0`); identical encodings short-cut.
    fn eq(&self, other: &Self) -> bool {
        if self.bytes == other.bytes {
            return true;
        }
        match (self.kind(), other.kind()) {
            (RawKind::Array(a), RawKind::Array(b)) => a == b,
            (RawKind::Object(a), RawKind::Object(b)) => a == b,
            (a, b) => a == b,
        }
    }
}

impl PartialEq for RawArray<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && self.iter().eq(other.iter())
    }
}

impl PartialEq for RawObject<'_> {
    /// Same keys with equal values; entries are stored sorted, so pairwise in order.
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && self.iter().eq(other.iter())
    }
}

impl PartialEq for Raw {
    fn eq(&self, other: &Self) -> bool {
        Raw::ptr_eq(self, other) || self.view() == other.view()
    }
}

impl PartialEq<Value> for RawRef<'_> {
    fn eq(&self, other: &Value) -> bool {
        match (self.kind(), other) {
            (RawKind::Null, Value::Null) => true,
            (RawKind::Bool(a), Value::Bool(b)) => a == *b,
            (RawKind::Number(a), Value::Number(b)) => a == *b,
            (RawKind::String(a), Value::String(b)) => a == b,
            (RawKind::Array(a), Value::Array(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == *y)
            }
            (RawKind::Object(a), Value::Object(b)) => {
                a.len() == b.len() && a.iter().all(|(k, v)| b.get(k).is_some_and(|w| v == *w))
            }
            _ => false,
        }
    }
}

impl PartialEq<str> for RawRef<'_> {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == Some(other)
    }
}

impl PartialEq<&str> for RawRef<'_> {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == Some(*other)
    }
}

impl Serialize for RawRef<'_> {
    /// As `serde_json::Value` serializes (same calls, same order), without building one.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.kind() {
            RawKind::Null => serializer.serialize_unit(),
            RawKind::Bool(b) => serializer.serialize_bool(b),
            RawKind::Number(n) => n.serialize(serializer),
            RawKind::String(s) => serializer.serialize_str(s),
            RawKind::Array(a) => {
                let mut seq = serializer.serialize_seq(Some(a.len()))?;
                for item in a {
                    seq.serialize_element(&item)?;
                }
                seq.end()
            }
            RawKind::Object(o) => {
                let mut map = serializer.serialize_map(Some(o.len()))?;
                for (k, v) in o {
                    map.serialize_entry(k, &v)?;
                }
                map.end()
            }
        }
    }
}

impl Serialize for Raw {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.view().serialize(serializer)
    }
}

impl fmt::Display for RawRef<'_> {
    /// Compact JSON, or pretty with `{:#}` (as `serde_json::Value`'s Display).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = if f.alternate() {
            serde_json::to_string_pretty(self)
        } else {
            serde_json::to_string(self)
        };
        f.write_str(&text.map_err(|_| fmt::Error)?)
    }
}

impl fmt::Display for Raw {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.view(), f)
    }
}

impl fmt::Debug for RawRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Raw({self})")
    }
}

impl fmt::Debug for Raw {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.view(), f)
    }
}

impl fmt::Debug for RawArray<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl fmt::Debug for RawObject<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests;
