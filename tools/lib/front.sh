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
#   - the run options: the front door's own (--suite --label --out --runs
#     --max-runs --dry-run) and mmbench's that it passes on (the rows of
#     bench/run-options.tsv marked front: --iterations --warmups --timeout
#     --probe --profile ...): parsed by front_run_opt, checked by
#     front_run_checks (front_mm_checks: mmbench's options alone)
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
# An installed copy (make install, tools/install.mk) carries the file
# tools/lib/installed: its programs are built already, and results go
# under the current directory, never into the install tree.
FRONT_INSTALLED=0 FRONT_RESULTS=$FRONT_TOP/results
[ -e "$FRONT_TOP/tools/lib/installed" ] && FRONT_INSTALLED=1 FRONT_RESULTS=$PWD/results
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

# front_installed_has QUIET [TARGET...]: the installed copy's build step:
# every TARGET (default bench/mmbench) is there, or say which is not.
front_installed_has()
{
	local q=$1 t

	shift
	for t in "${@:-bench/mmbench}"; do
		[ -x "$FRONT_TOP/$t" ] && continue
		[ "$q" = 1 ] || msg "$FRONT_TOP/$t is not installed (make install)"
		return 1
	done
}

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
	[ "$FRONT_INSTALLED" = 0 ] || { front_installed_has "$quiet" "$@"; return; }

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

# mmbench's run options, as data: bench/run-options.tsv is what `mmbench
# options` prints (bench/runopts.c's table; make docs writes the file, and
# tests/core/test_docs.sh checks it), read here without building mmbench
# (--help and --dry-run build nothing). A row with front = yes is a run
# option every front door accepts and passes on to mmbench: its type
# (count: MIN..MAX, percent) is checked here, its help is the front door's.
# Nothing of the file is ever run: its fields are only compared and
# printed.
front_mm_names=()	# the front = yes rows, in the table's order
declare -A front_mm_key=() front_mm_arg=() front_mm_type=() front_mm_min=() \
	front_mm_max=() front_mm_family=() front_mm_help=()
front_read_options()
{
	local f name

	[ -r "$FRONT_TOP/bench/run-options.tsv" ] ||
		die "$FRONT_TOP/bench/run-options.tsv is missing (make docs writes it)"
	while IFS=$'\t' read -r -a f; do
		[ ${#f[@]} -ge 11 ] && [ "${f[0]}" != name ] && [ "${f[8]}" = yes ] || continue
		# name short arg type min max default scope front family help...
		name=${f[0]}
		front_mm_names+=("$name")
		front_mm_key[$name]=${f[1]} front_mm_arg[$name]=${f[2]} front_mm_type[$name]=${f[3]}
		front_mm_min[$name]=${f[4]} front_mm_max[$name]=${f[5]} front_mm_family[$name]=${f[9]}
		front_mm_help[$name]=$(printf '%s\n' "${f[@]:10}")
	done <"$FRONT_TOP/bench/run-options.tsv"
}
front_read_options

# The run options a front door accepts: all of them unless it sets
# front_run_opts (a blank-separated list) before parsing; show_help and
# front_run_help list only those. An mmbench option whose family is
# another (--max-time: --precision) comes with that one. front_mm_opts:
# mmbench's (the front = yes rows that head a family), for a front door
# that has its own --suite, --label and --out (tools/lava/lava).
front_mm_opts=$(for o in "${front_mm_names[@]}"; do
	[ "${front_mm_family[$o]}" != - ] || printf -- '--%s ' "$o"; done)
front_run_opts=${front_run_opts:-"--suite --label --out ${front_mm_opts}--runs --dry-run"}

# What front_run_opt parsed:
front_suite_arg=quick	# --suite as given (front_run_checks resolves it)
front_labels=()		# every --label, in order
front_out=		# --out as given (front_run_checks makes it absolute)
front_dry_run=0		# 1 with --dry-run
front_runs=1		# --runs N: invocations (lab: boots) per side
front_max_runs=		# --max-runs N (with --precision and --runs)
declare -A front_opt=()	# mmbench's options given: NAME -> value (as given)
front_mm_args=()	# the options for mmbench run|suite (-i N, -w N, ...)
front_run_args=()	# the same as front-door options, to pass to another
			# front door (--iterations N, ...)
# The mmbench options the front doors' own rules use (from front_opt):
front_timeout=900	# --timeout, the per-case limit in seconds
front_profile=0		# 1 with --profile
front_precision=	# --precision P (runs are added to reach it too)
front_max_iter=		# --max-iterations N
front_max_time=		# --max-time SEC

# front_accepts OPTION: this front door takes OPTION (--name); --max-runs
# comes with --runs.
front_accepts()
{
	local n=${1#--}

	[[ " $front_run_opts " == *" $1 "* ]] ||
		{ [ "$1" = --max-runs ] && [[ " $front_run_opts " == *" --runs "* ]]; } ||
		{ [ -n "${front_mm_family[$n]:-}" ] && [ "${front_mm_family[$n]}" != - ] &&
			[[ " $front_run_opts " == *" --${front_mm_family[$n]} "* ]]; }
}

# front_run_help: the run options' reference, as --help shows it: the
# front door's own, and mmbench's with their help from the table.
front_run_help()
{
	local o n

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
		--out) printf '%s\n' "  --out ROOT          results root (default: results/ of the checkout;" \
			"                      installed by make install: ./results)" ;;
		--runs) cat <<'EOT'
  --runs N            each side N times (1 to 100), each a new mmbench process
                      (in the VM lab a new boot) and run directory under one
                      label; a lab pair interleaves them: A1 B1 A2 B2 ...;
                      with --precision P, runs are added until the runs'
                      means reach it, or --max-runs N (default 3 x --runs)
EOT
		;;
		--dry-run) cat <<'EOT'
  --dry-run           check the options, print the resolved suite ("suite:
                      FILE"), the results root and the mmbench options;
                      build, boot and run nothing
EOT
		;;
		*) for n in "${front_mm_names[@]}"; do
			[ "$o" = "--$n" ] || [ "$o" = "--${front_mm_family[$n]}" ] || continue
			front_mm_help_of "$n"
		done ;;
		esac
	done
}

# front_mm_help_of NAME: mmbench's option NAME as the front door's help
# lists it (the help's lines from the table, at the front door's column).
front_mm_help_of()
{
	local s=--$1 a=${front_mm_arg[$1]} l first=1

	case "$a" in -) ;; '['*) s+=$a ;; *) s+=" $a" ;; esac
	while IFS= read -r l; do
		if [ $first = 1 ]; then
			[ ${#s} -le 18 ] && printf '  %-19s %s\n' "$s" "$l" || printf '  %s  %s\n' "$s" "$l"
			first=0
		else
			printf '%22s%s\n' '' "$l"
		fi
	done <<<"${front_mm_help[$1]}"
}

# front_run_opt ARGS...: when $1 is a run option this front door accepts
# (also as --option=value), record it, set front_shift to the number of
# words it took and return 0; else return 1. A missing value is a usage
# error (exit 2).
front_run_opt()
{
	local o=${1%%=*} v= n=1 name

	[[ $1 == --dry-run=* ]] && front_accepts --dry-run && usage_die "--dry-run takes no value"
	[[ $o == --* ]] && front_accepts "$o" || return 1
	name=${o#--}
	if [[ $1 == *=* ]]; then
		v=${1#*=}
	elif [ "$o" != --dry-run ] && [ "${front_mm_arg[$name]:-}" != - ] &&
		[[ ${front_mm_arg[$name]:-} != '['* ]]; then
		need $# "$1"
		v=$2 n=2
	fi
	front_shift=$n
	case "$o" in
	--suite) front_suite_arg=$v ;;
	--label) front_labels+=("$v") ;;
	--out) front_out=$v ;;
	--runs|--max-runs)
		front_count_ok "$v" 100 || usage_die "$o: '$v' is not a number from 1 to 100"
		if [ "$o" = --runs ]; then front_runs=$v; else front_max_runs=$v; fi
		front_run_args+=("$o" "$v") ;;
	--dry-run) front_dry_run=1 ;;
	*) front_mm_opt "$name" "$v" "$1" ;;
	esac
	return 0
}

# front_mm_opt NAME VALUE WORD: mmbench's option NAME, its value checked
# by its type (mmbench's rule and message), kept for mmbench (its short
# form when it has one) and for another front door.
front_mm_opt()
{
	local n=$1 v=$2 min=${front_mm_min[$1]} max=${front_mm_max[$1]}

	case "${front_mm_type[$n]}" in
	count) front_in_range "$v" "$min" "$max" ||
		usage_die "--$n: '$v' is not a number in [$min, $max]" ;;
	percent)
		# mmbench's decimal rule ([-]digits[.digits][e[+-]digits]),
		# above MIN and at most MAX
		front_decimal_ok "$v" &&
			awk -v p="$v" -v lo="$min" -v hi="$max" 'BEGIN { exit !(p > lo && p <= hi) }' ||
			usage_die "--$n: '$v' is not a percentage above $min and at most $max" ;;
	esac
	front_opt[$n]=$v
	if [[ ${front_mm_arg[$n]} == '['* ]]; then
		front_mm_args+=("$3") front_run_args+=("$3")
	elif [ "${front_mm_type[$n]}" = flag ]; then
		[ -z "$v" ] || usage_die "--$n takes no value"
		front_mm_args+=("--$n") front_run_args+=("--$n")
	elif [ "${front_mm_key[$n]}" != - ]; then
		front_mm_args+=("-${front_mm_key[$n]}" "$v") front_run_args+=("--$n" "$v")
	else
		front_mm_args+=("--$n" "$v") front_run_args+=("--$n" "$v")
	fi
	front_timeout=${front_opt[timeout]:-900} front_precision=${front_opt[precision]:-}
	front_max_iter=${front_opt[max-iterations]:-} front_max_time=${front_opt[max-time]:-}
	[ -z "${front_opt[profile]+set}" ] || front_profile=1
}

# The grammar of numbers in shell, for the checks that run before mmbench
# is built (--help, --dry-run): a copy of bench/results/numbers.c's rule,
# held to it by tests/core/test_number_rule.sh (mmbench check decimal and
# check integer on the same inputs).
# front_decimal_ok V: [-]digits[.digits][e[+-]digits] or [-].digits[...]
front_decimal_ok() { [[ $1 =~ ^-?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$ ]]; }
# front_integer_ok V: [-]digits (leading zeros allowed), at most 18 digits
# (mmbench's: fits 64 bits)
front_integer_ok() { [[ $1 =~ ^-?[0-9]{1,18}$ ]]; }

# front_in_range V MIN MAX: V is a whole number (front_integer_ok) from MIN
# to MAX.
front_in_range()
{
	front_integer_ok "$1" && [[ $1 =~ ^(-?)0*([0-9]+)$ ]] && [ ${#BASH_REMATCH[2]} -le 15 ] &&
		[ "${BASH_REMATCH[1]}${BASH_REMATCH[2]}" -ge "$2" ] &&
		[ "${BASH_REMATCH[1]}${BASH_REMATCH[2]}" -le "$3" ]
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
	front_mm_checks
	if [ -n "$front_max_runs" ]; then
		[ "$front_max_runs" -ge "$front_runs" ] ||
			usage_die "--max-runs $front_max_runs is below --runs $front_runs"
	else
		front_max_runs=$((front_runs * 3 > 100 ? 100 : front_runs * 3))
	fi
}

# front_mm_checks: mmbench's options together: --max-iterations,
# --max-time and --max-runs limit --precision; --max-time is below
# --timeout. Bad input exits 2 naming it.
front_mm_checks()
{
	local l

	if [ -z "$front_precision" ]; then
		for l in max-iterations:$front_max_iter max-time:$front_max_time max-runs:$front_max_runs; do
			[ -z "${l#*:}" ] || usage_die "--${l%%:*} limits --precision P, which is not given"
		done
	fi
	[ -z "$front_max_time" ] || [ "$front_max_time" -lt "$front_timeout" ] ||
		usage_die "--max-time $front_max_time is not below --timeout $front_timeout: the case would be killed first"
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
