//! LiveSet deltas, driven by explicit path batches (no file-system events involved).

mod watch_support;

use std::path::PathBuf;

use kubesift::dataset::{DeltaKind, LiveSet};
use kubesift::diagnostic::Severity;
use kubesift::model::load::LoadOptions;
use watch_support::{cm, docs, fresh, state, summary, write};

fn live(root: &std::path::Path) -> LiveSet {
    LiveSet::load(&[root.to_path_buf()], &LoadOptions::default())
}

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp dir")
}

#[test]
fn created_file_adds_its_objects() {
    let dir = tmp();
    let mut set = live(dir.path());
    let f = dir.path().join("a.yaml");
    write(&f, &docs(&[cm("one", "1"), cm("two", "2")]));
    let d = set.apply(&[f]);
    assert_eq!(
        summary(&d),
        [
            (DeltaKind::Added, "one".into()),
            (DeltaKind::Added, "two".into())
        ]
    );
    assert_eq!(state(set.inventory()), fresh(dir.path()));
}

#[test]
fn editing_one_document_modifies_only_it() {
    let dir = tmp();
    let f = dir.path().join("a.yaml");
    write(
        &f,
        &docs(&[cm("one", "1"), cm("two", "2"), cm("three", "3")]),
    );
    let mut set = live(dir.path());
    write(
        &f,
        &docs(&[cm("one", "1"), cm("two", "changed"), cm("three", "3")]),
    );
    let d = set.apply(std::slice::from_ref(&f));
    assert_eq!(summary(&d), [(DeltaKind::Modified, "two".into())]);
    let obj = d[0].object.as_ref().expect("modified carries the object");
    assert_eq!(obj.get_str("data.k"), Some("changed"));
    let at = set.index_of(&d[0].id).expect("in the snapshot");
    assert_eq!(
        set.inventory().objects[at].get_str("data.k"),
        Some("changed")
    );
}

#[test]
fn a_pure_line_shift_is_no_event() {
    let dir = tmp();
    let f = dir.path().join("a.yaml");
    write(&f, &docs(&[cm("one", "1"), cm("two", "2")]));
    let mut set = live(dir.path());
    write(
        &f,
        &format!("# a comment\n\n{}", docs(&[cm("one", "1"), cm("two", "2")])),
    );
    assert!(set.apply(&[f]).is_empty());
}

#[test]
fn atomic_rename_save_is_modified() {
    let dir = tmp();
    let f = dir.path().join("a.yaml");
    write(&f, &cm("one", "1"));
    let mut set = live(dir.path());
    let tmpfile = dir.path().join(".a.yaml.swp");
    write(&tmpfile, &cm("one", "2"));
    std::fs::rename(&tmpfile, &f).expect("rename");
    let d = set.apply(&[tmpfile, f]);
    assert_eq!(summary(&d), [(DeltaKind::Modified, "one".into())]);
}

#[test]
fn deleted_file_deletes_its_objects() {
    let dir = tmp();
    let f = dir.path().join("a.yaml");
    write(&f, &docs(&[cm("one", "1"), cm("two", "2")]));
    let mut set = live(dir.path());
    std::fs::remove_file(&f).expect("remove");
    let d = set.apply(&[f]);
    assert_eq!(
        summary(&d),
        [
            (DeltaKind::Deleted, "one".into()),
            (DeltaKind::Deleted, "two".into())
        ]
    );
    assert!(d.iter().all(|d| d.object.is_none()));
    assert_eq!(set.file_count(), 0);
}

#[test]
fn renamed_directory_moves_objects_as_modified() {
    let dir = tmp();
    let old = dir.path().join("old");
    write(&old.join("a.yaml"), &cm("one", "1"));
    write(&old.join("deep/b.yaml"), &cm("two", "2"));
    let mut set = live(dir.path());
    let new = dir.path().join("new");
    std::fs::rename(&old, &new).expect("rename dir");
    let d = set.apply(&[old, new.clone()]);
    assert_eq!(
        summary(&d),
        [
            (DeltaKind::Modified, "one".into()),
            (DeltaKind::Modified, "two".into())
        ]
    );
    let moved = d[1].object.as_ref().expect("object");
    assert_eq!(&*moved.source.path, new.join("deep/b.yaml").as_path());
    assert_eq!(state(set.inventory()), fresh(dir.path()));
}

#[test]
fn object_moved_between_files_is_modified_in_one_batch_or_two() {
    let dir = tmp();
    let (a, b) = (dir.path().join("a.yaml"), dir.path().join("b.yaml"));
    write(&a, &docs(&[cm("stay", "1"), cm("mover", "1")]));
    write(&b, &cm("other", "1"));
    let mut set = live(dir.path());
    // One save each, in one batch.
    write(&a, &cm("stay", "1"));
    write(&b, &docs(&[cm("other", "1"), cm("mover", "1")]));
    let d = set.apply(&[a.clone(), b.clone()]);
    assert_eq!(summary(&d), [(DeltaKind::Modified, "mover".into())]);
    // Back again, the paste saved before the cut, in two batches: never DELETED.
    write(&a, &docs(&[cm("stay", "1"), cm("mover", "1")]));
    let first = set.apply(std::slice::from_ref(&a));
    write(&b, &cm("other", "1"));
    let second = set.apply(&[b]);
    let all: Vec<_> = summary(&first)
        .into_iter()
        .chain(summary(&second))
        .collect();
    assert_eq!(all, [(DeltaKind::Modified, "mover".into())]);
    assert_eq!(state(set.inventory()), fresh(dir.path()));
}

#[test]
fn invalid_file_keeps_stale_objects_until_fixed() {
    let dir = tmp();
    let f = dir.path().join("a.yaml");
    write(&f, &docs(&[cm("one", "1"), cm("two", "2")]));
    let other = dir.path().join("b.yaml");
    write(&other, &cm("fine", "1"));
    let mut set = live(dir.path());
    assert!(set.stale_files().is_empty());

    write(&f, "apiVersion: v1\nkind: [unclosed\n");
    let d = set.apply(std::slice::from_ref(&f));
    assert!(d.is_empty(), "no event while broken: {:?}", summary(&d));
    let inv = set.inventory();
    assert_eq!(inv.objects.len(), 3);
    let stale: Vec<&str> = (0..inv.objects.len())
        .filter(|&i| set.is_stale(i))
        .map(|i| inv.objects[i].name())
        .collect();
    assert_eq!(stale.len(), 2);
    assert!(stale.contains(&"one") && stale.contains(&"two"));
    assert_eq!(set.stale_files(), [f.as_path()]);
    let errors: Vec<_> = inv
        .problems
        .iter()
        .filter(|p| &*p.path == f.as_path() && p.severity == Severity::Error)
        .collect();
    assert!(!errors.is_empty(), "the file's error is reported");
    assert!(inv.problems.iter().any(|p| p.code == "stale"));

    write(&f, &docs(&[cm("one", "1"), cm("two", "fixed")]));
    let d = set.apply(std::slice::from_ref(&f));
    assert_eq!(summary(&d), [(DeltaKind::Modified, "two".into())]);
    assert!(set.stale_files().is_empty());
    assert!((0..set.inventory().objects.len()).all(|i| !set.is_stale(i)));
    assert!(!set.inventory().problems.iter().any(|p| p.code == "stale"));
}

#[test]
fn deleting_a_broken_file_deletes_its_stale_objects() {
    let dir = tmp();
    let f = dir.path().join("a.yaml");
    write(&f, &cm("one", "1"));
    let mut set = live(dir.path());
    write(&f, "kind: [\n");
    assert!(set.apply(std::slice::from_ref(&f)).is_empty());
    std::fs::remove_file(&f).expect("remove");
    assert_eq!(
        summary(&set.apply(&[f])),
        [(DeltaKind::Deleted, "one".into())]
    );
    assert!(set.stale_files().is_empty());
}

#[test]
fn ignored_paths_stay_ignored() {
    let dir = tmp();
    let mut set = live(dir.path());
    let paths: Vec<PathBuf> = ["notes.txt", ".hidden.yaml", ".git/x.yaml", ".cache/y.yml"]
        .iter()
        .map(|p| dir.path().join(p))
        .collect();
    for p in &paths {
        write(p, &cm("ignored", "1"));
    }
    let mut batch = paths.clone();
    batch.push(dir.path().join(".git"));
    assert!(set.apply(&batch).is_empty());
    assert_eq!(set.file_count(), 0);
}

#[test]
fn new_directory_is_read_whole() {
    let dir = tmp();
    let mut set = live(dir.path());
    let sub = dir.path().join("sub");
    write(&sub.join("a.YAML"), &cm("one", "1"));
    write(
        &sub.join("x/b.json"),
        r#"{"apiVersion":"v1","kind":"Secret","metadata":{"name":"two"}}"#,
    );
    write(&sub.join(".git/c.yaml"), &cm("hidden", "1"));
    let d = set.apply(&[sub]);
    assert_eq!(
        summary(&d),
        [
            (DeltaKind::Added, "one".into()),
            (DeltaKind::Added, "two".into())
        ]
    );
}

#[test]
fn rescan_finds_changes_made_without_events() {
    let dir = tmp();
    write(&dir.path().join("a.yaml"), &cm("one", "1"));
    write(&dir.path().join("b.yaml"), &cm("two", "1"));
    let mut set = live(dir.path());
    write(&dir.path().join("a.yaml"), &cm("one", "changed size"));
    std::fs::remove_file(dir.path().join("b.yaml")).expect("remove");
    write(&dir.path().join("c/d.yaml"), &cm("three", "1"));
    let d = set.rescan();
    assert_eq!(
        summary(&d),
        [
            (DeltaKind::Modified, "one".into()),
            (DeltaKind::Added, "three".into()),
            (DeltaKind::Deleted, "two".into()),
        ]
    );
    assert_eq!(state(set.inventory()), fresh(dir.path()));
}

#[test]
fn named_file_root_is_read_whatever_its_extension() {
    let dir = tmp();
    let f = dir.path().join("manifest.txt");
    write(&f, &cm("one", "1"));
    let mut set = LiveSet::load(std::slice::from_ref(&f), &LoadOptions::default());
    assert_eq!(set.inventory().objects.len(), 1);
    write(&f, &cm("one", "2"));
    assert_eq!(
        summary(&set.apply(std::slice::from_ref(&f))),
        [(DeltaKind::Modified, "one".into())]
    );
    // A sibling the user did not name is not read.
    let sibling = dir.path().join("other.yaml");
    write(&sibling, &cm("two", "1"));
    assert!(set.apply(&[sibling]).is_empty());
}

/// The reference: `Inventory::build` over the files in path order.
fn reference(root: &std::path::Path) -> kubesift::model::Inventory {
    let opts = LoadOptions::default();
    let (mut files, walk) = kubesift::model::load::discover(&[root.to_path_buf()], &opts);
    files.sort();
    let loads = files
        .iter()
        .map(|f| kubesift::model::load::load_file(f, &opts))
        .collect();
    kubesift::model::Inventory::build(loads, walk)
}

fn assert_same_inventory(set: &LiveSet, root: &std::path::Path, step: &str) {
    let want = reference(root);
    let got = set.inventory();
    let view = |inv: &kubesift::model::Inventory| -> Vec<String> {
        inv.objects
            .iter()
            .map(|o| format!("{} {} {} {}", o.id, o.source, o.namespaced, o.raw))
            .collect()
    };
    assert_eq!(view(got), view(&want), "objects after {step}");
    let problems = |inv: &kubesift::model::Inventory| {
        let mut v: Vec<String> = inv
            .problems
            .iter()
            .map(|p| format!("{p} [{}]", p.code))
            .collect();
        v.sort();
        v
    };
    assert_eq!(problems(got), problems(&want), "problems after {step}");
    assert_eq!(
        (got.files, got.bytes),
        (want.files, want.bytes),
        "totals after {step}"
    );
    for (i, o) in got.objects.iter().enumerate() {
        assert_eq!(
            set.index_of(&o.id).map(|j| j <= i),
            Some(true),
            "index_of after {step}"
        );
    }
}

fn ns_obj(name: &str) -> String {
    format!("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {name}\n  namespace: oops\n")
}

fn no_ns(name: &str) -> String {
    format!("apiVersion: v1\nkind: Service\nmetadata:\n  name: {name}\n")
}

/// A named edit.
type Step<'a> = (&'static str, Box<dyn Fn() + 'a>);

/// Every kind of edit, applied one batch at a time, leaves the same inventory (objects in
/// order, problems, totals) as a full build: patched batches and rebuilt ones alike.
#[test]
fn patched_snapshot_equals_a_full_build() {
    let dir = tmp();
    let root = dir.path();
    let (a, b, c, d) = (
        root.join("a.yaml"),
        root.join("b.yaml"),
        root.join("c.yaml"),
        root.join("d/e.yaml"),
    );
    write(&a, &docs(&[cm("x", "1"), cm("yy", "1"), no_ns("svc")]));
    write(&b, &docs(&[cm("x", "dup"), ns_obj("n1")]));
    write(&c, &cm("z", "1"));
    let mut set = live(root);
    assert_same_inventory(&set, root, "load");

    let steps: Vec<Step> = vec![
        (
            "grow a (shifts later files)",
            Box::new(|| {
                write(
                    &a,
                    &docs(&[cm("x", "1"), cm("yy", "1"), cm("w", "1"), no_ns("svc")]),
                )
            }),
        ),
        (
            "shrink a, x only in b",
            Box::new(|| write(&a, &cm("yy", "2"))),
        ),
        (
            "x back in a",
            Box::new(|| write(&a, &docs(&[cm("x", "3"), cm("yy", "2")]))),
        ),
        (
            "delete b",
            Box::new(|| std::fs::remove_file(&b).expect("rm")),
        ),
        (
            "new nested file",
            Box::new(|| write(&d, &docs(&[cm("z", "dup"), ns_obj("n2")]))),
        ),
        (
            "same content, shifted lines",
            Box::new(|| write(&c, &format!("# c\n\n{}", cm("z", "1")))),
        ),
        (
            "a CRD arrives (rebuild)",
            Box::new(|| {
                write(&b, "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\nspec:\n  group: example.com\n  scope: Cluster\n  names:\n    kind: Widget\n    plural: widgets\n---\napiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w1\n  namespace: set\n")
            }),
        ),
        (
            "edit next to a custom kind (rebuild)",
            Box::new(|| {
                write(
                    &b,
                    "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w1\n",
                )
            }),
        ),
        ("empty file", Box::new(|| write(&c, ""))),
    ];
    for (step, act) in steps {
        act();
        set.apply(&[a.clone(), b.clone(), c.clone(), d.clone()]);
        assert_same_inventory(&set, root, step);
    }
}

/// A custom resource whose CRD is in another file is patched in like a built-in object (only
/// CRDs change a declared kind); a kind nobody declares still rebuilds (its guessed scope
/// depends on its objects).
#[test]
fn custom_resources_of_a_declared_kind_are_patched_not_rebuilt() {
    let dir = tmp();
    let root = dir.path();
    let (crd, cr, other) = (
        root.join("crd.yaml"),
        root.join("cr.yaml"),
        root.join("x.yaml"),
    );
    write(&crd, "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: gadgets.example.com\nspec:\n  group: example.com\n  scope: Namespaced\n  names:\n    kind: Gadget\n    plural: gadgets\n");
    write(
        &cr,
        "apiVersion: example.com/v1\nkind: Gadget\nmetadata:\n  name: g1\n",
    );
    write(
        &other,
        "apiVersion: example.com/v1\nkind: Gizmo\nmetadata:\n  name: z\n",
    );
    let mut set = live(root);
    let _ = set.take_patch();
    assert_same_inventory(&set, root, "load");

    write(&cr, "apiVersion: example.com/v1\nkind: Gadget\nmetadata:\n  name: g1\n  labels: {a: b}\n---\napiVersion: example.com/v1\nkind: Gadget\nmetadata:\n  name: g2\n");
    let deltas = set.apply(std::slice::from_ref(&cr));
    assert_eq!(deltas.len(), 2, "{deltas:?}");
    assert!(set.take_patch().is_some(), "a declared kind is patched in");
    assert_same_inventory(&set, root, "edit a custom resource");
    let g2 = set.inventory().objects.iter().find(|o| o.name() == "g2");
    assert_eq!(
        g2.map(|o| (o.namespaced, o.namespace())),
        Some((true, "default"))
    );

    write(
        &other,
        "apiVersion: example.com/v1\nkind: Gizmo\nmetadata:\n  name: z\n  namespace: nn\n",
    );
    set.apply(std::slice::from_ref(&other));
    assert!(set.take_patch().is_none(), "a guessed kind rebuilds");
    assert_same_inventory(&set, root, "edit a guessed kind");
}

/// Deltas across a rebuild (a CRD changes a kind's scope, so the object's identity moves).
#[test]
fn scope_change_from_a_crd_moves_identity() {
    let dir = tmp();
    let f = dir.path().join("w.yaml");
    write(
        &f,
        "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w1\n",
    );
    let mut set = live(dir.path());
    assert_eq!(&*set.inventory().objects[0].id.namespace, "");
    let crd = dir.path().join("crd.yaml");
    write(&crd, "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\nspec:\n  group: example.com\n  scope: Namespaced\n  names:\n    kind: Widget\n    plural: widgets\n");
    let d = set.apply(&[crd]);
    let got: Vec<(DeltaKind, String, String)> = d
        .iter()
        .map(|d| (d.kind, d.id.kind.to_string(), d.id.namespace.to_string()))
        .collect();
    assert_eq!(
        got,
        [
            (
                DeltaKind::Added,
                "CustomResourceDefinition".into(),
                "".into()
            ),
            (DeltaKind::Deleted, "Widget".into(), "".into()),
            (DeltaKind::Added, "Widget".into(), "default".into()),
        ]
    );
}

#[test]
fn a_live_set_built_from_existing_loads_equals_a_fresh_load_and_follows_edits() {
    let dir = tmp();
    let a = dir.path().join("a.yaml");
    let b = dir.path().join("sub/b.yaml");
    write(&a, &docs(&[cm("one", "1"), cm("two", "2")]));
    write(&b, &cm("three", "3"));
    let opts = LoadOptions::default();
    let roots = [dir.path().to_path_buf()];
    let (files, walk) = kubesift::model::load::discover(&roots, &opts);
    let loads = files
        .iter()
        .map(|f| kubesift::model::load::load_file(f, &opts))
        .collect();
    let mut set = LiveSet::from_loads(&roots, &opts, loads, walk);
    assert_same_inventory(&set, dir.path(), "from_loads");
    write(&b, &cm("three", "changed"));
    assert_eq!(
        summary(&set.apply(std::slice::from_ref(&b))),
        [(DeltaKind::Modified, "three".into())]
    );
    assert_same_inventory(&set, dir.path(), "edit after from_loads");
}

/// A namespace's app: Deployment → ReplicaSet (by uid) → Pods (by name), a Service, and
/// recommended labels whose version differs on one Pod.
fn app_docs(ns: &str, pods: &[(&str, &str)], rs: bool) -> String {
    let mut parts = vec![format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: {ns}\n  uid: d-{ns}\n  labels: {{app.kubernetes.io/name: web, app.kubernetes.io/version: \"1\"}}\nspec:\n  selector:\n    matchLabels: {{app: web}}\n  template:\n    metadata:\n      labels: {{app: web}}\n"
    )];
    if rs {
        parts.push(format!(
            "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata:\n  name: web-1\n  namespace: {ns}\n  uid: r-{ns}\n  ownerReferences: [{{apiVersion: apps/v1, kind: Deployment, name: web, uid: d-{ns}, controller: true}}]\nspec:\n  selector:\n    matchLabels: {{app: web}}\n  template:\n    metadata:\n      labels: {{app: web}}\n"
        ));
    }
    for (name, app) in pods {
        parts.push(format!(
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  namespace: {ns}\n  labels: {{app: {app}, app.kubernetes.io/name: web, app.kubernetes.io/version: \"2\"}}\n  ownerReferences: [{{apiVersion: apps/v1, kind: ReplicaSet, name: web-1, uid: r-{ns}}}]\n  finalizers: [foregroundDeletion]\n"
        ));
    }
    parts.push(format!(
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  namespace: {ns}\nspec:\n  selector: {{app: web}}\n"
    ));
    docs(&parts)
}

/// The UI's copy of the data follows the watcher by the splices of each patched batch
/// (objects spliced, label index spliced, graph patched) and always equals a fresh index and
/// graph of the live snapshot, through edits that shift, grow, shrink, move and break files.
#[test]
fn the_ui_copy_follows_by_patches_and_equals_a_rebuild() {
    use kubesift::dataset::{Dataset, Graph, LabelIndex, Patch, PatchOutcome};

    let dir = tmp();
    let root = dir.path();
    let (a, b, c) = (
        root.join("a.yaml"),
        root.join("b.yaml"),
        root.join("c.yaml"),
    );
    write(&a, &app_docs("shop", &[("p1", "web"), ("p2", "web")], true));
    write(&b, &app_docs("data", &[("q1", "web")], true));
    write(&c, &cm("z", "1"));
    // Namespaces no step touches: what a patch keeps. Their Deployment and ReplicaSet share
    // names with the edited ones, so they are context of every patch (the "owner exists in
    // another namespace" hint looks at them).
    let pods: Vec<(String, &str)> = (0..6).map(|i| (format!("p{i}"), "web")).collect();
    let pods: Vec<(&str, &str)> = pods.iter().map(|(n, a)| (n.as_str(), *a)).collect();
    for ns in ["n1", "n2", "n3", "n4"] {
        write(&root.join(format!("{ns}.yaml")), &app_docs(ns, &pods, true));
    }
    let mut set = live(root);
    let mut ui = Dataset::new(set.inventory().clone());
    let mut graph_patched = 0;
    let steps: Vec<(&str, String, String, String)> = vec![
        (
            "a pod stops matching",
            app_docs("shop", &[("p1", "web"), ("p2", "db")], true),
            app_docs("data", &[("q1", "web")], true),
            cm("z", "1"),
        ),
        (
            "a grows (later files shift)",
            app_docs("shop", &[("p1", "web"), ("p2", "db"), ("p3", "web")], true),
            app_docs("data", &[("q1", "web")], true),
            cm("z", "1"),
        ),
        (
            "the ReplicaSet goes: pods dangle",
            app_docs("shop", &[("p1", "web"), ("p3", "web")], false),
            app_docs("data", &[("q1", "web")], true),
            cm("z", "2"),
        ),
        (
            "both namespaces at once",
            app_docs("shop", &[("p1", "web")], true),
            app_docs("data", &[("q1", "db"), ("q2", "web")], false),
            cm("z", "2"),
        ),
        (
            "b broken: stale objects kept",
            app_docs("shop", &[("p1", "web")], true),
            "kind: [unclosed\n".to_owned(),
            cm("z", "2"),
        ),
        (
            "b fixed, a emptied",
            String::new(),
            app_docs("data", &[("q1", "web")], true),
            cm("z", "3"),
        ),
    ];
    let mut patched = 0;
    for (step, ta, tb, tc) in steps {
        write(&a, &ta);
        write(&b, &tb);
        write(&c, &tc);
        set.apply(&[a.clone(), b.clone(), c.clone()]);
        let splices = set.take_patch();
        let inv = set.inventory();
        match splices {
            Some(splices) => {
                patched += 1;
                let patch = Patch::new(splices, inv, Default::default());
                let (_, report) = ui.apply_patch(patch).expect("the splices fit the copy");
                if matches!(report.outcome, PatchOutcome::Patched { .. }) {
                    graph_patched += 1;
                }
            }
            None => ui = Dataset::new(inv.clone()),
        }
        let ids = |objects: &[kubesift::model::Object]| -> Vec<String> {
            objects
                .iter()
                .map(|o| format!("{} {}", o.id, o.source))
                .collect()
        };
        assert_eq!(ids(&ui.inventory.objects), ids(&inv.objects), "{step}");
        assert_eq!(
            ui.index,
            LabelIndex::build(&inv.objects),
            "index after {step}"
        );
        let built = Graph::build(inv);
        assert_eq!(ui.graph, built, "graph after {step}");
        assert!(
            !built.findings().is_empty(),
            "{step}: the scenario has findings"
        );
    }
    assert_eq!(patched, 6, "every batch of built-in kinds is patched");
    assert!(
        graph_patched >= 4,
        "the graph was patched {graph_patched} times, not rebuilt"
    );
}
