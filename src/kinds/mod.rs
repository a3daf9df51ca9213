//! The kind table: per kind, its scope, resource names and group, its `kubectl get` columns,
//! its status text and its pod-template path.
//!
//! Built-in kinds are one entry each in [`table`]. A `CustomResourceDefinition` in the input
//! registers its kind. A kind nobody declared is guessed: namespaced if any object of it
//! carries a namespace, plural = lowercase kind + "s".
//!
//! `kinds` depends on leaf modules only (`value`, `selector`, `print`'s ages): the printers
//! and the status read an [`ObjectView`], which `model` builds from its objects.

mod columns;
mod pod;
mod status;
mod table;

use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;

use crate::value::{RawRef, Str, StrMapRef};

pub use columns::{
    cells, crd_printer_columns, format_label_selector, headers, map_string, Printer, PrinterColumn,
};
pub use status::status;
pub use table::{builtin, canonical_group, Builtin};

/// One object as the kind table reads it: the manifest as written plus the metadata the
/// loader extracted from it.
#[derive(Clone, Copy)]
pub struct ObjectView<'a> {
    pub group: &'a str,
    pub kind: &'a str,
    pub raw: RawRef<'a>,
    pub labels: StrMapRef<'a>,
    pub creation_timestamp: Option<&'a str>,
    pub deletion_timestamp: Option<&'a str>,
}

impl ObjectView<'_> {
    /// `deletionTimestamp` is set: the object is Terminating.
    pub fn is_terminating(&self) -> bool {
        self.deletion_timestamp.is_some()
    }
}

/// The columns `kubectl get` prints after NAME for a kind of this load: a CRD's
/// `additionalPrinterColumns` (priority > 0 only when `wide`), else the built-in printer's.
pub fn column_headers(reg: &KindRegistry, group: &str, kind: &str, wide: bool) -> Vec<String> {
    match crd_columns(reg, group, kind) {
        Some(cols) => cols
            .iter()
            .filter(|c| wide || c.priority == 0)
            .map(|c| c.header.clone())
            .collect(),
        None => headers(group, kind, wide)
            .into_iter()
            .map(str::to_owned)
            .collect(),
    }
}

/// The cells matching [`column_headers`] for one object.
pub fn column_cells(
    reg: &KindRegistry,
    o: ObjectView<'_>,
    wide: bool,
    now: chrono::DateTime<chrono::Utc>,
) -> Vec<String> {
    match crd_columns(reg, o.group, o.kind) {
        Some(cols) => cols
            .iter()
            .filter(|c| wide || c.priority == 0)
            .map(|c| c.cell(o.raw, now))
            .collect(),
        None => cells(o, wide, now),
    }
}

/// The printer columns of a kind a CRD of this load declares (never a built-in kind).
fn crd_columns<'r>(reg: &'r KindRegistry, group: &str, kind: &str) -> Option<&'r [PrinterColumn]> {
    reg.get(group, kind)
        .filter(|k| k.origin == KindOrigin::Crd)
        .map(|k| &*k.printer_columns)
}

/// Where a workload of this kind keeps its pod template (`spec.template`), if it has one.
pub fn pod_template(group: &str, kind: &str) -> Option<&'static str> {
    builtin(group, kind).and_then(|b| b.pod_template)
}

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
    /// A CRD's `additionalPrinterColumns` for [`KindInfo::version`] (AGE when it declares
    /// none); empty for other kinds, whose columns are the built-in printers'.
    pub printer_columns: Arc<[PrinterColumn]>,
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

/// All kinds known for one load: built-ins, CRDs from the input, guesses.
#[derive(Clone, Debug)]
pub struct KindRegistry {
    kinds: Vec<KindInfo>,
    /// Group → kind → position in `kinds`: looked up with the `&str`s an object holds,
    /// without building a key (a pair of `Str`s per lookup was two allocations, and every
    /// object is looked up several times while loading).
    by_group_kind: HashMap<Str, HashMap<Str, usize>>,
}

impl Default for KindRegistry {
    fn default() -> Self {
        Self::builtin()
    }
}

/// Whether (group, kind) is one of the built-in Kubernetes kinds.
pub fn is_builtin(group: &str, kind: &str) -> bool {
    builtin(group, kind).is_some()
}

impl KindRegistry {
    /// The built-in Kubernetes kinds.
    pub fn builtin() -> Self {
        let mut reg = KindRegistry {
            kinds: Vec::with_capacity(table::BUILTIN.len() + 16),
            by_group_kind: HashMap::default(),
        };
        for b in table::BUILTIN {
            reg.insert(KindInfo {
                group: b.group.into(),
                version: b.version.into(),
                kind: b.kind.into(),
                plural: b.plural.into(),
                singular: b.kind.to_ascii_lowercase().into(),
                short_names: b.short_names.iter().map(|s| Str::from(*s)).collect(),
                namespaced: b.namespaced,
                categories: b.categories.iter().map(|s| Str::from(*s)).collect(),
                origin: KindOrigin::Builtin,
                printer_columns: Arc::from([]),
            });
        }
        reg
    }

    /// Adds or replaces a kind (a CRD overrides a guess, never a built-in).
    pub fn insert(&mut self, info: KindInfo) {
        let by_kind = self
            .by_group_kind
            .entry(Arc::clone(&info.group))
            .or_default();
        match by_kind.get(&*info.kind).copied() {
            Some(i) if self.kinds[i].origin == KindOrigin::Builtin => {}
            Some(i) => self.kinds[i] = info,
            None => {
                by_kind.insert(Arc::clone(&info.kind), self.kinds.len());
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
        let version_entry = spec
            .get("versions")
            .and_then(RawRef::as_array)
            .and_then(|vs| {
                let storage = vs
                    .iter()
                    .find(|v| v.get("storage").and_then(RawRef::as_bool) == Some(true));
                storage.or(vs.first())
            });
        let version = version_entry
            .and_then(|v| field(v, "name"))
            .or_else(|| field(spec, "version"))
            .unwrap_or_default();
        let printer_columns = crd_printer_columns(version_entry, spec);
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
            printer_columns: printer_columns.into(),
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
            printer_columns: Arc::from([]),
        });
    }

    fn get_mut(&mut self, group: &str, kind: &str) -> Option<&mut KindInfo> {
        let i = *self.by_group_kind.get(group)?.get(kind)?;
        self.kinds.get_mut(i)
    }

    /// The kind with this group and exact (case-sensitive) kind name.
    pub fn get(&self, group: &str, kind: &str) -> Option<&KindInfo> {
        let i = *self.by_group_kind.get(group)?.get(kind)?;
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
                // A legacy group names the current one (`deployments.extensions`); its
                // versions are gone, so `.VERSION.GROUP` takes any version there.
                let group_matches = |k: &KindInfo| {
                    *k.group == *canonical_group(rest, &k.kind)
                        || rest.split_once('.').is_some_and(|(v, g)| {
                            *k.group == *canonical_group(g, &k.kind)
                                && (*k.version == *v || *k.group != *g)
                        })
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
pub(crate) mod testutil {
    use super::ObjectView;
    use crate::value::{Raw, RawRef, StrMapRef};

    /// A manifest read as the loader reads one: labels and timestamps from its metadata.
    pub struct Manifest {
        raw: Raw,
    }

    impl Manifest {
        pub fn new(v: serde_json::Value) -> Manifest {
            Manifest {
                raw: Raw::from_value(&v),
            }
        }

        pub fn view(&self) -> ObjectView<'_> {
            let v = self.raw.view();
            fn s(v: Option<RawRef<'_>>) -> Option<&str> {
                v.and_then(RawRef::as_str)
            }
            let meta = v.get("metadata");
            let api_version = s(v.get("apiVersion")).unwrap_or("");
            ObjectView {
                group: api_version.rsplit_once('/').map_or("", |(g, _)| g),
                kind: s(v.get("kind")).unwrap_or(""),
                raw: v,
                labels: StrMapRef::new(meta.and_then(|m| m.get("labels"))),
                creation_timestamp: s(meta.and_then(|m| m.get("creationTimestamp"))),
                deletion_timestamp: s(meta.and_then(|m| m.get("deletionTimestamp"))),
            }
        }
    }
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
        for arg in ["deploy.extensions", "deployments.v1beta1.extensions"] {
            let found = reg.resolve(arg);
            assert_eq!(found.len(), 1, "{arg}");
            assert_eq!(&*found[0].group, "apps", "{arg}");
        }
        assert!(reg.resolve("deployments.v1beta1.apps").is_empty());
        assert_eq!(
            &*reg.resolve("ing.extensions")[0].group,
            "networking.k8s.io"
        );
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
