use std::process::ExitCode;

/// mimalloc instead of glibc malloc: loading is allocation-bound (one `serde_json::Value`
/// tree per object) and glibc's per-thread arenas spend much of it growing and
/// `mprotect`ing heaps (see BENCHMARKS.md for the before/after).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    kubesift::cli::main()
}
