//! Requirements in plain words, for `kubesift selector` and the UI's selector bar.

use super::fields::{FieldOperator, FieldRequirement};
use super::labels::{Operator, Requirement};

/// A value as shown in prose: empty strings are made visible.
fn shown(v: &str) -> String {
    if v.is_empty() {
        "\"\" (empty)".to_string()
    } else {
        v.to_string()
    }
}

/// Joins values as "a", "a or b", "a, b or c" with the given conjunction.
fn listed(values: &[String], conj: &str) -> String {
    let mut v: Vec<String> = values.iter().map(|s| shown(s)).collect();
    v.sort();
    v.dedup();
    match v.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} {conj} {last}", rest.join(", ")),
    }
}

/// One label requirement in words, e.g. `env in (prod,qa)` → "env is prod or qa".
pub fn requirement(r: &Requirement) -> String {
    let k = &r.key;
    let one = r.values.first().map(|v| shown(v)).unwrap_or_default();
    match r.operator {
        Operator::Equals | Operator::DoubleEquals => format!("{k} is {one}"),
        Operator::NotEquals => format!("{k} is not {one} (or {k} is not set)"),
        Operator::In => format!("{k} is {}", listed(&r.values, "or")),
        Operator::NotIn if r.value_set().len() == 1 => {
            format!("{k} is not {one} (or {k} is not set)")
        }
        Operator::NotIn => format!(
            "{k} is neither {} (or {k} is not set)",
            listed(&r.values, "nor")
        ),
        Operator::Exists => format!("{k} is set, to any value"),
        Operator::DoesNotExist => format!("{k} is not set"),
        Operator::GreaterThan => format!("{k} is an integer greater than {one}"),
        Operator::LessThan => format!("{k} is an integer less than {one}"),
    }
}

/// One field requirement in words (a missing field counts as empty).
pub fn field_requirement(r: &FieldRequirement) -> String {
    match r.operator {
        FieldOperator::Equals => format!("{} is {}", r.field, shown(&r.value)),
        FieldOperator::NotEquals => format!("{} is not {}", r.field, shown(&r.value)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::selector::parse_labels;

    fn words(s: &str) -> Vec<String> {
        match parse_labels(s) {
            Ok(sel) => sel.requirements().iter().map(requirement).collect(),
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn reads_like_english() {
        assert_eq!(words("env in (prod,qa)"), vec!["env is prod or qa"]);
        assert_eq!(words("env in (a,b,c)"), vec!["env is a, b or c"]);
        assert_eq!(words("!x"), vec!["x is not set"]);
        assert_eq!(words("x="), vec!["x is \"\" (empty)"]);
        assert_eq!(
            words("t notin (a,b)"),
            vec!["t is neither a nor b (or t is not set)"]
        );
        assert_eq!(words("n>3"), vec!["n is an integer greater than 3"]);
        assert_eq!(words("t notin (a)"), vec!["t is not a (or t is not set)"]);
        assert_eq!(
            words("t notin ()"),
            vec!["t is not \"\" (empty) (or t is not set)"]
        );
    }
}
