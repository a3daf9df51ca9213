//! From a build's output to objects with exact sources: the origin annotation the wrapper
//! asked for (`buildMetadata: [originAnnotations]`) is read and removed from the text before
//! it is parsed, and each object is pointed at the file and line it comes from.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_yaml::Value;

use super::paths::{normalize, Shown};
use crate::model::load::{parse_text, FileLoad};
use crate::model::Object;

/// The annotation kustomize adds for `buildMetadata: [originAnnotations]`.
pub const ORIGIN: &str = "config.kubernetes.io/origin";

/// Where kustomize says an object comes from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Origin {
    /// The resource file (relative to the wrapper's folder).
    pub path: Option<String>,
    /// The kustomization whose generator made it.
    pub configured_in: Option<String>,
    /// Fetched from a remote repository: no local file.
    pub remote: bool,
}

/// `text` (kustomize's output: kyaml style, two-space indents, one object per document)
/// without the origin annotation of each object's top-level `metadata.annotations` (and
/// without `annotations:` when it held nothing else), and per document its first line in
/// the result and its origin.
pub fn strip(text: &str) -> (String, Vec<(u32, Option<Origin>)>) {
    let mut out = String::with_capacity(text.len());
    let mut docs: Vec<(u32, Option<Origin>)> = vec![(1, None)];
    let mut written = 0u32;
    let mut push = |out: &mut String, line: &str| {
        out.push_str(line);
        out.push('\n');
        written += 1;
        written
    };
    let (mut in_meta, mut in_annotations) = (false, false);
    let mut held: Option<&str> = None;
    let mut origin: Option<String> = None;
    for line in text.lines() {
        if let Some(o) = origin.as_mut() {
            if let Some(rest) = line.strip_prefix("      ") {
                o.push_str(rest);
                o.push('\n');
                continue;
            }
            let done = origin.take().unwrap_or_default();
            if let Some(doc) = docs.last_mut() {
                doc.1 = parse_origin(&done);
            }
        }
        if line == "---" {
            let at = push(&mut out, line);
            docs.push((at + 1, None));
            (in_meta, in_annotations, held) = (false, false, None);
            continue;
        }
        if in_annotations {
            if line.starts_with("    ") {
                if line.starts_with(&format!("    {ORIGIN}: |")) {
                    origin = Some(String::new());
                    continue;
                }
                if let Some(h) = held.take() {
                    push(&mut out, h);
                }
            } else {
                in_annotations = false;
                held = None;
            }
        }
        if !line.starts_with(' ') {
            in_meta = line == "metadata:";
        } else if in_meta && line == "  annotations:" {
            in_annotations = true;
            held = Some(line);
            continue;
        }
        push(&mut out, line);
    }
    if let (Some(o), Some(doc)) = (origin, docs.last_mut()) {
        doc.1 = parse_origin(&o);
    }
    (out, docs)
}

fn parse_origin(text: &str) -> Option<Origin> {
    let v: Value = serde_yaml::from_str(text).ok()?;
    let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
    Some(Origin {
        path: s("path"),
        configured_in: s("configuredIn"),
        remote: v.get("repo").is_some(),
    })
}

/// The origin of the document starting at or before `line` among `docs`.
pub fn doc_at<T>(docs: &[(u32, T)], line: u32) -> Option<&T> {
    let i = docs.partition_point(|(start, _)| *start <= line);
    docs.get(i.checked_sub(1)?).map(|(_, t)| t)
}

/// Finds the line an object comes from in its origin file, reading each file once.
#[derive(Default)]
pub struct Locator {
    files: HashMap<PathBuf, Option<FileLoad>>,
    texts: HashMap<PathBuf, Option<String>>,
}

impl Locator {
    /// The document of `file` that `rendered` comes from: an object of the same kind named
    /// as the rendered one; else the one with the longest name contained in the rendered
    /// name (a `namePrefix`/`nameSuffix` added to it); else the only object of that kind in
    /// the file. Returns its line and byte range, or line 1 when none matches (a patch
    /// renamed it). Names are compared as written in the file, before any transformation.
    pub fn resource(&mut self, file: &Path, rendered: &Object) -> (u32, usize, usize) {
        let load = self
            .files
            .entry(file.to_path_buf())
            .or_insert_with(|| {
                let text = std::fs::read_to_string(file).ok()?;
                Some(parse_text(&Arc::from(file), &text))
            })
            .as_ref();
        let same_kind: Vec<&Object> = load
            .map(|l| {
                l.objects
                    .iter()
                    .filter(|o| o.kind() == rendered.kind())
                    .collect()
            })
            .unwrap_or_default();
        let name = rendered.name();
        let hit = same_kind
            .iter()
            .find(|o| o.name() == name)
            .or_else(|| {
                same_kind
                    .iter()
                    .filter(|o| !o.name().is_empty() && name.contains(o.name()))
                    .max_by_key(|o| o.name().len())
            })
            .or_else(|| (same_kind.len() == 1).then(|| &same_kind[0]));
        hit.map_or((1, 0, 0), |o| (o.source.line, o.source.start, o.source.end))
    }

    /// The line of a generator in the kustomization `file` that made `rendered`: the
    /// longest `name: N` whose N is contained in the rendered name (kustomize adds prefixes
    /// and a hash suffix), else line 1.
    pub fn generator(&mut self, file: &Path, rendered: &Object) -> u32 {
        let text = self
            .texts
            .entry(file.to_path_buf())
            .or_insert_with(|| std::fs::read_to_string(file).ok());
        let name = rendered.name();
        let mut best: Option<(usize, u32)> = None;
        for (i, line) in text.as_deref().unwrap_or("").lines().enumerate() {
            let l = line.trim_start().trim_start_matches("- ").trim_start();
            let Some(n) = l.strip_prefix("name:") else {
                continue;
            };
            let n = n.trim().trim_matches(|c| c == '"' || c == '\'');
            if !n.is_empty() && name.contains(n) && best.is_none_or(|(len, _)| n.len() > len) {
                best = Some((n.len(), i as u32 + 1));
            }
        }
        best.map_or(1, |(_, line)| line)
    }

    /// The line of the `n`-th (0-based) `kind: KIND` line of a template `file`, else 1.
    pub fn template(&mut self, file: &Path, kind: &str, n: usize) -> u32 {
        let text = self
            .texts
            .entry(file.to_path_buf())
            .or_insert_with(|| std::fs::read_to_string(file).ok());
        let want = format!("kind: {kind}");
        text.as_deref()
            .unwrap_or("")
            .lines()
            .enumerate()
            .filter(|(_, l)| l.trim() == want)
            .nth(n)
            .map_or(1, |(i, _)| i as u32 + 1)
    }
}

/// Parses kustomize's `output` for `unit_dir`/`manifest`, each object pointed at its origin
/// (resolved against the wrapper folder `base`, shown through `shown`) and its target.
pub fn kustomize_load(
    manifest: &Path,
    target: &Arc<Path>,
    output: &str,
    base: &Path,
    shown: &Shown,
) -> FileLoad {
    let (text, docs) = strip(output);
    let manifest: Arc<Path> = Arc::from(manifest);
    let mut load = parse_text(&manifest, &text);
    let mut locate = Locator::default();
    for o in &mut load.objects {
        let origin = doc_at(&docs, o.source.line).cloned().flatten();
        let (path, line, start, end) = match origin {
            Some(Origin {
                path: Some(p),
                remote: false,
                ..
            }) => {
                let abs = normalize(&base.join(p));
                let (line, start, end) = locate.resource(&abs, o);
                (Arc::from(shown.show(&abs)), line, start, end)
            }
            Some(Origin {
                configured_in: Some(k),
                ..
            }) => {
                let abs = normalize(&base.join(k));
                let line = locate.generator(&abs, o);
                (Arc::from(shown.show(&abs)), line, 0, 0)
            }
            _ => (Arc::clone(&manifest), 1, 0, 0),
        };
        let src = &mut o.make_mut().source;
        (src.path, src.line, src.start, src.end) = (path, line, start, end);
        src.target = Some(Arc::clone(target));
    }
    load.bytes = 0;
    load
}

/// Parses `helm template` output for the chart in `chart_dir`: each object points at its
/// template (`# Source: CHART/templates/x.yaml` → `chart_dir/templates/x.yaml`) at the
/// line of the matching `kind:` line, counted per template and kind.
pub fn helm_load(manifest: &Path, chart_dir: &Path, output: &str) -> FileLoad {
    let mut docs: Vec<(u32, Option<PathBuf>)> = vec![(1, None)];
    for (i, line) in output.lines().enumerate() {
        if line == "---" {
            docs.push((i as u32 + 2, None));
        } else if let Some(src) = line.strip_prefix("# Source: ") {
            if let Some(doc) = docs.last_mut() {
                let rest: PathBuf = Path::new(src.trim()).components().skip(1).collect();
                doc.1 = Some(chart_dir.join(rest));
            }
        }
    }
    let manifest: Arc<Path> = Arc::from(manifest);
    let target: Arc<Path> = Arc::from(chart_dir);
    let mut load = parse_text(&manifest, output);
    let mut locate = Locator::default();
    let mut seen: HashMap<(PathBuf, String), usize> = HashMap::new();
    for o in &mut load.objects {
        let (path, line) = match doc_at(&docs, o.source.line).cloned().flatten() {
            Some(file) => {
                let n = seen.entry((file.clone(), o.kind().to_owned())).or_insert(0);
                let line = locate.template(&file, o.kind(), *n);
                *n += 1;
                (Arc::from(file.as_path()), line)
            }
            None => (Arc::clone(&manifest), 1),
        };
        let src = &mut o.make_mut().source;
        (src.path, src.line, src.start, src.end) = (path, line, 0, 0);
        src.target = Some(Arc::clone(&target));
    }
    load.bytes = 0;
    load
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_the_origin_and_an_emptied_annotations_map() {
        let out = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  annotations:\n    config.kubernetes.io/origin: |\n      path: ../a/cm.yaml\n  name: x\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  annotations:\n    a: b\n    config.kubernetes.io/origin: |\n      configuredIn: ../a/kustomization.yaml\n      configuredBy:\n        kind: X\n    z: |\n      multi\n  name: p\nspec:\n  template:\n    metadata:\n      annotations:\n        keep: me\n";
        let (text, docs) = strip(out);
        assert_eq!(
            text,
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  annotations:\n    a: b\n    z: |\n      multi\n  name: p\nspec:\n  template:\n    metadata:\n      annotations:\n        keep: me\n"
        );
        assert_eq!(docs.len(), 2);
        assert_eq!(docs[0].0, 1);
        assert_eq!(docs[1].0, 6);
        assert_eq!(
            docs[0].1.as_ref().and_then(|o| o.path.as_deref()),
            Some("../a/cm.yaml")
        );
        assert_eq!(
            docs[1].1.as_ref().and_then(|o| o.configured_in.as_deref()),
            Some("../a/kustomization.yaml")
        );
        assert_eq!(
            doc_at(&docs, 7).and_then(|o| o.as_ref()),
            docs[1].1.as_ref()
        );
    }
}
