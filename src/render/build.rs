//! Running one build: kustomize through a wrapper kustomization in a temporary folder
//! outside the input, `helm template` on a chart; the output cached.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};

use super::discover::{Unit, UnitKind};
use super::paths::{normalize, relative};
use super::tool::{failure_message, Tool};
use super::{cache, origin, Context};
use crate::diagnostic::{Diagnostic, Severity};
use crate::model::load::FileLoad;

/// How many tool processes run at once (each uses a core; more only queue).
const MAX_RUNNING: usize = 3;

/// One unit built.
#[derive(Clone, Debug)]
pub struct Built {
    /// Its objects (sources at their origin files, target set) or its one error.
    pub load: FileLoad,
    /// The output came from the cache (no process ran).
    pub cached: bool,
    /// The build failed (or could not run).
    pub failed: bool,
}

/// Builds `unit`.
pub fn build(unit: &Unit, ctx: &Context) -> Built {
    let manifest: Arc<Path> = Arc::from(unit.manifest.as_path());
    let target: Arc<Path> = Arc::from(unit.dir.as_path());
    let result = match &unit.kind {
        UnitKind::Kustomize => match &ctx.tools.kustomize {
            Some(tool) => kustomize(unit, tool, ctx).map(|(out, base, cached)| {
                let load = origin::kustomize_load(&manifest, &target, &out, &base, &ctx.shown);
                (load, cached)
            }),
            None => Err(super::NO_KUSTOMIZE.to_owned()),
        },
        UnitKind::Helm { name } => match &ctx.tools.helm {
            Some(tool) => helm(unit, name, tool, ctx)
                .map(|(out, cached)| (origin::helm_load(&manifest, &unit.dir, &out), cached)),
            None => {
                return Built {
                    load: one_problem(&manifest, Severity::Note, "helm", super::no_helm(name)),
                    cached: false,
                    failed: false,
                }
            }
        },
    };
    match result {
        Ok((load, cached)) => Built {
            load,
            cached,
            failed: false,
        },
        Err(message) => {
            let code = match unit.kind {
                UnitKind::Kustomize => "kustomize",
                UnitKind::Helm { .. } => "helm",
            };
            Built {
                load: one_problem(&manifest, Severity::Error, code, message),
                cached: false,
                failed: true,
            }
        }
    }
}

fn one_problem(
    path: &Arc<Path>,
    severity: Severity,
    code: &'static str,
    message: String,
) -> FileLoad {
    FileLoad {
        path: Arc::clone(path),
        objects: Vec::new(),
        problems: vec![Diagnostic::new(path, 1, 1, severity, code, message)],
        bytes: 0,
        stamp: None,
        yaml: Default::default(),
    }
}

/// kustomize's output for `unit` (origins relative to the returned folder), from the cache
/// when the inputs did not change.
fn kustomize(unit: &Unit, tool: &Tool, ctx: &Context) -> Result<(String, PathBuf, bool), String> {
    let overlay =
        std::fs::canonicalize(&unit.dir).map_err(|e| format!("{}: {e}", unit.dir.display()))?;
    let inputs: Vec<PathBuf> = unit.inputs.iter().cloned().collect();
    let key = cache::key(&inputs, &tool.identity, &[overlay.display().to_string()]);
    let cache = ctx.cache && !unit.remote;
    if cache {
        if let Some((base, out)) = cache::get(&key).as_deref().and_then(|c| c.split_once('\n')) {
            return Ok((out.to_owned(), PathBuf::from(base), true));
        }
    }
    let wrapper = Wrapper::new()?;
    let rel = relative(&wrapper.dir, &overlay);
    // The path as a JSON string is a YAML string, whatever characters it holds.
    let text = format!(
        "resources:\n- {}\nbuildMetadata: [originAnnotations]\n",
        serde_json::to_string(&rel.to_string_lossy()).map_err(|e| e.to_string())?
    );
    std::fs::write(wrapper.dir.join("kustomization.yaml"), text)
        .map_err(|e| format!("writing the wrapper kustomization: {e}"))?;
    let output = {
        let _slot = Slot::take();
        tool.command(&[wrapper.dir.as_os_str()])
            .output()
            .map_err(|e| format!("running {}: {e}", tool.name()))?
    };
    if !output.status.success() {
        let message = unwrap_wrapper(&failure_message(&String::from_utf8_lossy(&output.stderr)));
        // Name the overlay as the user does, not through the wrapper.
        let shown = unit.dir.display().to_string();
        return Err(message
            .replace(&rel.display().to_string(), &shown)
            .replace(&wrapper.dir.display().to_string(), "."));
    }
    let out = String::from_utf8_lossy(&output.stdout).into_owned();
    if cache {
        cache::put(&key, &format!("{}\n{out}", wrapper.dir.display()));
    }
    Ok((out, wrapper.dir.clone(), false))
}

/// kustomize's message without the layer the wrapper adds (`accumulating resources from
/// '<overlay>': … recursed accumulation of path '<overlay>': `): what building the overlay
/// itself says.
fn unwrap_wrapper(message: &str) -> String {
    const RECURSED: &str = "recursed accumulation of path '";
    message
        .find(RECURSED)
        .and_then(|i| {
            let rest = &message[i + RECURSED.len()..];
            rest.find("': ").map(|j| rest[j + 3..].to_owned())
        })
        .unwrap_or_else(|| message.to_owned())
}

/// `helm template NAME CHART [-f VALUES]…` for `unit`.
fn helm(unit: &Unit, name: &str, tool: &Tool, ctx: &Context) -> Result<(String, bool), String> {
    let mut inputs: Vec<PathBuf> = unit.inputs.iter().cloned().collect();
    inputs.extend(ctx.helm_values.iter().map(|v| normalize(v)));
    let mut args: Vec<&OsStr> = vec![OsStr::new(name), unit.dir.as_os_str()];
    for v in &ctx.helm_values {
        args.push(OsStr::new("-f"));
        args.push(v.as_os_str());
    }
    let shown: Vec<String> = args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let key = cache::key(&inputs, &tool.identity, &shown);
    if ctx.cache {
        if let Some(out) = cache::get(&key) {
            return Ok((out, true));
        }
    }
    let output = {
        let _slot = Slot::take();
        tool.command(&args)
            .output()
            .map_err(|e| format!("running helm: {e}"))?
    };
    if !output.status.success() {
        return Err(failure_message(&String::from_utf8_lossy(&output.stderr)));
    }
    let out = String::from_utf8_lossy(&output.stdout).into_owned();
    if ctx.cache {
        cache::put(&key, &out);
    }
    Ok((out, false))
}

/// A temporary folder for the wrapper kustomization, outside the input, removed when
/// dropped.
struct Wrapper {
    dir: PathBuf,
}

impl Wrapper {
    fn new() -> Result<Wrapper, String> {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("kubesift-render-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        // Canonical: kustomize resolves the relative path from the real folder.
        let dir = std::fs::canonicalize(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        Ok(Wrapper { dir })
    }
}

impl Drop for Wrapper {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A place among the [`MAX_RUNNING`] processes allowed at once, held while one runs.
struct Slot;

static RUNNING: Mutex<usize> = Mutex::new(0);
static FREED: Condvar = Condvar::new();

impl Slot {
    fn take() -> Slot {
        let mut n = RUNNING.lock().unwrap_or_else(|e| e.into_inner());
        while *n >= MAX_RUNNING {
            n = FREED.wait(n).unwrap_or_else(|e| e.into_inner());
        }
        *n += 1;
        Slot
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut n = RUNNING.lock().unwrap_or_else(|e| e.into_inner());
        *n = n.saturating_sub(1);
        FREED.notify_one();
    }
}
