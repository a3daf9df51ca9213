//! Problems found while loading: every one names a file, a line and a column.

use std::fmt;
use std::path::Path;
use std::sync::Arc;

use serde::Serialize;

/// How bad a load problem is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Informational: something was deliberately not loaded (a Kustomization, a template).
    Note,
    /// Loaded, but suspicious (a cluster-scoped object carrying a namespace).
    Warning,
    /// Could not be loaded (a syntax error, a binary file, a duplicate key).
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

/// Orders two source paths as `Path::cmp` does, without walking components when both are
/// the same `Arc` (everything found in one file shares its path's `Arc`; sorting thousands
/// of problems or findings compares mostly such pairs).
pub fn cmp_paths(a: &Arc<Path>, b: &Arc<Path>) -> std::cmp::Ordering {
    if Arc::ptr_eq(a, b) {
        std::cmp::Ordering::Equal
    } else {
        a.cmp(b)
    }
}

/// A problem met while reading a manifest tree.
///
/// `line`/`column` are 1-based; `0` means "the whole file" (an unreadable file).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}:{}:{}: {}", path.display(), line, column, message)]
pub struct LoadError {
    pub path: Arc<Path>,
    pub line: u32,
    pub column: u32,
    pub severity: Severity,
    /// Stable machine-readable code (`yaml-syntax`, `duplicate-key`, `not-an-object`, ...).
    pub code: &'static str,
    pub message: Arc<str>,
}

impl LoadError {
    pub fn new(
        path: &Arc<Path>,
        line: u32,
        column: u32,
        severity: Severity,
        code: &'static str,
        message: impl Into<Arc<str>>,
    ) -> Self {
        LoadError {
            path: Arc::clone(path),
            line,
            column,
            severity,
            code,
            message: message.into(),
        }
    }
}
