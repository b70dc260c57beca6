#ifndef YCFT_BENCH_FLOOR_H
#define YCFT_BENCH_FLOOR_H
#include <stdint.h>

/* The floor any decoder built on libplist can reach: parse the bytes with libplist, visit every
   node (reading each scalar), free the tree. Returns the number of nodes visited, 0 on failure. */
uint64_t ycft_bench_parse_visit_free(const char *bytes, uint32_t length);

/* The floor without its free: parse and visit as above, and leave the tree to the process's
   exit, as `ycft` leaves the last tree it reads (PlistTrees.leaveLastToExit): the like-for-like
   baseline of a ycft command run as a process. Returns the number of nodes visited. */
uint64_t ycft_bench_parse_visit_keep(const char *bytes, uint32_t length);

/* The floor without its visit: parse the bytes with libplist and free the tree. Returns 1, 0 on
   failure. The visit's share of the floor is the difference. */
uint64_t ycft_bench_parse_free(const char *bytes, uint32_t length);

/* The floor of migrating one small defaults file with libplist: open and read the file at
   `path`, parse it, parse the archive it holds as data under YCFirstTime, free both trees (no
   visit: a migration reads a handful of nodes of each). Returns 1 when both parsed, else 0. */
uint64_t ycft_bench_defaults_floor(const char *path);

/* Parses the bytes, then times only plist_to_bin of the resulting tree, `repeat` times.
   Returns the total bytes written (to keep the work observable), 0 on failure. */
uint64_t ycft_bench_to_bin(const char *bytes, uint32_t length, int repeat, double *seconds_out);

/* Settles glibc's allocator after a timed operation, so that the next one does not pay for it.
   glibc keeps small freed blocks in "fast bins" and merges them only when a larger block is
   next asked for (malloc_consolidate): freeing a libplist tree of 100,000 records costs little,
   and the next allocation of 1 KiB or more pays about 0.4 G instructions to merge its nodes.
   One allocation of 4 KiB (above what the per-thread cache serves) and its free make that happen
   now. Returns 1 when the allocation succeeded. */
uint64_t ycft_bench_settle(void);

#endif
