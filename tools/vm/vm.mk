# The VM lab (tools/vm/): shell tools, nothing to compile. `make bench-vm`
# times the lab itself (boot, first result row, overhead) against its
# targets with a cached bookworm kernel.
BENCH_TARGETS += bench-vm

.PHONY: bench-vm
bench-vm: bench/mmbench
	@tools/deps.sh vm
	@tools/vm/bench-vm
