//! Drawing: pure functions from [`App`] state to a frame, one file per view. Nothing here
//! changes state; scroll positions are computed in `App::update`.

mod detail;
mod help;
mod picker;
mod problems;
mod selector_bar;
mod status;
mod table;
mod theme;
mod tree;

use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::Frame;

use crate::app::{App, Mode, Screen, TextLine, Tone};
pub use theme::Theme;

/// Draws the whole screen for the current state.
pub fn draw(app: &App, frame: &mut Frame) {
    let theme = Theme::new(app.options.no_color);
    let screen = Screen::with_bar(frame.area(), app.bar_rows(frame.area().width));
    if let Some(progress) = app.loading {
        // Until the first batch arrives there is nothing to show but the gauge; after it,
        // the table fills progressively and the header shows the progress.
        if app.data.inventory.objects.is_empty() {
            status::draw_loading(progress, frame, frame.area(), &theme);
            return;
        }
    }
    let main = screen.main();
    match (app.mode, app.under) {
        (Mode::Detail, _) | (Mode::Help | Mode::Picker | Mode::Command, Mode::Detail) => {
            detail::draw(app, frame, main, &theme)
        }
        (Mode::Problems, _) | (Mode::Help | Mode::Picker | Mode::Command, Mode::Problems) => {
            problems::draw(app, frame, main, &theme)
        }
        (Mode::Tree, _) | (Mode::Help | Mode::Picker | Mode::Command, Mode::Tree) => {
            tree::draw(app, frame, main, &theme)
        }
        _ => {
            table::draw_header(app, frame, screen.header, &theme);
            table::draw(app, frame, screen.table, &theme);
        }
    }
    selector_bar::draw(app, frame, screen.bar, &theme);
    status::draw(app, frame, screen.status, &theme);
    match app.mode {
        Mode::Picker => picker::draw(app, frame, main, &theme),
        Mode::Help => help::draw(app, frame, main, &theme),
        _ => {}
    }
}

/// A centred rectangle of at most `w`×`h` inside `area`.
fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}

/// Cuts `text` to at most `width` characters, marking the cut with `…`.
fn fit(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return format!("{text:width$}");
    }
    let mut s: String = text.chars().take(width.saturating_sub(1)).collect();
    s.push('…');
    s
}

/// A line of toned text, styled by the theme.
fn text_line<'a>(line: &'a TextLine, theme: &Theme) -> Line<'a> {
    match line.0.as_slice() {
        [(tone, text)] => Line::styled(text.as_str(), style(*tone, theme)),
        pieces => Line::from(
            pieces
                .iter()
                .map(|(tone, text)| Span::styled(text.as_str(), style(*tone, theme)))
                .collect::<Vec<_>>(),
        ),
    }
}

fn style(tone: Tone, theme: &Theme) -> Style {
    match tone {
        Tone::Plain => Style::new(),
        Tone::Title => theme.title,
        Tone::Key => theme.key,
        Tone::Dim => theme.dim,
        Tone::Warning => theme.warning,
        Tone::Error => theme.error,
    }
}
