//! Owner tree view: box-drawn owner → dependents (and selector) edges, with lifecycle and
//! broken owner references marked.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};
use ratatui::Frame;

use super::Theme;
use crate::app::App;
use crate::graph::EdgeKind;

pub fn draw(app: &App, frame: &mut Frame, area: Rect, theme: &Theme) {
    let Some(t) = &app.tree else { return };
    let objects = &app.data.inventory.objects;
    let height = area.height.saturating_sub(2) as usize;
    let mut lines = Vec::new();
    for (row, node_ix) in t.tree.window(t.offset, height).into_iter().enumerate() {
        let Some(node) = t.tree.node(node_ix) else {
            continue;
        };
        let Some(obj) = objects.get(node.obj) else {
            continue;
        };
        let fold = match (node.has_children(node_ix), t.tree.is_collapsed(node_ix)) {
            (true, true) => "▶ ",
            (true, false) => "▼ ",
            _ => "  ",
        };
        let mut spans = vec![
            Span::styled(t.tree.guides(node_ix), theme.dim),
            Span::raw(fold),
            Span::styled(format!("{}/", obj.id.kind), theme.key),
            Span::raw(obj.id.name.to_string()),
        ];
        if let Some(EdgeKind::Selector { via }) = node.edge {
            spans.push(Span::styled(format!("  (selects via {via})"), theme.dim));
        }
        if let Some(EdgeKind::Ref { rel }) = node.edge {
            spans.push(Span::styled(format!("  (used via {rel})"), theme.dim));
        }
        if obj.is_terminating() {
            spans.push(Span::styled("  Terminating", theme.warning));
        }
        if !obj.finalizers.is_empty() {
            spans.push(Span::styled(
                format!("  ⚑{}", obj.finalizers.len()),
                theme.warning,
            ));
        }
        if node.cycle {
            spans.push(Span::styled("  ↻ cycle", theme.error));
        }
        if let Some(codes) = t.owner_problems.get(&node.obj) {
            spans.push(Span::styled(format!("  ⚠ {codes}"), theme.error));
        }
        let mut line = Line::from(spans);
        if t.offset + row == t.selected {
            line = line.patch_style(theme.selected);
        }
        lines.push(line);
    }
    let title = match objects.get(t.object as usize) {
        Some(o) => format!(
            " Owner tree of {}{} ",
            o.id,
            match (t.selectors, t.refs) {
                (true, true) => " (+ selector and reference edges)",
                (true, false) => " (+ selector edges)",
                (false, true) => " (+ reference edges)",
                (false, false) => "",
            }
        ),
        None => " Owner tree ".into(),
    };
    frame.render_widget(
        Paragraph::new(lines).block(Block::bordered().title(title)),
        area,
    );
}
