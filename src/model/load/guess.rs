//! Per thread, the key that followed each key last time: the YAML fast path (`fast.rs`)
//! and the JSON one (`json_fast.rs`) recognise most keys by one comparison with this
//! guess, without scanning, unescaping or looking them up in the key table (objects repeat
//! the keys of the ones before them, in the same order). The place a key is written (the
//! YAML column, the JSON depth) tells apart what follows a key in one place from what
//! follows it in another (`name` then `namespace` under `metadata`, `name` then `image` in
//! a container). A wrong guess costs that comparison.

/// Slots of each table of guesses (a power of two).
pub(super) const SLOTS: usize = 4096;

/// A key or value of the shared tables: its text and id.
pub(super) type Known = Option<(&'static str, u32)>;

/// The slot of what follows key `id` written at `place` (a column or a depth).
#[inline]
pub(super) fn slot_of(id: u32, place: usize) -> usize {
    let h = id.wrapping_mul(0x9E37_79B1) ^ (place as u32).wrapping_mul(0x85EB_CA77);
    (h >> 20) as usize % SLOTS
}

/// `table`'s slot `at` (the table allocated on first use).
pub(super) fn slot(table: &mut Vec<Known>, at: usize) -> Option<&mut Known> {
    if table.is_empty() {
        *table = vec![None; SLOTS];
    }
    table.get_mut(at)
}

/// What `table` holds at slot `at`, if it was allocated and holds anything.
pub(super) fn guessed(table: &[Known], at: usize) -> Known {
    table.get(at).copied().flatten()
}

/// The next key after each key, and the key just written.
#[derive(Default)]
pub(super) struct NextKeys {
    next_key: Vec<Known>,
    /// The id of the key just written (`None`: inline, or none yet).
    last: Option<u32>,
}

impl NextKeys {
    /// The id of the key just written.
    pub(super) fn last(&self) -> Option<u32> {
        self.last
    }

    /// The guess for the key after the last one, written at `place`.
    pub(super) fn key(&self, place: usize) -> Known {
        guessed(&self.next_key, slot_of(self.last?, place))
    }

    /// The guess was right: key `id` was written.
    pub(super) fn took(&mut self, id: u32) {
        self.last = Some(id);
    }

    /// A key was written at `place` (`shared`: its table text and id, if it has one);
    /// `guessable`: written so that its text is what is written (no quotes or escapes to
    /// resolve), so it may be guessed next time.
    pub(super) fn wrote(&mut self, shared: Known, guessable: bool, place: usize) {
        if let (true, Some(last), Some(key)) = (guessable, self.last, shared) {
            if let Some(s) = slot(&mut self.next_key, slot_of(last, place)) {
                *s = Some(key);
            }
        }
        self.last = shared.map(|(_, id)| id);
    }
}
