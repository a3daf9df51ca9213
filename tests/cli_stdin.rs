//! `-` is standard input, as in `kubectl -f -`: what a pipe brings in lists, links and
//! reports exactly as the same manifests in a file, under the source `-`.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

const UI: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/ui");
const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/sample-cluster");

struct Run {
    stdout: String,
    stderr: String,
    code: i32,
}

/// Runs kubesift in `dir` with `input` on its standard input.
fn kubesift(dir: &str, args: &[&str], input: &[u8]) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kubesift"))
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run kubesift");
    let mut stdin = child.stdin.take().expect("stdin");
    let input = input.to_vec();
    // Written on the side: a big input must not wait for the output to be read.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().expect("wait");
    writer.join().expect("writer");
    Run {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code().unwrap_or(-1),
    }
}

fn read(dir: &str, file: &str) -> Vec<u8> {
    std::fs::read(Path::new(dir).join(file)).expect("fixture")
}

/// `kubectl ARGS`'s stdout, or `None` (with a message) when kubectl is not installed;
/// under CI it must be.
fn kubectl(dir: &str, args: &[&str]) -> Option<Vec<u8>> {
    let out = match Command::new("kubectl").current_dir(dir).args(args).output() {
        Ok(out) => out,
        Err(e) => {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "kubectl is required in CI: {e}"
            );
            eprintln!("skipping: kubectl is not installed ({e})");
            return None;
        }
    };
    assert!(
        out.status.success(),
        "kubectl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(out.stdout)
}

fn lines(text: &str) -> Vec<&str> {
    text.lines().collect()
}

#[test]
fn kubectl_output_piped_in_lists_what_the_files_list() {
    // `kubectl label --local -o yaml` prints several objects back to back without `---`
    // (kubectl cannot read that back either), so the YAML case takes one object per file;
    // its JSON output is a stream of objects, which kubectl and kubesift both read.
    let cases: [(&str, &[&str], &str); 3] = [
        (SAMPLE, &["monitoring/gpu-benchmark.yaml"], "yaml"),
        (SAMPLE, &["legacy/leftovers.yaml"], "yaml"),
        (UI, &["ops.yaml", "shop"], "json"),
    ];
    for (dir, files, format) in cases {
        let mut label = vec!["label", "--local", "x=y", "-o", format];
        let mut get_files = vec!["get", "-o", "name"];
        for f in files {
            label.extend(["-f", f]);
            get_files.extend(["-f", f]);
        }
        let Some(piped) = kubectl(dir, &label) else {
            return;
        };
        let from_files = kubesift(dir, &get_files, b"");
        assert_eq!(from_files.code, 0, "{}", from_files.stderr);
        assert!(!from_files.stdout.is_empty());
        let from_pipe = kubesift(dir, &["get", "-f", "-", "-o", "name"], &piped);
        assert_eq!(from_pipe.code, 0, "{files:?}: {}", from_pipe.stderr);
        assert_eq!(from_pipe.stderr, "", "{files:?}");
        assert_eq!(
            lines(&from_pipe.stdout),
            lines(&from_files.stdout),
            "{files:?}"
        );
        // What was listed is what came through the pipe: kubectl's label is on every one.
        let labelled = kubesift(dir, &["get", "-f", "-", "-l", "x=y", "-o", "name"], &piped);
        assert_eq!(
            lines(&labelled.stdout),
            lines(&from_files.stdout),
            "{files:?}"
        );
    }
}

#[test]
fn stdin_beside_paths() {
    let ops = read(UI, "ops.yaml");
    // Without a TYPE, objects come in the order of the `-f` arguments, as in kubectl.
    let cases: [(&[&str], &[&str]); 3] = [
        (
            &["-f", "-", "-f", "shop"],
            &["-f", "ops.yaml", "-f", "shop"],
        ),
        (
            &["-f", "shop", "-f", "-"],
            &["-f", "shop", "-f", "ops.yaml"],
        ),
        // Named twice, read once.
        (
            &["-f", "-", "-f", "shop", "-f", "-"],
            &["-f", "ops.yaml", "-f", "shop"],
        ),
    ];
    for (piped, files) in cases {
        let want = kubesift(UI, &[&["get", "-o", "name"][..], files].concat(), b"");
        assert_eq!(want.code, 0, "{}", want.stderr);
        let got = kubesift(UI, &[&["get", "-o", "name"][..], piped].concat(), &ops);
        assert_eq!(got.code, 0, "{piped:?}: {}", got.stderr);
        assert_eq!(got.stderr, "", "{piped:?}");
        assert_eq!(lines(&got.stdout), lines(&want.stdout), "{piped:?}");
    }
}

#[test]
fn errors_on_stdin_read_as_in_a_file_at_dash_line_column() {
    let broken = read(UI, "broken.yaml");
    let file = kubesift(UI, &["get", "-f", "broken.yaml"], b"");
    let piped = kubesift(UI, &["get", "-f", "-"], &broken);
    assert_eq!(piped.code, file.code);
    assert_eq!(piped.stderr, file.stderr.replace("broken.yaml", "-"));
    let first = piped.stderr.lines().next().unwrap_or_default();
    let mut parts = first.splitn(4, ':');
    assert_eq!(parts.next(), Some("-"), "{first}");
    for what in ["line", "column"] {
        let n = parts.next().unwrap_or_default();
        assert!(n.parse::<u32>().is_ok_and(|n| n > 0), "{what} in {first:?}");
    }
    assert!(
        piped.stderr.contains("nothing could be loaded from -"),
        "{}",
        piped.stderr
    );
}

#[test]
fn the_size_limit_applies_to_stdin() {
    let web = read(UI, "shop/web.yaml");
    let run = kubesift(UI, &["get", "-f", "-", "--max-file-size", "100"], &web);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.starts_with(
            "-: standard input is over the 100 B size limit: skipped (raise --max-file-size to load it)\n"
        ),
        "{}",
        run.stderr
    );
    let limit = web.len().to_string();
    let run = kubesift(
        UI,
        &["get", "-f", "-", "--max-file-size", &limit, "-o", "name"],
        &web,
    );
    assert_eq!(run.code, 0, "exactly the limit loads: {}", run.stderr);
}

#[test]
fn tree_and_check_read_stdin() {
    let web = read(UI, "shop/web.yaml");
    let tree = ["tree", "deployment/storefront", "-n", "shop"];
    let file = kubesift(UI, &[&tree[..], &["-f", "shop/web.yaml"]].concat(), b"");
    let piped = kubesift(UI, &[&tree[..], &["-f", "-"]].concat(), &web);
    assert_eq!(file.code, 0, "{}", file.stderr);
    assert!(
        file.stdout.contains("Pod/storefront-7d9f-x2k4"),
        "{}",
        file.stdout
    );
    assert_eq!(piped.stdout, file.stdout);
    assert_eq!(piped.code, 0);

    let ops = read(UI, "ops.yaml");
    let file = kubesift(UI, &["check", "-f", "ops.yaml"], b"");
    let piped = kubesift(UI, &["check", "-f", "-"], &ops);
    assert!(file.stdout.starts_with("ops.yaml:"), "{}", file.stdout);
    assert_eq!(piped.stdout, file.stdout.replace("ops.yaml:", "-:"));
    assert_eq!(piped.code, file.code);
}

#[test]
fn watching_refuses_stdin() {
    let web = read(UI, "shop/web.yaml");
    let run = kubesift(UI, &["get", "-w", "-f", "-"], &web);
    assert_eq!(run.code, 1);
    assert_eq!(
        run.stderr,
        "error: --watch cannot follow standard input (-): it is read once\n"
    );
}

#[test]
fn a_file_named_dash_is_dot_slash_dash() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("-"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-file\n",
    )
    .expect("write");
    let d = dir.path().to_str().expect("utf-8");
    let piped = b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-pipe\n";
    let run = kubesift(d, &["get", "-f", "-", "-f", "./-", "-o", "name"], piped);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        lines(&run.stdout),
        ["configmap/from-pipe", "configmap/from-file"]
    );
}
