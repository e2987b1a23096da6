# 07_prefix_scan: build settings read by the top Makefile (its keys are explained there, under "An exercise's settings").
SANITIZE_ARGS := --n 100003
SANITIZE_DEMO := --racy-demo
BASELINES     := cub_scan

# make profile-07: 2^24 elements (64 MB an array, more than L2). Compaction (7) may use any scan.
PROFILE_ARGS     := --n 2^24
PROFILE_LAUNCHES := 400
PROFILE_KERNELS  := 1=scan_naive_block 2=scan_blelloch_block \
                    3=levels_load 3=upsweep_level 3=downsweep_level 3=levels_finish \
                    4=scan_each_tile 4=add_tile_offsets 5=reduce_tiles 5=rescan_tiles \
                    6=scan_decoupled_lookback 7=compact_flags 7=compact_scatter 7=reduce_tiles \
                    7=rescan_tiles 7=scan_each_tile 7=add_tile_offsets 7=scan_decoupled_lookback \
                    7=levels_load 7=upsweep_level 7=downsweep_level 7=levels_finish
PROFILE_COLUMNS  := L2 hit rate (%) = lts__t_sector_hit_rate.pct; \
                    DRAM read + written (MB) = 1e-6 * dram__bytes_read.sum + dram__bytes_write.sum
