//! Namespace / kind / label-column picker overlay.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};
use ratatui::Frame;

use super::{centered, Theme};
use crate::app::App;

pub fn draw(app: &App, frame: &mut Frame, area: Rect, theme: &Theme) {
    let Some(p) = &app.picker else { return };
    let width = p
        .items
        .iter()
        .map(|i| i.0.chars().count())
        .max()
        .unwrap_or(0)
        + 16;
    let rect = centered(area, width.max(30) as u16, p.items.len() as u16 + 2);
    let inner_h = rect.height.saturating_sub(2) as usize;
    let lines: Vec<Line> = p
        .items
        .iter()
        .enumerate()
        .skip(p.offset)
        .take(inner_h)
        .map(|(i, (value, count, checked))| {
            let mark = if *checked { "[x] " } else { "[ ] " };
            let line = Line::from(vec![
                Span::raw(mark),
                Span::raw(value.clone()),
                Span::styled(format!("  {count}"), theme.dim),
            ]);
            if i == p.selected {
                line.patch_style(theme.selected)
            } else {
                line
            }
        })
        .collect();
    frame.render_widget(Clear, rect);
    let block = Block::bordered().title(format!(" {} ", p.kind.title()));
    frame.render_widget(Paragraph::new(lines).block(block), rect);
}
