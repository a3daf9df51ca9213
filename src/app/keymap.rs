//! Key bindings: one table per mode, read from `assets/keymap.toml` plus an optional user
//! file, mapping keys to [`Action`]s; and [`Keymap::intent`], which turns any terminal
//! input into the action it means in a mode. Nothing here knows the terminal library:
//! `super::input` converts its events.

use std::collections::{BTreeMap, HashMap};

use super::{Action, App, Mode};

/// The bundled default bindings.
pub const DEFAULT_KEYMAP: &str = include_str!("../../assets/keymap.toml");

/// A key, without its modifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KeyCode {
    Char(char),
    Esc,
    Enter,
    Tab,
    BackTab,
    Backspace,
    Delete,
    Insert,
    Up,
    Down,
    Left,
    Right,
    PageUp,
    PageDown,
    Home,
    End,
    F(u8),
    /// A key no binding can name (media keys, lone modifiers…).
    Other,
}

/// Modifiers that make a different key (Shift is folded into characters).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Mods {
    pub ctrl: bool,
    pub alt: bool,
    /// Only with non-character keys.
    pub shift: bool,
}

/// A key with its modifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Key {
    pub code: KeyCode,
    pub mods: Mods,
}

impl Key {
    /// Parses `q`, `G`, `ctrl-c`, `pagedown`, `alt-enter`…
    pub fn parse(text: &str) -> Result<Key, String> {
        let mut mods = Mods::default();
        let mut rest = text;
        loop {
            if let Some(r) = rest.strip_prefix("ctrl-").filter(|r| !r.is_empty()) {
                mods.ctrl = true;
                rest = r;
            } else if let Some(r) = rest.strip_prefix("alt-").filter(|r| !r.is_empty()) {
                mods.alt = true;
                rest = r;
            } else {
                break;
            }
        }
        let mut chars = rest.chars();
        let code = match (chars.next(), chars.next()) {
            (Some(c), None) => KeyCode::Char(c),
            _ => named(rest).ok_or_else(|| format!("unknown key {text:?}"))?,
        };
        Ok(Key { code, mods })
    }

    /// The key as the help overlay shows it.
    pub fn label(&self) -> String {
        let mut s = String::new();
        if self.mods.ctrl {
            s.push_str("ctrl-");
        }
        if self.mods.alt {
            s.push_str("alt-");
        }
        match self.code {
            KeyCode::Char(' ') => s.push_str("space"),
            KeyCode::Char(c) => s.push(c),
            KeyCode::F(n) => s.push_str(&format!("f{n}")),
            code => s.push_str(spoken(code)),
        }
        s
    }
}

/// Names of the keys that are not characters, as the help overlay writes them.
fn spoken(code: KeyCode) -> &'static str {
    match code {
        KeyCode::Esc => "esc",
        KeyCode::Enter => "enter",
        KeyCode::Tab => "tab",
        KeyCode::BackTab => "back tab",
        KeyCode::Backspace => "backspace",
        KeyCode::Delete => "del",
        KeyCode::Insert => "insert",
        KeyCode::Up => "up",
        KeyCode::Down => "down",
        KeyCode::Left => "left",
        KeyCode::Right => "right",
        KeyCode::PageUp => "page up",
        KeyCode::PageDown => "page down",
        KeyCode::Home => "home",
        KeyCode::End => "end",
        KeyCode::Char(_) | KeyCode::F(_) | KeyCode::Other => "",
    }
}

fn named(name: &str) -> Option<KeyCode> {
    Some(match name {
        "esc" => KeyCode::Esc,
        "enter" => KeyCode::Enter,
        "tab" => KeyCode::Tab,
        "backtab" => KeyCode::BackTab,
        "backspace" => KeyCode::Backspace,
        "delete" => KeyCode::Delete,
        "up" => KeyCode::Up,
        "down" => KeyCode::Down,
        "left" => KeyCode::Left,
        "right" => KeyCode::Right,
        "pageup" => KeyCode::PageUp,
        "pagedown" => KeyCode::PageDown,
        "home" => KeyCode::Home,
        "end" => KeyCode::End,
        "space" => KeyCode::Char(' '),
        _ => return None,
    })
}

/// Terminal input as the app sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// A key pressed (or repeated).
    Key(Key),
    /// Text pasted into the terminal (bracketed paste), as one piece.
    Paste(String),
    ScrollUp,
    ScrollDown,
    /// The left button pressed at a cell.
    Click {
        column: u16,
        row: u16,
    },
    Resize(u16, u16),
}

/// Bindings per mode.
#[derive(Clone, Debug, Default)]
pub struct Keymap {
    modes: HashMap<String, Vec<(Key, Action)>>,
}

impl Keymap {
    /// The bundled bindings, with `user` (a TOML text in the same format) layered on top.
    pub fn load(user: Option<&str>) -> Result<Keymap, String> {
        let mut map = Keymap::default();
        map.merge(DEFAULT_KEYMAP)?;
        if let Some(text) = user {
            map.merge(text)?;
        }
        Ok(map)
    }

    fn merge(&mut self, text: &str) -> Result<(), String> {
        let table: BTreeMap<String, BTreeMap<String, Action>> =
            toml::from_str(text).map_err(|e| format!("keymap: {e}"))?;
        for (mode, keys) in table {
            let bindings = self.modes.entry(mode).or_default();
            for (key, action) in keys {
                let key = Key::parse(&key)?;
                bindings.retain(|(k, _)| *k != key);
                bindings.push((key, action));
            }
        }
        Ok(())
    }

    /// The action bound to `key` in `mode` (or globally).
    pub fn lookup(&self, mode: Mode, key: Key) -> Option<Action> {
        [mode.name(), "global"]
            .iter()
            .filter_map(|m| self.modes.get(*m))
            .find_map(|b| b.iter().find(|(k, _)| *k == key))
            .map(|(_, a)| a.clone())
    }

    /// What `input` means in `mode`: a bound key's action; in the bar and the command
    /// line, any other character typed without Ctrl or Alt; pasted text (views that take
    /// no text ignore it), the mouse wheel, a left click and a resize as such.
    pub fn intent(&self, mode: Mode, input: Input) -> Option<Action> {
        let typing = matches!(mode, Mode::Bar | Mode::Command);
        match input {
            Input::Key(key) => self.lookup(mode, key).or(match key.code {
                KeyCode::Char(c) if typing && !key.mods.ctrl && !key.mods.alt => {
                    Some(Action::Insert(c))
                }
                _ => None,
            }),
            Input::Paste(text) => Some(Action::Paste(text)),
            Input::ScrollUp => Some(Action::ScrollUp),
            Input::ScrollDown => Some(Action::ScrollDown),
            Input::Click { column, row } => Some(Action::Click { column, row }),
            Input::Resize(w, h) => Some(Action::Resize(w, h)),
        }
    }

    /// Bindings of one mode, grouped by action (for the help overlay).
    pub fn bindings(&self, mode: &str) -> Vec<(String, &'static str)> {
        let mut out: Vec<(String, &'static str)> = Vec::new();
        for (key, action) in self.modes.get(mode).into_iter().flatten() {
            let desc = action.describe();
            match out.iter_mut().find(|(_, d)| *d == desc) {
                Some((keys, _)) => {
                    keys.push_str(", ");
                    keys.push_str(&key.label());
                }
                None => out.push((key.label(), desc)),
            }
        }
        out
    }
}

impl App {
    /// The action `input` means in the current mode (see [`Keymap::intent`]).
    pub fn intent(&self, input: Input) -> Option<Action> {
        self.keymap.intent(self.key_mode(), input)
    }
}
