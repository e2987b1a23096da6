// buffer.h: device memory that frees itself (RAII), plus copies to and from host vectors.
#pragma once

#include <algorithm>
#include <utility>
#include <vector>
#include <cuda_runtime.h>

#include "cuda_check.h"

template <class T>
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(size_t count) : count_(count) {
        if (count_ > 0) CUDA_CHECK(cudaMalloc(&ptr_, count_ * sizeof(T)));
    }
    explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) { upload(host); }
    ~DeviceBuffer() {
        if (ptr_) cudaFree(ptr_);  // no check: a destructor must not exit, and may run at exit
    }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    DeviceBuffer(DeviceBuffer&& o) noexcept
        : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)) {}
    DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
        std::swap(ptr_, o.ptr_);
        std::swap(count_, o.count_);
        return *this;
    }

    T* get() const { return ptr_; }
    size_t size() const { return count_; }
    size_t bytes() const { return count_ * sizeof(T); }

    void upload(const std::vector<T>& host) {
        if (count_ > 0)
            CUDA_CHECK(cudaMemcpy(ptr_, host.data(), bytes(), cudaMemcpyHostToDevice));
    }
    std::vector<T> download() const { return download(count_); }
    // Only the first `count` elements (at most size()): what a run that wrote fewer left.
    std::vector<T> download(size_t count) const {
        std::vector<T> host(std::min(count, count_));
        if (!host.empty())
            CUDA_CHECK(cudaMemcpy(host.data(), ptr_, host.size() * sizeof(T), cudaMemcpyDeviceToHost));
        return host;
    }
    // Fill every byte with 0xFF before a kernel runs: as float that is NaN, as an integer -1,
    // so an element the kernel forgot to write cannot pass for a correct result.
    void poison() {
        if (count_ > 0) CUDA_CHECK(cudaMemset(ptr_, 0xFF, bytes()));
    }

private:
    T* ptr_ = nullptr;
    size_t count_ = 0;
};
