// team.cu: the given plumbing of exercise 11 (multi_gpu.h): teams of ranks, a one-GPU sum,
// the gradient kernel, and the step without overlap. Nothing here is a TODO.
#include <algorithm>
#include <cstdio>
#include <set>
#include <utility>
#include <string>

#include "multi_gpu.h"

// ---- Teams -------------------------------------------------------------------------------------
static void refuse(const std::string& what) {
    std::fprintf(stderr, "Team: %s\n", what.c_str());
    std::exit(2);
}

Team::Team(int ranks, const std::vector<int>& devices, Reach reach, bool urgent) : reach_(reach) {
    int visible = 0;
    CUDA_CHECK(cudaGetDeviceCount(&visible));
    if (ranks < 1 || ranks > kMaxRanks) refuse("a team has 1 to " + std::to_string(kMaxRanks) + " ranks");
    if (devices.empty()) refuse("a team needs at least one device");
    for (int d : devices)
        if (d < 0 || d >= visible) refuse("there is no device " + std::to_string(d));
    int previous = 0;
    CUDA_CHECK(cudaGetDevice(&previous));
    for (int r = 0; r < ranks; ++r) {
        Member m;
        m.device = devices[(size_t)r % devices.size()];
        CUDA_CHECK(cudaSetDevice(m.device));
        int lowest = 0, highest = 0;  // numerically: the highest priority is the lowest number
        CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&lowest, &highest));
        CUDA_CHECK(cudaStreamCreateWithPriority(&m.stream, cudaStreamNonBlocking, urgent ? highest : lowest));
        m.events.resize((size_t)(2 * ranks + 2));
        for (auto& e : m.events) CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
        CUDA_CHECK(cudaEventCreateWithFlags(&m.done, cudaEventDisableTiming));
        members_.push_back(m);
    }

    // Peer access is a property of a pair of devices, on for the whole process once enabled:
    // turn it on in both directions wherever the hardware allows (unless this team copies).
    readable_.assign((size_t)ranks, std::vector<char>((size_t)ranks, 0));
    for (int a = 0; a < ranks; ++a)
        for (int b = 0; b < ranks; ++b) {
            const int da = device(a), db = device(b);
            bool ok = a == b || (reach == Reach::peer && da == db);
            if (reach == Reach::peer && da != db) {
                int can = 0;
                CUDA_CHECK(cudaDeviceCanAccessPeer(&can, da, db));
                // Once per pair and process: enabling it again is an error (already enabled).
                static std::set<std::pair<int, int>> enabled;
                if (can && enabled.insert({da, db}).second) {
                    CUDA_CHECK(cudaSetDevice(da));
                    const cudaError_t err = cudaDeviceEnablePeerAccess(db, 0);
                    if (err == cudaErrorPeerAccessAlreadyEnabled)
                        cudaGetLastError();  // someone else (NCCL) turned it on first: fine
                    else
                        CUDA_CHECK(err);
                }
                ok = can != 0;
            }
            readable_[a][b] = ok;
        }
    CUDA_CHECK(cudaSetDevice(previous));
}

Team::~Team() {
    int previous = 0;
    cudaGetDevice(&previous);
    for (auto& m : members_) {
        cudaSetDevice(m.device);
        cudaStreamSynchronize(m.stream);
        for (auto e : m.events) cudaEventDestroy(e);
        cudaEventDestroy(m.done);
        cudaStreamDestroy(m.stream);
    }
    for (auto& [device, event] : begin_events_) {
        cudaSetDevice(device);
        cudaEventDestroy(event);
    }
    cudaSetDevice(previous);
}

bool Team::one_gpu_per_rank() const {
    std::set<int> seen;
    for (const auto& m : members_) seen.insert(m.device);
    return seen.size() == members_.size();
}

std::string Team::describe() const {
    std::set<int> devices;
    for (const auto& m : members_) devices.insert(m.device);
    std::string list;
    for (int d : devices) list += (list.empty() ? "" : ", ") + std::to_string(d);
    std::string text = std::to_string(size()) + (size() == 1 ? " rank" : " ranks") + " on " +
                       (devices.size() == 1 ? "GPU " : "GPUs ") + list;
    if (!one_gpu_per_rank()) text += " (virtual ranks)";
    bool all_read = true;
    for (int a = 0; a < size(); ++a)
        for (int b = 0; b < size(); ++b) all_read = all_read && can_read(a, b);
    if (size() > 1) text += all_read ? ", kernels read each other's memory" : ", data is copied between ranks";
    return text;
}

int stream_device(cudaStream_t stream) {
    int device = 0;
    if (stream == 0 || stream == cudaStreamLegacy || stream == cudaStreamPerThread) {
        CUDA_CHECK(cudaGetDevice(&device));  // a default stream is the current device's
        return device;
    }
#if CUDART_VERSION >= 12080
    CUDA_CHECK(cudaStreamGetDevice(stream, &device));
#else
    // Older toolkits cannot tell: take the current device, and let cudaEventRecord refuse a
    // stream of another one (begin() below) rather than guess.
    CUDA_CHECK(cudaGetDevice(&device));
#endif
    return device;
}

// The caller's stream may live on any device, and 0 means the current device's default stream:
// so begin() records on the caller's own device, and neither call switches devices before it
// uses `caller` (switching first would turn 0 into another device's default stream).
void Team::begin(cudaStream_t caller) const {
    const int device = stream_device(caller);
    cudaEvent_t event = nullptr;
    for (const auto& [d, e] : begin_events_)
        if (d == device) event = e;
    {
        OnDevice on(device);
        if (!event) {
            CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
            begin_events_.push_back({device, event});
        }
        CUDA_CHECK(cudaEventRecord(event, caller));
    }
    for (const auto& m : members_) CUDA_CHECK(cudaStreamWaitEvent(m.stream, event, 0));
}

void Team::end(cudaStream_t caller) const {
    for (const auto& m : members_) {
        CUDA_CHECK(cudaEventRecord(m.done, m.stream));
        CUDA_CHECK(cudaStreamWaitEvent(caller, m.done, 0));
    }
}

void Team::synchronize() const {
    for (const auto& m : members_) CUDA_CHECK(cudaStreamSynchronize(m.stream));
}

const void* readable_by(const Team& team, int reader, int owner, const void* src, size_t bytes, void* staging) {
    if (bytes == 0 || team.can_read(reader, owner)) return src;
    if (team.device(reader) == team.device(owner))
        CUDA_CHECK(cudaMemcpyAsync(staging, src, bytes, cudaMemcpyDeviceToDevice, team.stream(reader)));
    else
        CUDA_CHECK(cudaMemcpyPeerAsync(staging, team.device(reader), src, team.device(owner), bytes,
                                       team.stream(reader)));
    return staging;
}

// ---- A late rank, for the tests -----------------------------------------------------------------
__global__ void spin_for(unsigned long long nanoseconds) {
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        __nanosleep(1000);
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < nanoseconds);
}

void queue_delay(cudaStream_t stream, double microseconds) {
    spin_for<<<1, 1, 0, stream>>>((unsigned long long)(microseconds * 1e3));
    CUDA_CHECK_LAUNCH();
}

// ---- The sum on one GPU (exercise 05's grid-stride reduction) -------------------------------------
constexpr int kSumThreads = 256;

// The sum of v over the block, in thread 0. Every thread of the block must call it.
__device__ float block_sum(float v) {
    __shared__ float warp_sums[32];
    for (int d = 16; d > 0; d /= 2) v += __shfl_down_sync(0xFFFFFFFFu, v, d);
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < blockDim.x / 32 ? warp_sums[lane] : 0.0f;
        for (int d = 16; d > 0; d /= 2) v += __shfl_down_sync(0xFFFFFFFFu, v, d);
    }
    return v;
}

// A fixed grid (kSumScratchFloats blocks) whatever the device: the same bits every time.
__global__ void sum_blocks(const float* __restrict__ x, size_t n, float* __restrict__ partials) {
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    float v = 0.0f;
    for (; i + 3 * stride < n; i += 4 * stride)  // four loads in flight per thread
        v += (x[i] + x[i + stride]) + (x[i + 2 * stride] + x[i + 3 * stride]);
    for (; i < n; i += stride) v += x[i];
    v = block_sum(v);
    if (threadIdx.x == 0) partials[blockIdx.x] = v;
}

__global__ void sum_partials(const float* __restrict__ partials, float* __restrict__ out) {
    const float v = block_sum(partials[threadIdx.x]);
    if (threadIdx.x == 0) *out = v;
}

void device_sum(const float* x, size_t n, float* out, float* scratch, cudaStream_t stream) {
    sum_blocks<<<kSumScratchFloats, kSumThreads, 0, stream>>>(x, n, scratch);
    CUDA_CHECK_LAUNCH();
    sum_partials<<<1, kSumScratchFloats, 0, stream>>>(scratch, out);
    CUDA_CHECK_LAUNCH();
}

// ---- Gradients --------------------------------------------------------------------------------
__global__ void gradients(float* g, size_t begin, size_t end, int rank, int work) {
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = begin + (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < end; i += stride) {
        // Stands in for the backward pass: `work` dependent multiply-adds that stay positive, so
        // the value stored is gradient_value(i, rank) (the compiler cannot know that).
        float acc = (float)(i & 7);
        for (int k = 0; k < work; ++k) acc = fmaf(acc, 0.999f, 1.0f);
        g[i] = gradient_value(i, rank) + (acc < 0.0f ? 1.0f : 0.0f);
    }
}

void produce_gradients(float* g, size_t begin, size_t end, int rank, int work, cudaStream_t stream) {
    if (end <= begin) return;
    // Many short blocks (a thread per gradient while the grid allows), not one long-lived wave:
    // blocks that finish often make room for the all-reduce's kernels on the same GPU.
    const size_t blocks = std::min<size_t>((end - begin + 255) / 256, 0x7FFFFFFF);
    gradients<<<(unsigned)blocks, 256, 0, stream>>>(g, begin, end, rank, work);
    CUDA_CHECK_LAUNCH();
}

void serial_step(const Team& compute, const GradientJob& job, const AllReduceFn& allreduce) {
    for (int r = 0; r < compute.size(); ++r) {
        OnDevice on(compute.device(r));
        produce_gradients(job.grads[r], 0, job.count, r, job.work, compute.stream(r));
    }
    // The same all-reduces as overlapped_step, bucket by bucket, but only after all the compute.
    for (size_t begin = 0; begin < job.count; begin += job.bucket)
        allreduce(compute, bucket_allreduce(job, begin, std::min(job.count, begin + job.bucket)));
}

// ---- The mesh of steps 5 and 7 -----------------------------------------------------------------------
std::string why_no_mesh(const Team& team) {
    for (int a = 0; a < team.size(); ++a)
        for (int b = 0; b < team.size(); ++b)
            if (!team.can_read(a, b))
                return "needs every GPU to read the others' memory, and GPU " + std::to_string(team.device(a)) +
                       " cannot read GPU " + std::to_string(team.device(b)) + "'s here";
    for (int r = 0; r < team.size(); ++r) {
        int on_same = 0;
        for (int q = 0; q < team.size(); ++q) on_same += team.device(q) == team.device(r);
        if (on_same > kMeshRanksPerGpu)
            return "takes at most " + std::to_string(kMeshRanksPerGpu) + " ranks per GPU, and GPU " +
                   std::to_string(team.device(r)) + " has " + std::to_string(on_same);
    }
    return "";
}

PeerMesh::PeerMesh(const Team& team, size_t capacity_bytes) : team_(&team), capacity_(capacity_bytes) {
    const std::string why = why_no_mesh(team);
    if (!why.empty()) refuse("a mesh " + why);
    view_.ranks = team.size();
    for (int r = 0; r < team.size(); ++r) {
        const int d = team.device(r);
        const auto at = std::find(gpu_device_.begin(), gpu_device_.end(), d);
        gpu_of_.push_back((int)(at - gpu_device_.begin()));
        view_.gpu_of[r] = gpu_of_.back();
        if (at == gpu_device_.end()) gpu_device_.push_back(d);
    }
    view_.gpus = (int)gpu_device_.size();
    OnDevice keep(team.device(0));
    const size_t flag_bytes = kMeshFlagWords * sizeof(unsigned);
    for (int g = 0; g < view_.gpus; ++g) {
        CUDA_CHECK(cudaSetDevice(gpu_device_[g]));
        CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&view_.flags[g]), flag_bytes));
        CUDA_CHECK(cudaMemset(view_.flags[g], 0, flag_bytes));  // no call has been numbered 0
    }
    for (int r = 0; r < team.size(); ++r) {
        CUDA_CHECK(cudaSetDevice(team.device(r)));
        for (int parity = 0; parity < 2; ++parity)
            CUDA_CHECK(cudaMalloc(&view_.staging[parity][r], std::max<size_t>(capacity_bytes, 16)));
    }
    for (int d : gpu_device_) {
        CUDA_CHECK(cudaSetDevice(d));
        MeshView* copy = nullptr;
        CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&copy), sizeof(MeshView)));
        CUDA_CHECK(cudaMemcpy(copy, &view_, sizeof(MeshView), cudaMemcpyHostToDevice));
        device_views_.push_back(copy);
        CUDA_CHECK(cudaDeviceSynchronize());  // the flags are zero before any kernel reads them
    }
}

PeerMesh::~PeerMesh() {
    team_->synchronize();
    for (int r = 0; r < view_.ranks; ++r)
        for (int parity = 0; parity < 2; ++parity) cudaFree(view_.staging[parity][r]);
    for (int g = 0; g < view_.gpus; ++g) cudaFree(view_.flags[g]);
    for (MeshView* v : device_views_) cudaFree(v);
}

void require_staging(const PeerMesh& mesh, const AllReduce& job) {
    if (job.count * dtype_size(job.type) > mesh.capacity())
        refuse("direct_allreduce: " + std::to_string(job.count * dtype_size(job.type)) +
               " bytes per rank do not fit the mesh's staging buffers of " + std::to_string(mesh.capacity()));
}

std::vector<LocalRanks> local_ranks(const Team& team, const PeerMesh& mesh, const AllReduce& job) {
    std::vector<LocalRanks> gpus((size_t)mesh.view().gpus);
    for (int r = 0; r < team.size(); ++r) {
        LocalRanks& g = gpus[(size_t)mesh.gpu_of(r)];
        g.gpu = mesh.gpu_of(r);
        g.rank[g.count] = r;
        g.send[g.count] = job.send[r];
        g.recv[g.count] = job.recv[r];
        ++g.count;
    }
    return gpus;
}

int ring_kernel_blocks(size_t bytes) {
    // One block per 32 KiB per rank, up to all 64: on 3 and 4 H100s, 64 blocks read the links at
    // NCCL's pace from 16 MiB up, and fewer cost nothing that shows at small sizes (LECTURE.md).
    return (int)std::clamp<size_t>((bytes + (32 << 10) - 1) / (32 << 10), 1, kMeshBlocks);
}

int direct_blocks(size_t bytes, Shots shots) {
    // About 16 KiB per block in one shot and 32 KiB in two, one block at the least (chosen from
    // measurements on H100s: LECTURE.md).
    const size_t per_block = shots == Shots::one ? (16 << 10) : (32 << 10);
    return (int)std::clamp<size_t>((bytes + per_block - 1) / per_block, 1, kMeshBlocks);
}
