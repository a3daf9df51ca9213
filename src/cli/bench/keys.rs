//! Keystroke → frame latency: each character goes through `App::update(Action::Insert)`,
//! exactly as the event loop feeds it, then one draw into a `TestBackend` terminal.

use std::time::{Duration, Instant};

use ratatui::backend::TestBackend;
use ratatui::Terminal;

use super::{HEIGHT, WIDTH};
use crate::app::{Action, App};

/// What typing cost.
#[derive(Clone, Debug, Default)]
pub struct KeyReport {
    pub text: String,
    pub rounds: u32,
    /// Every keystroke (update + draw), in typing order.
    pub samples: Vec<Duration>,
    /// Objects matching after the last keystroke, and in total.
    pub matched: u64,
    pub total: usize,
    /// The bar's error after the last keystroke, if TEXT does not parse.
    pub error: Option<String>,
}

impl KeyReport {
    /// Nearest-rank percentile of the samples (`p` in 0..=1).
    pub fn percentile(&self, p: f64) -> Duration {
        let mut sorted = self.samples.clone();
        sorted.sort();
        if sorted.is_empty() {
            return Duration::ZERO;
        }
        let rank = ((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
        sorted[rank - 1]
    }
}

fn draw(terminal: &mut Terminal<TestBackend>, app: &App) -> Result<Duration, String> {
    let t = Instant::now();
    terminal
        .draw(|f| crate::ui::draw(app, f))
        .map_err(|e| format!("drawing failed: {e}"))?;
    Ok(t.elapsed())
}

/// Types `text` `rounds` times into `app` (loaded), one draw per keystroke.
pub fn measure(mut app: App, text: &str, rounds: u32) -> Result<(App, KeyReport), String> {
    let mut terminal = Terminal::new(TestBackend::new(WIDTH, HEIGHT))
        .map_err(|e| format!("off-screen terminal: {e}"))?;
    let mut report = KeyReport {
        text: text.to_string(),
        rounds,
        total: app.data.inventory.objects.len(),
        ..KeyReport::default()
    };
    draw(&mut terminal, &app)?;
    for round in 0..rounds {
        if round > 0 {
            app.update(Action::ClearBar);
        }
        app.update(Action::FocusBar);
        for c in text.chars() {
            let t = Instant::now();
            app.update(Action::Insert(c));
            draw(&mut terminal, &app)?;
            report.samples.push(t.elapsed());
        }
    }
    report.matched = app.counts().0;
    report.error = app.bar.error.as_ref().map(|e| e.to_string());
    Ok((app, report))
}
