//! The fast YAML path either declines or gives exactly what saphyr's path gives: value,
//! root position and every list item's position. Checked on generated kubectl-style
//! documents, on random edits of them, on hand-picked edge cases and on every YAML file of
//! the corpora, fixtures and sample cluster.

#[path = "../examples/gen_corpus.rs"]
mod gen_corpus;

use std::path::{Path, PathBuf};

use kubesift::model::load::{yaml_equivalence_probe, YamlProbe};
use kubesift::value::Raw;
use proptest::prelude::*;

/// Asserts both paths agree wherever the fast one answers; returns (taken, documents).
fn check(text: &str) -> (usize, usize) {
    let probes = yaml_equivalence_probe(text);
    let mut taken = 0;
    for YamlProbe {
        line, fast, saphyr, ..
    } in &probes
    {
        if let Some(fast) = fast {
            taken += 1;
            assert_eq!(
                Ok(fast),
                saphyr.as_ref(),
                "fast path differs from saphyr on the document at line {line} of:\n{text}"
            );
        }
    }
    (taken, probes.len())
}

/// Wherever the fast path answers with a value, its encoding is byte for byte
/// `Raw::from_value` of saphyr's value (key order, number kinds, varints); returns how many
/// documents were compared.
fn same_bytes(text: &str) -> usize {
    let mut compared = 0;
    for p in yaml_equivalence_probe(text) {
        let (Some(Some(fast)), Ok(Some(saphyr))) = (&p.fast, &p.saphyr) else {
            continue;
        };
        let want = Raw::from_value(&saphyr.value);
        assert_eq!(
            fast.encoded,
            want.view().encoded(),
            "fast path encodes the document at line {} differently from Raw::from_value of:\n{text}",
            p.line
        );
        compared += 1;
    }
    compared
}

/// The fast path takes `text` (every document) and agrees.
fn takes(text: &str) {
    let (taken, total) = check(text);
    assert_eq!(taken, total, "fast path declined a document of:\n{text}");
}

/// The fast path declines `text` (its only document).
fn declines(text: &str) {
    let probes = yaml_equivalence_probe(text);
    assert!(
        probes.iter().all(|p| p.fast.is_none()),
        "fast path took:\n{text}"
    );
}

#[test]
fn kubectl_style_documents_are_taken() {
    takes("apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n  labels:\n    app: web\nspec:\n  containers:\n  - name: c\n    image: nginx:1.25\n    ports:\n    - containerPort: 80\n      protocol: TCP\n");
    takes("apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: x\n  data:\n    a: \"1\"\n    b: 'it''s'\n- kind: List\n  items:\n  - kind: Secret\n    metadata: {}\n\n  # trailing comment\n- [] # flow\n- \"q\"   # c\n- plain\nmetadata:\n  resourceVersion: \"\"\n");
    takes("# header\n---\n- a: 1\n  b: []\n- - x\n  - y\n-\n  k: v\n...\n");
    takes("--- # x\n  a: 1\n  b:\n  - c\n  \n  ");
    takes("a: |\n  line 1\n\n    more\n  last\nb: >-\n  folded\n  text\n\n  para\n   indented\n  end\nc: |+\n  keep\n\n\nd: x\n");
    takes("a: |\n  x");
    takes("a: |\n  x\n  ");
    takes("a: \"\\t\\u00e9\\x41\\U0001F600\\N\\_\\L\\P\\0\\e\\/\\\\ \\\"\"\nb: yes\nc: 0x1F\nd: 017\ne: 1_000\nf: 1.0\ng: ~\nh:\ni: 2024-01-01\nyes: 1\n1: one\n");
    takes("a: x\n---\nb: y\n---\n---\n# only\n...\n");
    takes("ключ: значение ✓\nitems:\n- ä: 1\n");
    takes("args: [\"--a=1\", '--b', c, 2, yes]\nsel: { app: web, tier: [x, {y: 1.5}] }\ne: [ ]\n");
    takes("items:\n- a: [x, y]\n  items: {b: [1]}\n");
    takes("a: 'multi\n  line ''q''  \n\n  x'\nb: \"d\\u00e9\n  e\"\nr: :node:sum\n");
    takes("a: multi\n line\n\n   more \nb:\n  own\n  line\nitems:\n- one\n  two\n- k: v\n    w\n  x: 1\n");
}

#[test]
fn the_rest_is_declined() {
    for t in [
        "&x a: 1\n",
        "- &x a: 1\n",
        "items:\n- &x\n  a: 1\n",
        "items:\n- *x\n",
        "a: *x\n",
        "a: &x [*x]\n",
        "a: {b: &x 1}\n",
        "a: {<<: {b: 1}}\n",
        "a:\n  <<: 1\n",
        "a: &x 1\nb:\n  <<: *x\n",
        "? a\n  b\n: c\n",
        "? a\n",
        "? [a]\n: b\n",
        "a: !!str 1\n",
        "a: [1,\n  2]\n",
        "a: {b: 1,\n  c: 2}\n",
        "a: [1, 2,]\n",
        "a: {b}\n",
        "a: [b: 1]\n",
        "items: [a]\n",
        "- [a]\n",
        "{a: 1}\n",
        "a: multi\n  - line\n",
        "a: multi\n  li: ne\n",
        "- multi\n  line # c\n",
        "\"multi\n line\": x\n",
        "a:\n\t- x\n",
        "%YAML 1.1\n---\na: 1\n",
        "a: 1\na: 2\n",
        "a: .nan\n",
        "~: 1\n",
        "a: b: c\n",
        "a: - b\n",
        "- |\n  x\n",
    ] {
        declines(t);
    }
    // Deep nesting goes to saphyr, which refuses beyond its bound.
    declines(&"- ".repeat(1000));
}

#[test]
fn hand_picked_edges_agree() {
    for t in [
        "",
        "# c\n",
        "---\n",
        "--- null\n",
        "null\n",
        "plain\n",
        "\"q\"\n",
        "[]\n",
        "{}\n",
        "- \n- b\n",
        "items:\n-\n- b\n",
        "items:\n- a\n  b\n",
        "a: 'x'#c\n",
        "a: \"x\"  : y\n",
        "\"a\": 1\n'b' : 2\n",
        "\"a\":1\n",
        "a:b: c\n",
        "a #b: c\n",
        "-x: 1\n",
        "a: -\n",
        "a: |\n\n  x\n",
        "a: |\n    \n  x\n",
        "a: |\n  \tx\n",
        "a: |\n \tx\n",
        "a: |-\n  x\n\n",
        "a: |+\n  x\n\n  ",
        "a: >\n  a\n  b\n\n\n  c\n   d\n  e\n",
        "a: >+\n\n",
        "a: |\nb: 1\n",
        "- a: |\n    x\n  b: 2\n",
        "a:\n  - x\n  b: 1\n",
        "a:\n- x\nb: 1\n",
        "a:\n  x\nb: 1\n",
        "  a: 1\nb: 2\n",
        "a: 1\n...\n",
        "a: 1\n... # c\n",
        "a: \"\\q\"\n",
        "a: \"\\ud800\"\n",
        "a: x\t# c\n",
        "a: 'x' \t# c\n",
        "k: v\n \n\t\n",
        "- - - a\n    - b\n  - c\n- d\n",
        "items:\n  - a: 1\n  - b: 2\n",
        "kind: List\nitems:\n- kind: List\n  items: []\n- kind: List\n  items:\n  -   x: 1\n",
        "items: {}\n",
        "- [] # x\n- {}\n",
        "a: 1 # c\nb: 2 #c\nc: 3#c\n",
        "? \n",
        "a: ]\n",
        "a: ,x\n",
        "a: `x\n",
        "a: @x\n",
        "a: %x\n",
        "a: x,y[z]{w}\n",
        "- ---\n",
        "---x: 1\n",
        "a: 0é1F\nb: -0xé\n",
        "a: 0o17\nb: 0b101\nc: +.inf\nd: -0\ne: 1e400\nf: 18446744073709551616\n",
        "--- local\n...\n",
        "--- 'q'  # c\n",
        "--- [a, b]\n",
        "--- {a: 1}\n",
        "--- a: 1\n",
        "--- - a\n",
        "--- |\n  x\n",
        "--- a\n  b\n",
        "--- a\nb\n",
        "--- \"a\n  b\"\n",
        "--- &x a\n",
        "--- 1 # c\n",
        "- # c\n  a: 1\n- #c\n  b: 2\n",
        "a: # c\n  b: 1\nc:  #c\n- x\n",
        "a:#c\n",
        "- #c\n",
    ] {
        check(t);
    }
}

// ---- generated documents ----

#[derive(Clone, Debug)]
enum Node {
    Scalar(String),
    Block(String, Vec<String>),
    Map(Vec<(String, Node, bool)>),
    Seq(Vec<Node>, bool),
}

fn key() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "a",
        "b",
        "name",
        "items",
        "kind",
        "metadata",
        "spec",
        "a b",
        "\"items\"",
        "'q k'",
        "\"x:y\"",
        "yes",
        "1",
        "0x10",
        "1.5",
        "ключ",
        "k-8s.io/name",
        "-k",
        "~",
        "\"\"",
        "\"\\u00e9\"",
        "app.kubernetes.io/part-of",
        "a#b",
        "<<",
        "&k a",
        "*k",
    ])
    .prop_map(str::to_owned)
}

fn scalar() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "0",
        "-12",
        "+7",
        "0x1F",
        "017",
        "089",
        "1_000",
        "1.5",
        "1.0",
        "1e3",
        ".5",
        ".nan",
        ".inf",
        "-.Inf",
        "yes",
        "No",
        "on",
        "OFF",
        "y",
        "n",
        "true",
        "False",
        "~",
        "null",
        "NULL",
        "2024-01-01T00:00:00Z",
        "plain text",
        "a:b",
        "a #b",
        "http://x.y/z?q=1#f",
        "\"quoted \\t esc \\u00e9 \\x41\"",
        "'it''s'",
        "\"\"",
        "''",
        "ünïcode ✓",
        "[]",
        "{}",
        "-1",
        "-x",
        "a,b[c]{d}",
        "\"a: b\"",
        "' # no comment'",
        "\"\\\"\"",
        "x  ",
        "9223372036854775808",
        "18446744073709551615",
        "0.0000001",
        "'multi word'",
        "\"tab\there\"",
        "a'b",
        "a\"b",
        "*",
        "[a, b]",
        "[\"x\", 'y', 1, yes, ~]",
        "{a: 1, b: [x]}",
        "[a: b]",
        "{a, b: c}",
        "[a,]",
        "[ ]",
        "{ }",
        "[http://x:80/]",
        "{\"a\":1}",
        "[1, [2, {c: d}]]",
        "[a #c]",
        "[-1, -x, - ]",
        "{a: 1, a: 2}",
        "{ \"k\" : v }",
        "[a b, c  ]",
        "[,]",
        "[a,,b]",
        "{a: b: c}",
        "[a]:",
        "[.nan]",
        "{<<: x}",
        "[x] # c",
        "{yes: no, 1: 0x10}",
        "[a'b, \"c\\\"\"]",
        "{items: [a, {items: [b]}]}",
        // Multi-line: `\n` continues one column deeper than the collection, `\u{b}` at
        // its column (which ends the scalar).
        "multi\nline",
        "a\n\nb  \n  c",
        "x\n- y",
        "k\nv: w",
        "1\n2",
        "p\n#c",
        "p #c\nq",
        "end\u{b}next",
        "t\nu\n\n\nv",
        "\"q\nr\"",
        "'long\n  wrapped  \n\n text'",
        "\"esc\\t \n \\u00e9 \\\n x\"",
        "'a\u{b}b'",
        "\"x\n\"",
        "':' #",
        ":colon:sum",
        "?q",
        ":",
        "-:",
        // As PyYAML and ruamel write strings: quoted numbers and words, double quotes
        // with every escape, long strings folded, escaped line breaks (`\` at the end of a
        // line), an escaped space starting the next line, empty lines inside.
        "'123'",
        "'1.5'",
        "'yes'",
        "'0x10'",
        "\"true\"",
        "\"\\x41\\xe9\\u00e9\\U0001F600\\N\\_\\L\\P\\0\\a\\b\\v\\f\\r\\e\\/\\ \"",
        "\"abc \\\ndef\"",
        "\"a\\\n\\ b\"",
        "\"x \\\n\n y\"",
        "\"trail  \\\n  lead\"",
        "\"a\\\n\"",
        "\"\\\nstart\"",
        "\"one\\n\\\ntwo\\n\\\n\\nthree\"",
        "\"end \\\n\u{b}x\"",
        "\"\\\n\n\n\"",
        "\"folded over\nseveral lines \n  of text\"",
        "\"a  \n  \n  b\"",
        "'a  \n  \n  b'",
        "'it''s\n folded'",
        "'''\n'''",
        "\"\\t\\\n\\t\"",
        "\"bad \\q escape\"",
        "\"short \\x4\"",
        "&a x",
        "*a",
        "&a [x]",
        "!!str 1",
    ])
    .prop_map(str::to_owned)
}

fn block() -> impl Strategy<Value = Node> {
    let header = prop::sample::select(vec![
        "|", "|-", "|+", ">", ">-", ">+", "| # c", "|2", "|1", "|2-", "|-2", ">2+", ">+1", "|4",
        ">3", "|9", "|0", "|2 # c", "|22", "|-+",
    ]);
    let line = prop::sample::select(vec![
        "line",
        "  indented",
        "",
        "tab\there",
        "# not a comment",
        "x: y",
        "- z",
        "   ",
        " lead",
        "    deep",
        "     ",
    ]);
    (header, prop::collection::vec(line, 1..6))
        .prop_map(|(h, ls)| Node::Block(h.to_owned(), ls.into_iter().map(str::to_owned).collect()))
}

fn node() -> impl Strategy<Value = Node> {
    let leaf = prop_oneof![4 => scalar().prop_map(Node::Scalar), 1 => block()];
    leaf.prop_recursive(5, 48, 5, |inner| {
        prop_oneof![
            prop::collection::vec((key(), inner.clone(), any::<bool>()), 0..5).prop_map(Node::Map),
            (prop::collection::vec(inner, 0..4), any::<bool>()).prop_map(|(v, b)| Node::Seq(v, b)),
        ]
    })
}

/// A scalar's text with its line breaks indented for a collection at `indent`.
fn scalar_text(out: &mut String, s: &str, indent: usize) {
    for c in s.chars() {
        match c {
            '\n' => {
                out.push('\n');
                pad(out, indent + 1);
            }
            '\u{b}' => {
                out.push('\n');
                pad(out, indent);
            }
            c => out.push(c),
        }
    }
}

fn pad(out: &mut String, n: usize) {
    out.extend(std::iter::repeat_n(' ', n));
}

fn render_block(out: &mut String, header: &str, lines: &[String], indent: usize) {
    out.push(' ');
    out.push_str(header);
    out.push('\n');
    for l in lines {
        if !l.is_empty() {
            pad(out, indent);
            out.push_str(l);
        }
        out.push('\n');
    }
}

/// After `key:`; the mapping is at `indent`.
fn render_value(out: &mut String, v: &Node, indent: usize) {
    match v {
        Node::Scalar(s) => {
            out.push(' ');
            scalar_text(out, s, indent);
            out.push('\n');
        }
        Node::Block(h, ls) => render_block(out, h, ls, indent + 2),
        Node::Map(e) if e.is_empty() => out.push_str(" {}\n"),
        Node::Seq(e, _) if e.is_empty() => out.push_str(" []\n"),
        Node::Map(e) => {
            out.push('\n');
            render_map(out, e, indent + 2, false);
        }
        Node::Seq(e, indentless) => {
            out.push('\n');
            render_seq(out, e, if *indentless { indent } else { indent + 2 }, false);
        }
    }
}

/// `inline`: the first entry continues the current line (after `- `).
fn render_map(out: &mut String, entries: &[(String, Node, bool)], indent: usize, inline: bool) {
    for (i, (k, v, comment)) in entries.iter().enumerate() {
        if !(inline && i == 0) {
            if *comment {
                pad(out, indent);
                out.push_str("# note\n\n");
            }
            pad(out, indent);
        }
        out.push_str(k);
        out.push(':');
        render_value(out, v, indent);
    }
}

fn render_seq(out: &mut String, items: &[Node], indent: usize, inline: bool) {
    for (i, v) in items.iter().enumerate() {
        if !(inline && i == 0) {
            pad(out, indent);
        }
        out.push('-');
        match v {
            Node::Scalar(s) => {
                out.push(' ');
                scalar_text(out, s, indent);
                out.push('\n');
            }
            Node::Block(h, ls) => render_block(out, h, ls, indent + 2),
            Node::Map(e) if e.is_empty() => out.push_str(" {}\n"),
            Node::Seq(e, _) if e.is_empty() => out.push_str(" []\n"),
            Node::Map(e) => {
                out.push(' ');
                render_map(out, e, indent + 2, true);
            }
            Node::Seq(e, own_line) if *own_line => {
                out.push('\n');
                render_seq(out, e, indent + 2, false);
            }
            Node::Seq(e, _) => {
                out.push(' ');
                render_seq(out, e, indent + 2, true);
            }
        }
    }
}

fn document() -> impl Strategy<Value = String> {
    let list = prop::collection::vec(
        prop::collection::vec((key(), node(), any::<bool>()), 0..5),
        0..4,
    )
    .prop_map(|items| {
        let mut out = String::from("apiVersion: v1\nkind: List\nitems:\n");
        let items: Vec<Node> = items.into_iter().map(Node::Map).collect();
        render_seq(&mut out, &items, 0, false);
        out
    });
    let object = prop::collection::vec((key(), node(), any::<bool>()), 1..6).prop_map(|e| {
        let mut out = String::from("apiVersion: v1\nkind: ConfigMap\n");
        render_map(&mut out, &e, 0, false);
        out
    });
    let any_root = node().prop_map(|n| {
        let mut out = String::new();
        match &n {
            Node::Map(e) if !e.is_empty() => render_map(&mut out, e, 0, false),
            Node::Seq(e, _) if !e.is_empty() => render_seq(&mut out, e, 0, false),
            Node::Block(..) => {}
            Node::Scalar(s) => scalar_text(&mut out, s, 0),
            _ => out.push_str("{}\n"),
        }
        out
    });
    let doc = prop_oneof![3 => list, 3 => object, 1 => any_root];
    let prefix = prop::sample::select(vec!["", "---\n", "# c\n---\n", "--- # c\n", "\n"]);
    let suffix = prop::sample::select(vec!["", "...\n", "\n# end\n", "  \n"]);
    // Some documents with CRLF line ends (Windows editors, some tools' output).
    let crlf = prop::sample::select(vec![false, false, false, true]);
    (prefix, prop::collection::vec(doc, 1..3), suffix, crlf).prop_map(|(p, docs, s, crlf)| {
        let mut out = p.to_owned();
        out.push_str(&docs.join("---\n"));
        out.push_str(s);
        if crlf {
            out = out.replace('\n', "\r\n");
        }
        out
    })
}

/// Random edits at character boundaries with YAML-significant characters.
fn mutate(text: &str, edits: &[(usize, usize, u8)]) -> String {
    const CHARS: &[&str] = &[
        " ", "\n", ":", "-", "#", "\"", "'", "\t", "|", ">", "a", "[", "{", "&", "*", "!", "\\",
        "?", "%", ",", "  ", "- ", ": ", "\r", "\u{feff}", "é", "...\n", "---\n", "1",
    ];
    let mut s = text.to_owned();
    for &(at, what, op) in edits {
        if s.is_empty() {
            s.push('a');
        }
        let mut at = at % (s.len() + 1);
        while !s.is_char_boundary(at) {
            at -= 1;
        }
        let ins = CHARS[what % CHARS.len()];
        match op % 3 {
            0 => s.insert_str(at, ins),
            1 => {
                if let Some(c) = s[at..].chars().next() {
                    s.replace_range(at..at + c.len_utf8(), "");
                }
            }
            _ => {
                if let Some(c) = s[at..].chars().next() {
                    s.replace_range(at..at + c.len_utf8(), ins);
                }
            }
        }
    }
    s
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn generated_documents_agree(text in document()) {
        check(&text);
    }

    #[test]
    fn generated_documents_encode_the_same(text in document()) {
        same_bytes(&text);
    }

    #[test]
    fn edited_documents_encode_the_same(
        text in document(),
        edits in prop::collection::vec((any::<usize>(), any::<usize>(), any::<u8>()), 1..4),
    ) {
        same_bytes(&mutate(&text, &edits));
    }

    #[test]
    fn edited_documents_agree(
        text in document(),
        edits in prop::collection::vec((any::<usize>(), any::<usize>(), any::<u8>()), 1..4),
    ) {
        check(&mutate(&text, &edits));
    }
}

// ---- corpora ----

fn yaml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let Ok(ft) = e.file_type() else { continue };
        if ft.is_dir() {
            yaml_files(&p, out);
        } else if ft.is_file()
            && p.extension()
                .is_some_and(|x| x.eq_ignore_ascii_case("yaml") || x.eq_ignore_ascii_case("yml"))
        {
            out.push(p);
        }
    }
}

/// (taken, documents) over the YAML files under `dirs`.
fn check_dirs(dirs: &[PathBuf]) -> (usize, usize) {
    let mut files = Vec::new();
    for d in dirs {
        yaml_files(d, &mut files);
    }
    let (mut taken, mut total) = (0, 0);
    for f in &files {
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        let body = text.strip_prefix('\u{feff}').unwrap_or(&text);
        let (t, n) = check(body);
        taken += t;
        total += n;
    }
    (taken, total)
}

#[test]
fn corpora_agree() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut dirs = vec![
        root.join("tests/fixtures"),
        root.join("sample-cluster"),
        PathBuf::from("/work/shared/corpora"),
    ];
    if let Some(extra) = std::env::var_os("KUBESIFT_EQUIV_DIR") {
        dirs.push(PathBuf::from(extra));
    }
    let (taken, total) = check_dirs(&dirs);
    println!(
        "fast path took {taken} of {total} YAML documents ({:.1} %) in {dirs:?}",
        100.0 * taken as f64 / total.max(1) as f64
    );
    assert!(total > 0);
}

#[test]
fn generated_corpus_is_mostly_fast() {
    let (files, _) = gen_corpus::corpus(3000, 7);
    let (mut taken, mut total) = (0, 0);
    for f in files
        .iter()
        .filter(|f| f.format != gen_corpus::Format::JsonList)
    {
        let (t, n) = check(&f.text);
        taken += t;
        total += n;
    }
    let share = taken as f64 / total.max(1) as f64;
    println!(
        "fast path took {taken} of {total} generated YAML documents ({:.1} %)",
        100.0 * share
    );
    assert!(share >= 0.95, "{taken} of {total}");
}

/// The byte comparison is not vacuous: the generated corpus reaches it for most documents,
/// hand-written unsorted keys included.
#[test]
fn generated_corpus_encodes_the_same() {
    let (files, _) = gen_corpus::corpus(1000, 3);
    let compared: usize = files
        .iter()
        .filter(|f| f.format != gen_corpus::Format::JsonList)
        .map(|f| same_bytes(&f.text))
        .sum();
    assert!(compared >= 500, "{compared}");
    let unsorted = "kind: Pod\napiVersion: v1\nmetadata:\n  name: a\n  labels: {z: 1, a: [x, {c: 1, b: 2}]}\nspec: {}\n";
    assert_eq!(same_bytes(unsorted), 1);
}

/// The generated documents exercise the fast path, not only the fallback.
#[test]
fn generated_documents_mostly_reach_the_fast_path() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = document();
    let (mut taken, mut total) = (0, 0);
    for _ in 0..500 {
        let Ok(tree) = strategy.new_tree(&mut runner) else {
            continue;
        };
        let (t, n) = check(&tree.current());
        taken += t;
        total += n;
    }
    println!("fast path took {taken} of {total} generated documents");
    assert!(taken * 4 >= total, "{taken} of {total}");
}

// ---- one construct at a time: what PyYAML, ruamel, kubectl and editors write ----

/// Pieces of a double-quoted scalar as written: text, blanks, line breaks (each followed by
/// an indentation from `indent()`), escaped line breaks, every escape, a few invalid ones.
fn double_piece() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "a",
        "word",
        "é✓",
        " ",
        "  ",
        "\n",
        "\n\n",
        "\\\n",
        "\\ ",
        "\\t",
        "\\x41",
        "\\xe9",
        "\\u00e9",
        "\\u2028",
        "\\U0001F600",
        "\\N",
        "\\_",
        "\\L",
        "\\P",
        "\\0",
        "\\e",
        "\\\"",
        "\\\\",
        "\\/",
        "'",
        "#",
        " #",
        ":",
        ": ",
        " - ",
        "\t",
        "\\q",
        "\\x4",
        "\\uD800",
    ])
}

fn single_piece() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "a", "word", "é✓", " ", "  ", "\n", "\n\n", "''", "\\", "\"", "#", " #", ": ", "\t", "123",
        "yes",
    ])
}

/// Indentation of a continuation line, around the mapping's column (2) that holds the
/// scalar: less than it, equal (both errors), one deeper, deeper still.
fn indent() -> impl Strategy<Value = usize> {
    prop::sample::select(vec![0usize, 2, 3, 3, 3, 4, 6])
}

/// A quoted scalar from pieces as the value of `k`, in a mapping at column 2, followed by
/// a sibling, then a key back at the root: value, end and positions are compared.
fn quoted_doc(quote: char, pieces: &[(&str, usize)], item: bool) -> String {
    let mut out = String::from("kind: List\nitems:\n");
    out.push_str(if item { "- " } else { "- a: 1\n  " });
    out.push_str("k: ");
    out.push(quote);
    for (p, ind) in pieces {
        for c in p.chars() {
            out.push(c);
            if c == '\n' {
                pad(&mut out, *ind);
            }
        }
    }
    out.push(quote);
    out.push_str("\n  z: 1\nafter: x\n");
    out
}

/// A block scalar from a header and lines (indentation, content) as the value of `k` in a
/// mapping at column 2, then a sibling or the end of the text.
fn block_doc(header: &str, lines: &[(usize, &str)], sibling: bool) -> String {
    let mut out = String::from("top:\n  k: ");
    out.push_str(header);
    out.push('\n');
    for (ind, l) in lines {
        pad(&mut out, *ind);
        out.push_str(l);
        out.push('\n');
    }
    if sibling {
        out.push_str("  z: 1\n");
    }
    out
}

fn block_header() -> impl Strategy<Value = String> {
    let style = prop::sample::select(vec!["|", ">"]);
    let chomp = prop::sample::select(vec!["", "", "-", "+"]);
    let ind = prop::sample::select(vec!["", "", "1", "2", "3", "4"]);
    let tail = prop::sample::select(vec!["", "", " # c", "  "]);
    (style, chomp, ind, any::<bool>(), tail).prop_map(|(s, c, i, swap, t)| {
        if swap {
            format!("{s}{i}{c}{t}")
        } else {
            format!("{s}{c}{i}{t}")
        }
    })
}

fn block_line() -> impl Strategy<Value = (usize, &'static str)> {
    let text = prop::sample::select(vec!["x", "more text", "", "", " lead", "# c", "\tt", "- z"]);
    (
        prop::sample::select(vec![0usize, 2, 3, 4, 4, 4, 5, 6, 7]),
        text,
    )
}

/// Share of documents the fast path takes among those saphyr parses, over `n` generated.
fn taken_share<S: Strategy<Value = String>>(s: S, n: usize) -> (usize, usize) {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let (mut taken, mut valid) = (0, 0);
    for _ in 0..n {
        let Ok(tree) = s.new_tree(&mut runner) else {
            continue;
        };
        for p in yaml_equivalence_probe(&tree.current()) {
            if p.saphyr.is_ok() {
                valid += 1;
                taken += usize::from(p.fast.is_some());
            }
        }
    }
    (taken, valid)
}

fn double_quoted() -> impl Strategy<Value = String> {
    (
        prop::collection::vec((double_piece(), indent()), 0..12),
        any::<bool>(),
    )
        .prop_map(|(p, item)| quoted_doc('"', &p, item))
}

fn single_quoted() -> impl Strategy<Value = String> {
    (
        prop::collection::vec((single_piece(), indent()), 0..12),
        any::<bool>(),
    )
        .prop_map(|(p, item)| quoted_doc('\'', &p, item))
}

fn block_scalar() -> impl Strategy<Value = String> {
    (
        block_header(),
        prop::collection::vec(block_line(), 1..6),
        any::<bool>(),
    )
        .prop_map(|(h, ls, sib)| block_doc(&h, &ls, sib))
}

/// A generated document with CRLF line ends, and a lone CR now and then.
fn crlf_document() -> impl Strategy<Value = String> {
    (document(), any::<u8>()).prop_map(|(d, lone)| {
        let mut d = d.replace("\r\n", "\n").replace('\n', "\r\n");
        if lone < 16 {
            if let Some(at) = d.find("\r\n") {
                d.replace_range(at..at + 2, "\r");
            }
        }
        d
    })
}

/// Mapping entries whose values are plain scalars on one line (the scanner's shortcut for
/// `key: value`), and what may follow them: trailing blanks, comments, continuation lines
/// at every indentation, blank lines, tabs, list items, the end without a line break.
fn plain_entries() -> impl Strategy<Value = String> {
    let value = prop::sample::select(vec![
        "x",
        "a b",
        "a  b",
        "1",
        "-1",
        "0x1F",
        "yes",
        "~",
        "null",
        ".nan",
        ".inf",
        "1e3",
        "x:y",
        "x: y",
        "a #b",
        "a#b",
        "\u{e9}t\u{e9}",
        "x\ty",
        "'q'",
        "-",
        "- x",
        "?x",
        ":x",
        "x:",
        "[a]",
        "&a x",
        "*a",
        "!t x",
        "",
        "True",
        "2026-01-22T01:23:19Z",
        "catalog-184",
        // A value seen before (and guessed next time), then longer texts starting with it.
        "abc",
        "abc",
        "abc def",
        "abc:d",
        "abc: d",
        "abc#d",
        "abc #d",
        "abcd",
        "abc\td",
    ]);
    let sep = prop::sample::select(vec![" ", "  ", "\t", ""]);
    let tail = prop::sample::select(vec!["", " ", "  # c", "\t", " #c", "#c"]);
    let next = prop::sample::select(vec![
        "",
        "",
        "",
        "\n",
        " \n",
        "\t\n",
        "# c\n",
        "  # c\n",
        "  cont\n",
        " cont\n",
        "   cont\n",
        "   cont: x\n",
        "  - x\n",
        "- x\n",
        "\tx\n",
        "...\n",
    ]);
    let entry = (sep, value, tail, next);
    (
        prop::collection::vec(entry, 1..6),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(entries, nested, final_break)| {
            let (mut out, pad) = if nested {
                ("m:\n".to_owned(), "  ")
            } else {
                (String::new(), "")
            };
            for (i, (sep, value, tail, next)) in entries.iter().enumerate() {
                out.push_str(&format!("{pad}k{i}:{sep}{value}{tail}\n{next}"));
            }
            if !final_break {
                out.pop();
            }
            out
        })
}

/// Streams of small documents over few keys, written plainly, quoted, with a blank before
/// the colon, resolving to other scalars or not keys at all: the scanner guesses each key
/// from the key that came before it (in this and earlier documents), so a key must read
/// the same whether it was guessed or scanned.
fn guessed_keys() -> impl Strategy<Value = String> {
    let key = prop::sample::select(vec![
        "a", "b", "a b", "yes", "'yes'", "\"a\"", "a ", "1", "0x1", "a:b", "-a", ".a", "...", "~",
        "ab", "a#", "a\t", "é",
    ]);
    let sep = prop::sample::select(vec![": ", ":\n", ":", ": x\n  ", ":\t"]);
    let doc = prop::collection::vec((key, sep, 0usize..2), 1..5);
    prop::collection::vec(doc, 1..5).prop_map(|docs| {
        let mut out = String::new();
        for d in docs {
            out.push_str("---\n");
            for (key, sep, indent) in d {
                let pad = if indent == 1 && !out.ends_with("---\n") {
                    "  "
                } else {
                    ""
                };
                out.push_str(&format!("{pad}{key}{sep}1\n"));
            }
        }
        out
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn guessed_keys_agree(text in guessed_keys()) {
        check(&text);
        same_bytes(&text);
    }

    #[test]
    fn plain_entry_values_agree(text in plain_entries()) {
        check(&text);
        same_bytes(&text);
    }

    #[test]
    fn double_quoted_scalars_agree(text in double_quoted()) {
        check(&text);
        same_bytes(&text);
    }

    #[test]
    fn single_quoted_scalars_agree(text in single_quoted()) {
        check(&text);
        same_bytes(&text);
    }

    #[test]
    fn block_scalars_agree(text in block_scalar()) {
        check(&text);
        same_bytes(&text);
    }

    #[test]
    fn crlf_documents_agree(text in crlf_document()) {
        check(&text);
        same_bytes(&text);
    }
}

/// The construct generators are not vacuous: the fast path takes most of what saphyr
/// parses (a decline is allowed, a difference is not).
#[test]
fn construct_generators_reach_the_fast_path() {
    // Raw tabs inside quotes and empty block scalars are declined (no tool writes them):
    // the generators make many of both.
    for (name, (taken, valid), tenths) in [
        ("double-quoted", taken_share(double_quoted(), 400), 7),
        ("single-quoted", taken_share(single_quoted(), 400), 7),
        ("block scalar", taken_share(block_scalar(), 400), 5),
        ("crlf", taken_share(crlf_document(), 400), 7),
        ("plain entries", taken_share(plain_entries(), 400), 2),
        ("guessed keys", taken_share(guessed_keys(), 400), 1),
    ] {
        println!("{name}: fast path took {taken} of {valid} valid documents");
        assert!(valid >= 50, "{name}: {valid} valid");
        assert!(taken * 10 >= valid * tenths, "{name}: {taken} of {valid}");
    }
}

#[test]
fn tool_styles_are_taken() {
    // PyYAML: a long string folded with escaped line breaks, escapes, a quoted number.
    takes("data:\n  key: \"first line\\nsecond line with a long text that PyYAML folds at\\\n    \\ eighty columns \\xE9\\u2028\\U0001F600\"\n  n: '8080'\n  s: 'a long single quoted\n    string folded'\n");
    // kubectl / go-yaml: an indentation indicator before content starting with a space.
    takes("data:\n  script: |2\n     indented first line\n    next\n  other: |4-\n        x\n\n");
    takes("a: >2+\n   x\n\n");
    // CRLF, with comments, quoted folds and block scalars.
    takes("# c\r\napiVersion: v1\r\nkind: List\r\nitems:\r\n- a: \"x\r\n    y\" # c\r\n  b: |\r\n    l1\r\n\r\n    l2\r\n- 'q'\r\n");
    takes("---\r\na: 1\r\n...\r\n");
    // ruamel's root scalar on the marker line; a comment after a dash or a key.
    takes("--- local\n...\n");
    takes("ports:\n  - # why this port\n    # matters\n    name: metrics\n    port: 9400\nsel: # c\n  a: b\n");
    // A long key folded over lines by PyYAML / ruamel.
    takes("DNSError:\n  ? 'kubernetes-default-service-cluster: failure looking up host api-int.example.com:\n    dial tcp: server misbehaving'\n  : '2021-07-12T23:20:25+02:00'\n");
}

#[test]
fn declines_name_their_reason() {
    use kubesift::model::load::Decline;
    for (text, why) in [
        ("&x a: 1\n", Decline::Anchor),
        ("a: *x\n", Decline::Alias),
        ("a: !!str 1\n", Decline::Tag),
        ("b: {a: 1}\nc:\n  <<: 1\n", Decline::MergeKey),
        ("? a\n  b\n: c\n", Decline::ComplexKey),
        ("a: [1,\n  2]\n", Decline::FlowLines),
        ("%YAML 1.1\n---\na: 1\n", Decline::Directive),
        ("a:\n\t- x\n", Decline::Tab),
        ("a: 1\rb: 2\n", Decline::CarriageReturn),
        ("a: 1\na: 2\n", Decline::DuplicateKey),
        ("a: .nan\n", Decline::Value),
    ] {
        let p = yaml_equivalence_probe(text);
        assert_eq!(p.len(), 1, "{text:?}");
        assert_eq!(p[0].declined, Some(why), "{text:?}");
    }
}

// ---- anchors, aliases, merge keys, explicit keys ----

/// A value an anchor is put on (`{a}`: an anchor name, so aliases nest and redefine).
fn anchor_value() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "1",
        "x",
        "\"q\\u00e9\"",
        "''",
        "{a: 1, b: 2}",
        "{c: x, a: [1, 2]}",
        "[1, *{a}]",
        "[*{a}, *{a}]",
        "\n  a: 1\n  b: *{a}",
        "\n  c: 3\n  <<: *{a}",
        "\n  a: &{a} 9\n  d: *{a}",
        "\n- x\n- *{a}",
        "\n  - y",
        "",
        " # c",
        "|\n  text\n",
        "{}",
        "[]",
        "yes",
    ])
}

/// What a merge key is given.
fn merge_value() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "*{a}",
        "*{a}",
        "[*{a}, *{b}]",
        "[*{a}]",
        "{a: 5, e: 6}",
        "\n    a: 7\n    f: 8",
        "",
        "x",
        "[*{a}, x]",
        "*{a} # c",
        "&{b} {a: 1}",
    ])
}

/// One top-level entry of a generated document with anchors.
#[derive(Clone, Debug)]
enum Entry {
    /// `kN: &name value`.
    Define(usize, &'static str),
    /// `kN: *name` (or as a list item).
    Use(usize, bool),
    /// A mapping with explicit keys around merge keys.
    Merge(Vec<(bool, usize)>, Vec<&'static str>, usize),
    /// `? key` / `: value`.
    Explicit(&'static str, &'static str),
}

const ANCHORS: [&str; 3] = ["a0", "b.1", "id001"];

fn entry() -> impl Strategy<Value = Entry> {
    prop_oneof![
        3 => (0..3usize, anchor_value()).prop_map(|(n, v)| Entry::Define(n, v)),
        3 => (0..3usize, any::<bool>()).prop_map(|(n, l)| Entry::Use(n, l)),
        3 => (
            prop::collection::vec((any::<bool>(), 0..4usize), 0..4),
            prop::collection::vec(merge_value(), 1..3),
            0..3usize,
        )
            .prop_map(|(k, m, n)| Entry::Merge(k, m, n)),
        1 => (explicit_key(), explicit_value()).prop_map(|(k, v)| Entry::Explicit(k, v)),
    ]
}

fn explicit_key() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "''",
        "\"\"",
        "x",
        "'a b'",
        "\"\\u00e9\"",
        "1",
        "yes",
        "~",
        "<<",
        "items",
        "a\n  b",
        "",
        "[a]",
        "{a: 1}",
        "k: v",
        "a # c",
        "*{a}",
        "&{a} k",
        "'long key\n  folded'",
        "'at\nthe column'",
        "\"esc \\\n  \\ aped\"",
        "\"a\n\n   b\" # c",
        "'x'  # c",
    ])
}

fn explicit_value() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        ": v",
        ": traceparent: 00-ab-cd-01\n  other: x",
        ": - a\n  - b",
        ":\n  k: v",
        ":",
        ": 'q'",
        ": [1, 2]",
        ": |\n  x",
        ":\n- a",
        "",
        ": k: v\n   w: 1",
        "# c\n: v",
        ": *{a}",
    ])
}

/// Writes `s` with `{a}` and `{b}` replaced by anchor names and every line break followed
/// by `indent` more spaces.
fn fill(out: &mut String, s: &str, n: usize, indent: usize) {
    let s = s
        .replace("{a}", ANCHORS[n % 3])
        .replace("{b}", ANCHORS[(n + 1) % 3]);
    for c in s.chars() {
        out.push(c);
        if c == '\n' {
            pad(out, indent);
        }
    }
}

/// A document from entries, at the root or (`in_list`) inside a `List`'s item; with
/// `prelude`, every anchor is first defined as a mapping (most aliases and merges are then
/// valid).
fn anchored_doc(entries: &[Entry], in_list: bool, prelude: bool) -> String {
    let indent = if in_list { 2 } else { 0 };
    let mut out = String::new();
    if in_list {
        out.push_str("kind: List\nitems:\n- kind: Pod\n");
    }
    if prelude {
        for (i, def) in [" {a: 0, c: 0}", "\n  b: 1\n  a: 1", " {c: 2, d: [x]}"]
            .iter()
            .enumerate()
        {
            pad(&mut out, indent);
            out.push_str(&format!("p{i}: &{}", ANCHORS[i]));
            fill(&mut out, def, 0, indent);
            out.push('\n');
        }
    }
    for (i, e) in entries.iter().enumerate() {
        pad(&mut out, indent);
        match e {
            Entry::Define(n, v) => {
                out.push_str(&format!("k{i}: &{} ", ANCHORS[*n]));
                fill(&mut out, v, *n + 1, indent);
            }
            Entry::Use(n, false) => out.push_str(&format!("k{i}: *{}", ANCHORS[*n])),
            Entry::Use(n, true) => {
                out.push_str(&format!("k{i}:\n"));
                pad(&mut out, indent);
                out.push_str(&format!("- *{}\n", ANCHORS[*n]));
                pad(&mut out, indent);
                out.push_str("- z");
            }
            Entry::Merge(keys, merges, n) => {
                out.push_str(&format!("k{i}:"));
                let mut merges = merges.iter();
                for (merge_first, k) in keys.iter().copied().chain([(true, 0)]) {
                    if merge_first {
                        if let Some(m) = merges.next() {
                            out.push('\n');
                            pad(&mut out, indent + 2);
                            out.push_str("<<: ");
                            fill(&mut out, m, *n, indent);
                        }
                    }
                    if k > 0 {
                        out.push('\n');
                        pad(&mut out, indent + 2);
                        out.push_str(&format!("{}: {k}", ["a", "b", "c"][k % 3]));
                    }
                }
            }
            Entry::Explicit(k, v) => {
                out.push_str("? ");
                fill(&mut out, k, 0, indent);
                out.push('\n');
                pad(&mut out, indent);
                fill(&mut out, v, 0, indent);
            }
        }
        out.push('\n');
    }
    out
}

fn anchored_document() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(entry(), 1..7),
        any::<bool>(),
        prop::sample::select(vec![true, true, true, false]),
    )
        .prop_map(|(e, in_list, prelude)| anchored_doc(&e, in_list, prelude))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// Anchors (redefined, nested, on every kind of node), aliases (known, unknown, to an
    /// open node, in flow sequences), merge keys (aliases, lists of them, mappings in
    /// place, invalid values, explicit keys before and after) and explicit keys: the fast
    /// path agrees with saphyr's path or declines.
    #[test]
    fn anchors_aliases_and_merges_agree(text in anchored_document()) {
        check(&text);
        same_bytes(&text);
    }
}

#[test]
fn anchored_generator_reaches_the_fast_path() {
    let (taken, valid) = taken_share(anchored_document(), 400);
    println!("anchors: fast path took {taken} of {valid} valid documents");
    assert!(valid >= 150, "{valid} valid");
    assert!(taken * 10 >= valid * 7, "{taken} of {valid}");
}

#[test]
fn anchors_aliases_merges_and_explicit_keys_are_taken() {
    // Hand-written Helm values and CI files: defaults merged into each environment.
    takes("defaults: &defaults\n  replicas: 2\n  image: nginx\n  env: [{name: A, value: '1'}]\ndev:\n  <<: *defaults\n  replicas: 1\nprod:\n  replicas: 5\n  <<: *defaults\nboth:\n  <<: [*defaults, {image: x, extra: y}]\n");
    takes("labels: &l {app: web, tier: fe}\nspec:\n  selector:\n    matchLabels: *l\n  template:\n    metadata:\n      labels: *l\n    spec:\n      containers:\n      - &c\n        name: a\n        image: x\n      - *c\n");
    takes("a: &x 1\nb: *x\nc: &x two\nd: [*x, *x]\ne: &s\n- p\n- q\nf: *s\ng: &e\nh: *e\n");
    takes("a: &x\n  b: &x 1\n  c: *x\nd: *x\n");
    // PyYAML's explicit keys: empty and long keys, a compact mapping as the value.
    takes("status:\n  phaseTraceIDs:\n    ? ''\n    : traceparent: 00-ecdd-d566-01\n    AppDeploy:\n      traceparent: 00-ecdd-0ae5-01\n");
    takes("? \"a key longer than PyYAML writes as a simple key\"\n: - x\n  - y\n? b\n: c\nd: e\n");
    // kubectl-style List items keep their positions around anchors deeper down.
    takes("kind: List\nitems:\n- kind: Pod\n  a: &x {p: 1}\n  b:\n    <<: *x\n    q: 2\n- kind: Pod\n  c: *x\n");
}

#[test]
fn alias_bounds_still_apply() {
    // The node budget: ten levels of ten aliases each.
    let mut bomb = String::from("a: &a [x,x,x,x,x,x,x,x,x,x]\n");
    for i in 1..9u8 {
        let (name, prev) = ((b'a' + i) as char, (b'a' + i - 1) as char);
        let refs = vec![format!("*{prev}"); 10].join(",");
        bomb.push_str(&format!("{name}: &{name} [{refs}]\n"));
    }
    // The output bound: a chain nesting each alias in the one before.
    let chain = |levels: usize| {
        let mut t = String::from("l0: &l0 x\n");
        for i in 1..levels {
            t.push_str(&format!("l{i}: &l{i} [*l{}]\n", i - 1));
        }
        t
    };
    for text in [bomb, chain(900)] {
        let p = yaml_equivalence_probe(&text);
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].fast, None, "fast path took a bomb");
        assert_eq!(p[0].saphyr, Err(vec!["alias-bomb"]));
    }
    takes(&chain(100));
}
