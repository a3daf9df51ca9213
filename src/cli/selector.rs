//! `kubesift selector` (in progress).

use std::process::ExitCode;

use clap::Args;

#[derive(Debug, Args)]
pub struct SelectorArgs {}

pub fn run(_args: SelectorArgs) -> ExitCode {
    eprintln!("kubesift: this command is not available yet");
    ExitCode::from(1)
}
