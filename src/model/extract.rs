//! Turning a parsed value into an [`Object`]: apiVersion, kind and metadata are read once,
//! in place from the compact [`Raw`] encoding.

use serde_json::Value;

use super::object::{group_of, Labels, Object, ObjectData, ObjectId, OwnerRef, SourceSpan, Str};
use crate::value::intern;
use crate::value::{Raw, RawKind, RawObject, RawRef};

/// Why a value is not a Kubernetes object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotAnObject {
    /// Not a mapping at all.
    NotAMapping,
    /// apiVersion and/or kind missing; holds upstream's validation phrasing.
    MissingTypeMeta(String),
    /// A metadata field has the wrong type (e.g. `labels` is a list).
    BadMetadata(String),
}

/// Upstream's wording for missing type fields (`error validating data: [apiVersion not set,
/// kind not set]`).
fn missing_type_meta(map: RawObject<'_>) -> Option<String> {
    let set = |k: &str| {
        map.get(k)
            .and_then(RawRef::as_str)
            .is_some_and(|s| !s.is_empty())
    };
    let mut missing = Vec::new();
    if !set("apiVersion") {
        missing.push("apiVersion not set");
    }
    if !set("kind") {
        missing.push("kind not set");
    }
    (!missing.is_empty()).then(|| missing.join(", "))
}

fn string_map(meta: RawObject<'_>, field: &str) -> Result<Labels, NotAnObject> {
    let Some(v) = meta.get(field) else {
        return Ok(Labels::new());
    };
    match v.kind() {
        RawKind::Null => Ok(Labels::new()),
        RawKind::Object(m) => m
            .iter()
            .map(|(k, v)| match v.kind() {
                RawKind::String(s) => Ok((intern(k), intern(s))),
                RawKind::Null => Ok((intern(k), intern(""))),
                _ => Err(NotAnObject::BadMetadata(format!(
                    "metadata.{field}.{k}: expected a string, found {}",
                    raw_json_type(v)
                ))),
            })
            .collect(),
        _ => Err(NotAnObject::BadMetadata(format!(
            "metadata.{field}: expected a map of strings, found {}",
            raw_json_type(v)
        ))),
    }
}

/// JSON type name as Go's decoder words it in errors.
pub fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// [`json_type`] of an encoded value.
pub fn raw_json_type(v: RawRef<'_>) -> &'static str {
    match v.kind() {
        RawKind::Null => "null",
        RawKind::Bool(_) => "bool",
        RawKind::Number(_) => "number",
        RawKind::String(_) => "string",
        RawKind::Array(_) => "array",
        RawKind::Object(_) => "object",
    }
}

fn opt_str(map: RawObject<'_>, key: &str) -> Option<Str> {
    map.get(key)
        .and_then(RawRef::as_str)
        .filter(|s| !s.is_empty())
        .map(Str::from)
}

/// As [`opt_str`], shared with other objects carrying the same value.
fn opt_interned(map: RawObject<'_>, key: &str) -> Option<Str> {
    map.get(key)
        .and_then(RawRef::as_str)
        .filter(|s| !s.is_empty())
        .map(intern)
}

fn owner_refs(meta: RawObject<'_>) -> Result<Vec<OwnerRef>, NotAnObject> {
    let Some(list) = meta.get("ownerReferences") else {
        return Ok(Vec::new());
    };
    let items = match list.kind() {
        RawKind::Null => return Ok(Vec::new()),
        RawKind::Array(items) => items,
        _ => {
            return Err(NotAnObject::BadMetadata(format!(
                "metadata.ownerReferences: expected an array, found {}",
                raw_json_type(list)
            )))
        }
    };
    items
        .iter()
        .map(|item| {
            let m = item.as_object().ok_or_else(|| {
                NotAnObject::BadMetadata(format!(
                    "metadata.ownerReferences: expected objects, found {}",
                    raw_json_type(item)
                ))
            })?;
            let s = |k: &str| m.get(k).and_then(RawRef::as_str).unwrap_or("").to_owned();
            Ok(OwnerRef {
                api_version: s("apiVersion"),
                kind: s("kind"),
                name: s("name"),
                uid: s("uid"),
                controller: m.get("controller").and_then(RawRef::as_bool),
                block_owner_deletion: m.get("blockOwnerDeletion").and_then(RawRef::as_bool),
            })
        })
        .collect()
}

impl Object {
    /// Builds an object from a parsed value (encodes it, then as [`Object::from_raw`]).
    pub fn from_value(raw: Value, source: SourceSpan) -> Result<Object, NotAnObject> {
        Object::from_raw(Raw::from_value(&raw), source)
    }

    /// Builds an object from an encoded value, which it keeps as its `raw`.
    ///
    /// The namespace is taken as written; scope resolution (defaulting to `default`,
    /// dropping nothing) happens when the inventory is built, since a CRD elsewhere in the
    /// input may declare the kind.
    pub fn from_raw(raw: Raw, source: SourceSpan) -> Result<Object, NotAnObject> {
        let Some(map) = raw.view().as_object() else {
            return Err(NotAnObject::NotAMapping);
        };
        if let Some(missing) = missing_type_meta(map) {
            return Err(NotAnObject::MissingTypeMeta(missing));
        }
        let api_version = opt_interned(map, "apiVersion").unwrap_or_else(|| intern(""));
        let kind = opt_interned(map, "kind").unwrap_or_else(|| intern(""));
        let meta = match map.get("metadata").map(RawRef::kind) {
            None | Some(RawKind::Null) => RawObject::default(),
            Some(RawKind::Object(m)) => m,
            Some(_) => {
                return Err(NotAnObject::BadMetadata(format!(
                    "metadata: expected an object, found {}",
                    map.get("metadata").map_or("null", raw_json_type)
                )))
            }
        };
        let declared_namespace = opt_interned(meta, "namespace");
        let finalizers = match meta.get("finalizers").and_then(RawRef::as_array) {
            Some(a) => a.iter().filter_map(RawRef::as_str).map(intern).collect(),
            None => Vec::new(),
        };
        let id = ObjectId {
            group: intern(group_of(&api_version)),
            kind,
            namespace: declared_namespace.clone().unwrap_or_else(|| intern("")),
            name: opt_str(meta, "name")
                .or_else(|| opt_str(meta, "generateName"))
                .unwrap_or_else(|| Str::from("")),
        };
        Ok(Object::new(ObjectData {
            id,
            api_version,
            declared_namespace,
            uid: opt_str(meta, "uid"),
            labels: string_map(meta, "labels")?,
            annotations: string_map(meta, "annotations")?,
            owner_refs: owner_refs(meta)?,
            finalizers,
            creation_timestamp: opt_str(meta, "creationTimestamp"),
            deletion_timestamp: opt_str(meta, "deletionTimestamp"),
            deletion_grace_period_seconds: meta
                .get("deletionGracePeriodSeconds")
                .and_then(RawRef::as_i64),
            namespaced: false,
            source,
            raw,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::path::Path;
    use std::sync::Arc;

    fn span() -> SourceSpan {
        SourceSpan {
            path: Arc::from(Path::new("x.yaml")),
            line: 1,
            start: 0,
            end: 0,
        }
    }

    #[test]
    fn extracts_metadata() {
        let v = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {
            "name": "web", "namespace": "shop", "uid": "u1", "labels": {"app": "web"},
            "finalizers": ["foregroundDeletion"], "deletionTimestamp": "2024-01-01T00:00:00Z",
            "ownerReferences": [{"apiVersion": "v1", "kind": "X", "name": "x", "controller": true}]}});
        let o = Object::from_value(v, span()).unwrap();
        assert_eq!(&*o.id.group, "apps");
        assert_eq!(&*o.id.namespace, "shop");
        assert_eq!(o.labels.get("app").map(|s| &**s), Some("web"));
        assert!(o.is_terminating());
        assert_eq!(o.owner_refs[0].controller, Some(true));
        assert_eq!(o.owner_refs[0].uid, "");
        assert_eq!(o.id.kubectl_name(), "deployment.apps/web");
    }

    #[test]
    fn rejects_non_objects() {
        assert_eq!(
            Object::from_value(json!([1]), span()).unwrap_err(),
            NotAnObject::NotAMapping
        );
        assert_eq!(
            Object::from_value(json!({"metadata": {}}), span()).unwrap_err(),
            NotAnObject::MissingTypeMeta("apiVersion not set, kind not set".into())
        );
        assert!(matches!(
            Object::from_value(
                json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"labels": ["a"]}}),
                span()
            ),
            Err(NotAnObject::BadMetadata(_))
        ));
    }

    fn bad(metadata: Value) -> String {
        let v = json!({"apiVersion": "v1", "kind": "Pod", "metadata": metadata});
        match Object::from_raw(Raw::from_value(&v), span()) {
            Err(NotAnObject::BadMetadata(m)) => m,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn metadata_errors_are_worded_as_before() {
        assert_eq!(
            bad(json!("x")),
            "metadata: expected an object, found string"
        );
        assert_eq!(
            bad(json!({"labels": ["a"]})),
            "metadata.labels: expected a map of strings, found array"
        );
        assert_eq!(
            bad(json!({"annotations": {"a": "x", "b": 1}})),
            "metadata.annotations.b: expected a string, found number"
        );
        assert_eq!(
            bad(json!({"labels": {"a": {}}})),
            "metadata.labels.a: expected a string, found object"
        );
        assert_eq!(
            bad(json!({"ownerReferences": "x"})),
            "metadata.ownerReferences: expected an array, found string"
        );
        assert_eq!(
            bad(json!({"ownerReferences": [true]})),
            "metadata.ownerReferences: expected objects, found bool"
        );
        // Labels are checked before annotations, annotations before owner references.
        assert_eq!(
            bad(json!({"ownerReferences": 1, "annotations": [], "labels": 2})),
            "metadata.labels: expected a map of strings, found number"
        );
    }

    #[test]
    fn from_raw_reads_in_place_and_keeps_the_buffer() {
        let v = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {
            "generateName": "g-", "labels": {"b": null, "a": "1"}, "annotations": null,
            "ownerReferences": null, "finalizers": ["f", 1, "g"],
            "deletionGracePeriodSeconds": 1.5}});
        let raw = Raw::from_value(&v);
        let o = Object::from_raw(raw.clone(), span()).unwrap();
        assert!(Raw::ptr_eq(&o.raw, &raw));
        assert_eq!(&*o.id.name, "g-");
        let labels: Vec<(&str, &str)> = o.labels.iter().map(|(k, v)| (&**k, &**v)).collect();
        assert_eq!(labels, [("a", "1"), ("b", "")]);
        assert!(o.annotations.is_empty() && o.owner_refs.is_empty());
        let finalizers: Vec<&str> = o.finalizers.iter().map(|f| &**f).collect();
        assert_eq!(finalizers, ["f", "g"]);
        assert_eq!(o.deletion_grace_period_seconds, None);
        assert_eq!(o.declared_namespace, None);
        assert_eq!(
            Object::from_raw(
                Raw::from_value(&json!({"metadata": null, "kind": "K", "apiVersion": 1})),
                span()
            )
            .unwrap_err(),
            NotAnObject::MissingTypeMeta("apiVersion not set".into())
        );
    }
}
