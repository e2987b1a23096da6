# Hands-on CUDA C++: every exercise is built, run and tested from here. `make help` lists it all.
#
# Each exercise folder NN_name/ holds: name.h (the interface and its steps), starter.cu (yours),
# solution.cu, main.cpp (the program), tests.cpp (doctest tests), README.md, LECTURE.md, and
# exercise.mk (its build settings), and answers.cpp where it has predictions (common/answers.h).
# answers.cpp and the support sources its exercise.mk lists (SUPPORT) are linked into both the
# program and the tests; any other .cu or .cpp in the folder is not part of it. Adding an exercise
# is adding a folder: nothing here names one.
# The .cu files are compiled by nvcc; the .cpp files by the host compiler.

SHELL := /bin/bash
# What was given on the command line (NAME=value), read before anything here is defined: only the
# settings below may be (checked further down).
override command_line_names := $(strip $(foreach v,$(.VARIABLES),$(if $(filter command line,$(origin $(v))),$(v))))
.DEFAULT_GOAL := help
.SUFFIXES:
.DELETE_ON_ERROR:

EXERCISES := $(sort $(patsubst %/,%,$(wildcard 0[1-9]_*/ [1-9][0-9]_*/)))
numbers    = $(foreach e,$(EXERCISES),$(firstword $(subst _, ,$(e))))
name_of    = $(patsubst $(firstword $(subst _, ,$(1)))_%,%,$(1))

# ---- Settings you may give on the command line (or in the environment) ------------------------
# USE: starter (your file) or solution (the reference). ARGS: passed to the program (run,
# bench) or to doctest (test); quotes group words, nothing else is special. ARCH: auto, native,
# fat, or a target such as sm_89. REQUIRE_GPU=1: a test skipped for lack of a GPU fails instead;
# REQUIRE_GPUS=N: also a machine with fewer than N GPUs (for the cases that need several).
# TEST_TIMEOUT: seconds before a test program is stopped (a deadlocked kernel). NCU: the Nsight
# Compute profiler for profile-NN, when it is not on PATH or in the toolkit. NVCC: the CUDA
# compiler, when it is not on PATH. JOBS: parallel compiles (check, sanitize). V=1: full lines.
# STEP, LEVEL: make hint-NN's step and level. COURSE_PROGRESS_DIR: the folder of your progress
# records (default .progress). STRICT_STARTERS=1 or CI=true: make check fails a committed
# starter that differs from the generated one.
# Every setting is taken as typed: make expands nothing in it ($(shell ...), $HOME, $$ stay as
# they are), and a value reaches the scripts as an environment value or one quoted word, never
# as make or shell syntax (common/with_args.sh splits ARGS into words at blanks outside quotes,
# and runs nothing). Any other NAME=value on the command line is refused: it is no setting here.
override SETTINGS := USE ARGS ARCH REQUIRE_GPU REQUIRE_GPUS TEST_TIMEOUT NCU NVCC JOBS V STEP LEVEL \
            COURSE_PROGRESS_DIR STRICT_STARTERS CI
# A setting's value as typed, or $(2) when it is not set at all.
override literal = $(if $(filter undefined,$(origin $(1))),$(2),$(value $(1)))
override USE                 := $(call literal,USE,starter)
override ARGS                := $(call literal,ARGS,)
override ARCH                := $(call literal,ARCH,auto)
override REQUIRE_GPU         := $(call literal,REQUIRE_GPU,0)
override REQUIRE_GPUS        := $(call literal,REQUIRE_GPUS,0)
override TEST_TIMEOUT        := $(call literal,TEST_TIMEOUT,300)
override NCU                 := $(call literal,NCU,)
override NVCC                := $(call literal,NVCC,nvcc)
override JOBS                := $(call literal,JOBS,$(shell nproc 2>/dev/null || echo 2))
override V                   := $(call literal,V,0)
override STEP                := $(call literal,STEP,)
override LEVEL               := $(call literal,LEVEL,)
override COURSE_PROGRESS_DIR := $(call literal,COURSE_PROGRESS_DIR,)
override STRICT_STARTERS     := $(call literal,STRICT_STARTERS,)
override CI                  := $(call literal,CI,)
export ARGS TEST_TIMEOUT REQUIRE_GPU REQUIRE_GPUS COURSE_PROGRESS_DIR STRICT_STARTERS CI
# Internal: only common/with_args.sh sets the first (make test-NN with your starter), and only the
# course's tools the second (the file of a run's record: common/records.h), never a user.
unexport COURSE_STEPS_LOG COURSE_RECORD

# Make runs in the course's folder: every path here is relative to it.
ifeq ($(wildcard common/course.cpp),)
  $(error run make in the course's folder: make -C '$(patsubst %/,%,$(dir $(firstword $(MAKEFILE_LIST))))' $(MAKECMDGOALS))
endif

# ---- Every setting checked with make's own functions, before anything is run or built ---------
# One line names the setting and what it got. Nothing typed in a setting reaches a shell
# unquoted (shell_quote), so a quote in a value is a character, not a command.
empty   :=
space   := $(empty) $(empty)
tab     := $(empty)	$(empty)
override define newline


endef
# A value as one shell word in single quotes (a quote inside becomes '"'"').
override shell_quote = '$(subst ','"'"',$(1))'
# A value for one line of a message, escaped as the programs escape theirs (common/printable.sh:
# control bytes, line breaks and non-ASCII bytes as \xNN, at most 200 characters).
# (make's $(shell ...) drops line breaks from its command: they are written as \x0A first.)
override shown = $(or $(shell bash common/printable.sh $(call shell_quote,$(subst $(newline),\x0A,$(1))) 200),$(if $(1),(a value too long to show)))
# One word, with no blank, tab or line break in it or around it: y or nothing.
one_word = $(if $(and $(filter 1,$(words $(1))),$(if $(findstring $(space),$(1))$(findstring $(tab),$(1))$(findstring $(newline),$(1)),,y)),y)
# A whole number from 1 to 999999, written without a leading zero: y or nothing.
digit_marks = $(subst 0,x ,$(subst 1,x ,$(subst 2,x ,$(subst 3,x ,$(subst 4,x ,$(subst 5,x ,$(subst 6,x ,$(subst 7,x ,$(subst 8,x ,$(subst 9,x ,$(1)))))))))))
not_digits = $(subst 0,,$(subst 1,,$(subst 2,,$(subst 3,,$(subst 4,,$(subst 5,,$(subst 6,,$(subst 7,,$(subst 8,,$(subst 9,,$(1)))))))))))
is_count = $(if $(and $(call one_word,$(1)),$(if $(call not_digits,$(1)),,y),$(filter-out 0%,$(1)),$(filter 1 2 3 4 5 6,$(words $(call digit_marks,$(1))))),y)
# setting, allowed words: y when the value is exactly one of them
is_one_of = $(if $(and $(call one_word,$($(1))),$(filter $(2),$($(1)))),y)

# Any other NAME=value on the command line: refused (make would expand it, in a recipe's
# environment or wherever the Makefile uses that name).
override not_settings := $(filter-out $(SETTINGS),$(command_line_names))
ifneq ($(not_settings),)
  $(error '$(call shown,$(firstword $(not_settings)))' is not a setting of this course: its settings are $(SETTINGS) (make help lists the common ones))
endif
ifneq ($(call is_one_of,USE,starter solution),y)
  $(error USE must be starter or solution (got '$(call shown,$(USE))'))
endif
ifneq ($(call is_one_of,REQUIRE_GPU,0 1),y)
  $(error REQUIRE_GPU must be 0 or 1 (got '$(call shown,$(REQUIRE_GPU))'))
endif
ifneq ($(if $(and $(call one_word,$(REQUIRE_GPUS)),$(if $(call not_digits,$(REQUIRE_GPUS)),,y),$(filter 1 2,$(words $(call digit_marks,$(REQUIRE_GPUS))))),y),y)
  $(error REQUIRE_GPUS must be a number of GPUs from 0 to 99 (got '$(call shown,$(REQUIRE_GPUS))'))
endif
ifneq ($(call is_one_of,V,0 1),y)
  $(error V must be 0 or 1 (got '$(call shown,$(V))'))
endif
ifneq ($(call is_count,$(TEST_TIMEOUT)),y)
  $(error TEST_TIMEOUT must be a whole number of seconds from 1 to 999999 (got '$(call shown,$(TEST_TIMEOUT))'))
endif
ifneq ($(call is_count,$(JOBS)),y)
  $(error JOBS must be a whole number of parallel compiles from 1 to 999999 (got '$(call shown,$(JOBS))'))
endif
ifneq ($(call one_word,$(NVCC)),y)
  $(error NVCC must be the CUDA compiler, one word such as nvcc or /usr/local/cuda/bin/nvcc (got '$(call shown,$(NVCC))'))
endif
ifneq ($(if $(NCU),$(call one_word,$(NCU)),y),y)
  $(error NCU must be Nsight Compute's ncu, one word such as /usr/local/cuda/bin/ncu (got '$(call shown,$(NCU))'))
endif
# STEP and LEVEL (checked by the course tool, common/hints.h) and COURSE_PROGRESS_DIR are any text on one line.
$(foreach s,STEP LEVEL COURSE_PROGRESS_DIR,$(if $(findstring $(newline),$($(s))),$(error $(s) must be one line (got '$(call shown,$($(s)))'))))
# sm_ then digits, maybe an a or an f (sm_90a, sm_100f): which of those nvcc knows is asked below.
arch_digits = $(patsubst %a,%,$(patsubst %f,%,$(patsubst sm_%,%,$(filter sm_%,$(1)))))
ifneq ($(and $(call one_word,$(ARCH)),$(or $(filter auto native fat,$(ARCH)),$(if $(and $(call arch_digits,$(ARCH)),$(if $(call not_digits,$(call arch_digits,$(ARCH))),,y)),$(ARCH)))),$(ARCH))
  $(error ARCH must be auto, native, fat or a target such as sm_89 (got '$(call shown,$(ARCH))'))
endif

# Goals that compile (all but these): the compiler, the architecture and a writable build/ are
# checked only for them, so that `make help` or `make doctor` work on any machine.
NON_BUILDING_GOALS := help doctor clean hint hint-%
BUILDING := $(filter-out $(NON_BUILDING_GOALS),$(or $(MAKECMDGOALS),$(.DEFAULT_GOAL)))

# ---- Toolchain ------------------------------------------------------------------------------
CXX       := g++
# The toolkit is the one nvcc belongs to, whatever CUDA_HOME says: headers and libraries for
# the host compiler must come from the same toolkit as nvcc's.
NVCC_PATH := $(shell command -v $(call shell_quote,$(NVCC)) 2>/dev/null)
NVCC_CMD  := $(call shell_quote,$(NVCC_PATH))
override CUDA_HOME := $(if $(NVCC_PATH),$(patsubst %/bin/,%,$(dir $(realpath $(NVCC_PATH)))),$(value CUDA_HOME))
CUDA_LIB  := $(firstword $(wildcard $(CUDA_HOME)/lib64 $(CUDA_HOME)/targets/x86_64-linux/lib) $(CUDA_HOME)/lib64)
BUILD     := build
# A local prefix for doctest and giflib on machines where they cannot be installed system-wide
# (unpack the Debian packages there with dpkg -x): searched before the system directories.
# Relative, so that a checkout under a path with spaces builds; programs find its libraries
# through an rpath relative to themselves ($ORIGIN is the program's folder, three levels down).
DEPS      := .deps/usr
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

ifneq ($(BUILDING),)
  ifeq ($(NVCC_PATH),)
    $(error NVCC: '$(call shown,$(NVCC))' is not a program here: install the CUDA Toolkit and put its bin/ on PATH, or give NVCC=/path/to/nvcc)
  endif
  ifeq ($(findstring Cuda compilation tools,$(shell $(call shell_quote,$(NVCC_PATH)) --version 2>/dev/null)),)
    $(error NVCC: '$(call shown,$(NVCC))' ($(call shown,$(NVCC_PATH))) is not nvcc, the CUDA compiler: its --version does not say "Cuda compilation tools")
  endif
  # nvcc itself says which targets it knows (nvcc --list-gpu-code; sm_90a, sm_100f and the like too).
  ifeq ($(shell $(call shell_quote,$(NVCC_PATH)) $(ARCH_FLAGS) --dryrun -c -x cu /dev/null -o /dev/null >/dev/null 2>&1 && echo ok),)
    $(error ARCH=$(ARCH): nvcc $(call shown,$(NVCC_PATH)) does not know this target (its targets: $(shell $(call shell_quote,$(NVCC_PATH)) --list-gpu-code 2>/dev/null | tr "\n" " " | sed "s/ *$$//")))
  endif
  ifeq ($(ARCH)$(HAVE_GPU),native)
    $(error ARCH=native compiles for the GPU of this machine, and nvidia-smi finds none: use ARCH=fat or a target such as ARCH=sm_89)
  endif
  # Everything is built under build/: a checkout where it cannot be made gets one line. (A
  # build/ that exists but cannot be written is fine while nothing needs rebuilding.)
  ifeq ($(shell [ -e $(BUILD) ] || [ -w . ] && echo y),)
    $(error make builds the course's programs in $(CURDIR)/$(BUILD)/ and cannot write there: copy the course into a folder you own (or make this one writable))
  endif
endif

INCLUDES  := -Icommon -Icommon/baselines -I$(DEPS)/include
NVCCFLAGS := -std=c++17 -O3 -lineinfo $(ARCH_FLAGS) $(INCLUDES) -Xcompiler=-Wall,-Wextra,-Wno-unused-parameter -MMD -MP
CXXFLAGS  := -std=c++17 -O2 -g -Wall -Wextra $(INCLUDES) -I$(CUDA_HOME)/include -MMD -MP
# Starters declare variables that the TODOs will use: silence "declared/set but never used" there.
STARTER_FLAGS := -diag-suppress=177,550 -Xcompiler=-Wno-unused-variable,-Wno-unused-but-set-variable
LDFLAGS   := $(ARCH_FLAGS) -Xlinker -rpath=$(CUDA_LIB)
# Exercise programs (build/NN_x/VARIANT/program) also look in .deps; written with $$$$ because
# the exercise rules below are expanded twice (call, then eval) before the shell sees $ORIGIN.
EX_LDFLAGS := $(LDFLAGS) -L$(DEPS_LIB) -Xlinker -rpath='$$$$ORIGIN/../../../$(DEPS_LIB)'

ifeq ($(V),1)
  Q :=
else
  Q := @
endif

# Rebuild everything when the compiler flags change (another ARCH, another toolkit): the file
# build/flags holds them, and every object depends on it. It is rewritten by its rule, and only
# when the flags differ, so looking (make help ARCH=..., make -n, make doctor) changes nothing.
FLAGS_TEXT  := $(NVCC_PATH) $(NVCCFLAGS) $(STARTER_FLAGS) $(CXXFLAGS) $(LDFLAGS) $(DEPS_LIB)
FLAGS_STAMP := $(BUILD)/flags
ifneq ($(file <$(FLAGS_STAMP)),$(FLAGS_TEXT))
  $(FLAGS_STAMP): FORCE
  ifneq ($(BUILDING),)
    ifeq ($(shell [ ! -e $(FLAGS_STAMP) ] || [ -w $(FLAGS_STAMP) ] && echo y),)
      $(error the compiler settings changed (ARCH, NVCC or the toolkit) but $(FLAGS_STAMP) cannot be rewritten, so the old programs would run: make this checkout writable, or keep the settings it was built with)
    endif
  endif
endif
$(FLAGS_STAMP):
	@mkdir -p $(@D) && printf '%s' $(call shell_quote,$(FLAGS_TEXT)) > $@
FORCE:
ifneq ($(filter clean,$(MAKECMDGOALS)),)
  # `make clean build-02` must not build while clean removes: run the goals one after another.
  .NOTPARALLEL:
endif

# doctest (every test program) and giflib (03's program) are checked, and installed if missing,
# just before the first compile that needs them; `make run-01` needs neither.
DEPS_STAMP := $(BUILD)/deps-doctest.ok
$(BUILD)/deps-%.ok: common/setup_deps.sh
	@mkdir -p $(@D) && NVCC=$(call shell_quote,$(NVCC)) bash common/setup_deps.sh $* && touch $@

# ---- Library baselines shared by exercises (common/baselines/) -----------------------------------
# A baseline declares the libraries it links in common/baselines/NAME.mk (LIBS := -lcublas): an
# exercise that names it in BASELINES links them without saying so again.
define LOAD_BASELINE
LIBS :=
include $(1)
BASELINE_LIBS_$(basename $(notdir $(1))) := $$(LIBS)
endef
$(foreach f,$(wildcard common/baselines/*.mk),$(eval $(call LOAD_BASELINE,$(f))))
# The libraries that need setting up before the first compile (common/setup_deps.sh): LIB=SET-UP.
LIBRARY_SETUPS := -lgif=giflib -lnccl=nccl
$(BUILD)/common/baselines/%.o: common/baselines/%.cu $(FLAGS_STAMP)
	@mkdir -p $(@D); echo "  NVCC  $<"
	$(Q)$(NVCC_CMD) $(NVCCFLAGS) -c $< -o $@
$(BUILD)/common/baselines/%.o: common/baselines/%.cpp $(FLAGS_STAMP)
	@mkdir -p $(@D); echo "  CXX   $<"
	$(Q)$(CXX) $(CXXFLAGS) -c $< -o $@

# ---- Per-exercise rules -----------------------------------------------------------------------
VARIANTS := solution starter pristine

# ---- An exercise's settings: NN_x/exercise.mk (make variables; every key optional) ----------
#   SUPPORT           the exercise's own sources besides starter.cu, solution.cu, main.cpp,
#                     tests.cpp and answers.cpp, linked into both the program and the tests
#                     (.cu files compiled by nvcc, .cpp by the host compiler), e.g. lattice.cu.
#                     Any other .cu or .cpp in the folder (a merge tool's starter_BACKUP_1234.cu,
#                     "starter copy.cu") is not part of the exercise: named in one line, ignored
#   USES              sources of other exercises compiled into this one's program and tests, as
#                     the folder's own .cu files are, e.g. 08_tiled_matmul/solution.cu (10's tables
#                     compare with 08's kernel): a copy of the course without it says so in one line
#   LIBS              extra link flags, e.g. -lgif (those of LIBRARY_SETUPS are set up first)
#   CUDA_FLAGS        extra nvcc flags for the exercise's .cu files
#   BASELINES         library baselines linked in from common/baselines/, e.g. cub_sum, with the
#                     libraries each declares there
#   SANITIZE_ARGS     the program's options for make sanitize-NN: small, but reaching every code
#                     path (every step runs, a partial last block, more than one block)
#   SANITIZE_DEMO     options of a deliberately racy demo that racecheck must catch
#   SANITIZE_SKIP     test cases the sanitizers leave out besides the "(large)" ones (doctest
#                     wildcards, comma-separated): cases whose kernels are a library's own
#   PROFILE_ARGS      program options of a representative size for make profile-NN
#   PROFILE_COLUMNS   profile-NN's own counters: "plain-words header = ncu formula; ..."
#   PROFILE_LAUNCHES  the most kernel launches profile-NN profiles (default 64)
# Each key is read into KEY_NN (LIBS_02, ...); EXERCISE_DEFAULT_KEY is its default.
EXERCISE_KEYS := SUPPORT USES LIBS CUDA_FLAGS BASELINES SANITIZE_ARGS SANITIZE_DEMO SANITIZE_SKIP PROFILE_ARGS PROFILE_COLUMNS PROFILE_LAUNCHES
EXERCISE_DEFAULT_PROFILE_LAUNCHES := 64

# $(1) folder, $(2) number: read the folder's exercise.mk into NN-suffixed variables.
define LOAD_SETTINGS
$$(foreach k,$$(EXERCISE_KEYS),$$(eval $$(k) := $$(EXERCISE_DEFAULT_$$(k))))
-include $(1)/exercise.mk
$$(foreach k,$$(EXERCISE_KEYS),$$(eval $$(k)_$(2) := $$$$($$(k))))
endef

# $(1) folder, $(2) number, $(3) name
define EXERCISE_RULES
# What common/sanitize.sh runs for this exercise: FOLDER PROGRAM 'ARGS' 'DEMO ARGS' 'SKIP'.
SANITIZE_SPEC_$(2) := $(1) $(BUILD)/$(1)/solution/$(3) $(call shell_quote,$(SANITIZE_ARGS_$(2))) \
                      $(call shell_quote,$(SANITIZE_DEMO_$(2))) $(call shell_quote,$(SANITIZE_SKIP_$(2)))
SANITIZE_SPECS += $$(SANITIZE_SPEC_$(2))
SANITIZE_BINARIES += $(BUILD)/$(1)/solution/$(3) $(BUILD)/$(1)/solution/tests
$(2)_SUPPORT_OBJ := $(patsubst %,$(BUILD)/$(1)/support/%.o,$(SUPPORT_$(2)) $(notdir $(wildcard $(1)/answers.cpp))) \
                    $(patsubst %,$(BUILD)/$(1)/uses/%.o,$(USES_$(2))) \
                    $$(patsubst %,$(BUILD)/common/baselines/%.o,$$(BASELINES_$(2)))
$(2)_LIBS := $(strip $(LIBS_$(2)) $(foreach b,$(BASELINES_$(2)),$(BASELINE_LIBS_$(b))))
$(2)_HOST_DEPS := $$(foreach l,$$($(2)_LIBS),$$(patsubst $$(l)=%,$(BUILD)/deps-%.ok,$$(filter $$(l)=%,$(LIBRARY_SETUPS))))

$(BUILD)/$(1)/pristine.cu: $(1)/solution.cu common/make_starter.awk
	@mkdir -p $$(@D)
	$(Q)awk -f common/make_starter.awk $$< > $$@

$(BUILD)/$(1)/solution.o: $(1)/solution.cu $(FLAGS_STAMP) $(wildcard $(1)/exercise.mk) | $$($(2)_HOST_DEPS)
	@mkdir -p $$(@D); echo "  NVCC  $$<"
	$(Q)$(NVCC_CMD) $(NVCCFLAGS) $(CUDA_FLAGS_$(2)) -I$(1) -c $$< -o $$@
$(BUILD)/$(1)/starter.o: $(1)/starter.cu $(FLAGS_STAMP) $(wildcard $(1)/exercise.mk) | $$($(2)_HOST_DEPS)
	@mkdir -p $$(@D); echo "  NVCC  $$<"
	$(Q)$(NVCC_CMD) $(NVCCFLAGS) $(CUDA_FLAGS_$(2)) $(STARTER_FLAGS) -I$(1) -c $$< -o $$@
$(BUILD)/$(1)/pristine.o: $(BUILD)/$(1)/pristine.cu $(FLAGS_STAMP) $(wildcard $(1)/exercise.mk) | $$($(2)_HOST_DEPS)
	@mkdir -p $$(@D); echo "  NVCC  $$< (the untouched starter)"
	$(Q)$(NVCC_CMD) $(NVCCFLAGS) $(CUDA_FLAGS_$(2)) $(STARTER_FLAGS) -I$(1) -c $$< -o $$@
$(BUILD)/$(1)/support/%.cu.o: $(1)/%.cu $(FLAGS_STAMP) $(wildcard $(1)/exercise.mk) | $$($(2)_HOST_DEPS)
	@mkdir -p $$(@D); echo "  NVCC  $$<"
	$(Q)$(NVCC_CMD) $(NVCCFLAGS) $(CUDA_FLAGS_$(2)) -I$(1) -c $$< -o $$@
$(BUILD)/$(1)/uses/%.cu.o: %.cu $(FLAGS_STAMP) $(wildcard $(1)/exercise.mk) | $$($(2)_HOST_DEPS)
	@mkdir -p $$(@D); echo "  NVCC  $$< (for $(1))"
	$(Q)$(NVCC_CMD) $(NVCCFLAGS) $(CUDA_FLAGS_$(2)) -I$(1) -c $$< -o $$@
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
	$(Q)$(NVCC_CMD) $(EX_LDFLAGS) $$^ -o $$@ $$($(2)_LIBS)
$(BUILD)/$(1)/%/tests: $(BUILD)/$(1)/%.o $(BUILD)/$(1)/tests.o $(BUILD)/common/test_main.o $$($(2)_SUPPORT_OBJ) $(COMMON_OBJ)
	@mkdir -p $$(@D); echo "  LINK  $$@"
	$(Q)$(NVCC_CMD) $(EX_LDFLAGS) $$^ -o $$@ $$($(2)_LIBS)

# Objects make would otherwise treat as intermediate and delete after linking.
KEEP += $(BUILD)/$(1)/pristine.cu $(foreach v,$(VARIANTS),$(BUILD)/$(1)/$(v).o) $$($(2)_SUPPORT_OBJ)
ALL_BINARIES += $(foreach v,$(VARIANTS),$(BUILD)/$(1)/$(v)/$(3) $(BUILD)/$(1)/$(v)/tests)

.PHONY: run-$(2) test-$(2) bench-$(2) sanitize-$(2) build-$(2) profile-$(2)
build-$(2): $(foreach v,$(VARIANTS),$(BUILD)/$(1)/$(v)/$(3) $(BUILD)/$(1)/$(v)/tests)
run-$(2): $(BUILD)/$(1)/$(USE)/$(3)
	@echo "== $(1) ($(USE).cu) =="
	@bash common/with_args.sh "$$<"
bench-$(2): $(BUILD)/$(1)/$(USE)/$(3)
	@echo "== $(1) benchmark ($(USE).cu) =="
	@bash common/with_args.sh "$$<" --bench
test-$(2): $(BUILD)/$(1)/$(USE)/tests
	@echo "== $(1) tests ($(USE).cu) =="
	@bash common/with_args.sh --timeout $(if $(filter starter,$(USE)),--record $(1)) "$$<"
sanitize-$(2): $(BUILD)/$(1)/solution/$(3) $(BUILD)/$(1)/solution/tests $(COURSE_TOOL)
	@SANITIZE_JOBS=$(JOBS) bash common/sanitize.sh $$(SANITIZE_SPEC_$(2))
profile-$(2): $(BUILD)/$(1)/$(USE)/$(3) $(PROFILE_TOOL) $(COURSE_TOOL)
	@echo "== $(1) profile ($(USE).cu) =="
	@$(foreach k,$(filter PROFILE_%,$(EXERCISE_KEYS)),$(k)=$(call shell_quote,$($(k)_$(2)))) \
	  NCU=$(call shell_quote,$(NCU)) NVCC=$(call shell_quote,$(NVCC)) bash common/profile.sh $(1) "$$<" $(PROFILE_TOOL) $(COURSE_TOOL)
endef

$(BUILD)/common/test_main.o: common/test_main.cpp $(FLAGS_STAMP) | $(DEPS_STAMP)
	@mkdir -p $(@D); echo "  CXX   $<"
	$(Q)$(CXX) $(CXXFLAGS) -c $< -o $@

# Device code of common/ itself, linked into every program and test.
COMMON_OBJ := $(BUILD)/common/l2_flush.o
$(BUILD)/common/%.o: common/%.cu $(FLAGS_STAMP)
	@mkdir -p $(@D); echo "  NVCC  $<"
	$(Q)$(NVCC_CMD) $(NVCCFLAGS) -c $< -o $@

# Host tests of common/ itself.
$(BUILD)/common/tests.o: common/tests.cpp $(FLAGS_STAMP) | $(DEPS_STAMP)
	@mkdir -p $(@D); echo "  CXX   $<"
	$(Q)$(CXX) $(CXXFLAGS) -c $< -o $@
$(BUILD)/common/tests: $(BUILD)/common/tests.o $(BUILD)/common/test_main.o $(COMMON_OBJ)
	@mkdir -p $(@D); echo "  LINK  $@"
	$(Q)$(NVCC_CMD) $(LDFLAGS) $^ -o $@
# The host tool of make profile-NN: ncu's CSV -> one table (common/profile_table.h).
PROFILE_TOOL := $(BUILD)/common/profile_table
$(BUILD)/common/profile_table.o: common/profile_table.cpp $(FLAGS_STAMP)
	@mkdir -p $(@D); echo "  CXX   $<"
	$(Q)$(CXX) $(CXXFLAGS) -c $< -o $@
$(PROFILE_TOOL): $(BUILD)/common/profile_table.o
	@mkdir -p $(@D); echo "  LINK  $@"
	$(Q)$(CXX) $^ -o $@
# The course tool (common/course.cpp): make status, make check's runs and counts, make hint-NN.
# The host compiler alone builds it, without the flags stamp: make hint-NN needs no CUDA.
COURSE_TOOL := $(BUILD)/common/course
COURSE_TOOL_SOURCES := common/course.cpp common/course_tests.cpp common/bad_input.cpp
$(COURSE_TOOL): $(COURSE_TOOL_SOURCES) $(addprefix common/,hints.h records.h json.h steps.h options.h output_file.h exit_codes.h)
	@mkdir -p $(@D); echo "  CXX   $(COURSE_TOOL_SOURCES) (the course tool)"
	$(Q)$(CXX) -std=c++17 -O2 -Wall -Wextra -Icommon $(COURSE_TOOL_SOURCES) -o $@
ALL_BINARIES := $(BUILD)/common/tests $(PROFILE_TOOL) $(COURSE_TOOL)
SANITIZE_SPECS :=
SANITIZE_BINARIES :=
KEEP := $(COMMON_OBJ) $(BUILD)/common/test_main.o $(BUILD)/common/tests.o $(BUILD)/common/profile_table.o

$(foreach e,$(EXERCISES),$(eval $(call LOAD_SETTINGS,$(e),$(firstword $(subst _, ,$(e))))))
$(foreach e,$(EXERCISES),$(eval $(call EXERCISE_RULES,$(e),$(firstword $(subst _, ,$(e))),$(call name_of,$(e)))))

# SUPPORT names source files of the folder (checked for the goals that compile). The folder's
# other .cu and .cpp files (not part of the exercise) are named in one line, for the goals that
# build the exercise, by the make you typed (not again by the makes it runs).
# $(1) folder, $(2) number: the first name in SUPPORT that is not one of the folder's own sources
support_bad = $(firstword $(foreach f,$(SUPPORT_$(2)),$(if $(and $(filter %.cu %.cpp,$(f)),$(filter-out starter.cu solution.cu main.cpp tests.cpp answers.cpp,$(f)),$(wildcard $(1)/$(f))),,$(f))))
support_why = $(if $(filter starter.cu solution.cu main.cpp tests.cpp answers.cpp,$(1)),which is always part of it,$(if $(filter %.cu %.cpp,$(1)),which is not a file in $(2)/,which is not a .cu or .cpp file))
# $(1) number: the first name in USES that is no .cu file of this course
uses_bad = $(firstword $(foreach f,$(USES_$(1)),$(if $(and $(filter %.cu,$(f)),$(wildcard $(f))),,$(f))))
# $(1) folder, $(2) number: its other .cu and .cpp files, comma-separated
other_sources = $(shell source common/printable.sh; cd $(call shell_quote,$(1)) && for f in *.cu *.cpp; do [ -f "$$f" ] || continue; case " starter.cu solution.cu main.cpp tests.cpp answers.cpp $(SUPPORT_$(2)) " in (*" $$f "*) ;; (*) out+="$${out:+, }$$(printable "$$f" 400)" ;; esac; done; printf '%s' "$${out-}")
define CHECK_SOURCES
ifneq ($$(call support_bad,$(1),$(2)),)
  $$(error $(1)/exercise.mk: SUPPORT names $$(call support_bad,$(1),$(2)), $$(call support_why,$$(call support_bad,$(1),$(2)),$(1)): it lists the exercise's own .cu and .cpp files besides starter.cu, solution.cu, main.cpp, tests.cpp and answers.cpp)
endif
ifneq ($$(filter all check status sanitize %-$(2),$(BUILDING)),)
  ifneq ($$(call uses_bad,$(2)),)
    $$(error $(1)/exercise.mk: USES names $$(call uses_bad,$(2)), $$(if $$(filter %.cu,$$(call uses_bad,$(2))),which this copy of the course does not have: $(1) is built with it (copy its exercise's folder too),which is not a .cu file))
  endif
endif
ifeq ($(MAKELEVEL),0)
  ifneq ($$(filter all check status sanitize %-$(2),$(BUILDING)),)
    others_$(2) := $$(strip $$(call other_sources,$(1),$(2)))
    ifneq ($$(others_$(2)),)
      $$(info note: $(1)/ holds $$(others_$(2)), not part of the exercise (its exercise.mk lists its sources in SUPPORT): ignored)
    endif
  endif
endif
endef
ifneq ($(BUILDING),)
  $(foreach e,$(EXERCISES),$(eval $(call CHECK_SOURCES,$(e),$(firstword $(subst _, ,$(e))))))
endif
.SECONDARY: $(KEEP)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

# A target for an exercise that does not exist gets the list of those that do.
run-% test-% bench-% sanitize-% build-% profile-%:
	$(error there is no exercise '$(call shown,$*)' (exercises: $(numbers)))

# ---- Hints: make hint-NN [STEP=K] [LEVEL=L] (the course tool, common/hints.h) ---------------------
# NN_x/hints.md, one level at a time. `make test-NN` with your starter appends its record to
# NN_x.steps in the progress folder (common/with_args.sh --record; make clean keeps it), so a hint
# starts at the first step not passed yet. The folder, .progress or COURSE_PROGRESS_DIR, is never
# part of a rule: the recipes have it as an environment value. STEP, LEVEL and the folder reach
# the tool in a file of their own, one a line (HINT_SETTINGS), never on a command line, so
# that a value of any length or text arrives as typed, in the check that make runs while reading
# this file (one line and exit 2 on bad input) as in the hint shown.
hint_goals := $(filter hint-%,$(MAKECMDGOALS))
ifneq ($(hint_goals),)
  hint_file := $(shell mktemp /tmp/course-hint.XXXXXX 2>/dev/null || mktemp 2>/dev/null)
  ifneq ($(words $(hint_file)),1)
    $(error make hint-NN needs a temporary file and mktemp cannot make one)
  endif
  $(file >$(hint_file),$(STEP)$(newline)$(LEVEL)$(newline)$(COURSE_PROGRESS_DIR))
endif
hint_run = HINT_SETTINGS=$(call shell_quote,$(hint_file)) $(COURSE_TOOL) hint
.PHONY: hint
hint:
	$(error say which exercise's hint: make hint-NN (exercises: $(numbers)))
# Bad input (no such exercise, step or level; a malformed hints.md) stops make with one line.
hint_refuse = $(if $(1),$(shell rm -f $(call shell_quote,$(hint_file)))$(error $(1)))
hint-%: $(COURSE_TOOL)
	$(call hint_refuse,$(shell $(hint_run) check $(call shell_quote,$*) $(EXERCISES) 2>&1))
	@$(hint_run) show $(call shell_quote,$*) $(EXERCISES); rc=$$?; \
	  $(if $(filter $@,$(lastword $(hint_goals))),rm -f $(call shell_quote,$(hint_file));) exit $$rc

# ---- Whole-course targets ---------------------------------------------------------------------
.PHONY: help all check status sanitize doctor clean

all: $(ALL_BINARIES)

# Builds everything in parallel, then runs every suite in turn (one GPU, honest timings).
check:
	@$(MAKE) --no-print-directory -j$(JOBS) all
	@$(COURSE_TOOL) check common $(EXERCISES) bad-input tool-tests

status: $(COURSE_TOOL)
	@$(COURSE_TOOL) status $(EXERCISES)

# Every solution's runs in one parallel batch (common/sanitize.sh), once everything is built.
sanitize:
	@bash common/sanitize.sh --need-gpu || exit 2
	@$(MAKE) --no-print-directory -j$(JOBS) $(SANITIZE_BINARIES) $(COURSE_TOOL)
	@SANITIZE_JOBS=$(JOBS) bash common/sanitize.sh $(SANITIZE_SPECS)

doctor:
	@NVCC=$(call shell_quote,$(NVCC)) ARCH=$(call shell_quote,$(ARCH)) ARCH_FLAGS=$(call shell_quote,$(ARCH_FLAGS)) \
	  DEPS=$(call shell_quote,$(DEPS)) bash common/doctor.sh

clean:
	rm -rf $(BUILD)

help:
	@echo "Hands-on CUDA C++: make targets (NN is an exercise number: $(numbers))"
	@echo ""
	@echo "  make run-NN [ARGS=\"--n 1000\"]   build and run exercise NN with your starter.cu"
	@echo "  make test-NN                     run exercise NN's tests against your starter.cu"
	@echo "  make bench-NN                    exercise NN's benchmark table"
	@echo "  make profile-NN                  Nsight Compute's counters behind each step, one table"
	@echo "                                   (ncu at a representative size; ARGS=\"...\" replaces it)"
	@echo "      add USE=solution to any of these to use the reference solution instead"
	@echo "  make hint-NN [STEP=K] [LEVEL=L]  one more hint for the first step your last test-NN"
	@echo "                                   did not pass (or for step K; or level L)"
	@echo "  make status                      which steps of each exercise your starters pass, hints used"
	@echo "  make check [REQUIRE_GPU=1]       build everything, test every solution (instructors);"
	@echo "             [REQUIRE_GPUS=N]      N GPUs required: the multi-GPU cases may not skip"
	@echo "  make sanitize-NN | sanitize      compute-sanitizer (memcheck, racecheck, synccheck,"
	@echo "                                   initcheck) over the solutions"
	@echo "  make doctor                      versions, GPUs, architecture, and what is missing"
	@echo "  make clean                       remove build/"
	@echo ""
	@echo "Options: ARCH=native|fat|sm_89 (now: $(ARCH)), TEST_TIMEOUT=seconds (now: $(TEST_TIMEOUT)),"
	@echo "         JOBS=N parallel compiles for check (now: $(JOBS)), V=1 full compiler lines."
