//! Finding the rendering tools on PATH and running them.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A program that renders, and how it is called.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tool {
    pub program: PathBuf,
    /// Arguments before the folder (`build` for kustomize, `kustomize` for kubectl).
    pub prefix: Vec<String>,
    /// What identifies this exact tool for the cache: program path, size and modification
    /// time (asking the tool for its version would cost a process per run).
    pub identity: String,
}

impl Tool {
    fn at(program: PathBuf, prefix: &[&str]) -> Tool {
        let meta = std::fs::metadata(&program).ok();
        let stamp = meta.map(|m| {
            let t = m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            format!("{}:{t}", m.len())
        });
        Tool {
            identity: format!("{}:{}", program.display(), stamp.unwrap_or_default()),
            program,
            prefix: prefix.iter().map(|s| (*s).to_owned()).collect(),
        }
    }

    /// A command running the tool with `args` after its prefix.
    pub fn command(&self, args: &[&std::ffi::OsStr]) -> Command {
        let mut c = Command::new(&self.program);
        c.args(&self.prefix).args(args);
        c
    }

    /// How the tool is named in messages (`kustomize`, `kubectl kustomize`, `helm`).
    pub fn name(&self) -> String {
        let program = self
            .program
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        match self.prefix.first().map(String::as_str) {
            Some("kustomize") => format!("{program} kustomize"),
            _ => program,
        }
    }
}

/// The rendering tools found on PATH.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tools {
    /// `kustomize build`, else `kubectl kustomize`.
    pub kustomize: Option<Tool>,
    /// `helm template`.
    pub helm: Option<Tool>,
}

impl Tools {
    /// Looks them up on PATH.
    pub fn find() -> Tools {
        let kustomize = which("kustomize")
            .map(|p| Tool::at(p, &["build"]))
            .or_else(|| which("kubectl").map(|p| Tool::at(p, &["kustomize"])));
        Tools {
            kustomize,
            helm: which("helm").map(|p| Tool::at(p, &["template"])),
        }
    }
}

/// The first executable file named `name` in PATH.
pub fn which(name: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| is_executable(p, |m| m.permissions().mode() & 0o111 != 0))
}

fn is_executable(p: &Path, exec: impl Fn(&std::fs::Metadata) -> bool) -> bool {
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && exec(&m))
}

/// What a failed run said: kubectl's klog line `… "command failed" err="MESSAGE"` gives
/// MESSAGE (Go-quoted), kustomize's and helm's `Error: MESSAGE` give MESSAGE; otherwise the
/// whole standard error, trimmed.
pub fn failure_message(stderr: &str) -> String {
    for line in stderr.lines() {
        if let Some(i) = line.find(" err=\"") {
            if let Some(m) = go_unquote(&line[i + " err=".len()..]) {
                return m;
            }
        }
    }
    let text = stderr.trim();
    let errors: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("Error: "))
        .collect();
    if errors.is_empty() {
        text.to_owned()
    } else {
        errors.join("\n")
    }
}

/// The Go double-quoted string at the start of `s` (klog's `%q`).
fn go_unquote(s: &str) -> Option<String> {
    let mut chars = s.strip_prefix('"')?.chars();
    let mut out = String::new();
    while let Some(c) = chars.next() {
        match c {
            '"' => return Some(out),
            '\\' => match chars.next()? {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                'r' => out.push('\r'),
                c => out.push(c),
            },
            c => out.push(c),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_of_failed_runs() {
        let klog = "E1124 22:29:37.398079   11823 run.go:72] \"command failed\" err=\"accumulating resources: 'a' \\\"b\\\"\"\n";
        assert_eq!(failure_message(klog), "accumulating resources: 'a' \"b\"");
        assert_eq!(
            failure_message("Error: chart not found\n"),
            "chart not found"
        );
        assert_eq!(failure_message(" odd\n"), "odd");
    }
}
