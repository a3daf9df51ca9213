//! A one-file edit, in memory: one file's text with one object changed is parsed, applied
//! to a [`LiveSet`] as the watcher applies a re-read file, and the UI applies the patch to its
//! data exactly as for a watched batch (objects spliced, label index and graph patched,
//! table refreshed) and draws. Nothing is written to disk.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use ratatui::backend::TestBackend;
use ratatui::Terminal;
use serde_json::Value;

use super::{HEIGHT, WIDTH};
use crate::app::{Action, App};
use crate::dataset::{Change, ChangeData, Dataset, DeltaKind, LiveSet, PatchOutcome};
use crate::diagnostic::Severity;
use crate::model::load::{parse_text, FileLoad};
use crate::model::Object;

/// Times edits are applied (each a different value); medians are reported.
const ROUNDS: usize = 5;

/// Annotation the in-memory edit sets.
const ANNOTATION: &str = "kubesift.dev/bench-edit";

/// The label the `label` shape changes: the generated corpora's Services and workloads
/// select by it, so memberships change.
const LABEL: &str = "app.kubernetes.io/name";

/// What the one-file edit changes (`bench --edit-shape`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Shape {
    /// An annotation of the file's first object.
    #[default]
    Annotation,
    /// `app.kubernetes.io/name` of the file's first Pod (or first object).
    Label,
    /// One more object (a renamed copy of the first) at the end of the file per round.
    Add,
    /// One object fewer per round: the file's last object taken out (positions move down).
    Remove,
    /// Every object of the file taken out (as when it is deleted), put back between the
    /// measured rounds (which are the emptying ones).
    Empty,
    /// Every object of the file put back after it was emptied (as when a deleted file is
    /// checked out again); emptied between the measured rounds (which are the restoring
    /// ones).
    Restore,
}

/// Median cost of each step of a one-file edit.
#[derive(Clone, Debug, Default)]
pub struct DeltaReport {
    /// The first edited file, and how many files each edit changed (one batch).
    pub file: PathBuf,
    pub files: usize,
    pub shape: Shape,
    pub file_objects: usize,
    pub file_bytes: usize,
    pub parse: Duration,
    /// `LiveSet::apply_loads`: snapshot patch and per-identity deltas.
    pub apply: Duration,
    /// Building the change the UI gets (the splices, problems, stale marks).
    pub handoff: Duration,
    /// Inside the UI's update: `LabelIndex::splice` and `Graph::patch`.
    pub index: Duration,
    pub graph: Duration,
    /// Inside the UI's update: rebuilding the problem rows, and sorting and filtering the
    /// table's rows.
    pub problems: Duration,
    pub table: Duration,
    /// What the graph patch did (`patched 1 namespace(s) over N objects` or why it rebuilt).
    pub graph_outcome: String,
    /// `App::update(Changed)` (index and graph included) and one draw.
    pub frame: Duration,
    /// Median of the per-round sums.
    pub total: Duration,
    /// Deltas of the last round (1 MODIFIED expected).
    pub deltas: usize,
    pub modified: usize,
    /// Why nothing was measured, if so.
    pub skipped: Option<String>,
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

/// `raw` with `key` of its metadata's `map` (annotations or labels) set to `value`.
fn edited(raw: &Value, map: &str, key: &str, value: &str) -> Option<Value> {
    let mut v = raw.clone();
    let meta = v.get_mut("metadata")?.as_object_mut()?;
    let m = meta
        .entry(map)
        .or_insert_with(|| Value::Object(serde_json::Map::new()));
    if !m.is_object() {
        *m = Value::Object(serde_json::Map::new());
    }
    m.as_object_mut()?
        .insert(key.into(), Value::String(value.into()));
    Some(v)
}

/// `raw` renamed `NAME-bench-N`, without uid (a copy that owns nothing).
fn copy_named(raw: &Value, n: usize) -> Option<Value> {
    let mut v = raw.clone();
    let meta = v.get_mut("metadata")?.as_object_mut()?;
    let name = meta.get("name")?.as_str()?.to_owned();
    meta.insert("name".into(), Value::String(format!("{name}-bench-{n}")));
    meta.remove("uid");
    Some(v)
}

/// The file's text changed for round `round` of `shape` (see [`Shape`]), as a person or a
/// tool would change it: the edited object's own span replaced by the edited object as
/// one-line JSON (valid YAML too), the copies of `add` appended as YAML documents, the text
/// of `remove` cut before its last objects. Each is checked to re-parse to the objects
/// meant (a `kind: List`'s items, say, cannot be cut off); otherwise the whole file is
/// written as JSON documents.
fn edit_text(path: &Arc<Path>, text: &str, shape: Shape, round: usize) -> Option<String> {
    let original = parse_text(path, text);
    let objects = &original.objects;
    let (at, map, key) = match shape {
        Shape::Annotation => (0, "annotations", ANNOTATION),
        Shape::Label => {
            let pod = objects.iter().position(|o| &*o.id.kind == "Pod");
            (pod.unwrap_or(0), "labels", LABEL)
        }
        Shape::Add => {
            let first = objects.first()?.raw.to_value();
            let copies = (0..=round)
                .map(|n| copy_named(&first, n))
                .collect::<Option<Vec<Value>>>()?;
            let mut yaml = text.to_owned();
            if !yaml.is_empty() && !yaml.ends_with('\n') {
                yaml.push('\n');
            }
            for copy in &copies {
                yaml.push_str("---\n");
                yaml.push_str(&serde_yaml::to_string(copy).ok()?);
            }
            if reparses_to(path, &yaml, &original, objects.len() + copies.len()) {
                return Some(yaml);
            }
            let copies = copies
                .iter()
                .map(|c| serde_json::to_string(c).ok())
                .collect::<Option<Vec<String>>>()?;
            return json_documents(objects, None, &copies);
        }
        Shape::Remove => {
            let keep = objects.len().checked_sub(round + 1).filter(|&k| k > 0)?;
            let cut = objects[keep].source.start;
            if let Some(head) = text.get(..cut) {
                // Without the separator of the first document taken out.
                let head = head.trim_end();
                let head = match head.strip_suffix("---") {
                    Some(h) if h.is_empty() || h.ends_with('\n') => h,
                    _ => head,
                };
                let head = format!("{}\n", head.trim_end());
                if reparses_to(path, &head, &original, keep) {
                    return Some(head);
                }
            }
            return json_documents(&objects[..keep], None, &[]);
        }
        Shape::Empty | Shape::Restore => {
            // Emptied on even rounds, put back on odd ones.
            return Some(if round % 2 == 0 {
                String::new()
            } else {
                text.to_owned()
            });
        }
    };
    let target = objects.get(at)?;
    let value = format!("edit-{round}");
    let new = serde_json::to_string(&edited(&target.raw.to_value(), map, key, &value)?).ok()?;
    let (s, e) = (target.source.start, target.source.end);
    if s < e && e <= text.len() && text.is_char_boundary(s) && text.is_char_boundary(e) {
        let candidate = format!("{}{}\n{}", &text[..s], new, &text[e..]);
        if reparses_to(path, &candidate, &original, objects.len()) {
            return Some(candidate);
        }
    }
    json_documents(objects, Some((at, &new)), &[])
}

/// Whether `text` parses to `objects` objects with as many problems of each severity as
/// `original` had (a list cut after an item's dash parses, with a note on its null item).
fn reparses_to(path: &Arc<Path>, text: &str, original: &FileLoad, objects: usize) -> bool {
    let problems = |l: &FileLoad| {
        [Severity::Error, Severity::Warning, Severity::Note]
            .map(|s| l.problems.iter().filter(|p| p.severity == s).count())
    };
    let check = parse_text(path, text);
    check.objects.len() == objects && problems(&check) == problems(original)
}

/// Whether round `round` of `shape` is measured: every round but the restoring ones of
/// [`Shape::Empty`] and the emptying ones of [`Shape::Restore`].
fn measured(shape: Shape, round: usize) -> bool {
    match shape {
        Shape::Empty => round % 2 == 0,
        Shape::Restore => round % 2 == 1,
        _ => true,
    }
}

/// `objects` as `---`-separated one-line JSON documents, the one at `replace.0` written as
/// `replace.1`, then the `extra` documents.
fn json_documents(
    objects: &[Object],
    replace: Option<(usize, &str)>,
    extra: &[String],
) -> Option<String> {
    let mut out = String::new();
    for (i, o) in objects.iter().enumerate() {
        out.push_str("---\n");
        match replace {
            Some((at, doc)) if at == i => out.push_str(doc),
            _ => out.push_str(&serde_json::to_string(&o.raw).ok()?),
        }
        out.push('\n');
    }
    for doc in extra {
        out.push_str("---\n");
        out.push_str(doc);
        out.push('\n');
    }
    Some(out)
}

/// The first object loaded from the file `p` names under another spelling (relative,
/// through a symlink). A file's objects are contiguous: each file is resolved once.
fn loaded_as<'a>(objects: &'a [Object], p: &Path) -> Option<&'a Object> {
    let wanted = std::fs::canonicalize(p).ok()?;
    let mut last: Option<&Path> = None;
    objects.iter().find(|o| {
        let path: &Path = &o.source.path;
        if last == Some(path) {
            return false;
        }
        last = Some(path);
        std::fs::canonicalize(path).is_ok_and(|c| c == wanted)
    })
}

/// The loaded paths of `files` files, the one holding `target` and those after it in
/// load order (a file's objects are contiguous).
fn files_from(objects: &[Object], target: &Object, files: usize) -> Vec<Arc<Path>> {
    let start = objects
        .iter()
        .position(|o| std::ptr::eq(o, target))
        .unwrap_or_default();
    let mut paths: Vec<Arc<Path>> = Vec::with_capacity(files);
    for o in &objects[start..] {
        if paths.last().is_some_and(|p| *p == o.source.path) {
            continue;
        }
        if paths.len() == files {
            break;
        }
        paths.push(Arc::clone(&o.source.path));
    }
    paths
}

/// Runs [`ROUNDS`] edits of file `edit` (default: the file holding the middle object) and
/// the `files - 1` files after it (each edited alike, applied as one batch, as the watcher
/// applies files saved together); `app` is the UI state after typing (its query stays
/// active while the table is refreshed).
pub fn measure(
    mut live: LiveSet,
    mut app: App,
    (edit, files): (Option<&Path>, usize),
    shape: Shape,
) -> DeltaReport {
    let mut report = DeltaReport::default();
    let objects = &live.inventory().objects;
    let target = match edit {
        // The loaded path of that file (as given, or canonical).
        Some(p) => objects
            .iter()
            .find(|o| *o.source.path == *p)
            .or_else(|| loaded_as(objects, p)),
        None => objects.get(objects.len() / 2),
    };
    let Some(target) = target else {
        report.skipped = Some(match edit {
            Some(p) => format!("{}: no loaded object comes from it", p.display()),
            None => "no objects".into(),
        });
        return report;
    };
    let mut texts: Vec<(Arc<Path>, String)> = Vec::new();
    for path in files_from(objects, target, files.max(1)) {
        match std::fs::read_to_string(&path) {
            Ok(t) => texts.push((path, t)),
            Err(e) => {
                report.skipped = Some(format!("cannot read {}: {e}", path.display()));
                return report;
            }
        }
    }
    report.file = texts[0].0.to_path_buf();
    report.files = texts.len();
    report.shape = shape;
    report.file_bytes = texts.iter().map(|(_, t)| t.len()).sum();
    let Ok(mut terminal) = Terminal::new(TestBackend::new(WIDTH, HEIGHT));
    // The UI's data is the live set's snapshot (as the watcher hands it over after loading);
    // the bar's query typed before stays.
    app.update(Action::Loaded(Box::new(Dataset::new(
        live.inventory().clone(),
    ))));
    let mut steps: [Vec<Duration>; 9] = Default::default();
    let rounds = match shape {
        Shape::Empty => 2 * ROUNDS - 1,
        Shape::Restore => 2 * ROUNDS,
        _ => ROUNDS,
    };
    for round in 0..rounds {
        let mut new_texts = Vec::with_capacity(texts.len());
        for (path, text) in &texts {
            let Some(new_text) = edit_text(path, text, shape, round) else {
                report.skipped = Some(format!("{}: no object to edit", path.display()));
                return report;
            };
            new_texts.push((path, new_text));
        }
        let t = Instant::now();
        let loads: Vec<FileLoad> = new_texts
            .iter()
            .map(|(path, new_text)| {
                let mut load = parse_text(path, new_text);
                load.bytes = new_text.len() as u64;
                load
            })
            .collect();
        let parse = t.elapsed();
        if measured(shape, round) {
            report.file_objects = loads.iter().map(|l| l.objects.len()).sum();
        }
        let t = Instant::now();
        let before = Change::signature(&live);
        let batch = new_texts.iter().map(|(path, _)| &***path).zip(loads);
        let deltas = live.apply_loads(batch.collect());
        let apply = t.elapsed();
        report.deltas = deltas.len();
        report.modified = deltas
            .iter()
            .filter(|d| d.kind == DeltaKind::Modified)
            .count();
        // The change exactly as the data layer hands a watched batch over.
        let t = Instant::now();
        let change = Change::of(&mut live, deltas, before, 0);
        let Some(change) = change.filter(|c| matches!(c.data, ChangeData::Patch(_))) else {
            report.skipped = Some("the live set rebuilt instead of patching".into());
            return report;
        };
        let handoff = t.elapsed();
        let t = Instant::now();
        // The UI's own path for a watched batch (selection and bar kept, rows flash).
        app.update(Action::Changed(Box::new(change)));
        let Ok(_) = terminal.draw(|f| crate::ui::draw(&app, f));
        let frame = t.elapsed();
        let Some(patch) = app.last_patch.clone() else {
            report.skipped = Some("the UI did not patch its data".into());
            return report;
        };
        let (index_time, graph_time) = (patch.index, patch.graph);
        report.graph_outcome = match patch.outcome {
            PatchOutcome::Patched { objects, looked_at } => {
                format!("patched: recomputed {objects} object(s), looked at {looked_at}")
            }
            PatchOutcome::Rebuilt(why) => format!("rebuilt: {why}"),
        };
        if !measured(shape, round) {
            continue;
        }
        let cost = app.last_apply;
        let parts = [
            parse,
            apply,
            handoff,
            index_time,
            graph_time,
            cost.problems,
            cost.table,
            frame,
        ];
        for (v, d) in steps.iter_mut().zip(parts) {
            v.push(d);
        }
        // Index, graph, problems and table are inside the frame step.
        steps[8].push(parse + apply + handoff + frame);
    }
    let [parse, apply, handoff, index, graph, problems, table, frame, total] = steps.map(median);
    DeltaReport {
        parse,
        apply,
        handoff,
        index,
        graph,
        problems,
        table,
        frame,
        total,
        ..report
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const THREE: &str = "# three ConfigMaps\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: x\ndata:\n  k: v\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  namespace: x\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: x\n";

    fn names(path: &Arc<Path>, text: &str) -> Vec<String> {
        let load = parse_text(path, text);
        assert!(load.problems.is_empty(), "{:?}", load.problems);
        load.objects.iter().map(|o| o.id.name.to_string()).collect()
    }

    #[test]
    fn add_appends_yaml_documents_to_the_text() {
        let path: Arc<Path> = Arc::from(Path::new("x/three.yaml"));
        let text = edit_text(&path, THREE, Shape::Add, 1).expect("an edit");
        let added = text
            .strip_prefix(THREE)
            .expect("the file's text kept as it was");
        // YAML as a person writes it (block style), not one-line JSON.
        assert!(
            added.contains("\nmetadata:\n  name: a-bench-1\n"),
            "{added}"
        );
        assert!(!added.contains('{'), "{added}");
        assert_eq!(
            names(&path, &text),
            ["a", "b", "c", "a-bench-0", "a-bench-1"]
        );
    }

    #[test]
    fn remove_cuts_the_text_before_the_last_objects() {
        let path: Arc<Path> = Arc::from(Path::new("x/three.yaml"));
        let text = edit_text(&path, THREE, Shape::Remove, 0).expect("an edit");
        assert!(THREE.starts_with(text.trim_end()), "{text}");
        assert!(!text.trim_end().ends_with("---"), "{text}");
        assert_eq!(names(&path, &text), ["a", "b"]);
        let text = edit_text(&path, THREE, Shape::Remove, 1).expect("an edit");
        assert_eq!(names(&path, &text), ["a"]);
        // The last object is never taken out.
        assert_eq!(edit_text(&path, THREE, Shape::Remove, 2), None);
    }

    #[test]
    fn a_lists_items_are_taken_out_as_json_documents() {
        let path: Arc<Path> = Arc::from(Path::new("x/list.yaml"));
        let list = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n    namespace: x\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: b\n    namespace: x\n";
        let text = edit_text(&path, list, Shape::Remove, 0).expect("an edit");
        assert!(text.starts_with("---\n{"), "{text}");
        assert_eq!(names(&path, &text), ["a"]);
    }
}
