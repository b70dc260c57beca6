package import FileErrors
#if canImport(Glibc)
import CLinuxCalls
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An extended attribute of a replaced file that its replacement could not keep, and why.
///
/// On Linux a POSIX ACL is the attribute `system.posix_acl_access`; `user.*` attributes are the
/// owner's to set, `security.*` and `trusted.*` need privileges (`CAP_SYS_ADMIN`, `CAP_SETFCAP`)
/// that a user's process lacks.
package struct AttributeNotKept: Sendable, Equatable, CustomStringConvertible {
    /// The attribute's name (`security.evm`, `system.posix_acl_access`, `user.origin`).
    package let name: String
    /// The failure reading it from the original or setting it on the replacement.
    package let error: SystemError

    /// `security.evm (Operation not permitted)`.
    package var description: String { "\(name) (\(error))" }
}

/// Copies a file's extended attributes (and with them its POSIX ACLs) to its replacement.
/// Linux only: elsewhere nothing is copied and nothing is reported.
enum FileAttributes {
    /// The access ACL as Linux stores it: an attribute the kernel checks and keeps in step with
    /// the mode's group bits (the ACL mask).
    static let accessACL = "system.posix_acl_access"

    /// Whether an attribute can grant access to the file: one of Linux's `system.` namespace,
    /// where file systems keep access control lists (`system.posix_acl_access`,
    /// `system.nfs4_acl`, `system.richacl`, `system.cifs_acl`, ...). `user.*` attributes are
    /// data; `security.*` labels (SELinux, Smack) only ever restrict what the mode allows.
    static func grantsAccess(_ name: String) -> Bool { name.hasPrefix("system.") }

    /// Makes the attributes of the open file `destination` those of `source`, a regular file
    /// (a resolved path, no link) whose status was `status`: every attribute of the original
    /// that the process can read is set on the destination (unless it holds that value already),
    /// and an access ACL the destination inherited from its directory's default ACL, which the
    /// original does not have, is removed. Call it after the mode is set: setting an ACL sets
    /// the group bits from its mask, as on the original.
    ///
    /// Attributes the process cannot see (`trusted.*` without `CAP_SYS_ADMIN`) cannot be copied
    /// nor reported. A file system without extended attributes has none to copy.
    ///
    /// With `grantingAccess` false, attributes that grant access (``grantsAccess(_:)``: ACLs)
    /// are neither copied nor reported, and one the destination has is left to the caller
    /// (``removeAccessGrants(from:)``).
    /// - Returns: the attributes that could not be kept, in the original's order.
    static func copy(from source: String, status: FileStatus, to destination: Int32, grantingAccess: Bool = true) -> [AttributeNotKept] {
        #if os(Linux)
        // The original's own descriptor where it can be opened (reads no data: O_NONBLOCK on a
        // regular file only spares a wait if it was swapped for a pipe); else its path.
        let opened = try? FileStatus.open(source, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC).get()
        defer { if let opened { close(opened.fd) } }
        let original: Origin
        if let opened, opened.status.identity.sameFile(as: status.identity) { original = .descriptor(opened.fd) } else { original = .path(source) }
        var notKept: [AttributeNotKept] = []
        let names: [String]
        switch listNames(original) {
        case let .success(list): names = list
        case let .failure(error): return [AttributeNotKept(name: "*", error: error)]
        }
        for name in names where grantingAccess || !grantsAccess(name) {
            let value: [UInt8]
            switch getValue(original, name) {
            case let .success(v): value = v
            case let .failure(error):
                if error.errno == ENODATA { continue }  // removed meanwhile
                notKept.append(AttributeNotKept(name: name, error: error))
                continue
            }
            if case let .success(current) = getValue(.descriptor(destination), name), current == value { continue }
            let rc = value.withUnsafeBytes { fsetxattr(destination, name, $0.baseAddress, $0.count, 0) }
            if rc != 0 { notKept.append(AttributeNotKept(name: name, error: .current)) }
        }
        // A new file inherits its directory's default ACL; the original had none (or lost it).
        if grantingAccess, !names.contains(accessACL), case .success = getValue(.descriptor(destination), accessACL) {
            // untested: fremovexattr of the ACL just read from the new file fails only on a file system that refuses
            // to remove what it reported (none to test on)
            if fremovexattr(destination, accessACL) != 0 { notKept.append(AttributeNotKept(name: accessACL, error: .current)) }
        }
        return notKept
        #else
        return []
        #endif
    }

    /// Removes every attribute that grants access (``grantsAccess(_:)``) from the open file
    /// `fd`: a new file holding secret bytes keeps none, not even the ACL it inherited from its
    /// directory's default ACL. A file system without extended attributes has none to remove.
    /// - Throws: ``SystemError`` when the attributes cannot be listed or one cannot be removed.
    static func removeAccessGrants(from fd: Int32) throws(SystemError) {
        #if os(Linux)
        for name in try listNames(.descriptor(fd)).get() where grantsAccess(name) {
            // untested: removing an attribute just listed on ycft's own new file fails only on a
            // file system that refuses to remove what it reported (none to test on)
            if fremovexattr(fd, name) != 0 && errno != ENODATA { throw .current }
        }
        #endif
    }

    #if os(Linux)
    /// Where attributes are read from.
    enum Origin {
        case descriptor(Int32)
        case path(String)
    }

    /// The names of every attribute the process can see (`flistxattr`/`llistxattr`).
    /// None on a file system without extended attributes.
    static func listNames(_ origin: Origin) -> Result<[String], SystemError> {
        let list = sized { buffer, size in
            switch origin {
            case let .descriptor(fd): return flistxattr(fd, buffer, size)
            case let .path(path): return llistxattr(PathBytes.cString(path), buffer, size)
            }
        }
        if case let .failure(error) = list, [ENOTSUP, EOPNOTSUPP, ENOSYS].contains(error.errno) { return .success([]) }
        return list.map { bytes in
            bytes.split(separator: 0, omittingEmptySubsequences: true).map { String(decoding: $0, as: UTF8.self) }
        }
    }

    /// One attribute's value (`fgetxattr`/`lgetxattr`).
    static func getValue(_ origin: Origin, _ name: String) -> Result<[UInt8], SystemError> {
        sized { buffer, size in
            switch origin {
            case let .descriptor(fd): return fgetxattr(fd, name, UnsafeMutableRawPointer(buffer), size)
            case let .path(path): return lgetxattr(PathBytes.cString(path), name, UnsafeMutableRawPointer(buffer), size)
            }
        }
    }

    /// Calls a `*xattr` reader with a buffer large enough: asks the size first, then retries
    /// while the value grows between the calls (`ERANGE`).
    private static func sized(_ call: (UnsafeMutablePointer<CChar>?, Int) -> Int) -> Result<[UInt8], SystemError> {
        for _ in 0..<8 {
            let needed = call(nil, 0)
            if needed < 0 { return .failure(.current) }
            if needed == 0 { return .success([]) }
            var buffer = [UInt8](repeating: 0, count: needed)
            let n = buffer.withUnsafeMutableBytes { raw in
                call(raw.baseAddress?.assumingMemoryBound(to: CChar.self), raw.count)
            }
            if n >= 0 { return .success(Array(buffer[..<min(n, buffer.count)])) }
            let failure = SystemError.current
            // ERANGE: the value grew between the two calls; asked again.
            if failure.errno != ERANGE { return .failure(failure) }
        }
        return .failure(SystemError(errno: ERANGE))
    }
    #endif
}
