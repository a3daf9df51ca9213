//! Rendering in the data layer: which walked files are shown, which are read by a build,
//! and which stand for a build. A top-level kustomization (chart) is kept in the live set
//! under its manifest's path like a file, its load being the build's objects (or its one
//! error); a file some build reads is kept with no objects; every other file loads as
//! usual. So first loads, partial batches, stale objects, deltas and patches treat a build
//! like a file.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::diagnostic::{Diagnostic, Severity};
use crate::model::load::{load_file, FileLoad, LoadOptions};
use crate::render::{self, Built, Context, Plan, Unit, UnitKind};

/// What the user asked to render.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RenderRequest {
    /// `-k DIR`: the objects of these kustomizations' builds, nothing else.
    pub kustomize: Vec<PathBuf>,
    /// `--render`: every top-level kustomization and chart of the input, plus plain files.
    pub render: bool,
    /// `--helm-values`, for every chart.
    pub helm_values: Vec<PathBuf>,
    /// The UI's default: render as `--render` does when the input holds something a tool
    /// on PATH can build (a kustomization and a kustomize, a chart and helm), else load
    /// the files as without it (no note).
    pub auto: bool,
}

impl RenderRequest {
    /// Whether anything is rendered.
    pub fn is_on(&self) -> bool {
        self.render || self.auto || !self.kustomize.is_empty()
    }

    /// The roots to load: the `-k` folders, else `paths`.
    pub fn roots(&self, paths: &[PathBuf]) -> Vec<PathBuf> {
        if self.kustomize.is_empty() {
            paths.to_vec()
        } else {
            self.kustomize.clone()
        }
    }
}

/// How many builds of each kind there are and how they went.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RenderSummary {
    pub kustomizations: usize,
    pub charts: usize,
    pub failed: usize,
    /// Builds answered from the cache.
    pub cached: usize,
}

/// The plan and how to build, for one input.
#[derive(Debug)]
pub struct Rendering {
    pub plan: Plan,
    pub ctx: Context,
    /// `-k`: files that are not a unit's manifest show nothing.
    only_units: bool,
    /// Notes about the whole input (no kustomize).
    pub notes: Vec<Diagnostic>,
    request: RenderRequest,
    roots: Vec<PathBuf>,
}

impl Rendering {
    /// For `-k DIR…`: one unit per folder; an error names a folder without a kustomization
    /// (kubectl's message).
    pub fn explicit(req: &RenderRequest) -> Result<Rendering, String> {
        let mut units = Vec::new();
        for dir in &req.kustomize {
            let unit = render::explicit(dir).map_err(|_| {
                let abs = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.clone());
                format!(
                    "unable to find one of 'kustomization.yaml', 'kustomization.yml' or 'Kustomization' in directory '{}'",
                    abs.display()
                )
            })?;
            units.push(unit);
        }
        let ctx = Context::new(&req.kustomize, req.helm_values.clone());
        if ctx.tools.kustomize.is_none() {
            return Err(render::NO_KUSTOMIZE.replace("; showing the files", ""));
        }
        let notes = Vec::new();
        Ok(Rendering {
            plan: Plan {
                units,
                consumed: Default::default(),
            },
            ctx,
            only_units: true,
            notes,
            request: req.clone(),
            roots: req.kustomize.clone(),
        })
    }

    /// For `--render` over the walked `files` of `roots`.
    pub fn plan(roots: &[PathBuf], files: &[PathBuf], req: &RenderRequest) -> Rendering {
        let ctx = Context::new(roots, req.helm_values.clone());
        Rendering::with_context(roots, files, req, ctx)
    }

    /// [`Rendering::plan`] with the tools given (tests).
    pub fn with_context(
        roots: &[PathBuf],
        files: &[PathBuf],
        req: &RenderRequest,
        ctx: Context,
    ) -> Rendering {
        let mut plan = render::plan(files);
        let mut notes = Vec::new();
        if ctx.tools.kustomize.is_none() {
            if let Some(first) = plan.units.iter().find(|u| u.kind == UnitKind::Kustomize) {
                notes.push(Diagnostic::new(
                    &Arc::from(first.manifest.as_path()),
                    0,
                    0,
                    Severity::Note,
                    "kustomize",
                    render::NO_KUSTOMIZE,
                ));
            }
            // The files view: only charts are taken out of it.
            let charts = render::plan(
                &files
                    .iter()
                    .filter(|f| !render::is_kustomization(f))
                    .cloned()
                    .collect::<Vec<_>>(),
            );
            plan = charts;
        }
        Rendering {
            plan,
            ctx,
            only_units: false,
            notes,
            request: req.clone(),
            roots: roots.to_vec(),
        }
    }

    /// The plan again, for the files now walked (a kustomization or the file list changed).
    pub fn replan(&self, files: &[PathBuf]) -> Rendering {
        if self.only_units {
            return Rendering {
                plan: self.plan.clone(),
                ctx: self.ctx.clone(),
                only_units: true,
                notes: self.notes.clone(),
                request: self.request.clone(),
                roots: self.roots.clone(),
            };
        }
        Rendering::with_context(&self.roots, files, &self.request, self.ctx.clone())
    }

    /// The unit whose manifest is `path`.
    pub fn unit_of(&self, path: &Path) -> Option<&Unit> {
        self.plan.unit_of(path)
    }

    /// What `path` contributes: its build's objects if it is a unit's manifest, nothing if
    /// a build reads it, else its own objects.
    pub fn load(&self, path: &Path, opts: &LoadOptions) -> FileLoad {
        if let Some(unit) = self.unit_of(path) {
            return self.build(unit).load;
        }
        if self.only_units || self.plan.is_consumed(path) {
            return consumed(path);
        }
        let mut load = load_file(path, opts);
        // The note that nothing is rendered rides with the first kustomization's file.
        let here = self.notes.iter().filter(|n| *n.path == *path).cloned();
        load.problems.extend(here);
        load
    }

    /// The role `path` plays: shown as a file, read by a build, or standing for one.
    fn role(&self, path: &Path) -> (u8, Option<&Unit>) {
        match self.unit_of(path) {
            Some(u) => (2, Some(u)),
            None if self.only_units || self.plan.is_consumed(path) => (1, None),
            None => (0, None),
        }
    }

    /// Whether `path`'s role differs between `self` and `other` (a unit whose inputs
    /// changed counts as changed).
    pub fn role_changed(&self, other: &Rendering, path: &Path) -> bool {
        self.role(path) != other.role(path)
    }

    /// Builds `unit`.
    pub fn build(&self, unit: &Unit) -> Built {
        render::build(unit, &self.ctx)
    }

    /// How many kustomizations and charts the plan renders.
    pub fn counts(&self) -> (usize, usize) {
        self.plan.counts()
    }

    /// Whether some unit of the plan can be built with the tools found (a plan without
    /// kustomize keeps only its charts).
    pub fn builds_anything(&self) -> bool {
        self.plan.units.iter().any(|u| match u.kind {
            UnitKind::Kustomize => self.ctx.tools.kustomize.is_some(),
            UnitKind::Helm { .. } => self.ctx.tools.helm.is_some(),
        })
    }

    /// The summary of the builds as `inventory` shows them (a failed build is an error of
    /// the tool on its manifest).
    pub fn summary_of(&self, inventory: &crate::model::Inventory) -> RenderSummary {
        let (kustomizations, mut charts) = self.plan.counts();
        // Without helm a chart is a note, not a rendering.
        if self.ctx.tools.helm.is_none() {
            charts = 0;
        }
        let failed: std::collections::BTreeSet<&Path> = inventory
            .problems
            .iter()
            .filter(|p| is_build_error(p) && self.unit_of(&p.path).is_some())
            .map(|p| &*p.path)
            .collect();
        RenderSummary {
            kustomizations,
            charts,
            failed: failed.len(),
            cached: 0,
        }
    }
}

/// The stand-in load of a file a build reads: no objects, no problems.
pub fn consumed(path: &Path) -> FileLoad {
    FileLoad {
        path: Arc::from(path),
        objects: Vec::new(),
        problems: Vec::new(),
        bytes: 0,
        stamp: None,
        yaml: Default::default(),
    }
}

/// A failed build's error: the tool's code, error severity.
fn is_build_error(p: &Diagnostic) -> bool {
    p.severity == Severity::Error && matches!(p.code, "kustomize" | "helm")
}

/// The summary of a set of unit loads (each failed build has an error with the tool's code).
pub fn summarize<'a>(plan: &Plan, loads: impl Iterator<Item = &'a FileLoad>) -> RenderSummary {
    let (kustomizations, charts) = plan.counts();
    let failed = loads
        .filter(|l| plan.unit_of(&l.path).is_some())
        .filter(|l| l.problems.iter().any(is_build_error))
        .count();
    RenderSummary {
        kustomizations,
        charts,
        failed,
        cached: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::{DeltaKind, LiveSet};

    fn copy_dir(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).expect("mkdir");
        for e in std::fs::read_dir(from).expect("read_dir") {
            let e = e.expect("entry");
            if e.path().is_dir() {
                copy_dir(&e.path(), &to.join(e.file_name()));
            } else {
                std::fs::copy(e.path(), to.join(e.file_name())).expect("copy");
            }
        }
    }

    /// A change to an input of a build rebuilds the builds that read it, and only those; the
    /// result flows as per-object deltas. A new overlay is planned and built.
    #[test]
    fn a_changed_input_rebuilds_the_builds_that_read_it() {
        if crate::render::which("kubectl").is_none() && crate::render::which("kustomize").is_none()
        {
            eprintln!("skipped: no kustomize");
            return;
        }
        let dir = tempfile::tempdir().expect("tempdir");
        // Builds are not cached in the user's cache dir (only tests of rendering build).
        std::env::set_var("XDG_CACHE_HOME", dir.path().join("cache"));
        let repo = dir.path().join("repo");
        copy_dir(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/render/repo"),
            &repo,
        );
        let req = RenderRequest {
            render: true,
            ..RenderRequest::default()
        };
        let mut live =
            LiveSet::load_rendered(std::slice::from_ref(&repo), &LoadOptions::default(), &req)
                .expect("load");
        let names = |live: &LiveSet| -> Vec<String> {
            let mut v: Vec<String> = live
                .inventory()
                .objects
                .iter()
                .map(|o| o.id.name.to_string())
                .collect();
            v.sort();
            v
        };
        assert!(names(&live).contains(&"prod-guestbook-ui".to_owned()));
        let summary = live.render_summary().expect("rendering");
        assert_eq!(
            (summary.kustomizations, summary.charts, summary.failed),
            (4, 1, 1)
        );

        let patch = repo.join("overlays/prod/replicas.yaml");
        std::fs::write(
            &patch,
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: guestbook-ui\nspec:\n  replicas: 9\n",
        )
        .expect("write");
        let deltas = live.apply(std::slice::from_ref(&patch));
        let changed: Vec<(DeltaKind, String)> = deltas
            .iter()
            .map(|d| (d.kind, d.id.name.to_string()))
            .collect();
        assert_eq!(
            changed,
            [(DeltaKind::Modified, "prod-guestbook-ui".to_owned())]
        );

        // The base feeds both overlays (and the broken one, still broken).
        let service = repo.join("base/service.yaml");
        let text = std::fs::read_to_string(&service)
            .expect("read")
            .replace("port: 80", "port: 81");
        std::fs::write(&service, text).expect("write");
        let mut changed: Vec<String> = live
            .apply(std::slice::from_ref(&service))
            .iter()
            .map(|d| d.id.name.to_string())
            .collect();
        changed.sort();
        assert_eq!(changed, ["prod-guestbook-ui", "staging-guestbook-ui"]);

        // A new overlay: planned, built, added; its kustomization is no object.
        let qa = repo.join("overlays/qa");
        std::fs::create_dir(&qa).expect("mkdir");
        std::fs::write(
            qa.join("kustomization.yaml"),
            "namePrefix: qa-\nresources:\n- ../../base\n",
        )
        .expect("write");
        let mut added: Vec<(DeltaKind, String)> = live
            .apply(std::slice::from_ref(&qa))
            .iter()
            .map(|d| (d.kind, d.id.name.to_string()))
            .collect();
        added.sort();
        assert_eq!(
            added,
            [
                (DeltaKind::Added, "qa-guestbook-ui".to_owned()),
                (DeltaKind::Added, "qa-guestbook-ui".to_owned())
            ]
        );
        assert!(live
            .inventory()
            .problems
            .iter()
            .all(|p| !p.path.ends_with("overlays/qa/kustomization.yaml")));
    }
}
