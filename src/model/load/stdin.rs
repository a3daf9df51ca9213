//! Standard input as one more input file, named `-` as on kubectl's command line (`-f -`).
//!
//! It is read to its end in one go and parsed as a file is (same size limit, same checks,
//! same `-:line:column` messages). A stream cannot be read twice: nothing re-reads or
//! watches `-` (the live set and the watcher leave it out), and a second read in the same
//! process is refused with a message rather than silently yielding nothing.

use std::io::{self, Read};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::{read, FileLoad, LoadOptions};
use crate::diagnostic::{Diagnostic, Severity};

/// The path that means standard input, and the source name its objects carry.
pub const STDIN: &str = "-";

/// Whether `path` names standard input (`-` exactly: `./-` is a file named `-`).
pub fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == STDIN
}

/// Set once standard input has been taken.
static TAKEN: AtomicBool = AtomicBool::new(false);

/// Reads standard input to its end and parses it like a file named `-`; a second call in
/// the same process reports that the stream is gone.
pub(super) fn load(opts: &LoadOptions, read_done: &mut dyn FnMut()) -> FileLoad {
    if TAKEN.swap(true, Ordering::SeqCst) {
        read_done();
        return already_read();
    }
    load_from(io::stdin().lock(), opts, read_done)
}

/// [`load`] on any stream (what tests feed).
pub(super) fn load_from(
    reader: impl Read,
    opts: &LoadOptions,
    read_done: &mut dyn FnMut(),
) -> FileLoad {
    let path: Arc<Path> = Arc::from(Path::new(STDIN));
    let mut load = read::load_reader(&path, reader, 0, opts, read_done);
    // A stream has no size to check before reading: the reader stopped one byte past the
    // limit, so the file message's byte count would be made up. (It is not read to its end
    // to count: `yes | kubesift -` never ends.)
    for p in load.problems.iter_mut().filter(|p| p.code == "too-large") {
        p.message = format!(
            "standard input is over the {} size limit: skipped (raise --max-file-size to load it)",
            read::human(opts.max_file_size)
        )
        .into();
    }
    load
}

fn already_read() -> FileLoad {
    let path: Arc<Path> = Arc::from(Path::new(STDIN));
    let mut out = FileLoad::empty(&path, 0);
    out.problems.push(Diagnostic::new(
        &path,
        0,
        0,
        Severity::Error,
        "read",
        "standard input was already read: it can be read only once",
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_lone_dash_is_stdin() {
        assert!(is_stdin(Path::new("-")));
        assert!(!is_stdin(Path::new("./-")));
        assert!(!is_stdin(Path::new("-x")));
        assert!(!is_stdin(Path::new("")));
    }

    #[test]
    fn parses_like_a_file_named_dash() {
        let text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\nkind: [\n";
        let load = load_from(text.as_bytes(), &LoadOptions::default(), &mut || {});
        assert_eq!(&*load.path, Path::new("-"));
        assert_eq!(load.objects.len(), 1);
        assert_eq!(load.objects[0].source.path.as_os_str(), "-");
        assert_eq!(load.bytes, text.len() as u64);
        let shown: Vec<String> = load.problems.iter().map(|p| p.to_string()).collect();
        assert!(
            shown
                .iter()
                .any(|p| p.starts_with("-:7:1: YAML syntax error")),
            "the error names -:line:column: {shown:?}"
        );
        assert!(load.stamp.is_none());
    }

    #[test]
    fn over_the_limit_says_so_without_a_made_up_size() {
        let opts = LoadOptions { max_file_size: 10 };
        let load = load_from(&[b'a'; 100][..], &opts, &mut || {});
        assert!(load.objects.is_empty());
        let [p] = &load.problems[..] else {
            panic!("one problem: {:?}", load.problems)
        };
        assert_eq!(
            &*p.message,
            "standard input is over the 10 B size limit: skipped (raise --max-file-size to load it)"
        );
    }
}
