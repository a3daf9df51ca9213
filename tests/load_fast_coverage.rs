//! How much of a folder's YAML the fast path takes, per folder and per fallback reason, as
//! the loader counts it (`FileLoad::yaml`). A report, not a check: run it with
//!
//!     KUBESIFT_COVERAGE_DIRS=/a:/b cargo test --test load_fast_coverage -- --ignored --nocapture
//!
//! (`KUBESIFT_COVERAGE_FILES=1`: also every file with a fallback)
//! (default: every folder under /work/shared/corpora). tests/load_fast_equiv.rs checks
//! that what is taken agrees with saphyr.

use std::path::PathBuf;
use std::sync::Mutex;

use kubesift::model::load::{load_paths_with, LoadOptions, YamlStats};

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
