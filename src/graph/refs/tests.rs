use serde_json::json;

use crate::graph::{EdgeKind, Graph};
use crate::model::{test_inventory, Inventory};

/// (from, to, relationship) of every reference edge, as `kind/name`.
fn edges(g: &Graph, inv: &Inventory) -> Vec<(String, String, &'static str)> {
    let name = |i: usize| format!("{}/{}", inv.objects[i].kind(), inv.objects[i].name());
    let mut out = Vec::new();
    for i in 0..inv.objects.len() {
        for e in g.uses(i) {
            if let EdgeKind::Ref { rel } = e.kind {
                out.push((name(e.from), name(e.to), rel));
            }
        }
    }
    out
}

#[test]
fn placeholder() {
    let inv = test_inventory(&[
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "namespace": "x"}}),
    ]);
    let g = Graph::build(&inv);
    assert!(edges(&g, &inv).is_empty());
}
