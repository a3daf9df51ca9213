//! The per-kind columns of `kubectl get` (cli's `pkg/printers/internalversion/printers.go`),
//! computed from the manifest as written: a Deployment in git has no status, so its READY
//! reads `0/1` exactly as kubectl would show it right after `apply`.

use crate::value::{RawArray, RawKind, RawRef};
use chrono::{DateTime, Utc};

use super::age::{parse_time, translate_timestamp_since};
use crate::model::Object;

/// Extra columns (after NAME) of one kind, and of its `-o wide` form.
pub fn headers(group: &str, kind: &str, wide: bool) -> Vec<&'static str> {
    let (base, extra): (&[&str], &[&str]) = match (group, kind) {
        ("", "Pod") => (
            &["READY", "STATUS", "RESTARTS", "AGE"],
            &["IP", "NODE", "NOMINATED NODE", "READINESS GATES"],
        ),
        ("apps", "Deployment") => (
            &["READY", "UP-TO-DATE", "AVAILABLE", "AGE"],
            &["CONTAINERS", "IMAGES", "SELECTOR"],
        ),
        ("apps", "ReplicaSet") | ("", "ReplicationController") => (
            &["DESIRED", "CURRENT", "READY", "AGE"],
            &["CONTAINERS", "IMAGES", "SELECTOR"],
        ),
        ("apps", "StatefulSet") => (&["READY", "AGE"], &["CONTAINERS", "IMAGES"]),
        ("apps", "DaemonSet") => (
            &[
                "DESIRED",
                "CURRENT",
                "READY",
                "UP-TO-DATE",
                "AVAILABLE",
                "NODE SELECTOR",
                "AGE",
            ],
            &["CONTAINERS", "IMAGES", "SELECTOR"],
        ),
        ("", "Service") => (
            &["TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE"],
            &["SELECTOR"],
        ),
        ("", "ConfigMap") => (&["DATA", "AGE"], &[]),
        ("", "Secret") => (&["TYPE", "DATA", "AGE"], &[]),
        ("", "Namespace") => (&["STATUS", "AGE"], &[]),
        ("", "Node") => (
            &["STATUS", "ROLES", "AGE", "VERSION"],
            &[
                "INTERNAL-IP",
                "EXTERNAL-IP",
                "OS-IMAGE",
                "KERNEL-VERSION",
                "CONTAINER-RUNTIME",
            ],
        ),
        ("batch", "Job") => (
            &["STATUS", "COMPLETIONS", "DURATION", "AGE"],
            &["CONTAINERS", "IMAGES", "SELECTOR"],
        ),
        ("batch", "CronJob") => (
            &[
                "SCHEDULE",
                "TIMEZONE",
                "SUSPEND",
                "ACTIVE",
                "LAST SCHEDULE",
                "AGE",
            ],
            &["CONTAINERS", "IMAGES", "SELECTOR"],
        ),
        ("", "PersistentVolume") => (
            &[
                "CAPACITY",
                "ACCESS MODES",
                "RECLAIM POLICY",
                "STATUS",
                "CLAIM",
                "STORAGECLASS",
                "VOLUMEATTRIBUTESCLASS",
                "REASON",
                "AGE",
            ],
            &["VOLUMEMODE"],
        ),
        ("", "PersistentVolumeClaim") => (
            &[
                "STATUS",
                "VOLUME",
                "CAPACITY",
                "ACCESS MODES",
                "STORAGECLASS",
                "VOLUMEATTRIBUTESCLASS",
                "AGE",
            ],
            &["VOLUMEMODE"],
        ),
        ("", "ServiceAccount") => (&["SECRETS", "AGE"], &[]),
        ("policy", "PodDisruptionBudget") => (
            &[
                "MIN AVAILABLE",
                "MAX UNAVAILABLE",
                "ALLOWED DISRUPTIONS",
                "AGE",
            ],
            &[],
        ),
        ("autoscaling", "HorizontalPodAutoscaler") => (
            &[
                "REFERENCE",
                "TARGETS",
                "MINPODS",
                "MAXPODS",
                "REPLICAS",
                "AGE",
            ],
            &[],
        ),
        ("networking.k8s.io", "NetworkPolicy") => (&["POD-SELECTOR", "AGE"], &[]),
        ("networking.k8s.io", "Ingress") => (&["CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE"], &[]),
        ("storage.k8s.io", "StorageClass") => (
            &[
                "PROVISIONER",
                "RECLAIMPOLICY",
                "VOLUMEBINDINGMODE",
                "ALLOWVOLUMEEXPANSION",
                "AGE",
            ],
            &[],
        ),
        ("apiextensions.k8s.io", "CustomResourceDefinition") => (&["CREATED AT"], &[]),
        _ => (&["AGE"], &[]),
    };
    let mut cols = base.to_vec();
    if wide {
        cols.extend_from_slice(extra);
    }
    cols
}

/// The cells matching [`headers`] for one object.
pub fn cells(obj: &Object, wide: bool, now: DateTime<Utc>) -> Vec<String> {
    let r = Row {
        v: obj.raw.view(),
        obj,
        now,
    };
    let group = &*obj.id.group;
    let mut out = match (group, obj.kind()) {
        ("", "Pod") => r.pod(wide),
        ("apps", "Deployment") => r.deployment(),
        ("apps", "ReplicaSet") | ("", "ReplicationController") => r.replica_set(),
        ("apps", "StatefulSet") => vec![r.ready_of("spec.replicas"), r.age()],
        ("apps", "DaemonSet") => r.daemon_set(),
        ("", "Service") => r.service(),
        ("", "ConfigMap") => vec![(r.len("data") + r.len("binaryData")).to_string(), r.age()],
        ("", "Secret") => vec![
            r.str_or("type", "Opaque"),
            r.len("data").to_string(),
            r.age(),
        ],
        ("", "Namespace") => vec![r.str_or("status.phase", "Active"), r.age()],
        ("", "Node") => r.node(),
        ("batch", "Job") => r.job(),
        ("batch", "CronJob") => r.cron_job(),
        ("", "PersistentVolume") => r.pv(),
        ("", "PersistentVolumeClaim") => r.pvc(),
        ("", "ServiceAccount") => vec![r.len("secrets").to_string(), r.age()],
        ("policy", "PodDisruptionBudget") => vec![
            r.int_or_string("spec.minAvailable"),
            r.int_or_string("spec.maxUnavailable"),
            r.int("status.disruptionsAllowed").to_string(),
            r.age(),
        ],
        ("autoscaling", "HorizontalPodAutoscaler") => r.hpa(),
        ("networking.k8s.io", "NetworkPolicy") => {
            vec![format_label_selector(r.get("spec.podSelector")), r.age()]
        }
        ("networking.k8s.io", "Ingress") => r.ingress(),
        ("storage.k8s.io", "StorageClass") => vec![
            r.str("provisioner"),
            r.str_or("reclaimPolicy", "Delete"),
            r.str_or("volumeBindingMode", "Immediate"),
            (r.get("allowVolumeExpansion").and_then(RawRef::as_bool) == Some(true)).to_string(),
            r.age(),
        ],
        ("apiextensions.k8s.io", "CustomResourceDefinition") => {
            vec![obj
                .creation_timestamp
                .as_deref()
                .unwrap_or("<unknown>")
                .to_owned()]
        }
        _ => vec![r.age()],
    };
    if wide {
        out.extend(r.wide_extra(group, obj.kind()));
    }
    out
}

/// Accessors over one object's JSON, with kubectl's defaults for absent fields.
struct Row<'a> {
    v: RawRef<'a>,
    obj: &'a Object,
    now: DateTime<Utc>,
}

fn at<'v>(v: RawRef<'v>, path: &str) -> Option<RawRef<'v>> {
    path.split('.').try_fold(v, |v, k| v.get(k))
}

fn int(v: Option<RawRef<'_>>) -> i64 {
    v.and_then(RawRef::as_i64).unwrap_or(0)
}

fn arr(v: Option<RawRef<'_>>) -> RawArray<'_> {
    v.and_then(RawRef::as_array).unwrap_or_default()
}

fn none_if_empty(s: String) -> String {
    if s.is_empty() {
        "<none>".to_owned()
    } else {
        s
    }
}

impl<'a> Row<'a> {
    fn get(&self, path: &str) -> Option<RawRef<'a>> {
        at(self.v, path)
    }

    fn int(&self, path: &str) -> i64 {
        int(self.get(path))
    }

    fn str(&self, path: &str) -> String {
        self.get(path)
            .and_then(RawRef::as_str)
            .unwrap_or("")
            .to_owned()
    }

    fn str_or(&self, path: &str, default: &str) -> String {
        match self.get(path).and_then(RawRef::as_str) {
            Some(s) if !s.is_empty() => s.to_owned(),
            _ => default.to_owned(),
        }
    }

    /// Number of entries of a map or list field.
    fn len(&self, path: &str) -> usize {
        match self.get(path).map(RawRef::kind) {
            Some(RawKind::Object(m)) => m.len(),
            Some(RawKind::Array(a)) => a.len(),
            _ => 0,
        }
    }

    fn age(&self) -> String {
        translate_timestamp_since(self.obj.creation_timestamp.as_deref(), self.now)
    }

    fn age_of(&self, path: &str) -> String {
        match self.get(path).and_then(RawRef::as_str) {
            Some(ts) => translate_timestamp_since(Some(ts), self.now),
            None => "<none>".to_owned(),
        }
    }

    /// `spec.replicas`, which the API server defaults to 1.
    fn replicas(&self, path: &str) -> i64 {
        self.get(path).and_then(RawRef::as_i64).unwrap_or(1)
    }

    fn ready_of(&self, replicas: &str) -> String {
        format!(
            "{}/{}",
            self.int("status.readyReplicas"),
            self.replicas(replicas)
        )
    }

    /// An IntOrString field, `N/A` when absent.
    fn int_or_string(&self, path: &str) -> String {
        match self.get(path).map(RawRef::kind) {
            Some(RawKind::Number(n)) => n.to_string(),
            Some(RawKind::String(s)) => s.to_owned(),
            _ => "N/A".to_owned(),
        }
    }

    fn hpa(&self) -> Vec<String> {
        let target = format!(
            "{}/{}",
            self.str("spec.scaleTargetRef.kind"),
            self.str("spec.scaleTargetRef.name")
        );
        let metrics = arr(self.get("spec.metrics"));
        let targets: Vec<String> = metrics
            .iter()
            .map(|m| {
                let res = m.get("resource");
                let name = res.and_then(|r| r.get("name")).and_then(RawRef::as_str);
                let util = res
                    .and_then(|r| at(r, "target.averageUtilization"))
                    .and_then(RawRef::as_i64);
                match (name, util) {
                    (Some(n), Some(u)) => format!("{n}: <unknown>/{u}%"),
                    _ => "<unknown>".to_owned(),
                }
            })
            .collect();
        vec![
            target,
            none_if_empty(targets.join(", ")),
            self.replicas("spec.minReplicas").to_string(),
            self.int("spec.maxReplicas").to_string(),
            self.int("status.currentReplicas").to_string(),
            self.age(),
        ]
    }

    fn ingress(&self) -> Vec<String> {
        let rules = arr(self.get("spec.rules"));
        let hosts: Vec<&str> = rules
            .iter()
            .filter_map(|r| r.get("host").and_then(RawRef::as_str))
            .collect();
        let hosts = if hosts.is_empty() {
            "*".to_owned()
        } else {
            hosts.join(",")
        };
        let ports = if self.len("spec.tls") > 0 {
            "80, 443"
        } else {
            "80"
        };
        let address: Vec<&str> = arr(self.get("status.loadBalancer.ingress"))
            .iter()
            .filter_map(|i| {
                i.get("ip")
                    .or_else(|| i.get("hostname"))
                    .and_then(RawRef::as_str)
            })
            .collect();
        vec![
            self.str_or("spec.ingressClassName", "<none>"),
            hosts,
            address.join(","),
            ports.to_owned(),
            self.age(),
        ]
    }

    fn deployment(&self) -> Vec<String> {
        vec![
            self.ready_of("spec.replicas"),
            self.int("status.updatedReplicas").to_string(),
            self.int("status.availableReplicas").to_string(),
            self.age(),
        ]
    }

    fn replica_set(&self) -> Vec<String> {
        vec![
            self.replicas("spec.replicas").to_string(),
            self.int("status.replicas").to_string(),
            self.int("status.readyReplicas").to_string(),
            self.age(),
        ]
    }

    fn daemon_set(&self) -> Vec<String> {
        let mut cells: Vec<String> = [
            "status.desiredNumberScheduled",
            "status.currentNumberScheduled",
            "status.numberReady",
            "status.updatedNumberScheduled",
            "status.numberAvailable",
        ]
        .iter()
        .map(|p| self.int(p).to_string())
        .collect();
        cells.push(none_if_empty(map_string(
            self.get("spec.template.spec.nodeSelector"),
        )));
        cells.push(self.age());
        cells
    }

    fn service(&self) -> Vec<String> {
        let kind = self.str_or("spec.type", "ClusterIP");
        vec![
            kind.clone(),
            none_if_empty(self.str("spec.clusterIP")),
            self.external_ip(&kind),
            self.ports(),
            self.age(),
        ]
    }

    /// `getServiceExternalIP`.
    fn external_ip(&self, kind: &str) -> String {
        let strings = |path: &str| -> Vec<String> {
            arr(self.get(path))
                .iter()
                .filter_map(RawRef::as_str)
                .map(str::to_owned)
                .collect()
        };
        let external = strings("spec.externalIPs");
        match kind {
            "ClusterIP" | "NodePort" => none_if_empty(external.join(",")),
            "LoadBalancer" => {
                let mut ips: Vec<String> = arr(self.get("status.loadBalancer.ingress"))
                    .iter()
                    .filter_map(|i| {
                        i.get("ip")
                            .or_else(|| i.get("hostname"))
                            .and_then(RawRef::as_str)
                    })
                    .map(str::to_owned)
                    .collect();
                ips.extend(external);
                if ips.is_empty() {
                    "<pending>".to_owned()
                } else {
                    ips.join(",")
                }
            }
            "ExternalName" => self.str("spec.externalName"),
            _ => "<unknown>".to_owned(),
        }
    }

    /// `makePortString`: `80/TCP,443:30443/TCP`.
    fn ports(&self) -> String {
        let ports: Vec<String> = arr(self.get("spec.ports"))
            .iter()
            .map(|p| {
                let port = int(p.get("port"));
                let proto = p.get("protocol").and_then(RawRef::as_str).unwrap_or("TCP");
                match p.get("nodePort").and_then(RawRef::as_i64) {
                    Some(np) if np != 0 => format!("{port}:{np}/{proto}"),
                    _ => format!("{port}/{proto}"),
                }
            })
            .collect();
        none_if_empty(ports.join(","))
    }

    fn node(&self) -> Vec<String> {
        let mut status: Vec<String> = Vec::new();
        let conditions = arr(self.get("status.conditions"));
        match conditions
            .iter()
            .find(|c| c.get("type").and_then(RawRef::as_str) == Some("Ready"))
        {
            Some(c) if c.get("status").and_then(RawRef::as_str) == Some("True") => {
                status.push("Ready".into())
            }
            Some(_) => status.push("NotReady".into()),
            None => status.push("Unknown".into()),
        }
        if self.get("spec.unschedulable").and_then(RawRef::as_bool) == Some(true) {
            status.push("SchedulingDisabled".into());
        }
        vec![
            status.join(","),
            node_roles(&self.obj.labels),
            self.age(),
            self.str("status.nodeInfo.kubeletVersion"),
        ]
    }

    fn job(&self) -> Vec<String> {
        let succeeded = self.int("status.succeeded");
        let completions = match self.get("spec.completions").and_then(RawRef::as_i64) {
            Some(c) => format!("{succeeded}/{c}"),
            None => {
                let parallelism = self.replicas("spec.parallelism");
                if parallelism > 1 {
                    format!("{succeeded}/1 of {parallelism}")
                } else {
                    format!("{succeeded}/1")
                }
            }
        };
        let duration = match self.get("status.startTime").and_then(RawRef::as_str) {
            Some(start) => {
                let end = self
                    .get("status.completionTime")
                    .and_then(RawRef::as_str)
                    .and_then(parse_time)
                    .unwrap_or(self.now);
                parse_time(start)
                    .map(|s| super::human_duration(end.signed_duration_since(s).num_seconds()))
                    .unwrap_or_default()
            }
            None => String::new(),
        };
        vec![self.job_status(), completions, duration, self.age()]
    }

    /// kubectl's Job STATUS: the first true terminal condition, else Running.
    fn job_status(&self) -> String {
        let is_true = |ty: &str| {
            arr(self.get("status.conditions")).iter().any(|c| {
                c.get("type").and_then(RawRef::as_str) == Some(ty)
                    && c.get("status").and_then(RawRef::as_str) == Some("True")
            })
        };
        let status = [
            ("Failed", "Failed"),
            ("Complete", "Complete"),
            ("Suspended", "Suspended"),
            ("FailureTarget", "FailureTarget"),
            ("SuccessCriteriaMet", "SuccessCriteriaMet"),
        ]
        .iter()
        .find(|(ty, _)| is_true(ty))
        .map(|(_, s)| s.to_string());
        match status {
            Some(s) => s,
            None if self.obj.is_terminating() => "Terminating".into(),
            None => "Running".into(),
        }
    }

    fn cron_job(&self) -> Vec<String> {
        let suspend = self.get("spec.suspend").and_then(RawRef::as_bool) == Some(true);
        vec![
            self.str("spec.schedule"),
            self.str_or("spec.timeZone", "<none>"),
            if suspend { "True" } else { "False" }.into(),
            self.len("status.active").to_string(),
            self.age_of("status.lastScheduleTime"),
            self.age(),
        ]
    }

    fn pv(&self) -> Vec<String> {
        let claim = match (
            self.get("spec.claimRef.namespace").and_then(RawRef::as_str),
            self.get("spec.claimRef.name").and_then(RawRef::as_str),
        ) {
            (Some(ns), Some(n)) => format!("{ns}/{n}"),
            _ => String::new(),
        };
        vec![
            self.str("spec.capacity.storage"),
            access_modes(self.get("spec.accessModes")),
            self.str_or("spec.persistentVolumeReclaimPolicy", "Retain"),
            self.str_or("status.phase", "Pending"),
            claim,
            self.str("spec.storageClassName"),
            self.str_or("spec.volumeAttributesClassName", "<unset>"),
            self.str("status.reason"),
            self.age(),
        ]
    }

    fn pvc(&self) -> Vec<String> {
        vec![
            self.str_or("status.phase", "Pending"),
            self.str("spec.volumeName"),
            self.str("status.capacity.storage"),
            access_modes(self.get("status.accessModes")),
            self.str("spec.storageClassName"),
            self.str_or("spec.volumeAttributesClassName", "<unset>"),
            self.age(),
        ]
    }

    /// The `-o wide` cells that follow the base ones.
    fn wide_extra(&self, group: &str, kind: &str) -> Vec<String> {
        let template = match (group, kind) {
            ("batch", "CronJob") => "spec.jobTemplate.spec.template.spec",
            _ => "spec.template.spec",
        };
        match (group, kind) {
            ("", "Pod") => Vec::new(), // appended by `pod`
            ("apps", "Deployment" | "ReplicaSet" | "DaemonSet") | ("batch", "Job") => {
                let (names, images) = self.containers(template);
                vec![names, images, self.selector_cell()]
            }
            ("", "ReplicationController") => {
                let (names, images) = self.containers(template);
                vec![
                    names,
                    images,
                    none_if_empty(map_string(self.get("spec.selector"))),
                ]
            }
            ("apps", "StatefulSet") => {
                let (names, images) = self.containers(template);
                vec![names, images]
            }
            ("batch", "CronJob") => {
                let (names, images) = self.containers(template);
                let sel = self.get("spec.jobTemplate.spec.selector");
                vec![names, images, format_label_selector(sel)]
            }
            ("", "Service") => vec![none_if_empty(map_string(self.get("spec.selector")))],
            ("", "Node") => self.node_wide(),
            ("", "PersistentVolume" | "PersistentVolumeClaim") => {
                vec![self.str_or("spec.volumeMode", "Filesystem")]
            }
            _ => Vec::new(),
        }
    }

    fn selector_cell(&self) -> String {
        format_label_selector(self.get("spec.selector"))
    }

    /// Container names and images of a pod spec, comma-joined.
    fn containers(&self, pod_spec: &str) -> (String, String) {
        let cs = arr(self.get(&format!("{pod_spec}.containers")));
        let field = |k: &str| {
            cs.iter()
                .map(|c| c.get(k).and_then(RawRef::as_str).unwrap_or(""))
                .collect::<Vec<_>>()
                .join(",")
        };
        (field("name"), field("image"))
    }

    fn node_wide(&self) -> Vec<String> {
        let addr = |ty: &str| {
            arr(self.get("status.addresses"))
                .iter()
                .find(|a| a.get("type").and_then(RawRef::as_str) == Some(ty))
                .and_then(|a| a.get("address").and_then(RawRef::as_str))
                .unwrap_or("<none>")
                .to_owned()
        };
        vec![
            addr("InternalIP"),
            addr("ExternalIP"),
            self.str_or("status.nodeInfo.osImage", "<unknown>"),
            self.str_or("status.nodeInfo.kernelVersion", "<unknown>"),
            self.str_or("status.nodeInfo.containerRuntimeVersion", "<unknown>"),
        ]
    }
}

/// `RWO,ROX` from access modes.
fn access_modes(v: Option<RawRef<'_>>) -> String {
    let short = |m: &str| match m {
        "ReadWriteOnce" => "RWO",
        "ReadOnlyMany" => "ROX",
        "ReadWriteMany" => "RWX",
        "ReadWriteOncePod" => "RWOP",
        _ => "",
    };
    let mut seen: Vec<&str> = arr(v)
        .iter()
        .filter_map(RawRef::as_str)
        .map(short)
        .filter(|s| !s.is_empty())
        .collect();
    seen.dedup();
    seen.join(",")
}

/// Node ROLES from `node-role.kubernetes.io/<role>` and `kubernetes.io/role` labels.
fn node_roles(labels: &crate::model::Labels) -> String {
    let mut roles: Vec<&str> = Vec::new();
    for (k, v) in labels {
        if let Some(role) = k.strip_prefix("node-role.kubernetes.io/") {
            if !role.is_empty() {
                roles.push(role);
            }
        } else if &**k == "kubernetes.io/role" && !v.is_empty() {
            roles.push(v);
        }
    }
    roles.sort_unstable();
    roles.dedup();
    none_if_empty(roles.join(","))
}

/// `labels.SelectorFromSet(m).String()`: `k=v` pairs sorted by key, comma-joined.
pub fn map_string(v: Option<RawRef<'_>>) -> String {
    let Some(m) = v.and_then(RawRef::as_object) else {
        return String::new();
    };
    m.iter()
        .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or("")))
        .collect::<Vec<_>>()
        .join(",")
}

/// `metav1.FormatLabelSelector`: the selector's String(), `<none>` when empty,
/// `<error>` when invalid.
pub fn format_label_selector(v: Option<RawRef<'_>>) -> String {
    match crate::selector::label_selector_from_value(v) {
        Ok(Some(sel)) if !sel.is_empty() => sel.to_string(),
        Ok(_) => "<none>".to_owned(),
        Err(_) => "<error>".to_owned(),
    }
}

mod pod;
