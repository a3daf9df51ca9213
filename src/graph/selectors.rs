//! Selector and reference edges: what a Service, workload, PDB, NetworkPolicy or HPA picks.

use serde_json::Value;

use super::findings::Finding;
use super::{Edge, EdgeKind};
use crate::model::{Inventory, Object};

/// Selector edges (selecting object → selected object) and selector findings.
pub fn resolve(inv: &Inventory) -> (Vec<Edge>, Vec<Finding>) {
    let mut edges = Vec::new();
    hpa_targets(inv, &mut edges);
    (edges, Vec::new())
}

fn is(o: &Object, group: &str, kind: &str) -> bool {
    &*o.id.group == group && &*o.id.kind == kind
}

/// HorizontalPodAutoscaler `spec.scaleTargetRef` → the scaled object in the same namespace.
fn hpa_targets(inv: &Inventory, edges: &mut Vec<Edge>) {
    use std::collections::HashMap;
    let hpas: Vec<usize> = (0..inv.objects.len())
        .filter(|&i| is(&inv.objects[i], "autoscaling", "HorizontalPodAutoscaler"))
        .collect();
    if hpas.is_empty() {
        return;
    }
    let mut by_id: HashMap<(&str, &str, &str, &str), usize> = HashMap::new();
    for (i, o) in inv.objects.iter().enumerate() {
        let id = &o.id;
        by_id
            .entry((&*id.group, &*id.kind, &*id.namespace, &*id.name))
            .or_insert(i);
    }
    for h in hpas {
        let hpa = &inv.objects[h];
        let Some(target) = hpa.get_path("spec.scaleTargetRef") else {
            continue;
        };
        let s = |k: &str| target.get(k).and_then(Value::as_str).unwrap_or("");
        let group = crate::model::group_of(s("apiVersion"));
        let key = (group, s("kind"), hpa.namespace(), s("name"));
        if let Some(&t) = by_id.get(&key) {
            edges.push(Edge {
                from: h,
                to: t,
                kind: EdgeKind::Selector {
                    via: "spec.scaleTargetRef",
                },
            });
        }
    }
}
