#!/usr/bin/env bash
# The nightly with `vm = bookworm`: the suite runs inside the VM lab's guest
# (Debian 6.1, two emulated nodes), history.csv records the guest's kernel
# and the run directory the lab wrote, and the nightly's facts join that
# run's meta.csv. Then a guest whose kernel panics in the middle of a case:
# the night is failed and its reason names the case (from the lab).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"
d=$(tmpdir)
trap 'rm -rf "$d"' EXIT
unset MMBENCH_RESULTS
kd=$("$TOP/tools/vm/fetch-kernel" bookworm 2>"$d/err") || {
	fail "nightly vm: bookworm kernel" "$(tail -3 "$d/err")"; finish; }
rel=$(cat "$kd/release")

echo "pageout -p size_mb=8 -p duration_s=0.2 -p instances=1 -i 3 -w 0" >"$d/tiny.suite"
write_conf "$d" <<'EOF2'
trends = no
compare_plots = no
vm = bookworm
EOF2
sed -i 's/^suite = quick/suite = tiny.suite/' "$d/n.conf"

# timeout(1) only guards against a hang: a guest under TCG on a loaded
# machine may take many times its usual 45 s.
timeout -k 5 1800 "$NIGHTLY" "$d/n.conf" >"$d/out" 2>&1
rc=$?
check "vm: the night is ok (exit $rc)" test "$rc" -eq 0
row=$("$MMHISTORY" select "$d/res/history.csv" --fields status,kernel,label,run_dir | sed -n 1p)
run=$d/res/$(cut -f4 <<<"$row")
check "vm: history has the guest's kernel and label ($row)" \
	grep -q "^ok	$rel	$rel	$rel/" <<<"$row"
check "vm: the run directory is the lab's, with rows from the guest" \
	test "$("$MMBENCH" field --where kernel="$rel" "$run/results.csv" value 2>/dev/null | wc -l)" -gt 0
check "vm: the nightly's facts are in the run's meta.csv" \
	test -n "$("$MMHISTORY" meta-get "$run/meta.csv" nightly_loadavg)"
check "vm: meta.csv says the run was in QEMU" \
	test "$("$MMHISTORY" meta-get "$run/meta.csv" vm)" = qemu

# A kernel panic 2 s into the second case.
echo "pageout -p size_mb=8 -p duration_s=0.2,60 -p instances=1 -i 1 -w 0" >"$d/tiny.suite"
echo "vm_args = --vm-hook-pre $TOP/tests/vm/panic-second-case" >>"$d/n.conf"
timeout -k 5 1800 "$NIGHTLY" "$d/n.conf" >"$d/out2" 2>&1
rc=$?
check "vm panic: the night failed (exit $rc)" test "$rc" -eq 1
row=$("$MMHISTORY" select "$d/res/history.csv" --fields status,reason | sed -n 2p)
check "vm panic: the reason is the panic and the case it hit ($row)" \
	grep -Eq "^failed	a case failed or the guest failed .*: panic: .*Kernel panic.*during the case pageout \[.*duration_s=60;" <<<"$row"
finish
