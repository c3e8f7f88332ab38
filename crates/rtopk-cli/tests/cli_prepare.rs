//! `rtopk prepare`: every GPU kernel unit built once. Without a CUDA driver (CI) it says so and
//! exits 1; with one (the device machine) it loads every unit, and a second run compiles
//! nothing (the disk cache).

use crate::common;

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

#[test]
fn prepare_for_architectures_needs_both_flags_and_real_architectures() {
    let scratch = tempfile::tempdir().unwrap();
    let out_dir = scratch.path().join("units");
    let dir = out_dir.to_str().unwrap();
    for args in [
        &["prepare", "--arch", "sm_90"][..],
        &["prepare", "--out", dir][..],
        &["prepare", "--arch", "sm_90,compute_90", "--out", dir][..],
        &["prepare", "--arch", "sm_9", "--out", dir][..],
    ] {
        let out = rtopk(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
    }
    let out = rtopk(&["prepare", "--arch", "sm_90,compute_90", "--out", dir]);
    assert!(stderr(&out).contains("compute_90: not a GPU architecture"), "{}", stderr(&out));
    assert!(!out_dir.exists(), "nothing is written for a refused architecture");
}
