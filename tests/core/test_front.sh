#!/usr/bin/env bash
# One suite rule for every front door (tools/lib/front.sh): the same suite
# names, resolved through ./run.sh, ./run.sh --vm (tools/vm/lab),
# ./run.sh --vm-build (tools/kbuild-pair), the lab and kbuild-pair
# directly (all with --dry-run: nothing is built, booted or run) and
# tools/nightly --check (a config in the same directory), must name the
# same file, or be refused (exit 2) by all of them naming the input.
# Also: the run options' help is the same text everywhere, and the
# long-running scripts are one compound command (read whole before they
# run, so an edit cannot derail a run).
. "$(dirname "$0")/../lib.sh"
W=$(tmpdir)
trap 'rm -rf "$W"' EXIT
W=$(cd "$W" && pwd -P)
cd "$W" || exit 2

S=$TOP/bench/suites
mkdir sub dir
cp "$S/quick" my.suite
cp "$S/quick" sub/s
cp "$S/quick" reproduce		# a file named like a suite of bench/suites
cp "$S/quick" abs.suite
echo x >patch.diff
chmod 700 "$W"

# door NAME: the suite a front door resolves NAME to ("suite: FILE"), or
# "exit RC: MESSAGE" when it refuses it.
door() {
	local d=$1 name=$2 out rc
	case "$d" in
	run.sh) out=$("$TOP/run.sh" --suite "$name" --dry-run 2>&1) ;;
	run.sh--vm) out=$("$TOP/run.sh" --vm bookworm --suite "$name" --dry-run 2>&1) ;;
	run.sh--vm-build) out=$("$TOP/run.sh" --vm-build "$W/dir" --patch patch.diff \
		--suite "$name" --dry-run 2>&1) ;;
	lab) out=$("$TOP/tools/vm/lab" --vm bookworm --vm bullseye --suite "$name" --dry-run 2>&1) ;;
	kbuild-pair) out=$("$TOP/tools/kbuild-pair" --vm-build "$W/dir" --patch patch.diff \
		--suite="$name" --dry-run 2>&1) ;;
	nightly)
		printf '%s\n' "suite = $name" "results = res" "lock = n.lock" >n.conf
		out=$(MMBENCH=/nonexistent "$TOP/tools/nightly" --check n.conf 2>&1)
		rc=$?
		[ $rc -eq 0 ] && out=$(sed -n 's/^  suite \(.*\), label .*/suite: \1/p' <<<"$out") ;;
	esac
	rc=${rc:-$?}
	if [ $rc -eq 0 ]; then
		grep -m1 '^suite: ' <<<"$out"
	else
		echo "exit $rc: $(tail -n1 <<<"$out")"
	fi
}

doors=(run.sh run.sh--vm run.sh--vm-build lab kbuild-pair nightly)
# resolves NAME WANT: every door gives "suite: WANT".
resolves() {
	local name=$1 want=$2 d got bad=
	for d in "${doors[@]}"; do
		got=$(door "$d" "$name")
		[ "$got" = "suite: $want" ] || bad+="${bad:+; }$d: $got"
	done
	[ -z "$bad" ] && pass "suite '$name' is $want through every front door" ||
		fail "suite '$name' is $want through every front door" "$bad"
}
# refused NAME: every door exits 2 with a message naming NAME.
refused() {
	local name=$1 d got bad=
	for d in "${doors[@]}"; do
		got=$(door "$d" "$name")
		[[ $got == "exit 2: "*"'$name'"* && $got == *"no such file"* ]] ||
			[[ -z $name && $d == nightly && $got == "exit 2: "*"'suite' is required"* ]] ||
			bad+="${bad:+; }$d: $got"
	done
	[ -z "$bad" ] && pass "suite '$name' is refused (exit 2, named) by every front door" ||
		fail "suite '$name' is refused by every front door" "$bad"
}

resolves quick "$S/quick"
resolves exp-pageout "$S/exp-pageout"
resolves my.suite "$W/my.suite"
resolves sub/s "$W/sub/s"
resolves ./my.suite "$W/my.suite"
resolves "$W/abs.suite" "$W/abs.suite"
# The rule's precedence: a file of that name wins over bench/suites.
resolves reproduce "$W/reproduce"
resolves "$S/reproduce" "$S/reproduce"
refused nosuch
refused sub			# a directory is no suite file
refused ./quick			# a path is never a name of bench/suites
refused ''
refused "\$(touch $W/CANARY)"
check "no input ran as a command" test ! -e "$W/CANARY"

# The run options' reference: one text, on every front door's --help
# (tools/kbuild-pair takes every run option but --label: it has two).
ref=$(bash -c ". '$TOP/tools/lib/front.sh'; front_run_help")
for d in run.sh tools/vm/lab tools/kbuild-pair; do
	h=$("$TOP/$d" --help)
	miss=$(while IFS= read -r l; do
		case "$l" in *--label*|*"digits and"*) [ "$d" = tools/kbuild-pair ] && continue ;; esac
		grep -qxF -- "$l" <<<"$h" || echo "$l"
	done <<<"$ref")
	[ -z "$miss" ] && pass "$d --help shows the run options' reference" ||
		fail "$d --help shows the run options' reference" "missing: $miss"
done
out=$("$TOP/tools/kbuild-pair" --vm-build "$W/dir" --patch "$W/patch.diff" --label x 2>&1)
rc=$?
check "tools/kbuild-pair refuses --label (exit 2, naming it)" \
	eval '[ $rc = 2 ] && [[ $out == *"unknown option '"'"'--label'"'"'"* ]]'
"$TOP/tools/nightly" --help | grep -q "the file it names when there is one" &&
	pass "tools/nightly --help states the suite rule" ||
	fail "tools/nightly --help states the suite rule" "not found"

# Long-running scripts: after the header, one { ... } group to the end.
for f in run.sh tools/vm/lab tools/nightly tools/kbuild-pair tools/kbuild \
	tools/vm/boot tools/vm/progress tools/vm/fetch-kernel tools/vm/mkinitramfs \
	tools/selfbench/pageout-bench.sh tools/selfbench/profile-bench.sh tools/selfbench/precision-bench.sh; do
	first=$(grep -v '^#' "$TOP/$f" | grep -v '^$' | head -n1)
	last=$(tail -n1 "$TOP/$f")
	[ "$first" = "{" ] && [ "$last" = "}" ] &&
		pass "$f is one compound command (read whole before it runs)" ||
		fail "$f is one compound command" "first '$first', last '$last'"
done
finish
