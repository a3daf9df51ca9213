//! A one-file edit at 100k objects: the watcher's path (`LiveSet::apply_load`, patching the
//! snapshot and computing deltas), then the UI's in-place patch of its copy (objects spliced,
//! `LabelIndex::splice`, `Graph::patch`), against full rebuilds of the index and graph for
//! comparison.

#[path = "../examples/gen_corpus.rs"]
mod gen_corpus;

use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion};
use kubesift::dataset::{Dataset, DeltaKind, Graph, LabelIndex, LiveSet, Patch, PatchOutcome};
use kubesift::model::load::{parse_text, LoadOptions};

const N: usize = 100_000;

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("tempdir");
    let summary = gen_corpus::write_corpus(dir.path(), N, 1, false).expect("generate");
    let roots = [dir.path().to_path_buf()];
    let mut live = LiveSet::load(&roots, &LoadOptions::default());
    assert_eq!(live.inventory().objects.len(), summary.objects);

    // A multi-document file from the middle; its first document gets a new label value.
    let (files, _) = gen_corpus::corpus(N, 1);
    let file = files
        .iter()
        .skip(files.len() / 2)
        .find(|f| f.format == gen_corpus::Format::MultiDoc)
        .expect("a multi-document file");
    let path: Arc<std::path::Path> = Arc::from(dir.path().join(&file.path));
    let edits: Vec<String> = (0..2)
        .map(|i| {
            file.text.replacen(
                "app.kubernetes.io/managed-by: Helm",
                &format!("app.kubernetes.io/managed-by: edit-{i}"),
                1,
            )
        })
        .collect();

    let mut group = c.benchmark_group("one_file_edit_100k");
    group.sample_size(20);
    let mut round = 0usize;
    group.bench_function("parse_and_apply", |b| {
        b.iter(|| {
            round += 1;
            let text = &edits[round % 2];
            let mut load = parse_text(&path, text);
            load.bytes = text.len() as u64;
            let deltas = live.apply_load(&path, load);
            assert_eq!(deltas.len(), 1);
            assert_eq!(deltas[0].kind, DeltaKind::Modified);
        })
    });
    let mut ui = Dataset::new(live.inventory().clone());
    group.bench_function("parse_apply_and_ui_patch", |b| {
        b.iter(|| {
            round += 1;
            let text = &edits[round % 2];
            let mut load = parse_text(&path, text);
            load.bytes = text.len() as u64;
            live.apply_load(&path, load);
            let splices = live.take_patch().expect("a patched batch");
            let patch = Patch::new(splices, live.inventory(), Default::default());
            let (_, report) = ui.apply_patch(patch).expect("fits");
            assert!(matches!(report.outcome, PatchOutcome::Patched { .. }));
        })
    });
    group.sample_size(10);
    group.bench_function("label_index_rebuild", |b| {
        b.iter(|| LabelIndex::build(&live.inventory().objects))
    });
    group.bench_function("graph_rebuild", |b| {
        b.iter(|| Graph::build(live.inventory()))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
