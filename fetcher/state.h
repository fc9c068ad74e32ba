/*
 * The state directory, opened once: the fetcher's only way into it.
 *
 * main.c opens the handle after privileges are settled (privs.c: a
 * STATE_WRITES command as the state's owner; a STATE_READS command in
 * as_state_owner()'s reader, as the owner).  From then on no module
 * joins a path on the state directory: every file is reached relative
 * to the directory's descriptor, by a name relative to it ("index.mdb",
 * "work/enrolled", "crlite/index.bin"), with these rules (DESIGN 8):
 *
 *  - no symbolic link is followed, in the last component (O_NOFOLLOW)
 *    or in a directory on the way (each is opened O_NOFOLLOW |
 *    O_DIRECTORY);
 *  - nothing waits on a FIFO planted in the directory (O_NONBLOCK);
 *  - a file read through state_read() is a regular file of the
 *    directory's owner or root, writable by nobody else
 *    (lib/statefile.c's crlc_state_open(), the provider's rule too);
 *  - a file is replaced whole: written to a temporary name beside it,
 *    fsync'ed, renamed over it, and the directory fsync'ed.
 *
 * The top directory and its first-level subdirectories (work/, scope/,
 * crlite/, refusals/ ...) are opened once, when first used, and kept;
 * code that renames or removes a subdirectory calls state_forget().
 * A name has at most STATE_DEPTH components and STATE_NAME_MAX bytes.
 *
 * Copyright the crlcache authors. Licensed under the Apache License 2.0.
 */
#ifndef CRLCACHE_FETCHER_STATE_H
#define CRLCACHE_FETCHER_STATE_H

#include <dirent.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#define STATE_NAME_MAX		256
#define STATE_DEPTH		3
/* Subdirectories kept open: the state has seven. */
#define STATE_SUBDIRS		16

struct state_subdir {
	char		 name[STATE_NAME_MAX];
	int		 fd;
	struct stat	 sb;
};

struct state {
	char		*path;		/* for messages and path-only APIs */
	int		 fd;		/* the state directory, or -1 */
	struct stat	 sb;		/* its stat: whose state it is */
	struct state_subdir sub[STATE_SUBDIRS];
	size_t		 nsub;
};

/*
 * Open the state directory path.  0, or -1 with the reason logged.  A
 * directory that does not exist yet is no error: the handle stays empty
 * (every operation fails with ENOENT) until state_create() makes it, or
 * until an operation finds it made since.
 */
int	 state_open(struct state *st, const char *path);
/*
 * state_open() of the directory pin (an O_PATH descriptor of path, which
 * names it in messages), opened as the caller is now; pin -1: of path.
 */
int	 state_open_pinned(struct state *st, int pin, const char *path);
/* Make the directory (0755) when the handle is empty.  0, or -1 logged. */
int	 state_create(struct state *st);
/* Close every descriptor; st may be NULL or never opened. */
void	 state_close(struct state *st);
/* The directory's path: for messages only. */
const char *state_path(const struct state *st);

/*
 * The directory holding name (name's components but the last), opened
 * through the handle, and the last component in *base.  The descriptor
 * belongs to the handle: do not close it.  -1 with errno.
 */
int	 state_dirfd(struct state *st, const char *name, const char **base);
/* Forget the open subdirectory name (renamed or removed since). */
void	 state_forget(struct state *st, const char *name);

/* openat() name with O_NOFOLLOW | O_CLOEXEC added; -1 with errno. */
int	 state_openat(struct state *st, const char *name, int flags,
	    mode_t mode);
/*
 * A file for reading under the owner rule above (crlc_state_open);
 * *sb gets its stat.  -1 with errno (EPERM: the rule was broken).
 */
int	 state_open_file(struct state *st, const char *name, struct stat *sb);
/*
 * Read the whole file name, at most max bytes, under the owner rule:
 * *buf (NUL-terminated, free()) and *len.  -1 with the reason in err
 * (errno ENOENT when the file does not exist).
 */
int	 state_read(struct state *st, const char *name, size_t max,
	    uint8_t **buf, size_t *len, char *err, size_t errlen);
/*
 * Replace name whole with data, mode given (see above).  0; -1 with the
 * reason logged and nothing left behind.
 */
int	 state_replace(struct state *st, const char *name, const void *data,
	    size_t len, mode_t mode);
/* unlinkat(); flags as unlinkat's.  -1 with errno. */
int	 state_remove(struct state *st, const char *name, int flags);
/* renameat() within the state, then fsync the target's directory. */
int	 state_rename(struct state *st, const char *from, const char *to);
/* mkdirat() with mode exactly (not the umask's); EEXIST is success. */
int	 state_mkdir(struct state *st, const char *name, mode_t mode);
/* The directory name, for readdir(); closedir() it.  NULL with errno. */
DIR	*state_list(struct state *st, const char *name);
/*
 * The path of name, for the one API that takes nothing else (LMDB's
 * mdb_env_open, for work/): the only place a path in the state is
 * joined to be opened.  -1 when it does not fit.
 */
int	 state_file_path(const struct state *st, const char *name, char *out,
	    size_t len);
/*
 * state_replace(), the new file's access and modification times set to
 * ts (futimens) before it takes name: a file whose mtime is a date
 * (the learning marker's expiry) is never seen with another.
 */
int	 state_replace_timed(struct state *st, const char *name,
	    const void *data, size_t len, mode_t mode,
	    const struct timespec ts[2]);
/*
 * Is there an entry name (a link not followed)?  1 yes, 0 no (it or a
 * directory on the way does not exist), -1 another error with errno.
 */
int	 state_exists(struct state *st, const char *name);

/*
 * A new file of the directory dfd named prefix and STATE_TEMP_SUFFIX
 * random letters and digits (mkostemp()'s names, for the cleaners that
 * know them), created O_EXCL with mode: its descriptor, its name in tmp.
 * -1 with errno.
 */
#define STATE_TEMP_SUFFIX	6
int	 state_mktemp(int dfd, const char *prefix, mode_t mode, char *tmp,
	    size_t tmplen);
/*
 * Open the published index (INDEX_NAME) for reading; its path goes to
 * path.  When it cannot be opened, say why if report, and return -1.
 */
struct crlc_index;
int	 index_open(struct state *st, char *path, size_t len,
	    struct crlc_index **idx, int report);

#endif /* CRLCACHE_FETCHER_STATE_H */
