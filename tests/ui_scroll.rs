//! Headless key sequences through the keymap: every scroll offset is kept valid by
//! `App::update`, so a key pressed at an end is never swallowed and no view scrolls into
//! blank space. Each frame is drawn on a `TestBackend` of the size the app was told.

use std::collections::BTreeSet;
use std::path::PathBuf;

use kubesift::app::{Action, App, Input, Key, Keymap, Mode, Options};
use kubesift::dataset::Dataset;
use kubesift::model::load::{load_paths, LoadOptions};
use ratatui::backend::TestBackend;
use ratatui::Terminal;

/// 2026-06-01T00:00:00Z.
const NOW: i64 = 1_780_272_000;

/// Sections of the help, in order, and its last line.
const HELP_TITLES: [&str; 7] = [
    "table:",
    "bar:",
    "tree:",
    "detail:",
    "problems:",
    "picker:",
    "global:",
];
const HELP_LAST: &str = "terms are separated by commas";

fn app(w: u16, h: u16) -> App {
    let inventory = load_paths(
        &[PathBuf::from("tests/fixtures/ui")],
        &LoadOptions::default(),
    );
    let options = Options {
        no_color: true,
        ..Options::default()
    };
    let mut app = App::new(Keymap::load(None).unwrap(), options, NOW);
    app.update(Action::Resize(w, h));
    app.update(Action::Loaded(Box::new(Dataset::new(inventory))));
    app
}

/// The screen's rows.
fn render(app: &App, w: u16, h: u16) -> Vec<String> {
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| kubesift::ui::draw(app, f)).unwrap();
    let buf = terminal.backend().buffer();
    (0..h)
        .map(|y| (0..w).map(|x| buf[(x, y)].symbol()).collect::<String>())
        .collect()
}

/// Rows of text inside the bordered view or overlay over header and table (`h - 3` rows
/// with its borders), cut between its left and right border.
fn view_rows(app: &App, w: u16, h: u16) -> Vec<String> {
    let rows = render(app, w, h);
    rows[1..(h as usize - 4)]
        .iter()
        .map(|row| {
            let chars: Vec<char> = row.chars().collect();
            let left = chars.iter().position(|&c| c == '│').unwrap();
            let right = chars.iter().rposition(|&c| c == '│').unwrap();
            chars[left + 1..right].iter().collect()
        })
        .collect()
}

/// Presses `key` (as the keymap writes it) in the current mode.
fn press(app: &mut App, key: &str) {
    let input = Input::Key(Key::parse(key).unwrap());
    let action = app
        .intent(input)
        .unwrap_or_else(|| panic!("{key:?} is not bound in {:?}", app.mode));
    app.update(action);
}

/// The detail view (YAML tab) of the first row, its text `lines` lines long.
fn detail(w: u16, h: u16, lines: usize) -> App {
    let mut app = app(w, h);
    press(&mut app, "y");
    assert_eq!(app.mode, Mode::Detail);
    let object = app.detail.as_ref().unwrap().object;
    let text: String = (1..=lines).map(|i| format!("line{i:03}: x\n")).collect();
    app.update(Action::DetailSource { object, text });
    app
}

/// The detail view's offset is within the last page of its content.
fn assert_valid(app: &App) {
    let d = app.detail.as_ref().unwrap();
    let last_page = d.line_count().saturating_sub(app.screen.view_height());
    assert!(d.scroll <= last_page, "{} > {last_page}", d.scroll);
}

#[test]
fn detail_g_at_the_end_then_k_scrolls_up_one_line() {
    let (w, h) = (80, 24);
    let mut app = detail(w, h, 60);
    press(&mut app, "G");
    let bottom = view_rows(&app, w, h);
    assert!(
        bottom.last().unwrap().contains("line060"),
        "G shows the last page, full: {bottom:#?}"
    );
    press(&mut app, "k");
    let up = view_rows(&app, w, h);
    assert_eq!(up[1..], bottom[..bottom.len() - 1], "k moved one line up");
    press(&mut app, "k");
    assert_eq!(view_rows(&app, w, h)[2..], bottom[..bottom.len() - 2]);
    assert_valid(&app);
}

#[test]
fn detail_j_at_the_end_stays_on_the_last_page() {
    let (w, h) = (80, 24);
    let mut app = detail(w, h, 60);
    press(&mut app, "G");
    let last_page = view_rows(&app, w, h);
    press(&mut app, "j");
    press(&mut app, "pagedown");
    assert_eq!(view_rows(&app, w, h), last_page);
    // Walking down from the top ends on the same page, not in blank space.
    press(&mut app, "g");
    assert!(view_rows(&app, w, h)[0].contains("line001"));
    for _ in 0..200 {
        press(&mut app, "j");
    }
    assert_eq!(view_rows(&app, w, h), last_page);
    press(&mut app, "k");
    assert_ne!(view_rows(&app, w, h), last_page, "one k scrolls back up");
    assert_valid(&app);
}

#[test]
fn resizing_the_detail_view_keeps_its_offset_valid() {
    let mut app = detail(80, 40, 60);
    press(&mut app, "G");
    // Shrinking: the offset stays valid, and the next k scrolls at once.
    app.update(Action::Resize(80, 15));
    assert_valid(&app);
    let before = view_rows(&app, 80, 15);
    press(&mut app, "k");
    assert_eq!(view_rows(&app, 80, 15)[1..], before[..before.len() - 1]);
    // Growing after G: the offset comes back to the new last page (no blank rows).
    press(&mut app, "G");
    app.update(Action::Resize(80, 50));
    assert_valid(&app);
    let rows = view_rows(&app, 80, 50);
    assert!(rows.last().unwrap().contains("line060"), "{rows:#?}");
    assert!(rows[0].contains("line"), "{rows:#?}");
}

#[test]
fn the_detail_offset_follows_its_text_when_it_arrives_shorter() {
    let (w, h) = (80, 24);
    let mut app = detail(w, h, 60);
    press(&mut app, "G");
    let object = app.detail.as_ref().unwrap().object;
    app.update(Action::DetailSource {
        object,
        text: "kind: Pod\n".into(),
    });
    assert_valid(&app);
    assert!(view_rows(&app, w, h)[0].contains("kind: Pod"));
}

#[test]
fn wrapped_detail_lines_scroll_to_their_last_row_and_back() {
    let (w, h) = (40, 15);
    let mut app = app(w, h);
    press(&mut app, "y");
    let object = app.detail.as_ref().unwrap().object;
    // 30 lines of 100 characters: 3 rows each inside 38 columns when wrapped.
    let text: String = (1..=30)
        .map(|i| format!("l{i:02}{}\n", "x".repeat(97)))
        .collect();
    app.update(Action::DetailSource { object, text });
    press(&mut app, "w");
    assert_eq!(app.detail.as_ref().unwrap().line_count(), 90);
    press(&mut app, "G");
    assert_valid(&app);
    let bottom = view_rows(&app, w, h);
    assert!(bottom.last().unwrap().starts_with("xxxx"), "{bottom:#?}");
    assert!(bottom.iter().any(|r| r.starts_with("l30")), "{bottom:#?}");
    press(&mut app, "k");
    assert_eq!(view_rows(&app, w, h)[1..], bottom[..bottom.len() - 1]);
    // Unwrapping keeps the offset within the shorter text.
    press(&mut app, "w");
    assert_valid(&app);
}

#[test]
fn detail_search_jumps_to_matches_and_n_wraps_around() {
    let (w, h) = (80, 24);
    let mut app = detail(w, h, 60);
    press(&mut app, "/");
    for c in "LINE04".chars() {
        app.update(Action::Insert(c));
    }
    press(&mut app, "enter");
    let d = app.detail.as_ref().unwrap();
    assert_eq!(d.matches.len(), 10, "line040..line049, case-insensitive");
    assert!(view_rows(&app, w, h)[0].contains("line040"));
    press(&mut app, "n");
    assert!(view_rows(&app, w, h)[0].contains("line041"));
    press(&mut app, "N");
    press(&mut app, "N");
    // Before the first match comes the last one, at most on the last page.
    assert_eq!(app.detail.as_ref().unwrap().current, Some(9));
    assert_valid(&app);
    let rows = render(&app, w, h);
    assert!(rows[h as usize - 4].contains("/LINE04 10/10"), "{rows:#?}");
}

/// Opens help with `?`, then pages through it with `key` until it stops moving, collecting
/// every row of text shown.
fn scroll_through_help(w: u16, h: u16, key: &str) -> (App, BTreeSet<String>) {
    let mut app = app(w, h);
    press(&mut app, "?");
    assert_eq!(app.mode, Mode::Help);
    let mut seen = BTreeSet::new();
    let mut last = Vec::new();
    for _ in 0..500 {
        let rows = view_rows(&app, w, h);
        if rows == last {
            break;
        }
        seen.extend(rows.iter().map(|r| r.trim().to_string()));
        last = rows;
        press(&mut app, key);
    }
    (app, seen)
}

#[test]
fn help_scrolls_through_every_section_to_its_last_entry() {
    for (w, h) in [(80, 24), (40, 15), (200, 50)] {
        for key in ["j", "down", "pagedown", "space"] {
            let (app, seen) = scroll_through_help(w, h, key);
            for title in HELP_TITLES {
                assert!(seen.contains(title), "{w}×{h} {key}: {title} never shown");
            }
            assert!(
                seen.iter().any(|l| l.starts_with(HELP_LAST)),
                "{w}×{h} {key}: last line never shown: {seen:#?}"
            );
            let help = app.help.as_ref().unwrap();
            assert_eq!(
                help.scroll,
                help.lines.len() - app.screen.view_height(),
                "{w}×{h} {key}: stops at the last page"
            );
        }
    }
}

#[test]
fn help_g_shows_the_last_entry_and_k_g_come_back() {
    for (w, h) in [(80, 24), (40, 15)] {
        let mut app = app(w, h);
        press(&mut app, "?");
        let top = view_rows(&app, w, h);
        assert!(top[0].contains("table:"));
        press(&mut app, "G");
        let bottom = view_rows(&app, w, h);
        assert!(
            bottom.last().unwrap().contains(HELP_LAST),
            "{w}×{h}: {bottom:#?}"
        );
        press(&mut app, "j");
        assert_eq!(view_rows(&app, w, h), bottom, "j at the end stays");
        press(&mut app, "k");
        assert_eq!(view_rows(&app, w, h)[1..], bottom[..bottom.len() - 1]);
        press(&mut app, "pageup");
        press(&mut app, "g");
        assert_eq!(view_rows(&app, w, h), top);
        press(&mut app, "q");
        assert_eq!(app.mode, Mode::Table);
        assert!(app.help.is_none());
    }
}

#[test]
fn the_mouse_wheel_scrolls_help_within_its_content() {
    let (w, h) = (80, 24);
    let mut app = app(w, h);
    press(&mut app, "?");
    for _ in 0..500 {
        let action = app.intent(Input::ScrollDown).unwrap();
        app.update(action);
    }
    assert!(view_rows(&app, w, h).last().unwrap().contains(HELP_LAST));
    let action = app.intent(Input::ScrollUp).unwrap();
    app.update(action);
    assert!(!view_rows(&app, w, h).last().unwrap().contains(HELP_LAST));
}

#[test]
fn resizing_help_keeps_the_last_page_full() {
    let mut app = app(80, 15);
    press(&mut app, "?");
    press(&mut app, "G");
    app.update(Action::Resize(80, 30));
    let rows = view_rows(&app, 80, 30);
    assert!(rows.last().unwrap().contains(HELP_LAST), "{rows:#?}");
    let help = app.help.as_ref().unwrap();
    assert_eq!(help.scroll, help.lines.len() - app.screen.view_height());
    assert!(!rows[0].trim().is_empty(), "a full page: {rows:#?}");
}
