//! The loaded picture: every object, every load problem, and the kind registry they resolve
//! against.

use rustc_hash::FxHashMap as HashMap;

use super::load::FileLoad;
use super::object::{group_of, Object, ObjectId};
use crate::diagnostic::{self, Diagnostic, Severity};
use crate::gocompat::quote::Quoted;
use crate::kinds::{KindOrigin, KindRegistry};

/// All objects and problems of one load.
#[derive(Clone, Debug, Default)]
pub struct Inventory {
    /// Objects in load order (files in walk order, documents in file order).
    pub objects: Vec<Object>,
    /// Load errors, notes and inventory-level warnings (duplicates, scope), in the
    /// diagnostics' order (`crate::diagnostic`).
    pub problems: Vec<Diagnostic>,
    pub kinds: KindRegistry,
    /// Files read (parsed or not).
    pub files: usize,
    /// Bytes read.
    pub bytes: u64,
}

impl Inventory {
    /// `objects` under `kinds`, with no problems, files or bytes. (`..Inventory::default()`
    /// would build the built-in kind registry only to drop it.)
    pub fn of(objects: Vec<Object>, kinds: KindRegistry) -> Inventory {
        Inventory {
            objects,
            problems: Vec::new(),
            kinds,
            files: 0,
            bytes: 0,
        }
    }

    /// Assembles per-file results: registers CRDs and guessed kinds, resolves every object's
    /// scope (namespaced objects without a namespace go to `default`), and reports
    /// duplicates and cluster-scoped objects that carry a namespace.
    pub fn build(loads: Vec<FileLoad>, walk_problems: Vec<Diagnostic>) -> Inventory {
        let mut inv = Inventory {
            problems: walk_problems,
            ..Inventory::default()
        };
        for load in loads {
            inv.files += 1;
            inv.bytes += load.bytes;
            inv.objects.extend(load.objects);
            inv.problems.extend(load.problems);
        }
        inv.kinds = registry_for(&inv.objects, &mut inv.problems);
        for obj in &mut inv.objects {
            if let Some(p) = resolve_scope(&inv.kinds, obj) {
                inv.problems.push(p);
            }
        }
        inv.problems.extend(duplicates(&inv.objects));
        diagnostic::sort(&mut inv.problems);
        inv
    }

    /// Number of error-level problems.
    pub fn error_count(&self) -> usize {
        self.problems
            .iter()
            .filter(|p| p.severity == Severity::Error)
            .count()
    }
}

/// Built-in kinds, plus every CRD in the input, plus guesses for the rest.
pub fn registry_for(objects: &[Object], problems: &mut Vec<Diagnostic>) -> KindRegistry {
    let mut kinds = KindRegistry::builtin();
    for o in objects.iter().filter(|o| is_crd(o)) {
        if let Err(e) = kinds.register_crd(o.raw.view()) {
            problems.push(Diagnostic::new(
                &o.source.path,
                o.source.line,
                1,
                Severity::Warning,
                "bad-crd",
                e,
            ));
        }
    }
    for o in objects {
        // What `register_guess` changes: an unknown kind, or a guessed one an object shows
        // a namespace for (a built-in or declared kind stays as it is). One lookup per
        // object instead of two.
        let changes = match kinds.get(&o.id.group, &o.id.kind) {
            None => true,
            Some(k) => k.origin == KindOrigin::Guessed && o.declared_namespace().is_some(),
        };
        if changes {
            let version = o.api_version.rsplit('/').next().unwrap_or("");
            kinds.register_guess(
                &o.id.group,
                version,
                &o.id.kind,
                o.declared_namespace().is_some(),
            );
        }
    }
    kinds
}

fn is_crd(o: &Object) -> bool {
    &*o.id.kind == "CustomResourceDefinition" && &*o.id.group == "apiextensions.k8s.io"
}

/// Sets `namespaced` and the effective namespace; returns a warning for a cluster-scoped
/// object that carries a namespace (kept and shown, as the user wrote it).
pub fn resolve_scope(kinds: &KindRegistry, obj: &mut Object) -> Option<Diagnostic> {
    let namespaced = kinds
        .is_namespaced(&obj.id.group, &obj.id.kind)
        .unwrap_or(obj.declared_namespace().is_some());
    // Written only when it changes: the object may be shared with an earlier snapshot.
    if obj.namespaced != namespaced {
        obj.make_mut().namespaced = namespaced;
    }
    match (obj.declared_namespace(), namespaced) {
        (None, true) => {
            if &*obj.id.namespace != "default" {
                obj.make_mut().id.namespace = crate::value::intern("default");
            }
            None
        }
        (Some(ns), false) => Some(Diagnostic::new(
            &obj.source.path,
            obj.source.line,
            1,
            Severity::Warning,
            "namespace-on-cluster-scoped",
            format!(
                "{} {} is cluster-scoped but sets metadata.namespace {} (the API server ignores it)",
                obj.id.kind,
                Quoted(&obj.id.name),
                Quoted(ns)
            ),
        )),
        _ => None,
    }
}

/// One warning per object whose identity was already seen, naming both places.
pub fn duplicates(objects: &[Object]) -> Vec<Diagnostic> {
    // Per target: two overlays of one base deploy to different places, not twice.
    type Key<'a> = (&'a ObjectId, Option<&'a std::path::Path>);
    let mut first: HashMap<Key<'_>, &Object> =
        HashMap::with_capacity_and_hasher(objects.len(), Default::default());
    let mut out = Vec::new();
    for o in objects {
        if o.id.name.is_empty() {
            continue;
        }
        let key = (&o.id, o.source.target.as_deref());
        match first.get(&key) {
            Some(prev) => out.push(Diagnostic::new(
                &o.source.path,
                o.source.line,
                1,
                Severity::Warning,
                "duplicate-object",
                duplicate_message(o, prev),
            )),
            None => {
                first.insert(key, o);
            }
        }
    }
    out
}

/// Names the two apiVersions when they are in different groups: the API server stores one
/// object for a legacy group and its current one, which the manifests do not show.
fn duplicate_message(o: &Object, prev: &Object) -> String {
    let mut m = format!("duplicate object {}: also defined at {}", o.id, prev.source);
    if group_of(&o.api_version) != group_of(&prev.api_version) {
        m.push_str(&format!(
            " ({} and {} are the same resource)",
            o.api_version, prev.api_version
        ));
    }
    m
}

/// Where objects start, to name the object of a diagnostic (see [`ObjectsAt::name`]); built
/// once per list of diagnostics, and only when one of them needs it.
pub struct ObjectsAt<'a> {
    inv: &'a Inventory,
    starts: Option<std::collections::HashMap<(&'a std::path::Path, u32), Vec<usize>>>,
}

/// Codes of load problems about one object, reported at the line its document starts.
const ABOUT_ONE_OBJECT: &[&str] = &["duplicate-object", "namespace-on-cluster-scoped"];

impl<'a> ObjectsAt<'a> {
    /// The starts of `inv`'s objects, indexed when some of `diagnostics` are load problems
    /// about one object.
    pub fn new(inv: &'a Inventory, diagnostics: &[Diagnostic]) -> ObjectsAt<'a> {
        let needed: std::collections::HashSet<(&std::path::Path, u32)> = diagnostics
            .iter()
            .filter(|d| d.object_index().is_none() && ABOUT_ONE_OBJECT.contains(&d.code))
            .map(|d| (&*d.path, d.line))
            .collect();
        // Only the places asked about: hashing every object's path cost more than naming a
        // few rows (the problems view names the rows on screen).
        let mut lines: Vec<u32> = needed.iter().map(|(_, l)| *l).collect();
        lines.sort_unstable();
        lines.dedup();
        let starts = (!needed.is_empty()).then(|| {
            let mut map: std::collections::HashMap<_, Vec<usize>> =
                std::collections::HashMap::new();
            for (i, o) in inv.objects.iter().enumerate() {
                let at = (&*o.source.path, o.source.line);
                if lines.binary_search(&at.1).is_ok() && needed.contains(&at) {
                    map.entry(at).or_default().push(i);
                }
            }
            map
        });
        ObjectsAt { inv, starts }
    }

    /// `Kind[.group]/[namespace/]name` of the object `d` is about. Load problems about one
    /// object (a duplicate, a namespace on a cluster-scoped object) carry no object index
    /// (the data layer splices objects and would leave it stale): they sit at the object's
    /// first line, and name it in their message when several objects start on that line.
    pub fn name(&self, d: &Diagnostic) -> Option<String> {
        let objects = &self.inv.objects;
        if let Some(o) = d.object_index().and_then(|i| objects.get(i)) {
            return Some(o.id.to_string());
        }
        if !ABOUT_ONE_OBJECT.contains(&d.code) {
            return None;
        }
        let here: Vec<&Object> = self
            .starts
            .as_ref()?
            .get(&(&*d.path, d.line))?
            .iter()
            .filter_map(|&i| objects.get(i))
            .collect();
        let named = |o: &&&Object| {
            d.message.contains(&o.id.to_string())
                || d.message
                    .contains(&format!("{} {}", o.id.kind, Quoted(&o.id.name)))
        };
        match here.as_slice() {
            [one] => Some(one.id.to_string()),
            many => many.iter().find(named).map(|o| o.id.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::sync::Arc;

    use super::*;
    use crate::model::load::parse_text;

    #[test]
    fn resolving_a_shared_object_copies_it_only_when_its_scope_changes() {
        let text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: shop}\n---\n\
                    apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n";
        let objs = parse_text(&Arc::from(Path::new("x.yaml")), text).objects;
        let builtin = KindRegistry::builtin();
        let [mut cm, mut widget] = [objs[0].clone(), objs[1].clone()];

        // Unshared: resolved in place.
        assert!(resolve_scope(&builtin, &mut cm).is_none());
        assert!(cm.namespaced && cm.namespace() == "shop");
        // Shared and already resolved: nothing written, still one copy.
        let mut again = cm.clone();
        assert!(resolve_scope(&builtin, &mut again).is_none());
        assert!(Object::ptr_eq(&again, &cm));

        // An unknown kind without a namespace is cluster-scoped until a CRD says otherwise;
        // the CRD's answer changes the shared object: the handle resolved gets its own copy.
        assert!(resolve_scope(&builtin, &mut widget).is_none());
        assert!(!widget.namespaced && widget.namespace().is_empty());
        let kept = widget.clone();
        let mut with_crd = builtin.clone();
        with_crd.register_guess("example.com", "v1", "Widget", true);
        assert!(resolve_scope(&with_crd, &mut widget).is_none());
        assert!(widget.namespaced && widget.namespace() == "default");
        assert!(!Object::ptr_eq(&widget, &kept));
        assert!(!kept.namespaced && kept.namespace().is_empty());
    }
}
