//! The input side of the UI, headless: the selector bar as a line editor (cursor, word
//! keys, paste, horizontal scroll, Tab that never removes text), the `:` command line and
//! the start-up options; render snapshots at 80×24 of a long selector and command mode.

use std::path::PathBuf;

use kubesift::app::{Action, App, Input, Key, Keymap, Mode, Options, Row};
use kubesift::dataset::Dataset;
use kubesift::model::load::{load_paths, LoadOptions};
use ratatui::backend::TestBackend;
use ratatui::Terminal;

/// 2026-06-01T00:00:00Z, so AGE is stable.
const NOW: i64 = 1_780_272_000;

fn app_with(options: Options, width: u16, height: u16) -> App {
    let inventory = load_paths(
        &[PathBuf::from("tests/fixtures/ui")],
        &LoadOptions::default(),
    );
    let options = Options {
        no_color: true,
        ..options
    };
    let mut app = App::new(Keymap::load(None).unwrap(), options, NOW);
    app.update(Action::Resize(width, height));
    app.update(Action::Loaded(Box::new(Dataset::new(inventory))));
    // Sort by NAME so snapshots do not depend on the walk order.
    for _ in 0..3 {
        app.update(Action::SortNext);
    }
    app
}

fn app() -> App {
    app_with(Options::default(), 80, 24)
}

fn render(app: &App, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|f| kubesift::ui::draw(app, f)).unwrap();
    terminal.backend().to_string()
}

/// Presses keys as the terminal would deliver them (through the keymap of the mode).
fn keys(app: &mut App, keys: &[&str]) {
    for k in keys {
        let input = Input::Key(Key::parse(k).unwrap());
        if let Some(action) = app.intent(input) {
            app.update(action);
        }
    }
}

fn type_text(app: &mut App, text: &str) {
    for c in text.chars() {
        let input = Input::Key(Key::parse(&c.to_string()).unwrap());
        let action = app.intent(input).unwrap();
        app.update(action);
    }
}

fn names(app: &App) -> Vec<String> {
    app.table
        .rows
        .iter()
        .filter_map(|r| match r {
            Row::Object(i) => Some(app.data.inventory.objects[*i as usize].id.name.to_string()),
            Row::Group { .. } => None,
        })
        .collect()
}

#[test]
fn tab_never_removes_what_was_typed() {
    let mut app = app();
    keys(&mut app, &["/"]);
    for (typed, expect) in [
        ("meta", "metadata.name"),
        ("tier=zz", "tier=zz"),
        ("tier=backend,zz", "tier=backend,zz"),
        ("nothing-starts-so", "nothing-starts-so"),
        ("app notin (zz", "app notin (zz"),
    ] {
        keys(&mut app, &["ctrl-u"]);
        type_text(&mut app, typed);
        keys(&mut app, &["tab"]);
        assert_eq!(app.bar.text(), expect, "after {typed:?} + Tab");
        keys(&mut app, &["tab", "backtab"]);
        assert!(
            app.bar.text().starts_with(typed),
            "{typed:?} became {:?}",
            app.bar.text()
        );
    }
}

#[test]
fn tab_completes_values_after_in_notin_not_equal_and_for_fields() {
    let mut app = app();
    keys(&mut app, &["/"]);
    type_text(&mut app, "tier!=f");
    keys(&mut app, &["tab"]);
    assert_eq!(app.bar.text(), "tier!=frontend");
    keys(&mut app, &["ctrl-u"]);
    type_text(&mut app, "tier notin (f");
    keys(&mut app, &["tab"]);
    assert_eq!(app.bar.text(), "tier notin (frontend");
    keys(&mut app, &["ctrl-u"]);
    type_text(&mut app, "metadata.namespace=");
    keys(&mut app, &["tab"]);
    let c = app.bar.completion.clone().unwrap();
    assert_eq!(c.items, [("ops".to_string(), 3), ("shop".to_string(), 6)]);
    keys(&mut app, &["tab"]);
    assert_eq!(app.bar.text(), "metadata.namespace=ops");
    keys(&mut app, &["tab"]);
    assert_eq!(app.bar.text(), "metadata.namespace=shop");
    keys(&mut app, &["backtab"]);
    assert_eq!(
        app.bar.text(),
        "metadata.namespace=ops",
        "Shift-Tab cycles back"
    );
    keys(&mut app, &["ctrl-u"]);
    type_text(&mut app, "metadata.name=ledger");
    keys(&mut app, &["tab"]);
    assert!(app.bar.text().starts_with("metadata.name=ledgerdb"));
    assert!(app.bar.error.is_none(), "{:?}", app.bar.error);
}

#[test]
fn editing_in_the_middle_of_the_selector() {
    let mut app = app();
    keys(&mut app, &["/"]);
    type_text(&mut app, "tier=frontend,app=storefront");
    assert_eq!(names(&app).len(), 2);
    // Ctrl-Left twice lands on `app`; word-left again on `frontend`.
    keys(&mut app, &["ctrl-left", "ctrl-left", "alt-b"]);
    assert_eq!(app.bar.line.cursor(), 5);
    keys(&mut app, &["ctrl-k"]);
    assert_eq!(app.bar.text(), "tier=");
    type_text(&mut app, "backend");
    keys(&mut app, &["home", "delete", "delete", "delete", "delete"]);
    assert_eq!(app.bar.text(), "=backend");
    type_text(&mut app, "tier");
    assert_eq!(app.bar.line.cursor(), 4);
    assert_eq!(names(&app), ["ledgerdb", "ledgerdb-config", "metricsagent"]);
    keys(&mut app, &["end", "ctrl-w"]);
    assert_eq!(app.bar.text(), "tier=");
    keys(&mut app, &["ctrl-a", "right", "right", "backspace"]);
    assert_eq!(app.bar.text(), "ter=");
    app.update(Action::Paste("i\n".into()));
    assert_eq!((app.bar.text(), app.bar.line.cursor()), ("tier=", 2));
}

#[test]
fn a_long_selector_scrolls_around_the_cursor() {
    let mut app = app();
    keys(&mut app, &["/"]);
    let long = format!("app in ({}),tier=frontend", "storefront,".repeat(12));
    type_text(&mut app, &long);
    let width = kubesift::app::text_width(80);
    let scroll = app.bar.line.scroll();
    assert!(
        scroll > 0 && long.len() - scroll < width,
        "end in view: {scroll}"
    );
    for _ in 0..60 {
        keys(&mut app, &["left"]);
    }
    let cursor = app.bar.line.cursor_column();
    let scroll = app.bar.line.scroll();
    assert!(
        (scroll..scroll + width).contains(&cursor),
        "{scroll} {cursor}"
    );
    keys(&mut app, &["home"]);
    assert_eq!(app.bar.line.scroll(), 0);
}

#[test]
fn a_long_selector_error_wraps_whole_under_its_caret() {
    let mut app = app();
    keys(&mut app, &["/"]);
    let long = format!("{}tier in (frontend", "app!=x,".repeat(20));
    type_text(&mut app, &long);
    let err = app.bar.error.clone().expect("unclosed paren is an error");
    let rows = app.bar.error_rows(80);
    assert!(rows.len() >= 2, "{rows:?}");
    let joined: Vec<&str> = rows.iter().map(|r| r.text.as_str()).collect();
    assert_eq!(joined.join(" ").trim(), err.message, "never cut");
    let screen = render(&app, 80, 24);
    let lines: Vec<&str> = screen.lines().collect();
    let caret_row = lines.iter().position(|l| l.contains('^')).unwrap();
    let caret_col = lines[caret_row].chars().position(|c| c == '^').unwrap();
    // The character above the caret is the one the error points at.
    let text_row: Vec<char> = lines[caret_row - 1].chars().collect();
    let at = &long[err.offset..];
    assert_eq!(
        text_row[caret_col],
        at.chars().next().unwrap_or(' '),
        "{screen}"
    );
    insta::assert_snapshot!(screen);
}

#[test]
fn an_error_out_of_view_is_marked_then_shown_under_its_character() {
    let mut app = app();
    keys(&mut app, &["/"]);
    let long = format!("{}tier=ba$d{}", "app!=x,".repeat(8), ",app!=y".repeat(12));
    type_text(&mut app, &long);
    let err = app.bar.error.clone().expect("invalid value");
    assert!(err.message.len() > 160, "a long message: {}", err.message);
    let rows = app.bar.error_rows(80);
    assert_eq!(rows[0].caret, Some("◂"), "the error is left of the window");
    keys(&mut app, &["home"]);
    let rows = app.bar.error_rows(80);
    assert_eq!(rows[0].caret, Some("^"));
    assert!(rows.len() >= 3, "the message wraps: {rows:?}");
    let joined: Vec<&str> = rows.iter().map(|r| r.text.as_str()).collect();
    assert_eq!(joined.join(" ").trim(), err.message, "never cut");
    let screen = render(&app, 80, 24);
    let lines: Vec<&str> = screen.lines().collect();
    let caret_row = lines.iter().position(|l| l.contains('^')).unwrap();
    let caret_col = lines[caret_row].chars().position(|c| c == '^').unwrap();
    let text_row: Vec<char> = lines[caret_row - 1].chars().collect();
    assert_eq!(
        text_row[caret_col],
        long[err.offset..].chars().next().unwrap(),
        "{screen}"
    );
    assert!(lines.iter().all(|l| l.chars().count() == 82), "{screen}");
    insta::assert_snapshot!(screen);
}

#[test]
fn a_long_selector_at_80_columns() {
    let mut app = app();
    keys(&mut app, &["/"]);
    type_text(
        &mut app,
        "app in (storefront,ledgerdb,metricsagent,oldjob),tier notin (cache,queue),team!=ops,!legacy",
    );
    for _ in 0..85 {
        keys(&mut app, &["left"]);
    }
    insta::assert_snapshot!(render(&app, 80, 24));
}

#[test]
fn esc_in_the_table_keeps_the_selector_and_in_the_bar_clears_it() {
    let mut app = app();
    keys(&mut app, &["/"]);
    type_text(&mut app, "tier=backend");
    keys(&mut app, &["enter", "esc"]);
    assert_eq!(app.mode, Mode::Table);
    assert_eq!(app.bar.text(), "tier=backend", "Esc in the table keeps it");
    keys(&mut app, &["/", "esc"]);
    assert_eq!(app.bar.text(), "");
    assert_eq!(app.mode, Mode::Table);
}

#[test]
fn command_mode_sets_kind_and_namespace() {
    let mut app = app();
    keys(&mut app, &[":"]);
    assert_eq!(app.mode, Mode::Command);
    type_text(&mut app, "deploy");
    keys(&mut app, &["enter"]);
    assert_eq!(app.mode, Mode::Table);
    assert_eq!(app.kind.as_deref(), Some("Deployment"));
    assert_eq!(
        names(&app),
        ["metricsagent", "storefront"].map(String::from)
    );
    assert_eq!(app.breadcrumb(), "deployments › all namespaces");
    keys(&mut app, &[":"]);
    type_text(&mut app, "po sh");
    keys(&mut app, &["tab", "enter"]);
    assert_eq!(app.kind.as_deref(), Some("Pod"));
    assert_eq!(app.namespace.as_deref(), Some("shop"));
    assert_eq!(app.breadcrumb(), "pods › shop");
    assert!(!names(&app).is_empty());
    // The picker shows what the command set: one state for both.
    keys(&mut app, &["n"]);
    let picker = app.picker.clone().unwrap();
    assert!(picker.items.iter().any(|(v, _, on)| v == "shop" && *on));
    keys(&mut app, &["esc", ":"]);
    type_text(&mut app, "nope");
    keys(&mut app, &["enter"]);
    assert_eq!(
        app.status.as_deref(),
        Some("error: the server doesn't have a resource type \"nope\"")
    );
    assert_eq!(app.kind.as_deref(), Some("Pod"), "unchanged");
    keys(&mut app, &[":"]);
    type_text(&mut app, "all -A");
    keys(&mut app, &["enter"]);
    assert_eq!(
        (app.kind.as_deref(), app.namespace.as_deref()),
        (None, None)
    );
    keys(&mut app, &[":", "q", "enter"]);
    assert!(app.should_quit);
}

#[test]
fn command_mode_tab_completes_kinds() {
    let mut app = app();
    keys(&mut app, &[":", "d", "e", "tab"]);
    assert_eq!(app.command.as_ref().unwrap().line.text(), "deployments");
    keys(&mut app, &["esc"]);
    assert_eq!(app.mode, Mode::Table);
    assert_eq!(app.kind, None, "Esc cancels");
}

#[test]
fn command_mode_render() {
    let mut app = app();
    keys(&mut app, &[":"]);
    type_text(&mut app, "deploy");
    keys(&mut app, &["enter", ":"]);
    type_text(&mut app, "s");
    keys(&mut app, &["tab"]);
    insta::assert_snapshot!(render(&app, 80, 24));
}

#[test]
fn start_up_options() {
    let options = Options {
        namespace: Some("shop".into()),
        selector: Some("tier=frontend".into()),
        command: Some("svc".into()),
        ..Options::default()
    };
    let app = app_with(options, 80, 24);
    assert_eq!(app.namespace.as_deref(), Some("shop"));
    assert_eq!(app.kind.as_deref(), Some("Service"));
    assert_eq!(app.bar.text(), "tier=frontend");
    assert_eq!(names(&app), ["storefront-svc"]);
    let bad = app_with(
        Options {
            command: Some("nope".into()),
            ..Options::default()
        },
        80,
        24,
    );
    assert_eq!(
        bad.status.as_deref(),
        Some("error: the server doesn't have a resource type \"nope\"")
    );
}
