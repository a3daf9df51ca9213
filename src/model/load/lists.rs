//! Lists: `kind: List`, typed lists (`PodList`…), any object with an `items` array, and
//! top-level arrays are flattened into their items, as cli-runtime's visitors do.
//!
//! Upstream (apimachinery `unstructuredJSONScheme.decodeToList`): an item with neither kind
//! nor apiVersion gets the list's apiVersion and kind = list kind minus `List`; `items:
//! null` is an empty list; nested lists are flattened.

use std::collections::HashMap;

use serde_json::Value;

use super::yaml::ItemPath;

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
    pub value: Value,
    pub pos: Pos,
}

/// Flattens one document into entries.
pub(super) fn flatten(value: Value, root: Pos, items: &HashMap<ItemPath, Pos>) -> Vec<Entry> {
    let mut out = Vec::new();
    match value {
        Value::Array(elems) => {
            for (i, v) in elems.into_iter().enumerate() {
                let path = vec![index(i)];
                let pos = items.get(&path).copied().unwrap_or(root);
                expand(v, path, pos, items, &mut out);
            }
        }
        v => expand(v, Vec::new(), root, items, &mut out),
    }
    out
}

fn index(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

/// Whether a value is a list: an object whose `items` is an array (or null).
pub(super) fn is_list(v: &Value) -> bool {
    let Some(map) = v.as_object() else {
        return false;
    };
    match map.get("items") {
        Some(Value::Array(_)) => true,
        // `items: null` only counts when the object says what it is; a plain config
        // mapping with an empty `items:` key is not a list.
        Some(Value::Null) => map.contains_key("kind") || map.contains_key("apiVersion"),
        _ => false,
    }
}

fn expand(
    mut value: Value,
    path: ItemPath,
    pos: Pos,
    items: &HashMap<ItemPath, Pos>,
    out: &mut Vec<Entry>,
) {
    if !is_list(&value) {
        out.push(Entry { value, pos });
        return;
    }
    let Some(map) = value.as_object_mut() else {
        return;
    };
    let text = |k: &str| map.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
    let (api_version, kind) = (text("apiVersion"), text("kind"));
    let item_kind = kind.strip_suffix("List").unwrap_or(&kind).to_owned();
    let Some(Value::Array(elems)) = map.remove("items") else {
        return;
    };
    for (i, mut item) in elems.into_iter().enumerate() {
        let mut item_path = path.clone();
        item_path.push(index(i));
        let item_pos = items.get(&item_path).copied().unwrap_or(pos);
        inherit(&mut item, &api_version, &item_kind);
        expand(item, item_path, item_pos, items, out);
    }
}

/// An item with neither kind nor apiVersion takes them from its list.
fn inherit(item: &mut Value, api_version: &str, kind: &str) {
    let Some(m) = item.as_object_mut() else {
        return;
    };
    let empty = |k: &str| m.get(k).and_then(Value::as_str).is_none_or(str::is_empty);
    if empty("kind") && empty("apiVersion") {
        m.insert("kind".to_owned(), Value::from(kind));
        m.insert("apiVersion".to_owned(), Value::from(api_version));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pos(line: u32) -> Pos {
        Pos {
            line,
            column: 1,
            start: 0,
            end: 0,
        }
    }

    #[test]
    fn typed_list_items_inherit() {
        let v = json!({"apiVersion": "v1", "kind": "PodList", "items": [
            {"metadata": {"name": "a"}},
            {"apiVersion": "apps/v1", "kind": "Deployment"},
            {"kind": "List", "items": [{"apiVersion": "v1", "kind": "Service"}]}]});
        let items = HashMap::from([(vec![0], pos(3)), (vec![2, 0], pos(9))]);
        let out = flatten(v, pos(1), &items);
        let got: Vec<_> = out
            .iter()
            .map(|e| (e.value["kind"].clone(), e.pos.line))
            .collect();
        assert_eq!(
            got,
            vec![
                (json!("Pod"), 3),
                (json!("Deployment"), 1),
                (json!("Service"), 9)
            ]
        );
        assert_eq!(out[0].value["apiVersion"], "v1");
    }

    #[test]
    fn null_items_and_arrays() {
        assert!(flatten(
            json!({"kind": "List", "items": null}),
            pos(1),
            &HashMap::new()
        )
        .is_empty());
        let out = flatten(
            json!([{"kind": "A"}, {"kind": "B"}]),
            pos(1),
            &HashMap::new(),
        );
        assert_eq!(out.len(), 2);
        let out = flatten(json!({"items": null, "x": 1}), pos(1), &HashMap::new());
        assert_eq!(out.len(), 1);
    }
}
