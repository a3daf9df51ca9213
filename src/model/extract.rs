//! Turning a parsed JSON value into an [`Object`]: apiVersion, kind and metadata are read once.

use serde_json::{Map, Value};

use super::intern::intern;
use super::object::{group_of, Labels, Object, ObjectData, ObjectId, OwnerRef, SourceSpan, Str};
use super::raw::Raw;

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
fn missing_type_meta(map: &Map<String, Value>) -> Option<String> {
    let set = |k: &str| {
        map.get(k)
            .and_then(Value::as_str)
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

fn string_map(meta: &Map<String, Value>, field: &str) -> Result<Labels, NotAnObject> {
    match meta.get(field) {
        None | Some(Value::Null) => Ok(Labels::new()),
        Some(Value::Object(m)) => m
            .iter()
            .map(|(k, v)| match v {
                Value::String(s) => Ok((intern(k), intern(s))),
                Value::Null => Ok((intern(k), intern(""))),
                other => Err(NotAnObject::BadMetadata(format!(
                    "metadata.{field}.{k}: expected a string, found {}",
                    json_type(other)
                ))),
            })
            .collect(),
        Some(other) => Err(NotAnObject::BadMetadata(format!(
            "metadata.{field}: expected a map of strings, found {}",
            json_type(other)
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

fn opt_str(map: &Map<String, Value>, key: &str) -> Option<Str> {
    map.get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(Str::from)
}

/// As [`opt_str`], shared with other objects carrying the same value.
fn opt_interned(map: &Map<String, Value>, key: &str) -> Option<Str> {
    map.get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(intern)
}

fn owner_refs(meta: &Map<String, Value>) -> Result<Vec<OwnerRef>, NotAnObject> {
    let Some(list) = meta.get("ownerReferences") else {
        return Ok(Vec::new());
    };
    let items = match list {
        Value::Null => return Ok(Vec::new()),
        Value::Array(items) => items,
        other => {
            return Err(NotAnObject::BadMetadata(format!(
                "metadata.ownerReferences: expected an array, found {}",
                json_type(other)
            )))
        }
    };
    items
        .iter()
        .map(|item| {
            let m = item.as_object().ok_or_else(|| {
                NotAnObject::BadMetadata(format!(
                    "metadata.ownerReferences: expected objects, found {}",
                    json_type(item)
                ))
            })?;
            let s = |k: &str| m.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
            Ok(OwnerRef {
                api_version: s("apiVersion"),
                kind: s("kind"),
                name: s("name"),
                uid: s("uid"),
                controller: m.get("controller").and_then(Value::as_bool),
                block_owner_deletion: m.get("blockOwnerDeletion").and_then(Value::as_bool),
            })
        })
        .collect()
}

impl Object {
    /// Builds an object from a parsed value.
    ///
    /// The namespace is taken as written; scope resolution (defaulting to `default`,
    /// dropping nothing) happens when the inventory is built, since a CRD elsewhere in the
    /// input may declare the kind.
    ///
    /// `raw` is encoded into the object's compact [`Raw`] form and dropped.
    pub fn from_value(raw: Value, source: SourceSpan) -> Result<Object, NotAnObject> {
        let Value::Object(map) = &raw else {
            return Err(NotAnObject::NotAMapping);
        };
        if let Some(missing) = missing_type_meta(map) {
            return Err(NotAnObject::MissingTypeMeta(missing));
        }
        let api_version = opt_interned(map, "apiVersion").unwrap_or_else(|| intern(""));
        let kind = opt_interned(map, "kind").unwrap_or_else(|| intern(""));
        let empty = Map::new();
        let meta = match map.get("metadata") {
            None | Some(Value::Null) => &empty,
            Some(Value::Object(m)) => m,
            Some(other) => {
                return Err(NotAnObject::BadMetadata(format!(
                    "metadata: expected an object, found {}",
                    json_type(other)
                )))
            }
        };
        let declared_namespace = opt_interned(meta, "namespace");
        let finalizers = match meta.get("finalizers") {
            Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).map(intern).collect(),
            _ => Vec::new(),
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
                .and_then(Value::as_i64),
            namespaced: false,
            source,
            raw: Raw::from_value(&raw),
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
}
