// 06_atomics_cas/starter.cu: your file. Do the TODOs in order; after each step,
// `make test-06` shows which steps pass and `make run-06` shows the program's output.
//
// Many threads updating the same memory: the race without atomics, the built-in atomics,
// read-modify-writes built from compare-and-swap, a lock for a multi-word update, and what
// contention on one address costs.

#include "atomics_cas.h"

#include "cuda_check.h"

constexpr unsigned kFullMask = 0xffffffffu;  // all 32 lanes of a warp

// Given: sums and maxima over the 32 lanes of a warp through register shuffles (exercise 05
// builds these). After the loop every lane holds the result. All 32 lanes must call them.
__device__ inline int warp_sum(int v) {
    for (int offset = kWarp / 2; offset > 0; offset /= 2) v += __shfl_xor_sync(kFullMask, v, offset);
    return v;
}
__device__ inline long long warp_sum(long long v) {
    for (int offset = kWarp / 2; offset > 0; offset /= 2) v += __shfl_xor_sync(kFullMask, v, offset);
    return v;
}
__device__ inline long long warp_max(long long v) {
    for (int offset = kWarp / 2; offset > 0; offset /= 2) {
        long long other = __shfl_xor_sync(kFullMask, v, offset);
        v = other > v ? other : v;
    }
    return v;
}

__device__ inline size_t global_index() { return (size_t)blockIdx.x * blockDim.x + threadIdx.x; }

// ---- Step 1: race -----------------------------------------------------------------------------
// `*counter += 1` is three steps: load, add, store. Two threads that both load before either
// stores both write the same value, and one increment is lost.
__global__ void race_plain(int* counter, size_t n) {
    // TODO(step 1): each thread with index < n adds 1 to *counter, without atomics. (This is the
    //               bug the rest of the exercise fixes; here it is what we want to see.)
}

// The same update with the window between load and store held open by a barrier, so the loss
// is certain rather than likely. volatile makes each load and store a real memory access that
// the compiler may not merge, drop or move (a race condition, not a compiler artefact).
__global__ void race_barrier(volatile int* counter, size_t n) {
    // TODO(step 1): each thread with index < n adds 1 to *counter as a separate load and store,
    //               with a __syncthreads() between them. Every thread of the block must reach
    //               that barrier, also those past n.
}

void run_race(int* counter, size_t n, RaceKind kind) {
    if (n == 0) return;
    if (kind == RaceKind::plain)
        race_plain<<<(unsigned)blocks_of(n), kBlock>>>(counter, n);
    else
        race_barrier<<<(unsigned)blocks_of(n), kBlock>>>(counter, n);
    CUDA_CHECK_LAUNCH();
}

// ---- Step 2: atomic_add ---------------------------------------------------------------------------
// atomicAdd makes load-add-store one indivisible operation, performed by the L2 cache slice
// that owns the address. Same-address atomics are therefore serialised there, one after another.
template <class T>
__global__ void add_builtin(const T* values, T* sum, size_t n) {
    // TODO(step 2): thread i < n adds values[i] to *sum, with no update lost. One template
    //               serves int, float and double.
}

void run_atomic_add_int(const int* values, int* sum, size_t n) {
    if (n == 0) return;
    add_builtin<<<(unsigned)blocks_of(n), kBlock>>>(values, sum, n);
    CUDA_CHECK_LAUNCH();
}
void run_atomic_add_float(const float* values, float* sum, size_t n) {
    if (n == 0) return;
    add_builtin<<<(unsigned)blocks_of(n), kBlock>>>(values, sum, n);
    CUDA_CHECK_LAUNCH();
}
void run_atomic_add_double(const double* values, double* sum, size_t n) {
    if (n == 0) return;
    add_builtin<<<(unsigned)blocks_of(n), kBlock>>>(values, sum, n);
    CUDA_CHECK_LAUNCH();
}

// ---- Step 3: cas_add --------------------------------------------------------------------------------
// atomicCAS(word, expected, desired) stores desired only if *word still holds expected, and
// returns what *word held. Any read-modify-write becomes a loop: read, compute, CAS, until the CAS
// finds what this thread expected. atomicCAS works on integer words, so the float travels as its
// bit pattern: __float_as_uint / __uint_as_float convert a value (no instruction, no memory).
// Memory holding a float is read as a float; the only pointer cast is the address handed to
// atomicCAS, which accepts integer words only (README, "Bits, not floats").
__device__ float cas_add(float* address, float value) {
    // TODO(step 3): atomically *address += value using atomicCAS only (not atomicAdd), and
    //               return the value *address held just before this thread's addition. Decide
    //               success by comparing bit patterns, never floats (think of NaN and of -0.0).
    return 0.0f;
}

__device__ double cas_add(double* address, double value) {
    // TODO(step 3): the same for double, on 64-bit words.
    return 0.0;
}

// TODO(step 3): predict: 32 threads read the same word at the same moment and each wants to add
//               its value. Suppose that in every round each thread still waiting issues one
//               atomicCAS and exactly one of them succeeds. How many atomicCAS in all?
const long long kCasTries32 = -1;  // your prediction

template <class T>
__global__ void add_with_cas(const T* values, T* sum, size_t n) {
    size_t i = global_index();
    if (i < n) cas_add(sum, values[i]);
}

void run_cas_add_float(const float* values, float* sum, size_t n) {
    if (n == 0) return;
    add_with_cas<<<(unsigned)blocks_of(n), kBlock>>>(values, sum, n);
    CUDA_CHECK_LAUNCH();
}
void run_cas_add_double(const double* values, double* sum, size_t n) {
    if (n == 0) return;
    add_with_cas<<<(unsigned)blocks_of(n), kBlock>>>(values, sum, n);
    CUDA_CHECK_LAUNCH();
}

// ---- Step 4: cas_max_min ----------------------------------------------------------------------------
// CUDA has atomicMax/atomicMin for integers only. With CAS, a float max is the same loop as
// cas_add with a different "new value" -- and a shortcut: when the stored value already beats
// ours, there is nothing to write, so most threads finish after one plain read.
// The rule (the README's table): NaN never wins and loses to any number, -0.0 is below +0.0,
// otherwise the usual order.
__device__ bool device_max_beats(float candidate, float current) {
    // TODO(step 4): true if `candidate` must replace `current` in a running maximum, by the rule
    //               above. The comparison operators alone cannot tell -0.0 from +0.0, and are
    //               false for every NaN.
    return false;
}
__device__ bool device_min_beats(float candidate, float current) {
    // TODO(step 4): the same for a running minimum (-0.0 replaces +0.0, not the other way).
    return false;
}

template <bool kMax>
__device__ float cas_extreme(float* address, float value) {
    // TODO(step 4): atomically replace *address by `value` if value beats it (max if kMax, else
    //               min); return the value found before. A thread whose value does not beat
    //               the stored one must leave without writing.
    return 0.0f;
}

// TODO(step 4): predict: integer atomicMax (signed int) over the bit patterns of -0.5f, -1.0f,
//               -2.0f and -4.0f: which float does the winning pattern encode?
const float kIntMaxOfNegatives = -1;  // your prediction

template <bool kMax>
__global__ void extreme_with_cas(const float* values, float* result, size_t n) {
    size_t i = global_index();
    if (i < n) cas_extreme<kMax>(result, values[i]);
}

void run_cas_max_float(const float* values, float* result, size_t n) {
    if (n == 0) return;
    extreme_with_cas<true><<<(unsigned)blocks_of(n), kBlock>>>(values, result, n);
    CUDA_CHECK_LAUNCH();
}
void run_cas_min_float(const float* values, float* result, size_t n) {
    if (n == 0) return;
    extreme_with_cas<false><<<(unsigned)blocks_of(n), kBlock>>>(values, result, n);
    CUDA_CHECK_LAUNCH();
}

// ---- Step 5: spinlock -------------------------------------------------------------------------------
// A mutex is one int: 0 free, 1 held. A lock protects data only if it also orders memory: the
// next owner must see every write made under the lock, and an owner's reads must not be served
// before it owned the lock (README, "Fences").
__device__ void spin_lock(int* lock) {
    // TODO(step 5): return only once this thread has turned *lock from 0 (free) to 1 (held),
    //               atomically. Waiters back off (__nanosleep) between tries, longer each time up
    //               to a cap, and the critical section's reads must not move before the lock.
}

__device__ void spin_unlock(int* lock) {
    // TODO(step 5): set *lock back to 0, so that whoever takes the lock next sees every write of
    //               the critical section. (Why is a plain store of 0 not enough?)
}

// Given: RAII on the device, as std::lock_guard on the host. The destructor runs on every way
// out of the scope, so an early return cannot leave the lock held.
class SpinLockGuard {
public:
    __device__ explicit SpinLockGuard(int* lock) : lock_(lock) { spin_lock(lock_); }
    __device__ ~SpinLockGuard() { spin_unlock(lock_); }
    SpinLockGuard(const SpinLockGuard&) = delete;
    SpinLockGuard& operator=(const SpinLockGuard&) = delete;

private:
    int* lock_;
};

// One lock acquisition per WARP, never one per thread: 32 lanes spinning on a lock that one of
// them holds can hang the warp (before Volta) and serialise it badly (since); see README.
__global__ void record_per_warp(const int* values, size_t n, LockedRecord* record, int* lock) {
    // TODO(step 5): add this warp's values (i < n) to *record: sum, count and max, all three
    //               under `lock`, taken by one lane of each warp that has a value (a SpinLockGuard).
    //               Combine the warp's values first with every lane taking part, even those past
    //               n. Access the record through a volatile pointer inside the critical section.
}

// TODO(step 5): predict: how many times is the lock taken when run_spinlock gets n = 100003
//               values (blocks of kBlock = 256 threads)?
const long long kLockAcquisitions100003 = -1;  // your prediction

void run_spinlock(const int* values, LockedRecord* record, int* lock, size_t n) {
    if (n == 0) return;
    record_per_warp<<<(unsigned)blocks_of(n), kBlock>>>(values, n, record, lock);
    CUDA_CHECK_LAUNCH();
}

// ---- Step 6: contention -----------------------------------------------------------------------------
// The same n additions, issued as n atomics, n/32 or n/256 of them, on `mask + 1` counters.
// Atomics on one address queue at one L2 slice; atomics on different addresses run in parallel.
__global__ void contention_per_thread(const int* values, size_t n, int* counters, size_t mask) {
    // TODO(step 6): thread i < n adds values[i] to counter i & mask, one atomic per thread.
}

__global__ void contention_per_warp(const int* values, size_t n, int* counters, size_t mask) {
    // TODO(step 6): one atomic per warp: the warp's sum of values (i < n) goes to counter
    //               (warp's first i / kWarp) & mask. A warp wholly past n issues no atomic.
}

__global__ void contention_per_block(const int* values, size_t n, int* counters, size_t mask) {
    // TODO(step 6): one atomic per block: the block's sum of values (i < n) goes to counter
    //               blockIdx.x & mask, issued by thread 0. The warps' sums meet in shared memory.
}

// TODO(step 6): predict: the counters are consecutive ints from cudaMalloc (256-byte aligned), and
//               the L2 serves them in 128-byte lines. Over how many lines do 1024 counters lie?
const long long kLinesOf1024Counters = -1;  // your prediction

// Given: *total += sum of the counters (a grid-stride sum per thread, one atomic per warp).
__global__ void collapse_counters(const int* counters, size_t count, int* total) {
    int s = 0;
    for (size_t a = global_index(); a < count; a += (size_t)gridDim.x * blockDim.x) s += counters[a];
    s = warp_sum(s);
    if (threadIdx.x % kWarp == 0 && s != 0) atomicAdd(total, s);
}

void run_contention(const int* values, size_t n, Aggregation how, int* counters, size_t addresses,
                    int* total) {
    if (n == 0) return;
    const unsigned blocks = (unsigned)blocks_of(n);
    const size_t mask = addresses - 1;  // addresses is a power of two
    if (how == Aggregation::none)
        contention_per_thread<<<blocks, kBlock>>>(values, n, counters, mask);
    else if (how == Aggregation::warp)
        contention_per_warp<<<blocks, kBlock>>>(values, n, counters, mask);
    else
        contention_per_block<<<blocks, kBlock>>>(values, n, counters, mask);
    CUDA_CHECK_LAUNCH();
    const size_t collapse_blocks = blocks_of(addresses) < 1024 ? blocks_of(addresses) : 1024;
    collapse_counters<<<(unsigned)collapse_blocks, kBlock>>>(counters, addresses, total);
    CUDA_CHECK_LAUNCH();
}
