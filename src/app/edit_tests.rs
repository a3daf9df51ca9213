//! Watched edits applied to the app one by one leave the problems view and the table
//! exactly as an app loaded from the edited files shows them.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use proptest::prelude::*;

use super::*;
use crate::dataset::{Change, LiveSet};
use crate::diagnostic::Diagnostic;
use crate::model::load::{parse_text, LoadOptions};

/// One document of a generated file, about object number `k` of a small shared set (so
/// files own, duplicate and lose each other's objects).
#[derive(Clone, Debug)]
enum Doc {
    /// A Pod owned by ReplicaSet `k` (dangling while that ReplicaSet is gone).
    Pod(u8),
    ReplicaSet(u8),
    /// A ConfigMap: the same one in two files is a duplicate (a load problem).
    ConfigMap(u8),
    /// A document that is not an object (a load problem).
    Scalar,
}

fn text(docs: &[Doc]) -> String {
    let doc = |d: &Doc| {
        match d {
        Doc::Pod(k) => format!(
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p{k}\n  namespace: ns\n  labels: {{app: a{k}}}\n  ownerReferences:\n  - {{apiVersion: apps/v1, kind: ReplicaSet, name: rs{k}, uid: u{k}}}\n"
        ),
        Doc::ReplicaSet(k) => format!(
            "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {{name: rs{k}, namespace: ns, uid: u{k}}}\nspec:\n  selector: {{matchLabels: {{app: a{k}}}}}\n"
        ),
        Doc::ConfigMap(k) => {
            format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c{k}, namespace: ns}}\n")
        }
        Doc::Scalar => "42\n".to_string(),
    }
    };
    docs.iter().map(doc).collect::<Vec<_>>().join("---\n")
}

fn docs() -> impl Strategy<Value = Vec<Doc>> {
    let doc = prop_oneof![
        (0u8..3).prop_map(Doc::Pod),
        (0u8..3).prop_map(Doc::ReplicaSet),
        (0u8..2).prop_map(Doc::ConfigMap),
        Just(Doc::Scalar),
    ];
    proptest::collection::vec(doc, 0..4)
}

const FILES: usize = 4;

/// An app over `live`'s snapshot, 200×40, in the problems view when asked.
fn loaded(live: &LiveSet, problems: bool) -> App {
    let mut app = App::new(Keymap::load(None).unwrap(), Options::default(), 0);
    app.update(Action::Resize(200, 40));
    app.update(Action::Loaded(Box::new(Dataset::new(
        live.inventory().clone(),
    ))));
    if problems {
        app.update(Action::Problems);
    }
    app
}

/// The problem rows as the problems view first listed them: every load problem and
/// finding copied, sorted in the one order, then errors first.
fn sorted_from_scratch(data: &Dataset) -> Vec<Diagnostic> {
    let mut rows = data.inventory.problems.clone();
    rows.extend_from_slice(data.graph.findings());
    crate::diagnostic::sort(&mut rows);
    rows.sort_by_key(|d| std::cmp::Reverse(d.severity));
    rows
}

/// What the problems view and the table show, by value.
type Shown = (
    Vec<Diagnostic>,
    Vec<usize>,
    Vec<Option<String>>,
    Vec<String>,
);

fn shown(app: &mut App) -> Shown {
    app.refresh_problems();
    let rows: Vec<Diagnostic> = app.all_problems().cloned().collect();
    let window = app.screen.view_height();
    let names = app
        .problem_filter
        .shown
        .iter()
        .skip(app.problems.offset)
        .take(window)
        .map(|i| app.problem_rows.name(*i).map(str::to_string))
        .collect();
    let table = app
        .table
        .rows
        .iter()
        .filter_map(|r| match r {
            Row::Object(i) => Some(app.data.inventory.objects.get(*i as usize)?.id.to_string()),
            Row::Group(_) => None,
        })
        .collect();
    (rows, app.problem_filter.shown.clone(), names, table)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn edits_applied_one_by_one_show_what_a_fresh_load_shows(
        first in proptest::collection::vec(docs(), FILES),
        edits in proptest::collection::vec((0..FILES, docs()), 1..5),
        problems_open in any::<bool>(),
        sort_presses in 0..4usize,
        descending in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let paths: Vec<PathBuf> = (0..FILES)
            .map(|i| dir.path().join(format!("f{i}.yaml")))
            .collect();
        for (path, docs) in paths.iter().zip(&first) {
            std::fs::write(path, text(docs)).unwrap();
        }
        let roots = vec![dir.path().to_path_buf()];
        let mut live = LiveSet::load(&roots, &LoadOptions::default());
        let mut app = loaded(&live, problems_open);
        let sorted = sort_presses > 0;
        if sorted {
            // Sorted by NAMESPACE, KIND or NAME (ties broken by namespace, name, load
            // order): the table's order follows the edits without sorting again.
            app.update(Action::Back);
            for _ in 0..sort_presses {
                app.update(Action::SortNext);
            }
            if descending {
                app.update(Action::SortReverse);
            }
            if problems_open {
                app.update(Action::Problems);
            }
        }
        for (at, (file, docs)) in (1..).zip(&edits) {
            let path: Arc<Path> = Arc::from(paths[*file].as_path());
            let body = text(docs);
            let mut load = parse_text(&path, &body);
            load.bytes = body.len() as u64;
            let before = Change::signature(&live);
            let deltas = live.apply_load(&path, load);
            if let Some(change) = Change::of(&mut live, deltas, before, at) {
                app.update(Action::Changed(Box::new(change)));
            }
        }
        let mut fresh = loaded(&live, problems_open);
        if sorted {
            fresh.table.sort = app.table.sort.clone();
            fresh.resort();
        }
        // The data itself: what the patches left is what a load builds.
        prop_assert_eq!(&app.data.index, &fresh.data.index);
        prop_assert!(app.data.graph == fresh.data.graph);
        let edited = shown(&mut app);
        prop_assert_eq!(&edited.0, &sorted_from_scratch(&fresh.data));
        prop_assert_eq!(edited, shown(&mut fresh));
    }
}
