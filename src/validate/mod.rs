//! Validation of names, labels, annotations and ownerReferences, as the API server does it
//! on write: each object on its own, with upstream's `field.Error` texts.

pub mod objects;
pub mod owners;
