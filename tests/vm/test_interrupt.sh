#!/usr/bin/env bash
# A VM lab run stopped by SIGTERM (as timeout(1), systemd or a batch
# scheduler stop it) keeps every row the guest had sent: its run directory
# exists with the first case's rows, meta.csv says interrupted, cases.csv
# names the case that was running, the guest's QEMU is gone, and the lab
# exits 128+15.
. "$(dirname "$0")/../lib.sh"
vm=$TOP/tools/vm
t=$(tmpdir)
sid=
cleanup() {
	[ -n "$sid" ] && pkill -KILL -s "$sid" 2>/dev/null
	rm -rf "$t"
}
trap cleanup EXIT
export MMBENCH

if ! [ -x "$vm/lab" ] || ! command -v qemu-system-x86_64 >/dev/null; then
	skip "lab interrupted" "no VM lab (tools/vm/lab, qemu-system-x86_64)"
	finish
fi
# The second case runs for an hour unless stopped.
cat >"$t/suite" <<'EOT'
migrate_ad -p size_mb=16 -i 2 -w 0
mlock_mix -p threads=1 -p size_mb=2 -p mlock_pct=10 -p duration_s=3600 -i 1 -w 0
EOT
: >"$t/err"
setsid "$vm/lab" --vm bookworm --suite "$t/suite" --out "$t/res" --timeout 7200 \
	>"$t/out" 2>"$t/err" </dev/null &
pid=$!
sid=$pid
# Until the second case has started (or the lab ended); the limit only
# guards against a hang, it decides nothing.
timeout 900 grep -q -m1 '^\[2/2' <(tail -n +1 -f --pid="$pid" "$t/err")
if ! kill -0 "$pid" 2>/dev/null; then
	fail "lab interrupted" "the lab ended before its second case: $(tail -n 5 "$t/err")"
	finish
fi
kill -TERM "$pid"
wait "$pid"
rc=$?
check "the lab exits 128+15 (got $rc)" [ $rc -eq 143 ]
dir=$(sed -n 's/^results: //p' "$t/out" | tail -n 1)
check "the run directory was brought home" [ -d "$dir" ]
check "the first case's rows are in results.csv" \
	eval '[ "$("$MMBENCH" field --where metric=referenced_after_migrate_pct "$dir/results.csv" workload | grep -cx migrate_ad)" -eq 2 ]'
check "meta.csv says the run was interrupted by SIGTERM" \
	eval 'grep -q "^vm_status,interrupted$" "$dir/meta.csv" && grep -q "^interrupted,SIGTERM$" "$dir/meta.csv"'
check "cases.csv: the first case passed, the running one is marked interrupted" \
	eval 'grep -q ",migrate_ad,.*,pass," "$dir/cases.csv" &&
	grep -q ",mlock_mix,.*,fail,\"\\?the run was interrupted during this case: interrupted: the lab was stopped by SIGTERM" "$dir/cases.csv"'
# (the limit is a hang guard: the lab waits for its QEMU before it exits)
wait_until 30 eval '! pgrep -s "$sid" >/dev/null'
check "no QEMU (nor anything else of the lab) is left running$(pgrep -s "$sid" -a | head -3 | sed 's/^/; left: /')" \
	eval '! pgrep -s "$sid" >/dev/null'
finish
