//! One record for every problem kubesift reports — a file that failed to load, a finding in
//! the loaded objects — and the one order every front end lists them in. A leaf: loading,
//! the graph, validation, the UI and `check` all import it; it imports only the quoting and
//! escaping of gocompat (the object a diagnostic is about is named by `model::ObjectsAt`).

use crate::gocompat::escape::{escape_line, escape_terminal};
use std::cmp::Ordering;
use std::fmt;
use std::path::Path;
use std::sync::Arc;

use serde::Serialize;

/// How bad a problem is. Ordered from the least to the most severe.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Informational: something was deliberately not loaded (a Kustomization, a template).
    Note,
    /// Loaded, but suspicious (a cluster-scoped object carrying a namespace).
    Warning,
    /// Could not be loaded, or the API server would reject it.
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
/// of diagnostics compares mostly such pairs).
pub fn cmp_paths(a: &Arc<Path>, b: &Arc<Path>) -> Ordering {
    if Arc::ptr_eq(a, b) {
        Ordering::Equal
    } else {
        a.cmp(b)
    }
}

/// A problem at a place in a manifest: a load error, note or warning, or a finding about a
/// loaded object.
///
/// Diagnostics are ordered (`Ord`) by path (`Path` order: by components, so `a/x` sorts
/// before `a-b/x`), line, column, then the most severe first, then code, object (load
/// problems, which name none, first) and message. The order is total: however a list was
/// assembled (a full load, a patch, problems and findings merged), sorting it gives one
/// sequence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub path: Arc<Path>,
    /// 1-based; `0` means "the whole file" (an unreadable file, a walk error).
    pub line: u32,
    /// 1-based; `0` with line `0`. A finding about an object points at column 1 of the line
    /// where the object's document starts.
    pub column: u32,
    pub severity: Severity,
    /// Stable machine-readable rule id (`yaml-syntax`, `duplicate-object`, `owner-dangling`…).
    pub code: &'static str,
    /// Index of the object it is about in the inventory's objects, when it is about one.
    pub object: Option<u32>,
    /// Shared: a patch keeps the diagnostics of the files it did not touch by cloning them.
    pub message: Arc<str>,
}

impl Diagnostic {
    /// A diagnostic about a place, not tied to one object.
    pub fn new(
        path: &Arc<Path>,
        line: u32,
        column: u32,
        severity: Severity,
        code: &'static str,
        message: impl Into<Arc<str>>,
    ) -> Self {
        Diagnostic {
            path: Arc::clone(path),
            line,
            column,
            severity,
            code,
            object: None,
            message: message.into(),
        }
    }

    /// The same diagnostic, about object `index` (none past `u32::MAX`, which no inventory
    /// the UI can show reaches).
    pub fn about(mut self, index: usize) -> Self {
        self.object = u32::try_from(index).ok();
        self
    }

    /// The object it is about, as an index into the inventory's objects.
    pub fn object_index(&self) -> Option<usize> {
        self.object.map(|i| i as usize)
    }

    /// The order of [`Ord`] after the path: for lists whose paths are already ranked.
    pub fn cmp_within_path(&self, other: &Self) -> Ordering {
        (self.line, self.column)
            .cmp(&(other.line, other.column))
            .then_with(|| other.severity.cmp(&self.severity))
            .then_with(|| self.code.cmp(other.code))
            .then_with(|| self.object.cmp(&other.object))
            .then_with(|| self.message.cmp(&other.message))
    }
}

impl Ord for Diagnostic {
    fn cmp(&self, other: &Self) -> Ordering {
        cmp_paths(&self.path, &other.path).then_with(|| self.cmp_within_path(other))
    }
}

impl PartialOrd for Diagnostic {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Diagnostic {
    /// `:line:column` after the path, or nothing for a problem about a whole file (a walk
    /// note, an unreadable file: line 0), as compilers print `file: message` then.
    pub fn place(&self) -> Place {
        Place {
            line: self.line,
            column: self.column,
        }
    }
}

/// The `:line:column` part of a diagnostic's location (see [`Diagnostic::place`]).
#[derive(Clone, Copy, Debug)]
pub struct Place {
    line: u32,
    column: u32,
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            return Ok(());
        }
        write!(f, ":{}:{}", self.line, self.column)
    }
}

impl fmt::Display for Diagnostic {
    /// `path:line:column: message` (`path: message` for a whole file), as compilers print a
    /// located message; the path and the message escaped for a terminal (they carry file
    /// names and values from manifests).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path.display().to_string();
        write!(
            f,
            "{}{}: {}",
            escape_line(&path),
            self.place(),
            escape_terminal(&self.message)
        )
    }
}

/// Sorts diagnostics into their one order (see [`Diagnostic`]).
pub fn sort(diagnostics: &mut [Diagnostic]) {
    // The order is total, so any sort gives the same sequence; the stable one finds sorted
    // runs, and lists are mostly sorted ones joined (a load's problems, then its findings).
    diagnostics.sort();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(path: &str, line: u32, column: u32, severity: Severity, code: &'static str) -> Diagnostic {
        Diagnostic::new(
            &Arc::from(Path::new(path)),
            line,
            column,
            severity,
            code,
            "m",
        )
    }

    fn keys(ds: &[Diagnostic]) -> Vec<String> {
        ds.iter()
            .map(|d| {
                format!(
                    "{}:{}:{} {} {} {:?} {}",
                    d.path.display(),
                    d.line,
                    d.column,
                    d.severity,
                    d.code,
                    d.object,
                    d.message
                )
            })
            .collect()
    }

    #[test]
    fn one_order_by_path_place_severity_code_object_message() {
        let mut msg = d("a/x.yaml", 3, 1, Severity::Warning, "c");
        msg.message = "b".into();
        let expected = vec![
            d("a/x.yaml", 0, 0, Severity::Error, "walk"),
            d("a/x.yaml", 3, 1, Severity::Error, "z"),
            d("a/x.yaml", 3, 1, Severity::Warning, "a"),
            msg,
            d("a/x.yaml", 3, 1, Severity::Warning, "c"),
            d("a/x.yaml", 3, 1, Severity::Warning, "c").about(0),
            d("a/x.yaml", 3, 1, Severity::Warning, "c").about(7),
            d("a/x.yaml", 3, 1, Severity::Note, "a"),
            d("a/x.yaml", 3, 2, Severity::Note, "a"),
            d("a/x.yaml", 10, 1, Severity::Note, "a"),
            // by components: `a` before `a-b`, although `/` > `-` byte-wise
            d("a-b/x.yaml", 1, 1, Severity::Error, "a"),
            d("a.yaml", 1, 1, Severity::Error, "a"),
        ];
        let mut shuffled: Vec<Diagnostic> = expected.iter().rev().cloned().collect();
        shuffled.swap(0, 5);
        shuffled.swap(2, 9);
        sort(&mut shuffled);
        assert_eq!(keys(&shuffled), keys(&expected));
        // consistent with equality: only identical diagnostics compare equal
        for (i, a) in expected.iter().enumerate() {
            for (j, b) in expected.iter().enumerate() {
                assert_eq!(a.cmp(b) == Ordering::Equal, i == j, "{i} {j}");
            }
        }
    }

    #[test]
    fn same_path_in_two_arcs_compares_by_value() {
        let a = d("p/q.yaml", 2, 1, Severity::Error, "x");
        let b = d("p/q.yaml", 2, 1, Severity::Error, "x");
        assert!(!Arc::ptr_eq(&a.path, &b.path));
        assert_eq!(a.cmp(&b), Ordering::Equal);
        assert_eq!(a, b);
    }

    #[test]
    fn displays_place_and_message() {
        let e = d("dir/f.yaml", 4, 9, Severity::Error, "yaml-syntax");
        assert_eq!(e.to_string(), "dir/f.yaml:4:9: m");
        assert_eq!(e.about(3).object_index(), Some(3));
    }

    #[test]
    fn a_whole_file_problem_has_no_place() {
        let whole = d("dir/p.yaml", 0, 0, Severity::Note, "walk");
        assert_eq!(whole.to_string(), "dir/p.yaml: m");
        let placed = d("dir/x.yaml", 3, 7, Severity::Error, "yaml");
        assert_eq!(placed.to_string(), "dir/x.yaml:3:7: m");
    }
}
