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

#include <crlcache/version.h>

#include "cmd.h"
#include "conf.h"
#include "fetcher.h"
#include "privs.h"
#include "refusals.h"
#include "status.h"

/*
 * Every command, and how it touches the state directory: main() applies
 * that (state_enter) before the command runs, so that no code running
 * as root opens anything there on its owner's behalf.  A command that is
 * not here does not run.  synopsis and what: its lines of the usage
 * (`crlcache --help`, `crlcache COMMAND --help`).
 */
static const struct command {
	const char	*name;
	enum state_access access;
	int		(*run)(const struct cmd_ctx *c, int argc, char **argv);
	const char	*synopsis;
	const char	*what;
} commands[] = {
	{ "update",	STATE_WRITES,	cmd_update,
	  "update [--refresh-directory | --hints]",
	  "fetch, verify and publish the configured CRLs\n"
	  "(--hints: only those of newly hinted issuers)" },
	{ "import",	STATE_WRITES,	cmd_import,
	  "import [--anchor CA.pem]... [--untrusted CERTS.pem]... [--at TIME]\n"
	  "       [[--url URL] CRL]...",
	  "ingest CRL files offline" },
	{ "enroll",	STATE_WRITES,	cmd_enroll,
	  "enroll CERT.pem | HOST:PORT ...",
	  "fetch the CRLs of these certificates' issuers" },
	{ "reset",	STATE_WRITES,	cmd_reset,
	  "reset --issuer CERT.pem [--scope URI] [--reasons LIST] [--kind KINDS]\n"
	  "reset --all",
	  "forget the CRL one scope holds (rollback lock);\n"
	  "--all: the whole working index, to start afresh" },
	{ "publish",	STATE_WRITES,	cmd_publish,
	  "publish",
	  "publish the working state again, no network" },
	{ "check",	STATE_READS,	cmd_check,
	  "check [--chain CHAIN.pem] [--at TIME] CERT.pem | HOST:PORT",
	  "look certificates (or a server's chain) up in\n"
	  "the published index" },
	{ "status",	STATE_READS,	cmd_status,
	  "status [--json] [--prometheus FILE|-] [--at TIME]\n"
	  "status --directory | --refusals",
	  "show the published index and its sources;\n"
	  "--directory: the CCADB records not kept;\n"
	  "--refusals: the certificates refused lately, why" },
	{ "mirror",	STATE_READS,	cmd_mirror,
	  "mirror DIR",
	  "write the published CRLs under DIR for a\n"
	  "static web server (mirror = in crlcache.conf)" },
	{ "share",	STATE_READS,	cmd_share,
	  "share [--socket PATH]",
	  "pass the CRLite lookup file, sealed, to\n"
	  "the programs that ask (systemd socket)" },
	{ "exec",	STATE_NONE,	cmd_exec,
	  "exec [--module PATH] [--set KEY=VALUE]... [--] PROGRAM [ARGS...]",
	  "run PROGRAM with the provider switched on" },
	{ "enable",	STATE_NONE,	cmd_enable,
	  "enable [--openssl-cnf FILE] [--module PATH] [--snippet PATH]",
	  "switch the provider on in the system openssl.cnf" },
	{ "disable",	STATE_NONE,	cmd_disable,
	  "disable [--openssl-cnf FILE]",
	  "remove what enable added, byte for byte" },
};
#define NCOMMANDS	(sizeof(commands) / sizeof(*commands))
/* The column a command's description starts at. */
#define WHAT_COLUMN	25

/* Each line of text, indented by indent columns. */
static void
put_indented(FILE *f, const char *text, int indent)
{
	const char *nl;

	for (; *text != '\0'; text = *nl == '\0' ? nl : nl + 1) {
		nl = strchr(text, '\n');
		if (nl == NULL)
			nl = text + strlen(text);
		fprintf(f, "%*s%.*s\n", indent, "", (int)(nl - text), text);
	}
}

/* A short one-line synopsis shares its line with the description. */
static void
command_usage(FILE *f, const struct command *cmd, int indent)
{
	const char *what = cmd->what;
	size_t len = strlen(cmd->synopsis);

	if (strchr(cmd->synopsis, '\n') == NULL &&
	    (int)len + indent < WHAT_COLUMN - 1) {
		fprintf(f, "%*s%-*s", indent, "", WHAT_COLUMN - indent,
		    cmd->synopsis);
		len = strcspn(what, "\n");
		fprintf(f, "%.*s\n", (int)len, what);
		what += what[len] == '\n' ? len + 1 : len;
	} else
		put_indented(f, cmd->synopsis, indent);
	put_indented(f, what, WHAT_COLUMN);
}

static void
usage(FILE *f)
{
	size_t i;

	fputs("usage: crlcache [--state-dir DIR] [-c FILE] [-v | -q] [--allow-root]\n"
	    "                [--syslog] COMMAND [ARGS]\n"
	    "       crlcache --version | -V | --help | COMMAND --help\n"
	    "commands:\n", f);
	for (i = 0; i < NCOMMANDS; i++)
		command_usage(f, &commands[i], 2);
}

/*
 * A word that is no command: named, with where the list is, instead of
 * the whole usage that would hide it.
 */
static int
unknown_command(const char *word)
{
	char *shown = safe_text(word);

	fprintf(stderr, "crlcache: unknown command '%s'; `crlcache --help` "
	    "lists them\n", shown);
	free(shown);
	return 4;
}

static const struct command *
command_find(const char *name)
{
	size_t i;

	for (i = 0; i < NCOMMANDS; i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

/*
 * cmd with its configuration, at the state as its table entry says
 * (privs.c): its exit status.
 */
static int
run_command(const struct command *cmd, const char *state_dir,
    const char *conf_path, int explicit_conf, int allow_root, int argc,
    char **argv)
{
	struct cmd_ctx ctx;
	struct conf conf;
	int ret;

	conf_init(&conf);
	if (conf_load(&conf, conf_path, explicit_conf) == -1) {
		conf_free(&conf);
		return 4;
	}
	ctx.conf = &conf;
	if (state_enter(&ctx, cmd->access, state_dir, allow_root) == -1) {
		state_leave(&ctx);
		conf_free(&conf);
		return 4;
	}
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		logx(0, "cannot initialise libcurl");
		state_leave(&ctx);
		conf_free(&conf);
		return 4;
	}
	ret = cmd->run(&ctx, argc, argv);
	/* Every user's status then says what root's does. */
	if (cmd->access == STATE_WRITES) {
		status_leave_verdict(ctx.st, conf.stale_grace);
		refusals_tend(ctx.st);
	}
	state_leave(&ctx);
	curl_global_cleanup();
	conf_free(&conf);
	return ret;
}

/* Long for its option table and switch, one case an option. */
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
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *state_dir = getenv("CRLCACHE_STATE_DIR");
	const char *conf_path = DEFAULT_CONF;
	const struct command *cmd;
	const char *allow_env = getenv("CRLCACHE_ALLOW_ROOT");
	int ch, explicit_conf = 0, allow_root;

	if (state_dir == NULL || *state_dir == '\0')
		state_dir = DEFAULT_STATE_DIR;
	/* '+': options end at the subcommand, which has its own. */
	while ((ch = getopt_long(argc, argv, "+c:vqhV", opts, NULL)) != -1) {
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
		case 'V':
			printf("crlcache %s\n", CRLCACHE_VERSION);
			return 0;
		default:
			/* getopt said which option; the list is one command away */
			fputs("crlcache: `crlcache --help` lists the options\n",
			    stderr);
			return 4;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 4;
	}
	if ((cmd = command_find(argv[optind])) == NULL)
		return unknown_command(argv[optind]);
	argc -= optind;
	argv += optind;
	optind = 1;
	/* Before the configuration and the state: any user may ask. */
	if (argc == 2 && (strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "-h") == 0)) {
		fputs("usage: crlcache [OPTIONS] COMMAND [ARGS] (crlcache --help);\n"
		    "this command:\n", stdout);
		command_usage(stdout, cmd, 2);
		return 0;
	}

	allow_root = allow_env != NULL && strcmp(allow_env, "1") == 0;
	return run_command(cmd, state_dir, conf_path, explicit_conf, allow_root,
	    argc, argv);
}
