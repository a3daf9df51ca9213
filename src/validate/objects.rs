//! Per-object findings: names, namespaces, labels, annotations and finalizers as the API
//! server validates them (`ValidateObjectMetaAccessor` in apimachinery's
//! `api/validation/objectmeta.go`, the per-kind name functions of `pkg/apis/*/validation`),
//! with upstream's `field.Error` texts; ownerReferences are checked in `owners`.

use crate::diagnostic::{Diagnostic, Severity};
use crate::gocompat::quote::quote as go_quote;
use crate::model::{Inventory, Object};
use crate::names::{
    is_dns1035_label, is_dns1123_label, is_dns1123_subdomain, is_qualified_name,
    is_valid_label_value, is_valid_path_segment_name, is_valid_path_segment_prefix,
};
use crate::value::RawRef;

/// `TotalAnnotationSizeLimitB`.
const ANNOTATIONS_MAX_BYTES: usize = 256 * 1024;

/// Finalizer names that need no domain (`IsStandardFinalizerName`).
const STANDARD_FINALIZERS: [&str; 3] = ["kubernetes", "orphan", "foregroundDeletion"];

/// Keys under the reserved `kubernetes.io/` and `k8s.io/` prefixes that Kubernetes itself
/// sets or defines (manifests exported from a cluster carry them), so they raise no
/// reserved-prefix note. Only those two exact prefixes are reserved: subdomains of them
/// (`node.kubernetes.io/…`, `topology.kubernetes.io/…`, `kubectl.kubernetes.io/…`,
/// `deployment.kubernetes.io/revision`, `endpointslice.kubernetes.io/managed-by`,
/// `app.kubernetes.io/…`) and unprefixed keys (`pod-template-hash`) never raise it, so the
/// many well-known keys there need no entry.
///
/// Sources, in kubernetes/kubernetes (`staging/src/k8s.io/api/…` is k8s.io/api):
const WELL_KNOWN_RESERVED: [&str; 25] = [
    // k8s.io/api core/v1/well_known_labels.go: LabelHostname, LabelOSStable,
    // LabelArchStable, LabelMetadataName (the label the API server puts on every Namespace).
    "kubernetes.io/hostname",
    "kubernetes.io/os",
    "kubernetes.io/arch",
    "kubernetes.io/metadata.name",
    // k8s.io/api discovery/v1/well_known_labels.go: LabelServiceName (EndpointSlices).
    "kubernetes.io/service-name",
    // k8s.io/api core/v1/annotation_key_constants.go: MirrorPodAnnotationKey; the kubelet's
    // other static-pod annotations, pkg/kubelet/types/pod_update.go (ConfigHashAnnotationKey,
    // ConfigFirstSeenAnnotationKey, ConfigSourceAnnotationKey).
    "kubernetes.io/config.mirror",
    "kubernetes.io/config.hash",
    "kubernetes.io/config.seen",
    "kubernetes.io/config.source",
    // k8s.io/api core/v1/types.go: ServiceAccountNameKey, ServiceAccountUIDKey (token
    // Secrets), EnforceMountableSecretsAnnotation (ServiceAccounts).
    "kubernetes.io/service-account.name",
    "kubernetes.io/service-account.uid",
    "kubernetes.io/enforce-mountable-secrets",
    // pkg/serviceaccount/legacy.go: LastUsedLabelKey, InvalidSinceLabelKey.
    "kubernetes.io/legacy-token-last-used",
    "kubernetes.io/legacy-token-invalid-since",
    // kubectl (k8s.io/kubectl pkg/polymorphichelpers): ChangeCauseAnnotation, recorded by
    // `--record` and shown by `kubectl rollout history`.
    "kubernetes.io/change-cause",
    // plugin/pkg/auth/authorizer/rbac/bootstrappolicy: the default RBAC objects' label.
    "kubernetes.io/bootstrapping",
    // cluster/addons and kubeadm's CoreDNS manifests (cmd/kubeadm/app/phases/addons/dns):
    // `kubernetes.io/cluster-service: "true"`, `kubernetes.io/name: "CoreDNS"` on the
    // kube-dns Service and Deployment.
    "kubernetes.io/cluster-service",
    "kubernetes.io/name",
    // The networking API's legacy ingress class annotation (pkg/apis/networking:
    // AnnotationIngressClass), and descriptions on built-in objects.
    "kubernetes.io/ingress.class",
    "kubernetes.io/description",
    // Admission and controllers of older releases: the LimitRanger and PodSecurityPolicy
    // admission annotations, the replication controllers' `created-by` reference, and the
    // in-tree volume provisioners' `kubernetes.io/createdby` on PersistentVolumes
    // (pkg/volume/*: annCreatedBy).
    "kubernetes.io/limit-ranger",
    "kubernetes.io/psp",
    "kubernetes.io/created-by",
    "kubernetes.io/createdby",
    // k8s.io/apiserver pkg/apis/apiserver (IdentityLeaseComponentLabelKey): the label of
    // the API servers' identity Leases.
    "k8s.io/component",
];

/// Which name rule the API server applies to a kind's `metadata.name`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum NameRule {
    Dns1123Subdomain,
    Dns1123Label,
    Dns1035Label,
    PathSegment,
}

fn name_rule(group: &str, kind: &str) -> NameRule {
    match (group, kind) {
        ("", "Namespace") => NameRule::Dns1123Label,
        ("", "Service") => NameRule::Dns1035Label,
        (
            "rbac.authorization.k8s.io",
            "Role" | "ClusterRole" | "RoleBinding" | "ClusterRoleBinding",
        ) => NameRule::PathSegment,
        _ => NameRule::Dns1123Subdomain,
    }
}

/// Upstream's name functions: `prefix` masks one trailing dash (for `generateName`).
fn name_errors(rule: NameRule, name: &str, prefix: bool) -> Vec<String> {
    let masked;
    let name = if prefix && rule != NameRule::PathSegment {
        masked = match name.strip_suffix('-') {
            Some(rest) => format!("{rest}a"),
            None => name.to_string(),
        };
        masked.as_str()
    } else {
        name
    };
    match rule {
        NameRule::Dns1123Subdomain => is_dns1123_subdomain(name),
        NameRule::Dns1123Label => is_dns1123_label(name),
        NameRule::Dns1035Label => is_dns1035_label(name),
        NameRule::PathSegment if prefix => is_valid_path_segment_prefix(name),
        NameRule::PathSegment => is_valid_path_segment_name(name),
    }
}

/// `field.Invalid(path, value, msg).Error()` for a string value.
fn invalid(path: &str, value: &str, msg: &str) -> String {
    format!("{path}: Invalid value: {}: {msg}", go_quote(value))
}

/// Validation findings for every object, its ownerReferences included.
pub fn findings(inv: &Inventory) -> Vec<Diagnostic> {
    use rayon::prelude::*;
    inv.objects
        .par_iter()
        .enumerate()
        .fold(Vec::new, |mut out, (i, o)| {
            object_findings(i, o, &mut out);
            if !o.owner_refs().is_empty() {
                out.extend(super::owners::findings(i, o));
            }
            out
        })
        .reduce(Vec::new, |mut a, b| {
            a.extend(b);
            a
        })
}

fn object_findings(i: usize, o: &Object, out: &mut Vec<Diagnostic>) {
    let mut push = |sev: Severity, code: &'static str, msg: String| {
        out.push(o.finding(i, sev, code, msg));
    };
    let rule = name_rule(&o.id.group, o.kind());
    let meta = o.raw.get("metadata");
    let generate_name = meta
        .and_then(|m| m.get("generateName"))
        .and_then(RawRef::as_str)
        .unwrap_or("");
    if !generate_name.is_empty() {
        for msg in name_errors(rule, generate_name, true) {
            push(
                Severity::Error,
                "name-invalid",
                invalid("metadata.generateName", generate_name, &msg),
            );
        }
    }
    // As written: an object with only a generateName has no name yet, and the API server
    // accepts it (it generates one).
    let name = meta
        .and_then(|m| m.get("name"))
        .and_then(RawRef::as_str)
        .unwrap_or("");
    if !name.is_empty() {
        for msg in name_errors(rule, name, false) {
            push(
                Severity::Error,
                "name-invalid",
                invalid("metadata.name", name, &msg),
            );
        }
        kind_name_rules(o, name, &mut push);
    }
    if o.namespaced {
        let ns = o.namespace();
        for msg in is_dns1123_label(ns) {
            push(
                Severity::Error,
                "namespace-invalid",
                invalid("metadata.namespace", ns, &msg),
            );
        }
    }
    for (k, v) in &o.labels() {
        for msg in is_qualified_name(k) {
            push(
                Severity::Error,
                "label-invalid",
                invalid("metadata.labels", k, &msg),
            );
        }
        for msg in is_valid_label_value(v) {
            push(
                Severity::Error,
                "label-invalid",
                invalid("metadata.labels", v, &msg),
            );
        }
        if let Some(msg) = reserved(k) {
            push(
                Severity::Note,
                "label-reserved-prefix",
                format!("metadata.labels: {}: {msg}", go_quote(k)),
            );
        }
    }
    let mut annotation_bytes = 0usize;
    for (k, v) in &o.annotations() {
        annotation_bytes += k.len() + v.len();
        for msg in is_qualified_name(&k.to_lowercase()) {
            push(
                Severity::Error,
                "annotation-invalid",
                invalid("metadata.annotations", k, &msg),
            );
        }
        if let Some(msg) = reserved(k) {
            push(
                Severity::Note,
                "annotation-reserved-prefix",
                format!("metadata.annotations: {}: {msg}", go_quote(k)),
            );
        }
    }
    if annotation_bytes > ANNOTATIONS_MAX_BYTES {
        push(
            Severity::Error,
            "annotations-too-long",
            format!("metadata.annotations: Too long: may not be more than {ANNOTATIONS_MAX_BYTES} bytes"),
        );
    }
    let finalizers = meta
        .and_then(|m| m.get("finalizers"))
        .and_then(RawRef::as_array)
        .unwrap_or_default();
    let built_in = crate::kinds::is_builtin(&o.id.group, o.kind());
    for f in finalizers.iter().filter_map(RawRef::as_str) {
        for msg in is_qualified_name(f) {
            push(
                Severity::Error,
                "finalizer-invalid",
                invalid("metadata.finalizers", f, &msg),
            );
        }
        if !f.contains('/') && !STANDARD_FINALIZERS.contains(&f) && is_qualified_name(f).is_empty()
        {
            if built_in {
                // validateKubeFinalizerName: built-in kinds reject it.
                push(
                    Severity::Error,
                    "finalizer-invalid",
                    invalid(
                        "metadata.finalizers",
                        f,
                        "name is neither a standard finalizer name nor is it fully qualified",
                    ),
                );
            } else {
                // Custom resources are accepted with a warning.
                push(
                    Severity::Warning,
                    "finalizer-unqualified",
                    format!(
                        "metadata.finalizers: {}: prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers",
                        go_quote(f)
                    ),
                );
            }
        }
    }
}

/// Rules some kinds add to their name.
fn kind_name_rules(o: &Object, name: &str, push: &mut impl FnMut(Severity, &'static str, String)) {
    match (&*o.id.group, o.kind()) {
        // pkg/apis/batch/validation: the Job names a CronJob creates append 11 characters.
        ("batch", "CronJob") if name.len() > 52 => push(
            Severity::Error,
            "name-invalid",
            invalid("metadata.name", name, "must be no more than 52 characters"),
        ),
        ("apiextensions.k8s.io", "CustomResourceDefinition") => {
            let plural = o.get_str("spec.names.plural").unwrap_or("");
            let group = o.get_str("spec.group").unwrap_or("");
            if name != format!("{plural}.{group}") {
                push(
                    Severity::Error,
                    "name-invalid",
                    invalid(
                        "metadata.name",
                        name,
                        "must be spec.names.plural+\".\"+spec.group",
                    ),
                );
            }
        }
        _ => {}
    }
}

/// A note for keys under the prefixes reserved for Kubernetes core components.
fn reserved(key: &str) -> Option<&'static str> {
    let (prefix, _) = key.split_once('/')?;
    let reserved = matches!(prefix, "kubernetes.io" | "k8s.io");
    (reserved && !WELL_KNOWN_RESERVED.contains(&key)).then_some(
        "the kubernetes.io/ and k8s.io/ prefixes are reserved for Kubernetes core components",
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::WELL_KNOWN_RESERVED;
    use crate::model::test_inventory;

    fn messages(doc: serde_json::Value) -> Vec<(&'static str, String)> {
        let inv = test_inventory(&[doc]);
        super::findings(&inv)
            .into_iter()
            .map(|f| (f.code, f.message.to_string()))
            .collect()
    }

    #[test]
    fn names_follow_the_kind_rule_with_upstream_messages() {
        assert_eq!(
            messages(json!({"apiVersion": "v1", "kind": "Service",
                "metadata": {"name": "1web", "namespace": "a"}})),
            vec![("name-invalid", "metadata.name: Invalid value: \"1web\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')".to_string())]
        );
        // A Namespace is a DNS-1123 label: no dots.
        let m =
            messages(json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a.b"}}));
        assert_eq!(m.len(), 1);
        assert!(
            m[0].1
                .starts_with("metadata.name: Invalid value: \"a.b\": a lowercase RFC 1123 label"),
            "{m:?}"
        );
        // ConfigMaps take subdomains, RBAC objects any path segment.
        assert!(messages(json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a.b", "namespace": "x"}})).is_empty());
        assert!(messages(
            json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
            "metadata": {"name": "system:Controller"}})
        )
        .is_empty());
        assert_eq!(
            messages(
                json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
                "metadata": {"name": "a/b"}})
            ),
            vec![(
                "name-invalid",
                "metadata.name: Invalid value: \"a/b\": may not contain '/'".to_string()
            )]
        );
    }

    #[test]
    fn generate_name_may_end_with_a_dash() {
        assert!(messages(json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"generateName": "web-", "name": "web-x1", "namespace": "a"}}))
        .is_empty());
    }

    #[test]
    fn a_generate_name_alone_is_a_name_to_come() {
        assert!(messages(json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"generateName": "web-", "namespace": "a"}}))
        .is_empty());
        // The prefix is still checked, as the API server checks it.
        let m = messages(json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"generateName": "Web-", "namespace": "a"}}));
        assert_eq!(m.len(), 1, "{m:?}");
        assert!(m[0]
            .1
            .starts_with("metadata.generateName: Invalid value: \"Web-\""));
    }

    #[test]
    fn keys_kubernetes_sets_itself_are_not_reserved_prefix_findings() {
        let keys = [
            "kubernetes.io/metadata.name",
            "kubernetes.io/service-name",
            "kubernetes.io/hostname",
            "kubernetes.io/os",
            "kubernetes.io/arch",
            "kubernetes.io/change-cause",
            "kubernetes.io/createdby",
            "kubernetes.io/name",
            "k8s.io/component",
            // Subdomains and unprefixed keys are never reserved.
            "node.kubernetes.io/instance-type",
            "topology.kubernetes.io/zone",
            "endpointslice.kubernetes.io/managed-by",
            "kubectl.kubernetes.io/last-applied-configuration",
            "deployment.kubernetes.io/revision",
            "pod-template-hash",
        ];
        for key in keys {
            assert!(super::reserved(key).is_none(), "{key}");
        }
        for key in WELL_KNOWN_RESERVED {
            assert!(super::reserved(key).is_none(), "{key}");
            let (prefix, _) = key.split_once('/').expect("prefixed");
            assert!(
                matches!(prefix, "kubernetes.io" | "k8s.io"),
                "{key} needs no entry"
            );
        }
        assert!(super::reserved("kubernetes.io/team").is_some());
        assert!(super::reserved("k8s.io/mine").is_some());
    }

    #[test]
    fn labels_annotations_and_finalizers() {
        let m = messages(
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {
            "name": "c", "namespace": "a",
            "labels": {"Bad Key": "ok", "good": "-bad"},
            "annotations": {"Example.com/Caps": "fine", "kubernetes.io/made-up": "x"},
            "finalizers": ["example.com/ok", "cleanup", "orphan"]}}),
        );
        let codes: Vec<&str> = m.iter().map(|(c, _)| *c).collect();
        assert_eq!(
            codes,
            [
                "label-invalid",
                "label-invalid",
                "annotation-reserved-prefix",
                "finalizer-invalid"
            ]
        );
        assert!(
            m[0].1.starts_with(
                "metadata.labels: Invalid value: \"Bad Key\": name part must consist of"
            ),
            "{}",
            m[0].1
        );
        assert!(
            m[1].1.starts_with(
                "metadata.labels: Invalid value: \"-bad\": a valid label must be an empty string"
            ),
            "{}",
            m[1].1
        );
        assert_eq!(m[3].1, "metadata.finalizers: Invalid value: \"cleanup\": name is neither a standard finalizer name nor is it fully qualified");
    }

    #[test]
    fn annotation_size_limit() {
        let big = "x".repeat(256 * 1024);
        let m = messages(json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "c", "namespace": "a", "annotations": {"a": big}}}));
        assert_eq!(
            m,
            vec![(
                "annotations-too-long",
                "metadata.annotations: Too long: may not be more than 262144 bytes".to_string()
            )]
        );
    }

    #[test]
    fn crd_name_is_plural_dot_group_and_cronjob_names_are_short() {
        let m = messages(
            json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com"},
            "spec": {"group": "example.org", "names": {"plural": "widgets", "kind": "Widget"}, "scope": "Namespaced"}}),
        );
        assert_eq!(m.len(), 1, "{m:?}");
        let long = "c".repeat(53);
        let m = messages(
            json!({"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": long, "namespace": "a"}}),
        );
        assert_eq!(
            m[0].1,
            format!("metadata.name: Invalid value: \"{long}\": must be no more than 52 characters")
        );
    }
}
