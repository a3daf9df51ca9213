//! The help overlay: every mode's bindings, generated from the keymap, then the
//! selector-bar grammar; a scrollable text whose length the state knows.

use super::scroll::{max_offset, scrolled};
use super::text::{TextLine, Tone};
use super::{Action, App, Keymap, Mode};

/// Keymap sections in the order help lists them.
const SECTIONS: &[&str] = &[
    "table", "bar", "command", "tree", "detail", "problems", "picker", "global",
];

/// The selector-bar grammar, as documented in `crate::query`, after the command line.
const GRAMMAR: &[&str] = &[
    "Command line (:), as in k9s, with kubectl's resource names:",
    "  :po  :deploy  :svc shop  :po -n shop  :po -A  :ns  :crd  :KIND.GROUP  :all  :q",
    "  sets the kind and namespace filters (as the pickers do); Tab completes both",
    "Start-up flags: -n NS, -A, -l SELECTOR (in the bar), --kind TYPE / -c CMD (start view)",
    "",
    "Selector bar (filters on every keystroke):",
    "  app=web  app==web  app!=web  app in (a,b)  app notin (a,b)  app  !app  n>3  n<3",
    "  metadata.name=x  metadata.namespace!=y  .spec.nodeName=n   field terms (=, ==, !=)",
    "  ~text       fuzzy match on the name",
    "  uses(cm/app-config)  usedby(deploy/shop/web)   what uses / is used by an object",
    "  | by KEY    group by a label key, or by namespace, kind, owner, target",
    "  | by serviceaccount   group by a referenced object (configmap, secret, pvc, …)",
    "  terms are separated by commas; an invalid text keeps the last result",
];

/// The open help overlay.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HelpState {
    pub lines: Vec<TextLine>,
    /// First line shown; always within `lines`.
    pub scroll: usize,
}

impl HelpState {
    /// The help text for `keymap`, from the top.
    pub fn new(keymap: &Keymap) -> HelpState {
        let mut lines = Vec::new();
        for mode in SECTIONS {
            lines.push(TextLine::one(Tone::Title, format!("{mode}:")));
            for (keys, desc) in keymap.bindings(mode) {
                lines.push(TextLine::of([
                    (Tone::Key, format!("  {keys:<22}")),
                    (Tone::Plain, desc.to_string()),
                ]));
            }
        }
        lines.push(TextLine::default());
        lines.extend(GRAMMAR.iter().map(|g| TextLine::one(Tone::Plain, *g)));
        HelpState { lines, scroll: 0 }
    }

    /// Keeps the scroll within the last page for `height` rows.
    pub fn clamp(&mut self, height: usize) {
        self.scroll = self.scroll.min(max_offset(self.lines.len(), height));
    }
}

impl App {
    pub(super) fn open_help(&mut self) {
        self.under = self.mode;
        self.help = Some(HelpState::new(&self.keymap));
        self.mode = Mode::Help;
    }

    pub(super) fn help_action(&mut self, action: Action) {
        let height = self.screen.view_height();
        let Some(h) = self.help.as_mut() else {
            self.mode = self.under;
            return;
        };
        if let Some(scroll) = scrolled(h.scroll, &action, h.lines.len(), height) {
            h.scroll = scroll;
            return;
        }
        match action {
            Action::Back | Action::Help => {
                self.help = None;
                self.mode = self.under;
            }
            _ => self.dirty = false,
        }
    }
}
