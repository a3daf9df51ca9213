//! The selector-bar language: one line that filters and groups objects.
//!
//! ```text
//! query   := terms [ "|" "by" group ]
//! terms   := term { "," term }            (commas inside `( … )` belong to the term)
//! term    := label-requirement            kubectl label selector syntax: k=v, k!=v, k in (a,b), !k …
//!          | field-requirement            metadata.name=x, spec.nodeName!=y (`=`, `==`, `!=`, `\,` escapes)
//!          | "." path op value            .a.b[0]=v, .a[*].b!=v, .metadata.annotations['a.b/c']=v
//!          | "~" text                     fuzzy match on the object name
//!          | ("uses" | "usedby") "(" TYPE "/" [ NAMESPACE "/" ] NAME ")"
//!                                         objects using / used by that object (`refs.rs`)
//! group   := "namespace" | "kind" | "owner" | "target" | referenced-kind | label-key
//! ```
//!
//! A term is a field requirement when its key starts with `metadata.`, `spec.`, `status.` or
//! `involvedObject.`: it is parsed by `fields.ParseSelector` and, as with `kubectl get
//! --field-selector`, only kinds whose API server supports that field can match (their
//! values carry the server's defaults). A key starting with `.` compares the values at that
//! path on every kind (a kubesift extension); the path is kubectl's JSONPath notation
//! without braces: `.a.b`, `[N]` an element, `[*]` any element, `['dotted.key']`. All label requirements are joined in
//! order and parsed as one Kubernetes label selector (`labels.Parse`), so a bar holding only
//! label terms filters exactly as `kubesift get -l` does, and errors are upstream's own, with
//! a byte offset into the bar text for a caret.

mod fields;
mod fuzzy;
mod group;
mod labels;
mod refs;
mod terms;

use roaring::RoaringBitmap;

use crate::graph::Graph;
use crate::index::LabelIndex;
use crate::model::{Inventory, Object};

pub use fuzzy::fuzzy_indices;
pub use group::{group_key, group_members, GroupBy};

/// A bar text that does not parse: the message and the byte offset to put a caret under.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueryError {
    pub message: String,
    pub offset: usize,
}

impl std::fmt::Display for QueryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for QueryError {}

/// A parsed bar text.
#[derive(Debug, Default)]
pub struct Query {
    labels: Option<labels::LabelFilter>,
    fields: Vec<fields::FieldTerm>,
    /// `uses(…)`/`usedby(…)` terms, evaluated by [`Query::filter_linked`].
    refs: Vec<refs::RefTerm>,
    /// The `~text` term, if any.
    pub fuzzy: Option<String>,
    /// The `| by …` clause, if any.
    pub group: Option<GroupBy>,
}

impl Query {
    /// Parses a bar text (see the module docs for the grammar).
    pub fn parse(text: &str) -> Result<Query, QueryError> {
        let (filter_end, group) = group::split_group(text)?;
        let mut query = Query {
            group,
            ..Query::default()
        };
        let mut label_segments = Vec::new();
        for seg in terms::split(&text[..filter_end]) {
            let trimmed = seg.text.trim_start();
            let lead = seg.text.len() - trimmed.len();
            if let Some(rest) = trimmed.strip_prefix('~') {
                if query.fuzzy.is_some() {
                    return Err(QueryError {
                        message: "only one ~fuzzy term is allowed".into(),
                        offset: seg.offset + lead,
                    });
                }
                query.fuzzy = Some(rest.trim().to_string());
            } else if refs::is_ref_term(trimmed) {
                query
                    .refs
                    .push(refs::RefTerm::parse(trimmed, seg.offset + lead)?);
            } else if fields::is_field_term(trimmed) {
                let term = fields::FieldTerm::parse(trimmed, seg.offset + lead)?;
                query.fields.push(term);
            } else {
                label_segments.push(seg);
            }
        }
        if label_segments.iter().any(|s| !s.text.trim().is_empty()) {
            query.labels = Some(labels::LabelFilter::parse(&label_segments)?);
        }
        Ok(query)
    }

    /// Whether the query neither filters nor groups.
    pub fn is_empty(&self) -> bool {
        self.labels.is_none()
            && self.fields.is_empty()
            && self.refs.is_empty()
            && self.fuzzy.as_deref().is_none_or(str::is_empty)
            && self.group.is_none()
    }

    /// Whether the query has `uses(…)`/`usedby(…)` terms (which need the graph, and look
    /// at other objects than the one they keep).
    pub fn has_refs(&self) -> bool {
        !self.refs.is_empty()
    }

    /// Whether the query has label terms (which read the label index).
    pub fn has_labels(&self) -> bool {
        self.labels.is_some()
    }

    /// Objects of `universe` that satisfy every term.
    pub fn filter(
        &self,
        objects: &[Object],
        index: &LabelIndex,
        universe: &RoaringBitmap,
    ) -> RoaringBitmap {
        let mut out = match &self.labels {
            Some(l) => l.eval(index, universe),
            None => universe.clone(),
        };
        let fuzzy = self.fuzzy.as_deref().filter(|f| !f.is_empty());
        if self.fields.is_empty() && fuzzy.is_none() {
            return out;
        }
        let matcher = fuzzy::Matcher::new();
        out.retain(|i| {
            objects.get(i as usize).is_some_and(|o| {
                self.fields.iter().all(|f| f.matches(o))
                    && fuzzy.is_none_or(|p| matcher.matches(&o.id.name, p))
            })
        });
        out
    }
}

impl Query {
    /// [`Query::filter`], then the reference terms against `graph` (`filter` alone ignores
    /// them: they need the graph).
    pub fn filter_linked(
        &self,
        inv: &Inventory,
        index: &LabelIndex,
        universe: &RoaringBitmap,
        graph: &Graph,
    ) -> RoaringBitmap {
        let mut out = self.filter(&inv.objects, index, universe);
        for t in &self.refs {
            t.retain(inv, graph, &mut out);
        }
        out
    }
}

#[cfg(test)]
mod tests;
