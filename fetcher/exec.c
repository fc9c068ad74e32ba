/*
 * crlcache exec: run one program with the provider switched on, through a
 * generated OPENSSL_CONF, before enabling it system-wide.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/conf.h>
#include <openssl/crypto.h>

#include "fetcher.h"

#ifndef SNIPPET_PATH
#define SNIPPET_PATH	"/etc/ssl/openssl.cnf.d/crlcache.cnf"
#endif

/* dir/../rel next to our own executable (the build tree), if it exists. */
static int
beside_exe(const char *rel, char *out, size_t len)
{
	char exe[PATH_MAX], *slash;
	ssize_t n;

	if ((n = readlink("/proc/self/exe", exe, sizeof(exe) - 1)) <= 0)
		return -1;
	exe[n] = '\0';
	if ((slash = strrchr(exe, '/')) == NULL)
		return -1;
	*slash = '\0';
	if ((size_t)snprintf(out, len, "%s/../%s", exe, rel) >= len ||
	    access(out, R_OK) == -1)
		return -1;
	return realpath(out, exe) != NULL &&
	    (size_t)snprintf(out, len, "%s", exe) < len ? 0 : -1;
}

/* Option, environment, build tree, installed location: first that exists. */
static int
locate(const char *opt, const char *env, const char *rel, const char *installed,
    char *out, size_t len)
{
	const char *e = getenv(env);

	if (opt != NULL)
		return snprintf(out, len, "%s", opt) < (int)len ? 0 : -1;
	if (e != NULL && *e != '\0')
		return snprintf(out, len, "%s", e) < (int)len ? 0 : -1;
	if (beside_exe(rel, out, len) == 0)
		return 0;
	return snprintf(out, len, "%s", installed) < (int)len ? 0 : -1;
}

int
cmd_exec(const char *state_dir, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "module", required_argument, NULL, 'm' },
		{ "set", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	struct strlist sets = { NULL, 0 };
	const char *module_opt = NULL;
	char module[PATH_MAX], snippet[PATH_MAX], index[PATH_MAX], installed[PATH_MAX];
	char envval[64], *system_cnf = NULL;
	FILE *f = NULL;
	BIO *sys = NULL;
	int ch, fd = -1, ret = 4;

	/* '+': stop at the program name; its options are its own. */
	while ((ch = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		if (ch == 'm')
			module_opt = optarg;
		else if (ch == 's')
			strlist_add(&sets, optarg);
		else
			goto done;
	}
	if (optind >= argc) {
		logx(0, "usage: crlcache exec [--module PATH] [--set KEY=VALUE]... "
		    "[--] PROGRAM [ARGS...]");
		goto done;
	}
	if (openssl_dir(OPENSSL_MODULES_DIR, installed, sizeof(installed)) == -1 ||
	    strlen(installed) + sizeof("/crlcache.so") > sizeof(installed)) {
		logx(0, "exec: cannot tell OpenSSL's modules directory");
		goto done;
	}
	strcat(installed, "/crlcache.so");
	if (locate(module_opt, "CRLCACHE_MODULE", "provider/crlcache.so",
	    installed, module, sizeof(module)) == -1 ||
	    locate(NULL, "CRLCACHE_SNIPPET", "openssl.cnf.d/crlcache.cnf",
	    SNIPPET_PATH, snippet, sizeof(snippet)) == -1 ||
	    realpath(state_dir, index) == NULL ||
	    strlen(index) + sizeof("/" INDEX_NAME) > sizeof(index)) {
		logx(0, "exec: cannot locate the module, the snippet or %s",
		    state_dir);
		goto done;
	}
	strcat(index, "/" INDEX_NAME);
	if (access(module, R_OK) == -1 || access(snippet, R_OK) == -1) {
		logx(0, "exec: %s: %s", access(module, R_OK) == -1 ? module : snippet,
		    strerror(errno));
		goto done;
	}
	/* The system configuration the program would have read. */
	system_cnf = CONF_get1_default_config_file();
	if (system_cnf != NULL && access(system_cnf, R_OK) == -1) {
		OPENSSL_free(system_cnf);
		system_cnf = NULL;
	}
	/*
	 * An anonymous file, inherited by the program and read through
	 * /proc/self/fd: nothing to clean up after exec.
	 */
	if ((fd = memfd_create("crlcache-openssl.cnf", 0)) == -1 ||
	    (f = fdopen(dup(fd), "w")) == NULL) {
		logx(0, "exec: memfd: %s", strerror(errno));
		goto done;
	}
	if (system_cnf != NULL && (sys = BIO_new_file(system_cnf, "r")) == NULL) {
		logx(0, "exec: %s: cannot open", system_cnf);
		goto done;
	}
	if (osslconf_write(f, system_cnf, sys, snippet, module, index,
	    &sets) == -1 || fclose(f) != 0) {
		f = NULL;
		goto done;
	}
	f = NULL;
	snprintf(envval, sizeof(envval), "/proc/self/fd/%d", fd);
	if (setenv("OPENSSL_CONF", envval, 1) == -1)
		goto done;
	logx(2, "exec: OPENSSL_CONF with module %s, index %s", module, index);
	execvp(argv[optind], argv + optind);
	logx(0, "exec: %s: %s", argv[optind], strerror(errno));
	ret = 127;
done:
	if (f != NULL)
		fclose(f);
	if (fd != -1)
		close(fd);
	BIO_free(sys);
	OPENSSL_free(system_cnf);
	strlist_free(&sets);
	return ret;
}
