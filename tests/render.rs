//! Rendering with the real kustomize (`kubectl kustomize` is the oracle) and a stand-in
//! helm (tests/fixtures/render/bin/helm: helm cannot be installed here): `get -k`, `get
//! --render`, sources and targets, failures, the cache, and that the input stays untouched.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/render")
}

fn have_kubectl() -> bool {
    let found = Command::new("kubectl")
        .args(["version", "--client"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        eprintln!("skipped: kubectl (the oracle) is not installed");
    }
    found
}

/// kubesift in `dir` with `args`, a cache of its own, and PATH = `extra` + the system's.
fn kubesift(dir: &Path, args: &[&str], cache: &Path, extra: Option<&Path>) -> Output {
    let mut path = std::env::var_os("PATH").unwrap_or_default();
    if let Some(e) = extra {
        let mut p = e.as_os_str().to_owned();
        p.push(":");
        p.push(&path);
        path = p;
    }
    Command::new(env!("CARGO_BIN_EXE_kubesift"))
        .args(args)
        .current_dir(dir)
        .env("XDG_CACHE_HOME", cache)
        .env("PATH", path)
        .output()
        .expect("run kubesift")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The documents of `kubectl kustomize DIR`.
fn kustomize(dir: &Path) -> Vec<serde_json::Value> {
    let out = Command::new("kubectl")
        .arg("kustomize")
        .arg(dir)
        .output()
        .expect("kubectl");
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    serde_yaml::Deserializer::from_str(&text)
        .map(|d| serde::Deserialize::deserialize(d).expect("yaml"))
        .collect()
}

/// `kind.group/name` as `kubectl get -o name` prints it.
fn name_of(v: &serde_json::Value) -> String {
    let api = v["apiVersion"].as_str().unwrap_or("");
    let kind = v["kind"].as_str().unwrap_or("").to_ascii_lowercase();
    let name = v["metadata"]["name"].as_str().unwrap_or("");
    match api.rsplit_once('/') {
        Some((group, _)) => format!("{kind}.{group}/{name}"),
        None => format!("{kind}/{name}"),
    }
}

fn sorted_lines(text: &str) -> Vec<String> {
    let mut v: Vec<String> = text.lines().map(str::to_owned).collect();
    v.sort();
    v
}

fn names_of(docs: &[serde_json::Value]) -> Vec<String> {
    let mut v: Vec<String> = docs.iter().map(name_of).collect();
    v.sort();
    v
}

/// `get -k DIR -o name` lists what `kubectl kustomize DIR` builds, and `-o json` is the
/// built objects themselves (the origin annotation the wrapper asked for is gone).
#[test]
fn get_k_equals_kubectl_kustomize() {
    if !have_kubectl() {
        return;
    }
    let cache = tempfile::tempdir().expect("tempdir");
    let repo = fixtures().join("repo");
    let corpora = Path::new("/work/shared/corpora");
    let mut dirs: Vec<PathBuf> = ["overlays/staging", "overlays/prod", "apps/gen", "base"]
        .iter()
        .map(|d| repo.join(d))
        .collect();
    for d in [
        "microservices-demo/kustomize",
        "microservices-demo/kubernetes-manifests",
        "microservices-demo/kustomize/tests/memorystore-with-all-components",
        "ingress-nginx/deploy/static/provider/aws",
        "ingress-nginx/deploy/static/provider/baremetal",
        "ingress-nginx/deploy/prometheus",
    ] {
        if corpora.join(d).is_dir() {
            dirs.push(corpora.join(d));
        }
    }
    for dir in &dirs {
        let want = kustomize(dir);
        let d = dir.to_str().expect("utf-8");
        let out = kubesift(&repo, &["get", "-k", d, "-o", "name"], cache.path(), None);
        assert!(out.status.success(), "{d}: {}", stderr(&out));
        assert_eq!(sorted_lines(&stdout(&out)), names_of(&want), "{d}");
        let out = kubesift(&repo, &["get", "-k", d, "-o", "json"], cache.path(), None);
        let got: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
        let mut got: Vec<serde_json::Value> = got["items"].as_array().expect("items").clone();
        if got.is_empty() {
            got = vec![serde_json::from_slice(&out.stdout).expect("json")];
        }
        // `get` serves an object without a namespace in `default`, as the API server would.
        let by_name = |docs: Vec<serde_json::Value>| -> BTreeMap<String, serde_json::Value> {
            docs.into_iter()
                .map(|mut v| {
                    if v["metadata"]["namespace"] == "default" {
                        v["metadata"].as_object_mut().map(|m| m.remove("namespace"));
                    }
                    let key = name_of(&v) + v["metadata"]["namespace"].as_str().unwrap_or("");
                    (key, v)
                })
                .collect()
        };
        assert_eq!(by_name(got), by_name(want), "{d}");
    }
}

/// `get --render -o name` is the union of `kubectl kustomize` over the top-level
/// kustomizations plus the plain manifests; the chart is one note without helm.
#[test]
fn render_is_the_union_of_top_level_builds_and_plain_files() {
    if !have_kubectl() {
        return;
    }
    let cache = tempfile::tempdir().expect("tempdir");
    let repo = fixtures().join("repo");
    let out = kubesift(
        &repo,
        &["get", "--render", "-o", "name"],
        cache.path(),
        None,
    );
    let mut want: Vec<String> = ["overlays/staging", "overlays/prod", "apps/gen"]
        .iter()
        .flat_map(|d| names_of(&kustomize(&repo.join(d))))
        .collect();
    want.push("configmap/plain".to_owned());
    want.sort();
    assert_eq!(sorted_lines(&stdout(&out)), want);

    let out = kubesift(&repo, &["check", "--render"], cache.path(), None);
    let text = stdout(&out);
    let errors: Vec<&str> = text.lines().filter(|l| l.contains(": error: ")).collect();
    // The broken overlay is one problem, with kustomize's message; patch files raise none.
    assert_eq!(errors.len(), 1, "{text}");
    assert!(
        errors[0].starts_with("./overlays/broken/kustomization.yaml:1:1: error: ")
            && errors[0].contains("accumulating resources from 'missing.yaml'"),
        "{text}"
    );
    let notes: Vec<&str> = text
        .lines()
        .filter(|l| l.contains(": note: ") && !l.contains("Used? Unable to locate"))
        .collect();
    assert_eq!(
        notes,
        ["./chart/Chart.yaml:1:1: note: -: Helm chart web: helm not found on PATH, not rendered"],
        "{text}"
    );
    assert!(!text.contains("spec.selector"), "{text}");
    assert!(!text.contains("duplicate"), "{text}");
}

/// Every rendered object names its origin file and line and its overlay.
#[test]
fn sources_and_targets() {
    if !have_kubectl() {
        return;
    }
    let cache = tempfile::tempdir().expect("tempdir");
    let repo = fixtures().join("repo");
    let out = kubesift(
        &repo,
        &["tree", "--render", "--show-source"],
        cache.path(),
        None,
    );
    let text = stdout(&out);
    for want in [
        "ConfigMap/app-config-2tc8mbcb62                     ./apps/gen/kustomization.yaml:3",
        "Secret/creds-cf85kd65mm                             ./apps/gen/kustomization.yaml:9",
        "ConfigMap/prod-extra                                ./overlays/prod/configmap.yaml:8",
        "Service/prod-guestbook-ui                           ./base/service.yaml:2",
        "Deployment.apps/staging-guestbook-ui  0/3           ./base/deployment.yaml:1",
        "ConfigMap/plain                                     ./plain/cm.yaml:1",
    ] {
        assert!(text.contains(want), "{want}\n{text}");
    }
    let out = kubesift(
        &repo,
        &["get", "deploy", "--render", "-o", "wide"],
        cache.path(),
        None,
    );
    let text = stdout(&out);
    assert!(
        text.lines().next().is_some_and(|h| h.ends_with("TARGET")),
        "{text}"
    );
    assert!(
        text.contains("prod-guestbook-ui") && text.contains("./overlays/prod\n"),
        "{text}"
    );
    // `-k` with a base outside the overlay's folder: shown from the working directory.
    let out = kubesift(
        &repo,
        &["tree", "-k", "overlays/staging", "--show-source"],
        cache.path(),
        None,
    );
    assert!(
        stdout(&out).contains("base/service.yaml:2"),
        "{}",
        stdout(&out)
    );
    let out = kubesift(
        &repo,
        &["get", "-k", "plain", "-f", "x"],
        cache.path(),
        None,
    );
    assert_eq!(
        stderr(&out),
        "error: only one of -f or -k can be specified\n"
    );
    let out = kubesift(&repo, &["get", "-k", "plain"], cache.path(), None);
    assert!(
        stderr(&out).starts_with("error: unable to find one of 'kustomization.yaml', 'kustomization.yml' or 'Kustomization' in directory '/"),
        "{}",
        stderr(&out)
    );
}

/// With helm on PATH (the stand-in), the chart renders with its values and `--helm-values`;
/// objects point at their templates; the subchart is part of the chart, not a chart of its own.
#[test]
fn helm_charts_render_with_helm() {
    if !have_kubectl() {
        return;
    }
    let cache = tempfile::tempdir().expect("tempdir");
    let repo = fixtures().join("repo");
    let bin = fixtures().join("bin");
    let out = kubesift(
        &repo,
        &["tree", "--render", "--show-source", "-f", "chart"],
        cache.path(),
        Some(&bin),
    );
    let text = stdout(&out);
    for want in [
        "ConfigMap/web-sub     chart/charts/sub/templates/cm.yaml:2",
        "Service/web-web       chart/templates/service.yaml:2",
        "Deployment.apps/web-web  0/2  chart/templates/deployment.yaml:2",
    ] {
        let squeeze = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            squeeze(&text).contains(&squeeze(want)),
            "{want}\n{text}\n{}",
            stderr(&out)
        );
    }
    let values = tempfile::NamedTempFile::new().expect("tmp");
    std::fs::write(values.path(), "replicas: 7\n").expect("write");
    let out = kubesift(
        &repo,
        &[
            "get",
            "deploy",
            "--render",
            "-f",
            "chart",
            "--helm-values",
            values.path().to_str().expect("utf-8"),
        ],
        cache.path(),
        Some(&bin),
    );
    assert!(stdout(&out).contains("0/7"), "{}", stdout(&out));
    let out = kubesift(
        &repo,
        &["check", "--render", "-f", "chart"],
        cache.path(),
        Some(&bin),
    );
    // No note about template syntax (unused-object notes name templates/ files).
    let text = stdout(&out);
    assert!(
        !text
            .lines()
            .filter(|l| !l.contains("Used? Unable to locate resource reference"))
            .any(|l| l.contains("template")),
        "{text}"
    );
}

/// Reopening an unchanged repo answers from the cache: kustomize runs again only for the
/// failed build (failures are not kept) and for a build whose input changed.
#[test]
fn unchanged_builds_come_from_the_cache() {
    if !have_kubectl() {
        return;
    }
    let cache = tempfile::tempdir().expect("tempdir");
    let work = tempfile::tempdir().expect("tempdir");
    copy_dir(&fixtures().join("repo"), &work.path().join("repo"));
    let repo = work.path().join("repo");
    let runs = cache.path().join("runs");
    let count = || std::fs::read_to_string(&runs).map_or(0, |t| t.lines().count());
    let bin = fixtures().join("counting");
    let run = || {
        let out = Command::new(env!("CARGO_BIN_EXE_kubesift"))
            .args(["get", "--render", "-o", "name"])
            .current_dir(&repo)
            .env("XDG_CACHE_HOME", cache.path())
            .env("KUBESIFT_TEST_RUNS", &runs)
            .env(
                "PATH",
                format!(
                    "{}:{}",
                    bin.display(),
                    std::env::var("PATH").unwrap_or_default()
                ),
            )
            .output()
            .expect("run");
        stdout(&out)
    };
    let first = run();
    assert_eq!(count(), 4, "four kustomizations built");
    assert_eq!(run(), first);
    assert_eq!(count(), 5, "only the failed one ran again");
    std::fs::write(
        repo.join("overlays/prod/replicas.yaml"),
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: guestbook-ui\nspec:\n  replicas: 9\n",
    )
    .expect("write");
    run();
    assert_eq!(count(), 7, "prod (its patch changed) and the failed one");
}

/// A render run writes nothing into or beside the input.
#[test]
fn the_input_stays_untouched() {
    if !have_kubectl() {
        return;
    }
    let cache = tempfile::tempdir().expect("tempdir");
    let work = tempfile::tempdir().expect("tempdir");
    copy_dir(&fixtures().join("repo"), &work.path().join("repo"));
    let before = tree_digest(work.path());
    let bin = fixtures().join("bin");
    for args in [
        &["get", "--render", "-o", "yaml"][..],
        &["check", "--render"],
        &["get", "-k", "overlays/prod"],
        &["tree", "-k", "overlays/broken"],
    ] {
        kubesift(&work.path().join("repo"), args, cache.path(), Some(&bin));
    }
    assert_eq!(tree_digest(work.path()), before);
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("read_dir") {
        let e = e.expect("entry");
        let target = to.join(e.file_name());
        if e.path().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).expect("copy");
        }
    }
}

/// Every path under `dir` with its bytes.
fn tree_digest(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("read_dir") {
            let p = e.expect("entry").path();
            if p.is_dir() {
                out.insert(p.clone(), Vec::new());
                stack.push(p);
            } else {
                out.insert(p.clone(), std::fs::read(&p).expect("read"));
            }
        }
    }
    out
}

/// A failed `-k` build exits 1, as `kubectl get -k` and `kubectl kustomize` do, with the
/// build's message (not `nothing could be loaded`, kubesift's status 2 for missing input).
#[test]
fn a_broken_overlay_exits_as_kubectl_does() {
    if !have_kubectl() {
        return;
    }
    let cache = tempfile::tempdir().expect("tempdir");
    let repo = fixtures().join("repo");
    let oracle = std::process::Command::new("kubectl")
        .args(["kustomize", "overlays/broken"])
        .current_dir(&repo)
        .output()
        .expect("kubectl");
    let out = kubesift(&repo, &["get", "-k", "overlays/broken"], cache.path(), None);
    assert_eq!(out.status.code(), oracle.status.code());
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("overlays/broken/kustomization.yaml"));
    assert!(!stderr(&out).contains("nothing could be loaded"));
}

/// kustomize's extensionless `Kustomization` file is found and built by `--render`, as
/// `kubectl kustomize` builds it.
#[test]
fn an_extensionless_kustomization_is_rendered() {
    if !have_kubectl() {
        return;
    }
    let cache = tempfile::tempdir().expect("tempdir");
    let repo = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        repo.path().join("Kustomization"),
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamePrefix: x-\nresources: [cm.yaml]\n",
    )
    .expect("write");
    std::fs::write(
        repo.path().join("cm.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n",
    )
    .expect("write");
    let out = kubesift(
        repo.path(),
        &["get", "--render", "-o", "name"],
        cache.path(),
        None,
    );
    assert_eq!(
        sorted_lines(&stdout(&out)),
        names_of(&kustomize(repo.path())),
        "{}",
        stderr(&out)
    );
    assert_eq!(stdout(&out), "configmap/x-cm\n");
}
