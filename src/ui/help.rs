//! Help overlay: the lines `App` built from the keymap, from its scroll position.

use ratatui::layout::Rect;
use ratatui::widgets::{Block, Clear, Paragraph};
use ratatui::Frame;

use super::{centered, text_line, Theme};
use crate::app::App;

pub fn draw(app: &App, frame: &mut Frame, area: Rect, theme: &Theme) {
    let Some(help) = &app.help else { return };
    let rect = centered(area, 96, area.height);
    let height = rect.height.saturating_sub(2) as usize;
    let lines: Vec<_> = help
        .lines
        .iter()
        .skip(help.scroll)
        .take(height)
        .map(|l| text_line(l, theme))
        .collect();
    frame.render_widget(Clear, rect);
    let block = Block::bordered().title(" Help (Esc closes) ");
    frame.render_widget(Paragraph::new(lines).block(block), rect);
}
