//! The value types every other module shares: a parsed document's compact tree ([`Raw`],
//! read through [`RawRef`], written by [`RawBuilder`]), sorted string maps ([`StrMap`]) and
//! interned strings ([`Str`], [`intern`]). A leaf: it depends on nothing of kubesift.

pub mod intern;
pub mod keys;
pub mod raw;
pub mod strings;
pub mod strmap;

use std::sync::Arc;

pub use intern::intern;
pub use raw::{BuildError, Raw, RawArray, RawBuilder, RawKind, RawObject, RawRef};
pub use strmap::{StrMap, StrMapRef};

/// A shared, cheaply cloned string (label keys/values, kinds, namespaces repeat a lot).
pub type Str = Arc<str>;
