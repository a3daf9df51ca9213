//! The selector bar, or the `:` command line while it is open: the visible slice of the
//! text (scrolled to keep the cursor in view), then the caret and the wrapped error, Tab
//! candidates, or hints.

use ratatui::layout::{Position, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::Theme;
use crate::app::{text_width, App, Completion, LineInput, Mode, PROMPT_WIDTH};

const BAR_HINT: &str = "  k=v  k!=v  k in (a,b)  !k  metadata.name=x  ~fuzzy  | by KEY   (? help)";
const COMMAND_HINT: &str = "  po  deploy shop  svc -n ops  po -A  ns  crd  all  KIND.GROUP  q";

/// Draws the bar (its rows from the app's layout) and places the cursor when it has focus.
pub fn draw(app: &App, frame: &mut Frame, area: Rect, theme: &Theme) {
    let width = area.width as usize;
    let window = text_width(width);
    let (prompt, line, completion, focused, hint) = match &app.command {
        Some(c) if app.mode == Mode::Command => {
            (":", &c.line, c.completion.as_ref(), true, COMMAND_HINT)
        }
        _ => (
            "/",
            &app.bar.line,
            app.bar.completion.as_ref(),
            app.mode == Mode::Bar,
            BAR_HINT,
        ),
    };
    let mut lines = vec![text_line(prompt, line, window, focused, theme)];
    // Open Tab candidates come first: a half-typed term is an error until chosen.
    let errors = if app.mode == Mode::Command || completion.is_some() {
        Vec::new()
    } else {
        app.bar.error_rows(width)
    };
    if !errors.is_empty() {
        for row in errors {
            let mut spans = vec![Span::raw(" ".repeat(row.column))];
            if let Some(caret) = row.caret {
                spans.push(Span::styled(caret, theme.error));
                if !row.text.is_empty() {
                    spans.push(Span::raw(" "));
                }
            }
            spans.push(Span::styled(row.text, theme.error));
            lines.push(Line::from(spans));
        }
    } else if let Some(c) = completion.filter(|_| focused) {
        lines.push(candidates(c, width, theme));
    } else if focused {
        lines.push(Line::styled(hint, theme.dim));
    }
    frame.render_widget(Paragraph::new(lines), area);
    if focused {
        let col = line.cursor_column().saturating_sub(line.scroll()) + PROMPT_WIDTH;
        let x = area.x + u16::try_from(col).unwrap_or(u16::MAX);
        frame.set_cursor_position(Position::new(x.min(area.right().saturating_sub(1)), area.y));
    }
}

/// The prompt and the visible slice of the text; `‹`/`›` in place of the first or last
/// column mark text scrolled out of view.
fn text_line<'a>(
    prompt: &'a str,
    line: &'a LineInput,
    window: usize,
    focused: bool,
    theme: &Theme,
) -> Line<'a> {
    let prompt_style = if focused { theme.title } else { theme.dim };
    let (shown, before, after) = line.visible(window);
    let mut spans = vec![Span::styled(prompt, prompt_style)];
    spans.push(if before {
        Span::styled("‹", theme.dim)
    } else {
        Span::raw(" ")
    });
    spans.push(Span::raw(shown));
    if after {
        spans.push(Span::styled("›", theme.dim));
    }
    Line::from(spans)
}

/// The page of Tab candidates holding the selected one, `‹`/`›` when more are off-page.
fn candidates<'a>(c: &'a Completion, width: usize, theme: &Theme) -> Line<'a> {
    let page = c.window(width.saturating_sub(PROMPT_WIDTH + 1));
    let mut spans = vec![Span::styled(
        if page.start > 0 { " ‹" } else { "  " },
        theme.dim,
    )];
    for i in page.clone() {
        let (item, n) = &c.items[i];
        let style = if c.selected == Some(i) {
            theme.selected
        } else {
            theme.key
        };
        spans.push(Span::styled(item.as_str(), style));
        spans.push(Span::styled(format!("({n})  "), theme.dim));
    }
    if page.end < c.items.len() {
        spans.push(Span::styled("›", Style::new().patch(theme.dim)));
    }
    Line::from(spans)
}
