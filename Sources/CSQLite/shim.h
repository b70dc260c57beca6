#ifndef YCFT_CSQLITE_SHIM_H
#define YCFT_CSQLITE_SHIM_H

#include <sqlite3.h>

/* SQLITE_TRANSIENT is a cast of -1 to a function pointer, which Swift cannot import:
   binding text that SQLite copies at once goes through this helper. */

/** sqlite3_bind_text with SQLITE_TRANSIENT (SQLite makes its own copy before returning). */
static inline int ycft_sqlite3_bind_text_copied(sqlite3_stmt *statement, int index, const char *text, int length) {
    return sqlite3_bind_text(statement, index, text, length, SQLITE_TRANSIENT);
}

#endif
