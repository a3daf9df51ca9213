//! `kubesift [PATH…]`: the terminal UI's arguments (the UI itself runs in
//! `crate::terminal`; its state lives in `crate::app`, its drawing in `crate::ui`).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use crate::model::load::{LoadOptions, DEFAULT_MAX_FILE_SIZE};
use crate::terminal::UiOptions;

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
    /// Refuse files (and standard input) larger than this many bytes.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_FILE_SIZE)]
    pub max_file_size: u64,
    /// Show what the input deploys: top-level kustomizations and Helm charts rendered in
    /// place of the files they read.
    #[arg(long)]
    pub render: bool,
    /// A values file for every Helm chart (repeatable; with --render).
    #[arg(long = "helm-values", value_name = "FILE")]
    pub helm_values: Vec<PathBuf>,
}

/// Runs the UI until the user quits or a signal arrives.
pub fn run(args: TuiArgs) -> ExitCode {
    crate::terminal::run(UiOptions {
        paths: crate::cli::paths_or_cwd(&args.paths),
        poll: args.poll,
        load: LoadOptions {
            max_file_size: args.max_file_size,
        },
        label_columns: args.labels.label_columns,
        show_labels: args.labels.show_labels,
        render: crate::dataset::RenderRequest {
            kustomize: Vec::new(),
            render: args.render,
            helm_values: args.helm_values,
        },
    })
}
