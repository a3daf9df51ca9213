//! Status line and the loading gauge.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Gauge, Paragraph};
use ratatui::Frame;

use super::{centered, Theme};
use crate::app::{App, Mode, Progress};

/// Mode hints, or the last message.
pub fn draw(app: &App, frame: &mut Frame, area: Rect, theme: &Theme) {
    let hint = match app.mode {
        Mode::Table => {
            "/ filter  : kind  n namespace  K kind  c columns  s sort  d detail  R render  ! problems  ? help  q quit"
        }
        Mode::Bar => "typing filters live · Enter table · Esc clear · Tab/S-Tab complete · ←→ ^A ^E ^W ^U ^K · ↑↓ history",
        Mode::Command => "Enter run · Esc cancel · Tab/S-Tab complete · :q quit",
        Mode::Detail => "↑↓ scroll  y yaml  d describe  / search  n N  w wrap  x decode  Esc back",
        Mode::Problems => "↑↓ select  v severity  c code  Enter object  e edit file  Esc back",
        Mode::Picker => "↑↓ select  / filter  Enter choose  Esc close",
        Mode::Help => "↑↓ PgUp PgDn g G scroll  Esc close",
        Mode::Tree => "↑↓ select  Enter detail  space collapse  s selector edges  Esc back",
    };
    let line = match &app.status {
        Some(msg) => Line::from(vec![Span::styled(msg.clone(), theme.key)]),
        None => Line::styled(hint, theme.dim),
    };
    frame.render_widget(Paragraph::new(line), area);
}

/// The header's breadcrumb: where the table is (`deployments › shop`).
pub fn breadcrumb<'a>(app: &App, theme: &Theme) -> Vec<Span<'a>> {
    vec![Span::raw("  "), Span::styled(app.breadcrumb(), theme.key)]
}

/// The gauge shown until the inventory is loaded.
pub fn draw_loading(p: Progress, frame: &mut Frame, area: Rect, theme: &Theme) {
    let ratio = if p.files_total == 0 {
        0.0
    } else {
        (p.files_done as f64 / p.files_total as f64).clamp(0.0, 1.0)
    };
    let gauge = Gauge::default()
        .block(Block::bordered().title(" kubesift: loading "))
        .gauge_style(theme.key)
        .ratio(ratio)
        .label(format!("{} of {} files", p.files_done, p.files_total));
    frame.render_widget(gauge, centered(area, 60, 3));
}
