//! Helpers for the wording of findings (problems in the loaded objects, not in the files'
//! syntax).

/// Joins up to `max` items and says how many more there are.
pub fn list_some(items: &[String], max: usize) -> String {
    let mut out = items
        .iter()
        .take(max)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > max {
        out.push_str(&format!(" and {} more", items.len() - max));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_truncates() {
        let items: Vec<String> = (0..5).map(|i| i.to_string()).collect();
        assert_eq!(list_some(&items, 3), "0, 1, 2 and 2 more");
        assert_eq!(list_some(&items[..2], 3), "0, 1");
    }
}
