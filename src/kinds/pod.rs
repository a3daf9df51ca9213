//! kubectl's Pod row (`printPod`): READY, STATUS (the reason kubectl derives from init and
//! container states), RESTARTS with the last restart's age, and the wide columns.

use crate::value::RawRef;

use super::columns::{arr, int, Row};
use crate::print::age::{parse_time, translate_timestamp_since};

/// What the container-status walk found.
#[derive(Default)]
struct Tally {
    ready: usize,
    restarts: i64,
    last_restart: Option<String>,
}

impl Tally {
    fn restarted(&mut self, cs: RawRef<'_>) {
        self.restarts += int(cs.get("restartCount"));
        let finished = cs
            .get("lastState")
            .and_then(|s| s.get("terminated"))
            .and_then(|t| t.get("finishedAt"))
            .and_then(RawRef::as_str);
        if let Some(f) = finished {
            let later = match &self.last_restart {
                Some(cur) => parse_time(f) > parse_time(cur),
                None => true,
            };
            if later {
                self.last_restart = Some(f.to_owned());
            }
        }
    }
}

fn state<'v>(cs: RawRef<'v>, which: &str) -> Option<RawRef<'v>> {
    cs.get("state").and_then(|s| s.get(which))
}

fn reason_of(v: RawRef<'_>) -> &str {
    v.get("reason").and_then(RawRef::as_str).unwrap_or("")
}

/// `Signal:N` / `ExitCode:N` for a terminated state without a reason.
fn exit_text(t: RawRef<'_>) -> String {
    let signal = int(t.get("signal"));
    if signal != 0 {
        format!("Signal:{signal}")
    } else {
        format!("ExitCode:{}", int(t.get("exitCode")))
    }
}

fn is_restartable_init(spec: RawRef<'_>, name: &str) -> bool {
    arr(spec.get("initContainers")).iter().any(|c| {
        c.get("name").and_then(RawRef::as_str) == Some(name)
            && c.get("restartPolicy").and_then(RawRef::as_str) == Some("Always")
    })
}

fn condition_true(status: Option<RawRef<'_>>, ty: &str) -> bool {
    arr(status.and_then(|s| s.get("conditions")))
        .iter()
        .any(|c| {
            c.get("type").and_then(RawRef::as_str) == Some(ty)
                && c.get("status").and_then(RawRef::as_str) == Some("True")
        })
}

/// What the walk over a Pod's container statuses finds: READY, STATUS and RESTARTS.
struct Summary {
    total: usize,
    reason: String,
    tally: Tally,
}

impl Row<'_> {
    /// READY, STATUS, RESTARTS and AGE.
    pub(super) fn pod(&self) -> Vec<String> {
        let Summary {
            total,
            reason,
            tally,
        } = self.pod_summary();
        let restarts = match (&tally.last_restart, tally.restarts) {
            (Some(last), n) if n != 0 => format!(
                "{n} ({} ago)",
                translate_timestamp_since(Some(last), self.now)
            ),
            (_, n) => n.to_string(),
        };
        vec![
            format!("{}/{total}", tally.ready),
            reason,
            restarts,
            self.age(),
        ]
    }

    /// The Pod's STATUS: the reason kubectl derives from its phase and container states.
    pub(super) fn pod_status(&self) -> String {
        self.pod_summary().reason
    }

    fn pod_summary(&self) -> Summary {
        let spec = self.get("spec").unwrap_or_else(RawRef::null);
        let status = self.get("status");
        let phase = self.str("status.phase");
        let mut reason = self.str_or("status.reason", &phase);
        let gated = arr(status.and_then(|s| s.get("conditions")))
            .iter()
            .any(|c| {
                c.get("type").and_then(RawRef::as_str) == Some("PodScheduled")
                    && reason_of(c) == "SchedulingGated"
            });
        if gated {
            reason = "SchedulingGated".into();
        }
        let init_specs = arr(spec.get("initContainers"));
        let total = arr(spec.get("containers")).len()
            + init_specs
                .iter()
                .filter(|c| c.get("restartPolicy").and_then(RawRef::as_str) == Some("Always"))
                .count();
        let mut all = Tally::default();
        let mut sidecars = Tally::default();
        let mut initializing = false;
        let init_statuses = arr(status.and_then(|s| s.get("initContainerStatuses")));
        for (i, cs) in init_statuses.iter().enumerate() {
            all.restarted(cs);
            let name = cs.get("name").and_then(RawRef::as_str).unwrap_or("");
            let restartable = is_restartable_init(spec, name);
            if restartable {
                sidecars.restarted(cs);
            }
            let terminated = state(cs, "terminated");
            let waiting = state(cs, "waiting");
            if terminated.is_some_and(|t| int(t.get("exitCode")) == 0) {
                continue;
            }
            if restartable && cs.get("started").and_then(RawRef::as_bool) == Some(true) {
                if cs.get("ready").and_then(RawRef::as_bool) == Some(true) {
                    sidecars.ready += 1;
                }
                continue;
            }
            reason = match (terminated, waiting) {
                (Some(t), _) if reason_of(t).is_empty() => format!("Init:{}", exit_text(t)),
                (Some(t), _) => format!("Init:{}", reason_of(t)),
                (None, Some(w))
                    if !reason_of(w).is_empty() && reason_of(w) != "PodInitializing" =>
                {
                    format!("Init:{}", reason_of(w))
                }
                _ => format!("Init:{}/{}", i, init_specs.len()),
            };
            initializing = true;
            break;
        }
        let mut tally = Tally {
            ready: sidecars.ready,
            ..all
        };
        if !initializing || condition_true(status, "Initialized") {
            tally = sidecars;
            let mut has_running = false;
            let statuses: Vec<RawRef<'_>> = arr(status.and_then(|s| s.get("containerStatuses")))
                .iter()
                .collect();
            for cs in statuses.into_iter().rev() {
                tally.restarted(cs);
                let waiting = state(cs, "waiting").map(reason_of).unwrap_or("");
                if !waiting.is_empty() {
                    reason = waiting.to_owned();
                } else if let Some(t) = state(cs, "terminated") {
                    reason = if reason_of(t).is_empty() {
                        exit_text(t)
                    } else {
                        reason_of(t).to_owned()
                    };
                } else if cs.get("ready").and_then(RawRef::as_bool) == Some(true)
                    && state(cs, "running").is_some()
                {
                    has_running = true;
                    tally.ready += 1;
                }
            }
            if reason == "Completed" && has_running {
                reason = if condition_true(status, "Ready") {
                    "Running".into()
                } else {
                    "NotReady".into()
                };
            }
        }
        if self.o.is_terminating() {
            if self.str("status.reason") == "NodeLost" {
                reason = "Unknown".into();
            } else if phase != "Succeeded" && phase != "Failed" {
                reason = "Terminating".into();
            }
        }
        Summary {
            total,
            reason,
            tally,
        }
    }

    /// IP, NODE, NOMINATED NODE and READINESS GATES.
    pub(super) fn pod_wide(&self) -> Vec<String> {
        let spec = self.get("spec").unwrap_or_else(RawRef::null);
        let status = self.get("status");
        let or_none = |s: &str| {
            if s.is_empty() {
                "<none>".to_owned()
            } else {
                s.to_owned()
            }
        };
        let ip = arr(status.and_then(|s| s.get("podIPs")))
            .first()
            .and_then(|p| p.get("ip"))
            .and_then(RawRef::as_str)
            .or_else(|| status.and_then(|s| s.get("podIP")).and_then(RawRef::as_str))
            .unwrap_or("");
        let gates = arr(spec.get("readinessGates"));
        let gates_cell = if gates.is_empty() {
            "<none>".to_owned()
        } else {
            let conditions = arr(status.and_then(|s| s.get("conditions")));
            let ok = gates
                .iter()
                .filter(|g| {
                    let ty = g.get("conditionType").and_then(RawRef::as_str);
                    conditions
                        .iter()
                        .find(|c| c.get("type").and_then(RawRef::as_str) == ty)
                        .and_then(|c| c.get("status").and_then(RawRef::as_str))
                        == Some("True")
                })
                .count();
            format!("{ok}/{}", gates.len())
        };
        vec![
            or_none(ip),
            or_none(&self.str("spec.nodeName")),
            or_none(&self.str("status.nominatedNodeName")),
            gates_cell,
        ]
    }
}

#[cfg(test)]
mod tests {
    use chrono::{DateTime, Utc};
    use serde_json::{json, Value};

    use crate::kinds::testutil::Manifest;
    use crate::kinds::{cells, headers};

    fn now() -> DateTime<Utc> {
        crate::print::age::parse_time("2026-01-01T01:00:00Z").expect("valid")
    }

    fn pod(meta_extra: Value, spec: Value, status: Value) -> Manifest {
        let mut meta =
            json!({"name": "p", "namespace": "ns", "creationTimestamp": "2026-01-01T00:00:00Z"});
        if let (Some(m), Some(extra)) = (meta.as_object_mut(), meta_extra.as_object()) {
            m.extend(extra.clone());
        }
        Manifest::new(
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": status}),
        )
    }

    fn two_containers() -> Value {
        json!({"containers": [{"name": "a"}, {"name": "b"}]})
    }

    #[test]
    fn running_ready_and_restarts_with_age() {
        let o = pod(
            json!({}),
            two_containers(),
            json!({"phase": "Running", "containerStatuses": [
                {"name": "a", "ready": true, "restartCount": 2, "state": {"running": {}},
                 "lastState": {"terminated": {"finishedAt": "2026-01-01T00:50:00Z"}}},
                {"name": "b", "ready": false, "restartCount": 0, "state": {"waiting": {"reason": "CrashLoopBackOff"}}}
            ]}),
        );
        assert_eq!(
            cells(o.view(), false, now()),
            ["1/2", "CrashLoopBackOff", "2 (10m ago)", "60m"]
        );
    }

    #[test]
    fn init_containers_and_terminating() {
        let o = pod(
            json!({}),
            json!({"initContainers": [{"name": "i"}], "containers": [{"name": "a"}]}),
            json!({"phase": "Pending", "initContainerStatuses": [
                {"name": "i", "ready": false, "restartCount": 0, "state": {"waiting": {"reason": "PodInitializing"}}}
            ]}),
        );
        assert_eq!(cells(o.view(), false, now())[1], "Init:0/1");
        let t = pod(
            json!({"deletionTimestamp": "2026-01-01T00:59:00Z"}),
            two_containers(),
            json!({"phase": "Running"}),
        );
        assert_eq!(cells(t.view(), false, now())[1], "Terminating");
        let done = pod(
            json!({"deletionTimestamp": "2026-01-01T00:59:00Z"}),
            two_containers(),
            json!({"phase": "Succeeded"}),
        );
        assert_eq!(cells(done.view(), false, now())[1], "Succeeded");
    }

    #[test]
    fn wide_columns() {
        let o = pod(
            json!({}),
            json!({"nodeName": "n1", "containers": [{"name": "a"}], "readinessGates": [{"conditionType": "x/ok"}]}),
            json!({"phase": "Running", "podIPs": [{"ip": "10.0.0.1"}], "conditions": [{"type": "x/ok", "status": "True"}]}),
        );
        assert_eq!(headers("", "Pod", true).len(), 8);
        assert_eq!(
            cells(o.view(), true, now())[4..],
            ["10.0.0.1", "n1", "<none>", "1/1"]
        );
    }
}
