//! Hostile owner graphs through the real binary: deep ownerReference chains must neither
//! overflow the stack nor make output quadratic in the depth.

use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};

mod graph_inputs;

/// The binary under test: `KUBESIFT_BIN` (e.g. a release build) or this build's.
fn bin() -> PathBuf {
    std::env::var_os("KUBESIFT_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_kubesift")))
}

/// A folder with one file: ConfigMaps `c0 ← c1 ← … ← c{n-1}`, each owned by the previous.
fn chain(n: usize) -> tempfile::TempDir {
    graph_inputs::owner_chain(n)
}

/// Runs `tree` with `args`, feeding stdout to `each` in chunks; returns the exit code.
fn run_tree(dir: &tempfile::TempDir, args: &[&str], mut each: impl FnMut(&[u8])) -> Option<i32> {
    let mut child = Command::new(bin())
        .arg("tree")
        .arg("-f")
        .arg(dir.path())
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = stdout.read(&mut buf).unwrap();
        if n == 0 {
            break;
        }
        each(&buf[..n]);
    }
    child.wait().unwrap().code()
}

/// Bracket balance of JSON text outside strings, checked chunk by chunk.
#[derive(Default)]
struct Balance {
    depth: i64,
    max: i64,
    in_string: bool,
    escaped: bool,
    broken: bool,
    closed_to_zero: usize,
}

impl Balance {
    fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if self.in_string {
                match (self.escaped, b) {
                    (true, _) => self.escaped = false,
                    (false, b'\\') => self.escaped = true,
                    (false, b'"') => self.in_string = false,
                    _ => {}
                }
                continue;
            }
            match b {
                b'"' => self.in_string = true,
                b'[' | b'{' => {
                    self.depth += 1;
                    self.max = self.max.max(self.depth);
                }
                b']' | b'}' => {
                    self.depth -= 1;
                    if self.depth < 0 {
                        self.broken = true;
                    }
                    if self.depth == 0 {
                        self.closed_to_zero += 1;
                    }
                }
                _ => {}
            }
        }
    }
}

#[test]
fn tree_json_on_a_30k_deep_chain_is_complete_json() {
    let dir = chain(30_000);
    let mut bal = Balance::default();
    let mut total = 0usize;
    let code = run_tree(&dir, &["-o", "json"], |b| {
        total += b.len();
        bal.feed(b);
    });
    assert_eq!(code, Some(0));
    assert!(!bal.broken && !bal.in_string);
    assert_eq!(bal.depth, 0);
    assert_eq!(bal.closed_to_zero, 1, "one top-level array");
    // Each node is an object holding a `children` array: 2 levels per node, plus the root
    // array; `finalizers: []` and `edge: {…}` open one more level at the deepest node.
    assert!(bal.max >= 2 * 30_000, "nesting {}", bal.max);
    // Linear in the depth: indentation stops growing past the drawn depth.
    assert!(total < 30_000 * 20_000, "{total} bytes");
}

#[test]
fn tree_text_on_a_30k_deep_chain_is_linear() {
    let dir = chain(30_000);
    let mut text = Vec::new();
    let code = run_tree(&dir, &[], |b| text.extend_from_slice(b));
    assert_eq!(code, Some(0));
    let text = String::from_utf8(text).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 30_001, "header + one row per object");
    assert!(
        lines[1].starts_with("a          ConfigMap/c0"),
        "{}",
        lines[1]
    );
    // Depth 100 is drawn in full; deeper rows show the depth instead of the guides.
    let drawn = format!("{}└─ ConfigMap/c100", "   ".repeat(99));
    assert!(lines[101].ends_with(&drawn), "{}", lines[101]);
    assert!(
        lines[30_000].starts_with("a          [depth 29999] └─ ConfigMap/c29999"),
        "{}",
        lines[30_000]
    );
    assert!(text.len() < 30_000 * 1_000, "{} bytes", text.len());
}
