# tools/selfbench: the self-benchmarks, mmbench and its tools measured
# against their own targets (`make bench` lists them). Each prints the
# machine's load beside its figures; none is run by `make check`.
SELFBENCH := tools/selfbench

# thp_storm's benchmark: `make bench-thp` alternates, in one invocation,
# 3 rounds of thp_storm (threads=1, size_mb=1024, the quick suite's size,
# -i 10) and tools/selfbench/ref_thpscale (a thpscale-style storm timed with
# gettimeofday around the first touch and the 2 MiB fill; 1 warm-up, 10
# measured), and prints per round both CoVs of fault_both_mean, their ratio
# and the minimum detectable change at 10 iterations. Target: thp_storm's
# CoV pooled over the rounds at most half of the reference's and under 10%
# (exit 1 when missed).
BENCH_TARGETS += bench-thp

.PHONY: bench-thp
bench-thp: bench/mmbench $(SELFBENCH)/ref_thpscale $(SELFBENCH)/floor
	@$(SELFBENCH)/thp_storm-bench.sh

# Harness overhead benchmark (make bench-overhead).
$(SELFBENCH)/overhead: $(SELFBENCH)/overhead.c $(filter-out bench/main.o,$(MMBENCH_OBJS))
	$(CC) $(CFLAGS) -Ibench -Ibench/results -o $@ $^ $(MMBENCH_LIBS)
CLEAN_FILES += $(SELFBENCH)/overhead
BENCH_TARGETS += bench-overhead

.PHONY: bench-overhead
bench-overhead: $(SELFBENCH)/overhead bench/mmbench
	@d=$$(mktemp -d) && \
	bench/mmbench run pageout -p duration_s=2 -p size_mb=64 -i 5 -w 1 -o $$d/run >/dev/null 2>&1 && \
	$(SELFBENCH)/overhead $$d/run/results.csv; rc=$$?; rm -rf $$d; exit $$rc

# Reference programs written from EXPERIMENTS.md's descriptions of the
# posted experiments (never from the original tools' code), and the
# benchmarks that hold mmbench against them in one alternating invocation.
$(SELFBENCH)/ref_pageout: $(SELFBENCH)/ref_pageout.c
	$(CC) $(CFLAGS) -o $@ $<
$(SELFBENCH)/ref_thpscale: $(SELFBENCH)/ref_thpscale.c
	$(CC) $(CFLAGS) -o $@ $< -lpthread
# The machine's own spread, timed beside both benchmarks' arms.
$(SELFBENCH)/floor: $(SELFBENCH)/floor.c
	$(CC) $(CFLAGS) -o $@ $<
ALL_TARGETS += $(SELFBENCH)/ref_pageout $(SELFBENCH)/ref_thpscale $(SELFBENCH)/floor
CLEAN_FILES += $(SELFBENCH)/ref_pageout $(SELFBENCH)/ref_thpscale $(SELFBENCH)/floor
BENCH_TARGETS += bench-pageout

.PHONY: bench-pageout
bench-pageout: $(SELFBENCH)/ref_pageout $(SELFBENCH)/floor bench/mmbench
	@$(SELFBENCH)/pageout-bench.sh

# mdc: the MDC formula (bench/results/mdc.h) for scripts: lib.sh asks it, so the
# benchmarks that source lib.sh need it built
bench-pageout bench-thp: tools/mmcompare/mdc

# Precision on demand against a fixed iteration count (make bench-precision).
BENCH_TARGETS += bench-precision
.PHONY: bench-precision
bench-precision: bench/mmbench
	@$(SELFBENCH)/precision-bench.sh

# The run as the unit on the host (issue 27): ./run.sh --runs 3 twice (an
# A/A) and once beside a busy loop on each CPU, compared; targets: the A/A
# has no timed metric significant, the loaded side's pageout loops_per_s is
# worse (tools/selfbench/runs-bench.sh; BENCH_RUNS, BENCH_SUITE,
# BENCH_ITERATIONS).
BENCH_TARGETS += bench-runs

.PHONY: bench-runs
bench-runs: bench/mmbench tools/mmcompare/mmcompare tools/mmcompare/mmplot
	@$(SELFBENCH)/runs-bench.sh

# The nightly's false alarms on an unchanged kernel (real consecutive runs
# of the quick suite here) and its detection of a known step (synthetic
# histories with this machine's between-run noise): tools/selfbench/alarms.
# make bench-alarms NIGHTS=20 SEEDS=500 RUNS=2
BENCH_TARGETS += bench-alarms

.PHONY: bench-alarms
bench-alarms: bench/mmbench tools/mmtrend/mmchange tools/mmtrend/mmhistory tools/mmtrend/mmtrend \
		tools/mmcompare/mmcompare tools/mmcompare/mmplot
	@$(SELFBENCH)/alarms $(if $(NIGHTS),--nights $(NIGHTS)) $(if $(RUNS),--runs $(RUNS)) \
		$(if $(SEEDS),--seeds $(SEEDS))

# Compare two synthetic result sets of 1,000,000 rows each; report wall
# time and peak RSS against the targets (2 s, 300 MB).
BENCH_TARGETS += bench-compare
.PHONY: bench-compare
bench-compare: tools/mmcompare/mmcompare tools/mmcompare/gen_synth tools/mmcompare/runstat
	@$(SELFBENCH)/compare-bench.sh

# What --profile costs the measured phase: pageout's loops/s without and
# with sampling, alternating (profile-bench.sh; target < 5%).
BENCH_TARGETS += bench-profile
.PHONY: bench-profile
bench-profile: bench/mmbench
	@$(SELFBENCH)/profile-bench.sh

# The VM lab timed itself (boot, first result row, overhead) against its
# targets with a cached bookworm kernel; nothing to compile.
BENCH_TARGETS += bench-vm

.PHONY: bench-vm
bench-vm: bench/mmbench
	@tools/deps.sh vm
	@$(SELFBENCH)/vm-bench.sh

# How often the guest of the case that once hung make check dies
# (issue 29): BENCH_VM_HANG_RUNS boots (default 20), the retries counted.
BENCH_TARGETS += bench-vm-hang

.PHONY: bench-vm-hang
bench-vm-hang: bench/mmbench
	@tools/deps.sh vm
	@$(SELFBENCH)/vm-hang-bench.sh
