//! kubesift: an offline, searchable picture of a folder of Kubernetes manifests.
//!
//! The core (`model`, `kinds`, `selector`, `query`, `index`, `graph`, `validate`) has no
//! terminal dependency and is usable as a library; `app` and `ui` are the terminal front end,
//! `cli` the headless commands.
#![cfg_attr(not(test), deny(clippy::unwrap_used))]

pub mod alloc;
pub mod app;
pub mod cli;
pub mod dataset;
pub mod diagnostic;
pub mod gocompat;
pub mod graph;
pub mod index;
pub mod kinds;
pub mod model;
pub mod names;
pub mod print;
pub mod query;
pub mod render;
pub mod selector;
pub mod terminal;
pub mod ui;
pub mod validate;
pub mod value;
pub mod watch;
