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

use super::guess::NextKeys;
use super::json::{JsonDoc, MAX_VALUES};
use super::swar;
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
        static GUESSES: RefCell<NextKeys> = RefCell::new(NextKeys::default());
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

struct Parser<'a> {
    text: &'a str,
    b: &'a [u8],
    i: usize,
    depth: usize,
    out: RawBuilder,
    /// List item ranges of the current value, in the structural scan's order.
    items: Vec<(ItemPath, usize, usize)>,
    /// The key after each key last time at the same depth (`guess.rs`): keys written
    /// without escapes, whose text is what is between the quotes.
    guesses: NextKeys,
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
                if self.closed_after_item(b'}')? {
                    break;
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
                self.guesses.took(id);
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
                if self.closed_after_item(b']')? {
                    break;
                }
            }
        }
        self.depth -= 1;
        self.out.end_array();
        Some(())
    }

    /// After a member or element: past a comma and the whitespace after it (`false`), or
    /// past `close` (`true`); `None` for anything else.
    fn closed_after_item(&mut self, close: u8) -> Option<bool> {
        self.ws();
        let closed = match *self.b.get(self.i)? {
            b',' => false,
            c if c == close => true,
            _ => return None,
        };
        self.i += 1;
        if !closed {
            self.ws();
        }
        Some(closed)
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
fn string_run(b: &[u8], i: usize) -> usize {
    swar::first(
        b,
        i,
        |w| swar::eq(w, b'"') | swar::eq(w, b'\\') | swar::below(w, 0x20),
        |c| c == b'"' || c == b'\\' || c < 0x20,
    )
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
