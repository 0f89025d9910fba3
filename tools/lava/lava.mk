# mmbench on LAVA (tools/lava/): shell tools, nothing to compile.
# `make check-lava` runs tests/lava/ against a real local LAVA instance
# (tools/lava/instance: packages, PostgreSQL, lava-server, two workers,
# QEMU guests under TCG). It does not fit `make check`'s 20-minute budget on
# a fresh machine (installing LAVA alone took 5 min here), so CI runs it as
# its own step; in `make check` the end-to-end test is a skip.
.PHONY: check-lava
check-lava: bench/mmbench tools/mmcompare/mmcompare
	@tools/deps.sh build vm
	@MMBENCH_LAVA_TEST=1 tests/run lava/
