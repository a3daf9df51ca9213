use serde_json::{json, Value};

use super::Site;
use crate::graph::{EdgeKind, Graph};
use crate::model::{test_inventory, Inventory};

/// (from, to, relationship) of every reference edge, objects as `Kind/namespace/name`.
fn edges(g: &Graph, inv: &Inventory) -> Vec<(String, String, &'static str)> {
    let mut out = Vec::new();
    for i in 0..inv.objects.len() {
        for e in g.uses(i) {
            if let EdgeKind::Ref { rel } = e.kind {
                out.push((name(inv, e.from_ix()), name(inv, e.to_ix()), rel.as_str()));
            }
        }
    }
    out
}

fn name(inv: &Inventory, i: usize) -> String {
    let o = &inv.objects[i];
    format!("{}/{}/{}", o.kind(), o.namespace(), o.name())
}

/// (code, message) of every reference finding.
fn findings(g: &Graph) -> Vec<(&'static str, String)> {
    g.findings()
        .iter()
        .filter(|f| super::is_ref_finding(f.code))
        .map(|f| (f.code, f.message.to_string()))
        .collect()
}

fn dangling(g: &Graph) -> Vec<(String, &'static str)> {
    g.dangling()
        .iter()
        .map(|d| (d.target.to_string(), d.rel.as_str()))
        .collect()
}

fn obj(api: &str, kind: &str, ns: &str, name: &str, rest: Value) -> Value {
    let mut v = json!({"apiVersion": api, "kind": kind, "metadata": {"name": name}});
    if !ns.is_empty() {
        v["metadata"]["namespace"] = json!(ns);
    }
    if let (Some(m), Some(r)) = (v.as_object_mut(), rest.as_object()) {
        for (k, x) in r {
            if k == "metadata" {
                for (mk, mv) in x.as_object().into_iter().flatten() {
                    m["metadata"][mk] = mv.clone();
                }
            } else {
                m.insert(k.clone(), x.clone());
            }
        }
    }
    v
}

fn cm(ns: &str, name: &str) -> Value {
    obj("v1", "ConfigMap", ns, name, json!({}))
}

fn secret(ns: &str, name: &str) -> Value {
    obj("v1", "Secret", ns, name, json!({}))
}

fn sa(ns: &str, name: &str) -> Value {
    obj("v1", "ServiceAccount", ns, name, json!({}))
}

fn s(from: &str, to: &str, rel: &'static str) -> (String, String, &'static str) {
    (from.to_string(), to.to_string(), rel)
}

#[test]
fn site_formats_steps_and_tails() {
    let pod = super::pod::template_site("spec.jobTemplate.spec.template");
    let site = pod
        .step("containers", 1)
        .step("envFrom", 0)
        .tail("secretRef");
    assert_eq!(
        site.to_string(),
        "spec.jobTemplate.spec.template.spec.containers[1].envFrom[0].secretRef"
    );
    assert_eq!(Site::at("").step("subjects", 2).to_string(), "subjects[2]");
    assert_eq!(Site::at("roleRef").to_string(), "roleRef");
}

#[test]
fn pod_template_references_every_source_and_skips_optional_ones() {
    let spec = json!({
    "serviceAccountName": "runner",
    "priorityClassName": "high",
    "runtimeClassName": "gvisor",
    "imagePullSecrets": [{"name": "pull"}],
    "initContainers": [{"name": "i", "envFrom": [{"secretRef": {"name": "init-env"}}]}],
    "containers": [{"name": "c",
        "envFrom": [{"configMapRef": {"name": "env-cm"}},
                    {"configMapRef": {"name": "maybe", "optional": true}}],
        "env": [{"name": "A", "valueFrom": {"configMapKeyRef": {"name": "env-cm", "key": "a"}}},
                {"name": "B", "valueFrom": {"secretKeyRef": {"name": "key-secret", "key": "b"}}},
                {"name": "C", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}]}],
    "volumes": [
        {"name": "v1", "configMap": {"name": "vol-cm"}},
        {"name": "v2", "secret": {"secretName": "vol-secret", "optional": true}},
        {"name": "v3", "persistentVolumeClaim": {"claimName": "data"}},
        {"name": "v4", "projected": {"sources": [{"configMap": {"name": "proj-cm"}},
                                                 {"secret": {"name": "proj-secret"}},
                                                 {"serviceAccountToken": {"path": "t"}}]}},
        {"name": "v5", "csi": {"driver": "x", "nodePublishSecretRef": {"name": "csi-secret"}}}
    ]});
    let inv = test_inventory(&[
        obj(
            "batch/v1",
            "CronJob",
            "ns",
            "job",
            json!({"spec": {"jobTemplate": {"spec": {"template": {"spec": spec}}}}}),
        ),
        cm("ns", "env-cm"),
        cm("ns", "vol-cm"),
        cm("ns", "proj-cm"),
        secret("ns", "key-secret"),
        secret("ns", "proj-secret"),
        obj("v1", "PersistentVolumeClaim", "ns", "data", json!({})),
        sa("ns", "runner"),
        cm("other", "env-cm"),
    ]);
    let g = Graph::build(&inv);
    let job = "CronJob/ns/job";
    assert_eq!(
        edges(&g, &inv),
        vec![
            s(job, "ConfigMap/ns/vol-cm", "volume"),
            s(job, "PersistentVolumeClaim/ns/data", "pvc"),
            s(job, "ConfigMap/ns/proj-cm", "volume"),
            s(job, "Secret/ns/proj-secret", "volume"),
            s(job, "ConfigMap/ns/env-cm", "envFrom"),
            s(job, "ConfigMap/ns/env-cm", "env"),
            s(job, "Secret/ns/key-secret", "env"),
            s(job, "ServiceAccount/ns/runner", "serviceAccount"),
        ]
    );
    assert_eq!(
        dangling(&g),
        vec![
            ("Secret/ns/vol-secret".to_string(), "volume"),
            ("Secret/ns/csi-secret".into(), "volume"),
            ("Secret/ns/init-env".into(), "envFrom"),
            ("ConfigMap/ns/maybe".into(), "envFrom"),
            ("Secret/ns/pull".into(), "imagePullSecret"),
            (
                "PriorityClass.scheduling.k8s.io/high".into(),
                "priorityClass"
            ),
            ("RuntimeClass.node.k8s.io/gvisor".into(), "runtimeClass"),
        ]
    );
    let base = "spec.jobTemplate.spec.template.spec";
    assert_eq!(
        findings(&g),
        vec![
            ("ref-missing", format!("{base}.priorityClassName: no PriorityClass with name high was found")),
            ("ref-missing", format!("{base}.imagePullSecrets[0]: secret \"pull\" not found")),
            ("ref-missing", format!("{base}.initContainers[0].envFrom[0].secretRef: secret \"init-env\" not found")),
            ("ref-missing", format!("{base}.volumes[4].csi: secret \"csi-secret\" not found")),
            ("ref-unused", "Used? Unable to locate resource reference: no object of the input uses this ConfigMap".into()),
        ]
    );
    // The unused one is the ConfigMap of the other namespace.
    let unused = g.findings().iter().find(|f| f.code == "ref-unused");
    assert_eq!(unused.and_then(|f| f.object_index()), Some(8));
}

#[test]
fn pods_default_to_the_default_service_account_which_is_never_missing() {
    let inv = test_inventory(&[
        obj("v1", "Pod", "a", "p", json!({"spec": {"containers": []}})),
        obj(
            "v1",
            "Pod",
            "a",
            "q",
            json!({"spec": {"serviceAccountName": "ghost"}}),
        ),
        sa("a", "default"),
    ]);
    let g = Graph::build(&inv);
    assert_eq!(
        edges(&g, &inv),
        vec![s("Pod/a/p", "ServiceAccount/a/default", "serviceAccount")]
    );
    assert_eq!(
        findings(&g),
        vec![(
            "ref-missing",
            "spec.serviceAccountName: error looking up service account a/ghost: serviceaccount \"ghost\" not found".to_string()
        )]
    );
}

#[test]
fn bindings_resolve_roles_and_subjects_with_rbac_namespace_rules() {
    let rbac = "rbac.authorization.k8s.io/v1";
    let inv = test_inventory(&[
        obj(
            rbac,
            "RoleBinding",
            "a",
            "rb",
            json!({
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "reader"},
            "subjects": [{"kind": "ServiceAccount", "name": "local"},
                         {"kind": "ServiceAccount", "name": "remote", "namespace": "b"},
                         {"kind": "User", "name": "alice"}]}),
        ),
        obj(
            rbac,
            "ClusterRoleBinding",
            "",
            "crb",
            json!({
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "ops"},
            "subjects": [{"kind": "ServiceAccount", "name": "local", "namespace": "a"}]}),
        ),
        obj(
            rbac,
            "ClusterRoleBinding",
            "",
            "builtin",
            json!({
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "system:auth-delegator"}}),
        ),
        obj(rbac, "Role", "b", "reader", json!({})),
        obj(rbac, "ClusterRole", "", "ops", json!({})),
        sa("a", "local"),
        sa("b", "remote"),
    ]);
    let g = Graph::build(&inv);
    assert_eq!(
        edges(&g, &inv),
        vec![
            s("RoleBinding/a/rb", "ServiceAccount/a/local", "subject"),
            s("RoleBinding/a/rb", "ServiceAccount/b/remote", "subject"),
            s("ClusterRoleBinding//crb", "ClusterRole//ops", "roleRef"),
            s(
                "ClusterRoleBinding//crb",
                "ServiceAccount/a/local",
                "subject"
            ),
        ]
    );
    // The Role of namespace b does not satisfy a RoleBinding of namespace a.
    assert_eq!(
        findings(&g),
        vec![(
            "ref-missing",
            "roleRef: role.rbac.authorization.k8s.io \"reader\" not found".to_string()
        ),]
    );
}

#[test]
fn ingress_backends_check_the_service_port_by_number_and_name() {
    let svc = obj(
        "v1",
        "Service",
        "a",
        "web",
        json!({"spec": {"ports": [{"name": "http", "port": 80}]}}),
    );
    let backend = |name: &str, port: Value| json!({"service": {"name": name, "port": port}});
    let inv = test_inventory(&[
        obj(
            "networking.k8s.io/v1",
            "Ingress",
            "a",
            "ing",
            json!({"spec": {
            "ingressClassName": "nginx",
            "defaultBackend": backend("web", json!({"name": "http"})),
            "tls": [{"secretName": "cert"}],
            "rules": [{"http": {"paths": [
                {"path": "/", "backend": backend("web", json!({"number": 80}))},
                {"path": "/x", "backend": backend("web", json!({"number": 8080}))},
                {"path": "/y", "backend": backend("web", json!({"name": "grpc"}))},
                {"path": "/z", "backend": backend("gone", json!({"number": 80}))}]}}]}}),
        ),
        svc,
        secret("a", "cert"),
    ]);
    let g = Graph::build(&inv);
    assert_eq!(
        edges(&g, &inv),
        vec![
            s("Ingress/a/ing", "Service/a/web", "backend"),
            s("Ingress/a/ing", "Secret/a/cert", "tls"),
        ]
    );
    assert_eq!(
        findings(&g),
        vec![
            ("ref-missing", "spec.rules[0].http.paths[3].backend: service \"gone\" not found".to_string()),
            ("ref-port-missing", "spec.rules[0].http.paths[1].backend: could not find port \"8080\" in service \"a/web\"".into()),
            ("ref-port-missing", "spec.rules[0].http.paths[2].backend: could not find port \"grpc\" in service \"a/web\"".into()),
        ]
    );
    assert!(dangling(&g).contains(&(
        "IngressClass.networking.k8s.io/nginx".to_string(),
        "ingressClass"
    )));
}

#[test]
fn gateway_routes_webhooks_and_api_services_name_their_namespaces() {
    let gw = "gateway.networking.k8s.io/v1";
    let svc443 = obj(
        "v1",
        "Service",
        "hooks",
        "hook",
        json!({"spec": {"ports": [{"port": 8443}]}}),
    );
    let inv = test_inventory(&[
        obj(
            gw,
            "HTTPRoute",
            "a",
            "route",
            json!({"spec": {
            "parentRefs": [{"name": "edge", "namespace": "infra"}],
            "rules": [{"backendRefs": [{"name": "web", "port": 80}, {"name": "web", "port": 81}]}]}}),
        ),
        obj(
            gw,
            "Gateway",
            "infra",
            "edge",
            json!({"spec": {"gatewayClassName": "eg"}}),
        ),
        obj(
            "v1",
            "Service",
            "a",
            "web",
            json!({"spec": {"ports": [{"port": 80}]}}),
        ),
        obj(
            "admissionregistration.k8s.io/v1",
            "ValidatingWebhookConfiguration",
            "",
            "vwc",
            json!({
            "webhooks": [{"name": "x", "clientConfig": {"service": {"namespace": "hooks", "name": "hook"}}}]}),
        ),
        svc443,
        obj(
            "apiregistration.k8s.io/v1",
            "APIService",
            "",
            "v1beta1.metrics.k8s.io",
            json!({
            "spec": {"service": {"namespace": "kube-system", "name": "metrics-server"}}}),
        ),
    ]);
    let g = Graph::build(&inv);
    assert_eq!(
        edges(&g, &inv),
        vec![
            s("HTTPRoute/a/route", "Gateway/infra/edge", "parentRef"),
            s("HTTPRoute/a/route", "Service/a/web", "backendRef"),
            s(
                "ValidatingWebhookConfiguration//vwc",
                "Service/hooks/hook",
                "service"
            ),
        ]
    );
    assert_eq!(
        findings(&g),
        vec![
            ("ref-port-missing", "spec.rules[0].backendRefs[1]: could not find port \"81\" in service \"a/web\"".to_string()),
            ("ref-port-missing", "webhooks[0].clientConfig.service: could not find port \"443\" in service \"hooks/hook\"".into()),
            ("ref-missing", "spec.service: service/metrics-server in \"kube-system\" is not present".into()),
        ]
    );
}

#[test]
fn selections_link_endpoint_slices_aggregated_roles_and_claim_templates() {
    let rbac = "rbac.authorization.k8s.io/v1";
    let slice = |name: &str, svc: &str| {
        obj(
            "discovery.k8s.io/v1",
            "EndpointSlice",
            "a",
            name,
            json!({"metadata": {"labels": {"kubernetes.io/service-name": svc}}}),
        )
    };
    let pvc = |name: &str| obj("v1", "PersistentVolumeClaim", "a", name, json!({}));
    let inv = test_inventory(&[
        obj("v1", "Service", "a", "web", json!({})),
        slice("web-abc", "web"),
        slice("other-abc", "other"),
        obj(
            rbac,
            "ClusterRole",
            "",
            "monitoring",
            json!({"aggregationRule": {"clusterRoleSelectors": [
            {"matchLabels": {"rbac.example.com/aggregate-to-monitoring": "true"}}]}}),
        ),
        obj(
            rbac,
            "ClusterRole",
            "",
            "monitoring-extra",
            json!({"metadata": {"labels": {"rbac.example.com/aggregate-to-monitoring": "true"}}}),
        ),
        obj(
            "apps/v1",
            "StatefulSet",
            "a",
            "db",
            json!({"spec": {"replicas": 2,
            "volumeClaimTemplates": [{"metadata": {"name": "data"}}],
            "template": {"spec": {"serviceAccountName": "default"}}}}),
        ),
        pvc("data-db-0"),
        pvc("data-db-1"),
        pvc("data-db-2"),
    ]);
    let g = Graph::build(&inv);
    assert_eq!(
        edges(&g, &inv),
        vec![
            s("Service/a/web", "EndpointSlice/a/web-abc", "endpointSlice"),
            s(
                "ClusterRole//monitoring",
                "ClusterRole//monitoring-extra",
                "aggregation"
            ),
            s(
                "StatefulSet/a/db",
                "PersistentVolumeClaim/a/data-db-0",
                "volumeClaimTemplate"
            ),
            s(
                "StatefulSet/a/db",
                "PersistentVolumeClaim/a/data-db-1",
                "volumeClaimTemplate"
            ),
        ]
    );
    assert!(findings(&g).is_empty(), "{:?}", findings(&g));
}

#[test]
fn volumes_claims_and_events_follow_their_fields_namespaces() {
    let inv = test_inventory(&[
        obj(
            "v1",
            "PersistentVolume",
            "",
            "pv-1",
            json!({"spec": {"storageClassName": "fast",
            "claimRef": {"namespace": "a", "name": "data"},
            "csi": {"driver": "d", "nodeStageSecretRef": {"namespace": "csi", "name": "creds"}}}}),
        ),
        obj(
            "v1",
            "PersistentVolumeClaim",
            "a",
            "data",
            json!({"spec": {"volumeName": "pv-1", "storageClassName": "fast"}}),
        ),
        obj("storage.k8s.io/v1", "StorageClass", "", "fast", json!({})),
        secret("csi", "creds"),
        obj("v1", "Node", "", "n1", json!({})),
        obj(
            "v1",
            "Event",
            "a",
            "e1",
            json!({"involvedObject": {"kind": "Node", "name": "n1", "namespace": "a"}}),
        ),
        obj(
            "v1",
            "Event",
            "a",
            "e2",
            json!({"involvedObject": {"kind": "Pod", "name": "gone"}}),
        ),
    ]);
    let g = Graph::build(&inv);
    assert_eq!(
        edges(&g, &inv),
        vec![
            s(
                "PersistentVolume//pv-1",
                "StorageClass//fast",
                "storageClass"
            ),
            s(
                "PersistentVolume//pv-1",
                "PersistentVolumeClaim/a/data",
                "claimRef"
            ),
            s("PersistentVolume//pv-1", "Secret/csi/creds", "secret"),
            s(
                "PersistentVolumeClaim/a/data",
                "PersistentVolume//pv-1",
                "volumeName"
            ),
            s(
                "PersistentVolumeClaim/a/data",
                "StorageClass//fast",
                "storageClass"
            ),
            s("Event/a/e1", "Node//n1", "involvedObject"),
        ]
    );
    assert!(findings(&g).is_empty(), "{:?}", findings(&g));
}

#[test]
fn unused_notes_spare_well_known_and_operator_named_objects() {
    let inv = test_inventory(&[
        cm("a", "kube-root-ca.crt"),
        sa("a", "default"),
        obj(
            "v1",
            "Secret",
            "a",
            "token",
            json!({"type": "kubernetes.io/service-account-token"}),
        ),
        obj(
            "v1",
            "Secret",
            "a",
            "sh.helm.release.v1.x.v1",
            json!({"type": "helm.sh/release.v1"}),
        ),
        sa("a", "prometheus"),
        obj(
            "monitoring.coreos.com/v1",
            "Prometheus",
            "a",
            "k8s",
            json!({"spec": {"serviceAccountName": "prometheus"}}),
        ),
        cm("a", "lonely"),
        sa("b", "prometheus"),
        cm("a", "controller-config"),
        obj(
            "apps/v1",
            "Deployment",
            "a",
            "ctl",
            json!({"spec": {"template": {"spec": {"containers": [
            {"name": "c", "args": ["--configmap=$(POD_NAMESPACE)/controller-config"]}]}}}}),
        ),
    ]);
    let g = Graph::build(&inv);
    let unused: Vec<String> = g
        .findings()
        .iter()
        .filter(|f| f.code == "ref-unused")
        .filter_map(|f| f.object_index())
        .map(|i| name(&inv, i))
        .collect();
    assert_eq!(
        unused,
        vec!["ConfigMap/a/lonely", "ServiceAccount/b/prometheus"]
    );
}

#[test]
fn a_named_target_port_must_be_declared_by_the_selected_templates() {
    let inv = test_inventory(&[
        obj(
            "v1",
            "Service",
            "a",
            "web",
            json!({"spec": {"selector": {"app": "web"}, "ports": [
            {"port": 80, "targetPort": "http"}, {"port": 81, "targetPort": "admin"},
            {"port": 82, "targetPort": 8080}, {"port": 83, "targetPort": "sidecar"}]}}),
        ),
        obj(
            "apps/v1",
            "Deployment",
            "a",
            "web",
            json!({"spec": {
            "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}}, "spec": {
                "initContainers": [{"name": "s", "restartPolicy": "Always", "ports": [{"name": "sidecar", "containerPort": 9}]}],
                "containers": [{"name": "c", "ports": [{"name": "http", "containerPort": 8080}]}]}}}}),
        ),
    ]);
    let g = Graph::build(&inv);
    assert_eq!(
        findings(&g),
        vec![(
            "ref-target-port-undeclared",
            "spec.ports[1].targetPort: no container of Deployment.apps/a/web declares a port named \"admin\"".to_string()
        )]
    );
}

#[test]
fn relationships_name_every_edge_between_two_objects() {
    let inv = test_inventory(&[
        obj(
            "v1",
            "Pod",
            "a",
            "p",
            json!({"spec": {
            "containers": [{"name": "c", "envFrom": [{"configMapRef": {"name": "cfg"}}]}],
            "volumes": [{"name": "v", "configMap": {"name": "cfg"}}]}}),
        ),
        cm("a", "cfg"),
    ]);
    let g = Graph::build(&inv);
    assert_eq!(
        g.relationships(0, 1, true, true, true),
        vec!["volume", "envFrom"]
    );
    assert!(g.relationships(0, 1, true, true, false).is_empty());
    assert_eq!(g.used_by(1).len(), 2);
    assert_eq!(g.dangling_of(0).len(), 1);
    assert!(g.dangling_of(1).is_empty());
}

#[test]
fn claim_template_volumes_storage_class_secrets_and_duplicates() {
    let inv = test_inventory(&[
        obj(
            "apps/v1",
            "StatefulSet",
            "a",
            "db",
            json!({"spec": {"replicas": 1,
            "volumeClaimTemplates": [{"metadata": {"name": "data"}}],
            "template": {"spec": {"serviceAccountName": "db", "volumes": [
                {"name": "data", "persistentVolumeClaim": {"claimName": "data"}},
                {"name": "scratch", "persistentVolumeClaim": {"claimName": "scratch"}}]}}}}),
        ),
        obj(
            "storage.k8s.io/v1",
            "StorageClass",
            "",
            "ceph",
            json!({"parameters": {
            "adminSecretName": "ceph-admin", "adminSecretNamespace": "kube-system",
            "csi.storage.k8s.io/provisioner-secret-name": "csi-prov", "pool": "kube"}}),
        ),
        secret("kube-system", "ceph-admin"),
        sa("a", "db"),
        sa("a", "db"),
        obj(
            "gateway.networking.k8s.io/v1",
            "HTTPRoute",
            "",
            "r",
            json!({"spec": {
            "rules": [{"backendRefs": [{"name": "web", "port": 80}]}]}}),
        ),
        obj(
            "v1",
            "Service",
            "default",
            "web",
            json!({"spec": {"ports": [{"port": 80}]}}),
        ),
    ]);
    let g = Graph::build(&inv);
    assert_eq!(
        edges(&g, &inv),
        vec![
            s("StatefulSet/a/db", "ServiceAccount/a/db", "serviceAccount"),
            s(
                "StorageClass//ceph",
                "Secret/kube-system/ceph-admin",
                "secret"
            ),
            s("HTTPRoute//r", "Service/default/web", "backendRef"),
        ]
    );
    // The volume named like the claim template is the controller's claim; the other one
    // names a PVC of its own. The copy of the ServiceAccount counts as used.
    assert_eq!(
        findings(&g),
        vec![
            ("ref-missing", "spec.template.spec.volumes[1].persistentVolumeClaim: persistentvolumeclaim \"scratch\" not found".to_string()),
            ("ref-missing", "parameters: secret \"default/csi-prov\" not found".into()),
        ]
    );
}

#[test]
fn a_missing_reference_is_reported_at_the_controller_whose_template_holds_it() {
    let spec = json!({"serviceAccountName": "ghost"});
    let owned = |kind: &str, name: &str, owner_kind: &str, owner: &str| {
        obj(
            if kind == "Pod" { "v1" } else { "apps/v1" },
            kind,
            "a",
            name,
            json!({
            "metadata": {"ownerReferences": [{"apiVersion": "apps/v1", "kind": owner_kind,
                "name": owner, "uid": "u", "controller": true}]},
            "spec": if kind == "Pod" { spec.clone() } else { json!({"template": {"spec": spec.clone()}}) }}),
        )
    };
    let inv = test_inventory(&[
        obj(
            "apps/v1",
            "Deployment",
            "a",
            "web",
            json!({"spec": {"template": {"spec": spec.clone()}}}),
        ),
        owned("ReplicaSet", "web-1", "Deployment", "web"),
        owned("Pod", "web-1-x", "ReplicaSet", "web-1"),
        owned("Pod", "stray", "ReplicaSet", "gone"),
    ]);
    let g = Graph::build(&inv);
    let about: Vec<String> = g
        .findings()
        .iter()
        .filter(|f| f.code == "ref-missing")
        .filter_map(|f| f.object_index())
        .map(|i| name(&inv, i))
        .collect();
    // The Pod whose controller is not in the input reports for itself.
    assert_eq!(about, vec!["Deployment/a/web", "Pod/a/stray"]);
    assert_eq!(g.dangling().len(), 4);
}

/// Patches of reference-heavy inventories: files of objects in six namespaces that name
/// each other's ConfigMaps, Secrets and ServiceAccounts (in field references, in words of
/// container args, in custom resources, across namespaces from RoleBindings, from Events),
/// one or two files replaced.
mod patches {
    use proptest::prelude::*;
    use serde_json::{json, Value};

    use super::obj;
    use crate::graph::patch::replaced_files;
    use crate::graph::{Graph, PatchOutcome};
    use crate::model::testutil::test_inventory_files;
    use crate::model::Inventory;

    pub(super) struct Rng(pub(super) u64);

    impl Rng {
        pub(super) fn next(&mut self) -> u64 {
            // xorshift64*
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }
        pub(super) fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
        pub(super) fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
            from[self.below(from.len())]
        }
        pub(super) fn chance(&mut self, percent: u64) -> bool {
            self.next() % 100 < percent
        }
    }

    const NAMESPACES: &[&str] = &["n0", "n1", "n2", "n3", "n4", "n5"];
    const NAMES: &[&str] = &["a", "b", "c", "default"];

    fn pod_spec(rng: &mut Rng) -> Value {
        let mut spec = json!({"containers": [{"name": "c",
            "ports": [{"name": rng.pick(&["http", "m"])}]}]});
        if rng.chance(60) {
            spec["serviceAccountName"] = rng.pick(NAMES).into();
        }
        if rng.chance(60) {
            spec["volumes"] = json!([{"name": "v", "configMap": {"name": rng.pick(NAMES),
                "optional": rng.chance(20)}}]);
        }
        if rng.chance(50) {
            spec["containers"][0]["envFrom"] = json!([{"secretRef": {"name": rng.pick(NAMES)}}]);
        }
        if rng.chance(25) {
            spec["containers"][0]["args"] = json!([format!("--config=$(NS)/{}", rng.pick(NAMES))]);
        }
        spec
    }

    fn object(rng: &mut Rng, ns: &str) -> Value {
        let name = rng.pick(NAMES);
        match rng.below(11) {
            0 | 1 => obj("v1", "ConfigMap", ns, name, json!({})),
            2 => {
                let token = rng.chance(20);
                let rest = if token {
                    json!({"type": "kubernetes.io/service-account-token"})
                } else {
                    json!({})
                };
                obj("v1", "Secret", ns, name, rest)
            }
            3 => obj("v1", "ServiceAccount", ns, name, json!({})),
            4 => obj(
                "v1",
                "Pod",
                ns,
                name,
                json!({"metadata": {"labels": {"app": "x"}},
                "spec": pod_spec(rng)}),
            ),
            5 => obj(
                "apps/v1",
                "Deployment",
                ns,
                name,
                json!({"spec": {
                "selector": {"matchLabels": {"app": "x"}},
                "template": {"metadata": {"labels": {"app": "x"}}, "spec": pod_spec(rng)}}}),
            ),
            6 => obj(
                "v1",
                "Service",
                ns,
                name,
                json!({"spec": {"selector": {"app": "x"},
                "ports": [{"port": 80, "targetPort": rng.pick(&["http", "m"])}]}}),
            ),
            7 => obj(
                "rbac.authorization.k8s.io/v1",
                "RoleBinding",
                ns,
                name,
                json!({
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role",
                    "name": rng.pick(NAMES)},
                "subjects": [{"kind": "ServiceAccount", "name": rng.pick(NAMES),
                    "namespace": rng.pick(NAMESPACES)}]}),
            ),
            8 => obj(
                "v1",
                "Event",
                ns,
                name,
                json!({"involvedObject": {"kind": "ConfigMap",
                "name": rng.pick(NAMES), "namespace": ns}}),
            ),
            9 => obj(
                "example.com/v1",
                "Widget",
                ns,
                name,
                json!({"spec": {"configName": rng.pick(NAMES)}}),
            ),
            _ => obj(
                "networking.k8s.io/v1",
                "Ingress",
                ns,
                name,
                json!({"spec": {"rules": [
                {"http": {"paths": [{"backend": {"service": {"name": rng.pick(NAMES),
                    "port": {"number": if rng.chance(50) { 80 } else { 81 }}}}}]}}]}}),
            ),
        }
    }

    /// A file of objects of one namespace (now and then of two).
    fn file(rng: &mut Rng) -> Vec<Value> {
        let ns = rng.pick(NAMESPACES);
        let other = rng.pick(NAMESPACES);
        (0..rng.below(7))
            .map(|_| {
                let ns = if rng.chance(10) { other } else { ns };
                object(rng, ns)
            })
            .collect()
    }

    pub(super) fn inventory(files: &[Vec<Value>]) -> Inventory {
        let names: Vec<String> = (0..files.len()).map(|f| format!("f{f}.yaml")).collect();
        let files: Vec<(&str, &[Value])> = names
            .iter()
            .zip(files)
            .map(|(n, d)| (n.as_str(), d.as_slice()))
            .collect();
        test_inventory_files(&files)
    }

    /// The unused notes of `g`, as (object, message).
    fn unused(g: &Graph, inv: &Inventory) -> Vec<String> {
        g.findings()
            .iter()
            .filter(|f| f.code == "ref-unused")
            .filter_map(|f| f.object_index())
            .map(|i| super::name(inv, i))
            .collect()
    }

    /// The outcome, the patched and the built graph, and whether the unused notes changed.
    fn patched_and_built(seed: u64) -> (PatchOutcome, Graph, Graph, bool) {
        let mut rng = Rng(seed | 1);
        let files: Vec<Vec<Value>> = (0..6 + rng.below(6)).map(|_| file(&mut rng)).collect();
        let before = inventory(&files);
        let mut after_files = files.clone();
        let mut changed: Vec<usize> = vec![rng.below(files.len())];
        if rng.chance(25) {
            changed.push(rng.below(files.len()));
        }
        changed.sort_unstable();
        changed.dedup();
        for &f in &changed {
            after_files[f] = if rng.chance(60) {
                let mut docs = files[f].clone();
                let ns = docs
                    .first()
                    .and_then(|d| d["metadata"]["namespace"].as_str())
                    .unwrap_or("n0")
                    .to_string();
                if !docs.is_empty() && rng.chance(50) {
                    docs.remove(rng.below(docs.len()));
                }
                if rng.chance(60) {
                    let at = rng.below(docs.len() + 1);
                    docs.insert(at, object(&mut rng, &ns));
                }
                docs
            } else {
                file(&mut rng)
            };
        }
        let after = inventory(&after_files);
        let replaced = replaced_files(&before, &files, &after_files, &changed);
        let old = Graph::build(&before);
        let flipped = unused(&old, &before) != unused(&Graph::build(&after), &after);
        let (patched, outcome) = old.patch(&after, &replaced);
        (outcome, patched, Graph::build(&after), flipped)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]
        #[test]
        fn a_reference_patch_equals_a_full_build(seed in any::<u64>()) {
            let (outcome, patched, built, _) = patched_and_built(seed);
            prop_assert_eq!(&patched, &built, "{:?}", outcome);
        }
    }

    /// The generator does what the property needs: most changes are patched, and many
    /// change the unused notes (a ConfigMap added or removed, a referrer added or removed).
    #[test]
    fn reference_patches_are_patched_and_flip_unused_notes() {
        let (mut patched, mut flips) = (0, 0);
        for seed in 0..300 {
            let (outcome, p, b, flipped) = patched_and_built(seed);
            assert_eq!(p, b, "seed {seed}: {outcome:?}");
            if matches!(outcome, PatchOutcome::Patched { .. }) {
                patched += 1;
                flips += usize::from(flipped);
            }
        }
        assert!(patched > 150, "{patched} of 300 patched");
        assert!(flips > 30, "{flips} patched changes flip an unused note");
    }
}

/// Changes of the objects other files' references name: a target renamed, removed, added
/// or edited (ports, labels) in one file, its referrers in other files and namespaces left
/// as they are. A patch that relinks too few referrers, or redoes too few unused notes,
/// differs from a build here.
mod target_changes {
    use proptest::prelude::*;
    use serde_json::{json, Value};

    use super::obj;
    use super::patches::{inventory, Rng};
    use crate::graph::patch::replaced_files;
    use crate::graph::{Graph, PatchOutcome};

    const NAMESPACES: &[&str] = &["n0", "n1", "n2"];
    const NAMES: &[&str] = &["a", "b", "default", "data-s-0", "data-s-1"];
    const RBAC: &str = "rbac.authorization.k8s.io/v1";

    /// An object other objects name or select.
    fn target(rng: &mut Rng) -> Value {
        let (ns, name) = (rng.pick(NAMESPACES), rng.pick(NAMES));
        match rng.below(10) {
            0 => obj("v1", "ConfigMap", ns, name, json!({})),
            1 => obj("v1", "Secret", ns, name, json!({})),
            2 => obj("v1", "ServiceAccount", ns, name, json!({})),
            3 => obj(
                "v1",
                "Service",
                ns,
                name,
                json!({"spec": {"selector": {"app": "x"},
                "ports": [{"port": rng.pick(&["80", "81"]).parse::<i64>().unwrap_or(80),
                    "targetPort": rng.pick(&["http", "m"])}]}}),
            ),
            4 => obj("v1", "PersistentVolumeClaim", ns, name, json!({})),
            5 => obj(
                RBAC,
                "ClusterRole",
                "",
                name,
                json!({"metadata": {"labels": {"agg": rng.pick(&["x", "y"])}}}),
            ),
            6 => obj(
                "discovery.k8s.io/v1",
                "EndpointSlice",
                ns,
                name,
                json!({"metadata": {"labels": {"kubernetes.io/service-name": rng.pick(NAMES)}}}),
            ),
            7 => obj(
                "apps/v1",
                "Deployment",
                ns,
                name,
                json!({"spec": {
                "selector": {"matchLabels": {"app": "x"}},
                "template": {"metadata": {"labels": {"app": "x"}},
                    "spec": {"containers": [{"name": "c", "ports": [{"name": "http"}]}]}}}}),
            ),
            8 => obj("v1", "Namespace", "", rng.pick(NAMESPACES), json!({})),
            _ => obj(
                "v1",
                "Pod",
                ns,
                name,
                json!({"metadata": {"labels": {"app": "x"}},
                "spec": {"containers": [{"name": "c", "ports": [{"name": rng.pick(&["http", "m"])}]}]}}),
            ),
        }
    }

    /// An object naming or selecting targets, in namespace `ns`.
    fn referrer(rng: &mut Rng, ns: &str) -> Value {
        let name = rng.pick(NAMES);
        let spec = json!({"serviceAccountName": rng.pick(NAMES),
            "volumes": [{"name": "v", "configMap": {"name": rng.pick(NAMES)}},
                {"name": "w", "persistentVolumeClaim": {"claimName": rng.pick(NAMES)}}],
            "containers": [{"name": "c", "envFrom": [{"secretRef": {"name": rng.pick(NAMES)}}],
                "args": [format!("--x={}", rng.pick(NAMES))]}]});
        let controller = json!([{"apiVersion": "apps/v1", "kind": "Deployment",
            "name": rng.pick(NAMES), "uid": "u", "controller": true}]);
        match rng.below(8) {
            0 => obj("v1", "Pod", ns, name, json!({"spec": spec})),
            1 => obj(
                "apps/v1",
                "ReplicaSet",
                ns,
                name,
                json!({
                "metadata": {"ownerReferences": controller},
                "spec": {"template": {"spec": spec}}}),
            ),
            2 => obj(
                RBAC,
                "RoleBinding",
                ns,
                name,
                json!({
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                    "name": rng.pick(NAMES)},
                "subjects": [{"kind": "ServiceAccount", "name": rng.pick(NAMES),
                    "namespace": rng.pick(NAMESPACES)}]}),
            ),
            3 => obj(
                "networking.k8s.io/v1",
                "Ingress",
                ns,
                name,
                json!({"spec": {"rules": [
                {"http": {"paths": [{"backend": {"service": {"name": rng.pick(NAMES),
                    "port": {"number": if rng.chance(50) { 80 } else { 81 }}}}}]}}]}}),
            ),
            4 => obj(
                "apps/v1",
                "StatefulSet",
                ns,
                "s",
                json!({"spec": {"replicas": 2,
                "volumeClaimTemplates": [{"metadata": {"name": "data"}}],
                "template": {"spec": {"containers": []}}}}),
            ),
            5 => obj(
                RBAC,
                "ClusterRole",
                "",
                name,
                json!({"aggregationRule":
                {"clusterRoleSelectors": [{"matchLabels": {"agg": rng.pick(&["x", "y"])}}]}}),
            ),
            6 => obj(
                "example.com/v1",
                "Widget",
                ns,
                name,
                json!({"spec": {"configName": rng.pick(NAMES)}}),
            ),
            _ => obj(
                "v1",
                "Event",
                ns,
                name,
                json!({"involvedObject": {"kind": "ConfigMap",
                "name": rng.pick(NAMES), "namespace": rng.pick(NAMESPACES)}}),
            ),
        }
    }

    /// One edit of the targets: one renamed, removed, added or replaced by another.
    fn edit_targets(rng: &mut Rng, docs: &mut Vec<Value>) {
        match rng.below(4) {
            0 if !docs.is_empty() => {
                let at = rng.below(docs.len());
                docs[at]["metadata"]["name"] = rng.pick(NAMES).into();
            }
            1 if !docs.is_empty() => {
                docs.remove(rng.below(docs.len()));
            }
            2 if !docs.is_empty() => {
                let at = rng.below(docs.len());
                docs[at] = target(rng);
            }
            _ => {
                let at = rng.below(docs.len() + 1);
                docs.insert(at, target(rng));
            }
        }
    }

    /// Targets in the first file (and now and then in a later one), referrers in the
    /// others; the change edits the targets only, or a referrer file too.
    fn patched_and_built(seed: u64) -> (PatchOutcome, Graph, Graph) {
        let mut rng = Rng(seed | 1);
        let mut files: Vec<Vec<Value>> =
            vec![(0..3 + rng.below(8)).map(|_| target(&mut rng)).collect()];
        for _ in 0..3 + rng.below(4) {
            let ns = rng.pick(NAMESPACES);
            let docs = (0..1 + rng.below(4))
                .map(|_| {
                    if rng.chance(20) {
                        target(&mut rng)
                    } else {
                        referrer(&mut rng, ns)
                    }
                })
                .collect();
            files.push(docs);
        }
        let before = inventory(&files);
        let mut after_files = files.clone();
        let mut changed = vec![0];
        for _ in 0..1 + rng.below(2) {
            edit_targets(&mut rng, &mut after_files[0]);
        }
        if rng.chance(20) {
            let f = 1 + rng.below(files.len() - 1);
            let ns = rng.pick(NAMESPACES);
            after_files[f] = vec![referrer(&mut rng, ns)];
            changed.push(f);
        }
        let after = inventory(&after_files);
        let replaced = replaced_files(&before, &files, &after_files, &changed);
        let (patched, outcome) = Graph::build(&before).patch(&after, &replaced);
        (outcome, patched, Graph::build(&after))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]
        #[test]
        fn a_target_change_patches_like_a_build(seed in any::<u64>()) {
            let (outcome, patched, built) = patched_and_built(seed);
            prop_assert!(matches!(outcome, PatchOutcome::Patched { .. }), "{:?}", outcome);
            prop_assert_eq!(&patched, &built, "{:?}", outcome);
        }
    }
}

/// Merging two sorted lists gives what sorting them together gives, whichever is longer,
/// with paths shared by runs of items or equal in separate copies.
#[test]
fn merged_findings_are_sorted_findings() {
    use std::path::Path;
    use std::sync::Arc;

    use crate::diagnostic::{Diagnostic, Severity};

    let paths: Vec<Arc<Path>> = ["a.yaml", "a/b.yaml", "a-b.yaml", "a.yaml"]
        .iter()
        .map(|p| Arc::from(Path::new(p)))
        .collect();
    let d = |k: u64| {
        let sev = [Severity::Note, Severity::Warning][(k % 2) as usize];
        Diagnostic::new(
            &paths[(k % 3) as usize],
            (k % 7) as u32,
            1,
            sev,
            "c",
            format!("{}", k % 5),
        )
    };
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for (la, lb) in [
        (0, 5),
        (5, 0),
        (40, 30),
        (300, 3),
        (2, 300),
        (1, 1),
        (64, 4),
    ] {
        let mut a: Vec<Diagnostic> = (0..la).map(|_| d(next())).collect();
        let mut b: Vec<Diagnostic> = (0..lb).map(|_| d(next())).collect();
        a.sort();
        b.sort();
        let mut expected = [a.clone(), b.clone()].concat();
        expected.sort();
        assert_eq!(super::merge(a, b), expected, "{la} + {lb}");
    }
}
