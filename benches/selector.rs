//! Label selectors on the keystroke path: parse a 10-requirement selector, and parse it
//! then match it against 100k label sets like those of a large cluster's objects.

use std::collections::{BTreeMap, HashMap};
use std::hint::black_box;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use kubesift::selector::parse_labels;

/// Ten requirements, every operator kind, keys as real manifests spell them.
const SELECTOR: &str = "app.kubernetes.io/name in (web,api,worker),\
app.kubernetes.io/managed-by=Helm,tier!=cache,env notin (dev,test),!canary,\
topology.kubernetes.io/zone,team in (payments,search,infra),version>2,release<900,\
app.kubernetes.io/part-of!=legacy";

type Labels = BTreeMap<Arc<str>, Arc<str>>;

/// A deterministic xorshift stream, so every run matches the same sets.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[(self.next() % from.len() as u64) as usize]
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

/// `n` label sets of 8–13 labels; a few percent of them match [`SELECTOR`]. Every key
/// and value is its own allocation, as the loader makes them today; with `interned`,
/// equal strings share one `Arc` (what an interner would give).
fn label_sets(n: usize, interned: bool) -> Vec<Labels> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut sets = Vec::with_capacity(n);
    let pool = std::cell::RefCell::new(HashMap::<String, Arc<str>>::new());
    let s = |x: &str| -> Arc<str> {
        if !interned {
            return Arc::from(x);
        }
        let mut pool = pool.borrow_mut();
        Arc::clone(pool.entry(x.to_string()).or_insert_with(|| Arc::from(x)))
    };
    for i in 0..n {
        let mut l = Labels::new();
        let name = rng.pick(&["web", "api", "worker", "db", "cache", "batch"]);
        l.insert(s("app.kubernetes.io/name"), s(name));
        l.insert(
            s("app.kubernetes.io/instance"),
            s(&format!("{name}-{}", i % 997)),
        );
        if rng.chance(85) {
            let by = rng.pick(&["Helm", "Helm", "Helm", "kustomize"]);
            l.insert(s("app.kubernetes.io/managed-by"), s(by));
        }
        l.insert(s("tier"), s(rng.pick(&["frontend", "backend", "cache"])));
        l.insert(s("env"), s(rng.pick(&["prod", "prod", "staging", "dev"])));
        if rng.chance(5) {
            l.insert(s("canary"), s("true"));
        }
        if rng.chance(90) {
            let zone = rng.pick(&["eu-west-1a", "eu-west-1b", "us-east-1a"]);
            l.insert(s("topology.kubernetes.io/zone"), s(zone));
        }
        let team = rng.pick(&["payments", "search", "infra", "growth"]);
        l.insert(s("team"), s(team));
        l.insert(s("version"), s(&(rng.next() % 6).to_string()));
        if rng.chance(70) {
            l.insert(s("release"), s(&(rng.next() % 1200).to_string()));
        }
        if rng.chance(30) {
            let part = rng.pick(&["shop", "legacy", "platform"]);
            l.insert(s("app.kubernetes.io/part-of"), s(part));
        }
        l.insert(
            s("pod-template-hash"),
            s(&format!("{:010x}", rng.next() >> 24)),
        );
        sets.push(l);
    }
    sets
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("selector");
    // Parse first, before 200k label maps fill the heap.
    g.bench_function("parse_10_requirements", |b| {
        b.iter(|| parse_labels(black_box(SELECTOR)))
    });

    let sets = label_sets(100_000, false);
    let shared = label_sets(100_000, true);
    let matched = match parse_labels(SELECTOR) {
        Ok(sel) => sets.iter().filter(|l| sel.matches(*l)).count(),
        Err(e) => panic!("bench selector: {e}"),
    };
    // Keep the workload honest: some sets match, most fail on different requirements.
    assert!(
        (1_000..50_000).contains(&matched),
        "{matched} of 100k match"
    );
    eprintln!("selector bench: {matched} of 100000 label sets match");

    g.throughput(Throughput::Elements(sets.len() as u64));
    g.sample_size(20);
    g.bench_function("parse_and_match_100k", |b| {
        b.iter(|| match parse_labels(black_box(SELECTOR)) {
            Ok(sel) => sets.iter().filter(|l| sel.matches(*l)).count(),
            Err(_) => 0,
        })
    });
    g.bench_function("parse_and_match_100k_interned", |b| {
        b.iter(|| match parse_labels(black_box(SELECTOR)) {
            Ok(sel) => shared.iter().filter(|l| sel.matches(*l)).count(),
            Err(_) => 0,
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
