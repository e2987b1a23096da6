# 11_multi_gpu: build settings read by the top Makefile (every line optional).
#   SUPPORT        the exercise's own sources besides starter.cu, solution.cu, main.cpp, tests.cpp, answers.cpp
#   LIBS           extra link flags
#   SANITIZE_ARGS  program options small enough for compute-sanitizer (make sanitize-NN)
#   SANITIZE_SKIP  test cases compute-sanitizer leaves out besides the "(large)" ones
#   PROFILE_ARGS     program options of a representative size for make profile-NN
#   PROFILE_COLUMNS  profile-NN's own counters: "plain-words header = ncu formula; ..."
#   PROFILE_LAUNCHES the most kernel launches profile-NN profiles (default 64)
SUPPORT       := team.cu
LIBS := -lnccl

# The sanitizers check this exercise's kernels, not NCCL's: the program runs with virtual ranks
# (no NCCL), and the NCCL cases of the tests are left out. NCCL's own CUDA calls return errors it
# handles itself (peer access already on, probes for other GPUs' kernel images), which
# compute-sanitizer counts as errors. Every other case runs, over every GPU of the machine.
SANITIZE_ARGS := --gpus 1 --ranks 3 --n 100003 --bucket 20000 --work 10
SANITIZE_SKIP := *nccl*

# make profile-11: Nsight Compute runs one kernel at a time, and NCCL's kernels on two GPUs wait
# for each other, so the profile runs 2 virtual ranks on GPU 0 (no NCCL). Step 1 launches no
# kernel (copy engines move its data): its row stays empty.
PROFILE_ARGS     := --gpus 1 --ranks 2 --n 2^22 --work 64
PROFILE_COLUMNS  := DRAM read + written (MB) = 1e-6 * dram__bytes_read.sum + dram__bytes_write.sum
