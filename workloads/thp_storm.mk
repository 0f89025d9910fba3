# thp_storm's benchmark: `make bench-thp` runs the quick suite's thp_storm
# line with 10 measured iterations and reports the coefficient of variation
# of fault_both_mean and pct_huge per thread count. Target: CoV of
# fault_both_mean at 1 thread under 5% (exit 1 when missed).
BENCH_TARGETS += bench-thp

.PHONY: bench-thp
bench-thp: bench/mmbench
	@workloads/thp_storm-bench.sh
