//! The label part of the bar: every label term, joined in order, parsed as one selector.

use roaring::RoaringBitmap;

use super::terms::Segment;
use super::QueryError;
use crate::index::LabelIndex;

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
    selector: provisional::Selector,
}

impl LabelFilter {
    /// Parses the label terms as one Kubernetes label selector.
    pub fn parse(segments: &[Segment<'_>]) -> Result<LabelFilter, QueryError> {
        let joined = Joined::new(segments);
        match provisional::parse(&joined.text) {
            Ok(selector) => Ok(LabelFilter { selector }),
            Err((message, offset)) => Err(QueryError {
                message,
                offset: joined.bar_offset(offset),
            }),
        }
    }

    /// Objects of `universe` the selector matches.
    pub fn eval(&self, index: &LabelIndex, universe: &RoaringBitmap) -> RoaringBitmap {
        self.selector.eval(index, universe)
    }
}

/// Stand-in for `crate::selector::parse_labels` until the selector module lands: the
/// common kubectl forms, with upstream's semantics, and no grammar errors beyond the basics.
mod provisional {
    use roaring::RoaringBitmap;

    use crate::index::LabelIndex;

    #[derive(Debug)]
    enum Op {
        Eq(String),
        Ne(String),
        In(Vec<String>),
        NotIn(Vec<String>),
        Exists,
        NotExists,
    }

    #[derive(Debug)]
    pub struct Selector(Vec<(String, Op)>);

    pub fn parse(text: &str) -> Result<Selector, (String, usize)> {
        let mut reqs = Vec::new();
        for seg in super::super::terms::split(text) {
            let t = seg.text.trim();
            let req = if let Some(k) = t.strip_prefix('!') {
                (k.trim().to_string(), Op::NotExists)
            } else if let Some((k, v)) = t.split_once("!=") {
                (k.trim().to_string(), Op::Ne(v.trim().to_string()))
            } else if let Some((k, v)) = t.split_once("==").or_else(|| t.split_once('=')) {
                (k.trim().to_string(), Op::Eq(v.trim().to_string()))
            } else if let Some((k, rest)) = t.split_once(" notin ") {
                (k.trim().to_string(), Op::NotIn(set(rest)))
            } else if let Some((k, rest)) = t.split_once(" in ") {
                (k.trim().to_string(), Op::In(set(rest)))
            } else {
                (t.to_string(), Op::Exists)
            };
            if req.0.is_empty() || req.0.contains(' ') {
                return Err((format!("invalid label key {:?}", req.0), seg.offset));
            }
            reqs.push(req);
        }
        Ok(Selector(reqs))
    }

    fn set(rest: &str) -> Vec<String> {
        let inner = rest.trim().trim_start_matches('(').trim_end_matches(')');
        inner.split(',').map(|v| v.trim().to_string()).collect()
    }

    impl Selector {
        pub fn eval(&self, index: &LabelIndex, universe: &RoaringBitmap) -> RoaringBitmap {
            let mut out = universe.clone();
            for (key, op) in &self.0 {
                out = index.eval_key(
                    key,
                    |v| match (op, v) {
                        (Op::Eq(x), Some(v)) => v == x,
                        (Op::Ne(x), v) => v != Some(x.as_str()),
                        (Op::In(xs), Some(v)) => xs.iter().any(|x| x == v),
                        (Op::NotIn(xs), v) => v.is_none_or(|v| !xs.iter().any(|x| x == v)),
                        (Op::Exists, v) => v.is_some(),
                        (Op::NotExists, v) => v.is_none(),
                        _ => false,
                    },
                    &out,
                );
            }
            out
        }
    }
}
