//! Go's `strconv.Quote`: what `%q` prints for a string, and `%#v` too.

use std::fmt::{self, Write};

use super::print::is_print;

/// Displays a string as `strconv.Quote` returns it, without building it first:
/// `format!("namespace {}", Quoted(ns))` is Go's `fmt.Sprintf("namespace %q", ns)`.
#[derive(Clone, Copy, Debug)]
pub struct Quoted<'a>(pub &'a str);

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_char('"')?;
        for c in self.0.chars() {
            write_rune(f, c)?;
        }
        f.write_char('"')
    }
}

/// `strconv.Quote(s)`.
pub fn quote(s: &str) -> String {
    Quoted(s).to_string()
}

/// One rune as `strconv.appendEscapedRune` writes it inside double quotes: printable runes
/// (`unicode.IsPrint`) as they are, the seven C escapes by name, other ASCII as `\xNN`, the
/// rest as `\uNNNN` or `\UNNNNNNNN` (Rust strings hold no invalid UTF-8, so Go's
/// `\ufffd` substitution for broken bytes never applies).
pub(super) fn write_rune(f: &mut impl Write, c: char) -> fmt::Result {
    match c {
        '"' => f.write_str("\\\""),
        '\\' => f.write_str("\\\\"),
        c if is_print(c) => f.write_char(c),
        '\u{7}' => f.write_str("\\a"),
        '\u{8}' => f.write_str("\\b"),
        '\u{c}' => f.write_str("\\f"),
        '\n' => f.write_str("\\n"),
        '\r' => f.write_str("\\r"),
        '\t' => f.write_str("\\t"),
        '\u{b}' => f.write_str("\\v"),
        c if (c as u32) < 0x80 => write!(f, "\\x{:02x}", c as u32),
        c if (c as u32) < 0x10000 => write!(f, "\\u{:04x}", c as u32),
        c => write!(f, "\\U{:08x}", c as u32),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Expected outputs are Go's: `fmt.Println(strconv.Quote(s))` for each input.
    #[test]
    fn quote_matches_go() {
        let cases: &[(&str, &str)] = &[
            ("", r#""""#),
            ("plain", r#""plain""#),
            ("a\"b\\", r#""a\"b\\""#),
            ("it's", r#""it's""#),
            // printable non-ASCII stays as it is (Rust's `{:?}` agrees here)
            ("ü日本", "\"ü日本\""),
            // a combining mark is printable for Go; Rust's `{:?}` writes `\u{301}`
            ("e\u{301}", "\"e\u{301}\""),
            ("\u{7}\u{8}\u{c}\n\r\t\u{b}", r#""\a\b\f\n\r\t\v""#),
            ("\u{0}\u{1b}\u{7f}", r#""\x00\x1b\x7f""#),
            // C1 controls, NBSP, soft hyphen, zero-width space, BOM: not printable for Go
            (
                "\u{85}\u{a0}\u{ad}\u{200b}\u{feff}",
                r#""\u0085\u00a0\u00ad\u200b\ufeff""#,
            ),
            ("\u{2028}", r#""\u2028""#),
            ("\u{e0001}", r#""\U000e0001""#),
            ("😀", "\"😀\""),
            // assigned in Unicode 15.1 / 16.0, after the 15.0.0 tables Go carries
            ("\u{2FFC}\u{1CC00}", r#""\u2ffc\U0001cc00""#),
            ("\u{1FAE8}", "\"\u{1FAE8}\""),
        ];
        for (input, go) in cases {
            assert_eq!(quote(input), *go, "{input:?}");
        }
    }

    #[test]
    fn displays_like_quote() {
        assert_eq!(format!("ns {}", Quoted("a\tb")), "ns \"a\\tb\"");
    }
}
