//! Rendering a selection as kubectl does: per-kind tables, `-o name`, `-o json|yaml`.

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::json;

use crate::model::Object;

use crate::gocompat::escape::escape_line;
use crate::kinds;
use crate::print::{format_labels, yaml, Table};
use crate::value::Raw;

/// Output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Table { wide: bool },
    Name,
    Json,
    Yaml,
}

impl Format {
    pub fn is_table(self) -> bool {
        matches!(self, Format::Table { .. })
    }
}

/// Everything rendering needs besides the objects.
#[derive(Clone, Debug)]
pub struct RenderOptions {
    pub format: Format,
    /// Add a NAMESPACE column for namespaced kinds (no `-n`).
    pub with_namespace: bool,
    pub label_columns: Vec<String>,
    pub show_labels: bool,
    pub no_headers: bool,
    /// Print a lone object rather than a `List` (`get TYPE/NAME`).
    pub single_item: bool,
    /// Always name rows `kind.group/name` (a watch over several kinds).
    pub kind_prefix: bool,
    pub now: DateTime<Utc>,
    /// The kinds of the load: a CRD's `additionalPrinterColumns` come from it.
    pub kinds: std::sync::Arc<kinds::KindRegistry>,
}

/// Renders the objects in the chosen format.
pub fn render(objects: &[&Object], opts: &RenderOptions) -> String {
    match opts.format {
        Format::Table { wide } => tables(objects, opts, wide),
        Format::Name => objects
            .iter()
            .map(|o| format!("{}\n", escape_line(&o.kubectl_name())))
            .collect(),
        Format::Json => to_json(&document(objects, opts.single_item)),
        Format::Yaml => yaml::to_string(document(objects, opts.single_item).view()),
    }
}

/// The object as the API server would return it: the manifest, with the effective
/// namespace filled in for namespaced kinds.
pub fn served(obj: &Object) -> Raw {
    if obj.namespaced && !obj.namespace_declared {
        let ns = Raw::string(obj.namespace());
        obj.raw.with_member("metadata", "namespace", ns.view())
    } else {
        obj.raw.clone()
    }
}

/// A `kind: List` of the objects, or the lone object.
fn document(objects: &[&Object], single: bool) -> Raw {
    if single && objects.len() == 1 {
        return served(objects[0]);
    }
    let items: Vec<Raw> = objects.iter().map(|o| served(o)).collect();
    let items = Raw::array(items.iter().map(Raw::view));
    let (v1, list) = (Raw::string("v1"), Raw::string("List"));
    let meta = Raw::from_value(&json!({"resourceVersion": ""}));
    Raw::object([
        ("apiVersion", v1.view()),
        ("items", items.view()),
        ("kind", list.view()),
        ("metadata", meta.view()),
    ])
}

/// `json.MarshalIndent(obj, "", "    ")`: four spaces, sorted keys, Go's HTML escaping.
pub fn to_json<T: Serialize + ?Sized>(v: &T) -> String {
    let mut buf = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(&mut buf, GoFormatter::new());
    if v.serialize(&mut ser).is_err() {
        return String::new();
    }
    buf.push(b'\n');
    String::from_utf8(buf).unwrap_or_default()
}

/// Pretty printer that escapes `<`, `>`, `&`, U+2028 and U+2029 as Go's encoder does.
struct GoFormatter<'a> {
    pretty: serde_json::ser::PrettyFormatter<'a>,
}

impl GoFormatter<'_> {
    fn new() -> Self {
        GoFormatter {
            pretty: serde_json::ser::PrettyFormatter::with_indent(b"    "),
        }
    }
}

macro_rules! delegate {
    ($($name:ident $(($arg:ident: $ty:ty))?),* $(,)?) => {$(
        fn $name<W: ?Sized + std::io::Write>(&mut self, w: &mut W $(, $arg: $ty)?) -> std::io::Result<()> {
            self.pretty.$name(w $(, $arg)?)
        }
    )*};
}

impl serde_json::ser::Formatter for GoFormatter<'_> {
    delegate!(
        begin_array,
        end_array,
        begin_array_value(first: bool),
        end_array_value,
        begin_object,
        end_object,
        begin_object_key(first: bool),
        begin_object_value,
        end_object_value,
    );

    fn write_string_fragment<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        let mut last = 0;
        for (i, c) in fragment.char_indices() {
            let esc = match c {
                '<' => "\\u003c",
                '>' => "\\u003e",
                '&' => "\\u0026",
                '\u{2028}' => "\\u2028",
                '\u{2029}' => "\\u2029",
                _ => continue,
            };
            w.write_all(&fragment.as_bytes()[last..i])?;
            w.write_all(esc.as_bytes())?;
            last = i + c.len_utf8();
        }
        w.write_all(&fragment.as_bytes()[last..])
    }
}

/// One table per run of objects of the same kind, separated by a blank line (none without
/// headers).
fn tables(objects: &[&Object], opts: &RenderOptions, wide: bool) -> String {
    tables_remembering(objects, opts, wide, &mut Vec::new(), None)
}

/// [`tables`] as a later flush of a watch's writer: the first kind's columns are no
/// narrower than `remembered` (which each kind's table then updates; a new kind starts
/// afresh, as kubectl forgets the widths between kinds); with `event`, kubectl's EVENT
/// column first (`--output-watch-events`).
pub fn tables_remembering(
    objects: &[&Object],
    opts: &RenderOptions,
    wide: bool,
    remembered: &mut Vec<usize>,
    event: Option<&str>,
) -> String {
    let with_kind = opts.kind_prefix || {
        let first = objects.first().map(|o| (&o.id.group, &o.id.kind));
        objects
            .iter()
            .any(|o| Some((&o.id.group, &o.id.kind)) != first)
    };
    let mut out = String::new();
    // kubectl's `ToPrinter` sets WithNamespace on print flags its copies share: once a
    // namespaced kind printed a NAMESPACE column, every later kind has one too (empty for
    // cluster-scoped objects), while a cluster-scoped kind printed first has none.
    let mut namespace_column = false;
    let mut start = 0;
    while start < objects.len() {
        let key = (&objects[start].id.group, &objects[start].id.kind);
        let end = objects[start..]
            .iter()
            .position(|o| (&o.id.group, &o.id.kind) != key)
            .map_or(objects.len(), |n| start + n);
        // kubectl separates kinds by a blank line only when it prints headers.
        if !out.is_empty() && !opts.no_headers {
            out.push('\n');
        }
        namespace_column |= opts.with_namespace && objects[start].namespaced;
        let mut table = one_table(
            &objects[start..end],
            opts,
            wide,
            with_kind,
            namespace_column,
        );
        if let Some(ev) = event {
            for (i, row) in table.rows.iter_mut().enumerate() {
                let cell = if i == 0 && !opts.no_headers {
                    "EVENT".to_string()
                } else {
                    event_cell(ev)
                };
                row.insert(0, cell);
            }
        }
        if start > 0 {
            remembered.clear();
        }
        out.push_str(&table.render_remembering(remembered));
        start = end;
    }
    out
}

/// cli-runtime's `formatEventType`: the event types padded to the width of the longest.
fn event_cell(ev: &str) -> String {
    format!("{ev:<8}")
}

fn one_table(
    objects: &[&Object],
    opts: &RenderOptions,
    wide: bool,
    with_kind: bool,
    with_ns: bool,
) -> Table {
    let first = objects[0];
    let kind_cols = kinds::column_headers(&opts.kinds, &first.id.group, first.kind(), wide);
    // Rendered objects name the kustomization (chart) folder they were built from.
    let with_target = wide && objects.iter().any(|o| o.source.target.is_some());
    let mut table = Table::default();
    if !opts.no_headers {
        let mut h: Vec<String> = Vec::new();
        if with_ns {
            h.push("NAMESPACE".into());
        }
        h.push("NAME".into());
        h.extend(kind_cols);
        if with_target {
            h.push("TARGET".into());
        }
        h.extend(opts.label_columns.iter().map(|k| label_header(k)));
        if opts.show_labels {
            h.push("LABELS".into());
        }
        table.rows.push(h);
    }
    for o in objects {
        let mut row: Vec<String> = Vec::new();
        if with_ns {
            // The API server drops a namespace written on a cluster-scoped object.
            row.push(if o.namespaced { o.namespace() } else { "" }.to_owned());
        }
        row.push(if with_kind {
            o.kubectl_name()
        } else {
            o.name().to_owned()
        });
        row.extend(kinds::column_cells(
            &opts.kinds,
            o.as_view(),
            wide,
            opts.now,
        ));
        if with_target {
            row.push(
                o.source
                    .target
                    .as_ref()
                    .map_or_else(String::new, |t| t.display().to_string()),
            );
        }
        row.extend(opts.label_columns.iter().map(|k| {
            o.labels()
                .get(k.as_str())
                .map(|v| v.to_string())
                .unwrap_or_default()
        }));
        if opts.show_labels {
            row.push(format_labels(o.labels()));
        }
        table.rows.push(row);
    }
    table
}

/// `-L app.kubernetes.io/name` → `NAME`.
pub fn label_header(key: &str) -> String {
    key.rsplit('/').next().unwrap_or(key).to_uppercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_json_escaping_and_indent() {
        let v = json!({"b": "<a&b>", "a": [1, {"x": null}]});
        assert_eq!(to_json(&Raw::from(&v)), to_json(&v));
        assert_eq!(
            to_json(&v),
            "{\n    \"a\": [\n        1,\n        {\n            \"x\": null\n        }\n    ],\n    \"b\": \"\\u003ca\\u0026b\\u003e\"\n}\n"
        );
    }

    #[test]
    fn label_headers() {
        assert_eq!(label_header("app.kubernetes.io/name"), "NAME");
        assert_eq!(label_header("tier"), "TIER");
    }
}
