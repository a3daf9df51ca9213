//! Label selectors: `labels.Selector`, `labels.Requirement`, `selection.Operator`.
//!
//! Construction goes through [`new_requirement`], the port of upstream's
//! `NewRequirement`, so every path (parser, `matchExpressions`, node affinity)
//! validates and words its errors the same way.

use std::collections::BTreeMap;
use std::fmt;

use super::error::{field_invalid, field_not_supported, FieldPath};
use super::LabelGet;
use crate::gocompat::fmt::string_slice as go_string_slice;
use crate::gocompat::quote::quote as go_quote;
use crate::gocompat::sort::go_sort;
use crate::names::{is_qualified_name, is_valid_label_value};

pub use super::parse::parse;

/// `selection.Operator`, limited to the operators label selectors accept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operator {
    /// `=`
    Equals,
    /// `==`
    DoubleEquals,
    /// `!=`
    NotEquals,
    /// `in`
    In,
    /// `notin`
    NotIn,
    /// a bare key
    Exists,
    /// `!key`
    DoesNotExist,
    /// `gt` / `>`
    GreaterThan,
    /// `lt` / `<`
    LessThan,
}

/// Upstream's `validRequirementOperators`, in its order (binary, then unary).
pub(crate) const VALID_OPERATORS: [&str; 9] =
    ["in", "notin", "=", "==", "!=", "gt", "lt", "exists", "!"];

impl Operator {
    /// The upstream `selection.Operator` text.
    pub fn as_str(self) -> &'static str {
        match self {
            Operator::Equals => "=",
            Operator::DoubleEquals => "==",
            Operator::NotEquals => "!=",
            Operator::In => "in",
            Operator::NotIn => "notin",
            Operator::Exists => "exists",
            Operator::DoesNotExist => "!",
            Operator::GreaterThan => "gt",
            Operator::LessThan => "lt",
        }
    }

    /// Parses upstream `selection.Operator` text (case-sensitive, as upstream).
    pub fn from_text(s: &str) -> Option<Operator> {
        Some(match s {
            "=" => Operator::Equals,
            "==" => Operator::DoubleEquals,
            "!=" => Operator::NotEquals,
            "in" => Operator::In,
            "notin" => Operator::NotIn,
            "exists" => Operator::Exists,
            "!" => Operator::DoesNotExist,
            "gt" => Operator::GreaterThan,
            "lt" => Operator::LessThan,
            _ => return None,
        })
    }
}

impl fmt::Display for Operator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One requirement: key, operator and values (upstream's `strValues`, in the order given).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Requirement {
    /// The label key.
    pub key: String,
    /// The operator.
    pub operator: Operator,
    /// The values as given (the parser gives them sorted and de-duplicated).
    pub values: Vec<String>,
}

/// `validateLabelKey`: the key's qualified-name messages joined by `; `.
pub(crate) fn validate_label_key(key: &str, path: &FieldPath) -> Option<String> {
    let errs = is_qualified_name(key);
    (!errs.is_empty()).then(|| field_invalid(path, &go_quote(key), &errs.join("; ")))
}

/// `validateLabelValue`.
fn validate_label_value(key: &str, value: &str, path: &FieldPath) -> Option<String> {
    let errs = is_valid_label_value(value);
    (!errs.is_empty()).then(|| field_invalid(&path.key(key), &go_quote(value), &errs.join("; ")))
}

/// Upstream `labels.ConvertSelectorToLabelsMap`: `k=v,k2=v2` into a label set. Each
/// comma-separated part must hold exactly one `=`; key and value are trimmed of Unicode
/// white space and validated; a repeated key keeps its last value.
pub fn convert_selector_to_labels_map(selector: &str) -> Result<BTreeMap<String, String>, String> {
    let mut map = BTreeMap::new();
    if selector.is_empty() {
        return Ok(map);
    }
    for label in selector.split(',') {
        let parts: Vec<&str> = label.split('=').collect();
        let [key, value] = parts.as_slice() else {
            // Go prints the split slice with %s: `[a b c]`.
            return Err(format!("invalid selector: [{}]", parts.join(" ")));
        };
        let key = key.trim();
        if let Some(e) = validate_label_key(key, &FieldPath::nil()) {
            return Err(e);
        }
        let value = value.trim();
        if let Some(e) = validate_label_value(key, value, &FieldPath::nil()) {
            return Err(e);
        }
        map.insert(key.to_string(), value.to_string());
    }
    Ok(map)
}

/// Go's `strconv.ParseInt(s, 10, 64)` success test.
pub(crate) fn parse_go_int(s: &str) -> Option<i64> {
    s.parse::<i64>().ok()
}

/// Upstream `NewRequirement`: `op` is raw operator text, `vals` is `None` for Go's nil
/// slice. On failure returns the error list (before aggregation), in upstream order.
pub(crate) fn new_requirement(
    key: &str,
    op: &str,
    vals: Option<&[String]>,
    path: &FieldPath,
) -> Result<Requirement, Vec<String>> {
    let mut errs = Vec::new();
    errs.extend(validate_label_key(key, &path.child("key")));
    let value_path = path.child("values");
    let values = vals.unwrap_or(&[]);
    let shown = || go_string_slice(vals);
    let operator = Operator::from_text(op);
    match operator {
        Some(Operator::In | Operator::NotIn) if values.is_empty() => errs.push(field_invalid(
            &value_path,
            &shown(),
            "for 'in', 'notin' operators, values set can't be empty",
        )),
        Some(Operator::Equals | Operator::DoubleEquals | Operator::NotEquals)
            if values.len() != 1 =>
        {
            errs.push(field_invalid(
                &value_path,
                &shown(),
                "exact-match compatibility requires one single value",
            ))
        }
        Some(Operator::Exists | Operator::DoesNotExist) if !values.is_empty() => {
            errs.push(field_invalid(
                &value_path,
                &shown(),
                "values set must be empty for exists and does not exist",
            ))
        }
        Some(Operator::GreaterThan | Operator::LessThan) => {
            if values.len() != 1 {
                errs.push(field_invalid(
                    &value_path,
                    &shown(),
                    "for 'Gt', 'Lt' operators, exactly one value is required",
                ));
            }
            for (i, v) in values.iter().enumerate() {
                if parse_go_int(v).is_none() {
                    errs.push(field_invalid(
                        &value_path.index(i),
                        &go_quote(v),
                        "for 'Gt', 'Lt' operators, the value must be an integer",
                    ));
                }
            }
        }
        Some(_) => {}
        None => errs.push(field_not_supported(
            &path.child("operator"),
            &go_quote(op),
            &VALID_OPERATORS,
        )),
    }
    for (i, v) in values.iter().enumerate() {
        errs.extend(validate_label_value(key, v, &value_path.index(i)));
    }
    match operator {
        Some(operator) if errs.is_empty() => Ok(Requirement {
            key: key.to_string(),
            operator,
            values: values.to_vec(),
        }),
        _ => Err(errs),
    }
}

impl Requirement {
    /// Upstream `NewRequirement` with the nil path: validates key, values and arity.
    /// The error is upstream's aggregated message.
    pub fn new(key: &str, operator: Operator, values: Vec<String>) -> Result<Requirement, String> {
        new_requirement(key, operator.as_str(), Some(&values), &FieldPath::nil())
            .map_err(|errs| super::error::aggregate(&errs))
    }

    /// Upstream `Requirement.Matches`: `!=`/`notin` also match when the key is absent;
    /// `gt`/`lt` compare as 64-bit integers and fail on anything unparsable.
    pub fn matches(&self, labels: &impl LabelGet) -> bool {
        let got = labels.label(&self.key);
        match self.operator {
            Operator::In | Operator::Equals | Operator::DoubleEquals => {
                got.is_some_and(|v| self.has_value(v))
            }
            Operator::NotIn | Operator::NotEquals => got.is_none_or(|v| !self.has_value(v)),
            Operator::Exists => got.is_some(),
            Operator::DoesNotExist => got.is_none(),
            Operator::GreaterThan | Operator::LessThan => self.compare(got),
        }
    }

    fn has_value(&self, v: &str) -> bool {
        self.values.iter().any(|x| x == v)
    }

    fn compare(&self, got: Option<&str>) -> bool {
        let Some(have) = got.and_then(parse_go_int) else {
            return false;
        };
        let [want] = self.values.as_slice() else {
            return false;
        };
        let Some(want) = parse_go_int(want) else {
            return false;
        };
        match self.operator {
            Operator::GreaterThan => have > want,
            _ => have < want,
        }
    }

    /// The values as upstream's `Values().List()`: sorted, without duplicates.
    pub fn value_set(&self) -> Vec<String> {
        let mut v = self.values.clone();
        v.sort();
        v.dedup();
        v
    }
}

impl fmt::Display for Requirement {
    /// Upstream `Requirement.String()`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.operator == Operator::DoesNotExist {
            f.write_str("!")?;
        }
        f.write_str(&self.key)?;
        let (open, close) = match self.operator {
            Operator::Equals => ("=", ""),
            Operator::DoubleEquals => ("==", ""),
            Operator::NotEquals => ("!=", ""),
            Operator::In => (" in (", ")"),
            Operator::NotIn => (" notin (", ")"),
            Operator::GreaterThan => (">", ""),
            Operator::LessThan => ("<", ""),
            Operator::Exists | Operator::DoesNotExist => return Ok(()),
        };
        f.write_str(open)?;
        if let [one] = self.values.as_slice() {
            f.write_str(one)?;
        } else {
            let mut sorted: Vec<&str> = self.values.iter().map(String::as_str).collect();
            sorted.sort_unstable();
            f.write_str(&sorted.join(","))?;
        }
        f.write_str(close)
    }
}

/// A parsed label selector: requirements ANDed, sorted by key as upstream sorts them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selector {
    reqs: Vec<Requirement>,
}

impl Selector {
    /// Builds a selector the way upstream's `Selector.Add` does: append, then Go's
    /// (unstable) sort by key.
    pub fn from_requirements(mut reqs: Vec<Requirement>) -> Selector {
        go_sort(&mut reqs, |a, b| a.key < b.key);
        Selector { reqs }
    }

    /// The selector that matches everything (`labels.Everything()`).
    pub fn everything() -> Selector {
        Selector::default()
    }

    /// True when every requirement matches.
    pub fn matches(&self, labels: &impl LabelGet) -> bool {
        self.reqs.iter().all(|r| r.matches(labels))
    }

    /// The first requirement that does not match, if any (for explaining a "no").
    pub fn first_failing(&self, labels: &impl LabelGet) -> Option<&Requirement> {
        self.reqs.iter().find(|r| !r.matches(labels))
    }

    /// The requirements, in upstream order.
    pub fn requirements(&self) -> &[Requirement] {
        &self.reqs
    }

    /// Upstream `Empty()`: no requirements.
    pub fn is_empty(&self) -> bool {
        self.reqs.is_empty()
    }
}

impl fmt::Display for Selector {
    /// Upstream `String()`: requirements joined by `,`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        super::write_joined(f, &self.reqs)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn req(key: &str, op: Operator, vals: &[&str]) -> Requirement {
        match Requirement::new(key, op, vals.iter().map(|s| s.to_string()).collect()) {
            Ok(r) => r,
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn negative_operators_match_missing_keys() {
        let l = labels(&[("a", "1")]);
        assert!(req("b", Operator::NotEquals, &["x"]).matches(&l));
        assert!(req("b", Operator::NotIn, &["x"]).matches(&l));
        assert!(!req("a", Operator::NotIn, &["1"]).matches(&l));
        assert!(!req("b", Operator::In, &["x"]).matches(&l));
    }

    #[test]
    fn gt_lt_are_integer_comparisons() {
        let l = labels(&[("n", "+6"), ("m", "05"), ("bad", "x")]);
        assert!(req("n", Operator::GreaterThan, &["5"]).matches(&l));
        assert!(!req("m", Operator::GreaterThan, &["5"]).matches(&l));
        assert!(req("m", Operator::LessThan, &["6"]).matches(&l));
        assert!(!req("bad", Operator::LessThan, &["6"]).matches(&l));
        assert!(!req("none", Operator::LessThan, &["6"]).matches(&l));
    }

    #[test]
    fn string_form_sorts_values_only_on_output() {
        let r = req("env", Operator::In, &["b", "a", "b"]);
        assert_eq!(r.to_string(), "env in (a,b,b)");
        assert_eq!(r.values, vec!["b", "a", "b"]);
        assert_eq!(r.value_set(), vec!["a", "b"]);
        assert_eq!(req("x", Operator::DoesNotExist, &[]).to_string(), "!x");
        assert_eq!(req("x", Operator::LessThan, &["5"]).to_string(), "x<5");
    }

    #[test]
    fn labels_map_from_text() {
        let m = convert_selector_to_labels_map(" a = 1 ,b=,a=2");
        assert_eq!(m, Ok(labels(&[("a", "2"), ("b", "")])));
        assert_eq!(convert_selector_to_labels_map(""), Ok(BTreeMap::new()));
        assert_eq!(
            convert_selector_to_labels_map("a=b=c"),
            Err("invalid selector: [a b c]".to_string())
        );
        assert_eq!(
            convert_selector_to_labels_map("a,b=1"),
            Err("invalid selector: [a]".to_string())
        );
        assert!(convert_selector_to_labels_map("a=-x")
            .err()
            .is_some_and(|e| e.starts_with("[a]: Invalid value: \"-x\": a valid label")));
        assert!(convert_selector_to_labels_map("=x").err().is_some_and(
            |e| e.starts_with("<nil>: Invalid value: \"\": name part must be non-empty")
        ));
    }

    #[test]
    fn new_requirement_errors_in_upstream_order() {
        let e = Requirement::new("x", Operator::GreaterThan, vec!["-a".into()]);
        let msg = e.err().unwrap_or_default();
        assert!(msg.starts_with("[values[0]: Invalid value: \"-a\": for 'Gt', 'Lt' operators, the value must be an integer, values[0][x]: Invalid value: \"-a\": a valid label"));
        let unknown = new_requirement("x", "Gt", None, &FieldPath::nil());
        assert_eq!(
            unknown.err().map(|e| e.join("|")),
            Some("operator: Unsupported value: \"Gt\": supported values: \"in\", \"notin\", \"=\", \"==\", \"!=\", \"gt\", \"lt\", \"exists\", \"!\"".to_string())
        );
    }
}
