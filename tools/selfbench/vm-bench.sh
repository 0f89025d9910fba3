#!/usr/bin/env bash
# Benchmark of the VM lab itself (make bench-vm), with a cached kernel:
#   boot        QEMU start -> the guest's init running      target < 15 s
#   first_row   ./run.sh --vm bookworm -> first result row  (reported)
#   overhead    run.sh wall time minus the workload's time   target < 30 s
# Runs ./run.sh --vm bookworm RUNS times (env BENCH_VM_RUNS, default 3) on
# a one-case suite and judges the medians. Exit 0 met, 1 missed.
set -u
vm_prog=bench-vm
. "$(dirname "$0")/../vm/lib.sh"

runs=${BENCH_VM_RUNS:-3}
[[ $runs =~ ^[1-9][0-9]*$ ]] || vm_usage_die "BENCH_VM_RUNS='$runs' is not a positive integer"
boot_target=15 overhead_target=30
t=$(mktemp -d "${TMPDIR:-/tmp}/mmbench-bench-vm.XXXXXX") || exit 1
trap 'rm -rf "$t"' EXIT
echo "pageout -p size_mb=16 -p duration_s=1 -p instances=1 -i 1 -w 0" >"$t/suite"

"$VM_DIR/fetch-kernel" bookworm >/dev/null || vm_die "no bookworm kernel"
# Result files are read by mmbench's own CSV reader (quoted values hold commas).
mmbench=$VM_TOP/bench/mmbench
meta() { "$mmbench" field --last --where key="$1" "$2/meta.csv" value; }
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

printf '%-4s %8s %10s %10s %9s %9s\n' run boot_s first_row_s workload_s total_s overhead_s
for ((i = 1; i <= runs; i++)); do
	t0=$EPOCHREALTIME
	"$VM_TOP/run.sh" --vm bookworm --suite "$t/suite" --out "$t/res" >"$t/out" 2>"$t/err"
	rc=$?
	t1=$EPOCHREALTIME
	dir=$(sed -n 's/^results: //p' "$t/out" | tail -n1)
	if [ $rc != 0 ] || [ ! -f "$dir/meta.csv" ]; then
		tail -n 20 "$t/err" >&2
		vm_die "run $i failed (exit $rc)"
	fi
	boot=$(meta vm_boot_s "$dir")
	qs=$(meta vm_qemu_start_epoch_s "$dir")
	fr=$(meta vm_first_row_s "$dir")
	work=$("$mmbench" field "$dir/cases.csv" duration_s | awk '{ s += $1 } END { printf "%.2f", s }')
	awk -v i="$i" -v b="$boot" -v t0="$t0" -v t1="$t1" -v qs="$qs" -v fr="$fr" -v w="$work" 'BEGIN {
		printf "%-4d %8.2f %10.2f %10.2f %9.2f %9.2f\n", i, b, qs - t0 + fr, w, t1 - t0, t1 - t0 - w
	}' | tee -a "$t/rows"
done
mb=$(awk '{ print $2 }' "$t/rows" | median)
mf=$(awk '{ print $3 }' "$t/rows" | median)
mo=$(awk '{ print $6 }' "$t/rows" | median)
accel=$(meta vm_accel "$dir")
echo "median over $runs runs ($accel): boot ${mb}s (target < ${boot_target}s), first row ${mf}s, overhead beyond the workload ${mo}s (target < ${overhead_target}s)"
ok=$(awk -v b="$mb" -v o="$mo" -v bt="$boot_target" -v ot="$overhead_target" 'BEGIN { print (b < bt && o < ot) }')
if [ "$ok" = 1 ]; then
	echo "bench-vm: targets met"
	exit 0
fi
echo "bench-vm: target missed"
exit 1
