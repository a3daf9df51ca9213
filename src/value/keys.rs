//! The process-wide table of object keys that [`super::Raw`] encodes as ids.
//!
//! Half the bytes of a typical manifest are map keys (`app.kubernetes.io/instance`,
//! `terminationGracePeriodSeconds`, …), and a folder of 100k objects has only a few thousand
//! distinct ones. Each key of at most [`MAX_LEN`] bytes gets a small id the first time it is
//! met, for the life of the process; an encoded object then holds the id instead of the
//! text.
//!
//! The table is append-only and bounded: once it holds [`MAX_KEYS`] keys, new keys are not
//! added (they stay inline in the encoding), so hostile input with millions of distinct keys
//! costs at most `MAX_KEYS * MAX_LEN` bytes here. Because a key, once added, is never
//! removed, and a key refused once is refused for good, the same key always encodes the same
//! way: equal values have equal bytes whichever path encoded them.
//!
//! Reading an id back is one atomic load (no lock): ids index a fixed array of slots, each
//! set once. Finding the id of a text goes through a per-thread cache first, so loader
//! threads take the shared lock only for keys they have not met yet.

use std::cell::RefCell;
use std::sync::{Mutex, OnceLock};

use rustc_hash::FxHashMap as HashMap;

/// Longer keys are kept inline.
pub const MAX_LEN: usize = 64;
/// At most this many keys get ids.
pub const MAX_KEYS: usize = 1 << 16;

/// Keys and their ids; `N` slots (a small table in tests, [`MAX_KEYS`] for the process).
struct Table<const N: usize> {
    /// The key of each id, set once.
    slots: [OnceLock<&'static str>; N],
    /// Text → id for every key in `slots`; held while a key is added.
    ids: Mutex<Option<HashMap<&'static str, u32>>>,
    /// The final text → id map, set when every slot is taken: later misses read it without
    /// the lock.
    full: OnceLock<HashMap<&'static str, u32>>,
}

impl<const N: usize> Table<N> {
    const fn new() -> Self {
        Table {
            slots: [const { OnceLock::new() }; N],
            ids: Mutex::new(None),
            full: OnceLock::new(),
        }
    }

    fn get(&self, id: u64) -> Option<&'static str> {
        let slot = self.slots.get(usize::try_from(id).ok()?)?;
        slot.get().copied()
    }

    /// Looks `key` up, adding it if there is room: its text as stored and its id.
    fn add(&self, key: &str) -> Option<(&'static str, u32)> {
        if let Some(full) = self.full.get() {
            return full.get_key_value(key).map(|(k, v)| (*k, *v));
        }
        let mut ids = self.ids.lock().ok()?;
        let ids = ids.get_or_insert_with(HashMap::default);
        if let Some((k, v)) = ids.get_key_value(key) {
            return Some((*k, *v));
        }
        let next = ids.len();
        let Some(slot) = self.slots.get(next) else {
            let _ = self.full.set(ids.clone());
            return None;
        };
        let id = u32::try_from(next).ok()?;
        let text: &'static str = Box::leak(Box::from(key));
        slot.set(text).ok()?;
        ids.insert(text, id);
        Some((text, id))
    }
}

static TABLE: Table<MAX_KEYS> = Table::new();

thread_local! {
    /// This thread's copy of the ids it has looked up (every entry is final).
    static CACHE: RefCell<HashMap<&'static str, u32>> = RefCell::new(HashMap::default());
    /// In front of `CACHE`: the last key seen in each of [`RECENT_SLOTS`] slots, picked by length
    /// and end bytes. A manifest repeats a few hundred keys, so most lookups end here with
    /// one comparison instead of hashing the whole key.
    static RECENT: RefCell<Vec<Option<(&'static str, u32)>>> = RefCell::new(vec![None; RECENT_SLOTS]);
}

/// Slots of the per-thread recent keys.
const RECENT_SLOTS: usize = 1024;

/// `key`'s slot among the recent keys: from its length, first two and last two bytes
/// (keys of one length that differ only inside share a slot, and take turns).
#[inline]
fn recent_slot(key: &[u8]) -> usize {
    let n = key.len();
    let (a, b) = match n {
        0 => (0, 0),
        1 => (u32::from(key[0]), 0),
        _ => (
            u32::from(u16::from_le_bytes([key[0], key[1]])),
            u32::from(u16::from_le_bytes([key[n - 2], key[n - 1]])),
        ),
    };
    let h = (a.wrapping_mul(0x9E37_79B1) ^ b.wrapping_mul(0x85EB_CA77) ^ (n as u32))
        .wrapping_mul(0x27D4_EB2F);
    (h >> 22) as usize % RECENT_SLOTS
}

/// Byte equality without a call into libc's `memcmp`: what is compared here (keys, repeated
/// values) is short, and the call took longer than the comparison.
#[inline]
pub fn same(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let word = |s: &[u8], i: usize| {
        s.get(i..i + 8)
            .and_then(|w| <[u8; 8]>::try_from(w).ok())
            .map(u64::from_le_bytes)
    };
    if n < 8 {
        // Two overlapping halves (four bytes, or two, or one) instead of a byte loop.
        let half = |s: &[u8], i: usize| -> u32 {
            match n {
                4.. => s
                    .get(i..i + 4)
                    .and_then(|w| <[u8; 4]>::try_from(w).ok())
                    .map_or(0, u32::from_le_bytes),
                2.. => s
                    .get(i..i + 2)
                    .and_then(|w| <[u8; 2]>::try_from(w).ok())
                    .map_or(0, |w| u32::from(u16::from_le_bytes(w))),
                _ => s.get(i).copied().map_or(0, u32::from),
            }
        };
        let last = n.saturating_sub(match n {
            4.. => 4,
            2.. => 2,
            _ => 1,
        });
        return half(a, 0) == half(b, 0) && half(a, last) == half(b, last);
    }
    let mut i = 0;
    while i + 8 < n {
        if word(a, i) != word(b, i) {
            return false;
        }
        i += 8;
    }
    // The last word, overlapping the one before when `n` is not a multiple of 8.
    word(a, n - 8) == word(b, n - 8)
}

/// The key with id `id`, if the table has it.
#[inline]
pub fn get(id: u64) -> Option<&'static str> {
    TABLE.get(id)
}

/// The id of `key` (added to the table if there is room), or `None` when it stays inline.
pub fn id(key: &str) -> Option<u32> {
    shared(key).map(|(_, id)| id)
}

/// The table's copy of `key` and its id (added if there is room), or `None` when it stays
/// inline.
pub fn shared(key: &str) -> Option<(&'static str, u32)> {
    if key.len() > MAX_LEN {
        return None;
    }
    let slot = recent_slot(key.as_bytes());
    let recent = RECENT.with(|r| r.borrow().get(slot).copied().flatten());
    if let Some((text, id)) = recent.filter(|(text, _)| same(text.as_bytes(), key.as_bytes())) {
        return Some((text, id));
    }
    let cached = CACHE.with(|c| c.borrow().get_key_value(key).map(|(k, v)| (*k, *v)));
    let (text, id) = match cached {
        Some(found) => found,
        None => {
            let (text, id) = TABLE.add(key)?;
            CACHE.with(|c| c.borrow_mut().insert(text, id));
            (text, id)
        }
    };
    RECENT.with(|r| {
        if let Some(s) = r.borrow_mut().get_mut(slot) {
            *s = Some((text, id));
        }
    });
    Some((text, id))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Other tests in this process may have filled the global table, so its answers are
    /// checked for consistency; the small tables below check what it holds.
    #[test]
    fn ids_are_stable_and_read_back() {
        let a = id("metadata.test-key");
        assert_eq!(id("metadata.test-key"), a);
        if let Some(a) = a {
            assert_eq!(get(u64::from(a)), Some("metadata.test-key"));
        }
        // From another thread (its own cache), the same id.
        let b = std::thread::spawn(|| id("metadata.test-key"))
            .join()
            .unwrap();
        assert_eq!(b, a);
        assert_eq!(id(&"k".repeat(MAX_LEN + 1)), None);
        assert_eq!(get(MAX_KEYS as u64), None);
        assert_eq!(get(u64::MAX), None);
    }

    #[test]
    fn same_is_byte_equality() {
        let texts = [
            "",
            "a",
            "ab",
            "abc",
            "abcd",
            "abcde",
            "abcdef",
            "abcdefg",
            "abcdefgh",
            "abcdefghi",
            "abcdefghijklmnopq",
        ];
        for a in texts {
            for b in texts {
                assert_eq!(same(a.as_bytes(), b.as_bytes()), a == b, "{a:?} {b:?}");
            }
            let mut c = a.as_bytes().to_vec();
            for i in 0..c.len() {
                c[i] ^= 1;
                assert!(!same(a.as_bytes(), &c), "{a:?} at {i}");
                c[i] ^= 1;
            }
        }
    }

    #[test]
    fn keys_get_ids_in_order_and_read_back() {
        let t: Table<8> = Table::new();
        assert_eq!(t.add("apiVersion"), Some(("apiVersion", 0)));
        assert_eq!(t.add("kind"), Some(("kind", 1)));
        assert_eq!(t.add("apiVersion"), Some(("apiVersion", 0)));
        assert_eq!(
            (t.get(0), t.get(1), t.get(2)),
            (Some("apiVersion"), Some("kind"), None)
        );
        assert_eq!(t.get(8), None);
        assert!(t.full.get().is_none());
    }

    #[test]
    fn a_full_table_keeps_its_keys_and_refuses_new_ones() {
        let t: Table<3> = Table::new();
        let ids: Vec<_> = ["a", "b", "c"].map(|k| t.add(k).map(|(_, id)| id)).into();
        assert_eq!(ids, [Some(0), Some(1), Some(2)]);
        assert_eq!(t.add("d"), None);
        assert!(t.full.get().is_some());
        // Refused for good, while the keys it has keep their ids.
        assert_eq!(t.add("d"), None);
        assert_eq!(t.add("b"), Some(("b", 1)));
        assert_eq!((t.get(2), t.get(3)), (Some("c"), None));
    }
}
