#!/usr/bin/env bash
# A guest that dies before mmbench started in it (here: a kernel told to
# run an init that does not exist panics at boot) is booted once more,
# said on stderr, and counted in meta.csv (vm_boot_attempts); dying again
# the same way, the run fails as before, with the panic as its reason.
. "$(dirname "$0")/../lib.sh"
vm=$TOP/tools/vm
t=$(tmpdir)
trap 'rm -rf "$t"' EXIT
need_lab "boot retry"
echo 'pageout -p instances=1 -p size_mb=4 -p duration_s=0.2 -i 1 -w 0' >"$t/suite"
timeout -k 5 900 "$vm/lab" --vm bookworm --suite "$t/suite" --out "$t/res" \
	--vm-append rdinit=/no-such-init --vm-boot-timeout 60 >"$t/out" 2>"$t/err"
rc=$?
check "the lab fails (rc=$rc)" [ $rc = 1 ]
check "one second boot, said once ($(grep -c 'booting it again' "$t/err"))" \
	eval '[ "$(grep -c "before mmbench started.*booting it again (attempt 2 of 2)" "$t/err")" = 1 ]'
dir=$(sed -n 's/^results: //p' "$t/out" | tail -n 1)
if [ -n "$dir" ] && [ -f "$dir/meta.csv" ]; then
	check "meta.csv: vm_boot_attempts 2" eval '[ "$("$MMBENCH" field --where key=vm_boot_attempts --last "$dir/meta.csv" value)" = 2 ]'
else
	check "meta.csv: vm_boot_attempts 2 (a run directory came back)" false
fi
finish
