#!/usr/bin/env bash
# A guest that dies of the emulator's fault during a case (here: it goes
# silent in the middle of its second case, in its first boot only:
# tests/vm/silent-second-case) is run once more in a fresh guest: the lab
# says so on stderr and passes; the run directory is the second guest's,
# whose cases.csv row of that case says it was run again and why, meta.csv
# names the case (vm_retried_case, vm_retry_reason, vm_boot_attempts 2),
# and first-guest/ keeps the first guest's record (its failed cases.csv
# row, its state in vm-hang.txt). The test's RERUN line is counted by
# tests/run. A panic is the kernel's result and is not retried
# (tests/vm/test_lab.sh, panic).
# test-timeout: 1200
. "$(dirname "$0")/../lib.sh"
vm=$TOP/tools/vm
t=$(tmpdir)
trap 'rm -rf "$t"' EXIT
need_lab "case retry"
echo 'pageout -p instances=1 -p size_mb=8 -p duration_s=0.2,5 -i 1 -w 0' >"$t/suite"
timeout -k 5 1000 "$vm/lab" --vm bookworm --suite "$t/suite" --out "$t/res" \
	--vm-hook-pre "$TOP/tests/vm/silent-second-case" --vm-idle-timeout 45 >"$t/out" 2>"$t/err"
rc=$?
lab_rerun "case retry: the silent guest" "$t/err"
check "the lab passes after the retry (rc=$rc; $(tail -n 2 "$t/err" | paste -sd'|'))" [ $rc = 0 ]
check "one retry said, naming the case ($(grep -c 'fresh guest' "$t/err"))" eval \
	'[ "$(grep -c "failed (idle-timeout: .*during the case pageout \[.*duration_s=5;.*running the suite again in a fresh guest (attempt 2 of 2)" "$t/err")" = 1 ]'
dir=$(sed -n 's/^results: //p' "$t/out" | tail -n 1)
if [ -z "$dir" ] || [ ! -f "$dir/meta.csv" ]; then
	fail "a run directory came back" "$(tail -n 5 "$t/err")"
	finish
fi
meta() { "$MMBENCH" field --where key="$1" --last "$dir/meta.csv" value; }
check "meta.csv: vm_boot_attempts 2, vm_status ok ($(meta vm_boot_attempts), $(meta vm_status))" \
	eval '[ "$(meta vm_boot_attempts)" = 2 ] && [ "$(meta vm_status)" = ok ]'
check "meta.csv: vm_retried_case names the case ($(meta vm_retried_case))" \
	eval '[[ $(meta vm_retried_case) == "pageout ["*"duration_s=5;"*"]" ]]'
check "meta.csv: vm_retry_reason is the silence ($(meta vm_retry_reason | cut -c1-60))" \
	eval '[[ $(meta vm_retry_reason) == "idle-timeout: the guest sent no results for 45s"* ]]'
rows=$("$MMBENCH" field "$dir/cases.csv" case status reason)
check "cases.csv: both cases passed in the second guest ($(wc -l <<<"$rows") rows)" \
	eval '[ "$(grep -c "	pass	" <<<"$rows")" = 2 ] && [ "$(wc -l <<<"$rows")" = 2 ]'
check "cases.csv: the retried case's row says it was run again, and why" \
	grep -q "duration_s=5;.*	pass	run again in a fresh guest (boot 2 of 2): the first guest died during this case: idle-timeout: .*(its record: first-guest/)" <<<"$rows"
check "cases.csv: the other case's row is unchanged (empty reason)" \
	grep -q "duration_s=0.2;.*	pass	$" <<<"$rows"
out=$("$MMBENCH" summary "$dir" 2>&1)
src=$?
check "mmbench summary reads the rewritten cases.csv (rc $src)" \
	eval '[ $src = 0 ] && ! grep -q "cases.csv:[0-9]" <<<"$out"'
f=$dir/first-guest
check "first-guest/cases.csv: the case the first guest died in, failed" \
	grep -q "duration_s=5;.*,fail,the guest died during this case: idle-timeout" "$f/cases.csv"
check "first-guest/: the first guest's state (vm-hang.txt) and console" \
	test -s "$f/vm-hang.txt" -a -s "$f/vm-console.log"
finish
