//! Splitting a YAML stream into documents ourselves, keeping where each starts.
//!
//! A parser that meets a syntax error cannot resynchronise (serde-yaml#193 loops forever,
//! saphyr fails the whole stream), so each document is parsed on its own: one broken
//! document never hides the others, and every document knows its first line.
//!
//! A document marker is `---` or `...` at column 0 followed by whitespace or the end of the
//! line. YAML forbids such a line inside any scalar (`c-forbidden`), so splitting there is
//! exact, not a heuristic.

use std::sync::LazyLock;

use memchr::memmem::Finder;

/// One document's slice of the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Piece {
    /// Byte range in the file text.
    pub start: usize,
    pub end: usize,
    /// 1-based line of `start`.
    pub line: u32,
}

fn is_marker(line: &[u8], marker: &[u8; 3]) -> bool {
    line.starts_with(marker)
        && line
            .get(3)
            .is_none_or(|c| matches!(c, b' ' | b'\t' | b'\r' | b'\n'))
}

/// Whether a line carries document content (not blank, a comment or a directive).
fn is_content(line: &[u8]) -> bool {
    match line
        .iter()
        .find(|c| !matches!(c, b' ' | b'\t' | b'\r' | b'\n'))
    {
        None | Some(b'#') => false,
        Some(b'%') => !line.starts_with(b"%"),
        Some(_) => true,
    }
}

/// Cuts `text` into documents. A `---` line starts a new piece unless the current one holds
/// only comments and directives (those belong to the document that follows); a `...` line
/// ends the current piece.
pub(super) fn split(text: &str) -> Vec<Piece> {
    split_at_most(text, usize::MAX).0
}

/// [`split`], stopping after `limit` pieces: the pieces, and the 1-based line where the
/// first piece past the limit starts, if there is one (16 million empty documents fit in
/// 64 MB: every piece costs memory whether or not it holds anything).
pub(super) fn split_at_most(text: &str, limit: usize) -> (Vec<Piece>, Option<u32>) {
    let bytes = text.as_bytes();
    let mut pieces = Vec::new();
    let mut cur = Piece {
        start: 0,
        end: 0,
        line: 1,
    };
    let mut has_content = false;
    let mut pos = 0;
    let mut line_no: u32 = 1;
    while pos < bytes.len() {
        if has_content && !matches!(bytes[pos], b'-' | b'.') {
            // Inside a document only a line starting with `-` or `.` can end it: jump there
            // (SIMD searches instead of a look at every line).
            let rest = &bytes[pos..];
            let skip = next_line_starting_with_dash_or_dot(rest).unwrap_or(rest.len());
            let lines = memchr::memchr_iter(b'\n', &rest[..skip]).count();
            line_no = line_no.saturating_add(u32::try_from(lines).unwrap_or(u32::MAX));
            pos += skip;
            continue;
        }
        let next = memchr_nl(bytes, pos).map_or(bytes.len(), |i| i + 1);
        let line = &bytes[pos..next];
        if is_marker(line, b"---") && has_content {
            pieces.push(Piece { end: pos, ..cur });
            cur = Piece {
                start: pos,
                end: pos,
                line: line_no,
            };
            // The marker itself opens a document: a second `---` after it ends that one.
            has_content = true;
        } else if is_marker(line, b"...") {
            pieces.push(Piece { end: next, ..cur });
            cur = Piece {
                start: next,
                end: next,
                line: line_no.saturating_add(1),
            };
            has_content = false;
        } else {
            has_content |= is_content(line) || is_marker(line, b"---");
        }
        if pieces.len() > limit {
            let over = pieces.pop().map(|p| p.line);
            return (pieces, over);
        }
        pos = next;
        line_no = line_no.saturating_add(1);
    }
    if cur.start < bytes.len() {
        pieces.push(Piece {
            end: bytes.len(),
            ..cur
        });
    }
    if pieces.len() > limit {
        let over = pieces.pop().map(|p| p.line);
        return (pieces, over);
    }
    (pieces, None)
}

fn memchr_nl(bytes: &[u8], from: usize) -> Option<usize> {
    memchr::memchr(b'\n', &bytes[from..]).map(|i| i + from)
}

/// Offset of the first line of `text` after its first one that starts with `-` or `.`.
///
/// `.` lines are rare: searching for them over the whole rest of the file after every
/// document made splitting quadratic in the number of documents, so they are only looked
/// for before the next `-` line.
fn next_line_starting_with_dash_or_dot(text: &[u8]) -> Option<usize> {
    // Built once: building a searcher per document cost as much as many searches.
    static DASH: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"\n-"));
    static DOT: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"\n."));
    let dash = DASH.find(text);
    let before_dash = &text[..dash.unwrap_or(text.len())];
    let dot = DOT.find(before_dash);
    dot.or(dash).map(|i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The line-by-line algorithm `split` shortcuts, as the reference.
    fn split_line_by_line(text: &str) -> Vec<Piece> {
        let bytes = text.as_bytes();
        let mut pieces = Vec::new();
        let mut cur = Piece {
            start: 0,
            end: 0,
            line: 1,
        };
        let (mut has_content, mut pos, mut line_no) = (false, 0, 1u32);
        while pos < bytes.len() {
            let next = memchr_nl(bytes, pos).map_or(bytes.len(), |i| i + 1);
            let line = &bytes[pos..next];
            if is_marker(line, b"---") && has_content {
                pieces.push(Piece { end: pos, ..cur });
                cur = Piece {
                    start: pos,
                    end: pos,
                    line: line_no,
                };
                has_content = true;
            } else if is_marker(line, b"...") {
                pieces.push(Piece { end: next, ..cur });
                cur = Piece {
                    start: next,
                    end: next,
                    line: line_no + 1,
                };
                has_content = false;
            } else {
                has_content |= is_content(line) || is_marker(line, b"---");
            }
            pos = next;
            line_no += 1;
        }
        if cur.start < bytes.len() {
            pieces.push(Piece {
                end: bytes.len(),
                ..cur
            });
        }
        pieces
    }

    proptest! {
        #[test]
        fn split_equals_the_line_by_line_reference(lines in proptest::collection::vec(
            prop_oneof![
                Just("---"), Just("--- x"), Just("---\t"), Just("..."), Just("... "), Just("..x"),
                Just("- a"), Just("-x"), Just(".x"), Just("# c"), Just("%YAML 1.1"), Just("a: 1"),
                Just(""), Just("  - b"), Just("\r"), Just("--"),
            ],
            0..40,
        ), trailing in any::<bool>()) {
            let mut text = lines.join("\n");
            if trailing {
                text.push('\n');
            }
            prop_assert_eq!(split(&text), split_line_by_line(&text));
        }
    }

    fn pieces(text: &str) -> Vec<(u32, &str)> {
        split(text)
            .into_iter()
            .map(|p| (p.line, &text[p.start..p.end]))
            .collect()
    }

    #[test]
    fn splits_at_markers_keeping_lines() {
        let t = "a: 1\n---\nb: 2\n--- \nc: 3\n";
        assert_eq!(
            pieces(t),
            vec![(1, "a: 1\n"), (2, "---\nb: 2\n"), (4, "--- \nc: 3\n")]
        );
    }

    #[test]
    fn leading_comments_join_the_first_document() {
        let t = "# header\n%YAML 1.1\n---\na: 1\n---\n---\nb: 2";
        assert_eq!(
            pieces(t),
            vec![
                (1, "# header\n%YAML 1.1\n---\na: 1\n"),
                (5, "---\n"),
                (6, "---\nb: 2")
            ]
        );
    }

    #[test]
    fn stops_after_the_limit() {
        let t = "a: 1\n---\nb: 2\n---\n---\nc: 3\n";
        assert_eq!(split_at_most(t, 10), (split(t), None));
        let (pieces, over) = split_at_most(t, 2);
        assert_eq!(pieces, split(t)[..2]);
        assert_eq!(over, Some(4));
        let (pieces, over) = split_at_most(t, 3);
        assert_eq!((pieces.len(), over), (3, Some(5)));
        assert_eq!(split_at_most(t, 4), (split(t), None));
    }

    #[test]
    fn not_markers() {
        let t = "a: |\n  ---\n----\n---x\n";
        assert_eq!(pieces(t), vec![(1, t)]);
    }

    #[test]
    fn document_end_marker() {
        let t = "a: 1\n...\nb: 2\r\n---\r\nc: 3\r\n";
        assert_eq!(
            pieces(t),
            vec![(1, "a: 1\n...\n"), (3, "b: 2\r\n"), (4, "---\r\nc: 3\r\n")]
        );
    }
}
