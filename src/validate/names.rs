//! Upstream name and label validation (in progress).
