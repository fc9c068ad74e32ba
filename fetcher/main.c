/*
 * crlcache: keep the system revocation index fresh, and query it.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include <curl/curl.h>

#include "fetcher.h"

static void
usage(FILE *f)
{
	fputs("usage: crlcache [--state-dir DIR] [-c FILE] [-v | -q] [--allow-root]\n"
	    "                [--syslog] COMMAND [ARGS]\n"
	    "commands:\n"
	    "  update [--refresh-directory | --hints]\n"
	    "                         fetch, verify and publish the configured CRLs\n"
	    "                         (--hints: only those of newly hinted issuers)\n"
	    "  import [--anchor CA.pem]... [--untrusted CERTS.pem]... [--at TIME]\n"
	    "         [[--url URL] CRL]...\n"
	    "                         ingest CRL files offline\n"
	    "  enroll CERT.pem | HOST:PORT ...\n"
	    "                         fetch the CRLs of these certificates' issuers\n"
	    "  reset --issuer CERT.pem [--scope URI]\n"
	    "                         forget the CRL one scope holds (rollback lock)\n"
	    "  publish                publish the working state again, no network\n"
	    "  check [--chain CHAIN.pem] [--at TIME] CERT.pem | HOST:PORT\n"
	    "                         look certificates (or a server's chain) up in\n"
	    "                         the published index\n"
	    "  status [--json] [--prometheus FILE] [--at TIME]\n"
	    "                         show the published index and its sources\n"
	    "  mirror DIR             write the published CRLs under DIR for a\n"
	    "                         static web server (mirror = in crlcache.conf)\n"
	    "  exec [--module PATH] [--set KEY=VALUE]... [--] PROGRAM [ARGS...]\n"
	    "                         run PROGRAM with the provider switched on\n"
	    "  enable [--openssl-cnf FILE] [--module PATH] [--snippet PATH]\n"
	    "                         switch the provider on in the system openssl.cnf\n"
	    "  disable [--openssl-cnf FILE]\n"
	    "                         remove what enable added, byte for byte\n", f);
}

/*
 * Every command, and how it touches the state directory: main() applies
 * that (state_enter) before the command runs, so that no code running
 * as root opens anything there on its owner's behalf.  A command that is
 * not here does not run.
 */
static const struct command {
	const char	*name;
	enum state_access access;
	int		(*run)(const struct cmd_ctx *c, int argc, char **argv);
} commands[] = {
	{ "update",	STATE_WRITES,	cmd_update },
	{ "import",	STATE_WRITES,	cmd_import },
	{ "enroll",	STATE_WRITES,	cmd_enroll },
	{ "reset",	STATE_WRITES,	cmd_reset },
	{ "publish",	STATE_WRITES,	cmd_publish },
	{ "check",	STATE_READS,	cmd_check },
	{ "status",	STATE_READS,	cmd_status },
	{ "mirror",	STATE_READS,	cmd_mirror },
	{ "exec",	STATE_NONE,	cmd_exec },
	{ "enable",	STATE_NONE,	cmd_enable },
	{ "disable",	STATE_NONE,	cmd_disable },
};

static const struct command *
command_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(commands) / sizeof(*commands); i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "state-dir", required_argument, NULL, 's' },
		{ "config", required_argument, NULL, 'c' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "allow-root", no_argument, NULL, 'R' },
		{ "syslog", no_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	const char *state_dir = getenv("CRLCACHE_STATE_DIR");
	const char *conf_path = DEFAULT_CONF;
	const struct command *cmd;
	struct cmd_ctx ctx;
	struct conf conf;
	const char *allow_env = getenv("CRLCACHE_ALLOW_ROOT");
	int ch, explicit_conf = 0, allow_root, ret;

	if (state_dir == NULL || *state_dir == '\0')
		state_dir = DEFAULT_STATE_DIR;
	/* '+': options end at the subcommand, which has its own. */
	while ((ch = getopt_long(argc, argv, "+c:vqh", opts, NULL)) != -1) {
		switch (ch) {
		case 's':
			state_dir = optarg;
			break;
		case 'c':
			conf_path = optarg;
			explicit_conf = 1;
			break;
		case 'v':
			verbosity = 2;
			break;
		case 'q':
			verbosity = 0;
			break;
		case 'R':
			allow_env = "1";
			break;
		case 'S':
			log_syslog = 1;
			openlog("crlcache", LOG_PID, LOG_DAEMON);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 4;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 4;
	}
	if ((cmd = command_find(argv[optind])) == NULL) {
		usage(stderr);
		return 4;
	}
	argc -= optind;
	argv += optind;
	optind = 1;

	conf_init(&conf);
	if (conf_load(&conf, conf_path, explicit_conf) == -1) {
		conf_free(&conf);
		return 4;
	}
	allow_root = allow_env != NULL && strcmp(allow_env, "1") == 0;
	ctx.conf = &conf;
	if (state_enter(&ctx, cmd->access, state_dir, allow_root) == -1) {
		conf_free(&conf);
		return 4;
	}
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		logx(0, "cannot initialise libcurl");
		conf_free(&conf);
		return 4;
	}
	ret = cmd->run(&ctx, argc, argv);
	curl_global_cleanup();
	conf_free(&conf);
	return ret;
}
