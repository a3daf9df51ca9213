//! Styles, with a colourless variant for `NO_COLOR` (modifiers only).

use ratatui::style::{Color, Modifier, Style};

/// The styles every view draws with.
#[derive(Clone, Copy, Debug)]
pub struct Theme {
    pub title: Style,
    pub selected: Style,
    pub group: Style,
    pub error: Style,
    pub dim: Style,
    pub matched: Style,
    pub key: Style,
    pub warning: Style,
    /// Rows changed by the last watched batch.
    pub changed: Style,
}

impl Theme {
    /// Colours that read on dark and light backgrounds (no fixed foreground/background).
    pub fn new(no_color: bool) -> Theme {
        let bold = Style::new().add_modifier(Modifier::BOLD);
        if no_color {
            return Theme {
                title: bold,
                selected: Style::new().add_modifier(Modifier::REVERSED),
                group: bold.add_modifier(Modifier::UNDERLINED),
                error: bold,
                dim: Style::new(),
                matched: Style::new().add_modifier(Modifier::UNDERLINED),
                key: bold,
                warning: bold,
                changed: bold.add_modifier(Modifier::ITALIC),
            };
        }
        Theme {
            title: bold,
            selected: Style::new().add_modifier(Modifier::REVERSED),
            group: bold.fg(Color::Blue),
            error: bold.fg(Color::Red),
            dim: Style::new().add_modifier(Modifier::DIM),
            matched: bold.fg(Color::Magenta),
            key: Style::new().fg(Color::Cyan),
            warning: Style::new().fg(Color::Yellow),
            changed: bold.fg(Color::Green),
        }
    }
}
