//! The data layer: given roots and load options, it loads the manifests (progress, partial
//! batches, the whole table, then the linked graph) and follows changes (watched paths →
//! per-file re-reads → per-identity deltas and in-place patches), publishing one stream of
//! [`Event`]s that every front end consumes: the terminal UI, `get -w` and `bench`.
//!
//! Nouns: a [`FileLoad`](crate::model::load::FileLoad) is one file's objects and problems;
//! the [`Inventory`] is every object and problem, with the kind registry; the [`LiveSet`]
//! keeps the per-file loads and re-reads changed files into a new inventory; a [`Dataset`]
//! is an inventory with its label index and graph — what front ends query.

mod change;
pub mod delta;
mod follow;
mod live;
mod load;
mod render;
mod settle;
mod snapshot;

use roaring::RoaringBitmap;

pub use change::{Change, ChangeData, Moves, Patch, PatchReport};
pub use delta::{Delta, DeltaKind};
pub use follow::{follow, spawn, spawn_until, Follow};
pub use live::{FilePatch, LiveSet};
pub use load::{first_load, Pacing, Timeline};
pub use render::{RenderRequest, RenderSummary, Rendering};

/// What front ends may use of the graph and the index: the data layer's query surface.
pub use crate::graph::hierarchy::{
    branch, Direction, Tree, TreeNode, TreeOptions, Walk, WalkNode, WalkStep,
};
pub use crate::graph::{lifecycle, EdgeKind, Graph, PatchOutcome};
pub use crate::index::LabelIndex;

use crate::model::Inventory;

/// An inventory with its label index and owner/selector graph.
#[derive(Clone, Debug, Default)]
pub struct Dataset {
    pub inventory: Inventory,
    pub index: LabelIndex,
    pub graph: Graph,
    /// Objects kept from an earlier read of a file that now fails to load.
    pub stale: RoaringBitmap,
    /// The graph is still being built ([`Dataset::unlinked`]); an [`Event::Linked`] brings it.
    pub linking: bool,
    /// The label index is still being built ([`Dataset::unindexed`]: `index` is empty); an
    /// [`Event::Indexed`] brings it.
    pub indexing: bool,
    /// The rendered view: how many kustomizations and charts were built and how many
    /// failed (`None`: the files view).
    pub render: Option<RenderSummary>,
}

impl Dataset {
    /// Indexes and links a loaded inventory.
    pub fn new(inventory: Inventory) -> Dataset {
        // Independent: build them on both cores.
        let (index, graph) = rayon::join(
            || LabelIndex::build(&inventory.objects),
            || Graph::build(&inventory),
        );
        Dataset {
            inventory,
            index,
            graph,
            stale: RoaringBitmap::new(),
            linking: false,
            indexing: false,
            render: None,
        }
    }

    /// Indexes a loaded inventory, leaving the graph to follow (the first load shows the
    /// whole table, selectors working, while owners and selectors are still being linked).
    pub fn unlinked(inventory: Inventory) -> Dataset {
        Dataset::unlinked_with(LabelIndex::build(&inventory.objects), inventory)
    }

    /// [`Dataset::unlinked`] with an index already built for `inventory.objects`.
    pub fn unlinked_with(index: LabelIndex, inventory: Inventory) -> Dataset {
        Dataset {
            index,
            inventory,
            graph: Graph::default(),
            stale: RoaringBitmap::new(),
            linking: true,
            indexing: false,
            render: None,
        }
    }

    /// A loaded inventory whose label index and graph are still being built: the first
    /// load shows the whole table while both are (an [`Event::Indexed`], then an
    /// [`Event::Linked`], bring them).
    pub fn unindexed(inventory: Inventory) -> Dataset {
        Dataset {
            indexing: true,
            ..Dataset::unlinked_with(LabelIndex::default(), inventory)
        }
    }

    /// Loads `paths` at once (no progress, no watching) and links it: what the headless
    /// commands query.
    pub fn load(paths: &[std::path::PathBuf], opts: &crate::model::load::LoadOptions) -> Dataset {
        Dataset::new(crate::model::load::load_paths(paths, opts))
    }

    /// [`Dataset::load`] with rendering as `req` asks (kustomize builds and Helm charts
    /// instead of the files they read); an error is a `-k` folder without a kustomization.
    pub fn load_rendered(
        paths: &[std::path::PathBuf],
        opts: &crate::model::load::LoadOptions,
        req: &RenderRequest,
    ) -> Result<Dataset, String> {
        if !req.is_on() {
            return Ok(Dataset::load(paths, opts));
        }
        let live = LiveSet::load_rendered(paths, opts, req)?;
        Ok(Dataset::new(live.inventory().clone()))
    }
}

/// The inventory of `paths` rendered as `req` asks (no index, no graph: what `get` lists).
pub fn load_inventory(
    paths: &[std::path::PathBuf],
    opts: &crate::model::load::LoadOptions,
    req: &RenderRequest,
) -> Result<Inventory, String> {
    if !req.is_on() {
        return Ok(crate::model::load::load_paths(paths, opts));
    }
    Ok(LiveSet::load_rendered(paths, opts, req)?
        .inventory()
        .clone())
}

/// What the data layer publishes, in order: `Progress`/`Partial` while loading, `Loaded`
/// (the whole table, unlinked), `Indexed` (its label index, when `Loaded` came without),
/// `Linked` (its graph), then one `Changed` per applied batch of file changes; `Notice`s
/// whenever watching has something to say.
#[derive(Clone, Debug)]
pub enum Event {
    /// Files read so far, of those the walk has found so far.
    Progress {
        files_done: usize,
        files_total: usize,
    },
    /// What files read since the previous `Partial` add (objects with the scopes of the
    /// built-in kinds; the final `Loaded` replaces it all).
    Partial(Box<Inventory>),
    /// The whole table, graph still being built (`linking`); indexed, unless its label
    /// index is still being built too (`indexing`: an `Indexed` follows).
    Loaded(Box<Dataset>),
    /// The label index of the dataset of an `indexing` `Loaded` (same objects, same order).
    Indexed(Box<LabelIndex>),
    /// The graph of the dataset of `Loaded` (same objects, same order).
    Linked(Box<Graph>),
    /// One applied batch of file changes.
    Changed(Box<Change>),
    /// Something to tell the user (a watching problem); nothing changed.
    Notice(String),
    /// Builds finished so far while loading, of those planned (sent as each finishes).
    Rendering { done: usize, total: usize },
}
