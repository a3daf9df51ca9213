//! `kubesift selector` through the real binary: the conformance vectors over `--jsonl`,
//! streaming, carets, and grep-like exit codes.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::Value;

const CASES: &str = include_str!("fixtures/selector/selector-cases.jsonl");

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn selector(args: &[&str], stdin: &str) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kubesift"))
        .arg("selector")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run kubesift");
    let mut input = child.stdin.take().expect("stdin");
    let data = stdin.as_bytes().to_vec();
    // Write from a thread: the child answers while we feed it, and pipes are finite.
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let out = child.wait_with_output().expect("wait");
    writer.join().expect("writer");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).expect("utf-8 stdout"),
        stderr: String::from_utf8(out.stderr).expect("utf-8 stderr"),
    }
}

fn cases() -> Vec<(String, Value, Value)> {
    CASES
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("fixture line");
            (
                v["id"].as_str().unwrap_or("?").to_string(),
                v["input"].clone(),
                v["expected"].clone(),
            )
        })
        .collect()
}

#[test]
fn jsonl_answers_every_conformance_vector_like_upstream() {
    let cases = cases();
    let stdin: String = cases
        .iter()
        .map(|(_, input, _)| format!("{input}\n"))
        .collect();
    let run = selector(&["--jsonl"], &stdin);
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), cases.len(), "one response per request");
    let mut failures = Vec::new();
    for ((id, input, expected), line) in cases.iter().zip(&lines) {
        let got: Value = serde_json::from_str(line).unwrap_or(Value::Null);
        if &got != expected {
            failures.push(format!(
                "{id}\n  input:    {input}\n  expected: {expected}\n  got:      {line}"
            ));
        }
    }
    for f in &failures {
        eprintln!("{f}");
    }
    assert!(failures.is_empty(), "{} vectors disagree", failures.len());
}

#[test]
fn jsonl_answers_garbage_and_goes_on() {
    let stdin = concat!(
        r#"{"op":"parse","selector":"b,a"}"#,
        "\n",
        "this is not json\n",
        r#"{"op":"frobnicate"}"#,
        "\n",
        "\n",
        r#"[1,2]"#,
        "\n",
        r#"{"op":"match","selector":"a!=1","labels":{}}"#,
        "\r\n",
        r#"{"op":"validate","kind":"dns1123_label","value":"ok-name"}"#,
    );
    let run = selector(&["--jsonl"], stdin);
    assert_eq!(run.code, 0);
    let got: Vec<Value> = run
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("each response is JSON"))
        .collect();
    assert_eq!(got.len(), 7, "{}", run.stdout);
    assert_eq!(got[0]["string"], "a,b");
    for bad in &got[1..5] {
        assert_eq!(bad["ok"], false, "{bad}");
        assert!(bad["error"].as_str().is_some_and(|e| !e.is_empty()));
        assert_eq!(bad.as_object().map(|o| o.len()), Some(2), "{bad}");
    }
    assert_eq!(got[3]["error"], "empty request line");
    assert_eq!(got[5]["matches"], true);
    assert_eq!(got[6], serde_json::json!({"errors": []}));
}

#[test]
fn jsonl_reads_bad_bytes_and_lone_surrogates_as_go_does() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kubesift"))
        .args(["selector", "--jsonl"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run kubesift");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin
        .write_all(b"{\"op\":\"parse\",\"selector\":\"k\xff\"}\n{\"op\":\"parse\",\"selector\":\"k\\udc00\"}\n")
        .expect("write");
    drop(stdin);
    let out = child.wait_with_output().expect("wait");
    let text = String::from_utf8(out.stdout).expect("utf-8");
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    assert_eq!(lines.len(), 2);
    for v in &lines {
        let e = v["error"].as_str().unwrap_or_default();
        assert!(
            e.starts_with("unable to parse requirement: <nil>: Invalid value: \"k\u{fffd}\""),
            "{e}"
        );
    }
}

#[test]
fn jsonl_answers_each_line_before_the_next_arrives() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kubesift"))
        .args(["selector", "--jsonl"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run kubesift");
    let mut stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if tx.send(line.unwrap_or_default()).is_err() {
                break;
            }
        }
    });
    for (i, sel) in ["a", "b in (x)", "!c"].iter().enumerate() {
        let req = serde_json::json!({"op": "parse", "selector": sel});
        writeln!(stdin, "{req}").expect("write request");
        stdin.flush().expect("flush");
        // stdin stays open: an answer can only come from a per-line flush.
        let got = rx.recv_timeout(Duration::from_secs(20));
        let Ok(line) = got else {
            let _ = child.kill();
            panic!("no answer to request {i} while stdin was still open");
        };
        let v: Value = serde_json::from_str(&line).expect("JSON");
        assert_eq!(v["string"], *sel);
    }
    drop(stdin);
    assert!(child.wait().expect("wait").success());
    reader.join().expect("reader");
}

#[test]
fn explains_a_valid_selector() {
    let run = selector(&["tier, env in (qa,prod),!canary"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "!canary,env in (prod,qa),tier\n  canary is not set\n  env is prod or qa\n  tier is set, to any value\n"
    );
    assert_eq!(run.stderr, "");
}

#[test]
fn a_selector_starting_with_a_dash_is_an_argument_not_a_flag() {
    let run = selector(&["-a"], "");
    assert_eq!(run.code, 1);
    assert!(
        run.stderr
            .starts_with("error: unable to parse requirement: <nil>: Invalid value: \"-a\": name part must consist"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.ends_with("\n  -a\n  ^\n"));
}

#[test]
fn invalid_selector_prints_upstream_error_and_caret() {
    let run = selector(&["env in (prod,qa),,tier"], "");
    assert_eq!(run.code, 1);
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        "error: found ',', expected: identifier after ','\n  env in (prod,qa),,tier\n                   ^\n"
    );
}

#[test]
fn caret_counts_display_columns_not_bytes() {
    // 'é' is two bytes, one column; '環' three bytes, two columns.
    let run = selector(&["é=1,環 in (a"], "");
    assert_eq!(run.code, 1);
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines.len(), 3, "{}", run.stderr);
    assert!(lines[0].starts_with("error: unable to parse requirement: <nil>: Invalid value: \"é\""));
    assert_eq!(lines[1], "  é=1,環 in (a");
    assert_eq!(lines[2], "  ^");
    let run = selector(&["ab=環境,c in (a"], "");
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines[0], "error: unable to parse requirement: values[0][ab]: Invalid value: \"環境\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')");
    assert_eq!(lines[2], "     ^");
    let run = selector(&["環境=ab,c in (a"], "");
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines[2], "  ^", "{}", run.stderr);
    // End of input after wide text: the caret goes one column past the last character.
    let run = selector(&["環 in (a"], "");
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert!(
        lines[0].contains("<nil>: Invalid value: \"環\""),
        "{}",
        lines[0]
    );
    let run = selector(&["a in (環"], "");
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(
        lines[0],
        "error: unable to parse requirement: found '', expected: ',' or ')'"
    );
    assert_eq!(lines[2], format!("  {}^", " ".repeat(8)));
}

#[test]
fn labels_match_exit_0_no_match_exit_1() {
    let sel = "env in (prod,qa),tier,!canary";
    let yes = selector(&[sel, "--labels", "env=prod, tier=web"], "");
    assert_eq!(yes.code, 0, "{}{}", yes.stdout, yes.stderr);
    assert!(yes.stdout.ends_with("\nmatch\n"), "{}", yes.stdout);

    let no = selector(&[sel, "--labels", "env=dev,canary=true"], "");
    assert_eq!(no.code, 3);
    assert!(
        no.stdout
            .ends_with("\nno match: !canary, env in (prod,qa), tier\n"),
        "{}",
        no.stdout
    );
    assert!(no.stdout.contains("  no   env is prod or qa  [env=dev]\n"));

    let json = selector(&[sel, "--labels-json", r#"{"env":"qa","tier":""}"#], "");
    assert_eq!(json.code, 0, "{}", json.stdout);

    // `!=` and `notin` match a missing key.
    let missing = selector(&["env!=prod,tier notin (a)", "--labels", ""], "");
    assert_eq!(missing.code, 0, "{}", missing.stdout);
}

#[test]
fn bad_labels_exit_1_and_clap_usage_errors_exit_2() {
    let bad = selector(&["a", "--labels", "a=b=c"], "");
    assert_eq!(bad.code, 1);
    assert_eq!(bad.stderr, "error: --labels: invalid selector: [a b c]\n");
    let bad_json = selector(&["a", "--labels-json", r#"{"a":1}"#], "");
    assert_eq!(bad_json.code, 1);
    let no_expr = selector(&[], "");
    assert_eq!(no_expr.code, 2);
    let both = selector(&["a", "--jsonl"], "");
    assert_eq!(both.code, 2);
}

#[test]
fn field_selectors() {
    let ok = selector(
        &["--field", r"metadata.name=a\,b,status.phase!=Running"],
        "",
    );
    assert_eq!(ok.code, 0, "{}", ok.stderr);
    assert_eq!(
        ok.stdout,
        "metadata.name=a\\,b,status.phase!=Running\n  metadata.name is a,b\n  status.phase is not Running\n"
    );
    let m = selector(
        &[
            "--field",
            "metadata.name=web",
            "--fields",
            "metadata.name=web",
        ],
        "",
    );
    assert_eq!(m.code, 0);
    let n = selector(
        &[
            "--field",
            "metadata.name=web",
            "--labels",
            "metadata.name=db",
        ],
        "",
    );
    assert_eq!(n.code, 3);
    assert!(n.stdout.ends_with("no match: metadata.name=web\n"));
    let bad = selector(&["--field", "a=b=c"], "");
    assert_eq!(bad.code, 1);
    assert_eq!(
        bad.stderr,
        "error: invalid field selector: unescaped character in value: 61\n  a=b=c\n    ^\n"
    );
}
