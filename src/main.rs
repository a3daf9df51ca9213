use std::process::ExitCode;

/// mimalloc instead of glibc malloc: loading is allocation-bound (one `serde_json::Value`
/// tree per object) and glibc's per-thread arenas spend much of it growing and
/// `mprotect`ing heaps (see BENCHMARKS.md for the before/after). When it returns freed
/// memory to the OS is `kubesift::alloc`'s policy; `kubesift::alloc::Allocator` says why not
/// `mimalloc::MiMalloc` itself.
#[global_allocator]
static GLOBAL: kubesift::alloc::Allocator = kubesift::alloc::Allocator;

fn main() -> ExitCode {
    kubesift::alloc::purge_while_loading();
    kubesift::cli::main()
}

#[cfg(test)]
mod tests {
    use kubesift::alloc;

    /// The option number still names the purge delay: its default (1000 ms) reads back
    /// before any change, then each phase's value (all as `MIMALLOC_PURGE_DELAY` says, when
    /// it is set). Here and not in the library: the option is process-wide, and library
    /// tests that load data switch it concurrently.
    #[test]
    fn purge_delay_option_follows_the_phases() {
        let from_env = std::env::var("MIMALLOC_PURGE_DELAY")
            .ok()
            .and_then(|v| v.trim().parse::<std::ffi::c_long>().ok());
        assert_eq!(
            alloc::purge_delay(),
            from_env.unwrap_or(1000),
            "mimalloc's purge delay"
        );
        alloc::purge_while_loading();
        assert_eq!(
            alloc::purge_delay(),
            from_env.unwrap_or(alloc::LOADING_PURGE_DELAY_MS)
        );
        alloc::purge_while_linking();
        assert_eq!(
            alloc::purge_delay(),
            from_env.unwrap_or(alloc::LINKING_PURGE_DELAY_MS)
        );
        alloc::keep_freed_memory();
        assert_eq!(alloc::purge_delay(), from_env.unwrap_or(alloc::KEEP));
    }
}
