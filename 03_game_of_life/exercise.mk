# 03_game_of_life: build settings read by the top Makefile (its keys are explained there, under "An exercise's settings").
SUPPORT       := lattice.cu patterns.cpp pictures.cpp
LIBS          := -lgif
SANITIZE_ARGS := --size 67x45 --generations 20

# make profile-03: a 4096 x 4096 torus, 2 generations; step 2 (one block) is skipped at this size.
PROFILE_ARGS     := --size 4096x4096 --generations 2
PROFILE_COLUMNS  := L1 hit rate (%) = l1tex__t_sector_hit_rate.pct; \
                    L2 hit rate (%) = lts__t_sector_hit_rate.pct; \
                    global loads through L1 (MB) = 32e-6 * l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
