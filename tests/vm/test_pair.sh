#!/usr/bin/env bash
# The VM lab with real guests (QEMU, Debian bookworm's 6.1): the progress a host
# sees while a guest runs, and a pair whose second guest dies (the
# comparison cannot be made, and the lab says why). The pair that compares
# is in test_lab.sh (its "pair" checks).
. "$(dirname "$0")/../lib.sh"
vm=$TOP/tools/vm
t=$(tmpdir)
pg=
cleanup() {
	[ -n "$pg" ] && kill -TERM -- "-$pg" 2>/dev/null
	rm -rf "$t"
}
trap cleanup EXIT
export MMBENCH

kd=$("$vm/fetch-kernel" bookworm 2>"$t/err") || {
	fail "pair: bookworm kernel" "$(tail -3 "$t/err")"; finish; }

# ---- progress while the guest runs. One node and one vCPU: instances=1,cpus
# is one case in the guest and two on a host with more CPUs, so N must come
# from the guest's own plan. The first case skips on 6.1 (no mTHP) and its
# case string has a comma inside quotes. The post hook keeps the guest up
# after mmbench ends: every line seen before the kill was shown while the
# guest ran.
cat >"$t/plan" <<'EOT'
thp_storm -p mthp=64kB,512kB -p size_mb=64 -p threads=1 -i 1 -w 0
pageout -p size_mb=8 -p duration_s=0.2 -p instances=1,cpus -i 1 -w 0
EOT
host_n=$(( $("$MMBENCH" suite "$t/plan" --dry-run | wc -l) - 1 ))
echo 'sleep 100000' >"$t/hang"
setsid "$TOP/run.sh" --vm bookworm --vm-nodes 1 --suite "$t/plan" --out "$t/res" \
	--vm-hook-post "$t/hang" --vm-poweroff-timeout 900 >"$t/out" 2>"$t/err" </dev/null &
pg=$!
# Until the last case's line shows, or the lab ends (tail follows it);
# the limit only guards against a hang.
timeout 300 grep -q -m1 '^\[2/' <(tail -n +1 -f --pid="$pg" "$t/err")
if kill -0 "$pg" 2>/dev/null && ! grep -q '^lab: .*: boot .*; ' "$t/err"; then
	pass "progress: shown while the guest still runs (its QEMU not yet ended)"
else
	fail "progress: while the guest runs" "the lab had ended or the guest had finished: $(tail -5 "$t/err")"
fi
kill -TERM -- "-$pg" 2>/dev/null
wait "$pg" 2>/dev/null
pg=
grep -q '^lab: mmbench started in the guest: 2 case(s) planned$' "$t/err" &&
	grep -qx '\[1/2\] thp_storm .*mthp=64kB,512kB;.*threads=1' "$t/err" &&
	grep -q '^\[1/2\] skip: thp_storm .*mthp=64kB,512kB;.*: .*' "$t/err" &&
	grep -q '^\[2/2 [0-9][0-9]:[0-9][0-9] elapsed, ETA [0-9][0-9]:[0-9][0-9]\] pageout .*instances=1;' "$t/err" &&
	! grep -q '^\[[0-9]*/[013-9]' "$t/err" &&
	pass "progress: case n/N with N=2 from the guest's plan (the host's expansion has $host_n), the case, an ETA" ||
	fail "progress: lines" "$(grep -e '^\[' -e 'planned' "$t/err")"

# ---- a pair whose second guest panics at init: the first run's results
# stay, no comparison is made, the lab says which kernel and why, exit 1.
# The second kernel is the same bookworm given by path; the hook panics
# the guest whose kernel came by path (its arguments name it).
cat >"$t/panic-path" <<'EOT'
grep -q '^vm_kernel=/' /etc/mmbench/args && echo c >/proc/sysrq-trigger
EOT
# (a suite-wide --probe line: the guest's mmbench counts the calls)
printf '%s\n' '--probe try_to_unmap_one' \
	'pageout -p size_mb=8 -p duration_s=0.2 -p instances=1 -i 3 -w 0' >"$t/fast"
rel=$(cat "$kd/release")
timeout -k 5 300 "$TOP/run.sh" --vm bookworm --vm "$kd/vmlinuz" --vm-module-dir "$kd/lib/modules/$rel" \
	--label base --label patched --suite "$t/fast" --out "$t/res2" \
	--vm-hook-pre "$t/panic-path" >"$t/out" 2>"$t/err"
rc=$?
d=$(sed -n 's/^results: //p' "$t/out" | head -n1)
[ $rc = 1 ] && [ -s "$d/results.csv" ] && [[ $d == "$t/res2/base/"* ]] &&
	pass "pair, second guest dead: exit 1, the first run's results kept" ||
	fail "pair, second guest dead: exit and results" "rc=$rc d=$d $(tail -5 "$t/err")"
[ "$(metric_vals "$d/results.csv" calls_per_page_out:try_to_unmap_one 2>/dev/null | wc -l)" = 3 ] &&
	pass "suite --probe line: the guest counted try_to_unmap_one in every iteration" ||
	fail "suite --probe line" "$(grep -c calls_per "$d/results.csv" 2>/dev/null) calls rows; $(grep -i probe "$d/run.log" 2>/dev/null | head -3)"
grep -qF "lab: no comparison for $kd/vmlinuz: it has no results.csv in $t/res2/patched/" "$t/err" &&
	grep -q ': the guest failed (panic: ' "$t/err" && ! grep -q '^report: ' "$t/out" &&
	pass "pair, second guest dead: 'no comparison', naming the kernel and the panic" ||
	fail "pair, second guest dead: message" "$(grep -i compar "$t/err" "$t/out")"
finish
