//! `kubesift get` (in progress).

use std::process::ExitCode;

use clap::Args;

#[derive(Debug, Args)]
pub struct GetArgs {}

pub fn run(_args: GetArgs) -> ExitCode {
    ExitCode::from(1)
}
