//! `kubesift tree`: owner → dependents trees like kubectl-tree / kube-lineage, offline.

use std::borrow::Cow;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use serde_json::{json, Value};

use super::{paths_or_cwd, LoadArgs};
use crate::dataset::{Dataset, EdgeKind};
use crate::dataset::{Direction, Tree, TreeOptions};
use crate::gocompat::escape::escape_line;
use crate::model::{Inventory, Object};

/// Output format of `tree`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TreeFormat {
    Text,
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
    /// Show file:line of each object.
    #[arg(long)]
    pub show_source: bool,
    /// Output format.
    #[arg(short = 'o', long = "output", value_enum, default_value_t = TreeFormat::Text)]
    pub output: TreeFormat,
    #[command(flatten)]
    pub load: LoadArgs,
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

/// The tree as aligned text rows (NAMESPACE, NAME, STATUS, INFO, and SOURCE if asked).
pub fn render_text(inv: &Inventory, tree: &Tree, up: bool, show_source: bool) -> String {
    let mut rows: Vec<Vec<String>> = vec![["NAMESPACE", "NAME", "STATUS", "INFO"]
        .iter()
        .map(|s| s.to_string())
        .collect()];
    if show_source {
        rows[0].push("SOURCE".into());
    }
    for i in tree.visible() {
        let Some(node) = tree.node(i) else { continue };
        let o = &inv.objects[node.obj];
        let mut name = format!(
            "{}{}{}",
            tree.guides(i),
            kind_name(o),
            edge_label(node.edge, up)
        );
        if node.cycle {
            name.push_str(" (cycle)");
        }
        let mut row = vec![o.id.namespace.to_string(), name, status(o), info(o)];
        if show_source {
            row.push(o.source.to_string());
        }
        rows.push(row);
    }
    align(&rows)
}

/// Columns padded to the widest cell plus two, cells escaped for the terminal first (names,
/// statuses and sources come from manifests).
fn align(rows: &[Vec<String>]) -> String {
    let rows: Vec<Vec<Cow<'_, str>>> = rows
        .iter()
        .map(|r| r.iter().map(|c| escape_line(c)).collect())
        .collect();
    let cols = rows.first().map_or(0, Vec::len);
    let widths: Vec<usize> = (0..cols)
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for r in &rows {
        let mut line = String::new();
        for (c, cell) in r.iter().enumerate() {
            line.push_str(cell);
            if c + 1 < cols {
                let pad = widths[c] - cell.chars().count() + 2;
                line.extend(std::iter::repeat_n(' ', pad));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// The tree as nested JSON objects.
pub fn render_json(inv: &Inventory, tree: &Tree) -> Value {
    fn node_json(inv: &Inventory, tree: &Tree, i: usize) -> Value {
        let Some(n) = tree.node(i) else {
            return Value::Null;
        };
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
            None => Value::Null,
        };
        let mut children = Vec::new();
        let mut c = i + 1;
        while c < n.end {
            children.push(node_json(inv, tree, c));
            c = tree.node(c).map_or(n.end, |cn| cn.end);
        }
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
            "children": children,
        })
    }
    let roots: Vec<Value> = (0..tree.len())
        .filter(|&i| tree.node(i).is_some_and(|n| n.parent.is_none()))
        .map(|i| node_json(inv, tree, i))
        .collect();
    Value::Array(roots)
}

pub fn run(args: TreeArgs) -> ExitCode {
    let data = Dataset::load(&paths_or_cwd(&args.paths), &args.load.options());
    let (inv, graph) = (&data.inventory, &data.graph);
    let ns = args.namespace.as_deref();
    let starts = if args.targets.is_empty() {
        let all = if args.owners {
            graph.leaves()
        } else {
            graph.roots()
        };
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
        direction: if args.owners {
            Direction::Up
        } else {
            Direction::Down
        },
        selectors: args.selectors,
        ..TreeOptions::default()
    };
    // Without targets, cycle members (which no root reaches) are shown too.
    let tree = if args.targets.is_empty() && !args.owners && ns.is_none() {
        Tree::build_all(graph, &starts, &opts)
    } else {
        Tree::build(graph, &starts, &opts)
    };
    let text = match args.output {
        TreeFormat::Text => render_text(inv, &tree, args.owners, args.show_source),
        TreeFormat::Json => {
            let mut s = serde_json::to_string_pretty(&render_json(inv, &tree)).unwrap_or_default();
            s.push('\n');
            s
        }
    };
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            eprintln!("kubesift: {e}");
            ExitCode::from(2)
        }
        _ => ExitCode::SUCCESS,
    }
}
