//! Loading a manifest tree: walk → read → split documents → parse → lists → objects.
//!
//! - [`walk`]: which files (recursive, symlinks followed once, hidden entries skipped);
//! - [`read`]: size limit before reading, binary and UTF-8 checks;
//! - [`stdin`]: `-`, standard input, read once as one more file;
//! - [`split`]: one YAML document at a time, so one broken document hides no other;
//! - [`fast`]: the common block-style YAML straight to the compact [`Raw`] encoding,
//!   giving up to [`yaml`] on anything else (the results are identical, byte for byte,
//!   whenever it does not give up);
//! - [`json_fast`]: the common JSON stream straight to [`Raw`], item offsets in the same
//!   pass, giving up to [`json`]'s serde_json path on anything else;
//! - [`yaml`] / [`json`]: text → `serde_json::Value` with positions, duplicate keys, alias
//!   and depth bounds ([`scalar`] resolves plain scalars as Kubernetes' go-yaml v2 does),
//!   encoded once into [`Raw`];
//! - [`lists`]: `List`s, typed lists and top-level arrays flattened into items;
//! - [`classify`]: Kustomizations, Helm files, kubeconfigs, templates and plain config are
//!   reported as notes, not silently dropped.
//!
//! Nothing here panics on input, and every problem names a file, line and column.

mod classify;
mod fast;
mod guess;
mod json;
mod json_fast;
mod lists;
mod parse;
mod read;
mod scalar;
mod split;
mod stdin;
mod swar;
mod walk;
mod yaml;

use std::collections::HashSet;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::SystemTime;

use rayon::prelude::*;

use super::inventory::Inventory;
use super::object::Object;
use crate::diagnostic::Diagnostic;

pub use fast::{Decline, YamlStats};
pub use stdin::{is_stdin, STDIN};

/// Default refusal limit for one file: 64 MiB.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 64 * 1024 * 1024;

/// How to load.
#[derive(Clone, Debug)]
pub struct LoadOptions {
    /// Files larger than this are refused with a message (checked before reading).
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
#[derive(Clone, Debug)]
pub struct FileLoad {
    pub path: Arc<Path>,
    /// Objects in file order (documents, then list items).
    pub objects: Vec<Object>,
    /// Errors and notes, in file order.
    pub problems: Vec<Diagnostic>,
    /// Bytes read from the file.
    pub bytes: u64,
    /// Modification time and length of the file when it was opened for this read (`None`
    /// when not read from a file, or unknown): what a watcher compares to tell a change.
    pub stamp: Option<(SystemTime, u64)>,
    /// How its YAML documents were parsed (fast path or saphyr, and why).
    pub yaml: YamlStats,
}

impl FileLoad {
    fn empty(path: &Arc<Path>, bytes: u64) -> FileLoad {
        FileLoad {
            path: Arc::clone(path),
            objects: Vec::new(),
            problems: Vec::new(),
            bytes,
            stamp: None,
            yaml: YamlStats::default(),
        }
    }
}

/// Files to read under the given paths (sorted per root), plus problems met while walking.
pub fn discover(paths: &[PathBuf], _opts: &LoadOptions) -> (Vec<PathBuf>, Vec<Diagnostic>) {
    walk::discover(paths)
}

/// Hands the files under the given paths to `found` in batches while walking (unordered;
/// a file reached through two roots comes twice); returns the problems met while walking.
pub fn discover_streaming(
    paths: &[PathBuf],
    _opts: &LoadOptions,
    found: &(dyn Fn(Vec<PathBuf>) + Sync),
) -> Vec<Diagnostic> {
    walk::discover_streaming(paths, found)
}

/// Reads and parses one file (`-`: standard input, once). Never panics; every failure is a
/// problem in the result.
pub fn load_file(path: &Path, opts: &LoadOptions) -> FileLoad {
    read::load_file(path, opts, &mut || {})
}

/// [`load_file`] for a file [`discover_streaming`] or [`discover`] has just handed over: its
/// type is not looked at again before it is opened (only after, on the open file).
/// `read_done` is called once the bytes are read, before they are parsed (`kubesift bench`
/// times reading and parsing apart on the path the UI takes).
pub fn load_listed_file(path: &Path, opts: &LoadOptions, read_done: &mut dyn FnMut()) -> FileLoad {
    read::load_listed_file(path, opts, read_done)
}

/// Reads and parses what `reader` yields as if it were the file `path`, with the same size
/// limit and checks as [`load_file`] (lets callers and tests feed streams or failing I/O).
pub fn load_reader(path: &Path, reader: impl Read, opts: &LoadOptions) -> FileLoad {
    read::load_reader(&Arc::from(path), reader, 0, opts, &mut || {})
}

/// Parses a file's text: YAML (multi-document) or JSON, lists flattened, non-objects
/// reported.
pub fn parse_text(path: &Arc<Path>, text: &str) -> FileLoad {
    parse::parse_text(path, text)
}

#[doc(hidden)]
pub use parse::{ProbeDoc, YamlProbe};

/// Test support: every YAML document of `text` through the fast path and through saphyr,
/// for tests/load_fast_equiv.rs.
#[doc(hidden)]
pub fn yaml_equivalence_probe(text: &str) -> Vec<YamlProbe> {
    parse::probe(text)
}

/// Bench support: parses every YAML document of `text` (through the fast path first unless
/// `saphyr_only`) and counts those with a value.
#[doc(hidden)]
pub fn yaml_document_count(text: &str, saphyr_only: bool) -> usize {
    parse::count_documents(text, saphyr_only)
}

/// Walks, reads and parses everything under `paths` (files in parallel, each read as soon
/// as the walk finds it).
pub fn load_paths(paths: &[PathBuf], opts: &LoadOptions) -> Inventory {
    let (loads, walk_problems) = load_while_walking(paths, opts);
    Inventory::build(loads, walk_problems)
}

/// Every file under `paths`, loaded, in [`discover`]'s order (roots in order, each root's
/// files sorted, a file under two roots once, at its first); and the walk problems. Reading
/// starts while the walk still lists files: listing a big tree first left the cores idle.
fn load_while_walking(paths: &[PathBuf], opts: &LoadOptions) -> (Vec<FileLoad>, Vec<Diagnostic>) {
    let loads: Mutex<Vec<(usize, FileLoad)>> = Mutex::new(Vec::new());
    let seen: Mutex<HashSet<PathBuf>> = Mutex::new(HashSet::new());
    let mut problems = Vec::new();
    rayon::in_place_scope(|pool| {
        // Roots one after the other, as `discover` does: the first root a file is found
        // under is the one it is listed with.
        for (root, path) in paths.iter().enumerate() {
            let (loads, seen) = (&loads, &seen);
            let found = |batch: Vec<PathBuf>| {
                let mut seen = seen.lock().unwrap_or_else(PoisonError::into_inner);
                for file in batch.into_iter().filter(|f| seen.insert(f.clone())) {
                    pool.spawn(move |_| {
                        let load = load_listed_file(&file, opts, &mut || {});
                        loads
                            .lock()
                            .unwrap_or_else(PoisonError::into_inner)
                            .push((root, load));
                    });
                }
            };
            problems.extend(walk::discover_streaming(std::slice::from_ref(path), &found));
        }
    });
    let mut loads = loads.into_inner().unwrap_or_else(PoisonError::into_inner);
    loads.par_sort_unstable_by(|(ra, a), (rb, b)| ra.cmp(rb).then_with(|| a.path.cmp(&b.path)));
    (loads.into_iter().map(|(_, l)| l).collect(), problems)
}

/// Progressive: calls `sink` from worker threads with each file's result as it is parsed
/// (for the UI's first frame and the bench); returns the walk problems.
pub fn load_paths_with(
    paths: &[PathBuf],
    opts: &LoadOptions,
    sink: &(dyn Fn(FileLoad) + Sync),
) -> Vec<Diagnostic> {
    let (files, walk_problems) = discover(paths, opts);
    files
        .par_iter()
        .for_each(|f| sink(load_listed_file(f, opts, &mut || {})));
    walk_problems
}
