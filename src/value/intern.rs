//! Sharing repeated short strings (label keys and values, kinds, groups, namespaces,
//! apiVersions): 100k objects carry a few hundred distinct keys and a few thousand values,
//! so one `Arc<str>` each instead of one allocation per object.
//!
//! The table is per thread (loader threads never contend) and bounded: strings longer than
//! [`MAX_LEN`] are not interned, and the table is emptied when it reaches [`MAX_ENTRIES`],
//! so unique values (names, uids) cannot grow it without limit. Emptying only loses sharing,
//! never correctness: an interned string is an ordinary `Arc<str>`.

use std::cell::RefCell;

use rustc_hash::FxHashSet as HashSet;

use super::Str;

/// Longer strings are allocated as usual.
pub const MAX_LEN: usize = 96;
/// The table is cleared when it holds this many strings.
pub const MAX_ENTRIES: usize = 1 << 16;

thread_local! {
    static TABLE: RefCell<HashSet<Str>> = RefCell::new(HashSet::default());
}

/// A shared copy of `s`.
pub fn intern(s: &str) -> Str {
    if s.len() > MAX_LEN {
        return Str::from(s);
    }
    TABLE.with(|t| {
        let mut t = t.borrow_mut();
        if let Some(found) = t.get(s) {
            return found.clone();
        }
        if t.len() >= MAX_ENTRIES {
            t.clear();
        }
        let new = Str::from(s);
        t.insert(new.clone());
        new
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn repeats_share_one_allocation() {
        let a = intern("app.kubernetes.io/part-of");
        let b = intern("app.kubernetes.io/part-of");
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(&*a, "app.kubernetes.io/part-of");
        let long = "x".repeat(MAX_LEN + 1);
        assert!(!Arc::ptr_eq(&intern(&long), &intern(&long)));
    }

    #[test]
    fn a_full_table_is_emptied_not_grown() {
        for i in 0..MAX_ENTRIES + 10 {
            intern(&format!("v{i}"));
        }
        TABLE.with(|t| assert!(t.borrow().len() <= MAX_ENTRIES));
        assert_eq!(&*intern("v1"), "v1");
    }
}
