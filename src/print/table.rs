//! Column alignment exactly as kubectl's tabwriter does it: cli-runtime's
//! `printers.GetNewTabWriter` is `tabwriter.NewWriter(out, 6, 4, 3, ' ', RememberWidths)`
//! (minwidth 6, tabwidth 4, padding 3, spaces). Each row is a line of tab-terminated cells
//! followed by a last cell; Go's `text/tabwriter` aligns *column blocks* — runs of
//! consecutive lines that all have a cell in that column — padding each cell of a block to
//! `max(6, widest cell of the block + 3)` characters (runes), and never pads a line's last
//! cell. Cells are cut and escaped as `printRows` writes them
//! (`gocompat::escape::table_cell`), so no tab, newline or form feed reaches the writer.
//! One [`Table`] is one flush: kubectl flushes between kinds and forgets the remembered
//! widths (`SetRememberedWidths(nil)`), which is why each kind's table is aligned on its own.

use std::borrow::Cow;

use crate::gocompat::escape::table_cell;

/// Rows of cells printed as one aligned block (one kubectl table).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Table {
    pub rows: Vec<Vec<String>>,
}

/// `tabwriterMinWidth`: a padded cell is never narrower.
const MIN_WIDTH: usize = 6;
/// `tabwriterPadding`: added to the widest cell of a column block.
const PADDING: usize = 3;

impl Table {
    /// Renders the block, one `\n`-terminated line per row.
    pub fn render(&self) -> String {
        self.render_remembering(&mut Vec::new())
    }

    /// Renders the block as a later flush of the same writer: no column narrower than in
    /// the blocks `remembered` has seen (kubectl's `get -w` keeps one writer for the whole
    /// watch, so each event line lines up with the list and the lines before it).
    pub fn render_remembering(&self, remembered: &mut Vec<usize>) -> String {
        let rows: Vec<Vec<Cow<'_, str>>> = self
            .rows
            .iter()
            .map(|r| r.iter().map(|c| table_cell(c)).collect())
            .collect();
        let lines: Vec<Vec<(&str, usize)>> = rows
            .iter()
            .map(|r| r.iter().map(|c| (c.as_ref(), c.chars().count())).collect())
            .collect();
        let mut out = String::new();
        format(&lines, &mut Vec::new(), remembered, &mut out);
        out
    }
}

/// Go's `(*tabwriter.Writer).format`: finds the column blocks of column `widths.len()` in
/// `lines`, recursing into each with its width pushed, and writes the lines of no block as
/// they are. With liggitt/tabwriter's `RememberWidths` (kubectl's flag) a column never gets
/// narrower than it was in an earlier block: `remembered` keeps the widest per column.
fn format(
    lines: &[Vec<(&str, usize)>],
    widths: &mut Vec<usize>,
    remembered: &mut Vec<usize>,
    out: &mut String,
) {
    let column = widths.len();
    let in_column = |line: &Vec<(&str, usize)>| column + 1 < line.len();
    let mut start = 0;
    let mut this = 0;
    while this < lines.len() {
        if !in_column(&lines[this]) {
            this += 1;
            continue;
        }
        write_lines(&lines[start..this], widths, out);
        let end = lines[this..]
            .iter()
            .position(|l| !in_column(l))
            .map_or(lines.len(), |n| this + n);
        let widest = lines[this..end]
            .iter()
            .map(|l| l[column].1 + PADDING)
            .max()
            .unwrap_or(0);
        let width = remember(remembered, widths, widest.max(MIN_WIDTH));
        widths.push(width);
        format(&lines[this..end], widths, remembered, out);
        widths.pop();
        start = end;
        this = end;
    }
    write_lines(&lines[start..], widths, out);
}

/// The width of column `widths.len()` once `RememberWidths` has seen it: the widest so far.
fn remember(remembered: &mut Vec<usize>, widths: &[usize], width: usize) -> usize {
    let column = widths.len();
    if remembered.len() < column {
        remembered.extend_from_slice(&widths[remembered.len()..]);
    }
    match remembered.get_mut(column) {
        None => {
            remembered.push(width);
            width
        }
        Some(w) => {
            *w = (*w).max(width);
            *w
        }
    }
}

/// Go's `writeLines`: each cell, padded with spaces to its column's width when it belongs
/// to a column of the current block.
fn write_lines(lines: &[Vec<(&str, usize)>], widths: &[usize], out: &mut String) {
    for line in lines {
        for (j, &(text, width)) in line.iter().enumerate() {
            out.push_str(text);
            if let Some(&w) = widths.get(j) {
                out.extend(std::iter::repeat_n(' ', w.saturating_sub(width)));
            }
        }
        out.push('\n');
    }
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
            "NAME                   READY   AGE\nweb-7d4b9c6f5d-abcde   1/1     5m\n"
        );
    }

    #[test]
    fn min_width_six_padding_three() {
        // The example: a 8-character name, columns of 5 to 10 characters.
        let t = Table {
            rows: vec![
                row(&["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"]),
                row(&["checkout", "0/1", "0", "0", "22d"]),
                row(&["", "", "", "", ""]),
            ],
        };
        assert_eq!(
            t.render(),
            format!(
                "NAME       READY   UP-TO-DATE   AVAILABLE   AGE\n\
                 checkout   0/1     0            0           22d\n{}\n",
                " ".repeat(11 + 8 + 13 + 12)
            )
        );
        // Narrow columns still take six characters.
        let t = Table {
            rows: vec![row(&["A", "B", "C"]), row(&["1", "22", "333"])],
        };
        assert_eq!(t.render(), "A     B     C\n1     22    333\n");
    }

    #[test]
    fn column_blocks_like_go_tabwriter() {
        // A column is aligned over consecutive lines that have a cell in it; a shorter
        // line ends the block, and the next block is measured on its own but never made
        // narrower than the column was before (RememberWidths).
        let t = Table {
            rows: vec![
                row(&["a", "b", "c"]),
                row(&["aaaa", "b"]),
                row(&["x", "yyyyyyyy", "z"]),
                row(&["lonely"]),
                row(&["p", "q"]),
            ],
        };
        assert_eq!(
            t.render(),
            "a      b     c\naaaa   b\nx      yyyyyyyy   z\nlonely\np      q\n"
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
        assert_eq!(t.render(), "é     x\nab    longer\n");
    }
}
