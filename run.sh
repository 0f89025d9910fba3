#!/usr/bin/env bash
# mmbench front door. On a fresh Debian machine, as root:
#   ./run.sh                      install missing packages, build, run the
#                                 quick suite on the running kernel
#   ./run.sh --suite NAME|FILE --label L --iterations N --out ROOT
#   ./run.sh --vm KERNEL [--vm-*] ...   the same inside a QEMU guest (tools/vm/lab)
#   ./run.sh --vm A --vm B ...          a pair (or --vm-pair A,B): both guests,
#                                       then the verdict of their comparison
#   ./run.sh --vm-build TREE --patch F  build base+patched kernels, run, compare
#   ./run.sh --lava --vm A [--vm B] ... the same as LAVA jobs (tools/lava/lava;
#                                       tools/lava/README.md)
#   ./run.sh compare BASE NEW...        compare result sets (tools/compare-report)
#   ./run.sh nightly CONFIG             the unattended nightly job (tools/nightly)
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
compare) shift; MMBENCH_RESULTS=${MMBENCH_RESULTS:-$top/results} exec "$top/tools/compare-report" "$@" ;;
nightly) shift; exec "$top/tools/nightly" "$@" ;;
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
root=${front_out:-$top/results}
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
dir="$root/$label/$(date +%Y%m%d-%H%M%S)-$(hostname)"
echo "run.sh: suite $front_suite_file on $(uname -r), results in $dir"
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
exit $rc
}
