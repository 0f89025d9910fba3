# shellcheck shell=bash
# tools/nightly, part: history.csv rows, the pending run's facts, and the suite run
# on this host or in the VM lab.
# Sourced by tools/nightly (at its top level), which sets the variables
# used here.

# ---------------------------------------------------------------- history

pending='' p_run_dir='' p_start=0 p_date='' p_label='' p_kernel='' suite_log=''
# A row of history.csv from the pending run's facts plus STATUS and REASON.
history_row() {
	local status=$1 reason=$2 end dir=$p_run_dir
	end=$(date +%s)
	[ -n "$dir" ] && [ ! -d "$dir" ] && dir=
	"$mmhistory" append "$hist" "date=$p_date" "host=$host" "label=${p_label:-unknown}" \
		"kernel=${p_kernel:-unknown}" "run_dir=$dir" "status=$status" \
		"duration_s=$((${p_end:-$end} - p_start))" "worse_vs_baseline=${worse_base:-}" \
		"worse_vs_previous=${worse_prev:-}" "reason=$reason" ||
		say "nightly: could not append to $hist (see the message above)"
	rm -f "$pending"
}

write_pending() {
	local tmp=$pending.tmp
	printf '%s\n' "p_date=$p_date" "p_start=$p_start" "p_label=$p_label" \
		"p_kernel=$p_kernel" "p_run_dir=$p_run_dir" >"$tmp" && mv -f "$tmp" "$pending"
}

# A run killed with SIGKILL (or a crash of the machine) left its pending
# facts: record it as failed now, so history.csv has every run.
recover_pending() {
	local p_date p_start p_label p_kernel p_run_dir p_end worse_base='' worse_prev='' line died=''
	[ -f "$pending" ] || return 0
	while IFS= read -r line; do
		case "$line" in
		p_date=*|p_start=*|p_label=*|p_kernel=*|p_run_dir=*) printf -v "${line%%=*}" '%s' "${line#*=}" ;;
		esac
	done <"$pending"
	[[ ${p_start:-} =~ ^[0-9]+$ ]] || { rm -f "$pending"; return 0; }
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
# the suite (mmbench restores its settings), record the run as failed.
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

# Run the suite on this host under the time limit; sets run_rc.
run_host_suite() {
	local args=(suite "$suite_file" --label "$label") m ns
	[ -n "${cfg[iterations]}" ] && args+=(-i "${cfg[iterations]}")
	[ -n "${cfg[warmups]}" ] && args+=(-w "${cfg[warmups]}")
	[ -n "${cfg[case_timeout]}" ] && args+=(--timeout "${cfg[case_timeout]}")
	for m in "${meta[@]}"; do
		args+=(--meta "$m")
	done
	# Start on a fresh second: mmbench stamps its run id when it starts,
	# and the run directory's name should carry the same second.
	ns=$(date +%N)
	sleep "0.$(printf '%09d' $((1000000000 - 10#$ns)))"
	p_run_dir=$root/$label/$(date +%Y%m%d-%H%M%S)-$host
	args+=(-o "$p_run_dir")
	# A new directory: never one that exists (the driver would append to
	# another run's files).
	if ! { mkdir -p -- "$root/$label" && mkdir -- "$p_run_dir"; } 2>"$suite_log"; then
		run_rc=1 p_run_dir=''
		return
	fi
	write_pending
	timeout -k 60 "$suite_limit" "$mmbench" "${args[@]}" >"$suite_log" 2>&1 &
	child=$!
	wait "$child"
	run_rc=$?
	child=
}

# The same inside a QEMU guest (tools/vm/lab); the run directory is the
# lab's, so the nightly's facts are added to its meta.csv afterwards.
run_vm_suite() {
	local args=(--vm "${cfg[vm]}" --suite "$suite_file" --out "$root") extra
	[ -n "$label" ] && args+=(--label "$label")
	[ -n "${cfg[iterations]}" ] && args+=(--iterations "${cfg[iterations]}")
	[ -n "${cfg[warmups]}" ] && args+=(--warmups "${cfg[warmups]}")
	[ -n "${cfg[case_timeout]}" ] && args+=(--timeout "${cfg[case_timeout]}")
	local prog=("$top/tools/vm/lab") lx
	read -r -a extra <<<"${cfg[vm_args]}"
	# On a LAVA device pool: the same options, the same "results: DIR" and
	# "NAME: FAILED: ..." lines; an Incomplete or Canceled job is a failed
	# run with LAVA's reason, as a dead guest is.
	if [ "${cfg[lava]}" = yes ]; then
		prog=("$top/tools/lava/lava" run)
		read -r -a lx <<<"${cfg[lava_args]}"
		extra+=("${lx[@]}")
	fi
	timeout -k 60 "$suite_limit" "${prog[@]}" "${args[@]}" "${extra[@]}" \
		>"$suite_log" 2>&1 &
	child=$!
	wait "$child"
	run_rc=$?
	child=
	p_run_dir=$(sed -n 's/^results: //p' "$suite_log" | tail -n1)
	[ -n "$p_run_dir" ] && [ -f "$p_run_dir/meta.csv" ] || { p_run_dir=; return; }
	p_label=$("$mmhistory" meta-get "$p_run_dir/meta.csv" label || echo unknown)
	"$mmhistory" meta-add "$p_run_dir/meta.csv" "${meta[@]}"
	write_pending
}

# The run's status and reason from the driver's exit code.
run_outcome() {
	local why k
	# The kernel that ran the workloads, as the run recorded it.
	if [ -n "$p_run_dir" ] && [ -f "$p_run_dir/meta.csv" ] &&
		k=$("$mmhistory" meta-get "$p_run_dir/meta.csv" kernel_release 2>/dev/null); then
		p_kernel=$k
	fi
	# The lab's own verdict on a failed guest (it names the case the guest
	# died in) beats the log's last line, which is the console's.
	why=$(sed -n 's/^[a-z]*: FAILED: \(.*\); last console lines:$/\1/p' "$suite_log" 2>/dev/null |
		tail -n1 | cut -c1-300)
	[ -n "$why" ] || why=$(grep -v '^$' "$suite_log" 2>/dev/null | tail -n1 | cut -c1-200)
	case $run_rc in
	0) status=ok reason= ;;
	4) status=skipped reason="every case was skipped (reasons in cases.csv)" ;;
	1) status=failed reason="a case failed or the guest failed (cases.csv, run.log): $why" ;;
	124|137) status=failed reason="over the time limit: the suite was stopped after $suite_limit s" ;;
	2) status=failed reason="usage error: $why" ;;
	*) status=failed reason="the driver exited $run_rc: $why" ;;
	esac
	if [ -z "$p_run_dir" ] || [ ! -s "$p_run_dir/results.csv" ]; then
		[ "$status" = ok ] && status=failed reason="no results.csv: $why"
	fi
}
