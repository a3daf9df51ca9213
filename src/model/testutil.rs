//! Test helpers.

use crate::model::Inventory;

/// One object from JSON, on line 1 of `t.yaml` (scope not resolved), for unit tests.
pub(crate) fn test_object(v: serde_json::Value) -> crate::model::Object {
    use crate::model::{Object, SourceSpan};
    use std::path::Path;
    use std::sync::Arc;
    let span = SourceSpan {
        path: Arc::from(Path::new("t.yaml")),
        line: 1,
        start: 0,
        end: 0,
        target: None,
    };
    Object::from_value(v, span).expect("test object")
}

/// Builds an inventory from JSON objects (one per line of `t.yaml`) for unit tests.
pub(crate) fn test_inventory(docs: &[serde_json::Value]) -> Inventory {
    test_inventory_files(&[("t.yaml", docs)])
}

/// Builds an inventory from files of JSON objects (object `i` of a file on its line
/// `i + 1`), with kinds registered and scopes resolved as the loader does.
pub(crate) fn test_inventory_files(files: &[(&str, &[serde_json::Value])]) -> Inventory {
    use crate::model::{registry_for, resolve_scope, Object, SourceSpan};
    use std::path::Path;
    use std::sync::Arc;
    let mut objects: Vec<Object> = Vec::new();
    for (name, docs) in files {
        let path: Arc<Path> = Arc::from(Path::new(name));
        objects.extend(docs.iter().enumerate().map(|(i, v)| {
            let span = SourceSpan {
                path: Arc::clone(&path),
                line: i as u32 + 1,
                start: 0,
                end: 0,
                target: None,
            };
            Object::from_value(v.clone(), span).expect("test object")
        }));
    }
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
