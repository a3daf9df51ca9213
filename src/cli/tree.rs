//! `kubesift tree`: owner → dependents trees like kubectl-tree / kube-lineage, offline.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use serde_json::{json, Value};

use super::LoadArgs;
use crate::dataset::{branch, Direction, TreeOptions, Walk, WalkNode, WalkStep};
use crate::dataset::{EdgeKind, Graph};
use crate::gocompat::escape::escape_line;
use crate::model::{Inventory, Object};

/// Output format of `tree`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TreeFormat {
    Text,
    /// Text with a RELATIONSHIPS column naming the edges into each row (kube-lineage's
    /// `-o wide`).
    Wide,
    Json,
}

#[derive(Debug, Args)]
pub struct TreeArgs {
    /// Objects to start from: TYPE/NAME (or TYPE for every object of a kind). Default: every
    /// root (every object with no owner in the input; with --owners, every object owning
    /// nothing).
    #[arg(value_name = "TYPE/NAME")]
    pub targets: Vec<String>,
    /// Files or directories to load (repeatable; default: the current directory).
    #[arg(short = 'f', long = "filename", value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Only start from objects in this namespace (default: all namespaces).
    #[arg(short = 'n', long = "namespace", value_name = "NS")]
    pub namespace: Option<String>,
    /// Add selector edges (Service → Pods/workloads, workload → Pods, PDB, NetworkPolicy,
    /// HPA, Pod → Nodes), drawn with dashed branches.
    #[arg(long)]
    pub selectors: bool,
    /// Walk upward, from dependents to their owners.
    #[arg(long)]
    pub owners: bool,
    /// Follow reference edges instead of ownerReferences: what each object uses by name
    /// (ConfigMaps, Secrets, ServiceAccount, PVCs, Roles, Services …), drawn with dotted
    /// branches. With --selectors, selector edges too.
    #[arg(long)]
    pub refs: bool,
    /// Walk every edge backwards: what owns, selects or uses each object (with --refs:
    /// what uses it).
    #[arg(long)]
    pub reverse: bool,
    /// Follow owner, selector and reference edges.
    #[arg(long)]
    pub all: bool,
    /// Show file:line of each object.
    #[arg(long)]
    pub show_source: bool,
    /// Output format. Past 100 levels, text rows show `[depth N]` instead of the guides and
    /// JSON stops indenting deeper (output stays linear in the tree's size).
    #[arg(short = 'o', long = "output", value_enum, default_value_t = TreeFormat::Text)]
    pub output: TreeFormat,
    #[command(flatten)]
    pub load: LoadArgs,
    #[command(flatten)]
    pub render: crate::cli::RenderArgs,
}

/// Objects named by the TYPE/NAME arguments, in argument then load order.
pub fn resolve_targets(
    inv: &Inventory,
    targets: &[String],
    namespace: Option<&str>,
) -> Result<Vec<usize>, String> {
    let mut out = Vec::new();
    for t in targets {
        let (ty, name) = match t.split_once('/') {
            Some((ty, name)) => (ty, Some(name)),
            None => (t.as_str(), None),
        };
        let kinds = inv.kinds.resolve(ty);
        if kinds.is_empty() {
            return Err(format!(
                "error: the server doesn't have a resource type {ty:?}"
            ));
        }
        let found: Vec<usize> = inv
            .objects
            .iter()
            .enumerate()
            .filter(|(_, o)| {
                kinds
                    .iter()
                    .any(|k| k.group == o.id.group && k.kind == o.id.kind)
                    && name.is_none_or(|n| *o.id.name == *n)
                    && namespace.is_none_or(|ns| !o.namespaced || *o.id.namespace == *ns)
            })
            .map(|(i, _)| i)
            .collect();
        if found.is_empty() {
            let resource = kinds[0].resource();
            return Err(match name {
                Some(n) => format!("Error from server (NotFound): {resource} {n:?} not found"),
                None => format!("No resources found ({resource})"),
            });
        }
        out.extend(found);
    }
    Ok(out)
}

/// The STATUS column: the kind table's status text, as `get` and the UI show it.
pub fn status(o: &Object) -> String {
    crate::kinds::status(o.as_view())
}

/// Finalizers and Terminating details for the INFO column.
fn info(o: &Object) -> String {
    let lc = crate::dataset::lifecycle(o);
    let mut parts = Vec::new();
    if let Some(since) = &lc.terminating_since {
        let mut s = format!("Terminating since {since}");
        if let Some(g) = lc.grace_period_seconds {
            s.push_str(&format!(" (grace {g}s)"));
        }
        parts.push(s);
    }
    if !lc.finalizers.is_empty() {
        let names: Vec<&str> = lc.finalizers.iter().map(|f| &*f.name).collect();
        parts.push(format!("finalizers=[{}]", names.join(",")));
    }
    parts.join(" ")
}

/// How the edge into a node is labelled after the object's name.
fn edge_label(edge: Option<EdgeKind>, up: bool) -> String {
    match edge {
        Some(EdgeKind::Owner { by_uid: false, .. }) => " (owner by name)".into(),
        Some(EdgeKind::Selector { via }) if up => format!(" (selects it via {via})"),
        Some(EdgeKind::Selector { via }) => format!(" (selected via {via})"),
        Some(EdgeKind::Ref { rel }) if up => format!(" (uses it via {rel})"),
        Some(EdgeKind::Ref { rel }) => format!(" (used via {rel})"),
        _ => String::new(),
    }
}

fn kind_name(o: &Object) -> String {
    if o.id.group.is_empty() {
        format!("{}/{}", o.id.kind, o.id.name)
    } else {
        format!("{}.{}/{}", o.id.kind, o.id.group, o.id.name)
    }
}

/// Nesting levels drawn in full. A chain of depth `d` needs `O(d²)` bytes of guides (and
/// of JSON indentation); past this, text rows show `[depth N]` instead of the guides and
/// JSON stops indenting deeper, so output stays linear in the tree's size.
pub const MAX_DRAWN_DEPTH: usize = 100;

/// Box-drawing guides for pre-order rows, kept incrementally: one segment per open
/// ancestor level, so a row costs its own width and not a walk to the root.
#[derive(Default)]
struct Guides {
    /// `│  ` or `   ` for each non-root ancestor level of the current row.
    open: Vec<&'static str>,
}

impl Guides {
    /// The guides before `node` (visited in pre-order), as `Tree::guides` draws them.
    fn next(&mut self, node: &WalkNode) -> String {
        if node.parent.is_none() || node.depth == 0 {
            self.open.clear();
            return String::new();
        }
        self.open.truncate(node.depth - 1);
        let branch = branch(node.edge, node.last);
        let s = if node.depth > MAX_DRAWN_DEPTH {
            format!("[depth {}] {branch}", node.depth)
        } else {
            let mut s = self.open.concat();
            s.push_str(branch);
            s
        };
        // Levels past the drawn depth are never concatenated, so keep only a bounded stack.
        if self.open.len() < MAX_DRAWN_DEPTH && self.open.len() + 1 == node.depth {
            self.open.push(if node.last { "   " } else { "│  " });
        }
        s
    }
}

/// What `-o wide` adds: the RELATIONSHIPS column, from the graph's edges of the families the
/// tree follows.
#[derive(Clone, Copy)]
pub struct Relationships<'g> {
    pub graph: &'g Graph,
    pub opts: TreeOptions,
}

impl Relationships<'_> {
    /// The relationships between a node and its parent, as kube-lineage prints them
    /// (`[envFrom volume]`); empty for a root.
    fn cell(&self, node: &WalkNode) -> String {
        let Some(parent) = node.parent else {
            return String::new();
        };
        let (from, to) = match self.opts.direction {
            Direction::Down => (parent, node.obj),
            Direction::Up => (node.obj, parent),
        };
        let o = &self.opts;
        let names = self
            .graph
            .relationships(from, to, o.owners, o.selectors, o.refs);
        format!("[{}]", names.join(" "))
    }
}

/// The nodes `walk` enters, in pre-order.
fn entered<'w>(walk: Walk<'w>) -> impl Iterator<Item = WalkNode> + 'w {
    walk.filter_map(|step| match step {
        WalkStep::Enter(n) => Some(n),
        WalkStep::Leave => None,
    })
}

/// Writes the tree as aligned text rows (NAMESPACE, NAME, STATUS, INFO, RELATIONSHIPS with
/// `wide`, and SOURCE if asked). Column widths depend on every row, so the tree is walked
/// twice, sizing then writing, and no row is held: a tree of millions of rows (a Service
/// selecting 5,000 Pods, 5,000 times) costs what the graph costs.
pub fn render_text<'w>(
    out: &mut impl Write,
    inv: &Inventory,
    walk: impl Fn() -> Walk<'w>,
    up: bool,
    show_source: bool,
    wide: Option<Relationships<'_>>,
) -> std::io::Result<()> {
    let mut header: Vec<String> = ["NAMESPACE", "NAME", "STATUS", "INFO"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    if wide.is_some() {
        header.push("RELATIONSHIPS".into());
    }
    if show_source {
        header.push("SOURCE".into());
    }
    let cells = |node: &WalkNode| -> Vec<String> {
        let o = &inv.objects[node.obj];
        let mut name = format!("{}{}", kind_name(o), edge_label(node.edge, up));
        if node.cycle {
            name.push_str(" (cycle)");
        }
        let mut row = vec![o.id.namespace.to_string(), name, status(o), info(o)];
        if let Some(w) = &wide {
            row.push(w.cell(node));
        }
        if show_source {
            row.push(o.source.to_string());
        }
        // Names, statuses and sources come from manifests: escaped for the terminal.
        row.iter().map(|c| escape_line(c).into_owned()).collect()
    };
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    let mut guides = Guides::default();
    for node in entered(walk()) {
        let guide_width = guides.next(&node).chars().count();
        for (c, cell) in cells(&node).iter().enumerate() {
            let w = cell.chars().count() + if c == 1 { guide_width } else { 0 };
            widths[c] = widths[c].max(w);
        }
    }
    write_row(out, &widths, &header, "")?;
    let mut guides = Guides::default();
    for node in entered(walk()) {
        let g = guides.next(&node);
        write_row(out, &widths, &cells(&node), &g)?;
    }
    Ok(())
}

/// One aligned row; `guides` goes before the NAME cell.
fn write_row(
    out: &mut impl Write,
    widths: &[usize],
    row: &[String],
    guides: &str,
) -> std::io::Result<()> {
    let mut line = String::new();
    for (c, cell) in row.iter().enumerate() {
        let mut width = cell.chars().count();
        if c == 1 {
            line.push_str(guides);
            width += guides.chars().count();
        }
        line.push_str(cell);
        if c + 1 < row.len() {
            line.extend(std::iter::repeat_n(' ', widths[c] - width + 2));
        }
    }
    out.write_all(line.trim_end().as_bytes())?;
    out.write_all(b"\n")
}

/// One node as JSON with an empty `children` (spliced in by [`render_json`]).
fn node_json(inv: &Inventory, graph: &Graph, n: &WalkNode) -> Value {
    let o = &inv.objects[n.obj];
    let lc = crate::dataset::lifecycle(o);
    let edge = match n.edge {
        Some(EdgeKind::Owner {
            by_uid,
            controller,
            block_owner_deletion,
        }) => json!({"type": "owner", "byUid": by_uid, "controller": controller,
            "blockOwnerDeletion": block_owner_deletion}),
        Some(EdgeKind::Selector { via }) => json!({"type": "selector", "via": via}),
        Some(EdgeKind::Ref { rel }) => {
            let both = n.parent.map(|p| (p, n.obj));
            // The edge's own direction, whichever way the tree walks.
            let all = both
                .map(|(a, b)| {
                    let mut names = graph.relationships(a, b, false, false, true);
                    if names.is_empty() {
                        names = graph.relationships(b, a, false, false, true);
                    }
                    names
                })
                .unwrap_or_default();
            json!({"type": "reference", "relationship": rel, "relationships": all})
        }
        None => Value::Null,
    };
    json!({
        "object": o.id.to_string(),
        "apiVersion": &*o.api_version,
        "kind": &*o.id.kind,
        "namespace": &*o.id.namespace,
        "name": &*o.id.name,
        "source": o.source.to_string(),
        "status": status(o),
        "terminatingSince": lc.terminating_since.as_deref(),
        "deletionGracePeriodSeconds": lc.grace_period_seconds,
        "finalizers": lc.finalizers.iter().map(|f| json!({"name": &*f.name, "field": f.field, "explanation": f.explanation})).collect::<Vec<_>>(),
        "edge": edge,
        "cycle": n.cycle,
        "children": [],
    })
}

/// Where a node's pretty JSON opens its `children` array (keys are escaped strings, so this
/// text occurs only as the real key at the object's first level).
const CHILDREN_KEY: &str = "\n  \"children\": [";

/// Writes `text` with `indent` spaces after every newline.
fn write_indented(out: &mut impl Write, text: &str, indent: usize) -> std::io::Result<()> {
    let pad = " ".repeat(indent);
    let mut lines = text.split('\n');
    if let Some(first) = lines.next() {
        out.write_all(first.as_bytes())?;
    }
    for l in lines {
        out.write_all(b"\n")?;
        out.write_all(pad.as_bytes())?;
        out.write_all(l.as_bytes())?;
    }
    Ok(())
}

/// Writes the tree as nested JSON objects, pretty-printed as `serde_json::to_string_pretty`
/// would, as the walk goes and without recursion: each node's fields are serialized alone
/// and its children are written between them. Past [`MAX_DRAWN_DEPTH`] levels the
/// indentation stops growing (the JSON stays valid).
pub fn render_json(
    out: &mut impl Write,
    inv: &Inventory,
    graph: &Graph,
    walk: Walk<'_>,
) -> std::io::Result<()> {
    /// A node entered and not yet left: its indentation, whether a child was written, and
    /// what follows its children (`None` when it has none, so it was written whole).
    struct Open {
        indent: usize,
        any: bool,
        tail: Option<String>,
    }
    let max_indent = 2 + 4 * MAX_DRAWN_DEPTH;
    let mut stack: Vec<Open> = Vec::new();
    let mut roots = 0usize;
    for step in walk {
        let n = match step {
            WalkStep::Enter(n) => n,
            WalkStep::Leave => {
                if let Some(Open {
                    indent,
                    tail: Some(tail),
                    ..
                }) = stack.pop()
                {
                    out.write_all(b"\n")?;
                    out.write_all(" ".repeat(indent + 2).as_bytes())?;
                    out.write_all(b"]")?;
                    write_indented(out, &tail, indent)?;
                }
                continue;
            }
        };
        let indent = match stack.last_mut() {
            Some(parent) => {
                if parent.any {
                    out.write_all(b",")?;
                }
                parent.any = true;
                (parent.indent + 4).min(max_indent)
            }
            None => {
                out.write_all(if roots == 0 { b"[" } else { b"," })?;
                roots += 1;
                2
            }
        };
        out.write_all(b"\n")?;
        out.write_all(" ".repeat(indent).as_bytes())?;
        let text = serde_json::to_string_pretty(&node_json(inv, graph, &n))
            .map_err(std::io::Error::other)?;
        let tail = match text.find(CHILDREN_KEY) {
            Some(at) if n.has_children => {
                let split = at + CHILDREN_KEY.len();
                write_indented(out, &text[..split], indent)?;
                Some(text[split..].trim_start_matches(']').to_string())
            }
            _ => {
                write_indented(out, &text, indent)?;
                None
            }
        };
        stack.push(Open {
            indent,
            any: false,
            tail,
        });
    }
    out.write_all(if roots == 0 { b"[]\n" } else { b"\n]\n" })
}

pub fn run(args: TreeArgs) -> ExitCode {
    let data = match crate::cli::load_dataset(&args.paths, &args.render, &args.load) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("error: {}", crate::gocompat::escape::escape_terminal(&e));
            return ExitCode::from(1);
        }
    };
    let (inv, graph) = (&data.inventory, &data.graph);
    let ns = args.namespace.as_deref();
    let up = args.owners || args.reverse;
    let starts = if args.targets.is_empty() {
        let all = if up { graph.leaves() } else { graph.roots() };
        all.into_iter()
            .filter(|&i| ns.is_none_or(|ns| *inv.objects[i].id.namespace == *ns))
            .collect()
    } else {
        match resolve_targets(inv, &args.targets, ns) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("{e}");
                return ExitCode::from(1);
            }
        }
    };
    let opts = TreeOptions {
        direction: if up { Direction::Up } else { Direction::Down },
        selectors: args.selectors || args.all,
        owners: !args.refs || args.all,
        refs: args.refs || args.all,
        ..TreeOptions::default()
    };
    // Without targets, cycle members (which no root reaches) are shown too.
    let every = args.targets.is_empty() && !up && ns.is_none();
    let walk = || {
        if every {
            Walk::all(graph, &starts, &opts)
        } else {
            Walk::new(graph, &starts, &opts)
        }
    };
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let written = match args.output {
        TreeFormat::Text => render_text(&mut out, inv, walk, up, args.show_source, None),
        TreeFormat::Wide => {
            let wide = Relationships { graph, opts };
            render_text(&mut out, inv, walk, up, args.show_source, Some(wide))
        }
        TreeFormat::Json => render_json(&mut out, inv, graph, walk()),
    };
    match written.and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            eprintln!("kubesift: {e}");
            ExitCode::from(2)
        }
        _ => ExitCode::SUCCESS,
    }
}
