//! `kubesift bench` (in progress).

use std::process::ExitCode;

use clap::Args;

#[derive(Debug, Args)]
pub struct BenchArgs {}

pub fn run(_args: BenchArgs) -> ExitCode {
    eprintln!("kubesift: this command is not available yet");
    ExitCode::from(1)
}
