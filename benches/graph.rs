//! Graph::build on synthetic inventories: Deployment → ReplicaSet → Pods (by uid), a Service
//! per app, and a few dangling references.

use std::path::Path;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use kubesift::graph::Graph;
use kubesift::model::{registry_for, resolve_scope, Inventory, Object, SourceSpan};
use serde_json::json;

fn obj(v: serde_json::Value, path: &Arc<Path>, line: u32) -> Object {
    let span = SourceSpan {
        path: Arc::clone(path),
        line,
        start: 0,
        end: 0,
        target: None,
    };
    Object::from_value(v, span).expect("synthetic object")
}

fn owner(api: &str, kind: &str, name: &str, uid: &str) -> serde_json::Value {
    json!([{"apiVersion": api, "kind": kind, "name": name, "uid": uid, "controller": true, "blockOwnerDeletion": true}])
}

/// About `n` objects: per app 1 Deployment, 1 ReplicaSet, 1 Service, 5 Pods.
pub fn synthetic(n: usize) -> Inventory {
    let path: Arc<Path> = Arc::from(Path::new("synthetic.yaml"));
    let mut objects = Vec::with_capacity(n);
    let apps = n / 8;
    for a in 0..apps {
        let ns = format!("ns-{}", a % 50);
        let labels =
            json!({"app": format!("app-{a}"), "tier": if a % 2 == 0 { "web" } else { "db" }});
        let line = objects.len() as u32 + 1;
        objects.push(obj(json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": format!("app-{a}"), "namespace": ns, "uid": format!("d-{a}"), "labels": labels},
            "spec": {"selector": {"matchLabels": {"app": format!("app-{a}")}},
                "template": {"metadata": {"labels": labels}}}}), &path, line));
        objects.push(obj(json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": format!("app-{a}-rs"), "namespace": ns, "uid": format!("r-{a}"), "labels": labels,
                "ownerReferences": owner("apps/v1", "Deployment", &format!("app-{a}"), &format!("d-{a}"))},
            "spec": {"selector": {"matchLabels": {"app": format!("app-{a}")}}}}), &path, line + 1));
        objects.push(obj(
            json!({"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": format!("app-{a}"), "namespace": ns},
            "spec": {"selector": {"app": format!("app-{a}")}}}),
            &path,
            line + 2,
        ));
        for p in 0..5 {
            // every 100th app's pods point at a ReplicaSet that is not there
            let rs = if a % 100 == 0 {
                format!("gone-{a}")
            } else {
                format!("app-{a}-rs")
            };
            objects.push(obj(
                json!({"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": format!("app-{a}-{p}"), "namespace": ns, "labels": labels,
                    "ownerReferences": owner("apps/v1", "ReplicaSet", &rs, &format!("r-{a}"))}}),
                &path,
                line + 3 + p,
            ));
        }
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

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("graph_build");
    group.sample_size(10);
    for n in [10_000usize, 100_000] {
        let inv = synthetic(n);
        group.bench_with_input(BenchmarkId::from_parameter(n), &inv, |b, inv| {
            b.iter(|| Graph::build(inv))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
