//! The object table: `N of M objects` header, column titles, and only the visible rows.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::{fit, Theme};
use crate::app::{App, Column, Row};
use crate::query::fuzzy_indices;

/// Widest a column gets before its cells are cut.
const MAX_WIDTH: usize = 48;

/// `N of M objects`, the breadcrumb (kind › namespace) and the other active filters.
pub fn draw_header(app: &App, frame: &mut Frame, area: Rect, theme: &Theme) {
    let (n, m) = app.counts();
    let mut spans = vec![Span::styled(format!("{n} of {m} objects"), theme.title)];
    spans.extend(super::status::breadcrumb(app, theme));
    let mut filter = |label: &str, value: &str| {
        spans.push(Span::styled(format!("  {label}: "), theme.dim));
        spans.push(Span::raw(value.to_string()));
    };
    // The kind and namespace are in the breadcrumb.
    if !app.bar.text().trim().is_empty() {
        filter("selector", app.bar.text().trim());
    }
    if let Some(p) = app.loading {
        spans.push(Span::styled(
            format!("  loading {} of {} files…", p.files_done, p.files_total),
            theme.key,
        ));
    } else if app.data.linking {
        spans.push(Span::styled("  linking owners and selectors…", theme.key));
    }
    if app.options.stdin_once {
        spans.push(Span::styled("  stdin: read once, not watched", theme.key));
    }
    if let Some(c) = &app.last_change {
        let at = chrono::DateTime::from_timestamp(c.at, 0)
            .map(|t| {
                t.with_timezone(&chrono::Local)
                    .format("%H:%M:%S")
                    .to_string()
            })
            .unwrap_or_default();
        spans.push(Span::styled(
            format!(
                "  changed {at}: {} updated, {} deleted",
                c.changed, c.deleted
            ),
            theme.dim,
        ));
    }
    let errors = app.data.inventory.error_count();
    if errors > 0 {
        spans.push(Span::styled(
            format!("  {errors} load errors (!)"),
            theme.error,
        ));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// Column titles and the visible window of rows.
pub fn draw(app: &App, frame: &mut Frame, area: Rect, theme: &Theme) {
    let t = &app.table;
    let objects = &app.data.inventory.objects;
    let visible: Vec<(usize, &Row)> = t.visible().collect();
    let cells: Vec<Vec<String>> = visible
        .iter()
        .map(|(_, r)| match r {
            Row::Object(i) => objects
                .get(*i as usize)
                .map(|o| {
                    t.columns
                        .iter()
                        .map(|c| match c {
                            Column::Status if app.is_stale(*i) => {
                                let s = c.cell(o, app.now);
                                if s.is_empty() {
                                    "stale (file fails to load)".to_string()
                                } else {
                                    format!("stale · {s}")
                                }
                            }
                            _ => c.cell(o, app.now),
                        })
                        .collect()
                })
                .unwrap_or_default(),
            Row::Group { .. } => Vec::new(),
        })
        .collect();
    let widths = shrink(widths(&t.columns, &cells), area.width as usize);
    let mut lines = vec![title_line(app, &widths, theme)];
    for ((row_no, row), cells) in visible.iter().zip(&cells) {
        let mut line = match row {
            Row::Group {
                key,
                count,
                collapsed,
            } => {
                let arrow = if *collapsed { "▶" } else { "▼" };
                Line::styled(format!("{arrow} {key}  ({count})"), theme.group)
            }
            Row::Object(i) => {
                let line = object_line(app, cells, &widths, theme);
                if app.flashing(*i) {
                    line.patch_style(theme.changed)
                } else {
                    line
                }
            }
        };
        if *row_no == t.selected {
            line = line.patch_style(theme.selected);
        }
        lines.push(line);
    }
    if t.rows.is_empty() {
        lines.push(Line::styled("  no objects match", theme.dim));
    }
    frame.render_widget(Paragraph::new(lines), area);
}

/// Per-column widths from the titles and the visible cells only.
fn widths(columns: &[Column], cells: &[Vec<String>]) -> Vec<usize> {
    columns
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let widest = cells
                .iter()
                .filter_map(|r| r.get(i))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0);
            widest.max(c.title().len()).min(MAX_WIDTH)
        })
        .collect()
}

/// Cuts `text` to at most `width` characters from the left, marking the cut with `…`.
fn fit_tail(text: &str, width: usize) -> String {
    let n = text.chars().count();
    if n <= width {
        return format!("{text:width$}");
    }
    let tail: String = text.chars().skip(n + 1 - width.max(1)).collect();
    format!("…{tail}")
}

/// Narrows the widest columns until the row fits `width` (one space between columns).
fn shrink(mut widths: Vec<usize>, width: usize) -> Vec<usize> {
    const MIN: usize = 8;
    while widths.iter().map(|w| w + 1).sum::<usize>() > width {
        let Some((i, w)) = widths.iter().enumerate().max_by_key(|(_, w)| **w) else {
            break;
        };
        if *w <= MIN {
            break;
        }
        widths[i] -= 1;
    }
    widths
}

fn title_line(app: &App, widths: &[usize], theme: &Theme) -> Line<'static> {
    let sort = app.table.sort.as_ref();
    let spans: Vec<Span> = app
        .table
        .columns
        .iter()
        .zip(widths)
        .enumerate()
        .map(|(i, (c, w))| {
            let mut title = c.title();
            if let Some(s) = sort.filter(|s| s.column == i) {
                title.push(if s.descending { '↓' } else { '↑' });
            }
            Span::styled(format!("{} ", fit(&title, *w)), theme.title)
        })
        .collect();
    Line::from(spans)
}

fn object_line(app: &App, cells: &[String], widths: &[usize], theme: &Theme) -> Line<'static> {
    let fuzzy = app.query.fuzzy.as_deref().unwrap_or("");
    let mut spans = Vec::new();
    for ((col, text), w) in app.table.columns.iter().zip(cells).zip(widths) {
        // A path keeps its end (file name and line), other cells their start.
        let text = match col {
            Column::Source => fit_tail(text, *w),
            _ => fit(text, *w),
        };
        match (col, fuzzy_indices(&text, fuzzy)) {
            (Column::Name, Some(hits)) => spans.extend(highlight(&text, &hits, theme)),
            (Column::Status, _) if text.contains("Terminating") => {
                spans.push(Span::styled(text, theme.warning))
            }
            (Column::Status, _) if text.starts_with("stale") => {
                spans.push(Span::styled(text, theme.error))
            }
            _ => spans.push(Span::raw(text)),
        }
        spans.push(Span::raw(" "));
    }
    Line::from(spans)
}

/// The name with fuzzy-matched characters styled.
fn highlight(text: &str, hits: &[usize], theme: &Theme) -> Vec<Span<'static>> {
    text.chars()
        .enumerate()
        .map(|(i, c)| {
            let style = if hits.contains(&i) {
                theme.matched
            } else {
                ratatui::style::Style::new()
            };
            Span::styled(c.to_string(), style)
        })
        .collect()
}
