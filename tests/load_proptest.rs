//! The loader never panics (or hangs) on arbitrary bytes or YAML-ish text.

use std::path::Path;

use kubesift::model::load::{load_reader, LoadOptions};
use proptest::prelude::*;

fn yamlish() -> impl Strategy<Value = String> {
    let token = prop::sample::select(vec![
        "---\n",
        "...\n",
        "- ",
        "  ",
        ": ",
        "a",
        "items",
        "kind: List\n",
        "apiVersion: v1\n",
        "kind: Pod\n",
        "metadata:\n",
        "  name: x\n",
        "{",
        "}",
        "[",
        "]",
        ",",
        "&a ",
        "*a",
        "<<: ",
        "!!str ",
        "'",
        "\"",
        "|\n",
        ">-\n",
        "#c\n",
        "\n",
        "\t",
        "? ",
        "{{ .Values.x }}",
        "~",
        "yes",
        "0x1F",
        "1.5",
        "%YAML 1.1\n",
        "\\",
        "é",
        "\r\n",
    ]);
    prop::collection::vec(token, 0..60).prop_map(|t| t.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        let load = load_reader(Path::new("x.yaml"), &bytes[..], &LoadOptions::default());
        prop_assert!(load.problems.iter().all(|p| !p.message.is_empty()));
    }

    #[test]
    fn yaml_like_text(text in yamlish()) {
        for name in ["x.yaml", "x.json"] {
            let load = load_reader(Path::new(name), text.as_bytes(), &LoadOptions::default());
            for o in &load.objects {
                prop_assert!(o.source.start <= o.source.end && o.source.end <= text.len());
                prop_assert!(o.source.line >= 1);
            }
        }
    }
}
