//! File-system watching: notify events (or polling) → debounced, filtered, de-duplicated
//! batches of changed paths ([`Watcher`], [`WatchEvent`]). What a changed path means for the
//! objects is the data layer's business (`crate::dataset`).

pub mod filter;
pub mod poll;
pub mod watcher;

use std::path::PathBuf;

pub use watcher::{WatchEvent, Watcher};

/// Why watching could not start, or stopped. The messages are whole (no source chain to append).
#[derive(Debug, thiserror::Error)]
pub enum WatchError {
    #[error("cannot watch {}: no such file or directory", .0.display())]
    Missing(PathBuf),
    #[error("cannot watch {}: {error}", path.display())]
    Watch { path: PathBuf, error: notify::Error },
    #[error("cannot start the file watcher: {0}")]
    Start(notify::Error),
    #[error("cannot start the poller: {0}")]
    Poller(std::io::Error),
    #[error("the file watcher stopped")]
    Stopped,
}
