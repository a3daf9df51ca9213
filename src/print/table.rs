//! Column alignment exactly as kubectl's tabwriter does it
//! (`text/tabwriter.NewWriter(out, 10, 4, 3, ' ', 0)` in cli-runtime's printers): every cell
//! but the last of a row is padded to `max(10, widest cell + 3)` characters. Cells are
//! cut and escaped as `printRows` writes them (`gocompat::escape::table_cell`).

use std::borrow::Cow;

use crate::gocompat::escape::table_cell;

/// Rows of cells printed as one aligned block (one kubectl table).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Table {
    pub rows: Vec<Vec<String>>,
}

const MIN_WIDTH: usize = 10;
const PADDING: usize = 3;

impl Table {
    /// Renders the block, one `\n`-terminated line per row.
    pub fn render(&self) -> String {
        let rows: Vec<Vec<Cow<'_, str>>> = self
            .rows
            .iter()
            .map(|r| r.iter().map(|c| table_cell(c)).collect())
            .collect();
        let widths = widths(&rows);
        let mut out = String::new();
        for row in &rows {
            for (i, cell) in row.iter().enumerate() {
                out.push_str(cell);
                if i + 1 < row.len() {
                    let pad = widths[i].saturating_sub(cell.chars().count());
                    out.extend(std::iter::repeat_n(' ', pad));
                }
            }
            out.push('\n');
        }
        out
    }
}

/// Width of each column that is followed by another (the last is never padded), measured
/// on the cells as printed.
fn widths(rows: &[Vec<Cow<'_, str>>]) -> Vec<usize> {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    (0..cols)
        .map(|c| {
            let widest = rows
                .iter()
                .filter(|r| c + 1 < r.len())
                .filter_map(|r| r.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0);
            (widest + PADDING).max(MIN_WIDTH)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(cells: &[&str]) -> Vec<String> {
        cells.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn pads_like_kubectl() {
        let t = Table {
            rows: vec![
                row(&["NAME", "READY", "AGE"]),
                row(&["web-7d4b9c6f5d-abcde", "1/1", "5m"]),
            ],
        };
        assert_eq!(
            t.render(),
            "NAME                   READY     AGE\nweb-7d4b9c6f5d-abcde   1/1       5m\n"
        );
    }

    #[test]
    fn cells_cut_and_escaped_before_measuring() {
        let t = Table {
            rows: vec![
                row(&["a\u{1b}]0;x\u{7}", "b"]),
                row(&["Running\r\u{1b}[KFailed", "c"]),
            ],
        };
        assert_eq!(t.render(), "a^[]0;x\\a    b\nRunning...   c\n");
    }

    #[test]
    fn last_column_unpadded_and_unicode_counted_by_char() {
        let t = Table {
            rows: vec![row(&["é", "x"]), row(&["ab", "longer"])],
        };
        assert_eq!(t.render(), "é         x\nab        longer\n");
    }
}
