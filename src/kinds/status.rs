//! The status of an object as one short text: what `kubectl get` prints in the kind's STATUS
//! or READY column, shared by `get`, `tree` and the UI so the three never disagree. Kinds
//! whose printer has no such column get a generic status (phase, ready replicas or the
//! Ready/Available condition).

use super::columns::{arr, Row};
use super::{builtin, ObjectView};
use crate::value::RawRef;

/// The object's status text (`0/1`, `CrashLoopBackOff`, `Active`, `Complete`; empty when
/// nothing is known).
pub fn status(o: ObjectView<'_>) -> String {
    let of_kind = builtin(o.group, o.kind)
        .and_then(|b| b.printer)
        .and_then(|p| p.status);
    match of_kind {
        // No status reads the clock.
        Some(status) => status(&Row::new(o, chrono::DateTime::UNIX_EPOCH)),
        None => generic(o),
    }
}

/// READY of a Deployment or StatefulSet: ready / desired, `spec.replicas` defaulting to 1 as
/// the API server does. A ReplicaSet's READY and DESIRED columns, read the same way.
pub(super) fn ready_replicas(r: &Row<'_>) -> String {
    format!(
        "{}/{}",
        r.int("status.readyReplicas"),
        r.replicas("spec.replicas")
    )
}

/// A DaemonSet's READY / DESIRED columns: ready / desired pods.
pub(super) fn daemon_set(r: &Row<'_>) -> String {
    format!(
        "{}/{}",
        r.int("status.numberReady"),
        r.int("status.desiredNumberScheduled")
    )
}

/// A Namespace's STATUS: its phase, `Active` until the API server says otherwise.
pub(super) fn namespace(r: &Row<'_>) -> String {
    r.str_or("status.phase", "Active")
}

/// A PersistentVolume's or PersistentVolumeClaim's STATUS: its phase, `Pending` by default.
pub(super) fn volume_phase(r: &Row<'_>) -> String {
    r.str_or("status.phase", "Pending")
}

/// A Node's STATUS: Ready / NotReady / Unknown from its Ready condition, plus
/// `SchedulingDisabled` when cordoned.
pub(super) fn node(r: &Row<'_>) -> String {
    let mut status: Vec<&str> = Vec::new();
    let conditions = arr(r.get("status.conditions"));
    match conditions
        .iter()
        .find(|c| c.get("type").and_then(RawRef::as_str) == Some("Ready"))
    {
        Some(c) if c.get("status").and_then(RawRef::as_str) == Some("True") => status.push("Ready"),
        Some(_) => status.push("NotReady"),
        None => status.push("Unknown"),
    }
    if r.get("spec.unschedulable").and_then(RawRef::as_bool) == Some(true) {
        status.push("SchedulingDisabled");
    }
    status.join(",")
}

/// kubectl's Job STATUS: the first true terminal condition, else Terminating or Running.
pub(super) fn job(r: &Row<'_>) -> String {
    let is_true = |ty: &str| {
        arr(r.get("status.conditions")).iter().any(|c| {
            c.get("type").and_then(RawRef::as_str) == Some(ty)
                && c.get("status").and_then(RawRef::as_str) == Some("True")
        })
    };
    let terminal = [
        "Failed",
        "Complete",
        "Suspended",
        "FailureTarget",
        "SuccessCriteriaMet",
    ]
    .into_iter()
    .find(|ty| is_true(ty));
    match terminal {
        Some(s) => s.to_owned(),
        None if r.o.is_terminating() => "Terminating".into(),
        None => "Running".into(),
    }
}

/// Kinds kubectl prints no status for (custom resources, ConfigMaps, legacy groups):
/// Terminating, the phase, ready / desired replicas, or the Ready / Available condition.
fn generic(o: ObjectView<'_>) -> String {
    if o.is_terminating() {
        return "Terminating".into();
    }
    let get = |path: &str| path.split('.').try_fold(o.raw, |v, k| v.get(k));
    if let Some(phase) = get("status.phase").and_then(RawRef::as_str) {
        return phase.into();
    }
    let int = |p: &str| get(p).and_then(RawRef::as_i64);
    if let Some(desired) = int("status.desiredNumberScheduled") {
        return format!("{}/{desired}", int("status.numberReady").unwrap_or(0));
    }
    if get("spec.replicas").is_some() || get("status.replicas").is_some() {
        let desired = int("spec.replicas").unwrap_or(1);
        return format!("{}/{desired}", int("status.readyReplicas").unwrap_or(0));
    }
    for c in arr(get("status.conditions")).iter() {
        let ty = c.get("type").and_then(RawRef::as_str);
        if let Some(ty @ ("Ready" | "Available")) = ty {
            let ok = c.get("status").and_then(RawRef::as_str) == Some("True");
            return if ok { ty.into() } else { format!("Not{ty}") };
        }
    }
    String::new()
}
