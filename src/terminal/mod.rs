//! The terminal UI's runtime: terminal setup and restore, the event task feeding
//! [`App::update`], effects (editor, clipboard, files), and the data layer's events
//! (`crate::dataset`). The state lives in `crate::app`, the drawing in `crate::ui`.

mod event_loop;
pub mod files;
mod term;

use std::path::PathBuf;
use std::process::ExitCode;

use crate::app::{App, Keymap, Options};
use crate::model::load::{is_stdin, LoadOptions};

/// What the UI is started with (parsed by `cli::tui`).
#[derive(Debug, Clone)]
pub struct UiOptions {
    pub paths: Vec<PathBuf>,
    /// Poll the file system instead of OS events.
    pub poll: bool,
    pub load: LoadOptions,
    pub label_columns: Vec<String>,
    pub show_labels: bool,
    /// `-n`: start filtered to this namespace.
    pub namespace: Option<String>,
    /// `-l`: start with this selector in the bar.
    pub selector: Option<String>,
    /// `--kind` / `-c`: start with this command line (`po`, `deploy shop`).
    pub command: Option<String>,
    /// Kustomizations and charts to render (`--render`).
    pub render: crate::dataset::RenderRequest,
}

/// Runs the UI until the user quits or a signal arrives.
pub fn run(args: UiOptions) -> ExitCode {
    if let Some(message) = stdin_conflict(&args.paths) {
        eprintln!("kubesift: {message}");
        return ExitCode::from(2);
    }
    let _log_guard = files::init_logging();
    let keymap = match Keymap::load(files::user_keymap().as_deref()) {
        Ok(k) => k,
        Err(e) => {
            eprintln!("kubesift: {e}");
            return ExitCode::from(2);
        }
    };
    let options = Options {
        label_columns: args.label_columns,
        show_labels: args.show_labels,
        no_color: std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()),
        history: files::load_history(),
        stdin_once: args.paths.iter().any(|p| is_stdin(p)),
        roots: args.paths.clone(),
        namespace: args.namespace,
        selector: args.selector,
        command: args.command,
    };
    let app = App::new(keymap, options, chrono::Utc::now().timestamp());
    let paths = args.paths;
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("kubesift: cannot start the event loop: {e}");
            return ExitCode::from(1);
        }
    };
    match runtime.block_on(event_loop::run(
        app,
        paths,
        args.load,
        args.poll,
        args.render,
    )) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            tracing::error!("ui failed: {e:#}");
            eprintln!("kubesift: {e:#}");
            ExitCode::from(1)
        }
    }
}

/// Why `-` cannot be read here: the keys come from the terminal, so the manifests cannot
/// (they would be typed, and the UI would wait for an end of file).
fn stdin_conflict(paths: &[PathBuf]) -> Option<&'static str> {
    use std::io::IsTerminal;
    let wants_stdin = paths.iter().any(|p| is_stdin(p));
    (wants_stdin && std::io::stdin().is_terminal()).then_some(
        "-: standard input is the terminal: pipe the manifests in (kubectl get … -o yaml | kubesift -)",
    )
}
