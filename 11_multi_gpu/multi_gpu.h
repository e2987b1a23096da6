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
    // queued so far on `caller`. end(): `caller` waits for everything queued so far on every
    // rank's stream. `caller` is a stream of any device, in the team or not (0: the default
    // stream of the device current at the call); neither call changes the current device.
    // Events timed on `caller` around begin ... end cover the whole team's work.
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
    // begin()'s event on each device a caller's stream has lived on (an event can only be
    // recorded on a stream of the device it was created on).
    mutable std::vector<std::pair<int, cudaEvent_t>> begin_events_;
};

// The device `stream` belongs to: the current device for 0 (and the other default-stream
// handles), the device it was created on otherwise.
int stream_device(cudaStream_t stream);

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
    __host__ __device__ size_t size() const { return end - begin; }
};
// Segment k of a ring over `parts` ranks: the segments tile [0, count) in order, and their
// sizes differ by at most one. Any count, 0 included. (Step 5's kernels call it too.)
__host__ __device__ Range ring_segment(size_t count, int parts, int k);

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

// ---- Step 5: a direct all-reduce, for small messages -------------------------------------------
// One kernel per GPU does the whole all-reduce: it reads the other GPUs' data itself, over the
// links (peer access), and the GPUs meet at barriers of flags in each other's memory instead of
// events and launches per round. One shot: every GPU reads all the data and sums it. Two shots:
// every rank sums its own segment of all the data (reduce-scatter), then every rank reads every
// segment (all-gather), both in the one kernel.
enum class Shots { one, two };
inline const char* shots_name(Shots s) { return s == Shots::one ? "one shot" : "two shots"; }

constexpr int kMeshBlocks = 64;       // the most blocks a GPU's kernel may use: one barrier each
constexpr int kMeshPhases = 2;        // the barriers a call may use: phases 0 and 1
constexpr int kMeshRanksPerGpu = 8;   // the most ranks one GPU's kernel works for

// What every GPU's kernel sees of the mesh (a copy in each GPU's memory, made once): the staging
// buffers of every rank, and the flag words of every GPU of the team.
struct MeshView {
    int ranks = 0;                      // n
    int gpus = 0;                       // the team's distinct devices, in order of their first rank
    void* staging[2][kMaxRanks] = {};   // [call parity][rank]: room for capacity bytes each
    unsigned* flags[kMaxRanks] = {};    // [gpu]: the words other GPUs' kernels set in this one's memory
    int gpu_of[kMaxRanks] = {};         // [rank]: its GPU, an index into flags
};
// Where a GPU's kernel finds the flag that GPU `from` sets for block `block`'s barrier `phase`,
// in the flag words of any GPU (`words` = MeshView::flags[gpu]).
__host__ __device__ inline unsigned* flag_word(unsigned* words, int block, int phase, int from) {
    return words + ((size_t)block * kMeshPhases + phase) * kMaxRanks + from;
}
// Step 7's flags, after step 5's in the same words: the one rank `from` sets once block `block`
// has finished round `round` (0: it has entered the call), 0 <= round < kRingMostRounds.
constexpr int kRingMostRounds = 2 * kMaxRanks - 1;
__host__ __device__ inline unsigned* ring_flag(unsigned* words, int block, int round, int from) {
    return words + (size_t)kMeshBlocks * kMeshPhases * kMaxRanks + ((size_t)block * kRingMostRounds + round) * kMaxRanks + from;
}
// The flag words each GPU holds: step 5's barriers and step 7's rounds.
constexpr size_t kMeshFlagWords = (size_t)kMeshBlocks * (kMeshPhases + kRingMostRounds) * kMaxRanks;
// The ranks whose work one GPU's kernel does (normally one; several with virtual ranks).
struct LocalRanks {
    int gpu = 0;                      // this GPU's index in MeshView::flags
    int count = 0;
    int rank[kMeshRanksPerGpu] = {};
    const void* send[kMeshRanksPerGpu] = {};
    void* recv[kMeshRanksPerGpu] = {};
};

// Given (team.cu): the memory of the mesh, made once for a team, as NCCL's communicators are:
// per rank two staging buffers of `capacity` bytes (calls alternate between them), per GPU its
// flag words (zero to start with), and the MeshView in each GPU's memory. Needs every pair of the
// team's GPUs to read each other (Team::can_read), and at most kMeshRanksPerGpu ranks per GPU.
// Not copyable; the team must outlive it.
class PeerMesh {
public:
    PeerMesh(const Team& team, size_t capacity_bytes);
    ~PeerMesh();
    PeerMesh(const PeerMesh&) = delete;
    PeerMesh& operator=(const PeerMesh&) = delete;

    size_t capacity() const { return capacity_; }
    const MeshView& view() const { return view_; }
    // The copy of view() in the memory of GPU `gpu` (an index into MeshView::flags): what that
    // GPU's kernel takes (a pointer, so that a launch passes a few bytes, not the whole view).
    const MeshView* device_view(int gpu) const { return device_views_.at(gpu); }
    int gpu_of(int rank) const { return gpu_of_.at(rank); }  // the rank's GPU, an index into flags
    // The number of this call, counted from 1: every call takes the next one.
    unsigned next_call() const { return ++calls_; }

private:
    const Team* team_;
    size_t capacity_;
    MeshView view_;
    std::vector<int> gpu_of_, gpu_device_;
    std::vector<MeshView*> device_views_;
    mutable unsigned calls_ = 0;
};
// Why a team cannot have a mesh ("" if it can): a pair of its GPUs that cannot read each other,
// or too many ranks on one GPU.
std::string why_no_mesh(const Team& team);

// Given: the part of `range` that block `block` of `blocks` takes, cut at multiples of 4 elements
// from range.begin (so a range that starts 16 bytes aligned gives aligned slices).
__host__ __device__ inline Range block_slice(Range range, int blocks, int block) {
    const size_t quads = (range.size() + 3) / 4, per = (quads + blocks - 1) / blocks;
    const size_t begin = range.begin + 4 * per * (size_t)block;
    return Range{begin < range.end ? begin : range.end, begin + 4 * per < range.end ? begin + 4 * per : range.end};
}
// Given (team.cu): the ranks of each GPU of the mesh, with their buffers of `job`, in the order of
// MeshView::flags: what each GPU's kernel takes as its argument.
std::vector<LocalRanks> local_ranks(const Team& team, const PeerMesh& mesh, const AllReduce& job);
// Given (team.cu): stops the program with one line if the job's bytes per rank exceed the
// mesh's staging (what step 5's kernels copy each rank's data into).
void require_staging(const PeerMesh& mesh, const AllReduce& job);
#ifdef __CUDACC__
// Given: a spinning thread calls this in its loop (`since` starts at 0); after 10 s without the
// flag it waits for, it says which flag is stuck (`phase`: step 5's barrier, or step 7's round)
// and stops the kernel, instead of hanging.
__device__ inline void stuck_check(unsigned long long& since, int block, int phase, unsigned call) {
    unsigned long long now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    if (since == 0) since = now;
    if (now - since > 10000000000ull) {
        printf("block %d waited 10 s for flag %d (barrier or round) of call %u: a GPU never arrived, "
               "or the flags it waits for are not the ones that were set. Stopping the kernel.\n",
               block, phase, call);
        __trap();
    }
}
#endif

// recv[r] = the sum of every rank's send, like ring_allreduce, by one kernel per GPU. count *
// dtype_size(type) must fit mesh.capacity(); `blocks` (1 .. kMeshBlocks) per GPU.
void direct_allreduce(const Team& team, const PeerMesh& mesh, const AllReduce& job, Shots shots, int blocks);
// The blocks a GPU's kernel uses for `bytes` per rank (given: measured on H100s, LECTURE.md).
int direct_blocks(size_t bytes, Shots shots);

// ---- Step 6: overlap --------------------------------------------------------------------------
// One training step's gradients: `count` floats per rank, produced by a compute kernel in buckets
// of `bucket` elements (the last one may be shorter) and summed over the ranks, in place.
struct GradientJob {
    std::vector<float*> grads;    // per rank: count floats on its device
    std::vector<void*> staging;   // per rank: room for (bucket + n - 1) / n floats (AllReduce)
    size_t count = 0;
    size_t bucket = 1;
    int work = 0;                 // multiply-adds per element: how long computing a gradient takes
};
// Any all-reduce with the rules above: ring_allreduce, nccl_allreduce with its communicators,
// direct_allreduce with its mesh.
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

// ---- Step 7: the ring in one kernel per GPU (optional) -----------------------------------------
// Step 3's rounds without step 3's fixed cost: one kernel per GPU of step 5's mesh runs every
// round, reading the left neighbour's buffers over the link, and the blocks of neighbouring ranks
// pass each round on through flags (ring_flag) instead of events and launches.
struct RingBuffers {
    const void* send[kMaxRanks] = {};  // [rank]: the job's buffers, every rank's
    void* recv[kMaxRanks] = {};
};
// recv[r] = the sum of every rank's send, like ring_allreduce, for any count (no staging, so no
// limit but memory); `blocks` (1 .. kMeshBlocks) per GPU.
void ring_kernel_allreduce(const Team& team, const PeerMesh& mesh, const AllReduce& job, int blocks);
// The blocks a GPU's kernel uses for `bytes` per rank (given: measured on H100s, LECTURE.md).
int ring_kernel_blocks(size_t bytes);

// ---- Predictions (yours in starter.cu; the working-out in answers.cpp, once they pass) ---------
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
// Step 5: direct_allreduce over 4 GPUs of 256 KiB each: the bytes each GPU's kernel reads from
// the other GPUs' memory, in one shot and in two shots.
extern const long long kOneShotBytesInAt4;
extern const long long kTwoShotsBytesInAt4;
// Step 6: 8 buckets; producing one takes 1.0 ms, all-reducing one 0.5 ms, and the two never slow
// each other down: how many ms does overlapped_step take?
extern const double kOverlappedMsFor8Buckets;
// Step 7: ring_allreduce (step 3) over 8 GPUs, one rank each: how many kernels and copies does one
// call queue, each of them behind a wait for another GPU's event?
extern const long long kRingQueuedAt8;

// ---- The steps ---------------------------------------------------------------------------------
// Each step's launcher is the function its TODOs ask for; their signatures differ, so a step's
// `run` holds whichever it is (std::get_if tells the program which).
using ExchangeFn = void (*)(const Team&, const std::vector<Transfer>&);
using SplitSumFn = void (*)(const Team&, const SplitSum&);
using RingFn = void (*)(const Team&, const AllReduce&);
using NcclFn = void (*)(const Team&, const AllReduce&, const std::vector<ncclComm_t>&);
using DirectFn = void (*)(const Team&, const PeerMesh&, const AllReduce&, Shots, int);
using OverlapFn = void (*)(const Team&, const Team&, const GradientJob&, const AllReduceFn&);
using RingKernelFn = void (*)(const Team&, const PeerMesh&, const AllReduce&, int);
using StepFn = std::variant<ExchangeFn, SplitSumFn, RingFn, NcclFn, DirectFn, OverlapFn, RingKernelFn>;

struct StepInfo {
    bool gpu_per_rank = false;  // needs a GPU of its own for every rank: no virtual ranks (NCCL)
};
inline const Step<StepFn, StepInfo> kSteps[] = {
    {1, "exchange", peer_exchange},
    {2, "split_sum", split_sum},
    {3, "ring", ring_allreduce},
    {4, "nccl", nccl_allreduce, {true}},
    {5, "direct", direct_allreduce},
    {6, "overlap", overlapped_step, {}, "--bucket --work"},
    {7, "ring_kernel", ring_kernel_allreduce},
};
