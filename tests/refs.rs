//! Reference edges through the real binary: `tree --refs`, `--reverse`, `--all`, `-o wide`,
//! `-o json`, and the reference findings of `check` on a broken and a clean app.

use std::process::Command;

const FIX: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/refs");

fn run(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_kubesift"))
        .args(args)
        .output()
        .expect("run kubesift");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).expect("utf-8"),
    )
}

fn broken() -> String {
    format!("{FIX}/broken")
}

/// The NAME cells of a tree, guides included, header dropped.
fn names(out: &str) -> Vec<String> {
    let header = out.lines().next().unwrap_or_default();
    let start = header.find("NAME ").unwrap_or(0);
    let end = header.find("STATUS").unwrap_or(header.len());
    let width = header[start..end].chars().count();
    out.lines()
        .skip(1)
        .map(|l| {
            let cell: String = l.chars().skip(start).take(width).collect();
            cell.trim_end().to_owned()
        })
        .collect()
}

#[test]
fn a_deployment_uses_exactly_its_configmaps_secrets_service_account_and_claims() {
    let (code, out) = run(&["tree", "--refs", "deploy/web", "-f", &broken()]);
    assert_eq!(code, 0);
    assert_eq!(
        names(&out),
        vec![
            "Deployment.apps/web",
            "├┄ ConfigMap/app-config (used via volume)",
            "├┄ PersistentVolumeClaim/web-data (used via pvc)",
            "├┄ Secret/db-creds (used via env)",
            "└┄ ServiceAccount/web-sa (used via serviceAccount)",
        ]
    );
}

#[test]
fn reverse_lists_every_user_and_wide_names_relationships() {
    let (_, out) = run(&[
        "tree",
        "--refs",
        "--reverse",
        "sa/web-sa",
        "-o",
        "wide",
        "-f",
        &broken(),
    ]);
    assert!(out
        .lines()
        .next()
        .unwrap_or_default()
        .ends_with("RELATIONSHIPS"));
    let rows: Vec<&str> = out.lines().skip(1).collect();
    assert_eq!(rows.len(), 3, "{out}");
    assert!(
        rows[1].contains("RoleBinding.rbac.authorization.k8s.io/web-reader (uses it via subject)")
    );
    assert!(rows[1].ends_with("[subject]"));
    assert!(rows[2].contains("└┄ Deployment.apps/web (uses it via serviceAccount)"));
    assert!(rows[2].ends_with("[serviceAccount]"));
}

#[test]
fn all_combines_owners_selectors_and_references() {
    let (_, out) = run(&["tree", "--all", "ingress/web", "-f", &broken()]);
    assert_eq!(
        names(&out),
        vec![
            "Ingress.networking.k8s.io/web",
            "└┄ Service/web (used via backend)",
            "   └╌ Deployment.apps/web (selected via spec.selector (pod template))",
            "      ├┄ ConfigMap/app-config (used via volume)",
            "      ├┄ PersistentVolumeClaim/web-data (used via pvc)",
            "      ├┄ Secret/db-creds (used via env)",
            "      └┄ ServiceAccount/web-sa (used via serviceAccount)",
        ]
    );
}

#[test]
fn json_carries_the_relationships() {
    let (_, out) = run(&[
        "tree",
        "--refs",
        "deploy/web",
        "-o",
        "json",
        "-f",
        &broken(),
    ]);
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    let child = &v[0]["children"][0];
    assert_eq!(child["name"], "app-config");
    assert_eq!(
        child["edge"],
        serde_json::json!({"type": "reference", "relationship": "volume", "relationships": ["volume"]})
    );
}

#[test]
fn check_reports_each_broken_reference() {
    let (code, out) = run(&["check", "-f", &broken()]);
    assert_eq!(code, 0, "warnings and notes do not fail check");
    let lines: Vec<&str> = out.lines().collect();
    let expect = [
        "config.yaml:9:1: note: ConfigMap/shop/orphan-config: Used? Unable to locate resource reference: no object of the input uses this ConfigMap",
        "ingress.yaml:1:1: warning: Ingress.networking.k8s.io/shop/web: spec.rules[0].http.paths[1].backend: service \"api\" not found",
        "ingress.yaml:1:1: warning: Ingress.networking.k8s.io/shop/web: spec.rules[0].http.paths[0].backend: could not find port \"8080\" in service \"shop/web\"",
        "ingress.yaml:1:1: note: Ingress.networking.k8s.io/shop/web: spec.tls[0].secretName: secret \"web-tls\" not found",
        "rbac.yaml:1:1: warning: RoleBinding.rbac.authorization.k8s.io/shop/web-reader: roleRef: role.rbac.authorization.k8s.io \"web-reader\" not found",
        "web.yaml:1:1: warning: Deployment.apps/shop/web: spec.template.spec.containers[0].envFrom[0].configMapRef: configmap \"missing-config\" not found",
        "web.yaml:1:1: note: Deployment.apps/shop/web: spec.template.spec.imagePullSecrets[0]: secret \"regcred\" not found",
        "web.yaml:37:1: warning: Service/shop/web: spec.ports[1].targetPort: no container of Deployment.apps/shop/web declares a port named \"metrics\"",
    ];
    assert_eq!(lines.len(), expect.len(), "{out}");
    for (line, want) in lines.iter().zip(expect) {
        assert!(line.ends_with(want), "{line}\n  want …{want}");
    }
}

#[test]
fn check_is_silent_on_a_clean_app() {
    let (code, out) = run(&["check", "-f", &format!("{FIX}/clean")]);
    assert_eq!((code, out.as_str()), (0, ""));
}

#[test]
fn check_json_names_the_reference_codes() {
    let (_, out) = run(&["check", "-o", "json", "-f", &broken()]);
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    let codes: Vec<&str> = v
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|d| d["code"].as_str())
        .collect();
    for code in [
        "ref-missing",
        "ref-port-missing",
        "ref-target-port-undeclared",
        "ref-unused",
    ] {
        assert!(codes.contains(&code), "{code} in {codes:?}");
    }
}
