//! Command-line front ends: `kubesift [PATH…]` (the UI) and the headless subcommands.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use crate::model::load::{LoadOptions, DEFAULT_MAX_FILE_SIZE};

pub mod bench;
pub mod check;
pub mod completions;
pub mod get;
pub mod man;
pub mod selector;
pub mod tree;
pub mod tui;

/// kubesift: browse a folder of Kubernetes manifests offline.
///
/// With no subcommand, opens the terminal UI on PATH… (default `.`).
///
/// Kinds: built-in Kubernetes kinds are known by plural, singular, short name and group;
/// a CustomResourceDefinition in the input registers its kind. A kind nobody declares is
/// namespaced if its objects carry a namespace, and its plural is the lowercase kind + "s".
/// A namespaced object without metadata.namespace is in `default`, as `kubectl apply -f`
/// would put it.
#[derive(Debug, Parser)]
#[command(name = "kubesift", version, args_conflicts_with_subcommands = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub tui: tui::TuiArgs,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// List objects like `kubectl get`, offline.
    Get(get::GetArgs),
    /// Owner → dependents trees, like kubectl-tree.
    Tree(tree::TreeArgs),
    /// Every load error and finding, one per line.
    Check(check::CheckArgs),
    /// Parse, explain and test label and field selectors.
    Selector(selector::SelectorArgs),
    /// Measure load phases and per-keystroke latency.
    Bench(bench::BenchArgs),
    /// Print a shell completion script (`source <(kubesift completions bash)`).
    Completions(completions::CompletionsArgs),
    /// Print the manual page (`kubesift man | man -l -`).
    Man(man::ManArgs),
}

/// `-L` and `--show-labels`, shared by `get` and the UI so they read the same.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct LabelColumnArgs {
    /// Label keys to show as columns (repeatable, comma-separated), like `kubectl get -L`.
    #[arg(
        short = 'L',
        long = "label-columns",
        value_name = "KEY",
        value_delimiter = ','
    )]
    pub label_columns: Vec<String>,
    /// Show all labels in a LABELS column, like `kubectl get --show-labels`.
    #[arg(long)]
    pub show_labels: bool,
}

/// Options shared by every command that loads manifests.
#[derive(Debug, Clone, Args)]
pub struct LoadArgs {
    /// Refuse files (and standard input) larger than this many bytes.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_FILE_SIZE, global = true)]
    pub max_file_size: u64,
}

impl LoadArgs {
    pub fn options(&self) -> LoadOptions {
        LoadOptions {
            max_file_size: self.max_file_size,
        }
    }
}

/// What to render: `-k DIR`, `--render`, `--helm-values` (get, tree, check; `--render`
/// and `--helm-values` in the UI too).
#[derive(Debug, Clone, Default, Args)]
pub struct RenderArgs {
    /// Process the kustomization directory: the objects `kustomize build DIR` produces
    /// (repeatable), like `kubectl get -k`. Uses `kustomize` on PATH, else `kubectl
    /// kustomize`.
    #[arg(short = 'k', long = "kustomize", value_name = "DIR")]
    pub kustomize: Vec<PathBuf>,
    /// Show what the input deploys: every top-level kustomization (`kustomize build`) and
    /// Helm chart (`helm template`) rendered in place of the files it reads; plain
    /// manifests as they are.
    #[arg(long)]
    pub render: bool,
    /// A values file for every Helm chart (repeatable; `helm template -f FILE`).
    #[arg(long = "helm-values", value_name = "FILE")]
    pub helm_values: Vec<PathBuf>,
}

impl RenderArgs {
    /// The data layer's request; kubectl's error when `-k` comes with `-f`.
    pub fn request(&self, files: &[PathBuf]) -> Result<crate::dataset::RenderRequest, String> {
        if !files.is_empty() && !self.kustomize.is_empty() {
            return Err("only one of -f or -k can be specified".to_owned());
        }
        Ok(crate::dataset::RenderRequest {
            kustomize: self.kustomize.clone(),
            render: self.render,
            helm_values: self.helm_values.clone(),
            auto: false,
        })
    }
}

/// Loads what a headless command shows: the files under `paths`, rendered as `render`
/// asks; an error (usage, or a `-k` folder without a kustomization) is printed by the caller.
pub fn load_dataset(
    files: &[PathBuf],
    render: &RenderArgs,
    load: &LoadArgs,
) -> Result<crate::dataset::Dataset, String> {
    let req = render.request(files)?;
    crate::dataset::Dataset::load_rendered(&paths_or_cwd(files), &load.options(), &req)
}

/// Paths given with `-f`, or `.` when none.
pub fn paths_or_cwd(paths: &[PathBuf]) -> Vec<PathBuf> {
    if paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        paths.to_vec()
    }
}

/// Parses the command line and runs it.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Some(Command::Get(a)) => get::run(a),
        Some(Command::Tree(a)) => tree::run(a),
        Some(Command::Check(a)) => check::run(a),
        Some(Command::Selector(a)) => selector::run(a),
        Some(Command::Bench(a)) => bench::run(a),
        Some(Command::Completions(a)) => completions::run(a),
        Some(Command::Man(a)) => man::run(a),
        None => tui::run(cli.tui),
    }
}
