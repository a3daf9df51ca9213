//! Files the UI keeps: the log, the selector history (XDG state dir) and the user keymap
//! (XDG config dir). Nothing is ever written next to the user's manifests.

use std::path::PathBuf;

use directories::ProjectDirs;

fn dirs() -> Option<ProjectDirs> {
    ProjectDirs::from("", "", "kubesift")
}

/// `$XDG_STATE_HOME/kubesift` (or the platform's local data dir).
pub fn state_dir() -> Option<PathBuf> {
    let d = dirs()?;
    Some(
        d.state_dir()
            .unwrap_or_else(|| d.data_local_dir())
            .to_path_buf(),
    )
}

fn history_path() -> Option<PathBuf> {
    Some(state_dir()?.join("history"))
}

/// Selector history, oldest first (empty when there is none yet).
pub fn load_history() -> Vec<String> {
    history_path()
        .and_then(|p| std::fs::read_to_string(p).ok())
        .map(|t| {
            t.lines()
                .filter(|l| !l.is_empty())
                .map(String::from)
                .collect()
        })
        .unwrap_or_default()
}

/// Writes the selector history, one entry per line.
pub fn save_history(history: &[String]) -> std::io::Result<()> {
    let path = history_path().ok_or_else(|| std::io::Error::other("no home directory"))?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut text = history.join("\n");
    text.push('\n');
    std::fs::write(path, text)
}

/// The user's keymap overrides, if the file exists.
pub fn user_keymap() -> Option<String> {
    let path = dirs()?.config_dir().join("keymap.toml");
    std::fs::read_to_string(path).ok()
}

/// Logs go to `kubesift.log` in the state dir (never to the screen); `KUBESIFT_LOG` sets
/// the filter (default `info`).
pub fn init_logging() -> Option<tracing_appender::non_blocking::WorkerGuard> {
    let dir = state_dir()?;
    std::fs::create_dir_all(&dir).ok()?;
    let appender = tracing_appender::rolling::never(dir, "kubesift.log");
    let (writer, guard) = tracing_appender::non_blocking(appender);
    let filter = tracing_subscriber::EnvFilter::try_from_env("KUBESIFT_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    tracing_subscriber::fmt()
        .with_writer(writer)
        .with_ansi(false)
        .with_env_filter(filter)
        .try_init()
        .ok()?;
    Some(guard)
}
