use std::path::Path;
use std::sync::Arc;

use super::*;
use crate::model::load::parse_text;

fn objects() -> Vec<Object> {
    let text = "\
apiVersion: v1\nkind: Pod\nmetadata: {name: web-1, namespace: shop, labels: {app: web, tier: fe}}\nspec: {nodeName: n1}\n---
apiVersion: v1\nkind: Pod\nmetadata: {name: db-1, namespace: shop, labels: {app: db}}\n---
apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: ops, labels: {app: web}}\n";
    parse_text(&Arc::from(Path::new("x.yaml")), text).objects
}

fn names(text: &str) -> Vec<String> {
    let objs = objects();
    let index = LabelIndex::build(&objs);
    let q = Query::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    q.filter(&objs, &index, &index.universe())
        .iter()
        .map(|i| objs[i as usize].id.name.to_string())
        .collect()
}

#[test]
fn empty_query_matches_everything() {
    assert!(Query::parse("").unwrap().is_empty());
    assert_eq!(names(""), ["web-1", "db-1", "web"]);
}

#[test]
fn label_terms_filter() {
    assert_eq!(names("app=web"), ["web-1", "web"]);
    assert_eq!(names("app=web,tier"), ["web-1"]);
    assert_eq!(names("app in (db,web),!tier"), ["db-1", "web"]);
}

#[test]
fn field_terms_mix_with_labels() {
    assert_eq!(names("app=web,metadata.namespace=shop"), ["web-1"]);
    assert_eq!(names("metadata.namespace!=shop"), ["web"]);
    assert_eq!(names(".spec.nodeName=n1"), ["web-1"]);
    assert_eq!(names("metadata.name==db-1"), ["db-1"]);
}

#[test]
fn fuzzy_term_matches_names() {
    assert_eq!(names("~wb"), ["web-1", "web"]);
    assert_eq!(names("app=web,~w1"), ["web-1"]);
    assert_eq!(fuzzy_indices("web-1", "w1"), Some(vec![0, 4]));
    assert_eq!(fuzzy_indices("web-1", "zz"), None);
}

#[test]
fn group_clause_parses() {
    let q = Query::parse("app=web | by namespace").unwrap();
    assert_eq!(q.group, Some(GroupBy::Namespace));
    let q = Query::parse("| by app.kubernetes.io/part-of").unwrap();
    assert_eq!(
        q.group,
        Some(GroupBy::Label("app.kubernetes.io/part-of".into()))
    );
    assert_eq!(names("app=web | by kind"), ["web-1", "web"]);
}

#[test]
fn group_clause_errors_point_at_the_problem() {
    let e = Query::parse("app=web | bx").unwrap_err();
    assert_eq!(e.offset, 10);
    let e = Query::parse("app=web | by ").unwrap_err();
    assert_eq!(e.offset, 13);
}

#[test]
fn field_term_without_operator_is_an_error() {
    let e = Query::parse("app=web,metadata.name").unwrap_err();
    assert_eq!(e.offset, 8, "caret under the term that is not understood");
    assert!(e.message.contains("metadata.name"), "{}", e.message);
}

#[test]
fn group_key_names_groups() {
    let objs = objects();
    assert_eq!(group_key(&GroupBy::Namespace, &objs[0]), "shop");
    assert_eq!(group_key(&GroupBy::Kind, &objs[2]), "Deployment");
    assert_eq!(group_key(&GroupBy::Owner, &objs[2]), "(no owner)");
    assert_eq!(group_key(&GroupBy::Target, &objs[2]), "(not rendered)");
    let mut rendered = objs[2].clone();
    rendered.make_mut().source.target =
        Some(std::sync::Arc::from(std::path::Path::new("overlays/prod")));
    assert_eq!(group_key(&GroupBy::Target, &rendered), "overlays/prod");
    assert_eq!(
        crate::query::group::split_group("app=x | by target").map(|(_, g)| g),
        Ok(Some(GroupBy::Target))
    );
    assert_eq!(
        group_key(&GroupBy::Label("tier".into()), &objs[1]),
        "(tier not set)"
    );
}

#[test]
fn label_errors_are_upstreams_with_the_caret_in_the_bar() {
    // labels.Parse's own message; the offset points into the bar text even when field
    // terms come first.
    let e = Query::parse("app=web,,tier").unwrap_err();
    assert_eq!(e.message, "found ',', expected: identifier after ','");
    assert_eq!(e.offset, 8);
    let e = Query::parse(",tier").unwrap_err();
    assert_eq!(
        e.message,
        "found ',', expected: !, identifier, or 'end of string'"
    );
    assert_eq!(e.offset, 0);
    let e = Query::parse("metadata.name=x, app in (a").unwrap_err();
    assert!(e.message.contains("expected"), "{}", e.message);
    assert!(e.offset >= 17, "{e:?}");
}

#[test]
fn set_based_terms_match_as_upstream() {
    // `!=` and `notin` also select objects without the key.
    assert_eq!(names("tier!=fe"), ["db-1", "web"]);
    assert_eq!(names("tier notin (fe)"), ["db-1", "web"]);
    assert_eq!(names("app==web,tier=fe"), ["web-1"]);
}

#[test]
fn field_terms_follow_the_api_servers_per_kind_support() {
    // spec.nodeName is a Pod field: the Deployment (which has no such selector) never
    // matches, even through `!=`.
    assert_eq!(names("spec.nodeName!=n1"), ["db-1"]);
    assert_eq!(names("spec.nodeName="), ["db-1"]);
    // Server defaults: restartPolicy reads Always when unset.
    assert_eq!(names("spec.restartPolicy=Always"), ["web-1", "db-1"]);
    // An escaped comma stays in the value.
    assert!(names("metadata.name=a\\,b").is_empty());
}

#[test]
fn field_errors_are_upstreams() {
    let e = Query::parse("app=web,metadata.name").unwrap_err();
    assert_eq!(
        e.message,
        "invalid selector: 'metadata.name'; can't understand 'metadata.name'"
    );
}

fn workloads() -> Vec<Object> {
    let text = "\
apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop, annotations: {a.b/c: x, plain: z}}
spec: {replicas: 5, template: {spec: {containers: [{name: app, image: 'nginx:1.21'}, {name: side, image: envoy}]}}}\n---
apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: api, namespace: shop}
spec: {replicas: 2, template: {spec: {containers: [{name: app, image: 'api:2'}]}}}\n";
    parse_text(&Arc::from(Path::new("w.yaml")), text).objects
}

fn workload_names(text: &str) -> Vec<String> {
    let objs = workloads();
    let index = LabelIndex::build(&objs);
    let q = Query::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    q.filter(&objs, &index, &index.universe())
        .iter()
        .map(|i| objs[i as usize].id.name.to_string())
        .collect()
}

#[test]
fn path_terms_index_lists_like_kubectl_jsonpath() {
    assert_eq!(
        workload_names(".spec.template.spec.containers[0].image=nginx:1.21"),
        ["web"]
    );
    assert!(workload_names(".spec.template.spec.containers[1].image=nginx:1.21").is_empty());
    // `[*]`: any element; `!=` holds when no element has the value.
    assert_eq!(
        workload_names(".spec.template.spec.containers[*].image=envoy"),
        ["web"]
    );
    assert_eq!(
        workload_names(".spec.template.spec.containers[*].image!=envoy"),
        ["api"]
    );
    assert_eq!(workload_names(".spec.replicas=5"), ["web"]);
    // A filter, as CRD printer columns use them.
    assert_eq!(
        workload_names(".spec.template.spec.containers[?(@.name==\"side\")].image=envoy"),
        ["web"]
    );
}

#[test]
fn path_terms_reach_keys_with_dots() {
    assert_eq!(workload_names(".metadata.annotations['a.b/c']=x"), ["web"]);
    assert_eq!(
        workload_names(".metadata.annotations[\"a.b/c\"]==x"),
        ["web"]
    );
    assert_eq!(workload_names(".metadata.annotations['a.b/c']!=x"), ["api"]);
    // A key may hold what ends a path elsewhere.
    assert!(workload_names(".metadata.annotations['k=v (x)']=x").is_empty());
}

#[test]
fn path_term_errors_keep_the_dot_and_say_what_is_supported() {
    let e = Query::parse("app=web,.spec.replicas>3").unwrap_err();
    assert_eq!(
        e.message,
        "invalid .path term '.spec.replicas>3': a .path term is a JSONPath (.a.b, .a[0], .a[*], .a['dotted.key/name'], .a[?(@.b==\"x\")]) then =, == or != and a value"
    );
    assert_eq!(
        e.offset,
        8 + ".spec.replicas".len(),
        "caret under the operator"
    );
    let e = Query::parse(".spec.containers[x].image=a").unwrap_err();
    assert!(
        e.message
            .starts_with("invalid .path term '.spec.containers[x].image=a' (bad index [x]"),
        "{}",
        e.message
    );
    assert_eq!(e.offset, 0);
    let e = Query::parse(".metadata.annotations['a=b").unwrap_err();
    assert!(e.message.contains("unclosed ["), "{}", e.message);
}

/// Grouping through borrowed tokens gives what one `group_key` per object gives: every
/// group, each in the members' order (here reversed), for every kind of grouping.
#[test]
fn group_members_equals_one_key_per_object() {
    let text = "\
apiVersion: v1\nkind: Pod\nmetadata: {name: a, namespace: shop, labels: {app: web}, ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: rs, uid: u}]}\n---
apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n---
apiVersion: v1\nkind: Pod\nmetadata: {name: b, namespace: ops, labels: {app: db}}\n---
apiVersion: v1\nkind: Pod\nmetadata: {name: c, namespace: shop, labels: {app: web}, ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: rs, uid: u}]}\n---
apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, namespace: ops}\n";
    let objs = parse_text(&Arc::from(Path::new("x.yaml")), text).objects;
    let members: Vec<u32> = (0..objs.len() as u32).rev().collect();
    for by in [
        "namespace",
        "kind",
        "owner",
        "target",
        "app",
        "serviceaccount",
    ] {
        let (_, group) = group::split_group(&format!("| by {by}")).unwrap();
        let g = group.unwrap();
        let mut expected: std::collections::BTreeMap<String, Vec<u32>> = Default::default();
        for &i in &members {
            expected
                .entry(group_key(&g, &objs[i as usize]))
                .or_default()
                .push(i);
        }
        let got = group_members(&g, &objs, members.clone());
        assert_eq!(got, expected, "by {by}");
    }
    let (_, g) = group::split_group("| by app").unwrap();
    let got = group_members(&g.unwrap(), &objs, members);
    assert_eq!(got["app=web"], [3, 0]);
    assert_eq!(got["(app not set)"], [4, 1]);
}

/// Every label operator through the index gives what the selector says object by object
/// (lookups for `=`/`in`/`!=`/`notin`/exists/`!key`, a scan for `gt`/`lt`).
#[test]
fn label_operators_by_index_agree_with_the_selector() {
    let text: String = (0..40)
        .map(|i| {
            let tier = if i % 4 == 0 { String::new() } else { format!(", tier: t{}", i % 3) };
            format!(
                "apiVersion: v1\nkind: Pod\nmetadata: {{name: p{i}, labels: {{app: a{}, n: '{}'{tier}}}}}\n---\n",
                i % 5,
                i
            )
        })
        .collect();
    let objs = parse_text(&Arc::from(Path::new("x.yaml")), &text).objects;
    let index = LabelIndex::build(&objs);
    for sel in [
        "app=a1",
        "app==a2",
        "app!=a1",
        "app in (a1,a3,zz)",
        "app notin (a1,a3)",
        "tier",
        "!tier",
        "n>30",
        "n<3",
        "app in (a1),tier!=t1",
        "nope",
        "!nope",
        "nope!=x",
        "nope=x",
        "app,tier notin (t2),n>4",
    ] {
        let q = Query::parse(sel).unwrap();
        let got: Vec<u32> = q.filter(&objs, &index, &index.universe()).iter().collect();
        let selector = crate::selector::parse_labels(sel).unwrap();
        let want: Vec<u32> = (0u32..)
            .zip(&objs)
            .filter(|(_, o)| selector.matches(&o.labels()))
            .map(|(i, _)| i)
            .collect();
        assert_eq!(got, want, "{sel}");
    }
}
