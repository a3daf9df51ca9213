//! What the loader makes of well-formed input: documents, lists, JSON, positions, scalars,
//! non-objects and templates.

use std::fs;
use std::path::Path;
use std::sync::Arc;

use kubesift::diagnostic::Severity;
use kubesift::model::load::{load_paths, parse_text, FileLoad, LoadOptions};
use serde_json::json;

fn parse(name: &str, text: &str) -> FileLoad {
    parse_text(&Arc::from(Path::new(name)), text)
}

fn kinds_lines(load: &FileLoad) -> Vec<(String, String, u32)> {
    load.objects
        .iter()
        .map(|o| (o.kind().to_owned(), o.name().to_owned(), o.source.line))
        .collect()
}

#[test]
fn multi_document_yaml_keeps_lines_and_skips_empty_documents() {
    let text = "# leading comment\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n---\n---\n# only a comment\n---\n\n\napiVersion: v1\nkind: Service\nmetadata: {name: b}\n...\n";
    let load = parse("m.yaml", text);
    assert!(load.problems.is_empty(), "{:#?}", load.problems);
    assert_eq!(
        kinds_lines(&load),
        vec![
            ("Pod".into(), "a".into(), 3),
            ("Service".into(), "b".into(), 13)
        ]
    );
    let svc = &load.objects[1].source;
    assert!(text[svc.start..svc.end].starts_with("apiVersion: v1\nkind: Service"));
}

#[test]
fn typed_list_items_inherit_kind_and_keep_their_lines() {
    let text = "apiVersion: v1\nkind: PodList\nitems:\n- metadata:\n    name: p1\n- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: p2\n- kind: List\n  apiVersion: v1\n  items:\n  - apiVersion: v1\n    kind: Secret\n    metadata: {name: s}\n";
    let load = parse("l.yaml", text);
    assert!(load.problems.is_empty(), "{:#?}", load.problems);
    assert_eq!(
        kinds_lines(&load),
        vec![
            ("Pod".into(), "p1".into(), 4),
            ("Pod".into(), "p2".into(), 6),
            ("Secret".into(), "s".into(), 13)
        ]
    );
    let p1 = &load.objects[0];
    assert_eq!(
        p1.raw.get("apiVersion").and_then(|v| v.as_str()),
        Some("v1")
    );
    assert!(text[p1.source.start..p1.source.end].starts_with("metadata:\n    name: p1"));
}

#[test]
fn null_items_is_an_empty_list() {
    let load = parse("n.yaml", "apiVersion: v1\nkind: List\nitems: null\n");
    assert!(
        load.objects.is_empty() && load.problems.is_empty(),
        "{:#?}",
        load.problems
    );
}

#[test]
fn a_list_item_that_is_not_a_mapping_is_named_as_an_item() {
    // A list cut after an item's dash (a null item), a number item, and a number document:
    // each a note where it is, the objects around them loaded.
    let text = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a}\n- 5\n-\n---\n7\n";
    let load = parse("l.yaml", text);
    assert_eq!(
        kinds_lines(&load),
        vec![("ConfigMap".into(), "a".into(), 4)]
    );
    let got: Vec<(Severity, u32, String)> = load
        .problems
        .iter()
        .map(|p| (p.severity, p.line, p.message.to_string()))
        .collect();
    let n = Severity::Note;
    assert_eq!(
        got,
        vec![
            (
                n,
                7,
                "not a Kubernetes object: a YAML/JSON number as a list item".into()
            ),
            (
                n,
                8,
                "not a Kubernetes object: a YAML/JSON null as a list item".into()
            ),
            (
                n,
                10,
                "not a Kubernetes object: a YAML/JSON number at the top level".into()
            ),
        ]
    );
    // The same in a top-level array.
    let load = parse(
        "a.json",
        "[{\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"metadata\": {\"name\": \"a\"}}, null]",
    );
    assert_eq!(load.objects.len(), 1);
    assert_eq!(
        load.problems
            .iter()
            .map(|p| p.message.to_string())
            .collect::<Vec<_>>(),
        ["not a Kubernetes object: a YAML/JSON null as a list item"]
    );
}

#[test]
fn json_list_dump_with_item_lines() {
    let text = "{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"List\",\n  \"items\": [\n    {\"apiVersion\": \"apps/v1\", \"kind\": \"Deployment\", \"metadata\": {\"name\": \"web\", \"namespace\": \"shop\"}},\n    {\n      \"apiVersion\": \"v1\", \"kind\": \"Service\", \"metadata\": {\"name\": \"web\"}\n    }\n  ]\n}\n";
    let load = parse("dump.json", text);
    assert!(load.problems.is_empty(), "{:#?}", load.problems);
    assert_eq!(
        kinds_lines(&load),
        vec![
            ("Deployment".into(), "web".into(), 5),
            ("Service".into(), "web".into(), 6)
        ]
    );
    assert_eq!(load.objects[0].kubectl_name(), "deployment.apps/web");
}

#[test]
fn top_level_arrays_and_json_streams() {
    let load = parse("a.yaml", "- apiVersion: v1\n  kind: Pod\n  metadata: {name: a}\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: b}\n");
    assert_eq!(
        kinds_lines(&load),
        vec![("Pod".into(), "a".into(), 1), ("Pod".into(), "b".into(), 4)]
    );
    let load = parse("s.json", "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"a\"}}\n{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"b\"}}\n");
    assert_eq!(
        kinds_lines(&load),
        vec![("Pod".into(), "a".into(), 1), ("Pod".into(), "b".into(), 2)]
    );
}

#[test]
fn flow_yaml_starting_with_a_brace_is_not_json() {
    let load = parse("f.yaml", "{apiVersion: v1, kind: Pod, metadata: {name: a}}\n---\n{apiVersion: v1, kind: Pod, metadata: {name: b}}\n");
    assert!(load.problems.is_empty(), "{:#?}", load.problems);
    assert_eq!(load.objects.len(), 2);
}

#[test]
fn scalars_resolve_as_kubernetes_does() {
    let text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: s\n  labels:\n    version: \"1.0\"\n    quoted: 'yes'\ndata:\n  a: yes\n  b: off\n  c: 1.0\n  d: 0x10\n  e: ~\n  f: 2024-01-01\n  g: |\n    line\n  h: >-\n    folded\n    text\n  i: 1_000\n  j: 1e3\n  k: \"007\"\n  yes: key\n";
    let load = parse("c.yaml", text);
    assert!(load.problems.is_empty(), "{:#?}", load.problems);
    let o = &load.objects[0];
    assert_eq!(o.labels().get("version"), Some("1.0"));
    assert_eq!(
        o.raw.get("data").map(|v| v.to_value()).unwrap_or_default(),
        json!({"a": true, "b": false, "c": 1, "d": 16, "e": null, "f": "2024-01-01", "g": "line\n",
               "h": "folded text", "i": 1000, "j": 1000, "k": "007", "true": "key"})
    );
}

#[test]
fn bad_metadata_is_an_error() {
    let load = parse(
        "b.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n  labels: [a]\n",
    );
    assert!(load.objects.is_empty());
    assert_eq!(load.problems[0].code, "bad-metadata");
    assert_eq!(
        &*load.problems[0].message,
        "json: cannot unmarshal array into Go struct field ObjectMeta.metadata.labels of type map[string]string"
    );
}

#[test]
fn non_objects_are_notes_saying_what_they_are() {
    let dir = tempfile::tempdir().unwrap();
    let w = |n: &str, t: &str| {
        let p = dir.path().join(n);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, t).unwrap();
    };
    w("kustomization.yaml", "resources:\n- deploy.yaml\n");
    w(
        "chart/Chart.yaml",
        "apiVersion: v2\nname: shop\nversion: 0.1.0\n",
    );
    w("chart/values.yaml", "replicaCount: 1\n");
    w(
        "kubeconfig.yaml",
        "apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\n",
    );
    w("plain.yaml", "foo: 1\nbar: 2\n");
    w("broken.yaml", "kind: Deployment\nmetadata:\n  name: x\n");
    w("chart/templates/deploy.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}-web\n  labels:\n    {{- include \"shop.labels\" . | nindent 4 }}\n");
    w("alerts.yaml", "apiVersion: monitoring.coreos.com/v1\nkind: PrometheusRule\nmetadata:\n  name: r\nspec:\n  groups:\n  - name: g\n    rules:\n    - alert: Down\n      annotations:\n        description: '{{ $labels.pod }} is down'\n");
    w("go.yaml", "a: {{ .Foo }}\nb: {{ .Bar\n");
    let inv = load_paths(&[dir.path().to_path_buf()], &LoadOptions::default());
    assert_eq!(
        inv.objects.iter().map(|o| o.kind()).collect::<Vec<_>>(),
        vec!["PrometheusRule"]
    );
    let got: Vec<(String, Severity, u32, String)> = inv
        .problems
        .iter()
        .map(|p| {
            let rel = p
                .path
                .strip_prefix(dir.path())
                .unwrap()
                .display()
                .to_string();
            (rel, p.severity, p.line, p.message.to_string())
        })
        .collect();
    let n = Severity::Note;
    let want = vec![
        ("broken.yaml".to_owned(), Severity::Error, 1, "error validating data: [apiVersion not set]".to_owned()),
        ("chart/Chart.yaml".into(), n, 1, "not a Kubernetes object: a Helm chart's Chart.yaml".into()),
        ("chart/templates/deploy.yaml".into(), n, 4, "Helm/Go template, not rendered: skipped".into()),
        ("chart/values.yaml".into(), n, 1, "not a Kubernetes object: a Helm values file".into()),
        ("go.yaml".into(), n, 1, "Helm/Go template, not rendered: skipped".into()),
        ("kubeconfig.yaml".into(), n, 1, "not a Kubernetes object: a kubeconfig (client configuration, not a cluster object)".into()),
        ("kustomization.yaml".into(), n, 1, "not a Kubernetes object: a Kustomization (kustomize input; run `kustomize build` to get the objects)".into()),
        ("plain.yaml".into(), n, 1, "not a Kubernetes object: a plain mapping with keys bar, foo (apiVersion not set, kind not set)".into()),
    ];
    assert_eq!(got, want);
}
