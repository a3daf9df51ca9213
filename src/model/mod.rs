//! Objects, their identity and source, and how they are loaded from a manifest tree.

mod extract;
pub mod fields;
mod inventory;
pub mod load;
mod object;
#[cfg(test)]
pub(crate) mod testutil;

pub use extract::{json_type, NotAnObject};
pub use inventory::{duplicates, registry_for, resolve_scope, Inventory, ObjectsAt};
pub use object::GENERATED;
pub use object::{
    group_of, Generated, Labels, MetaAt, Object, ObjectData, ObjectId, OwnerRef, OwnerRefIter,
    OwnerRefs, SourceSpan,
};
#[cfg(test)]
pub(crate) use testutil::{test_inventory, test_object};
