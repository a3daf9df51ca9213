//! Recommended labels (`app.kubernetes.io/*`): grouping objects into applications and
//! flagging objects of one application instance that disagree on `version`/`managed-by`.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap as HashMap;

use crate::diagnostic::{Diagnostic, Severity};
use crate::gocompat::quote::Quoted;
use crate::model::{Inventory, Object};

pub const PART_OF: &str = "app.kubernetes.io/part-of";
pub const NAME: &str = "app.kubernetes.io/name";
pub const INSTANCE: &str = "app.kubernetes.io/instance";
pub const COMPONENT: &str = "app.kubernetes.io/component";
pub const VERSION: &str = "app.kubernetes.io/version";
pub const MANAGED_BY: &str = "app.kubernetes.io/managed-by";

/// Code of the findings this module makes.
pub const DISAGREEMENT: &str = "app-label-disagreement";

/// component → object indices.
pub type Components = BTreeMap<String, Vec<usize>>;
/// part-of → name → instance → component → object indices; a missing label is `""`.
pub type AppGroups = BTreeMap<String, BTreeMap<String, BTreeMap<String, Components>>>;

fn label<'a>(o: &'a Object, key: &str) -> &'a str {
    o.labels().get(key).unwrap_or("")
}

fn has_app_labels(o: &Object) -> bool {
    [PART_OF, NAME, INSTANCE, COMPONENT]
        .iter()
        .any(|k| o.labels().contains_key(k))
}

/// Groups every object carrying at least one of part-of/name/instance/component.
pub fn group(objects: &[Object]) -> AppGroups {
    let mut groups = AppGroups::new();
    for (i, o) in objects
        .iter()
        .enumerate()
        .filter(|(_, o)| has_app_labels(o))
    {
        groups
            .entry(label(o, PART_OF).to_owned())
            .or_default()
            .entry(label(o, NAME).to_owned())
            .or_default()
            .entry(label(o, INSTANCE).to_owned())
            .or_default()
            .entry(label(o, COMPONENT).to_owned())
            .or_default()
            .push(i);
    }
    groups
}

/// One warning per object whose `version` or `managed-by` differs from the value most
/// objects of the same application instance (part-of, name, instance) carry.
pub fn findings(inv: &Inventory) -> Vec<Diagnostic> {
    findings_among(inv, 0..inv.objects.len())
}

/// The application instance `o` belongs to: (part-of, name, instance), `""` for a missing
/// label; `None` without a name or instance label.
pub fn instance_of(o: &Object) -> Option<(&str, &str, &str)> {
    (o.labels().contains_key(NAME) || o.labels().contains_key(INSTANCE))
        .then(|| (label(o, PART_OF), label(o, NAME), label(o, INSTANCE)))
}

/// [`findings`] for the instances of the objects `among` (ascending), which must hold
/// every member of each of these instances.
pub fn findings_among(inv: &Inventory, among: impl Iterator<Item = usize>) -> Vec<Diagnostic> {
    let mut instances: BTreeMap<(&str, &str, &str), Vec<usize>> = BTreeMap::new();
    for i in among {
        if let Some(key) = instance_of(&inv.objects[i]) {
            instances.entry(key).or_default().push(i);
        }
    }
    let mut out = Vec::new();
    for ((_, name, instance), members) in instances {
        for key in [VERSION, MANAGED_BY] {
            out.extend(disagreements(inv, name, instance, &members, key));
        }
    }
    out
}

fn disagreements(
    inv: &Inventory,
    name: &str,
    instance: &str,
    members: &[usize],
    key: &str,
) -> Vec<Diagnostic> {
    let mut counts: HashMap<&str, usize> = HashMap::default();
    for &i in members {
        if let Some(v) = inv.objects[i].labels().get(key) {
            *counts.entry(v).or_default() += 1;
        }
    }
    if counts.len() < 2 {
        return Vec::new();
    }
    // Majority value; ties go to the lexically smallest so the output is stable.
    let Some((&major, &n)) = counts
        .iter()
        .max_by(|a, b| a.1.cmp(b.1).then_with(|| b.0.cmp(a.0)))
    else {
        return Vec::new();
    };
    members
        .iter()
        .filter_map(|&i| {
            let o = &inv.objects[i];
            let v = o.labels().get(key)?;
            (v != major).then(|| {
                o.finding(
                    i,
                    Severity::Warning,
                    DISAGREEMENT,
                    format!(
                        "{key} is {} but {n} other object(s) of app {} (instance {}) say {}",
                        Quoted(v),
                        Quoted(name),
                        Quoted(instance),
                        Quoted(major)
                    ),
                )
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::SourceSpan;
    use serde_json::json;
    use std::path::Path;
    use std::sync::Arc;

    fn inv(labels: &[serde_json::Value]) -> Inventory {
        let objects = labels
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let v = json!({"apiVersion": "v1", "kind": "ConfigMap",
                    "metadata": {"name": format!("c{i}"), "labels": l}});
                let span = SourceSpan {
                    path: Arc::from(Path::new("a.yaml")),
                    line: i as u32 + 1,
                    start: 0,
                    end: 0,
                    target: None,
                };
                Object::from_value(v, span).unwrap()
            })
            .collect();
        Inventory {
            objects,
            ..Inventory::default()
        }
    }

    #[test]
    fn groups_by_recommended_labels() {
        let inv = inv(&[
            json!({NAME: "web", INSTANCE: "web-1", COMPONENT: "api", PART_OF: "shop"}),
            json!({NAME: "web", INSTANCE: "web-1", COMPONENT: "db", PART_OF: "shop"}),
            json!({NAME: "web", INSTANCE: "web-1", COMPONENT: "api", PART_OF: "shop"}),
            json!({"app": "other"}),
        ]);
        let g = group(&inv.objects);
        let comps = &g["shop"]["web"]["web-1"];
        assert_eq!(comps["api"], vec![0, 2]);
        assert_eq!(comps["db"], vec![1]);
        assert_eq!(g.len(), 1);
    }

    #[test]
    fn flags_minority_version() {
        let inv = inv(&[
            json!({NAME: "web", INSTANCE: "w", VERSION: "1.2"}),
            json!({NAME: "web", INSTANCE: "w", VERSION: "1.2"}),
            json!({NAME: "web", INSTANCE: "w", VERSION: "1.3"}),
            json!({NAME: "web", INSTANCE: "other", VERSION: "9"}),
            json!({NAME: "web", INSTANCE: "w"}),
        ]);
        let f = findings(&inv);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].object, Some(2));
        assert_eq!(
            &*f[0].message,
            r#"app.kubernetes.io/version is "1.3" but 2 other object(s) of app "web" (instance "w") say "1.2""#
        );
    }
}
