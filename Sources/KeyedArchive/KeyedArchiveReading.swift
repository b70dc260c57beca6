@_exported public import KeyedArchiveCore
public import Plist

// Reading an archive from bytes needs libplist; everything else about archives (the value
// model, the builder, the dump) is in KeyedArchiveCore, which does not link it.
extension KeyedArchive {
    /// Reads an archive from property-list bytes.
    /// - Throws: ``ArchiveError/plist(_:)`` when the bytes are not a plist, otherwise the first
    ///   envelope problem.
    public init(bytes: [UInt8], limits: PlistLimits = .default) throws(ArchiveError) {
        let value: PlistValue
        do { value = try PropertyList.read(bytes, limits: limits).value } catch { throw .plist(error) }
        try self.init(plist: value)
    }
}
