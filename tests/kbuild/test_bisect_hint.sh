#!/usr/bin/env bash
# The nightly's ledger points at tools/bisect: an open regression whose last
# good and first bad run measured kernels tools/kbuild built from one git
# tree (meta.csv kbuild_tree, kbuild_tree_id git:<commit>) prints the exact
# `./run.sh bisect` command (the row's workload and case as the suite line,
# its metric deciding, every value shell-quoted); rows whose runs do not
# record two commits of one tree print none. The printed command is then
# given to tools/bisect --help's parser by running it with an unknown
# tree: the refusal names the tree, so every option was understood.
{
set -u
. "$(dirname "$0")/../lib.sh"
make -s -C "$TOP" tools/mmtrend/mmhistory bench/mmbench >/dev/null 2>&1 ||
	{ fail bisect_hint "tools/mmtrend/mmhistory does not build"; finish; }
t=$(tmpdir)
trap 'rm -rf "$t"' EXIT
G=4b76a725e72c46dbc68859a0c2b244aa1e016978
Bc=9b4d20f5d526b0c0ffee00000000000000000000
meta() # DIR TREE ID
{
	mkdir -p "$1"
	{ echo key,value; "$MMBENCH" field --csv kbuild_tree "$2"; "$MMBENCH" field --csv kbuild_tree_id "$3"; } >"$1/meta.csv"
}
meta "$t/n/good" "$t/my 'linux'" "git:$G"
meta "$t/n/bad" "$t/my 'linux'" "git:$Bc"
meta "$t/n/tar" "$t/my 'linux'" "sha256:$G"
{
	echo schema,host,baseline,workload,case,metric,state,first_date,first_run,first_kernel,last_good_run,latest_date,latest_run,change_pct,p_value,resolved_run
	echo "1,vm,history,mlock_mix,dir=;mlock_pct=50;threads=1,calls_per_migrated_page:lru_add_drain,open,2026-12-03T21:00:00Z,n/bad,6.12-x,n/good,2026-12-03T21:00:00Z,n/bad,-50,0.01,"
	echo "1,vm,history,pageout,instances=1,loops_per_s,open,2026-12-03T21:00:00Z,n/bad,6.12-x,n/tar,2026-12-03T21:00:00Z,n/bad,-50,0.01,"
} >"$t/regressions.csv"
"$TOP/tools/mmtrend/mmhistory" ledger-open "$t/regressions.csv" >"$t/open.out" 2>&1
want="    bisect: ./run.sh bisect --tree '$t/my '\\''linux'\\''' --good $G --bad $Bc --suite-line 'mlock_mix -p mlock_pct=50 -p threads=1' --metric 'calls_per_migrated_page:lru_add_drain'"
if grep -qxF -- "$want" "$t/open.out"; then
	pass bisect_hint_printed
else
	fail bisect_hint_printed "want '$want' in: $(tr '\n' '|' <"$t/open.out")"
fi
if [ "$(grep -c 'bisect:' "$t/open.out")" = 1 ]; then
	pass bisect_hint_only_for_two_commits
else
	fail bisect_hint_only_for_two_commits "$(grep -c 'bisect:' "$t/open.out") hints: $(tr '\n' '|' <"$t/open.out")"
fi
# The hint as the user would paste it: parsed by tools/bisect, which
# refuses the tree (not there) and so got past every option.
cmd=$(sed -n 's/^    bisect: \.\/run\.sh bisect //p' "$t/open.out")
eval "set -- $cmd"
"$TOP/run.sh" bisect "$@" >"$t/paste.out" 2>&1
rc=$?
if [ "$rc" = 2 ] && grep -qF -- "--tree '$t/my 'linux'': no such directory" "$t/paste.out"; then
	pass bisect_hint_parses
else
	fail bisect_hint_parses "exit $rc: $(head -c 300 "$t/paste.out")"
fi
finish
}
