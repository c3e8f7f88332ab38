//! Launches on buffers and a stream the caller owns (`CudaTopK::select_raw`, the path a
//! framework's tensors take): 32- and 64-bit indices written by the kernel, no iteration
//! output, sorted output, against topk-ref's `bisect`. GPU tests are `#[ignore]`d in
//! `cargo test`; run them on a GPU machine with `--include-ignored`.

// The launch takes raw device addresses, as a framework hands them over.
#![allow(unsafe_code)]

use cudarc::driver::{CudaSlice, DevicePtr, DevicePtrMut};
use rtopk_cuda::{DataTypes, ElemType, IndexType, Launch, RawBuffers, shared_device};
use rtopk_tools::verify::matrix;
use topk_ref::{Bisect, Mode, Options, topk_rows};

/// A pattern no output holds: a NaN no input holds, and index -1 / 2^32 - 1.
const POISON: u32 = 0xFFFF_FFFF;

/// The device buffers of one raw launch.
struct Buffers {
    x: CudaSlice<f32>,
    values: CudaSlice<f32>,
    idx32: CudaSlice<u32>,
    idx64: CudaSlice<i64>,
    iterations: CudaSlice<u32>,
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn raw_launches_on_a_callers_stream_write_indices_at_either_width() {
    let gpu = shared_device(0).expect("a CUDA device");
    assert!(std::sync::Arc::ptr_eq(&gpu, &shared_device(0).unwrap()), "one device per process");
    let stream = gpu.context().new_stream().expect("a stream of the device's context");
    // every launch family: quarter/half rows (many short rows), warp rows, narrowing warp rows,
    // block rows; sorted output through the warp sort and the block sort
    for (n, m, k) in [(70_000, 200, 10), (300, 200, 60), (500, 700, 40), (40, 5000, 1500)] {
        for (family, mode, sorted) in [
            ("nan-inf", Mode::Largest, false),
            ("ties", Mode::Smallest, true),
            ("normal", Mode::Largest, true),
        ] {
            let x = matrix(n, m, family, (n + m + k) as u64);
            let opts = Options { mode, sorted };
            let want = topk_rows(&Bisect::exact(), x.view(), k, opts).unwrap();
            let host: Vec<f32> = x.iter().copied().collect();
            let mut b = Buffers {
                x: stream.clone_htod(&host).unwrap(),
                values: stream.clone_htod(&vec![f32::from_bits(POISON); n * k]).unwrap(),
                idx32: stream.clone_htod(&vec![POISON; n * k]).unwrap(),
                idx64: stream.clone_htod(&vec![-1i64; n * k]).unwrap(),
                iterations: stream.clone_htod(&vec![POISON; n]).unwrap(),
            };
            let (bisect, elem) = (Bisect::exact(), ElemType::F32);
            let launch = Launch { n, m, k, mode, bisect, sorted, elem };
            let case = format!("n={n} m={m} k={k} {family} {mode:?} sorted={sorted}");
            for index in [IndexType::U32, IndexType::I64] {
                for with_iterations in [true, false] {
                    let raw = {
                        let (x, _a) = b.x.device_ptr(&stream);
                        let (values, _b) = b.values.device_ptr_mut(&stream);
                        let (i32p, _c) = b.idx32.device_ptr_mut(&stream);
                        let (i64p, _d) = b.idx64.device_ptr_mut(&stream);
                        let (it, _e) = b.iterations.device_ptr_mut(&stream);
                        let indices = if index == IndexType::U32 { i32p } else { i64p };
                        RawBuffers {
                            x,
                            values,
                            indices,
                            iterations: if with_iterations { it } else { 0 },
                            ..RawBuffers::default()
                        }
                    };
                    let types = DataTypes { index, ..DataTypes::F32 };
                    // SAFETY: the buffers above belong to this device, hold n*m, n*k, n*k (of
                    // `index`'s type) and n elements, and live until the stream is synchronised
                    // below; the stream is one of the device's context.
                    unsafe { gpu.select_raw(&launch, types, raw, stream.cu_stream() as u64) }
                        .unwrap();
                    stream.synchronize().unwrap();
                    let values = stream.clone_dtoh(&b.values).unwrap();
                    let bits: Vec<u32> = values.iter().map(|v| v.to_bits()).collect();
                    let want_bits: Vec<u32> = want.values.iter().map(|v| v.to_bits()).collect();
                    assert_eq!(bits, want_bits, "values: {case} {index:?}");
                    let indices: Vec<i64> = match index {
                        IndexType::U32 => stream
                            .clone_dtoh(&b.idx32)
                            .unwrap()
                            .into_iter()
                            .map(i64::from)
                            .collect(),
                        IndexType::I64 => stream.clone_dtoh(&b.idx64).unwrap(),
                    };
                    let want_idx: Vec<i64> = want.indices.iter().map(|&i| i64::from(i)).collect();
                    assert_eq!(indices, want_idx, "indices: {case} {index:?}");
                    let iterations = stream.clone_dtoh(&b.iterations).unwrap();
                    let want_it = want.iterations.as_ref().unwrap().to_vec();
                    if with_iterations {
                        assert_eq!(iterations, want_it, "iterations: {case} {index:?}");
                    }
                    // poisoned again, so that the next launch is seen writing every output
                    stream
                        .memcpy_htod(&vec![f32::from_bits(POISON); n * k], &mut b.values)
                        .unwrap();
                    stream.memcpy_htod(&vec![POISON; n * k], &mut b.idx32).unwrap();
                    stream.memcpy_htod(&vec![-1i64; n * k], &mut b.idx64).unwrap();
                    stream.memcpy_htod(&vec![POISON; n], &mut b.iterations).unwrap();
                }
            }
            // the last launch had no iteration output: the buffer keeps its poison
            let untouched = stream.clone_dtoh(&b.iterations).unwrap();
            assert!(untouched.iter().all(|&c| c == POISON), "iterations written without a buffer");
        }
    }
}

/// One device asked the same shapes with every search in turn (exact, recall targets, early
/// stopping): each launch runs its own search — the device's planned programs are kept per
/// launch, search options included — with `bisect`'s indices, value bits and iteration counts.
/// The shapes narrow on warp rows and on block rows, and keep block rows whole.
#[test]
#[ignore = "needs a CUDA GPU"]
fn the_same_shape_with_another_search_runs_that_search() {
    let gpu = shared_device(0).expect("a CUDA device");
    let stream = gpu.context().new_stream().expect("a stream of the device's context");
    let searches = [
        Bisect::exact(),
        Bisect::with_recall(0.5).unwrap(),
        Bisect::with_recall(0.8).unwrap(),
        Bisect::with_recall(0.95).unwrap(),
        Bisect::early_stopping(3),
        Bisect::with_recall(0.8).unwrap(),
    ];
    for (n, m, k) in [(64, 700, 20), (12, 5000, 100), (12, 5000, 400), (8, 20_000, 100)] {
        for family in ["normal", "ties"] {
            let x = matrix(n, m, family, (n + m + k) as u64);
            let host: Vec<f32> = x.iter().copied().collect();
            let xd = stream.clone_htod(&host).unwrap();
            let mut values = stream.alloc_zeros::<f32>(n * k).unwrap();
            let mut indices = stream.alloc_zeros::<i64>(n * k).unwrap();
            let mut iterations = stream.alloc_zeros::<u32>(n).unwrap();
            for bisect in searches {
                let opts = Options { mode: Mode::Largest, sorted: false };
                let want = topk_rows(&bisect, x.view(), k, opts).unwrap();
                let launch =
                    Launch { n, m, k, mode: opts.mode, bisect, sorted: false, elem: ElemType::F32 };
                let raw = {
                    let (x, _a) = xd.device_ptr(&stream);
                    let (values, _b) = values.device_ptr_mut(&stream);
                    let (indices, _c) = indices.device_ptr_mut(&stream);
                    let (iterations, _d) = iterations.device_ptr_mut(&stream);
                    RawBuffers { x, values, indices, iterations, ..RawBuffers::default() }
                };
                let types = DataTypes { index: IndexType::I64, ..DataTypes::F32 };
                // SAFETY: the buffers above belong to this device, hold n*m, n*k, n*k int64 and
                // n elements, and live until the stream is synchronised below; the stream is
                // one of the device's context.
                unsafe { gpu.select_raw(&launch, types, raw, stream.cu_stream() as u64) }.unwrap();
                stream.synchronize().unwrap();
                let case = format!("n={n} m={m} k={k} {family} {bisect:?}");
                let got_idx = stream.clone_dtoh(&indices).unwrap();
                let want_idx: Vec<i64> = want.indices.iter().map(|&i| i64::from(i)).collect();
                assert_eq!(got_idx, want_idx, "indices: {case}");
                let got_bits: Vec<u32> =
                    stream.clone_dtoh(&values).unwrap().iter().map(|v| v.to_bits()).collect();
                let want_bits: Vec<u32> = want.values.iter().map(|v| v.to_bits()).collect();
                assert_eq!(got_bits, want_bits, "values: {case}");
                let got_it = stream.clone_dtoh(&iterations).unwrap();
                assert_eq!(
                    got_it,
                    want.iterations.as_ref().unwrap().to_vec(),
                    "iterations: {case}"
                );
            }
        }
    }
}

/// `per_row_words` writes each int64 entry as its 32-bit word clamped to `[0, bound]`: the
/// negative ones (i64::MIN included) as 0, those past the bound (past 2^32 too, whose low word
/// alone would wrap) as the bound, the rest as they are; it writes nothing past `n`, and on the
/// caller's stream only once its unit is loaded (`false` before).
#[test]
#[ignore = "needs a CUDA GPU"]
fn int64_per_row_entries_become_words_clamped_to_the_bound() {
    let gpu = shared_device(0).expect("a CUDA device");
    let stream = gpu.context().new_stream().expect("a stream of the device's context");
    let mut entries = vec![
        0i64,
        1,
        -1,
        i64::MIN,
        i64::MAX,
        (1 << 32) + 5,
        (1 << 31) + 3,
        i64::from(u32::MAX),
        -(1 << 32) + 5,
        7,
    ];
    entries.extend((0..100_000).map(|i| (i * 7919) % 300_000 - 50_000));
    let n = entries.len();
    let input = stream.clone_htod(&entries).unwrap();
    for bound in [0u32, 10, 100_000, (1 << 31) - 1, 1 << 31, u32::MAX] {
        let mut words = stream.clone_htod(&vec![POISON; n + 1]).unwrap();
        let (src, _a) = input.device_ptr(&stream);
        let (dst, _b) = words.device_ptr_mut(&stream);
        let s = stream.cu_stream() as u64;
        // SAFETY: `input` holds n int64 and `words` n + 1 u32 of this device, alive until
        // the stream is synchronised below; the stream is one of the device's context.
        let mut queued = unsafe { gpu.per_row_words_raw(src, dst, n as u64, bound, s) }.unwrap();
        if !queued {
            gpu.load_utilities().unwrap();
            // SAFETY: as above.
            queued = unsafe { gpu.per_row_words_raw(src, dst, n as u64, bound, s) }.unwrap();
        }
        assert!(queued, "loaded, the conversion is queued");
        drop((_a, _b));
        stream.synchronize().unwrap();
        let got = stream.clone_dtoh(&words).unwrap();
        let want: Vec<u32> = entries.iter().map(|&v| v.clamp(0, i64::from(bound)) as u32).collect();
        assert_eq!(&got[..n], &want[..], "bound {bound}");
        assert_eq!(got[n], POISON, "bound {bound}: nothing written past n");
    }
}
