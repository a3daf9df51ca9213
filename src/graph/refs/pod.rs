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

/// The pod spec at `spec` of an object in `ns`; `site` is where the spec is written. With
/// `ports`, the names of the ports its containers and init containers declare are added to
/// it (the target-port check reads them).
///
/// Each mapping is read in one pass over its entries (a lookup per field costs a scan per
/// field, and this runs for every Pod and workload); references come out in a fixed order:
/// volumes, containers (init, regular, ephemeral), pull secrets, ServiceAccount, classes.
pub fn spec<'a>(
    spec: Option<RawRef<'a>>,
    ns: &'a str,
    site: Site,
    out: &mut Vec<Ref<'a>>,
    mut ports: Option<&mut Vec<&'a str>>,
) {
    let Some(fields) = spec.and_then(RawRef::as_object) else {
        return;
    };
    let mut f = SpecFields::default();
    for (key, v) in fields {
        match key {
            "volumes" => f.volumes = Some(v),
            "initContainers" => f.lists[0] = Some(v),
            "containers" => f.lists[1] = Some(v),
            "ephemeralContainers" => f.lists[2] = Some(v),
            "imagePullSecrets" => f.pull = Some(v),
            "serviceAccountName" => f.sa = v.as_str().filter(|s| !s.is_empty()),
            "serviceAccount" => f.sa_deprecated = v.as_str().filter(|s| !s.is_empty()),
            "priorityClassName" => f.priority = v.as_str().filter(|s| !s.is_empty()),
            "runtimeClassName" => f.runtime = v.as_str().filter(|s| !s.is_empty()),
            _ => {}
        }
    }
    let mut r = Refs { ns, out };
    volumes(f.volumes, site, &mut r);
    for (l, (list, containers)) in CONTAINER_LISTS.iter().zip(f.lists).enumerate() {
        // Ephemeral containers declare no ports.
        let declared = if l < 2 { ports.as_deref_mut() } else { None };
        let mut declared = declared;
        for (c, container) in items(containers) {
            container_refs(
                container,
                site.step(list, c),
                &mut r,
                declared.as_deref_mut(),
            );
        }
    }
    for (i, s) in items(f.pull) {
        let at = site.step("imagePullSecrets", i);
        r.named("imagePullSecret", "", "Secret", s, "name", at);
    }
    let sa = match (f.sa, f.sa_deprecated) {
        (Some(name), _) => Some(("serviceAccountName", name)),
        (None, Some(name)) => Some(("serviceAccount", name)),
        (None, None) => None,
    };
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
    if let Some(pc) = f.priority {
        let site = site.tail("priorityClassName");
        r.cluster(
            "priorityClass",
            "scheduling.k8s.io",
            "PriorityClass",
            pc,
            site,
        );
    }
    if let Some(rc) = f.runtime {
        let site = site.tail("runtimeClassName");
        r.cluster("runtimeClass", "node.k8s.io", "RuntimeClass", rc, site);
    }
}

/// The fields of a pod spec that hold references.
#[derive(Default)]
struct SpecFields<'a> {
    volumes: Option<RawRef<'a>>,
    lists: [Option<RawRef<'a>>; 3],
    pull: Option<RawRef<'a>>,
    sa: Option<&'a str>,
    sa_deprecated: Option<&'a str>,
    priority: Option<&'a str>,
    runtime: Option<&'a str>,
}

/// Volumes: ConfigMaps and Secrets (directly, projected, or as a volume plugin's
/// credentials) and PVCs.
fn volumes<'a>(volumes: Option<RawRef<'a>>, site: Site, r: &mut Refs<'a, '_>) {
    for (v, vol) in items(volumes) {
        let at = site.step("volumes", v);
        for (source, src) in vol.as_object().into_iter().flatten() {
            match source {
                "name" => {}
                "configMap" => {
                    r.named("volume", "", "ConfigMap", src, "name", at.tail("configMap"))
                }
                "secret" => r.named("volume", "", "Secret", src, "secretName", at.tail("secret")),
                "persistentVolumeClaim" => r.named(
                    "pvc",
                    "",
                    "PersistentVolumeClaim",
                    src,
                    "claimName",
                    at.tail("persistentVolumeClaim"),
                ),
                "azureFile" => {
                    if let Some(name) = str_at(src, "secretName") {
                        r.push("volume", "", "Secret", name, at.tail("azureFile"), false);
                    }
                }
                "projected" => projected(src, at, r),
                _ => {
                    let plugin = VOLUME_SECRET_REFS.iter().find(|(s, _)| *s == source);
                    if let Some((source, field)) = plugin {
                        if let Some(s) = src.get(field) {
                            r.named("volume", "", "Secret", s, "name", at.tail(source));
                        }
                    }
                }
            }
        }
    }
}

/// The ConfigMaps and Secrets of a projected volume.
fn projected<'a>(projected: RawRef<'a>, at: Site, r: &mut Refs<'a, '_>) {
    for (p, source) in items(projected.get("sources")) {
        let at = at.step("sources", p);
        if let Some(cm) = source.get("configMap") {
            r.named("volume", "", "ConfigMap", cm, "name", at.tail("configMap"));
        }
        if let Some(s) = source.get("secret") {
            r.named("volume", "", "Secret", s, "name", at.tail("secret"));
        }
    }
}

/// A container's `envFrom` and `env[].valueFrom` ConfigMaps and Secrets, and the names of
/// its ports when `ports` is given.
fn container_refs<'a>(
    container: RawRef<'a>,
    site: Site,
    r: &mut Refs<'a, '_>,
    ports: Option<&mut Vec<&'a str>>,
) {
    let (mut env, mut env_from, mut declared) = (None, None, None);
    for (key, v) in container.as_object().into_iter().flatten() {
        match key {
            "env" => env = Some(v),
            "envFrom" => env_from = Some(v),
            "ports" => declared = Some(v),
            _ => {}
        }
    }
    if let Some(ports) = ports {
        ports.extend(items(declared).filter_map(|(_, p)| p.get("name").and_then(RawRef::as_str)));
    }
    for (e, from) in items(env_from) {
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
    for (e, var) in items(env) {
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
