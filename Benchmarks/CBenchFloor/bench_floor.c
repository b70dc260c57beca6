#include "bench_floor.h"
#include <plist/plist.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>

static volatile uint64_t sink;

static uint64_t visit(plist_t node) {
    uint64_t count = 1;
    switch (plist_get_node_type(node)) {
    case PLIST_DICT: {
        plist_dict_iter it = NULL;
        plist_dict_new_iter(node, &it);
        for (;;) {
            char *key = NULL;
            plist_t value = NULL;
            plist_dict_next_item(node, it, &key, &value);
            if (!value) { free(key); break; }
            sink += strlen(key);
            free(key);
            count += visit(value);
        }
        free(it);
        break;
    }
    case PLIST_ARRAY: {
        plist_array_iter it = NULL;
        plist_array_new_iter(node, &it);
        for (;;) {
            plist_t item = NULL;
            plist_array_next_item(node, it, &item);
            if (!item) break;
            count += visit(item);
        }
        free(it);
        break;
    }
    case PLIST_STRING: { uint64_t len = 0; const char *s = plist_get_string_ptr(node, &len); sink += len + (s ? (uint8_t)s[0] : 0); break; }
    case PLIST_REAL: { double d = 0; plist_get_real_val(node, &d); sink += (uint64_t)d; break; }
    case PLIST_UINT: { uint64_t u = 0; plist_get_uint_val(node, &u); sink += u; break; }
    case PLIST_UID: { uint64_t u = 0; plist_get_uid_val(node, &u); sink += u; break; }
    default: break;
    }
    return count;
}

uint64_t ycft_bench_parse_visit_free(const char *bytes, uint32_t length) {
    plist_t root = NULL;
    plist_from_bin(bytes, length, &root);
    if (!root) return 0;
    uint64_t nodes = visit(root);
    plist_free(root);
    return nodes;
}

uint64_t ycft_bench_parse_visit_keep(const char *bytes, uint32_t length) {
    plist_t root = NULL;
    plist_from_bin(bytes, length, &root);
    if (!root) return 0;
    return visit(root);
}

uint64_t ycft_bench_parse_free(const char *bytes, uint32_t length) {
    plist_t root = NULL;
    plist_from_bin(bytes, length, &root);
    if (!root) return 0;
    plist_free(root);
    return 1;
}

uint64_t ycft_bench_to_bin(const char *bytes, uint32_t length, int repeat, double *seconds_out) {
    plist_t root = NULL;
    plist_from_bin(bytes, length, &root);
    if (!root) return 0;
    uint64_t total = 0;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (int i = 0; i < repeat; i++) {
        char *out = NULL;
        uint32_t out_length = 0;
        plist_to_bin(root, &out, &out_length);
        total += out_length;
        free(out);
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    *seconds_out = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
    plist_free(root);
    return total;
}

uint64_t ycft_bench_defaults_floor(const char *path) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    struct stat status;
    char *bytes = NULL;
    ssize_t length = -1;
    if (fstat(fd, &status) == 0 && status.st_size > 0 && status.st_size < (1 << 30) && (bytes = malloc((size_t)status.st_size))) {
        length = read(fd, bytes, (size_t)status.st_size);
    }
    close(fd);
    uint64_t parsed = 0;
    plist_t root = NULL;
    if (length > 0) plist_from_bin(bytes, (uint32_t)length, &root);
    free(bytes);
    if (!root) return 0;
    plist_t data = plist_dict_get_item(root, "YCFirstTime");
    char *archive = NULL;
    uint64_t archive_length = 0;
    if (data && plist_get_node_type(data) == PLIST_DATA) plist_get_data_val(data, &archive, &archive_length);
    if (archive && archive_length > 0 && archive_length < UINT32_MAX) {
        plist_t tree = NULL;
        plist_from_bin(archive, (uint32_t)archive_length, &tree);
        if (tree) { parsed = 1; plist_free(tree); }
    }
    free(archive);
    plist_free(root);
    return parsed;
}

uint64_t ycft_bench_settle(void) {
    /* volatile: the compiler may not drop the pair as dead code. */
    char *volatile block = malloc(4096);
    if (!block) return 0;
    block[0] = 1;
    free(block);
    return 1;
}
