//! The ids of one label value: a few held in place, more in a bitmap.
//!
//! Most values label the objects of one app in one namespace (an instance name, a
//! pod-template-hash): a handful of ids. When ids above an edit move, every value's ids are
//! visited; a bitmap is two allocations away from the map that holds it (its containers,
//! then their store), so visiting hundreds of thousands of them is a cache miss or two
//! each, and moving one frees a container and allocates another. Held in place, a few ids
//! are read and moved where the map keeps them. The form follows the count alone (at most
//! [`Ids::FEW`] ids: in place), so equal sets of ids are equal values.

use roaring::RoaringBitmap;

use super::Shift;

/// Ascending object ids.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Ids {
    /// At most [`Ids::FEW`] ids: `ids[..n]`, ascending; the rest zero.
    Few { n: u8, ids: [u32; Ids::FEW] },
    /// More than [`Ids::FEW`] ids.
    Many(RoaringBitmap),
}

impl Default for Ids {
    fn default() -> Ids {
        Ids::Few {
            n: 0,
            ids: [0; Ids::FEW],
        }
    }
}

impl Ids {
    /// The most ids held in place.
    pub const FEW: usize = 8;

    /// From ascending, distinct ids.
    pub fn from_sorted(ids: &[u32]) -> Ids {
        if ids.len() <= Ids::FEW {
            let mut few = [0; Ids::FEW];
            few[..ids.len()].copy_from_slice(ids);
            Ids::Few {
                n: ids.len() as u8,
                ids: few,
            }
        } else {
            Ids::Many(RoaringBitmap::from_sorted_iter(ids.iter().copied()).unwrap_or_default())
        }
    }

    /// The ids held in place (none for a bitmap).
    pub fn few(&self) -> &[u32] {
        match self {
            Ids::Few { n, ids } => &ids[..usize::from(*n)],
            Ids::Many(_) => &[],
        }
    }

    pub fn len(&self) -> u64 {
        match self {
            Ids::Few { n, .. } => u64::from(*n),
            Ids::Many(ids) => ids.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every id, ascending.
    #[cfg(test)]
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        let many = match self {
            Ids::Many(ids) => Some(ids.iter()),
            Ids::Few { .. } => None,
        };
        self.few().iter().copied().chain(many.into_iter().flatten())
    }

    /// As a bitmap.
    #[cfg(test)]
    pub fn to_bitmap(&self) -> RoaringBitmap {
        self.iter().collect()
    }

    pub fn insert(&mut self, id: u32) {
        match self {
            Ids::Few { .. } => {
                let few = self.few();
                let Err(at) = few.binary_search(&id) else {
                    return;
                };
                let mut v = few.to_vec();
                v.insert(at, id);
                *self = Ids::from_sorted(&v);
            }
            Ids::Many(ids) => {
                ids.insert(id);
            }
        }
    }

    pub fn remove(&mut self, id: u32) {
        match self {
            Ids::Few { .. } => {
                let few = self.few();
                if let Ok(at) = few.binary_search(&id) {
                    let mut v = few.to_vec();
                    v.remove(at);
                    *self = Ids::from_sorted(&v);
                }
            }
            Ids::Many(ids) => {
                if ids.remove(id) && ids.len() == Ids::FEW as u64 {
                    let v: Vec<u32> = ids.iter().collect();
                    *self = Ids::from_sorted(&v);
                }
            }
        }
    }

    /// Adds ascending `more`, all above these ids (appended without a search when they are).
    pub fn append_sorted(&mut self, more: Vec<u32>) {
        match self {
            Ids::Few { .. } => {
                let mut v = self.few().to_vec();
                v.extend(more);
                if !v.is_sorted() {
                    v.sort_unstable();
                    v.dedup();
                }
                *self = Ids::from_sorted(&v);
            }
            Ids::Many(ids) => super::append_sorted(ids, more),
        }
    }

    /// `out |= self & universe`.
    pub fn or_within(&self, universe: &RoaringBitmap, out: &mut RoaringBitmap) {
        match self {
            Ids::Few { .. } => {
                for &id in self.few().iter().filter(|&&id| universe.contains(id)) {
                    out.insert(id);
                }
            }
            Ids::Many(ids) => *out |= ids & universe,
        }
    }

    /// Moves the ids from `shift`'s first bound on as it says; `runs` is scratch space for
    /// a bitmap's runs.
    pub(super) fn shift(&mut self, shift: &Shift<'_>, runs: &mut Vec<(u32, u32)>) {
        match self {
            Ids::Few { n, ids } => {
                let few = &mut ids[..usize::from(*n)];
                let from = shift.from();
                let start = few.partition_point(|&id| id < from);
                let mut rest = &mut few[start..];
                while let Some(&first) = rest.first() {
                    let (last, by) = shift.segment(first);
                    let k = rest.partition_point(|&id| id <= last);
                    for id in &mut rest[..k] {
                        *id = super::moved(*id, by);
                    }
                    rest = &mut rest[k..];
                }
            }
            Ids::Many(ids) => super::shift_above(ids, shift, runs),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn check(ids: &Ids, want: &RoaringBitmap) {
        assert_eq!(ids.to_bitmap(), *want);
        assert_eq!(ids.len(), want.len());
        assert_eq!(
            ids.iter().collect::<Vec<_>>(),
            want.iter().collect::<Vec<_>>()
        );
        // The form follows the count alone.
        assert_eq!(
            matches!(ids, Ids::Few { .. }),
            want.len() <= Ids::FEW as u64
        );
        let sorted: Vec<u32> = want.iter().collect();
        assert_eq!(*ids, Ids::from_sorted(&sorted));
    }

    proptest! {
        #[test]
        fn ids_behave_as_a_bitmap(
            ops in prop::collection::vec((0u8..3, 0u32..40), 0..200),
            more in prop::collection::btree_set(40u32..80, 0..12),
        ) {
            let (mut ids, mut want) = (Ids::default(), RoaringBitmap::new());
            for (op, id) in ops {
                if op < 2 {
                    ids.insert(id);
                    want.insert(id);
                } else {
                    ids.remove(id);
                    want.remove(id);
                }
                check(&ids, &want);
            }
            let universe: RoaringBitmap = (0..80).step_by(3).collect();
            let mut out = RoaringBitmap::new();
            ids.or_within(&universe, &mut out);
            prop_assert_eq!(out, &want & &universe);
            ids.append_sorted(more.iter().copied().collect());
            want.extend(more);
            check(&ids, &want);
        }

        #[test]
        fn moving_ids_equals_moving_a_bitmap(
            ids in prop::collection::btree_set(0u32..400, 0..=2 * Ids::FEW),
            bounds in prop::collection::vec((0u32..400, 0i64..5), 1..4),
        ) {
            // Bounds ascending, each gaining more than the ones before (insertions).
            let mut bounds: Vec<(u32, i64)> = bounds;
            bounds.sort_unstable_by_key(|b| b.0);
            bounds.dedup_by_key(|b| b.0);
            let mut gained = 0;
            for b in &mut bounds {
                gained += b.1 + 1;
                b.1 = gained;
            }
            let shift = Shift::new(Vec::new(), bounds);
            let sorted: Vec<u32> = ids.iter().copied().collect();
            let mut moved = Ids::from_sorted(&sorted);
            let mut bitmap = RoaringBitmap::from_sorted_iter(sorted).unwrap_or_default();
            let mut runs = Vec::new();
            moved.shift(&shift, &mut runs);
            super::super::shift_above(&mut bitmap, &shift, &mut runs);
            check(&moved, &bitmap);
        }
    }
}
