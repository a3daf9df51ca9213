//! Loading a manifest tree: walk → read → split documents → parse → objects + problems.
//!
//! PROVISIONAL: a minimal implementation so the rest of the crate has objects to work on;
//! the full loader (spans, duplicate keys, bombs, lists, templates) replaces it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

use super::diagnostic::{LoadError, Severity};
use super::inventory::Inventory;
use super::object::{Object, SourceSpan};

/// Default refusal limit for one file: 64 MiB.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 64 * 1024 * 1024;

/// How to load.
#[derive(Clone, Debug)]
pub struct LoadOptions {
    /// Files larger than this are refused with a message.
    pub max_file_size: u64,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            max_file_size: DEFAULT_MAX_FILE_SIZE,
        }
    }
}

/// What one file yielded.
#[derive(Clone, Debug, Default)]
pub struct FileLoad {
    pub objects: Vec<Object>,
    pub problems: Vec<LoadError>,
    /// Bytes read from the file.
    pub bytes: u64,
}

/// Files to read under the given paths, plus problems met while walking.
pub fn discover(paths: &[PathBuf], _opts: &LoadOptions) -> (Vec<PathBuf>, Vec<LoadError>) {
    let mut files = Vec::new();
    for p in paths {
        if p.is_file() {
            files.push(p.clone());
            continue;
        }
        for entry in ignore::WalkBuilder::new(p)
            .follow_links(true)
            .build()
            .flatten()
        {
            let path = entry.path();
            let ext = path
                .extension()
                .and_then(|e| e.to_str())
                .map(str::to_ascii_lowercase);
            if path.is_file() && matches!(ext.as_deref(), Some("yaml" | "yml" | "json")) {
                files.push(path.to_path_buf());
            }
        }
    }
    (files, Vec::new())
}

/// Reads and parses one file.
pub fn load_file(path: &Path, opts: &LoadOptions) -> FileLoad {
    let shared: Arc<Path> = Arc::from(path);
    match std::fs::read_to_string(path) {
        Ok(text) if (text.len() as u64) <= opts.max_file_size => parse_text(&shared, &text),
        Ok(_) => FileLoad {
            problems: vec![LoadError::new(
                &shared,
                0,
                0,
                Severity::Error,
                "too-large",
                "file too large",
            )],
            ..FileLoad::default()
        },
        Err(e) => FileLoad {
            problems: vec![LoadError::new(
                &shared,
                0,
                0,
                Severity::Error,
                "read",
                e.to_string(),
            )],
            ..FileLoad::default()
        },
    }
}

/// Parses a file's text.
pub fn parse_text(path: &Arc<Path>, text: &str) -> FileLoad {
    let mut out = FileLoad {
        bytes: text.len() as u64,
        ..FileLoad::default()
    };
    for doc in serde_yaml::Deserializer::from_str(text) {
        let value: serde_json::Value = match serde::Deserialize::deserialize(doc) {
            Ok(v) => v,
            Err(e) => {
                let (line, col) = e
                    .location()
                    .map(|l| (l.line() as u32, l.column() as u32))
                    .unwrap_or((0, 0));
                out.problems.push(LoadError::new(
                    path,
                    line,
                    col,
                    Severity::Error,
                    "yaml-syntax",
                    e.to_string(),
                ));
                break;
            }
        };
        let items = match value.get("items").and_then(|i| i.as_array()) {
            Some(items) => items.clone(),
            None if value.is_null() => continue,
            None => vec![value],
        };
        for item in items {
            let span = SourceSpan {
                path: Arc::clone(path),
                line: 1,
                start: 0,
                end: 0,
            };
            if let Ok(o) = Object::from_value(item, span) {
                out.objects.push(o);
            }
        }
    }
    out
}

/// Walks, reads and parses everything under `paths` (files in parallel).
pub fn load_paths(paths: &[PathBuf], opts: &LoadOptions) -> Inventory {
    let (files, walk_problems) = discover(paths, opts);
    let loads: Vec<FileLoad> = files.par_iter().map(|f| load_file(f, opts)).collect();
    Inventory::build(loads, walk_problems)
}
