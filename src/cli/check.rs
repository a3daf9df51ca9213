//! `kubesift check`: every load problem and every finding, one per line, sorted by file
//! and line; exit status 1 when any is an error.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use serde::Serialize;

use super::{paths_or_cwd, LoadArgs};
use crate::dataset::{Dataset, Graph};
use crate::model::{Inventory, Severity};

/// Output format of `check`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum CheckFormat {
    Text,
    Json,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Files or directories to load (repeatable; default: the current directory).
    #[arg(short = 'f', long = "filename", value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Output format.
    #[arg(short = 'o', long = "output", value_enum, default_value_t = CheckFormat::Text)]
    pub output: CheckFormat,
    #[command(flatten)]
    pub load: LoadArgs,
}

/// One reported line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Entry {
    pub path: String,
    pub line: usize,
    pub severity: Severity,
    pub code: &'static str,
    /// `Kind[.group]/[namespace/]name`, or null for a problem not tied to one object.
    pub object: Option<String>,
    pub message: String,
}

/// Every load problem and finding of an inventory, sorted by path then line.
pub fn entries(inv: &Inventory, graph: &Graph) -> Vec<Entry> {
    let mut out: Vec<Entry> = inv
        .problems
        .iter()
        .map(|p| Entry {
            path: p.path.display().to_string(),
            line: p.line as usize,
            severity: p.severity,
            code: p.code,
            object: None,
            message: p.message.to_string(),
        })
        .collect();
    out.extend(graph.findings().iter().map(|f| Entry {
        path: f.path.display().to_string(),
        line: f.line,
        severity: f.severity,
        code: f.code,
        object: f.object.map(|i| inv.objects[i].id.to_string()),
        message: f.message.to_string(),
    }));
    out.sort_by(|a, b| (&a.path, a.line).cmp(&(&b.path, b.line)));
    out
}

/// `path:line: severity: object: message` (object `-` when there is none).
pub fn format_line(e: &Entry) -> String {
    format!(
        "{}:{}: {}: {}: {}",
        e.path,
        e.line,
        e.severity,
        e.object.as_deref().unwrap_or("-"),
        e.message
    )
}

/// One line for stderr: objects, ownerReference outcomes, problems by severity.
pub fn summary(inv: &Inventory, graph: &Graph, entries: &[Entry]) -> String {
    let count = |s: Severity| entries.iter().filter(|e| e.severity == s).count();
    let st = graph.owner_stats();
    format!(
        "kubesift: {} objects in {} files; ownerReferences: {} resolved ({} by uid, {} by name), {} dangling, {} invalid; {} errors, {} warnings, {} notes",
        inv.objects.len(),
        inv.files,
        st.resolved(),
        st.by_uid,
        st.by_name,
        st.dangling,
        st.invalid,
        count(Severity::Error),
        count(Severity::Warning),
        count(Severity::Note)
    )
}

pub fn run(args: CheckArgs) -> ExitCode {
    let data = Dataset::load(&paths_or_cwd(&args.paths), &args.load.options());
    let (inv, graph) = (&data.inventory, &data.graph);
    let entries = entries(inv, graph);
    let mut out = std::io::stdout().lock();
    let written = match args.output {
        CheckFormat::Text => entries
            .iter()
            .try_for_each(|e| writeln!(out, "{}", format_line(e))),
        CheckFormat::Json => serde_json::to_writer_pretty(&mut out, &entries)
            .map_err(std::io::Error::other)
            .and_then(|()| writeln!(out)),
    };
    if let Err(e) = written {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("kubesift: {e}");
            return ExitCode::from(2);
        }
    }
    eprintln!("{}", summary(inv, graph, &entries));
    if entries.iter().any(|e| e.severity == Severity::Error) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
