//! Detail view: the object's YAML as written, then a summary of its metadata. Only the
//! lines in view are built; the scroll is kept valid by `App::update`.

use std::iter;

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};
use ratatui::Frame;

use super::{text_line, Theme};
use crate::app::App;

pub fn draw(app: &App, frame: &mut Frame, area: Rect, theme: &Theme) {
    let Some(d) = &app.detail else { return };
    let Some(obj) = app.data.inventory.objects.get(d.object as usize) else {
        return;
    };
    let height = area.height.saturating_sub(2) as usize;
    let lines: Vec<Line> = yaml_lines(d.source.as_deref(), theme)
        .chain(iter::once(Line::default()))
        .chain(d.summary.iter().map(|l| text_line(l, theme)))
        .skip(d.scroll)
        .take(height)
        .collect();
    let block = Block::bordered().title(format!(" {} ", obj.id));
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

/// The source text with mapping keys coloured.
fn yaml_lines<'a>(
    source: Option<&'a str>,
    theme: &'a Theme,
) -> Box<dyn Iterator<Item = Line<'a>> + 'a> {
    match source {
        Some(text) => Box::new(text.lines().map(|l| yaml_line(l, theme))),
        None => Box::new(iter::once(Line::styled("reading…", theme.dim))),
    }
}

/// One YAML line with its mapping key (after indentation and `- `) coloured.
fn yaml_line<'a>(line: &'a str, theme: &Theme) -> Line<'a> {
    let body = line.trim_start().trim_start_matches("- ");
    let indent = line.len() - body.len();
    match body.split_once(':') {
        Some((k, _)) if !k.is_empty() && !k.starts_with('#') && !k.contains(' ') => {
            Line::from(vec![
                Span::raw(&line[..indent]),
                Span::styled(k, theme.key),
                Span::raw(&line[indent + k.len()..]),
            ])
        }
        _ => Line::raw(line),
    }
}
