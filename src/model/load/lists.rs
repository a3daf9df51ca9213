//! Lists: `kind: List`, typed lists (`PodList`…), any object with an `items` array, and
//! top-level arrays are flattened into their items, as cli-runtime's visitors do.
//!
//! Upstream (apimachinery `unstructuredJSONScheme.decodeToList`): an item with neither kind
//! nor apiVersion gets the list's apiVersion and kind = list kind minus `List`; `items:
//! null` is an empty list; nested lists are flattened.

use std::collections::HashMap;

use super::yaml::ItemPath;
use crate::value::{Raw, RawRef};

/// Where a document or item is in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Pos {
    /// 1-based line and column of the first character.
    pub line: u32,
    pub column: u32,
    /// Byte range in the file.
    pub start: usize,
    pub end: usize,
}

/// A value to turn into an object, with where it came from.
#[derive(Debug)]
pub(super) struct Entry {
    pub value: Raw,
    pub pos: Pos,
    /// An item of a list (or of a top-level array), not a document.
    pub item: bool,
}

/// Flattens one document into entries (a document that is not a list is passed on as is,
/// items are copied out of their list).
pub(super) fn flatten(value: Raw, root: Pos, items: &HashMap<ItemPath, Pos>) -> Vec<Entry> {
    let mut out = Vec::new();
    match value.view().as_array() {
        Some(elems) => {
            for (i, v) in elems.iter().enumerate() {
                let path = vec![index(i)];
                let pos = items.get(&path).copied().unwrap_or(root);
                expand(v.to_raw(), path, pos, items, &mut out);
            }
        }
        None => expand(value, Vec::new(), root, items, &mut out),
    }
    out
}

fn index(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

/// Whether a value is a list: an object whose `items` is an array (or null).
pub(super) fn is_list(v: RawRef<'_>) -> bool {
    let Some(map) = v.as_object() else {
        return false;
    };
    match map.get("items") {
        Some(items) if items.is_array() => true,
        // `items: null` only counts when the object says what it is; a plain config
        // mapping with an empty `items:` key is not a list.
        Some(items) if items.is_null() => {
            map.contains_key("kind") || map.contains_key("apiVersion")
        }
        _ => false,
    }
}

fn expand(
    value: Raw,
    path: ItemPath,
    pos: Pos,
    items: &HashMap<ItemPath, Pos>,
    out: &mut Vec<Entry>,
) {
    let list = value.view();
    if !is_list(list) {
        let item = !path.is_empty();
        out.push(Entry { value, pos, item });
        return;
    }
    let text = |k: &str| list.get(k).and_then(RawRef::as_str).unwrap_or("");
    let (api_version, kind) = (text("apiVersion"), text("kind"));
    let item_kind = kind.strip_suffix("List").unwrap_or(kind);
    let Some(elems) = list.get("items").and_then(RawRef::as_array) else {
        return;
    };
    for (i, item) in elems.iter().enumerate() {
        let mut item_path = path.clone();
        item_path.push(index(i));
        let item_pos = items.get(&item_path).copied().unwrap_or(pos);
        expand(
            inherit(item, api_version, item_kind),
            item_path,
            item_pos,
            items,
            out,
        );
    }
}

/// The item; one with neither kind nor apiVersion takes them from its list.
fn inherit(item: RawRef<'_>, api_version: &str, kind: &str) -> Raw {
    let empty = |k: &str| {
        item.get(k)
            .and_then(RawRef::as_str)
            .is_none_or(str::is_empty)
    };
    let inherits = item.is_object() && empty("kind") && empty("apiVersion");
    if !inherits {
        return item.to_raw();
    }
    let (api_version, kind) = (Raw::string(api_version), Raw::string(kind));
    item.with_entries(&[("apiVersion", api_version.view()), ("kind", kind.view())])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn pos(line: u32) -> Pos {
        Pos {
            line,
            column: 1,
            start: 0,
            end: 0,
        }
    }

    fn run(v: Value, items: &HashMap<ItemPath, Pos>) -> Vec<Entry> {
        flatten(Raw::from_value(&v), pos(1), items)
    }

    #[test]
    fn typed_list_items_inherit() {
        let v = json!({"apiVersion": "v1", "kind": "PodList", "items": [
            {"metadata": {"name": "a"}},
            {"apiVersion": "apps/v1", "kind": "Deployment"},
            {"kind": "List", "items": [{"apiVersion": "v1", "kind": "Service"}]}]});
        let items = HashMap::from([(vec![0], pos(3)), (vec![2, 0], pos(9))]);
        let out = run(v, &items);
        let got: Vec<_> = out
            .iter()
            .map(|e| (e.value.get("kind").map(RawRef::to_value), e.pos.line))
            .collect();
        assert_eq!(
            got,
            vec![
                (Some(json!("Pod")), 3),
                (Some(json!("Deployment")), 1),
                (Some(json!("Service")), 9)
            ]
        );
        // The inherited fields are encoded exactly as if they had been written.
        let want = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a"}});
        assert_eq!(
            out[0].value.view().inline_encoded(),
            Raw::from_value(&want).view().encoded()
        );
    }

    #[test]
    fn inherit_replaces_empty_or_non_string_fields() {
        let v = json!({"apiVersion": "g/v1", "kind": "ThingList", "items": [
            {"kind": "", "apiVersion": 5, "z": 1}, {"kind": "Own"}, "scalar", []]});
        let out = run(v, &HashMap::new());
        let want = json!({"apiVersion": "g/v1", "kind": "Thing", "z": 1});
        assert_eq!(
            out[0].value.view().inline_encoded(),
            Raw::from_value(&want).view().encoded()
        );
        assert_eq!(out[1].value.to_value(), json!({"kind": "Own"}));
        assert_eq!(out[2].value.to_value(), json!("scalar"));
        assert_eq!(out[3].value.to_value(), json!([]));
    }

    #[test]
    fn null_items_and_arrays() {
        assert!(run(json!({"kind": "List", "items": null}), &HashMap::new()).is_empty());
        let out = run(json!([{"kind": "A"}, {"kind": "B"}]), &HashMap::new());
        assert_eq!(out.len(), 2);
        assert_eq!(out[1].value.to_value(), json!({"kind": "B"}));
        let out = run(json!({"items": null, "x": 1}), &HashMap::new());
        assert_eq!(out.len(), 1);
    }
}
