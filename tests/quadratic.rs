//! Inputs whose relationships are quadratic in their size: 5,000 Services × 5,000 Pods that
//! all share one selector are 25M selector edges. Through the real binary, peak memory must
//! stay linear in the input (20 × input bytes + 100 MB, the bar of the hostile-repo suite).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The binary under test: `KUBESIFT_BIN` (e.g. a release build) or this build's.
fn bin() -> PathBuf {
    std::env::var_os("KUBESIFT_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_kubesift")))
}

/// `n` Services and `n` Pods in namespace `a`, every Service selecting every Pod
/// (`app: web`), in two files. Returns the folder and its size in bytes.
fn fan_out(n: usize) -> (tempfile::TempDir, u64) {
    let dir = tempfile::tempdir().unwrap();
    let mut services = String::new();
    let mut pods = String::new();
    for i in 0..n {
        services += &format!(
            "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: s{i}\n  namespace: a\nspec:\n  selector:\n    app: web\n"
        );
        pods += &format!(
            "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p{i}\n  namespace: a\n  labels:\n    app: web\n"
        );
    }
    std::fs::write(dir.path().join("services.yaml"), &services).unwrap();
    std::fs::write(dir.path().join("pods.yaml"), &pods).unwrap();
    let bytes = (services.len() + pods.len()) as u64;
    (dir, bytes)
}

/// What one run did: exit code, bytes written to stdout, peak RSS in bytes.
struct Run {
    code: i32,
    stdout_bytes: usize,
    max_rss: u64,
}

/// Runs the binary with `args`, draining stdout, and reads the child's own peak RSS from
/// `wait4` (the rusage of exactly this child, unlike `RUSAGE_CHILDREN`, which keeps the
/// largest child ever waited for).
#[allow(
    clippy::zombie_processes,
    reason = "reaped by wait4, which also gives its rusage"
)]
fn run(args: &[&str]) -> Run {
    let mut child = Command::new(bin())
        .args(args)
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

fn bound(input_bytes: u64) -> u64 {
    20 * input_bytes + 100 * 1024 * 1024
}

fn path(dir: &Path) -> &str {
    dir.to_str().unwrap()
}

#[test]
fn five_thousand_services_selecting_five_thousand_pods_stay_linear_in_memory() {
    let (dir, bytes) = fan_out(5_000);
    let dir = path(dir.path());
    let limit = bound(bytes);
    let cases: [&[&str]; 5] = [
        &["check", "-f", dir],
        &["check", "-o", "json", "-f", dir],
        &["tree", "-f", dir],
        &["tree", "--owners", "-f", dir],
        &["get", "all", "-f", dir],
    ];
    for args in cases {
        let r = run(args);
        // `check` prints its (empty) findings on stdout and the summary on stderr.
        assert!(
            r.code == 0 && (args[0] == "check" || r.stdout_bytes > 0),
            "{args:?}: exit {} with {} bytes of output",
            r.code,
            r.stdout_bytes
        );
        assert!(
            r.max_rss <= limit,
            "{args:?}: peak RSS {} MB over the bound {} MB for {bytes} bytes of input",
            r.max_rss >> 20,
            limit >> 20
        );
    }
}
