# mmbench on LAVA (tools/lava/): shell tools, nothing to compile.
# tests/lava/test_lava.sh runs against a real local LAVA instance
# (tools/lava/instance: packages, PostgreSQL, lava-server, two workers,
# QEMU guests under TCG) that it starts and stops itself. `make check` runs
# it last (tests/run's late list; MMBENCH_LAVA_TEST=1), after tests/prepare
# installed LAVA's packages in the background of the light tests (5 min on
# a fresh machine); `make check-lava` runs tests/lava/ alone; `make
# check-quick` leaves it out (a skip). Timing: the packages 617 s at
# nice 19 beside the light tests at a load of 16-18; then `make
# check-lava` 923 s at a load of 15-20 (the instance up 253 s, the first
# job 131 s). Figures: tests/README.md.
.PHONY: check-lava
check-lava: bench/mmbench tools/mmcompare/mmcompare
	@tools/deps.sh build vm
	@MMBENCH_LAVA_TEST=1 tests/run lava/
