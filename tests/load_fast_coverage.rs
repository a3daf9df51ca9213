//! How much of a folder's YAML the fast path takes, per folder and per fallback reason, as
//! the loader counts it (`FileLoad::yaml`). A report, not a check: run it with
//!
//!     KUBESIFT_COVERAGE_DIRS=/a:/b cargo test --test load_fast_coverage -- --ignored --nocapture
//!
//! (`KUBESIFT_COVERAGE_FILES=1`: also every file with a fallback)
//! (default: every folder under /work/shared/corpora). tests/load_fast_equiv.rs checks
//! that what is taken agrees with saphyr.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use kubesift::model::load::{
    load_paths_with, parse_text, yaml_document_count, LoadOptions, YamlStats,
};

fn dirs() -> Vec<PathBuf> {
    if let Some(v) = std::env::var_os("KUBESIFT_COVERAGE_DIRS") {
        return std::env::split_paths(&v).collect();
    }
    let mut d: Vec<PathBuf> = std::fs::read_dir("/work/shared/corpora")
        .map(|r| r.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    d.sort();
    d
}

fn stats(dir: &PathBuf) -> YamlStats {
    let total = Mutex::new(YamlStats::default());
    let list = std::env::var_os("KUBESIFT_COVERAGE_FILES").is_some();
    load_paths_with(std::slice::from_ref(dir), &LoadOptions::default(), &|l| {
        if list && l.yaml.fallbacks() > 0 {
            println!("  {}: {}", l.path.display(), l.yaml.summary());
        }
        if let Ok(mut t) = total.lock() {
            t.add(&l.yaml);
        }
    });
    total.into_inner().unwrap_or_default()
}

#[test]
#[ignore = "a report over folders outside the repository"]
fn fallback_share_per_folder() {
    let mut all = YamlStats::default();
    for d in dirs() {
        let s = stats(&d);
        println!("{}: {}", d.display(), s.summary());
        all.add(&s);
    }
    println!("all: {}", all.summary());
}

/// Every YAML file under `dir` (`.yaml`, `.yml`; a leading byte order mark taken off; files
/// that are JSON inside left out), in memory.
fn yaml_texts(dir: &Path, out: &mut Vec<(PathBuf, String)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            yaml_texts(&p, out);
            continue;
        }
        let yaml = p
            .extension()
            .is_some_and(|x| x.eq_ignore_ascii_case("yaml") || x.eq_ignore_ascii_case("yml"));
        let Some(text) = yaml.then(|| std::fs::read_to_string(&p).ok()).flatten() else {
            continue;
        };
        let text = text.strip_prefix('\u{feff}').unwrap_or(&text).to_owned();
        if !matches!(text.trim_start().as_bytes().first(), Some(b'{' | b'[')) {
            out.push((p, text));
        }
    }
}

/// Nanoseconds this thread has run on a CPU (Linux `schedstat`).
fn thread_cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

/// Single-thread parse throughput of the folders' YAML files, already in memory: YAML to
/// values alone (fast path, saphyr where it declines), and the whole of `parse_text`
/// (objects, lists, notes), per second on the CPU. Build with `--release`; `KUBESIFT_PARSE_ROUNDS` (default 3)
/// rounds, the best kept; `KUBESIFT_PARSE_YAML_ONLY=1`: the first alone (to profile the
/// parser under `perf record`).
#[test]
#[ignore = "a measurement over folders outside the repository"]
fn parse_throughput() {
    let rounds: usize = std::env::var("KUBESIFT_PARSE_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    for d in dirs() {
        let mut files = Vec::new();
        yaml_texts(&d, &mut files);
        let bytes: usize = files.iter().map(|(_, t)| t.len()).sum();
        let mb = bytes as f64 / 1e6;
        let best = |f: &dyn Fn() -> usize| {
            (0..rounds)
                .map(|_| {
                    let (start, cpu) = (Instant::now(), thread_cpu_ns());
                    std::hint::black_box(f());
                    // Time on the CPU where the kernel tells it (less noisy on a shared
                    // machine than the wall clock), else the wall clock.
                    match (cpu, thread_cpu_ns()) {
                        (Some(a), Some(b)) => (b - a) as f64 / 1e9,
                        _ => start.elapsed().as_secs_f64(),
                    }
                })
                .fold(f64::INFINITY, f64::min)
        };
        let yaml = best(&|| {
            files
                .iter()
                .map(|(_, t)| yaml_document_count(t, false))
                .sum()
        });
        if std::env::var_os("KUBESIFT_PARSE_YAML_ONLY").is_some() {
            println!(
                "{}: {mb:.1} MB: YAML → values {:.0} MB/s",
                d.display(),
                mb / yaml
            );
            continue;
        }
        let whole = best(&|| {
            files
                .iter()
                .map(|(p, t)| parse_text(&Arc::from(p.as_path()), t).objects.len())
                .sum()
        });
        println!(
            "{}: {} YAML files, {mb:.1} MB: YAML → values {:.0} MB/s, parse_text {:.0} MB/s (one thread)",
            d.display(),
            files.len(),
            mb / yaml,
            mb / whole
        );
    }
}
