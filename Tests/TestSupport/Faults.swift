import Foundation

/// System calls that fail on purpose in a child `ycft`: an `LD_PRELOAD` library (compiled here
/// with the system's C compiler, as ``preloadLibrary(_:code:)`` does) that stands in for the
/// libc calls the writer and the readers make and fails those ``environment(_:)`` names, with
/// the `errno` given; and, for the libraries ycft loads with `dlopen` (SQLite, libcrypto), hands
/// out a stand-in for a named function that returns a fixed value. What a disk that is full,
/// a file system without `O_TMPFILE` or hard links, or a library that refuses a call makes
/// ycft say and do, on a machine where none of that happens by itself.
///
/// The specification, `YCFT_TEST_FAULTS`, is a list separated by `;` of
/// `CALL=ERRNO[@PART][#SKIP][*COUNT]`: calls of `CALL` whose path (for a descriptor, the path
/// `/proc/self/fd` shows, `/dir/#123 (deleted)` for an unnamed temporary) contains `PART` fail
/// with `ERRNO`, after the first `SKIP` such calls and at most `COUNT` times; a path relative to
/// a folder's descriptor (`openat`, `linkat`) as the folder's path and the rest. `open-tmpfile`
/// is an `open` with `O_TMPFILE`; `fstatat` is `lstat` (not following a link) or `stat`,
/// `renameat` is `rename`. `dlsym:NAME=VALUE` makes `dlsym` return, for `NAME`, a
/// function that returns `VALUE` (0 stands for NULL).
package enum Faults {
    /// The library, nil when there is no C compiler.
    package static let library: URL? = preloadLibrary("faults", code: code)

    /// Whether the faults reach a child `ycft`: there is a library, and the child is not built
    /// with AddressSanitizer (Scripts/sanitize.sh), whose own interceptors of the same libc
    /// calls stand in front of a preloaded library's.
    package static let available = library != nil && ProcessInfo.processInfo.environment["YCFT_SANITIZER"] == nil

    /// Why ``available`` is false, for a skipped test's note.
    package static let unavailable = library == nil ? "no C compiler (cc) to build the LD_PRELOAD library"
        : "under AddressSanitizer, whose interceptors stand in front of an LD_PRELOAD library's"

    /// This process's environment with the library preloaded and `spec` in `YCFT_TEST_FAULTS`.
    package static func environment(_ spec: String, _ extra: [String: String] = [:]) throws -> [String: String] {
        guard let library else { throw CocoaError(.featureUnsupported) }
        var environment = ProcessInfo.processInfo.environment.merging(extra) { $1 }
        environment["LD_PRELOAD"] = library.path
        environment["YCFT_TEST_FAULTS"] = spec
        return environment
    }

    static let code = #"""
        #define _GNU_SOURCE
        #include <dirent.h>
        #include <dlfcn.h>
        #include <errno.h>
        #include <fcntl.h>
        #include <limits.h>
        #include <stdarg.h>
        #include <stdio.h>
        #include <stdlib.h>
        #include <string.h>
        #include <sys/stat.h>
        #include <sys/types.h>
        #include <unistd.h>

        #ifndef __O_TMPFILE
        #define __O_TMPFILE 020000000
        #endif

        static void *(*real_dlsym)(void *, const char *);
        static void *next(const char *name) {
            if (real_dlsym == NULL) {
                real_dlsym = (void *(*)(void *, const char *))dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
                if (real_dlsym == NULL) real_dlsym = (void *(*)(void *, const char *))dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
            }
            return real_dlsym(RTLD_NEXT, name);
        }

        static int counts[32];

        /* Whether this call of `call` on `path` fails; sets errno when it does. A path through a
           held folder (`/proc/self/fd/N/name`, as the writer reaches a file's folder) is matched as
           given and as the folder's own path with the rest after it. */
        static int fails(const char *call, const char *path) {
            const char *spec = getenv("YCFT_TEST_FAULTS");
            if (spec == NULL) return 0;
            char through[PATH_MAX + 256];
            const char *given = path;
            if (path != NULL && strncmp(path, "/proc/self/fd/", 14) == 0) {
                char *end = NULL;
                long held = strtol(path + 14, &end, 10);
                char link[64], folder[PATH_MAX];
                snprintf(link, sizeof link, "/proc/self/fd/%ld", held);
                ssize_t n = end != path + 14 ? readlink(link, folder, sizeof folder - 1) : -1;
                if (n > 0) {
                    folder[n] = 0;
                    snprintf(through, sizeof through, "%s%s", folder, end);
                    path = through;
                }
            }
            char copy[4096];
            strncpy(copy, spec, sizeof copy - 1);
            copy[sizeof copy - 1] = 0;
            int index = 0;
            char *save = NULL;
            for (char *entry = strtok_r(copy, ";", &save); entry != NULL && index < 32; entry = strtok_r(NULL, ";", &save), index++) {
                char *equals = strchr(entry, '=');
                if (equals == NULL) continue;
                *equals = 0;
                if (strcmp(entry, call) != 0) continue;
                char *rest = equals + 1;
                int code = (int)strtol(rest, &rest, 10);
                char part[1024] = "";
                long skip = 0, count = -1;
                while (*rest) {
                    char mark = *rest++;
                    if (mark == '@') {
                        size_t n = strcspn(rest, "#*");
                        if (n >= sizeof part) n = sizeof part - 1;
                        memcpy(part, rest, n);
                        part[n] = 0;
                        rest += n;
                    } else if (mark == '#') {
                        skip = strtol(rest, &rest, 10);
                    } else if (mark == '*') {
                        count = strtol(rest, &rest, 10);
                    }
                }
                if (part[0] && (path == NULL || (strstr(path, part) == NULL && strstr(given, part) == NULL))) continue;
                long seen = __atomic_fetch_add(&counts[index], 1, __ATOMIC_SEQ_CST);
                if (seen < skip || (count >= 0 && seen >= skip + count)) continue;
                errno = code;
                return 1;
            }
            return 0;
        }

        static const char *fd_path(int fd, char *buffer, size_t size) {
            char link[64];
            snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
            ssize_t n = readlink(link, buffer, size - 1);
            if (n < 0) return NULL;
            buffer[n] = 0;
            return buffer;
        }

        static int fd_fails(const char *call, int fd) {
            char buffer[PATH_MAX];
            return fails(call, fd_path(fd, buffer, sizeof buffer));
        }

        /* A path given relative to a folder's descriptor, as the folder's path and the rest. */
        static const char *at_path(int dir, const char *path, char *full, size_t size) {
            if (path[0] == '/' || dir == AT_FDCWD) return path;
            char buffer[PATH_MAX];
            const char *base = fd_path(dir, buffer, sizeof buffer);
            snprintf(full, size, "%s/%s", base ? base : "?", path);
            return full;
        }

        static int open_fails(const char *path, int flags) {
            if ((flags & __O_TMPFILE) == __O_TMPFILE && fails("open-tmpfile", path)) return 1;
            return fails("open", path);
        }

        int open(const char *path, int flags, ...) {
            va_list list;
            va_start(list, flags);
            mode_t mode = va_arg(list, mode_t);
            va_end(list);
            if (open_fails(path, flags)) return -1;
            return ((int (*)(const char *, int, mode_t))next("open"))(path, flags, mode);
        }
        int open64(const char *path, int flags, ...) {
            va_list list;
            va_start(list, flags);
            mode_t mode = va_arg(list, mode_t);
            va_end(list);
            if (open_fails(path, flags)) return -1;
            return ((int (*)(const char *, int, mode_t))next("open64"))(path, flags, mode);
        }
        int openat(int dir, const char *path, int flags, ...) {
            va_list list;
            va_start(list, flags);
            mode_t mode = va_arg(list, mode_t);
            va_end(list);
            char buffer[PATH_MAX], full[PATH_MAX * 2];
            const char *base = dir == AT_FDCWD ? "." : fd_path(dir, buffer, sizeof buffer);
            snprintf(full, sizeof full, "%s/%s", base ? base : "?", path);
            if ((path[0] == '/' ? open_fails(path, flags) : open_fails(full, flags)) || fails("openat", full)) return -1;
            return ((int (*)(int, const char *, int, mode_t))next("openat"))(dir, path, flags, mode);
        }
        int openat64(int dir, const char *path, int flags, ...) {
            va_list list;
            va_start(list, flags);
            mode_t mode = va_arg(list, mode_t);
            va_end(list);
            return openat(dir, path, flags, mode);
        }

        #define FD_CALL(ret, name, params, args) \
            ret name params { if (fd_fails(#name, fd)) return -1; return ((ret (*) params)next(#name)) args; }
        FD_CALL(int, fstat, (int fd, struct stat *st), (fd, st))
        FD_CALL(int, fstat64, (int fd, struct stat64 *st), (fd, st))
        FD_CALL(ssize_t, read, (int fd, void *b, size_t n), (fd, b, n))
        FD_CALL(ssize_t, write, (int fd, const void *b, size_t n), (fd, b, n))
        FD_CALL(int, fsync, (int fd), (fd))
        FD_CALL(int, syncfs, (int fd), (fd))
        FD_CALL(int, fchmod, (int fd, mode_t m), (fd, m))
        FD_CALL(int, fchown, (int fd, uid_t u, gid_t g), (fd, u, g))
        FD_CALL(int, flock, (int fd, int op), (fd, op))
        FD_CALL(int, dup, (int fd), (fd))
        FD_CALL(ssize_t, flistxattr, (int fd, char *l, size_t n), (fd, l, n))
        FD_CALL(ssize_t, fgetxattr, (int fd, const char *k, void *v, size_t n), (fd, k, v, n))
        FD_CALL(int, fsetxattr, (int fd, const char *k, const void *v, size_t n, int f), (fd, k, v, n, f))
        FD_CALL(int, fremovexattr, (int fd, const char *k), (fd, k))

        #define PATH_CALL(ret, name, params, args) \
            ret name params { if (fails(#name, path)) return -1; return ((ret (*) params)next(#name)) args; }
        PATH_CALL(int, lstat, (const char *path, struct stat *st), (path, st))
        PATH_CALL(int, lstat64, (const char *path, struct stat64 *st), (path, st))
        PATH_CALL(int, link, (const char *path, const char *to), (path, to))
        PATH_CALL(int, rename, (const char *path, const char *to), (path, to))
        PATH_CALL(ssize_t, llistxattr, (const char *path, char *l, size_t n), (path, l, n))
        PATH_CALL(ssize_t, lgetxattr, (const char *path, const char *k, void *v, size_t n), (path, k, v, n))

        /* fstatat is `lstat` with AT_SYMLINK_NOFOLLOW, else `stat`. */
        static int stat_fails(int dir, const char *path, int flags) {
            char full[PATH_MAX * 2];
            return fails(flags & AT_SYMLINK_NOFOLLOW ? "lstat" : "stat", at_path(dir, path, full, sizeof full));
        }
        int fstatat(int dir, const char *path, struct stat *st, int flags) {
            if (stat_fails(dir, path, flags)) return -1;
            return ((int (*)(int, const char *, struct stat *, int))next("fstatat"))(dir, path, st, flags);
        }
        int fstatat64(int dir, const char *path, struct stat64 *st, int flags) {
            if (stat_fails(dir, path, flags)) return -1;
            return ((int (*)(int, const char *, struct stat64 *, int))next("fstatat64"))(dir, path, st, flags);
        }
        int linkat(int from, const char *path, int to, const char *name, int flags) {
            char full[PATH_MAX * 2];
            if (fails("linkat", at_path(from, path, full, sizeof full))) return -1;
            return ((int (*)(int, const char *, int, const char *, int))next("linkat"))(from, path, to, name, flags);
        }
        int renameat(int from, const char *path, int to, const char *name) {
            char full[PATH_MAX * 2];
            if (fails("rename", at_path(from, path, full, sizeof full))) return -1;
            return ((int (*)(int, const char *, int, const char *))next("renameat"))(from, path, to, name);
        }
        int renameat2(int from, const char *path, int to, const char *name, unsigned flags) {
            char full[PATH_MAX * 2];
            if (fails("renameat2", at_path(from, path, full, sizeof full))) return -1;
            return ((int (*)(int, const char *, int, const char *, unsigned))next("renameat2"))(from, path, to, name, flags);
        }
        int unlinkat(int dir, const char *name, int flags) {
            char buffer[PATH_MAX], full[PATH_MAX * 2];
            const char *base = dir == AT_FDCWD ? "." : fd_path(dir, buffer, sizeof buffer);
            snprintf(full, sizeof full, "%s/%s", base ? base : "?", name);
            if (fails("unlinkat", full)) return -1;
            return ((int (*)(int, const char *, int))next("unlinkat"))(dir, name, flags);
        }
        char *mkdtemp(char *path) {
            if (fails("mkdtemp", path)) return NULL;
            return ((char *(*)(char *))next("mkdtemp"))(path);
        }
        DIR *fdopendir(int fd) {
            if (fd_fails("fdopendir", fd)) return NULL;
            return ((DIR *(*)(int))next("fdopendir"))(fd);
        }
        struct dirent *readdir(DIR *dir) {
            if (fd_fails("readdir", dirfd(dir))) return NULL;
            return ((struct dirent *(*)(DIR *))next("readdir"))(dir);
        }
        struct dirent64 *readdir64(DIR *dir) {
            if (fd_fails("readdir", dirfd(dir))) return NULL;
            return ((struct dirent64 *(*)(DIR *))next("readdir64"))(dir);
        }

        /* dlsym: a stand-in returning a fixed value for a named function. */
        static long values[4];
        static long stub0(void) { return values[0]; }
        static long stub1(void) { return values[1]; }
        static long stub2(void) { return values[2]; }
        static long stub3(void) { return values[3]; }
        void *dlsym(void *handle, const char *name) {
            const char *spec = getenv("YCFT_TEST_FAULTS");
            if (spec != NULL && name != NULL) {
                long (*stubs[4])(void) = {stub0, stub1, stub2, stub3};
                int slot = 0;
                for (const char *at = strstr(spec, "dlsym:"); at != NULL && slot < 4; at = strstr(at + 1, "dlsym:")) {
                    const char *symbol = at + 6, *equals = strchr(symbol, '=');
                    if (equals == NULL) break;
                    if ((size_t)(equals - symbol) == strlen(name) && strncmp(symbol, name, equals - symbol) == 0) {
                        values[slot] = strtol(equals + 1, NULL, 10);
                        return (void *)stubs[slot];
                    }
                    slot++;
                }
            }
            if (real_dlsym == NULL) next("dlsym");
            return real_dlsym(handle, name);
        }
        """#
}
