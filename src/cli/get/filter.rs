//! Which objects a `get` prints, in which order: kinds in request order, objects by
//! namespace then name (the API server's list order), or by `--sort-by`.

use std::cmp::Ordering;
use std::collections::HashMap;

use super::request::Requests;
use crate::gocompat::quote::Quoted;
use crate::model::fields::{check_field, field_value};
use crate::model::{Inventory, Object};
use crate::print::jsonpath;
use crate::selector::{parse_fields, parse_labels, FieldSelector, Selector};

/// The filters of one command line.
#[derive(Debug, Default)]
pub struct Filters {
    pub labels: Option<Selector>,
    pub fields: Option<FieldSelector>,
    pub namespace: Option<String>,
    /// The selectors as typed: kubectl quotes them back in its list errors.
    label_text: String,
    field_text: String,
}

impl Filters {
    /// Parses both selectors; the error is apimachinery's message.
    pub fn new(
        labels: Option<&str>,
        fields: Option<&str>,
        ns: Option<&str>,
    ) -> Result<Self, String> {
        Ok(Filters {
            labels: labels
                .map(parse_labels)
                .transpose()
                .map_err(|e| e.to_string())?,
            fields: fields
                .map(parse_fields)
                .transpose()
                .map_err(|e| e.to_string())?,
            namespace: ns.map(str::to_owned),
            label_text: labels.unwrap_or_default().to_owned(),
            field_text: fields.unwrap_or_default().to_owned(),
        })
    }

    /// The line kubectl prints when the API server refuses to list one kind for this
    /// field selector (cli-runtime `EnhanceListError` over the server's BadRequest):
    /// `Error from server (BadRequest): Unable to find "apps/v1, Resource=deployments"
    /// that match label selector "", field selector "x=y": <message>`.
    fn list_error(&self, inv: &Inventory, group: &str, kind: &str, message: &str) -> String {
        let (version, plural) = match inv.kinds.get(group, kind) {
            Some(k) => (k.version.to_string(), k.plural.to_string()),
            None => (String::new(), crate::kinds::guess_plural(kind)),
        };
        // `schema.GroupVersionResource.String()`.
        let gvr = format!("{group}/{version}, Resource={plural}");
        format!(
            "Error from server (BadRequest): Unable to find {} that match label selector {}, field selector {}: {message}",
            Quoted(&gvr),
            Quoted(&self.label_text),
            Quoted(&self.field_text)
        )
    }

    /// Field requirements must be supported by the kind, as the API server checks.
    fn check_kind(&self, group: &str, kind: &str) -> Result<(), String> {
        let Some(fs) = &self.fields else {
            return Ok(());
        };
        fs.requirements()
            .iter()
            .try_for_each(|r| check_field(group, kind, &r.field))
    }

    /// Whether the field selector can be applied to this object's kind.
    pub fn supports(&self, obj: &Object) -> bool {
        self.check_kind(&obj.id.group, &obj.id.kind).is_ok()
    }

    /// Whether one object passes the namespace, label and field filters.
    pub fn matches(&self, obj: &Object) -> bool {
        if let Some(ns) = &self.namespace {
            if obj.namespaced && &*obj.id.namespace != ns.as_str() {
                return false;
            }
        }
        if let Some(sel) = &self.labels {
            if !sel.matches(&obj.labels()) {
                return false;
            }
        }
        match &self.fields {
            Some(fs) => fs.matches(&|f: &str| Some(field_value(obj, f))),
            None => true,
        }
    }
}

/// The objects to print (indices into `inv.objects`) and the names asked for but absent.
#[derive(Debug, Default)]
pub struct Selection {
    pub objects: Vec<usize>,
    /// kubectl's wording: `pods "x" not found`.
    pub not_found: Vec<String>,
    /// One line per kind the API server would refuse to list for the field selector, in
    /// request order: kubectl prints the other kinds and these errors, and exits 1.
    pub refused: Vec<String>,
}

/// Applies requests and filters, then orders the result.
pub fn select(
    inv: &Inventory,
    reqs: &Requests,
    query: &Filters,
    sort_by: Option<&str>,
) -> Result<Selection, String> {
    let mut sel = Selection::default();
    if reqs.all_kinds {
        (sel.objects, sel.refused) = all_kinds(inv, query);
    } else {
        for req in &reqs.list {
            if let Err(e) = query.check_kind(&req.group, &req.kind) {
                let line = query.list_error(inv, &req.group, &req.kind, &e);
                if !sel.refused.contains(&line) {
                    sel.refused.push(line);
                }
                continue;
            }
            let mut found: Vec<usize> = (0..inv.objects.len())
                .filter(|&i| {
                    let o = &inv.objects[i];
                    o.id.group == req.group && o.id.kind == req.kind && query.matches(o)
                })
                .collect();
            if !req.names.is_empty() {
                found.retain(|&i| req.names.iter().any(|n| n == inv.objects[i].name()));
                for n in &req.names {
                    if !found.iter().any(|&i| inv.objects[i].name() == n) {
                        sel.not_found
                            .push(format!("{} {n:?} not found", req.resource));
                    }
                }
            }
            found.sort_by(|&a, &b| server_order(&inv.objects[a], &inv.objects[b]));
            sel.objects.extend(found);
        }
    }
    // kubectl's RuntimeSorter returns early for 0 or 1 objects, before reading the path.
    if let Some(expr) = sort_by.filter(|_| sel.objects.len() > 1) {
        let steps = jsonpath::parse(expr)?;
        sel.objects.sort_by(|&a, &b| {
            let va = jsonpath::lookup(inv.objects[a].raw.view(), &steps);
            let vb = jsonpath::lookup(inv.objects[b].raw.view(), &steps);
            jsonpath::compare(va, vb)
        });
    }
    Ok(sel)
}

/// No TYPE: every object, kinds in order of first appearance, objects in file order
/// (what `kubectl get -f PATH` prints), each kind's table together; and the list errors
/// of the kinds the field selector does not apply to.
fn all_kinds(inv: &Inventory, query: &Filters) -> (Vec<usize>, Vec<String>) {
    // One pass: each object's kind numbered by first appearance (a scan per kind compared
    // every object's kind against each of dozens of kinds).
    let mut kinds: Vec<(&str, &str)> = Vec::new();
    let mut number: HashMap<(&str, &str), usize> = HashMap::new();
    let of_kind: Vec<usize> = inv
        .objects
        .iter()
        .map(|o| {
            let k = (&*o.id.group, &*o.id.kind);
            *number.entry(k).or_insert_with(|| {
                kinds.push(k);
                kinds.len() - 1
            })
        })
        .collect();
    let allowed: Vec<bool> = kinds
        .iter()
        .map(|&(g, k)| query.check_kind(g, k).is_ok())
        .collect();
    let mut per_kind: Vec<Vec<usize>> = vec![Vec::new(); kinds.len()];
    for (i, o) in inv.objects.iter().enumerate() {
        if allowed[of_kind[i]] && query.matches(o) {
            per_kind[of_kind[i]].push(i);
        }
    }
    let mut refused = Vec::new();
    for (&(g, k), ok) in kinds.iter().zip(&allowed) {
        if let (false, Err(e)) = (ok, query.check_kind(g, k)) {
            refused.push(query.list_error(inv, g, k, &e));
        }
    }
    (per_kind.concat(), refused)
}

fn server_order(a: &Object, b: &Object) -> Ordering {
    (&a.id.namespace, &a.id.name).cmp(&(&b.id.namespace, &b.id.name))
}
