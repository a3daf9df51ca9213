//! Test helpers.

use crate::model::Inventory;

/// Builds an inventory from JSON objects (one per line of `t.yaml`) for unit tests.
pub(crate) fn test_inventory(docs: &[serde_json::Value]) -> Inventory {
    use crate::model::{registry_for, resolve_scope, Object, SourceSpan};
    use std::path::Path;
    use std::sync::Arc;
    let path: Arc<Path> = Arc::from(Path::new("t.yaml"));
    let mut objects: Vec<Object> = docs
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let span = SourceSpan {
                path: Arc::clone(&path),
                line: i as u32 + 1,
                start: 0,
                end: 0,
            };
            Object::from_value(v.clone(), span).expect("test object")
        })
        .collect();
    let mut problems = Vec::new();
    let kinds = registry_for(&objects, &mut problems);
    for o in &mut objects {
        let _ = resolve_scope(&kinds, o);
    }
    Inventory {
        objects,
        problems,
        kinds,
        ..Inventory::default()
    }
}
