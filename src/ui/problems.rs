//! The problems view: every load error, warning and note, with its place.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};
use ratatui::Frame;

use super::Theme;
use crate::app::App;
use crate::diagnostic::Severity;

pub fn draw(app: &App, frame: &mut Frame, area: Rect, theme: &Theme) {
    let problems = &app.problem_rows;
    let block = Block::bordered().title(format!(" Problems ({}) ", problems.len()));
    let inner_h = area.height.saturating_sub(2) as usize;
    let mut lines: Vec<Line> = problems
        .iter()
        .enumerate()
        .skip(app.problems.offset)
        .take(inner_h)
        .map(|(i, p)| {
            let sev_style = match p.severity {
                Severity::Error => theme.error,
                Severity::Warning => theme.warning,
                Severity::Note => theme.dim,
            };
            let line = Line::from(vec![
                Span::styled(format!("{:<7} ", p.severity), sev_style),
                Span::styled(
                    format!("{}:{}:{} ", p.path.display(), p.line, p.column),
                    theme.key,
                ),
                Span::styled(format!("[{}] ", p.code), theme.dim),
                Span::raw(&*p.message),
            ]);
            if i == app.problems.selected {
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
    }
    frame.render_widget(Paragraph::new(lines).block(block), area);
}
