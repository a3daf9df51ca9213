//! Every shared conformance vector (recorded from the real Kubernetes Go code) through
//! `selector::protocol::respond_line`: the response must equal `expected` exactly.

use kubesift::selector::protocol::respond_line;
use serde_json::Value;

const CASES: &str = include_str!("fixtures/selector/selector-cases.jsonl");
/// Requirement orders recorded from Go's `sort.Sort` (see fixtures/selector/README.md).
const GO_SORT_CASES: &str = include_str!("fixtures/selector/gosort-cases.jsonl");

struct Case {
    id: String,
    input: Value,
    expected: Value,
}

fn cases() -> Vec<Case> {
    cases_of(CASES)
}

fn cases_of(text: &str) -> Vec<Case> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(n, l)| {
            let v: Value =
                serde_json::from_str(l).unwrap_or_else(|e| panic!("fixture line {}: {e}", n + 1));
            Case {
                id: v["id"].as_str().unwrap_or("?").to_string(),
                input: v["input"].clone(),
                expected: v["expected"].clone(),
            }
        })
        .collect()
}

#[test]
fn every_shared_vector_matches_upstream() {
    let cases = cases();
    assert!(cases.len() > 1000, "fixture truncated: {}", cases.len());
    assert_all_agree(&cases);
}

#[test]
fn equal_keys_are_ordered_like_go_sort_sort() {
    let cases = cases_of(GO_SORT_CASES);
    assert_eq!(cases.len(), 240);
    assert_all_agree(&cases);
}

fn assert_all_agree(cases: &[Case]) {
    let mut failures = Vec::new();
    for c in cases {
        let got = respond_line(&c.input.to_string());
        if got != c.expected {
            failures.push(format!(
                "{}\n  input:    {}\n  expected: {}\n  got:      {}",
                c.id, c.input, c.expected, got
            ));
        }
    }
    for f in &failures {
        eprintln!("{f}");
    }
    assert!(
        failures.is_empty(),
        "{} of {} vectors disagree with upstream",
        failures.len(),
        cases.len()
    );
}

#[test]
fn every_op_is_covered() {
    let cases = cases();
    for op in [
        "parse",
        "match",
        "field_parse",
        "field_match",
        "requirement",
        "labelselector",
        "nodeselector",
        "validate",
    ] {
        assert!(
            cases.iter().any(|c| c.input["op"] == op),
            "no vector for op {op}"
        );
    }
}
