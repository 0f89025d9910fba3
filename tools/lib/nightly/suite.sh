# shellcheck shell=bash
# tools/nightly, part: history.csv rows, the pending night's facts, and the
# suite's runs on this host or in the VM lab.
# Sourced by tools/nightly (at its top level), which sets the variables
# used here.

# ---------------------------------------------------------------- history

# The night's runs: night_runs[i] a run directory (the first is p_run_dir,
# where the night's reports go), night_st[i] its status (ok, not_measured,
# failed, skipped), night_why[i] its reason. rerun_dir: the rerun of a
# suspected regression, one of them.
pending='' p_run_dir='' p_start=0 p_date='' p_label='' p_kernel='' suite_log=''
night_runs=() night_st=() night_why=() rerun_dir='' night_fail=''

# A row of history.csv: DIR STATUS REASON, with the night's facts.
history_row_for() {
	local dir=$1 status=$2 reason=$3 end
	end=$(date +%s)
	[ -n "$dir" ] && [ ! -d "$dir" ] && dir=
	"$mmhistory" append "$hist" "date=$p_date" "host=$host" "label=${p_label:-unknown}" \
		"kernel=${p_kernel:-unknown}" "run_dir=$dir" "status=$status" \
		"duration_s=$((${p_end:-$end} - p_start))" "worse_vs_baseline=${worse_base:-}" \
		"worse_vs_previous=${worse_prev:-}" "reason=$reason" ||
		say "nightly: could not append to $hist (see the message above)"
}

# history_row STATUS REASON: the night's rows, then no pending night. A
# night of several runs (runs = N, a rerun) has a row for each, all with
# the night's date: the history's nights are its dates. STATUS and REASON
# are the night's when it has no run (refused, the build failed), else a
# run's own status wins over ok and the night's reason follows its own.
history_row() {
	local status=$1 reason=$2 i st why
	if [ ${#night_runs[@]} -eq 0 ]; then
		history_row_for "$p_run_dir" "$status" "$reason"
	fi
	for i in "${!night_runs[@]}"; do
		st=${night_st[$i]:-$status} why=${night_why[$i]:-}
		[ "$status" = ok ] || [ "$status" = not_measured ] || st=$status
		[ "$st" = "$status" ] && why=$reason
		[ "${night_runs[$i]}" = "$rerun_dir" ] && why="the rerun of a suspected regression${why:+; $why}"
		history_row_for "${night_runs[$i]}" "$st" "$why"
	done
	rm -f "$pending"
}

write_pending() {
	local tmp=$pending.tmp d
	{
		printf '%s\n' "p_date=$p_date" "p_start=$p_start" "p_label=$p_label" \
			"p_kernel=$p_kernel" "p_run_dir=$p_run_dir"
		for d in "${night_runs[@]}"; do
			[ "$d" = "$p_run_dir" ] || printf 'p_run=%s\n' "$d"
		done
	} >"$tmp" && mv -f "$tmp" "$pending"
}

# A night killed with SIGKILL (or a crash of the machine) left its pending
# facts: record its runs as failed now, so history.csv has every run.
recover_pending() {
	local p_date p_start p_label p_kernel p_run_dir p_end worse_base='' worse_prev='' line died=''
	local night_runs=() night_st=() night_why=() rerun_dir='' night_fail=''
	[ -f "$pending" ] || return 0
	while IFS= read -r line; do
		case "$line" in
		p_date=*|p_start=*|p_label=*|p_kernel=*|p_run_dir=*) printf -v "${line%%=*}" '%s' "${line#*=}" ;;
		p_run=*) night_runs+=("${line#*=}") ;;
		esac
	done <"$pending"
	[[ ${p_start:-} =~ ^[0-9]+$ ]] || { rm -f "$pending"; return 0; }
	[ -n "$p_run_dir" ] && night_runs=("$p_run_dir" "${night_runs[@]}")
	p_end=$(stat -c %Y "$p_run_dir/run.log" 2>/dev/null || stat -c %Y "$pending")
	# A crash of the machine mid-case (a kernel under test that panics)
	# leaves the case in started.csv without a cases.csv row: name it.
	[ -n "$p_run_dir" ] && [ -d "$p_run_dir" ] &&
		died=$("$top/bench/mmbench" summary "$p_run_dir" 2>/dev/null |
			sed -n 's/^died *\(.*\]\): started \([^ ]*\) .*/\1, started \2/p' | head -n1)
	history_row failed "interrupted: the nightly was killed (SIGKILL or a crash)${died:+ while this case ran: $died}; recorded by the next start at $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	say "nightly: recorded the interrupted run of $p_date as failed"
}

# ---------------------------------------------------------------- the run

child=
phase=starting
# SIGTERM/SIGINT/SIGHUP (a stop of the systemd unit, a kill by hand): stop
# the suite (mmbench restores its settings), record the night as failed.
on_signal() {
	local sig=$1 i
	trap '' TERM INT HUP
	if [ -n "$child" ] && kill -0 "$child" 2>/dev/null; then
		kill -TERM "$child" 2>/dev/null
		for ((i = 0; i < 600 && $(kill -0 "$child" 2>/dev/null && echo 1 || echo 0); i++)); do
			sleep 0.1
		done
		kill -KILL "$child" 2>/dev/null
	fi
	if [ -n "$p_run_dir" ] && [ -d "$p_run_dir" ] && [ -f "$suite_log" ]; then
		mkdir -p "$p_run_dir/nightly" && mv -f "$suite_log" "$p_run_dir/nightly/suite.log"
	fi
	if [ -f "$pending" ]; then
		history_row failed "killed by SIG$sig during $phase after $(($(date +%s) - p_start)) s"
		say "mmbench nightly on $host: FAILED: killed by SIG$sig during $phase"
	fi
	exit 1
}

# ---------------------------------------------------------------- the host

# What the host gave the suite: the share of every CPU's time that went
# to processes other than the suite (and its workloads, or the lab's
# guest) or to the hypervisor's other guests (steal), while it ran. Kernel
# threads (kswapd, kcompactd: the kernel under test at work) are not
# others. From /proc/stat, the suite's own CPU time (the nightly's
# children, reaped) and the kernel threads' (/proc/PID/stat, flag
# PF_KTHREAD) before and after.
# host_snap VAR: "busy total steal children_s kthreads" into VAR. Not in
# a $(...): `times` must run in this shell to see its reaped children's
# user and system time.
host_snap() {
	local t=$state/times.$$ kids rest a1 a2 a3 a4
	times >"$t"
	kids=$(awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); s += a[1] * 60 + a[2] }
		print s }' "$t")
	rm -f "$t"
	rest=$({
		awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9, $9
			exit }' /proc/stat
		# PF_KTHREAD (0x00200000) in the flags, the 9th field; cat goes on
		# past a process that ended meanwhile, where awk would stop
		cat /proc/[0-9]*/stat 2>/dev/null | awk '{ c = length($0)
			while (c > 0 && substr($0, c, 1) != ")") c--
			split(substr($0, c + 2), f, " ")
			if (int(f[7] / 2097152) % 2) k += f[12] + f[13]
		} END { print k + 0 }'
	} | paste -sd' ')
	# busy total steal, then the children's seconds, then the kthreads'
	read -r a1 a2 a3 a4 <<<"$rest"
	printf -v "$1" '%s %s %s %s %s' "$a1" "$a2" "$a3" "${kids:-0}" "$a4"
}

# host_busy BEFORE AFTER: "OTHERS_PCT STEAL_PCT" between two host_snap
# lines ("busy total steal children_s kthreads", ticks but children_s).
# MMBENCH_NIGHTLY_HOST_BUSY="OTHERS_PCT STEAL_PCT" gives the share instead
# of measuring it: the tests' stand-in driver runs a suite in milliseconds,
# in which the share is whatever other tests did at that instant, and the
# rule that compares it (nightly.md, "not the host") would judge that.
host_busy() {
	local v=${MMBENCH_NIGHTLY_HOST_BUSY:-}

	if [ -n "$v" ]; then
		if [[ $v =~ ^(100(\.0+)?|[1-9]?[0-9](\.[0-9]+)?)\ (100(\.0+)?|[1-9]?[0-9](\.[0-9]+)?)$ ]]; then
			echo "$v"
			return
		fi
		echo "nightly: MMBENCH_NIGHTLY_HOST_BUSY '$v': want 'OTHERS_PCT STEAL_PCT', two numbers 0 to 100; measured instead" >&2
	fi
	awk -v a="$1" -v b="$2" -v hz="$(getconf CLK_TCK)" 'BEGIN {
		if (split(a, x, " ") < 5 || split(b, y, " ") < 5) exit
		tot = y[2] - x[2]
		if (tot <= 0) exit
		others = (y[1] - x[1]) - (y[4] - x[4]) * hz - (y[5] - x[5])
		if (others < 0) others = 0
		printf "%.1f %.1f\n", 100 * others / tot, 100 * (y[3] - x[3]) / tot
	}'
}

# ---------------------------------------------------------------- a run

# A new run directory of the night: RESULTS/LABEL/STAMP-HOST, never one
# that exists (the driver would append to another run's files). Starts on
# a fresh second: mmbench stamps its run id when it starts, and the
# directory's name should carry the same second.
new_run_dir() {
	local ns d
	ns=$(date +%N)
	sleep "0.$(printf '%09d' $((1000000000 - 10#$ns)))"
	d=$root/$label/$(date +%Y%m%d-%H%M%S)-$host
	{ mkdir -p -- "$root/$label" && mkdir -- "$d"; } 2>>"$suite_log" || return 1
	echo "$d"
}

# run_once SUITE_FILE K N [rerun]: one invocation of the suite, on this
# host or in the VM lab, under the time left; appends to the night's runs.
# Sets run_rc (124/137: over the time limit).
run_once() {
	local suite=$1 k=$2 n=$3 re=${4:-} left dir b0 b1 busy m b
	local run_meta=("${meta[@]}" "nightly_run=$k/$n")
	[ -n "$re" ] && run_meta+=("nightly_rerun=1")
	left=$((suite_deadline - $(date +%s)))
	if [ "$left" -lt 1 ]; then
		run_rc=124
		return
	fi
	host_snap b0
	if [ -n "${cfg[vm]}" ]; then
		run_vm "$suite" "$left" "${run_meta[@]}"
		dir=$vm_dir
	else
		dir=$(new_run_dir) || { run_rc=1; return; }
		[ -n "$p_run_dir" ] || p_run_dir=$dir
		night_runs+=("$dir") night_st+=(failed) night_why+=("")
		[ -n "$re" ] && rerun_dir=$dir
		write_pending
		run_host "$suite" "$dir" "$left" "${run_meta[@]}"
	fi
	host_snap b1
	if [ -z "$dir" ]; then
		run_outcome ""
		night_fail=$r_reason
		return
	fi
	# the VM's run directory is known once the lab is done
	if [ -n "${cfg[vm]}" ]; then
		[ -n "$p_run_dir" ] || p_run_dir=$dir
		night_runs+=("$dir") night_st+=(failed) night_why+=("")
		[ -n "$re" ] && rerun_dir=$dir
		write_pending
	fi
	busy=$(host_busy "$b0" "$b1")
	m=()
	[ -n "$busy" ] && m+=("nightly_host_busy_pct=${busy% *}" "nightly_steal_pct=${busy#* }")
	[ -f "$dir/meta.csv" ] && [ ${#m[@]} -gt 0 ] && "$mmhistory" meta-add "$dir/meta.csv" "${m[@]}"
	run_outcome "$dir"
	b=$((${#night_runs[@]} - 1))
	night_st[$b]=$r_status night_why[$b]=$r_reason
}

# night_run_opts: the config's run options (iterations, warmups and
# case_timeout, mmbench's --timeout) as mmbench's arguments
# (front_mm_args) and the lab's (front_run_args), through the run
# options' table (tools/lib/front.sh): checked by mmbench's rules.
night_run_opts() {
	local k o
	front_mm_args=() front_run_args=()
	for k in iterations warmups case_timeout; do
		o=${k#case_}
		[ -z "${cfg[$k]}" ] || front_mm_opt "$o" "${cfg[$k]}" "--$o=${cfg[$k]}"
	done
}

# run_host SUITE DIR LIMIT META...: the suite on this host into DIR.
run_host() {
	local suite=$1 dir=$2 lim=$3 m args
	shift 3
	args=(suite "$suite" --label "$label" "${front_mm_args[@]}")
	for m in "$@"; do
		args+=(--meta "$m")
	done
	args+=(-o "$dir")
	echo "--- $(date -u +%H:%M:%S) mmbench ${args[*]}" >>"$suite_log"
	timeout -k 60 "$lim" "$mmbench" "${args[@]}" >>"$suite_log" 2>&1 &
	child=$!
	wait "$child"
	run_rc=$?
	child=
}

# run_vm SUITE LIMIT META...: the same inside a QEMU guest (tools/vm/lab);
# the run directory is the lab's (vm_dir), so the nightly's facts are added
# to its meta.csv afterwards.
run_vm() {
	local suite=$1 lim=$2 args extra prog=("$top/tools/vm/lab") lx log=$state/vm-$host.log
	shift 2
	args=(--vm "${cfg[vm]}" --suite "$suite" --out "$root")
	[ -n "$label" ] && args+=(--label "$label")
	args+=("${front_run_args[@]}")
	read -r -a extra <<<"${cfg[vm_args]}"
	# On a LAVA device pool: the same options, the same "results: DIR" and
	# "NAME: FAILED: ..." lines; an Incomplete or Canceled job is a failed
	# run with LAVA's reason, as a dead guest is.
	if [ "${cfg[lava]}" = yes ]; then
		prog=("$top/tools/lava/lava" run)
		read -r -a lx <<<"${cfg[lava_args]}"
		extra+=("${lx[@]}")
	fi
	timeout -k 60 "$lim" "${prog[@]}" "${args[@]}" "${extra[@]}" >"$log" 2>&1 &
	child=$!
	wait "$child"
	run_rc=$?
	child=
	cat "$log" >>"$suite_log"
	vm_dir=$(sed -n 's/^results: //p' "$log" | tail -n1)
	[ -n "$vm_dir" ] && [ -f "$vm_dir/meta.csv" ] || { vm_dir=; return; }
	p_label=$("$mmhistory" meta-get "$vm_dir/meta.csv" label || echo unknown)
	"$mmhistory" meta-add "$vm_dir/meta.csv" "$@"
}

# The night's runs: `runs` invocations of the suite (separate processes,
# separate run directories of the same label), while time is left.
run_suite() {
	local k n=${cfg[runs]}
	suite_deadline=$((p_start + suite_limit))
	for ((k = 1; k <= n; k++)); do
		run_once "$suite_file" "$k" "$n"
		case $run_rc in 124|137) break ;; esac
	done
	night_outcome
}

# ---------------------------------------------------------------- outcome

# A case the host disturbed, not the kernel: thp_storm's host guard (see
# "guard" in workloads/thp_storm.c) gave up on a storm after its retries,
# saying "storm of ... disturbed in N attempts, the last: ...; free page
# reporting: the storm measured the host)". Such a case measured nothing:
# it is "not measured", not a failure of the kernel.
host_disturbed_re='disturbed in [0-9]+ attempts.*the storm measured the host'

# The cases of DIR that failed, "WORKLOAD<TAB>CASE<TAB>REASON" lines.
failed_cases() {
	[ -f "$1/cases.csv" ] || return 0
	"$top/bench/mmbench" field --where status=fail "$1/cases.csv" workload case reason 2>/dev/null
	"$top/bench/mmbench" field --where status=timeout "$1/cases.csv" workload case reason 2>/dev/null
}

# run_outcome DIR: r_status and r_reason of one run from the driver's exit
# code (run_rc), and its cases the host disturbed (appended to
# $state/not-measured-$host: "WORKLOAD<TAB>CASE" lines, for the digest).
run_outcome() {
	local dir=$1 why k fails nm
	# The kernel that ran the workloads, as the run recorded it.
	if [ -n "$dir" ] && [ -f "$dir/meta.csv" ] &&
		k=$("$mmhistory" meta-get "$dir/meta.csv" kernel_release 2>/dev/null); then
		p_kernel=$k
	fi
	# The lab's own verdict on a failed guest (it names the case the guest
	# died in) beats the log's last line, which is the console's.
	why=$(sed -n 's/^[a-z]*: FAILED: \(.*\); last console lines:$/\1/p' "$suite_log" 2>/dev/null |
		tail -n1 | cut -c1-300)
	[ -n "$why" ] || why=$(grep -v '^$' "$suite_log" 2>/dev/null | tail -n1 | cut -c1-200)
	case $run_rc in
	0) r_status=ok r_reason= ;;
	4) r_status=skipped r_reason="every case was skipped (reasons in cases.csv)" ;;
	1)
		r_status=failed r_reason="a case failed or the guest failed (cases.csv, run.log): $why"
		fails=$(failed_cases "$dir")
		nm=$(grep -E "$host_disturbed_re" <<<"$fails")
		if [ -n "$nm" ]; then
			# those measured nothing, whatever else failed
			cut -f1,2 <<<"$nm" >>"$state/not-measured-$host"
			nm="not measured: $(awk -F'\t' '{ printf "%s%s [%s]", sep, $1, $2; sep = "; " }' <<<"$nm"): the host disturbed it ($(head -n1 <<<"$nm" | cut -f3 | cut -c1-160))"
			if grep -Eqv "$host_disturbed_re" <<<"$fails"; then
				r_reason+="; $nm"
			else
				r_status=not_measured r_reason=$nm
			fi
		fi
		;;
	124|137) r_status=failed r_reason="over the time limit: the suite was stopped after $suite_limit s" ;;
	2) r_status=failed r_reason="usage error: $why" ;;
	*) r_status=failed r_reason="the driver exited $run_rc: $why" ;;
	esac
	if [ -z "$dir" ] || [ ! -s "$dir/results.csv" ]; then
		[ "$r_status" = ok ] && r_status=failed r_reason="no results.csv: $why"
	fi
}

# The night's status and reason from its runs: failed when one failed (or
# none was made), skipped when all skipped, not_measured when a case the
# host disturbed is all that went wrong, else ok.
night_outcome() {
	local i st=ok why='' nm=0
	if [ ${#night_runs[@]} -eq 0 ]; then
		status=failed reason=${night_fail:-"no run directory: $(grep -v '^$' "$suite_log" 2>/dev/null | tail -n1 | cut -c1-200)"}
		return
	fi
	for i in "${!night_runs[@]}"; do
		case ${night_st[$i]} in
		failed) st=failed why=${night_why[$i]}; break ;;
		skipped) [ "$st" = ok ] && st=skipped why=${night_why[$i]} ;;
		not_measured) nm=1; [ -z "$why" ] && why=${night_why[$i]} ;;
		esac
	done
	[ "$st" = ok ] && [ $nm = 1 ] && st=not_measured
	status=$st reason=$why
}
