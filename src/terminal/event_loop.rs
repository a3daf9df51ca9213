//! The one event task: terminal events, a tick, loader messages and signals, turned into
//! [`Action`]s. All queued input is applied before drawing once.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use crossterm::event::{Event, EventStream};
use crossterm::terminal::{BeginSynchronizedUpdate, EndSynchronizedUpdate};
use futures::StreamExt;
use tokio::signal::unix::{signal, SignalKind};
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver, UnboundedSender};
use tokio::sync::oneshot;

use super::{files, term};
use crate::app::{superseded_left_out, Action, App, Effect, Input};
use crate::dataset::{self, Follow};
use crate::model::load::{is_stdin, LoadOptions};

/// Runs until quit; returns the process exit code (128 + signal number after a signal).
pub async fn run(
    mut app: App,
    paths: Vec<PathBuf>,
    load: LoadOptions,
    poll: bool,
    render: dataset::RenderRequest,
) -> anyhow::Result<u8> {
    let mut loader = Loader {
        config: Follow::ui(paths, load, poll).rendering(render),
        stop: Arc::new(AtomicBool::new(false)),
    };
    let mut rx = loader.start();
    let mut terminal = term::enter().context("cannot use the terminal (/dev/tty)")?;
    let result = event_loop(&mut app, &mut terminal, &mut rx, &mut loader).await;
    term::restore();
    result
}

/// The data layer's thread and what it was started with.
struct Loader {
    config: Follow,
    stop: Arc<AtomicBool>,
}

impl Loader {
    /// Starts loading and following `config`; its events arrive on the returned channel.
    fn start(&mut self) -> UnboundedReceiver<Action> {
        let (tx, rx) = unbounded_channel();
        let send = move |event: dataset::Event| tx.send(Action::from(event)).is_ok();
        self.stop = Arc::new(AtomicBool::new(false));
        dataset::spawn_until(self.config.clone(), send, Arc::clone(&self.stop));
        rx
    }

    /// Stops the loader and starts one for the rendered view or the files view. The old
    /// loader's channel is dropped with its receiver: nothing it still sends arrives.
    fn restart(&mut self, rendered: bool) -> UnboundedReceiver<Action> {
        self.stop.store(true, Ordering::SeqCst);
        let request = &mut self.config.render;
        request.render = rendered;
        request.auto = false;
        self.start()
    }
}

async fn event_loop(
    app: &mut App,
    terminal: &mut term::Term,
    rx: &mut UnboundedReceiver<Action>,
    loader: &mut Loader,
) -> anyhow::Result<u8> {
    let mut sigterm = signal(SignalKind::terminate())?;
    let mut sigint = signal(SignalKind::interrupt())?;
    let mut sighup = signal(SignalKind::hangup())?;
    let (ev_tx, mut ev_rx) = unbounded_channel();
    let mut reader = Reader::start(ev_tx.clone());
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    let size = terminal.size()?;
    app.update(Action::Resize(size.width, size.height));
    let mut exit_code = 0u8;
    loop {
        if app.dirty {
            draw(app, terminal)?;
        }
        if app.should_quit {
            reader.stop().await;
            return Ok(exit_code);
        }
        // Data actions are applied after the keys of the same burst, all at once (below).
        let mut queued: Vec<Action> = Vec::new();
        let action = tokio::select! {
            Some(ev) = ev_rx.recv() => map_event(app, ev),
            _ = tick.tick() => Some(Action::Tick(chrono::Utc::now().timestamp())),
            Some(a) = rx.recv() => { queued.push(a); None }
            _ = sigterm.recv() => { exit_code = 143; Some(Action::Quit) }
            _ = sigint.recv() => { exit_code = 130; Some(Action::Quit) }
            _ = sighup.recv() => { exit_code = 129; Some(Action::Quit) }
        };
        if let Some(a) = action {
            app.update(a);
        }
        // Apply everything already queued so a burst of keys costs one frame.
        while let Ok(ev) = ev_rx.try_recv() {
            if let Some(a) = map_event(app, ev) {
                app.update(a);
            }
        }
        queued.extend(std::iter::from_fn(|| rx.try_recv().ok()));
        for a in superseded_left_out(queued) {
            app.update(a);
        }
        for effect in app.take_effects() {
            match effect {
                Effect::Edit { .. } | Effect::Suspend => {
                    // The editor or the shell owns the terminal meanwhile: stop reading it.
                    reader.stop().await;
                    let notice = match effect {
                        Effect::Edit { path, line } => Some(edit(terminal, &path, line)?),
                        _ => {
                            suspend(terminal)?;
                            None
                        }
                    };
                    reader = Reader::start(ev_tx.clone());
                    let size = terminal.size()?;
                    app.update(Action::Resize(size.width, size.height));
                    if let Some(msg) = notice {
                        app.update(Action::Notice(msg));
                    }
                }
                Effect::Render { rendered } => *rx = loader.restart(rendered),
                other => perform(app, other),
            }
        }
    }
}

/// Forwards terminal events from crossterm's `EventStream` to the event loop, so the loop
/// can drain queued input with a plain `try_recv`.
struct Reader {
    stop: Option<oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<()>,
}

impl Reader {
    fn start(tx: UnboundedSender<Event>) -> Reader {
        let (stop, mut stopped) = oneshot::channel();
        let task = tokio::spawn(async move {
            let mut events = EventStream::new();
            loop {
                tokio::select! {
                    _ = &mut stopped => break,
                    ev = events.next() => match ev {
                        Some(Ok(ev)) => {
                            if tx.send(ev).is_err() {
                                break;
                            }
                        }
                        Some(Err(e)) => tracing::warn!("terminal event: {e}"),
                        None => break,
                    },
                }
            }
        });
        Reader {
            stop: Some(stop),
            task,
        }
    }

    /// Stops reading and waits until the event stream is dropped.
    async fn stop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        let _ = (&mut self.task).await;
    }
}

fn draw(app: &mut App, terminal: &mut term::Term) -> io::Result<()> {
    crossterm::queue!(terminal.backend_mut(), BeginSynchronizedUpdate)?;
    terminal.draw(|f| crate::ui::draw(app, f))?;
    crossterm::execute!(terminal.backend_mut(), EndSynchronizedUpdate)?;
    app.dirty = false;
    Ok(())
}

/// A terminal event as an action (the app's keymap of the current mode decides).
fn map_event(app: &App, ev: Event) -> Option<Action> {
    Input::from_terminal(&ev).and_then(|input| app.intent(input))
}

/// Performs one effect other than running the editor.
fn perform(app: &mut App, effect: Effect) {
    match effect {
        Effect::Copy(text) => {
            if let Err(e) = term::osc52_copy(&text) {
                tracing::warn!("clipboard: {e}");
            }
        }
        Effect::SaveHistory(h) => {
            if let Err(e) = files::save_history(&h) {
                app.update(Action::Notice(format!("history not saved: {e}")));
            }
        }
        Effect::ReadSource {
            object,
            path,
            start,
            end,
        } => {
            let text = read_source(app, object, &path, start, end);
            app.update(Action::DetailSource { object, text });
        }
        Effect::Release(old) => {
            std::thread::spawn(move || drop(old));
        }
        Effect::Edit { .. } | Effect::Suspend | Effect::Render { .. } => {}
    }
}

/// The object's text from its file, or its content re-serialized when the span is unknown.
fn read_source(app: &App, object: u32, path: &std::path::Path, start: usize, end: usize) -> String {
    // Standard input is gone once read (and `-` is no file to read).
    if end > start && !is_stdin(path) {
        if let Ok(bytes) = std::fs::read(path) {
            if let Some(slice) = bytes.get(start..end) {
                return String::from_utf8_lossy(slice).into_owned();
            }
        }
    }
    app.data
        .inventory
        .objects
        .get(object as usize)
        .and_then(|o| serde_yaml::to_string(&o.raw).ok())
        .unwrap_or_default()
}

/// Runs `$EDITOR +line path` with the terminal restored, then re-enters the UI.
/// Ctrl-Z as in a shell: the terminal restored, the process stopped with SIGTSTP (the
/// default action, as vim and k9s do); when the shell continues it (`fg`), the UI comes
/// back and is drawn whole.
fn suspend(terminal: &mut term::Term) -> anyhow::Result<()> {
    term::restore();
    // SAFETY: raises a signal on this process; SIGTSTP's default action stops it and
    // returns here once SIGCONT arrives.
    unsafe {
        libc::raise(libc::SIGTSTP);
    }
    term::resume(terminal)?;
    Ok(())
}

/// `+LINE PATH` for the editor, the path made unambiguous: a relative path that would start
/// with `+` or `-` (a file named `+!touch x.yaml` given on the command line) is an editor
/// command or option to vi, vim, emacs and nano alike, so every relative path gets a `./`
/// prefix unless it already starts with `.`/`..`.
fn editor_args(path: &Path, line: u32) -> [std::ffi::OsString; 2] {
    let path = match path.components().next() {
        Some(std::path::Component::Normal(_)) => Path::new(".").join(path),
        _ => path.to_path_buf(),
    };
    [format!("+{line}").into(), path.into_os_string()]
}

fn edit(terminal: &mut term::Term, path: &std::path::Path, line: u32) -> anyhow::Result<String> {
    let editor = ["VISUAL", "EDITOR"]
        .iter()
        .filter_map(|v| std::env::var(v).ok())
        .find(|v| !v.trim().is_empty())
        .unwrap_or_else(|| "vi".into());
    term::restore();
    let mut parts = editor.split_whitespace();
    let program = parts.next().unwrap_or("vi");
    let (stdin, stdout) = term::child_stdio();
    let status = std::process::Command::new(program)
        .stdin(stdin)
        .stdout(stdout)
        .args(parts)
        .args(editor_args(path, line))
        .status();
    term::resume(terminal)?;
    Ok(match status {
        Ok(s) if s.success() => format!("edited {}:{line}", path.display()),
        Ok(s) => format!("{editor} exited with {s}"),
        Err(e) => format!("cannot run {editor}: {e}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn editor_paths_never_read_as_commands_or_options() {
        let args = |p: &str| editor_args(Path::new(p), 7).map(|a| a.to_string_lossy().into_owned());
        assert_eq!(args("+!touch PWNED.yaml"), ["+7", "./+!touch PWNED.yaml"]);
        assert_eq!(args("-c.yaml"), ["+7", "./-c.yaml"]);
        assert_eq!(args("--help.yaml"), ["+7", "./--help.yaml"]);
        assert_eq!(args("sub/+x.yaml"), ["+7", "./sub/+x.yaml"]);
        assert_eq!(args("./shop/db.yaml"), ["+7", "./shop/db.yaml"]);
        assert_eq!(args("../up.yaml"), ["+7", "../up.yaml"]);
        assert_eq!(args("/abs/+x.yaml"), ["+7", "/abs/+x.yaml"]);
    }
}
