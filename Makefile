# mmbench build. `make` builds everything; `make check` installs missing
# test dependencies (tools/deps.sh), builds, and runs every test (tests/run),
# the LAVA end-to-end test and the kernel pairs included; `make check-quick`
# is the inner loop: the same without those (they are skips there).
# `make install` / `make uninstall` (PREFIX, DESTDIR) and `make man`, the
# manual pages they install: tools/install.mk, tools/docs.mk.
# Every area adds its own rules in a *.mk fragment and hooks them in through
# ALL_TARGETS (built by `make`), CHECK_DEPS (built before the tests) and
# BENCH_TARGETS (listed by `make bench`).

.DELETE_ON_ERROR:
.SUFFIXES:

CC ?= cc
# gnu11: C11 plus the GNU/Linux interfaces (madvise, sched_setaffinity, ...).
CFLAGS ?= -O2 -g
CFLAGS += -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE
# snprintf truncation of paths and messages is deliberate and bounded.
CFLAGS += -Wno-format-truncation
# Collect header dependencies so a header change rebuilds its users.
CFLAGS += -MMD -MP
# Tests also build the code with AddressSanitizer and UBSan; abort on the
# first UB report so a test cannot pass over it.
SAN_CFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=undefined

ALL_TARGETS :=
CHECK_DEPS :=
BENCH_TARGETS :=
CLEAN_FILES :=

.PHONY: all check check-quick deps bench clean
all: build-all

include $(wildcard bench/*.mk workloads/*.mk tools/*.mk tools/*/*.mk tests/*.mk)

.PHONY: build-all
build-all: $(ALL_TARGETS)

deps:
	@tools/deps.sh all

# The whole test suite, what CI runs (.ci/run); one tests/run, whose last
# line is "N passed, N failed, N skipped". The late tests (a kernel pair
# built from a patch and booted, LAVA end to end on a local instance) are
# gated on; tests/prepare installs LAVA's packages and builds the pairs in
# the background of the light tests (tests/run: TEST_PREPARE). Timings in
# tests/README.md ("Which target").
# The build uses every CPU (the ASan builds of the tests are minutes on
# one CPU of a loaded 2-CPU machine).
check: deps
	@$(MAKE) --no-print-directory -j$$(nproc) build-all $(CHECK_DEPS)
	@MMBENCH_KBUILD_TEST=1 MMBENCH_LAVA_TEST=1 TEST_PREPARE=tests/prepare tests/run

# The inner loop: every test but the late ones (skips here).
check-quick: deps
	@$(MAKE) --no-print-directory -j$$(nproc) build-all $(CHECK_DEPS)
	@MMBENCH_KBUILD_TEST=0 MMBENCH_LAVA_TEST=0 tests/run

bench:
	@echo "benchmarks: $(BENCH_TARGETS)"

clean:
	rm -f $(CLEAN_FILES) $(shell find bench workloads tools tests -name '*.o' -o -name '*.d' 2>/dev/null)
