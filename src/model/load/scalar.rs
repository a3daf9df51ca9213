//! Plain-scalar resolution as Kubernetes does it.
//!
//! Kubernetes reads YAML through sigs.k8s.io/yaml, which decodes with (a fork of) go-yaml v2
//! and converts to JSON. go-yaml v2 resolves plain scalars with YAML 1.1 rules
//! (`resolve.go`): `yes`/`no`/`on`/`off`/`y`/`n` are booleans, `~`/`null`/empty are null,
//! `0x1F`/`0o17`/`017`/`0b101` are integers, `1_000` drops its underscores, timestamps stay
//! strings. Quoted and block scalars are always strings.

use serde_json::{Number, Value};

/// Resolved form of a plain scalar.
#[derive(Debug, PartialEq)]
pub(super) enum Plain {
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    Str,
}

/// go-yaml v2's resolve table: only these first characters can start a non-string.
fn hint(first: u8) -> Option<u8> {
    match first {
        b'+' | b'-' => Some(b'S'),
        b'0'..=b'9' => Some(b'D'),
        b'y' | b'Y' | b'n' | b'N' | b't' | b'T' | b'f' | b'F' | b'o' | b'O' | b'~' => Some(b'M'),
        b'.' => Some(b'.'),
        _ => None,
    }
}

/// The words of go-yaml v2's `resolveMapList`.
fn lookup(s: &str) -> Option<Plain> {
    Some(match s {
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            Plain::Bool(true)
        }
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            Plain::Bool(false)
        }
        "~" | "null" | "Null" | "NULL" => Plain::Null,
        ".nan" | ".NaN" | ".NAN" => Plain::Float(f64::NAN),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => Plain::Float(f64::INFINITY),
        "-.inf" | "-.Inf" | "-.INF" => Plain::Float(f64::NEG_INFINITY),
        _ => return None,
    })
}

/// The longest word of [`lookup`].
const LONGEST_WORD: usize = 5;

/// Bytes a number can hold in any form [`number`] or [`go_float`] takes (digits of every
/// radix, radix prefixes, signs, underscores, points and exponents).
fn number_byte(c: u8) -> bool {
    matches!(c, b'0'..=b'9' | b'a'..=b'f' | b'A'..=b'F' | b'x' | b'X' | b'o' | b'O' | b'+' | b'-' | b'_' | b'.')
}

/// Resolves a plain scalar's text.
pub(super) fn resolve(s: &str) -> Plain {
    let Some(&first) = s.as_bytes().first() else {
        return Plain::Null;
    };
    let Some(h) = hint(first) else {
        return Plain::Str;
    };
    // Longer than any word and not a number: a string, told without trying each form in
    // turn (most keys and values starting with a hint letter or digit end here).
    if s.len() > LONGEST_WORD && !s.bytes().all(number_byte) {
        return Plain::Str;
    }
    resolve_hinted(s, h)
}

/// [`resolve`] of a text whose first byte has hint `h`.
fn resolve_hinted(s: &str, h: u8) -> Plain {
    if let Some(p) = lookup(s) {
        return p;
    }
    match h {
        b'.' => go_float(s).map_or(Plain::Str, Plain::Float),
        b'D' | b'S' => number(s),
        _ => Plain::Str,
    }
}

/// Int, then uint, then YAML-style float, then `0b` binary, as go-yaml v2 tries them.
fn number(s: &str) -> Plain {
    // Most numbers have no underscore: no allocation for them.
    let plain: std::borrow::Cow<'_, str> = if s.contains('_') {
        s.chars().filter(|&c| c != '_').collect::<String>().into()
    } else {
        s.into()
    };
    if let Some(i) = go_parse_int(&plain) {
        return Plain::Int(i);
    }
    if let Some(u) = go_parse_uint(&plain) {
        return Plain::UInt(u);
    }
    if is_yaml_float(&plain) {
        if let Some(f) = go_float(&plain) {
            return Plain::Float(f);
        }
    }
    Plain::Str
}

/// Splits a Go base-0 literal into (negative, radix, digits).
fn go_radix(s: &str) -> Option<(bool, u32, &str)> {
    let (neg, body) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    let lower = |p: &str| body.len() > 2 && body.as_bytes()[..2].eq_ignore_ascii_case(p.as_bytes());
    let (radix, digits) = if lower("0x") {
        (16, &body[2..])
    } else if lower("0b") {
        (2, &body[2..])
    } else if lower("0o") {
        (8, &body[2..])
    } else if body.len() > 1 && body.starts_with('0') {
        (8, &body[1..])
    } else {
        (10, body)
    };
    let ok = !digits.is_empty() && digits.chars().all(|c| c.is_digit(radix));
    ok.then_some((neg, radix, digits))
}

/// `strconv.ParseInt(s, 0, 64)`.
fn go_parse_int(s: &str) -> Option<i64> {
    let (neg, radix, digits) = go_radix(s)?;
    let mag = u64::from_str_radix(digits, radix).ok()?;
    if neg {
        0i64.checked_sub_unsigned(mag)
    } else {
        i64::try_from(mag).ok()
    }
}

/// `strconv.ParseUint(s, 0, 64)` (no sign allowed).
fn go_parse_uint(s: &str) -> Option<u64> {
    if s.starts_with(['+', '-']) {
        return None;
    }
    let (_, radix, digits) = go_radix(s)?;
    u64::from_str_radix(digits, radix).ok()
}

/// go-yaml v2's `yamlStyleFloat`: `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`.
fn is_yaml_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = usize::from(matches!(b.first(), Some(b'+' | b'-')));
    let digits = |i: &mut usize| {
        let start = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i - start
    };
    if b.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    } else {
        if digits(&mut i) == 0 {
            return false;
        }
        if b.get(i) == Some(&b'.') {
            i += 1;
            digits(&mut i);
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// `strconv.ParseFloat(s, 64)` for the decimal forms YAML produces.
fn go_float(s: &str) -> Option<f64> {
    if !s
        .bytes()
        .all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-'))
    {
        return None;
    }
    s.parse().ok()
}

/// JSON value of a resolved plain scalar, as sigs.k8s.io/yaml's JSON round trip gives it:
/// a whole float becomes an integer (Go prints `1.0` as `1`, and unstructured decoding
/// reads it back as int64). NaN and infinities have no JSON form: `Err` with Go's message.
pub(super) fn to_json(p: Plain, text: &str) -> Result<Value, String> {
    Ok(match p {
        Plain::Null => Value::Null,
        Plain::Bool(b) => Value::Bool(b),
        Plain::Int(i) => Value::from(i),
        Plain::UInt(u) => Value::from(u),
        Plain::Float(f) if f.is_finite() && f.fract() == 0.0 && f.abs() < 9.0e15 => {
            // Exactly representable: no precision is lost by the integer form.
            #[allow(clippy::cast_possible_truncation)]
            Value::from(f as i64)
        }
        Plain::Float(f) => match Number::from_f64(f) {
            Some(n) => Value::Number(n),
            None => return Err(format!("json: unsupported value: {}", go_special(f))),
        },
        Plain::Str => Value::String(text.to_owned()),
    })
}

fn go_special(f: f64) -> &'static str {
    if f.is_nan() {
        "NaN"
    } else if f > 0.0 {
        "+Inf"
    } else {
        "-Inf"
    }
}

/// A mapping key as sigs.k8s.io/yaml stringifies it (`yes:` becomes `"true"`, `1:` `"1"`).
pub(super) fn key_string(text: &str) -> Result<String, String> {
    Ok(match resolve(text) {
        Plain::Str => text.to_owned(),
        Plain::Bool(b) => b.to_string(),
        Plain::Int(i) => i.to_string(),
        Plain::UInt(u) => u.to_string(),
        #[allow(clippy::cast_possible_truncation)]
        Plain::Float(f) => match f {
            f if f.is_nan() => ".nan".to_owned(),
            f if f == f64::INFINITY => ".inf".to_owned(),
            f if f == f64::NEG_INFINITY => "-.inf".to_owned(),
            // Go formats float keys with 32-bit precision ('g', -1, 32).
            f => (f as f32).to_string(),
        },
        Plain::Null => return Err("unsupported map key of type: <nil>, key: null".to_owned()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_1_1_words() {
        for t in ["yes", "Yes", "on", "ON", "y", "true", "True"] {
            assert_eq!(resolve(t), Plain::Bool(true), "{t}");
        }
        for f in ["no", "off", "n", "N", "false", "FALSE"] {
            assert_eq!(resolve(f), Plain::Bool(false), "{f}");
        }
        for n in ["", "~", "null", "Null", "NULL"] {
            assert_eq!(resolve(n), Plain::Null, "{n}");
        }
        for s in [
            "yES", "nULL", "tru", "o", "abc", "1.0.0", "1e", "0x", "--1", "1:2",
        ] {
            assert_eq!(resolve(s), Plain::Str, "{s}");
        }
    }

    proptest::proptest! {
        /// The shortcut for long texts answers what trying every form answers.
        #[test]
        fn the_shortcut_changes_nothing(s in "[-+._0-9a-fxXoOA-FtrueyYnNl~ :TZ]{0,12}") {
            let full = match s.as_bytes().first().and_then(|&c| hint(c)) {
                None if s.is_empty() => Plain::Null,
                None => Plain::Str,
                Some(h) => resolve_hinted(&s, h),
            };
            let got = resolve(&s);
            // NaN is not equal to itself.
            proptest::prop_assert_eq!(format!("{got:?}"), format!("{full:?}"));
        }
    }

    #[test]
    fn words_are_short() {
        let longest = ["+.inf", "-.INF", "false", "FALSE", "False", ".nan", "null"];
        assert!(longest
            .iter()
            .all(|w| w.len() <= LONGEST_WORD && lookup(w).is_some()));
        assert_eq!(resolve("+.Inf"), Plain::Float(f64::INFINITY));
        assert_eq!(resolve("1_000_000"), Plain::Int(1_000_000));
        assert_eq!(resolve("0x1F_FF"), Plain::Int(0x1fff));
        assert_eq!(resolve("10.96.0.10"), Plain::Str);
        assert_eq!(resolve("2026-01-22T01:23:19Z"), Plain::Str);
        assert_eq!(resolve("-1.5E-2"), Plain::Float(-0.015));
    }

    #[test]
    fn numbers_like_go() {
        assert_eq!(resolve("42"), Plain::Int(42));
        assert_eq!(resolve("-42"), Plain::Int(-42));
        assert_eq!(resolve("+7"), Plain::Int(7));
        assert_eq!(resolve("0x1F"), Plain::Int(31));
        assert_eq!(resolve("0o17"), Plain::Int(15));
        assert_eq!(resolve("017"), Plain::Int(15));
        assert_eq!(resolve("0b101"), Plain::Int(5));
        assert_eq!(resolve("1_000"), Plain::Int(1000));
        assert_eq!(resolve("0"), Plain::Int(0));
        assert_eq!(resolve("18446744073709551615"), Plain::UInt(u64::MAX));
        assert_eq!(resolve("1.5"), Plain::Float(1.5));
        assert_eq!(resolve(".5"), Plain::Float(0.5));
        assert_eq!(resolve("1e3"), Plain::Float(1000.0));
        assert_eq!(resolve("-1.5E-2"), Plain::Float(-0.015));
        assert_eq!(resolve("089"), Plain::Float(89.0));
        assert_eq!(resolve("2024-01-01"), Plain::Str);
        assert_eq!(resolve("1.2.3"), Plain::Str);
    }

    #[test]
    fn json_forms() {
        assert_eq!(to_json(resolve("1.0"), "1.0"), Ok(Value::from(1)));
        assert_eq!(to_json(resolve("1.5"), "1.5"), Ok(Value::from(1.5)));
        assert_eq!(to_json(resolve("x"), "x"), Ok(Value::from("x")));
        assert_eq!(
            to_json(resolve(".nan"), ".nan"),
            Err("json: unsupported value: NaN".to_owned())
        );
    }

    #[test]
    fn keys_like_sigs_yaml() {
        assert_eq!(key_string("yes").as_deref(), Ok("true"));
        assert_eq!(key_string("off").as_deref(), Ok("false"));
        assert_eq!(key_string("0x10").as_deref(), Ok("16"));
        assert_eq!(key_string("1.5").as_deref(), Ok("1.5"));
        assert_eq!(key_string("name").as_deref(), Ok("name"));
        assert!(key_string("~").is_err());
    }
}
