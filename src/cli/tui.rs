//! `kubesift [PATH…]`: the terminal UI's arguments (the UI itself runs in
//! `crate::terminal`; its state lives in `crate::app`, its drawing in `crate::ui`).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use crate::model::load::{discover, is_stdin, LoadOptions, DEFAULT_MAX_FILE_SIZE};
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
    /// Start filtered to this namespace, like `kubectl -n`.
    #[arg(short = 'n', long, value_name = "NAMESPACE")]
    pub namespace: Option<String>,
    /// Start with every namespace (the default), like `kubectl -A`.
    #[arg(short = 'A', long, conflicts_with = "namespace")]
    pub all_namespaces: bool,
    /// Start with this selector in the bar, like `kubectl -l` (any bar text: `tier=web,~api`).
    #[arg(short = 'l', long, value_name = "SELECTOR")]
    pub selector: Option<String>,
    /// Start showing this kind, by any of kubectl's names (`po`, `deploy`, `KIND.GROUP`).
    #[arg(long, value_name = "TYPE", conflicts_with = "start_command")]
    pub kind: Option<String>,
    /// Start with this command line, as k9s's `-c` (`deploy`, `svc shop`, `ns`).
    #[arg(short = 'c', long = "command", value_name = "CMD")]
    pub start_command: Option<String>,
    /// Show what the input deploys: top-level kustomizations and Helm charts rendered in
    /// place of the files they read (the default when a kustomize or helm on PATH can
    /// build something of the input).
    #[arg(long, conflicts_with = "no_render")]
    pub render: bool,
    /// Show the input files, not what they render to (`R` switches in the UI).
    #[arg(long)]
    pub no_render: bool,
    /// A values file for every Helm chart (repeatable; with --render).
    #[arg(long = "helm-values", value_name = "FILE")]
    pub helm_values: Vec<PathBuf>,
}

/// Runs the UI until the user quits or a signal arrives; exits 2 without opening it when
/// no path given exists (what `get` says when nothing could be loaded).
pub fn run(args: TuiArgs) -> ExitCode {
    let paths = crate::cli::paths_or_cwd(&args.paths);
    if let Some(code) = nothing_to_load(&paths) {
        return code;
    }
    crate::terminal::run(UiOptions {
        paths,
        poll: args.poll,
        load: LoadOptions {
            max_file_size: args.max_file_size,
        },
        label_columns: args.labels.label_columns,
        show_labels: args.labels.show_labels,
        namespace: args.namespace,
        selector: args.selector,
        command: args.kind.or(args.start_command),
        render: crate::dataset::RenderRequest {
            kustomize: Vec::new(),
            render: args.render,
            helm_values: args.helm_values,
            auto: !args.render && !args.no_render,
        },
    })
}

/// When every path is missing (and none is standard input), the walk's problems and `get`'s
/// message on stderr, and exit status 2; `None` when the UI has something to show or watch.
fn nothing_to_load(paths: &[PathBuf]) -> Option<ExitCode> {
    if paths.iter().any(|p| is_stdin(p) || p.exists()) {
        return None;
    }
    let (_, problems) = discover(paths, &LoadOptions::default());
    for p in &problems {
        eprintln!("{p}");
    }
    eprintln!(
        "error: nothing could be loaded from {}",
        crate::cli::get::show_paths(paths)
    );
    Some(ExitCode::from(2))
}
