#!/usr/bin/env bash
# mmcompare statistics: Welch's t-test against independently computed
# values, summaries, orientation, significance, Benjamini-Hochberg's adjusted
# p on known numbers (C unit test under ASan/UBSan).
. "$(dirname "$0")/../lib.sh"
bin=$TOP/tests/compare/stats_unit.asan
if [ ! -x "$bin" ]; then
	fail "stats_unit" "$bin not built (make tests/compare/stats_unit.asan)"
	finish
fi
out=$("$bin" 2>&1)
rc=$?
echo "$out"
if [ $rc -ne 0 ] && ! grep -q '^FAIL: ' <<<"$out"; then
	fail "stats_unit" "exited $rc: $(tail -n 3 <<<"$out" | tr '\n' ' ')"
fi
grep -q '^FAIL: ' <<<"$out" && exit 1
finish
