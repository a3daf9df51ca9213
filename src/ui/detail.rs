//! Detail view: the object's YAML as written, then a summary of its metadata.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};
use ratatui::Frame;

use super::Theme;
use crate::app::App;
use crate::graph::{explain_finalizer, Edge, EdgeKind};
use crate::model::{Labels, Object};

pub fn draw(app: &App, frame: &mut Frame, area: Rect, theme: &Theme) {
    let Some(d) = &app.detail else { return };
    let Some(obj) = app.data.inventory.objects.get(d.object as usize) else {
        return;
    };
    let mut lines = yaml_lines(d.source.as_deref(), theme);
    lines.push(Line::default());
    lines.extend(summary(app, d.object as usize, obj, theme));
    let scroll = d.scroll.min(lines.len().saturating_sub(1)) as u16;
    let block = Block::bordered().title(format!(" {} ", obj.id));
    frame.render_widget(Paragraph::new(lines).block(block).scroll((scroll, 0)), area);
}

/// The source text with mapping keys coloured.
fn yaml_lines<'a>(source: Option<&'a str>, theme: &Theme) -> Vec<Line<'a>> {
    let Some(text) = source else {
        return vec![Line::styled("reading…", theme.dim)];
    };
    text.lines().map(|l| yaml_line(l, theme)).collect()
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

fn summary(app: &App, index: usize, obj: &Object, theme: &Theme) -> Vec<Line<'static>> {
    let graph = &app.data.graph;
    let objects = &app.data.inventory.objects;
    let mut out = vec![Line::styled("── summary ──", theme.title)];
    map_section(&mut out, "Labels", &obj.labels, theme);
    map_section(&mut out, "Annotations", &obj.annotations, theme);
    out.push(Line::styled("Finalizers:", theme.title));
    if obj.finalizers.is_empty() {
        out.push(Line::styled("  <none>", theme.dim));
    }
    for f in &obj.finalizers {
        out.push(Line::raw(format!("  {f}")));
        if let Some(why) = explain_finalizer(f) {
            out.push(Line::styled(format!("    {why}"), theme.dim));
        }
    }
    if let Some(ts) = &obj.deletion_timestamp {
        out.push(Line::styled(
            format!("Terminating since {ts}"),
            theme.warning,
        ));
    }
    out.push(Line::styled("Owner references:", theme.title));
    if obj.owner_refs.is_empty() {
        out.push(Line::styled("  <none>", theme.dim));
    }
    for o in &obj.owner_refs {
        let controller = if o.controller == Some(true) {
            " (controller)"
        } else {
            ""
        };
        let uid = if o.uid.is_empty() { "<no uid>" } else { &o.uid };
        let resolved = graph.owners(index).iter().any(|e| {
            objects
                .get(e.from)
                .is_some_and(|owner| *owner.id.kind == *o.kind && *owner.id.name == *o.name)
        });
        let (mark, style) = if resolved {
            ("resolved", theme.dim)
        } else {
            ("not found in the input", theme.error)
        };
        out.push(Line::from(vec![
            Span::raw(format!("  {}/{} {}{controller} ", o.kind, o.name, uid)),
            Span::styled(mark, style),
        ]));
    }
    related(
        &mut out,
        "Selected by:",
        graph.selected_by(index),
        |e| e.from,
        app,
        theme,
    );
    related(
        &mut out,
        "Selects:",
        graph.selects(index),
        |e| e.to,
        app,
        theme,
    );
    out.push(Line::from(vec![
        Span::styled("Source: ", theme.title),
        Span::raw(obj.source.to_string()),
    ]));
    out
}

/// Most related objects listed before "… N more".
const MAX_RELATED: usize = 20;

/// Objects on the other end of selector edges, with the field that links them.
fn related(
    out: &mut Vec<Line<'static>>,
    title: &str,
    edges: &[Edge],
    other: impl Fn(&Edge) -> usize,
    app: &App,
    theme: &Theme,
) {
    out.push(Line::styled(title.to_string(), theme.title));
    if edges.is_empty() {
        out.push(Line::styled("  <none>", theme.dim));
    }
    for e in edges.iter().take(MAX_RELATED) {
        let Some(o) = app.data.inventory.objects.get(other(e)) else {
            continue;
        };
        let via = match e.kind {
            EdgeKind::Selector { via } => via,
            EdgeKind::Owner { .. } => "ownerReferences",
        };
        out.push(Line::from(vec![
            Span::raw(format!("  {}", o.id)),
            Span::styled(format!("  via {via}"), theme.dim),
        ]));
    }
    if edges.len() > MAX_RELATED {
        out.push(Line::styled(
            format!("  … {} more", edges.len() - MAX_RELATED),
            theme.dim,
        ));
    }
}

fn map_section(out: &mut Vec<Line<'static>>, title: &str, map: &Labels, theme: &Theme) {
    out.push(Line::styled(format!("{title}:"), theme.title));
    if map.is_empty() {
        out.push(Line::styled("  <none>", theme.dim));
    }
    for (k, v) in map {
        out.push(Line::from(vec![
            Span::styled(format!("  {k}"), theme.key),
            Span::raw(format!("={v}")),
        ]));
    }
}
