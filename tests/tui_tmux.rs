//! End-to-end: the real binary driven through tmux (send-keys, capture-pane).
//!
//! Every wait polls the pane instead of sleeping a fixed time, and waits for the exact
//! state the test then asserts: a capture taken when one condition held may predate the
//! frame that completes the rest (the tests run on loaded 2-core CI machines).

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

const WIDTH: usize = 160;
/// How long a wait polls: generous, a loaded machine may take seconds for one frame.
const WAIT: Duration = Duration::from_secs(20);
const HEIGHT: usize = 40;

/// A tmux server of its own running the binary in one pane.
struct Pane {
    socket: String,
    _dir: tempfile::TempDir,
}

impl Pane {
    /// Starts `kubesift .` on a copy of the fixture; after it exits the shell prints the
    /// exit code and the tty settings, so the test can check the terminal was restored.
    fn start(args: &str) -> Option<Pane> {
        Pane::start_with(args, |_| String::new())
    }

    /// Like `start`, with extra `K=V` environment words built from the temp dir.
    fn start_with(args: &str, env: impl Fn(&Path) -> String) -> Option<Pane> {
        Pane::spawn(|dir, bin| format!("{} {bin} {args} .", env(dir)))
    }

    /// Runs the shell command `command(temp dir, binary)` in the fixture's copy (state
    /// and config dirs, TERM set), then reports as `start` does.
    fn spawn(command: impl Fn(&Path, &str) -> String) -> Option<Pane> {
        if Command::new("tmux").arg("-V").output().is_err() {
            assert!(std::env::var_os("CI").is_none(), "tmux is required in CI");
            eprintln!("skipping: tmux is not installed");
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        copy_dir(Path::new("tests/fixtures/ui"), &dir.path().join("m"));
        let socket = format!("kubesift-test-{}-{}", std::process::id(), unique());
        let bin = env!("CARGO_BIN_EXE_kubesift");
        let state = dir.path().join("state");
        let command = command(dir.path(), bin);
        let script = format!(
            "cd {m} && export XDG_STATE_HOME={s} XDG_CONFIG_HOME={s} TERM=xterm-256color && {command}; \
             echo EXIT=$?; stty -a | tr ' ;' '\\n\\n' | grep -x -e -icanon -e icanon -e -echo -e echo; sleep 60",
            m = dir.path().join("m").display(),
            s = state.display(),
        );
        let status = Command::new("tmux")
            .args(["-L", &socket, "-f", "/dev/null", "new-session", "-d"])
            .args(["-x", &WIDTH.to_string(), "-y", &HEIGHT.to_string()])
            .args(["-s", "t", "sh", "-c", &script])
            .status()
            .unwrap();
        assert!(status.success());
        Some(Pane { socket, _dir: dir })
    }

    fn dir(&self) -> &Path {
        self._dir.path()
    }

    fn tmux(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .args(["-L", &self.socket])
            .args(args)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn capture(&self) -> Vec<String> {
        self.tmux(&["capture-pane", "-p", "-t", "t"])
            .lines()
            .map(str::to_string)
            .collect()
    }

    fn literal(&self, text: &str) {
        self.tmux(&["send-keys", "-t", "t", "-l", text]);
    }

    fn key(&self, name: &str) {
        self.tmux(&["send-keys", "-t", "t", name]);
    }

    /// Polls the pane until `pred` holds (20 s at most); returns that capture.
    fn wait_for(&self, what: &str, pred: impl Fn(&[String]) -> bool) -> Vec<String> {
        let deadline = Instant::now() + WAIT;
        loop {
            let screen = self.capture();
            if pred(&screen) {
                return screen;
            }
            if Instant::now() > deadline {
                panic!(
                    "timed out waiting for {what}; screen:\n{}",
                    screen.join("\n")
                );
            }
            std::thread::sleep(Duration::from_millis(30));
        }
    }

    /// Polls tmux's `#{...}` pane flags until they read `want` (20 s at most).
    fn wait_flags(&self, format: &str, want: &str) {
        let deadline = Instant::now() + WAIT;
        loop {
            let flags = self.tmux(&["display-message", "-p", "-t", "t", format]);
            if flags.trim() == want {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "{format}: {flags:?}, want {want:?}"
            );
            std::thread::sleep(Duration::from_millis(30));
        }
    }

    fn wait_loaded(&self) -> Vec<String> {
        self.wait_for("the table", |s| {
            s.first().is_some_and(|l| l.contains("of 10 objects"))
        })
    }

    /// The pid of kubesift (the child of the pane's shell).
    fn app_pid(&self) -> String {
        let shell = self.tmux(&["display-message", "-p", "-t", "t", "#{pane_pid}"]);
        let out = Command::new("pgrep")
            .args(["-P", shell.trim()])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .next()
            .unwrap_or_default()
            .to_string()
    }

    /// After the app exited: its exit code, and the terminal back in cooked mode, on the
    /// main screen, without mouse reporting.
    fn assert_restored(&self, code: i32) {
        let screen = self.wait_for("the exit code", |s| {
            s.iter().any(|l| l.starts_with("EXIT=")) && s.iter().any(|l| l.ends_with("echo"))
        });
        // The shell prints both only after the app exited: nothing more will be drawn.
        assert!(screen.contains(&format!("EXIT={code}")), "{screen:?}");
        assert!(
            screen.contains(&"icanon".to_string()),
            "raw mode left on: {screen:?}"
        );
        assert!(
            screen.contains(&"echo".to_string()),
            "echo left off: {screen:?}"
        );
        // alternate screen / mouse / cursor
        self.wait_flags("#{alternate_on} #{mouse_any_flag} #{cursor_flag}", "0 0 1");
    }
}

impl Drop for Pane {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .status();
    }
}

fn unique() -> u32 {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Object names in the table body: the word under the NAME title (per-kind tables have
/// no KIND column).
fn names(screen: &[String]) -> BTreeSet<String> {
    let Some(at) = screen.get(1).and_then(|t| {
        t.split(' ')
            .scan(0, |pos, w| {
                let start = *pos;
                *pos += w.chars().count() + 1;
                Some((start, w))
            })
            .find(|(_, w)| w.trim_end_matches(['↑', '↓']) == "NAME")
            .map(|(start, _)| start)
    }) else {
        return BTreeSet::new();
    };
    screen[2..screen.len().saturating_sub(3).max(2)]
        .iter()
        .filter(|l| !l.starts_with(['▼', '▶']) && l.trim() != "no objects match")
        .filter_map(|l| {
            let rest: String = l.chars().skip(at).collect();
            rest.split_whitespace().next().map(str::to_string)
        })
        .collect()
}

/// Names `kubesift get -l SELECTOR -o name` prints for the folder (all kinds), or `None`
/// when the selector does not parse (exit 1 with upstream's error).
fn names_from_get(dir: &Path, selector: &str) -> Option<BTreeSet<String>> {
    let out = Command::new(env!("CARGO_BIN_EXE_kubesift"))
        .args(["get", "-o", "name", "-l", selector, "-f"])
        .arg(dir)
        .output()
        .unwrap();
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("error: "), "{selector:?}: {err}");
        return None;
    }
    Some(
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| l.rsplit_once('/').map(|(_, n)| n.to_string()))
            .collect(),
    )
}

fn set(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|s| s.to_string()).collect()
}

#[test]
fn typing_a_selector_filters_after_every_character() {
    let Some(pane) = Pane::start("") else { return };
    pane.wait_for("all ten rows", |s| names(s).len() == 10);
    pane.literal("/");
    pane.wait_for("the bar focus", |s| {
        s[HEIGHT - 1].contains("typing filters live")
    });

    // The oracle is the real `kubesift get -l PREFIX -o name` on the same folder: after
    // each character the table shows exactly its objects, or, when the prefix does not
    // parse, keeps the last valid set and shows a caret.
    let manifests = pane.dir().join("m");
    let text = "team=retail,tier=backend";
    let mut last_valid = names_from_get(&manifests, "").expect("empty selector parses");
    // Time spent waiting for the screen only (the oracle runs a process per prefix).
    let mut waited = Duration::ZERO;
    for end in 1..=text.len() {
        let prefix = &text[..end];
        let bar = format!("/ {prefix}");
        let (want, error) = match names_from_get(&manifests, prefix) {
            Some(names) => (names, false),
            None => (last_valid.clone(), true),
        };
        let header = format!("{} of 10 objects", want.len());
        // The key goes after the oracle ran, so the wait measures the app alone.
        pane.literal(&text[end - 1..end]);
        let started = Instant::now();
        // The bar text, the rows, the caret (or none) and the count, all in one frame.
        pane.wait_for(
            &format!("{prefix:?}: rows {want:?}, error caret {error}"),
            |s| {
                s[HEIGHT - 3].trim_end() == bar
                    && names(s) == want
                    && s[HEIGHT - 2].contains('^') == error
                    && s[0].starts_with(&header)
            },
        );
        waited += started.elapsed();
        last_valid = want;
    }
    assert_eq!(last_valid, set(&["ledgerdb"]), "the oracle itself is sane");
    // Each key must show up on its own, not with the next 1 s tick (a lost wake-up once
    // made every keystroke wait for the tick: 24 s for this text, 12 s on average).
    assert!(waited < Duration::from_secs(8), "typing took {waited:?}");
    pane.key("Enter");
    pane.wait_for("table focus", |s| s[HEIGHT - 1].contains("q quit"));
    pane.literal("q");
    pane.assert_restored(0);
}

#[test]
fn grouping_by_a_label_shows_headers_with_counts() {
    let Some(pane) = Pane::start("-L team") else {
        return;
    };
    pane.wait_loaded();
    pane.literal("/");
    pane.literal("| by team");
    pane.wait_for("group headers with counts, the -L column", |s| {
        s.iter().any(|l| l.contains("team=retail  (2)"))
            && s.iter().any(|l| l.contains("team=platform  (2)"))
            && s.iter().any(|l| l.contains("(team not set)  (6)"))
            && s[1].contains("TEAM")
    });
    pane.key("Escape");
    pane.wait_for("table focus", |s| s[HEIGHT - 1].contains("q quit"));
    pane.literal("q");
    pane.assert_restored(0);
}

#[test]
fn the_kind_picker_shows_pod_columns_and_detail_searches() {
    let Some(pane) = Pane::start("") else {
        return;
    };
    pane.wait_loaded();
    // Type to filter the kind picker, Enter picks: the table has `get pods`' columns.
    pane.literal("K");
    pane.wait_for("the kind picker", |s| s.iter().any(|l| l.contains("Kind")));
    pane.literal("/pod");
    pane.key("Enter");
    pane.wait_for("pod columns", |s| {
        let titles: Vec<&str> = s[1].split_whitespace().collect();
        s[0].starts_with("3 of 10 objects")
            && s[0].contains("pods › all namespaces")
            && titles.get(..6)
                == Some(&["NAMESPACE", "NAME", "READY", "STATUS", "RESTARTS", "AGE"][..])
    });
    // Space marks a row: the marker column and the header count.
    pane.key("Space");
    pane.wait_for("a mark", |s| {
        s[0].contains("marked: 1") && s[2].starts_with('●')
    });
    // The YAML tab of the selected pod, searched.
    pane.literal("y");
    pane.wait_for("the yaml tab", |s| s.iter().any(|l| l.contains("[y] yaml")));
    pane.literal("/kind");
    pane.key("Enter");
    pane.wait_for("the first match on top", |s| {
        s.iter().any(|l| l.contains("/kind 1/2")) && s[2].contains("kind: Pod")
    });
    pane.literal("n");
    pane.wait_for("the next match", |s| {
        s.iter().any(|l| l.contains("/kind 2/2"))
    });
    pane.key("Escape");
    pane.wait_for("table", |s| s[HEIGHT - 1].contains("q quit"));
    pane.literal("q");
    pane.assert_restored(0);
}

#[test]
fn sigterm_restores_the_terminal() {
    let Some(pane) = Pane::start("") else { return };
    pane.wait_loaded();
    let pid = pane.app_pid();
    assert!(!pid.is_empty(), "kubesift pid not found");
    let status = Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    assert!(status.success());
    pane.assert_restored(143);
}

#[test]
fn editor_runs_and_history_is_saved_outside_the_manifests() {
    let Some(pane) = Pane::start_with("", |dir| {
        let editor = dir.join("editor.sh");
        let log = dir.join("editor.log");
        std::fs::write(
            &editor,
            format!("#!/bin/sh\necho \"$@\" > {}\n", log.display()),
        )
        .unwrap();
        let _ = Command::new("chmod").arg("+x").arg(&editor).status();
        format!("EDITOR={} VISUAL=", editor.display())
    }) else {
        return;
    };
    pane.wait_loaded();
    pane.literal("/");
    pane.literal("app=ledgerdb,metadata.name=ledgerdb");
    pane.wait_for("one row", |s| s[0].starts_with("1 of 10 objects"));
    pane.key("Enter");
    pane.wait_for("table focus", |s| s[HEIGHT - 1].contains("q quit"));
    pane.literal("e");
    pane.wait_for("the UI back after the editor, on the same row", |s| {
        s[HEIGHT - 1].starts_with("edited ") && s[0].starts_with("1 of 10 objects")
    });
    let log = std::fs::read_to_string(pane.dir().join("editor.log")).unwrap();
    assert_eq!(log.trim(), "+1 ./shop/db.yaml");
    pane.literal("q");
    pane.assert_restored(0);
    let history = std::fs::read_to_string(pane.dir().join("state/kubesift/history")).unwrap();
    assert_eq!(history, "app=ledgerdb,metadata.name=ledgerdb\n");
    let mut manifests = Vec::new();
    for e in std::fs::read_dir(pane.dir().join("m")).unwrap() {
        manifests.push(e.unwrap().file_name().to_string_lossy().into_owned());
    }
    manifests.sort();
    assert_eq!(
        manifests,
        ["broken.yaml", "ops.yaml", "shop"],
        "nothing written next to the manifests"
    );
}

#[test]
fn a_saved_edit_shows_in_place_and_keeps_the_selection() {
    let Some(pane) = Pane::start("") else { return };
    pane.wait_loaded();
    pane.literal("/");
    pane.literal("~storefront");
    pane.key("Enter");
    pane.wait_for("storefront rows, the Deployment first", |s| {
        s[0].starts_with("4 of 10 objects")
            && s[HEIGHT - 1].contains("q quit")
            && s[2].contains("Deployment")
    });

    // An editor's atomic save: write a hidden temp file, rename it over the original. The
    // new document sorts above the selected Deployment, so its row moves down by one.
    let file = pane.dir().join("m/shop/web.yaml");
    let text = std::fs::read_to_string(&file).unwrap();
    let edited = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: storefront-flags\n  namespace: shop\n---\n{}",
        text.replacen("replicas: 2", "replicas: 4", 1)
    );
    let tmp = pane.dir().join("m/shop/.web.yaml.swp");
    std::fs::write(&tmp, edited).unwrap();
    std::fs::rename(&tmp, &file).unwrap();
    pane.wait_for("the edit applied, the new row above", |s| {
        s[0].starts_with("5 of 11 objects")
            && s[0].contains("changed")
            && s[2].contains("storefront-flags")
            && s[3].contains("Deployment")
    });
    // The selection followed the Deployment: the detail view opens on it, edited.
    pane.literal("y");
    pane.wait_for("the edited Deployment's detail", |s| {
        s[0].contains("Deployment.apps/shop/storefront")
            && s.iter().any(|l| l.contains("replicas: 4"))
    });
    pane.key("Escape");
    pane.wait_for("table", |s| s[HEIGHT - 1].contains("q quit"));
    pane.literal("q");
    pane.assert_restored(0);
}

#[test]
fn piped_manifests_show_and_answer_keys() {
    let Some(pane) = Pane::spawn(|_, bin| format!("cat shop/web.yaml | {bin} -")) else {
        return;
    };
    let want = set(&[
        "storefront",
        "storefront-svc",
        "storefront-7d9f",
        "storefront-7d9f-x2k4",
    ]);
    // The rows, SOURCE as -:LINE, and the notice (status line and header) in one frame.
    pane.wait_for("the piped objects with the stdin notice", |s| {
        s[0].starts_with("4 of 4 objects")
            && names(s) == want
            && s[2..6].iter().all(|l| l.contains(" -:"))
            && s[HEIGHT - 1].contains("standard input (-) was read once: not watched")
            && s[0].contains("stdin: read once, not watched")
    });
    // Keys come from the terminal while stdin is the pipe.
    pane.literal("/");
    pane.literal("~svc");
    pane.key("Enter");
    pane.wait_for("one row", |s| {
        s[0].starts_with("1 of 4 objects") && s[HEIGHT - 1].contains("q quit")
    });
    pane.literal("y");
    pane.wait_for("the YAML, rebuilt from the object", |s| {
        s[0].contains("Service/shop/storefront-svc")
            && s.iter().any(|l| l.contains("name: storefront-svc"))
    });
    // Nothing to open in an editor.
    pane.literal("e");
    pane.wait_for("the refusal", |s| {
        s[HEIGHT - 1].contains("standard input have no file to edit")
    });
    pane.key("Escape");
    pane.wait_for("table", |s| s[1].starts_with("NAMESPACE"));
    pane.literal("q");
    pane.assert_restored(0);
}

#[test]
fn piped_manifests_beside_a_watched_folder_with_stdout_redirected() {
    let Some(pane) = Pane::spawn(|dir, bin| {
        format!(
            "cat ops.yaml | {bin} - shop > {}",
            dir.join("out.txt").display()
        )
    }) else {
        return;
    };
    // Frames go to the terminal, not to the redirected stdout.
    pane.wait_for("the table, stdin and folder sources", |s| {
        s[0].starts_with("10 of 10 objects")
            && s.iter()
                .any(|l| l.contains("metricsagent") && l.contains(" -:"))
            && s.iter().any(|l| l.contains("shop/db.yaml:1"))
    });
    // The folder is still watched.
    let file = pane.dir().join("m/shop/extra.yaml");
    std::fs::write(
        &file,
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: added-later\n  namespace: shop\n",
    )
    .unwrap();
    pane.wait_for("the new file", |s| {
        s[0].starts_with("11 of 11 objects") && s.iter().any(|l| l.contains("added-later"))
    });
    pane.literal("q");
    pane.assert_restored(0);
    let out = std::fs::read(pane.dir().join("out.txt")).unwrap();
    assert!(out.is_empty(), "{:?}", String::from_utf8_lossy(&out));
}

#[test]
fn dash_with_the_terminal_as_stdin_is_refused() {
    let Some(pane) = Pane::spawn(|_, bin| format!("{bin} -")) else {
        return;
    };
    let screen = pane.wait_for("the refusal", |s| s.iter().any(|l| l.starts_with("EXIT=")));
    assert!(
        screen
            .iter()
            .any(|l| l.starts_with("kubesift: -: standard input is the terminal")),
        "{screen:?}"
    );
    pane.assert_restored(2);
}

/// Writes `name` (a hostile file name) with one ConfigMap into the pane's manifest copy.
fn hostile_file(dir: &Path, name: &str) {
    std::fs::write(
        dir.join("m").join(name),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: hostile\n  namespace: ops\n",
    )
    .unwrap();
}

/// A file named like an editor command, given on the command line: `e` hands the editor
/// an unambiguous `./` path, never `+!touch PWNED.yaml` (vim would run it).
#[test]
fn a_file_name_never_runs_as_an_editor_command() {
    let name = "+!touch PWNED.yaml";
    let Some(pane) = Pane::spawn(|dir, bin| {
        hostile_file(dir, name);
        let editor = dir.join("editor.sh");
        let log = dir.join("editor.log");
        std::fs::write(
            &editor,
            format!(
                "#!/bin/sh\nfor a in \"$@\"; do echo \"$a\"; done > {}\n",
                log.display()
            ),
        )
        .unwrap();
        let _ = Command::new("chmod").arg("+x").arg(&editor).status();
        format!("EDITOR={} VISUAL= {bin} '{name}'", editor.display())
    }) else {
        return;
    };
    pane.wait_for("the object", |s| s.iter().any(|l| l.contains("hostile")));
    pane.literal("e");
    pane.wait_for("the UI back", |s| s[HEIGHT - 1].starts_with("edited "));
    let log = std::fs::read_to_string(pane.dir().join("editor.log")).unwrap();
    assert_eq!(log, format!("+1\n./{name}\n"));
    pane.literal("q");
    pane.assert_restored(0);
}

/// The same with the real vim: it opens the file and runs nothing.
#[test]
fn vim_opens_a_hostile_file_name_without_running_it() {
    if Command::new("vim").arg("--version").output().is_err() {
        assert!(std::env::var_os("CI").is_none(), "vim is required in CI");
        eprintln!("skipping: vim is not installed");
        return;
    }
    let name = "+!touch PWNED.yaml";
    let Some(pane) = Pane::spawn(|dir, bin| {
        hostile_file(dir, name);
        format!("EDITOR='vim -u NONE -i NONE -n' VISUAL= {bin} '{name}'")
    }) else {
        return;
    };
    pane.wait_for("the object", |s| s.iter().any(|l| l.contains("hostile")));
    pane.literal("e");
    pane.wait_for("vim on the file", |s| {
        s.iter()
            .any(|l| l.contains("PWNED.yaml") && !l.contains("hostile"))
            || s.iter().any(|l| l.starts_with("~"))
    });
    pane.key("Escape");
    pane.literal(":qa!");
    pane.key("Enter");
    pane.wait_for("the UI back", |s| s[HEIGHT - 1].starts_with("edited "));
    pane.literal("q");
    pane.assert_restored(0);
    assert!(
        !pane.dir().join("m/PWNED").exists(),
        "vim ran a command from the file name"
    );
}

/// Ctrl-Z in an interactive shell stops kubesift as a job with the terminal restored (main
/// screen, no mouse reporting, cooked mode); `fg` brings the whole UI back, answering keys.
#[test]
fn ctrl_z_suspends_and_fg_resumes() {
    if Command::new("bash").arg("--version").output().is_err() {
        assert!(std::env::var_os("CI").is_none(), "bash is required in CI");
        eprintln!("skipping: bash is not installed");
        return;
    }
    let Some(pane) = Pane::spawn(|_, _| "PS1='prompt$ ' exec bash --norc --noprofile -i".into())
    else {
        return;
    };
    pane.wait_for("the shell", |s| s.iter().any(|l| l.starts_with("prompt$")));
    pane.literal(&format!("{} .", env!("CARGO_BIN_EXE_kubesift")));
    pane.key("Enter");
    pane.wait_loaded();
    pane.key("C-z");
    // The shell's notice and its next prompt: the job is stopped, the shell reads again.
    pane.wait_for("the job stopped", |s| {
        s.iter().any(|l| l.contains("Stopped"))
            && s.iter().filter(|l| l.starts_with("prompt$")).count() >= 2
    });
    // The terminal restored while stopped: main screen, no mouse reporting.
    pane.wait_flags("#{alternate_on} #{mouse_any_flag}", "0 0");
    pane.literal("fg");
    pane.key("Enter");
    pane.wait_loaded();
    pane.literal("/");
    pane.literal("app=ledgerdb,metadata.name=ledgerdb");
    pane.wait_for("it answers keys", |s| {
        s[0].starts_with("1 of 10 objects")
            && s[HEIGHT - 3].trim_end() == "/ app=ledgerdb,metadata.name=ledgerdb"
    });
    // One key at a time, each seen: Esc arriving together with the next key reads as Alt+key.
    pane.key("Escape");
    pane.wait_for("the table focused", |s| s[HEIGHT - 1].contains("q quit"));
    pane.literal("q");
    // `prompt$ kubesift .`, `prompt$ fg`, and the fresh prompt after quitting.
    pane.wait_for("the prompt again", |s| {
        s.iter().filter(|l| l.starts_with("prompt$")).count() >= 3
    });
    pane.wait_flags("#{alternate_on} #{mouse_any_flag}", "0 0");
}

/// Table rows on a screen of any height (names are cut at 80 columns: count them).
fn row_count(screen: &[String]) -> usize {
    screen[2..screen.len().saturating_sub(3).max(2)]
        .iter()
        .filter(|l| l.starts_with("shop ") || l.starts_with("ops ") || l.starts_with("    "))
        .filter(|l| !l.trim().is_empty())
        .count()
}

/// `kubesift get ARGS -o name` on the folder: the names it prints.
fn names_from_get_args(dir: &Path, args: &[&str]) -> BTreeSet<String> {
    let out = Command::new(env!("CARGO_BIN_EXE_kubesift"))
        .arg("get")
        .args(args)
        .args(["-o", "name", "-f"])
        .arg(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?}");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.rsplit_once('/').map(|(_, n)| n.to_string()))
        .collect()
}

#[test]
fn a_150_character_selector_at_80_columns_scrolls_and_edits_in_the_middle() {
    let Some(pane) = Pane::start("") else { return };
    pane.wait_loaded();
    pane.tmux(&["resize-window", "-t", "t", "-x", "80", "-y", "24"]);
    pane.wait_for("80×24", |s| {
        s.len() == 24 && s[0].contains("of 10 objects") && s[23].starts_with("/ filter")
    });
    let head: String = (0..3).map(|i| format!("app!=a{i:02},")).collect();
    let tail: String = (0..12).map(|i| format!(",app!=b{i:02}")).collect();
    let text = format!("{head}tier in (frontend){tail}");
    assert!(text.len() >= 150, "{}", text.len());
    pane.literal("/");
    pane.literal(&text);
    // The end of the text in view behind `‹`, the cursor after it.
    let shown = &text[text.len() - 76..];
    pane.wait_for("the end of the text", |s| {
        s[21].trim_end() == format!("/‹{shown}")
    });
    let manifests = pane.dir().join("m");
    // Into the middle: after `frontend`, left of the visible window.
    let back = text.len() - text.find(')').unwrap();
    pane.tmux(&["send-keys", "-t", "t", "-N", &back.to_string(), "Left"]);
    // The window scrolled to the cursor, and the cursor on the paren (polled with the
    // capture: tmux may show the text before the cursor move that follows it).
    pane.wait_for("the window scrolled to the cursor on the paren", |s| {
        let cursor = pane.tmux(&["display-message", "-p", "-t", "t", "#{cursor_x}"]);
        let at = cursor
            .trim()
            .parse()
            .ok()
            .and_then(|x: usize| s[21].chars().nth(x));
        s[21].starts_with("/‹")
            && s[21].contains("(frontend)")
            && s[21].ends_with('›')
            && at == Some(')')
    });
    pane.literal(",backend");
    let edited = text.replace("(frontend)", "(frontend,backend)");
    let want = names_from_get(&manifests, &edited).unwrap();
    assert_eq!(want.len(), 5, "the oracle is sane: {want:?}");
    pane.wait_for("the edit applied: 5 rows", |s| {
        s[21].contains("(frontend,backend)")
            && s[0].starts_with("5 of 10 objects")
            && row_count(s) == 5
    });
    // An error at the end while the cursor is there: the caret under it, the message whole.
    pane.key("End");
    pane.literal(" in (");
    // Rows 18..23: the bar grown upwards (the status line's hints hold `^A`).
    // The caret under the word the parser stopped at (in the visible slice of the text),
    // the message whole, the last result kept.
    pane.wait_for("the error with its caret and message", |s| {
        let below = &s[18..23];
        let Some(caret_row) = below.iter().position(|l| l.contains('^')) else {
            return false;
        };
        let caret_col = below[caret_row].chars().position(|c| c == '^');
        let above: String = match (caret_row.checked_sub(1), caret_col) {
            (Some(r), Some(c)) => below[r].chars().skip(c).take(2).collect(),
            _ => String::new(),
        };
        let message: String = below[caret_row..]
            .iter()
            .map(|l| l.trim().trim_start_matches('^').trim())
            .collect::<Vec<_>>()
            .join(" ");
        above == "in"
            && message.trim() == "found 'in', expected: ',' or 'end of string'"
            && s[0].starts_with("5 of 10 objects")
    });
    pane.key("Escape");
    pane.wait_for("the table", |s| s[23].starts_with("/ filter"));
    pane.literal("q");
    pane.assert_restored(0);
}

#[test]
fn command_mode_shows_what_kubectl_get_shows() {
    let Some(pane) = Pane::start("") else { return };
    pane.wait_loaded();
    let manifests = pane.dir().join("m");
    pane.literal(":deploy");
    pane.key("Enter");
    let want = names_from_get_args(&manifests, &["deploy", "-A"]);
    pane.wait_for("the deployments get -A prints", |s| {
        s[0].starts_with("2 of 10 objects")
            && s[0].contains("deployments › all namespaces")
            && names(s) == want
    });
    pane.literal(":po sh");
    pane.key("Tab");
    pane.wait_for("the namespace completed", |s| {
        s[HEIGHT - 3].starts_with(": po shop")
    });
    pane.key("Enter");
    let want = names_from_get_args(&manifests, &["po", "-n", "shop"]);
    assert!(!want.is_empty());
    pane.wait_for("the pods get -n shop prints", |s| {
        s[0].contains("pods › shop") && names(s) == want
    });
    pane.literal(":q");
    pane.key("Enter");
    pane.assert_restored(0);
}

#[test]
fn start_up_flags_set_the_first_view() {
    let Some(pane) = Pane::start("-n shop -l tier=frontend --kind svc") else {
        return;
    };
    pane.wait_for("the service, the selector in the header", |s| {
        s[0].starts_with("1 of 10 objects")
            && s[0].contains("services › shop")
            && names(s) == set(&["storefront-svc"])
            && s[0].contains("selector: tier=frontend")
    });
    pane.literal("q");
    pane.assert_restored(0);
}

/// Polls `pane` until `pred` holds (builds may take a while on a busy machine).
fn wait_long(pane: &Pane, what: &str, pred: impl Fn(&str) -> bool) -> String {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let screen = pane.capture().join("\n");
        if pred(&screen) {
            return screen;
        }
        assert!(
            Instant::now() < deadline,
            "timed out waiting for {what}:\n{screen}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A folder of kustomize overlays opens rendered (a kustomize is on PATH: kubectl's), the
/// header says so; `R` switches to the files and back.
#[test]
fn overlays_open_rendered_and_r_switches_to_the_files() {
    if Command::new("kubectl")
        .arg("version")
        .arg("--client")
        .output()
        .is_err()
    {
        eprintln!("skipping: no kubectl (kustomize)");
        return;
    }
    let repo = std::fs::canonicalize("tests/fixtures/render/repo").unwrap();
    let Some(pane) = Pane::spawn(|dir, bin| {
        format!(
            "XDG_CACHE_HOME={} {bin} {}",
            dir.join("cache").display(),
            repo.display()
        )
    }) else {
        return;
    };
    let screen = wait_long(&pane, "the rendered view", |s| {
        s.contains("prod-guestbook-ui") && s.contains("4 kustomizations")
    });
    let header = screen.lines().next().unwrap_or_default().to_owned();
    assert!(header.contains("rendered: 4 kustomizations"), "{header}");
    assert!(header.contains("1 failed"), "{header}");
    pane.literal("R");
    let screen = wait_long(&pane, "the files view", |s| {
        s.lines().next().is_some_and(|h| h.contains("  files"))
    });
    assert!(!screen.contains("prod-guestbook-ui"), "{screen}");
    assert!(screen.contains("guestbook-ui"), "{screen}");
    assert!(screen.contains("overlays/prod/replicas.yaml"), "{screen}");
    pane.literal("R");
    wait_long(&pane, "the rendered view again", |s| {
        s.contains("prod-guestbook-ui")
    });
    pane.literal("q");
    pane.assert_restored(0);
}
