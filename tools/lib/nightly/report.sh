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
	elif [ "${worse_base:-0}" -gt 0 ] || [ "${worse_prev:-0}" -gt 0 ] || [ "${cp_new:-0}" -gt 0 ]; then
		echo "REGRESSION"
	elif [ "$status" = skipped ]; then
		echo "SKIPPED (nothing measured)"
	elif [ "$status" = not_measured ]; then
		echo "ok (a case not measured: the host disturbed it)"
	else
		echo "ok"
	fi
}

exit_code() {
	case "$(verdict)" in
	REFUSED|FAILED) echo 1 ;;
	REGRESSION) echo 3 ;;
	# a case the host disturbed measured nothing: not the kernel's failure
	*) echo 0 ;;
	esac
}

summary() {
	local dur=$(($(date +%s) - p_start))
	say "mmbench nightly on $host: $(verdict)"
	say "started $p_date, ${dur} s; kernel $p_kernel, label ${p_label:-?}, suite ${cfg[suite]}${cfg[vm]:+ in a VM (${cfg[vm]})}"
	say "run: $status${reason:+: $reason}${p_run_dir:+; results $p_run_dir}"
	local i
	for i in "${!night_runs[@]}"; do
		[ "${night_runs[$i]}" = "$p_run_dir" ] && continue
		say "  also: ${night_runs[$i]} (${night_st[$i]}${night_why[$i]:+: ${night_why[$i]}})"
	done
	say "at start: load average $load_avg, $procs running/total; busy: ${busy:-not sampled}; MemAvailable $mem_mb MiB, disk free $disk_mb MiB"
	[ -n "${base_text:-}" ] && say "$base_text"
	[ -n "${prev_text:-}" ] && say "$prev_text"
	[ -n "${rerun_note:-}" ] && say "$rerun_note"
	[ -n "${cp_suspects:-}" ] && say "suspected before the rerun:" && say "$cp_suspects"
	[ -n "${cp_text:-}" ] && say "$cp_text"
	if [ -n "${ledger_text:-}" ]; then
		say "open regressions of $host (since when; bisect between the last good and the first bad run):"
		say "$ledger_text"
	fi
	[ -n "${retention_text:-}" ] && say "$retention_text"
	[ -n "${trend_text:-}" ] && say "$trend_text"
	[ -n "${ndir:-}" ] && say "report: $ndir/report.md"
	[ -n "${det_text:-}" ] && say "$det_text"
	case "$(exit_code)" in
	0) say "exit 0: no new regression" ;;
	3) say "exit 3: a new regression (see above)" ;;
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
		[ -f "$ndir/changes.csv" ] && echo "- [every metric's change points](changes.csv)"
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
