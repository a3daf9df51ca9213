//! Finding the first of a few bytes eight at a time (a zero-byte test per wanted byte on a
//! 64-bit word): how the fast paths skip the plain text between what they must look at.

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// High bit set in the lowest byte of `w` equal to `c` (and maybe in bytes above it: only
/// the lowest counts).
#[inline]
pub(super) fn eq(w: u64, c: u8) -> u64 {
    let x = w ^ (ONES * u64::from(c));
    x.wrapping_sub(ONES) & !x & HIGHS
}

/// High bit set in the lowest byte of `w` below `c` (`c` ≤ 0x80; a borrow only flags bytes
/// above a flagged one).
#[inline]
pub(super) fn below(w: u64, c: u8) -> u64 {
    w.wrapping_sub(ONES * u64::from(c)) & !w & HIGHS
}

/// `w` with bit 5 set in every byte: `[` and `]` then read as `{` and `}`.
#[inline]
pub(super) fn fold_brackets(w: u64) -> u64 {
    w | (ONES * 0x20)
}

/// The first position at or after `i` that `hits` flags in the little-endian word there
/// (its lowest flagged byte), eight bytes at a time; the last bytes one at a time, up to
/// the first one `stop` takes; the end if none. (Always inlined: each caller's test is
/// then compiled into its loop, as the three copies this replaced were.)
#[inline(always)]
pub(super) fn first(
    b: &[u8],
    mut i: usize,
    hits: impl Fn(u64) -> u64,
    stop: impl Fn(u8) -> bool,
) -> usize {
    while let Some(chunk) = b.get(i..i + 8) {
        let Ok(bytes) = <[u8; 8]>::try_from(chunk) else {
            break;
        };
        let hit = hits(u64::from_le_bytes(bytes));
        if hit != 0 {
            return i + (hit.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while b.get(i).is_some_and(|&c| !stop(c)) {
        i += 1;
    }
    i
}
