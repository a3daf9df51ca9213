use proptest::prelude::*;
use serde_json::{json, Value};

use super::*;

fn round_trip(v: &Value) -> Raw {
    let raw = Raw::from_value(v);
    assert_eq!(&raw.to_value(), v, "round trip of {v}");
    assert!(raw.view() == *v, "PartialEq<Value> of {v}");
    assert_eq!(
        serde_json::to_string(&raw).unwrap(),
        serde_json::to_string(v).unwrap()
    );
    assert_eq!(
        serde_yaml::to_string(&raw).unwrap(),
        serde_yaml::to_string(v).unwrap()
    );
    raw
}

#[test]
fn scalars_round_trip() {
    for v in [
        json!(null),
        json!(true),
        json!(false),
        json!(0),
        json!(1),
        json!(127),
        json!(128),
        json!(u64::MAX),
        json!(i64::MAX),
        json!(-1),
        json!(-128),
        json!(i64::MIN),
        json!(0.0),
        json!(-0.0),
        json!(1.5),
        json!(-2.5e300),
        json!(f64::MIN_POSITIVE),
        json!(""),
        json!("plain"),
        json!("ünïcødé ✓ 日本語 🚀"),
        json!("x".repeat(300)),
    ] {
        round_trip(&v);
    }
}

#[test]
fn number_kinds_are_kept() {
    let raw = round_trip(&json!([5, -5, 5.0, u64::MAX]));
    let items: Vec<_> = raw.view().as_array().unwrap().iter().collect();
    assert_eq!(items[0].as_u64(), Some(5));
    assert_eq!(items[0].as_i64(), Some(5));
    assert!(items[0].is_u64() && !items[0].is_f64());
    assert_eq!(items[1].as_i64(), Some(-5));
    assert_eq!(items[1].as_u64(), None);
    assert!(items[2].is_f64());
    assert_eq!(items[2].as_i64(), None);
    assert_eq!(items[2].as_f64(), Some(5.0));
    assert_eq!(items[3].as_i64(), None);
    assert_eq!(items[3].as_u64(), Some(u64::MAX));
    assert_eq!(
        serde_json::to_string(&raw).unwrap(),
        "[5,-5,5.0,18446744073709551615]"
    );
}

#[test]
fn containers_round_trip() {
    round_trip(&json!([]));
    round_trip(&json!({}));
    round_trip(&json!([[], {}, [[]], {"a": {}}]));
    round_trip(&json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "p", "labels": {"b": "2", "a": "1"}, "annotations": {}},
        "spec": {"containers": [{"name": "c", "ports": [{"containerPort": 80}]}]},
        "status": null
    }));
    // A body longer than 127 bytes needs a multi-byte length.
    let big: serde_json::Map<String, Value> =
        (0..200).map(|i| (format!("key{i:03}"), json!(i))).collect();
    let raw = round_trip(&Value::Object(big));
    assert_eq!(raw.get("key150").and_then(RawRef::as_u64), Some(150));
    assert_eq!(raw.view().as_object().unwrap().len(), 200);
}

#[test]
fn keys_stay_sorted() {
    let raw = round_trip(&json!({"z": 1, "a": 2, "m": {"y": 1, "b": 2}}));
    let keys: Vec<_> = raw.view().as_object().unwrap().keys().collect();
    assert_eq!(keys, ["a", "m", "z"]);
    assert_eq!(raw.to_string(), r#"{"a":2,"m":{"b":2,"y":1},"z":1}"#);
}

#[test]
fn reads() {
    let raw = Raw::from_value(&json!({
        "spec": {"replicas": 3, "paused": false, "selector": {"matchLabels": {"app": "web"}},
                 "list": ["a", {"b/c": {"d~e": 1}}]},
        "n": null
    }));
    let v = raw.view();
    assert!(v.is_object());
    assert_eq!(
        v.get("spec")
            .and_then(|s| s.get("replicas"))
            .and_then(RawRef::as_i64),
        Some(3)
    );
    assert_eq!(
        v.pointer("/spec/paused").and_then(RawRef::as_bool),
        Some(false)
    );
    assert_eq!(
        v.pointer("/spec/selector/matchLabels/app")
            .and_then(RawRef::as_str),
        Some("web")
    );
    assert_eq!(
        v.pointer("/spec/list/0").and_then(RawRef::as_str),
        Some("a")
    );
    assert_eq!(
        v.pointer("/spec/list/1/b~1c/d~0e").and_then(RawRef::as_u64),
        Some(1)
    );
    assert!(v.pointer("/spec/list/01").is_none());
    assert!(v.pointer("/spec/list/2").is_none());
    assert!(v.pointer("spec").is_none());
    assert_eq!(v.pointer(""), Some(v));
    assert!(v.get("n").is_some_and(RawRef::is_null));
    assert!(v.get("missing").is_none());
    assert!(v.get("spec").unwrap().at(0).is_none());
    assert_eq!(v.pointer("/spec/list").unwrap().at(0).unwrap(), "a");
    assert!(matches!(v.get("spec").unwrap().kind(), RawKind::Object(o) if o.len() == 4));
    assert!(RawRef::null().is_null());
}

#[test]
fn equality_is_value_equality() {
    let a = Raw::from_value(&json!({"x": [1, 2.0, "s"], "y": {"z": null}}));
    let b = Raw::from_value(&json!({"y": {"z": null}, "x": [1, 2.0, "s"]}));
    let c = Raw::from_value(&json!({"x": [1, 2.0, "t"], "y": {"z": null}}));
    assert_eq!(a, b);
    assert_ne!(a, c);
    assert_ne!(Raw::from_value(&json!(1)), Raw::from_value(&json!(1.0)));
    // serde_json says 0.0 == -0.0; so does Raw, though the encodings differ.
    assert_eq!(Raw::from_value(&json!(0.0)), Raw::from_value(&json!(-0.0)));
}

#[test]
fn malformed_buffers_read_as_missing() {
    for bytes in [
        &[][..],
        &[OBJECT][..],
        &[OBJECT, 5, 1][..],
        &[ARRAY, 0x80][..],
        &[STRING, 3, b'a'][..],
        &[STRING, 1, 0xff][..],
        &[FLOAT, 1, 2][..],
        &[99][..],
        // A key id the table cannot have (2^20 > MAX_KEYS), an inline key that is not UTF-8,
        // an inline key longer than the body.
        &[OBJECT, 6, 1, 0x81, 0x80, 0x80, 0x01, NULL][..],
        &[OBJECT, 4, 1, 2, 0xff, NULL][..],
        &[OBJECT, 3, 1, 8, NULL][..],
    ] {
        let r = RawRef { bytes };
        assert!(r.get("a").is_none());
        assert!(r.at(0).is_none());
        assert!(r.as_str().is_none());
        assert!(r.as_f64().is_none());
        let _ = r.to_value();
        let _ = serde_json::to_string(&r);
    }
}

fn arb_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<u64>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        ".{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(5, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            prop::collection::btree_map("[a-z/~.]{0,6}|.{0,4}", inner, 0..8)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Every path into `v`: as pointer tokens.
fn paths(v: &Value, prefix: String, out: &mut Vec<String>) {
    out.push(prefix.clone());
    match v {
        Value::Array(a) => {
            for (i, item) in a.iter().enumerate() {
                paths(item, format!("{prefix}/{i}"), out);
            }
        }
        Value::Object(m) => {
            for (k, item) in m {
                let token = k.replace('~', "~0").replace('/', "~1");
                paths(item, format!("{prefix}/{token}"), out);
            }
        }
        _ => {}
    }
}

proptest! {
    #[test]
    fn prop_round_trip_and_printing(v in arb_value()) {
        let raw = Raw::from_value(&v);
        prop_assert_eq!(raw.to_value(), v.clone());
        prop_assert_eq!(serde_json::to_string(&raw).unwrap(), serde_json::to_string(&v).unwrap());
        prop_assert_eq!(
            serde_json::to_string_pretty(&raw).unwrap(),
            serde_json::to_string_pretty(&v).unwrap()
        );
        prop_assert_eq!(serde_yaml::to_string(&raw).unwrap(), serde_yaml::to_string(&v).unwrap());
        prop_assert_eq!(raw.to_string(), v.to_string());
        prop_assert!(raw.view() == v);
        prop_assert!(raw == Raw::from_value(&v));
    }

    #[test]
    fn prop_lookups_agree(v in arb_value(), probe in "[a-z/~.]{0,6}") {
        let raw = Raw::from_value(&v);
        let mut all = Vec::new();
        paths(&v, String::new(), &mut all);
        all.push(format!("/{probe}"));
        all.push(format!("/0/{probe}"));
        for p in &all {
            let expected = v.pointer(p).cloned();
            let got = raw.pointer(p).map(RawRef::to_value);
            prop_assert_eq!(got, expected, "pointer {}", p);
        }
        prop_assert_eq!(raw.get(&probe).map(RawRef::to_value), v.get(&probe).cloned());
        let view = raw.view();
        prop_assert_eq!(view.as_str(), v.as_str());
        prop_assert_eq!(view.as_bool(), v.as_bool());
        prop_assert_eq!(view.as_i64(), v.as_i64());
        prop_assert_eq!(view.as_u64(), v.as_u64());
        prop_assert_eq!(view.as_f64(), v.as_f64());
        prop_assert_eq!(view.is_null(), v.is_null());
        prop_assert_eq!(view.is_object(), v.is_object());
        prop_assert_eq!(view.is_array(), v.is_array());
        if let Some(a) = v.as_array() {
            let items: Vec<Value> = view.as_array().unwrap().iter().map(RawRef::to_value).collect();
            prop_assert_eq!(&items, a);
            for (i, item) in a.iter().enumerate() {
                prop_assert_eq!(view.at(i).map(RawRef::to_value), Some(item.clone()));
            }
        }
        if let Some(m) = v.as_object() {
            let entries: Vec<(String, Value)> = view.as_object().unwrap().iter()
                .map(|(k, v)| (k.to_owned(), v.to_value())).collect();
            let expected: Vec<(String, Value)> = m.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
            prop_assert_eq!(entries, expected);
        }
    }

    #[test]
    fn prop_equality_agrees(a in arb_value(), b in arb_value()) {
        let (ra, rb) = (Raw::from_value(&a), Raw::from_value(&b));
        prop_assert_eq!(ra == rb, a == b);
        prop_assert!(ra == Raw::from_value(&a));
    }
}

#[test]
fn a_value_is_found_again_at_its_offset() {
    let raw = Raw::from_value(&serde_json::json!({"a": {"b": [1, "x"]}, "c": "d"}));
    let b = raw.pointer("/a/b").expect("b");
    let at = raw.offset_of(b).expect("inside");
    assert!(at > 0);
    assert_eq!(
        raw.value_at(at).map(|v| v.to_value()),
        Some(serde_json::json!([1, "x"]))
    );
    let c = raw.get("c").expect("c");
    assert_eq!(
        raw.value_at(raw.offset_of(c).expect("c"))
            .and_then(|v| v.as_str()),
        Some("d")
    );
    // A view of another buffer has no offset here; an offset past the end reads nothing.
    let other = Raw::from_value(&serde_json::json!({"c": "d"}));
    assert_eq!(raw.offset_of(other.view()), None);
    assert!(raw.value_at(u32::MAX).is_none());
}
