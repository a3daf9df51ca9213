//! `kubesift [PATH…]`: the terminal UI (in progress).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

#[derive(Debug, Args)]
pub struct TuiArgs {
    /// Files or directories to load (default: the current directory).
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
}

pub fn run(_args: TuiArgs) -> ExitCode {
    eprintln!("kubesift: the terminal UI is not available yet; try `kubesift get`");
    ExitCode::from(1)
}
