//! The bench's output: a human table, or JSON (`-o json`).

use std::fmt::Write;
use std::path::PathBuf;
use std::time::Duration;

use serde_json::json;

use super::delta::DeltaReport;
use super::keys::KeyReport;
use super::load::{LoadReport, Rss};
use super::ms;

/// Everything measured.
#[derive(Debug)]
pub struct Report {
    pub paths: Vec<PathBuf>,
    pub load: LoadReport,
    pub rss: Rss,
    pub keys: KeyReport,
    pub delta: DeltaReport,
}

fn round3(d: Duration) -> f64 {
    (ms(d) * 1000.0).round() / 1000.0
}

impl Report {
    /// From the start until the whole table was on screen.
    pub fn to_table(&self) -> Duration {
        self.load.to_table
    }

    fn rss_ratio(&self) -> f64 {
        self.rss.peak as f64 / self.load.bytes.max(1) as f64
    }

    pub fn json(&self) -> serde_json::Value {
        let l = &self.load;
        let k = &self.keys;
        let d = &self.delta;
        json!({
            "paths": self.paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
            "corpus": {"files": l.files, "objects": l.objects, "bytes": l.bytes, "problems": l.problems},
            "yaml": {
                "documents": l.yaml.documents(), "fast": l.yaml.fast, "fallback": l.yaml.fallbacks(),
                "fallback_reasons": l.yaml.reasons().into_iter()
                    .map(|(d, n)| (d.name().to_owned(), json!(n)))
                    .collect::<serde_json::Map<_, _>>(),
            },
            "load_ms": {
                "walk": round3(l.walk), "read": round3(l.read), "parse": round3(l.parse),
                "inventory": round3(l.inventory), "index": round3(l.index), "graph": round3(l.graph),
                "table": round3(l.table), "table_frame": round3(l.table_frame),
                "total": round3(l.total()), "to_table": round3(self.to_table()),
                "cpu_to_table": round3(l.cpu_to_table), "to_indexed": round3(l.to_indexed),
                "to_linked": round3(l.to_linked), "first_rows": round3(l.first_rows),
                "first_file": round3(l.first_file), "loading_frame": round3(l.loading_frame),
                "partial_ui": round3(l.partial_ui), "ui_stall": round3(l.ui_stall),
                "release": round3(l.release),
                "partial_batches": l.partial_batches,
            },
            "rss": {"peak_bytes": self.rss.peak, "current_bytes": self.rss.current,
                    "peak_per_corpus_byte": (self.rss_ratio() * 1000.0).round() / 1000.0},
            "keystrokes": {
                "text": k.text, "rounds": k.rounds, "samples": k.samples.len(),
                "min_ms": round3(k.percentile(0.0)), "p50_ms": round3(k.percentile(0.5)),
                "p99_ms": round3(k.percentile(0.99)), "max_ms": round3(k.percentile(1.0)),
                "matched": k.matched, "total": k.total, "error": k.error,
            },
            "delta": {
                "file": d.file.display().to_string(), "files": d.files,
                "file_objects": d.file_objects,
                "shape": format!("{:?}", d.shape).to_lowercase(),
                "file_bytes": d.file_bytes, "deltas": d.deltas, "modified": d.modified,
                "parse_ms": round3(d.parse),
                "apply_ms": round3(d.apply), "handoff_ms": round3(d.handoff),
                "index_ms": round3(d.index), "graph_ms": round3(d.graph),
                "problems_ms": round3(d.problems), "table_ms": round3(d.table),
                "graph_outcome": d.graph_outcome,
                "frame_ms": round3(d.frame), "total_ms": round3(d.total), "skipped": d.skipped,
            },
        })
    }

    pub fn table(&self) -> String {
        let l = &self.load;
        let k = &self.keys;
        let d = &self.delta;
        let mut s = String::new();
        let mut line = |name: &str, value: String| {
            let _ = writeln!(s, "  {name:<28} {value}");
        };
        let t = |d: Duration| format!("{:>10.1} ms", ms(d));
        line(
            "corpus",
            format!(
                "{}, {}, {:.1} MB, {}",
                crate::print::count(l.objects, "object"),
                crate::print::count(l.files, "file"),
                l.bytes as f64 / 1e6,
                crate::print::count(l.problems, "problem")
            ),
        );
        line("yaml", l.yaml.summary());
        line("walk (overlaps reading)", t(l.walk));
        line("read", t(l.read));
        line("parse", t(l.parse));
        line("inventory (live set)", t(l.inventory));
        line("label index (beside it)", t(l.index));
        line("table (sort + filter)", t(l.table));
        line("table frame", t(l.table_frame));
        line("load to full table", t(self.to_table()));
        line("  CPU until then (all threads)", t(l.cpu_to_table));
        line("load to label index applied", t(l.to_indexed));
        line("graph (after the table)", t(l.graph));
        line("load to linked frame", t(l.to_linked));
        line("first file parsed", t(l.first_file));
        line(
            "first rows on screen",
            format!(
                "{} ({} partial batches)",
                t(l.first_rows),
                l.partial_batches
            ),
        );
        line("loading frame", t(l.loading_frame));
        line("UI on partial batches", t(l.partial_ui));
        line("longest UI stall loading", t(l.ui_stall));
        line("free replaced data (off UI)", t(l.release));
        line(
            "peak RSS",
            format!(
                "{:>10.1} MB ({:.2}x corpus bytes)",
                self.rss.peak as f64 / 1e6,
                self.rss_ratio()
            ),
        );
        line(
            "keystrokes",
            format!(
                "{} x {:?} → {} of {} objects{}",
                k.rounds,
                k.text,
                k.matched,
                k.total,
                k.error
                    .as_ref()
                    .map(|e| format!(" (error: {e})"))
                    .unwrap_or_default()
            ),
        );
        line("  min", t(k.percentile(0.0)));
        line("  p50", t(k.percentile(0.5)));
        line("  p99", t(k.percentile(0.99)));
        line("  max", t(k.percentile(1.0)));
        match &d.skipped {
            Some(why) => line("one-file edit", format!("skipped: {why}")),
            None => {
                line(
                    "one-file edit",
                    format!(
                        "{}{} ({} objects, {} bytes, {:?}): {} delta(s), {} modified",
                        d.file.display(),
                        match d.files {
                            0 | 1 => String::new(),
                            n => format!(" and {} more file(s)", n - 1),
                        },
                        d.file_objects,
                        d.file_bytes,
                        d.shape,
                        d.deltas,
                        d.modified
                    ),
                );
                line("  parse", t(d.parse));
                line("  apply (live set)", t(d.apply));
                line("  handoff (splices)", t(d.handoff));
                line("  UI update + frame", t(d.frame));
                line("    of which index splice", t(d.index));
                line(
                    "    of which graph patch",
                    format!("{} ({})", t(d.graph), d.graph_outcome),
                );
                line("    of which problem rows", t(d.problems));
                line("    of which table rows", t(d.table));
                line("  total", t(d.total));
            }
        }
        s
    }
}
