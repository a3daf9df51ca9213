//! Entering and leaving the terminal UI mode, with a chained panic hook that restores.
//!
//! The UI talks to the terminal, not to whatever stdin and stdout are: with the manifests
//! piped in (`kubectl get … -o yaml | kubesift -`) keys come from `/dev/tty` (crossterm
//! reads and sets raw mode on `/dev/tty` when stdin is not a terminal), and with stdout
//! redirected the frames go to `/dev/tty` too ([`Output`]), as fzf does.

use std::fs::{File, OpenOptions};
use std::io::{self, IsTerminal, Stdout, Write};
use std::process::Stdio;
use std::sync::Once;

use crossterm::event::{
    DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
};
use crossterm::execute;
use crossterm::terminal::{
    disable_raw_mode, enable_raw_mode, EnterAlternateScreen, LeaveAlternateScreen,
};
use ratatui::backend::CrosstermBackend;
use ratatui::Terminal;

/// The terminal the UI draws on.
pub type Term = Terminal<CrosstermBackend<Output>>;

/// Where frames go: stdout when it is a terminal, else the controlling terminal.
pub enum Output {
    Stdout(Stdout),
    Tty(File),
}

impl Output {
    /// Stdout if it is a terminal, else `/dev/tty` opened for writing.
    pub fn open() -> io::Result<Output> {
        let stdout = io::stdout();
        if stdout.is_terminal() {
            return Ok(Output::Stdout(stdout));
        }
        Ok(Output::Tty(
            OpenOptions::new().write(true).open("/dev/tty")?,
        ))
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Output::Stdout(s) => s.write(buf),
            Output::Tty(f) => f.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Output::Stdout(s) => s.flush(),
            Output::Tty(f) => f.flush(),
        }
    }
}

static HOOK: Once = Once::new();

/// Raw mode, alternate screen, mouse capture, bracketed paste (a paste arrives as one
/// event, not as keys that Enter or Tab inside it would act on); installs the restoring panic hook once.
pub fn enter() -> io::Result<Term> {
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore();
            previous(info);
        }));
    });
    let mut out = Output::open()?;
    enable_raw_mode()?;
    execute!(
        out,
        EnterAlternateScreen,
        EnableMouseCapture,
        EnableBracketedPaste
    )?;
    Terminal::new(CrosstermBackend::new(out))
}

/// Enters UI mode again on the terminal of [`enter`] (after the editor). Neither a new
/// `Terminal` nor `Terminal::clear` is used: both ask the terminal for the cursor position,
/// and after an editor the answer could come too late for crossterm ("the cursor position
/// could not be read"). The screen is cleared directly and ratatui's idea of it reset by
/// drawing one empty frame, so the next frame is drawn whole.
pub fn resume(terminal: &mut Term) -> io::Result<()> {
    enable_raw_mode()?;
    execute!(
        terminal.backend_mut(),
        EnterAlternateScreen,
        EnableMouseCapture,
        EnableBracketedPaste,
        crossterm::terminal::Clear(crossterm::terminal::ClearType::All)
    )?;
    terminal.draw(|_| {})?;
    Ok(())
}

/// Leaves UI mode; safe to call more than once. Never called from a signal handler.
pub fn restore() {
    if let Ok(mut out) = Output::open() {
        let _ = execute!(
            out,
            DisableBracketedPaste,
            DisableMouseCapture,
            LeaveAlternateScreen,
            crossterm::cursor::Show
        );
        let _ = out.flush();
    }
    let _ = disable_raw_mode();
}

/// Standard streams for a program run on the terminal (the editor): ours where they are
/// the terminal, else `/dev/tty` (stdin may be the manifests' pipe, already drained).
pub fn child_stdio() -> (Stdio, Stdio) {
    let tty = |write: bool| {
        OpenOptions::new()
            .read(!write)
            .write(write)
            .open("/dev/tty")
            .map_or_else(|_| Stdio::inherit(), Stdio::from)
    };
    let stdin = if io::stdin().is_terminal() {
        Stdio::inherit()
    } else {
        tty(false)
    };
    let stdout = if io::stdout().is_terminal() {
        Stdio::inherit()
    } else {
        tty(true)
    };
    (stdin, stdout)
}

/// Copies `text` to the clipboard with OSC 52 (works over SSH and in tmux with
/// `set-clipboard on`).
pub fn osc52_copy(text: &str) -> io::Result<()> {
    use base64::Engine;
    let encoded = base64::engine::general_purpose::STANDARD.encode(text);
    let mut out = Output::open()?;
    write!(out, "\x1b]52;c;{encoded}\x07")?;
    out.flush()
}
