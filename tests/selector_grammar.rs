//! One case per grammar rule (and per quirk) of `labels.Parse` and `fields.ParseSelector`,
//! the expected normalized string or exact error taken from a Go harness running
//! apimachinery's parser code.

use kubesift::selector::{parse_fields, parse_labels};

const LABELS: &[(&str, Result<&str, &str>)] = &[
    ("", Ok("")),
    (" \t\r\n ", Ok("")),
    ("a", Ok("a")),
    ("!a", Ok("!a")),
    ("a,b", Ok("a,b")),
    ("b,a", Ok("a,b")),
    ("a=b", Ok("a=b")),
    ("a==b", Ok("a==b")),
    ("a!=b", Ok("a!=b")),
    ("a = b", Ok("a=b")),
    ("a in (b)", Ok("a in (b)")),
    ("a notin (b)", Ok("a notin (b)")),
    ("a in(b,c)", Ok("a in (b,c)")),
    ("a in ( c , b , c )", Ok("a in (b,c)")),
    ("a in ()", Ok("a in ()")),
    ("a in (,)", Ok("a in ()")),
    ("a in (,b)", Ok("a in (,b)")),
    ("a in (b,)", Ok("a in (,b)")),
    ("a in (b,,c)", Ok("a in (,b,c)")),
    ("a in (b,,)", Err("unable to parse requirement: found ')', expected: ',', or identifier")),
    ("a in (,,)", Err("unable to parse requirement: found ')', expected: ',', or identifier")),
    ("a in (,,,)", Ok("a in ()")),
    ("a in b", Err("unable to parse requirement: found 'b' expected: '('")),
    ("a in (b", Err("unable to parse requirement: found '', expected: ',' or ')'")),
    ("a in (b c)", Err("unable to parse requirement: found 'c', expected: ',' or ')'")),
    ("a>1", Ok("a>1")),
    ("a<1", Ok("a<1")),
    ("a>-1", Err("unable to parse requirement: values[0][a]: Invalid value: \"-1\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")),
    ("a>01", Ok("a>01")),
    ("a>1.5", Err("unable to parse requirement: values[0]: Invalid value: \"1.5\": for 'Gt', 'Lt' operators, the value must be an integer")),
    ("a>b", Err("unable to parse requirement: values[0]: Invalid value: \"b\": for 'Gt', 'Lt' operators, the value must be an integer")),
    ("a>", Err("unable to parse requirement: values[0]: Invalid value: \"\": for 'Gt', 'Lt' operators, the value must be an integer")),
    ("a gt 1", Err("unable to parse requirement: found 'gt', expected: in, notin, =, ==, !=, gt, lt")),
    ("a=", Ok("a=")),
    ("a=,b", Ok("a=,b")),
    ("a,", Err("found '', expected: identifier after ','")),
    (",a", Err("found ',', expected: !, identifier, or 'end of string'")),
    ("a,,b", Err("found ',', expected: identifier after ','")),
    ("!", Err("unable to parse requirement: found '', expected: identifier")),
    ("!!a", Err("unable to parse requirement: found '!', expected: identifier")),
    ("!a=b", Err("found '=', expected: ',' or 'end of string'")),
    ("a!", Err("unable to parse requirement: found '!', expected: in, notin, =, ==, !=, gt, lt")),
    ("a=b=c", Err("found '=', expected: ',' or 'end of string'")),
    ("a b", Err("unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt")),
    ("in", Ok("in")),
    ("notin", Ok("notin")),
    ("in in (in)", Ok("in in (in)")),
    ("notin notin (notin)", Ok("notin notin (notin)")),
    ("x in (in, notin)", Ok("x in (in,notin)")),
    ("a=(b)", Err("unable to parse requirement: found '(', expected: identifier")),
    ("a=)", Err("unable to parse requirement: found ')', expected: identifier")),
    ("a==", Ok("a==")),
    ("a!==b", Err("unable to parse requirement: found '=', expected: identifier")),
    ("a=!b", Err("unable to parse requirement: found '!', expected: identifier")),
    ("a<=1", Err("unable to parse requirement: found '=', expected: identifier")),
    ("a=>1", Err("unable to parse requirement: found '>', expected: identifier")),
    ("example.com/a=b", Ok("example.com/a=b")),
    ("Example.com/a", Err("unable to parse requirement: <nil>: Invalid value: \"Example.com/a\": prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")),
    ("/a", Err("unable to parse requirement: <nil>: Invalid value: \"/a\": prefix part must be non-empty")),
    ("a/", Err("unable to parse requirement: <nil>: Invalid value: \"a/\": name part must be non-empty; name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")),
    ("a/b/c", Err("unable to parse requirement: <nil>: Invalid value: \"a/b/c\": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')")),
    ("-a", Err("unable to parse requirement: <nil>: Invalid value: \"-a\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")),
    ("a-", Err("unable to parse requirement: <nil>: Invalid value: \"a-\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")),
    ("a_b.c-d", Ok("a_b.c-d")),
    ("é=1", Err("unable to parse requirement: <nil>: Invalid value: \"é\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")),
    ("a=é", Err("unable to parse requirement: values[0][a]: Invalid value: \"é\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")),
    ("環", Err("unable to parse requirement: <nil>: Invalid value: \"環\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")),
    ("a\u{0}b", Err("unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt")),
    ("a \u{0} b!!!", Ok("a")),
    ("\u{0}", Ok("")),
    ("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", Ok("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")),
    ("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", Err("unable to parse requirement: <nil>: Invalid value: \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\": name part must be no more than 63 characters")),
    ("bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb.bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb.bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb.bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb./x", Err("unable to parse requirement: <nil>: Invalid value: \"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb.bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb.bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb.bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb./x\": prefix part must be no more than 253 characters; prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")),
    ("a=vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv", Err("unable to parse requirement: values[0][a]: Invalid value: \"vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv\": must be no more than 63 characters")),
    ("a=vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv", Ok("a=vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv")),
    ("a in (vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv,-w)", Err("unable to parse requirement: [values[0][a]: Invalid value: \"-w\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?'), values[1][a]: Invalid value: \"vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv\": must be no more than 63 characters]")),
    ("a=b,a=c,a!=d", Ok("a=b,a=c,a!=d")),
    ("a=\t\n b", Ok("a=b")),
    ("a\tin\t(\tb\t)", Ok("a in (b)")),
    ("a ,b", Ok("a,b")),
    ("a, b", Ok("a,b")),
    ("a\u{200b}", Err("unable to parse requirement: <nil>: Invalid value: \"a\\u200b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")),
    ("a=\"b\"", Err("unable to parse requirement: values[0][a]: Invalid value: \"\\\"b\\\"\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")),
    ("a in (b)c", Err("found 'c', expected: ',' or 'end of string'")),
    ("a in (b),", Err("found '', expected: identifier after ','")),
    ("a=b,", Err("found '', expected: identifier after ','")),
    ("a=b,,c", Err("found ',', expected: identifier after ','")),
];

const FIELDS: &[(&str, Result<&str, &str>)] = &[
    ("", Ok("")),
    ("=", Ok("")),
    ("!=", Ok("")),
    ("a", Err("invalid selector: 'a'; can't understand 'a'")),
    ("a=", Ok("a=")),
    ("a=b", Ok("a=b")),
    ("a==b", Ok("a=b")),
    ("a!=b", Ok("a!=b")),
    ("b=1,a=2", Ok("a=2,b=1")),
    (
        "a=b,c",
        Err("invalid selector: 'a=b,c'; can't understand 'c'"),
    ),
    (
        "a=b=c",
        Err("invalid field selector: unescaped character in value: 61"),
    ),
    ("a=b\\,c", Ok("a=b\\,c")),
    ("a=b\\=c", Ok("a=b\\=c")),
    ("a=b\\\\c", Ok("a=b\\\\c")),
    (
        "a=b\\",
        Err("invalid field selector: invalid escape sequence: \\"),
    ),
    (
        "a=b\\x",
        Err("invalid field selector: invalid escape sequence: \\x"),
    ),
    ("a=,=b", Ok("=b,a=")),
    (",", Ok("")),
    (",,", Ok("")),
    ("a=b,,c=d", Ok("a=b,c=d")),
    ("=b", Ok("=b")),
    ("!=b", Ok("!=b")),
    (
        "a!b",
        Err("invalid selector: 'a!b'; can't understand 'a!b'"),
    ),
    ("a=!b", Ok("a=!b")),
    (
        "a===b",
        Err("invalid field selector: unescaped character in value: 61"),
    ),
    (
        "a!==b",
        Err("invalid field selector: unescaped character in value: 61"),
    ),
    ("metadata.name=é", Ok("metadata.name=é")),
    (
        "a=\\é",
        Err("invalid field selector: invalid escape sequence: \\é"),
    ),
    ("a=b,a==b", Ok("a=b,a=b")),
    (" a = b ", Ok(" a = b ")),
    ("a=b\\,", Ok("a=b\\,")),
    ("\\,=a", Ok("\\,=a")),
];

#[test]
fn label_grammar() {
    let mut failures = Vec::new();
    for (input, want) in LABELS {
        let got = parse_labels(input)
            .map(|s| s.to_string())
            .map_err(|e| e.message);
        let want = want.map(str::to_string).map_err(str::to_string);
        if got != want {
            failures.push(format!("{input:?}\n  want {want:?}\n  got  {got:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn field_grammar() {
    let mut failures = Vec::new();
    for (input, want) in FIELDS {
        let got = parse_fields(input)
            .map(|s| s.to_string())
            .map_err(|e| e.message);
        let want = want.map(str::to_string).map_err(str::to_string);
        if got != want {
            failures.push(format!("{input:?}\n  want {want:?}\n  got  {got:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
