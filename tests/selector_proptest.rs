//! Property tests for the selector grammar: normalization is a fixed point, matching
//! agrees with a naive reading of the requirement semantics, field values survive
//! escaping, and no input makes the parsers (or the JSON protocol) panic.

use std::collections::BTreeMap;

use kubesift::selector::fields::escape_value;
use kubesift::selector::protocol::respond_line;
use kubesift::selector::{parse_fields, parse_labels, FieldOperator, Operator};
use proptest::prelude::*;

/// Operators as written in selector text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Eq,
    DoubleEq,
    NotEq,
    In,
    NotIn,
    Exists,
    NotExists,
    Gt,
    Lt,
}

/// One generated requirement, kept apart from the engine's types so the reference
/// evaluator below owes nothing to the code under test.
#[derive(Debug, Clone)]
struct Req {
    key: String,
    op: Op,
    values: Vec<String>,
}

fn dns_label() -> impl Strategy<Value = String> {
    "[a-z0-9]([-a-z0-9]{0,8}[a-z0-9])?"
}

fn name_part() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(vec!["app", "env", "tier", "zone", "in", "notin", "a", "x"])
            .prop_map(str::to_string),
        2 => "[A-Za-z0-9]([-A-Za-z0-9_.]{0,10}[A-Za-z0-9])?",
        1 => "[a-z][a-z0-9]{61}[a-z]".prop_map(|s| s[..63].to_string()),
    ]
}

/// A valid label key: `name` or `dns.subdomain/name`.
fn key() -> impl Strategy<Value = String> {
    (
        prop::option::weighted(0.3, prop::collection::vec(dns_label(), 1..3)),
        name_part(),
    )
        .prop_map(|(prefix, name)| match prefix {
            Some(labels) => format!("{}/{name}", labels.join(".")),
            None => name,
        })
}

/// A valid label value, often one of a few so that matches happen.
fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(vec!["", "prod", "qa", "dev", "in", "notin", "1", "5", "10", "007"])
            .prop_map(str::to_string),
        2 => "([A-Za-z0-9]([-A-Za-z0-9_.]{0,12}[A-Za-z0-9])?)?",
    ]
}

/// An integer that is also a valid label value (no sign).
fn int_value() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => (0u32..20).prop_map(|n| n.to_string()),
        1 => "[0-9]{1,18}",
        1 => Just("9223372036854775807".to_string()),
    ]
}

fn req() -> impl Strategy<Value = Req> {
    let op = prop::sample::select(vec![
        Op::Eq,
        Op::DoubleEq,
        Op::NotEq,
        Op::In,
        Op::NotIn,
        Op::Exists,
        Op::NotExists,
        Op::Gt,
        Op::Lt,
    ]);
    (key(), op).prop_flat_map(|(key, op)| {
        let values = match op {
            // Upstream reads `,,` as one separator and then wants a value, so `(a,,)`
            // fails: keep at most one empty value, first (`(,a)`), or alone (`()`).
            Op::In | Op::NotIn => prop::collection::vec(value(), 1..4)
                .prop_map(|mut v| {
                    let empty = v.iter().any(String::is_empty);
                    v.retain(|x| !x.is_empty());
                    if empty {
                        v.insert(0, String::new());
                    }
                    v
                })
                .boxed(),
            Op::Exists | Op::NotExists => Just(Vec::new()).boxed(),
            Op::Gt | Op::Lt => int_value().prop_map(|v| vec![v]).boxed(),
            _ => value().prop_map(|v| vec![v]).boxed(),
        };
        values.prop_map(move |values| Req {
            key: key.clone(),
            op,
            values,
        })
    })
}

/// Separator whitespace the lexer skips.
fn ws() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["", "", "", " ", "  ", "\t", "\n", " \r\n "])
}

/// Renders requirements as selector text, with whitespace wherever the grammar allows.
fn render(reqs: &[Req], pads: &[&str]) -> String {
    let mut pad = pads.iter().cycle();
    let mut p = || *pad.next().unwrap_or(&"");
    let mut parts = Vec::new();
    for r in reqs {
        let (k, v0) = (&r.key, r.values.first().map_or("", String::as_str));
        let text = match r.op {
            Op::Eq => format!("{}{k}{}={}{v0}", p(), p(), p()),
            Op::DoubleEq => format!("{}{k}{}=={}{v0}", p(), p(), p()),
            Op::NotEq => format!("{}{k}{}!={}{v0}", p(), p(), p()),
            Op::Gt => format!("{}{k}{}>{}{v0}", p(), p(), p()),
            Op::Lt => format!("{}{k}{}<{}{v0}", p(), p(), p()),
            Op::Exists => format!("{}{k}{}", p(), p()),
            Op::NotExists => format!("{}!{}{k}{}", p(), p(), p()),
            Op::In | Op::NotIn => {
                let word = if r.op == Op::In { "in" } else { "notin" };
                // `in`/`notin` need a separator from the key; `(` ends the keyword itself.
                let sep = if p().is_empty() { " " } else { "\t" };
                let list = r
                    .values
                    .iter()
                    .map(|v| format!("{}{v}{}", p(), p()))
                    .collect::<Vec<_>>()
                    .join(",");
                format!("{}{k}{sep}{word}{}({list}){}", p(), p(), p())
            }
        };
        parts.push(text);
    }
    parts.join(",")
}

/// Go's `strconv.ParseInt(s, 10, 64)` for the values generated here.
fn int(s: &str) -> Option<i64> {
    s.parse().ok()
}

/// The requirement semantics as the Kubernetes docs state them.
fn reference_matches(r: &Req, labels: &BTreeMap<String, String>) -> bool {
    let have = labels.get(&r.key);
    let listed = |v: &String| r.values.iter().any(|x| x == v);
    match r.op {
        Op::Eq | Op::DoubleEq | Op::In => have.is_some_and(listed),
        Op::NotEq | Op::NotIn => !have.is_some_and(listed),
        Op::Exists => have.is_some(),
        Op::NotExists => have.is_none(),
        Op::Gt | Op::Lt => {
            let (Some(h), Some(w)) = (have.and_then(|h| int(h)), int(&r.values[0])) else {
                return false;
            };
            if r.op == Op::Gt {
                h > w
            } else {
                h < w
            }
        }
    }
}

fn labels() -> impl Strategy<Value = BTreeMap<String, String>> {
    let k = prop::sample::select(vec!["app", "env", "tier", "zone", "in", "a", "x"]);
    let v = prop::sample::select(vec![
        "", "prod", "qa", "dev", "in", "1", "5", "10", "007", "-3", "+6", "x1",
    ]);
    prop::collection::btree_map(k.prop_map(str::to_string), v.prop_map(str::to_string), 0..6)
}

/// Requirements over a small key pool, so generated labels often touch them.
fn pooled_req() -> impl Strategy<Value = Req> {
    req().prop_flat_map(|r| {
        prop::sample::select(vec!["app", "env", "tier", "zone", "in", "a", "x"]).prop_map(
            move |k| Req {
                key: k.to_string(),
                ..r.clone()
            },
        )
    })
}

/// Text built from the selector grammar's own alphabet, so errors come from deep inside.
fn selectorish() -> impl Strategy<Value = String> {
    let token = prop::sample::select(vec![
        "a", "b.c/d", "in", "notin", "(", ")", ",", "!", "=", "==", "!=", ">", "<", " ", "\t",
        "\0", "-", "_", ".", "/", "é", "環", "5", "\\", "\\,", "\\=", "x=y",
    ]);
    prop::collection::vec(token, 0..24).prop_map(|t| t.concat())
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 256,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn normalized_string_is_a_fixed_point(
        reqs in prop::collection::vec(req(), 0..16),
        pads in prop::collection::vec(ws(), 1..8),
    ) {
        let text = render(&reqs, &pads);
        let first = parse_labels(&text);
        prop_assert!(first.is_ok(), "{text:?}: {:?}", first.err());
        let first = first.unwrap_or_default();
        prop_assert_eq!(first.requirements().len(), reqs.len());
        let s1 = first.to_string();
        let second = parse_labels(&s1);
        prop_assert!(second.is_ok(), "{s1:?}: {:?}", second.err());
        let second = second.unwrap_or_default();
        prop_assert_eq!(&second, &first, "{:?} → {:?}", text, s1);
        prop_assert_eq!(second.to_string(), s1);
    }

    #[test]
    fn matching_agrees_with_the_reference(
        reqs in prop::collection::vec(pooled_req(), 0..8),
        labels in labels(),
        pads in prop::collection::vec(ws(), 1..4),
    ) {
        let text = render(&reqs, &pads);
        let sel = parse_labels(&text);
        prop_assert!(sel.is_ok(), "{text:?}: {:?}", sel.err());
        let sel = sel.unwrap_or_default();
        let want = reqs.iter().all(|r| reference_matches(r, &labels));
        prop_assert_eq!(sel.matches(&labels), want, "{} on {:?}", text, labels);
        // Each parsed requirement agrees with the reference on its own, too.
        for r in &reqs {
            let one = parse_labels(&render(std::slice::from_ref(r), &[""]));
            prop_assert!(one.is_ok());
            let one = one.unwrap_or_default();
            prop_assert_eq!(one.matches(&labels), reference_matches(r, &labels), "{:?}", r);
        }
    }

    #[test]
    fn operators_read_as_written(r in req()) {
        let sel = parse_labels(&render(std::slice::from_ref(&r), &[" "]));
        prop_assert!(sel.is_ok());
        let sel = sel.unwrap_or_default();
        let got = &sel.requirements()[0];
        let want = match r.op {
            Op::Eq => Operator::Equals,
            Op::DoubleEq => Operator::DoubleEquals,
            Op::NotEq => Operator::NotEquals,
            Op::In => Operator::In,
            Op::NotIn => Operator::NotIn,
            Op::Exists => Operator::Exists,
            Op::NotExists => Operator::DoesNotExist,
            Op::Gt => Operator::GreaterThan,
            Op::Lt => Operator::LessThan,
        };
        prop_assert_eq!(got.operator, want);
        prop_assert_eq!(&got.key, &r.key);
        let mut values = r.values.clone();
        values.sort();
        values.dedup();
        prop_assert_eq!(&got.values, &values);
    }

    #[test]
    fn label_parser_never_panics_on_text(s in "\\PC{0,64}") {
        check_label_parse(&s);
    }

    #[test]
    fn label_parser_never_panics_on_grammar_soup(s in selectorish()) {
        check_label_parse(&s);
        check_field_parse(&s);
    }

    #[test]
    fn parsers_never_panic_on_bytes(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
        let s = String::from_utf8_lossy(&bytes);
        check_label_parse(&s);
        check_field_parse(&s);
    }

    #[test]
    fn field_parser_never_panics_on_text(s in "\\PC{0,64}") {
        check_field_parse(&s);
    }

    #[test]
    fn field_values_survive_escaping(
        field in "[a-z]{1,8}(\\.[a-z]{1,8}){0,2}",
        value in "\\PC{0,24}|[\\\\,=!a]{0,12}",
        op in prop::sample::select(vec!["=", "==", "!="]),
    ) {
        let text = format!("{field}{op}{}", escape_value(&value));
        let sel = parse_fields(&text);
        prop_assert!(sel.is_ok(), "{text:?}: {:?}", sel.err());
        let sel = sel.unwrap_or_default();
        if value.is_empty() && field.is_empty() {
            prop_assert!(sel.is_empty());
        } else {
            let r = &sel.requirements()[0];
            prop_assert_eq!(&r.field, &field);
            prop_assert_eq!(&r.value, &value);
            let want = if op == "!=" { FieldOperator::NotEquals } else { FieldOperator::Equals };
            prop_assert_eq!(r.operator, want);
            let again = parse_fields(&sel.to_string());
            prop_assert_eq!(again.ok(), Some(sel.clone()));
        }
    }

    #[test]
    fn field_strings_settle_after_one_round(
        terms in prop::collection::vec(
            ("[a-c]{1,3}", prop::sample::select(vec!["=", "==", "!="]), "[a-c,=\\\\]{0,4}"),
            0..6,
        ),
    ) {
        let text = terms
            .iter()
            .map(|(f, op, v)| format!("{f}{op}{}", escape_value(v)))
            .collect::<Vec<_>>()
            .join(",");
        let first = parse_fields(&text);
        prop_assert!(first.is_ok(), "{text:?}: {:?}", first.err());
        let s1 = first.unwrap_or_default().to_string();
        // `==` prints as `=`, which may sort differently: upstream settles after one round.
        let s2 = parse_fields(&s1).map(|s| s.to_string());
        prop_assert!(s2.is_ok());
        let s2 = s2.unwrap_or_default();
        let s3 = parse_fields(&s2).map(|s| s.to_string());
        prop_assert_eq!(s3.ok(), Some(s2));
    }

    #[test]
    fn protocol_never_panics(
        op in prop::sample::select(vec![
            "parse", "match", "field_parse", "field_match", "requirement",
            "labelselector", "nodeselector", "validate", "bogus",
        ]),
        s in selectorish(),
        junk in "\\PC{0,16}",
    ) {
        let line = serde_json::json!({
            "op": op, "selector": s, "key": s, "operator": junk, "values": [s, junk],
            "labels": {"a": junk}, "fields": {s.clone(): junk},
            "matchLabels": {s.clone(): junk},
            "matchExpressions": [{"key": s, "operator": junk, "values": [junk]}],
            "terms": [{"matchExpressions": [{"key": s, "operator": junk}]}],
            "nodeName": junk, "kind": junk, "value": s,
        })
        .to_string();
        let v = respond_line(&line);
        prop_assert!(v.is_object());
        let mut half = line.len() / 2;
        while !line.is_char_boundary(half) {
            half -= 1;
        }
        let cut = respond_line(&line[..half]);
        prop_assert_eq!(&cut["ok"], &serde_json::json!(false));
    }
}

/// The parser returns, and an error's offset is a character boundary inside the input
/// (the CLI puts a caret there).
fn check_label_parse(s: &str) {
    if let Err(e) = parse_labels(s) {
        assert!(e.offset <= s.len(), "{s:?}: offset {}", e.offset);
        assert!(s.is_char_boundary(e.offset), "{s:?}: offset {}", e.offset);
        assert!(!e.message.is_empty());
    }
}

fn check_field_parse(s: &str) {
    if let Err(e) = parse_fields(s) {
        assert!(e.offset <= s.len(), "{s:?}: offset {}", e.offset);
        assert!(s.is_char_boundary(e.offset), "{s:?}: offset {}", e.offset);
    }
}
