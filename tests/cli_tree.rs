//! `kubesift tree` on the graph fixtures, through the real binary.

use std::process::Command;

const FIX: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/graph");

fn tree(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_kubesift"))
        .arg("tree")
        .args(args)
        .output()
        .expect("run kubesift");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).expect("utf-8"),
        String::from_utf8(out.stderr).expect("utf-8"),
    )
}

/// The NAME column of each row (after the NAMESPACE column), header dropped.
fn names(out: &str) -> Vec<String> {
    let header = out.lines().next().unwrap();
    let start = header.find("NAME ").unwrap();
    let end = header.find("STATUS").unwrap();
    out.lines()
        .skip(1)
        .map(|l| {
            l.chars()
                .skip(start)
                .take(header[start..end].chars().count())
                .collect::<String>()
                .trim_end()
                .to_owned()
        })
        .collect()
}

#[test]
fn deployment_tree_by_uid_and_by_name() {
    let app = format!("{FIX}/owners/app.yaml");
    let (code, out, err) = tree(&["-f", &app, "deploy/web"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        names(&out),
        vec![
            "Deployment.apps/web",
            "└─ ReplicaSet.apps/web-7d",
            "   ├─ Pod/web-7d-a",
            "   └─ Pod/web-7d-b (owner by name)",
        ],
        "{out}"
    );
    assert!(out.lines().nth(3).unwrap().contains("Running"), "{out}");
}

#[test]
fn upward_with_source() {
    let app = format!("{FIX}/owners/app.yaml");
    let (code, out, _) = tree(&["-f", &app, "--owners", "--show-source", "po/web-7d-a"]);
    assert_eq!(code, 0);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].ends_with("SOURCE"), "{out}");
    assert_eq!(lines.len(), 4);
    assert!(lines[3].contains("└─ Deployment.apps/web"), "{out}");
    assert!(lines[3].contains("app.yaml:"), "{out}");
}

#[test]
fn roots_terminating_and_finalizers_inline() {
    let dir = format!("{FIX}/lifecycle");
    let (code, out, _) = tree(&["-f", &dir, "-n", "shop"]);
    assert_eq!(code, 0);
    let stuck = out
        .lines()
        .find(|l| l.contains("Pod/stuck"))
        .expect("pod row");
    assert!(stuck.contains("Terminating  Terminating since 2024-05-01T10:00:00Z (grace 30s) finalizers=[example.com/cleanup]"), "{out}");
    // ReplicaSets hang under their Deployment, not at the root; `keep` is filtered out
    assert!(out.contains("├─ ReplicaSet.apps/api-1"), "{out}");
    assert!(!out.contains("both"), "{out}");
    let ns_rows = out.lines().filter(|l| l.contains("Namespace/shop")).count();
    assert_eq!(
        ns_rows, 0,
        "cluster-scoped roots are outside -n shop: {out}"
    );
}

#[test]
fn json_nests_children_and_edges() {
    let dir = format!("{FIX}/lifecycle");
    let (_, out, _) = tree(&["-f", &dir, "deployment.apps/api", "-o", "json"]);
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    let root = &v[0];
    assert_eq!(root["object"], "Deployment.apps/shop/api");
    assert_eq!(root["finalizers"][0]["name"], "foregroundDeletion");
    assert!(root["finalizers"][0]["explanation"]
        .as_str()
        .unwrap()
        .contains("blockOwnerDeletion"));
    let kids = root["children"].as_array().unwrap();
    assert_eq!(kids.len(), 2);
    assert_eq!(kids[0]["edge"]["blockOwnerDeletion"], true);
    assert_eq!(kids[1]["edge"]["blockOwnerDeletion"], false);
    assert_eq!(kids[0]["edge"]["byUid"], true);
}

#[test]
fn unknown_type_and_missing_object() {
    let dir = format!("{FIX}/owners");
    let (code, _, err) = tree(&["-f", &dir, "nosuchtype/x"]);
    assert_eq!(code, 1);
    assert_eq!(
        err.trim(),
        r#"error: the server doesn't have a resource type "nosuchtype""#
    );
    let (code, _, err) = tree(&["-f", &dir, "deploy/nope"]);
    assert_eq!(code, 1);
    assert_eq!(
        err.trim(),
        r#"Error from server (NotFound): deployments.apps "nope" not found"#
    );
}

#[test]
fn cycles_are_shown_without_targets() {
    let file = format!("{FIX}/owners/cycle.yaml");
    let (code, out, _) = tree(&["-f", &file]);
    assert_eq!(code, 0);
    assert_eq!(
        names(&out),
        vec![
            "ConfigMap/chicken",
            "└─ ConfigMap/egg",
            "   └─ ConfigMap/chicken (cycle)",
        ],
        "{out}"
    );
}
