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
 * engines, ...), lists the system's providers plus default and crlcache,
 * and selects crlcache_algs.  OpenSSL's parser lets a later [section]
 * reopen an earlier one and a later key replace an earlier value; that is
 * how module, index and --set overrides land in crlcache_sect.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include <openssl/conf.h>
#include <openssl/err.h>

#include "fetcher.h"

#define INIT_SECT	"crlcache_generated_init"
#define PROV_SECT	"crlcache_generated_providers"

/* Config values we write must stay on one line and be plain. */
static int
plain_value(const char *s)
{
	return s != NULL && *s != '\0' && strpbrk(s, "\r\n\\$\"'#") == NULL;
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

int
osslconf_write(FILE *out, const char *include, BIO *system,
    const char *snippet, const char *module, const char *index,
    const struct strlist *sets)
{
	static const char *const init_skip[] = { "providers", "alg_section", NULL };
	static const char *const prov_skip[] = { "default", "crlcache", NULL };
	static const char *const alg_skip[] = { "default_properties", NULL };
	CONF *conf = NULL;
	const char *init = NULL;
	long line = 0;
	size_t i;
	int ret = -1;

	if (!plain_value(snippet) || !plain_value(module) || !plain_value(index) ||
	    (include != NULL && !plain_value(include))) {
		logx(0, "a path contains a character openssl.cnf cannot hold");
		return -1;
	}
	if (system != NULL) {
		if ((conf = NCONF_new(NULL)) == NULL ||
		    NCONF_load_bio(conf, system, &line) <= 0) {
			logx(0, "the system openssl.cnf does not parse (line %ld)",
			    line);
			goto done;
		}
		init = NCONF_get_string(conf, NULL, "openssl_conf");
		ERR_clear_error();
	}
	if (include != NULL)
		fprintf(out, ".include %s\n", include);
	fprintf(out, ".include %s\n", snippet);
	fprintf(out, "[default]\nopenssl_conf = " INIT_SECT "\n");
	fprintf(out, "[" INIT_SECT "]\n");
	copy_section(out, conf, init, init_skip);
	fprintf(out, "providers = " PROV_SECT "\nalg_section = crlcache_algs\n");
	fprintf(out, "[" PROV_SECT "]\n");
	if (init != NULL)
		copy_section(out, conf, NCONF_get_string(conf, init, "providers"),
		    prov_skip);
	ERR_clear_error();
	fprintf(out, "default = crlcache_default_sect\ncrlcache = crlcache_sect\n");
	fprintf(out, "[crlcache_algs]\n");
	if (init != NULL)
		copy_section(out, conf, NCONF_get_string(conf, init, "alg_section"),
		    alg_skip);
	ERR_clear_error();
	fprintf(out, "[crlcache_sect]\nmodule = %s\nindex = %s\n", module, index);
	for (i = 0; sets != NULL && i < sets->n; i++) {
		const char *eq = strchr(sets->v[i], '=');
		char key[64];

		if (eq == NULL || (size_t)(eq - sets->v[i]) >= sizeof(key)) {
			logx(0, "--set %s: expected KEY=VALUE", sets->v[i]);
			goto done;
		}
		memcpy(key, sets->v[i], (size_t)(eq - sets->v[i]));
		key[eq - sets->v[i]] = '\0';
		if (!plain_key(key) || !plain_value(eq + 1)) {
			logx(0, "--set %s: bad key or value", sets->v[i]);
			goto done;
		}
		fprintf(out, "%s = %s\n", key, eq + 1);
	}
	ret = ferror(out) ? -1 : 0;
done:
	NCONF_free(conf);
	return ret;
}
