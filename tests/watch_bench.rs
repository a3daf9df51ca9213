//! Cost of applying a one-file edit to a live set of ~100k objects. Ignored by default; run
//! in release mode:
//! `cargo test --release --test watch_bench -- --ignored --nocapture`

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use kubesift::model::load::{discover, load_file, LoadOptions};
use kubesift::model::Inventory;
use kubesift::watch::{delta, DeltaKind, LiveSet};

const FILES: usize = 1000;
const PER_FILE: usize = 100;

fn deployment(file: usize, i: usize, image: &str) -> String {
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app-{file}-{i}\n  namespace: ns-{ns}\n  labels:\n    app: app-{i}\n    tier: {tier}\n    team: t{team}\nspec:\n  replicas: 2\n  selector:\n    matchLabels:\n      app: app-{i}\n  template:\n    metadata:\n      labels:\n        app: app-{i}\n    spec:\n      containers:\n      - name: main\n        image: {image}\n        ports:\n        - containerPort: 8080\n",
        ns = file % 20,
        tier = ["web", "api", "db"][i % 3],
        team = file % 7,
    )
}

fn file_text(file: usize, edited: Option<&str>) -> String {
    (0..PER_FILE)
        .map(|i| {
            deployment(
                file,
                i,
                if i == 7 {
                    edited.unwrap_or("nginx:1")
                } else {
                    "nginx:1"
                },
            )
        })
        .collect::<Vec<_>>()
        .join("---\n")
}

fn generate(root: &Path) {
    for f in 0..FILES {
        let dir = root.join(format!("team{}", f % 10));
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::write(dir.join(format!("f{f}.yaml")), file_text(f, None)).expect("write");
    }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

#[test]
#[ignore = "benchmark: run with --release --ignored --nocapture"]
fn apply_one_file_edit_at_100k_objects() {
    let dir = tempfile::tempdir().expect("tmp");
    generate(dir.path());
    let roots = [dir.path().to_path_buf()];
    let opts = LoadOptions::default();

    let t = Instant::now();
    let mut live = LiveSet::load(&roots, &opts);
    let load = t.elapsed();
    assert_eq!(live.inventory().objects.len(), FILES * PER_FILE);

    let target: PathBuf = dir.path().join("team3/f13.yaml");
    let mut apply = Vec::new();
    for round in 0..7 {
        std::fs::write(
            &target,
            file_text(13, Some(&format!("nginx:{}", round + 2))),
        )
        .expect("edit");
        let t = Instant::now();
        let deltas = live.apply(std::slice::from_ref(&target));
        apply.push(t.elapsed());
        assert_eq!(deltas.len(), 1);
        assert_eq!(deltas[0].kind, DeltaKind::Modified);
    }

    // Breakdown: the two linear phases of `apply`.
    let (files, _) = discover(&roots, &opts);
    let loads: Vec<_> = files.iter().map(|f| load_file(f, &opts)).collect();
    let mut build = Vec::new();
    let mut diff = Vec::new();
    let mut read = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        let _ = load_file(&target, &opts);
        read.push(t.elapsed());
        let t = Instant::now();
        let inv = Inventory::build(loads.clone(), Vec::new());
        build.push(t.elapsed());
        let t = Instant::now();
        let a = delta::index(&inv.objects);
        let b = delta::index(&live.inventory().objects);
        let _ = delta::diff(&inv.objects, &a, &live.inventory().objects, &b);
        diff.push(t.elapsed());
    }
    println!(
        "objects {} in {} files: initial load {:?}; apply(one-file edit) median {:?} (min {:?}, max {:?}); \
         of which: read+parse one file {:?}, Inventory::build (incl. cloning the per-file loads) {:?}, index+diff {:?}",
        FILES * PER_FILE,
        FILES,
        load,
        median(apply.clone()),
        apply.iter().min().copied().unwrap_or_default(),
        apply.iter().max().copied().unwrap_or_default(),
        median(read),
        median(build),
        median(diff),
    );
}
