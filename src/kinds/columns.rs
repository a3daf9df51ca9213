//! The per-kind columns of `kubectl get` (cli's `pkg/printers/internalversion/printers.go`),
//! computed from the manifest as written: a Deployment in git has no status, so its READY
//! reads `0/1` exactly as kubectl would show it right after `apply`.

use chrono::{DateTime, Utc};

use super::status;
use super::{builtin, ObjectView};
use crate::print::age::{parse_time, translate_timestamp_since};
use crate::print::human_duration;
use crate::print::jsonpath;
use crate::value::{RawArray, RawKind, RawRef, StrMapRef};

/// How `kubectl get` prints one kind: the columns after NAME, the ones `-o wide` appends,
/// and the kind's status (the text of its STATUS or READY column, shared with `tree` and the
/// UI; `None`: the generic status of [`super::status`]).
#[derive(Debug)]
pub struct Printer {
    pub headers: &'static [&'static str],
    pub wide_headers: &'static [&'static str],
    cells: fn(&Row<'_>) -> Vec<String>,
    wide_cells: fn(&Row<'_>) -> Vec<String>,
    pub(super) status: Option<fn(&Row<'_>) -> String>,
}

/// Kinds without a printer of their own: AGE alone.
const DEFAULT: Printer = Printer {
    headers: &["AGE"],
    wide_headers: &[],
    cells: |r| vec![r.age()],
    wide_cells: |_| Vec::new(),
    status: None,
};

/// The printer of a kind (AGE alone for kinds without one).
fn printer(group: &str, kind: &str) -> &'static Printer {
    builtin(group, kind)
        .and_then(|b| b.printer)
        .unwrap_or(&DEFAULT)
}

/// Extra columns (after NAME) of one kind, and of its `-o wide` form.
pub fn headers(group: &str, kind: &str, wide: bool) -> Vec<&'static str> {
    let p = printer(group, kind);
    let mut cols = p.headers.to_vec();
    if wide {
        cols.extend_from_slice(p.wide_headers);
    }
    cols
}

/// The cells matching [`headers`] for one object.
pub fn cells(o: ObjectView<'_>, wide: bool, now: DateTime<Utc>) -> Vec<String> {
    let p = printer(o.group, o.kind);
    let r = Row::new(o, now);
    let mut out = (p.cells)(&r);
    if wide {
        out.extend((p.wide_cells)(&r));
    }
    out
}

fn no_wide(_: &Row<'_>) -> Vec<String> {
    Vec::new()
}

/// CONTAINERS, IMAGES and the `spec.selector` label selector.
fn containers_images_selector(r: &Row<'_>) -> Vec<String> {
    let (names, images) = r.containers();
    vec![names, images, r.selector_cell()]
}

pub(super) const POD: Printer = Printer {
    headers: &["READY", "STATUS", "RESTARTS", "AGE"],
    wide_headers: &["IP", "NODE", "NOMINATED NODE", "READINESS GATES"],
    cells: |r| r.pod(),
    wide_cells: |r| r.pod_wide(),
    status: Some(|r| r.pod_status()),
};

pub(super) const DEPLOYMENT: Printer = Printer {
    headers: &["READY", "UP-TO-DATE", "AVAILABLE", "AGE"],
    wide_headers: &["CONTAINERS", "IMAGES", "SELECTOR"],
    cells: |r| {
        vec![
            status::ready_replicas(r),
            r.int("status.updatedReplicas").to_string(),
            r.int("status.availableReplicas").to_string(),
            r.age(),
        ]
    },
    wide_cells: containers_images_selector,
    status: Some(status::ready_replicas),
};

/// DESIRED, CURRENT, READY (a ReplicaSet and a ReplicationController).
fn replica_set(r: &Row<'_>) -> Vec<String> {
    vec![
        r.replicas("spec.replicas").to_string(),
        r.int("status.replicas").to_string(),
        r.int("status.readyReplicas").to_string(),
        r.age(),
    ]
}

pub(super) const REPLICA_SET: Printer = Printer {
    headers: &["DESIRED", "CURRENT", "READY", "AGE"],
    wide_headers: &["CONTAINERS", "IMAGES", "SELECTOR"],
    cells: replica_set,
    wide_cells: containers_images_selector,
    status: Some(status::ready_replicas),
};

pub(super) const REPLICATION_CONTROLLER: Printer = Printer {
    headers: &["DESIRED", "CURRENT", "READY", "AGE"],
    wide_headers: &["CONTAINERS", "IMAGES", "SELECTOR"],
    cells: replica_set,
    wide_cells: |r| {
        let (names, images) = r.containers();
        vec![
            names,
            images,
            none_if_empty(map_string(r.get("spec.selector"))),
        ]
    },
    status: Some(status::ready_replicas),
};

pub(super) const STATEFUL_SET: Printer = Printer {
    headers: &["READY", "AGE"],
    wide_headers: &["CONTAINERS", "IMAGES"],
    cells: |r| vec![status::ready_replicas(r), r.age()],
    wide_cells: |r| {
        let (names, images) = r.containers();
        vec![names, images]
    },
    status: Some(status::ready_replicas),
};

pub(super) const DAEMON_SET: Printer = Printer {
    headers: &[
        "DESIRED",
        "CURRENT",
        "READY",
        "UP-TO-DATE",
        "AVAILABLE",
        "NODE SELECTOR",
        "AGE",
    ],
    wide_headers: &["CONTAINERS", "IMAGES", "SELECTOR"],
    cells: |r| r.daemon_set(),
    wide_cells: containers_images_selector,
    status: Some(status::daemon_set),
};

pub(super) const SERVICE: Printer = Printer {
    headers: &["TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE"],
    wide_headers: &["SELECTOR"],
    cells: |r| r.service(),
    wide_cells: |r| vec![none_if_empty(map_string(r.get("spec.selector")))],
    status: None,
};

pub(super) const CONFIG_MAP: Printer = Printer {
    headers: &["DATA", "AGE"],
    wide_headers: &[],
    cells: |r| vec![(r.len("data") + r.len("binaryData")).to_string(), r.age()],
    wide_cells: no_wide,
    status: None,
};

pub(super) const SECRET: Printer = Printer {
    headers: &["TYPE", "DATA", "AGE"],
    wide_headers: &[],
    cells: |r| {
        vec![
            r.str_or("type", "Opaque"),
            r.len("data").to_string(),
            r.age(),
        ]
    },
    wide_cells: no_wide,
    status: None,
};

pub(super) const NAMESPACE: Printer = Printer {
    headers: &["STATUS", "AGE"],
    wide_headers: &[],
    cells: |r| vec![status::namespace(r), r.age()],
    wide_cells: no_wide,
    status: Some(status::namespace),
};

pub(super) const NODE: Printer = Printer {
    headers: &["STATUS", "ROLES", "AGE", "VERSION"],
    wide_headers: &[
        "INTERNAL-IP",
        "EXTERNAL-IP",
        "OS-IMAGE",
        "KERNEL-VERSION",
        "CONTAINER-RUNTIME",
    ],
    cells: |r| {
        vec![
            status::node(r),
            node_roles(r.o.labels),
            r.age(),
            r.str("status.nodeInfo.kubeletVersion"),
        ]
    },
    wide_cells: |r| r.node_wide(),
    status: Some(status::node),
};

pub(super) const JOB: Printer = Printer {
    headers: &["STATUS", "COMPLETIONS", "DURATION", "AGE"],
    wide_headers: &["CONTAINERS", "IMAGES", "SELECTOR"],
    cells: |r| r.job(),
    wide_cells: containers_images_selector,
    status: Some(status::job),
};

pub(super) const CRON_JOB: Printer = Printer {
    headers: &[
        "SCHEDULE",
        "TIMEZONE",
        "SUSPEND",
        "ACTIVE",
        "LAST SCHEDULE",
        "AGE",
    ],
    wide_headers: &["CONTAINERS", "IMAGES", "SELECTOR"],
    cells: |r| r.cron_job(),
    wide_cells: |r| {
        let (names, images) = r.containers();
        let sel = r.get("spec.jobTemplate.spec.selector");
        vec![names, images, format_label_selector(sel)]
    },
    status: None,
};

pub(super) const PERSISTENT_VOLUME: Printer = Printer {
    headers: &[
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
    wide_headers: &["VOLUMEMODE"],
    cells: |r| r.pv(),
    wide_cells: volume_mode,
    status: Some(status::volume_phase),
};

pub(super) const PERSISTENT_VOLUME_CLAIM: Printer = Printer {
    headers: &[
        "STATUS",
        "VOLUME",
        "CAPACITY",
        "ACCESS MODES",
        "STORAGECLASS",
        "VOLUMEATTRIBUTESCLASS",
        "AGE",
    ],
    wide_headers: &["VOLUMEMODE"],
    cells: |r| r.pvc(),
    wide_cells: volume_mode,
    status: Some(status::volume_phase),
};

fn volume_mode(r: &Row<'_>) -> Vec<String> {
    vec![r.str_or("spec.volumeMode", "Filesystem")]
}

pub(super) const SERVICE_ACCOUNT: Printer = Printer {
    headers: &["SECRETS", "AGE"],
    wide_headers: &[],
    cells: |r| vec![r.len("secrets").to_string(), r.age()],
    wide_cells: no_wide,
    status: None,
};

pub(super) const POD_DISRUPTION_BUDGET: Printer = Printer {
    headers: &[
        "MIN AVAILABLE",
        "MAX UNAVAILABLE",
        "ALLOWED DISRUPTIONS",
        "AGE",
    ],
    wide_headers: &[],
    cells: |r| {
        vec![
            r.int_or_string("spec.minAvailable"),
            r.int_or_string("spec.maxUnavailable"),
            r.int("status.disruptionsAllowed").to_string(),
            r.age(),
        ]
    },
    wide_cells: no_wide,
    status: None,
};

pub(super) const HORIZONTAL_POD_AUTOSCALER: Printer = Printer {
    headers: &[
        "REFERENCE",
        "TARGETS",
        "MINPODS",
        "MAXPODS",
        "REPLICAS",
        "AGE",
    ],
    wide_headers: &[],
    cells: |r| r.hpa(),
    wide_cells: no_wide,
    status: None,
};

pub(super) const NETWORK_POLICY: Printer = Printer {
    headers: &["POD-SELECTOR", "AGE"],
    wide_headers: &[],
    cells: |r| vec![format_label_selector(r.get("spec.podSelector")), r.age()],
    wide_cells: no_wide,
    status: None,
};

pub(super) const INGRESS: Printer = Printer {
    headers: &["CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE"],
    wide_headers: &[],
    cells: |r| r.ingress(),
    wide_cells: no_wide,
    status: None,
};

pub(super) const STORAGE_CLASS: Printer = Printer {
    headers: &[
        "PROVISIONER",
        "RECLAIMPOLICY",
        "VOLUMEBINDINGMODE",
        "ALLOWVOLUMEEXPANSION",
        "AGE",
    ],
    wide_headers: &[],
    cells: |r| {
        vec![
            r.str("provisioner"),
            r.str_or("reclaimPolicy", "Delete"),
            r.str_or("volumeBindingMode", "Immediate"),
            (r.get("allowVolumeExpansion").and_then(RawRef::as_bool) == Some(true)).to_string(),
            r.age(),
        ]
    },
    wide_cells: no_wide,
    status: None,
};

pub(super) const CUSTOM_RESOURCE_DEFINITION: Printer = Printer {
    headers: &["CREATED AT"],
    wide_headers: &[],
    cells: |r| vec![r.o.creation_timestamp.unwrap_or("<unknown>").to_owned()],
    wide_cells: no_wide,
    status: None,
};

/// Accessors over one object's JSON, with kubectl's defaults for absent fields.
pub(super) struct Row<'a> {
    v: RawRef<'a>,
    pub(super) o: ObjectView<'a>,
    pub(super) now: DateTime<Utc>,
}

pub(super) fn at<'v>(v: RawRef<'v>, path: &str) -> Option<RawRef<'v>> {
    path.split('.').try_fold(v, |v, k| v.get(k))
}

pub(super) fn int(v: Option<RawRef<'_>>) -> i64 {
    v.and_then(RawRef::as_i64).unwrap_or(0)
}

pub(super) fn arr(v: Option<RawRef<'_>>) -> RawArray<'_> {
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
    pub(super) fn new(o: ObjectView<'a>, now: DateTime<Utc>) -> Row<'a> {
        Row { v: o.raw, o, now }
    }

    pub(super) fn get(&self, path: &str) -> Option<RawRef<'a>> {
        at(self.v, path)
    }

    pub(super) fn int(&self, path: &str) -> i64 {
        int(self.get(path))
    }

    pub(super) fn str(&self, path: &str) -> String {
        self.get(path)
            .and_then(RawRef::as_str)
            .unwrap_or("")
            .to_owned()
    }

    pub(super) fn str_or(&self, path: &str, default: &str) -> String {
        match self.get(path).and_then(RawRef::as_str) {
            Some(s) if !s.is_empty() => s.to_owned(),
            _ => default.to_owned(),
        }
    }

    /// Number of entries of a map or list field.
    pub(super) fn len(&self, path: &str) -> usize {
        match self.get(path).map(RawRef::kind) {
            Some(RawKind::Object(m)) => m.len(),
            Some(RawKind::Array(a)) => a.len(),
            _ => 0,
        }
    }

    pub(super) fn age(&self) -> String {
        translate_timestamp_since(self.o.creation_timestamp, self.now)
    }

    fn age_of(&self, path: &str) -> String {
        match self.get(path).and_then(RawRef::as_str) {
            Some(ts) => translate_timestamp_since(Some(ts), self.now),
            None => "<none>".to_owned(),
        }
    }

    /// `spec.replicas`, which the API server defaults to 1.
    pub(super) fn replicas(&self, path: &str) -> i64 {
        self.get(path).and_then(RawRef::as_i64).unwrap_or(1)
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
                    .map(|s| human_duration(end.signed_duration_since(s).num_seconds()))
                    .unwrap_or_default()
            }
            None => String::new(),
        };
        vec![status::job(self), completions, duration, self.age()]
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
            status::volume_phase(self),
            claim,
            self.str("spec.storageClassName"),
            self.str_or("spec.volumeAttributesClassName", "<unset>"),
            self.str("status.reason"),
            self.age(),
        ]
    }

    fn pvc(&self) -> Vec<String> {
        vec![
            status::volume_phase(self),
            self.str("spec.volumeName"),
            self.str("status.capacity.storage"),
            access_modes(self.get("status.accessModes")),
            self.str("spec.storageClassName"),
            self.str_or("spec.volumeAttributesClassName", "<unset>"),
            self.age(),
        ]
    }

    fn selector_cell(&self) -> String {
        format_label_selector(self.get("spec.selector"))
    }

    /// Container names and images of the kind's pod template, comma-joined.
    fn containers(&self) -> (String, String) {
        let template = builtin(self.o.group, self.o.kind)
            .and_then(|b| b.pod_template)
            .unwrap_or("spec.template");
        let cs = arr(self.get(&format!("{template}.spec.containers")));
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
fn node_roles(labels: StrMapRef<'_>) -> String {
    let mut roles: Vec<&str> = Vec::new();
    for (k, v) in labels.iter() {
        if let Some(role) = k.strip_prefix("node-role.kubernetes.io/") {
            if !role.is_empty() {
                roles.push(role);
            }
        } else if k == "kubernetes.io/role" && !v.is_empty() {
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

/// One column a CustomResourceDefinition declares for its objects
/// (`additionalPrinterColumns`), as apiextensions-apiserver's table convertor prints it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrinterColumn {
    /// The header, upper-cased as kubectl prints it.
    pub header: String,
    /// `string`, `integer`, `number`, `boolean` or `date`.
    pub ty: String,
    /// Above 0: only with `-o wide`.
    pub priority: i64,
    path: Vec<jsonpath::Step>,
}

/// The printer columns of one CRD version entry (`apiextensions.k8s.io/v1`
/// `spec.versions[].additionalPrinterColumns`, `jsonPath`) or, for the older form, of its
/// spec (`v1beta1` `spec.additionalPrinterColumns`, `JSONPath`). With none declared, the API
/// server serves `Age` (`.metadata.creationTimestamp`, a date); a path it cannot parse
/// makes the CRD print NAME alone, as the server's convertor then has no columns.
pub fn crd_printer_columns(version: Option<RawRef<'_>>, spec: RawRef<'_>) -> Vec<PrinterColumn> {
    let declared = version
        .and_then(|v| v.get("additionalPrinterColumns"))
        .or_else(|| spec.get("additionalPrinterColumns"))
        .and_then(RawRef::as_array)
        .filter(|a| !a.is_empty());
    let Some(declared) = declared else {
        return vec![PrinterColumn {
            header: "AGE".to_owned(),
            ty: "date".to_owned(),
            priority: 0,
            path: jsonpath::parse_path(".metadata.creationTimestamp").unwrap_or_default(),
        }];
    };
    let s = |c: RawRef<'_>, k: &str| c.get(k).and_then(RawRef::as_str).unwrap_or("").to_owned();
    let parsed: Option<Vec<PrinterColumn>> = declared
        .iter()
        .map(|c| {
            let path = c.get("jsonPath").or_else(|| c.get("JSONPath"))?.as_str()?;
            Some(PrinterColumn {
                header: s(c, "name").to_uppercase(),
                ty: s(c, "type"),
                priority: int(c.get("priority")),
                path: jsonpath::parse_path(path).ok()?,
            })
        })
        .collect();
    parsed.unwrap_or_default()
}

impl PrinterColumn {
    /// `ConvertToTable`'s cell: the first value at the path, as its declared type prints
    /// it; empty (a nil cell) when absent or of another type.
    pub fn cell(&self, raw: RawRef<'_>, now: DateTime<Utc>) -> String {
        let Some(v) = jsonpath::lookup_all(raw, &self.path).into_iter().next() else {
            return if self.unset_age() {
                translate_timestamp_since(None, now)
            } else {
                String::new()
            };
        };
        match (self.ty.as_str(), v.kind()) {
            ("string", RawKind::String(s)) => s.to_owned(),
            ("string", RawKind::Object(_) | RawKind::Array(_)) => v.to_string(),
            ("string", _) => v.to_string(),
            ("integer", RawKind::Number(n)) => n
                .as_i64()
                .or_else(|| n.as_f64().map(|f| f as i64))
                .map(|i| i.to_string())
                .unwrap_or_default(),
            ("number", RawKind::Number(n)) => n.as_f64().map(go_float).unwrap_or_default(),
            ("boolean", RawKind::Bool(b)) => b.to_string(),
            ("date", RawKind::String(s)) => match parse_time(s) {
                Some(_) => translate_timestamp_since(Some(s), now),
                None => String::new(),
            },
            _ => String::new(),
        }
    }

    /// A manifest has no `creationTimestamp` (the API server sets it): an AGE column of
    /// it reads `<unknown>`, as the built-in printers' AGE does.
    fn unset_age(&self) -> bool {
        self.ty == "date"
            && self.path
                == [
                    jsonpath::Step::Key("metadata".into()),
                    jsonpath::Step::Key("creationTimestamp".into()),
                ]
    }
}

/// Go's `fmt.Sprint(float64)` (`%g`, shortest): exponent form when the decimal exponent is
/// below -4 or at least 6 (`1e+06`, `1.5e-05`), else plain digits.
fn go_float(f: f64) -> String {
    if f == 0.0 || !f.is_finite() {
        return format!("{f}");
    }
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if !(-4..6).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exp.abs())
    } else {
        format!("{f}")
    }
}
