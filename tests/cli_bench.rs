//! The corpus generator (examples/gen_corpus.rs) and `kubesift bench` on a small generated
//! corpus: shapes and sane values, no timing thresholds.

#[path = "../examples/gen_corpus.rs"]
mod gen_corpus;

use std::collections::HashMap;

use kubesift::model::load::{load_paths, LoadOptions};

#[test]
fn generated_corpus_loads_with_exact_counts() {
    let dir = tempfile::tempdir().expect("tempdir");
    let summary = gen_corpus::write_corpus(dir.path(), 500, 7, false).expect("generate");
    assert_eq!(summary.objects, 500);
    assert_eq!(summary.files, 10);

    let inv = load_paths(&[dir.path().to_path_buf()], &LoadOptions::default());
    assert_eq!(inv.error_count(), 0, "{:?}", inv.problems);
    assert_eq!(inv.objects.len(), 500);
    assert_eq!(inv.files, 10);
    assert_eq!(inv.bytes, summary.bytes);

    let mut kinds: HashMap<&str, usize> = HashMap::new();
    for o in &inv.objects {
        *kinds.entry(o.kind()).or_default() += 1;
    }
    for k in ["Deployment", "ReplicaSet", "Pod", "Service", "ConfigMap"] {
        assert!(kinds.get(k).copied().unwrap_or(0) > 0, "no {k}: {kinds:?}");
    }
    // Every Pod's owner is a ReplicaSet whose uid is in the corpus (unless its file was cut).
    let uids: std::collections::HashSet<&str> =
        inv.objects.iter().filter_map(|o| o.uid()).collect();
    let pods: Vec<_> = inv.objects.iter().filter(|o| o.kind() == "Pod").collect();
    let linked = pods
        .iter()
        .filter(|p| p.owner_refs().iter().any(|r| uids.contains(r.uid)))
        .count();
    assert_eq!(linked, pods.len());
    let matches = inv
        .objects
        .iter()
        .filter(|o| {
            let part_of = o.labels().get("app.kubernetes.io/part-of");
            matches!(part_of, Some("shop" | "data")) && o.labels().get("tier") != Some("cache")
        })
        .count();
    assert_eq!(matches, summary.default_selector_matches);
    assert!(matches > 0 && matches < 500);
    assert_eq!(
        inv.objects.iter().filter(|o| o.is_terminating()).count(),
        summary.terminating
    );
    let formats: std::collections::HashSet<_> = gen_corpus::corpus(500, 7)
        .0
        .iter()
        .map(|f| f.format)
        .collect();
    assert!(formats.len() >= 2, "{formats:?}");
}

#[test]
fn generator_is_deterministic_and_refuses_non_empty_dirs() {
    let (a, sa) = gen_corpus::corpus(300, 1);
    let (b, sb) = gen_corpus::corpus(300, 1);
    let (c, _) = gen_corpus::corpus(300, 2);
    assert_eq!(sa, sb);
    assert!(a
        .iter()
        .zip(&b)
        .all(|(x, y)| x.text == y.text && x.path == y.path));
    assert!(a.iter().zip(&c).any(|(x, y)| x.text != y.text));

    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("keep.txt"), "mine").expect("write");
    let err = gen_corpus::write_corpus(dir.path(), 10, 1, false).expect_err("non-empty");
    assert!(err.contains("not empty"), "{err}");
    assert_eq!(
        std::fs::read_dir(dir.path()).expect("read_dir").count(),
        1,
        "nothing written"
    );
    gen_corpus::write_corpus(dir.path(), 10, 1, true).expect("--force");
}

fn kubesift(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_kubesift"))
        .args(args)
        .output()
        .expect("run kubesift")
}

fn listing(dir: &std::path::Path) -> Vec<(std::path::PathBuf, u64, std::time::SystemTime)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("read_dir") {
            let e = e.expect("entry");
            let meta = e.metadata().expect("metadata");
            if meta.is_dir() {
                stack.push(e.path());
            } else {
                out.push((e.path(), meta.len(), meta.modified().expect("mtime")));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn bench_json_reports_phases_keystrokes_and_an_in_memory_edit() {
    let dir = tempfile::tempdir().expect("tempdir");
    let summary = gen_corpus::write_corpus(dir.path(), 500, 11, false).expect("generate");
    let before = listing(dir.path());
    let root = dir.path().to_str().expect("utf-8 temp path");
    let out = kubesift(&["bench", "-f", root, "-o", "json", "--rounds", "2"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");

    assert_eq!(v["paths"], serde_json::json!([root]));
    assert_eq!(v["corpus"]["objects"], 500);
    assert_eq!(v["corpus"]["files"], 10);
    assert_eq!(v["corpus"]["bytes"], summary.bytes);
    assert_eq!(v["corpus"]["problems"], 0);

    // Every generated YAML document goes the fast path.
    let yaml = &v["yaml"];
    let count = |k: &str| {
        yaml[k]
            .as_u64()
            .unwrap_or_else(|| panic!("yaml.{k}: {yaml}"))
    };
    assert!(count("documents") > 0, "{yaml}");
    assert_eq!(
        count("fast") + count("fallback"),
        count("documents"),
        "{yaml}"
    );
    assert_eq!(count("fallback"), 0, "{yaml}");
    assert_eq!(yaml["fallback_reasons"], serde_json::json!({}), "{yaml}");

    let load = &v["load_ms"];
    let phase = |k: &str| {
        load[k]
            .as_f64()
            .unwrap_or_else(|| panic!("load_ms.{k}: {load}"))
    };
    // The loader's steps until the table is handed over; the UI's update and frame follow,
    // then the graph (built while the table is on screen).
    // The walk overlaps reading: read + parse run from the start to the last file parsed.
    let phases = ["read", "parse", "inventory"];
    for k in phases.iter().chain(&[
        "walk",
        "index",
        "graph",
        "table",
        "table_frame",
        "first_file",
        "loading_frame",
        "first_rows",
        "to_linked",
    ]) {
        assert!(phase(k) >= 0.0, "{k}");
    }
    let sum: f64 = phases.iter().map(|k| phase(k)).sum();
    assert!((phase("total") - sum).abs() < 0.01 * sum.max(1.0), "{load}");
    assert!(
        phase("to_table") >= phase("total") + phase("table") + phase("table_frame") - 0.01,
        "{load}"
    );
    assert!(
        phase("to_linked") >= phase("to_table")
            && phase("to_linked") >= phase("total") + phase("graph") - 0.01,
        "{load}"
    );
    assert!(
        0.0 < phase("first_rows") && phase("first_rows") <= phase("to_table"),
        "{load}"
    );
    assert!(phase("parse") > 0.0 && phase("table") > 0.0 && phase("graph") > 0.0);
    // The index is built beside the live set; the table does not wait for it, the graph
    // does (its frame comes after the index's, or is the same).
    assert!(phase("index") > 0.0, "{load}");
    assert!(
        phase("to_table") <= phase("to_indexed") && phase("to_indexed") <= phase("to_linked"),
        "{load}"
    );
    assert!(phase("cpu_to_table") > 0.0, "{load}");
    assert!(phase("first_file") <= phase("read") + phase("parse") + 1.0);
    assert!(phase("walk") <= phase("read") + phase("parse") + 1.0);

    let rss = &v["rss"];
    if cfg!(target_os = "linux") {
        let peak = rss["peak_bytes"].as_u64().expect("peak");
        assert!(
            peak > summary.bytes,
            "the corpus is in memory at the peak: {rss}"
        );
        assert!(peak >= rss["current_bytes"].as_u64().expect("current"));
    }

    let keys = &v["keystrokes"];
    let text = gen_corpus_default_text();
    assert_eq!(keys["text"], text);
    assert_eq!(keys["samples"], 2 * text.chars().count());
    assert_eq!(keys["matched"], summary.default_selector_matches);
    assert_eq!(keys["total"], 500);
    assert!(keys["error"].is_null());
    let k = |name: &str| keys[name].as_f64().expect("keystroke stat");
    assert!(0.0 < k("min_ms") && k("min_ms") <= k("p50_ms"));
    assert!(k("p50_ms") <= k("p99_ms") && k("p99_ms") <= k("max_ms"));

    let delta = &v["delta"];
    assert!(delta["skipped"].is_null(), "{delta}");
    assert_eq!(delta["deltas"], 1, "{delta}");
    assert_eq!(delta["modified"], 1, "{delta}");
    assert_eq!(delta["file_objects"], 50);
    assert!(delta["file"].as_str().expect("file").starts_with(root));
    for step in ["parse_ms", "apply_ms", "index_ms", "graph_ms", "frame_ms"] {
        assert!(delta[step].as_f64().expect(step) > 0.0, "{step}");
    }
    // The UI's own parts of the update are reported inside it.
    for step in ["problems_ms", "table_ms"] {
        let ms = delta[step].as_f64().expect(step);
        assert!(
            0.0 <= ms && ms <= delta["frame_ms"].as_f64().expect("frame"),
            "{step}"
        );
    }

    assert_eq!(listing(dir.path()), before, "bench wrote into the corpus");
}

fn gen_corpus_default_text() -> &'static str {
    "app.kubernetes.io/part-of in (shop,data),tier!=cache"
}

#[test]
fn bench_table_output_and_a_selector_that_does_not_parse() {
    let dir = tempfile::tempdir().expect("tempdir");
    gen_corpus::write_corpus(dir.path(), 120, 3, false).expect("generate");
    let root = dir.path().to_str().expect("utf-8 temp path");
    let out = kubesift(&[
        "bench",
        "-f",
        root,
        "--rounds",
        "1",
        "--type",
        "tier=cache,a b",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("utf-8");
    for row in [
        "walk",
        "parse",
        "graph",
        "load to full table",
        "peak RSS",
        "p99",
        "one-file edit",
        "of which graph patch",
        "of which problem rows",
        "of which table rows",
    ] {
        assert!(text.contains(row), "no {row:?} in\n{text}");
    }
    assert!(text.contains("120 objects"), "{text}");
    assert!(
        text.contains("(error: "),
        "the bar error is reported:\n{text}"
    );

    let empty = tempfile::tempdir().expect("tempdir");
    let out = kubesift(&["bench", "-f", empty.path().to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no objects found"));
}

/// `--edit PATH` edits that file; an edit inside a Terminating Namespace is patched, not
/// rebuilt (the Namespace's finding lists what is inside).
#[test]
fn bench_edits_the_chosen_file_and_patches_a_terminating_namespace() {
    let dir = tempfile::tempdir().expect("tempdir");
    gen_corpus::write_corpus(dir.path(), 500, 11, false).expect("generate");
    // The first file of the first namespace directory, and that namespace made Terminating.
    let mut namespaces: Vec<_> = std::fs::read_dir(dir.path())
        .expect("read dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.is_dir())
        .collect();
    namespaces.sort();
    let ns_dir = namespaces.first().expect("a namespace directory");
    let ns = ns_dir.file_name().and_then(|n| n.to_str()).expect("name");
    let mut files: Vec<_> = std::fs::read_dir(ns_dir)
        .expect("read ns dir")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    let file = files
        .first()
        .expect("a file")
        .to_str()
        .expect("utf-8")
        .to_owned();
    std::fs::write(
        dir.path().join("zz-namespace.yaml"),
        format!("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {ns}\nstatus:\n  phase: Terminating\n"),
    )
    .expect("write");
    let root = dir.path().to_str().expect("utf-8 temp path");
    let delta = &bench_delta(root, &["--edit", &file]);
    assert!(delta["skipped"].is_null(), "{delta}");
    assert_eq!(delta["file"], file.as_str(), "{delta}");
    let outcome = delta["graph_outcome"].as_str().expect("outcome");
    assert!(outcome.starts_with("patched: recomputed "), "{outcome}");

    let out = kubesift(&[
        "bench",
        "-f",
        root,
        "-o",
        "json",
        "--rounds",
        "1",
        "--edit",
        "/nonexistent.yaml",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    assert_eq!(
        v["delta"]["skipped"],
        "/nonexistent.yaml: no loaded object comes from it"
    );
}

/// `--edit-shape`: a label edit modifies one object, an added object is one ADDED delta
/// per round on top of the file's objects, a removed one one DELETED delta per round, an
/// emptied file one DELETED delta per object it held, a restored one one ADDED delta per
/// object; every shape is patched.
#[test]
fn bench_edit_shapes_change_a_label_or_add_objects() {
    let dir = tempfile::tempdir().expect("tempdir");
    gen_corpus::write_corpus(dir.path(), 500, 11, false).expect("generate");
    let root = dir.path().to_str().expect("utf-8 temp path");
    let run = |shape: &str| bench_delta(root, &["--edit-shape", shape]);
    let annotation = run("annotation");
    let label = run("label");
    let add = run("add");
    let remove = run("remove");
    let empty = run("empty");
    let restore = run("restore");
    for (d, shape) in [
        (&annotation, "annotation"),
        (&label, "label"),
        (&add, "add"),
        (&remove, "remove"),
        (&empty, "empty"),
        (&restore, "restore"),
    ] {
        assert_patched(d);
        assert_eq!(d["shape"], shape, "{d}");
    }
    assert_eq!(
        (label["deltas"].as_u64(), label["modified"].as_u64()),
        (Some(1), Some(1)),
        "{label}"
    );
    // The last of 5 rounds: 5 copies added on top of the file's objects, one more than the
    // round before.
    assert_eq!(
        (add["deltas"].as_u64(), add["modified"].as_u64()),
        (Some(1), Some(0)),
        "{add}"
    );
    assert_eq!(
        add["file_objects"].as_u64(),
        annotation["file_objects"].as_u64().map(|n| n + 5),
        "{add}"
    );
    // The last of 5 rounds: the file's last 5 objects gone, one more than the round before.
    let held = annotation["file_objects"].as_u64().expect("objects");
    assert_eq!(
        (remove["deltas"].as_u64(), remove["file_objects"].as_u64()),
        (Some(1), Some(held - 5)),
        "{remove}"
    );
    assert_eq!(
        (empty["deltas"].as_u64(), empty["file_objects"].as_u64()),
        (Some(held), Some(0)),
        "{empty}"
    );
    assert_eq!(
        (restore["deltas"].as_u64(), restore["file_objects"].as_u64()),
        (Some(held), Some(held)),
        "{restore}"
    );
}

/// `--edit-files N`: N files edited alike in one batch (one patch): one delta per file,
/// every shape patched, the files' objects counted together.
#[test]
fn bench_edits_several_files_as_one_batch() {
    let dir = tempfile::tempdir().expect("tempdir");
    gen_corpus::write_corpus(dir.path(), 500, 11, false).expect("generate");
    let root = dir.path().to_str().expect("utf-8 temp path");
    let run = |shape: &str, files: &str| {
        bench_delta(root, &["--edit-shape", shape, "--edit-files", files])
    };
    let one = run("annotation", "1");
    let three = run("annotation", "3");
    let added = run("add", "3");
    let removed = run("remove", "3");
    for d in [&one, &three, &added, &removed] {
        assert_patched(d);
    }
    assert_eq!(one["files"], 1, "{one}");
    assert_eq!(three["files"], 3, "{three}");
    assert_eq!(
        three["file"], one["file"],
        "the first file is the same: {three}"
    );
    assert_eq!(
        (three["deltas"].as_u64(), three["modified"].as_u64()),
        (Some(3), Some(3)),
        "{three}"
    );
    // Each round adds (takes out) one object per file: 5 rounds, 3 files.
    let held = three["file_objects"].as_u64().expect("objects");
    assert_eq!(
        (added["deltas"].as_u64(), added["file_objects"].as_u64()),
        (Some(3), Some(held + 15)),
        "{added}"
    );
    assert_eq!(
        (removed["deltas"].as_u64(), removed["file_objects"].as_u64()),
        (Some(3), Some(held - 15)),
        "{removed}"
    );
}

/// A measured edit (not skipped) whose graph was patched, not rebuilt.
fn assert_patched(d: &serde_json::Value) {
    assert!(d["skipped"].is_null(), "{d}");
    let outcome = d["graph_outcome"].as_str().expect("outcome");
    assert!(outcome.starts_with("patched: recomputed "), "{outcome}");
}

/// The `delta` part of `bench -f ROOT -o json --rounds 1 EXTRA…`, which must succeed.
fn bench_delta(root: &str, extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["bench", "-f", root, "-o", "json", "--rounds", "1"];
    args.extend_from_slice(extra);
    let out = kubesift(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    v["delta"].clone()
}
