//! Deterministic synthetic corpus: "kubectl get -o yaml"-like objects for benchmarks.
//!
//! `cargo run --release --example gen_corpus -- -n 100000 -o DIR [--seed S] [--force]`
//!
//! About 50 namespaces and n/50 files (≈2,000 for 100k objects), mixing multi-document
//! YAML, YAML `kind: List` and JSON `List` files. Each app is a Deployment → ReplicaSet →
//! Pods chain (uids and ownerReferences), a Service selecting the pods and a ConfigMap, with
//! the recommended `app.kubernetes.io/*` labels and a `tier` label (absent on some objects).
//! Some objects carry finalizers, some are Terminating (deletionTimestamp). Objects average
//! about 2 KB, so 100k objects make ≈200 MB.
//!
//! The same seed always gives byte-identical files. Benches and tests include this file as
//! a module (`#[path]`) and use [`corpus`] in memory.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

/// Objects per file on average (100k objects → 2,000 files).
pub const PER_FILE: usize = 50;
/// Namespaces used (fewer when there are fewer files).
pub const NAMESPACES: usize = 50;

/// Label values of `app.kubernetes.io/part-of`.
pub const PART_OF: [&str; 6] = ["shop", "data", "billing", "auth", "platform", "monitoring"];
/// Values of `tier` (index 4: the label is absent).
pub const TIERS: [&str; 4] = ["frontend", "backend", "cache", "db"];

/// splitmix64: tiny, fast, good enough for synthetic data, and stable forever.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// True with probability `pct`/100.
    pub fn percent(&mut self, pct: u64) -> bool {
        self.below(100) < pct
    }

    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }

    pub fn uid(&mut self) -> String {
        let a = self.next_u64();
        let b = self.next_u64();
        format!(
            "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
            a >> 32,
            (a >> 16) & 0xffff,
            a & 0xfff,
            0x8000 | (b >> 48 & 0x3fff),
            b & 0xffff_ffff_ffff
        )
    }

    /// Lowercase alphanumeric suffix, as the ReplicaSet/Pod name generators make.
    pub fn suffix(&mut self, len: usize) -> String {
        const CHARS: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
        (0..len)
            .map(|_| CHARS[self.below(CHARS.len() as u64) as usize] as char)
            .collect()
    }
}

/// How one file is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// `---`-separated documents.
    MultiDoc,
    /// One YAML `kind: List`.
    YamlList,
    /// One JSON `List` (pretty-printed, as `kubectl get -o json`).
    JsonList,
}

/// One generated file: path relative to the corpus root, text, object count.
#[derive(Clone, Debug)]
pub struct GenFile {
    pub path: PathBuf,
    pub text: String,
    pub objects: usize,
    pub format: Format,
}

/// What a generated corpus holds, for checks.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub files: usize,
    pub objects: usize,
    pub bytes: u64,
    /// Objects whose labels match `app.kubernetes.io/part-of in (shop,data),tier!=cache`.
    pub default_selector_matches: usize,
    pub terminating: usize,
}

fn namespace_name(i: usize) -> String {
    const TEAMS: [&str; 10] = [
        "shop", "data", "billing", "auth", "platform", "search", "ml", "web", "ops", "edge",
    ];
    const ENVS: [&str; 5] = ["prod", "staging", "dev", "qa", "perf"];
    format!("{}-{}", TEAMS[i % 10], ENVS[(i / 10) % 5])
}

fn ts(rng: &mut Rng, base_day: u64) -> String {
    let day = base_day + rng.below(28);
    format!(
        "2026-{:02}-{:02}T{:02}:{:02}:{:02}Z",
        1 + (day / 28) % 12,
        1 + day % 28,
        rng.below(24),
        rng.below(60),
        rng.below(60)
    )
}

/// Per-app constants shared by its objects.
struct App {
    ns: String,
    name: String,
    part_of: &'static str,
    tier: Option<&'static str>,
    component: &'static str,
    version: String,
    image: String,
    hash: String,
}

impl App {
    fn new(rng: &mut Rng, ns: &str, index: usize) -> App {
        const WORDS: [&str; 12] = [
            "cart", "checkout", "catalog", "orders", "payments", "ledger", "ingest", "etl",
            "session", "gateway", "search", "profile",
        ];
        const COMPONENTS: [&str; 4] = ["server", "worker", "api", "proxy"];
        let part_of = PART_OF[rng.below(PART_OF.len() as u64) as usize];
        let t = rng.below(5) as usize;
        let word = rng.pick(&WORDS);
        let version = format!("{}.{}.{}", 1 + rng.below(3), rng.below(20), rng.below(10));
        App {
            ns: ns.to_string(),
            name: format!("{word}-{index}"),
            part_of,
            tier: TIERS.get(t).copied(),
            component: rng.pick(&COMPONENTS),
            image: format!("registry.example.com/{part_of}/{word}:{version}"),
            version,
            hash: rng.suffix(10),
        }
    }

    fn labels(&self, extra: &[(&str, &str)]) -> Value {
        let mut m = Map::new();
        m.insert("app.kubernetes.io/name".into(), json!(self.name));
        m.insert(
            "app.kubernetes.io/instance".into(),
            json!(format!("{}-{}", self.name, self.ns)),
        );
        m.insert("app.kubernetes.io/version".into(), json!(self.version));
        m.insert("app.kubernetes.io/component".into(), json!(self.component));
        m.insert("app.kubernetes.io/part-of".into(), json!(self.part_of));
        m.insert("app.kubernetes.io/managed-by".into(), json!("Helm"));
        if let Some(t) = self.tier {
            m.insert("tier".into(), json!(t));
        }
        for (k, v) in extra {
            m.insert((*k).into(), json!(v));
        }
        Value::Object(m)
    }

    fn selector(&self) -> Value {
        json!({"app.kubernetes.io/name": self.name, "app.kubernetes.io/instance": format!("{}-{}", self.name, self.ns)})
    }

    fn container(&self) -> Value {
        json!([{
            "name": self.component,
            "image": self.image,
            "imagePullPolicy": "IfNotPresent",
            "ports": [{"containerPort": 8080, "name": "http", "protocol": "TCP"}],
            "env": [{"name": "APP_NAME", "value": self.name},
                    {"name": "LOG_LEVEL", "value": "info"}],
            "resources": {"limits": {"cpu": "500m", "memory": "512Mi"}, "requests": {"cpu": "100m", "memory": "128Mi"}},
            "volumeMounts": [{"mountPath": "/etc/app", "name": "config", "readOnly": true}]
        }])
    }

    fn pod_spec(&self) -> Value {
        json!({
            "containers": self.container(),
            "dnsPolicy": "ClusterFirst",
            "restartPolicy": "Always",
            "schedulerName": "default-scheduler",
            "serviceAccountName": self.name,
            "terminationGracePeriodSeconds": 30,
            "volumes": [{"name": "config", "configMap": {"name": format!("{}-config", self.name), "defaultMode": 420}}]
        })
    }
}

fn meta(rng: &mut Rng, app: &App, name: &str, labels: Value) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("name".into(), json!(name));
    m.insert("namespace".into(), json!(app.ns));
    m.insert("uid".into(), json!(rng.uid()));
    m.insert(
        "resourceVersion".into(),
        json!(rng.below(90_000_000).to_string()),
    );
    m.insert("generation".into(), json!(1 + rng.below(5)));
    m.insert("creationTimestamp".into(), json!(ts(rng, 0)));
    m.insert("labels".into(), labels);
    m.insert(
        "annotations".into(),
        json!({"meta.helm.sh/release-name": app.name, "meta.helm.sh/release-namespace": app.ns}),
    );
    if rng.percent(5) {
        m.insert("finalizers".into(), json!(["example.com/protect"]));
        if rng.percent(40) {
            m.insert("deletionTimestamp".into(), json!(ts(rng, 200)));
            m.insert("deletionGracePeriodSeconds".into(), json!(0));
        }
    }
    m
}

fn owner(api: &str, kind: &str, name: &str, uid: &Value) -> Value {
    json!([{"apiVersion": api, "kind": kind, "name": name, "uid": uid,
            "controller": true, "blockOwnerDeletion": true}])
}

fn condition(rng: &mut Rng, kind: &str, status: &str) -> Value {
    json!({"type": kind, "status": status, "lastProbeTime": null,
           "lastTransitionTime": ts(rng, 30)})
}

/// The objects of one app, in this order: Deployment, ReplicaSet, Pods…, Service, ConfigMap.
fn app_objects(rng: &mut Rng, app: &App) -> Vec<Value> {
    let replicas = 1 + rng.below(4);
    let mut out = Vec::new();

    let mut dm = meta(rng, app, &app.name, app.labels(&[]));
    dm.insert(
        "annotations".into(),
        json!({"deployment.kubernetes.io/revision": "3", "meta.helm.sh/release-name": app.name,
               "meta.helm.sh/release-namespace": app.ns}),
    );
    let d_uid = dm["uid"].clone();
    out.push(json!({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": dm,
        "spec": {"replicas": replicas, "revisionHistoryLimit": 10,
                 "selector": {"matchLabels": app.selector()},
                 "strategy": {"rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}, "type": "RollingUpdate"},
                 "template": {"metadata": {"labels": app.labels(&[])}, "spec": app.pod_spec()}},
        "status": {"availableReplicas": replicas, "observedGeneration": 3, "readyReplicas": replicas,
                   "replicas": replicas, "updatedReplicas": replicas,
                   "conditions": [condition(rng, "Available", "True"), condition(rng, "Progressing", "True")]}
    }));

    let rs_name = format!("{}-{}", app.name, app.hash);
    let hash = [("pod-template-hash", app.hash.as_str())];
    let mut rm = meta(rng, app, &rs_name, app.labels(&hash));
    rm.insert(
        "ownerReferences".into(),
        owner("apps/v1", "Deployment", &app.name, &d_uid),
    );
    let rs_uid = rm["uid"].clone();
    let mut sel = app.selector();
    sel["pod-template-hash"] = json!(app.hash);
    out.push(json!({
        "apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": rm,
        "spec": {"replicas": replicas, "selector": {"matchLabels": sel},
                 "template": {"metadata": {"labels": app.labels(&hash)}, "spec": app.pod_spec()}},
        "status": {"availableReplicas": replicas, "fullyLabeledReplicas": replicas,
                   "observedGeneration": 1, "readyReplicas": replicas, "replicas": replicas}
    }));

    for _ in 0..replicas {
        let pod = format!("{rs_name}-{}", rng.suffix(5));
        let mut pm = meta(rng, app, &pod, app.labels(&hash));
        pm.insert(
            "ownerReferences".into(),
            owner("apps/v1", "ReplicaSet", &rs_name, &rs_uid),
        );
        let running = !rng.percent(3);
        let ip = format!(
            "10.{}.{}.{}",
            rng.below(256),
            rng.below(256),
            rng.below(256)
        );
        let mut spec = app.pod_spec();
        spec["nodeName"] = json!(format!("node-{}", rng.below(40)));
        out.push(json!({
            "apiVersion": "v1", "kind": "Pod", "metadata": pm, "spec": spec,
            "status": {
                "phase": if running { "Running" } else { "Pending" },
                "podIP": ip, "hostIP": format!("192.168.{}.{}", rng.below(4), rng.below(256)),
                "qosClass": "Burstable", "startTime": ts(rng, 30),
                "conditions": [condition(rng, "Initialized", "True"),
                               condition(rng, "Ready", if running { "True" } else { "False" }),
                               condition(rng, "ContainersReady", if running { "True" } else { "False" }),
                               condition(rng, "PodScheduled", "True")],
                "containerStatuses": [{"name": app.component, "image": app.image,
                    "imageID": format!("registry.example.com/{}@sha256:{:016x}{:016x}", app.part_of, rng.next_u64(), rng.next_u64()),
                    "containerID": format!("containerd://{:016x}{:016x}", rng.next_u64(), rng.next_u64()),
                    "ready": running, "restartCount": rng.below(3), "started": running,
                    "state": {"running": {"startedAt": ts(rng, 30)}}}]
            }
        }));
    }

    let sm = meta(rng, app, &app.name, app.labels(&[]));
    out.push(json!({
        "apiVersion": "v1", "kind": "Service", "metadata": sm,
        "spec": {"clusterIP": format!("10.96.{}.{}", rng.below(256), rng.below(256)),
                 "ports": [{"name": "http", "port": 80, "protocol": "TCP", "targetPort": "http"},
                           {"name": "metrics", "port": 9090, "protocol": "TCP", "targetPort": "metrics"}],
                 "selector": app.selector(), "sessionAffinity": "None", "type": "ClusterIP"},
        "status": {"loadBalancer": {}}
    }));

    let cm_name = format!("{}-config", app.name);
    let cm = meta(rng, app, &cm_name, app.labels(&[]));
    let config = format!(
        "server:\n  port: 8080\n  metricsPort: 9090\nlog:\n  level: info\n  format: json\nupstream:\n  url: http://{}.{}.svc.cluster.local\n  timeout: {}s\nfeatures:\n  cache: {}\n  tracing: true\n",
        app.part_of,
        app.ns,
        1 + rng.below(30),
        app.tier == Some("cache")
    );
    out.push(json!({
        "apiVersion": "v1", "kind": "ConfigMap", "metadata": cm,
        "data": {"config.yaml": config, "LOG_LEVEL": "info", "REGION": rng.pick(&["eu-west-1", "us-east-1", "ap-south-1"])}
    }));
    out
}

/// Whether `labels` match `app.kubernetes.io/part-of in (shop,data),tier!=cache`.
pub fn matches_default_selector(obj: &Value) -> bool {
    let labels = &obj["metadata"]["labels"];
    let part_of = labels["app.kubernetes.io/part-of"].as_str();
    matches!(part_of, Some("shop" | "data")) && labels["tier"].as_str() != Some("cache")
}

fn render(format: Format, objects: &[Value]) -> String {
    match format {
        Format::MultiDoc => {
            let mut out = String::new();
            for o in objects {
                out.push_str("---\n");
                out.push_str(&serde_yaml::to_string(o).unwrap_or_default());
            }
            out
        }
        Format::YamlList => serde_yaml::to_string(&list(objects)).unwrap_or_default(),
        Format::JsonList => {
            let mut s = serde_json::to_string_pretty(&list(objects)).unwrap_or_default();
            s.push('\n');
            s
        }
    }
}

fn list(objects: &[Value]) -> Value {
    json!({"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": objects})
}

/// The whole corpus in memory, one [`GenFile`] per file, plus its summary. Exactly `n`
/// objects (the last app of a file may be cut short).
pub fn corpus(n: usize, seed: u64) -> (Vec<GenFile>, Summary) {
    let files = n.div_ceil(PER_FILE).max(1);
    let namespaces = NAMESPACES.min(files);
    let mut rng = Rng::new(seed);
    let mut out = Vec::with_capacity(files);
    let mut summary = Summary::default();
    let mut app_index = 0;
    for f in 0..files {
        let quota = n / files + usize::from(f < n % files);
        let ns = namespace_name(f % namespaces);
        let mut objects = Vec::with_capacity(quota + 8);
        while objects.len() < quota {
            let app = App::new(&mut rng, &ns, app_index);
            app_index += 1;
            objects.extend(app_objects(&mut rng, &app));
        }
        objects.truncate(quota);
        let format = match rng.below(20) {
            0..=11 => Format::MultiDoc,
            12..=16 => Format::YamlList,
            _ => Format::JsonList,
        };
        let ext = if format == Format::JsonList {
            "json"
        } else {
            "yaml"
        };
        summary.objects += objects.len();
        summary.default_selector_matches += objects
            .iter()
            .filter(|o| matches_default_selector(o))
            .count();
        summary.terminating += objects
            .iter()
            .filter(|o| o["metadata"].get("deletionTimestamp").is_some())
            .count();
        let text = render(format, &objects);
        summary.bytes += text.len() as u64;
        summary.files += 1;
        out.push(GenFile {
            path: Path::new(&ns).join(format!("f{f:05}.{ext}")),
            text,
            objects: objects.len(),
            format,
        });
    }
    (out, summary)
}

/// Writes the corpus under `dir` (created if missing). Refuses a non-empty `dir` unless
/// `force`.
pub fn write_corpus(dir: &Path, n: usize, seed: u64, force: bool) -> Result<Summary, String> {
    if !force {
        if let Ok(mut entries) = std::fs::read_dir(dir) {
            if entries.next().is_some() {
                return Err(format!(
                    "{} is not empty (use --force to write into it anyway)",
                    dir.display()
                ));
            }
        }
    }
    let (files, summary) = corpus(n, seed);
    for f in &files {
        let path = dir.join(&f.path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
        }
        std::fs::write(&path, &f.text)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(summary)
}

fn usage() -> ! {
    eprintln!("usage: gen_corpus -n OBJECTS -o DIR [--seed S] [--force]");
    std::process::exit(2)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut n, mut dir, mut seed, mut force) = (None, None, 42u64, false);
    while let Some(a) = args.next() {
        match a.as_str() {
            "-n" => n = args.next().and_then(|v| v.parse::<usize>().ok()),
            "-o" => dir = args.next().map(PathBuf::from),
            "--seed" => {
                seed = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .unwrap_or_else(|| usage())
            }
            "--force" => force = true,
            _ => usage(),
        }
    }
    let (Some(n), Some(dir)) = (n, dir) else {
        usage()
    };
    match write_corpus(&dir, n, seed, force) {
        Ok(s) => println!(
            "{} objects in {} files, {} bytes ({:.1} MB, {:.0} B/object) under {}; {} match `app.kubernetes.io/part-of in (shop,data),tier!=cache`, {} terminating",
            s.objects,
            s.files,
            s.bytes,
            s.bytes as f64 / 1e6,
            s.bytes as f64 / s.objects.max(1) as f64,
            dir.display(),
            s.default_selector_matches,
            s.terminating
        ),
        Err(e) => {
            eprintln!("gen_corpus: {e}");
            std::process::exit(1)
        }
    }
}
