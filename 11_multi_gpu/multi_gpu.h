// multi_gpu.h: the interface of exercise 11, one job on several GPUs.
//
// Frozen: main.cpp and tests.cpp call these functions, and starter.cu and solution.cu both
// implement them, so the same program and tests run against either file.
//
// A *rank* is one member of a team: a device, a stream on that device, and buffers there.
// Normally rank r is GPU r. With more ranks than GPUs, ranks share GPUs ("virtual ranks", each
// with its own stream and buffers): the hand-written steps cannot tell the difference, so their
// tests run 2 to 8 ranks on a machine with one GPU. NCCL needs a GPU of its own for each rank.
//
// The rules every step keeps (they are NCCL's):
//   - Asynchronous: queue the work and return, as a kernel launch does; never wait on the host.
//     Each rank's work goes on that rank's stream, launched with its device current.
//   - Entry: when a rank's stream reaches the call, that rank's inputs are ready. Nothing tells
//     the OTHER ranks' streams so: no rank may touch another rank's buffers before that rank's
//     stream has reached the call.
//   - Exit: when a rank's stream has passed the call, everything the call does to that rank's
//     buffers is done, including other ranks' reads of them, so the rank may overwrite them.
//   - The current device is the same on return as on entry.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <variant>
#include <vector>
#include <cuda_runtime.h>
#include <nccl.h>

#include "buffer.h"
#include "cuda_check.h"
#include "steps.h"

// ---- NCCL calls are checked like CUDA calls --------------------------------------------------
inline void nccl_check_failed(ncclResult_t r, const char* expr, const char* file, int line) {
    std::fprintf(stderr, "%s:%d: NCCL error %d (%s) in %s\n", file, line, (int)r, ncclGetErrorString(r), expr);
    std::exit(1);
}
#define NCCL_CHECK(expr)                                                       \
    do {                                                                       \
        ncclResult_t nccl_check_r_ = (expr);                                   \
        if (nccl_check_r_ != ncclSuccess)                                      \
            nccl_check_failed(nccl_check_r_, #expr, __FILE__, __LINE__);       \
    } while (0)

// ---- Given: devices, teams, buffers on each rank (team.cu) -------------------------------------

// Makes `device` current until the end of the scope, then restores the one that was.
class OnDevice {
public:
    explicit OnDevice(int device) {
        CUDA_CHECK(cudaGetDevice(&previous_));
        CUDA_CHECK(cudaSetDevice(device));
    }
    ~OnDevice() { cudaSetDevice(previous_); }
    OnDevice(const OnDevice&) = delete;
    OnDevice& operator=(const OnDevice&) = delete;

private:
    int previous_ = 0;
};

constexpr int kMaxRanks = 64;

// How ranks may reach each other's memory. peer: a kernel may read another rank's buffer when
// both ranks are on one device or peer access between their devices is on (the Team turns it on
// where the hardware allows). copies: never; another rank's data must be copied over first
// (a machine without peer access; the tests use it to run that path on one GPU too).
enum class Reach { peer, copies };

class Team {
public:
    // `ranks` ranks on `devices`: rank r runs on devices[r % devices.size()]. Each rank gets a
    // stream of its own (cudaStreamNonBlocking: it never waits for a device's default stream)
    // and events_per_rank() events created on its device. Streams of an `urgent` team have the
    // device's highest priority: when a block of the GPU frees up, their kernels' blocks go
    // first (what frameworks give their communication, so that it is not queued behind compute).
    Team(int ranks, const std::vector<int>& devices, Reach reach = Reach::peer, bool urgent = false);
    ~Team();
    Team(const Team&) = delete;
    Team& operator=(const Team&) = delete;

    int size() const { return (int)members_.size(); }
    int device(int r) const { return members_.at(r).device; }
    cudaStream_t stream(int r) const { return members_.at(r).stream; }
    // Event k of rank r, for the calls to record on rank r's stream (only there: an event belongs
    // to its device) and for any stream to wait on. Timing is off: they order work, nothing else.
    cudaEvent_t event(int r, int k) const { return members_.at(r).events.at(k); }
    int events_per_rank() const { return 2 * size() + 2; }
    // May a kernel of rank `reader` dereference a pointer into rank `owner`'s memory?
    bool can_read(int reader, int owner) const { return readable_.at(reader).at(owner) != 0; }
    // Does every rank have a device of its own (what NCCL needs)?
    bool one_gpu_per_rank() const;
    Reach reach() const { return reach_; }
    std::string describe() const;  // "4 ranks on GPUs 0, 1, 2, 3 (peer access)"

    // The caller's side of the rules above. begin(): every rank's stream waits for the work
    // queued so far on `caller`, a stream of rank 0's device (0: its default stream). end():
    // `caller` waits for everything queued so far on every rank's stream. Timing with events on
    // `caller` around begin ... end covers the whole team's work.
    void begin(cudaStream_t caller = 0) const;
    void end(cudaStream_t caller = 0) const;
    void synchronize() const;  // the host waits for every rank's stream

private:
    struct Member {
        int device;
        cudaStream_t stream;
        std::vector<cudaEvent_t> events;
        cudaEvent_t done;  // end()'s
    };
    std::vector<Member> members_;
    std::vector<std::vector<char>> readable_;
    Reach reach_;
    cudaEvent_t begin_event_ = nullptr;  // on rank 0's device
};

// count elements of T on each rank's device (host code). poison() and upload() finish before
// they return (they synchronise the device): no rank's stream can run ahead of them.
template <class T>
class PerRank {
public:
    PerRank(const Team& team, size_t count) : team_(&team), count_(count) {
        for (int r = 0; r < team.size(); ++r) {
            OnDevice on(team.device(r));
            buffers_.emplace_back(count);
        }
    }
    size_t count() const { return count_; }
    T* at(int r) const { return buffers_.at(r).get(); }
    std::vector<T*> pointers() const {
        std::vector<T*> p;
        for (const auto& b : buffers_) p.push_back(b.get());
        return p;
    }
    std::vector<const T*> const_pointers() const {
        std::vector<const T*> p;
        for (const auto& b : buffers_) p.push_back(b.get());
        return p;
    }
    void upload(int r, const std::vector<T>& host) {
        OnDevice on(team_->device(r));
        buffers_.at(r).upload(host);
        CUDA_CHECK(cudaDeviceSynchronize());
    }
    std::vector<T> download(int r) const {
        OnDevice on(team_->device(r));
        return buffers_.at(r).download();
    }
    void poison(int r) {
        OnDevice on(team_->device(r));
        buffers_.at(r).poison();
        CUDA_CHECK(cudaDeviceSynchronize());
    }
    void poison() {
        for (int r = 0; r < team_->size(); ++r) poison(r);
    }

private:
    const Team* team_;
    size_t count_;
    std::vector<DeviceBuffer<T>> buffers_;
};

// Queues a kernel on `stream` that does nothing for about `microseconds` (the tests use it to
// make one rank late). The stream's device must be current.
void queue_delay(cudaStream_t stream, double microseconds);

// ---- Step 1: the machine -------------------------------------------------------------------
// What the runtime says about reaching device b's memory from device a. For a == b (a device's
// own memory): peer_access and native_atomics true, performance_rank 0.
struct LinkInfo {
    bool peer_access = false;   // may a kernel on a read b's memory once peer access is on?
    int performance_rank = -1;  // the runtime's relative rank of the link: lower is faster
    bool native_atomics = false;  // atomics on b's memory from a's kernels over the link
};
LinkInfo query_link(int a, int b);

// One copy of `bytes` bytes from rank `from`'s src to rank `to`'s dst (from != to).
struct Transfer {
    int from, to;
    const void* src;
    void* dst;
    size_t bytes;
};
// Queues every transfer so that they all run at the same time (two ranks sending to each other
// move data both ways at once), keeping the rules above: a copy waits for its sender's stream to
// reach the call; when the receiver's stream passes the call, dst holds the data; when the
// sender's stream passes it, src has been read.
void peer_exchange(const Team& team, const std::vector<Transfer>& transfers);

// ---- Step 2: split one job ------------------------------------------------------------------
// One array of floats, spread over the ranks: rank r holds parts[r][0 .. counts[r]) on its device.
constexpr int kSumScratchFloats = 1024;
struct SplitSum {
    std::vector<const float*> parts;
    std::vector<size_t> counts;
    std::vector<float*> scratch;  // per rank: kSumScratchFloats floats on its device
    std::vector<float*> sums;     // per rank: one float on its device, for its part's sum
    float* partials;              // team.size() floats on rank 0's device
    float* total;                 // one float on rank 0's device: the answer
};
// Given (team.cu, the reduction of exercise 05): *out = x[0] + ... + x[n-1] (0 for n == 0),
// queued on `stream`. scratch: kSumScratchFloats floats. x, out, scratch and the stream must
// be on the current device. Deterministic: the same input gives the same bits every time.
void device_sum(const float* x, size_t n, float* out, float* scratch, cudaStream_t stream);
// Leaves the sum of all the parts in *total: every rank sums its part at the same time, rank 0
// adds up the partial sums in rank order.
void split_sum(const Team& team, const SplitSum& job);

// ---- Step 3: a ring all-reduce by hand -------------------------------------------------------
enum class DType { i32, f32 };
inline size_t dtype_size(DType) { return 4; }
inline const char* dtype_name(DType t) { return t == DType::i32 ? "int32" : "float32"; }

// recv[r][i] = send[0][i] + send[1][i] + ... + send[n-1][i] on every rank r, for i < count.
// send[r] and recv[r] are on rank r's device, count elements each; send[r] == recv[r] (in place)
// is allowed. staging[r]: room for (count + n - 1) / n elements on rank r's device, for data of
// another rank that rank r cannot read directly (Team::can_read).
struct AllReduce {
    std::vector<const void*> send;
    std::vector<void*> recv;
    std::vector<void*> staging;
    size_t count = 0;
    DType type = DType::f32;
};

// The part [begin, end) of the elements that segment k of `parts` covers.
struct Range {
    size_t begin = 0, end = 0;
    size_t size() const { return end - begin; }
};
// Segment k of a ring over `parts` ranks: the segments tile [0, count) in order, and their
// sizes differ by at most one. Any count, 0 included.
Range ring_segment(size_t count, int parts, int k);

// Given: a pointer rank `reader` may read `bytes` of rank `owner`'s data at `src` through: src
// itself where Team::can_read allows, otherwise `staging` (on reader's device) after a copy
// queued on reader's stream. Queues nothing else: ordering is the caller's.
const void* readable_by(const Team& team, int reader, int owner, const void* src, size_t bytes, void* staging);

void ring_allreduce(const Team& team, const AllReduce& job);

// ---- Step 4: the library ---------------------------------------------------------------------
// One communicator per rank, all of one clique: rank r's is for team.device(r). Needs
// team.one_gpu_per_rank(). NcclComms (below) owns them and destroys them.
std::vector<ncclComm_t> nccl_communicators(const Team& team);
// The same all-reduce as step 3, by NCCL, on the team's streams.
void nccl_allreduce(const Team& team, const AllReduce& job, const std::vector<ncclComm_t>& comms);

class NcclComms {
public:
    explicit NcclComms(std::vector<ncclComm_t> comms) : comms_(std::move(comms)) {}
    ~NcclComms() {
        for (ncclComm_t c : comms_)
            if (c) ncclCommDestroy(c);
    }
    NcclComms(const NcclComms&) = delete;
    NcclComms& operator=(const NcclComms&) = delete;
    const std::vector<ncclComm_t>& get() const { return comms_; }

private:
    std::vector<ncclComm_t> comms_;
};

// ---- Step 5: overlap --------------------------------------------------------------------------
// One training step's gradients: `count` floats per rank, produced by a compute kernel in buckets
// of `bucket` elements (the last one may be shorter) and summed over the ranks, in place.
struct GradientJob {
    std::vector<float*> grads;    // per rank: count floats on its device
    std::vector<void*> staging;   // per rank: room for (bucket + n - 1) / n floats (AllReduce)
    size_t count = 0;
    size_t bucket = 1;
    int work = 0;                 // multiply-adds per element: how long computing a gradient takes
};
// Any all-reduce with the rules above: ring_allreduce, or nccl_allreduce with its communicators.
using AllReduceFn = std::function<void(const Team&, const AllReduce&)>;

// Given: rank `rank`'s gradients g[begin .. end), computed on `stream` (its device current):
// `work` multiply-adds per element, then g[i] = gradient_value(i, rank), a whole number.
void produce_gradients(float* g, size_t begin, size_t end, int rank, int work, cudaStream_t stream);
__host__ __device__ inline float gradient_value(size_t i, int rank) {
    const uint64_t h = (uint64_t)i * 0x9E3779B1ull + (uint64_t)rank * 0x85EBCA6Bull;
    return (float)((int)((h >> 11) % 17) - 8);  // -8 .. 8: a sum over 64 ranks is exact in float
}
// Given: the all-reduce of one bucket, [begin, end) of every rank's gradients, in place.
inline AllReduce bucket_allreduce(const GradientJob& job, size_t begin, size_t end) {
    AllReduce a;
    for (size_t r = 0; r < job.grads.size(); ++r) {
        a.send.push_back(job.grads[r] + begin);
        a.recv.push_back(job.grads[r] + begin);
    }
    a.staging = job.staging;
    a.count = end - begin;
    a.type = DType::f32;
    return a;
}
// Given (team.cu), the step without overlap: every rank produces all its gradients, then one
// all-reduce of everything, all on the compute team's streams.
void serial_step(const Team& compute, const GradientJob& job, const AllReduceFn& allreduce);
// The step with overlap: bucket b is all-reduced on the `comm` team's streams (the same devices,
// other streams) while bucket b + 1 is produced on `compute`'s. The rules above hold for the
// compute team: the caller begins and ends on it alone.
void overlapped_step(const Team& compute, const Team& comm, const GradientJob& job, const AllReduceFn& allreduce);

// ---- Predictions (answers in starter.cu) -----------------------------------------------------
// Step 2: split_sum over 4 GPUs and 2^28 floats: bytes that cross from one GPU to another.
extern const long long kSplitSumBytesBetweenGpus;
// Step 3: ring_allreduce over 8 ranks: the steps each rank takes one after another (the
// rounds of the reduce-scatter and of the all-gather), counting neither entry nor exit.
extern const long long kRingRoundsAt8;
// Step 3: ring_allreduce over 4 GPUs of 256 MiB each: the bytes each GPU receives from its
// neighbour in all.
extern const long long kRingBytesPerGpuAt4;
// Step 4: nccl-tests' bus bandwidth of an all-reduce is its algorithm bandwidth times a factor
// that depends on the number of ranks: the factor for 8 ranks.
extern const double kBusFactorAt8;
// Step 5: 8 buckets; producing one takes 1.0 ms, all-reducing one 0.5 ms, and the two never slow
// each other down: how many ms does overlapped_step take?
extern const double kOverlappedMsFor8Buckets;

// ---- The steps ---------------------------------------------------------------------------------
// Each step's launcher is the function its TODOs ask for; their signatures differ, so a step's
// `run` holds whichever it is (std::get_if tells the program which).
using ExchangeFn = void (*)(const Team&, const std::vector<Transfer>&);
using SplitSumFn = void (*)(const Team&, const SplitSum&);
using RingFn = void (*)(const Team&, const AllReduce&);
using NcclFn = void (*)(const Team&, const AllReduce&, const std::vector<ncclComm_t>&);
using OverlapFn = void (*)(const Team&, const Team&, const GradientJob&, const AllReduceFn&);
using StepFn = std::variant<ExchangeFn, SplitSumFn, RingFn, NcclFn, OverlapFn>;

struct StepInfo {
    bool gpu_per_rank = false;  // needs a GPU of its own for every rank: no virtual ranks (NCCL)
};
inline const Step<StepFn, StepInfo> kSteps[] = {
    {1, "exchange", peer_exchange},
    {2, "split_sum", split_sum},
    {3, "ring", ring_allreduce},
    {4, "nccl", nccl_allreduce, {true}},
    {5, "overlap", overlapped_step},
};
