#ifndef YCFT_CCRYPTO_SHIM_H
#define YCFT_CCRYPTO_SHIM_H

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

/* OpenSSL's libcrypto, for an encrypted iPhone backup: PBKDF2 (PKCS5_PBKDF2_HMAC), AES key
   unwrap (RFC 3394, EVP aes-256-wrap) and AES-256-CBC decryption (EVP). Loaded with dlopen on
   the first use (ycft_crypto), not linked: every other command starts without loading and
   relocating it. Only the EVP and PKCS5 calls below, which OpenSSL 1.1 and 3 both export under
   these names without deprecation; their types are opaque here, so no OpenSSL header is read. */

/** EVP_CIPHER_CTX_FLAG_WRAP_ALLOW (openssl/evp.h), which key-wrap ciphers need. */
#define YCFT_EVP_CIPHER_CTX_FLAG_WRAP_ALLOW 0x1

/** The libcrypto calls ycft makes, each the symbol of the same name. */
typedef struct ycft_crypto_api {
    int (* _Nonnull pbkdf2_hmac)(const char *_Nullable password, int password_length, const unsigned char *_Nullable salt,
                                 int salt_length, int iterations, const void *_Nullable digest, int key_length,
                                 unsigned char *_Nullable key);
    const void *_Nullable (* _Nonnull sha256)(void);
    const void *_Nullable (* _Nonnull sha1)(void);
    const void *_Nullable (* _Nonnull aes_256_wrap)(void);
    const void *_Nullable (* _Nonnull aes_256_cbc)(void);
    void *_Nullable (* _Nonnull cipher_ctx_new)(void);
    void (* _Nonnull cipher_ctx_free)(void *_Nullable context);
    void (* _Nonnull cipher_ctx_set_flags)(void *_Nullable context, int flags);
    int (* _Nonnull decrypt_init_ex)(void *_Nullable context, const void *_Nullable cipher, void *_Nullable engine,
                                     const unsigned char *_Nullable key, const unsigned char *_Nullable iv);
    int (* _Nonnull decrypt_update)(void *_Nullable context, unsigned char *_Nullable output, int *_Nullable written,
                                    const unsigned char *_Nullable input, int input_length);
    int (* _Nonnull decrypt_final_ex)(void *_Nullable context, unsigned char *_Nullable output, int *_Nullable written);
    void (* _Nonnull err_clear_error)(void);
} ycft_crypto_api;

/** What ycft_crypto loaded, once. */
typedef struct ycft_crypto_slot {
    ycft_crypto_api api;
    int loaded;
} ycft_crypto_slot;

static inline ycft_crypto_slot *_Nonnull ycft_crypto_slot_storage(void) {
    static ycft_crypto_slot slot;
    return &slot;
}

static inline void ycft_crypto_load(void) {
    static const char *const names[] = {
#ifdef __APPLE__
        "libcrypto.3.dylib", "/opt/homebrew/opt/openssl@3/lib/libcrypto.3.dylib", "/usr/local/opt/openssl@3/lib/libcrypto.3.dylib",
#else
        "libcrypto.so.3", "libcrypto.so.1.1",
#endif
    };
    void *handle = NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && handle == NULL; i++) handle = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) return;
    ycft_crypto_api api;
#define YCFT_LOAD(field, symbol) if ((*(void **)&api.field = dlsym(handle, symbol)) == NULL) return
    YCFT_LOAD(pbkdf2_hmac, "PKCS5_PBKDF2_HMAC");
    YCFT_LOAD(sha256, "EVP_sha256");
    YCFT_LOAD(sha1, "EVP_sha1");
    YCFT_LOAD(aes_256_wrap, "EVP_aes_256_wrap");
    YCFT_LOAD(aes_256_cbc, "EVP_aes_256_cbc");
    YCFT_LOAD(cipher_ctx_new, "EVP_CIPHER_CTX_new");
    YCFT_LOAD(cipher_ctx_free, "EVP_CIPHER_CTX_free");
    YCFT_LOAD(cipher_ctx_set_flags, "EVP_CIPHER_CTX_set_flags");
    YCFT_LOAD(decrypt_init_ex, "EVP_DecryptInit_ex");
    YCFT_LOAD(decrypt_update, "EVP_DecryptUpdate");
    YCFT_LOAD(decrypt_final_ex, "EVP_DecryptFinal_ex");
    YCFT_LOAD(err_clear_error, "ERR_clear_error");
#undef YCFT_LOAD
    ycft_crypto_slot_storage()->api = api;
    ycft_crypto_slot_storage()->loaded = 1;
}

/** The calls, libcrypto loaded once on the first call (RTLD_LOCAL, pthread_once); NULL when no
    libcrypto could be loaded or it lacks one of them. */
static inline const ycft_crypto_api *_Nullable ycft_crypto(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, ycft_crypto_load);
    ycft_crypto_slot *slot = ycft_crypto_slot_storage();
    return slot->loaded ? &slot->api : NULL;
}

#endif
