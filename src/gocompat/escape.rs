//! cli-runtime's `printers.EscapeTerminal` (the fix for CVE-2021-25743): what kubectl does
//! to text from a manifest before it reaches a terminal, and its table cells' truncation.
//!
//! kubectl replaces only ESC (`^[`) and CR (`\r`) and passes other control characters
//! through. kubesift writes those others too as `strconv.Quote` spells them (`\a`, `\x7f`,
//! `\u009b`), so that no control byte from a manifest reaches the terminal; text without
//! ESC or CR among its controls prints as kubectl prints it.

use std::borrow::Cow;

use super::quote::write_rune;

/// `printers.EscapeTerminal`, plus the other control characters as Go quotes them; `\n`
/// and `\t` stay (multi-line text, layouts that use them).
pub fn escape_terminal(s: &str) -> Cow<'_, str> {
    escape(s, |c| matches!(c, '\n' | '\t'))
}

/// [`escape_terminal`] for text that must stay on one line (a name, a path): `\n` and `\t`
/// are escaped as well.
pub fn escape_line(s: &str) -> Cow<'_, str> {
    escape(s, |_| false)
}

/// A table cell as cli-runtime's `printRows` writes it: cut at the first `\f`, `\n` or `\r`
/// with `...` appended, then escaped ([`escape_line`]: a tab would break the columns).
pub fn table_cell(s: &str) -> Cow<'_, str> {
    match s.find(['\u{c}', '\n', '\r']) {
        Some(cut) => Cow::Owned(format!("{}...", escape_line(&s[..cut]))),
        None => escape_line(s),
    }
}

fn escape(s: &str, keep: impl Fn(char) -> bool) -> Cow<'_, str> {
    if !s.chars().any(|c| c.is_control() && !keep(c)) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\u{1b}' => out.push_str("^["),
            c if c.is_control() && !keep(c) => {
                // Writing into a String cannot fail.
                let _ = write_rune(&mut out, c);
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kubectl_replacements() {
        // printers.EscapeTerminal: ESC → "^[", CR → "\r".
        assert_eq!(escape_terminal("SAFE\rEVIL"), "SAFE\\rEVIL");
        assert_eq!(escape_terminal("\u{1b}[31mred"), "^[[31mred");
        assert_eq!(escape_terminal("a\nb\tc"), "a\nb\tc");
        assert!(matches!(escape_terminal("plain é"), Cow::Borrowed(_)));
    }

    #[test]
    fn other_controls_as_go_quotes_them() {
        assert_eq!(escape_terminal("p\u{1b}]0;pwned\u{7}"), "p^[]0;pwned\\a");
        assert_eq!(
            escape_terminal("\u{0}\u{7f}\u{9b}\u{b}"),
            "\\x00\\x7f\\u009b\\v"
        );
        assert_eq!(escape_line("a\nb\tc"), "a\\nb\\tc");
    }

    #[test]
    fn cells_cut_at_line_breaks_like_print_rows() {
        assert_eq!(table_cell("Running\r\u{1b}[KFailed"), "Running...");
        assert_eq!(table_cell("a\u{1b}b\nrest"), "a^[b...");
        assert_eq!(table_cell("x\u{c}y"), "x...");
        assert_eq!(table_cell("ok"), "ok");
    }
}
