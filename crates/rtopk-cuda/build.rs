//! Sets `cfg(rtopk_nvrtc)` where an NVRTC library is found, so that the tests that compile
//! every kernel unit with NVRTC run there and show as ignored ("needs NVRTC") elsewhere. The
//! crate itself loads NVRTC at run time and builds the same either way.

#![forbid(unsafe_code)]

use std::path::PathBuf;

/// The library names cudarc's dynamic loading tries for NVRTC on Linux (CUDA 13 build).
const NAMES: [&str; 6] = [
    "libnvrtc.so",
    "libnvrtc.so.13",
    "libnvrtc.so.12",
    "libnvrtc.so.11",
    "libnvrtc.so.10",
    "libnvrtc.so.1",
];

/// Where the dynamic loader looks besides `LD_LIBRARY_PATH`, and the CUDA toolkit's default.
const DIRS: [&str; 6] = [
    "/usr/local/cuda/lib64",
    "/usr/local/cuda/targets/x86_64-linux/lib",
    "/usr/lib/x86_64-linux-gnu",
    "/lib/x86_64-linux-gnu",
    "/usr/lib64",
    "/usr/lib",
];

fn main() {
    println!("cargo::rustc-check-cfg=cfg(rtopk_nvrtc)");
    println!("cargo::rerun-if-env-changed=LD_LIBRARY_PATH");
    println!("cargo::rerun-if-changed=build.rs");
    let from_env = std::env::var_os("LD_LIBRARY_PATH")
        .map(|p| std::env::split_paths(&p).collect::<Vec<PathBuf>>())
        .unwrap_or_default();
    let found = from_env
        .into_iter()
        .chain(DIRS.iter().map(PathBuf::from))
        .any(|dir| NAMES.iter().any(|name| dir.join(name).is_file()));
    if found {
        println!("cargo::rustc-cfg=rtopk_nvrtc");
    }
}
