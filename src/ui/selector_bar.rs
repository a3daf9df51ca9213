//! The selector bar: the text, then a caret under a parse error, Tab candidates, or hints.

use ratatui::layout::{Position, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::Theme;
use crate::app::{App, Mode};

const PROMPT: &str = "/ ";

/// Draws the bar (two rows) and places the cursor when it has focus.
pub fn draw(app: &App, frame: &mut Frame, area: Rect, theme: &Theme) {
    let focused = app.mode == Mode::Bar;
    let bar = &app.bar;
    let prompt_style = if focused { theme.title } else { theme.dim };
    let text_line = Line::from(vec![
        Span::styled(PROMPT, prompt_style),
        Span::raw(bar.text.clone()),
    ]);
    let second = if let Some(err) = &bar.error {
        let col = PROMPT.len() + display_width(&bar.text, err.offset);
        Line::from(vec![
            Span::raw(" ".repeat(col)),
            Span::styled(format!("^ {}", err.message), theme.error),
        ])
    } else if let Some(c) = bar.completion.as_ref().filter(|_| focused) {
        let mut spans = vec![Span::raw(" ".repeat(PROMPT.len()))];
        for (i, (item, n)) in c.items.iter().enumerate() {
            let style = if c.selected == Some(i) {
                theme.selected
            } else {
                theme.key
            };
            spans.push(Span::styled(item.clone(), style));
            spans.push(Span::styled(format!("({n})  "), theme.dim));
        }
        Line::from(spans)
    } else if focused {
        Line::styled(
            "  k=v  k!=v  k in (a,b)  !k  metadata.name=x  ~fuzzy  | by KEY   Tab complete  Enter done  Esc clear",
            theme.dim,
        )
    } else {
        Line::default()
    };
    frame.render_widget(Paragraph::new(vec![text_line, second]), area);
    if focused {
        let x = area.x + (PROMPT.len() + bar.text.chars().count()) as u16;
        frame.set_cursor_position(Position::new(x.min(area.right().saturating_sub(1)), area.y));
    }
}

/// Columns taken by `text[..offset]` (offset clamped to a char boundary).
fn display_width(text: &str, offset: usize) -> usize {
    text.char_indices().take_while(|(i, _)| *i < offset).count()
}
