// 11_multi_gpu/tests.cpp: every step with 1 to 8 ranks. Ranks share the GPUs when there are more
// ranks than GPUs ("virtual ranks"), so the hand-written steps are tested for 2 to 8 ranks on a
// machine with one GPU; the cases that need a GPU per rank (NCCL, the real links) skip with the
// reason on a machine with too few, and REQUIRE_GPUS=N makes a machine with fewer than N GPUs
// fail the suite instead.
//
// How the rules of multi_gpu.h are checked:
//   - entry: one rank is late. Its stream waits ~2 ms (queue_delay) and only then writes that
//     rank's input; a step that touches the rank's buffers before its stream reaches the call
//     reads poison (NaN, or -1 as an integer).
//   - exit: after the call, ranks overwrite their buffers at once on their own streams; a step
//     that let a rank's stream pass the call while another rank still reads its buffers, or
//     before its own data arrived, leaves a wrong result.
//   - results: every rank's sum against a double (integers: exact) reference, whole-number
//     floats exactly, random floats within 4 * 2^-24 * sqrt(n + 1) * sum|x| (compare.h).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <type_traits>
#include <string>
#include <vector>
#include <sys/wait.h>
#include <unistd.h>

#include "multi_gpu.h"
#include "testing.h"

namespace {

// NVLink multicast stays off unless the environment says otherwise (README), before NCCL starts.
[[maybe_unused]] const int kNvlsOff = setenv("NCCL_NVLS_ENABLE", "0", 0);

constexpr double kLateUs = 2000;  // how late a late rank is

int gpu_count() {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return n;
}
std::vector<int> first_gpus(int k) {
    std::vector<int> d;
    for (int i = 0; i < k; ++i) d.push_back(i);
    return d;
}
std::vector<int> all_gpus() { return first_gpus(gpu_count()); }

// A case of real links between GPUs: skipped on a machine with fewer than m (REQUIRE_GPUS=m
// turns a machine with fewer into a failure of the whole suite, common/test_main.cpp).
#define NEED_GPUS(m)                                                                                    \
    do {                                                                                                \
        if (gpu_count() < (m))                                                                          \
            SKIP_CASE("needs " + std::to_string(m) + " GPUs; this machine has " +                       \
                      std::to_string(gpu_count()) + " (REQUIRE_GPUS=" + std::to_string(m) +             \
                      " makes that a failure)");                                                        \
    } while (0)

// Every call must leave the current device as it found it.
struct SameDevice {
    int before = 0;
    SameDevice() { CUDA_CHECK(cudaGetDevice(&before)); }
    void check() const {
        int after = 0;
        CUDA_CHECK(cudaGetDevice(&after));
        CHECK_MESSAGE(after == before, "the current device was " << before << " before the call and " << after
                                                                 << " after it: restore it (OnDevice)");
    }
};

void synchronize_all(const Team& team) {
    team.synchronize();
    for (int r = 0; r < team.size(); ++r) {
        OnDevice on(team.device(r));
        CUDA_CHECK(cudaDeviceSynchronize());
    }
}

// ---- Inputs ----------------------------------------------------------------------------------
enum class Values { whole, random };

template <class T>
std::vector<T> make_values(size_t n, uint64_t seed, Values values);
template <>
std::vector<int> make_values<int>(size_t n, uint64_t seed, Values) {
    return random_ints(n, seed, -100000, 100000);
}
template <>
std::vector<float> make_values<float>(size_t n, uint64_t seed, Values values) {
    if (values == Values::random) return random_floats(n, seed, -1.0f, 1.0f);
    std::vector<int> k = random_ints(n, seed, -8, 7);
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = (float)(k[i] >= 0 ? k[i] + 1 : k[i]);  // never 0
    return v;
}
template <class T>
constexpr DType dtype_of() {
    return std::is_same<T, int>::value ? DType::i32 : DType::f32;
}

// Device memory on one device (a rank's buffers of different sizes).
template <class T>
DeviceBuffer<T> buffer_on(int device, size_t count) {
    OnDevice on(device);
    return DeviceBuffer<T>(count);
}

// ---- Step 1 ----------------------------------------------------------------------------------
struct ExchangeOptions {
    int late_sender = -1;    // this rank's src is written only after a delay on its stream
    int late_receiver = -1;  // this rank's stream still writes its dst buffers until a delay ends
    bool overwrite_src = false;  // senders overwrite src on their streams right after the call
};

void check_exchange(const Team& team, const std::vector<std::pair<int, int>>& pairs, size_t bytes,
                    ExchangeOptions o = {}) {
    CAPTURE(team.describe());
    CAPTURE(bytes);
    const int n = team.size();
    PerRank<uint8_t> src(team, bytes), pristine(team, bytes);
    std::vector<std::vector<uint8_t>> data(n);
    for (int r = 0; r < n; ++r) {
        std::vector<int> v = random_ints(bytes, 100 + r, 0, 255);
        data[r].assign(v.begin(), v.end());
        pristine.upload(r, data[r]);
        src.upload(r, data[r]);
    }
    std::vector<DeviceBuffer<uint8_t>> dst;
    std::vector<Transfer> transfers;
    for (const auto& p : pairs) {
        dst.push_back(buffer_on<uint8_t>(team.device(p.second), bytes));
        OnDevice on(team.device(p.second));
        dst.back().poison();
        CUDA_CHECK(cudaDeviceSynchronize());
    }
    for (size_t i = 0; i < pairs.size(); ++i)
        transfers.push_back({pairs[i].first, pairs[i].second, src.at(pairs[i].first), dst[i].get(), bytes});
    if (o.late_sender >= 0) src.poison(o.late_sender);

    SameDevice device;
    team.begin();
    if (o.late_sender >= 0 && bytes > 0) {
        OnDevice on(team.device(o.late_sender));
        queue_delay(team.stream(o.late_sender), kLateUs);
        CUDA_CHECK(cudaMemcpyAsync(src.at(o.late_sender), pristine.at(o.late_sender), bytes, cudaMemcpyDeviceToDevice,
                                   team.stream(o.late_sender)));
    }
    if (o.late_receiver >= 0 && bytes > 0) {
        OnDevice on(team.device(o.late_receiver));
        queue_delay(team.stream(o.late_receiver), kLateUs);
        for (size_t i = 0; i < pairs.size(); ++i)
            if (pairs[i].second == o.late_receiver)
                CUDA_CHECK(cudaMemsetAsync(dst[i].get(), 0xFF, bytes, team.stream(o.late_receiver)));
    }
    peer_exchange(team, transfers);
    device.check();
    if (o.overwrite_src && bytes > 0)
        for (const auto& p : pairs) {
            OnDevice on(team.device(p.first));
            CUDA_CHECK(cudaMemsetAsync(src.at(p.first), 0xEE, bytes, team.stream(p.first)));
        }
    team.end();
    synchronize_all(team);
    for (size_t i = 0; i < pairs.size(); ++i) {
        CAPTURE(pairs[i].first);
        CAPTURE(pairs[i].second);
        OnDevice on(team.device(pairs[i].second));
        CHECK_MATCH(compare_exact(dst[i].download(), data[pairs[i].first]));
    }
}

std::vector<std::pair<int, int>> ring_shift(int n) {
    std::vector<std::pair<int, int>> p;
    for (int r = 0; r < n; ++r) p.push_back({r, (r + 1) % n});
    return p;
}
std::vector<std::pair<int, int>> every_pair(int n) {
    std::vector<std::pair<int, int>> p;
    for (int a = 0; a < n; ++a)
        for (int b = 0; b < n; ++b)
            if (a != b) p.push_back({a, b});
    return p;
}

// ---- Step 2 ----------------------------------------------------------------------------------
struct SplitOptions {
    int late = -1;             // this rank's part is written only after a delay on its stream
    bool rank0_busy = false;   // rank 0's stream still writes partials until a delay ends
};

void check_split_sum(const Team& team, const std::vector<size_t>& counts, Values values, uint64_t seed,
                     SplitOptions o = {}) {
    CAPTURE(team.describe());
    const int n = team.size();
    std::vector<DeviceBuffer<float>> parts, pristine, scratch, sums;
    std::vector<float> all;
    SplitSum job;
    for (int r = 0; r < n; ++r) {
        const std::vector<float> x = make_values<float>(counts[r], seed + 7 * r, values);
        all.insert(all.end(), x.begin(), x.end());
        OnDevice on(team.device(r));
        parts.emplace_back(x);
        pristine.emplace_back(x);
        scratch.emplace_back(kSumScratchFloats);
        sums.emplace_back(1);
        scratch.back().poison();
        sums.back().poison();
        if (r == o.late) parts.back().poison();
        CUDA_CHECK(cudaDeviceSynchronize());
        job.parts.push_back(parts.back().get());
        job.counts.push_back(counts[r]);
        job.scratch.push_back(scratch.back().get());
        job.sums.push_back(sums.back().get());
    }
    DeviceBuffer<float> partials = buffer_on<float>(team.device(0), (size_t)n);
    DeviceBuffer<float> total = buffer_on<float>(team.device(0), 1);
    {
        OnDevice on(team.device(0));
        partials.poison();
        total.poison();
        CUDA_CHECK(cudaDeviceSynchronize());
    }
    job.partials = partials.get();
    job.total = total.get();

    SameDevice device;
    team.begin();
    if (o.late >= 0 && counts[o.late] > 0) {
        OnDevice on(team.device(o.late));
        queue_delay(team.stream(o.late), kLateUs);
        CUDA_CHECK(cudaMemcpyAsync(parts[o.late].get(), pristine[o.late].get(), counts[o.late] * sizeof(float),
                                   cudaMemcpyDeviceToDevice, team.stream(o.late)));
    }
    if (o.rank0_busy) {
        OnDevice on(team.device(0));
        queue_delay(team.stream(0), kLateUs);
        CUDA_CHECK(cudaMemsetAsync(partials.get(), 0xFF, n * sizeof(float), team.stream(0)));
    }
    split_sum(team, job);
    device.check();
    team.end();
    synchronize_all(team);
    const ReferenceSum ref = sum_reference(all.data(), all.size());
    OnDevice on(team.device(0));
    const float got = total.download()[0];
    INFO("GPU " << got << ", reference " << ref.sum << " (" << all.size() << " floats)");
    if (values == Values::whole)
        CHECK((double)got == ref.sum);
    else
        CHECK(within(got, ref.sum, float_sum_tolerance(all.size(), ref.sum_abs)));
}

// Sizes of the parts: equal, unequal, some empty.
std::vector<size_t> part_counts(int n, size_t each, int pattern) {
    std::vector<size_t> c((size_t)n, each);
    for (int r = 0; r < n; ++r) {
        if (pattern == 1) c[r] = each + 37 * (size_t)r;  // unequal
        if (pattern == 2) c[r] = r % 2 ? 0 : each;        // every other rank empty
    }
    return c;
}

// ---- Steps 3 and 4 ---------------------------------------------------------------------------
struct AllReduceOptions {
    bool in_place = false;
    int late = -1;                 // this rank's send is written only after a delay on its stream
    bool same_bits = true;         // every rank must hold the very same bits
    bool overwrite_after = false;  // rank 0 overwrites its buffers right after the call
};

template <class T>
void check_allreduce(const Team& team, size_t count, Values values, uint64_t seed, const AllReduceFn& allreduce,
                     AllReduceOptions o = {}) {
    CAPTURE(team.describe());
    CAPTURE(count);
    CAPTURE(dtype_name(dtype_of<T>()));
    CAPTURE(o.in_place);
    CAPTURE(o.late);
    const int n = team.size();
    PerRank<T> send(team, count), recv(team, count), pristine(team, count);
    PerRank<T> staging(team, (count + n - 1) / n);
    std::vector<std::vector<T>> in((size_t)n);
    for (int r = 0; r < n; ++r) {
        in[r] = make_values<T>(count, seed + 31 * r, values);
        pristine.upload(r, in[r]);
        send.upload(r, in[r]);
    }
    recv.poison();
    staging.poison();
    if (o.late >= 0) send.poison(o.late);
    AllReduce job;
    for (int r = 0; r < n; ++r) {
        job.send.push_back(send.at(r));
        job.recv.push_back(o.in_place ? (void*)send.at(r) : (void*)recv.at(r));
        job.staging.push_back(staging.at(r));
    }
    job.count = count;
    job.type = dtype_of<T>();
    const PerRank<T>& result = o.in_place ? send : recv;

    SameDevice device;
    team.begin();
    if (o.late >= 0 && count > 0) {
        OnDevice on(team.device(o.late));
        queue_delay(team.stream(o.late), kLateUs);
        CUDA_CHECK(cudaMemcpyAsync(send.at(o.late), pristine.at(o.late), count * sizeof(T), cudaMemcpyDeviceToDevice,
                                   team.stream(o.late)));
    }
    allreduce(team, job);
    device.check();
    // The exit rule: rank 0 may now reuse its buffers at once; the others' sums must not change.
    DeviceBuffer<T> snapshot = buffer_on<T>(team.device(0), count);
    if (o.overwrite_after && count > 0) {
        OnDevice on(team.device(0));
        CUDA_CHECK(cudaMemcpyAsync(snapshot.get(), result.at(0), count * sizeof(T), cudaMemcpyDeviceToDevice,
                                   team.stream(0)));
        CUDA_CHECK(cudaMemsetAsync(result.at(0), 0xFF, count * sizeof(T), team.stream(0)));
        if (!o.in_place) CUDA_CHECK(cudaMemsetAsync(send.at(0), 0xFF, count * sizeof(T), team.stream(0)));
    }
    team.end();
    synchronize_all(team);

    std::vector<double> ref(count, 0.0), ref_abs(count, 0.0);
    for (int r = 0; r < n; ++r)
        for (size_t i = 0; i < count; ++i) {
            ref[i] += (double)in[r][i];
            ref_abs[i] += std::fabs((double)in[r][i]);
        }
    std::vector<T> first;
    for (int r = 0; r < n; ++r) {
        CAPTURE(r);
        std::vector<T> got;
        if (r == 0 && o.overwrite_after && count > 0) {
            OnDevice on(team.device(0));
            got = snapshot.download();
        } else {
            got = result.download(r);
        }
        if (std::is_same<T, int>::value || values == Values::whole) {
            std::vector<T> want(count);
            for (size_t i = 0; i < count; ++i) want[i] = (T)ref[i];
            CHECK_MATCH(compare_exact(got, want));
        } else {
            Comparison c;
            c.count = count;
            for (size_t i = 0; i < count; ++i)
                if (!within(got[i], ref[i], float_sum_tolerance((size_t)n, ref_abs[i])) && c.mismatches++ == 0) {
                    c.first_bad = i;
                    c.first_got = got[i];
                    c.first_ref = ref[i];
                }
            CHECK_MATCH(c);
        }
        if (r == 0) first = got;
        if (o.same_bits && r > 0 && count > 0)
            CHECK_MESSAGE(std::memcmp(got.data(), first.data(), count * sizeof(T)) == 0,
                          "rank " << r << " holds other bits than rank 0: every rank must end with the same sum");
    }
}

AllReduceFn ring_fn() { return [](const Team& t, const AllReduce& a) { ring_allreduce(t, a); }; }
// Step 5 with its mesh; blocks < 1: the count direct_blocks gives.
AllReduceFn direct_fn(const PeerMesh& mesh, Shots shots, int blocks = 0) {
    return [&mesh, shots, blocks](const Team& t, const AllReduce& a) {
        direct_allreduce(t, mesh, a, shots, blocks > 0 ? blocks : direct_blocks(a.count * dtype_size(a.type), shots));
    };
}
// Step 7 with its mesh; blocks < 1: the count ring_kernel_blocks gives.
AllReduceFn ring_kernel_fn(const PeerMesh& mesh, int blocks = 0) {
    return [&mesh, blocks](const Team& t, const AllReduce& a) {
        ring_kernel_allreduce(t, mesh, a, blocks > 0 ? blocks : ring_kernel_blocks(a.count * dtype_size(a.type)));
    };
}
// With launches blocking (CUDA_LAUNCH_BLOCKING=1, as make sanitize's initcheck runs), the host waits
// for each kernel before it queues the next: kernels on two GPUs that wait for each other never
// meet.
bool launches_block() {
    const char* b = std::getenv("CUDA_LAUNCH_BLOCKING");
    return b && std::string(b) == "1";
}

// The exercise's program, next to this test program (build/11_multi_gpu/VARIANT/): its exit code
// and the last lines of what it printed.
struct ProgramRun {
    int rc = -1;
    std::string tail;
};
// Its whole output is also kept beside it, in `log` (e.g. program_gpus4_bench.log), for a reader.
ProgramRun run_program(const std::string& args, const std::string& log) {
    char self[4096] = {};
    const ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    std::string dir = len > 0 ? std::string(self, (size_t)len) : std::string("./tests");
    dir = dir.substr(0, dir.find_last_of('/') + 1);
    ProgramRun run;
    FILE* out = popen(("'" + dir + "multi_gpu' " + args + " 2>&1").c_str(), "r");
    if (!out) return run;
    FILE* keep = std::fopen((dir + log).c_str(), "w");
    std::deque<std::string> lines;
    char buf[512];
    while (std::fgets(buf, sizeof buf, out)) {
        if (keep) std::fputs(buf, keep);
        lines.push_back(buf);
        if (lines.size() > 30) lines.pop_front();
    }
    if (keep) std::fclose(keep);
    const int status = pclose(out);
    run.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    for (const auto& l : lines) run.tail += l;
    return run;
}

const size_t kCounts[] = {0, 1, 2, 3, 7, 8, 100, 1023, 4097, 100003};

// ---- Step 6 ----------------------------------------------------------------------------------
// An all-reduce for step 6's tests that needs none of the student's steps: on the host, after
// each rank's stream has reached it (so it reads whatever that stream has produced by then); the
// sums then land in recv late, on each rank's stream, after a delay. A step that does not make
// the all-reduce wait for the compute, or that lets the compute streams pass the call before the
// sums have landed, gives wrong results.
struct SlowReference {
    std::vector<DeviceBuffer<float>> landing;  // per rank, on its device
    AllReduceFn fn() {
        return [this](const Team& team, const AllReduce& a) {
            const int n = team.size();
            team.synchronize();
            std::vector<float> sum(a.count, 0.0f);
            for (int r = 0; r < n; ++r) {
                std::vector<float> x(a.count);
                if (a.count > 0)
                    CUDA_CHECK(cudaMemcpy(x.data(), a.send[r], a.count * sizeof(float), cudaMemcpyDefault));
                for (size_t i = 0; i < a.count; ++i) sum[i] += x[i];  // whole numbers: exact
            }
            for (int r = 0; r < n; ++r) {
                OnDevice on(team.device(r));
                if (a.count == 0) continue;
                CUDA_CHECK(cudaMemcpy(landing[r].get(), sum.data(), a.count * sizeof(float), cudaMemcpyHostToDevice));
                CUDA_CHECK(cudaDeviceSynchronize());
                queue_delay(team.stream(r), 500);
                CUDA_CHECK(cudaMemcpyAsync(a.recv[r], landing[r].get(), a.count * sizeof(float),
                                           cudaMemcpyDeviceToDevice, team.stream(r)));
            }
        };
    }
};

void check_overlap(const Team& compute, const Team& comm, size_t count, size_t bucket, int work,
                   const AllReduceFn& allreduce, SlowReference* landing_owner = nullptr) {
    CAPTURE(compute.describe());
    CAPTURE(count);
    CAPTURE(bucket);
    const int n = compute.size();
    PerRank<float> grads(compute, count), staging(compute, (bucket + n - 1) / n), snapshot(compute, count);
    grads.poison();
    snapshot.poison();
    if (landing_owner)
        for (int r = 0; r < n; ++r) landing_owner->landing.push_back(buffer_on<float>(compute.device(r), bucket));
    GradientJob job;
    job.grads = grads.pointers();
    for (int r = 0; r < n; ++r) job.staging.push_back(staging.at(r));
    job.count = count;
    job.bucket = bucket;
    job.work = work;

    SameDevice device;
    compute.begin();
    overlapped_step(compute, comm, job, allreduce);
    device.check();
    // What each compute stream sees right after the call: the exit rule says the sums.
    for (int r = 0; r < n; ++r) {
        OnDevice on(compute.device(r));
        if (count > 0)
            CUDA_CHECK(cudaMemcpyAsync(snapshot.at(r), grads.at(r), count * sizeof(float), cudaMemcpyDeviceToDevice,
                                       compute.stream(r)));
    }
    compute.end();
    synchronize_all(compute);
    synchronize_all(comm);
    std::vector<float> want(count, 0.0f);
    for (size_t i = 0; i < count; ++i)
        for (int r = 0; r < n; ++r) want[i] += gradient_value(i, r);
    for (int r = 0; r < n; ++r) {
        CAPTURE(r);
        CHECK_MATCH(compare_exact(snapshot.download(r), want));
    }
}

// ---- The caller's side: begin and end follow the caller's stream, wherever it lives -----------
// The caller's stream writes an input late (after a delay); the team's streams copy it, one
// rank late again; the caller's stream copies the last rank's copy out, and the host waits for
// the caller's stream alone. A begin() that does not wait for the caller's stream copies
// poison; an end() that does not hold the caller's stream back lets it copy out too early.
void check_caller(const Team& team, cudaStream_t caller, int caller_device, int current) {
    CAPTURE(team.describe());
    CAPTURE(caller_device);
    CAPTURE(current);
    const size_t count = (size_t)1 << 22;
    const int n = team.size();
    const std::vector<int> want = random_ints(count, 5, -1000, 1000);
    DeviceBuffer<int> source = buffer_on<int>(caller_device, count), input = buffer_on<int>(caller_device, count),
                      output = buffer_on<int>(caller_device, count);
    PerRank<int> at(team, count);
    at.poison();
    {
        OnDevice on(caller_device);
        source.upload(want);
        input.poison();
        output.poison();
        CUDA_CHECK(cudaDeviceSynchronize());
    }
    CUDA_CHECK(cudaSetDevice(current));
    SameDevice device;
    {
        OnDevice on(caller_device);
        queue_delay(caller, kLateUs);
        CUDA_CHECK(cudaMemcpyAsync(input.get(), source.get(), count * sizeof(int), cudaMemcpyDefault, caller));
    }
    team.begin(caller);
    for (int r = 0; r < n; ++r) {
        OnDevice on(team.device(r));
        if (r == n - 1) queue_delay(team.stream(r), kLateUs);
        CUDA_CHECK(cudaMemcpyAsync(at.at(r), input.get(), count * sizeof(int), cudaMemcpyDefault, team.stream(r)));
    }
    team.end(caller);
    device.check();
    {
        OnDevice on(caller_device);
        CUDA_CHECK(cudaMemcpyAsync(output.get(), at.at(n - 1), count * sizeof(int), cudaMemcpyDefault, caller));
        CUDA_CHECK(cudaStreamSynchronize(caller));
        CHECK_MATCH(compare_exact(output.download(), want));
    }
    synchronize_all(team);
}

// A stream of its own (not a default stream) on `device`.
struct OwnStream {
    cudaStream_t s = nullptr;
    int device;
    explicit OwnStream(int d) : device(d) {
        OnDevice on(d);
        CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    }
    ~OwnStream() {
        OnDevice on(device);
        cudaStreamDestroy(s);
    }
};

// ---- Steps 5 and 7 ----------------------------------------------------------------------------
// Call k of an all-reduce on a mesh (its settings may change from call to call).
using MeshCall = std::function<void(const Team&, const AllReduce&, int k)>;
// Step 5: one and two shots and block counts change from call to call.
void direct_call(const Team& team, const PeerMesh& mesh, const AllReduce& job, int k) {
    direct_allreduce(team, mesh, job, k % 2 ? Shots::two : Shots::one, 1 + (k * 7) % kMeshBlocks);
}
// Calls queued back to back with no host wait in between: every rank's stream rewrites its input
// before each call and keeps a copy of each call's sums; a different rank is late now and then.
// The flags of call k + 1 must not let any GPU read call k's data, nor wait for a flag call k
// already set. `call` defaults to step 5's.
void check_repeated(const Team& team, const PeerMesh& mesh, size_t count, int calls, MeshCall call = {}) {
    if (!call) call = [&mesh](const Team& t, const AllReduce& a, int k) { direct_call(t, mesh, a, k); };
    CAPTURE(team.describe());
    CAPTURE(count);
    const int n = team.size();
    PerRank<int> source(team, count * calls), send(team, count), recv(team, count), kept(team, count * calls);
    std::vector<std::vector<int>> in((size_t)n);
    for (int r = 0; r < n; ++r) {
        in[r] = random_ints(count * calls, 77 + r, -100000, 100000);
        source.upload(r, in[r]);
    }
    kept.poison();
    AllReduce job;
    for (int r = 0; r < n; ++r) {
        job.send.push_back(send.at(r));
        job.recv.push_back(recv.at(r));
        job.staging.push_back(nullptr);
    }
    job.count = count;
    job.type = DType::i32;
    team.begin();
    for (int k = 0; k < calls; ++k) {
        for (int r = 0; r < n; ++r) {
            OnDevice on(team.device(r));
            if (k % 7 == 3 && r == k % n) queue_delay(team.stream(r), 300);
            CUDA_CHECK(cudaMemcpyAsync(send.at(r), source.at(r) + k * count, count * sizeof(int),
                                       cudaMemcpyDeviceToDevice, team.stream(r)));
        }
        call(team, job, k);
        for (int r = 0; r < n; ++r) {
            OnDevice on(team.device(r));
            CUDA_CHECK(cudaMemcpyAsync(kept.at(r) + k * count, recv.at(r), count * sizeof(int),
                                       cudaMemcpyDeviceToDevice, team.stream(r)));
        }
    }
    team.end();
    synchronize_all(team);
    std::vector<int> want(count * calls, 0);
    for (int r = 0; r < n; ++r)
        for (size_t i = 0; i < want.size(); ++i) want[i] += in[r][i];
    for (int r = 0; r < n; ++r) {
        CAPTURE(r);
        CHECK_MATCH(compare_exact(kept.download(r), want));
    }
}

}  // namespace

DECLARE_STEPS(kSteps);

// ---- Step 1: the machine ----------------------------------------------------------------------
STEP_CASE(kSteps, "exchange", "query_link agrees with the runtime for every pair of GPUs") {
    const int g = gpu_count();
    for (int a = 0; a < g; ++a)
        for (int b = 0; b < g; ++b) {
            CAPTURE(a);
            CAPTURE(b);
            const LinkInfo l = query_link(a, b);
            if (a == b) {
                CHECK((l.peer_access && l.native_atomics && l.performance_rank == 0));
                continue;
            }
            int access = 0, rank = 0, atomics = 0;
            CUDA_CHECK(cudaDeviceCanAccessPeer(&access, a, b));
            CUDA_CHECK(cudaDeviceGetP2PAttribute(&rank, cudaDevP2PAttrPerformanceRank, a, b));
            CUDA_CHECK(cudaDeviceGetP2PAttribute(&atomics, cudaDevP2PAttrNativeAtomicSupported, a, b));
            CHECK(l.peer_access == (access != 0));
            CHECK(l.performance_rank == rank);
            CHECK(l.native_atomics == (atomics != 0));
        }
}
STEP_CASE(kSteps, "exchange", "2 to 4 virtual ranks: a ring shift, both ways, every pair; 0 to 2^20+3 bytes") {
    for (int n : {2, 3, 4}) {
        Team team(n, {0});
        for (size_t bytes : {(size_t)0, (size_t)1, (size_t)3, (size_t)4097, ((size_t)1 << 20) + 3}) {
            check_exchange(team, ring_shift(n), bytes);
            check_exchange(team, every_pair(n), bytes);
        }
    }
    Team two(2, {0});
    check_exchange(two, {{0, 1}}, 1000);
    check_exchange(two, {{1, 0}}, 1000);
}
STEP_CASE(kSteps, "exchange", "entry and exit: a late sender, a late receiver, src overwritten after the call") {
    for (int n : {2, 3}) {
        Team team(n, {0});
        for (int late = 0; late < n; ++late) {
            check_exchange(team, every_pair(n), (size_t)1 << 20, {late, -1, false});
            check_exchange(team, every_pair(n), (size_t)1 << 20, {-1, late, true});
        }
    }
}
STEP_CASE(kSteps, "exchange", "every pair of GPUs, one way and both ways, late ranks") {
    NEED_GPUS(2);
    const int g = gpu_count();
    for (int a = 0; a < g; ++a)
        for (int b = a + 1; b < g; ++b) {
            Team pair(2, {a, b});
            check_exchange(pair, {{0, 1}}, ((size_t)1 << 22) + 5);
            check_exchange(pair, {{1, 0}}, 4097);
            check_exchange(pair, {{0, 1}, {1, 0}}, ((size_t)1 << 22) + 5);
            check_exchange(pair, {{0, 1}, {1, 0}}, (size_t)1 << 20, {1, -1, false});
            check_exchange(pair, {{0, 1}, {1, 0}}, (size_t)1 << 20, {-1, 0, true});
        }
    Team all(g, all_gpus());
    check_exchange(all, every_pair(g), 100003);
}

// The program's path: rank 0's GPU current, begin() and end() on its default stream (where the
// program's timing events go), the host waiting for that stream alone, a receiver late.
STEP_CASE(kSteps, "exchange", "every ordered pair of GPUs as the program times it, from GPU 0's default stream") {
    NEED_GPUS(2);
    const int g = gpu_count();
    const size_t bytes = ((size_t)1 << 22) + 5;
    for (int a = 0; a < g; ++a)
        for (int b = a + 1; b < g; ++b) {
            Team pair(2, {a, b});
            PerRank<uint8_t> src(pair, bytes), dst(pair, bytes);
            std::vector<std::vector<uint8_t>> data(2);
            for (int r = 0; r < 2; ++r) {
                const std::vector<int> v = random_ints(bytes, 40 + r, 0, 255);
                data[r].assign(v.begin(), v.end());
                src.upload(r, data[r]);
            }
            for (const auto& list : {std::vector<std::pair<int, int>>{{0, 1}}, {{1, 0}}, {{0, 1}, {1, 0}}}) {
                CAPTURE(a);
                CAPTURE(b);
                CAPTURE(list.size());
                dst.poison();
                CUDA_CHECK(cudaSetDevice(0));
                std::vector<Transfer> transfers;
                for (const auto& p : list) transfers.push_back({p.first, p.second, src.at(p.first), dst.at(p.second), bytes});
                pair.begin();
                {
                    OnDevice on(pair.device(list[0].second));
                    queue_delay(pair.stream(list[0].second), kLateUs);
                }
                peer_exchange(pair, transfers);
                pair.end();
                CUDA_CHECK(cudaStreamSynchronize(0));  // GPU 0's default stream, and nothing else
                for (const auto& p : list) {
                    CAPTURE(p.first);
                    CHECK_MATCH(compare_exact(dst.download(p.second), data[p.first]));
                }
                synchronize_all(pair);
            }
        }
}

// ---- Step 2: split one job --------------------------------------------------------------------
STEP_HOST_CASE(kSteps, "split_sum", "prediction: bytes between GPUs for 4 GPUs and 2^28 floats") {
    check_prediction("kSplitSumBytesBetweenGpus", (double)kSplitSumBytesBetweenGpus,
                     "what has to leave a GPU once it has summed its own part");
}
STEP_CASE(kSteps, "split_sum", "1 to 8 virtual ranks, parts equal, unequal and empty, exact") {
    for (int n = 1; n <= 8; ++n) {
        Team team(n, {0});
        for (int pattern = 0; pattern < 3; ++pattern)
            for (size_t each : {(size_t)0, (size_t)1, (size_t)1000, (size_t)100003})
                check_split_sum(team, part_counts(n, each, pattern), Values::whole, 10 * n + pattern);
    }
}
STEP_CASE(kSteps, "split_sum", "random floats, within tolerance") {
    Team team(4, {0});
    check_split_sum(team, part_counts(4, 300007, 1), Values::random, 5);
}
STEP_CASE(kSteps, "split_sum", "entry: a late rank's part; rank 0 still using partials") {
    Team team(4, {0});
    for (int late = 0; late < 4; ++late) check_split_sum(team, part_counts(4, 200003, 0), Values::whole, 3, {late, false});
    check_split_sum(team, part_counts(4, 200003, 0), Values::whole, 4, {-1, true});
}
STEP_CASE(kSteps, "split_sum", "over every GPU, 2^24+3 floats each, late ranks") {
    NEED_GPUS(2);
    const int g = gpu_count();
    Team team(g, all_gpus());
    check_split_sum(team, part_counts(g, ((size_t)1 << 24) + 3, 1), Values::whole, 8);
    check_split_sum(team, part_counts(g, 100003, 2), Values::random, 9);
    check_split_sum(team, part_counts(g, 100003, 0), Values::whole, 10, {g - 1, false});
    check_split_sum(team, part_counts(g, 100003, 0), Values::whole, 11, {-1, true});
}

// ---- Step 3: a ring all-reduce by hand -------------------------------------------------------
STEP_HOST_CASE(kSteps, "ring", "ring_segment: segments tile [0, count) in order, sizes within one") {
    std::string first_wrong;
    for (size_t count : {(size_t)0, (size_t)1, (size_t)2, (size_t)3, (size_t)7, (size_t)100, (size_t)1000003,
                         ((size_t)1 << 33) + 5})
        for (int parts = 1; parts <= 9 && first_wrong.empty(); ++parts) {
            size_t next = 0, smallest = SIZE_MAX, largest = 0;
            bool in_order = true;
            for (int k = 0; k < parts; ++k) {
                const Range s = ring_segment(count, parts, k);
                in_order = in_order && s.begin == next && s.end >= s.begin;
                next = s.end;
                smallest = std::min(smallest, s.size());
                largest = std::max(largest, s.size());
            }
            // The last condition: a segment fits the staging the header promises.
            if (!in_order || next != count || largest - smallest > 1 || largest > (count + parts - 1) / parts)
                first_wrong = "count " + std::to_string(count) + ", " + std::to_string(parts) + " parts: " +
                              (!in_order ? "a segment does not start where the one before ends"
                               : next != count ? "the segments end at " + std::to_string(next)
                                               : "sizes differ by more than one");
        }
    CHECK_MESSAGE(first_wrong.empty(), first_wrong);
}
STEP_HOST_CASE(kSteps, "ring", "predictions: rounds at 8 ranks, bytes received per GPU at 4") {
    check_prediction("kRingRoundsAt8", (double)kRingRoundsAt8,
                     "how many rounds the reduce-scatter takes, and how many the all-gather");
    check_prediction("kRingBytesPerGpuAt4", (double)kRingBytesPerGpuAt4,
                     "how large one segment is, and how many segments arrive in each phase");
}
STEP_CASE(kSteps, "ring", "1 to 8 virtual ranks, int32 and float, in and out of place, every count") {
    for (int n = 1; n <= 8; ++n) {
        Team team(n, {0});
        for (size_t count : kCounts) {
            check_allreduce<int>(team, count, Values::whole, count + n, ring_fn());
            check_allreduce<float>(team, count, Values::whole, count + n + 1, ring_fn(), {true});
        }
        check_allreduce<float>(team, 100003, Values::random, n, ring_fn());
    }
}
STEP_CASE(kSteps, "ring", "ranks that cannot read each other: every segment copied over") {
    for (int n : {2, 3, 5}) {
        Team team(n, {0}, Reach::copies);
        for (size_t count : {(size_t)1, (size_t)7, (size_t)4097, (size_t)100003}) {
            check_allreduce<int>(team, count, Values::whole, count + n, ring_fn());
            check_allreduce<float>(team, count, Values::whole, count, ring_fn(), {true});
        }
    }
}
STEP_CASE(kSteps, "ring", "entry: every rank in turn late; exit: rank 0 reuses its buffers at once") {
    for (int n : {2, 3, 4}) {
        Team team(n, {0});
        for (int late = 0; late < n; ++late) {
            check_allreduce<int>(team, 1 << 20, Values::whole, late, ring_fn(), {false, late});
            check_allreduce<float>(team, 1 << 20, Values::whole, late, ring_fn(), {true, late});
        }
        check_allreduce<int>(team, 1 << 22, Values::whole, 3, ring_fn(), {false, -1, true, true});
    }
}
STEP_CASE(kSteps, "ring", "2^24+3 floats over 4 virtual ranks (large)") {
    Team team(4, {0});
    check_allreduce<float>(team, ((size_t)1 << 24) + 3, Values::whole, 1, ring_fn());
}
STEP_CASE(kSteps, "ring", "every GPU, and 2 to 8 ranks spread over the GPUs; peer access and copies") {
    NEED_GPUS(2);
    const int g = gpu_count();
    for (Reach reach : {Reach::peer, Reach::copies}) {
        Team team(g, all_gpus(), reach);
        for (size_t count : kCounts) check_allreduce<int>(team, count, Values::whole, count, ring_fn());
        check_allreduce<float>(team, ((size_t)1 << 22) + 1, Values::random, 2, ring_fn(), {true});
        for (int late = 0; late < g; ++late)
            check_allreduce<float>(team, 1 << 20, Values::whole, late, ring_fn(), {false, late, true, true});
    }
    for (int n = 2; n <= 8; ++n) {
        Team team(n, all_gpus());
        check_allreduce<int>(team, 100003, Values::whole, n, ring_fn());
    }
}

// ---- Step 4: the library ---------------------------------------------------------------------
STEP_HOST_CASE(kSteps, "nccl", "prediction: the bus-bandwidth factor at 8 ranks") {
    check_prediction("kBusFactorAt8", kBusFactorAt8,
                     "how much data each rank sends in a ring all-reduce, relative to the buffer");
}
STEP_CASE(kSteps, "nccl", "a communicator over every GPU (one is enough), int32 and float, every count") {
    const int g = gpu_count();
    Team team(g, all_gpus());
    NcclComms comms(nccl_communicators(team));
    for (ncclComm_t c : comms.get()) REQUIRE_MESSAGE(c != nullptr, "nccl_communicators left a communicator empty");
    const AllReduceFn fn = [&](const Team& t, const AllReduce& a) { nccl_allreduce(t, a, comms.get()); };
    for (size_t count : kCounts) {
        check_allreduce<int>(team, count, Values::whole, count, fn, {false, -1, false});
        check_allreduce<float>(team, count, Values::whole, count + 1, fn, {true, -1, false});
    }
    check_allreduce<float>(team, ((size_t)1 << 22) + 3, Values::random, 4, fn, {false, -1, false});
    for (int late = 0; late < g; ++late)
        check_allreduce<float>(team, 1 << 20, Values::whole, late, fn, {false, late, false, true});
}
STEP_CASE(kSteps, "nccl", "every GPU of the machine, NCCL between real GPUs") {
    NEED_GPUS(2);
    const int g = gpu_count();
    for (int k = 2; k <= g; ++k) {
        Team team(k, first_gpus(k));
        NcclComms comms(nccl_communicators(team));
        const AllReduceFn fn = [&](const Team& t, const AllReduce& a) { nccl_allreduce(t, a, comms.get()); };
        check_allreduce<int>(team, 100003, Values::whole, k, fn, {false, -1, false});
        check_allreduce<float>(team, ((size_t)1 << 24) + 1, Values::whole, k, fn, {true, -1, false});
    }
}

// ---- Step 5: a direct all-reduce ---------------------------------------------------------------
STEP_HOST_CASE(kSteps, "direct", "predictions: bytes each GPU reads from the others at 4 GPUs, one and two shots") {
    check_prediction("kOneShotBytesInAt4", (double)kOneShotBytesInAt4,
                     "whose data does one GPU's kernel read in one shot, and how much of each");
    check_prediction("kTwoShotsBytesInAt4", (double)kTwoShotsBytesInAt4,
                     "what a rank reads to sum its own segment, and what it reads to collect the others'");
}
STEP_CASE(kSteps, "direct", "1 to 8 virtual ranks, one and two shots, int32 and float, in and out of place, every count") {
    for (int n = 1; n <= 8; ++n) {
        Team team(n, {0});
        PeerMesh mesh(team, 100003 * sizeof(int));
        for (Shots shots : {Shots::one, Shots::two})
            for (size_t count : kCounts) {
                CAPTURE(std::string(shots_name(shots)));
                check_allreduce<int>(team, count, Values::whole, count + n, direct_fn(mesh, shots));
                check_allreduce<float>(team, count, Values::whole, count + n + 1, direct_fn(mesh, shots, kMeshBlocks), {true});
                check_allreduce<int>(team, count, Values::whole, count + 2 * n, direct_fn(mesh, shots, 3), {true});
            }
        check_allreduce<float>(team, 100003, Values::random, n, direct_fn(mesh, Shots::one));
        check_allreduce<float>(team, 100003, Values::random, n, direct_fn(mesh, Shots::two));
    }
}
STEP_CASE(kSteps, "direct", "entry: every rank in turn late; exit: rank 0 reuses its buffers at once") {
    for (int n : {2, 3, 4}) {
        Team team(n, {0});
        PeerMesh mesh(team, (size_t)4 << 20);
        for (Shots shots : {Shots::one, Shots::two}) {
            CAPTURE(std::string(shots_name(shots)));
            for (int late = 0; late < n; ++late) {
                check_allreduce<int>(team, 1 << 20, Values::whole, late, direct_fn(mesh, shots), {false, late});
                check_allreduce<float>(team, 1 << 20, Values::whole, late, direct_fn(mesh, shots), {true, late});
            }
            check_allreduce<int>(team, 1 << 20, Values::whole, 3, direct_fn(mesh, shots), {false, -1, true, true});
        }
    }
}
STEP_CASE(kSteps, "direct", "calls back to back on virtual ranks: 40 calls, inputs rewritten between them") {
    for (int n : {1, 3}) {
        Team team(n, {0});
        PeerMesh mesh(team, 100003 * sizeof(int));
        check_repeated(team, mesh, 4097, sanitizing(40, 6));
        check_repeated(team, mesh, 100003, sanitizing(10, 3));
    }
}
STEP_CASE(kSteps, "direct", "every GPU, 2 to 8 ranks spread over the GPUs, late ranks, calls back to back") {
    NEED_GPUS(2);
    if (launches_block() || under_sanitizer())
        SKIP_CASE("kernels on several GPUs wait for each other, and under blocking launches or the sanitizer they may "
                  "not run at once (the virtual-rank cases check the same kernels on one GPU)");
    const int g = gpu_count();
    Team team(g, all_gpus());
    PeerMesh mesh(team, (((size_t)1 << 22) + 1) * sizeof(float));
    for (Shots shots : {Shots::one, Shots::two}) {
        CAPTURE(std::string(shots_name(shots)));
        for (size_t count : kCounts) check_allreduce<int>(team, count, Values::whole, count, direct_fn(mesh, shots));
        check_allreduce<float>(team, ((size_t)1 << 22) + 1, Values::random, 2, direct_fn(mesh, shots), {true});
        for (int late = 0; late < g; ++late)
            check_allreduce<float>(team, 1 << 20, Values::whole, late, direct_fn(mesh, shots), {false, late, true, true});
    }
    check_repeated(team, mesh, 4097, sanitizing(200, 20));
    check_repeated(team, mesh, 100003, sanitizing(20, 4));
    for (int n = 2; n <= 8; ++n) {
        Team spread(n, all_gpus());
        PeerMesh m(spread, 100003 * sizeof(int));
        check_allreduce<int>(spread, 100003, Values::whole, n, direct_fn(m, Shots::one));
        check_allreduce<int>(spread, 100003, Values::whole, n, direct_fn(m, Shots::two));
        check_repeated(spread, m, 1001, sanitizing(30, 5));
    }
}
STEP_CASE(kSteps, "direct", "a team whose ranks cannot read each other has no mesh, and says why") {
    Team copies(3, {0}, Reach::copies);
    CHECK(!why_no_mesh(copies).empty());
    Team peers(3, {0});
    CHECK(why_no_mesh(peers).empty());
}

// ---- Step 7: the ring in one kernel per GPU ---------------------------------------------------
// Block counts change from call to call: every GPU's kernel of one call uses the same count.
void ring_kernel_call(const Team& team, const PeerMesh& mesh, const AllReduce& job, int k) {
    ring_kernel_allreduce(team, mesh, job, 1 + (k * 5) % kMeshBlocks);
}
STEP_HOST_CASE(kSteps, "ring_kernel", "prediction: what step 3's ring queues per call over 8 GPUs") {
    check_prediction("kRingQueuedAt8", (double)kRingQueuedAt8,
                     "how many rounds each rank takes, and what it queues in each");
}
STEP_CASE(kSteps, "ring_kernel", "1 to 8 virtual ranks, int32 and float, in and out of place, every count, 1 to 64 blocks") {
    for (int n = 1; n <= 8; ++n) {
        Team team(n, {0});
        PeerMesh mesh(team, 16);  // the ring stages nothing
        for (size_t count : kCounts) {
            check_allreduce<int>(team, count, Values::whole, count + n, ring_kernel_fn(mesh));
            check_allreduce<float>(team, count, Values::whole, count + n + 1, ring_kernel_fn(mesh, kMeshBlocks), {true});
            check_allreduce<int>(team, count, Values::whole, count + 2 * n, ring_kernel_fn(mesh, 3), {true});
        }
        check_allreduce<float>(team, 100003, Values::random, n, ring_kernel_fn(mesh), {false, -1, true});
    }
}
STEP_CASE(kSteps, "ring_kernel", "entry: every rank in turn late; exit: rank 0 reuses its buffers at once") {
    for (int n : {2, 3, 4}) {
        Team team(n, {0});
        PeerMesh mesh(team, 16);
        for (int late = 0; late < n; ++late) {
            check_allreduce<int>(team, 1 << 20, Values::whole, late, ring_kernel_fn(mesh), {false, late});
            check_allreduce<float>(team, 1 << 20, Values::whole, late, ring_kernel_fn(mesh), {true, late});
        }
        check_allreduce<int>(team, 1 << 20, Values::whole, 3, ring_kernel_fn(mesh), {false, -1, true, true});
    }
}
STEP_CASE(kSteps, "ring_kernel", "calls back to back on virtual ranks, step 5's calls in between on the same mesh") {
    for (int n : {1, 2, 3}) {
        Team team(n, {0});
        PeerMesh mesh(team, 100003 * sizeof(int));
        auto ring_call = [&mesh](const Team& t, const AllReduce& a, int k) { ring_kernel_call(t, mesh, a, k); };
        auto mixed = [&mesh](const Team& t, const AllReduce& a, int k) {
            if (k % 3 == 2) direct_call(t, mesh, a, k);
            else ring_kernel_call(t, mesh, a, k);
        };
        check_repeated(team, mesh, 4097, sanitizing(40, 6), ring_call);
        check_repeated(team, mesh, 100003, sanitizing(10, 3), mixed);
    }
}
STEP_CASE(kSteps, "ring_kernel", "every GPU, 2 to 8 ranks spread over the GPUs, late ranks, calls back to back") {
    NEED_GPUS(2);
    if (launches_block() || under_sanitizer())
        SKIP_CASE("kernels on several GPUs wait for each other, and under blocking launches or the sanitizer they may "
                  "not run at once (the virtual-rank cases check the same kernels on one GPU)");
    const int g = gpu_count();
    Team team(g, all_gpus());
    PeerMesh mesh(team, 16);
    auto ring_call = [&mesh](const Team& t, const AllReduce& a, int k) { ring_kernel_call(t, mesh, a, k); };
    for (size_t count : kCounts) check_allreduce<int>(team, count, Values::whole, count, ring_kernel_fn(mesh));
    check_allreduce<float>(team, ((size_t)1 << 22) + 1, Values::random, 2, ring_kernel_fn(mesh), {true});
    for (int late = 0; late < g; ++late)
        check_allreduce<float>(team, 1 << 20, Values::whole, late, ring_kernel_fn(mesh), {false, late, true, true});
    check_repeated(team, mesh, 4097, sanitizing(200, 20), ring_call);
    check_repeated(team, mesh, 100003, sanitizing(20, 4), ring_call);
    for (int n = 2; n <= 8; ++n) {
        Team spread(n, all_gpus());
        PeerMesh m(spread, 16);
        check_allreduce<int>(spread, 100003, Values::whole, n, ring_kernel_fn(m));
        check_repeated(spread, m, 1001, sanitizing(30, 5),
                       [&m](const Team& t, const AllReduce& a, int k) { ring_kernel_call(t, m, a, k); });
    }
}
STEP_CASE(kSteps, "ring_kernel", "2^24+3 floats over 4 virtual ranks, and 2^28+5 ints over every GPU (large)") {
    {
        Team team(4, {0});
        PeerMesh mesh(team, 16);
        check_allreduce<float>(team, ((size_t)1 << 24) + 3, Values::random, 5, ring_kernel_fn(mesh), {true});
    }
    if (gpu_count() < 2 || launches_block() || under_sanitizer()) return;
    Team team(gpu_count(), all_gpus());
    PeerMesh mesh(team, 16);
    check_allreduce<int>(team, ((size_t)1 << 28) + 5, Values::whole, 6, ring_kernel_fn(mesh), {true});
}

// ---- Step 6: overlap --------------------------------------------------------------------------
STEP_HOST_CASE(kSteps, "overlap", "prediction: 8 buckets of 1.0 ms compute and 0.5 ms all-reduce") {
    check_prediction("kOverlappedMsFor8Buckets", kOverlappedMsFor8Buckets,
                     "which of the two streams is busy all the time, and what the other does last");
}
STEP_CASE(kSteps, "overlap", "2 and 3 virtual ranks, buckets of 1 element to all of them") {
    for (int n : {2, 3}) {
        Team compute(n, {0}), comm(n, {0}, Reach::peer, true);
        for (size_t count : {(size_t)0, (size_t)1, (size_t)1000, (size_t)100003})
            for (size_t bucket : {(size_t)1, (size_t)7, (size_t)4096, (size_t)100003, (size_t)200000}) {
                if (count / bucket > 200) continue;  // thousands of tiny all-reduces: slow, and nothing new
                SlowReference slow;
                check_overlap(compute, comm, count, bucket, 100, slow.fn(), &slow);
            }
    }
}
// Slow compute (about a millisecond per bucket on an H100): an all-reduce that does not wait for
// its bucket reads poison, and a compute stream that does not wait for the last all-reduce
// passes the call before the sums land.
STEP_CASE(kSteps, "overlap", "slow compute on 2 virtual ranks: the all-reduce waits, the exit waits") {
    Team compute(2, {0}), comm(2, {0}, Reach::peer, true);
    SlowReference slow;
    check_overlap(compute, comm, 4 << 16, 1 << 16, 500000, slow.fn(), &slow);
}
STEP_CASE(kSteps, "overlap", "slow compute over every GPU") {
    NEED_GPUS(2);
    const int g = gpu_count();
    Team compute(g, all_gpus()), comm(g, all_gpus(), Reach::peer, true);
    SlowReference slow;
    check_overlap(compute, comm, 4 << 16, 1 << 16, 500000, slow.fn(), &slow);
}

// ---- host -----------------------------------------------------------------------------------
TEST_CASE("host: gradient values are whole numbers from -8 to 8, and every one occurs") {
    std::vector<int> seen(17, 0);
    for (int r = 0; r < 8; ++r)
        for (size_t i = 0; i < 100000; ++i) {
            const float v = gradient_value(i, r);
            REQUIRE((v >= -8.0f && v <= 8.0f && v == (float)(int)v));
            seen[(int)v + 8] = 1;
        }
    for (int k = 0; k < 17; ++k) CHECK(seen[k] == 1);
}

// ---- The team's begin and end, and the program at 3 and 4 GPUs --------------------------------
TEST_CASE("gpu: begin and end follow a caller's stream of its own, and the default stream" * needs_gpu()) {
    Team team(3, {0});
    OwnStream own(0);
    check_caller(team, own.s, 0, 0);
    check_caller(team, 0, 0, 0);
}
TEST_CASE("gpu: begin and end with the caller's stream on a GPU outside the team, or not current" * needs_gpu()) {
    NEED_GPUS(2);
    Team on1(2, {1});  // virtual ranks on GPU 1
    OwnStream own0(0), own1(1);
    check_caller(on1, own0.s, 0, 1);  // the caller's stream on GPU 0, GPU 1 current
    check_caller(on1, own1.s, 1, 0);  // on the team's GPU, GPU 0 current
    check_caller(on1, 0, 0, 0);       // GPU 0's default stream, GPU 0 current: the program's path
    if (gpu_count() < 3) return;
    Team pair(2, {1, 2});
    OwnStream own2(2);
    check_caller(pair, own0.s, 0, 2);  // outside the team
    check_caller(pair, own1.s, 1, 0);  // on member 0's GPU, another one current
    check_caller(pair, own2.s, 2, 1);  // on member 1's GPU
    check_caller(pair, 0, 0, 0);
}
// The program as a student runs it (default run and --bench), every row checked: at 3 GPUs the
// ring is not a power of two, and pairs of GPUs other than GPU 0 are timed from GPU 0.
TEST_CASE("gpu: the program's default run at 3 and 4 GPUs exits 0, every row checked (large)" * needs_gpu()) {
    NEED_GPUS(3);
    for (int k = 3; k <= std::min(4, gpu_count()); ++k) {
        CAPTURE(k);
        const ProgramRun run = run_program("--gpus " + std::to_string(k) + " --n 2^24", "program_gpus" + std::to_string(k) + ".log");
        INFO(run.tail);
        CHECK(run.rc == 0);
    }
}
TEST_CASE("gpu: the program's --bench at 3 and 4 GPUs exits 0, every row checked (large)" * needs_gpu()) {
    NEED_GPUS(3);
    for (int k = 3; k <= std::min(4, gpu_count()); ++k) {
        CAPTURE(k);
        const ProgramRun run = run_program("--gpus " + std::to_string(k) + " --bench", "program_gpus" + std::to_string(k) + "_bench.log");
        INFO(run.tail);
        CHECK(run.rc == 0);
    }
}
