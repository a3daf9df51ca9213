//! `kubesift check`: every load problem and every finding, one per line, in the
//! diagnostics' order (the UI's problems view lists the same rows in the same order); exit
//! status 1 when any is an error.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use serde::Serialize;

use super::LoadArgs;
use crate::dataset::Graph;
use crate::diagnostic::{self, Diagnostic, Severity};
use crate::gocompat::escape::{escape_line, escape_terminal};
use crate::model::{Inventory, ObjectsAt};
use crate::print;

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
    #[command(flatten)]
    pub render: crate::cli::RenderArgs,
}

/// Every load problem and finding of an inventory, in the diagnostics' order.
pub fn diagnostics(inv: &Inventory, graph: &Graph) -> Vec<Diagnostic> {
    let mut out = inv.problems.clone();
    out.extend_from_slice(graph.findings());
    diagnostic::sort(&mut out);
    out
}

/// `path:line:column: severity: object: message` (object `-` when there is none; no
/// `:line:column` for a problem about a whole file); the column tells apart the items of a
/// one-line JSON array.
pub fn format_line(at: &ObjectsAt<'_>, d: &Diagnostic) -> String {
    let path = d.path.display().to_string();
    let object = at.name(d);
    format!(
        "{}{}: {}: {}: {}",
        escape_line(&path),
        d.place(),
        d.severity,
        escape_line(object.as_deref().unwrap_or("-")),
        escape_terminal(&d.message)
    )
}

/// How `-o json` shows a diagnostic: its fields in this order, the object by name, no
/// column (the format predates it and stays as it is).
#[derive(Serialize)]
struct JsonRow<'a> {
    path: String,
    line: u32,
    severity: Severity,
    code: &'static str,
    /// Null for a problem not tied to one object.
    object: Option<String>,
    message: &'a str,
}

/// Writes the `-o json` array of `diagnostics`, pretty-printed, with a final newline.
pub fn write_json(
    inv: &Inventory,
    diagnostics: &[Diagnostic],
    mut out: impl Write,
) -> std::io::Result<()> {
    let at = ObjectsAt::new(inv, diagnostics);
    let rows: Vec<JsonRow<'_>> = diagnostics
        .iter()
        .map(|d| JsonRow {
            path: d.path.display().to_string(),
            line: d.line,
            severity: d.severity,
            code: d.code,
            object: at.name(d),
            message: &d.message,
        })
        .collect();
    serde_json::to_writer_pretty(&mut out, &rows).map_err(std::io::Error::other)?;
    writeln!(out)
}

/// One line for stderr: objects, ownerReference outcomes, problems by severity.
pub fn summary(inv: &Inventory, graph: &Graph, diagnostics: &[Diagnostic]) -> String {
    let count = |s: Severity| diagnostics.iter().filter(|d| d.severity == s).count();
    let st = graph.owner_stats();
    format!(
        "kubesift: {} in {}; ownerReferences: {} resolved ({} by uid, {} by name), {} dangling, {} invalid; {}, {}, {}",
        print::count(inv.objects.len(), "object"),
        print::count(inv.files, "file"),
        st.resolved(),
        st.by_uid,
        st.by_name,
        st.dangling,
        st.invalid,
        print::count(count(Severity::Error), "error"),
        print::count(count(Severity::Warning), "warning"),
        print::count(count(Severity::Note), "note")
    )
}

pub fn run(args: CheckArgs) -> ExitCode {
    let data = match crate::cli::load_dataset(&args.paths, &args.render, &args.load) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("error: {}", crate::gocompat::escape::escape_terminal(&e));
            return ExitCode::from(1);
        }
    };
    let (inv, graph) = (&data.inventory, &data.graph);
    let diagnostics = diagnostics(inv, graph);
    let mut out = std::io::stdout().lock();
    let written = match args.output {
        CheckFormat::Text => {
            let at = ObjectsAt::new(inv, &diagnostics);
            diagnostics
                .iter()
                .try_for_each(|d| writeln!(out, "{}", format_line(&at, d)))
        }
        CheckFormat::Json => write_json(inv, &diagnostics, &mut out),
    };
    if let Err(e) = written {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("kubesift: {e}");
            return ExitCode::from(2);
        }
    }
    eprintln!("{}", summary(inv, graph, &diagnostics));
    if diagnostics.iter().any(|d| d.severity == Severity::Error) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
