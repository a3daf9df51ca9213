use std::path::Path;
use std::sync::Arc;

use super::*;
use crate::dataset::{Change, ChangeData, Delta, DeltaKind, FilePatch, Patch};
use crate::model::load::parse_text;
use crate::model::{Object, ObjectId};

/// Deltas of a batch that modified `changed` and deleted `deleted` other identities.
fn deltas(changed: &[Object], deleted: usize) -> Vec<Delta> {
    let modified = changed.iter().map(|o| Delta {
        kind: DeltaKind::Modified,
        id: o.id.clone(),
        object: Some(o.clone()),
    });
    let gone = (0..deleted).map(|i| Delta {
        kind: DeltaKind::Deleted,
        id: ObjectId {
            group: "".into(),
            kind: "Pod".into(),
            namespace: "gone".into(),
            name: format!("gone-{i}").into(),
            generated: None,
        },
        object: None,
    });
    modified.chain(gone).collect()
}

const FIXTURE: &str = "\
apiVersion: v1\nkind: Pod\nmetadata: {name: web-1, namespace: shop, labels: {app: web, tier: fe}}\n---
apiVersion: v1\nkind: Pod\nmetadata: {name: db-1, namespace: shop, labels: {app: db, tier: be}}\n---
apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: ops, labels: {app: web}}\n";

fn app() -> App {
    let objects = parse_text(&Arc::from(Path::new("x.yaml")), FIXTURE).objects;
    let inventory = crate::model::Inventory {
        objects,
        ..Default::default()
    };
    let keymap = Keymap::load(None).unwrap();
    let mut app = App::new(keymap, Options::default(), 0);
    app.update(Action::Resize(120, 30));
    app.update(Action::Loaded(Box::new(Dataset::new(inventory))));
    app
}

fn visible_names(app: &App) -> Vec<String> {
    app.table
        .rows
        .iter()
        .map(|r| match r {
            Row::Object(i) => app.data.inventory.objects[*i as usize].id.name.to_string(),
            Row::Group(_) => {
                let g = app.table.group(r).unwrap();
                format!("[{} {}]", g.key, g.count)
            }
        })
        .collect()
}

fn type_text(app: &mut App, text: &str) {
    for c in text.chars() {
        app.update(Action::Insert(c));
    }
}

#[test]
fn loads_with_default_columns() {
    let app = app();
    assert!(app.loading.is_none());
    assert_eq!(app.counts(), (3, 3));
    let titles: Vec<String> = app.table.columns.iter().map(Column::title).collect();
    assert_eq!(
        titles,
        [
            "NAMESPACE",
            "KIND",
            "NAME",
            "APP",
            "TIER",
            "STATUS",
            "AGE",
            "SOURCE"
        ]
    );
}

#[test]
fn typing_filters_on_every_keystroke_and_keeps_last_valid_result() {
    let mut app = app();
    app.update(Action::FocusBar);
    assert_eq!(app.mode, Mode::Bar);
    type_text(&mut app, "tier");
    assert_eq!(visible_names(&app), ["web-1", "db-1"]);
    type_text(&mut app, "=f");
    assert_eq!(visible_names(&app), Vec::<String>::new());
    type_text(&mut app, "e");
    assert_eq!(visible_names(&app), ["web-1"]);
    type_text(&mut app, ",!");
    assert!(app.bar.error.is_some());
    assert_eq!(visible_names(&app), ["web-1"], "last valid result kept");
    app.update(Action::Backspace);
    app.update(Action::Backspace);
    assert!(app.bar.error.is_none());
    app.update(Action::ClearBar);
    assert_eq!(app.mode, Mode::Table);
    assert!(app.bar.error.is_none());
    assert_eq!(app.counts(), (3, 3));
}

#[test]
fn grouping_shows_headers_and_collapses() {
    let mut app = app();
    app.update(Action::FocusBar);
    type_text(&mut app, "| by app");
    assert_eq!(
        visible_names(&app),
        ["[app=db 1]", "db-1", "[app=web 2]", "web-1", "web"]
    );
    app.update(Action::LeaveBar);
    app.update(Action::Open);
    assert_eq!(
        visible_names(&app),
        ["[app=db 1]", "[app=web 2]", "web-1", "web"]
    );
    app.update(Action::ToggleAllGroups);
    app.update(Action::ToggleAllGroups);
    assert_eq!(visible_names(&app), ["[app=db 1]", "[app=web 2]"]);
}

#[test]
fn history_is_remembered_and_browsed() {
    let mut app = app();
    for text in ["app=web", "tier=be"] {
        app.update(Action::FocusBar);
        app.update(Action::ClearBar);
        app.update(Action::FocusBar);
        type_text(&mut app, text);
        app.update(Action::LeaveBar);
    }
    let effects = app.take_effects();
    assert_eq!(
        effects.last(),
        Some(&Effect::SaveHistory(vec![
            "app=web".into(),
            "tier=be".into()
        ]))
    );
    app.update(Action::FocusBar);
    app.update(Action::ClearBar);
    app.update(Action::FocusBar);
    type_text(&mut app, "ti");
    app.update(Action::HistoryPrev);
    assert_eq!(app.bar.text(), "tier=be");
    app.update(Action::HistoryPrev);
    assert_eq!(app.bar.text(), "app=web");
    assert_eq!(visible_names(&app), ["web-1", "web"]);
    app.update(Action::HistoryNext);
    app.update(Action::HistoryNext);
    assert_eq!(app.bar.text(), "ti", "back to the draft");
}

#[test]
fn tab_completes_keys_then_values() {
    let mut app = app();
    app.update(Action::FocusBar);
    type_text(&mut app, "ti");
    app.update(Action::Complete);
    assert_eq!(app.bar.text(), "tier");
    type_text(&mut app, "=");
    app.update(Action::Complete);
    let c = app.bar.completion.clone().unwrap();
    assert_eq!(c.items, [("be".to_string(), 1), ("fe".to_string(), 1)]);
    app.update(Action::Complete);
    assert_eq!(app.bar.text(), "tier=be");
    assert_eq!(visible_names(&app), ["db-1"]);
    app.update(Action::Complete);
    assert_eq!(app.bar.text(), "tier=fe");
}

#[test]
fn namespace_and_kind_pickers_filter() {
    let mut app = app();
    app.update(Action::PickNamespace);
    let p = app.picker.clone().unwrap();
    let items: Vec<(&str, u64)> = p.items.iter().map(|i| (i.0.as_str(), i.1)).collect();
    assert_eq!(items, [("(all)", 3), ("ops", 1), ("shop", 2)]);
    app.update(Action::Down);
    app.update(Action::Down);
    app.update(Action::Open);
    assert_eq!(app.mode, Mode::Table);
    assert_eq!(app.namespace.as_deref(), Some("shop"));
    assert_eq!(visible_names(&app), ["web-1", "db-1"]);
    app.update(Action::PickKind);
    app.update(Action::Down);
    app.update(Action::Open);
    assert_eq!(app.kind.as_deref(), Some("Deployment"));
    assert_eq!(app.counts(), (0, 3));
}

#[test]
fn sorting_by_name_and_reverse() {
    let mut app = app();
    app.update(Action::SortNext);
    app.update(Action::SortNext);
    app.update(Action::SortNext);
    assert_eq!(app.table.sort.as_ref().map(|s| s.column), Some(2));
    assert_eq!(visible_names(&app), ["db-1", "web", "web-1"]);
    app.update(Action::SortReverse);
    assert_eq!(visible_names(&app), ["web-1", "web", "db-1"]);
    // A filter keeps the sort order.
    app.update(Action::FocusBar);
    type_text(&mut app, "app=web");
    assert_eq!(visible_names(&app), ["web-1", "web"]);
}

/// Partial batches grow the table without re-filtering what it shows (the selection stays
/// put), and it ends as a table built at once would be, sorted or not, with a filter in
/// the bar, with a namespace filter, with a parse error in the bar.
#[test]
fn partial_batches_append_rows_as_a_rebuild_would_show_them() {
    let text: String = (0..60)
        .map(|i| {
            format!(
                "apiVersion: v1\nkind: Pod\nmetadata: {{name: p{i:02}, namespace: ns{}, labels: {{app: a{}}}}}\n---\n",
                i % 2,
                i % 3
            )
        })
        .collect();
    let all = parse_text(&Arc::from(Path::new("x.yaml")), &text).objects;
    let batch = |r: std::ops::Range<usize>| {
        Box::new(crate::model::Inventory {
            objects: all[r].to_vec(),
            ..Default::default()
        })
    };
    let setups: [&dyn Fn(&mut App); 4] = [
        &|app| type_text(app, "app!=a1"),
        &|app| {
            app.update(Action::LeaveBar);
            app.update(Action::SortNext);
            app.update(Action::SortReverse);
        },
        &|app| {
            app.namespace = Some("ns1".into());
            app.filters_changed();
        },
        &|app| type_text(app, "app!=a1,"),
    ];
    for (n, setup) in setups.iter().enumerate() {
        let mut app = App::new(Keymap::load(None).unwrap(), Options::default(), 0);
        app.update(Action::Resize(120, 30));
        app.update(Action::Partial(batch(0..10)));
        app.update(Action::FocusBar);
        setup(&mut app);
        app.update(Action::Partial(batch(10..20)));
        app.update(Action::LeaveBar);
        app.update(Action::Down);
        app.update(Action::Down);
        let selected = app.table.selected_object();
        app.update(Action::Partial(batch(20..45)));
        app.update(Action::Partial(batch(45..60)));
        if app.table.sort.is_none() && app.bar.error.is_none() {
            assert_eq!(app.table.selected_object(), selected, "setup {n}");
        }
        let shown = visible_names(&app);
        if app.bar.error.is_some() {
            // The rows stay those of the last valid query until the text parses again.
            assert!(shown.iter().all(|name| name.as_str() < "p20"), "{shown:?}");
            continue;
        }
        app.table.resort(&app.data.inventory.objects, app.now);
        app.apply_query();
        assert_eq!(shown, visible_names(&app), "setup {n}");
        assert!(shown.len() > 10, "setup {n}: {shown:?}");
    }
}

#[test]
fn partial_batches_the_whole_table_replaces_in_one_burst_are_left_out() {
    let text: String = (0..30)
        .map(|i| {
            format!(
                "apiVersion: v1\nkind: Pod\nmetadata: {{name: p{i:02}, namespace: ns{}}}\n---\n",
                i % 2
            )
        })
        .collect();
    let all = parse_text(&Arc::from(Path::new("x.yaml")), &text).objects;
    let inventory = |r: std::ops::Range<usize>| crate::model::Inventory {
        objects: all[r].to_vec(),
        ..Default::default()
    };
    let burst = || {
        vec![
            Action::Partial(Box::new(inventory(0..10))),
            Action::LoadProgress {
                files_done: 1,
                files_total: 2,
            },
            Action::Partial(Box::new(inventory(10..20))),
            Action::Loaded(Box::new(crate::dataset::Dataset::new(inventory(0..30)))),
            Action::Notice("after".into()),
        ]
    };
    let kept: Vec<Action> = superseded_left_out(burst()).collect();
    assert!(matches!(
        kept.as_slice(),
        [
            Action::LoadProgress { .. },
            Action::Loaded(_),
            Action::Notice(_)
        ]
    ));
    // Without a whole table in the burst, partial batches stay.
    let partials = vec![
        Action::Partial(Box::new(inventory(0..10))),
        Action::Partial(Box::new(inventory(10..20))),
    ];
    assert_eq!(superseded_left_out(partials).count(), 2);
    // Applying what is kept shows exactly what applying everything shows.
    let shown = |actions: Vec<Action>| {
        let mut app = App::new(Keymap::load(None).unwrap(), Options::default(), 0);
        app.update(Action::Resize(120, 30));
        for a in actions {
            app.update(a);
        }
        (
            visible_names(&app),
            app.data.inventory.objects.len(),
            app.status.clone(),
        )
    };
    assert_eq!(shown(kept), shown(burst()));
    assert_eq!(shown(burst()).1, 30);
}

#[test]
fn detail_requests_source_and_copy_path() {
    let mut app = app();
    app.update(Action::Down);
    app.update(Action::OpenDetail);
    assert_eq!(app.mode, Mode::Detail);
    let effects = app.take_effects();
    assert!(matches!(
        effects.as_slice(),
        [Effect::ReadSource { object: 1, .. }]
    ));
    app.update(Action::DetailSource {
        object: 1,
        text: "kind: Pod".into(),
    });
    assert_eq!(
        app.detail.as_ref().unwrap().source.as_deref(),
        Some("kind: Pod")
    );
    app.update(Action::CopyPath);
    assert_eq!(app.take_effects(), [Effect::Copy("x.yaml:5".into())]);
    app.update(Action::Back);
    assert_eq!(app.mode, Mode::Table);
}

#[test]
fn keymap_maps_keys_per_mode() {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    let km = Keymap::load(None).unwrap();
    let key = |c| Key::from_event(&KeyEvent::new(c, KeyModifiers::NONE));
    assert!(matches!(
        km.lookup(Mode::Table, key(KeyCode::Char('/'))),
        Some(Action::FocusBar)
    ));
    assert!(km.lookup(Mode::Bar, key(KeyCode::Char('q'))).is_none());
    let ctrl_c = Key::from_event(&KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL));
    assert!(matches!(km.lookup(Mode::Bar, ctrl_c), Some(Action::Quit)));
    let shift_g = Key::from_event(&KeyEvent::new(KeyCode::Char('G'), KeyModifiers::SHIFT));
    assert!(matches!(
        km.lookup(Mode::Table, shift_g),
        Some(Action::Bottom)
    ));
    let user = Keymap::load(Some("[table]\n\"x\" = \"quit\"\n")).unwrap();
    assert!(matches!(
        user.lookup(Mode::Table, key(KeyCode::Char('x'))),
        Some(Action::Quit)
    ));
    assert!(Keymap::load(Some("[table]\n\"x\" = \"fly\"\n")).is_err());
    assert!(Key::parse("ctrl-nope").is_err());
}

#[test]
fn intent_maps_keys_characters_and_the_mouse_per_mode() {
    let km = Keymap::load(None).unwrap();
    let key = |k: &str| Input::Key(Key::parse(k).unwrap());
    assert!(matches!(
        km.intent(Mode::Table, key("j")),
        Some(Action::Down)
    ));
    assert!(km.intent(Mode::Table, key("x")).is_none(), "unbound");
    assert!(matches!(
        km.intent(Mode::Bar, key("j")),
        Some(Action::Insert('j'))
    ));
    assert!(matches!(
        km.intent(Mode::Bar, key("tab")),
        Some(Action::Complete)
    ));
    assert!(
        km.intent(Mode::Bar, key("ctrl-x")).is_none(),
        "no Ctrl text"
    );
    assert!(km.intent(Mode::Bar, key("alt-x")).is_none(), "no Alt text");
    assert!(matches!(
        km.intent(Mode::Bar, key("ctrl-c")),
        Some(Action::Quit)
    ));
    assert!(matches!(
        km.intent(Mode::Help, Input::ScrollDown),
        Some(Action::ScrollDown)
    ));
    assert!(matches!(
        km.intent(Mode::Detail, Input::Click { column: 3, row: 4 }),
        Some(Action::Click { column: 3, row: 4 })
    ));
    assert!(matches!(
        km.intent(Mode::Tree, Input::Resize(80, 24)),
        Some(Action::Resize(80, 24))
    ));
}

#[test]
fn terminal_events_become_inputs() {
    use crossterm::event::{
        Event, KeyCode as Ct, KeyEvent, KeyEventKind, KeyEventState, KeyModifiers, MouseButton,
        MouseEvent, MouseEventKind,
    };
    let press = |code, mods| Event::Key(KeyEvent::new(code, mods));
    assert_eq!(
        Input::from_terminal(&press(Ct::PageDown, KeyModifiers::NONE)),
        Some(Input::Key(Key::parse("pagedown").unwrap()))
    );
    assert_eq!(
        Input::from_terminal(&press(Ct::Char('G'), KeyModifiers::SHIFT)),
        Some(Input::Key(Key::parse("G").unwrap())),
        "Shift is in the character"
    );
    let release = Event::Key(KeyEvent {
        code: Ct::Char('j'),
        modifiers: KeyModifiers::NONE,
        kind: KeyEventKind::Release,
        state: KeyEventState::NONE,
    });
    assert_eq!(Input::from_terminal(&release), None);
    let mouse = |kind| {
        Event::Mouse(MouseEvent {
            kind,
            column: 2,
            row: 5,
            modifiers: KeyModifiers::NONE,
        })
    };
    assert_eq!(
        Input::from_terminal(&mouse(MouseEventKind::Down(MouseButton::Left))),
        Some(Input::Click { column: 2, row: 5 })
    );
    assert_eq!(
        Input::from_terminal(&mouse(MouseEventKind::ScrollUp)),
        Some(Input::ScrollUp)
    );
    assert_eq!(Input::from_terminal(&mouse(MouseEventKind::Moved)), None);
    assert_eq!(
        Input::from_terminal(&Event::Resize(80, 24)),
        Some(Input::Resize(80, 24))
    );
}

#[test]
fn a_picker_scrolls_only_to_keep_its_selection_visible() {
    let mut app = app();
    app.update(Action::Resize(120, 6));
    assert_eq!(app.screen.view_height(), 1);
    app.update(Action::PickNamespace);
    for _ in 0..5 {
        app.update(Action::Down);
    }
    let p = app.picker.as_ref().unwrap();
    assert_eq!((p.selected, p.offset), (2, 2), "stops at the last item");
    app.update(Action::Resize(120, 7));
    app.update(Action::Up);
    let p = app.picker.as_ref().unwrap();
    assert_eq!(
        (p.selected, p.offset),
        (1, 1),
        "two rows: the window moved once"
    );
    app.update(Action::Down);
    let p = app.picker.as_ref().unwrap();
    assert_eq!(
        (p.selected, p.offset),
        (2, 1),
        "and stays while the selection shows"
    );
}

#[test]
fn click_selects_row() {
    let mut app = app();
    let top = app.screen.body_top();
    app.update(Action::Click {
        column: 3,
        row: top + 2,
    });
    assert_eq!(app.table.selected, 2);
    app.update(Action::ScrollUp);
    assert_eq!(app.table.selected, 1);
}

#[test]
fn enter_opens_the_tree_and_detail_returns_to_it() {
    let mut app = app();
    app.update(Action::Open);
    assert_eq!(app.mode, Mode::Tree);
    assert_eq!(app.tree.as_ref().unwrap().object, 0);
    app.update(Action::Open);
    assert_eq!(app.mode, Mode::Detail);
    app.update(Action::Back);
    assert_eq!(app.mode, Mode::Tree);
    app.update(Action::ToggleSelectors);
    assert!(app.tree.as_ref().unwrap().selectors);
    app.update(Action::Back);
    assert_eq!(app.mode, Mode::Table);
}

#[test]
fn the_table_comes_first_and_the_graph_links_it_when_it_arrives() {
    let text = "\
apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: rs, namespace: shop, uid: u1}\n---
apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: shop, ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: rs, uid: u1}]}\n---
apiVersion: v1\nkind: Pod\nmetadata: {name: lost, namespace: shop, ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: gone, uid: u2}]}\n";
    let kinds = crate::kinds::KindRegistry::builtin();
    let mut objects = parse_text(&Arc::from(Path::new("x.yaml")), text).objects;
    for o in &mut objects {
        crate::model::resolve_scope(&kinds, o);
    }
    let inventory = crate::model::Inventory {
        objects,
        kinds,
        ..Default::default()
    };
    let graph = crate::graph::Graph::build(&inventory);
    assert!(!graph.findings().is_empty());
    let mut app = App::new(Keymap::load(None).unwrap(), Options::default(), 0);
    app.update(Action::Resize(120, 30));
    app.update(Action::Loaded(Box::new(Dataset::unlinked(
        inventory.clone(),
    ))));
    assert!(app.loading.is_none() && app.data.linking);
    assert_eq!(app.counts(), (3, 3));
    app.refresh_problems();
    assert!(app.problem_rows.is_empty(), "no findings before the graph");
    // The tree opens at once, around the object alone, and the detail view over it.
    app.update(Action::Open);
    assert_eq!(app.mode, Mode::Tree);
    assert_eq!(app.tree.as_ref().unwrap().tree.visible().count(), 1);
    // A graph of other data (a stale message) is ignored.
    let other = crate::graph::Graph::build(&crate::model::Inventory::default());
    app.update(Action::Linked(Box::new(other)));
    assert!(app.data.linking);
    app.update(Action::Linked(Box::new(graph.clone())));
    assert!(!app.data.linking);
    assert_eq!(app.data.graph, graph);
    app.refresh_problems();
    assert_eq!(app.problem_rows.len(), graph.findings().len());
    let tree = app.tree.as_ref().unwrap();
    assert_eq!(tree.object, 0);
    assert_eq!(tree.tree.visible().count(), 2, "the ReplicaSet and its Pod");
    assert_eq!(app.mode, Mode::Tree);
}

#[test]
fn partial_loads_fill_the_table_while_loading_goes_on() {
    let all = parse_text(&Arc::from(Path::new("x.yaml")), FIXTURE).objects;
    let inv = |r: std::ops::Range<usize>| crate::model::Inventory {
        objects: all[r].to_vec(),
        ..Default::default()
    };
    let keymap = Keymap::load(None).unwrap();
    let mut app = App::new(keymap, Options::default(), 0);
    app.update(Action::Resize(120, 30));
    app.update(Action::LoadProgress {
        files_done: 1,
        files_total: 3,
    });
    app.update(Action::Partial(Box::new(inv(0..1))));
    assert!(app.loading.is_some(), "still loading");
    assert_eq!(visible_names(&app), ["web-1"]);
    // Enter on an object opens its owner tree, which needs the final graph.
    app.update(Action::Open);
    assert_eq!(app.mode, Mode::Table);
    assert!(app.status.as_deref().is_some_and(|s| s.contains("loading")));
    // The bar filters partial data, and the filter carries over to later batches.
    app.update(Action::FocusBar);
    type_text(&mut app, "app=web");
    app.update(Action::Partial(Box::new(inv(1..2))));
    assert_eq!(visible_names(&app), ["web-1"]);
    // A column the user removed stays removed when the final load arrives.
    app.table.columns.retain(|c| *c != Column::Source);
    assert_eq!(app.counts().1, 2, "both batches shown");
    assert_eq!(app.data.index.len(), 2);
    app.update(Action::Loaded(Box::new(Dataset::new(inv(0..3)))));
    assert!(app.loading.is_none());
    assert_eq!(visible_names(&app), ["web-1", "web"]);
    assert!(!app.table.columns.contains(&Column::Source));
    // A partial arriving after the final load (a late message) is ignored.
    app.update(Action::Partial(Box::new(inv(0..1))));
    assert_eq!(app.counts().1, 3);
}

fn change(text: &str, changed: &[&str], deleted: usize, at: i64) -> Box<Change> {
    let objects = parse_text(&Arc::from(Path::new("x.yaml")), text).objects;
    let picked: Vec<Object> = objects
        .iter()
        .filter(|o| changed.contains(&&*o.id.name))
        .cloned()
        .collect();
    let inventory = crate::model::Inventory {
        objects,
        ..Default::default()
    };
    Box::new(Change {
        data: ChangeData::Full(Box::new(Dataset::new(inventory))),
        deltas: deltas(&picked, deleted),
        at,
        quiet: false,
    })
}

#[test]
fn a_patched_change_splices_in_place_and_equals_a_rebuild() {
    let mut app = app();
    app.update(Action::Down);
    app.update(Action::Down);
    assert_eq!(visible_names(&app)[app.table.selected], "web");
    // db-1 (position 1) is replaced by a new object and an edited db-1.
    let text = "\
apiVersion: v1\nkind: Pod\nmetadata: {name: new-0, namespace: shop, labels: {app: web}}\n---
apiVersion: v1\nkind: Pod\nmetadata: {name: db-1, namespace: shop, labels: {app: web, tier: be}}\n";
    let objects = parse_text(&Arc::from(Path::new("y.yaml")), text).objects;
    let patch = Patch {
        splices: vec![FilePatch {
            at: 1,
            removed: 1,
            objects: objects.clone(),
        }],
        ..Patch::default()
    };
    app.update(Action::Changed(Box::new(Change {
        data: ChangeData::Patch(patch),
        deltas: deltas(&objects, 0),
        at: 3,
        quiet: false,
    })));
    assert_eq!(visible_names(&app), ["web-1", "new-0", "db-1", "web"]);
    assert_eq!(visible_names(&app)[app.table.selected], "web", "same row");
    let flashing: Vec<u32> = (0..4).filter(|&i| app.flashing(i)).collect();
    assert_eq!(flashing, [1, 2]);
    // (Three of four objects are in the namespace: the graph rebuilt, which is cheaper.)
    assert!(app.last_patch.is_some(), "the data was patched in place");
    // Index and graph are those of a full build of the new objects.
    let mut all = parse_text(&Arc::from(Path::new("x.yaml")), FIXTURE).objects;
    all.splice(1..2, objects);
    let rebuilt = Dataset::new(crate::model::Inventory {
        objects: all,
        ..Default::default()
    });
    assert_eq!(app.data.graph, rebuilt.graph);
    assert_eq!(
        app.data.index.values("app"),
        rebuilt.index.values("app"),
        "label index"
    );
    assert_eq!(app.data.index.len(), 4);
}

#[test]
fn a_watched_change_keeps_the_selected_object_and_flashes_changed_rows() {
    let mut app = app();
    app.update(Action::Down);
    assert_eq!(visible_names(&app)[app.table.selected], "db-1");
    // A new object lands above db-1 and db-1 itself changes.
    let edited = format!(
        "apiVersion: v1\nkind: Pod\nmetadata: {{name: new-0, namespace: shop}}\n---\n{}",
        FIXTURE.replace("tier: be", "tier: db")
    );
    app.update(Action::Changed(change(&edited, &["new-0", "db-1"], 0, 5)));
    assert_eq!(visible_names(&app), ["new-0", "web-1", "db-1", "web"]);
    assert_eq!(visible_names(&app)[app.table.selected], "db-1");
    let db = app.table.selected_object().unwrap();
    assert!(app.flashing(db));
    assert_eq!(
        app.last_change,
        Some(LastChange {
            at: 5,
            added: 0,
            updated: 2,
            deleted: 0
        })
    );
    // Flashing ends with the clock.
    app.update(Action::Tick(5 + FLASH_SECONDS));
    assert!(!app.flashing(db));
}

/// A file moved away and back: the watcher reports DELETED, then ADDED (as `get -w`);
/// the header counts the return as added, not updated.
#[test]
fn an_object_back_after_a_delete_counts_as_added() {
    let mut app = app();
    let without_db: String = FIXTURE
        .split("---\n")
        .filter(|d| !d.contains("db-1"))
        .collect::<Vec<_>>()
        .join("---\n");
    let mut gone = change(&without_db, &[], 0, 5);
    let db = parse_text(&Arc::from(Path::new("x.yaml")), FIXTURE).objects[1].clone();
    gone.deltas = vec![Delta {
        kind: DeltaKind::Deleted,
        id: db.id.clone(),
        object: None,
    }];
    app.update(Action::Changed(gone));
    let deleted = app.last_change.clone().unwrap();
    assert_eq!((deleted.added, deleted.updated, deleted.deleted), (0, 0, 1));
    assert_eq!(deleted.counts(), "0 updated, 1 deleted");

    let mut back = change(FIXTURE, &[], 0, 6);
    back.deltas = vec![Delta {
        kind: DeltaKind::Added,
        id: db.id.clone(),
        object: Some(db),
    }];
    app.update(Action::Changed(back));
    let added = app.last_change.clone().unwrap();
    assert_eq!((added.added, added.updated, added.deleted), (1, 0, 0));
    assert_eq!(added.counts(), "1 added, 0 updated, 0 deleted");
    assert!(visible_names(&app).contains(&"db-1".to_string()));
}

#[test]
fn a_deleted_selection_falls_back_to_the_nearest_row_and_closes_its_detail() {
    let mut app = app();
    app.update(Action::Down);
    app.update(Action::OpenDetail);
    assert_eq!(app.mode, Mode::Detail);
    let without_db: String = FIXTURE
        .split("---\n")
        .filter(|d| !d.contains("db-1"))
        .collect::<Vec<_>>()
        .join("---\n");
    app.update(Action::Changed(change(&without_db, &[], 1, 9)));
    assert_eq!(app.mode, Mode::Table);
    assert!(app.detail.is_none());
    assert_eq!(visible_names(&app), ["web-1", "web"]);
    assert_eq!(app.table.selected, 1, "the row that took its place");
}

#[test]
fn the_bar_filter_applies_to_changed_data() {
    let mut app = app();
    app.update(Action::FocusBar);
    type_text(&mut app, "app=web");
    let edited = FIXTURE.replace("{app: db, tier: be}", "{app: web, tier: be}");
    app.update(Action::Changed(change(&edited, &["db-1"], 0, 1)));
    assert_eq!(visible_names(&app), ["web-1", "db-1", "web"]);
    assert_eq!(app.bar.text(), "app=web");
}

#[test]
fn loading_progress_redraws_every_five_percent_not_every_file() {
    let mut app = App::new(Keymap::load(None).unwrap(), Options::default(), 0);
    app.update(Action::Resize(120, 30));
    let mut frames = 0;
    for done in 0..=1000 {
        app.dirty = false;
        app.update(Action::LoadProgress {
            files_done: done,
            files_total: 1000,
        });
        frames += usize::from(app.dirty);
    }
    assert_eq!(frames, 21, "the first, one per 5 %, none other");
    assert_eq!(app.loading.map(|p| p.files_done), Some(1000));
}

/// The data layer's first load, fed to the app event by event as the event loop does (partial
/// batches, the table, the graph), ends with a fresh load's data, findings included.
#[test]
fn the_first_load_events_end_with_a_fresh_loads_data() {
    use crate::dataset::{first_load, Pacing};
    use crate::model::load::{load_file, LoadOptions};
    use std::time::Duration;

    let dir = tempfile::tempdir().unwrap();
    for i in 0..20 {
        let text = format!(
            "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {{name: rs{i}, namespace: ns{n}, uid: u{i}, labels: {{app: a{i}}}}}\n---\n\
             apiVersion: v1\nkind: Pod\nmetadata: {{name: p{i}, namespace: ns{n}, labels: {{app: a{i}}}, ownerReferences: [{{apiVersion: apps/v1, kind: ReplicaSet, name: rs{i}, uid: u{i}}}]}}\n",
            n = i % 3
        );
        std::fs::write(dir.path().join(format!("f{i:02}.yaml")), text).unwrap();
    }
    std::fs::write(dir.path().join("orphan.yaml"), "apiVersion: v1\nkind: Pod\nmetadata:\n  name: lost\n  ownerReferences:\n  - {apiVersion: apps/v1, kind: ReplicaSet, name: gone, uid: nope}\n").unwrap();
    std::fs::write(dir.path().join("zz-broken.yaml"), "kind: [\n").unwrap();
    let paths = vec![dir.path().to_path_buf()];
    let opts = LoadOptions::default();
    let sent = std::sync::Mutex::new(Vec::new());
    let send = |e: crate::dataset::Event| {
        sent.lock().unwrap().push(e);
        true
    };
    let at_once = Pacing {
        first_after: Duration::ZERO,
        every: Duration::ZERO,
    };
    first_load(
        &paths,
        &opts,
        Some(at_once),
        true,
        &|f| load_file(f, &opts),
        &send,
    )
    .unwrap();
    let fresh = Dataset::load(&paths, &opts);

    let mut app = App::new(Keymap::load(None).unwrap(), Options::default(), 0);
    app.update(Action::Resize(120, 30));
    for e in sent.into_inner().unwrap() {
        app.update(e.into());
    }
    let ids = |d: &Dataset| {
        d.inventory
            .objects
            .iter()
            .map(|o| o.id.clone())
            .collect::<Vec<_>>()
    };
    assert!(app.loading.is_none() && !app.data.linking);
    assert_eq!(ids(&app.data), ids(&fresh));
    assert_eq!(app.data.index, fresh.index);
    assert_eq!(app.data.graph, fresh.graph);
    assert!(
        !fresh.graph.findings().is_empty(),
        "the dangling owner is a finding"
    );
    app.refresh_problems();
    assert_eq!(
        app.problem_rows.len(),
        fresh.inventory.problems.len() + fresh.graph.findings().len()
    );
}

fn app_of(text: &str) -> App {
    let objects = parse_text(&Arc::from(Path::new("y.yaml")), text).objects;
    let inventory = crate::model::Inventory {
        objects,
        ..Default::default()
    };
    let mut app = App::new(Keymap::load(None).unwrap(), Options::default(), 0);
    app.update(Action::Resize(120, 30));
    app.update(Action::Loaded(Box::new(Dataset::new(inventory))));
    app
}

/// An app over a Pod using a ConfigMap and a missing Secret, plus an unrelated Pod.
fn app_with_references() -> App {
    let text = "\
apiVersion: v1\nkind: Pod\nmetadata: {name: user, namespace: shop}\nspec: {volumes: [{name: v, configMap: {name: cfg}}, {name: s, secret: {secretName: gone}}]}\n---
apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg, namespace: shop}\n---
apiVersion: v1\nkind: Pod\nmetadata: {name: other, namespace: shop}\n";
    let objects = parse_text(&Arc::from(Path::new("r.yaml")), text).objects;
    let inventory = crate::model::Inventory::of(objects, crate::kinds::KindRegistry::builtin());
    let mut app = App::new(Keymap::load(None).unwrap(), Options::default(), 0);
    app.update(Action::Resize(120, 30));
    app.update(Action::Loaded(Box::new(Dataset::new(inventory))));
    app
}

fn titles_of(app: &App) -> Vec<String> {
    titles(&app.table.columns)
}

#[test]
fn sorting_breaks_ties_by_namespace_then_name_and_keeps_the_cursor() {
    let mut app = app();
    assert_eq!(visible_names(&app), ["web-1", "db-1", "web"]);
    assert_eq!(app.table.selected, 0, "on web-1");
    app.update(Action::SortNext);
    app.update(Action::SortNext);
    assert_eq!(titles_of(&app)[1], "KIND");
    assert_eq!(visible_names(&app), ["web", "db-1", "web-1"]);
    assert_eq!(app.table.selected, 2, "the cursor followed web-1");
    app.update(Action::SortReverse);
    // Descending by kind; the two Pods still by namespace, then name.
    assert_eq!(visible_names(&app), ["db-1", "web-1", "web"]);
    assert_eq!(app.table.selected, 1);
}

#[test]
fn one_kind_shows_its_kubectl_columns_and_keeps_the_label_columns() {
    let mut app = app();
    app.update(Action::PickKind);
    app.update(Action::FilterPicker);
    assert_eq!(app.key_mode(), Mode::Bar, "characters are typed");
    type_text(&mut app, "POD");
    assert_eq!(app.picker.as_ref().unwrap().shown.len(), 1);
    app.update(Action::LeaveBar);
    assert_eq!(app.kind.as_deref(), Some("Pod"));
    assert_eq!(
        titles_of(&app),
        [
            "NAMESPACE",
            "NAME",
            "READY",
            "STATUS",
            "RESTARTS",
            "AGE",
            "IP",
            "NODE",
            "APP",
            "TIER",
            "SOURCE"
        ]
    );
    let pod = &app.data.inventory.objects[0];
    let epoch = chrono::DateTime::from_timestamp(0, 0).unwrap();
    let get = crate::kinds::cells(pod.as_view(), true, epoch);
    let ui: Vec<String> = app.table.columns[2..8]
        .iter()
        .map(|c| c.cell(pod, 0))
        .collect();
    assert_eq!(ui[0], "0/0");
    assert_eq!(ui[..3], get[..3], "the cells `get` prints");
    // IP and NODE of the wide ones (as k9s), not NOMINATED NODE and READINESS GATES.
    assert_eq!(ui[4..], get[4..6], "the wide cells too");
    // Back to every kind: the generic columns again.
    app.update(Action::PickKind);
    app.update(Action::Top);
    app.update(Action::Open);
    assert_eq!(titles_of(&app)[..3], ["NAMESPACE", "KIND", "NAME"]);
    // Sideways scroll stops at the last column.
    for _ in 0..50 {
        app.update(Action::ScrollRight);
    }
    assert_eq!(app.table.hscroll, app.table.scrollable());
}

#[test]
fn picker_counts_follow_the_other_filters() {
    let mut app = app();
    app.namespace = Some("shop".into());
    app.update(Action::PickKind);
    let counts = |app: &App| -> Vec<(String, u64)> {
        let p = app.picker.as_ref().unwrap();
        p.items.iter().map(|i| (i.0.clone(), i.1)).collect()
    };
    assert_eq!(
        counts(&app),
        [
            ("(all)".into(), 2),
            ("Deployment".into(), 0),
            ("Pod".into(), 2)
        ]
    );
    app.update(Action::Back);
    app.namespace = None;
    app.kind = Some("Deployment".into());
    app.update(Action::PickNamespace);
    assert_eq!(
        counts(&app),
        [("(all)".into(), 1), ("ops".into(), 1), ("shop".into(), 0)]
    );
    // PgDn / G reach the end, g the top.
    app.update(Action::Bottom);
    assert_eq!(app.picker.as_ref().unwrap().selected, 2);
    app.update(Action::Top);
    assert_eq!(app.picker.as_ref().unwrap().selected, 0);
}

#[test]
fn cluster_scoped_objects_are_picked_as_cluster() {
    let mut app = app_of(
        "apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n---\n\
         apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: shop}\n",
    );
    app.update(Action::PickNamespace);
    let names: Vec<&str> = app
        .picker
        .as_ref()
        .unwrap()
        .items
        .iter()
        .map(|i| i.0.as_str())
        .collect();
    assert_eq!(names, [ALL, CLUSTER, "shop"]);
    app.update(Action::Down);
    app.update(Action::Open);
    assert_eq!(app.namespace.as_deref(), Some(""));
    assert_eq!(visible_names(&app), ["shop"]);
}

#[test]
fn marks_copy_every_path_and_edit_the_first() {
    let mut app = app();
    app.update(Action::ToggleMark);
    assert_eq!(app.table.selected, 1, "space moves on");
    app.update(Action::Down);
    app.update(Action::ToggleMark);
    app.take_effects();
    app.update(Action::CopyPath);
    let paths: Vec<String> = [0, 2]
        .iter()
        .map(|i: &usize| app.data.inventory.objects[*i].source.to_string())
        .collect();
    assert_eq!(app.take_effects(), [Effect::Copy(paths.join("\n"))]);
    app.update(Action::Edit);
    assert!(matches!(
        app.take_effects().as_slice(),
        [Effect::Edit { line: 1, .. }]
    ));
    app.update(Action::ClearMarks);
    app.update(Action::CopyPath);
    assert_eq!(
        app.take_effects(),
        [Effect::Copy(
            app.data.inventory.objects[2].source.to_string()
        )]
    );
}

#[test]
fn detail_tabs_decode_a_secret_escaped_and_reindent_a_json_item() {
    let mut app = app_of(
        "apiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: a}\n\
         data: {a: aGVsbG8K, b: G1sz}\n",
    );
    app.update(Action::ShowYaml);
    assert_eq!(app.detail.as_ref().unwrap().tab, DetailTab::Yaml);
    let object = app.detail.as_ref().unwrap().object;
    let json = "{\n        \"kind\": \"Secret\",\n        \"x\": 1\n      }";
    app.update(Action::DetailSource {
        object,
        text: json.into(),
    });
    assert_eq!(
        app.detail.as_ref().unwrap().text,
        ["{", "  \"kind\": \"Secret\",", "  \"x\": 1", "}"]
    );
    app.update(Action::ToggleDecode);
    let text = app.detail.as_ref().unwrap().text.join("\n");
    assert!(text.contains(r#""a": "hello\n""#), "{text}");
    assert!(text.contains(r#""b": "\x1b[3""#), "no raw ESC: {text}");
    assert!(!text.contains('\u{1b}'));
    app.update(Action::ShowDescribe);
    assert_eq!(app.detail.as_ref().unwrap().tab, DetailTab::Describe);
    assert!(app.detail.as_ref().unwrap().lines()[1].contains("Name:"));
}
#[test]
fn reference_terms_filter_and_group_in_the_bar() {
    let mut app = app_with_references();
    app.bar.line.set("uses(cm/cfg)");
    app.refilter();
    assert_eq!(visible_names(&app), vec!["user"]);
    app.bar.line.set("usedby(pod/shop/user)");
    app.refilter();
    assert_eq!(visible_names(&app), vec!["cfg"]);
    app.bar.line.set("uses(secret/gone)");
    app.refilter();
    assert_eq!(
        visible_names(&app),
        vec!["user"],
        "a missing target still matches"
    );
    app.bar.line.set("uses(cm/shop)");
    app.refilter();
    assert!(visible_names(&app).is_empty());
    app.bar.line.set("| by configmap");
    app.refilter();
    assert_eq!(
        visible_names(&app),
        vec![
            "[(no ConfigMap) 2]",
            "cfg",
            "other",
            "[ConfigMap/cfg 1]",
            "user"
        ]
    );
}

#[test]
fn the_tree_toggles_reference_edges_and_the_detail_lists_them() {
    let mut app = app_with_references();
    app.bar.line.set("~user");
    app.refilter();
    app.update(Action::OpenTree);
    let objs = |app: &App| -> Vec<usize> {
        let t = app.tree.as_ref().unwrap();
        t.tree.nodes().iter().map(|n| n.obj).collect()
    };
    assert_eq!(objs(&app), vec![0]);
    app.update(Action::ToggleRefs);
    assert!(app.tree.as_ref().unwrap().refs);
    assert_eq!(objs(&app), vec![0, 1]);
    app.update(Action::OpenDetail);
    let summary: Vec<String> = app
        .detail
        .as_ref()
        .unwrap()
        .summary
        .iter()
        .map(|l| l.0.iter().map(|(_, t)| t.as_str()).collect())
        .collect();
    let at = summary.iter().position(|l| l == "Uses:").unwrap();
    assert_eq!(summary[at + 1], "  ConfigMap/shop/cfg  via volume");
    assert_eq!(
        summary[at + 2],
        "  Secret/shop/gone  via volume  not found in the input"
    );
}
