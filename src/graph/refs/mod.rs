//! Reference edges: what an object uses by name — ConfigMaps, Secrets, ServiceAccounts,
//! PVCs, classes, Roles, Services … — the third edge family beside owners and selectors.
//!
//! Extraction (`extract.rs` per kind family, `pod.rs` for pod specs and every pod template
//! the kind table knows) reads one object and yields [`Ref`]s: the relationship as
//! kube-lineage names it (`volume`, `envFrom`, `roleRef`, `backend` …), a target identity
//! resolved with the API server's namespace rules, and the field it was read from. Linking
//! (`link.rs`) resolves them against the inventory: a resolved reference is an [`Edge`]
//! with [`EdgeKind::Ref`]; an unresolved one is kept as a [`Dangling`] reference for the
//! findings (`findings.rs`). Links that are selections rather than names (ClusterRole
//! aggregation, Service → EndpointSlices, StatefulSet claim templates → the PVCs they
//! create) are made while linking.
//!
//! A build links every object while the owner and selector parts are computed, and adds
//! the target-port findings (which read the selector edges) after they are assembled. A
//! patch relinks only the changed objects and those with a lookup a changed object answers
//! (`deps.rs` keeps both per object), and redoes the unused notes and target-port findings
//! only where the change can alter them (`patch.rs`); the property tests check it equals a
//! rebuild.

mod deps;
mod extract;
mod findings;
mod link;
mod patch;
mod pod;

use std::cmp::Ordering;
use std::fmt;
use std::sync::Arc;

pub(super) use deps::KeySet;
pub use extract::extract;
pub use findings::is_ref_finding;
pub(super) use link::build;
#[cfg(test)]
pub(super) use patch::GAPS_IN_PLACE;
pub(super) use patch::{FindingsChange, RefChange};

use rayon::prelude::*;

use super::{Adjacency, Edge, EdgeKind, EdgeName, Graph, Groups};
use crate::diagnostic::{cmp_paths, Diagnostic};
use crate::model::{Inventory, ObjectId};
use deps::PerObject;

/// Services whose target ports one pool task checks.
const PORT_CHUNK: usize = 512;

/// The identity a reference names (the namespace is `""` for cluster-scoped kinds).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Target<'a> {
    pub group: &'a str,
    pub kind: &'a str,
    pub namespace: &'a str,
    pub name: &'a str,
}

/// A Service port as a reference names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Port<'a> {
    Number(i64),
    Name(&'a str),
}

/// One reference read from an object, before it is resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ref<'a> {
    /// The relationship, as kube-lineage names it (`volume`, `envFrom`, `roleRef` …).
    pub rel: &'static str,
    pub target: Target<'a>,
    /// Where the reference is written.
    pub site: Site,
    /// A missing target is fine: `optional: true`, or a defaulted field (the `default`
    /// ServiceAccount).
    pub optional: bool,
    /// The Service port a backend names (Ingress, webhooks, APIService, routes).
    pub port: Option<Port<'a>>,
}

/// A field path kept as static parts and indices, formatted only when a finding needs it
/// (`spec.template.spec.containers[0].envFrom[1].configMapRef`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Site {
    base: &'static str,
    /// `.spec` follows `base` (a pod template's spec).
    pod_spec: bool,
    /// Indexed steps (`volumes[2]`), `""` for unused slots.
    steps: [(&'static str, u32); 3],
    tail: &'static str,
}

impl Site {
    /// The field `base` (`spec.service`, `roleRef`).
    pub const fn at(base: &'static str) -> Site {
        Site {
            base,
            pod_spec: false,
            steps: [("", 0); 3],
            tail: "",
        }
    }

    /// This site inside a pod template whose spec is at `base` + `.spec`.
    const fn in_template(mut self) -> Site {
        self.pod_spec = true;
        self
    }

    /// One more indexed step (`volumes[2]`); past three steps, the deepest are dropped.
    pub fn step(mut self, name: &'static str, i: usize) -> Site {
        if let Some(slot) = self.steps.iter_mut().find(|s| s.0.is_empty()) {
            *slot = (name, u32::try_from(i).unwrap_or(u32::MAX));
        }
        self
    }

    /// The index of the pod volume this site is in, if it is one (`volumes[2]…`).
    pub fn volume(&self) -> Option<u32> {
        match self.steps[0] {
            ("volumes", i) => Some(i),
            _ => None,
        }
    }

    /// The last, unindexed part (`configMap`, `secretRef`).
    pub fn tail(mut self, tail: &'static str) -> Site {
        self.tail = tail;
        self
    }
}

impl fmt::Display for Site {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.base)?;
        if self.pod_spec {
            f.write_str(".spec")?;
        }
        // A site at the object's top level (`subjects[0]`) starts without a dot.
        let dot = |f: &mut fmt::Formatter<'_>, started: bool| {
            if started {
                f.write_str(".")
            } else {
                Ok(())
            }
        };
        let mut started = !self.base.is_empty();
        for (name, i) in self.steps.iter().filter(|s| !s.0.is_empty()) {
            dot(f, started)?;
            write!(f, "{name}[{i}]")?;
            started = true;
        }
        if !self.tail.is_empty() {
            dot(f, started)?;
            f.write_str(self.tail)?;
        }
        Ok(())
    }
}

/// A reference whose target the input does not hold (kept with the referencing object's
/// other ones).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dangling {
    pub rel: EdgeName,
    pub target: ObjectId,
}

/// The reference edges of one inventory.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RefGraph {
    pub(in crate::graph) uses: Adjacency,
    used_by: Adjacency,
    /// By referencing object, in field order: when positions move, only the offsets do.
    dangling: Groups<Dangling>,
    /// Per object: the lookups linking it can make (`deps.rs`).
    deps: PerObject,
    /// Per object: what it answers to those lookups (`deps::provides`).
    provided: Vec<[deps::DepKey; 2]>,
}

impl RefGraph {
    /// Whether a reference names object `i` (an Event reporting on an object does not use
    /// it).
    fn is_used(&self, i: usize) -> bool {
        self.used_by
            .get(i)
            .iter()
            .any(|e| !matches!(e.kind, EdgeKind::Ref { rel } if rel == "involvedObject"))
    }
}

impl Graph {
    /// Adds the reference graph and findings of [`build`] (sorted) after `assemble`, with
    /// the target-port findings.
    pub(super) fn with_refs(
        mut self,
        inv: &Inventory,
        built: (RefGraph, Vec<Diagnostic>, link::Declared<'_>),
    ) -> Graph {
        let (refs, found, declared) = built;
        let services: Vec<usize> = (0..inv.objects.len())
            .filter(|&i| link::is_service(&inv.objects[i]))
            .collect();
        let graph = &self;
        let mut ports: Vec<Diagnostic> = services
            .par_chunks(PORT_CHUNK)
            .flat_map_iter(|chunk| {
                link::target_ports(inv, graph, chunk.iter().copied(), Some(&declared))
            })
            .collect();
        crate::diagnostic::sort(&mut ports);
        self.refs = refs;
        let found = merge(found, ports);
        self.findings = merge(std::mem::take(&mut self.findings), found);
        self
    }

    /// Reference edges from `obj` to what it uses (deduplicated per target and relationship).
    pub fn uses(&self, obj: usize) -> &[Edge] {
        self.refs.uses.get(obj)
    }

    /// Reference edges from the objects that use `obj`.
    pub fn used_by(&self, obj: usize) -> &[Edge] {
        self.refs.used_by.get(obj)
    }

    /// References whose target the input does not hold, grouped by referencing object.
    pub fn dangling(&self) -> &[Dangling] {
        self.refs.dangling.all()
    }

    /// Dangling references of `obj`.
    pub fn dangling_of(&self, obj: usize) -> &[Dangling] {
        self.refs.dangling.get(obj)
    }

    /// Names of every relationship from `from` to `to` among the enabled families
    /// (`owner`, `selector`, then references), for `tree -o wide`.
    pub fn relationships(
        &self,
        from: usize,
        to: usize,
        owners: bool,
        selectors: bool,
        refs: bool,
    ) -> Vec<&'static str> {
        let mut out = Vec::new();
        if owners && self.dependents(from).iter().any(|e| e.to_ix() == to) {
            out.push("owner");
        }
        if selectors && self.selects(from).any(|e| e.to_ix() == to) {
            out.push("selector");
        }
        if refs {
            for e in self.uses(from).iter().filter(|e| e.to_ix() == to) {
                if let EdgeKind::Ref { rel } = e.kind {
                    let rel = rel.as_str();
                    if !out.contains(&rel) {
                        out.push(rel);
                    }
                }
            }
        }
        out
    }
}

/// The sorted `a` and `b` as one sorted list (what sorting them together gives: the
/// diagnostics' order is total). Both are grouped by file, most of a file's diagnostics
/// sharing its path: paths are compared once per run of one shared path, not per item.
fn merge(a: Vec<Diagnostic>, b: Vec<Diagnostic>) -> Vec<Diagnostic> {
    if a.is_empty() {
        return b;
    }
    if b.is_empty() {
        return a;
    }
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut a, mut b) = (a.into_iter().peekable(), b.into_iter().peekable());
    while let (Some(x), Some(y)) = (a.peek(), b.peek()) {
        // Equal items are equal in every field: which list one comes from does not matter.
        let order = cmp_paths(&x.path, &y.path);
        let path = match order {
            Ordering::Less => Arc::clone(&x.path),
            _ => Arc::clone(&y.path),
        };
        let from = match order {
            Ordering::Less => &mut a,
            Ordering::Greater => &mut b,
            Ordering::Equal => {
                let next = if x.cmp_within_path(y) == Ordering::Greater {
                    b.next()
                } else {
                    a.next()
                };
                out.extend(next);
                continue;
            }
        };
        // Its whole run of that path comes first.
        while let Some(d) = from.next_if(|d| Arc::ptr_eq(&d.path, &path)) {
            out.push(d);
        }
    }
    out.extend(a);
    out.extend(b);
    out
}

/// The sorted `a` and `b` (each grouped by `key`, ascending) as one list grouped by `key`,
/// `a`'s first for an equal key.
pub(in crate::graph) fn merge_by<T>(a: Vec<T>, b: Vec<T>, key: impl Fn(&T) -> usize) -> Vec<T> {
    if b.is_empty() {
        return a;
    }
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut a, mut b) = (a.into_iter().peekable(), b.into_iter().peekable());
    while let (Some(x), Some(y)) = (a.peek(), b.peek()) {
        let next = if key(y) < key(x) { b.next() } else { a.next() };
        out.extend(next);
    }
    out.extend(a);
    out.extend(b);
    out
}

#[cfg(test)]
mod tests;
