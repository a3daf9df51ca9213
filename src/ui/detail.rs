//! Detail view: the object's text (YAML tab) or its describe summary, wrapped or cut, with
//! search matches highlighted. Only the rows in view are built; the scroll is kept valid by
//! `App::update`.

use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};
use ratatui::Frame;

use super::{style, Theme};
use crate::app::{App, DetailState, DetailTab, TextLine, Tone};

pub fn draw(app: &App, frame: &mut Frame, area: Rect, theme: &Theme) {
    let Some(d) = &app.detail else { return };
    let Some(obj) = app.data.inventory.objects.get(d.object as usize) else {
        return;
    };
    let height = area.height.saturating_sub(2) as usize;
    let width = area.width.saturating_sub(2) as usize;
    let pieces: Vec<Vec<(Style, String)>> = match d.tab {
        DetailTab::Yaml if d.source.is_none() => vec![vec![(theme.dim, "reading…".into())]],
        DetailTab::Yaml => d.text.iter().map(|l| yaml_line(l, theme)).collect(),
        DetailTab::Describe => d.summary.iter().map(|l| toned(l, theme)).collect(),
    };
    let rows: Vec<Line> = pieces
        .into_iter()
        .enumerate()
        .flat_map(|(i, line)| {
            let line = highlight(line, &d.search, theme, current_match(d) == Some(i));
            if d.wrap {
                wrap(line, width)
            } else {
                vec![line]
            }
        })
        .skip(d.scroll)
        .take(height)
        .map(|pieces| {
            Line::from(
                pieces
                    .into_iter()
                    .map(|(s, t)| Span::styled(t, s))
                    .collect::<Vec<_>>(),
            )
        })
        .collect();
    let block = Block::bordered()
        .title(format!(" {} ", obj.id))
        .title_bottom(footer(d));
    frame.render_widget(Paragraph::new(rows).block(block), area);
}

/// The line of the match last jumped to.
fn current_match(d: &DetailState) -> Option<usize> {
    d.matches.get(d.current?).copied()
}

/// Tab, search and toggles, under the text.
fn footer(d: &DetailState) -> String {
    let tab = match d.tab {
        DetailTab::Yaml => "[y] yaml  d describe",
        DetailTab::Describe => "y yaml  [d] describe",
    };
    let mut parts = vec![tab.to_string()];
    if d.searching || !d.search.is_empty() {
        let caret = if d.searching { "_" } else { "" };
        let at = d.current.map_or(0, |c| c + 1);
        parts.push(format!(
            "/{}{caret} {at}/{}",
            crate::gocompat::escape::escape_line(&d.search),
            d.matches.len()
        ));
    }
    if d.wrap {
        parts.push("wrap".into());
    }
    if d.decode {
        parts.push("decoded".into());
    }
    format!(" {} ", parts.join("  "))
}

/// A toned summary line as styled pieces.
fn toned(line: &TextLine, theme: &Theme) -> Vec<(Style, String)> {
    line.0
        .iter()
        .map(|(tone, text)| (style(*tone, theme), text.clone()))
        .collect()
}

/// One YAML line with its mapping key (after indentation and `- `) coloured.
fn yaml_line(line: &str, theme: &Theme) -> Vec<(Style, String)> {
    let body = line.trim_start().trim_start_matches("- ");
    let indent = line.len() - body.len();
    match body.split_once(':') {
        Some((k, _)) if !k.is_empty() && !k.starts_with('#') && !k.contains(' ') => vec![
            (Style::new(), line[..indent].to_string()),
            (theme.key, k.to_string()),
            (Style::new(), line[indent + k.len()..].to_string()),
        ],
        _ => vec![(style(Tone::Plain, theme), line.to_string())],
    }
}

/// The pieces with every case-insensitive occurrence of `needle` styled as a match (the
/// current match's line reversed as well).
fn highlight(
    pieces: Vec<(Style, String)>,
    needle: &str,
    theme: &Theme,
    current: bool,
) -> Vec<(Style, String)> {
    let needle: Vec<char> = needle.to_lowercase().chars().collect();
    if needle.is_empty() {
        return pieces;
    }
    let chars: Vec<(Style, char)> = pieces
        .iter()
        .flat_map(|(s, t)| t.chars().map(move |c| (*s, c)))
        .collect();
    let lower: Vec<char> = chars
        .iter()
        .map(|(_, c)| c.to_lowercase().next().unwrap_or(*c))
        .collect();
    let mut hit = vec![false; chars.len()];
    let mut i = 0;
    while i + needle.len() <= lower.len() {
        if lower[i..i + needle.len()] == needle[..] {
            hit[i..i + needle.len()].fill(true);
            i += needle.len();
        } else {
            i += 1;
        }
    }
    let matched = if current {
        theme.matched.patch(theme.selected)
    } else {
        theme.matched
    };
    let styled = chars
        .into_iter()
        .zip(hit)
        .map(|((s, c), h)| (if h { s.patch(matched) } else { s }, c));
    regroup(styled)
}

/// Joins consecutive characters of one style into pieces.
fn regroup(chars: impl Iterator<Item = (Style, char)>) -> Vec<(Style, String)> {
    let mut out: Vec<(Style, String)> = Vec::new();
    for (s, c) in chars {
        match out.last_mut() {
            Some((last, text)) if *last == s => text.push(c),
            _ => out.push((s, c.to_string())),
        }
    }
    out
}

/// The pieces cut into rows of `width` characters (as `text::rows_of` counts them).
fn wrap(pieces: Vec<(Style, String)>, width: usize) -> Vec<Vec<(Style, String)>> {
    let width = width.max(1);
    let chars: Vec<(Style, char)> = pieces
        .iter()
        .flat_map(|(s, t)| t.chars().map(move |c| (*s, c)))
        .collect();
    if chars.is_empty() {
        return vec![Vec::new()];
    }
    chars
        .chunks(width)
        .map(|row| regroup(row.iter().copied()))
        .collect()
}
