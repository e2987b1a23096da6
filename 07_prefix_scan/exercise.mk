# 07_prefix_scan: build settings read by the top Makefile (its keys are explained there, under "An exercise's settings").
SUPPORT       := count.cpp racy_demo.cu
SANITIZE_ARGS := --n 100003
SANITIZE_DEMO := --racy-demo
BASELINES     := cub_scan

# make profile-07: 2^24 elements (64 MB an array, more than L2). Compaction (7) may use any scan.
PROFILE_ARGS     := --n 2^24
PROFILE_LAUNCHES := 400
PROFILE_COLUMNS  := L2 hit rate (%) = lts__t_sector_hit_rate.pct; \
                    DRAM read + written (MB) = 1e-6 * dram__bytes_read.sum + dram__bytes_write.sum
