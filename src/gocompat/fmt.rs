//! Go's `fmt` verbs for the composite values upstream messages embed.

use super::quote::Quoted;

/// `%#v` of a `[]string`: `[]string{"a", "b"}`; `None` is the nil slice,
/// `[]string(nil)`, which Go prints differently from an empty one.
pub fn string_slice<S: AsRef<str>>(values: Option<&[S]>) -> String {
    match values {
        None => "[]string(nil)".to_string(),
        Some(v) => {
            let inner: Vec<String> = v.iter().map(|s| Quoted(s.as_ref()).to_string()).collect();
            format!("[]string{{{}}}", inner.join(", "))
        }
    }
}

/// `%#v` of a `map[string]string`: `map[string]string{"a":"1", "b":"2"}`, keys sorted
/// (as `fmt` prints maps since Go 1.12) by byte order, Go's string order.
pub fn string_map<'a>(entries: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    let mut sorted: Vec<(&str, &str)> = entries.into_iter().collect();
    sorted.sort_unstable();
    let inner: Vec<String> = sorted
        .iter()
        .map(|(k, v)| format!("{}:{}", Quoted(k), Quoted(v)))
        .collect();
    format!("map[string]string{{{}}}", inner.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Expected outputs are Go's `fmt.Sprintf("%#v", v)`.
    #[test]
    fn slices_match_go() {
        assert_eq!(string_slice::<&str>(None), "[]string(nil)");
        assert_eq!(string_slice::<&str>(Some(&[])), "[]string{}");
        assert_eq!(
            string_slice(Some(&["orphan", "foregroundDeletion"])),
            r#"[]string{"orphan", "foregroundDeletion"}"#
        );
        // non-ASCII printable kept, controls and quotes escaped, as strconv.Quote does
        assert_eq!(
            string_slice(Some(&["ü/e\u{301}", "a\"b", "x\u{1b}[31m", "\u{a0}"])),
            "[]string{\"ü/e\u{301}\", \"a\\\"b\", \"x\\x1b[31m\", \"\\u00a0\"}"
        );
    }

    #[test]
    fn maps_match_go() {
        assert_eq!(string_map([]), "map[string]string{}");
        assert_eq!(
            string_map([("b", "2"), ("a", "ü\n"), ("B", "")]),
            r#"map[string]string{"B":"", "a":"ü\n", "b":"2"}"#
        );
    }
}
