//! Label and field selectors, exact to k8s.io/apimachinery and component-helpers.
//!
//! Pure: no I/O. `labels` + `lex` + `parse` implement `labels.Parse`; `fields` implements
//! `fields.ParseSelector`; `structured` turns `LabelSelector`, selector maps and
//! `NodeSelector` objects into selectors; `protocol` answers the JSON requests of the
//! shared conformance vectors (`kubesift selector --jsonl`); `explain` words requirements.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

pub mod error;
pub mod explain;
pub mod fields;
pub mod labels;
mod lex;
mod parse;
pub mod protocol;
pub mod structured;

pub use error::ParseError;
pub use fields::{parse as parse_fields, FieldOperator, FieldRequirement, FieldSelector};
pub use labels::{parse as parse_labels, Operator, Requirement, Selector};
pub use structured::{label_selector_from_value, map_selector, NodeSelector};

/// Writes `items` joined by `,` (upstream's `String()` of label and field selectors).
pub(crate) fn write_joined<T: std::fmt::Display>(
    f: &mut std::fmt::Formatter<'_>,
    items: &[T],
) -> std::fmt::Result {
    for (i, r) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(",")?;
        }
        write!(f, "{r}")?;
    }
    Ok(())
}

/// Read access to a label set, whatever map holds it.
pub trait LabelGet {
    /// The value of label `key`, if present.
    fn label(&self, key: &str) -> Option<&str>;
}

impl LabelGet for BTreeMap<Arc<str>, Arc<str>> {
    fn label(&self, key: &str) -> Option<&str> {
        self.get(key).map(|v| &**v)
    }
}

impl LabelGet for crate::value::StrMapRef<'_> {
    fn label(&self, key: &str) -> Option<&str> {
        self.get(key)
    }
}

impl LabelGet for crate::value::StrMap {
    fn label(&self, key: &str) -> Option<&str> {
        self.get(key).map(|v| &**v)
    }
}

impl LabelGet for BTreeMap<String, String> {
    fn label(&self, key: &str) -> Option<&str> {
        self.get(key).map(String::as_str)
    }
}

impl LabelGet for HashMap<String, String> {
    fn label(&self, key: &str) -> Option<&str> {
        self.get(key).map(String::as_str)
    }
}

impl<T: LabelGet + ?Sized> LabelGet for &T {
    fn label(&self, key: &str) -> Option<&str> {
        (**self).label(key)
    }
}
