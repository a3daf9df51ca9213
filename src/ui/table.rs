//! The object table: `N of M objects` header, column titles, and only the visible rows.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::{fit, Theme};
use crate::app::{titles, App, Column, Row};
use crate::query::fuzzy_indices;

/// Narrowest a column is cut to when the row does not fit.
const MIN_WIDTH: usize = 8;

/// NAME is cut to no less than this (or its widest name): the other columns scroll instead.
const NAME_WIDTH: usize = 32;

/// SOURCE is cut to no less than this (its end: file name and line).
const SOURCE_WIDTH: usize = 12;

/// Marked rows start with this (the marker column, shown while something is marked).
const MARK: &str = "● ";

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
    if let Some(s) = &app.table.sort {
        // Also here: the sorted column may be scrolled out of view or past the edge.
        let title = titles(&app.table.columns).into_iter().nth(s.column);
        let arrow = if s.descending { '↓' } else { '↑' };
        filter("sort", &format!("{}{arrow}", title.unwrap_or_default()));
    }
    if !app.table.marked.is_empty() {
        filter("marked", &app.table.marked.len().to_string());
    }
    if !app.bar.text().trim().is_empty() {
        filter("selector", app.bar.text().trim());
    }
    if let Some(p) = app.loading {
        spans.push(Span::styled(
            format!("  loading {} of {} files…", p.files_done, p.files_total),
            theme.key,
        ));
    } else if app.waiting_for_index() {
        spans.push(Span::styled("  indexing labels…", theme.key));
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
            format!("  changed {at}: {}", c.counts()),
            theme.dim,
        ));
    }
    let errors = app.data.inventory.error_count();
    if errors > 0 {
        spans.push(Span::styled(
            format!("  {} (!)", crate::print::count(errors, "load error")),
            theme.error,
        ));
    }
    // Last: on a narrow terminal the errors and filters matter more.
    let view = app.render.describe(&app.data);
    if !view.is_empty() {
        spans.push(Span::styled(format!("  {view}"), theme.dim));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// Column titles and the visible window of rows: the columns up to NAME, then the ones
/// scrolled to sideways.
pub fn draw(app: &App, frame: &mut Frame, area: Rect, theme: &Theme) {
    let t = &app.table;
    let objects = &app.data.inventory.objects;
    let shown = shown_columns(app);
    let visible: Vec<(usize, &Row)> = t.visible().collect();
    let cells: Vec<Vec<String>> = visible
        .iter()
        .map(|(_, r)| match r {
            Row::Object(i) => objects
                .get(*i as usize)
                .map(|o| {
                    shown
                        .iter()
                        .map(|c| cell(app, &t.columns[*c], *i, o))
                        .collect()
                })
                .unwrap_or_default(),
            Row::Group(_) => Vec::new(),
        })
        .collect();
    let all_titles = titles(&t.columns);
    let titles: Vec<String> = shown.iter().map(|c| all_titles[*c].clone()).collect();
    let marks = !t.marked.is_empty();
    let gutter = if marks { MARK.chars().count() } else { 0 };
    let room = (area.width as usize).saturating_sub(gutter);
    let sorted = t
        .sort
        .as_ref()
        .and_then(|s| shown.iter().position(|c| *c == s.column));
    let natural = widths(&titles, &cells, sorted);
    // The first column scrolled to (none in the natural view) and the sorted one always stay.
    let kept = {
        let columns: Vec<&Column> = shown.iter().map(|c| &t.columns[*c]).collect();
        let first = shown
            .iter()
            .position(|c| *c >= t.frozen())
            .filter(|_| t.hscroll > 0);
        keep(&natural, &columns, &[first, sorted], room)
    };
    let shown = retain(&shown, &kept);
    let titles = retain(&titles, &kept);
    let natural = retain(&natural, &kept);
    let cells: Vec<Vec<String>> = cells.iter().map(|row| retain(row, &kept)).collect();
    let columns: Vec<&Column> = shown.iter().map(|c| &t.columns[*c]).collect();
    let widths = shrink(natural, &columns, room);
    let mut lines = vec![title_line(app, &shown, &titles, &widths, gutter, theme)];
    for ((row_no, row), cells) in visible.iter().zip(&cells) {
        let mut line = match row {
            Row::Group(_) => {
                let g = t.group(row);
                let arrow = if g.is_some_and(|g| g.collapsed) {
                    "▶"
                } else {
                    "▼"
                };
                let (key, count) = g.map_or(("", 0), |g| (g.key.as_str(), g.count));
                Line::styled(format!("{arrow} {key}  ({count})"), theme.group)
            }
            Row::Object(i) => {
                let marked = marks
                    && objects
                        .get(*i as usize)
                        .is_some_and(|o| t.marked.contains(&o.id));
                let mut line = object_line(app, &columns, cells, &widths, theme);
                if marks {
                    let mark = if marked { MARK } else { "  " };
                    line.spans.insert(0, Span::styled(mark, theme.key));
                }
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
    if app.waiting_for_index() {
        lines.push(Line::styled(
            "  matching once the label index is built…",
            theme.dim,
        ));
    } else if t.rows.is_empty() {
        lines.push(Line::styled("  no objects match", theme.dim));
    }
    frame.render_widget(Paragraph::new(lines), area);
}

/// Indices of the columns drawn: those up to NAME, then the rest from the sideways scroll
/// (see `TableState::hscroll` in the app: 0 and 1 both start at the first one).
fn shown_columns(app: &App) -> Vec<usize> {
    let t = &app.table;
    let frozen = t.frozen();
    let skipped = t
        .hscroll
        .saturating_sub(1)
        .min(t.scrollable().saturating_sub(1));
    (0..frozen)
        .chain((frozen + skipped)..t.columns.len())
        .collect()
}

/// One cell's text: STATUS says when the object's file fails to load, SOURCE is relative
/// to the command-line path.
fn cell(app: &App, column: &Column, i: u32, o: &crate::model::Object) -> String {
    match column {
        Column::Status if app.is_stale(i) => {
            let s = column.cell(o, app.now);
            if s.is_empty() {
                "stale (file fails to load)".to_string()
            } else {
                format!("stale · {s}")
            }
        }
        Column::Source => app.source_text(o),
        _ => column.cell(o, app.now),
    }
}

/// Per-column widths from the titles and the visible cells only (the sorted column's title
/// with its arrow).
fn widths(titles: &[String], cells: &[Vec<String>], sorted: Option<usize>) -> Vec<usize> {
    titles
        .iter()
        .enumerate()
        .map(|(i, title)| {
            let widest = cells
                .iter()
                .filter_map(|r| r.get(i))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0);
            let arrow = usize::from(sorted == Some(i));
            widest.max(title.chars().count() + arrow)
        })
        .collect()
}

/// Which of the `columns` (natural `widths`) to draw in `width`: all when they fit at
/// their narrowest ([`narrowest`]), else without the least useful ones until they do —
/// LABELS, then the label columns, then the kind's extra columns (right to left), then
/// KIND; never NAME, AGE, STATUS, SOURCE nor the `protected` positions. What is left out
/// shows when scrolled to sideways (the first column scrolled to always stays).
fn keep(
    widths: &[usize],
    columns: &[&Column],
    protected: &[Option<usize>],
    width: usize,
) -> Vec<bool> {
    let mut kept = vec![true; columns.len()];
    let total = |kept: &[bool]| -> usize {
        (0..columns.len())
            .filter(|i| kept[*i])
            .map(|i| narrowest(columns[i], widths[i]) + 1)
            .sum()
    };
    let rank = |c: &Column| match c {
        Column::Labels => Some(0),
        Column::Label(_) => Some(1),
        Column::Printer { .. } => Some(2),
        Column::Kind => Some(3),
        _ => None,
    };
    while total(&kept) > width {
        // The least useful column left, rightmost first among equals.
        let drop = (0..columns.len())
            .filter(|i| kept[*i] && !protected.contains(&Some(*i)))
            .filter_map(|i| Some((rank(columns[i])?, std::cmp::Reverse(i))))
            .min();
        let Some((_, std::cmp::Reverse(i))) = drop else {
            break;
        };
        kept[i] = false;
    }
    kept
}

/// The `items` whose place in `kept` is true.
fn retain<T: Clone>(items: &[T], kept: &[bool]) -> Vec<T> {
    items
        .iter()
        .zip(kept)
        .filter(|(_, k)| **k)
        .map(|(item, _)| item.clone())
        .collect()
}

/// How narrow [`shrink`] may cut a column of natural width `natural` (0: the floor alone).
fn narrowest(column: &Column, natural: usize) -> usize {
    let floor = match column {
        Column::Name => NAME_WIDTH,
        // A path cut to its last characters still names the file and line.
        Column::Source => SOURCE_WIDTH,
        // `<unknown>` (no creationTimestamp, as in most manifests) whole.
        Column::Age => "<unknown>".len(),
        _ => MIN_WIDTH,
    };
    match natural {
        0 => floor,
        n => n.min(floor),
    }
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

/// Narrows the widest columns until the row fits `width` (one space between columns):
/// first every column but NAME down to a comfortable width, then down to the minimum, then
/// NAME down to [`NAME_WIDTH`]; what still does not fit is reached by scrolling sideways.
fn shrink(mut widths: Vec<usize>, columns: &[&Column], width: usize) -> Vec<usize> {
    const COMFORT: usize = 16;
    let total = |w: &[usize]| w.iter().map(|w| w + 1).sum::<usize>();
    let floors: Vec<usize> = columns.iter().map(|c| narrowest(c, 0)).collect();
    let passes = [(false, Some(COMFORT)), (false, None), (true, None)];
    for (name, comfort) in passes {
        while total(&widths) > width {
            let widest = (0..widths.len())
                .filter(|i| {
                    let floor = comfort.unwrap_or(floors[*i]).max(floors[*i]);
                    (*columns[*i] == Column::Name) == name && widths[*i] > floor
                })
                .max_by_key(|i| widths[*i]);
            let Some(i) = widest else { break };
            widths[i] -= 1;
        }
    }
    widths
}

/// Column titles; the sort column's arrow always shows (its title is cut instead).
fn title_line(
    app: &App,
    shown: &[usize],
    titles: &[String],
    widths: &[usize],
    gutter: usize,
    theme: &Theme,
) -> Line<'static> {
    let sort = app.table.sort.as_ref();
    let mut spans = vec![Span::raw(" ".repeat(gutter))];
    for ((col, title), w) in shown.iter().zip(titles).zip(widths) {
        let text = match sort.filter(|s| s.column == *col) {
            Some(s) => {
                let arrow = if s.descending { '↓' } else { '↑' };
                let mut t = fit(title, w.saturating_sub(1)).trim_end().to_string();
                t.push(arrow);
                format!("{t:w$}")
            }
            None => fit(title, *w),
        };
        spans.push(Span::styled(format!("{text} "), theme.title));
    }
    // Columns are hidden to the left (after NAME): the first one shown starts with `◀`.
    let first_scrolled = shown.iter().position(|c| *c >= app.table.frozen());
    if let Some(span) = first_scrolled
        .filter(|_| app.table.hscroll > 1)
        .and_then(|pos| spans.get_mut(pos + 1))
    {
        let rest: String = span.content.chars().skip(1).collect();
        span.content = format!("◀{rest}").into();
    }
    Line::from(spans)
}

fn object_line(
    app: &App,
    columns: &[&Column],
    cells: &[String],
    widths: &[usize],
    theme: &Theme,
) -> Line<'static> {
    let fuzzy = app.query.fuzzy.as_deref().unwrap_or("");
    let mut spans = Vec::new();
    for ((col, text), w) in columns.iter().zip(cells).zip(widths) {
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
