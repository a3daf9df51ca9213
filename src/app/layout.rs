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

impl Screen {
    pub fn new(area: Rect) -> Screen {
        let row = |y: u16, h: u16| Rect::new(area.x, y, area.width, h);
        let bottom = area.y + area.height;
        let table_h = area.height.saturating_sub(4);
        Screen {
            header: row(area.y, 1.min(area.height)),
            table: row(area.y + 1, table_h),
            bar: row(bottom.saturating_sub(3).max(area.y), 2.min(area.height)),
            status: row(bottom.saturating_sub(1), 1.min(area.height)),
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
