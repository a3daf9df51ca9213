//! Hostile owner graphs as files, shared by the tests that run the binary on them.

use std::fmt::Write as _;

/// A folder with one file, `chain.yaml`: ConfigMaps `c0 ← c1 ← … ← c{n-1}` in namespace
/// `a`, each owned by the previous (by name and uid).
pub fn owner_chain(n: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut s = String::new();
    for i in 0..n {
        write!(
            s,
            "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{i}\n  namespace: a\n  uid: u{i}\n"
        )
        .unwrap();
        if i > 0 {
            let p = i - 1;
            write!(
                s,
                "  ownerReferences:\n  - apiVersion: v1\n    kind: ConfigMap\n    name: c{p}\n    uid: u{p}\n"
            )
            .unwrap();
        }
    }
    std::fs::write(dir.path().join("chain.yaml"), s).unwrap();
    dir
}
