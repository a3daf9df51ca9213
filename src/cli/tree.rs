//! `kubesift tree` (in progress).

use std::process::ExitCode;

use clap::Args;

#[derive(Debug, Args)]
pub struct TreeArgs {}

pub fn run(_args: TreeArgs) -> ExitCode {
    eprintln!("kubesift: this command is not available yet");
    ExitCode::from(1)
}
