//! `get`, `tree` and the UI print one status per object: the kind table's. `get`'s cell is
//! read from the table as printed (STATUS, or READY — with DESIRED for a ReplicaSet or
//! DaemonSet, whose READY is a count), `tree`'s from its STATUS, the UI's from its STATUS
//! column, which may add how long the object has been Terminating and its finalizers.

use std::path::PathBuf;

use chrono::{DateTime, Utc};
use kubesift::app::columns::Column;
use kubesift::cli::get::{render, Format, RenderOptions};
use kubesift::model::load::{load_paths, LoadOptions};
use kubesift::model::Object;

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/status");

fn now() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-06-01T00:00:00Z")
        .expect("valid")
        .with_timezone(&Utc)
}

/// Start of each column of a kubectl table line: where a cell follows the padding.
fn column_starts(header: &str) -> Vec<usize> {
    let b = header.as_bytes();
    (0..b.len())
        .filter(|&i| b[i] != b' ' && (i == 0 || (i >= 2 && b[i - 1] == b' ' && b[i - 2] == b' ')))
        .collect()
}

/// `get`'s status cell of one object, as printed; `None` for kinds that print none.
fn get_status(o: &Object) -> Option<String> {
    let opts = RenderOptions {
        format: Format::Table { wide: false },
        with_namespace: true,
        label_columns: Vec::new(),
        show_labels: false,
        no_headers: false,
        single_item: false,
        kind_prefix: false,
        now: now(),
        kinds: Default::default(),
    };
    let text = render(&[o], &opts);
    let mut lines = text.lines();
    let (header, row) = (lines.next()?, lines.next()?);
    let starts = column_starts(header);
    let cell = |name: &str| {
        let k = starts
            .iter()
            .position(|&s| header[s..].split("  ").next() == Some(name))?;
        let end = starts.get(k + 1).map_or(row.len(), |&e| e.min(row.len()));
        Some(row.get(starts[k]..end).unwrap_or("").trim().to_owned())
    };
    match (cell("STATUS"), cell("DESIRED"), cell("READY")) {
        (Some(s), _, _) => Some(s),
        (None, Some(d), Some(r)) => Some(format!("{r}/{d}")),
        (None, None, Some(r)) => Some(r),
        _ => None,
    }
}

#[test]
fn get_tree_and_ui_agree_on_every_status() {
    let inv = load_paths(&[PathBuf::from(FIXTURE)], &LoadOptions::default());
    assert!(inv.problems.is_empty(), "{:?}", inv.problems);
    let expected = [
        ("deploy-no-status", Some("0/1"), "0/1"),
        ("deploy-with-status", Some("2/3"), "2/3"),
        ("deploy-status-no-ready", Some("0/2"), "0/2"),
        (
            "deploy-terminating",
            Some("0/1"),
            "0/1 · Terminating 24h · 1 finalizer",
        ),
        ("sts", Some("1/2"), "1/2"),
        ("ds-no-status", Some("0/0"), "0/0"),
        ("ds", Some("2/3"), "2/3"),
        ("rs", Some("2/2"), "2/2"),
        ("rc", Some("0/1"), "0/1"),
        ("pod-no-status", Some(""), ""),
        ("pod-pending", Some("Pending"), "Pending"),
        ("pod-running", Some("Running"), "Running"),
        (
            "pod-crashloop",
            Some("CrashLoopBackOff"),
            "CrashLoopBackOff",
        ),
        ("pod-succeeded", Some("Succeeded"), "Succeeded"),
        ("pod-failed", Some("Evicted"), "Evicted"),
        ("pod-terminating", Some("Terminating"), "Terminating 24h"),
        ("job-running", Some("Running"), "Running"),
        ("job-complete", Some("Complete"), "Complete"),
        ("active", Some("Active"), "Active"),
        ("going", Some("Terminating"), "Terminating 5d"),
        ("pvc-new", Some("Pending"), "Pending"),
        ("pvc-bound", Some("Bound"), "Bound"),
        ("pv", Some("Available"), "Available"),
        (
            "node-cordoned",
            Some("Ready,SchedulingDisabled"),
            "Ready,SchedulingDisabled",
        ),
        ("widget", None, "NotReady"),
        ("cm", None, ""),
    ];
    assert_eq!(inv.objects.len(), expected.len());
    for (name, get, ui) in expected {
        let o = inv.objects.iter().find(|o| o.name() == name).expect(name);
        let tree = kubesift::cli::tree::status(o);
        let ui_cell = Column::Status.cell(o, now().timestamp());
        assert_eq!(get_status(o).as_deref(), get, "get {name}");
        assert_eq!(ui_cell, ui, "ui {name}");
        if let Some(get) = get {
            assert_eq!(tree, get, "tree {name}");
        }
        // The UI starts with the same text and only adds lifecycle after it.
        assert!(
            ui_cell.starts_with(&tree),
            "ui {ui_cell:?} vs tree {tree:?}"
        );
        if o.deletion_timestamp().is_none() && o.finalizers.is_empty() {
            assert_eq!(ui_cell, tree, "{name}");
        }
    }
}
