# 06_atomics_cas: build settings read by the top Makefile (its keys are explained there, under "An exercise's settings").
SUPPORT       := step_cases.cpp
SANITIZE_ARGS := --n 100003
BASELINES     := cub_sum

# make profile-06: the default run (2^20 updates; cas_add 2^14).
PROFILE_ARGS     :=
PROFILE_COLUMNS  := L2 atomic requests (thousands) = 0.001 * lts__t_requests_op_red.sum + lts__t_requests_op_atom.sum; \
                    L2 atomic requests per us = 1000 * lts__t_requests_op_red.sum + lts__t_requests_op_atom.sum / gpu__time_duration.sum
