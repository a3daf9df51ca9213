//! The common JSON stream — objects and arrays, integers, strings without surrogate
//! escapes — read in one pass straight into the compact [`Raw`](crate::value::Raw) encoding,
//! list item offsets taken on the way (what [`super::json`]'s structural scan finds after
//! serde_json's pass).
//!
//! Anything else gives up on the whole stream (`None`), and [`super::json`] reads it with
//! serde_json, whose results are the reference: a top-level scalar, a float, an integer
//! serde_json would read as a float (`-0`, beyond 64 bits), a `\u` surrogate escape, a
//! repeated key, a nesting deeper than [`MAX_DEPTH`], more than [`MAX_VALUES`] values, and
//! every syntax error. When it does not give up, the values, ranges and item ranges are
//! exactly serde_json's path's (proptests in `json.rs`).

use std::borrow::Cow;
use std::cell::RefCell;

use serde_json::Number;

use super::json::{JsonDoc, MAX_VALUES};
use super::yaml::ItemPath;
use crate::value::keys::same;
use crate::value::RawBuilder;

/// Nesting given up on, below serde_json's recursion limit (128).
const MAX_DEPTH: usize = 100;

/// Builder buffers grown past this are given back after a document.
const KEEP_BUILDER_BYTES: usize = 1 << 20;

/// Every value of `text` with its range and list item ranges, or `None` (see the module
/// doc).
pub(super) fn parse(text: &str) -> Option<Vec<JsonDoc>> {
    thread_local! {
        /// Reused across documents so its buffers keep their capacity.
        static BUILDER: RefCell<RawBuilder> = RefCell::new(RawBuilder::new());
        /// Kept across files: the guesses come from the values before.
        static GUESSES: RefCell<Guesses> = RefCell::new(Guesses::default());
    }
    let mut p = Parser {
        text,
        b: text.as_bytes(),
        i: 0,
        depth: 0,
        out: BUILDER.with(RefCell::take),
        items: Vec::new(),
        guesses: GUESSES.with(RefCell::take),
    };
    let docs = p.stream();
    p.out.clear_and_trim(KEEP_BUILDER_BYTES);
    BUILDER.with(|c| c.replace(p.out));
    GUESSES.with(|c| c.replace(p.guesses));
    docs
}

/// Slots of [`Guesses`] (a power of two).
const GUESS_SLOTS: usize = 4096;

/// A key of the key table: its text and id.
type Known = Option<(&'static str, u32)>;

/// Per thread, the key that followed each key last time at the same depth (by the key's
/// id and the depth, hashed into the slots), as `fast.rs` guesses YAML keys: objects of a
/// list repeat the keys of the ones before them in the same order, so most keys are
/// recognised by one comparison, without unescaping them or looking them up in the key
/// table. Only keys written without escapes are guessed: their text is what is written
/// between the quotes.
#[derive(Default)]
struct Guesses {
    next_key: Vec<Known>,
    /// The id of the key just written (`None`: inline, or none yet).
    last: Option<u32>,
}

impl Guesses {
    fn slot(last: u32, depth: usize) -> usize {
        let h = last.wrapping_mul(0x9E37_79B1) ^ (depth as u32).wrapping_mul(0x85EB_CA77);
        (h >> 20) as usize % GUESS_SLOTS
    }

    fn key(&self, depth: usize) -> Known {
        let at = Self::slot(self.last?, depth);
        self.next_key.get(at).copied().flatten()
    }

    /// A key was written at `depth` (`shared`: its table text and id, if it has one);
    /// `guessable`: written without escapes.
    fn wrote(&mut self, shared: Known, guessable: bool, depth: usize) {
        if let (true, Some(last), Some(key)) = (guessable, self.last, shared) {
            if self.next_key.is_empty() {
                self.next_key = vec![None; GUESS_SLOTS];
            }
            if let Some(s) = self.next_key.get_mut(Self::slot(last, depth)) {
                *s = Some(key);
            }
        }
        self.last = shared.map(|(_, id)| id);
    }
}

struct Parser<'a> {
    text: &'a str,
    b: &'a [u8],
    i: usize,
    depth: usize,
    out: RawBuilder,
    /// List item ranges of the current value, in the structural scan's order.
    items: Vec<(ItemPath, usize, usize)>,
    guesses: Guesses,
}

impl<'a> Parser<'a> {
    /// JSON's whitespace, as serde_json skips it.
    fn ws(&mut self) {
        while matches!(self.b.get(self.i), Some(b' ' | b'\n' | b'\t' | b'\r')) {
            self.i += 1;
        }
    }

    fn stream(&mut self) -> Option<Vec<JsonDoc>> {
        let mut docs = Vec::new();
        loop {
            self.ws();
            let start = self.i;
            match self.b.get(start) {
                None => return Some(docs),
                // Objects and arrays end themselves; a scalar needs serde_json's end check.
                Some(b'{' | b'[') if docs.len() < MAX_VALUES => {}
                Some(_) => return None,
            }
            self.value(Some(Vec::new()), Some(Vec::new()))?;
            let value = self.out.finish()?;
            self.out.clear_and_trim(KEEP_BUILDER_BYTES);
            docs.push(JsonDoc {
                value,
                start,
                end: self.i,
                items: std::mem::take(&mut self.items),
            });
        }
    }

    /// The value at the cursor (no whitespace before it). `as_item`: its item path if it
    /// is a list item; `as_items`: the prefix of its elements' paths if it is an `items`
    /// array (or the root) — as the structural scan passes them.
    fn value(&mut self, as_item: Option<ItemPath>, as_items: Option<ItemPath>) -> Option<()> {
        match *self.b.get(self.i)? {
            b'{' => self.object(as_item),
            b'[' => self.array(as_items),
            b'"' => {
                let s = self.string()?;
                self.out.str(&s);
                Some(())
            }
            b't' => self.literal(b"true", |o| o.bool(true)),
            b'f' => self.literal(b"false", |o| o.bool(false)),
            b'n' => self.literal(b"null", RawBuilder::null),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    fn enter(&mut self) -> Option<()> {
        self.depth += 1;
        (self.depth <= MAX_DEPTH).then_some(())
    }

    fn object(&mut self, path: Option<ItemPath>) -> Option<()> {
        self.enter()?;
        self.i += 1;
        self.out.begin_object();
        self.ws();
        if self.b.get(self.i) == Some(&b'}') {
            self.i += 1;
        } else {
            loop {
                if self.b.get(self.i) != Some(&b'"') {
                    return None;
                }
                let is_items = self.key()?;
                self.ws();
                if self.b.get(self.i) != Some(&b':') {
                    return None;
                }
                self.i += 1;
                self.ws();
                let prefix = if is_items { path.clone() } else { None };
                self.value(None, prefix)?;
                self.ws();
                match self.b.get(self.i) {
                    Some(b',') => {
                        self.i += 1;
                        self.ws();
                    }
                    Some(b'}') => {
                        self.i += 1;
                        break;
                    }
                    _ => return None,
                }
            }
        }
        self.depth -= 1;
        // A repeated key: serde_json's path words and places the error.
        self.out.end_object().ok()
    }

    /// The key at the cursor (its opening quote), written; the cursor then past its
    /// closing quote. Whether it is `"items"` as written.
    fn key(&mut self) -> Option<bool> {
        let from = self.i + 1;
        // The guess is taken when the bytes here are its text then a quote: a key without
        // escapes, whose value is exactly that text.
        if let Some((text, id)) = self.guesses.key(self.depth) {
            let end = from + text.len();
            if self
                .b
                .get(from..end)
                .is_some_and(|k| same(k, text.as_bytes()))
                && self.b.get(end) == Some(&b'"')
            {
                self.i = end + 1;
                self.out.key_known(text, id);
                self.guesses.last = Some(id);
                return Some(text == "items");
            }
        }
        let key = self.string()?;
        let is_items = self.b.get(from - 1..self.i) == Some(b"\"items\"");
        let shared = self.out.key(&key);
        self.guesses
            .wrote(shared, matches!(key, Cow::Borrowed(_)), self.depth);
        Some(is_items)
    }

    fn array(&mut self, prefix: Option<ItemPath>) -> Option<()> {
        self.enter()?;
        self.i += 1;
        self.out.begin_array();
        self.ws();
        if self.b.get(self.i) == Some(&b']') {
            self.i += 1;
        } else {
            let mut index: u32 = 0;
            loop {
                let start = self.i;
                let path = prefix.as_ref().map(|p| {
                    let mut p = p.clone();
                    p.push(index);
                    p
                });
                self.value(path.clone(), None)?;
                if let Some(path) = path {
                    self.items.push((path, start, self.i));
                }
                index = index.saturating_add(1);
                self.ws();
                match self.b.get(self.i) {
                    Some(b',') => {
                        self.i += 1;
                        self.ws();
                    }
                    Some(b']') => {
                        self.i += 1;
                        break;
                    }
                    _ => return None,
                }
            }
        }
        self.depth -= 1;
        self.out.end_array();
        Some(())
    }

    fn literal(&mut self, word: &[u8], write: impl FnOnce(&mut RawBuilder)) -> Option<()> {
        let end = self.i + word.len();
        if self.b.get(self.i..end) != Some(word) {
            return None;
        }
        self.i = end;
        write(&mut self.out);
        Some(())
    }

    /// An integer as serde_json reads it into a `u64` (positive) or an `i64` (negative);
    /// the rest (fractions, exponents, `-0`, beyond 64 bits) is given up on.
    fn number(&mut self) -> Option<()> {
        let negative = self.b.get(self.i) == Some(&b'-');
        let mut i = self.i + usize::from(negative);
        let first = *self.b.get(i)?;
        let mut n = match first {
            b'0' => 0,
            b'1'..=b'9' => u64::from(first - b'0'),
            _ => return None,
        };
        i += 1;
        if first != b'0' {
            while let Some(&c @ b'0'..=b'9') = self.b.get(i) {
                n = n.checked_mul(10)?.checked_add(u64::from(c - b'0'))?;
                i += 1;
            }
        }
        // A fraction, an exponent, or a digit after a leading zero.
        if matches!(self.b.get(i), Some(b'.' | b'e' | b'E' | b'0'..=b'9')) {
            return None;
        }
        self.i = i;
        if negative {
            // serde_json's own test: what does not negate into a negative `i64` is a float.
            let v = (n as i64).wrapping_neg();
            if v >= 0 {
                return None;
            }
            self.out.number(&Number::from(v));
        } else {
            self.out.number(&Number::from(n));
        }
        Some(())
    }

    /// The string at the cursor (its opening quote); the cursor then past its closing one.
    fn string(&mut self) -> Option<Cow<'a, str>> {
        let from = self.i + 1;
        let i = string_run(self.b, from);
        match *self.b.get(i)? {
            b'"' => {
                self.i = i + 1;
                self.text.get(from..i).map(Cow::Borrowed)
            }
            b'\\' => self.escaped_string(from, i),
            // A control character: serde_json's error.
            _ => None,
        }
    }

    /// [`Parser::string`] from `from` (after the opening quote) with an escape at `i`.
    fn escaped_string(&mut self, from: usize, mut i: usize) -> Option<Cow<'a, str>> {
        let mut s = self.text.get(from..i)?.to_owned();
        loop {
            let (c, used) = escape(self.b.get(i + 1..)?)?;
            s.push(c);
            let from = i + 1 + used;
            i = string_run(self.b, from);
            s.push_str(self.text.get(from..i)?);
            match *self.b.get(i)? {
                b'"' => {
                    self.i = i + 1;
                    return Some(Cow::Owned(s));
                }
                b'\\' => {}
                _ => return None,
            }
        }
    }
}

/// The first quote, backslash or control character (below U+0020) at or after `i`, or the
/// end: eight bytes at a time.
fn string_run(b: &[u8], mut i: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    // High bit set in the lowest byte of `w` that is `c` (maybe in bytes above it too).
    let eq = |w: u64, c: u8| {
        let x = w ^ (ONES * u64::from(c));
        x.wrapping_sub(ONES) & !x & HIGHS
    };
    while let Some(chunk) = b.get(i..i + 8) {
        let Ok(bytes) = <[u8; 8]>::try_from(chunk) else {
            break;
        };
        let w = u64::from_le_bytes(bytes);
        // The lowest byte below 0x20 (a borrow only flags bytes above a flagged one).
        let control = w.wrapping_sub(ONES * 0x20) & !w & HIGHS;
        let hit = eq(w, b'"') | eq(w, b'\\') | control;
        if hit != 0 {
            return i + (hit.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while b
        .get(i)
        .is_some_and(|&c| c != b'"' && c != b'\\' && c >= 0x20)
    {
        i += 1;
    }
    i
}

/// An escape after its backslash, as serde_json reads it: the character and how many
/// bytes it took; `None` for a surrogate (serde_json pairs them or errs) and any error.
fn escape(b: &[u8]) -> Option<(char, usize)> {
    let c = match b.first()? {
        b'"' => '"',
        b'\\' => '\\',
        b'/' => '/',
        b'b' => '\u{8}',
        b'f' => '\u{c}',
        b'n' => '\n',
        b'r' => '\r',
        b't' => '\t',
        b'u' => {
            let hex = b.get(1..5)?;
            if !hex.iter().all(u8::is_ascii_hexdigit) {
                return None;
            }
            let code = hex.iter().fold(0u32, |n, &h| {
                n * 16 + char::from(h).to_digit(16).unwrap_or(0)
            });
            if (0xD800..0xE000).contains(&code) {
                return None;
            }
            return Some((char::from_u32(code)?, 5));
        }
        _ => return None,
    };
    Some((c, 1))
}
