//! Per-identity differences between two snapshots of the objects.
//!
//! Equality rule (decided here, relied on by `get -w` and the UI): an object is MODIFIED when
//! its content (`raw`, compared as JSON values) changed or when it now comes from another
//! file. A pure line shift inside the same file (a document inserted above it, a comment
//! edited) is no event: the object is the same, and the snapshot handed along with the
//! deltas carries its new line. An object moved from one file to another is MODIFIED, never
//! DELETED + ADDED.
//!
//! When an identity is defined more than once (a duplicate, reported by the inventory), the
//! first definition in inventory order is the one compared, as the inventory's duplicate
//! warning treats it as the original.

use std::collections::HashMap;

use crate::model::{Object, ObjectId};

/// What happened to one identity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DeltaKind {
    Added,
    Modified,
    Deleted,
}

impl DeltaKind {
    /// The word `kubectl get -w --output-watch-events` prints.
    pub fn as_str(self) -> &'static str {
        match self {
            DeltaKind::Added => "ADDED",
            DeltaKind::Modified => "MODIFIED",
            DeltaKind::Deleted => "DELETED",
        }
    }
}

/// One change to one identity.
#[derive(Clone, Debug)]
pub struct Delta {
    pub kind: DeltaKind,
    pub id: ObjectId,
    /// The object as it is now; `None` for `Deleted`.
    pub object: Option<Object>,
}

/// Identity → index of its first definition in an object list.
pub type IdIndex = HashMap<ObjectId, usize>;

/// Indexes `objects` by identity, keeping the first definition of each.
pub fn index(objects: &[Object]) -> IdIndex {
    let mut idx = IdIndex::with_capacity(objects.len());
    for (i, o) in objects.iter().enumerate() {
        idx.entry(o.id.clone()).or_insert(i);
    }
    idx
}

/// Whether two definitions of one identity are the same for watchers (see the module doc).
pub fn same(a: &Object, b: &Object) -> bool {
    a.source.path == b.source.path && a.raw == b.raw
}

/// The delta for one identity whose effective definition went from `before` to `after`.
pub fn compare(id: ObjectId, before: Option<&Object>, after: Option<&Object>) -> Option<Delta> {
    let kind = match (before, after) {
        (None, None) => return None,
        (None, Some(_)) => DeltaKind::Added,
        (Some(_), None) => DeltaKind::Deleted,
        (Some(b), Some(a)) if same(b, a) => return None,
        (Some(_), Some(_)) => DeltaKind::Modified,
    };
    Some(Delta {
        kind,
        id,
        object: after.cloned(),
    })
}

/// Deltas taking `old` to `new` (each indexed by [`index`]), sorted by identity.
pub fn diff(old: &[Object], old_idx: &IdIndex, new: &[Object], new_idx: &IdIndex) -> Vec<Delta> {
    let mut out: Vec<Delta> = new_idx
        .iter()
        .filter_map(|(id, &i)| {
            compare(id.clone(), old_idx.get(id).map(|&j| &old[j]), Some(&new[i]))
        })
        .collect();
    out.extend(
        old_idx
            .iter()
            .filter(|(id, _)| !new_idx.contains_key(*id))
            .filter_map(|(id, &j)| compare(id.clone(), Some(&old[j]), None)),
    );
    out.sort_by(|a, b| a.id.cmp(&b.id));
    out
}

/// Every object of a snapshot as `Added` (a watcher's first batch), in snapshot order, one
/// per identity.
pub fn all_added(objects: &[Object]) -> Vec<Delta> {
    let idx = index(objects);
    objects
        .iter()
        .enumerate()
        .filter(|(i, o)| idx.get(&o.id) == Some(i))
        .map(|(_, o)| Delta {
            kind: DeltaKind::Added,
            id: o.id.clone(),
            object: Some(o.clone()),
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

    fn obj(file: &str, line: u32, name: &str, data: &str) -> Object {
        let raw = json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "namespace": "ns"}, "data": {"k": data}});
        let span = SourceSpan {
            path: Arc::from(Path::new(file)),
            line,
            start: 0,
            end: 0,
            target: None,
        };
        match Object::from_value(raw, span) {
            Ok(o) => o,
            Err(e) => panic!("test object rejected: {e:?}"),
        }
    }

    fn run(old: &[Object], new: &[Object]) -> Vec<(DeltaKind, String)> {
        diff(old, &index(old), new, &index(new))
            .into_iter()
            .map(|d| (d.kind, d.id.name.to_string()))
            .collect()
    }

    #[test]
    fn added_modified_deleted() {
        let old = [obj("a", 1, "x", "1"), obj("a", 5, "y", "1")];
        let new = [obj("a", 1, "x", "2"), obj("a", 9, "z", "1")];
        assert_eq!(
            run(&old, &new),
            [
                (DeltaKind::Modified, "x".into()),
                (DeltaKind::Deleted, "y".into()),
                (DeltaKind::Added, "z".into()),
            ]
        );
    }

    #[test]
    fn line_shift_is_no_event() {
        let old = [obj("a", 1, "x", "1")];
        let new = [obj("a", 40, "x", "1")];
        assert!(run(&old, &new).is_empty());
    }

    #[test]
    fn move_between_files_is_modified() {
        let old = [obj("a", 1, "x", "1")];
        let new = [obj("b", 1, "x", "1")];
        assert_eq!(run(&old, &new), [(DeltaKind::Modified, "x".into())]);
    }

    #[test]
    fn duplicates_compare_first_definition() {
        let old = [obj("a", 1, "x", "1")];
        // A second definition elsewhere does not change the first: no event.
        let new = [obj("a", 1, "x", "1"), obj("b", 1, "x", "2")];
        assert!(run(&old, &new).is_empty());
        // Removing the first makes the second the effective one: modified, not deleted.
        let newer = [obj("b", 1, "x", "2")];
        assert_eq!(run(&new, &newer), [(DeltaKind::Modified, "x".into())]);
    }

    #[test]
    fn deleted_carries_no_object_and_others_do() {
        let old = [obj("a", 1, "x", "1")];
        let new = [obj("a", 1, "y", "1")];
        let d = diff(&old, &index(&old), &new, &index(&new));
        assert_eq!(d.len(), 2);
        for delta in d {
            assert_eq!(delta.object.is_none(), delta.kind == DeltaKind::Deleted);
        }
    }

    #[test]
    fn all_added_lists_each_identity_once_in_order() {
        let objs = [
            obj("a", 1, "b", "1"),
            obj("a", 2, "a", "1"),
            obj("c", 1, "b", "2"),
        ];
        let names: Vec<_> = all_added(&objs)
            .into_iter()
            .map(|d| (d.kind, d.id.name.to_string()))
            .collect();
        assert_eq!(
            names,
            [
                (DeltaKind::Added, "b".into()),
                (DeltaKind::Added, "a".into())
            ]
        );
    }

    #[test]
    fn kind_words_match_kubectl() {
        assert_eq!(DeltaKind::Added.as_str(), "ADDED");
        assert_eq!(DeltaKind::Modified.as_str(), "MODIFIED");
        assert_eq!(DeltaKind::Deleted.as_str(), "DELETED");
    }
}
