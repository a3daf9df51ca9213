//! `kubesift completions SHELL` and `kubesift man`: scripts a shell accepts and that
//! complete resource types from the kind table; a manual page with the extra sections.

use std::process::Command;

fn kubesift(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_kubesift"))
        .args(args)
        .output()
        .expect("run kubesift");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

/// Whether `program` runs; under CI it must.
fn have(program: &str) -> bool {
    let found = Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var("CI").as_deref() != Ok("true") || program != "bash",
            "{program} is required in CI"
        );
        eprintln!("skipping the {program} part: {program} is not installed");
    }
    found
}

/// What bash's completion function offers for the command line `words` (the last word is
/// the one being completed), as bash itself would call it on TAB.
fn bash_complete(script: &std::path::Path, words: &[&str]) -> (Vec<String>, String) {
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let cword = words.len() - 1;
    let program = format!(
        "source '{script}' || exit 9\n\
         COMP_WORDS=({words})\n\
         COMP_CWORD={cword}\n\
         COMP_LINE=\"${{COMP_WORDS[*]}}\"\n\
         COMP_POINT=${{#COMP_LINE}}\n\
         _kubesift kubesift \"${{COMP_WORDS[COMP_CWORD]}}\" \"${{COMP_WORDS[COMP_CWORD-1]}}\"\n\
         printf '%s\\n' \"${{COMPREPLY[@]}}\"\n",
        script = script.display(),
        words = quoted.join(" "),
    );
    let out = Command::new("bash")
        .args(["--norc", "--noprofile", "-c", &program])
        .output()
        .expect("run bash");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let offered = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect();
    (offered, String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn bash_sources_the_script_and_completes_types_from_the_kind_table() {
    if !have("bash") {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let script = dir.path().join("kubesift.bash");
    std::fs::write(&script, kubesift(&["completions", "bash"])).expect("write");

    let (offered, errors) = bash_complete(&script, &["kubesift", "get", "depl"]);
    assert_eq!(errors, "", "sourcing and completing printed errors");
    assert_eq!(offered, ["deploy", "deployment", "deployments"]);
    let (offered, _) = bash_complete(&script, &["kubesift", "get", "netp"]);
    assert_eq!(offered, ["netpol"]);
    let (offered, _) = bash_complete(&script, &["kubesift", "get", "cronj"]);
    assert_eq!(offered, ["cronjob", "cronjobs"]);
    // Subcommands, including the new ones.
    let (offered, _) = bash_complete(&script, &["kubesift", "comp"]);
    assert_eq!(offered, ["completions"]);
    let (offered, _) = bash_complete(&script, &["kubesift", "ma"]);
    assert_eq!(offered, ["man"]);
}

#[test]
fn zsh_and_fish_scripts_name_the_subcommands_and_the_types() {
    for shell in ["zsh", "fish"] {
        let script = kubesift(&["completions", shell]);
        for word in [
            "get",
            "tree",
            "check",
            "selector",
            "completions",
            "man",
            "deployments",
        ] {
            assert!(script.contains(word), "{shell}: {word} missing");
        }
        // Parsed by the shell itself where it is installed.
        if have(shell) {
            let dir = tempfile::tempdir().expect("tempdir");
            let file = dir.path().join("kubesift.completion");
            std::fs::write(&file, &script).expect("write");
            let out = Command::new(shell)
                .arg("-n")
                .arg(&file)
                .output()
                .expect("run shell");
            assert!(
                out.status.success(),
                "{shell} -n: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
}

#[test]
fn man_page_has_the_clap_sections_and_the_extra_ones() {
    let page = kubesift(&["man"]);
    assert!(
        page.contains(".TH kubesift 1"),
        "{}",
        &page[..200.min(page.len())]
    );
    for section in [
        ".SH NAME",
        ".SH SYNOPSIS",
        ".SH OPTIONS",
        ".SH COMMANDS",
        ".SH \"STANDARD INPUT\"",
        ".SH \"SELECTOR BAR\"",
        ".SH KEYS",
    ] {
        assert!(page.contains(section), "{section} missing");
    }
    // Every subcommand's options, the grammar, and the bundled keys.
    for text in [
        "kubesift get",
        "\\-\\-field\\-selector",
        "query   := terms",
        "focus the selector bar",
        "ctrl\\-c",
    ] {
        assert!(page.contains(text), "{text} missing");
    }
    // Rendered by man(1) where it is installed: no roff warnings.
    if Command::new("man").arg("-w").arg("man").output().is_ok() {
        let mut child = Command::new("man")
            .args(["-l", "-"])
            .env("MANWIDTH", "100")
            .env("MAN_KEEP_FORMATTING", "")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("run man");
        use std::io::Write;
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(page.as_bytes())
            .expect("write");
        let out = child.wait_with_output().expect("man");
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(String::from_utf8_lossy(&out.stderr), "");
        assert!(text.contains("SELECTOR BAR"), "{text}");
        for section in ["STANDARD INPUT", "KEYS", "COMMANDS"] {
            assert!(text.contains(section), "{section} not rendered");
        }
    }
}
