//! Screen layout, shared by `update` (mouse clicks, page size, scroll limits) and drawing.

use ratatui::layout::Rect;

/// Where each part of the main screen goes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Screen {
    /// `N of M objects` and active filters.
    pub header: Rect,
    /// Column titles plus body.
    pub table: Rect,
    /// The selector bar: the text, then the caret/error (or hint) line.
    pub bar: Rect,
    pub status: Rect,
}

/// Rows the table keeps (header, titles, a few objects) however many the bar asks for.
const MIN_TABLE_ROWS: u16 = 4;

impl Screen {
    /// The layout with a two-row bar (its text, then the caret or hints).
    pub fn new(area: Rect) -> Screen {
        Screen::with_bar(area, 2)
    }

    /// The layout with a bar of `bar_rows` rows (an error wrapped below the text takes
    /// more), as far as the table keeps [`MIN_TABLE_ROWS`] rows.
    pub fn with_bar(area: Rect, bar_rows: usize) -> Screen {
        let row = |y: u16, h: u16| Rect::new(area.x, y, area.width, h);
        let bottom = area.y + area.height;
        let room = area.height.saturating_sub(2 + MIN_TABLE_ROWS).max(2);
        let bar_h = u16::try_from(bar_rows).unwrap_or(u16::MAX).clamp(2, room);
        let table_h = area.height.saturating_sub(2 + bar_h);
        Screen {
            header: row(area.y, 1.min(area.height)),
            table: row(area.y + 1, table_h),
            bar: row(
                bottom.saturating_sub(1 + bar_h).max(area.y),
                bar_h.min(area.height),
            ),
            status: row(bottom.saturating_sub(1), 1.min(area.height)),
        }
    }

    /// The whole screen this layout divides.
    pub fn area(&self) -> Rect {
        Rect {
            height: self.status.bottom().saturating_sub(self.header.y),
            ..self.header
        }
    }

    /// Rows available for table body rows (below the column titles).
    pub fn body_height(&self) -> usize {
        self.table.height.saturating_sub(1) as usize
    }

    /// First screen row of the table body.
    pub fn body_top(&self) -> u16 {
        self.table.y + 1
    }

    /// Header and table together: where the detail, problems and tree views and the
    /// overlays (help, pickers) go.
    pub fn main(&self) -> Rect {
        Rect {
            height: self.header.height + self.table.height,
            ..self.header
        }
    }

    /// Rows of text inside a bordered view filling [`Screen::main`].
    pub fn view_height(&self) -> usize {
        self.main().height.saturating_sub(2) as usize
    }
}
