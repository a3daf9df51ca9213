//! The label part of the bar: every label term, joined in order, parsed as one selector.

use roaring::RoaringBitmap;

use super::terms::Segment;
use super::QueryError;
use crate::index::LabelIndex;
use crate::selector::{parse_labels, LabelGet, Operator, Selector};

/// Label terms joined with `,`, and where each came from in the bar text.
struct Joined {
    text: String,
    /// (offset in `text`, offset in the bar, length) per segment.
    map: Vec<(usize, usize, usize)>,
}

impl Joined {
    fn new(segments: &[Segment<'_>]) -> Joined {
        let mut text = String::new();
        let mut map = Vec::new();
        for (i, s) in segments.iter().enumerate() {
            if i > 0 {
                text.push(',');
            }
            map.push((text.len(), s.offset, s.text.len()));
            text.push_str(s.text);
        }
        Joined { text, map }
    }

    /// Maps a byte offset in the joined text back to the bar text.
    fn bar_offset(&self, offset: usize) -> usize {
        let seg = self
            .map
            .iter()
            .rev()
            .find(|(start, _, _)| *start <= offset)
            .or(self.map.first());
        match seg {
            Some(&(start, bar, len)) => bar + (offset - start.min(offset)).min(len),
            None => offset,
        }
    }
}

/// The parsed label selector.
#[derive(Debug)]
pub struct LabelFilter {
    selector: Selector,
}

impl LabelFilter {
    /// Parses the label terms as one Kubernetes label selector (`labels.Parse`): the
    /// error is upstream's, its offset mapped back into the bar text.
    pub fn parse(segments: &[Segment<'_>]) -> Result<LabelFilter, QueryError> {
        let joined = Joined::new(segments);
        match parse_labels(&joined.text) {
            Ok(selector) => Ok(LabelFilter { selector }),
            Err(e) => Err(QueryError {
                message: e.message,
                offset: joined.bar_offset(e.offset),
            }),
        }
    }

    /// Objects of `universe` the selector matches: per requirement, the predicate is
    /// decided once per distinct value of its key (and once for "key absent").
    pub fn eval(&self, index: &LabelIndex, universe: &RoaringBitmap) -> RoaringBitmap {
        let mut out = universe.clone();
        for req in self.selector.requirements() {
            if out.is_empty() {
                break;
            }
            // Each operator but `gt`/`lt` by lookups, not by asking every value of the key
            // (a key with a value per object, such as an instance name, has a million at
            // 1M objects, and this runs on every keystroke).
            let (key, values) = (req.key.as_str(), req.values.as_slice());
            out = match req.operator {
                Operator::In | Operator::Equals | Operator::DoubleEquals => {
                    index.with_values(key, values, &out)
                }
                Operator::NotIn | Operator::NotEquals => {
                    let drop = index.with_values(key, values, &out);
                    out - drop
                }
                Operator::Exists => index.with_key(key, &out),
                Operator::DoesNotExist => {
                    let drop = index.with_key(key, &out);
                    out - drop
                }
                Operator::GreaterThan | Operator::LessThan => index.eval_key(
                    &req.key,
                    |value| {
                        req.matches(&OneLabel {
                            key: &req.key,
                            value,
                        })
                    },
                    &out,
                ),
            };
        }
        out
    }
}

/// A label set holding at most one key: what a requirement on that key sees.
struct OneLabel<'a> {
    key: &'a str,
    value: Option<&'a str>,
}

impl LabelGet for OneLabel<'_> {
    fn label(&self, key: &str) -> Option<&str> {
        if key == self.key {
            self.value
        } else {
            None
        }
    }
}
