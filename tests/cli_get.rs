//! `kubesift get` on real files: the answers kubectl gives for the same objects.

use std::process::Command;

const FIX: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/get");
const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/sample-cluster");

struct Run {
    stdout: String,
    stderr: String,
    code: i32,
}

fn get(path: &str, args: &[&str]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_kubesift"))
        .arg("get")
        .args(["-f", path])
        .args(args)
        .output()
        .expect("run kubesift");
    Run {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code().unwrap_or(-1),
    }
}

fn names(path: &str, args: &[&str]) -> Vec<String> {
    let r = get(path, &[args, &["-o", "name"]].concat());
    assert_eq!(r.code, 0, "stderr: {}", r.stderr);
    r.stdout.lines().map(str::to_owned).collect()
}

#[test]
fn pods_in_server_order_across_namespaces() {
    assert_eq!(
        names(FIX, &["pods"]),
        ["pod/web-abc-10", "pod/web-abc-2", "pod/lonely", "pod/api-0"]
    );
    assert_eq!(names(FIX, &["po", "-n", "default"]), ["pod/lonely"]);
}

#[test]
fn label_selectors() {
    assert_eq!(
        names(FIX, &["pods", "-l", "tier=front"]),
        ["pod/web-abc-10", "pod/web-abc-2"]
    );
    // `!=` also matches objects without the key, as upstream.
    assert_eq!(
        names(FIX, &["pods", "-l", "tier!=front"]),
        ["pod/lonely", "pod/api-0"]
    );
    assert_eq!(
        names(FIX, &["all", "-l", "app=api"]),
        ["pod/api-0", "service/api"]
    );
    assert_eq!(
        names(FIX, &["pods", "-l", "release>5"]),
        ["pod/api-0"],
        "gt compares integers"
    );
}

#[test]
fn field_selectors_with_upstream_errors() {
    assert_eq!(
        names(
            FIX,
            &["pods,svc", "--field-selector", "metadata.namespace=green"]
        ),
        ["pod/api-0", "service/api"]
    );
    assert_eq!(
        names(FIX, &["pods", "--field-selector", "spec.nodeName=n1"]),
        ["pod/web-abc-2"]
    );
    let r = get(FIX, &["rs", "--field-selector", "status.replicas=3"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains(
            "\nError from server (BadRequest): Unable to find \"apps/v1, Resource=replicasets\" that match label selector \"\", field selector \"status.replicas=3\": \"status.replicas\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\"\n"
        ),
        "{}",
        r.stderr
    );
}

#[test]
fn selector_syntax_error_exits_1_with_upstream_message() {
    let r = get(FIX, &["pods", "-l", ",,"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr
            .contains("error: found ',', expected: !, identifier, or 'end of string'"),
        "{}",
        r.stderr
    );
    assert!(r.stdout.is_empty());
}

#[test]
fn table_with_label_columns_like_kubectl() {
    let r = get(FIX, &["deploy", "-L", "app.kubernetes.io/version,tier"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "NAMESPACE   NAME   READY   UP-TO-DATE   AVAILABLE   AGE         VERSION   TIER\n\
         blue        web    0/3     0            0           <unknown>   2.0       front\n"
    );
}

#[test]
fn several_kinds_get_one_table_each_with_kind_prefix() {
    let r = get(FIX, &["nodes,ns", "--show-labels"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "NAME      STATUS    ROLES    AGE         VERSION   LABELS\n\
         node/n1   Unknown   <none>   <unknown>             zone=z1\n\
         \n\
         NAME             STATUS   AGE         LABELS\n\
         namespace/blue   Active   <unknown>   team=a\n"
    );
}

#[test]
fn json_is_a_kubectl_list_with_go_escaping() {
    let r = get(FIX, &["cm", "-n", "green", "-o", "json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r
        .stdout
        .starts_with("{\n    \"apiVersion\": \"v1\",\n    \"items\": ["));
    assert!(r.stdout.contains("\"b\": \"\\u003cb\\u0026\\u003e\""));
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("json");
    assert_eq!(v["kind"], "List");
    assert_eq!(v["metadata"]["resourceVersion"], "");
    assert_eq!(v["items"][0]["metadata"]["name"], "api-config");
}

#[test]
fn single_named_object_is_printed_alone_with_its_namespace() {
    let r = get(FIX, &["pod", "lonely", "-o", "json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("json");
    assert_eq!(v["kind"], "Pod");
    assert_eq!(v["metadata"]["namespace"], "default");
    let y = get(FIX, &["pods", "-n", "green", "-o", "yaml"]);
    assert!(y
        .stdout
        .starts_with("apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Pod\n"));
    assert!(y
        .stdout
        .ends_with("kind: List\nmetadata:\n  resourceVersion: \"\"\n"));
}

#[test]
fn not_found_names_are_reported_and_exit_1() {
    let r = get(FIX, &["pod/nope", "pod/lonely", "-o", "name"]);
    assert_eq!(r.code, 1);
    assert_eq!(r.stdout, "pod/lonely\n");
    assert!(r
        .stderr
        .contains("Error from server (NotFound): pods \"nope\" not found"));
}

#[test]
fn broken_documents_are_named_and_the_rest_loads() {
    let r = get(FIX, &["cm", "-n", "blue", "-o", "name"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout, "configmap/fine-after\nconfigmap/fine-before\n");
    let broken = r
        .stderr
        .lines()
        .find(|l| l.contains("broken.yaml:"))
        .expect("broken file reported");
    let mut parts = broken.split(':');
    let _path = parts.next();
    let line: u32 = parts.next().and_then(|l| l.parse().ok()).expect("line");
    assert!((9..=11).contains(&line), "{broken}");
    assert!(
        r.stderr
            .contains("chart/templates/svc.yaml:4:9: Helm/Go template, not rendered: skipped"),
        "{}",
        r.stderr
    );
}

#[test]
fn usage_errors_and_unloadable_input() {
    let r = get(FIX, &["nosuchkind"]);
    assert_eq!(r.code, 1);
    assert!(r
        .stderr
        .contains("error: the server doesn't have a resource type \"nosuchkind\""));
    let r = get("/nonexistent/kubesift-test", &[]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    let r = get(FIX, &["pods", "-n", "nowhere"]);
    assert_eq!(r.code, 0);
    assert!(r
        .stderr
        .contains("No resources found in nowhere namespace."));
}

#[test]
fn sort_by_jsonpath() {
    assert_eq!(
        names(FIX, &["pods", "--sort-by", "{.metadata.name}"]),
        ["pod/api-0", "pod/lonely", "pod/web-abc-2", "pod/web-abc-10"]
    );
}

#[test]
fn sample_cluster_crd_kinds_and_categories() {
    assert_eq!(
        names(SAMPLE, &["wh"]),
        [
            "warehouse.shop.example.com/berlin",
            "warehouse.shop.example.com/dublin"
        ]
    );
    let deploys = names(SAMPLE, &["deployments.apps", "-n", "shop"]);
    assert_eq!(
        deploys,
        [
            "deployment.apps/cart",
            "deployment.apps/checkout",
            "deployment.apps/frontend"
        ]
    );
}

/// Asked for kinds a field selector does not apply to, kubectl prints the kinds that
/// support it and one API error line per kind that does not, and exits 1 (it printed
/// nothing but the error before). Checked against kubectl 1.32 over a fake API server.
#[test]
fn unsupported_field_refuses_only_its_kinds() {
    let r = get(FIX, &["--field-selector", "metadata.namespace=green"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "NAMESPACE   NAME        READY   STATUS    RESTARTS   AGE\n\
         green       pod/api-0   0/1     Pending   0          <unknown>\n\
         \n\
         NAMESPACE   NAME                   DATA   AGE\n\
         green       configmap/api-config   2      <unknown>\n\
         \n\
         NAMESPACE   NAME          TYPE        CLUSTER-IP   EXTERNAL-IP   PORT(S)   AGE\n\
         green       service/api   ClusterIP   10.0.0.7     <none>        443/TCP   <unknown>\n"
    );
    let refused = |resource: &str| {
        format!("Error from server (BadRequest): Unable to find \"{resource}\" that match label selector \"\", field selector \"metadata.namespace=green\": field label not supported: metadata.namespace\n")
    };
    assert!(
        r.stderr.ends_with(&format!(
            "{}{}",
            refused("/v1, Resource=namespaces"),
            refused("/v1, Resource=nodes")
        )),
        "{}",
        r.stderr
    );
    // With TYPEs: the requested order, no `No resources found` beside an error.
    let r = get(
        FIX,
        &[
            "ns,svc",
            "-l",
            "app=api",
            "--field-selector",
            "metadata.namespace=green",
            "-o",
            "name",
        ],
    );
    assert_eq!((r.code, r.stdout.as_str()), (1, "service/api\n"));
    assert!(r.stderr.ends_with("Error from server (BadRequest): Unable to find \"/v1, Resource=namespaces\" that match label selector \"app=api\", field selector \"metadata.namespace=green\": field label not supported: metadata.namespace\n"), "{}", r.stderr);
    let r = get(FIX, &["ns", "--field-selector", "metadata.namespace=green"]);
    assert_eq!((r.code, r.stdout.as_str()), (1, ""));
    assert!(!r.stderr.contains("No resources found"), "{}", r.stderr);
}

/// kubectl heads `-L` columns with the key's last segment as is: two keys ending in
/// `/instance` give two INSTANCE columns (the UI disambiguates; `get` matches kubectl).
#[test]
fn label_columns_with_the_same_header_print_as_kubectl() {
    let r = get(
        FIX,
        &[
            "deploy",
            "-L",
            "app.kubernetes.io/instance,argocd.argoproj.io/instance",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout.lines().next(),
        Some("NAMESPACE   NAME   READY   UP-TO-DATE   AVAILABLE   AGE         INSTANCE   INSTANCE")
    );
}

/// The UI given only missing paths exits 2 with `get`'s message instead of opening empty.
#[test]
fn ui_on_a_missing_path_exits_2_like_get() {
    let dir = tempfile::tempdir().expect("tempdir");
    let missing = dir.path().join("NOPE");
    let missing = missing.to_str().expect("utf-8 path");
    let ui = Command::new(env!("CARGO_BIN_EXE_kubesift"))
        .arg(missing)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run kubesift");
    let got = get(missing, &[]);
    assert_eq!(ui.status.code(), Some(2));
    assert_eq!(got.code, 2);
    assert_eq!(String::from_utf8_lossy(&ui.stderr), got.stderr);
    assert!(got
        .stderr
        .ends_with(&format!("error: nothing could be loaded from {missing}\n")));
}

/// A CRD's `additionalPrinterColumns` are the columns of its objects (priority > 0 only
/// with `-o wide`; JSONPath filters as cert-manager uses them); a CRD without any prints
/// AGE, as the API server's table convertor does.
#[test]
fn crd_printer_columns() {
    let dir = tempfile::tempdir().expect("tempdir");
    let crd = r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: certificates.cert-manager.io}
spec:
  group: cert-manager.io
  scope: Namespaced
  names: {kind: Certificate, plural: certificates, shortNames: [cert]}
  versions:
  - name: v1
    storage: true
    additionalPrinterColumns:
    - {jsonPath: '.status.conditions[?(@.type=="Ready")].status', name: Ready, type: string}
    - {jsonPath: .spec.secretName, name: Secret, type: string}
    - {jsonPath: .spec.issuerRef.name, name: Issuer, priority: 1, type: string}
    - {jsonPath: .spec.replicas, name: Replicas, type: integer}
    - {jsonPath: .spec.ratio, name: Ratio, type: number}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Widget, plural: widgets}
  versions: [{name: v1, storage: true}]
---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: shop-tls, namespace: shop}
spec: {secretName: shop-tls-secret, issuerRef: {name: letsencrypt}, replicas: 3, ratio: 1000000}
status: {conditions: [{type: Issuing, status: 'False'}, {type: Ready, status: 'True'}]}
---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: api-tls, namespace: shop}
spec: {secretName: api, ratio: 0.5}
---
apiVersion: example.com/v1
kind: Widget
metadata: {name: w1, namespace: shop}
"#;
    std::fs::write(dir.path().join("crd.yaml"), crd).expect("write");
    let path = dir.path().to_str().expect("utf-8");
    let r = get(path, &["cert"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "NAMESPACE   NAME       READY   SECRET            REPLICAS   RATIO\n\
         shop        api-tls            api                          0.5\n\
         shop        shop-tls   True    shop-tls-secret   3          1e+06\n"
    );
    let r = get(path, &["cert", "-o", "wide", "-n", "shop"]);
    assert_eq!(
        r.stdout.lines().next(),
        Some("NAME       READY   SECRET            ISSUER        REPLICAS   RATIO")
    );
    let r = get(path, &["widgets"]);
    assert_eq!(
        r.stdout,
        "NAMESPACE   NAME   AGE\nshop        w1     <unknown>\n"
    );
}
