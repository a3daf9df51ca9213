//! The problems view: every load error, warning and note (errors first), with its place
//! and the object it is about, filtered by severity and code.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};
use ratatui::Frame;

use super::Theme;
use crate::app::App;
use crate::diagnostic::{Diagnostic, Severity};
use crate::gocompat::escape::escape_line;

pub fn draw(app: &App, frame: &mut Frame, area: Rect, theme: &Theme) {
    let problems = &app.problem_rows;
    let shown = &app.problem_filter.shown;
    let title = match app.problem_filter.describe() {
        Some(f) => format!(" Problems ({} of {}: {f}) ", shown.len(), problems.len()),
        None => format!(" Problems ({}) ", problems.len()),
    };
    let block = Block::bordered()
        .title(title)
        .title_bottom(" v severity  c code  enter object  e edit ");
    let inner_h = area.height.saturating_sub(2) as usize;
    let mut lines: Vec<Line> = shown
        .iter()
        .enumerate()
        .skip(app.problems.offset)
        .take(inner_h)
        .filter_map(|(row, i)| Some((row, *i, app.problem(*i)?)))
        .map(|(row, i, p)| {
            let object = problems.name(i).map(str::to_string);
            let line = problem_line(app, p, object, theme);
            if row == app.problems.selected {
                line.patch_style(theme.selected)
            } else {
                line
            }
        })
        .collect();
    if problems.is_empty() {
        lines.push(Line::styled(
            "no problems: every file loaded cleanly",
            theme.dim,
        ));
    } else if shown.is_empty() {
        lines.push(Line::styled("no problems pass the filter", theme.dim));
    }
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

/// Severity, place, code, the object it is about (`-` for none), message.
fn problem_line<'a>(
    app: &App,
    p: &'a Diagnostic,
    object: Option<String>,
    theme: &Theme,
) -> Line<'a> {
    let sev_style = match p.severity {
        Severity::Error => theme.error,
        Severity::Warning => theme.warning,
        Severity::Note => theme.dim,
    };
    // Named as `check` names it (a duplicate has no object index, only its place).
    let object = object.unwrap_or_else(|| "-".to_string());
    Line::from(vec![
        Span::styled(format!("{:<7} ", p.severity), sev_style),
        Span::styled(
            format!("{}{} ", app.relative_path(&p.path), p.place()),
            theme.key,
        ),
        Span::styled(format!("[{}] ", p.code), theme.dim),
        Span::raw(format!("{} ", escape_line(&object))),
        Span::raw(&*p.message),
    ])
}
