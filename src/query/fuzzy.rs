//! The `~text` term: skim-style fuzzy matching on object names.

use fuzzy_matcher::skim::SkimMatcherV2;
use fuzzy_matcher::FuzzyMatcher;

/// A reusable matcher (smart case: an upper-case letter in the pattern makes it exact).
pub struct Matcher(SkimMatcherV2);

impl Matcher {
    pub fn new() -> Matcher {
        Matcher(SkimMatcherV2::default().smart_case())
    }

    pub fn matches(&self, name: &str, pattern: &str) -> bool {
        self.0.fuzzy_match(name, pattern).is_some()
    }
}

/// Char indices of `name` matched by `pattern`, for highlighting (`None`: no match).
pub fn fuzzy_indices(name: &str, pattern: &str) -> Option<Vec<usize>> {
    if pattern.is_empty() {
        return None;
    }
    Matcher::new()
        .0
        .fuzzy_indices(name, pattern)
        .map(|(_, idx)| idx)
}
