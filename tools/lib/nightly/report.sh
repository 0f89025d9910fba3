# shellcheck shell=bash
# tools/nightly, part: the verdict, the exit code, the summary, report.md and the
# notification commands.
# Sourced by tools/nightly (at its top level), which sets the variables
# used here.

# ---------------------------------------------------------------- summary

verdict() {
	if [ "$status" = refused ]; then
		echo "REFUSED"
	elif [ "$status" = failed ] || [ "$judged_fail" = 1 ]; then
		echo "FAILED"
	elif [ "${worse_base:-0}" -gt 0 ] || [ "${worse_prev:-0}" -gt 0 ]; then
		echo "REGRESSION"
	elif [ "$status" = skipped ]; then
		echo "SKIPPED (nothing measured)"
	else
		echo "ok"
	fi
}

exit_code() {
	case "$(verdict)" in
	REFUSED|FAILED) echo 1 ;;
	REGRESSION) echo 3 ;;
	*) echo 0 ;;
	esac
}

summary() {
	local dur=$(($(date +%s) - p_start))
	say "mmbench nightly on $host: $(verdict)"
	say "started $p_date, ${dur} s; kernel $p_kernel, label ${p_label:-?}, suite ${cfg[suite]}${cfg[vm]:+ in a VM (${cfg[vm]})}"
	say "run: $status${reason:+: $reason}${p_run_dir:+; results $p_run_dir}"
	say "at start: load average $load_avg, $procs running/total; busy: ${busy:-not sampled}; MemAvailable $mem_mb MiB, disk free $disk_mb MiB"
	[ -n "${base_text:-}" ] && say "$base_text"
	[ -n "${prev_text:-}" ] && say "$prev_text"
	if [ -n "${ledger_text:-}" ]; then
		say "open regressions of $host against $base_id (since when):"
		say "$ledger_text"
	fi
	[ -n "${retention_text:-}" ] && say "$retention_text"
	[ -n "${trend_text:-}" ] && say "$trend_text"
	[ -n "${ndir:-}" ] && say "report: $ndir/report.md"
	case "$(exit_code)" in
	0) say "exit 0: nothing judged is significantly worse" ;;
	3) say "exit 3: something judged is significantly worse (see above)" ;;
	*) say "exit 1: the run failed or could not be judged" ;;
	esac
}

write_report() {
	local out=$ndir/report.md sub
	{
		echo "# mmbench nightly: $host, $p_date"
		echo
		echo '```'
		cat "$ndir/summary.txt"
		echo '```'
		echo
		for sub in vs-baseline vs-previous; do
			[ -f "$ndir/$sub/report.md" ] && echo "- [$sub]($sub/report.md)"
		done
		[ -f "$root/trends/$host/report.md" ] &&
			echo "- [trends of $host]($(realpath --relative-to="$ndir" "$root/trends/$host/report.md"))"
		echo "- [suite log](suite.log)"
	} >"$out"
}

# notify KEY: run on_regression / on_failure with the summary on stdin,
# in the config's directory, without the lock's descriptor (a mailer that
# forks into the background must not keep the next night out).
notify() {
	local cmd=${cfg[$1]} rc
	[ -n "$cmd" ] || return 0
	NIGHTLY_HOST=$host NIGHTLY_VERDICT=$(verdict) NIGHTLY_EXIT=$(exit_code) \
		NIGHTLY_REPORT=${ndir:+$ndir/report.md} NIGHTLY_RUN_DIR=$p_run_dir \
		timeout -k 5 "${cfg[notify_timeout]}" sh -c "cd \"\$1\" && $cmd" sh "$confdir" \
		<"$summary_file" >"$state/notify.log" 2>&1 9>&-
	rc=$?
	[ $rc -eq 0 ] || say "nightly: $1 command exited $rc: $(tail -n1 "$state/notify.log")"
}
