//! Render snapshots of every view (ratatui `TestBackend` + insta).

use std::path::PathBuf;

use kubesift::app::{Action, App, Input, Key, Keymap, Options};
use kubesift::dataset::Dataset;
use kubesift::model::load::{load_paths, LoadOptions};
use kubesift::model::Inventory;
use ratatui::backend::TestBackend;
use ratatui::Terminal;

/// 2026-06-01T00:00:00Z, so AGE and "Terminating since" are stable.
const NOW: i64 = 1_780_272_000;

/// The objects of `tests/fixtures/ui`.
fn fixture() -> Inventory {
    load_paths(
        &[PathBuf::from("tests/fixtures/ui")],
        &LoadOptions::default(),
    )
}

/// An app without colours at 110×22, before any data.
fn colourless() -> App {
    let options = Options {
        no_color: true,
        ..Options::default()
    };
    let mut app = App::new(Keymap::load(None).unwrap(), options, NOW);
    app.update(Action::Resize(110, 22));
    app
}

fn app() -> App {
    let mut app = colourless();
    app.update(Action::Loaded(Box::new(Dataset::new(fixture()))));
    // Sort by NAME so the snapshot does not depend on the walk order.
    for _ in 0..3 {
        app.update(Action::SortNext);
    }
    app
}

fn render(app: &App) -> String {
    let mut terminal = Terminal::new(TestBackend::new(110, 22)).unwrap();
    terminal.draw(|f| kubesift::ui::draw(app, f)).unwrap();
    terminal.backend().to_string()
}

fn type_text(app: &mut App, text: &str) {
    app.update(Action::FocusBar);
    for c in text.chars() {
        app.update(Action::Insert(c));
    }
}

#[test]
fn table_view() {
    insta::assert_snapshot!(render(&app()));
}

#[test]
fn loading_gauge() {
    let mut app = App::new(Keymap::load(None).unwrap(), Options::default(), NOW);
    app.update(Action::LoadProgress {
        files_done: 3,
        files_total: 12,
    });
    insta::assert_snapshot!(render(&app));
}

#[test]
fn selector_bar_filters() {
    let mut app = app();
    type_text(&mut app, "tier=backend,~db");
    insta::assert_snapshot!(render(&app));
}

#[test]
fn selector_bar_error_keeps_last_result_and_shows_caret() {
    let mut app = app();
    type_text(&mut app, "tier=backend | bx");
    assert!(app.bar.error.is_some());
    insta::assert_snapshot!(render(&app));
}

#[test]
fn grouped_by_label() {
    let mut app = app();
    type_text(&mut app, "| by team");
    insta::assert_snapshot!(render(&app));
}

#[test]
fn detail_view() {
    let mut app = app();
    type_text(&mut app, "metadata.name=oldjobpod");
    app.update(Action::LeaveBar);
    app.update(Action::OpenDetail);
    let object = app.detail.as_ref().unwrap().object;
    app.update(Action::DetailSource {
        object,
        text: "apiVersion: v1\nkind: Pod\nmetadata:\n  name: oldjobpod\n".into(),
    });
    insta::assert_snapshot!(render(&app));
}

#[test]
fn problems_view() {
    let mut app = app();
    app.update(Action::Problems);
    insta::assert_snapshot!(render(&app));
}

#[test]
fn help_overlay() {
    let mut app = app();
    app.update(Action::Help);
    insta::assert_snapshot!(render(&app));
}

#[test]
fn help_overlay_scrolled_to_the_bottom() {
    let mut app = app();
    app.update(Action::Help);
    let bottom = app
        .intent(Input::Key(Key::parse("G").unwrap()))
        .expect("G is bound in help");
    app.update(bottom);
    insta::assert_snapshot!(render(&app));
}

#[test]
fn tree_view_marks_lifecycle_and_dangling_owners() {
    let mut app = app();
    type_text(&mut app, "metadata.name=storefront-7d9f");
    app.update(Action::LeaveBar);
    app.update(Action::OpenTree);
    let tree = app.tree.as_ref().unwrap();
    let names: Vec<String> = tree
        .tree
        .visible()
        .map(|i| {
            app.data.inventory.objects[tree.tree.node(i).unwrap().obj]
                .id
                .name
                .to_string()
        })
        .collect();
    assert_eq!(
        names,
        ["storefront", "storefront-7d9f", "storefront-7d9f-x2k4"]
    );
    assert_eq!(
        tree.selected, 1,
        "the object the tree was opened on is selected"
    );
    insta::with_settings!({snapshot_suffix => "owner"}, {
        insta::assert_snapshot!(render(&app));
    });
    app.update(Action::Back);
    app.update(Action::ClearBar);
    type_text(&mut app, "metadata.name=strandedpod");
    app.update(Action::LeaveBar);
    app.update(Action::OpenTree);
    insta::with_settings!({snapshot_suffix => "dangling"}, {
        insta::assert_snapshot!(render(&app));
    });
}

#[test]
fn namespace_picker() {
    let mut app = app();
    app.update(Action::PickNamespace);
    insta::assert_snapshot!(render(&app));
}

#[test]
fn no_color_draws_without_colours() {
    use ratatui::style::Color;
    let colours = |no_color: bool| {
        let mut app = app();
        app.options.no_color = no_color;
        type_text(&mut app, "tier=backend,~db | by kind");
        let mut terminal = Terminal::new(TestBackend::new(110, 22)).unwrap();
        terminal.draw(|f| kubesift::ui::draw(&app, f)).unwrap();
        terminal
            .backend()
            .buffer()
            .content()
            .iter()
            .filter(|c| c.fg != Color::Reset || c.bg != Color::Reset)
            .count()
    };
    assert_eq!(colours(true), 0);
    assert!(colours(false) > 0, "colours are used otherwise");
}

#[test]
fn the_header_says_linking_until_the_graph_arrives() {
    let inventory = fixture();
    let graph = kubesift::graph::Graph::build(&inventory);
    let mut app = App::new(Keymap::load(None).unwrap(), Options::default(), NOW);
    app.update(Action::Resize(110, 22));
    app.update(Action::Loaded(Box::new(Dataset::unlinked(inventory))));
    let screen = render(&app);
    let header = screen.lines().next().unwrap_or_default();
    assert!(header.contains("linking owners and selectors…"), "{screen}");
    app.update(Action::Linked(Box::new(graph)));
    let screen = render(&app);
    assert!(!screen.contains("linking"), "{screen}");
    assert!(screen.contains(" of "), "{screen}");
}

/// A label query typed while the loader builds the whole table's label index waits for it
/// (nothing is built on the UI thread), says so, and matches once the index comes.
#[test]
fn a_label_query_waits_for_the_index_the_loader_builds() {
    let inventory = fixture();
    let index = kubesift::dataset::LabelIndex::build(&inventory.objects);
    let mut app = colourless();
    app.update(Action::Loaded(Box::new(Dataset::unindexed(inventory))));
    type_text(&mut app, "tier=backend");
    assert!(app.waiting_for_index());
    insta::assert_snapshot!(render(&app));
    app.update(Action::Indexed(Box::new(index)));
    assert!(!app.waiting_for_index());
    let screen = render(&app);
    assert!(!screen.contains("indexing labels"), "{screen}");
    assert!(!screen.contains("matching once"), "{screen}");
    assert!(app.counts().0 > 0, "{screen}");
}

/// The app loaded at `w`×`h`, unsorted.
fn app_at(w: u16, h: u16) -> App {
    let inventory = fixture();
    let options = Options {
        no_color: true,
        roots: vec![PathBuf::from("tests/fixtures/ui")],
        ..Options::default()
    };
    let mut app = App::new(Keymap::load(None).unwrap(), options, NOW);
    app.update(Action::Resize(w, h));
    app.update(Action::Loaded(Box::new(Dataset::new(inventory))));
    app
}

fn render_at(app: &App, w: u16, h: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| kubesift::ui::draw(app, f)).unwrap();
    terminal.backend().to_string()
}

fn press(app: &mut App, key: &str) {
    let action = app
        .intent(Input::Key(Key::parse(key).unwrap()))
        .unwrap_or_else(|| panic!("{key:?} is not bound in {:?}", app.mode));
    app.update(action);
}

/// Picks `value` in the open picker by typing it after `/`.
fn pick(app: &mut App, picker: &str, value: &str) {
    press(app, picker);
    press(app, "/");
    for c in value.chars() {
        app.update(Action::Insert(c));
    }
    press(app, "enter");
}

const SIZES: [(u16, u16); 2] = [(80, 24), (200, 50)];

#[test]
fn pod_columns_when_the_kind_is_pod() {
    for (w, h) in SIZES {
        let mut app = app_at(w, h);
        pick(&mut app, "K", "pod");
        assert_eq!(app.kind.as_deref(), Some("Pod"));
        insta::assert_snapshot!(format!("pod_columns_{w}x{h}"), render_at(&app, w, h));
        // The columns beyond the screen come into view sideways; NAME stays.
        press(&mut app, "right");
        press(&mut app, "right");
        insta::assert_snapshot!(
            format!("pod_columns_scrolled_{w}x{h}"),
            render_at(&app, w, h)
        );
    }
}

#[test]
fn the_sort_arrow_shows_on_a_cut_title() {
    for (w, h) in SIZES {
        let mut app = app_at(w, h);
        // Sort by the SOURCE column (the last), which is the first to be cut.
        let last = app.table.columns.len();
        for _ in 0..last {
            press(&mut app, "s");
        }
        press(&mut app, "S");
        let screen = render_at(&app, w, h);
        assert!(
            screen.lines().next().unwrap().contains("sort: SOURCE↓"),
            "{screen}"
        );
        insta::assert_snapshot!(format!("sort_arrow_{w}x{h}"), screen);
    }
}

#[test]
fn detail_describe_and_yaml_tabs() {
    for (w, h) in SIZES {
        let mut app = app_at(w, h);
        pick(&mut app, "K", "deploy");
        press(&mut app, "d");
        let object = app.detail.as_ref().unwrap().object;
        app.update(Action::DetailSource {
            object,
            text: "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: x\n".into(),
        });
        insta::assert_snapshot!(format!("detail_describe_{w}x{h}"), render_at(&app, w, h));
        press(&mut app, "y");
        press(&mut app, "/");
        app.update(Action::Insert('k'));
        app.update(Action::Insert('i'));
        insta::assert_snapshot!(format!("detail_yaml_search_{w}x{h}"), render_at(&app, w, h));
    }
}

#[test]
fn marked_rows_show_a_marker_column() {
    for (w, h) in SIZES {
        let mut app = app_at(w, h);
        for _ in 0..3 {
            press(&mut app, "s");
        }
        press(&mut app, "space");
        press(&mut app, "j");
        press(&mut app, "space");
        insta::assert_snapshot!(format!("marks_{w}x{h}"), render_at(&app, w, h));
    }
}

#[test]
fn problems_filtered_by_severity() {
    for (w, h) in SIZES {
        let mut app = app_at(w, h);
        press(&mut app, "!");
        press(&mut app, "v");
        insta::assert_snapshot!(format!("problems_errors_{w}x{h}"), render_at(&app, w, h));
    }
}

#[test]
fn the_namespace_picker_names_cluster_scoped_objects_and_counts_under_the_kind() {
    let mut app = app_at(80, 24);
    pick(&mut app, "K", "pod");
    press(&mut app, "n");
    insta::assert_snapshot!(render_at(&app, 80, 24));
}

/// The problems view names a duplicate's object (which carries no object index, only its
/// place) as `check` does, not `-`.
#[test]
fn the_problems_view_names_a_duplicate_as_check_does() {
    let dir = tempfile::tempdir().unwrap();
    let doc = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: twice, namespace: shop}\n";
    std::fs::write(dir.path().join("a.yaml"), doc).unwrap();
    std::fs::write(dir.path().join("b.yaml"), doc).unwrap();
    let inventory = load_paths(&[dir.path().to_path_buf()], &LoadOptions::default());
    let mut app = App::new(Keymap::load(None).unwrap(), Options::default(), NOW);
    app.update(Action::Resize(200, 20));
    app.update(Action::Loaded(Box::new(Dataset::new(inventory))));
    app.update(Action::Problems);
    let screen = render_at(&app, 200, 20);
    let rows: Vec<_> = app.all_problems().cloned().collect();
    let duplicate = rows
        .iter()
        .find(|d| d.code == "duplicate-object")
        .expect("a duplicate-object problem");
    let at = kubesift::model::ObjectsAt::new(&app.data.inventory, &rows);
    let name = at.name(duplicate);
    assert_eq!(name.as_deref(), Some("ConfigMap/shop/twice"));
    assert!(
        screen.contains("[duplicate-object] ConfigMap/shop/twice "),
        "{screen}"
    );
}
