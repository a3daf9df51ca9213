//! Telling Kubernetes objects apart from everything else that lives in manifest folders:
//! Kustomizations, Helm charts, values files, kubeconfigs, Go templates, plain config.

use std::path::Path;

use super::super::extract::raw_json_type;
use crate::diagnostic::Severity;
use crate::value::{RawObject, RawRef};
use memchr::memmem;

/// Why a document is not loaded as an object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Verdict {
    pub severity: Severity,
    pub code: &'static str,
    pub message: String,
}

fn note(what: &str) -> Verdict {
    Verdict {
        severity: Severity::Note,
        code: "not-an-object",
        message: format!("not a Kubernetes object: {what}"),
    }
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default()
}

/// The strategic-merge-patch directive at the top of a document or of its metadata
/// (`$patch: delete`, `$retainKeys`, …), if any: such a document patches an object, it is not
/// one.
fn patch_directive(m: RawObject<'_>) -> Option<String> {
    const DIRECTIVES: [&str; 4] = [
        "$patch",
        "$retainKeys",
        "$setElementOrder",
        "$deleteFromPrimitiveList",
    ];
    let meta = m.get("metadata").and_then(RawRef::as_object);
    [Some(m), meta].into_iter().flatten().find_map(|map| {
        // Entries are stored in key byte order: keys starting with `$` come before any key
        // starting with a letter, and the search stops at the first key past `$`.
        let mut candidates = map
            .iter()
            .take_while(|(k, _)| k.as_bytes().first().is_none_or(|&c| c <= b'$'));
        candidates.find_map(|(k, v)| {
            DIRECTIVES
                .iter()
                .any(|d| k.starts_with(d))
                .then(|| match v.as_str() {
                    Some(v) => format!("{k}: {v}"),
                    None => k.to_owned(),
                })
        })
    })
}

fn str_field<'a>(m: RawObject<'a>, k: &str) -> &'a str {
    m.get(k).and_then(RawRef::as_str).unwrap_or("")
}

/// `None` when `value` (a document, or an `item` of a list) should be loaded as an object;
/// otherwise what it is.
pub(super) fn classify(path: &Path, value: RawRef<'_>, item: bool) -> Option<Verdict> {
    let Some(m) = value.as_object() else {
        let place = if item {
            "as a list item"
        } else {
            "at the top level"
        };
        return Some(note(&format!(
            "a YAML/JSON {} {place}",
            describe_type(value)
        )));
    };
    // Only looked at for documents without a kind, or not typed: not made for the others.
    let name = || file_name(path);
    let (api_version, kind) = (str_field(m, "apiVersion"), str_field(m, "kind"));
    if api_version.starts_with("kustomize.config.k8s.io/")
        || (kind.is_empty()
            && matches!(
                name().as_str(),
                "kustomization.yaml" | "kustomization.yml" | "kustomization"
            ))
    {
        return Some(note(
            "a Kustomization (kustomize input; run `kustomize build` to get the objects)",
        ));
    }
    if kind == "Config"
        && api_version == "v1"
        && (m.contains_key("clusters") || m.contains_key("contexts"))
    {
        return Some(note(
            "a kubeconfig (client configuration, not a cluster object)",
        ));
    }
    if let Some(directive) = patch_directive(m) {
        return Some(note(&format!(
            "a strategic-merge patch (`{directive}`; kustomize or `kubectl patch` input)"
        )));
    }
    if !api_version.is_empty() && !kind.is_empty() {
        return None;
    }
    let name = name();
    if matches!(name.as_str(), "chart.yaml" | "chart.yml") || looks_like_chart(m) {
        return Some(note("a Helm chart's Chart.yaml"));
    }
    if name.starts_with("values") && kind.is_empty() {
        return Some(note("a Helm values file"));
    }
    if kind.is_empty() && (m.contains_key("clusters") && m.contains_key("contexts")) {
        return Some(note(
            "a kubeconfig (client configuration, not a cluster object)",
        ));
    }
    Some(missing_type_meta(m, api_version, kind))
}

fn looks_like_chart(m: RawObject<'_>) -> bool {
    matches!(str_field(m, "apiVersion"), "v1" | "v2")
        && m.contains_key("name")
        && m.contains_key("version")
        && !m.contains_key("kind")
}

/// A mapping without apiVersion/kind: a broken manifest (it has `kind` or `metadata`) is an
/// error worded as kubectl's validation; anything else is a note saying what it looks like.
fn missing_type_meta(m: RawObject<'_>, api_version: &str, kind: &str) -> Verdict {
    let mut missing = Vec::new();
    if api_version.is_empty() {
        missing.push("apiVersion not set");
    }
    if kind.is_empty() {
        missing.push("kind not set");
    }
    let missing = missing.join(", ");
    if !kind.is_empty() || !api_version.is_empty() || m.contains_key("metadata") {
        return Verdict {
            severity: Severity::Error,
            code: "missing-type",
            message: format!("error validating data: [{missing}]"),
        };
    }
    note(&format!("{} ({missing})", guess(m)))
}

/// A few well-known non-Kubernetes YAML shapes, else the first keys.
fn guess(m: RawObject<'_>) -> String {
    let has = |k: &str| m.contains_key(k);
    if has("jobs") && (has("on") || has("true")) {
        return "a GitHub Actions workflow".to_owned();
    }
    if has("services") && (has("version") || has("volumes") || has("networks")) {
        return "a docker-compose file".to_owned();
    }
    if has("openapi") || has("swagger") {
        return "an OpenAPI document".to_owned();
    }
    if has("$schema") {
        return "a JSON schema".to_owned();
    }
    let keys: Vec<&str> = m.keys().take(4).collect();
    let more = if m.len() > 4 { ", …" } else { "" };
    format!("a plain mapping with keys {}{more}", keys.join(", "))
}

fn describe_type(v: RawRef<'_>) -> &'static str {
    match raw_json_type(v) {
        "array" => "list of non-objects",
        "bool" => "boolean",
        t => t,
    }
}

/// Helm object references: any action mentioning one marks a Helm template.
const HELM_REFS: [&str; 9] = [
    ".Values",
    ".Release",
    ".Chart",
    ".Capabilities",
    ".Files",
    ".Template",
    "include ",
    "toYaml",
    "tpl ",
];

/// Position (1-based line, column) of the first Go-template action `{{ … }}`, if any.
pub(super) fn first_action(text: &str) -> Option<(u32, u32)> {
    let i = memmem::find(text.as_bytes(), b"{{")?;
    memmem::find(&text.as_bytes()[i..], b"}}")?;
    Some(line_col(text, i))
}

/// Whether the text is a Helm template for sure: some action references Helm's objects or
/// functions. Other `{{ … }}` (Prometheus alert text, Grafana legends, Alertmanager
/// templates in a ConfigMap) are ordinary string content of valid YAML.
pub(super) fn is_helm_template(text: &str) -> bool {
    let mut rest = text;
    while let Some(open) = memmem::find(rest.as_bytes(), b"{{") {
        let after = &rest[open + 2..];
        let Some(close) = memmem::find(after.as_bytes(), b"}}") else {
            return false;
        };
        let action = &after[..close];
        if HELM_REFS.iter().any(|r| action.contains(r)) {
            return true;
        }
        rest = &after[close + 2..];
    }
    false
}

/// The verdict for a template file.
pub(super) fn template_note() -> Verdict {
    Verdict {
        severity: Severity::Note,
        code: "template",
        message: "Helm/Go template, not rendered: skipped".to_owned(),
    }
}

/// 1-based line and column (in characters) of a byte offset.
pub(super) fn line_col(text: &str, offset: usize) -> (u32, u32) {
    let before = &text.as_bytes()[..offset.min(text.len())];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let col = String::from_utf8_lossy(&before[line_start..])
        .chars()
        .count()
        + 1;
    (
        u32::try_from(line).unwrap_or(u32::MAX),
        u32::try_from(col).unwrap_or(u32::MAX),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Raw;
    use serde_json::{json, Value};

    fn verdict(name: &str, v: Value) -> Option<Verdict> {
        classify(Path::new(name), Raw::from_value(&v).view(), false)
    }

    #[test]
    fn objects_pass() {
        assert_eq!(
            verdict("a.yaml", json!({"apiVersion": "v1", "kind": "Pod"})),
            None
        );
    }

    #[test]
    fn kinds_of_non_objects() {
        let msg = |n: &str, v| verdict(n, v).unwrap().message;
        assert!(
            msg("kustomization.yaml", json!({"resources": ["a.yaml"]})).contains("Kustomization")
        );
        assert!(msg(
            "k.yaml",
            json!({"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization"})
        )
        .contains("Kustomization"));
        assert!(msg(
            "Chart.yaml",
            json!({"apiVersion": "v2", "name": "x", "version": "1"})
        )
        .contains("Chart.yaml"));
        assert!(msg("values.yaml", json!({"replicas": 1})).contains("values"));
        assert_eq!(
            msg(
                "delete.patch.yaml",
                json!({"apiVersion": "apps/v1", "kind": "Deployment",
                    "metadata": {"name": "loadgenerator"}, "$patch": "delete"})
            ),
            "not a Kubernetes object: a strategic-merge patch (`$patch: delete`; kustomize or `kubectl patch` input)"
        );
        assert!(msg(
            "c",
            json!({"apiVersion": "v1", "kind": "Config", "clusters": []})
        )
        .contains("kubeconfig"));
        assert_eq!(
            msg("x.yaml", json!({"a": 1, "b": 2})),
            "not a Kubernetes object: a plain mapping with keys a, b (apiVersion not set, kind not set)"
        );
        assert_eq!(
            msg("x.yaml", json!("hello")),
            "not a Kubernetes object: a YAML/JSON string at the top level"
        );
        let broken = verdict("x.yaml", json!({"kind": "Pod", "metadata": {}})).unwrap();
        assert_eq!(
            (broken.severity, broken.message.as_str()),
            (
                Severity::Error,
                "error validating data: [apiVersion not set]"
            )
        );
    }

    #[test]
    fn helm_templates() {
        assert!(is_helm_template("name: {{ .Release.Name }}\n"));
        assert!(is_helm_template("{{- include \"x\" . | nindent 4 }}"));
        assert!(!is_helm_template(
            "description: '{{ $labels.pod }} is down'"
        ));
        assert_eq!(first_action("a: 1\nb: x{{ y }}"), Some((2, 5)));
    }
}
