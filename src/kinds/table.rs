//! The built-in kinds, one entry each: scope, names and group (from `kubectl api-resources`
//! of current Kubernetes, plus a few legacy groups still common in old manifests), the
//! `kubectl get` printer and where a workload keeps its pod template. Adding a kind is one
//! entry here.

use std::sync::LazyLock;

use rustc_hash::FxHashMap as HashMap;

use super::columns::{self, Printer};

/// Everything kubesift knows about one built-in kind.
#[derive(Clone, Copy, Debug)]
pub struct Builtin {
    pub group: &'static str,
    /// Preferred version (informational; identity never uses it).
    pub version: &'static str,
    pub kind: &'static str,
    pub plural: &'static str,
    pub short_names: &'static [&'static str],
    pub namespaced: bool,
    /// Categories such as `all` (`kubectl get all`).
    pub categories: &'static [&'static str],
    /// Its `kubectl get` columns and status; `None` prints AGE alone.
    pub printer: Option<&'static Printer>,
    /// Where a workload keeps its pod template (`spec.template`).
    pub pod_template: Option<&'static str>,
    /// Groups that served the same resource before it moved here (`extensions` for
    /// Deployments): the API server stored one object whichever group a manifest names,
    /// so identity uses [`Builtin::group`] for all of them.
    pub legacy_groups: &'static [&'static str],
}

/// An entry with names and scope only; [`Builtin::print`] and [`Builtin::template`] add the rest.
const fn k(
    group: &'static str,
    version: &'static str,
    kind: &'static str,
    plural: &'static str,
    short_names: &'static [&'static str],
    namespaced: bool,
    categories: &'static [&'static str],
) -> Builtin {
    Builtin {
        group,
        version,
        kind,
        plural,
        short_names,
        namespaced,
        categories,
        printer: None,
        pod_template: None,
        legacy_groups: &[],
    }
}

impl Builtin {
    const fn print(self, printer: &'static Printer) -> Builtin {
        Builtin {
            printer: Some(printer),
            ..self
        }
    }

    const fn template(self, path: &'static str) -> Builtin {
        Builtin {
            pod_template: Some(path),
            ..self
        }
    }

    const fn legacy(self, groups: &'static [&'static str]) -> Builtin {
        Builtin {
            legacy_groups: groups,
            ..self
        }
    }
}

const N: bool = true;
const C: bool = false;
const ALL: &[&str] = &["all"];
/// `extensions/v1beta1` served these until Kubernetes 1.16 (1.22 for Ingress), as the same
/// stored objects as their new group.
const EXT: &[&str] = &["extensions"];

#[rustfmt::skip]
pub(super) static BUILTIN: &[Builtin] = &[
    // core
    k("", "v1", "Binding", "bindings", &[], N, &[]),
    k("", "v1", "ComponentStatus", "componentstatuses", &["cs"], C, &[]),
    k("", "v1", "ConfigMap", "configmaps", &["cm"], N, &[])
        .print(&columns::CONFIG_MAP),
    k("", "v1", "Endpoints", "endpoints", &["ep"], N, &[]),
    k("", "v1", "Event", "events", &["ev"], N, &[]),
    k("", "v1", "LimitRange", "limitranges", &["limits"], N, &[]),
    k("", "v1", "Namespace", "namespaces", &["ns"], C, &[])
        .print(&columns::NAMESPACE),
    k("", "v1", "Node", "nodes", &["no"], C, &[])
        .print(&columns::NODE),
    k("", "v1", "PersistentVolumeClaim", "persistentvolumeclaims", &["pvc"], N, &[])
        .print(&columns::PERSISTENT_VOLUME_CLAIM),
    k("", "v1", "PersistentVolume", "persistentvolumes", &["pv"], C, &[])
        .print(&columns::PERSISTENT_VOLUME),
    k("", "v1", "Pod", "pods", &["po"], N, ALL)
        .print(&columns::POD),
    k("", "v1", "PodTemplate", "podtemplates", &[], N, &[]),
    k("", "v1", "ReplicationController", "replicationcontrollers", &["rc"], N, ALL)
        .print(&columns::REPLICATION_CONTROLLER).template("spec.template"),
    k("", "v1", "ResourceQuota", "resourcequotas", &["quota"], N, &[]),
    k("", "v1", "Secret", "secrets", &[], N, &[])
        .print(&columns::SECRET),
    k("", "v1", "ServiceAccount", "serviceaccounts", &["sa"], N, &[])
        .print(&columns::SERVICE_ACCOUNT),
    k("", "v1", "Service", "services", &["svc"], N, ALL)
        .print(&columns::SERVICE),
    // admissionregistration.k8s.io
    k("admissionregistration.k8s.io", "v1", "MutatingWebhookConfiguration", "mutatingwebhookconfigurations", &[], C, &[]),
    k("admissionregistration.k8s.io", "v1", "ValidatingWebhookConfiguration", "validatingwebhookconfigurations", &[], C, &[]),
    k("admissionregistration.k8s.io", "v1", "ValidatingAdmissionPolicy", "validatingadmissionpolicies", &[], C, &[]),
    k("admissionregistration.k8s.io", "v1", "ValidatingAdmissionPolicyBinding", "validatingadmissionpolicybindings", &[], C, &[]),
    k("admissionregistration.k8s.io", "v1beta1", "MutatingAdmissionPolicy", "mutatingadmissionpolicies", &[], C, &[]),
    k("admissionregistration.k8s.io", "v1beta1", "MutatingAdmissionPolicyBinding", "mutatingadmissionpolicybindings", &[], C, &[]),
    // apiextensions / apiregistration
    k("apiextensions.k8s.io", "v1", "CustomResourceDefinition", "customresourcedefinitions", &["crd", "crds"], C, &[])
        .print(&columns::CUSTOM_RESOURCE_DEFINITION),
    k("apiregistration.k8s.io", "v1", "APIService", "apiservices", &[], C, &[]),
    // apps
    k("apps", "v1", "ControllerRevision", "controllerrevisions", &[], N, &[]),
    k("apps", "v1", "DaemonSet", "daemonsets", &["ds"], N, ALL)
        .print(&columns::DAEMON_SET).template("spec.template").legacy(EXT),
    k("apps", "v1", "Deployment", "deployments", &["deploy"], N, ALL)
        .print(&columns::DEPLOYMENT).template("spec.template").legacy(EXT),
    k("apps", "v1", "ReplicaSet", "replicasets", &["rs"], N, ALL)
        .print(&columns::REPLICA_SET).template("spec.template").legacy(EXT),
    k("apps", "v1", "StatefulSet", "statefulsets", &["sts"], N, ALL)
        .print(&columns::STATEFUL_SET).template("spec.template"),
    // authentication / authorization
    k("authentication.k8s.io", "v1", "SelfSubjectReview", "selfsubjectreviews", &[], C, &[]),
    k("authentication.k8s.io", "v1", "TokenReview", "tokenreviews", &[], C, &[]),
    k("authorization.k8s.io", "v1", "LocalSubjectAccessReview", "localsubjectaccessreviews", &[], N, &[]),
    k("authorization.k8s.io", "v1", "SelfSubjectAccessReview", "selfsubjectaccessreviews", &[], C, &[]),
    k("authorization.k8s.io", "v1", "SelfSubjectRulesReview", "selfsubjectrulesreviews", &[], C, &[]),
    k("authorization.k8s.io", "v1", "SubjectAccessReview", "subjectaccessreviews", &[], C, &[]),
    // autoscaling / batch
    k("autoscaling", "v2", "HorizontalPodAutoscaler", "horizontalpodautoscalers", &["hpa"], N, ALL)
        .print(&columns::HORIZONTAL_POD_AUTOSCALER),
    k("batch", "v1", "CronJob", "cronjobs", &["cj"], N, ALL)
        .print(&columns::CRON_JOB).template("spec.jobTemplate.spec.template"),
    k("batch", "v1", "Job", "jobs", &[], N, ALL)
        .print(&columns::JOB).template("spec.template"),
    // certificates / coordination / discovery / events
    k("certificates.k8s.io", "v1", "CertificateSigningRequest", "certificatesigningrequests", &["csr"], C, &[]),
    k("certificates.k8s.io", "v1beta1", "ClusterTrustBundle", "clustertrustbundles", &[], C, &[]),
    k("coordination.k8s.io", "v1", "Lease", "leases", &[], N, &[]),
    k("coordination.k8s.io", "v1beta1", "LeaseCandidate", "leasecandidates", &[], N, &[]),
    k("discovery.k8s.io", "v1", "EndpointSlice", "endpointslices", &[], N, &[]),
    k("events.k8s.io", "v1", "Event", "events", &["ev"], N, &[]),
    // flowcontrol / networking / node / policy
    k("flowcontrol.apiserver.k8s.io", "v1", "FlowSchema", "flowschemas", &[], C, &[]),
    k("flowcontrol.apiserver.k8s.io", "v1", "PriorityLevelConfiguration", "prioritylevelconfigurations", &[], C, &[]),
    k("networking.k8s.io", "v1", "IngressClass", "ingressclasses", &[], C, &[]),
    k("networking.k8s.io", "v1", "Ingress", "ingresses", &["ing"], N, &[])
        .print(&columns::INGRESS).legacy(EXT),
    k("networking.k8s.io", "v1", "NetworkPolicy", "networkpolicies", &["netpol"], N, &[])
        .print(&columns::NETWORK_POLICY).legacy(EXT),
    k("networking.k8s.io", "v1", "IPAddress", "ipaddresses", &["ip"], C, &[]),
    k("networking.k8s.io", "v1", "ServiceCIDR", "servicecidrs", &[], C, &[]),
    k("node.k8s.io", "v1", "RuntimeClass", "runtimeclasses", &[], C, &[]),
    k("policy", "v1", "PodDisruptionBudget", "poddisruptionbudgets", &["pdb"], N, &[])
        .print(&columns::POD_DISRUPTION_BUDGET),
    // rbac
    k("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding", "clusterrolebindings", &[], C, &[]),
    k("rbac.authorization.k8s.io", "v1", "ClusterRole", "clusterroles", &[], C, &[]),
    k("rbac.authorization.k8s.io", "v1", "RoleBinding", "rolebindings", &[], N, &[]),
    k("rbac.authorization.k8s.io", "v1", "Role", "roles", &[], N, &[]),
    // resource (DRA)
    k("resource.k8s.io", "v1", "DeviceClass", "deviceclasses", &[], C, &[]),
    k("resource.k8s.io", "v1", "ResourceClaim", "resourceclaims", &[], N, &[]),
    k("resource.k8s.io", "v1", "ResourceClaimTemplate", "resourceclaimtemplates", &[], N, &[]),
    k("resource.k8s.io", "v1", "ResourceSlice", "resourceslices", &[], C, &[]),
    // scheduling / storage
    k("scheduling.k8s.io", "v1", "PriorityClass", "priorityclasses", &["pc"], C, &[]),
    k("storage.k8s.io", "v1", "CSIDriver", "csidrivers", &[], C, &[]),
    k("storage.k8s.io", "v1", "CSINode", "csinodes", &[], C, &[]),
    k("storage.k8s.io", "v1", "CSIStorageCapacity", "csistoragecapacities", &[], N, &[]),
    k("storage.k8s.io", "v1", "StorageClass", "storageclasses", &["sc"], C, &[])
        .print(&columns::STORAGE_CLASS),
    k("storage.k8s.io", "v1", "VolumeAttachment", "volumeattachments", &[], C, &[]),
    k("storage.k8s.io", "v1", "VolumeAttributesClass", "volumeattributesclasses", &["vac"], C, &[]),
    k("storagemigration.k8s.io", "v1alpha1", "StorageVersionMigration", "storageversionmigrations", &[], C, &[]),
    k("internal.apiserver.k8s.io", "v1alpha1", "StorageVersion", "storageversions", &[], C, &[]),
    // kinds removed from the API server, still found in old manifests
    k("policy", "v1beta1", "PodSecurityPolicy", "podsecuritypolicies", &["psp"], C, &[])
        .legacy(EXT),
    k("settings.k8s.io", "v1alpha1", "PodPreset", "podpresets", &[], N, &[]),
    k("metrics.k8s.io", "v1beta1", "NodeMetrics", "nodes", &[], C, &[]),
    k("metrics.k8s.io", "v1beta1", "PodMetrics", "pods", &[], N, &[]),
];

/// The built-in kinds by (group, kind), under their legacy groups too.
static BY_GROUP_KIND: LazyLock<HashMap<(&'static str, &'static str), &'static Builtin>> =
    LazyLock::new(|| {
        BUILTIN
            .iter()
            .flat_map(|b| {
                let legacy = b.legacy_groups.iter().map(move |g| ((*g, b.kind), b));
                std::iter::once(((b.group, b.kind), b)).chain(legacy)
            })
            .collect()
    });

/// The built-in kind with this group (or one of its legacy groups) and exact kind name.
pub fn builtin(group: &str, kind: &str) -> Option<&'static Builtin> {
    BY_GROUP_KIND.get(&(group, kind)).copied()
}

/// The group that identifies objects of `kind` written under `group`: the current group
/// for a legacy one (`extensions` Deployment → `apps`), else `group` itself.
pub fn canonical_group<'a>(group: &'a str, kind: &str) -> &'a str {
    // Almost every object is in no legacy group: a look at a one-entry list, no hashing.
    if !LEGACY_GROUPS.contains(&group) {
        return group;
    }
    builtin(group, kind).map_or(group, |b| b.group)
}

/// Every legacy group of the table, once.
static LEGACY_GROUPS: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
    let mut groups: Vec<&'static str> = BUILTIN
        .iter()
        .flat_map(|b| b.legacy_groups.iter().copied())
        .collect();
    groups.sort_unstable();
    groups.dedup();
    groups
});

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::kinds::testutil::Manifest;
    use crate::kinds::{cells, headers, status};

    #[test]
    fn group_and_kind_name_one_entry() {
        let mut seen = std::collections::HashSet::new();
        for b in BUILTIN {
            assert!(
                seen.insert((b.group, b.kind)),
                "{}/{} twice",
                b.group,
                b.kind
            );
            assert!(std::ptr::eq(builtin(b.group, b.kind).expect("found"), b));
        }
        // A legacy alias never hides an entry of its own.
        for b in BUILTIN {
            for g in b.legacy_groups {
                assert!(seen.insert((g, b.kind)), "{g}/{} twice", b.kind);
            }
        }
        assert!(builtin("example.com", "Widget").is_none());
    }

    #[test]
    fn a_legacy_group_names_the_same_kind_as_its_current_group() {
        for (group, kind, canonical) in [
            ("extensions", "Deployment", "apps"),
            ("extensions", "DaemonSet", "apps"),
            ("extensions", "ReplicaSet", "apps"),
            ("extensions", "Ingress", "networking.k8s.io"),
            ("extensions", "NetworkPolicy", "networking.k8s.io"),
            ("extensions", "PodSecurityPolicy", "policy"),
            // Already current, or never moved.
            ("apps", "Deployment", "apps"),
            ("policy", "PodDisruptionBudget", "policy"),
            ("extensions", "Widget", "extensions"),
            ("example.com", "Deployment", "example.com"),
        ] {
            assert_eq!(canonical_group(group, kind), canonical, "{group}/{kind}");
            if canonical != group {
                let b = builtin(group, kind).expect("legacy alias");
                assert!(std::ptr::eq(b, builtin(canonical, kind).expect("current")));
            }
        }
        assert_eq!(*LEGACY_GROUPS, ["extensions"]);
    }

    /// One object of a kind, bare or with every field the printers read.
    fn manifest(b: &Builtin, full: bool) -> Manifest {
        let api_version = if b.group.is_empty() {
            b.version.to_owned()
        } else {
            format!("{}/{}", b.group, b.version)
        };
        let mut v = json!({"apiVersion": api_version, "kind": b.kind,
            "metadata": {"name": "x", "namespace": "ns"}});
        if full {
            let template = json!({"metadata": {"labels": {"app": "x"}},
                "spec": {"containers": [{"name": "c", "image": "i"}]}});
            v["metadata"]["creationTimestamp"] = json!("2026-01-01T00:00:00Z");
            v["metadata"]["labels"] = json!({"node-role.kubernetes.io/worker": ""});
            v["spec"] = json!({"replicas": 3, "selector": {"matchLabels": {"app": "x"}},
                "template": template, "jobTemplate": {"spec": {"template": template}},
                "containers": [{"name": "c"}], "ports": [{"port": 80, "nodePort": 30080}],
                "rules": [{"host": "h"}], "tls": [{}], "metrics": [{"resource": {"name": "cpu"}}],
                "podSelector": {}, "claimRef": {"namespace": "ns", "name": "c"}});
            v["status"] = json!({"phase": "Running", "readyReplicas": 2, "replicas": 3,
                "conditions": [{"type": "Ready", "status": "True"}],
                "containerStatuses": [{"name": "c", "ready": true, "state": {"running": {}}}],
                "startTime": "2026-01-01T00:00:00Z"});
        }
        Manifest::new(v)
    }

    #[test]
    fn every_printer_has_one_cell_per_header() {
        let now = crate::print::age::parse_time("2026-01-02T00:00:00Z").expect("valid");
        let printed = BUILTIN.iter().filter(|b| b.printer.is_some());
        for b in printed {
            for full in [false, true] {
                let m = manifest(b, full);
                for wide in [false, true] {
                    let h = headers(b.group, b.kind, wide);
                    let c = cells(m.view(), wide, now);
                    assert_eq!(
                        h.len(),
                        c.len(),
                        "{} wide={wide} full={full}: {c:?}",
                        b.kind
                    );
                }
            }
        }
        let plain = BUILTIN.iter().find(|b| b.printer.is_none()).expect("one");
        assert_eq!(headers(plain.group, plain.kind, true), ["AGE"]);
    }

    #[test]
    fn workloads_that_print_containers_know_their_pod_template() {
        for b in BUILTIN {
            let p = b.printer.map_or(&[][..], |p| p.wide_headers);
            assert_eq!(
                p.contains(&"CONTAINERS"),
                b.pod_template.is_some(),
                "{}",
                b.kind
            );
        }
        assert_eq!(
            crate::kinds::pod_template("batch", "CronJob"),
            Some("spec.jobTemplate.spec.template")
        );
        assert_eq!(
            crate::kinds::pod_template("extensions", "Deployment"),
            Some("spec.template")
        );
    }

    #[test]
    fn a_kind_with_a_status_column_prints_its_status_there() {
        let now = crate::print::age::parse_time("2026-01-02T00:00:00Z").expect("valid");
        for b in BUILTIN
            .iter()
            .filter(|b| b.printer.is_some_and(|p| p.status.is_some()))
        {
            for full in [false, true] {
                let m = manifest(b, full);
                let h = headers(b.group, b.kind, false);
                let c = cells(m.view(), false, now);
                let col = |name: &str| h.iter().position(|x| *x == name).map(|i| c[i].clone());
                // READY of a ReplicaSet or DaemonSet is a count; DESIRED completes it.
                let shown = match (col("STATUS"), col("DESIRED"), col("READY")) {
                    (Some(s), _, _) => s,
                    (None, Some(d), Some(r)) => format!("{r}/{d}"),
                    (None, None, Some(r)) => r,
                    _ => panic!("{} has a status but no column for it", b.kind),
                };
                assert_eq!(status(m.view()), shown, "{} full={full}", b.kind);
            }
        }
    }
}
