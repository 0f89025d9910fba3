#!/usr/bin/env bash
# mmbench front door. On a fresh Debian machine, as root:
#   ./run.sh                      install missing packages, build, run the
#                                 quick suite on the running kernel
#   ./run.sh --suite NAME|FILE --label L --iterations N --out ROOT
#   ./run.sh --vm KERNEL [--vm-*] ...   the same inside a QEMU guest (tools/vm/lab)
#   ./run.sh --vm A --vm B ...          a pair (or --vm-pair A,B): both guests,
#                                       then the verdict of their comparison
#   ./run.sh --vm-build TREE --patch F  build base+patched kernels, run, compare
#   ./run.sh compare BASE NEW...        compare result sets (tools/compare-report)
#   ./run.sh nightly CONFIG             the unattended nightly job (tools/nightly)
set -u
top=$(cd "$(dirname "$0")" && pwd)

usage() {
	sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'
	cat <<'EOT'
options:
  --suite NAME|FILE   suite under bench/suites/ or a suite file (default: quick,
                      or an experiment: exp-pageout, exp-ad-bits, ...)
  --label LABEL       label of the run (default: the kernel release)
  --iterations N      measured iterations per case, overriding the suite
  --warmups N         warm-up iterations per case, overriding the suite
  --out ROOT          results root (default: ./results)
  --timeout SEC       per-case time limit (default 900)
  --probe F[,F]       count kernel function calls in measured phases
  --profile[=callgraph]  perf samples of the measured phases: profile.csv,
                      raw data in profile/ (--profile-freq HZ, --profile-cap SIZE)
VM lab options (--vm-*, --alpha, --force, --fail-on-regression, --no-compare):
  tools/vm/lab --help
EOT
}

case "${1:-}" in
compare) shift; MMBENCH_RESULTS=${MMBENCH_RESULTS:-$top/results} exec "$top/tools/compare-report" "$@" ;;
nightly) shift; exec "$top/tools/nightly" "$@" ;;
-h|--help) usage; exit 0 ;;
esac
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
# Paths given by the caller stay relative to the caller's directory.
abs() { case "$1" in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }

suite=quick label="" root="$top/results" extra=() profile=0
while [ $# -gt 0 ]; do
	case "$1" in
	--suite) suite=${2:?--suite needs a value}; shift 2 ;;
	--label) label=${2:?--label needs a value}; shift 2 ;;
	--iterations) extra+=(-i "${2:?--iterations needs a value}"); shift 2 ;;
	--warmups) extra+=(-w "${2:?--warmups needs a value}"); shift 2 ;;
	--out) root=$(abs "${2:?--out needs a value}"); shift 2 ;;
	--timeout) extra+=(--timeout "${2:?--timeout needs a value}"); shift 2 ;;
	--probe) extra+=(--probe "${2:?--probe needs a value}"); shift 2 ;;
	--profile|--profile=*) extra+=("$1"); profile=1; shift ;;
	--profile-freq|--profile-cap) extra+=("$1" "${2:?$1 needs a value}"); shift 2 ;;
	*) echo "run.sh: unknown option '$1' (see ./run.sh --help)" >&2; exit 2 ;;
	esac
done

if [ -f "$suite" ]; then
	suite_file=$(abs "$suite")
elif [ -f "$top/bench/suites/$suite" ]; then
	suite_file=$top/bench/suites/$suite
else
	echo "run.sh: no suite '$suite' (bench/suites has: $(ls "$top/bench/suites" | tr '\n' ' '))" >&2
	exit 2
fi
cd "$top" || exit 1

tools/deps.sh build || exit 1
# perf for --profile: optional, so quiet and never fatal (a missing perf
# is a skip of the profile that meta.csv explains).
[ "$profile" = 1 ] && { tools/deps.sh profile >/dev/null 2>&1 ||
	echo "run.sh: linux-perf could not be installed; the profile will be skipped (meta.csv says why)" >&2; }
# The build log: a new file of ours (a fixed name in /tmp could be a link
# another user planted there).
build_log=$(mktemp "${TMPDIR:-/tmp}/mmbench-build.XXXXXX") || exit 1
if ! make -s >"$build_log" 2>&1; then
	echo "run.sh: build failed (log: $build_log):" >&2
	tail -n 20 "$build_log" >&2
	exit 1
fi
rm -f "$build_log"

[ -n "$label" ] || label=$(uname -r)
dir="$root/$label/$(date +%Y%m%d-%H%M%S)-$(hostname)"
echo "run.sh: suite $suite_file on $(uname -r), results in $dir"
bench/mmbench suite "$suite_file" -o "$dir" --label "$label" "${extra[@]}"
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
