//! Running the real binary and reading its peak memory, for the memory bars of the
//! hostile-repo tests (`tests/quadratic.rs`, `tests/hostile.rs`).
#![allow(dead_code)] // each test file uses part of it

use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// The binary under test: `KUBESIFT_BIN` (e.g. a release build) or this build's.
pub fn bin() -> PathBuf {
    std::env::var_os("KUBESIFT_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_kubesift")))
}

/// What one run did: exit code, bytes written to stdout, peak RSS in bytes.
pub struct Run {
    pub code: i32,
    pub stdout_bytes: usize,
    pub max_rss: u64,
}

/// Runs the binary with `args`, draining stdout, and reads the child's own peak RSS from
/// `wait4` (the rusage of exactly this child, unlike `RUSAGE_CHILDREN`, which keeps the
/// largest child ever waited for).
pub fn run(args: &[&str]) -> Run {
    run_with(args, &[])
}

/// [`run`] with more environment variables (`RAYON_NUM_THREADS` …).
#[allow(
    clippy::zombie_processes,
    reason = "reaped by wait4, which also gives its rusage"
)]
pub fn run_with(args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut child = Command::new(bin())
        .args(args)
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut buf = vec![0u8; 1 << 16];
        let mut total = 0;
        loop {
            let n = stdout.read(&mut buf).unwrap();
            if n == 0 {
                return total;
            }
            total += n;
        }
    });
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: a zeroed rusage is valid; wait4 fills it for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid, "wait4: {}", std::io::Error::last_os_error());
    let stdout_bytes = reader.join().unwrap();
    Run {
        code: if libc::WIFEXITED(status) {
            libc::WEXITSTATUS(status)
        } else {
            -libc::WTERMSIG(status)
        },
        stdout_bytes,
        // Linux reports ru_maxrss in KiB.
        max_rss: usage.ru_maxrss as u64 * 1024,
    }
}

/// The bar of the hostile-repo suite: peak RSS ≤ 20 × input bytes + 100 MB.
pub fn bound(input_bytes: u64) -> u64 {
    20 * input_bytes + 100 * 1024 * 1024
}
