//! The one place `app` meets the terminal library: crossterm's events as [`Input`]s.

use crossterm::event::{self as ct, Event, KeyEventKind, MouseButton, MouseEventKind};

use super::keymap::{Input, Key, KeyCode, Mods};

impl Input {
    /// The input a terminal event carries (`None` for key releases, focus, other mouse
    /// events).
    pub fn from_terminal(ev: &Event) -> Option<Input> {
        match ev {
            Event::Key(k) if k.kind != KeyEventKind::Release => {
                Some(Input::Key(Key::from_event(k)))
            }
            Event::Mouse(m) => match m.kind {
                MouseEventKind::ScrollUp => Some(Input::ScrollUp),
                MouseEventKind::ScrollDown => Some(Input::ScrollDown),
                MouseEventKind::Down(MouseButton::Left) => Some(Input::Click {
                    column: m.column,
                    row: m.row,
                }),
                _ => None,
            },
            Event::Resize(w, h) => Some(Input::Resize(*w, *h)),
            Event::Paste(text) => Some(Input::Paste(text.clone())),
            _ => None,
        }
    }
}

impl Key {
    /// Normalizes a terminal key event: Shift is implied by an upper-case character.
    pub fn from_event(ev: &ct::KeyEvent) -> Key {
        let m = ev.modifiers;
        let mods = Mods {
            ctrl: m.contains(ct::KeyModifiers::CONTROL),
            alt: m.contains(ct::KeyModifiers::ALT),
            shift: !matches!(ev.code, ct::KeyCode::Char(_)) && m.contains(ct::KeyModifiers::SHIFT),
        };
        Key {
            code: code(ev.code),
            mods,
        }
    }
}

fn code(code: ct::KeyCode) -> KeyCode {
    use ct::KeyCode as C;
    match code {
        C::Char(c) => KeyCode::Char(c),
        C::Esc => KeyCode::Esc,
        C::Enter => KeyCode::Enter,
        C::Tab => KeyCode::Tab,
        C::BackTab => KeyCode::BackTab,
        C::Backspace => KeyCode::Backspace,
        C::Delete => KeyCode::Delete,
        C::Insert => KeyCode::Insert,
        C::Up => KeyCode::Up,
        C::Down => KeyCode::Down,
        C::Left => KeyCode::Left,
        C::Right => KeyCode::Right,
        C::PageUp => KeyCode::PageUp,
        C::PageDown => KeyCode::PageDown,
        C::Home => KeyCode::Home,
        C::End => KeyCode::End,
        C::F(n) => KeyCode::F(n),
        _ => KeyCode::Other,
    }
}
