//! Splitting the bar text into comma-separated terms, keeping byte offsets.

/// One term of the bar text, exactly as typed (not trimmed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment<'a> {
    pub text: &'a str,
    /// Byte offset of `text` in the bar text.
    pub offset: usize,
}

/// Splits at commas that are not inside parentheses (`k in (a,b)` is one term) nor
/// escaped (`metadata.name=a\,b`, field-selector escaping).
pub fn split(text: &str) -> Vec<Segment<'_>> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        if escaped {
            escaped = false;
            continue;
        }
        match c {
            '\\' => escaped = true,
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                out.push(Segment {
                    text: &text[start..i],
                    offset: start,
                });
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(Segment {
        text: &text[start..],
        offset: start,
    });
    out
}

/// Where a term's key ends: at an operator, a space or a parenthesis.
pub fn key_end(term: &str) -> usize {
    term.find(['=', '!', ' ', '\t', '(', '<', '>'])
        .unwrap_or(term.len())
}
