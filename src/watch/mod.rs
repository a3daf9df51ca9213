//! File-system watching: notify events (or polling) → debounced, filtered, de-duplicated
//! batches of changed paths ([`Watcher`], [`WatchEvent`]). What a changed path means for the
//! objects is the data layer's business (`crate::dataset`).

pub mod filter;
pub mod poll;
pub mod watcher;

use std::path::{Path, PathBuf};

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

impl WatchError {
    /// The path that was not there when its watch was to be added: a missing root, or a
    /// directory the recursive walk found and that was gone before its watch (the tree was
    /// changing while the watches were added). `None` for every other failure.
    pub fn gone_path(&self) -> Option<&Path> {
        match self {
            WatchError::Missing(path) => Some(path),
            WatchError::Watch { path, error } => {
                let gone = match &error.kind {
                    notify::ErrorKind::PathNotFound => true,
                    notify::ErrorKind::Io(e) => e.kind() == std::io::ErrorKind::NotFound,
                    _ => false,
                };
                gone.then_some(path.as_path())
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A directory gone before its watch names its path; other failures name none.
    #[test]
    fn gone_path_is_a_missing_path_only() {
        let sub = PathBuf::from("/r/sub");
        let not_found = WatchError::Watch {
            path: sub.clone(),
            error: notify::Error::path_not_found(),
        };
        assert_eq!(not_found.gone_path(), Some(sub.as_path()));
        let io = std::io::Error::from(std::io::ErrorKind::NotFound);
        let vanished = WatchError::Watch {
            path: sub.clone(),
            error: notify::Error::io(io),
        };
        assert_eq!(vanished.gone_path(), Some(sub.as_path()));
        let denied = WatchError::Watch {
            path: sub.clone(),
            error: notify::Error::io(std::io::Error::from(std::io::ErrorKind::PermissionDenied)),
        };
        assert_eq!(denied.gone_path(), None);
        assert_eq!(
            WatchError::Missing(sub.clone()).gone_path(),
            Some(sub.as_path())
        );
        assert_eq!(WatchError::Stopped.gone_path(), None);
    }
}
