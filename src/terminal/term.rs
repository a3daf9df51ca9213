//! Entering and leaving the terminal UI mode, with a chained panic hook that restores.

use std::io::{self, Stdout, Write};
use std::sync::Once;

use crossterm::event::{DisableMouseCapture, EnableMouseCapture};
use crossterm::execute;
use crossterm::terminal::{
    disable_raw_mode, enable_raw_mode, EnterAlternateScreen, LeaveAlternateScreen,
};
use ratatui::backend::CrosstermBackend;
use ratatui::Terminal;

/// The terminal the UI draws on.
pub type Term = Terminal<CrosstermBackend<Stdout>>;

static HOOK: Once = Once::new();

/// Raw mode, alternate screen, mouse capture; installs the restoring panic hook once.
pub fn enter() -> io::Result<Term> {
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore();
            previous(info);
        }));
    });
    enable_raw_mode()?;
    execute!(io::stdout(), EnterAlternateScreen, EnableMouseCapture)?;
    Terminal::new(CrosstermBackend::new(io::stdout()))
}

/// Leaves UI mode; safe to call more than once. Never called from a signal handler.
pub fn restore() {
    let mut out = io::stdout();
    let _ = execute!(
        out,
        DisableMouseCapture,
        LeaveAlternateScreen,
        crossterm::cursor::Show
    );
    let _ = disable_raw_mode();
    let _ = out.flush();
}

/// Copies `text` to the clipboard with OSC 52 (works over SSH and in tmux with
/// `set-clipboard on`).
pub fn osc52_copy(text: &str) -> io::Result<()> {
    use base64::Engine;
    let encoded = base64::engine::general_purpose::STANDARD.encode(text);
    let mut out = io::stdout();
    write!(out, "\x1b]52;c;{encoded}\x07")?;
    out.flush()
}
