//! Which objects a `get` prints, in which order: kinds in request order, objects by
//! namespace then name (the API server's list order), or by `--sort-by`.

use std::cmp::Ordering;

use super::request::Requests;
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
        })
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
            if !sel.matches(&obj.labels) {
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
        sel.objects = all_kinds(inv, query)?;
    } else {
        for req in &reqs.list {
            query.check_kind(&req.group, &req.kind)?;
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
/// (what `kubectl get -f PATH` prints), each kind's table together.
fn all_kinds(inv: &Inventory, query: &Filters) -> Result<Vec<usize>, String> {
    let mut kinds: Vec<(&str, &str)> = Vec::new();
    for o in &inv.objects {
        let k = (&*o.id.group, &*o.id.kind);
        if !kinds.contains(&k) {
            kinds.push(k);
        }
    }
    for (g, k) in &kinds {
        query.check_kind(g, k)?;
    }
    let mut out = Vec::new();
    for (g, k) in kinds {
        out.extend((0..inv.objects.len()).filter(|&i| {
            let o = &inv.objects[i];
            &*o.id.group == g && &*o.id.kind == k && query.matches(o)
        }));
    }
    Ok(out)
}

fn server_order(a: &Object, b: &Object) -> Ordering {
    (&a.id.namespace, &a.id.name).cmp(&(&b.id.namespace, &b.id.name))
}
