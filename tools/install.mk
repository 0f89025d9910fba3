# make install / make uninstall, with the usual PREFIX (default /usr/local)
# and DESTDIR (a staging root for packages and tests). The layout, as git
# and perf have it: one front command and the stand-alone C tools in bin/,
# everything they run in libexec/mmbench/ shaped as this checkout (so every
# script finds its files relative to itself, as from the checkout), the
# suites in share/mmbench/suites (libexec/mmbench/bench/suites links there),
# the manual pages in share/man, the documents and examples in
# share/doc/mmbench, the systemd units made for these paths (templates in
# tools/systemd/). tools/lib/installed marks the installed tree: there
# nothing is built, and results go under the current directory; it
# records the directories, which help texts name (tools/man/gen-man). Which
# commands and pages there are: tools/man/commands (adding a tool is one
# line there). tests/core/test_install.sh installs into a DESTDIR and runs
# from it.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBEXECDIR ?= $(PREFIX)/libexec
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(DATADIR)/man
DOCDIR ?= $(DATADIR)/doc/mmbench
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system

MM_LIBEXEC := $(LIBEXECDIR)/mmbench
MM_SUITES := $(DATADIR)/mmbench/suites
# The commands of tools/man/commands: bin (a link in BINDIR) or sub
# (`mmbench SUB`), and the manual pages.
MM_BIN_LINKS := $(shell awk -F'\t' '/^[a-z]/ && $$2 == "bin" { print $$3 }' tools/man/commands)
MM_CMD_PATHS := $(shell awk -F'\t' '/^[a-z]/ && ($$2 == "bin" || $$2 == "sub") { print $$3 }' tools/man/commands)
MM_MAN_PAGES := $(shell awk -F'\t' '/^[a-z]/ && NF >= 4 { print $$1 }' tools/man/commands)
# What the commands run and read, beside them in libexec/mmbench: every
# program make builds for the comparison and the nightly (mmprofile,
# mmhistory, mmchange, ... whatever their *.mk add to ALL_TARGETS), the
# shell libraries, the VM lab's and LAVA's files.
MM_TREE = $(sort $(MM_CMD_PATHS) bench/mmbench bench/run-options.tsv \
	$(filter tools/mmcompare/% tools/mmtrend/%,$(ALL_TARGETS)) tools/deps.sh \
	tools/kbuild.config tools/man/commands tools/man/gen-man \
	$(wildcard tools/lib/*.sh tools/lib/nightly/*.sh) \
	$(filter-out %.md %.mk,$(wildcard tools/vm/* tools/lava/*)))
MM_DOCS = $(shell find README.md bench workloads tools -name '*.md' 2>/dev/null)
MM_EXAMPLES := tools/nightly.example.conf
MM_UNITS := $(notdir $(wildcard tools/systemd/*.service tools/systemd/*.timer))

# A template's @DIR@ names, as installed (DESTDIR is only the staging root).
MM_SUBST = sed -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@DOCDIR@|$(DOCDIR)|g' \
	-e 's|@MANDIR@|$(MANDIR)|g' -e 's|@LIBEXECDIR@|$(MM_LIBEXEC)|g'
# `ln -s` with a path relative to the link's directory, so that the tree
# works under DESTDIR and wherever it is moved whole: mmlink TARGET LINK.
MM_LINK = mmlink() { ln -sfn "$$(realpath -m --relative-to="$$(dirname "$$2")" "$$1")" "$(DESTDIR)$$2"; }

.PHONY: install uninstall
install: build-all man
	@set -e; $(MM_LINK); \
	for f in $(MM_TREE); do \
		m=644; [ -x "$$f" ] && m=755; \
		install -D -m $$m "$$f" "$(DESTDIR)$(MM_LIBEXEC)/$$f"; done; \
	printf 'installed by make install\nPREFIX=%s\nLIBEXECDIR=%s\nDATADIR=%s\nDOCDIR=%s\n' \
		'$(PREFIX)' '$(LIBEXECDIR)' '$(DATADIR)' '$(DOCDIR)' \
		>"$(DESTDIR)$(MM_LIBEXEC)/tools/lib/installed"; \
	install -d "$(DESTDIR)$(MM_SUITES)" "$(DESTDIR)$(BINDIR)"; \
	install -m 644 bench/suites/* "$(DESTDIR)$(MM_SUITES)/"; \
	mmlink "$(MM_SUITES)" "$(MM_LIBEXEC)/bench/suites"; \
	for f in $(MM_BIN_LINKS); do mmlink "$(MM_LIBEXEC)/$$f" "$(BINDIR)/$${f##*/}"; done; \
	for p in $(MM_MAN_PAGES); do \
		install -D -m 644 "tools/man/out/$$p" "$(DESTDIR)$(MANDIR)/man$${p##*.}/$$p"; done; \
	for f in $(MM_DOCS); do install -D -m 644 "$$f" "$(DESTDIR)$(DOCDIR)/$$f"; done; \
	install -D -m 644 -t "$(DESTDIR)$(DOCDIR)/examples" $(MM_EXAMPLES); \
	$(MM_SUBST) tools/systemd/mmbench.cron >"$(DESTDIR)$(DOCDIR)/examples/cron.d-mmbench"; \
	install -d "$(DESTDIR)$(SYSTEMDUNITDIR)"; \
	for u in $(MM_UNITS); do \
		$(MM_SUBST) "tools/systemd/$$u" >"$(DESTDIR)$(SYSTEMDUNITDIR)/$$u"; done
	@echo "install: mmbench in $(DESTDIR)$(PREFIX) (run: $(BINDIR)/mmbench --help; undo: make uninstall)"

# Exactly what install wrote, then the directories of mmbench's own that
# are left empty (never bin/, man1/ or another shared directory).
uninstall:
	@set -e; \
	for f in $(MM_TREE) tools/lib/installed bench/suites; do rm -f "$(DESTDIR)$(MM_LIBEXEC)/$$f"; done; \
	for f in bench/suites/*; do rm -f "$(DESTDIR)$(MM_SUITES)/$${f##*/}"; done; \
	for f in $(MM_BIN_LINKS); do rm -f "$(DESTDIR)$(BINDIR)/$${f##*/}"; done; \
	for p in $(MM_MAN_PAGES); do rm -f "$(DESTDIR)$(MANDIR)/man$${p##*.}/$$p"; done; \
	for f in $(MM_DOCS) examples/$(notdir $(MM_EXAMPLES)) examples/cron.d-mmbench; do \
		rm -f "$(DESTDIR)$(DOCDIR)/$$f"; done; \
	for u in $(MM_UNITS); do rm -f "$(DESTDIR)$(SYSTEMDUNITDIR)/$$u"; done; \
	for d in "$(DESTDIR)$(MM_LIBEXEC)" "$(DESTDIR)$(DATADIR)/mmbench" "$(DESTDIR)$(DOCDIR)"; do \
		[ ! -d "$$d" ] || find "$$d" -depth -type d -empty -delete; done
	@echo "uninstall: mmbench removed from $(DESTDIR)$(PREFIX)"
