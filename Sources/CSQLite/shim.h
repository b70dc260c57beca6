#ifndef YCFT_CSQLITE_SHIM_H
#define YCFT_CSQLITE_SHIM_H

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

/* The system SQLite, for an iPhone backup's Manifest.db. Loaded with dlopen on the first use
   (ycft_sqlite), not linked: every other command starts without loading and relocating it, and
   no SQLite header or pkg-config is needed to build. Only the calls below; the constants are
   sqlite3.h's, fixed by SQLite's stable interface. sqlite3_deserialize needs SQLite 3.36 or
   later (built without SQLITE_OMIT_DESERIALIZE), as every supported Debian and macOS has. */

typedef struct sqlite3 sqlite3;
typedef struct sqlite3_stmt sqlite3_stmt;

#define YCFT_SQLITE_OK 0
#define YCFT_SQLITE_NOMEM 7
#define YCFT_SQLITE_ROW 100
#define YCFT_SQLITE_DONE 101
#define YCFT_SQLITE_INTEGER 1
#define YCFT_SQLITE_TEXT 3
#define YCFT_SQLITE_BLOB 4
#define YCFT_SQLITE_OPEN_READONLY 0x00000001
#define YCFT_SQLITE_OPEN_READWRITE 0x00000002
#define YCFT_SQLITE_OPEN_CREATE 0x00000004
#define YCFT_SQLITE_DESERIALIZE_FREEONCLOSE 1
#define YCFT_SQLITE_DESERIALIZE_READONLY 4
#define YCFT_SQLITE_LIMIT_LENGTH 0
#define YCFT_SQLITE_DBCONFIG_DEFENSIVE 1010
#define YCFT_SQLITE_DBCONFIG_TRUSTED_SCHEMA 1017

/** The SQLite calls ycft makes, each the symbol sqlite3_<field>. */
typedef struct ycft_sqlite_api {
    int (* _Nonnull open_v2)(const char *_Nonnull filename, sqlite3 *_Nullable *_Nonnull db, int flags, const char *_Nullable vfs);
    int (* _Nonnull close)(sqlite3 *_Nullable db);
    const char *_Nonnull (* _Nonnull errmsg)(sqlite3 *_Nullable db);
    const char *_Nonnull (* _Nonnull errstr)(int code);
    int (* _Nonnull exec)(sqlite3 *_Nonnull db, const char *_Nonnull sql, void *_Nullable callback, void *_Nullable argument,
                          char *_Nullable *_Nullable error);
    void *_Nullable (* _Nonnull malloc64)(uint64_t size);
    int (* _Nonnull deserialize)(sqlite3 *_Nonnull db, const char *_Nonnull schema, unsigned char *_Nullable data, int64_t size,
                                 int64_t capacity, unsigned flags);
    int (* _Nonnull limit)(sqlite3 *_Nonnull db, int id, int value);
    int (* _Nonnull extended_result_codes)(sqlite3 *_Nonnull db, int on);
    int (* _Nonnull prepare_v2)(sqlite3 *_Nonnull db, const char *_Nonnull sql, int length, sqlite3_stmt *_Nullable *_Nonnull statement,
                                const char *_Nullable *_Nullable tail);
    int (* _Nonnull finalize)(sqlite3_stmt *_Nullable statement);
    int (* _Nonnull bind_text)(sqlite3_stmt *_Nonnull statement, int index, const char *_Nullable text, int length,
                               void (* _Nullable destructor)(void *_Nullable));
    int (* _Nonnull step)(sqlite3_stmt *_Nonnull statement);
    int (* _Nonnull column_type)(sqlite3_stmt *_Nonnull statement, int column);
    int (* _Nonnull column_bytes)(sqlite3_stmt *_Nonnull statement, int column);
    const unsigned char *_Nullable (* _Nonnull column_text)(sqlite3_stmt *_Nonnull statement, int column);
    const void *_Nullable (* _Nonnull column_blob)(sqlite3_stmt *_Nonnull statement, int column);
    int64_t (* _Nonnull column_int64)(sqlite3_stmt *_Nonnull statement, int column);
    int (* _Nonnull db_config)(sqlite3 *_Nonnull db, int op, ...);
} ycft_sqlite_api;

/** What ycft_sqlite loaded, once. */
typedef struct ycft_sqlite_slot {
    ycft_sqlite_api api;
    int loaded;
} ycft_sqlite_slot;

static inline ycft_sqlite_slot *_Nonnull ycft_sqlite_slot_storage(void) {
    static ycft_sqlite_slot slot;
    return &slot;
}

/** The system SQLite, opened (RTLD_LOCAL); NULL when there is none. dlopen counts its opens:
    every caller gets the one library. */
static inline void *_Nullable ycft_sqlite_library(void) {
    static const char *const names[] = {
#ifdef __APPLE__
        "/usr/lib/libsqlite3.dylib",
#else
        "libsqlite3.so.0",
#endif
    };
    void *handle = NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && handle == NULL; i++) handle = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    return handle;
}

static inline void ycft_sqlite_load(void) {
    void *handle = ycft_sqlite_library();
    if (handle == NULL) return;
    ycft_sqlite_api api;
#define YCFT_LOAD(field) if ((*(void **)&api.field = dlsym(handle, "sqlite3_" #field)) == NULL) return
    YCFT_LOAD(open_v2); YCFT_LOAD(close); YCFT_LOAD(errmsg); YCFT_LOAD(errstr); YCFT_LOAD(exec);
    YCFT_LOAD(malloc64); YCFT_LOAD(deserialize); YCFT_LOAD(limit); YCFT_LOAD(extended_result_codes);
    YCFT_LOAD(prepare_v2); YCFT_LOAD(finalize); YCFT_LOAD(bind_text); YCFT_LOAD(step);
    YCFT_LOAD(column_type); YCFT_LOAD(column_bytes); YCFT_LOAD(column_text); YCFT_LOAD(column_blob);
    YCFT_LOAD(column_int64); YCFT_LOAD(db_config);
#undef YCFT_LOAD
    ycft_sqlite_slot_storage()->api = api;
    ycft_sqlite_slot_storage()->loaded = 1;
}

/** The calls, SQLite loaded once on the first call (RTLD_LOCAL, pthread_once); NULL when no
    SQLite could be loaded or it lacks one of them. */
static inline const ycft_sqlite_api *_Nullable ycft_sqlite(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, ycft_sqlite_load);
    ycft_sqlite_slot *slot = ycft_sqlite_slot_storage();
    return slot->loaded ? &slot->api : NULL;
}

/** The calls that build a database, which the tool never makes (it only reads): for the fuzz
    harness of Manifest.db's rows (Fuzz/), which writes fuzzed rows into a database in memory
    and hands its bytes to the reader. Loaded on their first use, apart from ycft_sqlite's. */
typedef struct ycft_sqlite_build_api {
    int (* _Nonnull bind_int64)(sqlite3_stmt *_Nonnull statement, int index, int64_t value);
    int (* _Nonnull bind_blob)(sqlite3_stmt *_Nonnull statement, int index, const void *_Nullable bytes, int length,
                               void (* _Nullable destructor)(void *_Nullable));
    int (* _Nonnull bind_null)(sqlite3_stmt *_Nonnull statement, int index);
    int (* _Nonnull reset)(sqlite3_stmt *_Nonnull statement);
    unsigned char *_Nullable (* _Nonnull serialize)(sqlite3 *_Nonnull db, const char *_Nonnull schema, int64_t *_Nullable size,
                                                    unsigned flags);
    void (* _Nonnull free)(void *_Nullable memory);
} ycft_sqlite_build_api;

typedef struct ycft_sqlite_build_slot {
    ycft_sqlite_build_api api;
    int loaded;
} ycft_sqlite_build_slot;

static inline ycft_sqlite_build_slot *_Nonnull ycft_sqlite_build_slot_storage(void) {
    static ycft_sqlite_build_slot slot;
    return &slot;
}

static inline void ycft_sqlite_build_load(void) {
    void *handle = ycft_sqlite_library();
    if (handle == NULL) return;
    ycft_sqlite_build_api api;
#define YCFT_LOAD(field) if ((*(void **)&api.field = dlsym(handle, "sqlite3_" #field)) == NULL) return
    YCFT_LOAD(bind_int64); YCFT_LOAD(bind_blob); YCFT_LOAD(bind_null); YCFT_LOAD(reset); YCFT_LOAD(serialize); YCFT_LOAD(free);
#undef YCFT_LOAD
    ycft_sqlite_build_slot_storage()->api = api;
    ycft_sqlite_build_slot_storage()->loaded = 1;
}

/** The building calls, loaded once; NULL when no SQLite could be loaded or it lacks one. */
static inline const ycft_sqlite_build_api *_Nullable ycft_sqlite_build(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, ycft_sqlite_build_load);
    ycft_sqlite_build_slot *slot = ycft_sqlite_build_slot_storage();
    return slot->loaded ? &slot->api : NULL;
}

/** sqlite3_bind_blob with SQLITE_TRANSIENT: SQLite copies the bytes before returning. */
static inline int ycft_sqlite_bind_blob_copied(const ycft_sqlite_build_api *_Nonnull api, sqlite3_stmt *_Nonnull statement, int index,
                                               const void *_Nullable bytes, int length) {
    return api->bind_blob(statement, index, bytes, length, (void (*)(void *))-1);
}

/** sqlite3_bind_text with SQLITE_TRANSIENT ((void (*)(void *))-1, which Swift cannot write):
    SQLite makes its own copy of the text before returning. */
static inline int ycft_sqlite_bind_text_copied(const ycft_sqlite_api *_Nonnull api, sqlite3_stmt *_Nonnull statement, int index,
                                               const char *_Nullable text, int length) {
    return api->bind_text(statement, index, text, length, (void (*)(void *))-1);
}

/** sqlite3_db_config is variadic, which Swift cannot call: a hostile schema's views and
    triggers may not call functions with side effects (SQLITE_DBCONFIG_TRUSTED_SCHEMA off), and
    the connection refuses what could corrupt or write (SQLITE_DBCONFIG_DEFENSIVE on). An SQLite
    too old to know an option returns an error for it and changes nothing. */
static inline void ycft_sqlite_distrust_schema(const ycft_sqlite_api *_Nonnull api, sqlite3 *_Nonnull db) {
    api->db_config(db, YCFT_SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)0);
    api->db_config(db, YCFT_SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)0);
}

#endif
