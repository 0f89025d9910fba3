#!/usr/bin/env bash
# The lab configuration on a real tree (Debian's linux-source-6.12): the
# fragment tools/kbuild.config merged with tinyconfig ends up in .config
# line for line, without modules; an option that cannot be set (one whose
# dependency is off, one the tree does not have) fails the run, named.
# Uses tools/kbuild --config-only: nothing is compiled beyond kconfig.
{
set -u
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"
K=$TOP/tools/kbuild

kbuild_deps kbuild_config kbuild-test || finish
t=$(tmpdir)
trap 'rm -rf "$t"' EXIT
start=$(date +%s)

out=$("$K" --tree linux-source-6.12 --config-only 2>&1)
rc=$?
cfg=$(sed -n 's/^base config: *//p' <<<"$out")
if [ $rc -eq 0 ] && [ -f "$cfg" ]; then
	pass config_lab_fragment_ok
else
	fail config_lab_fragment_ok "exit $rc: $(tail -n 5 <<<"$out" | tr '\n' '|')"
	finish
fi
# Checked here independently of tools/kbuild's own check.
missing=""
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=*) grep -qxF -- "$line" "$cfg" || missing+=" $line" ;;
	"# CONFIG_"*" is not set") sym=${line#\# }; sym=${sym%% *}
		grep -q "^$sym=" "$cfg" && missing+=" $line" ;;
	esac
done <"$TOP/tools/kbuild.config"
if [ -z "$missing" ]; then pass config_every_line_set; else fail config_every_line_set "not in .config:$missing"; fi
mods=$(grep -cE '^CONFIG_[A-Za-z0-9_]+=m$' "$cfg")
if [ "$mods" = 0 ]; then pass config_no_modules; else fail config_no_modules "$mods options =m"; fi
if grep -qx 'CONFIG_64BIT=y' "$cfg" && grep -qx 'CONFIG_NUMA=y' "$cfg" &&
	grep -qx 'CONFIG_SERIAL_8250_CONSOLE=y' "$cfg"; then
	pass config_lab_essentials
else
	fail config_lab_essentials "64BIT, NUMA or SERIAL_8250_CONSOLE missing in $cfg"
fi

# NFS_FS depends on INET, which tinyconfig leaves off (no networking):
# olddefconfig drops it silently. The second option does not exist at all.
printf 'CONFIG_NFS_FS=y\nCONFIG_MMBENCH_NO_SUCH_OPTION=y\n' >"$t/extra.config"
out=$("$K" --tree linux-source-6.12 --config-fragment "$t/extra.config" --config-only 2>&1)
rc=$?
if [ $rc -eq 1 ]; then pass config_unsettable_exit1; else fail config_unsettable_exit1 "exit $rc, want 1"; fi
if grep -q 'CONFIG_NFS_FS=y (ended as not set; .*depends on .*INET' <<<"$out"; then
	pass config_unsettable_named_with_dependency
else
	fail config_unsettable_named_with_dependency "output: $(tail -n 4 <<<"$out" | tr '\n' '|')"
fi
if grep -q 'CONFIG_MMBENCH_NO_SUCH_OPTION=y (ended as not set; no such option in this tree)' <<<"$out"; then
	pass config_unknown_option_named
else
	fail config_unknown_option_named "output: $(tail -n 4 <<<"$out" | tr '\n' '|')"
fi
# Only those two: every lab option is fine.
n=$(grep -c '^  CONFIG_' <<<"$out")
if [ "$n" = 2 ]; then pass config_only_those_named; else fail config_only_those_named "$n options named"; fi
echo "# timing: $(($(date +%s) - start))s"
finish
}
