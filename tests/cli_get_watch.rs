//! `kubesift get -w` on a temp folder: the initial list, then ADDED / MODIFIED / DELETED
//! lines for exactly the objects that changed, as kubectl's filtered watch reports them.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

struct Watch {
    child: Child,
    lines: Receiver<String>,
    errors: Receiver<String>,
}

fn forward(from: impl std::io::Read + Send + 'static) -> Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(from).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

impl Watch {
    fn start(dir: &Path, extra: &[&str]) -> Watch {
        Watch::start_as(&["-o", "name"], dir, extra)
    }

    /// `get -w --output-watch-events` with `output` (`[]` for the table).
    fn start_as(output: &[&str], dir: &Path, extra: &[&str]) -> Watch {
        let mut child = Command::new(env!("CARGO_BIN_EXE_kubesift"))
            .args(["get", "-w", "--output-watch-events"])
            .args(output)
            .arg("-f")
            .arg(dir)
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn kubesift");
        let lines = forward(child.stdout.take().expect("stdout"));
        let errors = forward(child.stderr.take().expect("stderr"));
        Watch {
            child,
            lines,
            errors,
        }
    }

    /// stderr lines until each of `needles` is in one (at most 5 s), all of them.
    fn errors_until(&self, needles: &[&str]) -> Vec<String> {
        let deadline = Instant::now() + Duration::from_secs(5);
        let mut got = Vec::new();
        while !needles
            .iter()
            .all(|n| got.iter().any(|l: &String| l.contains(n)))
        {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.errors.recv_timeout(left) {
                Ok(l) => got.push(l),
                Err(_) => break,
            }
        }
        got
    }

    /// The next `n` lines, sorted, waiting at most 5 s for them.
    fn next(&self, n: usize) -> Vec<String> {
        let mut got = self.next_in_order(n);
        got.sort();
        got
    }

    /// The next `n` lines as printed, waiting at most 5 s for them.
    fn next_in_order(&self, n: usize) -> Vec<String> {
        let deadline = Instant::now() + Duration::from_secs(5);
        let mut got = Vec::new();
        while got.len() < n {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(l) => got.push(l),
                Err(_) => break,
            }
        }
        got
    }

    /// Asserts nothing more is printed for a while.
    fn quiet(&self) {
        assert_eq!(
            self.lines.recv_timeout(Duration::from_millis(700)).ok(),
            None
        );
    }

    fn stop(mut self) -> i32 {
        let pid = self.child.id().to_string();
        let _ = Command::new("kill").args(["-TERM", &pid]).status();
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status.code().unwrap_or(-1);
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                return -1;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

fn cm(name: &str, labels: &str, data: &str) -> String {
    format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  labels: {{{labels}}}\ndata: {{{data}}}\n")
}

fn write_atomically(path: &Path, text: &str) {
    let tmp = path.with_extension("tmp~");
    std::fs::write(&tmp, text).expect("write temp");
    std::fs::rename(&tmp, path).expect("rename over");
}

#[test]
fn lists_then_reports_each_change() {
    let dir = tempfile::tempdir().expect("tempdir");
    let a = dir.path().join("a.yaml");
    std::fs::write(
        &a,
        format!("{}---\n{}", cm("one", "", ""), cm("two", "", "")),
    )
    .expect("write");
    let w = Watch::start(dir.path(), &[]);
    assert_eq!(w.next(2), ["ADDED configmap/one", "ADDED configmap/two"]);

    std::fs::write(dir.path().join("b.yaml"), cm("three", "", "")).expect("write");
    assert_eq!(w.next(1), ["ADDED configmap/three"]);

    // Editing one document of a two-document file changes only that object.
    write_atomically(
        &a,
        &format!("{}---\n{}", cm("one", "", "k: v"), cm("two", "", "")),
    );
    assert_eq!(w.next(1), ["MODIFIED configmap/one"]);
    w.quiet();

    std::fs::remove_file(&a).expect("remove");
    assert_eq!(
        w.next(2),
        ["DELETED configmap/one", "DELETED configmap/two"]
    );
    assert_eq!(w.stop(), 0, "SIGTERM ends the watch cleanly");
}

/// kubectl keeps one tabwriter (`RememberWidths`) for the whole watch: a later line is never
/// narrower than the lines before it, and a longer name widens the lines after it. The EVENT
/// cell is padded to 8 (cli-runtime's `formatEventType`). Checked against kubectl 1.32
/// through `tests/kubectl_oracle/server.py`'s watch events.
#[test]
fn table_lines_keep_the_widths_of_the_lines_before() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("a.yaml"), cm("one", "", "k: v")).expect("write");
    let w = Watch::start_as(&[], dir.path(), &["configmaps"]);
    assert_eq!(
        w.next_in_order(2),
        [
            "EVENT      NAMESPACE   NAME   DATA   AGE",
            "ADDED      default     one    1      <unknown>"
        ]
    );
    let long = dir.path().join("long.yaml");
    std::fs::write(&long, cm("a-much-longer-name", "", "")).expect("write");
    assert_eq!(
        w.next_in_order(1),
        ["ADDED      default     a-much-longer-name   0      <unknown>"]
    );
    std::fs::write(dir.path().join("b.yaml"), cm("b", "", "")).expect("write");
    assert_eq!(
        w.next_in_order(1),
        ["ADDED      default     b                    0      <unknown>"]
    );
    std::fs::remove_file(&long).expect("remove");
    assert_eq!(
        w.next_in_order(1),
        ["DELETED    default     a-much-longer-name   0      <unknown>"]
    );
    assert_eq!(w.stop(), 0);
}

#[test]
fn label_filtered_watch_adds_and_deletes_on_label_changes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let f = dir.path().join("x.yaml");
    std::fs::write(&f, cm("x", "app: web", "")).expect("write");
    let w = Watch::start(dir.path(), &["-l", "app=web"]);
    assert_eq!(w.next(1), ["ADDED configmap/x"]);
    write_atomically(&f, &cm("x", "app: db", ""));
    assert_eq!(w.next(1), ["DELETED configmap/x"], "stopped matching");
    write_atomically(&f, &cm("x", "app: web", "a: b"));
    assert_eq!(w.next(1), ["ADDED configmap/x"], "matches again");
    assert_eq!(w.stop(), 0);
}

#[test]
fn a_file_that_breaks_after_the_start_is_reported_once_with_its_stale_objects() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a.yaml");
    std::fs::write(&file, cm("a", "", "")).unwrap();
    let w = Watch::start(dir.path(), &[]);
    assert_eq!(w.next(1), vec!["ADDED configmap/a"]);
    write_atomically(&file, "apiVersion: v1\nkind: ConfigMap\nmetadata: [\n");
    let errs = w.errors_until(&["last good read", "YAML syntax error"]);
    let path = file.display().to_string();
    assert!(
        errs.iter()
            .any(|l| l.starts_with(&format!("{path}:")) && !l.contains("last good read")),
        "the YAML error, located: {errs:?}"
    );
    assert!(
        errs.iter().any(|l| l.contains("last good read")),
        "the stale warning: {errs:?}"
    );
    // The object stays (stale): no DELETED line.
    w.quiet();
    // Fixed again: the problems go; broken again: printed again.
    write_atomically(&file, &cm("a", "", ""));
    std::thread::sleep(Duration::from_millis(400));
    write_atomically(&file, "apiVersion: v1\nkind: ConfigMap\nmetadata: [\n");
    assert!(w
        .errors_until(&["last good read", "YAML syntax error"])
        .iter()
        .any(|l| l.contains("last good read")));
    w.stop();
}

#[test]
fn a_half_written_file_is_shown_only_once_complete() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let w = Watch::start(dir.path(), &[]);
    w.quiet();
    let mut f = std::fs::File::create(dir.path().join("p.yaml")).unwrap();
    f.write_all(b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: pa")
        .unwrap();
    f.flush().unwrap();
    // Longer than the watch's debounce: the file is read while half-written.
    std::thread::sleep(Duration::from_millis(150));
    f.write_all(b"rtial\n").unwrap();
    drop(f);
    assert_eq!(w.next(1), vec!["ADDED configmap/partial"]);
    w.quiet();
    w.stop();
}
