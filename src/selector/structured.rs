//! Selectors written as objects: `metav1.LabelSelector`, `map[string]string`
//! selectors, and `v1.NodeSelector` (component-helpers' `nodeaffinity`).

use crate::value::{RawArray, RawKind, RawObject, RawRef};

use super::error::{aggregate, field_invalid, field_not_supported, FieldPath};
use super::fields::{FieldOperator, FieldRequirement, FieldSelector};
use super::labels::{new_requirement, Operator, Requirement, Selector};
use super::LabelGet;
use crate::gocompat::fmt::string_slice as go_string_slice;
use crate::gocompat::quote::quote as go_quote;

/// Go's JSON decoding of a `map[string]string`: null/absent is empty.
fn string_map<'a>(v: Option<RawRef<'a>>, what: &str) -> Result<Vec<(&'a str, &'a str)>, String> {
    let obj = match v.map(RawRef::kind) {
        None | Some(RawKind::Null) => return Ok(Vec::new()),
        Some(RawKind::Object(o)) => o,
        Some(_) => {
            let other = v.unwrap_or_else(RawRef::null);
            return Err(format!(
                "{what}: expected an object of strings, got {other}"
            ));
        }
    };
    let mut pairs = Vec::with_capacity(obj.len());
    for (k, val) in obj {
        match val.kind() {
            RawKind::String(s) => pairs.push((k, s)),
            // Go decodes `null` into a string as the zero value.
            RawKind::Null => pairs.push((k, "")),
            _ => return Err(format!("{what}.{k}: expected a string, got {val}")),
        }
    }
    // Go iterates maps in random order; keys are unique, so sorting is the stable choice.
    pairs.sort_unstable();
    Ok(pairs)
}

/// Go's JSON decoding of a slice: null/absent is nil (`None`).
fn array<'a>(v: Option<RawRef<'a>>, what: &str) -> Result<Option<RawArray<'a>>, String> {
    match v {
        None => Ok(None),
        Some(v) if v.is_null() => Ok(None),
        Some(v) => v
            .as_array()
            .map(Some)
            .ok_or_else(|| format!("{what}: expected an array, got {v}")),
    }
}

/// A `string` field of an object: absent or null is `""`.
fn string_field<'a>(obj: RawObject<'a>, name: &str) -> Result<&'a str, String> {
    match obj.get(name) {
        None => Ok(""),
        Some(v) if v.is_null() => Ok(""),
        Some(v) => v
            .as_str()
            .ok_or_else(|| format!("{name}: expected a string, got {v}")),
    }
}

/// A `[]string` field: `None` for Go's nil slice (absent or null).
fn string_list(obj: RawObject<'_>, name: &str) -> Result<Option<Vec<String>>, String> {
    let Some(items) = array(obj.get(name), name)? else {
        return Ok(None);
    };
    items
        .iter()
        .map(|v| match v.kind() {
            RawKind::String(s) => Ok(s.to_owned()),
            RawKind::Null => Ok(String::new()),
            _ => Err(format!("{name}: expected strings, got {v}")),
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

fn as_object<'a>(v: RawRef<'a>, what: &str) -> Result<RawObject<'a>, String> {
    v.as_object()
        .ok_or_else(|| format!("{what}: expected an object, got {v}"))
}

/// metav1.LabelSelector JSON (`matchLabels`/`matchExpressions`) → `Ok(None)` for JSON
/// null/absent (selects nothing), `Ok(Some(empty))` for `{}` (selects everything),
/// `Err(upstream message)` as `metav1.LabelSelectorAsSelector` words it.
pub fn label_selector_from_value(v: Option<RawRef<'_>>) -> Result<Option<Selector>, String> {
    let obj = match v {
        None => return Ok(None),
        Some(v) if v.is_null() => return Ok(None),
        Some(v) => as_object(v, "selector")?,
    };
    let labels = string_map(obj.get("matchLabels"), "matchLabels")?;
    let exprs = array(obj.get("matchExpressions"), "matchExpressions")?.unwrap_or_default();
    let mut reqs = Vec::with_capacity(labels.len() + exprs.len());
    for (k, val) in labels {
        let vals = [val.to_string()];
        reqs.push(
            new_requirement(k, "=", Some(&vals), &FieldPath::nil()).map_err(|e| aggregate(&e))?,
        );
    }
    for expr in exprs {
        let expr = as_object(expr, "matchExpressions")?;
        let op = string_field(expr, "operator")?;
        let op = match op {
            "In" => Operator::In,
            "NotIn" => Operator::NotIn,
            "Exists" => Operator::Exists,
            "DoesNotExist" => Operator::DoesNotExist,
            other => {
                return Err(format!(
                    "{} is not a valid label selector operator",
                    go_quote(other)
                ))
            }
        };
        // Upstream copies with append([]string(nil), …): an empty list becomes nil.
        let values = string_list(expr, "values")?.filter(|v| !v.is_empty());
        let key = string_field(expr, "key")?;
        reqs.push(
            new_requirement(key, op.as_str(), values.as_deref(), &FieldPath::nil())
                .map_err(|e| aggregate(&e))?,
        );
    }
    Ok(Some(Selector::from_requirements(reqs)))
}

/// `Service.spec.selector` / `nodeSelector` maps (SelectorFromSet semantics, no
/// validation); an empty or absent map gives `None`.
pub fn map_selector(v: Option<RawRef<'_>>) -> Result<Option<Selector>, String> {
    let pairs = string_map(v, "selector")?;
    if pairs.is_empty() {
        return Ok(None);
    }
    let reqs = pairs
        .into_iter()
        .map(|(k, v)| Requirement {
            key: k.to_string(),
            operator: Operator::Equals,
            values: vec![v.to_string()],
        })
        .collect();
    Ok(Some(Selector::from_requirements(reqs)))
}

/// One parsed `NodeSelectorTerm`: its label part and its field part, each optional.
#[derive(Debug, Clone)]
struct NodeTerm {
    labels: Option<Selector>,
    fields: Option<FieldSelector>,
}

/// component-helpers' `nodeaffinity.NodeSelector`: terms ORed, expressions ANDed.
#[derive(Debug, Clone)]
pub struct NodeSelector {
    terms: Vec<NodeTerm>,
}

/// Maps a `NodeSelectorOperator` to the label operator upstream converts it to.
fn node_operator(op: &str) -> Option<Operator> {
    Some(match op {
        "In" => Operator::In,
        "NotIn" => Operator::NotIn,
        "Exists" => Operator::Exists,
        "DoesNotExist" => Operator::DoesNotExist,
        "Gt" => Operator::GreaterThan,
        "Lt" => Operator::LessThan,
        _ => return None,
    })
}

/// `nodeSelectorRequirementsAsSelector`: every expression's errors, in order.
fn term_labels(
    exprs: RawArray<'_>,
    path: &FieldPath,
    errs: &mut Vec<String>,
) -> Result<Option<Selector>, String> {
    let mut reqs = Vec::new();
    let before = errs.len();
    for (i, expr) in exprs.iter().enumerate() {
        let p = path.index(i);
        let expr = as_object(expr, "matchExpressions")?;
        let raw = string_field(expr, "operator")?;
        let Some(op) = node_operator(raw) else {
            errs.push(field_not_supported(
                &p.child("operator"),
                &go_quote(raw),
                &[],
            ));
            continue;
        };
        let values = string_list(expr, "values")?;
        match new_requirement(
            string_field(expr, "key")?,
            op.as_str(),
            values.as_deref(),
            &p,
        ) {
            Ok(r) => reqs.push(r),
            Err(e) => errs.extend(e),
        }
    }
    Ok((errs.len() == before).then(|| Selector::from_requirements(reqs)))
}

/// `nodeSelectorRequirementsAsFieldSelector`: `In`/`NotIn` with exactly one value.
fn term_fields(
    exprs: RawArray<'_>,
    path: &FieldPath,
    errs: &mut Vec<String>,
) -> Result<Option<FieldSelector>, String> {
    let mut reqs = Vec::new();
    let before = errs.len();
    for (i, expr) in exprs.iter().enumerate() {
        let p = path.index(i);
        let expr = as_object(expr, "matchFields")?;
        let raw = string_field(expr, "operator")?;
        let operator = match raw {
            "In" => FieldOperator::Equals,
            "NotIn" => FieldOperator::NotEquals,
            _ => {
                errs.push(field_not_supported(
                    &p.child("operator"),
                    &go_quote(raw),
                    &["In", "NotIn"],
                ));
                continue;
            }
        };
        let values = string_list(expr, "values")?;
        match values.as_deref() {
            Some([one]) => reqs.push(FieldRequirement {
                field: string_field(expr, "key")?.to_string(),
                operator,
                value: one.clone(),
            }),
            other => errs.push(field_invalid(
                &p.child("values"),
                &go_string_slice(other),
                "must have one element",
            )),
        }
    }
    Ok((errs.len() == before).then(|| FieldSelector::from_requirements(reqs)))
}

impl NodeSelector {
    /// `nodeaffinity.NewNodeSelector` over v1.NodeSelector JSON (`nodeSelectorTerms`).
    /// All terms' parse errors are reported together, as upstream's flattened aggregate.
    pub fn from_value(v: RawRef<'_>) -> Result<NodeSelector, String> {
        let obj = as_object(v, "nodeSelector")?;
        let terms = array(obj.get("nodeSelectorTerms"), "nodeSelectorTerms")?.unwrap_or_default();
        NodeSelector::from_terms(terms)
    }

    /// Same as [`NodeSelector::from_value`] given the `nodeSelectorTerms` array itself.
    pub fn from_terms(terms: RawArray<'_>) -> Result<NodeSelector, String> {
        let path = FieldPath::root("nodeSelectorTerms");
        let mut errs = Vec::new();
        let mut parsed = Vec::new();
        for (i, term) in terms.iter().enumerate() {
            let term = as_object(term, "nodeSelectorTerms")?;
            let exprs =
                array(term.get("matchExpressions"), "matchExpressions")?.unwrap_or_default();
            let fields = array(term.get("matchFields"), "matchFields")?.unwrap_or_default();
            // A nil or empty term selects nothing and is skipped unparsed.
            if exprs.is_empty() && fields.is_empty() {
                continue;
            }
            let p = path.index(i);
            let labels = if exprs.is_empty() {
                None
            } else {
                term_labels(exprs, &p.child("matchExpressions"), &mut errs)?
            };
            let fields = if fields.is_empty() {
                None
            } else {
                term_fields(fields, &p.child("matchFields"), &mut errs)?
            };
            parsed.push(NodeTerm { labels, fields });
        }
        if !errs.is_empty() {
            return Err(aggregate(&errs));
        }
        Ok(NodeSelector { terms: parsed })
    }

    /// `NodeSelector.Match` against a node with this name and these labels. The field
    /// part is only consulted when the node has a name (upstream's empty `fields.Set`).
    pub fn matches(&self, node_name: &str, labels: &impl LabelGet) -> bool {
        let get = |k: &str| (k == "metadata.name").then(|| node_name.to_string());
        self.terms.iter().any(|t| {
            t.labels.as_ref().is_none_or(|s| s.matches(labels))
                && (node_name.is_empty() || t.fields.as_ref().is_none_or(|f| f.matches(&get)))
        })
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde_json::json;

    use super::*;
    use crate::value::Raw;

    /// A view of a JSON literal (leaked: test-only).
    macro_rules! j {
        ($($t:tt)*) => {
            Box::leak(Box::new(Raw::from(json!($($t)*)))).view()
        };
    }

    #[test]
    fn nil_empty_and_full_label_selectors() {
        assert_eq!(label_selector_from_value(None), Ok(None));
        assert_eq!(label_selector_from_value(Some(RawRef::null())), Ok(None));
        let all = label_selector_from_value(Some(j!({}))).ok().flatten();
        assert!(all.is_some_and(|s| s.is_empty()));
        let s = label_selector_from_value(Some(j!({
            "matchLabels": {"b": "1", "a": "2"},
            "matchExpressions": [{"key": "env", "operator": "In", "values": ["qa", "prod"]}]
        })));
        assert_eq!(
            s.ok().flatten().map(|s| s.to_string()),
            Some("a=2,b=1,env in (prod,qa)".to_string())
        );
    }

    #[test]
    fn label_selector_errors() {
        let bad = label_selector_from_value(Some(
            j!({"matchExpressions": [{"key": "a", "operator": "Gt"}]}),
        ));
        assert_eq!(
            bad,
            Err("\"Gt\" is not a valid label selector operator".to_string())
        );
        let nil_values = label_selector_from_value(Some(
            j!({"matchExpressions": [{"key": "a", "operator": "In", "values": []}]}),
        ));
        assert_eq!(nil_values, Err("values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty".to_string()));
    }

    #[test]
    fn map_selectors() {
        assert_eq!(map_selector(Some(j!({}))), Ok(None));
        let s = map_selector(Some(j!({"tier": "web", "app": "x"})))
            .ok()
            .flatten();
        assert_eq!(s.map(|s| s.to_string()), Some("app=x,tier=web".to_string()));
    }

    #[test]
    fn node_selector_terms_or_expressions_and() {
        let ns = NodeSelector::from_value(j!({"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "cpu", "operator": "Gt", "values": ["4"]}, {"key": "zone", "operator": "In", "values": ["a"]}]},
            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["node-9"]}]}
        ]}));
        let Ok(ns) = ns else { panic!("{ns:?}") };
        let l: BTreeMap<String, String> = [
            ("cpu".to_string(), "8".to_string()),
            ("zone".to_string(), "a".to_string()),
        ]
        .into();
        assert!(ns.matches("node-1", &l));
        let small: BTreeMap<String, String> = [("cpu".to_string(), "2".to_string())].into();
        assert!(!ns.matches("node-1", &small));
        assert!(ns.matches("node-9", &small));
        // Without a name, the field part is not consulted at all.
        assert!(ns.matches("", &small));
    }

    #[test]
    fn node_selector_errors_are_aggregated() {
        let ns = NodeSelector::from_value(j!({"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "zone", "operator": "Bogus"}]},
            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": []}]}
        ]}));
        assert_eq!(
            ns.err(),
            Some("[nodeSelectorTerms[0].matchExpressions[0].operator: Unsupported value: \"Bogus\", nodeSelectorTerms[1].matchFields[0].values: Invalid value: []string{}: must have one element]".to_string())
        );
    }
}
