# The kernel pair tests (tests/kbuild/test_*, the pairs gated by
# MMBENCH_KBUILD_TEST): a base and a patched kernel built from Debian's
# linux-source-6.12 and booted in the VM lab: the A/D-bits pair
# (test_kbuild_pair.sh) and the compaction pair
# (test_kbuild_compaction_pair.sh) share one tree and its base objects, so
# a fresh machine compiles one kernel and two incremental patched sides.
# `make check` and `make check-kbuild` run both. `make check` runs them last
# (tests/run's late list), after tests/prepare built the pairs in the
# background of the light tests; `make check-kbuild` runs the kbuild tests
# alone. Timing: the first, cold build of the 6.1 pair took 12 min of the
# test's 14.4 on an idle 2-CPU machine; a pair whose inputs (tree, patches,
# fragments, compiler, tools/kbuild) did not change is reused from
# ~/.cache/mmbench/kbuild and the test then takes about 2 minutes (its two
# guests). At a load of 14-18 (a shared machine) the cold build managed
# 11-12 files a minute: the build, not the tests, decides whether a whole
# `make check` fits. Figures of a whole `make check`: tests/README.md.
.PHONY: check-kbuild
check-kbuild: bench/mmbench tools/mmcompare/mmcompare
	@tools/deps.sh build vm kbuild-test
	@MMBENCH_KBUILD_TEST=all tests/run kbuild/
