//! `kubesift bench`: load phases, per-keystroke latency through the real `App::update` +
//! draw path, and the cost of a one-file edit, on the user's manifests. Read-only: the
//! one-file edit is made in memory, never written.

mod delta;
mod keys;
mod load;
mod report;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};

use super::{paths_or_cwd, LoadArgs};

/// The selector typed by default (issue 8's target).
pub const DEFAULT_TYPE: &str = "app.kubernetes.io/part-of in (shop,data),tier!=cache";

/// Terminal size of the off-screen frames.
pub const WIDTH: u16 = 200;
pub const HEIGHT: u16 = 50;

/// `kubesift bench [-f PATH]… [--type TEXT] [-o json]`
///
/// Loads PATH (default `.`) exactly as the UI does (loader thread, partial batches, an
/// off-screen UI applying them) and reports when each step finished (walk, read, parse,
/// inventory, index, the whole table on screen, graph), objects, files and bytes, and the
/// peak RSS; then
/// types TEXT into the selector bar one character at a time, each followed by a draw into
/// an off-screen 200x50 terminal, and reports per-keystroke latency; then re-parses one
/// file in memory with one object changed and applies it as the watcher would, plus a draw.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// File or directory to read (repeatable; directories are walked recursively).
    #[arg(short = 'f', long = "filename", value_name = "PATH")]
    pub files: Vec<PathBuf>,
    /// Text typed into the selector bar, one character per keystroke.
    #[arg(long = "type", value_name = "TEXT", default_value = DEFAULT_TYPE)]
    pub text: String,
    /// How many times TEXT is typed (the bar is cleared in between).
    #[arg(long, value_name = "N", default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..))]
    pub rounds: u32,
    /// File whose first object the one-file edit changes (default: the file holding the
    /// middle object).
    #[arg(long = "edit", value_name = "PATH")]
    pub edit: Option<PathBuf>,
    /// What the one-file edit changes: an annotation (no object moves, no selection
    /// changes), a label every selector of the app reads (`app.kubernetes.io/name` of the
    /// file's first Pod, or first object: memberships change), one more object at the end
    /// of the file each round (positions move up), one fewer (its last object taken out:
    /// positions move down), every object taken out (as when the file is deleted; put
    /// back between the measured rounds), or every object put back (as when a deleted
    /// file is checked out again; taken out between the measured rounds).
    #[arg(
        long = "edit-shape",
        value_enum,
        value_name = "SHAPE",
        default_value = "annotation"
    )]
    pub edit_shape: delta::Shape,
    /// How many files the edit changes, as one batch (files saved together, a checkout):
    /// the one `--edit` names (or that holds the middle object) and those after it in load
    /// order, each edited alike.
    #[arg(
        long = "edit-files",
        value_name = "N",
        default_value_t = 1,
        value_parser = clap::value_parser!(u16).range(1..)
    )]
    pub edit_files: u16,
    /// Output format (default: a human table).
    #[arg(short = 'o', long, value_enum, value_name = "FORMAT")]
    pub output: Option<BenchOutput>,
    #[command(flatten)]
    pub load: LoadArgs,
}

/// `-o` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BenchOutput {
    Json,
}

/// Runs the measurements and prints them.
pub fn run(args: BenchArgs) -> ExitCode {
    let paths = paths_or_cwd(&args.files);
    let opts = args.load.options();
    let (app, live, load) = match load::measure(&paths, &opts) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("kubesift: {e}");
            return ExitCode::from(1);
        }
    };
    if app.data.inventory.objects.is_empty() {
        eprintln!(
            "kubesift: no objects found under {}",
            paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
        return ExitCode::from(1);
    }
    let (app, keys) = match keys::measure(app, &args.text, args.rounds) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("kubesift: {e}");
            return ExitCode::from(1);
        }
    };
    // Peak RSS of loading and typing: the UI's data, the live set and the graph.
    let rss = load::Rss::now();
    let files = usize::from(args.edit_files);
    let delta = delta::measure(live, app, (args.edit.as_deref(), files), args.edit_shape);
    let report = report::Report {
        paths,
        load,
        rss,
        keys,
        delta,
    };
    match args.output {
        Some(BenchOutput::Json) => println!("{}", report.json()),
        None => print!("{}", report.table()),
    }
    ExitCode::SUCCESS
}

/// Milliseconds in a duration, as a float.
fn ms(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
