//! A one-file edit at 100k objects: the watcher's path (`LiveSet::apply_load`, patching the
//! snapshot and computing deltas), and what the UI rebuilds afterwards (label index, graph).
//! Replaces the former ignored measurement test tests/watch_bench.rs.

#[path = "../examples/gen_corpus.rs"]
mod gen_corpus;

use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion};
use kubesift::graph::Graph;
use kubesift::index::LabelIndex;
use kubesift::model::load::{parse_text, LoadOptions};
use kubesift::watch::{DeltaKind, LiveSet};

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
