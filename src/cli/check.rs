//! `kubesift check` (in progress).

use std::process::ExitCode;

use clap::Args;

#[derive(Debug, Args)]
pub struct CheckArgs {}

pub fn run(_args: CheckArgs) -> ExitCode {
    eprintln!("kubesift: this command is not available yet");
    ExitCode::from(1)
}
