#!/usr/bin/env bash
# How often a TCG guest dies in the case that once hung `make check` (make
# bench-vm-hang): a bookworm guest running
#   migrate_ad -p size_mb=64 -p thp=on -p method=mbind,migrate_pages -i 1 -w 0
# under --probe __x64_sys_move_pages, booted RUNS times (env
# BENCH_VM_HANG_RUNS, default 20), one boot after another. Per boot: the
# lab's exit, vm_status, whether the lab ran the suite again in a fresh
# guest (vm_retried_case, vm_retry_reason) and the 1-minute load average.
# Ends with the counts. Exit 0 when every boot ended with results (a
# retried one included), 1 otherwise.
set -u
vm_prog=bench-vm-hang
. "$(dirname "$0")/../vm/lib.sh"

runs=${BENCH_VM_HANG_RUNS:-20}
[[ $runs =~ ^[1-9][0-9]*$ ]] || vm_usage_die "BENCH_VM_HANG_RUNS='$runs' is not a positive integer"
t=$(mktemp -d "${TMPDIR:-/tmp}/mmbench-bench-vm-hang.XXXXXX") || exit 1
trap 'rm -rf "$t"' EXIT
echo "migrate_ad -p size_mb=64 -p thp=on -p method=mbind,migrate_pages -i 1 -w 0" >"$t/suite"
"$VM_DIR/fetch-kernel" bookworm >/dev/null || vm_die "no bookworm kernel"
mmbench=$VM_TOP/bench/mmbench
meta() { "$mmbench" field --last --where key="$1" "$2/meta.csv" value 2>/dev/null; }

printf '%-4s %4s %-14s %-8s %7s %s\n' run exit vm_status retried load retry_reason
ok=0 retried=0 failed=0
for ((i = 1; i <= runs; i++)); do
	load=$(cut -d' ' -f1 /proc/loadavg)
	"$VM_TOP/run.sh" --vm bookworm --suite "$t/suite" --out "$t/res" --timeout 300 \
		--probe __x64_sys_move_pages >"$t/out" 2>"$t/err"
	rc=$?
	dir=$(sed -n 's/^results: //p' "$t/out" | tail -n1)
	st=- rc_case=- why=
	if [ -n "$dir" ] && [ -f "$dir/meta.csv" ]; then
		st=$(meta vm_status "$dir")
		rc_case=$(meta vm_retried_case "$dir")
		why=$(meta vm_retry_reason "$dir")
	fi
	printf '%-4d %4d %-14s %-8s %7s %s\n' "$i" "$rc" "${st:--}" "${rc_case:+yes}" "$load" "${why:0:80}"
	if [ "$rc" = 0 ] && [ -f "$dir/results.csv" ]; then
		ok=$((ok + 1))
		[ -n "$rc_case" ] && retried=$((retried + 1))
	else
		failed=$((failed + 1))
		tail -n 5 "$t/err" >&2
	fi
	rm -rf "$t/res"
done
echo "bench-vm-hang: $runs boots: $ok with results ($retried of them after a rerun in a fresh guest), $failed failed; load now $(cut -d' ' -f1-3 /proc/loadavg)"
[ "$failed" = 0 ]
