//! Help overlay, generated from the keymap, plus the selector-bar grammar.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};
use ratatui::Frame;

use super::{centered, Theme};
use crate::app::App;

/// The selector-bar grammar, as documented in `crate::query`.
const GRAMMAR: &[&str] = &[
    "Selector bar (filters on every keystroke):",
    "  app=web  app==web  app!=web  app in (a,b)  app notin (a,b)  app  !app  n>3  n<3",
    "  metadata.name=x  metadata.namespace!=y  .spec.nodeName=n   field terms (=, ==, !=)",
    "  ~text       fuzzy match on the name",
    "  | by KEY    group by a label key, or by namespace, kind, owner",
    "  terms are separated by commas; an invalid text keeps the last result",
];

pub fn draw(app: &App, frame: &mut Frame, area: Rect, theme: &Theme) {
    let mut lines: Vec<Line> = Vec::new();
    for mode in [
        "table", "bar", "tree", "detail", "problems", "picker", "global",
    ] {
        lines.push(Line::styled(format!("{mode}:"), theme.title));
        for (keys, desc) in app.keymap.bindings(mode) {
            lines.push(Line::from(vec![
                Span::styled(format!("  {keys:<22}"), theme.key),
                Span::raw(desc),
            ]));
        }
    }
    lines.push(Line::default());
    lines.extend(GRAMMAR.iter().map(|g| Line::raw(*g)));
    let rect = centered(area, 96, area.height);
    frame.render_widget(Clear, rect);
    let block = Block::bordered().title(" Help (Esc closes) ");
    let scroll = app.help_scroll.min(lines.len().saturating_sub(1)) as u16;
    frame.render_widget(Paragraph::new(lines).block(block).scroll((scroll, 0)), rect);
}
