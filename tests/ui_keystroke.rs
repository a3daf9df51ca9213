//! Typing into the bar on a large synthetic inventory: every character re-parses,
//! re-filters and draws one frame, and the end state is right. The time per keystroke is
//! printed for information only; it is measured by `kubesift bench` and the criterion
//! benches (see BENCHMARKS.md), not asserted here.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use kubesift::app::{Action, App, Keymap, Options};
use kubesift::dataset::Dataset;
use kubesift::model::{Inventory, Object, SourceSpan};
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use serde_json::json;

const TIERS: [&str; 3] = ["frontend", "backend", "cache"];

fn inventory(n: usize) -> Inventory {
    let path: Arc<Path> = Arc::from(Path::new("big.yaml"));
    let objects = (0..n)
        .map(|i| {
            let value = json!({
                "apiVersion": "apps/v1",
                "kind": if i % 3 == 0 { "Deployment" } else { "ConfigMap" },
                "metadata": {
                    "name": format!("obj-{i}"),
                    "namespace": format!("ns-{}", i % 50),
                    "labels": {
                        "app": format!("app-{}", i % 1000),
                        "tier": TIERS[i % 3],
                        "app.kubernetes.io/part-of": format!("sys-{}", i % 20),
                    },
                },
            });
            let span = SourceSpan {
                path: path.clone(),
                line: i as u32 + 1,
                start: 0,
                end: 0,
                target: None,
            };
            Object::from_value(value, span).unwrap()
        })
        .collect();
    Inventory {
        objects,
        ..Inventory::default()
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

#[test]
fn typing_in_the_bar_stays_fast_at_scale() {
    let n: usize = std::env::var("KUBESIFT_KEYSTROKE_OBJECTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000);
    let mut app = App::new(Keymap::load(None).unwrap(), Options::default(), 0);
    app.update(Action::Resize(160, 40));
    app.update(Action::Loaded(Box::new(Dataset::new(inventory(n)))));
    let mut terminal = Terminal::new(TestBackend::new(160, 40)).unwrap();
    app.update(Action::FocusBar);
    let mut times = Vec::new();
    let text = "tier in (frontend,cache),app!=app-3,~obj-1 | by app.kubernetes.io/part-of";
    for c in text.chars() {
        let t = Instant::now();
        app.update(Action::Insert(c));
        terminal.draw(|f| kubesift::ui::draw(&app, f)).unwrap();
        times.push(t.elapsed());
    }
    assert!(app.bar.error.is_none(), "{:?}", app.bar.error);
    assert!(app.counts().0 > 0);
    times.sort();
    let (p50, p99) = (percentile(&times, 0.5), percentile(&times, 0.99));
    println!("{n} objects: keystroke→frame p50 {p50:?}, p99 {p99:?}");
    // Grouped by part-of: one header row per group, before its objects.
    assert!(matches!(
        app.table.rows.first(),
        Some(kubesift::app::Row::Group { .. })
    ));
}
