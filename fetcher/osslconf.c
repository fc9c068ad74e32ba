/*
 * Generate an OpenSSL configuration that is the system one with the
 * crlcache provider switched on (`crlcache exec`, later `enable`).
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 *
 * The result .include's the system file (exec; enable appends it to the
 * system file instead) and the snippet
 * (openssl.cnf.d/crlcache.cnf), then points openssl_conf at a new init
 * section that keeps every key of the system's init section (ssl_conf,
 * engines, ...), lists the system's providers plus crlcache, and selects
 * crlcache_algs.  The system's choice of providers is kept: an activated
 * default provider is added only where the system leaves default active
 * (activating none, OpenSSL loads default itself; activating crlcache
 * would stop that), never on a host that activates others without it
 * (fips and base, say).  Whether it does is asked of the installed
 * OpenSSL itself, loading the system file into a throwaway library
 * context: 3.0 activates a provider whatever `activate` says, later
 * versions read it as a boolean.  OpenSSL's parser lets a later [section]
 * reopen an earlier one and a later key replace an earlier value; that is
 * how module, index and --set overrides land in crlcache_sect.
 *
 * Node.js reads only the nodejs_conf key of the default section (its
 * `--openssl-shared-config` switches to openssl_conf).  When the system
 * names no nodejs_conf, ours points at the same init section as
 * openssl_conf, so node gets what `--openssl-shared-config` would give it
 * plus the provider; when it names one, a second init section is merged
 * from it the same way, so node keeps its own settings.
 *
 * The system's default_properties are kept: crlcache_algs gets them with
 * the snippet's (?crlcache.sig=yes,?crlcache.km=no) appended.  A system
 * that requires fips=yes is refused: the proxy is not a FIPS provider,
 * and switching the properties would take every program out of
 * FIPS-only mode.  So is any other requirement the proxies cannot meet
 * (provider=default, say): they would never be chosen, and revocation
 * checking would be off while everything looked enabled.
 */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <openssl/conf.h>
#include <openssl/err.h>
#include <openssl/provider.h>

#include "fetcher.h"
#include "osslconf.h"

/* The sections we write for openssl_conf and, when needed, nodejs_conf. */
struct init_names {
	const char	*key;	/* in the default section */
	const char	*init, *prov, *alg;
};
static const struct init_names openssl_names = { "openssl_conf",
    "crlcache_generated_init", "crlcache_generated_providers",
    "crlcache_algs" };
static const struct init_names nodejs_names = { "nodejs_conf",
    "crlcache_generated_nodejs_init", "crlcache_generated_nodejs_providers",
    "crlcache_nodejs_algs" };
/* What the snippet's crlcache_algs says, when it cannot be read. */
#define OUR_PROPERTIES	"?crlcache.sig=yes,?crlcache.km=no"
#define MAX_PROPERTIES	4096

/* OpenSSL's property grammar (crypto/property/property_parse.c). */
static const char *
skip_space(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

static int
name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.';
}

/*
 * Walk the clauses of a property query.  For each: whether it is
 * optional ('?') or an override ('-'), its name, its operator ('=', '!'
 * for "!=", 0 for a bare name, which means "= yes") and its value as
 * OpenSSL compares it (unquoted values are case-folded).  fn returns
 * non-zero to stop; that is the result.  -1: not a query OpenSSL parses.
 */
struct clause {
	const char	*start, *end;	/* the clause's text */
	int		 optional, override;
	char		 name[128];
	char		 op;
	char		 value[128];
};

static int
foreach_clause(const char *q, int (*fn)(const struct clause *, void *),
    void *arg)
{
	struct clause c;
	const char *s = skip_space(q);
	size_t n;
	char quote;
	int rc;

	if (*s == '\0')
		return 0;
	for (;;) {
		memset(&c, 0, sizeof(c));
		c.start = s;
		if (*s == '-') {
			c.override = 1;
			s = skip_space(s + 1);
		} else if (*s == '?') {
			c.optional = 1;
			s = skip_space(s + 1);
		}
		for (n = 0; name_char(*s); s++)
			if (n < sizeof(c.name) - 1)
				c.name[n++] = (char)tolower((unsigned char)*s);
		if (n == 0)
			return -1;
		s = skip_space(s);
		if (!c.override && (*s == '=' || (s[0] == '!' && s[1] == '='))) {
			c.op = *s == '=' ? '=' : '!';
			s = skip_space(s + (c.op == '=' ? 1 : 2));
			n = 0;
			if (*s == '"' || *s == '\'') {
				quote = *s++;
				for (; *s != '\0' && *s != quote; s++)
					if (n < sizeof(c.value) - 1)
						c.value[n++] = *s;
				if (*s++ != quote)
					return -1;
			} else
				for (; *s != '\0' && *s != ',' &&
				    !isspace((unsigned char)*s); s++)
					if (n < sizeof(c.value) - 1)
						c.value[n++] = (char)tolower(
						    (unsigned char)*s);
			s = skip_space(s);
		}
		c.end = s;
		if ((rc = fn(&c, arg)) != 0)
			return rc;
		if (*s == '\0')
			return 0;
		if (*s != ',')
			return -1;
		s = skip_space(s + 1);
	}
}

/* A clause every fetch must satisfy with fips = yes. */
static int
requires_fips(const struct clause *c, void *arg)
{
	(void)arg;
	if (c->optional || c->override || strcmp(c->name, "fips") != 0)
		return 0;
	return c->op == 0 || (c->op == '=' && strcmp(c->value, "yes") == 0) ||
	    (c->op == '!' && strcmp(c->value, "no") == 0);
}

/*
 * A requirement the proxies' own definition (provider=crlcache,
 * crlcache.sig=yes) fails, matched as OpenSSL's ossl_property_match_count
 * does: a property the definition lacks counts as the boolean "no", and
 * a number never equals a string.  Clauses on crlcache.* are ours and
 * replaced.  1, with the clause copied to arg (a struct clause): stop.
 */
static int
excludes_proxy(const struct clause *c, void *arg)
{
	const char *have, *v = c->value;
	int numeric = *v != '\0' && strspn(v, "0123456789") == strlen(v);

	if (c->optional || c->override || strncmp(c->name, "crlcache.", 9) == 0)
		return 0;
	have = strcmp(c->name, "provider") == 0 ? "crlcache" : "no";
	if (c->op == 0)
		v = "yes";
	if (!numeric && (c->op == '!' ? strcmp(v, have) != 0 :
	    strcmp(v, have) == 0))
		return 0;
	*(struct clause *)arg = *c;
	while (((struct clause *)arg)->end > c->start &&
	    isspace((unsigned char)((struct clause *)arg)->end[-1]))
		((struct clause *)arg)->end--;
	return 1;
}

struct merge {
	FILE	*out;
	size_t	 n;
};

/* Copy a system clause, less the ones crlcache's own properties govern. */
static int
keep_clause(const struct clause *c, void *arg)
{
	struct merge *m = arg;
	const char *e = c->end;

	if (strncmp(c->name, "crlcache.", 9) == 0)
		return 0;
	while (e > c->start && isspace((unsigned char)e[-1]))
		e--;
	fprintf(m->out, "%s%.*s", m->n++ ? "," : "", (int)(e - c->start),
	    c->start);
	return 0;
}

/* X509V3_get_value_bool's true, as alg_section's fips_mode reads it. */
static int
conf_true(const char *v)
{
	static const char *const yes[] = { "TRUE", "true", "Y", "y", "YES",
	    "yes", NULL };
	const char *const *y;

	for (y = yes; v != NULL && *y != NULL; y++)
		if (strcmp(v, *y) == 0)
			return 1;
	return 0;
}

/* The snippet's default_properties, or ours when it has none. */
static char *
snippet_properties(const char *snippet)
{
	CONF *conf;
	const char *v = NULL;
	long line = 0;
	char *ret;

	if ((conf = NCONF_new(NULL)) != NULL &&
	    NCONF_load(conf, snippet, &line) > 0)
		v = NCONF_get_string(conf, "crlcache_algs", "default_properties");
	ERR_clear_error();
	ret = xstrdup(v != NULL && *v != '\0' ? v : OUR_PROPERTIES);
	NCONF_free(conf);
	return ret;
}

/* One openssl.cnf value, escaped so the parser gives back value. */
static int
write_escaped(FILE *out, const char *value)
{
	for (; *value != '\0'; value++) {
		if (*value == '\r' || *value == '\n')
			return -1;
		if (strchr("\\\"'$#", *value) != NULL)
			fputc('\\', out);
		fputc(*value, out);
	}
	return 0;
}

/*
 * default_properties for crlcache_algs: the system's, then ours.  -1 when
 * the system requires fips=yes (explained) or its value cannot be kept.
 */
static int
write_properties(FILE *out, const CONF *conf, const char *alg,
    const char *snippet)
{
	const char *sys = NULL, *fips_mode = NULL;
	struct clause bad;
	char *mem = NULL, *ours;
	size_t memlen = 0;
	struct merge m = { NULL, 0 };
	int rc, ret = -1;

	if (conf != NULL && alg != NULL) {
		sys = NCONF_get_string(conf, alg, "default_properties");
		fips_mode = NCONF_get_string(conf, alg, "fips_mode");
		ERR_clear_error();
	}
	if ((sys != NULL && foreach_clause(sys, requires_fips, NULL) == 1) ||
	    conf_true(fips_mode)) {
		logx(0, "the system configuration requires FIPS (%s%s in [%s]): "
		    "crlcache is not a FIPS provider, and switching it on would "
		    "take every program out of FIPS-only mode or never select "
		    "it; refusing", sys != NULL ? "default_properties = " :
		    "fips_mode = ", sys != NULL ? sys : fips_mode, alg);
		return -1;
	}
	if (sys != NULL && foreach_clause(sys, excludes_proxy, &bad) == 1) {
		logx(0, "the system configuration requires %.*s of every "
		    "algorithm (default_properties = %s in [%s]), which "
		    "crlcache's proxies (provider=crlcache) do not meet: they "
		    "would never be chosen and revocation checking would be "
		    "off; refusing", (int)(bad.end - bad.start), bad.start,
		    sys, alg);
		return -1;
	}
	ours = snippet_properties(snippet);
	if ((m.out = open_memstream(&mem, &memlen)) == NULL) {
		free(ours);
		return -1;
	}
	rc = sys != NULL ? foreach_clause(sys, keep_clause, &m) : 0;
	fprintf(m.out, "%s%s", m.n > 0 ? "," : "", ours);
	free(ours);
	if (fclose(m.out) != 0 || rc != 0) {
		logx(0, "default_properties = %s in [%s]: not a property query "
		    "crlcache can merge its own into; refusing", sys, alg);
		goto done;
	}
	if (memlen > MAX_PROPERTIES) {
		logx(0, "default_properties in [%s]: longer than %d bytes", alg,
		    MAX_PROPERTIES);
		goto done;
	}
	fputs("default_properties = ", out);
	if (write_escaped(out, mem) == -1)
		goto done;
	fputc('\n', out);
	ret = 0;
done:
	free(mem);
	return ret;
}

/* Config values we write must stay on one line and be plain. */
static int
plain_value(const char *s)
{
	return s != NULL && *s != '\0' && strpbrk(s, OSSLCONF_UNSAFE) == NULL;
}

static int
plain_key(const char *s)
{
	if (*s == '\0')
		return 0;
	for (; *s != '\0'; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '.')
			return 0;
	return 1;
}

/* Copy section sect of conf, skipping the keys in skip[]. */
static void
copy_section(FILE *out, const CONF *conf, const char *sect,
    const char *const *skip)
{
	STACK_OF(CONF_VALUE) *sk;
	const char *const *s;
	int i;

	if (sect == NULL || (sk = NCONF_get_section(conf, sect)) == NULL)
		return;
	for (i = 0; i < sk_CONF_VALUE_num(sk); i++) {
		CONF_VALUE *cv = sk_CONF_VALUE_value(sk, i);
		int skipped = 0;

		for (s = skip; *s != NULL; s++)
			skipped |= strcmp(cv->name, *s) == 0;
		if (!skipped && plain_key(cv->name) && plain_value(cv->value))
			fprintf(out, "%s = %s\n", cv->name, cv->value);
	}
}

/* The system configuration, read into a CONF of library context ctx. */
static CONF *
cnf_load(OSSL_LIB_CTX *ctx, const char *sys, size_t syslen, long *line)
{
	CONF *conf;
	BIO *b;

	if (syslen > INT_MAX || (conf = NCONF_new_ex(ctx, NULL)) == NULL)
		return NULL;
	if ((b = BIO_new_mem_buf(sys, (int)syslen)) == NULL ||
	    NCONF_load_bio(conf, b, line) <= 0) {
		BIO_free(b);
		NCONF_free(conf);
		return NULL;
	}
	BIO_free(b);
	return conf;
}

/*
 * Whether a program reading the system configuration by init key key
 * ends up with the default provider active: loaded into a throwaway
 * library context, as the installed OpenSSL reads it at start-up (the
 * program reads it anyway: nothing runs here that would not run there).
 */
static int
default_active(const char *sys, size_t syslen, const char *key)
{
	OSSL_LIB_CTX *ctx;
	CONF *conf = NULL;
	long line = 0;
	int active = 0;

	if ((ctx = OSSL_LIB_CTX_new()) != NULL &&
	    (conf = cnf_load(ctx, sys, syslen, &line)) != NULL) {
		/* Start-up goes on past a module that fails: so do we. */
		(void)CONF_modules_load(conf, key, 0);
		active = OSSL_PROVIDER_available(ctx, "default");
	}
	ERR_clear_error();
	NCONF_free(conf);
	OSSL_LIB_CTX_free(ctx);
	return active;
}

/*
 * One init section (names n) merged from the system's init section init
 * (NULL: none): its keys, its providers plus crlcache (and an activated
 * default where with_default says the system leaves default active), its
 * algorithm section with our properties.
 */
static int
write_init(FILE *out, const CONF *conf, const char *init,
    const struct init_names *n, const char *snippet, int with_default)
{
	static const char *const init_skip[] = { "providers", "alg_section", NULL };
	static const char *const prov_skip[] = { "default", "crlcache", NULL };
	static const char *const alg_skip[] = { "default_properties", NULL };
	const char *alg;

	fprintf(out, "[%s]\n", n->init);
	copy_section(out, conf, init, init_skip);
	fprintf(out, "providers = %s\nalg_section = %s\n", n->prov, n->alg);
	fprintf(out, "[%s]\n", n->prov);
	if (init != NULL)
		copy_section(out, conf, NCONF_get_string(conf, init, "providers"),
		    prov_skip + !with_default);
	ERR_clear_error();
	if (with_default)
		fprintf(out, "default = crlcache_default_sect\n");
	fprintf(out, "crlcache = crlcache_sect\n");
	fprintf(out, "[%s]\n", n->alg);
	alg = init != NULL ? NCONF_get_string(conf, init, "alg_section") : NULL;
	ERR_clear_error();
	copy_section(out, conf, alg, alg_skip);
	return write_properties(out, conf, alg, snippet);
}

/* The --set KEY=VALUE lines, into crlcache_sect: 0, or -1 (logged). */
static int
write_sets(FILE *out, const struct strlist *sets)
{
	size_t i;

	for (i = 0; sets != NULL && i < sets->n; i++) {
		const char *eq = strchr(sets->v[i], '=');
		char key[64];

		if (eq == NULL || (size_t)(eq - sets->v[i]) >= sizeof(key)) {
			logx(0, "--set %s: expected KEY=VALUE", sets->v[i]);
			return -1;
		}
		memcpy(key, sets->v[i], (size_t)(eq - sets->v[i]));
		key[eq - sets->v[i]] = '\0';
		if (!plain_key(key) || !plain_value(eq + 1)) {
			logx(0, "--set %s: bad key or value", sets->v[i]);
			return -1;
		}
		fprintf(out, "%s = %s\n", key, eq + 1);
	}
	return 0;
}

int
osslconf_write(FILE *out, const char *include, const char *sys,
    size_t syslen, const char *snippet, const char *module, const char *index,
    const struct strlist *sets)
{
	CONF *conf = NULL;
	const char *init = NULL, *node = NULL;
	long line = 0;
	int ret = -1, node_default = 1;

	if (!plain_value(snippet) || !plain_value(module) || !plain_value(index) ||
	    (include != NULL && !plain_value(include))) {
		logx(0, "a path contains a character openssl.cnf cannot hold");
		return -1;
	}
	if (sys != NULL) {
		if ((conf = cnf_load(NULL, sys, syslen, &line)) == NULL) {
			logx(0, "the system openssl.cnf does not parse (line %ld)",
			    line);
			goto done;
		}
		init = NCONF_get_string(conf, NULL, openssl_names.key);
		ERR_clear_error();
		node = NCONF_get_string(conf, NULL, nodejs_names.key);
		ERR_clear_error();
	}
	if (include != NULL)
		fprintf(out, ".include %s\n", include);
	fprintf(out, ".include %s\n", snippet);
	fprintf(out, "[default]\n%s = %s\n%s = %s\n", openssl_names.key,
	    openssl_names.init, nodejs_names.key,
	    node != NULL ? nodejs_names.init : openssl_names.init);
	if (node != NULL)
		node_default = default_active(sys, syslen, nodejs_names.key);
	if (write_init(out, conf, init, &openssl_names, snippet, sys == NULL ||
	    default_active(sys, syslen, openssl_names.key)) == -1 ||
	    (node != NULL && write_init(out, conf, node, &nodejs_names, snippet,
	    node_default) == -1))
		goto done;
	/*
	 * What a removed package leaves must not break a program.  OpenSSL
	 * 3.0 and 3.5 skip a provider whose module is missing, and an
	 * .include of a missing file, and read the rest; but a provider
	 * naming a section that is not there fails the whole configuration
	 * under config_diagnostics = 1 (Debian's openssl.cnf): every program
	 * refuses to start.  So every section the init sections name is
	 * here, not only in the snippet a purge takes away; soft_load tells
	 * OpenSSL a failed load of this one is not an error of the file.
	 */
	fprintf(out, "[crlcache_default_sect]\nactivate = 1\n"
	    "[crlcache_sect]\nmodule = %s\nindex = %s\nactivate = 1\n"
	    "soft_load = 1\n", module, index);
	if (write_sets(out, sets) == -1)
		goto done;
	ret = ferror(out) ? -1 : 0;
done:
	NCONF_free(conf);
	return ret;
}
