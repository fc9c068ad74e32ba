# crlcache -- GNU make build.  `make`, `make check`, `make demo`, `make deps`.

PREFIX	?= /usr/local
PKGS	 = libcrypto libssl lmdb libcurl
CC	?= cc
# The release's version: this file is its one place.  The binaries get it
# as CRLCACHE_VERSION (include/crlcache/version.h), `make dist` names the
# tarball after it, and debian/changelog's top entry carries the same.
VERSION	:= $(shell cat VERSION)

# Read when make parses this file: on a fresh machine `make check` and
# `make demo` install the packages first (test/deps.sh), then run a new
# make that sees them (the *-run targets below).
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CRYPTO_LIBS := $(shell pkg-config --libs libcrypto 2>/dev/null)

# Warnings are errors in developer and CI builds (make, make check,
# .ci/run); a distribution build passes WERROR= (debian/rules), so that a
# warning a newer compiler adds does not fail it.
WERROR	?= -Werror -Werror=missing-prototypes -Werror=implicit-function-declaration
WARN	 = -Wall -Wextra -Wmissing-prototypes -Wshadow -Wstrict-prototypes $(WERROR)
# Our hardening only where the packager's flags (dpkg-buildflags with
# hardening=+all) have none of the kind: a second, different
# -D_FORTIFY_SOURCE (Ubuntu's =3) is a "redefined" warning, and a flag
# given twice is noise in every command of the build log (blhc).
comma	:= ,
FORTIFY	 = $(if $(findstring _FORTIFY_SOURCE,$(CPPFLAGS) $(CFLAGS)),,-D_FORTIFY_SOURCE=2)
SSP	 = $(if $(findstring -fstack-protector,$(CFLAGS)),,-fstack-protector-strong)
HARDEN	 = $(SSP) $(FORTIFY) -fPIC
CFLAGS	?= -O2 -g
# CPPFLAGS and LDFLAGS: the packager's (dpkg-buildflags), after ours.
ALL_CFLAGS = -std=c11 -D_GNU_SOURCE -DCRLCACHE_VERSION='"$(VERSION)"' $(WARN) $(HARDEN) -Iinclude \
	     $(PKG_CFLAGS) $(CPPFLAGS) $(CFLAGS)
LDHARDEN = $(if $(findstring relro,$(LDFLAGS)),,-Wl$(comma)-z$(comma)relro) \
	   $(if $(findstring -z$(comma)now,$(LDFLAGS)),,-Wl$(comma)-z$(comma)now)
# Sanitizer build of the unit tests (make check).
SAN	 = -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
	   -fno-sanitize-recover=all

LIB_SRCS  = lib/tbs.c lib/index.c lib/indexopen.c lib/indexpage.c lib/indexwrite.c lib/hash.c lib/name.c lib/validity.c lib/addr.c \
	    lib/dpname.c lib/fstype.c lib/point.c lib/civil.c lib/reasons.c \
	    lib/clubcard.c lib/sct.c lib/crliteset.c lib/crlitelookup.c lib/crliteshare.c lib/statefile.c \
	    lib/onecrl.c lib/hex.c
# $(sort): byte order whatever the locale (glob(3) sorts by LC_COLLATE, and
# the link order is the binary's layout: crlite_upki.c and crlitedir.c
# change places between C and en_US).
FETCH_SRCS = $(sort $(wildcard fetcher/*.c))
PROV_SRCS = $(sort $(wildcard provider/*.c))
UNIT_SRCS = $(sort $(wildcard test/unit/t_*.c))

LIB_OBJS  = $(LIB_SRCS:.c=.o)
FETCH_OBJS = $(FETCH_SRCS:.c=.o)
PROV_OBJS = $(PROV_SRCS:.c=.o)
UNIT_BINS = $(UNIT_SRCS:.c=)

HDRS	= $(wildcard include/crlcache/*.h) $(wildcard lib/*.h) $(wildcard fetcher/*.h) $(wildcard provider/*.h)

all: fetcher/crlcache $(if $(PROV_SRCS),provider/crlcache.so)

%.o: %.c $(HDRS) VERSION
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

lib/libcrlcache.a: $(LIB_OBJS)
	$(AR) rcs $@ $^

fetcher/crlcache: $(FETCH_OBJS) lib/libcrlcache.a
	$(CC) $(ALL_CFLAGS) -pie $(LDHARDEN) $(LDFLAGS) -o $@ $(FETCH_OBJS) lib/libcrlcache.a $(PKG_LIBS)

# Only OSSL_provider_init is exported (provider/crlcache.map).  -z defs:
# an unresolved symbol fails the link here, not the dlopen, which OpenSSL
# skips without a word (the provider would silently not be there).
provider/crlcache.so: $(PROV_OBJS) lib/libcrlcache.a provider/crlcache.map
	$(CC) $(ALL_CFLAGS) -shared $(LDHARDEN) $(LDFLAGS) -Wl,-z,defs \
	    -Wl,--version-script=provider/crlcache.map \
	    -o $@ $(PROV_OBJS) lib/libcrlcache.a $(CRYPTO_LIBS) -lpthread

# Unit tests: each test/unit/t_X.c is built with ASan+UBSan (SAN, after
# the packager's flags: its -O1 wins) and with the library's sources, so
# that they are instrumented too; with SAN= (debian/rules) it links the
# library the programs link, built once.  The flags are the programs':
# ours and the packager's CPPFLAGS, CFLAGS and LDFLAGS.
UNIT_LIB = $(if $(strip $(SAN)),$(LIB_SRCS),lib/libcrlcache.a)
test/unit/t_%: test/unit/t_%.c test/unit/check.h test/unit/wfile.h test/unit/derbuf.h test/unit/topdir.h test/unit/xcalloc.h test/unit/tmpdir.h $(UNIT_LIB) $(HDRS)
	$(CC) -std=c11 -D_GNU_SOURCE -DCRLCACHE_VERSION='"$(VERSION)"' $(WARN) $(HARDEN) -Iinclude \
	    $(PKG_CFLAGS) $(CPPFLAGS) $(CFLAGS) $(SAN) -pie $(LDHARDEN) $(LDFLAGS) -o $@ $< $(UNIT_LIB) $(PKG_LIBS)
# t_keycache builds provider/keycache.c in.
test/unit/t_keycache: provider/keycache.c
# t_pins builds provider/pins.c in.
test/unit/t_pins: provider/pins.c
# t_learn builds provider/chain.c and learn.c in.
test/unit/t_learn: provider/chain.c provider/learn.c
# t_at builds fetcher/at.c in.
test/unit/t_at: fetcher/at.c fetcher/at.h fetcher/fetcher.h
# t_header builds fetcher/header.c in.
test/unit/t_header: fetcher/header.c fetcher/fetcher.h fetcher/header.h
# t_hostq builds fetcher/hostq.c in.
test/unit/t_hostq: fetcher/hostq.c fetcher/fetcher.h fetcher/hostq.h
# t_ccadb_urls builds fetcher/ccadb.c, csv.c and util.c in.
test/unit/t_ccadb_urls: fetcher/ccadb.c fetcher/csv.c fetcher/util.c fetcher/ccadb.h fetcher/csv.h fetcher/fetcher.h
# t_json builds fetcher/json.c in.
test/unit/t_json: fetcher/json.c fetcher/json.h
# t_guard builds fetcher/guard.c in.
test/unit/t_guard: fetcher/guard.c fetcher/fetcher.h fetcher/guard.h
# t_proposed builds fetcher/proposed.c in.
test/unit/t_proposed: fetcher/proposed.c fetcher/fetcher.h fetcher/proposed.h
# t_state builds fetcher/state.c and util.c in.
test/unit/t_state: fetcher/state.c fetcher/util.c fetcher/fetcher.h fetcher/state.h

unit: $(UNIT_BINS)

# The unit tests alone (offline, seconds): debian/rules runs them at build
# time (dh_auto_test) with SAN= where the architecture has no sanitizers.
check-unit: unit
	@sh test/unit/run.sh $(UNIT_BINS) >test/unit/.counts; \
	    . test/unit/.counts; echo "unit: $$UNIT_PASSED passed, $$UNIT_FAILED failed"; \
	    [ "$$UNIT_FAILED" = 0 ]

deps:
	@sh test/deps.sh

check: deps
	@$(MAKE) --no-print-directory check-run

check-run: all unit
	@sh test/unit/run.sh $(UNIT_BINS) > test/unit/.counts; \
	    . test/unit/.counts; \
	    UNIT_PASSED=$$UNIT_PASSED UNIT_FAILED=$$UNIT_FAILED \
	    CRLCACHE="$(CURDIR)/fetcher/crlcache" CRLCACHE_MODULES="$(CURDIR)/provider" \
	    bash test/run.sh

# The same suite in a Debian 13 (trixie) root made with mmdebstrap from the
# host's Debian mirror (test/trixie.sh; root only).  TESTS=t_a t_b: only those.
check-trixie: deps
	@sh test/trixie.sh $(TESTS)

demo: deps
	@$(MAKE) --no-print-directory demo-run

demo-run: all
	@bash test/demo.sh

# Benchmarks (not part of check): ratios measured side by side.
bench: deps
	@$(MAKE) --no-print-directory bench-run

# Each benchmark appends its measured rows to BENCH_ROWS; table.sh prints
# them as one markdown table (with the target each row must meet) and
# writes them as JSON to BENCH_JSON.
BENCH_ROWS = test/bench/.rows
BENCH_JSON = test/bench/results.json
# The Web PKI scale data sets (scale.sh, webpki.sh) are kept between runs in
# CRLCACHE_BENCH_CACHE, by default test/bench/.cache.
BENCH_SCRIPTS = handshake verify process crlite hint firstcontact ingest index_open scale webpki directory bandwidth
bench-run: all
	@rm -f $(BENCH_ROWS)
	@set -e; for b in $(BENCH_SCRIPTS); do \
	    echo "== test/bench/$$b.sh"; t0=$$(date +%s); \
	    BENCH_ROWS="$(CURDIR)/$(BENCH_ROWS)" bash test/bench/$$b.sh; \
	    echo "== test/bench/$$b.sh: $$(($$(date +%s) - t0)) s"; \
	done
	@bash test/bench/table.sh $(BENCH_ROWS) $(BENCH_JSON)

clean:
	rm -f $(LIB_OBJS) $(FETCH_OBJS) $(PROV_OBJS) $(UNIT_BINS) lib/libcrlcache.a \
	    fetcher/crlcache provider/crlcache.so test/unit/.counts

# ---------------------------------------------------------------- release
# make dist: crlcache-VERSION.tar.gz (in DISTDIR) of the files git tracks
# (as they are in the work tree) but debian/, which a Debian source
# package ships apart from this, its .orig.tar.gz (debian/README.source);
# reproducible: names sorted, every mtime that of the
# last commit (or SOURCE_DATE_EPOCH), owner and group 0, no gzip name or
# time.  make distcheck: that tarball unpacked in a fresh temporary
# directory, built there (warnings as errors), its unit tests run and
# DISTCHECK_TESTS, integration tests that cover the release's paths in
# about a minute (the whole suite is `make check`, 13-18 minutes); and
# a second dist must give the same bytes.
DIST	 = crlcache-$(VERSION)
DIST_EPOCH = $(or $(SOURCE_DATE_EPOCH),$(shell git log -1 --format=%ct 2>/dev/null))
DISTCHECK_TESTS = t_state_format t_status t_update_offline t_import_basic \
	    t_provider_tls t_enable
DISTDIR	?= .
# Test data whose source states no terms of redistribution
# (test/data/ccadb-real/SOURCES): kept in the tree, not released.
DIST_LEFT_OUT = test/data/ccadb-real/pems.tar.xz
dist:
	@test -n "$(DIST_EPOCH)" || { echo "make dist: needs a git checkout" \
	    "(or SOURCE_DATE_EPOCH)" >&2; exit 1; }
	git ls-files -z | grep -zv -e '^debian/' -e '^$(DIST_LEFT_OUT)$$' | LC_ALL=C sort -z | \
	    LC_ALL=C tar --null --no-recursion -T - --sort=name \
	    --mtime=@$(DIST_EPOCH) --owner=0 --group=0 --numeric-owner \
	    --mode=u+rw,go-w,go+rX --format=gnu --transform 's,^,$(DIST)/,' -cf - | \
	    gzip -9n >$(DISTDIR)/$(DIST).tar.gz.tmp
	mv -f $(DISTDIR)/$(DIST).tar.gz.tmp $(DISTDIR)/$(DIST).tar.gz
	@echo "$(DISTDIR)/$(DIST).tar.gz"

distcheck: dist
	@set -e; d=$$(mktemp -d "$${TMPDIR:-/tmp}/crlcache-distcheck.XXXXXX"); \
	    trap 'rm -rf "$$d"' EXIT; \
	    cp $(DIST).tar.gz "$$d/first.tar.gz"; \
	    $(MAKE) --no-print-directory dist >/dev/null; \
	    cmp $(DIST).tar.gz "$$d/first.tar.gz" || \
	        { echo "distcheck: two dists differ" >&2; exit 1; }; \
	    tar -xzf $(DIST).tar.gz -C "$$d"; \
	    $(MAKE) -C "$$d/$(DIST)" --no-print-directory all unit; \
	    cd "$$d/$(DIST)"; \
	    sh test/unit/run.sh $$(ls test/unit/t_*.c | sed 's/\.c$$//') >"$$d/unit.counts"; \
	    . "$$d/unit.counts"; echo "unit: $$UNIT_PASSED passed, $$UNIT_FAILED failed"; \
	    [ "$$UNIT_FAILED" = 0 ]; \
	    bash test/run.sh $(DISTCHECK_TESTS); \
	    echo "distcheck: $(DIST).tar.gz builds and passes"

# ---------------------------------------------------------------- install
# make install [PREFIX=/usr] [DESTDIR=/scratch/root]
# With DESTDIR empty and run as root, install also creates the crlcache
# system user, hands it /var/lib/crlcache and, where systemd runs, enables
# the timer; with DESTDIR set it only copies files.  Root makes the state
# directory and hands it over once (while root still owns it), never
# recursively: nothing in a directory the crlcache account owns is
# opened, changed or followed by root (a planted link or hard link would
# turn a chown -R or chmod onto a file of root's).
# Fixed paths: SNIPPETDIR, CONFDIR and STATEDIR are compiled into the
# crlcache binary (SNIPPET_PATH in fetcher/exec.c and fetcher/enable.c,
# DEFAULT_CONF and DEFAULT_STATE_DIR in fetcher/fetcher.h) and into the
# units; change them there, not here.
BINDIR	?= $(PREFIX)/bin
MANDIR	?= $(PREFIX)/share/man
MODULESDIR ?= $(shell pkg-config --variable=modulesdir libcrypto)
# systemd's own answer (/usr/lib/systemd/system from Debian 13).
SYSTEMDUNITDIR ?= $(or $(shell pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null),/lib/systemd/system)
CRONDIR	?= /etc/cron.d
SNIPPETDIR = /etc/ssl/openssl.cnf.d
CONFDIR	 = /etc/crlcache
STATEDIR = /var/lib/crlcache
# The system openssl.cnf `crlcache enable` edits; uninstall refuses while
# it still names crlcache.
OPENSSLDIR ?= $(or $(shell openssl version -d 2>/dev/null | sed -n 's/^OPENSSLDIR: "\(.*\)"$$/\1/p'),/usr/lib/ssl)
INSTALL	?= install
UNITS	 = crlcache-update.service crlcache-update.timer \
	   crlcache-hints.service crlcache-hints.path \
	   crlcache-share.service crlcache-share.socket
MANPAGES = man/crlcache.1 man/crlcache.conf.5 man/crlcache-provider.7
# Templates: @BINDIR@ becomes the installed bin directory.
SUBST	 = sed -e 's|@BINDIR@|$(BINDIR)|g'

install: all
	@test -n "$(MODULESDIR)" || { echo "crlcache: MODULESDIR is empty" \
	    "(pkg-config --variable=modulesdir libcrypto); set it" >&2; exit 1; }
	$(INSTALL) -d "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(MODULESDIR)" \
	    "$(DESTDIR)$(SNIPPETDIR)" "$(DESTDIR)$(CONFDIR)" \
	    "$(DESTDIR)$(MANDIR)/man1" "$(DESTDIR)$(MANDIR)/man5" \
	    "$(DESTDIR)$(MANDIR)/man7" "$(DESTDIR)$(SYSTEMDUNITDIR)" \
	    "$(DESTDIR)$(CRONDIR)"
	@# Made once: an existing state directory is the crlcache account's,
	@# and root follows nothing in it (install -d would chmod a planted link).
	@# The hint spool: every local user may leave a hint, none may list;
	@# setgid, so that each hint gets the crlcache group and only it reads.
	@if [ -e "$(DESTDIR)$(STATEDIR)" ] || [ -L "$(DESTDIR)$(STATEDIR)" ]; then \
	    echo "crlcache: keeping $(DESTDIR)$(STATEDIR)"; \
	else \
	    echo "$(INSTALL) -d -m 755 $(DESTDIR)$(STATEDIR)"; \
	    $(INSTALL) -d -m 755 "$(DESTDIR)$(STATEDIR)" && \
	    $(INSTALL) -d -m 3733 "$(DESTDIR)$(STATEDIR)/hints" || exit 1; \
	fi
	$(INSTALL) -m 755 fetcher/crlcache "$(DESTDIR)$(BINDIR)/crlcache"
	$(INSTALL) -m 644 provider/crlcache.so "$(DESTDIR)$(MODULESDIR)/crlcache.so"
	@# An installed snippet keeps the administrator's policy; only its module moves.
	src=openssl.cnf.d/crlcache.cnf; \
	    [ -e "$(DESTDIR)$(SNIPPETDIR)/crlcache.cnf" ] && src="$(DESTDIR)$(SNIPPETDIR)/crlcache.cnf"; \
	    sed -e 's|^module[ 	]*=.*|module = $(MODULESDIR)/crlcache.so|' \
	    "$$src" >"$(DESTDIR)$(SNIPPETDIR)/crlcache.cnf.tmp"
	chmod 644 "$(DESTDIR)$(SNIPPETDIR)/crlcache.cnf.tmp"
	mv -f "$(DESTDIR)$(SNIPPETDIR)/crlcache.cnf.tmp" "$(DESTDIR)$(SNIPPETDIR)/crlcache.cnf"
	@if [ -e "$(DESTDIR)$(CONFDIR)/crlcache.conf" ]; then \
	    echo "crlcache: keeping $(DESTDIR)$(CONFDIR)/crlcache.conf"; \
	else \
	    echo "$(INSTALL) -m 644 etc/crlcache.conf $(DESTDIR)$(CONFDIR)/crlcache.conf"; \
	    $(INSTALL) -m 644 etc/crlcache.conf "$(DESTDIR)$(CONFDIR)/crlcache.conf"; \
	fi
	$(INSTALL) -m 644 man/crlcache.1 "$(DESTDIR)$(MANDIR)/man1/crlcache.1"
	$(INSTALL) -m 644 man/crlcache.conf.5 "$(DESTDIR)$(MANDIR)/man5/crlcache.conf.5"
	$(INSTALL) -m 644 man/crlcache-provider.7 "$(DESTDIR)$(MANDIR)/man7/crlcache-provider.7"
	for u in $(UNITS); do \
	    $(SUBST) "systemd/$$u" >"$(DESTDIR)$(SYSTEMDUNITDIR)/$$u" && \
	    chmod 644 "$(DESTDIR)$(SYSTEMDUNITDIR)/$$u" || exit 1; \
	done
	$(SUBST) cron/crlcache >"$(DESTDIR)$(CRONDIR)/crlcache"
	chmod 644 "$(DESTDIR)$(CRONDIR)/crlcache"
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" -eq 0 ]; then \
	    if ! getent passwd crlcache >/dev/null; then \
	        echo "adduser --system --group --home $(STATEDIR) --no-create-home crlcache"; \
	        adduser --system --group --home $(STATEDIR) --no-create-home crlcache || exit 1; \
	    fi; \
	    if [ "$$(stat -c %u $(STATEDIR))" -eq 0 ]; then \
	        echo "chown -h crlcache:crlcache $(STATEDIR) $(STATEDIR)/hints; chmod 3733 $(STATEDIR)/hints"; \
	        chown -h crlcache:crlcache $(STATEDIR) $(STATEDIR)/hints && \
	        chmod 3733 $(STATEDIR)/hints || exit 1; \
	    fi; \
	    if [ -d /run/systemd/system ]; then \
	        echo "systemctl daemon-reload; systemctl enable --now crlcache-update.timer crlcache-hints.path crlcache-share.socket"; \
	        systemctl daemon-reload && \
	        systemctl enable --now crlcache-update.timer crlcache-hints.path crlcache-share.socket || exit 1; \
	    fi; \
	fi

# Removes what install put there except $(CONFDIR)/crlcache.conf (the
# administrator's), $(STATEDIR) (the index) and the crlcache user.
uninstall:
	@if [ -r "$(DESTDIR)$(OPENSSLDIR)/openssl.cnf" ] && \
	    grep -Eq '^[^#]*crlcache' "$(DESTDIR)$(OPENSSLDIR)/openssl.cnf"; then \
	    echo "crlcache: $(DESTDIR)$(OPENSSLDIR)/openssl.cnf still uses crlcache;" \
	        "run \`crlcache disable\` first" >&2; \
	    exit 1; \
	fi
	@if [ -z "$(DESTDIR)" ] && [ -d /run/systemd/system ]; then \
	    echo "systemctl disable --now crlcache-update.timer crlcache-hints.path crlcache-share.socket"; \
	    systemctl disable --now crlcache-update.timer crlcache-hints.path crlcache-share.socket || :; \
	fi
	rm -f "$(DESTDIR)$(BINDIR)/crlcache" "$(DESTDIR)$(MODULESDIR)/crlcache.so" \
	    "$(DESTDIR)$(SNIPPETDIR)/crlcache.cnf" \
	    "$(DESTDIR)$(MANDIR)/man1/crlcache.1" \
	    "$(DESTDIR)$(MANDIR)/man5/crlcache.conf.5" \
	    "$(DESTDIR)$(MANDIR)/man7/crlcache-provider.7" \
	    "$(DESTDIR)$(CRONDIR)/crlcache"
	for u in $(UNITS); do rm -f "$(DESTDIR)$(SYSTEMDUNITDIR)/$$u"; done
	rmdir "$(DESTDIR)$(SNIPPETDIR)" 2>/dev/null || :
	@if [ -z "$(DESTDIR)" ] && [ -d /run/systemd/system ]; then \
	    systemctl daemon-reload || :; \
	fi
	@echo "crlcache: kept $(DESTDIR)$(CONFDIR)/crlcache.conf, $(DESTDIR)$(STATEDIR)" \
	    "and the crlcache user; remove them by hand if you wish"

.PHONY: install uninstall

.PHONY: all unit check-unit deps check check-run check-trixie demo demo-run bench bench-run clean dist distcheck
