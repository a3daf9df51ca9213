//! Terminal injection (issue 17, item 2): text from manifests — label values, annotations,
//! status fields, names of invalid objects, file names — never reaches the terminal raw from
//! `get`, `check` or `tree`; kubectl's `printers.EscapeTerminal` shows ESC as `^[` and CR as
//! `\r`. `-o json|yaml` keep the exact values. Plus `--sort-by` shapes and the exit status of
//! input that holds no object (item 13).

use std::path::{Path, PathBuf};
use std::process::Command;

/// Control characters as YAML double-quoted escapes (raw ones are YAML errors).
const HOSTILE: &str = r#"apiVersion: v1
kind: Pod
metadata:
  name: web
  namespace: default
  labels:
    app: "SAFE\rEVIL"
    title: "p\e]0;pwned\a"
  annotations:
    note: "x\e[2J\x9by"
status:
  phase: "Running\r\e[KFailed"
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: "bad\e]0;t\aname"
  namespace: default
---
"a string, \e[31m not an object"
"#;

struct Run {
    stdout: String,
    stderr: String,
    code: i32,
}

fn kubesift(args: &[&str], path: &Path) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_kubesift"))
        .args(args)
        .arg(path)
        .output()
        .expect("run kubesift");
    Run {
        stdout: String::from_utf8(out.stdout).expect("utf-8 stdout"),
        stderr: String::from_utf8(out.stderr).expect("utf-8 stderr"),
        code: out.status.code().unwrap_or(-1),
    }
}

/// The fixture in a file whose name holds ESC, BEL and CR.
fn fixture(dir: &tempfile::TempDir) -> PathBuf {
    let path = dir.path().join("f\u{1b}]0;x\u{7}\r.yaml");
    std::fs::write(&path, HOSTILE).expect("write fixture");
    path
}

/// No C0 control but `\n`, no DEL, no C1.
fn assert_clean(what: &str, text: &str) {
    let bad: Vec<char> = text
        .chars()
        .filter(|&c| c.is_control() && c != '\n')
        .collect();
    assert!(bad.is_empty(), "{what}: raw {bad:?} in {text:?}");
}

fn assert_all_clean(what: &str, r: &Run) {
    assert_clean(&format!("{what} stdout"), &r.stdout);
    assert_clean(&format!("{what} stderr"), &r.stderr);
}

#[test]
fn get_text_outputs_are_escaped() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = fixture(&dir);
    for extra in [
        &[][..],
        &["-o", "wide"],
        &["-o", "name"],
        &["--show-labels"],
        &["-L", "app,title"],
        &["pods", "--show-labels"],
    ] {
        let r = kubesift(&[&["get"][..], extra, &["-f"]].concat(), &path);
        assert_all_clean(&format!("get {extra:?}"), &r);
    }
    // kubectl's table cell: cut at the CR, "..." appended; ESC as ^[.
    let r = kubesift(&["get", "pods", "--show-labels", "-f"], &path);
    assert!(r.stdout.contains("Running..."), "{}", r.stdout);
    assert!(r.stdout.contains("app=SAFE..."), "{}", r.stdout);
    let r = kubesift(&["get", "pods", "-L", "title", "-f"], &path);
    assert!(r.stdout.contains("p^[]0;pwned\\a"), "{}", r.stdout);
    // The file name in stderr's path:line:col lines.
    assert!(r.stderr.contains("f^[]0;x\\a\\r.yaml:"), "{}", r.stderr);
    let r = kubesift(&["get", "cm", "-o", "name", "-f"], &path);
    assert_eq!(r.stdout, "configmap/bad^[]0;t\\aname\n");
}

#[test]
fn check_and_tree_text_are_escaped() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = fixture(&dir);
    let r = kubesift(&["check", "-f"], &path);
    assert_all_clean("check", &r);
    assert!(r.stdout.contains("bad^[]0;t\\aname"), "{}", r.stdout);
    let r = kubesift(&["tree", "-f"], &path);
    assert_all_clean("tree", &r);
    assert!(r.stdout.contains("Running\\r^[[KFailed"), "{}", r.stdout);
    let r = kubesift(&["tree", "--show-source", "-f"], &path);
    assert_all_clean("tree --show-source", &r);
}

#[test]
fn json_and_yaml_keep_the_exact_values() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = fixture(&dir);
    let r = kubesift(&["get", "pods", "-o", "json", "-f"], &path);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("json");
    assert_eq!(v["items"][0]["metadata"]["labels"]["app"], "SAFE\rEVIL");
    assert_eq!(
        v["items"][0]["metadata"]["labels"]["title"],
        "p\u{1b}]0;pwned\u{7}"
    );
    assert_eq!(v["items"][0]["status"]["phase"], "Running\r\u{1b}[KFailed");
    assert!(!r.stdout.contains("^["));
    let r = kubesift(&["get", "pods", "-o", "yaml", "-f"], &path);
    assert!(
        !r.stdout.contains("^[") && !r.stdout.contains("..."),
        "{}",
        r.stdout
    );
}

fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> PathBuf {
    let path = dir.path().join(name);
    std::fs::write(&path, text).expect("write");
    path
}

#[test]
fn sort_by_rejects_what_kubectl_rejects() {
    let dir = tempfile::tempdir().expect("tempdir");
    let two = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n---\n\
               apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n";
    let path = write(&dir, "two.yaml", two);
    for bad in ["{", "{.metadata.name", "{{.metadata.name}}"] {
        let r = kubesift(&["get", "cm", "--sort-by", bad, "-f"], &path);
        assert_eq!(r.code, 1, "{bad}: {}", r.stdout);
        assert_eq!(
            r.stderr,
            "error: unexpected path string, expected a 'name1.name2' or '.name1.name2' or '{name1.name2}' or '{.name1.name2}'\n"
        );
        assert_eq!(r.stdout, "");
    }
    let r = kubesift(
        &[
            "get",
            "cm",
            "--sort-by",
            "{.metadata.name}",
            "-o",
            "name",
            "-f",
        ],
        &path,
    );
    assert_eq!(r.stdout, "configmap/a\nconfigmap/b\n");
}

#[test]
fn only_non_objects_fails_as_kubectl_does() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write(&dir, "s.yaml", "just a string\n---\n42\n");
    let r = kubesift(&["get", "-f"], &path);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(!r.stderr.contains("No resources found"), "{}", r.stderr);
    assert!(r.stderr.contains("not a Kubernetes object"), "{}", r.stderr);
    assert_eq!(r.stdout, "");
}
