//! The detail view's reference sections: what the object uses by name (resolved or not
//! found in the input) and what uses it.

use super::text::{TextLine, Tone};
use crate::dataset::{Dataset, EdgeKind};

/// Most references listed per section before "… N more".
const MAX_LISTED: usize = 20;

/// "Uses:" and "Used by:" for object `index`.
pub(super) fn sections(out: &mut Vec<TextLine>, data: &Dataset, index: usize) {
    let graph = &data.graph;
    let objects = &data.inventory.objects;
    let mut uses: Vec<TextLine> = graph
        .uses(index)
        .iter()
        .filter_map(|e| Some(line(&objects.get(e.to_ix())?.id.to_string(), e.kind, None)))
        .collect();
    uses.extend(graph.dangling_of(index).iter().map(|d| {
        line(
            &d.target.to_string(),
            EdgeKind::Ref { rel: d.rel },
            Some("not found in the input"),
        )
    }));
    section(out, "Uses:", uses);
    let used_by = graph
        .used_by(index)
        .iter()
        .filter_map(|e| {
            Some(line(
                &objects.get(e.from_ix())?.id.to_string(),
                e.kind,
                None,
            ))
        })
        .collect();
    section(out, "Used by:", used_by);
}

fn line(id: &str, kind: EdgeKind, missing: Option<&str>) -> TextLine {
    let rel = match kind {
        EdgeKind::Ref { rel } => rel.as_str(),
        _ => "",
    };
    let (who, via) = (
        (Tone::Plain, format!("  {id}")),
        (Tone::Dim, format!("  via {rel}")),
    );
    match missing {
        Some(m) => TextLine::of([who, via, (Tone::Error, format!("  {m}"))]),
        None => TextLine::of([who, via]),
    }
}

fn section(out: &mut Vec<TextLine>, title: &str, lines: Vec<TextLine>) {
    out.push(TextLine::one(Tone::Title, title));
    if lines.is_empty() {
        out.push(TextLine::one(Tone::Dim, "  <none>"));
    }
    let more = lines.len().saturating_sub(MAX_LISTED);
    out.extend(lines.into_iter().take(MAX_LISTED));
    if more > 0 {
        out.push(TextLine::one(Tone::Dim, format!("  … {more} more")));
    }
}
