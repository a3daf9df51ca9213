//! TEMPORARY timers (removed before commit).
use std::cell::RefCell;
use std::time::Instant;

thread_local! {
    static LAST: RefCell<Option<Instant>> = const { RefCell::new(None) };
}

pub fn start() {
    LAST.with(|l| *l.borrow_mut() = Some(Instant::now()));
}

pub fn lap(name: &str) {
    if std::env::var_os("KS_PROF").is_none() {
        return;
    }
    LAST.with(|l| {
        let mut l = l.borrow_mut();
        if let Some(t) = *l {
            eprintln!("PROF {name:<28} {:8.3} ms", t.elapsed().as_secs_f64() * 1e3);
        }
        *l = Some(Instant::now());
    });
}
