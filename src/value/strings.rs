//! The process-wide table of repeated string values that [`super::Raw`] encodes as ids.
//!
//! After keys became ids ([`super::keys`]), string values are most of an encoded object's
//! bytes, and many repeat: a few hundred values (`TCP`, `True`, `IfNotPresent`, `500m`) recur
//! in nearly every object, and an app's names and label values recur in each of its objects
//! (the Deployment's labels, its selector, its pod template, its ReplicaSet and Pods).
//! Unlike keys, most distinct values are unique (uids, timestamps, resourceVersions, IPs), so
//! a value gets an id only once this thread has met it [`ADMIT_AT`] times (counted in a small
//! direct-mapped table per thread, where a collision just forgets a count): unique values
//! never reach the table.
//!
//! So one value may be encoded inline in one object and as an id in a later one: readers
//! answer the same text either way, and `RawRef`'s equality compares values, not bytes.
//!
//! The table is append-only and bounded ([`MAX_VALUES`] values of at most [`MAX_LEN`]
//! bytes); once full, values stay inline. Reading an id back is two atomic loads (no lock).

use std::cell::RefCell;
use std::hash::Hasher;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, OnceLock};

use rustc_hash::{FxHashMap as HashMap, FxHasher};

use super::keys::same;

/// Shorter values are kept inline (an id would save nothing).
pub const MIN_LEN: usize = 3;
/// Longer values are kept inline.
pub const MAX_LEN: usize = 256;
/// At most this many values get ids.
pub const MAX_VALUES: usize = 1 << 20;
/// A value gets an id when one thread meets it this many times.
pub const ADMIT_AT: u8 = 2;

/// Ids per chunk of slots (chunks are allocated as the table grows).
const CHUNK: usize = 1 << 12;
const CHUNKS: usize = MAX_VALUES / CHUNK;
/// Shards of the text → id map (loader threads add values concurrently).
const SHARDS: usize = 64;

struct Table {
    chunks: [OnceLock<Box<[OnceLock<&'static str>]>>; CHUNKS],
    /// Hash of a value → its id (16 bytes an entry; a value whose hash another value holds
    /// stays inline).
    ids: [Mutex<Option<HashMap<u64, u32>>>; SHARDS],
    next: AtomicU32,
}

static TABLE: Table = Table {
    chunks: [const { OnceLock::new() }; CHUNKS],
    ids: [const { Mutex::new(None) }; SHARDS],
    next: AtomicU32::new(0),
};

impl Table {
    fn get(&self, id: u64) -> Option<&'static str> {
        let id = usize::try_from(id).ok()?;
        let chunk = self.chunks.get(id / CHUNK)?.get()?;
        chunk.get(id % CHUNK)?.get().copied()
    }

    /// The id of `value` (hash `h`), adding it while there is room.
    fn add(&self, value: &str, h: u64) -> Option<(&'static str, u32)> {
        let shard = self.ids.get((h >> 58) as usize % SHARDS)?;
        let mut ids = shard.lock().ok()?;
        let ids = ids.get_or_insert_with(HashMap::default);
        if let Some(&id) = ids.get(&h) {
            let text = self.get(u64::from(id))?;
            return same(text.as_bytes(), value.as_bytes()).then_some((text, id));
        }
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let at = usize::try_from(id).ok().filter(|&i| i < MAX_VALUES);
        let Some(at) = at else {
            self.next.store(MAX_VALUES as u32, Ordering::Relaxed);
            return None;
        };
        let chunk = self.chunks.get(at / CHUNK)?.get_or_init(|| {
            (0..CHUNK)
                .map(|_| OnceLock::new())
                .collect::<Vec<_>>()
                .into_boxed_slice()
        });
        let text: &'static str = Box::leak(Box::from(value));
        chunk.get(at % CHUNK)?.set(text).ok()?;
        ids.insert(h, id);
        Some((text, id))
    }
}

/// Slots of the per-thread recent values and sighting counts (counts packed in 4 bytes: the
/// time spent here is mostly cache misses on these tables), enough for the values of the
/// files a thread parsed last; smaller tables shared fewer values (BENCHMARKS.md, "mem4").
const RECENT_SLOTS: usize = 1 << 12;
const SEEN_SLOTS: usize = 1 << 16;
/// The sightings of a value the table refused (full, or its hash taken by another value):
/// it stays inline without asking the table again.
const REFUSED: u32 = 0xff;

/// This thread's view: recently used ids, and how often values without one were met.
struct Local {
    recent: Vec<Option<(&'static str, u32)>>,
    /// Per slot: 24 bits of the hash, then the sightings in the low 8 bits.
    seen: Vec<u32>,
}

thread_local! {
    static LOCAL: RefCell<Local> = RefCell::new(Local {
        recent: vec![None; RECENT_SLOTS],
        seen: vec![0; SEEN_SLOTS],
    });
}

fn hash(value: &str) -> u64 {
    let mut h = FxHasher::default();
    h.write(value.as_bytes());
    h.finish()
}

/// How many values have ids.
pub fn len() -> usize {
    (TABLE.next.load(Ordering::Relaxed) as usize).min(MAX_VALUES)
}

/// The value with id `id`, if the table has it.
#[inline]
pub fn get(id: u64) -> Option<&'static str> {
    TABLE.get(id)
}

/// Values of forms that hardly ever repeat: all digits (resourceVersions), RFC 3339
/// timestamps and uids. Left inline without counting them: each first sighting is a cache
/// miss on the per-thread tables, and these were a third of the first sightings
/// (BENCHMARKS.md, "parse3"). A uid repeats only in its dependents' ownerReferences, where
/// an id saved less than its table entry cost (at 1M objects, a quarter of the first
/// sightings, and the table filled sooner; BENCHMARKS.md, "table1m").
fn unique_form(b: &[u8]) -> bool {
    let digit = |i: usize| b.get(i).is_some_and(u8::is_ascii_digit);
    let timestamp = b.len() >= 20
        && (0..4).all(digit)
        && b.get(4) == Some(&b'-')
        && b.get(7) == Some(&b'-')
        && b.get(10) == Some(&b'T')
        && b.get(13) == Some(&b':');
    let uuid = b.len() == 36
        && [8, 13, 18, 23].iter().all(|&i| b.get(i) == Some(&b'-'))
        && b.iter().all(|c| c.is_ascii_hexdigit() || *c == b'-');
    timestamp || uuid || b.iter().all(u8::is_ascii_digit)
}

/// The id to encode `value` with, or `None` to write it inline; counts the sighting.
pub fn id(value: &str) -> Option<u32> {
    if value.len() < MIN_LEN || value.len() > MAX_LEN || unique_form(value.as_bytes()) {
        return None;
    }
    let h = hash(value);
    LOCAL.with(|l| {
        let mut l = l.borrow_mut();
        let slot = (h as usize) % RECENT_SLOTS;
        if let Some((text, id)) = l.recent.get(slot).copied().flatten() {
            if same(text.as_bytes(), value.as_bytes()) {
                return Some(id);
            }
        }
        let seen_slot = ((h >> 16) as usize) % SEEN_SLOTS;
        let tag = ((h >> 40) as u32) << 8;
        let seen = l.seen.get_mut(seen_slot)?;
        let sightings = if *seen & !0xff == tag {
            let count = *seen & 0xff;
            if count == REFUSED {
                return None;
            }
            (count + 1).min(REFUSED - 1)
        } else {
            1
        };
        *seen = tag | sightings;
        if sightings < u32::from(ADMIT_AT) {
            return None;
        }
        let Some((text, id)) = TABLE.add(value, h) else {
            // The table is full, or another value has its hash: looking it up again
            // would only take the lock and miss again.
            *seen = tag | REFUSED;
            return None;
        };
        if let Some(r) = l.recent.get_mut(slot) {
            *r = Some((text, id));
        }
        Some(id)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_get_ids_once_repeated_and_read_back() {
        let v = "strings-test-value-repeated";
        let ids: Vec<_> = (0..ADMIT_AT + 2).map(|_| id(v)).collect();
        let first = usize::from(ADMIT_AT - 1);
        assert!(ids[..first].iter().all(Option::is_none), "{ids:?}");
        let got = ids[first].expect("an id once repeated");
        assert!(ids[first..].iter().all(|i| *i == Some(got)));
        assert_eq!(get(u64::from(got)), Some(v));
        // Another thread counts its own sightings, and finds the same id.
        let other = std::thread::spawn(move || {
            let sightings: Vec<_> = (0..ADMIT_AT).map(|_| id(v)).collect();
            sightings.last().copied().flatten()
        })
        .join()
        .unwrap();
        assert_eq!(other, Some(got));
    }

    #[test]
    fn short_long_and_unknown_values_stay_inline() {
        assert!((0..10).all(|_| id("ab").is_none()));
        assert!((0..10).all(|_| id("50048351").is_none()));
        assert!((0..10).all(|_| id("2026-01-22T01:23:19Z").is_none()));
        assert!((0..10).all(|_| id("f53fd8de-d7fe-428a-8b0b-3df4d6710204").is_none()));
        assert!(!unique_form(b"f53fd8de-d7fe-428a-8b0b-3df4d6710204-config"));
        assert!(!unique_form(b"f53fd8de_d7fe-428a-8b0b-3df4d6710204"));
        assert!(!unique_form(b"2026-01-22"));
        assert!(!unique_form(b"10.96.0.1"));
        let long = "x".repeat(MAX_LEN + 1);
        assert!((0..10).all(|_| id(&long).is_none()));
        assert_eq!(get(MAX_VALUES as u64), None);
        assert_eq!(get(u64::MAX), None);
    }
}
