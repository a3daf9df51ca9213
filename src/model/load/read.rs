//! Reading one file: size limit before reading, bounded read, binary and UTF-8 checks.

use std::cell::RefCell;
use std::fs::File;
use std::io::Read;
use std::path::Path;
use std::sync::{Arc, Condvar, Mutex, PoisonError};

use super::{parse, FileLoad, LoadOptions};
use crate::diagnostic::{Diagnostic, Severity};

fn failed(
    path: &Arc<Path>,
    line: u32,
    column: u32,
    code: &'static str,
    message: String,
) -> FileLoad {
    let mut out = FileLoad::empty(path, 0);
    out.problems.push(Diagnostic::new(
        path,
        line,
        column,
        Severity::Error,
        code,
        message,
    ));
    out
}

/// Human size: `1.0 GiB`, `64 MiB`, `512 B`.
pub(super) fn human(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut v = bytes as f64;
    let mut unit = 0;
    while v >= 1024.0 && unit < UNITS.len() - 1 {
        v /= 1024.0;
        unit += 1;
    }
    if v.fract() == 0.0 {
        format!("{v:.0} {}", UNITS[unit])
    } else {
        format!("{v:.1} {}", UNITS[unit])
    }
}

fn too_large(path: &Arc<Path>, size: u64, limit: u64) -> FileLoad {
    failed(
        path,
        0,
        0,
        "too-large",
        format!(
            "file is {} ({size} bytes), above the {} size limit: skipped (raise --max-file-size to load it)",
            human(size),
            human(limit)
        ),
    )
}

/// Read buffers kept per thread up to this capacity (a bigger one is dropped after use).
const KEEP_BUFFER_BYTES: usize = 4 << 20;

/// Reads and parses one file (see [`super::load_file`]); `read_done` is called between
/// reading and parsing (the bench times the two apart).
pub(super) fn load_file(path: &Path, opts: &LoadOptions, read_done: &mut dyn FnMut()) -> FileLoad {
    load(path, opts, Looked::No, read_done)
}

/// [`load_file`] for a path the walk has just listed as a regular file (from its directory
/// entry, or a `stat` through a link): not looked at again before it is opened. The look
/// would guard the same window the walk's did (a swap between a look and the open can
/// happen after either), and it was a path lookup per file (BENCHMARKS.md, "lead4").
pub(super) fn load_listed_file(
    path: &Path,
    opts: &LoadOptions,
    read_done: &mut dyn FnMut(),
) -> FileLoad {
    load(path, opts, Looked::Walk, read_done)
}

/// Whether a path's type was seen before it is opened.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Looked {
    No,
    /// The walk listed it as a regular file.
    Walk,
}

fn load(path: &Path, opts: &LoadOptions, looked: Looked, read_done: &mut dyn FnMut()) -> FileLoad {
    if super::stdin::is_stdin(path) {
        return super::stdin::load(opts, read_done);
    }
    let shared: Arc<Path> = Arc::from(path);
    // The type is checked before opening (opening a device can have effects; opening a
    // FIFO for reading blocks until a writer comes), and again on the open file, which may
    // have been swapped in between: opened without blocking, it can be looked at safely.
    if looked == Looked::No {
        if let Err(message) = std::fs::metadata(path)
            .map_err(cannot_read)
            .and_then(regular)
        {
            return failed(&shared, 0, 0, "read", message);
        }
    }
    let file = match open_nonblocking(path) {
        Ok(f) => f,
        Err(e) => return failed(&shared, 0, 0, "read", cannot_read(e)),
    };
    // Checked before reading: a 1 GB file is refused without touching its contents.
    let (size, modified) = match file.metadata().map_err(cannot_read).and_then(regular) {
        Ok(m) => (m.len(), m.modified().ok()),
        Err(message) => return failed(&shared, 0, 0, "read", message),
    };
    let mut load = if size > opts.max_file_size {
        too_large(&shared, size, opts.max_file_size)
    } else {
        let _permit = Permit::take(size);
        load_reader(&shared, file, size, opts, read_done)
    };
    load.stamp = modified.map(|m| (m, size));
    load
}

/// Bytes of big files read and parsed at once across all threads. A file's text and what
/// parsing makes of it before its objects are done (split points, documents, positions)
/// take several times its size; without a shared bound, N threads each on a big file take
/// N times that at once. One big file alone still uses every core (its documents are
/// parsed in parallel), so few at a time cost little time.
const IN_FLIGHT_BYTES: u64 = 32 << 20;

/// Files up to this size are not counted: the common small manifest never waits or locks.
const COUNTED_ABOVE: u64 = 1 << 20;

/// Big-file bytes being read or parsed now, and a signal when some are done.
static IN_FLIGHT: (Mutex<u64>, Condvar) = (Mutex::new(0), Condvar::new());

/// A share of [`IN_FLIGHT_BYTES`] held while one big file is read and parsed. Whoever holds
/// one never waits for anything that may wait for it (documents are parsed on scoped
/// threads, not on rayon's pool, whose waiting threads run other queued files), so taking
/// one cannot deadlock.
struct Permit(u64);

impl Permit {
    /// Waits until `size` bytes fit (a file above the whole budget takes all of it and is
    /// parsed alone); `None` for a small file.
    fn take(size: u64) -> Option<Permit> {
        if size <= COUNTED_ABOVE {
            return None;
        }
        let want = size.min(IN_FLIGHT_BYTES);
        let (lock, freed) = &IN_FLIGHT;
        let mut used = lock.lock().unwrap_or_else(PoisonError::into_inner);
        while *used + want > IN_FLIGHT_BYTES {
            used = freed.wait(used).unwrap_or_else(PoisonError::into_inner);
        }
        *used += want;
        Some(Permit(want))
    }
}

impl Drop for Permit {
    fn drop(&mut self) {
        let (lock, freed) = &IN_FLIGHT;
        let mut used = lock.lock().unwrap_or_else(PoisonError::into_inner);
        *used = used.saturating_sub(self.0);
        freed.notify_all();
    }
}

fn cannot_read(e: std::io::Error) -> String {
    format!("cannot read file: {e}")
}

/// The metadata of a regular file; anything else is refused, saying what it is.
fn regular(m: std::fs::Metadata) -> Result<std::fs::Metadata, String> {
    if m.is_file() {
        return Ok(m);
    }
    Err(match file_type_name(&m.file_type()) {
        "directory" => "is a directory, not a file".to_owned(),
        what => format!("not a regular file ({what}): not read"),
    })
}

/// What a file that is not a regular one is, in words (`FIFO`, `character device`, …).
pub(super) fn file_type_name(t: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "FIFO";
        }
        if t.is_char_device() {
            return "character device";
        }
        if t.is_block_device() {
            return "block device";
        }
        if t.is_socket() {
            return "socket";
        }
    }
    if t.is_dir() {
        "directory"
    } else if t.is_symlink() {
        "symbolic link"
    } else if t.is_file() {
        "regular file"
    } else {
        "special file"
    }
}

/// Opens for reading without blocking: a FIFO opens at once (and reads nothing) instead
/// of waiting for a writer; a regular file reads as usual.
fn open_nonblocking(path: &Path) -> std::io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    options.open(path)
}

/// Reads at most `max_file_size + 1` bytes from `reader` (a file may grow between the size
/// check and the read) and parses them. Public so I/O failures can be tested without
/// relying on file permissions, which do not stop root.
///
/// The bytes go into a buffer kept per thread: the text is only needed while parsing (the
/// objects keep their own compact copies), and a fresh buffer per file would have the
/// kernel zero new pages for every byte read.
pub(super) fn load_reader(
    path: &Arc<Path>,
    reader: impl Read,
    size_hint: u64,
    opts: &LoadOptions,
    read_done: &mut dyn FnMut(),
) -> FileLoad {
    thread_local! {
        static BUFFER: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    }
    let mut bytes = BUFFER.with(RefCell::take);
    bytes.clear();
    let load = read_into(path, reader, size_hint, opts, &mut bytes, read_done);
    if bytes.capacity() <= KEEP_BUFFER_BYTES {
        BUFFER.with(|b| b.replace(bytes));
    }
    load
}

fn read_into(
    path: &Arc<Path>,
    reader: impl Read,
    size_hint: u64,
    opts: &LoadOptions,
    bytes: &mut Vec<u8>,
    read_done: &mut dyn FnMut(),
) -> FileLoad {
    let limit = opts.max_file_size;
    let capacity = usize::try_from(size_hint.min(limit)).unwrap_or(0);
    bytes.reserve(capacity.saturating_add(1));
    let read = reader.take(limit.saturating_add(1)).read_to_end(bytes);
    read_done();
    if let Err(e) = read {
        return failed(path, 0, 0, "read", format!("cannot read file: {e}"));
    }
    if bytes.len() as u64 > limit {
        return too_large(path, bytes.len() as u64, limit);
    }
    decode(path, bytes)
}

/// Bytes → text, refusing binary data and invalid UTF-8 with a position.
fn decode(path: &Arc<Path>, bytes: &[u8]) -> FileLoad {
    let size = bytes.len() as u64;
    if let Some(encoding) = utf16_or_32(bytes) {
        return failed(
            path,
            1,
            1,
            "encoding",
            format!("{encoding} text: convert the file to UTF-8"),
        );
    }
    // A NUL byte cannot occur in YAML or JSON text; the parser would read it as the end.
    if let Some(at) = memchr::memchr(0, bytes) {
        let (line, column) = line_col(bytes, at);
        return failed(
            path,
            line,
            column,
            "binary",
            format!("binary file (NUL byte at offset {at}): not YAML or JSON"),
        );
    }
    match std::str::from_utf8(bytes) {
        Ok(text) => {
            let mut out = parse::parse_text(path, text);
            out.bytes = size;
            out
        }
        Err(e) => {
            let at = e.valid_up_to();
            let (line, column) = line_col(bytes, at);
            let byte = bytes.get(at).copied().unwrap_or(0);
            failed(
                path,
                line,
                column,
                "encoding",
                format!("invalid UTF-8 (byte 0x{byte:02x} at offset {at}): binary file or another encoding; YAML and JSON must be UTF-8"),
            )
        }
    }
}

/// UTF-16 or UTF-32 text, told by its byte order mark or, without one, by where the NUL
/// bytes of its first (ASCII) character fall, as YAML 1.2 §5.2 detects encodings. UTF-32LE's
/// mark starts with UTF-16LE's, so the longer marks are tried first.
fn utf16_or_32(bytes: &[u8]) -> Option<&'static str> {
    let first4 = |pattern: [Option<u8>; 4]| {
        bytes.len() >= 4
            && pattern
                .iter()
                .zip(bytes)
                .all(|(p, b)| p.is_none_or(|p| p == *b))
    };
    let (z, any) = (Some(0), None);
    let ascii = |b: u8| b != 0 && b.is_ascii();
    Some(match bytes {
        [0x00, 0x00, 0xFE, 0xFF, ..] => "UTF-32 (big-endian, byte order mark)",
        [0xFF, 0xFE, 0x00, 0x00, ..] => "UTF-32 (little-endian, byte order mark)",
        [0xFE, 0xFF, ..] => "UTF-16 (big-endian, byte order mark)",
        [0xFF, 0xFE, ..] => "UTF-16 (little-endian, byte order mark)",
        _ if first4([z, z, z, any]) && ascii(bytes[3]) => "UTF-32 (big-endian)",
        _ if first4([any, z, z, z]) && ascii(bytes[0]) => "UTF-32 (little-endian)",
        [0x00, b, ..] if ascii(*b) => "UTF-16 (big-endian)",
        [a, 0x00, ..] if ascii(*a) => "UTF-16 (little-endian)",
        _ => return None,
    })
}

/// 1-based line and column (in characters) of a byte offset, for possibly invalid bytes.
fn line_col(bytes: &[u8], at: usize) -> (u32, u32) {
    let before = &bytes[..at.min(bytes.len())];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let column = String::from_utf8_lossy(&before[start..]).chars().count() + 1;
    (
        u32::try_from(line).unwrap_or(u32::MAX),
        u32::try_from(column).unwrap_or(u32::MAX),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A listed file swapped for a FIFO before it is opened: the open does not block and
    /// the look at the open file refuses it, as the look before opening would have; a
    /// regular file reads the same either way.
    #[cfg(unix)]
    #[test]
    fn a_listed_file_is_still_looked_at_once_open() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("swapped.yaml");
        let status = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(status.success());
        let opts = LoadOptions::default();
        let (tx, rx) = std::sync::mpsc::channel();
        let path = fifo.clone();
        std::thread::spawn(move || {
            let listed = load_listed_file(&path, &LoadOptions::default(), &mut || {});
            let _ = tx.send(listed);
        });
        let listed = rx
            .recv_timeout(std::time::Duration::from_secs(20))
            .expect("reading a FIFO blocked");
        let looked = load_file(&fifo, &opts, &mut || {});
        assert_eq!(listed.problems.len(), 1);
        assert_eq!(
            &*listed.problems[0].message,
            "not a regular file (FIFO): not read"
        );
        assert_eq!(looked.problems[0].message, listed.problems[0].message);

        let file = dir.path().join("a.yaml");
        std::fs::write(
            &file,
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n",
        )
        .unwrap();
        let (a, b) = (
            load_listed_file(&file, &opts, &mut || {}),
            load_file(&file, &opts, &mut || {}),
        );
        assert_eq!((a.objects.len(), a.stamp, a.bytes), (1, b.stamp, b.bytes));
        assert!(a.problems.is_empty() && b.problems.is_empty());
    }

    #[test]
    fn human_sizes() {
        assert_eq!(human(64 * 1024 * 1024), "64 MiB");
        assert_eq!(human(1_000_000_000), "953.7 MiB");
        assert_eq!(human(1 << 30), "1 GiB");
        assert_eq!(human(5), "5 B");
    }

    #[test]
    fn utf16_and_utf32_are_told_apart() {
        let enc =
            |text: &str, f: fn(char) -> Vec<u8>| -> Vec<u8> { text.chars().flat_map(f).collect() };
        let be32 = |c: char| u32::from(c).to_be_bytes().to_vec();
        let le32 = |c: char| u32::from(c).to_le_bytes().to_vec();
        let be16 = |c: char| (u32::from(c) as u16).to_be_bytes().to_vec();
        let le16 = |c: char| (u32::from(c) as u16).to_le_bytes().to_vec();
        type Encode = fn(char) -> Vec<u8>;
        let cases: [(Encode, &str); 4] = [
            (be32, "UTF-32 (big-endian"),
            (le32, "UTF-32 (little-endian"),
            (be16, "UTF-16 (big-endian"),
            (le16, "UTF-16 (little-endian"),
        ];
        for (f, want) in cases {
            let with_bom = enc("\u{feff}a: 1\n", f);
            let got = utf16_or_32(&with_bom).unwrap();
            assert!(
                got.starts_with(want) && got.ends_with("byte order mark)"),
                "{got}"
            );
            let bare = enc("a: 1\n", f);
            assert_eq!(utf16_or_32(&bare).unwrap(), format!("{want})"));
        }
        assert_eq!(utf16_or_32(b"a: 1\n"), None);
        assert_eq!(utf16_or_32(b"\0\0"), None);
        assert_eq!(utf16_or_32(b""), None);
    }
}
