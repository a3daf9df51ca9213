//! Turning a parsed value into an [`Object`]: apiVersion, kind and metadata are read once,
//! in place from the compact [`Raw`] encoding.

use serde_json::Value;

use std::sync::Arc;

use super::object::{group_of, Generated, MetaAt, MetaRefs, Object, ObjectData, ObjectId};
use super::object::{SourceSpan, Str, GENERATED};
use crate::kinds::canonical_group;
use crate::value::intern;
use crate::value::{Raw, RawKind, RawObject, RawRef};

/// Why a value is not a Kubernetes object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotAnObject {
    /// Not a mapping at all.
    NotAMapping,
    /// apiVersion and/or kind missing; holds upstream's validation phrasing.
    MissingTypeMeta(String),
    /// A metadata field has the wrong type (e.g. `labels` is a list); worded as kubectl's
    /// decoding (`json: cannot unmarshal …`).
    BadMetadata(String),
    /// `items` is neither an array nor null: kubectl cannot decode the document as a list.
    BadItems(String),
}

/// The top-level fields an object is read from, each the first entry of its key (as
/// `RawObject::get` finds it), gathered in one pass over the document.
#[derive(Clone, Copy, Default)]
struct Top<'a> {
    api_version: Option<RawRef<'a>>,
    kind: Option<RawRef<'a>>,
    items: Option<RawRef<'a>>,
    metadata: Option<RawRef<'a>>,
}

impl<'a> Top<'a> {
    fn read(map: RawObject<'a>) -> Top<'a> {
        let mut top = Top::default();
        for (key, v) in map.iter() {
            let slot = match key {
                "apiVersion" => &mut top.api_version,
                "kind" => &mut top.kind,
                "items" => &mut top.items,
                "metadata" => &mut top.metadata,
                _ => continue,
            };
            slot.get_or_insert(v);
        }
        top
    }
}

/// Upstream's wording for missing type fields (`error validating data: [apiVersion not set,
/// kind not set]`).
fn missing_type_meta(top: &Top<'_>) -> Option<String> {
    let set = |v: Option<RawRef<'_>>| non_empty(v).is_some();
    let mut missing = Vec::new();
    if !set(top.api_version) {
        missing.push("apiVersion not set");
    }
    if !set(top.kind) {
        missing.push("kind not set");
    }
    (!missing.is_empty()).then(|| missing.join(", "))
}

/// The string `v` holds, unless it is missing, not a string or empty.
fn non_empty(v: Option<RawRef<'_>>) -> Option<&str> {
    v.and_then(RawRef::as_str).filter(|s| !s.is_empty())
}

/// Go's type of an ObjectMeta / OwnerReference field, as its JSON decoder names it.
#[derive(Clone, Copy)]
enum GoType {
    /// A string type (`string`, `types.UID`).
    Str(&'static str),
    Int64,
    Bool,
    StrMap,
    StrList,
    OwnerRefs,
}

const OWNER_REFERENCE: [(&str, GoType); 6] = [
    ("apiVersion", GoType::Str("string")),
    ("blockOwnerDeletion", GoType::Bool),
    ("controller", GoType::Bool),
    ("kind", GoType::Str("string")),
    ("name", GoType::Str("string")),
    ("uid", GoType::Str("types.UID")),
];

/// Go's `UnmarshalTypeError` text: `json: cannot unmarshal number into Go struct field
/// ObjectMeta.metadata.name of type string`.
fn unmarshal_error(value: &str, field: impl std::fmt::Display, go_type: &str) -> String {
    format!("json: cannot unmarshal {value} into Go struct field {field} of type {go_type}")
}

/// A Go struct field as its decoder names it in errors: `Struct.path.to` and the key
/// (`ObjectMeta.metadata` + `name`), joined only when an error is worded: checking every
/// field of every object must not allocate.
#[derive(Clone, Copy)]
struct Field<'a> {
    prefix: &'static str,
    key: &'a str,
}

impl std::fmt::Display for Field<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.prefix, self.key)
    }
}

/// The metadata fields an object keeps, each the first entry of its key (as
/// `RawObject::get` finds it), gathered in one pass over `metadata`.
#[derive(Clone, Copy, Default)]
struct Meta<'a> {
    name: Option<RawRef<'a>>,
    generate_name: Option<RawRef<'a>>,
    namespace: Option<RawRef<'a>>,
    uid: Option<RawRef<'a>>,
    labels: Option<RawRef<'a>>,
    annotations: Option<RawRef<'a>>,
    finalizers: Option<RawRef<'a>>,
    created: Option<RawRef<'a>>,
    deleted: Option<RawRef<'a>>,
    grace: Option<RawRef<'a>>,
    owner_refs: Option<RawRef<'a>>,
}

impl<'a> Meta<'a> {
    /// The fields, or the first value kubectl's decoder refuses in `metadata`, worded as it
    /// words it (in key order, as the decoder meets them; null is always accepted).
    fn read(meta: RawObject<'a>) -> Result<Meta<'a>, String> {
        let mut m = Meta::default();
        for (key, v) in meta.iter() {
            // ObjectMeta's fields kubesift reads or kubectl would refuse, with their Go
            // types: one match per key (a linear search of a table was most of this loop).
            let str_type = GoType::Str("string");
            let (t, slot) = match key {
                "annotations" => (GoType::StrMap, Some(&mut m.annotations)),
                "creationTimestamp" => (str_type, Some(&mut m.created)),
                "deletionGracePeriodSeconds" => (GoType::Int64, Some(&mut m.grace)),
                "deletionTimestamp" => (str_type, Some(&mut m.deleted)),
                "finalizers" => (GoType::StrList, Some(&mut m.finalizers)),
                "generateName" => (str_type, Some(&mut m.generate_name)),
                "generation" => (GoType::Int64, None),
                "labels" => (GoType::StrMap, Some(&mut m.labels)),
                "name" => (str_type, Some(&mut m.name)),
                "namespace" => (str_type, Some(&mut m.namespace)),
                "ownerReferences" => (GoType::OwnerRefs, Some(&mut m.owner_refs)),
                "resourceVersion" => (str_type, None),
                "uid" => (GoType::Str("types.UID"), Some(&mut m.uid)),
                _ => continue,
            };
            let field = Field {
                prefix: "ObjectMeta.metadata",
                key,
            };
            if let Some(e) = field_error(v, t, field) {
                return Err(e);
            }
            if let Some(slot) = slot {
                slot.get_or_insert(v);
            }
        }
        Ok(m)
    }
}

impl<'a> Meta<'a> {
    /// The fields [`MetaAt`] keeps, as found in the same pass.
    fn at(&self) -> MetaRefs<'a> {
        MetaRefs {
            labels: self.labels,
            annotations: self.annotations,
            owner_refs: self.owner_refs,
            uid: self.uid,
            creation_timestamp: self.created,
            deletion_timestamp: self.deleted,
            deletion_grace_period_seconds: self.grace,
        }
    }
}

/// `v` decoded as `t` into the struct field `field`. Types are told by the encoding's tag
/// alone (a string's bytes are not decoded to check that it is a string).
fn field_error(v: RawRef<'_>, t: GoType, field: Field<'_>) -> Option<String> {
    if v.is_null() {
        return None;
    }
    let wrong = |go_type: &str| Some(unmarshal_error(raw_json_type(v), field, go_type));
    match t {
        GoType::Str(_) if v.is_string() => None,
        GoType::Str(go_type) => wrong(go_type),
        GoType::Bool if v.is_boolean() => None,
        GoType::Bool => wrong("bool"),
        GoType::Int64 if v.is_i64() => None,
        GoType::Int64 if v.is_number() => v
            .as_number()
            .map(|n| unmarshal_error(&format!("number {n}"), field, "int64")),
        GoType::Int64 => wrong("int64"),
        GoType::StrMap => match v.as_object() {
            // The common case, told in one tight pass; the error is worded below.
            Some(m) if m.values_are_strings() => None,
            Some(m) => m
                .values()
                .find_map(|v| field_error(v, GoType::Str("string"), field)),
            None => wrong("map[string]string"),
        },
        GoType::StrList => match v.as_array() {
            Some(a) => a
                .iter()
                .find_map(|v| field_error(v, GoType::Str("string"), field)),
            None => wrong("[]string"),
        },
        GoType::OwnerRefs => match v.as_array() {
            Some(a) => a.iter().find_map(|r| owner_ref_error(r, field)),
            None => wrong("[]v1.OwnerReference"),
        },
    }
}

fn owner_ref_error(r: RawRef<'_>, field: Field<'_>) -> Option<String> {
    if r.is_null() {
        return None;
    }
    let Some(m) = r.as_object() else {
        return Some(unmarshal_error(
            raw_json_type(r),
            field,
            "v1.OwnerReference",
        ));
    };
    m.iter().find_map(|(key, v)| {
        let (_, t) = OWNER_REFERENCE.iter().find(|(k, _)| *k == key)?;
        let field = Field {
            prefix: "OwnerReference.metadata.ownerReferences",
            key,
        };
        field_error(v, *t, field)
    })
}

/// What kubectl's decoder refuses before it looks at metadata: `items` that is not a
/// list (apimachinery's `decodeToList`), `metadata` that is not an object.
fn document_type_error<'a>(top: &Top<'a>) -> Result<Option<RawObject<'a>>, NotAnObject> {
    if let Some(items) = top.items {
        if !items.is_array() && !items.is_null() {
            return Err(NotAnObject::BadItems(unmarshal_error(
                raw_json_type(items),
                "decodeList.items",
                "[]json.RawMessage",
            )));
        }
    }
    match top.metadata.map(|m| (m, m.kind())) {
        None | Some((_, RawKind::Null)) => Ok(None),
        Some((_, RawKind::Object(m))) => Ok(Some(m)),
        Some((m, _)) => Err(NotAnObject::BadMetadata(unmarshal_error(
            raw_json_type(m),
            "metadataOnlyObject.metadata",
            "v1.ObjectMeta",
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

fn opt_str(v: Option<RawRef<'_>>) -> Option<Str> {
    non_empty(v).map(Str::from)
}

/// As [`opt_str`], shared with other objects carrying the same value.
fn opt_interned(v: Option<RawRef<'_>>) -> Option<Str> {
    non_empty(v).map(intern)
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
        let top = Top::read(map);
        if let Some(missing) = missing_type_meta(&top) {
            return Err(NotAnObject::MissingTypeMeta(missing));
        }
        let api_version = opt_interned(top.api_version).unwrap_or_else(|| intern(""));
        let kind = opt_interned(top.kind).unwrap_or_else(|| intern(""));
        let meta = match document_type_error(&top)? {
            Some(m) => Meta::read(m).map_err(NotAnObject::BadMetadata)?,
            None => Meta::default(),
        };
        let declared_namespace = opt_interned(meta.namespace);
        let namespace_declared = declared_namespace.is_some();
        let finalizers = match meta.finalizers.and_then(RawRef::as_array) {
            Some(a) => a.iter().filter_map(RawRef::as_str).map(intern).collect(),
            None => Box::default(),
        };
        let (name, generated) = match (opt_str(meta.name), opt_str(meta.generate_name)) {
            (Some(name), _) => (name, None),
            (None, Some(prefix)) => {
                let at = Generated {
                    path: Arc::clone(&source.path),
                    ordinal: 0,
                };
                (
                    Str::from(format!("{prefix}{GENERATED}")),
                    Some(Arc::new(at)),
                )
            }
            (None, None) => (Str::from(""), None),
        };
        let id = ObjectId {
            group: intern(canonical_group(group_of(&api_version), &kind)),
            kind,
            namespace: declared_namespace.unwrap_or_else(|| intern("")),
            name,
            generated,
        };
        Ok(Object::new(ObjectData {
            id,
            api_version,
            namespace_declared,
            meta: MetaAt::of(&raw, &meta.at()),
            finalizers,
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
            target: None,
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
        assert_eq!(o.labels().get("app"), Some("web"));
        assert!(o.is_terminating());
        let owner = o.owner_refs().first().unwrap();
        assert_eq!((owner.controller, owner.uid), (Some(true), ""));
        assert_eq!(o.kubectl_name(), "deployment.apps/web");
    }

    #[test]
    fn a_legacy_group_is_identified_by_the_current_one_and_printed_as_written() {
        let v = json!({"apiVersion": "extensions/v1beta1", "kind": "Deployment",
            "metadata": {"name": "web"}});
        let o = Object::from_value(v, span()).unwrap();
        assert_eq!(&*o.id.group, "apps");
        assert_eq!(o.kubectl_name(), "deployment.extensions/web");
        let owned = json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {
            "name": "web-1", "ownerReferences": [
                {"apiVersion": "extensions/v1beta1", "kind": "Deployment", "name": "web", "uid": "u"},
                {"apiVersion": "extensions/v1beta1", "kind": "Scale", "name": "s", "uid": "v"}]}});
        let o = Object::from_value(owned, span()).unwrap();
        let groups: Vec<&str> = o.owner_refs().iter().map(|r| r.group()).collect();
        assert_eq!(groups, ["apps", "extensions"]);
    }

    #[test]
    fn objects_named_by_generate_name_alone_are_each_their_own() {
        let text = "apiVersion: v1\nkind: Pod\nmetadata: {generateName: web-}\n---\n\
                    apiVersion: v1\nkind: Pod\nmetadata: {name: web-1, generateName: web-}\n---\n\
                    apiVersion: v1\nkind: Pod\nmetadata: {generateName: web-}\n";
        let load = crate::model::load::parse_text(&Arc::from(Path::new("p.yaml")), text);
        let ids: Vec<_> = load.objects.iter().map(|o| o.id.clone()).collect();
        assert_eq!(ids[0].name, ids[2].name);
        assert_eq!(&*ids[0].name, "web-<generated>");
        assert_ne!(ids[0], ids[2]);
        let ordinals: Vec<Option<u32>> = ids
            .iter()
            .map(|id| id.generated.as_ref().map(|g| g.ordinal))
            .collect();
        assert_eq!(ordinals, [Some(0), None, Some(1)]);
        // The same place in another file is another object.
        let other = crate::model::load::parse_text(&Arc::from(Path::new("q.yaml")), text);
        assert_ne!(other.objects[0].id, ids[0]);
        assert!(crate::model::duplicates(&load.objects).is_empty());
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

    /// Each as `kubectl label --local -f FILE k=v` prints it (kubectl 1.3x).
    #[test]
    fn metadata_errors_are_worded_as_kubectl_decodes() {
        let go = |value: &str, field: &str, t: &str| {
            format!("json: cannot unmarshal {value} into Go struct field {field} of type {t}")
        };
        let meta = "ObjectMeta.metadata";
        assert_eq!(
            bad(json!("x")),
            go("string", "metadataOnlyObject.metadata", "v1.ObjectMeta")
        );
        assert_eq!(
            bad(json!({"labels": ["a"]})),
            go("array", &format!("{meta}.labels"), "map[string]string")
        );
        assert_eq!(
            bad(json!({"annotations": {"a": "x", "b": 1}})),
            go("number", &format!("{meta}.annotations"), "string")
        );
        assert_eq!(
            bad(json!({"ownerReferences": "x"})),
            go(
                "string",
                &format!("{meta}.ownerReferences"),
                "[]v1.OwnerReference"
            )
        );
        assert_eq!(
            bad(json!({"ownerReferences": [true]})),
            go(
                "bool",
                &format!("{meta}.ownerReferences"),
                "v1.OwnerReference"
            )
        );
        assert_eq!(
            bad(json!({"ownerReferences": [{"controller": "yes"}]})),
            go(
                "string",
                "OwnerReference.metadata.ownerReferences.controller",
                "bool"
            )
        );
        assert_eq!(
            bad(json!({"namespace": false})),
            go("bool", &format!("{meta}.namespace"), "string")
        );
        assert_eq!(
            bad(json!({"name": 12345})),
            go("number", &format!("{meta}.name"), "string")
        );
        assert_eq!(
            bad(json!({"uid": 1})),
            go("number", &format!("{meta}.uid"), "types.UID")
        );
        assert_eq!(
            bad(json!({"finalizers": "x"})),
            go("string", &format!("{meta}.finalizers"), "[]string")
        );
        assert_eq!(
            bad(json!({"finalizers": ["a", 1]})),
            go("number", &format!("{meta}.finalizers"), "string")
        );
        assert_eq!(
            bad(json!({"generation": 1.5})),
            go("number 1.5", &format!("{meta}.generation"), "int64")
        );
        assert_eq!(
            bad(json!({"generation": "1"})),
            go("string", &format!("{meta}.generation"), "int64")
        );
        assert_eq!(
            bad(json!({"deletionGracePeriodSeconds": true})),
            go(
                "bool",
                &format!("{meta}.deletionGracePeriodSeconds"),
                "int64"
            )
        );
        assert_eq!(
            bad(json!({"labels": {"a": {"b": "c"}}})),
            go("object", &format!("{meta}.labels"), "string")
        );
        // The first in key order, as the decoder meets them; unknown keys are ignored.
        assert_eq!(
            bad(json!({"ownerReferences": 1, "annotations": [], "labels": 2, "aaa": 1})),
            go("array", &format!("{meta}.annotations"), "map[string]string")
        );
        // null is accepted everywhere.
        let v = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": null,
            "labels": {"a": null}, "finalizers": [null], "generation": null, "uid": null}});
        assert!(Object::from_raw(Raw::from_value(&v), span()).is_ok());
    }

    #[test]
    fn items_that_are_not_a_list_are_refused() {
        for items in [json!({"a": "b"}), json!("x"), json!(5)] {
            let v = json!({"apiVersion": "v1", "kind": "List", "items": items});
            let want = format!(
                "json: cannot unmarshal {} into Go struct field decodeList.items of type []json.RawMessage",
                json_type(&items)
            );
            assert_eq!(
                Object::from_raw(Raw::from_value(&v), span()).unwrap_err(),
                NotAnObject::BadItems(want)
            );
        }
    }

    #[test]
    fn from_raw_reads_in_place_and_keeps_the_buffer() {
        let v = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {
            "generateName": "g-", "labels": {"b": null, "a": "1"}, "annotations": null,
            "ownerReferences": null, "finalizers": ["f", null, "g"],
            "deletionGracePeriodSeconds": null}});
        let raw = Raw::from_value(&v);
        let o = Object::from_raw(raw.clone(), span()).unwrap();
        assert!(Raw::ptr_eq(&o.raw, &raw));
        assert_eq!(&*o.id.name, "g-<generated>");
        assert!(o.id.generated.is_some());
        let labels: Vec<(&str, &str)> = o.labels().iter().collect();
        assert_eq!(labels, [("a", "1"), ("b", "")]);
        assert!(o.annotations().is_empty() && o.owner_refs().is_empty());
        let finalizers: Vec<&str> = o.finalizers.iter().map(|f| &**f).collect();
        assert_eq!(finalizers, ["f", "g"]);
        assert_eq!(o.deletion_grace_period_seconds(), None);
        assert_eq!(o.declared_namespace(), None);
        assert_eq!(
            Object::from_raw(
                Raw::from_value(&json!({"metadata": null, "kind": "K", "apiVersion": 1})),
                span()
            )
            .unwrap_err(),
            NotAnObject::MissingTypeMeta("apiVersion not set".into())
        );
    }

    /// The offsets found in `from_raw`'s one pass over `metadata` are those of a lookup per
    /// key.
    #[test]
    fn metadata_offsets_match_lookups_by_key() {
        let metas = [
            json!({}),
            json!({"name": "a", "labels": {"x": "1"}, "annotations": {"y": "2"},
                "uid": "u", "creationTimestamp": "2024-01-01T00:00:00Z",
                "deletionTimestamp": "2024-01-02T00:00:00Z", "deletionGracePeriodSeconds": 30,
                "ownerReferences": [{"kind": "K", "name": "o"}], "generation": 2,
                "resourceVersion": "7", "finalizers": ["f"], "zzz": [1]}),
            json!({"name": "a", "labels": null, "annotations": null, "uid": "",
                "creationTimestamp": null, "deletionGracePeriodSeconds": null,
                "ownerReferences": null}),
            json!({"name": "a", "labels": {}, "uid": "x", "deletionGracePeriodSeconds": -1,
                "ownerReferences": []}),
        ];
        for meta in metas {
            let v = json!({"apiVersion": "v1", "kind": "Pod", "metadata": meta});
            let o = Object::from_value(v, span()).unwrap();
            assert_eq!(o.meta, MetaAt::find(&o.raw), "{meta}");
        }
        let no_meta = Object::from_value(json!({"apiVersion": "v1", "kind": "Pod"}), span());
        assert_eq!(no_meta.unwrap().meta, MetaAt::default());
    }
}
