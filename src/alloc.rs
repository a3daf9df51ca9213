//! The process allocator's memory policy (mimalloc is installed in `main.rs`).
//!
//! While the first load runs, freed memory goes back to the OS a second after it is freed
//! (mimalloc's default): a parse thread frees and reuses its per-file temporaries within
//! milliseconds, and at 10 ms it gave them back and faulted them in again ≈ 35k times per
//! 100k objects (≈ 10 % of the load's CPU, BENCHMARKS.md, "lead4"). While the first graph
//! is built, freed memory goes back after 10 ms: the build leaves hundreds of megabytes of
//! temporaries behind, the peak is at its end (at 1M objects ≈ 0.45 GB of it was freed
//! memory that was never returned), and purging at once cost more system time than the
//! peak it saved (BENCHMARKS.md, "rss1m"). Once the first graph is built, what is still unpurged is returned
//! and freed memory is kept: an edit's patch then reuses it instead of faulting in
//! fresh pages, which made a one-file edit ≈ 30 ms slower (BENCHMARKS.md, "mem3").
//!
//! `MIMALLOC_PURGE_DELAY`, when set, wins over both. Under the system allocator (tests) the
//! options are set in a mimalloc that allocates nothing: harmless.

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::{c_long, c_void};

use mimalloc::MiMalloc;

/// mimalloc, asked for word-aligned blocks the plain way.
///
/// `mimalloc::MiMalloc` passes every request to `mi_malloc_aligned`, and mimalloc v3 serves
/// an aligned request from its size class only when that class's current page has a free
/// block; otherwise it over-allocates `size + align - 1`, one class up. A block whose size
/// is its class's top (the 224 bytes of an object, a 24-byte `Arc<str>`) thus mostly
/// landed in the next class (256, 32 bytes). Every mimalloc block is at least word-aligned,
/// so a request for at most that alignment goes to `mi_malloc` (as `MiMalloc`'s `realloc`
/// already does); larger alignments still take the aligned path.
pub struct Allocator;

const WORD: usize = std::mem::size_of::<usize>();

// SAFETY: every method forwards to mimalloc, whose blocks are at least word-aligned and
// at least `size` bytes; larger alignments go to `MiMalloc`, which honours them.
unsafe impl GlobalAlloc for Allocator {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.align() <= WORD {
            // SAFETY: plain allocation of `size` bytes (word-aligned, see above).
            unsafe { libmimalloc_sys::mi_malloc(layout.size()).cast() }
        } else {
            // SAFETY: as the caller's contract for `alloc`.
            unsafe { MiMalloc.alloc(layout) }
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if layout.align() <= WORD {
            // SAFETY: as `alloc`, zeroed.
            unsafe { libmimalloc_sys::mi_zalloc(layout.size()).cast() }
        } else {
            // SAFETY: as the caller's contract for `alloc_zeroed`.
            unsafe { MiMalloc.alloc_zeroed(layout) }
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        // SAFETY: `ptr` came from this allocator (mimalloc frees any of its blocks).
        unsafe { libmimalloc_sys::mi_free(ptr.cast::<c_void>()) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as the caller's contract for `realloc` (`MiMalloc` keeps the alignment).
        unsafe { MiMalloc.realloc(ptr, layout, new_size) }
    }
}

/// `mi_option_purge_delay` in mimalloc v3's `mi_option_e` (the version libmimalloc-sys
/// 0.1.49 builds; `main.rs`'s test checks it still reads as that option's default, 1000 ms).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Purge delay while the first load runs (files are parsed; the peak comes later).
pub const LOADING_PURGE_DELAY_MS: c_long = 1000;

/// Purge delay while the first graph is built: its temporaries (hundreds of megabytes at
/// 1M objects, freed in large runs) go back before the next part allocates much
/// (BENCHMARKS.md, "mem4"); the delay of the parse, since purging at once cost more system
/// time than the peak it saved (BENCHMARKS.md, "rss1m").
pub const LINKING_PURGE_DELAY_MS: c_long = 10;

/// Never purge (mimalloc's value for it).
pub const KEEP: c_long = -1;

fn set_purge_delay(ms: c_long) {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() {
        return;
    }
    // SAFETY: sets a process-wide mimalloc option; mimalloc reads options atomically and
    // the value is valid for this option (milliseconds, or -1 for never).
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, ms) };
}

/// Returns freed memory to the OS a second after it is freed (the first load; set rather
/// than left at mimalloc's default so that a change of the default does not change it).
pub fn purge_while_loading() {
    set_purge_delay(LOADING_PURGE_DELAY_MS);
}

/// Returns freed memory to the OS shortly after it is freed (the first graph build).
pub fn purge_while_linking() {
    set_purge_delay(LINKING_PURGE_DELAY_MS);
}

/// Keeps freed memory for reuse from now on (after the first graph is built).
///
/// First returns what is freed and not yet returned: a purge is due only when a thread
/// next allocates or frees, and the graph build's threads go idle right after freeing
/// their temporaries, so without this they stayed resident for the whole session
/// (BENCHMARKS.md, "mem4").
pub fn keep_freed_memory() {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: asks mimalloc to collect and purge freed memory; no arguments but `force`.
        unsafe { libmimalloc_sys::mi_collect(true) };
    }
    set_purge_delay(KEEP);
}

/// The purge delay in force (milliseconds; -1: never).
pub fn purge_delay() -> c_long {
    // SAFETY: reads a process-wide mimalloc option.
    unsafe { libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY) }
}
