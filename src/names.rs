//! Upstream name and label validation (`k8s.io/apimachinery/pkg/util/validation`).
//!
//! Each function returns upstream's messages in upstream's order; an empty list
//! means valid. Upstream checks with anchored Go regexps (`^…$`, where `$` is end of
//! text); the hand-written matchers below accept exactly the same strings.

const QUALIFIED_NAME_FMT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const QUALIFIED_NAME_ERR: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const QUALIFIED_NAME_MAX: usize = 63;
const LABEL_VALUE_FMT: &str = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
const LABEL_VALUE_ERR: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_MAX: usize = 63;
const DNS1123_LABEL_FMT: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_LABEL_ERR: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_LABEL_MAX: usize = 63;
const DNS1123_SUBDOMAIN_FMT: &str =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
const DNS1123_SUBDOMAIN_ERR: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_MAX: usize = 253;
const DNS1035_LABEL_FMT: &str = "[a-z]([-a-z0-9]*[a-z0-9])?";
const DNS1035_LABEL_ERR: &str = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const DNS1035_LABEL_MAX: usize = 63;

/// `validation.MaxLenError`.
fn max_len_error(n: usize) -> String {
    format!("must be no more than {n} characters")
}

/// `validation.EmptyError`.
fn empty_error() -> &'static str {
    "must be non-empty"
}

/// `validation.RegexError`: the message, the examples, then the regex.
fn regex_error(msg: &str, re: &str, examples: &[&str]) -> String {
    if examples.is_empty() {
        return format!("{msg} (regex used for validation is '{re}')");
    }
    let mut s = format!("{msg} (e.g. ");
    for (i, e) in examples.iter().enumerate() {
        if i > 0 {
            s.push_str(" or ");
        }
        s.push('\'');
        s.push_str(e);
        s.push_str("', ");
    }
    s.push_str("regex used for validation is '");
    s.push_str(re);
    s.push_str("')");
    s
}

/// `^first (middle* last)?$` over bytes: a non-empty run whose ends satisfy `edge`
/// and whose inner bytes satisfy `inner`. Non-ASCII bytes never satisfy either.
fn matches_run(
    v: &[u8],
    first: fn(u8) -> bool,
    inner: fn(u8) -> bool,
    last: fn(u8) -> bool,
) -> bool {
    match v {
        [] => false,
        [one] => first(*one) && last(*one),
        [a, mid @ .., z] => first(*a) && last(*z) && mid.iter().all(|b| inner(*b)),
    }
}

fn alnum(b: u8) -> bool {
    b.is_ascii_alphanumeric()
}

fn qname_inner(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.'
}

fn lower_alnum(b: u8) -> bool {
    b.is_ascii_lowercase() || b.is_ascii_digit()
}

fn lower_alnum_dash(b: u8) -> bool {
    lower_alnum(b) || b == b'-'
}

fn lower_alpha(b: u8) -> bool {
    b.is_ascii_lowercase()
}

/// `^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$`
fn is_qualified_name_part(v: &str) -> bool {
    matches_run(v.as_bytes(), alnum, qname_inner, alnum)
}

/// `^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
fn is_dns1123_label_re(v: &str) -> bool {
    matches_run(v.as_bytes(), lower_alnum, lower_alnum_dash, lower_alnum)
}

/// Subdomain regex: dns1123 labels joined by single dots.
fn is_dns1123_subdomain_re(v: &str) -> bool {
    v.split('.').all(is_dns1123_label_re)
}

fn prefixed(prefix: &str, msgs: Vec<String>) -> Vec<String> {
    msgs.into_iter().map(|m| format!("{prefix}{m}")).collect()
}

/// `validation.IsQualifiedName`: `[prefix/]name`, the prefix a DNS subdomain.
pub fn is_qualified_name(v: &str) -> Vec<String> {
    let mut errs = Vec::new();
    let parts: Vec<&str> = v.split('/').collect();
    let name = match parts.as_slice() {
        [name] => *name,
        [prefix, name] => {
            if prefix.is_empty() {
                errs.push(format!("prefix part {}", empty_error()));
            } else {
                errs.extend(prefixed("prefix part ", is_dns1123_subdomain(prefix)));
            }
            *name
        }
        _ => {
            let re = regex_error(
                QUALIFIED_NAME_ERR,
                QUALIFIED_NAME_FMT,
                &["MyName", "my.name", "123-abc"],
            );
            errs.push(format!(
                "a qualified name {re} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
            ));
            return errs;
        }
    };
    if name.is_empty() {
        errs.push(format!("name part {}", empty_error()));
    } else if name.len() > QUALIFIED_NAME_MAX {
        errs.push(format!("name part {}", max_len_error(QUALIFIED_NAME_MAX)));
    }
    if !is_qualified_name_part(name) {
        let re = regex_error(
            QUALIFIED_NAME_ERR,
            QUALIFIED_NAME_FMT,
            &["MyName", "my.name", "123-abc"],
        );
        errs.push(format!("name part {re}"));
    }
    errs
}

/// `validation.IsValidLabelValue`: empty, or a qualified-name part of at most 63 bytes.
pub fn is_valid_label_value(v: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if v.len() > LABEL_VALUE_MAX {
        errs.push(max_len_error(LABEL_VALUE_MAX));
    }
    if !v.is_empty() && !is_qualified_name_part(v) {
        errs.push(regex_error(
            LABEL_VALUE_ERR,
            LABEL_VALUE_FMT,
            &["MyValue", "my_value", "12345"],
        ));
    }
    errs
}

/// `validation.IsDNS1123Subdomain`.
pub fn is_dns1123_subdomain(v: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if v.len() > DNS1123_SUBDOMAIN_MAX {
        errs.push(max_len_error(DNS1123_SUBDOMAIN_MAX));
    }
    if !is_dns1123_subdomain_re(v) {
        errs.push(regex_error(
            DNS1123_SUBDOMAIN_ERR,
            DNS1123_SUBDOMAIN_FMT,
            &["example.com"],
        ));
    }
    errs
}

/// `validation.IsDNS1123Label`.
pub fn is_dns1123_label(v: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if v.len() > DNS1123_LABEL_MAX {
        errs.push(max_len_error(DNS1123_LABEL_MAX));
    }
    if !is_dns1123_label_re(v) {
        errs.push(regex_error(
            DNS1123_LABEL_ERR,
            DNS1123_LABEL_FMT,
            &["my-name", "123-abc"],
        ));
    }
    errs
}

/// `validation.IsDNS1035Label`.
pub fn is_dns1035_label(v: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if v.len() > DNS1035_LABEL_MAX {
        errs.push(max_len_error(DNS1035_LABEL_MAX));
    }
    if !matches_run(v.as_bytes(), lower_alpha, lower_alnum_dash, lower_alnum) {
        errs.push(regex_error(
            DNS1035_LABEL_ERR,
            DNS1035_LABEL_FMT,
            &["my-name", "abc-123"],
        ));
    }
    errs
}

/// `path.IsValidPathSegmentName`: not `.` or `..`, no `/` or `%`.
pub fn is_valid_path_segment_name(v: &str) -> Vec<String> {
    for bad in [".", ".."] {
        if v == bad {
            return vec![format!("may not be '{bad}'")];
        }
    }
    is_valid_path_segment_prefix(v)
}

/// `path.IsValidPathSegmentPrefix`: no `/` or `%` (a `generateName` prefix).
pub fn is_valid_path_segment_prefix(v: &str) -> Vec<String> {
    ["/", "%"]
        .iter()
        .filter(|bad| v.contains(**bad))
        .map(|bad| format!("may not contain '{bad}'"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qualified_names() {
        assert!(is_qualified_name("example.com/My_name-1").is_empty());
        assert_eq!(
            is_qualified_name("/x"),
            vec!["prefix part must be non-empty"]
        );
        assert_eq!(is_qualified_name("a/b/c").len(), 1);
        assert_eq!(is_qualified_name("").len(), 2);
        assert_eq!(
            is_qualified_name(&"a".repeat(64)),
            vec!["name part must be no more than 63 characters"]
        );
        assert!(is_qualified_name("Example.com/x")[0]
            .starts_with("prefix part a lowercase RFC 1123 subdomain"));
    }

    #[test]
    fn label_values() {
        assert!(is_valid_label_value("").is_empty());
        assert!(is_valid_label_value("a.b_c-d").is_empty());
        assert_eq!(is_valid_label_value("-a").len(), 1);
        assert_eq!(
            is_valid_label_value(&format!("{}.", "a".repeat(63))).len(),
            2
        );
    }

    #[test]
    fn dns_names() {
        assert!(is_dns1123_label("123abc").is_empty());
        assert_eq!(is_dns1123_label("my.name").len(), 1);
        assert!(is_dns1123_subdomain("a.b-c.d").is_empty());
        assert_eq!(is_dns1123_subdomain("a..b").len(), 1);
        assert_eq!(is_dns1035_label("1a").len(), 1);
        assert!(is_dns1035_label("a-1").is_empty());
    }

    #[test]
    fn path_segments() {
        assert_eq!(is_valid_path_segment_name(".."), vec!["may not be '..'"]);
        assert_eq!(
            is_valid_path_segment_name("a/%"),
            vec!["may not contain '/'", "may not contain '%'"]
        );
        assert!(is_valid_path_segment_name("").is_empty());
    }
}
