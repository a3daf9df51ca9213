//! Go compatibility: what kubesift must print and order exactly as the Go code it mirrors
//! does — `strconv.IsPrint`-based quoting, `sort.Strings`/`sort.StringSlice` order. A leaf:
//! it depends on nothing of kubesift.

pub mod print;
pub mod sort;
