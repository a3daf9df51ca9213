//! `kubesift [PATH…]`: the terminal UI entry point (terminal setup, loader thread, event
//! loop; the state lives in `crate::app`, the drawing in `crate::ui`).

mod event_loop;
mod files;
mod term;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use crate::app::{App, Keymap, Options};

/// Arguments of the UI (no subcommand).
#[derive(Debug, Args)]
pub struct TuiArgs {
    /// Files or directories to load (default: the current directory).
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    #[command(flatten)]
    pub labels: crate::cli::LabelColumnArgs,
    /// Poll the file system for changes instead of using OS events (network filesystems).
    #[arg(long)]
    pub poll: bool,
}

/// Runs the UI until the user quits or a signal arrives.
pub fn run(args: TuiArgs) -> ExitCode {
    let _log_guard = files::init_logging();
    let keymap = match Keymap::load(files::user_keymap().as_deref()) {
        Ok(k) => k,
        Err(e) => {
            eprintln!("kubesift: {e}");
            return ExitCode::from(2);
        }
    };
    let options = Options {
        label_columns: args.labels.label_columns,
        show_labels: args.labels.show_labels,
        no_color: std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()),
        history: files::load_history(),
    };
    let app = App::new(keymap, options, chrono::Utc::now().timestamp());
    let paths = crate::cli::paths_or_cwd(&args.paths);
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
    match runtime.block_on(event_loop::run(app, paths, args.poll)) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            tracing::error!("ui failed: {e:#}");
            eprintln!("kubesift: {e:#}");
            ExitCode::from(1)
        }
    }
}
