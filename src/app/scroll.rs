//! Scroll arithmetic shared by the views: every offset is kept valid here, in `update`, from
//! the content length the state knows, so a key pressed past an end is never swallowed.

use super::Action;

/// The first visible line of a text `len` lines long shown `height` lines at a time, after
/// a scrolling `action`; `None` when `action` does not scroll. The last page is always
/// full: the offset never passes `len - height`.
pub fn scrolled(offset: usize, action: &Action, len: usize, height: usize) -> Option<usize> {
    let page = height.max(1);
    let offset = match action {
        Action::Up | Action::ScrollUp => offset.saturating_sub(1),
        Action::Down | Action::ScrollDown => offset.saturating_add(1),
        Action::PageUp => offset.saturating_sub(page),
        Action::PageDown => offset.saturating_add(page),
        Action::Top => 0,
        Action::Bottom => usize::MAX,
        _ => return None,
    };
    Some(offset.min(max_offset(len, height)))
}

/// The offset showing the last page of `len` lines.
pub fn max_offset(len: usize, height: usize) -> usize {
    len.saturating_sub(height.max(1))
}

/// The offset that keeps row `selected` of a list visible in `height` rows, moving the
/// window as little as possible from `offset`.
pub fn follow(selected: usize, offset: usize, len: usize, height: usize) -> usize {
    let h = height.max(1);
    let offset = if selected < offset {
        selected
    } else if selected >= offset + h {
        selected + 1 - h
    } else {
        offset
    };
    offset.min(max_offset(len, h))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scrolling_stops_at_the_last_page_and_steps_back_from_it() {
        assert_eq!(scrolled(0, &Action::Bottom, 100, 10), Some(90));
        assert_eq!(scrolled(90, &Action::Down, 100, 10), Some(90));
        assert_eq!(scrolled(90, &Action::Up, 100, 10), Some(89));
        assert_eq!(scrolled(85, &Action::PageDown, 100, 10), Some(90));
        assert_eq!(scrolled(5, &Action::PageUp, 100, 10), Some(0));
        assert_eq!(scrolled(7, &Action::Top, 100, 10), Some(0));
        assert_eq!(
            scrolled(3, &Action::Down, 5, 10),
            Some(0),
            "fits: no scroll"
        );
        assert_eq!(scrolled(3, &Action::Open, 100, 10), None);
    }

    #[test]
    fn following_a_selection_moves_the_window_least() {
        assert_eq!(follow(12, 0, 100, 10), 3);
        assert_eq!(follow(5, 3, 100, 10), 3);
        assert_eq!(follow(2, 3, 100, 10), 2);
        assert_eq!(follow(4, 50, 5, 10), 0, "a window past the end comes back");
    }
}
