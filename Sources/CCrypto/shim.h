#ifndef YCFT_CCRYPTO_SHIM_H
#define YCFT_CCRYPTO_SHIM_H

/* OpenSSL's libcrypto, for an encrypted iPhone backup: PBKDF2 (PKCS5_PBKDF2_HMAC), AES key
   unwrap (RFC 3394, EVP aes-256-wrap) and AES-256-CBC decryption (EVP). Only the EVP and
   PKCS5 interfaces, which OpenSSL 1.1 and 3 both keep without deprecation. */
#include <openssl/evp.h>
#include <openssl/err.h>

#endif
