//! Golden `kubesift get` tables for every kind with a kubectl printer (and one without):
//! headers as cli's `printers.go` names them, laid out by kubectl's tabwriter (minwidth 6,
//! padding 3, last column unpadded). The layout was checked byte for byte against kubectl
//! 1.32 printing the same cells from a fake API server (Deployment with -o wide, -L and
//! --show-labels, Namespace, ConfigMap over 100 rows, several kinds with -A); see
//! `tests/kubectl_oracle/`. Regenerate with `KUBESIFT_BLESS=1 cargo test --test cli_get_tables`
//! and review the diff.

use std::process::Command;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/get_kinds");
const GOLDEN: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/get_kinds/golden.txt"
);

/// Every kind of the fixture, by the short or plural name kubectl users type.
const KINDS: &[&str] = &[
    "po", "deploy", "rs", "rc", "sts", "ds", "svc", "cm", "secret", "ns", "no", "job", "cj", "pv",
    "pvc", "sa", "pdb", "hpa", "netpol", "ing", "sc", "role",
];

fn get(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_kubesift"))
        .args(["get", "-f", DIR])
        .args(args)
        .output()
        .expect("run kubesift");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

fn transcript() -> String {
    let mut runs: Vec<Vec<&str>> = Vec::new();
    for k in KINDS {
        runs.push(vec![k]);
        runs.push(vec![k, "-o", "wide", "--show-labels"]);
    }
    runs.push(vec!["deploy,svc,cm", "-n", "shop", "-L", "app"]);
    runs.push(vec!["ns,deploy,no", "--no-headers"]);
    runs.push(vec!["all"]);
    let mut out = String::new();
    for args in runs {
        out.push_str(&format!("$ kubesift get {}\n", args.join(" ")));
        out.push_str(&get(&args));
        out.push('\n');
    }
    out
}

#[test]
fn every_kinds_table_matches_the_golden_file() {
    let got = transcript();
    if std::env::var_os("KUBESIFT_BLESS").is_some() {
        std::fs::write(GOLDEN, &got).expect("write golden");
    }
    let want = std::fs::read_to_string(GOLDEN).expect("golden file");
    assert_eq!(got, want, "tables changed; review and bless");
}

/// The rule itself, on every line of the golden file: each header starts where its cells
/// start, every column but the last is at least 6 wide and ends 3+ spaces after its widest
/// cell, and no line ends in a space unless its last cell is empty.
#[test]
fn golden_tables_follow_the_tabwriter_rule() {
    let got = transcript();
    for block in got.split("\n\n").filter(|b| !b.trim().is_empty()) {
        let lines: Vec<&str> = block.lines().filter(|l| !l.starts_with("$ ")).collect();
        let Some(header) = lines
            .first()
            .filter(|h| h.starts_with("NAME") || h.starts_with("NAMESPACE"))
        else {
            continue;
        };
        let starts: Vec<usize> = header
            .char_indices()
            .filter(|&(i, c)| {
                c != ' '
                    && (i == 0 || header.as_bytes()[i - 1] == b' ' && header[..i].ends_with("   "))
            })
            .map(|(i, _)| i)
            .collect();
        for w in starts.windows(2) {
            assert!(w[1] - w[0] >= 6, "column narrower than 6 in\n{block}");
        }
        for line in &lines[1..] {
            for &s in &starts[1..] {
                assert!(
                    line.len() <= s || line[..s].ends_with("   "),
                    "cell not 3 spaces before column at {s}:\n{line}\nin\n{block}"
                );
            }
        }
    }
}
