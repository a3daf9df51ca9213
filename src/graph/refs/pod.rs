//! References of a pod spec (a Pod's, or a workload's pod template): volumes (projected
//! ones included), `envFrom`, `env.valueFrom`, `imagePullSecrets`, the ServiceAccount, the
//! PriorityClass and the RuntimeClass. All are namespace-local.

use super::{Ref, Site, Target};
use crate::value::RawRef;

/// Secret references of volume sources, by source and field (`secretRef.name`).
const VOLUME_SECRET_REFS: [(&str, &str); 8] = [
    ("csi", "nodePublishSecretRef"),
    ("cephfs", "secretRef"),
    ("cinder", "secretRef"),
    ("flexVolume", "secretRef"),
    ("iscsi", "secretRef"),
    ("rbd", "secretRef"),
    ("scaleIO", "secretRef"),
    ("storageos", "secretRef"),
];

const CONTAINER_LISTS: [&str; 3] = ["initContainers", "containers", "ephemeralContainers"];

/// The pod spec at `spec` of an object in `ns`; `site` is where the spec is written.
pub fn spec<'a>(spec: Option<RawRef<'a>>, ns: &'a str, site: Site, out: &mut Vec<Ref<'a>>) {
    let Some(spec) = spec.filter(|s| s.is_object()) else {
        return;
    };
    let mut r = Refs { ns, out };
    volumes(spec, site, &mut r);
    for list in CONTAINER_LISTS {
        for (c, container) in items(spec.get(list)) {
            container_refs(container, site.step(list, c), &mut r);
        }
    }
    for (i, s) in items(spec.get("imagePullSecrets")) {
        r.named(
            "imagePullSecret",
            "",
            "Secret",
            s,
            "name",
            site.step("imagePullSecrets", i),
        );
    }
    let sa = ["serviceAccountName", "serviceAccount"]
        .iter()
        .find_map(|f| Some((*f, str_at(spec, f)?)));
    match sa {
        Some((field, name)) => r.push(
            "serviceAccount",
            "",
            "ServiceAccount",
            name,
            site.tail(field),
            false,
        ),
        None => r.push(
            "serviceAccount",
            "",
            "ServiceAccount",
            "default",
            site.tail("serviceAccountName"),
            true,
        ),
    }
    if let Some(pc) = str_at(spec, "priorityClassName") {
        let site = site.tail("priorityClassName");
        r.cluster(
            "priorityClass",
            "scheduling.k8s.io",
            "PriorityClass",
            pc,
            site,
        );
    }
    if let Some(rc) = str_at(spec, "runtimeClassName") {
        let site = site.tail("runtimeClassName");
        r.cluster("runtimeClass", "node.k8s.io", "RuntimeClass", rc, site);
    }
}

/// Volumes: ConfigMaps and Secrets (directly, projected, or as a volume plugin's
/// credentials) and PVCs.
fn volumes<'a>(spec: RawRef<'a>, site: Site, r: &mut Refs<'a, '_>) {
    for (v, vol) in items(spec.get("volumes")) {
        let at = site.step("volumes", v);
        if let Some(cm) = vol.get("configMap") {
            r.named("volume", "", "ConfigMap", cm, "name", at.tail("configMap"));
        }
        if let Some(s) = vol.get("secret") {
            r.named("volume", "", "Secret", s, "secretName", at.tail("secret"));
        }
        if let Some(claim) = vol.get("persistentVolumeClaim") {
            r.named(
                "pvc",
                "",
                "PersistentVolumeClaim",
                claim,
                "claimName",
                at.tail("persistentVolumeClaim"),
            );
        }
        if let Some(name) = vol.get("azureFile").and_then(|a| str_at(a, "secretName")) {
            r.push("volume", "", "Secret", name, at.tail("azureFile"), false);
        }
        for (source, field) in VOLUME_SECRET_REFS {
            if let Some(s) = vol.get(source).and_then(|s| s.get(field)) {
                r.named("volume", "", "Secret", s, "name", at.tail(source));
            }
        }
        let sources = vol.get("projected").and_then(|p| p.get("sources"));
        for (p, source) in items(sources) {
            let at = at.step("sources", p);
            if let Some(cm) = source.get("configMap") {
                r.named("volume", "", "ConfigMap", cm, "name", at.tail("configMap"));
            }
            if let Some(s) = source.get("secret") {
                r.named("volume", "", "Secret", s, "name", at.tail("secret"));
            }
        }
    }
}

/// A container's `envFrom` and `env[].valueFrom` ConfigMaps and Secrets.
fn container_refs<'a>(container: RawRef<'a>, site: Site, r: &mut Refs<'a, '_>) {
    for (e, from) in items(container.get("envFrom")) {
        let at = site.step("envFrom", e);
        if let Some(cm) = from.get("configMapRef") {
            r.named(
                "envFrom",
                "",
                "ConfigMap",
                cm,
                "name",
                at.tail("configMapRef"),
            );
        }
        if let Some(s) = from.get("secretRef") {
            r.named("envFrom", "", "Secret", s, "name", at.tail("secretRef"));
        }
    }
    for (e, var) in items(container.get("env")) {
        let Some(value_from) = var.get("valueFrom") else {
            continue;
        };
        let at = site.step("env", e);
        if let Some(cm) = value_from.get("configMapKeyRef") {
            r.named(
                "env",
                "",
                "ConfigMap",
                cm,
                "name",
                at.tail("valueFrom.configMapKeyRef"),
            );
        }
        if let Some(s) = value_from.get("secretKeyRef") {
            r.named(
                "env",
                "",
                "Secret",
                s,
                "name",
                at.tail("valueFrom.secretKeyRef"),
            );
        }
    }
}

/// Namespace-local references of one object.
struct Refs<'a, 'o> {
    ns: &'a str,
    out: &'o mut Vec<Ref<'a>>,
}

impl<'a> Refs<'a, '_> {
    /// The reference named by `holder[name_field]`, optional when `holder.optional` is true.
    fn named(
        &mut self,
        rel: &'static str,
        group: &'static str,
        kind: &'static str,
        holder: RawRef<'a>,
        name_field: &str,
        site: Site,
    ) {
        if let Some(name) = str_at(holder, name_field) {
            let optional = holder.get("optional").and_then(RawRef::as_bool) == Some(true);
            self.push(rel, group, kind, name, site, optional);
        }
    }

    fn push(
        &mut self,
        rel: &'static str,
        group: &'static str,
        kind: &'static str,
        name: &'a str,
        site: Site,
        optional: bool,
    ) {
        self.out.push(Ref {
            rel,
            target: Target {
                group,
                kind,
                namespace: self.ns,
                name,
            },
            site,
            optional,
            port: None,
        });
    }

    fn cluster(
        &mut self,
        rel: &'static str,
        group: &'static str,
        kind: &'static str,
        name: &'a str,
        site: Site,
    ) {
        self.out.push(Ref {
            rel,
            target: Target {
                group,
                kind,
                namespace: "",
                name,
            },
            site,
            optional: false,
            port: None,
        });
    }
}

/// A non-empty string member.
pub fn str_at<'a>(v: RawRef<'a>, key: &str) -> Option<&'a str> {
    v.get(key)
        .and_then(RawRef::as_str)
        .filter(|s| !s.is_empty())
}

/// The items of an array member (none when absent or not an array), with their index.
pub fn items<'a>(v: Option<RawRef<'a>>) -> impl Iterator<Item = (usize, RawRef<'a>)> {
    v.and_then(RawRef::as_array)
        .into_iter()
        .flat_map(|a| a.iter())
        .enumerate()
}

/// Where the pod spec of a template at `template` is written, for messages.
pub fn template_site(template: &'static str) -> Site {
    Site::at(template).in_template()
}
