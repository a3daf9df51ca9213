//! Validation of names, labels and annotations, as the API server does it.

pub mod objects;
