//! Namespace / kind / label-column picker overlay: the items passing the typed filter,
//! with counts under the other active filters.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};
use ratatui::Frame;

use super::{centered, Theme};
use crate::app::App;
use crate::gocompat::escape::escape_line;

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
        .visible()
        .skip(p.offset)
        .take(inner_h)
        .map(|(row, (value, count, checked))| {
            let mark = if *checked { "[x] " } else { "[ ] " };
            let count_style = if *count == 0 { theme.dim } else { theme.key };
            let line = Line::from(vec![
                Span::raw(mark),
                Span::raw(escape_line(value).into_owned()),
                Span::styled(format!("  {count}"), count_style),
            ]);
            if row == p.selected {
                line.patch_style(theme.selected)
            } else {
                line
            }
        })
        .collect();
    frame.render_widget(Clear, rect);
    let filter = if p.typing || !p.filter.is_empty() {
        let caret = if p.typing { "_" } else { "" };
        format!(" /{}{caret} ", escape_line(&p.filter))
    } else {
        " / filters ".to_string()
    };
    let block = Block::bordered()
        .title(format!(" {} ", p.kind.title()))
        .title_bottom(filter);
    frame.render_widget(Paragraph::new(lines).block(block), rect);
}
