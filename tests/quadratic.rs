//! Inputs whose relationships are quadratic in their size: 5,000 Services × 5,000 Pods that
//! all share one selector are 25M selector edges. Through the real binary, peak memory must
//! stay linear in the input (20 × input bytes + 100 MB, the bar of the hostile-repo suite).

use std::path::Path;

mod graph_inputs;
mod rss_support;
use rss_support::{bound, run};

/// `n` Services and `n` Pods in namespace `a`, every Service selecting every Pod
/// (`app: web`), in two files. Returns the folder and its size in bytes.
fn fan_out(n: usize) -> (tempfile::TempDir, u64) {
    let dir = tempfile::tempdir().unwrap();
    let mut services = String::new();
    let mut pods = String::new();
    for i in 0..n {
        services += &format!(
            "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: s{i}\n  namespace: a\nspec:\n  selector:\n    app: web\n"
        );
        pods += &format!(
            "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p{i}\n  namespace: a\n  labels:\n    app: web\n"
        );
    }
    std::fs::write(dir.path().join("services.yaml"), &services).unwrap();
    std::fs::write(dir.path().join("pods.yaml"), &pods).unwrap();
    let bytes = (services.len() + pods.len()) as u64;
    (dir, bytes)
}

fn path(dir: &Path) -> &str {
    dir.to_str().unwrap()
}

#[test]
fn five_thousand_services_selecting_five_thousand_pods_stay_linear_in_memory() {
    let (dir, bytes) = fan_out(5_000);
    let dir = path(dir.path());
    let limit = bound(bytes);
    let cases: [&[&str]; 5] = [
        &["check", "-f", dir],
        &["check", "-o", "json", "-f", dir],
        &["tree", "-f", dir],
        &["tree", "--owners", "-f", dir],
        &["get", "all", "-f", dir],
    ];
    for args in cases {
        let r = run(args);
        // `check` prints its (empty) findings on stdout and the summary on stderr.
        assert!(
            r.code == 0 && (args[0] == "check" || r.stdout_bytes > 0),
            "{args:?}: exit {} with {} bytes of output",
            r.code,
            r.stdout_bytes
        );
        assert!(
            r.max_rss <= limit,
            "{args:?}: peak RSS {} MB over the bound {} MB for {bytes} bytes of input",
            r.max_rss >> 20,
            limit >> 20
        );
    }
}

/// Runs each case and checks it printed something and stayed within the bar for `bytes`.
fn within_bar(cases: &[&[&str]], bytes: u64) {
    let limit = bound(bytes);
    for args in cases {
        let r = run(args);
        assert!(
            r.code == 0 && r.stdout_bytes > 0,
            "{args:?}: exit {} with {} bytes of output",
            r.code,
            r.stdout_bytes
        );
        assert!(
            r.max_rss <= limit,
            "{args:?}: peak RSS {} MB over the bound {} MB for {bytes} bytes of input",
            r.max_rss >> 20,
            limit >> 20
        );
    }
}

/// With selector edges the fan is a tree of 2,000,000 rows (the node cap): printing it must
/// cost what the graph costs, not a row's worth of memory per row.
#[test]
fn a_tree_of_two_million_rows_is_printed_as_it_is_walked() {
    let (dir, bytes) = fan_out(5_000);
    let dir = path(dir.path());
    within_bar(
        &[
            &["tree", "--selectors", "-f", dir],
            &["tree", "--reverse", "--selectors", "-f", dir],
        ],
        bytes,
    );
}

/// The same tree as JSON (`-o wide` walks as the text does, only slower).
#[test]
fn a_tree_of_two_million_rows_as_json_is_printed_as_it_is_walked() {
    let (dir, bytes) = fan_out(5_000);
    let dir = path(dir.path());
    within_bar(&[&["tree", "--selectors", "-o", "json", "-f", dir]], bytes);
}

/// One file: ConfigMaps `c0 ← c1 ← … ← c{n-1}`, each owned by the previous. Returns the
/// folder and its size in bytes.
fn chain(n: usize) -> (tempfile::TempDir, u64) {
    let dir = graph_inputs::owner_chain(n);
    let bytes = std::fs::metadata(dir.path().join("chain.yaml"))
        .unwrap()
        .len();
    (dir, bytes)
}

/// A 100,000-deep owner chain: the walk's open path is 100,000 nodes long, in every
/// direction and output.
#[test]
fn a_hundred_thousand_deep_owner_chain_stays_within_the_bar() {
    let (dir, bytes) = chain(100_000);
    let dir = path(dir.path());
    within_bar(
        &[
            &["tree", "-f", dir],
            &["tree", "--all", "-f", dir],
            &["tree", "--reverse", "-f", dir],
            &["tree", "--refs", "--all", "-o", "wide", "-f", dir],
            &["tree", "-o", "json", "-f", dir],
        ],
        bytes,
    );
}
