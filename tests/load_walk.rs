//! Which files are read, in which order, and the progressive API.

use std::fs;
use std::path::PathBuf;
use std::sync::Mutex;

use kubesift::model::load::{discover, load_paths, load_paths_with, LoadOptions};

fn cm(name: &str) -> String {
    format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n")
}

fn tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (rel, body) in [
        ("b/two.yaml", cm("two")),
        ("a/one.YML", cm("one")),
        (
            "a/three.Json",
            "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"three\"}}"
                .to_owned(),
        ),
        ("a/readme.md", cm("not-read")),
        ("a/notes.txt", cm("not-read")),
        (".git/config.yaml", cm("git")),
        (".hidden/h.yaml", cm("hidden")),
        ("c/.dot.yaml", cm("dotfile")),
        ("ignored/i.yaml", cm("gitignored")),
        (".gitignore", "ignored/\n".to_owned()),
    ] {
        let p = dir.path().join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, body).unwrap();
    }
    dir
}

fn rel(dir: &tempfile::TempDir, files: &[PathBuf]) -> Vec<String> {
    files
        .iter()
        .map(|f| f.strip_prefix(dir.path()).unwrap().display().to_string())
        .collect()
}

#[test]
fn walks_manifests_sorted_skipping_hidden_but_not_gitignored() {
    let dir = tree();
    let (files, problems) = discover(&[dir.path().to_path_buf()], &LoadOptions::default());
    assert!(problems.is_empty(), "{problems:#?}");
    assert_eq!(
        rel(&dir, &files),
        vec!["a/one.YML", "a/three.Json", "b/two.yaml", "ignored/i.yaml"]
    );
}

#[test]
fn explicit_files_are_read_whatever_their_extension() {
    let dir = tree();
    let txt = dir.path().join("a/notes.txt");
    let inv = load_paths(&[txt, dir.path().join("b")], &LoadOptions::default());
    let names: Vec<_> = inv.objects.iter().map(|o| o.name()).collect();
    assert_eq!(names, vec!["not-read", "two"]);
    assert_eq!(inv.files, 2);
}

#[test]
fn same_file_twice_is_read_once() {
    let dir = tree();
    let f = dir.path().join("b/two.yaml");
    let (files, _) = discover(
        &[f.clone(), dir.path().join("b"), f],
        &LoadOptions::default(),
    );
    assert_eq!(files.len(), 1);
}

#[cfg(unix)]
#[test]
fn symlinked_directories_are_followed() {
    let dir = tree();
    let other = tempfile::tempdir().unwrap();
    fs::write(other.path().join("linked.yaml"), cm("linked")).unwrap();
    std::os::unix::fs::symlink(other.path(), dir.path().join("b/link")).unwrap();
    let (files, problems) = discover(&[dir.path().join("b")], &LoadOptions::default());
    assert!(problems.is_empty(), "{problems:#?}");
    assert_eq!(rel(&dir, &files), vec!["b/link/linked.yaml", "b/two.yaml"]);
}

#[test]
fn progressive_load_sends_every_file() {
    let dir = tree();
    let seen = Mutex::new(Vec::new());
    let problems = load_paths_with(
        &[dir.path().to_path_buf()],
        &LoadOptions::default(),
        &|load| {
            let names: Vec<String> = load.objects.iter().map(|o| o.name().to_owned()).collect();
            seen.lock().unwrap().push((
                load.path
                    .file_name()
                    .unwrap()
                    .to_string_lossy()
                    .into_owned(),
                names,
            ));
        },
    );
    assert!(problems.is_empty());
    let mut seen = seen.into_inner().unwrap();
    seen.sort();
    assert_eq!(
        seen,
        vec![
            ("i.yaml".to_owned(), vec!["gitignored".to_owned()]),
            ("one.YML".to_owned(), vec!["one".to_owned()]),
            ("three.Json".to_owned(), vec!["three".to_owned()]),
            ("two.yaml".to_owned(), vec!["two".to_owned()]),
        ]
    );
}
