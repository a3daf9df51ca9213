//! Parse throughput (MB/s) on generated in-memory text, and a full load of a generated
//! directory. The corpus comes from examples/gen_corpus.rs.

#[path = "../examples/gen_corpus.rs"]
mod gen_corpus;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use gen_corpus::Format;
use kubesift::model::load::{load_paths, parse_text, yaml_document_count, LoadOptions};

/// Concatenated texts of the generated files of one format.
fn text_of(format: Format, n: usize) -> (String, usize) {
    let (files, _) = gen_corpus::corpus(n, 1);
    let mut text = String::new();
    let mut objects = 0;
    for f in files.iter().filter(|f| f.format == format) {
        text.push_str(&f.text);
        objects += f.objects;
    }
    (text, objects)
}

fn parse(c: &mut Criterion) {
    let mut group = c.benchmark_group("parse_text");
    group.sample_size(10);
    let path: Arc<Path> = Arc::from(Path::new("bench.yaml"));
    let (multi, n) = text_of(Format::MultiDoc, 10_000);
    group.throughput(Throughput::Bytes(multi.len() as u64));
    group.bench_function(format!("multi_doc_yaml_{n}_objects"), |b| {
        b.iter(|| {
            let load = parse_text(&path, &multi);
            assert_eq!(load.objects.len(), n);
            load
        })
    });
    // Reference points on the same text: serde_yaml into serde_json::Value (one thread),
    // and saphyr-parser's event stream alone (the floor under kubesift's YAML path).
    group.bench_function(format!("serde_yaml_to_value_{n}_objects"), |b| {
        b.iter(|| {
            let mut count = 0;
            for doc in serde_yaml::Deserializer::from_str(&multi) {
                let v: Result<serde_json::Value, _> = serde::Deserialize::deserialize(doc);
                count += usize::from(v.is_ok_and(|v| !v.is_null()));
            }
            assert_eq!(count, n);
        })
    });
    group.bench_function("saphyr_events_only", |b| {
        b.iter(|| {
            let mut events = 0usize;
            let mut parser = saphyr_parser::Parser::new_from_str(&multi);
            while let Some(Ok(_)) = parser.next_event() {
                events += 1;
            }
            events
        })
    });
    // One JSON List file is one document: parsed on one thread.
    let (files, _) = gen_corpus::corpus(10_000, 1);
    for format in [Format::JsonList, Format::YamlList] {
        let Some(file) = files.iter().find(|f| f.format == format) else {
            continue;
        };
        group.throughput(Throughput::Bytes(file.text.len() as u64));
        let p: Arc<Path> = Arc::from(Path::new(if format == Format::JsonList {
            "bench.json"
        } else {
            "bench.yaml"
        }));
        group.bench_function(
            format!("{format:?}_one_file_{}_objects", file.objects),
            |b| {
                b.iter(|| {
                    let load = parse_text(&p, &file.text);
                    assert_eq!(load.objects.len(), file.objects);
                    load
                })
            },
        );
    }
    group.finish();
}

/// The YAML documents alone (no objects built): saphyr's path against the fast path.
fn yaml_paths(c: &mut Criterion) {
    let mut group = c.benchmark_group("yaml_fast_vs_saphyr");
    group.sample_size(10);
    let (multi, n) = text_of(Format::MultiDoc, 10_000);
    let (files, _) = gen_corpus::corpus(10_000, 1);
    let list = files
        .iter()
        .find(|f| f.format == Format::YamlList)
        .map(|f| (f.text.clone(), 1));
    let inputs = [("multi_doc", Some((multi, n))), ("yaml_list", list)];
    for (name, input) in inputs {
        let Some((text, docs)) = input else { continue };
        group.throughput(Throughput::Bytes(text.len() as u64));
        for (path, saphyr_only) in [("saphyr", true), ("fast", false)] {
            group.bench_function(format!("{name}_{path}"), |b| {
                b.iter(|| {
                    let count = yaml_document_count(&text, saphyr_only);
                    assert_eq!(count, docs);
                    count
                })
            });
        }
    }
    group.finish();
}

fn load_dir(c: &mut Criterion) {
    const N: usize = 20_000;
    let dir = tempfile::tempdir().expect("tempdir");
    let summary = gen_corpus::write_corpus(dir.path(), N, 1, false).expect("generate");
    let roots = [PathBuf::from(dir.path())];
    let mut group = c.benchmark_group("load_paths");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(summary.bytes));
    group.bench_function(format!("dir_{N}_objects_{}_files", summary.files), |b| {
        b.iter(|| {
            let inv = load_paths(&roots, &LoadOptions::default());
            assert_eq!(inv.objects.len(), N);
            inv
        })
    });
    group.finish();
}

criterion_group!(benches, parse, yaml_paths, load_dir);
criterion_main!(benches);
