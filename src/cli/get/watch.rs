//! `kubesift get -w`: the current list, then one line per change, as kubectl's filtered
//! watch reports it — an object that stops matching is `DELETED` (printed as it was), one
//! that starts matching is `ADDED`.

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use super::filter::Filters;
use super::output::{render, tables_remembering, to_json, Format, RenderOptions};
use super::request::Requests;
use crate::dataset::delta::all_added;
use crate::dataset::{ChangeData, Delta, DeltaKind, Event, Follow};
use crate::diagnostic::Diagnostic;
use crate::gocompat::escape::{escape_line, escape_terminal};
use crate::model::{Object, ObjectId};
use crate::print::yaml;
use crate::value::Raw;

/// Prints watch output for one command line.
pub struct WatchPrinter<'a> {
    pub requests: &'a Requests,
    pub query: &'a Filters,
    pub opts: RenderOptions,
    pub events: bool,
    /// What the watcher has shown and not deleted, as last shown.
    shown: HashMap<ObjectId, Object>,
    first: bool,
    /// Column widths of the table lines printed so far (one tabwriter for the whole watch).
    remembered: Vec<usize>,
}

impl<'a> WatchPrinter<'a> {
    pub fn new(
        requests: &'a Requests,
        query: &'a Filters,
        opts: RenderOptions,
        events: bool,
    ) -> Self {
        WatchPrinter {
            requests,
            query,
            opts,
            events,
            shown: HashMap::new(),
            first: true,
            remembered: Vec::new(),
        }
    }

    fn wanted(&self, o: &Object) -> bool {
        let kind_ok = self.requests.all_kinds
            || self.requests.list.iter().any(|r| {
                r.group == o.id.group
                    && r.kind == o.id.kind
                    && (r.names.is_empty() || r.names.iter().any(|n| n == o.name()))
            });
        kind_ok && self.query.supports(o) && self.query.matches(o)
    }

    /// Turns one batch of file deltas into the filtered watch's events, in order.
    pub fn events_of(&mut self, deltas: &[Delta]) -> Vec<(DeltaKind, Object)> {
        let mut out = Vec::new();
        for d in deltas {
            let now = d.object.as_ref().filter(|o| self.wanted(o));
            match (now, self.shown.get(&d.id)) {
                (Some(o), prev) => {
                    let kind = if prev.is_some() {
                        DeltaKind::Modified
                    } else {
                        DeltaKind::Added
                    };
                    out.push((kind, o.clone()));
                }
                (None, Some(prev)) => out.push((DeltaKind::Deleted, prev.clone())),
                (None, None) => {}
            }
        }
        for (kind, o) in &out {
            if *kind == DeltaKind::Deleted {
                self.shown.remove(&o.id);
            } else {
                self.shown.insert(o.id.clone(), o.clone());
            }
        }
        out
    }

    /// Renders one batch; the first batch is the initial list (with the table header).
    pub fn render_batch(&mut self, deltas: &[Delta]) -> String {
        let mut events = self.events_of(deltas);
        let first = std::mem::replace(&mut self.first, false);
        if first {
            events.sort_by(|a, b| {
                (&a.1.id.group, &a.1.id.kind, &a.1.id.namespace, &a.1.id.name).cmp(&(
                    &b.1.id.group,
                    &b.1.id.kind,
                    &b.1.id.namespace,
                    &b.1.id.name,
                ))
            });
        }
        if let (true, Format::Table { wide }) = (first && !events.is_empty(), self.opts.format) {
            let objects: Vec<&Object> = events.iter().map(|(_, o)| o).collect();
            let ev = self.events.then_some(DeltaKind::Added.as_str());
            return tables_remembering(&objects, &self.opts, wide, &mut self.remembered, ev);
        }
        events
            .iter()
            .map(|(kind, o)| self.render_one(*kind, o))
            .collect()
    }

    fn render_one(&mut self, kind: DeltaKind, o: &Object) -> String {
        let mut opts = self.opts.clone();
        opts.no_headers = true;
        opts.single_item = true;
        let ev = kind.as_str();
        match opts.format {
            Format::Table { wide } => {
                let ev = self.events.then_some(ev);
                tables_remembering(&[o], &opts, wide, &mut self.remembered, ev)
            }
            Format::Name if self.events => {
                format!("{ev} {}\n", escape_line(&o.kubectl_name()))
            }
            Format::Name => format!("{}\n", escape_line(&o.kubectl_name())),
            Format::Json if self.events => to_json(&event(ev, o)),
            Format::Json => render(&[o], &opts),
            Format::Yaml => {
                let v = if self.events {
                    event(ev, o)
                } else {
                    super::output::served(o)
                };
                format!("---\n{}", yaml::to_string(v.view()))
            }
        }
    }
}

/// A watch event `{"object": …, "type": ev}` (keys sorted, as kubectl prints them).
fn event(ev: &str, o: &Object) -> Raw {
    let object = super::output::served(o);
    let ty = Raw::string(ev);
    Raw::object([("object", object.view()), ("type", ty.view())])
}

/// Runs the watch until SIGINT/SIGTERM; returns when stopped.
pub fn run(
    paths: &[std::path::PathBuf],
    load: &crate::model::load::LoadOptions,
    poll: bool,
    render: &crate::dataset::RenderRequest,
    printer: WatchPrinter<'_>,
) -> anyhow::Result<()> {
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(sig, Arc::clone(&stop))?;
    }
    let config = Follow {
        paths: paths.to_vec(),
        opts: load.clone(),
        poll,
        pacing: None,
        link: false,
        watch: true,
        render: render.clone(),
    };
    let printer = Mutex::new(printer);
    let print = |deltas: &[Delta]| {
        let text = match printer.lock() {
            Ok(mut p) => p.render_batch(deltas),
            Err(_) => return false,
        };
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(text.as_bytes());
        let _ = out.flush();
        true
    };
    // Problems already shown: a batch prints the ones that are new (a file that broke, its
    // stale objects), each once while it lasts.
    let shown = Mutex::new(ProblemsShown::default());
    let send = |event: Event| match event {
        // The initial list, every object ADDED (as `kubectl get -w --output-watch-events`).
        // Its problems were printed by the load that resolved the kinds.
        Event::Loaded(data) => {
            if let Ok(mut s) = shown.lock() {
                s.update(&data.inventory.problems);
            }
            print(&all_added(&data.inventory.objects))
        }
        Event::Changed(change) => {
            let problems = match &change.data {
                ChangeData::Full(data) => &data.inventory.problems,
                ChangeData::Patch(patch) => &patch.problems,
            };
            if let Ok(mut s) = shown.lock() {
                let mut err = std::io::BufWriter::new(std::io::stderr().lock());
                for p in s.update(problems) {
                    let _ = writeln!(err, "{p}");
                }
            }
            print(&change.deltas)
        }
        Event::Notice(msg) => {
            eprintln!("warning: {}", escape_terminal(&msg));
            true
        }
        // (`get -w` loads without pacing: its table comes indexed.)
        Event::Progress { .. }
        | Event::Partial(_)
        | Event::Indexed(_)
        | Event::Linked(_)
        | Event::Rendering { .. } => true,
    };
    crate::dataset::follow(&config, &send, &stop)?;
    Ok(())
}

/// The problems of the last state shown, by their printed line.
#[derive(Default)]
struct ProblemsShown {
    lines: HashSet<String>,
}

impl ProblemsShown {
    /// Takes `problems` as the current state; returns the lines not in the previous one.
    fn update(&mut self, problems: &[Diagnostic]) -> Vec<String> {
        let mut now = HashSet::with_capacity(problems.len());
        let mut new = Vec::new();
        for line in problems.iter().map(|p| p.to_string()) {
            if !self.lines.contains(&line) && !now.contains(&line) {
                new.push(line.clone());
            }
            now.insert(line);
        }
        self.lines = now;
        new
    }
}
