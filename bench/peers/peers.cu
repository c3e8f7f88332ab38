// The peer harness: times FlashInfer's top-k and CUB's DeviceTopK / DeviceBatchedTopK on the
// shapes given, with the method and the data of `rtopk bench cuda` (bench/peers/README.md), and
// writes one JSON line per (shape, peer) to stdout.
//
//   peers [options] N,M,k ...        or        peers [options] --shapes FILE
//
// Options: --reps R (50)  --warmup W (2)  --seed S (0: the records' seeds)  --check-rows C (3)
//          --peers a,b,..  --per-row-max-n N (64)  --l2-multiple F (4)  --idle-start  --device D
//          --dtype f32|f16|bf16 (f32)

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <vector>

#include "peers.cuh"

int peers_cccl_version();  // peer_cub.cu: the CCCL_VERSION the CUB peers were built against

namespace {

// How long the GPU spins ahead of a timed call: the first try, then longer ones if the host was
// still submitting when the spin ended (crates/rtopk-cuda/src/timing.rs uses the first two).
constexpr uint64_t kSpinNs[] = {200'000, 5'000'000, 50'000'000};
// The most rotation buffers of one shape, and the device memory left beside them
// (crates/rtopk-cuda/src/bench.rs: MAX_BUFFERS, HEADROOM_BYTES).
constexpr uint64_t kMaxBuffers = 32;
constexpr uint64_t kHeadroomBytes = uint64_t{256} << 20;

struct Shape {
    uint64_t n, m, k;
};

struct Options {
    std::vector<Shape> shapes;
    int reps = 50;
    int warmup = 2;
    uint64_t seed = 0;
    int check_rows = 3;
    uint64_t per_row_max_n = 64;
    uint64_t l2_multiple = 4;
    bool idle_start = false;
    int device = 0;
    DType dtype = DType::f32;
    std::vector<std::string> peers;
};

constexpr const char* kUsage =
    "usage: peers [--reps R] [--warmup W] [--seed S] [--check-rows C] [--peers a,b] "
    "[--per-row-max-n N] [--l2-multiple F] [--idle-start] [--device D] [--dtype f32|f16|bf16] "
    "(N,M,k ... | --shapes FILE)\n";

[[noreturn]] void usage_error(const std::string& why) {
    std::fprintf(stderr, "peers: %s\n%s", why.c_str(), kUsage);
    std::exit(2);
}

DType parse_dtype(const std::string& s) {
    for (DType t : {DType::f32, DType::f16, DType::bf16})
        if (s == dtype_name(t)) return t;
    usage_error("bad --dtype: '" + s + "' (f32, f16 or bf16)");
}

uint64_t parse_u64(const std::string& s, const char* what) {
    if (s.empty() || s[0] == '-') usage_error(std::string("bad ") + what + ": '" + s + "'");
    errno = 0;
    char* end = nullptr;
    unsigned long long v = std::strtoull(s.c_str(), &end, 10);
    if (errno != 0 || end == s.c_str() || *end != '\0')
        usage_error(std::string("bad ") + what + ": '" + s + "'");
    return v;
}

int parse_int(const std::string& s, const char* what, int lo) {
    uint64_t v = parse_u64(s, what);
    if (v < uint64_t(lo) || v > uint64_t{INT32_MAX})
        usage_error(std::string(what) + " out of range: '" + s + "'");
    return int(v);
}

// "N,M,k" or "N M k" (commas and blanks both separate).
Shape parse_shape(std::string text) {
    std::replace(text.begin(), text.end(), ',', ' ');
    std::istringstream in(text);
    std::string a, b, c, extra;
    if (!(in >> a >> b >> c) || (in >> extra)) usage_error("a shape is N,M,k: '" + text + "'");
    Shape s{parse_u64(a, "N"), parse_u64(b, "M"), parse_u64(c, "k")};
    if (s.n == 0 || s.m == 0) usage_error("N and M must be positive: '" + text + "'");
    if (s.k == 0 || s.k > s.m) usage_error("k must be in 1..M: '" + text + "'");
    if (s.m > UINT64_MAX / s.n || s.n * s.m > UINT64_MAX / 4)
        usage_error("N*M too large: '" + text + "'");
    return s;
}

void read_shapes(const std::string& path, std::vector<Shape>& out) {
    std::ifstream in(path);
    if (!in) usage_error("cannot read " + path);
    std::string line;
    while (std::getline(in, line)) {
        line = line.substr(0, line.find('#'));
        if (line.find_first_not_of(" \t\r,") == std::string::npos) continue;
        out.push_back(parse_shape(line));
    }
}

std::vector<std::string> split_commas(const std::string& s) {
    std::vector<std::string> out;
    std::istringstream in(s);
    std::string item;
    while (std::getline(in, item, ','))
        if (!item.empty()) out.push_back(item);
    return out;
}

Options parse_args(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) usage_error(a + " needs a value");
            return argv[++i];
        };
        if (a == "--reps") o.reps = parse_int(value(), "--reps", 1);
        else if (a == "--warmup") o.warmup = parse_int(value(), "--warmup", 1);
        else if (a == "--seed") o.seed = parse_u64(value(), "--seed");
        else if (a == "--check-rows") o.check_rows = parse_int(value(), "--check-rows", 2);
        else if (a == "--per-row-max-n") o.per_row_max_n = parse_u64(value(), "--per-row-max-n");
        else if (a == "--l2-multiple") o.l2_multiple = parse_u64(value(), "--l2-multiple");
        else if (a == "--peers") o.peers = split_commas(value());
        else if (a == "--shapes") read_shapes(value(), o.shapes);
        else if (a == "--idle-start") o.idle_start = true;
        else if (a == "--device") o.device = parse_int(value(), "--device", 0);
        else if (a == "--dtype") o.dtype = parse_dtype(value());
        else if (a == "--help" || a == "-h") {
            std::printf("%s", kUsage);
            std::exit(0);
        }
        else if (a.rfind("--", 0) == 0) usage_error("unknown option " + a);
        else o.shapes.push_back(parse_shape(a));
    }
    if (o.shapes.empty()) usage_error("no shapes");
    return o;
}

// --- output ---------------------------------------------------------------------------------

std::string json_string(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out += buf;
        } else {
            out += c;
        }
    }
    return out + "\"";
}

std::string json_head(const std::string& device, const char* peer, const Shape& s, DType t) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "\"n\":%llu,\"m\":%llu,\"k\":%llu,\"dtype\":\"%s\"",
                  (unsigned long long)s.n, (unsigned long long)s.m, (unsigned long long)s.k,
                  dtype_name(t));
    return "{\"peer\":" + json_string(peer) + ",\"device\":" + json_string(device) + "," + buf;
}

void emit(const std::string& line) {
    std::printf("%s}\n", line.c_str());
    std::fflush(stdout);
}

// --- inputs ---------------------------------------------------------------------------------

// The seed of rotation buffer b of an (n, m) input: bench.rs `normal_seed`, plus --seed.
uint64_t normal_seed(uint64_t base, uint64_t n, uint64_t m, uint64_t b) {
    return base + n * 1'000'003ull + m * 101ull + b;
}

struct Device {
    std::string name;
    int sm_count = 0;
    uint64_t l2_bytes = 0;
    cudaStream_t stream = nullptr;
};

// An element as a float on the host: exact, since every f16 and bf16 value is a float (and
// distinct ones stay distinct, signed zeros included), so the check can work in floats.
float widen(float v) { return v; }
float widen(__half v) { return __half2float(v); }
float widen(__nv_bfloat16 v) { return __bfloat162float(v); }

// `count` elements of type `t` on the device, widened to floats on the host.
std::vector<float> read_as_float(const void* src, DType t, uint64_t count, cudaStream_t stream) {
    return with_elem(t, [&](auto e) {
        using T = typename decltype(e)::type;
        std::vector<T> raw(count);
        PEERS_CHECK(cudaMemcpyAsync(raw.data(), src, count * sizeof(T), cudaMemcpyDeviceToHost,
                                    stream));
        PEERS_CHECK(cudaStreamSynchronize(stream));
        std::vector<float> out(count);
        std::transform(raw.begin(), raw.end(), out.begin(), [](T v) { return widen(v); });
        return out;
    });
}

// One (n, m) input of type `dtype` in `buffers.size()` rotation buffers, and the host copies of
// its checked rows.
struct Inputs {
    uint64_t n = 0, m = 0;
    DType dtype = DType::f32;
    std::vector<void*> buffers;
    std::vector<uint64_t> rows;               // the checked rows
    std::vector<std::vector<float>> host;     // their values (as floats), buffer 0

    void release() {
        for (void* b : buffers) PEERS_CHECK(cudaFree(b));
        buffers.clear();
        rows.clear();
        host.clear();
        n = m = 0;
    }
};

// Enough buffers that a pass over them moves `l2_multiple` times the L2 through it, at most
// kMaxBuffers, and no more than device memory holds beside `reserve` bytes (bench.rs
// `rotation_buffers`). 0 when not even one fits.
uint64_t buffer_count(uint64_t bytes, uint64_t l2, uint64_t l2_multiple, uint64_t reserve) {
    size_t free_b = 0, total_b = 0;
    PEERS_CHECK(cudaMemGetInfo(&free_b, &total_b));
    if (uint64_t(free_b) < bytes + reserve) return 0;
    const uint64_t spare = uint64_t(free_b) - bytes - reserve;
    const uint64_t fit = (spare > kHeadroomBytes ? spare - kHeadroomBytes : 0) / bytes + 1;
    const uint64_t wanted = std::clamp<uint64_t>((l2 * l2_multiple + bytes - 1) / bytes, 1, kMaxBuffers);
    return std::min(wanted, fit);
}

std::vector<uint64_t> checked_rows(uint64_t n, int count) {
    std::vector<uint64_t> rows;
    for (int i = 0; i < count; ++i) rows.push_back(n == 1 ? 0 : (n - 1) * uint64_t(i) / uint64_t(count - 1));
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    return rows;
}

// Rotation buffer `b` of the shape: fill_normal's draws, as float32 or rounded to 16 bits by
// way of `staging` (n * m floats; unused for f32).
void fill_buffer(void* x, float* staging, const Device& dev, const Options& o, const Shape& s,
                 uint64_t b) {
    const uint64_t len = s.n * s.m;
    const unsigned grid = unsigned(dev.sm_count) * 32u;
    const uint64_t seed = normal_seed(o.seed, s.n, s.m, b);
    if (o.dtype == DType::f32) {
        PEERS_CHECK(peers_fill_normal(static_cast<float*>(x), len, seed, grid, dev.stream));
        return;
    }
    PEERS_CHECK(peers_fill_normal(staging, len, seed, grid, dev.stream));
    PEERS_CHECK(peers_round_to(o.dtype, staging, x, len, grid, dev.stream));
}

// false when the input does not fit on the device.
bool make_inputs(Inputs& in, const Device& dev, const Options& o, const Shape& s,
                 uint64_t reserve) {
    in.release();
    PEERS_CHECK(cudaDeviceSynchronize());  // frees done, so free memory counts them
    const uint64_t len = s.n * s.m;
    const uint64_t elem = dtype_bytes(o.dtype);
    const uint64_t bytes = len * elem;
    // A 16-bit input is drawn as float32 into one staging buffer, reused for every rotation
    // buffer and freed before any timing: it only has to fit while the buffers are filled.
    const uint64_t staging_bytes = o.dtype == DType::f32 ? 0 : len * 4;
    const uint64_t count =
        buffer_count(bytes, dev.l2_bytes, o.l2_multiple, reserve + staging_bytes);
    if (count == 0) return false;
    in.n = s.n;
    in.m = s.m;
    in.dtype = o.dtype;
    float* staging = nullptr;
    if (staging_bytes > 0) PEERS_CHECK(cudaMalloc(&staging, staging_bytes));
    for (uint64_t b = 0; b < count; ++b) {
        void* x = nullptr;
        PEERS_CHECK(cudaMalloc(&x, bytes));
        in.buffers.push_back(x);
        fill_buffer(x, staging, dev, o, s, b);
    }
    in.rows = checked_rows(s.n, o.check_rows);
    for (uint64_t r : in.rows) {
        const char* row = static_cast<const char*>(in.buffers[0]) + r * s.m * elem;
        in.host.push_back(read_as_float(row, o.dtype, s.m, dev.stream));
    }
    PEERS_CHECK(cudaStreamSynchronize(dev.stream));
    PEERS_CHECK(cudaFree(staging));
    return true;
}

// --- the check ------------------------------------------------------------------------------

// The k largest values of each checked row, in descending order (the multiset every correct
// top-k selects, ties included).
std::vector<std::vector<float>> reference(const Inputs& in, uint64_t k) {
    std::vector<std::vector<float>> out;
    for (const auto& row : in.host) {
        std::vector<float> v(row);
        std::nth_element(v.begin(), v.begin() + (k - 1), v.end(), std::greater<float>());
        v.resize(k);
        std::sort(v.begin(), v.end(), std::greater<float>());
        out.push_back(std::move(v));
    }
    return out;
}

// "ok", or the first thing wrong with the peer's output on the checked rows: an index out of
// the row or repeated, a value that is not the row's value at its index, or a set of values that
// is not the row's k largest. 16-bit values are compared as the floats they widen to, exactly.
std::string check(const Inputs& in, const std::vector<std::vector<float>>& ref, const Problem& p,
                  cudaStream_t stream) {
    const uint64_t k = p.k;
    const size_t elem = dtype_bytes(p.dtype);
    std::vector<int32_t> indices(k);
    for (size_t i = 0; i < in.rows.size(); ++i) {
        const uint64_t r = in.rows[i];
        std::vector<float> values = read_as_float(static_cast<const char*>(p.values) + r * k * elem,
                                                  p.dtype, k, stream);
        PEERS_CHECK(cudaMemcpyAsync(indices.data(), p.indices + r * k, k * 4,
                                    cudaMemcpyDeviceToHost, stream));
        PEERS_CHECK(cudaStreamSynchronize(stream));
        const std::string where = "MISMATCH row " + std::to_string(r) + ": ";
        const std::vector<float>& row = in.host[i];
        for (uint64_t j = 0; j < k; ++j) {
            if (indices[j] < 0 || uint64_t(indices[j]) >= p.m)
                return where + "index " + std::to_string(indices[j]) + " outside the row";
            if (std::memcmp(&row[indices[j]], &values[j], sizeof(float)) != 0)
                return where + "value at slot " + std::to_string(j) + " is not x[" +
                       std::to_string(indices[j]) + "]";
        }
        std::vector<int32_t> sorted_idx(indices);
        std::sort(sorted_idx.begin(), sorted_idx.end());
        if (std::adjacent_find(sorted_idx.begin(), sorted_idx.end()) != sorted_idx.end())
            return where + "an index is selected twice";
        std::sort(values.begin(), values.end(), std::greater<float>());
        for (uint64_t j = 0; j < k; ++j)
            if (values[j] != ref[i][j])
                return where + "selected value #" + std::to_string(j + 1) +
                       " in descending order differs from the reference's";
    }
    return "ok";
}

// --- timing ---------------------------------------------------------------------------------

struct Timed {
    double ms = 0;
    bool queued = true;
    cudaError_t err = cudaSuccess;
};

// One call between CUDA events. Queued (default): a spin kernel ahead of the start event keeps
// the GPU busy while the host submits the call, so the figure is the GPU's time alone; if the
// start event had already passed when the call was submitted, again with a longer spin.
Timed time_call(const std::function<cudaError_t()>& call, cudaStream_t stream, bool idle_start) {
    cudaEvent_t start, end;
    PEERS_CHECK(cudaEventCreate(&start));
    PEERS_CHECK(cudaEventCreate(&end));
    Timed t;
    const int tries = idle_start ? 1 : int(sizeof kSpinNs / sizeof kSpinNs[0]);
    for (int i = 0; i < tries; ++i) {
        if (idle_start) PEERS_CHECK(cudaStreamSynchronize(stream));
        else PEERS_CHECK(peers_spin_ahead(kSpinNs[i], stream));
        PEERS_CHECK(cudaEventRecord(start, stream));
        t.err = call();
        if (t.err != cudaSuccess) break;
        const cudaError_t q = cudaEventQuery(start);
        if (q != cudaSuccess && q != cudaErrorNotReady) PEERS_CHECK(q);
        // A pending event is no error, but may be left as the thread's last error: clear it so
        // that no later launch check (the peers' included) mistakes it for its own.
        if (q == cudaErrorNotReady) (void)cudaGetLastError();
        t.queued = idle_start || q == cudaErrorNotReady;
        PEERS_CHECK(cudaEventRecord(end, stream));
        PEERS_CHECK(cudaEventSynchronize(end));
        float ms = 0;
        PEERS_CHECK(cudaEventElapsedTime(&ms, start, end));
        t.ms = ms;
        if (t.queued) break;
    }
    PEERS_CHECK(cudaEventDestroy(start));
    PEERS_CHECK(cudaEventDestroy(end));
    return t;
}

// A peer's call failed. A failure that leaves the context usable (a refused configuration) is
// reported for this (shape, peer) and the run goes on; one that does not ends the run.
std::string peer_failure(cudaError_t err, const char* peer, const Shape& s) {
    (void)cudaGetLastError();
    const cudaError_t sync = cudaDeviceSynchronize();
    if (sync != cudaSuccess) {
        std::fprintf(stderr, "%s:%d: %s on %llu,%llu,%llu failed: %s; then the device: %s (%s)\n",
                     __FILE__, __LINE__, peer, (unsigned long long)s.n, (unsigned long long)s.m,
                     (unsigned long long)s.k, cudaGetErrorString(err), cudaGetErrorString(sync),
                     cudaGetErrorName(sync));
        std::exit(1);
    }
    return std::string(cudaGetErrorName(err)) + ": " + cudaGetErrorString(err);
}

double percentile(const std::vector<double>& sorted, double q) {
    size_t rank = size_t(std::ceil(q * double(sorted.size())));
    return sorted[std::min(sorted.size(), std::max<size_t>(rank, 1)) - 1];
}

struct Outputs {
    void* values = nullptr;
    int32_t* indices = nullptr;
    void* scratch = nullptr;
    size_t scratch_bytes = 0;

    ~Outputs() {
        PEERS_CHECK(cudaFree(values));
        PEERS_CHECK(cudaFree(indices));
        PEERS_CHECK(cudaFree(scratch));
    }
};

// Times one peer on one shape and writes its JSON line.
void bench_peer(const Peer& peer, const Device& dev, const Options& o, const Shape& s,
                const Inputs& in, const std::vector<std::vector<float>>& ref) {
    std::string line = json_head(dev.name, peer.name, s, in.dtype);
    Outputs out;
    PEERS_CHECK(cudaMalloc(&out.values, s.n * s.k * dtype_bytes(in.dtype)));
    PEERS_CHECK(cudaMalloc(&out.indices, s.n * s.k * sizeof(int32_t)));
    cudaError_t err = peer.scratch_bytes(in.dtype, s.n, s.m, s.k, &out.scratch_bytes);
    if (err != cudaSuccess) {
        emit(line + ",\"error\":" + json_string("scratch query: " + peer_failure(err, peer.name, s)));
        return;
    }
    if (out.scratch_bytes > 0) {
        PEERS_CHECK(cudaMalloc(&out.scratch, out.scratch_bytes));
        PEERS_CHECK(cudaMemset(out.scratch, 0, out.scratch_bytes));
    }
    PEERS_CHECK(cudaDeviceSynchronize());

    const size_t count = in.buffers.size();
    std::vector<double> times;
    std::string verdict = "unchecked";
    int not_queued = 0;
    for (int r = 0; r < o.warmup + o.reps; ++r) {
        const Problem p{in.buffers[size_t(r) % count], out.values, out.indices, s.n, s.m, s.k,
                        in.dtype};
        Timed t = time_call([&] { return peer.run(p, out.scratch, out.scratch_bytes, dev.stream); },
                            dev.stream, o.idle_start);
        if (t.err != cudaSuccess) {
            emit(line + ",\"error\":" + json_string(peer_failure(t.err, peer.name, s)));
            return;
        }
        if (r == 0) verdict = check(in, ref, p, dev.stream);  // buffer 0: the reference's rows
        if (r < o.warmup) continue;
        times.push_back(t.ms);
        not_queued += t.queued ? 0 : 1;
    }
    std::sort(times.begin(), times.end());
    const double median = times[times.size() / 2];  // bench.rs: the upper median
    const double gbps = double(s.n * s.m * dtype_bytes(in.dtype)) / (median * 1e-3) / 1e9;
    std::string note = peer.path(in.dtype, s.n, s.m, s.k);
    if (not_queued > 0) {
        if (!note.empty()) note += "; ";
        note += std::to_string(not_queued) + " reps not queued behind the spin (host time included)";
    }
    char buf[320];
    std::snprintf(buf, sizeof buf,
                  ",\"median_ms\":%.5f,\"min_ms\":%.5f,\"p90_ms\":%.5f,\"gbps\":%.1f,\"reps\":%d,"
                  "\"input_buffers\":%zu,\"timing\":\"%s\"",
                  median, times.front(), percentile(times, 0.9), gbps, o.reps, count,
                  o.idle_start ? "idle-start" : "queued");
    emit(line + buf + ",\"check\":" + json_string(verdict) + ",\"note\":" + json_string(note));
    std::fprintf(stderr, "%-17s %-4s %6llu x %-9llu k=%-6llu %10.4f ms  %s  %s\n", peer.name,
                 dtype_name(in.dtype), (unsigned long long)s.n, (unsigned long long)s.m,
                 (unsigned long long)s.k, median, verdict.c_str(), note.c_str());
}

std::vector<const Peer*> chosen_peers(const Options& o) {
    const Peer* all[] = {&kFlashInfer, &kCubTopK, &kCubTopKPerRow, &kCubBatchedTopK};
    std::vector<const Peer*> out;
    if (o.peers.empty()) return std::vector<const Peer*>(std::begin(all), std::end(all));
    for (const std::string& name : o.peers) {
        const Peer* found = nullptr;
        for (const Peer* p : all)
            if (name == p->name) found = p;
        if (found == nullptr) usage_error("unknown peer " + name);
        out.push_back(found);
    }
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    const Options o = parse_args(argc, argv);
    const std::vector<const Peer*> peers = chosen_peers(o);

    Device dev;
    PEERS_CHECK(cudaSetDevice(o.device));
    cudaDeviceProp prop{};
    PEERS_CHECK(cudaGetDeviceProperties(&prop, o.device));
    dev.name = prop.name;
    int l2 = 0;
    PEERS_CHECK(cudaDeviceGetAttribute(&dev.sm_count, cudaDevAttrMultiProcessorCount, o.device));
    PEERS_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, o.device));
    dev.l2_bytes = uint64_t(l2);
    // A blocking stream: were a peer to queue anything on the legacy default stream, it would
    // still be ordered with (and timed with) the call.
    PEERS_CHECK(cudaStreamCreate(&dev.stream));
    int runtime = 0, driver = 0;
    PEERS_CHECK(cudaRuntimeGetVersion(&runtime));
    PEERS_CHECK(cudaDriverGetVersion(&driver));
    std::fprintf(stderr,
                 "peers: %s, sm_%d%d, %d SMs, L2 %llu MiB, CUDA runtime %d, driver %d, "
                 "CCCL %d, FlashInfer 0.7.2.post1; %s rows, %d reps after %d warm-ups, %s timing, "
                 "seed %llu\n",
                 dev.name.c_str(), prop.major, prop.minor, dev.sm_count,
                 (unsigned long long)(dev.l2_bytes >> 20), runtime, driver, peers_cccl_version(),
                 dtype_name(o.dtype), o.reps, o.warmup, o.idle_start ? "idle-start" : "queued",
                 (unsigned long long)o.seed);

    Inputs in;
    for (const Shape& s : o.shapes) {
        std::vector<const Peer*> runnable;
        for (const Peer* p : peers) {
            const std::string why = p->unsupported(o.dtype, s.n, s.m, s.k, o.per_row_max_n);
            if (why.empty()) runnable.push_back(p);
            else emit(json_head(dev.name, p->name, s, o.dtype) + ",\"unsupported\":" + json_string(why));
        }
        if (runnable.empty()) continue;
        if (in.n != s.n || in.m != s.m || in.buffers.empty()) {
            // outputs (values + indices) and a margin for the peers' scratch stay free
            const uint64_t reserve = s.n * s.k * (dtype_bytes(o.dtype) + 4) + (uint64_t{64} << 20);
            if (!make_inputs(in, dev, o, s, reserve)) {
                for (const Peer* p : runnable)
                    emit(json_head(dev.name, p->name, s, o.dtype) +
                         ",\"unsupported\":\"input does not fit in device memory\"");
                continue;
            }
        }
        const std::vector<std::vector<float>> ref = reference(in, s.k);
        for (const Peer* p : runnable) bench_peer(*p, dev, o, s, in, ref);
    }
    in.release();
    PEERS_CHECK(cudaStreamDestroy(dev.stream));
    return 0;
}
