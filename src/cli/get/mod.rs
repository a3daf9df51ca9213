//! `kubesift get`: kubectl's `get`, offline, over the loaded manifests.

mod filter;
mod output;
mod request;
mod watch;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};

use super::{paths_or_cwd, LoadArgs};
use crate::gocompat::escape::{escape_line, escape_terminal};
use crate::model::load::load_paths;
use crate::model::Inventory;

pub use filter::{select, Filters};
pub use output::{render, Format, RenderOptions};
pub use request::{parse_requests, Request, Requests};

/// `kubesift get [TYPE[,TYPE…] [NAME…] | TYPE/NAME…] [-f PATH]… [flags]`
///
/// Lists the objects found in PATH (default `.`), filtered like `kubectl get`. Without `-n`
/// every namespace is shown (a folder is not a cluster context); with no TYPE, every object.
#[derive(Debug, Args)]
pub struct GetArgs {
    /// TYPE[,TYPE…] followed by optional NAMEs, or TYPE/NAME pairs. TYPE is a plural,
    /// singular or short name, optionally `.group`; `all` as in kubectl.
    #[arg(value_name = "TYPE[/NAME]")]
    pub resources: Vec<String>,
    /// File or directory to read (repeatable; directories are walked recursively).
    #[arg(short = 'f', long = "filename", value_name = "PATH")]
    pub files: Vec<PathBuf>,
    /// Label selector (`-l app=web,tier!=cache`), Kubernetes syntax.
    #[arg(short = 'l', long = "selector", value_name = "SELECTOR")]
    pub selector: Option<String>,
    /// Field selector (`--field-selector metadata.namespace=shop`).
    #[arg(long = "field-selector", value_name = "SELECTOR")]
    pub field_selector: Option<String>,
    /// Only this namespace (cluster-scoped objects are still listed).
    #[arg(short = 'n', long, value_name = "NS")]
    pub namespace: Option<String>,
    /// All namespaces (the default; accepted for kubectl compatibility).
    #[arg(short = 'A', long = "all-namespaces", conflicts_with = "namespace")]
    pub all_namespaces: bool,
    #[command(flatten)]
    pub labels: crate::cli::LabelColumnArgs,
    /// Output format.
    #[arg(short = 'o', long, value_enum, value_name = "FORMAT")]
    pub output: Option<OutputArg>,
    /// Sort by a JSONPath expression (`{.metadata.name}`, `.spec.replicas`).
    #[arg(long, value_name = "JSONPATH")]
    pub sort_by: Option<String>,
    /// Omit the table headers.
    #[arg(long)]
    pub no_headers: bool,
    /// After listing, watch the files and print one line per change.
    #[arg(short = 'w', long)]
    pub watch: bool,
    /// With `-w`: prefix each change with ADDED, MODIFIED or DELETED.
    #[arg(long, requires = "watch")]
    pub output_watch_events: bool,
    /// With `-w`: poll the file system instead of using OS events (network filesystems).
    #[arg(long, requires = "watch")]
    pub poll: bool,
    #[command(flatten)]
    pub load: LoadArgs,
    #[command(flatten)]
    pub render: crate::cli::RenderArgs,
}

/// `-o` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum OutputArg {
    Wide,
    Name,
    Json,
    Yaml,
}

/// Runs `kubesift get`: 0 when the query ran, 1 on a usage or selector error, 2 when
/// nothing could be loaded.
pub fn run(args: GetArgs) -> ExitCode {
    let paths = paths_or_cwd(&args.files);
    let req = match args.render.request(&args.files) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {}", escape_terminal(&e));
            return ExitCode::from(1);
        }
    };
    if args.watch {
        return run_watch(&args, &paths, &req);
    }
    let inv = if req.is_on() {
        match crate::dataset::load_inventory(&paths, &args.load.options(), &req) {
            Ok(inv) => inv,
            Err(e) => {
                eprintln!("error: {}", escape_terminal(&e));
                return ExitCode::from(1);
            }
        }
    } else {
        load_paths(&paths, &args.load.options())
    };
    report_problems(&inv);
    if let Some(code) = nothing_loaded(&req, &inv) {
        if code == 2 {
            eprintln!("error: nothing could be loaded from {}", show_paths(&paths));
        }
        return ExitCode::from(code);
    }
    let result = execute(&args, &inv);
    // The process ends right after printing: freeing 100,000 objects one by one only
    // delays the exit (tens of milliseconds on one core).
    std::mem::forget(inv);
    match result {
        Ok(out) => {
            let mut stdout = std::io::stdout().lock();
            // A closed pipe (`| head`) is not an error worth reporting.
            let _ = stdout.write_all(out.stdout.as_bytes());
            let _ = stdout.flush();
            for line in &out.stderr {
                eprintln!("{}", escape_terminal(line));
            }
            ExitCode::from(out.code)
        }
        Err(message) => {
            eprintln!("error: {}", escape_terminal(&message));
            ExitCode::from(1)
        }
    }
}

/// `get -w`: the kinds are resolved against the first load, then changes stream in.
fn run_watch(args: &GetArgs, paths: &[PathBuf], req: &crate::dataset::RenderRequest) -> ExitCode {
    if paths.iter().any(|p| crate::model::load::is_stdin(p)) {
        eprintln!("error: --watch cannot follow standard input (-): it is read once");
        return ExitCode::from(1);
    }
    let inv = match crate::dataset::load_inventory(paths, &args.load.options(), req) {
        Ok(inv) => inv,
        Err(e) => {
            eprintln!("error: {}", escape_terminal(&e));
            return ExitCode::from(1);
        }
    };
    report_problems(&inv);
    let prepared = parse_requests(&args.resources, &inv.kinds)
        .and_then(|reqs| {
            let query = Filters::new(
                args.selector.as_deref(),
                args.field_selector.as_deref(),
                args.namespace.as_deref(),
            )?;
            let sel = select(&inv, &reqs, &query, None)?;
            Ok((reqs, query, sel.refused))
        })
        .map_err(|message| format!("error: {message}"))
        .and_then(|(reqs, query, refused)| match refused.into_iter().next() {
            // The first list already fails for a kind the field selector does not apply to.
            Some(line) => Err(line),
            None => Ok((reqs, query)),
        });
    let (reqs, query) = match prepared {
        Ok(p) => p,
        Err(line) => {
            eprintln!("{}", escape_terminal(&line));
            return ExitCode::from(1);
        }
    };
    let mut opts = render_options(args, &reqs, &inv);
    opts.single_item = true;
    opts.kind_prefix = reqs.all_kinds || reqs.list.len() > 1;
    let printer = watch::WatchPrinter::new(&reqs, &query, opts, args.output_watch_events);
    match watch::run(paths, &args.load.options(), args.poll, req, printer) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", escape_terminal(&format!("{e:#}")));
            ExitCode::from(1)
        }
    }
}

fn render_options(args: &GetArgs, reqs: &Requests, inv: &Inventory) -> RenderOptions {
    RenderOptions {
        format: match args.output {
            None => Format::Table { wide: false },
            Some(OutputArg::Wide) => Format::Table { wide: true },
            Some(OutputArg::Name) => Format::Name,
            Some(OutputArg::Json) => Format::Json,
            Some(OutputArg::Yaml) => Format::Yaml,
        },
        with_namespace: args.namespace.is_none(),
        label_columns: args.labels.label_columns.clone(),
        show_labels: args.labels.show_labels,
        no_headers: args.no_headers,
        single_item: reqs.single_item_implied(),
        kind_prefix: false,
        now: chrono::Utc::now(),
        kinds: std::sync::Arc::new(inv.kinds.clone()),
    }
}

/// What one `get` produced.
#[derive(Debug, Default)]
pub struct GetOutput {
    pub stdout: String,
    /// Messages such as `No resources found` and not-found errors.
    pub stderr: Vec<String>,
    pub code: u8,
}

/// Resolves, filters and renders; `Err` is a usage or selector error.
pub fn execute(args: &GetArgs, inv: &Inventory) -> Result<GetOutput, String> {
    let requests = parse_requests(&args.resources, &inv.kinds)?;
    let query = Filters::new(
        args.selector.as_deref(),
        args.field_selector.as_deref(),
        args.namespace.as_deref(),
    )?;
    let selection = select(inv, &requests, &query, args.sort_by.as_deref())?;
    let opts = render_options(args, &requests, inv);
    let objects: Vec<_> = selection.objects.iter().map(|&i| &inv.objects[i]).collect();
    let mut out = GetOutput {
        stdout: render(&objects, &opts),
        ..GetOutput::default()
    };
    for missing in &selection.not_found {
        out.stderr
            .push(format!("Error from server (NotFound): {missing}"));
        out.code = 1;
    }
    for refused in &selection.refused {
        out.stderr.push(refused.clone());
        out.code = 1;
    }
    if inv.objects.is_empty() && inv.problems.iter().any(|p| p.code == "not-an-object") {
        // kubectl fails on each document it cannot decode as an object; with nothing else in
        // the input, the notes above are the whole answer and the run failed.
        out.code = 1;
    } else if objects.is_empty() && out.code == 0 && opts.format.is_table() {
        out.stderr.push(match &args.namespace {
            Some(ns) => format!("No resources found in {ns} namespace."),
            None => "No resources found".to_owned(),
        });
    }
    Ok(out)
}

fn report_problems(inv: &Inventory) {
    // stderr is unbuffered: a write per piece of each line was most of `get`'s time on a
    // file of many non-objects.
    let mut err = std::io::BufWriter::new(std::io::stderr().lock());
    for p in &inv.problems {
        let _ = writeln!(err, "{p}");
    }
    let _ = err.flush();
}

/// The exit status when nothing can be listed: 1 for a failed `-k` build (kubectl's and
/// kustomize's status; the build's message was reported), else 2; `None` when the query
/// runs.
fn nothing_loaded(req: &crate::dataset::RenderRequest, inv: &Inventory) -> Option<u8> {
    if !inv.objects.is_empty() || (inv.files > 0 && inv.error_count() == 0) {
        return None;
    }
    Some(if !req.kustomize.is_empty() && inv.error_count() > 0 {
        1
    } else {
        2
    })
}

/// The paths as `get` names them in `nothing could be loaded from …`.
pub(crate) fn show_paths(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| escape_line(&p.display().to_string()).into_owned())
        .collect::<Vec<_>>()
        .join(", ")
}
