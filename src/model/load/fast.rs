//! A fast path for the YAML that kubectl, helm, PyYAML, ruamel and people write: block
//! mappings and sequences (compact `- key: v` and indentless forms included), plain and
//! quoted scalars (multi-line ones folded, escaped line breaks included), literal and folded
//! block scalars (indentation indicators included), single-line flow collections, comments,
//! `---`/`...` markers, LF or CRLF line ends, anchors and aliases on values, `<<` merge keys
//! in block mappings (with `yaml.rs`'s semantics and its alias bounds), and `? key` / `: `
//! explicit entries whose key is a scalar on one line (PyYAML's empty and long keys).
//!
//! It goes straight from the text to the compact [`Raw`] encoding (through a [`RawBuilder`],
//! bytes identical to `Raw::from_value` of saphyr's value) with the positions
//! [`super::yaml::parse`] would report, and gives up (`None`) the moment it meets anything
//! outside that subset or anything doubtful: anchors on keys, on the root or on list items
//! (whose positions would start at the anchor), aliases to unknown or open anchors or past
//! the alias bounds, tags, merge keys in flow mappings, flow collections spanning lines or
//! holding list items, implicit keys and pairs in flow collections, tabs where indentation
//! or separation is expected, lone carriage returns, directives, other complex keys,
//! duplicate keys, errors of any kind. It says why ([`Decline`]),
//! for the counts `kubesift bench` reports. The caller then parses the document with saphyr,
//! which also produces every error message: the fast path never reports one.
//!
//! Positions follow saphyr's markers: a block collection starts at its first key or dash
//! (an indentless sequence at the first token after its first dash) and ends where the next
//! token starts (or at the end of the text); a plain scalar ends after its last character;
//! a quoted scalar or a flow collection ends after the spaces and comment that follow it
//! on its line. tests/load_fast_equiv.rs checks both paths agree.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;

use serde_json::{Map, Value};

use super::guess::{self, Known, NextKeys};
use super::scalar;
use super::swar;
use super::yaml::{self, ItemPath, Weight, MAX_ALIAS_BYTES, MAX_ALIAS_WEIGHT};
use crate::value::keys::same;
use crate::value::strings;
use crate::value::{Raw, RawBuilder};

/// Deeper documents go to saphyr (which refuses beyond `yaml::MAX_DEPTH`).
const MAX_DEPTH: usize = 100;

/// saphyr refuses implicit keys longer than 1024 characters; stay clear of the limit.
const MAX_KEY_BYTES: usize = 1000;

/// A thread's reused builder keeps at most this much buffer between documents.
const KEEP_BUILDER_BYTES: usize = 1 << 20;

/// Why the fast path left a document to saphyr: the first construct it does not take.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Decline {
    /// A carriage return not followed by a line feed (a lone CR is a line break to YAML).
    CarriageReturn,
    /// A byte order mark inside the text.
    ByteOrderMark,
    /// A control character saphyr's path refuses.
    ControlCharacter,
    /// `%YAML` / `%TAG`.
    Directive,
    /// A tab where indentation or separation is expected.
    Tab,
    /// `&anchor` on a key, the root, a list item or in a flow collection.
    Anchor,
    /// `*alias` as a key or list item, to an unknown or open anchor, or past the bounds.
    Alias,
    /// `<<` merge key in a flow mapping, or with a value that is not a mapping or a list
    /// of mappings.
    MergeKey,
    /// `!tag`.
    Tag,
    /// `? ` complex (explicit) key other than a scalar on one line followed by `: `.
    ComplexKey,
    /// A mapping key spanning lines, or longer than saphyr allows.
    Key,
    /// A flow collection spanning lines.
    FlowLines,
    /// A flow collection form outside the subset (implicit keys, pairs in a sequence,
    /// empty entries, a list's items or a list item written in flow style).
    Flow,
    /// A multi-line plain scalar whose continuation looks like something else.
    PlainLines,
    /// A block scalar outside the subset (indentation indicator, at the root, odd
    /// leading lines).
    BlockScalar,
    /// A block scalar or an empty node as a list item (its end is not known here).
    ItemEnd,
    /// A repeated key (saphyr's path names both lines).
    DuplicateKey,
    /// Nesting deeper than the fast path goes.
    Deep,
    /// A scalar whose value saphyr's path refuses (`.nan`, a null key).
    Value,
    /// Not valid YAML, or not what the fast path can prove valid: saphyr's path decides.
    Other,
    /// The document is invalid: saphyr's path reported an error.
    Invalid,
}

impl Decline {
    /// Every reason, in report order.
    pub const ALL: [Decline; 21] = [
        Decline::CarriageReturn,
        Decline::ByteOrderMark,
        Decline::ControlCharacter,
        Decline::Directive,
        Decline::Tab,
        Decline::Anchor,
        Decline::Alias,
        Decline::MergeKey,
        Decline::Tag,
        Decline::ComplexKey,
        Decline::Key,
        Decline::FlowLines,
        Decline::Flow,
        Decline::PlainLines,
        Decline::BlockScalar,
        Decline::ItemEnd,
        Decline::DuplicateKey,
        Decline::Deep,
        Decline::Value,
        Decline::Other,
        Decline::Invalid,
    ];

    /// A short name for reports and logs.
    pub fn name(self) -> &'static str {
        match self {
            Decline::CarriageReturn => "lone-cr",
            Decline::ByteOrderMark => "bom",
            Decline::ControlCharacter => "control-char",
            Decline::Directive => "directive",
            Decline::Tab => "tab",
            Decline::Anchor => "anchor",
            Decline::Alias => "alias",
            Decline::MergeKey => "merge-key",
            Decline::Tag => "tag",
            Decline::ComplexKey => "complex-key",
            Decline::Key => "key",
            Decline::FlowLines => "flow-multiline",
            Decline::Flow => "flow",
            Decline::PlainLines => "plain-multiline",
            Decline::BlockScalar => "block-scalar",
            Decline::ItemEnd => "item-end",
            Decline::DuplicateKey => "duplicate-key",
            Decline::Deep => "deep",
            Decline::Value => "value",
            Decline::Other => "other",
            Decline::Invalid => "invalid",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// How the YAML documents of a load were parsed: by the fast path, or by saphyr and why.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct YamlStats {
    /// Documents with a value (or an error) taken by the fast path.
    pub fast: u64,
    /// Documents left to saphyr, per [`Decline`] (indexed in [`Decline::ALL`] order).
    pub fallback: [u64; Decline::ALL.len()],
}

impl YamlStats {
    /// Counts one document left to saphyr.
    pub fn declined(&mut self, why: Decline) {
        self.fallback[why.index()] += 1;
    }

    /// Documents left to saphyr.
    pub fn fallbacks(&self) -> u64 {
        self.fallback.iter().sum()
    }

    /// Documents parsed (fast + fallback).
    pub fn documents(&self) -> u64 {
        self.fast + self.fallbacks()
    }

    /// Adds another load's counts.
    pub fn add(&mut self, other: &YamlStats) {
        self.fast += other.fast;
        for (a, b) in self.fallback.iter_mut().zip(other.fallback) {
            *a += b;
        }
    }

    /// The reasons that occurred, most frequent first.
    pub fn reasons(&self) -> Vec<(Decline, u64)> {
        let mut r: Vec<_> = Decline::ALL
            .iter()
            .map(|&d| (d, self.fallback[d.index()]))
            .filter(|&(_, n)| n > 0)
            .collect();
        r.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        r
    }

    /// `fast path: 99.2 % of documents; fallback reasons: anchor 3, tab 1`.
    pub fn summary(&self) -> String {
        let share = if self.documents() == 0 {
            100.0
        } else {
            self.fast as f64 * 100.0 / self.documents() as f64
        };
        let reasons = self.reasons();
        let why = if reasons.is_empty() {
            "none".to_owned()
        } else {
            reasons
                .iter()
                .map(|(d, n)| format!("{} {n}", d.name()))
                .collect::<Vec<_>>()
                .join(", ")
        };
        format!(
            "fast path: {share:.1} % of {} documents; fallback reasons: {why}",
            self.documents()
        )
    }
}

/// A position in the document text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Loc {
    /// 1-based line.
    pub line: u32,
    /// Byte offset of the start of the line.
    pub line_start: usize,
    /// Byte offset.
    pub offset: usize,
}

impl Loc {
    /// 0-based column in characters, as saphyr counts it.
    pub fn col(&self, text: &str) -> u32 {
        let before = text.get(self.line_start..self.offset).unwrap_or("");
        let col = if before.is_ascii() {
            before.len()
        } else {
            before.chars().count()
        };
        u32::try_from(col).unwrap_or(u32::MAX)
    }
}

/// A document parsed by the fast path (positions relative to its text).
#[derive(Debug)]
pub(super) struct Parsed {
    pub value: Raw,
    pub root: Loc,
    /// Start and end (byte offset) of every list item.
    pub items: Vec<(ItemPath, Loc, usize)>,
}

/// Parses one document. `Err`: not handled here (and why), ask saphyr. `Ok(None)`: an
/// empty or null document.
pub(super) fn parse(text: &str) -> Result<Option<Parsed>, Decline> {
    if memchr::memchr(b'\r', text.as_bytes()).is_none() {
        return parse_lf(text);
    }
    // CRLF line ends: parsed with the CRs taken out, positions moved back onto the text.
    let (lf, crs) = without_crs(text).ok_or(Decline::CarriageReturn)?;
    let mut parsed = parse_lf(&lf)?;
    if let Some(p) = &mut parsed {
        let at = |o: usize| o + crs.partition_point(|&q| q < o);
        let loc = |l: Loc| Loc {
            line: l.line,
            line_start: at(l.line_start),
            offset: at(l.offset),
        };
        p.root = loc(p.root);
        for (_, start, end) in &mut p.items {
            *start = loc(*start);
            *end = at(*end);
        }
    }
    Ok(parsed)
}

/// `text` with every CR of a CRLF taken out, and where each was (its offset in the result,
/// the offset of the LF it preceded); `None` if a CR is not followed by a LF.
fn without_crs(text: &str) -> Option<(String, Vec<usize>)> {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut crs = Vec::new();
    let mut from = 0;
    for i in memchr::memchr_iter(b'\r', b) {
        if b.get(i + 1) != Some(&b'\n') {
            return None;
        }
        out.push_str(&text[from..i]);
        crs.push(out.len());
        from = i + 1;
    }
    out.push_str(&text[from..]);
    Some((out, crs))
}

/// [`parse`] of a text without carriage returns.
fn parse_lf(text: &str) -> Result<Option<Parsed>, Decline> {
    odd_bytes(text.as_bytes())?;
    match scan(text, false) {
        // A merge key needs the mapping's explicit keys: read again, remembering them
        // (only documents with `<<` pay for it).
        (Err(Decline::MergeKey), true) => scan(text, true).0,
        (parsed, _) => parsed,
    }
}

/// One pass of the scanner over `text` (see [`Scanner::track_keys`]); whether a merge key
/// was met while keys were not tracked.
fn scan(text: &str, track_keys: bool) -> (Result<Option<Parsed>, Decline>, bool) {
    thread_local! {
        /// Reused across documents so its buffers keep their capacity.
        static BUILDER: RefCell<RawBuilder> = RefCell::new(RawBuilder::new());
        /// Kept across documents: the guesses come from the documents before.
        static GUESSES: RefCell<Guesses> = RefCell::new(Guesses::default());
    }
    let mut s = Scanner {
        text,
        b: text.as_bytes(),
        pos: 0,
        line: 1,
        line_start: 0,
        items: Vec::new(),
        depth: 0,
        out: BUILDER.with(RefCell::take),
        why: Cell::new(Decline::Other),
        anchor_ids: HashMap::new(),
        anchored: Vec::new(),
        alias_weight: 0,
        alias_bytes: 0,
        track_keys,
        merge_seen: false,
        guesses: GUESSES.with(RefCell::take),
    };
    let parsed = s.document().ok_or(s.why.get());
    s.out.clear_and_trim(KEEP_BUILDER_BYTES);
    BUILDER.with(|b| b.replace(s.out));
    GUESSES.with(|k| k.replace(s.guesses));
    (parsed, s.merge_seen)
}

/// Carriage returns, NULs (saphyr's end of input), other control characters but tab and
/// newline (C1 controls and U+FFFE/U+FFFF included: go-yaml's reader refuses them, and the
/// saphyr path reports it), and byte order marks are left to saphyr.
fn odd_bytes(b: &[u8]) -> Result<(), Decline> {
    if plain_bytes(b) {
        return Ok(());
    }
    let bom = b.windows(3).any(|w| w == [0xef, 0xbb, 0xbf]);
    Err(if bom {
        Decline::ByteOrderMark
    } else {
        Decline::ControlCharacter
    })
}

fn plain_bytes(b: &[u8]) -> bool {
    // Branch-free per chunk so that it vectorizes; the exact check only where flagged.
    let odd = |c: u8| (c < 0x20 && c != b'\n' && c != b'\t') || c == 0x7f || c == 0xc2 || c == 0xef;
    b.chunks(64).enumerate().all(|(k, chunk)| {
        if !chunk.iter().fold(false, |acc, &c| acc | odd(c)) {
            return true;
        }
        (0..chunk.len()).all(|j| {
            let i = k * 64 + j;
            let (c, next) = (b[i], b.get(i + 1).copied());
            match c {
                // U+0080..U+009F but NEL (U+0085).
                0xc2 => !next.is_some_and(|n| (0x80..=0x9f).contains(&n) && n != 0x85),
                // U+FEFF (a byte order mark), U+FFFE, U+FFFF.
                0xef => !matches!(
                    (next, b.get(i + 2).copied()),
                    (Some(0xbb), Some(0xbf)) | (Some(0xbf), Some(0xbe | 0xbf))
                ),
                _ => !odd(c),
            }
        })
    })
}

/// Bytes a plain scalar on one line must look at: the rest are content.
static PLAIN_STOP: [bool; 256] = {
    let mut t = [false; 256];
    t[b' ' as usize] = true;
    t[b'\n' as usize] = true;
    t[b'\t' as usize] = true;
    t[b':' as usize] = true;
    t
};

/// Bytes that may start a plain scalar whatever follows them: not an indicator, a blank or
/// a line break (`-`, `?` and `:`, which start one only when no blank follows, are left out).
static PLAIN_START: [bool; 256] = {
    let mut t = [true; 256];
    let mut i = 0;
    let not = b"&*!|>'\"%@`,[]{}#?-: \n\t\r";
    while i < not.len() {
        t[not[i] as usize] = false;
        i += 1;
    }
    t
};

/// Bytes a quoted scalar spanning lines must look at: the rest are content.
static QUOTED_STOP: [bool; 256] = {
    let mut t = [false; 256];
    t[b' ' as usize] = true;
    t[b'\n' as usize] = true;
    t[b'\t' as usize] = true;
    t[b'\'' as usize] = true;
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t
};

/// The first byte at or after `i` that a plain scalar must look at ([`PLAIN_STOP`]), or the
/// end: eight bytes at a time (a zero-byte test per stop byte on a word), the tail a byte
/// at a time.
fn plain_run(b: &[u8], i: usize) -> usize {
    swar::first(
        b,
        i,
        |w| swar::eq(w, b' ') | swar::eq(w, b'\n') | swar::eq(w, b'\t') | swar::eq(w, b':'),
        |c| PLAIN_STOP[usize::from(c)],
    )
}

/// A parsed node (its value written to the scanner's builder) with its position.
struct Node {
    start: Loc,
    /// Byte offset of its end as saphyr reports it; `None` where the fast path does not
    /// know it exactly (empty and block scalars): such a node may not be a list item.
    end: Option<usize>,
}

/// How a plain scalar on one line ends.
enum PlainEnd {
    /// At a `:` indicator (byte offset of the colon): it is a mapping key.
    Colon(usize),
    /// At the end of the line or a comment.
    Line,
}

/// What a node under an indicator may be.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ctx {
    /// After `key:`: on the same line only a scalar; an indentless sequence may follow.
    MapValue,
    /// After `-`: a compact mapping or sequence may start on the same line.
    SeqItem,
}

struct Scanner<'a> {
    text: &'a str,
    b: &'a [u8],
    pos: usize,
    /// 1-based line of `pos`.
    line: u32,
    /// Byte offset where the line of `pos` starts.
    line_start: usize,
    items: Vec<(ItemPath, Loc, usize)>,
    depth: usize,
    /// Where values are written, in document order.
    out: RawBuilder,
    /// Why the last decline happened (read once the document is declined).
    why: Cell<Decline>,
    /// Anchor name → id of its latest definition, as saphyr's parser numbers them (a name
    /// defined again inside its own node keeps the inner definition).
    anchor_ids: HashMap<&'a str, usize>,
    /// By anchor id: the value and its alias cost, once its node is complete (an alias to
    /// an anchor whose node is still open is saphyr's error to report).
    anchored: Vec<Option<(Value, Weight)>>,
    /// What the aliases met so far would copy, measured as `yaml::Builder` measures it.
    alias_weight: usize,
    alias_bytes: usize,
    /// Whether the explicit keys of each mapping are remembered, for merge keys (a second
    /// pass, taken only by documents with `<<`).
    track_keys: bool,
    /// A merge key was met while keys were not tracked.
    merge_seen: bool,
    /// Guesses of the next key.
    guesses: Guesses,
}

/// A block mapping key.
enum Key<'a> {
    /// A key, and what its value may be: `key:` ([`Ctx::MapValue`]) or `? key` then `: `
    /// ([`Ctx::SeqItem`]: a compact mapping may follow; PyYAML writes empty and long keys
    /// so).
    Entry(Cow<'a, str>, Ctx),
    /// `key:` with a plain key that is its own text as a string (no quotes, no other
    /// resolution, no leading `-`, `?`, `:` or `.`): what [`Guesses`] may guess.
    Plain(&'a str),
    /// `key:` where the key is [`Guesses`]' guess: the key table's text and id.
    Known(&'static str, u32),
    /// `<<:`, whose value's keys are merged in.
    Merge,
}

/// Per thread, what followed each key last time, by the key's id and the column of what
/// followed ([`guess`]): the plain key after it in document order (across nesting), and its
/// value when that was a plain string of the table of repeated values. Manifests repeat the
/// shapes and many values of the ones before them (`apiVersion` then `kind` then
/// `metadata`; `imagePullPolicy: IfNotPresent`), so most keys and many values are
/// recognised by one comparison with the guess, without scanning for their end, resolving
/// them or looking them up in the tables. The column also tells the next label from the key
/// after `labels` once the labels end.
#[derive(Default)]
struct Guesses {
    keys: NextKeys,
    value: Vec<Known>,
}

impl Guesses {
    /// The guess for the key after the last one, at column `col`.
    fn key(&self, col: usize) -> Known {
        self.keys.key(col)
    }

    /// The guess for the value of the last key, written at column `col`.
    fn value(&self, col: usize) -> Known {
        guess::guessed(&self.value, guess::slot_of(self.keys.last()?, col))
    }

    /// The guessed key `id` was written.
    fn took(&mut self, id: u32) {
        self.keys.took(id);
    }

    /// A key was written at column `col` (`shared`: its table text and id, if it has one);
    /// `guessable`: a [`Key::Plain`] key, which may be guessed next time.
    fn wrote(&mut self, shared: Known, guessable: bool, col: usize) {
        self.keys.wrote(shared, guessable, col);
    }

    /// The last key, written at column `col`, had as value `value`, a plain string on its
    /// line with this id in the table of repeated values.
    fn wrote_value(&mut self, value: &'static str, id: u32, col: usize) {
        if let Some(last) = self.keys.last() {
            if let Some(s) = guess::slot(&mut self.value, guess::slot_of(last, col)) {
                *s = Some((value, id));
            }
        }
    }
}

fn is_sep(c: Option<&u8>) -> bool {
    matches!(c, None | Some(b' ' | b'\n'))
}

impl<'a> Scanner<'a> {
    /// Declines the document for `why`.
    fn no<T>(&self, why: Decline) -> Option<T> {
        self.why.set(why);
        None
    }

    fn document(&mut self) -> Option<Option<Parsed>> {
        self.skip_to_content()?;
        if self.col() == 0 && self.peek() == Some(b'%') {
            return self.no(Decline::Directive);
        }
        let mut ctx = Ctx::SeqItem;
        if self.col() == 0 && self.b[self.pos..].starts_with(b"---") && is_sep(self.at(3)) {
            self.pos += 3;
            self.skip_spaces()?;
            if matches!(self.peek(), None | Some(b'\n' | b'#')) {
                self.finish_line()?;
                self.skip_to_content()?;
            } else if self.is_dash() {
                return None;
            } else {
                // `--- text`: on the marker's line only a scalar or a flow collection.
                ctx = Ctx::MapValue;
            }
        }
        if self.eof() || self.at_doc_end() {
            self.doc_tail()?;
            return Some(None);
        }
        let root = self.loc();
        let node = self.node(-1, ctx, Some(Vec::new()), Some(Vec::new()))?;
        if node.end.is_none() {
            return self.no(Decline::BlockScalar);
        }
        self.doc_tail()?;
        let value = self.out.finish()?;
        if value.view().is_null() {
            return Some(None);
        }
        Some(Some(Parsed {
            value,
            root,
            items: std::mem::take(&mut self.items),
        }))
    }

    /// After the root node: nothing, or `...` and nothing.
    fn doc_tail(&mut self) -> Option<()> {
        if self.eof() {
            return Some(());
        }
        if !self.at_doc_end() {
            return None;
        }
        self.pos += 3;
        self.skip_spaces()?;
        match self.peek() {
            None => return Some(()),
            Some(b'\n') => self.newline(),
            Some(_) => return None,
        }
        (self.skip_to_content().is_some() && self.eof()).then_some(())
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }

    fn at(&self, k: usize) -> Option<&u8> {
        self.b.get(self.pos + k)
    }

    fn eof(&self) -> bool {
        self.pos >= self.b.len()
    }

    fn col(&self) -> usize {
        self.pos - self.line_start
    }

    fn loc(&self) -> Loc {
        Loc {
            line: self.line,
            line_start: self.line_start,
            offset: self.pos,
        }
    }

    fn at_doc_end(&self) -> bool {
        self.col() == 0 && self.b[self.pos..].starts_with(b"...") && is_sep(self.at(3))
    }

    fn newline(&mut self) {
        self.pos += 1;
        self.line += 1;
        self.line_start = self.pos;
    }

    /// Spaces only: a tab is left to saphyr.
    fn skip_spaces(&mut self) -> Option<()> {
        while let Some(c) = self.peek() {
            match c {
                b' ' => self.pos += 1,
                b'\t' => return self.no(Decline::Tab),
                _ => break,
            }
        }
        Some(())
    }

    /// The rest of a line after a node: spaces, then a comment or the end of the line.
    /// Moves to the start of the next line.
    fn finish_line(&mut self) -> Option<()> {
        let from = self.pos;
        self.skip_spaces()?;
        match self.peek() {
            None => return Some(()),
            Some(b'\n') => {}
            // A comment needs a blank before it (the caller may have skipped that blank).
            Some(b'#')
                if self.pos > from
                    || self.pos == self.line_start
                    || self.b[self.pos - 1] == b' ' =>
            {
                self.skip_comment()
            }
            Some(_) => return None,
        }
        if self.peek() == Some(b'\n') {
            self.newline();
        }
        Some(())
    }

    fn skip_comment(&mut self) {
        self.pos = self.b[self.pos..]
            .iter()
            .position(|&c| c == b'\n')
            .map_or(self.b.len(), |i| self.pos + i);
    }

    /// From the start of a line: skips blank and comment lines, stopping at the first
    /// content character (or the end of the text).
    fn skip_to_content(&mut self) -> Option<()> {
        loop {
            self.skip_spaces()?;
            match self.peek() {
                None => return Some(()),
                Some(b'\n') => self.newline(),
                Some(b'#') => {
                    self.skip_comment();
                    if self.peek() == Some(b'\n') {
                        self.newline();
                    }
                }
                Some(_) => return Some(()),
            }
        }
    }

    /// Offset of the next token, where a block collection that ends here ends.
    fn here_end(&self) -> usize {
        self.pos.min(self.b.len())
    }

    fn is_dash(&self) -> bool {
        self.peek() == Some(b'-') && is_sep(self.at(1))
    }

    /// A node starting at the cursor, inside a collection indented `n` (-1: the root).
    /// `seq_path`/`map_path`: item paths it gets if it is a sequence / mapping.
    fn node(
        &mut self,
        n: isize,
        ctx: Ctx,
        seq_path: Option<ItemPath>,
        map_path: Option<ItemPath>,
    ) -> Option<Node> {
        let c = self.col();
        if self.is_dash() {
            return self.seq(c, seq_path, false);
        }
        if self.peek() == Some(b'?') && is_sep(self.at(1)) {
            return self.compact_mapping(c, ctx, map_path);
        }
        let tracked = match self.peek() {
            Some(b'[') => seq_path.is_some() || map_path.is_some(),
            Some(b'{') => map_path.is_some(),
            _ => false,
        };
        let plain = match self.peek()? {
            b'"' | b'\'' => {
                if self.quoted_key_ahead()? {
                    return self.compact_mapping(c, ctx, map_path);
                }
                None
            }
            b'|' | b'>' | b'[' | b'{' => None,
            _ => {
                let (end, how) = self.plain(self.pos)?;
                if let PlainEnd::Colon(_) = how {
                    return self.compact_mapping(c, ctx, map_path);
                }
                Some(end)
            }
        };
        self.scalar(n, plain, tracked)
    }

    /// A mapping starting at the cursor, where `ctx` allows one.
    fn compact_mapping(&mut self, c: usize, ctx: Ctx, path: Option<ItemPath>) -> Option<Node> {
        if ctx == Ctx::SeqItem {
            self.mapping(c, path)
        } else {
            None
        }
    }

    /// Whether the quoted scalar at the cursor is a mapping key.
    fn quoted_key_ahead(&self) -> Option<bool> {
        let single = self.peek() == Some(b'\'');
        // Not closed on this line: a multi-line scalar, never a key.
        let Some((_, after)) = self.quoted(self.pos, single) else {
            return Some(false);
        };
        let mut i = after;
        while self.b.get(i) == Some(&b' ') {
            i += 1;
        }
        if self.b.get(i) == Some(&b':') {
            return is_sep(self.b.get(i + 1)).then_some(true);
        }
        Some(false)
    }

    /// A plain scalar on one line from `from`: where its text ends and how it ends.
    fn plain(&self, from: usize) -> Option<(usize, PlainEnd)> {
        let b = self.b;
        match b.get(from)? {
            b'&' => return self.no(Decline::Anchor),
            b'*' => return self.no(Decline::Alias),
            b'!' => return self.no(Decline::Tag),
            b'|' | b'>' | b'\'' | b'"' | b'%' | b'@' | b'`' | b',' | b'[' | b']' | b'{' | b'}'
            | b'#' => return None,
            b'?' if matches!(b.get(from + 1), None | Some(b' ' | b'\n' | b'\t')) => {
                return self.no(Decline::ComplexKey)
            }
            // `-` and `:` start a plain scalar when no blank follows.
            b'-' | b':' if matches!(b.get(from + 1), None | Some(b' ' | b'\n' | b'\t')) => {
                return None
            }
            _ => {}
        }
        if from == self.line_start
            && (b[from..].starts_with(b"---") || b[from..].starts_with(b"..."))
        {
            return None;
        }
        self.plain_rest(from)
    }

    /// [`Scanner::plain`] past the checks of its first character (a continuation line of
    /// a multi-line plain scalar may start with `*`, `&`, `!`, quotes, brackets, backticks:
    /// only the first line's first character can make them indicators).
    fn plain_rest(&self, from: usize) -> Option<(usize, PlainEnd)> {
        let b = self.b;
        let mut i = from;
        let mut text_end = from;
        loop {
            // Most bytes are ordinary: skip them eight at a time.
            let run = plain_run(b, i);
            if run > i {
                i = run;
                text_end = run;
            }
            match b.get(i) {
                None | Some(b'\n') => return Some((text_end, PlainEnd::Line)),
                Some(b' ') => {
                    i += 1;
                    if b.get(i) == Some(&b'#') {
                        return Some((text_end, PlainEnd::Line));
                    }
                }
                Some(b'\t') => return self.no(Decline::Tab),
                Some(b':') => match b.get(i + 1) {
                    None | Some(b' ' | b'\n') => return Some((text_end, PlainEnd::Colon(i))),
                    Some(b'\t') => return self.no(Decline::Tab),
                    Some(_) => {
                        i += 1;
                        text_end = i;
                    }
                },
                Some(_) => {
                    i += 1;
                    text_end = i;
                }
            }
        }
    }

    /// A single-line quoted scalar starting at `from` (the quote): its value and the
    /// offset after the closing quote.
    fn quoted(&self, from: usize, single: bool) -> Option<(Cow<'a, str>, usize)> {
        let b = self.b;
        let text = self.text;
        let quote = if single { b'\'' } else { b'"' };
        // `None` while the value is the text as written (no escape, no doubled quote).
        let mut out: Option<String> = None;
        let mut run = from + 1;
        let mut i = from + 1;
        loop {
            let c = *b.get(i)?;
            if c == b'\n' {
                return None;
            }
            if c == quote {
                if single && b.get(i + 1) == Some(&b'\'') {
                    out.get_or_insert_with(String::new).push_str(&text[run..=i]);
                    i += 2;
                    run = i;
                    continue;
                }
                let value = match out {
                    None => Cow::Borrowed(&text[run..i]),
                    Some(mut o) => {
                        o.push_str(&text[run..i]);
                        Cow::Owned(o)
                    }
                };
                return Some((value, i + 1));
            }
            if c == b'\\' && !single {
                let o = out.get_or_insert_with(String::new);
                o.push_str(&text[run..i]);
                let (ch, len) = escape(&b[i + 1..])?;
                o.push(ch);
                i += 1 + len;
                run = i;
                continue;
            }
            i += 1;
        }
    }

    /// A quoted scalar at the cursor spanning lines (a value, never a key), inside a
    /// collection indented `n`, folded as saphyr's `scan_flow_scalar` folds it: a line's
    /// trailing blanks and the next line's indentation go, one break becomes a space, more
    /// breaks become newlines, an escaped break (`\` at the end of a line) becomes nothing.
    /// Continuation lines must be indented deeper than `n`; tabs are left to saphyr. Returns the value and the offset after the
    /// closing quote, with the line tracking moved along.
    fn quoted_lines(&mut self, n: isize, single: bool) -> Option<(String, usize)> {
        let min = usize::try_from(n + 1).ok()?;
        let quote = if single { b'\'' } else { b'"' };
        let (text, b) = (self.text, self.b);
        let mut out = String::new();
        // Length of `out` without the blanks that a line break would drop.
        let mut keep = 0;
        let mut breaks = 0usize;
        // The first of `breaks` was escaped (`\` at the end of a line): it folds to nothing.
        let mut escaped = false;
        let mut i = self.pos + 1;
        loop {
            let c = *b.get(i)?;
            if breaks > 0 {
                match c {
                    b' ' => {
                        i += 1;
                        continue;
                    }
                    b'\n' => {
                        i += 1;
                        breaks += 1;
                        self.line += 1;
                        self.line_start = i;
                        continue;
                    }
                    b'\t' => return self.no(Decline::Tab),
                    _ if i - self.line_start < min => return None,
                    _ => {
                        if breaks == 1 && !escaped {
                            out.push(' ');
                        }
                        push_breaks(&mut out, breaks - 1);
                        escaped = false;
                        keep = out.len();
                        breaks = 0;
                    }
                }
            }
            match c {
                b'\n' => {
                    out.truncate(keep);
                    breaks = 1;
                    i += 1;
                    self.line += 1;
                    self.line_start = i;
                }
                b'\t' => return self.no(Decline::Tab),
                b' ' => {
                    out.push(' ');
                    i += 1;
                }
                b'\'' if single && b.get(i + 1) == Some(&b'\'') => {
                    out.push('\'');
                    keep = out.len();
                    i += 2;
                }
                c if c == quote => return Some((out, i + 1)),
                b'\\' if !single && b.get(i + 1) == Some(&b'\n') => {
                    // The blanks before an escaped line break are kept.
                    keep = out.len();
                    breaks = 1;
                    escaped = true;
                    i += 2;
                    self.line += 1;
                    self.line_start = i;
                }
                b'\\' if !single => {
                    let (ch, len) = escape(b.get(i + 1..)?)?;
                    out.push(ch);
                    keep = out.len();
                    i += 1 + len;
                }
                _ => {
                    // Content up to the next byte that matters, copied at once (those bytes
                    // are ASCII: the run ends on a character boundary).
                    let run = b[i + 1..]
                        .iter()
                        .position(|&c| QUOTED_STOP[usize::from(c)])
                        .map_or(b.len(), |k| i + 1 + k);
                    out.push_str(text.get(i..run)?);
                    keep = out.len();
                    i = run;
                }
            }
        }
    }

    /// A scalar (or empty flow collection) at the cursor, inside a collection indented `n`;
    /// `plain_end`: where the text of a plain scalar ends, already scanned; `tracked`: a
    /// flow collection here would be a list's items, a list item or the root. Leaves the cursor at the next token.
    fn scalar(&mut self, n: isize, plain_end: Option<usize>, tracked: bool) -> Option<Node> {
        let start = self.loc();
        match self.peek()? {
            b'|' | b'>' => {
                let v = self.block_scalar(n)?;
                self.out.str(&v);
                return Some(Node { start, end: None });
            }
            q @ (b'"' | b'\'') => {
                let (s, after) = match self.quoted(self.pos, q == b'\'') {
                    Some(one_line) => one_line,
                    None => {
                        let (s, after) = self.quoted_lines(n, q == b'\'')?;
                        (Cow::Owned(s), after)
                    }
                };
                self.pos = after;
                self.out.str(&s);
            }
            // Items inside a list's flow collection would need positions: saphyr's job.
            b'[' | b'{' if tracked && !matches!(self.at(1), Some(b']' | b'}')) => {
                return self.no(Decline::Flow)
            }
            b'[' | b'{' => self.flow()?,
            _ => {
                let end = plain_end?;
                let from = self.pos;
                self.pos = end;
                if let Some((text, end)) = self.plain_continuation(from, end, n)? {
                    self.plain_into(&text)?;
                    self.skip_to_content()?;
                    return Some(Node {
                        start,
                        end: Some(end),
                    });
                }
                self.plain_into(&{ self.text }[from..end])?;
                self.finish_line()?;
                self.skip_to_content()?;
                return Some(Node {
                    start,
                    end: Some(end),
                });
            }
        }
        // Quoted scalars and flow collections end after the spaces and comment that follow.
        self.skip_spaces()?;
        if self.peek() == Some(b'#') && self.b[self.pos - 1] == b' ' {
            self.skip_comment();
        }
        let end = self.pos;
        self.finish_line()?;
        self.skip_to_content()?;
        Some(Node {
            start,
            end: Some(end),
        })
    }

    /// A flow collection at the cursor (`[` or `{`), on one line: scalars, nested flow
    /// collections and, in a mapping, `key: value` pairs. Implicit keys, pairs in a
    /// sequence, empty entries, trailing commas and JSON-style `"a":1` are left to saphyr.
    fn flow(&mut self) -> Option<()> {
        self.enter()?;
        // Anything but a flow collection closed on its line is declined for that reason.
        self.why.set(Decline::Other);
        let done = self.flow_items();
        if done.is_none() && self.why.get() == Decline::Other {
            let at_eol = matches!(self.b.get(self.pos..), Some(rest) if rest.iter().find(|&&c| c != b' ').is_none_or(|&c| c == b'\n'));
            self.why.set(if at_eol {
                Decline::FlowLines
            } else {
                Decline::Flow
            });
        }
        done
    }

    /// [`Scanner::flow`] after its depth check.
    fn flow_items(&mut self) -> Option<()> {
        let is_map = self.peek() == Some(b'{');
        let close = if is_map { b'}' } else { b']' };
        if is_map {
            self.out.begin_object();
        } else {
            self.out.begin_array();
        }
        self.pos += 1;
        self.skip_spaces()?;
        if self.peek() != Some(close) {
            loop {
                if is_map {
                    let key = self.flow_key()?;
                    self.out.key(&key);
                }
                self.flow_node()?;
                self.skip_spaces()?;
                match self.peek()? {
                    b',' => {
                        self.pos += 1;
                        self.skip_spaces()?;
                        if matches!(self.peek(), Some(b']' | b'}' | b',')) {
                            return None;
                        }
                    }
                    c if c == close => break,
                    _ => return None,
                }
            }
        }
        self.pos += 1;
        self.depth -= 1;
        if is_map {
            // A repeated key: saphyr's path reports it.
            if self.out.end_object().is_err() {
                return self.no(Decline::DuplicateKey);
            }
        } else {
            self.out.end_array();
        }
        Some(())
    }

    /// A flow mapping key and its `: `; leaves the cursor at the value.
    fn flow_key(&mut self) -> Option<Cow<'a, str>> {
        let from = self.pos;
        let key = match self.peek()? {
            q @ (b'"' | b'\'') => {
                let (s, after) = self.quoted(from, q == b'\'')?;
                self.pos = after;
                s
            }
            _ => {
                let end = self.flow_plain()?;
                let text = &self.text[from..end];
                if text == "<<" {
                    return self.no(Decline::MergeKey);
                }
                self.pos = end;
                self.plain_key(text)?
            }
        };
        self.skip_spaces()?;
        if self.peek() != Some(b':') || self.at(1) != Some(&b' ') || self.pos - from > MAX_KEY_BYTES
        {
            return None;
        }
        self.pos += 1;
        self.skip_spaces()?;
        Some(key)
    }

    /// A node inside a flow collection.
    fn flow_node(&mut self) -> Option<()> {
        match self.peek()? {
            b'[' | b'{' => self.flow(),
            b'*' => self.write_alias(),
            q @ (b'"' | b'\'') => {
                let (s, after) = self.quoted(self.pos, q == b'\'')?;
                self.pos = after;
                self.out.str(&s);
                Some(())
            }
            _ => {
                let end = self.flow_plain()?;
                self.plain_into(&{ self.text }[self.pos..end])?;
                self.pos = end;
                Some(())
            }
        }
    }

    /// Where a plain scalar in a flow collection ends (it must end on this line).
    fn flow_plain(&self) -> Option<usize> {
        let b = self.b;
        let from = self.pos;
        match b.get(from)? {
            b'-' if matches!(
                b.get(from + 1),
                None | Some(b' ' | b'\n' | b'\t' | b',' | b'[' | b']' | b'{' | b'}')
            ) =>
            {
                return None
            }
            b'&' | b'*' | b'!' | b'|' | b'>' | b'\'' | b'"' | b'%' | b'@' | b'`' | b',' | b'['
            | b']' | b'{' | b'}' | b'#' | b'?' | b':' => return None,
            _ => {}
        }
        let mut i = from;
        let mut end = from;
        loop {
            match b.get(i) {
                None | Some(b'\n') => return self.no(Decline::FlowLines),
                Some(b'\t' | b'#') => return None,
                Some(b' ') => i += 1,
                Some(b',' | b'[' | b']' | b'{' | b'}') => return Some(end),
                Some(b':') => match b.get(i + 1) {
                    None | Some(b' ' | b'\n' | b',' | b'[' | b']' | b'{' | b'}') => {
                        return Some(end)
                    }
                    Some(_) => {
                        i += 1;
                        end = i;
                    }
                },
                Some(_) => {
                    i += 1;
                    end = i;
                }
            }
        }
    }

    /// Whether only spaces follow `at` up to a line break (not the end of the text).
    fn blank_to_eol(&self, at: usize) -> bool {
        let rest = &self.b[at..];
        let spaces = rest.iter().take_while(|&&c| c == b' ').count();
        rest.get(spaces) == Some(&b'\n')
    }

    /// The lines continuing a plain scalar whose first line is `from..end` (the cursor at
    /// `end`), inside a collection indented `n`, folded as saphyr folds them: the text and
    /// where it ends, the cursor then at the start of the line after it. `Some(None)`: no
    /// continuation, cursor unchanged. Continuation lines must be plain text to their end
    /// (no indicator first, no `: `, no comment, no tab), else `None`.
    fn plain_continuation(
        &mut self,
        from: usize,
        end: usize,
        n: isize,
    ) -> Option<Option<(String, usize)>> {
        if n < 0 || !self.blank_to_eol(end) {
            return Some(None);
        }
        let saved = (self.pos, self.line, self.line_start);
        self.skip_spaces()?;
        self.newline();
        let min = usize::try_from(n + 1).ok()?;
        let mut text: Option<String> = None;
        let mut text_end = end;
        let mut breaks = 0usize;
        loop {
            let s = self.count_spaces();
            let at = self.pos + s;
            match self.b.get(at) {
                Some(b'\n') => {
                    self.pos = at;
                    self.newline();
                    breaks += 1;
                    continue;
                }
                None | Some(b'#') => break,
                Some(b'\t') => return None,
                Some(_) if s < min => break,
                Some(_) => {}
            }
            // `- `, `? ` and `: ` would read as indicators to a reader that is not sure.
            if matches!(self.b.get(at), Some(b'-' | b'?' | b':'))
                && matches!(self.b.get(at + 1), None | Some(b' ' | b'\n' | b'\t'))
            {
                return self.no(Decline::PlainLines);
            }
            let Some((e, PlainEnd::Line)) = self.plain_rest(at) else {
                return self.no(Decline::PlainLines);
            };
            if !self.blank_to_eol(e) && e != self.b.len() {
                return self.no(Decline::PlainLines);
            }
            let out = text.get_or_insert_with(|| self.text[from..end].to_owned());
            if breaks == 0 {
                out.push(' ');
            }
            push_breaks(out, breaks);
            out.push_str(&self.text[at..e]);
            text_end = e;
            breaks = 0;
            self.pos = e;
            self.skip_spaces()?;
            if self.eof() {
                break;
            }
            self.newline();
        }
        match text {
            Some(t) => Some(Some((t, text_end))),
            None => {
                (self.pos, self.line, self.line_start) = saved;
                Some(None)
            }
        }
    }

    /// A node after `key:` or `-` (the cursor just past the indicator), inside a collection
    /// indented `n`. Returns the node and where the first token after the indicator is.
    #[inline]
    fn value(
        &mut self,
        n: isize,
        ctx: Ctx,
        seq_path: Option<ItemPath>,
        map_path: Option<ItemPath>,
    ) -> Option<(Node, Loc)> {
        self.skip_spaces()?;
        let tracked = seq_path.is_some() || map_path.is_some();
        match self.peek() {
            Some(b'&') => return self.anchored(n, ctx, tracked),
            Some(b'*') => return self.alias(tracked),
            _ => {}
        }
        self.value_after(n, ctx, seq_path, map_path)
    }

    /// [`Scanner::value`] past its properties (the cursor at the node or the end of the
    /// indicator's line).
    fn value_after(
        &mut self,
        n: isize,
        ctx: Ctx,
        seq_path: Option<ItemPath>,
        map_path: Option<ItemPath>,
    ) -> Option<(Node, Loc)> {
        let inline = !matches!(self.peek(), None | Some(b'\n' | b'#'));
        if inline {
            let first = self.loc();
            if ctx == Ctx::MapValue && self.is_dash() {
                return None;
            }
            return Some((self.node(n, ctx, seq_path, map_path)?, first));
        }
        self.finish_line()?;
        self.skip_to_content()?;
        let first = self.loc();
        if self.eof() || self.at_doc_end() {
            return Some((self.empty(first), first));
        }
        let c = isize::try_from(self.col()).ok()?;
        if c > n {
            return Some((self.node(n, Ctx::SeqItem, seq_path, map_path)?, first));
        }
        if c == n && ctx == Ctx::MapValue && self.is_dash() {
            return Some((self.seq(self.col(), seq_path, true)?, first));
        }
        Some((self.empty(first), first))
    }

    /// An empty node (null) at `at`.
    fn empty(&mut self, at: Loc) -> Node {
        self.out.null();
        Node {
            start: at,
            end: None,
        }
    }

    fn enter(&mut self) -> Option<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return self.no(Decline::Deep);
        }
        Some(())
    }

    /// A block mapping whose first key is at the cursor, at column `c`.
    fn mapping(&mut self, c: usize, path: Option<ItemPath>) -> Option<Node> {
        self.enter()?;
        let start = self.loc();
        let n = isize::try_from(c).ok()?;
        self.out.begin_object();
        // Only with `track_keys`: the explicit keys, and what merge keys bring.
        let mut explicit: Vec<Cow<'a, str>> = Vec::new();
        let mut merged: Option<Map<String, Value>> = None;
        loop {
            if let Some((key, ctx)) = self.entry_key()? {
                let done = ctx == Ctx::MapValue && self.plain_line_value(n)?;
                if !done {
                    let seq_path = if key == "items" { path.clone() } else { None };
                    self.value(n, ctx, seq_path, None)?;
                }
                if self.track_keys {
                    explicit.push(key);
                }
            } else {
                self.merge(n, merged.get_or_insert_with(Map::new))?;
            }
            if self.eof() || self.at_doc_end() || self.col() < c {
                break;
            }
            if self.col() > c || self.is_dash() {
                return None;
            }
        }
        self.depth -= 1;
        if let Some(merged) = merged {
            self.write_merged(merged, explicit);
        }
        // A repeated key: saphyr's path reports it.
        if self.out.end_object().is_err() {
            return self.no(Decline::DuplicateKey);
        }
        Some(Node {
            start,
            end: Some(self.here_end()),
        })
    }

    /// The most common entry value, ` value` to the end of the line after `key:` (the
    /// cursor just past the colon, inside a mapping indented `n`): a plain scalar ending at
    /// its line break, the next line not continuing it. Written, and the cursor moved on,
    /// exactly as [`Scanner::value`] would, without its general dispatch; `Some(false)`:
    /// not that case, nothing done (`value` then takes it).
    #[inline]
    fn plain_line_value(&mut self, n: isize) -> Option<bool> {
        let b = self.b;
        let mut p = self.pos;
        if b.get(p) != Some(&b' ') {
            return Some(false);
        }
        while b.get(p) == Some(&b' ') {
            p += 1;
        }
        // A first byte that cannot be an indicator (`-`, `?` and `:` left to `value`).
        if !b.get(p).is_some_and(|&c| PLAIN_START[usize::from(c)]) {
            return Some(false);
        }
        // The guess is taken when the text here is the value and a line break: a scan
        // would end there, and resolve it to the same string.
        let col = usize::try_from(n).unwrap_or_default();
        if let Some((text, id)) = self.guesses.value(col) {
            let end = p + text.len();
            if b.get(p..end).is_some_and(|v| same(v, text.as_bytes())) && b.get(end) == Some(&b'\n')
            {
                if let Some(next) = ends_scalar(b, end + 1, n) {
                    self.out.str_id(id);
                    return self.after_plain_line(end, next);
                }
            }
        }
        let Some((end, PlainEnd::Line)) = self.plain_rest(p) else {
            return Some(false);
        };
        if b.get(end) != Some(&b'\n') {
            return Some(false);
        }
        let Some(next) = ends_scalar(b, end + 1, n) else {
            return Some(false);
        };
        let text = &self.text[p..end];
        match scalar::resolve(text) {
            scalar::Plain::Str => {
                if let Some(id) = self.out.str_shared(text) {
                    if let Some(shared) = strings::get(u64::from(id)) {
                        self.guesses.wrote_value(shared, id, col);
                    }
                }
            }
            // A value saphyr's path refuses is left to `value`, which declines it.
            v => match scalar::to_json(v, text) {
                Ok(v) => self.out.value(&v),
                Err(_) => return Some(false),
            },
        }
        self.after_plain_line(end, next)
    }

    /// The cursor past a plain scalar ending at `end`, a line break, as `finish_line` then
    /// `skip_to_content` would move it; `next`: where the next line's indentation ends, as
    /// [`ends_scalar`] found it (its spaces are not counted again).
    #[inline]
    fn after_plain_line(&mut self, end: usize, next: usize) -> Option<bool> {
        self.pos = end;
        self.newline();
        self.pos = next;
        // A comment line (and whatever blank and comment lines follow): the general way.
        // `ends_scalar` refused a blank line and a tab, so nothing else needs looking at.
        if self.peek() == Some(b'#') {
            self.skip_to_content()?;
        }
        Some(true)
    }

    /// A mapping key at the cursor, written (the cursor then after its `:`): the key and
    /// what its value may be; `None` for a merge key (`<<:`, not written).
    fn entry_key(&mut self) -> Option<Option<(Cow<'a, str>, Ctx)>> {
        let col = self.col();
        let entry = match self.key()? {
            Key::Merge => return Some(None),
            Key::Known(text, id) => {
                self.out.key_known(text, id);
                self.guesses.took(id);
                (Cow::Borrowed(text), Ctx::MapValue)
            }
            Key::Plain(text) => {
                let shared = self.out.key(text);
                self.guesses.wrote(shared, true, col);
                (Cow::Borrowed(text), Ctx::MapValue)
            }
            Key::Entry(key, ctx) => {
                let shared = self.out.key(&key);
                self.guesses.wrote(shared, false, col);
                (key, ctx)
            }
        };
        Some(Some(entry))
    }

    /// A mapping key at the cursor; leaves the cursor after its `:`.
    fn key(&mut self) -> Option<Key<'a>> {
        let from = self.pos;
        // The guess is taken when the text here is the key followed by `: ` (or `:` and a
        // line break): a plain key's scan would stop exactly there.
        if let Some((text, id)) = self.guesses.key(self.col()) {
            let end = from + text.len();
            if self
                .b
                .get(from..end)
                .is_some_and(|k| same(k, text.as_bytes()))
                && self.b.get(end) == Some(&b':')
                && is_sep(self.b.get(end + 1))
            {
                self.pos = end + 1;
                return Some(Key::Known(text, id));
            }
        }
        let key = match self.peek()? {
            b'?' if is_sep(self.at(1)) => return self.explicit_key(),
            q @ (b'"' | b'\'') => {
                let Some((s, after)) = self.quoted(from, q == b'\'') else {
                    return self.no(Decline::Key);
                };
                self.pos = after;
                self.skip_spaces()?;
                s
            }
            _ => {
                let (end, PlainEnd::Colon(colon)) = self.plain(from)? else {
                    return None;
                };
                let text = &self.text[from..end];
                if text == "<<" {
                    self.pos = colon + 1;
                    return Some(Key::Merge);
                }
                self.pos = colon;
                let key = self.plain_key(text)?;
                // The key's own text, and nothing a guess taken at another column or after
                // another indicator could misread (`-`, `?`, `:`, `...` at column 0).
                let guessable = matches!(key, Cow::Borrowed(_))
                    && PLAIN_START[usize::from(text.as_bytes()[0])]
                    && !text.starts_with('.')
                    && colon == end;
                if guessable && colon - from <= MAX_KEY_BYTES {
                    self.pos += 1;
                    return Some(Key::Plain(text));
                }
                key
            }
        };
        if self.pos - from > MAX_KEY_BYTES {
            return self.no(Decline::Key);
        }
        if self.peek() != Some(b':') || !is_sep(self.at(1)) {
            return None;
        }
        self.pos += 1;
        Some(Key::Entry(key, Ctx::MapValue))
    }

    /// `? key` at the cursor, the key a plain scalar on one line or a quoted one, then `: `
    /// on the next line at the same column; leaves the cursor after that `:`. Anything else
    /// is declined.
    fn explicit_key(&mut self) -> Option<Key<'a>> {
        let c = self.col();
        self.pos += 1;
        self.skip_spaces()?;
        let from = self.pos;
        let key = match self.peek() {
            None | Some(b'\n' | b'#') => return self.no(Decline::ComplexKey),
            Some(q @ (b'"' | b'\'')) => {
                // PyYAML and ruamel fold keys longer than the line width over lines.
                let (s, after) = match self.quoted(from, q == b'\'') {
                    Some(one_line) => one_line,
                    None => {
                        let (s, after) = self.quoted_lines(isize::try_from(c).ok()?, q == b'\'')?;
                        (Cow::Owned(s), after)
                    }
                };
                self.pos = after;
                s
            }
            Some(_) => {
                let Some((end, PlainEnd::Line)) = self.plain(from) else {
                    return self.no(Decline::ComplexKey);
                };
                let text = &self.text[from..end];
                // Plain `<<` is a merge key, even explicit.
                if text == "<<" {
                    return self.no(Decline::MergeKey);
                }
                self.pos = end;
                self.plain_key(text)?
            }
        };
        self.finish_line()?;
        self.skip_to_content()?;
        if self.col() != c || self.peek() != Some(b':') || !is_sep(self.at(1)) || key == "items" {
            return self.no(Decline::ComplexKey);
        }
        self.pos += 1;
        Some(Key::Entry(key, Ctx::SeqItem))
    }

    /// The value of a merge key (`<<: *base`, `<<: [*a, *b]`, or a mapping written in place)
    /// into `merged`, as `yaml::merge_into` takes it; inside a mapping indented `n`.
    #[cold]
    fn merge(&mut self, n: isize, merged: &mut Map<String, Value>) -> Option<()> {
        if !self.track_keys {
            self.merge_seen = true;
            return self.no(Decline::MergeKey);
        }
        let (_, value) = self.captured(|s| s.value(n, Ctx::MapValue, None, None))?;
        match yaml::merge_into(merged, value) {
            Ok(()) => Some(()),
            // Not a mapping or a list of them: saphyr's path reports it.
            Err(_) => self.no(Decline::MergeKey),
        }
    }

    /// Writes the merged entries whose keys the mapping does not set itself (`explicit`:
    /// every key it sets), into the open object.
    #[cold]
    fn write_merged(&mut self, merged: Map<String, Value>, mut explicit: Vec<Cow<'a, str>>) {
        explicit.sort_unstable();
        for (k, v) in &merged {
            if explicit
                .binary_search_by(|e| (**e).cmp(k.as_str()))
                .is_err()
            {
                self.out.key(k);
                self.out.value(v);
            }
        }
    }

    /// Runs `f` with a builder of its own, for a node whose value is needed apart (an
    /// anchor's, a merge key's); writes nothing. The result and the value `f` wrote.
    fn captured<T>(&mut self, f: impl FnOnce(&mut Self) -> Option<T>) -> Option<(T, Value)> {
        let outer = std::mem::take(&mut self.out);
        let r = f(self);
        let mut inner = std::mem::replace(&mut self.out, outer);
        let raw = inner.finish();
        let r = r?;
        Some((r, raw?.to_value()))
    }

    /// `&name` at the cursor, then its node (the value after `key:` or `-`): written, and
    /// kept for the aliases that follow. An anchor on a list item or a list's items (whose
    /// positions would start at it) or on a key is declined.
    fn anchored(&mut self, n: isize, ctx: Ctx, tracked: bool) -> Option<(Node, Loc)> {
        if tracked {
            return self.no(Decline::Anchor);
        }
        let name = self.name(Decline::Anchor)?;
        self.skip_spaces()?;
        let inline = !matches!(self.peek(), None | Some(b'\n' | b'#'));
        // `- &a key: v` anchors the key (which saphyr's path never stores), and `&a - x` on
        // one line is outside the subset: on the anchor's line only a scalar or a flow
        // collection.
        if inline && self.is_dash() {
            return self.no(Decline::Anchor);
        }
        let ctx = if inline { Ctx::MapValue } else { ctx };
        let id = self.anchored.len();
        self.anchored.push(None);
        self.anchor_ids.insert(name, id);
        let (node, value) = self.captured(|s| s.value_after(n, ctx, None, None))?;
        let weight = yaml::weight(&value);
        self.out.value(&value);
        self.anchored[id] = Some((value, weight));
        Some(node)
    }

    /// `*name` at the cursor, as a value after `key:` or `-` (the rest of its line blank or
    /// a comment); declined as a list item or a list's items.
    fn alias(&mut self, tracked: bool) -> Option<(Node, Loc)> {
        let start = self.loc();
        if tracked {
            return self.no(Decline::Alias);
        }
        self.write_alias()?;
        self.finish_line()?;
        self.skip_to_content()?;
        Some((Node { start, end: None }, start))
    }

    /// `*name` at the cursor: writes a copy of the anchored value, counting it against the
    /// alias bounds of `yaml::Builder` (declined past them: saphyr's path reports it, as it
    /// reports an unknown anchor).
    fn write_alias(&mut self) -> Option<()> {
        let name = self.name(Decline::Alias)?;
        let Some((value, weight)) = self
            .anchor_ids
            .get(name)
            .and_then(|&id| self.anchored.get(id))
            .and_then(Option::as_ref)
        else {
            return self.no(Decline::Alias);
        };
        self.alias_weight = self.alias_weight.saturating_add(weight.nodes);
        self.alias_bytes = self
            .alias_bytes
            .saturating_add(weight.output_bytes(self.depth));
        if self.alias_weight > MAX_ALIAS_WEIGHT || self.alias_bytes > MAX_ALIAS_BYTES {
            return self.no(Decline::Alias);
        }
        self.out.value(value);
        Some(())
    }

    /// The name after `&` or `*` at the cursor (ASCII letters, digits, `-`, `_`, `.`, `/`;
    /// anything else declined), the cursor then after it.
    fn name(&mut self, why: Decline) -> Option<&'a str> {
        let from = self.pos + 1;
        let len = self.b[from..]
            .iter()
            .take_while(|&&c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.' | b'/'))
            .count();
        let end = from + len;
        if len == 0
            || !matches!(
                self.b.get(end),
                None | Some(b' ' | b'\n' | b',' | b']' | b'}')
            )
        {
            return self.no(why);
        }
        self.pos = end;
        Some(&self.text[from..end])
    }

    /// A block sequence whose first dash is at the cursor, at column `c`; `path`: the item
    /// path prefix if it is a list's `items` (or the root).
    fn seq(&mut self, c: usize, path: Option<ItemPath>, indentless: bool) -> Option<Node> {
        self.enter()?;
        let mut start = self.loc();
        let n = isize::try_from(c).ok()?;
        self.out.begin_array();
        let mut count = 0usize;
        loop {
            self.pos += 1;
            let i = u32::try_from(count).ok()?;
            let item_path = path.as_ref().map(|p| with(p, i));
            let (node, first) = self.value(n, Ctx::SeqItem, None, item_path.clone())?;
            if indentless && i == 0 {
                start = first;
            }
            if let Some(p) = item_path {
                let Some(end) = node.end else {
                    return self.no(Decline::ItemEnd);
                };
                self.items.push((p, node.start, end));
            }
            count += 1;
            if self.eof() || self.at_doc_end() || self.col() < c {
                break;
            }
            if self.col() > c {
                return None;
            }
            if !self.is_dash() {
                if indentless {
                    break;
                }
                return None;
            }
        }
        self.depth -= 1;
        self.out.end_array();
        Some(Node {
            start,
            end: Some(self.here_end()),
        })
    }

    /// A literal or folded block scalar whose header is at the cursor, inside a collection
    /// indented `n`; as saphyr's `scan_block_scalar` builds it. Leaves the cursor at the
    /// next token.
    fn block_scalar(&mut self, n: isize) -> Option<String> {
        let folded = self.peek() == Some(b'>');
        self.pos += 1;
        let (chomp, increment) = self.block_header()?;
        if !matches!(self.peek(), None | Some(b' ' | b'\n')) || n < 0 {
            return self.no(Decline::BlockScalar);
        }
        self.finish_line()?;
        if self.eof() {
            return self.no(Decline::BlockScalar);
        }
        let (indent, mut breaks) = match increment {
            None => self.block_auto_indent(n)?,
            Some(k) => (
                usize::try_from(n).ok()? + k,
                self.block_leading_lines(n, k)?,
            ),
        };
        let mut out = String::new();
        let mut leading_break = false;
        let mut leading_blank = false;
        let mut at_eof_col = None;
        loop {
            // At a content line, `indent` spaces in.
            self.pos += indent;
            let line_end = self.b[self.pos..]
                .iter()
                .position(|&c| c == b'\n')
                .map_or(self.b.len(), |i| self.pos + i);
            let trailing_blank = matches!(self.peek(), Some(b' ' | b'\t'));
            if folded && leading_break && !leading_blank && !trailing_blank {
                if breaks == 0 {
                    out.push(' ');
                }
            } else if leading_break {
                out.push('\n');
            }
            push_breaks(&mut out, breaks);
            leading_blank = trailing_blank;
            out.push_str(&self.text[self.pos..line_end]);
            self.pos = line_end;
            if self.eof() {
                leading_break = false;
                breaks = 0;
                at_eof_col = Some(self.col());
                break;
            }
            self.newline();
            leading_break = true;
            breaks = 0;
            // Empty lines, then either another content line or the end of the scalar.
            loop {
                let s = self.count_spaces().min(indent);
                match self.b.get(self.pos + s) {
                    Some(b'\n') => {
                        self.pos += s;
                        self.newline();
                        breaks += 1;
                    }
                    None => {
                        at_eof_col = Some(s);
                        break;
                    }
                    Some(b'\t') if s < indent => return None,
                    Some(_) => break,
                }
            }
            if at_eof_col.is_some() || self.count_spaces() < indent {
                break;
            }
        }
        if chomp != Some(false) {
            if leading_break {
                out.push('\n');
            }
            if at_eof_col.is_some_and(|col| col >= indent.max(1)) {
                out.push('\n');
            }
        }
        if chomp == Some(true) {
            push_breaks(&mut out, breaks);
        }
        if at_eof_col.is_some() {
            self.pos = self.b.len();
        }
        // The cursor is at the start of the line that ended the scalar.
        self.skip_to_content()?;
        Some(out)
    }

    /// A block scalar header's chomping (`Some(true)`: keep, `Some(false)`: strip) and
    /// indentation indicator, in either order.
    fn block_header(&mut self) -> Option<(Option<bool>, Option<usize>)> {
        let mut chomp = None;
        let mut increment = None;
        for _ in 0..2 {
            match self.peek() {
                Some(b'-') if chomp.is_none() => chomp = Some(false),
                Some(b'+') if chomp.is_none() => chomp = Some(true),
                Some(d @ b'1'..=b'9') if increment.is_none() => {
                    increment = Some(usize::from(d - b'0'));
                }
                _ => break,
            }
            self.pos += 1;
        }
        Some((chomp, increment))
    }

    /// Leading empty lines of a block scalar without indentation indicator, then the first
    /// content line sets the indentation: the indentation and the empty lines.
    fn block_auto_indent(&mut self, n: isize) -> Option<(usize, usize)> {
        let mut breaks = 0usize;
        let mut max_spaces = 0usize;
        let spaces = loop {
            let s = self.count_spaces();
            max_spaces = max_spaces.max(s);
            match self.b.get(self.pos + s) {
                Some(b'\n') => {
                    self.pos += s;
                    self.newline();
                    breaks += 1;
                }
                Some(b'\t') => return self.no(Decline::Tab),
                None => return self.no(Decline::BlockScalar),
                Some(_) => break s,
            }
        };
        let indent = max_spaces.max(usize::try_from(n + 1).ok()?);
        if spaces != indent {
            return self.no(Decline::BlockScalar);
        }
        Some((indent, breaks))
    }

    /// Leading empty lines of a block scalar indented `n + k` (an indentation indicator `k`
    /// under a collection indented `n`): how many, the cursor then at a content line
    /// indented at least that much.
    fn block_leading_lines(&mut self, n: isize, k: usize) -> Option<usize> {
        let indent = usize::try_from(n).ok()? + k;
        let mut breaks = 0usize;
        loop {
            let s = self.count_spaces().min(indent);
            match self.b.get(self.pos + s) {
                Some(b'\n') => {
                    self.pos += s;
                    self.newline();
                    breaks += 1;
                }
                // More spaces than the indentation are content, even up to a line break.
                Some(_) if s == indent => return Some(breaks),
                _ => return self.no(Decline::BlockScalar),
            }
        }
    }

    fn count_spaces(&self) -> usize {
        self.b[self.pos..]
            .iter()
            .take_while(|&&c| c == b' ')
            .count()
    }
}

fn push_breaks(out: &mut String, k: usize) {
    for _ in 0..k {
        out.push('\n');
    }
}

fn with(prefix: &[u32], i: u32) -> ItemPath {
    let mut p = Vec::with_capacity(prefix.len() + 1);
    p.extend_from_slice(prefix);
    p.push(i);
    p
}

/// Whether the line starting at `at` ends a plain scalar on the line before, inside a
/// collection indented `n`, as [`Scanner::plain_continuation`] tells it: a comment, the
/// end, or a line indented `n` or less (`None` also for what it looks at further: blank
/// lines, tabs). When it does: where that line's spaces end.
fn ends_scalar(b: &[u8], at: usize, n: isize) -> Option<usize> {
    let rest = b.get(at..).unwrap_or_default();
    let spaces = rest.iter().take_while(|&&c| c == b' ').count();
    let ends = match rest.get(spaces) {
        None | Some(b'#') => true,
        Some(b'\n' | b'\t') => false,
        Some(_) => isize::try_from(spaces).is_ok_and(|s| s <= n),
    };
    ends.then_some(at + spaces)
}

/// Writes a plain scalar's value, as `yaml.rs` resolves it; `None` where saphyr's path errs.
fn plain_into(out: &mut RawBuilder, text: &str) -> Option<()> {
    match scalar::resolve(text) {
        scalar::Plain::Str => out.str(text),
        // Never a string here: no allocation.
        p => out.value(&scalar::to_json(p, text).ok()?),
    }
    Some(())
}

/// A plain mapping key as sigs.k8s.io/yaml stringifies it (borrowed when it is a string).
fn plain_key(text: &str) -> Option<Cow<'_, str>> {
    match scalar::resolve(text) {
        scalar::Plain::Str => Some(Cow::Borrowed(text)),
        _ => scalar::key_string(text).ok().map(Cow::Owned),
    }
}

impl<'a> Scanner<'a> {
    /// [`plain_key`], declining for [`Decline::Value`].
    fn plain_key(&self, text: &'a str) -> Option<Cow<'a, str>> {
        plain_key(text).or_else(|| self.no(Decline::Value))
    }

    /// [`plain_into`], declining for [`Decline::Value`].
    fn plain_into(&mut self, text: &str) -> Option<()> {
        plain_into(&mut self.out, text).or_else(|| self.no(Decline::Value))
    }
}

/// A double-quoted escape after its backslash: the character and how many bytes it took.
fn escape(b: &[u8]) -> Option<(char, usize)> {
    let simple = match b.first()? {
        b'0' => '\0',
        b'a' => '\x07',
        b'b' => '\x08',
        b't' | b'\t' => '\t',
        b'n' => '\n',
        b'v' => '\x0b',
        b'f' => '\x0c',
        b'r' => '\r',
        b'e' => '\x1b',
        b' ' => ' ',
        b'"' => '"',
        b'/' => '/',
        b'\\' => '\\',
        b'N' => '\u{85}',
        b'_' => '\u{a0}',
        b'L' => '\u{2028}',
        b'P' => '\u{2029}',
        b'x' => return hex(b, 2),
        b'u' => return hex(b, 4),
        b'U' => return hex(b, 8),
        _ => return None,
    };
    Some((simple, 1))
}

fn hex(b: &[u8], digits: usize) -> Option<(char, usize)> {
    let h = b.get(1..=digits)?;
    let mut v = 0u32;
    for &c in h {
        v = (v << 4) | char::from(c).to_digit(16)?;
    }
    Some((char::from_u32(v)?, 1 + digits))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The word-at-a-time scan stops where a byte-at-a-time one does.
        #[test]
        fn plain_run_stops_at_the_first_stop_byte(
            b in prop::collection::vec(prop::sample::select(vec![b'a', b'-', 0xc3, 0xa9, b' ', b'\n', b'\t', b':', b'#', 0x80, 0xff, 0x3a ^ 0x80]), 0..40),
            from in 0usize..40,
        ) {
            let from = from.min(b.len());
            let naive = (from..b.len()).find(|&i| PLAIN_STOP[usize::from(b[i])]).unwrap_or(b.len());
            prop_assert_eq!(plain_run(&b, from), naive);
        }
    }
}
