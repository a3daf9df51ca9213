//! Loader throughput against serde_yaml on a big multi-document file (ignored: a
//! measurement, not a check). Run optimised:
//! `KUBESIFT_SPEED_FILE=big.yaml CARGO_PROFILE_DEV_OPT_LEVEL=2 cargo test --test load_speed -- --ignored --nocapture`

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use kubesift::model::load::{load_paths, parse_text, LoadOptions};

fn mbps(bytes: usize, secs: f64) -> f64 {
    bytes as f64 / 1e6 / secs
}

#[test]
#[ignore = "measurement; needs KUBESIFT_SPEED_FILE"]
fn throughput_vs_serde_yaml() {
    let Ok(file) = std::env::var("KUBESIFT_SPEED_FILE") else {
        eprintln!("KUBESIFT_SPEED_FILE not set: nothing measured");
        return;
    };
    let text = std::fs::read_to_string(&file).unwrap();
    let path: Arc<Path> = Arc::from(Path::new(&file));

    let t = Instant::now();
    let mut n = 0;
    for doc in serde_yaml::Deserializer::from_str(&text) {
        let v: serde_json::Value = serde::Deserialize::deserialize(doc).unwrap();
        n += usize::from(!v.is_null());
    }
    let serde_secs = t.elapsed().as_secs_f64();

    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let t = Instant::now();
    let one = pool.install(|| parse_text(&path, &text));
    let one_secs = t.elapsed().as_secs_f64();

    let t = Instant::now();
    let all = parse_text(&path, &text);
    let all_secs = t.elapsed().as_secs_f64();

    let t = Instant::now();
    let inv = load_paths(&[PathBuf::from(&file)], &LoadOptions::default());
    let inv_secs = t.elapsed().as_secs_f64();

    assert_eq!(one.objects.len(), n);
    assert_eq!(all.objects.len(), n);
    eprintln!(
        "{} MB, {n} objects\nserde_yaml → serde_json::Value, 1 thread: {:.3}s = {:.1} MB/s\nkubesift parse_text, 1 thread:           {:.3}s = {:.1} MB/s\nkubesift parse_text, rayon ({} threads):  {:.3}s = {:.1} MB/s\nkubesift load_paths (read+parse+inventory): {:.3}s = {:.1} MB/s",
        text.len() / 1_000_000,
        serde_secs,
        mbps(text.len(), serde_secs),
        one_secs,
        mbps(text.len(), one_secs),
        rayon::current_num_threads(),
        all_secs,
        mbps(text.len(), all_secs),
        inv_secs,
        mbps(text.len(), inv_secs),
    );
    assert_eq!(inv.objects.len(), n);
}

#[test]
#[ignore = "measurement; needs KUBESIFT_SPEED_FILE"]
fn saphyr_event_floor() {
    let Ok(file) = std::env::var("KUBESIFT_SPEED_FILE") else {
        return;
    };
    let text = std::fs::read_to_string(&file).unwrap();
    let t = Instant::now();
    let mut events = 0usize;
    let mut parser = saphyr_parser::Parser::new_from_str(&text);
    while let Some(Ok(_)) = parser.next_event() {
        events += 1;
    }
    let secs = t.elapsed().as_secs_f64();
    eprintln!(
        "saphyr-parser events only, 1 thread: {secs:.3}s = {:.1} MB/s ({events} events)",
        mbps(text.len(), secs)
    );
    assert!(events > 0);
}
