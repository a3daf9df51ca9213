//! Ages as kubectl prints them (`k8s.io/apimachinery/pkg/util/duration.HumanDuration`).

use chrono::{DateTime, Utc};

/// kubectl's AGE cell for an RFC 3339 timestamp: `<unknown>` when absent or unparsable.
pub fn translate_timestamp_since(ts: Option<&str>, now: DateTime<Utc>) -> String {
    match ts.and_then(parse_time) {
        Some(t) => human_duration(now.signed_duration_since(t).num_seconds()),
        None => "<unknown>".to_owned(),
    }
}

/// Parses an RFC 3339 timestamp (`2024-01-02T03:04:05Z`): the one parser of kubesift's
/// timestamps.
pub fn parse_time(ts: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(ts)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

/// Unix seconds of an RFC 3339 timestamp.
pub fn unix_seconds(ts: &str) -> Option<i64> {
    parse_time(ts).map(|t| t.timestamp())
}

/// `HumanDuration` of a number of seconds: `45s`, `5m3s`, `3h10m`, `2d4h`, `400d`, `2y30d`.
pub fn human_duration(seconds: i64) -> String {
    if seconds < -1 {
        return "<invalid>".to_owned();
    }
    if seconds < 0 {
        return "0s".to_owned();
    }
    if seconds < 60 * 2 {
        return format!("{seconds}s");
    }
    let minutes = seconds / 60;
    if minutes < 10 {
        return with_rest(minutes, "m", seconds % 60, "s");
    }
    if minutes < 60 * 3 {
        return format!("{minutes}m");
    }
    let hours = seconds / 3600;
    if hours < 8 {
        return with_rest(hours, "h", minutes % 60, "m");
    }
    if hours < 48 {
        return format!("{hours}h");
    }
    if hours < 24 * 8 {
        return with_rest(hours / 24, "d", hours % 24, "h");
    }
    if hours < 24 * 365 * 2 {
        return format!("{}d", hours / 24);
    }
    if hours < 24 * 365 * 8 {
        return with_rest(hours / 24 / 365, "y", (hours / 24) % 365, "d");
    }
    format!("{}y", hours / 24 / 365)
}

/// `5m` or `5m3s`: the smaller unit only when non-zero.
fn with_rest(big: i64, big_unit: &str, small: i64, small_unit: &str) -> String {
    if small == 0 {
        format!("{big}{big_unit}")
    } else {
        format!("{big}{big_unit}{small}{small_unit}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_upstream_table() {
        let cases = [
            (-2, "<invalid>"),
            (-1, "0s"),
            (0, "0s"),
            (119, "119s"),
            (120, "2m"),
            (183, "3m3s"),
            (600, "10m"),
            (3 * 3600 - 1, "179m"),
            (3 * 3600, "3h"),
            (3 * 3600 + 120, "3h2m"),
            (8 * 3600, "8h"),
            (47 * 3600, "47h"),
            (48 * 3600, "2d"),
            (50 * 3600, "2d2h"),
            (8 * 24 * 3600, "8d"),
            (729 * 24 * 3600, "729d"),
            (730 * 24 * 3600, "2y"),
            (731 * 24 * 3600, "2y1d"),
            (8 * 365 * 24 * 3600, "8y"),
        ];
        for (secs, want) in cases {
            assert_eq!(human_duration(secs), want, "{secs}s");
        }
    }

    #[test]
    fn timestamps() {
        let now = parse_time("2026-01-10T00:00:00Z").expect("valid");
        assert_eq!(
            translate_timestamp_since(Some("2026-01-09T23:59:00Z"), now),
            "60s"
        );
        assert_eq!(translate_timestamp_since(None, now), "<unknown>");
        assert_eq!(
            translate_timestamp_since(Some("yesterday"), now),
            "<unknown>"
        );
    }
}
