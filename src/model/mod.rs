//! Objects, their identity and source, and how they are loaded from a manifest tree.

mod diagnostic;
mod extract;
pub mod fields;
mod intern;
mod inventory;
pub mod load;
mod object;
pub mod raw;
pub mod strmap;

pub use diagnostic::{cmp_paths, LoadError, Severity};
pub use extract::{json_type, NotAnObject};
pub use inventory::{duplicates, registry_for, resolve_scope, Inventory};
pub use object::{group_of, Labels, Object, ObjectData, ObjectId, OwnerRef, SourceSpan, Str};
pub use raw::{Raw, RawArray, RawKind, RawObject, RawRef};
pub use strmap::StrMap;
