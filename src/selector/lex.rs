//! The label-selector lexer, a byte-for-byte port of apimachinery's `labels.Lexer`.
//!
//! Quirks kept on purpose because they decide what parses: the input is read as bytes;
//! a NUL byte reads as "end" (so a NUL where a token starts ends the input, while a NUL
//! right after a token is swallowed as that token's terminator); `in`/`notin` are
//! keywords only where the parser asks for an operator.

/// Token kinds, in upstream's numbering order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Token {
    /// A scan error (unreachable with upstream's token table, kept for fidelity).
    Error,
    EndOfString,
    ClosedPar,
    Comma,
    DoesNotExist,
    DoubleEquals,
    Equals,
    GreaterThan,
    Identifier,
    In,
    LessThan,
    NotEquals,
    NotIn,
    OpenPar,
}

/// One scanned token: its kind, its literal and the byte offset where it starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Item {
    pub(crate) tok: Token,
    pub(crate) lit: String,
    pub(crate) offset: usize,
}

/// `string2token`.
fn keyword(s: &[u8]) -> Option<Token> {
    Some(match s {
        b")" => Token::ClosedPar,
        b"," => Token::Comma,
        b"!" => Token::DoesNotExist,
        b"==" => Token::DoubleEquals,
        b"=" => Token::Equals,
        b">" => Token::GreaterThan,
        b"in" => Token::In,
        b"<" => Token::LessThan,
        b"!=" => Token::NotEquals,
        b"notin" => Token::NotIn,
        b"(" => Token::OpenPar,
        _ => return None,
    })
}

fn is_whitespace(ch: u8) -> bool {
    matches!(ch, b' ' | b'\t' | b'\r' | b'\n')
}

fn is_special(ch: u8) -> bool {
    matches!(ch, b'=' | b'!' | b'(' | b')' | b',' | b'>' | b'<')
}

struct Lexer<'a> {
    s: &'a [u8],
    pos: usize,
}

impl Lexer<'_> {
    /// Returns the byte at `pos` (0 past the end) and advances if not at the end.
    fn read(&mut self) -> u8 {
        match self.s.get(self.pos) {
            Some(&b) => {
                self.pos += 1;
                b
            }
            None => 0,
        }
    }

    fn unread(&mut self) {
        self.pos = self.pos.saturating_sub(1);
    }

    fn literal(&self, start: usize, end: usize) -> String {
        String::from_utf8_lossy(&self.s[start..end]).into_owned()
    }

    fn scan_id_or_keyword(&mut self) -> (Token, String) {
        let start = self.pos;
        let mut end = start;
        loop {
            let ch = self.read();
            if ch == 0 {
                break;
            }
            if is_special(ch) || is_whitespace(ch) {
                self.unread();
                break;
            }
            end = self.pos;
        }
        let bytes = &self.s[start..end];
        match keyword(bytes) {
            Some(tok) => (tok, self.literal(start, end)),
            None => (Token::Identifier, self.literal(start, end)),
        }
    }

    fn scan_special_symbol(&mut self) -> (Token, String) {
        let start = self.pos;
        let mut last: Option<(Token, usize)> = None;
        loop {
            let ch = self.read();
            if ch == 0 {
                break;
            }
            if !is_special(ch) {
                self.unread();
                break;
            }
            if let Some(tok) = keyword(&self.s[start..self.pos]) {
                last = Some((tok, self.pos));
            } else if last.is_some() {
                self.unread();
                break;
            }
        }
        match last {
            Some((tok, end)) => (tok, self.literal(start, end)),
            None => {
                let buf = self.literal(start, self.pos);
                (
                    Token::Error,
                    format!("error expected: keyword found '{buf}'"),
                )
            }
        }
    }

    fn lex(&mut self) -> Item {
        let mut ch = self.read();
        while is_whitespace(ch) {
            ch = self.read();
        }
        if ch == 0 {
            // A NUL was consumed by read(); the end of input was not.
            let offset = if self.pos > 0 && self.s.get(self.pos - 1) == Some(&0) {
                self.pos - 1
            } else {
                self.pos
            };
            return Item {
                tok: Token::EndOfString,
                lit: String::new(),
                offset,
            };
        }
        self.unread();
        let offset = self.pos;
        let (tok, lit) = if is_special(ch) {
            self.scan_special_symbol()
        } else {
            self.scan_id_or_keyword()
        };
        Item { tok, lit, offset }
    }
}

/// Scans the whole input up to and including the end-of-string token.
pub(crate) fn scan(input: &str) -> Vec<Item> {
    let mut lexer = Lexer {
        s: input.as_bytes(),
        pos: 0,
    };
    let mut items = Vec::new();
    loop {
        let item = lexer.lex();
        let end = item.tok == Token::EndOfString;
        items.push(item);
        if end {
            return items;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<(Token, String)> {
        scan(s).into_iter().map(|i| (i.tok, i.lit)).collect()
    }

    #[test]
    fn operators_take_the_longest_known_symbol() {
        let t = toks("a===b");
        assert_eq!(t[1], (Token::DoubleEquals, "==".into()));
        assert_eq!(t[2], (Token::Equals, "=".into()));
        assert_eq!(toks("!!x")[0], (Token::DoesNotExist, "!".into()));
        assert_eq!(toks("x<=1")[1], (Token::LessThan, "<".into()));
    }

    #[test]
    fn keywords_and_offsets() {
        let items = scan("  x notin (a)");
        assert_eq!(items[0].offset, 2);
        assert_eq!(items[1].tok, Token::NotIn);
        assert_eq!(items[1].offset, 4);
        assert_eq!(items.last().map(|i| i.offset), Some(13));
    }

    #[test]
    fn nul_bytes_end_or_terminate() {
        assert_eq!(toks("x \0 y").len(), 2);
        let t = toks("x\0y");
        assert_eq!(t[1], (Token::Identifier, "y".into()));
    }
}
