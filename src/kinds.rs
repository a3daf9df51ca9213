//! The kind table: scope, resource names and group of every kind kubesift knows.
//!
//! Built-in kinds come from `kubectl api-resources` of current Kubernetes (plus a few legacy
//! groups still common in old manifests). A `CustomResourceDefinition` in the input registers
//! its kind. A kind nobody declared is guessed: namespaced if any object of it carries a
//! namespace, plural = lowercase kind + "s".

use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;

use crate::value::RawRef;

use crate::value::Str;

/// What kubesift knows about one kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KindInfo {
    pub group: Str,
    /// Preferred version (informational; identity never uses it).
    pub version: Str,
    pub kind: Str,
    pub plural: Str,
    pub singular: Str,
    pub short_names: Vec<Str>,
    pub namespaced: bool,
    /// Categories such as `all` (`kubectl get all`).
    pub categories: Vec<Str>,
    pub origin: KindOrigin,
}

/// Where a kind's facts come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KindOrigin {
    /// The built-in Kubernetes API.
    Builtin,
    /// A CustomResourceDefinition found in the input.
    Crd,
    /// Nobody declared it; scope and plural are guesses.
    Guessed,
}

impl KindInfo {
    /// `plural.group` or just `plural` for the core group (`deployments.apps`, `pods`).
    pub fn resource(&self) -> String {
        if self.group.is_empty() {
            self.plural.to_string()
        } else {
            format!("{}.{}", self.plural, self.group)
        }
    }

    /// Whether a user's TYPE argument (without group suffix) names this kind.
    fn matches_name(&self, lower: &str) -> bool {
        *self.plural == *lower
            || *self.singular == *lower
            || self.kind.eq_ignore_ascii_case(lower)
            || self.short_names.iter().any(|s| **s == *lower)
    }
}

// (group, version, kind, plural, short names, namespaced, categories)
type Row = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static [&'static str],
    bool,
    &'static [&'static str],
);

const N: bool = true;
const C: bool = false;
const ALL: &[&str] = &["all"];

#[rustfmt::skip]
const BUILTIN: &[Row] = &[
    // core
    ("", "v1", "Binding", "bindings", &[], N, &[]),
    ("", "v1", "ComponentStatus", "componentstatuses", &["cs"], C, &[]),
    ("", "v1", "ConfigMap", "configmaps", &["cm"], N, &[]),
    ("", "v1", "Endpoints", "endpoints", &["ep"], N, &[]),
    ("", "v1", "Event", "events", &["ev"], N, &[]),
    ("", "v1", "LimitRange", "limitranges", &["limits"], N, &[]),
    ("", "v1", "Namespace", "namespaces", &["ns"], C, &[]),
    ("", "v1", "Node", "nodes", &["no"], C, &[]),
    ("", "v1", "PersistentVolumeClaim", "persistentvolumeclaims", &["pvc"], N, &[]),
    ("", "v1", "PersistentVolume", "persistentvolumes", &["pv"], C, &[]),
    ("", "v1", "Pod", "pods", &["po"], N, ALL),
    ("", "v1", "PodTemplate", "podtemplates", &[], N, &[]),
    ("", "v1", "ReplicationController", "replicationcontrollers", &["rc"], N, ALL),
    ("", "v1", "ResourceQuota", "resourcequotas", &["quota"], N, &[]),
    ("", "v1", "Secret", "secrets", &[], N, &[]),
    ("", "v1", "ServiceAccount", "serviceaccounts", &["sa"], N, &[]),
    ("", "v1", "Service", "services", &["svc"], N, ALL),
    // admissionregistration.k8s.io
    ("admissionregistration.k8s.io", "v1", "MutatingWebhookConfiguration", "mutatingwebhookconfigurations", &[], C, &[]),
    ("admissionregistration.k8s.io", "v1", "ValidatingWebhookConfiguration", "validatingwebhookconfigurations", &[], C, &[]),
    ("admissionregistration.k8s.io", "v1", "ValidatingAdmissionPolicy", "validatingadmissionpolicies", &[], C, &[]),
    ("admissionregistration.k8s.io", "v1", "ValidatingAdmissionPolicyBinding", "validatingadmissionpolicybindings", &[], C, &[]),
    ("admissionregistration.k8s.io", "v1beta1", "MutatingAdmissionPolicy", "mutatingadmissionpolicies", &[], C, &[]),
    ("admissionregistration.k8s.io", "v1beta1", "MutatingAdmissionPolicyBinding", "mutatingadmissionpolicybindings", &[], C, &[]),
    // apiextensions / apiregistration
    ("apiextensions.k8s.io", "v1", "CustomResourceDefinition", "customresourcedefinitions", &["crd", "crds"], C, &[]),
    ("apiregistration.k8s.io", "v1", "APIService", "apiservices", &[], C, &[]),
    // apps
    ("apps", "v1", "ControllerRevision", "controllerrevisions", &[], N, &[]),
    ("apps", "v1", "DaemonSet", "daemonsets", &["ds"], N, ALL),
    ("apps", "v1", "Deployment", "deployments", &["deploy"], N, ALL),
    ("apps", "v1", "ReplicaSet", "replicasets", &["rs"], N, ALL),
    ("apps", "v1", "StatefulSet", "statefulsets", &["sts"], N, ALL),
    // authentication / authorization
    ("authentication.k8s.io", "v1", "SelfSubjectReview", "selfsubjectreviews", &[], C, &[]),
    ("authentication.k8s.io", "v1", "TokenReview", "tokenreviews", &[], C, &[]),
    ("authorization.k8s.io", "v1", "LocalSubjectAccessReview", "localsubjectaccessreviews", &[], N, &[]),
    ("authorization.k8s.io", "v1", "SelfSubjectAccessReview", "selfsubjectaccessreviews", &[], C, &[]),
    ("authorization.k8s.io", "v1", "SelfSubjectRulesReview", "selfsubjectrulesreviews", &[], C, &[]),
    ("authorization.k8s.io", "v1", "SubjectAccessReview", "subjectaccessreviews", &[], C, &[]),
    // autoscaling / batch
    ("autoscaling", "v2", "HorizontalPodAutoscaler", "horizontalpodautoscalers", &["hpa"], N, ALL),
    ("batch", "v1", "CronJob", "cronjobs", &["cj"], N, ALL),
    ("batch", "v1", "Job", "jobs", &[], N, ALL),
    // certificates / coordination / discovery / events
    ("certificates.k8s.io", "v1", "CertificateSigningRequest", "certificatesigningrequests", &["csr"], C, &[]),
    ("certificates.k8s.io", "v1beta1", "ClusterTrustBundle", "clustertrustbundles", &[], C, &[]),
    ("coordination.k8s.io", "v1", "Lease", "leases", &[], N, &[]),
    ("coordination.k8s.io", "v1beta1", "LeaseCandidate", "leasecandidates", &[], N, &[]),
    ("discovery.k8s.io", "v1", "EndpointSlice", "endpointslices", &[], N, &[]),
    ("events.k8s.io", "v1", "Event", "events", &["ev"], N, &[]),
    // flowcontrol / networking / node / policy
    ("flowcontrol.apiserver.k8s.io", "v1", "FlowSchema", "flowschemas", &[], C, &[]),
    ("flowcontrol.apiserver.k8s.io", "v1", "PriorityLevelConfiguration", "prioritylevelconfigurations", &[], C, &[]),
    ("networking.k8s.io", "v1", "IngressClass", "ingressclasses", &[], C, &[]),
    ("networking.k8s.io", "v1", "Ingress", "ingresses", &["ing"], N, &[]),
    ("networking.k8s.io", "v1", "NetworkPolicy", "networkpolicies", &["netpol"], N, &[]),
    ("networking.k8s.io", "v1", "IPAddress", "ipaddresses", &["ip"], C, &[]),
    ("networking.k8s.io", "v1", "ServiceCIDR", "servicecidrs", &[], C, &[]),
    ("node.k8s.io", "v1", "RuntimeClass", "runtimeclasses", &[], C, &[]),
    ("policy", "v1", "PodDisruptionBudget", "poddisruptionbudgets", &["pdb"], N, &[]),
    // rbac
    ("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding", "clusterrolebindings", &[], C, &[]),
    ("rbac.authorization.k8s.io", "v1", "ClusterRole", "clusterroles", &[], C, &[]),
    ("rbac.authorization.k8s.io", "v1", "RoleBinding", "rolebindings", &[], N, &[]),
    ("rbac.authorization.k8s.io", "v1", "Role", "roles", &[], N, &[]),
    // resource (DRA)
    ("resource.k8s.io", "v1", "DeviceClass", "deviceclasses", &[], C, &[]),
    ("resource.k8s.io", "v1", "ResourceClaim", "resourceclaims", &[], N, &[]),
    ("resource.k8s.io", "v1", "ResourceClaimTemplate", "resourceclaimtemplates", &[], N, &[]),
    ("resource.k8s.io", "v1", "ResourceSlice", "resourceslices", &[], C, &[]),
    // scheduling / storage
    ("scheduling.k8s.io", "v1", "PriorityClass", "priorityclasses", &["pc"], C, &[]),
    ("storage.k8s.io", "v1", "CSIDriver", "csidrivers", &[], C, &[]),
    ("storage.k8s.io", "v1", "CSINode", "csinodes", &[], C, &[]),
    ("storage.k8s.io", "v1", "CSIStorageCapacity", "csistoragecapacities", &[], N, &[]),
    ("storage.k8s.io", "v1", "StorageClass", "storageclasses", &["sc"], C, &[]),
    ("storage.k8s.io", "v1", "VolumeAttachment", "volumeattachments", &[], C, &[]),
    ("storage.k8s.io", "v1", "VolumeAttributesClass", "volumeattributesclasses", &["vac"], C, &[]),
    ("storagemigration.k8s.io", "v1alpha1", "StorageVersionMigration", "storageversionmigrations", &[], C, &[]),
    ("internal.apiserver.k8s.io", "v1alpha1", "StorageVersion", "storageversions", &[], C, &[]),
    // legacy groups still found in old manifests (removed from the API server)
    ("extensions", "v1beta1", "Deployment", "deployments", &["deploy"], N, &[]),
    ("extensions", "v1beta1", "DaemonSet", "daemonsets", &["ds"], N, &[]),
    ("extensions", "v1beta1", "ReplicaSet", "replicasets", &["rs"], N, &[]),
    ("extensions", "v1beta1", "Ingress", "ingresses", &["ing"], N, &[]),
    ("extensions", "v1beta1", "NetworkPolicy", "networkpolicies", &["netpol"], N, &[]),
    ("extensions", "v1beta1", "PodSecurityPolicy", "podsecuritypolicies", &["psp"], C, &[]),
    ("policy", "v1beta1", "PodSecurityPolicy", "podsecuritypolicies", &["psp"], C, &[]),
    ("batch", "v2alpha1", "CronJob", "cronjobs", &["cj"], N, &[]),
    ("settings.k8s.io", "v1alpha1", "PodPreset", "podpresets", &[], N, &[]),
    ("metrics.k8s.io", "v1beta1", "NodeMetrics", "nodes", &[], C, &[]),
    ("metrics.k8s.io", "v1beta1", "PodMetrics", "pods", &[], N, &[]),
];

/// All kinds known for one load: built-ins, CRDs from the input, guesses.
#[derive(Clone, Debug)]
pub struct KindRegistry {
    kinds: Vec<KindInfo>,
    by_group_kind: HashMap<(Str, Str), usize>,
}

impl Default for KindRegistry {
    fn default() -> Self {
        Self::builtin()
    }
}

/// Whether (group, kind) is one of the built-in Kubernetes kinds.
pub fn is_builtin(group: &str, kind: &str) -> bool {
    BUILTIN.iter().any(|e| e.0 == group && e.2 == kind)
}

impl KindRegistry {
    /// The built-in Kubernetes kinds.
    pub fn builtin() -> Self {
        let mut reg = KindRegistry {
            kinds: Vec::with_capacity(BUILTIN.len() + 16),
            by_group_kind: HashMap::default(),
        };
        for &(group, version, kind, plural, shorts, namespaced, categories) in BUILTIN {
            reg.insert(KindInfo {
                group: group.into(),
                version: version.into(),
                kind: kind.into(),
                plural: plural.into(),
                singular: kind.to_ascii_lowercase().into(),
                short_names: shorts.iter().map(|s| Str::from(*s)).collect(),
                namespaced,
                categories: categories.iter().map(|s| Str::from(*s)).collect(),
                origin: KindOrigin::Builtin,
            });
        }
        reg
    }

    /// Adds or replaces a kind (a CRD overrides a guess, never a built-in).
    pub fn insert(&mut self, info: KindInfo) {
        let key = (Arc::clone(&info.group), Arc::clone(&info.kind));
        match self.by_group_kind.get(&key) {
            Some(&i) if self.kinds[i].origin == KindOrigin::Builtin => {}
            Some(&i) => self.kinds[i] = info,
            None => {
                self.by_group_kind.insert(key, self.kinds.len());
                self.kinds.push(info);
            }
        }
    }

    /// Registers the kind a `CustomResourceDefinition` object declares.
    pub fn register_crd(&mut self, crd: RawRef<'_>) -> Result<(), String> {
        let spec = crd
            .get("spec")
            .ok_or("CustomResourceDefinition has no spec")?;
        let names = spec
            .get("names")
            .ok_or("CustomResourceDefinition has no spec.names")?;
        let field = |v: RawRef<'_>, k: &str| v.get(k).and_then(RawRef::as_str).map(str::to_owned);
        let group = field(spec, "group").ok_or("CustomResourceDefinition has no spec.group")?;
        let kind = field(names, "kind").ok_or("CustomResourceDefinition has no spec.names.kind")?;
        let plural = field(names, "plural").unwrap_or_else(|| guess_plural(&kind));
        let singular = field(names, "singular").unwrap_or_else(|| kind.to_ascii_lowercase());
        let strings = |v: Option<RawRef<'_>>| -> Vec<Str> {
            v.and_then(RawRef::as_array)
                .map(|a| a.iter().filter_map(RawRef::as_str).map(Str::from).collect())
                .unwrap_or_default()
        };
        let version = spec
            .get("versions")
            .and_then(RawRef::as_array)
            .and_then(|vs| {
                let storage = vs
                    .iter()
                    .find(|v| v.get("storage").and_then(RawRef::as_bool) == Some(true));
                storage.or(vs.first()).and_then(|v| field(v, "name"))
            })
            .or_else(|| field(spec, "version"))
            .unwrap_or_default();
        let namespaced = field(spec, "scope").as_deref() != Some("Cluster");
        self.insert(KindInfo {
            group: group.into(),
            version: version.into(),
            kind: kind.into(),
            plural: plural.into(),
            singular: singular.into(),
            short_names: strings(names.get("shortNames")),
            namespaced,
            categories: strings(names.get("categories")),
            origin: KindOrigin::Crd,
        });
        Ok(())
    }

    /// Registers a kind nobody declared, seen in the input. Namespaced if any object of it
    /// carries a namespace; calling again with `has_namespace = true` upgrades the guess.
    pub fn register_guess(&mut self, group: &str, version: &str, kind: &str, has_namespace: bool) {
        if let Some(info) = self.get_mut(group, kind) {
            if info.origin == KindOrigin::Guessed && has_namespace {
                info.namespaced = true;
            }
            return;
        }
        self.insert(KindInfo {
            group: group.into(),
            version: version.into(),
            kind: kind.into(),
            plural: guess_plural(kind).into(),
            singular: kind.to_ascii_lowercase().into(),
            short_names: Vec::new(),
            namespaced: has_namespace,
            categories: Vec::new(),
            origin: KindOrigin::Guessed,
        });
    }

    fn get_mut(&mut self, group: &str, kind: &str) -> Option<&mut KindInfo> {
        let i = *self
            .by_group_kind
            .get(&(Str::from(group), Str::from(kind)))?;
        self.kinds.get_mut(i)
    }

    /// The kind with this group and exact (case-sensitive) kind name.
    pub fn get(&self, group: &str, kind: &str) -> Option<&KindInfo> {
        let i = *self
            .by_group_kind
            .get(&(Str::from(group), Str::from(kind)))?;
        self.kinds.get(i)
    }

    /// Whether objects of this kind are namespaced; `None` for a kind not registered.
    pub fn is_namespaced(&self, group: &str, kind: &str) -> Option<bool> {
        self.get(group, kind).map(|k| k.namespaced)
    }

    /// Every registered kind.
    pub fn iter(&self) -> impl Iterator<Item = &KindInfo> {
        self.kinds.iter()
    }

    /// Resolves one TYPE argument as kubectl does: plural, singular, short name or kind,
    /// case-insensitive, optionally followed by `.group` or `.version.group`; a category
    /// (`all`) expands to its kinds. Several kinds may match (`events` in two groups):
    /// the core group wins, as in kubectl's preferred-resource order.
    pub fn resolve(&self, arg: &str) -> Vec<&KindInfo> {
        let lower = arg.to_ascii_lowercase();
        let category: Vec<&KindInfo> = self
            .kinds
            .iter()
            .filter(|k| k.categories.iter().any(|c| **c == *lower))
            .collect();
        if !category.is_empty() {
            return category;
        }
        let mut found: Vec<&KindInfo> = self
            .kinds
            .iter()
            .filter(|k| k.matches_name(&lower))
            .collect();
        if found.is_empty() {
            if let Some((name, rest)) = lower.split_once('.') {
                let group_matches = |k: &KindInfo| {
                    *k.group == *rest
                        || rest
                            .split_once('.')
                            .is_some_and(|(v, g)| *k.group == *g && *k.version == *v)
                };
                found = self
                    .kinds
                    .iter()
                    .filter(|k| k.matches_name(name) && group_matches(k))
                    .collect();
            }
            return found;
        }
        // Prefer non-legacy, most-preferred group: the first in table order per name.
        let best_group = Arc::clone(&found[0].group);
        found.retain(|k| k.group == best_group);
        found
    }
}

/// kubesift's guess of a plural for an undeclared kind: lowercase kind + "s".
pub fn guess_plural(kind: &str) -> String {
    format!("{}s", kind.to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_scopes() {
        let reg = KindRegistry::builtin();
        assert_eq!(reg.is_namespaced("", "Pod"), Some(true));
        assert_eq!(reg.is_namespaced("", "Node"), Some(false));
        assert_eq!(
            reg.is_namespaced("rbac.authorization.k8s.io", "ClusterRole"),
            Some(false)
        );
        assert_eq!(reg.is_namespaced("apps", "Deployment"), Some(true));
        assert_eq!(reg.is_namespaced("example.com", "Widget"), None);
    }

    #[test]
    fn resolve_like_kubectl() {
        let reg = KindRegistry::builtin();
        for arg in [
            "deploy",
            "deployments",
            "Deployment",
            "deployment",
            "deployments.apps",
            "deployment.apps",
            "deployments.v1.apps",
            "DEPLOY",
        ] {
            let found = reg.resolve(arg);
            assert_eq!(found.len(), 1, "{arg}");
            assert_eq!(&*found[0].kind, "Deployment", "{arg}");
            assert_eq!(&*found[0].group, "apps", "{arg}");
        }
        assert_eq!(&*reg.resolve("ev")[0].group, "");
        assert_eq!(
            &*reg.resolve("events.events.k8s.io")[0].group,
            "events.k8s.io"
        );
        assert!(reg.resolve("nosuchthing").is_empty());
        let all: Vec<&str> = reg.resolve("all").iter().map(|k| &*k.kind).collect();
        assert!(all.contains(&"Pod") && all.contains(&"CronJob") && !all.contains(&"ConfigMap"));
    }

    #[test]
    fn crd_registration() {
        let mut reg = KindRegistry::builtin();
        let crd = serde_json::json!({
            "spec": {"group": "shop.example.com", "scope": "Cluster",
                "names": {"kind": "Warehouse", "plural": "warehouses", "singular": "warehouse", "shortNames": ["wh"], "categories": ["all"]},
                "versions": [{"name": "v1alpha1", "storage": false}, {"name": "v1", "storage": true}]}
        });
        reg.register_crd(crate::value::Raw::from(&crd).view())
            .unwrap();
        let k = reg.get("shop.example.com", "Warehouse").unwrap();
        assert!(!k.namespaced);
        assert_eq!(&*k.version, "v1");
        assert_eq!(&*reg.resolve("wh")[0].kind, "Warehouse");
        assert!(reg.resolve("all").iter().any(|k| &*k.kind == "Warehouse"));
        let no_names = crate::value::Raw::from(serde_json::json!({"spec": {}}));
        assert!(reg.register_crd(no_names.view()).is_err());
    }

    #[test]
    fn guesses() {
        let mut reg = KindRegistry::builtin();
        reg.register_guess("x.io", "v1", "Gadget", false);
        assert_eq!(reg.is_namespaced("x.io", "Gadget"), Some(false));
        reg.register_guess("x.io", "v1", "Gadget", true);
        assert_eq!(reg.is_namespaced("x.io", "Gadget"), Some(true));
        assert_eq!(&*reg.resolve("gadgets")[0].kind, "Gadget");
        // a guess never changes a built-in
        reg.register_guess("", "v1", "Node", true);
        assert_eq!(reg.is_namespaced("", "Node"), Some(false));
    }
}
