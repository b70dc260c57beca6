#ifndef YCFT_CLINUXCALLS_SHIM_H
#define YCFT_CLINUXCALLS_SHIM_H

/* The Linux calls of the file writer (SafeFiles) that Glibc's Swift module does not declare.
   Empty elsewhere: the writer falls back to what every system has (SafeFiles' #if os(Linux)). */
#ifdef __linux__

#include <fcntl.h>
#include <sys/xattr.h>

/* glibc declares these two only under _GNU_SOURCE, which this module cannot define: the headers
   would then define fd_set and other types unlike Glibc's module, and Clang refuses a type with
   two definitions. So they are declared here, as glibc declares them (glibc 2.35 is the floor). */

/** renameat2(2), in <stdio.h> (Linux 3.15, glibc 2.28). */
extern int renameat2(int olddirfd, const char *_Nonnull oldpath, int newdirfd, const char *_Nonnull newpath, unsigned int flags);

/** syncfs(2), in <unistd.h> (glibc 2.14). */
extern int syncfs(int fd);

/** RENAME_EXCHANGE (<stdio.h> under _GNU_SOURCE, <linux/fs.h>): swap the two names atomically,
    both of which must exist. */
#define YCFT_RENAME_EXCHANGE (1U << 1)

/** O_TMPFILE: an unnamed file in the directory opened (<fcntl.h> defines it only under
    _GNU_SOURCE; __O_TMPFILE, this architecture's value including O_DIRECTORY, always). */
#define YCFT_O_TMPFILE __O_TMPFILE

#endif
#endif
