//! The JSONPath subset `kubectl get --sort-by` accepts (`{.metadata.name}`,
//! `.spec.containers[0].image`, `.metadata.labels['app.kubernetes.io/name']`), and kubectl's
//! ordering of the values found (numbers numerically, strings in natural order).

use std::cmp::Ordering;

use crate::value::{RawKind, RawRef};

/// One step of a path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    Key(String),
    Index(usize),
    /// `[*]`: every element of a list (or every value of a map). Only [`parse_path`] gives
    /// it; `--sort-by` needs one value per object.
    All,
    /// `[?(@.a.b=="x")]` (or `!=`): the elements whose value at the keys compares so with
    /// the literal (CRD printer columns use it: `.status.conditions[?(@.type=="Ready")]`).
    /// Only [`parse_path`] gives it.
    Filter {
        keys: Vec<String>,
        equal: bool,
        literal: String,
    },
}

/// What [`parse_path`] accepts, for error messages.
pub const PATH_FORMS: &str = ".a.b, .a[0], .a[*], .a['dotted.key/name'], .a[?(@.b==\"x\")]";

/// kubectl's `RelaxedJSONPathExpression` refusal (`^\{\.?([^{}]+)\}$|^\.?([^{}]+)$`), which
/// `--sort-by` reports before parsing: `{` alone, unbalanced or nested braces.
const UNEXPECTED_PATH: &str = "unexpected path string, expected a 'name1.name2' or '.name1.name2' or '{name1.name2}' or '{.name1.name2}'";

/// Whether `expr` has a shape `RelaxedJSONPathExpression` accepts.
fn relaxed_shape(expr: &str) -> bool {
    let braced = expr
        .strip_prefix('{')
        .and_then(|s| s.strip_suffix('}'))
        .map(|s| s.strip_prefix('.').filter(|r| !r.is_empty()).unwrap_or(s));
    let bare = expr
        .strip_prefix('.')
        .filter(|r| !r.is_empty())
        .unwrap_or(expr);
    let plain = |s: &str| !s.is_empty() && !s.contains(['{', '}']);
    braced.is_some_and(plain) || plain(bare)
}

/// Parses `{.a.b[0]}`, `.a.b`, `a.b` or `.a['x.y/z']` into steps.
pub fn parse(expr: &str) -> Result<Vec<Step>, String> {
    if !relaxed_shape(expr) {
        return Err(UNEXPECTED_PATH.to_owned());
    }
    let trimmed = expr.trim();
    let inner = trimmed
        .strip_prefix('{')
        .and_then(|s| s.strip_suffix('}'))
        .unwrap_or(trimmed);
    let inner = inner.strip_prefix('.').unwrap_or(inner);
    steps(inner, expr, false)
}

/// A path in kubectl's JSONPath notation without braces, for the selector bar's `.path`
/// terms: `.a.b`, `.a[0]`, `.a[*]` (any element), `.a['dotted.key']`.
pub fn parse_path(expr: &str) -> Result<Vec<Step>, String> {
    let inner = expr.strip_prefix('.').unwrap_or(expr);
    steps(inner, expr, true)
}

fn steps(inner: &str, expr: &str, wildcard: bool) -> Result<Vec<Step>, String> {
    let mut steps = Vec::new();
    let mut rest = inner;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('[') {
            let close = closing(after).ok_or_else(|| format!("unclosed [ in {expr:?}"))?;
            let body = &after[..close];
            let step = match bracket(body) {
                Some(Step::All | Step::Filter { .. }) if !wildcard => None,
                step => step,
            };
            steps.push(step.ok_or_else(|| format!("bad index [{body}] in {expr:?}"))?);
            rest = after[close + 1..]
                .strip_prefix('.')
                .unwrap_or(&after[close + 1..]);
            continue;
        }
        let end = rest.find(['.', '[']).unwrap_or(rest.len());
        if end == 0 {
            return Err(format!("empty field name in {expr:?}"));
        }
        steps.push(Step::Key(rest[..end].to_owned()));
        rest = &rest[end..];
        rest = rest.strip_prefix('.').unwrap_or(rest);
    }
    if steps.is_empty() {
        return Err(format!("empty JSONPath {expr:?}"));
    }
    Ok(steps)
}

/// The `]` closing a bracket whose body starts `after`, past a quoted key's `]`s.
fn closing(after: &str) -> Option<usize> {
    match after.chars().next() {
        Some(q @ ('\'' | '"')) => {
            let end = after[1..].find(q)? + 1;
            after[end..].find(']').map(|i| end + i)
        }
        _ => after.find(']'),
    }
}

fn bracket(body: &str) -> Option<Step> {
    if body.trim() == "*" {
        return Some(Step::All);
    }
    if let Some(expr) = body.strip_prefix("?(").and_then(|b| b.strip_suffix(')')) {
        return filter(expr);
    }
    let quoted = body
        .strip_prefix('\'')
        .and_then(|b| b.strip_suffix('\''))
        .or_else(|| body.strip_prefix('"').and_then(|b| b.strip_suffix('"')));
    match quoted {
        Some(k) => Some(Step::Key(k.to_owned())),
        None => body.trim().parse().ok().map(Step::Index),
    }
}

/// `@.a.b=="x"`, `@.a!='x'`, `@.n==3`: a filter comparing one value with a literal.
fn filter(expr: &str) -> Option<Step> {
    let (lhs, equal, rhs) = match (expr.find("=="), expr.find("!=")) {
        (Some(i), _) => (&expr[..i], true, &expr[i + 2..]),
        (None, Some(i)) => (&expr[..i], false, &expr[i + 2..]),
        _ => return None,
    };
    let keys: Vec<String> = lhs
        .trim()
        .strip_prefix("@.")?
        .split('.')
        .map(str::to_owned)
        .collect();
    let rhs = rhs.trim();
    let literal = rhs
        .strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .or_else(|| rhs.strip_prefix('\'').and_then(|r| r.strip_suffix('\'')))
        .unwrap_or(rhs);
    (!keys.iter().any(String::is_empty)).then(|| Step::Filter {
        keys,
        equal,
        literal: literal.to_owned(),
    })
}

/// A scalar as JSONPath text prints it (strings bare), `None` for maps and lists.
fn scalar_text(v: RawRef<'_>) -> Option<String> {
    match v.kind() {
        RawKind::String(s) => Some(s.to_owned()),
        RawKind::Object(_) | RawKind::Array(_) => None,
        _ => Some(v.to_string()),
    }
}

/// The value at `steps`, if present (`[*]` finds nothing: use [`lookup_all`]).
pub fn lookup<'v>(v: RawRef<'v>, steps: &[Step]) -> Option<RawRef<'v>> {
    steps.iter().try_fold(v, |v, s| match s {
        Step::Key(k) => v.get(k),
        Step::Index(i) => v.at(*i),
        Step::All | Step::Filter { .. } => None,
    })
}

/// Every value at `steps`, `[*]` expanding to each element of a list or value of a map.
pub fn lookup_all<'v>(v: RawRef<'v>, steps: &[Step]) -> Vec<RawRef<'v>> {
    let mut found = vec![v];
    for step in steps {
        found = found
            .into_iter()
            .flat_map(|v| match step {
                Step::Key(k) => v.get(k).into_iter().collect::<Vec<_>>(),
                Step::Index(i) => v.at(*i).into_iter().collect(),
                Step::All => match v.kind() {
                    RawKind::Array(a) => a.iter().collect(),
                    RawKind::Object(m) => m.iter().map(|(_, x)| x).collect(),
                    _ => Vec::new(),
                },
                Step::Filter {
                    keys,
                    equal,
                    literal,
                } => match v.kind() {
                    RawKind::Array(a) => a
                        .iter()
                        .filter(|e| {
                            let at = keys.iter().try_fold(*e, |x, k| x.get(k));
                            let same =
                                at.and_then(scalar_text).as_deref() == Some(literal.as_str());
                            same == *equal && at.is_some()
                        })
                        .collect(),
                    _ => Vec::new(),
                },
            })
            .collect();
    }
    found
}

/// kubectl's order of two sort keys: absent first, numbers numerically, strings naturally.
pub fn compare(a: Option<RawRef<'_>>, b: Option<RawRef<'_>>) -> Ordering {
    match (a.map(RawRef::kind), b.map(RawRef::kind)) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Less,
        (Some(_), None) => Ordering::Greater,
        (Some(RawKind::Number(x)), Some(RawKind::Number(y))) => {
            let (x, y) = (x.as_f64().unwrap_or(0.0), y.as_f64().unwrap_or(0.0));
            x.partial_cmp(&y).unwrap_or(Ordering::Equal)
        }
        (Some(RawKind::String(x)), Some(RawKind::String(y))) => natural_cmp(x, y),
        (Some(RawKind::Bool(x)), Some(RawKind::Bool(y))) => x.cmp(&y),
        _ => match (a, b) {
            (Some(x), Some(y)) => natural_cmp(&x.to_string(), &y.to_string()),
            _ => Ordering::Equal,
        },
    }
}

/// Natural order (`pod-2` < `pod-10`), as kubectl's `sortorder.NaturalLess`.
pub fn natural_cmp(a: &str, b: &str) -> Ordering {
    let (mut a, mut b) = (a.as_bytes(), b.as_bytes());
    while !a.is_empty() && !b.is_empty() {
        let (da, db) = (a[0].is_ascii_digit(), b[0].is_ascii_digit());
        if da && db {
            let la = a.iter().take_while(|c| c.is_ascii_digit()).count();
            let lb = b.iter().take_while(|c| c.is_ascii_digit()).count();
            let (na, nb) = (trim_zeros(&a[..la]), trim_zeros(&b[..lb]));
            let ord = na.len().cmp(&nb.len()).then_with(|| na.cmp(nb));
            if ord != Ordering::Equal {
                return ord;
            }
            let ord = la.cmp(&lb);
            if ord != Ordering::Equal {
                return ord;
            }
            a = &a[la..];
            b = &b[lb..];
        } else {
            if a[0] != b[0] {
                return a[0].cmp(&b[0]);
            }
            a = &a[1..];
            b = &b[1..];
        }
    }
    a.len().cmp(&b.len())
}

fn trim_zeros(d: &[u8]) -> &[u8] {
    let z = d.iter().take_while(|&&c| c == b'0').count();
    &d[z..]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Raw;
    use serde_json::json;

    #[test]
    fn relaxed_shapes_as_kubectl() {
        for ok in ["{.a.b}", "{a.b}", ".a.b", "a.b", "{.}", "."] {
            assert!(relaxed_shape(ok), "{ok}");
        }
        for bad in ["{", "}", "{.a", "{{.a}}", "a}", "{}"] {
            assert_eq!(parse(bad), Err(UNEXPECTED_PATH.to_owned()), "{bad}");
        }
    }

    #[test]
    fn parses_kubectl_forms() {
        let want = vec![Step::Key("metadata".into()), Step::Key("name".into())];
        assert_eq!(parse("{.metadata.name}").ok(), Some(want.clone()));
        assert_eq!(parse(".metadata.name").ok(), Some(want.clone()));
        assert_eq!(parse("metadata.name").ok(), Some(want));
        assert_eq!(
            parse(".spec.containers[0].image").ok(),
            Some(vec![
                Step::Key("spec".into()),
                Step::Key("containers".into()),
                Step::Index(0),
                Step::Key("image".into())
            ])
        );
        assert_eq!(
            parse(".metadata.labels['app.kubernetes.io/name']").ok(),
            Some(vec![
                Step::Key("metadata".into()),
                Step::Key("labels".into()),
                Step::Key("app.kubernetes.io/name".into())
            ])
        );
        assert!(parse("{}").is_err());
        assert!(parse(".a[x").is_err());
    }

    #[test]
    fn lookup_and_order() {
        let v = json!({"spec": {"replicas": 10, "containers": [{"image": "a"}]}});
        let steps = parse(".spec.containers[0].image").expect("valid");
        let v = Raw::from(v);
        assert_eq!(lookup(v.view(), &steps).and_then(RawRef::as_str), Some("a"));
        let (two, ten) = (Raw::from(json!(2)), Raw::from(json!(10)));
        assert_eq!(
            compare(Some(two.view()), Some(ten.view())),
            Ordering::Less,
            "numeric"
        );
        assert_eq!(natural_cmp("pod-2", "pod-10"), Ordering::Less);
        assert_eq!(natural_cmp("a", "b"), Ordering::Less);
        assert_eq!(natural_cmp("x01", "x1"), Ordering::Greater);
        let a = Raw::from(json!("a"));
        assert_eq!(compare(None, Some(a.view())), Ordering::Less);
    }
}
