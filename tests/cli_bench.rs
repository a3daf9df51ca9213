//! The corpus generator (examples/gen_corpus.rs) and `kubesift bench` on a small generated
//! corpus: shapes and sane values, no timing thresholds.

#[path = "../examples/gen_corpus.rs"]
mod gen_corpus;

use std::collections::HashMap;

use kubesift::model::load::{load_paths, LoadOptions};

#[test]
fn generated_corpus_loads_with_exact_counts() {
    let dir = tempfile::tempdir().expect("tempdir");
    let summary = gen_corpus::write_corpus(dir.path(), 500, 7, false).expect("generate");
    assert_eq!(summary.objects, 500);
    assert_eq!(summary.files, 10);

    let inv = load_paths(&[dir.path().to_path_buf()], &LoadOptions::default());
    assert_eq!(inv.error_count(), 0, "{:?}", inv.problems);
    assert_eq!(inv.objects.len(), 500);
    assert_eq!(inv.files, 10);
    assert_eq!(inv.bytes, summary.bytes);

    let mut kinds: HashMap<&str, usize> = HashMap::new();
    for o in &inv.objects {
        *kinds.entry(o.kind()).or_default() += 1;
    }
    for k in ["Deployment", "ReplicaSet", "Pod", "Service", "ConfigMap"] {
        assert!(kinds.get(k).copied().unwrap_or(0) > 0, "no {k}: {kinds:?}");
    }
    // Every Pod's owner is a ReplicaSet whose uid is in the corpus (unless its file was cut).
    let uids: std::collections::HashSet<&str> = inv
        .objects
        .iter()
        .filter_map(|o| o.uid.as_deref())
        .collect();
    let pods: Vec<_> = inv.objects.iter().filter(|o| o.kind() == "Pod").collect();
    let linked = pods
        .iter()
        .filter(|p| p.owner_refs.iter().any(|r| uids.contains(r.uid.as_str())))
        .count();
    assert_eq!(linked, pods.len());
    let matches = inv
        .objects
        .iter()
        .filter(|o| {
            let part_of = o.labels.get("app.kubernetes.io/part-of").map(|v| &**v);
            matches!(part_of, Some("shop" | "data"))
                && o.labels.get("tier").map(|v| &**v) != Some("cache")
        })
        .count();
    assert_eq!(matches, summary.default_selector_matches);
    assert!(matches > 0 && matches < 500);
    assert_eq!(
        inv.objects.iter().filter(|o| o.is_terminating()).count(),
        summary.terminating
    );
    let formats: std::collections::HashSet<_> = gen_corpus::corpus(500, 7)
        .0
        .iter()
        .map(|f| f.format)
        .collect();
    assert!(formats.len() >= 2, "{formats:?}");
}

#[test]
fn generator_is_deterministic_and_refuses_non_empty_dirs() {
    let (a, sa) = gen_corpus::corpus(300, 1);
    let (b, sb) = gen_corpus::corpus(300, 1);
    let (c, _) = gen_corpus::corpus(300, 2);
    assert_eq!(sa, sb);
    assert!(a
        .iter()
        .zip(&b)
        .all(|(x, y)| x.text == y.text && x.path == y.path));
    assert!(a.iter().zip(&c).any(|(x, y)| x.text != y.text));

    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("keep.txt"), "mine").expect("write");
    let err = gen_corpus::write_corpus(dir.path(), 10, 1, false).expect_err("non-empty");
    assert!(err.contains("not empty"), "{err}");
    assert_eq!(
        std::fs::read_dir(dir.path()).expect("read_dir").count(),
        1,
        "nothing written"
    );
    gen_corpus::write_corpus(dir.path(), 10, 1, true).expect("--force");
}
