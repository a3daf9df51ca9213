//! The object model: one Kubernetes object read from a manifest, its identity and source.

use std::fmt;
use std::path::Path;
use std::sync::Arc;

use crate::diagnostic::{Diagnostic, Severity};
use crate::kinds::{canonical_group, ObjectView};
use crate::value::raw::ArrayIter;
pub use crate::value::Str;
use crate::value::{Raw, RawArray, RawObject, RawRef, StrMapRef};

/// Labels (and annotations) of an object, sorted by key, read in place from its `raw`.
pub type Labels<'a> = StrMapRef<'a>;

/// Identity of an object: version is deliberately not part of it (apps/v1 and
/// apps/v1beta1 Deployments named `web` are the same object), and neither is a legacy group
/// (an `extensions/v1beta1` Deployment is a Deployment of `apps`, as the API server
/// stored it).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjectId {
    /// API group, `""` for the core group; the current group for a legacy one
    /// ([`crate::kinds::canonical_group`]).
    pub group: Str,
    pub kind: Str,
    /// `""` for cluster-scoped objects.
    pub namespace: Str,
    /// `metadata.name`; for an object with only `metadata.generateName`, that prefix
    /// followed by [`GENERATED`] (`web-<generated>`).
    pub name: Str,
    /// Set for an object with only `metadata.generateName`: the API server names it on
    /// create, so every such document is an object of its own, never a duplicate of
    /// another with the same prefix.
    pub generated: Option<Arc<Generated>>,
}

/// What follows a `generateName` prefix where the name would be: the API server appends
/// five random characters on create (`web-x7k2p`), unknown before then.
pub const GENERATED: &str = "<generated>";

/// Which object with only a `generateName` an [`ObjectId`] is: its file, and its place
/// among such objects of that file (stable while other documents of the file change).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Generated {
    pub path: Arc<Path>,
    pub ordinal: u32,
}

/// Numbers the objects named by `generateName` alone among `objects` (one file's, in file
/// order): the first is 0.
pub(crate) fn number_generated(objects: &mut [Object]) {
    let unnamed = objects.iter_mut().filter(|o| o.id.generated.is_some());
    for (ordinal, o) in (0..).zip(unnamed) {
        let data = o.make_mut();
        data.id.generated = Some(Arc::new(Generated {
            path: Arc::clone(&data.source.path),
            ordinal,
        }));
    }
}

impl fmt::Display for ObjectId {
    /// `Kind/name` or `Kind/namespace/name`; the group follows the kind when not core.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.kind)?;
        if !self.group.is_empty() {
            write!(f, ".{}", self.group)?;
        }
        if !self.namespace.is_empty() {
            write!(f, "/{}", self.namespace)?;
        }
        write!(f, "/{}", self.name)
    }
}

/// Where an object was read from.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SourceSpan {
    pub path: Arc<Path>,
    /// 1-based line where the object's document (or list item) starts.
    pub line: u32,
    /// Byte range of the document or list item in the file text.
    pub start: usize,
    pub end: usize,
    /// For a rendered object, the kustomization (chart) folder whose build produced it:
    /// `path` is then the file it originates from. `None` for objects read from files.
    pub target: Option<Arc<Path>>,
}

impl fmt::Display for SourceSpan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.path.display(), self.line)
    }
}

/// One entry of `metadata.ownerReferences`, read in place from the object's `raw` (see
/// [`OwnerRefs`]). A field that is absent, null or not a string reads as `""`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OwnerRef<'a> {
    pub api_version: &'a str,
    pub kind: &'a str,
    pub name: &'a str,
    /// Empty when the manifest has none (common in git).
    pub uid: &'a str,
    pub controller: Option<bool>,
    pub block_owner_deletion: Option<bool>,
}

impl<'a> OwnerRef<'a> {
    /// The reference an ownerReferences item holds: each field from the first entry of its
    /// key (as `RawObject::get` finds it), in one pass over the entries.
    fn read(m: RawObject<'a>) -> OwnerRef<'a> {
        let mut r = OwnerRef::default();
        // Which fields an entry was met for (a later entry of the same key is ignored).
        let mut seen = 0u8;
        for (key, v) in m.iter() {
            let bit = match key {
                "apiVersion" => 1,
                "kind" => 2,
                "name" => 4,
                "uid" => 8,
                "controller" => 16,
                "blockOwnerDeletion" => 32,
                _ => continue,
            };
            if seen & bit != 0 {
                continue;
            }
            seen |= bit;
            let text = || v.as_str().unwrap_or("");
            match bit {
                1 => r.api_version = text(),
                2 => r.kind = text(),
                4 => r.name = text(),
                8 => r.uid = text(),
                16 => r.controller = v.as_bool(),
                _ => r.block_owner_deletion = v.as_bool(),
            }
        }
        r
    }

    /// API group of the owner, from its apiVersion, as identities use it: the current group
    /// for a legacy one (an `extensions/v1beta1` Deployment owner is one of `apps`).
    pub fn group(&self) -> &'a str {
        canonical_group(group_of(self.api_version), self.kind)
    }
}

/// An object's `metadata.ownerReferences`, read in place from its `raw`: the items that
/// are objects (null items are skipped; the loader refused any other item). Copying them
/// out cost four strings a reference (BENCHMARKS.md, "rss1m").
#[derive(Clone, Copy, Debug, Default)]
pub struct OwnerRefs<'a> {
    items: RawArray<'a>,
}

impl<'a> OwnerRefs<'a> {
    pub fn iter(self) -> OwnerRefIter<'a> {
        OwnerRefIter {
            items: self.items.iter(),
        }
    }

    pub fn len(self) -> usize {
        self.items.iter().filter(|i| i.is_object()).count()
    }

    pub fn is_empty(self) -> bool {
        !self.items.iter().any(|i| i.is_object())
    }

    pub fn first(self) -> Option<OwnerRef<'a>> {
        self.iter().next()
    }
}

impl<'a> IntoIterator for OwnerRefs<'a> {
    type Item = OwnerRef<'a>;
    type IntoIter = OwnerRefIter<'a>;
    fn into_iter(self) -> OwnerRefIter<'a> {
        self.iter()
    }
}

/// The references of an [`OwnerRefs`], in list order.
#[derive(Clone)]
pub struct OwnerRefIter<'a> {
    items: ArrayIter<'a>,
}

impl<'a> Iterator for OwnerRefIter<'a> {
    type Item = OwnerRef<'a>;

    fn next(&mut self) -> Option<OwnerRef<'a>> {
        self.items
            .by_ref()
            .find_map(RawRef::as_object)
            .map(OwnerRef::read)
    }
}

/// API group of an `apiVersion` (`apps/v1` → `apps`, `v1` → ``).
pub fn group_of(api_version: &str) -> &str {
    match api_version.rsplit_once('/') {
        Some((group, _)) => group,
        None => "",
    }
}

/// A Kubernetes object as loaded from a manifest: a cheap handle (cloning shares the data).
///
/// The loader, the live set that follows the files and the UI each hold the objects they
/// show; sharing one copy keeps a 100k-object folder at one copy in memory and makes those
/// hand-overs pointer copies. Read the fields through `Deref`; change them with
/// [`Object::make_mut`] (copy on write).
#[derive(Clone)]
pub struct Object(Arc<ObjectData>);

impl Object {
    pub fn new(data: ObjectData) -> Object {
        Object(Arc::new(data))
    }

    /// The data for writing; copied first when another handle shares it.
    pub fn make_mut(&mut self) -> &mut ObjectData {
        Arc::make_mut(&mut self.0)
    }

    /// Whether two handles share the same data.
    pub fn ptr_eq(a: &Object, b: &Object) -> bool {
        Arc::ptr_eq(&a.0, &b.0)
    }
}

impl std::ops::Deref for Object {
    type Target = ObjectData;

    fn deref(&self) -> &ObjectData {
        &self.0
    }
}

impl fmt::Debug for Object {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// What an [`Object`] holds.
///
/// The well-known metadata is extracted once at load time; everything else stays in `raw`.
#[derive(Clone, Debug)]
pub struct ObjectData {
    pub id: ObjectId,
    pub api_version: Str,
    /// Whether `metadata.namespace` was written (and not empty): then `id.namespace` is it,
    /// as written (see [`ObjectData::declared_namespace`]); otherwise `id.namespace` is the
    /// effective one (defaulted to `default` for namespaced kinds). A flag, not a copy of
    /// the name: it keeps an object in mimalloc's 224-byte size class.
    pub namespace_declared: bool,
    /// Where labels, annotations, owner references, uid and timestamps sit in `raw`: read
    /// through [`ObjectData::labels`] and its siblings.
    pub meta: MetaAt,
    pub finalizers: Box<[Str]>,
    /// Whether the kind is namespaced (resolved against the kind registry).
    pub namespaced: bool,
    pub source: SourceSpan,
    /// The whole object (keys sorted, as kubectl prints unstructured objects), in the
    /// compact encoding: read it through [`Raw::view`].
    pub raw: Raw,
}

/// Where the metadata that is read often sits in an object's `raw` (byte offsets for
/// [`Raw::value_at`]), so it is not kept twice: labels and annotations were a third of an
/// object's memory besides `raw` (measured in BENCHMARKS.md, "mem3"). 0 means absent: offset
/// 0 is the whole object, never one of these.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MetaAt {
    labels: u32,
    annotations: u32,
    owner_refs: u32,
    uid: u32,
    creation_timestamp: u32,
    deletion_timestamp: u32,
    deletion_grace_period_seconds: u32,
}

/// The `metadata` fields [`MetaAt`] keeps, as the loader's one pass over `metadata` found
/// them (each the first entry of its key, as `RawObject::get` finds it), not yet checked
/// for type.
#[derive(Clone, Copy, Default)]
pub(super) struct MetaRefs<'a> {
    pub labels: Option<RawRef<'a>>,
    pub annotations: Option<RawRef<'a>>,
    pub owner_refs: Option<RawRef<'a>>,
    pub uid: Option<RawRef<'a>>,
    pub creation_timestamp: Option<RawRef<'a>>,
    pub deletion_timestamp: Option<RawRef<'a>>,
    pub deletion_grace_period_seconds: Option<RawRef<'a>>,
}

impl MetaAt {
    /// The offsets of `found` (views into `raw`): labels and annotations when they are
    /// maps; uid and timestamps when they are non-empty strings (as an absent one reads
    /// otherwise).
    pub(super) fn of(raw: &Raw, found: &MetaRefs<'_>) -> MetaAt {
        let at = |v: Option<RawRef<'_>>, keep: fn(RawRef<'_>) -> bool| {
            v.filter(|v| keep(*v))
                .and_then(|v| raw.offset_of(v))
                .unwrap_or(0)
        };
        let map = |v: RawRef<'_>| v.is_object();
        let text = |v: RawRef<'_>| v.as_str().is_some_and(|s| !s.is_empty());
        MetaAt {
            labels: at(found.labels, map),
            annotations: at(found.annotations, map),
            owner_refs: at(found.owner_refs, |v| v.is_array()),
            uid: at(found.uid, text),
            creation_timestamp: at(found.creation_timestamp, text),
            deletion_timestamp: at(found.deletion_timestamp, text),
            deletion_grace_period_seconds: at(found.deletion_grace_period_seconds, |v| v.is_i64()),
        }
    }

    /// Finds them in `raw`'s `metadata` by key, one lookup each (what [`MetaAt::of`] is
    /// checked against).
    #[cfg(test)]
    pub(super) fn find(raw: &Raw) -> MetaAt {
        let Some(meta) = raw.get("metadata").and_then(RawRef::as_object) else {
            return MetaAt::default();
        };
        let found = MetaRefs {
            labels: meta.get("labels"),
            annotations: meta.get("annotations"),
            owner_refs: meta.get("ownerReferences"),
            uid: meta.get("uid"),
            creation_timestamp: meta.get("creationTimestamp"),
            deletion_timestamp: meta.get("deletionTimestamp"),
            deletion_grace_period_seconds: meta.get("deletionGracePeriodSeconds"),
        };
        MetaAt::of(raw, &found)
    }
}

impl ObjectData {
    fn meta_value(&self, at: u32) -> Option<RawRef<'_>> {
        (at != 0).then(|| self.raw.value_at(at)).flatten()
    }

    fn meta_str(&self, at: u32) -> Option<&str> {
        self.meta_value(at).and_then(RawRef::as_str)
    }

    /// `metadata.labels`, sorted by key.
    pub fn labels(&self) -> Labels<'_> {
        StrMapRef::new(self.meta_value(self.meta.labels))
    }

    /// `metadata.annotations`, sorted by key.
    pub fn annotations(&self) -> Labels<'_> {
        StrMapRef::new(self.meta_value(self.meta.annotations))
    }

    /// Whether `other` is this object read again unchanged: the same identity, source span
    /// (path, line, bytes) and value (`Raw` equality: a string may be kept inline in one
    /// read and by id in the next, so the encodings and the metadata offsets into them may
    /// differ). Whatever is derived from one holds for the other (the text shown is read
    /// from the span), so a patch can leave such objects alone.
    pub fn identical(&self, other: &ObjectData) -> bool {
        self.source == other.source
            && self.id == other.id
            && self.namespace_declared == other.namespace_declared
            && self.namespaced == other.namespaced
            && self.api_version == other.api_version
            && self.finalizers == other.finalizers
            && self.raw == other.raw
    }

    /// Namespace exactly as written (`None` when `metadata.namespace` was absent or empty).
    pub fn declared_namespace(&self) -> Option<&Str> {
        self.namespace_declared.then_some(&self.id.namespace)
    }

    /// `metadata.ownerReferences`.
    pub fn owner_refs(&self) -> OwnerRefs<'_> {
        let items = self
            .meta_value(self.meta.owner_refs)
            .and_then(RawRef::as_array);
        OwnerRefs {
            items: items.unwrap_or_default(),
        }
    }

    /// `metadata.uid` (`None` when absent or empty).
    pub fn uid(&self) -> Option<&str> {
        self.meta_str(self.meta.uid)
    }

    /// `metadata.creationTimestamp` (`None` when absent or empty).
    pub fn creation_timestamp(&self) -> Option<&str> {
        self.meta_str(self.meta.creation_timestamp)
    }

    /// `metadata.deletionGracePeriodSeconds`, when it is an integer.
    pub fn deletion_grace_period_seconds(&self) -> Option<i64> {
        self.meta_value(self.meta.deletion_grace_period_seconds)
            .and_then(RawRef::as_i64)
    }

    /// `metadata.deletionTimestamp` (`None` when absent or empty).
    pub fn deletion_timestamp(&self) -> Option<&str> {
        self.meta_str(self.meta.deletion_timestamp)
    }

    /// A finding about this object, which is `objects[index]` of its inventory: at column 1
    /// of the line where its document starts.
    pub fn finding(
        &self,
        index: usize,
        severity: Severity,
        code: &'static str,
        message: impl Into<Arc<str>>,
    ) -> Diagnostic {
        Diagnostic::new(
            &self.source.path,
            self.source.line,
            1,
            severity,
            code,
            message,
        )
        .about(index)
    }

    pub fn kind(&self) -> &str {
        &self.id.kind
    }

    /// `kind.group/name` as `kubectl get -f FILE -o name` prints it: with the group the
    /// manifest names, legacy or not (`deployment.extensions/web`).
    pub fn kubectl_name(&self) -> String {
        let group = group_of(&self.api_version);
        let kind = self.id.kind.to_ascii_lowercase();
        if group.is_empty() {
            format!("{kind}/{}", self.id.name)
        } else {
            format!("{kind}.{group}/{}", self.id.name)
        }
    }

    pub fn name(&self) -> &str {
        &self.id.name
    }

    pub fn namespace(&self) -> &str {
        &self.id.namespace
    }

    /// `deletionTimestamp` is set: the object is Terminating.
    pub fn is_terminating(&self) -> bool {
        self.meta.deletion_timestamp != 0
    }

    /// Whether the API server fills in a missing `spec.selector` from the pod template's
    /// labels: `extensions/v1beta1` DaemonSets, Deployments and ReplicaSets and
    /// `apps/v1beta1` Deployments and StatefulSets did (their `SetDefaults_*`, e.g.
    /// kubernetes `pkg/apis/apps/v1beta1/defaults.go`); `apps/v1beta2` and `apps/v1`
    /// require the selector.
    pub fn defaults_selector(&self) -> bool {
        let old = match &*self.api_version {
            "extensions/v1beta1" => ["DaemonSet", "Deployment", "ReplicaSet"].as_slice(),
            "apps/v1beta1" => ["Deployment", "StatefulSet"].as_slice(),
            _ => return false,
        };
        old.contains(&self.kind())
            && self
                .get_path("spec.template.metadata.labels")
                .is_some_and(|l| !l.is_null())
    }

    /// The object as the kind table's printers and status read it.
    pub fn as_view(&self) -> ObjectView<'_> {
        ObjectView {
            group: &self.id.group,
            kind: &self.id.kind,
            raw: self.raw.view(),
            labels: self.labels(),
            creation_timestamp: self.creation_timestamp(),
            deletion_timestamp: self.deletion_timestamp(),
        }
    }

    /// Value at a dotted path into `raw` (`spec.selector`, `status.phase`).
    pub fn get_path(&self, path: &str) -> Option<RawRef<'_>> {
        path.split('.')
            .try_fold(self.raw.view(), |v, segment| v.get(segment))
    }

    /// String value at a dotted path, if it is a string.
    pub fn get_str(&self, path: &str) -> Option<&str> {
        self.get_path(path).and_then(RawRef::as_str)
    }
}

#[cfg(test)]
mod tests {

    use proptest::prelude::*;
    use serde_json::{json, Map, Value};

    use super::*;

    fn object(v: Value) -> Object {
        crate::model::test_object(v)
    }

    fn pairs(m: &Map<String, Value>) -> Vec<(String, String)> {
        m.iter()
            .map(|(k, v)| (k.clone(), v.as_str().unwrap_or("").to_owned()))
            .collect()
    }

    fn read(m: Labels<'_>) -> Vec<(String, String)> {
        m.iter()
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect()
    }

    #[test]
    fn metadata_reads_back_from_the_raw() {
        let o = object(json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {
                "name": "p", "uid": "u-1",
                "creationTimestamp": "2026-01-06T01:49:27Z",
                "deletionTimestamp": "",
                "deletionGracePeriodSeconds": 30,
                "labels": {"b": "2", "a": "1", "n": null},
                "annotations": {"x/y": "z"},
            },
        }));
        assert_eq!(
            read(o.labels()),
            [("a", "1"), ("b", "2"), ("n", "")].map(|(k, v)| (k.to_owned(), v.to_owned()))
        );
        assert_eq!(o.labels().get("b"), Some("2"));
        assert_eq!(o.labels().get("c"), None);
        assert!(o.labels().contains_key("n") && o.labels().len() == 3);
        assert_eq!(o.annotations().get("x/y"), Some("z"));
        assert_eq!(o.uid(), Some("u-1"));
        assert_eq!(o.creation_timestamp(), Some("2026-01-06T01:49:27Z"));
        // Empty reads as absent, as before.
        assert_eq!(o.deletion_timestamp(), None);
        assert!(!o.is_terminating());
        assert_eq!(o.deletion_grace_period_seconds(), Some(30));
        let bare = object(json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "q"}}));
        assert!(bare.labels().is_empty() && bare.annotations().is_empty());
        assert_eq!((bare.uid(), bare.creation_timestamp()), (None, None));
        let terminating = object(json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "t", "deletionTimestamp": "2026-01-01T00:00:00Z"},
        }));
        assert!(terminating.is_terminating());
        assert_eq!(
            terminating.as_view().deletion_timestamp,
            Some("2026-01-01T00:00:00Z")
        );
    }

    #[test]
    fn owner_references_read_back_from_the_raw() {
        let o = object(json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "p", "ownerReferences": [
                {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-1", "uid": "u-1",
                 "controller": true, "blockOwnerDeletion": false, "extra": 1},
                null,
                {"apiVersion": "extensions/v1beta1", "kind": "Deployment", "name": "web",
                 "uid": null, "controller": null},
                {},
            ]},
        }));
        let refs: Vec<OwnerRef<'_>> = o.owner_refs().iter().collect();
        assert_eq!(o.owner_refs().len(), 3);
        assert!(!o.owner_refs().is_empty());
        assert_eq!(
            refs[0],
            OwnerRef {
                api_version: "apps/v1",
                kind: "ReplicaSet",
                name: "web-1",
                uid: "u-1",
                controller: Some(true),
                block_owner_deletion: Some(false),
            }
        );
        assert_eq!((refs[1].uid, refs[1].controller), ("", None));
        assert_eq!(refs[1].group(), "apps");
        assert_eq!(refs[2], OwnerRef::default());
        assert_eq!(o.owner_refs().first(), Some(refs[0]));
        for metadata in [
            json!({"name": "q"}),
            json!({"ownerReferences": null}),
            json!({"ownerReferences": [null]}),
        ] {
            let bare = object(json!({"apiVersion": "v1", "kind": "Pod", "metadata": metadata}));
            let refs = bare.owner_refs();
            assert_eq!((refs.is_empty(), refs.len()), (true, 0));
            assert_eq!(bare.owner_refs().first(), None);
        }
    }

    /// An object with its two reference counts fits mimalloc's 224-byte size class; one
    /// more field moves every object to the 256-byte class (+32 MB at 1M objects).
    #[test]
    fn object_data_fits_its_size_class() {
        assert!(std::mem::size_of::<ObjectData>() + 2 * std::mem::size_of::<usize>() <= 224);
    }

    proptest! {
        /// Labels and annotations read in place equal the maps that were parsed, in key
        /// order; uid and creationTimestamp equal the strings (empty ones read as absent).
        #[test]
        fn labels_read_back_equal_what_was_parsed(
            labels in proptest::collection::btree_map("[a-z./-]{0,12}", "[ -~]{0,12}", 0..8),
            annotations in proptest::collection::btree_map("[a-z./]{1,70}", "\\PC{0,20}", 0..4),
            uid in "[a-z0-9-]{0,8}",
            created in "[0-9TZ:-]{0,4}",
        ) {
            let labels: Map<String, Value> = labels.into_iter().map(|(k, v)| (k, Value::String(v))).collect();
            let annotations: Map<String, Value> = annotations.into_iter().map(|(k, v)| (k, Value::String(v))).collect();
            let o = object(json!({
                "apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {
                    "name": "c", "uid": uid, "creationTimestamp": created,
                    "labels": labels, "annotations": annotations,
                },
            }));
            prop_assert_eq!(read(o.labels()), pairs(&labels));
            prop_assert_eq!(read(o.annotations()), pairs(&annotations));
            for (k, v) in &labels {
                prop_assert_eq!(o.labels().get(k), v.as_str());
            }
            prop_assert_eq!(o.uid(), Some(uid.as_str()).filter(|s| !s.is_empty()));
            prop_assert_eq!(o.creation_timestamp(), Some(created.as_str()).filter(|s| !s.is_empty()));
            prop_assert_eq!(o.as_view().labels, o.labels());
        }
    }
}
