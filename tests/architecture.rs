//! The invariants ARCHITECTURE.md states, checked on the source: which top-level module may
//! use which, no import cycle between top-level modules, and a map that names every module.
//!
//! Dependencies are read from `crate::MODULE` paths in non-test code (a file's
//! `#[cfg(test)] mod NAME {…}` block at its end, `tests.rs` and `testutil.rs` files are test
//! code; comments are skipped).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type Deps = BTreeMap<String, BTreeSet<String>>;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read src") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The code of a file without its trailing test module and without comments.
fn non_test_code(text: &str) -> String {
    let mut code = text;
    let mut from = 0;
    while let Some(i) = code[from..].find("#[cfg(test)]") {
        let at = from + i;
        let rest = code[at + "#[cfg(test)]".len()..].trim_start();
        if rest.starts_with("mod ") && rest.lines().next().is_some_and(|l| l.ends_with('{')) {
            code = &code[..at];
            break;
        }
        from = at + 1;
    }
    code.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Top-level module → the top-level modules its non-test code names.
fn dependencies() -> Deps {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut deps = Deps::new();
    for file in files {
        let rel = file.strip_prefix(&src).expect("under src");
        let name = rel.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if matches!(name, "tests.rs" | "testutil.rs") {
            continue;
        }
        let top = rel
            .components()
            .next()
            .and_then(|c| c.as_os_str().to_str())
            .unwrap_or("")
            .trim_end_matches(".rs")
            .to_string();
        if top == "main" || top == "lib" {
            continue;
        }
        let code = non_test_code(&std::fs::read_to_string(&file).expect("read"));
        let used = deps.entry(top.clone()).or_default();
        for (i, _) in code.match_indices("crate::") {
            let module: String = code[i + "crate::".len()..]
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || *c == '_')
                .collect();
            if !module.is_empty() && module != top {
                used.insert(module);
            }
        }
        for external in ["ratatui", "crossterm", "tokio"] {
            if code.contains(&format!("{external}::")) {
                used.insert(format!("extern:{external}"));
            }
        }
    }
    deps
}

fn uses(deps: &Deps, module: &str) -> BTreeSet<String> {
    deps.get(module).cloned().unwrap_or_default()
}

#[test]
fn leaves_depend_on_nothing_of_kubesift() {
    let deps = dependencies();
    let leaves = ["value", "names", "gocompat"];
    for leaf in leaves {
        assert!(deps.contains_key(leaf), "{leaf} exists");
        assert_eq!(uses(&deps, leaf), BTreeSet::new(), "{leaf} is a leaf");
    }
    // The diagnostic type prints with Go's escaping: it may use leaves, nothing else.
    let extra: Vec<_> = uses(&deps, "diagnostic")
        .into_iter()
        .filter(|m| !leaves.contains(&m.as_str()))
        .collect();
    assert!(extra.is_empty(), "diagnostic uses {extra:?}");
}

#[test]
fn selectors_use_only_leaves() {
    let deps = dependencies();
    let allowed: BTreeSet<String> = ["value", "names", "gocompat"].map(String::from).into();
    let extra: Vec<_> = uses(&deps, "selector")
        .difference(&allowed)
        .cloned()
        .collect();
    assert!(extra.is_empty(), "selector uses {extra:?}");
}

#[test]
fn the_core_has_no_terminal_and_no_front_end() {
    let deps = dependencies();
    let front: BTreeSet<&str> = [
        "app",
        "ui",
        "terminal",
        "cli",
        "extern:ratatui",
        "extern:crossterm",
        "extern:tokio",
    ]
    .into();
    for core in [
        "value",
        "names",
        "gocompat",
        "diagnostic",
        "model",
        "kinds",
        "selector",
        "query",
        "index",
        "graph",
        "validate",
        "print",
        "watch",
        "render",
        "dataset",
    ] {
        let bad: Vec<_> = uses(&deps, core)
            .into_iter()
            .filter(|m| front.contains(m.as_str()))
            .collect();
        assert!(bad.is_empty(), "{core} uses {bad:?}");
    }
}

#[test]
fn the_cli_asks_the_data_layer() {
    let deps = dependencies();
    for module in ["index", "graph", "watch"] {
        assert!(
            !uses(&deps, "cli").contains(module),
            "cli uses {module}: go through dataset"
        );
    }
    assert!(
        !uses(&deps, "watch").contains("dataset"),
        "watch knows paths only"
    );
}

#[test]
fn no_cycle_between_top_level_modules() {
    let deps = dependencies();
    // Depth-first search for a back edge, reporting the cycle found.
    fn visit(
        m: &str,
        deps: &Deps,
        stack: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = stack.iter().position(|s| s == m) {
            let mut cycle = stack[i..].to_vec();
            cycle.push(m.to_string());
            return Some(cycle);
        }
        if done.contains(m) {
            return None;
        }
        stack.push(m.to_string());
        for next in deps.get(m).into_iter().flatten() {
            if deps.contains_key(next) {
                if let Some(c) = visit(next, deps, stack, done) {
                    return Some(c);
                }
            }
        }
        stack.pop();
        done.insert(m.to_string());
        None
    }
    let mut done = BTreeSet::new();
    for m in deps.keys() {
        let cycle = visit(m, &deps, &mut Vec::new(), &mut done);
        assert!(
            cycle.is_none(),
            "import cycle: {}",
            cycle.unwrap_or_default().join(" → ")
        );
    }
}

#[test]
fn the_map_names_every_module() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let map = std::fs::read_to_string(root.join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    for module in dependencies().keys() {
        let named =
            map.contains(&format!("`{module}/`")) || map.contains(&format!("`{module}.rs`"));
        assert!(named, "ARCHITECTURE.md does not name `{module}`");
    }
}
