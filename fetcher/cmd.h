/*
 * crlcache command-line tool: the subcommands main.c runs through its
 * table.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_FETCHER_CMD_H
#define CRLCACHE_FETCHER_CMD_H

#include "fetcher.h"

struct cmd_ctx;

/* subcommands: main.c runs them through its table */

int	 cmd_reset(const struct cmd_ctx *c, int argc, char **argv);
int	 cmd_publish(const struct cmd_ctx *c, int argc, char **argv);
int	 cmd_import(const struct cmd_ctx *c, int argc, char **argv);
int	 cmd_update(const struct cmd_ctx *c, int argc, char **argv);
int	 cmd_enroll(const struct cmd_ctx *c, int argc, char **argv);
int	 cmd_check(const struct cmd_ctx *c, int argc, char **argv);
int	 cmd_exec(const struct cmd_ctx *c, int argc, char **argv);
int	 cmd_enable(const struct cmd_ctx *c, int argc, char **argv);
int	 cmd_disable(const struct cmd_ctx *c, int argc, char **argv);
int	 cmd_mirror(const struct cmd_ctx *c, int argc, char **argv);
int	 cmd_status(const struct cmd_ctx *c, int argc, char **argv);
int	 cmd_share(const struct cmd_ctx *c, int argc, char **argv);

#endif /* CRLCACHE_FETCHER_CMD_H */
