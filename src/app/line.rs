//! One editable line of text (the selector bar, the `:` command line): the text, the
//! cursor, and the horizontal scroll that keeps the cursor visible. Editing is
//! `tui_input`'s (grapheme-aware moves and deletes, word jumps); this adds byte positions
//! for the parsers' offsets, paste, and a scroll that only moves when the cursor would
//! leave the window.

use tui_input::{Input, InputRequest};
use unicode_width::UnicodeWidthStr;

use super::Action;

/// An editable line of text.
#[derive(Clone, Debug, Default)]
pub struct LineInput {
    input: Input,
    /// First display column shown.
    scroll: usize,
}

impl LineInput {
    /// A line holding `text`, the cursor at its end.
    pub fn new(text: &str) -> LineInput {
        LineInput {
            input: Input::new(text.to_string()),
            scroll: 0,
        }
    }

    pub fn text(&self) -> &str {
        self.input.value()
    }

    /// Byte offset of the cursor in [`LineInput::text`].
    pub fn cursor(&self) -> usize {
        byte_of(self.text(), self.input.cursor())
    }

    /// Display column of the cursor from the start of the text.
    pub fn cursor_column(&self) -> usize {
        self.input.visual_cursor()
    }

    /// First display column shown (see [`LineInput::follow`]).
    pub fn scroll(&self) -> usize {
        self.scroll
    }

    /// Replaces the text, the cursor at its end.
    pub fn set(&mut self, text: &str) {
        self.input = Input::new(text.to_string());
    }

    /// Replaces bytes `range` of the text with `with`, the cursor right after it.
    pub fn replace(&mut self, range: std::ops::Range<usize>, with: &str) {
        let mut text = self.text().to_string();
        let (start, end) = (range.start, range.end);
        if start > end || !text.is_char_boundary(start) || !text.is_char_boundary(end) {
            return;
        }
        text.replace_range(start..end, with);
        let cursor = text[..start + with.len()].chars().count();
        self.input = Input::new(text).with_cursor(cursor);
    }

    /// Inserts `text` at the cursor (a paste): line breaks and tabs become spaces, other
    /// control characters are dropped, so a pasted multi-line selector stays one line.
    pub fn insert_str(&mut self, text: &str) {
        let clean: String = text
            .trim_end_matches(['\n', '\r'])
            .chars()
            .filter_map(|c| match c {
                '\n' | '\r' | '\t' => Some(' '),
                c if c.is_control() => None,
                c => Some(c),
            })
            .collect();
        let at = self.cursor();
        self.replace(at..at, &clean);
    }

    /// Applies an editing action; returns whether it was one (`None`: not an edit) and
    /// whether the text changed (`Some(true)`).
    pub fn edit(&mut self, action: &Action) -> Option<bool> {
        let request = match action {
            Action::Insert(c) => InputRequest::InsertChar(*c),
            Action::Backspace => InputRequest::DeletePrevChar,
            Action::DeleteChar => InputRequest::DeleteNextChar,
            Action::CursorLeft => InputRequest::GoToPrevChar,
            Action::CursorRight => InputRequest::GoToNextChar,
            Action::WordLeft => InputRequest::GoToPrevWord,
            Action::WordRight => InputRequest::GoToNextWord,
            Action::LineStart => InputRequest::GoToStart,
            Action::LineEnd => InputRequest::GoToEnd,
            Action::DeleteWord => InputRequest::DeletePrevWord,
            Action::DeleteToStart => InputRequest::DeleteFromStart,
            Action::DeleteToEnd => InputRequest::DeleteTillEnd,
            Action::Paste(text) => {
                let before = self.text().len();
                self.insert_str(text);
                return Some(self.text().len() != before);
            }
            _ => return None,
        };
        Some(self.input.handle(request).is_some_and(|c| c.value))
    }

    /// Scrolls as little as needed to keep the cursor inside a window `width` columns
    /// wide with a sixth of it as context on either side (as vim's `sidescrolloff`),
    /// and no further than needed to show the end of the text (one column spare at the
    /// right for the cursor at the end).
    pub fn follow(&mut self, width: usize) {
        let width = width.max(1);
        let margin = width / 6;
        let cursor = self.cursor_column();
        let total = self.text().width();
        if cursor < self.scroll + margin {
            self.scroll = cursor.saturating_sub(margin);
        } else if cursor + margin >= self.scroll + width {
            self.scroll = cursor + margin + 1 - width;
        }
        // Never leave blank room at the right while text is hidden at the left.
        self.scroll = self.scroll.min((total + 1).saturating_sub(width));
        self.scroll = snap(self.text(), self.scroll);
    }

    /// The part of the text shown from column [`LineInput::scroll`] in `width` columns,
    /// and whether text is hidden before and after it.
    pub fn visible(&self, width: usize) -> (&str, bool, bool) {
        let text = self.text();
        let start = byte_at_column(text, self.scroll);
        let mut end = start;
        let mut used = 0;
        for (i, c) in text[start..].char_indices() {
            let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
            if used + w > width {
                break;
            }
            used += w;
            end = start + i + c.len_utf8();
        }
        (&text[start..end], start > 0, end < text.len())
    }

    /// Display column (in the window) of byte `offset` of the text, if it is shown in a
    /// window `width` columns wide.
    pub fn column_of(&self, offset: usize, width: usize) -> Option<usize> {
        let text = self.text();
        let offset = floor_boundary(text, offset.min(text.len()));
        let col = text[..offset].width();
        (col >= self.scroll && col - self.scroll < width.max(1)).then(|| col - self.scroll)
    }
}

/// Byte offset of the `n`th character (the text's length past the end).
fn byte_of(text: &str, n: usize) -> usize {
    text.char_indices().nth(n).map_or(text.len(), |(i, _)| i)
}

/// Byte offset of the first character starting at display column `col` or after it.
fn byte_at_column(text: &str, col: usize) -> usize {
    let mut used = 0;
    for (i, c) in text.char_indices() {
        if used >= col {
            return i;
        }
        used += unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
    }
    text.len()
}

/// `col` moved forward to the start of a character (past a wide one it falls in).
fn snap(text: &str, col: usize) -> usize {
    text[..byte_at_column(text, col)].width()
}

fn floor_boundary(text: &str, mut i: usize) -> usize {
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(text: &str) -> LineInput {
        LineInput::new(text)
    }

    #[test]
    fn edits_at_the_cursor() {
        let mut l = line("app=web,tier=fe");
        for _ in 0..8 {
            l.edit(&Action::CursorLeft);
        }
        assert_eq!(l.cursor(), 7);
        assert_eq!(l.edit(&Action::Insert('s')), Some(true));
        assert_eq!(l.text(), "app=webs,tier=fe");
        l.edit(&Action::Backspace);
        l.edit(&Action::Backspace);
        assert_eq!(l.text(), "app=we,tier=fe");
        l.edit(&Action::DeleteChar);
        assert_eq!(l.text(), "app=wetier=fe", "Delete removed the comma");
        assert_eq!(
            l.edit(&Action::CursorRight),
            Some(false),
            "a move is no change"
        );
        assert_eq!(l.edit(&Action::FocusBar), None, "not an edit");
    }

    #[test]
    fn line_and_word_keys() {
        let mut l = line("app=web,tier=fe");
        l.edit(&Action::LineStart);
        assert_eq!(l.cursor(), 0);
        l.edit(&Action::WordRight);
        assert_eq!(l.cursor(), 4, "after `app=`");
        l.edit(&Action::LineEnd);
        l.edit(&Action::WordLeft);
        assert_eq!(l.cursor(), 13);
        l.edit(&Action::DeleteWord);
        assert_eq!(l.text(), "app=web,fe");
        l.edit(&Action::DeleteToEnd);
        assert_eq!(l.text(), "app=web,");
        l.edit(&Action::CursorLeft);
        l.edit(&Action::DeleteToStart);
        assert_eq!((l.text(), l.cursor()), (",", 0));
    }

    #[test]
    fn paste_is_one_line_at_the_cursor() {
        let mut l = line("app=,x");
        l.edit(&Action::LineStart);
        for _ in 0..4 {
            l.edit(&Action::CursorRight);
        }
        assert_eq!(l.edit(&Action::Paste("web\n".into())), Some(true));
        assert_eq!((l.text(), l.cursor()), ("app=web,x", 7));
        l.insert_str("a\nb\x1bc\td");
        assert_eq!(l.text(), "app=weba bc d,x");
    }

    #[test]
    fn scroll_follows_the_cursor_and_only_as_needed() {
        let mut l = line(&"abcdefghij".repeat(3));
        l.follow(10);
        assert_eq!(
            l.scroll(),
            21,
            "end shown with a spare column for the cursor"
        );
        let (shown, before, after) = l.visible(10);
        assert_eq!((shown, before, after), ("bcdefghij", true, false));
        for _ in 0..5 {
            l.edit(&Action::CursorLeft);
        }
        l.follow(10);
        assert_eq!(l.scroll(), 21, "cursor still visible: no scroll");
        for _ in 0..10 {
            l.edit(&Action::CursorLeft);
        }
        l.follow(10);
        assert_eq!(
            l.scroll(),
            14,
            "scrolled left to the cursor, one column of context"
        );
        assert_eq!(l.column_of(l.cursor(), 10), Some(1));
        assert_eq!(l.column_of(16, 10), Some(2));
        assert_eq!(l.column_of(3, 10), None, "left of the window");
        let (shown, before, after) = l.visible(10);
        assert_eq!((shown, before, after), ("efghijabcd", true, true));
        l.edit(&Action::LineStart);
        l.follow(10);
        assert_eq!(l.scroll(), 0);
    }

    #[test]
    fn wide_characters_are_never_split() {
        let mut l = line("名前=値値値値");
        l.follow(6);
        let (shown, before, _) = l.visible(6);
        assert!(before);
        assert!(shown.width() <= 6, "{shown:?}");
        assert!(l.text().ends_with(shown));
    }

    #[test]
    fn replace_puts_the_cursor_after_the_new_text() {
        let mut l = line("tier=f,app=x");
        l.replace(5..6, "frontend");
        assert_eq!((l.text(), l.cursor()), ("tier=frontend,app=x", 13));
        l.replace(100..200, "x");
        assert_eq!(l.text(), "tier=frontend,app=x", "out of range: unchanged");
    }
}
