// cub_sort.h: the library baselines for sorting: cub::DeviceRadixSort::SortKeys
// and SortPairs, and thrust::sort, on 32-bit unsigned keys (and 32-bit values).
//
// CUB's radix sort on a Hopper GPU is "Onesweep" (Adinets and Merrill, 2022): one pass counts
// all four digits' histograms, then one pass per digit ranks, scatters and passes its counts
// on with a decoupled look-back. thrust::sort hands keys like these to the same CUB sort.
// As with CubSum, the temporary storage is sized once, in the constructor, outside any timing.
#pragma once

#include <cstddef>
#include <cstdint>

#include "buffer.h"

class CubSort {
public:
    explicit CubSort(size_t max_n);  // storage for sorts of up to max_n keys (or pairs)
    // Asynchronous and out of place, like the exercise's sorts; n must not exceed max_n.
    void sort_keys(const uint32_t* keys_in, uint32_t* keys_out, size_t n);
    void sort_pairs(const uint32_t* keys_in, uint32_t* keys_out, const uint32_t* values_in, uint32_t* values_out,
                    size_t n);
    // thrust::sort is in place: keys[0 .. n) ascending. Its own temporary memory (n keys and
    // CUB's storage) comes from the stream-ordered pool, kept between calls (launch.h).
    void thrust_sort(uint32_t* keys, size_t n);

private:
    void require(size_t n) const;
    size_t max_n_;
    DeviceBuffer<char> temp_;
};
