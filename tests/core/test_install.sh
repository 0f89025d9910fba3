#!/usr/bin/env bash
# make install / make uninstall, run from the installed tree:
# - `make install DESTDIR=D PREFIX=/usr` into a fresh D whose shared
#   directories (bin, man1, systemd's, ...) exist already, with a foreign
#   file in bin/;
# - from another directory, the installed `mmbench measure` runs a short
#   suite (one pageout case, 3 iterations) twice under two labels, results
#   under ./results of that directory; `mmbench compare` compares them,
#   and the installed mmcompare reads them; the installed tree is
#   byte for byte the same afterwards (nothing was written into it);
# - the front command dispatches (`mmbench list`, `mmbench help lab`), a
#   suite by name resolves to the installed suites (share/mmbench/suites),
#   the lab's --dry-run and the nightly's --check resolve installed paths,
#   and one night of the short suite runs (history, trends under ./results);
# - every page of tools/man/commands: `man` finds it through MANPATH, and
#   `groff -ww -z -man` and `mandoc -T lint -W warning` print nothing;
# - every file a help text (`mmbench help SUB`) or a page names is where
#   make install put it, none by its place in a checkout;
# - the systemd units and the cron example name the installed paths;
# - `mmbench kbuild-pair --dry-run` resolves the installed suite and ./results;
# - with bookworm's kernel in the VM lab's cache: `mmbench lava job` writes
#   a LAVA job, and one guest boots from the installed tree and brings its
#   results home under ./results (else SKIP);
# - `make uninstall` leaves exactly what was there before (files, links
#   and directories).
# test-timeout: 1200
. "$(dirname "$0")/../lib.sh"
w=$(tmpdir); trap 'rm -rf "$w"' EXIT
d=$w/dest run=$w/elsewhere
mkdir -p "$d"/usr/{bin,libexec,share/man/man1,share/man/man5,share/doc,lib/systemd/system} "$run"
echo foreign >"$d/usr/bin/other"
# Every file, link (with its target) and directory under D, with a hash.
listing() { (cd "$1" && find . -printf '%y %p %l\n' | sort &&
	find . -type f -exec sha256sum {} + | sort -k2); }
listing "$d" >"$w/before"

if ! make -s -C "$TOP" install DESTDIR="$d" PREFIX=/usr >"$w/install.log" 2>&1; then
	fail "install: make install" "$(tail -n 5 "$w/install.log")"
	finish
fi
pass "install: make install DESTDIR PREFIX=/usr"
listing "$d" >"$w/installed"
mm=$d/usr/bin/mmbench
cd "$run" || exit 2

# 1. The front command and the driver behind it.
"$mm" list >"$w/list" 2>&1 && grep -q '^pageout ' "$w/list" &&
	pass "install: mmbench list (the driver)" || fail "install: mmbench list" "$(head -n 3 "$w/list")"
"$mm" help lab >"$w/help" 2>&1 && grep -q 'Usage: mmbench lab --vm' "$w/help" &&
	pass "install: mmbench help lab (installed names)" || fail "install: mmbench help lab" "$(head -n 3 "$w/help")"
"$mm" >"$w/none" 2>&1
rc=$?
"$mm" help nosuch >"$w/nosuch" 2>&1
rc2=$?
[ "$rc" = 2 ] && grep -q 'mmbench measure' "$w/none" && [ "$rc2" = 2 ] && grep -q "no command 'nosuch'" "$w/nosuch" &&
	pass "install: mmbench alone and help of no command: usage, exit 2" ||
	fail "install: mmbench usage" "exit $rc/$rc2: $(head -n 1 "$w/none") $(head -n 1 "$w/nosuch")"
# A sub-command of the front command would hide a driver command of the
# same name: none may be one.
subs=$(awk -F'\t' '$2 == "sub" { sub(/^mmbench-/, "", $1); sub(/[.]1$/, "", $1); print $1 }' "$TOP/tools/man/commands")
cmds=$("$MMBENCH" --help 2>&1 | sed -n 's/^\(usage:\)\{0,1\} *mmbench \([a-z-]*\).*/\2/p' | sort -u)
hidden=$(comm -12 <(sort <<<"$subs") <(echo "$cmds"))
[ -n "$cmds" ] && [ -z "$hidden" ] && pass "install: mmbench's sub-commands hide no driver command" ||
	fail "install: sub-commands" "hide driver commands: ${hidden:-? (no driver command read)}"
"$mm" measure --suite quick --dry-run >"$w/dry" 2>&1
s=$(sed -n 's/^suite: //p' "$w/dry")
[ "$(readlink -f "$s")" = "$d/usr/share/mmbench/suites/quick" ] &&
	pass "install: suite quick is share/mmbench/suites/quick" || fail "install: suite by name" "got '$s'"
grep -qx "results root: $run/results" "$w/dry" &&
	pass "install: results root is ./results" || fail "install: results root" "$(grep 'results root' "$w/dry")"

# 2. A short suite twice from elsewhere, then their comparison.
echo 'pageout -p instances=1 -p size_mb=16 -p duration_s=1 -i 3 -w 1' >short
for l in base new; do
	"$mm" measure --suite short --label "$l" >"$w/run-$l" 2>&1
	rc=$?
	if [ "$rc" = 0 ] && ls results/"$l"/*/results.csv >/dev/null 2>&1; then
		pass "install: mmbench measure --label $l (results under ./results)"
	else
		fail "install: mmbench measure --label $l" "exit $rc: $(tail -n 3 "$w/run-$l")"
	fi
done
"$mm" compare base new >"$w/compare" 2>&1
rc=$?
rep=$(sed -n 's/^report: //p' "$w/compare" | head -n 1)
case $rc in 0|3) rep=$(readlink -f "$rep") ;; *) rep= ;; esac
[ -n "$rep" ] && [ -s "${rep%/report.md}/compare.csv" ] && [[ $rep == "$run/results/"* ]] &&
	pass "install: mmbench compare base new (report under ./results)" ||
	fail "install: mmbench compare" "exit $rc: $(tail -n 3 "$w/compare")"
"$d/usr/bin/mmcompare" results/base results/new >"$w/mmcompare" 2>&1 && grep -q pageout "$w/mmcompare" &&
	pass "install: mmcompare" || fail "install: mmcompare" "$(tail -n 3 "$w/mmcompare")"

# 3. The lab and the nightly resolve installed paths.
"$mm" lab --vm bookworm --vm trixie --suite exp-mlock-drain --dry-run >"$w/lab" 2>&1 &&
	grep -qx "suite: $d/usr/libexec/mmbench/bench/suites/exp-mlock-drain" "$w/lab" &&
	grep -qx "results root: $run/results" "$w/lab" &&
	pass "install: mmbench lab --dry-run" || fail "install: mmbench lab --dry-run" "$(head -n 3 "$w/lab")"
printf 'suite = quick\nbaseline = base\n' >n.conf
"$mm" nightly --check n.conf >"$w/nightly" 2>&1 &&
	pass "install: mmbench nightly --check (installed suite, ./results)" ||
	fail "install: mmbench nightly --check" "$(tail -n 3 "$w/nightly")"
echo 'a patch' >p.patch && mkdir -p tree
"$mm" kbuild-pair --vm-build tree --patch p.patch --dry-run >"$w/kp" 2>&1 &&
	grep -qx "suite: $d/usr/libexec/mmbench/bench/suites/quick" "$w/kp" &&
	grep -qx "results root: $run/results" "$w/kp" &&
	pass "install: mmbench kbuild-pair --dry-run" || fail "install: mmbench kbuild-pair --dry-run" "$(head -n 3 "$w/kp")"
# One night of the short suite: history, baseline, trends under ./results.
printf 'suite = short\niterations = 3\nbaseline = base\nlock = nightly.lock\n' >night.conf
"$mm" nightly night.conf >"$w/night" 2>&1
rc=$?
[ "$rc" = 0 ] && [ -s results/history.csv ] && grep -q "^trends: $run/results/trends/" "$w/night" &&
	pass "install: mmbench nightly (a night of the short suite, under ./results)" ||
	fail "install: mmbench nightly" "exit $rc: $(tail -n 3 "$w/night")"
"$mm" nightly --help 2>&1 | grep -q 'mmbench nightly' &&
	pass "install: mmbench nightly --help" || fail "install: mmbench nightly --help" "no installed name"

# 4. One guest from the installed tree, when its kernel is cached.
cache=${XDG_CACHE_HOME:-$HOME/.cache}/mmbench
if ! command -v qemu-system-x86_64 >/dev/null; then
	skip "install: a guest from the installed tree" "no qemu-system-x86_64"
elif [ ! -d "$cache/kernels/bookworm" ]; then
	skip "install: a guest from the installed tree" "bookworm's kernel is not cached (tools/vm/fetch-kernel bookworm)"
else
	"$mm" lava job --vm bookworm --suite short >"$w/lava" 2>"$w/lava.err" &&
		grep -q '^# mmbench (mmbench lava\|^# mmbench (tools/lava/lava) suite short' "$w/lava" &&
		grep -q '^device_type: qemu' "$w/lava" &&
		pass "install: mmbench lava job (a LAVA job from the installed tree)" ||
		fail "install: mmbench lava job" "$(tail -n 2 "$w/lava.err")"
	"$mm" lab --vm bookworm --suite short --label guest >"$w/guest" 2>&1
	rc=$?
	lab_rerun "install: a guest from the installed tree" "$w/guest"
	m=$(ls results/guest/*/meta.csv 2>/dev/null | head -n 1)
	[ "$rc" = 0 ] && [ -n "$m" ] && [ -s "${m%meta.csv}results.csv" ] && [ "$(meta_get "$m" vm)" = qemu ] &&
		pass "install: a guest from the installed tree (results under ./results)" ||
		fail "install: a guest from the installed tree" "exit $rc: $(tail -n 3 "$w/guest")"
fi

listing "$d" >"$w/after"
diff "$w/installed" "$w/after" >"$w/diff" &&
	pass "install: the installed tree is unchanged by the runs" ||
	fail "install: the installed tree changed" "$(head -n 5 "$w/diff")"

# 5. The manual pages.
man_ok=0
while IFS=$'\t' read -r page _; do
	[[ $page == [a-z]* ]] || continue
	f=$d/usr/share/man/man${page##*.}/$page
	MANPATH=$d/usr/share/man MANWIDTH=80 man -P cat "${page##*.}" "${page%.*}" >"$w/man" 2>&1 &&
		grep -q "^NAME" "$w/man" || { fail "install: man ${page%.*}" "$(head -n 2 "$w/man")"; continue; }
	groff -ww -z -man "$f" >"$w/groff" 2>&1
	[ -s "$w/groff" ] && { fail "install: groff -ww $page" "$(head -n 2 "$w/groff")"; continue; }
	if command -v mandoc >/dev/null; then
		mandoc -T lint -W warning "$f" >"$w/lint" 2>&1
		[ -s "$w/lint" ] && { fail "install: mandoc -T lint $page" "$(head -n 2 "$w/lint")"; continue; }
	fi
	man_ok=$((man_ok + 1))
done <"$TOP/tools/man/commands"
n=$(grep -c '^[a-z]' "$TOP/tools/man/commands")
[ "$man_ok" = "$n" ] && pass "install: $n manual pages found by man, lint-clean" ||
	fail "install: manual pages" "$man_ok of $n clean"
grep -q '^Installed: the programs and their files under /usr/libexec/mmbench' "$d/usr/share/man/man1/mmbench.1" &&
	pass "install: the pages name the installed paths (PREFIX=/usr)" ||
	fail "install: the pages' FILES" "$(grep -A1 '^.SH FILES' "$d/usr/share/man/man1/mmbench.1")"
# LIBEXECDIR, DATADIR and DOCDIR of their own (as distributions set them):
# the pages name those, not PREFIX's defaults.
"$TOP/tools/man/gen-man" --prefix /usr --libexecdir /usr/lib --datadir /opt/share \
	--docdir /opt/doc/mm mmbench.1 >"$w/dirs.1" 2>&1
grep -q '^Installed: the programs and their files under /usr/lib/mmbench' "$w/dirs.1" &&
	grep -q '^suites under /opt/share/mmbench/suites' "$w/dirs.1" && grep -q '^/opt/doc/mm\. ' "$w/dirs.1" &&
	pass "install: the pages name LIBEXECDIR, DATADIR and DOCDIR when set" ||
	fail "install: the pages' FILES with LIBEXECDIR/DATADIR/DOCDIR" "$(grep -A3 '^.SH FILES' "$w/dirs.1")"
command -v mandoc >/dev/null || skip "install: mandoc -T lint" "no mandoc (tools/deps.sh test)"

# The files a help text or a page names, installed: each is where make
# install put it (under D), and none is named by its place in a checkout
# (bench/suites/, tools/nightly.example.conf, tools/lava/README.md, ...).
# From a checkout the same help names the checkout's paths.
: >"$w/texts"
for sub in '' $subs; do
	"$mm" help $sub >>"$w/texts" 2>&1 || fail "install: mmbench help $sub" "exit $?"
done
for f in "$d"/usr/share/man/man[15]/*; do
	tail -n +2 "$f" >>"$w/texts"	# not the "Generated by" line
done
rel=$(grep -v '^The same from a checkout: tools/mmbench COMMAND' "$w/texts" |
	grep -oE '(^|[^A-Za-z0-9_./-])(bench|tools|workloads|tests)/[A-Za-z0-9_./-]*' | sort -u | tr '\n' ' ')
named=$(grep -oE '/usr/(libexec|share|lib|bin)/[A-Za-z0-9_./-]*[A-Za-z0-9_-]' "$w/texts" | sort -u)
missing=$(while read -r f; do [ -e "$d$f" ] || printf '%s ' "$f"; done <<<"$named")
[ -z "$rel" ] && [ -z "$missing" ] && grep -q '/usr/share/doc/mmbench/examples/nightly.example.conf' "$w/texts" &&
	grep -q '/usr/share/mmbench/suites' "$w/texts" &&
	pass "install: help texts and pages name installed files ($(wc -l <<<"$named") paths, each there)" ||
	fail "install: paths in help texts and pages" "checkout paths: ${rel:-none}; not installed: ${missing:-none}"
"$TOP/tools/mmbench" help nightly 2>&1 | grep -q 'see tools/nightly.example.conf' &&
	pass "install: from a checkout, help names the checkout's files" ||
	fail "install: checkout help" "$("$TOP/tools/mmbench" help nightly 2>&1 | grep -m1 'CONFIG')"
printf 'PREFIX=/usr\nDOCDIR=/x;rm -rf ~\n' >"$w/bad-installed"
"$TOP/tools/man/gen-man" --installed "$w/bad-installed" --names >"$w/bad.out" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q "DOCDIR '/x;rm -rf ~' is not an absolute path" "$w/bad.out" &&
	pass "install: a hostile tools/lib/installed is refused, exit 2" ||
	fail "install: hostile tools/lib/installed" "exit $rc: $(head -n 2 "$w/bad.out")"

# 6. The systemd units and the cron example name the installed paths.
u=$d/usr/lib/systemd/system/mmbench-nightly.service
grep -qx 'ExecStart=/usr/bin/mmbench nightly /etc/mmbench/nightly.conf' "$u" &&
	grep -q '^30 2 .* /usr/bin/mmbench nightly ' "$d/usr/share/doc/mmbench/examples/cron.d-mmbench" &&
	! grep -q '@[A-Z]*@' "$u" "${u%.service}.timer" "$d/usr/share/doc/mmbench/examples/cron.d-mmbench" &&
	pass "install: systemd units and cron example use /usr/bin/mmbench" ||
	fail "install: systemd units and cron example" "$(grep -h 'ExecStart\|mmbench nightly' "$u" "$d/usr/share/doc/mmbench/examples/cron.d-mmbench")"

# 7. Uninstall leaves what was there before.
cd "$TOP" || exit 2
if make -s uninstall DESTDIR="$d" PREFIX=/usr >"$w/uninstall.log" 2>&1; then
	listing "$d" >"$w/end"
	diff "$w/before" "$w/end" >"$w/diff" &&
		pass "install: make uninstall leaves exactly what was there" ||
		fail "install: make uninstall" "left: $(grep '^>' "$w/diff" | head -n 5 | tr '\n' ' ')"
else
	fail "install: make uninstall" "$(tail -n 5 "$w/uninstall.log")"
fi
finish
