//! `rtopk prepare`: every GPU kernel unit built once. Without a CUDA driver (CI) it says so and
//! exits 1; with one (the device machine) it loads every unit, and a second run compiles
//! nothing (the disk cache).

mod common;

use common::{rtopk, rtopk_command, stderr, stdout};

#[test]
fn prepare_builds_every_unit_or_says_why_not() {
    let cache = tempfile::tempdir().unwrap();
    let run = || {
        rtopk_command()
            .arg("prepare")
            .env(rtopk::cuda::CACHE_DIR_ENV, cache.path())
            .output()
            .unwrap()
    };
    let out = run();
    if rtopk::cuda::check_libraries().is_err() {
        assert_eq!(out.status.code(), Some(1), "stderr: {}", stderr(&out));
        assert!(stderr(&out).starts_with("error: no CUDA driver found"), "{}", stderr(&out));
        return;
    }
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("kernel units ready"), "{}", stdout(&out));
    let again = stdout(&run());
    assert!(again.contains("(0 compiled now"), "the second run compiled: {again}");
}

#[test]
fn prepare_refuses_a_bad_device_argument() {
    let out = rtopk(&["prepare", "--device", "x"]);
    assert_eq!(out.status.code(), Some(2), "stderr: {}", stderr(&out));
}
