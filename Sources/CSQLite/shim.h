#ifndef YCFT_CSQLITE_SHIM_H
#define YCFT_CSQLITE_SHIM_H

#include <sqlite3.h>

/* SQLITE_TRANSIENT is a cast of -1 to a function pointer, which Swift cannot import:
   binding text that SQLite copies at once goes through this helper. */

/** sqlite3_bind_text with SQLITE_TRANSIENT (SQLite makes its own copy before returning). */
static inline int ycft_sqlite3_bind_text_copied(sqlite3_stmt *statement, int index, const char *text, int length) {
    return sqlite3_bind_text(statement, index, text, length, SQLITE_TRANSIENT);
}

/** sqlite3_db_config is variadic, which Swift cannot call: a hostile schema's views and
    triggers may not call functions with side effects (SQLITE_DBCONFIG_TRUSTED_SCHEMA off), and
    the connection refuses what could corrupt or write (SQLITE_DBCONFIG_DEFENSIVE on). */
static inline void ycft_sqlite3_distrust_schema(sqlite3 *db) {
#ifdef SQLITE_DBCONFIG_TRUSTED_SCHEMA
    sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)0);
#endif
#ifdef SQLITE_DBCONFIG_DEFENSIVE
    sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)0);
#endif
}

#endif
