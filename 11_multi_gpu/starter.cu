// 11_multi_gpu/starter.cu: your file. Do the TODOs in order; after each step,
// `make test-11` shows which steps pass and `make run-11` shows the program's output.
//
// One job on several GPUs: what the machine offers, one sum split over every GPU, an all-reduce
// around a ring written by hand, the same all-reduce by NCCL, an all-reduce by one kernel per GPU
// for small messages, and an all-reduce hidden behind the computation that produces its data.
// LECTURE.md goes deeper into each.
//
// The rules every function keeps are at the top of multi_gpu.h: queue work and return; each
// rank's work on its own stream, with its device current; no rank touches another rank's
// buffers before that rank's stream has reached the call (entry), and a rank's stream passes
// the call only once everything done to its buffers is done (exit). Cross-rank ordering is by
// events (cudaEventRecord on one stream, cudaStreamWaitEvent on another) or, inside step 5's
// kernels, by flags in GPU memory; never a host wait.

#include <algorithm>
#include <cstdint>
#include <cuda/atomic>

#include "multi_gpu.h"

#include "cuda_check.h"

// ---- Plumbing (given) -------------------------------------------------------------------------

// The address of element `i` of a buffer of `type` elements.
[[maybe_unused]] static char* element(void* base, size_t i, DType type) { return static_cast<char*>(base) + i * dtype_size(type); }
[[maybe_unused]] static const char* element(const void* base, size_t i, DType type) {
    return static_cast<const char*>(base) + i * dtype_size(type);
}

// Queues a copy of `bytes` on `stream`: within one GPU or between two (cudaMemcpyDefault: the
// runtime knows from the addresses where each buffer lives, and uses the link between the GPUs).
[[maybe_unused]] static void copy_async(void* dst, const void* src, size_t bytes, cudaStream_t stream) {
    if (bytes > 0) CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream));
}

// ---- Step 1: the machine ----------------------------------------------------------------------

LinkInfo query_link(int a, int b) {
    if (a == b) return LinkInfo{true, 0, true};  // a device's own memory
    LinkInfo link;
    // TODO(step 1): ask the runtime whether a kernel on device a can access device b's memory,
    //               the performance rank of the link from a to b, and whether atomics on b's
    //               memory work natively over it (multi_gpu.h, LinkInfo).
    return link;
}

void peer_exchange(const Team& team, const std::vector<Transfer>& transfers) {
    // Event 0 of a rank marks "my data is ready", event 1 "what was sent to me has arrived".
    // TODO(step 1): mark, on every sender's stream, the point its data is ready: all of them
    //               before any copy is queued (what would a copy queued earlier do to the mark?).
    // TODO(step 1): queue each copy (copy_async) so that a copy never waits for another copy,
    //               only for its sender's mark. Which rank's stream can hold it?
    // TODO(step 1): the exit rule: a sender's stream may pass the call only after its src was read.
}

// ---- Step 2: split one job --------------------------------------------------------------------

// TODO(step 2): predict (multi_gpu.h): the bytes that cross between GPUs in split_sum over 4 GPUs
//               and 2^28 floats.
const long long kSplitSumBytesBetweenGpus = -1;  // your prediction

void split_sum(const Team& team, const SplitSum& job) {
    const int n = team.size();
    // TODO(step 2): every rank sums its own part into sums[r] (device_sum, with its own scratch)
    //               and sends that float to partials[r] on rank 0, no rank waiting for another
    //               to finish its sum. partials is rank 0's buffer: when may others write to it?
    // TODO(step 2): rank 0 adds the n partial sums in rank order (device_sum again) into *total,
    //               once every one of them has arrived.
}

// ---- Step 3: a ring all-reduce by hand --------------------------------------------------------

// TODO(step 3): predict (multi_gpu.h): the rounds of a ring over 8 ranks, and the bytes each of
//               4 GPUs receives in an all-reduce of 256 MiB.
const long long kRingRoundsAt8 = -1;       // your prediction
const long long kRingBytesPerGpuAt4 = -1;  // your prediction

__host__ __device__ Range ring_segment(size_t count, int parts, int k) {
    // TODO(step 3): segment k of [0, count) cut into `parts` segments, as multi_gpu.h says: in
    //               order, sizes differing by at most one. Which segments get the extra elements?
    return Range{};
}

template <class T>
__global__ void add_segments(T* out, const T* mine, const T* theirs, size_t n) {
    // TODO(step 3): out[i] = mine[i] + theirs[i] for every i < n, any n, size_t indices. out may
    //               be mine (in place); theirs may be in another GPU's memory, which is slow to
    //               reach: keep several loads in flight per thread.
}

// Given: queues add_segments for n elements of `type` on `stream` (its device current).
[[maybe_unused]] static void launch_add(void* out, const void* mine, const void* theirs, size_t n, DType type, cudaStream_t stream) {
    if (n == 0) return;
    // Eight blocks per SM. The SM count is asked once per device: a call to the runtime per round
    // costs the host time, and the host's calls are most of a mid-size ring's time (LECTURE.md).
    static int sms[kMaxRanks] = {};
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    if (sms[device] == 0) CUDA_CHECK(cudaDeviceGetAttribute(&sms[device], cudaDevAttrMultiProcessorCount, device));
    const unsigned blocks = (unsigned)std::min<size_t>((n + 255) / 256, (size_t)sms[device] * 8);
    if (type == DType::i32)
        add_segments<<<blocks, 256, 0, stream>>>(static_cast<int*>(out), static_cast<const int*>(mine),
                                                 static_cast<const int*>(theirs), n);
    else
        add_segments<<<blocks, 256, 0, stream>>>(static_cast<float*>(out), static_cast<const float*>(mine),
                                                 static_cast<const float*>(theirs), n);
    CUDA_CHECK_LAUNCH();
}

// Given: out[i] = in[i] for i < n 4-byte words, several loads in flight per thread.
__global__ void copy_words(uint32_t* out, const uint32_t* in, size_t n) {
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + 3 * stride < n; i += 4 * stride) {
        const uint32_t a = in[i], b = in[i + stride], c = in[i + 2 * stride], d = in[i + 3 * stride];
        out[i] = a;
        out[i + stride] = b;
        out[i + 2 * stride] = c;
        out[i + 3 * stride] = d;
    }
    for (; i < n; i += stride) out[i] = in[i];
}

// Given: queues, on rank `reader`'s stream, a copy of `bytes` (whole elements) from rank `owner`'s
// `src` into reader's `dst`: by a kernel of reader's that reads owner's memory where the team
// allows (the ring measured faster so than with a copy engine on H100s, LECTURE.md), by a copy
// engine otherwise.
[[maybe_unused]] static void pull_segment(const Team& team, int reader, int owner, void* dst, const void* src, size_t bytes) {
    if (bytes == 0) return;
    if (!team.can_read(reader, owner)) return copy_async(dst, src, bytes, team.stream(reader));
    OnDevice on(team.device(reader));
    const size_t words = bytes / 4;
    copy_words<<<(unsigned)std::min<size_t>((words + 255) / 256, 1024), 256, 0, team.stream(reader)>>>(
        static_cast<uint32_t*>(dst), static_cast<const uint32_t*>(src), words);
    CUDA_CHECK_LAUNCH();
}

void ring_allreduce(const Team& team, const AllReduce& job) {
    const int n = team.size();
    const DType type = job.type;
    // TODO(step 3): a ring of one rank: recv must still hold the sum (of one buffer).
    // TODO(step 3): entry: mark every rank's stream as it reaches the call (event 0).
    // TODO(step 3): the reduce-scatter, round after round: in each, every rank adds its left
    //   neighbour's running sum of one segment to its own data (from send) into its recv, until
    //   each rank holds one segment's complete sum. launch_add reads what readable_by gives.
    //   Wait for exactly what a round reads; mark what it wrote with an event of its own.
    // TODO(step 3): the all-gather, round after round: each rank copies (pull_segment) a complete
    //   segment from its left neighbour's recv into its own, until every rank has them all.
    //   Wait and mark as above (team.events_per_rank() is enough for every round).
    // TODO(step 3): exit: which rank reads rank r's buffers, and when has it finished?
}

// ---- Step 4: the library ----------------------------------------------------------------------

// TODO(step 4): predict (multi_gpu.h): the bus-bandwidth factor of an all-reduce over 8 ranks.
const double kBusFactorAt8 = -1;  // your prediction

std::vector<ncclComm_t> nccl_communicators(const Team& team) {
    std::vector<ncclComm_t> comms((size_t)team.size(), nullptr);
    // TODO(step 4): one communicator per rank, all in one clique, with one call: rank r's
    //               communicator belongs to team.device(r).
    return comms;
}

void nccl_allreduce(const Team& team, const AllReduce& job, const std::vector<ncclComm_t>& comms) {
    int current = 0;
    CUDA_CHECK(cudaGetDevice(&current));
    OnDevice keep(current);
    // TODO(step 4): every rank's ncclAllReduce (a sum of job.type, on its stream), all issued from
    //               this one thread: what must surround them so that the first call does not
    //               wait for the others, which have not been issued yet?
}

// ---- Step 5: a direct all-reduce, for small messages ---------------------------------------------

// TODO(step 5): predict (multi_gpu.h): the bytes each GPU's kernel reads from the other GPUs'
//               memory, 4 GPUs of 256 KiB each, in one shot and in two shots.
const long long kOneShotBytesInAt4 = -1;   // your prediction
const long long kTwoShotsBytesInAt4 = -1;  // your prediction

constexpr int kDirectThreads = 512;

// Four elements at once: one 16-byte load.
template <class T> struct Quad;
template <> struct Quad<float> { using type = float4; };
template <> struct Quad<int> { using type = int4; };

// A flag word of the mesh, written by one GPU and read by another: its order is the whole system's.
using SystemFlag = cuda::atomic_ref<unsigned, cuda::thread_scope_system>;

// Sets a flag word of the mesh (another GPU's memory, or this one's) to `call`: everything this
// thread could see before (its block's writes too, after a block-wide barrier) is visible to a
// thread of any GPU that sees the flag. One thread calls it.
__device__ void set_flag(unsigned* word, unsigned call) {
    // TODO(step 5): the flags are other GPUs' memory: which scope and which order does the store
    //               need, so that what the block wrote before it is seen with it?
}

// Waits until a flag word of this GPU's memory says `call` or later, then everything its setter
// made visible is visible to this thread. One thread calls it; block and phase are for stuck_check.
__device__ void wait_flag(unsigned* word, unsigned call, int block, int phase) {
    // TODO(step 5): spin until the word says this call has arrived, calling stuck_check as you do.
    //               Which order does the load need? A GPU may already be a call ahead: what
    //               does "arrived" compare?
}

// Every GPU's block blockIdx.x meets the same block of every other GPU at barrier `phase` of
// call `call`: after it, each block may read what the others wrote before it. Every thread of
// the block calls it.
__device__ void mesh_barrier(const MeshView& mesh, int gpu, int phase, unsigned call) {
    // TODO(step 5): tell every GPU (this one too) that this block has arrived, once all of its
    //   threads' writes are done; then wait until every GPU's block has arrived, and only then let
    //   any thread go on. Each GPU waits on words in its own memory (flag_word says where).
}

// Given: out[i] = in[i] for i in `slice`, by the block; 16-byte loads where `in + slice.begin` is
// 16 bytes aligned (staging always is), single elements otherwise and for the last few.
template <class T>
__device__ void copy_slice(T* out, const T* in, Range slice) {
    using Q = typename Quad<T>::type;
    size_t whole = slice.begin;
    if (reinterpret_cast<uintptr_t>(in + slice.begin) % 16 == 0) {
        whole = slice.begin + (slice.size() / 4) * 4;
        for (size_t i = slice.begin + 4 * (size_t)threadIdx.x; i < whole; i += 4 * (size_t)blockDim.x) {
            const Q v = *reinterpret_cast<const Q*>(in + i);
            out[i] = v.x;
            out[i + 1] = v.y;
            out[i + 2] = v.z;
            out[i + 3] = v.w;
        }
    }
    for (size_t i = whole + threadIdx.x; i < slice.end; i += blockDim.x) out[i] = in[i];
}

// Copies this block's slice of every rank of this GPU into the rank's staging buffer: the data
// other GPUs read, in memory the caller will not overwrite, in place or not.
template <class T>
__device__ void stage(const MeshView& mesh, const LocalRanks& local, Range slice, int parity) {
    for (int l = 0; l < local.count; ++l)
        copy_slice(static_cast<T*>(mesh.staging[parity][local.rank[l]]), static_cast<const T*>(local.send[l]), slice);
}

// out[i] = the sum over every rank p, in rank order, of staging[p][i], for i in `slice`, which
// starts 16 bytes aligned in every staging buffer.
template <class T>
__device__ void sum_over_ranks(const MeshView& mesh, int parity, Range slice, T* out) {
    using Q = typename Quad<T>::type;
    // TODO(step 5): four elements a thread: one 16-byte load from each rank's staging, all of them
    //   in flight before the first add; then the elements past the last whole four, one by one.
    //   Every rank must end with the same bits: in which order are the ranks added?
}

// One shot: each GPU's block b stages slice b, meets the other GPUs' blocks b, and sums slice b
// of every rank's staging into its ranks' recv.
template <class T>
__global__ void __launch_bounds__(kDirectThreads) one_shot(const MeshView* view, LocalRanks local, size_t count,
                                                           unsigned call) {
    const MeshView& mesh = *view;
    const int parity = call % 2;
    const Range slice = block_slice(Range{0, count}, gridDim.x, blockIdx.x);
    stage<T>(mesh, local, slice, parity);
    mesh_barrier(mesh, local.gpu, 0, call);
    for (int l = 0; l < local.count; ++l) sum_over_ranks<T>(mesh, parity, slice, static_cast<T*>(local.recv[l]));
}

// Two shots: rank r sums only its segment r (reduce-scatter) into its own staging, and then every
// rank copies every complete segment (all-gather). Segments are ring_segment's, in fours, so that
// each starts 16 bytes aligned.
__device__ inline Range quad_segment(size_t count, int parts, int k) {
    const Range q = ring_segment((count + 3) / 4, parts, k);
    return Range{min(count, 4 * q.begin), min(count, 4 * q.end)};
}

template <class T>
__global__ void __launch_bounds__(kDirectThreads) two_shots(const MeshView* view, LocalRanks local, size_t count,
                                                            unsigned call) {
    const MeshView& mesh = *view;
    const int parity = call % 2, n = mesh.ranks;
    // TODO(step 5): stage, then the reduce-scatter, then the all-gather, with a barrier wherever a
    //   block reads what another GPU's block wrote. Block b of every GPU meets only the blocks b:
    //   which slices may block b stage, sum and copy, so that it never reads a slice that another
    //   GPU's block of another number wrote?
}

// Given: queues the kernel of mesh GPU `local.gpu` on `stream` (its device current).
[[maybe_unused]] static void launch_direct(const PeerMesh& mesh, const LocalRanks& local, const AllReduce& job,
                                           unsigned call, Shots shots, int blocks, cudaStream_t stream) {
    const MeshView* view = mesh.device_view(local.gpu);
    if (job.type == DType::i32) {
        if (shots == Shots::one) one_shot<int><<<blocks, kDirectThreads, 0, stream>>>(view, local, job.count, call);
        else two_shots<int><<<blocks, kDirectThreads, 0, stream>>>(view, local, job.count, call);
    } else {
        if (shots == Shots::one) one_shot<float><<<blocks, kDirectThreads, 0, stream>>>(view, local, job.count, call);
        else two_shots<float><<<blocks, kDirectThreads, 0, stream>>>(view, local, job.count, call);
    }
    CUDA_CHECK_LAUNCH();
}

// Queues one kernel per GPU of the mesh: `launch(local, call, stream)` queues the kernel of the
// GPU whose ranks `local` lists, on `stream`, with the call's number `call`.
template <class Launch>
static void launch_per_gpu(const Team& team, const PeerMesh& mesh, const AllReduce& job, Launch launch) {
    // TODO(step 5): one kernel per GPU, on the stream of that GPU's first rank, under the entry
    //   and exit rules for every rank of the GPU (local_ranks lists them). Each call takes its
    //   number from the mesh: when, and how many times? And a call with nothing to add: does it
    //   take one?
}

// Given: step 5's all-reduce, one kernel per GPU.
void direct_allreduce(const Team& team, const PeerMesh& mesh, const AllReduce& job, Shots shots, int blocks) {
    require_staging(mesh, job);
    launch_per_gpu(team, mesh, job, [&](const LocalRanks& g, unsigned call, cudaStream_t stream) {
        launch_direct(mesh, g, job, call, shots, blocks, stream);
    });
}

// ---- Step 6: overlap --------------------------------------------------------------------------

// TODO(step 6): predict (multi_gpu.h): overlapped_step's time for 8 buckets of 1.0 ms compute and
//               0.5 ms all-reduce each.
const double kOverlappedMsFor8Buckets = -1;  // your prediction

void overlapped_step(const Team& compute, const Team& comm, const GradientJob& job, const AllReduceFn& allreduce) {
    const int n = compute.size();
    for (size_t begin = 0; begin < job.count; begin += job.bucket) {
        const size_t end = std::min(job.count, begin + job.bucket);
        // TODO(step 6): produce bucket [begin, end) on every rank's compute stream, and all-reduce
        //               it on the comm team, whose stream of rank r may start on the bucket only
        //               once rank r's compute stream has produced it.
    }
    // TODO(step 6): the exit rule holds for the compute team: what must its streams wait for?
}

// ---- Step 7: the ring in one kernel per GPU --------------------------------------------------

// TODO(step 7): predict (multi_gpu.h): the kernels and copies step 3's ring queues in one call over
//               8 GPUs, each of them behind a wait for another GPU's event.
const long long kRingQueuedAt8 = -1;  // your prediction

// Given: out[i] = theirs[i], or with `add` mine[i] + theirs[i], for i in `slice`, by the block.
// theirs is usually another GPU's memory, far away: each thread keeps four 16-byte loads in
// flight where every pointer is 16 bytes aligned at slice.begin, single elements otherwise.
template <class T, bool add>
__device__ void move_slice(T* out, const T* mine, const T* theirs, Range slice) {
    using Q = typename Quad<T>::type;
    size_t i = slice.begin;
    const uintptr_t bits = reinterpret_cast<uintptr_t>(out + i) | reinterpret_cast<uintptr_t>(theirs + i) |
                           (add ? reinterpret_cast<uintptr_t>(mine + i) : 0);
    if (bits % 16 == 0) {
        const size_t quads = slice.size() / 4, step = blockDim.x;
        const Q* t = reinterpret_cast<const Q*>(theirs + i);
        const Q* m = add ? reinterpret_cast<const Q*>(mine + i) : nullptr;  // no arithmetic on a null mine
        Q* o = reinterpret_cast<Q*>(out + i);
        for (size_t q = threadIdx.x; q < quads; q += 4 * step) {
            Q v[4];
#pragma unroll
            for (int k = 0; k < 4; ++k)
                if (q + k * step < quads) v[k] = t[q + k * step];
#pragma unroll
            for (int k = 0; k < 4; ++k)
                if (q + k * step < quads) {
                    if (add) {
                        const Q w = m[q + k * step];
                        v[k].x += w.x, v[k].y += w.y, v[k].z += w.z, v[k].w += w.w;
                    }
                    o[q + k * step] = v[k];
                }
        }
        i += 4 * quads;
    }
    for (i += threadIdx.x; i < slice.end; i += blockDim.x) out[i] = add ? mine[i] + theirs[i] : theirs[i];
}

// Step 3's ring, with every round in one kernel per GPU: block b of each rank works on slice b
// of every segment (block_slice of quad_segment), so it needs only block b of its neighbours, and
// waits for their flags (ring_flag) instead of events. `all` holds every rank's send and recv.
template <class T>
__global__ void __launch_bounds__(kDirectThreads) ring_rounds(const MeshView* view, LocalRanks local, RingBuffers all,
                                                              size_t count, unsigned call) {
    const MeshView& mesh = *view;
    const int n = mesh.ranks, b = blockIdx.x, rounds = 2 * (n - 1);
    // TODO(step 7): a ring of one rank: recv must still hold the sum.
    // TODO(step 7): entry: tell the rank that reads each of this GPU's ranks (set_flag, round 0)
    //   that it may start. Every flag goes into the memory of the GPU that waits for it.
    // TODO(step 7): rounds 1 .. rounds, and in each every rank of this GPU: wait for what the round
    //   reads, then add (reduce-scatter) or copy (all-gather) this block's slice of one segment
    //   with move_slice, then announce the round. Which segment, and which flag of which rank?
    //   When may one thread announce what the whole block wrote?
    // TODO(step 7): exit: this GPU's ranks may pass the call only when whoever reads their buffers
    //   has finished. Which flag says so?
}

// Given: the ring in one kernel per GPU (ring_rounds), under step 5's entry and exit rules.
void ring_kernel_allreduce(const Team& team, const PeerMesh& mesh, const AllReduce& job, int blocks) {
    RingBuffers all;
    for (int r = 0; r < team.size(); ++r) {
        all.send[r] = job.send[r];
        all.recv[r] = job.recv[r];
    }
    launch_per_gpu(team, mesh, job, [&](const LocalRanks& g, unsigned call, cudaStream_t stream) {
        const MeshView* view = mesh.device_view(g.gpu);
        if (job.type == DType::i32) ring_rounds<int><<<blocks, kDirectThreads, 0, stream>>>(view, g, all, job.count, call);
        else ring_rounds<float><<<blocks, kDirectThreads, 0, stream>>>(view, g, all, job.count, call);
        CUDA_CHECK_LAUNCH();
    });
}
