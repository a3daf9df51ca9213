use std::process::ExitCode;

/// mimalloc instead of glibc malloc: loading is allocation-bound (one `serde_json::Value`
/// tree per object) and glibc's per-thread arenas spend much of it growing and
/// `mprotect`ing heaps (see BENCHMARKS.md for the before/after).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `mi_option_purge_delay` in mimalloc v3's `mi_option_e` (the version libmimalloc-sys
/// 0.1.49 builds; the test below checks it still reads as that option's default, 1000 ms).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Returns freed memory to the OS 10 ms after it is freed instead of a second (mimalloc's
/// default), unless `MIMALLOC_PURGE_DELAY` says otherwise. Loading frees each file's
/// transient buffers and allocates the next file's within microseconds, so those pages are
/// still reused rather than zeroed afresh by the kernel; what the parse and the graph build
/// leave behind is returned before the next phase peaks. Never purging held that garbage
/// until exit (peak RSS +15 % at 100k objects; BENCHMARKS.md, "mem3").
const PURGE_DELAY_MS: std::ffi::c_long = 10;

/// Sets the purge delay (see [`PURGE_DELAY_MS`]).
fn set_purge_delay() {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() {
        return;
    }
    // SAFETY: sets a process-wide mimalloc option; mimalloc reads options atomically and
    // the value is valid for this option (milliseconds).
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, PURGE_DELAY_MS) };
}

fn main() -> ExitCode {
    set_purge_delay();
    kubesift::cli::main()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The option number still names the purge delay: its default (1000 ms) reads back
    /// before the change, ours after (both as `MIMALLOC_PURGE_DELAY` says, when it is set).
    #[test]
    fn purge_delay_option_is_the_one_set() {
        let from_env = std::env::var("MIMALLOC_PURGE_DELAY")
            .ok()
            .and_then(|v| v.trim().parse::<std::ffi::c_long>().ok());
        // SAFETY: reads a mimalloc option (see `set_purge_delay`).
        let before = unsafe { libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY) };
        assert_eq!(before, from_env.unwrap_or(1000), "mimalloc's purge delay");
        set_purge_delay();
        let after = unsafe { libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY) };
        assert_eq!(after, from_env.unwrap_or(PURGE_DELAY_MS));
    }
}
