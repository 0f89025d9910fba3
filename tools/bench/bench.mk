# Harness overhead benchmark (make bench-overhead).
tools/bench/overhead: tools/bench/overhead.c $(filter-out bench/main.o,$(MMBENCH_OBJS))
	$(CC) $(CFLAGS) -Ibench -Ibench/results -o $@ $^ $(MMBENCH_LIBS)
CLEAN_FILES += tools/bench/overhead
BENCH_TARGETS += bench-overhead

.PHONY: bench-overhead
bench-overhead: tools/bench/overhead bench/mmbench
	@d=$$(mktemp -d) && \
	bench/mmbench run pageout -p duration_s=2 -p size_mb=64 -i 5 -w 1 -o $$d/run >/dev/null 2>&1 && \
	tools/bench/overhead $$d/run/results.csv; rc=$$?; rm -rf $$d; exit $$rc

# Reference programs written from EXPERIMENTS.md's descriptions of the
# posted experiments (never from the original tools' code), and the
# benchmarks that hold mmbench against them in one alternating invocation.
tools/bench/ref_pageout: tools/bench/ref_pageout.c
	$(CC) $(CFLAGS) -o $@ $<
tools/bench/ref_thpscale: tools/bench/ref_thpscale.c
	$(CC) $(CFLAGS) -o $@ $< -lpthread
# The machine's own spread, timed beside both benchmarks' arms.
tools/bench/floor: tools/bench/floor.c
	$(CC) $(CFLAGS) -o $@ $<
ALL_TARGETS += tools/bench/ref_pageout tools/bench/ref_thpscale tools/bench/floor
CLEAN_FILES += tools/bench/ref_pageout tools/bench/ref_thpscale tools/bench/floor
BENCH_TARGETS += bench-pageout

.PHONY: bench-pageout
bench-pageout: tools/bench/ref_pageout tools/bench/floor bench/mmbench
	@tools/bench/pageout-bench.sh

# Precision on demand against a fixed iteration count (make bench-precision).
BENCH_TARGETS += bench-precision
.PHONY: bench-precision
bench-precision: bench/mmbench
	@tools/bench/precision-bench.sh

# The nightly's false alarms on an unchanged kernel (real consecutive runs
# of the quick suite here) and its detection of a known step (synthetic
# histories with this machine's between-run noise): tools/bench/alarms.
# make bench-alarms NIGHTS=20 SEEDS=500
BENCH_TARGETS += bench-alarms

.PHONY: bench-alarms
bench-alarms: bench/mmbench tools/mmtrend/mmchange tools/mmtrend/mmhistory tools/mmtrend/mmtrend \
		tools/mmcompare/mmcompare tools/mmcompare/mmplot
	@tools/bench/alarms $(if $(NIGHTS),--nights $(NIGHTS)) $(if $(SEEDS),--seeds $(SEEDS))
