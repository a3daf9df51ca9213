//! `kubesift selector`: parse, explain and test label and field selectors, exactly as
//! k8s.io/apimachinery does; `--jsonl` answers the conformance protocol line by line.

use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::process::ExitCode;

use clap::Args;
use serde_json::{json, Value};
use unicode_width::UnicodeWidthChar;

use crate::selector::labels::convert_selector_to_labels_map;
use crate::selector::protocol::respond_bytes;
use crate::selector::{explain, parse_fields, parse_labels, ParseError};

/// Exit status: the selector is valid (and matches, when labels are given).
pub const EXIT_MATCH: u8 = 0;
/// Exit status: invalid selector (as `kubesift get` exits on one) or invalid labels/fields.
pub const EXIT_ERROR: u8 = 1;
/// Exit status: the selector is valid but does not match the given labels or fields
/// (2 stays clap's usage error).
pub const EXIT_NO_MATCH: u8 = 3;

/// Help text for the exit status and batch mode, shown by `--help`.
const AFTER_HELP: &str = "\
Prints the selector normalized as Kubernetes prints it (String()), then one line per
requirement in words. With --labels / --labels-json (or --fields), says for each
requirement whether it holds, then `match` or `no match: <failing requirements>`.

Exit status:
  0  valid, and matching when labels or fields were given
  1  invalid selector (upstream's exact error, the input, and a caret under the failing
     byte, on stderr), or invalid --labels/--fields
  2  bad command-line usage
  3  valid, but no match

--jsonl reads one JSON request per line on stdin and writes one JSON response per line on
stdout, in order, flushed after each line (ops: parse, match, field_parse, field_match,
requirement, labelselector, nodeselector, validate; see shared/conformance/README.md).
Bytes that are not UTF-8 and lone UTF-16 surrogate escapes read as U+FFFD, as Go decodes
JSON. A line that is not a valid request, blank lines included, is answered with
{\"ok\":false,\"error\":\"...\"} so responses stay paired with requests, and the stream
goes on. Exit status 0 unless reading stdin or writing stdout fails (1).

Examples:
  kubesift selector 'env in (prod,qa),tier,!canary'
  kubesift selector 'env in (prod,qa)' --labels env=prod,tier=web
  kubesift selector --field 'metadata.name=web' --fields metadata.name=db
  echo '{\"op\":\"parse\",\"selector\":\"a,b\"}' | kubesift selector --jsonl";

/// Parse, explain and test a label selector (or, with `--field`, a field selector),
/// exactly as k8s.io/apimachinery does.
#[derive(Debug, Args)]
#[command(
    after_help = "Exit status: 0 valid (and matching), 1 invalid selector, 2 usage, 3 no match \
                  (see --help).",
    after_long_help = AFTER_HELP
)]
pub struct SelectorArgs {
    /// The selector, e.g. 'env in (prod,qa),tier,!canary' (quote it for the shell).
    #[arg(
        value_name = "EXPR",
        allow_hyphen_values = true,
        required_unless_present = "jsonl",
        conflicts_with = "jsonl"
    )]
    pub expr: Option<String>,
    /// Use the field-selector grammar (`metadata.name=web,status.phase!=Running`).
    #[arg(long)]
    pub field: bool,
    /// Labels to test against, `k=v,k2=v2` (kubectl's ConvertSelectorToLabelsMap rules).
    /// With `--field`, the same as `--fields`.
    #[arg(long, value_name = "K=V,…", conflicts_with = "labels_json")]
    pub labels: Option<String>,
    /// Labels to test against as a JSON object of strings, e.g. '{"app":"web"}'.
    /// With `--field`, the field values.
    #[arg(long, value_name = "JSON")]
    pub labels_json: Option<String>,
    /// With `--field`: field values to test against, `path=value,…`; `\,` `\=` `\\`
    /// escape as in field selectors. A field not given reads as empty, as upstream.
    #[arg(
        long,
        value_name = "F=V,…",
        requires = "field",
        conflicts_with_all = ["labels", "labels_json"]
    )]
    pub fields: Option<String>,
    /// Batch mode: JSON requests on stdin, one JSON response per line on stdout.
    #[arg(long, conflicts_with_all = ["field", "labels", "labels_json", "fields"])]
    pub jsonl: bool,
}

/// What one run prints and how it exits (kept apart from I/O so tests can see it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub stdout: String,
    pub stderr: String,
    pub code: u8,
}

/// Runs `kubesift selector`.
pub fn run(args: SelectorArgs) -> ExitCode {
    if args.jsonl {
        let stdin = std::io::stdin().lock();
        let stdout = std::io::stdout().lock();
        return match serve_jsonl(stdin, stdout) {
            Ok(()) => ExitCode::from(EXIT_MATCH),
            // The reader went away (`| head`): nothing left to answer.
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::from(EXIT_MATCH),
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::from(EXIT_ERROR)
            }
        };
    }
    let out = evaluate(&args);
    let _ = std::io::stdout().lock().write_all(out.stdout.as_bytes());
    let _ = std::io::stderr().lock().write_all(out.stderr.as_bytes());
    ExitCode::from(out.code)
}

/// Answers each request line of `input` with one response line on `output`, flushing
/// after every line so a caller can interleave requests and responses.
pub fn serve_jsonl(mut input: impl BufRead, mut output: impl Write) -> std::io::Result<()> {
    let mut buf = Vec::new();
    loop {
        buf.clear();
        if input.read_until(b'\n', &mut buf)? == 0 {
            return Ok(());
        }
        let response = if buf.iter().all(u8::is_ascii_whitespace) {
            json!({"ok": false, "error": "empty request line"})
        } else {
            respond_bytes(&buf)
        };
        serde_json::to_writer(&mut output, &response)?;
        output.write_all(b"\n")?;
        output.flush()?;
    }
}

/// Everything `kubesift selector EXPR …` prints, and its exit status.
pub fn evaluate(args: &SelectorArgs) -> Outcome {
    let expr = args.expr.as_deref().unwrap_or("");
    if args.field {
        evaluate_field(args, expr)
    } else {
        evaluate_labels(args, expr)
    }
}

fn failure(stderr: String) -> Outcome {
    Outcome {
        stdout: String::new(),
        stderr,
        code: EXIT_ERROR,
    }
}

/// The error, the input echoed and a caret under the failing byte.
fn parse_failure(expr: &str, e: &ParseError) -> Outcome {
    let (echo, caret) = caret_lines(expr, e.offset);
    failure(format!("error: {}\n  {echo}\n  {caret}\n", e.message))
}

fn evaluate_labels(args: &SelectorArgs, expr: &str) -> Outcome {
    let sel = match parse_labels(expr) {
        Ok(sel) => sel,
        Err(e) => return parse_failure(expr, &e),
    };
    let labels = match (&args.labels, &args.labels_json) {
        (Some(text), _) => match convert_selector_to_labels_map(text) {
            Ok(map) => Some(map),
            Err(e) => return failure(format!("error: --labels: {e}\n")),
        },
        (None, Some(text)) => match json_string_map(text) {
            Ok(map) => Some(map),
            Err(e) => return failure(format!("error: --labels-json: {e}\n")),
        },
        (None, None) => None,
    };
    let mut stdout = format!("{sel}\n");
    if sel.is_empty() {
        stdout.push_str("  (empty selector: matches everything)\n");
    }
    let Some(labels) = labels else {
        for r in sel.requirements() {
            stdout.push_str(&format!("  {}\n", explain::requirement(r)));
        }
        return Outcome {
            stdout,
            stderr: String::new(),
            code: EXIT_MATCH,
        };
    };
    let mut failed = Vec::new();
    for r in sel.requirements() {
        let ok = r.matches(&labels);
        let have = match labels.get(&r.key) {
            Some(v) => format!("{}={v}", r.key),
            None => format!("no {}", r.key),
        };
        let mark = if ok { "yes" } else { "no " };
        stdout.push_str(&format!(
            "  {mark}  {}  [{have}]\n",
            explain::requirement(r)
        ));
        if !ok {
            failed.push(r.to_string());
        }
    }
    finish(stdout, &failed)
}

fn evaluate_field(args: &SelectorArgs, expr: &str) -> Outcome {
    let sel = match parse_fields(expr) {
        Ok(sel) => sel,
        Err(e) => return parse_failure(expr, &e),
    };
    let values = match (&args.fields, &args.labels, &args.labels_json) {
        (Some(text), _, _) | (None, Some(text), _) => match field_values(text) {
            Ok(map) => Some(map),
            Err(e) => return failure(format!("error: --fields: {e}\n")),
        },
        (None, None, Some(text)) => match json_string_map(text) {
            Ok(map) => Some(map),
            Err(e) => return failure(format!("error: --labels-json: {e}\n")),
        },
        (None, None, None) => None,
    };
    let mut stdout = format!("{sel}\n");
    if sel.is_empty() {
        stdout.push_str("  (empty selector: matches everything)\n");
    }
    let Some(values) = values else {
        for r in sel.requirements() {
            stdout.push_str(&format!("  {}\n", explain::field_requirement(r)));
        }
        return Outcome {
            stdout,
            stderr: String::new(),
            code: EXIT_MATCH,
        };
    };
    let get = |k: &str| values.get(k).cloned();
    let mut failed = Vec::new();
    for r in sel.requirements() {
        let ok = r.matches(&get);
        let have = values.get(&r.field).map_or("", String::as_str);
        let mark = if ok { "yes" } else { "no " };
        stdout.push_str(&format!(
            "  {mark}  {}  [{}={have}]\n",
            explain::field_requirement(r),
            r.field
        ));
        if !ok {
            failed.push(r.to_string());
        }
    }
    finish(stdout, &failed)
}

/// The verdict line and exit status.
fn finish(mut stdout: String, failed: &[String]) -> Outcome {
    let code = if failed.is_empty() {
        stdout.push_str("match\n");
        EXIT_MATCH
    } else {
        stdout.push_str(&format!("no match: {}\n", failed.join(", ")));
        EXIT_NO_MATCH
    };
    Outcome {
        stdout,
        stderr: String::new(),
        code,
    }
}

/// A JSON object whose values are all strings.
fn json_string_map(text: &str) -> Result<BTreeMap<String, String>, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("invalid JSON: {e}"))?;
    let Value::Object(obj) = v else {
        return Err(format!("expected a JSON object, got {v}"));
    };
    obj.into_iter()
        .map(|(k, v)| match v {
            Value::String(s) => Ok((k, s)),
            other => Err(format!("value of {k:?} must be a string, got {other}")),
        })
        .collect()
}

/// `path=value,…` read with the field-selector grammar; only `=` is meaningful here.
fn field_values(text: &str) -> Result<BTreeMap<String, String>, String> {
    let sel = parse_fields(text).map_err(|e| e.message)?;
    let mut map = BTreeMap::new();
    for r in sel.requirements() {
        if r.operator != crate::selector::FieldOperator::Equals {
            return Err(format!("{r}: field values are given with '='"));
        }
        map.insert(r.field.clone(), r.value.clone());
    }
    Ok(map)
}

/// A control character as a one-column picture, so the echo stays on one line and the
/// caret stays aligned.
fn visible(c: char) -> char {
    match c {
        '\u{0}'..='\u{1f}' => char::from_u32(0x2400 + c as u32).unwrap_or('?'),
        '\u{7f}' => '\u{2421}',
        c => c,
    }
}

/// The input echoed on one line and a caret line whose `^` sits under the display column
/// of byte `offset` (wide characters count two columns, combining marks none). An offset
/// inside a character points at that character; past the end, just after the text.
pub fn caret_lines(input: &str, offset: usize) -> (String, String) {
    let mut echo = String::with_capacity(input.len());
    let mut column = 0usize;
    let mut caret_at = None;
    for (i, c) in input.char_indices() {
        if caret_at.is_none() && i + c.len_utf8() > offset {
            caret_at = Some(column);
        }
        let shown = visible(c);
        echo.push(shown);
        column += shown.width().unwrap_or(0);
    }
    let pad = caret_at.unwrap_or(column);
    (echo, format!("{}^", " ".repeat(pad)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(expr: &str) -> SelectorArgs {
        SelectorArgs {
            expr: Some(expr.to_string()),
            field: false,
            labels: None,
            labels_json: None,
            fields: None,
            jsonl: false,
        }
    }

    #[test]
    fn caret_under_ascii_and_wide_text() {
        assert_eq!(caret_lines("a,,b", 2), ("a,,b".into(), "  ^".into()));
        assert_eq!(caret_lines("ab", 2), ("ab".into(), "  ^".into()));
        // "環境" is four columns wide but six bytes long.
        let (echo, caret) = caret_lines("環境=x,", 10);
        assert_eq!(echo, "環境=x,");
        assert_eq!(caret, "       ^");
        // A combining acute accent takes no column.
        let (_, caret) = caret_lines("e\u{301}=,", 4);
        assert_eq!(caret, "  ^");
        let (echo, caret) = caret_lines("a\tb,", 3);
        assert_eq!(echo, "a\u{2409}b,");
        assert_eq!(caret, "   ^");
    }

    #[test]
    fn explains_each_requirement() {
        let out = evaluate(&args("tier,env in (qa, prod)"));
        assert_eq!(
            out.stdout,
            "env in (prod,qa),tier\n  env is prod or qa\n  tier is set, to any value\n"
        );
        assert_eq!(out.code, EXIT_MATCH);
    }

    #[test]
    fn invalid_selector_shows_error_and_caret() {
        let out = evaluate(&args("a,,b"));
        assert_eq!(out.code, EXIT_ERROR);
        assert_eq!(
            out.stderr,
            "error: found ',', expected: identifier after ','\n  a,,b\n    ^\n"
        );
    }

    #[test]
    fn labels_match_and_say_which_requirement_failed() {
        let mut a = args("env in (prod,qa),tier");
        a.labels = Some("env=prod".into());
        let out = evaluate(&a);
        assert_eq!(out.code, EXIT_NO_MATCH);
        assert!(out.stdout.ends_with("no match: tier\n"), "{}", out.stdout);
        assert!(out
            .stdout
            .contains("  yes  env is prod or qa  [env=prod]\n"));
        a.labels = None;
        a.labels_json = Some(r#"{"env":"qa","tier":"web"}"#.into());
        let out = evaluate(&a);
        assert_eq!(out.code, EXIT_MATCH);
        assert!(out.stdout.ends_with("\nmatch\n"));
    }

    #[test]
    fn field_mode() {
        let mut a = args("metadata.name=web,status.phase!=Running");
        a.field = true;
        a.fields = Some("metadata.name=web".into());
        let out = evaluate(&a);
        assert_eq!(out.code, EXIT_MATCH, "{}", out.stdout);
        a.fields = Some("metadata.name=db,status.phase=Running".into());
        let out = evaluate(&a);
        assert_eq!(out.code, EXIT_NO_MATCH);
        assert!(out
            .stdout
            .ends_with("no match: metadata.name=web, status.phase!=Running\n"));
        let bad = evaluate(&SelectorArgs {
            field: true,
            ..args("a=b,c")
        });
        assert_eq!(bad.code, EXIT_ERROR);
        assert_eq!(
            bad.stderr,
            "error: invalid selector: 'a=b,c'; can't understand 'c'\n  a=b,c\n      ^\n"
        );
    }

    #[test]
    fn jsonl_answers_every_line() {
        let input = "{\"op\":\"parse\",\"selector\":\"a\"}\n\nnot json\n";
        let mut out = Vec::new();
        let r = serve_jsonl(input.as_bytes(), &mut out);
        assert!(r.is_ok());
        let text = String::from_utf8(out).unwrap_or_default();
        let lines: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or(Value::Null))
            .collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0]["string"], "a");
        assert_eq!(
            lines[1],
            json!({"ok": false, "error": "empty request line"})
        );
        assert_eq!(lines[2]["ok"], false);
    }
}
