//! Go compatibility: what kubesift must print and order exactly as the Go code it mirrors
//! does — `strconv.Quote` (`%q`) and its `unicode.IsPrint`, `%#v` of slices and maps,
//! `sort.Sort` order. A leaf: it depends on nothing of kubesift.
//!
//! Messages that quote a value from a manifest go through [`quote::Quoted`], never Rust's
//! `{:?}`: the two differ for non-ASCII (Rust escapes combining marks, Go keeps every rune
//! `unicode.IsPrint` accepts) and for controls (`\u{1b}` against Go's `\x1b`).

pub mod escape;
pub mod fmt;
pub mod print;
pub mod quote;
pub mod sort;
