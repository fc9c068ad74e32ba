# crlcache -- GNU make build.  `make`, `make check`, `make demo`, `make deps`.

PREFIX	?= /usr/local
PKGS	 = libcrypto lmdb libcurl
CC	?= cc

PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CRYPTO_LIBS := $(shell pkg-config --libs libcrypto 2>/dev/null)

WARN	 = -Wall -Wextra -Werror -Werror=missing-prototypes \
	   -Werror=implicit-function-declaration -Wshadow -Wstrict-prototypes
HARDEN	 = -fstack-protector-strong -D_FORTIFY_SOURCE=2 -fPIC
CFLAGS	?= -O2 -g
ALL_CFLAGS = -std=c11 -D_GNU_SOURCE $(WARN) $(HARDEN) -Iinclude $(PKG_CFLAGS) $(CFLAGS)
LDHARDEN = -Wl,-z,relro,-z,now
# Sanitizer build of the unit tests (make check).
SAN	 = -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
	   -fno-sanitize-recover=all

LIB_SRCS  = lib/tbs.c lib/index.c lib/hash.c lib/name.c lib/validity.c
FETCH_SRCS = $(wildcard fetcher/*.c)
PROV_SRCS = $(wildcard provider/*.c)
UNIT_SRCS = $(wildcard test/unit/t_*.c)

LIB_OBJS  = $(LIB_SRCS:.c=.o)
FETCH_OBJS = $(FETCH_SRCS:.c=.o)
PROV_OBJS = $(PROV_SRCS:.c=.o)
UNIT_BINS = $(UNIT_SRCS:.c=)

HDRS	= $(wildcard include/crlcache/*.h) $(wildcard lib/*.h) $(wildcard fetcher/*.h) $(wildcard provider/*.h)

all: fetcher/crlcache $(if $(PROV_SRCS),provider/crlcache.so)

%.o: %.c $(HDRS)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

lib/libcrlcache.a: $(LIB_OBJS)
	$(AR) rcs $@ $^

fetcher/crlcache: $(FETCH_OBJS) lib/libcrlcache.a
	$(CC) $(ALL_CFLAGS) -pie $(LDHARDEN) -o $@ $(FETCH_OBJS) lib/libcrlcache.a $(PKG_LIBS)

# Only OSSL_provider_init is exported (provider/crlcache.map).
provider/crlcache.so: $(PROV_OBJS) lib/libcrlcache.a provider/crlcache.map
	$(CC) $(ALL_CFLAGS) -shared $(LDHARDEN) -Wl,--version-script=provider/crlcache.map \
	    -o $@ $(PROV_OBJS) lib/libcrlcache.a $(CRYPTO_LIBS) -llmdb -lpthread

# Unit tests: each test/unit/t_X.c links the library sources directly,
# built with ASan+UBSan.
test/unit/t_%: test/unit/t_%.c test/unit/check.h $(LIB_SRCS) $(HDRS)
	$(CC) -std=c11 -D_GNU_SOURCE $(WARN) -Iinclude $(PKG_CFLAGS) $(SAN) -o $@ $< $(LIB_SRCS) $(PKG_LIBS)

unit: $(UNIT_BINS)

deps:
	@sh test/deps.sh

check: deps all unit
	@sh test/unit/run.sh $(UNIT_BINS) > test/unit/.counts; \
	    . test/unit/.counts; \
	    UNIT_PASSED=$$UNIT_PASSED UNIT_FAILED=$$UNIT_FAILED \
	    CRLCACHE="$(CURDIR)/fetcher/crlcache" CRLCACHE_MODULES="$(CURDIR)/provider" \
	    bash test/run.sh

demo: deps all
	@bash test/demo.sh

clean:
	rm -f $(LIB_OBJS) $(FETCH_OBJS) $(PROV_OBJS) $(UNIT_BINS) lib/libcrlcache.a \
	    fetcher/crlcache provider/crlcache.so test/unit/.counts

.PHONY: all unit deps check demo clean
