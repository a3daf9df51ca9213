//! The `:` command line, as in k9s: a kind by any of kubectl's names (`:po`, `:deploy`,
//! `:certificates.cert-manager.io`, CRD kinds of the input), optionally a namespace
//! (`:svc shop`, `-n shop`, `-A`), `:all` for every kind, `:q` to quit. It sets the same
//! kind and namespace filters the pickers set; the header shows them as a breadcrumb.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap as HashMap;

use super::bar::Completion;
use super::line::LineInput;
use super::{Action, App, Mode};
use crate::dataset::Dataset;
use crate::kinds::KindInfo;

/// The open command line.
#[derive(Clone, Debug, Default)]
pub struct CommandState {
    pub line: LineInput,
    pub completion: Option<Completion>,
}

/// What a command line asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Command {
    Quit,
    /// Show `kind` (`None`: every kind) in `namespace` (`None`: keep the current one;
    /// `Some(None)`: every namespace).
    Show {
        kind: Option<String>,
        namespace: Option<Option<String>>,
    },
}

/// Parses a command line against the input's kinds; the error is what to tell the user.
fn parse(text: &str, data: &Dataset) -> Result<Option<Command>, String> {
    let mut words = text.split_whitespace();
    let Some(first) = words.next() else {
        return Ok(None);
    };
    if matches!(first, "q" | "q!" | "quit" | "qa") {
        return Ok(Some(Command::Quit));
    }
    let rest: Vec<&str> = words.collect();
    let (kind, namespaced) = if first.eq_ignore_ascii_case("all") {
        (None, true)
    } else {
        let found = data.inventory.kinds.resolve(first);
        let info = found
            .into_iter()
            .next()
            .ok_or_else(|| format!("the server doesn't have a resource type \"{first}\""))?;
        (Some(info.kind.to_string()), info.namespaced)
    };
    let namespace = match rest.as_slice() {
        [] => None,
        ["-A" | "--all-namespaces"] => Some(None),
        ["-n" | "--namespace", ns] => Some(Some(ns.to_string())),
        [ns] if !ns.starts_with('-') => Some(Some(ns.to_string())),
        [flag] => return Err(format!("unknown flag: {flag}")),
        _ => return Err(format!("too many arguments: {}", rest.join(" "))),
    };
    // A cluster-scoped kind has no namespace (kubectl ignores -n for it): show them all.
    let namespace = if namespaced { namespace } else { Some(None) };
    Ok(Some(Command::Show { kind, namespace }))
}

/// Tab candidates for the word before the cursor: kinds for the first word, namespaces
/// (and `-A`) for the second. Returns where the word starts.
fn candidates(before: &str, data: &Dataset) -> (usize, Vec<(String, u64)>) {
    let start = before.rfind(' ').map_or(0, |i| i + 1);
    let word = &before[start..];
    if before[..start].trim().is_empty() {
        return (start, kind_candidates(word, data));
    }
    let mut counts: BTreeMap<&str, u64> = BTreeMap::new();
    for o in &data.inventory.objects {
        if !o.id.namespace.is_empty() {
            *counts.entry(&o.id.namespace).or_insert(0) += 1;
        }
    }
    let mut items: Vec<(String, u64)> = counts
        .into_iter()
        .filter(|(ns, _)| ns.starts_with(word))
        .map(|(ns, n)| (ns.to_string(), n))
        .collect();
    if "-A".starts_with(word) && !word.is_empty() {
        items.push(("-A".into(), data.inventory.objects.len() as u64));
    }
    (start, items)
}

/// Kinds a word may name, each by the first of its names that starts with the word
/// (plural, singular, short names; `plural.group` once a `.` is typed), with the number of
/// objects of that kind. Kinds the input has come alone when any matches.
fn kind_candidates(word: &str, data: &Dataset) -> Vec<(String, u64)> {
    let lower = word.to_ascii_lowercase();
    let mut per_kind: HashMap<(&str, &str), u64> = HashMap::default();
    for o in &data.inventory.objects {
        *per_kind.entry((&o.id.group, &o.id.kind)).or_insert(0) += 1;
    }
    let name_of = |k: &KindInfo| -> Option<String> {
        if lower.contains('.') {
            let resource = k.resource();
            return resource.starts_with(&lower).then_some(resource);
        }
        std::iter::once(&k.plural)
            .chain(std::iter::once(&k.singular))
            .chain(k.short_names.iter())
            .find(|n| n.starts_with(&lower))
            .map(|n| n.to_string())
    };
    let mut items: Vec<(String, u64)> = Vec::new();
    for k in data.inventory.kinds.iter() {
        let Some(mut name) = name_of(k) else { continue };
        if items.iter().any(|(n, _)| *n == name) {
            name = k.resource();
        }
        let count = per_kind.get(&(&*k.group, &*k.kind)).copied().unwrap_or(0);
        items.push((name, count));
    }
    if items.iter().any(|(_, n)| *n > 0) {
        items.retain(|(_, n)| *n > 0);
    }
    items.sort();
    items.dedup_by(|a, b| a.0 == b.0);
    if "all".starts_with(&lower) {
        items.insert(0, ("all".into(), data.inventory.objects.len() as u64));
    }
    items
}

impl App {
    /// Opens the command line over the current view.
    pub(super) fn open_command(&mut self) {
        self.command = Some(CommandState::default());
        if self.mode != Mode::Command {
            self.under = self.mode;
        }
        self.mode = Mode::Command;
        self.status = None;
        self.relayout();
    }

    pub(super) fn command_action(&mut self, action: Action) {
        let Some(cmd) = self.command.as_mut() else {
            self.mode = self.under;
            return;
        };
        if let Some(changed) = cmd.line.edit(&action) {
            cmd.completion = None;
            if !changed && matches!(action, Action::Backspace) && cmd.line.text().is_empty() {
                // Backspace on an empty line closes it, as in vim.
                self.close_command();
            }
            return self.relayout();
        }
        match action {
            Action::Complete | Action::CompletePrev => {
                let forward = matches!(action, Action::Complete);
                if !cmd
                    .completion
                    .as_mut()
                    .is_some_and(|c| c.cycle(&mut cmd.line, forward))
                {
                    let before = &cmd.line.text()[..cmd.line.cursor()];
                    let (start, items) = candidates(before, &self.data);
                    cmd.completion = Completion::start(&mut cmd.line, start, items);
                }
            }
            Action::Back | Action::ClearBar => self.close_command(),
            Action::RunCommand | Action::LeaveBar => {
                let text = cmd.line.text().to_string();
                self.close_command();
                self.run_command(&text);
            }
            _ => self.dirty = false,
        }
        self.relayout();
    }

    fn close_command(&mut self) {
        self.command = None;
        self.mode = self.under;
    }

    /// Runs one command line (typed after `:`, or given with `--kind` / `-c`).
    pub(super) fn run_command(&mut self, text: &str) {
        match parse(text, &self.data) {
            Ok(None) => {}
            Ok(Some(Command::Quit)) => self.should_quit = true,
            Ok(Some(Command::Show { kind, namespace })) => {
                self.kind = kind;
                if let Some(ns) = namespace {
                    self.namespace = ns;
                }
                // The table shows the result, from whatever view the command came from.
                self.mode = Mode::Table;
                self.under = Mode::Table;
                // The columns follow the kind (its kubectl columns), then rows and counts.
                self.filters_changed();
            }
            Err(e) => self.status = Some(format!("error: {e}")),
        }
    }

    /// Runs the start-up command once the kind it names is known: at once for a built-in
    /// kind, else when loading is done (CRDs of the input register their kinds by then).
    pub(super) fn run_pending_command(&mut self) {
        let Some(text) = self.pending_command.clone() else {
            return;
        };
        if self.loading.is_some() && parse(&text, &self.data).is_err() {
            return;
        }
        self.pending_command = None;
        self.run_command(&text);
    }

    /// Where the table is: the kind's resource name (or `all`) › the namespace (or `all
    /// namespaces`), e.g. `deployments › shop`.
    pub fn breadcrumb(&self) -> String {
        let kind = match self.kind.as_deref() {
            None => "all".to_string(),
            Some(kind) => self
                .data
                .inventory
                .kinds
                .iter()
                .find(|k| *k.kind == *kind)
                .map_or_else(|| kind.to_ascii_lowercase(), |k| k.plural.to_string()),
        };
        let namespace = match self.namespace.as_deref() {
            None => "all namespaces",
            Some(ns) => super::picker::namespace_label(ns),
        };
        format!("{kind} › {namespace}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::load::parse_text;
    use std::path::Path;
    use std::sync::Arc;

    fn data() -> Dataset {
        let text = "\
apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: widgets.example.com}\nspec: {group: example.com, scope: Namespaced, names: {kind: Widget, plural: widgets, singular: widget, shortNames: [wd]}, versions: [{name: v1, storage: true}]}\n---
apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: shop}\n---
apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: shop}\n---
apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, namespace: ops}\n";
        let load = parse_text(&Arc::from(Path::new("x.yaml")), text);
        Dataset::new(crate::model::Inventory::build(vec![load], Vec::new()))
    }

    fn show(kind: Option<&str>, namespace: Option<Option<&str>>) -> Command {
        Command::Show {
            kind: kind.map(str::to_string),
            namespace: namespace.map(|n| n.map(str::to_string)),
        }
    }

    #[test]
    fn commands_take_kubectl_resource_names() {
        let d = data();
        let p = |t: &str| parse(t, &d);
        assert_eq!(p("po"), Ok(Some(show(Some("Pod"), None))));
        assert_eq!(
            p("deploy shop"),
            Ok(Some(show(Some("Deployment"), Some(Some("shop")))))
        );
        assert_eq!(
            p("svc -n ops"),
            Ok(Some(show(Some("Service"), Some(Some("ops")))))
        );
        assert_eq!(p("pods -A"), Ok(Some(show(Some("Pod"), Some(None)))));
        assert_eq!(
            p("deployments.apps"),
            Ok(Some(show(Some("Deployment"), None)))
        );
        assert_eq!(
            p("wd"),
            Ok(Some(show(Some("Widget"), None))),
            "CRD short name"
        );
        assert_eq!(
            p("widgets.example.com"),
            Ok(Some(show(Some("Widget"), None)))
        );
        assert_eq!(
            p("ns shop"),
            Ok(Some(show(Some("Namespace"), Some(None)))),
            "cluster-scoped: every namespace"
        );
        assert_eq!(
            p("crd"),
            Ok(Some(show(Some("CustomResourceDefinition"), Some(None))))
        );
        assert_eq!(p("all"), Ok(Some(show(None, None))));
        assert_eq!(p("q"), Ok(Some(Command::Quit)));
        assert_eq!(p("  "), Ok(None));
        assert_eq!(
            p("nope"),
            Err("the server doesn't have a resource type \"nope\"".into())
        );
        assert_eq!(p("po a b"), Err("too many arguments: a b".into()));
    }

    #[test]
    fn tab_offers_the_input_kinds_then_namespaces() {
        let d = data();
        let (start, items) = candidates("de", &d);
        assert_eq!((start, items), (0, vec![("deployments".to_string(), 1)]));
        let (_, items) = candidates("w", &d);
        assert_eq!(items, [("widgets".to_string(), 1)]);
        let (_, items) = candidates("p", &d);
        assert_eq!(items, [("pods".to_string(), 1)], "only kinds the input has");
        let (_, items) = candidates("zz", &d);
        assert!(items.is_empty());
        let (start, items) = candidates("po s", &d);
        assert_eq!((start, items), (3, vec![("shop".to_string(), 2)]));
        let (_, items) = candidates("po ", &d);
        assert_eq!(items.len(), 2, "{items:?}");
    }
}
