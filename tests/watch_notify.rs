//! End to end: real file-system changes → notify → debounced batches → LiveSet deltas.
//! Each wait is bounded and polls; nothing sleeps a fixed long time.

mod watch_support;

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use kubesift::dataset::{follow, DeltaKind, Event, Follow};
use kubesift::model::load::LoadOptions;
use watch_support::{cm, docs, fresh, replay, state, summary, write, Harness};

/// Bound for one change to show up (generous: CI shares two cores).
const LIMIT: Duration = Duration::from_secs(10);
/// Quiet period after a change, to see that no further event follows.
const QUIET: Duration = Duration::from_millis(400);

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp dir")
}

fn kinds_of(h: &Harness, name: &str) -> Vec<DeltaKind> {
    h.log
        .iter()
        .filter(|d| &*d.id.name == name)
        .map(|d| d.kind)
        .collect()
}

fn create_edit_delete(poll: bool) {
    let dir = tmp();
    let mut h = Harness::start(dir.path(), poll);
    let f = dir.path().join("a.yaml");
    write(&f, &docs(&[cm("one", "1"), cm("two", "2")]));
    assert!(
        h.pump_until(LIMIT, |h| h.log.len() >= 2),
        "created: {:?}",
        summary(&h.log)
    );
    h.settle(QUIET);
    assert_eq!(
        summary(&h.log),
        [
            (DeltaKind::Added, "one".into()),
            (DeltaKind::Added, "two".into())
        ]
    );

    h.log.clear();
    write(&f, &docs(&[cm("one", "1"), cm("two", "edited")]));
    assert!(h.pump_until(LIMIT, |h| !h.log.is_empty()), "edited");
    h.settle(QUIET);
    assert_eq!(summary(&h.log), [(DeltaKind::Modified, "two".into())]);

    h.log.clear();
    std::fs::remove_file(&f).expect("remove");
    assert!(h.pump_until(LIMIT, |h| h.log.len() >= 2), "deleted");
    h.settle(QUIET);
    assert_eq!(
        summary(&h.log),
        [
            (DeltaKind::Deleted, "one".into()),
            (DeltaKind::Deleted, "two".into())
        ]
    );
    assert!(h.errors.is_empty(), "{:?}", h.errors);
}

#[test]
fn create_edit_delete_native() {
    create_edit_delete(false);
}

#[test]
fn create_edit_delete_poll() {
    create_edit_delete(true);
}

#[test]
fn atomic_rename_save_is_one_modified() {
    let dir = tmp();
    let f = dir.path().join("a.yaml");
    write(&f, &docs(&[cm("one", "1"), cm("two", "2")]));
    let mut h = Harness::start(dir.path(), false);
    let swap = dir.path().join(".a.yaml.tmp");
    write(&swap, &docs(&[cm("one", "saved"), cm("two", "2")]));
    std::fs::rename(&swap, &f).expect("rename over");
    assert!(
        h.pump_until(LIMIT, |h| !h.log.is_empty()),
        "rename-save seen"
    );
    h.settle(QUIET);
    assert_eq!(summary(&h.log), [(DeltaKind::Modified, "one".into())]);
}

#[test]
fn named_file_atomic_save_is_seen_through_its_parent() {
    let dir = tmp();
    let f = dir.path().join("only.yml");
    write(&f, &cm("one", "1"));
    let mut h = Harness::start(&f, false);
    let swap = dir.path().join("only.yml.new");
    write(&swap, &cm("one", "2"));
    std::fs::rename(&swap, &f).expect("rename over");
    write(&dir.path().join("unnamed.yaml"), &cm("two", "1"));
    assert!(h.pump_until(LIMIT, |h| !h.log.is_empty()), "save seen");
    h.settle(QUIET);
    assert_eq!(summary(&h.log), [(DeltaKind::Modified, "one".into())]);
}

#[test]
fn renamed_directory_and_new_subdirectory() {
    let dir = tmp();
    write(&dir.path().join("old/a.yaml"), &cm("one", "1"));
    write(&dir.path().join("old/deep/b.yaml"), &cm("two", "1"));
    let mut h = Harness::start(dir.path(), false);
    std::fs::rename(dir.path().join("old"), dir.path().join("new")).expect("rename dir");
    assert!(h.pump_until(LIMIT, |h| h.log.len() >= 2), "dir rename");
    h.settle(QUIET);
    assert_eq!(
        summary(&h.log),
        [
            (DeltaKind::Modified, "one".into()),
            (DeltaKind::Modified, "two".into())
        ]
    );
    assert!(h.matches_fresh());

    // A file written into a directory created after watching started.
    h.log.clear();
    std::fs::create_dir(dir.path().join("new/later")).expect("mkdir");
    write(&dir.path().join("new/later/c.yaml"), &cm("three", "1"));
    assert!(
        h.pump_until(LIMIT, |h| h.has_name("three")),
        "new subdirectory"
    );
    // Then edited: the new directory is watched, not just read once.
    write(&dir.path().join("new/later/c.yaml"), &cm("three", "2"));
    assert!(
        h.pump_until(LIMIT, |h| kinds_of(h, "three")
            .contains(&DeltaKind::Modified)),
        "edit in new subdirectory: {:?}",
        summary(&h.log)
    );
    assert_eq!(kinds_of(&h, "three")[0], DeltaKind::Added);
}

#[test]
fn object_moved_between_files_is_only_modified() {
    let dir = tmp();
    let (a, b) = (dir.path().join("a.yaml"), dir.path().join("b.yaml"));
    write(&a, &docs(&[cm("stay", "1"), cm("mover", "1")]));
    write(&b, &cm("other", "1"));
    let mut h = Harness::start(dir.path(), false);
    write(&b, &docs(&[cm("other", "1"), cm("mover", "1")]));
    write(&a, &cm("stay", "1"));
    assert!(
        h.pump_until(LIMIT, |h| h.matches_fresh() && !h.log.is_empty()),
        "move seen"
    );
    h.settle(QUIET);
    assert_eq!(summary(&h.log), [(DeltaKind::Modified, "mover".into())]);
    let o = h.log[0].object.as_ref().expect("object");
    assert_eq!(&*o.source.path, b.as_path());
}

#[test]
fn invalid_then_valid_again() {
    let dir = tmp();
    let f = dir.path().join("a.yaml");
    write(&f, &docs(&[cm("one", "1"), cm("two", "2")]));
    let mut h = Harness::start(dir.path(), false);
    write(&f, "apiVersion: v1\nkind: [oops\n");
    assert!(h.pump_until(LIMIT, |h| h.has_stale()), "broken file seen");
    h.settle(QUIET);
    assert!(
        h.log.is_empty(),
        "no event while broken: {:?}",
        summary(&h.log)
    );
    assert!(h.has_name("one") && h.has_name("two"));
    assert!(h
        .data
        .inventory
        .problems
        .iter()
        .any(|p| &*p.path == f.as_path() && p.code != "stale"));

    write(&f, &docs(&[cm("one", "1"), cm("two", "fixed")]));
    assert!(h.pump_until(LIMIT, |h| !h.has_stale()), "fixed");
    h.settle(QUIET);
    assert_eq!(summary(&h.log), [(DeltaKind::Modified, "two".into())]);
}

/// 1,000 files written as fast as possible, 200 of them saved a second time at once (inside
/// the debounce window), 100 deleted: the live state ends equal to a fresh load, and the
/// deltas, replayed from the initial state, reach the same state (no event lost).
#[test]
fn burst_of_writes_ends_exact() {
    let dir = tmp();
    for i in 0..50 {
        write(
            &dir.path().join(format!("pre/{i}.yaml")),
            &cm(&format!("pre{i}"), "0"),
        );
    }
    let mut h = Harness::start(dir.path(), false);
    let initial = state(&h.data.inventory);
    let path = |i: usize| dir.path().join(format!("d{}/f{i}.yaml", i % 10));
    for i in 0..1000 {
        write(
            &path(i),
            &docs(&[cm(&format!("o{i}"), "1"), cm(&format!("p{i}"), "1")]),
        );
    }
    for i in 0..200 {
        write(
            &path(i),
            &docs(&[cm(&format!("o{i}"), "second"), cm(&format!("p{i}"), "1")]),
        );
    }
    for i in 900..1000 {
        std::fs::remove_file(path(i)).expect("remove");
    }
    for i in 0..10 {
        std::fs::remove_file(dir.path().join(format!("pre/{i}.yaml"))).expect("remove");
    }
    let want = fresh(dir.path());
    assert_eq!(want.len(), 40 + 1800);
    let ok = h.pump_until(Duration::from_secs(30), |h| {
        state(&h.data.inventory) == want
    });
    assert!(
        ok,
        "final state differs from a fresh load ({} vs {})",
        h.data.inventory.objects.len(),
        want.len()
    );
    h.settle(QUIET);
    assert_eq!(state(&h.data.inventory), want);
    let mut replayed = initial;
    replay(&mut replayed, &h.log);
    assert_eq!(replayed, want, "deltas replayed reach the final state");
    assert!(h.errors.is_empty(), "{:?}", h.errors);
}

#[test]
fn follow_reports_initial_state_then_changes_and_stops() {
    let dir = tmp();
    write(&dir.path().join("a.yaml"), &cm("one", "1"));
    let config = Follow {
        paths: vec![dir.path().to_path_buf()],
        opts: LoadOptions::default(),
        poll: false,
        pacing: None,
        link: false,
        watch: true,
        render: Default::default(),
    };
    // What `get -w` prints: the first load's objects, then each change's deltas.
    let seen: Arc<Mutex<Vec<(DeltaKind, String)>>> = Arc::default();
    let stop = Arc::new(AtomicBool::new(false));
    let thread = {
        let (seen, stop) = (Arc::clone(&seen), Arc::clone(&stop));
        std::thread::spawn(move || {
            let send = |e: Event| {
                let mut seen = seen.lock().expect("lock");
                match e {
                    Event::Loaded(d) => seen.extend(
                        d.inventory
                            .objects
                            .iter()
                            .map(|o| (DeltaKind::Added, o.id.name.to_string())),
                    ),
                    Event::Changed(c) => seen.extend(summary(&c.deltas)),
                    Event::Linked(_) => panic!("link: false builds no graph"),
                    _ => {}
                }
                true
            };
            follow(&config, &send, &stop)
        })
    };
    let wait = |n: usize| {
        let deadline = std::time::Instant::now() + LIMIT;
        while seen.lock().expect("lock").len() < n && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    wait(1);
    write(&dir.path().join("b.yaml"), &cm("two", "1"));
    wait(2);
    stop.store(true, Ordering::SeqCst);
    let result = thread.join().expect("follow thread");
    assert!(result.is_ok(), "{result:?}");
    assert_eq!(
        *seen.lock().expect("lock"),
        [
            (DeltaKind::Added, "one".into()),
            (DeltaKind::Added, "two".into())
        ]
    );
}

#[test]
fn follow_fails_on_a_missing_root() {
    let stop = AtomicBool::new(false);
    let config = Follow {
        paths: vec![Path::new("/nonexistent/kubesift-watch-test").to_path_buf()],
        opts: LoadOptions::default(),
        poll: false,
        pacing: None,
        link: false,
        watch: true,
        render: Default::default(),
    };
    let r = follow(&config, &|_| true, &stop);
    let err = r.expect_err("a missing root cannot be watched");
    assert_eq!(
        err.to_string(),
        "cannot watch /nonexistent/kubesift-watch-test: no such file or directory"
    );
}

fn value_of(h: &Harness, name: &str) -> Option<String> {
    let inv = &h.data.inventory;
    let o = inv.objects.iter().find(|o| &*o.id.name == name)?;
    o.get_str("data.k").map(str::to_string)
}

/// Saves of the same size right after one another (well within one second): each is seen,
/// in both modes. notify's PollWatcher, comparing whole seconds, misses the later ones.
fn quick_same_size_saves(poll: bool) {
    let dir = tmp();
    let f = dir.path().join("a.yaml");
    write(&f, &cm("one", "v0"));
    let mut h = Harness::start(dir.path(), poll);
    for v in ["v1", "v2", "v3"] {
        write(&f, &cm("one", v));
        assert!(
            h.pump_until(LIMIT, |h| value_of(h, "one").as_deref() == Some(v)),
            "save {v} seen (poll: {poll})"
        );
    }
    assert_eq!(kinds_of(&h, "one"), [DeltaKind::Modified; 3]);
}

#[test]
fn quick_same_size_saves_native() {
    quick_same_size_saves(false);
}

#[test]
fn quick_same_size_saves_poll() {
    quick_same_size_saves(true);
}

#[test]
fn poll_mode_sees_directory_rename_as_modified() {
    let dir = tmp();
    write(&dir.path().join("old/a.yaml"), &cm("one", "1"));
    let mut h = Harness::start(dir.path(), true);
    std::fs::rename(dir.path().join("old"), dir.path().join("new")).expect("rename dir");
    assert!(h.pump_until(LIMIT, |h| !h.log.is_empty()), "seen");
    h.settle(QUIET);
    assert_eq!(summary(&h.log), [(DeltaKind::Modified, "one".into())]);
    assert!(h.matches_fresh());
}
