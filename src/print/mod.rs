//! kubectl-compatible printing: table columns per kind, ages, `-o json|yaml|name`, and the
//! JSONPath subset `--sort-by` accepts. Pure functions over objects; no I/O.

pub mod age;
pub mod columns;
pub mod jsonpath;
pub mod table;
pub mod yaml;

pub use age::{human_duration, translate_timestamp_since};
pub use table::Table;
