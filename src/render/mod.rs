//! Rendering: the kustomizations and Helm charts of the input turned into the objects they
//! deploy, with the real tools (`kustomize build` or `kubectl kustomize`, `helm template`);
//! no reimplementation.
//!
//! - [`discover`]: which kustomizations and charts are top-level (built and shown) and
//!   which files each build reads (those are not shown as objects);
//! - [`build`]: one build, through a wrapper kustomization in a temporary folder outside
//!   the input (`resources: [<relative path to the overlay>]`, `buildMetadata:
//!   [originAnnotations]`: kustomize then says which file each object comes from); output
//!   cached ([`cache`]: XDG cache dir, keyed by every input file's bytes, the tool and its
//!   arguments);
//! - [`origin`]: the output parsed, the origin annotation stripped, each object's source
//!   set to its origin file and line and its target to the overlay's folder.
//!
//! Core: no terminal, no async; processes through `std::process`. Nothing is written into
//! or beside the input.

mod build;
pub mod cache;
mod discover;
pub mod origin;
mod paths;
mod tool;

use std::path::PathBuf;

pub use build::{build, Built};
pub use discover::{explicit, is_kustomization, kustomization_in, plan, Plan, Unit, UnitKind};
pub use paths::{normalize, Shown};
pub use tool::{which, Tool, Tools};

/// What a build needs besides its unit.
#[derive(Clone, Debug, Default)]
pub struct Context {
    pub tools: Tools,
    /// `--helm-values` files, passed to every chart (`-f`), in order.
    pub helm_values: Vec<PathBuf>,
    /// How origin files are shown (anchored at the input's roots).
    pub shown: Shown,
    /// Read and keep outputs in the cache.
    pub cache: bool,
}

impl Context {
    /// Tools from PATH, the cache on, paths shown as under `roots`.
    pub fn new(roots: &[PathBuf], helm_values: Vec<PathBuf>) -> Context {
        Context {
            tools: Tools::find(),
            helm_values,
            shown: Shown::new(roots),
            cache: true,
        }
    }
}

/// The note when kustomizations cannot be rendered.
pub const NO_KUSTOMIZE: &str = "kustomizations not rendered: neither kustomize nor kubectl is on PATH (install kustomize, https://kubectl.docs.kubernetes.io/installation/kustomize/, or kubectl, which includes it); showing the files";

/// The note for a chart when helm is missing.
pub fn no_helm(name: &str) -> String {
    format!("Helm chart {name}: helm not found on PATH, not rendered")
}

/// Builds `units` on up to a few threads at once, calling `done` with each result as it
/// finishes (in any order), from those threads.
pub fn build_all(units: &[Unit], ctx: &Context, done: &(dyn Fn(&Unit, Built) + Sync)) {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let threads = units.len().clamp(1, 4);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(unit) = units.get(i) else { break };
                done(unit, build(unit, ctx));
            });
        }
    });
}
