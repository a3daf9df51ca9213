//! Files caught half-written. A watched batch can arrive while a program is still writing a
//! file: read then, `name: partial` would show as `configmap/pa`, then change once the write
//! ends. A file that was modified moments ago and ends inside a line (no final newline) is
//! held back and read again once it has been still for [`SETTLE`]: editors and tools end
//! what they write with a newline, so a normal save is applied at once. A file held longer
//! than [`MAX_HOLD`] (a writer that never ends its last line) is applied as it is.
//!
//! A file emptied moments ago is held the same way: a save that truncates and then writes
//! (a shell `>`, `std::fs::write`, editors that save in place) leaves it empty for an
//! instant, and read then every object of the file would be deleted and added back. A file
//! emptied on purpose is applied once it has been still for [`SETTLE`].
//!
//! A write that stops exactly at the end of a line cannot be told from a finished file and
//! is applied; the next write brings the rest as an ordinary change.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

/// How long a file ending inside a line must stay unmodified before it is read.
pub const SETTLE: Duration = Duration::from_millis(250);

/// The longest a file is held back.
pub const MAX_HOLD: Duration = Duration::from_secs(1);

/// How often held files are looked at again.
pub const RECHECK: Duration = Duration::from_millis(50);

/// Files held back, with when each was first held.
#[derive(Debug, Default)]
pub struct Settle {
    held: BTreeMap<PathBuf, Instant>,
}

impl Settle {
    /// Moves out of `paths` the files that look half-written (see the module doc) and
    /// remembers them; a file held for [`MAX_HOLD`] already stays in `paths`.
    pub fn hold(&mut self, paths: &mut BTreeSet<PathBuf>) {
        paths.retain(|p| !self.defer(p));
    }

    /// Whether `path` looks half-written (see the module doc): then it is remembered, to
    /// be looked at again, and should not be read now. A file held for [`MAX_HOLD`] is not.
    /// Also used for the files a directory walk finds changed (a rescan, a new directory).
    pub fn defer(&mut self, path: &Path) -> bool {
        let now = Instant::now();
        let since = self.held.get(path).copied();
        let expired = since.is_some_and(|t| now.duration_since(t) >= MAX_HOLD);
        if !expired && half_written(path, SystemTime::now()) {
            self.held.insert(path.to_path_buf(), since.unwrap_or(now));
            true
        } else {
            self.held.remove(path);
            false
        }
    }

    /// Whether some file is held back.
    pub fn waiting(&self) -> bool {
        !self.held.is_empty()
    }

    /// The held files, to look at again (those still half-written are held again by
    /// [`Settle::hold`]).
    pub fn recheck(&self) -> impl Iterator<Item = PathBuf> + '_ {
        self.held.keys().cloned()
    }
}

/// A regular file modified less than [`SETTLE`] before `now` that is empty or whose last
/// byte is not a newline. Only the last byte is read (a FIFO or device is never opened: not
/// a regular file).
fn half_written(path: &Path, now: SystemTime) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    if !meta.is_file() {
        return false;
    }
    let recent = match meta.modified() {
        // A modification time in the future (clock skew) counts as recent.
        Ok(m) => now.duration_since(m).map_or(true, |age| age < SETTLE),
        Err(_) => false,
    };
    recent && (meta.len() == 0 || last_byte(path).is_some_and(|b| b != b'\n'))
}

fn last_byte(path: &Path) -> Option<u8> {
    let mut f = std::fs::File::open(path).ok()?;
    f.seek(SeekFrom::End(-1)).ok()?;
    let mut b = [0u8; 1];
    f.read_exact(&mut b).ok()?;
    Some(b[0])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(p: &Path) -> BTreeSet<PathBuf> {
        BTreeSet::from([p.to_path_buf()])
    }

    #[test]
    fn a_fresh_file_ending_inside_a_line_is_held_then_applied_when_still() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("cm.yaml");
        std::fs::write(&f, "kind: ConfigMap\nmetadata:\n  name: pa").unwrap();
        let mut s = Settle::default();
        let mut paths = set(&f);
        s.hold(&mut paths);
        assert!(paths.is_empty());
        assert!(s.waiting());
        // Still fresh a moment later: held again.
        let mut again: BTreeSet<PathBuf> = s.recheck().collect();
        s.hold(&mut again);
        assert!(again.is_empty());
        std::thread::sleep(SETTLE + Duration::from_millis(20));
        let mut later: BTreeSet<PathBuf> = s.recheck().collect();
        s.hold(&mut later);
        assert_eq!(later, set(&f));
        assert!(!s.waiting());
    }

    #[test]
    fn a_file_ending_with_a_newline_is_applied_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("cm.yaml");
        std::fs::write(&f, "kind: ConfigMap\nmetadata:\n  name: partial\n").unwrap();
        let mut s = Settle::default();
        let mut paths = set(&f);
        s.hold(&mut paths);
        assert_eq!(paths, set(&f));
        assert!(!s.waiting());
    }

    #[test]
    fn directories_and_missing_files_are_never_held() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("gone.yaml");
        let mut paths: BTreeSet<PathBuf> =
            [dir.path().to_path_buf(), missing].into_iter().collect();
        let before = paths.clone();
        let mut s = Settle::default();
        s.hold(&mut paths);
        assert_eq!(paths, before);
    }

    /// The instant between a truncating save's truncate and its write: the file's objects
    /// are not deleted and added back.
    #[test]
    fn a_file_emptied_moments_ago_is_held_then_applied_when_still() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("cm.yaml");
        std::fs::write(&f, "").unwrap();
        let mut s = Settle::default();
        let mut paths = set(&f);
        s.hold(&mut paths);
        assert!(paths.is_empty());
        // The write lands: applied at once.
        std::fs::write(&f, "kind: ConfigMap\nmetadata:\n  name: full\n").unwrap();
        let mut again: BTreeSet<PathBuf> = s.recheck().collect();
        s.hold(&mut again);
        assert_eq!(again, set(&f));
        assert!(!s.waiting());
        // Emptied on purpose: applied once still.
        std::fs::write(&f, "").unwrap();
        let mut emptied = set(&f);
        s.hold(&mut emptied);
        assert!(emptied.is_empty());
        std::thread::sleep(SETTLE + Duration::from_millis(20));
        let mut later: BTreeSet<PathBuf> = s.recheck().collect();
        s.hold(&mut later);
        assert_eq!(later, set(&f));
        assert!(!s.waiting());
    }

    #[test]
    fn a_writer_that_never_ends_its_line_is_applied_after_the_longest_hold() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("cm.yaml");
        let mut s = Settle::default();
        s.held.insert(f.clone(), Instant::now() - MAX_HOLD);
        std::fs::write(&f, "kind: ConfigMap").unwrap();
        let mut paths = set(&f);
        s.hold(&mut paths);
        assert_eq!(paths, set(&f));
        assert!(!s.waiting());
    }
}
