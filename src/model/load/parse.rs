//! A file's text → documents → list items → objects and problems.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use saphyr_parser::Marker;
use serde_json::Value;

use super::super::extract::NotAnObject;
use super::super::object::{number_generated, Object, SourceSpan};
use super::classify::{self, Verdict};
use super::fast::{self, Decline, YamlStats};
use super::json;
use super::lists::{self, Entry, Pos};
use super::split::{self, Piece};
use super::yaml::{self, ItemPath};
use super::FileLoad;
use crate::diagnostic::{Diagnostic, Severity};
use crate::value::Raw;

/// Files above this size have their documents parsed in parallel.
const PARALLEL_DOCS_ABOVE: usize = 512 * 1024;

/// One parsed document with positions.
struct Doc {
    value: Raw,
    root: Pos,
    items: HashMap<ItemPath, Pos>,
}

/// A problem located in the file.
struct Problem {
    line: u32,
    column: u32,
    verdict: Verdict,
}

/// Parses a file's text (see [`super::parse_text`]).
pub(super) fn parse_text(path: &Arc<Path>, text: &str) -> FileLoad {
    let mut out = FileLoad::empty(path, text.len() as u64);
    // A UTF-8 byte order mark is not content; keep byte offsets relative to the file.
    let (base, body) = match text.strip_prefix('\u{feff}') {
        Some(rest) => (3, rest),
        None => (0, text),
    };
    if classify::is_helm_template(body) {
        out.problems.push(template_problem(path, body));
        return out;
    }
    let mut listed = Listed::default();
    // Documents become objects as they are parsed, a chunk at a time: a file of a million
    // small documents never holds them all at once.
    let take = |docs: Vec<Doc>, out: &mut FileLoad, listed: &mut Listed| {
        for doc in docs {
            let items = doc.items;
            for entry in lists::flatten(doc.value, doc.root, &items) {
                match to_object(path, entry) {
                    Ok(o) => out.objects.push(o),
                    Err(p) => listed.push(&mut out.problems, path, p),
                }
            }
        }
    };
    let mut yaml = YamlStats::default();
    let problems = if looks_like_json(body) {
        parse_json(path, body, base, &mut yaml, &mut |docs| {
            take(docs, &mut out, &mut listed)
        })
    } else {
        parse_yaml(body, base, &mut yaml, &mut |docs| {
            take(docs, &mut out, &mut listed)
        })
    };
    out.yaml = yaml;
    if out.yaml.fallbacks() > 0 {
        tracing::debug!(path = %path.display(), "{}", out.yaml.summary());
    }
    if !problems.is_empty() && classify::first_action(body).is_some() {
        // Unparsable and templated: what fails is the template syntax, not the YAML.
        out.objects.clear();
        out.problems.clear();
        out.problems.push(template_problem(path, body));
        return out;
    }
    for p in problems {
        listed.push(&mut out.problems, path, p);
    }
    listed.summarize(&mut out.problems, path);
    number_generated(&mut out.objects);
    out
}

/// How many problems of one code one file lists (a real dump's 135 Events without a type
/// are all listed); the rest are counted in one summary: a file of a million non-objects
/// would otherwise hold and print a million lines.
pub(super) const LISTED_PER_CODE: usize = 1000;

/// Problems of one file by code: how many were listed, and the first one left out with how
/// many more there were.
#[derive(Default)]
struct Listed {
    by_code: HashMap<&'static str, CodeCount>,
}

/// Problems of one code: how many listed; the first left out and how many were.
#[derive(Default)]
struct CodeCount {
    listed: usize,
    unlisted: Option<(Problem, usize)>,
}

impl Listed {
    fn push(&mut self, out: &mut Vec<Diagnostic>, path: &Arc<Path>, p: Problem) {
        let count = self.by_code.entry(p.verdict.code).or_default();
        if count.listed < LISTED_PER_CODE {
            count.listed += 1;
            out.push(located(path, p));
        } else {
            match &mut count.unlisted {
                Some((_, n)) => *n += 1,
                None => count.unlisted = Some((p, 1)),
            }
        }
    }

    /// One diagnostic per code with problems left out, at the first one left out.
    fn summarize(self, out: &mut Vec<Diagnostic>, path: &Arc<Path>) {
        let mut rest: Vec<(Problem, usize)> = self
            .by_code
            .into_values()
            .filter_map(|c| c.unlisted)
            .collect();
        rest.sort_by_key(|(p, _)| (p.line, p.column));
        for (mut p, n) in rest {
            p.verdict.message = format!(
                "{} (and {} more like it in this file, not listed)",
                p.verdict.message,
                n - 1
            );
            out.push(located(path, p));
        }
    }
}

fn located(path: &Arc<Path>, p: Problem) -> Diagnostic {
    Diagnostic::new(
        path,
        p.line,
        p.column,
        p.verdict.severity,
        p.verdict.code,
        p.verdict.message,
    )
}

fn template_problem(path: &Arc<Path>, body: &str) -> Diagnostic {
    let (line, column) = classify::first_action(body).unwrap_or((1, 1));
    located(
        path,
        Problem {
            line,
            column,
            verdict: classify::template_note(),
        },
    )
}

fn error(line: u32, column: u32, code: &'static str, message: String) -> Problem {
    Problem {
        line,
        column,
        verdict: Verdict {
            severity: Severity::Error,
            code,
            message,
        },
    }
}

fn to_object(path: &Arc<Path>, entry: Entry) -> Result<Object, Problem> {
    let Entry { value, pos, item } = entry;
    let problem = |verdict| Problem {
        line: pos.line,
        column: pos.column,
        verdict,
    };
    if let Some(v) = classify::classify(path, value.view(), item) {
        return Err(problem(v));
    }
    let span = SourceSpan {
        path: Arc::clone(path),
        line: pos.line,
        start: pos.start,
        end: pos.end,
        target: None,
    };
    Object::from_raw(value, span).map_err(|e| {
        let (code, message) = match e {
            NotAnObject::BadMetadata(m) | NotAnObject::MissingTypeMeta(m) => ("bad-metadata", m),
            NotAnObject::BadItems(m) => ("bad-list", m),
            NotAnObject::NotAMapping => ("bad-metadata", "not a mapping".to_owned()),
        };
        problem(Verdict {
            severity: Severity::Error,
            code,
            message,
        })
    })
}

fn looks_like_json(body: &str) -> bool {
    matches!(body.trim_start().as_bytes().first(), Some(b'{' | b'['))
}

/// JSON stream; a file that is not valid JSON but not named `.json` is YAML (flow style).
fn parse_json(
    path: &Path,
    body: &str,
    base: usize,
    stats: &mut YamlStats,
    take: &mut dyn FnMut(Vec<Doc>),
) -> Vec<Problem> {
    let is_json_file = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"));
    // Outside a `.json` file an error is not shown (the text is read as YAML instead), so
    // it need not be worded: the direct path alone decides.
    let (docs, err) = if is_json_file {
        json::parse_stream(body)
    } else {
        json::parse_stream_direct(body)
    };
    // Past the value limit the text is JSON all right: no reason to try YAML.
    if err.as_ref().is_some_and(|e| e.code == "json-syntax") && !is_json_file {
        return parse_yaml(body, base, stats, take);
    }
    let lines = Lines::new(body);
    let pos = |start: usize, end: usize| {
        let (line, column) = lines.line_col(start);
        Pos {
            line,
            column,
            start: base + start,
            end: base + end,
        }
    };
    let docs = docs
        .into_iter()
        .map(|d| Doc {
            items: d
                .items
                .iter()
                .map(|(p, s, e)| (p.clone(), pos(*s, *e)))
                .collect(),
            root: pos(d.start, d.end),
            value: d.value,
        })
        .collect();
    take(docs);
    err.map(|e| error(e.line, e.column, e.code, e.message))
        .into_iter()
        .collect()
}

/// Documents read from one file at most: far above what real files hold (a dump of a
/// large cluster's 100,000 objects as one document each), and a bound on what a file of
/// empty documents costs.
pub(super) const MAX_DOCUMENTS: usize = 1_000_000;

/// Documents parsed before they are handed on as objects.
const DOCS_PER_CHUNK: usize = 4096;

/// Parses the YAML stream, handing `take` the documents a chunk at a time, in order;
/// returns the syntax problems. Counts in `stats` how each document was parsed.
fn parse_yaml(
    body: &str,
    base: usize,
    stats: &mut YamlStats,
    take: &mut dyn FnMut(Vec<Doc>),
) -> Vec<Problem> {
    let (pieces, over) = split::split_at_most(body, MAX_DOCUMENTS);
    // Empty documents are dropped as soon as parsed: they keep no memory.
    let one = |p: &Piece| match parse_piece(body, base, *p) {
        (Ok(None), None) => None,
        r => Some(r),
    };
    let parallel = body.len() > PARALLEL_DOCS_ABOVE;
    let mut problems = Vec::new();
    for chunk in pieces.chunks(DOCS_PER_CHUNK) {
        let results: Vec<_> = if parallel {
            par_filter_map(chunk, one)
        } else {
            chunk.iter().filter_map(one).collect()
        };
        let mut docs = Vec::with_capacity(results.len());
        for (r, declined) in results {
            match declined {
                Some(_) if r.is_err() => stats.declined(Decline::Invalid),
                Some(why) => stats.declined(why),
                None => stats.fast += 1,
            }
            match r {
                Ok(Some(d)) => docs.push(d),
                Ok(None) => {}
                Err(errs) => problems.extend(
                    errs.into_iter()
                        .map(|e| error(e.line, e.column, e.code, e.message)),
                ),
            }
        }
        take(docs);
    }
    drop(pieces);
    if let Some(line) = over {
        problems.push(error(
            line,
            1,
            "too-many-documents",
            format!(
                "more than {MAX_DOCUMENTS} YAML documents in one file: this one and the rest are not loaded (split the file)"
            ),
        ));
    }
    problems
}

/// Pieces a parse thread takes at a time.
const PIECES_PER_TAKE: usize = 64;

/// `f` over `items` on scoped threads (as many as rayon's pool has), results in order.
/// Not on rayon's pool: a thread waiting there for its tasks runs other queued ones, which
/// may be other files waiting for the byte budget this file holds (`read.rs`): a deadlock.
fn par_filter_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> Option<R> + Sync) -> Vec<R> {
    let threads = rayon::current_num_threads()
        .min(items.len().div_ceil(PIECES_PER_TAKE))
        .max(1);
    if threads == 1 {
        return items.iter().filter_map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let work = || {
        let mut done: Vec<(usize, Vec<R>)> = Vec::new();
        loop {
            let block = next.fetch_add(1, Ordering::Relaxed);
            let start = block * PIECES_PER_TAKE;
            let Some(part) = items.get(start..(start + PIECES_PER_TAKE).min(items.len())) else {
                return done;
            };
            if part.is_empty() {
                return done;
            }
            done.push((block, part.iter().filter_map(&f).collect()));
        }
    };
    let mut blocks = std::thread::scope(|s| {
        let others: Vec<_> = (1..threads).map(|_| s.spawn(work)).collect();
        let mut blocks = work();
        for t in others {
            match t.join() {
                Ok(b) => blocks.extend(b),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        blocks
    });
    blocks.sort_unstable_by_key(|(b, _)| *b);
    blocks.into_iter().flat_map(|(_, r)| r).collect()
}

/// A parsed piece, and why the fast path declined it (`None`: it did not).
type PieceResult = (Result<Option<Doc>, Vec<yaml::YamlError>>, Option<Decline>);

fn parse_piece(body: &str, base: usize, piece: Piece) -> PieceResult {
    let text = &body[piece.start..piece.end];
    match fast_piece(text, piece.line, base + piece.start) {
        Ok(doc) => (Ok(doc), None),
        Err(why) => (
            saphyr_piece(text, piece.line, base + piece.start),
            Some(why),
        ),
    }
}

/// The fast path ([`fast`]); `Err` (and why) when the document is outside what it handles.
/// `first_line`: 1-based line of `text` in the file; `abs`: its byte offset in the file.
fn fast_piece(text: &str, first_line: u32, abs: usize) -> Result<Option<Doc>, Decline> {
    let Some(parsed) = fast::parse(text)? else {
        return Ok(None);
    };
    let pos = |start: fast::Loc, end: usize| Pos {
        line: first_line.saturating_sub(1).saturating_add(start.line),
        column: start.col(text).saturating_add(1),
        start: abs + start.offset,
        end: abs + end,
    };
    let items = parsed
        .items
        .into_iter()
        .map(|(p, s, e)| (p, pos(s, e)))
        .collect();
    Ok(Some(Doc {
        value: parsed.value,
        root: pos(parsed.root, text.len()),
        items,
    }))
}

/// The general path: saphyr's event stream ([`yaml`]), which also reports every error.
fn saphyr_piece(
    text: &str,
    first_line: u32,
    abs: usize,
) -> Result<Option<Doc>, Vec<yaml::YamlError>> {
    let Some(parsed) = yaml::parse(text, first_line)? else {
        return Ok(None);
    };
    let lines = Lines::new(text);
    let pos = |start: Marker, end: Marker| Pos {
        line: (first_line - 1).saturating_add(u32::try_from(start.line()).unwrap_or(u32::MAX)),
        column: u32::try_from(start.col() + 1).unwrap_or(u32::MAX),
        start: abs + lines.offset(start),
        end: abs + lines.offset(end),
    };
    let root = Pos {
        end: abs + text.len(),
        ..pos(parsed.root, parsed.root)
    };
    let items = parsed
        .items
        .iter()
        .map(|(p, s, e)| (p.clone(), pos(*s, *e)))
        .collect();
    Ok(Some(Doc {
        value: Raw::from_value(&parsed.value),
        root,
        items,
    }))
}

/// A position as the equivalence tests compare it: line, column, start and end.
#[doc(hidden)]
pub type ProbePos = (u32, u32, usize, usize);

/// A document as the equivalence tests compare it: value, its compact encoding (the bytes
/// of [`Raw`]), root and item positions, items sorted by path.
#[doc(hidden)]
#[derive(Debug, Clone, PartialEq)]
pub struct ProbeDoc {
    pub value: Value,
    pub encoded: Vec<u8>,
    pub root: ProbePos,
    pub items: Vec<(Vec<u32>, ProbePos)>,
}

/// One YAML document of a text through both paths: `fast` is `None` when the fast path
/// declined, `saphyr` is `Err` (with the error codes) when saphyr's path reports errors.
#[doc(hidden)]
#[derive(Debug, Clone, PartialEq)]
pub struct YamlProbe {
    pub line: u32,
    pub fast: Option<Option<ProbeDoc>>,
    /// Why the fast path declined (`None` when it did not).
    pub declined: Option<Decline>,
    pub saphyr: Result<Option<ProbeDoc>, Vec<&'static str>>,
}

/// Parses every YAML document of `text` (fast path first, unless `saphyr_only`); how many
/// documents have a value. For the benches.
pub(super) fn count_documents(text: &str, saphyr_only: bool) -> usize {
    split::split(text)
        .into_iter()
        .filter(|p| {
            let t = &text[p.start..p.end];
            let fast = if saphyr_only {
                Err(Decline::Other)
            } else {
                fast_piece(t, p.line, p.start)
            };
            match fast {
                Ok(doc) => doc.is_some(),
                Err(_) => matches!(saphyr_piece(t, p.line, p.start), Ok(Some(_))),
            }
        })
        .count()
}

/// Splits `text` as [`parse_yaml`] does and parses every piece both ways.
pub(super) fn probe(text: &str) -> Vec<YamlProbe> {
    let probe_doc = |d: Doc| {
        let p = |p: Pos| (p.line, p.column, p.start, p.end);
        let mut items: Vec<_> = d.items.into_iter().map(|(k, v)| (k, p(v))).collect();
        items.sort();
        ProbeDoc {
            value: d.value.to_value(),
            encoded: d.value.view().inline_encoded(),
            root: p(d.root),
            items,
        }
    };
    split::split(text)
        .into_iter()
        .map(|piece| {
            let t = &text[piece.start..piece.end];
            let fast = fast_piece(t, piece.line, piece.start);
            YamlProbe {
                line: piece.line,
                declined: fast.as_ref().err().copied(),
                fast: fast.ok().map(|d| d.map(probe_doc)),
                saphyr: saphyr_piece(t, piece.line, piece.start)
                    .map(|d| d.map(probe_doc))
                    .map_err(|e| e.into_iter().map(|e| e.code).collect()),
            }
        })
        .collect()
}

/// Line starts of a text, to turn (line, column-in-characters) into byte offsets and back.
struct Lines<'a> {
    text: &'a str,
    starts: Vec<usize>,
    /// The last [`Lines::line_col`] answer (offset, 1-based column): the next offset on the
    /// same line counts on from it, so the values of a minified JSON stream (one line of
    /// megabytes) cost their own length, not the line's each.
    last: std::cell::Cell<(usize, usize)>,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str) -> Lines<'a> {
        // Counted first (a SIMD pass) so the table is allocated once, not grown by copies.
        let lines = memchr::memchr_iter(b'\n', text.as_bytes()).count();
        let mut starts = Vec::with_capacity(lines + 1);
        starts.push(0);
        starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        Lines {
            text,
            starts,
            last: std::cell::Cell::new((0, 1)),
        }
    }

    /// Byte offset of a saphyr marker (1-based line, 0-based column in characters).
    fn offset(&self, m: Marker) -> usize {
        let Some(&start) = self.starts.get(m.line().saturating_sub(1)) else {
            return self.text.len();
        };
        let line = &self.text[start..];
        start
            + line
                .char_indices()
                .nth(m.col())
                .map_or(line.len(), |(i, _)| i)
    }

    /// 1-based line and column (in characters) of a byte offset.
    fn line_col(&self, offset: usize) -> (u32, u32) {
        let idx = self
            .starts
            .partition_point(|&s| s <= offset)
            .saturating_sub(1);
        let start = self.starts.get(idx).copied().unwrap_or(0);
        let (last_offset, last_col) = self.last.get();
        let (from, col) = if (start..=offset).contains(&last_offset) {
            (last_offset, last_col)
        } else {
            (start, 1)
        };
        let col = col + self.text.get(from..offset).map_or(0, |s| s.chars().count());
        self.last.set((offset, col));
        (
            u32::try_from(idx + 1).unwrap_or(u32::MAX),
            u32::try_from(col).unwrap_or(u32::MAX),
        )
    }
}
