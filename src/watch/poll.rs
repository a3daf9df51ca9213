//! `--poll` mode: a stat walk of the roots every [`POLL_INTERVAL`], for file systems where
//! inotify sees nothing (NFS, SMB, some container mounts).
//!
//! Not notify's `PollWatcher`: it compares modification times in whole seconds
//! (`poll.rs`, `system_time_to_seconds`), so a second save within the same second as the
//! scan that saw the first is never reported — the dropped save STYLE.md practice 8
//! forbids — and its content-hash option reads every byte of the tree on every scan. This
//! walk compares full-resolution modification time, size and inode instead, and uses the
//! loader's own file discovery, so what it reports is exactly what the loader reads.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use super::watcher::WatchEvent;
use crate::model::load::{discover, LoadOptions};

/// How often the tree is walked (a compromise between latency and the cost of a full stat
/// walk on a network file system).
pub const POLL_INTERVAL: Duration = Duration::from_millis(500);

/// What identifies one version of a file without reading it.
type Stamp = (Option<SystemTime>, u64, u64);

/// A running poller; dropping it stops the thread within a tick.
pub struct Poller {
    stop: Arc<AtomicBool>,
}

impl Drop for Poller {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

/// Takes the first snapshot now (so every later change is seen) and polls on a thread.
pub fn spawn(roots: &[PathBuf], tx: Sender<WatchEvent>) -> std::io::Result<Poller> {
    let roots = roots.to_vec();
    let stop = Arc::new(AtomicBool::new(false));
    let mut seen = snapshot(&roots);
    let flag = Arc::clone(&stop);
    std::thread::Builder::new()
        .name("kubesift poll".into())
        .spawn(move || {
            while sleep_unless_stopped(&flag, POLL_INTERVAL) {
                let now = snapshot(&roots);
                let changed = changes(&seen, &now);
                seen = now;
                if !changed.is_empty() && tx.send(WatchEvent::Changed(changed)).is_err() {
                    return; // receiver gone: the program is stopping
                }
            }
        })?;
    Ok(Poller { stop })
}

/// Sleeps `total` in short steps; false once `stop` is set.
fn sleep_unless_stopped(stop: &AtomicBool, total: Duration) -> bool {
    let end = Instant::now() + total;
    while Instant::now() < end {
        if stop.load(Ordering::SeqCst) {
            return false;
        }
        std::thread::sleep(Duration::from_millis(25).min(end - Instant::now()));
    }
    !stop.load(Ordering::SeqCst)
}

/// Every file the loader would read, with its stamp.
fn snapshot(roots: &[PathBuf]) -> BTreeMap<PathBuf, Stamp> {
    let (files, _problems) = discover(roots, &LoadOptions::default());
    files
        .into_iter()
        .filter_map(|f| stamp(&f).map(|s| (f, s)))
        .collect()
}

fn stamp(path: &Path) -> Option<Stamp> {
    let meta = std::fs::metadata(path).ok()?;
    #[cfg(unix)]
    let ino = std::os::unix::fs::MetadataExt::ino(&meta);
    #[cfg(not(unix))]
    let ino = 0;
    Some((meta.modified().ok(), meta.len(), ino))
}

/// Paths created, removed or changed between two snapshots, in path order.
fn changes(old: &BTreeMap<PathBuf, Stamp>, new: &BTreeMap<PathBuf, Stamp>) -> Vec<PathBuf> {
    let mut out: BTreeSet<&PathBuf> = old.keys().filter(|k| !new.contains_key(*k)).collect();
    out.extend(
        new.iter()
            .filter(|(k, s)| old.get(*k) != Some(s))
            .map(|(k, _)| k),
    );
    out.into_iter().cloned().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_lists_created_removed_and_changed() {
        let t = SystemTime::UNIX_EPOCH;
        let s = |n: u64| (Some(t + Duration::from_nanos(n)), 1, 1);
        let old: BTreeMap<PathBuf, Stamp> = [("a", s(1)), ("b", s(1)), ("c", s(1))]
            .map(|(p, s)| (p.into(), s))
            .into();
        // `b` differs by one nanosecond: notify's PollWatcher would not see it.
        let new: BTreeMap<PathBuf, Stamp> = [("b", s(2)), ("c", s(1)), ("d", s(1))]
            .map(|(p, s)| (p.into(), s))
            .into();
        let got = changes(&old, &new);
        assert_eq!(got, ["a", "b", "d"].map(PathBuf::from));
    }

    #[test]
    fn snapshot_reads_what_the_loader_reads() -> anyhow::Result<()> {
        let dir = tempfile::tempdir()?;
        std::fs::create_dir_all(dir.path().join(".git"))?;
        std::fs::write(dir.path().join("a.yaml"), "x")?;
        std::fs::write(dir.path().join("b.txt"), "x")?;
        std::fs::write(dir.path().join(".git/c.yaml"), "x")?;
        let snap = snapshot(&[dir.path().to_path_buf()]);
        assert_eq!(
            snap.keys().collect::<Vec<_>>(),
            [&dir.path().join("a.yaml")]
        );
        Ok(())
    }
}
