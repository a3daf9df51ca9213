//! Key bindings: one table per mode, read from `assets/keymap.toml` plus an optional user
//! file, mapping keys to [`Action`]s.

use std::collections::{BTreeMap, HashMap};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::{Action, Mode};

/// The bundled default bindings.
pub const DEFAULT_KEYMAP: &str = include_str!("../../assets/keymap.toml");

/// A key with its modifiers (Shift is folded into the character).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Key {
    pub code: KeyCode,
    pub mods: KeyModifiers,
}

impl Key {
    /// Normalizes a terminal key event: Shift is implied by an upper-case character.
    pub fn from_event(ev: &KeyEvent) -> Key {
        let mut mods = ev.modifiers & (KeyModifiers::CONTROL | KeyModifiers::ALT);
        if !matches!(ev.code, KeyCode::Char(_)) {
            mods |= ev.modifiers & KeyModifiers::SHIFT;
        }
        Key {
            code: ev.code,
            mods,
        }
    }

    /// Parses `q`, `G`, `ctrl-c`, `pagedown`, `alt-enter`…
    pub fn parse(text: &str) -> Result<Key, String> {
        let mut mods = KeyModifiers::NONE;
        let mut rest = text;
        loop {
            if let Some(r) = rest.strip_prefix("ctrl-").filter(|r| !r.is_empty()) {
                mods |= KeyModifiers::CONTROL;
                rest = r;
            } else if let Some(r) = rest.strip_prefix("alt-").filter(|r| !r.is_empty()) {
                mods |= KeyModifiers::ALT;
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

    /// The key as written in the keymap (for the help overlay).
    pub fn label(&self) -> String {
        let mut s = String::new();
        if self.mods.contains(KeyModifiers::CONTROL) {
            s.push_str("ctrl-");
        }
        if self.mods.contains(KeyModifiers::ALT) {
            s.push_str("alt-");
        }
        match self.code {
            KeyCode::Char(' ') => s.push_str("space"),
            KeyCode::Char(c) => s.push(c),
            code => s.push_str(&format!("{code}").to_ascii_lowercase()),
        }
        s
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
