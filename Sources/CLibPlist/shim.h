#ifndef YCFT_CLIBPLIST_SHIM_H
#define YCFT_CLIBPLIST_SHIM_H

#include <plist/plist.h>
#include <stdlib.h>
#include <string.h>

/* libplist 2.3.0 introduced PLIST_OPT_INDENT_BY together with plist_err_t return codes,
   plist_mem_free and a renumbered plist_type. 2.2.0 (Debian 12) returns void and leaves
   the output NULL on failure. These helpers give Swift one shape for both. */

/** Frees memory that libplist allocated for the caller (keys, serialized buffers). */
static inline void ycft_plist_mem_free(void *ptr) {
#ifdef PLIST_OPT_INDENT_BY
    plist_mem_free(ptr);
#else
    free(ptr);
#endif
}

/** Parses a binary plist; returns NULL on failure. */
static inline plist_t ycft_plist_from_bin(const char *bytes, uint32_t length) {
    plist_t out = NULL;
    plist_from_bin(bytes, length, &out);
    return out;
}

/** Parses an XML plist; returns NULL on failure. */
static inline plist_t ycft_plist_from_xml(const char *bytes, uint32_t length) {
    plist_t out = NULL;
    plist_from_xml(bytes, length, &out);
    return out;
}

/** Serializes to a binary plist; returns NULL on failure. Free with ycft_plist_mem_free. */
static inline char *ycft_plist_to_bin(plist_t node, uint32_t *length) {
    char *out = NULL;
    *length = 0;
    plist_to_bin(node, &out, length);
    return out;
}

/** Serializes to an XML plist; returns NULL on failure. Free with ycft_plist_mem_free. */
static inline char *ycft_plist_to_xml(plist_t node, uint32_t *length) {
    char *out = NULL;
    *length = 0;
    plist_to_xml(node, &out, length);
    return out;
}

/** Node type, normalised across libplist versions (2.3.0 renumbered the enum). */
enum ycft_node_kind {
    YCFT_BOOLEAN, YCFT_INTEGER, YCFT_REAL, YCFT_STRING, YCFT_ARRAY, YCFT_DICT,
    YCFT_DATE, YCFT_DATA, YCFT_KEY, YCFT_UID, YCFT_NULL, YCFT_NONE
};

static inline enum ycft_node_kind ycft_node_kind(plist_t node) {
    switch (plist_get_node_type(node)) {
    case PLIST_BOOLEAN: return YCFT_BOOLEAN;
#ifdef PLIST_OPT_INDENT_BY
    case PLIST_INT: return YCFT_INTEGER;
    case PLIST_NULL: return YCFT_NULL;
#else
    case PLIST_UINT: return YCFT_INTEGER;
#endif
    case PLIST_REAL: return YCFT_REAL;
    case PLIST_STRING: return YCFT_STRING;
    case PLIST_ARRAY: return YCFT_ARRAY;
    case PLIST_DICT: return YCFT_DICT;
    case PLIST_DATE: return YCFT_DATE;
    case PLIST_DATA: return YCFT_DATA;
    case PLIST_KEY: return YCFT_KEY;
    case PLIST_UID: return YCFT_UID;
    default: return YCFT_NONE;
    }
}

/** Creates an integer node holding a signed value (2.2.0 stores the two's-complement bits).
    It, ycft_new_date_exact and ycft_new_16_byte_uint serve the tests' libplist writer (TestSupport). */
static inline plist_t ycft_new_int(int64_t value) {
#ifdef PLIST_OPT_INDENT_BY
    return plist_new_int(value);
#else
    return plist_new_uint((uint64_t)value);
#endif
}

/** Creates an integer node holding an unsigned value that may exceed INT64_MAX. */
static inline plist_t ycft_new_uint(uint64_t value) {
    return plist_new_uint(value);
}

/** The next item of a dictionary iterator; *key is NULL at the end. */
static inline plist_t ycft_dict_next(plist_t dict, plist_dict_iter iter, char **key) {
    plist_t value = NULL;
    *key = NULL;
    plist_dict_next_item(dict, iter, key, &value);
    return value;
}

/** A new dictionary iterator (free with ycft_plist_mem_free). */
static inline plist_dict_iter ycft_dict_iter(plist_t dict) {
    plist_dict_iter iter = NULL;
    plist_dict_new_iter(dict, &iter);
    return iter;
}

/** A new array iterator (free with ycft_plist_mem_free). */
static inline plist_array_iter ycft_array_iter(plist_t array) {
    plist_array_iter iter = NULL;
    plist_array_new_iter(array, &iter);
    return iter;
}

/** The next item of an array iterator, NULL at the end. */
static inline plist_t ycft_array_next(plist_t array, plist_array_iter iter) {
    plist_t item = NULL;
    plist_array_next_item(array, iter, &item);
    return item;
}

static inline uint64_t ycft_get_uint(plist_t node) { uint64_t v = 0; plist_get_uint_val(node, &v); return v; }
static inline double ycft_get_real(plist_t node) { double v = 0; plist_get_real_val(node, &v); return v; }
static inline uint8_t ycft_get_bool(plist_t node) { uint8_t v = 0; plist_get_bool_val(node, &v); return v; }
static inline uint64_t ycft_get_uid(plist_t node) { uint64_t v = 0; plist_get_uid_val(node, &v); return v; }
/** Whether the node is a UID, its value then in *value: one type test, where the node's kind
    (normalised) and then the value cost two. */
static inline int ycft_uid_value(plist_t node, uint64_t *value) {
    *value = 0;
    if (plist_get_node_type(node) != PLIST_UID) return 0;
    plist_get_uid_val(node, value);
    return 1;
}
static inline void ycft_get_date(plist_t node, int32_t *sec, int32_t *usec) {
    *sec = 0; *usec = 0; plist_get_date_val(node, sec, usec);
}

/* Facts libplist 2.2.0 keeps private: a date's exact double (plist_get_date_val rounds to
   microseconds) and whether an integer was a 16-byte one (of which it keeps only the low
   64 bits; ycft builds a file holding one from its bytes instead). The binary writer knows both, so ask it about a one-node copy:
   the single object of such a bplist starts right after the 8-byte header. */

/** Writes the exact seconds since 2001 of a date node to *out; returns 0 on failure. */
static inline int ycft_date_exact(plist_t node, double *out) {
    plist_t copy = plist_copy(node);
    uint32_t length = 0;
    char *bytes = ycft_plist_to_bin(copy, &length);
    plist_free(copy);
    int ok = 0;
    if (bytes && length >= 17 && (unsigned char)bytes[8] == 0x33) {
        uint64_t bits = 0;
        for (int i = 0; i < 8; i++) bits = (bits << 8) | (unsigned char)bytes[9 + i];
        memcpy(out, &bits, sizeof bits);
        ok = 1;
    }
    ycft_plist_mem_free(bytes);
    return ok;
}

/** 1 when an integer node came from (or is written as) a 16-byte integer, 0 otherwise.
    libplist 2.2.0 keeps only such an integer's low 64 bits; the high half is lost. */
static inline int ycft_int_is_16_bytes(plist_t node) {
    plist_t copy = plist_copy(node);
    uint32_t length = 0;
    char *bytes = ycft_plist_to_bin(copy, &length);
    plist_free(copy);
    int big = bytes && length > 8 && (unsigned char)bytes[8] == 0x14;
    ycft_plist_mem_free(bytes);
    return big;
}

/* libplist 2.2.0 can only create dates from whole seconds plus microseconds within int32
   range, and integers above INT64_MAX only as 8-byte values (which read back negative).
   16-byte integers whose high half is not zero it cannot hold at all.
   Its binary parser keeps both exactly, so build such nodes by parsing a one-object bplist. */

/** Parses a bplist whose single object is the `length` encoded bytes at `object`. */
static inline plist_t ycft_node_from_object(const unsigned char *object, size_t length) {
    unsigned char buffer[64];
    if (length > 17) return NULL;
    size_t n = 0;
    memcpy(buffer, "bplist00", 8); n = 8;
    memcpy(buffer + n, object, length); n += length;
    size_t table = n;
    buffer[n++] = 8;                       /* offset of object 0 */
    memset(buffer + n, 0, 32);
    buffer[n + 6] = 1;                     /* offset int size */
    buffer[n + 7] = 1;                     /* object ref size */
    buffer[n + 15] = 1;                    /* one object */
    buffer[n + 31] = (unsigned char)table; /* offset table offset */
    n += 32;
    return ycft_plist_from_bin((const char *)buffer, (uint32_t)n);
}

/** A date node holding exactly `seconds` since 2001-01-01T00:00:00Z. */
static inline plist_t ycft_new_date_exact(double seconds) {
    unsigned char object[9];
    uint64_t bits;
    memcpy(&bits, &seconds, sizeof bits);
    object[0] = 0x33;
    for (int i = 0; i < 8; i++) object[1 + i] = (unsigned char)(bits >> (56 - 8 * i));
    return ycft_node_from_object(object, sizeof object);
}

/** An integer node written as 16 bytes with the high half zero, holding `value`. */
static inline plist_t ycft_new_16_byte_uint(uint64_t value) {
    unsigned char object[17];
    memset(object, 0, sizeof object);
    object[0] = 0x14;
    for (int i = 0; i < 8; i++) object[9 + i] = (unsigned char)(value >> (56 - 8 * i));
    return ycft_node_from_object(object, sizeof object);
}

#endif
