//! The label-selector parser, a port of apimachinery's `labels.Parser`.
//!
//! Error texts are upstream's, including which errors get the
//! `unable to parse requirement: ` prefix (those raised inside one requirement).
//! Each error also carries the byte offset of the token it is about.

use super::error::{aggregate, FieldPath, ParseError};
use super::labels::{new_requirement, validate_label_key, Operator, Requirement, Selector};
use super::lex::{scan, Item, Token};
use crate::names::is_valid_label_value;

/// Upstream's `binaryOperators`, as listed in "expected: …" messages.
const BINARY_OPERATORS: &str = "in, notin, =, ==, !=, gt, lt";

/// Where the parser is: `in`/`notin` read as plain identifiers in value context.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Context {
    KeyAndOperator,
    Values,
}

/// An error raised inside a requirement, before the `unable to parse requirement` prefix.
struct ReqError {
    message: String,
    offset: usize,
}

struct Parser {
    items: Vec<Item>,
    position: usize,
    end: usize,
}

/// Upstream `labels.Parse`: parses `input` into a selector sorted by key.
pub fn parse(input: &str) -> Result<Selector, ParseError> {
    let items = scan(input);
    let mut p = Parser {
        items,
        position: 0,
        end: input.len(),
    };
    let reqs = p.parse()?;
    Ok(Selector::from_requirements(reqs))
}

impl Parser {
    fn item(&self, at: usize) -> (Token, &str, usize) {
        match self.items.get(at) {
            Some(i) => (i.tok, i.lit.as_str(), i.offset),
            None => (Token::EndOfString, "", self.end),
        }
    }

    fn adjust(tok: Token, ctx: Context) -> Token {
        match (ctx, tok) {
            (Context::Values, Token::In | Token::NotIn) => Token::Identifier,
            _ => tok,
        }
    }

    fn lookahead(&self, ctx: Context) -> (Token, String, usize) {
        let (tok, lit, off) = self.item(self.position);
        (Self::adjust(tok, ctx), lit.to_string(), off)
    }

    fn consume(&mut self, ctx: Context) -> (Token, String, usize) {
        let r = self.lookahead(ctx);
        self.position += 1;
        r
    }

    fn parse(&mut self) -> Result<Vec<Requirement>, ParseError> {
        let mut reqs = Vec::new();
        loop {
            let (tok, lit, off) = self.lookahead(Context::Values);
            match tok {
                Token::Identifier | Token::DoesNotExist => {
                    let r = self.parse_requirement().map_err(|e| ParseError {
                        message: format!("unable to parse requirement: {}", e.message),
                        offset: e.offset,
                    })?;
                    reqs.push(r);
                    let (t, l, o) = self.consume(Context::Values);
                    match t {
                        Token::EndOfString => return Ok(reqs),
                        Token::Comma => {
                            let (t2, l2, o2) = self.lookahead(Context::Values);
                            if t2 != Token::Identifier && t2 != Token::DoesNotExist {
                                return Err(err(
                                    format!("found '{l2}', expected: identifier after ','"),
                                    o2,
                                ));
                            }
                        }
                        _ => {
                            return Err(err(
                                format!("found '{l}', expected: ',' or 'end of string'"),
                                o,
                            ))
                        }
                    }
                }
                Token::EndOfString => return Ok(reqs),
                _ => {
                    return Err(err(
                        format!("found '{lit}', expected: !, identifier, or 'end of string'"),
                        off,
                    ))
                }
            }
        }
    }

    fn parse_requirement(&mut self) -> Result<Requirement, ReqError> {
        let (key, key_off, inferred) = self.parse_key_and_infer_operator()?;
        if let Some(op) = inferred {
            return build(&key, op, Vec::new(), key_off);
        }
        let op = self.parse_operator()?;
        let (_, _, values_off) = self.lookahead(Context::Values);
        let values = match op {
            Operator::In | Operator::NotIn => self.parse_values()?,
            _ => self.parse_exact_value()?,
        };
        // Point a value error at the first invalid value (upstream reports them in
        // sorted order), else at the start of the values.
        let offset = values
            .iter()
            .find(|(v, _)| !is_valid_label_value(v).is_empty())
            .map_or(values_off, |(_, off)| *off);
        let values = values.into_iter().map(|(v, _)| v).collect();
        build(&key, op, values, offset)
    }

    /// Returns the key, its offset and `Some(op)` when the operator is implied
    /// (`!key`, or a bare key followed by `,` or the end).
    fn parse_key_and_infer_operator(
        &mut self,
    ) -> Result<(String, usize, Option<Operator>), ReqError> {
        let mut not = false;
        let (mut tok, mut lit, mut off) = self.consume(Context::Values);
        if tok == Token::DoesNotExist {
            not = true;
            (tok, lit, off) = self.consume(Context::Values);
        }
        if tok != Token::Identifier {
            return Err(req_err(format!("found '{lit}', expected: identifier"), off));
        }
        if let Some(message) = validate_label_key(&lit, &FieldPath::nil()) {
            return Err(req_err(message, off));
        }
        let (next, _, _) = self.lookahead(Context::Values);
        let op = if not {
            Some(Operator::DoesNotExist)
        } else if next == Token::EndOfString || next == Token::Comma {
            Some(Operator::Exists)
        } else {
            None
        };
        Ok((lit, off, op))
    }

    fn parse_operator(&mut self) -> Result<Operator, ReqError> {
        let (tok, lit, off) = self.consume(Context::KeyAndOperator);
        Ok(match tok {
            Token::In => Operator::In,
            Token::Equals => Operator::Equals,
            Token::DoubleEquals => Operator::DoubleEquals,
            Token::GreaterThan => Operator::GreaterThan,
            Token::LessThan => Operator::LessThan,
            Token::NotIn => Operator::NotIn,
            Token::NotEquals => Operator::NotEquals,
            _ => {
                return Err(req_err(
                    format!("found '{lit}', expected: {BINARY_OPERATORS}"),
                    off,
                ))
            }
        })
    }

    /// The values of `in`/`notin`, each with the offset of its first occurrence.
    fn parse_values(&mut self) -> Result<Vec<(String, usize)>, ReqError> {
        let (tok, lit, off) = self.consume(Context::Values);
        if tok != Token::OpenPar {
            return Err(req_err(format!("found '{lit}' expected: '('"), off));
        }
        let (tok, lit, off) = self.lookahead(Context::Values);
        match tok {
            Token::Identifier | Token::Comma => {
                let set = self.parse_identifiers_list()?;
                let (close, _, close_off) = self.consume(Context::Values);
                if close != Token::ClosedPar {
                    // Upstream reports the literal seen before the list, not the bad token.
                    return Err(req_err(format!("found '{lit}', expected: ')'"), close_off));
                }
                Ok(set)
            }
            Token::ClosedPar => {
                self.consume(Context::Values);
                Ok(vec![(String::new(), off)])
            }
            _ => Err(req_err(
                format!("found '{lit}', expected: ',', ')' or identifier"),
                off,
            )),
        }
    }

    /// A possibly empty, comma-separated list of possibly empty identifiers, as a
    /// sorted set (upstream collects into `sets.String` and lists it sorted).
    fn parse_identifiers_list(&mut self) -> Result<Vec<(String, usize)>, ReqError> {
        let mut set: Vec<(String, usize)> = Vec::new();
        let insert = |set: &mut Vec<(String, usize)>, v: String, off: usize| {
            if let Err(i) = set.binary_search_by(|(x, _)| x.cmp(&v)) {
                set.insert(i, (v, off));
            }
        };
        loop {
            let (tok, lit, off) = self.consume(Context::Values);
            match tok {
                Token::Identifier => {
                    insert(&mut set, lit, off);
                    let (t2, l2, o2) = self.lookahead(Context::Values);
                    match t2 {
                        Token::Comma => continue,
                        Token::ClosedPar => return Ok(set),
                        _ => {
                            return Err(req_err(format!("found '{l2}', expected: ',' or ')'"), o2))
                        }
                    }
                }
                Token::Comma => {
                    if set.is_empty() {
                        insert(&mut set, String::new(), off);
                    }
                    let (t2, _, _) = self.lookahead(Context::Values);
                    if t2 == Token::ClosedPar {
                        insert(&mut set, String::new(), off);
                        return Ok(set);
                    }
                    if t2 == Token::Comma {
                        // Upstream consumes the second comma here, so `(a,,)` then meets
                        // `)` where it wants a value and fails, while `(a,,b)` parses.
                        self.consume(Context::Values);
                        insert(&mut set, String::new(), off);
                    }
                }
                _ => {
                    return Err(req_err(
                        format!("found '{lit}', expected: ',', or identifier"),
                        off,
                    ))
                }
            }
        }
    }

    fn parse_exact_value(&mut self) -> Result<Vec<(String, usize)>, ReqError> {
        let (tok, _, off) = self.lookahead(Context::Values);
        if tok == Token::EndOfString || tok == Token::Comma {
            return Ok(vec![(String::new(), off)]);
        }
        let (tok, lit, off) = self.consume(Context::Values);
        if tok == Token::Identifier {
            return Ok(vec![(lit, off)]);
        }
        Err(req_err(format!("found '{lit}', expected: identifier"), off))
    }
}

fn err(message: String, offset: usize) -> ParseError {
    ParseError { message, offset }
}

fn req_err(message: String, offset: usize) -> ReqError {
    ReqError { message, offset }
}

/// `NewRequirement` with the parser's nil path; errors point at `offset`.
fn build(
    key: &str,
    op: Operator,
    values: Vec<String>,
    offset: usize,
) -> Result<Requirement, ReqError> {
    new_requirement(key, op.as_str(), Some(&values), &FieldPath::nil())
        .map_err(|errs| req_err(aggregate(&errs), offset))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(s: &str) -> String {
        match parse(s) {
            Ok(sel) => sel.to_string(),
            Err(e) => panic!("{s:?}: {e}"),
        }
    }

    fn fail(s: &str) -> ParseError {
        match parse(s) {
            Ok(sel) => panic!("{s:?} parsed as {sel}"),
            Err(e) => e,
        }
    }

    #[test]
    fn normalizes_and_sorts() {
        assert_eq!(ok("environment = production"), "environment=production");
        assert_eq!(
            ok("tier notin (frontend, backend)"),
            "tier notin (backend,frontend)"
        );
        assert_eq!(ok("b,!a,c==1"), "!a,b,c==1");
        assert_eq!(ok("x in (,a)"), "x in (,a)");
        assert_eq!(ok("x in ()"), "x in ()");
        assert_eq!(ok("x="), "x=");
        assert_eq!(ok("in in (in, notin)"), "in in (in,notin)");
        assert_eq!(ok(""), "");
        assert_eq!(ok("x>5,y<3"), "x>5,y<3");
    }

    #[test]
    fn double_commas_in_value_lists_skip_a_token() {
        // Upstream consumes the comma after a comma, so what follows it must be a value.
        assert_eq!(ok("x in (a,,b)"), "x in (,a,b)");
        assert_eq!(ok("x in (,)"), "x in ()");
        assert_eq!(ok("x in (,,,)"), "x in ()");
        assert_eq!(ok("x in (a,,,b)"), "x in (,a,b)");
        let e = fail("x in (a,,)");
        assert_eq!(
            e.message,
            "unable to parse requirement: found ')', expected: ',', or identifier"
        );
        assert_eq!(e.offset, 9);
        assert_eq!(
            fail("x in (,,)").message,
            "unable to parse requirement: found ')', expected: ',', or identifier"
        );
    }

    #[test]
    fn errors_and_offsets() {
        let e = fail("x,,y");
        assert_eq!(e.message, "found ',', expected: identifier after ','");
        assert_eq!(e.offset, 2);
        let e = fail("x in (a)b");
        assert_eq!(e.message, "found 'b', expected: ',' or 'end of string'");
        assert_eq!(e.offset, 8);
        assert_eq!(
            fail("x!").message,
            "unable to parse requirement: found '!', expected: in, notin, =, ==, !=, gt, lt"
        );
        assert_eq!(
            fail("!").message,
            "unable to parse requirement: found '', expected: identifier"
        );
        assert_eq!(
            fail("x in (a").message,
            "unable to parse requirement: found '', expected: ',' or ')'"
        );
        assert!(fail("/x")
            .message
            .starts_with("unable to parse requirement: <nil>: Invalid value: \"/x\""));
        assert_eq!(fail("a=-b").offset, 2);
        assert_eq!(fail("x in (a, -b, c)").offset, 9);
        assert_eq!(fail("x in (zz, -b, -a)").offset, 14);
    }
}
