//! Per-object findings (in progress).
