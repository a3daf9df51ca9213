//! Label index build at 100k objects, and selector evaluation through the query module
//! (the selector bar's path), on a generated corpus.

#[path = "../examples/gen_corpus.rs"]
mod gen_corpus;

use std::path::Path;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use kubesift::app::{Action, App, Keymap, Options};
use kubesift::dataset::Dataset;
use kubesift::index::LabelIndex;
use kubesift::model::load::parse_text;
use kubesift::model::Inventory;
use kubesift::query::Query;
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use rayon::prelude::*;

const N: usize = 100_000;
const SELECTOR: &str = "app.kubernetes.io/part-of in (shop,data),tier!=cache";

/// The generated corpus parsed in memory.
fn inventory(n: usize) -> (Inventory, usize) {
    let (files, summary) = gen_corpus::corpus(n, 1);
    let loads = files
        .par_iter()
        .map(|f| {
            let ext = if f.format == gen_corpus::Format::JsonList {
                "json"
            } else {
                "yaml"
            };
            let path: Arc<Path> = Arc::from(Path::new("corpus").join(&f.path).with_extension(ext));
            parse_text(&path, &f.text)
        })
        .collect();
    (
        Inventory::build(loads, Vec::new()),
        summary.default_selector_matches,
    )
}

fn bench(c: &mut Criterion) {
    let (inv, expected) = inventory(N);
    assert_eq!(inv.objects.len(), N);

    let mut group = c.benchmark_group("index");
    group.sample_size(10);
    group.bench_function(BenchmarkId::new("build", N), |b| {
        b.iter(|| LabelIndex::build(&inv.objects))
    });
    let index = LabelIndex::build(&inv.objects);
    let universe = index.universe();
    group.sample_size(50);
    for text in [
        SELECTOR,
        "tier=cache",
        "!tier",
        "app.kubernetes.io/part-of notin (shop),tier",
    ] {
        let query = Query::parse(text).expect("selector");
        group.bench_function(BenchmarkId::new("query_filter", text), |b| {
            b.iter(|| query.filter(&inv.objects, &index, &universe))
        });
    }
    let query = Query::parse(SELECTOR).expect("selector");
    assert_eq!(
        query.filter(&inv.objects, &index, &universe).len() as usize,
        expected
    );
    group.bench_function(BenchmarkId::new("query_parse", SELECTOR), |b| {
        b.iter(|| Query::parse(SELECTOR))
    });
    group.finish();

    // The whole keystroke path: App::update(Insert) + a 200x50 draw, for every character.
    let mut app = App::new(Keymap::load(None).expect("keymap"), Options::default(), 0);
    app.update(Action::Resize(200, 50));
    app.update(Action::Loaded(Box::new(Dataset::new(inv))));
    let mut terminal = Terminal::new(TestBackend::new(200, 50)).expect("terminal");
    let mut group = c.benchmark_group("keystroke");
    group.sample_size(10);
    group.bench_function(
        BenchmarkId::new("type_whole_selector_100k", SELECTOR.len()),
        |b| {
            b.iter(|| {
                app.update(Action::FocusBar);
                for ch in SELECTOR.chars() {
                    app.update(Action::Insert(ch));
                    terminal
                        .draw(|f| kubesift::ui::draw(&app, f))
                        .expect("draw");
                }
                app.update(Action::ClearBar);
            })
        },
    );
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
