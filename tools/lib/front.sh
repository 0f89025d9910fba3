# shellcheck shell=bash
# The front door's shared part, sourced (never run) by run.sh and the
# tools/ scripts: tools/vm/lab, tools/kbuild-pair, tools/kbuild,
# tools/nightly, tools/compare-report and the VM lab's helpers
# (tools/vm/lib.sh). One home for what they all do:
#   - messages and exits: msg, die, usage_die, need
#   - --help: show_help prints the script's header comment, with the run
#     options' reference (front_run_help) where it says @run-options@
#   - the suite rule: front_suite (one precedence, below)
#   - the build step: front_build
#   - the run options (--suite --label --iterations --warmups --out
#     --timeout --probe --profile[=MODE] --profile-freq --profile-cap
#     --runs --max-runs --precision --max-iterations --max-time
#     --dry-run): parsed by front_run_opt, checked by front_run_checks
#
# Set before sourcing: front_prog, the name messages start with (default:
# the script's file name). Exit codes follow mmbench: 0 pass, 1 fail,
# 2 usage or bad input, 4 skip.
#
# The suite rule, the same for every front door:
#   1. NAME that is a file is that file: a path as given, from the current
#      directory (tools/nightly: from the config's directory);
#   2. else NAME without a '/' that is a file under bench/suites/ is that
#      suite (quick, reproduce, exp-pageout, ...);
#   3. else it is bad input (exit 2) naming NAME and listing bench/suites.
# So a file of that name in the current directory wins over a suite of
# bench/suites.

FRONT_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
front_prog=${front_prog:-$(basename "$0")}

# ---------------------------------------------------------------- messages

msg() { echo "$front_prog: $*" >&2; }

# die [CODE] MESSAGE...: print "PROG: MESSAGE" on stderr, exit CODE (1).
die()
{
	local rc=1

	if [ $# -ge 2 ] && [[ $1 =~ ^[0-9]{1,3}$ ]]; then
		rc=$1
		shift
	fi
	echo "$front_prog: $*" >&2
	exit "$rc"
}

usage_die() { die 2 "$@"; }

# need $# OPTION: OPTION is followed by its value, or it is a usage error.
need() { [ "$1" -ge 2 ] || usage_die "$2 needs a value"; }

# show_help: the script's header (the comment block after the #! line),
# with @run-options@ lines replaced by the run options' reference.
show_help()
{
	local line

	{
		IFS= read -r line
		while IFS= read -r line && [[ $line == '#'* ]]; do
			line=${line#'#'}
			line=${line#' '}
			if [ "$line" = @run-options@ ]; then
				front_run_help
			else
				printf '%s\n' "$line"
			fi
		done
	} <"$0"
}

# An absolute path for PATH (relative to the current directory), not
# resolving links; nothing needs to exist.
front_abs() { case "$1" in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }

# ---------------------------------------------------------------- suites

# front_suite NAME [DIR]: the suite rule above (DIR: where a relative path
# starts; default the current directory). Sets front_suite_file to the
# suite's absolute path and returns 0; else sets front_suite_why and
# returns 1.
# front_label_ok LABEL: mmbench's label rule (bench/params.c,
# mm_label_check; `mmbench check-label` says why): 1 to 100 of A-Z a-z
# 0-9 . _ + -, the first a letter or a digit, no "..". A label names a
# directory and goes into report titles and plots.
front_label_ok() { [[ $1 =~ ^[A-Za-z0-9][A-Za-z0-9._+-]{0,99}$ ]] && [[ $1 != *..* ]]; }
front_label_rule="letters, digits and . _ + - only (1 to 100, the first a letter or a digit, no '..')"

front_suite()
{
	local name=$1 dir=${2:-$PWD} p

	front_suite_file= front_suite_why=
	case "$name" in
	'') p= ;;
	/*) p=$name ;;
	*) p=$dir/$name ;;
	esac
	if [ -n "$p" ] && [ -f "$p" ]; then
		front_suite_file=$(realpath -- "$p")
	elif [[ -n $name && $name != */* ]] && [ -f "$FRONT_TOP/bench/suites/$name" ]; then
		front_suite_file=$FRONT_TOP/bench/suites/$name
	else
		front_suite_why="no such file, and bench/suites has: $(ls "$FRONT_TOP/bench/suites" | paste -sd' ')"
		return 1
	fi
}

# ---------------------------------------------------------------- build

# front_build [-q] [TARGET...]: make the TARGETs (paths under the mmbench
# tree; none: the default goal) quietly. When make fails, the build
# packages are installed (tools/deps.sh build, which does nothing when none
# is missing) and make runs once more. The log goes to $front_build_log
# when set, else to a new temporary file (never a fixed name another user
# could plant as a link), removed when the build succeeds. A failed build
# prints the log's last 20 lines and "PROG: building TARGET... failed
# (log: FILE)" on stderr (not with -q) and returns 1.
front_build()
{
	local log=${front_build_log:-} quiet=0

	[ "${1:-}" = -q ] && { quiet=1; shift; }

	if [ -z "$log" ]; then
		log=$(mktemp "${TMPDIR:-/tmp}/mmbench-build.XXXXXX") ||
			{ msg "cannot create a temporary file for the build log"; return 1; }
	fi
	if make -s -C "$FRONT_TOP" "$@" >"$log" 2>&1 ||
		{ "$FRONT_TOP/tools/deps.sh" build >>"$log" 2>&1 &&
			make -s -C "$FRONT_TOP" "$@" >"$log" 2>&1; }; then
		[ -n "${front_build_log:-}" ] || rm -f "$log"
		return 0
	fi
	[ "$quiet" = 1 ] && return 1
	tail -n 20 "$log" >&2
	msg "building ${*:-mmbench} failed (log: $log)"
	return 1
}

# ---------------------------------------------------------------- run options

# The run options a front door accepts: all of them unless it sets
# front_run_opts (a blank-separated list) before parsing; show_help and
# front_run_help list only those.
front_run_opts=${front_run_opts:-"--suite --label --iterations --warmups --out --timeout --probe --profile --runs --precision --dry-run"}

# What front_run_opt parsed:
front_suite_arg=quick	# --suite as given (front_run_checks resolves it)
front_labels=()		# every --label, in order
front_out=		# --out as given (front_run_checks makes it absolute)
front_timeout=900	# --timeout, the per-case limit in seconds
front_profile=0		# 1 with --profile
front_dry_run=0		# 1 with --dry-run
front_runs=1		# --runs N: invocations (lab: boots) per side
front_max_runs=		# --max-runs N (with --precision and --runs)
front_precision=	# --precision P, passed to mmbench too
front_max_iter=		# --max-iterations N, passed to mmbench
front_max_time=		# --max-time SEC, passed to mmbench
front_mm_args=()	# the options for mmbench run|suite (-i N, -w N, ...)
front_run_args=()	# the same as front-door options, to pass to another
			# front door (--iterations N, ...)

# front_run_help: the run options' reference, as --help shows it.
front_run_help()
{
	local o

	for o in $front_run_opts; do
		case "$o" in
		--suite) cat <<'EOT'
  --suite NAME|FILE   the suite (default quick): the file FILE when there is
                      one (a path from the current directory), else the suite
                      NAME of bench/suites/ (quick, reproduce, exp-*)
EOT
		;;
		--label) cat <<'EOT'
  --label LABEL       label of the run (default: the kernel release): letters,
                      digits and . _ + -, at most 100 (mmbench check-label)
EOT
		;;
		--iterations) echo "  --iterations N      measured iterations per case, overriding the suite" ;;
		--warmups) echo "  --warmups N         warm-up iterations per case, overriding the suite" ;;
		--out) echo "  --out ROOT          results root (default: results/ of this mmbench tree)" ;;
		--timeout) echo "  --timeout SEC       per-case time limit (default 900)" ;;
		--probe) echo "  --probe F[,F]       count kernel function calls in measured phases" ;;
		--profile) cat <<'EOT'
  --profile[=callgraph]  perf samples of the measured phases: profile.csv,
                      raw data in profile/ (--profile-freq HZ, --profile-cap SIZE)
EOT
		;;
		--runs) cat <<'EOT'
  --runs N            each side N times (1 to 100), each a new mmbench process
                      (in the VM lab a new boot) and run directory under one
                      label; a lab pair interleaves them: A1 B1 A2 B2 ...
EOT
		;;
		--precision) cat <<'EOT'
  --precision P       add iterations until every judged timed evidence
                      metric's 95% half-width is at most P% of its mean, or
                      --max-iterations N (default 50) / --max-time SEC
                      (default half of --timeout); with --runs, add runs
                      until the runs' means reach it, or --max-runs N
                      (default 3 x --runs)
EOT
		;;
		--dry-run) cat <<'EOT'
  --dry-run           check the options, print the resolved suite ("suite:
                      FILE"), the results root and the mmbench options;
                      build, boot and run nothing
EOT
		;;
		esac
	done
}

# front_run_opt ARGS...: when $1 is a run option this front door accepts
# (also as --option=value), record it, set front_shift to the number of
# words it took and return 0; else return 1. A missing value is a usage
# error (exit 2).
front_run_opt()
{
	local o=$1 v= n=2

	case "$o" in
	--profile|--profile=*) o=--profile n=1 ;;
	--dry-run) n=1 ;;
	--dry-run=*) usage_die "--dry-run takes no value" ;;
	--*=*) o=${1%%=*} v=${1#*=} n=1 ;;
	esac
	[[ " $front_run_opts " == *" $o "* ]] ||
		{ [[ $o == --profile-freq || $o == --profile-cap ]] &&
			[[ " $front_run_opts " == *" --profile "* ]]; } ||
		{ [[ $o == --max-iterations || $o == --max-time ]] &&
			[[ " $front_run_opts " == *" --precision "* ]]; } ||
		{ [[ $o == --max-runs ]] && [[ " $front_run_opts " == *" --runs "* ]]; } ||
		return 1
	if [ "$n" = 2 ] && [ "$o" != --profile ] && [ "$o" != --dry-run ]; then
		need $# "$1"
		v=$2
	fi
	front_shift=$n
	case "$o" in
	--suite) front_suite_arg=$v ;;
	--label) front_labels+=("$v") ;;
	--out) front_out=$v ;;
	--iterations)
		[[ $v =~ ^[1-9][0-9]{0,8}$ ]] || usage_die "--iterations: '$v' is not a positive integer"
		front_mm_args+=(-i "$v") front_run_args+=("$o" "$v") ;;
	--warmups)
		[[ $v =~ ^(0|[1-9][0-9]{0,8})$ ]] || usage_die "--warmups: '$v' is not a whole number"
		front_mm_args+=(-w "$v") front_run_args+=("$o" "$v") ;;
	--timeout)
		[[ $v =~ ^[1-9][0-9]{0,8}$ ]] || usage_die "--timeout: '$v' is not a positive integer"
		front_timeout=$v
		front_mm_args+=("$o" "$v") front_run_args+=("$o" "$v") ;;
	--probe|--profile-freq|--profile-cap)
		front_mm_args+=("$o" "$v") front_run_args+=("$o" "$v") ;;
	--runs|--max-runs)
		front_count_ok "$v" 100 || usage_die "$o: '$v' is not a number from 1 to 100"
		if [ "$o" = --runs ]; then front_runs=$v; else front_max_runs=$v; fi
		front_run_args+=("$o" "$v") ;;
	--precision)
		# mmbench's decimal rule ([-]digits[.digits][e[+-]digits]), above
		# 0 and at most 100
		[[ $v =~ ^-?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$ ]] &&
			awk -v p="$v" 'BEGIN { exit !(p > 0 && p <= 100) }' ||
			usage_die "--precision: '$v' is not a percentage above 0 and at most 100"
		front_precision=$v
		front_mm_args+=("$o" "$v") front_run_args+=("$o" "$v") ;;
	--max-iterations)
		front_count_ok "$v" 100000 || usage_die "$o: '$v' is not a number from 1 to 100000"
		front_max_iter=$v
		front_mm_args+=("$o" "$v") front_run_args+=("$o" "$v") ;;
	--max-time)
		front_count_ok "$v" 604800 || usage_die "$o: '$v' is not a number of seconds from 1 to 604800"
		front_max_time=$v
		front_mm_args+=("$o" "$v") front_run_args+=("$o" "$v") ;;
	--profile) front_profile=1 front_mm_args+=("$1") front_run_args+=("$1") ;;
	--dry-run) front_dry_run=1 ;;
	esac
	return 0
}

# front_count_ok V MAX: V is a decimal number from 1 to MAX (no sign, no
# leading zero).
front_count_ok() { [[ $1 =~ ^[1-9][0-9]{0,6}$ ]] && [ "$1" -le "$2" ]; }

# front_run_checks: after parsing, check the run options: the suite
# resolved by the suite rule (front_suite_file), labels of allowed
# characters, --out made absolute, the limits of --precision and --runs
# together (front_max_runs set: default 3 x --runs, at most 100). Bad
# input exits 2 naming it.
front_run_checks()
{
	local l

	front_suite "$front_suite_arg" ||
		usage_die "--suite '$front_suite_arg': $front_suite_why"
	for l in "${front_labels[@]}"; do
		front_label_ok "$l" || usage_die "--label '$l': use $front_label_rule"
	done
	[ -z "$front_out" ] || front_out=$(realpath -m -- "$front_out")
	if [ -z "$front_precision" ]; then
		for l in max-iterations:$front_max_iter max-time:$front_max_time max-runs:$front_max_runs; do
			[ -z "${l#*:}" ] || usage_die "--${l%%:*} limits --precision P, which is not given"
		done
	fi
	[ -z "$front_max_time" ] || [ "$front_max_time" -lt "$front_timeout" ] ||
		usage_die "--max-time $front_max_time is not below --timeout $front_timeout: the case would be killed first"
	if [ -n "$front_max_runs" ]; then
		[ "$front_max_runs" -ge "$front_runs" ] ||
			usage_die "--max-runs $front_max_runs is below --runs $front_runs"
	else
		front_max_runs=$((front_runs * 3 > 100 ? 100 : front_runs * 3))
	fi
}

# front_dry_run_print ROOT [LINE...]: what --dry-run prints, one fact a
# line: the suite, the results root, the mmbench options, then LINEs.
front_dry_run_print()
{
	echo "suite: $front_suite_file"
	echo "results root: $1"
	echo "mmbench options: ${front_mm_args[*]}"
	echo "runs: $front_runs${front_precision:+ (up to $front_max_runs until the means of the runs reach --precision $front_precision%)}"
	shift
	[ $# -eq 0 ] || printf '%s\n' "$@"
}
