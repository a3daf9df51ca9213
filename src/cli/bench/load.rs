//! The first load, run and timed as the UI runs it, and the process's memory high-water
//! mark.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use std::sync::mpsc::Receiver;

use ratatui::backend::TestBackend;
use ratatui::Terminal;

use super::{HEIGHT, WIDTH};
use crate::app::{superseded_left_out, Action, App, Effect, Keymap, Options};
use crate::dataset::{first_load, LiveSet, Pacing};
use crate::model::load::{load_listed_file, FileLoad, LoadOptions, YamlStats};

/// The first load, timed step by step as the UI runs it ([`first_load`]): the loader's
/// steps, and when the off-screen UI drew what it received.
#[derive(Clone, Debug, Default)]
pub struct LoadReport {
    /// Until the walk had listed every file (files are read meanwhile).
    pub walk: Duration,
    /// Share of the time until every file was parsed spent reading (by CPU time).
    pub read: Duration,
    /// Share of the time until every file was parsed spent parsing (by CPU time).
    pub parse: Duration,
    /// The live set (kind registry with CRDs, scopes, duplicates), with the label index
    /// built beside it, and the hand-over of the whole table.
    pub inventory: Duration,
    /// The label index alone (inside `inventory`, on the other core).
    pub index: Duration,
    /// Built after the table was handed over, while it is on screen.
    pub graph: Duration,
    /// `App::update(Loaded)`: sorting and filtering the whole table.
    pub table: Duration,
    /// The frame showing the whole table.
    pub table_frame: Duration,
    /// From the start until the whole table was on screen.
    pub to_table: Duration,
    /// From the start until the label index was applied (the table comes first, the index
    /// after it).
    pub to_indexed: Duration,
    /// The CPU time of every thread (user + system) until then: what the load costs
    /// whatever else shares the cores.
    pub cpu_to_table: Duration,
    /// The process's CPU time when the load started (what setting up cost).
    pub cpu_at_start: Duration,
    /// From the start until the graph was applied and drawn (tree, findings).
    pub to_linked: Duration,
    /// From the start until the first frame with rows (a partial batch, or the table).
    pub first_rows: Duration,
    /// From the start until the first file's objects were parsed.
    pub first_file: Duration,
    /// The first frame (the loading gauge).
    pub loading_frame: Duration,
    /// The UI thread's time applying partial batches and drawing them (while loading).
    pub partial_ui: Duration,
    /// The longest the UI thread was busy at once while loading (a burst of actions and
    /// its frame): how long a keystroke could wait.
    pub ui_stall: Duration,
    /// Freeing the data the whole table replaced (off the UI thread, as the event loop
    /// does).
    pub release: Duration,
    pub partial_batches: usize,
    pub files: usize,
    pub objects: usize,
    pub bytes: u64,
    pub problems: usize,
    /// YAML documents parsed by the fast path, and those left to saphyr with why.
    pub yaml: YamlStats,
}

impl LoadReport {
    /// The loader's steps until the table is handed over (the walk overlaps reading).
    pub fn total(&self) -> Duration {
        self.read + self.parse + self.inventory
    }
}

/// Peak and current resident set size from `/proc/self/status` (0 where unavailable).
#[derive(Clone, Copy, Debug, Default)]
pub struct Rss {
    pub peak: u64,
    pub current: u64,
}

impl Rss {
    pub fn now() -> Rss {
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        let field = |name: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(name))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
                .map_or(0, |kb| kb * 1024)
        };
        Rss {
            peak: field("VmHWM:"),
            current: field("VmRSS:"),
        }
    }
}

/// The CPU time (user + system) every thread of the process has used so far.
pub fn process_cpu() -> Duration {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: `getrusage` writes one `rusage` into the valid, writable buffer given.
    let ok = unsafe { libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()) } == 0;
    if !ok {
        return Duration::ZERO;
    }
    // SAFETY: initialised by the successful call above (and zeroed before it).
    let usage = unsafe { usage.assume_init() };
    let time = |t: libc::timeval| {
        Duration::from_secs(u64::try_from(t.tv_sec).unwrap_or(0))
            + Duration::from_micros(u64::try_from(t.tv_usec).unwrap_or(0))
    };
    time(usage.ru_utime) + time(usage.ru_stime)
}

/// Reads and parses one file as the UI does ([`load_file`]), timing the read and the parse
/// separately (nanoseconds added to the counters).
fn read_and_parse(
    path: &Path,
    opts: &LoadOptions,
    read_ns: &AtomicU64,
    parse_ns: &AtomicU64,
    yaml: &Mutex<YamlStats>,
) -> FileLoad {
    let t = Instant::now();
    let mut read = None;
    let load = load_listed_file(path, opts, &mut || read = Some(t.elapsed()));
    let read = read.unwrap_or_default();
    add(read_ns, read);
    add(parse_ns, t.elapsed().saturating_sub(read));
    if let Ok(mut y) = yaml.lock() {
        y.add(&load.yaml);
    }
    load
}

fn add(counter: &AtomicU64, d: Duration) {
    counter.fetch_add(
        u64::try_from(d.as_nanos()).unwrap_or(u64::MAX),
        Ordering::Relaxed,
    );
}

/// Runs the UI's first load with a loader thread and an off-screen UI on this thread, as
/// the event loop does (every queued action applied, then one draw); returns the UI, the
/// live set the watcher would follow, and the timings.
pub fn measure(
    paths: &[PathBuf],
    opts: &LoadOptions,
) -> Result<(App, LiveSet, LoadReport), String> {
    let keymap = Keymap::load(None)?;
    let mut app = App::new(keymap, Options::default(), chrono::Utc::now().timestamp());
    let mut terminal = Terminal::new(TestBackend::new(WIDTH, HEIGHT))
        .map_err(|e| format!("off-screen terminal: {e}"))?;
    app.update(Action::Resize(WIDTH, HEIGHT));
    let mut report = LoadReport::default();

    let start = Instant::now();
    report.cpu_at_start = process_cpu();
    report.loading_frame = draw(&mut terminal, &mut app)?;
    let (read_ns, parse_ns, first_ns) = (AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0));
    let yaml = Mutex::new(YamlStats::default());
    let (tx, rx) = std::sync::mpsc::channel();
    let loaded = std::thread::scope(|s| {
        let loader = s.spawn(|| {
            let tx = tx;
            let load = |f: &Path| {
                let load = read_and_parse(f, opts, &read_ns, &parse_ns, &yaml);
                let at = u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX);
                let _ = first_ns.compare_exchange(0, at, Ordering::Relaxed, Ordering::Relaxed);
                load
            };
            let send = |e: crate::dataset::Event| tx.send(Action::from(e)).is_ok();
            first_load(paths, opts, Some(Pacing::default()), true, &load, &send)
        });
        let ui = ui_side(&mut app, &mut terminal, &rx, start, &mut report);
        let loaded = loader
            .join()
            .map_err(|_| "the loader panicked".to_string())?;
        ui?;
        loaded.ok_or_else(|| "the loader stopped".to_string())
    })?;
    let (live, times) = loaded;

    // Reading starts while the walk goes on: read + parse is everything until the last
    // file was parsed, the walk overlapping it.
    let read_parse = times.parsed;
    let (read_cpu, parse_cpu) = (read_ns.into_inner() as f64, parse_ns.into_inner() as f64);
    let read_share = if read_cpu + parse_cpu > 0.0 {
        read_cpu / (read_cpu + parse_cpu)
    } else {
        0.0
    };
    report.walk = times.discovered;
    report.read = read_parse.mul_f64(read_share);
    report.parse = read_parse.saturating_sub(report.read);
    report.inventory = times.loaded.saturating_sub(times.parsed);
    report.index = times.index;
    report.graph = times.linked.saturating_sub(times.loaded);
    report.first_file = Duration::from_nanos(first_ns.into_inner());
    report.partial_batches = times.partial_batches;
    let inv = live.inventory();
    report.files = inv.files;
    report.objects = inv.objects.len();
    report.bytes = inv.bytes;
    report.problems = inv.problems.len();
    report.yaml = yaml.into_inner().unwrap_or_default();
    Ok((app, live, report))
}

/// The UI's side: applies what the loader sends, draws after each burst, and notes when
/// rows, the whole table and the graph reached the screen.
fn ui_side(
    app: &mut App,
    terminal: &mut Terminal<TestBackend>,
    rx: &Receiver<Action>,
    start: Instant,
    report: &mut LoadReport,
) -> Result<(), String> {
    let mut releases = Vec::new();
    while let Ok(first) = rx.recv() {
        let mut table = None;
        let mut linked = false;
        let mut indexed = false;
        let mut partial = false;
        let burst = Instant::now();
        // As the event loop does: partial batches the whole table replaces are left out.
        let queued: Vec<Action> = std::iter::once(first).chain(rx.try_iter()).collect();
        for a in superseded_left_out(queued) {
            let t = Instant::now();
            match a {
                Action::Partial(_) => {
                    app.update(a);
                    partial = true;
                }
                Action::Loaded(_) => {
                    app.update(a);
                    table = Some(t.elapsed());
                }
                Action::Linked(_) => {
                    app.update(a);
                    linked = true;
                }
                Action::Indexed(_) => {
                    app.update(a);
                    indexed = true;
                }
                a => app.update(a),
            }
        }
        releases.extend(app.take_effects().into_iter().filter_map(|e| match e {
            // As the event loop does: dropped on a thread of its own.
            Effect::Release(old) => Some(std::thread::spawn(move || {
                let t = Instant::now();
                drop(old);
                t.elapsed()
            })),
            _ => None,
        }));
        if !app.dirty {
            continue;
        }
        let frame = draw(terminal, app)?;
        let at = start.elapsed();
        if table.is_none() && !linked && report.to_table.is_zero() {
            report.ui_stall = report.ui_stall.max(burst.elapsed());
            if partial {
                report.partial_ui += burst.elapsed();
            }
        }
        if report.first_rows.is_zero() && !app.data.inventory.objects.is_empty() {
            report.first_rows = at;
        }
        if let Some(update) = table {
            report.table = update;
            report.table_frame = frame;
            report.to_table = at;
            report.cpu_to_table = process_cpu().saturating_sub(report.cpu_at_start);
        }
        if linked {
            report.to_linked = at;
        }
        if indexed || (table.is_some() && !app.data.indexing) {
            report.to_indexed = at;
        }
    }
    for r in releases {
        report.release += r
            .join()
            .map_err(|_| "freeing old data panicked".to_string())?;
    }
    Ok(())
}

fn draw(terminal: &mut Terminal<TestBackend>, app: &mut App) -> Result<Duration, String> {
    let t = Instant::now();
    terminal
        .draw(|f| crate::ui::draw(app, f))
        .map_err(|e| format!("drawing failed: {e}"))?;
    app.dirty = false;
    Ok(t.elapsed())
}
