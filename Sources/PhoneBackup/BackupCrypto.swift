internal import CCrypto

/// The cryptography of an encrypted backup, every step from the system's OpenSSL `libcrypto`
/// (loaded on first use, `ycft_crypto`): PBKDF2 (`PKCS5_PBKDF2_HMAC`), AES key unwrap (RFC 3394,
/// EVP `aes-256-wrap`) and AES-256-CBC decryption (EVP). One internal function per use; nothing
/// written by hand.
enum BackupCrypto {
    /// The hash PBKDF2's HMAC uses.
    enum Digest { case sha256, sha1 }

    /// No libcrypto could be loaded, or a call failed where only a broken library fails (no
    /// memory, no cipher).
    enum Failure: Error {
        case unavailable
        case failed(call: String)

        /// The failure as the backup's error.
        var backupError: BackupError {
            switch self {
            case .unavailable: .missingLibrary(.libcrypto)
            case let .failed(call): .libcrypto(call)
            }
        }
    }

    /// libcrypto's calls, loaded on the first use.
    private static func api() throws(Failure) -> ycft_crypto_api {
        guard let api = ycft_crypto() else { throw .unavailable }
        return api.pointee
    }

    /// PBKDF2-HMAC of `password` with `salt`, `iterations` rounds, 32 bytes of key
    /// (`PKCS5_PBKDF2_HMAC` with `EVP_sha256` or `EVP_sha1`).
    static func pbkdf2(_ password: [UInt8], salt: [UInt8], iterations: Int, digest: Digest) throws(Failure) -> [UInt8] {
        guard let rounds = Int32(exactly: iterations), rounds > 0,
              let passwordCount = Int32(exactly: password.count), let saltCount = Int32(exactly: salt.count) else {
            throw .failed(call: "PKCS5_PBKDF2_HMAC")
        }
        let crypto = try api()
        var key = [UInt8](repeating: 0, count: 32)
        let hash = digest == .sha256 ? crypto.sha256() : crypto.sha1()
        let done = password.withUnsafeBufferPointer { password in
            salt.withUnsafeBufferPointer { salt in
                key.withUnsafeMutableBufferPointer { key in
                    password.withMemoryRebound(to: CChar.self) { password in
                        crypto.pbkdf2_hmac(password.baseAddress, passwordCount, salt.baseAddress, saltCount, rounds, hash, 32, key.baseAddress)
                    }
                }
            }
        }
        guard done == 1 else { throw .failed(call: "PKCS5_PBKDF2_HMAC") }
        return key
    }

    /// Unwraps a 32-byte key wrapped (RFC 3394) with the 32-byte `kek` (EVP `aes-256-wrap`); nil
    /// when the unwrap's integrity check fails (the wrong key-encryption key, or altered bytes).
    static func unwrap(_ wrapped: [UInt8], with kek: [UInt8]) throws(Failure) -> [UInt8]? {
        guard kek.count == 32, wrapped.count == 40 else { return nil }
        let result = try cipher(try api().aes_256_wrap(), key: kek, iv: nil, wrapped, capacity: wrapped.count + 16)
        guard let result, result.count == 32 else { return nil }
        return result
    }

    /// ``unwrap(_:with:)``, a libcrypto failure as the backup's error.
    static func unwrapping(_ wrapped: [UInt8], with kek: [UInt8]) throws(BackupError) -> [UInt8]? {
        do { return try unwrap(wrapped, with: kek) } catch { throw error.backupError }
    }

    /// Decrypts `data` with AES-256-CBC, a zero IV and PKCS#7 padding checked and removed (EVP
    /// `aes-256-cbc`); nil when the length is not a whole number of blocks or the padding is wrong.
    static func decryptCBC(_ data: [UInt8], key: [UInt8]) throws(Failure) -> [UInt8]? {
        guard key.count == 32, !data.isEmpty, data.count % 16 == 0 else { return nil }
        return try cipher(try api().aes_256_cbc(), key: key, iv: [UInt8](repeating: 0, count: 16), data, capacity: data.count + 16)
    }

    /// One decryption through an EVP context (`EVP_CIPHER_CTX_new`, `EVP_DecryptInit_ex`,
    /// `EVP_DecryptUpdate`, `EVP_DecryptFinal_ex`; a block cipher's PKCS#7 padding, EVP's default,
    /// is checked and removed); nil when libcrypto refuses the input.
    private static func cipher(_ type: UnsafeRawPointer?, key: [UInt8], iv: [UInt8]?, _ input: [UInt8], capacity: Int) throws(Failure) -> [UInt8]? {
        let crypto = try api()
        guard let context = crypto.cipher_ctx_new() else { throw .failed(call: "EVP_CIPHER_CTX_new") }
        defer { crypto.cipher_ctx_free(context) }
        crypto.cipher_ctx_set_flags(context, YCFT_EVP_CIPHER_CTX_FLAG_WRAP_ALLOW)
        let initialised = key.withUnsafeBufferPointer { key in
            if let iv { return iv.withUnsafeBufferPointer { crypto.decrypt_init_ex(context, type, nil, key.baseAddress, $0.baseAddress) } }
            return crypto.decrypt_init_ex(context, type, nil, key.baseAddress, nil)
        }
        guard initialised == 1 else { throw .failed(call: "EVP_DecryptInit_ex") }
        // unreachable: inputs are at most Manifest.db's limit (512 MiB) or --max-input-size, below 2^31 bytes
        guard let inputCount = Int32(exactly: input.count) else { return nil }
        var output = [UInt8](repeating: 0, count: capacity)
        var written: Int32 = 0
        var last: Int32 = 0
        let ok = output.withUnsafeMutableBufferPointer { output in
            input.withUnsafeBufferPointer { input in
                guard crypto.decrypt_update(context, output.baseAddress, &written, input.baseAddress, inputCount) > 0 else { return false }
                return crypto.decrypt_final_ex(context, output.baseAddress.map { $0 + Int(written) }, &last) > 0
            }
        }
        // A refusal leaves OpenSSL's error queue filled; empty it so the next call starts clean.
        crypto.err_clear_error()
        guard ok else { return nil }
        output.removeSubrange(Int(written + last)...)
        return output
    }
}
