//! What the input renders: its kustomizations and Helm charts, the files each build reads,
//! and which of them are top-level (built and shown) rather than inputs of another build.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Path, PathBuf};

use serde_yaml::Value;

use super::paths::normalize;

/// The names kustomize looks for in a directory, in its order.
pub const KUSTOMIZATION_NAMES: [&str; 3] =
    ["kustomization.yaml", "kustomization.yml", "Kustomization"];

/// What renders a unit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UnitKind {
    Kustomize,
    /// A Helm chart, with the chart's name (Chart.yaml `name`, else the folder's name).
    Helm {
        name: String,
    },
}

/// One build: a top-level kustomization or chart of the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unit {
    pub kind: UnitKind,
    /// The kustomization's (chart's) folder, as the input spells it: the TARGET of its objects.
    pub dir: PathBuf,
    /// The kustomization file (Chart.yaml): where its build problems are reported, and the
    /// key its objects are kept under.
    pub manifest: PathBuf,
    /// Every file the build reads that kubesift can tell (normalised), the manifest
    /// included; files outside the input too (a base beside the overlay's folder).
    pub inputs: BTreeSet<PathBuf>,
    /// The build fetches a remote resource (a git repository or URL), directly or through
    /// a kustomization it lists: its output depends on more than `inputs` (a branch moves),
    /// so it is never served from the cache.
    pub remote: bool,
}

/// The input's rendering plan.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    /// Top-level kustomizations and charts, in path order of their manifests.
    pub units: Vec<Unit>,
    /// Normalised paths of every file some kustomization or chart of the input reads (they
    /// are not shown as objects themselves).
    pub consumed: HashSet<PathBuf>,
}

impl Plan {
    /// Whether the file at `path` (as walked) is read by a build rather than shown.
    pub fn is_consumed(&self, path: &Path) -> bool {
        self.consumed.contains(&normalize(path))
    }

    /// The unit whose manifest is `path`.
    pub fn unit_of(&self, path: &Path) -> Option<&Unit> {
        let n = normalize(path);
        self.units.iter().find(|u| normalize(&u.manifest) == n)
    }

    /// Units that read `path` (or, for a directory, anything under it).
    pub fn units_reading(&self, path: &Path) -> Vec<&Unit> {
        let n = normalize(path);
        self.units
            .iter()
            .filter(|u| u.inputs.iter().any(|i| i.starts_with(&n)))
            .collect()
    }

    /// How many units are kustomizations and charts.
    pub fn counts(&self) -> (usize, usize) {
        let k = self
            .units
            .iter()
            .filter(|u| u.kind == UnitKind::Kustomize)
            .count();
        (k, self.units.len() - k)
    }
}

/// Whether `path` is named like a kustomization file.
pub fn is_kustomization(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| KUSTOMIZATION_NAMES.contains(&n))
}

fn is_chart(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == "Chart.yaml")
}

/// The plan for the walked `files`: top-level kustomizations (not listed by another
/// kustomization of the input) and charts (not a subchart under another chart's `charts/`),
/// and every file they read.
pub fn plan(files: &[PathBuf]) -> Plan {
    let mut kustomizations: BTreeMap<PathBuf, Reads> = BTreeMap::new();
    for f in files.iter().filter(|f| is_kustomization(f)) {
        let Some(dir) = f.parent() else { continue };
        kustomizations.insert(f.clone(), reads_of(dir));
    }
    let referenced: HashSet<PathBuf> = kustomizations
        .values()
        .flat_map(|r| r.kustomizations.iter().cloned())
        .collect();
    let mut plan = Plan::default();
    for (manifest, reads) in &kustomizations {
        plan.consumed.extend(reads.files.iter().cloned());
        let dir = manifest.parent().map(Path::to_path_buf).unwrap_or_default();
        // A component is only built as part of a kustomization that lists it.
        if referenced.contains(&normalize(&dir)) || is_component(manifest) {
            continue;
        }
        plan.units.push(Unit {
            kind: UnitKind::Kustomize,
            dir,
            manifest: manifest.clone(),
            inputs: reads.files.clone(),
            remote: reads.remote,
        });
    }
    let charts: Vec<PathBuf> = files
        .iter()
        .filter(|f| is_chart(f))
        .filter_map(|f| f.parent().map(normalize))
        .collect();
    for chart in files.iter().filter(|f| is_chart(f)) {
        let Some(dir) = chart.parent() else { continue };
        let n = normalize(dir);
        let sub = charts
            .iter()
            .any(|c| c != &n && n.starts_with(c.join("charts")));
        let inputs: BTreeSet<PathBuf> = files
            .iter()
            .map(|f| normalize(f))
            .filter(|f| f.starts_with(&n))
            .collect();
        plan.consumed.extend(inputs.iter().cloned());
        if sub {
            continue;
        }
        plan.units.push(Unit {
            kind: UnitKind::Helm {
                name: chart_name(chart).unwrap_or_else(|| {
                    n.file_name()
                        .map(|s| s.to_string_lossy().into_owned())
                        .unwrap_or_default()
                }),
            },
            dir: dir.to_path_buf(),
            manifest: chart.clone(),
            inputs,
            // `helm template` renders the chart as it is, dependencies vendored in `charts/`.
            remote: false,
        });
    }
    plan.units.sort_by(|a, b| a.manifest.cmp(&b.manifest));
    plan
}

/// The unit for `kubesift get -k DIR`: DIR's kustomization, whatever else lists it.
pub fn explicit(dir: &Path) -> Result<Unit, String> {
    let manifest = kustomization_in(dir).ok_or_else(|| {
        format!(
            "unable to find one of 'kustomization.yaml', 'kustomization.yml' or 'Kustomization' in directory '{}'",
            dir.display()
        )
    })?;
    let reads = reads_of(dir);
    Ok(Unit {
        kind: UnitKind::Kustomize,
        dir: dir.to_path_buf(),
        manifest,
        inputs: reads.files,
        remote: reads.remote,
    })
}

/// The kustomization file in `dir`, if any.
pub fn kustomization_in(dir: &Path) -> Option<PathBuf> {
    KUSTOMIZATION_NAMES
        .iter()
        .map(|n| dir.join(n))
        .find(|p| p.is_file())
}

fn is_component(manifest: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(manifest) else {
        return false;
    };
    serde_yaml::from_str::<Value>(&text)
        .ok()
        .and_then(|v| {
            v.get("kind")
                .and_then(Value::as_str)
                .map(|k| k == "Component")
        })
        .unwrap_or(false)
}

fn chart_name(chart: &Path) -> Option<String> {
    let text = std::fs::read_to_string(chart).ok()?;
    let v: Value = serde_yaml::from_str(&text).ok()?;
    v.get("name")?.as_str().map(str::to_owned)
}

/// What one kustomization reads, transitively.
#[derive(Debug, Default)]
struct Reads {
    /// Normalised files.
    files: BTreeSet<PathBuf>,
    /// Normalised folders of the kustomizations it lists (directly or not).
    kustomizations: BTreeSet<PathBuf>,
    /// One of them names a remote resource.
    remote: bool,
}

fn reads_of(dir: &Path) -> Reads {
    let mut reads = Reads::default();
    let mut seen = HashSet::new();
    visit(dir, &mut reads, &mut seen);
    // Its own folder is not a kustomization it lists.
    reads.kustomizations.remove(&normalize(dir));
    reads
}

/// Adds what the kustomization in `dir` reads to `reads` (its own file, the files it
/// names, and recursively the kustomizations it names).
fn visit(dir: &Path, reads: &mut Reads, seen: &mut HashSet<PathBuf>) {
    if !seen.insert(normalize(dir)) {
        return;
    }
    let Some(file) = kustomization_in(dir) else {
        return;
    };
    reads.kustomizations.insert(normalize(dir));
    reads.files.insert(normalize(&file));
    let Ok(text) = std::fs::read_to_string(&file) else {
        return;
    };
    let Ok(doc) = serde_yaml::from_str::<Value>(&text) else {
        return;
    };
    for entry in entries(&doc) {
        if is_remote(&entry) {
            reads.remote = true;
            continue;
        }
        let path = dir.join(&entry);
        if path.is_dir() {
            visit(&path, reads, seen);
        } else {
            reads.files.insert(normalize(&path));
        }
    }
}

/// Every local path a kustomization names: resources, bases, components, patches and
/// their kin, generator sources, replacements, CRDs, OpenAPI schema, plugin configs.
fn entries(doc: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let strings = |key: &str, out: &mut Vec<String>| {
        for s in seq(doc, key).iter().filter_map(Value::as_str) {
            // An inline patch is YAML text, not a path.
            if !s.contains('\n') {
                out.push(s.to_owned());
            }
        }
    };
    for key in [
        "resources",
        "bases",
        "components",
        "patchesStrategicMerge",
        "crds",
        "configurations",
        "generators",
        "transformers",
        "validators",
    ] {
        strings(key, &mut out);
    }
    for key in ["patches", "patchesJson6902", "replacements"] {
        for item in seq(doc, key) {
            if let Some(p) = item.get("path").and_then(Value::as_str) {
                out.push(p.to_owned());
            }
        }
    }
    for key in ["configMapGenerator", "secretGenerator"] {
        for item in seq(doc, key) {
            for f in seq(item, "files").iter().filter_map(Value::as_str) {
                // `key=path` names the key of the file's entry.
                out.push(f.split_once('=').map_or(f, |(_, p)| p).to_owned());
            }
            out.extend(
                seq(item, "envs")
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned),
            );
            if let Some(e) = item.get("env").and_then(Value::as_str) {
                out.push(e.to_owned());
            }
        }
    }
    if let Some(p) = doc
        .get("openapi")
        .and_then(|o| o.get("path"))
        .and_then(Value::as_str)
    {
        out.push(p.to_owned());
    }
    out
}

fn seq<'a>(doc: &'a Value, key: &str) -> &'a [Value] {
    doc.get(key)
        .and_then(Value::as_sequence)
        .map_or(&[][..], Vec::as_slice)
}

/// A resource kustomize fetches (a git repository or URL): nothing local to read.
fn is_remote(entry: &str) -> bool {
    entry.contains("://")
        || entry.starts_with("git@")
        || entry.starts_with("github.com/")
        || entry.contains("?ref=")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/render/repo")
    }

    fn walked(root: &Path) -> Vec<PathBuf> {
        let mut out = Vec::new();
        let mut stack = vec![root.to_path_buf()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).expect("read_dir") {
                let p = e.expect("entry").path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|x| x == "yaml") {
                    out.push(p);
                }
            }
        }
        out.sort();
        out
    }

    #[test]
    fn top_level_kustomizations_and_what_they_read() {
        let root = fixture();
        let plan = plan(&walked(&root));
        let dirs: Vec<String> = plan
            .units
            .iter()
            .map(|u| {
                u.dir
                    .strip_prefix(&root)
                    .expect("under")
                    .display()
                    .to_string()
            })
            .collect();
        // base is listed by the overlays: not top-level.
        assert_eq!(
            dirs,
            [
                "apps/gen",
                "chart",
                "overlays/broken",
                "overlays/prod",
                "overlays/staging"
            ]
        );
        let staging = plan
            .units
            .iter()
            .find(|u| u.dir.ends_with("staging"))
            .expect("staging");
        let rel: Vec<String> = staging
            .inputs
            .iter()
            .map(|p| p.strip_prefix(&root).expect("under").display().to_string())
            .collect();
        assert_eq!(
            rel,
            [
                "base/deployment.yaml",
                "base/kustomization.yaml",
                "base/service.yaml",
                "overlays/staging/kustomization.yaml",
                "overlays/staging/replicas.yaml"
            ]
        );
        let gen = plan
            .units
            .iter()
            .find(|u| u.dir.ends_with("gen"))
            .expect("gen");
        assert!(gen.inputs.contains(&root.join("apps/gen/app.properties")));
        assert!(gen.inputs.contains(&root.join("apps/gen/app.env")));
        assert!(plan.is_consumed(&root.join("overlays/prod/replicas.yaml")));
        assert!(plan.is_consumed(&root.join("chart/templates/deployment.yaml")));
        assert!(!plan.is_consumed(&root.join("plain/cm.yaml")));
        assert_eq!(plan.counts(), (4, 1));
        assert_eq!(
            plan.units_reading(&root.join("base/service.yaml")).len(),
            3,
            "staging, prod and broken read the base"
        );
    }

    #[test]
    fn a_remote_resource_anywhere_below_marks_the_build() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        let write = |rel: &str, text: &str| {
            let p = root.join(rel);
            std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
            std::fs::write(p, text).expect("write");
        };
        write(
            "base/kustomization.yaml",
            "resources:\n- https://github.com/example/app//deploy?ref=main\n- cm.yaml\n",
        );
        write(
            "base/cm.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
        );
        write("overlay/kustomization.yaml", "resources:\n- ../base\n");
        write(
            "local/kustomization.yaml",
            "resources:\n- ../base/cm.yaml\n",
        );
        let overlay = explicit(&root.join("overlay")).expect("overlay");
        assert!(overlay.remote, "through the base it lists");
        assert!(!explicit(&root.join("local")).expect("local").remote);
    }

    #[test]
    fn explicit_needs_a_kustomization() {
        let dir = fixture().join("plain");
        let e = explicit(&dir).expect_err("no kustomization");
        assert!(
            e.starts_with("unable to find one of 'kustomization.yaml'"),
            "{e}"
        );
    }
}
