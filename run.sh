#!/usr/bin/env bash
# mmbench front door. On a fresh Debian machine, as root:
#   ./run.sh                      install missing packages, build, run the
#                                 quick suite on the running kernel
#   ./run.sh --suite NAME|FILE --label L --iterations N --out ROOT
#   ./run.sh --runs 3 --precision 3   three runs, each case to a 95%
#                                 half-width of 3% (more runs until their
#                                 means are within it)
#   ./run.sh --vm KERNEL [--vm-*] ...   the same inside a QEMU guest (tools/vm/lab)
#   ./run.sh --vm A --vm B ...          a pair (or --vm-pair A,B): both guests,
#                                       then the verdict of their comparison
#   ./run.sh --vm-build TREE --patch F  build base+patched kernels, run, compare
#   ./run.sh --lava --vm A [--vm B] ... the same as LAVA jobs (tools/lava/lava;
#                                       tools/lava/README.md)
#   ./run.sh compare BASE NEW...        compare result sets (tools/compare-report)
#   ./run.sh nightly CONFIG             the unattended nightly job (tools/nightly)
#   ./run.sh bisect --tree GIT --good REV --bad REV ...   the first bad commit:
#                                       kernel builds, the VM lab, the verdict (tools/bisect)
# options (the same on tools/vm/lab and tools/kbuild-pair):
# @run-options@
# VM lab options (--vm-*, --alpha, --force, --fail-on-regression, --no-compare):
#   tools/vm/lab --help
# Exit: mmbench's: 0 pass, 1 a case failed, 2 usage or bad input, 4 every
# case was skipped.

# One compound command: bash reads it whole before running it, so editing
# this file cannot derail a run in progress.
{
set -u
top=$(cd "$(dirname "$0")" && pwd)
front_prog=run.sh
. "$top/tools/lib/front.sh"

case "${1:-}" in
compare) shift; MMBENCH_RESULTS=${MMBENCH_RESULTS:-$FRONT_RESULTS} exec "$top/tools/compare-report" "$@" ;;
nightly) shift; exec "$top/tools/nightly" "$@" ;;
bisect) shift; exec "$top/tools/bisect" "$@" ;;
-h|--help) show_help; exit 0 ;;
esac
for a in "$@"; do
	case "$a" in
	--lava) exec "$top/tools/lava/lava" run "$@" ;;
	esac
done
for a in "$@"; do
	case "$a" in
	--vm-build|--vm-build=*) exec "$top/tools/kbuild-pair" "$@" ;;
	esac
done
for a in "$@"; do
	case "$a" in
	--vm|--vm-*|--vm=*) exec "$top/tools/vm/lab" "$@" ;;
	esac
done

while [ $# -gt 0 ]; do
	front_run_opt "$@" && { shift "$front_shift"; continue; }
	usage_die "unknown option '$1' (see ./run.sh --help)"
done
front_run_checks
[ ${#front_labels[@]} -le 1 ] || usage_die "--label given ${#front_labels[@]} times: give one"
root=${front_out:-$FRONT_RESULTS}
label=${front_labels[0]:-}
if [ "$front_dry_run" = 1 ]; then
	front_dry_run_print "$root" "label: ${label:-$(uname -r)}"
	exit 0
fi
cd "$top" || exit 1

front_build || exit 1
# perf for --profile: optional, so quiet and never fatal (a missing perf
# is a skip of the profile that meta.csv explains).
[ "$front_profile" = 1 ] && { tools/deps.sh profile >/dev/null 2>&1 ||
	msg "linux-perf could not be installed; the profile will be skipped (meta.csv says why)"; }

[ -n "$label" ] || label=$(uname -r)

# One invocation: a new mmbench process and run directory under the label
# (a new second: the run_id is the directory's time stamp). Sets dir, rc.
run_once()
{
	local n=$1

	dir="$root/$label/$(date +%Y%m%d-%H%M%S)-$(hostname)"
	while [ -e "$dir" ] || [[ " ${dirs[*]} " == *" $dir "* ]]; do
		sleep 1
		dir="$root/$label/$(date +%Y%m%d-%H%M%S)-$(hostname)"
	done
	echo "run.sh: ${n}suite $front_suite_file on $(uname -r), results in $dir"
	bench/mmbench suite "$front_suite_file" -o "$dir" --label "$label" "${front_mm_args[@]}"
	rc=$?
	echo
	if [ -f "$dir/results.csv" ] || [ -f "$dir/cases.csv" ]; then
		bench/mmbench summary "$dir"
	fi
	echo
	echo "results: $dir"
	case $rc in
	0) ;;
	4) echo "run.sh: every case was skipped (reasons in $dir/cases.csv)" ;;
	*) echo "run.sh: mmbench exited $rc (see $dir/run.log and $dir/cases.csv)" ;;
	esac
}

if [ "$front_runs" = 1 ]; then
	run_once ""
	[ -z "$front_precision" ] || bench/mmbench precision "$dir" | sed -n '1,/^$/p'
	exit $rc
fi

# --runs N: N invocations of the suite, one after another (one side: the
# running kernel); with --precision, more until the half-width of the
# runs' means is within it (mmbench precision), at most --max-runs.
dirs=() rc_all= k=0 why="--runs $front_runs"
while :; do
	k=$((k + 1))
	run_once "run $k of $front_runs${front_precision:+ (at most $front_max_runs)}: "
	dirs+=("$dir")
	# Worst outcome wins: fail (1) over usage (2) over pass (0); skip (4)
	# only when every run skipped; a signal ends the series.
	[ "$rc" -ge 128 ] && { echo "run.sh: interrupted (exit $rc): no further run"; exit "$rc"; }
	case "$rc_all,$rc" in
	,*) rc_all=$rc ;;
	*,1|1,*) rc_all=1 ;;
	*,2|2,*) rc_all=2 ;;
	4,4) rc_all=4 ;;
	*) rc_all=0 ;;
	esac
	[ "$rc" = 2 ] && break
	echo
	[ "$k" -lt "$front_runs" ] && continue
	[ -n "$front_precision" ] || break
	if bench/mmbench precision --precision "$front_precision" "${dirs[@]}" >/dev/null 2>&1; then
		why="the runs' means within --precision $front_precision% after $k runs"
		break
	fi
	if [ "$k" -ge "$front_max_runs" ]; then
		why="--max-runs $front_max_runs before the runs' means reached --precision $front_precision%"
		break
	fi
	echo "run.sh: after $k runs the runs' means are not within --precision $front_precision%: one more run (at most $front_max_runs)"
done
echo "run.sh: $k runs ($why), label $label:"
printf '  %s\n' "${dirs[@]}"
echo
bench/mmbench precision ${front_precision:+--precision "$front_precision"} "${dirs[@]}"
exit "${rc_all:-1}"
}
