# thp_storm's benchmark: `make bench-thp` alternates, in one invocation,
# 3 rounds of thp_storm (threads=1, size_mb=1024, the quick suite's size,
# -i 10) and tools/bench/ref_thpscale (a thpscale-style storm timed with
# gettimeofday around the first touch and the 2 MiB fill; 1 warm-up, 10
# measured), and prints per round both CoVs of fault_both_mean, their ratio
# and the minimum detectable change at 10 iterations. Target: thp_storm's
# CoV pooled over the rounds at most half of the reference's and under 10%
# (exit 1 when missed).
BENCH_TARGETS += bench-thp

.PHONY: bench-thp
bench-thp: bench/mmbench tools/bench/ref_thpscale tools/bench/floor
	@workloads/thp_storm-bench.sh
