//! Hostile repos (issue 17, the loader's part): control characters, symlink diamonds and
//! links into pseudo file systems, FIFOs and devices, expansion bombs, values kubectl's
//! decoding refuses, other encodings. Each case failed (hung, loaded silently, or said the
//! wrong thing) before the loader handled it.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use kubesift::diagnostic::{Diagnostic, Severity};
use kubesift::model::load::{
    load_file, load_paths, parse_text, yaml_equivalence_probe, LoadOptions,
};
use kubesift::model::Inventory;

mod rss_support;

fn cm(name: &str) -> String {
    format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n")
}

fn load(path: &Path) -> Inventory {
    load_paths(&[path.to_path_buf()], &LoadOptions::default())
}

fn names(inv: &Inventory) -> Vec<&str> {
    inv.objects.iter().map(|o| o.name()).collect()
}

/// (line, column, severity, code, message) of every problem.
fn problems(ps: &[Diagnostic]) -> Vec<(u32, u32, Severity, &str, &str)> {
    ps.iter()
        .map(|p| (p.line, p.column, p.severity, p.code, &*p.message))
        .collect()
}

/// Runs `f` on its own thread and fails the test if it has not returned within `secs`
/// (instead of hanging CI: a blocked `open` or an endless walk never returns).
fn within<T: Send + 'static>(secs: u64, what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(Duration::from_secs(secs)) {
        Ok(v) => v,
        Err(_) => panic!("{what}: still running after {secs} s"),
    }
}

// ---- item 3: control characters -------------------------------------------------------

#[test]
fn control_characters_are_yaml_errors_at_their_position() {
    let text = [
        cm("ok1"),
        // ESC in a plain scalar, BEL in a double-quoted one, a C1 control (U+009B, the
        // 8-bit CSI) that the fast path used to take, DEL in a comment, U+FFFE in a key.
        "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: esc\ndata:\n  k: a\x1b[2Jb\n"
            .to_owned(),
        "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: \"b\x07\"\n".to_owned(),
        "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: csi\ndata:\n  k: x\u{9b}31m\n"
            .to_owned(),
        "---\n# note\x7f\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: del\n".to_owned(),
        "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: nonchar\ndata:\n  \u{fffe}: x\n"
            .to_owned(),
        // Allowed: tab, CR, NEL (U+0085), NBSP and the rest of Unicode.
        "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ok2\ndata:\n  k: \"a\tb\u{85}c\u{a0}d\u{1F600}\"\r\n"
            .to_owned(),
    ]
    .concat();
    let load = parse_text(&PathBuf::from("cc.yaml").into(), &text);
    assert_eq!(
        load.objects.iter().map(|o| o.name()).collect::<Vec<_>>(),
        ["ok1", "ok2"]
    );
    // Each error is placed on its character: 1-based line, column in characters.
    let at = |c: char| {
        let offset = text.find(c).unwrap();
        let before = &text[..offset];
        let line = before.matches('\n').count() as u32 + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        (line, before[line_start..].chars().count() as u32 + 1)
    };
    let want: Vec<(u32, u32, String)> = ['\x1b', '\x07', '\u{9b}', '\x7f', '\u{fffe}']
        .into_iter()
        .map(|c| {
            let (line, column) = at(c);
            let message = format!(
                "YAML syntax error: control characters are not allowed (U+{:04X})",
                u32::from(c)
            );
            (line, column, message)
        })
        .collect();
    assert_eq!(
        (want[1].0, want[1].1),
        (16, 11),
        "the BEL after `name: \"b`"
    );
    let got: Vec<(u32, u32, String)> = load
        .problems
        .iter()
        .map(|p| {
            assert_eq!((p.severity, p.code), (Severity::Error, "yaml-syntax"));
            (p.line, p.column, p.message.to_string())
        })
        .collect();
    assert_eq!(got, want);
    // The fast path leaves every such document to saphyr's path, which reports it.
    let probes = yaml_equivalence_probe(&text);
    assert_eq!(probes.len(), 7);
    for p in &probes[1..6] {
        assert!(
            p.fast.is_none(),
            "fast path took the document at line {}",
            p.line
        );
        assert_eq!(p.saphyr, Err(vec!["yaml-syntax"]));
    }
}

// ---- item 13: encodings ----------------------------------------------------------------

#[test]
fn utf32_is_not_called_utf16() {
    let dir = tempfile::tempdir().unwrap();
    let text = cm("x");
    let utf32le: Vec<u8> = "\u{feff}"
        .chars()
        .chain(text.chars())
        .flat_map(|c| u32::from(c).to_le_bytes())
        .collect();
    let utf16be: Vec<u8> = text
        .chars()
        .flat_map(|c| (u32::from(c) as u16).to_be_bytes())
        .collect();
    fs::write(dir.path().join("a32.yaml"), utf32le).unwrap();
    fs::write(dir.path().join("b16.yaml"), utf16be).unwrap();
    let inv = load(dir.path());
    assert!(inv.objects.is_empty());
    let e = Severity::Error;
    assert_eq!(
        problems(&inv.problems),
        [
            (
                1,
                1,
                e,
                "encoding",
                "UTF-32 (little-endian, byte order mark) text: convert the file to UTF-8"
            ),
            (
                1,
                1,
                e,
                "encoding",
                "UTF-16 (big-endian) text: convert the file to UTF-8"
            ),
        ]
    );
}

#[test]
fn lone_surrogate_escape_is_named() {
    let text = "{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\",\n \"metadata\": {\"name\": \"a\\ud800\"}}\n";
    let load = parse_text(&PathBuf::from("s.json").into(), text);
    assert!(load.objects.is_empty());
    assert_eq!(
        problems(&load.problems),
        [(
            2,
            25,
            Severity::Error,
            "json-syntax",
            "JSON syntax error: lone UTF-16 surrogate \\ud800 in a string: a high surrogate \\uD800-\\uDBFF must be followed by a low surrogate \\uDC00-\\uDFFF (U+D800 is not a character)"
        )]
    );
}

// ---- item 12: values kubectl's decoding refuses ------------------------------------------

#[test]
fn coerced_metadata_is_refused_as_kubectl_decodes_it() {
    let go = |v: &str, field: &str, t: &str| {
        format!("json: cannot unmarshal {v} into Go struct field {field} of type {t}")
    };
    let cases = [
        (
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: no\n",
            go("bool", "ObjectMeta.metadata.namespace", "string"),
        ),
        (
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: on\n",
            go("bool", "ObjectMeta.metadata.name", "string"),
        ),
        (
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  finalizers: x\n",
            go("string", "ObjectMeta.metadata.finalizers", "[]string"),
        ),
        (
            "apiVersion: v1\nkind: List\nitems: {a: b}\n",
            go("object", "decodeList.items", "[]json.RawMessage"),
        ),
        (
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: 12345\n",
            go("number", "ObjectMeta.metadata.name", "string"),
        ),
    ];
    for (text, want) in &cases {
        let doc = format!("{}---\n{text}", cm("before"));
        let load = parse_text(&PathBuf::from("c.yaml").into(), &doc);
        assert_eq!(names_of(&load.objects), ["before"], "{text}");
        assert_eq!(load.problems.len(), 1, "{text}: {:?}", load.problems);
        let p = &load.problems[0];
        // The document's root, after the `---` line.
        assert_eq!(
            (p.line, p.column, p.severity),
            (6, 1, Severity::Error),
            "{text}"
        );
        assert_eq!(&*p.message, want.as_str());
    }

    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("ns.yaml"), cases[0].0).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_kubesift"))
        .args(["check", "-f"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let all =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(all.contains(&cases[0].1), "{all}");
}

fn names_of(objects: &[kubesift::model::Object]) -> Vec<&str> {
    objects.iter().map(|o| o.name()).collect()
}

// ---- item 7: expansion bounds ------------------------------------------------------------

#[test]
fn document_count_is_bounded_per_file() {
    const LIMIT: usize = 1_000_000;
    let mut text = cm("first");
    text.push_str(&"---\n".repeat(LIMIT - 1));
    text.push_str(&format!("---\n{}", cm("beyond")));
    let load = within(120, "a million documents", move || {
        parse_text(&PathBuf::from("many.yaml").into(), &text)
    });
    assert_eq!(names_of(&load.objects), ["first"]);
    assert_eq!(
        problems(&load.problems),
        [(
            LIMIT as u32 + 4,
            1,
            Severity::Error,
            "too-many-documents",
            "more than 1000000 YAML documents in one file: this one and the rest are not loaded (split the file)"
        )]
    );
    // JSON streams too (top-level arrays: flattened, empty ones yield nothing).
    let json = "[]".repeat(LIMIT + 1);
    let load = within(120, "a million JSON values", move || {
        parse_text(&PathBuf::from("many.json").into(), &json)
    });
    assert_eq!(
        problems(&load.problems),
        [(
            1,
            2 * LIMIT as u32 + 1,
            Severity::Error,
            "too-many-documents",
            "more than 1000000 JSON values in one file: this one and the rest are not loaded (split the file)"
        )]
    );
}

#[test]
fn nested_alias_chain_under_the_node_budget_is_refused() {
    let mut text = String::from(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bomb\ndata:\n  l0: &l0 x\n",
    );
    for i in 1..900 {
        text.push_str(&format!("  l{i}: &l{i} [*l{}]\n", i - 1));
    }
    let load = parse_text(&PathBuf::from("chain.yaml").into(), &text);
    assert!(load.objects.is_empty());
    assert_eq!(load.problems.len(), 1);
    let p = &load.problems[0];
    assert_eq!(p.code, "alias-bomb");
    assert!(
        p.message.contains("would write more than 32 MiB"),
        "{}",
        p.message
    );
    assert!(p.line > 100 && p.column > 1, "{}:{}", p.line, p.column);
}

// ---- item 4: symlink diamonds, loops, pseudo file systems --------------------------------

#[cfg(unix)]
#[test]
fn symlink_diamond_is_walked_once_per_directory() {
    use std::os::unix::fs::symlink;
    let dir = tempfile::tempdir().unwrap();
    let (root, outside) = (dir.path().join("root"), dir.path().join("outside"));
    for i in 1..=40 {
        fs::create_dir_all(outside.join(format!("d{i}"))).unwrap();
    }
    // Two links per level to the next: 2^40 paths to d40, reachable only through links.
    for i in 1..40 {
        for l in ["a", "b"] {
            symlink(format!("../d{}", i + 1), outside.join(format!("d{i}/{l}"))).unwrap();
        }
    }
    fs::write(outside.join("d40/deep.yaml"), cm("deep")).unwrap();
    fs::create_dir_all(&root).unwrap();
    fs::write(root.join("top.yaml"), cm("top")).unwrap();
    symlink(outside.join("d1"), root.join("a")).unwrap();
    symlink(outside.join("d1"), root.join("b")).unwrap();

    let r = root.clone();
    let inv = within(20, "walking a symlink diamond", move || load(&r));
    assert_eq!(names(&inv), ["deep", "top"]);
    let deep = &inv.objects[0].source.path;
    let want: PathBuf = std::iter::once(root.join("a"))
        .chain(std::iter::repeat_n(PathBuf::from("a"), 39))
        .chain([PathBuf::from("deep.yaml")])
        .collect();
    assert_eq!(
        &**deep,
        want.as_path(),
        "the first link in sorted order wins"
    );
    assert_eq!(inv.problems.len(), 40, "{:#?}", inv.problems);
    assert!(inv.problems.iter().all(|p| p.severity == Severity::Note));
    let first = &inv.problems[0];
    assert_eq!(
        &*first.path,
        root.join(
            "a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/b"
        )
        .as_path()
    );
    let b = inv
        .problems
        .iter()
        .find(|p| &*p.path == root.join("b").as_path())
        .expect("root/b reported");
    assert_eq!(
        &*b.message,
        format!(
            "same directory as {}, walked already: not walked again",
            root.join("a").display()
        )
    );
}

#[cfg(unix)]
#[test]
fn links_to_root_and_pseudo_file_systems_are_not_walked() {
    use std::os::unix::fs::symlink;
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("ok.yaml"), cm("ok")).unwrap();
    symlink("/", dir.path().join("slash")).unwrap();
    symlink("/sys", dir.path().join("sys")).unwrap();
    symlink("/proc/self", dir.path().join("self")).unwrap();
    symlink("/dev", dir.path().join("dev")).unwrap();
    let d = dir.path().to_path_buf();
    let inv = within(20, "walking links to / and /sys", move || load(&d));
    assert_eq!(names(&inv), ["ok"]);
    let got: Vec<(String, Severity, String)> = inv
        .problems
        .iter()
        .map(|p| {
            let name = p.path.file_name().unwrap().to_string_lossy().into_owned();
            (name, p.severity, p.message.to_string())
        })
        .collect();
    let self_target = fs::canonicalize("/proc/self").unwrap();
    assert_eq!(
        got,
        [
            (
                "dev".to_owned(),
                Severity::Note,
                "leads to /dev, a pseudo file system: not walked".to_owned()
            ),
            (
                "self".to_owned(),
                Severity::Note,
                format!(
                    "leads to {}, inside /proc, a pseudo file system: not walked",
                    self_target.display()
                )
            ),
            (
                "slash".to_owned(),
                Severity::Error,
                "symlink loop: points to its ancestor /: not followed".to_owned()
            ),
            (
                "sys".to_owned(),
                Severity::Note,
                "leads to /sys, a pseudo file system: not walked".to_owned()
            ),
        ]
    );
}

// ---- item 5: FIFOs and devices ---------------------------------------------------------

#[cfg(unix)]
fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().expect("mkfifo");
    assert!(status.success());
}

#[cfg(unix)]
#[test]
fn fifos_and_devices_in_a_walk_are_notes() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("ok.yaml"), cm("ok")).unwrap();
    mkfifo(&dir.path().join("pipe.yaml"));
    mkfifo(&dir.path().join("pipe.txt"));
    std::os::unix::fs::symlink("/dev/zero", dir.path().join("zero.yaml")).unwrap();
    let d = dir.path().to_path_buf();
    let inv = within(20, "walking a folder with a FIFO", move || load(&d));
    assert_eq!(names(&inv), ["ok"]);
    let got: Vec<_> = inv
        .problems
        .iter()
        .map(|p| {
            let name = p.path.file_name().unwrap().to_string_lossy().into_owned();
            (name, p.line, p.severity, p.message.to_string())
        })
        .collect();
    assert_eq!(
        got,
        [
            (
                "pipe.yaml".to_owned(),
                0,
                Severity::Note,
                "not a regular file (a FIFO): skipped".to_owned()
            ),
            (
                "zero.yaml".to_owned(),
                0,
                Severity::Note,
                "not a regular file (a symlink to a character device): skipped".to_owned()
            ),
        ]
    );
}

#[cfg(unix)]
#[test]
fn reading_a_fifo_or_a_device_never_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("late.yaml");
    mkfifo(&fifo);
    let zero = dir.path().join("zero.yaml");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    for (path, what) in [(fifo, "FIFO"), (zero, "character device")] {
        let p = path.clone();
        let load = within(20, "load_file on a FIFO or device", move || {
            load_file(&p, &LoadOptions::default())
        });
        assert!(load.objects.is_empty());
        assert_eq!(load.bytes, 0);
        assert_eq!(
            problems(&load.problems),
            [(
                0,
                0,
                Severity::Error,
                "read",
                format!("not a regular file ({what}): not read").as_str()
            )]
        );
    }
    // A regular file still honours the size limit.
    let big = dir.path().join("big.yaml");
    fs::write(&big, cm("big")).unwrap();
    let load = load_file(&big, &LoadOptions { max_file_size: 10 });
    assert_eq!(load.problems[0].code, "too-large");
}

/// `get -w`: a FIFO and a `/dev/zero` link appear while watching; later changes are still
/// reported (the watcher used to block in `open` forever, or read /dev/zero to the limit).
#[cfg(unix)]
#[test]
fn watch_survives_a_fifo_and_a_device_link_created_while_watching() {
    use std::io::{BufRead, BufReader};
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.yaml"), cm("a")).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_kubesift"))
        .args(["get", "-w", "--output-watch-events", "-o", "name", "-f"])
        .arg(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let wait_for = |want: &str| {
        let deadline = Instant::now() + Duration::from_secs(10);
        while let Ok(l) = lines.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            if l == want {
                return true;
            }
        }
        false
    };
    let seen_a = wait_for("ADDED configmap/a");
    mkfifo(&dir.path().join("pipe.yaml"));
    std::os::unix::fs::symlink("/dev/zero", dir.path().join("zero.yaml")).unwrap();
    std::thread::sleep(Duration::from_millis(500));
    fs::write(dir.path().join("b.yaml"), cm("b")).unwrap();
    let seen_b = wait_for("ADDED configmap/b");
    let _ = child.kill();
    let _ = child.wait();
    assert!(seen_a, "initial list");
    assert!(seen_b, "the watch stopped after a FIFO or device appeared");
}

// ---- item 7: many problems in one file ------------------------------------------------

#[test]
fn one_file_lists_a_thousand_problems_of_a_kind_and_counts_the_rest() {
    let text = "---\nx\n".repeat(5000);
    let load = parse_text(&PathBuf::from("notes.yaml").into(), &text);
    assert!(load.objects.is_empty());
    assert_eq!(load.problems.len(), 1001);
    let last = &load.problems[1000];
    assert_eq!(
        (last.line, last.severity, last.code),
        (2002, Severity::Note, load.problems[0].code)
    );
    assert!(
        last.message
            .ends_with("(and 3999 more like it in this file, not listed)"),
        "{}",
        last.message
    );
}

#[test]
fn a_million_tiny_documents_stay_within_twenty_times_the_input() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tiny.yaml");
    fs::write(&file, "---\nx\n".repeat(1_000_000)).unwrap();
    let bytes = fs::metadata(&file).unwrap().len();
    let path = file.to_str().unwrap().to_owned();
    for cmd in ["check", "get"] {
        let args = [cmd.to_owned(), "-f".to_owned(), path.clone()];
        let rss = within(120, "a million tiny documents", move || {
            rss_support::run(&args.iter().map(String::as_str).collect::<Vec<_>>()).max_rss
        });
        assert!(
            rss <= rss_support::bound(bytes),
            "{cmd}: peak RSS {rss} bytes for {bytes} bytes of input"
        );
    }
}

/// Eight files of 36 MB each, read whole before being refused as binary (a NUL byte at the
/// end): what one file holds while it is read and parsed is held by one thread at a time at
/// most, however many threads parse, because big files share one budget of bytes in
/// flight. Eight threads peak where one does, within one file's size.
#[test]
fn big_files_parsed_in_parallel_share_one_memory_budget() {
    let dir = tempfile::tempdir().unwrap();
    let size = 36usize << 20;
    let mut text = cm("x").repeat(size / cm("x").len());
    text.push('\0');
    for i in 0..8 {
        fs::write(dir.path().join(format!("big{i}.yaml")), &text).unwrap();
    }
    let path = dir.path().to_str().unwrap().to_owned();
    let peak = |threads: &'static str| {
        let path = path.clone();
        within(120, "eight big files", move || {
            let args = ["check", "-f", path.as_str()];
            let r = rss_support::run_with(&args, &[("RAYON_NUM_THREADS", threads)]);
            assert_eq!(r.code, 1, "eight binary files are errors");
            r.max_rss
        })
    };
    let (one, eight) = (peak("1"), peak("8"));
    assert!(
        eight <= one + size as u64,
        "peak RSS {} MB with eight threads, {} MB with one: more than one file's {} MB apart",
        eight >> 20,
        one >> 20,
        size >> 20
    );
}
