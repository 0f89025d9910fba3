#!/usr/bin/env bash
# The test runner (tests/run) cannot lose a test: on scratch test trees (a
# copy of tests/run and tests/lib.sh beside stand-in tests), a test_* file
# without the executable bit, a test that exits 0 printing nothing, a test
# that exits non-zero without FAIL and a test that hangs past its limit
# (`sleep 1000` under a 2 s limit, from TEST_TIMEOUT and from a
# `# test-timeout:` header line) each fail, named, and the runner exits 1;
# the hung test's children are gone; a RERUN line is counted after the
# totals on the last line, which keeps CI's form; exit 4 with a SKIP line is
# a skip; the failed tests and their first FAIL lines are listed again just
# above the counts. The limits only guard against a hang: nothing here is timed.
. "$(dirname "$0")/../lib.sh"
t=$(tmpdir); trap 'rm -rf "$t"' EXIT

# tree NAME: a scratch checkout with the runner and the helpers.
tree() {
	mkdir -p "$t/$1/tests/a"
	cp "$TOP/tests/run" "$TOP/tests/lib.sh" "$t/$1/tests/"
}
# stand NAME TEST BODY: an executable stand-in test using tests/lib.sh.
stand() {
	printf '#!/usr/bin/env bash\n. "$(dirname "$0")/../lib.sh"\n%s\n' "$3" >"$t/$1/tests/a/$2"
	chmod +x "$t/$1/tests/a/$2"
}
# runner NAME [VAR=VALUE...]: the scratch runner, under a hang guard of its
# own; its output in $t/NAME.out, its exit status in rc, its last line in last.
runner() {
	local name=$1
	shift
	env "$@" TEST_LOG="$t/$name.log" timeout -k 5 300 "$t/$name/tests/run" >"$t/$name.out" 2>&1
	rc=$?
	last=$(tail -n 1 "$t/$name.out")
}
counts='^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped'
# expect NAME CHECK RC LAST [LINE...]: after `runner NAME`, a PASS for
# CHECK when the runner exited RC, its last line is LAST and each LINE (a
# grep pattern, the start of a line) is in its output.
expect() {
	local name=$1 what=$2 want=$3 wlast=$4 l
	shift 4
	for l in "$@"; do
		grep -q "^$l" "$t/$name.out" || { fail "$what" "no line '$l': $(cat "$t/$name.out")"; return; }
	done
	[ "$rc" = "$want" ] && [ "$last" = "$wlast" ] && pass "$what ($last)" ||
		fail "$what" "rc=$rc (want $want): $(cat "$t/$name.out")"
}

# ---- a good tree: counted, exit 0, the last line CI parses
tree good
stand good test_ok.sh 'pass one; pass two; finish'
stand good test_skip.sh 'skip all "not here"; exit 4'
runner good
expect good "good tree: exit 0" 0 "2 passed, 0 failed, 1 skipped"

# ---- a test_* without the executable bit
tree noexec
stand noexec test_ok.sh 'pass one; finish'
stand noexec test_forgot.sh 'pass never'
chmod -x "$t/noexec/tests/a/test_forgot.sh"
runner noexec
expect noexec "a test_* without the executable bit fails, named" 1 "1 passed, 1 failed, 0 skipped" \
	'  tests/a/test_forgot.sh: FAIL: not executable'

# ---- the failures listed again just above the counts (a CI page shows the
# end of the log): each failed test, its first FAIL lines, a runner's reason
tree listed
stand listed test_a.sh 'pass one; fail "alpha check" "why a"; finish'
stand listed test_b.sh 'pass two; finish'
stand listed test_c.sh 'pass three; exit 3'
runner listed
expect listed "failed tests listed above the counts" 1 "3 passed, 2 failed, 0 skipped" \
	'failed:$' '  tests/a/test_a.sh: 1 failed$' '    FAIL: alpha check' \
	'  tests/a/test_c.sh: 1 failed$' '    FAIL: exited 3 without a FAIL line'
tail -n 7 "$t/listed.out" | head -n 5 | grep -q 'test_b' &&
	fail "the passing test is not listed" "$(tail -n 7 "$t/listed.out")" ||
	pass "the passing test is not in the failed list"
[ "$(tail -n 7 "$t/listed.out" | head -n 1)" = "failed:" ] &&
	pass "the list ends just above the log's name and the counts" ||
	fail "list position" "$(tail -n 8 "$t/listed.out")"
grep -q '^failed:' "$t/good.out" && fail "good tree" "a failed: list without failures" ||
	pass "no failed: list when nothing failed"

# ---- a test that exits 0 without a single PASS/FAIL/SKIP line
tree silent
stand silent test_ok.sh 'pass one; finish'
stand silent test_quiet.sh 'echo "did some work"; exit 0'
runner silent
expect silent "a silent exit 0 fails, named" 1 "1 passed, 1 failed, 0 skipped" \
	'  tests/a/test_quiet.sh: FAIL: exited 0 without a single PASS, FAIL or SKIP line'

# ---- a non-zero exit without FAIL; exit 4 without a SKIP line
tree crash
stand crash test_crash.sh 'pass before; exit 3'
stand crash test_four.sh 'exit 4'
runner crash
expect crash "exit 3 without FAIL, and exit 4 without SKIP, fail" 1 "1 passed, 2 failed, 0 skipped" \
	'  tests/a/test_crash.sh: FAIL: exited 3 without a FAIL line' \
	'  tests/a/test_four.sh: FAIL: exited 4 without a FAIL line'

# ---- a hang: killed at the limit with its children, a FAIL naming it
tree hang
stand hang test_ok.sh 'pass one; finish'
stand hang test_hang.sh "pass started; sleep 1000 & echo \$! >'$t/hang.child'; wait"
runner hang TEST_TIMEOUT=2
child=$(cat "$t/hang.child" 2>/dev/null)
expect hang "a hang under TEST_TIMEOUT=2 fails, named" 1 "2 passed, 1 failed, 0 skipped" \
	'  tests/a/test_hang.sh: FAIL: hung: still running after its 2s limit, killed'
# timeout signalled the test's whole process group; the child ends soon
# after (wait_until: a hang guard, not a timing)
gone() { ! kill -0 "$child" 2>/dev/null || [ "$(ps -o stat= -p "$child")" = Z ]; }
[ -n "$child" ] && wait_until 30 gone &&
	pass "the hung test's child (sleep 1000) was killed with it" ||
	{ fail "hang: child" "pid '${child}' still runs"; [ -n "$child" ] && kill "$child" 2>/dev/null; }

# ---- the limit from the test's header line
tree header
printf '#!/usr/bin/env bash\n# test-timeout: 2\n. "$(dirname "$0")/../lib.sh"\npass started\nsleep 1000\n' \
	>"$t/header/tests/a/test_slow.sh"
chmod +x "$t/header/tests/a/test_slow.sh"
runner header
expect header "a '# test-timeout: 2' header line sets the limit" 1 "1 passed, 1 failed, 0 skipped" \
	'  tests/a/test_slow.sh: FAIL: hung: still running after its 2s limit'

# ---- a test that ran a part again: in the counts, the last line keeps its form
tree again
stand again test_ok.sh 'pass one; finish'
stand again test_dead.sh 'rerun "guest" "the guest died, running it once more"; pass "second try"; finish'
runner again
expect again "a RERUN line is counted" 0 "2 passed, 0 failed, 0 skipped (1 run again: tests/a/test_dead.sh)" \
	'tests/a/test_dead.sh: 1 passed, 0 failed, 0 skipped, 1 run again'
# what CI parses still parses
grep -Eq "$counts" <<<"$last" && pass "the last line still starts 'N passed, N failed, N skipped'" ||
	fail "last line" "'$last'"

# ---- TEST_PREPARE: started at once, paused while the serial tests run
# alone, resumed and awaited before the late ones (a kernel pair's test)
tree prep
mkdir -p "$t/prep/tests/compare" "$t/prep/tests/kbuild"
cat >"$t/prep.sh" <<EOF
#!/usr/bin/env bash
echo \$\$ >"$t/prep.pid"; touch "$t/prep.started"
for ((i = 0; i < 3000; i++)); do [ -e "$t/go" ] && break; sleep 0.1; done
touch "$t/prepared"
EOF
chmod +x "$t/prep.sh"
# a light test (tests/compare/ runs beside others), a serial one, a late one
printf '#!/usr/bin/env bash\n. "$(dirname "$0")/../lib.sh"\n%s\n' \
	"wait_until 60 [ -e '$t/prep.started' ] && pass 'prepare started' || fail 'prepare started'" \
	>"$t/prep/tests/compare/test_light.sh"
stand prep test_serial.sh "st=\$(ps -o stat= -p \"\$(cat '$t/prep.pid')\"); [[ \$st == T* ]] && pass 'prepare stopped' || fail 'prepare stopped' \"state '\$st'\"; touch '$t/go'"
printf '#!/usr/bin/env bash\n. "$(dirname "$0")/../lib.sh"\n%s\n' \
	"[ -e '$t/prepared' ] && pass 'prepared before the late test' || fail 'not prepared'" \
	>"$t/prep/tests/kbuild/test_x_pair.sh"
chmod +x "$t/prep/tests/compare/test_light.sh" "$t/prep/tests/kbuild/test_x_pair.sh"
runner prep TEST_PREPARE="$t/prep.sh"
expect prep "TEST_PREPARE: beside the light tests, paused for the serial ones, done before the late one" \
	0 "3 passed, 0 failed, 0 skipped" "prepared for the late tests: $t/prep.sh (rc=0"

# ---- a bad TEST_TIMEOUT is a usage error
runner again TEST_TIMEOUT=2x
[ $rc = 2 ] && grep -q "TEST_TIMEOUT '2x'" "$t/again.out" && pass "TEST_TIMEOUT=2x: exit 2, named" ||
	fail "TEST_TIMEOUT=2x" "rc=$rc: $(cat "$t/again.out")"
finish
