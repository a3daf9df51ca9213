use std::process::ExitCode;

/// mimalloc instead of glibc malloc: loading is allocation-bound (one `serde_json::Value`
/// tree per object) and glibc's per-thread arenas spend much of it growing and
/// `mprotect`ing heaps (see BENCHMARKS.md for the before/after).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `mi_option_purge_delay` in mimalloc v3's `mi_option_e` (the version libmimalloc-sys
/// 0.1.49 builds; the test below checks it still reads as that option's default, 1000 ms).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Keeps freed memory for reuse instead of returning it to the OS a second after it is freed
/// (mimalloc's default purge delay), unless `MIMALLOC_PURGE_DELAY` says otherwise. Loading
/// frees each file's transient buffers and allocates the next file's at once; with purging,
/// the kernel kept zeroing fresh pages for them (measured in BENCHMARKS.md, "mimalloc
/// keeps freed memory"). The process keeps its high-water mark until it exits.
fn keep_freed_memory() {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() {
        return;
    }
    // SAFETY: sets a process-wide mimalloc option; mimalloc reads options atomically and
    // the value is valid for this option (-1: never purge).
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, -1) };
}

fn main() -> ExitCode {
    keep_freed_memory();
    kubesift::cli::main()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The option number still names the purge delay: its default (1000 ms) reads back
    /// before the change, -1 after (both as `MIMALLOC_PURGE_DELAY` says, when it is set).
    #[test]
    fn purge_delay_option_is_the_one_set() {
        let from_env = std::env::var("MIMALLOC_PURGE_DELAY")
            .ok()
            .and_then(|v| v.trim().parse::<std::ffi::c_long>().ok());
        // SAFETY: reads a mimalloc option (see `keep_freed_memory`).
        let before = unsafe { libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY) };
        assert_eq!(before, from_env.unwrap_or(1000), "mimalloc's purge delay");
        keep_freed_memory();
        let after = unsafe { libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY) };
        assert_eq!(after, from_env.unwrap_or(-1));
    }
}
