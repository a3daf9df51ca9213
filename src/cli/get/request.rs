//! TYPE arguments as kubectl reads them: `pods,svc`, `pods web api`, `deploy/web pod/x`.

use crate::kinds::KindRegistry;
use crate::value::Str;

/// One requested kind, with the names asked for (empty = every object of the kind).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    pub group: Str,
    pub kind: Str,
    /// `plural` or `plural.group`, as kubectl names it in messages.
    pub resource: String,
    pub names: Vec<String>,
}

/// Every request of one command line; `all_kinds` when no TYPE was given.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Requests {
    pub list: Vec<Request>,
    pub all_kinds: bool,
}

impl Requests {
    /// kubectl prints a single object (not a `List`) for exactly one TYPE/NAME.
    pub fn single_item_implied(&self) -> bool {
        self.list.len() == 1 && self.list[0].names.len() == 1
    }
}

const MIXED_FORMS: &str = "there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. 'kubesift get resource/<resource_name>' instead of 'kubesift get resource resource/<resource_name>'";

/// Parses and resolves the positional arguments against the kinds of this load.
pub fn parse_requests(args: &[String], kinds: &KindRegistry) -> Result<Requests, String> {
    let Some(first) = args.first() else {
        return Ok(Requests {
            list: Vec::new(),
            all_kinds: true,
        });
    };
    let mut reqs = Requests::default();
    if args.iter().any(|a| a.contains('/')) {
        for arg in args {
            let (ty, name) = arg.split_once('/').ok_or(MIXED_FORMS)?;
            if name.is_empty() {
                return Err(format!(
                    "arguments in resource/name form must have a single resource and name: {arg:?}"
                ));
            }
            for r in resolve(ty, kinds)? {
                push(&mut reqs.list, r, Some(name));
            }
        }
        return Ok(reqs);
    }
    let names = &args[1..];
    for ty in first.split(',').filter(|t| !t.is_empty()) {
        for r in resolve(ty, kinds)? {
            if names.is_empty() {
                push(&mut reqs.list, r.clone(), None);
            }
            for n in names {
                push(&mut reqs.list, r.clone(), Some(n));
            }
        }
    }
    if reqs.list.is_empty() {
        return Err(format!("invalid resource type {first:?}"));
    }
    Ok(reqs)
}

/// Adds a request, merging with an earlier one of the same kind.
fn push(list: &mut Vec<Request>, r: Request, name: Option<&str>) {
    let i = match list
        .iter()
        .position(|x| x.group == r.group && x.kind == r.kind)
    {
        Some(i) => i,
        None => {
            list.push(r);
            list.len() - 1
        }
    };
    if let Some(n) = name {
        if !list[i].names.iter().any(|x| x == n) {
            list[i].names.push(n.to_owned());
        }
    }
}

fn resolve(ty: &str, kinds: &KindRegistry) -> Result<Vec<Request>, String> {
    let found = kinds.resolve(ty);
    if found.is_empty() {
        return Err(format!("the server doesn't have a resource type {ty:?}"));
    }
    Ok(found
        .into_iter()
        .map(|k| Request {
            group: k.group.clone(),
            kind: k.kind.clone(),
            resource: k.resource(),
            names: Vec::new(),
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds_of(r: &Requests) -> Vec<(&str, Vec<&str>)> {
        r.list
            .iter()
            .map(|x| (&*x.kind, x.names.iter().map(String::as_str).collect()))
            .collect()
    }

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn forms() {
        let k = KindRegistry::builtin();
        let r = parse_requests(&args(&["po,svc,deploy.apps"]), &k).expect("valid");
        assert_eq!(
            kinds_of(&r),
            vec![("Pod", vec![]), ("Service", vec![]), ("Deployment", vec![])]
        );
        let r = parse_requests(&args(&["deploy/web", "pod/x", "deployment/api"]), &k).expect("ok");
        assert_eq!(
            kinds_of(&r),
            vec![("Deployment", vec!["web", "api"]), ("Pod", vec!["x"])]
        );
        assert!(!r.single_item_implied());
        let r = parse_requests(&args(&["Pods", "web"]), &k).expect("valid");
        assert!(r.single_item_implied());
        assert!(parse_requests(&[], &k).expect("valid").all_kinds);
    }

    #[test]
    fn errors() {
        let k = KindRegistry::builtin();
        assert_eq!(
            parse_requests(&args(&["nosuch"]), &k),
            Err("the server doesn't have a resource type \"nosuch\"".to_owned())
        );
        assert!(parse_requests(&args(&["pods", "deploy/web"]), &k)
            .expect_err("mixed")
            .starts_with("there is no need"));
        let all = parse_requests(&args(&["all"]), &k).expect("valid");
        assert!(all.list.len() >= 9);
    }
}
