//! The name an edge carries (a selector's field, `spec.selector`; a reference's
//! relationship, `volume`): two bytes, an index into one process-wide table of the names
//! met so far, instead of a 16-byte `&'static str`. Edges are stored by the million and
//! moved on every edit that moves positions: with it (and u32 positions) an edge is 12
//! bytes, where a `&str` made it 40.
//!
//! The names are the graph's own literals (a few dozen), so the table stays small: looking
//! one up scans it, comparing addresses and lengths first.

use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError};

/// Room in the table. Names are literals of the graph's code (≈ 60); past this many,
/// [`EdgeName::of`] answers [`OVERFLOW`]'s slot.
const ROOM: usize = 1024;

/// What a name past the table's room reads as.
const OVERFLOW: &str = "…";

static TABLE: [OnceLock<&'static str>; ROOM] = [const { OnceLock::new() }; ROOM];
/// Slots filled, in order (a slot below it is set).
static FILLED: AtomicUsize = AtomicUsize::new(0);
/// Held while a name is added.
static ADDING: Mutex<()> = Mutex::new(());

/// A name an edge carries (see the module documentation); reads as the `&'static str` it
/// was made from.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct EdgeName(u16);

impl EdgeName {
    /// The name `name` (the same for every equal string).
    pub fn of(name: &'static str) -> EdgeName {
        if let Some(found) = find(name) {
            return found;
        }
        let _adding = ADDING.lock().unwrap_or_else(PoisonError::into_inner);
        let filled = FILLED.load(Ordering::Acquire);
        // Another thread may have added it meanwhile.
        if let Some(found) = find(name) {
            return found;
        }
        if filled >= ROOM - 1 {
            let _ = TABLE[ROOM - 1].set(OVERFLOW);
            return EdgeName((ROOM - 1) as u16);
        }
        let _ = TABLE[filled].set(name);
        FILLED.store(filled + 1, Ordering::Release);
        EdgeName(filled as u16)
    }

    /// The string this name was made from.
    pub fn as_str(self) -> &'static str {
        TABLE
            .get(usize::from(self.0))
            .and_then(OnceLock::get)
            .copied()
            .unwrap_or(OVERFLOW)
    }
}

/// The slot holding `name`.
fn find(name: &'static str) -> Option<EdgeName> {
    let filled = FILLED.load(Ordering::Acquire);
    (0..filled).find_map(|i| {
        let held = *TABLE[i].get()?;
        let same = (std::ptr::eq(held.as_ptr(), name.as_ptr()) && held.len() == name.len())
            || held == name;
        same.then_some(EdgeName(i as u16))
    })
}

impl std::ops::Deref for EdgeName {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq<&str> for EdgeName {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl fmt::Display for EdgeName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for EdgeName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl serde::Serialize for EdgeName {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_strings_share_a_name_and_read_back() {
        let a = EdgeName::of("spec.selector");
        let owned: &'static str = String::from("spec.selector").leak();
        assert_eq!(EdgeName::of(owned), a);
        assert_eq!(a.as_str(), "spec.selector");
        assert_eq!(a, "spec.selector");
        assert_ne!(EdgeName::of("volume"), a);
        assert_eq!(format!("{a} {a:?}"), "spec.selector \"spec.selector\"");
        // Threads adding names at once agree on them.
        let names: Vec<Vec<EdgeName>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..4)
                .map(|_| s.spawn(|| ["t1", "t2", "t3", "t4"].map(EdgeName::of).to_vec()))
                .collect();
            handles.into_iter().filter_map(|h| h.join().ok()).collect()
        });
        assert_eq!(names.len(), 4);
        assert!(names.windows(2).all(|w| w[0] == w[1]));
        assert_eq!(
            names[0].iter().map(|n| n.as_str()).collect::<Vec<_>>(),
            ["t1", "t2", "t3", "t4"]
        );
    }
}
