//! Positions moved by replaced runs that change length, for a patch that replaces each run
//! where it stands.
//!
//! A run that grows gets a gap after its old objects: positions above move up, and the gap
//! holds nothing. A run that shrinks but keeps an object has its last old objects folded
//! into the last position it keeps: their positions become that one, and positions above
//! move down. Either way the run's new positions hold only what the run's old objects held
//! (edges, selections, set memberships, findings, now gathered on fewer positions when it
//! shrank), and the patch replaces all of it as when no position moves. Moving is monotonic
//! (never reorders), so every list sorted by position stays sorted.

use std::ops::Range;

use super::SPLICES_MAX;

/// Old position → new position (none for a replaced object), from the replaced runs (old
/// positions, new positions; ascending): a few comparisons, where a table of every
/// position would be built on each patch and read at random.
pub(super) struct Shift<'a>(pub &'a [(Range<usize>, Range<usize>)]);

impl Shift<'_> {
    #[inline]
    pub fn get(&self, old: usize) -> Option<usize> {
        // The last run starting at or before `old`.
        let k = self.0.partition_point(|(gone, _)| gone.start <= old);
        let Some((gone, new)) = k.checked_sub(1).map(|k| &self.0[k]) else {
            return Some(old);
        };
        (old >= gone.end).then(|| old - gone.end + new.end)
    }
}

/// The runs of a change that change length (see the module documentation).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Resize {
    /// Per run, ascending: old start, old length, new length (they differ; a shrinking
    /// run keeps at least one object).
    runs: Vec<(usize, usize, usize)>,
    /// New minus old position above each run and every run before it.
    after: Vec<isize>,
}

impl Resize {
    /// The runs (old start, old length, new length; ascending, not overlapping) as a
    /// resize, or `None` when one shrinks to nothing (no position is left to fold its
    /// objects into). Runs that keep their length move nothing and are left out.
    pub fn of(runs: impl IntoIterator<Item = (usize, usize, usize)>) -> Option<Resize> {
        let mut resize = Resize::default();
        let mut delta = 0isize;
        for (at, old, new) in runs {
            if old == new {
                continue;
            }
            if new == 0 {
                return None;
            }
            delta += new as isize - old as isize;
            resize.runs.push((at, old, new));
            resize.after.push(delta);
        }
        Some(resize)
    }

    /// Whether no position moves.
    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    /// Where old position `o` goes (see the module documentation).
    pub fn moves(&self) -> impl Fn(usize) -> usize + '_ {
        // One run (one file edited: the usual change) is a few comparisons, not a search.
        let single = match self.runs[..] {
            [run] => Some(run),
            _ => None,
        };
        move |o| match single {
            Some(run) => moved_by(o, run, 0),
            None => self.moved(o),
        }
    }

    /// The positions below this one do not move.
    pub fn unmoved_below(&self) -> usize {
        self.runs
            .first()
            .map_or(usize::MAX, |&(at, old, new)| at + old.min(new))
    }

    fn moved(&self, o: usize) -> usize {
        let k = self.runs.partition_point(|r| r.0 <= o);
        let Some(last) = k.checked_sub(1) else {
            return o;
        };
        let before = last.checked_sub(1).map_or(0, |j| self.after[j]);
        moved_by(o, self.runs[last], before)
    }

    /// Per-object `offsets` (one more than there are objects) moved alike: a gap gets
    /// empty groups, a folded position's group joins the group of the position it folds
    /// into. In place for a few runs (nothing is allocated when a grown vector has room).
    pub fn offsets<T: Copy>(&self, offsets: &mut Vec<T>) {
        if self.runs.len() > SPLICES_MAX {
            *offsets = self.resized(offsets);
            return;
        }
        for &(at, old, new) in self.runs.iter().rev() {
            if new > old {
                if let Some(&o) = offsets.get(at + old) {
                    offsets.splice(at + old..at + old, std::iter::repeat_n(o, new - old));
                }
            } else if at + old < offsets.len() {
                offsets.drain(at + new..at + old);
            }
        }
    }

    /// [`Resize::offsets`] into a new vector, in one pass.
    fn resized<T: Copy>(&self, offsets: &[T]) -> Vec<T> {
        let grown: usize = self
            .runs
            .iter()
            .map(|&(_, old, new)| new.saturating_sub(old))
            .sum();
        let mut out = Vec::with_capacity(offsets.len() + grown);
        let mut from = 0;
        for &(at, old, new) in &self.runs {
            let (Some(kept), Some(&o)) =
                (offsets.get(from..at + old.min(new)), offsets.get(at + old))
            else {
                break;
            };
            out.extend_from_slice(kept);
            if new > old {
                out.extend(std::iter::repeat_n(o, new - old));
            }
            from = at + old;
        }
        out.extend_from_slice(offsets.get(from..).unwrap_or_default());
        out
    }
}

/// Where old position `o`, at or above the start of `run` (old start, old length, new
/// length) and below the next run's, goes when the runs before it gained `before`.
///
/// Inlined: a move calls it for every position of every per-object array.
#[inline]
fn moved_by(o: usize, (at, old, new): (usize, usize, usize), before: isize) -> usize {
    let here = if o < at + old.min(new) {
        o
    } else if o < at + old {
        at + new - 1
    } else {
        o + new - old
    };
    here.wrapping_add_signed(before)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Runs from (gap before, old length, new length) triples.
    fn runs(spec: &[(usize, usize, usize)]) -> Vec<(usize, usize, usize)> {
        let mut at = 0;
        spec.iter()
            .map(|&(gap, old, new)| {
                at += gap;
                let run = (at, old, new);
                at += old;
                run
            })
            .collect()
    }

    /// Offsets of groups of `sizes`, and the groups each position ends with when the runs
    /// move them: a position's group is what it held plus what was folded into it.
    fn grouped(
        n: usize,
        runs: &[(usize, usize, usize)],
        moved: &dyn Fn(usize) -> usize,
    ) -> Vec<usize> {
        let n_new = (n as isize
            + runs
                .iter()
                .map(|&(_, o, nw)| nw as isize - o as isize)
                .sum::<isize>()) as usize;
        let mut counts = vec![0usize; n_new];
        for o in 0..n {
            counts[moved(o)] += o % 3 + 1;
        }
        let mut offsets = vec![0];
        for c in counts {
            offsets.push(offsets.last().copied().unwrap_or(0) + c);
        }
        offsets
    }

    proptest! {
        /// Moving is monotonic, keeps the objects of each run's kept part and those between
        /// runs one to one, folds the rest into the run's last kept position, and moves
        /// offsets as their groups move (in place and in one pass alike).
        #[test]
        fn moves_positions_and_offsets_alike(
            spec in proptest::collection::vec((0usize..4, 0usize..5, 1usize..6), 0..8),
            tail in 0usize..4,
        ) {
            let runs = runs(&spec);
            let n = runs.last().map_or(0, |&(at, old, _)| at + old) + tail;
            let resize = Resize::of(runs.iter().copied()).expect("no run shrinks to nothing");
            let moves = resize.moves();
            let moved: Vec<usize> = (0..n).map(&moves).collect();
            prop_assert!(moved.windows(2).all(|w| w[0] <= w[1]));
            // Kept one to one between runs and in each run's kept part, folded into the
            // run's last kept position past it; what follows a run starts after its new end.
            let mut expected: Vec<usize> = Vec::with_capacity(n);
            let (mut prev, mut next) = (0usize, 0usize);
            for &(at, old, new) in &runs {
                expected.extend(next..next + (at - prev));
                next += at - prev;
                expected.extend((0..old).map(|k| next + k.min(new - 1)));
                next += new;
                prev = at + old;
            }
            expected.extend(next..next + (n - prev));
            prop_assert_eq!(&moved, &expected);
            // No position below `unmoved_below` moves, and the one there does (when a run
            // moves anything).
            let unmoved = resize.unmoved_below().min(n);
            prop_assert!((0..unmoved).all(|o| moved[o] == o));
            prop_assert!(unmoved == n || moved[unmoved] != unmoved);
            let identity = |o: usize| o;
            let before = grouped(n, &[], &identity);
            let after = grouped(n, &runs, &moves);
            let mut in_place = before.clone();
            resize.offsets(&mut in_place);
            prop_assert_eq!(&in_place, &after);
            prop_assert_eq!(resize.resized(&before), after);
        }
    }

    #[test]
    fn a_run_emptied_has_no_resize() {
        assert_eq!(Resize::of([(0, 2, 1), (4, 3, 0)]), None);
        assert!(Resize::of([(0, 2, 2)]).is_some_and(|r| r.is_empty()));
    }
}
