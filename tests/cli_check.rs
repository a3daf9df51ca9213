//! `kubesift check` on the graph fixtures, through the real binary.

use std::process::Command;

const FIX: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/graph");

fn check(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_kubesift"))
        .arg("check")
        .args(args)
        .output()
        .expect("run kubesift");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).expect("utf-8"),
    )
}

/// (file name, line, severity, object, message) of each `path:line:col: sev: obj: msg` line.
fn parse(text: &str) -> Vec<(String, usize, String, String, String)> {
    text.lines()
        .map(|l| {
            let mut parts = l.splitn(5, ": ");
            let loc = parts.next().unwrap();
            let (path, column) = loc.rsplit_once(':').unwrap();
            assert!(column.parse::<u32>().is_ok(), "column in {l}");
            let (path, line) = path.rsplit_once(':').unwrap();
            let file = path.rsplit('/').next().unwrap().to_owned();
            let sev = parts.next().unwrap().to_owned();
            let obj = parts.next().unwrap().to_owned();
            let msg = parts.collect::<Vec<_>>().join(": ");
            (file, line.parse().unwrap(), sev, obj, msg)
        })
        .collect()
}

fn has(
    rows: &[(String, usize, String, String, String)],
    file: &str,
    sev: &str,
    obj: &str,
    msg: &str,
) -> bool {
    rows.iter()
        .any(|r| r.0 == file && r.2 == sev && r.3 == obj && r.4 == msg)
}

#[test]
fn owner_violations_are_reported_with_upstream_wording() {
    let (code, out) = check(&["-f", &format!("{FIX}/owners")]);
    assert_eq!(code, 1, "{out}");
    let mut rows = parse(&out);
    // The ConfigMaps standing in for owners are used by nothing: notes of their own.
    let unused = rows.iter().filter(|r| r.4.starts_with("Used? ")).count();
    assert_eq!(unused, 4, "{out}");
    rows.retain(|r| !r.4.starts_with("Used? "));
    assert_eq!(rows.len(), 7, "{out}");
    assert!(
        has(
            &rows,
            "app.yaml",
            "error",
            "Pod/shop/web-7d-b",
            r#"metadata.ownerReferences.uid: Invalid value: "": must not be empty"#
        ),
        "{out}"
    );
    assert!(
        has(
            &rows,
            "broken.yaml",
            "warning",
            "Pod/shop/orphaned",
            r#"owner ReplicaSet/gone-5f (apps/v1) not found in the input in namespace "shop""#
        ),
        "{out}"
    );
    assert!(
        has(
            &rows,
            "broken.yaml",
            "error",
            "ConfigMap/other/copied",
            r#"OwnerRefInvalidNamespace: ownerRef [apps/v1/Deployment, namespace: other, name: web, uid: d-1] does not exist in namespace "other" (the owner is in namespace "shop")"#
        ),
        "{out}"
    );
    assert!(has(&rows, "broken.yaml", "error", "ClusterRole.rbac.authorization.k8s.io/web-reader",
        "OwnerRefInvalidNamespace: cluster-scoped objects cannot refer to namespaced owners: ownerRef [apps/v1/Deployment, namespace: , name: web, uid: d-1]"), "{out}");
    assert!(
        has(
            &rows,
            "broken.yaml",
            "error",
            "Secret/shop/two-bosses",
            r#"metadata.ownerReferences: Invalid value: [Deployment/web, ReplicaSet/web-7d]: Only one reference can have Controller set to true. Found "true" in references for Deployment/web and ReplicaSet/web-7d"#
        ),
        "{out}"
    );
    for obj in ["ConfigMap/shop/chicken", "ConfigMap/shop/egg"] {
        assert!(has(&rows, "cycle.yaml", "error", obj,
            "ownerReference cycle among 2 object(s): ConfigMap/shop/chicken, ConfigMap/shop/egg"), "{out}");
    }
    // each finding sits on the line where its object's document starts
    let lines: Vec<(&str, usize)> = rows.iter().map(|r| (r.0.as_str(), r.1)).collect();
    assert_eq!(
        lines,
        vec![
            ("app.yaml", 45),
            ("broken.yaml", 1),
            ("broken.yaml", 12),
            ("broken.yaml", 23),
            ("broken.yaml", 33),
            ("cycle.yaml", 1),
            ("cycle.yaml", 10),
        ]
    );
    // sorted by path, then line
    let keys: Vec<(&str, usize)> = rows.iter().map(|r| (r.0.as_str(), r.1)).collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
}

#[test]
fn lifecycle_findings() {
    let (code, out) = check(&["-f", &format!("{FIX}/lifecycle")]);
    assert_eq!(code, 1, "{out}");
    let rows = parse(&out);
    let f = "all.yaml";
    assert!(has(&rows, f, "warning", "Pod/shop/stuck",
        "Terminating since 2024-05-01T10:00:00Z (deletionGracePeriodSeconds: 30); waiting on finalizers: example.com/cleanup"), "{out}");
    assert!(has(&rows, f, "warning", "Deployment.apps/shop/api",
        "in foreground deletion; blocked by 1 dependent(s) with blockOwnerDeletion: true: ReplicaSet.apps/shop/api-1"), "{out}");
    assert!(has(&rows, f, "warning", "Namespace/shop",
        "Namespace is Terminating; 4 object(s) still inside: Pod/shop/stuck, Deployment.apps/shop/api, ReplicaSet.apps/shop/api-1, ReplicaSet.apps/shop/api-0"), "{out}");
    assert!(
        has(
            &rows,
            f,
            "error",
            "ConfigMap/keep/both",
            r#"metadata.finalizers: Invalid value: []string{"orphan", "foregroundDeletion"}: finalizer orphan and foregroundDeletion cannot be both set"#
        ),
        "{out}"
    );
}

#[test]
fn json_output_and_clean_exit() {
    let (code, out) = check(&["-f", &format!("{FIX}/owners/cycle.yaml"), "-o", "json"]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    let items: Vec<&serde_json::Value> = v
        .as_array()
        .expect("array")
        .iter()
        .filter(|d| d["code"] != "ref-unused")
        .collect();
    assert_eq!(items.len(), 2);
    assert_eq!(items[0]["code"], "owner-cycle");
    assert_eq!(items[0]["severity"], "error");
    assert_eq!(items[0]["object"], "ConfigMap/shop/chicken");
    assert!(items[0]["path"].as_str().unwrap().ends_with("cycle.yaml"));
    assert!(items[0]["line"].as_u64().unwrap() >= 1);

    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("ok.yaml"),
        // Used by a Pod: a lone ConfigMap would be noted unused.
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fine\n  namespace: a\n---\n\
         apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  namespace: a\nspec:\n  \
         volumes:\n  - name: v\n    configMap:\n      name: fine\n",
    )
    .unwrap();
    let (code, out) = check(&["-f", dir.path().to_str().unwrap()]);
    assert_eq!((code, out.as_str()), (0, ""));
}

/// `check`, `check -o json` and the UI's problems view list the same diagnostics in one
/// order: by path in component order (`base/` before `base-prod/`, which a byte-wise sort
/// of the printed paths reverses), line, column, the most severe first, then code, object
/// and message — load problems and findings interleaved by that order alone.
#[test]
fn check_text_json_and_ui_rows_agree_on_one_order() {
    use kubesift::app::{Action, App, Keymap, Options};
    use kubesift::dataset::Dataset;
    use kubesift::model::load::{load_paths, LoadOptions};

    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/diagnostics");
    let (code, text) = check(&["-f", dir]);
    assert_eq!(code, 1, "{text}");
    let (_, json) = check(&["-f", dir, "-o", "json"]);
    let json: Vec<serde_json::Value> = serde_json::from_str(&json).expect("json");

    let inventory = load_paths(&[dir.into()], &LoadOptions::default());
    let mut app = App::new(Keymap::load(None).unwrap(), Options::default(), 0);
    app.update(Action::Loaded(Box::new(Dataset::new(inventory))));
    app.refresh_problems();
    let inv = &app.data.inventory;
    let rows: Vec<_> = app.all_problems().cloned().collect();
    let at = kubesift::model::ObjectsAt::new(inv, &rows);
    let object = |d: &kubesift::diagnostic::Diagnostic| at.name(d);
    let ui: Vec<serde_json::Value> = rows
        .iter()
        .map(|d| {
            serde_json::json!({
                "path": d.path.display().to_string(),
                "line": d.line,
                "severity": d.severity.to_string(),
                "code": d.code,
                "object": object(d),
                "message": &*d.message,
            })
        })
        .collect();
    // The problems view lists errors first, then warnings, then notes, each in check's order.
    let rank = |v: &serde_json::Value| match v["severity"].as_str() {
        Some("error") => 0,
        Some("warning") => 1,
        _ => 2,
    };
    let mut by_severity = json.clone();
    by_severity.sort_by_key(rank);
    assert_eq!(ui, by_severity);
    let mut check_lines: Vec<&str> = text.lines().collect();
    check_lines.sort_by_key(|l| {
        if l.contains(": error: ") {
            0
        } else if l.contains(": warning: ") {
            1
        } else {
            2
        }
    });
    let ui_text: Vec<String> = rows
        .iter()
        .map(|d| {
            let obj = object(d).unwrap_or_else(|| "-".into());
            let path = d.path.display();
            let (line, column) = (d.line, d.column);
            format!(
                "{path}:{line}:{column}: {}: {obj}: {}",
                d.severity, d.message
            )
        })
        .collect();
    assert_eq!(ui_text, check_lines);

    let order: Vec<(String, u64, &str, &str)> = json
        .iter()
        .map(|d| {
            let path = d["path"].as_str().unwrap();
            let short = path.strip_prefix(dir).unwrap().to_owned();
            let (sev, code) = (d["severity"].as_str().unwrap(), d["code"].as_str().unwrap());
            (short, d["line"].as_u64().unwrap(), sev, code)
        })
        .collect();
    let expected = [
        // an error finding before the warning the loader raised at the same place
        ("/base/app.yaml", 1, "error", "label-invalid"),
        (
            "/base/app.yaml",
            1,
            "warning",
            "namespace-on-cluster-scoped",
        ),
        // same object: errors (by code) before the warning found earlier
        ("/base/app.yaml", 9, "error", "name-invalid"),
        ("/base/app.yaml", 9, "error", "namespace-invalid"),
        ("/base/app.yaml", 9, "warning", "service-selects-nothing"),
        ("/base-prod/broken.yaml", 5, "error", "duplicate-key"),
        ("/base-prod/broken.yaml", 7, "error", "finalizer-invalid"),
        ("/base-prod/broken.yaml", 7, "note", "ref-unused"),
        ("/base-prod/broken.yaml", 15, "error", "yaml-syntax"),
    ];
    let expected: Vec<(String, u64, &str, &str)> = expected
        .iter()
        .map(|&(p, l, s, c)| (p.to_owned(), l, s, c))
        .collect();
    assert_eq!(order, expected);
    // Go quoting: a combining mark stays as written (Rust's `{:?}` gave `"e\u{301}"`)
    assert!(
        text.contains("no workload's pod template in namespace \"e\u{301}\""),
        "{text}"
    );
}

/// A duplicate names its object (it printed `-`), and the items of a one-line JSON array
/// are told apart by their column (all were `:1`).
#[test]
fn duplicates_name_their_object_and_json_items_their_column() {
    let dir = tempfile::tempdir().unwrap();
    let cm = |name: &str| {
        format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: a\n")
    };
    std::fs::write(dir.path().join("a.yaml"), cm("twice")).unwrap();
    std::fs::write(
        dir.path().join("b.yaml"),
        format!("{}---\n{}", cm("other"), cm("twice")),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("c.json"),
        r#"[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":5}}, {"apiVersion":"v1","metadata":{"name":"x"}}]"#,
    )
    .unwrap();
    let (code, out) = check(&["-f", dir.path().to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    let root = format!("{}/", dir.path().display());
    let out = out.replace(&root, "");
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines.contains(&"b.yaml:7:1: warning: ConfigMap/a/twice: duplicate object ConfigMap/a/twice: also defined at a.yaml:1"),
        "{out}"
    );
    assert!(
        lines.contains(&"c.json:1:2: error: -: json: cannot unmarshal number into Go struct field ObjectMeta.metadata.name of type string"),
        "{out}"
    );
    assert!(
        lines.contains(&"c.json:1:64: error: -: error validating data: [kind not set]"),
        "{out}"
    );
}
