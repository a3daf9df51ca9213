//! ownerReferences as the API server validates them on write (apimachinery's
//! `ValidateOwnerReferences`), before any owner is looked up. What the garbage collector
//! makes of a reference that resolves to nothing, or to the wrong object, is the graph's
//! (`graph/owners.rs`): that needs the other objects.

use crate::diagnostic::{Diagnostic, Severity};
use crate::gocompat::quote::Quoted;
use crate::model::{Object, OwnerRef, OwnerRefs};

/// Code of every finding here.
pub const INVALID: &str = "owner-ref-invalid";

/// Upstream `ValidateOwnerReferences` (apimachinery `pkg/api/validation/objectmeta.go`).
pub fn findings(i: usize, obj: &Object) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let mut push = |msg: String| out.push(obj.finding(i, Severity::Error, INVALID, msg));
    let mut first_controller: Option<String> = None;
    for r in obj.owner_refs() {
        for msg in validate_ref(&r) {
            push(msg);
        }
        if r.controller == Some(true) {
            let cur = format!("{}/{}", r.kind, r.name);
            match &first_controller {
                Some(first) => push(format!(
                    "metadata.ownerReferences: Invalid value: {}: Only one reference can have Controller set to true. Found \"true\" in references for {} and {}",
                    refs_value(obj.owner_refs()), first, cur
                )),
                None => first_controller = Some(cur),
            }
        }
    }
    out
}

/// A compact stand-in for Go's `%#v` of the reference list (which prints Go structs).
fn refs_value(refs: OwnerRefs<'_>) -> String {
    let items: Vec<String> = refs
        .iter()
        .map(|r| format!("{}/{}", r.kind, r.name))
        .collect();
    format!("[{}]", items.join(", "))
}

/// `schema.ParseGroupVersion`: zero or one `/`; anything else yields an empty version.
fn version_of(api_version: &str) -> &str {
    match api_version.matches('/').count() {
        0 => api_version,
        1 => api_version.split_once('/').map_or("", |(_, v)| v),
        _ => "",
    }
}

fn validate_ref(r: &OwnerRef) -> Vec<String> {
    let f = "metadata.ownerReferences";
    let mut out = Vec::new();
    let version = version_of(r.api_version);
    if version.is_empty() {
        out.push(format!(
            "{f}.apiVersion: Invalid value: {}: version must not be empty",
            Quoted(r.api_version)
        ));
    }
    for (field, value) in [("kind", &r.kind), ("name", &r.name), ("uid", &r.uid)] {
        if value.is_empty() {
            out.push(format!(
                "{f}.{field}: Invalid value: \"\": must not be empty"
            ));
        }
    }
    let group = if r.api_version.matches('/').count() == 1 {
        r.group()
    } else {
        ""
    };
    if group.is_empty() && version == "v1" && r.kind == "Event" {
        out.push(format!(
            "{f}: Invalid value: {}/{}: /v1, Kind=Event is disallowed from being an owner",
            r.kind, r.name
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::test_inventory;
    use serde_json::json;

    fn r<'a>(api: &'a str, kind: &'a str, name: &'a str, uid: &'a str) -> OwnerRef<'a> {
        OwnerRef {
            api_version: api,
            kind,
            name,
            uid,
            controller: None,
            block_owner_deletion: None,
        }
    }

    #[test]
    fn required_fields_use_upstream_wording() {
        let msgs = validate_ref(&r("apps/", "", "x", ""));
        assert_eq!(
            msgs,
            vec![
                r#"metadata.ownerReferences.apiVersion: Invalid value: "apps/": version must not be empty"#,
                r#"metadata.ownerReferences.kind: Invalid value: "": must not be empty"#,
                r#"metadata.ownerReferences.uid: Invalid value: "": must not be empty"#,
            ]
        );
        assert!(validate_ref(&r("apps/v1", "ReplicaSet", "x", "u")).is_empty());
        assert!(validate_ref(&r("a/b/c", "K", "x", "u"))[0].contains("version must not be empty"));
    }

    #[test]
    fn event_is_banned_owner() {
        let msgs = validate_ref(&r("v1", "Event", "e", "u"));
        assert_eq!(msgs.len(), 1);
        assert!(msgs[0].ends_with("/v1, Kind=Event is disallowed from being an owner"));
        assert!(validate_ref(&r("events.k8s.io/v1", "Event", "e", "u")).is_empty());
    }

    #[test]
    fn version_is_quoted_as_go_does() {
        let msgs = validate_ref(&r("ü/v1/\u{1b}", "K", "x", "u"));
        assert_eq!(
            msgs,
            vec![
                "metadata.ownerReferences.apiVersion: Invalid value: \"ü/v1/\\x1b\": version must not be empty"
            ]
        );
    }

    #[test]
    fn one_controller_only() {
        let inv = test_inventory(&[json!({"apiVersion": "v1", "kind": "Secret",
            "metadata": {"name": "s", "namespace": "a", "ownerReferences": [
                {"apiVersion": "v1", "kind": "ConfigMap", "name": "x", "uid": "old", "controller": true},
                {"apiVersion": "v1", "kind": "ConfigMap", "name": "y", "uid": "u2", "controller": true}]}})]);
        let found = findings(0, &inv.objects[0]);
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].code, found[0].object), (INVALID, Some(0)));
        assert_eq!(
            &*found[0].message,
            r#"metadata.ownerReferences: Invalid value: [ConfigMap/x, ConfigMap/y]: Only one reference can have Controller set to true. Found "true" in references for ConfigMap/x and ConfigMap/y"#
        );
    }
}
