# Hands-on CUDA C++: every exercise is built, run and tested from here; `make help` lists it all.
# An exercise is a folder NN_name/ (nothing here names one). Every variable here is `override`: a
# command line sets only the settings, which make takes as typed (never expanded) and the course
# tool checks (common/settings.cpp). .cu files are compiled by nvcc, .cpp by the host compiler.
SHELL := /bin/bash
override command_line_names := $(strip $(foreach v,$(.VARIABLES),$(if $(filter command line,$(origin $(v))),$(v))))
.DEFAULT_GOAL := help
.SUFFIXES:
.DELETE_ON_ERROR:
.SECONDARY:
.SECONDEXPANSION:
# ---- The settings: `make help` prints this list ------------------------------------------------
override define HELP
Hands-on CUDA C++ (NN is an exercise number: $(numbers))
  make run-NN [ARGS="--n 1000"]   build and run exercise NN with your starter.cu
  make test-NN | bench-NN         its tests against your starter.cu | its benchmark table
  make profile-NN                 Nsight Compute's counters behind each step (ARGS="..." its size)
      add USE=solution to any of these to use the reference solution instead
  make hint-NN [STEP=K] [LEVEL=L] one more hint for the first step your last test-NN did not
                                  pass (or for step K; or level L)
  make status                     which steps of each exercise your starters pass, hints used
  make check [REQUIRE_GPU=1]      build everything, test every solution (instructors); with
             [REQUIRE_GPUS=N]     N GPUs required, the multi-GPU cases may not skip
  make sanitize-NN | sanitize     compute-sanitizer (memcheck, racecheck, synccheck, initcheck)
  make doctor | clean             versions, GPUs, architecture, what is missing | remove build/
Settings (a wrong value stops make with one line; so does a NAME=value that is no setting):
  ARCH=native|fat|sm_89 (now: $(ARCH_USED)), TEST_TIMEOUT=seconds (now: $(TEST_TIMEOUT)),
  JOBS=N parallel compiles and runs (now: $(JOBS)), V=1 full compiler lines, NVCC=path of nvcc,
  NCU=path of ncu, COURSE_PROGRESS_DIR=folder of your progress (.progress), STRICT_STARTERS=1
  or CI=true: a committed starter must equal the one generated from solution.cu
endef
override DEFAULTS := USE=starter ARGS= ARCH=auto REQUIRE_GPU=0 REQUIRE_GPUS=0 TEST_TIMEOUT=300 NCU= NVCC=nvcc JOBS=$(shell \
  nproc 2>/dev/null || echo 2) V=0 STEP= LEVEL= COURSE_PROGRESS_DIR= STRICT_STARTERS= CI=
override SETTINGS := $(foreach d,$(DEFAULTS),$(firstword $(subst =, ,$(d))))
# A setting's value as typed (never expanded), or its default when it is not set at all.
$(foreach s,$(SETTINGS),$(eval override $(s) := $$(if $$(filter undefined,$$(origin $(s))),$$(patsubst $(s)=%,%,$$(filter $(s)=%,$$(DEFAULTS))),$$(value $(s)))))
export ARGS TEST_TIMEOUT REQUIRE_GPU REQUIRE_GPUS COURSE_PROGRESS_DIR STRICT_STARTERS CI
unexport COURSE_STEPS_LOG COURSE_RECORD  # internal: set by the course tool (the records), never a user
override not_settings := $(filter-out $(SETTINGS),$(command_line_names))
$(if $(wildcard common/course.cpp),,$(error run make in the course's folder: make -C '$(patsubst %/,%,$(dir $(firstword $(MAKEFILE_LIST))))' $(MAKECMDGOALS)))
override EXERCISES := $(sort $(patsubst %/,%,$(wildcard 0[1-9]_*/ [1-9][0-9]_*/)))
override numbers   := $(foreach e,$(EXERCISES),$(firstword $(subst _, ,$(e))))
override folder_of  = $(filter $(1)_%,$(EXERCISES))
override name_of    = $(patsubst $(firstword $(subst _, ,$(1)))_%,%,$(1))
override define newline
$()
$()
endef
override shell_quote = '$(subst ','"'"',$(1))'
# Goals that compile (all but these): the compiler, the architecture and a writable build/.
override BUILDING := $(filter-out help doctor clean hint hint-%,$(or $(MAKECMDGOALS),$(.DEFAULT_GOAL)))
# ---- Toolchain: the toolkit is the one nvcc belongs to, whatever CUDA_HOME says -----------------
override CXX        := g++
override BUILD      := build
override NVCC_PATH  := $(shell command -v $(call shell_quote,$(NVCC)) 2>/dev/null)
override NVCC_CMD   := $(call shell_quote,$(NVCC_PATH))
override CUDA_HOME  := $(if $(NVCC_PATH),$(patsubst %/bin/,%,$(dir $(realpath $(NVCC_PATH)))))
override CUDA_LIB   := $(firstword $(wildcard $(CUDA_HOME)/lib64 $(CUDA_HOME)/targets/x86_64-linux/lib) $(CUDA_HOME)/lib64)
# doctest, giflib, NCCL set up in the course (common/setup_deps.sh), found through an rpath ($ORIGIN)
override DEPS       := .deps/usr
override DEPS_LIB   := $(DEPS)/lib/x86_64-linux-gnu
override HAVE_GPU   := $(shell nvidia-smi -L >/dev/null 2>&1 && echo yes)
override ARCH_USED  := $(if $(filter auto,$(ARCH)),$(if $(HAVE_GPU),native,fat),$(ARCH))
# fat: machine code for each generation from Turing (nvcc 13's oldest) to Hopper, and PTX for newer.
override FAT_FLAGS  := $(foreach a,75 80 86 89 90,-gencode=arch=compute_$(a),code=sm_$(a)) -gencode=arch=compute_90,code=compute_90
override ARCH_FLAGS := $(if $(filter fat,$(ARCH_USED)),$(FAT_FLAGS),-arch=$(ARCH_USED))
override INCLUDES   := -Icommon -Icommon/baselines -I$(DEPS)/include
override NVCCFLAGS  := -std=c++17 -O3 -lineinfo $(ARCH_FLAGS) $(INCLUDES) -Xcompiler=-Wall,-Wextra,-Wno-unused-parameter -MMD -MP
override CXXFLAGS   := -std=c++17 -O2 -g -Wall -Wextra $(INCLUDES) -I$(CUDA_HOME)/include -MMD -MP
# Starters declare variables that the TODOs will use: silence "declared/set but never used" there.
override STARTER_FLAGS := -diag-suppress=177,550 -Xcompiler=-Wno-unused-variable,-Wno-unused-but-set-variable
override LDFLAGS    := $(ARCH_FLAGS) -Xlinker -rpath=$(CUDA_LIB)
override EX_LDFLAGS := $(LDFLAGS) -L$(DEPS_LIB) -Xlinker -rpath='$$ORIGIN/../../../$(DEPS_LIB)'
override Q          := $(if $(filter 1,$(V)),,@)
# build/flags: every object depends on it; only its rule rewrites it (make help, -n, doctor don't).
override FLAGS_TEXT  := $(NVCC_PATH) $(NVCCFLAGS) $(STARTER_FLAGS) $(CXXFLAGS) $(LDFLAGS) $(DEPS_LIB)
override FLAGS_STAMP := $(BUILD)/flags
override stale_flags := $(if $(subst x$(FLAGS_TEXT)x,,x$(file <$(FLAGS_STAMP))x),y)
override cannot_write = $(error make builds the course's programs in $(CURDIR)/$(BUILD)/ and cannot write there: copy the course into a folder you own (or make this one writable))
$(if $(BUILDING),$(if $(shell [ -e $(BUILD) ] || [ -w . ] && echo y),,$(cannot_write)))
$(if $(BUILDING),$(if $(stale_flags),$(if $(shell [ ! -e $(FLAGS_STAMP) ] || [ -w $(FLAGS_STAMP) ] && echo y),,$(error the compiler settings changed (ARCH, NVCC or the toolkit) but $(FLAGS_STAMP) cannot be rewritten, so the old programs would run: make this checkout writable, or keep the settings it was built with))))
$(FLAGS_STAMP): $(if $(stale_flags),FORCE)
	@mkdir -p $(@D) && printf '%s' $(call shell_quote,$(FLAGS_TEXT)) > $@
FORCE:
# ---- The course tool (common/course.cpp), built by the host compiler alone as make starts -------
override COURSE_TOOL := $(BUILD)/common/course
override TOOL_SOURCES := $(addprefix common/,course.cpp course_tests.cpp bad_input.cpp settings.cpp)
override TOOL_INPUTS := $(TOOL_SOURCES) $(addprefix common/,hints.h records.h json.h steps.h options.h output_file.h exit_codes.h require_gpu.h)
ifneq ($(shell [ -x $(COURSE_TOOL) ] || echo missing; find $(TOOL_INPUTS) -newer $(COURSE_TOOL) 2>/dev/null | head -n 1),)
  $(if $(shell [ -e $(BUILD) ] || [ -w . ] && echo y),,$(cannot_write))
  $(info $()  CXX   $(TOOL_SOURCES) (the course tool))
  override tool_log := $(shell mkdir -p $(BUILD)/common && $(CXX) -std=c++17 -O2 -Wall -Wextra -Icommon $(TOOL_SOURCES) -o $(COURSE_TOOL) 2>&1)
  $(if $(findstring error,$(tool_log)),$(error the course tool does not build: $(tool_log)),$(if $(tool_log),$(info $(tool_log))))
endif
# ---- An exercise's settings: NN_x/exercise.mk (make variables, each optional) --------------------
#   SUPPORT     its other sources (besides starter.cu, solution.cu, main.cpp, tests.cpp, answers.cpp)
#               in its program and tests; any other .cu or .cpp in the folder is named and ignored
#   USES        another exercise's .cu compiled into this one (10's: 08_tiled_matmul/solution.cu)
#   LIBS, CUDA_FLAGS  extra link flags (those of LIBRARY_SETUPS are set up first); extra nvcc flags
#   BASELINES   library baselines from common/baselines/ (each NAME.mk there says its LIBS)
#   SANITIZE_ARGS, _DEMO, _SKIP  make sanitize-NN's small options that reach every code path, a racy
#               demo racecheck must catch, test cases it leaves out (doctest wildcards)
#   PROFILE_ARGS, _COLUMNS, _LAUNCHES  make profile-NN's representative size, its own counters
#               ("header = ncu formula; ..."), the most kernel launches it profiles (default 64)
# Each is read into KEY.NN_x (a name no command line can set: it is refused first).
override KEYS := SUPPORT USES LIBS CUDA_FLAGS BASELINES SANITIZE_ARGS SANITIZE_DEMO SANITIZE_SKIP PROFILE_ARGS PROFILE_COLUMNS PROFILE_LAUNCHES
define LOAD
$(foreach k,$(KEYS),$(k) :=$(newline))PROFILE_LAUNCHES := 64
-include $(1)/exercise.mk
$(foreach k,$(KEYS),override $(k).$(1) := $$($(k))$(newline))
endef
# The libraries that need setting up before the first compile (common/setup_deps.sh): LIB=SET-UP.
override LIBRARY_SETUPS := -lgif=giflib -lnccl=nccl
ifeq ($(not_settings),)
  $(foreach f,$(wildcard common/baselines/*.mk),$(eval LIBS :=$(newline)include $(f)$(newline)override BASELINE_LIBS.$(basename $(notdir $(f))) := $$(LIBS)))
  $(foreach e,$(EXERCISES),$(eval $(call LOAD,$(e))))
endif
# ---- Every setting checked once, by the course tool, before anything is built -----------------
override settings_dir := $(shell mktemp -d 2>/dev/null || echo $(BUILD)/settings)
$(foreach s,$(SETTINGS),$(file >$(settings_dir)/$(s),$($(s))x))$(file >$(settings_dir)/_SETTINGS,$(SETTINGS)x)
$(foreach v,not_settings BUILDING EXERCISES NVCC_PATH ARCH_USED ARCH_FLAGS HAVE_GPU MAKELEVEL,$(file >$(settings_dir)/_$(v),$($(v))x))$(file >$(settings_dir)/_goals,$(or $(MAKECMDGOALS),$(.DEFAULT_GOAL))x)
$(foreach e,$(EXERCISES),$(file >$(settings_dir)/SUPPORT.$(e),$(SUPPORT.$(e))x)$(file >$(settings_dir)/USES.$(e),$(USES.$(e))x))
override settings_problem := $(shell $(COURSE_TOOL) settings $(call shell_quote,$(settings_dir)))
$(if $(settings_problem),$(error $(settings_problem)))
# ---- Per-exercise rules, from the folder's name: build/NN_x/{solution,starter,pristine}/{name,tests}
override f_of = $(word 2,$(subst /, ,$(1)))
override support_objs = $(patsubst %,$(BUILD)/$(1)/%.o,$(basename $(SUPPORT.$(1)) $(notdir $(wildcard $(1)/answers.cpp)))) \
  $(patsubst %.cu,$(BUILD)/$(1)/uses/%.o,$(USES.$(1))) $(patsubst %,$(BUILD)/common/baselines/%.o,$(BASELINES.$(1)))
override libs_of = $(LIBS.$(1)) $(foreach b,$(BASELINES.$(1)),$(BASELINE_LIBS.$(b)))
override setups_of = $(foreach l,$(call libs_of,$(1)),$(patsubst $(l)=%,$(BUILD)/deps-%.ok,$(filter $(l)=%,$(LIBRARY_SETUPS))))
override program = $(BUILD)/$(call folder_of,$(1))/$(2)/$(call name_of,$(call folder_of,$(1)))
override programs_of = $(filter $(BUILD)/$(1)/%,$(PROGRAMS))
override PROGRAMS := $(foreach e,$(EXERCISES),$(foreach v,solution starter pristine,$(BUILD)/$(e)/$(v)/$(call name_of,$(e)) $(BUILD)/$(e)/$(v)/tests))
override USES_OBJS := $(foreach e,$(EXERCISES),$(patsubst %.cu,$(BUILD)/$(e)/uses/%.o,$(USES.$(e))))
override COMMON_OBJ := $(BUILD)/common/l2_flush.o
# An object's folder (an exercise's, or common), and the set-ups its compile waits for.
override folder = $(firstword $(subst /, ,$(1)))
override waits = $(call setups_of,$(call folder,$(1))) $(if $(filter %tests %test_main,$(1)),$(BUILD)/deps-doctest.ok)
override define nvcc
@mkdir -p $(@D); echo "  NVCC  $<$(2)"
$(Q)$(NVCC_CMD) $(NVCCFLAGS) $(CUDA_FLAGS.$(1)) $(3) -I$(1) -c $< -o $@
endef
$(BUILD)/%/pristine.cu: %/solution.cu common/make_starter.awk
	@mkdir -p $(@D)
	$(Q)awk -f common/make_starter.awk $< > $@
$(BUILD)/%/pristine.o: $(BUILD)/%/pristine.cu $(FLAGS_STAMP) $$(wildcard $$*/exercise.mk) | $$(call waits,$$*)
	$(call nvcc,$*, (the untouched starter),$(STARTER_FLAGS))
$(BUILD)/%.o: %.cu $(FLAGS_STAMP) $$(wildcard $$(call folder,$$*)/exercise.mk) | $$(call waits,$$*)
	$(call nvcc,$(call folder,$*),,$(if $(filter %/starter,$*),$(STARTER_FLAGS)))
$(BUILD)/%.o: %.cpp $(FLAGS_STAMP) | $$(call waits,$$*)
	@mkdir -p $(@D); echo "  CXX   $<"
	$(Q)$(CXX) $(CXXFLAGS) -I$(call folder,$*) -c $< -o $@
$(USES_OBJS): $$(patsubst $(BUILD)/$$(call f_of,$$@)/uses/%.o,%.cu,$$@) $(FLAGS_STAMP) | $$(call waits,$$(call f_of,$$@))
	$(call nvcc,$(call f_of,$@), (for $(call f_of,$@)))
$(PROGRAMS): $(BUILD)/$$(call f_of,$$@)/$$(word 3,$$(subst /, ,$$@)).o $$(call support_objs,$$(call f_of,$$@)) $(COMMON_OBJ) \
             $$(if $$(filter tests,$$(@F)),$(BUILD)/$$(call f_of,$$@)/tests.o $(BUILD)/common/test_main.o,$(BUILD)/$$(call f_of,$$@)/main.o)
	@mkdir -p $(@D); echo "  LINK  $@"
	$(Q)$(NVCC_CMD) $(EX_LDFLAGS) $^ -o $@ $(call libs_of,$(call f_of,$@))
$(BUILD)/deps-%.ok: common/setup_deps.sh
	@mkdir -p $(@D) && NVCC=$(call shell_quote,$(NVCC)) bash common/setup_deps.sh $* && touch $@
# common/'s host tests, and ncu's CSV -> one table (make profile-NN).
override PROFILE_TOOL := $(BUILD)/common/profile_table
$(BUILD)/common/tests: $(BUILD)/common/tests.o $(BUILD)/common/test_main.o $(COMMON_OBJ)
	@mkdir -p $(@D); echo "  LINK  $@"
	$(Q)$(NVCC_CMD) $(LDFLAGS) $^ -o $@
$(PROFILE_TOOL): $(BUILD)/common/profile_table.o
	@mkdir -p $(@D); echo "  LINK  $@"
	$(Q)$(CXX) $^ -o $@
-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
# ---- The goals: NN is an exercise's number ------------------------------------------------------
.PHONY: help all check status sanitize doctor clean hint
override sanitize_spec = $(1) $(call program,$(2),solution) $(foreach k,ARGS DEMO SKIP,$(call shell_quote,$(SANITIZE_$(k).$(1))))
build-%: $$(call programs_of,$$(call folder_of,$$*)) ;
run-%: $$(call program,$$*,$(USE))
	@echo "== $(call folder_of,$*) ($(USE).cu) =="
	@$(COURSE_TOOL) run "$<"
bench-%: $$(call program,$$*,$(USE))
	@echo "== $(call folder_of,$*) benchmark ($(USE).cu) =="
	@$(COURSE_TOOL) run "$<" --bench
test-%: $$(dir $$(call program,$$*,$(USE)))tests
	@echo "== $(call folder_of,$*) tests ($(USE).cu) =="
	@$(COURSE_TOOL) run --timeout $(if $(filter starter,$(USE)),--record $(call folder_of,$*)) "$<"
sanitize-%: $$(call program,$$*,solution) $$(dir $$(call program,$$*,solution))tests
	@SANITIZE_JOBS=$(JOBS) bash common/sanitize.sh $(call sanitize_spec,$(call folder_of,$*),$*)
profile-%: $$(call program,$$*,$(USE)) $(PROFILE_TOOL)
	@echo "== $(call folder_of,$*) profile ($(USE).cu) =="
	@$(foreach k,ARGS COLUMNS LAUNCHES,PROFILE_$(k)=$(call shell_quote,$(PROFILE_$(k).$(call folder_of,$*)))) NCU=$(call shell_quote,$(NCU)) \
	  NVCC=$(call shell_quote,$(NVCC)) bash common/profile.sh $(call folder_of,$*) "$<" $(PROFILE_TOOL) $(COURSE_TOOL)
# make hint-NN: STEP, LEVEL and the progress folder reach the tool in a file (HINT_SETTINGS), one
# a line, never on a command line; bad input (no such exercise, step, level) stops make, one line.
override hint_goals := $(filter hint-%,$(MAKECMDGOALS))
override hint_file := $(if $(hint_goals),$(shell mktemp /tmp/course-hint.XXXXXX 2>/dev/null || mktemp 2>/dev/null))
$(if $(hint_goals),$(if $(filter 1,$(words $(hint_file))),$(file >$(hint_file),$(STEP)$(newline)$(LEVEL)$(newline)$(COURSE_PROGRESS_DIR)),$(error make hint-NN needs a temporary file and mktemp cannot make one)))
override hint_run = HINT_SETTINGS=$(call shell_quote,$(hint_file)) $(COURSE_TOOL) hint
override hint_refuse = $(if $(1),$(shell rm -f $(call shell_quote,$(hint_file)))$(error $(1)))
hint:
	$(error say which exercise's hint: make hint-NN (exercises: $(numbers)))
hint-%:
	$(call hint_refuse,$(shell $(hint_run) check $(call shell_quote,$*) $(EXERCISES) 2>&1))
	@$(hint_run) show $(call shell_quote,$*) $(EXERCISES); rc=$$?; \
	  $(if $(filter $@,$(lastword $(hint_goals))),rm -f $(call shell_quote,$(hint_file));) exit $$rc
all: $(PROGRAMS) $(BUILD)/common/tests $(PROFILE_TOOL)
check:  # everything built in parallel, then every suite in turn (one GPU, honest timings)
	@$(MAKE) --no-print-directory -j$(JOBS) all
	@$(COURSE_TOOL) check common $(EXERCISES) bad-input tool-tests
status:
	@$(COURSE_TOOL) status $(EXERCISES)
sanitize:  # every solution's runs in one parallel batch (common/sanitize.sh), once all is built
	@bash common/sanitize.sh --need-gpu || exit 2
	@$(MAKE) --no-print-directory -j$(JOBS) $(foreach n,$(numbers),$(call program,$(n),solution) $(dir $(call program,$(n),solution))tests)
	@SANITIZE_JOBS=$(JOBS) bash common/sanitize.sh $(foreach n,$(numbers),$(call sanitize_spec,$(call folder_of,$(n)),$(n)))
doctor:
	@NVCC=$(call shell_quote,$(NVCC)) ARCH=$(call shell_quote,$(ARCH_USED)) ARCH_FLAGS=$(call shell_quote,$(ARCH_FLAGS)) \
	  DEPS=$(call shell_quote,$(DEPS)) bash common/doctor.sh
clean:
	rm -rf $(BUILD)
help:
	$(info $(HELP))@:
# `make clean build-02` must not build while clean removes: one goal after another.
$(if $(filter clean,$(MAKECMDGOALS)),$(eval .NOTPARALLEL:))
