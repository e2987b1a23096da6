# 10_tensor_cores: build settings read by the top Makefile (every line optional).
#   SUPPORT        the exercise's own sources besides starter.cu, solution.cu, main.cpp, tests.cpp, answers.cpp
#   USES           another exercise's sources compiled into this one's program and tests
#   LIBS           extra link flags (a baseline brings its own)
#   BASELINES      library baselines linked in from common/baselines/
#   CUDA_FLAGS     extra nvcc flags for this exercise's own .cu files
#   SANITIZE_ARGS  program options small enough for compute-sanitizer (make sanitize-NN)
#   SANITIZE_DEMO  options of a deliberately racy demo that racecheck must catch
#   PROFILE_ARGS     program options of a representative size for make profile-NN
#   PROFILE_COLUMNS  profile-NN's own counters: "plain-words header = ncu formula; ..."
#   PROFILE_LAUNCHES the most kernel launches profile-NN profiles (default 64)
# The comparison row of the tables is exercise 08's best FP32 kernel (sgemm_08.h declares it),
# compiled from 08's own solution: the row is always the kernel that exercise 08 teaches.
USES          := 08_tiled_matmul/solution.cu
BASELINES     := cublas_gemm_bf16
# Step 4's wgmma exists only in architecture-specific machine code for compute capability 9.0
# (sm_90a; its setmaxnreg also in later "a" targets such as sm_100a): added to whatever ARCH
# builds (native, fat or one target). Its kernel body is compiled only there
# (__CUDA_ARCH_FEAT_SM90_ALL); elsewhere step 4 is skipped.
CUDA_FLAGS    := -gencode=arch=compute_90a,code=sm_90a
# Two tiles of step 4's and step 5's 128 x 256 along n, the second partial; n a multiple of 4, so
# step 5 stores C 16 bytes at a time. (Blocks that walk many tiles: the tests' fixed grids.)
SANITIZE_ARGS := --m 67 --n 260 --k 33

# make profile-10: 4096 x 4096 x 4096 (cuBLAS and 08's kernel are left out).
PROFILE_ARGS     := --m 4096 --n 4096 --k 4096
PROFILE_COLUMNS  := tensor pipe busy (% of peak) = sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active; \
                    L1 load/store pipe busy (% of peak) = l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed; \
                    global load sectors per request (32 B each) = l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum / l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum; \
                    bank conflicts per shared load = l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum / smsp__sass_inst_executed_op_shared_ld.sum + smsp__inst_executed_op_ldsm.sum; \
                    L2 to SM reads (GB) = 3.2e-8 * lts__t_sectors_srcunit_tex_op_read.sum
