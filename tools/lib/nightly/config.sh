# shellcheck shell=bash
# tools/nightly, part: the config (read as key = value lines, never sourced; checked
# value by value) and the machine's facts at start.
# Sourced by tools/nightly (at its top level), which sets the variables
# used here.

# ---------------------------------------------------------------- config

declare -A cfg=(
	[suite]='' [iterations]='' [warmups]='' [case_timeout]='' [label]='' [results]=''
	[baseline]='' [pool_hosts]=no [alpha]=0.05 [min_change_pct]=0 [judge]=''
	[force_compare]=no [retention_days]=0 [time_limit]=4h [need_disk_mb]=1024
	[need_mem_mb]=1024 [busy_cpu_pct]=10 [vm]='' [vm_args]='' [lava]=no [lava_args]='' [on_regression]=''
	[on_failure]='' [notify_timeout]=60 [lock]='' [trends]=yes [compare_plots]=yes
	[runs]=2 [rerun_suspect]=yes [confirm_nights]=2 [host_margin_pct]=10
	[change_min_sd]=2 [change_t_alpha]=0.0003
)
declare -A cfg_at=()

# A line of the config as an error message shows it: control characters
# as '?', at most 120 characters.
shown() {
	local v=${1//[$'\001'-$'\037'$'\177']/?}
	[ ${#v} -le 120 ] && printf '%s' "$v" || printf '%s...' "${v:0:120}"
}

read_config() {
	local file=$1 n=0 line key val size
	# Nothing in a config is long: a huge or binary file is not one (and
	# bash would read a NUL byte as the end of a line's value).
	size=$(stat -L -c %s -- "$file") || die 2 "config '$file': cannot stat it"
	[ "$size" -le 65536 ] || die 2 "$file: $size bytes: not a nightly config (at most 64 KiB)"
	[ "$(tr -d '\000' <"$file" | wc -c)" = "$size" ] ||
		die 2 "$file: holds NUL bytes: not a nightly config (a text file of key = value lines)"
	while IFS= read -r line || [ -n "$line" ]; do
		n=$((n + 1))
		line=${line%$'\r'}
		[[ $line =~ ^[[:space:]]*(#.*)?$ ]] && continue
		[[ $line == *[$'\001'-$'\010'$'\012'-$'\037'$'\177']* ]] &&
			die 2 "$file:$n: a control character in '$(shown "$line")'"
		[[ $line =~ ^[[:space:]]*([a-z_]+)[[:space:]]*=[[:space:]]*(.*)$ ]] ||
			die 2 "$file:$n: expected 'key = value', got '$(shown "$line")'"
		key=${BASH_REMATCH[1]}
		[[ -v cfg[$key] ]] ||
			die 2 "$file:$n: unknown key '$key' (known: $(printf '%s\n' "${!cfg[@]}" | sort | paste -sd' '))"
		[ -z "${cfg_at[$key]:-}" ] || die 2 "$file:$n: '$key' given twice (first on line ${cfg_at[$key]})"
		val=${BASH_REMATCH[2]}
		cfg[$key]=${val%"${val##*[![:space:]]}"}
		cfg_at[$key]=$n
	done <"$file"
}

# The config's on_regression and on_failure run as this user: a config
# that another user owns or may write would let them run commands here.
check_config_file() {
	local own mode
	read -r own mode < <(stat -L -c '%u %a' -- "$config")
	[ "$own" = "$EUID" ] || [ "$own" = 0 ] ||
		die 2 "config '$config': owned by uid $own, not by this user (uid $EUID) or root: its commands (on_failure, on_regression) would run as uid $EUID"
	[ $((8#$mode & 8#022)) -eq 0 ] ||
		die 2 "config '$config': mode $mode: others may write it, and its commands (on_failure, on_regression) run as uid $EUID: chmod go-w it"
}

# cfg_err KEY WHY: a bad value, named by file and line.
cfg_err() { die 2 "$config:${cfg_at[$1]:-?}: $1 = '$(shown "${cfg[$1]}")': $2"; }

check_uint() { # KEY MIN [MAX] (empty allowed): decimal, no leading zero
	local v=${cfg[$1]} max=${3:-999999999}
	[ -z "$v" ] && return
	[[ $v =~ ^(0|[1-9][0-9]{0,8})$ ]] && [ "$v" -ge "$2" ] && [ "$v" -le "$max" ] ||
		cfg_err "$1" "want a whole number from $2 to $max (decimal digits)"
}

check_dec() { # KEY MIN MAX WHY: a plain decimal (no sign, no exponent) in [MIN, MAX]
	local v=${cfg[$1]}
	[[ $v =~ ^[0-9]{1,3}(\.[0-9]{1,9})?$ ]] &&
		awk -v v="$v" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v + 0 >= lo + 0 && v + 0 <= hi + 0) }' ||
		cfg_err "$1" "$4"
}

# Seconds of "90", "90s", "30m", "4h" (at most a week).
duration_s() {
	[[ $1 =~ ^([1-9][0-9]{0,5})([smh]?)$ ]] || return 1
	case "${BASH_REMATCH[2]}" in
	h) echo $((BASH_REMATCH[1] * 3600)) ;;
	m) echo $((BASH_REMATCH[1] * 60)) ;;
	*) echo "${BASH_REMATCH[1]}" ;;
	esac
}

# A path in the config: absolute, or relative to the config's directory.
cfg_path() { case "$1" in /*) echo "$1" ;; *) echo "$confdir/$1" ;; esac; }

# Paths in the config name their place plainly: no '..' component (a
# relative path stays under the config's directory).
check_no_dotdot() {
	case "/${cfg[$1]}/" in
	*/../*) cfg_err "$1" "a '..' in the path: write it without (absolute, or under the config's directory)" ;;
	esac
}

# The significance level: the tools' own rule and message (mm_parse_alpha
# in bench/results/numbers.c), asked of this tree's mmbench (`mmbench check
# alpha`; MMBENCH may name another build), made first when missing: the
# config is checked before the night's build.
check_alpha() {
	local mm=$top/bench/mmbench why rc
	if [ ! -x "$mm" ]; then
		[ "${NIGHTLY_NO_BUILD:-0}" != 1 ] && front_build -q bench/mmbench ||
			die 1 "cannot check alpha: $mm is not built and could not be made (make bench/mmbench)"
	fi
	why=$("$mm" check alpha "${cfg[alpha]}" 2>&1 >/dev/null)
	rc=$?
	case $rc in
	0) ;;
	2) cfg_err alpha "${why#"mmbench: --alpha '${cfg[alpha]}': "}" ;;
	*) die 1 "cannot check alpha: $mm check alpha failed (exit $rc): $why" ;;
	esac
}

validate_config() {
	local k
	[ -n "${cfg[suite]}" ] || die 2 "$config: 'suite' is required (a suite file, or a name under bench/suites)"
	for k in iterations warmups case_timeout need_disk_mb need_mem_mb notify_timeout; do
		check_uint "$k" 1
	done
	check_uint retention_days 0 36500
	check_uint busy_cpu_pct 1 100
	check_uint runs 1 20
	check_uint confirm_nights 1 30
	check_uint host_margin_pct 0 100
	check_alpha
	[[ ${cfg[min_change_pct]} =~ ^[0-9]{1,6}(\.[0-9]{1,6})?$ ]] || cfg_err min_change_pct "want a percentage >= 0"
	# the change-point rule's two thresholds (tools/nightly.md "Judging the
	# history"): plain decimals, in the ranges the table there was measured in
	check_dec change_min_sd 0.5 20 "want a number of sd from 0.5 to 20 (decimal, e.g. 2 or 1.5)"
	check_dec change_t_alpha 0.000001 0.05 "want a p value from 0.000001 to 0.05 (decimal, e.g. 0.0003)"
	limit=$(duration_s "${cfg[time_limit]}") && [ "$limit" -ge 10 ] && [ "$limit" -le 604800 ] ||
		cfg_err time_limit "want a duration from 10 s to a week: N, Ns, Nm or Nh"
	for k in pool_hosts force_compare trends compare_plots rerun_suspect; do
		[[ ${cfg[$k]} =~ ^(yes|no)$ ]] || cfg_err "$k" "want yes or no"
	done
	[ -z "${cfg[label]}" ] || front_label_ok "${cfg[label]}" || cfg_err label "use $front_label_rule"
	local judge_re='^[A-Za-z0-9_.:*?[:blank:]-]*$'
	[[ ${cfg[judge]} =~ $judge_re ]] ||
		cfg_err judge "fnmatch patterns of metric names: letters, digits, _ . : - * ? and blanks"
	for k in suite results baseline vm; do
		check_no_dotdot "$k"
	done
	# vm: a kernel image (a file) or a release name for tools/vm/lab;
	# vm_args: words passed to it as they are (never to a shell).
	[ -z "${cfg[vm]}" ] || [ -f "$(cfg_path "${cfg[vm]}")" ] ||
		[[ ${cfg[vm]} =~ ^[a-z][a-z0-9._+-]{0,63}$ ]] ||
		cfg_err vm "want a kernel image file or a release name (e.g. bookworm)"
	local args_re='^[A-Za-z0-9_.,:=/+@%[:blank:]-]*$'
	[[ ${cfg[vm_args]} =~ $args_re ]] ||
		cfg_err vm_args "want lab options: letters, digits, blanks and _ . , : = / + @ % -"
	# lava = yes: the guest runs as a LAVA job (tools/lava/lava run) on the
	# device pool lava_args names, instead of a local QEMU (tools/vm/lab).
	[[ ${cfg[lava]} =~ ^(yes|no)$ ]] || cfg_err lava "want yes or no"
	[ "${cfg[lava]}" = no ] || [ -n "${cfg[vm]}" ] ||
		cfg_err lava "lava = yes needs vm = KERNEL (the kernel the job boots)"
	[[ ${cfg[lava_args]} =~ $args_re ]] ||
		cfg_err lava_args "want tools/lava/lava options: letters, digits, blanks and _ . , : = / + @ % -"
	resolve_suite
	root=$(cfg_path "${cfg[results]:-$FRONT_RESULTS}")
	check_results_root
	state=$root/.nightly
	hist=$root/history.csv
	ledger=$root/regressions.csv
	label=${cfg[label]}
	[ -n "$label" ] || [ -n "${cfg[vm]}" ] || label=$(uname -r)
}

# File systems that hold no results: the kernel's views (proc, sysfs and
# the like) accept a mkdir from root or refuse it, never keep a run.
pseudo_fs_re='^(proc|sysfs|devtmpfs|devpts|cgroup|cgroup2|cgroup2fs|debugfs|tracefs|securityfs|pstore|bpf|configfs|fusectl|mqueue|autofs|efivarfs|binfmt_misc|selinuxfs|nsfs|hugetlbfs|rpc_pipefs)$'

# fs_of PATH: the type of the file system that holds PATH, or of its
# nearest existing parent (stat -f; "proc", "ext2/ext3", "tmpfs"...).
fs_of() {
	local d=$1
	while [ ! -e "$d" ]; do d=$(dirname -- "$d"); done
	stat -f -c %T -- "$d" 2>/dev/null
}

# check_path_fs KEY PATH: PATH must not lie on a pseudo file system.
check_path_fs() {
	local t
	t=$(fs_of "$2")
	[[ $t =~ $pseudo_fs_re ]] &&
		cfg_err "$1" "$2 is on a $t file system (the kernel's own view, not storage): use a directory on a disk"
	return 0
}

# The results root: created by a night (not by --check), written by this
# user only. A root every user may write (or a .nightly in it that is not
# ours) would let them plant links that redirect the job's writes.
check_results_root() {
	local d=$root mode
	check_path_fs results "$root"
	if [ ! -e "$root" ] && [ "$check_only" = 1 ]; then
		while [ ! -e "$d" ]; do d=$(dirname "$d"); done
		[ -d "$d" ] && [ -w "$d" ] || cfg_err results "does not exist, and $d is not a directory this user can write"
		# a read-only file system says so to access(2) even for root
		root=$(realpath -m -- "$root")
		root_note=" (does not exist yet: the first night creates it)"
		return
	fi
	[ ! -L "$root" ] || [ -d "$root" ] || cfg_err results "a symbolic link to nothing"
	if [ "$check_only" = 1 ]; then
		# --check creates nothing: the root must be a directory this user
		# can write, and .nightly, when there, this user's.
		[ -d "$root" ] && [ -w "$root" ] || cfg_err results "not a directory this user can write"
	else
		# The job's own directory in it, made now: a root it cannot write in
		# (a read-only mount, /proc) is a config error, not a failed night.
		mkdir -p -- "$root" 2>/dev/null && [ -d "$root" ] && [ -w "$root" ] &&
			{ [ -L "$root/.nightly" ] || mkdir -p -- "$root/.nightly" 2>/dev/null; } ||
			cfg_err results "cannot create or write it"
	fi
	root=$(cd "$root" && pwd -P)
	check_path_fs results "$root"
	mode=$(stat -c %a -- "$root")
	[ $((8#$mode & 8#002)) -eq 0 ] ||
		cfg_err results "$root has mode $mode: every user may write it (and plant links for this job to follow): use a directory only its owners write"
	if [ -e "$root/.nightly" ] || [ -L "$root/.nightly" ]; then
		[ -d "$root/.nightly" ] && [ ! -L "$root/.nightly" ] &&
			[ "$(stat -c %u -- "$root/.nightly")" = "$EUID" ] ||
			cfg_err results "$root/.nightly is not a directory of this user (uid $EUID): remove it"
	fi
}

# --check: the driver parses the suite as a run would (--dry-run), so a
# file that is no suite is a config error now, not a failed night.
check_suite() {
	local out
	[ -x "$mmbench" ] || return 0
	out=$("$mmbench" suite "$suite_file" --dry-run 2>&1 >/dev/null) ||
		cfg_err suite "not a suite: $(tail -n 1 <<<"$out" | cut -c1-200)"
}

# The suite rule of every front door (tools/lib/front.sh), with paths
# from the config's directory.
resolve_suite() {
	front_suite "${cfg[suite]}" "$confdir" || cfg_err suite "$front_suite_why"
	suite_file=$front_suite_file
}

# The baseline: a run directory (absolute, or relative to the results
# root or the config) or a label (a directory under the results root).
resolve_baseline() {
	local b=${cfg[baseline]} p
	base_kind=none base_path='' base_id=$b
	[ -n "$b" ] || return 0
	for p in "$b" "$root/$b" "$(cfg_path "$b")"; do
		if [ -s "$p/results.csv" ]; then
			base_kind=run base_path=$(cd "$p" && pwd)
			return 0
		fi
	done
	if [[ $b != */* ]] && { [ -d "$root/$b" ] || [ "$b" = "$label" ]; }; then
		base_kind=label base_path=$root/$b
		return 0
	fi
	cfg_err baseline "not a run directory (with results.csv) and no label directory $root/$b"
}

# ---------------------------------------------------------------- machine

# Processes that used more than busy_cpu_pct of a CPU over one second,
# "comm(pid) NN%; ...", or "none": a noisy night shows in meta.csv.
# /proc/PID/stat: "pid (comm) state ..." where comm may hold blanks and
# parentheses; utime and stime are fields 14 and 15.
proc_ticks() {
	awk '{
		o = index($0, "("); c = length($0)
		while (c > o && substr($0, c, 1) != ")") c--
		comm = substr($0, o + 1, c - o - 1)
		gsub(/[^A-Za-z0-9._:\/-]/, "_", comm)
		split(substr($0, c + 2), f, " ")
		print $1, f[12] + f[13], comm
	}' /proc/[0-9]*/stat 2>/dev/null
}

busy_processes() {
	local t0 out
	t0=$(proc_ticks)
	sleep 1
	out=$(proc_ticks | awk -v hz="$(getconf CLK_TCK)" -v min="${cfg[busy_cpu_pct]}" \
		-v self=$$ -v t0="$t0" '
		BEGIN { n = split(t0, l, "\n"); for (i = 1; i <= n; i++) { split(l[i], f, " "); t[f[1]] = f[2] } }
		$1 != self && ($1 in t) {
			pct = int(($2 - t[$1]) * 100 / hz)
			if (pct >= min) { printf "%s%s(%s) %d%%", sep, $3, $1, pct; sep = "; " }
		}')
	echo "${out:-none}"
}

# The free space where DIR is, or will be: its nearest existing ancestor.
disk_free_mb() {
	local p=$1
	while [ ! -e "$p" ] && [ "$p" != / ] && [ -n "$p" ]; do p=$(dirname "$p"); done
	df -Pk "${p:-.}" 2>/dev/null | awk 'NR == 2 { print int($4 / 1024) }'
}
mem_available_mb() { awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo; }
