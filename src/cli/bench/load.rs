//! Load phases, timed the way the UI's loader runs them (files read and parsed in
//! parallel), and the process's memory high-water mark.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::app::Loaded;
use crate::graph::Graph;
use crate::index::LabelIndex;
use crate::model::load::{discover, load_file, load_reader, FileLoad, LoadOptions};
use crate::model::Inventory;

/// Wall times of the load phases and what was loaded.
#[derive(Clone, Debug, Default)]
pub struct LoadReport {
    pub walk: Duration,
    /// Share of the parallel read+parse phase spent reading (by CPU time).
    pub read: Duration,
    /// Share of the parallel read+parse phase spent parsing (by CPU time).
    pub parse: Duration,
    /// Kind registry, scopes, duplicates (`Inventory::build`).
    pub inventory: Duration,
    pub index: Duration,
    pub graph: Duration,
    /// From the start until the first file's objects were parsed (what a streaming loader
    /// could show first).
    pub first_file: Duration,
    pub files: usize,
    pub objects: usize,
    pub bytes: u64,
    pub problems: usize,
}

impl LoadReport {
    /// Walk to graph, i.e. until the UI has everything it needs for the table.
    pub fn total(&self) -> Duration {
        self.walk + self.read + self.parse + self.inventory + self.index + self.graph
    }
}

/// Peak and current resident set size from `/proc/self/status` (0 where unavailable).
#[derive(Clone, Copy, Debug, Default)]
pub struct Rss {
    pub peak: u64,
    pub current: u64,
}

impl Rss {
    pub fn now() -> Rss {
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        let field = |name: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(name))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
                .map_or(0, |kb| kb * 1024)
        };
        Rss {
            peak: field("VmHWM:"),
            current: field("VmRSS:"),
        }
    }
}

/// Reads one file, timing the read and the parse separately (nanoseconds added to the
/// counters). Oversized files go through `load_file`, which refuses them unread.
fn read_and_parse(
    path: &Path,
    opts: &LoadOptions,
    read_ns: &AtomicU64,
    parse_ns: &AtomicU64,
) -> FileLoad {
    let small = std::fs::metadata(path).is_ok_and(|m| m.len() <= opts.max_file_size);
    let t = Instant::now();
    let bytes = if small {
        std::fs::read(path).ok()
    } else {
        None
    };
    let read = t.elapsed();
    let t = Instant::now();
    let load = match bytes {
        Some(b) => load_reader(path, &b[..], opts),
        None => load_file(path, opts),
    };
    add(read_ns, read);
    add(parse_ns, t.elapsed());
    load
}

fn add(counter: &AtomicU64, d: Duration) {
    counter.fetch_add(
        u64::try_from(d.as_nanos()).unwrap_or(u64::MAX),
        Ordering::Relaxed,
    );
}

/// Loads `paths` phase by phase; returns what the UI would receive and the timings.
pub fn measure(paths: &[PathBuf], opts: &LoadOptions) -> (Loaded, LoadReport) {
    let start = Instant::now();
    let (files, walk_problems) = discover(paths, opts);
    let walk = start.elapsed();

    let (read_ns, parse_ns, first_ns) = (AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0));
    let t = Instant::now();
    let loads: Vec<FileLoad> = files
        .par_iter()
        .map(|f| {
            let load = read_and_parse(f, opts, &read_ns, &parse_ns);
            let at = u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX);
            let _ = first_ns.compare_exchange(0, at, Ordering::Relaxed, Ordering::Relaxed);
            load
        })
        .collect();
    let read_parse = t.elapsed();
    let (read_cpu, parse_cpu) = (read_ns.into_inner() as f64, parse_ns.into_inner() as f64);
    let read_share = if read_cpu + parse_cpu > 0.0 {
        read_cpu / (read_cpu + parse_cpu)
    } else {
        0.0
    };
    let read = read_parse.mul_f64(read_share);

    let t = Instant::now();
    let inventory = Inventory::build(loads, walk_problems);
    let inventory_time = t.elapsed();
    let t = Instant::now();
    let index = LabelIndex::build(&inventory.objects);
    let index_time = t.elapsed();
    let t = Instant::now();
    let graph = Graph::build(&inventory);
    let graph_time = t.elapsed();

    let report = LoadReport {
        walk,
        read,
        parse: read_parse.saturating_sub(read),
        inventory: inventory_time,
        index: index_time,
        graph: graph_time,
        first_file: Duration::from_nanos(first_ns.into_inner()),
        files: inventory.files,
        objects: inventory.objects.len(),
        bytes: inventory.bytes,
        problems: inventory.problems.len(),
    };
    let loaded = Loaded {
        inventory,
        index,
        graph,
        stale: Default::default(),
    };
    (loaded, report)
}
