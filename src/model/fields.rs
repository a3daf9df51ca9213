//! Field selectors per kind: which fields the API server lets `--field-selector` use, their
//! values (with the API server's defaults), and the exact error for an unsupported field
//! (`pkg/apis/*/v1/conversion.go`, `pkg/registry/*/strategy.go`).

use crate::gocompat::quote::Quoted;
use crate::value::RawRef;

use super::Object;

/// Fields every kind supports.
const META: &[&str] = &["metadata.name", "metadata.namespace"];

/// The selectable fields of a kind, or `None` for kinds with only `metadata.*`
/// (the default conversion).
fn kind_fields(group: &str, kind: &str) -> Option<&'static [&'static str]> {
    Some(match (group, kind) {
        ("", "Pod") => &[
            "metadata.name",
            "metadata.namespace",
            "spec.nodeName",
            "spec.restartPolicy",
            "spec.schedulerName",
            "spec.serviceAccountName",
            "spec.hostNetwork",
            "status.phase",
            "status.podIP",
            "status.podIPs",
            "status.nominatedNodeName",
        ],
        ("", "Node") => &["metadata.name", "spec.unschedulable"],
        ("", "ReplicationController") => {
            &["metadata.name", "metadata.namespace", "status.replicas"]
        }
        ("", "Event") => &[
            "involvedObject.kind",
            "involvedObject.namespace",
            "involvedObject.name",
            "involvedObject.uid",
            "involvedObject.apiVersion",
            "involvedObject.resourceVersion",
            "involvedObject.fieldPath",
            "reason",
            "reportingComponent",
            "source",
            "type",
            "metadata.namespace",
            "metadata.name",
        ],
        ("", "Namespace") => &["status.phase", "metadata.name"],
        ("", "Secret") => &["type", "metadata.namespace", "metadata.name"],
        ("", "Service") => &[
            "metadata.namespace",
            "metadata.name",
            "spec.clusterIP",
            "spec.type",
        ],
        ("batch", "Job") => &["metadata.name", "metadata.namespace", "status.successful"],
        ("certificates.k8s.io", "CertificateSigningRequest" | "ClusterTrustBundle") => {
            &["metadata.name", "spec.signerName"]
        }
        _ => return None,
    })
}

/// Kinds whose registered conversion function words errors as `field label not supported`.
fn core_wording(group: &str, kind: &str) -> bool {
    group.is_empty()
        && matches!(
            kind,
            "Pod" | "Node" | "ReplicationController" | "Event" | "Namespace" | "Secret" | "Service"
        )
}

/// Whether `field` can be used in a field selector for this kind; the error is upstream's.
pub fn check_field(group: &str, kind: &str, field: &str) -> Result<(), String> {
    // `spec.host` is the deprecated alias of spec.nodeName.
    let field = if group.is_empty() && kind == "Pod" && field == "spec.host" {
        "spec.nodeName"
    } else {
        field
    };
    match kind_fields(group, kind) {
        Some(fields) if fields.contains(&field) => Ok(()),
        Some(_) if core_wording(group, kind) => Err(format!("field label not supported: {field}")),
        Some(_) if group == "batch" && kind == "Job" => Err(format!(
            "field label {} not supported for Job",
            Quoted(field)
        )),
        Some(_) => Err(format!("field label not supported: {field}")),
        None if META.contains(&field) => Ok(()),
        None => Err(format!(
            "{} is not a known field selector: only \"metadata.name\", \"metadata.namespace\"",
            Quoted(field)
        )),
    }
}

/// The value the API server compares for `field` (call [`check_field`] first). Absent
/// fields read as the server's default, or `""`.
pub fn field_value(obj: &Object, field: &str) -> String {
    let s = |path: &str| obj.get_str(path).unwrap_or("").to_owned();
    let or = |path: &str, default: &str| match obj.get_str(path) {
        Some(v) if !v.is_empty() => v.to_owned(),
        _ => default.to_owned(),
    };
    let pod = obj.id.group.is_empty() && obj.kind() == "Pod";
    match field {
        "metadata.name" => obj.name().to_owned(),
        "metadata.namespace" => obj.namespace().to_owned(),
        "spec.nodeName" | "spec.host" if pod => s("spec.nodeName"),
        "spec.restartPolicy" if pod => or("spec.restartPolicy", "Always"),
        "spec.schedulerName" if pod => or("spec.schedulerName", "default-scheduler"),
        "spec.serviceAccountName" if pod => or("spec.serviceAccountName", "default"),
        "spec.hostNetwork" | "spec.unschedulable" => bool_text(obj.get_path(field)),
        "status.podIP" => pod_ips(obj).into_iter().next().unwrap_or_default(),
        "status.podIPs" => pod_ips(obj).join(","),
        "status.replicas" => int_text(obj.get_path(field)),
        "status.successful" => int_text(obj.get_path("status.succeeded")),
        "spec.type" if obj.kind() == "Service" => or("spec.type", "ClusterIP"),
        "type" if obj.kind() == "Secret" => or("type", "Opaque"),
        "source" => s("source.component"),
        _ => s(field),
    }
}

fn bool_text(v: Option<RawRef<'_>>) -> String {
    (v.and_then(RawRef::as_bool) == Some(true)).to_string()
}

fn int_text(v: Option<RawRef<'_>>) -> String {
    v.and_then(RawRef::as_i64).unwrap_or(0).to_string()
}

/// `status.podIPs[*].ip`, falling back to `status.podIP`.
fn pod_ips(obj: &Object) -> Vec<String> {
    let from_list: Vec<String> = obj
        .get_path("status.podIPs")
        .and_then(RawRef::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|p| p.get("ip").and_then(RawRef::as_str))
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    if from_list.is_empty() {
        obj.get_str("status.podIP")
            .map(|ip| vec![ip.to_owned()])
            .unwrap_or_default()
    } else {
        from_list
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upstream_errors() {
        assert_eq!(
            check_field("", "Pod", "spec.foo"),
            Err("field label not supported: spec.foo".into())
        );
        assert_eq!(
            check_field("batch", "Job", "spec.foo"),
            Err("field label \"spec.foo\" not supported for Job".into())
        );
        assert_eq!(
            check_field("apps", "ReplicaSet", "status.replicas"),
            Err("\"status.replicas\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\"".into())
        );
        assert_eq!(
            check_field("", "Node", "metadata.namespace"),
            Err("field label not supported: metadata.namespace".into())
        );
        assert!(check_field("", "ConfigMap", "metadata.namespace").is_ok());
        assert!(check_field("", "Pod", "spec.host").is_ok());
        assert!(check_field("example.com", "Widget", "metadata.name").is_ok());
    }
}
