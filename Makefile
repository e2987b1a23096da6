# Hands-on CUDA C++: every exercise is built, run and tested from here. `make help` lists it all.
#
# Each exercise folder NN_name/ holds: name.h (the interface), starter.cu (yours), solution.cu,
# main.cpp (the program), tests.cpp (doctest tests), README.md, and sometimes support files
# (any other .cu or .cpp is linked into both the program and the tests).
# The .cu files are compiled by nvcc; main.cpp and tests.cpp by the host compiler.

SHELL := /bin/bash
.DEFAULT_GOAL := help
.SUFFIXES:
.DELETE_ON_ERROR:
.SECONDARY:

EXERCISES := $(sort $(patsubst %/,%,$(wildcard 0[1-9]_*/)))
numbers    = $(foreach e,$(EXERCISES),$(firstword $(subst _, ,$(e))))
folder_of  = $(filter $(1)_%,$(EXERCISES))
name_of    = $(patsubst $(firstword $(subst _, ,$(1)))_%,%,$(1))

# ---- Options you may set on the command line ------------------------------------------------
USE          ?= starter   # starter (your file) or solution (the reference)
ARGS         ?=           # passed to the program (run, bench) or to doctest (test)
ARCH         ?= auto      # auto, native, fat, or a target such as sm_89
REQUIRE_GPU  ?= 0         # 1: a test that would be skipped for lack of a GPU fails instead
TEST_TIMEOUT ?= 300       # seconds before a test program is stopped (a deadlocked kernel)
JOBS         ?= $(shell nproc 2>/dev/null || echo 2)
V            ?= 0         # 1: show full compiler command lines
override USE := $(strip $(USE))
override ARCH := $(strip $(ARCH))
override REQUIRE_GPU := $(strip $(REQUIRE_GPU))
override TEST_TIMEOUT := $(strip $(TEST_TIMEOUT))
override V := $(strip $(V))
override JOBS := $(strip $(JOBS))
export TEST_TIMEOUT
export REQUIRE_GPU

# Per-exercise settings: extra libraries to link, and program arguments small enough to run
# under compute-sanitizer, which is 10-100 times slower than the plain program.
LIBS_03 := -lgif
LIBS_08 := -lcublas
SANITIZE_ARGS_01 :=
SANITIZE_ARGS_02 := --n 100003
SANITIZE_ARGS_03 := --size 67x45 --generations 20
SANITIZE_ARGS_04 := --n 100003
SANITIZE_ARGS_05 := --n 100003
SANITIZE_ARGS_06 := --n 100003
SANITIZE_ARGS_07 := --n 100003
SANITIZE_ARGS_08 := --m 67 --n 129 --k 33
# Deliberately racy demos of the source material's mistakes: `make sanitize-NN` runs racecheck
# on them too and requires that it REPORTS the race (they are outside the must-be-clean runs).
SANITIZE_DEMO_05 := --volatile-demo --n 4096
SANITIZE_DEMO_07 := --racy-demo

# ---- Toolchain ------------------------------------------------------------------------------
NVCC      ?= nvcc
CXX       := g++
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(shell command -v $(NVCC) 2>/dev/null))
BUILD     := build
# A local prefix for doctest and giflib on machines where they cannot be installed system-wide
# (unpack the Debian packages there with dpkg -x): searched before the system directories.
DEPS      := $(CURDIR)/.deps/usr
DEPS_LIB  := $(DEPS)/lib/x86_64-linux-gnu

HAVE_GPU := $(shell nvidia-smi -L >/dev/null 2>&1 && echo yes)
ifeq ($(ARCH),auto)
  override ARCH := $(if $(HAVE_GPU),native,fat)
endif
# nvcc 13 dropped everything before sm_75. The fat binary carries machine code for each
# generation from Turing to Hopper, plus PTX that newer GPUs compile when the program starts.
FAT_ARCHS := 75 80 86 89 90
ifeq ($(ARCH),fat)
  ARCH_FLAGS := $(foreach a,$(FAT_ARCHS),-gencode=arch=compute_$(a),code=sm_$(a)) \
                -gencode=arch=compute_90,code=compute_90
else
  ARCH_FLAGS := -arch=$(ARCH)
endif

INCLUDES  := -Icommon $(if $(wildcard $(DEPS)/include),-I$(DEPS)/include)
NVCCFLAGS := -std=c++17 -O3 -lineinfo $(ARCH_FLAGS) $(INCLUDES) -Xcompiler=-Wall,-Wextra,-Wno-unused-parameter -MMD -MP
CXXFLAGS  := -std=c++17 -O2 -g -Wall -Wextra $(INCLUDES) -I$(CUDA_HOME)/include -MMD -MP
# Starters declare variables that the TODOs will use: silence "declared/set but never used" there.
STARTER_FLAGS := -diag-suppress=177,550 -Xcompiler=-Wno-unused-variable,-Wno-unused-but-set-variable
LDFLAGS   := $(ARCH_FLAGS) $(if $(wildcard $(DEPS_LIB)),-L$(DEPS_LIB) -Xlinker -rpath=$(DEPS_LIB))

ifeq ($(V),1)
  Q :=
else
  Q := @
endif

# Rebuild everything when the compiler flags change (e.g. another ARCH).
FLAGS_STAMP := $(BUILD)/flags.$(shell echo '$(NVCCFLAGS) $(STARTER_FLAGS) $(CXXFLAGS) $(LDFLAGS)' | cksum | cut -d' ' -f1)
$(FLAGS_STAMP):
	@mkdir -p $(BUILD) && rm -f $(BUILD)/flags.* && touch $@

# doctest (every test program) and giflib (03's program) are checked, and installed if missing,
# just before the first compile that needs them; `make run-01` needs neither.
DEPS_STAMP := $(BUILD)/deps-doctest.ok
$(BUILD)/deps-%.ok: common/setup_deps.sh
	@mkdir -p $(BUILD) && bash common/setup_deps.sh $* && touch $@

# ---- Per-exercise rules -----------------------------------------------------------------------
VARIANTS := solution starter pristine

# $(1) folder, $(2) number, $(3) name
define EXERCISE_RULES
$(2)_SUPPORT := $(filter-out $(1)/starter.cu $(1)/solution.cu $(1)/main.cpp $(1)/tests.cpp,$(wildcard $(1)/*.cu $(1)/*.cpp))
$(2)_SUPPORT_OBJ := $$(patsubst $(1)/%,$(BUILD)/$(1)/support/%.o,$$($(2)_SUPPORT))
$(2)_HOST_DEPS := $(if $(findstring -lgif,$(LIBS_$(2))),$(BUILD)/deps-giflib.ok)

$(BUILD)/$(1)/pristine.cu: $(1)/solution.cu common/make_starter.awk
	@mkdir -p $$(@D)
	$(Q)awk -f common/make_starter.awk $$< > $$@

$(BUILD)/$(1)/solution.o: $(1)/solution.cu $(FLAGS_STAMP)
	@mkdir -p $$(@D); echo "  NVCC  $$<"
	$(Q)$(NVCC) $(NVCCFLAGS) -I$(1) -c $$< -o $$@
$(BUILD)/$(1)/starter.o: $(1)/starter.cu $(FLAGS_STAMP)
	@mkdir -p $$(@D); echo "  NVCC  $$<"
	$(Q)$(NVCC) $(NVCCFLAGS) $(STARTER_FLAGS) -I$(1) -c $$< -o $$@
$(BUILD)/$(1)/pristine.o: $(BUILD)/$(1)/pristine.cu $(FLAGS_STAMP)
	@mkdir -p $$(@D); echo "  NVCC  $$< (the untouched starter)"
	$(Q)$(NVCC) $(NVCCFLAGS) $(STARTER_FLAGS) -I$(1) -c $$< -o $$@
$(BUILD)/$(1)/support/%.cu.o: $(1)/%.cu $(FLAGS_STAMP)
	@mkdir -p $$(@D); echo "  NVCC  $$<"
	$(Q)$(NVCC) $(NVCCFLAGS) -I$(1) -c $$< -o $$@
$(BUILD)/$(1)/support/%.cpp.o: $(1)/%.cpp $(FLAGS_STAMP) | $$($(2)_HOST_DEPS)
	@mkdir -p $$(@D); echo "  CXX   $$<"
	$(Q)$(CXX) $(CXXFLAGS) -I$(1) -c $$< -o $$@
$(BUILD)/$(1)/main.o: $(1)/main.cpp $(FLAGS_STAMP) | $$($(2)_HOST_DEPS)
	@mkdir -p $$(@D); echo "  CXX   $$<"
	$(Q)$(CXX) $(CXXFLAGS) -I$(1) -c $$< -o $$@
$(BUILD)/$(1)/tests.o: $(1)/tests.cpp $(FLAGS_STAMP) | $(DEPS_STAMP) $$($(2)_HOST_DEPS)
	@mkdir -p $$(@D); echo "  CXX   $$<"
	$(Q)$(CXX) $(CXXFLAGS) -I$(1) -c $$< -o $$@

$(BUILD)/$(1)/%/$(3): $(BUILD)/$(1)/%.o $(BUILD)/$(1)/main.o $$($(2)_SUPPORT_OBJ) $(COMMON_OBJ)
	@mkdir -p $$(@D); echo "  LINK  $$@"
	$(Q)$(NVCC) $(LDFLAGS) $$^ -o $$@ $(LIBS_$(2))
$(BUILD)/$(1)/%/tests: $(BUILD)/$(1)/%.o $(BUILD)/$(1)/tests.o $(BUILD)/common/test_main.o $$($(2)_SUPPORT_OBJ) $(COMMON_OBJ)
	@mkdir -p $$(@D); echo "  LINK  $$@"
	$(Q)$(NVCC) $(LDFLAGS) $$^ -o $$@ $(LIBS_$(2))

ALL_BINARIES += $(foreach v,$(VARIANTS),$(BUILD)/$(1)/$(v)/$(3) $(BUILD)/$(1)/$(v)/tests)

.PHONY: run-$(2) test-$(2) bench-$(2) sanitize-$(2) build-$(2)
build-$(2): $(foreach v,$(VARIANTS),$(BUILD)/$(1)/$(v)/$(3) $(BUILD)/$(1)/$(v)/tests)
run-$(2): $(BUILD)/$(1)/$(USE)/$(3)
	@echo "== $(1) ($(USE).cu) =="
	@$$< $(ARGS)
bench-$(2): $(BUILD)/$(1)/$(USE)/$(3)
	@echo "== $(1) benchmark ($(USE).cu) =="
	@$$< --bench $(ARGS)
test-$(2): $(BUILD)/$(1)/$(USE)/tests
	@echo "== $(1) tests ($(USE).cu) =="
	@timeout -k 5 $(TEST_TIMEOUT) $$< $(ARGS); rc=$$$$?; \
	  if [ $$$$rc -eq 124 ] || [ $$$$rc -eq 137 ]; then \
	    echo "test-$(2): stopped after $(TEST_TIMEOUT) s: a kernel is probably stuck (a deadlock or an endless loop)"; fi; \
	  exit $$$$rc
sanitize-$(2): $(BUILD)/$(1)/solution/$(3) $(BUILD)/$(1)/solution/tests
	@bash common/sanitize.sh $(1) "$(BUILD)/$(1)/solution/$(3) $(SANITIZE_ARGS_$(2))" "$(BUILD)/$(1)/solution/tests" \
	  "$(if $(SANITIZE_DEMO_$(2)),$(BUILD)/$(1)/solution/$(3) $(SANITIZE_DEMO_$(2)))"
endef

$(BUILD)/common/test_main.o: common/test_main.cpp $(FLAGS_STAMP) | $(DEPS_STAMP)
	@mkdir -p $(@D); echo "  CXX   $<"
	$(Q)$(CXX) $(CXXFLAGS) -c $< -o $@

# Device code of common/ itself, linked into every program and test.
COMMON_OBJ := $(BUILD)/common/l2_flush.o
$(BUILD)/common/%.o: common/%.cu $(FLAGS_STAMP)
	@mkdir -p $(@D); echo "  NVCC  $<"
	$(Q)$(NVCC) $(NVCCFLAGS) -c $< -o $@

# Host tests of common/ itself.
$(BUILD)/common/tests.o: common/tests.cpp $(FLAGS_STAMP) | $(DEPS_STAMP)
	@mkdir -p $(@D); echo "  CXX   $<"
	$(Q)$(CXX) $(CXXFLAGS) -c $< -o $@
$(BUILD)/common/tests: $(BUILD)/common/tests.o $(BUILD)/common/test_main.o $(COMMON_OBJ)
	@mkdir -p $(@D); echo "  LINK  $@"
	$(Q)$(NVCC) $(LDFLAGS) $^ -o $@
ALL_BINARIES := $(BUILD)/common/tests

$(foreach e,$(EXERCISES),$(eval $(call EXERCISE_RULES,$(e),$(firstword $(subst _, ,$(e))),$(call name_of,$(e)))))

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

# ---- Whole-course targets ---------------------------------------------------------------------
.PHONY: help all check status sanitize doctor clean

all: $(ALL_BINARIES)

# Builds everything in parallel, then runs every suite in turn (one GPU, honest timings).
check:
	@$(MAKE) --no-print-directory -j$(JOBS) all
	@bash common/check.sh common $(EXERCISES)

status:
	@bash common/status.sh $(EXERCISES)

sanitize:
	@failed=0; for n in $(numbers); do $(MAKE) --no-print-directory sanitize-$$n || failed=1; done; \
	  if [ $$failed = 0 ]; then echo "sanitize: every solution is clean"; else echo "sanitize: FAILED (see above)"; exit 1; fi

doctor:
	@NVCC="$(NVCC)" ARCH="$(ARCH)" ARCH_FLAGS="$(ARCH_FLAGS)" DEPS="$(DEPS)" bash common/doctor.sh

clean:
	rm -rf $(BUILD)

help:
	@echo "Hands-on CUDA C++: make targets (NN is an exercise number: $(numbers))"
	@echo ""
	@echo "  make run-NN [ARGS=\"--n 1000\"]   build and run exercise NN with your starter.cu"
	@echo "  make test-NN                     run exercise NN's tests against your starter.cu"
	@echo "  make bench-NN                    exercise NN's benchmark table"
	@echo "      add USE=solution to any of these to use the reference solution instead"
	@echo "  make status                      which steps of each exercise your starters pass"
	@echo "  make check [REQUIRE_GPU=1]       build everything, test every solution (instructors)"
	@echo "  make sanitize-NN | sanitize      compute-sanitizer (memcheck, racecheck, synccheck,"
	@echo "                                   initcheck) over the solutions"
	@echo "  make doctor                      versions, GPUs, architecture, and what is missing"
	@echo "  make clean                       remove build/"
	@echo ""
	@echo "Options: ARCH=native|fat|sm_89 (now: $(ARCH)), TEST_TIMEOUT=seconds (now: $(TEST_TIMEOUT)),"
	@echo "         JOBS=N parallel compiles for check (now: $(JOBS)), V=1 full compiler lines."
